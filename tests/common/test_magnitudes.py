"""Data and weights of any magnitude: no overflow, underflow or endless loop where an answer exists.

References are computed with exact or high-precision arithmetic (``decimal`` at 60 digits from
the exact binary values of the inputs) or with inputs rescaled by a power of two, which changes
only the exponent of every value, so a correct measure changes by exactly the matching power.
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext

import numpy as np
import pytest

from ranklens import (
    ControlPointRelevance,
    UndefinedMetricWarning,
    epsilon_insensitive_loss,
    interval_coverage_error,
    interval_score,
    interval_score_decomposition,
    kendall_tau,
    linlin_loss,
    log_rmse,
    mean_interval_width,
    median_absolute_error,
    pmap,
    prmspe,
    ranking_summary,
    relevance_weighted_absolute_error,
    relevance_weighted_squared_error,
    rmspe,
    sera,
    sera_curve,
    smooth_accuracy,
    spearman_rho,
    weighted_interval_score,
)
from ranklens import (
    mean_absolute_error as mae,
)
from ranklens import (
    mean_squared_error as mse,
)
from ranklens import (
    root_mean_squared_error as rmse,
)
from ranklens._compute.kernels.residual import weighted_quantile_threshold
from ranklens.metrics import available_metrics, get_metric

HUGE = [1e150, 1e200, 1e250, 1e300]
TINY = [1e-150, 1e-200, 1e-250, 1e-300]


def _dec(x: float) -> Decimal:
    return Decimal(float(x))  # exact: every double is a finite binary fraction


def _exact_rms(values, weights=None) -> float:
    """sqrt(sum w v^2 / sum w) in 60-digit decimal arithmetic, rounded once to a double."""
    weights = np.ones(len(values)) if weights is None else weights
    with localcontext() as ctx:
        ctx.prec = 60
        num = sum(_dec(w) * _dec(v) ** 2 for v, w in zip(values, weights, strict=True))
        den = sum(_dec(w) for w in weights)
        return float((num / den).sqrt())


def _exact_mean(values, weights=None) -> float:
    weights = np.ones(len(values)) if weights is None else weights
    with localcontext() as ctx:
        ctx.prec = 60
        num = sum(_dec(w) * _dec(v) for v, w in zip(values, weights, strict=True))
        return float(num / sum(_dec(w) for w in weights))


@pytest.fixture
def data(rng):
    y = rng.normal(size=60)
    p = y + rng.normal(scale=0.5, size=60)
    w = rng.integers(1, 5, size=60).astype(float)
    return y, p, w


# ------------------------------------------------------------------------------------------------
# Worked examples from the report that found the problems


def test_reported_cases():
    assert rmse([1e200, -1e200, 3e200], [0, 0, 0]) == pytest.approx(math.sqrt(11 / 3) * 1e200)
    assert rmse([1e200, -1e200, 3e200], [0, 0, 0]) == pytest.approx(1.9149e200, rel=1e-4)
    assert rmspe([1e-200, 2e-200], [0, 0]) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kendall_tau([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], sample_weight=[1e-100] * 5) == (
            pytest.approx(kendall_tau([1, 2, 3, 4, 5], [1, 3, 2, 5, 4]), abs=1e-15)
        )
        assert spearman_rho([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], sample_weight=[1e150] * 5) == (
            pytest.approx(0.8, abs=1e-15)
        )


def test_weighted_median_search_terminates_for_any_weights():
    values = np.array([5.0, 1.0, 3.0, 2.0, 4.0])
    huge = np.full(5, 1e308)  # the total overflows: the old search never stopped
    # any finite weights and any target: an answer within n passes (the largest value when the
    # target cannot be reached)
    for target in (math.inf, 1e308, 2.5e308, 0.0, -1.0):
        for strict in (False, True):
            got = weighted_quantile_threshold(values, huge, target, strict)
            assert got in values
    assert weighted_quantile_threshold(values, np.ones(5), math.inf, True) == 5.0
    assert weighted_quantile_threshold(values, np.ones(5), 5.0, True) == 5.0  # nothing > 5
    assert weighted_quantile_threshold(values, np.ones(5), 0.0, False) == 1.0
    # through the public function: validation rejects a total weight beyond the largest float,
    # or (before that check) the rescaled weights give the unweighted median
    y, p = [1.0, 2.0, 3.0, 4.0, 5.0], [0.0] * 5
    try:
        value = median_absolute_error(y, p, sample_weight=[1e308] * 5)
    except ValueError:
        pass
    else:
        assert value == 3.0
    assert median_absolute_error(y, p, sample_weight=[1e307] * 5) == 3.0
    assert median_absolute_error(y, p, sample_weight=[1e-320] * 5) == 3.0


# ------------------------------------------------------------------------------------------------
# Residual measures


@pytest.mark.parametrize("magnitude", HUGE + TINY)
@pytest.mark.parametrize("weighted", [False, True])
def test_rmse_against_exact_arithmetic(data, magnitude, weighted):
    y, p, w = data
    w = w if weighted else None
    y, p = y * magnitude, p * magnitude
    expected = _exact_rms(y - p, w)
    assert rmse(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-14)
    assert mae(y, p, sample_weight=w) == pytest.approx(_exact_mean(np.abs(y - p), w), rel=1e-14)


@pytest.mark.parametrize("magnitude", HUGE + TINY)
def test_rmspe_against_exact_arithmetic(data, magnitude):
    y, p, w = data
    y = (np.abs(y) + 0.5) * magnitude
    p = y * (1 + 0.1 * np.sin(np.arange(60)))
    expected = _exact_rms(y - p, w) / _exact_rms(y, w)
    assert rmspe(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-14)


def test_mse_is_inf_or_exact_beyond_the_largest_float():
    # the mean square of 1e200 is 1e400: no float holds it, and inf says so
    assert mse([1e200, 0.0], [0.0, 0.0]) == math.inf
    assert mse([1e150, 0.0], [0.0, 0.0]) == pytest.approx(0.5e300)
    assert mse([1e-150, 0.0], [0.0, 0.0]) == pytest.approx(0.5e-300)
    # residuals beyond the largest float themselves: 2e308 - 0 does not fit, its mean does
    assert mae([1e308, 0.0], [-1e308, 0.0]) == pytest.approx(1e308)
    assert rmse([1e308, 0.0, 0.0, 0.0], [-1e308, 0.0, 0.0, 0.0]) == pytest.approx(1e308)
    assert median_absolute_error([1e308, 1e308, 1.0], [-1e308, -1e308, 0.0]) == math.inf
    assert median_absolute_error([1e308, 1.0, 1.0], [-1e308, 0.0, 0.0]) == 1.0


@pytest.mark.parametrize("k", [-1000, -900, -500, 500, 900, 1000])
def test_linear_residual_measures_scale_exactly_by_powers_of_two(data, k):
    y, p, w = data
    c = 2.0**k
    for f, kwargs in (
        (rmse, {}),
        (mae, {}),
        (median_absolute_error, {}),
        (linlin_loss, {"cost_over": 3.0, "cost_under": 0.5}),
    ):
        base = f(y, p, sample_weight=w, **kwargs)
        assert f(y * c, p * c, sample_weight=w, **kwargs) == math.ldexp(base, k), f.__name__
    eps = epsilon_insensitive_loss(y, p, epsilon=0.3, sample_weight=w)
    assert epsilon_insensitive_loss(y * c, p * c, epsilon=0.3 * c, sample_weight=w) == (
        math.ldexp(eps, k)
    )
    if abs(k) <= 500:
        assert mse(y * c, p * c, sample_weight=w) == math.ldexp(mse(y, p, sample_weight=w), 2 * k)
    pos = np.abs(y) + 0.5
    assert rmspe(pos * c, (pos + p - y) * c) == rmspe(pos, pos + p - y)
    # pmap is a ratio of two means of absolute differences: free of the scale
    assert pmap(y * c, p * c, sample_weight=w) == pmap(y, p, sample_weight=w)


def test_log_rmse_with_a_shift_beyond_the_largest_float():
    # log(1e308 + 1e308) = log(2e308) although 2e308 is no float
    got = log_rmse([1e308, 1.0], [1.0, 1.0], offset=1e308)
    expected = math.sqrt(0.5 * (math.log(2e154) + math.log(1e154) - math.log(1e308)) ** 2)
    assert got == pytest.approx(expected, rel=1e-12)


def test_costs_near_the_largest_float(data):
    y, p, _ = data
    base = linlin_loss(y, p, cost_over=1.0, cost_under=2.0)
    assert linlin_loss(y, p, cost_over=1e300, cost_under=2e300) == pytest.approx(base * 1e300)


# ------------------------------------------------------------------------------------------------
# Utility: SERA and the relevance-weighted errors


PHI = ControlPointRelevance([(-1.0, 1.0, 0.0), (0.0, 0.0, 0.0), (1.0, 1.0, 0.0)])


@pytest.mark.parametrize("k", [-900, -450, 450, 900])
def test_sera_scales_exactly_by_powers_of_two(rng, k):
    y = np.r_[rng.normal(size=80), 9.0, -8.5, 7.0]
    p = y + rng.normal(scale=0.5, size=83)
    w = rng.integers(0, 4, size=83).astype(float)
    w[:2] = 1.0
    c = 2.0 ** (k // 2)
    # the default box-plot relevance is scale-equivariant to the last bit under powers of two
    for weights in (None, w):
        base = sera(y, p, sample_weight=weights)
        assert sera(y * c, p * c, sample_weight=weights) == math.ldexp(base, 2 * (k // 2))
        base = relevance_weighted_squared_error(y, p, sample_weight=weights)
        got = relevance_weighted_squared_error(y * c, p * c, sample_weight=weights)
        assert got == math.ldexp(base, 2 * (k // 2))
        base = relevance_weighted_absolute_error(y, p, sample_weight=weights)
        got = relevance_weighted_absolute_error(y * c, p * c, sample_weight=weights)
        assert got == math.ldexp(base, k // 2)


def test_sera_representable_although_the_squared_errors_are_not():
    # errors of 1e200 (squares 1e400) on weights of 1e-250: SERA = 1e-250 sum phi e^2 ~ 1e150
    y = np.array([0.0, 0.5, 1.0, -1.0, 2.0])
    p = y + np.array([1e200, 2e200, 0.0, 3e200, 1e200])
    w = np.full(5, 1e-250)
    with localcontext() as ctx:
        ctx.prec = 60
        expected = sum(
            _dec(f) * _dec(1e-250) * (_dec(b) - _dec(a)) ** 2
            for a, b, f in zip(y, p, PHI(y), strict=True)
        )
    assert sera(y, p, relevance=PHI, sample_weight=w) == pytest.approx(float(expected), rel=1e-14)
    curve = sera_curve(y, p, relevance=PHI, sample_weight=w)
    assert curve.sera == pytest.approx(float(expected), rel=1e-14)
    assert np.isfinite(curve.ser).all()
    # and tiny errors whose squares underflow
    q = y + np.array([1e-170, 0.0, 2e-170, 1e-170, 0.0])
    rw = relevance_weighted_squared_error(y, q, relevance=PHI)
    with localcontext() as ctx:
        ctx.prec = 60
        phi = [_dec(v) for v in PHI(y)]
        num = sum(f * (_dec(b) - _dec(a)) ** 2 for a, b, f in zip(y, q, phi, strict=True))
        expected = num / sum(phi)
    assert rw == pytest.approx(float(expected), rel=1e-12)


# ------------------------------------------------------------------------------------------------
# Interval scores


def _intervals(rng, n=70):
    y = rng.normal(size=n)
    centre = y + rng.normal(scale=0.7, size=n)
    half = rng.exponential(1.0, size=n)
    return y, centre - half, centre + half


@pytest.mark.parametrize("k", [-1000, -700, 700, 1000])
def test_interval_scores_scale_exactly_by_powers_of_two(rng, k):
    y, lo, up = _intervals(rng)
    w = rng.integers(1, 4, size=y.size).astype(float)
    c = 2.0**k
    base = interval_score(y, lo, up, alpha=0.1, sample_weight=w)
    assert interval_score(y * c, lo * c, up * c, alpha=0.1, sample_weight=w) == (
        math.ldexp(base, k)
    )
    d0 = interval_score_decomposition(y, lo, up, alpha=0.1)
    d1 = interval_score_decomposition(y * c, lo * c, up * c, alpha=0.1)
    for field in ("score", "dispersion", "penalty_below", "penalty_above"):
        assert getattr(d1, field) == math.ldexp(getattr(d0, field), k), field
    assert mean_interval_width(y * c, lo * c, up * c) == math.ldexp(
        mean_interval_width(y, lo, up), k
    )
    lo2, up2 = np.c_[lo, lo - 0.5], np.c_[up, up + 0.5]
    base = weighted_interval_score(y, lo2, up2, alpha=[0.2, 0.05], median=(lo + up) / 2)
    got = weighted_interval_score(
        y * c, lo2 * c, up2 * c, alpha=[0.2, 0.05], median=(lo + up) / 2 * c
    )
    assert got == math.ldexp(base, k)
    assert interval_coverage_error(y * c, lo * c, up * c, alpha=0.1) == interval_coverage_error(
        y, lo, up, alpha=0.1
    )


@pytest.mark.parametrize("magnitude", HUGE + TINY)
def test_interval_score_against_exact_arithmetic(rng, magnitude):
    y, lo, up = _intervals(rng)
    y, lo, up = y * magnitude, lo * magnitude, up * magnitude
    alpha = 0.1
    with localcontext() as ctx:
        ctx.prec = 60
        two_over = 2 / _dec(alpha)
        total = Decimal(0)
        for a, lo_i, up_i in zip(y, lo, up, strict=True):
            a, lo_i, up_i = _dec(a), _dec(lo_i), _dec(up_i)
            total += (up_i - lo_i) + two_over * (max(lo_i - a, 0) + max(a - up_i, 0))
        expected = float(total / len(y))
    assert interval_score(y, lo, up, alpha=alpha) == pytest.approx(expected, rel=1e-13)


def test_interval_widths_beyond_the_largest_float():
    # the first width, 2e308, is no float; the mean width, 1e308, is
    assert mean_interval_width([0.0, 0.0], [-1e308, 0.0], [1e308, 0.0]) == pytest.approx(1e308)
    assert interval_score([0.0, 0.0], [-1e308, 0.0], [1e308, 0.0], alpha=0.5) == (
        pytest.approx(1e308)
    )
    assert interval_score([0.0, 0.0], [-1e308, -1e308], [1e308, 1e308], alpha=0.5) == math.inf


def test_prmspe_at_large_and_small_magnitudes(rng):
    y = np.abs(rng.normal(size=40)) + 1.0
    p = y * 1.1
    lo, up = p - 0.5, p + 0.5
    base = prmspe(y, p, lo, up, alpha=0.2)
    for k in (-900, 900):
        c = 2.0**k
        assert prmspe(y * c, p * c, lo * c, up * c, alpha=0.2) == pytest.approx(base, rel=1e-15)


# ------------------------------------------------------------------------------------------------
# Weights of any magnitude: every scale-free weighted measure gives the same number for w and
# c w; the counts and sums (ranking_summary's pair counts, SERA) scale with c.

FAMILIES = ("residual", "ranking", "extremes", "intervals")


def _call(name, y, p, lo, up, w):
    spec = get_metric(name)
    if spec.family == "intervals":
        alpha = [0.3] if name == "weighted_interval_score" else 0.3
        return spec(y, lo, up, alpha=alpha, sample_weight=w)
    if spec.family == "extremes":
        # An explicit relevance and accuracy: the default box plot reads weights as frequencies
        # (integer weights = repeated rows), so its result depends on their scale by design.
        return spec(
            y,
            p,
            sample_weight=w,
            relevance=PHI,
            **(
                {}
                if name.startswith("relevance") or name == "sera"
                else {"accuracy": smooth_accuracy(0.5)}
            ),
        )
    if name in ("log_rmse", "rmspe"):
        return spec(np.abs(y) + 1, np.abs(p) + 1, sample_weight=w)
    return spec(y, p, sample_weight=w)


@pytest.mark.parametrize("name", [n for f in FAMILIES for n in available_metrics(f)])
@pytest.mark.parametrize("factor", [1e150, 1e-150, 1e300, 1e-300])
def test_weighted_measures_are_free_of_the_weights_scale(rng, name, factor):
    y = np.r_[rng.normal(size=40), 3.0, -2.5]
    p = y + rng.normal(scale=0.6, size=42)
    lo, up = p - 0.8, p + 0.8
    w = rng.uniform(0.2, 3.0, size=42)
    w[5] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        base = _call(name, y, p, lo, up, w)
        scaled = _call(name, y, p, lo, up, w * factor)
    if name == "sera":  # a weighted sum: it carries the scale of the weights
        assert scaled == pytest.approx(base * factor, rel=1e-12)
    else:
        assert scaled == pytest.approx(base, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("factor", [1e150, 1e-150])
def test_ranking_summary_with_weights_of_any_magnitude(rng, factor):
    y = np.round(rng.normal(size=30), 1)
    p = np.round(y + rng.normal(size=30), 1)
    w = rng.integers(1, 4, size=30).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        a = ranking_summary(y, p, sample_weight=w)
        b = ranking_summary(y, p, sample_weight=w * factor)
    for field in ("kendall_tau", "spearman_rho", "tau_normalized", "rho_normalized"):
        assert getattr(b, field) == pytest.approx(getattr(a, field), abs=1e-14)
    # pair counts scale with the square of the weights, R with the cube
    for field in ("discordant_pairs", "concordant_pairs", "tied_true_only_pairs"):
        assert getattr(b, field) == pytest.approx(getattr(a, field) * factor**2, rel=1e-12)
    assert b.weighted_discordance == pytest.approx(
        a.weighted_discordance * factor * factor * factor, rel=1e-12
    )
