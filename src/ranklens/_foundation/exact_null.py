"""Exact null distributions of Kendall's tau and Spearman's rho for small samples without ties.

Under independence every permutation of the ranks is equally likely, so the p-value of a rank
correlation is a count of permutations. The normal approximation is poor at small n (off by 0.07
at n = 10 and 0.19 at n = 5 for tau); like R's ``cor.test`` and scipy's ``kendalltau``, the
functions below give the exact (or, for rho from n = 10, the Edgeworth-corrected) p-value:

* :func:`kendall_exact_pvalue`: the number of discordant pairs of a random permutation has the
  Mahonian distribution (the inversions of a permutation; Kendall 1970, ch. 4), counted exactly
  with integers by the recursion ``I(n, k) = sum_{j=0}^{min(k, n-1)} I(n-1, k-j)``. Used where
  scipy's ``kendalltau(method="auto")`` uses its exact method: no ties and ``n <= 33`` or at most
  one discordant (or concordant) pair.
* :func:`spearman_exact_pvalue`: Algorithm AS 89 (Best & Roberts 1975) for the statistic
  ``S = sum (rank x - rank y)^2``: all ``n!`` permutations for ``n <= 9``, the Edgeworth series
  expansion for ``10 <= n <= 1290``; the t approximation above. These are the rules of R's
  ``cor.test(method = "spearman")`` (exact by default without ties).

References
----------
Kendall, M. G. (1970). *Rank Correlation Methods*, 4th edition. Griffin, London.

Best, D. J. and Roberts, D. E. (1975). Algorithm AS 89: the upper tail probabilities of
Spearman's rho. *Journal of the Royal Statistical Society, Series C (Applied Statistics)* 24(3),
377-379. doi:10.2307/2347111
"""

from __future__ import annotations

import functools
import math
import statistics

import numpy as np

__all__ = [
    "KENDALL_EXACT_MAX_N",
    "SPEARMAN_EXACT_MAX_N",
    "kendall_exact_pvalue",
    "kendall_uses_exact",
    "spearman_exact_pvalue",
]

#: Largest n for which the tau p-value is exact (as scipy's ``kendalltau(method="auto")``).
KENDALL_EXACT_MAX_N = 33
#: Largest n for which the rho p-value uses AS 89 (as R's ``cor.test``); the t approximation above.
SPEARMAN_EXACT_MAX_N = 1290
#: Up to this n, AS 89 counts all permutations (R's prho.c); above, its Edgeworth series.
_SPEARMAN_ENUMERATE_MAX_N = 9

# Coefficients of the Edgeworth series of AS 89 (Best & Roberts 1975).
_C = (
    0.2274,
    0.2531,
    0.1745,
    0.0758,
    0.1033,
    0.3932,
    0.0879,
    0.0151,
    0.0072,
    0.0831,
    0.0131,
    4.6e-4,
)


def kendall_uses_exact(n: int, discordant: int) -> bool:
    """Whether the exact tau p-value applies (no ties assumed): scipy's ``method="auto"`` rule."""
    total = n * (n - 1) // 2
    return n <= KENDALL_EXACT_MAX_N or min(discordant, total - discordant) <= 1


@functools.lru_cache(maxsize=64)
def _mahonian(n: int) -> tuple[int, ...]:
    """``I(n, k)`` for k = 0..n(n-1)/2: permutations of n with k inversions (exact ints)."""
    counts = [1]
    for m in range(2, n + 1):
        new = [0] * (len(counts) + m - 1)
        for k, c in enumerate(counts):
            for j in range(m):
                new[k + j] += c
        counts = new
    return tuple(counts)


