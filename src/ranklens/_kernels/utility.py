"""Numba kernels for utility-based regression measures (Torgo & Ribeiro 2009; seed 001).

Pure numeric code: relevance and accuracy evaluation, the fused precision / recall sums, and the
O(n log n) medcouple. Validation lives in :mod:`ranklens.relevance` and :mod:`ranklens.utility`;
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
    """phi(y) = max of the low and high sigmoids 1 / (1 + exp(-s (y - c))) (seed 001 eq. 4).

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
    """alpha_i: eq. 8 (step, ``smooth`` False) or eq. 9 (smooth) of seed 001 for every pair."""
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
    """The four sums of seed 001 eqs. 6 and 10 (with >= in both, NOTES.md) and the event counts.

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
            right[:] = big_p
            right_total = n_greater
        elif kth > n_geq - 1:
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
    # rest holds the candidates ranked left_total .. right_total - 1 in decreasing order.
    return rest[m - 1 - (kth - left_total)]


@njit(cache=True)
def medcouple_sorted(x):
    """Medcouple of ``x`` sorted ascending (n >= 1): the median of h over Z+ x Z-.

    For an even number of kernel values the median is the mean of the two middle ones (as in
    Brys et al.'s definition and statsmodels).
    """
    n = x.shape[0]
    med = x[n // 2] if n % 2 == 1 else 0.5 * (x[n // 2 - 1] + x[n // 2])
    scale = 0.0
    for i in range(n):
        a = abs(x[i] - med)
        if a > scale:
            scale = a
    if scale == 0.0:
        return 0.0
    scale *= 2.0
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
