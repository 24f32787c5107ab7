"""Rank correlations of many replicates from precomputed divide-and-conquer level orders (numba).

The bootstrap evaluates the same ``(y_true, y_pred)`` pairs under thousands of weight vectors, and
the sort order never depends on the weights. This module is the CPU form of the level
decomposition of :mod:`ranklens._xp.rank` (which explains it in full): the rows sorted by
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
the data. :func:`level_statistics` sweeps :data:`LEVEL_BATCH` replicates together, weights laid
out ``(n, LEVEL_BATCH)`` row-major, so that one gather fetches the replicates' weights of a row
from one cache line and every inner loop runs over the batch (and vectorises).

Exact arithmetic: integer weights (bootstrap multiplicities times integer case weights) are held
as int32 and ``D`` is accumulated in int64, exactly. The other sums (group weights, their
squares, Spearman's midrank moments) are float64 and accumulated in exactly the order of
:func:`ranklens._kernels.ranking.rank_correlations_sorted`, so for integer weights whose total
squared stays below ``2^53`` the results are bit-identical to the one-replicate sweep's.
Fractional weights run the same code in float64.

Memory: the level orders are ``ceil(log2 n)`` int32 arrays of length n per model (80 MB at
n = 1e6 for 20 levels); a batch task holds its weights in position order and the predictions'
midranks, ``(n, LEVEL_BATCH)`` each.

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
from numba.extending import intrinsic

from ranklens._kernels.compare import finish_rank_batch

__all__ = [
    "LEVEL_BATCH",
    "SMALL_WEIGHT",
    "batch_weights_float",
    "batch_weights_small",
    "level_orders",
    "level_plan",
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


@njit(cache=True)
def level_orders(p_seq, n_pred, levels):
    """``out[L - 1]`` lists the positions by (position >> L, prediction, position), L = 1..levels.

    ``p_seq`` are the prediction ranks (``< n_pred``) in position order. The top level's order
    (by prediction) is a stable counting sort; each lower one is a stable split of every block
    of the level above by the block's middle bit. int32 (callers keep n below 2^31).
    """
    n = p_seq.size
    out = np.empty((max(levels, 1), n), np.int32)
    count = np.zeros(n_pred + 1, np.int64)
    for k in range(n):
        count[p_seq[k] + 1] += 1
    for g in range(n_pred):
        count[g + 1] += count[g]
    top = out[max(levels, 1) - 1]
    for k in range(n):
        g = p_seq[k]
        top[count[g]] = k
        count[g] += 1
    for level in range(levels, 1, -1):
        cur = out[level - 1]
        nxt = out[level - 2]
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
    return out


@njit(cache=True)
def batch_weights_small(multiplicity, base_weight, width):
    """``out[t, i, j]`` = ``multiplicity[t * width + j, i] * base_weight[i]`` as uint8 (zero
    padding of the last batch), and whether every product was an integer in [0, 255]."""
    rows = multiplicity.shape[0]
    n = multiplicity.shape[1]
    batches = (rows + width - 1) // width
    out = np.zeros((batches, n, width), np.uint8)
    chunks = (n + 4095) // 4096
    bad = np.zeros(chunks, np.bool_)
    for c in range(chunks):  # row chunks: the block's rows are read in cache-sized pieces
        i0 = c * 4096
        i1 = min(i0 + 4096, n)
        for r in range(rows):
            t = r // width
            j = r % width
            for i in range(i0, i1):
                w = multiplicity[r, i] * base_weight[i]
                if not (w >= 0.0 and w <= 255.0 and w == np.floor(w)):
                    bad[c] = True
                    w = 0.0
                out[t, i, j] = np.uint8(w)
    return out, not bad.any()


@njit(cache=True)
def batch_weights_float(multiplicity, base_weight, width):
    """As :func:`batch_weights_small`, float64 (any weights)."""
    rows = multiplicity.shape[0]
    n = multiplicity.shape[1]
    batches = (rows + width - 1) // width
    out = np.zeros((batches, n, width), np.float64)
    chunks = (n + 4095) // 4096
    for c in range(chunks):  # row chunks: the block's rows are read in cache-sized pieces
        i0 = c * 4096
        i1 = min(i0 + 4096, n)
        for r in range(rows):
            t = r // width
            j = r % width
            for i in range(i0, i1):
                out[t, i, j] = multiplicity[r, i] * base_weight[i]
    return out


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
        shift = level - 1
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
    compact = cur.dtype == types.uint8 and nxt.dtype == types.uint8

    def codegen(context, builder, signature, args):
        if not compact:
            return context.get_dummy_value()
        ptrs = [
            context.make_array(t)(context, builder, a).data
            for t, a in zip(signature.args, args, strict=True)
            if isinstance(t, types.Array)
        ]
        cur_p, nxt_p, perm_p, acc_p, disc_p, pos_p = ptrs
        s_v, e_v, shift_v = args[3], args[4], args[5]
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
            builder.lshr(builder.load(builder.gep(perm_p, [k]), align=4), shift32),
            ir.Constant(i32, 1),
        )
        undef = ir.Constant(v32, ir.Undefined)
        right = builder.shuffle_vector(
            builder.insert_element(undef, builder.neg(bit), ir.Constant(i32, 0)),
            undef,
            ir.Constant(v32, [0] * _LANES),
        )
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
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def _split_levels_compact(cur, nxt, perms, chunk):
    """:func:`_split_levels` for compact weights (uint8, ``_LANES`` columns), in integers.

    Every block is swept in chunks of at most ``chunk`` rows by :func:`_sweep_chunk`: the left
    weights so far in int32, a chunk's products ``w * acc`` summed in int32 and added to int64
    totals. With every weight at most ``w_max`` and every column total at most ``T``, a product
    is at most ``w_max T`` and a chunk's sum at most ``chunk w_max T``; the caller picks
    ``chunk <= (2^31 - 1) / (w_max T)``, so every sum is exact and ``D`` equals the float64
    sweep's (exact below 2^53) bit for bit.
    """
    n = cur.shape[0]
    levels = perms.shape[0] if n > 1 else 0
    acc = np.zeros(_LANES, np.int32)
    disc = np.zeros(_LANES, np.int64)
    pos = np.zeros(2, np.int64)
    for level in range(levels, 0, -1):
        perm = perms[level - 1]
        size = 1 << level
        half = size >> 1
        for s in range(0, n, size):
            e = min(s + size, n)
            acc[:] = 0
            pos[0] = s + min(half, e - s) - 1
            pos[1] = e - 1
            for c in range(e, s, -chunk):
                _sweep_chunk(cur, nxt, perm, max(c - chunk, s), c, level - 1, acc, disc, pos)
        cur, nxt = nxt, cur
    return disc.astype(np.float64), cur


@njit(cache=True)
def _level_batch(src, top_rows, p_top, perms, y_seq, p_seq, n_pred, out, r0, used, m):
    """One model, one batch: ``out[r0 + j, :, m]`` = (tau_b, rho, harrell_c), j < used.

    ``src`` holds the batch's weights in row order, ``top_rows`` the rows in the top level's
    order (by prediction, then position) and ``p_top`` their prediction ranks. The float sums
    are accumulated in the order of :func:`ranklens._kernels.ranking.rank_correlations_sorted`
    (zero weights add zeros) but for D and the total, sums of integers for integer weights (so
    exact, in any order, below 2^53).
    """
    n = y_seq.size
    compact = src.itemsize == 1 and src.shape[1] <= _LANES
    width = _LANES if compact else src.shape[1]  # compact batches padded with zero weights
    cur = np.zeros((n, width), src.dtype)
    used_width = src.shape[1]
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
    # prediction groups: runs of the top order (positions ascend within a group); the group
    # midranks are written once, for the joint groups below
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
    nxt = np.empty((n, width), src.dtype)
    chunk = 0
    if compact:  # the longest chunk whose int32 sums are exact (see _split_levels_compact)
        bound = np.float64(w_max) * max(total.max(), 1.0)
        chunk = n if bound < 1.0 else int(min(float(n), (2.0**31 - 1.0) // bound))
    if chunk >= 1:
        disc, ws = _split_levels_compact(cur, nxt, perms, chunk)  # ws: position order
    else:
        disc, ws = _split_levels(cur, nxt, perms)
    # y groups and joint groups: runs of positions
    sum_y2 = np.zeros(width, np.float64)
    sum_j2 = np.zeros(width, np.float64)
    var_b = np.zeros(width, np.float64)
    cov = np.zeros(width, np.float64)
    below[:] = 0.0
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
    finish_rank_batch(used, total, sum_y2, sum_p2, sum_j2, disc, cov, var_a, var_b, r0, m, out)


@njit(cache=True)
def _level_task(task, weights, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, out):
    """Task ``task``: model ``task % n_models``, batch ``task // n_models``."""
    n_models = top_rows.shape[0]
    m = task % n_models
    t = task // n_models
    width = weights.shape[2]
    r0 = t * width
    used = min(width, out.shape[0] - r0)
    _level_batch(
        weights[t],
        top_rows[m],
        p_top[m],
        perms[m],
        y_sorted[m],
        p_sorted[m],
        n_preds[m],
        out,
        r0,
        used,
        m,
    )


