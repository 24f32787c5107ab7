"""Interval scores and their plot data.

Payne, Li & Qin (2016); Gneiting & Raftery (2007); Bracher et al. (2021).
"""

from __future__ import annotations

import contextlib
import json
import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn.metrics import mean_pinball_loss

from ranklens.exceptions import UndefinedMetricWarning
from ranklens.intervals import (
    CoverageLevelWarning,
    interval_coverage,
    interval_coverage_by_bin,
    interval_coverage_error,
    interval_score,
    interval_score_decomposition,
    interval_score_per_observation,
    intervals_by_prediction,
    mean_interval_width,
    weighted_interval_score,
    weighted_interval_score_decomposition,
    weighted_interval_score_from_quantiles,
)
from ranklens.metrics import get_metric
from ranklens.residual import prmspe  # RMSPE plus an interval term: with the residual measures
from reference_intervals import (
    interval_score_direct,
    normal_expected_interval_score,
    wis_direct,
    wis_quantile_form,
)


def _intervals(rng, n, ties=True):
    y = rng.normal(size=n)
    if ties:
        y = np.round(y, 1)
    centre = y + rng.normal(scale=0.8, size=n)
    half = rng.exponential(1.0, size=n)
    lower, upper = centre - half, centre + half
    if ties:
        lower[: n // 5] = np.floor(10 * lower[: n // 5]) / 10
        upper[: n // 5] = np.ceil(10 * upper[: n // 5]) / 10
        lower[: n // 10] = np.minimum(y, upper)[: n // 10]  # observations exactly on a bound
    return y, lower, upper


# ------------------------------------------------------------------------------- interval score


def test_seed_formula_small_example():
    # covered: width 2; missed above by 3: 2 + (2 / 0.2) * 3 = 32; below by 1: 2 + 10 * 1 = 12
    assert interval_score([1.0, 5.0, -1.0], [0, 0, 0], [2, 2, 2], alpha=0.2) == pytest.approx(
        (2 + 32 + 12) / 3
    )
    np.testing.assert_allclose(
        interval_score_per_observation([1.0, 5.0, -1.0], [0, 0, 0], [2, 2, 2], alpha=0.2),
        [2.0, 32.0, 12.0],
    )


@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5, 0.9])
@pytest.mark.parametrize("weighted", [False, True])
def test_interval_score_matches_direct_formula(rng, alpha, weighted):
    y, lo, up = _intervals(rng, 257)
    w = rng.integers(0, 4, size=y.size).astype(float) if weighted else None
    if weighted:
        w[0] = 1.0
    expected = interval_score_direct(y, lo, up, alpha, w)
    # these random intervals cover about two thirds: for alpha = 0.9 (nominal 10%) that is the
    # sign of a coverage level passed as alpha, and the score says so
    check = pytest.warns(CoverageLevelWarning) if alpha > 0.5 else contextlib.nullcontext()
    with check:
        score = interval_score(y, lo, up, alpha=alpha, sample_weight=w)
    assert score == pytest.approx(expected, rel=1e-12)
    per_obs = interval_score_per_observation(y, lo, up, alpha=alpha)
    assert np.average(per_obs, weights=w) == pytest.approx(expected, rel=1e-12)


def test_interval_score_equals_scaled_pinball_losses(rng):
    # IS_alpha = (2 / alpha) [pinball_{alpha/2}(l) + pinball_{1 - alpha/2}(u)]
    y, lo, up = _intervals(rng, 500)
    alpha = 0.1
    via_sklearn = (2 / alpha) * (
        mean_pinball_loss(y, lo, alpha=alpha / 2) + mean_pinball_loss(y, up, alpha=1 - alpha / 2)
    )
    assert interval_score(y, lo, up, alpha=alpha) == pytest.approx(via_sklearn, rel=1e-12)


def test_decomposition_adds_up(rng):
    y, lo, up = _intervals(rng, 300)
    w = rng.uniform(0, 2, size=y.size)
    res = interval_score_decomposition(y, lo, up, alpha=0.1, sample_weight=w)
    assert res.score == pytest.approx(interval_score(y, lo, up, alpha=0.1, sample_weight=w))
    assert res.score == pytest.approx(res.dispersion + res.penalty_below + res.penalty_above)
    assert res.dispersion == pytest.approx(np.average(up - lo, weights=w))
    assert res.penalty_below == pytest.approx(20 * np.average(np.maximum(lo - y, 0), weights=w))
    assert res.coverage[0] == pytest.approx(interval_coverage(y, lo, up, sample_weight=w))
    np.testing.assert_allclose(
        res.per_observation, interval_score_per_observation(y, lo, up, alpha=0.1)
    )
    json.dumps(res.to_dict())
    assert "per_observation=<array" in repr(res)


@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=12),
    st.lists(st.integers(0, 3), min_size=12, max_size=12),
    st.sampled_from([0.1, 0.25, 0.5]),
)
def test_integer_weights_equal_repeated_rows(values, counts, alpha):
    y = np.array(values, dtype=float)
    counts = np.array(counts[: y.size])
    if counts.sum() == 0:
        counts[0] = 1
    lo, up = y - 1.5 + (y % 3), y + 0.5
    weighted = interval_score(y, lo, up, alpha=alpha, sample_weight=counts)
    repeated = interval_score(
        np.repeat(y, counts), np.repeat(lo, counts), np.repeat(up, counts), alpha=alpha
    )
    assert weighted == pytest.approx(repeated, rel=1e-12)


