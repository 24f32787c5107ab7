"""The curves' ranking step (order by decreasing score, sums per tie group) without numba.

:func:`descending_keys`, :func:`decode_keys`, :func:`radix_sort`, :func:`group_sums_sorted`,
:func:`group_sums_indexed` and :func:`ranked_order` take the arguments of the functions of the same
names in :mod:`ranklens._kernels.curves` and return their arrays bit for bit. While that module is
not imported, a call on fewer than ``ranklens._route.POLICY.sort_numpy_below`` rows runs the NumPy
forms below (a stable sort of the same order-preserving keys; sequential cumulative sums, as the
kernels add), so a small first call (a warm ``ranklens evaluate`` of a few hundred rows) does not
import numba (0.5 s with LLVM's start); otherwise the call goes to :mod:`ranklens._kernels.curves`,
whose own rule picks the kernel or the same NumPy form (it also knows about kernels in numba's
on-disk cache, and ``ranklens warmup`` imports it). O(n log n).

The keys: the IEEE-754 bit pattern of a float64 made monotone (flip all bits of negatives, set
the sign bit of non-negatives) and complemented, ``-0.0`` mapped to ``+0.0`` first so that the two
zeros are one tie group, as ``==`` says; ascending keys are descending scores (Knuth 1998, the
radix sort's key transformation of floating-point numbers).

References
----------
Knuth, D. E. (1998). *The Art of Computer Programming, Volume 3: Sorting and Searching*, 2nd ed.
Addison-Wesley. Section 5.2.5, sorting by distribution.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ranklens._kernels import LazyKernels
from ranklens._route import POLICY

__all__ = [
    "decode_keys",
    "decode_numpy",
    "descending_keys",
    "descending_keys_numpy",
    "group_ends",
    "group_sums_indexed",
    "group_sums_numpy",
    "group_sums_sorted",
    "radix_sort",
    "ranked_order",
]

_KERNELS = "ranklens._kernels.curves"
_kc: Any = LazyKernels(_KERNELS)  # numba is imported on the first attribute access

_SIGN = np.uint64(1) << np.uint64(63)
_INF_KEY = np.uint64(0x7FF0000000000000)  # bit pattern of +inf


def _numpy_route(n: int) -> bool:
    """Whether a step on ``n`` rows runs here in NumPy, without importing the kernel module:
    below ``POLICY.sort_numpy_below`` rows (:mod:`ranklens._route`, the kernel module's number
    too) while :mod:`ranklens._kernels.curves` is not imported (once it is, its rule decides)."""
    return n < POLICY.sort_numpy_below and _KERNELS not in sys.modules


def descending_keys_numpy(x: np.ndarray) -> np.ndarray:
    """uint64 keys whose ascending order is the descending order of the float64 ``x`` (no NaN)."""
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
    bits = np.where(bits == _SIGN, np.uint64(0), bits)
    return np.where(bits & _SIGN, bits, ~(bits | _SIGN))


def decode_numpy(keys: np.ndarray) -> np.ndarray:
    """The float64 bit patterns (uint64) behind keys of :func:`descending_keys`."""
    return np.where(keys & _SIGN, keys, (~keys) & ~_SIGN)


def group_ends(sorted_keys: np.ndarray) -> np.ndarray:
    """Positions of the last row of each tie group of sorted keys."""
    if sorted_keys.shape[0] == 0:
        return np.empty(0, np.intp)
    return np.flatnonzero(np.append(sorted_keys[1:] != sorted_keys[:-1], True))


def group_sums_numpy(
    sorted_keys: np.ndarray, w: np.ndarray | None, r: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The group sums of the kernels with NumPy's (sequential) cumulative sums."""
    ends = group_ends(sorted_keys)
    size = ends.size + 1
    thr = np.empty(size, dtype=np.uint64)
    cw = np.empty(size, dtype=np.float64)
    cr = np.empty(size, dtype=np.float64)
    cc = np.empty(size, dtype=np.float64)
    thr[0] = _INF_KEY
    cw[0] = cr[0] = cc[0] = 0.0
    thr[1:] = decode_numpy(sorted_keys[ends])
    if w is None:
        cw[1:] = ends + 1.0
        cr[1:] = np.cumsum(r)[ends]
        cc[1:] = np.cumsum(1.0 - r)[ends]
    else:
        cw[1:] = np.cumsum(w)[ends]
        cr[1:] = np.cumsum(w * r)[ends]
        cc[1:] = np.cumsum(w * (1.0 - r))[ends]
    return thr, cw, cr, cc


def descending_keys(x: np.ndarray) -> np.ndarray:
    """:func:`ranklens._kernels.curves.descending_keys`, in NumPy while that module is not
    imported and ``x`` has fewer than ``POLICY.sort_numpy_below`` rows."""
    if _numpy_route(x.shape[0]):
        return descending_keys_numpy(x)
    return _kc.descending_keys(x)


def decode_keys(keys: np.ndarray) -> np.ndarray:
    """:func:`ranklens._kernels.curves.decode_keys` (see :func:`descending_keys`)."""
    if _numpy_route(keys.shape[0]):
        return decode_numpy(keys).view(np.float64)
    return _kc.decode_keys(keys)


def radix_sort(keys: np.ndarray, payload: np.ndarray, carry: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranklens._kernels.curves.radix_sort` (see :func:`descending_keys`): NumPy's stable
    sort of the same keys, which leaves them alone."""
    if _numpy_route(keys.shape[0]):
        order = np.argsort(keys, kind="stable")
        return keys[order], payload[order] if carry else np.empty(0, payload.dtype)
    return _kc.radix_sort(keys, payload, carry)


def group_sums_sorted(
    sorted_keys: np.ndarray, sorted_response: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`ranklens._kernels.curves.group_sums_sorted` (see :func:`descending_keys`)."""
    if _numpy_route(sorted_keys.shape[0]):
        return group_sums_numpy(sorted_keys, None, sorted_response)
    return _kc.group_sums_sorted(sorted_keys, sorted_response)


def group_sums_indexed(
    sorted_keys: np.ndarray, order: np.ndarray, response: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`ranklens._kernels.curves.group_sums_indexed` (see :func:`descending_keys`)."""
    if _numpy_route(sorted_keys.shape[0]):
        return group_sums_numpy(sorted_keys, weight[order], response[order])
    return _kc.group_sums_indexed(sorted_keys, order, response, weight)


def ranked_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranklens._kernels.curves.ranked_order` (see :func:`descending_keys`):
    ``(order, sorted_keys)``, ``x[order]`` non-increasing, int32 indices below 2**31 rows."""
    if _numpy_route(x.shape[0]):
        n = x.shape[0]
        index = np.arange(n, dtype=np.int32 if n < 2**31 - 1 else np.int64)
        sorted_keys, order = radix_sort(descending_keys_numpy(x), index, True)
        return order, sorted_keys
    return _kc.ranked_order(x)