def kendall_exact_pvalue(n: int, discordant: int) -> float:
    """Two-sided exact p-value of tau = 0 for ``n`` rows without ties and ``discordant`` pairs.

    ``2 P(D <= c)`` with ``c = min(discordant, concordant)``, at most 1 (the distribution is
    symmetric about ``n(n-1)/4``).
    """
    total = n * (n - 1) // 2
    c = min(discordant, total - discordant)
    if n < 2 or 4 * c == n * (n - 1):
        return 1.0
    if n > KENDALL_EXACT_MAX_N:
        # Only c <= 1 gets here (kendall_uses_exact): P(D <= c) = (1 or n) / n!, in closed form,
        # because the Mahonian table costs O(n^3) and n may be in the millions.
        if c > 1:
            raise ValueError(f"no exact tau p-value above n = {KENDALL_EXACT_MAX_N} unless c <= 1")
        tail = 1 if c == 0 else n
        return min(1.0, math.exp(math.log(2.0 * tail) - math.lgamma(n + 1.0)))
    counts = _mahonian(n)
    tail = sum(counts[: c + 1])
    return min(1.0, 2.0 * tail / math.factorial(n))


@functools.lru_cache(maxsize=16)
def _spearman_counts(n: int) -> np.ndarray:
    """``counts[s]``: permutations of n with ``sum (i - p_i)^2 = s`` (all n! enumerated)."""
    perms = np.zeros((1, 1), dtype=np.int64)
    for m in range(2, n + 1):
        # insert the value m - 1 at every position of every permutation of 0..m-2
        k = perms.shape[0]
        out = np.empty((k * m, m), dtype=np.int64)
        for pos in range(m):
            block = out[pos * k : (pos + 1) * k]
            block[:, :pos] = perms[:, :pos]
            block[:, pos] = m - 1
            block[:, pos + 1 :] = perms[:, pos:]
        perms = out
    s = ((perms - np.arange(n)) ** 2).sum(axis=1)
    return np.bincount(s, minlength=n * (n * n - 1) // 3 + 1)


def _prho(n: int, stat: int, lower_tail: bool) -> float:
    """AS 89: ``P(S >= stat)`` (upper) or ``P(S < stat)`` (lower) for Spearman's S."""
    if stat <= 0:
        return 0.0 if lower_tail else 1.0
    n3 = n * (n * n - 1) / 3  # the largest S
    if stat > n3:
        return 1.0 if lower_tail else 0.0
    if n <= _SPEARMAN_ENUMERATE_MAX_N:
        counts = _spearman_counts(n)
        at_least = int(counts[stat:].sum())
        total = math.factorial(n)
        return (total - at_least) / total if lower_tail else at_least / total
    c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12 = _C
    b = 1.0 / n
    x = (6.0 * (stat - 1) * b / (n * n - 1.0) - 1.0) * math.sqrt(n - 1.0)
    y = x * x
    u = (
        x
        * b
        * (
            c1
            + b * (c2 + c3 * b)
            + y
            * (
                -c4
                + b * (c5 + c6 * b)
                - y * b * (c7 + c8 * b - y * (c9 - c10 * b + y * b * (c11 - c12 * y)))
            )
        )
    )
    correction = u / math.exp(y / 2.0)
    normal = statistics.NormalDist()
    p = -correction + normal.cdf(x) if lower_tail else correction + (1.0 - normal.cdf(x))
    return min(1.0, max(0.0, p))


def spearman_exact_pvalue(n: int, rho: float) -> float:
    """Two-sided p-value of rho = 0 for ``n`` rows without ties, as R's ``cor.test``.

    ``S = (n^3 - n)(1 - rho)/6``; ``2 P(S >= s)`` when rho < 0, else ``2 P(S <= s)``, at most 1,
    with AS 89 for the tail (``n <= 1290``; callers use the t approximation above).
    """
    s = round((n**3 - n) * (1.0 - rho) / 6.0)
    # rho < 0: the upper tail of S; else P(S < s + 2) = P(S <= s), S being even
    upper = s > (n**3 - n) / 6
    p = _prho(n, s, lower_tail=False) if upper else _prho(n, s + 2, lower_tail=True)
    return min(1.0, 2.0 * p)
