"""The NumPy forms of the utility kernels (ranklens._compute.xp.utility) against the numba kernels.

A small call whose kernel is not loaded takes the NumPy form (``numpy_route``): the relevance
(Torgo & Ribeiro 2009, eq. 4), the accuracy (eqs. 8-9) and the precision / recall sums (eqs. 6
and 10) must then be the kernels' numbers to the last bit, and such a call must not load the
kernels (nor import numba for them).
"""

from __future__ import annotations

import io
import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ranklens
from ranklens import extremes
from ranklens._compute.kernels import compare as _kc
from ranklens._compute.kernels import utility as _k
from ranklens._compute.xp import utility as _xu
from ranklens._foundation import route as _route
from ranklens._inference import resampling as _resampling


def _bits(a: Any) -> list[int]:
    return np.asarray(a, dtype=np.float64).view(np.int64).tolist()


def _same(a: Any, b: Any) -> bool:
    """Bit for bit (NaN payloads and signed zeros included), same shape and dtype."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype == np.float64 and a.shape == b.shape and _bits(a) == _bits(b)


def _values(rng: np.random.Generator, n: int) -> np.ndarray:
    """Values with ties, signed zeros, NaN and infinities."""
    y = np.round(rng.normal(size=n) * rng.choice([0.5, 3.0, 50.0]), int(rng.integers(0, 3)))
    if n:
        y[rng.random(n) < 0.08] = np.nan
        y[rng.random(n) < 0.04] = -0.0
        y[rng.random(n) < 0.02] = np.inf
        y[rng.random(n) < 0.02] = -np.inf
    return y


def test_loss_codes_match_the_kernels() -> None:
    assert (_xu.LOSS_ABSOLUTE, _xu.LOSS_SQUARED) == (_k.LOSS_ABSOLUTE, _k.LOSS_SQUARED)


@pytest.mark.parametrize("tails", ["both", "low", "high", "none"])
def test_sigmoid_relevance_numpy_is_the_kernel(tails: str) -> None:
    rng = np.random.default_rng(1)
    for n in [0, 1, 2, 3, *rng.integers(4, 400, 40).tolist()]:
        y = _values(rng, n)
        args = (
            tails in ("both", "low"),
            float(rng.normal()),
            -float(rng.choice([1e-3, 1.0, 7.5, 1e3])) * rng.random(),
            tails in ("both", "high"),
            float(rng.normal()) + 1.0,
            float(rng.choice([1e-3, 1.0, 7.5, 1e3])) * rng.random(),
        )
        assert _same(_xu.sigmoid_relevance_numpy(y, *args), _k.sigmoid_relevance(y, *args)), n


@pytest.mark.parametrize("smooth", [True, False])
@pytest.mark.parametrize("loss", [_xu.LOSS_ABSOLUTE, _xu.LOSS_SQUARED])
def test_accuracy_values_numpy_is_the_kernel(smooth: bool, loss: int) -> None:
    rng = np.random.default_rng(2)
    for n in [0, 1, 2, 3, *rng.integers(4, 400, 40).tolist()]:
        y = _values(rng, n)
        p = np.round(y + rng.normal(size=n), 1)
        thresholds = [0.25, 1.0, 1e-300] + ([] if smooth else [0.0])
        for t in thresholds:
            for k in (8.0, 0.5, 1e5):
                got = _xu.accuracy_values_numpy(y, p, smooth, t, k, loss)
                assert _same(got, _k.accuracy_values(y, p, smooth, t, k, loss)), (n, t, k)


@pytest.mark.parametrize("weights", ["none", "zero", "integer", "fractional"])
def test_precision_recall_sums_numpy_is_the_kernel(weights: str) -> None:
    rng = np.random.default_rng(3)
    for n in [0, 1, 2, 3, *rng.integers(4, 600, 40).tolist()]:
        phi_t = np.round(rng.random(n), 1)  # ties at the event threshold
        phi_p = np.round(rng.random(n), 2)
        alpha = np.where(rng.random(n) < 0.3, 0.0, rng.random(n))
        w = {
            "none": np.ones(n),
            "zero": np.where(rng.random(n) < 0.5, 0.0, 1.0),
            "integer": rng.integers(0, 4, n).astype(float),
            "fractional": np.where(rng.random(n) < 0.2, 0.0, rng.random(n) * 3),
        }[weights]
        use = weights != "none"
        for t_e in (0.0, 0.5, 0.7, 1.0):
            got = _xu.precision_recall_sums_numpy(phi_t, phi_p, alpha, w, use, t_e)
            want = _k.precision_recall_sums(phi_t, phi_p, alpha, w, use, t_e)
            assert [type(v) for v in got] == [type(v) for v in want]
            assert _bits(got[:2] + got[3:5]) == _bits(want[:2] + want[3:5]), (n, t_e)
            assert (got[2], got[5]) == (want[2], want[5])


def test_the_sums_start_from_positive_zero() -> None:
    """A kernel's accumulator starts at +0.0: a sum of -0.0 terms is +0.0, not -0.0."""
    phi = np.array([0.75, 0.8])
    alpha = np.array([-0.0, -0.0])
    got = _xu.precision_recall_sums_numpy(phi, phi, alpha, phi, False, 0.5)
    want = _k.precision_recall_sums(phi, phi, alpha, phi, False, 0.5)
    assert _bits([got[0], got[3]]) == _bits([want[0], want[3]]) == _bits([0.0, 0.0])


