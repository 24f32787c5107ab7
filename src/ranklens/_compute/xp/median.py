"""The weighted median in NumPy, and the route between it and the selection kernel.

:func:`weighted_median` is the median absolute error's median: with weights the average of the
lower and upper weighted medians, found by the weighted quickselect of
:mod:`ranklens._compute.kernels.residual` (expected O(n), no sort), or on small inputs while that
kernel has no machine code by one sort in NumPy (:func:`weighted_thresholds_numpy`, the kernel's
value bit for bit, or None where only the kernel can tell);
:func:`ranklens._compute.xp.measure_routes.median_numpy` decides. :func:`weighted_median_replicates`
is the bootstrap's sweep over the replicates' weights.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._compute.xp import measure_routes as _routes
from ranklens._foundation.hinges import midpoint
from ranklens._foundation.validation import check_sample_weight

__all__ = [
    "weighted_median",
    "weighted_median_replicates",
    "weighted_thresholds_numpy",
]

FloatArray = NDArray[np.float64]


# Error bounds of the cumulative weights, in units of the total: the sorted running sum in
# extended precision (per addition) and the kernel's compensated sums (Neumaier 1974: a few
# units in the last place of the total, with room to spare).
_RUN_EPS = float(np.finfo(np.longdouble).eps)
_KERNEL_ERR = 8.0 * float(np.finfo(np.float64).eps)


def weighted_thresholds_numpy(
    values: FloatArray, w: FloatArray, lower: float, upper: float, order: Any = None
) -> tuple[float, float] | None:
    """``weighted_quantile_threshold(values, w, lower, False)`` and ``(..., upper, True)`` after
    one sort (``order``: a stable argsort of ``values``, if known); None where the kernel must
    decide.

    Notes
    -----
    The answer is the smallest distinct value ``x`` with ``W(v <= x) >= lower`` (``> upper``),
    else the largest value. The kernel forms ``W`` by compensated sums in the order its
    partitions leave, which NumPy cannot follow; here ``W`` at each distinct value is a running
    sum in sorted order in extended precision (``np.longdouble``), whose error is at most
    ``n * eps_ld * W_total``. Wherever ``|W - target|`` exceeds that bound plus the kernel's
    (``8 eps W_total``), both decide every comparison with the target as exact arithmetic
    does, so both return the same element: the kernel's value bit for bit. Otherwise (a
    cumulative weight within rounding of a target; where ``np.longdouble`` is ``float64`` the
    bound is wider) and where the answer is a zero present with both signs (the kernel returns
    whichever its pivot was), None: the kernel decides.
    """
    n = values.shape[0]
    if order is None:
        order = np.argsort(values, kind="stable")
    v = values[order]
    last = np.ones(n, dtype=bool)
    last[:-1] = v[1:] != v[:-1]  # the last row of each distinct value (-0.0 == 0.0)
    reach = np.cumsum(w[order], dtype=np.longdouble)[last]
    distinct = v[last]
    guard = (n * _RUN_EPS + _KERNEL_ERR) * reach[-1]
    if not (np.isfinite(guard) and math.isfinite(lower) and math.isfinite(upper)):
        return None
    found = []
    for target, strict in ((lower, False), (upper, True)):
        if abs(target) <= guard or np.abs(reach - target).min() <= guard:
            return None  # the empty prefix or a distinct value within rounding of the target
        hit = np.flatnonzero(reach > target if strict else reach >= target)
        found.append(float(distinct[hit[0]] if hit.size else distinct[-1]))
    if 0.0 in found:
        zeros = np.signbit(v[v == 0.0])
        if zeros.any() and not zeros.all():
            return None
    return found[0], found[1]


def weighted_median(values: FloatArray, w: FloatArray | None, order: Any = None) -> float:
    """Median; with weights the average of the lower and upper weighted medians.

    With ``W(x)`` the total weight of the values ``<= x`` and ``W`` the total: lower = smallest
    value with ``W(x) >= W/2``, upper = smallest value with ``W(x) > W/2``. Integer weights give
    the median of the repeated sample, zero weights drop rows, unit weights give ``np.median``.
    Found by weighted quickselect in expected O(n), without a sort; the search is bounded by n
    passes for any finite weights (see ``weighted_quantile_threshold``).
    """
    if w is None:
        n = values.shape[0]
        k = n // 2
        part = np.partition(values, [k - 1, k] if n % 2 == 0 else [k])
        return float(part[k]) if n % 2 else midpoint(float(part[k - 1]), float(part[k]))
    half = float(w.sum()) / 2.0
    # Weights arrive rescaled to mean 1, so integer weights are no longer integers and a
    # cumulative weight that is exactly half the total (the even case: average two values) comes
    # out a few units in the last place above or below it. Cumulative weights within ``tol`` of
    # half are taken as equal to it: the rescaling and the compensated sums of the kernel err by
    # at most (6 + log2 n) units of 2**-53 of the total, far below any one weight of an integer
    # weighting below 2**45 in total.
    tol = 64.0 * np.finfo(np.float64).eps * half
    if _routes.median_numpy(values.shape[0]):
        found = weighted_thresholds_numpy(values, w, half - tol, half + tol, order)
        if found is not None:
            return midpoint(*found)
    from ranklens._compute.kernels import residual as _kres  # imports numba

    lower = _kres.weighted_quantile_threshold(values, w, half - tol, False)
    upper = _kres.weighted_quantile_threshold(values, w, half + tol, True)
    return midpoint(float(lower), float(upper))


def weighted_median_replicates(residuals: FloatArray, weights: FloatArray, wanted: Any) -> Any:
    """Each replicate's weighted median by the function's own selection (expected O(n), no
    sort, no validation of the pair), on the residuals computed once."""
    out = np.full((weights.shape[0], len(wanted), residuals.shape[0]), np.nan)
    n = residuals.shape[1]
    # the NumPy form sorts each model's residuals once for every replicate
    orders: list[Any] = [None] * residuals.shape[0]
    if _routes.median_numpy(n):
        orders = [np.argsort(a, kind="stable") for a in residuals]
    for r in range(weights.shape[0]):
        if not weights[r].sum() > 0:
            continue  # the function refuses weights summing to 0
        w = check_sample_weight(weights[r], n)
        for m in range(residuals.shape[0]):
            out[r, :, m] = weighted_median(residuals[m], w, orders[m])
    return out
