"""Miscalibration, discrimination and uncertainty: the CORP decomposition of a mean score.

Is the better model better at ranking, or only better calibrated? A point prediction ``x`` of
the mean (or of a quantile) is recalibrated by isotonic regression of ``y`` on ``x``
(:func:`isotonic_recalibration`); the mean score then splits into three parts
(:func:`score_decomposition`, Dimitriadis, Gneiting & Jordan 2021; Gneiting & Resin 2023)::

    S(x) = MCB - DSC + UNC
    MCB  = S(x) - S(x_rc)       what recalibration would gain      (miscalibration, >= 0)
    DSC  = S(r) - S(x_rc)       what the ordering of x is worth    (discrimination, >= 0)
    UNC  = S(r)                 the score of the best constant r   (uncertainty)

with ``S(.)`` the (weighted) mean score, ``x_rc`` the isotonic recalibration of ``x`` and ``r``
the unconditional (weighted) mean of ``y``, or its ``alpha``-quantile for the pinball loss.
``UNC`` is the same for every model on the same data; two models differ by ``MCB`` and ``DSC``
only, and the one with the larger ``DSC`` would have the lower score once both were
recalibrated.

The CORP reliability diagram (:func:`reliability_diagram`) draws ``x_rc`` against ``x``, with
consistency bands by resampling under the hypothesis of calibration; ``MCB`` and ``DSC`` are
registered measures (:func:`miscalibration`, :func:`discrimination`, family ``"residual"``), so
:func:`ranklens.compare_models` gives paired bootstrap intervals for their differences.

Isotonic recalibration
----------------------
Exact pool-adjacent-violators (PAV): the rows are sorted by the prediction once, rows with equal
predictions are pooled first (the recalibration is a function of ``x``, as scikit-learn's
``IsotonicRegression`` makes it), then one left-to-right pass merges adjacent blocks while their
values decrease. For the squared error a block's value is the weighted mean of its ``y``: O(n log
n) in all. For the pinball loss at level ``alpha`` it is the weighted (lower) ``alpha``-quantile
of the pooled block (Jordan, Mühlemann & Ziegel 2022: PAV with an identifiable functional gives
an optimal solution, here the smallest one), a query over the block's rows in a wavelet matrix
of the ranks of ``y`` built once: O(log n) a block, O(n log n) in all, whatever the order of
``y``. The weights are summed exactly (as integer multiples of one power of two), so a block's
quantile is the smallest ``v`` with ``W(y <= v) >= alpha W`` to the last bit.
"""

from __future__ import annotations

import array
import dataclasses
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens._compute.xp.isotonic import pav_means
from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.forms import ReplicateForm, ReplicateSweep
from ranklens._foundation.registry import register_metric
from ranklens._foundation.results import CurveResult, Result
from ranklens._foundation.scaling import binary_exponent, ldexp
from ranklens._foundation.shared import shared
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    FloatArray,
    check_pair,
    check_positive_int,
    check_probability,
    check_random_state,
    check_sample_weight_scaled,
)
from ranklens.exceptions import warn_undefined

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DECOMPOSITION_SCORES",
    "ReliabilityDiagramResult",
    "ScoreDecomposition",
    "ScoreDecompositionTable",
    "discrimination",
    "isotonic_recalibration",
    "miscalibration",
    "reliability_diagram",
    "score_decomposition",
    "score_decompositions",
]

#: The scoring functions the decomposition takes: the squared error (for a prediction of the
#: mean) and the pinball loss (for a prediction of the ``quantile_level``-quantile).
DECOMPOSITION_SCORES: tuple[str, ...] = ("squared_error", "pinball")

_CITATION = "Dimitriadis, Gneiting & Jordan (2021); Gneiting & Resin (2023)"


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def _check_score(score: Any, quantile_level: Any) -> float | None:
    """The quantile level for ``score`` (None for the squared error); errors name the argument."""
    if score not in DECOMPOSITION_SCORES:
        raise ValueError(f"score must be one of {DECOMPOSITION_SCORES}; got {score!r}")
    if score == "pinball":
        if quantile_level is None:
            raise ValueError(
                "quantile_level is required with score='pinball': the level in (0, 1) of the "
                "quantile that y_pred predicts"
            )
        return check_probability(quantile_level, "quantile_level")
    if quantile_level is not None:
        raise ValueError(
            f"quantile_level={quantile_level!r} is used with score='pinball' only; the squared "
            "error scores a prediction of the mean"
        )
    return None


@dataclasses.dataclass(frozen=True)
class _Data:
    """Validated rows, scaled by one power of two so that squares and sums cannot overflow.

    ``y = ys * 2**e`` and ``x = xs * 2**e`` exactly; ``w`` the weights (None: unweighted), as
    given when they are integers, else rescaled to mean 1.
    """

    ys: FloatArray
    xs: FloatArray
    w: FloatArray | None
    e: int


def _prepare(y_true: Any, y_pred: Any, sample_weight: Any) -> _Data:
    y, x = check_pair(y_true, y_pred, min_n=1)
    w, _ = check_sample_weight_scaled(sample_weight, y.shape[0], integers_as_given=True)
    big = float(max(np.abs(y).max(), np.abs(x).max()))
    e = binary_exponent(big)
    if e:
        y, x = np.ldexp(y, -e), np.ldexp(x, -e)
    return _Data(y, x, w, e)


# --------------------------------------------------------------------------------------------
# Pool-adjacent-violators
# --------------------------------------------------------------------------------------------