def test_large_n_matches_numpy(rng):
    n = 3_000_000
    y = rng.normal(size=n)
    lo = y + rng.normal(size=n) - 1.0
    up = lo + rng.exponential(2.0, size=n)
    expected = np.mean(
        (up - lo) + 20.0 * (np.maximum(lo - y, 0.0) + np.maximum(y - up, 0.0)), dtype=np.float64
    )
    assert interval_score(y, lo, up, alpha=0.1) == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------------- properness


def test_properness_empirical_distribution_exact(rng):
    # The mean score over a sample is the expected score under its empirical distribution, so it
    # is minimised by the empirical alpha/2 and 1 - alpha/2 quantiles (any point between the two
    # order statistics that bracket them).
    y = np.sort(rng.normal(size=400))
    alpha = 0.1  # alpha/2 * n = 20: the lower minimisers are [y_(20), y_(21)] (1-based)
    n = y.size
    candidates = y
    lower_scores = [
        interval_score(y, np.full(n, c), np.full(n, y[-1]), alpha=alpha) for c in candidates
    ]
    best = np.flatnonzero(np.isclose(lower_scores, np.min(lower_scores), rtol=1e-13, atol=0))
    assert set(best.tolist()) <= {19, 20} and best.size >= 1
    upper_scores = [
        interval_score(y, np.full(n, y[0]), np.full(n, c), alpha=alpha) for c in candidates
    ]
    best = np.flatnonzero(np.isclose(upper_scores, np.min(upper_scores), rtol=1e-13, atol=0))
    assert set(best.tolist()) <= {n - 21, n - 20} and best.size >= 1


def test_properness_normal_grid_minimum_at_true_quantiles():
    # A deterministic 'sample' of N(0, 1) (its quantile grid) scored on a grid of intervals: the
    # minimiser sits at the true 5% / 95% quantiles, +-1.645, within the grid step.
    alpha = 0.1
    y = norm.ppf((np.arange(20_000) + 0.5) / 20_000)
    grid = np.round(np.arange(1.40, 1.90, 0.01), 2)
    scores = np.array(
        [
            [interval_score(y, np.full(y.size, -a), np.full(y.size, b), alpha=alpha) for b in grid]
            for a in grid
        ]
    )
    i, j = np.unravel_index(np.argmin(scores), scores.shape)
    q = norm.ppf(1 - alpha / 2)
    assert abs(grid[i] - q) <= 0.01 and abs(grid[j] - q) <= 0.01
    # and the closed-form expectation agrees with the sample version at the optimum
    assert scores[i, j] == pytest.approx(
        normal_expected_interval_score(-grid[i], grid[j], alpha), rel=1e-3
    )


