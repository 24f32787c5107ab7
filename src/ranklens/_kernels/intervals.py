"""Kernel for interval scores: one pass over (y, lower, upper) for every weighted sum needed."""

from __future__ import annotations

import numpy as np
from numba import njit

# Partial sums are accumulated in blocks so rounding grows with n / BLOCK, not n.
BLOCK = 4096


@njit(cache=True)
def interval_sums(
    y: np.ndarray, lower: np.ndarray, upper: np.ndarray, w: np.ndarray, weighted: bool
) -> tuple[float, float, float, float, float]:
    """Weighted sums: (total weight, width, (lower - y)_+, (y - upper)_+, weight inside).

    The mean interval score is (width + 2/alpha * (below + above)) / total weight.
    """
    n = y.shape[0]
    totals = np.zeros(5)
    start = 0
    while start < n:
        stop = min(start + BLOCK, n)
        s_w = 0.0
        s_width = 0.0
        s_below = 0.0
        s_above = 0.0
        s_inside = 0.0
        for i in range(start, stop):
            wi = w[i] if weighted else 1.0
            lo = lower[i]
            up = upper[i]
            yi = y[i]
            s_w += wi
            s_width += wi * (up - lo)
            if yi < lo:
                s_below += wi * (lo - yi)
            elif yi > up:
                s_above += wi * (yi - up)
            else:
                s_inside += wi
        totals[0] += s_w
        totals[1] += s_width
        totals[2] += s_below
        totals[3] += s_above
        totals[4] += s_inside
        start = stop
    return totals[0], totals[1], totals[2], totals[3], totals[4]
