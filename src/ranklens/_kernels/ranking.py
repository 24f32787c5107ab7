"""Numba kernels for the ranking measures (Rosset, Perlich & Zadrozny; seeds 000, 002; NOTES.md).

Everything is O(n log n) or better: one comparison sort per variable (to dense ranks), counting
sorts for every further order, one Fenwick sweep for the pair counts, O(n) passes for the rest.

Two-stage interface (used by the bootstrap and by leave-one-out code)
--------------------------------------------------------------------
Stage 1 depends on the data only, never on weights, so it can be done once per data set::

    order, y_rank, pred_rank = prepare_ranks(y_true, y_pred)

``y_rank`` and ``pred_rank`` are int64 dense ranks per row in the original row order (0 = smallest
value, equal values share a rank); ``order`` (int64) lists the rows by decreasing prediction, ties
in the prediction by decreasing ``y_true``, remaining ties by increasing row index. These are plain
arrays; :func:`prepare_ranks` itself is a Python function (it calls ``np.argsort``).

Stage 2 are ``@njit`` functions on those arrays and a float64 weight vector ``w`` (length n,
non-negative); they can be called from inside other numba functions::

    weighted_rank_correlations(order, y_rank, pred_rank, w) -> (tau_b, rho, c_index)
    weighted_kendall_tau(order, y_rank, pred_rank, w) -> float      # tau-b
    weighted_spearman_rho(order, y_rank, pred_rank, w) -> float     # Pearson of weighted midranks
    weighted_harrell_c(order, y_rank, pred_rank, w) -> float        # (1 + Somers' D(pred|y)) / 2

Pairs are weighted by ``w_i * w_j``; weighted midranks are ``W(<) + W(=)/2``. Integer weights give
exactly the values of the data with each row repeated ``w_i`` times (a bootstrap replicate is a
vector of multiplicities) and a zero weight is the same as dropping the row. Undefined values
(all positive weight in one ``y_true`` value, ...) come back as NaN; the public wrappers warn.

Exact arithmetic
----------------
Unweighted pair counts are int64 (they are below n^2). Sums that reach n^3 (Spearman's cross
product, the weighted discordance R) are accumulated in two int64 limbs of 31 bits
(:func:`_limb_add`) and combined into a Python int by the caller, exact for n < 2**30.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "concordance_envelope",
    "cutoff_auc_sums",
    "dense_ranks",
    "exact_rank_sums",
    "limbs_to_int",
    "order_by_y_then_pred",
    "pair_sweep",
    "prepare_ranks",
    "sum_t3_minus_t",
    "weighted_harrell_c",
    "weighted_kendall_tau",
    "weighted_rank_correlations",
    "weighted_rank_sums",
    "weighted_spearman_rho",
]

_MASK31 = (1 << 31) - 1


# ---------------------------------------------------------------------------------------------
# Stage 1: ranks and orders (weight independent)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _dense_rank_from_order(x, order):
    n = x.size
    rank = np.empty(n, np.int64)
    g = 0
    prev = x[order[0]]
    for k in range(n):
        i = order[k]
        v = x[i]
        if v != prev:
            g += 1
            prev = v
        rank[i] = g
    return rank, g + 1


def dense_ranks(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks (int64, 0 = smallest, ties share a rank) and the number of distinct values."""
    rank, n_groups = _dense_rank_from_order(x, np.argsort(x))
    return rank, int(n_groups)


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
def _order_by_pred_then_y(y_rank, n_y, pred_rank, n_pred):
    rows = np.arange(y_rank.size)
    by_y = _stable_counting_sort_desc(rows, y_rank, n_y)
    return _stable_counting_sort_desc(by_y, pred_rank, n_pred)


