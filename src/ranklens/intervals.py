"""Scores for prediction intervals (Payne, Li & Qin 2016; Gneiting & Raftery 2007).

The interval score of Gneiting & Raftery (2007, eq. 43) for a central (1 - alpha) interval [l, u]::

    S_alpha(l, u; y) = (u - l) + (2/alpha) (l - y) 1{y < l} + (2/alpha) (y - u) 1{y > u}

is proper (its expectation is minimised by the true alpha/2 and 1 - alpha/2 quantiles) but not
strictly proper. Around it: empirical coverage and width, the weighted interval score
over several levels (Bracher, Ray, Gneiting & Reich 2021), a scale-consistent PRMSPE (the printed
one is not),
and plot data (intervals ordered by prediction, coverage by prediction decile).

Crossed bounds (``lower > upper``) are an error, never swapped silently: a model that crosses its
own quantiles has a defect the user must see.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import numpy as np

from ranklens._foundation.curve_registry import register_curve
from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.forms import SumsForm
from ranklens._foundation.normal import ndtri
from ranklens._foundation.registry import register_metric
from ranklens._foundation.results import CurveResult, Result
from ranklens._foundation.scaling import binary_exponent as _binary_exponent
from ranklens._foundation.scaling import ldexp as _ldexp
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    as_2d_float,
    check_aligned,
    check_pair,
    check_positive_int,
    check_probability,
    check_sample_weight,
    check_sample_weight_scaled,
)
from ranklens.exceptions import RanklensWarning, warn_undefined

__all__ = [
    "CoverageByBinResult",
    "CoverageLevelWarning",
    "IntervalScoreResult",
    "OrderedIntervalsResult",
    "interval_coverage",
    "interval_coverage_by_bin",
    "interval_coverage_error",
    "interval_score",
    "interval_score_decomposition",
    "interval_score_per_observation",
    "intervals_by_prediction",
    "mean_interval_width",
    "weighted_interval_score",
    "weighted_interval_score_decomposition",
    "weighted_interval_score_from_quantiles",
]


# --------------------------------------------------------------------------------------------
# validation


def _check_bounds_order(lower: np.ndarray, upper: np.ndarray, names: tuple[str, str]) -> None:
    crossed = lower > upper
    if crossed.any():
        where = np.argwhere(crossed)[0]
        pos = ", ".join(str(int(v)) for v in where)
        lo, up = float(lower[tuple(where)]), float(upper[tuple(where)])
        raise ValueError(
            f"{names[0]} must not exceed {names[1]}; got {names[0]}={lo!r} > {names[1]}={up!r} "
            f"at position {pos} ({int(crossed.sum())} crossed interval(s) in all). Bounds are "
            "never swapped silently: fix the interval model (e.g. sort its quantile predictions)"
        )


def _check_intervals(
    y_true: Any, lower: Any, upper: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    check_aligned(stacklevel=4, y_true=y_true, lower=lower, upper=upper)
    y = as_1d_float(y_true, "y_true")
    lo = as_1d_float(lower, "lower")
    up = as_1d_float(upper, "upper")
    for name, arr in (("lower", lo), ("upper", up)):
        if arr.shape[0] != y.shape[0]:
            raise ValueError(
                f"y_true and {name} must have the same length; got {y.shape[0]} and {arr.shape[0]}"
            )
    _check_bounds_order(lo, up, ("lower", "upper"))
    return y, lo, up


def _check_alpha(alpha: Any) -> float:
    if alpha is None:
        raise ValueError("alpha is required: the intervals are central (1 - alpha) intervals")
    return check_probability(alpha, "alpha")


class CoverageLevelWarning(RanklensWarning):
    """The observed coverage is far above ``1 - alpha``: ``alpha`` may be the coverage level.

    ``alpha`` is the nominal miss rate of a central interval (0.2 for an 80% interval); passing
    the coverage (0.8) instead makes the interval score weigh misses by 2/0.8 instead of 2/0.2.
    """


#: The rule of :func:`_warn_if_alpha_looks_like_coverage`: at least this many rows, and an
#: observed coverage above ``1 - alpha`` by more than this margin.
_COVERAGE_CHECK_MIN_N = 20
_COVERAGE_CHECK_MARGIN = 0.3


def _warn_if_alpha_looks_like_coverage(
    coverage: float, alpha: float, n: int, *, stacklevel: int = 3
) -> None:
    """Warn when ``alpha`` is probably the coverage level rather than the miss rate.

    The rule: ``alpha > 0.5`` (a nominal coverage below one half, which intervals rarely have),
    ``n >= 20`` rows and an observed coverage above ``1 - alpha + 0.3``. Under the nominal
    level the coverage of n rows has standard deviation ``sqrt(alpha (1 - alpha) / n) <= 0.112``
    for n >= 20, so the margin is at least 2.7 of them: with the miss rate given correctly the
    warning is rare, and with the coverage given instead (alpha = 0.8 for intervals covering
    about 80%) it fires. Poorly calibrated intervals at an ordinary level (alpha <= 0.5) never
    trigger it: that is what :func:`interval_coverage_error` reports.
    """
    if (
        alpha > 0.5
        and n >= _COVERAGE_CHECK_MIN_N
        and coverage > 1.0 - alpha + _COVERAGE_CHECK_MARGIN
    ):
        warnings.warn(
            f"alpha={alpha:g} asks for central {1 - alpha:.0%} intervals, but {coverage:.0%} of "
            f"the {n} observations fall inside them. alpha is the miss rate, not the coverage: "
            f"an 80% interval has alpha=0.2 (did you mean alpha={1 - alpha:g}?)",
            CoverageLevelWarning,
            stacklevel=stacklevel,
        )


@dataclasses.dataclass(frozen=True)
class _Scale:
    """How the kernel scales: inputs times ``pre``, differences times ``post * post2``.

    The sums it returns are the true sums times ``2**-exponent``; scaling by a power of two near
    the largest deviation keeps widths and penalties of any magnitude (1e300 or 1e-300) from
    overflowing or underflowing on the way to a representable mean.
    """

    pre: float
    post: float
    post2: float
    exponent: int

    @classmethod
    def of(cls, y: np.ndarray, pairs: list[tuple[np.ndarray, np.ndarray]]) -> _Scale:
        from ranklens._compute.kernels import (
            intervals as _ki,  # imports numba on the first kernel call
        )

        big = max(_ki.interval_max_deviation(y, lo, up, 1.0) for lo, up in pairs)
        pre, shift = 1.0, 0
        if not math.isfinite(big):
            # a width or penalty beyond the largest float: halve the inputs (exact) first
            pre, shift = 0.5, 1
            big = max(_ki.interval_max_deviation(y, lo, up, 0.5) for lo, up in pairs)
        e = _binary_exponent(big)
        # 2**-e in two halves: each stays a normal float even for e near -1074 or 1024
        half = -e // 2
        return cls(pre, math.ldexp(1.0, half), math.ldexp(1.0, -e - half), e + shift)

    def unscale(self, value: float) -> float:
        return _ldexp(value, self.exponent)


def _sums(
    y: np.ndarray,
    lo: np.ndarray,
    up: np.ndarray,
    w: np.ndarray | None,
    scale: _Scale | None = None,
) -> tuple[float, float, float, float, float, _Scale]:
    """(total weight, width, below, above, weight inside) with the sums in ``scale``'s units."""
    from ranklens._compute.kernels import intervals as _ki  # imports numba on the first kernel call

    if scale is None:
        scale = _Scale.of(y, [(lo, up)])
    weighted = w is not None
    sums = _ki.interval_sums(
        y, lo, up, w if w is not None else y, weighted, scale.pre, scale.post, scale.post2
    )
    return (*sums, scale)


