"""Numba kernels of the comparison engine (:mod:`ranklens.compare`): resampling bookkeeping.

Every replicate is described by a row of *multiplicities* (how often each observation is drawn;
zero for the rows a bootstrap sample misses) or a row of *swaps* (whether the two models'
predictions are exchanged for that observation, in the paired permutation test). Each kernel is a
per-row function plus two drivers over the rows of a block: a ``prange`` loop (``*_parallel``)
and a plain loop (``*_serial``), for blocks too small to repay waking the thread pool. Within a
row every sum is accumulated sequentially, so the results are bit-identical whatever the number
of threads and whichever driver ran.

No validation here: the public wrappers in :mod:`ranklens.compare` check their input.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ranklens._compute.kernels import _thread_pool  # noqa: F401  (launches numba's threads)
from ranklens._compute.kernels.ranking import gather_positive, rank_sums_sorted

__all__ = [
    "RANK_SUMS",
    "counts_wrapped",
    "multiplicities_parallel",
    "multiplicities_serial",
    "rank_batches_parallel",
    "rank_batches_serial",
    "rank_replicates_parallel",
    "rank_replicates_serial",
    "small_multiplicities_parallel",
    "small_multiplicities_serial",
    "swapped_loss_sums_parallel",
    "swapped_loss_sums_serial",
    "swapped_rank_parallel",
    "swapped_rank_serial",
    "weighted_loss_sums_parallel",
    "weighted_loss_sums_serial",
]


# Large scratch arrays of the kernels are advised to the kernel's transparent huge pages (Linux
# ``madvise(MADV_HUGEPAGE)``, as NumPy does for its own arrays): the first write of each 4 KiB
# page of a fresh allocation otherwise costs a page fault, about a tenth of the bootstrap's
# time at n = 1e6 on a loaded machine. Only a hint: the values never depend on it.
_HUGE_PAGES_FROM = 1 << 23
_MADV_HUGEPAGE = 14


@intrinsic
def advise_huge_pages(typingctx, arr):
    """Advise the whole pages of ``arr`` (a fresh array not written yet, of at least 8 MiB) to
    transparent huge pages; nothing on other systems or smaller arrays."""
    sig = types.void(arr)

    def codegen(context, builder, signature, args):
        if not sys.platform.startswith("linux"):
            return context.get_dummy_value()
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i32, i64 = ir.IntType(32), ir.IntType(64)
        i8p = ir.IntType(8).as_pointer()
        nbytes = builder.mul(ary.nitems, ary.itemsize)
        start = builder.ptrtoint(ary.data, i64)
        page = ir.Constant(i64, 4095)
        aligned = builder.and_(builder.add(start, page), ir.Constant(i64, ~4095))
        length = builder.sub(builder.add(start, nbytes), aligned)
        big = builder.icmp_signed(">=", nbytes, ir.Constant(i64, _HUGE_PAGES_FROM))
        with builder.if_then(big):
            fnty = ir.FunctionType(i32, [i8p, i64, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "madvise")
            builder.call(
                fn, [builder.inttoptr(aligned, i8p), length, ir.Constant(i32, _MADV_HUGEPAGE)]
            )
        return context.get_dummy_value()

    return sig, codegen


# ---------------------------------------------------------------------------------------------
# Multiplicities: row-wise counts of the drawn indices
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _count_row(indices, b, out):
    """Row ``b`` of the counts, every entry written. Fewer than 2^31 draws are counted in int32
    (a row of n int32 takes half the cache of n float64: the scattered increments, the cost of
    the row, miss less; about half the time at n = 1e6) and converted, exactly; more in
    float64, exact below 2^53."""
    row = out[b]
    if indices.shape[1] < 2**31 - 1:
        counts = np.zeros(row.size, np.int32)
        for j in range(indices.shape[1]):
            counts[indices[b, j]] += 1
        for i in range(row.size):
            row[i] = counts[i]
    else:
        row[:] = 0.0
        for j in range(indices.shape[1]):
            row[indices[b, j]] += 1.0


@njit(cache=True, parallel=True)
def multiplicities_parallel(indices, n):
    """``out[b, i]`` = number of ``j`` with ``indices[b, j] == i`` (float64), rows in parallel."""
    out = np.empty((indices.shape[0], n), dtype=np.float64)
    advise_huge_pages(out)
    for b in prange(indices.shape[0]):
        _count_row(indices, b, out)
    return out


@njit(cache=True)
def multiplicities_serial(indices, n):
    """As :func:`multiplicities_parallel`, one row after the other."""
    out = np.empty((indices.shape[0], n), dtype=np.float64)
    advise_huge_pages(out)
    for b in range(indices.shape[0]):
        _count_row(indices, b, out)
    return out


@njit(cache=True)
def _count_row_small(indices, b, out):
    """Row ``b`` of the counts as uint8, every entry written; True when a count passed 255
    (and wrapped: the row is not to be used)."""
    row = out[b]
    row[:] = 0
    for j in range(indices.shape[1]):
        row[indices[b, j]] += 1  # (wraps past 255)
    return counts_wrapped(row, indices.shape[1])


@njit(cache=True)
def counts_wrapped(row, draws):
    """Whether a row of uint8 counts of ``draws`` draws has a count that passed 255: it
    wrapped and lost 256, so the row sums to less than ``draws`` (no test per draw)."""
    total = 0
    for i in range(row.size):
        total += np.int64(row[i])
    return total != draws


@njit(cache=True, parallel=True)
def small_multiplicities_parallel(indices, n):
    """:func:`multiplicities_parallel` as uint8, and whether every count fits (is at most 255).

    A row of n uint8 counts stays in the core's L2 cache at n = 1e6, where n int32 do not, and
    the block is an eighth of the float64 one: about a third of the time with the lanes made
    from it. The counts equal the float64 ones wherever they fit."""
    out = np.empty((indices.shape[0], n), dtype=np.uint8)
    advise_huge_pages(out)
    wrapped = np.zeros(indices.shape[0], np.bool_)
    for b in prange(indices.shape[0]):
        wrapped[b] = _count_row_small(indices, b, out)
    return out, not wrapped.any()


@njit(cache=True)
def small_multiplicities_serial(indices, n):
    """As :func:`small_multiplicities_parallel`, one row after the other."""
    out = np.empty((indices.shape[0], n), dtype=np.uint8)
    advise_huge_pages(out)
    wrapped = False
    for b in range(indices.shape[0]):
        wrapped |= _count_row_small(indices, b, out)
    return out, not wrapped


# ---------------------------------------------------------------------------------------------
# Weighted loss sums: W @ L without forming W
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _loss_row(multiplicity, base_weight, losses, b, sums, totals):
    n_losses = losses.shape[1]
    acc = np.zeros(n_losses, dtype=np.float64)
    total = 0.0
    for i in range(multiplicity.shape[1]):
        m = multiplicity[b, i]
        if m != 0.0:
            w = m * base_weight[i]
            total += w
            for k in range(n_losses):
                acc[k] += w * losses[i, k]
    totals[b] = total
    for k in range(n_losses):
        sums[b, k] = acc[k]


@njit(cache=True, parallel=True)
def weighted_loss_sums_parallel(multiplicity, base_weight, losses):
    """Weighted sums of per-observation losses for every replicate row.

    With ``w_bi = multiplicity[b, i] * base_weight[i]`` returns ``sums[b, l] = sum_i w_bi *
    losses[i, l]`` and ``totals[b] = sum_i w_bi`` (the product ``W @ L`` without forming ``W``,
    skipping the observations a replicate leaves out).
    """
    rows = multiplicity.shape[0]
    sums = np.zeros((rows, losses.shape[1]), dtype=np.float64)
    totals = np.zeros(rows, dtype=np.float64)
    for b in prange(rows):
        _loss_row(multiplicity, base_weight, losses, b, sums, totals)
    return sums, totals


@njit(cache=True)
def weighted_loss_sums_serial(multiplicity, base_weight, losses):
    """As :func:`weighted_loss_sums_parallel`, one row after the other."""
    rows = multiplicity.shape[0]
    sums = np.zeros((rows, losses.shape[1]), dtype=np.float64)
    totals = np.zeros(rows, dtype=np.float64)
    for b in range(rows):
        _loss_row(multiplicity, base_weight, losses, b, sums, totals)
    return sums, totals


@njit(cache=True)
def _swapped_loss_row(swaps, base_weight, losses_a, losses_b, b, sums_a, sums_b):
    n_losses = losses_a.shape[1]
    acc_a = np.zeros(n_losses, dtype=np.float64)
    acc_b = np.zeros(n_losses, dtype=np.float64)
    for i in range(swaps.shape[1]):
        w = base_weight[i]
        if swaps[b, i]:
            for k in range(n_losses):
                acc_a[k] += w * losses_b[i, k]
                acc_b[k] += w * losses_a[i, k]
        else:
            for k in range(n_losses):
                acc_a[k] += w * losses_a[i, k]
                acc_b[k] += w * losses_b[i, k]
    for k in range(n_losses):
        sums_a[b, k] = acc_a[k]
        sums_b[b, k] = acc_b[k]


@njit(cache=True, parallel=True)
def swapped_loss_sums_parallel(swaps, base_weight, losses_a, losses_b):
    """Weighted loss sums of two models after exchanging their predictions where ``swaps`` is set.

    Returns ``(sums_a, sums_b)`` of shape ``(rows, n_losses)``: model A's sum uses ``losses_b[i]``
    where ``swaps[b, i]`` and ``losses_a[i]`` elsewhere; model B's the other way round. The total
    weight is unchanged by a swap.
    """
    rows = swaps.shape[0]
    sums_a = np.zeros((rows, losses_a.shape[1]), dtype=np.float64)
    sums_b = np.zeros((rows, losses_a.shape[1]), dtype=np.float64)
    for b in prange(rows):
        _swapped_loss_row(swaps, base_weight, losses_a, losses_b, b, sums_a, sums_b)
    return sums_a, sums_b


@njit(cache=True)
def swapped_loss_sums_serial(swaps, base_weight, losses_a, losses_b):
    """As :func:`swapped_loss_sums_parallel`, one row after the other."""
    rows = swaps.shape[0]
    sums_a = np.zeros((rows, losses_a.shape[1]), dtype=np.float64)
    sums_b = np.zeros((rows, losses_a.shape[1]), dtype=np.float64)
    for b in range(rows):
        _swapped_loss_row(swaps, base_weight, losses_a, losses_b, b, sums_a, sums_b)
    return sums_a, sums_b


# ---------------------------------------------------------------------------------------------
# The rank statistics per replicate: the weighted group sums they are functions of
# ---------------------------------------------------------------------------------------------
#
# The bootstrap evaluates the same (y, prediction) pairs under thousands of weight vectors, so
# everything that depends only on the values is done once (ranklens._compute.kernels.ranking's stage
# 1: dense ranks and the rows sorted by y, ties by prediction) and each replicate runs one lean pass
# of the stage-2 kernel ranklens._compute.kernels.ranking.rank_sums_sorted over the rows with
# positive weight (a bootstrap replicate leaves out a third of them).

#: The group sums a rank kernel returns per replicate and model, in the order of
#: :func:`ranklens._compute.kernels.ranking.rank_sums_sorted`: the total weight, the sums of squared
#: group weights over y, prediction and joint tie groups, the discordant weight and the three
#: midrank moments.
RANK_SUMS = 8


@njit(cache=True)
def _sort_within_runs(y_seq, p_seq, w_seq):
    """Sort ``p_seq`` (carrying ``w_seq``) inside each run of equal ``y_seq``: insertion sort for
    short runs, a merge sort for long ones (e.g. the many zeros of a donation amount)."""
    m = y_seq.size
    k = 0
    while k < m:
        e = k + 1
        while e < m and y_seq[e] == y_seq[k]:
            e += 1
        if e - k > 32:
            idx = np.argsort(p_seq[k:e], kind="mergesort")
            p_run = p_seq[k:e][idx]
            w_run = w_seq[k:e][idx]
            p_seq[k:e] = p_run
            w_seq[k:e] = w_run
            k = e
            continue
        for t in range(k + 1, e):
            key = p_seq[t]
            wt = w_seq[t]
            s = t - 1
            while s >= k and p_seq[s] > key:
                p_seq[s + 1] = p_seq[s]
                w_seq[s + 1] = w_seq[s]
                s -= 1
            p_seq[s + 1] = key
            w_seq[s + 1] = wt
        k = e


@njit(cache=True)
def _rank_row(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds, b, out):
    for m in range(orders.shape[0]):
        y_seq, p_seq, w_seq = gather_positive(
            orders[m], y_sorted[m], p_sorted[m], multiplicity[b], base_weight
        )
        sums = rank_sums_sorted(y_seq, p_seq, w_seq, n_preds[m])
        for k in range(RANK_SUMS):
            out[b, k, m] = sums[k]


@njit(cache=True, parallel=True)
def rank_replicates_parallel(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds):
    """``out[b, :, m]`` = the :data:`RANK_SUMS` group sums of model m under replicate row b.

    ``orders[m]`` lists the rows by increasing y, ties by increasing prediction of model m;
    ``y_sorted[m]``/``p_sorted[m]`` are the dense y and prediction ranks in that order
    (``p_sorted[m] < n_preds[m]``).

    One replicate a sweep, skipping the rows it leaves out: the reference the batched sweep
    (:func:`rank_batches_parallel`) and the level sweep of larger data
    (:mod:`ranklens._compute.kernels.rank_levels`) are tested against; the comparison runs those
    two.
    """
    out = np.empty((multiplicity.shape[0], RANK_SUMS, orders.shape[0]), np.float64)
    for b in prange(multiplicity.shape[0]):
        _rank_row(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds, b, out)
    return out


@njit(cache=True)
def rank_replicates_serial(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds):
    """As :func:`rank_replicates_parallel`, one row after the other."""
    out = np.empty((multiplicity.shape[0], RANK_SUMS, orders.shape[0]), np.float64)
    for b in range(multiplicity.shape[0]):
        _rank_row(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds, b, out)
    return out


@njit(cache=True)
def _swapped_rank_row(swaps, base_weight, y_order, y_sorted, rank_a, rank_b, n_union, b, out):
    n = swaps.shape[1]
    ones = np.ones(n, np.float64)
    for side in range(2):
        mixed = np.empty(n, np.int64)
        for k in range(n):
            i = y_order[k]
            use_b = swaps[b, i] if side == 0 else not swaps[b, i]
            mixed[k] = rank_b[i] if use_b else rank_a[i]
        y_seq, p_seq, w_seq = gather_positive(y_order, y_sorted, mixed, ones, base_weight)
        _sort_within_runs(y_seq, p_seq, w_seq)
        sums = rank_sums_sorted(y_seq, p_seq, w_seq, n_union)
        for k in range(RANK_SUMS):
            out[b, k, side] = sums[k]


@njit(cache=True, parallel=True)
def swapped_rank_parallel(swaps, base_weight, y_order, y_sorted, rank_a, rank_b, n_union):
    """The rank sums of two models after exchanging predictions where ``swaps`` is set.

    ``rank_a``/``rank_b`` are dense ranks of both models' predictions in their union (so mixed
    vectors compare correctly), ``y_order`` the rows by increasing y and ``y_sorted`` their y
    ranks in that order. Returns ``out[b, :, 0 or 1]`` = the :data:`RANK_SUMS` group sums of
    the mixed A and the mixed B.
    """
    out = np.empty((swaps.shape[0], RANK_SUMS, 2), np.float64)
    for b in prange(swaps.shape[0]):
        _swapped_rank_row(swaps, base_weight, y_order, y_sorted, rank_a, rank_b, n_union, b, out)
    return out


@njit(cache=True)
def swapped_rank_serial(swaps, base_weight, y_order, y_sorted, rank_a, rank_b, n_union):
    """As :func:`swapped_rank_parallel`, one row after the other."""
    out = np.empty((swaps.shape[0], RANK_SUMS, 2), np.float64)
    for b in range(swaps.shape[0]):
        _swapped_rank_row(swaps, base_weight, y_order, y_sorted, rank_a, rank_b, n_union, b, out)
    return out


# ---------------------------------------------------------------------------------------------
# Rank correlations of a batch of replicates in one sweep
# ---------------------------------------------------------------------------------------------
#
# The sort order never depends on the weights, so a replicate is only a weighted sweep over the
# fixed sequence (rows by y, ties by prediction). Sweeping ``R`` replicates together makes every
# scattered read (the prediction group of a row, a Fenwick node) serve ``R`` contiguous weights,
# and the inner loops over the batch vectorise. Each replicate's sums are accumulated in exactly
# the order of :func:`ranklens._compute.kernels.ranking.rank_sums_sorted` (rows of zero weight
# add zeros, which changes no sum), so the numbers are bit-identical to the one-replicate
# kernel's and do not depend on the batch size or the number of threads.

#: Replicates swept together: a compile-time width, so that the loops over the batch unroll and
#: vectorise (a short last batch is padded with zero weights and its padding discarded).
RANK_BATCH = 8


@njit(cache=True)
def finish_rank_batch(used, total, sum_y2, sum_p2, sum_j2, disc, cov, var_a, var_b, r0, m, out):
    """Store the group sums of ``used`` replicates, ``out[r0 + j, :, m]``, in the order of
    :func:`ranklens._compute.kernels.ranking.rank_sums_sorted`.

    Shared by the batched rank sweep below and the level-order sweep (``rank_levels``), so both
    return their sums in one layout; the statistics follow outside the kernels.
    """
    for j in range(used):
        out[r0 + j, 0, m] = total[j]
        out[r0 + j, 1, m] = sum_y2[j]
        out[r0 + j, 2, m] = sum_p2[j]
        out[r0 + j, 3, m] = sum_j2[j]
        out[r0 + j, 4, m] = disc[j]
        out[r0 + j, 5, m] = cov[j]
        out[r0 + j, 6, m] = var_a[j]
        out[r0 + j, 7, m] = var_b[j]


@njit(cache=True)
def _rank_batch(multiplicity, base_weight, order, y_seq, p_seq, n_pred, r0, r1, out, m):
    R = RANK_BATCH
    used = r1 - r0
    n = order.shape[0]
    ws = np.zeros((n, R), np.float64)
    for k in range(n):
        i = order[k]
        bw = base_weight[i]
        for j in range(used):
            ws[k, j] = multiplicity[r0 + j, i] * bw
    total = np.zeros(R, np.float64)
    for k in range(n):
        for j in range(R):
            total[j] += ws[k, j]
    half = np.empty(R, np.float64)
    for j in range(R):
        half[j] = 0.5 * total[j]
    # prediction groups: weights, then (in place) weighted midranks
    pred_mid = np.zeros((n_pred, R), np.float64)
    for k in range(n):
        g = p_seq[k]
        for j in range(R):
            pred_mid[g, j] += ws[k, j]
    below = np.zeros(R, np.float64)
    sum_p2 = np.zeros(R, np.float64)
    var_a = np.zeros(R, np.float64)
    for g in range(n_pred):
        for j in range(R):
            gw = pred_mid[g, j]
            mid = below[j] + 0.5 * gw - half[j]
            pred_mid[g, j] = mid
            below[j] += gw
            sum_p2[j] += gw * gw
            var_a[j] += gw * mid * mid
    sum_y2 = np.zeros(R, np.float64)
    sum_j2 = np.zeros(R, np.float64)
    var_b = np.zeros(R, np.float64)
    cov = np.zeros(R, np.float64)
    disc = np.zeros(R, np.float64)
    below[:] = 0.0
    gw_run = np.empty(R, np.float64)
    b = np.empty(R, np.float64)
    jw = np.empty(R, np.float64)
    pref = np.empty(R, np.float64)
    tree = np.zeros((n_pred + 1, R), np.float64)
    size = n_pred + 1
    k = 0
    while k < n:
        e = k
        while e < n and y_seq[e] == y_seq[k]:
            e += 1
        gw_run[:] = 0.0
        for t in range(k, e):
            for j in range(R):
                gw_run[j] += ws[t, j]
        for j in range(R):
            b[j] = below[j] + 0.5 * gw_run[j] - half[j]
            var_b[j] += gw_run[j] * b[j] * b[j]
            sum_y2[j] += gw_run[j] * gw_run[j]
        s = k
        while s < e:
            f = s
            while f < e and p_seq[f] == p_seq[s]:
                f += 1
            jw[:] = 0.0
            for t in range(s, f):
                for j in range(R):
                    jw[j] += ws[t, j]
            g = p_seq[s]
            for j in range(R):
                sum_j2[j] += jw[j] * jw[j]
                cov[j] += jw[j] * pred_mid[g, j] * b[j]
            s = f
        # discordant: earlier rows (smaller y) with a larger prediction rank (a Fenwick tree)
        for t in range(k, e):
            pref[:] = 0.0
            r = p_seq[t] + 1
            while r > 0:
                for j in range(R):
                    pref[j] += tree[r, j]
                r -= r & (-r)
            for j in range(R):
                disc[j] += ws[t, j] * (below[j] - pref[j])
        for t in range(k, e):
            r = p_seq[t] + 1
            while r < size:
                for j in range(R):
                    tree[r, j] += ws[t, j]
                r += r & (-r)
        for j in range(R):
            below[j] += gw_run[j]
        k = e
    finish_rank_batch(used, total, sum_y2, sum_p2, sum_j2, disc, cov, var_a, var_b, r0, m, out)


@njit(cache=True)
def _rank_batch_task(task, multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds, out):
    """Task ``task`` of the batched drivers: one model, :data:`RANK_BATCH` replicates."""
    n_models = orders.shape[0]
    m = task % n_models
    r0 = (task // n_models) * RANK_BATCH
    r1 = min(r0 + RANK_BATCH, multiplicity.shape[0])
    _rank_batch(
        multiplicity, base_weight, orders[m], y_sorted[m], p_sorted[m], n_preds[m], r0, r1, out, m
    )


@njit(cache=True, parallel=True)
def rank_batches_parallel(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds):
    """As :func:`rank_replicates_parallel` (same output, same numbers), :data:`RANK_BATCH`
    replicates per sweep; the (model, batch) tasks run in parallel."""
    rows = multiplicity.shape[0]
    out = np.empty((rows, RANK_SUMS, orders.shape[0]), np.float64)
    n_tasks = (rows + RANK_BATCH - 1) // RANK_BATCH * orders.shape[0]
    for task in prange(n_tasks):
        _rank_batch_task(task, multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds, out)
    return out


@njit(cache=True)
def rank_batches_serial(multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds):
    """As :func:`rank_batches_parallel`, one task after the other."""
    rows = multiplicity.shape[0]
    out = np.empty((rows, RANK_SUMS, orders.shape[0]), np.float64)
    n_tasks = (rows + RANK_BATCH - 1) // RANK_BATCH * orders.shape[0]
    for task in range(n_tasks):
        _rank_batch_task(task, multiplicity, base_weight, orders, y_sorted, p_sorted, n_preds, out)
    return out
