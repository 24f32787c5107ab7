"""Numba kernel of the isotonic recalibration: pool-adjacent-violators on weighted group means."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def pav_block_means(means: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pool-adjacent-violators of weighted group means, left to right: each block's value and
    its first group (arrays of the number of blocks).

    The operations of :func:`ranklens._compute.xp.isotonic.pav_means_numpy` in the same order,
    so the same numbers bit for bit: a group is pooled into the block before it while that
    block's value is not below its own, the pooled value ``(v_b m_b + v m) / (m_b + m)``. Each
    group is pushed once and popped at most once: O(n).
    """
    n = means.shape[0]
    values = np.empty(n)
    masses = np.empty(n)
    firsts = np.empty(n, dtype=np.int64)
    top = 0
    for g in range(n):
        v = means[g]
        m = weights[g]
        first = g
        while top > 0 and values[top - 1] >= v:
            top -= 1
            total = masses[top] + m
            v = (values[top] * masses[top] + v * m) / total
            m = total
            first = firsts[top]
        values[top] = v
        masses[top] = m
        firsts[top] = first
        top += 1
    return values[:top].copy(), firsts[:top].copy()
