"""Figures 1-3 of Rosset, Perlich & Zadrozny (2005) and the partial measures of their 2007 Sect. 5.

References: brute-force loops (tests/reference_ranking.py), scikit-learn's roc_auc_score, exact
enumeration of the permutation null, and the worked example / identities (the published text's
errata corrected).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import reference_ranking as ref
from ranklens import UndefinedMetricWarning
from ranklens.ranking import (
    concordance_profile,
    cutoff_auc_curve,
    partial_kendall_tau,
    partial_spearman_rho,
    rank_lift_curve,
    ranking_summary,
)


def _case(seed, n=12, ties=True):
    rng = np.random.default_rng(seed)
    if ties:
        y = rng.integers(0, 5, n).astype(float)
        p = rng.integers(0, 5, n).astype(float)
        y[:2] = [0.0, 4.0]  # at least two distinct values
    else:
        y, p = rng.normal(size=n), rng.normal(size=n)
    return y, p, rng.random(n) + 0.2


def _midrank_slope(y, p, w=None):
    """cov(a, b) / var(b) for (weighted) midranks a of the prediction and b of the truth."""
    w = np.ones(len(y)) if w is None else w
    a, b = ref.midranks(p, w), ref.midranks(y, w)
    a, b = a - np.average(a, weights=w), b - np.average(b, weights=w)
    return np.sum(w * a * b) / np.sum(w * b * b)


# ------------------------------------------------------------------------------------------
# Figure 1
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
def test_concordance_profile_matches_brute_force(seed, weighted):
    y, p, w = _case(seed, ties=seed % 2 == 0)
    w = w if weighted else None
    r = concordance_profile(y, p, sample_weight=w)
    rows = r.row_index
    np.testing.assert_allclose(r.fraction_correct, ref.concordance_fractions(y, p, w)[rows])
    np.testing.assert_allclose(r.envelope, ref.envelope_fractions(y, p, w)[rows])
    assert np.all(r.envelope >= r.fraction_correct - 1e-12)
    # decreasing prediction, ties by row index
    assert np.all(np.diff(p[rows]) <= 0)
    tie = np.diff(p[rows]) == 0
    assert np.all(np.diff(rows)[tie] > 0)
    if not weighted:
        assert r.area == pytest.approx(ranking_summary(y, p).tau_normalized, abs=1e-12)


def test_concordance_profile_area_is_tau_normalized_without_ties():
    """Figure 1: the area under the curve is tau~ (mean C_i/(n-1) = tau~)."""
    y, p, _ = _case(3, n=200, ties=False)
    r = concordance_profile(y, p)
    s = ranking_summary(y, p)
    assert r.area == pytest.approx((1 + s.kendall_tau) / 2, abs=1e-12)
    assert np.mean(r.fraction_correct) == pytest.approx(r.area, abs=1e-12)


def test_envelope_of_a_perfect_ranking_is_one():
    y = np.arange(50.0)
    r = concordance_profile(y, y**3)
    np.testing.assert_array_equal(r.fraction_correct, 1.0)
    np.testing.assert_array_equal(r.envelope, 1.0)
    np.testing.assert_array_equal(r.row_index, np.arange(50)[::-1])


def test_envelope_single_outlier():
    """Moving one misplaced prediction back repairs all of its pairs: envelope 1, C_i low."""
    y = np.arange(10.0)
    p = y.copy()
    p[0] = 100.0  # the smallest truth predicted highest
    r = concordance_profile(y, p)
    first = np.flatnonzero(r.row_index == 0)[0]
    assert r.fraction_correct[first] == 0.0
    assert r.envelope[first] == 1.0


def test_concordance_profile_undefined():
    with pytest.warns(UndefinedMetricWarning, match="y_true is constant"):
        r = concordance_profile([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert math.isnan(r.area) and np.all(np.isnan(r.fraction_correct))


# ------------------------------------------------------------------------------------------
# Figure 2
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
def test_cutoff_auc_matches_brute_force(seed, weighted):
    y, p, w = _case(seed, ties=seed % 2 == 0)
    w = w if weighted else None
    r = cutoff_auc_curve(y, p, sample_weight=w)
    aucs, positives, gaps = ref.cutoff_aucs(y, p, w)
    np.testing.assert_allclose(r.auc, aucs, atol=1e-12)
    np.testing.assert_allclose(r.n_positive, positives)
    total = len(y) if w is None else w.sum()
    np.testing.assert_allclose(r.pair_weight, gaps * positives * (total - positives))
    assert r.x_edges[0] == 0 and r.x_edges[-1] == pytest.approx(1.0)
    assert r.area == pytest.approx((1 + _midrank_slope(y, p, w)) / 2, abs=1e-12)


def test_cutoff_auc_against_sklearn():
    y, p, _ = _case(5, n=60, ties=True)
    r = cutoff_auc_curve(y, p)
    values = np.unique(y)[::-1]
    for c, auc in enumerate(r.auc):
        positive = y >= values[c]
        assert auc == pytest.approx(roc_auc_score(positive, p), abs=1e-12)


def test_figure2_identities_without_ties():
    """sum_i (1 - AUC_i) i (n - i) = R and the i(n-i)-weighted area is rho~ (Rosset, Perlich &
    Zadrozny 2005, Sect. 3.2)."""
    y, p, _ = _case(6, n=40, ties=False)
    n = len(y)
    r = cutoff_auc_curve(y, p)
    s = ranking_summary(y, p)
    i = np.arange(1, n)
    np.testing.assert_array_equal(r.n_positive, i)
    np.testing.assert_allclose(r.pair_weight, i * (n - i))
    misordered = np.round((1 - r.auc) * i * (n - i)).astype(int)
    assert int(misordered.sum()) == s.weighted_discordance
    assert r.area == pytest.approx(s.rho_normalized, abs=1e-12)


def test_cutoff_auc_undefined():
    with pytest.warns(UndefinedMetricWarning, match="no cutoff"):
        r = cutoff_auc_curve([3.0, 3.0, 3.0], [1.0, 2.0, 3.0])
    assert r.auc.size == 0 and math.isnan(r.area)


# ------------------------------------------------------------------------------------------
# Figure 3
# ------------------------------------------------------------------------------------------


def test_rank_lift_identities_without_ties():
    """sum_i p_i = sum i^2 - R (the text's identity is false; corrected) and area = rho~."""
    y, p, _ = _case(7, n=30, ties=False)
    n = len(y)
    r = rank_lift_curve(y, p)
    s = ranking_summary(y, p)
    total = n * (n + 1) / 2
    p_i = r.model[1:] * total
    assert round(p_i.sum()) == np.sum(np.arange(1, n + 1) ** 2) - s.weighted_discordance
    text_identity = n**3 - n**2 - n - s.weighted_discordance + np.sum(np.arange(1, n + 1) ** 2)
    assert round(p_i.sum()) != text_identity
    np.testing.assert_allclose(r.optimal[1:] * total, np.cumsum(np.arange(n, 0, -1)))
    np.testing.assert_allclose(r.worst[1:] * total, np.cumsum(np.arange(1, n + 1)))
    np.testing.assert_allclose(r.fraction_targeted, np.arange(n + 1) / n)
    assert r.area == pytest.approx(s.rho_normalized, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_rank_lift_area_equals_cutoff_area_with_ties_and_weights(seed):
    y, p, w = _case(seed, ties=True)
    for weights in (None, w):
        lift = rank_lift_curve(y, p, sample_weight=weights)
        cut = cutoff_auc_curve(y, p, sample_weight=weights)
        assert lift.area == pytest.approx(cut.area, abs=1e-12)
        assert np.all(lift.optimal >= lift.model - 1e-12)
        assert np.all(lift.model >= lift.worst - 1e-12)
        assert lift.model[0] == 0 and lift.model[-1] == pytest.approx(1.0)


def test_rank_lift_weights_equal_repeated_rows():
    y, p, _ = _case(2, ties=True)
    m = np.random.default_rng(0).integers(1, 4, y.size)
    a = rank_lift_curve(y, p, sample_weight=m)
    b = rank_lift_curve(np.repeat(y, m), np.repeat(p, m))
    assert a.area == pytest.approx(b.area, abs=1e-12)
    grid = np.linspace(0, 1, 101)
    np.testing.assert_allclose(
        np.interp(grid, a.fraction_targeted, a.model),
        np.interp(grid, b.fraction_targeted, b.model),
        atol=1e-12,
    )


# ------------------------------------------------------------------------------------------
# partial measures (Rosset, Perlich & Zadrozny 2007, Sect. 5)
# ------------------------------------------------------------------------------------------


def _worked_example():
    s = np.array([2, 6, 1, 4, 3, 9, 5, 7, 10, 8])  # true rank of the i-th prediction
    n = s.size
    return (n + 1 - s).astype(float), np.arange(n, 0, -1, dtype=float)


def test_notes_worked_example():
    y, p = _worked_example()
    kt = partial_kendall_tau(y, p, [0.2, 0.5])
    sr = partial_spearman_rho(y, p, [0.2, 0.5])
    assert kt.misordered == 5 and sr.misordered == 6
    assert Fraction(kt.statistic).limit_denominator(1000) == Fraction(21, 31)
    assert Fraction(sr.statistic).limit_denominator(1000) == Fraction(29, 41)
    np.testing.assert_array_equal(kt.bin_sizes, [2, 3, 5])


@pytest.mark.parametrize("seed", range(10))
def test_partial_measures_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 16))
    if seed % 2:
        y, p = rng.normal(size=n), rng.normal(size=n)
    else:
        y, p = rng.integers(0, 6, n).astype(float), rng.integers(0, 6, n).astype(float)
        y[:2] = [0.0, 5.0]
    k = np.sort(rng.choice(np.arange(1, 10) / 10, size=int(rng.integers(1, 4)), replace=False))
    tau_p, rho_p, mis, r_p, bins = ref.partial_measures(y, p, k)
    with np.errstate(all="ignore"):
        kt = partial_kendall_tau(y, p, k)
        sr = partial_spearman_rho(y, p, k)
    np.testing.assert_array_equal(kt.bin_sizes, np.bincount(bins, minlength=k.size + 2)[1:])
    if not math.isnan(tau_p):
        assert kt.statistic == pytest.approx(float(tau_p), abs=1e-12)
        assert kt.misordered == mis
    if not math.isnan(rho_p):
        assert sr.statistic == pytest.approx(float(rho_p), abs=1e-12)
        assert sr.misordered == r_p


