"""Numba kernels for the ranking measures (Rosset, Perlich & Zadrozny 2005, 2007).

Everything is O(n log n) or better and reads memory sequentially wherever it can (at n = 1e7 a
random memory access costs more than a comparison): one stable LSD radix argsort per variable
(:func:`radix_argsort`), then "the sequence" -- the rows in decreasing prediction, ties by
decreasing ``y_true``, then by row (:func:`build_sequence`: ``order``, the dense y rank ``key``
and prediction rank ``pkey`` of each position) -- and one sweep over it (:func:`sweep`) for every
pair count and rank sum. The kernels only: stage 1 is driven by :mod:`ranklens._compute.xp.sequence`
(:func:`ranklens._compute.xp.sequence.sequence` and
:func:`ranklens._compute.xp.sequence.prepare_ranks`), which sorts with NumPy instead below
``ranklens._foundation.route.POLICY.sort_numpy_below`` rows (the same arrays, a few milliseconds at
most, and nothing to compile on a first call) and picks the serial or the parallel radix argsort.

Two-stage interface (used by the bootstrap and by leave-one-out code)
--------------------------------------------------------------------
Stage 1 depends on the data only, never on weights, so it can be done once per data set::

    order, y_rank, pred_rank = prepare_ranks(y_true, y_pred)

``y_rank`` and ``pred_rank`` are int64 dense ranks per row in the original row order (0 = smallest
value, equal values share a rank); ``order`` (int64) lists the rows by decreasing prediction, ties
in the prediction by decreasing ``y_true``, remaining ties by increasing row index. These are plain
arrays; ``prepare_ranks`` (:func:`ranklens._compute.xp.sequence.prepare_ranks`) is a Python
function.

Stage 2 are ``@njit`` functions on those arrays and a float64 weight vector ``w`` (length n, in row
order, non-negative); they can be called from inside other numba functions::

    weighted_rank_sums(order, y_rank, pred_rank, w) -> (W, Sy, Sp, Sj, D, cov, var_a, var_b)
    gather_positive(order, y_sorted, p_sorted, multiplicity, base_weight) -> (y_seq, p_seq, w_seq)
    rank_sums_sorted(y_seq, p_seq, w_seq, n_pred) -> the same sums  # pre-sorted

The group sums are the total weight, the sums of squared group weights over y, prediction and
joint tie groups, the discordant weight and the midrank moments; every statistic of the rank
sweep (Kendall's tau-b, Spearman's rho, Harrell's C, ...) is a function of them, computed outside
the kernels (``ranklens._compute.xp.rank.replicate_classes`` and
``ranklens._foundation.forms.RankStatistic``).

Pairs are weighted by ``w_i * w_j``; weighted midranks are ``W(<) + W(=)/2``. Integer weights give
the values of the data with each row repeated ``w_i`` times (a bootstrap replicate is a vector of
multiplicities) and a zero weight is the same as dropping the row. Undefined values (all positive
weight in one ``y_true`` value, ...) come back as NaN; the public wrappers warn.

Exact arithmetic
----------------
Unweighted pair counts are int64 (they are below n^2). Sums that reach n^3 (Spearman's cross
product, the weighted discordance R, tie corrections) are accumulated in two int64 limbs of 31
bits (:func:`_limb_add`) and combined into a Python int by the caller, exact for n < 2**30.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ranklens._compute.kernels.curves import (
    descending_keys_kernel,
    radix_sort_kernel,
    radix_sort_parallel,
)
from ranklens._compute.kernels.fenwick import fenwick_add, fenwick_prefix

__all__ = [
    "build_sequence",
    "clipped_correlation",
    "concordance_envelope",
    "concordance_envelope_kernel",
    "cutoff_auc_sums",
    "dense_ranks_sorted",
    "gather_positive",
    "limbs_to_int",
    "order_by_pred_kernel",
    "order_by_y_then_pred_kernel",
    "radix_argsort",
    "radix_argsort_parallel",
    "rank_sums_sorted",
    "record_prototype",
    "sum_t3_minus_t",
    "sweep",
    "sweep_kernel",
    "weighted_rank_sums",
]

_MASK31 = (1 << 31) - 1


# ---------------------------------------------------------------------------------------------
# Stage 1: ranks and orders (weight independent)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def radix_argsort(x):
    """Stable ascending argsort of float64 ``x`` (no NaN) by an LSD radix sort.

    Returns ``(keys, order)``: ``keys`` are int64 whose bit patterns sort as unsigned integers in
    the order of the values (equal values, -0.0 and 0.0 included, have equal keys) and ``order``
    the rows. The keys are the complement of
    :func:`ranklens._compute.kernels.curves.descending_keys_kernel` and the sort is the curves'
    :func:`ranklens._compute.kernels.curves.radix_sort_kernel` (8-bit digits, passes whose digit is
    the same for every key skipped), one radix sort for the package: against the
    11-bit twin this module had, 0.6-0.8x the time on continuous data at n >= 1e6 and within
    about 10% either way on small or heavily tied data. O(n); about 3x faster than
    ``np.argsort`` at n = 1e7, whose comparisons jump through memory.
    """
    keys = descending_keys_kernel(x)
    for i in range(keys.size):
        keys[i] = ~keys[i]
    sorted_keys, order = radix_sort_kernel(keys, np.arange(keys.size), True)
    return sorted_keys.view(np.int64), order


@njit(cache=True)
def radix_argsort_parallel(x):
    """:func:`radix_argsort` with the passes of the radix sort in parallel chunks of rows
    (``ranklens._compute.kernels.curves.radix_sort_parallel``): the same keys and order."""
    keys = descending_keys_kernel(x)
    for i in range(keys.size):
        keys[i] = ~keys[i]
    sorted_keys, order = radix_sort_parallel(keys, np.arange(keys.size), True)
    return sorted_keys.view(np.int64), order


@njit(cache=True)
def dense_ranks_sorted(keys, order):
    """Dense ranks per row (int64, 0 = smallest) and the number of distinct values, from the
    keys and order of :func:`radix_argsort` (or :func:`radix_argsort_parallel`)."""
    n = keys.size
    rank = np.empty(n, np.int64)
    g = 0
    for k in range(n):
        if k > 0 and keys[k] != keys[k - 1]:
            g += 1
        rank[order[k]] = g
    return rank, g + 1


@njit(cache=True)
def _sort_prediction_ties(order, key, t0, t1, n_y):
    """Sort positions t0..t1-1 (one prediction tie group) by decreasing key, then by row."""
    m = t1 - t0
    n = order.size
    if m <= 16:
        for i in range(t0 + 1, t1):
            o = order[i]
            k = key[i]
            j = i - 1
            while j >= t0 and (key[j] < k or (key[j] == k and order[j] > o)):
                order[j + 1] = order[j]
                key[j + 1] = key[j]
                j -= 1
            order[j + 1] = o
            key[j + 1] = k
        return
    composite = np.empty(m, np.int64)
    for i in range(m):
        composite[i] = (n_y - 1 - key[t0 + i]) * n + order[t0 + i]
    # The package's radix sort (compiled already for the sequence) rather than np.argsort, whose
    # quicksort took 1.5 s more to compile on the first call; the keys are distinct, so
    # stability does not matter.
    idx = radix_sort_kernel(composite.view(np.uint64), np.arange(m), True)[1]
    rows = order[t0:t1].copy()
    keys = key[t0:t1].copy()
    for i in range(m):
        order[t0 + i] = rows[idx[i]]
        key[t0 + i] = keys[idx[i]]


@njit(cache=True)
def build_sequence(y_rank, n_y, p_keys, p_order, need_pred_rank):
    """The sequence in decreasing prediction (ties: decreasing y, then row).

    From the dense y ranks and the radix sort of the prediction, whose two arrays are reused in
    place (they become ``pkey`` and ``order``). Returns ``order`` (rows), ``key`` (dense y rank per
    position), ``pkey`` (dense prediction rank per position, non-increasing), ``pred_rank`` per row
    (empty unless asked for) and the number of distinct predictions.
    """
    n = p_keys.size
    n_p = 1
    for k in range(1, n):
        if p_keys[k] != p_keys[k - 1]:
            n_p += 1
    # reverse in place, then turn the keys into dense ranks (highest prediction = n_p - 1)
    for t in range(n // 2):
        tmp = p_order[t]
        p_order[t] = p_order[n - 1 - t]
        p_order[n - 1 - t] = tmp
        tmp = p_keys[t]
        p_keys[t] = p_keys[n - 1 - t]
        p_keys[n - 1 - t] = tmp
    order = p_order
    pkey = p_keys
    g = n_p - 1
    prev = pkey[0]
    key = np.empty(n, np.int64)
    for t in range(n):
        v = pkey[t]
        if v != prev:
            g -= 1
            prev = v
        pkey[t] = g
        key[t] = y_rank[order[t]]
    t = np.int64(0)  # not the literal 0: numba would compile the callee for Literal[int](0) too
    while t < n:
        e = t + 1
        while e < n and pkey[e] == pkey[t]:
            e += 1
        if e - t > 1:
            _sort_prediction_ties(order, key, t, e, n_y)
        t = e
    pred_rank = np.empty(n if need_pred_rank else 0, np.int64)
    if need_pred_rank:
        for t in range(n):
            pred_rank[order[t]] = pkey[t]
    return order, key, pkey, pred_rank, n_p


@njit(cache=True)
def _stable_counting_sort_desc(rows, key, n_keys):
    """``rows`` stably reordered by decreasing ``key[row]`` (keys are 0..n_keys-1)."""
    start = np.zeros(n_keys + 1, np.int64)
    for k in range(rows.size):
        start[n_keys - key[rows[k]]] += 1
    for g in range(n_keys):
        start[g + 1] += start[g]
    out = np.empty(rows.size, np.int64)
    for k in range(rows.size):
        r = rows[k]
        slot = n_keys - 1 - key[r]
        out[start[slot]] = r
        start[slot] += 1
    return out


@njit(cache=True)
def _n_values(rank):
    m = 0
    for i in range(rank.size):
        if rank[i] + 1 > m:
            m = rank[i] + 1
    return m


@njit(cache=True)
def order_by_pred_kernel(pred_rank):
    """Rows by decreasing prediction rank, ties by increasing row index (a counting sort, O(n))."""
    return _stable_counting_sort_desc(np.arange(pred_rank.size), pred_rank, _n_values(pred_rank))


@njit(cache=True)
def order_by_y_then_pred_kernel(order, y_rank):
    """``order`` stably re-sorted by decreasing y rank (a counting sort, O(n)): rows by
    decreasing ``y_true``, ties in the order of ``order``."""
    return _stable_counting_sort_desc(order, y_rank, _n_values(y_rank))


# ---------------------------------------------------------------------------------------------
# Exact big sums
# ---------------------------------------------------------------------------------------------


@njit(inline="always")
def _limb_add(hi, lo, v, m):
    """(hi, lo) += v * m exactly, for |v| < 2**62 and 0 <= m < 2**31; value = hi * 2**31 + lo."""
    lo += (v & _MASK31) * m
    hi += (v >> 31) * m
    hi += lo >> 31
    lo &= _MASK31
    return hi, lo


def limbs_to_int(hi: int, lo: int) -> int:
    """The Python int ``hi * 2**31 + lo`` held by a pair of limbs from :func:`_limb_add`."""
    return int(hi) * (1 << 31) + int(lo)


@njit(cache=True)
def _sum_t3_minus_t_limbs(sizes):
    hi = np.int64(0)
    lo = np.int64(0)
    for k in range(sizes.size):
        t = np.int64(sizes[k])
        if t > 1:
            hi, lo = _limb_add(hi, lo, t * (t - 1), t + 1)
    return hi, lo


def sum_t3_minus_t(sizes: np.ndarray) -> int:
    """Exact ``sum(t**3 - t)`` over tie-group sizes (the Spearman tie correction), a Python int."""
    return limbs_to_int(*_sum_t3_minus_t_limbs(np.asarray(sizes, dtype=np.int64)))


# ---------------------------------------------------------------------------------------------
# The pair sweep: concordant / discordant / tied weight per observation, and every sum
# ---------------------------------------------------------------------------------------------


_BUCKET_BITS = 10  # at most 1024 buckets of y ranks; each bucket's arrays stay in cache


def sweep(
    key: np.ndarray,
    pkey: np.ndarray,
    n_y: int,
    w: np.ndarray,
    unit: bool,
    rec_proto: np.ndarray,
    rows: np.ndarray,
    conc: np.ndarray,
    disc: np.ndarray,
    tied_true: np.ndarray,
    tied_pred: np.ndarray,
    tied_both: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All pair counts and rank sums from the sequence (decreasing prediction, ties: decreasing y).

    ``key`` / ``pkey``: dense y / prediction rank per position; ``w``: weights per position, or
    ``unit=True`` with ``w = np.ones(1, np.int64)`` for exact integer counts. ``rec_proto`` is an
    empty array whose dtype holds the per-position records (int32 is enough for unit weights and
    n < 2**28; else the dtype of ``w``). With ``rows`` (the row of each position) and five arrays of
    length n, the per-row weights of concordant, discordant, tied-y-only, tied-prediction-only and
    tied-both partners are stored; pass empty arrays to skip.

    Cache-friendly two-level Fenwick: the y ranks are cut into at most 1024 buckets; a sequential
    pass counts, per position, the earlier (higher-prediction) weight in lower buckets and deals
    the positions into their buckets; a pass per bucket finishes the count with a small Fenwick
    tree and computes everything else with the bucket's y totals in cache.

    Returns ``stats`` (dtype of w: [sum w c, sum w d, W, sum over y groups W_g^2, prediction
    groups, joint groups, sum w^2]); ``moments`` (float64: sums over positions of w times h, h^2,
    h dy, h dp, dy, dy^2, dy dp, dp, dp^2 with h = c - d, dy = W - W(own y value), dp = W - W(own
    prediction value), for the Noether variance); ``limbs`` (int64 limb pairs, unit weights only:
    S2 = sum (2a)(2b) of the usual midranks, WY = sum 2a (W(same y, lower pred) - W(same y, higher
    pred)), Tp and Ty = sum t^3 - t over prediction / y tie groups; see
    ``ranklens.ranking._exact_spearman``); and ``fsums`` (float64, weighted midranks
    a = W(<) + W(=)/2: sum w (a - W/2)(b - W/2), the same for a twice and b twice, and
    sum w a (W(same y, lower pred) - W(same y, higher pred)); weighted R = var_a - cov - that/2).

    Per position, with earlier = higher prediction: c = W(earlier, higher y) + W(later, lower y)
    and d = W(earlier, lower y) + W(later, higher y); within a prediction tie group the rows are in
    decreasing y, so no earlier row of the own group has a lower y, and the two bucket levels give
    W(earlier, lower y) = (lower buckets, pass A) + (same bucket, pass B).
    """
    n = key.size
    n_y = int(n_y)
    store = conc.size > 0
    bits = max(n_y - 1, 0).bit_length()
    shift = bits - _BUCKET_BITS if bits > _BUCKET_BITS else 0
    n_b = ((n_y - 1) >> shift) + 1
    width = 1 << shift
    nf = 6 + (0 if unit else 1) + (1 if store else 0)
    # Every buffer is allocated here, not in the kernel: each NumPy allocation form a kernel uses
    # is one more function for numba to compile (0.1-0.3 s each on the first call).
    return sweep_kernel(
        key,
        pkey,
        w,
        unit,
        rows,
        conc,
        disc,
        tied_true,
        tied_pred,
        tied_both,
        shift,
        np.zeros(n_b + 1, np.int64),
        np.empty(n_b, np.int64),
        np.empty((n, nf), rec_proto.dtype),
        np.zeros(n_b + 1, w.dtype),
        np.zeros(7, w.dtype),
        np.zeros(8, np.int64),
        np.zeros(width, w.dtype),
        np.zeros(width, w.dtype),
        np.zeros(width + 1, w.dtype),
        np.zeros(width, w.dtype),
        np.zeros(9, np.float64),
        np.zeros(4, np.float64),
    )


