"""False discovery rate control over a family of tests: Benjamini-Hochberg and Benjamini-Yekutieli.

When many verdicts are drawn at once (every segment, measure and model of an evaluation by
segment), a 5 % level per test would call about one comparison in twenty "clear" by chance. These
procedures bound instead the expected share of false verdicts among those declared, the false
discovery rate (FDR). Benjamini & Hochberg's (1995) step-up procedure holds it for independent tests
and for tests with positive regression dependence (Benjamini & Yekutieli 2001, Theorem 1.2), such
as paired comparisons of several measures on the same rows; Benjamini & Yekutieli's (2001)
variant divides the level by ``sum_{i=1}^m 1/i`` and holds it under any dependence.

References
----------
Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate: a practical and
powerful approach to multiple testing. *Journal of the Royal Statistical Society B* 57(1),
289-300. doi:10.1111/j.2517-6161.1995.tb02031.x

Benjamini, Y. and Yekutieli, D. (2001). The control of the false discovery rate in multiple
testing under dependency. *Annals of Statistics* 29(4), 1165-1188. doi:10.1214/aos/1013699998
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["FDR_METHODS", "FDR_METHOD_NAMES", "fdr_adjust"]

#: The procedures :func:`fdr_adjust` knows: ``"bh"`` (Benjamini & Hochberg 1995) and ``"by"``
#: (Benjamini & Yekutieli 2001).
FDR_METHODS = ("bh", "by")

#: Each procedure as the results name it.
FDR_METHOD_NAMES = {"bh": "benjamini-hochberg", "by": "benjamini-yekutieli"}


def fdr_adjust(p_values: Sequence[float] | np.ndarray, method: str = "bh") -> np.ndarray:
    """Adjusted p-values (q-values) of the Benjamini-Hochberg or Benjamini-Yekutieli procedure.

    Rejecting every hypothesis whose adjusted p-value is at most ``alpha`` controls the false
    discovery rate at ``alpha``. NaN p-values (tests that could not be made) stay NaN and do not
    count in the family.

    Parameters
    ----------
    p_values : sequence of float
        The unadjusted p-values, in [0, 1] or NaN.
    method : {"bh", "by"}, default "bh"
        ``"bh"``: ``q_(i) = min_{j >= i} min(1, m p_(j) / j)`` with the p-values sorted,
        ``p_(1) <= ... <= p_(m)`` (Benjamini & Hochberg 1995); valid for independent or
        positively dependent tests. ``"by"``: the same times ``c(m) = sum_{k=1}^m 1/k``
        (Benjamini & Yekutieli 2001); valid under any dependence.

    Returns
    -------
    ndarray of float64
        The adjusted p-values in the order given (the same numbers as R's
        ``p.adjust(p, "BH")`` and ``p.adjust(p, "BY")``).

    Raises
    ------
    ValueError
        If ``method`` is not one of :data:`FDR_METHODS`, or a p-value lies outside [0, 1].
    """
    if method not in FDR_METHODS:
        raise ValueError(f"method must be one of {FDR_METHODS}; got {method!r}")
    p = np.asarray(p_values, dtype=np.float64).reshape(-1)
    finite = np.flatnonzero(~np.isnan(p))
    if ((p[finite] < 0.0) | (p[finite] > 1.0)).any():
        raise ValueError("p_values must lie in [0, 1] (NaN for a test not made)")
    out = np.full(p.shape, np.nan)
    m = finite.size
    if m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    ranks = np.arange(1, m + 1, dtype=np.float64)
    scale = float(np.sum(1.0 / ranks)) if method == "by" else 1.0
    stepped = p[order] * (m * scale) / ranks
    # step-up: the adjusted value of the i-th smallest is the least of those at or above it
    adjusted = np.minimum.accumulate(stepped[::-1])[::-1]
    out[order] = np.minimum(adjusted, 1.0)
    return out