def test_proposition_3():
    """Two bins give 2 AUC - 1; n bins give tau and rho (Rosset et al. 2007, Proposition 3)."""
    rng = np.random.default_rng(1)
    y, p = rng.normal(size=20), rng.normal(size=20)
    top = y >= np.sort(y)[::-1][4]
    for f in (partial_kendall_tau, partial_spearman_rho):
        assert f(y, p, 0.25).statistic == pytest.approx(2 * roc_auc_score(top, p) - 1)
    s = ranking_summary(y, p)
    k = np.arange(1, 20) / 20
    assert partial_kendall_tau(y, p, k).statistic == pytest.approx(s.kendall_tau)
    assert partial_spearman_rho(y, p, k).statistic == pytest.approx(s.spearman_rho)


def test_partial_null_moments_by_exact_enumeration():
    """E0 and Var0 of T^p and R^p over all 7! prediction orders, and the closed forms."""
    n = 7
    y = np.arange(n, dtype=float)
    k = [0.3, 0.6]
    t_values, r_values = [], []
    for perm in itertools.permutations(range(n)):
        p = np.array(perm, dtype=float)
        t_values.append(float(partial_kendall_tau(y, p, k).misordered))
        r_values.append(float(partial_spearman_rho(y, p, k).misordered))
    kt = partial_kendall_tau(y, y, k)
    sr = partial_spearman_rho(y, y, k)
    assert np.mean(t_values) == pytest.approx(kt.null_mean)
    assert np.var(t_values) == pytest.approx(kt.null_variance)
    assert np.mean(r_values) == pytest.approx(sr.null_mean)
    assert np.var(r_values) == pytest.approx(sr.null_variance)
    sizes = kt.bin_sizes
    j = np.arange(1, sizes.size + 1)
    jbar = np.sum(j * sizes) / n
    assert kt.null_variance == pytest.approx(
        (n**2 * (2 * n + 3) - np.sum(sizes**2 * (2 * sizes + 3))) / 72
    )
    assert sr.null_variance == pytest.approx(n * (n + 1) / 12 * np.sum(sizes * (j - jbar) ** 2))


