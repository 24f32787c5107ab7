"""Business curves: ROC, cumulative gain, lift, profit under a budget, decile tables.

These are the curves a marketing or risk team uses to decide how many customers to target and
with which model (Provost & Fawcett 2013, ch. 8, "Visualizing Model Performance"). Rank the
customers by decreasing score, target the top of the list, and read off what
targeting the top fraction ``x`` buys:

- :func:`roc_curve` (true against false positive rate) with its AUC, Gini and KS statistic;
- :func:`gain_curve` (the slides' *cumulative response curve*: share of events captured);
- :func:`lift_curve` (gain divided by the fraction targeted; random model = 1);
- :func:`profit_curve` (profit from a 2x2 cost-benefit matrix or from a value margin, with the
  profit-maximising depth and the best profit within a budget);
- :func:`decile_table` (count, events, rate, cumulative gain, lift and KS per decile);
- :func:`best_model_by_depth` (which model wins at each targeting depth and where they cross).

**Targets.** ``y_true`` may be binary (0/1 or bool; no event definition needed), or a continuous
target with an event definition passed as ``events=`` (see :func:`roc_curve` for the grammar:
``"top:0.1"``, ``">=100"``, a number, a relevance function), or ``events="value"`` for the
value-based curves that use ``y`` itself (share of total ``y`` captured: a wallet or donation
targeter). With ``events=None`` a continuous target uses :data:`DEFAULT_EVENTS` (the true top
10 %), which is also what the registered scalars use.

**Ties.** Tied scores are never split arbitrarily: each distinct score is one point of the curve
and the curve is a straight segment across the tie. A straight segment is the expectation over
a random order of the tied observations, so every value read off a segment (lift at 10 %, the
decile table, profit at a budget falling inside a tie) is the expected value under random
tie-breaking. This is ``sklearn.metrics.roc_curve(..., drop_intermediate=False)`` grouped by
distinct score.

**Weights.** ``sample_weight`` are case (frequency) weights: an integer weight ``k`` is the same
as ``k`` copies of the row, so fractions targeted, counts, budgets and profits are weighted.
Rows of weight zero are dropped before anything else (they add no curve point).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._compute.xp import curve_helpers as _xh
from ranklens._compute.xp import curves as _xpc
from ranklens._compute.xp import delong as _kd  # imports numba only when it takes a kernel
from ranklens._compute.xp import measures as _xm
from ranklens._compute.xp import ranked_keys as _xk  # likewise
from ranklens._compute.xp import targeting as _xpt
from ranklens._compute.xp import to_host
from ranklens._compute.xp.measures import device_inputs
from ranklens._compute.xp.rank import EXACT_LIMIT
from ranklens._foundation.curve_registry import CurveSweepForm, register_curve
from ranklens._foundation.docstrings import (
    computes_where_inputs_live,
    made_function,
    raises_input_errors,
    shared_paragraphs,
    wrapped,
)
from ranklens._foundation.events import DEFAULT_EVENTS, EventRule, parse_events
from ranklens._foundation.forms import (
    CurveForm,
    CurveStatistic,
    ReplicateForm,
    ReplicateSweep,
    confusion_from_lift,
    read_at_depth,
)
from ranklens._foundation.interval_formulas import concordance_logit_interval
from ranklens._foundation.registry import ConcordanceForm, register_metric
from ranklens._foundation.results import ConfidenceInterval, CurveResult, Result
from ranklens._foundation.scaling import ldexp, product_exponent
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    check_event_threshold,
    check_pair,
    check_positive_int,
    check_probability,
    check_sample_weight,
    relevance_values,
)
from ranklens._measures.by_depth import ModelByDepthResult, by_depth, check_depths
from ranklens._measures.ranked import (
    DecileTableResult,
    ProfitSpec,
    Ranked,
    Target,
    decile_table_result,
    gain_or_undefined,
    gain_ratios_exact,
    gain_twice_exact,
    integer_counts,
    profit_spec,
    rank_scores,
)
from ranklens.exceptions import DomainError, SwappedArgumentsWarning, warn_undefined

__all__ = [
    "DEFAULT_EVENTS",
    "ConfusionCounts",
    "DecileTableResult",
    "GainCurveResult",
    "LiftCurveResult",
    "ModelByDepthResult",
    "PrecisionRecallCurveResult",
    "ProfitCurveResult",
    "RocCurveResult",
    "accuracy_ratio",
    "average_precision_score",
    "best_model_by_depth",
    "confusion_at_depth",
    "decile_table",
    "gain_area",
    "gain_curve",
    "ks_statistic",
    "lift_at_5",
    "lift_at_10",
    "lift_at_20",
    "lift_curve",
    "partial_roc_auc",
    "precision_at_5",
    "precision_at_10",
    "precision_at_20",
    "precision_at_depth",
    "precision_recall_curve",
    "profit_curve",
    "recall_at_5",
    "recall_at_10",
    "recall_at_20",
    "recall_at_depth",
    "roc_auc",
    "roc_curve",
]

FloatArray = NDArray[np.float64]

EventsLike = str | float | Callable[[Any], Any] | tuple[Callable[[Any], Any], float] | None

_CURVES = ("gain", "lift", "profit")


# ------------------------------------------------------------------------------------------------
# Targets: binary labels, an event definition on a continuous y, or y itself (value)


def _is_binary(y: FloatArray) -> bool:
    return bool(np.all((y == 0.0) | (y == 1.0)))


def _top_threshold(y: FloatArray, q: float, w: FloatArray | None) -> float:
    """Smallest y value v with weight{y >= v} >= q * total weight (so ties at v are all in)."""
    n = y.shape[0]
    if w is None:
        # 1e-9 absorbs the rounding of q * n (0.1 * 100000 = 10000.000000000002).
        k = min(n, max(1, math.ceil(q * n - 1e-9)))
        return float(np.partition(y, n - k)[n - k])
    sorted_keys, sorted_w = _xk.radix_sort(_xk.descending_keys(y), w, True)
    cum = np.cumsum(sorted_w)
    j = min(int(np.searchsorted(cum, q * cum[-1] * (1.0 - 1e-12), side="left")), n - 1)
    return float(_xk.decode_keys(sorted_keys[j : j + 1])[0])


def _relevance_events(y: FloatArray, phi: Any, threshold: Any) -> tuple[FloatArray, str]:
    # Shared with the utility-based measures (ranklens.extremes): phi is checked alike everywhere.
    t_e = check_event_threshold(threshold)
    values = relevance_values(phi, y, "y_true")
    return (values >= t_e).astype(np.float64), f"relevance >= {t_e:g} ({phi!r:.60})"


_DEFAULT_RULE = parse_events(DEFAULT_EVENTS)


def _check_value_target(xp: Any, y: Any, w: Any) -> None:
    """Refuse ``events='value'`` on a ``y_true`` (of namespace ``xp``) with a negative value on
    a row of positive weight, or without a positive (weighted) total."""
    negative = y < 0 if w is None else (y < 0) & (w > 0)
    if bool(xp.any(negative)):
        first = int(xp.argmax(negative))
        raise DomainError(
            "events='value' uses y_true as the value captured, so it must be "
            f"non-negative; got {float(y[first])!r} at position {first}"
        )
    total = float(xp.sum(y) if w is None else xp.sum(y * w))
    if not total > 0:
        raise DomainError("events='value' needs a positive total of y_true; got 0")


def _top_definition(q: float, threshold: float, share: float) -> str:
    """The text of the events ``"top:q"``: the threshold they came to and their weight share."""
    return f"top:{q:g} (y >= {threshold:.6g}; event share {share:.4g})"


#: ``events="top:q"`` on a 0/1 target is refused when it marks more than this many times ``q``
#: of the weight as events: the quantile then falls on the tie at 1, and the events are the
#: labels themselves, not a top fraction.
_TOP_SHARE_LIMIT = 2.0


def _refuse_inseparable(
    events: Any,
    rule: EventRule,
    share: float,
    binary: bool,
    definition: str,
    y_range: Callable[[], tuple[float, float]],
) -> None:
    """Refuse an event rule given by the caller that does not split ``y_true`` in two.

    A rule under which every row is an event, or none is, leaves the ROC curve, the gain and
    the lift without meaning (every lift 1, a gain area of 1/2); so does ``"top:q"`` on a 0/1
    target when the quantile falls on the tie at 1 and the events are the labels, a share far
    from ``q``. The default (``events=None``) and ``"value"`` are not rules of the caller and
    are left to the measures (NaN with a warning). ``share`` is the events' (weighted) share,
    ``binary`` whether the target holds only 0 and 1, ``y_range`` the target's smallest and
    largest values (read only for the message).
    """
    if rule.kind in ("default", "value"):
        return
    too_wide = rule.kind == "top" and binary and share > _TOP_SHARE_LIMIT * rule.bound
    if 0.0 < share < 1.0 and not too_wide:
        return
    lo, hi = y_range()
    given = f"events={events!r}"
    if binary and lo == 0.0 and hi == 1.0:
        target = "the target has only the values 0 and 1"
        advice = "leave events out (a 0/1 target is its own events) or use events='>0'"
    else:
        target = f"the target ranges from {lo:.6g} to {hi:.6g}"
        advice = "choose a rule that leaves both events and non-events"
    if share >= 1.0:
        raise ValueError(f"{given} marks every row as an event ({definition}): {target}; {advice}")
    if share <= 0.0:
        raise ValueError(f"{given} marks no row as an event ({definition}): {target}; {advice}")
    raise ValueError(
        f"{given} gives an event share of {share:.1%}, not {rule.bound:.1%} ({definition}): "
        f"{target}, so the top {rule.bound:.1%} falls on the tie at 1; {advice}"
    )


def _event_response(
    y: FloatArray, events: Any, w: FloatArray | None
) -> tuple[FloatArray, bool, str]:
    """(response, is_value, definition) for the event definition ``events``.

    A rule of the caller that does not split ``y`` in two is refused with a ``ValueError``
    (:func:`_refuse_inseparable`).
    """
    given = rule = parse_events(events)
    if rule.kind == "default":
        if _is_binary(y):
            return y, False, "binary"
        rule = _DEFAULT_RULE
    if rule.kind == "value":
        _check_value_target(np, y, w)
        return y, True, "value"
    if rule.kind == "top":
        v = _top_threshold(y, rule.bound, w)
        response = (y >= v).astype(np.float64)
        share = _event_share(response, w)
        text = _top_definition(rule.bound, v, share)
        shown = f"y >= {v:.6g}; event share {share:.4g}"
    else:
        if rule.kind == "relevance":
            response, text = _relevance_events(y, rule.relevance, rule.relevance_threshold)
        else:
            response, text = rule.threshold_events(y)
        share, shown = _event_share(response, w), text
    _refuse_inseparable(
        events, given, share, _is_binary(y), shown, lambda: (float(y.min()), float(y.max()))
    )
    return response, False, text


def _event_share(response: FloatArray, w: FloatArray | None) -> float:
    """The (weighted) share of the rows that are events: exactly 0 or 1 when none or all are."""
    if response.all():
        return 1.0
    if not response.any():
        return 0.0
    return float(response.mean() if w is None else (response @ w) / w.sum())


def check_events(
    y_true: ArrayLike, events: EventsLike, *, sample_weight: ArrayLike | None = None
) -> str:
    """Apply the event definition ``events`` to ``y_true`` and say what it came to.

    The check every measure taking ``events=`` makes, done once up front (by
    :func:`ranklens.evaluate_models` and ``ranklens evaluate --events``) so that a bad
    definition stops the run before any work.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The target.
    events : str, float, callable or (callable, float), optional
        As in :func:`roc_curve`.
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights (rows of weight 0 are left out, as by the measures).

    Returns
    -------
    str
        The definition as the results report it (``"binary"``, ``"y >= 100"``,
        ``"top:0.1 (y >= 42; event share 0.1)"``, ...).

    Raises
    ------
    ValueError
        If ``events`` is not a definition :func:`roc_curve` accepts; if a definition given
        (not None, not ``"value"``) makes every row an event or none, or is ``"top:q"`` on a
        0/1 target whose event share is more than twice ``q`` (the quantile falls on the tie
        at 1); if ``y_true`` or ``sample_weight`` is invalid. The message names ``events``.
    TypeError
        If ``y_true`` holds data that are not numbers.
    """
    y = as_1d_float(y_true, "y_true")
    return _target(y, events, sample_weight).definition


def fixed_events(
    y_true: ArrayLike, events: EventsLike = None, *, sample_weight: ArrayLike | None = None
) -> EventsLike:
    """The event definition ``events`` fixed on all of ``y_true``, to apply unchanged to subsets.

    A ``"top:q"`` rule (and the default :data:`DEFAULT_EVENTS` on a non-binary ``y_true``) names
    a share of the rows it meets: applied to a subset (a segment, a time window) it would pick
    that subset's own top ``q``, a different set of events in every subset. Fixed here, it becomes
    the threshold it came to on all the rows, ``">=v"`` (``v`` the true top ``q``'s smallest
    value, ties at ``v`` included, as :func:`roc_curve` takes them), so every subset counts the
    same events. Every other definition is returned as given: a threshold, ``"value"``, a
    relevance rule, or None on a 0/1 target (its labels).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The target, all rows.
    events : str, float, callable or (callable, float), optional
        As in :func:`roc_curve`.
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights (the top ``q`` is a share of the weight).

    Returns
    -------
    str, float, callable, tuple or None
        The definition to give every subset.

    Raises
    ------
    ValueError
        As :func:`check_events`.
    """
    y = as_1d_float(y_true, "y_true")
    target = _target(y, events, sample_weight)
    rule = parse_events(events)
    if rule.kind == "default" and target.definition != "binary":
        rule = _DEFAULT_RULE
    if rule.kind != "top":
        return events
    w = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    if w is not None and not (w > 0).all():
        y, w = y[w > 0], w[w > 0]
    # repr round-trips a float exactly, so the subset applies the very same threshold
    return f">={_top_threshold(y, rule.bound, w)!r}"


def event_flags(y_true: ArrayLike, events: EventsLike = None) -> FloatArray | None:
    """Each row's 0/1 event under the definition ``events`` (None for ``events="value"``).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The target.
    events : str, float, callable or (callable, float), optional
        As in :func:`roc_curve`; a ``"top:q"`` rule takes the top ``q`` of these rows
        (:func:`fixed_events` fixes it on a larger set first).

    Returns
    -------
    ndarray of float64 of shape (n,), or None
        1.0 for an event, 0.0 otherwise; None when the target is the value itself.

    Raises
    ------
    ValueError
        As :func:`check_events`.
    """
    y = as_1d_float(y_true, "y_true")
    response, is_value, _ = _event_response(y, events, None)
    return None if is_value else np.asarray(response, dtype=np.float64)


def _target(y: FloatArray, events: Any, sample_weight: Any) -> Target:
    """The response to accumulate for the validated ``y``; rows of zero weight are dropped."""
    w = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    keep = None
    if w is not None and not (w > 0).all():
        keep = w > 0
        y, w = y[keep], w[keep]
    response, is_value, definition = _event_response(y, events, w)
    return Target(np.ascontiguousarray(response), w, keep, is_value, definition)


# ------------------------------------------------------------------------------------------------
# Ranking by score and accumulating per distinct score


def _prepare(
    y_true: Any, y_score: Any, events: Any, sample_weight: Any, score_name: str = "y_score"
) -> Ranked:
    y, score = check_pair(y_true, y_score, names=("y_true", score_name))
    _warn_if_swapped(y, score, score_name)
    return rank_scores(score, _target(y, events, sample_weight))


#: Distinct values of y_true above which a 0/1 score makes the call look swapped.
_SWAP_MIN_DISTINCT = 10


def _warn_if_swapped(y: FloatArray, score: FloatArray, score_name: str) -> None:
    """Warn when the score is 0/1 labels and y_true is continuous: the usual swapped call.

    ``roc_curve(score, labels)`` runs without error (a continuous ``y_true`` gets the default
    event definition) and gives a plausible but meaningless number, so it must not be silent.
    """
    if not _is_binary(score) or _is_binary(y):
        return
    n_distinct = np.unique(y).shape[0]
    if n_distinct < _SWAP_MIN_DISTINCT:
        return
    warnings.warn(
        f"{score_name} takes only the values 0 and 1 while y_true takes "
        f"{n_distinct} distinct values: the arguments look swapped. The order is "
        f"(y_true, {score_name}): the labels or target first, the model's score second.",
        SwappedArgumentsWarning,
        stacklevel=4,
    )


def _perfect_vertices(target: Target) -> tuple[FloatArray, FloatArray]:
    """Vertices (cumulative weight, cumulative response) of the perfect ranking (by response)."""
    keys = _xk.descending_keys(target.response)
    n = keys.shape[0]
    cw = np.zeros(n + 1)
    cr = np.zeros(n + 1)
    if target.weight is None:
        sorted_keys, _ = _xk.radix_sort(keys, target.response, False)
        cw[1:] = np.arange(1, n + 1)
        np.cumsum(_xk.decode_keys(sorted_keys), out=cr[1:])
    else:
        sorted_keys, w = _xk.radix_sort(keys, target.weight, True)
        np.cumsum(w, out=cw[1:])
        np.cumsum(w * _xk.decode_keys(sorted_keys), out=cr[1:])
    return cw, cr


def _perfect_gain(ranked: Ranked) -> tuple[FloatArray, float, FloatArray, FloatArray]:
    """Perfect gain at the model's fractions, its exact area, and its own vertices (x, gain).

    For events the perfect model targets every event first: gain = min(x / p, 1) with p the
    event share, area 1 - p/2. For values it targets the largest y first.
    """
    x = ranked.fraction
    if not ranked.target.is_value:
        p = ranked.total_events / ranked.total_weight
        if p == 0.0:
            nan = np.full_like(x, np.nan)
            return nan, math.nan, np.array([0.0, 1.0]), np.array([math.nan, math.nan])
        vx = np.array([0.0, p, 1.0]) if p < 1.0 else np.array([0.0, 1.0])
        vg = np.minimum(vx / p, 1.0)
        return np.minimum(x / p, 1.0), 1.0 - p / 2.0, vx, vg
    cw, cr = _perfect_vertices(ranked.target)
    vx, vg = cw / cw[-1], cr / cr[-1]
    return _xh.interp_sorted(x, vx, vg), _xh.trapezoid(vx, vg), vx, vg


def _interp_depth(depth: Any, x: FloatArray, values: FloatArray, *, allow_zero: bool) -> Any:
    d = np.asarray(depth, dtype=np.float64)
    low_ok = (d >= 0.0) if allow_zero else (d > 0.0)
    if not (np.isfinite(d).all() and low_ok.all() and (d <= 1.0).all()):
        bounds = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"depth must be in {bounds} (a fraction targeted); got {depth!r}")
    out = np.interp(d, x, values)
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------------------------------------
# ROC


#: The interval of a result built without one (an immutable default).
_NO_INTERVAL = ConfidenceInterval(math.nan, math.nan)


@dataclasses.dataclass(frozen=True, repr=False)
class RocCurveResult(CurveResult):
    """ROC curve of a score for binary events (:func:`roc_curve`).

    Attributes
    ----------
    fpr, tpr : ndarray
        False and true positive rates, one point per distinct score plus (0, 0) first.
    thresholds : ndarray
        ``inf``, then the distinct scores in decreasing order: point ``k`` targets every row with
        score >= ``thresholds[k]``.
    auc : float
        Area under the curve (trapezoids: tied scores count one half), 0.5 for a random model,
        1 for a perfect one.
    gini : float
        ``2 auc - 1`` (Somers' D; the accuracy ratio of :class:`GainCurveResult`).
    ks_statistic : float
        Kolmogorov-Smirnov statistic ``max(tpr - fpr)``: the largest gap between the score
        distributions of events and non-events.
    n_events, n_nonevents : float
        (Weighted) numbers of events and non-events.
    event_definition : str
        How events were defined (``"binary"``, ``"top:0.1 (y >= ...)"``, ...).
    auc_std_error : float
        DeLong's standard error of ``auc`` (DeLong, DeLong & Clarke-Pearson 1988), the events
        taken as given; NaN with fewer than two events or non-events.
    auc_ci : ConfidenceInterval
        DeLong's interval on the logit scale at ``confidence_level``, with Student's t and the
        Welch-Satterthwaite degrees of freedom (Pohar Perme & Manevski 2019; Brunner & Munzel
        2000), as :func:`ranklens.delong_interval` gives it: it stays in [0, 1] and covered its
        level at 30-1000 rows with 10 % events where the Wald interval (pROC's ``ci.auc(...,
        method = "delong")``) covered 74-86 % at 30-100 rows (``docs/coverage.md``).
    confidence_level : float
    """

    x_field = "fpr"
    y_field = "tpr"
    x_label = "false positive rate"
    y_label = "true positive rate"

    @property
    def area(self) -> float:
        """The area under the ROC curve, :attr:`auc` (``CurveResult`` protocol)."""
        return self.auc

    fpr: FloatArray
    tpr: FloatArray
    thresholds: FloatArray
    auc: float
    gini: float
    ks_statistic: float
    n_events: float
    n_nonevents: float
    event_definition: str
    auc_std_error: float = math.nan
    auc_ci: ConfidenceInterval = _NO_INTERVAL
    confidence_level: float = 0.95


def _with_auc_interval(
    result: RocCurveResult, ranked: Ranked, y_score: Any, level: float
) -> RocCurveResult:
    """``result`` with DeLong's standard error and logit interval of its AUC (Sun & Xu 2014;
    Pohar Perme & Manevski 2019), as :func:`ranklens.delong.delong_interval` gives them."""
    target = ranked.target
    if target.weight is None:
        # Every event of a tie block has the same structural component: O(blocks) from the curve.
        parts, rows = _kd.grouped_binary_parts(
            np.diff(ranked.cum_events), np.diff(ranked.cum_nonevents), result.auc
        )
        var = float(parts[0] + parts[1])
    else:
        score = as_1d_float(y_score, "y_score")  # validated already; the kept rows' scores
        part = _kd.components(
            target.response, score if target.keep is None else score[target.keep], target.weight
        )
        var = _kd.covariance(part, part)
        parts, rows = _kd.class_parts(part)
    if math.isfinite(result.auc) and not math.isfinite(var):
        warn_undefined(
            "DeLong's standard error of the AUC needs at least two events and two non-events; "
            "auc_std_error and auc_ci are NaN",
            stacklevel=4,
        )
    se = math.sqrt(max(var, 0.0)) if math.isfinite(var) else math.nan
    ci = ConfidenceInterval.undefined()
    if math.isfinite(se):
        low, high, _ = concordance_logit_interval(result.auc, parts, rows, level)
        ci = ConfidenceInterval(low, high)
    return dataclasses.replace(result, auc_std_error=se, auc_ci=ci, confidence_level=level)


def _require_events(is_value: bool, func: str) -> None:
    """Refuse a curve or measure of binary events for value-based targeting (``events="value"``)."""
    if is_value:
        raise ValueError(
            f"{func} needs binary events (true and false positives); events='value' has none. "
            "Use gain_curve/lift_curve for value-based curves, or define events (e.g. 'top:0.1')"
        )


def _auc_ks(tp: FloatArray, fp: FloatArray, p: float, n: float) -> tuple[float, float]:
    """The AUC and the KS statistic from the cumulative (weighted) counts of the ROC points.

    Counts of any scale (weights near 1e200 or 1e-300) are first brought near 1 by a power of
    two (:func:`ranklens._foundation.scaling.product_exponent`): the same digits, and no overflow or
    underflow of the products ``dFP (TP + TP_prev)`` and ``p n``.
    """
    e = product_exponent(max(p, n))
    if e:
        tp, fp, p, n = np.ldexp(tp, -e), np.ldexp(fp, -e), math.ldexp(p, -e), math.ldexp(n, -e)
    twice_area, ks = _xh.roc_sums(tp, fp, p, n)
    return twice_area / (2.0 * p * n), ks


def _roc(ranked: Ranked) -> RocCurveResult:
    _require_events(ranked.target.is_value, "roc_curve")
    tp, fp = ranked.cum_events, ranked.cum_nonevents
    p, n = ranked.total_events, ranked.total_nonevents
    if p == 0.0 or n == 0.0:
        missing = "events" if p == 0.0 else "non-events"
        warn_undefined(
            f"the ROC curve is undefined: y_true has no {missing} under the event definition "
            f"{ranked.target.definition!r}",
            stacklevel=4,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = tp / p if p > 0 else np.full_like(tp, np.nan)
        fpr = fp / n if n > 0 else np.full_like(fp, np.nan)
    if p > 0 and n > 0:
        auc, ks = _auc_ks(tp, fp, p, n)
    else:
        auc = ks = math.nan
    return RocCurveResult(
        fpr=fpr,
        tpr=tpr,
        thresholds=ranked.thresholds,
        auc=auc,
        gini=2.0 * auc - 1.0,
        ks_statistic=ks,
        n_events=p,
        n_nonevents=n,
        event_definition=ranked.target.definition,
    )


@register_curve("roc", family="targeting", from_ranked=_roc)
@raises_input_errors("y_true", "y_score", probabilities=("confidence_level",))
@shared_paragraphs
def roc_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> RocCurveResult:
    r"""ROC curve and AUC of a score (Provost & Fawcett 2013, ch. 8; Fawcett 2006).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (0/1 or bool), or a continuous target with an event definition.
    y_score : array-like of shape (n,)
        Score; higher means more likely to be an event (a regression prediction of ``y``).
    events : str, float, callable or (callable, float), optional
        What counts as an event when ``y_true`` is not binary:

        - ``"top:q"`` (or ``"top:10%"``): the true top fraction ``q`` by (weighted) share. Ties
          at the boundary are all **included**: events are ``y >= v`` with ``v`` the smallest
          value whose upper tail holds at least ``q`` of the weight, so the event share is
          ``>= q`` (it is reported in ``event_definition``). Splitting tied ``y`` at random would
          make the events depend on chance; this matches the cutoffs between distinct ``y``
          values of :func:`ranklens.ranking.cutoff_auc_curve` (Rosset et al. 2005, Figure 2).
        - a number ``t`` or ``">=t"``: events are ``y >= t``; ``">t"``: ``y > t``. For low
          extremes negate both ``y_true`` and the score.
        - a relevance function ``phi`` (:mod:`ranklens.relevance`; any callable
          ``phi(y) -> [0, 1]``): events are ``phi(y) >= t_E`` (``>=``, as in
          :func:`ranklens.extremes.regression_precision_recall`), with ``t_E`` the
          callable's ``event_threshold`` attribute if it has one, else 0.5 (the default of
          :func:`ranklens.extremes.regression_precision_recall`); pass ``(phi, t_E)`` to choose.
        - ``None`` (default): the labels if ``y_true`` is binary (only 0 and 1), else
          :data:`DEFAULT_EVENTS` (``"top:0.1"``).

        ``"value"`` (the value-based curves) has no ROC curve and raises ``ValueError``. A
        definition given that does not split ``y_true`` (every row an event, or none; or
        ``"top:q"`` on a 0/1 target whose event share is more than twice ``q``, the quantile
        on the tie at 1) raises a ``ValueError`` naming ``events`` (:func:`check_events`); the
        default leaves such data to the measures (NaN, with a warning).
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights (sampling weights for the AUC's standard error, see
        :func:`ranklens.delong.delong_interval`).
    confidence_level : float, default 0.95
        Of the AUC's interval ``auc_ci``.

    Returns
    -------
    RocCurveResult
        ``fpr``, ``tpr``, ``thresholds``, ``auc``, ``gini``, ``ks_statistic``, the counts and
        the AUC's DeLong standard error and interval (``auc_std_error``, ``auc_ci``). Without
        events or without non-events the rates and summaries are NaN, with an
        :class:`~ranklens.exceptions.UndefinedMetricWarning`.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Rank by decreasing score; at each distinct score ``t`` (targeting every row with score >= t)

    .. math::
        \mathrm{TPR}(t) = \frac{TP(t)}{p}, \qquad \mathrm{FPR}(t) = \frac{FP(t)}{n},

    with weighted counts. The curve starts at (0, 0) (nobody targeted, threshold ``inf``) and has
    one point per distinct score; tied scores are one straight segment, so the AUC (trapezoids)
    is the probability that a random event outscores a random non-event, ties counting one half.
    The random model is the diagonal (AUC 0.5), the perfect model goes through (0, 1) (AUC 1).
    Identical to ``sklearn.metrics.roc_curve(..., drop_intermediate=False)`` and
    ``roc_auc_score`` (with ``sample_weight`` too; rows of weight 0 are dropped as there).

    The AUC's standard error is DeLong's (DeLong, DeLong & Clarke-Pearson 1988), from the
    structural components ``V10`` (events) and ``V01`` (non-events), which are constant within a
    tie block of scores and so come from the curve's own counts (Sun & Xu 2014's midranks):
    ``Var = S10 / p + S01 / n``. For a continuous ``y_true`` the events are taken as fixed (their
    definition from the data, e.g. a quantile, is not part of the variance).

    References
    ----------
    %(provost2013)s

    %(fawcett2006)s

    %(delong1988)s

    %(sun2014)s

    Examples
    --------
    >>> r = roc_curve([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
    >>> r.fpr.tolist(), r.tpr.tolist(), r.auc
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0], 0.875)
    """
    level = check_probability(confidence_level, "confidence_level")
    ranked = _prepare(y_true, y_score, events, sample_weight)
    return _with_auc_interval(_roc(ranked), ranked, y_score, level)


# ------------------------------------------------------------------------------------------------
# Gain and lift


@dataclasses.dataclass(frozen=True, repr=False)
class GainCurveResult(CurveResult):
    """Cumulative gain (cumulative response) curve (:func:`gain_curve`).

    Attributes
    ----------
    fraction_targeted : ndarray
        Share of the (weighted) rows targeted, from 0 to 1; one point per distinct score.
    gain : ndarray
        Share of all events (or of the total value) captured by those rows: the slides' TPR.
    thresholds : ndarray
        ``inf``, then the distinct scores in decreasing order.
    n_targeted : ndarray
        (Weighted) number of rows targeted at each point.
    random_gain, perfect_gain : ndarray
        The baselines at the same fractions: ``x`` for random targeting; for a perfect model
        ``min(x / p, 1)`` with ``p`` the event share (or, for values, the largest ``y`` first).
    area, random_area, perfect_area : float
        Areas under the curves over x in [0, 1]: ``random_area`` is 0.5, ``perfect_area`` is
        ``1 - p/2`` for events.
    accuracy_ratio : float
        ``(area - 1/2) / (perfect_area - 1/2)``: 0 for random, 1 for perfect. For binary events
        it equals ``2 AUC - 1`` (the Gini coefficient), ties and weights included.
    total_events : float
        (Weighted) number of events, or the (weighted) total of ``y`` for ``events="value"``.
    total_weight : float
        (Weighted) number of rows.
    event_definition : str
        How events were defined (``"value"`` for value curves).
    """

    x_field = "fraction_targeted"
    y_field = "gain"
    x_label = "share targeted"
    y_label = "share of events captured"

    fraction_targeted: FloatArray
    gain: FloatArray
    thresholds: FloatArray
    n_targeted: FloatArray
    random_gain: FloatArray
    perfect_gain: FloatArray
    area: float
    random_area: float
    perfect_area: float
    accuracy_ratio: float
    total_events: float
    total_weight: float
    event_definition: str

    def at(self, depth: Any) -> Any:
        """Gain when the top fraction ``depth`` (in [0, 1]) is targeted (straight across ties)."""
        return _interp_depth(depth, self.fraction_targeted, self.gain, allow_zero=True)


def _gain(ranked: Ranked, func: str = "gain curve") -> GainCurveResult:
    x = ranked.fraction
    gain = gain_or_undefined(ranked, func)
    perfect, perfect_area, _, _ = _perfect_gain(ranked)
    exact_ratio = None
    counts = not ranked.target.is_value and ranked.total_events > 0
    if counts and integer_counts(ranked.cum_weight, ranked.cum_events):
        # integer counts: the area and the accuracy ratio as ratios of exact integers, one
        # rounding each (a running float sum drifts by O(n) ulps: 4e-14 relative at n = 2e7)
        area, exact_ratio = gain_ratios_exact(
            gain_twice_exact(ranked.cum_weight, ranked.cum_events),
            int(ranked.total_weight),
            int(ranked.total_events),
        )
    else:
        area = _xh.trapezoid(x, gain)
    if math.isnan(area):
        ratio = math.nan
    elif perfect_area > 0.5:
        # (area - 1/2) / (perfect - 1/2) with perfect = 1 - E / (2 W)
        ratio = exact_ratio if exact_ratio is not None else (area - 0.5) / (perfect_area - 0.5)
    else:
        warn_undefined(
            "the accuracy ratio is undefined: the perfect model is no better than random "
            "(every row is an event, or every value is equal)",
            stacklevel=4,
        )
        ratio = math.nan
    return GainCurveResult(
        fraction_targeted=x,
        gain=gain,
        thresholds=ranked.thresholds,
        n_targeted=ranked.cum_weight,
        random_gain=x.copy(),
        perfect_gain=perfect,
        area=area,
        random_area=0.5,
        perfect_area=perfect_area,
        accuracy_ratio=ratio,
        total_events=ranked.total_events,
        total_weight=ranked.total_weight,
        event_definition=ranked.target.definition,
    )


def _at_grid(result: Any, grid: np.ndarray) -> np.ndarray:
    return np.asarray(result.at(grid), dtype=np.float64)


def _is_nonnegative_continuous(y: np.ndarray) -> bool:
    """Value curves need y >= 0; a 0/1 target has events already."""
    return bool(np.all(y >= 0) and not np.all(np.isin(y, (0.0, 1.0))))


def _curve_sweep_state(y: FloatArray, pred: FloatArray) -> Any:
    """The targeting sweep's orders for one model (default events), for the curve bands."""
    return _sweep_prepare(y, pred[None, :], {})


