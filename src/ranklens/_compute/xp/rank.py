"""Weighted rank statistics of many replicates at once, written once for NumPy and CuPy.

The bootstrap evaluates the same ``(y_true, y_pred)`` pairs under thousands of weight vectors.
Everything that depends only on the values is built once per model (:func:`build_plan`, a few
sorts); each chunk of replicates is then a fixed sequence of gathers, prefix sums, masked products
and sums over arrays of shape ``(replicates, n)`` (:func:`replicate_statistics`), which a GPU runs
at memory bandwidth. The same statistics for a single unweighted sample at very large n (exact
tau-b at 1e8 rows) come from :func:`exact_pair_counts`.

The sequence
------------
The rows sorted by increasing ``y_true``, ties by increasing prediction ("positions" 0..n-1).
A pair of positions ``i < j`` is discordant when ``p_i > p_j``: within a tie group of ``y_true``
the predictions ascend, so pairs tied in ``y_true`` never count.

Discordance by divide-and-conquer levels
----------------------------------------
At level ``L`` (``1 <= L <= ceil(log2 n)``) the positions fall into blocks of ``2^L``; each block
has a left half (bit ``L-1`` of the position is 0) and a right half. Every pair of positions is
split by exactly one level (the highest bit in which they differ), so the discordant weight is
``D = sum_L D_L`` with ``D_L`` the weight ``w_i w_j`` of the pairs with ``i`` in the left and
``j`` in the right half of the same block and ``p_i > p_j``. The *level permutation* ``perm_L``
lists the positions by (block, prediction, position); the permutations of all levels are built
once, top-down, each by a stable split of the previous one (:func:`_split`). For weights ``w``
(in position order), with ``S^pos_j`` the left weight of the blocks up to j's and ``S^lev`` the
left-masked prefix sums in the order of ``perm_L`` (the left weight of the earlier blocks and of
j's block with a prediction not above ``p_j``)::

    D_L = sum_{j right} w_j S^pos_j - sum_{j right} w_j S^lev_(slot of j)

The first sum is ``sum_b R_b (L_0 + ... + L_b)`` over the blocks' half weights, read off one
prefix sum of ``w`` at the block boundaries for all levels (:func:`_position_terms`); the second
is, per level and replicate, one gather, one masked prefix sum and one masked dot product
(:func:`generic_level_term`), which CuPy runs as one fused kernel
(:mod:`ranklens._compute.xp.cuda`).

Exact arithmetic
----------------
Integer weights (the bootstrap's multiplicities times integer case weights) are held as int32 or
int64 and every pair sum (``D``, ``sum W_g^2``, ``W^2``) is accumulated in int64, exactly; the
caller bounds the replicates per chunk so that no prefix sum or product can pass ``2^62``
(:func:`max_rows_exact`) and refuses weights whose squared total does. The midrank moments of
Spearman's rho reach ``W^3`` and are float64, as in the numba engine. Fractional weights run the
same code in float64 (then the prefix sums run along each replicate's row).

References
----------
Knight, W. R. (1966). A computer method for calculating Kendall's tau with ungrouped data.
*Journal of the American Statistical Association* 61(314), 436-439.

Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.

Harrell, F. E., Lee, K. L. and Mark, D. B. (1996). Multivariable prognostic models: issues in
developing models, evaluating assumptions and adequacy, and measuring and reducing errors.
*Statistics in Medicine* 15(4), 361-387.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from ranklens._compute.xp import argsort_stable

__all__ = [
    "EXACT_LIMIT",
    "GROUP_SUMS",
    "RankPlan",
    "build_plan",
    "classes_from_counts",
    "dense_ranks",
    "exact_pair_counts",
    "generic_level_term",
    "index_dtype",
    "max_rows_exact",
    "n_levels",
    "plan_bytes",
    "position_sequence",
    "replicate_bytes",
    "replicate_classes",
    "replicate_statistics",
    "run_bounds",
    "split_blocks",
]

#: Every int64 prefix sum, product and sum of the exact path stays below this bound.
EXACT_LIMIT = 1 << 62


def n_levels(n: int) -> int:
    """``ceil(log2 n)``: the levels that split every pair of n positions (0 for n <= 1).

    Parameters
    ----------
    n : int
        The number of positions.

    Returns
    -------
    int
        The number of levels.
    """
    return max(0, (n - 1).bit_length())


def index_dtype(n: int) -> Any:
    """The narrowest integer dtype that indexes ``n`` positions (int32 saves half the memory
    traffic of the gathers below 2**31 - 1 positions).

    Parameters
    ----------
    n : int
        The number of positions.

    Returns
    -------
    dtype
        ``np.int32`` or ``np.int64``.
    """
    return np.int32 if n < (1 << 31) - 1 else np.int64


def dense_ranks(xp: ModuleType, x: Any) -> tuple[Any, int]:
    """Dense ranks (0 = smallest, ties share a rank) as int64, and the number of distinct values.

    Parameters
    ----------
    xp : module
        The array namespace (NumPy or CuPy).
    x : array
        The values (no NaN), at least one.

    Returns
    -------
    rank : array of int64
        The dense rank of each value.
    n_distinct : int
        The number of distinct values.
    """
    n = x.shape[0]
    order = argsort_stable(xp, x)
    xs = x[order]
    new = xp.empty(n, dtype=xp.int64)
    new[0] = 0
    new[1:] = (xs[1:] != xs[:-1]).astype(xp.int64)
    sorted_rank = xp.cumsum(new)
    rank = xp.empty(n, dtype=xp.int64)
    rank[order] = sorted_rank
    return rank, int(sorted_rank[-1]) + 1


def run_bounds(xp: ModuleType, change: Any, n: int) -> tuple[Any, Any]:
    """Starts and exclusive ends of the runs of equal values of a sorted array ``a``.

    Parameters
    ----------
    xp : module
        The array namespace (NumPy or CuPy).
    change : array of bool
        ``change[k] = a[k+1] != a[k]`` (length ``n - 1``).
    n : int
        The length of ``a``.

    Returns
    -------
    starts, ends : array of int64
        The first position of each run and the position after its last.
    """
    cut = xp.nonzero(change)[0] + 1
    zero = xp.zeros(1, dtype=cut.dtype)
    starts = xp.concatenate([zero, cut])
    ends = xp.concatenate([cut, xp.full(1, n, dtype=cut.dtype)])
    return starts.astype(xp.int64), ends.astype(xp.int64)


def split_blocks(xp: ModuleType, cur: Any, level: int, n: int) -> tuple[Any, ...]:
    """Split the blocks of level ``level`` into their halves.

    ``cur`` lists the positions by (position >> level, prediction, position); the block of slot
    ``k`` occupies slots ``[k >> level << level, ...)``. Returns the positions by
    (position >> (level - 1), prediction, position), a stable partition of every block by bit
    ``level - 1``, then per slot of ``cur``: ``k``, whether its position is in the left half,
    the start of its block, the left positions of the block before the slot and the block's
    left positions in all (what the discordant pairs between the halves are counted from).
    """
    dtype = cur.dtype
    half = 1 << (level - 1)
    k = xp.arange(n, dtype=dtype)
    left = ((cur >> (level - 1)) & 1) == 0
    z = left.astype(dtype)
    before = xp.cumsum(z, dtype=dtype) - z  # lefts before each slot, over the whole array
    start = (k >> level) << level
    in_block = before - before[start]  # lefts of the block before the slot
    left_total = xp.minimum(xp.maximum(n - start, 0), half)
    new = xp.where(left, start + in_block, start + left_total + (k - start - in_block))
    nxt = xp.empty_like(cur)
    nxt[new] = cur
    return nxt, k, left, start, in_block, left_total


def _split(xp: ModuleType, cur: Any, level: int, n: int) -> tuple[Any, int]:
    """:func:`split_blocks`' new order and the number of pairs (left i, right j) of a block with
    ``p_i > p_j`` (the discordant pairs between the halves)."""
    nxt, _, left, _, in_block, left_total = split_blocks(xp, cur, level, n)
    greater = xp.where(left, 0, left_total - in_block)  # right j: lefts with p > p_j
    return nxt, int(xp.sum(greater, dtype=xp.int64))


@dataclasses.dataclass(frozen=True)
class RankPlan:
    """What one model's replicates share: the sequence, its tie groups and the level orders.

    All arrays are in the namespace they were built in (NumPy or CuPy).

    Attributes
    ----------
    n : int
    seq : array of int
        The row at each position (rows by increasing y, ties by increasing prediction).
    y_start, y_end : array of int64
        Tie groups of ``y_true`` as position ranges ``[start, end)``, in increasing y.
    j_start, j_end, j_y, j_p : array of int64
        Joint tie groups (equal y and equal prediction) as position ranges, with the index of
        their y group and of their prediction group.
    p_start, p_end : array of int64
        Tie groups of the prediction as slot ranges of ``perms[-1]``, in increasing prediction.
    perms : tuple of arrays
        ``perms[L - 1]`` lists the positions by (position >> L, prediction, position), for
        ``L = 1 .. ceil(log2 n)``; the last is the order by prediction.
    """

    n: int
    seq: Any
    y_start: Any
    y_end: Any
    j_start: Any
    j_end: Any
    j_y: Any
    j_p: Any
    p_start: Any
    p_end: Any
    perms: tuple[Any, ...]


def position_sequence(xp: ModuleType, y: Any, p: Any) -> tuple[Any, Any, Any, int]:
    """The rows sorted by ``y`` then prediction (stable), with the dense ranks of both.

    Parameters
    ----------
    xp : module
        The array namespace (NumPy or CuPy).
    y, p : array of float64
        The truth and the prediction (no NaN).

    Returns
    -------
    seq : array of int64
        The row at each position.
    y_rank, p_rank : array of int64
        The dense ranks of ``y`` and of ``p`` in position order.
    n_predictions : int
        The number of distinct predictions.
    """
    ry, _ = dense_ranks(xp, y)
    rp, n_p = dense_ranks(xp, p)
    seq = argsort_stable(xp, ry * n_p + rp)
    return seq, ry[seq], rp[seq], n_p


def build_plan(xp: ModuleType, y: Any, p: Any) -> RankPlan:
    """The per-model structures for :func:`replicate_statistics` (float64 ``y``, ``p``; no NaN).

    A few stable sorts (the dense ranks, the sequence, the prediction order) and one stable split
    per level; O(n log n) work and ``ceil(log2 n)`` index arrays of length n.
    """
    n = int(y.shape[0])
    if n < 2:
        raise ValueError(f"need at least 2 rows; got {n}")
    seq, ry_s, rp_s, _ = position_sequence(xp, y, p)
    change_y = ry_s[1:] != ry_s[:-1]
    y_start, y_end = run_bounds(xp, change_y, n)
    j_start, j_end = run_bounds(xp, change_y | (rp_s[1:] != rp_s[:-1]), n)
    j_y = ry_s[j_start]
    j_p = rp_s[j_start]
    dtype = index_dtype(n)
    top = argsort_stable(xp, rp_s).astype(dtype)  # positions by (prediction, position)
    p_sorted = rp_s[top]
    p_start, p_end = run_bounds(xp, p_sorted[1:] != p_sorted[:-1], n)
    levels = n_levels(n)
    perms: list[Any] = [top]
    cur = top
    for level in range(levels, 1, -1):
        cur, _ = _split(xp, cur, level, n)
        perms.append(cur)
    perms.reverse()  # perms[L - 1] is level L
    return RankPlan(
        n=n,
        seq=seq.astype(dtype),
        y_start=y_start,
        y_end=y_end,
        j_start=j_start,
        j_end=j_end,
        j_y=j_y,
        j_p=j_p,
        p_start=p_start,
        p_end=p_end,
        perms=tuple(perms),
    )


def plan_bytes(n: int) -> int:
    """An upper bound on the memory of one model's :class:`RankPlan` (and its build)."""
    index = 4 if n < (1 << 31) - 1 else 8
    return n * (index * (n_levels(n) + 2) + 8 * 12)