@njit(cache=True)
def _deal_into_buckets(key, pkey, w, unit, store, rows, shift, cursor, rec, bfen, stats, limbs):
    """Pass A of :func:`sweep_kernel`: the prediction groups in sequence order, their joint
    runs and the earlier weight in lower buckets; each row's record dealt into its y bucket.

    Fills ``rec``, advances ``cursor`` and adds the group sums to ``stats`` and ``limbs``.
    """
    n = key.size
    one_w = w[0]
    zero = one_w * 0
    weighted = not unit
    nf = rec.shape[1]
    processed = zero
    t = 0
    while t < n:
        e = t
        gw = zero
        while e < n and pkey[e] == pkey[t]:
            wt = one_w if unit else w[e]
            gw += wt
            stats[6] += wt * wt
            e += 1
        stats[4] += gw * gw
        if unit:
            gs = np.int64(e - t)
            if gs > 1:
                limbs[4], limbs[5] = _limb_add(limbs[4], limbs[5], gs * (gs - 1), gs + 1)
        ingroup_greater = zero
        j = t
        while j < e:
            kj = key[j]
            f = j
            rw = zero
            while f < e and key[f] == kj:
                rw += one_w if unit else w[f]
                f += 1
            stats[5] += rw * rw
            b = kj >> shift
            v = ingroup_greater - 2 * fenwick_prefix(bfen, b)
            runpos = zero
            for m in range(j, f):
                pos = cursor[b]
                cursor[b] += 1
                rec[pos, 0] = kj
                rec[pos, 1] = v
                rec[pos, 2] = gw
                rec[pos, 3] = rw
                rec[pos, 4] = runpos
                rec[pos, 5] = processed
                wm = one_w if unit else w[m]
                if weighted:
                    rec[pos, 6] = wm
                if store:
                    rec[pos, nf - 1] = rows[m]
                runpos += wm
            fenwick_add(bfen, b, rw)
            ingroup_greater += rw
            j = f
        processed += gw
        t = e