def _unit_scale(w: FloatArray) -> FloatArray:
    """Replicate weights (rows, n) divided by one power of two that brings the largest row sum
    near 1 when it is of extreme size (exact: the sweeps' ratios keep every digit)."""
    e = product_exponent(float(w.sum(axis=1).max())) if w.size else 0
    return np.ldexp(w, -e) if e else w


def _curve_sweep(state: Any, weights: np.ndarray, grid: np.ndarray, *, lift: bool) -> Any:
    w = np.ascontiguousarray(weights, dtype=np.float64)
    args = (
        w,
        state.y_order,
        state.y_group_sorted,
        state.nonbinary,
        state.top,
        state.orders,
        state.y_by_pred,
        state.group_by_pred,
        state.new_group,
        np.ascontiguousarray(grid, dtype=np.float64),
        lift,
    )
    return _xpc.gain_grid_host(*args)


def _gain_sweep(state: Any, weights: np.ndarray, grid: np.ndarray) -> Any:
    """The gain curve of each weight row on ``grid`` from one weighted pass over the rows
    sorted once (:mod:`ranklens._compute.kernels.curve_sweeps`), as ``gain_curve(...).at`` reads
    it."""
    return _curve_sweep(state, weights, grid, lift=False)


def _lift_sweep(state: Any, weights: np.ndarray, grid: np.ndarray) -> Any:
    """The lift curve of each weight row on ``grid`` (:func:`_gain_sweep` over the depth)."""
    return _curve_sweep(state, weights, grid, lift=True)


