"""NumPy forms of the small curve kernels: areas, the ROC sums and the sorted interpolation.

:func:`trapezoid_numpy`, :func:`roc_sums_numpy`, :func:`interp_sorted_numpy` and
:func:`lift_area_numpy` take the arguments of :func:`ranklens._compute.kernels.curves.trapezoid`,
``roc_sums``, ``interp_sorted`` and ``lift_area`` and return their numbers bit for bit: every term
is the kernel's expression with its operations in the kernel's order, and every sequential sum of a
kernel is a sequential ``np.cumsum`` started from the kernel's first value (never ``np.sum``, whose
pairwise order rounds differently). A small curve on a process whose kernels are not loaded runs
these instead (below ``ranklens._foundation.route.POLICY.curve_helpers_numpy_below`` points):
loading the first kernel costs importing numba and starting LLVM (0.5-0.8 s), more than the whole
curve. :func:`trapezoid`, :func:`roc_sums`, :func:`interp_sorted` and :func:`lift_area` take that
route (:func:`ranklens._compute.xp.measure_routes.curve_helper_numpy`) and call the form it picks.

Formulas
--------
With points ``(x_i, y_i)``, ``i = 0..m-1``:

* trapezoid area: ``0.5 * sum_{i>=1} (x_i - x_{i-1}) (y_i + y_{i-1})``;
* ROC sums over the counts ``(FP_i, TP_i)``: ``sum_{i>=1} (FP_i - FP_{i-1}) (TP_{i-1} + TP_i)``
  (twice the AUC times ``P N``; Hanley & McNeil 1982) and the Kolmogorov-Smirnov statistic
  ``max(0, max_i TP_i / P - FP_i / N)``;
* the lift area (the integral of ``g(x) / x`` over ``(0, 1]`` of the polyline ``g`` through the
  gain curve): ``g_1 + sum_{i>=2} a_i ln(1 + dx_i / x_{i-1}) + b_i dx_i`` with
  ``b_i = (g_i - g_{i-1}) / dx_i`` and ``a_i = g_{i-1} - b_i x_{i-1}``;
* the interpolation: ``f_j + (f_{j+1} - f_j) (x - x_j) / (x_{j+1} - x_j)`` on the segment ``j``
  the kernel's merge reaches, the end values beyond the ends.

The logarithm is Python's ``math.log1p`` per term (the C library's ``log1p``, which the kernel
calls too), not ``np.log1p``, whose SIMD form may round differently. All four are O(m) (the
interpolation O((m + q) log m) with a binary search per query).

References
----------
Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area under a receiver
operating characteristic (ROC) curve. *Radiology* 143(1), 29-36.
"""

from __future__ import annotations

import math
from types import ModuleType

import numpy as np

from ranklens._compute.xp import measure_routes as _routes

__all__ = [
    "interp_sorted",
    "interp_sorted_numpy",
    "lift_area",
    "lift_area_numpy",
    "roc_sums",
    "roc_sums_numpy",
    "trapezoid",
    "trapezoid_numpy",
]


def _sequential_sum(start: float, terms: np.ndarray) -> float:
    """``((start + terms[0]) + terms[1]) + ...``: the sum of a loop that starts from ``start``."""
    if terms.shape[0] == 0:
        return float(start)
    acc = np.empty(terms.shape[0] + 1, dtype=np.float64)
    acc[0] = start
    acc[1:] = terms
    return float(np.cumsum(acc)[-1])


def _f64(a: object) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def trapezoid_numpy(x: object, y: object) -> float:
    """``ranklens._compute.kernels.curves.trapezoid(x, y)`` bit for bit: the area under the
    polyline."""
    x, y = _f64(x), _f64(y)
    m = x.shape[0]
    if m < 2:
        return 0.5 * 0.0
    terms = (x[1:m] - x[: m - 1]) * (y[1:m] + y[: m - 1])
    return 0.5 * _sequential_sum(0.0, terms)


def roc_sums_numpy(tp: object, fp: object, p: float, n: float) -> tuple[float, float]:
    """``ranklens._compute.kernels.curves.roc_sums(tp, fp, p, n)`` bit for bit: ``(sum of dFP
    (TP_prev + TP), KS)`` over the ROC points in counts. ``p`` or ``n`` zero with two points or more
    raises :class:`ZeroDivisionError`, as the kernel does."""
    tp, fp = _f64(tp), _f64(fp)
    m = tp.shape[0]
    if m < 2:
        return 0.0, 0.0
    if p == 0.0 or n == 0.0:
        raise ZeroDivisionError("division by zero")
    twice = _sequential_sum(0.0, (fp[1:] - fp[:-1]) * (tp[:-1] + tp[1:]))
    gap = tp[1:] / float(p) - fp[1:] / float(n)
    above = gap[gap > 0.0]  # the kernel keeps the first strictly larger value; NaN never is
    ks = float(above.max()) if above.shape[0] else 0.0
    return twice, ks