@njit(cache=True)
def sweep_kernel(
    key,
    pkey,
    w,
    unit,
    rows,
    conc,
    disc,
    tied_true,
    tied_pred,
    tied_both,
    shift,
    bstart,
    cursor,
    rec,
    bfen,
    stats,
    limbs,
    ytot,
    ybelow,
    tree,
    seen,
    moments,
    fsums,
):
    """The body of :func:`sweep`, on buffers allocated by it (zeroed except cursor and rec).

    :func:`sweep` is the way to call it; the measures only look at this dispatcher to tell
    whether the sweep has machine code in the process already.

    Parameters
    ----------
    key, pkey, w, unit, rows, conc, disc, tied_true, tied_pred, tied_both
        As :func:`sweep`'s parameters of the same names.
    shift, bstart, cursor, rec, bfen, ytot, ybelow, tree, seen
        Scratch buffers allocated by :func:`sweep`.
    stats, limbs, moments, fsums : ndarray
        The outputs, filled in place (see :func:`sweep`).
    """
    n = key.size
    one_w = w[0]
    zero = one_w * 0
    store = conc.size > 0
    total = zero
    if unit:
        total = one_w * n
    else:
        for t in range(n):
            total += w[t]
    n_b = cursor.size
    for t in range(n):
        bstart[(key[t] >> shift) + 1] += 1
    for b in range(n_b):
        bstart[b + 1] += bstart[b]
        cursor[b] = bstart[b]
    _deal_into_buckets(key, pkey, w, unit, store, rows, shift, cursor, rec, bfen, stats, limbs)
    stats[2] = total
    # pass B: bucket by bucket, in prediction order within each bucket
    nf = rec.shape[1]
    ftotal = np.float64(total)
    offset = zero
    for b in range(n_b):
        s0 = bstart[b]
        s1 = bstart[b + 1]
        if s0 == s1:
            continue
        base = b << shift
        top = 0
        for pos in range(s0, s1):
            kk = np.int64(rec[pos, 0]) - base
            ytot[kk] += one_w if unit else rec[pos, 6]
            if kk + 1 > top:
                top = kk + 1
        acc = offset
        for kk in range(top):
            yt = ytot[kk]
            ybelow[kk] = acc
            acc += yt
            stats[3] += yt * yt
            if unit:
                gs = np.int64(yt)
                if gs > 1:
                    limbs[6], limbs[7] = _limb_add(limbs[6], limbs[7], gs * (gs - 1), gs + 1)
        for pos in range(s0, s1):
            kk = np.int64(rec[pos, 0]) - base
            v = rec[pos, 1]
            gw = rec[pos, 2]
            rw = rec[pos, 3]
            runpos = rec[pos, 4]
            proc = rec[pos, 5]
            wt = one_w if unit else rec[pos, 6]
            below_local = fenwick_prefix(tree, kk)
            eqb = seen[kk]
            yb = ybelow[kk]
            yt = ytot[kk]
            # x1 = higher-prediction weight - lower-y weight in the own group - 2 * earlier weight
            # with a lower y in lower buckets + own run predecessors (see the module notes)
            x1 = proc - gw + v + rw + runpos
            c = x1 + yb - 2 * below_local - eqb
            d = (total - gw + rw - x1) + 2 * below_local + eqb - yb - yt
            stats[0] += wt * c
            stats[1] += wt * d
            fw = np.float64(wt)
            h = np.float64(c - d)
            dy = ftotal - np.float64(yt)
            dp = ftotal - np.float64(gw)
            moments[0] += fw * h
            moments[1] += fw * h * h
            moments[2] += fw * h * dy
            moments[3] += fw * h * dp
            moments[4] += fw * dy
            moments[5] += fw * dy * dy
            moments[6] += fw * dy * dp
            moments[7] += fw * dp
            moments[8] += fw * dp * dp
            same_y_higher_pred = eqb - runpos
            a2 = 2 * (total - proc) - gw  # twice W(pred <) + W(pred =)/2
            b2 = 2 * yb + yt
            spread = yt - 2 * same_y_higher_pred - rw  # W(same y, lower pred) - W(.., higher)
            if unit:
                a2x = np.int64(a2) + 1  # twice the usual midrank
                limbs[0], limbs[1] = _limb_add(limbs[0], limbs[1], a2x * (np.int64(b2) + 1), 1)
                limbs[2], limbs[3] = _limb_add(limbs[2], limbs[3], a2x * np.int64(spread), 1)
            else:
                ac = 0.5 * (np.float64(a2) - ftotal)
                bc = 0.5 * (np.float64(b2) - ftotal)
                fsums[0] += fw * ac * bc
                fsums[1] += fw * ac * ac
                fsums[2] += fw * bc * bc
                fsums[3] += fw * 0.5 * np.float64(a2) * np.float64(spread)
            if store:
                row = np.int64(rec[pos, nf - 1])
                conc[row] = c
                disc[row] = d
                tied_true[row] = yt - rw
                tied_pred[row] = gw - rw
                tied_both[row] = rw - wt
            fenwick_add(tree, kk, wt)
            seen[kk] += wt
        offset = acc
        for kk in range(top):
            ytot[kk] = 0
            seen[kk] = 0
        for kk in range(top + 1):
            tree[kk] = 0
    return stats, moments, limbs, fsums