def _weighted_quantile(values: FloatArray, weights: FloatArray, level: float) -> float:
    """The lower weighted ``level``-quantile: the smallest ``v`` with ``W(y <= v) >= level W``."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    k = int(np.searchsorted(cumulative, level * cumulative[-1], side="left"))
    return float(values[order[min(k, values.shape[0] - 1)]])


def _integer_weights(w: FloatArray) -> tuple[np.ndarray, int]:
    """Positive float weights as exact integers ``k`` with ``w = k * 2**e``, and ``e``.

    int64 when every sum of them fits, else Python integers (an object array): the sums of the
    quantile search are exact whatever the weights.
    """
    mantissa, exponent = np.frexp(w)
    k = (mantissa * 2.0**53).astype(np.int64)  # exact: integers below 2**53
    zeros = np.log2((k & -k).astype(np.float64)).astype(np.int64)  # trailing zero bits
    k >>= zeros
    exponent = exponent.astype(np.int64) - 53 + zeros
    e = int(exponent.min())
    shift = exponent - e
    if int(shift.max()) + 53 + int(w.shape[0]).bit_length() < 63:
        return k << shift, e
    return np.array([int(a) << int(s) for a, s in zip(k, shift, strict=True)], dtype=object), e


def _prefix_sums(values: np.ndarray) -> Any:
    """``[0, v0, v0 + v1, ...]`` exactly, as an indexable sequence of Python integers."""
    sums = np.concatenate((np.zeros(1, dtype=values.dtype), np.cumsum(values)))
    if sums.dtype == object:
        return sums.tolist()
    return array.array("q", sums.astype(np.int64).tobytes())


class _RangeQuantiles:
    """Weighted lower quantiles of contiguous row ranges: a wavelet matrix over the ranks of y.

    Built once in O(n log n); a query descends one level per bit of the rank, O(log n). Every
    weight is an exact integer multiple of ``2**e`` (:func:`_integer_weights`), so the weight
    below any candidate is exact, and the rule is :func:`_weighted_quantile`'s: the smallest
    ``v`` with ``W(y <= v) >= level * W``, the product rounded once to a float as there.
    """

    def __init__(self, ys: FloatArray, w: FloatArray) -> None:
        n = ys.shape[0]
        by_value = np.argsort(ys, kind="stable")
        self.sorted_y: list[float] = ys[by_value].tolist()
        rank = np.empty(n, dtype=np.int64)
        rank[by_value] = np.arange(n)
        weights, self.e = _integer_weights(w)
        self.prefix = _prefix_sums(weights)  # in row order: the weight of any range
        self.levels: list[tuple[Any, Any, int]] = []  # zeros, their weight, their count
        for bit in range(max(n - 1, 1).bit_length() - 1, -1, -1):
            zero = ((rank >> bit) & 1) == 0
            self.levels.append(
                (_prefix_sums(zero.astype(np.int64)), _prefix_sums(weights * zero), int(zero.sum()))
            )
            order = np.argsort(~zero, kind="stable")
            rank, weights = rank[order], weights[order]

    def _threshold(self, total: int, level: float) -> int:
        """The least integer weight ``k`` with ``k * 2**e >= level * W`` (rounded as a float)."""
        e = self.e
        exact_total = math.ldexp(float(total), e) if e >= 0 else total / (1 << -e)
        numerator, denominator = (level * exact_total).as_integer_ratio()
        if e <= 0:
            numerator <<= -e
        else:
            denominator <<= e
        return min(-(-numerator // denominator), total)

    def quantile(self, lo: int, hi: int, level: float) -> float:
        """The lower weighted ``level``-quantile of ``y`` over rows ``lo:hi`` (not empty)."""
        k = self._threshold(self.prefix[hi] - self.prefix[lo], level)
        rank = 0
        for zeros, zero_weight, n_zeros in self.levels:
            z_lo, z_hi = zeros[lo], zeros[hi]
            below = zero_weight[hi] - zero_weight[lo]
            if z_hi > z_lo and below >= k:
                lo, hi, rank = z_lo, z_hi, 2 * rank
            else:
                lo, hi, rank = n_zeros + lo - z_lo, n_zeros + hi - z_hi, 2 * rank + 1
                k -= below
        return self.sorted_y[rank]


def _pav_quantiles(
    ys: FloatArray, w: FloatArray, starts: np.ndarray, level: float
) -> tuple[list[float], list[int]]:
    """PAV for the pinball loss on rows sorted by prediction, tie groups starting at ``starts``:
    each block's weighted ``level``-quantile, a range query over its rows, O(log n) a block."""
    ranges = _RangeQuantiles(ys, w)
    y = ys.tolist()
    ends = np.append(starts[1:], ys.shape[0]).tolist()
    values: list[float] = []
    firsts: list[int] = []
    row_firsts: list[int] = []
    for g, (lo, hi) in enumerate(zip(starts.tolist(), ends, strict=True)):
        first = g
        v = y[lo] if hi - lo == 1 else ranges.quantile(lo, hi, level)  # one row: its value
        while values and values[-1] > v:
            values.pop()
            first = firsts.pop()
            lo = row_firsts.pop()
            v = ranges.quantile(lo, hi, level)
        values.append(v)
        firsts.append(first)
        row_firsts.append(lo)
    return values, firsts


@dataclasses.dataclass(frozen=True)
class _Fit:
    """The isotonic recalibration of one model: the rows in the order of the prediction."""

    order: np.ndarray  # rows (with positive weight) sorted by prediction
    starts: np.ndarray  # where each distinct prediction's rows start in ``order``
    group_x: FloatArray  # each distinct prediction (scaled), increasing
    group_weight: FloatArray  # the weight of its rows
    group_value: FloatArray  # the recalibrated value (scaled) at it
    n_blocks: int


def _groups(xs: FloatArray, w: FloatArray) -> tuple[np.ndarray, FloatArray]:
    """Where each distinct prediction starts in rows sorted by prediction, and its weight."""
    new = np.ones(xs.shape[0], dtype=bool)
    new[1:] = xs[1:] != xs[:-1]
    starts = np.flatnonzero(new)
    if starts.shape[0] == xs.shape[0]:  # no ties: each group is one row (its sum, exactly)
        return starts, w.copy()
    return starts, np.add.reduceat(w, starts)


def _block_values(
    ys: FloatArray, w: FloatArray, starts: np.ndarray, group_weight: FloatArray, level: float | None
) -> tuple[Any, Any]:
    """PAV of the groups (:func:`_groups`) of rows sorted by prediction: each block's value and
    its first group (the mean, or the ``level``-quantile)."""
    if level is None:
        sums = w * ys
        if starts.shape[0] < ys.shape[0]:  # else one row a group: its sum, exactly
            sums = np.add.reduceat(sums, starts)
        return pav_means(sums / group_weight, group_weight)
    return _pav_quantiles(ys, w, starts, level)


def _fit(d: _Data, level: float | None, by_prediction: np.ndarray | None = None) -> _Fit:
    """Pool the ties in the prediction, then PAV (the mean, or the ``level``-quantile).

    ``by_prediction``, when given, is a stable argsort of ``d.xs`` (all rows): the rows of
    positive weight, taken from it in its order, are the rows a stable sort of them alone gives
    (ties by row number either way), so a bootstrap that sorts once per model fits every
    replicate as the function does.
    """
    if by_prediction is None:
        rows = np.arange(d.xs.shape[0]) if d.w is None else np.flatnonzero(d.w > 0)
        order = rows[np.argsort(d.xs[rows], kind="stable")]
    else:
        order = by_prediction if d.w is None else by_prediction[d.w[by_prediction] > 0]
    xs = d.xs[order]
    w = np.ones(order.shape[0]) if d.w is None else d.w[order]
    starts, group_weight = _groups(xs, w)
    values, firsts = _block_values(d.ys[order], w, starts, group_weight, level)
    sizes = np.diff(np.append(firsts, starts.shape[0]))
    group_value = np.repeat(np.asarray(values, dtype=np.float64), sizes)
    return _Fit(order, starts, xs[starts], group_weight, group_value, len(values))


