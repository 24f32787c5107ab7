"""Business curves against scikit-learn, scipy and the definitional references (with ties)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import integrate, stats
from sklearn import metrics as skm

import ranklens
from ranklens import targeting
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.metrics import available_metrics, get_metric
from ranklens.targeting import (
    DEFAULT_EVENTS,
    best_model_by_depth,
    decile_table,
    gain_curve,
    lift_curve,
    profit_curve,
    roc_curve,
)
from reference_curves import (
    auc_pairs,
    expected_captured,
    group_overlap_table,
    ks_two_sample,
    profit_at_counts,
    roc_points,
    top_events,
)


def _binary(rng, n=300, ties=True, weights=False):
    y = (rng.random(n) < 0.3).astype(float)
    s = rng.normal(size=n) + y
    if ties:
        s = np.round(s, 1)
    w = rng.integers(0, 4, n).astype(float) if weights else None
    return y, s, w


# --- ROC -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", [False, True])
def test_roc_matches_sklearn_with_ties_and_weights(seed, weights):
    rng = np.random.default_rng(seed)
    y, s, w = _binary(rng, weights=weights)
    r = roc_curve(y, s, sample_weight=w)
    fpr, tpr, thr = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(r.fpr, fpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(r.tpr, tpr, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(r.thresholds, thr)
    assert r.auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), rel=1e-13)
    assert ranklens.roc_auc(y, s, sample_weight=w) == r.auc
    assert r.gini == pytest.approx(2 * r.auc - 1)


@pytest.mark.parametrize("seed", range(4))
def test_roc_matches_definition_and_pair_count(seed):
    rng = np.random.default_rng(100 + seed)
    y, s, w = _binary(rng, n=40, weights=True)
    s = np.round(s)  # heavy ties
    r = roc_curve(y, s, sample_weight=w)
    fpr, tpr, thr = roc_points(y, s, w)
    np.testing.assert_allclose(r.fpr, fpr, atol=1e-14)
    np.testing.assert_allclose(r.tpr, tpr, atol=1e-14)
    np.testing.assert_array_equal(r.thresholds, thr)
    assert r.auc == pytest.approx(auc_pairs(y, s, w), rel=1e-12)


def test_ks_statistic_equals_two_sample_ks():
    rng = np.random.default_rng(7)
    y, s, _ = _binary(rng, n=200)
    r = roc_curve(y, s)
    expected = stats.ks_2samp(s[y == 1], s[y == 0]).statistic
    assert r.ks_statistic == pytest.approx(expected, abs=1e-12)
    assert r.ks_statistic == pytest.approx(ks_two_sample(y, s), abs=1e-12)
    assert ranklens.ks_statistic(y, s) == r.ks_statistic


def test_roc_large_n_counts_are_exact_and_agree_with_sklearn():
    rng = np.random.default_rng(3)
    n = 1_000_000
    y = (rng.random(n) < 0.1).astype(np.float64)
    s = np.round(rng.normal(size=n) + y, 2)
    r = roc_curve(y, s)
    assert r.auc == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)
    assert r.n_events == y.sum() and r.n_nonevents == n - y.sum()
    assert r.thresholds.shape[0] == np.unique(s).shape[0] + 1


def test_docstring_example_and_tie_handling():
    r = roc_curve([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
    assert r.fpr.tolist() == [0.0, 0.0, 0.5, 1.0]
    assert r.tpr.tolist() == [0.0, 0.5, 1.0, 1.0]
    assert r.auc == 0.875  # the tied pair (0.8, 0.8) counts one half
    # All scores tied: one segment from (0, 0) to (1, 1).
    flat = roc_curve([1, 0, 1, 0, 0], [2, 2, 2, 2, 2])
    assert flat.fpr.tolist() == [0.0, 1.0] and flat.auc == 0.5


def test_zero_weights_drop_rows():
    y = np.array([1, 0, 1, 0, 1, 0.0])
    s = np.array([5, 4, 3, 2, 1, 0.0])
    w = np.array([1, 0, 2, 1, 0, 1.0])
    r = roc_curve(y, s, sample_weight=w)
    kept = w > 0
    ref = roc_curve(
        np.repeat(y[kept], w[kept].astype(int)), np.repeat(s[kept], w[kept].astype(int))
    )
    np.testing.assert_allclose(r.tpr, ref.tpr)
    np.testing.assert_array_equal(r.thresholds, ref.thresholds)


# --- events --------------------------------------------------------------------------------------


def test_event_definitions_for_continuous_targets():
    rng = np.random.default_rng(11)
    y = np.round(rng.lognormal(size=200), 1)
    p = y * rng.lognormal(0, 0.5, 200)
    r = roc_curve(y, p, events="top:0.1")
    ev = top_events(y, 0.1)
    assert r.n_events == ev.sum() >= 20
    assert r.auc == pytest.approx(skm.roc_auc_score(ev, p), rel=1e-13)
    assert r.event_definition.startswith("top:0.1 (y >= ")
    assert roc_curve(y, p).auc == r.auc  # DEFAULT_EVENTS for a continuous y
    assert DEFAULT_EVENTS == "top:0.1"
    assert roc_curve(y, p, events="top:10%").auc == r.auc
    t = float(np.median(y))
    assert roc_curve(y, p, events=t).auc == pytest.approx(skm.roc_auc_score(y >= t, p))
    assert roc_curve(y, p, events=f">={t}").auc == roc_curve(y, p, events=t).auc
    assert roc_curve(y, p, events=f"> {t}").auc == pytest.approx(skm.roc_auc_score(y > t, p))
    assert roc_curve(y, p, events=f">{t}").event_definition == f"y > {t:g}"


def test_top_fraction_includes_ties_at_the_boundary():
    y = np.array([9, 5, 5, 5, 1, 1, 1, 1, 1, 1.0])
    r = roc_curve(y, np.arange(10.0), events="top:0.2")
    assert r.n_events == 4  # 9 and the three 5s: share 0.4 >= 0.2
    assert "event share 0.4" in r.event_definition
    w = np.array([1, 3, 0, 1, 1, 1, 1, 1, 1, 1.0])
    rw = roc_curve(y, np.arange(10.0), events="top:0.1", sample_weight=w)
    # Total weight 11: 9 alone holds 1/11 < 0.1, so the boundary moves to 5, ties included.
    assert rw.n_events == (w * top_events(y, 0.1, w)).sum() == 1 + 3 + 0 + 1
    assert "event share 0.4545" in rw.event_definition


def test_relevance_events(rng):
    relevance = pytest.importorskip("ranklens.relevance")
    y = rng.normal(size=300)
    p = y + rng.normal(size=300)
    phi = relevance.SigmoidRelevance(high_center=1.0)
    events = phi(y) >= 0.75
    r = roc_curve(y, p, events=(phi, 0.75))
    assert r.auc == pytest.approx(skm.roc_auc_score(events, p))
    assert r.event_definition.startswith("relevance >= 0.75")
    # A bare callable uses its event_threshold attribute, else 0.5.
    assert roc_curve(y, p, events=phi).n_events == (phi(y) >= 0.5).sum()

    def plain(v):
        return np.clip(np.asarray(v) / 3, 0, 1)

    plain.event_threshold = 0.4
    assert roc_curve(y, p, events=plain).n_events == (plain(y) >= 0.4).sum()
    with pytest.raises(ValueError, match=r"relevance must map y_true into \[0, 1\]"):
        roc_curve(y, p, events=lambda v: np.asarray(v) * 10)
    with pytest.raises(ValueError, match="event_threshold must be in"):
        roc_curve(y, p, events=(phi, 1.5))


@pytest.mark.parametrize(
    ("events", "pattern"),
    [
        ("bottom:0.1", "events must be None, 'value', 'top:q'"),
        ("top:1.5", r"must be in \(0, 1\)"),
        ("top:abc", "the threshold must be a finite number"),
        (">=x", "the threshold must be a finite number"),
        (float("nan"), "numeric threshold must be finite"),
        (True, "events must be None"),
        ([1, 2], "events must be None"),
    ],
)
def test_bad_event_definitions(events, pattern):
    with pytest.raises(ValueError, match=pattern):
        roc_curve([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], events=events)


def test_value_events_need_non_negative_y_and_no_roc():
    with pytest.raises(ValueError, match=r"events='value' uses y_true .* non-negative"):
        gain_curve([1.0, -2.0, 3.0], [1, 2, 3], events="value")
    with pytest.raises(ValueError, match="positive total"):
        gain_curve([0.0, 0.0, 0.0], [1, 2, 3], events="value")
    with pytest.raises(ValueError, match="roc_curve needs binary events"):
        roc_curve([1.0, 2.0, 3.0], [1, 2, 3], events="value")


# --- gain and lift -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_gain_curve_is_the_expectation_over_tie_orders(seed):
    rng = np.random.default_rng(200 + seed)
    n = 7
    y = (rng.random(n) < 0.5).astype(float)
    y[0], y[1] = 1.0, 0.0
    s = rng.integers(0, 3, n).astype(float)
    g = gain_curve(y, s)
    expected = expected_captured(y, s) / y.sum()
    np.testing.assert_allclose(g.at(np.arange(n + 1) / n), expected, atol=1e-12)
    # Value curves: the same with y itself as the response.
    yv = rng.integers(0, 5, n).astype(float) + 1
    gv = gain_curve(yv, s, events="value")
    np.testing.assert_allclose(
        gv.at(np.arange(n + 1) / n), expected_captured(yv, s) / yv.sum(), atol=1e-12
    )


@pytest.mark.parametrize("weights", [False, True])
def test_gain_area_identities(weights):
    rng = np.random.default_rng(5)
    y, s, w = _binary(rng, weights=weights)
    g = gain_curve(y, s, sample_weight=w)
    auc = roc_curve(y, s, sample_weight=w).auc
    p = g.total_events / g.total_weight
    assert g.area == pytest.approx(p / 2 + (1 - p) * auc, rel=1e-12)
    assert g.perfect_area == pytest.approx(1 - p / 2)
    assert g.accuracy_ratio == pytest.approx(2 * auc - 1, rel=1e-12)
    assert ranklens.accuracy_ratio(y, s, sample_weight=w) == g.accuracy_ratio
    assert ranklens.gain_area(y, s, sample_weight=w) == g.area
    np.testing.assert_allclose(g.perfect_gain, np.minimum(g.fraction_targeted / p, 1.0))
    assert g.n_targeted[-1] == g.total_weight


def test_value_gain_curve_perfect_baseline():
    rng = np.random.default_rng(8)
    y = np.round(rng.lognormal(size=50), 1)
    p = y + rng.normal(size=50)
    g = gain_curve(y, p, events="value")
    order = np.argsort(-y, kind="stable")
    vx = np.r_[0, np.arange(1, 51)] / 50
    vg = np.r_[0, np.cumsum(y[order])] / y.sum()
    assert g.perfect_area == pytest.approx(np.trapezoid(vg, vx), rel=1e-12)
    np.testing.assert_allclose(g.perfect_gain, np.interp(g.fraction_targeted, vx, vg))
    assert gain_curve(y, y, events="value").accuracy_ratio == pytest.approx(1.0)
    assert g.total_events == pytest.approx(y.sum())
    assert g.event_definition == "value"


@pytest.mark.parametrize("events", [None, "value"])
def test_lift_is_gain_over_depth_and_its_area_is_exact(events):
    rng = np.random.default_rng(9)
    y = np.round(rng.lognormal(size=80), 1) if events == "value" else _binary(rng, n=80)[0]
    s = np.round(y + rng.normal(size=80))
    lift = lift_curve(y, s, events=events)
    gain = gain_curve(y, s, events=events)
    np.testing.assert_allclose(lift.lift, gain.gain[1:] / gain.fraction_targeted[1:])
    depths = np.linspace(0.01, 1, 37)
    np.testing.assert_allclose(lift.at(depths), gain.at(depths) / depths, rtol=1e-12)
    assert lift.at(0.3) == pytest.approx(gain.at(0.3) / 0.3)

    def integrand(x):
        return gain.at(x) / x

    area, _ = integrate.quad(integrand, 0, 1, points=gain.fraction_targeted[1:-1], limit=500)
    assert lift.area == pytest.approx(area, rel=1e-7)


def test_depth_validation():
    g = gain_curve([1, 0, 1, 0], [4, 3, 2, 1])
    assert g.at(0.0) == 0.0
    with pytest.raises(ValueError, match=r"depth must be in \[0, 1\]"):
        g.at(1.5)
    with pytest.raises(ValueError, match=r"depth must be in \(0, 1\]"):
        lift_curve([1, 0, 1, 0], [4, 3, 2, 1]).at(0.0)


# --- decile table --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_bins", [3, 10])
def test_decile_table_matches_group_overlap_reference(seed, n_bins):
    rng = np.random.default_rng(300 + seed)
    y, s, w = _binary(rng, n=37, weights=seed % 2 == 1)
    s = np.round(s)  # ties straddle bin boundaries
    t = decile_table(y, s, n_bins=n_bins, sample_weight=w)
    count, events = group_overlap_table(y, s, w, n_bins)
    np.testing.assert_allclose(t.count, count, atol=1e-12)
    np.testing.assert_allclose(t.events, events, atol=1e-12)
    g = gain_curve(y, s, sample_weight=w)
    np.testing.assert_allclose(t.cumulative_gain, g.at(t.fraction_end), rtol=1e-12)
    np.testing.assert_allclose(t.lift, t.cumulative_gain / t.fraction_end)
    np.testing.assert_allclose(t.bin_lift, t.rate / t.overall_rate)
    r = roc_curve(y, s, sample_weight=w)
    fpr_at = np.interp(t.fraction_end, g.fraction_targeted, r.fpr)
    np.testing.assert_allclose(t.ks, t.cumulative_gain - fpr_at, atol=1e-12)
    assert t.ks_max <= r.ks_statistic + 1e-12
    assert (t.score_max >= t.score_min).all()
    assert (np.diff(t.score_max) <= 0).all()


def test_decile_table_to_frame_and_to_dict():
    y = [1, 0, 1, 1, 0, 0, 0, 1, 0, 0]
    t = decile_table(y, np.arange(10.0)[::-1], n_bins=5)
    frame = t.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert frame.index.name == "bin" and frame.index.tolist() == [1, 2, 3, 4, 5]
    assert {"count", "events", "rate", "cumulative_gain", "lift", "ks"} <= set(frame.columns)
    assert frame["events"].tolist() == [1.0, 2.0, 0.0, 1.0, 0.0]
    assert frame["score_max"].tolist() == [9.0, 7.0, 5.0, 3.0, 1.0]
    json.dumps(t.to_dict())
    with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
        decile_table(y, np.arange(10.0), n_bins=0)


def test_value_decile_table():
    y = np.array([10.0, 0, 5, 0, 5, 0, 0, 0, 0, 0])
    t = decile_table(y, np.arange(10.0)[::-1], n_bins=2, events="value")
    np.testing.assert_allclose(t.events, [20.0, 0.0])
    np.testing.assert_allclose(t.rate, [4.0, 0.0])
    np.testing.assert_allclose(t.ks, t.cumulative_gain - t.fraction_end)
    assert t.event_definition == "value"


# --- profit --------------------------------------------------------------------------------------

MATRIX = [[4, 0], [-5, 0]]


@pytest.mark.parametrize("seed", range(5))
def test_profit_curve_matches_expectation_over_tie_orders(seed):
    rng = np.random.default_rng(400 + seed)
    n = 7
    y = (rng.random(n) < 0.6).astype(float)
    y[0], y[1] = 1.0, 0.0
    s = rng.integers(0, 3, n).astype(float)
    matrix = [[3.0, -1.0], [-2.0, 0.5]]
    r = profit_curve(y, s, cost_benefit=matrix)
    expected = profit_at_counts(y, s, matrix)
    np.testing.assert_allclose(r.at(np.arange(n + 1) / n), expected, atol=1e-12)
    assert r.best_profit == pytest.approx(expected.max())
    for budget in range(0, n + 1):
        rb = profit_curve(y, s, cost_benefit=matrix, budget=budget * 2.0, cost_per_target=2.0)
        assert rb.max_targets == budget
        assert rb.budget_profit == pytest.approx(expected[: budget + 1].max(), abs=1e-12)
        assert rb.budget_n_targeted <= budget


def test_budget_ending_inside_a_tie_is_the_expected_profit():
    # Three rows tied at the top, two of them responders; room for two offers.
    y = [1, 1, 0, 0]
    s = [5, 5, 5, 1]
    r = profit_curve(y, s, cost_benefit=[[10, 0], [-1, 0]], budget=2, cost_per_target=1)
    # Two of the three tied rows at random: expected 4/3 responders -> 10*4/3 - 2/3.
    assert r.budget_profit == pytest.approx(10 * 4 / 3 - 2 / 3)
    assert (r.budget_n_targeted, r.budget_threshold) == (2.0, 5.0)
    assert r.best_n_targeted == 3.0  # the whole tie: 20 - 1 = 19


def test_max_targets_uses_exact_decimal_division():
    y, s = [1, 0, 1, 0], [4, 3, 2, 1]
    assert profit_curve(y, s, cost_benefit=MATRIX, budget=0.3, cost_per_target=0.1).max_targets == 3
    assert (
        profit_curve(y, s, cost_benefit=MATRIX, budget=4000, cost_per_target=5).max_targets == 800
    )


def test_value_profit_curve_formula():
    rng = np.random.default_rng(12)
    y = np.round(rng.lognormal(size=60), 1)
    p = np.round(y + rng.normal(size=60))
    w = rng.integers(1, 3, 60).astype(float)
    r = profit_curve(y, p, value_margin=0.5, cost_per_target=1.0, budget=10, sample_weight=w)
    g = gain_curve(y, p, events="value", sample_weight=w)
    np.testing.assert_allclose(r.profit, 0.5 * g.gain * g.total_events - g.n_targeted)
    total = 0.5 * (y @ w) - w.sum()
    np.testing.assert_allclose(r.random_profit, g.fraction_targeted * total)
    np.testing.assert_allclose(
        r.perfect_profit, 0.5 * g.perfect_gain * g.total_events - g.n_targeted, atol=1e-9
    )
    assert r.max_targets == 10 and r.budget_n_targeted <= 10
    assert r.event_definition == "value"
    # A binary y with a margin is the matrix [[m - c, 0], [-c, 0]].
    yb, sb, _ = _binary(np.random.default_rng(1), n=50)
    a = profit_curve(yb, sb, value_margin=9, cost_per_target=5)
    b = profit_curve(yb, sb, cost_benefit=MATRIX)
    np.testing.assert_allclose(a.profit, b.profit)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({}, "pass exactly one of cost_benefit .* got neither"),
        ({"cost_benefit": MATRIX, "value_margin": 1.0}, "got both"),
        ({"cost_benefit": [[1, 2, 3]]}, "cost_benefit must be a finite 2x2 matrix"),
        ({"cost_benefit": [["a", 0], [0, 0]]}, "cost_benefit must be a 2x2 matrix"),
        ({"cost_benefit": MATRIX, "budget": 100}, "budget needs a positive cost_per_target"),
        ({"cost_benefit": MATRIX, "cost_per_target": 5}, "pass budget too"),
        ({"value_margin": 1.0}, "value_margin needs cost_per_target"),
        ({"value_margin": 1.0, "cost_per_target": 1, "events": "top:0.1"}, "events='value'"),
        ({"value_margin": math.inf, "cost_per_target": 1}, "value_margin must be a finite"),
        ({"cost_benefit": MATRIX, "budget": -1, "cost_per_target": 1}, "budget must be a finite"),
        ({"cost_benefit": MATRIX, "events": "value"}, "needs binary events"),
    ],
)
def test_profit_curve_bad_arguments(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        profit_curve([1, 0, 1, 0], [4, 3, 2, 1], **kwargs)


# --- best model by depth -------------------------------------------------------------------------


def test_best_model_by_depth_values_and_errors():
    rng = np.random.default_rng(13)
    y, s1, _ = _binary(rng, n=200)
    s2 = y + rng.normal(size=200) * 2
    cmp = best_model_by_depth(y, {"a": s1, "b": s2}, curve="gain", depths=[0.1, 0.5, 1.0])
    np.testing.assert_allclose(cmp.values[0], gain_curve(y, s1).at([0.1, 0.5, 1.0]))
    lift = best_model_by_depth(y, pd.DataFrame({"a": s1, "b": s2}).to_dict("series"))
    np.testing.assert_allclose(lift.values[1], lift_curve(y, s2).at(lift.depths))
    assert lift.model_names == ("a", "b") and lift.depths.shape == (100,)
    json.dumps(lift.to_dict())
    with pytest.raises(ValueError, match="curve must be one of"):
        best_model_by_depth(y, {"a": s1}, curve="roc")
    with pytest.raises(ValueError, match="non-empty mapping"):
        best_model_by_depth(y, {})
    with pytest.raises(ValueError, match="non-empty mapping"):
        best_model_by_depth(y, [s1])
    with pytest.raises(ValueError, match="need curve='profit'"):
        best_model_by_depth(y, {"a": s1}, cost_benefit=MATRIX)
    with pytest.raises(ValueError, match="pass exactly one of"):
        best_model_by_depth(y, {"a": s1}, curve="profit")
    with pytest.raises(ValueError, match=r"depths must lie in \(0, 1\]"):
        best_model_by_depth(y, {"a": s1}, depths=[0.0, 0.5])
    with pytest.raises(ValueError, match="strictly increasing"):
        best_model_by_depth(y, {"a": s1}, depths=[0.5, 0.2])
    with pytest.raises(ValueError, match=r"predictions\['b'\] must have the same length"):
        best_model_by_depth(y, {"a": s1, "b": s2[:-1]})


# --- registry ------------------------------------------------------------------------------------

REGISTERED = ("roc_auc", "ks_statistic", "gain_area", "accuracy_ratio", "lift_at_5")


def test_registered_scalars():
    names = set(available_metrics("targeting"))
    assert {*REGISTERED, "lift_at_10", "lift_at_20"} <= names
    rng = np.random.default_rng(14)
    y = rng.lognormal(size=300)
    p = y * rng.lognormal(0, 0.7, 300)
    w = rng.integers(1, 3, 300).astype(float)
    for name in (*REGISTERED, "lift_at_10", "lift_at_20"):
        spec = get_metric(name)
        assert spec.higher_is_better and spec.family == "targeting"
        assert spec.supports_sample_weight
        value = spec(y, p, sample_weight=w)
        assert isinstance(value, float) and math.isfinite(value)
    # Continuous y: the default event definition is the true top 10 %.
    assert get_metric("roc_auc")(y, p) == roc_curve(y, p, events="top:0.1").auc
    assert get_metric("lift_at_10")(y, p) == pytest.approx(lift_curve(y, p).at(0.1))
    assert get_metric("lift_at_20")(y, p, events="value") == pytest.approx(
        lift_curve(y, p, events="value").at(0.2)
    )
    assert get_metric("lift_at_5")(y, y) == pytest.approx(10.0)  # perfect: 1 / 0.1


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize("func", [roc_curve, gain_curve, lift_curve, decile_table])
@pytest.mark.parametrize(
    ("y", "s", "pattern"),
    [
        ([1, 0, np.nan], [1, 2, 3], "y_true contains 1 NaN"),
        ([1, 0, 1], [1, np.inf, 3], "y_score contains 1 infinite"),
        ([1, 0, 1], [1, 2], "y_true and y_score must have the same length; got 3 and 2"),
        ([1], [1], "y_true has 1 observation"),
        (["a", "b"], [1, 2], "y_true must be numeric"),
        ([1, 0], ["x", "y"], "y_score must be numeric"),
    ],
)
def test_bad_input(func, y, s, pattern):
    # strings are data of the wrong kind: TypeError; wrong shape or values: ValueError
    error = TypeError if "numeric" in pattern else ValueError
    with pytest.raises(error, match=pattern):
        func(y, s)


def test_bad_sample_weight():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        gain_curve([1, 0, 1], [1, 2, 3], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="sample_weight has length 2"):
        roc_curve([1, 0, 1], [1, 2, 3], sample_weight=[1, 1])


def test_undefined_without_events_or_non_events():
    with pytest.warns(UndefinedMetricWarning, match="no events"):
        r = roc_curve([0, 0, 0], [1, 2, 3])
    assert math.isnan(r.auc) and np.isnan(r.tpr).all()
    with pytest.warns(UndefinedMetricWarning, match="no non-events"):
        assert math.isnan(ranklens.roc_auc([1, 1, 1], [1, 2, 3]))
    with pytest.warns(UndefinedMetricWarning, match="gain curve is undefined"):
        g = gain_curve([0, 0, 0], [1, 2, 3])
    assert np.isnan(g.gain).all() and math.isnan(g.area) and math.isnan(g.accuracy_ratio)
    with pytest.warns(UndefinedMetricWarning, match="lift curve is undefined"):
        assert math.isnan(lift_curve([0, 0, 0], [1, 2, 3]).area)
    with pytest.warns(UndefinedMetricWarning, match="decile table is undefined"):
        assert np.isnan(decile_table([0, 0, 0], [1, 2, 3]).lift).all()
    with pytest.warns(UndefinedMetricWarning, match="accuracy ratio is undefined"):
        assert math.isnan(gain_curve([1, 1, 1], [1, 2, 3]).accuracy_ratio)
    with pytest.warns(UndefinedMetricWarning, match="KS column is undefined"):
        decile_table([1, 1, 1], [1, 2, 3])
    # A constant continuous y: top:0.1 takes every row (ties included), so no non-events.
    with pytest.warns(UndefinedMetricWarning, match="no non-events"):
        roc_curve([2.5, 2.5, 2.5], [1, 2, 3])


def test_array_likes_and_bool_labels():
    y = [True, False, True, False, False]
    s = [0.9, 0.1, 0.6, 0.6, 0.2]
    base = roc_curve(y, s).auc
    assert roc_curve(pd.Series(y), pd.Series(s)).auc == base
    assert roc_curve(pl.Series(y), pl.Series(s)).auc == base
    assert roc_curve(np.array(y), np.array(s, dtype=np.float32)).auc == base
    assert roc_curve(y, s).event_definition == "binary"


def test_negative_zero_ties_with_zero():
    r = roc_curve([1, 0, 1, 0], [0.0, -0.0, 1.0, -1.0])
    assert r.thresholds.shape[0] == 4  # inf, 1, 0 (both zeros), -1
    assert r.auc == pytest.approx(skm.roc_auc_score([1, 0, 1, 0], [0.0, -0.0, 1.0, -1.0]))


def test_results_are_frozen_and_json_ready():
    rng = np.random.default_rng(15)
    y, s, _ = _binary(rng, n=50)
    for result in (
        roc_curve(y, s),
        gain_curve(y, s),
        lift_curve(y, s),
        decile_table(y, s),
        profit_curve(y, s, cost_benefit=MATRIX, budget=50, cost_per_target=5),
    ):
        json.dumps(result.to_dict())
        assert type(result).__name__ in repr(result)
        with pytest.raises(AttributeError):
            result.event_definition = "x"  # type: ignore[misc]
    assert set(targeting.__all__) <= set(dir(ranklens))


# --- the regression cutoff AUC is the ROC AUC at that cutoff ------------------------------------


@pytest.mark.filterwarnings(
    # roc_curve also gives DeLong's AUC interval, undefined (NaN, warned;
    # tests/inference/test_delong.py) with fewer than two events or non-events: these tests check
    # the curve, not the interval
    "ignore:DeLong's standard error:ranklens.exceptions.UndefinedMetricWarning"
)
@pytest.mark.parametrize("weighted", [False, True])
def test_regression_cutoff_auc_equals_roc_auc_at_each_cutoff(weighted):
    from ranklens.ranking import cutoff_auc_curve

    rng = np.random.default_rng(16)
    n = 60
    y = np.round(rng.normal(size=n) * 2) / 2  # ties in y
    p = np.round(y + rng.normal(size=n), 1)  # ties in the prediction
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    cut = cutoff_auc_curve(y, p, sample_weight=w)
    weights = np.ones(n) if w is None else w
    values = np.unique(y)[::-1][: cut.auc.shape[0]]  # the cut after each distinct value
    np.testing.assert_allclose(cut.n_positive, [weights[y >= v].sum() for v in values])
    for v, auc in zip(values, cut.auc, strict=True):
        r = roc_curve(y, p, events=f">={v}", sample_weight=w)
        assert r.auc == pytest.approx(auc, rel=1e-12, abs=1e-15)
    # events="top:q" lands on a cut (ties included), so it gives one of these AUCs.
    q = float(cut.fraction_positive[2])
    assert roc_curve(y, p, events=f"top:{q}", sample_weight=w).auc == pytest.approx(cut.auc[2])


def test_best_model_by_depth_without_events_warns_and_names_no_winner():
    with pytest.warns(UndefinedMetricWarning, match="gain curve is undefined"):
        r = best_model_by_depth([0, 0, 0, 0], {"a": [1, 2, 3, 4], "b": [4, 3, 2, 1]}, curve="gain")
    assert set(r.winner.tolist()) == {""} and r.segments == () and r.crossing_depths.size == 0
    assert np.isnan(r.values).all()