def record_prototype(n: int, unit: bool) -> np.ndarray:
    """The record dtype for :func:`sweep`: int32 when it holds every value, else int64/float64."""
    if not unit:
        return np.empty(0, np.float64)
    return np.empty(0, np.int32 if n < (1 << 28) else np.int64)


# ---------------------------------------------------------------------------------------------
# Stage 2 of the two-stage interface: the weighted group sums of the rank statistics
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def clipped_correlation(cov, var_a, var_b):
    """``cov / sqrt(var_a var_b)`` clipped to [-1, 1]; NaN when a variance is not positive.

    Kendall's tau-b and Spearman's rho are both this ratio, of pair counts or of midrank sums.

    Parameters
    ----------
    cov : float
        The cross term.
    var_a, var_b : float
        The two variances.

    Returns
    -------
    float
        The correlation in [-1, 1], or NaN.
    """
    if var_a > 0.0 and var_b > 0.0:
        return min(1.0, max(-1.0, cov / np.sqrt(var_a * var_b)))
    return np.nan


@njit(cache=True)
def rank_sums_sorted(y_seq, p_seq, w_seq, n_pred):
    """The weighted group sums of a sequence sorted by ``y``, ties by prediction: ``(W, Sy, Sp,
    Sj, D, cov, var_a, var_b)``, from which every statistic of the rank sweep follows
    (``ranklens._compute.xp.rank.replicate_classes`` makes them the pair classes).

    ``y_seq`` and ``p_seq`` are integer ranks (ties share a rank; ``p_seq < n_pred``), ``w_seq``
    positive float64 weights; pairs are weighted by ``w_i w_j`` and midranks are ``W(<) + W(=)/2``
    (equal to the materialised data for integer weights). With W the total weight and the sums of
    squared group weights over y groups (Sy), prediction groups (Sp) and joint groups (Sj):
    pairs with distinct y ``= (W^2 - Sy)/2``, with distinct prediction ``(W^2 - Sp)/2``, tied in
    the prediction only ``(Sp - Sj)/2``; the discordant weight D is the weight of earlier rows
    with a larger prediction rank (a Fenwick tree; within a y group predictions ascend, so ties
    in y never count), and the concordant weight ``C = (W^2 - Sy)/2 - D - (Sp - Sj)/2``.
    Spearman's rho is the weighted Pearson correlation of the midranks. NaN where undefined (a
    constant variable).
    """
    m = y_seq.size
    total = 0.0
    for k in range(m):
        total += w_seq[k]
    half = 0.5 * total
    # prediction groups: weights and weighted midranks
    pred_w = np.zeros(n_pred, np.float64)
    for k in range(m):
        pred_w[p_seq[k]] += w_seq[k]
    pred_mid = np.empty(n_pred, np.float64)
    below = 0.0
    sum_p2 = 0.0
    var_a = 0.0
    for g in range(n_pred):
        gw = pred_w[g]
        pred_mid[g] = below + 0.5 * gw - half
        below += gw
        sum_p2 += gw * gw
        var_a += gw * pred_mid[g] * pred_mid[g]
    # y groups and joint groups are runs of the sorted sequence
    sum_y2 = 0.0
    sum_j2 = 0.0
    var_b = 0.0
    cov = 0.0
    below = 0.0
    disc = 0.0
    tree = np.zeros(n_pred + 1, np.float64)
    k = 0
    while k < m:
        e = k
        gw = 0.0
        while e < m and y_seq[e] == y_seq[k]:
            gw += w_seq[e]
            e += 1
        b = below + 0.5 * gw - half
        var_b += gw * b * b
        sum_y2 += gw * gw
        j = k
        while j < e:
            f = j
            jw = 0.0
            while f < e and p_seq[f] == p_seq[j]:
                jw += w_seq[f]
                f += 1
            sum_j2 += jw * jw
            cov += jw * pred_mid[p_seq[j]] * b
            j = f
        # discordant: earlier rows (smaller y) with a larger prediction rank
        for t in range(k, e):
            disc += w_seq[t] * (below - fenwick_prefix(tree, p_seq[t] + 1))
        for t in range(k, e):
            fenwick_add(tree, p_seq[t], w_seq[t])
        below += gw
        k = e
    return total, sum_y2, sum_p2, sum_j2, disc, cov, var_a, var_b


