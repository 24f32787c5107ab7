"""ranking_summary, the scalar rank measures and per-observation pair counts.

Every number is checked against an independent reference: brute-force pair loops
(tests/reference_ranking.py), scipy (kendalltau, spearmanr, somersd), the identities of Rosset,
Perlich & Zadrozny (2005), and exact integer arithmetic at sizes where int64 overflows.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import polars as pl
import pytest
import scipy.stats as ss

import reference_ranking as ref
from ranklens import UndefinedMetricWarning, get_metric
from ranklens._foundation.exact_null import spearman_exact_pvalue
from ranklens.ranking import (
    kendall_tau,
    per_observation_pair_counts,
    ranking_summary,
    rho_normalized,
    spearman_rho,
    tau_normalized,
)


def _random_case(rng, n, ties):
    if ties:
        return rng.integers(0, 4, n).astype(float), rng.integers(0, 4, n).astype(float)
    return rng.normal(size=n), rng.normal(size=n)


def _cases(seed, count, n_range=(4, 13)):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(*n_range))
        y, p = _random_case(rng, n, ties=len(out) % 2 == 0)
        if len(np.unique(y)) > 1 and len(np.unique(p)) > 1:
            out.append((y, p))
    return out


# ------------------------------------------------------------------------------------------
# brute force
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("y", "p"), _cases(1, 16))
def test_per_observation_counts_match_brute_force(y, p):
    r = per_observation_pair_counts(y, p)
    got = np.array([r.concordant, r.discordant, r.tied_true_only, r.tied_pred_only, r.tied_both])
    np.testing.assert_array_equal(got, ref.per_observation_counts(y, p))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.sum(axis=0), len(y) - 1)


def test_per_observation_counts_many_buckets():
    """n_y > 1024 exercises the two-level (bucketed) Fenwick sweep; ties in both variables."""
    rng = np.random.default_rng(7)
    n = 3000
    y = np.round(rng.normal(size=n), 2)
    p = np.round(y + rng.normal(size=n), 1)
    r = per_observation_pair_counts(y, p)
    got = np.array([r.concordant, r.discordant, r.tied_true_only, r.tied_pred_only, r.tied_both])
    np.testing.assert_array_equal(got, ref.per_observation_counts_vectorized(y, p))


@pytest.mark.parametrize(("y", "p"), _cases(2, 16))
def test_summary_matches_brute_force_and_scipy(y, p):
    s = ranking_summary(y, p)
    totals = ref.pair_totals(y, p)
    assert s.concordant_pairs == totals[0]
    assert s.discordant_pairs == ref.discordant_pairs(y, p) == totals[1]
    assert (s.tied_true_only_pairs, s.tied_pred_only_pairs, s.tied_both_pairs) == tuple(totals[2:])
    assert s.weighted_discordance == ref.weighted_discordance(y, p)
    kt = ss.kendalltau(y, p)  # scipy's default: exact without ties at this n, else asymptotic
    sr = ss.spearmanr(y, p)
    untied = len(np.unique(y)) == len(y) and len(np.unique(p)) == len(p)
    # Without ties rho's p-value is R's cor.test (AS 89; tests/inference/test_delong.py checks it
    # against every permutation); scipy has only the t approximation.
    rho_p = spearman_exact_pvalue(len(y), sr.statistic) if untied else sr.pvalue
    assert s.kendall_tau == pytest.approx(kt.statistic, abs=1e-12)
    assert s.kendall_tau == pytest.approx(ref.tau_b(y, p), abs=1e-12)
    assert s.tau_null_pvalue == pytest.approx(kt.pvalue, rel=1e-9, abs=1e-15)
    assert s.spearman_rho == pytest.approx(sr.statistic, abs=1e-12)
    assert s.spearman_rho == pytest.approx(ref.spearman_rho(y, p), abs=1e-12)
    assert s.rho_null_pvalue == pytest.approx(rho_p, rel=1e-9, abs=1e-15)
    somers = ss.somersd(y, p).statistic  # D(pred | y)
    assert s.tau_normalized == pytest.approx((1 + somers) / 2, abs=1e-12)
    assert s.tau_normalized == pytest.approx(ref.harrell_c(y, p), abs=1e-12)
    assert s.rho_normalized == pytest.approx((1 + sr.statistic) / 2, abs=1e-12)


@pytest.mark.parametrize(("y", "p"), _cases(3, 10, n_range=(4, 9)))
def test_noether_variances_match_u_statistic_brute_force(y, p):
    """Plug-in and unbiased variance = the U-statistic formulas evaluated by explicit tuples."""
    s = ranking_summary(y, p)
    plug, unbiased = ref.u_statistic_variances(ref.tau_b_kernel_matrix(y, p))
    assert s.tau_variance == pytest.approx(plug, abs=1e-12)
    assert s.tau_variance_unbiased == pytest.approx(unbiased, abs=1e-12)


@pytest.mark.parametrize(("y", "p"), _cases(4, 20)[1::2])  # odd cases are continuous
def test_noether_plug_in_is_eq6_without_ties(y, p):
    """Rosset, Perlich & Zadrozny (2005) eq. (6), typed in literally, equals tau_variance when
    there are no ties."""
    eq6 = ref.noether_variance_eq6(y, p)
    assert ranking_summary(y, p).tau_variance == pytest.approx(max(eq6, 0.0), abs=1e-13)


def test_unbiased_variance_is_unbiased_monte_carlo():
    """Eq. (6) (a plug-in) is biased low at small n; the U-statistic version is not."""
    rng = np.random.default_rng(11)
    n, reps = 12, 3000
    taus, plug, unbiased = [], [], []
    for _ in range(reps):
        y = rng.normal(size=n)
        p = 0.6 * y + rng.normal(size=n)
        s = ranking_summary(y, p)
        taus.append(s.kendall_tau)
        plug.append(s.tau_variance)
        unbiased.append(s.tau_variance_unbiased)
    true_var = np.var(taus)
    assert np.mean(unbiased) == pytest.approx(true_var, rel=0.08)
    assert np.mean(plug) < 0.9 * true_var


def test_confidence_interval():
    rng = np.random.default_rng(5)
    y = rng.lognormal(size=300)
    p = np.log(y) + rng.normal(size=300)
    s = ranking_summary(y, p, confidence_level=0.9)
    half = ss.norm.ppf(0.95) * math.sqrt(s.tau_variance_unbiased)
    # Noether's Wald interval by name; the default is Fisher's z
    # (tests/inference/test_interval_methods.py)
    noether = s.confidence_interval(method="noether")
    assert noether == pytest.approx((s.kendall_tau - half, s.kendall_tau + half))
    assert s.tau_ci_method == "fisher-z" and s.confidence_interval() == s.tau_ci
    wide = s.confidence_interval(0.99)
    assert wide[0] < s.tau_ci[0] and wide[1] > s.tau_ci[1]
    with pytest.raises(ValueError, match="confidence_level"):
        s.confidence_interval(1.5)


# ------------------------------------------------------------------------------------------
# identities of Rosset, Perlich & Zadrozny (2005), errata corrected (no ties)
# ------------------------------------------------------------------------------------------


def test_identities_without_ties():
    rng = np.random.default_rng(8)
    for n in (2, 3, 7, 40):
        s_true = rng.permutation(n) + 1  # true rank of the i-th prediction (1 = largest y)
        y = (n + 1 - s_true).astype(float)
        p = np.arange(n, 0, -1, dtype=float)
        warn = n < 4
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if warn else "error")
            s = ranking_summary(y, p)
        big_n = n * (n - 1)
        i = np.arange(1, n + 1)
        r = ref.r_from_permutation(list(s_true))
        assert s.discordant_pairs == ref.discordant_pairs(y, p)
        assert s.weighted_discordance == r
        assert r == int(np.sum(i**2) - np.sum(i * s_true)) == int(np.sum((i - s_true) ** 2)) // 2
        assert s.kendall_tau == pytest.approx(1 - 4 * s.discordant_pairs / big_n)
        assert s.spearman_rho == pytest.approx(1 - 12 * r / (n * (n * n - 1)))
        assert s.tau_normalized == pytest.approx((1 + s.kendall_tau) / 2)
        c = per_observation_pair_counts(y, p).concordant
        assert np.mean(c / (n - 1)) == pytest.approx(s.tau_normalized)


def test_docstring_example():
    s = ranking_summary([1, 2, 3, 4, 5], [2, 1, 3, 5, 4])
    assert (s.discordant_pairs, s.weighted_discordance) == (2, 2)
    assert (s.kendall_tau, s.spearman_rho) == (pytest.approx(0.6), pytest.approx(0.8))


def test_half_integer_r_with_prediction_ties():
    """R weights a discordant pair by the distance of the prediction midranks (half-integers)."""
    y = [1.0, 2.0, 3.0]
    p = [2.0, 1.0, 1.0]  # midranks 3, 1.5, 1.5: discordant pairs (0,1) and (0,2), each 1.5
    with pytest.warns(UndefinedMetricWarning, match="n >= 4"):
        s = ranking_summary(y, p)
    assert s.discordant_pairs == 2
    assert s.weighted_discordance == Fraction(3)
    y = [1.0, 3.0, 2.0, 4.0]
    p = [1.0, 1.0, 0.0, 2.0]  # midranks 2.5, 2.5, 1, 4: one discordant pair, rows 0 and 2
    s = ranking_summary(y, p)
    assert s.weighted_discordance == Fraction(3, 2)
    assert s.weighted_discordance == ref.weighted_discordance(np.array(y), np.array(p))
    # the field is a float; the exact half-integer is kept in exact_counts
    exact_r = s.exact_counts["weighted_discordance"]
    assert isinstance(exact_r, Fraction) and exact_r == Fraction(3, 2)
    assert exact_r.denominator == 2


# ------------------------------------------------------------------------------------------
# exactness at large n
# ------------------------------------------------------------------------------------------


def test_exact_counts_where_int64_overflows():
    """Reversed ranking at n = 4e6: R = n(n^2-1)/6 ~ 1.07e19 > 2**63 - 1."""
    n = 4_000_000
    y = np.arange(n, dtype=float)
    s = ranking_summary(y, -y)
    assert s.exact_counts["discordant_pairs"] == n * (n - 1) // 2
    assert s.exact_counts["weighted_discordance"] == n * (n * n - 1) // 6
    assert s.exact_counts["weighted_discordance"] > 2**63
    assert s.weighted_discordance == float(n * (n * n - 1) // 6)  # the float field, rounded
    assert s.kendall_tau == -1.0 and s.spearman_rho == -1.0
    assert s.tau_normalized == 0.0 and s.rho_normalized == 0.0


def test_exact_r_random_permutation_large_n():
    """R = sum i^2 - sum i s_i computed independently with chunked int64 sums (exact)."""
    n = 3_000_000
    rng = np.random.default_rng(12)
    s_true = rng.permutation(n).astype(np.int64) + 1
    y = (n + 1 - s_true).astype(float)
    p = np.arange(n, 0, -1, dtype=float)
    i = np.arange(1, n + 1, dtype=np.int64)
    chunk = 100_000
    cross = sum(int(np.dot(i[k : k + chunk], s_true[k : k + chunk])) for k in range(0, n, chunk))
    expected = n * (n + 1) * (2 * n + 1) // 6 - cross
    s = ranking_summary(y, p)
    assert s.exact_counts["weighted_discordance"] == expected
    assert s.weighted_discordance == float(expected)
    assert s.spearman_rho == pytest.approx(1 - 12 * expected / (n * (n * n - 1)), abs=1e-15)


# ------------------------------------------------------------------------------------------
# weights
# ------------------------------------------------------------------------------------------


# Documented as NaN with weights (no sample size), and n, the number of rows.
_NOT_WITH_WEIGHTS = {
    "n",
    "tau_variance",
    "tau_variance_unbiased",
    "tau_ci",
    "tau_null_pvalue",
    "rho_null_pvalue",
}


@pytest.mark.parametrize("seed", range(12))
def test_integer_weights_equal_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    n = 15
    y, p = _random_case(rng, n, ties=seed % 3 != 2)
    w = rng.integers(0, 5, n)
    w[0] = max(w[0], 1)
    yy, pp = np.repeat(y, w), np.repeat(p, w)
    with pytest.warns(UndefinedMetricWarning, match="sample_weight"):
        sw = ranking_summary(y, p, sample_weight=w)
    s = ranking_summary(yy, pp)
    # every numeric field, tied_both_pairs included: the copies of one row are tied in both,
    # which the sum over pairs of different rows alone (w_i w_j) used to leave out
    fields = [
        f.name
        for f in dataclasses.fields(s)
        if f.name not in _NOT_WITH_WEIGHTS
        and f.name != "exact_counts"
        and not f.name.startswith("tau_ci_")  # the interval's method and notes: words
    ]
    assert sw.exact_counts is None  # weighted counts are floats, with no exact twin
    assert "tied_both_pairs" in fields and "weighted_discordance" in fields
    for field in fields:
        assert float(getattr(sw, field)) == pytest.approx(
            float(getattr(s, field)), rel=1e-9, abs=1e-12
        ), field
    for field in _NOT_WITH_WEIGHTS - {"n", "tau_ci"}:
        assert math.isnan(getattr(sw, field)), field
    assert all(math.isnan(v) for v in sw.tau_ci)
    assert sw.n == n  # rows, not their total weight
    for f in (kendall_tau, spearman_rho, tau_normalized, rho_normalized):
        assert f(y, p, sample_weight=w) == pytest.approx(f(yy, pp), abs=1e-12)


def test_weighted_pair_counts_are_never_negative():
    # Perfect rankings with ties and fractional weights: the weighted counts are differences of
    # float sums (e.g. R, tied-in-y-only) whose exact value is 0; they must not come out below.
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(3, 40))
        y = np.round(rng.normal(size=n), 1)
        w = rng.uniform(0.01, 1e3, size=n) * 10.0 ** rng.integers(-90, 90)
        for p in (y, 2 * y + 1, np.round(y)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                s = ranking_summary(y, p, sample_weight=w)
            for field in (
                "discordant_pairs",
                "weighted_discordance",
                "concordant_pairs",
                "tied_true_only_pairs",
                "tied_pred_only_pairs",
                "tied_both_pairs",
            ):
                assert getattr(s, field) >= 0.0, field
            if p is not y:
                continue
            # exactly 0 mathematically; in floats at most round-off of the concordant weight
            for field in (
                "discordant_pairs",
                "tied_true_only_pairs",
                "tied_pred_only_pairs",
            ):
                assert getattr(s, field) <= 1e-12 * s.concordant_pairs, field


def test_tied_both_pairs_with_fractional_weights():
    # rows (1, 1) and (1, 1) with weights 0.75 + 0.75 form one group of weight 1.5: 1.5 * 0.5 / 2
    # pairs; a lone row of weight 0.5 is less than one observation and has no pair with itself
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        s = ranking_summary([1, 1, 2, 3], [1, 1, 2, 3], sample_weight=[0.75, 0.75, 0.5, 2.0])
    assert s.tied_both_pairs == pytest.approx(1.5 * 0.5 / 2 + 2.0 * 1.0 / 2)
    assert s.concordant_pairs == pytest.approx(1.5 * 0.5 + 1.5 * 2.0 + 0.5 * 2.0)


def test_weighted_matches_brute_force_with_fractional_weights():
    rng = np.random.default_rng(21)
    for ties in (True, False):
        y, p = _random_case(rng, 12, ties)
        w = rng.random(12) + 0.1
        assert kendall_tau(y, p, sample_weight=w) == pytest.approx(ref.tau_b(y, p, w))
        assert spearman_rho(y, p, sample_weight=w) == pytest.approx(ref.spearman_rho(y, p, w))
        assert tau_normalized(y, p, sample_weight=w) == pytest.approx(ref.harrell_c(y, p, w))
        with pytest.warns(UndefinedMetricWarning):
            s = ranking_summary(y, p, sample_weight=w)
        assert s.weighted_discordance == pytest.approx(ref.weighted_discordance(y, p, w))


def test_zero_weight_is_dropping_the_row():
    rng = np.random.default_rng(4)
    y, p = _random_case(rng, 20, ties=True)
    w = rng.random(20)
    w[[3, 7]] = 0.0
    keep = w > 0
    for f in (kendall_tau, spearman_rho, tau_normalized):
        assert f(y, p, sample_weight=w) == pytest.approx(
            f(y[keep], p[keep], sample_weight=w[keep]), abs=1e-12
        )


# ------------------------------------------------------------------------------------------
# registry, input types, serialisation
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("kendall_tau", "kendall_tau"),
        ("spearman_rho", "spearman_rho"),
        ("tau_normalized", "tau_normalized"),
        ("rho_normalized", "rho_normalized"),
    ],
)
def test_registered_scalars(name, field):
    spec = get_metric(name)
    assert spec.higher_is_better is True
    assert spec.family == "ranking"
    assert spec.supports_sample_weight
    rng = np.random.default_rng(9)
    y, p = _random_case(rng, 30, ties=True)
    assert spec(y, p) == pytest.approx(getattr(ranking_summary(y, p), field), abs=1e-15)


@pytest.mark.parametrize(
    "wrap",
    [list, np.asarray, pd.Series, pl.Series, lambda v: pd.DataFrame({"a": v})],
)
def test_array_likes(wrap):
    y, p = [1.0, 3.0, 2.0, 5.0, 4.0], [1, 2, 3, 4, 5]
    s = ranking_summary(wrap(y), wrap(p))
    assert s.kendall_tau == pytest.approx(0.6)
    assert kendall_tau(wrap(y), wrap(p)) == pytest.approx(0.6)


def test_to_dict_is_json_ready():
    s = ranking_summary([1.0, 2.0, 3.0, 4.0, 5.0], [3.0, 1.0, 1.0, 2.0, 5.0])
    d = s.to_dict()
    json.dumps(d)
    assert d["tau_ci"] == list(s.tau_ci)
    assert isinstance(d["weighted_discordance"], int | float)


# ------------------------------------------------------------------------------------------
# bad input and undefined values
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("y", "p", "pattern"),
    [
        ([1.0, np.nan, 2.0], [1, 2, 3], "y_true contains 1 NaN"),
        ([1.0, 2.0, 3.0], [1, np.inf, 3], "y_pred contains 1 infinite"),
        ([1.0, 2.0, 3.0], [1, 2], "same length; got 3 and 2"),
        ([1.0], [1.0], "at least 2"),
        (["a", "b"], [1, 2], "y_true must be numeric"),
    ],
)
def test_bad_input(y, p, pattern):
    # strings are data of the wrong kind: TypeError (ValueError before validation said so)
    error = (TypeError, ValueError) if "numeric" in pattern else ValueError
    for f in (ranking_summary, kendall_tau, per_observation_pair_counts):
        with pytest.raises(error, match=pattern):
            f(y, p)


def test_bad_weights_and_level():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        ranking_summary([1, 2, 3], [1, 2, 3], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="sample_weight has length 2"):
        kendall_tau([1, 2, 3], [1, 2, 3], sample_weight=[1, 1])
    with pytest.raises(ValueError, match="confidence_level"):
        ranking_summary([1, 2, 3, 4], [1, 2, 3, 4], confidence_level=95)


def test_constant_y_true_is_undefined():
    with pytest.warns(UndefinedMetricWarning, match="y_true is constant"):
        s = ranking_summary([2.0, 2.0, 2.0, 2.0], [1, 2, 3, 4])
    assert math.isnan(s.kendall_tau) and math.isnan(s.spearman_rho)
    assert math.isnan(s.tau_normalized) and math.isnan(s.rho_normalized)
    assert s.tied_true_only_pairs == 6 and s.discordant_pairs == 0
    for f in (kendall_tau, spearman_rho, tau_normalized, rho_normalized):
        with pytest.warns(UndefinedMetricWarning, match="undefined"):
            assert math.isnan(f([2.0, 2.0, 2.0], [1, 2, 3]))


def test_constant_prediction():
    """tau and rho are undefined; Harrell's C is 0.5 (every comparable pair is a prediction tie)."""
    with pytest.warns(UndefinedMetricWarning, match="y_pred is constant"):
        s = ranking_summary([1, 2, 3, 4], [7.0, 7.0, 7.0, 7.0])
    assert math.isnan(s.kendall_tau) and math.isnan(s.spearman_rho)
    assert s.tau_normalized == 0.5
    assert tau_normalized([1, 2, 3], [7, 7, 7]) == 0.5
    with pytest.warns(UndefinedMetricWarning):
        assert math.isnan(kendall_tau([1, 2, 3], [7, 7, 7]))


def test_all_ties_and_small_n():
    with pytest.warns(UndefinedMetricWarning):
        s = ranking_summary([1.0, 1.0], [1.0, 1.0])
    assert s.tied_both_pairs == 1 and math.isnan(s.kendall_tau)
    with pytest.warns(UndefinedMetricWarning, match="n >= 4"):
        s = ranking_summary([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
    assert s.kendall_tau == pytest.approx(1 / 3)
    assert math.isnan(s.tau_variance_unbiased) and math.isnan(s.tau_ci[0])
