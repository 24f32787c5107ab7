"""Error curves for regression: REC (Bi & Bennett 2003) and RROC (Hernandez-Orallo 2013).

* :func:`rec_curve`: the regression error characteristic curve cited in seed 000 (Sect. 2 and 4):
  the fraction of observations predicted within each error tolerance, and the area over it.
* :func:`rroc_curve`: the ROC space for regression: total over-estimation against total
  under-estimation as a constant shift is added to the predictions, and the area over it, in
  O(n log n) (the R package auditor draws it in O(n^2)).

Both are O(n log n): one sort plus cumulative sums.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import numpy as np

from ranklens._curve_registry import register_curve
from ranklens._results import Result
from ranklens._validation import FloatArray, check_pair, check_sample_weight

__all__ = ["RECCurveResult", "RROCCurveResult", "rec_curve", "rroc_curve"]

_REC_LOSSES = ("absolute", "squared")


@dataclasses.dataclass(frozen=True, repr=False)
class RECCurveResult(Result):
    """A regression error characteristic (REC) curve.

    Attributes
    ----------
    tolerance : ndarray
        0 followed by the distinct losses in increasing order (the curve's steps).
    accuracy : ndarray
        Weighted fraction of observations whose loss is ``<= tolerance`` (right-continuous ECDF).
    area_over_curve : float
        ``integral_0^max (1 - accuracy(t)) dt``; for this exact step curve it equals the mean
        loss (``mae`` for ``loss="absolute"``, ``mse`` for ``"squared"``).
    loss : str
        ``"absolute"`` (``|y - yhat|``) or ``"squared"`` (``(y - yhat)^2``).
    """

    tolerance: FloatArray
    accuracy: FloatArray
    area_over_curve: float
    loss: str


@register_curve("rec", family="residual")
def rec_curve(
    y_true: Any,
    y_pred: Any,
    *,
    loss: Literal["absolute", "squared"] = "absolute",
    sample_weight: Any = None,
) -> RECCurveResult:
    """Regression error characteristic curve (Bi & Bennett 2003; seed 000, refs. [1, 8]).

    ``accuracy(t) = sum_i w_i 1{L_i <= t} / sum_i w_i`` at every tolerance ``t``, with
    ``L_i = |y_i - yhat_i|`` or ``(y_i - yhat_i)^2``: the empirical CDF of the losses, drawn from
    ``t = 0`` to the largest loss.

    Curve and area: the curve is kept as the exact step function. Its area over the curve (AOC,
    up to accuracy 1) is then exactly the mean loss, the identity behind seed 000's remark that the
    AOC is evaluation non-robust (``AOC >= max_i |r_i| / n``, Sect. 4). Bi & Bennett join the
    points by straight lines, which gives a slightly smaller AOC that converges to the same value.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    loss : {"absolute", "squared"}, default "absolute"
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights.

    Returns
    -------
    RECCurveResult

    Examples
    --------
    >>> curve = rec_curve([1.0, 2.0, 4.0, 8.0], [1.0, 3.0, 2.0, 8.5])
    >>> curve.tolerance.tolist(), curve.accuracy.tolist(), curve.area_over_curve
    ([0.0, 0.5, 1.0, 2.0], [0.25, 0.5, 0.75, 1.0], 0.875)
    """
    if loss not in _REC_LOSSES:
        raise ValueError(f"loss must be one of {_REC_LOSSES}; got {loss!r}")
    y, p = check_pair(y_true, y_pred, min_n=2)
    w = check_sample_weight(sample_weight, y.shape[0])
    losses = np.abs(y - p) if loss == "absolute" else (y - p) ** 2
    if w is not None:  # zero-weight rows do not exist for the curve
        keep = w > 0
        losses, w = losses[keep], w[keep]
    values, inverse = np.unique(losses, return_inverse=True)
    mass = np.bincount(inverse, weights=w, minlength=values.shape[0])
    cdf = np.cumsum(mass) / mass.sum()
    cdf[-1] = 1.0
    if values[0] > 0.0:
        tolerance = np.concatenate(([0.0], values))
        accuracy = np.concatenate(([0.0], cdf))
    else:
        tolerance, accuracy = values, cdf
    area = float(np.sum(np.diff(tolerance) * (1.0 - accuracy[:-1])))
    return RECCurveResult(
        tolerance=tolerance, accuracy=accuracy, area_over_curve=area, loss=str(loss)
    )


@dataclasses.dataclass(frozen=True, repr=False)
class RROCCurveResult(Result):
    """A regression ROC (RROC) curve: total over- against total under-estimation.

    Attributes
    ----------
    shift : ndarray
        The shifts ``s`` (added to every prediction) at the curve's vertices, increasing; a vertex
        is where ``yhat_i + s = y_i`` for some i.
    over : ndarray
        ``OVER(s) = sum_i w_i max(yhat_i + s - y_i, 0)`` (>= 0, increasing in ``s``).
    under : ndarray
        ``UNDER(s) = sum_i w_i min(yhat_i + s - y_i, 0)`` (<= 0, increasing towards 0).
    area : float
        Area over the curve (between the curve and ``UNDER = 0``). Hernandez-Orallo (2013): it
        equals ``W^2 var_w(e) / 2``, with ``e = yhat - y``, ``W = sum w`` and ``var_w`` the
        weighted population variance of the errors (``n^2 sigma^2 / 2`` unweighted).
    model_over, model_under : float
        The model's own operating point, ``OVER(0)`` and ``UNDER(0)``.
    unbiased_shift : float
        The shift ``-mean_w(e)`` at which ``OVER + UNDER = 0`` (the curve meets the diagonal).
    """

    shift: FloatArray
    over: FloatArray
    under: FloatArray
    area: float
    model_over: float
    model_under: float
    unbiased_shift: float


def _strict_prefix_suffix(values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``sum_{l < k} values_l`` and ``sum_{l > k} values_l`` for every k."""
    prefix = np.concatenate(([0.0], np.cumsum(values)[:-1]))
    suffix = np.concatenate((np.cumsum(values[::-1])[::-1][1:], [0.0]))
    return prefix, suffix


@register_curve("rroc", family="residual")
def rroc_curve(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> RROCCurveResult:
    """Regression ROC curve of Hernandez-Orallo (2013), "ROC curves for regression", in O(n log n).

    With errors ``e_i = yhat_i - y_i`` and a shift ``s`` added to every prediction,
    ``OVER(s) = sum w_i (e_i + s)_+`` and ``UNDER(s) = -sum w_i (e_i + s)_-``. As ``s`` runs over
    the real line the point ``(OVER, UNDER)`` traces a convex, piecewise-linear curve from
    ``(0, -inf)`` to ``(+inf, 0)``; its vertices are at ``s = -e_i``. After one sort of the errors
    every vertex follows from prefix sums (the errors are centred first so the differences are
    computed without cancellation), so the whole curve costs O(n log n).

    The area over the curve is summed exactly by trapezoids (both coordinates are linear in ``s``
    between vertices; the two unbounded end pieces add no area) and equals
    ``W^2 var_w(e) / 2``. It depends on the spread of the errors only, not on their bias: the bias
    is read from the model's operating point ``(model_over, model_under)`` against the diagonal
    ``OVER = -UNDER``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights.

    Returns
    -------
    RROCCurveResult

    Examples
    --------
    >>> curve = rroc_curve([1.0, 2.0, 3.0], [1.5, 1.5, 3.0])
    >>> curve.shift.tolist(), curve.over.tolist(), curve.under.tolist()
    ([-0.5, 0.0, 0.5], [0.0, 0.5, 1.5], [-1.5, -0.5, 0.0])
    >>> curve.area
    0.75
    """
    y, p = check_pair(y_true, y_pred, min_n=2)
    w = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    e = p - y
    if w is not None:
        keep = w > 0
        e, w = e[keep], w[keep]
        total_w = float(w.sum())
        center = float((w * e).sum() / total_w)
    else:
        total_w = float(e.shape[0])
        center = float(e.mean())
    values, inverse = np.unique(e, return_inverse=True)  # increasing
    mass = np.bincount(inverse, weights=w, minlength=values.shape[0])
    c = values - center
    below_w, above_w = _strict_prefix_suffix(mass)  # weight of errors < and > values[k]
    below_wc, above_wc = _strict_prefix_suffix(mass * c)
    # vertex at s = -values[k]: OVER sums the errors above it, UNDER those below it
    over = np.maximum(above_wc - c * above_w, 0.0)
    under = np.minimum(-(c * below_w - below_wc), 0.0)
    # increasing shift = decreasing error
    shift, over, under = 0.0 - values[::-1], over[::-1], under[::-1]
    area = float(np.sum(np.diff(over) * -(under[:-1] + under[1:]) / 2.0))
    weight = 1.0 if w is None else w
    model_over = float(np.sum(np.maximum(e, 0.0) * weight))
    model_under = float(np.sum(np.minimum(e, 0.0) * weight))
    return RROCCurveResult(
        shift=shift,
        over=over,
        under=under,
        area=area,
        model_over=model_over,
        model_under=model_under,
        unbiased_shift=-center,
    )
