"""Bootstrap replicates from weighted sweeps over fixed orders (ReplicateForm capabilities).

A replicate of a measure declaring a :class:`ranklens._foundation.forms.ReplicateForm` is computed
by its family's sweep, never by calling the function; every replicate must equal the function called
on the same data with the replicate's multiplicities (times the case weights) as
``sample_weight``: the brute-force twin. Data with ties in the predictions and in y_true,
integer and fractional weights, and replicates that lose every event (undefined: NaN, reported by
the engine's undefined-replicate warning).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from ranklens import compare_models
from ranklens._foundation.forms import ReplicateForm
from ranklens._foundation.registry import Capabilities
from ranklens._inference.evaluators import _ReplicateSweepEvaluator, build_evaluators
from ranklens.exceptions import FewEventsWarning, RanklensWarning, UndefinedMetricWarning
from ranklens.metrics import available_metrics, get_metric

SWEPT = [
    n for n in available_metrics() if isinstance(get_metric(n).capabilities.batched, ReplicateForm)
]
TARGETING = [n for n in SWEPT if get_metric(n).family == "targeting"]
EXTREMES = [n for n in SWEPT if get_metric(n).family == "extremes"]


def _twin(name, y, pred, weights, **params):
    """The function itself on the replicate's weights; NaN where it raises (as the engine)."""
    func = get_metric(name).func
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(func(y, pred, sample_weight=weights, **params))
        except (ValueError, ZeroDivisionError, FloatingPointError):
            return np.nan


def _datasets():
    rng = np.random.default_rng(20)
    n = 80
    out = []
    # a continuous y with ties (default events: the top 10 %), predictions with ties
    y = np.round(rng.lognormal(size=n), 1)
    out.append((y, np.stack([np.round(y + rng.normal(size=n), 0), rng.integers(0, 4, n) * 1.0])))
    # binary y with few events: some replicates have none
    y = np.zeros(n)
    y[:3] = 1.0
    out.append(
        (y, np.stack([np.round(rng.normal(size=n) + 2 * y, 1), rng.integers(0, 3, n) * 1.0]))
    )
    # y in {0, 1, 2} with one 2: replicates without it take y itself as the events
    y = rng.integers(0, 2, n).astype(float)
    y[5] = 2.0
    out.append((y, np.stack([y + rng.integers(0, 2, n), rng.normal(size=n)])))
    return out


@pytest.mark.parametrize("weights", ["none", "integer", "fractional"])
@pytest.mark.parametrize("case", range(3))
def test_every_replicate_equals_the_function_on_its_weights(case, weights):
    y, preds = _datasets()[case]
    n = y.shape[0]
    rng = np.random.default_rng(case)
    sw = {
        "none": None,
        "integer": rng.integers(0, 3, n).astype(float),
        "fractional": rng.gamma(0.8, size=n),
    }[weights]
    specs = [get_metric(name) for name in SWEPT]
    values = np.array([[_twin(s.name, y, p, sw) for p in preds] for s in specs])
    evaluators = build_evaluators(specs, y, preds, sw, values)
    sweeps = [e for e in evaluators if isinstance(e, _ReplicateSweepEvaluator)]
    covered = sorted(k for e in sweeps for k in e.positions)
    # at their defaults every sweep serves its measures
    assert {specs[k].name for k in covered} == set(SWEPT)
    assert {"roc_auc", "median_absolute_error", "ndcg_score"} <= set(SWEPT)
    mult = rng.multinomial(n, np.full(n, 1.0 / n), size=60).astype(np.int32)
    for evaluator in sweeps:
        got = evaluator.evaluate(mult)
        for j, k in enumerate(evaluator.positions):
            for m, pred in enumerate(preds):
                for r in range(mult.shape[0]):
                    w = mult[r] * (1.0 if sw is None else sw)
                    want = _twin(specs[k].name, y, pred, w)
                    assert got[r, j, m] == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), (
                        specs[k].name,
                        m,
                        r,
                    )


def test_undefined_replicates_are_nan_and_reported():
    y, preds = _datasets()[1]
    # 3 events: the intervals are withheld (and said so) while the replicates are reported
    with (
        pytest.warns(UndefinedMetricWarning, match="undefined in"),
        pytest.warns(FewEventsWarning, match="3 row\\(s\\) in its smaller class"),
    ):
        res = compare_models(
            y,
            {"a": preds[0], "b": preds[1]},
            metrics=["roc_auc", "lift_at_10"],
            n_bootstrap=60,
            random_state=1,
            show_progress=False,
            interval="percentile",
        )
    assert res.evaluation == ("kernel", "kernel")
    assert (res.n_undefined > 0).all()
    assert np.isnan(res.replicates).any()