def _fitted_values(fit: _Fit) -> FloatArray:
    """The recalibrated value (scaled) of each fitted row, in the order of the fit: its group's."""
    return np.repeat(fit.group_value, np.diff(np.append(fit.starts, fit.order.shape[0])))


def _row_values(d: _Data, fit: _Fit) -> FloatArray:
    """The recalibrated value of every row (scaled), in row order; a row of zero weight takes the
    value at the largest weighted prediction not above its own (the first, below them all)."""
    n = d.xs.shape[0]
    values = np.empty(n)
    values[fit.order] = _fitted_values(fit)  # a fitted row: by the sort, no search
    if fit.order.shape[0] < n:
        unfitted = np.ones(n, dtype=bool)
        unfitted[fit.order] = False
        rows = np.flatnonzero(unfitted)
        at = np.searchsorted(fit.group_x, d.xs[rows], side="right") - 1
        values[rows] = fit.group_value[np.clip(at, 0, None)]
    return values


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------


def _mean(values: FloatArray, w: FloatArray | None) -> float:
    if w is None:
        return float(values.sum() / values.shape[0])
    return float((w * values).sum() / w.sum())


def _scores(ys: FloatArray, prediction: Any, level: float | None) -> FloatArray:
    """Per-row score of ``prediction`` (scaled units): squared error or pinball loss."""
    if level is None:
        return (prediction - ys) ** 2
    diff = ys - prediction  # > 0: under-prediction
    return np.where(diff >= 0, level * diff, (level - 1.0) * diff)


def _reference(d: _Data, level: float | None) -> float:
    """The best constant prediction (scaled): the weighted mean, or ``level``-quantile, of y."""
    w = np.ones(d.ys.shape[0]) if d.w is None else d.w
    if level is None:
        return _mean(d.ys, d.w)
    keep = w > 0
    return _weighted_quantile(d.ys[keep], w[keep], level)


@dataclasses.dataclass(frozen=True)
class _Parts:
    """The decomposition in the data's units, and the recalibration behind it."""

    mean_score: float
    mcb: float
    dsc: float
    unc: float
    reference: float
    recalibrated: FloatArray
    fit: _Fit


def _decompose(d: _Data, level: float | None, by_prediction: np.ndarray | None = None) -> _Parts:
    fit = _fit(d, level, by_prediction)
    rc = _row_values(d, fit)
    r = _reference(d, level)
    s_x = _mean(_scores(d.ys, d.xs, level), d.w)
    s_rc = _mean(_scores(d.ys, rc, level), d.w)
    s_r = _mean(_scores(d.ys, r, level), d.w)
    power = 2 * d.e if level is None else d.e  # scores scale with the square, or the value
    # Both parts are >= 0 (x and r are monotone fits too); a difference below 0 is rounding of
    # the block values (a group mean of equal y need not be y to the last bit): 0.
    return _Parts(
        mean_score=ldexp(s_x, power),
        mcb=ldexp(max(s_x - s_rc, 0.0), power),
        dsc=ldexp(max(s_r - s_rc, 0.0), power),
        unc=ldexp(s_r, power),
        reference=ldexp(r, d.e),
        recalibrated=np.ldexp(rc, d.e) if d.e else rc,
        fit=fit,
    )


def _decomposition(
    y_true: Any, y_pred: Any, sample_weight: Any, level: float | None
) -> tuple[_Data, _Parts]:
    """The validated rows and their decomposition: within
    :func:`ranklens._foundation.shared.shared_results`, one fit per model, weights and score
    for every caller (a model's miscalibration and discrimination, its table row and its
    reliability diagram)."""
    d = _prepare(y_true, y_pred, sample_weight)
    kind = f"score decomposition at level {level!r}, scaled by 2**{d.e}"
    return d, shared(kind, (d.ys, d.xs, d.w), lambda: _decompose(d, level))


def _score_name(level: float | None) -> str:
    return "squared error" if level is None else f"pinball loss at level {level:g}"


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


@raises_input_errors("y_true", "y_pred", probabilities=("quantile_level",))
@shared_paragraphs
def isotonic_recalibration(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    score: str = "squared_error",
    quantile_level: float | None = None,
) -> FloatArray:
    """The isotonic recalibration of ``y_pred``: the best non-decreasing function of it.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(sample_weight_rows)s
    %(calibration_score)s

    Returns
    -------
    ndarray of shape (n,)
        ``x_rc``, in the order of the rows: constant on blocks of adjacent predictions, with
        equal predictions always in the same block.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``x_rc = argmin sum_i w_i S(g(x_i), y_i)`` over non-decreasing ``g``, found by
    pool-adjacent-violators after pooling ties in ``x`` (scikit-learn's ``IsotonicRegression``
    treats ties the same way and gives the same values for the squared error). For the squared
    error each block takes the weighted mean of its ``y``; for the pinball loss
    ``S(x, y) = (1{y < x} - alpha)(x - y)`` the smallest weighted ``alpha``-quantile of its
    ``y``, the pooling of Jordan, Mühlemann & Ziegel (2022). A row of zero weight takes the
    value at the nearest weighted prediction below it (the first block's, below them all).

    References
    ----------
    %(dimitriadis2021)s

    %(jordan2022)s

    Examples
    --------
    >>> isotonic_recalibration([1.0, 3.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    array([1. , 2.5, 2.5, 4. ])
    """
    level = _check_score(score, quantile_level)
    d = _prepare(y_true, y_pred, sample_weight)
    rc = _row_values(d, _fit(d, level))
    return np.ldexp(rc, d.e) if d.e else rc.copy()


