"""Relevance functions, box plots and the medcouple (Torgo & Ribeiro 2009, Sect. 4.1)."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.interpolate import CubicHermiteSpline, PchipInterpolator

import reference_utility as ref
from ranklens import (
    ControlPointRelevance,
    NoExtremesWarning,
    Relevance,
    SigmoidRelevance,
    boxplot_stats,
    medcouple,
    relevance_from_boxplot,
)

TABLE3_Y = np.array([-5.29, -2.65, -2.43, -0.20, -0.03, 0.03, 0.51, 1.46, 2.53, 2.94])
TABLE3_M1 = np.array([-4.40, -2.06, -2.20, 0.10, -0.23, -0.27, 0.97, 2.00, 1.86, 2.15])
TABLE3_M2 = np.array([-5.09, -2.95, -2.89, 0.69, -0.82, 0.70, -0.08, 0.92, 2.83, 3.17])
TABLE3_PHI = SigmoidRelevance(low_center=-2.0, high_center=2.0, k=0.5, delta=1e-4)


# ------------------------------------------------------------------------------------------------
# SigmoidRelevance


def test_table3_relevance_rows():
    """Torgo & Ribeiro (2009) Table 3, rows phi(Y), phi(Yhat_1), phi(Yhat_2) (centres +-2)."""
    np.testing.assert_array_equal(
        TABLE3_PHI(TABLE3_Y).round(2), [1.00, 1.00, 0.98, 0, 0, 0, 0, 0.01, 0.99, 1.00]
    )
    np.testing.assert_array_equal(
        TABLE3_PHI(TABLE3_M1).round(2), [1.00, 0.63, 0.86, 0, 0, 0, 0, 0.50, 0.22, 0.80]
    )
    np.testing.assert_array_equal(
        TABLE3_PHI(TABLE3_M2).round(2), [1.00, 1.00, 1.00, 0, 0, 0, 0, 0.00, 1.00, 1.00]
    )


def test_text_centres_do_not_reproduce_table3():
    """The +-1.5 the text states gives a different phi(Y) row (an erratum: +-2 gives Table 3)."""
    phi = SigmoidRelevance(-1.5, 1.5)
    assert phi(TABLE3_Y).round(2)[7] != 0.01


@pytest.mark.parametrize(
    ("low", "high", "k", "delta", "origin"),
    [(-2.0, 2.0, 0.5, 1e-4, 0.0), (None, 3.0, 0.3, 1e-3, 1.0), (-1.0, None, 1.0, 0.01, 0.5)],
)
def test_sigmoid_matches_reference(rng, low, high, k, delta, origin):
    y = rng.normal(scale=3, size=200)
    phi = SigmoidRelevance(low, high, k=k, delta=delta, origin=origin)
    np.testing.assert_allclose(phi(y), ref.sigmoid_relevance(y, low, high, k, delta, origin))


def test_sigmoid_eq5_decay_point_and_centre():
    """phi(c) = 1/2 and phi(c - c k) = delta for the high sigmoid; mirrored for the low one."""
    phi = SigmoidRelevance(low_center=-4.0, high_center=3.0, k=0.25, delta=1e-3)
    assert phi(3.0) == pytest.approx(0.5)
    assert phi(-4.0) == pytest.approx(0.5)
    assert phi(3.0 - 3.0 * 0.25) == pytest.approx(1e-3)
    assert phi(-4.0 + 4.0 * 0.25) == pytest.approx(1e-3)
    assert phi.high_shape > 0 > phi.low_shape


def test_sigmoid_extreme_inputs_do_not_overflow():
    phi = SigmoidRelevance(-1.0, 1.0)
    with np.errstate(all="raise"):
        out = phi(np.array([-1e308, -1e10, 0.0, 1e10, 1e308]))
    np.testing.assert_array_equal(out, [1.0, 1.0, out[2], 1.0, 1.0])
    assert 0 <= out[2] < 1e-6


def test_relevance_call_shapes_and_array_likes():
    phi = TABLE3_PHI
    assert isinstance(phi(2.0), float)
    assert phi(np.zeros((2, 3))).shape == (2, 3)
    np.testing.assert_array_equal(phi(pd.Series(TABLE3_Y)), phi(TABLE3_Y))
    np.testing.assert_array_equal(phi(pl.Series(TABLE3_Y)), phi(TABLE3_Y))
    np.testing.assert_array_equal(phi(list(TABLE3_Y)), phi(TABLE3_Y))
    assert np.isnan(phi([np.nan, 1.0])[0])
    with pytest.raises(TypeError, match="y must be numeric"):
        phi("abc")
    with pytest.raises(TypeError, match="y must be numeric"):
        phi(["a", "b"])


def test_relevance_objects_are_frozen_hashable_picklable_with_readable_repr():
    cp = ControlPointRelevance([(-1.0, 1.0), (0.0, 0.0), (2.0, 1.0, 0.0)])
    for phi in (TABLE3_PHI, cp):
        assert isinstance(phi, Relevance)
        with pytest.raises(dataclasses.FrozenInstanceError):
            phi.k = 3  # type: ignore[misc]
        hash(phi)
        clone = pickle.loads(pickle.dumps(phi))
        assert clone == phi
        np.testing.assert_array_equal(clone(TABLE3_Y), phi(TABLE3_Y))
    assert repr(TABLE3_PHI) == (
        "SigmoidRelevance(low_center=-2.0, high_center=2.0, k=0.5, delta=0.0001, origin=0.0)"
    )
    assert repr(cp).startswith("ControlPointRelevance(points=((-1.0, 1.0,")
    assert "_knots" not in repr(cp)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({}, "give low_center, high_center or both"),
        ({"low_center": 2.0, "high_center": 1.0}, "low_center must be below high_center"),
        ({"high_center": 1.0, "k": 0}, "k must be positive"),
        ({"high_center": 1.0, "k": np.nan}, "k must be a finite number"),
        ({"high_center": 1.0, "delta": 0.7}, "delta must be in"),
        ({"high_center": 1.0, "delta": 0.5}, r"delta must be in \(0, 0.5\)"),
        ({"high_center": np.inf}, "high_center must be a finite number"),
        ({"high_center": "a"}, "high_center must be a finite number"),
        ({"high_center": 0.0}, "high_center equals origin"),
        ({"low_center": 1.0, "origin": 1.0}, "low_center equals origin"),
    ],
)
def test_sigmoid_bad_parameters(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        SigmoidRelevance(**kwargs)


# ------------------------------------------------------------------------------------------------
# ControlPointRelevance


def test_control_points_without_slopes_match_scipy_pchip(rng):
    pts = [(-3.0, 1.0), (-1.0, 0.2), (0.0, 0.0), (1.5, 0.6), (4.0, 1.0)]
    phi = ControlPointRelevance(pts)
    y = rng.uniform(-3, 4, size=500)
    expected = PchipInterpolator([p[0] for p in pts], [p[1] for p in pts])(y)
    np.testing.assert_allclose(phi(y), expected, atol=1e-12)


def test_control_points_with_slopes_match_cubic_hermite(rng):
    pts = [(0.0, 0.0, 0.0), (1.0, 0.4, 0.3), (3.0, 1.0, 0.0)]
    phi = ControlPointRelevance(pts)
    y = rng.uniform(0, 3, size=500)
    spline = CubicHermiteSpline([0.0, 1.0, 3.0], [0.0, 0.4, 1.0], [0.0, 0.3, 0.0])
    np.testing.assert_allclose(phi(y), np.clip(spline(y), 0, 1), atol=1e-12)


def test_control_points_are_sorted_and_extrapolated_flat():
    phi = ControlPointRelevance([(2.0, 1.0, 0.0), (0.0, 0.0, 0.0)])
    assert phi.points == ((0.0, 0.0, 0.0), (2.0, 1.0, 0.0))
    np.testing.assert_array_equal(phi([-10.0, 0.0, 2.0, 10.0]), [0.0, 0.0, 1.0, 1.0])


def test_control_points_boxplot_form_is_smoothstep(rng):
    phi = ControlPointRelevance([(-1.5, 1, 0), (0.2, 0, 0), (2.5, 1, 0)])
    y = rng.uniform(-4, 5, size=300)
    np.testing.assert_allclose(phi(y), ref.boxplot_pchip_relevance(y, 0.2, -1.5, 2.5), atol=1e-12)


@given(st.lists(st.integers(-10_000, 10_000), min_size=2, max_size=8, unique=True), st.data())
def test_control_points_pchip_stays_within_control_values(ints, data):
    xs = [v / 100 for v in ints]
    phis = data.draw(st.lists(st.floats(0, 1), min_size=len(xs), max_size=len(xs)))
    phi = ControlPointRelevance(list(zip(xs, phis, strict=True)))
    grid = np.linspace(min(xs) - 1, max(xs) + 1, 200)
    out = phi(grid)
    assert out.min() >= min(phis) - 1e-12
    assert out.max() <= max(phis) + 1e-12


@pytest.mark.parametrize(
    ("points", "pattern"),
    [
        ([(0.0, 0.0)], "at least two control points"),
        ([(0.0, 0.0), (0.0, 1.0)], "distinct y values"),
        ([(0.0, 0.0), (1.0, 1.5)], r"points\[1\] phi must be in \[0, 1\]"),
        ([(0.0, 0.0), (1.0,)], r"points\[1\] must be \(y, phi\)"),
        ([(0.0, 0.0), (np.nan, 1.0)], r"points\[1\] y must be a finite number"),
    ],
)
def test_control_points_bad_input(points, pattern):
    with pytest.raises(ValueError, match=pattern):
        ControlPointRelevance(points)


# ------------------------------------------------------------------------------------------------
# medcouple


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 11, 40, 101])
def test_medcouple_matches_brute_force_with_ties(rng, n):
    for _ in range(30):
        x = rng.integers(-4, 5, size=n).astype(float)
        assert medcouple(x) == pytest.approx(ref.medcouple(x), abs=1e-12)
        x = rng.standard_exponential(n) ** 2
        assert medcouple(x) == pytest.approx(ref.medcouple(x), abs=1e-12)


@given(st.lists(st.integers(-20, 20), min_size=1, max_size=60))
def test_medcouple_property_brute_force_and_symmetry(values):
    x = np.asarray(values, dtype=float)
    mc = medcouple(x)
    assert mc == pytest.approx(ref.medcouple(x), abs=1e-12)
    assert -1.0 <= mc <= 1.0
    assert medcouple(-x) == pytest.approx(-mc, abs=1e-12)
    assert medcouple(3.0 * x + 7.0) == pytest.approx(mc, abs=1e-12)


def test_medcouple_statsmodels_if_installed(rng):
    sm = pytest.importorskip("statsmodels.stats.stattools")
    # statsmodels warns that its fast algorithm is unstable below n = 10; small n is covered by
    # the brute-force reference test.
    for _ in range(20):
        x = np.round(rng.lognormal(size=int(rng.integers(10, 300))), 1)
        assert medcouple(x) == pytest.approx(float(sm.medcouple(x)), abs=1e-12)


def test_medcouple_known_values():
    assert medcouple([1, 2, 3, 4, 5]) == 0.0
    assert medcouple([0.0, 0.0, 0.0]) == 0.0
    # Right skew is positive; an exponential sample's medcouple is about 1/3 in large samples.
    x = np.random.default_rng(3).standard_exponential(200_001)
    assert medcouple(x) == pytest.approx(1 / 3, abs=0.01)


def test_medcouple_large_n_is_fast_and_exact_on_a_subsample(rng):
    x = rng.lognormal(size=400_000)
    assert -1 < medcouple(x) < 1
    small = x[:1500]
    assert medcouple(small) == pytest.approx(ref.medcouple(small), abs=1e-12)


def test_medcouple_bad_input():
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        medcouple([1.0, np.nan])
    with pytest.raises(ValueError, match="y is empty"):
        medcouple([])


# ------------------------------------------------------------------------------------------------
# Box plots


def test_boxplot_stats_tukey(rng):
    y = np.r_[rng.normal(size=200), 8.0, 9.0, -7.0]
    # The expected quartiles are NumPy's type 7, so that rule is asked for explicitly (the
    # default is Tukey's hinges, tested against R below).
    s = boxplot_stats(y, quartiles="type7")
    q1, med, q3 = np.quantile(y, [0.25, 0.5, 0.75])
    assert (s.q1, s.median, s.q3) == (q1, med, q3)
    assert s.lower_fence == pytest.approx(q1 - 1.5 * (q3 - q1))
    assert s.upper_fence == pytest.approx(q3 + 1.5 * (q3 - q1))
    assert s.n_low_outliers == int((y < s.lower_fence).sum())
    assert s.n_high_outliers == int((y > s.upper_fence).sum())
    inside = y[(y >= s.lower_fence) & (y <= s.upper_fence)]
    assert (s.lower_adjacent, s.upper_adjacent) == (inside.min(), inside.max())
    assert np.isnan(s.medcouple) and not s.adjusted
    assert s.to_dict()["n"] == 203


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_boxplot_stats_adjusted_fences(rng, sign):
    y = sign * rng.lognormal(size=500)
    s = boxplot_stats(y, adjusted=True, coef=2.0)
    mc = ref.medcouple(y)
    assert s.medcouple == pytest.approx(mc, abs=1e-12)
    a, b = (-4, 3) if mc >= 0 else (-3, 4)
    assert s.lower_fence == pytest.approx(s.q1 - 2.0 * np.exp(a * mc) * s.iqr)
    assert s.upper_fence == pytest.approx(s.q3 + 2.0 * np.exp(b * mc) * s.iqr)
    tukey = boxplot_stats(y, coef=2.0)
    # The adjusted box plot flags fewer points in the long tail than Tukey's.
    long_tail = "n_high_outliers" if sign > 0 else "n_low_outliers"
    assert getattr(s, long_tail) < getattr(tukey, long_tail)


def test_boxplot_stats_bad_input():
    with pytest.raises(ValueError, match="coef must be positive"):
        boxplot_stats([1.0, 2.0], coef=0)
    with pytest.raises(ValueError, match="y has 1 observation"):
        boxplot_stats([1.0])


# ------------------------------------------------------------------------------------------------
# relevance_from_boxplot


@pytest.fixture
def high_tailed(rng):
    return np.r_[rng.normal(size=300), 6.0, 7.5]


def test_boxplot_relevance_auto_picks_tails_with_outliers(high_tailed):
    phi = relevance_from_boxplot(high_tailed)
    s = boxplot_stats(high_tailed)
    assert isinstance(phi, SigmoidRelevance)
    assert phi.low_center is None
    assert phi.high_center == s.upper_fence
    assert phi.origin == s.median
    assert phi(s.upper_fence) == pytest.approx(0.5)
    both = relevance_from_boxplot(np.r_[high_tailed, -9.0])
    assert both.low_center is not None and both.high_center is not None
    low = relevance_from_boxplot(-high_tailed)
    assert low.high_center is None and low.low_center == pytest.approx(-s.upper_fence)


def test_boxplot_relevance_is_location_equivariant(high_tailed):
    phi = relevance_from_boxplot(high_tailed)
    shifted = relevance_from_boxplot(high_tailed + 1000.0)
    grid = np.linspace(-5, 10, 101)
    np.testing.assert_allclose(shifted(grid + 1000.0), phi(grid), atol=1e-9)


def test_boxplot_relevance_pchip_matches_notes_formula(high_tailed):
    y = np.r_[high_tailed, -8.0]
    s = boxplot_stats(y)
    phi = relevance_from_boxplot(y, shape="pchip")
    assert isinstance(phi, ControlPointRelevance)
    grid = np.linspace(-10, 10, 401)
    np.testing.assert_allclose(
        phi(grid),
        ref.boxplot_pchip_relevance(grid, s.median, s.lower_fence, s.upper_fence),
        atol=1e-12,
    )
    assert phi(s.median) == 0.0 and phi(s.upper_fence) == 1.0


def test_boxplot_relevance_adjacent_and_adjusted(rng):
    y = rng.lognormal(size=400)
    s = boxplot_stats(y, adjusted=True)
    phi = relevance_from_boxplot(y, adjusted=True, center="adjacent", extremes="high")
    assert phi.high_center == s.upper_adjacent
    assert phi.high_center <= s.upper_fence


def test_no_outliers_warns_and_falls_back_to_both_fences():
    y = np.linspace(-1.0, 1.0, 50)
    with pytest.warns(NoExtremesWarning, match="no box-plot outliers.*Falling back"):
        phi = relevance_from_boxplot(y)
    s = boxplot_stats(y)
    assert (phi.low_center, phi.high_center) == (s.lower_fence, s.upper_fence)
    assert phi(y).max() > 0  # never all zeros
    assert phi(s.upper_fence + 1.0) > 0.5
    with pytest.raises(ValueError, match="no box-plot outliers"):
        relevance_from_boxplot(y, fallback="raise")
    # Choosing the tails explicitly is not a fallback: no warning.
    explicit = relevance_from_boxplot(y, extremes="both")
    assert explicit == phi


def test_boxplot_relevance_degenerate_inputs():
    with pytest.raises(ValueError, match="y is constant"):
        relevance_from_boxplot([2.0, 2.0, 2.0])
    zero_inflated = np.r_[np.zeros(80), np.arange(1.0, 21.0)]
    with pytest.raises(ValueError, match=r"degenerate.*IQR = 0"):
        relevance_from_boxplot(zero_inflated)
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        relevance_from_boxplot([1.0, np.nan, 3.0])


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"extremes": "top"}, "extremes must be"),
        ({"shape": "linear"}, "shape must be"),
        ({"center": "whisker"}, "center must be"),
        ({"fallback": "zeros"}, "fallback must be"),
        ({"coef": -1}, "coef must be positive"),
    ],
)
def test_boxplot_relevance_bad_options(high_tailed, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        relevance_from_boxplot(high_tailed, **kwargs)


def test_control_points_too_close_for_pchip_slopes():
    with pytest.raises(ValueError, match="too close together"):
        ControlPointRelevance([(0.0, 0.0), (1e-300, 1.0), (1.0, 0.0)])


def test_any_callable_is_a_relevance_duck_type():
    """Issue 5 accepts 'a relevance function with an event threshold': phi(y) -> [0, 1]."""
    for phi in (TABLE3_PHI, relevance_from_boxplot(np.r_[np.arange(20.0), 99.0], shape="pchip")):
        out = phi(np.linspace(-100, 100, 11))
        assert out.shape == (11,) and out.dtype == np.float64
        assert ((out >= 0) & (out <= 1)).all()


_BOX_FIELDS = (
    "q1",
    "median",
    "q3",
    "iqr",
    "lower_fence",
    "upper_fence",
    "lower_adjacent",
    "upper_adjacent",
    "medcouple",
)


@given(
    st.lists(st.tuples(st.integers(-30, 30), st.integers(0, 4)), min_size=2, max_size=40),
    st.sampled_from(["hinges", "type7"]),
)
def test_weighted_boxplot_equals_repeated_rows(rows, quartiles):
    y = np.array([float(a) for a, _ in rows])
    w = np.array([float(b) for _, b in rows])
    if w.sum() < 2:
        with pytest.raises(ValueError, match=r"frequencies|sums to zero"):
            boxplot_stats(y, sample_weight=w, adjusted=True, quartiles=quartiles)
        return
    s = boxplot_stats(y, sample_weight=w, adjusted=True, quartiles=quartiles)
    r = boxplot_stats(np.repeat(y, w.astype(int)), adjusted=True, quartiles=quartiles)
    for field in _BOX_FIELDS:
        assert getattr(s, field) == getattr(r, field), field  # bit for bit
    # outliers are counted in rows; their weight is the repeated sample's count
    assert w[y < s.lower_fence].sum() == r.n_low_outliers
    assert w[y > s.upper_fence].sum() == r.n_high_outliers


def test_weighted_boxplot_never_repeats_rows():
    """A weight of 1e13 used to become 1e13 repeated rows (tens of TiB); now it is one number."""
    y = np.array([0.0, 1.0, 5.0, 6.0, 12.0, 28.0])
    w = np.array([1.0, 1.0, 1e13, 1.0, 1.0, 1.0])
    s = boxplot_stats(y, sample_weight=w, adjusted=True)
    assert (s.q1, s.median, s.q3) == (5.0, 5.0, 5.0)
    assert -1.0 <= s.medcouple <= 1.0
    # the other rows are 5 in 1e13 + 5 observations: outside the (zero-width) box
    assert s.n_low_outliers == 2 and s.n_high_outliers == 3
    # With 1e6 copies of the median the kernel weights are still exact: the 1e12 pairs of tied
    # copies split (K^2 - K)/2 at -1, K at 0 and (K^2 - K)/2 at +1; with the 2K pairs at -1 (tie
    # row, below), 3K at +1 (above, tie column) and the 6 others (-2/3, -3/5, 1/6, 3/11, 9/14,
    # 19/27), W(h <= 1/6) is exactly half of (K + 3)(K + 2), so MC = (1/6 + 3/11) / 2.
    w[2] = 1e6
    s = boxplot_stats(y, sample_weight=w, adjusted=True)
    assert s.medcouple == pytest.approx((1 / 6 + 3 / 11) / 2, rel=1e-14)
    phi = relevance_from_boxplot(
        np.r_[y, 7.0], sample_weight=np.r_[1e13, 1e13, 1e13, 1e13, 1e13, 1.0, 1e13]
    )
    assert phi(28.0) == pytest.approx(1.0)


def test_weighted_boxplot_non_integer_weights_take_the_same_path(rng):
    # Half weights on a doubled sample describe the sample itself: blocks (0, 1], (1, 2], ...
    y = rng.lognormal(size=41)
    doubled = np.repeat(y, 2)
    for quartiles in ("hinges", "type7"):
        a = boxplot_stats(doubled, sample_weight=np.full(82, 0.5), quartiles=quartiles)
        b = boxplot_stats(y, quartiles=quartiles)
        assert [getattr(a, f) for f in _BOX_FIELDS[:-1]] == [
            getattr(b, f) for f in _BOX_FIELDS[:-1]
        ]
    a = boxplot_stats(doubled, sample_weight=np.full(82, 0.5), adjusted=True)
    b = boxplot_stats(y, adjusted=True)
    assert a.medcouple == pytest.approx(b.medcouple, abs=1e-15)
    # 1.5 and 0.5 on the rows of [a, b, c, d] describe [a, a, b, c, c, d] less a half of each
    # of b and d: the k-th value is the row whose cumulative block holds k
    s = boxplot_stats([1.0, 2.0, 3.0, 4.0], sample_weight=[1.5, 0.5, 1.5, 0.5])
    # W = 4: depths 1.5, 2.5, 3.5 -> (x(1) + x(2))/2 = 1, (x(2) + x(3))/2 = 2, (x(3) + x(4))/2
    # with x(1) = 1 (block (0, 1.5]), x(2) = 2 ((1.5, 2]), x(3) = 3, x(4) = 4 ((3.5, 4])
    assert (s.q1, s.median, s.q3) == (1.5, 2.5, 3.5)
    # A zero weight drops the row.
    w = rng.uniform(0.5, 2.0, size=41)
    w[[3, 17]] = 0.0
    keep = w > 0
    a = boxplot_stats(y, sample_weight=w, adjusted=True)
    b = boxplot_stats(y[keep], sample_weight=w[keep], adjusted=True)
    assert [getattr(a, f) for f in _BOX_FIELDS] == [getattr(b, f) for f in _BOX_FIELDS]


def test_weighted_boxplot_needs_two_observations_worth_of_weight():
    y = np.arange(10.0)
    with pytest.raises(ValueError, match=r"sum to 1, less than the two observations"):
        boxplot_stats(y, sample_weight=np.full(10, 0.1))
    with pytest.raises(ValueError, match="multiplied by the number of rows"):
        relevance_from_boxplot(y, sample_weight=np.full(10, 0.1))
    with pytest.raises(ValueError, match="sample_weight has length 3"):
        boxplot_stats(y, sample_weight=[1.0, 2.0, 3.0])


# ------------------------------------------------------------------------------------------------
# Parity with R: fivenum / boxplot.stats (Tukey's hinges) and robustbase::adjboxStats. Every value
# is derived by hand from R's definitions: fivenum takes n4 = floor((n + 3) / 2) / 2, the depths
# d = (1, n4, (n + 1) / 2, n + 1 - n4, n) and 0.5 * (x[floor(d)] + x[ceiling(d)]); boxplot.stats
# flags x < hinge_L - 1.5 IQR or x > hinge_U + 1.5 IQR and reports the range of the rest.


@pytest.mark.parametrize(
    ("y", "fivenum", "stats", "out"),
    [
        # fivenum(c(0, 1, 5, 6, 12, 28)) = 0 1 5.5 12 28 (n4 = 2, d = 1 2 3.5 5 6);
        # boxplot.stats(c(0, 1, 5, 6, 12, 28)): fences -15.5 and 28.5, $out = numeric(0)
        ([0, 1, 5, 6, 12, 28], (0, 1, 5.5, 12, 28), (0, 1, 5.5, 12, 28), []),
        # fivenum(c(1:9, 100)) = 1 3 5.5 8 100 (n4 = 3, d = 1 3 5.5 8 10);
        # boxplot.stats(c(1:9, 100))$stats = 1 3 5.5 8 9, $out = 100 (upper fence 15.5)
        (
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 100],
            (1, 3, 5.5, 8, 100),
            (1, 3, 5.5, 8, 9),
            [100],
        ),
        # fivenum(c(2, 3, 3, 4, 7, 9, 20)) = 2 3 4 8 20 (n4 = 2.5, d = 1 2.5 4 5.5 7);
        # boxplot.stats(...)$stats = 2 3 4 8 9, $out = 20 (upper fence 15.5)
        ([2, 3, 3, 4, 7, 9, 20], (2, 3, 4, 8, 20), (2, 3, 4, 8, 9), [20]),
        # fivenum(c(-10, 0:5, 30)) = -10 0.5 2.5 4.5 30 (n4 = 2.5, d = 1 2.5 4.5 6.5 8);
        # boxplot.stats(...)$stats = 0 0.5 2.5 4.5 5, $out = -10 30 (fences -5.5, 10.5)
        (
            [-10, 0, 1, 2, 3, 4, 5, 30],
            (-10, 0.5, 2.5, 4.5, 30),
            (0, 0.5, 2.5, 4.5, 5),
            [-10, 30],
        ),
        # fivenum(c(1, 2, 4, 8, 16)) = 1 2 4 8 16 (n4 = 2, d = 1 2 3 4 5); no outlier (fence 17)
        ([1, 2, 4, 8, 16], (1, 2, 4, 8, 16), (1, 2, 4, 8, 16), []),
        # fivenum(c(3, 1)) = 1 1 2 3 3 (n4 = 1, d = 1 1 1.5 2 2)
        ([3, 1], (1, 1, 2, 3, 3), (1, 1, 2, 3, 3), []),
    ],
)
def test_boxplot_stats_match_r_fivenum_and_boxplot_stats(y, fivenum, stats, out):
    s = boxplot_stats(y)
    y = np.asarray(y, dtype=float)
    assert (y.min(), s.q1, s.median, s.q3, y.max()) == fivenum
    assert (s.lower_adjacent, s.q1, s.median, s.q3, s.upper_adjacent) == stats
    assert sorted(y[(y < s.lower_fence) | (y > s.upper_fence)].tolist()) == out
    assert s.n_low_outliers + s.n_high_outliers == len(out)


def test_hinges_are_the_default_and_type7_the_option():
    y = [0, 1, 5, 6, 12, 28]
    # R: boxplot.stats(c(0, 1, 5, 6, 12, 28))$out is empty; type-7 quartiles (2, 10.5) put the
    # upper fence at 10.5 + 1.5 * 8.5 = 23.25 and flag 28.
    assert boxplot_stats(y).n_high_outliers == 0
    t7 = boxplot_stats(y, quartiles="type7")
    assert (t7.q1, t7.q3, t7.upper_fence, t7.n_high_outliers) == (2.0, 10.5, 23.25, 1)
    # The relevance follows: no outlier, so "auto" falls back to both fences (R finds none).
    with pytest.warns(NoExtremesWarning):
        phi = relevance_from_boxplot(y)
    assert phi.high_center == 28.5
    phi7 = relevance_from_boxplot(y, quartiles="type7")
    assert phi7.high_center == 23.25 and phi7.low_center is None
    with pytest.raises(ValueError, match="quartiles must be 'hinges' or 'type7'"):
        boxplot_stats(y, quartiles="tukey")
    with pytest.raises(ValueError, match="quartiles must be"):
        relevance_from_boxplot(y, quartiles=7)


def test_adjusted_fences_use_the_hinges_as_robustbase_adjboxstats():
    # robustbase::mc(c(0, 1, 5, 6, 12, 28)) = 2/11: with median 5.5 the 9 kernel values
    # (a + b) / (a - b), a in {22.5, 6.5, 0.5}, b in {-0.5, -4.5, -5.5}, sorted, are
    # -5/6 -4/5 0 1/12 2/11 17/28 2/3 6/7 22/23, and the 5th is 2/11.
    # robustbase::adjboxStats(c(0, 1, 5, 6, 12, 28))$fence
    #   = c(1 - 1.5 * exp(-4 * 2/11) * 11, 12 + 1.5 * exp(3 * 2/11) * 11)
    s = boxplot_stats([0, 1, 5, 6, 12, 28], adjusted=True)
    mc = 2 / 11
    assert s.medcouple == pytest.approx(mc, rel=1e-15)
    assert (s.q1, s.q3) == (1.0, 12.0)
    assert s.lower_fence == pytest.approx(1 - 1.5 * np.exp(-4 * mc) * 11, rel=1e-15)
    assert s.upper_fence == pytest.approx(12 + 1.5 * np.exp(3 * mc) * 11, rel=1e-15)
    assert s.n_low_outliers == s.n_high_outliers == 0