def _generic(name):
    """The measure without capabilities: the engine's per-replicate path."""
    spec = get_metric(name)
    return dataclasses.replace(spec, capabilities=Capabilities())


@pytest.mark.parametrize("weighted", [False, True])
def test_compare_models_numbers_are_those_of_the_per_replicate_path(weighted):
    rng = np.random.default_rng(3)
    n = 300
    y = rng.lognormal(size=n)
    preds = {"a": np.round(np.log(y) + rng.normal(size=n), 1), "b": rng.normal(size=n)}
    kw = dict(n_bootstrap=80, random_state=7, show_progress=False)
    if weighted:
        kw["sample_weight"] = rng.integers(0, 3, n).astype(float)
    names = ["roc_auc", "gain_area", "lift_at_10", "ks_statistic", "accuracy_ratio"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        fast = compare_models(y, preds, metrics=names, **kw)
        slow = compare_models(y, preds, metrics=[_generic(k) for k in names], **kw)
    assert set(fast.evaluation) == {"kernel"} and set(slow.evaluation) == {"generic"}
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-12, atol=1e-12)
    for field in ("values", "std_error", "ci_lower", "ci_upper", "difference_sd", "p_value"):
        np.testing.assert_allclose(getattr(fast, field), getattr(slow, field), rtol=1e-10)


@pytest.mark.parametrize("events", ["top:0.2", "top:25%", ">=1.5", ">1", 2.0, "value"])
def test_targeting_replicates_with_given_events_equal_the_function(events):
    """A bound event definition keeps the sweep: a top fraction refitted per replicate (no
    binary shortcut), a threshold fixed once; value curves are left to the functions."""
    rng = np.random.default_rng(9)
    n = 90
    y = np.round(rng.lognormal(size=n), 1)
    preds = np.stack([np.round(y + rng.normal(size=n), 0), rng.integers(0, 4, n) * 1.0])
    sw = rng.integers(0, 3, n).astype(float)
    specs = [get_metric(name).bind(events=events) for name in TARGETING]
    assert all(isinstance(s.capabilities.batched, ReplicateForm) for s in specs)
    values = np.array([[_twin(s.name, y, p, sw, events=events) for p in preds] for s in specs])
    evaluators = build_evaluators(specs, y, preds, sw, values)
    sweeps = [e for e in evaluators if isinstance(e, _ReplicateSweepEvaluator)]
    if events == "value":  # no ROC for value curves: the functions' own path
        assert sweeps == []
        return
    (evaluator,) = sweeps
    assert len(evaluator.positions) == len(specs)
    mult = rng.multinomial(n, np.full(n, 1.0 / n), size=40).astype(np.int32)
    got = evaluator.evaluate(mult)
    for j, k in enumerate(evaluator.positions):
        for m, pred in enumerate(preds):
            for r in range(mult.shape[0]):
                want = _twin(specs[k].name, y, pred, mult[r] * sw, events=events)
                assert got[r, j, m] == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("given", [True, False])
@pytest.mark.parametrize("weights", ["none", "integer", "fractional"])
def test_extremes_replicates_equal_the_function(weights, given):
    """With the relevance given (as ``ranklens evaluate`` gives it) or refitted per replicate
    (the functions' default: the replicate's box plot), and the default accuracy refitted."""
    from ranklens.relevance import relevance_from_boxplot

    rng = np.random.default_rng(4)
    n = 70
    y = np.round(rng.lognormal(2.0, 1.0, n), 1)  # ties in y_true
    y[:2] = [60.0, 80.0]  # high outliers in most replicates, not in all
    preds = np.stack([np.round(y * rng.lognormal(0.0, 0.4, n), 0), rng.lognormal(2.0, 1.0, n)])
    params = {"relevance": relevance_from_boxplot(y)} if given else {}
    sw = {
        "none": None,
        "integer": rng.integers(0, 3, n).astype(float),
        "fractional": rng.gamma(0.8, size=n) * 2,
    }[weights]
    specs = [get_metric(name).bind(**params) if given else get_metric(name) for name in EXTREMES]
    assert all(isinstance(s.capabilities.batched, ReplicateForm) for s in specs)
    values = np.array([[_twin(s.name, y, p, sw, **params) for p in preds] for s in specs])
    (evaluator,) = build_evaluators(specs, y, preds, sw, values)
    assert isinstance(evaluator, _ReplicateSweepEvaluator)
    mult = rng.multinomial(n, np.full(n, 1.0 / n), size=60).astype(np.int32)
    mult[:3] = 0
    mult[:3, :2] = 1  # two rows: no box plot (and so no default accuracy or relevance)
    mult[3] = 0
    mult[3, 5:9] = 2  # four rows, some tied: a degenerate box plot or no outliers
    got = evaluator.evaluate(mult)
    n_nan = 0
    for j, k in enumerate(evaluator.positions):
        for m, pred in enumerate(preds):
            for r in range(mult.shape[0]):
                w = mult[r] * (1.0 if sw is None else sw)
                want = _twin(specs[k].name, y, pred, w, **params)
                n_nan += np.isnan(want)
                # the functions' own sums on the same weights: bit for bit
                assert got[r, j, m] == want or (np.isnan(want) and np.isnan(got[r, j, m])), (
                    specs[k].name,
                    m,
                    r,
                    got[r, j, m],
                    want,
                )
    assert n_nan > 0  # undefined replicates were compared too