@given(
    st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=8, unique=True),
    st.lists(st.floats(0.05, 1.0), min_size=8, max_size=8),
    st.sampled_from([0.1, 0.2, 0.5]),
    st.floats(-12, 12),
    st.floats(0, 10),
)
def test_properness_discrete_distributions(support, probs, alpha, other_lower, other_width):
    # Expected score under a discrete distribution (support, probabilities as weights): the true
    # alpha/2 and 1 - alpha/2 quantiles never do worse than any other interval.
    x = np.sort(np.array(support))
    p = np.array(probs[: x.size])
    p = p / p.sum()
    cdf = np.cumsum(p)
    q_lo = x[np.searchsorted(cdf, alpha / 2 - 1e-12)]
    q_hi = x[np.searchsorted(cdf, 1 - alpha / 2 - 1e-12)]
    n = x.size

    def expected(lo, up):
        return interval_score(x, np.full(n, lo), np.full(n, up), alpha=alpha, sample_weight=p)

    assert expected(q_lo, q_hi) <= expected(other_lower, other_lower + other_width) + 1e-9


# -------------------------------------------------------------------------- coverage and width


def test_coverage_is_inclusive_and_width(rng):
    y = np.array([0.0, 1.0, 2.0, 3.0])
    lo = np.array([0.0, 1.5, 0.0, 3.0])
    up = np.array([1.0, 2.0, 2.0, 3.0])  # bounds inclusive; zero-width interval allowed
    assert interval_coverage(y, lo, up) == 0.75
    assert interval_coverage(y, lo, up, alpha=0.1, sample_weight=[1, 3, 0, 0]) == 0.25
    assert interval_coverage_error(y, lo, up, alpha=0.2) == pytest.approx(0.05)
    assert mean_interval_width(y, lo, up) == pytest.approx(0.875)
    assert mean_interval_width(y, lo, up, sample_weight=[0, 1, 1, 0]) == pytest.approx(1.25)
    # no penalty on the boundary
    assert interval_score([1.0], [1.0], [1.0], alpha=0.1) == 0.0


def test_registry_entries():
    for name, direction, higher in [
        ("interval_score", "lower", False),
        ("interval_coverage", "target", None),  # best closest to 1 - alpha
        ("interval_coverage_error", "lower", False),
        ("mean_interval_width", "neutral", None),  # not ranked
        ("weighted_interval_score", "lower", False),
    ]:
        spec = get_metric(name)
        assert spec.family == "intervals" and spec.inputs == "interval"
        assert spec.direction == direction and spec.higher_is_better is higher
        assert spec.supports_sample_weight
        # the shared signature f(y_true, lower, upper, *, alpha, sample_weight)
        value = spec(
            [1.0, 2.0, 3.0], [0.5, 2.5, 2.0], [1.5, 3.0, 4.0], alpha=0.2, sample_weight=None
        )
        assert math.isfinite(value)
    assert get_metric("weighted_interval_score")(
        [1.0, 5.0], [0, 0], [2, 2], alpha=0.2
    ) == pytest.approx(0.1 * interval_score([1.0, 5.0], [0, 0], [2, 2], alpha=0.2))


# ----------------------------------------------------------------------------------------- WIS


def _quantile_forecast(rng, n, alphas):
    y = rng.normal(size=n).round(1)
    mu = y + rng.normal(scale=0.7, size=n)
    sigma = rng.uniform(0.3, 2.0, size=n)
    lower = np.column_stack([mu + sigma * norm.ppf(a / 2) for a in alphas])
    upper = np.column_stack([mu + sigma * norm.ppf(1 - a / 2) for a in alphas])
    return y, mu, lower, upper


@pytest.mark.parametrize("with_median", [True, False])
def test_wis_matches_bracher_definition(rng, with_median):
    alphas = [0.02, 0.1, 0.2, 0.5, 0.8]
    y, mu, lower, upper = _quantile_forecast(rng, 120, alphas)
    w = rng.integers(0, 3, size=y.size).astype(float)
    w[0] = 1
    median = mu if with_median else None
    expected = wis_direct(y, lower, upper, alphas, median, w)
    got = weighted_interval_score(y, lower, upper, alpha=alphas, median=median, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12)
    res = weighted_interval_score_decomposition(
        y, lower, upper, alpha=alphas, median=median, sample_weight=w
    )
    assert res.score == pytest.approx(got, rel=1e-12)
    assert res.score == pytest.approx(res.dispersion + res.penalty_below + res.penalty_above)
    assert np.average(res.per_observation, weights=w) == pytest.approx(got, rel=1e-12)
    np.testing.assert_allclose(
        res.coverage,
        [np.average((lower[:, j] <= y) & (y <= upper[:, j]), weights=w) for j in range(5)],
    )


