"""The rank measures' sequence (rows by decreasing prediction, ties by decreasing y) without numba.

Stage 1 of the rank measures in its two forms and the choice between them: the numba kernels of
:mod:`ranklens._compute.kernels.ranking` (a radix argsort, serial or parallel, and counting sorts)
and NumPy forms that return their arrays bit for bit (one stable sort of a distinct integer key per
row). :func:`sequence`, :func:`prepare_ranks`, :func:`dense_ranks`, :func:`order_by_pred` and
:func:`order_by_y_then_pred` decide by the sizes of :mod:`ranklens._foundation.route`. While the
kernel module is not imported, a call on fewer than ``POLICY.sort_numpy_below`` rows runs NumPy
without importing it, so a small first call (the cutoff AUC curve and its bands in a warm ``ranklens
evaluate`` of a few hundred rows) does not import numba (about 0.5 s with LLVM's start).
Otherwise the kernels run from that size on, or below it once they have machine code in the
process or in numba's on-disk cache (:func:`ranklens._compute.xp.compiled.use_kernel`; ``ranklens
warmup`` imports the module and compiles them), and NumPy below it else. O(n log n).

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
from types import ModuleType

import numpy as np

from ranklens._compute.xp.compiled import use_kernel
from ranklens._foundation.route import POLICY

__all__ = [
    "argsort_keys",
    "dense_ranks",
    "dense_ranks_numpy",
    "order_by_pred",
    "order_by_pred_numpy",
    "order_by_y_then_pred",
    "prepare_ranks",
    "sequence",
    "sequence_numpy",
]

_KERNELS = "ranklens._compute.kernels.ranking"


def _numpy_route(n: int) -> bool:
    """Whether a call on ``n`` rows runs here in NumPy, without importing the kernel module:
    below ``POLICY.sort_numpy_below`` rows (:mod:`ranklens._foundation.route`) while
    :mod:`ranklens._compute.kernels.ranking` is not imported (once it is,
    :func:`ranklens._compute.xp.compiled.use_kernel` decides)."""
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


def _kernels(n: int, import_kernels: bool) -> ModuleType | None:
    """The kernel module when a call on ``n`` rows may take a kernel, else None (NumPy).

    None below ``POLICY.sort_numpy_below`` rows while :mod:`ranklens._compute.kernels.ranking` is
    not imported (:func:`_numpy_route`), unless ``import_kernels``: a caller already on its kernels'
    path imports the module (numba with it), and the kernels' rule
    (:func:`ranklens._compute.xp.compiled.use_kernel`) decides on kernels compiled in numba's cache
    too.
    """
    if not import_kernels and _numpy_route(n):
        return None
    from ranklens._compute.kernels import ranking  # imports numba

    return ranking


def argsort_keys(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranklens._compute.kernels.ranking.radix_argsort` of the float64 ``x``: ``(keys,
    order)``.

    In parallel (:func:`ranklens._compute.kernels.ranking.radix_argsort_parallel`, the same keys and
    order) from ``POLICY.parallel_sort_from`` rows with more than one thread
    (:mod:`ranklens._foundation.route`): below, the serial sort is as fast, and small calls compile
    no parallel kernel. Imports numba.
    """
    import numba

    from ranklens._compute.kernels import ranking as kr

    if x.size >= POLICY.parallel_sort_from and numba.get_num_threads() > 1:
        return kr.radix_argsort_parallel(x)
    return kr.radix_argsort(x)


def order_by_pred(pred_rank: np.ndarray) -> np.ndarray:
    """Rows by decreasing prediction rank, ties by increasing row index.

    The counting sort :func:`ranklens._compute.kernels.ranking.order_by_pred_kernel` (O(n)) from
    ``POLICY.sort_numpy_below`` rows on or once it has machine code; NumPy's stable sort (the same
    order) otherwise, without importing the kernel module while it is not imported.
    """
    kr = _kernels(pred_rank.size, False)
    if kr is None or not use_kernel(pred_rank.size, kr.order_by_pred_kernel):
        return order_by_pred_numpy(pred_rank)
    return kr.order_by_pred_kernel(pred_rank)