@njit(cache=True, parallel=True)
def level_statistics_parallel(weights, rows, top_rows, p_top, perms, y_sorted, p_sorted, n_preds):
    """``out[r, :, m]`` = weighted (tau_b, rho, harrell_c) of model m under replicate row r.

    ``weights`` is ``(batches, n, width)`` in row order (:func:`batch_weights_small` or
    :func:`batch_weights_float`) holding ``rows`` replicate rows; for model m, with the
    positions the rows by increasing y, ties by increasing prediction, ``y_sorted[m]`` /
    ``p_sorted[m]`` are the dense ranks by position, ``perms[m]`` the level orders of
    :func:`level_orders`, ``top_rows[m]`` the rows in the top level's order and ``p_top[m]``
    their prediction ranks (:func:`level_plan`). The (model, batch) tasks run in parallel.
    """
    n_models = top_rows.shape[0]
    out = np.empty((rows, 3, n_models), np.float64)
    for task in prange(weights.shape[0] * n_models):
        _level_task(task, weights, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, out)
    return out


@njit(cache=True)
def level_statistics_serial(weights, rows, top_rows, p_top, perms, y_sorted, p_sorted, n_preds):
    """As :func:`level_statistics_parallel`, one task after the other."""
    n_models = top_rows.shape[0]
    out = np.empty((rows, 3, n_models), np.float64)
    for task in range(weights.shape[0] * n_models):
        _level_task(task, weights, top_rows, p_top, perms, y_sorted, p_sorted, n_preds, out)
    return out


def level_plan(
    orders: np.ndarray, p_sorted: np.ndarray, n_preds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per model, what every replicate of :func:`level_statistics_parallel` shares.

    ``orders[m]``: the rows by increasing y, ties by increasing prediction of model m (the
    positions); ``p_sorted[m]`` their dense prediction ranks (``< n_preds[m]``). Returns
    ``(top_rows, p_top, perms)``: the rows in the top level's order (by prediction, then
    position), their prediction ranks (int32) and the level orders of :func:`level_orders`,
    shape ``(n_models, max(1, ceil(log2 n)), n)`` int32 (80 MB per model at n = 1e6).
    """
    n = orders.shape[1]
    levels = n_levels(n)
    perms = np.stack(
        [level_orders(p_sorted[m], int(n_preds[m]), levels) for m in range(orders.shape[0])]
    )
    top_rows = np.stack([orders[m][perms[m, -1]] for m in range(orders.shape[0])]).astype(np.int32)
    p_top = np.stack([p_sorted[m][perms[m, -1]] for m in range(orders.shape[0])]).astype(np.int32)
    return top_rows, p_top, perms