@register_curve(
    "value_gain",
    family="targeting",
    fixed={"events": "value"},
    applies=_is_nonnegative_continuous,
    description="Share of the total target value captured by targeting the top predictions.",
    from_ranked=_gain,
)
@register_curve(
    "gain",
    family="targeting",
    on_grid=_at_grid,
    from_ranked=_gain,
    sweep=CurveSweepForm(_curve_sweep_state, _gain_sweep),
)
@raises_input_errors("y_true", "y_score")
@shared_paragraphs
def gain_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
) -> GainCurveResult:
    r"""Cumulative gain curve: the slides' *cumulative response curve* (Provost & Fawcett 2013).

    Parameters
    ----------
    y_true, y_score, events, sample_weight
        As in :func:`roc_curve`; ``events="value"`` is allowed here.

    Returns
    -------
    GainCurveResult
        Use ``.at(0.1)`` for the share captured by the top 10 %.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Targeting the top fraction ``x`` of rows by decreasing score captures

    .. math::
        G(x) = \frac{\sum_{i\ \mathrm{targeted}} w_i r_i}{\sum_i w_i r_i},

    where ``r_i`` is the event indicator (the slides' TPR) or, with ``events="value"``, ``y_i``
    itself (share of total value captured: what a wallet or donation targeter wants; ``y`` must
    be non-negative). One point per distinct score, straight segments across ties (the expected
    gain under random tie-breaking). The random model is ``G(x) = x`` (area 1/2); the perfect
    model targets every event (or the largest values) first. The area under the curve and the
    accuracy ratio ``(area - 1/2) / (perfect area - 1/2)`` summarise it; for binary events the
    ratio equals ``2 AUC - 1``.

    References
    ----------
    %(provost2013)s

    Examples
    --------
    A worked example with 20 % responders, 30 % of whom are in the top decile:

    >>> y = [1] * 3 + [0] * 2 + [1] * 7 + [0] * 38
    >>> g = gain_curve(y, -np.arange(50.0))
    >>> round(g.at(0.1), 6), round(float(g.perfect_gain[5]), 6)
    (0.3, 0.5)
    """
    return _gain(_prepare(y_true, y_score, events, sample_weight))


@dataclasses.dataclass(frozen=True, repr=False)
class LiftCurveResult(CurveResult):
    """Lift curve (:func:`lift_curve`): gain divided by the fraction targeted.

    Attributes
    ----------
    fraction_targeted : ndarray
        Share of rows targeted, one point per distinct score (x = 0, where lift is 0/0, is
        left out).
    lift : ndarray
        ``gain / fraction_targeted``; 1 for the random model.
    gain : ndarray
        The cumulative gain at the same points (so ``lift * fraction_targeted``).
    thresholds : ndarray
        The distinct scores in decreasing order.
    random_lift, perfect_lift : ndarray
        Baselines at the same fractions (ones; ``min(x / p, 1) / x`` for events).
    area, perfect_area : float
        Exact integral of the lift over (0, 1] along the straight gain segments (random model: 1;
        perfect model with event share ``p``: ``1 + ln(1/p)``).
    total_events, total_weight : float
        As in :class:`GainCurveResult`.
    event_definition : str
        How events were defined.
    """

    x_field = "fraction_targeted"
    y_field = "lift"
    x_label = "share targeted"
    y_label = "lift"

    fraction_targeted: FloatArray
    lift: FloatArray
    gain: FloatArray
    thresholds: FloatArray
    random_lift: FloatArray
    perfect_lift: FloatArray
    area: float
    perfect_area: float
    total_events: float
    total_weight: float
    event_definition: str

    def at(self, depth: Any) -> Any:
        """Lift when the top fraction ``depth`` (in (0, 1]) is targeted: gain(depth) / depth.

        The gain is read off its straight segments, so inside a tie this is the expected lift
        under random tie-breaking.
        """
        x = np.concatenate(([0.0], self.fraction_targeted))
        g = np.concatenate(([0.0], self.gain))
        gain = _interp_depth(depth, x, g, allow_zero=False)
        return gain / float(depth) if isinstance(gain, float) else gain / np.asarray(depth)


def _lift(ranked: Ranked) -> LiftCurveResult:
    x = ranked.fraction
    gain = gain_or_undefined(ranked, "lift curve")
    perfect, _, vx, vg = _perfect_gain(ranked)
    return LiftCurveResult(
        fraction_targeted=x[1:],
        lift=gain[1:] / x[1:],
        gain=gain[1:],
        thresholds=ranked.thresholds[1:],
        random_lift=np.ones_like(x[1:]),
        perfect_lift=perfect[1:] / x[1:],
        area=_xh.lift_area(x, gain) if ranked.total_events > 0 else math.nan,
        perfect_area=_xh.lift_area(vx, vg) if ranked.total_events > 0 else math.nan,
        total_events=ranked.total_events,
        total_weight=ranked.total_weight,
        event_definition=ranked.target.definition,
    )


