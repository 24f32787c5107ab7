"""Relevance functions phi: R -> [0, 1] for rare extreme values (Torgo & Ribeiro 2009).

A relevance function says how much each value of the target matters: 0 for the ordinary bulk,
1 for the rare extremes a model must catch. Every relevance object here is a frozen, vectorised
callable ``phi(y) -> ndarray in [0, 1]`` with a readable ``repr``; anything else with that call
signature (a plain function, a lambda) is accepted wherever ranklens asks for a relevance.

- :class:`SigmoidRelevance`: Torgo & Ribeiro's sigmoids (eqs. 4-5), for low, high or both extremes.
- :class:`ControlPointRelevance`: monotone cubic Hermite (pchip) interpolation through user
  control points (y, phi[, slope]), the form of the later R packages (uba, UBL, IRon).
- :func:`relevance_from_boxplot`: either form derived from the box plot of a sample, with Tukey
  or medcouple-adjusted (Hubert & Vandervieren 2008) fences around Tukey's hinges, the quartiles
  of R's ``fivenum`` and ``boxplot.stats``; :func:`boxplot_stats` and :func:`medcouple` expose
  the ingredients. With ``sample_weight`` the box plot reads the weights as frequencies (integer
  weights act as repeated rows, without repeating anything in memory).

When a sample has no box-plot outliers the R packages silently return a relevance that is zero
everywhere; :func:`relevance_from_boxplot` instead warns with :class:`NoExtremesWarning` and falls
back to both fences (see its docstring).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.hinges import Sample, frequency_weights, hinge_positions, hinges_of
from ranklens._foundation.results import Result
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    check_finite_number,
    is_constant,
)
from ranklens._measures.relevance_functions import (
    ControlPointRelevance,
    NoExtremesWarning,
    Relevance,
    SigmoidRelevance,
    relevance_from_limits,
)
from ranklens.exceptions import DomainError

__all__ = [
    "BoxplotStatsResult",
    "ControlPointRelevance",
    "NoExtremesWarning",
    "Relevance",
    "SigmoidRelevance",
    "boxplot_stats",
    "medcouple",
    "relevance_from_boxplot",
]


FloatArray = NDArray[np.float64]


# ------------------------------------------------------------------------------------------------
# Box plots


@raises_input_errors("y", weights=False)
def medcouple(y: Any) -> float:
    r"""The medcouple of Brys, Hubert & Struyf (2004), a robust measure of skewness in [-1, 1].

    Parameters
    ----------
    y : array-like of shape (n,)
        At least one finite value.

    Returns
    -------
    float
        The medcouple in [-1, 1]; 0 for a symmetric sample, positive for right skew.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    .. math::
        MC = \operatorname{med}_{x_i \ge m \ge x_j,\; x_i \ne x_j}
             \frac{(x_i - m) - (m - x_j)}{x_i - x_j}

    over pairs on either side of the median ``m``; pairs of values tied at the median take
    +1, 0 or -1 as in Brys et al. (eq. 5), so the result equals statsmodels' ``medcouple``. For
    an even number of kernel values the median is the mean of the two middle ones. Computed
    exactly in O(n log n) expected time (Johnson & Mizoguchi selection in the sorted kernel
    matrix), never by forming the n^2/4 pairs.

    References
    ----------
    Brys, G., Hubert, M. and Struyf, A. (2004). A robust measure of skewness. *Journal of
    Computational and Graphical Statistics* 13(4), 996-1017. doi:10.1198/106186004X12632

    Hubert, M. and Vandervieren, E. (2008). An adjusted boxplot for skewed distributions.
    *Computational Statistics & Data Analysis* 52(12), 5186-5201. doi:10.1016/j.csda.2007.11.008

    Examples
    --------
    >>> round(medcouple([0, 1, 2, 3, 5, 8, 13]), 6)     # right-skewed
    0.380952
    >>> medcouple([1, 2, 3, 4, 5])                      # symmetric
    0.0
    """
    x = as_1d_float(y, "y", min_n=1)
    from ranklens._compute.kernels import utility as _k  # imports numba

    return float(_k.medcouple_sorted(np.sort(x)))


Quartiles = Literal["hinges", "type7"]


@dataclasses.dataclass(frozen=True, repr=False)
class BoxplotStatsResult(Result):
    """Box-plot summary of a sample (:func:`boxplot_stats`).

    Attributes
    ----------
    n : int
        Rows with positive weight (all rows without ``sample_weight``).
    q1, median, q3, iqr : float
        The lower and upper quartile (Tukey's hinges by default, as R's ``fivenum``; see
        ``quartiles``), the median and ``q3 - q1``.
    quartiles : {"hinges", "type7"}
        How ``q1`` and ``q3`` were found.
    medcouple : float
        Robust skewness; NaN when ``adjusted`` is False (not computed).
    adjusted : bool
        Whether the fences are the medcouple-adjusted ones.
    coef : float
        Fence multiplier (1.5 for Tukey's rule).
    lower_fence, upper_fence : float
        ``q1 - coef * e^{a MC} iqr`` and ``q3 + coef * e^{b MC} iqr`` (a = b = 0 for Tukey).
    lower_adjacent, upper_adjacent : float
        Tukey's adjacent values: the most extreme observations inside the fences (the whisker
        ends R's ``boxplot.stats`` reports).
    n_low_outliers, n_high_outliers : int
        Rows (of positive weight) strictly beyond each fence.
    """

    n: int
    q1: float
    median: float
    q3: float
    iqr: float
    quartiles: str
    medcouple: float
    adjusted: bool
    coef: float
    lower_fence: float
    upper_fence: float
    lower_adjacent: float
    upper_adjacent: float
    n_low_outliers: int
    n_high_outliers: int


def _check_quartiles(quartiles: Any) -> Quartiles:
    if quartiles not in ("hinges", "type7"):
        raise ValueError(f"quartiles must be 'hinges' or 'type7'; got {quartiles!r}")
    return "hinges" if quartiles == "hinges" else "type7"


def _hinges(sample: Sample) -> tuple[float, float, float]:
    """Tukey's lower hinge, median and upper hinge, exactly as R's ``fivenum``.

    With N the sample size: ``n4 = floor((N + 3) / 2) / 2``, depths ``d = (n4, (N + 1) / 2,
    N + 1 - n4)`` and each statistic ``(x[floor(d)] + x[ceiling(d)]) / 2`` (1-based order
    statistics). With frequency weights N is the total weight W and x the repeated sample.
    """
    return hinges_of([sample.at(k) for k in hinge_positions(sample.size)])


def _type7(sample: Sample) -> tuple[float, float, float]:
    """Type-7 (linear) quartiles and median, as ``np.quantile`` (of the repeated sample)."""
    if sample.cum is None:
        q1, med, q3 = np.quantile(sample.x, [0.25, 0.5, 0.75])
        return float(q1), float(med), float(q3)
    out = []
    for q in (0.25, 0.5, 0.75):
        h = (sample.size - 1.0) * q  # 0-based virtual index, as NumPy's
        lo = math.floor(h)
        t = h - lo
        a, b = sample.at(lo + 1), sample.at(lo + 2)
        # NumPy's lerp, so integer weights reproduce np.quantile on repeated rows bit for bit.
        out.append(b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t)
    return out[0], out[1], out[2]


def _fence_multipliers(mc: float) -> tuple[float, float]:
    """``(e^{a MC}, e^{b MC})`` of Hubert & Vandervieren (2008) with a = -4, b = 3."""
    if mc >= 0:
        return math.exp(-4.0 * mc), math.exp(3.0 * mc)
    return math.exp(-3.0 * mc), math.exp(4.0 * mc)


def _boxplot(
    raw: FloatArray, w: FloatArray | None, coef: float, adjusted: bool, quartiles: str
) -> BoxplotStatsResult:
    """:func:`boxplot_stats` on validated input (``w``: frequency weights as given, or None)."""
    sample = Sample.of(raw, w)
    x = sample.x
    q1, med, q3 = _hinges(sample) if quartiles == "hinges" else _type7(sample)
    iqr = q3 - q1
    if not adjusted:
        mc = math.nan
        low_mult = high_mult = 1.0
    else:
        from ranklens._compute.kernels import utility as _k  # imports numba

        if sample.cum is None:
            mc = float(_k.medcouple_sorted(x))
        else:
            weights = np.diff(sample.cum, prepend=0.0)  # the positive weights, in sorted order
            # the median of the repeated sample, as the unweighted kernel takes it
            _, median, _ = _hinges(sample)
            mc = float(_k.weighted_medcouple_sorted(x, weights, median))
        low_mult, high_mult = _fence_multipliers(mc)
    lower_fence = q1 - coef * low_mult * iqr
    upper_fence = q3 + coef * high_mult * iqr
    lo = int(np.searchsorted(x, lower_fence, side="left"))
    hi = int(np.searchsorted(x, upper_fence, side="right"))
    return BoxplotStatsResult(
        n=int(x.shape[0]),
        q1=q1,
        median=float(med),
        q3=q3,
        iqr=iqr,
        quartiles=quartiles,
        medcouple=mc,
        adjusted=bool(adjusted),
        coef=coef,
        lower_fence=lower_fence,
        upper_fence=upper_fence,
        lower_adjacent=float(x[lo]),
        upper_adjacent=float(x[hi - 1]),
        n_low_outliers=lo,
        n_high_outliers=int(x.shape[0] - hi),
    )


@raises_input_errors("y")
def boxplot_stats(
    y: Any,
    *,
    coef: float = 1.5,
    adjusted: bool = False,
    quartiles: Quartiles = "hinges",
    sample_weight: ArrayLike | None = None,
) -> BoxplotStatsResult:
    r"""Quartiles, fences, adjacent values and outlier counts of a sample, as R's ``boxplot.stats``.

    Tukey's fences are ``[Q1 - coef IQR, Q3 + coef IQR]`` (Torgo & Ribeiro 2009, Sect. 4.1, with
    coef 1.5); observations strictly outside are outliers and the adjacent values are the most
    extreme observations inside. The medcouple-adjusted fences of Hubert & Vandervieren (2008),
    used by IRon, stretch the side the data are skewed towards:

    .. math::
        MC \ge 0:\; [Q_1 - c\, e^{-4 MC} IQR,\; Q_3 + c\, e^{3 MC} IQR], \qquad
        MC < 0:\; [Q_1 - c\, e^{-3 MC} IQR,\; Q_3 + c\, e^{4 MC} IQR].

    Parameters
    ----------
    y : array-like of shape (n,)
        At least two finite values.
    coef : float, default 1.5
        Fence multiplier (> 0).
    adjusted : bool, default False
        Use the medcouple-adjusted fences.
    quartiles : {"hinges", "type7"}, default "hinges"
        ``"hinges"``: Tukey's hinges, the quartiles of R's ``fivenum``, which R's
        ``boxplot.stats`` and robustbase's ``adjboxStats`` (and so the R packages uba, UBL and
        IRon) use. ``"type7"``: NumPy's default linear interpolation (R's ``quantile`` type 7),
        which moves the fences by a fraction of the gap between neighbouring order statistics.
    sample_weight : array-like of shape (n,), optional
        Frequency weights: row i counts as w_i observations, so integer weights give the box
        plot of the sample with each row repeated that many times (rows of weight 0 are
        dropped), and any other non-negative weights go through the same formulas with W, the
        total weight, as the sample size. Their scale matters (weights 2, 2, 2 describe six
        observations, not three); they must sum to at least 2. Nothing is repeated in memory:
        a weight of 1e13 costs what a weight of 1 does.

    Returns
    -------
    BoxplotStatsResult
        Median, quartiles, fences, adjacent values, medcouple (when ``adjusted``) and outlier
        counts.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    With N observations sorted as x_(1) <= ... <= x_(N), R's ``fivenum`` takes the depths
    ``n4 = floor((N + 3) / 2) / 2``, ``(N + 1) / 2`` and ``N + 1 - n4`` and returns at each depth d
    the average of ``x_(floor(d))`` and ``x_(ceiling(d))``: the lower hinge, the median and the
    upper hinge (Tukey 1977). The hinges are the medians of the lower and upper halves of the
    sample (each half including the median when N is odd), so they are always observations or
    midpoints of two. For ``y = [0, 1, 5, 6, 12, 28]`` the hinges are 1 and 12, the upper fence
    ``12 + 1.5 * 11 = 28.5`` and R finds no outlier; the type-7 quartiles 2 and 10.5 put the
    fence at 23.25 and flag 28.

    With frequency weights the sample is the one with row i repeated w_i times: the k-th order
    statistic is the value of the row whose block ``(C_{i-1}, C_i]`` of cumulative weight holds
    k. The same definition serves integer and non-integer weights, and the medcouple uses the
    weighted kernel with the pairs (i, j) counted ``w_i w_j`` times.

    References
    ----------
    Tukey, J. W. (1977). *Exploratory Data Analysis*. Addison-Wesley.
    R Core Team. ``fivenum`` and ``boxplot.stats``, package grDevices / stats of R.
    Hubert, M. and Vandervieren, E. (2008). An adjusted boxplot for skewed distributions.
    *Computational Statistics & Data Analysis* 52(12), 5186-5201.
    Ribeiro, R. P. (2011). *Utility-based Regression*. PhD thesis, University of Porto.
    Branco, P., Ribeiro, R. P. and Torgo, L. (2016). UBL: an R package for utility-based
    learning. arXiv:1604.08079.

    Examples
    --------
    >>> s = boxplot_stats([0, 1, 5, 6, 12, 28])
    >>> s.q1, s.median, s.q3, s.upper_fence, s.n_high_outliers
    (1.0, 5.5, 12.0, 28.5, 0)
    >>> boxplot_stats([0, 1, 5, 6, 12, 28], quartiles="type7").n_high_outliers
    1
    """
    raw = as_1d_float(y, "y", min_n=2)
    w = frequency_weights(sample_weight, raw.shape[0])
    coef = check_finite_number(coef, "coef")
    if coef <= 0:
        raise ValueError(f"coef must be positive; got {coef!r}")
    return _boxplot(raw, w, coef, bool(adjusted), _check_quartiles(quartiles))


Extremes = Literal["auto", "both", "high", "low"]


@shared_paragraphs
def relevance_from_boxplot(
    y: Any,
    *,
    extremes: Extremes = "auto",
    coef: float = 1.5,
    adjusted: bool = False,
    shape: Literal["sigmoid", "pchip"] = "sigmoid",
    center: Literal["fence", "adjacent"] = "fence",
    k: float = 0.5,
    delta: float = 1e-4,
    fallback: Literal["fences", "raise"] = "fences",
    quartiles: Quartiles = "hinges",
    sample_weight: ArrayLike | None = None,
) -> SigmoidRelevance | ControlPointRelevance:
    r"""A relevance function for rare extremes derived from the box plot of a sample.

    Torgo & Ribeiro (2009), Sect. 4.1: relevance is 1/2 at the box-plot limits
    ``adj_L = Q1 - 1.5 IQR`` and ``adj_H = Q3 + 1.5 IQR`` and rises towards the extremes. With
    ``adjusted=True`` the limits are the medcouple-adjusted fences (Hubert & Vandervieren 2008, as
    IRon does), which do not flag the long tail of skewed data wholesale.

    - ``shape="sigmoid"`` (Torgo & Ribeiro 2009, eqs. 4-5): :class:`SigmoidRelevance` centred at the
      limits, with decay widths measured from the sample median (``origin=median``, so shifting the
      data shifts phi; for data with median 0 this is the paper's eq. 5 exactly).
    - ``shape="pchip"`` (Ribeiro 2011; R packages uba / UBL / IRon): :class:`ControlPointRelevance`
      through (limit_L, 1), (median, 0), (limit_H, 1) with zero slopes, i.e.
      ``phi = 3t^2 - 2t^3`` with ``t = clip((y - med) / (limit - med), 0, 1)`` on each side.

    Parameters
    ----------
    y : array-like of shape (n,)
        The sample (normally the training targets), at least two finite values.
    extremes : {"auto", "both", "high", "low"}, default "auto"
        Which tails are relevant. ``"auto"`` takes the tails that have box-plot outliers.
    coef : float, default 1.5
        Fence multiplier.
    adjusted : bool, default False
        Medcouple-adjusted fences instead of Tukey's.
    shape : {"sigmoid", "pchip"}, default "sigmoid"
    center : {"fence", "adjacent"}, default "fence"
        ``"fence"``: Torgo & Ribeiro's adj values, ``Q3 + coef IQR`` and ``Q1 - coef IQR``.
        ``"adjacent"``: Tukey's adjacent values, the most extreme observations inside the fences,
        which is what R's ``boxplot.stats`` (and so uba / UBL / IRon) use.
    k, delta : float
        Sigmoid decay factor and precision of eq. 5 (ignored for ``shape="pchip"``).
    fallback : {"fences", "raise"}, default "fences"
        What ``extremes="auto"`` does when the sample has **no** box-plot outliers, where the R
        packages return a relevance that is zero everywhere. ``"fences"`` issues a
        :class:`NoExtremesWarning` and treats both tails as relevant with the same limits, so phi
        is 1/2 at the fences and values beyond them (in new data or in predictions) still count
        as extremes; ``"raise"`` raises ``ValueError`` instead.
    quartiles : {"hinges", "type7"}, default "hinges"
        Tukey's hinges (R's ``fivenum``, as ``boxplot.stats`` and the R packages uba, UBL and
        IRon) or NumPy's type-7 quartiles; see :func:`boxplot_stats`.
    sample_weight : array-like of shape (n,), optional
        Frequency weights for the box plot (integer weights act as repeated rows; their scale
        matters, see :func:`boxplot_stats`).

    Returns
    -------
    SigmoidRelevance or ControlPointRelevance

    Raises
    ------
    ValueError
        For a constant sample, or a degenerate box plot (IQR = 0, so the limit of a tail coincides
        with the median); use :class:`ControlPointRelevance` or :class:`SigmoidRelevance` with
        explicit centres then.

    Notes
    -----
    The quartiles are Tukey's hinges by default, so the fences, the outliers and hence the
    relevance agree with R's ``boxplot.stats`` (and robustbase's ``adjboxStats`` for
    ``adjusted=True``), on which the R packages of the method's authors (uba, UBL, IRon) build
    their box-plot relevance. ``quartiles="type7"`` gives NumPy's default quartiles instead;
    the two differ by at most the gap between neighbouring order statistics, which matters for
    small or heavily tied samples: for ``[0, 1, 5, 6, 12, 28]`` the hinges find no outlier
    (upper fence 28.5), type 7 flags 28.

    References
    ----------
    Tukey, J. W. (1977). *Exploratory Data Analysis*. Addison-Wesley.
    %(torgo2009)s
    Ribeiro, R. P. (2011). *Utility-based Regression*. PhD thesis, University of Porto.
    Branco, P., Ribeiro, R. P. and Torgo, L. (2016). UBL: an R package for utility-based
    learning. arXiv:1604.08079.
    Hubert, M. and Vandervieren, E. (2008). An adjusted boxplot for skewed distributions.
    *Computational Statistics & Data Analysis* 52(12), 5186-5201.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.r_[np.linspace(-1, 1, 41), 4.0, 5.0]
    >>> phi = relevance_from_boxplot(y)            # only the high tail has outliers
    >>> phi.low_center is None, round(phi.high_center, 3)
    (True, 2.15)
    >>> phi([0.0, 2.15, 5.0]).round(3).tolist()
    [0.0, 0.5, 1.0]
    """
    if extremes not in ("auto", "both", "high", "low"):
        raise ValueError(f"extremes must be 'auto', 'both', 'high' or 'low'; got {extremes!r}")
    if shape not in ("sigmoid", "pchip"):
        raise ValueError(f"shape must be 'sigmoid' or 'pchip'; got {shape!r}")
    if center not in ("fence", "adjacent"):
        raise ValueError(f"center must be 'fence' or 'adjacent'; got {center!r}")
    if fallback not in ("fences", "raise"):
        raise ValueError(f"fallback must be 'fences' or 'raise'; got {fallback!r}")
    quartiles = _check_quartiles(quartiles)
    x = as_1d_float(y, "y", min_n=2)
    w = frequency_weights(sample_weight, x.shape[0])
    if is_constant(x if w is None else x[w > 0]):
        raise DomainError(f"y is constant ({x[0]!r}); no box-plot relevance can be derived from it")
    stats = boxplot_stats(x, coef=coef, adjusted=adjusted, quartiles=quartiles, sample_weight=w)
    low_limit = stats.lower_fence if center == "fence" else stats.lower_adjacent
    high_limit = stats.upper_fence if center == "fence" else stats.upper_adjacent

    return relevance_from_limits(
        stats.n,
        stats.median,
        stats.iqr,
        (stats.lower_fence, stats.upper_fence),
        (low_limit, high_limit),
        (stats.n_low_outliers > 0, stats.n_high_outliers > 0),
        extremes=extremes,
        adjusted=adjusted,
        shape=shape,
        k=k,
        delta=delta,
        fallback=fallback,
    )
