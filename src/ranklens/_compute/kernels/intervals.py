"""Kernels for interval scores: one pass over (y, lower, upper) for every weighted sum needed.

The sums are taken of differences scaled by a power of two (``post``, chosen by the caller from
:func:`interval_max_deviation`), so that neither widths near the largest float nor penalties
near the smallest overflow or underflow on the way to a representable mean score; the caller
multiplies the means back. ``pre`` (1 or 1/2) halves the inputs first when a difference itself
would exceed the largest float (bounds of opposite signs near 1.8e308).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Partial sums are accumulated in blocks so rounding grows with n / BLOCK, not n.
BLOCK = 4096


@njit(cache=True)
def interval_max_deviation(
    y: np.ndarray, lower: np.ndarray, upper: np.ndarray, pre: float
) -> float:
    """Largest of ``u - l``, ``(l - y)_+`` and ``(y - u)_+`` over rows (inputs times ``pre``)."""
    big = 0.0
    for i in range(y.shape[0]):
        lo = pre * lower[i]
        up = pre * upper[i]
        yi = pre * y[i]
        d = up - lo
        if yi < lo:
            d = max(d, lo - yi)
        elif yi > up:
            d = max(d, yi - up)
        if d > big or d != d:
            big = d
    return big


@njit(cache=True)
def interval_sums(
    y: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    w: np.ndarray,
    weighted: bool,
    pre: float,
    post: float,
    post2: float,
) -> tuple[float, float, float, float, float]:
    """Weighted sums: (total weight, width, (lower - y)_+, (y - upper)_+, weight inside).

    Every difference of ``pre * inputs`` is multiplied by ``post`` and then ``post2`` (powers of
    two; two factors so that scaling up from the subnormal range stays within the floats). The
    mean interval score is ``(width + 2/alpha * (below + above)) / total weight / (post post2)``.
    """
    n = y.shape[0]
    totals = np.zeros(5)
    start = 0
    while start < n:  # integer steps of BLOCK: bounded by n / BLOCK + 1 passes
        stop = min(start + BLOCK, n)
        s_w = 0.0
        s_width = 0.0
        s_below = 0.0
        s_above = 0.0
        s_inside = 0.0
        for i in range(start, stop):
            wi = w[i] if weighted else 1.0
            lo = pre * lower[i]
            up = pre * upper[i]
            yi = pre * y[i]
            s_w += wi
            s_width += wi * ((up - lo) * post * post2)
            if yi < lo:
                s_below += wi * ((lo - yi) * post * post2)
            elif yi > up:
                s_above += wi * ((yi - up) * post * post2)
            else:
                s_inside += wi
        totals[0] += s_w
        totals[1] += s_width
        totals[2] += s_below
        totals[3] += s_above
        totals[4] += s_inside
        start = stop
    return totals[0], totals[1], totals[2], totals[3], totals[4]
