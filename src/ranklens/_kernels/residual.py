"""Numba kernels for the residual measures: weighted median by selection, expected O(n)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def weighted_quantile_threshold(
    values: np.ndarray, weights: np.ndarray, target: float, strict: bool
) -> float:
    """Smallest ``x`` among ``values`` with ``W(v <= x) >= target`` (``> target`` if ``strict``).

    ``W(v <= x)`` is the total weight of the values not above ``x``. Weighted quickselect with a
    three-way partition around a median-of-three pivot: expected O(n), no full sort. The inputs
    are copied, not modified. ``target`` must be below the total weight (``<=`` when not strict).
    """
    v = values.copy()
    w = weights.copy()
    lo, hi = 0, v.shape[0]
    below = 0.0  # weight of the values known to lie below the active range [lo, hi)
    while True:
        a, b, c = v[lo], v[(lo + hi) // 2], v[hi - 1]
        pivot = max(min(a, b), min(max(a, b), c))
        # Dutch-flag partition of [lo, hi) into < pivot, == pivot, > pivot
        lt, i, gt = lo, lo, hi
        w_less = 0.0
        w_equal = 0.0
        while i < gt:
            x = v[i]
            if x < pivot:
                v[i], v[lt] = v[lt], v[i]
                w[i], w[lt] = w[lt], w[i]
                w_less += w[lt]
                lt += 1
                i += 1
            elif x > pivot:
                gt -= 1
                v[i], v[gt] = v[gt], v[i]
                w[i], w[gt] = w[gt], w[i]
            else:
                w_equal += w[i]
                i += 1
        reach_less = below + w_less
        if (reach_less > target) if strict else (reach_less >= target):
            hi = lt  # the answer is a value below the pivot
            continue
        reach_equal = reach_less + w_equal
        if (reach_equal > target) if strict else (reach_equal >= target):
            return pivot
        below = reach_equal
        lo = gt
