"""A target ranked by a score: the cumulative sums every targeting curve reads.

The ROC, gain, lift and profit curves of :mod:`ranklens.targeting` all read the same thing: the
distinct scores in decreasing order, with the running weight, events and non-events at each
(:class:`Ranked`, made by :func:`rank_scores`). The Dask engine builds the same sums from pieces
of the rows, and the command line checks a profit's options before reading any data; both use
the definitions here, so that the three agree to the bit: the exact integer gain area
(:func:`gain_twice_exact`, :func:`gain_ratios_exact`) and the profit of a payoff matrix or a value
margin (:class:`ProfitSpec`, :func:`profit_spec`); and the gains table of ``decile_table``, read
from the cumulative sums at its bin bounds (:func:`decile_table_result`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._compute.xp import ranked_keys as _xk
from ranklens._foundation.results import CurveResult
from ranklens._foundation.validation import check_finite_number
from ranklens.exceptions import warn_undefined

__all__ = [
    "DecileTableResult",
    "ProfitSpec",
    "Ranked",
    "Target",
    "check_cost_benefit",
    "decile_table_result",
    "gain_or_undefined",
    "gain_ratios_exact",
    "gain_twice_exact",
    "integer_counts",
    "profit_spec",
    "rank_scores",
]

FloatArray = NDArray[np.float64]


@dataclasses.dataclass(frozen=True)
class Target:
    """The per-row response the curves accumulate, with the rows of positive weight only.

    Attributes
    ----------
    response : ndarray of float64
        The 1/0 event indicator, or ``y`` itself for the value curves.
    weight : ndarray of float64 or None
        Case weights of the rows kept (None: every row counts 1).
    keep : ndarray of bool or None
        The rows kept (weight > 0); None: all.
    is_value : bool
        Whether ``response`` is ``y`` itself rather than events.
    definition : str
        How the events were defined (reported by the results).
    """

    response: FloatArray  # 1/0 event indicator, or y itself (value curves)
    weight: FloatArray | None  # None: every row counts 1
    keep: NDArray[np.bool_] | None  # rows kept (weight > 0); None: all
    is_value: bool
    definition: str


@dataclasses.dataclass(frozen=True)
class Ranked:
    """Cumulative sums at each distinct score (decreasing), each with a leading 0 for x = 0.

    Attributes
    ----------
    thresholds : ndarray of float64
        Infinity, then the distinct scores in decreasing order.
    cum_weight : ndarray of float64
        The weight of the rows at or above each threshold.
    cum_events : ndarray of float64
        The same sums of ``w * response`` (events, or value).
    cum_nonevents : ndarray of float64
        The same sums of ``w * (1 - response)`` (meaningless for value targets).
    target : Target
        The target ranked.
    """

    thresholds: FloatArray  # inf, then the distinct scores in decreasing order
    cum_weight: FloatArray
    cum_events: FloatArray  # sum of w * response (events, or value)
    cum_nonevents: FloatArray  # sum of w * (1 - response); meaningless for value targets
    target: Target

    @property
    def total_weight(self) -> float:
        return float(self.cum_weight[-1])

    @property
    def total_events(self) -> float:
        return float(self.cum_events[-1])

    @property
    def total_nonevents(self) -> float:
        return float(self.cum_nonevents[-1])

    @functools.cached_property
    def fraction(self) -> FloatArray:
        return self.cum_weight / self.cum_weight[-1]


def rank_scores(score: FloatArray, target: Target) -> Ranked:
    """The target's cumulative sums at each distinct score, in decreasing order of the score.

    Parameters
    ----------
    score : ndarray of float64
        The model's score on every row (the rows ``target.keep`` drops are dropped here).
    target : Target
        The response and weights accumulated.

    Returns
    -------
    Ranked
        The cumulative sums.
    """
    if target.keep is not None:
        score = score[target.keep]
    if target.weight is None:
        # Carry the response through the sort: no random gather afterwards.
        keys = _xk.descending_keys(score)
        sorted_keys, response = _xk.radix_sort(keys, target.response, True)
        thr, cw, ce, cn = _xk.group_sums_sorted(sorted_keys, response)
    else:
        order, sorted_keys = _xk.ranked_order(score)
        thr, cw, ce, cn = _xk.group_sums_indexed(sorted_keys, order, target.response, target.weight)
    return Ranked(thr.view(np.float64), cw, ce, cn, target)


def gain_or_undefined(ranked: Ranked, func: str) -> FloatArray:
    """The gain at each threshold (the share of events captured), or NaN without events.

    Parameters
    ----------
    ranked : Ranked
        The cumulative sums.
    func : str
        The curve asked for, named in the warning.

    Returns
    -------
    ndarray of float64
        ``cum_events / total events``; NaN throughout (with an undefined-metric warning, at the
        caller's caller's level) when there are no events.
    """
    total = ranked.total_events
    if total == 0.0:
        warn_undefined(
            f"the {func} is undefined: y_true has no events under the event definition "
            f"{ranked.target.definition!r}",
            stacklevel=5,
        )
        return np.full_like(ranked.cum_events, np.nan)
    return ranked.cum_events / total


def gain_twice_exact(cum_weight: FloatArray, cum_events: FloatArray) -> int:
    """``sum_i (W_i - W_{i-1}) (E_i + E_{i-1})`` of integer counts, exactly (Python integers).

    Twice the gain area times ``W E`` for unweighted events: dividing it once gives the area
    correctly rounded, whatever the order or grouping of the points (an engine holding the
    ranked rows in pieces adds the pieces' integers). Chunks of 2**20 points keep every int64
    dot product below 2**63 for counts below 2**40.

    Parameters
    ----------
    cum_weight, cum_events : ndarray of float64
        Running weights and events holding integers (:func:`integer_counts`).

    Returns
    -------
    int
        ``S``, exactly.
    """
    dw = np.diff(cum_weight).astype(np.int64)
    se = (cum_events[1:] + cum_events[:-1]).astype(np.int64)
    step = 1 << 20
    return sum(int(np.dot(dw[i : i + step], se[i : i + step])) for i in range(0, dw.size, step))


def gain_ratios_exact(
    twice: int, total_weight: int, total_events: int
) -> tuple[float, float | None]:
    """Gain area ``S / (2 W E)`` and accuracy ratio ``(S - W E) / (E (W - E))`` from the exact
    integer ``S`` of :func:`gain_twice_exact`, one rounding each.

    Both engines divide here, so they agree to the bit.

    Parameters
    ----------
    twice : int
        ``S``.
    total_weight, total_events : int
        ``W`` and ``E``.

    Returns
    -------
    area : float
        The gain area.
    accuracy_ratio : float or None
        None when ``W <= E`` (the perfect model is no better than random).
    """
    area = twice / (2 * total_weight * total_events)
    if total_weight <= total_events:
        return area, None
    return area, (twice - total_weight * total_events) / (
        total_events * (total_weight - total_events)
    )


def integer_counts(cum_weight: FloatArray, cum_events: FloatArray) -> bool:
    """Whether the running weights and events are integers below 2**53 (no weights, or
    integer weights): their float sums are then exact, and :func:`gain_twice_exact` applies.

    Parameters
    ----------
    cum_weight, cum_events : ndarray of float64
        The running weights and events.

    Returns
    -------
    bool
        Whether they hold exact integers.
    """
    return bool(
        cum_weight.size > 0
        and 0.0 <= cum_weight[-1] < 2.0**53
        and np.all(np.floor(cum_weight) == cum_weight)
        and np.all(np.floor(cum_events) == cum_events)
    )


def check_cost_benefit(cost_benefit: Any) -> FloatArray:
    """The payoff matrix ``[[TP, FN], [FP, TN]]`` as a finite 2x2 float array.

    Parameters
    ----------
    cost_benefit : array-like
        The matrix given (rows: actual positive, negative; columns: targeted, not targeted).

    Returns
    -------
    ndarray of float64 of shape (2, 2)
        The matrix.

    Raises
    ------
    ValueError
        If it is not a finite 2x2 matrix of numbers.
    """
    try:
        cb = np.asarray(cost_benefit, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "cost_benefit must be a 2x2 matrix [[TP, FN], [FP, TN]] of numbers; "
            f"got {cost_benefit!r:.60}"
        ) from None
    if cb.shape != (2, 2) or not np.isfinite(cb).all():
        raise ValueError(
            "cost_benefit must be a finite 2x2 matrix [[TP, FN], [FP, TN]] (rows: actual positive, "
            f"negative; columns: targeted, not targeted); got {cost_benefit!r:.60}"
        )
    return cb


@dataclasses.dataclass(frozen=True)
class ProfitSpec:
    """How to turn cumulative sums into profit: a 2x2 matrix, or a margin on captured value.

    Attributes
    ----------
    matrix : ndarray of float64 of shape (2, 2) or None
        The payoff matrix (events), or None for a value margin.
    margin : float or None
        Profit per unit of ``y`` captured (value curves).
    cost : float or None
        Cost of targeting one row (with a margin; with a matrix, only to convert a budget).
    """

    matrix: FloatArray | None
    margin: float | None
    cost: float | None

    def profit(
        self, cw: FloatArray, ce: FloatArray, cn: FloatArray, p: float, n: float
    ) -> FloatArray:
        """The profit at each threshold.

        Parameters
        ----------
        cw, ce, cn : ndarray of float64
            The running weight, events (or value) and non-events (:class:`Ranked`).
        p, n : float
            The total events and non-events.

        Returns
        -------
        ndarray of float64
            The profit of targeting the rows at or above each threshold.
        """
        if self.matrix is not None:
            # b_TP TP + b_FN (p - TP) + b_FP FP + b_TN (n - FP), regrouped to save passes.
            (b_tp, b_fn), (b_fp, b_tn) = self.matrix
            out = (b_tp - b_fn) * ce
            out += (b_fp - b_tn) * cn
            out += b_fn * p + b_tn * n
            return out
        # Without a matrix the spec is a value margin, which always has its cost.
        assert self.margin is not None and self.cost is not None
        out = self.margin * ce
        out -= self.cost * cw
        return out


def profit_spec(
    cost_benefit: Any, value_margin: Any, cost_per_target: Any, budget: Any, events: Any
) -> tuple[ProfitSpec, Any]:
    """The profit of :func:`ranklens.profit_curve`'s options, checked, and the events it needs.

    Parameters
    ----------
    cost_benefit, value_margin, cost_per_target, budget, events
        As :func:`ranklens.profit_curve`'s parameters: exactly one of ``cost_benefit`` and
        ``value_margin``.

    Returns
    -------
    spec : ProfitSpec
        The profit.
    events : Any
        The event definition to rank by (``"value"`` with a value margin).

    Raises
    ------
    ValueError
        If the options do not go together or a number is out of its range.
    """
    if (cost_benefit is None) == (value_margin is None):
        raise ValueError(
            "pass exactly one of cost_benefit (a 2x2 matrix for events) or value_margin (profit "
            "per unit of y captured, with cost_per_target); got "
            + ("both" if cost_benefit is not None else "neither")
        )
    cost = (
        None
        if cost_per_target is None
        else check_finite_number(cost_per_target, "cost_per_target", minimum=0)
    )
    if budget is not None:
        check_finite_number(budget, "budget", minimum=0)
        if cost is None or cost == 0.0:
            raise ValueError(
                "budget needs a positive cost_per_target: at most floor(budget / cost_per_target) "
                f"rows can be targeted; got cost_per_target={cost_per_target!r}"
            )
    if cost_benefit is not None:
        if cost is not None and budget is None:
            raise ValueError(
                "with cost_benefit the matrix already holds the cost of targeting; cost_per_target"
                " only converts a budget into a number of targets, so pass budget too (or drop it)"
            )
        return ProfitSpec(check_cost_benefit(cost_benefit), None, cost), events
    margin = check_finite_number(value_margin, "value_margin")
    if cost is None:
        raise ValueError(
            "value_margin needs cost_per_target: profit = value_margin * captured y - "
            "cost_per_target * number targeted"
        )
    if events not in (None, "value"):
        raise ValueError(
            f"value_margin works on y itself (events='value'); got events={events!r}. "
            "For events use cost_benefit"
        )
    return ProfitSpec(None, margin, cost), "value"


@dataclasses.dataclass(frozen=True, repr=False)
class DecileTableResult(CurveResult):
    """Per-bin gains table (:func:`decile_table`); ``to_frame()`` gives a pandas DataFrame.

    Attributes
    ----------
    bin : ndarray of int
        1 (highest scores) to ``n_bins``.
    fraction_start, fraction_end : ndarray
        The slice of the ranked population (``(k-1)/n_bins`` to ``k/n_bins``).
    score_max, score_min : ndarray
        Highest and lowest score with weight in the bin.
    count, events, rate : ndarray
        (Weighted) rows, events (sum of ``y`` for ``events="value"``) and their ratio (event
        rate or mean value) in the bin.
    cumulative_count, cumulative_events, cumulative_gain : ndarray
        Running totals and the share of all events captured down to the bin (the gain curve).
    lift : ndarray
        Cumulative lift ``cumulative_gain / fraction_end`` (the slides' lift table).
    bin_lift : ndarray
        ``rate / overall_rate`` (the bin's own lift).
    ks : ndarray
        ``TPR - FPR`` at the end of the bin (for values: ``cumulative_gain - fraction_end``, the gap
        between the value-weighted and case-weighted score distributions).
    ks_max : float
        The largest ``ks`` at a bin boundary (the exact KS statistic over all cutoffs is
        :attr:`ranklens.targeting.RocCurveResult.ks_statistic`).
    overall_rate, total_count, total_events : float
        Population event rate (mean value), (weighted) rows and events.
    event_definition : str
        How events were defined.
    """

    x_field = "fraction_end"
    y_field = "lift"
    x_label = "share targeted (end of the bin)"
    y_label = "cumulative lift"

    @property
    def area(self) -> float:
        """NaN: a table of bins has no summary area (``CurveResult`` protocol)."""
        return math.nan

    bin: NDArray[np.int64]
    fraction_start: FloatArray
    fraction_end: FloatArray
    score_max: FloatArray
    score_min: FloatArray
    count: FloatArray
    events: FloatArray
    rate: FloatArray
    cumulative_count: FloatArray
    cumulative_events: FloatArray
    cumulative_gain: FloatArray
    lift: FloatArray
    bin_lift: FloatArray
    ks: FloatArray
    ks_max: float
    overall_rate: float
    total_count: float
    total_events: float
    event_definition: str

    _COLUMNS = (
        "bin",
        "fraction_start",
        "fraction_end",
        "score_max",
        "score_min",
        "count",
        "events",
        "rate",
        "cumulative_count",
        "cumulative_events",
        "cumulative_gain",
        "lift",
        "bin_lift",
        "ks",
    )

    def to_frame(self) -> Any:
        """The table as a ``pandas.DataFrame``, one row per bin (index: ``bin``)."""
        import pandas as pd

        frame = pd.DataFrame({name: getattr(self, name) for name in self._COLUMNS})
        return frame.set_index("bin")


def decile_table_result(
    *,
    cum_count: np.ndarray,
    cum_events: np.ndarray,
    cum_gain: np.ndarray,
    fpr: np.ndarray,
    score_max: np.ndarray,
    score_min: np.ndarray,
    total_count: float,
    total_events: float,
    definition: str,
) -> DecileTableResult:
    """The gains table of :func:`decile_table` from its cumulative readings at the bin bounds.

    Shared by the in-memory table and the Dask engine's, which read the same cumulative sums
    from partitions, so that both derive every column in one way.

    Parameters
    ----------
    cum_count, cum_events : ndarray, shape (n_bins + 1,)
        The (weighted) rows and events above each bin bound, from 0 to the totals.
    cum_gain : ndarray, shape (n_bins,)
        The cumulative gain at each bin's end (NaN without events); its last value is set to 1
        when there are events.
    fpr : ndarray, shape (n_bins,)
        The share of non-events above each bin's end (for a value target, the share of rows).
    score_max, score_min : ndarray, shape (n_bins,)
        The highest and lowest score in each bin.
    total_count, total_events : float
        The total (weighted) rows and events.
    definition : str
        How events were defined.

    Returns
    -------
    DecileTableResult
    """
    n_bins = cum_count.shape[0] - 1
    fractions = np.arange(n_bins + 1) / n_bins
    events_in = np.diff(cum_events)
    count = np.diff(cum_count)
    overall_rate = total_events / total_count
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = events_in / count
        bin_lift = rate / overall_rate if total_events > 0 else np.full(n_bins, np.nan)
    if total_events > 0:
        cum_gain[-1] = 1.0
    lift = cum_gain / fractions[1:]
    ks = cum_gain - fpr
    ks_max = float(np.max(ks)) if np.isfinite(ks).all() else math.nan
    return DecileTableResult(
        bin=np.arange(1, n_bins + 1, dtype=np.int64),
        fraction_start=fractions[:-1],
        fraction_end=fractions[1:],
        score_max=score_max,
        score_min=score_min,
        count=count,
        events=events_in,
        rate=rate,
        cumulative_count=cum_count[1:],
        cumulative_events=cum_events[1:],
        cumulative_gain=cum_gain,
        lift=lift,
        bin_lift=bin_lift,
        ks=ks,
        ks_max=ks_max,
        overall_rate=overall_rate,
        total_count=total_count,
        total_events=total_events,
        event_definition=definition,
    )