def replicate_bytes(n: int) -> int:
    """Peak memory per replicate row of :func:`replicate_statistics` (weights, gathers, sums)."""
    return 160 * (n + 1)


def max_rows_exact(total_weight: int) -> int:
    """The most replicate rows per chunk whose int64 prefix sums and products stay exact.

    The prefix sums of a chunk run over its rows one after the other, so they reach ``rows * W``
    (W the largest total weight of one replicate) before each row's offset is subtracted; the
    pair sums of a row reach ``W^2``. Raises ValueError when ``W^2`` passes the bound.
    """
    square = int(total_weight) ** 2
    if square >= EXACT_LIMIT:
        raise ValueError(
            f"the total weight of a replicate ({int(total_weight)}) is too large for exact int64 "
            f"pair sums (its square must stay below 2**62); rescale integer sample_weight"
        )
    return max(1, EXACT_LIMIT // max(int(total_weight), 1))


def _prefix(xp: ModuleType, a: Any, acc: Any, exact: bool) -> Any:
    """Inclusive prefix sums along the rows of ``a``.

    Exact integers: one prefix sum over the flattened chunk (each row then carries the total of the
    rows before it; every use below is a difference in which that offset cancels, or subtracts it).
    Floats: along each row, so that no offset costs precision.
    """
    if exact:
        return xp.cumsum(xp.reshape(a, (-1,)), dtype=acc).reshape(a.shape)
    return xp.cumsum(a, axis=1, dtype=acc)


def _padded_prefix(xp: ModuleType, a: Any, acc: Any, exact: bool) -> Any:
    """``out[:, i]`` = sum of ``a[:, :i]`` (plus the row's offset), shape ``(rows, n + 1)``."""
    cs = _prefix(xp, a, acc, exact)
    offset = cs[:, :1] - a[:, :1].astype(acc)
    return xp.concatenate([offset, cs], axis=1)


def _row_prefix(xp: ModuleType, a: Any, acc: Any, exact: bool) -> Any:
    """Inclusive prefix sums along each row of ``a``, without the offset of earlier rows."""
    cs = _prefix(xp, a, acc, exact)
    if exact:
        cs = cs - (cs[:, :1] - a[:, :1].astype(acc))
    return cs


def _position_terms(xp: ModuleType, csy: Any, n: int, levels: int, acc: Any, exact: bool) -> Any:
    """``sum_L sum_{j right} w_j S^pos_j`` from the plain prefix sums ``csy`` of the weights.

    For j in the right half of block b, ``S^pos_j`` is the left weight of blocks 0..b, so the
    level's term is ``sum_b R_b (L_0 + ... + L_b)`` with ``L_b`` / ``R_b`` the block halves'
    weights, read off ``csy`` at the block boundaries: O(n / 2^L) per level.
    """
    out = xp.zeros(csy.shape[0], dtype=acc)
    for level in range(1, levels + 1):
        size = 1 << level
        starts = xp.arange(0, n, size, dtype=xp.int64)
        mids = xp.minimum(starts + size // 2, n)
        ends = xp.minimum(starts + size, n)
        left = csy[:, mids] - csy[:, starts]
        right = csy[:, ends] - csy[:, mids]
        out += xp.sum(right * _row_prefix(xp, left, acc, exact), axis=1)
    return out


def generic_level_term(xp: ModuleType, wl: Any, left: Any, acc: Any, exact: bool) -> Any:
    """``sum_{k right} wl_k S^lev_k`` per row: S^lev the left-masked prefix sums of ``wl``.

    The generic form, on any array namespace; :mod:`ranklens._compute.xp.cuda` fuses it into one
    CuPy kernel and falls back on it.

    Parameters
    ----------
    xp : module
        The array namespace (NumPy or CuPy).
    wl : array
        The replicate weights ``(rows, n)`` in the level's order.
    left : array of bool
        Whether each position is in the left half of its block at this level.
    acc : dtype
        The accumulator dtype of the prefix sums.
    exact : bool
        Whether the sums are exact integers (int64 prefix sums).

    Returns
    -------
    array
        The level term of each replicate row.
    """
    zero = xp.zeros((), dtype=wl.dtype)
    s = _row_prefix(xp, xp.where(left, wl, zero), acc, exact)
    return xp.sum(xp.where(left, zero, wl) * s, axis=1)


def replicate_statistics(
    xp: ModuleType, plan: RankPlan, weights: Any, *, level_term: Any = None
) -> dict[str, Any]:
    """Pair sums and midrank moments of every replicate row of ``weights`` (rows, n) in row order.

    Returns arrays of shape ``(rows,)``: ``total`` W, ``sum_y2`` / ``sum_p2`` / ``sum_j2`` (sums of
    squared group weights over y, prediction and joint tie groups), ``disc`` (the discordant
    weight D), all exact for integer weights, and float64 ``var_a``, ``var_b``, ``cov`` (four
    times the weighted variances and covariance of the centred weighted midranks of prediction
    and y). :func:`replicate_classes` turns them into the pair classes.
    ``level_term``: a fused replacement of the generic level term, ``(ws, perm, shift) -> int64
    per row`` for int32 weights ``ws`` in position order (:func:`ranklens._compute.xp.cuda.
    fused_level_term`); used only for int32 weights.
    """
    exact = bool(np.issubdtype(weights.dtype, np.integer))
    acc = xp.int64 if exact else xp.float64
    n = plan.n
    levels = len(plan.perms)
    ws = weights[:, plan.seq]  # position order
    total = xp.sum(ws, axis=1, dtype=acc)
    # y groups and joint groups are runs of positions
    csy = _padded_prefix(xp, ws, acc, exact)
    g_y = csy[:, plan.y_end] - csy[:, plan.y_start]
    g_j = csy[:, plan.j_end] - csy[:, plan.j_start]
    b2 = csy[:, plan.y_start] + csy[:, plan.y_end] - (2 * csy[:, :1] + total[:, None])
    b2 = b2.astype(xp.float64)
    sum_y2 = xp.sum(g_y * g_y, axis=1)
    sum_j2 = xp.sum(g_j * g_j, axis=1)
    var_b = xp.sum(g_y.astype(xp.float64) * b2 * b2, axis=1)
    del g_y
    disc = _position_terms(xp, csy, n, levels, acc, exact)
    del csy
    # prediction groups are runs of the top level's order (by prediction)
    top = plan.perms[-1]
    wl = ws[:, top]
    csp = _padded_prefix(xp, wl, acc, exact)
    g_p = csp[:, plan.p_end] - csp[:, plan.p_start]
    sum_p2 = xp.sum(g_p * g_p, axis=1)
    a2 = csp[:, plan.p_start] + csp[:, plan.p_end] - (2 * csp[:, :1] + total[:, None])
    a2 = a2.astype(xp.float64)
    var_a = xp.sum(g_p.astype(xp.float64) * a2 * a2, axis=1)
    cov = xp.sum(g_j.astype(xp.float64) * a2[:, plan.j_p] * b2[:, plan.j_y], axis=1)
    del csp, g_p, a2, b2, g_j
    kernel = level_term if ws.dtype == xp.int32 else None
    for level in range(levels, 0, -1):
        perm = plan.perms[level - 1]
        if kernel is not None:
            disc -= kernel(ws, perm, level - 1)
            continue
        if level != levels:
            wl = ws[:, perm]
        left = ((perm >> (level - 1)) & 1) == 0
        disc -= generic_level_term(xp, wl, left, acc, exact)
        del wl
    return {
        "total": total,
        "sum_y2": sum_y2,
        "sum_p2": sum_p2,
        "sum_j2": sum_j2,
        "disc": disc,
        "var_a": var_a,
        "var_b": var_b,
        "cov": cov,
    }


#: The group sums of a replicate, in the order the numba kernels return them
#: (:func:`ranklens._compute.kernels.compare.finish_rank_batch`) and the keys of
#: :func:`replicate_statistics`.
GROUP_SUMS = ("total", "sum_y2", "sum_p2", "sum_j2", "disc", "cov", "var_a", "var_b")


def replicate_classes(stats: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The pair classes of every replicate, as :class:`ranklens._foundation.forms.RankStatistic`
    reads them, from its group sums.

    Host arrays (``stats`` from :func:`replicate_statistics` moved to NumPy, or the numba
    kernels' sums by :data:`GROUP_SUMS`). With W the total weight, ``2 distinct_y = W^2 - Sy``,
    ``2 distinct_pred = W^2 - Sp``, ``2 tied_pred_only = Sp - Sj`` and ``C = distinct_y - D -
    tied_pred_only``. Integer sums (integer weights) are combined as exact integers and halved
    once into float64 (each doubled count is even); float sums in the numba kernels' order, so
    every engine's classes are the same numbers.
    """
    total = stats["total"]
    w2 = total * total
    distinct_y2 = w2 - stats["sum_y2"]
    distinct_p2 = w2 - stats["sum_p2"]
    tied2 = stats["sum_p2"] - stats["sum_j2"]
    disc = stats["disc"]
    if np.issubdtype(total.dtype, np.integer):
        conc2 = distinct_y2 - 2 * disc - tied2
        classes = {
            "concordant": conc2.astype(np.float64) / 2.0,
            "discordant": disc.astype(np.float64),
            "tied_pred_only": tied2.astype(np.float64) / 2.0,
            "distinct_y": distinct_y2.astype(np.float64) / 2.0,
            "distinct_pred": distinct_p2.astype(np.float64) / 2.0,
        }
    else:
        distinct_y = 0.5 * distinct_y2
        tied = 0.5 * tied2
        classes = {
            "concordant": distinct_y - disc - tied,
            "discordant": disc,
            "tied_pred_only": tied,
            "distinct_y": distinct_y,
            "distinct_pred": 0.5 * distinct_p2,
        }
    return {**classes, "cov": stats["cov"], "var_a": stats["var_a"], "var_b": stats["var_b"]}


def exact_pair_counts(xp: ModuleType, y: Any, p: Any) -> dict[str, int]:
    """Exact pair counts of one unweighted sample: ``n``, ``pairs``, ``tied_y``, ``tied_pred``,
    ``tied_both``, ``discordant`` and ``concordant`` (Python ints).

    The sequence and the prediction order by stable sorts, then ``ceil(log2 n)`` stable splits
    that count the discordant pairs of each level (:func:`_split`; Knight 1966's merge sort read
    top-down), without storing the level orders: O(n log n) work and O(n) memory.
    """
    n = int(y.shape[0])
    seq, ry_s, rp_s, _ = position_sequence(xp, y, p)
    del seq
    change_y = ry_s[1:] != ry_s[:-1]
    change_j = change_y | (rp_s[1:] != rp_s[:-1])

    def tied(change: Any) -> int:
        starts, ends = run_bounds(xp, change, n)
        t = ends - starts
        return int(xp.sum(t * (t - 1) // 2))

    tied_y = tied(change_y)
    tied_both = tied(change_j)
    del change_y, change_j
    cur = argsort_stable(xp, rp_s).astype(index_dtype(n))
    p_sorted = rp_s[cur]
    tied_pred = tied(p_sorted[1:] != p_sorted[:-1])
    del p_sorted, ry_s, rp_s
    disc = 0
    for level in range(n_levels(n), 0, -1):
        cur, count = _split(xp, cur, level, n)
        disc += count
    pairs = n * (n - 1) // 2
    conc = pairs - tied_y - (tied_pred - tied_both) - disc
    return {
        "n": n,
        "pairs": pairs,
        "tied_y": tied_y,
        "tied_pred": tied_pred,
        "tied_both": tied_both,
        "discordant": disc,
        "concordant": conc,
    }


def classes_from_counts(counts: Mapping[str, int]) -> dict[str, int]:
    """The pair classes :class:`ranklens._foundation.forms.RankStatistic` reads, from the exact
    counts of :func:`exact_pair_counts` (Python ints)."""
    return {
        "concordant": counts["concordant"],
        "discordant": counts["discordant"],
        "tied_pred_only": counts["tied_pred"] - counts["tied_both"],
        "distinct_y": counts["pairs"] - counts["tied_y"],
        "distinct_pred": counts["pairs"] - counts["tied_pred"],
    }
