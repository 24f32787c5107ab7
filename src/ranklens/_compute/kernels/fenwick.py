"""A Fenwick tree (binary indexed tree) of weights over ranks, for the kernels' sweeps.

``tree`` is 1-based (``tree[0]`` stays 0 and only gives the sums their dtype): integer counts
in the pair sweeps of :mod:`ranklens._compute.kernels.ranking`, float weights in DeLong's components
(:mod:`ranklens._compute.kernels.delong`). Both helpers are inlined into the kernels that call them.
"""

from __future__ import annotations

from numba import njit

__all__ = ["fenwick_add", "fenwick_prefix"]


@njit(inline="always")
def fenwick_prefix(tree, r):
    """Sum of the entries with rank < r (tree is 1-based)."""
    s = tree[0] * 0
    while r > 0:
        s += tree[r]
        r -= r & (-r)
    return s


@njit(inline="always")
def fenwick_add(tree, r, v):
    """Add v at rank r (0-based)."""
    r += 1
    n = tree.size
    while r < n:
        tree[r] += v
        r += r & (-r)
