"""The standardised partial AUC: ``roc_auc(max_fpr=)`` and the registered ``partial_roc_auc``.

Against scikit-learn's ``roc_auc_score(max_fpr=)`` (ties, integer, fractional and zero weights)
and against the R package pROC 1.18.0 (Robin et al. 2011): every reference number below was
printed by ``tests/data/partial_auc_reference.R`` (R 4.2.2), ``auc(roc(y, s, levels = c(0, 1),
direction = "<"), partial.auc = c(1, 1 - f), partial.auc.focus = "specificity",
partial.auc.correct = TRUE)`` for ``f`` in 0.05, 0.1, 0.2, 0.5. The same script records that pROC
has no DeLong variance for a partial AUC (``var(..., method = "delong")`` and ``roc.test(...,
method = "delong")`` refuse it and point to the bootstrap), so its intervals and paired tests
here come from the paired bootstrap, whose replicates come from the targeting sweep.

Data: ``asah.csv`` is pROC's aSAH (Turck et al. 2010), ``delong_ties.csv`` was drawn for
``test_delong_proc.py`` (which says how), and ``partial_auc_ties.csv`` was drawn once with
``rng = np.random.default_rng(20261201)``: ``n = 400``, ``y = (rng.random(n) < 0.3)``, ``a =
round(y + N(0, 1), 1)``, ``b = clip(round(0.8 y + N(0, 1) + 2), 0, 5)`` (in this order): ties
within and across the classes, ``b`` with six values.

References
----------
McClish, D. K. (1989). Analyzing a portion of the ROC curve. *Medical Decision Making* 9(3),
190-195.

Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze and compare ROC
curves. *BMC Bioinformatics* 12, 77.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import ranklens as rl
import ranklens._compute.xp.measures as xm
import ranklens._inference.device_engine as gpu_engine
from emulated_device import on_device
from ranklens._compute.xp import curves as xpc
from ranklens._foundation.forms import CurveStatistic, ReplicateForm
from ranklens._foundation.registry import Capabilities, ComputationalForm
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.metrics import get_metric
from ranklens.targeting import event_flags

DATA = Path(__file__).resolve().parents[1] / "data"
FPRS = (0.05, 0.1, 0.2, 0.5)

# (file, outcome, score): the standardised partial AUC at FPRS, as partial_auc_reference.R printed
PROC = [
    (
        "asah.csv",
        "outcome",
        "s100b",
        (0.64665415884928079, 0.64609185565539873, 0.66830397470641367, 0.710986901535682),
    ),
    (
        "asah.csv",
        "outcome",
        "wfns",
        (0.58849280800500314, 0.64969333903865345, 0.70355314664257751, 0.78072584779901844),
    ),
    (
        "asah.csv",
        "outcome",
        "ndka",
        (0.51636439441317494, 0.53002424761089717, 0.5513399578440229, 0.5934959349593496),
    ),
    (
        "delong_ties.csv",
        "y",
        "a",
        (0.53758962668537136, 0.56147516397376418, 0.58906672154677475, 0.65729483282674772),
    ),
    (
        "delong_ties.csv",
        "y",
        "b",
        (0.53043410490219001, 0.55367641177411608, 0.5981324932455252, 0.67676671732522797),
    ),
    (
        "partial_auc_ties.csv",
        "y",
        "a",
        (0.5371778942264106, 0.55982901031746402, 0.61362166369357229, 0.68077788539618245),
    ),
    (
        "partial_auc_ties.csv",
        "y",
        "b",
        (0.54558858612746086, 0.56034672241860095, 0.58235794381747452, 0.63974001117971169),
    ),
]


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.mark.parametrize("case", PROC, ids=[f"{c[0]}:{c[2]}" for c in PROC])
def test_equals_proc_corrected_partial_auc(case):
    file, outcome, score, want = case
    data = pd.read_csv(DATA / file)
    for max_fpr, value in zip(FPRS, want, strict=True):
        got = rl.roc_auc(data[outcome], data[score], max_fpr=max_fpr)
        assert got == pytest.approx(value, rel=1e-12)
    assert rl.partial_roc_auc(data[outcome], data[score]) == pytest.approx(want[2], rel=1e-12)


def _drawn(stream: int, n: int):
    rng = np.random.default_rng(stream)
    y = (rng.random(n) < rng.uniform(0.1, 0.6)).astype(float)
    y[:2] = [0.0, 1.0]  # both classes
    p = np.round(rng.normal(size=n) + 1.2 * y, int(rng.integers(0, 2)))  # ties
    return y, p, rng


@pytest.mark.parametrize("stream", range(12))
def test_equals_sklearn_with_ties_and_weights(stream):
    y, p, rng = _drawn(stream, int(10 + 25 * stream))
    n = y.shape[0]
    weights = {
        "none": None,
        "integer": rng.integers(0, 4, n).astype(float),
        "fractional": rng.gamma(0.8, size=n),
    }
    for w in weights.values():
        if w is not None:
            w[:2] = 1.0
        for max_fpr in (0.01, 0.1, 0.2, 1 / 3, 0.5, 0.9, 1.0):
            want = roc_auc_score(y, p, sample_weight=w, max_fpr=max_fpr)
            got = rl.roc_auc(y, p, sample_weight=w, max_fpr=max_fpr)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), (max_fpr, w is None)


def test_integer_weights_are_repeated_rows_and_events_follow_their_definition():
    y, p, rng = _drawn(40, 120)
    w = rng.integers(1, 4, y.shape[0])
    repeated = rl.partial_roc_auc(np.repeat(y, w), np.repeat(p, w))
    assert rl.partial_roc_auc(y, p, sample_weight=w) == pytest.approx(repeated, rel=1e-12)
    # a continuous target: the events of the definition, as scikit-learn on those labels
    target = np.round(rng.lognormal(size=300), 2)
    score = np.round(np.log(target) + rng.normal(size=300), 1)
    for events in (None, "top:0.2", ">=2"):
        labels = event_flags(target, events)
        assert 0 < labels.sum() < labels.shape[0]
        got = rl.partial_roc_auc(target, score, events=events)
        assert got == pytest.approx(roc_auc_score(labels, score, max_fpr=0.2), rel=1e-12)


def test_whole_area_and_the_default_are_the_auc_exactly():
    y, p, _ = _drawn(3, 200)
    auc = rl.roc_auc(y, p)
    assert auc == roc_auc_score(y, p) or auc == pytest.approx(roc_auc_score(y, p), rel=1e-15)
    assert rl.roc_auc(y, p, max_fpr=None) == auc
    assert rl.roc_auc(y, p, max_fpr=1.0) == auc
    assert rl.partial_roc_auc(y, p, max_fpr=1) == auc


def test_random_perfect_and_below_the_diagonal():
    y = np.array([0, 1] * 50, dtype=float)
    assert rl.partial_roc_auc(y, np.zeros(100)) == pytest.approx(0.5, abs=1e-15)
    assert rl.partial_roc_auc(y, y) == 1.0
    # below the diagonal over [0, 0.2]: under 1/2 (pROC gives NA there, with a warning)
    data = pd.read_csv(DATA / "asah.csv")
    got = rl.partial_roc_auc(data["outcome"], -data["ndka"])
    assert got == pytest.approx(roc_auc_score(data["outcome"], -data["ndka"], max_fpr=0.2))
    assert got < 0.5


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, math.nan, math.inf, "0.2", True, [0.2]])
def test_max_fpr_out_of_range_is_refused_by_name(bad):
    y, p, _ = _drawn(1, 50)
    if bad == "0.2":  # a numeric string is a number, as float() reads it
        assert rl.roc_auc(y, p, max_fpr=bad) == rl.roc_auc(y, p, max_fpr=0.2)
        return
    with pytest.raises(ValueError, match="max_fpr"):
        rl.roc_auc(y, p, max_fpr=bad)
    with pytest.raises(ValueError, match="max_fpr"):
        rl.partial_roc_auc(y, p, max_fpr=bad)


def test_no_events_is_undefined_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="no events"):
        assert math.isnan(rl.partial_roc_auc(np.zeros(10), np.arange(10.0)))


# ------------------------------------------------------------------------------------------
# the registered measure: declarations, the bootstrap's sweep, the refusals
# ------------------------------------------------------------------------------------------


def test_registration():
    spec = get_metric("partial_roc_auc")
    assert spec.family == "targeting" and spec.higher_is_better is True
    caps = spec.capabilities
    assert isinstance(caps.batched, ReplicateForm)
    assert caps.batched.statistic.statistic is CurveStatistic.PARTIAL_ROC_AUC
    assert caps.batched.statistic.max_fpr == 0.2
    # the same sweep as the other targeting measures, one pass for all of them
    assert caps.batched.sweep is get_metric("roc_auc").capabilities.batched.sweep
    assert caps.computational_form is ComputationalForm.SORTS_BY_PREDICTION_AND_TRUTH
    # no curve= (the engines in pieces do not compute it yet) and no DeLong variance
    assert caps.curve is None and caps.delong is None
    # another max_fpr is the function with it bound: the per-replicate path
    assert get_metric("partial_roc_auc").bind(max_fpr=0.1).capabilities.batched is None


def _generic(name):
    return dataclasses.replace(get_metric(name), capabilities=Capabilities())


@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_replicates_equal_the_function(kind, weighted):
    rng = np.random.default_rng(11)
    n = 250
    if kind == "binary":
        y = (rng.random(n) < 0.3).astype(float)
        a = np.round(y + rng.normal(size=n), 1)
    else:  # the events are the true top 10 % of each replicate
        y = np.round(rng.lognormal(size=n), 1)
        a = np.round(np.log(y) + rng.normal(size=n), 1)
    preds = {"a": a, "b": rng.integers(0, 4, n).astype(float)}
    kw = dict(n_bootstrap=60, random_state=4, show_progress=False)
    if weighted:
        kw["sample_weight"] = rng.integers(0, 3, n).astype(float)
    fast = _quiet(rl.compare_models, y, preds, metrics=["partial_roc_auc", "roc_auc"], **kw)
    slow = _quiet(rl.compare_models, y, preds, metrics=[_generic("partial_roc_auc")], **kw)
    assert fast.evaluation == ("kernel", "kernel") and slow.evaluation == ("generic",)
    np.testing.assert_allclose(fast.replicates[:, :1], slow.replicates, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fast.difference_sd[:1], slow.difference_sd, rtol=1e-10)
    # the interval and the paired test of the bootstrap: percentile for the difference
    assert fast.difference_interval_methods[0] == "bootstrap-percentile"
    assert np.isfinite(fast.p_value[0]).all()


def test_numpy_form_equals_the_kernel_bit_for_bit():
    from ranklens._compute.kernels import curve_sweeps
    from ranklens.targeting import _sweep_prepare

    rng = np.random.default_rng(8)
    n = 300
    y = np.round(rng.lognormal(size=n), 1)
    preds = np.stack([np.round(y + rng.normal(size=n), 1), rng.integers(0, 5, n) * 1.0])
    state = _sweep_prepare(y, preds, {})
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=17) * rng.gamma(1.0, size=n)
    weights[0] = 0.0  # no row: NaN
    codes = np.array([curve_sweeps.TARGET_PARTIAL_ROC_AUC] * 3 + [0], dtype=np.int64)
    args = (
        weights,
        state.y_order,
        state.y_group_sorted,
        state.nonbinary,
        state.top,
        state.orders,
        state.y_by_pred,
        state.group_by_pred,
        state.new_group,
        codes,
        np.array([0.2, 0.05, 1.0, np.nan]),
    )
    serial = curve_sweeps.targeting_replicates_serial(*args)
    np.testing.assert_array_equal(xpc.targeting_replicates_numpy(*args), serial)
    np.testing.assert_array_equal(curve_sweeps.targeting_replicates_parallel(*args, 4), serial)
    assert np.isnan(serial[0]).all()
    # at max_fpr 1 the standardised area is the AUC, to rounding
    np.testing.assert_allclose(serial[1:, 2], serial[1:, 3], rtol=1e-13)


def test_delong_refuses_it_by_name():
    y, p, _ = _drawn(2, 100)
    with pytest.raises(ValueError, match=r"partial_roc_auc.*bootstrap"):
        rl.compare_models(y, {"a": p, "b": -p}, metrics=["partial_roc_auc"], method="delong")


def test_the_dask_engine_says_it_does_not_compute_it():
    pytest.importorskip("dask")
    from ranklens.dask._engine import plan

    why = plan(["partial_roc_auc", "roc_auc"]).unsupported
    assert set(why) == {"partial_roc_auc"}
    assert "not computed by the Dask engine" in why["partial_roc_auc"]


# ------------------------------------------------------------------------------------------
# on a device (the device namespace set to NumPy)
# ------------------------------------------------------------------------------------------


@pytest.fixture
def numpy_device(monkeypatch):
    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: np)
    monkeypatch.setattr(gpu_engine, "device_namespace", lambda: np)


@pytest.mark.parametrize("weights", [None, "integer", "fractional"])
def test_device_inputs_give_the_cpu_value(numpy_device, weights):
    y, p, rng = _drawn(5, 300)
    w = {
        None: None,
        "integer": rng.integers(0, 4, y.shape[0]).astype(float),
        "fractional": rng.uniform(0.1, 2.0, y.shape[0]),
    }[weights]
    for max_fpr in (0.05, 0.2, 0.5):
        cpu = rl.roc_auc(y, p, sample_weight=w, max_fpr=max_fpr)
        dev = rl.roc_auc(on_device(y), on_device(p), sample_weight=on_device(w), max_fpr=max_fpr)
        assert dev == pytest.approx(cpu, rel=1e-12)
    assert rl.partial_roc_auc(on_device(y), on_device(p)) == pytest.approx(
        rl.partial_roc_auc(y, p), rel=1e-12
    )
    with pytest.warns(UndefinedMetricWarning, match="no events"):
        assert math.isnan(
            rl.roc_auc(on_device(np.zeros(5)), on_device(np.arange(5.0)), max_fpr=0.2)
        )
    with pytest.raises(ValueError, match="max_fpr"):
        rl.roc_auc(on_device(y), on_device(p), max_fpr=2.0)


def test_device_bootstrap_equals_cpu(numpy_device):
    rng = np.random.default_rng(31)
    n = 300
    y = np.round(rng.normal(size=n), 1)
    preds = {"a": np.round(y + rng.normal(size=n), 0), "b": np.round(rng.normal(size=n), 0)}
    kw = dict(metrics=["partial_roc_auc", "roc_auc"], n_bootstrap=40, random_state=5)
    cpu = _quiet(rl.compare_models, y, preds, **kw)
    dev = _quiet(rl.compare_models, y, preds, device="gpu", **kw)
    assert set(dev.evaluation) == {"gpu"}
    np.testing.assert_allclose(dev.values, cpu.values, rtol=1e-12)
    np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-14)
