"""Which differences between models are clear: Holm-adjusted paired comparisons.

The report names a model "better" or "best" only when the paired interval of its difference to
the alternative excludes zero after a Holm (1979) correction across every comparison shown
together. This module reads the stored :class:`~ranklens.compare.ComparisonResult` and adjusts;
it computes no measure. Each comparison keeps the method of its measure's paired test, at the
adjusted level too:

* DeLong's analytic test (the measures that declare it: the AUC, Harrell's C, Somers' D;
  DeLong, DeLong & Clarke-Pearson 1988): the Wald interval ``d +- z sd`` at the adjusted level
  and its p-value ``2 Phi(-|d / sd|)``;
* the paired bootstrap: the symmetric interval ``d -+ q`` with ``q`` the quantile of the
  centred replicates ``|d* - d|`` at the adjusted level, and the p-value that inverts it
  (Hall & Wilson 1991: centre the replicates at the estimate; Hall 1988: symmetric intervals),
  so that the interval excludes zero exactly when the test is significant. With two equally
  good models at n = 100 (the data of ``benchmarks/verdicts_fwer.py``) the percentile test,
  which reads the replicates' own tail on the side of zero, rejected SERA's true null in
  8.0 +- 2.7 % of 100 data sets at level 1.25 %; the long tail of a measure resting on a few
  rows makes the symmetric test conservative instead (none of the 100);
* the paired permutation test: its own p-value (it gives no interval).

Holm's procedure controls the family-wise error rate under any dependence, so one family may
mix p-values of every origin. A comparison is left out of the family, and said to be not
tested, when its measure is undefined in more than :data:`MAX_UNDEFINED_SHARE` of the bootstrap
replicates (a standard error or quantile of the surviving replicates would understate the
uncertainty: they are the resamples in which the measure happens to exist), when its interval
method is flagged approximate, or when it has no p-value.

References
----------
Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal
of Statistics* 6(2), 65-70.

Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
Cambridge University Press (Sect. 4.4.1, the Monte Carlo p-value ``(1 + r) / (R + 1)``).

Hall, P. (1988). Theoretical comparison of bootstrap confidence intervals. *The Annals of
Statistics* 16(3), 927-953.

Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
*Biometrics* 47(2), 757-762.

DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two or
more correlated receiver operating characteristic curves: a nonparametric approach.
*Biometrics* 44(3), 837-845. doi:10.2307/2531595

Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
doi:10.1109/ICDM.2005.126
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.interval_formulas import (
    studentized_interval_at,
    studentized_p_value,
    symmetric_interval_at,
    symmetric_p_value,
)
from ranklens._foundation.normal import ndtri
from ranklens.evaluation import paired_test_methods

__all__ = [
    "ADJUSTED_METHODS",
    "ALPHA",
    "MAX_UNDEFINED_SHARE",
    "Contrast",
    "adjusted_method_name",
    "holm_adjust",
    "holm_contrasts",
    "pair_contrast",
    "symmetric_interval_at",
    "symmetric_p_value",
]

#: Family-wise error rate of every set of comparisons shown together.
ALPHA = 0.05

#: Largest share of bootstrap replicates in which a comparison's measure may be undefined (NaN)
#: for the comparison to be tested; above it the comparison is reported as not tested.
MAX_UNDEFINED_SHARE = 0.01

#: How the report names the method of each adjusted interval (``Contrast.method``).
ADJUSTED_METHODS: dict[str, str] = {
    "delong": "DeLong's Wald interval",
    "bootstrap-symmetric": "paired bootstrap, symmetric",
    "bootstrap-studentized": "paired bootstrap, symmetric bootstrap-t",
    "bootstrap-normal": "Wald interval with the paired bootstrap's SD",
    "normal": "Wald interval",
    "permutation": "paired permutation test, no interval",
}


def adjusted_method_name(method: str) -> str:
    """The words for an adjusted interval's method (:data:`ADJUSTED_METHODS`)."""
    return ADJUSTED_METHODS.get(method, method)


