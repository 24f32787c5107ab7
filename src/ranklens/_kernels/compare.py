"""Numba kernels of the comparison engine (:mod:`ranklens.compare`): resampling bookkeeping.

Every replicate is described by a row of *multiplicities* (how often each observation is drawn;
zero for the rows a bootstrap sample misses) or a row of *swaps* (whether the two models'
predictions are exchanged for that observation, in the paired permutation test). The kernels loop
over the rows of a block in parallel (``prange``); within a row every sum is accumulated
sequentially, so the results are bit-identical whatever the number of threads.

No validation here: the public wrappers in :mod:`ranklens.compare` check their input.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = [
    "multiplicities_from_indices",
    "swapped_loss_sums",
    "weighted_loss_sums",
]


@njit(cache=True, parallel=True)
def multiplicities_from_indices(indices: np.ndarray, n: int) -> np.ndarray:
    """Row-wise counts: ``out[b, i]`` = number of ``j`` with ``indices[b, j] == i`` (float64)."""
    rows = indices.shape[0]
    out = np.zeros((rows, n), dtype=np.float64)
    for b in prange(rows):
        row = out[b]
        for j in range(indices.shape[1]):
            row[indices[b, j]] += 1.0
    return out


@njit(cache=True, parallel=True)
def weighted_loss_sums(
    multiplicity: np.ndarray, base_weight: np.ndarray, losses: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted sums of per-observation losses for every replicate row.

    With ``w_bi = multiplicity[b, i] * base_weight[i]`` returns ``sums[b, l] = sum_i w_bi *
    losses[i, l]`` and ``totals[b] = sum_i w_bi`` (the matrix product ``W @ L`` without forming
    ``W``, skipping the observations a replicate leaves out).
    """
    rows, n = multiplicity.shape
    n_losses = losses.shape[1]
    sums = np.zeros((rows, n_losses), dtype=np.float64)
    totals = np.zeros(rows, dtype=np.float64)
    for b in prange(rows):
        acc = np.zeros(n_losses, dtype=np.float64)
        total = 0.0
        for i in range(n):
            m = multiplicity[b, i]
            if m != 0.0:
                w = m * base_weight[i]
                total += w
                for k in range(n_losses):
                    acc[k] += w * losses[i, k]
        totals[b] = total
        for k in range(n_losses):
            sums[b, k] = acc[k]
    return sums, totals


@njit(cache=True, parallel=True)
def swapped_loss_sums(
    swaps: np.ndarray, base_weight: np.ndarray, losses_a: np.ndarray, losses_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Weighted loss sums of two models after exchanging their predictions where ``swaps`` is set.

    Returns ``(sums_a, sums_b)`` of shape ``(rows, n_losses)``: model A's sum uses ``losses_b[i]``
    where ``swaps[b, i]`` and ``losses_a[i]`` elsewhere; model B's the other way round. The total
    weight is unchanged by a swap.
    """
    rows, n = swaps.shape
    n_losses = losses_a.shape[1]
    sums_a = np.zeros((rows, n_losses), dtype=np.float64)
    sums_b = np.zeros((rows, n_losses), dtype=np.float64)
    for b in prange(rows):
        acc_a = np.zeros(n_losses, dtype=np.float64)
        acc_b = np.zeros(n_losses, dtype=np.float64)
        for i in range(n):
            w = base_weight[i]
            if swaps[b, i]:
                for k in range(n_losses):
                    acc_a[k] += w * losses_b[i, k]
                    acc_b[k] += w * losses_a[i, k]
            else:
                for k in range(n_losses):
                    acc_a[k] += w * losses_a[i, k]
                    acc_b[k] += w * losses_b[i, k]
        for k in range(n_losses):
            sums_a[b, k] = acc_a[k]
            sums_b[b, k] = acc_b[k]
    return sums_a, sums_b
