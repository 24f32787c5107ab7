"""Numba kernels of the curve bands: a banded curve per replicate from weighted sweeps.

A bootstrap replicate changes the weights, never the order of the rows, so the curves of
:func:`ranklens.curve_bands` are evaluated on the grid from one weighted pass over a sequence
sorted once (:func:`ranklens._kernels.ranking.sequence`: rows by decreasing prediction, ties by
decreasing y), never by calling the curve function per replicate. Rows of zero weight add zeros
and no point: each kernel gives the curve of the rows with positive weight, read off the grid
exactly as the curve's own ``at`` reads it (linear between its points, the end values beyond).

Each kernel has a ``prange`` driver over the replicate rows of a block; every row's sums run
sequentially, so the numbers do not depend on the number of threads.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM)*, 370-377.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ranklens._kernels.ranking import cutoff_auc_sums

__all__ = ["cutoff_auc_grid", "rank_lift_grid"]


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
    m = 0
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

    ``order, key, pkey, n_y`` from :func:`ranklens._kernels.ranking.sequence`; the fraction of
    positives ``W_P / W`` and ``AUC_c = U_c / (W_P (W - W_P))`` from
    :func:`ranklens._kernels.ranking.cutoff_auc_sums` over the cuts present in the row.
    """
    out = np.empty((weights.shape[0], grid.shape[0]), np.float64)
    for b in prange(weights.shape[0]):
        _cutoff_auc_row(weights, b, order, key, pkey, n_y, grid, out)
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
        _interp_points(grid, w_seq, w_seq, 0, out, b)
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
        _rank_lift_row(weights, b, order, key, pkey, n_y, grid, out)
    return out