@dataclasses.dataclass
class Contrast:
    """One paired comparison of two models on one measure, before and after adjustment.

    ``difference`` is ``value_a - value_b`` in the measure's units and ``p_value`` its
    two-sided p-value by ``method``; ``p_adjusted`` the Holm-adjusted p-value, ``low``/``high``
    the interval of the difference at the Holm level ``level`` (filled by
    :func:`holm_contrasts`); ``better`` names the model whose value is better when the adjusted
    interval excludes zero, else is empty.

    ``method`` says how the p-value and the adjusted interval are made: ``"delong"`` (Wald
    interval with DeLong's standard deviation), ``"bootstrap-symmetric"`` (symmetric interval
    of ``replicates``, the bootstrap replicates of the difference, centred at the estimate),
    ``"bootstrap-studentized"`` (Hall's symmetric bootstrap-t: ``replicates`` are the
    studentized replicates ``t*`` and ``se`` the difference's standard error on every case),
    ``"bootstrap-normal"`` (Wald interval with the bootstrap's standard deviation, when the
    replicates are not kept),
    ``"permutation"`` (no interval) or ``"normal"`` (Wald interval with ``sd``). ``untested``
    says why the comparison is not tested (empty when it is); ``undefined_share`` is the share
    of bootstrap replicates in which the difference is undefined.
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
    method: str = "normal"
    replicates: np.ndarray | None = dataclasses.field(default=None, repr=False, compare=False)
    untested: str = ""
    undefined_share: float = 0.0
    se: float = math.nan

    @property
    def clear(self) -> bool:
        """Whether the adjusted interval excludes zero (a clear difference)."""
        return bool(self.better)

    @property
    def tested(self) -> bool:
        """Whether the comparison enters the Holm family: ranked by size, with a p-value, and
        not set aside (:attr:`untested`)."""
        return (
            not self.untested
            and self.direction in ("higher", "lower")
            and math.isfinite(self.p_value)
        )

    @property
    def unresolved(self) -> bool:
        """A tested bootstrap comparison whose adjusted level lies beyond what its replicates
        resolve (fewer than one replicate in a tail): no interval, never clear."""
        return (
            self.tested
            and self.method in ("bootstrap-symmetric", "bootstrap-studentized")
            and not (math.isfinite(self.low) and math.isfinite(self.high))
        )

    def reversed(self) -> Contrast:
        """The same comparison read the other way round (``model_b`` against ``model_a``)."""
        return dataclasses.replace(
            self,
            model_a=self.model_b,
            model_b=self.model_a,
            value_a=self.value_b,
            value_b=self.value_a,
            difference=-self.difference,
            low=-self.high,
            high=-self.low,
            replicates=None if self.replicates is None else -self.replicates,
        )

    def interval_record(self) -> dict[str, Any]:
        """The adjusted interval: ``{"lower", "upper", "level", "method"}`` (NaN kept)."""
        return {
            "lower": self.low,
            "upper": self.high,
            "level": self.level,
            "method": None if self.method == "permutation" else self.method,
        }

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
            "method": self.method,
            "tested": self.tested,
            "untested_reason": self.untested or None,
            "undefined_share": self.undefined_share,
            "clear": self.clear,
            "better": self.better or None,
        }


@shared_paragraphs
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
    while ``p_(j) <= alpha / (m - j + 1)``; the adjusted p-value is at most ``alpha`` exactly
    for the rejected ones. It controls the family-wise error rate under any dependence.

    References
    ----------
    %(holm1979)s
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


def _wald(contrast: Contrast, level: float) -> tuple[float, float]:
    if contrast.sd > 0 and math.isfinite(contrast.sd):
        z = ndtri(1.0 - (1.0 - level) / 2.0)
        return contrast.difference - z * contrast.sd, contrast.difference + z * contrast.sd
    return contrast.difference, contrast.difference


def _adjusted_interval(contrast: Contrast, level: float) -> tuple[float, float]:
    """The contrast's interval at ``level`` by its own method."""
    if contrast.method == "permutation":
        return math.nan, math.nan
    if contrast.method == "bootstrap-symmetric" and contrast.replicates is not None:
        return symmetric_interval_at(contrast.replicates, contrast.difference, level)
    if contrast.method == "bootstrap-studentized" and contrast.replicates is not None:
        return studentized_interval_at(contrast.replicates, contrast.difference, contrast.se, level)
    return _wald(contrast, level)


def _better(direction: str, contrast: Contrast) -> str:
    if direction == "higher":
        return contrast.model_a if contrast.difference > 0 else contrast.model_b
    if direction == "lower":
        return contrast.model_a if contrast.difference < 0 else contrast.model_b
    return ""


def _excludes_zero(contrast: Contrast) -> bool:
    if contrast.method == "permutation":
        return True  # no interval: the adjusted p-value decides alone
    return contrast.low > 0 or contrast.high < 0