@register_curve(
    "lift",
    family="targeting",
    on_grid=_at_grid,
    from_ranked=_lift,
    sweep=CurveSweepForm(_curve_sweep_state, _lift_sweep),
)
@raises_input_errors("y_true", "y_score")
@shared_paragraphs
def lift_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
) -> LiftCurveResult:
    r"""Lift curve (Provost & Fawcett 2013, ch. 8): how much better than random targeting is.

    Parameters
    ----------
    y_true, y_score, events, sample_weight
        As in :func:`gain_curve` (``events="value"`` allowed).

    Returns
    -------
    LiftCurveResult

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    .. math::
        \mathrm{Lift}(x) = \frac{G(x)}{x} = \frac{\mathrm{TPR}}{\%Y},

    with ``G`` the cumulative gain of :func:`gain_curve`. A random model has lift 1; lift 2 means
    the targeted group holds twice the event rate (or mean value) of the whole population. The
    perfect model with event share ``p`` has lift ``1/p`` up to ``x = p`` (e.g. 5 at 10 %
    with 20 % positives). Points are the distinct scores; between them the gain is straight, so
    ``.at(depth)`` is the expected lift under random tie-breaking.

    References
    ----------
    %(provost2013)s

    Examples
    --------
    >>> y = [1] * 3 + [0] * 2 + [1] * 7 + [0] * 38
    >>> round(lift_curve(y, -np.arange(50.0)).at(0.1), 6)
    3.0
    """
    return _lift(_prepare(y_true, y_score, events, sample_weight))


# ------------------------------------------------------------------------------------------------
# Decile table


#: What each measure computes on a CUDA device when its inputs live there (the
#: docstrings' device paragraph, :func:`ranklens._foundation.docstrings.device_inputs`).
_ON_DEVICE_TABLE = (
    "the events, the sort by score and the cumulative sums of every distinct score; the table"
    " is read off those sums on the host, as on the CPU (the same values; integer weights "
    "summed exactly)"
)
_ON_DEVICE_PROFIT = (
    "the events, the sort by score and the cumulative sums of every distinct score; the "
    "profit is read off those sums on the host, as on the CPU (the perfect profit of a "
    "``value_margin`` sorts a host copy of ``y_true``)"
)
_ON_DEVICE_SCALAR = (
    "the sort and every sum, with the CPU's value (integer weights summed exactly in int64, "
    "floats to rounding)"
)


