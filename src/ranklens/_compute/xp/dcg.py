"""NDCG's discounted sums in NumPy: the numbers of the kernels of
:mod:`ranklens._compute.kernels.listwise`.

On small lists, while the DCG kernel has no machine code in the process, NDCG is computed here
(the same operations in the same order, so the same numbers bit for bit), and numba is not
imported for it; :func:`ranklens._compute.xp.measure_routes.dcg_numpy` decides. :func:`grouped_ndcg`
takes the kernel's arguments and gives its results by either route.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ranklens._compute.xp import measure_routes as _routes

__all__ = [
    "dcg_lists_numpy",
    "gains_numpy",
    "grouped_ndcg",
    "grouped_ndcg_numpy",
    "libm",
    "ndcg_sweep_numpy",
    "ndcg_sweep_on_numpy_route",
    "running_sums",
    "segment_totals",
]


_LN2 = math.log(2.0)  # the kernels' LN2
_DIRECT_LIMIT = 256  # the kernels' DIRECT_LIMIT: longer stretches are summed by Euler-Maclaurin


_UFUNCS = {
    "log1p": (np.log1p, math.log1p),
    "expm1": (np.expm1, math.expm1),
    "exp2": (np.exp2, math.exp2),
}


def libm(name: str, x: np.ndarray) -> np.ndarray:
    """The C library's ``name`` (``log1p``, ``expm1`` or ``exp2``) of every element of ``x``,
    the kernels' numbers: NumPy's ufunc where it runs its baseline loop
    (:func:`ranklens._compute.xp.measure_routes.libm_ufuncs`), else Python's :mod:`math` function
    per element (about 50 ns each; the NumPy form runs on small lists only). Overflow gives
    ``inf``, as the kernels and NumPy do."""
    ufunc, scalar = _UFUNCS[name]
    x = np.asarray(x, dtype=np.float64)
    if _routes.libm_ufuncs():
        return ufunc(x)

    def safe(v: float) -> float:
        try:
            return scalar(v)
        except OverflowError:
            return math.inf
        except ValueError:  # log1p of -1 or below: NumPy's -inf and NaN
            return -math.inf if v == -1.0 else math.nan

    out = np.fromiter(map(safe, x.ravel().tolist()), dtype=np.float64, count=x.size)
    return out.reshape(x.shape)


def running_sums(x: np.ndarray, lengths: np.ndarray, init: np.ndarray) -> np.ndarray:
    """Sequential running sums within segments laid end to end: ``out[i]`` is ``init`` of the
    segment plus its elements up to ``i``, added one at a time from the left (a kernel loop's
    rounding). Each segment is a row of a 2-D array whose cumulative sum along the row is that
    recurrence; rows are padded to the next power of two of their length (at most twice the
    data), one array per power present: O(n) work, at most log2(n) + 1 NumPy passes."""
    if x.shape[0] == 0:
        return np.empty(0)
    if lengths.shape[0] == 1:  # one segment: one running sum
        return np.cumsum(np.concatenate((init[:1], x)))[1:]
    if x.shape[0] == lengths.shape[0] and (lengths == 1).all():  # segments of one element
        return init + x
    out = np.empty(x.shape[0])
    first = np.cumsum(lengths) - lengths
    # the power of two at or above each length (0 for an empty segment)
    width = np.where(lengths > 0, 1 << np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64), 0)
    for size in np.unique(width[width > 0]).tolist():
        rows = np.flatnonzero(width == size)
        cols = np.arange(size)
        valid = cols[None, :] < lengths[rows, None]
        at = (first[rows, None] + cols[None, :])[valid]
        table = np.zeros((rows.size, size + 1))
        table[:, 0] = init[rows]
        table[:, 1:][valid] = x[at]
        out[at] = np.cumsum(table, axis=1)[:, 1:][valid]
    return out


def segment_totals(x: np.ndarray, lengths: np.ndarray, init: np.ndarray) -> np.ndarray:
    """The last running sum of each segment (``init`` for an empty one)."""
    running = running_sums(x, lengths, init)
    ends = np.cumsum(lengths)
    return np.where(lengths > 0, running[np.maximum(ends - 1, 0)] if x.size else 0.0, init)


def gains_numpy(y: np.ndarray, y_max: np.ndarray, exponential: bool) -> np.ndarray:
    """The kernel's ``gain`` elementwise (``2.0 ** x`` is ``exp2``, as numba compiles it)."""
    if not exponential:
        return y / y_max
    with np.errstate(over="ignore"):
        small = libm("expm1", y * _LN2) * libm("exp2", -y_max)
        large = libm("exp2", y - y_max) - libm("exp2", -y_max)
    return np.where(y < 1.0, small, large)