def test_wis_equals_quantile_representation_and_sklearn_pinball(rng):
    alphas = np.array([0.1, 0.5])
    y, mu, lower, upper = _quantile_forecast(rng, 200, alphas)
    levels = [0.05, 0.25, 0.5, 0.75, 0.95]
    quantiles = np.column_stack([lower[:, 0], lower[:, 1], mu, upper[:, 1], upper[:, 0]])
    expected = wis_quantile_form(y, quantiles, levels)
    pinball = [mean_pinball_loss(y, quantiles[:, j], alpha=t) for j, t in enumerate(levels)]
    assert expected == pytest.approx(2 * np.sum(pinball) / 5, rel=1e-12)
    assert weighted_interval_score(y, lower, upper, alpha=alphas, median=mu) == pytest.approx(
        expected, rel=1e-12
    )
    # the quantile-matrix form, in any column order and as a DataFrame
    perm = [2, 0, 4, 1, 3]
    frame = pd.DataFrame(quantiles[:, perm], columns=[f"q{t}" for t in np.array(levels)[perm]])
    assert weighted_interval_score_from_quantiles(
        y, frame, levels=np.array(levels)[perm]
    ) == pytest.approx(expected, rel=1e-12)
    # 1 - 0.05 is not exactly 0.95 in binary: pairing tolerates rounding
    assert weighted_interval_score_from_quantiles(
        y, quantiles, levels=[0.05, 0.25, 0.5, 1 - 0.25, 1 - 0.05]
    ) == pytest.approx(expected, rel=1e-12)


def test_wis_approaches_crps_of_normal_forecast():
    # With many equally spaced levels WIS -> CRPS (Bracher et al. 2021, Sect. 2.2).
    y = np.array([-1.3, 0.0, 0.4, 2.2])
    taus = np.arange(1, 200) / 200  # 0.005 .. 0.995 with the median
    quantiles = np.tile(norm.ppf(taus), (y.size, 1))
    crps = y * (2 * norm.cdf(y) - 1) + 2 * norm.pdf(y) - 1 / np.sqrt(np.pi)
    wis = weighted_interval_score_from_quantiles(y, quantiles, levels=taus)
    assert wis == pytest.approx(crps.mean(), rel=1e-2)


def test_wis_bad_input(rng):
    y, mu, lower, upper = _quantile_forecast(rng, 10, [0.1, 0.5])
    with pytest.raises(ValueError, match="lower has 2 column\\(s\\) but alpha has 1"):
        weighted_interval_score(y, lower, upper, alpha=0.1)
    with pytest.raises(ValueError, match="alpha must not repeat"):
        weighted_interval_score(y, lower, upper, alpha=[0.1, 0.1])
    with pytest.raises(ValueError, match="alpha must be in \\(0, 1\\)"):
        weighted_interval_score(y, lower, upper, alpha=[0.1, 1.0])
    with pytest.raises(ValueError, match="y_true and median must have the same length"):
        weighted_interval_score(y, lower, upper, alpha=[0.1, 0.5], median=mu[:5])
    with pytest.raises(ValueError, match="lower has 9 rows"):
        weighted_interval_score(y, lower[:9], upper, alpha=[0.1, 0.5])
    crossed = upper.copy()
    crossed[3, 1] = lower[3, 1] - 1
    with pytest.raises(ValueError, match=r"lower must not exceed upper.*position 3, 1"):
        weighted_interval_score(y, lower, crossed, alpha=[0.1, 0.5])
    bad = lower.copy()
    bad[2, 0] = np.nan
    with pytest.raises(
        ValueError, match=r"lower contains non-finite (or missing )?values \(first at row 2"
    ):
        weighted_interval_score(y, bad, upper, alpha=[0.1, 0.5])
    q = np.column_stack([lower[:, 0], mu, upper[:, 1]])
    with pytest.raises(ValueError, match=r"0\.05 has no partner"):
        weighted_interval_score_from_quantiles(y, q, levels=[0.05, 0.5, 0.75])
    with pytest.raises(ValueError, match=r"0\.8 has no partner"):
        weighted_interval_score_from_quantiles(y, q, levels=[0.1, 0.9, 0.8])
    with pytest.raises(ValueError, match="at least one central interval"):
        weighted_interval_score_from_quantiles(y, mu, levels=[0.5])
    with pytest.raises(ValueError, match="quantiles has 3 column\\(s\\) but levels has 2"):
        weighted_interval_score_from_quantiles(y, q, levels=[0.1, 0.9])