def order_by_y_then_pred(
    order: np.ndarray, y_rank: np.ndarray, *, import_kernels: bool = False
) -> np.ndarray:
    """Rows by decreasing ``y_true``, ties by decreasing prediction (a stable re-sort of the
    sequence's ``order`` by the dense y ranks ``y_rank``).

    The counting sort :func:`ranklens._compute.kernels.ranking.order_by_y_then_pred_kernel` (O(n))
    or NumPy's stable sort (the same order), as :func:`order_by_pred` decides; ``import_kernels``:
    see :func:`_kernels`.
    """
    kr = _kernels(order.size, import_kernels)
    if kr is None or not use_kernel(order.size, kr.order_by_y_then_pred_kernel):
        return order[np.argsort(-y_rank[order], kind="stable")]
    return kr.order_by_y_then_pred_kernel(order, y_rank)


def dense_ranks(x: np.ndarray, *, import_kernels: bool = False) -> tuple[np.ndarray, int]:
    """Dense ranks (int64, 0 = smallest, ties share a rank) and the number of distinct values.

    The radix argsort (:func:`argsort_keys`) and
    :func:`ranklens._compute.kernels.ranking.dense_ranks_sorted` or :func:`dense_ranks_numpy` (the
    same ranks), as :func:`order_by_pred` decides;
    ``import_kernels``: see :func:`_kernels`.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    kr = _kernels(x.size, import_kernels)
    if kr is None or not use_kernel(x.size, kr.dense_ranks_sorted):
        return dense_ranks_numpy(x)
    rank, n_groups = kr.dense_ranks_sorted(*argsort_keys(x))
    return rank, int(n_groups)


def sequence(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    need_pred_rank: bool = False,
    *,
    import_kernels: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """``(order, key, pkey, y_rank, pred_rank, n_y, n_pred)``: the sequence and dense ranks.

    ``order``: rows by decreasing prediction, ties by decreasing y, then row; ``key`` / ``pkey``:
    dense y / prediction rank (0 = smallest) of each position; ``y_rank`` / ``pred_rank``: the same
    per row (``pred_rank`` empty unless ``need_pred_rank``); the numbers of distinct values.

    The radix argsort of the prediction and
    :func:`ranklens._compute.kernels.ranking.build_sequence`, or :func:`sequence_numpy` (the same
    arrays), as :func:`order_by_pred` decides; ``import_kernels``: see :func:`_kernels`.
    """
    kr = _kernels(np.size(y_pred), import_kernels)
    if kr is None:
        y_rank, n_y = dense_ranks_numpy(np.ascontiguousarray(y_true, dtype=np.float64))
        pred = np.ascontiguousarray(y_pred, dtype=np.float64)
        return sequence_numpy(y_rank, n_y, pred, need_pred_rank)
    y_rank, n_y = dense_ranks(y_true, import_kernels=True)
    y_pred = np.ascontiguousarray(y_pred, dtype=np.float64)
    if not use_kernel(y_pred.size, kr.build_sequence):
        # one sort of a distinct int64 key per row
        return sequence_numpy(y_rank, n_y, y_pred, need_pred_rank)
    p_keys, p_order = argsort_keys(y_pred)
    order, key, pkey, pred_rank, n_p = kr.build_sequence(
        y_rank, n_y, p_keys, p_order, need_pred_rank
    )
    return order, key, pkey, y_rank, pred_rank, int(n_y), int(n_p)


def prepare_ranks(
    y_true: np.ndarray, y_pred: np.ndarray, *, import_kernels: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1 of the ranking kernels' two-stage interface
    (:mod:`ranklens._compute.kernels.ranking`): ``(order, y_rank, pred_rank)``, the :func:`sequence`
    with the prediction ranks per row.

    Independent of any weights; O(n log n) (two argsorts, then linear passes).
    """
    order, _, _, y_rank, pred_rank, _, _ = sequence(
        y_true, y_pred, need_pred_rank=True, import_kernels=import_kernels
    )
    return order, y_rank, pred_rank
