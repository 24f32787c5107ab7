"""Rank correlations of many replicates from precomputed divide-and-conquer level orders (numba).

The bootstrap evaluates the same ``(y_true, y_pred)`` pairs under thousands of weight vectors, and
the sort order never depends on the weights. This module is the CPU form of the level
decomposition of :mod:`ranklens._compute.xp.rank` (which explains it in full): the rows sorted by
increasing y, ties by increasing prediction, are the *positions* ``0..n-1``; a pair of positions
``i < j`` is discordant when ``p_i > p_j``; at level ``L`` the positions fall into blocks of
``2^L`` with a left and a right half, every pair is split by exactly one level, and the
discordant weight is ``D = sum_L D_L``. The *level order* ``perm_L`` lists the positions by
(block, prediction, position); it is built once per model (:func:`level_orders`, O(n) per level
by stable splits from the order by prediction). Walking a block of ``perm_L`` backwards, the left
rows already passed are exactly those of the block with a larger (prediction, position), i.e.
(being to the left) a larger prediction, so ``D_L`` is one gather, one masked running sum and
one masked product per row and level.

Per replicate only these O(n log n) gathers and sums run, with no comparison and no branch on
the data. The compact (uint8) sweep walks two levels a pass: within a block of ``perm_L`` the
rows of each half are already in ``perm_{L-1}``'s order, so one walk counts both levels and
moves the rows straight to ``perm_{L-2}``'s order (:func:`_sweep_chunk2`); the bottom levels
run one block of ``2^10`` positions at a time, which stays in cache through all of them.
:func:`level_statistics` sweeps :data:`LEVEL_BATCH` replicates together, weights laid out
``(n, LEVEL_BATCH)`` row-major, so that one gather fetches the replicates' weights of a row
from one cache line and every inner loop runs over the batch (and vectorises).

Exact arithmetic: integer weights (bootstrap multiplicities times integer case weights) are held
as int32 and ``D`` is accumulated in int64, exactly. The other sums (group weights, their
squares, Spearman's midrank moments) are float64 and accumulated in exactly the order of
:func:`ranklens._compute.kernels.ranking.rank_sums_sorted`, so for integer weights whose total
squared stays below ``2^53`` the results are bit-identical to the one-replicate sweep's.
Fractional weights run the same code in float64.

Memory: the level orders are ``ceil(log2 n)`` int32 arrays of length n per model (80 MB at
n = 1e6 for 20 levels); a batch task holds its weights in two orders and the predictions'
midranks, ``(n, LEVEL_BATCH)`` each (compact batches: uint8 weights and twice the midranks as
int32, swept as LLVM vector code; arrays of 8 MiB and more on transparent huge pages).

References
----------
Knight, W. R. (1966). A computer method for calculating Kendall's tau with ungrouped data.
*Journal of the American Statistical Association* 61(314), 436-439.

Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from ranklens._compute.kernels import _thread_pool  # noqa: F401  (launches numba's threads)
from ranklens._compute.kernels.compare import RANK_SUMS, advise_huge_pages, finish_rank_batch

__all__ = [
    "LEVEL_BATCH",
    "SMALL_WEIGHT",
    "batch_weights_float",
    "batch_weights_small",
    "count_lanes",
    "group_lane_sums",
    "lane_loss_sums_into",
    "lane_loss_sums_parallel",
    "lane_sums_of",
    "level_codes",
    "level_orders",
    "level_plan",
    "level_scratch",
    "level_statistics_parallel",
    "level_statistics_serial",
    "n_levels",
]

#: At most this many replicates are swept together (the batch width is a run-time value: the
#: loops over the batch vectorise either way).
LEVEL_BATCH = 32

#: Largest weight held in the compact (uint8) batch layout; others are held as float64.
SMALL_WEIGHT = 255

#: Lanes of the compact sweep (:func:`_sweep_chunk`): a compact batch of fewer replicates is
#: padded with zero weights to this width (the padding's statistics are never written).
_LANES = 32


def n_levels(n: int) -> int:
    """``ceil(log2 n)``: the levels that split every pair of n positions (0 for n <= 1)."""
    return max(0, (int(n) - 1).bit_length())


def level_orders(p_seq: np.ndarray, n_pred: int, levels: int) -> np.ndarray:
    """``out[L - 1]`` lists the positions by (position >> L, prediction, position), L = 1..levels.

    ``p_seq`` are the prediction ranks (``< n_pred``) in position order. The top level's order
    (by prediction) is a stable counting sort; each lower one is a stable split of every block
    of the level above by the block's middle bit. int32 (callers keep n below 2^31).
    """
    out = np.empty((max(levels, 1), p_seq.size), np.int32)
    _level_orders_into(np.ascontiguousarray(p_seq), int(n_pred), int(levels), out)
    return out


@njit(cache=True, parallel=True)
def _every_level_order(p_sorted, n_preds, levels, out):
    """``out[m]`` = :func:`level_orders` of model m, models in parallel."""
    for m in prange(p_sorted.shape[0]):
        _level_orders_into(p_sorted[m], n_preds[m], levels, out[m])


@njit(inline="always")
def _top_order_into(p_seq, n_pred, top):
    """The top level's order: the rows by prediction group, a stable counting sort."""
    n = p_seq.size
    count = np.zeros(n_pred + 1, np.int64)
    for k in range(n):
        count[p_seq[k] + 1] += 1
    for g in range(n_pred):
        count[g + 1] += count[g]
    for k in range(n):
        g = p_seq[k]
        top[count[g]] = k
        count[g] += 1


@njit(inline="always")
def _split_level(cur, nxt, level):
    """The order one level below ``cur``: each block of ``2**level`` split stably by its middle
    bit (positions with the bit clear first)."""
    n = cur.size
    size = 1 << level
    half = size >> 1
    for s in range(0, n, size):
        e = min(s + size, n)
        lp = s
        rp = s + min(half, e - s)
        for k in range(s, e):
            pos = cur[k]
            if pos & half:
                nxt[rp] = pos
                rp += 1
            else:
                nxt[lp] = pos
                lp += 1


@njit(cache=True)
def _level_orders_into(p_seq, n_pred, levels, out):
    """:func:`level_orders` written into ``out``."""
    _top_order_into(p_seq, n_pred, out[max(levels, 1) - 1])
    for level in range(levels, 1, -1):
        _split_level(out[level - 1], out[level - 2], level)


