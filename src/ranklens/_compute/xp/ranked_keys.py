"""The curves' ranking step (order by decreasing score, sums per tie group) without numba.

Every curve rests on one step: order the rows by decreasing score and sum per tie group. Here are
its two forms and the choice between them: the numba kernels of
:mod:`ranklens._compute.kernels.curves` and NumPy forms that return their arrays bit for bit (a
stable sort of the same order-preserving keys; sequential cumulative sums, as the kernels add).
:func:`descending_keys`, :func:`decode_keys`, :func:`radix_sort`, :func:`group_sums_sorted`,
:func:`group_sums_indexed` and :func:`ranked_order` decide by the sizes of
:mod:`ranklens._foundation.route`. While the kernel module is not imported, a call on fewer than
``POLICY.sort_numpy_below`` rows runs NumPy without importing it, so a small first call (a warm
``ranklens evaluate`` of a few hundred rows) does not import numba (0.5 s with LLVM's start).
Otherwise the kernel runs from that size on, or below it once it has machine code in the process or
in numba's on-disk cache (:func:`ranklens._compute.xp.compiled.use_kernel`; ``ranklens warmup``
imports the module and compiles them), and NumPy below it else. O(n log n).

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
from types import ModuleType

import numpy as np

from ranklens._compute.xp.compiled import use_kernel
from ranklens._foundation.route import POLICY

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

_KERNELS = "ranklens._compute.kernels.curves"

_SIGN = np.uint64(1) << np.uint64(63)
_INF_KEY = np.uint64(0x7FF0000000000000)  # bit pattern of +inf


def _numpy_route(n: int) -> bool:
    """Whether a step on ``n`` rows runs here in NumPy, without importing the kernel module:
    below ``POLICY.sort_numpy_below`` rows (:mod:`ranklens._foundation.route`) while
    :mod:`ranklens._compute.kernels.curves` is not imported (once it is,
    :func:`ranklens._compute.xp.compiled.use_kernel` decides)."""
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


def _kernels(n: int, import_kernels: bool) -> ModuleType | None:
    """The kernel module when a step on ``n`` rows may take a kernel, else None (NumPy).

    None below ``POLICY.sort_numpy_below`` rows while :mod:`ranklens._compute.kernels.curves` is not
    imported, unless ``import_kernels``: a caller already on its kernels' path (numba imported)
    imports the module, and the kernels' rule (:func:`ranklens._compute.xp.compiled.use_kernel`)
    decides on kernels compiled in numba's cache too.
    """
    if not import_kernels and _numpy_route(n):
        return None
    from ranklens._compute.kernels import curves  # imports numba

    return curves


def descending_keys(x: np.ndarray, *, import_kernels: bool = False) -> np.ndarray:
    """uint64 keys whose ascending order is the *descending* order of the float64 ``x``.

    The IEEE-754 bit pattern is made monotone (flip all bits of negatives, set the sign bit of
    non-negatives) and then complemented. ``-0.0`` is mapped to ``+0.0`` first so that the two
    zeros are one tie group, as ``==`` says. ``x`` must not contain NaN. The kernel
    (:func:`ranklens._compute.kernels.curves.descending_keys_kernel`) from
    ``POLICY.sort_numpy_below`` rows on or once it has machine code, NumPy otherwise (the same
    keys); ``import_kernels``: see :func:`_kernels`.
    """
    kc = _kernels(x.shape[0], import_kernels)
    if kc is not None and use_kernel(x.shape[0], kc.descending_keys_kernel):
        return kc.descending_keys_kernel(x)
    return descending_keys_numpy(x)


def decode_keys(keys: np.ndarray) -> np.ndarray:
    """float64 values of keys made by :func:`descending_keys` (-0.0 comes back as +0.0); the
    kernel :func:`ranklens._compute.kernels.curves.decode_keys_kernel` or NumPy, as there."""
    kc = _kernels(keys.shape[0], False)
    if kc is not None and use_kernel(keys.shape[0], kc.decode_keys_kernel):
        return kc.decode_keys_kernel(keys)
    return decode_numpy(keys).view(np.float64)


def radix_sort(
    keys: np.ndarray, payload: np.ndarray, carry: bool, *, import_kernels: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Stable ascending sort of uint64 ``keys``, ``payload`` carried along when ``carry``.

    Returns ``(sorted_keys, sorted_payload)`` (an empty payload without ``carry``). The LSD radix
    sort kernel (:func:`ranklens._compute.kernels.curves.radix_sort_kernel`, which uses ``keys`` as
    scratch space) as :func:`descending_keys` decides, else NumPy's stable sort of the same keys
    (which leaves them alone): the same result.
    """
    kc = _kernels(keys.shape[0], import_kernels)
    if kc is not None and use_kernel(keys.shape[0], kc.radix_sort_kernel):
        return kc.radix_sort_kernel(keys, payload, carry)
    order = np.argsort(keys, kind="stable")
    return keys[order], payload[order] if carry else np.empty(0, payload.dtype)


def group_sums_sorted(
    sorted_keys: np.ndarray, sorted_response: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unweighted cumulative sums at the end of each tie group of the ranked rows.

    ``sorted_response`` is aligned with ``sorted_keys`` (carried by :func:`radix_sort`). Returns
    ``(threshold_bits, cum_weight, cum_response, cum_complement)`` of length ``groups + 1``, row 0
    being nobody targeted (threshold +inf); view ``threshold_bits`` as float64. The kernel
    :func:`ranklens._compute.kernels.curves.group_sums_sorted_kernel` or NumPy, as
    :func:`descending_keys` decides.
    """
    kc = _kernels(sorted_keys.shape[0], False)
    if kc is not None and use_kernel(sorted_keys.shape[0], kc.group_sums_sorted_kernel):
        return kc.group_sums_sorted_kernel(sorted_keys, sorted_response)
    return group_sums_numpy(sorted_keys, None, sorted_response)


def group_sums_indexed(
    sorted_keys: np.ndarray, order: np.ndarray, response: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weighted version of :func:`group_sums_sorted`: ``order`` (the carried row index) picks
    ``response`` and ``weight``; sums are of ``w``, ``w r`` and ``w (1 - r)``
    (:func:`ranklens._compute.kernels.curves.group_sums_indexed_kernel` or NumPy)."""
    kc = _kernels(sorted_keys.shape[0], False)
    if kc is not None and use_kernel(sorted_keys.shape[0], kc.group_sums_indexed_kernel):
        return kc.group_sums_indexed_kernel(sorted_keys, order, response, weight)
    return group_sums_numpy(sorted_keys, weight[order], response[order])


def ranked_order(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, sorted_keys)``: ``x[order]`` is non-increasing; equal keys mark tied values.

    A radix argsort (:func:`radix_sort` of :func:`descending_keys`, each deciding its own
    route); the index dtype is int32 below 2**31 rows.
    """
    n = x.shape[0]
    index = np.arange(n, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    sorted_keys, order = radix_sort(descending_keys(x), index, True)
    return order, sorted_keys