@register_curve("decile_table", family="targeting")
@raises_input_errors("y_true", "y_score", counts=("n_bins",))
@computes_where_inputs_live(_ON_DEVICE_TABLE)
@shared_paragraphs
def decile_table(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    n_bins: int = 10,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
) -> DecileTableResult:
    r"""Gains table by score decile (or any number of equal bins): cumulative response and lift.

    Parameters
    ----------
    y_true, y_score, events, sample_weight
        As in :func:`gain_curve` (``events="value"``: the bins report value sums and means).
    n_bins : int, default 10
        Number of equal bins (10 = deciles, 20 = ventiles).

    Returns
    -------
    DecileTableResult
        With ``to_frame()`` for a pandas DataFrame.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Bin ``k`` holds the ranked slice from ``(k-1)/K`` to ``k/K`` of the (weighted) population,
    highest scores first, and reports its count, events, event rate, the cumulative gain
    ``G(k/K)``, the cumulative lift ``G(k/K) / (k/K)``, the bin lift (bin rate / overall rate)
    and ``KS_k = TPR_k - FPR_k``.

    **Ties straddling a bin boundary** are not cut arbitrarily: the tied group is shared between
    the bins in proportion to the weight falling on each side, and its events in the same
    proportion (the expectation under random tie-breaking). So every bin holds exactly 1/K of
    the weight and ``cumulative_gain`` equals ``gain_curve(...).at(k/K)`` exactly; counts and
    events may be fractional. Bins that follow quantile cut points instead would have unequal
    sizes whenever scores tie.

    %(device_inputs)s

    References
    ----------
    %(provost2013)s

    Examples
    --------
    >>> t = decile_table([1, 0, 1, 1, 0, 0, 0, 1, 0, 0], np.arange(10.0)[::-1], n_bins=5)
    >>> t.events.tolist(), t.lift.round(3).tolist()
    ([1.0, 2.0, 0.0, 1.0, 0.0], [1.25, 1.875, 1.25, 1.25, 1.0])
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    if _xm.on_device(y_true, y_score, sample_weight):  # the device follows the data
        ranked = _device_ranked("decile_table", y_true, y_score, events, sample_weight)
    else:
        ranked = _prepare(y_true, y_score, events, sample_weight)
    total_w, total_e = ranked.total_weight, ranked.total_events
    gain = gain_or_undefined(ranked, "decile table")
    fractions = np.arange(n_bins + 1) / n_bins
    bounds = np.arange(n_bins + 1) * total_w / n_bins  # exact when n_bins divides the total
    bounds[-1] = total_w
    cw, ce = ranked.cum_weight, ranked.cum_events
    cum_events = np.interp(bounds, cw, ce)
    cum_events[0], cum_events[-1] = 0.0, total_e
    cum_count = bounds
    ends = cw[1:]
    first_group = np.minimum(np.searchsorted(ends, bounds[:-1], side="right"), ends.shape[0] - 1)
    last_group = np.minimum(np.searchsorted(ends, bounds[1:], side="left"), ends.shape[0] - 1)
    scores = ranked.thresholds[1:]
    cum_gain = np.interp(bounds[1:], cw, gain) if total_e > 0 else np.full(n_bins, np.nan)
    if ranked.target.is_value:
        fpr = fractions[1:]  # the KS of a value target: the gain against the share of rows
    else:
        n_non = ranked.total_nonevents
        fpr = (cum_count[1:] - cum_events[1:]) / n_non if n_non > 0 else np.full(n_bins, np.nan)
        if n_non == 0.0 and total_e > 0:
            warn_undefined(
                "the KS column is undefined: y_true has no non-events under the event definition "
                f"{ranked.target.definition!r}",
                stacklevel=3,
            )
    return decile_table_result(
        cum_count=cum_count,
        cum_events=cum_events,
        cum_gain=cum_gain,
        fpr=fpr,
        score_max=scores[first_group],
        score_min=scores[last_group],
        total_count=total_w,
        total_events=total_e,
        definition=ranked.target.definition,
    )


# ------------------------------------------------------------------------------------------------
# Profit


@dataclasses.dataclass(frozen=True, repr=False)
class ProfitCurveResult(CurveResult):
    """Profit against the fraction targeted (:func:`profit_curve`).

    Attributes
    ----------
    fraction_targeted, n_targeted : ndarray
        Share and (weighted) number of rows targeted, one point per distinct score from 0.
    thresholds : ndarray
        ``inf``, then the distinct scores in decreasing order.
    profit, random_profit, perfect_profit : ndarray
        Total profit of the model, of random targeting of the same number of rows, and of the
        perfect ranking, at each point.
    area : float
        Mean profit over depths, ``integral of profit dx`` over [0, 1].
    best_profit, best_fraction, best_n_targeted, best_threshold : float
        The profit-maximising point (the shallowest one if several tie); threshold ``inf`` means
        "target nobody".
    max_targets : int or None
        ``floor(budget / cost_per_target)`` (None without a budget).
    budget_profit, budget_fraction, budget_n_targeted, budget_threshold : float or None
        The best profit with at most ``max_targets`` (weighted) rows targeted. If the budget ends
        inside a tie, the last group is targeted in part and the profit is the expectation under
        random tie-breaking. None without a budget.
    cost_benefit : tuple or None
        The 2x2 matrix used ``((TP, FN), (FP, TN))``, or None for a value margin.
    value_margin, cost_per_target, budget : float or None
        The parameters used.
    event_definition : str
        How events were defined (``"value"`` with ``value_margin``).
    """

    x_field = "fraction_targeted"
    y_field = "profit"
    x_label = "share targeted"
    y_label = "profit"

    fraction_targeted: FloatArray
    n_targeted: FloatArray
    thresholds: FloatArray
    profit: FloatArray
    random_profit: FloatArray
    perfect_profit: FloatArray
    area: float
    best_profit: float
    best_fraction: float
    best_n_targeted: float
    best_threshold: float
    max_targets: int | None
    budget_profit: float | None
    budget_fraction: float | None
    budget_n_targeted: float | None
    budget_threshold: float | None
    cost_benefit: tuple[tuple[float, float], tuple[float, float]] | None
    value_margin: float | None
    cost_per_target: float | None
    budget: float | None
    event_definition: str

    def at(self, depth: Any) -> Any:
        """Profit when the top fraction ``depth`` (in [0, 1]) is targeted (expected within ties)."""
        return _interp_depth(depth, self.fraction_targeted, self.profit, allow_zero=True)


def _max_targets(budget: float, cost: float) -> int:
    # Exact decimal arithmetic: 0.3 / 0.1 must allow 3 targets, not 2.
    ratio = Fraction(repr(float(budget))) / Fraction(repr(float(cost)))
    return math.floor(ratio)


def _best(values: FloatArray) -> int:
    return int(np.argmax(values))  # first maximum: the shallowest depth


def _profit_from_ranked(
    ranked: Ranked,
    *,
    cost_benefit: Any = None,
    value_margin: float | None = None,
    cost_per_target: float | None = None,
    budget: float | None = None,
    events: EventsLike = None,
) -> ProfitCurveResult:
    """:func:`profit_curve` from the ranked cumulative sums: of the events with a cost-benefit
    matrix; of the value with a value margin, whose perfect profit reads ``ranked.target``'s
    response and weights (the distinct values of ``y`` with their weights suffice)."""
    spec, _ = profit_spec(cost_benefit, value_margin, cost_per_target, budget, events)
    return _profit(ranked, spec, budget)


@register_curve(
    "profit",
    family="targeting",
    needs_any=("cost_benefit", "value_margin"),
    # a margin on captured value works on y itself, whatever events the other curves use
    fixed_with={"value_margin": {"events": "value"}},
    from_ranked=_profit_from_ranked,
)
@raises_input_errors("y_true", "y_score")
@computes_where_inputs_live(_ON_DEVICE_PROFIT)
@shared_paragraphs
def profit_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    cost_benefit: Any = None,
    value_margin: float | None = None,
    cost_per_target: float | None = None,
    budget: float | None = None,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
) -> ProfitCurveResult:
    r"""Profit by fraction targeted, the best depth and the best profit within a budget.

    Parameters
    ----------
    y_true, y_score, events, sample_weight
        As in :func:`roc_curve`. With ``value_margin``, ``events`` must be None or ``"value"``.
    cost_benefit : array-like of shape (2, 2), optional
        ``[[b_TP, b_FN], [b_FP, b_TN]]``: rows actual positive / negative, columns targeted /
        not targeted (the slides' layout).
    value_margin : float, optional
        Profit per unit of ``y`` captured (instead of ``cost_benefit``).
    cost_per_target : float, optional
        Cost of one offer: required with ``value_margin`` and with ``budget``.
    budget : float, optional
        Total spend allowed; sample weights count as customers.

    Returns
    -------
    ProfitCurveResult
        The curve, baselines, ``best_*`` and ``budget_*`` summaries.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    **Events** (binary ``y_true`` or an event definition): with the slides' cost-benefit matrix

    ======================  ============  ================
    actual \\ decision       targeted (Y)  not targeted (N)
    ======================  ============  ================
    positive (p)             ``b_TP``      ``b_FN``
    negative (n)             ``b_FP``      ``b_TN``
    ======================  ============  ================

    passed as ``cost_benefit=[[b_TP, b_FN], [b_FP, b_TN]]``, targeting every row with score
    >= ``t`` earns ``b_TP TP + b_FN FN + b_FP FP + b_TN TN`` (weighted counts). Example:
    ``[[4, 0], [-5, 0]]`` (revenue 9 - cost 5), 500 p and 500 n: profit -500 when everybody is
    targeted, 160 for 240 p and 160 n in the top 400.

    **Values** (``value_margin=m``, ``cost_per_target=c``): targeting a set earns
    ``m * sum(w y) - c * sum(w)`` over it (a margin on the value captured minus the cost of the
    offers); ``y_true`` must be non-negative.

    **Baselines.** The random model targets the same fraction ``x`` at random, so it catches the
    fraction ``x`` of every cell of the matrix (the random model must target the same fraction as
    the model, e.g. 200 p and 200 n at 40 %, profit -200):
    ``x (b_TP p + b_FP n) + (1 - x)(b_FN p + b_TN n)``, or ``x (m V - c W)`` for values. The
    perfect model targets events (largest values) first.

    **Budget.** With a budget ``B`` and cost ``c`` per offer at most ``K = floor(B / c)`` rows
    can be targeted (e.g. 4000 / 5 = 800 of 10,000 customers). The best
    profit within budget is the maximum of the curve over ``n_targeted <= K``; the curve is
    straight inside a tie, so that maximum is at a curve point or at exactly ``K`` (partly
    targeting a tied group, valued at its expectation). ``cost_per_target`` with a
    ``cost_benefit`` matrix serves only this conversion (the matrix already holds the cost).

    %(device_inputs)s

    References
    ----------
    %(provost2013)s

    Examples
    --------
    >>> y = [1] * 240 + [0] * 160 + [1] * 260 + [0] * 340  # 240 p in the top 400
    >>> s = [2.0] * 400 + [1.0] * 600
    >>> r = profit_curve(y, s, cost_benefit=[[4, 0], [-5, 0]])
    >>> r.profit.tolist(), r.random_profit.tolist()
    ([0.0, 160.0, -500.0], [0.0, -200.0, -500.0])
    """
    spec, events = profit_spec(cost_benefit, value_margin, cost_per_target, budget, events)
    if _xm.on_device(y_true, y_score, sample_weight):  # the device follows the data
        ranked = _device_ranked(
            "profit_curve", y_true, y_score, events, sample_weight, host_target=True
        )
    else:
        ranked = _prepare(y_true, y_score, events, sample_weight)
    return _profit(ranked, spec, budget)


def _profit(ranked: Ranked, spec: ProfitSpec, budget: float | None) -> ProfitCurveResult:
    """The profit curve from the ranked cumulative sums (:func:`profit_curve`)."""
    if spec.matrix is not None:
        _require_events(ranked.target.is_value, "profit_curve with cost_benefit")
    x, cw, ce, cn = ranked.fraction, ranked.cum_weight, ranked.cum_events, ranked.cum_nonevents
    total_w, p, n = ranked.total_weight, ranked.total_events, ranked.total_nonevents
    profit = spec.profit(cw, ce, cn, p, n)
    full = float(profit[-1])
    nobody = float(profit[0])
    random_profit = nobody + x * (full - nobody)
    if spec.matrix is not None:
        perfect_tp = np.minimum(cw, p)
        perfect = spec.profit(cw, perfect_tp, cw - perfect_tp, p, n)
    else:
        vx, vv = _perfect_vertices(ranked.target)
        perfect = spec.profit(cw, _xh.interp_sorted(cw, vx, vv), cw, p, n)
    i = _best(profit)
    budget_fields: dict[str, Any] = {
        "max_targets": None,
        "budget_profit": None,
        "budget_fraction": None,
        "budget_n_targeted": None,
        "budget_threshold": None,
    }
    if budget is not None:
        assert spec.cost is not None  # a budget is accepted only with a positive cost
        k_max = _max_targets(float(budget), float(spec.cost))
        g = int(np.searchsorted(cw, k_max * (1.0 + 1e-12), side="right"))  # first not fitting
        j = _best(profit[:g])
        best_b, depth_b, thr_b = float(profit[j]), float(cw[j]), float(ranked.thresholds[j])
        if g < cw.shape[0]:
            at_k = float(np.interp(k_max, cw[g - 1 : g + 1], profit[g - 1 : g + 1]))
            if at_k > best_b:
                best_b, depth_b, thr_b = at_k, float(k_max), float(ranked.thresholds[g])
        budget_fields = {
            "max_targets": k_max,
            "budget_profit": best_b,
            "budget_fraction": depth_b / total_w,
            "budget_n_targeted": depth_b,
            "budget_threshold": thr_b,
        }
    matrix = None
    if spec.matrix is not None:
        matrix = tuple(tuple(float(v) for v in row) for row in spec.matrix)
    return ProfitCurveResult(
        fraction_targeted=x,
        n_targeted=cw,
        thresholds=ranked.thresholds,
        profit=profit,
        random_profit=random_profit,
        perfect_profit=perfect,
        area=_xh.trapezoid(x, profit),
        best_profit=float(profit[i]),
        best_fraction=float(x[i]),
        best_n_targeted=float(cw[i]),
        best_threshold=float(ranked.thresholds[i]),
        cost_benefit=matrix,  # type: ignore[arg-type]
        value_margin=spec.margin,
        cost_per_target=spec.cost,
        budget=None if budget is None else float(budget),
        event_definition=ranked.target.definition,
        **budget_fields,
    )


# ------------------------------------------------------------------------------------------------
# Comparing models by depth


@raises_input_errors("y_true", "predictions")
@shared_paragraphs
def best_model_by_depth(
    y_true: ArrayLike,
    predictions: Mapping[str, Any],
    *,
    curve: str = "lift",
    depths: Sequence[float] | None = None,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
    cost_benefit: Any = None,
    value_margin: float | None = None,
    cost_per_target: float | None = None,
) -> ModelByDepthResult:
    """Which model wins at each targeting depth, and where the winners cross.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Target, as in :func:`gain_curve`.
    predictions : mapping of str to array-like
        Model name -> scores (at least one model).
    curve : {"lift", "gain", "profit"}, default "lift"
        ``"profit"`` needs ``cost_benefit`` or ``value_margin`` (as in :func:`profit_curve`).
    depths : sequence of float, optional
        Strictly increasing fractions in (0, 1]; default 0.01, 0.02, ..., 1.
    events, sample_weight
        As in :func:`gain_curve` (``events="value"`` allowed).
    cost_benefit, value_margin, cost_per_target
        For ``curve="profit"`` only.

    Returns
    -------
    ModelByDepthResult
        ``winner`` per depth, ``crossing_depths`` and ``segments``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The slides compare lift curves: "if targeting the top 25 % of customers the tree model is
    best; beyond 25 % Naive Bayes". Each model's curve is read at every depth (expected values
    inside ties), the best model is named per depth, and each change of winner is located
    exactly: between the two grid depths around it, the curves are piecewise linear (gain,
    profit) and the last point where the new winner overtakes the old one is solved for. A
    change and change back between two grid depths is not seen: refine ``depths`` to see it.

    At a fixed depth, gain and lift order the models identically (same ``x``), and so does
    profit whenever a true positive is worth more than a false one; ``curve`` chooses the values
    reported.

    References
    ----------
    %(provost2013)s
    """
    if curve not in _CURVES:
        raise ValueError(f"curve must be one of {_CURVES}; got {curve!r}")
    if not isinstance(predictions, Mapping) or len(predictions) == 0:
        raise ValueError(
            "predictions must be a non-empty mapping of model name -> scores; got "
            f"{type(predictions).__name__}"
        )
    if curve == "profit":
        spec, events = profit_spec(cost_benefit, value_margin, cost_per_target, None, events)
    elif cost_benefit is not None or value_margin is not None or cost_per_target is not None:
        raise ValueError(
            "cost_benefit, value_margin and cost_per_target need curve='profit'; "
            f"got curve={curve!r}"
        )
    d = check_depths(depths)
    names = tuple(str(name) for name in predictions)
    y = as_1d_float(y_true, "y_true", min_n=2)
    target = _target(y, events, sample_weight)
    vertices: list[tuple[FloatArray, FloatArray]] = []
    for name, scores in predictions.items():
        _, score = check_pair(y, scores, names=("y_true", f"predictions[{name!r}]"))
        ranked = rank_scores(score, target)
        if curve == "profit":
            if spec.matrix is not None:
                _require_events(ranked.target.is_value, "best_model_by_depth with cost_benefit")
            f = spec.profit(
                ranked.cum_weight,
                ranked.cum_events,
                ranked.cum_nonevents,
                ranked.total_events,
                ranked.total_nonevents,
            )
        else:
            f = gain_or_undefined(ranked, f"{curve} curve")
        vertices.append((ranked.fraction, f))
    return by_depth(curve, d, names, vertices, target.definition)


# ------------------------------------------------------------------------------------------------
# Registered scalars: binary y as labels; any other y uses DEFAULT_EVENTS (the true top 10 %)


# The bootstrap's replicates of the registered scalars without calling them: the rows are
# sorted once by each prediction and once by y_true (its default events, the top 10 %, are an
# order statistic of the replicate's weights); a replicate is one weighted pass over each order
# (ranklens._compute.kernels.curve_sweeps.targeting_replicates_*), O(n) a replicate and model.

_SWEEP_CODES = {
    CurveStatistic.ROC_AUC: 0,
    CurveStatistic.KS: 1,
    CurveStatistic.GAIN_AREA: 2,
    CurveStatistic.ACCURACY_RATIO: 3,
    CurveStatistic.LIFT_AT: 4,
    CurveStatistic.PARTIAL_ROC_AUC: 5,
    CurveStatistic.RECALL_AT: 6,
    CurveStatistic.PRECISION_AT: 7,
    CurveStatistic.AVERAGE_PRECISION: 8,
}


@dataclasses.dataclass(frozen=True)
class _SweepState:
    y_order: NDArray[np.integer[Any]]  # rows by decreasing y (stable)
    y_group_sorted: NDArray[np.int64]  # tie group of y along y_order
    nonbinary: NDArray[np.bool_]
    top: float
    orders: NDArray[np.integer[Any]]  # (models, n): rows by decreasing prediction (stable)
    y_by_pred: FloatArray  # (models, n): y along each order
    group_by_pred: NDArray[np.int64]  # (models, n): tie group of y along each order
    new_group: NDArray[np.bool_]  # (models, n): a new prediction value starts here


def _tie_starts(sorted_keys: NDArray[np.uint64]) -> NDArray[np.bool_]:
    starts = np.ones(sorted_keys.shape[0], dtype=bool)
    starts[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return starts


def _sweep_prepare(y: FloatArray, preds: FloatArray, params: Mapping[str, Any]) -> Any:
    """Orders for :func:`_sweep_evaluate`: the events default (binary y_true, else its top
    10 %), a given top fraction (refitted per replicate, no binary shortcut), or a definition
    whose events do not depend on the weights (a threshold, a relevance), fixed once."""
    if set(params) - {"events"}:
        return None
    events = params.get("events")
    rule = parse_events(events)
    nonbinary = (y != 0.0) & (y != 1.0)
    top = _DEFAULT_RULE.bound
    response = y
    if rule.kind == "top":
        top = rule.bound
        nonbinary = np.ones(y.shape[0], dtype=bool)
    elif rule.kind != "default":
        response, is_value, _ = _event_response(y, events, None)
        if is_value:
            return None  # value curves: no ROC, and the functions say so
        nonbinary = np.zeros(y.shape[0], dtype=bool)  # the response is the events
    y_order, y_keys = _xk.ranked_order(y)
    y_group_sorted = np.cumsum(_tie_starts(y_keys)) - 1
    y_group = np.empty(y.shape[0], dtype=np.int64)
    y_group[y_order] = y_group_sorted
    ranked = [_xk.ranked_order(pred) for pred in preds]
    orders = np.stack([order for order, _ in ranked])
    return _SweepState(
        y_order=y_order,
        y_group_sorted=y_group_sorted,
        nonbinary=nonbinary,
        top=top,
        orders=orders,
        y_by_pred=np.ascontiguousarray(response[orders], dtype=np.float64),
        group_by_pred=y_group[orders],
        new_group=np.stack([_tie_starts(keys) for _, keys in ranked]),
    )


def _sweep_evaluate(state: _SweepState, weights: np.ndarray, wanted: tuple[Any, ...]) -> Any:
    """``(rows, len(wanted), models)`` replicates of the measures declaring a CurveForm."""
    codes = np.array([_SWEEP_CODES[form.statistic] for form in wanted], dtype=np.int64)
    depths = np.array([f.bound for f in wanted])
    w = np.ascontiguousarray(weights, dtype=np.float64)
    # every statistic is a ratio of (products of) weight sums: case weights of any scale are
    # brought near 1 by one power of two first (the same digits, no overflow or underflow)
    w = _unit_scale(w)
    args = (
        w,
        state.y_order,
        state.y_group_sorted,
        state.nonbinary,
        state.top,
        state.orders,
        state.y_by_pred,
        state.group_by_pred,
        state.new_group,
        codes,
        depths,
    )
    return _xpc.targeting_replicates_host(*args)


# ------------------------------------------------------------------------------------------------
# On a CUDA device (inputs that live there): the scalars from the array-namespace sweep of
# ranklens._compute.xp


#: The statistic of :mod:`ranklens._compute.xp.targeting` that each curve functional is.
_DEVICE_STATISTIC = {
    CurveStatistic.ROC_AUC: "auc",
    CurveStatistic.KS: "ks",
    CurveStatistic.GAIN_AREA: "gain_area",
    CurveStatistic.ACCURACY_RATIO: "accuracy_ratio",
    CurveStatistic.LIFT_AT: "lift",
    CurveStatistic.PARTIAL_ROC_AUC: "partial_auc",
    CurveStatistic.RECALL_AT: "recall",
    CurveStatistic.PRECISION_AT: "precision",
    CurveStatistic.AVERAGE_PRECISION: "average_precision",
}


def _device_events(
    xp: Any, y: Any, events: Any, w: Any, *, per_replicate: bool
) -> tuple[dict[str, Any], str]:
    """The event keywords of :func:`ranklens._compute.xp.targeting.prepare` for ``events`` on ``y``,
    and the event definition's text (empty for the top fraction, whose text names its threshold).

    As :func:`_event_response` on the rows of positive weight: the labels of a binary ``y``
    with ``events=None``, else the true top fraction (per replicate of weights), a threshold, the
    value itself, or a relevance function (evaluated on a host copy of ``y``). With
    ``per_replicate`` (the bootstrap) a continuous ``y`` under ``events=None`` keeps the labels
    of a replicate whose weighted rows are all 0/1, as the function called on it does.
    """
    rule = parse_events(events)
    if rule.kind == "default":
        nonbinary = (y != 0.0) & (y != 1.0)
        kept = nonbinary if w is None else nonbinary & (w > 0)
        if not bool(xp.any(kept)):
            return {"response": (y == 1.0).astype(xp.float64)}, "binary"
        binary_fallback = per_replicate and bool(xp.any(~nonbinary))
        return {"top_q": _DEFAULT_RULE.bound, "binary_fallback": binary_fallback}, ""
    if rule.kind == "top":
        return {"top_q": rule.bound}, ""
    if rule.kind == "value":
        _check_value_target(xp, y, w)
        return {"response": y, "is_value": True}, "value"
    if rule.kind == "relevance":
        # the events of each row do not depend on the weights: formed once on the host
        response, text = _relevance_events(
            np.asarray(to_host(y)), rule.relevance, rule.relevance_threshold
        )
        return {"response": xp.asarray(response), "is_value": False}, text
    response, text = rule.threshold_events(y)
    return {"response": response}, text


def _device_refuse_inseparable(
    xp: Any, events: Any, y: Any, w: Any, sums: Any, state: Any, weights: Any, definition: str
) -> None:
    """:func:`_refuse_inseparable` on a device: the event share from the curve sums of the one
    row of ``weights``, the target's values read on the device (the same message as the
    CPU's; ``definition`` is that of a rule other than a top fraction)."""
    rule = parse_events(events)
    if rule.kind in ("default", "value"):
        return
    total, n_events = float(to_host(sums.total)[0]), float(to_host(sums.events)[0])
    share = 1.0 if n_events == total else (n_events / total if n_events else 0.0)
    if 0.0 < share < 1.0 and rule.kind != "top":
        return
    kept = y if w is None else y[w > 0]
    binary = bool(xp.all((kept == 0.0) | (kept == 1.0)))
    if rule.kind == "top":
        _, at = _xpt.top_events(xp, state, weights[:, state.order])
        v = float(to_host(y[state.order][at])[0])
        shown = f"y >= {v:.6g}; event share {share:.4g}"
    else:
        shown = definition
    _refuse_inseparable(
        events,
        rule,
        share,
        binary,
        shown,
        lambda: (float(to_host(xp.min(kept))), float(to_host(xp.max(kept)))),
    )


