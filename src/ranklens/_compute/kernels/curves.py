"""Numba kernels for the business curves (ROC, gain, lift, profit).

Pure numeric code. Every curve rests on one step: order the observations by decreasing score and
accumulate case weight, response and complement per *distinct* score, so tied scores form one
group (one curve point, straight segments across the tie). The ordering is an LSD radix sort of
order-preserving 64-bit keys that carries a payload along (the response itself when there are no
weights, else the row index): about four times faster than ``np.argsort`` at n = 1e7, and the
sorted keys decode back to the thresholds without a gather. That is what keeps each curve under
the 3 s budget (``docs/performance.md``). Validation lives in :mod:`ranklens.targeting`;
``tests/reference_curves.py`` holds the definitional twins.

The kernels only: whether a kernel runs or its NumPy form (the same arrays bit for bit) is
decided by the callers in :mod:`ranklens._compute.xp.ranked_keys`, by the sizes of
:mod:`ranklens._foundation.route`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ranklens._compute.kernels import _thread_pool  # noqa: F401  (launches numba's threads)

__all__ = [
    "decode_keys_kernel",
    "descending_keys_kernel",
    "group_sums_indexed_kernel",
    "group_sums_sorted_kernel",
    "interp_sorted",
    "lift_area",
    "radix_sort_kernel",
    "radix_sort_parallel",
    "roc_sums",
    "trapezoid",
]

_SIGN = np.uint64(1) << np.uint64(63)
_INF_KEY = np.uint64(0x7FF0000000000000)  # bit pattern of +inf
_RADIX_BITS = 8
_N_BUCKETS = 1 << _RADIX_BITS
_N_PASSES = 64 // _RADIX_BITS


@njit(cache=True)
def descending_keys_kernel(x):
    """uint64 keys whose ascending order is the *descending* order of the float64 ``x``.

    The IEEE-754 bit pattern is made monotone (flip all bits of negatives, set the sign bit of
    non-negatives) and then complemented. ``-0.0`` is mapped to ``+0.0`` first so that the two zeros
    are one tie group, as ``==`` says. :func:`ranklens._compute.xp.ranked_keys.descending_keys`
    calls it from ``POLICY.sort_numpy_below`` rows on (below, the NumPy form);
    :mod:`ranklens._compute.kernels.ranking` sorts with it too.

    Parameters
    ----------
    x : ndarray of float64
        The values, without NaN.

    Returns
    -------
    ndarray of uint64
        One key per value: a larger value has a smaller key, equal values equal keys.
    """
    n = x.shape[0]
    bits = x.view(np.uint64)
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        b = bits[i]
        if b == _SIGN:  # -0.0
            b = np.uint64(0)
        out[i] = b if b & _SIGN else ~(b | _SIGN)
    return out


@njit(cache=True)
def _decode(key):
    """The float64 bit pattern behind a key of :func:`descending_keys_kernel`."""
    return key if key & _SIGN else (~key) & ~_SIGN


@njit(cache=True)
def decode_keys_kernel(keys):
    """float64 values of keys made by :func:`descending_keys_kernel` (-0.0 comes back as +0.0)."""
    out = np.empty(keys.shape[0], dtype=np.uint64)
    for i in range(keys.shape[0]):
        out[i] = _decode(keys[i])
    return out.view(np.float64)


@njit(cache=True)
def radix_sort_kernel(keys, payload, carry):
    """Stable LSD radix sort of uint64 ``keys`` (8-bit digits; digits shared by all keys skipped).

    :func:`ranklens._compute.xp.ranked_keys.radix_sort` calls it from ``POLICY.sort_numpy_below``
    rows on; :mod:`ranklens._compute.kernels.ranking` sorts with it too.

    Parameters
    ----------
    keys : ndarray of uint64
        The keys, used as scratch space (pass a temporary, such as the output of
        :func:`descending_keys_kernel`).
    payload : ndarray
        Permuted along with the keys when ``carry`` (same length, any dtype); never modified.
    carry : bool
        Whether to permute ``payload``.

    Returns
    -------
    sorted_keys : ndarray of uint64
        The keys in ascending order.
    sorted_payload : ndarray
        ``payload`` in the keys' order (empty without ``carry``).
    """
    n = keys.shape[0]
    mask = np.uint64(_N_BUCKETS - 1)
    hist = np.zeros((_N_PASSES, _N_BUCKETS), dtype=np.int64)
    for i in range(n):
        k = keys[i]
        for p in range(_N_PASSES):
            hist[p, (k >> np.uint64(p * _RADIX_BITS)) & mask] += 1
    cur_keys = keys
    nxt_keys = np.empty(n, dtype=np.uint64)
    # Two scratch buffers of our own for the payload: the caller's payload is only ever read
    # (it may be a read-only view, and numba types read-only and writable arrays differently).
    m = n if carry else 0
    cur_load = np.empty(m, dtype=payload.dtype)
    nxt_load = np.empty(m, dtype=payload.dtype)
    moved = False
    offsets = np.empty(_N_BUCKETS, dtype=np.int64)
    for p in range(_N_PASSES):
        trivial = False
        for b in range(_N_BUCKETS):
            if hist[p, b] == n:  # every key has this digit: the pass would move nothing
                trivial = True
                break
        if trivial:
            continue
        total = 0
        for b in range(_N_BUCKETS):
            offsets[b] = total
            total += hist[p, b]
        shift = np.uint64(p * _RADIX_BITS)
        if carry and not moved:  # first moving pass: read the caller's payload
            for i in range(n):
                k = cur_keys[i]
                d = (k >> shift) & mask
                j = offsets[d]
                offsets[d] = j + 1
                nxt_keys[j] = k
                nxt_load[j] = payload[i]
            cur_load, nxt_load = nxt_load, cur_load
        elif carry:
            for i in range(n):
                k = cur_keys[i]
                d = (k >> shift) & mask
                j = offsets[d]
                offsets[d] = j + 1
                nxt_keys[j] = k
                nxt_load[j] = cur_load[i]
            cur_load, nxt_load = nxt_load, cur_load
        else:
            for i in range(n):
                k = cur_keys[i]
                d = (k >> shift) & mask
                j = offsets[d]
                offsets[d] = j + 1
                nxt_keys[j] = k
        moved = True
        cur_keys, nxt_keys = nxt_keys, cur_keys
    if carry and not moved:
        # A loop, not ``cur_load[:] = payload``: numba's slice assignment brings its broadcasting
        # checks, whose error messages alone took 2 s to compile (docs/performance.md).
        for i in range(n):
            cur_load[i] = payload[i]
    return cur_keys, cur_load


#: Chunks of rows the parallel radix sort counts and moves independently (more than threads:
#: the chunks balance; the result does not depend on the count).
_SORT_CHUNKS = 64


@njit(cache=True, parallel=True)
def radix_sort_parallel(keys, payload, carry):
    """:func:`radix_sort_kernel` with every pass split into chunks of rows in parallel.

    Each chunk counts its digits, the chunks' slots follow from the counts (bucket by bucket,
    chunk by chunk), and each chunk moves its rows to them in order, so the sort is as stable
    and the result the same. The parameters and returns are :func:`radix_sort_kernel`'s.
    """
    n = keys.shape[0]
    mask = np.uint64(_N_BUCKETS - 1)
    chunks = _SORT_CHUNKS
    step = (n + chunks - 1) // chunks
    counts = np.zeros((chunks, _N_BUCKETS), dtype=np.int64)
    slots = np.empty((chunks, _N_BUCKETS), dtype=np.int64)
    cur_keys = keys
    nxt_keys = np.empty(n, dtype=np.uint64)
    m = n if carry else 0
    cur_load = np.empty(m, dtype=payload.dtype)
    nxt_load = np.empty(m, dtype=payload.dtype)
    if carry:  # the caller's payload, copied once (it is only read)
        for c in prange(chunks):
            for i in range(c * step, min(n, (c + 1) * step)):
                cur_load[i] = payload[i]
    for p in range(_N_PASSES):
        shift = np.uint64(p * _RADIX_BITS)
        for c in prange(chunks):
            row = counts[c]
            for b in range(_N_BUCKETS):
                row[b] = 0
            for i in range(c * step, min(n, (c + 1) * step)):
                row[(cur_keys[i] >> shift) & mask] += 1
        trivial = False  # every key has the same digit: the pass would move nothing
        for b in range(_N_BUCKETS):
            total = 0
            for c in range(chunks):
                total += counts[c, b]
            if total == n:
                trivial = True
        if trivial:
            continue
        running = 0
        for b in range(_N_BUCKETS):
            for c in range(chunks):
                slots[c, b] = running
                running += counts[c, b]
        for c in prange(chunks):
            slot = slots[c]
            for i in range(c * step, min(n, (c + 1) * step)):
                k = cur_keys[i]
                d = (k >> shift) & mask
                j = slot[d]
                slot[d] = j + 1
                nxt_keys[j] = k
                if carry:
                    nxt_load[j] = cur_load[i]
        cur_keys, nxt_keys = nxt_keys, cur_keys
        cur_load, nxt_load = nxt_load, cur_load
    return cur_keys, cur_load


@njit(cache=True)
def _n_groups(sorted_keys):
    n = sorted_keys.shape[0]
    count = 0
    for i in range(n):
        if i == n - 1 or sorted_keys[i + 1] != sorted_keys[i]:
            count += 1
    return count


@njit(cache=True)
def _group_arrays(n_groups):
    size = n_groups + 1  # row 0 is "nobody targeted": threshold +inf, all sums 0
    thr = np.empty(size, dtype=np.uint64)
    cw = np.empty(size, dtype=np.float64)
    cr = np.empty(size, dtype=np.float64)
    cc = np.empty(size, dtype=np.float64)
    thr[0] = _INF_KEY
    cw[0] = 0.0
    cr[0] = 0.0
    cc[0] = 0.0
    return thr, cw, cr, cc


@njit(cache=True)
def group_sums_sorted_kernel(sorted_keys, sorted_response):
    """Unweighted cumulative sums at the end of each tie group of the ranked rows.

    ``sorted_response`` is aligned with ``sorted_keys`` (carried by :func:`radix_sort_kernel`).
    Returns ``(threshold_bits, cum_weight, cum_response, cum_complement)`` of length
    ``groups + 1``, row 0 being nobody targeted (threshold +inf); view ``threshold_bits`` as
    float64.
    """
    thr, cw, cr, cc = _group_arrays(_n_groups(sorted_keys))
    n = sorted_keys.shape[0]
    sr = 0.0
    sc = 0.0
    g = 1
    for i in range(n):
        r = sorted_response[i]
        sr += r
        sc += 1.0 - r
        if i == n - 1 or sorted_keys[i + 1] != sorted_keys[i]:
            thr[g] = _decode(sorted_keys[i])
            cw[g] = i + 1.0
            cr[g] = sr
            cc[g] = sc
            g += 1
    return thr, cw, cr, cc


@njit(cache=True)
def group_sums_indexed_kernel(sorted_keys, order, response, weight):
    """Weighted version of :func:`group_sums_sorted_kernel`: ``order`` (the carried row index) picks
    ``response`` and ``weight``; sums are of ``w``, ``w r`` and ``w (1 - r)``."""
    thr, cw, cr, cc = _group_arrays(_n_groups(sorted_keys))
    n = sorted_keys.shape[0]
    sw = 0.0
    sr = 0.0
    sc = 0.0
    g = 1
    for i in range(n):
        j = order[i]
        w = weight[j]
        r = response[j]
        sw += w
        sr += w * r
        sc += w * (1.0 - r)
        if i == n - 1 or sorted_keys[i + 1] != sorted_keys[i]:
            thr[g] = _decode(sorted_keys[i])
            cw[g] = sw
            cr[g] = sr
            cc[g] = sc
            g += 1
    return thr, cw, cr, cc


@njit(cache=True)
def interp_sorted(xq, xp, fp):
    """``np.interp(xq, xp, fp)`` for non-decreasing ``xq`` and increasing ``xp``, in one merge.

    O(len(xq) + len(xp)) instead of a binary search per query; queries outside ``xp`` take the
    end values, as ``np.interp`` does.
    """
    m = xp.shape[0]
    out = np.empty(xq.shape[0], dtype=np.float64)
    j = 0
    for i in range(xq.shape[0]):
        x = xq[i]
        while j < m - 1 and xp[j + 1] < x:
            j += 1
        if x <= xp[0]:
            out[i] = fp[0]
        elif x >= xp[m - 1]:
            out[i] = fp[m - 1]
        else:
            x0 = xp[j]
            x1 = xp[j + 1]
            out[i] = fp[j] + (fp[j + 1] - fp[j]) * (x - x0) / (x1 - x0) if x1 > x0 else fp[j + 1]
    return out


@njit(cache=True)
def trapezoid(x, y):
    """Area under the polyline through (x, y) (``np.trapezoid`` without temporaries)."""
    area = 0.0
    for i in range(1, x.shape[0]):
        area += (x[i] - x[i - 1]) * (y[i] + y[i - 1])
    return 0.5 * area


@njit(cache=True)
def roc_sums(tp, fp, p, n):
    """``(sum of dFP (TP_prev + TP), max(TP/p - FP/n))`` over the ROC points (counts, not rates).

    The first is twice the AUC times p n: summing counts and dividing once keeps integer counts
    exact below 2**53.
    """
    twice = 0.0
    ks = 0.0
    for i in range(1, tp.shape[0]):
        twice += (fp[i] - fp[i - 1]) * (tp[i] + tp[i - 1])
        gap = tp[i] / p - fp[i] / n
        if gap > ks:
            ks = gap
    return twice, ks


@njit(cache=True)
def lift_area(x, g):
    """Exact integral of g(x)/x over (0, 1] for the polyline g through (x, g), x[0] = 0.

    On a segment g = a + b x, so the integral is a ln(x1/x0) + b (x1 - x0); on the first segment
    a = 0 (the curve starts at the origin), which leaves g(x1). ``x`` is strictly increasing.
    """
    area = g[1]
    for i in range(2, x.shape[0]):
        x0 = x[i - 1]
        dx = x[i] - x0
        b = (g[i] - g[i - 1]) / dx
        a = g[i - 1] - b * x0
        area += a * math.log1p(dx / x0) + b * dx
    return area
