"""The banded curve sweeps of many replicates at once, written once for NumPy and CuPy.

The device twin of :mod:`ranklens._compute.kernels.curve_sweeps`: a bootstrap replicate changes the
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

NumPy forms of the kernels
--------------------------
:func:`cutoff_auc_grid_numpy`, :func:`cutoff_auc_sums_numpy`, :func:`gain_grid_numpy` and
:func:`targeting_replicates_numpy` take the numba kernels' arguments and return their numbers bit
for bit, for any non-negative float64 weights: every sequential sum of a kernel is a sequential
``np.cumsum`` started from 0.0, every scattered sum ``np.add.at`` in the kernel's order. A small
first call runs them while the kernels have no machine code in the process
(``ranklens._foundation.route.POLICY.band_grid_numpy_below``); O(n log n) per replicate row at most.

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

from ranklens._compute.xp import argsort_stable, band_routes
from ranklens._compute.xp.rank import dense_ranks, run_bounds

__all__ = [
    "CurveState",
    "cutoff_auc_grid",
    "cutoff_auc_grid_host",
    "cutoff_auc_grid_numpy",
    "cutoff_auc_sums_host",
    "cutoff_auc_sums_numpy",
    "gain_grid_host",
    "gain_grid_numpy",
    "prepare",
    "rank_lift_grid",
    "rank_lift_grid_host",
    "sweep_bytes",
    "targeting_replicates_host",
    "targeting_replicates_numpy",
]


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
    ry, n_y = dense_ranks(xp, y)
    rp, n_p = dense_ranks(xp, p)
    order = argsort_stable(xp, ((n_p - 1) - rp) * n_y + ((n_y - 1) - ry))
    key = ry[order]
    pkey = rp[order]
    p_start, p_end = run_bounds(xp, pkey[1:] != pkey[:-1], n)
    change = xp.zeros(n, dtype=xp.int64)
    change[1:] = (pkey[1:] != pkey[:-1]).astype(xp.int64)
    p_of = xp.cumsum(change)
    y_order = argsort_stable(xp, key)
    ks = key[y_order]
    y_start, y_end = run_bounds(xp, ks[1:] != ks[:-1], n)
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


# --------------------------------------------------------------------------------------------
# NumPy forms of the numba band grids (ranklens._compute.kernels.curve_sweeps), bit for bit
#
# A small first call runs these while the kernels have no machine code in the process (their
# compilation costs seconds, these forms milliseconds at a few thousand rows; see
# ranklens._foundation.route.POLICY.band_grid_numpy_below). Every sum the kernels run along a
# sequence is a sequential ``np.cumsum`` here, started from a column of zeros as the kernels start
# from 0.0, and every scattered sum (``a[key[k]] += w[k]`` in the order of k) is ``np.add.at``,
# which adds in the order of its indices; so the same additions happen in the same order and the
# numbers are the kernels' to the last bit, for any non-negative float64 weights. Rows are
# vectorised; nothing loops over data rows.


#: Cells (replicate rows x data rows) of one pass of the NumPy forms: blocks of rows bound their
#: temporaries (a few tens of MB) whatever the caller passes.
_NUMPY_CELLS = 1 << 20


def _by_rows(weights: np.ndarray, run: Any) -> np.ndarray:
    """``run(weights[rows])`` over blocks of rows, stacked (each row's numbers are its own)."""
    step = max(1, _NUMPY_CELLS // max(1, weights.shape[1]))
    if weights.shape[0] <= step:
        return np.asarray(run(weights))
    return np.concatenate([run(weights[k : k + step]) for k in range(0, weights.shape[0], step)])


def _seq_cumsum(a: np.ndarray) -> np.ndarray:
    """``out[:, k + 1] = (((0.0 + a[:, 0]) + a[:, 1]) + ...) + a[:, k]``, ``out[:, 0] = 0.0``:
    the running sum of a sequential loop that starts from 0.0 (shape ``(rows, n + 1)``)."""
    out = np.zeros((a.shape[0], a.shape[1] + 1), dtype=np.float64)
    out[:, 1:] = a
    return np.cumsum(out, axis=1)


def _replicate_events_numpy(
    weights: np.ndarray, y_order: Any, y_group_sorted: Any, nonbinary: Any, q: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(total, binary, cut)`` of every row, as ``curve_sweeps._replicate_events``."""
    rows, n = weights.shape
    total = _seq_cumsum(weights)[:, -1]
    positive = weights > 0.0
    binary = ~np.any(positive & np.asarray(nonbinary, dtype=bool)[None, :], axis=1)
    cut = np.full(rows, -1, dtype=np.int64)
    todo = (total > 0.0) & ~binary
    if n and np.any(todo):
        wy = weights[todo][:, np.asarray(y_order)]
        cum_y = _seq_cumsum(wy)[:, 1:]
        target = q * cum_y[:, -1] * (1.0 - 1e-12)
        pos = wy > 0.0
        hit = pos & (cum_y >= target[:, None])
        first_hit = np.argmax(hit, axis=1)
        last_pos = n - 1 - np.argmax(pos[:, ::-1], axis=1)
        at = np.where(hit.any(axis=1), first_hit, last_pos)
        cut[todo] = np.asarray(y_group_sorted, dtype=np.int64)[at]
    return total, binary, cut


def _ranked_sums_numpy(
    weights: np.ndarray,
    order: Any,
    y_by_pred: Any,
    group_by_pred: Any,
    new_group: Any,
    binary: np.ndarray,
    cut: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cw, ce, cn)``, shape ``(rows, groups + 1)``: the cumulative weight, events and
    non-events at the origin and at the end of every prediction tie group of one model, as
    ``curve_sweeps._ranked_sums`` (a group without weight repeats the point before it exactly:
    the kernel leaves it out, and a repeated point adds 0.0 to every sum and never changes a
    reading on the curve)."""
    n = weights.shape[1]
    ws = weights[:, np.asarray(order)]
    ws = np.where(ws > 0.0, ws, 0.0)
    events = (np.asarray(group_by_pred)[None, :] <= cut[:, None]).astype(np.float64)
    r = np.where(binary[:, None], np.asarray(y_by_pred, dtype=np.float64)[None, :], events)
    new = np.asarray(new_group, dtype=bool)
    ends = np.flatnonzero(np.append(new[1:], True)) if n else np.empty(0, np.int64)
    cols = np.concatenate([[0], ends + 1])
    cw = _seq_cumsum(ws)[:, cols]
    ce = _seq_cumsum(ws * r)[:, cols]
    cn = _seq_cumsum(ws * (1.0 - r))[:, cols]
    return cw, ce, cn


def _numpy_interp_rows(x: float, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Per row, ``curve_sweeps._numpy_interp(x, xs, ys, m)`` (NumPy's ``interp`` formula, its
    exact-node and NaN rules), for rows of non-decreasing ``xs`` whose equal abscissae carry
    equal ordinates."""
    rows, m = xs.shape
    lo = (np.sum(xs <= x, axis=1) - 1).clip(0, m - 2 if m > 1 else 0)
    hi = np.minimum(lo + 1, m - 1)
    take = np.arange(rows)
    x0, x1, y0, y1 = xs[take, lo], xs[take, hi], ys[take, lo], ys[take, hi]
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = (y1 - y0) / (x1 - x0)
        out = slope * (x - x0) + y0
        again = slope * (x - x1) + y1
    out = np.where(np.isnan(out), np.where(np.isnan(again) & (y0 == y1), y0, again), out)
    out = np.where(x0 == x, y0, out)
    out = np.where(x < xs[:, 0], ys[:, 0], out)
    return np.where(x >= xs[:, -1], ys[:, -1], out)


def _partial_auc_rows(
    ce: np.ndarray, cn: np.ndarray, p: np.ndarray, q_n: np.ndarray, max_fpr: float
) -> np.ndarray:
    """Per row, ``curve_sweeps._partial_auc``: McClish's standardised area under the ROC curve
    up to ``max_fpr`` (the kernel's sequential sum of the same trapezoids, the segment that
    crosses ``max_fpr`` cut by NumPy's ``interp`` formula; no row's curve crosses twice)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        x = cn / q_n[:, None]
        y = ce / p[:, None]
        x0, x1, y0, y1 = x[:, :-1], x[:, 1:], y[:, :-1], y[:, 1:]
        at = (y1 - y0) / (x1 - x0) * (max_fpr - x0) + y0
        whole = (x1 - x0) * (y1 + y0)
        cut = (max_fpr - x0) * (at + y0)
    terms = np.where(x1 <= max_fpr, whole, np.where(x0 < max_fpr, cut, 0.0))
    low = 0.5 * max_fpr * max_fpr
    return 0.5 * (1.0 + (0.5 * _seq_cumsum(terms)[:, -1] - low) / (max_fpr - low))


def targeting_replicates_numpy(
    weights: Any,
    y_order: Any,
    y_group_sorted: Any,
    nonbinary: Any,
    q: float,
    orders: Any,
    y_by_pred: Any,
    group_by_pred: Any,
    new_group: Any,
    codes: Any,
    depths: Any,
) -> np.ndarray:
    """NumPy form of ``curve_sweeps.targeting_replicates_serial`` (same arguments, the same
    numbers bit for bit): the targeting measures of every weight row and model,
    ``(rows, len(codes), models)``.

    Per replicate and model, O(n): the cumulative sums over the rows sorted by the prediction
    (sequential ``cumsum``), then the trapezoid sums of the ROC and gain curves over the points
    (sequential, the kernel's order), the KS maximum and the lift by NumPy's ``interp`` rule.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.shape[0] * w.shape[1] > _NUMPY_CELLS:
        args = (y_order, y_group_sorted, nonbinary, q, orders, y_by_pred, group_by_pred)
        return _by_rows(
            w, lambda part: targeting_replicates_numpy(part, *args, new_group, codes, depths)
        )
    rows = w.shape[0]
    codes = np.asarray(codes, dtype=np.int64)
    depths = np.asarray(depths, dtype=np.float64)
    n_models = int(np.asarray(orders).shape[0])
    out = np.full((rows, codes.shape[0], n_models), np.nan)
    total, binary, cut = _replicate_events_numpy(w, y_order, y_group_sorted, nonbinary, q)
    live = total > 0.0  # no row left: the function refuses weights summing to 0
    if not np.any(live):
        return out
    w, binary, cut = w[live], binary[live], cut[live]
    for m in range(n_models):
        cw, ce, cn = _ranked_sums_numpy(
            w, orders[m], y_by_pred[m], group_by_pred[m], new_group[m], binary, cut
        )
        p, q_n, w_total = ce[:, -1], cn[:, -1], cw[:, -1]
        defined = (p > 0.0) & (q_n > 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            steps = (cn[:, 1:] - cn[:, :-1]) * (ce[:, 1:] + ce[:, :-1])
            twice = _seq_cumsum(steps)[:, -1]
            gaps = ce[:, 1:] / p[:, None] - cn[:, 1:] / q_n[:, None]
            top = gaps.max(axis=1) if gaps.shape[1] else np.zeros(gaps.shape[0])
            ks = np.where(top > 0.0, top, 0.0)
            x = cw / w_total[:, None]
            gain = ce / p[:, None]
            trap = (x[:, 1:] - x[:, :-1]) * (gain[:, 1:] + gain[:, :-1])
            area = np.where(p != 0.0, 0.5 * _seq_cumsum(trap)[:, -1], np.nan)
            perfect = 1.0 - (p / w_total) / 2.0
            roc = twice / (2.0 * p * q_n)
            ratio = (area - 0.5) / (perfect - 0.5)
        ratio = np.where(np.isnan(area) | ~(perfect > 0.5), np.nan, ratio)
        for s in range(codes.shape[0]):
            code = int(codes[s])
            if code == 0:
                value = np.where(defined, roc, np.nan)
            elif code == 1:
                value = np.where(defined, ks, np.nan)
            elif code == 2:
                value = area
            elif code == 3:
                value = ratio
            elif code == 5:
                value = np.where(
                    defined, _partial_auc_rows(ce, cn, p, q_n, float(depths[s])), np.nan
                )
            elif code == 8:  # the average precision, as the kernel sums it
                with np.errstate(invalid="ignore", divide="ignore"):
                    terms = np.where(
                        cw[:, 1:] > 0.0, (ce[:, 1:] - ce[:, :-1]) * (ce[:, 1:] / cw[:, 1:]), 0.0
                    )
                    value = np.where(p > 0.0, _seq_cumsum(terms)[:, -1] / p, np.nan)
            else:
                depth = float(depths[s])
                with np.errstate(invalid="ignore", divide="ignore"):
                    value = np.where(p == 0.0, np.nan, _numpy_interp_rows(depth, x, gain) / depth)
                    if code == 6:  # the recall at the depth, as the kernel reads it
                        value = value * depth
                    elif code == 7:  # the precision at the depth
                        value = value * (p / w_total)
            out[live, s, m] = value
    return out


def gain_grid_numpy(
    weights: Any,
    y_order: Any,
    y_group_sorted: Any,
    nonbinary: Any,
    q: float,
    orders: Any,
    y_by_pred: Any,
    group_by_pred: Any,
    new_group: Any,
    grid: Any,
    lift: bool,
) -> np.ndarray:
    """NumPy form of ``curve_sweeps.gain_grid_serial`` (same arguments, the same numbers bit for
    bit): the gain curve (``lift``: gain / depth) of model 0 for each weight row, read at
    ``grid``; NaN without events."""
    w = np.asarray(weights, dtype=np.float64)
    grid = np.asarray(grid, dtype=np.float64)
    if w.shape[0] * w.shape[1] > _NUMPY_CELLS:
        args = (y_order, y_group_sorted, nonbinary, q, orders, y_by_pred, group_by_pred)
        return _by_rows(w, lambda part: gain_grid_numpy(part, *args, new_group, grid, lift))
    out = np.full((w.shape[0], grid.shape[0]), np.nan)
    total, binary, cut = _replicate_events_numpy(w, y_order, y_group_sorted, nonbinary, q)
    live = total > 0.0
    if not np.any(live):
        return out
    cw, ce, _ = _ranked_sums_numpy(
        w[live], orders[0], y_by_pred[0], group_by_pred[0], new_group[0], binary[live], cut[live]
    )
    p = ce[:, -1]
    ok = p != 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        xs = cw[ok] / cw[ok][:, -1:]
        ys = ce[ok] / p[ok][:, None]
        ends = np.full(xs.shape[0], xs.shape[1])
        read = _interp_rows(np, xs, ys, np.zeros_like(ends), ends, grid)
        if lift:
            read = read / grid[None, :]
    rows = np.flatnonzero(live)[ok]
    out[rows] = read
    return out


def _cutoff_sums_rows(
    key: np.ndarray, pkey: np.ndarray, n_y: int, w_seq: np.ndarray, total: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positives, u, gap)`` of ``ranklens._compute.kernels.ranking.cutoff_auc_sums`` for each row
    of ``w_seq`` (weights along the sequence; ``total`` their sequential sum), bit for bit."""
    rows, n = w_seq.shape
    m = n_y - 1
    change = np.zeros(n, dtype=np.int64)
    change[1:] = pkey[1:] != pkey[:-1]
    p_of = np.cumsum(change)
    n_groups = int(p_of[-1]) + 1
    base = (np.arange(rows, dtype=np.int64) * n_groups)[:, None]
    gw = np.zeros(rows * n_groups)
    np.add.at(gw, (base + p_of[None, :]).ravel(), w_seq.ravel())
    gw = gw.reshape(rows, n_groups)
    processed = _seq_cumsum(gw)[:, :-1]  # the weight of the groups before each group
    mid = (total[:, None] - processed - gw) + 0.5 * gw
    at = ((np.arange(rows, dtype=np.int64) * n_y)[:, None] + key[None, :]).ravel()
    wy = np.zeros(rows * n_y)
    sa = np.zeros(rows * n_y)
    np.add.at(wy, at, w_seq.ravel())
    np.add.at(sa, at, (w_seq * mid[:, p_of]).ravel())
    wy = wy.reshape(rows, n_y)[:, ::-1]  # decreasing y: the c-th largest value at c
    sa = sa.reshape(rows, n_y)[:, ::-1]
    wp = _seq_cumsum(wy)[:, 1 : m + 1]
    acc = _seq_cumsum(sa)[:, 1 : m + 1]
    u = acc - 0.5 * wp * wp
    gap = 0.5 * (wy[:, :m] + wy[:, 1 : m + 1])
    return wp, u, gap


def cutoff_auc_sums_numpy(
    key: Any, pkey: Any, n_y: int, w: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NumPy form of ``ranklens._compute.kernels.ranking.cutoff_auc_sums`` (same arguments, n >= 1
    and n_y >= 1; the same numbers bit for bit): per cut, the positive weight ``W_P``, the
    Mann-Whitney sum ``U_c`` and the midrank gap of the two y values beside the cut."""
    key = np.asarray(key, dtype=np.int64)
    pkey = np.asarray(pkey, dtype=np.int64)
    w_seq = np.asarray(w, dtype=np.float64)[None, :]
    total = _seq_cumsum(w_seq)[:, -1]
    wp, u, gap = _cutoff_sums_rows(key, pkey, int(n_y), w_seq, total)
    return wp[0], u[0], gap[0]


def cutoff_auc_grid_numpy(
    weights: Any, order: Any, key: Any, pkey: Any, n_y: int, grid: Any
) -> np.ndarray:
    """NumPy form of ``curve_sweeps.cutoff_auc_grid`` (same arguments, the same numbers bit for
    bit): the cutoff AUC of each weight row at ``grid``.

    The sums of ``ranklens._compute.kernels.ranking.cutoff_auc_sums`` in its order: the total and
    the weight of each prediction group along the sequence, the group's weighted midrank
    ``(W - processed - W_g) + W_g / 2``, the weight and midrank mass of each y value scattered in
    sequence order (``np.add.at``), then the running sums over decreasing y.
    """
    w = np.asarray(weights, dtype=np.float64)
    grid = np.asarray(grid, dtype=np.float64)
    if w.shape[0] * w.shape[1] > _NUMPY_CELLS:
        return _by_rows(w, lambda part: cutoff_auc_grid_numpy(part, order, key, pkey, n_y, grid))
    rows = w.shape[0]
    order = np.asarray(order, dtype=np.int64)
    key = np.asarray(key, dtype=np.int64)
    pkey = np.asarray(pkey, dtype=np.int64)
    n = order.shape[0]
    m = int(n_y) - 1
    if m <= 0 or n == 0:
        return np.full((rows, grid.shape[0]), np.nan)
    w_seq = w[:, order]
    total = _seq_cumsum(w_seq)[:, -1]
    wp, u, _ = _cutoff_sums_rows(key, pkey, int(n_y), w_seq, total)
    prev = np.concatenate([np.full((rows, 1), -1.0), wp[:, :-1]], axis=1)
    # a cut exists between two y values present in the replicate (0 < W_P < W); a y value of
    # zero weight repeats the cut before it
    inside = (wp > 0.0) & (wp < total[:, None])  # a contiguous run: wp never decreases
    keep = inside & (wp != prev)
    with np.errstate(invalid="ignore", divide="ignore"):
        xs = wp / total[:, None]
        ys = np.minimum(1.0, np.maximum(0.0, u / (wp * (total[:, None] - wp))))
    # A left-out cut inside the run repeats the abscissa of the last kept one: give it that
    # cut's ordinate too, and the repeated points read on the grid as the kept ones alone.
    last_kept = np.maximum.accumulate(np.where(keep, np.arange(m)[None, :], 0), axis=1)
    ys = np.take_along_axis(ys, last_kept, axis=1)
    a = np.sum(wp <= 0.0, axis=1)
    b = a + np.sum(inside, axis=1)
    return _interp_rows(np, xs, ys, a, b, grid)


# ------------------------------------------------------------------------------------------------
# On the host: the kernel, or its NumPy form on small inputs (ranklens._compute.xp.band_routes
# decides)


def cutoff_auc_sums_host(
    key: np.ndarray, pkey: np.ndarray, n_y: int, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cut's positive weight, Mann-Whitney sum and half-gap weight
    (:func:`ranklens._compute.kernels.curve_sweeps.cutoff_auc_sums`, or
    :func:`cutoff_auc_sums_numpy` with the same bits on small inputs)."""
    if band_routes.numpy_route(w.shape[0], "cutoff_auc_sums"):
        return cutoff_auc_sums_numpy(key, pkey, n_y, w)
    from ranklens._compute.kernels import ranking as kernels  # imports numba

    positives, u, gap = kernels.cutoff_auc_sums(key, pkey, n_y, w)
    return positives, u, gap


def cutoff_auc_grid_host(
    w: np.ndarray, order: np.ndarray, key: np.ndarray, pkey: np.ndarray, n_y: int, grid: np.ndarray
) -> np.ndarray:
    """The cutoff AUC of each weight row at ``grid`` (the kernel, or its NumPy form)."""
    if band_routes.numpy_route(w.shape[1], "cutoff_auc_grid"):  # small: NumPy, the same bits
        return cutoff_auc_grid_numpy(w, order, key, pkey, n_y, grid)
    from ranklens._compute.kernels import curve_sweeps  # imports numba

    return np.asarray(curve_sweeps.cutoff_auc_grid(w, order, key, pkey, n_y, grid))


def rank_lift_grid_host(
    w: np.ndarray, order: np.ndarray, key: np.ndarray, pkey: np.ndarray, n_y: int, grid: np.ndarray
) -> np.ndarray:
    """The rank lift of each weight row at ``grid`` (the kernel)."""
    from ranklens._compute.kernels import curve_sweeps  # imports numba

    return np.asarray(curve_sweeps.rank_lift_grid(w, order, key, pkey, n_y, grid))


def gain_grid_host(*args: Any) -> np.ndarray:
    """The gain (or lift) curve of each weight row on a grid: :func:`gain_grid_numpy`'s
    arguments, by that NumPy form on small inputs (the same bits), else by the serial or
    parallel kernel of :mod:`ranklens._compute.kernels.curve_sweeps`."""
    w = args[0]
    if band_routes.numpy_route(w.shape[1], "gain_grid_serial", "gain_grid_parallel"):
        return gain_grid_numpy(*args)
    from ranklens._compute.kernels import curve_sweeps  # imports numba

    chunks = band_routes.parallel_chunks(w.shape[0], w.shape[1])
    if chunks:
        return np.asarray(curve_sweeps.gain_grid_parallel(*(*args, chunks)))
    return np.asarray(curve_sweeps.gain_grid_serial(*args))


def targeting_replicates_host(*args: Any) -> np.ndarray:
    """The targeting measures' replicates: :func:`targeting_replicates_numpy`'s arguments, by
    that NumPy form on small inputs (the same bits), else by the serial or parallel kernel of
    :mod:`ranklens._compute.kernels.curve_sweeps`."""
    w, orders = args[0], args[5]
    kernels = ("targeting_replicates_serial", "targeting_replicates_parallel")
    if band_routes.numpy_route(w.shape[1], *kernels):
        return targeting_replicates_numpy(*args)
    from ranklens._compute.kernels import curve_sweeps  # imports numba

    chunks = band_routes.parallel_chunks(w.shape[0], w.shape[1] * orders.shape[0])
    if chunks:
        return np.asarray(curve_sweeps.targeting_replicates_parallel(*(*args, chunks)))
    return np.asarray(curve_sweeps.targeting_replicates_serial(*args))
