"""DeLong's variance and test (ranklens.delong), roc_curve's AUC interval, compare_models'
method="delong", and the exact null p-values of tau and rho (ranklens._foundation.exact_null)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss
from sklearn.metrics import roc_auc_score

import reference_delong as ref
from ranklens import (
    UndefinedMetricWarning,
    compare_models,
    delong_interval,
    delong_test,
    ranking_summary,
    roc_curve,
    tau_normalized,
)
from ranklens._foundation.exact_null import kendall_exact_pvalue, spearman_exact_pvalue


def _binary_case(rng, n, ties):
    y = (rng.random(n) < 0.4).astype(float)
    y[:2], y[2:4] = 1.0, 0.0  # both classes, two rows each at least
    a = y + rng.normal(size=n)
    b = 0.5 * y + rng.normal(size=n)
    if ties:
        a, b = np.round(a), np.round(b * 2) / 2
    return y, a, b


# --------------------------------------------------------------------------------------------
# against the brute-force twin (DeLong 1988 equations, pair by pair)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_matches_brute_force(seed, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 70))
    y, a, b = _binary_case(rng, n, ties=seed % 2 == 0)
    w = None
    if weighted:
        w = rng.integers(0, 4, n).astype(float) * 0.37
        w[:4] = 1.0  # keep two rows per class
    est, cov = ref.delong_binary(y == 1, [a, b], w)
    res = delong_test(y, a, b, sample_weight=w, method="wald")
    assert res.statistic == "auc" and res.method == "wald"
    assert res.estimate_a == pytest.approx(est[0], abs=1e-13)
    assert res.estimate_b == pytest.approx(est[1], abs=1e-13)
    assert res.std_error_a == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-10)
    assert res.std_error_b == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-10)
    var_d = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    assert res.difference_std_error == pytest.approx(math.sqrt(var_d), rel=1e-9)
    assert res.correlation == pytest.approx(cov[0, 1] / math.sqrt(cov[0, 0] * cov[1, 1]), rel=1e-9)
    z = (est[0] - est[1]) / math.sqrt(var_d)
    assert res.z == pytest.approx(z, rel=1e-9)
    assert res.p_value == pytest.approx(2 * ss.norm.sf(abs(z)), rel=1e-9)
    q = ss.norm.ppf(0.975)
    assert res.ci_a.low == pytest.approx(max(0, est[0] - q * math.sqrt(cov[0, 0])), abs=1e-12)
    assert res.ci_a.high == pytest.approx(min(1, est[0] + q * math.sqrt(cov[0, 0])), abs=1e-12)
    lo, hi = res.difference_ci
    assert (lo, hi) == pytest.approx(
        (est[0] - est[1] - q * math.sqrt(var_d), est[0] - est[1] + q * math.sqrt(var_d))
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_continuous_response_matches_brute_force(seed, weighted):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(6, 60))
    y = rng.integers(0, 3 + seed, n).astype(float)  # ties in y (3+ levels)
    y[:3] = [0.0, 1.0, 2.0]
    a = np.round(y + rng.normal(size=n))
    b = np.round(rng.normal(size=n) * 2)
    w = rng.random(n) * (rng.random(n) > 0.2) if weighted else None
    if w is not None:
        w[:3] = 1.0
    est, cov = ref.delong_general(y, [a, b], w)
    res = delong_test(y, a, b, sample_weight=w)
    assert res.statistic == "harrell_c"
    assert res.estimate_a == pytest.approx(est[0], abs=1e-13)
    assert res.estimate_a == pytest.approx(tau_normalized(y, a, sample_weight=w), abs=1e-12)
    assert res.std_error_a == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-10)
    var_d = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    assert res.difference_std_error == pytest.approx(math.sqrt(var_d), rel=1e-9)


def test_binary_response_reduces_to_delong_exactly():
    """Harrell's C of any two-valued response is the AUC, with DeLong's two-sample variance."""
    rng = np.random.default_rng(3)
    y, a, _ = _binary_case(rng, 80, ties=True)
    two_values = np.where(y == 1, 7.5, -2.0)
    one = delong_interval(y, a)
    other = delong_interval(two_values, a)
    assert other.estimate == one.estimate
    assert other.std_error == pytest.approx(one.std_error, rel=1e-14)
    _, cov = ref.delong_binary(y == 1, [a])
    assert one.std_error == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-12)


def test_hand_computed_example():
    """Events 0.35, 0.8, 0.9; non-events 0.1, 0.4, 0.2: V10 = (2/3, 1, 1), V01 = (1, 2/3, 1),
    AUC = 8/9, S10 = S01 = 3/81, Var = S10/3 + S01/3 = 2/81 (DeLong et al. 1988, eqs. 4-5)."""
    res = delong_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    assert res.estimate == pytest.approx(8 / 9, abs=1e-15)
    assert res.std_error == pytest.approx(math.sqrt(2) / 9, rel=1e-14)


def test_estimate_matches_sklearn():
    rng = np.random.default_rng(5)
    y, a, _ = _binary_case(rng, 500, ties=True)
    w = rng.random(500)
    assert delong_interval(y, a).estimate == pytest.approx(roc_auc_score(y, a), abs=1e-14)
    got = delong_interval(y, a, sample_weight=w).estimate
    assert got == pytest.approx(roc_auc_score(y, a, sample_weight=w), abs=1e-14)


# --------------------------------------------------------------------------------------------
# invariances and edge cases
# --------------------------------------------------------------------------------------------


def test_weights_scale_equal_and_zero():
    rng = np.random.default_rng(8)
    y, a, b = _binary_case(rng, 120, ties=True)
    plain = delong_test(y, a, b)
    equal = delong_test(y, a, b, sample_weight=np.full(120, 3.7))
    assert equal.difference_std_error == pytest.approx(plain.difference_std_error, rel=1e-12)
    w = rng.random(120) + 0.1
    one = delong_test(y, a, b, sample_weight=w)
    scaled = delong_test(y, a, b, sample_weight=w * 1e120)
    assert scaled.z == pytest.approx(one.z, rel=1e-12)
    w0 = w.copy()
    w0[10:20] = 0.0
    keep = w0 > 0
    dropped = delong_test(y[keep], a[keep], b[keep], sample_weight=w[keep])
    zeroed = delong_test(y, a, b, sample_weight=w0)
    assert zeroed.z == pytest.approx(dropped.z, rel=1e-12)
    assert zeroed.n == dropped.n == int(keep.sum())


def test_monotone_transform_and_swap():
    rng = np.random.default_rng(9)
    y, a, b = _binary_case(rng, 200, ties=False)
    base = delong_test(y, a, b)
    moved = delong_test(y, np.exp(a), 3 * b - 1)
    assert moved.z == pytest.approx(base.z, rel=1e-12)
    swapped = delong_test(y, b, a)
    assert swapped.z == pytest.approx(-base.z, rel=1e-12)
    assert swapped.p_value == pytest.approx(base.p_value, rel=1e-12)


def test_identical_models():
    rng = np.random.default_rng(10)
    y, a, _ = _binary_case(rng, 50, ties=True)
    res = delong_test(y, a, a.copy())
    assert res.difference == 0 and res.z == 0 and res.p_value == 1


def test_undefined_cases_warn():
    with pytest.warns(UndefinedMetricWarning, match="constant"):
        res = delong_interval([1, 1, 1], [0.1, 0.2, 0.3])
    assert math.isnan(res.estimate) and math.isnan(res.ci.low)
    with pytest.warns(UndefinedMetricWarning, match="single row"):
        res = delong_interval([1, 0, 0, 0], [0.4, 0.1, 0.2, 0.3])
    assert res.estimate == 1.0 and math.isnan(res.std_error)


def test_argument_errors():
    with pytest.raises(ValueError, match="same length"):
        delong_test([0, 1, 0], [1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="sample_weight"):
        delong_interval([0, 1, 0, 1], [1, 2, 3, 4], sample_weight=[1, -1, 1, 1])
    with pytest.raises(ValueError, match="confidence_level"):
        delong_interval([0, 1, 0, 1], [1, 2, 3, 4], confidence_level=1.5)
    with pytest.raises(ValueError, match="names"):
        delong_test([0, 1, 0, 1], [1, 2, 3, 4], [1, 2, 3, 4], names=("a",))


def test_field_containers():
    """pandas Series from CSV text, read-only and non-contiguous arrays give the same numbers."""
    rng = np.random.default_rng(11)
    y, a, b = _binary_case(rng, 60, ties=True)
    base = delong_test(y, a, b)
    frame = pd.DataFrame({"y": y, "a": a, "b": b})
    import io

    text = io.StringIO(frame.to_csv(index=False))
    read = pd.read_csv(text)
    from_csv = delong_test(read["y"], read["a"], read["b"])
    assert from_csv.z == pytest.approx(base.z, rel=1e-12)
    ro = [v.copy() for v in (y, a, b)]
    for v in ro:
        v.flags.writeable = False
    assert delong_test(*ro).z == base.z
    wide = np.stack([y, a, b], axis=1)  # columns are strided views
    assert delong_test(wide[:, 0], wide[:, 1], wide[:, 2]).z == base.z
    assert delong_interval(read["y"], read["a"]).std_error == base.std_error_a


def test_variance_matches_monte_carlo():
    """The one-sample (continuous response) and weighted variances estimate the sampling
    variance: the mean estimated variance is close to the variance over repeated samples
    (at n = 600; like DeLong's, both are biased upwards by O(1/n), about 30 % for the weighted
    one at n = 150 with exponential weights)."""
    rng = np.random.default_rng(12)
    estimates, variances, w_est, w_var = [], [], [], []
    for _ in range(300):
        y = rng.normal(size=600)
        p = y + rng.normal(size=600) * 1.5
        w = rng.exponential(size=600)
        r = delong_interval(y, p)
        estimates.append(r.estimate)
        variances.append(r.std_error**2)
        rw = delong_interval(y, p, sample_weight=w)
        w_est.append(rw.estimate)
        w_var.append(rw.std_error**2)
    assert np.mean(variances) == pytest.approx(np.var(estimates, ddof=1), rel=0.2)
    assert np.mean(w_var) == pytest.approx(np.var(w_est, ddof=1), rel=0.2)


# --------------------------------------------------------------------------------------------
# roc_curve and compare_models
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_roc_curve_carries_the_interval(weighted):
    rng = np.random.default_rng(13)
    y, a, _ = _binary_case(rng, 300, ties=True)
    w = rng.random(300) * (rng.random(300) > 0.1) if weighted else None
    r = roc_curve(y, a, sample_weight=w, confidence_level=0.9)
    ref_res = delong_interval(y, a, sample_weight=w, confidence_level=0.9)  # the logit one
    assert r.auc == pytest.approx(ref_res.estimate, abs=1e-14)
    assert r.auc_std_error == pytest.approx(ref_res.std_error, rel=1e-10)
    assert tuple(r.auc_ci) == pytest.approx(tuple(ref_res.ci), rel=1e-10)
    assert r.confidence_level == 0.9


def test_roc_curve_continuous_target_uses_its_events():
    rng = np.random.default_rng(14)
    y = rng.normal(size=400)
    p = y + rng.normal(size=400)
    r = roc_curve(y, p, events="top:0.2")
    events = (y >= np.quantile(y, 0.8)).astype(float)
    assert r.auc_std_error == pytest.approx(delong_interval(events, p).std_error, rel=1e-10)


def test_roc_curve_single_event_warns():
    with pytest.warns(UndefinedMetricWarning, match="two events"):
        r = roc_curve([1, 0, 0, 0], [0.9, 0.1, 0.2, 0.3])
    assert math.isnan(r.auc_std_error) and math.isnan(r.auc_ci.low)


def test_compare_models_delong():
    rng = np.random.default_rng(15)
    y, a, b = _binary_case(rng, 400, ties=True)
    c = rng.normal(size=400)
    res = compare_models(
        y,
        {"a": a, "b": b, "c": c},
        metrics=["roc_auc", "tau_normalized", "somers_d"],
        method="delong",
    )
    assert res.method == "delong" and res.n_bootstrap == 0
    assert res.evaluation == ("analytic",) * 3
    _, cov = ref.delong_binary(y == 1, [a, b, c])
    for k, scale in ((0, 1.0), (1, 1.0), (2, 2.0)):
        np.testing.assert_allclose(res.std_error[k], scale * np.sqrt(np.diag(cov)), rtol=1e-10)
        for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
            sd = scale * math.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j])
            assert res.difference_sd[k, p] == pytest.approx(sd, rel=1e-9)
    t = delong_test(y, a, b)
    assert res.p_value[0, 0] == pytest.approx(t.p_value, rel=1e-12)
    assert res.ci_lower[0, 0] == pytest.approx(t.ci_a.low, rel=1e-12)
    frame = res.to_frame()
    assert list(frame["p_value"]) == pytest.approx(list(res.p_value.ravel()))


def test_compare_models_delong_continuous_and_weighted():
    rng = np.random.default_rng(16)
    y = rng.normal(size=200)
    a, b = y + rng.normal(size=200), y + 2 * rng.normal(size=200)
    w = rng.random(200)
    res = compare_models(
        y, {"a": a, "b": b}, metrics=["tau_normalized"], method="delong", sample_weight=w
    )
    t = delong_test(y, a, b, sample_weight=w)
    assert res.difference_sd[0, 0] == pytest.approx(t.difference_std_error, rel=1e-12)
    # roc_auc of a continuous target: its default events (top 10 %) with DeLong's variance
    res = compare_models(y, {"a": a, "b": b}, metrics=["roc_auc"], method="delong")
    events = (y >= np.sort(y)[-20]).astype(float)
    assert res.difference_sd[0, 0] == pytest.approx(
        delong_test(events, a, b).difference_std_error, rel=1e-12
    )


def test_compare_models_delong_refuses_other_measures():
    y = np.array([0, 1, 0, 1, 1, 0.0])
    preds = {"a": np.arange(6.0), "b": np.arange(6.0)[::-1]}
    with pytest.raises(ValueError, match="kendall_tau"):
        compare_models(y, preds, metrics=["roc_auc", "kendall_tau"], method="delong")
    with pytest.raises(ValueError, match="scheme"):
        compare_models(y, preds, metrics=["roc_auc"], method="delong", scheme="poisson")


# --------------------------------------------------------------------------------------------
# exact null p-values of tau and rho
# --------------------------------------------------------------------------------------------


def test_kendall_exact_matches_scipy():
    rng = np.random.default_rng(17)
    for n in range(2, 34):
        for _ in range(3):
            x, y = rng.permutation(n), rng.permutation(n)
            disc = sum((x[i] - x[j]) * (y[i] - y[j]) < 0 for i in range(n) for j in range(i))
            expected = ss.kendalltau(x, y, method="exact").pvalue
            assert kendall_exact_pvalue(n, int(disc)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n", range(3, 9))
def test_kendall_and_spearman_exact_match_enumeration(n):
    """Every permutation of n <= 8: the two-sided p-value is the share of permutations at
    least as extreme (rho by S = sum d^2 on the observed side, tau by discordant pairs)."""
    perms = np.array(list(itertools.permutations(range(n))))
    s = ((perms - np.arange(n)) ** 2).sum(axis=1)
    inv = np.array([sum(p[i] > p[j] for i in range(n) for j in range(i + 1, n)) for p in perms])
    total = n * (n - 1) // 2
    for value in np.unique(s):
        rho = 1 - 6 * value / (n**3 - n)
        side = s >= value if value > (n**3 - n) / 6 else s <= value
        assert spearman_exact_pvalue(n, rho) == pytest.approx(min(1, 2 * side.mean()), abs=1e-15)
    for d in range(total + 1):
        c = min(d, total - d)
        expected = min(1.0, 2 * np.mean(inv <= c)) if 4 * c != n * (n - 1) else 1.0
        assert kendall_exact_pvalue(n, d) == pytest.approx(expected, abs=1e-15)


def test_spearman_edgeworth_close_to_enumeration_at_n10():
    """AS 89's Edgeworth series (n >= 10) against all 10! permutations: within 2e-3."""
    from ranklens._foundation.exact_null import _spearman_counts

    counts = _spearman_counts(10)
    total = counts.sum()
    for value in range(0, counts.shape[0], 2):
        rho = 1 - 6 * value / 990
        tail = counts[value:].sum() if value > 165 else counts[: value + 1].sum()
        assert spearman_exact_pvalue(10, rho) == pytest.approx(min(1, 2 * tail / total), abs=2e-3)