def _device_arrays(func: str, y_true: Any, y_score: Any, sample_weight: Any) -> tuple[Any, ...]:
    """``(xp, y, score, weights)`` of ``func`` on the device; weights summing to 0 are refused."""
    xp = _xm.cupy_or_raise(f"{func} on device inputs")
    y, p, w = device_inputs(xp, y_true, y_score, sample_weight)
    if w is not None and not float(xp.sum(w)) > 0:
        raise ValueError(
            "sample_weight sums to zero; at least one observation needs positive weight"
        )
    return xp, y, p, w


def _device_weights(xp: Any, y: Any, w: Any) -> Any:
    """One row of weights for the device sums: ones, integers while exact, else float64."""
    if w is None:
        return xp.ones((1, y.shape[0]), dtype=xp.int32)
    if w.dtype.kind in "iu" and int(xp.sum(w)) ** 2 < EXACT_LIMIT:
        return w[None, :]
    return w.astype(xp.float64)[None, :]


def _device_scalar(
    func: str,
    y_true: Any,
    y_pred: Any,
    sample_weight: Any,
    events: Any,
    form: CurveForm,
) -> float:
    """One targeting scalar of device inputs: the sort and every sum on the device.

    The values are the CPU function's (the AUC to the last bit for integer weights, the other
    statistics to rounding); NaN with the CPU's warning where it is undefined.
    """
    xp, y, p, w = _device_arrays(func, y_true, y_pred, sample_weight)
    which = _DEVICE_STATISTIC[form.statistic]
    kwargs, definition = _device_events(xp, y, events, w, per_replicate=False)
    if which in ("auc", "ks", "partial_auc"):
        _require_events(bool(kwargs.get("is_value")), func)
    if bool(xp.all((p == 0.0) | (p == 1.0))) and not bool(xp.all((y == 0.0) | (y == 1.0))):
        _warn_if_swapped(np.asarray(to_host(y)), np.asarray(to_host(p)), "y_pred")
    state = _xpt.prepare(xp, y, p, **kwargs)
    weights = _device_weights(xp, y, w)
    if weights.dtype.kind == "f":
        # every statistic is a ratio of products of sums: weights of any scale are brought near
        # 1 by a power of two first (the same digits), as the CPU's _auc_ks does with its counts
        e = product_exponent(float(xp.sum(weights)))
        weights = weights * ldexp(1.0, -e) if e else weights
    sums = _xpt.curve_sums(xp, state, weights)
    _device_refuse_inseparable(xp, events, y, w, sums, state, weights, definition)
    value = float(to_host(_xpt.statistic(xp, sums, which, form.depth, max_fpr=form.max_fpr))[0])
    if math.isnan(value):
        total, n_events = float(to_host(sums.total)[0]), float(to_host(sums.events)[0])
        definition = repr(definition or events)
        if which in ("auc", "ks", "partial_auc"):
            missing = "events" if n_events == 0.0 else "non-events"
            warn_undefined(
                f"the ROC curve is undefined: y_true has no {missing} under the event "
                f"definition {definition}",
                stacklevel=3,
            )
        elif n_events == 0.0 or total == 0.0:
            curve = "lift" if which == "lift" else "gain curve"
            warn_undefined(
                f"the {curve} is undefined: y_true has no events under the event definition "
                f"{definition}",
                stacklevel=3,
            )
        else:
            warn_undefined(
                "the accuracy ratio is undefined: the perfect model is no better than random "
                "(every row is an event, or every value is equal)",
                stacklevel=3,
            )
    return value


def _device_ranked(
    func: str,
    y_true: Any,
    y_score: Any,
    events: Any,
    sample_weight: Any,
    *,
    host_target: bool = False,
) -> Ranked:
    """:func:`_prepare` with the sort and the cumulative sums on the device (device inputs).

    The events, the sort by score and the cumulative weight and events at the end of every tie
    group are formed on the device; the per-group sums (one per distinct score, groups without
    weight dropped, as the CPU drops rows of weight 0) come back to the host, where the tables
    and curves are read off them by the CPU's code. ``host_target``: the target's response and
    weights are copied to the host too (the perfect profit of a value margin sorts them).
    """
    xp, y, p, w = _device_arrays(func, y_true, y_score, sample_weight)
    kwargs, definition = _device_events(xp, y, events, w, per_replicate=False)
    if bool(xp.all((p == 0.0) | (p == 1.0))) and not bool(xp.all((y == 0.0) | (y == 1.0))):
        _warn_if_swapped(np.asarray(to_host(y)), np.asarray(to_host(p)), "y_score")
    state = _xpt.prepare(xp, y, p, **kwargs)
    weights = _device_weights(xp, y, w)
    sums = _xpt.curve_sums(xp, state, weights)
    cw = np.asarray(to_host(sums.cw[0]), dtype=np.float64)
    ce = np.asarray(to_host(sums.ce[0]), dtype=np.float64)
    scores = np.asarray(to_host(p[state.order][state.g_end - 1]), dtype=np.float64)
    kept = np.flatnonzero(np.diff(cw) > 0)
    cw, ce = np.r_[0.0, cw[1:][kept]], np.r_[0.0, ce[1:][kept]]
    thresholds = np.r_[np.inf, scores[kept]]
    response = kwargs.get("response")
    if response is None:  # the true top fraction of the given weights
        ws = weights[:, state.order]
        _, at = _xpt.top_events(xp, state, ws)
        v = float(to_host(y[state.order][at])[0])
        share = float(ce[-1] / cw[-1])
        definition = _top_definition(kwargs["top_q"], v, share)
        response = y >= v
    _device_refuse_inseparable(xp, events, y, w, sums, state, weights, definition)
    keep = weight = None
    response_host = np.empty(0)
    if host_target:
        response_host = np.asarray(to_host(xp.asarray(response, dtype=xp.float64)))
        weight = None if w is None else np.asarray(to_host(w), dtype=np.float64)
        if weight is not None and not (weight > 0).all():
            keep = weight > 0
            response_host, weight = response_host[keep], weight[keep]
    target = Target(response_host, weight, keep, bool(kwargs.get("is_value")), definition)
    return Ranked(thresholds, cw, ce, cw - ce, target)


def _device_sweep_prepare(xp: Any, y: Any, preds: Any, params: Mapping[str, Any]) -> Any:
    """:attr:`ReplicateSweep.device_prepare` of the targeting measures: one
    :class:`ranklens._compute.xp.targeting.TargetState` per model (namespace arrays ``y``,
    ``preds``)."""
    kwargs, _ = _device_events(xp, y, dict(params).get("events"), None, per_replicate=True)
    return [_xpt.prepare(xp, y, pred, **kwargs) for pred in preds]


#: The functionals of the ROC curve: none for value curves (the functions raise).
_ROC_STATISTICS = (
    CurveStatistic.ROC_AUC,
    CurveStatistic.KS,
    CurveStatistic.PARTIAL_ROC_AUC,
    CurveStatistic.AVERAGE_PRECISION,
)


def _device_sweep_evaluate(xp: Any, states: Any, weights: Any, statistics: Any) -> Any:
    """:attr:`ReplicateSweep.device_evaluate` of the targeting measures: ``(rows, statistics,
    models)`` float64 in the namespace, each model's cumulative sums formed once per chunk."""
    out = xp.empty((weights.shape[0], len(statistics), len(states)), dtype=xp.float64)
    for m, state in enumerate(states):
        sums = _xpt.curve_sums(xp, state, weights)
        for j, form in enumerate(statistics):
            if state.is_value and form.statistic in _ROC_STATISTICS:
                out[:, j, m] = xp.nan  # the function raises: no ROC for value curves
                continue
            which = _DEVICE_STATISTIC[form.statistic]
            out[:, j, m] = _xpt.statistic(xp, sums, which, form.depth, max_fpr=form.max_fpr)
        del sums
    return out


_SWEEP = ReplicateSweep(
    _sweep_prepare,
    _sweep_evaluate,
    "targeting: one pass per sorted model",
    device_prepare=_device_sweep_prepare,
    device_evaluate=_device_sweep_evaluate,
)


def _curve_declarations(form: CurveForm) -> dict[str, Any]:
    """What a targeting scalar that is the functional ``form`` of the ranked cumulative curve
    declares, for ``register_metric(**...)``: the form itself (``curve``) and its bootstrap
    replicates, the same functional computed by the targeting sweep (``batched``).

    Each scalar states its functional once, as a module constant above it: its registration
    declares it through this helper and its body computes that same form (on the device; a lift
    reads its depth from it on the host too).
    """
    return {"curve": form, "batched": ReplicateForm(_SWEEP, form, ("events",))}


def _delong_events(
    y: FloatArray, score: FloatArray, sample_weight: FloatArray | None
) -> tuple[FloatArray, FloatArray, FloatArray | None]:
    """The 0/1 events of ``y`` (default definition) whose concordance with the score is the AUC."""
    target = _target(y, None, sample_weight)
    kept = score if target.keep is None else score[target.keep]
    return target.response, kept, target.weight


_ROC_AUC = CurveForm(CurveStatistic.ROC_AUC)


@register_metric(
    "roc_auc",
    plain_name="ROC AUC",
    meaning="Chance that a random event case scores above a random non-event (0.5 = chance).",
    higher_is_better=True,
    family="targeting",
    **_curve_declarations(_ROC_AUC),
    delong=ConcordanceForm(_delong_events),
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_SCALAR)
@shared_paragraphs
def roc_auc(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
    max_fpr: float | None = None,
) -> float:
    """Area under the ROC curve (binary y, else events = true top 10 %; see roc_curve).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s
    max_fpr : float in (0, 1] or None, default None
        None (or 1): the whole area. Else the standardised partial area for false positive
        rates up to ``max_fpr`` (McClish 1989; see Notes), as scikit-learn's ``roc_auc_score(...,
        max_fpr=)``; :func:`partial_roc_auc` is this at 0.2, registered for the comparisons.

    Returns
    -------
    float
        AUC in [0, 1]; 1/2 for a random score. Ties in the score count 1/2.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    AUC = P(score of a random event > score of a random non-event) + 1/2 P(tie), the area under
    the ROC curve of :func:`roc_curve`. With ``max_fpr = a`` it is McClish's (1989)
    standardisation ``1/2 (1 + (A - a^2/2) / (a - a^2/2))`` of the area ``A`` under the curve
    for false positive rates in ``[0, a]`` (:func:`partial_roc_auc` says more, and how its
    intervals and paired tests are made).

    %(device_inputs)s

    References
    ----------
    %(provost2013)s

    %(fawcett2006)s

    McClish, D. K. (1989). Analyzing a portion of the ROC curve. *Medical Decision Making*
    9(3), 190-195. doi:10.1177/0272989X8900900307
    """
    bound = _check_max_fpr(max_fpr)
    form = _ROC_AUC if bound is None else CurveForm(CurveStatistic.PARTIAL_ROC_AUC, max_fpr=bound)
    if _xm.on_device(y_true, y_pred, sample_weight):  # the device follows the data
        return _device_scalar("roc_auc", y_true, y_pred, sample_weight, events, form)
    roc = _roc(_prepare(y_true, y_pred, events, sample_weight, "y_pred"))
    return roc.auc if bound is None else _partial_auc(roc, bound)


def _check_max_fpr(max_fpr: Any) -> float | None:
    """``max_fpr`` as a float in (0, 1), or None for the whole area (None or 1)."""
    if max_fpr is None:
        return None
    if isinstance(max_fpr, bool):
        raise ValueError(f"max_fpr must be a number in (0, 1] or None; got {max_fpr!r}")
    try:
        bound = float(max_fpr)
    except (TypeError, ValueError):
        raise ValueError(f"max_fpr must be a number in (0, 1] or None; got {max_fpr!r}") from None
    if not 0.0 < bound <= 1.0:
        raise ValueError(f"max_fpr must be in (0, 1] (a false positive rate); got {max_fpr!r}")
    return None if bound == 1.0 else bound


def _partial_auc(roc: RocCurveResult, max_fpr: float) -> float:
    """McClish's standardised area of ``roc`` for false positive rates up to ``max_fpr`` in
    (0, 1): the trapezoids of its points at or left of ``max_fpr`` and of the point on the curve
    at ``max_fpr`` (NumPy's ``interp`` rule, as scikit-learn's ``roc_auc_score``); NaN where the
    curve is undefined (:func:`_roc` warned)."""
    if not math.isfinite(roc.auc):
        return math.nan
    x, y = roc.fpr, roc.tpr
    # x[0] = 0 <= max_fpr < 1 = x[-1]: the point after the last at or left of max_fpr exists
    stop = int(np.searchsorted(x, max_fpr, side="right"))
    x0, x1, y0, y1 = x[stop - 1], x[stop], y[stop - 1], y[stop]
    at = y0 if x0 == max_fpr else (y1 - y0) / (x1 - x0) * (max_fpr - x0) + y0
    area = _xh.trapezoid(np.append(x[:stop], max_fpr), np.append(y[:stop], at))
    low = 0.5 * max_fpr * max_fpr
    return 0.5 * (1.0 + (area - low) / (max_fpr - low))


