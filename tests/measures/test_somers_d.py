"""Somers' D(pred | y): definition, scipy, weights, and the fast paths it declares."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as ss

import ranklens
import reference_ranking as ref
from ranklens import (
    UndefinedMetricWarning,
    breakdown_curve,
    compare_models,
    get_metric,
    most_influential,
    proposition2_bound,
)
from ranklens.ranking import kendall_tau, ranking_summary, somers_d, tau_normalized


def _tied(seed, n, levels=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, levels, n).astype(float)
    p = y + rng.integers(-2, 3, n)
    return y, p.astype(float)


CASES = [_tied(seed, n) for seed, n in zip(range(8), (5, 9, 17, 40, 101, 250, 13, 64))]


@pytest.mark.parametrize(("y", "p"), CASES)
def test_equals_scipy_somersd_of_y_true_then_y_pred(y, p):
    """scipy's somersd(x, y) is D(Y|X): the pairs tied in x, here y_true, are left out."""
    assert somers_d(y, p) == pytest.approx(ss.somersd(y, p).statistic, abs=1e-12)


@pytest.mark.parametrize(("y", "p"), CASES)
def test_is_2c_minus_1_and_exact(y, p):
    assert somers_d(y, p) == pytest.approx(2 * tau_normalized(y, p) - 1, abs=1e-12)
    assert somers_d(y, p) == pytest.approx(2 * ref.harrell_c(y, p) - 1, abs=1e-12)
    s = ranking_summary(y, p)
    c = s.exact_counts
    distinct_y = c["concordant_pairs"] + c["discordant_pairs"] + c["tied_pred_only_pairs"]
    exact = Fraction(c["concordant_pairs"] - c["discordant_pairs"], distinct_y)
    assert somers_d(y, p) == float(exact)  # correctly rounded: no 2C - 1 cancellation


def test_asymmetric_and_equal_to_tau_without_ties():
    y, p = CASES[5]
    assert somers_d(y, p) != pytest.approx(somers_d(p, y), abs=1e-6)
    assert somers_d(p, y) == pytest.approx(ss.somersd(p, y).statistic, abs=1e-12)
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=80), rng.normal(size=80)
    assert somers_d(a, b) == pytest.approx(kendall_tau(a, b), abs=1e-12)


def test_binary_truth_gives_the_gini_coefficient():
    rng = np.random.default_rng(5)
    y = (rng.random(200) < 0.3).astype(float)
    p = np.round(y + rng.normal(size=200), 1)
    assert somers_d(y, p) == pytest.approx(2 * ranklens.roc_auc(y, p) - 1, abs=1e-12)


def test_integer_weights_equal_repeated_rows_and_scale_does_not_matter():
    y, p = CASES[4]
    w = np.random.default_rng(1).integers(0, 4, y.shape[0])
    repeated = somers_d(np.repeat(y, w), np.repeat(p, w))
    assert somers_d(y, p, sample_weight=w) == pytest.approx(repeated, abs=1e-12)
    assert somers_d(y, p, sample_weight=w * 1e150) == pytest.approx(repeated, abs=1e-12)
    # scipy on the contingency table of the repeated rows
    assert repeated == pytest.approx(
        ss.somersd(np.repeat(y, w), np.repeat(p, w)).statistic, abs=1e-12
    )


def test_constant_truth_is_undefined_constant_prediction_is_zero():
    with pytest.warns(UndefinedMetricWarning, match="Somers' D is undefined"):
        assert np.isnan(somers_d([2.0, 2.0, 2.0], [1.0, 2.0, 3.0]))
    assert somers_d([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]) == 0.0


def test_registered_higher_is_better_in_the_ranking_family():
    spec = get_metric("somers_d")
    assert spec.func is somers_d is ranklens.somers_d
    assert spec.higher_is_better and spec.family == "ranking"


# --- the fast paths it declares ------------------------------------------------------------------


def test_bootstrap_takes_the_rank_kernel_and_matches_scipy_on_materialised_resamples():
    y, p = CASES[5]
    res = compare_models(y, {"m": p}, metrics=["somers_d"], n_bootstrap=20, random_state=3)
    assert res.evaluation == ("kernel",)
    rng = np.random.default_rng(0)
    # the engine's replicates are weighted sweeps; one resample by hand, as weights and as rows
    counts = np.bincount(rng.integers(0, y.shape[0], y.shape[0]), minlength=y.shape[0])
    rows = np.repeat(np.arange(y.shape[0]), counts)
    assert somers_d(y, p, sample_weight=counts) == pytest.approx(
        ss.somersd(y[rows], p[rows]).statistic, abs=1e-12
    )


def test_leave_one_out_is_exact():
    """The exact update equals recomputation (its speed: benchmarks/bench_robustness.py)."""
    y, p = CASES[3]
    r = most_influential(y, p, "somers_d")
    assert r.method == "exact update"
    brute = [somers_d(np.delete(y, i), np.delete(p, i)) for i in range(y.shape[0])]
    np.testing.assert_allclose(r.leave_one_out, brute, atol=1e-12)


def test_breakdown_bound_is_twice_harrell_c_and_attained_from_a_perfect_ranking():
    n = 50
    assert proposition2_bound("somers_d", n, 1) == pytest.approx(4 / n)
    ks = np.arange(1, n + 1)
    np.testing.assert_allclose(
        proposition2_bound("somers_d", n, ks), 2 * proposition2_bound("tau_normalized", n, ks)
    )
    y = np.arange(n, dtype=float)
    curve = breakdown_curve(y, y.copy(), "somers_d", fractions=[1 / n, 3 / n], random_state=0)
    assert curve.bound == "proposition 2"
    change = np.abs(curve.adversarial - curve.clean)
    assert change[0] == pytest.approx(4 / n)
    np.testing.assert_allclose(change, curve.max_change, rtol=1e-12)