@njit(cache=True)
def gather_positive(order, y_sorted, p_sorted, multiplicity, base_weight):
    """Rows with positive weight, in ``order``: their y ranks, prediction ranks and weights.

    ``y_sorted``/``p_sorted`` are the ranks already arranged in ``order`` (contiguous), so the
    only scattered reads are the weights. One pass into full-length buffers, returned as views.
    """
    n = order.size
    y_seq = np.empty(n, np.int64)
    p_seq = np.empty(n, np.int64)
    w_seq = np.empty(n, np.float64)
    t = 0
    for k in range(n):
        i = order[k]
        w = multiplicity[i] * base_weight[i]
        # branch-free compaction (a third of a bootstrap row is zero, at random): always write,
        # advance only past positive weights
        y_seq[t] = y_sorted[k]
        p_seq[t] = p_sorted[k]
        w_seq[t] = w
        t += 1 if w > 0.0 else 0
    return y_seq[:t], p_seq[:t], w_seq[:t]


@njit(cache=True)
def weighted_rank_sums(order, y_rank, pred_rank, w):
    """The group sums of :func:`rank_sums_sorted` from the stage-1 arrays and float64 weights.

    Re-sorts ``order`` by y (a linear counting sort), keeps the rows with positive weight
    (:func:`gather_positive`) and runs :func:`rank_sums_sorted`, the one stage-2 kernel (the
    bootstrap calls both directly).
    """
    # increasing y, ties by prediction
    by_y = order_by_y_then_pred_kernel(order, y_rank)[::-1].copy()
    y_seq, p_seq, w_seq = gather_positive(
        by_y, y_rank[by_y], pred_rank[by_y], w, np.ones(by_y.size, np.float64)
    )
    return rank_sums_sorted(y_seq, p_seq, w_seq, _n_values(pred_rank))


