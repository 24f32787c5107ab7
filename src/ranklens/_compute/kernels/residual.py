"""Numba kernels for the residual measures: weighted median by selection, expected O(n)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(inline="always")
def _add(s: float, c: float, x: float) -> tuple[float, float]:
    """Neumaier's compensated ``s + x``: the pair ``(s, c)`` holds the sum as ``s + c``."""
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c


@njit(cache=True)
def weighted_quantile_threshold(
    values: np.ndarray, weights: np.ndarray, target: float, strict: bool
) -> float:
    """Smallest ``x`` among ``values`` with ``W(v <= x) >= target`` (``> target`` if ``strict``).

    ``W(v <= x)`` is the total weight of the values not above ``x``. Weighted quickselect with a
    three-way partition around a median-of-three pivot: expected O(n), no full sort. The inputs
    are copied, not modified. When no value reaches ``target`` (a target at or above the total
    weight, an infinite target, or round-off in the running sums) the largest value is returned.
    The running sums are compensated (Neumaier 1974), so their error is a few units in the last
    place of the total, whatever n: the caller can tell a cumulative weight equal to the target
    (a tie between the lower and upper median) from one that is not, up to that rounding.

    Termination does not depend on float arithmetic: every pass either returns or continues on
    the part strictly below or strictly above the pivot, and the pivot is one of the active
    values, so the active range ``[lo, hi)`` loses at least one element per pass; a pass whose
    chosen part is empty returns instead. Hence at most ``n`` passes, whatever the weights.
    """
    v = values.copy()
    w = weights.copy()
    lo, hi = 0, v.shape[0]
    below = 0.0  # weight of the values known to lie below the active range [lo, hi)
    below_c = 0.0  # its compensation term
    for _ in range(v.shape[0]):
        a, b, c = v[lo], v[(lo + hi) // 2], v[hi - 1]
        pivot = max(min(a, b), min(max(a, b), c))
        # Dutch-flag partition of [lo, hi) into < pivot, == pivot, > pivot
        lt, i, gt = lo, lo, hi
        w_less, less_c = 0.0, 0.0
        w_equal, equal_c = 0.0, 0.0
        while i < gt:  # each step moves i up or gt down: at most hi - lo steps
            x = v[i]
            if x < pivot:
                v[i], v[lt] = v[lt], v[i]
                w[i], w[lt] = w[lt], w[i]
                w_less, less_c = _add(w_less, less_c, w[lt])
                lt += 1
                i += 1
            elif x > pivot:
                gt -= 1
                v[i], v[gt] = v[gt], v[i]
                w[i], w[gt] = w[gt], w[i]
            else:
                w_equal, equal_c = _add(w_equal, equal_c, w[i])
                i += 1
        s_less, c_less = _add(below, below_c, w_less)
        s_less, c_less = _add(s_less, c_less, less_c)
        reach_less = s_less + c_less
        if (reach_less > target) if strict else (reach_less >= target):
            if lt == lo:
                # Nothing active lies below the pivot, which is then the smallest active value
                # and qualifies (only a target <= 0 gets here: on later passes ``below`` alone
                # fell short of the target). Returning keeps the range from becoming empty.
                return pivot
            hi = lt  # the answer is a value below the pivot
            continue
        s_equal, c_equal = _add(s_less, c_less, w_equal)
        s_equal, c_equal = _add(s_equal, c_equal, equal_c)
        reach_equal = s_equal + c_equal
        if (reach_equal > target) if strict else (reach_equal >= target):
            return pivot
        if gt == hi:
            # Nothing lies above the pivot, yet the running sum stays short of the target: the
            # target is the total weight (or beyond it, e.g. an overflowed total) or round-off
            # kept the sum just below it. The largest value is the answer.
            return pivot
        below, below_c = s_equal, c_equal
        lo = gt
    return v[lo]  # pragma: no cover - the loop returns within n passes (see the docstring)
