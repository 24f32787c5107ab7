"""Which differences between models are clear: Holm-adjusted paired comparisons.

The report names a model "better" or "best" only when the paired interval of its difference to
the alternative excludes zero after a Holm correction across every comparison shown together.
This module reads the stored :class:`~ranklens.compare.ComparisonResult` (the difference, its
standard deviation and the Gaussian p-value: DeLong's analytic test for the measures that
declare it, the paired bootstrap's for the others, as the comparison's ``test_methods`` say) and
adjusts; it computes no measure. Holm's procedure controls the family-wise error rate under any
dependence, so one family may mix p-values of both origins.

References
----------
Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal
of Statistics* 6(2), 65-70.

Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
doi:10.1109/ICDM.2005.126
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = ["Contrast", "holm_adjust", "holm_contrasts", "pair_contrast"]

#: Family-wise error rate of every set of comparisons shown together.
ALPHA = 0.05


@dataclasses.dataclass
class Contrast:
    """One paired comparison of two models on one measure, before and after adjustment.

    ``difference`` is ``value_a - value_b`` in the measure's units; ``low``/``high`` its interval
    at the Holm-adjusted level (filled by :func:`holm_contrasts`); ``better`` names the model
    whose value is better when the adjusted interval excludes zero, else is empty.
    """

    metric: str
    model_a: str
    model_b: str
    value_a: float
    value_b: float
    difference: float
    sd: float
    p_value: float
    direction: str
    p_adjusted: float = math.nan
    level: float = math.nan
    low: float = math.nan
    high: float = math.nan
    better: str = ""

    @property
    def clear(self) -> bool:
        """Whether the adjusted interval excludes zero (a clear difference)."""
        return bool(self.better)

    def to_record(self) -> dict[str, Any]:
        """The comparison as a JSON record (NaN kept; the caller maps it to null)."""
        return {
            "measure": self.metric,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "value_a": self.value_a,
            "value_b": self.value_b,
            "difference": self.difference,
            "difference_sd": self.sd,
            "p_value": self.p_value,
            "p_value_holm": self.p_adjusted,
            "ci_low": self.low,
            "ci_high": self.high,
            "interval_level": self.level,
            "clear": self.clear,
            "better": self.better or None,
        }


def holm_adjust(p_values: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values; NaN p-values stay NaN and are not counted.

    Parameters
    ----------
    p_values : sequence of float
        Unadjusted p-values.

    Returns
    -------
    ndarray
        ``p_adj(j) = max_{i <= j} min(1, (m - i + 1) p_(i))`` in the original order.

    Notes
    -----
    With the p-values sorted, ``p_(1) <= ... <= p_(m)``, Holm rejects the hypotheses in order
    while ``p_(j) <= alpha / (m - j + 1)``; the adjusted p-value is below ``alpha`` exactly for
    the rejected ones. It controls the family-wise error rate under any dependence.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian
    Journal of Statistics* 6(2), 65-70.
    """
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(p))
    m = finite.size
    if m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p[index])))
        out[index] = running
    return out


def _better(direction: str, contrast: Contrast) -> str:
    if direction == "higher":
        return contrast.model_a if contrast.difference > 0 else contrast.model_b
    if direction == "lower":
        return contrast.model_a if contrast.difference < 0 else contrast.model_b
    return ""


def holm_contrasts(contrasts: list[Contrast], *, alpha: float = ALPHA) -> list[Contrast]:
    """Adjust a family of comparisons in place (Holm 1979) and set each one's interval.

    The interval of the comparison of rank ``j`` (by p-value, smallest first) is the Gaussian
    ``difference +- z sd`` at level ``1 - alpha / (m - j' + 1)``, where ``j'`` is ``j`` or, past
    the first comparison Holm keeps, that comparison's rank: its interval excludes zero exactly
    when Holm declares the difference (Holm-adjusted p-value below ``alpha``). A measure best
    closest to a target, or not ranked, is never declared better by size.

    Parameters
    ----------
    contrasts : list of Contrast
        One family: every comparison shown together.
    alpha : float, default 0.05
        Family-wise error rate.

    Returns
    -------
    list of Contrast
        The same objects, adjusted.
    """
    tested = [
        c for c in contrasts if c.direction in ("higher", "lower") and math.isfinite(c.p_value)
    ]
    adjusted = holm_adjust([c.p_value for c in tested])
    m = len(tested)
    order = sorted(range(m), key=lambda k: tested[k].p_value)
    stop = m  # rank (0-based) of the first comparison Holm keeps
    for rank, k in enumerate(order):
        if not adjusted[k] < alpha:
            stop = rank
            break
    for rank, k in enumerate(order):
        c = tested[k]
        c.p_adjusted = float(adjusted[k])
        level_alpha = alpha / (m - min(rank, stop))
        c.level = 1.0 - level_alpha
        if c.sd > 0 and math.isfinite(c.sd):
            z = NormalDist().inv_cdf(1.0 - level_alpha / 2.0)
            c.low, c.high = c.difference - z * c.sd, c.difference + z * c.sd
        else:
            c.low = c.high = c.difference
        c.better = _better(c.direction, c) if c.p_adjusted < alpha and c.difference != 0 else ""
    return contrasts


def pair_contrast(
    comparison: Any, metric: str, model_a: str, model_b: str, direction: str
) -> Contrast | None:
    """The stored bootstrap comparison of ``model_a`` against ``model_b`` on ``metric``.

    Reads a :class:`~ranklens.compare.ComparisonResult` (or any result with the same fields:
    ``metrics``, ``models``, ``pairs``, ``values``, ``difference``, ``difference_sd``,
    ``p_value``); None when the pair or the measure was not compared. The pair is oriented as
    asked (the sign of the difference flips when it was stored the other way round).
    """
    if comparison is None or metric not in getattr(comparison, "metrics", ()):
        return None
    # A permutation test's spread is the null SD (its difference_sd is a deprecated alias).
    if getattr(comparison, "method", "") == "permutation":
        sd_field = getattr(comparison, "null_sd", None)
    else:
        sd_field = getattr(comparison, "difference_sd", None)
    if sd_field is None:
        return None
    k = comparison.metrics.index(metric)
    pairs = list(comparison.pairs)
    if (model_a, model_b) in pairs:
        j, sign = pairs.index((model_a, model_b)), 1.0
    elif (model_b, model_a) in pairs:
        j, sign = pairs.index((model_b, model_a)), -1.0
    else:
        return None
    models = list(comparison.models)
    values = comparison.values
    return Contrast(
        metric=metric,
        model_a=model_a,
        model_b=model_b,
        value_a=float(values[k, models.index(model_a)]),
        value_b=float(values[k, models.index(model_b)]),
        difference=sign * float(comparison.difference[k, j]),
        sd=float(sd_field[k, j]),
        p_value=float(comparison.p_value[k, j]),
        direction=direction,
    )