# ---------------------------------------------------------------------------------------------
# Curves
# ---------------------------------------------------------------------------------------------


@njit(inline="always")
def _prefix_tree_add(tree, size, leaf, v):
    """Add v to leaf ``leaf``; node j keeps (sum, max prefix sum) of its leaves in tree[j]."""
    node = size + leaf
    tree[node, 0] += v
    tree[node, 1] += v
    node >>= 1
    while node >= 1:
        left = 2 * node
        tree[node, 0] = tree[left, 0] + tree[left + 1, 0]
        tree[node, 1] = max(tree[left, 1], tree[left, 0] + tree[left + 1, 1])
        node >>= 1


def concordance_envelope(key: np.ndarray, pkey: np.ndarray, n_y: int, w: np.ndarray) -> np.ndarray:
    """Locally optimal envelope E of Figure 1 (Rosset et al. 2005), weighted, per y value (dense
    rank).

    Sequence arrays as in :func:`sweep` (``w`` per position, float64). For a row with y value v,
    E = max over the slots between the distinct predictions of the other rows of the weight of
    rows with y != v ordered correctly relative to it placed in that slot (it does not depend on
    the row's own prediction): E = W(y < v) + max_q P(q), P(q) = sum of g_t w_t over the first q
    prediction groups with g_t = +1 / 0 / -1 for y_t greater / equal / smaller than v.

    A lazy segment tree over P would do; here P is the prefix sum of per-slot increments in a
    tree whose nodes hold (sum, max prefix), so an update is one leaf-to-root path and max_q P(q)
    is the root. y values are swept from the largest down: the rows with value v get +w (neutral),
    the query, +w again. The positions are first dealt into y order (one counting sort) so that
    the sweep reads its inputs sequentially.
    """
    n = key.size
    n_y = int(n_y)
    n_groups = int(np.count_nonzero(pkey[1:] != pkey[:-1])) + 1 if n else 0
    size = 1
    while size < n_groups + 1:
        size *= 2
    # The buffers are allocated here rather than in the kernel (fewer functions to compile).
    return concordance_envelope_kernel(
        key,
        pkey,
        n_y,
        w,
        np.empty(n, np.int64),
        np.zeros(n + 1, np.float64),
        np.zeros(n_y + 1, np.int64),
        np.empty(n, np.int64),
        np.empty(n, np.float64),
        np.zeros((2 * size, 2), np.float64),
        np.empty(n_y, np.float64),
    )