def test_the_parallel_driver_gives_the_serial_numbers_for_any_split():
    from ranklens._compute.kernels import curve_sweeps
    from ranklens.targeting import _sweep_prepare

    rng = np.random.default_rng(8)
    n = 400
    y = np.round(rng.lognormal(size=n), 1)
    preds = np.stack([np.round(y + rng.normal(size=n), 1), rng.integers(0, 5, n) * 1.0])
    state = _sweep_prepare(y, preds, {})
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=13) * rng.gamma(1.0, size=n)
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
        np.arange(5, dtype=np.int64),
        np.array([np.nan, np.nan, np.nan, np.nan, 0.1]),
    )
    serial = curve_sweeps.targeting_replicates_serial(*args)
    for chunks in (1, 3, 13, 40):
        parallel = curve_sweeps.targeting_replicates_parallel(*args, chunks)
        np.testing.assert_array_equal(parallel, serial)


def test_binding_the_task_relevance_keeps_the_sweep_and_other_parameters_drop_it():
    from ranklens.evaluation import _with_context
    from ranklens.relevance import relevance_from_boxplot

    relevance = relevance_from_boxplot(np.arange(1.0, 40.0) ** 2, extremes="high")
    bound = _with_context(get_metric("utility_f1"), {"relevance": relevance})
    form = bound.capabilities.batched
    assert isinstance(form, ReplicateForm) and form.bound == (("relevance", relevance),)
    assert bound.func.keywords == {"relevance": relevance}
    other = get_metric("utility_f1").bind(relevance=relevance, accuracy=lambda y, p: y * 0 + 1)
    assert other.capabilities.batched is None
    # a measure whose form takes no parameter keeps nothing once one is bound
    assert get_metric("ndcg_score").bind(k=3).capabilities.batched is None


@pytest.mark.parametrize("curve", ["gain", "lift"])
@pytest.mark.parametrize("case", range(3))
def test_gain_and_lift_bands_from_the_sweep_equal_the_curve_function(curve, case):
    """curve_bands reads the gain and lift of each replicate off the targeting sweep; the same
    bands as calling the curve function per replicate (ties, weights, rare events)."""
    from ranklens._foundation import curve_registry as _curve_registry
    from ranklens.bands import curve_bands

    rng = np.random.default_rng(30 + case)
    n = 200
    if case == 1:
        y = np.zeros(n)
        y[:4] = 1.0  # replicates without events: NaN curves
    else:
        y = np.round(rng.lognormal(size=n), 1)
    preds = {"a": np.round(y + rng.normal(size=n), 1), "b": rng.integers(0, 4, n) * 1.0}
    sw = None if case == 0 else rng.integers(1, 3, n).astype(float)
    spec = _curve_registry.get_curve(curve)
    assert spec.sweep is not None
    kw = dict(curve=curve, n_bootstrap=60, random_state=2, sample_weight=sw, show_progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        fast = curve_bands(y, preds, **kw)
        _curve_registry._CURVES[curve] = dataclasses.replace(spec, sweep=None)
        try:
            slow = curve_bands(y, preds, **kw)
        finally:
            _curve_registry._CURVES[curve] = spec
    np.testing.assert_array_equal(fast.replicates, slow.replicates)
    for field in ("estimate", "lower", "upper", "simultaneous_lower", "simultaneous_upper"):
        np.testing.assert_array_equal(getattr(fast, field), getattr(slow, field))
    np.testing.assert_array_equal(fast.n_undefined, slow.n_undefined)
    if case == 1:
        assert np.isnan(fast.replicates).any()