@dataclasses.dataclass(frozen=True)
class ScoreDecomposition(Result):
    """The CORP decomposition of one model's mean score (:func:`score_decomposition`).

    Attributes
    ----------
    score : str
        ``"squared_error"`` or ``"pinball"``.
    quantile_level : float or None
        The pinball loss's level (None for the squared error).
    mean_score : float
        ``S(x)``, the model's mean score: ``mcb - dsc + unc``.
    mcb : float
        Miscalibration ``S(x) - S(x_rc)``: what isotonic recalibration would gain (>= 0).
    dsc : float
        Discrimination ``S(r) - S(x_rc)``: what the ordering of the predictions is worth (>= 0).
    unc : float
        Uncertainty ``S(r)``: the score of the best constant prediction, the same for every model.
    reference : float
        ``r``, that constant: the weighted mean (or ``quantile_level``-quantile) of ``y_true``.
    n : int
        Rows.
    n_blocks : int
        Constant pieces of the recalibration (the CORP diagram's steps).
    recalibrated : ndarray of shape (n,)
        ``x_rc`` in the order of the rows.
    method : str
        How the parts were computed, in words.
    """

    score: str
    quantile_level: float | None
    mean_score: float
    mcb: float
    dsc: float
    unc: float
    reference: float
    n: int
    n_blocks: int
    recalibrated: np.ndarray
    method: str

    def to_frame(self) -> pd.DataFrame:
        """One row: ``mean_score``, ``mcb``, ``dsc``, ``unc``, ``reference`` and the settings.

        Returns
        -------
        pandas.DataFrame
            The decomposition (the recalibrated values stay on :attr:`recalibrated`).
        """
        import pandas as pd

        keys = ("mean_score", "mcb", "dsc", "unc", "reference", "score", "quantile_level", "n")
        return pd.DataFrame([{k: getattr(self, k) for k in (*keys, "n_blocks")}])

    def statement(self) -> str:
        """One sentence for a report: the score, its three parts and how they were found.

        Returns
        -------
        str
            E.g. ``"Mean squared error 1.25 = MCB 0.25 - DSC 1 + UNC 2 (...)"``.
        """
        name = "Mean squared error" if self.score == "squared_error" else (
            f"Mean pinball loss at level {self.quantile_level:g}"
        )  # fmt: skip
        return (
            f"{name} {self.mean_score:.4g} = MCB {self.mcb:.4g} - DSC {self.dsc:.4g} + UNC "
            f"{self.unc:.4g} (CORP decomposition: {self.method}; {_CITATION})."
        )


def _method(level: float | None, n_blocks: int) -> str:
    pooled = "weighted means" if level is None else f"weighted {level:g}-quantiles"
    return (
        f"isotonic recalibration by pool-adjacent-violators ({pooled} of {n_blocks} "
        f"block{'s' if n_blocks != 1 else ''}), {_score_name(level)}"
    )


@raises_input_errors("y_true", "y_pred", probabilities=("quantile_level",))
@shared_paragraphs
def score_decomposition(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    score: str = "squared_error",
    quantile_level: float | None = None,
) -> ScoreDecomposition:
    """Miscalibration, discrimination and uncertainty: ``S(x) = MCB - DSC + UNC``.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(sample_weight_rows)s
    %(calibration_score)s

    Returns
    -------
    ScoreDecomposition
        ``mean_score``, ``mcb``, ``dsc``, ``unc``, the constant ``reference`` and the
        recalibrated values.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    With ``S(z) = sum_i w_i S(z_i, y_i) / sum_i w_i``, ``x_rc`` the isotonic recalibration of
    ``x`` (:func:`isotonic_recalibration`) and ``r`` the best constant (the weighted mean of
    ``y``, or its weighted ``alpha``-quantile for the pinball loss):

    ``MCB = S(x) - S(x_rc)``, ``DSC = S(r) - S(x_rc)``, ``UNC = S(r)``,

    so ``S(x) = MCB - DSC + UNC`` holds to rounding (Dimitriadis et al. 2021, eq. 3 for the
    Brier score; Gneiting & Resin 2023, Theorem 4 for any consistent score of the mean or a
    quantile). ``MCB >= 0`` since ``x`` itself is a non-decreasing function of ``x``, and
    ``DSC >= 0`` since a constant is one; ``MCB = 0`` exactly when ``x`` is its own
    recalibration. Every value is defined for valid input (a constant ``y_true`` has
    ``UNC = DSC = 0``).

    The squared error and the pinball loss are computed on the data scaled by one power of two,
    exactly, so values of any magnitude give a result whenever it is a float.

    References
    ----------
    %(dimitriadis2021)s

    %(gneiting2023)s

    %(jordan2022)s

    Examples
    --------
    >>> d = score_decomposition([1.0, 3.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    >>> d.mcb, d.dsc, d.unc, d.mean_score
    (0.375, 1.125, 1.25, 0.5)
    """
    level = _check_score(score, quantile_level)
    d, parts = _decomposition(y_true, y_pred, sample_weight, level)
    return ScoreDecomposition(
        score=str(score),
        quantile_level=level,
        mean_score=parts.mean_score,
        mcb=parts.mcb,
        dsc=parts.dsc,
        unc=parts.unc,
        reference=parts.reference,
        n=int(d.ys.shape[0]),
        n_blocks=parts.fit.n_blocks,
        recalibrated=parts.recalibrated.copy(),  # the fit may be shared
        method=_method(level, parts.fit.n_blocks),
    )


@dataclasses.dataclass(frozen=True)
class ScoreDecompositionTable(Result):
    """The CORP decomposition of several models on the same data (:func:`score_decompositions`).

    Attributes
    ----------
    models : tuple of str
        The models, in the order given.
    mean_score, mcb, dsc, unc : ndarray of shape (n_models,)
        Each model's mean score and its three parts (``unc`` is the same for all).
    reference : float
        The best constant prediction.
    score : str
        ``"squared_error"`` or ``"pinball"``.
    quantile_level : float or None
        The pinball loss's level.
    n : int
        Rows.
    """

    models: tuple[str, ...]
    mean_score: np.ndarray
    mcb: np.ndarray
    dsc: np.ndarray
    unc: np.ndarray
    reference: float
    score: str
    quantile_level: float | None
    n: int

    def to_frame(self) -> pd.DataFrame:
        """One row per model: ``mean_score``, ``mcb``, ``dsc``, ``unc``.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``model``; the settings in ``frame.attrs``.
        """
        import pandas as pd

        frame = pd.DataFrame(
            {"mean_score": self.mean_score, "mcb": self.mcb, "dsc": self.dsc, "unc": self.unc},
            index=pd.Index(list(self.models), name="model"),
        )
        frame.attrs.update(
            reference=self.reference, score=self.score, quantile_level=self.quantile_level, n=self.n
        )
        return frame

    def statement(self) -> str:
        """Which model scores best, which discriminates best and which is best calibrated.

        Returns
        -------
        str
            Sentences for a report. When the best score and the best discrimination belong to
            different models, it says that the order would change after recalibration.
        """
        if not self.models:
            return "No model."
        best = self.models[int(np.argmin(self.mean_score))]
        sharp = self.models[int(np.argmax(self.dsc))]
        calibrated = self.models[int(np.argmin(self.mcb))]
        text = (
            f"{best} has the lowest mean score ({self.mean_score.min():.4g}); {sharp} "
            f"discriminates best (DSC {self.dsc.max():.4g}); {calibrated} is the best calibrated "
            f"(MCB {self.mcb.min():.4g})."
        )
        if self.dsc[self.models.index(best)] < self.dsc.max() * (1 - 1e-12):
            text += (
                f" Recalibrated, {sharp} would beat {best}: its lead is in calibration, which "
                "an isotonic map of its predictions fixes, not in their order."
            )
        return text


