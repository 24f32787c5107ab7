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

__all__ = ["binary_exponent", "ldexp", "scaled"]

FloatArray = NDArray[np.float64]


def ldexp(x: float, e: int) -> float:
    """``x * 2**e`` with IEEE overflow to inf and gradual underflow (``math.ldexp`` raises)."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.ldexp(np.float64(x), e))


def binary_exponent(big: float) -> int:
    """``e`` with ``big = m 2**e``, ``m`` in [0.5, 1); 0 for 0 (nothing to scale)."""
    return math.frexp(big)[1] if big > 0 else 0


def scaled(x: FloatArray) -> tuple[FloatArray, int]:
    """``x = xs * 2**e`` with ``max |xs|`` in [0.5, 1) (``xs = x``, ``e = 0`` for all zeros).

    Multiplying by a power of two is exact for every result above the subnormal range, so the
    scaled values carry the same digits; values below ``2**-1022`` times the largest lose
    precision, but they are too small to change a sum or a mean of squares of these values.
    """
    e = binary_exponent(float(np.max(np.abs(x))))
    return (np.ldexp(x, -e) if e else x), e
