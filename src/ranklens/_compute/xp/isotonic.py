"""Pool-adjacent-violators of weighted group means, and the route to its numba kernel.

:func:`pav_means` is the isotonic recalibration's fit (Ayer, Brunk, Ewing, Reid & Silverman
1955; Barlow, Bartholomew, Bremner & Brunk 1972): the kernel of
:mod:`ranklens._compute.kernels.isotonic`, or on small inputs while that kernel has no machine
code its twin :func:`pav_means_numpy` (the same operations in the same order, so the same numbers
bit for bit); :func:`ranklens._compute.xp.measure_routes.pav_numpy` decides.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ranklens._compute.xp import measure_routes as _routes

__all__ = ["pav_means", "pav_means_numpy"]


def pav_means_numpy(
    means: NDArray[np.float64], weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """PAV of weighted group means in Python: each block's value and its first group, left to
    right (the kernel's twin, for small first calls)."""
    values: list[float] = []
    masses: list[float] = []
    firsts: list[int] = []
    for g, (v, m) in enumerate(zip(means.tolist(), weights.tolist(), strict=True)):
        first = g
        while values and values[-1] >= v:
            previous, mass = values.pop(), masses.pop()
            first = firsts.pop()
            total = mass + m
            v = (previous * mass + v * m) / total
            m = total
        values.append(v)
        masses.append(m)
        firsts.append(first)
    return np.asarray(values, dtype=np.float64), np.asarray(firsts, dtype=np.int64)


def pav_means(
    means: NDArray[np.float64], weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Pool-adjacent-violators of weighted group means.

    Parameters
    ----------
    means : ndarray of shape (g,)
        The groups' weighted means, in increasing order of the prediction.
    weights : ndarray of shape (g,)
        Their weights (positive).

    Returns
    -------
    values : ndarray of shape (blocks,)
        Each block's value (the weighted mean of its groups), strictly increasing: a block
        whose value is not above the one before it is pooled into that one.
    firsts : ndarray of shape (blocks,)
        Each block's first group.
    """
    if _routes.pav_numpy(means.shape[0]):
        return _routes.timed_twin(_routes.PAV_TWIN_SECONDS, pav_means_numpy, means, weights)
    from ranklens._compute.kernels import isotonic as _kernels  # imports numba

    return _kernels.pav_block_means(
        np.ascontiguousarray(means, dtype=np.float64),
        np.ascontiguousarray(weights, dtype=np.float64),
    )
