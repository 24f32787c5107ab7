"""The banded curve sweeps of many replicates at once, written once for NumPy and CuPy.

The device twin of :mod:`ranklens._kernels.curve_sweeps`: a bootstrap replicate changes the
weights, never the order of the rows, so the cutoff AUC (Rosset, Perlich & Zadrozny 2005, Fig. 2)
and the rank lift (Fig. 3) of every replicate row are read on the grid from weighted prefix sums
over one sequence sorted once (:func:`prepare`: rows by decreasing prediction, ties by decreasing
y). Each chunk of replicates is a fixed sequence of gathers, prefix sums at group boundaries and a
per-row binary search of the grid (:func:`cutoff_auc_grid`, :func:`rank_lift_grid`), which a GPU
runs at memory bandwidth.

Exact arithmetic
----------------
Integer weights (the bootstrap's multiplicities, times integer case weights) are summed in int64:
the doubled weighted midrank ``2 W(<) + W(=)`` of a prediction (or y) group is an integer, so the
Mann-Whitney sums ``2 U_c`` of the cuts and the rank-lift masses are exact integers up to the
final divisions (the caller keeps the squared total weight of a replicate below ``2^62``). The
cutoff AUC is then the numba kernel's value to the last bit before the interpolation; the rank
lift, which the numba kernel accumulates in floats along the sequence, agrees with it to rounding
(a relative 1e-13 at n = 1e3, growing with n). Fractional weights run the same code in float64.

Reading on the grid
-------------------
As ``np.interp`` and the curves' own ``at``: linear between the points, the end values beyond,
NaN when a replicate has no point. The segment of each grid value is found by a binary search per
row (``ceil(log2 m)`` gathers of shape ``(rows, grid)``); repeated points (rows of zero weight)
have equal coordinates and never start a segment.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.

Mann, H. B. and Whitney, D. R. (1947). On a test of whether one of two random variables is
stochastically larger than the other. *The Annals of Mathematical Statistics* 18(1), 50-60.
"""

from __future__ import annotations

import dataclasses
from types import ModuleType
from typing import Any

import numpy as np

from ranklens._xp import argsort_stable
from ranklens._xp.rank import _dense_ranks, _runs

__all__ = ["CurveState", "cutoff_auc_grid", "prepare", "rank_lift_grid", "sweep_bytes"]


@dataclasses.dataclass(frozen=True)
class CurveState:
    """The weight-free structures of one model's curve sweeps (arrays of the namespace).

    Attributes
    ----------
    n, n_y : int
    order : array of int64
        The row at each position: decreasing prediction, ties by decreasing y, then row.
    key : array of int64
        Dense rank of y (0 = smallest) at each position.
    p_start, p_end : array of int64
        Prediction tie groups as position ranges, in decreasing prediction.
    p_of : array of int64
        The prediction group of each position.
    y_order : array of int64
        Positions by increasing y (stable).
    y_start, y_end : array of int64
        The y groups as ranges of ``y_order``, in increasing y (every value is present).
    """

    n: int
    n_y: int
    order: Any
    key: Any
    p_start: Any
    p_end: Any
    p_of: Any
    y_order: Any
    y_start: Any
    y_end: Any


def prepare(xp: ModuleType, y: Any, p: Any) -> CurveState:
    """The sequence and tie groups of ``(y, p)`` (float64, finite, n >= 1): three stable sorts."""
    n = int(y.shape[0])
    ry, n_y = _dense_ranks(xp, y)
    rp, n_p = _dense_ranks(xp, p)
    order = argsort_stable(xp, ((n_p - 1) - rp) * n_y + ((n_y - 1) - ry))
    key = ry[order]
    pkey = rp[order]
    p_start, p_end = _runs(xp, pkey[1:] != pkey[:-1], n)
    change = xp.zeros(n, dtype=xp.int64)
    change[1:] = (pkey[1:] != pkey[:-1]).astype(xp.int64)
    p_of = xp.cumsum(change)
    y_order = argsort_stable(xp, key)
    ks = key[y_order]
    y_start, y_end = _runs(xp, ks[1:] != ks[:-1], n)
    return CurveState(n, int(n_y), order, key, p_start, p_end, p_of, y_order, y_start, y_end)