# ---------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (
            ([1.0, np.nan], [0, 0], [2, 2]),
            r"y_true contains 1 NaN (or missing )?value\(s\) \(first at position 1",
        ),
        (([1.0, 2.0], [0, -np.inf], [2, 2]), r"lower contains 1 infinite value"),
        (
            ([1.0, 2.0], [0, 0], [2, 2, 3]),
            r"y_true and upper must have the same length; got 2 and 3",
        ),
        (([1.0, 2.0], [0], [2, 2]), r"y_true and lower must have the same length; got 2 and 1"),
        (([], [], []), r"y_true is empty"),
        ((["a", "b"], [0, 0], [2, 2]), r"y_true must be numeric"),
        (
            ([1.0, 2.0, 3.0], [0, 3, 0], [2, 2.5, 1]),
            r"lower must not exceed upper; got lower=3.0 > "
            r"upper=2.5 at position 1 \(1 crossed interval",
        ),
    ],
)
def test_bad_input_messages(args, pattern):
    # strings are data of the wrong kind: TypeError (ValueError before validation said so)
    error = (TypeError, ValueError) if "numeric" in pattern else ValueError
    with pytest.raises(error, match=pattern):
        interval_score(*args, alpha=0.1)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, None, "x", np.nan])
def test_bad_alpha(alpha):
    with pytest.raises(ValueError, match="alpha"):
        interval_score([1.0, 2.0], [0, 0], [2, 2], alpha=alpha)


def test_crossed_bounds_everywhere():
    for func in (interval_coverage, mean_interval_width, interval_score_per_observation):
        with pytest.raises(ValueError, match="never swapped silently"):
            func([1.0, 2.0], [0, 3], [2, 2], alpha=0.1)


def test_array_likes_and_single_observation():
    y, lo, up = [1.0, 5.0, 2.0], [0.0, 0.0, 0.0], [2.0, 2.0, 2.0]
    expected = interval_score(y, lo, up, alpha=0.2)
    assert interval_score(pd.Series(y), pl.Series(lo), np.array(up), alpha=0.2) == expected
    assert interval_score([3.0], [0.0], [2.0], alpha=0.5) == pytest.approx(2 + 4 * 1)


def test_sample_weight_bad_input():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        interval_score([1.0, 2.0], [0, 0], [2, 2], alpha=0.1, sample_weight=[1, -1])
    with pytest.raises(ValueError, match="sample_weight has length 1"):
        interval_score([1.0, 2.0], [0, 0], [2, 2], alpha=0.1, sample_weight=[1])


# --------------------------------------------------------------------------------------- PRMSPE


def test_prmspe_scale_consistent_form(rng):
    y = rng.lognormal(size=200)
    pred = y * rng.lognormal(sigma=0.3, size=200)
    lo, up = pred * 0.6, pred * 1.5
    w = rng.uniform(0.5, 2, size=200)
    rmspe = np.sqrt(np.sum(w * (y - pred) ** 2) / np.sum(w * y**2))
    mean_is = interval_score_direct(y, lo, up, 0.1, w)
    expected = rmspe + mean_is / np.sqrt(np.average(y**2, weights=w))
    got = prmspe(y, pred, lo, up, alpha=0.1, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12)
    # unchanged by the units of y and by the size of the test set (k -> 3k), unlike the text's
    # forms: sum of widths / ||y|| grows like sqrt(k), sum of scores / (k ||y||) shrinks.
    assert prmspe(100 * y, 100 * pred, 100 * lo, 100 * up, alpha=0.1, sample_weight=w) == (
        pytest.approx(got, rel=1e-12)
    )
    tripled = [np.tile(a, 3) for a in (y, pred, lo, up, w)]
    assert prmspe(*tripled[:4], alpha=0.1, sample_weight=tripled[4]) == pytest.approx(got)

    def text_first_form(y, p, lo, up):
        return np.linalg.norm(y - p) / np.linalg.norm(y) + np.sum(up - lo) / np.linalg.norm(y)

    ratio = text_first_form(*tripled[:4]) / text_first_form(y, pred, lo, up)
    assert ratio > 1.5  # the printed form drifts with k


