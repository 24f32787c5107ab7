"""``ranking_summary(device="gpu")`` and ``curve_bands(device="gpu")``.

In the normal suite the array-namespace code runs on NumPy: the curve sweeps of
:mod:`ranklens._compute.xp.curves` against the numba sweeps (ties, integer, fractional and zero
weights), ``curve_bands(device="gpu")`` with the engine's namespace set to NumPy against the CPU
replicate by replicate, and the exact sums of :mod:`ranklens._compute.xp.summary` against the CPU
``ranking_summary`` field by field and against brute-force per-row pair counts. Marked ``gpu``:
the same on CuPy (skipped without CuPy or a CUDA device).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import ranklens as rl
from emulated_device import on_device
from ranklens import ranking
from ranklens._compute.xp import curves as xc
from ranklens._compute.xp.summary import summary_sums
from ranklens._inference import device_engine as gpu_engine


def _has_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


needs_gpu = pytest.mark.skipif(not _has_gpu(), reason="needs CuPy and a CUDA device")
GRID = np.round(np.arange(0, 101) / 100.0, 2)


def _data(n: int, ties: bool, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if ties:
        return rng.integers(0, 6, n).astype(float), rng.integers(0, 9, n).astype(float)
    y = rng.normal(size=n)
    return y, y + rng.normal(size=n)


def _numba_sweep(curve: str, y: np.ndarray, p: np.ndarray, w: np.ndarray) -> np.ndarray:
    sweep = rl.metrics.get_curve(curve).sweep
    return sweep.evaluate(sweep.prepare(y, p), w.astype(np.float64), GRID)


@pytest.mark.parametrize("curve", ["cutoff_auc", "rank_lift"])
@pytest.mark.parametrize("n", [3, 40, 500])
@pytest.mark.parametrize("ties", [False, True])
def test_xp_curve_sweeps_equal_numba(curve: str, n: int, ties: bool) -> None:
    y, p = _data(n, ties, seed=n)
    rng = np.random.default_rng(1)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=30).astype(np.int32)
    counts[0] = 0  # no weight at all: NaN everywhere
    counts[0, :2] = 1
    sweep = rl.metrics.get_curve(curve).sweep
    state = sweep.device_prepare(np, y, p)
    got = sweep.device_evaluate(np, state, counts, GRID)
    want = _numba_sweep(curve, y, p, counts)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13, equal_nan=True)
    # fractional weights: row by row against the curve function itself (the numba sweep can
    # keep a cut whose lower side is empty when W - W_P is a rounding residue)
    fractional = counts * rng.uniform(0.2, 3.0, n)
    got = sweep.device_evaluate(np, state, fractional, GRID)
    spec = rl.metrics.get_curve(curve)
    for r in range(1, fractional.shape[0]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a replicate with one y value: an empty curve
            want_r = spec.on_grid(spec.func(y, p, sample_weight=fractional[r]), GRID)
        np.testing.assert_allclose(got[r], want_r, rtol=1e-9, atol=1e-12)  # float sums


def test_xp_cutoff_auc_integer_weights_bit_equal() -> None:
    # integer weights: exact int64 sums, so the points are the numba kernel's to the last bit
    y, p = _data(300, True)
    w = np.random.default_rng(2).multinomial(300, np.full(300, 1 / 300), size=20)
    got = xc.cutoff_auc_grid(np, xc.prepare(np, y, p), w.astype(np.int32), GRID)
    want = _numba_sweep("cutoff_auc", y, p, w)
    np.testing.assert_array_equal(got, want)


def test_xp_curve_matches_the_curve_function() -> None:
    # an independent reference: the curve functions themselves, read on the grid
    y, p = _data(200, True, seed=3)
    w = np.random.default_rng(4).integers(0, 4, 200)
    w[:3] = 1
    state = xc.prepare(np, y, p)
    for curve, fn, kernel in (
        ("cutoff_auc", rl.cutoff_auc_curve, xc.cutoff_auc_grid),
        ("rank_lift", rl.rank_lift_curve, xc.rank_lift_grid),
    ):
        want = rl.metrics.get_curve(curve).on_grid(fn(y, p, sample_weight=w), GRID)
        got = kernel(np, state, w[None, :], GRID)[0]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.fixture
def numpy_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_engine, "device_namespace", lambda: np)


@pytest.mark.parametrize("curve", ["cutoff_auc", "rank_lift"])
@pytest.mark.parametrize("weights", ["none", "integer", "fractional"])
def test_curve_bands_device_equals_cpu(numpy_device: None, curve: str, weights: str) -> None:
    rng = np.random.default_rng(5)
    n = 250
    y = rng.integers(0, 15, n).astype(float)
    preds = pd.DataFrame({"a": y + rng.normal(0, 4, n), "b": np.round(y + rng.normal(0, 6, n))})
    sw = {"none": None, "integer": rng.integers(1, 4, n), "fractional": rng.uniform(0.5, 2, n)}
    kw = dict(curve=curve, n_bootstrap=40, random_state=3, sample_weight=sw[weights])
    cpu = rl.curve_bands(pd.Series(y), preds, **kw)
    dev = rl.curve_bands(pd.Series(y), preds, device="gpu", **kw)
    np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-13)
    followed = rl.curve_bands(on_device(y), preds, **kw)  # the device follows the data
    np.testing.assert_array_equal(followed.replicates, dev.replicates)
    np.testing.assert_array_equal(dev.estimate, cpu.estimate)
    for field in ("lower", "upper", "simultaneous_lower", "prob_a_beats_b", "difference_upper"):
        np.testing.assert_allclose(getattr(dev, field), getattr(cpu, field), atol=1e-12)


def test_curve_bands_device_poisson_and_groups_equal_cpu(numpy_device: None) -> None:
    y, p = _data(120, True, seed=6)
    preds = {"m": p, "r": p[::-1].copy()}
    groups = np.arange(120) // 4
    for kw in ({"scheme": "poisson"}, {"groups": groups}):
        cpu = rl.curve_bands(y, preds, n_bootstrap=25, random_state=1, **kw)
        dev = rl.curve_bands(y, preds, n_bootstrap=25, random_state=1, device="cuda", **kw)
        np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-13)


def test_curve_bands_device_refuses_curves_without_the_form(numpy_device: None) -> None:
    y, p = _data(50, True)
    for curve in ("gain", "lift"):
        with pytest.raises(ValueError, match=repr(curve)):
            rl.curve_bands(y, {"m": p}, curve=curve, n_bootstrap=5, device="gpu")
    with pytest.raises(ValueError, match="device must be one of"):
        rl.curve_bands(y, {"m": p}, n_bootstrap=5, device="tpu")


def _fields(s: rl.ranking.RankingSummary) -> dict[str, object]:
    out = s.to_dict()
    ci = out.pop("tau_ci")
    out["tau_ci_low"], out["tau_ci_high"] = (ci.low, ci.high) if hasattr(ci, "low") else ci
    return out


def _assert_summary_equal(dev: object, cpu: object) -> None:
    a, b = _fields(dev), _fields(cpu)  # type: ignore[arg-type]
    assert a.keys() == b.keys()
    for key, want in b.items():
        got = a[key]
        if key in ("exact_counts", "n") or isinstance(want, (str, bool)):
            assert got == want, key
        elif isinstance(want, float) and math.isnan(want):
            assert math.isnan(got), key  # type: ignore[arg-type]
        else:
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("n", [2, 3, 4, 5, 12, 33, 34, 200, 1500])
@pytest.mark.parametrize("ties", ["none", "some", "binary"])
def test_summary_sums_equal_cpu_ranking_summary(n: int, ties: str) -> None:
    rng = np.random.default_rng(n)
    if ties == "none":
        y, p = rng.normal(size=n), rng.normal(size=n)
    elif ties == "some":
        y, p = rng.integers(0, 5, n).astype(float), rng.integers(0, 7, n).astype(float)
    else:
        y, p = (rng.random(n) < 0.3).astype(float), rng.integers(0, 4, n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cpu = rl.ranking_summary(y, p)
        dev = ranking._ranking_summary_on_device(y, p, None, 0.95, namespace=np)
    _assert_summary_equal(dev, cpu)


def test_per_row_discordance_against_brute_force() -> None:
    # the Noether sums from the per-row counts of the levels, against an O(n^2) twin
    rng = np.random.default_rng(8)
    n = 60
    y, p = rng.integers(0, 5, n).astype(float), rng.integers(0, 6, n).astype(float)
    sy = np.sign(y[:, None] - y[None, :])
    sp = np.sign(p[:, None] - p[None, :])
    h = (sy * sp).sum(axis=1)
    dy = (sy != 0).sum(axis=1)
    dp = (sp != 0).sum(axis=1)
    want = [
        h.sum(),
        (h * h).sum(),
        (h * dy).sum(),
        (h * dp).sum(),
        dy.sum(),
        (dy * dy).sum(),
        (dy * dp).sum(),
        dp.sum(),
        (dp * dp).sum(),
    ]
    sums = summary_sums(np, y, p)
    assert sums["moments"] == [int(v) for v in want]
    assert sums["discordant"] == int(((sy * sp) < 0).sum() // 2)
    assert sums["concordant"] == int(((sy * sp) > 0).sum() // 2)


def test_summary_exact_beyond_float_sums() -> None:
    # S2 = sum (2a)(2b) passes 2**53 here; the limb sums keep R exact (R = sum i^2 - sum i s_i)
    n = 300_000
    rng = np.random.default_rng(9)
    p = rng.permutation(n).astype(float)
    y = np.arange(n, dtype=float)
    sums = summary_sums(np, y, p)
    assert sums["s2"] > 2**53
    cpu = rl.ranking_summary(y, p)
    dev = ranking._ranking_summary_on_device(y, p, None, 0.95, namespace=np)
    assert dev.exact_counts == cpu.exact_counts
    ranks = p.argsort().argsort() + 1  # prediction rank of the i-th smallest y
    assert cpu.exact_counts["weighted_discordance"] >= 0
    assert dev.spearman_rho == pytest.approx(
        1 - 6 * float(np.sum((ranks - np.arange(1, n + 1)) ** 2.0)) / (n**3 - n), abs=1e-12
    )


def test_summary_device_reads_containers() -> None:
    # (the weighted device summary: tests/engines/test_gpu_targeting.py)
    y, p = _data(40, True)
    ro = p.copy()
    ro.flags.writeable = False
    dev = ranking._ranking_summary_on_device(pd.Series(y), ro[::1], None, 0.9, namespace=np)
    _assert_summary_equal(dev, rl.ranking_summary(y, p, confidence_level=0.9))
    strided = np.repeat(p, 2)[::2]
    dev = ranking._ranking_summary_on_device(y, strided, None, 0.95, namespace=np)
    _assert_summary_equal(dev, rl.ranking_summary(y, p))


# --------------------------------------------------------------------------------------------
# on a CUDA device
# --------------------------------------------------------------------------------------------


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("ties", [False, True])
def test_cupy_ranking_summary_equals_cpu(ties: bool) -> None:
    import cupy

    for n in (5, 33, 2000, 200_000):
        y, p = _data(n, ties, seed=n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cpu = rl.ranking_summary(y, p)
            dev = rl.ranking_summary(cupy.asarray(y), cupy.asarray(p))
        _assert_summary_equal(dev, cpu)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("curve", ["cutoff_auc", "rank_lift"])
def test_cupy_curve_sweeps_equal_numpy(curve: str) -> None:
    import cupy

    y, p = _data(5000, True, seed=11)
    rng = np.random.default_rng(12)
    w = rng.multinomial(5000, np.full(5000, 1 / 5000), size=50).astype(np.int32)
    sweep = rl.metrics.get_curve(curve).sweep
    want = sweep.device_evaluate(np, sweep.device_prepare(np, y, p), w, GRID)
    state = sweep.device_prepare(cupy, cupy.asarray(y), cupy.asarray(p))
    got = sweep.device_evaluate(cupy, state, cupy.asarray(w), cupy.asarray(GRID)).get()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got, _numba_sweep(curve, y, p, w), rtol=1e-12, atol=1e-13)


@pytest.mark.gpu
@needs_gpu
def test_cupy_curve_bands_equal_cpu_for_host_draws() -> None:
    # Poisson weights are drawn on the host: the same replicates as on the CPU
    y, p = _data(3000, True, seed=13)
    preds = {"a": p, "b": y + np.random.default_rng(0).normal(0, 3, 3000)}
    kw = dict(n_bootstrap=64, random_state=2, scheme="poisson")
    for curve in ("cutoff_auc", "rank_lift"):
        cpu = rl.curve_bands(y, preds, curve=curve, **kw)
        dev = rl.curve_bands(y, preds, curve=curve, device="gpu", **kw)
        np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-13)
        dev2 = rl.curve_bands(y, preds, curve=curve, device="gpu", n_bootstrap=64, random_state=2)
        np.testing.assert_array_equal(dev2.estimate, cpu.estimate)
        assert np.isfinite(dev2.lower).all()