def prepare_ranks(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1 of the two-stage interface: ``(order, y_rank, pred_rank)`` (see module docstring).

    Independent of any weights; O(n log n) (two argsorts, then counting sorts).
    """
    y_rank, n_y = dense_ranks(y_true)
    pred_rank, n_pred = dense_ranks(y_pred)
    order = _order_by_pred_then_y(y_rank, n_y, pred_rank, n_pred)
    return order, y_rank, pred_rank


@njit(cache=True)
def order_by_y_then_pred(order, y_rank):
    """Rows by decreasing ``y_true``, ties by decreasing prediction (a stable re-sort of ``order``)."""
    n_y = 0
    for i in range(y_rank.size):
        if y_rank[i] + 1 > n_y:
            n_y = y_rank[i] + 1
    return _stable_counting_sort_desc(order, y_rank, n_y)


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


@njit(cache=True)
def _group_totals(rank, n_groups, w, unit):
    tot = np.zeros(n_groups, w.dtype)
    for i in range(rank.size):
        tot[rank[i]] += w[0] if unit else w[i]
    return tot


# ---------------------------------------------------------------------------------------------
# The pair sweep: concordant / discordant / tied weight per observation
# ---------------------------------------------------------------------------------------------


@njit(inline="always")
def _fenwick_prefix(tree, r):
    """Sum of the entries with rank < r (tree is 1-based)."""
    s = tree[0] * 0
    while r > 0:
        s += tree[r]
        r -= r & (-r)
    return s


@njit(inline="always")
def _fenwick_add(tree, r, v):
    """Add v at rank r (0-based)."""
    r += 1
    n = tree.size
    while r < n:
        tree[r] += v
        r += r & (-r)


@njit(cache=True)
def pair_sweep(order, y_rank, pred_rank, w, unit, conc, disc, tied_true, tied_pred, tied_both):
    """One Fenwick sweep in decreasing-prediction order; pair weights ``w_i * w_j``.

    ``unit=True`` means every weight is ``w[0]`` (pass ``np.ones(1, np.int64)`` for exact integer
    counts); otherwise ``w`` has length n. The five output arrays receive, per row i (original row
    order), the weight of the other rows j that are concordant, discordant, tied in ``y_true``
    only, tied in the prediction only and tied in both; pass empty arrays to skip storing.

    Returns ``stats`` (dtype of ``w``): [sum_i w_i conc_i, sum_i w_i disc_i, W, sum over y groups
    of W_g^2, the same over prediction groups, over joint (y, prediction) groups, sum w_i^2], and
    ``moments`` (float64): sums over i of w_i * [h, h^2, h*dy, h*dp, dy, dy^2, dy*dp, dp, dp^2] with
    h_i = conc_i - disc_i, dy_i = W - W(y group of i), dp_i = W - W(prediction group of i); these
    feed the Noether variance.
    """
    n = order.size
    n_y = 0
    for i in range(n):
        if y_rank[i] + 1 > n_y:
            n_y = y_rank[i] + 1
    ytot = _group_totals(y_rank, n_y, w, unit)
    ybelow = np.zeros(n_y, w.dtype)  # weight with a smaller y rank
    total = ytot[0] * 0
    for g in range(n_y):
        ybelow[g] = total
        total += ytot[g]
    store = conc.size > 0
    store_ties = tied_true.size > 0
    tree = np.zeros(n_y + 1, w.dtype)
    seen = np.zeros(n_y, w.dtype)  # weight already swept (higher prediction) per y rank
    stats = np.zeros(7, w.dtype)
    moments = np.zeros(9, np.float64)
    zero = total * 0
    processed = zero
    sum_w2 = zero
    for g in range(n_y):
        stats[3] += ytot[g] * ytot[g]
    stats[2] = total
    k = 0
    while k < n:
        r = pred_rank[order[k]]
        e = k
        gw = zero
        while e < n and pred_rank[order[e]] == r:
            wt = w[0] if unit else w[order[e]]
            gw += wt
            sum_w2 += wt * wt
            e += 1
        stats[4] += gw * gw
        lower_pred = total - processed - gw
        ingroup_greater = zero
        j = k
        while j < e:
            yr = y_rank[order[j]]
            f = j
            rw = zero
            while f < e and y_rank[order[f]] == yr:
                rw += w[0] if unit else w[order[f]]
                f += 1
            stats[5] += rw * rw
            below_hp = _fenwick_prefix(tree, yr)
            eq_hp = seen[yr]
            above_hp = processed - below_hp - eq_hp
            ingroup_less = gw - ingroup_greater - rw
            below_lp = ybelow[yr] - below_hp - ingroup_less
            eq_lp = ytot[yr] - eq_hp - rw
            above_lp = lower_pred - below_lp - eq_lp
            c = above_hp + below_lp
            d = below_hp + above_lp
            stats[0] += c * rw
            stats[1] += d * rw
            h = np.float64(c - d)
            dy = np.float64(total - ytot[yr])
            dp = np.float64(total - gw)
            fw = np.float64(rw)
            moments[0] += fw * h
            moments[1] += fw * h * h
            moments[2] += fw * h * dy
            moments[3] += fw * h * dp
            moments[4] += fw * dy
            moments[5] += fw * dy * dy
            moments[6] += fw * dy * dp
            moments[7] += fw * dp
            moments[8] += fw * dp * dp
            if store or store_ties:
                for m in range(j, f):
                    t = order[m]
                    if store:
                        conc[t] = c
                        disc[t] = d
                    if store_ties:
                        own = w[0] if unit else w[t]
                        tied_both[t] = rw - own
                        tied_true[t] = ytot[yr] - rw
                        tied_pred[t] = gw - rw
            ingroup_greater += rw
            j = f
        # insert the group: one Fenwick update per joint run
        j = k
        while j < e:
            yr = y_rank[order[j]]
            f = j
            rw = zero
            while f < e and y_rank[order[f]] == yr:
                rw += w[0] if unit else w[order[f]]
                f += 1
            _fenwick_add(tree, yr, rw)
            seen[yr] += rw
            j = f
        processed += gw
        k = e
    stats[6] = sum_w2
    return stats, moments


# ---------------------------------------------------------------------------------------------
# O(n) rank sums: Spearman and the weighted discordance R
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def exact_rank_sums(order, y_rank, pred_rank):
    """Exact (limb) sums for Spearman's rho and R, unweighted, with midranks a (prediction), b (y).

    Returns ``(s2_hi, s2_lo, wy_hi, wy_lo)`` with S2 = sum_i (2 a_i)(2 b_i) and
    WY = sum_i 2 a_i (2 L_i + c_i - m_i), where within the y tie group of i (size m_i) L_i rows have
    a smaller prediction and c_i the same one. Then, with Tp = sum over prediction tie groups of
    t^3 - t: 12 R = (n^3 - n - Tp) - 3 (S2 - n (n+1)^2) - 3 WY (R over discordant pairs of their
    prediction-midrank distance) and 4 * sum (a - abar)(b - bbar) = S2 - n (n+1)^2.
    """
    n = order.size
    one = np.ones(1, np.int64)
    n_y = 0
    for i in range(n):
        if y_rank[i] + 1 > n_y:
            n_y = y_rank[i] + 1
    ytot = _group_totals(y_rank, n_y, one, True)
    ybelow = np.zeros(n_y, np.int64)
    acc = np.int64(0)
    for g in range(n_y):
        ybelow[g] = acc
        acc += ytot[g]
    seen = np.zeros(n_y, np.int64)
    s2_hi = np.int64(0)
    s2_lo = np.int64(0)
    wy_hi = np.int64(0)
    wy_lo = np.int64(0)
    processed = np.int64(0)
    k = 0
    while k < n:
        r = pred_rank[order[k]]
        e = k
        while e < n and pred_rank[order[e]] == r:
            e += 1
        gsize = e - k
        a2 = 2 * (n - processed - gsize) + gsize + 1  # twice the ascending midrank
        j = k
        while j < e:
            yr = y_rank[order[j]]
            f = j
            while f < e and y_rank[order[f]] == yr:
                f += 1
            rw = f - j
            m = ytot[yr]
            b2 = 2 * ybelow[yr] + m + 1
            s2_hi, s2_lo = _limb_add(s2_hi, s2_lo, a2 * b2, rw)
            # 2 L + c - m with L = m - seen - rw (lower prediction inside the y group), c = rw
            s = m - 2 * seen[yr] - rw
            wy_hi, wy_lo = _limb_add(wy_hi, wy_lo, a2 * s, rw)
            seen[yr] += rw
            j = f
        processed += gsize
        k = e
    return s2_hi, s2_lo, wy_hi, wy_lo


@njit(cache=True)
def weighted_rank_sums(order, y_rank, pred_rank, w):
    """Weighted midrank sums: (cov, var_pred, var_y, wy) in float64.

    With weighted midranks a_i = W(pred < pred_i) + W(pred = pred_i)/2 and b_i likewise for y (both
    have weighted mean W/2): cov = sum w (a - W/2)(b - W/2), var_* the same for a and b, and
    wy = sum_i w_i a_i * [W(same y, lower pred) - W(same y, higher pred)]; the weighted R is then
    var_pred - cov - wy / 2.
    """
    n = order.size
    n_y = 0
    for i in range(n):
        if y_rank[i] + 1 > n_y:
            n_y = y_rank[i] + 1
    ytot = _group_totals(y_rank, n_y, w, False)
    bmid = np.zeros(n_y, np.float64)
    total = 0.0
    for g in range(n_y):
        bmid[g] = total + 0.5 * ytot[g]
        total += ytot[g]
    half = 0.5 * total
    seen = np.zeros(n_y, np.float64)
    cov = 0.0
    var_a = 0.0
    var_b = 0.0
    wy = 0.0
    processed = 0.0
    k = 0
    while k < n:
        r = pred_rank[order[k]]
        e = k
        gw = 0.0
        while e < n and pred_rank[order[e]] == r:
            gw += w[order[e]]
            e += 1
        a = (total - processed - gw) + 0.5 * gw
        ac = a - half
        j = k
        while j < e:
            yr = y_rank[order[j]]
            f = j
            rw = 0.0
            while f < e and y_rank[order[f]] == yr:
                rw += w[order[f]]
                f += 1
            bc = bmid[yr] - half
            cov += rw * ac * bc
            var_a += rw * ac * ac
            var_b += rw * bc * bc
            wy += rw * a * (ytot[yr] - 2.0 * seen[yr] - rw)
            seen[yr] += rw
            j = f
        processed += gw
        k = e
    return cov, var_a, var_b, wy


# ---------------------------------------------------------------------------------------------
# Stage 2 of the two-stage interface: weighted tau-b, rho, Harrell's C
# ---------------------------------------------------------------------------------------------

_EMPTY_F = np.empty(0, np.float64)


@njit(cache=True)
def _tau_and_c(stats):
    conc = 0.5 * stats[0]
    disc = 0.5 * stats[1]
    w2 = stats[2] * stats[2]
    distinct_y = 0.5 * (w2 - stats[3])
    distinct_pred = 0.5 * (w2 - stats[4])
    tied_pred_only = 0.5 * (stats[4] - stats[5])
    tau = np.nan
    c_index = np.nan
    if distinct_y > 0.0 and distinct_pred > 0.0:
        tau = (conc - disc) / np.sqrt(distinct_y * distinct_pred)
        tau = min(1.0, max(-1.0, tau))
    if distinct_y > 0.0:
        c_index = (conc + 0.5 * tied_pred_only) / distinct_y
    return tau, c_index


@njit(cache=True)
def _rho(cov, var_a, var_b):
    if var_a > 0.0 and var_b > 0.0:
        return min(1.0, max(-1.0, cov / np.sqrt(var_a * var_b)))
    return np.nan


@njit(cache=True)
def weighted_rank_correlations(order, y_rank, pred_rank, w):
    """Weighted (tau_b, rho, harrell_c) from the stage-1 arrays and float64 weights ``w``."""
    empty = np.empty(0, np.float64)
    stats, _ = pair_sweep(order, y_rank, pred_rank, w, False, empty, empty, empty, empty, empty)
    tau, c_index = _tau_and_c(stats)
    cov, var_a, var_b, _ = weighted_rank_sums(order, y_rank, pred_rank, w)
    return tau, _rho(cov, var_a, var_b), c_index


@njit(cache=True)
def weighted_kendall_tau(order, y_rank, pred_rank, w):
    """Weighted Kendall tau-b (pairs weighted by w_i w_j)."""
    empty = np.empty(0, np.float64)
    stats, _ = pair_sweep(order, y_rank, pred_rank, w, False, empty, empty, empty, empty, empty)
    return _tau_and_c(stats)[0]


@njit(cache=True)
def weighted_harrell_c(order, y_rank, pred_rank, w):
    """Weighted Harrell's C = (1 + Somers' D(pred | y)) / 2."""
    empty = np.empty(0, np.float64)
    stats, _ = pair_sweep(order, y_rank, pred_rank, w, False, empty, empty, empty, empty, empty)
    return _tau_and_c(stats)[1]


@njit(cache=True)
def weighted_spearman_rho(order, y_rank, pred_rank, w):
    """Weighted Spearman rho: weighted Pearson correlation of weighted midranks."""
    cov, var_a, var_b, _ = weighted_rank_sums(order, y_rank, pred_rank, w)
    return _rho(cov, var_a, var_b)


# ---------------------------------------------------------------------------------------------
# Curves
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def concordance_envelope(order, y_rank, pred_rank, w):
    """Locally optimal envelope E_i of Figure 1 (NOTES.md), weighted, per row (original order).

    E_i = max over the slots between the distinct predictions of the other rows of the weight of
    rows j with y_j != y_i ordered correctly relative to i placed in that slot. A max segment tree
    over the K + 1 slots (K = distinct predictions), P(q) initialised to minus the weight of the
    first q prediction groups; y groups are swept from the largest y down (NOTES.md algorithm,
    generalised to ties: the rows of a y group get +w (neutral), the query, then +w again).
    """
    n = order.size
    # prediction group index in decreasing-prediction order, and the group weights
    group_of = np.empty(n, np.int64)
    gweights = np.zeros(n + 1, np.float64)
    n_groups = 0
    k = 0
    while k < n:
        r = pred_rank[order[k]]
        e = k
        while e < n and pred_rank[order[e]] == r:
            group_of[order[e]] = n_groups
            gweights[n_groups] += w[order[e]]
            e += 1
        n_groups += 1
        k = e
    n_leaves = n_groups + 1
    size = 1
    while size < n_leaves:
        size *= 2
    mx = np.full(2 * size, -np.inf)
    tag = np.zeros(2 * size, np.float64)
    acc = 0.0
    for q in range(n_leaves):
        mx[size + q] = -acc
        if q < n_groups:
            acc += gweights[q]
    for node in range(size - 1, 0, -1):
        mx[node] = max(mx[2 * node], mx[2 * node + 1])
    total = acc
    by_y = order_by_y_then_pred(order, y_rank)
    envelope = np.empty(n, np.float64)
    # weight below the current y group: total minus everything swept so far
    swept = 0.0
    k = 0
    while k < n:
        yr = y_rank[by_y[k]]
        e = k
        gw = 0.0
        while e < n and y_rank[by_y[e]] == yr:
            gw += w[by_y[e]]
            e += 1
        for step in range(2):
            m = k
            while m < e:
                g = group_of[by_y[m]]
                f = m
                rw = 0.0
                while f < e and group_of[by_y[f]] == g:
                    rw += w[by_y[f]]
                    f += 1
                _suffix_add(mx, tag, size, g + 1, n_leaves, rw)
                m = f
            if step == 0:
                best = (total - swept - gw) + mx[1]
                for m in range(k, e):
                    envelope[by_y[m]] = best
        swept += gw
        k = e
    return envelope


@njit(inline="always")
def _suffix_add(mx, tag, size, lo, n_leaves, v):
    """Add v to leaves [lo, n_leaves) of a max tree with non-propagated tags."""
    if lo >= n_leaves:
        return
    left = lo + size
    right = n_leaves + size
    l0 = left
    r0 = right - 1
    while left < right:
        if left & 1:
            tag[left] += v
            mx[left] += v
            left += 1
        if right & 1:
            right -= 1
            tag[right] += v
            mx[right] += v
        left >>= 1
        right >>= 1
    for start in (l0, r0):
        node = start >> 1
        while node >= 1:
            mx[node] = max(mx[2 * node], mx[2 * node + 1]) + tag[node]
            node >>= 1


@njit(cache=True)
def cutoff_auc_sums(order, y_rank, pred_rank, w):
    """Figure 2 cuts between distinct y values, weighted; pred ties get half credit.

    Returns per cut c (between the c-th and (c+1)-th largest distinct y): the positive weight
    W_P, the Mann-Whitney sum U_c = sum_{positives} w_i a_i - W_P^2 / 2 (a = weighted midrank of the
    prediction, W(<) + W(=)/2), and the midrank gap between the two y groups on either side of the
    cut, (W_g + W_{g+1}) / 2. AUC_c = U_c / (W_P (W - W_P)).
    """
    n = order.size
    # weighted ascending midrank of the prediction for every row
    a = np.empty(n, np.float64)
    total = 0.0
    for i in range(n):
        total += w[i]
    processed = 0.0
    k = 0
    while k < n:
        r = pred_rank[order[k]]
        e = k
        gw = 0.0
        while e < n and pred_rank[order[e]] == r:
            gw += w[order[e]]
            e += 1
        mid = (total - processed - gw) + 0.5 * gw
        for m in range(k, e):
            a[order[m]] = mid
        processed += gw
        k = e
    by_y = order_by_y_then_pred(order, y_rank)
    n_y = 0
    for i in range(n):
        if y_rank[i] + 1 > n_y:
            n_y = y_rank[i] + 1
    positives = np.empty(n_y, np.float64)
    u = np.empty(n_y, np.float64)
    gap = np.empty(n_y, np.float64)
    wp = 0.0
    sa = 0.0
    prev_gw = 0.0
    c = 0
    k = 0
    while k < n:
        yr = y_rank[by_y[k]]
        e = k
        gw = 0.0
        while e < n and y_rank[by_y[e]] == yr:
            t = by_y[e]
            gw += w[t]
            sa += w[t] * a[t]
            e += 1
        if c > 0:
            gap[c - 1] = 0.5 * (prev_gw + gw)
        if e < n:
            wp += gw
            positives[c] = wp
            u[c] = sa - 0.5 * wp * wp
            c += 1
        prev_gw = gw
        k = e
    return positives[:c], u[:c], gap[:c]
