"""Power-of-two scaling: sums and squares of values of any magnitude, without overflow.

Multiplying by a power of two is exact (above the subnormal range), so data are scaled into
[0.5, 1) before squaring or summing and the result is scaled back once: a mean square of values
near 1e200, or a ratio of values near 1e-200, is computed whenever the answer is representable
(the approach of LAPACK's ``dnrm2`` and of ``numpy.hypot``, for whole arrays).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "PRODUCT_SAFE_EXPONENT",
    "binary_exponent",
    "ldexp",
    "product_exponent",
    "scaled",
    "scaled_residuals",
]

FloatArray = NDArray[np.float64]


def ldexp(x: float, e: int) -> float:
    """``x * 2**e`` with IEEE overflow to inf and gradual underflow (``math.ldexp`` raises)."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.ldexp(np.float64(x), e))


def binary_exponent(big: float) -> int:
    """``e`` with ``big = m 2**e``, ``m`` in [0.5, 1); 0 for 0 (nothing to scale)."""
    return math.frexp(big)[1] if big > 0 else 0


#: Sums whose binary exponent lies within this bound are used as they are by
#: :func:`product_exponent`: products of up to four of them, summed over up to ``2**64`` terms,
#: stay far from overflow (``2**1024``) and from the subnormal range (``2**-1022``).
PRODUCT_SAFE_EXPONENT = 128


def product_exponent(total: float) -> int:
    """The power of two to divide weights by before products of their sums are formed.

    The ratio measures of case weights (an AUC ``sum dFP (TP + TP_prev) / (2 P N)``, DeLong's
    variance ``sum phi^2 / (sum w d)^2`` with ``phi = w (psi - C d)``) multiply two to four sums
    of weights: weights near ``1e200`` overflow those products and weights near ``1e-300``
    underflow them to 0, although the ratio does not depend on the scale. Dividing every weight
    by ``2**e`` (``e`` the binary exponent of ``total``, the largest sum) brings the sums into
    [0.5, 1) and changes no rounding anywhere (a power of two only shifts exponents), so the
    ratio comes out bit for bit as with weights of ordinary size; integer counts stay exact.
    ``e`` is 0 when ``total`` is within ``2**-PRODUCT_SAFE_EXPONENT`` and
    ``2**PRODUCT_SAFE_EXPONENT`` (nothing to do, nothing copied).

    Parameters
    ----------
    total : float
        The largest sum of weights that enters a product (finite and non-negative).

    Returns
    -------
    int
        ``e`` such that the sums divided by ``2**e`` are safe to multiply; 0 when they already are.
    """
    e = binary_exponent(total)
    return e if abs(e) > PRODUCT_SAFE_EXPONENT else 0


def scaled(x: FloatArray) -> tuple[FloatArray, int]:
    """``x = xs * 2**e`` with ``max |xs|`` in [0.5, 1) (``xs = x``, ``e = 0`` for all zeros).

    Multiplying by a power of two is exact for every result above the subnormal range, so the
    scaled values carry the same digits; values below ``2**-1022`` times the largest lose
    precision, but they are too small to change a sum or a mean of squares of these values.
    """
    e = binary_exponent(float(np.max(np.abs(x))))
    return (np.ldexp(x, -e) if e else x), e


def scaled_residuals(y: FloatArray, p: FloatArray) -> tuple[FloatArray, int]:
    """Residuals ``y - p = rs * 2**e`` with ``max |rs|`` in [0.5, 1).

    Squaring ``rs`` instead of ``y - p`` is the scaling of LAPACK's ``dnrm2`` and of ``hypot``:
    ``sum r_i^2`` overflows for ``|r| > 1.3e154`` and underflows for ``|r| < 1.5e-154``, although
    RMSE and RMSPE are representable far beyond both. A residual beyond the largest float
    (``y`` and ``p`` of opposite signs near 1.8e308) is taken as twice the difference of the
    halves, which is exact for normal numbers.

    Parameters
    ----------
    y, p : ndarray of float64
        The values and those subtracted from them (finite).

    Returns
    -------
    rs : ndarray of float64
        The scaled residuals.
    e : int
        The binary exponent: ``y - p = rs * 2**e``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        r = y - p
    if not np.isfinite(r).all():
        rs, e = scaled(0.5 * y - 0.5 * p)
        return rs, e + 1
    return scaled(r)