def test_ranking_summary_uses_exact_pvalues():
    rng = np.random.default_rng(18)
    y, p = rng.permutation(7).astype(float), rng.permutation(7).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = ranking_summary(y, p)
    assert s.tau_null_pvalue == pytest.approx(ss.kendalltau(y, p).pvalue, rel=1e-12)
    perms = np.array(list(itertools.permutations(range(7))))
    stat = ((perms - np.arange(7)) ** 2).sum(axis=1)
    obs = round(float(((ss.rankdata(y) - ss.rankdata(p)) ** 2).sum()))
    side = stat >= obs if obs > 56 else stat <= obs
    assert s.rho_null_pvalue == pytest.approx(min(1, 2 * side.mean()), abs=1e-15)
    # with ties: the asymptotic approximations, as before
    y[0] = y[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = ranking_summary(y, p)
    kt = ss.kendalltau(y, p, method="asymptotic")
    assert s.tau_null_pvalue == pytest.approx(kt.pvalue, rel=1e-9)
    assert s.rho_null_pvalue == pytest.approx(ss.spearmanr(y, p).pvalue, rel=1e-9)


def test_two_models_at_once_agree_with_one_model_at_a_time():
    """Two models share the work on y_true: the same numbers as one model at a time."""
    rng = np.random.default_rng(19)
    n = 50_000
    y, a, b = _binary_case(rng, n, ties=True)
    both = delong_test(y, a, b)
    assert both.estimate_a == pytest.approx(roc_auc_score(y, a), abs=1e-13)
    assert both.std_error_a == pytest.approx(delong_interval(y, a).std_error, rel=1e-12)
    assert both.std_error_b == pytest.approx(delong_interval(y, b).std_error, rel=1e-12)
    assert both.std_error_a == pytest.approx(roc_curve(y, a).auc_std_error, rel=1e-10)


@pytest.mark.parametrize("n", [34, 60, 170, 200, 4_000_000])
@pytest.mark.parametrize("discordant", [0, 1])
def test_kendall_exact_at_large_n_with_at_most_one_discordant_pair(n, discordant):
    """Above n = 33 scipy's "auto" rule still uses the exact p-value when at most one pair is
    discordant; it has a closed form (1 or n permutations of n! have c <= 1 inversions), so it
    costs nothing at any n (the Mahonian table would be O(n^3))."""
    expected = 2.0 * (1 if discordant == 0 else n) / math.factorial(n) if n < 171 else 0.0
    assert kendall_exact_pvalue(n, discordant) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    if n <= 200:
        x = np.arange(n, dtype=float)
        y = x.copy()
        if discordant:
            y[[0, 1]] = y[[1, 0]]
        expected_scipy = ss.kendalltau(x, y).pvalue  # scipy: method="auto" is exact here
        got = kendall_exact_pvalue(n, discordant)
        assert got == pytest.approx(expected_scipy, rel=1e-9, abs=1e-300)