# --------------------------------------------------------------------------------------------
# The measures as sums (ranklens._foundation.forms.SumsForm): per row the weight, the width, the
# misses below and above and the inside indicator, added up by an engine that holds the data in
# pieces, then finished as below.


def _interval_terms(y: np.ndarray, lo: np.ndarray, up: np.ndarray, **params: Any) -> np.ndarray:
    del params
    _check_bounds_order(lo, up, ("lower", "upper"))
    return np.stack(
        [
            np.ones_like(y),
            up - lo,
            np.maximum(lo - y, 0.0),
            np.maximum(y - up, 0.0),
            ((lo <= y) & (y <= up)).astype(np.float64),
        ]
    )


def _score_finalize(sums: Any, n: int, *, alpha: float) -> float:
    a = _check_alpha(alpha)
    total, width, below, above, inside = (float(v) for v in sums)
    _warn_if_alpha_looks_like_coverage(inside / total, a, n)
    return width / total + (2.0 / a) * ((below + above) / total)


def _coverage_finalize(sums: Any, n: int, *, alpha: float | None = None) -> float:
    del n
    if alpha is not None:
        _check_alpha(alpha)
    return float(sums[4] / sums[0])


def _coverage_error_finalize(sums: Any, n: int, *, alpha: float) -> float:
    a = _check_alpha(alpha)
    coverage = float(sums[4] / sums[0])
    _warn_if_alpha_looks_like_coverage(coverage, a, n)
    return abs(coverage - (1.0 - a))


def _width_finalize(sums: Any, n: int, **params: Any) -> float:
    del n, params
    return float(sums[1] / sums[0])


def _wis_finalize(sums: Any, n: int, *, alpha: Any) -> float:
    """The weighted interval score of one central interval without a median (one level)."""
    levels = _check_levels(alpha)
    if levels.size != 1:
        raise ValueError(
            f"lower has 1 column(s) but alpha has {levels.size} level(s); "
            "column j must be the central 1 - alpha[j] interval"
        )
    a = float(levels[0])
    total, width, below, above, inside = (float(v) for v in sums)
    _warn_if_alpha_looks_like_coverage(inside / total, a, n)
    return (0.5 * a * width + below + above) / total


def _interval_form(finalize: Any, params: tuple[str, ...] = ("alpha",)) -> SumsForm:
    return SumsForm(terms=_interval_terms, finalize=finalize, params=params)


# --------------------------------------------------------------------------------------------
# the interval score


