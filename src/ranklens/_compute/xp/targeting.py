"""The targeting measures of many weight rows at once, written once for NumPy and CuPy.

A bootstrap replicate (or a case weight) changes the weights, never the order of the rows by the
score, so every targeting scalar of every replicate row - the AUC, the KS statistic, the area
under the cumulative gain curve, the accuracy ratio, the lift at a depth (Provost & Fawcett
2013, ch. 8; Fawcett 2006) and the standardised partial AUC (McClish 1989) - is read off
weighted prefix sums over one sequence sorted once (:func:`prepare`: rows by decreasing score,
ties kept together as one group, the curve being a straight segment across a tie). Each chunk of
replicates, an array of shape ``(rows, n)``, is then a fixed sequence of gathers, prefix sums at
the group ends and sums (:func:`curve_sums`, :func:`evaluate`), which a GPU runs at memory
bandwidth.

Events
------
The events are fixed per row (a 0/1 indicator, or ``y`` itself for the value curves), or, for a
continuous ``y_true`` under the default definition, the true top fraction ``q`` *of each
replicate*: the smallest ``y`` value ``v`` whose upper tail holds at least ``q`` of the
replicate's weight, ties at ``v`` included, as :func:`ranklens.targeting.roc_curve` defines it
for the weights it is given; with ``binary_fallback`` a replicate whose rows of positive weight
are all 0/1 takes ``y_true`` itself as its events, as the measure called on that replicate does.

Exact arithmetic
----------------
Integer weights (the bootstrap's multiplicities, times integer case weights) are summed in int64:
the cumulative weights and events, the AUC's Mann-Whitney sum ``sum dFP (TP + TP_prev)`` and the
gain area's ``sum dW (E + E_prev)`` are exact integers up to the final division (the caller keeps
the squared total weight of a replicate below ``2^62``), so the AUC is the CPU's value to the
last bit and the areas agree with its float sums to rounding. Fractional weights, and the value
curves, run the same code in float64.

References
----------
Provost, F. and Fawcett, T. (2013). *Data Science for Business*, ch. 8, "Visualizing Model
Performance". O'Reilly Media.

Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition Letters* 27(8),
861-874.

McClish, D. K. (1989). Analyzing a portion of the ROC curve. *Medical Decision Making* 9(3),
190-195.

Mann, H. B. and Whitney, D. R. (1947). On a test of whether one of two random variables is
stochastically larger than the other. *The Annals of Mathematical Statistics* 18(1), 50-60.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

import numpy as np

from ranklens._compute.xp import argsort_stable, free_bytes
from ranklens._compute.xp.rank import dense_ranks, run_bounds

__all__ = [
    "STATISTICS",
    "CurveSums",
    "TargetState",
    "curve_sums",
    "evaluate",
    "prepare",
    "statistic",
    "sums_bytes",
    "top_events",
]

#: The statistics :func:`statistic` computes (``"lift"``, ``"recall"`` and ``"precision"``
#: need a depth).
STATISTICS: tuple[str, ...] = (
    "auc",
    "ks",
    "gain_area",
    "accuracy_ratio",
    "lift",
    "partial_auc",
    "recall",
    "precision",
    "average_precision",
)

# The relative slack of the top-q threshold, as ranklens.targeting's (rounding of q * W).
_TOP_SLACK = 1e-12


@dataclasses.dataclass(eq=False)
class TargetState:
    """The weight-free structures of one model and one event definition (namespace arrays).

    Attributes
    ----------
    n : int
    order : array of int64
        The row at each position: decreasing score, ties by row (stable).
    g_end : array of int64
        Exclusive ends of the score tie groups (positions), in decreasing score.
    response : array or None
        Per position: the fixed response (float64: 0/1 events, or ``y`` for value curves); None
        for events defined per replicate (``top_q``).
    is_value : bool
        The response is ``y`` itself (value curves: no non-events, no ROC).
    top_q : float or None
        Events per replicate: the true top fraction ``q`` of the replicate's weight.
    binary_fallback : bool
        With ``top_q``: a replicate whose weighted rows are all 0/1 takes ``y`` as its events.
    y_rank : array of int64 or None
        Per position: the dense rank of ``y`` from the largest (0 = largest).
    y_desc : array of int64 or None
        Positions by decreasing ``y`` (stable).
    y_is_one, nonbinary : array of bool or None
        Per position: ``y == 1``; ``y`` not in {0, 1}.
    perfect : array of int64 or None
        For value curves: positions by decreasing response (the perfect ranking).
    """

    n: int
    order: Any
    g_end: Any
    response: Any = None
    is_value: bool = False
    top_q: float | None = None
    binary_fallback: bool = False
    y_rank: Any = None
    y_desc: Any = None
    y_is_one: Any = None
    nonbinary: Any = None
    perfect: Any = None


def prepare(
    xp: ModuleType,
    y: Any,
    p: Any,
    *,
    response: Any = None,
    is_value: bool = False,
    top_q: float | None = None,
    binary_fallback: bool = False,
) -> TargetState:
    """The sequence by decreasing score ``p`` and the event structures (float64, finite, n >= 1).

    Give the fixed per-row ``response`` (0/1 events, or ``y`` with ``is_value``), or ``top_q``
    for events per replicate (the true top fraction ``q`` of ``y``; with ``binary_fallback``,
    ``y`` itself for a replicate whose weighted rows are all 0/1).
    """
    n = int(p.shape[0])
    rp, _ = dense_ranks(xp, p)
    order = argsort_stable(xp, -rp)
    ps = rp[order]
    _, g_end = run_bounds(xp, ps[1:] != ps[:-1], n)
    state = TargetState(n=n, order=order, g_end=g_end, is_value=is_value)
    if response is not None:
        state.response = xp.asarray(response, dtype=xp.float64)[order]
        if is_value:
            state.perfect = argsort_stable(xp, -state.response)
        return state
    if top_q is None:
        raise ValueError("prepare needs a response or top_q")
    ys = y[order]
    ry, n_y = dense_ranks(xp, ys)
    state.top_q = float(top_q)
    state.binary_fallback = bool(binary_fallback)
    state.y_rank = (n_y - 1) - ry
    state.y_desc = argsort_stable(xp, state.y_rank)
    state.y_is_one = ys == 1.0
    state.nonbinary = (ys != 0.0) & (ys != 1.0)
    return state


def sums_bytes(n: int) -> int:
    """Peak memory per weight row of :func:`curve_sums` and :func:`statistic`."""
    return 12 * 8 * (n + 2)


@dataclasses.dataclass(frozen=True)
class CurveSums:
    """Cumulative sums at the group ends of each weight row, with a leading 0 (rows, groups + 1).

    ``cw`` weight, ``ce`` events (or value); ``total`` and ``events`` per row; ``exact``: int64
    sums of integer weights. ``perfect_area`` (value curves): the perfect ranking's gain area.
    """

    cw: Any
    ce: Any
    total: Any
    events: Any
    exact: bool
    is_value: bool
    perfect_area: Any = None


def top_events(xp: ModuleType, state: TargetState, ws: Any) -> tuple[Any, Any]:
    """``(events, at)``: the ``(rows, n)`` bool events of each weight row ``ws`` (in position
    order) under ``top_q``, and per row the position of a row whose ``y`` is the threshold ``v``
    (the smallest value whose upper tail holds at least ``q`` of the row's weight)."""
    acc = xp.int64 if ws.dtype.kind in "iu" else xp.float64
    cy = xp.cumsum(ws[:, state.y_desc], axis=1, dtype=acc).astype(xp.float64)
    threshold = state.top_q * cy[:, -1:] * (1.0 - _TOP_SLACK)
    j = xp.minimum(xp.sum(cy < threshold, axis=1), state.n - 1)
    del cy
    at = state.y_desc[j]
    v_rank = state.y_rank[at]  # the rank of the threshold value v
    return state.y_rank[None, :] <= v_rank[:, None], at


def _events(xp: ModuleType, state: TargetState, ws: Any) -> Any:
    """``(rows, n)`` bool events of each replicate row under ``top_q`` (see the module notes)."""
    events, _ = top_events(xp, state, ws)
    if state.binary_fallback:
        zero = xp.zeros((), dtype=ws.dtype)
        acc = xp.int64 if ws.dtype.kind in "iu" else xp.float64
        binary = xp.sum(xp.where(state.nonbinary[None, :], ws, zero), axis=1, dtype=acc) == 0
        events = xp.where(binary[:, None], state.y_is_one[None, :], events)
    return events


def curve_sums(xp: ModuleType, state: TargetState, weights: Any) -> CurveSums:
    """The cumulative sums of ``weights`` (rows, n; integer or float64, in row order).

    Raises ValueError, with the sizes, when the chunk cannot fit the free memory of its device
    (never an out-of-memory error half way).
    """
    need = sums_bytes(state.n) * int(weights.shape[0])
    if need > free_bytes(xp):
        raise ValueError(
            f"n = {state.n} rows is beyond this device's capacity: {weights.shape[0]} weight "
            f"row(s) of the targeting sums need about {need / 2**30:.1f} GiB and "
            f"{free_bytes(xp) / 2**30:.1f} GiB are free"
        )
    exact = bool(np.issubdtype(weights.dtype, np.integer)) and not state.is_value
    acc = xp.int64 if exact else xp.float64
    ws = weights[:, state.order]  # integer weights stay int32 (multiplicities): sums in int64
    if not exact:
        ws = ws.astype(xp.float64, copy=False)
    rows = ws.shape[0]
    zero = xp.zeros((), dtype=ws.dtype)
    if state.response is None:
        we = xp.where(_events(xp, state, ws), ws, zero)
    elif state.is_value:
        we = ws * state.response[None, :]
    else:
        we = xp.where(state.response[None, :] != 0, ws, zero)
    pad = xp.zeros((rows, 1), dtype=acc)
    cw = xp.concatenate([pad, xp.cumsum(ws, axis=1, dtype=acc)[:, state.g_end - 1]], axis=1)
    ce = xp.concatenate([pad, xp.cumsum(we, axis=1, dtype=acc)[:, state.g_end - 1]], axis=1)
    del we
    perfect = None
    if state.is_value:
        wp = ws[:, state.perfect]
        rp = state.response[state.perfect][None, :]
        cr = xp.cumsum(wp * rp, axis=1)
        before = cr - wp * rp
        num = xp.sum(wp * (before + cr), axis=1)  # sum dW (R + R_prev)
        total_w = cw[:, -1].astype(xp.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            perfect = 0.5 * num / (total_w * cr[:, -1])
        del wp, cr, before
    del ws
    return CurveSums(cw, ce, cw[:, -1], ce[:, -1], exact, state.is_value, perfect)


def _f(xp: ModuleType, a: Any) -> Any:
    return a.astype(xp.float64)


def statistic(
    xp: ModuleType,
    sums: CurveSums,
    which: str,
    depth: float | None = None,
    *,
    max_fpr: float | None = None,
) -> Any:
    """``(rows,)`` float64 of one statistic (:data:`STATISTICS`); NaN where it is undefined.

    * ``auc``: ``sum dFP (TP + TP_prev) / (2 P N)`` (trapezoids: ties count 1/2), NaN without
      events or non-events; ``ks``: ``max(0, max_t TP/P - FP/N)``.
    * ``gain_area``: ``sum dW (E + E_prev) / (2 W E)``, NaN without events;
      ``accuracy_ratio``: ``(area - 1/2) / (perfect area - 1/2)`` with the perfect area
      ``1 - p/2`` (``p = E / W``; value curves: the perfect ranking's area), NaN where the
      perfect model is no better than random.
    * ``lift``: ``G(depth) / depth`` with ``G`` read linearly between the group ends, as
      ``np.interp``; ``recall``: ``G(depth)``, the lift times the depth; ``precision``: the
      lift times the event share ``E / W``; ``average_precision``: ``sum dE P / E`` over the
      group ends, ``P = E / W`` there.
    * ``partial_auc``: McClish's (1989) standardised area under the ROC curve up to
      ``max_fpr``, ``(1 + (A - m) / (M - m)) / 2`` with ``A`` the trapezoids up to the curve's
      value at ``max_fpr`` (read as ``np.interp`` reads it), ``m = max_fpr^2 / 2`` and
      ``M = max_fpr``; NaN without events or non-events.
    """
    cw, ce = sums.cw, sums.ce
    total, events = _f(xp, sums.total), _f(xp, sums.events)
    nan = xp.full(total.shape, xp.nan)
    if which == "partial_auc":
        return _partial_auc(xp, sums, max_fpr)
    if which == "average_precision":
        if sums.is_value:
            raise ValueError(
                "the average precision needs binary events; the value curves have none"
            )
        ce_f, cw_f = _f(xp, ce), _f(xp, cw)
        with np.errstate(invalid="ignore", divide="ignore"):
            terms = xp.where(
                cw_f[:, 1:] > 0, (ce_f[:, 1:] - ce_f[:, :-1]) * (ce_f[:, 1:] / cw_f[:, 1:]), 0.0
            )
            value = xp.sum(terms, axis=1) / events
        return xp.where(events > 0, value, nan)
    if which in ("auc", "ks"):
        if sums.is_value:
            raise ValueError("the ROC needs binary events; the value curves have none")
        fp = cw - ce
        p, n_neg = events, _f(xp, fp[:, -1])
        ok = (p > 0) & (n_neg > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            if which == "auc":
                twice = xp.sum((fp[:, 1:] - fp[:, :-1]) * (ce[:, 1:] + ce[:, :-1]), axis=1)
                value = _f(xp, twice) / (2.0 * p * n_neg)
            else:
                gap = _f(xp, ce[:, 1:]) / p[:, None] - _f(xp, fp[:, 1:]) / n_neg[:, None]
                value = xp.maximum(xp.max(gap, axis=1), 0.0)
        return xp.where(ok, value, nan)
    ok = events > 0
    if which in ("gain_area", "accuracy_ratio"):
        twice = xp.sum((cw[:, 1:] - cw[:, :-1]) * (ce[:, 1:] + ce[:, :-1]), axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            area = xp.where(ok, _f(xp, twice) / (2.0 * total * events), nan)
        if which == "gain_area":
            return area
        if sums.is_value:
            perfect = sums.perfect_area
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                perfect = 1.0 - (events / total) / 2.0
        better = perfect > 0.5
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = (area - 0.5) / xp.where(better, perfect - 0.5, 1.0)
        return xp.where(better & ok, ratio, nan)
    if which in ("lift", "recall", "precision"):
        if depth is None or not 0.0 < depth <= 1.0:
            raise ValueError(f"the lift needs a depth in (0, 1]; got {depth!r}")
        with np.errstate(invalid="ignore", divide="ignore"):
            x = _f(xp, cw) / total[:, None]
            gain = _f(xp, ce) / events[:, None]
        m = x.shape[1]
        # the last point with x <= depth (np.interp's segment); x[0] = 0 <= depth
        j = xp.clip(xp.sum(x <= depth, axis=1) - 1, 0, m - 1)[:, None]
        k = xp.minimum(j + 1, m - 1)
        x0 = xp.take_along_axis(x, j, axis=1)[:, 0]
        x1 = xp.take_along_axis(x, k, axis=1)[:, 0]
        g0 = xp.take_along_axis(gain, j, axis=1)[:, 0]
        g1 = xp.take_along_axis(gain, k, axis=1)[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            inner = (g1 - g0) / (x1 - x0) * (depth - x0) + g0
        value = xp.where((j[:, 0] == m - 1) | (x1 <= x0) | (g1 == g0), g0, inner)
        lift = value / depth
        if which == "recall":
            lift = lift * depth
        elif which == "precision":
            with np.errstate(invalid="ignore", divide="ignore"):
                lift = lift * (events / total)
        return xp.where(ok, lift, nan)
    raise ValueError(f"unknown statistic {which!r}; one of {STATISTICS}")


def _partial_auc(xp: ModuleType, sums: CurveSums, max_fpr: float | None) -> Any:
    """:func:`statistic` ``"partial_auc"``: the trapezoids of the points with FPR <= ``max_fpr``
    and of the segment that crosses it, cut there (no row's curve crosses twice)."""
    if sums.is_value:
        raise ValueError("the ROC needs binary events; the value curves have none")
    if max_fpr is None or not 0.0 < max_fpr <= 1.0:
        raise ValueError(f"the partial AUC needs a max_fpr in (0, 1]; got {max_fpr!r}")
    tp, fp = _f(xp, sums.ce), _f(xp, sums.cw - sums.ce)
    p, n_neg = _f(xp, sums.events), fp[:, -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        x = fp / n_neg[:, None]
        y = tp / p[:, None]
        x0, x1, y0, y1 = x[:, :-1], x[:, 1:], y[:, :-1], y[:, 1:]
        at = (y1 - y0) / (x1 - x0) * (max_fpr - x0) + y0
        whole = (x1 - x0) * (y1 + y0)
        cut = (max_fpr - x0) * (at + y0)
    terms = xp.where(x1 <= max_fpr, whole, xp.where(x0 < max_fpr, cut, 0.0))
    low = 0.5 * max_fpr * max_fpr
    value = 0.5 * (1.0 + (0.5 * xp.sum(terms, axis=1) - low) / (max_fpr - low))
    return xp.where((p > 0) & (n_neg > 0), value, xp.full(p.shape, xp.nan))


def evaluate(
    xp: ModuleType, state: TargetState, weights: Any, which: str, depth: float | None = None
) -> Any:
    """``(rows,)`` float64 statistic ``which`` of every weight row (:func:`statistic`)."""
    return statistic(xp, curve_sums(xp, state, weights), which, depth)