@raises_input_errors(
    "y_true",
    "predictions",
    probabilities=("quantile_level",),
    also=("if ``predictions`` is empty",),
)
@shared_paragraphs
def score_decompositions(
    y_true: ArrayLike,
    predictions: Mapping[str, ArrayLike],
    *,
    sample_weight: ArrayLike | None = None,
    score: str = "squared_error",
    quantile_level: float | None = None,
) -> ScoreDecompositionTable:
    """:func:`score_decomposition` for several models on the same data: one row per model.

    Parameters
    ----------
    %(y_true_finite)s
    predictions : mapping of str to array-like of shape (n,)
        Each model's predictions, by name.
    %(sample_weight_rows)s
    %(calibration_score)s

    Returns
    -------
    ScoreDecompositionTable
        ``mean_score``, ``mcb``, ``dsc`` and ``unc`` per model; ``to_frame()`` is the table.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``UNC`` is the same for every model; so the difference of two models' mean scores is
    ``(MCB_a - MCB_b) - (DSC_a - DSC_b)``, a difference of calibration and a difference of
    discrimination. After recalibration only the second remains: the model with the larger DSC
    would have the lower score. :func:`ranklens.compare_models` with
    ``metrics=["miscalibration", "discrimination"]`` gives paired bootstrap intervals for both
    differences.

    References
    ----------
    %(dimitriadis2021)s

    %(gneiting2023)s

    Examples
    --------
    >>> y = [1.0, 3.0, 2.0, 4.0]
    >>> t = score_decompositions(y, {"a": [1.0, 2.0, 3.0, 4.0], "b": [2.0, 3.0, 4.0, 5.0]})
    >>> t.to_frame()["mcb"].tolist()
    [0.375, 1.375]
    """
    level = _check_score(score, quantile_level)
    if not isinstance(predictions, Mapping) or not predictions:
        raise ValueError(
            "predictions must be a non-empty mapping of model names to predictions; "
            f"got {type(predictions).__name__}"
        )
    parts = [
        score_decomposition(
            y_true, pred, sample_weight=sample_weight, score=score, quantile_level=quantile_level
        )
        for pred in predictions.values()
    ]
    return ScoreDecompositionTable(
        models=tuple(str(name) for name in predictions),
        mean_score=np.array([p.mean_score for p in parts]),
        mcb=np.array([p.mcb for p in parts]),
        dsc=np.array([p.dsc for p in parts]),
        unc=np.array([p.unc for p in parts]),
        reference=parts[0].reference,
        score=str(score),
        quantile_level=level,
        n=parts[0].n,
    )


# --------------------------------------------------------------------------------------------
# The reliability diagram
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class ReliabilityDiagramResult(CurveResult):
    """The CORP reliability diagram of one model (:func:`reliability_diagram`).

    A step function: at each distinct prediction (with positive weight), in increasing order, the
    recalibrated value; and the consistency band, where the curve lies with the stated
    probability if the predictions were calibrated.

    Attributes
    ----------
    prediction : ndarray of shape (m,)
        The distinct predictions, increasing (``x``).
    recalibrated : ndarray of shape (m,)
        The isotonic recalibration at each (``y``); the curve is constant from one prediction to
        the next.
    band_low, band_high : ndarray of shape (m,)
        The consistency band at each prediction. With ``n_bootstrap=0``, NaN: one read-only
        array of shape (m,) that holds a single value (``np.broadcast_to``).
    weight : ndarray of shape (m,)
        The total weight (rows, unweighted) at each prediction.
    mean_score, mcb, dsc, unc : float
        The decomposition (:func:`score_decomposition`).
    score : str
        ``"squared_error"`` or ``"pinball"``.
    quantile_level : float or None
        The pinball loss's level.
    confidence_level : float
        The band's probability.
    n_bootstrap : int
        Resamples behind the band.
    band_method : str
        How the band was made, in words.
    """

    prediction: np.ndarray
    recalibrated: np.ndarray
    band_low: np.ndarray
    band_high: np.ndarray
    weight: np.ndarray
    mean_score: float
    mcb: float
    dsc: float
    unc: float
    score: str
    quantile_level: float | None
    confidence_level: float
    n_bootstrap: int
    band_method: str

    x_field = "prediction"
    y_field = "recalibrated"
    x_label = "prediction"
    y_label = "recalibrated prediction"

    @property
    def area(self) -> float:
        """NaN: a reliability diagram has no summary area (its summary is :attr:`mcb`)."""
        return math.nan


_BAND_METHOD = (
    "residual bootstrap under calibration: y* = x + e*, e* drawn with replacement (in proportion "
    "to the weights) from the residuals y - x_rc of the recalibrated fit, then recalibrated again"
)


#: Cells (resamples times predictions) of one block of the band's quantiles.
_BAND_BLOCK_CELLS = 1 << 22