def test_the_route(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:  # the kernel module not imported: NumPy below the size
        m.delitem(sys.modules, "ranklens._compute.kernels.utility")
        below = _route.POLICY.utility_numpy_below
        assert _xu.numpy_route(below - 1, "accuracy_values")
        assert not _xu.numpy_route(below, "accuracy_values")
        m.setattr(_route.POLICY, "utility_numpy_below", 0)  # as ``ranklens warmup`` sets it
        assert not _xu.numpy_route(1, "accuracy_values")
    _k.accuracy_values(np.zeros(2), np.zeros(2), False, 1.0, 0.0, 0)  # loaded: the kernel
    assert not _xu.numpy_route(10, "accuracy_values")


def _public_calls(y: Any, p: Any, w: Any) -> list[Any]:
    """The public functions whose numbers go through the utility kernels (their warnings on
    degenerate small samples are the same on both routes and not the point here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _calls(y, p, w)


def _calls(y: Any, p: Any, w: Any) -> list[Any]:
    rel = ranklens.SigmoidRelevance(-1.0, 1.5)
    low = ranklens.SigmoidRelevance(low_center=-1.0)
    out: list[Any] = [rel(y), low(p)]
    for acc in (
        extremes.smooth_accuracy(0.5),
        extremes.smooth_accuracy(2.0, k=3.0, loss="squared"),
        extremes.step_accuracy(0.5),
        extremes.step_accuracy(0.0),
    ):
        out.append(acc(y, p))
        for weight in (None, w):
            r = ranklens.regression_precision_recall(
                y, p, relevance=rel, accuracy=acc, sample_weight=weight, event_threshold=0.6
            )
            out.append([r.precision, r.recall, r.f_beta, r.n_true_events, r.n_predicted_events])
    for weight in (None, w):
        out.append(ranklens.sera(y, p, relevance=rel, sample_weight=weight))
        out.append(ranklens.utility_f1(y, p, sample_weight=weight))  # the box-plot relevance
        out.append(ranklens.relevance_from_boxplot(y, sample_weight=weight)(p))
    return out


def _flat(values: list[Any]) -> list[int]:
    flat: list[float] = []
    for v in values:
        flat += np.ravel(np.asarray(v, dtype=np.float64)).tolist()
    return _bits(flat)


@pytest.mark.parametrize("n", [1, 2, 3, 57, 500])
def test_public_functions_take_either_route_with_the_same_numbers(
    monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    rng = np.random.default_rng(n)
    y = np.round(rng.lognormal(1.0, 1.0, n), 1) * rng.choice([-1.0, 1.0], n)
    p = np.round(y + rng.normal(0.0, 1.0, n), 1)
    w = rng.choice([0.0, 1.0, 2.0, 0.5], n)
    w[0] = 1.0
    runs = []
    for route in (True, False):
        monkeypatch.setattr(_xu, "numpy_route", lambda n, kernel, _r=route: _r)
        try:
            runs.append(_flat(_public_calls(y, p, w)))
        except ValueError:  # tiny n: the box plot is degenerate on both routes alike
            runs.append(None)
    assert runs[0] == runs[1]


def test_field_containers(monkeypatch: pytest.MonkeyPatch) -> None:
    """pandas Series from read_csv, read-only and non-contiguous arrays: the NumPy route's
    numbers are the kernel's on a contiguous copy."""
    rng = np.random.default_rng(7)
    n = 300
    y = np.round(rng.normal(size=2 * n) * 3, 2)
    p = np.round(y + rng.normal(size=2 * n), 2)
    w = rng.integers(0, 3, 2 * n).astype(float)
    text = pd.DataFrame({"y": y[:n], "p": p[:n], "w": w[:n]}).to_csv(index=False)
    frame = pd.read_csv(io.StringIO(text))
    frozen = [a[:n].copy() for a in (y, p, w)]
    for a in frozen:
        a.flags.writeable = False
    containers = [
        (frame["y"], frame["p"], frame["w"]),
        tuple(frozen),
        (y[::2], p[::2], w[::2]),  # non-contiguous
    ]
    monkeypatch.setattr(_xu, "numpy_route", lambda n, kernel: False)
    want = [_flat(_public_calls(*(np.ascontiguousarray(c) for c in cs))) for cs in containers]
    monkeypatch.setattr(_xu, "numpy_route", lambda n, kernel: True)
    got = [_flat(_public_calls(*cs)) for cs in containers]
    assert got == want
    assert frozen[0].flags.writeable is False  # nothing written into the caller's arrays


def test_multiplicities_route_is_exact_and_respects_the_rules() -> None:
    rng = np.random.default_rng(0)
    indices = rng.integers(0, 37, size=(9, 37), dtype=np.int32)
    assert _same(
        _resampling.multiplicities_numpy(indices, 37), _kc.multiplicities_serial(indices, 37)
    )
    with _resampling.kernels_only():
        assert not _resampling.multiplicities_route(10, 10)
    with _resampling.numpy_twins(True):
        assert _resampling.multiplicities_route(10**6, 10)
    assert not _resampling.multiplicities_route(_route.POLICY.twins_numpy_below, 1)
    # loaded in this process: the kernel
    assert not _resampling.multiplicities_route(10, 10)
    # the same blocks either way
    blocks = []
    for twins in (True, False):
        with _resampling.numpy_twins(twins):
            g = np.random.default_rng(5)
            blocks.append(list(_resampling.bootstrap_blocks(g, 50, 70)))
    assert all(_same(a, b) for a, b in zip(*blocks, strict=True))


_FRESH = """
import json, sys
import numpy as np
import ranklens
from ranklens import extremes
rng = np.random.default_rng(0)
y = rng.lognormal(3.0, 1.0, 500)
p = y * rng.lognormal(0.0, 0.5, 500)
w = rng.integers(0, 3, 500).astype(float)
rel = ranklens.SigmoidRelevance(10.0, 40.0)
out = []
for weight in (None, w):
    for acc in (extremes.smooth_accuracy(5.0), extremes.step_accuracy(5.0, loss="squared")):
        r = ranklens.regression_precision_recall(y, p, relevance=rel, accuracy=acc,
                                                 sample_weight=weight)
        out += [r.precision, r.recall]
    out += [ranklens.sera(y, p, relevance=rel, sample_weight=weight),
            ranklens.utility_f1(y, p, sample_weight=weight)]
out += rel(y).tolist()
module = sys.modules.get("ranklens._compute.kernels.utility")
loaded = [k for k in ("sigmoid_relevance", "accuracy_values", "precision_recall_sums")
          if module is not None and getattr(module, k).signatures]
print(json.dumps({"loaded": loaded, "bits": np.array(out).view(np.int64).tolist()}))
"""


def test_a_small_call_loads_no_utility_kernel(fresh_python: Any) -> None:
    cold = fresh_python(_FRESH)
    assert cold["loaded"] == []
    forced = fresh_python(
        "from ranklens._foundation.route import POLICY\nPOLICY.utility_numpy_below = 0\n"
        + _FRESH.lstrip()
    )
    assert sorted(forced["loaded"]) == [
        "accuracy_values",
        "precision_recall_sums",
        "sigmoid_relevance",
    ]
    assert cold["bits"] == forced["bits"]  # the kernels' numbers, to the last bit


def test_warmup_still_compiles_the_utility_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = _route.POLICY
    before = policy.utility_numpy_below
    with monkeypatch.context() as m:
        m.delitem(sys.modules, "ranklens._compute.kernels.utility")  # as in a fresh process
        with _route.kernels_at_any_size(_route.Thresholds.FIRST_CALLS):  # as warmup forces them
            assert policy.utility_numpy_below == 0
            assert not _xu.numpy_route(120, "precision_recall_sums")
        assert _xu.numpy_route(120, "precision_recall_sums")
    assert policy.utility_numpy_below == before == 1 << 12


@pytest.mark.parametrize("weighted", [False, True])
def test_the_replicate_sweep_takes_either_route_with_the_same_numbers(
    monkeypatch: pytest.MonkeyPatch, weighted: bool
) -> None:
    """The bootstrap's extremes sweep (every model of a replicate at once on the NumPy forms,
    model by model on the kernels): the same replicates to the last bit."""
    rng = np.random.default_rng(11)
    n = 240
    y = np.round(rng.lognormal(2.0, 1.0, n), 1)
    preds = {
        "good": np.round(y * rng.lognormal(0.0, 0.3, n), 1),
        "poor": np.round(y.mean() + rng.normal(0.0, y.std(), n), 1),
    }
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    metrics = ["utility_f1", "utility_precision", "utility_recall", "sera"]
    runs = []
    for route in (True, False):
        monkeypatch.setattr(_xu, "numpy_route", lambda n, kernel, _r=route: _r)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = ranklens.compare_models(
                y,
                preds,
                metrics=metrics,
                n_bootstrap=60,
                random_state=3,
                sample_weight=w,
                show_progress=False,
            )
        runs.append(_bits(np.asarray(r.replicates, dtype=np.float64).ravel()))
    assert runs[0] == runs[1]