@njit(cache=True)
def concordance_envelope_kernel(
    key, pkey, n_y, w, group, gweights, start, group_by_y, w_by_y, tree, envelope
):
    """The body of :func:`concordance_envelope`, on its buffers (zeroed: gweights, start, tree).

    :func:`concordance_envelope` is the way to call it; :mod:`ranklens.ranking` only looks at
    this dispatcher to tell whether it has machine code in the process already.

    Parameters
    ----------
    key, pkey, n_y, w
        As :func:`concordance_envelope`'s parameters of the same names.
    group, gweights, start, group_by_y, w_by_y, tree
        Scratch buffers allocated by :func:`concordance_envelope`.
    envelope : ndarray of float64
        The output, filled in place.
    """
    n = key.size
    # prediction group index (0 = highest prediction) per position, and the group weights
    g = -1
    for t in range(n):
        if t == 0 or pkey[t] != pkey[t - 1]:
            g += 1
        group[t] = g
        gweights[g] += w[t]
    n_groups = g + 1
    # deal positions into decreasing y (stable: decreasing prediction within a y value)
    for t in range(n):
        start[n_y - key[t]] += 1
    for v in range(n_y):
        start[v + 1] += start[v]
    for t in range(n):
        slot = n_y - 1 - key[t]
        pos = start[slot]
        start[slot] = pos + 1
        group_by_y[pos] = group[t]
        w_by_y[pos] = w[t]
    size = tree.shape[0] // 2
    # leaf 0 is the empty prefix (P(0) = 0); leaf g + 1 holds the increment of prediction group g
    total = 0.0
    for g in range(n_groups):
        tree[size + g + 1, 0] = -gweights[g]
        tree[size + g + 1, 1] = -gweights[g]
        total += gweights[g]
    for node in range(size - 1, 0, -1):
        left = 2 * node
        tree[node, 0] = tree[left, 0] + tree[left + 1, 0]
        tree[node, 1] = max(tree[left, 1], tree[left, 0] + tree[left + 1, 1])
    swept = 0.0
    k = 0
    for slot in range(n_y):
        e = start[slot]  # after dealing, start[slot] is the end of the slot
        gw = 0.0
        for m in range(k, e):
            gw += w_by_y[m]
        for step in range(2):
            m = k
            while m < e:
                g = group_by_y[m]
                f = m
                rw = 0.0
                while f < e and group_by_y[f] == g:
                    rw += w_by_y[f]
                    f += 1
                _prefix_tree_add(tree, size, g + 1, rw)
                m = f
            if step == 0:
                envelope[n_y - 1 - slot] = (total - swept - gw) + tree[1, 1]
        swept += gw
        k = e
    return envelope


