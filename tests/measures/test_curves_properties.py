"""Properties of the business curves (hypothesis): weights as repeated rows, invariances, bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn import metrics as skm

from ranklens.targeting import (
    decile_table,
    gain_curve,
    lift_curve,
    profit_curve,
    roc_curve,
)
from reference_curves import auc_pairs, expected_captured


@st.composite
def labelled(draw, min_n=2, max_n=30, weights=False):
    """Binary labels with both classes, scores with many ties, optional integer weights."""
    n = draw(st.integers(min_n, max_n))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=float)
    s = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=float)
    w = None
    if weights:
        w = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
        assume(w[y == 1].sum() > 0 and w[y == 0].sum() > 0)
    else:
        assume(0 < y.sum() < n)
    return y, s, w


def _repeat(y, s, w):
    k = w.astype(int)
    return np.repeat(y, k), np.repeat(s, k)


@pytest.mark.filterwarnings(
    # roc_curve also gives DeLong's AUC interval, undefined (NaN, warned;
    # tests/inference/test_delong.py) with fewer than two events or non-events: these tests check
    # the curve, not the interval
    "ignore:DeLong's standard error:ranklens.exceptions.UndefinedMetricWarning"
)
@given(labelled(weights=True))
def test_integer_weights_equal_repeated_rows(data):
    y, s, w = data
    yr, sr = _repeat(y, s, w)
    assume(yr.shape[0] >= 2)
    a, b = roc_curve(y, s, sample_weight=w), roc_curve(yr, sr)
    np.testing.assert_allclose(a.fpr, b.fpr, atol=1e-12)
    np.testing.assert_allclose(a.tpr, b.tpr, atol=1e-12)
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    assert a.auc == pytest.approx(b.auc, abs=1e-12)
    ga, gb = gain_curve(y, s, sample_weight=w), gain_curve(yr, sr)
    np.testing.assert_allclose(ga.gain, gb.gain, atol=1e-12)
    assert ga.accuracy_ratio == pytest.approx(gb.accuracy_ratio, abs=1e-12)
    ta, tb = decile_table(y, s, sample_weight=w), decile_table(yr, sr)
    np.testing.assert_allclose(ta.events, tb.events, atol=1e-9)
    np.testing.assert_allclose(ta.ks, tb.ks, atol=1e-9)
    pa = profit_curve(
        y, s, cost_benefit=[[4, 0], [-5, 0]], budget=7, cost_per_target=1, sample_weight=w
    )
    pb = profit_curve(yr, sr, cost_benefit=[[4, 0], [-5, 0]], budget=7, cost_per_target=1)
    np.testing.assert_allclose(pa.profit, pb.profit, atol=1e-9)
    assert pa.budget_profit == pytest.approx(pb.budget_profit, abs=1e-9)
    la, lb = lift_curve(y, s, sample_weight=w), lift_curve(yr, sr)
    assert la.area == pytest.approx(lb.area, rel=1e-9)


@pytest.mark.filterwarnings(
    # roc_curve also gives DeLong's AUC interval, undefined (NaN, warned;
    # tests/inference/test_delong.py) with fewer than two events or non-events: these tests check
    # the curve, not the interval
    "ignore:DeLong's standard error:ranklens.exceptions.UndefinedMetricWarning"
)
@given(labelled(weights=True))
def test_roc_agrees_with_sklearn_and_pairs(data):
    y, s, w = data
    r = roc_curve(y, s, sample_weight=w)
    assert r.auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    assert r.auc == pytest.approx(auc_pairs(y, s, w), abs=1e-12)
    assert 0.0 <= r.auc <= 1.0 and 0.0 <= r.ks_statistic <= 1.0
    assert (np.diff(r.fpr) >= 0).all() and (np.diff(r.tpr) >= 0).all()


@pytest.mark.filterwarnings(
    # roc_curve also gives DeLong's AUC interval, undefined (NaN, warned;
    # tests/inference/test_delong.py) with fewer than two events or non-events: these tests check
    # the curve, not the interval
    "ignore:DeLong's standard error:ranklens.exceptions.UndefinedMetricWarning"
)
@given(labelled(), st.sampled_from(["exp", "cube", "affine"]))
def test_strictly_increasing_transform_of_the_score_changes_nothing(data, kind):
    y, s, _ = data
    f = {"exp": np.exp, "cube": lambda v: v**3 + v, "affine": lambda v: 2.5 * v - 7}[kind]
    a, b = gain_curve(y, s), gain_curve(y, f(s))
    np.testing.assert_allclose(a.gain, b.gain)
    np.testing.assert_allclose(a.fraction_targeted, b.fraction_targeted)
    assert roc_curve(y, s).auc == roc_curve(y, f(s)).auc


@pytest.mark.filterwarnings(
    # roc_curve also gives DeLong's AUC interval, undefined (NaN, warned;
    # tests/inference/test_delong.py) with fewer than two events or non-events: these tests check
    # the curve, not the interval
    "ignore:DeLong's standard error:ranklens.exceptions.UndefinedMetricWarning"
)
@given(labelled(weights=True))
def test_gain_identities_and_bounds(data):
    y, s, w = data
    g = gain_curve(y, s, sample_weight=w)
    auc = roc_curve(y, s, sample_weight=w).auc
    assert g.accuracy_ratio == pytest.approx(2 * auc - 1, abs=1e-12)
    assert (g.gain <= g.perfect_gain + 1e-12).all()
    assert g.gain[0] == 0.0 and g.gain[-1] == pytest.approx(1.0)
    assert (np.diff(g.gain) >= -1e-15).all()
    t = decile_table(y, s, n_bins=4, sample_weight=w)
    np.testing.assert_allclose(t.cumulative_gain, g.at(t.fraction_end), atol=1e-12)
    np.testing.assert_allclose(t.count.sum(), g.total_weight)
    # Reversing the score mirrors the ROC: AUC -> 1 - AUC.
    assert roc_curve(y, -s, sample_weight=w).auc == pytest.approx(1 - auc, abs=1e-12)


@given(labelled(max_n=7))
def test_curves_are_the_expectation_under_random_tie_breaking(data):
    y, s, _ = data
    n = y.shape[0]
    expected = expected_captured(y, s)
    k = np.arange(n + 1) / n
    np.testing.assert_allclose(gain_curve(y, s).at(k), expected / y.sum(), atol=1e-12)
    lift = lift_curve(y, s)
    np.testing.assert_allclose(lift.at(k[1:]), expected[1:] / y.sum() / k[1:], atol=1e-12)
    profit = profit_curve(y, s, cost_benefit=[[2, 0], [-1, 0]])
    np.testing.assert_allclose(profit.at(k), 2 * expected - (n * k - expected), atol=1e-12)