def sweep_bytes(n: int, n_y: int) -> int:
    """Peak memory per replicate row of the sweeps (weights, prefix sums, gathers)."""
    return 8 * (10 * (n + 2) + 6 * n_y)


def _padded_cumsum(xp: ModuleType, a: Any, acc: Any) -> Any:
    """``out[:, i]`` = sum of ``a[:, :i]``, shape ``(rows, m + 1)``."""
    out = xp.zeros((a.shape[0], a.shape[1] + 1), dtype=acc)
    xp.cumsum(a, axis=1, dtype=acc, out=out[:, 1:])
    return out


def _weights(xp: ModuleType, state: CurveState, weights: Any) -> tuple[Any, Any, bool]:
    exact = bool(np.issubdtype(weights.dtype, np.integer))
    acc = xp.int64 if exact else xp.float64
    return weights[:, state.order].astype(acc, copy=False), acc, exact


def _interp_rows(xp: ModuleType, xs: Any, ys: Any, a: Any, b: Any, grid: Any) -> Any:
    """Per row ``r``: ``np.interp(grid, xs[r, a_r:b_r], ys[r, a_r:b_r])`` (NaN when empty).

    ``xs`` non-decreasing along each row on ``[a_r, b_r)``; equal abscissae carry equal ordinates.
    """
    rows, m = xs.shape
    g = grid.shape[0]
    q = xp.broadcast_to(grid[None, :], (rows, g))
    empty = (b <= a)[:, None]
    first = xp.clip(a, 0, m - 1)[:, None]
    last = xp.clip(b - 1, 0, m - 1)[:, None]
    x_first = xp.take_along_axis(xs, first, axis=1)
    x_last = xp.take_along_axis(xs, last, axis=1)
    y_first = xp.take_along_axis(ys, first, axis=1)
    y_last = xp.take_along_axis(ys, last, axis=1)
    # the last point with x <= q, searched in [first, last): x[lo] <= q < x[hi]
    lo = xp.broadcast_to(first, (rows, g)).copy()
    hi = xp.broadcast_to(last, (rows, g)).copy()
    for _ in range(max(1, int(m).bit_length() + 1)):
        mid = (lo + hi) // 2
        below = xp.take_along_axis(xs, mid, axis=1) <= q
        lo = xp.where(below, mid, lo)
        hi = xp.where(below, hi, mid)
    nxt = xp.minimum(lo + 1, m - 1)
    x0 = xp.take_along_axis(xs, lo, axis=1)
    x1 = xp.take_along_axis(xs, nxt, axis=1)
    y0 = xp.take_along_axis(ys, lo, axis=1)
    y1 = xp.take_along_axis(ys, nxt, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        inner = (y1 - y0) / (x1 - x0) * (q - x0) + y0
    out = xp.where(q >= x_last, y_last, inner)
    out = xp.where(q <= x_first, y_first, out)
    return xp.where(empty, xp.nan, out)


def cutoff_auc_grid(xp: ModuleType, state: CurveState, weights: Any, grid: Any) -> Any:
    """Cutoff AUC (Rosset et al. 2005, Fig. 2) of each weight row of ``weights`` (rows, n) at
    ``grid``; ``(rows, n_grid)`` float64 in the namespace.

    Per cut c (the c + 1 largest y values positive): ``W_P`` and
    ``2 U_c = sum_{positives} w_i (2 W(<p_i) + W(=p_i)) - W_P^2`` from prefix sums over the
    prediction groups and then the y groups; ``AUC_c = U_c / (W_P (W - W_P))`` at
    ``x = W_P / W`` for the cuts with positive weight on both sides (the weight of each side
    summed over its own y values, so that a side without weight is exactly empty).
    """
    ws, acc, _ = _weights(xp, state, weights)
    cs = _padded_cumsum(xp, ws, acc)
    total = cs[:, -1:]
    end = cs[:, state.p_end]
    mid2 = 2 * (total - end) + (end - cs[:, state.p_start])  # 2 W(<) + W(=) per group
    del cs, end
    contrib = ws * mid2[:, state.p_of]
    del mid2
    c_w = _padded_cumsum(xp, ws[:, state.y_order], acc)
    c_s = _padded_cumsum(xp, contrib[:, state.y_order], acc)
    del contrib, ws
    wy = (c_w[:, state.y_end] - c_w[:, state.y_start])[:, ::-1]  # decreasing y
    sa = (c_s[:, state.y_end] - c_s[:, state.y_start])[:, ::-1]
    del c_w, c_s
    m = state.n_y - 1
    wp = xp.cumsum(wy, axis=1, dtype=acc)[:, :m]
    # the negatives' weight summed from the bottom: exactly 0 below an empty cut, where
    # ``W - W_P`` of float weights can be a rounding residue
    neg = xp.cumsum(wy[:, ::-1], axis=1, dtype=acc)[:, ::-1][:, 1:]
    u2 = xp.cumsum(sa, axis=1, dtype=acc)[:, :m] - wp * wp
    wpf = wp.astype(xp.float64)
    totf = total.astype(xp.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ys = xp.clip((u2.astype(xp.float64) * 0.5) / (wpf * (totf - wpf)), 0.0, 1.0)
        xs = wpf / totf
    a = xp.sum(wp <= 0, axis=1)
    b = m - xp.sum(neg <= 0, axis=1)
    if m == 0:
        return xp.full((weights.shape[0], grid.shape[0]), xp.nan)
    return _interp_rows(xp, xs, ys, a, b, grid)


def rank_lift_grid(xp: ModuleType, state: CurveState, weights: Any, grid: Any) -> Any:
    """Rank lift (Rosset et al. 2005, Fig. 3) of each weight row at ``grid``.

    Rows by decreasing prediction advance x by their weight and the model's mass by their weight
    times the mean doubled midrank of y over their prediction group, ``2 W(<y) + W(=y)``; the
    point after position t is ``x_t = X_t / W`` and ``(2 M_t + X_t) / (2 M + W)`` (the midrank
    plus one half, both axes as shares of their totals), after the point (0, 0).
    """
    ws, acc, _ = _weights(xp, state, weights)
    rows = ws.shape[0]
    c_y = _padded_cumsum(xp, ws[:, state.y_order], acc)
    ytot = c_y[:, state.y_end] - c_y[:, state.y_start]
    below = c_y[:, state.y_start]
    del c_y
    mid2 = 2 * below + ytot  # doubled midrank of each y value
    contrib = ws * mid2[:, state.key]
    del mid2, ytot, below
    cs = _padded_cumsum(xp, ws, acc)
    c_s = _padded_cumsum(xp, contrib, acc)
    del contrib, ws
    gw = (cs[:, state.p_end] - cs[:, state.p_start]).astype(xp.float64)
    g_s = (c_s[:, state.p_end] - c_s[:, state.p_start]).astype(xp.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean2 = xp.where(gw > 0, g_s / xp.where(gw > 0, gw, 1.0), 0.0)
    del gw, g_s
    start = state.p_start[state.p_of]
    within = (cs[:, 1:] - cs[:, start]).astype(xp.float64)
    mass2 = c_s[:, start].astype(xp.float64) + within * mean2[:, state.p_of]
    del within, mean2
    x_raw = cs[:, 1:].astype(xp.float64)
    total = cs[:, -1:].astype(xp.float64)
    denom = c_s[:, -1:].astype(xp.float64) + total
    del cs, c_s
    zero = xp.zeros((rows, 1), dtype=xp.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        xs = xp.concatenate([zero, x_raw / total], axis=1)
        ys = xp.concatenate([zero, (mass2 + x_raw) / denom], axis=1)
    del mass2, x_raw
    ok = total[:, 0] > 0
    a = xp.zeros(rows, dtype=xp.int64)
    b = xp.where(ok, state.n + 1, 0)
    return _interp_rows(xp, xs, ys, a, b, grid)