def interp_sorted_numpy(xq: object, xp: object, fp: object) -> np.ndarray:
    """``ranklens._compute.kernels.curves.interp_sorted(xq, xp, fp)`` bit for bit (``xp`` non-empty
    and non-decreasing).

    The kernel's merge pointer at query ``i`` is the running maximum over the queries up to ``i``
    of the number of ``xp[1:]`` below the query (a NaN query does not move it), found here by
    one binary search per query and ``np.maximum.accumulate``; the value is then the kernel's
    expression on that segment.
    """
    xq, xp, fp = _f64(xq), _f64(xp), _f64(fp)
    m = xp.shape[0]
    q = xq.shape[0]
    if q == 0:
        return np.empty(0, dtype=np.float64)
    if m < 2:
        return np.full(q, fp[0])
    below = np.searchsorted(xp[1:], xq, side="left")  # how many xp[1:] < x (x not NaN)
    below[np.isnan(xq)] = 0
    j = np.minimum(np.maximum.accumulate(below), m - 2)
    x0, x1 = xp[j], xp[j + 1]
    f0, f1 = fp[j], fp[j + 1]
    with np.errstate(all="ignore"):
        mid = np.where(x1 > x0, f0 + (f1 - f0) * (xq - x0) / (x1 - x0), f1)
    return np.where(xq <= xp[0], fp[0], np.where(xq >= xp[m - 1], fp[m - 1], mid))


def lift_area_numpy(x: object, g: object) -> float:
    """``ranklens._compute.kernels.curves.lift_area(x, g)`` bit for bit: the exact integral of
    g(x)/x over (0, 1] of the polyline through (x, g), ``x[0] = 0`` and ``x`` strictly increasing. A
    repeated or zero ``x[1:]`` raises :class:`ZeroDivisionError`, as the kernel does."""
    x, g = _f64(x), _f64(g)
    start = float(g[1])
    if x.shape[0] < 3:
        return start
    x0 = x[1:-1]
    dx = x[2:] - x0
    if not (np.all(dx != 0.0) and np.all(x0 != 0.0)):
        raise ZeroDivisionError("division by zero")
    b = (g[2:] - g[1:-1]) / dx
    a = g[1:-1] - b * x0
    logs = np.fromiter(map(math.log1p, (dx / x0).tolist()), dtype=np.float64, count=dx.shape[0])
    return _sequential_sum(start, a * logs + b * dx)


def _curve_kernels() -> ModuleType:
    """:mod:`ranklens._compute.kernels.curves` (importing it imports numba)."""
    from ranklens._compute.kernels import curves

    return curves


def trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    """The trapezoid area of the points ``(x, y)``, by the kernel or its NumPy form."""
    if _routes.curve_helper_numpy(x.shape[0], lambda: _curve_kernels().trapezoid):
        return trapezoid_numpy(x, y)
    return float(_curve_kernels().trapezoid(x, y))


def interp_sorted(xq: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """``fp`` interpolated at the sorted queries ``xq``, by the kernel or its NumPy form."""
    if _routes.curve_helper_numpy(
        max(xq.shape[0], xp.shape[0]), lambda: _curve_kernels().interp_sorted
    ):
        return interp_sorted_numpy(xq, xp, fp)
    return np.asarray(_curve_kernels().interp_sorted(xq, xp, fp))


def roc_sums(tp: np.ndarray, fp: np.ndarray, p: float, n: float) -> tuple[float, float]:
    """Twice the AUC times ``p n`` and the KS statistic, by the kernel or its NumPy form."""
    if _routes.curve_helper_numpy(tp.shape[0], lambda: _curve_kernels().roc_sums):
        return roc_sums_numpy(tp, fp, p, n)
    twice, ks = _curve_kernels().roc_sums(tp, fp, p, n)
    return twice, ks


def lift_area(x: np.ndarray, g: np.ndarray) -> float:
    """The area under the lift curve of the gain polyline, by the kernel or its NumPy form."""
    if _routes.curve_helper_numpy(x.shape[0], lambda: _curve_kernels().lift_area):
        return lift_area_numpy(x, g)
    return float(_curve_kernels().lift_area(x, g))