@njit(cache=True, parallel=True)
def batch_weights_small(multiplicity, base_weight, width):
    """``out[t, i, j]`` = ``multiplicity[t * width + j, i] * base_weight[i]`` as uint8 (zero
    padding of the last batch), and whether every product was an integer in [0, 255]. Chunks
    of data rows in parallel (each writes its own rows of ``out``); no branch on the data, so
    a weight out of range costs nothing but the answer False."""
    rows = multiplicity.shape[0]
    n = multiplicity.shape[1]
    batches = (rows + width - 1) // width
    out = np.zeros((batches, n, width), np.uint8)
    chunks = (n + 4095) // 4096
    bad = np.zeros(chunks, np.bool_)
    for c in prange(chunks):  # row chunks: the block's rows are read in cache-sized pieces
        i0 = c * 4096
        i1 = min(i0 + 4096, n)
        fits = True
        for r in range(rows):
            batch = out[r // width]
            j = r % width
            counts = multiplicity[r]
            for i in range(i0, i1):
                w = counts[i] * base_weight[i]
                in_range = (w >= 0.0) & (w <= 255.0)  # False for NaN
                small = np.uint8(w) if in_range else np.uint8(0)
                fits &= in_range & (np.float64(small) == w)
                batch[i, j] = small
        bad[c] = not fits
    return out, not bad.any()


@njit(cache=True, parallel=True)
def count_lanes(counts, width):
    """``out[t, i, j]`` = ``counts[t * width + j, i]``: uint8 counts (``small_multiplicities``)
    laid out as :func:`batch_weights_small`'s batches with unit case weights (a transposition;
    every count fits). Chunks of data rows in parallel."""
    rows = counts.shape[0]
    n = counts.shape[1]
    batches = (rows + width - 1) // width
    out = np.empty((batches, n, width), np.uint8)
    advise_huge_pages(out)  # (a fresh block each time: its page faults cost as much as this)
    last = out[batches - 1] if batches > 0 else out.reshape(0, 0)
    used = rows - (batches - 1) * width
    chunks = (n + 4095) // 4096
    for c in prange(chunks):  # row chunks: the block's rows are read in cache-sized pieces
        i0 = c * 4096
        i1 = min(i0 + 4096, n)
        for r in range(rows):
            batch = out[r // width]
            j = r % width
            row = counts[r]
            for i in range(i0, i1):
                batch[i, j] = row[i]
        if used < width:  # the last batch's padding lanes
            for i in range(i0, i1):
                for j in range(used, width):
                    last[i, j] = 0
    return out


@njit(cache=True, parallel=True)
def group_lane_sums(weights, rows, groups, n_groups):
    """``out[r, g]`` = the weight of replicate row r over the rows of group g, from a compact
    batch (``weights``: ``(batches, n, _LANES)`` uint8 with unit case weights): the
    replicates' weight per jackknife group, as ``ranklens._compute.kernels.resampling.
    group_weight_sums`` of the same counts gives it (integers, so the same sums in any order).

    One pass over the lanes (32 bytes a data row) into an int64 table of ``(n_groups, 32)``
    per task, chunks of data rows in parallel, the tables then added; exact.
    """
    batches = weights.shape[0]
    n = weights.shape[1]
    width = weights.shape[2]
    chunks = 16
    step = (n + chunks - 1) // chunks
    tables = np.zeros((batches * chunks, n_groups, width), np.int64)
    for task in prange(batches * chunks):
        t = task // chunks
        c = task % chunks
        table = tables[task]
        for i in range(c * step, min(n, (c + 1) * step)):
            row = weights[t, i]
            acc = table[groups[i]]
            for j in range(width):
                acc[j] += row[j]
    out = np.zeros((rows, n_groups), np.float64)
    for r in range(rows):
        t = r // width
        j = r % width
        for g in range(n_groups):
            total = 0
            for c in range(chunks):
                total += tables[t * chunks + c, g, j]
            out[r, g] = total
    return out


@njit(cache=True, parallel=True)
def batch_weights_float(multiplicity, base_weight, width):
    """As :func:`batch_weights_small`, float64 (any weights)."""
    rows = multiplicity.shape[0]
    n = multiplicity.shape[1]
    batches = (rows + width - 1) // width
    out = np.zeros((batches, n, width), np.float64)
    chunks = (n + 4095) // 4096
    for c in prange(chunks):  # row chunks: the block's rows are read in cache-sized pieces
        i0 = c * 4096
        i1 = min(i0 + 4096, n)
        for r in range(rows):
            t = r // width
            j = r % width
            for i in range(i0, i1):
                out[t, i, j] = multiplicity[r, i] * base_weight[i]
    return out


@njit(inline="always")
def _shift_one(perm, level):
    """The shift that brings bit ``level - 1`` of a row's position (the half of its block at
    ``level``) to bit 0: of the position itself in an int32 level order, of its code in a uint8
    one (:func:`level_codes`: bit 1). Bit ``level - 2`` (the quarter) is one below."""
    return 1 if perm.itemsize == 1 else level - 1


@njit(cache=True)
def _split_levels(cur, nxt, perms):
    """Discordant weight per batch column, ``sum_L D_L``, from the weights in the top level's
    order (``cur``, by prediction); leaves them in position order. Returns ``(disc, buffer)``.

    Level by level from the top, each block of ``perm_L`` is walked backwards: a left row adds
    its weights to the block's running sums, a right row adds its weights times those sums (the
    left rows of the block with a larger prediction) to ``disc``, and every row moves to its
    slot in the next level's order (a stable split of the block: sequential reads and writes,
    no gather). Without a branch on the data: the row's side is a 0/1 factor, so the loops over
    the batch vectorise. float64 sums, exact for integer weights while below 2^53.
    """
    n = cur.shape[0]
    width = cur.shape[1]
    levels = perms.shape[0] if n > 1 else 0
    disc = np.zeros(width, np.float64)
    acc = np.zeros(width, np.float64)
    for level in range(levels, 0, -1):
        perm = perms[level - 1]
        size = 1 << level
        half = size >> 1
        shift = _shift_one(perm, level)
        for s in range(0, n, size):
            e = min(s + size, n)
            for j in range(width):
                acc[j] = 0.0
            rp = e - 1
            lp = s + min(half, e - s) - 1
            for k in range(e - 1, s - 1, -1):
                ri = (perm[k] >> shift) & 1
                right = np.float64(ri)
                left = 1.0 - right
                t = lp + (rp - lp) * ri
                rp -= ri
                lp -= 1 - ri
                row = cur[k]
                dst = nxt[t]
                for j in range(width):
                    w = np.float64(row[j])
                    disc[j] += w * right * acc[j]
                    acc[j] += w * left
                for j in range(width):
                    dst[j] = row[j]
        cur, nxt = nxt, cur
    return disc, cur


@intrinsic
def _sweep_chunk(typingctx, cur, nxt, perm, s, e, shift, acc, disc, pos):
    """Rows ``e - 1`` down to ``s`` of one block of the compact (uint8, 32-lane) sweep.

    The loop of :func:`_split_levels` written as LLVM vector code (numba cannot tell that the
    running sums do not alias the weights, so its own loops over the lanes re-load and re-store
    them and test for overlap on every row): ``acc`` (int32 x 32, the block's left weights so
    far) and ``d`` (int32 x 32, this chunk's ``w * acc`` of the right rows) stay in registers;
    on exit ``acc`` is stored back, ``d`` is added to ``disc`` (int64 x 32) and ``pos`` (the
    next free left and right slots of the block in the next level's order) is updated. Each row
    is stored whole (32 bytes) into its slot of ``nxt``. The caller bounds the chunk so that
    the int32 sums cannot overflow (:func:`_split_levels_compact`). Arrays of any other dtype
    compile to nothing (never called with them).
    """
    sig = types.void(cur, nxt, perm, s, e, shift, acc, disc, pos)

    def emit(builder, ptrs, scalars):
        cur_p, nxt_p, perm_p, acc_p, disc_p, pos_p = ptrs
        s_v, e_v, shift_v = scalars
        i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
        v8 = ir.VectorType(i8, _LANES)
        v32 = ir.VectorType(i32, _LANES)
        v64 = ir.VectorType(i64, _LANES)
        accp = builder.bitcast(acc_p, v32.as_pointer())
        discp = builder.bitcast(disc_p, v64.as_pointer())
        rows = builder.bitcast(cur_p, v8.as_pointer())
        slots = builder.bitcast(nxt_p, v8.as_pointer())
        lp_p = builder.gep(pos_p, [ir.Constant(i64, 0)])
        rp_p = builder.gep(pos_p, [ir.Constant(i64, 1)])
        acc0 = builder.load(accp, align=1)
        lp0 = builder.load(lp_p)
        rp0 = builder.load(rp_p)
        d0 = ir.Constant(v32, [0] * _LANES)
        shift32 = builder.trunc(shift_v, i32)
        one = ir.Constant(i64, 1)
        entry = builder.block
        loop = builder.append_basic_block("sweep.loop")
        done = builder.append_basic_block("sweep.done")
        k0 = builder.sub(e_v, one)
        builder.cbranch(builder.icmp_signed(">=", k0, s_v), loop, done)
        builder.position_at_end(loop)
        k = builder.phi(i64)
        lp = builder.phi(i64)
        rp = builder.phi(i64)
        acc = builder.phi(v32)
        d = builder.phi(v32)
        bit = builder.and_(
            builder.lshr(_load_order(builder, perm_p, k), shift32), ir.Constant(i32, 1)
        )
        right = _broadcast(builder, builder.neg(bit), v32)
        left = builder.xor(right, ir.Constant(v32, [-1] * _LANES))
        row = builder.load(builder.gep(rows, [k]), align=1)
        w = builder.zext(row, v32)
        d1 = builder.add(d, builder.mul(builder.and_(w, right), acc))
        acc1 = builder.add(acc, builder.and_(w, left))
        bit64 = builder.zext(bit, i64)
        slot = builder.add(lp, builder.mul(builder.sub(rp, lp), bit64))
        builder.store(row, builder.gep(slots, [slot]), align=1)
        lp1 = builder.sub(lp, builder.sub(one, bit64))
        rp1 = builder.sub(rp, bit64)
        k1 = builder.sub(k, one)
        body = builder.block
        builder.cbranch(builder.icmp_signed(">=", k1, s_v), loop, done)
        carried = ((k, k0, k1), (lp, lp0, lp1), (rp, rp0, rp1), (acc, acc0, acc1), (d, d0, d1))
        for phi, a, b in carried:
            phi.add_incoming(a, entry)
            phi.add_incoming(b, body)
        builder.position_at_end(done)
        out = []
        for a, b in ((acc0, acc1), (d0, d1), (lp0, lp1), (rp0, rp1)):
            phi = builder.phi(a.type)
            phi.add_incoming(a, entry)
            phi.add_incoming(b, body)
            out.append(phi)
        builder.store(out[0], accp, align=1)
        total = builder.add(builder.load(discp, align=1), builder.zext(out[1], v64))
        builder.store(total, discp, align=1)
        builder.store(out[2], lp_p)
        builder.store(out[3], rp_p)

    return sig, _lane_codegen(emit)


@intrinsic
def _sweep_chunk2(typingctx, cur, nxt, perm, s, e, shift, acc, disc, pos):
    """Rows ``e - 1`` down to ``s`` of one block of level ``L = shift + 2``, for levels ``L``
    and ``L - 1`` at once (the compact sweep's pass over two levels, :func:`_sweep_chunk`'s
    vector code otherwise).

    Within a block of ``perm_L``, the rows of each half are in the order of ``perm_{L-1}``'s
    block (by prediction, then position), so one backward walk gives both levels' discordant
    weight: bit ``L - 1`` of the position picks the half (level ``L``: a right-half row adds
    ``w * accH``, a left-half row adds to ``accH``), bit ``L - 2`` the quarter within the half
    (level ``L - 1``: the same with that half's ``accQ``). Each row is stored into its slot of
    ``perm_{L-2}``'s order, a stable four-way split (``pos`` holds the next free slot of each
    quarter, from the end). ``acc`` is ``accH, accQ0, accQ1`` (int32 x 32 each, 96 entries);
    ``d`` sums two products a row in int32, so the caller halves the chunk
    (:func:`_split_levels_compact`). Arrays of any other dtype compile to nothing.
    """
    sig = types.void(cur, nxt, perm, s, e, shift, acc, disc, pos)

    def emit(builder, ptrs, scalars):
        cur_p, nxt_p, perm_p, acc_p, disc_p, pos_p = ptrs
        s_v, e_v, shift_v = scalars
        i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
        v8 = ir.VectorType(i8, _LANES)
        v32 = ir.VectorType(i32, _LANES)
        v64 = ir.VectorType(i64, _LANES)
        accp = builder.bitcast(acc_p, v32.as_pointer())
        acc_ptrs = [builder.gep(accp, [ir.Constant(i64, q)]) for q in range(3)]
        discp = builder.bitcast(disc_p, v64.as_pointer())
        rows = builder.bitcast(cur_p, v8.as_pointer())
        slots = builder.bitcast(nxt_p, v8.as_pointer())
        pos_ptrs = [builder.gep(pos_p, [ir.Constant(i64, q)]) for q in range(4)]
        acc0 = [builder.load(a, align=4) for a in acc_ptrs]
        pos0 = [builder.load(p) for p in pos_ptrs]
        d0 = ir.Constant(v32, [0] * _LANES)
        shift32 = builder.trunc(shift_v, i32)
        one = ir.Constant(i64, 1)
        ones32 = ir.Constant(v32, [-1] * _LANES)

        def mask(bit):  # 0 -> all zeros, 1 -> all ones, in every lane
            return _broadcast(builder, builder.neg(bit), v32)

        entry = builder.block
        loop = builder.append_basic_block("sweep2.loop")
        done = builder.append_basic_block("sweep2.done")
        k0 = builder.sub(e_v, one)
        builder.cbranch(builder.icmp_signed(">=", k0, s_v), loop, done)
        builder.position_at_end(loop)
        k = builder.phi(i64)
        acc_h = builder.phi(v32)
        acc_q0 = builder.phi(v32)
        acc_q1 = builder.phi(v32)
        d = builder.phi(v32)
        pos = [builder.phi(i64) for _ in range(4)]
        word = builder.lshr(_load_order(builder, perm_p, k), shift32)
        lo = builder.and_(word, ir.Constant(i32, 1))
        hi = builder.and_(builder.lshr(word, ir.Constant(i32, 1)), ir.Constant(i32, 1))
        hi_mask, lo_mask = mask(hi), mask(lo)
        row = builder.load(builder.gep(rows, [k]), align=1)
        w = builder.zext(row, v32)
        # level L: the halves of the block
        d1 = builder.add(d, builder.mul(builder.and_(w, hi_mask), acc_h))
        acc_h1 = builder.add(acc_h, builder.and_(w, builder.xor(hi_mask, ones32)))
        # level L - 1: the quarters of the row's half. The half's running sums are picked and
        # updated with masks, not selects: a select on the (random) half became a branch,
        # mispredicted on every other row.
        left_half = builder.xor(hi_mask, ones32)
        acc_q = builder.or_(builder.and_(acc_q0, left_half), builder.and_(acc_q1, hi_mask))
        d2 = builder.add(d1, builder.mul(builder.and_(w, lo_mask), acc_q))
        w_left = builder.and_(w, builder.xor(lo_mask, ones32))
        acc_q0_1 = builder.add(acc_q0, builder.and_(w_left, left_half))
        acc_q1_1 = builder.add(acc_q1, builder.and_(w_left, hi_mask))
        # the slot: the next free one (from the end) of the row's quarter
        quarter = builder.zext(builder.or_(builder.shl(hi, ir.Constant(i32, 1)), lo), i64)
        is_q = [builder.icmp_unsigned("==", quarter, ir.Constant(i64, q)) for q in range(4)]
        slot = builder.select(
            is_q[0],
            pos[0],
            builder.select(is_q[1], pos[1], builder.select(is_q[2], pos[2], pos[3])),
        )
        builder.store(row, builder.gep(slots, [slot]), align=1)
        pos1 = [builder.sub(pos[q], builder.zext(is_q[q], i64)) for q in range(4)]
        k1 = builder.sub(k, one)
        body = builder.block
        builder.cbranch(builder.icmp_signed(">=", k1, s_v), loop, done)
        carried = [
            (k, k0, k1),
            (acc_h, acc0[0], acc_h1),
            (acc_q0, acc0[1], acc_q0_1),
            (acc_q1, acc0[2], acc_q1_1),
            (d, d0, d2),
        ] + [(pos[q], pos0[q], pos1[q]) for q in range(4)]
        for phi, a, b in carried:
            phi.add_incoming(a, entry)
            phi.add_incoming(b, body)
        builder.position_at_end(done)

        def leaving(a, b):
            phi = builder.phi(a.type)
            phi.add_incoming(a, entry)
            phi.add_incoming(b, body)
            return phi

        # every phi first (they lead the block), then the stores
        acc_out = [leaving(a, b) for a, b in zip(acc0, (acc_h1, acc_q0_1, acc_q1_1), strict=True)]
        d_out = leaving(d0, d2)
        pos_out = [leaving(pos0[q], pos1[q]) for q in range(4)]
        for q in range(3):
            builder.store(acc_out[q], acc_ptrs[q], align=4)
        total = builder.add(builder.load(discp, align=1), builder.zext(d_out, v64))
        builder.store(total, discp, align=1)
        for q in range(4):
            builder.store(pos_out[q], pos_ptrs[q])

    return sig, _lane_codegen(emit)


#: Levels at the bottom of the compact sweep that run block by block: a block of ``2^K``
#: positions (its weights in two orders, ``2 * 32 * 2^K`` bytes, and its slices of the K level
#: orders, ``4 K 2^K``: 104 KiB for K = 10) stays in the core's L2 cache while all K levels are
#: swept, instead of every level streaming the whole batch through memory.
_CACHED_LEVELS = 10


@njit(cache=True)
def _compact_pass(cur, nxt, perm, level, s0, e0, chunk, two, acc, acc3, disc, pos, pos4):
    """One pass of :func:`_split_levels_compact` over the blocks of level ``level`` within
    positions ``[s0, e0)`` (a whole number of blocks): levels ``level`` and ``level - 1`` when
    ``two``, else ``level`` alone. Returns the levels swept."""
    size = 1 << level
    shift1 = _shift_one(perm, level)
    shift2 = shift1 - 1
    if two:
        quarter = size >> 2
        chunk2 = chunk // 2
        for s in range(s0, e0, size):
            e = min(s + size, e0)
            acc3[:] = 0
            for q in range(4):
                pos4[q] = min(s + (q + 1) * quarter, e) - 1
            for c in range(e, s, -chunk2):
                _sweep_chunk2(cur, nxt, perm, max(c - chunk2, s), c, shift2, acc3, disc, pos4)
        return 2
    half = size >> 1
    for s in range(s0, e0, size):
        e = min(s + size, e0)
        acc[:] = 0
        pos[0] = s + min(half, e - s) - 1
        pos[1] = e - 1
        for c in range(e, s, -chunk):
            _sweep_chunk(cur, nxt, perm, max(c - chunk, s), c, shift1, acc, disc, pos)
    return 1


@njit(cache=True)
def _split_levels_compact(cur, nxt, perms, chunk):
    """:func:`_split_levels` for compact weights (uint8, ``_LANES`` columns), in integers.

    Two levels a pass (:func:`_sweep_chunk2`: half the passes over the rows, whose reads and
    writes are the sweep's cost), and a single level (:func:`_sweep_chunk`) where the count
    is odd. The levels above :data:`_CACHED_LEVELS` sweep the whole batch a pass; the rest run
    block by block (a block of level K is the same range of positions in every lower level's
    order, so its levels are independent of the other blocks' and its rows stay in cache).
    Every block is swept in chunks whose int32 sums stay exact: with every weight at most
    ``w_max`` and every column total at most ``T``, a product is at most ``w_max T``; the
    caller picks ``chunk <= (2^31 - 1) / (w_max T)``, a single-level chunk sums one product a
    row and a two-level chunk (``chunk // 2`` rows) two, so every sum is exact and ``D``
    equals the float64 sweep's (exact below 2^53) bit for bit, in any order of the blocks.
    With ``chunk < 2`` every pass is a single level.
    """
    n = cur.shape[0]
    levels = perms.shape[0] if n > 1 else 0
    acc = np.zeros(_LANES, np.int32)
    acc3 = np.zeros(3 * _LANES, np.int32)
    disc = np.zeros(_LANES, np.int64)
    pos = np.zeros(2, np.int64)
    pos4 = np.zeros(4, np.int64)
    pairs = chunk >= 2
    cached = min(levels, _CACHED_LEVELS)
    level = levels
    while level > cached:  # whole passes, two levels at a time while both lie above `cached`
        two = pairs and level - 1 > cached
        level -= _compact_pass(
            cur, nxt, perms[level - 1], level, 0, n, chunk, two, acc, acc3, disc, pos, pos4
        )
        cur, nxt = nxt, cur
    passes = 0
    if cached >= 1:
        size = 1 << cached
        for s in range(0, n, size):  # the bottom levels, one block of `size` at a time
            e = min(s + size, n)
            src, dst = cur, nxt
            level = cached
            passes = 0
            while level >= 1:
                two = pairs and level >= 2
                level -= _compact_pass(
                    src, dst, perms[level - 1], level, s, e, chunk, two, acc, acc3, disc, pos, pos4
                )
                src, dst = dst, src
                passes += 1
    if passes % 2 == 1:  # every block took the same passes: the rows end in the other buffer
        cur, nxt = nxt, cur
    return disc.astype(np.float64), cur


def _load_order(builder, ptr, k):
    """IR: entry ``k`` of a level order (int32 positions, or uint8 codes) as an i32."""
    i32 = ir.IntType(32)
    value = builder.load(builder.gep(ptr, [k]), align=ptr.type.pointee.width // 8)
    return value if value.type == i32 else builder.zext(value, i32)


def _vector_types():
    """LLVM types of the compact lanes: uint8, int32 and float64 vectors of ``_LANES``."""
    i8, i32, f64 = ir.IntType(8), ir.IntType(32), ir.DoubleType()
    return ir.VectorType(i8, _LANES), ir.VectorType(i32, _LANES), ir.VectorType(f64, _LANES)


def _emit_rows_sum(builder, rows, k, e):
    """IR: the sum of the uint8 rows ``k .. e - 1`` of ``rows`` (a ``<_LANES x i8>*``) as
    ``<_LANES x i32>`` (zero when ``e <= k``); the caller keeps the sums below 2^31."""
    _, v32, _ = _vector_types()
    one = ir.Constant(ir.IntType(64), 1)
    zero = ir.Constant(v32, [0] * _LANES)
    entry = builder.block
    loop = builder.append_basic_block("rows.loop")
    done = builder.append_basic_block("rows.done")
    builder.cbranch(builder.icmp_signed("<", k, e), loop, done)
    builder.position_at_end(loop)
    r = builder.phi(k.type)
    acc = builder.phi(v32)
    acc1 = builder.add(acc, builder.zext(builder.load(builder.gep(rows, [r]), align=1), v32))
    r1 = builder.add(r, one)
    body = builder.block
    builder.cbranch(builder.icmp_signed("<", r1, e), loop, done)
    r.add_incoming(k, entry)
    r.add_incoming(r1, body)
    acc.add_incoming(zero, entry)
    acc.add_incoming(acc1, body)
    builder.position_at_end(done)
    out = builder.phi(v32)
    out.add_incoming(zero, entry)
    out.add_incoming(acc1, body)
    return out


def _lane_codegen(emit):
    """Codegen of a compact-lane intrinsic: ``emit(builder, ptrs, scalars)`` gets the data
    pointers of the array arguments (in order) and the other arguments; any non-uint8 first
    argument compiles to nothing (never called with one)."""

    def codegen(context, builder, signature, args):
        if signature.args[0].dtype != types.uint8:
            return context.get_dummy_value()
        ptrs, scalars = [], []
        for t, a in zip(signature.args, args, strict=True):
            if isinstance(t, types.Array):
                ptrs.append(context.make_array(t)(context, builder, a).data)
            else:
                scalars.append(a)
        emit(builder, ptrs, scalars)
        return context.get_dummy_value()

    return codegen


def _as_vector(builder, ptr, vtype):
    return builder.bitcast(ptr, vtype.as_pointer())


def _broadcast(builder, value, vtype):
    """IR: ``value`` (a scalar of ``vtype``'s element type) in every lane of ``vtype``."""
    undef = ir.Constant(vtype, ir.Undefined)
    lane = builder.insert_element(undef, value, ir.Constant(ir.IntType(32), 0))
    splat = ir.Constant(ir.VectorType(ir.IntType(32), vtype.count), [0] * vtype.count)
    return builder.shuffle_vector(lane, undef, splat)


def _emit_group_mid(builder, rows_p, k, e, half_p, below_p):
    """IR of a group's midrank, all lanes as one vector: ``gw`` (the sum of the uint8 rows
    ``k .. e - 1`` of ``rows_p``, as float64) and ``mid = below + 0.5 gw - half`` (the float64
    operations of :func:`_pred_groups` and :func:`_joint_groups`, in their order); returns
    ``(gw, mid, below, below's vector pointer)``."""
    v8, _, vf = _vector_types()
    gw = builder.uitofp(_emit_rows_sum(builder, _as_vector(builder, rows_p, v8), k, e), vf)
    halfv = builder.load(_as_vector(builder, half_p, vf), align=8)
    belowp = _as_vector(builder, below_p, vf)
    bel = builder.load(belowp, align=8)
    c05 = ir.Constant(vf, [0.5] * _LANES)
    return gw, builder.fsub(builder.fadd(bel, builder.fmul(c05, gw)), halfv), bel, belowp


def _emit_add_to(builder, ptr, term):
    """IR: ``ptr[:_LANES] += term`` for float64 lanes (``term`` a vector of them)."""
    vp = _as_vector(builder, ptr, term.type)
    builder.store(builder.fadd(builder.load(vp, align=8), term), vp, align=8)


@intrinsic
def _pred_group(typingctx, cur, k, e, g, half, below, sum_p2, var_a, mid2):
    """One prediction group (rows ``k .. e - 1`` of ``cur``, the compact weights in the top
    level's order) of the midrank pass, all lanes as one vector.

    With ``gw`` the group's weights (float64, exact) and ``below`` the weights of the smaller
    predictions: ``mid = below + 0.5 gw - half``, ``mid2[g] = 2 mid`` (an integer: int32, exact
    while the lane totals stay below 2^31), ``below += gw``, ``sum_p2 += gw gw`` and
    ``var_a += gw mid mid``: the float64 operations of :func:`_pred_groups`, in its order, so
    the sums are bit-identical.
    """
    sig = types.void(cur, k, e, g, half, below, sum_p2, var_a, mid2)

    def emit(builder, ptrs, scalars):
        _, v32, vf = _vector_types()
        cur_p, half_p, below_p, p2_p, va_p, mid_p = ptrs
        k_v, e_v, g_v = scalars
        gw, mid, bel, belowp = _emit_group_mid(builder, cur_p, k_v, e_v, half_p, below_p)
        twice = builder.fptosi(builder.fmul(mid, ir.Constant(vf, [2.0] * _LANES)), v32)
        builder.store(twice, builder.gep(_as_vector(builder, mid_p, v32), [g_v]), align=4)
        builder.store(builder.fadd(bel, gw), belowp, align=8)
        _emit_add_to(builder, p2_p, builder.fmul(gw, gw))
        _emit_add_to(builder, va_p, builder.fmul(builder.fmul(gw, mid), mid))

    return sig, _lane_codegen(emit)


@intrinsic
def _y_group(typingctx, ws, k, e, half, below, var_b, sum_y2, b):
    """One y group (positions ``k .. e - 1`` of ``ws``, the compact weights in position order):
    ``b = below + 0.5 gw - half``, ``var_b += gw b b``, ``sum_y2 += gw gw``, ``below += gw``,
    all lanes as one vector, the float64 operations of :func:`_joint_groups` in its order."""
    sig = types.void(ws, k, e, half, below, var_b, sum_y2, b)

    def emit(builder, ptrs, scalars):
        _, _, vf = _vector_types()
        ws_p, half_p, below_p, vb_p, y2_p, b_p = ptrs
        k_v, e_v = scalars
        gw, bv, bel, belowp = _emit_group_mid(builder, ws_p, k_v, e_v, half_p, below_p)
        builder.store(bv, _as_vector(builder, b_p, vf), align=8)
        _emit_add_to(builder, vb_p, builder.fmul(builder.fmul(gw, bv), bv))
        _emit_add_to(builder, y2_p, builder.fmul(gw, gw))
        builder.store(builder.fadd(bel, gw), belowp, align=8)

    return sig, _lane_codegen(emit)


def _emit_prefetch(builder, ptr, lines):
    """IR: prefetch ``lines`` 64-byte cache lines from ``ptr`` (a hint: no effect on values)."""
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
    base = builder.bitcast(ptr, i8p)
    for line in range(lines):
        at = builder.gep(base, [ir.Constant(ir.IntType(64), 64 * line)])
        builder.call(fn, [at, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])


@intrinsic
def _joint_group(typingctx, ws, s, f, g, ahead, mid2, b, sum_j2, cov):
    """One joint (y, prediction) group (positions ``s .. f - 1`` of ``ws``) of prediction group
    ``g``: ``sum_j2 += jw jw``, ``cov += jw mid b`` with ``mid = 0.5 mid2[g]`` (exact), all
    lanes as one vector, the float64 operations of :func:`_joint_groups` in its order.

    ``mid2`` is read in the order of the positions, at random: the rows of group ``ahead`` (a
    later position's) are prefetched, so that the reads overlap instead of waiting in turn.
    """
    sig = types.void(ws, s, f, g, ahead, mid2, b, sum_j2, cov)

    def emit(builder, ptrs, scalars):
        v8, v32, vf = _vector_types()
        ws_p, mid_p, b_p, j2_p, cov_p = ptrs
        s_v, f_v, g_v, ahead_v = scalars
        rows2 = _as_vector(builder, mid_p, v32)
        _emit_prefetch(builder, builder.gep(rows2, [ahead_v]), 3)
        jw = builder.uitofp(_emit_rows_sum(builder, _as_vector(builder, ws_p, v8), s_v, f_v), vf)
        twice = builder.load(builder.gep(rows2, [g_v]), align=4)
        mid = builder.fmul(builder.sitofp(twice, vf), ir.Constant(vf, [0.5] * _LANES))
        bv = builder.load(_as_vector(builder, b_p, vf), align=8)
        _emit_add_to(builder, j2_p, builder.fmul(jw, jw))
        _emit_add_to(builder, cov_p, builder.fmul(builder.fmul(jw, mid), bv))

    return sig, _lane_codegen(emit)


#: Positions ahead whose midranks the joint pass prefetches (:func:`_joint_group`).
_PREFETCH_ROWS = 96

#: Compact batches whose lane totals reach this run the float64 midrank passes (the vector
#: passes hold twice a midrank and a group's weight sum in int32).
_VECTOR_TOTAL_BELOW = 2.0**30


@njit(cache=True)
def _pred_groups(cur, p_top, n_pred, half):
    """The prediction groups' pass (runs of ``p_top``, the top level's order; positions ascend
    within a group): per group g, its weighted midrank ``pred_mid[g] = below + 0.5 gw - half``
    (every lane), and the sums ``sum_p2 = sum gw^2`` and ``var_a = sum gw mid^2``. float64."""
    n = cur.shape[0]
    width = cur.shape[1]
    pred_mid = np.empty((n_pred, width), np.float64)
    below = np.zeros(width, np.float64)
    sum_p2 = np.zeros(width, np.float64)
    var_a = np.zeros(width, np.float64)
    gw = np.empty(width, np.float64)
    filled = 0
    k = 0
    while k < n:
        g = p_top[k]
        for h in range(filled, g):  # (dense ranks leave no empty group; kept general)
            grp = pred_mid[h]
            for j in range(width):
                grp[j] = below[j] - half[j]
        gw[:] = 0.0
        e = k
        while e < n and p_top[e] == g:
            row = cur[e]
            for j in range(width):
                gw[j] += row[j]
            e += 1
        grp = pred_mid[g]
        for j in range(width):
            mid = below[j] + 0.5 * gw[j] - half[j]
            grp[j] = mid
            below[j] += gw[j]
            sum_p2[j] += gw[j] * gw[j]
            var_a[j] += gw[j] * mid * mid
        filled = g + 1
        k = e
    return pred_mid, sum_p2, var_a


@njit(cache=True)
def _pred_groups_vector(cur, p_top, n_pred, half, mid2):
    """:func:`_pred_groups` of compact weights (uint8, ``_LANES`` columns, lane totals below
    :data:`_VECTOR_TOTAL_BELOW`), each group one :func:`_pred_group`: the same sums bit for
    bit, and twice the midranks as int32 written to ``mid2`` (``(>= n_pred, _LANES)``; rows of
    groups no row has are not written, and never read)."""
    n = cur.shape[0]
    below = np.zeros(_LANES, np.float64)
    sum_p2 = np.zeros(_LANES, np.float64)
    var_a = np.zeros(_LANES, np.float64)
    k = 0
    while k < n:
        g = p_top[k]
        e = k + 1
        while e < n and p_top[e] == g:
            e += 1
        _pred_group(cur, k, e, g, half, below, sum_p2, var_a, mid2)
        k = e
    return sum_p2, var_a


@njit(cache=True)
def _joint_groups(ws, y_seq, p_seq, pred_mid, half):
    """The y groups' and joint groups' pass over the positions (``ws``: weights in position
    order): ``sum_y2``, ``sum_j2``, ``var_b = sum gw b^2`` (b the y midranks) and
    ``cov = sum jw mid_p b``. float64."""
    n = ws.shape[0]
    width = ws.shape[1]
    sum_y2 = np.zeros(width, np.float64)
    sum_j2 = np.zeros(width, np.float64)
    var_b = np.zeros(width, np.float64)
    cov = np.zeros(width, np.float64)
    below = np.zeros(width, np.float64)
    gw_run = np.empty(width, np.float64)
    b = np.empty(width, np.float64)
    jw = np.empty(width, np.float64)
    k = 0
    while k < n:
        e = k
        gw_run[:] = 0.0
        while e < n and y_seq[e] == y_seq[k]:
            row = ws[e]
            for j in range(width):
                gw_run[j] += row[j]
            e += 1
        for j in range(width):
            b[j] = below[j] + 0.5 * gw_run[j] - half[j]
            var_b[j] += gw_run[j] * b[j] * b[j]
            sum_y2[j] += gw_run[j] * gw_run[j]
        s = k
        while s < e:
            f = s
            jw[:] = 0.0
            while f < e and p_seq[f] == p_seq[s]:
                row = ws[f]
                for j in range(width):
                    jw[j] += row[j]
                f += 1
            mid_p = pred_mid[p_seq[s]]
            for j in range(width):
                sum_j2[j] += jw[j] * jw[j]
                cov[j] += jw[j] * mid_p[j] * b[j]
            s = f
        for j in range(width):
            below[j] += gw_run[j]
        k = e
    return sum_y2, sum_j2, var_b, cov


@njit(cache=True)
def _joint_groups_vector(ws, y_seq, p_seq, mid2, half):
    """:func:`_joint_groups` of compact weights from :func:`_pred_groups_vector`'s ``mid2``,
    each y group one :func:`_y_group` and each joint group one :func:`_joint_group`: the same
    sums bit for bit."""
    n = ws.shape[0]
    sum_y2 = np.zeros(_LANES, np.float64)
    sum_j2 = np.zeros(_LANES, np.float64)
    var_b = np.zeros(_LANES, np.float64)
    cov = np.zeros(_LANES, np.float64)
    below = np.zeros(_LANES, np.float64)
    b = np.empty(_LANES, np.float64)
    k = 0
    while k < n:
        yk = y_seq[k]
        e = k + 1
        while e < n and y_seq[e] == yk:
            e += 1
        _y_group(ws, k, e, half, below, var_b, sum_y2, b)
        s = k
        while s < e:
            g = p_seq[s]
            f = s + 1
            while f < e and p_seq[f] == g:
                f += 1
            _joint_group(ws, s, f, g, p_seq[min(s + _PREFETCH_ROWS, n - 1)], mid2, b, sum_j2, cov)
            s = f
        k = e
    return sum_y2, sum_j2, var_b, cov


@njit(cache=True)
def _level_batch(src, top_rows, p_top, perms, y_seq, p_seq, n_pred, out, r0, used, m, buffers):
    """One model, one batch: ``out[r0 + j, :, m]`` = the group sums of replicate j < used.

    ``src`` holds the batch's weights in row order, ``top_rows`` the rows in the top level's
    order (by prediction, then position) and ``p_top`` their prediction ranks. The float sums
    are accumulated in the order of :func:`ranklens._compute.kernels.ranking.rank_sums_sorted`
    (zero weights add zeros) but for D and the total, sums of integers for integer weights (so
    exact, in any order, below 2^53). ``buffers``: None, or for a compact batch the task's
    scratch ``(lanes (2, n, _LANES) uint8, midranks (>= n_pred, _LANES) int32)``, reused from
    block to block (fresh arrays cost their page faults each time: about a tenth of a block).
    """
    n = y_seq.size
    compact = src.itemsize == 1 and src.shape[1] <= _LANES
    width = _LANES if compact else src.shape[1]  # compact batches padded with zero weights
    if buffers is None:
        cur = np.empty((n, width), src.dtype)
        advise_huge_pages(cur)
        nxt = np.empty((n, width), src.dtype)
        advise_huge_pages(nxt)
        mid2 = np.empty((n_pred if compact else 0, _LANES), np.int32)
        advise_huge_pages(mid2)
    else:
        cur = buffers[0][0]
        nxt = buffers[0][1]
        mid2 = buffers[1]
    used_width = src.shape[1]
    if used_width < width:  # zero lanes of padding (the copy below writes the others)
        cur[:] = 0
    if compact and used_width == _LANES:  # whole rows as four 8-byte words
        src_words = src.view(np.uint64)
        cur_words = cur.view(np.uint64)
        for k in range(n):
            i = top_rows[k]
            for j in range(4):
                cur_words[k, j] = src_words[i, j]
    else:
        for k in range(n):
            row = src[top_rows[k]]
            dst = cur[k]
            for j in range(used_width):
                dst[j] = row[j]
    w_max = 0
    if compact:  # the largest weight (an integer reduction, vectorised)
        flat = src.ravel()
        for i in range(flat.size):
            w_max = max(w_max, np.int64(flat[i]))
    total = np.zeros(width, np.float64)
    for k in range(n):
        row = cur[k]
        for j in range(width):
            total[j] += row[j]
    half = np.empty(width, np.float64)
    for j in range(width):
        half[j] = 0.5 * total[j]
    # prediction groups: runs of the top order; their midranks are kept for the joint groups
    vector = compact and total.max() < _VECTOR_TOTAL_BELOW
    if vector:
        sum_p2, var_a = _pred_groups_vector(cur, p_top, n_pred, half, mid2)
        pred_mid = np.empty((0, width), np.float64)
    else:
        pred_mid, sum_p2, var_a = _pred_groups(cur, p_top, n_pred, half)
    chunk = 0
    if compact:  # the longest chunk whose int32 sums are exact (see _split_levels_compact)
        bound = np.float64(w_max) * max(total.max(), 1.0)
        chunk = n if bound < 1.0 else int(min(float(n), (2.0**31 - 1.0) // bound))
    if chunk >= 1:
        disc, ws = _split_levels_compact(cur, nxt, perms, chunk)  # ws: position order
    else:
        disc, ws = _split_levels(cur, nxt, perms)
    # y groups and joint groups: runs of positions
    if vector:
        sum_y2, sum_j2, var_b, cov = _joint_groups_vector(ws, y_seq, p_seq, mid2, half)
    else:
        sum_y2, sum_j2, var_b, cov = _joint_groups(ws, y_seq, p_seq, pred_mid, half)
    finish_rank_batch(used, total, sum_y2, sum_p2, sum_j2, disc, cov, var_a, var_b, r0, m, out)


@njit(cache=True)
def _level_task(task, weights, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, out, scratch):
    """Task ``task``: model ``task % n_models``, batch ``task // n_models`` (with scratch
    ``task`` of ``scratch``, if given)."""
    n_models = top_rows.shape[0]
    m = task % n_models
    t = task // n_models
    width = weights.shape[2]
    r0 = t * width
    used = min(width, out.shape[0] - r0)
    args = (weights[t], top_rows[m], p_top[m], perms[m], y_sorted[m], p_sorted[m], n_preds[m])
    if scratch is None:
        _level_batch(*args, out, r0, used, m, None)
    else:
        _level_batch(*args, out, r0, used, m, (scratch[0][task], scratch[1][task]))


@njit(cache=True, parallel=True)
def level_statistics_parallel(
    weights, rows, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, scratch=None
):
    """``out[r, :, m]`` = the weighted group sums of model m under replicate row r (the
    :data:`~ranklens._compute.kernels.compare.RANK_SUMS` sums of
    :func:`ranklens._compute.kernels.ranking.rank_sums_sorted`).

    ``weights`` is ``(batches, n, width)`` in row order (:func:`batch_weights_small` or
    :func:`batch_weights_float`) holding ``rows`` replicate rows; for model m, with the
    positions the rows by increasing y, ties by increasing prediction, ``y_sorted[m]`` /
    ``p_sorted[m]`` are the dense ranks by position, ``perms[m]`` the level orders of
    :func:`level_orders`, ``top_rows[m]`` the rows in the top level's order and ``p_top[m]``
    their prediction ranks (:func:`level_plan`). The (model, batch) tasks run in parallel.
    ``scratch`` (compact weights only): None, or one pair of buffers per task,
    ``(uint8 (tasks, 2, n, 32), int32 (tasks, max n_preds, 32))`` (:func:`level_scratch`).
    """
    n_models = top_rows.shape[0]
    out = np.empty((rows, RANK_SUMS, n_models), np.float64)
    for task in prange(weights.shape[0] * n_models):
        _level_task(
            task, weights, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, out, scratch
        )
    return out


@njit(cache=True)
def level_statistics_serial(
    weights, rows, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, scratch=None
):
    """As :func:`level_statistics_parallel`, one task after the other."""
    n_models = top_rows.shape[0]
    out = np.empty((rows, RANK_SUMS, n_models), np.float64)
    for task in range(weights.shape[0] * n_models):
        _level_task(
            task, weights, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, out, scratch
        )
    return out


def level_scratch(tasks: int, n: int, n_pred: int) -> tuple[np.ndarray, np.ndarray]:
    """Buffers for ``tasks`` compact tasks of :func:`level_statistics_parallel` on n rows with
    at most ``n_pred`` prediction groups: ``64 n + 128 n_pred`` bytes a task."""
    return (
        np.empty((tasks, 2, n, _LANES), np.uint8),
        np.empty((tasks, max(n_pred, 1), _LANES), np.int32),
    )


@intrinsic
def _lane_column(typingctx, batch, base_weight, losses, n, n_cols, column, out):
    """``out[j] += sum_i w_ij losses[i, column]`` with ``w_ij = batch[i, j] * base_weight[i]``
    for the ``_LANES`` lanes of a compact batch (``column < 0``: ``out[j] += sum_i w_ij``), the
    rows ``i`` in order and the lanes as one vector, the running sums starting from ``out``
    (zeros for a whole sum; a sum carried over from the rows before for a sum in chunks of
    rows, the same additions in the same order: the same sum bit for bit).

    The operations of :func:`ranklens._compute.kernels.compare.weighted_loss_sums_serial` in its
    order (``w = m * base``, then ``w * loss`` added to the running sum), so every lane's sum equals
    that kernel's bit for bit: a row a replicate leaves out (``m = 0``) adds ``+0.0`` instead
    of being skipped, which changes no sum (a sum that starts at ``+0.0`` is never ``-0.0``)
    and keeps an infinite loss of a left-out row out of it (``0 * inf`` is never formed into
    the sum). The running sums stay in registers: one pass over the batch per column.
    """
    sig = types.void(batch, base_weight, losses, n, n_cols, column, out)

    def emit(builder, ptrs, scalars):
        v8, _, vf = _vector_types()
        f64, i64 = ir.DoubleType(), ir.IntType(64)
        batch_p, base_p, loss_p, out_p = ptrs
        n_v, n_cols, column_v = scalars
        rows = _as_vector(builder, batch_p, v8)
        is_total = builder.icmp_signed("<", column_v, ir.Constant(i64, 0))
        col = builder.select(is_total, ir.Constant(i64, 0), column_v)
        zero = ir.Constant(vf, [0.0] * _LANES)
        start = builder.load(_as_vector(builder, out_p, vf), align=8)

        def broadcast(value):
            return _broadcast(builder, value, vf)

        entry = builder.block
        loop = builder.append_basic_block("loss.loop")
        done = builder.append_basic_block("loss.done")
        builder.cbranch(builder.icmp_signed(">", n_v, ir.Constant(i64, 0)), loop, done)
        builder.position_at_end(loop)
        i = builder.phi(i64)
        acc = builder.phi(vf)
        m = builder.uitofp(builder.load(builder.gep(rows, [i]), align=1), vf)
        base = builder.load(builder.gep(base_p, [i]))
        w = builder.fmul(m, broadcast(base))
        # the totals' pass reads its own row's base weight (never a loss it has no column for)
        at = builder.select(
            is_total,
            builder.gep(base_p, [i]),
            builder.gep(loss_p, [builder.add(builder.mul(i, n_cols), col)]),
        )
        loss = builder.select(is_total, ir.Constant(f64, 1.0), builder.load(at))
        term = builder.fmul(w, broadcast(loss))
        kept = builder.fcmp_unordered("!=", m, zero)
        acc1 = builder.fadd(acc, builder.select(kept, term, zero))
        i1 = builder.add(i, ir.Constant(i64, 1))
        body = builder.block
        builder.cbranch(builder.icmp_signed("<", i1, n_v), loop, done)
        i.add_incoming(ir.Constant(i64, 0), entry)
        i.add_incoming(i1, body)
        acc.add_incoming(start, entry)
        acc.add_incoming(acc1, body)
        builder.position_at_end(done)
        total = builder.phi(vf)
        total.add_incoming(start, entry)
        total.add_incoming(acc1, body)
        builder.store(total, _as_vector(builder, out_p, vf), align=8)

    return sig, _lane_codegen(emit)


@njit(cache=True, parallel=True)
def lane_loss_sums_parallel(weights, rows, base_weight, losses):
    """:func:`ranklens._compute.kernels.compare.weighted_loss_sums_parallel` from a compact batch.

    ``weights`` is ``(batches, n, _LANES)`` uint8 (:func:`batch_weights_small` with unit base
    weights: the multiplicities) holding ``rows`` replicate rows; ``base_weight`` (n,) and
    ``losses`` (n, n_losses) C-contiguous float64. Returns ``(sums, totals)`` with ``sums[r, l]
    = sum_i m_ri base_weight[i] losses[i, l]`` and ``totals[r] = sum_i m_ri base_weight[i]``,
    equal to that kernel's bit for bit. One task per (batch, column), the columns' totals one
    more: each reads the batch once (32 bytes a row) instead of a float64 row per replicate.
    """
    if weights.shape[2] != _LANES:
        raise ValueError("lane_loss_sums_parallel needs batches of 32 lanes")
    batches = weights.shape[0]
    n_losses = losses.shape[1]
    columns = n_losses + 1
    lanes = np.zeros((batches * columns, _LANES), np.float64)
    for task in prange(batches * columns):
        batch = weights[task // columns]
        column = task % columns - 1
        _lane_column(batch, base_weight, losses, batch.shape[0], n_losses, column, lanes[task])
    return lane_sums_of(lanes, rows, n_losses)


@njit(cache=True, parallel=True)
def lane_loss_sums_into(weights, base_weight, losses, start, lanes):
    """Adds data rows ``start .. start + m - 1`` (``m = losses.shape[0]``; ``base_weight`` and
    ``losses`` hold those rows alone) to the running sums ``lanes`` (``(batches * (n_losses +
    1), _LANES)`` float64, zeros before the first rows), in the order of
    :func:`lane_loss_sums_parallel`: summed over the chunks of rows in order, the sums equal
    its sums bit for bit (:func:`lane_sums_of` reads them off). The per-row losses of a large
    data set are then made a chunk of rows at a time, never all at once.
    """
    if weights.shape[2] != _LANES:
        raise ValueError("lane_loss_sums_into needs batches of 32 lanes")
    m = losses.shape[0]
    n_losses = losses.shape[1]
    columns = n_losses + 1
    for task in prange(weights.shape[0] * columns):
        batch = weights[task // columns][start : start + m]
        column = task % columns - 1
        _lane_column(batch, base_weight, losses, m, n_losses, column, lanes[task])


@njit(cache=True)
def lane_sums_of(lanes, rows, n_losses):
    """``(sums, totals)`` of replicate rows ``0 .. rows - 1`` from the running sums of
    :func:`lane_loss_sums_into` (one row of lanes per batch and column, totals first)."""
    columns = n_losses + 1
    sums = np.empty((rows, n_losses), np.float64)
    totals = np.empty(rows, np.float64)
    for r in range(rows):
        t = r // _LANES
        j = r % _LANES
        totals[r] = lanes[t * columns, j]
        for k in range(n_losses):
            sums[r, k] = lanes[t * columns + 1 + k, j]
    return sums, totals


@njit(cache=True)
def _level_codes_into(p_seq, n_pred, levels, codes, top):
    """:func:`level_codes` of :func:`level_orders` built level by level (two int32 orders at a
    time, not all of them), and the top level's order in ``top``."""
    n = p_seq.size
    _top_order_into(p_seq, n_pred, top)
    cur = top.copy()
    nxt = np.empty(n, np.int32)
    for level in range(max(levels, 1), 0, -1):
        code = codes[level - 1]
        for k in range(n):
            pos = cur[k]
            code[k] = ((pos >> (level - 2)) & 3) if level >= 2 else ((pos << 1) & 2)
        if level == 1:
            break
        _split_level(cur, nxt, level)
        cur, nxt = nxt, cur


@njit(cache=True, parallel=True)
def _every_level_code(p_sorted, n_preds, levels, codes, tops):
    """``codes[m]``, ``tops[m]`` = :func:`_level_codes_into` of model m, models in parallel."""
    for m in prange(p_sorted.shape[0]):
        _level_codes_into(p_sorted[m], n_preds[m], levels, codes[m], tops[m])


def level_codes(perms: np.ndarray) -> np.ndarray:
    """The level orders as the sweep reads them, a byte per row and level: ``codes[L - 1, k]``
    holds bits ``L - 1`` (as bit 1) and ``L - 2`` (as bit 0; 0 at level 1) of the position
    ``perms[L - 1, k]`` (which half, and which quarter, of its block at level L the row at
    slot k is in). The sweeps read nothing else of a level order: the same numbers from a
    quarter of the memory (25 instead of 100 bytes a row and model at n = 2e7)."""
    levels = perms.shape[0]
    shifts = np.maximum(np.arange(levels) - 1, 0)[:, None]  # level L = index + 1
    codes = (perms >> shifts) & 3
    codes[0] = (perms[0] << 1) & 2
    return codes.astype(np.uint8)


def level_plan(
    orders: np.ndarray, p_sorted: np.ndarray, n_preds: np.ndarray, *, coded: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per model, what every replicate of :func:`level_statistics_parallel` shares.

    ``orders[m]``: the rows by increasing y, ties by increasing prediction of model m (the
    positions); ``p_sorted[m]`` their dense prediction ranks (``< n_preds[m]``). Returns
    ``(top_rows, p_top, perms)``: the rows in the top level's order (by prediction, then
    position), their prediction ranks (int32) and the level orders of :func:`level_orders`,
    shape ``(n_models, max(1, ceil(log2 n)), n)`` int32 (80 MB per model at n = 1e6), or with
    ``coded`` their :func:`level_codes` (uint8, a quarter of that, built without the int32
    orders of every level): :func:`level_statistics_parallel` reads either, to the same numbers.
    """
    n = orders.shape[1]
    levels = n_levels(n)
    n_preds = np.asarray(n_preds, dtype=np.int64)
    perms: np.ndarray  # uint8 codes or int32 orders
    if coded:
        perms = np.empty((orders.shape[0], max(levels, 1), n), np.uint8)
        tops = np.empty((orders.shape[0], n), np.int32)
        _every_level_code(p_sorted, n_preds, levels, perms, tops)
    else:
        perms = np.empty((orders.shape[0], max(levels, 1), n), np.int32)  # written in place
        _every_level_order(p_sorted, n_preds, levels, perms)
        tops = perms[:, -1]
    top_rows = np.stack([orders[m][tops[m]] for m in range(orders.shape[0])]).astype(np.int32)
    p_top = np.stack([p_sorted[m][tops[m]] for m in range(orders.shape[0])]).astype(np.int32)
    return top_rows, p_top, perms