_PARTIAL_ROC_AUC = CurveForm(CurveStatistic.PARTIAL_ROC_AUC, max_fpr=0.2)


# The partial AUC's replicates come from the targeting sweep; its form is declared only as the
# sweep's statistic, not as ``curve=``: the engines that compute curve functionals in pieces
# (the Dask engine) do not compute this one yet, and report it as not computed.
@register_metric(
    "partial_roc_auc",
    plain_name="partial ROC AUC",
    meaning=(
        "How well events are found before 20% of the non-events are flagged (0.5 = chance, 1 = "
        "perfect)."
    ),
    higher_is_better=True,
    family="targeting",
    batched=ReplicateForm(_SWEEP, _PARTIAL_ROC_AUC, ("events",)),
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_SCALAR)
@shared_paragraphs
def partial_roc_auc(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
    max_fpr: float = 0.2,
) -> float:
    """Standardised partial AUC for false positive rates up to 20 % (McClish 1989).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s
    max_fpr : float in (0, 1], default 0.2
        The largest false positive rate of the area; 1 gives the AUC.

    Returns
    -------
    float
        1/2 for a random score, 1 for a perfect one (below 1/2 for a curve under the diagonal
        over ``[0, max_fpr]``). :func:`roc_auc` with ``max_fpr=0.2``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    How well the score ranks where few non-events may be targeted: the part of the ROC curve a
    screening or fraud team operates on, which the whole AUC averages with the rest.

    With ``max_fpr = a``, the area ``A`` under the ROC curve of :func:`roc_curve` for false
    positive rates in ``[0, a]``, the curve read linearly at ``a`` (tied scores are a straight
    segment), standardised as McClish (1989) proposed:
    ``1/2 (1 + (A - a^2/2) / (a - a^2/2))``, so that a random score (the diagonal, area
    ``a^2/2``) gives 1/2 and a perfect one (area ``a``) gives 1; ``a = 1`` is the AUC. A curve
    below the diagonal over ``[0, a]`` gives less than 1/2. This is scikit-learn's
    ``roc_auc_score(y, s, max_fpr=a)`` and pROC's ``auc(roc, partial.auc = c(1, 1 - a),
    partial.auc.focus = "specificity", partial.auc.correct = TRUE)`` (Robin et al. 2011),
    which gives NA, with a warning, where the curve is below the diagonal.

    The area is the empirical (nonparametric) estimate whose properties and regression Dodd &
    Pepe (2003) study.

    *Intervals and tests.* There is no DeLong variance of the partial AUC: pROC refuses
    ``var(roc, method = "delong")`` and ``roc.test(..., method = "delong")`` for one and
    points to its bootstrap. Intervals and paired tests of ``partial_roc_auc`` come from
    :func:`ranklens.compare_models`' paired bootstrap (its replicates from the targeting sweep,
    one weighted pass per replicate); ``method="delong"`` refuses it by name.

    %(device_inputs)s

    References
    ----------
    McClish, D. K. (1989). Analyzing a portion of the ROC curve. *Medical Decision Making*
    9(3), 190-195. doi:10.1177/0272989X8900900307

    Dodd, L. E. and Pepe, M. S. (2003). Partial AUC estimation and regression. *Biometrics*
    59(3), 614-623. doi:10.1111/1541-0420.00071

    %(robin2011)s

    %(fawcett2006)s

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1, 0, 0, 1, 0]
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.3, 0.5, 0.7, 0.05]
    >>> round(partial_roc_auc(y, s), 4), round(partial_roc_auc(y, s, max_fpr=1.0), 4)
    (0.8611, 0.9167)
    """
    return roc_auc(y_true, y_pred, sample_weight=sample_weight, events=events, max_fpr=max_fpr)


_KS = CurveForm(CurveStatistic.KS)