def test_prmspe_needs_positive_y():
    with pytest.raises(ValueError):
        prmspe([0.0, 1.0], [0.1, 1.0], [0, 0], [1, 2], alpha=0.1)


# ------------------------------------------------------------------------------------ plot data


def test_intervals_by_prediction(rng):
    y, lo, up = _intervals(rng, 50)
    pred = np.round((lo + up) / 2, 0)  # ties in the prediction
    res = intervals_by_prediction(y, pred, lo, up)
    assert np.all(np.diff(res.y_pred) >= 0)
    np.testing.assert_array_equal(res.order, np.argsort(pred, kind="stable"))
    np.testing.assert_array_equal(res.y_true, y[res.order])
    np.testing.assert_array_equal(res.covered, (lo <= y)[res.order] & (y <= up)[res.order])
    assert res.coverage == pytest.approx(interval_coverage(y, lo, up))
    json.dumps(res.to_dict())


def test_coverage_by_decile(rng):
    n = 1000
    pred = rng.normal(size=n)
    y = pred + rng.normal(scale=np.exp(pred), size=n)  # noise grows with the prediction
    lo, up = pred - 1.645, pred + 1.645  # constant width: under-covers high predictions
    res = interval_coverage_by_bin(y, pred, lo, up, alpha=0.1)
    np.testing.assert_array_equal(res.bin, np.arange(1, 11))
    np.testing.assert_array_equal(res.count, np.full(10, 100))
    order = np.argsort(pred)
    for b in range(10):
        rows = order[100 * b : 100 * (b + 1)]
        assert res.coverage[b] == pytest.approx(np.mean((lo <= y)[rows] & (y <= up)[rows]))
        assert res.pred_min[b] == pred[rows].min() and res.pred_max[b] == pred[rows].max()
    assert np.all(res.coverage_low <= res.coverage) and np.all(res.coverage <= res.coverage_high)
    assert res.coverage[0] > 0.95 and res.coverage[-1] < 0.5
    assert res.nominal == pytest.approx(0.9)
    assert res.overall_coverage == pytest.approx(interval_coverage(y, lo, up))
    np.testing.assert_allclose(res.mean_width, 3.29)
    json.dumps(res.to_dict())


def test_coverage_by_bin_keeps_ties_together_and_weights():
    pred = np.array([0, 0, 0, 0, 0, 0, 1, 2, 3, 4], dtype=float)
    y = np.arange(10.0)
    lo, up = y - 1, y + (np.arange(10) % 2) - 0.5  # odd rows covered
    res = interval_coverage_by_bin(y, pred, lo, up, n_bins=5)
    # the block of six zeros (cumulative-weight midpoint 0.3) fills bin 2; bins 1 and 3 stay empty
    np.testing.assert_array_equal(res.bin, [2, 4, 5])
    np.testing.assert_array_equal(res.count, [6, 2, 2])
    assert math.isnan(res.nominal)
    # Wilson interval of 3/6 at 95%
    z = norm.ppf(0.975)
    centre = (0.5 + z**2 / 12) / (1 + z**2 / 6)
    half = z / (1 + z**2 / 6) * np.sqrt(0.25 / 6 + z**2 / 144)
    assert res.coverage[0] == 0.5
    assert res.coverage_low[0] == pytest.approx(centre - half)
    # integer weights behave like repeated rows
    w = np.array([1, 2, 1, 1, 1, 1, 3, 1, 1, 2])
    weighted = interval_coverage_by_bin(y, pred, lo, up, n_bins=5, sample_weight=w)
    rep = interval_coverage_by_bin(
        np.repeat(y, w), np.repeat(pred, w), np.repeat(lo, w), np.repeat(up, w), n_bins=5
    )
    np.testing.assert_allclose(weighted.coverage, rep.coverage)
    np.testing.assert_allclose(weighted.coverage_low, rep.coverage_low)
    np.testing.assert_array_equal(weighted.bin, rep.bin)