@shared_paragraphs
def holm_contrasts(contrasts: list[Contrast], *, alpha: float = ALPHA) -> list[Contrast]:
    """Adjust a family of comparisons in place (Holm 1979) and set each one's interval.

    The comparisons that are tested (:attr:`Contrast.tested`) form the family; the others get
    no adjusted p-value, no interval and no winner. The interval of the comparison of rank
    ``j`` (by p-value, smallest first) is its own method's interval at level
    ``1 - alpha / (m - j' + 1)``, where ``j'`` is ``j`` or, past the first comparison Holm
    keeps, that comparison's rank: it excludes zero exactly when Holm declares the difference
    (the p-value of each method inverts its interval). A measure best closest to a target, or
    not ranked, is never declared better by size.

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

    References
    ----------
    %(holm1979)s
    """
    for c in contrasts:
        c.p_adjusted = c.level = c.low = c.high = math.nan
        c.better = ""
    tested = [c for c in contrasts if c.tested]
    adjusted = holm_adjust([c.p_value for c in tested])
    m = len(tested)
    order = sorted(range(m), key=lambda k: tested[k].p_value)
    stop = m  # rank (0-based) of the first comparison Holm keeps
    for rank, k in enumerate(order):
        if not tested[k].p_value <= alpha / (m - rank):
            stop = rank
            break
    for rank, k in enumerate(order):
        c = tested[k]
        c.p_adjusted = float(adjusted[k])
        c.level = 1.0 - alpha / (m - min(rank, stop))
        c.low, c.high = _adjusted_interval(c, c.level)
        declared = rank < stop and c.difference != 0 and _excludes_zero(c)
        c.better = _better(c.direction, c) if declared else ""
    return contrasts


def _flag_at(flags: Any, k: int, j: int) -> bool:
    """A per-comparison flag read from a bool, a per-measure sequence or a
    ``[measure, pair]`` array."""
    if flags is None:
        return False
    if isinstance(flags, bool | np.bool_):
        return bool(flags)
    array = np.asarray(flags)
    if array.ndim == 2 and array.shape[0] > k and array.shape[1] > j:
        return bool(array[k, j])
    if array.ndim == 1 and array.size > k:
        return bool(array[k])
    return False  # an empty default: no flag


def _approximate(comparison: Any, k: int, j: int) -> bool:
    """Whether the comparison's interval of the difference is flagged approximate (read with
    defaults: results that carry no flag pass)."""
    return _flag_at(getattr(comparison, "difference_approximate", None), k, j)


def _undefined_share(comparison: Any, k: int, ia: int, ib: int, j: int) -> float:
    """Share of resamples in which the difference is undefined, from what the result holds."""
    if getattr(comparison, "method", "") == "permutation":
        total = int(getattr(comparison, "n_permutations", 0) or 0)
        counts = np.asarray(getattr(comparison, "n_undefined", np.zeros((k + 1, j + 1))))
        return float(counts[k, j]) / total if total else 0.0
    total = int(getattr(comparison, "n_bootstrap", 0) or 0)
    stored = getattr(comparison, "n_undefined", None)
    if not total or stored is None:
        return 0.0
    per_model = np.asarray(stored)
    return float(max(per_model[k, ia], per_model[k, ib])) / total


def _bootstrap_fields(
    comparison: Any, k: int, ia: int, ib: int, j: int, difference: float
) -> dict[str, Any]:
    """Method, replicates, p-value and undefined share of a bootstrap-tested difference
    (``difference``: model ``ia``'s value less model ``ib``'s)."""
    reps = getattr(comparison, "replicates", None)
    if reps is None or np.asarray(reps).shape[0] == 0:
        share = _undefined_share(comparison, k, ia, ib, j)
        return {"method": "bootstrap-normal", "undefined_share": share}
    reps = np.asarray(reps)
    d = reps[:, k, ia] - reps[:, k, ib]
    finite = np.isfinite(d)
    share = float(d.size - np.count_nonzero(finite)) / d.size
    se = _studentized_se(comparison, k, j)
    if math.isfinite(se):
        # the pair's interval is Hall's bootstrap-t: its test and its Holm-level interval too
        names = list(comparison.models)
        sign = 1.0 if tuple(comparison.pairs[j]) == (names[ia], names[ib]) else -1.0
        t = sign * np.asarray(comparison.studentized_replicates)[:, k, j]
        t = t[finite]
        return {
            "method": "bootstrap-studentized",
            "replicates": t,
            "se": se,
            "p_value": studentized_p_value(t, difference, se),
            "undefined_share": share,
        }
    d = d[finite]
    return {
        "method": "bootstrap-symmetric",
        "replicates": d,
        "p_value": symmetric_p_value(d, difference),
        "undefined_share": share,
    }


