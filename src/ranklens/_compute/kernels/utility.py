"""Numba kernels for utility-based regression measures (Torgo & Ribeiro 2009).

Pure numeric code: relevance and accuracy evaluation, the fused precision / recall sums, and the
O(n log n) medcouple. Validation lives in :mod:`ranklens.relevance` and :mod:`ranklens.extremes`;
every kernel has a definitional twin in ``tests/reference_utility.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "LOSS_ABSOLUTE",
    "LOSS_SQUARED",
    "accuracy_values",
    "hermite_relevance",
    "medcouple_sorted",
    "precision_recall_sums",
    "sigmoid_relevance",
    "weighted_medcouple_sorted",
]

LOSS_ABSOLUTE = 0
LOSS_SQUARED = 1


@njit(cache=True)
def _logistic(x: float) -> float:
    # Branches keep exp() from overflowing for large |x|.
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True)
def sigmoid_relevance(y, has_low, low_center, low_shape, has_high, high_center, high_shape):
    """phi(y) = max of the low and high sigmoids 1 / (1 + exp(-s (y - c))) (Torgo & Ribeiro 2009,
    eq. 4).

    ``low_shape`` is negative (relevance rises as y falls), ``high_shape`` positive. NaN stays NaN.
    """
    out = np.empty(y.shape[0], dtype=np.float64)
    for i in range(y.shape[0]):
        v = y[i]
        if v != v:
            out[i] = np.nan
            continue
        r = 0.0
        if has_low:
            r = _logistic(low_shape * (v - low_center))
        if has_high:
            h = _logistic(high_shape * (v - high_center))
            if h > r:
                r = h
        out[i] = r
    return out


@njit(cache=True)
def hermite_relevance(y, knots, values, slopes):
    """Piecewise cubic Hermite interpolation through (knots, values, slopes), clipped to [0, 1].

    Constant extrapolation outside [knots[0], knots[-1]]; ``knots`` strictly increasing.
    """
    m = knots.shape[0]
    out = np.empty(y.shape[0], dtype=np.float64)
    for i in range(y.shape[0]):
        v = y[i]
        if v != v:
            out[i] = np.nan
            continue
        if v <= knots[0]:
            r = values[0]
        elif v >= knots[m - 1]:
            r = values[m - 1]
        else:
            j = np.searchsorted(knots, v, side="right") - 1
            h = knots[j + 1] - knots[j]
            t = (v - knots[j]) / h
            t2 = t * t
            t3 = t2 * t
            r = (
                (2.0 * t3 - 3.0 * t2 + 1.0) * values[j]
                + (t3 - 2.0 * t2 + t) * h * slopes[j]
                + (-2.0 * t3 + 3.0 * t2) * values[j + 1]
                + (t3 - t2) * h * slopes[j + 1]
            )
        if r < 0.0:
            r = 0.0
        elif r > 1.0:
            r = 1.0
        out[i] = r
    return out


@njit(cache=True)
def _loss(y_true, y_pred, loss_kind):
    d = y_pred - y_true
    if loss_kind == LOSS_SQUARED:
        return d * d
    return abs(d)


@njit(cache=True)
def accuracy_values(y_true, y_pred, smooth, threshold, k, loss_kind):
    """alpha_i: eq. 8 (step, ``smooth`` False) or eq. 9 (smooth) of Torgo & Ribeiro (2009)."""
    out = np.empty(y_true.shape[0], dtype=np.float64)
    for i in range(y_true.shape[0]):
        loss = _loss(y_true[i], y_pred[i], loss_kind)
        if loss > threshold:
            out[i] = 0.0
        elif smooth:
            d = (loss - threshold) / threshold
            out[i] = 1.0 - math.exp(-k * d * d)
        else:
            out[i] = 1.0
    return out


@njit(cache=True)
def precision_recall_sums(phi_true, phi_pred, alpha, weight, use_weight, event_threshold):
    """The four sums of Torgo & Ribeiro (2009) eqs. 6 and 10 (>= in both) and the event counts.

    Rows of zero weight are skipped entirely. Returns (recall numerator, recall denominator,
    number of true events,
    precision numerator, precision denominator, number of predicted events).
    """
    num_r = 0.0
    den_r = 0.0
    num_p = 0.0
    den_p = 0.0
    n_true = 0
    n_pred = 0
    for i in range(phi_true.shape[0]):
        w = 1.0
        if use_weight:
            w = weight[i]
            if w == 0.0:
                continue  # rows of zero weight (e.g. out of a bootstrap replicate) are absent
        pt = phi_true[i]
        pp = phi_pred[i]
        if pt >= event_threshold:
            n_true += 1
            num_r += w * alpha[i] * pt
            den_r += w * pt
        if pp >= event_threshold:
            n_pred += 1
            num_p += w * alpha[i] * pp
            den_p += w * pp
    return num_r, den_r, n_true, num_p, den_p, n_pred


# ---------------------------------------------------------------------------------------------
# Medcouple (Brys, Hubert & Struyf 2004), O(n log n) expected time.
#
# With z = x - median split into Z+ (z >= 0, decreasing) and Z- (z <= 0, decreasing), the kernel
# h(i, j) = (z+_i + z-_j) / (z+_i - z-_j) is non-increasing along every row and every column, so
# the k-th largest entry of the p x q matrix is found without building it: a weighted median of
# the row medians of the still-active cells splits the candidates, two staircase walks count the
# entries above and below it, and at least a quarter of the candidates is discarded per round
# (Johnson & Mizoguchi 1978).


@njit(cache=True)
def _h(zplus, zminus, i, j, p):
    a = zplus[i]
    b = zminus[j]
    if a == b:
        # Both are ties at the median: +1 above the anti-diagonal of the tie block, 0 on it,
        # -1 below (Brys et al. 2004, eq. 5); i counts from the top of Z+, j from the left of Z-.
        s = p - 1 - i - j
        if s > 0:
            return 1.0
        if s < 0:
            return -1.0
        return 0.0
    return (a + b) / (a - b)


@njit(cache=True)
def _weighted_median(vals, wts, m, seed):
    """A weighted median of vals[:m] (weights wts[:m], int64, total > 0); reorders both arrays."""
    total = 0
    for i in range(m):
        total += wts[i]
    lo = 0
    hi = m - 1
    below = 0  # total weight of elements known to lie below vals[lo:hi+1]
    state = seed
    while True:
        if lo == hi:
            return vals[lo]
        state = (state * 6364136223846793005 + 1442695040888963407) & 0x7FFFFFFFFFFFFFFF
        pivot = vals[lo + (state >> 17) % (hi - lo + 1)]
        # Three-way partition of [lo, hi]: < pivot | == pivot | > pivot.
        lt = lo
        gt = hi
        i = lo
        while i <= gt:
            v = vals[i]
            if v < pivot:
                vals[i], vals[lt] = vals[lt], vals[i]
                wts[i], wts[lt] = wts[lt], wts[i]
                lt += 1
                i += 1
            elif v > pivot:
                vals[i], vals[gt] = vals[gt], vals[i]
                wts[i], wts[gt] = wts[gt], wts[i]
                gt -= 1
            else:
                i += 1
        w_less = 0
        for t in range(lo, lt):
            w_less += wts[t]
        w_equal = 0
        for t in range(lt, gt + 1):
            w_equal += wts[t]
        if 2 * (below + w_less) >= total:
            hi = lt - 1
        elif 2 * (below + w_less + w_equal) >= total:
            return pivot
        else:
            below += w_less + w_equal
            lo = gt + 1


@njit(cache=True)
def _kth_largest_h(zplus, zminus, kth):
    """The kth largest (0-based) entry of the implicit p x q matrix h(i, j)."""
    p = zplus.shape[0]
    q = zminus.shape[0]
    left = np.zeros(p, dtype=np.int64)
    right = np.full(p, q - 1, dtype=np.int64)
    big_p = np.empty(p, dtype=np.int64)
    big_q = np.empty(p, dtype=np.int64)
    vals = np.empty(p, dtype=np.float64)
    wts = np.empty(p, dtype=np.int64)
    left_total = 0
    right_total = p * q
    seed = 88172645463325252
    # Each round discards at least a quarter of the candidates in exact arithmetic (Johnson &
    # Mizoguchi); h is monotone only up to rounding, so a round that discards nothing (two cells
    # equal in exact arithmetic, rounded apart) ends the rounds and the candidates left are
    # sorted below. The loop is therefore bounded by the number of cells, whatever the rounding.
    while right_total - left_total > p:
        m = 0
        for i in range(p):
            if left[i] <= right[i]:
                vals[m] = _h(zplus, zminus, i, (left[i] + right[i]) // 2, p)
                wts[m] = right[i] - left[i] + 1
                m += 1
        seed += 1
        wm = _weighted_median(vals, wts, m, seed)
        # big_p[i]: last column with h > wm (rows scanned bottom-up, the boundary moves right).
        j = 0
        for i in range(p - 1, -1, -1):
            while j < q and _h(zplus, zminus, i, j, p) > wm:
                j += 1
            big_p[i] = j - 1
        # big_q[i]: first column with h < wm (rows scanned top-down, the boundary moves left).
        j = q - 1
        for i in range(p):
            while j >= 0 and _h(zplus, zminus, i, j, p) < wm:
                j -= 1
            big_q[i] = j + 1
        n_greater = 0
        n_geq = 0
        for i in range(p):
            n_greater += big_p[i] + 1
            n_geq += big_q[i]
        if kth <= n_greater - 1:
            if n_greater >= right_total:
                break  # no progress (rounding): sort what is left
            right[:] = big_p
            right_total = n_greater
        elif kth > n_geq - 1:
            if n_geq <= left_total:
                break
            left[:] = big_q
            left_total = n_geq
        else:
            return wm
    m = 0
    for i in range(p):
        if left[i] <= right[i]:
            m += right[i] - left[i] + 1
    rest = np.empty(m, dtype=np.float64)
    m = 0
    for i in range(p):
        for j in range(left[i], right[i] + 1):
            rest[m] = _h(zplus, zminus, i, j, p)
            m += 1
    rest = np.sort(rest)
    # rest holds the candidates ranked left_total .. right_total - 1 in decreasing order; the
    # clip only matters if rounding made the staircase counts disagree with the cells.
    k = min(max(m - 1 - (kth - left_total), 0), m - 1)
    return rest[k]


@njit(inline="always")  # compiled into both callers: no kernel of its own to compile
def _medcouple_scale(x, med):
    """The scale of the kernel values: twice the largest distance of ``x`` from its median
    ``med`` (0 when every value equals the median)."""
    scale = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i] - med)
        if a > scale:
            scale = a
    return scale * 2.0


@njit(cache=True)
def medcouple_sorted(x):
    """Medcouple of ``x`` sorted ascending (n >= 1): the median of h over Z+ x Z-.

    For an even number of kernel values the median is the mean of the two middle ones (as in
    Brys et al.'s definition and statsmodels).
    """
    n = x.shape[0]
    med = x[n // 2] if n % 2 == 1 else 0.5 * (x[n // 2 - 1] + x[n // 2])
    scale = _medcouple_scale(x, med)
    if scale == 0.0:
        return 0.0
    n_plus = 0
    n_minus = 0
    for i in range(n):
        if x[i] >= med:
            n_plus += 1
        if x[i] <= med:
            n_minus += 1
    zplus = np.empty(n_plus, dtype=np.float64)
    zminus = np.empty(n_minus, dtype=np.float64)
    # Z+ decreasing: walk x from the top; Z- decreasing: walk x from the median down.
    t = 0
    for i in range(n - 1, -1, -1):
        if x[i] >= med:
            zplus[t] = (x[i] - med) / scale
            t += 1
    t = 0
    for i in range(n - 1, -1, -1):
        if x[i] <= med:
            zminus[t] = (x[i] - med) / scale
            t += 1
    total = n_plus * n_minus
    upper = _kth_largest_h(zplus, zminus, (total - 1) // 2)
    if total % 2 == 1:
        return upper
    lower = _kth_largest_h(zplus, zminus, total // 2)
    return 0.5 * (upper + lower)


# ---------------------------------------------------------------------------------------------
# Weighted medcouple: frequency weights, without repeating rows.
#
# Row i of weight w_i stands for w_i copies, so the cell (i, j) of the kernel matrix stands for
# w_i w_j pairs and the medcouple is the weighted median of h over the cells. The rows equal to
# the median (total weight K) form one row of Z+ and one column of Z- whose common cell holds
# the K x K pairs of tied copies: in the unweighted kernel K(K-1)/2 of them are +1, K are 0 and
# K(K-1)/2 are -1 (Brys et al. 2004, eq. 5), which is what integer K gives here. For K < 1 the
# counts K(K-1)/2 would be negative; the cell then holds K^2 at 0 (continuous at K = 1). The
# weighted median is found by bisection over the ordered bit patterns of the floats in [-1, 1]
# with a staircase count of the weight of the cells <= v (O(p + q) per step): at most 64 steps,
# a bound that does not depend on the data or on rounding, and the answer is the exact smallest
# float v at which the count reaches the target, i.e. a cell value.


@njit(cache=True)
def _order_key(v, buf):
    """An int64 that orders like the float v (-0.0 and 0.0 share a key)."""
    buf[0] = v
    bits = buf.view(np.int64)[0]
    if bits >= 0:
        return bits
    return -(bits & 0x7FFFFFFFFFFFFFFF)


@njit(cache=True)
def _key_value(key, buf):
    """The float whose :func:`_order_key` is ``key``."""
    ibuf = buf.view(np.int64)
    if key >= 0:
        ibuf[0] = key
    else:
        ibuf[0] = (-key) | np.int64(-0x8000000000000000)
    return buf[0]


@njit(cache=True)
def _weight_at_most(v, zplus, wplus, zminus, wminus, col_suffix, tie, tie_masses):
    """Total weight of the cells with h <= v (the tie cell through ``tie_masses``)."""
    p = zplus.shape[0]
    q = zminus.shape[0]
    total = 0.0
    j = q
    for i in range(p):
        # h(i, j) decreases along the row, and the first column with h <= v moves left as i grows
        while j > 0:
            a = zplus[i]
            b = zminus[j - 1]
            # the tie cell sits at 0, its place in the monotone order (-1 <= 0 <= +1)
            h = 0.0 if tie and i == p - 1 and j - 1 == 0 else (a + b) / (a - b)
            if h <= v:
                j -= 1
            else:
                break
        if tie and i == p - 1 and j == 0:
            total += wplus[i] * col_suffix[1]  # the tie cell is counted by its masses below
        else:
            total += wplus[i] * col_suffix[j]
    if tie:
        if v >= -1.0:
            total += tie_masses[0]
        if v >= 0.0:
            total += tie_masses[1]
        if v >= 1.0:
            total += tie_masses[2]
    return total


@njit(cache=True)
def _smallest_reaching(target, strict, zplus, wplus, zminus, wminus, col_suffix, tie, masses):
    """Smallest float v in [-1, 1] whose cell weight <= v reaches (exceeds) ``target``."""
    buf = np.empty(1, np.float64)
    lo = _order_key(-1.0, buf) - 1  # below every h: weight 0, short of a positive target
    hi = _order_key(1.0, buf)  # every cell: the whole weight
    for _ in range(70):  # the key range holds fewer than 2**64 floats: at most 64 halvings
        if hi - lo <= 1:
            break
        mid = lo + (hi - lo) // 2
        c = _weight_at_most(
            _key_value(mid, buf), zplus, wplus, zminus, wminus, col_suffix, tie, masses
        )
        if (c > target) if strict else (c >= target):
            hi = mid
        else:
            lo = mid
    return _key_value(hi, buf)


@njit(cache=True)
def weighted_medcouple_sorted(x, w, med):
    """Medcouple of ``x`` sorted ascending with positive frequency weights ``w``, median ``med``.

    Integer weights give the medcouple of the sample with row i repeated w_i times (the value of
    :func:`medcouple_sorted` on it, to the last bit); the median of the kernel values is the
    average of the lower and upper weighted medians. O((p + q) * 64) for p rows at or above the
    median and q at or below it.
    """
    n = x.shape[0]
    scale = _medcouple_scale(x, med)
    if scale == 0.0:
        return 0.0
    n_above = 0
    n_below = 0
    tie_weight = 0.0
    for i in range(n):
        if x[i] > med:
            n_above += 1
        elif x[i] < med:
            n_below += 1
        else:
            tie_weight += w[i]
    tie = tie_weight > 0.0
    p = n_above + (1 if tie else 0)
    q = n_below + (1 if tie else 0)
    zplus = np.empty(p, np.float64)
    wplus = np.empty(p, np.float64)
    zminus = np.empty(q, np.float64)
    wminus = np.empty(q, np.float64)
    # Z+ decreasing (the tie row last), Z- decreasing (the tie column first)
    t = 0
    for i in range(n - 1, -1, -1):
        if x[i] > med:
            zplus[t] = (x[i] - med) / scale
            wplus[t] = w[i]
            t += 1
    t = 0
    if tie:
        zplus[p - 1] = 0.0
        wplus[p - 1] = tie_weight
        zminus[0] = 0.0
        wminus[0] = tie_weight
        t = 1
    for i in range(n - 1, -1, -1):
        if x[i] < med:
            zminus[t] = (x[i] - med) / scale
            wminus[t] = w[i]
            t += 1
    col_suffix = np.zeros(q + 1, np.float64)
    for j in range(q - 1, -1, -1):
        col_suffix[j] = col_suffix[j + 1] + wminus[j]
    masses = np.zeros(3, np.float64)  # tie cell weight at -1, 0, +1
    if tie:
        k = tie_weight
        zero = k if k >= 1.0 else k * k
        masses[0] = 0.5 * (k * k - zero)
        masses[1] = zero
        masses[2] = masses[0]
    total_plus = 0.0
    for i in range(p):
        total_plus += wplus[i]
    half = 0.5 * total_plus * col_suffix[0]
    lower = _smallest_reaching(half, False, zplus, wplus, zminus, wminus, col_suffix, tie, masses)
    upper = _smallest_reaching(half, True, zplus, wplus, zminus, wminus, col_suffix, tie, masses)
    if lower == upper:
        return lower
    return 0.5 * (lower + upper)