def test_coverage_by_bin_bad_input():
    with pytest.raises(ValueError, match="n_bins must be an integer >= 1"):
        interval_coverage_by_bin([1.0, 2.0], [1, 2], [0, 0], [3, 3], n_bins=0)
    with pytest.raises(ValueError, match="confidence_level"):
        interval_coverage_by_bin([1.0, 2.0], [1, 2], [0, 0], [3, 3], confidence_level=1.0)


def test_coverage_by_bin_zero_weight_bin_is_undefined():
    # cumulative-weight midpoints 0.25, 0.5, 0.75: the zero-weight row is alone in bin 3 of 4
    with pytest.warns(UndefinedMetricWarning, match="bins whose case weights are all zero"):
        res = interval_coverage_by_bin(
            [0.0, 1, 2], [0.0, 1, 2], [0, 0, 0], [5, 5, 5], n_bins=4, sample_weight=[2, 0, 2]
        )
    np.testing.assert_array_equal(res.bin, [2, 3, 4])
    assert math.isnan(res.coverage[1]) and res.coverage[0] == 1.0


def test_pmap_adds_the_mean_interval_score(rng):
    from ranklens.residual import pmap

    y = np.cumsum(rng.normal(size=60))
    pred = y + rng.normal(size=60)
    lo, up = pred - 1, pred + 1
    assert pmap(y, pred, lower=lo, upper=up, alpha=0.2) == pytest.approx(
        pmap(y, pred) + interval_score(y, lo, up, alpha=0.2)
    )
    with pytest.raises(ValueError, match="lower must not exceed upper"):
        pmap(y, pred, lower=up, upper=lo, alpha=0.2)


# ----------------------------------------------------------------- alpha is the miss rate


def _covering(rng, n, coverage):
    """Intervals [y - 1, y + 1] around n observations of which about ``coverage`` fall inside."""
    y = rng.normal(size=n)
    inside = rng.random(n) < coverage
    centre = np.where(inside, y, y + 3.0)
    return y, centre - 1.0, centre + 1.0


def test_alpha_given_as_the_coverage_level_warns(rng):
    # 80% intervals scored with alpha=0.8 (the coverage) instead of 0.2 (the miss rate)
    y, lo, up = _covering(rng, 200, 0.8)
    with pytest.warns(CoverageLevelWarning, match=r"alpha is the miss rate.*alpha=0\.2"):
        score = interval_score(y, lo, up, alpha=0.8)
    assert score == pytest.approx(interval_score_direct(y, lo, up, 0.8, None))
    with pytest.warns(CoverageLevelWarning):
        interval_score_decomposition(y, lo, up, alpha=0.8)
    with pytest.warns(CoverageLevelWarning):
        interval_coverage_error(y, lo, up, alpha=0.8)
    with pytest.warns(CoverageLevelWarning):  # one level: alpha/2 times the interval score
        weighted_interval_score(y, lo, up, alpha=0.8)
    assert issubclass(CoverageLevelWarning, Warning)
    from ranklens.exceptions import RanklensWarning

    assert issubclass(CoverageLevelWarning, RanklensWarning)


def test_coverage_check_stays_quiet_where_it_should(rng):
    y, lo, up = _covering(rng, 200, 0.8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoverageLevelWarning)
        interval_score(y, lo, up, alpha=0.2)  # the right alpha
        interval_coverage_error(y, lo, up, alpha=0.2)
        # several levels: no single level to judge
        weighted_interval_score(y, np.c_[lo, lo - 1], np.c_[up, up + 1], alpha=[0.8, 0.1])
        # fewer than 20 rows: too few to tell
        interval_score(y[:19], lo[:19], up[:19], alpha=0.8)
        # badly calibrated intervals at an ordinary level are what the coverage error reports
        y2, lo2, up2 = _covering(rng, 200, 0.2)
        interval_score(y2, lo2, up2, alpha=0.2)
        # a genuine 20% interval (alpha = 0.8) that covers about 20%
        interval_score(y2, lo2, up2, alpha=0.8)
        # within the margin: 45% coverage for a nominal 20% (0.2 + 0.3 = 0.5 not exceeded)
        y3, lo3, up3 = _covering(rng, 400, 0.45)
        interval_score(y3, lo3, up3, alpha=0.8)