def dcg_lists_numpy(
    y: np.ndarray,
    keys: np.ndarray,
    w: np.ndarray,
    weighted: bool,
    sizes: np.ndarray,
    y_max: np.ndarray,
    exponential: bool,
    k: float,
    start: np.ndarray,
) -> np.ndarray | None:
    """:func:`ranklens._compute.kernels.listwise.tie_averaged_dcg_from` of many lists laid end to
    end (list g: ``sizes[g]`` rows, largest gain ``y_max[g]``, ``start[g]`` positions above it), bit
    for bit; None when a tie block spans a stretch the kernel sums by Euler-Maclaurin."""
    n = y.shape[0]
    n_lists = sizes.shape[0]
    if n == 0:
        return np.zeros(n_lists)
    list_of_row = np.repeat(np.arange(n_lists), sizes)
    new_block = np.ones(n, dtype=bool)
    new_block[1:] = keys[1:] != keys[:-1]
    new_block[(np.cumsum(sizes) - sizes)[sizes > 0]] = True  # a list starts a block
    block_first = np.flatnonzero(new_block)
    block_size = np.diff(np.r_[block_first, n])
    block_list = list_of_row[block_first]
    weight = w if weighted else np.ones(n)
    zeros = np.zeros(block_first.shape[0])
    gains = weight * gains_numpy(y, y_max[list_of_row], exponential)
    gain_sum = segment_totals(gains, block_size, zeros)
    weight_sum = segment_totals(weight, block_size, zeros)
    # the position before each block: the list's start plus the weights of the blocks above it
    blocks_per_list = np.bincount(block_list, minlength=n_lists)
    after = running_sums(weight_sum, blocks_per_list, start)
    before = np.empty_like(after)
    before[1:] = after[:-1]
    lead = np.cumsum(blocks_per_list) - blocks_per_list
    before[lead[blocks_per_list > 0]] = start[blocks_per_list > 0]
    # blocks the kernel's loop reaches (position < k) with weight: their terms, in order
    used = (before < k) & (weight_sum > 0.0)
    lo, hi = before[used], np.minimum(after[used], k)
    first = np.floor(lo) + 1.0
    last = np.ceil(hi)
    spread = hi > lo
    if np.any(spread & (last - first >= _DIRECT_LIMIT + 2)):
        return None  # an interior stretch of 256 positions or more: Euler-Maclaurin, kernel only
    inner = np.where(spread, np.maximum(last - first - 1.0, 0.0), 0.0).astype(np.int64)
    offsets = np.arange(int(inner.sum())) - np.repeat(np.cumsum(inner) - inner, inner)
    positions = np.repeat(first + 1.0, inner) + offsets
    inner_sum = segment_totals(_LN2 / libm("log1p", positions), inner, np.zeros(inner.shape[0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        d_first = _LN2 / libm("log1p", first)
        d_last = _LN2 / libm("log1p", last)
    one_position = (hi - lo) * d_first
    several = (first - lo) * d_first + (hi - (last - 1.0)) * d_last + inner_sum
    span = np.where(spread, np.where(last == first, one_position, several), 0.0)
    terms = gain_sum[used] / weight_sum[used] * span
    per_list = np.bincount(block_list[used], minlength=n_lists)
    return segment_totals(terms, per_list, np.zeros(n_lists))


def grouped_ndcg_numpy(
    y_by_pred: np.ndarray,
    pred_keys: np.ndarray,
    w_by_pred: np.ndarray,
    y_by_true: np.ndarray,
    true_keys: np.ndarray,
    w_by_true: np.ndarray,
    starts_pred: np.ndarray,
    starts_true: np.ndarray,
    weighted: bool,
    exponential: bool,
    k: float,
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`ranklens._compute.kernels.listwise.grouped_ndcg` in NumPy, bit for bit (None where a
    tie block needs the kernel's Euler-Maclaurin sum).

    Notes
    -----
    The kernel adds one term at a time: within a tie block the weights and the weighted gains,
    over the blocks the positions ``c`` and the terms ``mean gain * span_discount(c, c + W)``,
    within a stretch the discounts ``1 / log2(p + 1)``. Each of these sums is a running sum along
    a row of a 2-D array here (:func:`running_sums`), which rounds as the loop does; the
    discounts, gains and the remaining arithmetic are the same elementwise operations. A group
    with no row, which the public functions never form, counts as one without a relevant item.
    """
    n_groups = starts_pred.shape[0] - 1
    sizes_true = np.diff(starts_true)
    y_max = np.zeros(n_groups)
    filled = sizes_true > 0
    y_max[filled] = y_by_true[starts_true[:-1][filled]]
    scored = y_max > 0.0
    scale = np.where(scored, y_max, 1.0)  # the kernel skips the others; any finite scale here
    start = np.zeros(n_groups)
    lists = []
    for y, keys, w, starts in (
        (y_by_true, true_keys, w_by_true, starts_true),
        (y_by_pred, pred_keys, w_by_pred, starts_pred),
    ):
        lo, hi = int(starts[0]), int(starts[-1])
        dcg = dcg_lists_numpy(
            y[lo:hi],
            keys[lo:hi],
            w[lo:hi] if weighted else w,
            weighted,
            np.diff(starts),
            scale,
            exponential,
            k,
            start,
        )
        if dcg is None:
            return None
        lists.append(np.where(scored, dcg, 0.0))
    return lists[1], lists[0]


def grouped_ndcg(*args: Any, calls: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``grouped_ndcg``'s arguments and results; its NumPy form on small lists while the kernel
    is not compiled (:func:`ranklens._compute.xp.measure_routes.dcg_numpy`), the kernel
    otherwise."""
    n = max(args[0].shape[0], args[3].shape[0])
    if _routes.dcg_numpy(n, calls):
        with np.errstate(all="ignore"):  # the kernel computes silently too
            out = grouped_ndcg_numpy(*args)
        if out is not None:
            return out
    from ranklens._compute.kernels import listwise as _kl  # imports numba

    return _kl.grouped_ndcg(*args)


def ndcg_sweep_numpy(state: Any, weights: np.ndarray) -> np.ndarray | None:
    """``(replicates, models)`` NDCG of the bootstrap's NDCG sweep from the NumPy form, every
    replicate and model a list of its own in one pass (the kernel's numbers bit for bit; None
    where a tie block needs the kernel)."""
    rows = weights.shape[0]
    n_models, n = state.orders.shape
    y_max = float(state.ideal_y[0])
    ratios = np.full((rows, n_models), np.nan)
    if not y_max > 0.0:
        return ratios  # no relevant item: the kernel leaves every IDCG at 0
    ideal = dcg_lists_numpy(
        np.tile(state.ideal_y, rows),
        np.tile(state.ideal_y, rows),
        weights[:, state.order_true].ravel(),
        True,
        np.full(rows, n),
        np.full(rows, y_max),
        False,
        math.inf,
        np.zeros(rows),
    )
    lists = rows * n_models
    dcg = dcg_lists_numpy(
        np.tile(state.y_by_pred.ravel(), rows),
        np.tile(state.pred_keys.ravel(), rows),
        np.take_along_axis(weights[:, None, :], state.orders[None, :, :], axis=2).ravel(),
        True,
        np.full(lists, n),
        np.full(lists, y_max),
        False,
        math.inf,
        np.zeros(lists),
    )
    if ideal is None or dcg is None:
        return None
    kept = (weights.sum(axis=1) > 0) & (ideal > 0.0)  # weights summing to 0: refused
    ratios[kept] = dcg.reshape(rows, n_models)[kept] / ideal[kept, None]
    return ratios


def ndcg_sweep_on_numpy_route(state: Any, weights: np.ndarray) -> np.ndarray | None:
    """:func:`ndcg_sweep_numpy` where the route takes the NumPy form for these replicates
    (:func:`ranklens._compute.xp.measure_routes.dcg_numpy`, one call per replicate and model), else
    None (the caller then runs the kernel)."""
    n_models, n = state.orders.shape
    if not _routes.dcg_numpy(n, weights.shape[0] * n_models):
        return None
    with np.errstate(all="ignore"):  # the kernel computes silently too
        return ndcg_sweep_numpy(state, weights)
