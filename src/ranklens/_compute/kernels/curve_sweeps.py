"""Numba kernels of the curve bands: a banded curve per replicate from weighted sweeps.

A bootstrap replicate changes the weights, never the order of the rows, so the curves of
:func:`ranklens.curve_bands` are evaluated on the grid from one weighted pass over a sequence
sorted once (:func:`ranklens._compute.xp.sequence.sequence`: rows by decreasing prediction, ties by
decreasing y), never by calling the curve function per replicate. Rows of zero weight add zeros
and no point: each kernel gives the curve of the rows with positive weight, read off the grid
exactly as the curve's own ``at`` reads it (linear between its points, the end values beyond).

Each kernel has a ``prange`` driver over the replicate rows of a block; every row's sums run
sequentially, so the numbers do not depend on the number of threads. The serial and parallel
drivers share one row body (``_targeting_rows``, ``_gain_grid_rows``), so each body compiles once
per signature. The kernels only: below ``ranklens._foundation.route.POLICY.band_grid_numpy_below``
rows, while a grid's kernels have no machine code, its callers run the NumPy form of
:mod:`ranklens._compute.xp.curves` instead (the same numbers bit for bit), as
:func:`ranklens._compute.xp.band_routes.numpy_route` decides.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM)*, 370-377.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ranklens._compute.kernels import _thread_pool  # noqa: F401  (launches numba's threads)
from ranklens._compute.kernels.ranking import cutoff_auc_sums

__all__ = [
    "cutoff_auc_grid",
    "gain_grid_parallel",
    "gain_grid_serial",
    "rank_lift_grid",
    "targeting_replicates_parallel",
    "targeting_replicates_serial",
]


@njit(cache=True)
def _interp_points(grid, xs, ys, m, out, b):
    """``out[b] = interp(grid, xs[:m], ys[:m])`` for an increasing grid and strictly increasing
    ``xs`` (NaN everywhere when ``m == 0``)."""
    if m == 0:
        for g in range(grid.shape[0]):
            out[b, g] = np.nan
        return
    # one merge walk over the increasing grid and points (``np.interp``'s formula)
    j = 0
    for g in range(grid.shape[0]):
        q = grid[g]
        if q <= xs[0]:
            out[b, g] = ys[0]
            continue
        if q >= xs[m - 1]:
            out[b, g] = ys[m - 1]
            continue
        while xs[j + 1] <= q:
            j += 1
        slope = (ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j])
        out[b, g] = slope * (q - xs[j]) + ys[j]


@njit(cache=True)
def _cutoff_auc_row(weights, b, order, key, pkey, n_y, grid, out):
    n = order.shape[0]
    w_seq = np.empty(n, np.float64)
    for k in range(n):
        w_seq[k] = weights[b, order[k]]
    positives, u, _ = cutoff_auc_sums(key, pkey, n_y, w_seq)
    total = 0.0
    for k in range(n):
        total += w_seq[k]
    xs = np.empty(positives.shape[0], np.float64)
    ys = np.empty(positives.shape[0], np.float64)
    # an int64 start, not the literal 0: numba would also compile _interp_points for Literal[int](0)
    m = np.int64(0)
    last = -1.0
    for c in range(positives.shape[0]):
        wp = positives[c]
        # a cut exists between two y values present in the replicate: 0 < W_P < W, and a y value
        # of zero weight repeats the cut before it
        if wp <= 0.0 or wp >= total or wp == last:
            continue
        last = wp
        xs[m] = wp / total
        ys[m] = min(1.0, max(0.0, u[c] / (wp * (total - wp))))
        m += 1
    _interp_points(grid, xs, ys, m, out, b)


@njit(cache=True, parallel=True)
def cutoff_auc_grid(weights, order, key, pkey, n_y, grid):
    """Cutoff AUC curve (Rosset et al. 2005, Fig. 2) of each weight row, read at ``grid``.

    ``order, key, pkey, n_y`` from :func:`ranklens._compute.xp.sequence.sequence`; the fraction of
    positives ``W_P / W`` and ``AUC_c = U_c / (W_P (W - W_P))`` from
    :func:`ranklens._compute.kernels.ranking.cutoff_auc_sums` over the cuts present in the row.
    """
    out = np.empty((weights.shape[0], grid.shape[0]), np.float64)
    for b in prange(weights.shape[0]):
        # prange's index is unsigned: one int64 signature for the row helpers saves a compile
        _cutoff_auc_row(weights, np.int64(b), order, key, pkey, n_y, grid, out)
    return out


@njit(cache=True)
def _rank_lift_row(weights, b, order, key, pkey, n_y, grid, out):
    n = order.shape[0]
    w_seq = np.empty(n, np.float64)
    total = 0.0
    for k in range(n):
        w_seq[k] = weights[b, order[k]]
        total += w_seq[k]
    if not total > 0.0:
        _interp_points(grid, w_seq, w_seq, np.int64(0), out, b)  # int64 m: one signature
        return
    # weights rescaled to mean 1 over the rows, as the curve function does
    scale = total / n
    ytot = np.zeros(n_y, np.float64)
    for k in range(n):
        w_seq[k] = w_seq[k] / scale
        ytot[key[k]] += w_seq[k]
    midrank = np.empty(n_y, np.float64)
    acc = 0.0
    for v in range(n_y):
        acc += ytot[v]
        midrank[v] = acc - ytot[v] / 2
    offset = 0.5 / scale
    xs = np.empty(n + 1, np.float64)
    ys = np.empty(n + 1, np.float64)
    xs[0] = 0.0
    ys[0] = 0.0
    m = 1
    x = 0.0
    model = 0.0
    k = 0
    while k < n:
        e = k
        gw = 0.0
        mass = 0.0
        while e < n and pkey[e] == pkey[k]:
            gw += w_seq[e]
            mass += w_seq[e] * midrank[key[e]]
            e += 1
        if gw > 0.0:
            mean = mass / gw
            for t in range(k, e):
                if w_seq[t] > 0.0:
                    x += w_seq[t]
                    model += w_seq[t] * mean
                    xs[m] = x
                    ys[m] = model
                    m += 1
        k = e
    total_w = xs[m - 1]
    total_mass = ys[m - 1] + offset * total_w
    for t in range(m):
        ys[t] = (ys[t] + offset * xs[t]) / total_mass
        xs[t] = xs[t] / total_w
    _interp_points(grid, xs, ys, m, out, b)


@njit(cache=True, parallel=True)
def rank_lift_grid(weights, order, key, pkey, n_y, grid):
    """Rank lift curve (Rosset et al. 2005, Fig. 3) of each weight row, read at ``grid``.

    Rows by decreasing prediction advance x by their weight and add weight times the mean
    inverse (weighted mid)rank of their prediction tie group, ``W(<) + W(=)/2 + 1/2``; both
    axes as shares of their totals.
    """
    out = np.empty((weights.shape[0], grid.shape[0]), np.float64)
    for b in prange(weights.shape[0]):
        _rank_lift_row(weights, np.int64(b), order, key, pkey, n_y, grid, out)
    return out


# --------------------------------------------------------------------------------------------
# The targeting measures per bootstrap replicate (roc_auc, ks_statistic, gain_area,
# accuracy_ratio, lift at a depth, the partial AUC): one weighted pass per model over the rows
# sorted once by decreasing prediction, with the replicate's events (binary y_true, else its top
# fraction q under the replicate's weights) found by one weighted pass over the rows sorted by
# y_true.

#: Codes of the statistics of :func:`targeting_replicates` (``codes`` argument).
TARGET_ROC_AUC = 0
TARGET_KS = 1
TARGET_GAIN_AREA = 2
TARGET_ACCURACY_RATIO = 3
TARGET_LIFT_AT = 4
TARGET_PARTIAL_ROC_AUC = 5
TARGET_RECALL_AT = 6
TARGET_PRECISION_AT = 7
TARGET_AVERAGE_PRECISION = 8


@njit(cache=True)
def _partial_auc(ce, cn, g, p, q_n, max_fpr):
    """McClish's (1989) standardised area under the ROC curve up to ``max_fpr``, from the
    cumulative events ``ce`` and non-events ``cn`` of ``g`` points (the origin first) and their
    totals ``p``, ``q_n`` (both positive): the trapezoids of the points with FPR <= ``max_fpr``
    and of the segment to the curve's value at ``max_fpr`` (NumPy's ``interp`` formula), then
    ``(1 + (A - m) / (M - m)) / 2`` with ``m = max_fpr^2 / 2`` and ``M = max_fpr``."""
    acc = 0.0
    for i in range(1, g):
        x0 = cn[i - 1] / q_n
        x1 = cn[i] / q_n
        y0 = ce[i - 1] / p
        y1 = ce[i] / p
        if x1 <= max_fpr:
            acc += (x1 - x0) * (y1 + y0)
        else:
            if x0 < max_fpr:
                at = (y1 - y0) / (x1 - x0) * (max_fpr - x0) + y0
                acc += (max_fpr - x0) * (at + y0)
            break
    low = 0.5 * max_fpr * max_fpr
    return 0.5 * (1.0 + (0.5 * acc - low) / (max_fpr - low))


@njit(cache=True)
def _numpy_interp(x, xs, ys, m):
    """``np.interp(x, xs[:m], ys[:m])`` for strictly increasing ``xs`` (NumPy's formula)."""
    if x >= xs[m - 1]:
        return ys[m - 1]
    if x < xs[0]:
        return ys[0]
    lo = 0
    hi = m - 1  # xs[lo] <= x < xs[hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    if xs[lo] == x:
        return ys[lo]
    slope = (ys[lo + 1] - ys[lo]) / (xs[lo + 1] - xs[lo])
    out = slope * (x - xs[lo]) + ys[lo]
    if np.isnan(out):
        out = slope * (x - xs[lo + 1]) + ys[lo + 1]
        if np.isnan(out) and ys[lo] == ys[lo + 1]:
            out = ys[lo]
    return out


@njit(cache=True)
def _replicate_events(weights, b, y_order, y_group_sorted, nonbinary, q, cum_y):
    """``(total, binary, cut)`` of replicate row ``b``: its total weight, whether its rows of
    positive weight are all 0/1 (then ``y`` itself is the events) and else the tie group of ``y``
    down to which the rows are events (its weighted top fraction ``q``, ties at the boundary all
    in): the rows by decreasing y cumulated in the order and with the rounding of the functions'
    np.cumsum, then the first row whose cumulative weight reaches ``q`` of the total."""
    n = y_order.shape[0]
    binary = True
    total = 0.0
    for i in range(n):
        wi = weights[b, i]
        total += wi
        if wi > 0.0 and nonbinary[i]:
            binary = False
    cut = -1
    if total > 0.0 and not binary:
        acc = 0.0
        for k in range(n):
            acc += weights[b, y_order[k]]
            cum_y[k] = acc
        target = q * acc * (1.0 - 1e-12)
        for k in range(n):
            if weights[b, y_order[k]] > 0.0:
                cut = y_group_sorted[k]
                if cum_y[k] >= target:
                    break
    return total, binary, cut


@njit(cache=True)
def _ranked_sums(
    weights, b, m, orders, y_by_pred, group_by_pred, new_group, binary, cut, cw, ce, cn
):
    """Cumulative weight, events and non-events at the end of each tie group of model ``m``'s
    prediction (rows of weight 0 absent; ``cw[0] = ce[0] = cn[0] = 0``); returns the number of
    points, the origin included."""
    n = orders.shape[1]
    cw[0] = 0.0
    ce[0] = 0.0
    cn[0] = 0.0
    sw = 0.0
    se = 0.0
    sn = 0.0
    g = 1
    filled = False
    for k in range(n):
        wj = weights[b, orders[m, k]]
        if wj > 0.0:
            r = y_by_pred[m, k]
            if not binary:
                r = 1.0 if group_by_pred[m, k] <= cut else 0.0
            sw += wj
            se += wj * r
            sn += wj * (1.0 - r)
            filled = True
        if filled and (k == n - 1 or new_group[m, k + 1]):
            cw[g] = sw
            ce[g] = se
            cn[g] = sn
            g += 1
            filled = False
    return g


@njit(cache=True)
def _targeting_rows(
    weights,
    start,
    stop,
    y_order,
    y_group_sorted,
    nonbinary,
    q,
    orders,
    y_by_pred,
    group_by_pred,
    new_group,
    codes,
    depths,
    out,
):
    """Rows ``start:stop`` of :func:`targeting_replicates_serial` (work arrays allocated once)."""
    n = y_order.shape[0]
    n_models = orders.shape[0]
    n_stats = codes.shape[0]
    cum_y = np.empty(n, np.float64)
    cw = np.empty(n + 1, np.float64)
    ce = np.empty(n + 1, np.float64)
    cn = np.empty(n + 1, np.float64)
    x = np.empty(n + 1, np.float64)
    gain = np.empty(n + 1, np.float64)
    for b in range(start, stop):
        total, binary, cut = _replicate_events(
            weights, b, y_order, y_group_sorted, nonbinary, q, cum_y
        )
        if not total > 0.0:  # no row left: the function refuses weights summing to 0
            for s in range(n_stats):
                for m in range(n_models):
                    out[b, s, m] = np.nan
            continue
        for m in range(n_models):
            g = _ranked_sums(
                weights, b, m, orders, y_by_pred, group_by_pred, new_group, binary, cut, cw, ce, cn
            )
            p = ce[g - 1]
            q_n = cn[g - 1]
            w_total = cw[g - 1]
            # the ROC sums over counts (roc_sums), the gain curve over shares (trapezoid)
            defined = p > 0.0 and q_n > 0.0
            twice = 0.0
            ks = 0.0
            if defined:
                for i in range(1, g):
                    twice += (cn[i] - cn[i - 1]) * (ce[i] + ce[i - 1])
                    gap = ce[i] / p - cn[i] / q_n
                    if gap > ks:
                        ks = gap
            area = np.nan
            if p != 0.0:
                for i in range(g):
                    x[i] = cw[i] / w_total
                    gain[i] = ce[i] / p
                acc = 0.0
                for i in range(1, g):
                    acc += (x[i] - x[i - 1]) * (gain[i] + gain[i - 1])
                area = 0.5 * acc
            for s in range(n_stats):
                code = codes[s]
                if code == TARGET_ROC_AUC:
                    out[b, s, m] = twice / (2.0 * p * q_n) if defined else np.nan
                elif code == TARGET_KS:
                    out[b, s, m] = ks if defined else np.nan
                elif code == TARGET_GAIN_AREA:
                    out[b, s, m] = area
                elif code == TARGET_ACCURACY_RATIO:
                    perfect = 1.0 - (p / w_total) / 2.0
                    if np.isnan(area) or not perfect > 0.5:
                        out[b, s, m] = np.nan
                    else:
                        out[b, s, m] = (area - 0.5) / (perfect - 0.5)
                elif code == TARGET_AVERAGE_PRECISION:
                    if p > 0.0:
                        ap = 0.0
                        for i in range(1, g):
                            if cw[i] > 0.0:
                                ap += (ce[i] - ce[i - 1]) * (ce[i] / cw[i])
                        out[b, s, m] = ap / p
                    else:
                        out[b, s, m] = np.nan
                elif code == TARGET_PARTIAL_ROC_AUC:
                    if defined:
                        out[b, s, m] = _partial_auc(ce, cn, g, p, q_n, depths[s])
                    else:
                        out[b, s, m] = np.nan
                elif p == 0.0:
                    out[b, s, m] = np.nan
                else:
                    # the lift at the depth, and the recall and precision read from it as
                    # ranklens._foundation.forms.read_at_depth reads them
                    lift = _numpy_interp(depths[s], x, gain, g) / depths[s]
                    if code == TARGET_RECALL_AT:
                        out[b, s, m] = lift * depths[s]
                    elif code == TARGET_PRECISION_AT:
                        out[b, s, m] = lift * (p / w_total)
                    else:
                        out[b, s, m] = lift


@njit(cache=True)
def _gain_grid_rows(
    weights,
    start,
    stop,
    y_order,
    y_group_sorted,
    nonbinary,
    q,
    orders,
    y_by_pred,
    group_by_pred,
    new_group,
    grid,
    lift,
    out,
):
    """Rows ``start:stop`` of :func:`gain_grid_serial` (work arrays allocated once)."""
    n = y_order.shape[0]
    cum_y = np.empty(n, np.float64)
    cw = np.empty(n + 1, np.float64)
    ce = np.empty(n + 1, np.float64)
    cn = np.empty(n + 1, np.float64)
    for b in range(start, stop):
        total, binary, cut = _replicate_events(
            weights, b, y_order, y_group_sorted, nonbinary, q, cum_y
        )
        g = np.int64(0)  # not the literal 0: one int64 signature of _interp_points
        if total > 0.0:
            g = _ranked_sums(
                weights,
                b,
                np.int64(0),
                orders,
                y_by_pred,
                group_by_pred,
                new_group,
                binary,
                cut,
                cw,
                ce,
                cn,
            )
        if g == 0 or ce[g - 1] == 0.0:
            for k in range(grid.shape[0]):
                out[b, k] = np.nan
            continue
        w_total = cw[g - 1]
        p = ce[g - 1]
        for i in range(g):
            cw[i] = cw[i] / w_total
            ce[i] = ce[i] / p
        _interp_points(grid, cw, ce, g, out, b)
        if lift:
            for k in range(grid.shape[0]):
                out[b, k] = out[b, k] / grid[k]


@njit(cache=True)
def gain_grid_serial(
    weights,
    y_order,
    y_group_sorted,
    nonbinary,
    q,
    orders,
    y_by_pred,
    group_by_pred,
    new_group,
    grid,
    lift,
):
    """The cumulative gain curve (``lift``: the lift, gain / depth) of model 0 for each weight
    row, read at ``grid`` as the curves' ``at`` reads them (linear between the points, the
    events as in :func:`targeting_replicates_serial`; NaN without events)."""
    out = np.empty((weights.shape[0], grid.shape[0]), np.float64)
    _gain_grid_rows(
        weights,
        np.int64(0),  # not the literal 0: the parallel driver's signature of the row body
        weights.shape[0],
        y_order,
        y_group_sorted,
        nonbinary,
        q,
        orders,
        y_by_pred,
        group_by_pred,
        new_group,
        grid,
        lift,
        out,
    )
    return out


@njit(cache=True, parallel=True)
def gain_grid_parallel(
    weights,
    y_order,
    y_group_sorted,
    nonbinary,
    q,
    orders,
    y_by_pred,
    group_by_pred,
    new_group,
    grid,
    lift,
    chunks,
):
    """:func:`gain_grid_serial` with the rows spread over ``chunks`` tasks (same numbers)."""
    rows = weights.shape[0]
    out = np.empty((rows, grid.shape[0]), np.float64)
    chunks = max(1, min(rows, chunks))
    for c in prange(chunks):
        _gain_grid_rows(
            weights,
            c * rows // chunks,
            (c + 1) * rows // chunks,
            y_order,
            y_group_sorted,
            nonbinary,
            q,
            orders,
            y_by_pred,
            group_by_pred,
            new_group,
            grid,
            lift,
            out,
        )
    return out


@njit(cache=True)
def targeting_replicates_serial(
    weights,
    y_order,
    y_group_sorted,
    nonbinary,
    q,
    orders,
    y_by_pred,
    group_by_pred,
    new_group,
    codes,
    depths,
):
    """The targeting measures of every weight row and model, ``(rows, len(codes), models)``.

    ``y_order``: the rows by decreasing ``y`` (stable radix order), ``y_group_sorted[k]`` the
    tie group of ``y`` at position ``k`` of that order (0 the largest), ``nonbinary`` the rows
    with ``y`` not 0 or 1 (a replicate whose rows of positive weight are all 0/1 takes ``y``
    itself as its events, as the functions do). ``orders[m]``: the rows by decreasing prediction
    of model ``m`` (stable radix order), with ``y_by_pred[m, k]`` and ``group_by_pred[m, k]`` the
    ``y`` and its tie group at position ``k``, and ``new_group[m, k]`` whether position ``k``
    starts a new prediction value. Rows of weight 0 are absent, as the functions drop them.
    ``codes``: the ``TARGET_*`` statistics, ``depths`` the depth of each lift and the largest
    false positive rate of each partial AUC. NaN where the function is undefined.
    """
    out = np.empty((weights.shape[0], codes.shape[0], orders.shape[0]), np.float64)
    _targeting_rows(
        weights,
        np.int64(0),  # not the literal 0: the parallel driver's signature of the row body
        weights.shape[0],
        y_order,
        y_group_sorted,
        nonbinary,
        q,
        orders,
        y_by_pred,
        group_by_pred,
        new_group,
        codes,
        depths,
        out,
    )
    return out


@njit(cache=True, parallel=True)
def targeting_replicates_parallel(
    weights,
    y_order,
    y_group_sorted,
    nonbinary,
    q,
    orders,
    y_by_pred,
    group_by_pred,
    new_group,
    codes,
    depths,
    chunks,
):
    """:func:`targeting_replicates_serial` with the rows spread over ``chunks`` tasks (same
    numbers: each row's sums run sequentially; work arrays are allocated once a task)."""
    rows = weights.shape[0]
    out = np.empty((rows, codes.shape[0], orders.shape[0]), np.float64)
    chunks = max(1, min(rows, chunks))
    for c in prange(chunks):
        _targeting_rows(
            weights,
            c * rows // chunks,
            (c + 1) * rows // chunks,
            y_order,
            y_group_sorted,
            nonbinary,
            q,
            orders,
            y_by_pred,
            group_by_pred,
            new_group,
            codes,
            depths,
            out,
        )
    return out