def _studentized_se(comparison: Any, k: int, j: int) -> float:
    """The standard error of pair ``j``'s difference on measure ``k`` where the comparison
    studentized it (NaN elsewhere, and for results that hold no studentized replicates)."""
    se = np.asarray(getattr(comparison, "difference_se", np.zeros((0, 0))))
    t = np.asarray(getattr(comparison, "studentized_replicates", np.zeros((0, 0, 0))))
    if se.ndim != 2 or se.shape[0] <= k or se.shape[1] <= j or t.ndim != 3 or t.shape[1] <= k:
        return math.nan
    return float(se[k, j])


def _untested_reason(
    comparison: Any, test: str, fields: dict[str, Any], k: int, j: int, difference: float
) -> str:
    if not test:
        return "this measure was not part of the paired comparison"
    if not math.isfinite(difference):
        return "the difference is not defined for these data"
    share = float(fields.get("undefined_share", 0.0))
    if share > MAX_UNDEFINED_SHARE:
        what = "random swaps" if test == "permutation" else "bootstrap replicates"
        return (
            f"the measure is undefined in {100 * share:.1f}% of the {what} (more than "
            f"{100 * MAX_UNDEFINED_SHARE:g}%)"
        )
    notes = getattr(comparison, "interval_notes", ()) or ()
    note = str(notes[k]) if len(notes) > k else ""
    if _approximate(comparison, k, j):
        return "the interval of this difference is flagged " + (note or "approximate")
    # the comparison's own p-value is NaN where it gives no test (a class of a binary response
    # too small for the bootstrap, say): no test here either
    stored = float(comparison.p_value[k, j])
    if not (math.isfinite(stored) and math.isfinite(float(fields.get("p_value", stored)))):
        return "no p-value" + (f": {note}" if note else "")
    return ""


def pair_contrast(
    comparison: Any, metric: str, model_a: str, model_b: str, direction: str
) -> Contrast | None:
    """The stored comparison of ``model_a`` against ``model_b`` on ``metric``.

    Reads a :class:`~ranklens.compare.ComparisonResult` (or any result with the same fields:
    ``metrics``, ``models``, ``pairs``, ``values``, ``difference``, ``difference_sd``,
    ``p_value``, and for the bootstrap ``replicates`` and ``n_undefined``) or a
    :class:`~ranklens.compare.PermutationTestResult`; None when the pair or the measure was
    not compared. The pair is oriented as asked. A bootstrap-tested difference gets the
    p-value of the test dual to its interval: the symmetric bootstrap-t test where the
    comparison studentized it (:func:`~ranklens._foundation.interval_formulas.studentized_p_value`),
    else the symmetric p-value of its centred replicates (:func:`symmetric_p_value`); one whose
    replicates are undefined in more than :data:`MAX_UNDEFINED_SHARE` of the resamples is
    marked not tested (never tested on the surviving replicates), as is one whose interval is
    flagged approximate.
    """
    if comparison is None or metric not in getattr(comparison, "metrics", ()):
        return None
    permutation = getattr(comparison, "method", "") == "permutation"
    # A permutation test's spread is the SD of its null (it has no standard error).
    sd_field = getattr(comparison, "null_sd" if permutation else "difference_sd", None)
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
    ia, ib = models.index(model_a), models.index(model_b)
    test = "permutation" if permutation else paired_test_methods(comparison)[k]
    difference = sign * float(comparison.difference[k, j])
    fields: dict[str, Any] = {"method": test if test in ("delong", "permutation") else "normal"}
    if permutation:
        fields["undefined_share"] = _undefined_share(comparison, k, ia, ib, j)
    elif test == "bootstrap":
        fields = _bootstrap_fields(comparison, k, ia, ib, j, difference)
    untested = _untested_reason(comparison, test, fields, k, j, difference)
    if untested:
        fields.pop("replicates", None)
    p_value = float(fields.pop("p_value", comparison.p_value[k, j]))
    return Contrast(
        metric=metric,
        model_a=model_a,
        model_b=model_b,
        value_a=float(comparison.values[k, ia]),
        value_b=float(comparison.values[k, ib]),
        difference=difference,
        sd=float(sd_field[k, j]),
        p_value=math.nan if untested else p_value,
        direction=direction,
        untested=untested,
        **fields,
    )