@dataclasses.dataclass(frozen=True, repr=False)
class IntervalScoreResult(Result):
    """An interval score and its decomposition (Bracher et al. 2021, Sect. 2.2).

    ``score = dispersion + penalty_below + penalty_above``, each a (weighted) mean over
    observations.

    Attributes
    ----------
    score : float
        Mean interval score (single level) or weighted interval score (several levels).
    dispersion : float
        The width part: mean ``u - l`` (single level) or its WIS-weighted version.
    penalty_below : float
        Part from observations below the lower bound (the forecast was too high, "overprediction").
    penalty_above : float
        Part from observations above the upper bound (the forecast was too low, "underprediction").
    coverage : numpy.ndarray
        Empirical coverage of each interval level (inclusive bounds), in the order of ``alpha``.
    alpha : numpy.ndarray
        The levels: column j is a central ``1 - alpha[j]`` interval.
    per_observation : numpy.ndarray
        The score of each observation.
    """

    score: float
    dispersion: float
    penalty_below: float
    penalty_above: float
    coverage: np.ndarray
    alpha: np.ndarray
    per_observation: np.ndarray


@register_metric(
    "interval_score",
    plain_name="interval score",
    meaning="Interval width plus a penalty for every miss (lower is better).",
    higher_is_better=False,
    family="intervals",
    inputs="interval",
    sums=_interval_form(_score_finalize),
)
@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def interval_score(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: float,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean interval score of central (1 - alpha) prediction intervals (lower is better).

    Parameters
    ----------
    y_true, lower, upper : array-like of shape (n,)
        Observations and the bounds of their prediction intervals (``lower <= upper``; crossed
        bounds raise a ``ValueError`` naming the first offending position).
    alpha : float in (0, 1)
        Nominal miss rate: ``[lower, upper]`` is a central ``1 - alpha`` interval.
    %(sample_weight)s

    Returns
    -------
    float
        The mean score; widths and penalties are summed after scaling by a power of two, so the
        mean is returned whenever it is a float (bounds of 1e300 or 1e-300 included).

    Raises
    ------
    %(input_errors)s

    Warns
    -----
    CoverageLevelWarning
        When ``alpha > 0.5``, there are at least 20 rows and the observed coverage exceeds
        ``1 - alpha`` by more than 0.3: ``alpha`` then looks like the coverage level (0.8) given
        where the miss rate (0.2) was meant. Under the nominal level the coverage of n >= 20
        rows has a standard deviation of at most 0.112, so the margin is 2.7 of them or more.

    Notes
    -----
    ``S = (u - l) + (2/alpha)(l - y) 1{y < l} + (2/alpha)(y - u) 1{y > u}`` (Gneiting & Raftery
    2007, eq. 43; Payne, Li & Qin 2016, "Penalized RMSPE"), averaged with ``sample_weight``. The
    score is in the units of ``y``; it is proper: its expectation is minimised by the true
    ``alpha/2`` and ``1 - alpha/2`` quantiles. Despite the ``_score`` name it is a loss.

    The score is proper but not strictly proper: any point between two quantiles of a
    discrete predictive distribution scores the same. Payne et al. (2016) call it strictly proper;
    ranklens follows Gneiting & Raftery (2007).

    References
    ----------
    %(gneiting2007)s

    Examples
    --------
    >>> interval_score([1.0, 5.0], [0.0, 0.0], [2.0, 2.0], alpha=0.2)
    17.0

    The first interval covers (score = width 2); the second misses by 3: 2 + 2/0.2 * 3 = 32.
    """
    y, lo, up = _check_intervals(y_true, lower, upper)
    a = _check_alpha(alpha)
    w = check_sample_weight(sample_weight, y.shape[0])
    total_w, width, below, above, inside, scale = _sums(y, lo, up, w)
    _warn_if_alpha_looks_like_coverage(inside / total_w, a, y.shape[0])
    return scale.unscale(width / total_w + (2.0 / a) * ((below + above) / total_w))


@raises_input_errors("y_true", "lower", "upper", weights=False)
@shared_paragraphs
def interval_score_per_observation(
    y_true: ArrayLike, lower: ArrayLike, upper: ArrayLike, *, alpha: float
) -> np.ndarray:
    """The interval score of each observation (see :func:`interval_score`), shape (n,).

    Parameters
    ----------
    %(interval_y_true)s
    %(interval_bounds)s
    %(interval_alpha)s

    Returns
    -------
    ndarray of shape (n,)
        The interval score of each observation.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    S_i = (u_i - l_i) + (2/alpha)(l_i - y_i) 1{y_i < l_i} + (2/alpha)(y_i - u_i) 1{y_i > u_i}.

    References
    ----------
    %(gneiting2007)s
    """
    y, lo, up = _check_intervals(y_true, lower, upper)
    a = _check_alpha(alpha)
    return _per_observation(y, lo, up, a)


def _per_observation(y: np.ndarray, lo: np.ndarray, up: np.ndarray, a: float) -> np.ndarray:
    # inf only where the observation's own score exceeds the largest float
    with np.errstate(over="ignore"):
        return (up - lo) + (2.0 / a) * (np.maximum(lo - y, 0.0) + np.maximum(y - up, 0.0))


@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def interval_score_decomposition(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: float,
    sample_weight: ArrayLike | None = None,
) -> IntervalScoreResult:
    """Mean interval score split into width, penalty below and penalty above, with coverage.

    Parameters
    ----------
    %(interval_y_true)s
    %(interval_bounds)s
    %(interval_alpha)s
    %(sample_weight)s

    Returns
    -------
    IntervalScoreResult
        The mean score, its width and the two penalty parts, and the coverage.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``score = mean(u - l) + (2/alpha) mean((l - y)_+) + (2/alpha) mean((y - u)_+)``; see
    :func:`interval_score` (Payne, Li & Qin 2016; Gneiting & Raftery 2007).

    References
    ----------
    %(gneiting2007)s

    %(payne2016)s
    """
    y, lo, up = _check_intervals(y_true, lower, upper)
    a = _check_alpha(alpha)
    w = check_sample_weight(sample_weight, y.shape[0])
    total_w, width, below, above, inside, scale = _sums(y, lo, up, w)
    _warn_if_alpha_looks_like_coverage(inside / total_w, a, y.shape[0])
    return IntervalScoreResult(
        score=scale.unscale(width / total_w + (2.0 / a) * ((below + above) / total_w)),
        dispersion=scale.unscale(width / total_w),
        penalty_below=scale.unscale((2.0 / a) * (below / total_w)),
        penalty_above=scale.unscale((2.0 / a) * (above / total_w)),
        coverage=np.array([inside / total_w]),
        alpha=np.array([a]),
        per_observation=_per_observation(y, lo, up, a),
    )


# --------------------------------------------------------------------------------------------
# coverage and width


def _nominal_coverage(params: Any) -> float:
    """The target of :func:`interval_coverage`: the nominal coverage ``1 - alpha``."""
    return 1.0 - float(params["alpha"])


@register_metric(
    "interval_coverage",
    plain_name="share of true values inside the interval",
    meaning="Share of true values inside the interval; best close to the nominal level.",
    direction="target",
    target=_nominal_coverage,
    family="intervals",
    inputs="interval",
    description=(
        "Fraction of y_true inside [lower, upper]; best closest to the nominal 1 - alpha "
        "(the distance is interval_coverage_error)"
    ),
    sums=_interval_form(_coverage_finalize),
)
@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def interval_coverage(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: float | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Empirical coverage: the (weighted) fraction of observations with ``lower <= y <= upper``.

    Parameters
    ----------
    %(interval_y_true)s
    %(interval_bounds)s
    %(interval_alpha_unused)s
    %(sample_weight)s

    Returns
    -------
    float
        Fraction of observations inside their interval, in [0, 1]; judged by its distance to
        ``1 - alpha``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``(1/n) sum 1{l_i <= y_i <= u_i}`` (Payne, Li & Qin 2016, "the empirical coverage
    proportion"). Bounds are inclusive, matching the interval score (no penalty on the boundary).
    ``alpha`` is accepted for the common signature of interval measures and only validated; the
    nominal coverage is ``1 - alpha``. More coverage is not always better (an infinitely wide
    interval covers everything): the measure is registered with ``direction="target"``, the best
    value being the one closest to ``1 - alpha`` (the distance ``|coverage - (1 - alpha)|`` is
    :func:`interval_coverage_error`); read it with :func:`mean_interval_width`.

    References
    ----------
    %(payne2016)s

    %(gneiting2007)s
    """
    y, lo, up = _check_intervals(y_true, lower, upper)
    if alpha is not None:
        _check_alpha(alpha)
    w = check_sample_weight(sample_weight, y.shape[0])
    total_w, _, _, _, inside, _ = _sums(y, lo, up, w)
    return float(inside / total_w)


@register_metric(
    "interval_coverage_error",
    plain_name="coverage error",
    meaning="Distance between the actual and the promised coverage.",
    higher_is_better=False,
    family="intervals",
    inputs="interval",
    sums=_interval_form(_coverage_error_finalize),
)
@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def interval_coverage_error(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: float,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Absolute gap between empirical coverage and the nominal ``1 - alpha`` (lower is better).

    Parameters
    ----------
    %(interval_y_true)s
    %(interval_bounds)s
    %(interval_alpha)s
    %(sample_weight)s

    Returns
    -------
    float
        ``|coverage - (1 - alpha)|`` in [0, 1]; lower is better.

    Raises
    ------
    %(input_errors)s

    Warns
    -----
    CoverageLevelWarning
        When ``alpha > 0.5``, n >= 20 and the coverage exceeds ``1 - alpha`` by more than 0.3:
        ``alpha`` is then most likely the coverage level (0.8) where the miss rate (0.2) was
        meant (see :func:`interval_score`).

    Notes
    -----
    ``|coverage - (1 - alpha)|``; see :func:`interval_coverage`.

    References
    ----------
    %(gneiting2007)s
    """
    a = _check_alpha(alpha)
    y, lo, up = _check_intervals(y_true, lower, upper)
    w = check_sample_weight(sample_weight, y.shape[0])
    total_w, _, _, _, inside, _ = _sums(y, lo, up, w)
    coverage = float(inside / total_w)
    _warn_if_alpha_looks_like_coverage(coverage, a, y.shape[0])
    return abs(coverage - (1.0 - a))


@register_metric(
    "mean_interval_width",
    plain_name="average interval width",
    meaning="Average width of the intervals (describes; not ranked by itself).",
    direction="neutral",
    family="intervals",
    inputs="interval",
    sums=_interval_form(_width_finalize),
)
@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def mean_interval_width(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: float | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean width ``u - l`` of the intervals, the Lebesgue measure of Payne et al. (not ranked).

    Parameters
    ----------
    %(interval_y_true)s
    %(interval_bounds)s
    %(interval_alpha_unused)s
    %(sample_weight)s

    Returns
    -------
    float
        The weighted mean of ``upper - lower``, in the units of ``y``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``y_true`` is checked for length only and ``alpha`` only validated; both are taken for the
    common signature of interval measures. Width alone rewards useless narrow intervals (a
    narrower interval is better only at the same coverage), so the measure is registered with
    ``direction="neutral"``: reports show it and never call a value best. Read it with
    :func:`interval_coverage`, or use :func:`interval_score`, which balances the two.

    mean_w(u_i - l_i).

    References
    ----------
    %(payne2016)s
    """
    y, lo, up = _check_intervals(y_true, lower, upper)
    if alpha is not None:
        _check_alpha(alpha)
    w = check_sample_weight(sample_weight, y.shape[0])
    total_w, width, _, _, _, scale = _sums(y, lo, up, w)
    return scale.unscale(width / total_w)


# --------------------------------------------------------------------------------------------
# weighted interval score over several levels


def _check_levels(alpha: Any) -> np.ndarray:
    if alpha is None:
        raise ValueError("alpha is required: one level per interval column")
    levels = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    if levels.ndim != 1 or levels.size == 0:
        raise ValueError(f"alpha must be a number or a 1-D sequence of numbers; got {alpha!r}")
    for value in levels:
        check_probability(value, "alpha")
    if np.unique(levels).size != levels.size:
        raise ValueError(f"alpha must not repeat a level; got {levels.tolist()}")
    return levels


def _wis_parts(
    y_true: Any, lower: Any, upper: Any, alpha: Any, median: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    y = as_1d_float(y_true, "y_true")
    n = y.shape[0]
    levels = _check_levels(alpha)
    lo = as_2d_float(lower, "lower", n_rows=n)
    up = as_2d_float(upper, "upper", n_rows=n)
    for name, arr in (("lower", lo), ("upper", up)):
        if arr.shape[1] != levels.size:
            raise ValueError(
                f"{name} has {arr.shape[1]} column(s) but alpha has {levels.size} level(s); "
                "column j must be the central 1 - alpha[j] interval"
            )
    _check_bounds_order(lo, up, ("lower", "upper"))
    lo, up = np.asfortranarray(lo), np.asfortranarray(up)  # contiguous columns for the kernel
    m = None if median is None else as_1d_float(median, "median")
    if m is not None and m.shape[0] != n:
        raise ValueError(f"y_true and median must have the same length; got {n} and {m.shape[0]}")
    w = check_sample_weight(sample_weight, n)
    return y, lo, up, levels, m, w


def _wis_decompose(
    y: np.ndarray,
    lo: np.ndarray,
    up: np.ndarray,
    levels: np.ndarray,
    m: np.ndarray | None,
    w: np.ndarray | None,
    per_observation: bool,
) -> IntervalScoreResult:
    # WIS = 1/(K + w0) [w0 |y - m| + sum_k (alpha_k / 2) IS_k], w0 = 1/2 with a median, else 0.
    # (alpha_k / 2) IS_k = (alpha_k / 2)(u_k - l_k) + (l_k - y)_+ + (y - u_k)_+.
    k_levels = levels.size
    norm = k_levels + (0.5 if m is not None else 0.0)
    dispersion = below = above = 0.0
    coverage = np.empty(k_levels)
    total_w = 0.0
    # one scale for every level and the median, so that their sums add up
    pairs = [(lo[:, j], up[:, j]) for j in range(k_levels)] + ([] if m is None else [(m, m)])
    units = _Scale.of(y, pairs)
    for j, a in enumerate(levels):
        total_w, width, b, ab, inside, _ = _sums(y, lo[:, j], up[:, j], w, units)
        dispersion += 0.5 * a * width
        below += b
        above += ab
        coverage[j] = inside / total_w
    if m is not None:
        # 0.5 |y - m| = 0.5 (m - y)_+ + 0.5 (y - m)_+: the median is a zero-width interval.
        _, _, b, ab, _, _ = _sums(y, m, m, w, units)
        below += 0.5 * b
        above += 0.5 * ab
    if k_levels == 1 and m is None:
        # the single-level use is alpha/2 times the interval score: the same check applies
        _warn_if_alpha_looks_like_coverage(
            float(coverage[0]), float(levels[0]), y.shape[0], stacklevel=4
        )
    scale = 1.0 / (norm * total_w)
    per_obs = np.empty(0)
    if per_observation:
        per_obs = np.zeros(y.shape[0])
        for j, a in enumerate(levels):
            per_obs += 0.5 * a * _per_observation(y, lo[:, j], up[:, j], a)
        if m is not None:
            per_obs += 0.5 * np.abs(y - m)
        per_obs /= norm
    return IntervalScoreResult(
        score=units.unscale((dispersion + below + above) * scale),
        dispersion=units.unscale(dispersion * scale),
        penalty_below=units.unscale(below * scale),
        penalty_above=units.unscale(above * scale),
        coverage=coverage,
        alpha=levels,
        per_observation=per_obs,
    )


@register_metric(
    "weighted_interval_score",
    plain_name="weighted interval score",
    meaning="Interval score averaged over several interval levels.",
    higher_is_better=False,
    family="intervals",
    inputs="interval",
    sums=_interval_form(_wis_finalize),
)
@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def weighted_interval_score(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: Any,
    median: Any = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Weighted interval score over K central intervals and the median (Bracher et al. 2021).

    Parameters
    ----------
    y_true : array-like of shape (n,)
    lower, upper : array-like of shape (n, K) or (n,)
        Column j holds the bounds of the central ``1 - alpha[j]`` interval (the ``alpha[j]/2`` and
        ``1 - alpha[j]/2`` predictive quantiles). DataFrames work (one column per level).
    alpha : float or sequence of K floats in (0, 1)
        The levels, distinct.
    median : array-like of shape (n,), optional
        The predictive median.
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    float

    Raises
    ------
    %(input_errors)s

    See Also
    --------
    weighted_interval_score_from_quantiles : the same score from a matrix of predictive quantiles.

    Notes
    -----
    ``WIS = 1/(K + 1/2) * (1/2 |y - m| + sum_k (alpha_k/2) IS_{alpha_k}(l_k, u_k; y))``, averaged
    over observations with ``sample_weight`` (lower is better). It equals twice the mean pinball
    loss over the 2K + 1 quantile levels and approximates the CRPS as K grows.

    Without a median the median term is dropped and the normaliser is K (twice the mean pinball
    loss over the 2K levels given); with one level and no median this is ``alpha/2`` times the
    interval score, which keeps the signature shared by interval measures usable.

    References
    ----------
    %(bracher2021)s

    %(gneiting2007)s
    """
    y, lo, up, levels, m, w = _wis_parts(y_true, lower, upper, alpha, median, sample_weight)
    return _wis_decompose(y, lo, up, levels, m, w, per_observation=False).score


@raises_input_errors("y_true", "lower", "upper")
@shared_paragraphs
def weighted_interval_score_decomposition(
    y_true: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: Any,
    median: Any = None,
    sample_weight: ArrayLike | None = None,
) -> IntervalScoreResult:
    """The weighted interval score with its dispersion / penalty parts, coverage per level and the
    score of each observation (Bracher et al. 2021, Sect. 2.2); see
    :func:`weighted_interval_score`.

    Parameters
    ----------
    %(interval_y_true)s
    lower, upper : array-like of shape (n, K)
        Bounds of the K central intervals (one column per level).
    alpha : array-like of shape (K,)
        The miss rate of each interval.
    median : array-like of shape (n,), optional
        The predictive median; without it the median term is dropped.
    %(sample_weight)s

    Returns
    -------
    IntervalScoreResult
        The score, its dispersion and penalty parts, coverage per level and per-observation scores.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    WIS = 1/(K + 1/2) (1/2 |y - m| + sum_k (alpha_k / 2) IS_{alpha_k}(l_k, u_k; y)).

    References
    ----------
    %(bracher2021)s
    """
    y, lo, up, levels, m, w = _wis_parts(y_true, lower, upper, alpha, median, sample_weight)
    return _wis_decompose(y, lo, up, levels, m, w, per_observation=True)


@raises_input_errors("y_true", "quantiles", probabilities=("levels",))
@shared_paragraphs
def weighted_interval_score_from_quantiles(
    y_true: ArrayLike, quantiles: ArrayLike, *, levels: Any, sample_weight: ArrayLike | None = None
) -> float:
    """Weighted interval score from predictive quantiles (e.g. a quantile regression's output).

    Parameters
    ----------
    %(interval_y_true)s
    quantiles : array-like of shape (n, L)
        Predictive quantiles, one column per level.
    levels : array-like of shape (L,)
        The quantile levels: pairs ``tau, 1 - tau`` with ``tau < 0.5``, plus optionally 0.5.
    %(sample_weight)s

    Returns
    -------
    float
        The weighted interval score; lower is better.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``quantiles[:, j]`` is the predictive ``levels[j]`` quantile. The levels must form central
    intervals: each ``tau < 0.5`` paired with ``1 - tau`` (alpha = 2 tau), plus optionally 0.5,
    the median. Equals ``2 / (number of levels) * sum_j pinball_{tau_j}`` (Bracher et al. 2021);
    for unpaired levels use ``sklearn.metrics.mean_pinball_loss`` per level instead.

    References
    ----------
    %(bracher2021)s

    Examples
    --------
    >>> q = [[0.0, 1.0, 2.0]]  # 10%, 50%, 90% quantiles for one observation
    >>> round(weighted_interval_score_from_quantiles([1.5], q, levels=[0.1, 0.5, 0.9]), 6)
    0.3
    """
    y = as_1d_float(y_true, "y_true")
    tau = np.atleast_1d(np.asarray(levels, dtype=np.float64))
    if tau.ndim != 1 or tau.size == 0:
        raise ValueError(f"levels must be a 1-D sequence of quantile levels; got {levels!r}")
    for value in tau:
        check_probability(value, "levels")
    q = as_2d_float(quantiles, "quantiles", n_rows=y.shape[0])
    if q.shape[1] != tau.size:
        raise ValueError(
            f"quantiles has {q.shape[1]} column(s) but levels has {tau.size}; they must match"
        )
    if np.unique(tau).size != tau.size:
        raise ValueError(f"levels must not repeat; got {tau.tolist()}")
    tol = 1e-9
    is_median = np.abs(tau - 0.5) <= tol
    low_idx = np.flatnonzero(tau < 0.5 - tol)
    high_idx = np.flatnonzero(tau > 0.5 + tol)
    partner = []
    for i in low_idx:
        match = high_idx[np.abs(tau[high_idx] - (1.0 - tau[i])) <= tol]
        if match.size != 1:
            raise ValueError(
                f"levels must pair each tau < 0.5 with 1 - tau; {float(tau[i])!r} has no partner "
                f"in {tau.tolist()}"
            )
        partner.append(int(match[0]))
    if len(partner) != high_idx.size:
        unpaired = float(tau[sorted(set(high_idx.tolist()) - set(partner))[0]])
        raise ValueError(
            f"levels must pair each tau > 0.5 with 1 - tau; {unpaired!r} has no partner"
        )
    if low_idx.size == 0:
        raise ValueError("levels must contain at least one central interval (tau, 1 - tau)")
    median = q[:, int(np.flatnonzero(is_median)[0])] if is_median.any() else None
    return weighted_interval_score(
        y,
        q[:, low_idx],
        q[:, partner],
        alpha=2.0 * tau[low_idx],
        median=median,
        sample_weight=sample_weight,
    )


# --------------------------------------------------------------------------------------------
# PRMSPE


# --------------------------------------------------------------------------------------------
# plot data


@dataclasses.dataclass(frozen=True, repr=False)
class OrderedIntervalsResult(CurveResult):
    """Intervals and the truth sorted by increasing prediction, for an "intervals vs truth" plot.

    Attributes
    ----------
    order : numpy.ndarray
        Row indices of the input in increasing ``y_pred`` (stable for ties).
    y_pred, y_true, lower, upper : numpy.ndarray
        The inputs in that order.
    covered : numpy.ndarray of bool
        ``lower <= y_true <= upper`` per row, in that order.
    coverage : float
        Fraction covered (unweighted).
    """

    y_label = "interval covers the truth (1) or not (0)"
    x_label = "cases in increasing order of prediction (share of cases)"

    @property
    def x(self) -> np.ndarray:
        """Position of each case as a share of the cases, ``(i + 1/2) / n``."""
        n = self.covered.shape[0]
        return (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)

    @property
    def y(self) -> np.ndarray:
        """1.0 where the interval covers the truth, 0.0 where it misses."""
        return np.asarray(self.covered, dtype=np.float64)

    @property
    def area(self) -> float:
        """The coverage, :attr:`coverage` (``CurveResult`` protocol)."""
        return self.coverage

    order: np.ndarray
    y_pred: np.ndarray
    y_true: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    covered: np.ndarray
    coverage: float


@register_curve("intervals", family="intervals", inputs="point_and_interval")
@raises_input_errors("y_true", "y_pred", "lower", "upper", weights=False)
@shared_paragraphs
def intervals_by_prediction(
    y_true: ArrayLike, y_pred: ArrayLike, lower: ArrayLike, upper: ArrayLike
) -> OrderedIntervalsResult:
    """Each observation's interval and truth, ordered by the point prediction, for plots.

    Parameters
    ----------
    %(interval_y_true)s
    y_pred : array-like of shape (n,)
        Point predictions; the rows are ordered by them (stable for ties).
    lower, upper : array-like of shape (n,)
        Bounds of the prediction intervals.

    Returns
    -------
    OrderedIntervalsResult
        The truth, prediction, bounds and a covered flag, in increasing order of ``y_pred``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The exact data are kept; a plotting layer may thin them for drawing.

    References
    ----------
    %(payne2016)s
    """
    y, yhat = check_pair(y_true, y_pred, min_n=1)
    _, lo, up = _check_intervals(y, lower, upper)
    order = np.argsort(yhat, kind="stable")
    covered = (lo[order] <= y[order]) & (y[order] <= up[order])
    return OrderedIntervalsResult(
        order=order,
        y_pred=yhat[order],
        y_true=y[order],
        lower=lo[order],
        upper=up[order],
        covered=covered,
        coverage=float(covered.mean()),
    )


@dataclasses.dataclass(frozen=True, repr=False)
class CoverageByBinResult(CurveResult):
    """Coverage and width by bin of the point prediction (deciles by default).

    Attributes
    ----------
    bin : numpy.ndarray of int
        Bin number, 1 = lowest predictions; bins left empty by ties are omitted.
    pred_min, pred_max : numpy.ndarray
        Range of ``y_pred`` in each bin.
    count : numpy.ndarray of int
        Rows per bin.
    weight : numpy.ndarray
        Total case weight per bin (= count without weights).
    coverage : numpy.ndarray
        (Weighted) fraction of ``y_true`` inside its interval.
    coverage_low, coverage_high : numpy.ndarray
        Wilson score interval for the coverage at ``confidence_level``, on the bin's total weight
        as the number of trials (weights are case counts, as everywhere in ranklens).
    mean_width : numpy.ndarray
        (Weighted) mean interval width.
    nominal : float
        ``1 - alpha``, or NaN when no ``alpha`` was given.
    overall_coverage : float
    confidence_level : float
    """

    y_field = "coverage"
    x_label = "prediction (middle of the bin)"
    y_label = "coverage"

    @property
    def x(self) -> np.ndarray:
        """The middle of each bin's prediction range, ``(pred_min + pred_max) / 2``."""
        return (np.asarray(self.pred_min, np.float64) + np.asarray(self.pred_max, np.float64)) / 2

    @property
    def area(self) -> float:
        """The overall coverage, :attr:`overall_coverage` (``CurveResult`` protocol)."""
        return self.overall_coverage

    bin: np.ndarray
    pred_min: np.ndarray
    pred_max: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    coverage: np.ndarray
    coverage_low: np.ndarray
    coverage_high: np.ndarray
    mean_width: np.ndarray
    nominal: float
    overall_coverage: float
    confidence_level: float


@register_curve("coverage_by_bin", family="intervals", inputs="point_and_interval")
@raises_input_errors(
    "y_true", "y_pred", "lower", "upper", probabilities=("confidence_level",), counts=("n_bins",)
)
@shared_paragraphs
def interval_coverage_by_bin(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    n_bins: int = 10,
    alpha: float | None = None,
    sample_weight: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> CoverageByBinResult:
    """Empirical coverage by prediction bin (deciles by default), with Wilson intervals.

    Parameters
    ----------
    %(interval_y_true)s
    y_pred : array-like of shape (n,)
        Point predictions; the bins are formed on them.
    lower, upper : array-like of shape (n,)
        Bounds of the prediction intervals.
    n_bins : int, default 10
        Number of bins of (about) equal total weight.
    %(interval_alpha_unused)s
    %(sample_weight)s
    confidence_level : float, default 0.95
        Level of the Wilson interval of each bin's coverage.

    Returns
    -------
    CoverageByBinResult
        Per bin: the prediction range, the coverage and its Wilson interval.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Bins split the rows sorted by ``y_pred`` into ``n_bins`` groups of (about) equal total weight.
    Rows tied in ``y_pred`` always share a bin: a block of ties goes to the bin holding the
    midpoint of its cumulative weight, so heavy ties can leave bins empty (they are omitted).
    A well-calibrated interval model covers about ``1 - alpha`` in every bin; coverage that drifts
    with the prediction shows intervals that are too narrow where the model predicts high (or low).

    Wilson score interval for a binomial proportion, with the effective sample size of the
    weighted bin.

    References
    ----------
    %(payne2016)s
    """
    y, yhat = check_pair(y_true, y_pred, min_n=1)
    _, lo, up = _check_intervals(y, lower, upper)
    n_bins = check_positive_int(n_bins, "n_bins")
    nominal = math.nan if alpha is None else 1.0 - _check_alpha(alpha)
    level = check_probability(confidence_level, "confidence_level")
    # Coverage and widths are ratios (rescaled weights); the Wilson interval counts trials, so
    # the bins' weights go back to the scale they were given (integer weights = repeated rows).
    w, weight_scale = check_sample_weight_scaled(sample_weight, y.shape[0])
    weights = np.ones_like(y) if w is None else w

    order = np.argsort(yhat, kind="stable")
    pred_sorted = yhat[order]
    w_sorted = weights[order]
    inside = ((lo <= y) & (y <= up))[order]
    width = (up - lo)[order]

    block_start = np.flatnonzero(np.r_[True, pred_sorted[1:] != pred_sorted[:-1]])
    block_weight = np.add.reduceat(w_sorted, block_start)
    cum_before = np.cumsum(block_weight) - block_weight
    total = float(block_weight.sum())
    mid = (cum_before + 0.5 * block_weight) / total
    block_bin = np.minimum((mid * n_bins).astype(np.int64), n_bins - 1)
    row_bin = np.repeat(block_bin, np.diff(np.r_[block_start, y.shape[0]]))

    count = np.bincount(row_bin, minlength=n_bins)
    present = np.flatnonzero(count > 0)
    wsum = np.bincount(row_bin, weights=w_sorted, minlength=n_bins)[present]
    covered_w = np.bincount(row_bin, weights=w_sorted * inside, minlength=n_bins)[present]
    width_w = np.bincount(row_bin, weights=w_sorted * width, minlength=n_bins)[present]
    starts = np.r_[0, np.cumsum(count[present])[:-1]]
    pred_min = pred_sorted[starts]
    pred_max = pred_sorted[np.cumsum(count[present]) - 1]

    with np.errstate(invalid="ignore", divide="ignore"):
        cov = covered_w / wsum
        mean_width = width_w / wsum
    trials = wsum * weight_scale
    low, high = _wilson(cov, trials, level)
    if np.any(wsum == 0):
        warn_undefined("coverage is undefined in bins whose case weights are all zero")
    return CoverageByBinResult(
        bin=present + 1,
        pred_min=pred_min,
        pred_max=pred_max,
        count=count[present],
        weight=trials,
        coverage=cov,
        coverage_low=low,
        coverage_high=high,
        mean_width=mean_width,
        nominal=nominal,
        overall_coverage=float(np.sum(covered_w) / total),
        confidence_level=level,
    )


def _wilson(p: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion p observed on n trials."""
    z = float(ndtri(0.5 + level / 2.0))
    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        denom = 1.0 + z2 / n
        centre = (p + z2 / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