@register_metric(
    "ks_statistic",
    plain_name="KS statistic",
    meaning="Largest gap between the score distributions of events and non-events.",
    higher_is_better=True,
    family="targeting",
    **_curve_declarations(_KS),
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_SCALAR)
@shared_paragraphs
def ks_statistic(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> float:
    """Kolmogorov-Smirnov statistic max(TPR - FPR) (binary y, else events = true top 10 %).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        In [0, 1]: the largest gap between the ROC curve and the diagonal.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    KS = max_t (TPR(t) - FPR(t)) over the thresholds of :func:`roc_curve`.

    %(device_inputs)s

    References
    ----------
    %(fawcett2006)s
    """
    if _xm.on_device(y_true, y_pred, sample_weight):  # the device follows the data
        return _device_scalar("ks_statistic", y_true, y_pred, sample_weight, events, _KS)
    return _roc(_prepare(y_true, y_pred, events, sample_weight, "y_pred")).ks_statistic


_GAIN_AREA = CurveForm(CurveStatistic.GAIN_AREA)


@register_metric(
    "gain_area",
    plain_name="area under the gain curve",
    meaning="Area under the cumulative gain curve: events found across all depths.",
    higher_is_better=True,
    family="targeting",
    **_curve_declarations(_GAIN_AREA),
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_SCALAR)
@shared_paragraphs
def gain_area(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> float:
    """Area under the cumulative gain curve (binary y, else events = true top 10 %).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        Area under the gain curve; 1/2 for random targeting.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The exact integral of the piecewise-linear cumulative gain curve G(x) over [0, 1]
    (:func:`gain_curve`). With event counts and integer (or no) weights, the area is computed as
    a ratio of exact integers, ``sum_j (W_j - W_{j-1}) (E_j + E_{j-1}) / (2 W E)`` over the
    distinct scores, rounded once: correctly rounded at any n, and the same bits whatever the
    order in which an engine adds the pieces (:func:`ranklens.dask.evaluate`). With real weights
    it is a running float sum (relative rounding error of order n times the unit roundoff in
    the worst case, far less in practice).

    %(device_inputs)s

    References
    ----------
    %(provost2013)s
    """
    if _xm.on_device(y_true, y_pred, sample_weight):  # the device follows the data
        return _device_scalar("gain_area", y_true, y_pred, sample_weight, events, _GAIN_AREA)
    return _gain(_prepare(y_true, y_pred, events, sample_weight, "y_pred")).area


_ACCURACY_RATIO = CurveForm(CurveStatistic.ACCURACY_RATIO)


@register_metric(
    "accuracy_ratio",
    plain_name="accuracy ratio",
    meaning="Gain over random as a share of the best possible (0 random, 1 perfect).",
    higher_is_better=True,
    family="targeting",
    **_curve_declarations(_ACCURACY_RATIO),
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_SCALAR)
@shared_paragraphs
def accuracy_ratio(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> float:
    """Gain-curve accuracy ratio, 0 random to 1 perfect (= 2 AUC - 1 for binary events).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        In [-1, 1]: 0 for a random ranking, 1 for a perfect one.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    AR = (area - 1/2) / (perfect area - 1/2), with ``area`` the area under the cumulative gain
    curve (:func:`gain_curve`); for binary events AR = 2 AUC - 1 (the Gini coefficient). With
    event counts and integer (or no) weights it is computed as the ratio of exact integers
    ``(S - W E) / (E (W - E))``, S the integer sum of :func:`gain_area`'s Notes, rounded once.

    %(device_inputs)s

    References
    ----------
    %(provost2013)s

    %(fawcett2006)s
    """
    if _xm.on_device(y_true, y_pred, sample_weight):  # the device follows the data
        return _device_scalar(
            "accuracy_ratio", y_true, y_pred, sample_weight, events, _ACCURACY_RATIO
        )
    return _gain(_prepare(y_true, y_pred, events, sample_weight, "y_pred")).accuracy_ratio


def _depth_measure(
    form: CurveForm, y_true: Any, y_score: Any, sample_weight: Any, events: Any, func: str
) -> float:
    """The lift, precision or recall of ``form`` (on the device when the data live there); a
    precision or a recall needs events, which a value target has not."""
    if _xm.on_device(y_true, y_score, sample_weight):  # the device follows the data
        return _device_scalar(func, y_true, y_score, sample_weight, events, form)
    assert form.depth is not None, "read at a depth"
    ranked = _prepare(y_true, y_score, events, sample_weight, "y_pred")
    if form.statistic is not CurveStatistic.LIFT_AT:
        _require_events(ranked.target.is_value, func)
    return _read_at_depth(ranked, form.statistic, form.depth)


def _read_at_depth(ranked: Ranked, statistic: CurveStatistic, depth: float) -> float:
    """The lift, recall or precision at ``depth`` of the ranked curve (NaN without events)."""
    name = {CurveStatistic.RECALL_AT: "recall", CurveStatistic.PRECISION_AT: "precision"}
    gain = gain_or_undefined(ranked, name.get(statistic, "lift"))
    lift = float(np.interp(depth, ranked.fraction, gain)) / depth
    share = ranked.total_events / ranked.total_weight
    return float(read_at_depth(statistic, lift, depth, share))


@dataclasses.dataclass(frozen=True)
class _AtDepth:
    """What a measure read off the ranked curve at a fixed depth says, as templates of
    ``{percent}`` (5) and ``{depth}`` (0.05): its docstring's ``Returns`` and ``Notes`` and its
    registration (``description`` None: the docstring's summary line)."""

    kind: str
    returns: str
    notes: str
    meaning: str
    targets: str = "binary"
    description: str | None = None


_AT_DEPTH = {
    CurveStatistic.LIFT_AT: _AtDepth(
        kind="lift",
        returns=(
            "Event rate (or mean value) among the top {percent} % divided by the overall rate; "
            "1 for random targeting."
        ),
        notes=(
            "Lift(x) = G(x) / x = TPR(x) / x at x = {depth:.2f}, with G the cumulative gain curve "
            "of :func:`gain_curve`; a perfect model with event share p has lift 1/p up to x = p."
        ),
        meaning="How many times more events than at random in the top {percent}% by score.",
        targets="any",
    ),
    CurveStatistic.PRECISION_AT: _AtDepth(
        kind="precision",
        returns=(
            "The share of events among the cases targeted (weighted); NaN without events, with "
            "an undefined-metric warning."
        ),
        notes=(
            ":func:`precision_at_depth` with ``depth={depth:g}``: ``precision(d) = E G(d) / (d W) "
            "= lift(d) E / W``, the lift at ``d`` times the event share, with ``W`` the total "
            "weight, ``E`` that of the events and ``G`` the cumulative gain curve of "
            ":func:`gain_curve`."
        ),
        meaning="Share of the cases in the top {percent}% by score that are events.",
        description=(
            "Precision in the top {percent} % by score: the share of events among the cases "
            "targeted (binary y, else events = true top 10 %)"
        ),
    ),
    CurveStatistic.RECALL_AT: _AtDepth(
        kind="recall",
        returns=(
            "The share of all events captured (weighted); NaN without events, with an "
            "undefined-metric warning."
        ),
        notes=(
            ":func:`recall_at_depth` with ``depth={depth:g}``: ``recall(d) = G(d) = d lift(d)``, "
            "with ``G`` the cumulative gain curve of :func:`gain_curve` (linear across tied "
            "scores)."
        ),
        meaning="Share of all events found in the top {percent}% by score.",
        description=(
            "Recall in the top {percent} % by score: the share of all events captured "
            "(binary y, else events = true top 10 %)"
        ),
    ),
}

#: The docstring of a measure at a fixed depth, filled from its :class:`_AtDepth` (each text
#: wrapped at the indentation of its place).
_AT_DEPTH_DOC = """{title} when the top {percent} % by prediction is targeted \
(binary y, else events = true top 10 %).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        {returns}

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    {notes}

    %(device_inputs)s

    References
    ----------
    %(provost2013)s
    """


def _register_at_depth(statistic: CurveStatistic, percent: int) -> Callable[..., float]:
    """The registered measure ``lift_at_<percent>``, ``precision_at_<percent>`` or
    ``recall_at_<percent>``: the functional ``statistic`` of the ranked curve at
    ``percent / 100`` (its bootstrap replicates from the targeting sweep, its Dask form the
    ranked curve), a public function of this module with its own name and docstring."""
    says = _AT_DEPTH[statistic]
    form = CurveForm(statistic, depth=percent / 100.0)
    name = f"{says.kind}_at_{percent}"

    def measure(
        y_true: ArrayLike,
        y_pred: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        events: EventsLike = None,
    ) -> float:
        return _depth_measure(form, y_true, y_pred, sample_weight, events, name)

    values = {"percent": percent, "depth": form.depth}
    doc = _AT_DEPTH_DOC.format(
        title=says.kind.capitalize(),
        percent=percent,
        returns=wrapped(says.returns.format(**values), 8),
        notes=wrapped(says.notes.format(**values), 4),
    )
    measure = made_function(measure, name, __name__, doc)
    measure = computes_where_inputs_live(_ON_DEVICE_SCALAR)(measure)
    measure = raises_input_errors("y_true", "y_pred")(measure)
    return register_metric(
        name,
        higher_is_better=True,
        family="targeting",
        description=None if says.description is None else says.description.format(**values),
        plain_name=f"{says.kind} in the top {percent}%",
        meaning=says.meaning.format(**values),
        targets=says.targets,
        **_curve_declarations(form),
    )(measure)


lift_at_5 = _register_at_depth(CurveStatistic.LIFT_AT, 5)
lift_at_10 = _register_at_depth(CurveStatistic.LIFT_AT, 10)
lift_at_20 = _register_at_depth(CurveStatistic.LIFT_AT, 20)


# ------------------------------------------------------------------------------------------------
# Events ranked by score: precision and recall at a depth, the confusion counts there, the
# average precision and the precision-recall curve (a 0/1 y_true: its positives are the events)


def _check_depth(depth: Any) -> float:
    """``depth`` as a float in (0, 1], else a ``ValueError`` naming it."""
    try:
        value = float(depth)
    except (TypeError, ValueError):
        raise ValueError(f"depth must be a number in (0, 1]; got {depth!r}") from None
    if not 0.0 < value <= 1.0:
        raise ValueError(f"depth must be in (0, 1] (the share of cases targeted); got {depth!r}")
    return value


@dataclasses.dataclass(frozen=True, repr=False)
class ConfusionCounts(Result):
    """The 2x2 counts when the top ``depth`` of the cases by score is targeted.

    Attributes
    ----------
    depth : float
        The share of the (weighted) cases targeted.
    true_positives, false_positives, false_negatives, true_negatives : float
        Weighted counts: events targeted, non-events targeted, events missed, non-events left.
        A depth that ends inside a tie of scores takes the same share of every tied case (the
        expected counts under random tie-breaking), so the counts may be fractional.
    precision, recall : float
        ``TP / (TP + FP)`` and ``TP / (TP + FN)``.
    event_definition : str
        How events were defined (``"binary"``, ``"top:0.1 (y >= ...)"``, ...).
    """

    depth: float
    true_positives: float
    false_positives: float
    false_negatives: float
    true_negatives: float
    precision: float
    recall: float
    event_definition: str


@raises_input_errors("y_true", "y_score")
@shared_paragraphs
def confusion_at_depth(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    depth: float = 0.1,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> ConfusionCounts:
    r"""The confusion counts when the top ``depth`` of the cases by score is targeted.

    Parameters
    ----------
    %(y_true_events)s
    y_score : array-like of shape (n,)
        Score; higher means more likely to be an event.
    depth : float, default 0.1
        The share of the (weighted) cases targeted, in (0, 1].
    %(sample_weight)s
    %(events)s

    Returns
    -------
    ConfusionCounts
        TP, FP, FN, TN (weighted), the precision and the recall at the depth; NaN without
        events, with an :class:`~ranklens.exceptions.UndefinedMetricWarning`.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    With ``W`` the total weight, ``E`` that of the events and ``G`` the cumulative gain curve of
    :func:`gain_curve` (linear across tied scores):

    .. math::
        TP = E\,G(d), \quad FP = d W - TP, \quad FN = E - TP, \quad TN = W - E - FP.

    The precision ``TP / (d W)`` is the lift at ``d`` times the event share ``E / W`` and the
    recall is ``G(d)`` (Provost & Fawcett 2013, ch. 8).

    References
    ----------
    %(provost2013)s

    Examples
    --------
    >>> c = confusion_at_depth([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1], depth=0.4)
    >>> c.true_positives, c.false_positives, c.false_negatives, c.true_negatives
    (1.0, 1.0, 1.0, 2.0)
    """
    d = _check_depth(depth)
    ranked = _prepare(y_true, y_score, events, sample_weight)
    _require_events(ranked.target.is_value, "confusion_at_depth")
    lift = _read_at_depth(ranked, CurveStatistic.LIFT_AT, d)
    counts = confusion_from_lift(lift, d, ranked.total_events, ranked.total_weight)
    return ConfusionCounts(depth=d, **counts, event_definition=ranked.target.definition)


@raises_input_errors("y_true", "y_score")
@shared_paragraphs
def precision_at_depth(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    depth: float = 0.1,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> float:
    r"""Precision when the top ``depth`` of the cases by score is targeted.

    Parameters
    ----------
    %(y_true_events)s
    y_score : array-like of shape (n,)
        Score; higher means more likely to be an event.
    depth : float, default 0.1
        The share of the (weighted) cases targeted, in (0, 1].
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        The (weighted) share of events among the cases targeted; the event share for random
        targeting. NaN without events, with an
        :class:`~ranklens.exceptions.UndefinedMetricWarning`.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``precision(d) = E G(d) / (d W) = lift(d) E / W``: the lift at ``d`` of
    :func:`lift_curve` times the event share. A depth that ends inside a tie of scores targets
    the same share of every tied case (the expected precision under random tie-breaking).

    References
    ----------
    %(provost2013)s

    Examples
    --------
    >>> precision_at_depth([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1], depth=0.4)
    0.5
    """
    form = CurveForm(CurveStatistic.PRECISION_AT, depth=_check_depth(depth))
    return _depth_measure(form, y_true, y_score, sample_weight, events, "precision_at_depth")


@raises_input_errors("y_true", "y_score")
@shared_paragraphs
def recall_at_depth(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    depth: float = 0.1,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> float:
    r"""Recall (the share of all events captured) when the top ``depth`` by score is targeted.

    Parameters
    ----------
    %(y_true_events)s
    y_score : array-like of shape (n,)
        Score; higher means more likely to be an event.
    depth : float, default 0.1
        The share of the (weighted) cases targeted, in (0, 1].
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        ``G(depth)``, the cumulative gain at the depth; ``depth`` for random targeting. NaN
        without events, with an :class:`~ranklens.exceptions.UndefinedMetricWarning`.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``recall(d) = G(d) = d lift(d)``, with ``G`` the cumulative gain curve of
    :func:`gain_curve` (linear across tied scores).

    References
    ----------
    %(provost2013)s

    Examples
    --------
    >>> recall_at_depth([1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.2, 0.1], depth=0.4)
    0.5
    """
    form = CurveForm(CurveStatistic.RECALL_AT, depth=_check_depth(depth))
    return _depth_measure(form, y_true, y_score, sample_weight, events, "recall_at_depth")


precision_at_5 = _register_at_depth(CurveStatistic.PRECISION_AT, 5)
precision_at_10 = _register_at_depth(CurveStatistic.PRECISION_AT, 10)
precision_at_20 = _register_at_depth(CurveStatistic.PRECISION_AT, 20)
recall_at_5 = _register_at_depth(CurveStatistic.RECALL_AT, 5)
recall_at_10 = _register_at_depth(CurveStatistic.RECALL_AT, 10)
recall_at_20 = _register_at_depth(CurveStatistic.RECALL_AT, 20)


@dataclasses.dataclass(frozen=True, repr=False)
class PrecisionRecallCurveResult(CurveResult):
    """Precision-recall curve of a score for binary events (:func:`precision_recall_curve`).

    Attributes
    ----------
    recall, precision : ndarray
        One point per distinct score, in decreasing order of the score, after the point
        (recall 0, precision 1) of nobody targeted; the points end where the recall first
        reaches 1 (as scikit-learn's).
    thresholds : ndarray
        ``inf``, then the distinct scores in decreasing order: point ``k`` targets every case
        with score >= ``thresholds[k]``.
    average_precision : float
        ``sum_k (R_k - R_{k-1}) P_k`` (:func:`average_precision_score`).
    n_events : float
        (Weighted) number of events.
    event_definition : str
        How events were defined (``"binary"``, ``"top:0.1 (y >= ...)"``, ...).
    """

    x_field = "recall"
    y_field = "precision"
    x_label = "recall"
    y_label = "precision"

    @property
    def area(self) -> float:
        """The average precision (``CurveResult`` protocol)."""
        return self.average_precision

    recall: FloatArray
    precision: FloatArray
    thresholds: FloatArray
    average_precision: float
    n_events: float
    event_definition: str


def _average_precision(ranked: Ranked) -> float:
    """``sum_k (R_k - R_{k-1}) P_k`` over the distinct scores; NaN (with a warning) without
    events."""
    e_total = ranked.total_events
    if e_total == 0.0:
        warn_undefined(
            "the average precision is undefined: y_true has no events under the event "
            f"definition {ranked.target.definition!r}",
            stacklevel=4,
        )
        return math.nan
    ce, cw = ranked.cum_events, ranked.cum_weight
    return float(np.diff(ce) @ (ce[1:] / cw[1:]) / e_total)


def _precision_recall(ranked: Ranked) -> PrecisionRecallCurveResult:
    _require_events(ranked.target.is_value, "precision_recall_curve")
    ap = _average_precision(ranked)
    ce, cw = ranked.cum_events, ranked.cum_weight
    e_total = ranked.total_events
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.r_[1.0, ce[1:] / cw[1:]]
        recall = ce / e_total if e_total > 0 else np.full_like(ce, np.nan)
    last = int(np.searchsorted(ce, e_total, side="left")) if e_total > 0 else ce.shape[0] - 1
    stop = max(last, 1) + 1
    return PrecisionRecallCurveResult(
        recall=recall[:stop],
        precision=precision[:stop],
        thresholds=ranked.thresholds[:stop],
        average_precision=ap,
        n_events=e_total,
        event_definition=ranked.target.definition,
    )


@register_curve(
    "binary_precision_recall",
    family="targeting",
    applies=_is_binary,
    from_ranked=_precision_recall,
    description="Precision against recall of a score for the events of a 0/1 target",
)
@raises_input_errors("y_true", "y_score")
@shared_paragraphs
def precision_recall_curve(
    y_true: ArrayLike,
    y_score: ArrayLike,
    *,
    events: EventsLike = None,
    sample_weight: ArrayLike | None = None,
) -> PrecisionRecallCurveResult:
    r"""Precision-recall curve of a score, with its average precision (Davis & Goadrich 2006).

    Parameters
    ----------
    %(y_true_events)s
    y_score : array-like of shape (n,)
        Score; higher means more likely to be an event.
    %(events)s
    %(sample_weight)s

    Returns
    -------
    PrecisionRecallCurveResult
        ``recall``, ``precision`` and ``thresholds``, in decreasing order of the score, and the
        average precision; without events the recall and the average precision are NaN, with
        an :class:`~ranklens.exceptions.UndefinedMetricWarning`.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    At each distinct score ``t`` (targeting every case with score >= t), with weighted counts,
    ``P(t) = TP(t) / (TP(t) + FP(t))`` and ``R(t) = TP(t) / E``. The points are those of
    ``sklearn.metrics.precision_recall_curve`` (which lists them in increasing order of the
    score): its arrays reversed are ``precision``, ``recall`` and ``thresholds[1:]``.
    Unlike the ROC curve, the points are not joined by straight lines for an area: the
    precision between two points is not linear in the recall (Davis & Goadrich 2006), so the
    summary is the step-wise :func:`average_precision_score`.

    References
    ----------
    Davis, J. and Goadrich, M. (2006). The relationship between precision-recall and ROC
    curves. *Proceedings of the 23rd International Conference on Machine Learning*, 233-240.

    Examples
    --------
    >>> r = precision_recall_curve([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
    >>> r.recall.tolist(), r.precision.tolist(), r.average_precision
    ([0.0, 0.5, 1.0], [1.0, 1.0, 0.6666666666666666], 0.8333333333333333)
    """
    return _precision_recall(_prepare(y_true, y_score, events, sample_weight))


_AVERAGE_PRECISION = CurveForm(CurveStatistic.AVERAGE_PRECISION)


@register_metric(
    "average_precision_score",
    higher_is_better=True,
    family="targeting",
    targets="binary",
    plain_name="average precision",
    meaning=(
        "Precision at each event's rank by score, averaged over the events: the area under "
        "the precision-recall curve (event share = chance, 1 = perfect)."
    ),
    **_curve_declarations(_AVERAGE_PRECISION),
    description=(
        "Average precision: the precision at each event's rank by score, averaged "
        "(binary y, else events = true top 10 %)"
    ),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def average_precision_score(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    events: EventsLike = None,
) -> float:
    r"""Average precision of a score (binary y, else events = true top 10 %).

    Parameters
    ----------
    %(y_true_events)s
    %(y_pred_scores)s
    %(sample_weight)s
    %(events)s

    Returns
    -------
    float
        In [0, 1], higher is better; the event share for a random score. NaN without events,
        with an :class:`~ranklens.exceptions.UndefinedMetricWarning` (scikit-learn returns 0
        there).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Over the distinct scores in decreasing order (targeting every case with score >= t_k),

    .. math::
        \mathrm{AP} = \sum_k (R_k - R_{k-1})\, P_k,

    with ``P_k`` and ``R_k`` the (weighted) precision and recall there and ``R_0 = 0``: the
    step-wise area of :func:`precision_recall_curve`, no interpolation (Davis & Goadrich 2006;
    Manning, Raghavan & Schutze 2008, sect. 8.4). Tied scores are one step. Equal to
    ``sklearn.metrics.average_precision_score`` (with ``sample_weight`` too; cases of weight 0
    are dropped as there). One sort, O(n log n); the bootstrap's replicates come from the
    targeting sweep and the Dask engine sums the terms over the buckets of the ranked curve.

    References
    ----------
    Davis, J. and Goadrich, M. (2006). The relationship between precision-recall and ROC
    curves. *Proceedings of the 23rd International Conference on Machine Learning*, 233-240.

    Manning, C. D., Raghavan, P. and Schutze, H. (2008). *Introduction to Information
    Retrieval*. Cambridge University Press.

    Examples
    --------
    >>> average_precision_score([1, 0, 1, 0], [0.9, 0.8, 0.8, 0.1])
    0.8333333333333333
    """
    ranked = _prepare(y_true, y_pred, events, sample_weight, "y_pred")
    _require_events(ranked.target.is_value, "average_precision_score")
    return _average_precision(ranked)