def _consistency_band(
    d: _Data, parts: _Parts, level: float | None, n_bootstrap: int, confidence: float, seed: Any
) -> tuple[FloatArray, FloatArray]:
    """Pointwise quantiles, at each distinct prediction, of the recalibrations of resamples
    drawn under the hypothesis that ``x`` is calibrated (scaled units).

    Each resample's recalibration is a step function of the prediction, kept as its steps (where
    its value changes, and the values). The quantiles change only where some resample's curve
    steps, so they are taken there, in blocks of :data:`_BAND_BLOCK_CELLS` cells, and carried to
    the predictions up to the next step: the numbers of quantiles over every prediction at once,
    in memory of the order of the steps rather than resamples times predictions.
    """
    fit = parts.fit
    m = fit.group_x.shape[0]
    if n_bootstrap == 0:  # no band: NaN everywhere, a read-only view of one value
        nan = np.broadcast_to(np.float64(np.nan), (m,))
        return nan, nan
    rows = fit.order  # rows of positive weight, sorted by prediction
    rc = _fitted_values(fit)
    residuals = d.ys[rows] - rc
    w = np.ones(rows.shape[0]) if d.w is None else d.w[rows]
    p = None if d.w is None else w / w.sum()
    rng = np.random.default_rng(seed)
    xs = d.xs[rows]
    # the resamples keep the predictions and the weights: the same groups every time
    starts, group_weight = _groups(xs, w)
    steps: list[np.ndarray] = []
    levels: list[FloatArray] = []
    for _ in range(n_bootstrap):
        draw = rng.choice(residuals.shape[0], size=residuals.shape[0], replace=True, p=p)
        values, firsts = _block_values(xs + residuals[draw], w, starts, group_weight, level)
        values = np.asarray(values, dtype=np.float64)
        # the curve steps where a block's value differs from the one before (pinball blocks
        # may repeat a value)
        change = np.ones(values.shape[0], dtype=bool)
        change[1:] = values[1:] != values[:-1]
        steps.append(np.asarray(firsts, dtype=np.int64)[change])
        levels.append(values[change])
    changes = np.unique(np.concatenate(steps))  # the predictions where any curve steps
    tail = (1.0 - confidence) / 2.0
    low_at, high_at = np.empty(changes.shape[0]), np.empty(changes.shape[0])
    block = max(1, _BAND_BLOCK_CELLS // n_bootstrap)
    for first in range(0, changes.shape[0], block):
        at = changes[first : first + block]
        values = np.stack(
            [
                v[np.searchsorted(s, at, side="right") - 1]
                for s, v in zip(steps, levels, strict=True)
            ]
        )
        quantiles = np.quantile(values, [tail, 1.0 - tail], axis=0)
        low_at[first : first + at.shape[0]], high_at[first : first + at.shape[0]] = quantiles
    step_of = np.searchsorted(changes, np.arange(m), side="right") - 1
    return low_at[step_of], high_at[step_of]


@raises_input_errors(
    "y_true",
    "y_pred",
    probabilities=("quantile_level", "confidence_level"),
    also=("if ``n_bootstrap`` is negative or not an integer",),
)
@shared_paragraphs
def reliability_diagram(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    score: str = "squared_error",
    quantile_level: float | None = None,
    n_bootstrap: int = 200,
    confidence_level: float = 0.9,
    random_state: Any = None,
) -> ReliabilityDiagramResult:
    """The CORP reliability diagram: recalibrated against original predictions, with bands.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(sample_weight_rows)s
    %(calibration_score)s
    n_bootstrap : int, default 200
        Resamples behind the consistency band (0: no band).
    confidence_level : float in (0, 1), default 0.9
        The band's probability at each prediction.
    random_state : None, int or numpy Generator, optional
        Seed of the resampling.

    Returns
    -------
    ReliabilityDiagramResult
        The step curve (``prediction``, ``recalibrated``), the band and the decomposition.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The curve is the graph of the isotonic recalibration (Dimitriadis et al. 2021): consistent,
    optimally binned (the blocks of PAV are the bins, no tuning), reproducible. A calibrated
    model's curve lies on the diagonal; its distance from it, averaged by the score, is MCB.

    The consistency band follows Dimitriadis et al. (2021, Sect. 3): resample the outcome under
    the hypothesis that the predictions are calibrated, recalibrate each resample, and take
    pointwise quantiles. Their binary outcome is drawn as Bernoulli(x); a real-valued outcome
    has no such law given ``x``, so, as Gneiting & Resin (2023, Sect. 3.3) suggest, the
    resample is ``y*_i = x_i + e*_i`` with ``e*`` drawn with replacement from the residuals
    ``y - x_rc`` of the recalibrated fit. Those residuals have weighted mean 0 (for the pinball
    loss, a zero ``alpha``-quantile) within each block, so ``x`` is the conditional mean (or
    quantile) of ``y*``: the hypothesis holds in the resampled world, and the spread of the
    residuals, not that of an assumed law, sets the band's width. Drawing from all residuals
    assumes their spread does not change much with ``x``; where it does the band is too narrow
    at the noisy end and too wide at the quiet one. A curve outside its band at a prediction
    says the model is miscalibrated there beyond what sampling explains.

    References
    ----------
    %(dimitriadis2021)s

    %(gneiting2023)s

    Examples
    --------
    >>> r = reliability_diagram([1.0, 3.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0], n_bootstrap=0)
    >>> r.prediction.tolist(), r.recalibrated.tolist()
    ([1.0, 2.0, 3.0, 4.0], [1.0, 2.5, 2.5, 4.0])
    """
    level = _check_score(score, quantile_level)
    n_boot = check_positive_int(n_bootstrap, "n_bootstrap", minimum=0)
    confidence = check_probability(confidence_level, "confidence_level")
    seed = check_random_state(random_state)
    d, parts = _decomposition(y_true, y_pred, sample_weight, level)
    low, high = _consistency_band(d, parts, level, n_boot, confidence, seed)
    fit = parts.fit

    def unscaled(v: FloatArray) -> FloatArray:  # a new array: the fit may be shared
        return np.ldexp(v, d.e) if d.e else v.copy()

    if n_boot:
        low, high = unscaled(low), unscaled(high)
    return ReliabilityDiagramResult(
        prediction=unscaled(fit.group_x),
        recalibrated=unscaled(fit.group_value),
        band_low=low,
        band_high=high,
        weight=fit.group_weight.copy(),
        mean_score=parts.mean_score,
        mcb=parts.mcb,
        dsc=parts.dsc,
        unc=parts.unc,
        score=str(score),
        quantile_level=level,
        confidence_level=confidence,
        n_bootstrap=n_boot,
        band_method=_BAND_METHOD if n_boot else "none",
    )


# --------------------------------------------------------------------------------------------
# Registered measures
# --------------------------------------------------------------------------------------------


def _persistent_pav(sums: list[float], counts: list[float]) -> tuple[list[int], list[Any]]:
    """PAV over groups as a persistent stack: the top node before each group, and the nodes.

    Node ``k`` is a block ``(sum, count, below, q)`` with ``q`` the sum of ``sum**2 / count``
    over it and every block below it; a merge pushes a new node and leaves the old ones, so the
    stack as it stood before any group stays readable (:func:`_leave_one_out_parts`).
    """
    nodes: list[tuple[float, float, int, float]] = []
    tops: list[int] = []
    top = -1
    for s_g, c_g in zip(sums, counts, strict=True):
        tops.append(top)
        total, count = s_g, c_g
        while top >= 0 and nodes[top][0] / nodes[top][1] >= total / count:
            total, count, top = total + nodes[top][0], count + nodes[top][1], nodes[top][2]
        below_q = nodes[top][3] if top >= 0 else 0.0
        nodes.append((total, count, top, below_q + total * total / count))
        top = len(nodes) - 1
    return tops, nodes


def _merged_q(
    middle: tuple[float, float], left: int, lnodes: list[Any], right: int, rnodes: list[Any]
) -> float:
    """``sum S**2 / W`` over the blocks of the PAV of (left stack, middle, right stack): the
    middle block absorbs the neighbours that violate the order; the others stay as they are.
    The right stack is the PAV of the groups in reverse order with their sums negated (a
    non-decreasing fit read backwards is non-increasing)."""
    total, count = middle
    if count == 0:  # the group is gone: its neighbours meet
        if left >= 0:
            total, count, left = lnodes[left][0], lnodes[left][1], lnodes[left][2]
        elif right >= 0:
            total, count, right = -rnodes[right][0], rnodes[right][1], rnodes[right][2]
        else:
            return math.nan
    while True:
        if left >= 0 and lnodes[left][0] / lnodes[left][1] >= total / count:
            total, count, left = total + lnodes[left][0], count + lnodes[left][1], lnodes[left][2]
        elif right >= 0 and total / count >= -rnodes[right][0] / rnodes[right][1]:
            total, count = total - rnodes[right][0], count + rnodes[right][1]
            right = rnodes[right][2]
        else:
            break
    outer = (lnodes[left][3] if left >= 0 else 0.0) + (rnodes[right][3] if right >= 0 else 0.0)
    return outer + total * total / count


def _leave_one_out_parts(y: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """MCB and DSC of the squared error without row ``i``, for every ``i`` (unweighted), exactly.

    Without a row of group ``g`` the recalibration is the PAV of three monotone pieces: the
    blocks of the left-to-right pass as they stood before ``g``, the group less the row, and the
    blocks of the right-to-left pass before ``g`` (the full solution is constant on the blocks
    of each side's own solution). Both passes are kept as persistent stacks, so each row costs
    the merges at its group only. ``y`` is centred first, so ``sum y**2 - sum S**2 / W``
    cancels little.
    """
    d = _prepare(y, p, None)
    n = d.ys.shape[0]
    if n < 2:
        return np.full(n, np.nan), np.full(n, np.nan)
    yc = d.ys - d.ys.mean()
    order = np.argsort(d.xs, kind="stable")
    xs = d.xs[order]
    new = np.ones(n, dtype=bool)
    new[1:] = xs[1:] != xs[:-1]
    starts = np.flatnonzero(new)
    group_of = np.cumsum(new) - 1
    sums = np.add.reduceat(yc[order], starts).tolist()
    counts = np.diff(np.append(starts, n)).astype(np.float64).tolist()
    left_tops, lnodes = _persistent_pav(sums, counts)
    right_tops, rnodes = _persistent_pav([-v for v in sums[::-1]], counts[::-1])
    n_groups = len(sums)
    q = np.empty(n)
    for k, (row, g) in enumerate(zip(order.tolist(), group_of.tolist(), strict=True)):
        middle = (sums[g] - float(yc[row]), counts[g] - 1.0)
        q[k] = _merged_q(middle, left_tops[g], lnodes, right_tops[n_groups - 1 - g], rnodes)
    rest = n - 1
    squares = yc * yc
    sse_rc = np.empty(n)
    sse_rc[order] = (float(squares.sum()) - squares[order]) - q
    s_rc = sse_rc / rest
    residual = d.xs - d.ys
    s_x = (float((residual * residual).sum()) - residual * residual) / rest
    mean_rest = (float(yc.sum()) - yc) / rest
    unc = (float(squares.sum()) - squares) / rest - mean_rest * mean_rest
    power = 2 * d.e
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(np.maximum(s_x - s_rc, 0.0), power), np.ldexp(
            np.maximum(unc - s_rc, 0.0), power
        )


#: The most rows the pinball leave-one-out refits: n refits of O(n log n) each (seconds at this
#: size); above it the n values are NaN, with a warning.
_REFIT_MAX_ROWS = 2_000


def _leave_one_out_by_refit(func: Any, y: FloatArray, p: FloatArray, **params: Any) -> FloatArray:
    """``func`` without each row in turn, by refitting: O(n^2 log n), so NaN above a size.

    No exact update is known for the pinball loss (a row's removal moves a block's quantile,
    which may undo merges on either side), so each of the n samples is refitted, up to
    ``_REFIT_MAX_ROWS`` rows; above it every value is NaN and an
    :class:`~ranklens.exceptions.UndefinedMetricWarning` gives the reason and the size.
    """
    n = y.shape[0]
    if n > _REFIT_MAX_ROWS:
        warn_undefined(
            f"the leave-one-out of {func.__name__} with score='pinball' refits the isotonic "
            f"recalibration once per row, O(n^2 log n), and is not computed on {n} rows (at "
            f"most {_REFIT_MAX_ROWS}); its {n} values are NaN"
        )
        return np.full(n, np.nan)
    keep = np.ones(n, dtype=bool)
    out = np.empty(n)
    for i in range(n):
        keep[i] = False
        out[i] = func(y[keep], p[keep], **params)
        keep[i] = True
    return out


def _miscalibration_leave_one_out(y: FloatArray, p: FloatArray, **params: Any) -> FloatArray:
    if params.get("score", "squared_error") != "squared_error":
        return _leave_one_out_by_refit(miscalibration, y, p, **params)
    return _leave_one_out_parts(y, p)[0]


def _discrimination_leave_one_out(y: FloatArray, p: FloatArray, **params: Any) -> FloatArray:
    if params.get("score", "squared_error") != "squared_error":
        return _leave_one_out_by_refit(discrimination, y, p, **params)
    return _leave_one_out_parts(y, p)[1]


# No computational form: the recalibration pools adjacent rows in the order of the prediction,
# a sequential pass that neither sums nor sorts in pieces provide. The bootstrap sorts once and
# refits per replicate (_SWEEP); the leave-one-out is exact, O(n log n) plus the merges per row,
# for the squared error, and by refitting (up to _REFIT_MAX_ROWS rows) for the pinball loss.
@dataclasses.dataclass(frozen=True)
class _SweepState:
    """Each model's validated, scaled rows, its rows in the order of its prediction, and
    whether its predictions are all distinct (then every replicate's groups are single rows)."""

    data: tuple[_Data, ...]
    by_prediction: tuple[np.ndarray, ...]
    distinct: tuple[bool, ...]
    level: float | None


def _sweep_prepare(y_true: FloatArray, preds: FloatArray, params: Mapping[str, Any]) -> Any:
    """Sort each model's rows by its prediction once, for every replicate."""
    level = _check_score(params.get("score", "squared_error"), params.get("quantile_level"))
    data = tuple(_prepare(y_true, p, None) for p in preds)
    orders = tuple(np.argsort(d.xs, kind="stable") for d in data)
    in_order = [d.xs[o] for d, o in zip(data, orders, strict=True)]
    distinct = tuple(bool(np.all(xs[1:] != xs[:-1])) for xs in in_order)
    return _SweepState(data, orders, distinct, level)


#: Cells (replicates times rows) of the arrays one step of :func:`_squared_error_replicates`
#: holds: the replicates of a block are taken this many cells at a time.
_REPLICATE_CELLS = 1 << 20


def _squared_error_replicates(
    d: _Data, order: np.ndarray, weights: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """MCB and DSC of the squared error for each row of ``weights`` (replicates times rows, in
    row order, none summing to 0), for a model whose predictions are all distinct.

    The operations of :func:`_decompose` on each replicate, so its numbers bit for bit: every
    group is one row, so its mean is ``(w y) / w``; pool-adjacent-violators runs per replicate
    on its rows of positive weight; the means and scores are the same products summed along
    each row (NumPy sums a row of a 2-d array as it sums a 1-d one).
    """
    ys_sorted = d.ys[order]
    row_score = _scores(d.ys, d.xs, None)  # the prediction's own score does not change
    mcb, dsc = np.empty(weights.shape[0]), np.empty(weights.shape[0])
    step = max(1, _REPLICATE_CELLS // max(1, weights.shape[1]))
    for first in range(0, weights.shape[0], step):
        w = weights[first : first + step]
        sorted_w = w[:, order]
        recalibrated = np.empty_like(w)
        blocks = np.zeros(w.shape[1], dtype=np.int64)
        for r in range(w.shape[0]):
            kept = np.flatnonzero(sorted_w[r] > 0)
            kept_w = sorted_w[r, kept]
            values, firsts = pav_means((kept_w * ys_sorted[kept]) / kept_w, kept_w)
            # a row takes the block of the last fitted row at or before it (the first block,
            # before them all), as :func:`_row_values` does
            blocks[:] = 0
            blocks[kept[firsts]] = 1
            at = np.clip(np.cumsum(blocks) - 1, 0, None)
            recalibrated[r, order] = np.asarray(values, dtype=np.float64)[at]
        total = w.sum(axis=1)
        reference = (w * d.ys).sum(axis=1) / total
        s_x = (w * row_score).sum(axis=1) / total
        s_rc = (w * (recalibrated - d.ys) ** 2).sum(axis=1) / total
        s_r = (w * (reference[:, None] - d.ys) ** 2).sum(axis=1) / total
        gained, resolved = s_x - s_rc, s_r - s_rc
        with np.errstate(over="ignore", under="ignore"):
            # max(difference, 0.0) as the function takes it (a negative is rounding)
            mcb[first : first + step] = np.ldexp(np.where(gained < 0.0, 0.0, gained), 2 * d.e)
            dsc[first : first + step] = np.ldexp(np.where(resolved < 0.0, 0.0, resolved), 2 * d.e)
    return mcb, dsc


def _sweep_evaluate(state: _SweepState, weights: FloatArray, wanted: tuple[Any, ...]) -> Any:
    """``(rows, len(wanted), models)`` replicates of the miscalibration and the discrimination:
    one recalibration per replicate and model serves both, on the rows sorted once; for the
    squared error and distinct predictions the replicates' sums are taken together."""
    n_models = len(state.data)
    out = np.full((weights.shape[0], len(wanted), n_models), np.nan)
    n = weights.shape[1]
    live = np.flatnonzero(weights.sum(axis=1) > 0)  # the functions refuse weights summing to 0
    if live.size == 0:
        return out
    scaled = np.empty((live.size, n))
    for k, r in enumerate(live):
        w, _ = check_sample_weight_scaled(weights[r], n, integers_as_given=True)
        scaled[k] = w  # never None: these are weights
    for m, (d, order) in enumerate(zip(state.data, state.by_prediction, strict=True)):
        if state.level is None and state.distinct[m]:
            mcb, dsc = _squared_error_replicates(d, order, scaled)
        else:
            parts = [_decompose(_Data(d.ys, d.xs, w, d.e), state.level, order) for w in scaled]
            mcb = np.array([p.mcb for p in parts])
            dsc = np.array([p.dsc for p in parts])
        for j, statistic in enumerate(wanted):
            out[live, j, m] = mcb if statistic == "mcb" else dsc
    return out


#: The bootstrap of the miscalibration and the discrimination: the rows sorted by each model's
#: prediction once, then per replicate the recalibration on the replicate's weights, exactly as
#: the functions fit it (the same rows, in the same order, the same sums).
_SWEEP = ReplicateSweep(_sweep_prepare, _sweep_evaluate, "score decomposition, orders fixed")


@register_metric(
    "miscalibration",
    plain_name="error a recalibration would remove",
    meaning=(
        "How much of the squared error a monotone recalibration of the predictions would remove."
    ),
    direction="lower",
    family="residual",
    leave_one_out=lambda y, p, **params: _miscalibration_leave_one_out(y, p, **params),
    batched=ReplicateForm(_SWEEP, "mcb", ("score", "quantile_level")),
)
@raises_input_errors("y_true", "y_pred", probabilities=("quantile_level",))
@shared_paragraphs
def miscalibration(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    score: str = "squared_error",
    quantile_level: float | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Miscalibration ``MCB = S(x) - S(x_rc)``: what isotonic recalibration would gain.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(calibration_score)s
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better; 0 for a prediction that is its own isotonic recalibration.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The ``mcb`` of :func:`score_decomposition`: the mean score less the mean score of the
    isotonic recalibration ``x_rc``. Registered (``"miscalibration"``), so
    :func:`ranklens.compare_models` gives paired bootstrap intervals for the difference between
    two models; ``get_metric("miscalibration").bind(score="pinball", quantile_level=0.9)``
    compares the miscalibration of 0.9-quantile predictions. Not a mean of per-row losses (the
    recalibration is fitted to the rows), so it declares no ratio form; the bootstrap sorts the
    rows by the prediction once and refits the recalibration per replicate.

    References
    ----------
    %(dimitriadis2021)s

    %(gneiting2023)s

    %(jordan2022)s

    Examples
    --------
    >>> miscalibration([1.0, 3.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    0.375
    """
    level = _check_score(score, quantile_level)
    return _decomposition(y_true, y_pred, sample_weight, level)[1].mcb


@register_metric(
    "discrimination",
    plain_name="worth of the predictions' order",
    meaning=(
        "How much the ordering of the predictions is worth: the squared error it saves over the "
        "average."
    ),
    direction="higher",
    family="residual",
    leave_one_out=lambda y, p, **params: _discrimination_leave_one_out(y, p, **params),
    batched=ReplicateForm(_SWEEP, "dsc", ("score", "quantile_level")),
)
@raises_input_errors("y_true", "y_pred", probabilities=("quantile_level",))
@shared_paragraphs
def discrimination(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    score: str = "squared_error",
    quantile_level: float | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Discrimination ``DSC = S(r) - S(x_rc)``: what the ordering of the predictions is worth.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(calibration_score)s
    %(sample_weight_rows)s

    Returns
    -------
    float
        Higher is better; 0 when the recalibration is constant (the ordering carries nothing),
        ``UNC`` when it reproduces ``y_true``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The ``dsc`` of :func:`score_decomposition`: the score of the best constant ``r`` less the
    score of the isotonic recalibration. It depends on the predictions only through their order
    (any increasing map of ``y_pred`` has the same DSC), so it measures ranking on the scale of
    the score: of two models, the one with the larger DSC has the lower score once both are
    recalibrated.

    References
    ----------
    %(dimitriadis2021)s

    %(gneiting2023)s

    Examples
    --------
    >>> discrimination([1.0, 3.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    1.125
    """
    level = _check_score(score, quantile_level)
    return _decomposition(y_true, y_pred, sample_weight, level)[1].dsc