@njit(cache=True)
def cutoff_auc_sums(key, pkey, n_y, w):
    """Figure 2 cuts between distinct y values, weighted; prediction ties get half credit.

    Sequence arrays as in :func:`sweep` (``w`` per position, float64, all positive). Returns per
    cut c (between the c-th and (c+1)-th largest distinct y): the positive weight W_P, the
    Mann-Whitney sum U_c = sum_{positives} w_i a_i - W_P^2 / 2 (a = weighted prediction midrank
    W(<) + W(=)/2), and the midrank gap (W_g + W_{g+1}) / 2 between the two y values on either side
    of the cut. AUC_c = U_c / (W_P (W - W_P)).
    """
    n = key.size
    total = 0.0
    for t in range(n):
        total += w[t]
    wy = np.zeros(n_y, np.float64)
    sa = np.zeros(n_y, np.float64)
    processed = 0.0
    t = 0
    while t < n:
        e = t
        gw = 0.0
        while e < n and pkey[e] == pkey[t]:
            gw += w[e]
            e += 1
        mid = (total - processed - gw) + 0.5 * gw
        for m in range(t, e):
            wy[key[m]] += w[m]
            sa[key[m]] += w[m] * mid
        processed += gw
        t = e
    m = n_y - 1
    positives = np.empty(m, np.float64)
    u = np.empty(m, np.float64)
    gap = np.empty(m, np.float64)
    wp = 0.0
    acc = 0.0
    for c in range(m):
        v = n_y - 1 - c  # the c-th largest value joins the positives
        wp += wy[v]
        acc += sa[v]
        positives[c] = wp
        u[c] = acc - 0.5 * wp * wp
        gap[c] = 0.5 * (wy[v] + wy[v - 1])
    return positives, u, gap
