"""The rank measures' sequence (rows by decreasing prediction, ties by decreasing y) without numba.

:func:`sequence`, :func:`dense_ranks` and :func:`order_by_pred` take the arguments of the functions
of the same names in :mod:`ranklens._kernels.ranking` and return their arrays bit for bit. While
that module is not imported, a call on fewer than ``ranklens._route.POLICY.sort_numpy_below`` rows
runs the NumPy forms below (one stable sort of a distinct integer key per row), so a small first
call (the cutoff AUC curve and its bands in a warm ``ranklens evaluate`` of a few hundred rows) does
not import numba (about 0.5 s with LLVM's start); otherwise the call goes to
:mod:`ranklens._kernels.ranking`, whose own rule picks its radix kernels or these same NumPy forms
(it also knows about kernels in numba's on-disk cache, and ``ranklens warmup`` imports it).
O(n log n).

The sequence orders the rows by decreasing prediction, ties by decreasing y, then by row; the
dense ranks count distinct values from 0 (the smallest), ``-0.0`` and ``0.0`` sharing one rank as
``==`` says (the order of the ranking measures and curves of Rosset, Perlich & Zadrozny 2005).

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM)*, 370-377.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ranklens._kernels import LazyKernels
from ranklens._route import POLICY

__all__ = [
    "dense_ranks",
    "dense_ranks_numpy",
    "order_by_pred",
    "order_by_pred_numpy",
    "sequence",
    "sequence_numpy",
]

_KERNELS = "ranklens._kernels.ranking"
_kr: Any = LazyKernels(_KERNELS)  # numba is imported on the first attribute access


def _numpy_route(n: int) -> bool:
    """Whether a call on ``n`` rows runs here in NumPy, without importing the kernel module:
    below ``POLICY.sort_numpy_below`` rows (:mod:`ranklens._route`, the kernel module's number
    too) while :mod:`ranklens._kernels.ranking` is not imported (once it is, its rule decides)."""
    return n < POLICY.sort_numpy_below and _KERNELS not in sys.modules


def dense_ranks_numpy(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ranks of the float64 ``x`` (int64, 0 = smallest, ties share a rank) with NumPy's sort
    (ranks do not depend on the order of equal values), and the number of distinct values.

    ``-0.0`` and ``0.0`` share a rank, as ``==`` and the radix keys say.
    """
    n = x.size
    order = np.argsort(x)
    xs = x[order]
    step = np.zeros(n, np.int64)
    np.not_equal(xs[1:], xs[:-1], out=step[1:], casting="unsafe")
    groups = np.cumsum(step)
    rank = np.empty(n, np.int64)
    rank[order] = groups
    return rank, int(groups[-1]) + 1 if n else 0


def sequence_numpy(
    y_rank: np.ndarray, n_y: int, y_pred: np.ndarray, need_pred_rank: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The sequence from the dense y ranks and the contiguous float64 predictions, in NumPy.

    One sort of a distinct int64 key per row: decreasing prediction rank, then decreasing y rank,
    then increasing row (``n_pred * n_y * n <= n**3``: below 2**45 at the sorting steps' 2**15 rows,
    ``POLICY.sort_numpy_below``, no overflow). Returns what :func:`sequence` returns.
    """
    n = y_pred.size
    p_rank, n_p = dense_ranks_numpy(y_pred)
    composite = ((n_p - 1) - p_rank) * n_y + ((n_y - 1) - y_rank)
    composite *= n
    composite += np.arange(n)
    order = np.argsort(composite)
    key = y_rank[order]
    pkey = p_rank[order]
    pred_rank = p_rank if need_pred_rank else np.empty(0, np.int64)
    return order, key, pkey, y_rank, pred_rank, int(n_y), int(n_p)


def order_by_pred_numpy(pred_rank: np.ndarray) -> np.ndarray:
    """Rows by decreasing prediction rank, ties by increasing row index (NumPy's stable sort)."""
    return np.argsort(-pred_rank, kind="stable")


def order_by_pred(pred_rank: np.ndarray) -> np.ndarray:
    """:func:`ranklens._kernels.ranking.order_by_pred`, in NumPy while that module is not
    imported and there are fewer than ``POLICY.sort_numpy_below`` rows."""
    if _numpy_route(pred_rank.size):
        return order_by_pred_numpy(pred_rank)
    return _kr.order_by_pred(pred_rank)


def dense_ranks(x: np.ndarray) -> tuple[np.ndarray, int]:
    """:func:`ranklens._kernels.ranking.dense_ranks`, in NumPy while that module is not imported
    and ``x`` has fewer than ``POLICY.sort_numpy_below`` rows."""
    if _numpy_route(x.size):
        return dense_ranks_numpy(np.ascontiguousarray(x, dtype=np.float64))
    return _kr.dense_ranks(x)


def sequence(
    y_true: np.ndarray, y_pred: np.ndarray, need_pred_rank: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """:func:`ranklens._kernels.ranking.sequence` (``(order, key, pkey, y_rank, pred_rank, n_y,
    n_pred)``), in NumPy while that module is not imported and there are fewer than
    ``POLICY.sort_numpy_below`` rows."""
    if _numpy_route(np.size(y_pred)):
        y_rank, n_y = dense_ranks_numpy(np.ascontiguousarray(y_true, dtype=np.float64))
        pred = np.ascontiguousarray(y_pred, dtype=np.float64)
        return sequence_numpy(y_rank, n_y, pred, need_pred_rank)
    return _kr.sequence(y_true, y_pred, need_pred_rank)
