"""The ranking measures of inputs on a CUDA device (ranklens._compute.xp.measures).

On NumPy (every run, the device namespace set to NumPy) the values equal the CPU path's: exact
pair counts for tau, C and D, float64 moments for rho. On CuPy (``@pytest.mark.gpu``) the same
with CuPy arrays and torch tensors (DLPack) as inputs.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import ranklens._compute.xp.measures as xm
from emulated_device import on_device
from ranklens import kendall_tau, rho_normalized, somers_d, spearman_rho, tau_normalized
from ranklens.exceptions import UndefinedMetricWarning

MEASURES = [kendall_tau, spearman_rho, tau_normalized, rho_normalized, somers_d]


def _has_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


needs_gpu = pytest.mark.skipif(not _has_gpu(), reason="needs CuPy and a CUDA device")


@pytest.fixture
def numpy_device(monkeypatch):
    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: np)


def _data(n, seed=0, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    p = y + rng.normal(size=n)
    if ties:
        y, p = np.round(y, 1), np.round(p, 0)
    return y, p


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("ties", [True, False])
def test_device_equals_cpu_unweighted(numpy_device, measure, ties):
    y, p = _data(3000, ties=ties)
    assert measure(on_device(y), p) == pytest.approx(measure(y, p), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("measure", MEASURES)
def test_device_equals_cpu_weighted(numpy_device, measure):
    y, p = _data(2000, seed=1)
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 5, y.size)
    got = measure(on_device(y), p, sample_weight=counts.astype(float))
    # integer weights are repeated rows: exactly the materialised data's value
    assert got == pytest.approx(
        measure(np.repeat(y, counts), np.repeat(p, counts)), rel=1e-12, abs=1e-15
    )
    fractional = rng.uniform(0, 3, y.size)
    assert measure(on_device(y), p, sample_weight=fractional) == pytest.approx(
        measure(y, p, sample_weight=fractional), rel=1e-12, abs=1e-15
    )


def test_device_field_containers(numpy_device):
    y, p = _data(500)
    ro = p.copy()
    ro.setflags(write=False)
    strided = np.repeat(y, 2)[::2]
    assert kendall_tau(pd.Series(strided), on_device(ro)) == kendall_tau(y, p)


def test_device_undefined_warns(numpy_device):
    with pytest.warns(UndefinedMetricWarning, match="Kendall's tau is undefined"):
        assert math.isnan(kendall_tau(on_device(np.ones(5)), np.arange(5.0)))


def test_device_input_errors_name_the_argument(numpy_device):
    with pytest.raises(ValueError, match="y_pred contains NaN"):
        kendall_tau(on_device([1.0, 2.0, 3.0]), [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="different lengths"):
        spearman_rho(on_device([1.0, 2.0, 3.0]), [1.0, 2.0])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        somers_d(on_device([1.0, 2.0, 3.0]), [1.0, 3.0, 2.0], sample_weight=[1, -1, 1])


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("measure", MEASURES)
def test_cupy_measures_equal_cpu(measure):
    import cupy

    y, p = _data(200_000, ties=True)
    got = measure(cupy.asarray(y), cupy.asarray(p))
    assert got == pytest.approx(measure(y, p), rel=1e-12, abs=1e-15)
    # Integer weights are repeated rows: the exact reference is the unweighted CPU value of the
    # materialised data (the CPU's weighted sweep sums float64 weights and was 6e-12 off here).
    sw = np.random.default_rng(3).integers(0, 4, y.size)
    got = measure(y, p, sample_weight=cupy.asarray(sw.astype(float)))
    exact = measure(np.repeat(y, sw), np.repeat(p, sw))
    assert got == pytest.approx(exact, rel=1e-12, abs=1e-15)
    assert got == pytest.approx(measure(y, p, sample_weight=sw.astype(float)), rel=1e-9)


@pytest.mark.gpu
@needs_gpu
def test_torch_tensors_through_dlpack():
    torch = pytest.importorskip("torch")
    y, p = _data(50_000)
    got = kendall_tau(torch.as_tensor(y, device="cuda"), torch.as_tensor(p, device="cuda"))
    assert got == kendall_tau(y, p)


def test_the_device_follows_the_data(monkeypatch):
    """Host inputs compute on the CPU; one input on a device sends the call there, with the
    others copied to it; without CuPy a device input says what to install."""
    from ranklens._foundation.extras import MissingExtraError

    y, p = _data(300)
    assert not xm.on_device(y, list(p), pd.Series(p), None)
    assert xm.on_device(y, on_device(p), None)
    with pytest.raises(MissingExtraError, match=r'pip install "ranklens\[gpu\]"'):
        kendall_tau(y, on_device(p))
    asked = []
    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: asked.append(what) or np)
    assert kendall_tau(y, p) == kendall_tau(y, on_device(p))
    assert asked == ["a rank measure on device inputs"]
    assert kendall_tau(y, p, sample_weight=on_device(np.ones(y.size))) == kendall_tau(y, p)
    assert len(asked) == 2