def test_partial_pvalues_are_small_for_a_good_model():
    rng = np.random.default_rng(3)
    y = rng.lognormal(size=500)
    p = np.log(y) + rng.normal(size=500)
    assert partial_kendall_tau(y, p, [0.1, 0.5]).pvalue < 1e-10
    assert partial_spearman_rho(y, p, [0.1, 0.5]).pvalue < 1e-10
    q = rng.normal(size=500)
    assert partial_kendall_tau(y, q, [0.1, 0.5]).pvalue > 1e-3


@pytest.mark.parametrize(
    ("k", "pattern"),
    [
        ([10, 50], "divide by 100"),
        ([0.5, 0.2], "strictly increasing"),
        ([0.0, 0.5], r"strictly in \(0, 1\)"),
        ([], "non-empty"),
        (["a"], "numbers"),
    ],
)
def test_bad_percentiles(k, pattern):
    with pytest.raises(ValueError, match=pattern):
        partial_kendall_tau([1, 2, 3, 4], [1, 2, 3, 4], k)


def test_partial_undefined():
    with pytest.warns(UndefinedMetricWarning, match="one bin"):
        r = partial_kendall_tau([1.0, 1.0, 1.0, 1.0], [1, 2, 3, 4], [0.5])
    assert math.isnan(r.statistic)
    with pytest.warns(UndefinedMetricWarning, match="y_pred is constant"):
        r = partial_spearman_rho([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1], [0.5])
    assert r.statistic == 0.0 and math.isnan(r.pvalue)


def test_rank_lift_undefined():
    with pytest.warns(UndefinedMetricWarning, match="rank lift area is undefined"):
        r = rank_lift_curve([2.0, 2.0, 2.0], [1.0, 2.0, 3.0])
    assert math.isnan(r.area)
    np.testing.assert_allclose(r.model, r.optimal)
