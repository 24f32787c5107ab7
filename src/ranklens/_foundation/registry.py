"""The metric registry's storage and decorator (the public face is :mod:`ranklens.metrics`).

Each module registers its own scalar measures with :func:`register_metric`, so no list of names is
kept by hand anywhere. Consumers (the comparison engine, the CLI, the report) look up direction and
family here; they never guess them from a metric's name.

A registration also declares what the measure *can do* (:class:`Capabilities`): a batched form for
resampling, an exact leave-one-out, a breakdown bound, an analytical variance and the forms that an
engine processing the data in pieces computes (the forms are in :mod:`ranklens._foundation.forms`;
what such an engine must provide, the :class:`ComputationalForm`, follows from them and is never
declared). Engines
(:mod:`ranklens.compare`, :mod:`ranklens.robustness`, ...) read these declarations and nothing
else: they never name a measure, so a new measure gets every fast path by declaring it where it
is defined.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import numpy as np

from ranklens._foundation.forms import (
    CurveForm,
    LagScaledForm,
    MedianForm,
    RankedListForm,
    RankSweepForm,
    RatioForm,
    ReplicateForm,
    SumsForm,
)

__all__ = [
    "BINARY_TARGET_NOTE",
    "DIRECTIONS",
    "FAMILIES",
    "INPUTS",
    "NOT_PROBABILITIES",
    "REGISTRY",
    "TARGETS",
    "AnalyticVariance",
    "BreakdownBound",
    "Capabilities",
    "ComputationalForm",
    "ConcordanceForm",
    "MetricSpec",
    "applies_to_target",
    "is_binary_target",
    "needs_probabilities",
    "register_metric",
]

Family = Literal[
    "ranking", "residual", "targeting", "probability", "extremes", "intervals", "listwise"
]
#: The families of measures, in display order. One vocabulary across ranklens: the same names
#: are the curve families, the report's sections, the ``ranklens.plot`` modules and the docs.
#: ``"probability"``: the losses of a score read as a probability of the event of a 0/1 target
#: (the Brier score, the log loss), which judge its calibration as well as its ranking.
FAMILIES: tuple[str, ...] = (
    "ranking",
    "residual",
    "targeting",
    "probability",
    "extremes",
    "intervals",
    "listwise",
)
#: The targets a measure is computed for by default (:attr:`MetricSpec.targets`): ``"any"``;
#: ``"binary"``, only a 0/1 ``y_true`` (the Brier score, the average precision); ``"continuous"``,
#: not a 0/1 ``y_true`` (the measures of rare extremes and relative errors, which a target of
#: two values leaves without meaning).
TARGETS: tuple[str, ...] = ("any", "binary", "continuous")

#: Why the measures for continuous targets are left out of the evaluation of a 0/1 target, as
#: the evaluation records it (``settings["binary target"]``).
BINARY_TARGET_NOTE = (
    "y_true holds only 0 and 1, so it is evaluated as events: the measures of rare extremes "
    "and relevance (utility F1, SERA, relevance-weighted errors) and the relative and log "
    "errors (rmspe, log_rmse) have no meaning for a target of two values and are not computed; "
    "the average precision, precision and recall at a depth, and the Brier score and log loss "
    "of probability scores are."
)


def applies_to_target(spec: MetricSpec, binary: bool) -> bool:
    """Whether ``spec`` is computed by default for a target that is (or is not) 0/1."""
    if spec.targets == "binary":
        return binary
    if spec.targets == "continuous":
        return not binary
    return True


#: Why the Brier score and the log loss of a model are not computed, as the evaluation records
#: it: its scores are not probabilities.
NOT_PROBABILITIES = (
    "not computed: the scores are not probabilities (some lie outside [0, 1]), so the Brier "
    "score and the log loss, which read a score as the probability of an event, do not apply"
)


def is_binary_target(y: Any) -> bool:
    """Whether ``y`` holds only the values 0 and 1 (a 0/1 target, evaluated as events)."""
    v = np.asarray(y, dtype=np.float64)
    return bool(v.size) and bool(np.all((v == 0.0) | (v == 1.0)))


def needs_probabilities(spec: MetricSpec) -> bool:
    """Whether ``spec`` reads the scores as probabilities (family ``"probability"``): an
    evaluation computes it only for a model whose scores all lie in [0, 1]."""
    return spec.family == "probability"


Inputs = Literal["point", "interval"]
INPUTS: tuple[str, ...] = ("point", "interval")

Direction = Literal["higher", "lower", "target", "neutral"]
#: What makes a value better. ``"higher"`` and ``"lower"``: its size; ``"target"``: its distance
#: to a target value the measure declares (an interval's coverage against the nominal
#: ``1 - alpha``: ``|coverage - (1 - alpha)|``, smaller is better); ``"neutral"``: nothing, the
#: measure describes and is never ranked (the mean width of intervals: a narrower interval is
#: better only at the same coverage, which the width alone does not know).
DIRECTIONS: tuple[str, ...] = ("higher", "lower", "target", "neutral")

F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------------------------
# Capabilities: what a measure declares that engines may use
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BreakdownBound:
    """The largest change of a measure when ``k`` of ``n`` observations' ``y_true`` are corrupted.

    Attributes
    ----------
    max_change : callable
        ``(n, k) -> ndarray`` with ``k`` an int array: the bound for each ``k`` (``inf`` when a
        single corrupted row can move the measure arbitrarily far).
    reference : str
        Where the bound is stated, reported as ``BreakdownResult.bound`` (e.g. ``"proposition 2"``
        of Rosset, Perlich & Zadrozny 2005).
    requires_distinct : bool
        The bound is proven for data without ties in ``y_true`` and ``y_pred`` only; engines
        report NaN for data with ties.
    """

    max_change: Callable[[int, np.ndarray], np.ndarray]
    reference: str
    requires_distinct: bool = False


@dataclasses.dataclass(frozen=True)
class AnalyticVariance:
    """A measure's analytic variance estimator, with the name and citation a report gives it.

    Calling it returns ``estimate(y_true, y_pred)``, so it serves wherever a plain variance
    callable does (``Capabilities.variance``). The evaluation pipeline builds the interval with
    ``interval`` where the measure declares one, else the Wald interval ``value -+ z
    sqrt(unbiased)``, clipped to ``bounds``, and records ``method`` beside it.

    Attributes
    ----------
    estimate : callable
        ``(y_true, y_pred) -> (plug_in, unbiased)`` on validated float64 arrays, unweighted.
    method : str
        Short name recorded with each interval (e.g. ``"noether"``).
    reference : str
        The estimator by author and year, as the report's methods sentence names it (e.g.
        ``"Noether (1967)"``).
    bounds : tuple of float
        The range of the measure; the interval is clipped to it.
    interval : callable or None
        ``(value, unbiased, n, level) -> (low, high, method, approximate, reason)``: the
        measure's own interval from its value, its unbiased variance and the rows (Kendall's
        tau: Fisher's z), its method's name, whether it is approximate and why; None: the Wald
        interval named ``method``. Every engine that has the variance builds the interval with
        it.
    interval_reference : str
        The reference of ``interval``'s method, as ``reference`` is ``method``'s.
    """

    estimate: Callable[[np.ndarray, np.ndarray], tuple[float, float]]
    method: str
    reference: str
    bounds: tuple[float, float] = (-math.inf, math.inf)
    interval: Callable[[float, float, int, float], tuple[Any, ...]] | None = None
    interval_reference: str = ""

    def __call__(self, y_true: np.ndarray, y_pred: np.ndarray) -> tuple[float, float]:
        return self.estimate(y_true, y_pred)


class ComputationalForm(enum.Enum):
    """What an engine that processes the data in pieces must provide to compute a measure.

    The forms are nested, each providing what the previous one does: a measure has the first that
    suffices for every input it accepts with its default parameters, derived from the forms it
    declares (:attr:`Capabilities.computational_form`).

    * ``MERGEABLE_SUMS``: per-piece sums of per-row values, added across pieces, then finalised
      (means of losses, interval scores, coverage).
    * ``ONE_SORT_BY_PREDICTION``: the rows in decreasing order of the prediction, with a fixed
      per-row response accumulated along it (a gain or ROC curve of given events).
    * ``SORTS_BY_PREDICTION_AND_TRUTH``: the rows in order of the prediction and in order of the
      truth, or order statistics of the truth such as a quantile that defines the events or a
      box plot that defines relevance (rank correlations, NDCG's ideal ordering).

    A measure that needs none of these has no form: a median of the residuals needs their
    order (it declares a :class:`MedianForm`, exact selection in pieces); a lag-1 scale needs the
    row order, which no sort keeps (a :class:`LagScaledForm`: sums over pieces kept in row order).
    """

    MERGEABLE_SUMS = "mergeable sums"
    ONE_SORT_BY_PREDICTION = "one sort by prediction"
    SORTS_BY_PREDICTION_AND_TRUTH = "sorts by prediction and by truth"


@dataclasses.dataclass(frozen=True)
class ConcordanceForm:
    """A measure that is ``intercept + slope * C``, C a concordance probability.

    ``C`` is the probability that the prediction orders a random pair of rows with different
    response as the response does, ties in the prediction counting 1/2: the AUC for a binary
    response, Harrell's C otherwise. Its variance and the covariance of two models' values then
    come from DeLong's structural components (DeLong, DeLong & Clarke-Pearson 1988), computed
    in O(n log n) (Sun & Xu 2014) by :mod:`ranklens.delong`.

    Attributes
    ----------
    prepare : callable
        ``(y_true, y_pred, sample_weight) -> (response, score, weight)`` on validated float64
        arrays (``sample_weight`` as given, or None): the response whose concordance with
        ``score`` the measure is (e.g. the 0/1 events of a continuous ``y_true`` under the
        measure's default event definition), and the weights (None: unweighted).
    slope, intercept : float
        The affine map, ``slope > 0`` (Somers' D is ``2 C - 1``).
    """

    prepare: Callable[
        [np.ndarray, np.ndarray, np.ndarray | None],
        tuple[np.ndarray, np.ndarray, np.ndarray | None],
    ]
    slope: float = 1.0
    intercept: float = 0.0


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """Optional abilities of one measure function, declared where it is registered.

    Each is an object the engines call; any may be None (the engine then takes its generic path:
    the function once per replicate, or n recomputations for the leave-one-out).

    Attributes
    ----------
    batched : RatioForm or RankSweepForm or ReplicateForm or None
        A form that evaluates many weighted replicates at once. Engines use it only after it
        reproduces the registered function on the full sample.
    leave_one_out : callable or None
        ``(y_true, y_pred, **params) -> ndarray`` of shape (n,): the measure without row i for
        every i (unweighted, validated float64 arrays, NaN where undefined), exactly, faster than
        n recomputations.
    breakdown : BreakdownBound or None
        A proven bound on the change under corruption of ``y_true``.
    variance : callable or None
        ``(y_true, y_pred) -> (plug_in, unbiased)``: analytical variance estimates of the
        measure for unweighted data (e.g. Noether's for Kendall's tau); an
        :class:`AnalyticVariance` also names the estimator, and the evaluation pipeline then
        uses its interval by default.
    curve : CurveForm or None
        The functional of the ranked cumulative curve that the measure is (targeting measures).
    delong : ConcordanceForm or None
        The measure as an affine map of a concordance probability, whose DeLong variance
        :func:`ranklens.compare_models` uses with ``method="delong"``.
    sums : SumsForm or None
        The measure as a function of a few weighted sums of per-row values (an engine
        processing the data in pieces adds them up).
    median : MedianForm or None
        The measure as the median of per-row values (exact selection in pieces).
    ranked_list : RankedListForm or None
        The measure as a ratio of discounted sums over the ranked rows (sorts in pieces with
        carry-in positions).
    lag_scaled : LagScaledForm or None
        The measure as a mean loss over the mean lag-1 change of the truth (sums over pieces
        kept in row order).
    describes : callable or None
        The function these capabilities describe (set by :func:`register_metric`). A spec whose
        ``func`` is another function, e.g. ``dataclasses.replace(spec, func=partial(...))`` with
        parameters bound, keeps none of them: they would describe the wrong function.
    """

    batched: RatioForm | RankSweepForm | ReplicateForm | None = None
    leave_one_out: Callable[..., np.ndarray] | None = None
    breakdown: BreakdownBound | None = None
    variance: Callable[[np.ndarray, np.ndarray], tuple[float, float]] | None = None
    curve: CurveForm | None = None
    delong: ConcordanceForm | None = None
    sums: SumsForm | None = None
    median: MedianForm | None = None
    ranked_list: RankedListForm | None = None
    lag_scaled: LagScaledForm | None = None
    describes: Callable[..., Any] | None = dataclasses.field(default=None, repr=False)

    @property
    def computational_form(self) -> ComputationalForm | None:
        """What an engine processing the data in pieces must provide, derived from the forms
        declared (never declared itself, so it cannot disagree with them).

        * ``SORTS_BY_PREDICTION_AND_TRUTH``: a :class:`RankSweepForm` (both orders), a
          :class:`RankedListForm` (the predicted and the ideal ranking), a :class:`CurveForm`
          (the sort by prediction, and on a continuous ``y_true`` the default events, its top
          10 %, are a quantile of the truth; declared as ``curve``, or only as the statistic of
          a :class:`ReplicateForm` while no engine in pieces computes that functional yet, as
          the partial AUC) or a :class:`SumsForm` with a parameter fitted from
          order statistics of the truth when not given (:attr:`SumsForm.fitted`, or a
          ``relevance`` whose default is the box-plot relevance of ``y_true``);
        * ``MERGEABLE_SUMS``: any other :class:`SumsForm`, or a :class:`RatioForm`;
        * None: a :class:`MedianForm` (exact selection), a :class:`LagScaledForm` (sums over
          pieces kept in row order) or none of these forms.
        """
        sorts = ComputationalForm.SORTS_BY_PREDICTION_AND_TRUTH
        if (
            isinstance(self.batched, RankSweepForm)
            or self.curve is not None
            or self.ranked_list is not None
            or (
                isinstance(self.batched, ReplicateForm)
                and isinstance(self.batched.statistic, CurveForm)
            )
        ):
            return sorts
        if self.sums is not None:
            fits_from_truth = bool(self.sums.fitted) or "relevance" in self.sums.params
            return sorts if fits_from_truth else ComputationalForm.MERGEABLE_SUMS
        if isinstance(self.batched, RatioForm):
            return ComputationalForm.MERGEABLE_SUMS
        return None


_NO_CAPABILITIES = Capabilities()


@dataclasses.dataclass(frozen=True)
class MetricSpec:
    """What the rest of ranklens needs to know about a registered scalar measure.

    Attributes
    ----------
    name : str
        Registry name, also the key in ``results.json``.
    func : callable
        ``func(y_true, y_pred, *, sample_weight=None, **params) -> float`` for ``inputs="point"``;
        ``func(y_true, lower, upper, *, alpha, sample_weight=None) -> float`` for
        ``inputs="interval"``.
    higher_is_better : bool or None
        Derived from ``direction``: True for ``"higher"``, False for ``"lower"``, None for
        ``"target"`` and ``"neutral"`` (whose values are not better by size). Given without
        ``direction`` (the earlier form), it sets ``direction`` to ``"higher"`` or ``"lower"``.
    family : str
        One of :data:`FAMILIES`.
    inputs : str
        ``"point"`` (needs a point prediction) or ``"interval"`` (needs lower and upper bounds).
    supports_sample_weight : bool
        Whether ``func`` takes ``sample_weight``; derived from its signature.
    order_dependent : bool
        True when the value depends on the row order (e.g. ``pmap``), so resampling rows is invalid.
    description : str
        One line for tables and the report.
    capabilities : Capabilities
        What engines may use besides ``func`` (none when ``func`` is not the function they
        describe, see :attr:`Capabilities.describes`).
    direction : str
        One of :data:`DIRECTIONS`. ``*_score`` measures are mostly higher-is-better and
        ``*_error``/``*_loss`` lower-is-better, but the registry, not the name, decides (the
        interval score is lower-is-better).
    target : float or callable or None
        For ``direction="target"``: the value a perfect measure takes, a number or a callable
        ``(params) -> float`` of the measure's parameters (``interval_coverage``: ``1 - alpha``).
        See :meth:`target_value` and :meth:`goodness`.
    plain_name : str
        The measure's name in readers' words, for sentences ("share of pairs ordered right");
        default: the registry name with spaces for underscores.
    meaning : str
        One plain line on what the measure says, for the report's tables; default: the
        description without markup.
    targets : str
        One of :data:`TARGETS`: the targets for which an evaluation computes the measure by
        default (:func:`applies_to_target`); a direct call computes it on any data it accepts.
    """

    name: str
    func: Callable[..., float]
    higher_is_better: bool | None = None
    family: str = ""
    inputs: str = "point"
    supports_sample_weight: bool = True
    order_dependent: bool = False
    description: str = ""
    capabilities: Capabilities = _NO_CAPABILITIES
    direction: str | None = None
    target: float | Callable[[Mapping[str, Any]], float] | None = None
    plain_name: str = ""
    meaning: str = ""

    targets: str = "any"

    def __post_init__(self) -> None:
        if not self.plain_name:
            object.__setattr__(self, "plain_name", self.name.replace("_", " "))
        if not self.meaning:
            object.__setattr__(self, "meaning", plain_text(self.description))
        if self.targets not in TARGETS:
            raise ValueError(f"targets must be one of {TARGETS}; got {self.targets!r}")
        direction = self.direction
        if direction is None:
            if self.higher_is_better is None:
                raise TypeError(f"metric {self.name!r}: give direction (one of {DIRECTIONS})")
            direction = "higher" if self.higher_is_better else "lower"
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS}; got {direction!r}")
        if (direction == "target") != (self.target is not None):
            raise ValueError(
                f"metric {self.name!r}: a target is given exactly for direction='target'"
            )
        object.__setattr__(self, "direction", direction)
        derived = {"higher": True, "lower": False}.get(direction)
        object.__setattr__(self, "higher_is_better", derived)
        described = self.capabilities.describes
        if described is not None and described is not self.func:
            # e.g. parameters bound with functools.partial: the declared fast paths compute the
            # measure with its defaults, so they no longer describe this function.
            object.__setattr__(self, "capabilities", _NO_CAPABILITIES)

    def __call__(self, *args: Any, **kwargs: Any) -> float:
        return self.func(*args, **kwargs)

    def bind(self, **params: Any) -> MetricSpec:
        """This measure with keyword parameters fixed (same name, direction and family).

        ``func`` becomes ``functools.partial(func, **params)``. The capabilities describe the
        function with its defaults, so they are dropped, except a :class:`ReplicateForm` whose
        ``parameters`` include every bound name: it is kept, carrying the bound values.
        """
        func = functools.update_wrapper(functools.partial(self.func, **params), self.func)
        caps = _NO_CAPABILITIES
        form = self.capabilities.batched
        if (
            params
            and isinstance(form, ReplicateForm)
            and self.capabilities.describes is self.func
            and set(params) <= set(form.parameters)
        ):
            bound = dataclasses.replace(form, bound=(*form.bound, *params.items()))
            caps = Capabilities(batched=bound, describes=func)
        return dataclasses.replace(self, func=func, capabilities=caps)

    def target_value(self, **params: Any) -> float | None:
        """The target of a ``direction="target"`` measure for these parameters; None otherwise.

        NaN when the parameters do not determine it (coverage without ``alpha``).
        """
        if self.target is None:
            return None
        if not callable(self.target):
            return float(self.target)
        try:
            return float(self.target(params))
        except (KeyError, TypeError):
            return float("nan")

    def goodness(self, values: Any, **params: Any) -> np.ndarray:
        """``values`` mapped so that larger is better (see :func:`goodness`)."""
        return goodness(values, self.direction or "lower", self.target_value(**params))


def plain_text(text: str) -> str:
    """A docstring line without reStructuredText markup (``code``, :func:`x`).

    Examples
    --------
    >>> plain_text("Lift of :func:`~ranklens.gain_curve` at ``depth``")
    'Lift of ranklens.gain_curve at depth'
    """
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", str(text))
    return text.replace("``", "")


def goodness(values: Any, direction: str, target: float | None = None) -> np.ndarray:
    """Values mapped so that larger is better: ``v`` (higher), ``-v`` (lower), ``-|v - target|``
    (target), NaN (neutral, or a target that is unknown): a neutral measure is never ranked."""
    v = np.asarray(values, dtype=np.float64)
    if direction == "higher":
        return v
    if direction == "lower":
        return -v
    if direction == "target" and target is not None and np.isfinite(target):
        return -np.abs(v - target)
    return np.full_like(v, np.nan)


def direction_of(info: Mapping[str, Any]) -> str:
    """The direction recorded in a metric-info mapping (``results.json``'s ``metrics``).

    Records written before directions had three values hold only ``higher_is_better``.
    """
    direction = info.get("direction")
    if direction in DIRECTIONS:
        return str(direction)
    return "higher" if info.get("higher_is_better") else "lower"


def best_positions(values: Any, info: Mapping[str, Any]) -> set[int]:
    """Positions of the best finite values under ``info``'s direction (and ``target``).

    Empty for a neutral measure, or a target measure whose target is unknown: such a value is
    never called best by its size.
    """
    target = info.get("target")
    good = goodness(
        [np.nan if v is None else v for v in values],
        direction_of(info),
        None if target is None else float(target),
    )
    finite = np.isfinite(good)
    if not finite.any():
        return set()
    top = good[finite].max()
    return {int(i) for i in np.flatnonzero(finite & (good == top))}


def shaded_positions(values: Any, info: Mapping[str, Any]) -> set[int]:
    """The values a table shades as best: :func:`best_positions`, but none when fewer than two
    values are finite or every finite value is best (nothing then stands out)."""
    n_finite = sum(1 for v in values if v is not None and math.isfinite(v))
    if n_finite < 2:
        return set()
    best = best_positions(values, info)
    return set() if len(best) == n_finite else best


#: Every registered measure by name (:func:`register_metric` adds to it; :mod:`ranklens.metrics`
#: looks measures up in it).
REGISTRY: dict[str, MetricSpec] = {}


def register_metric(
    name: str,
    *,
    higher_is_better: bool | None = None,
    direction: str | None = None,
    target: float | Callable[[Mapping[str, Any]], float] | None = None,
    family: str,
    inputs: str = "point",
    order_dependent: bool = False,
    description: str | None = None,
    batched: RatioForm | RankSweepForm | ReplicateForm | None = None,
    leave_one_out: Callable[..., np.ndarray] | None = None,
    breakdown: BreakdownBound | None = None,
    variance: Callable[[np.ndarray, np.ndarray], tuple[float, float]] | None = None,
    curve: CurveForm | None = None,
    delong: ConcordanceForm | None = None,
    sums: SumsForm | None = None,
    median: MedianForm | None = None,
    ranked_list: RankedListForm | None = None,
    lag_scaled: LagScaledForm | None = None,
    plain_name: str | None = None,
    meaning: str | None = None,
    targets: str = "any",
) -> Callable[[F], F]:
    """Decorator registering a scalar measure under ``name`` (the function itself is unchanged).

    Give ``direction`` (one of :data:`DIRECTIONS`, with ``target`` for ``"target"``), or the
    shorthand ``higher_is_better``. ``plain_name`` (the name in readers' words) and
    ``meaning`` (one plain line) are what the report writes; by default the name with spaces
    and the description. ``targets`` (one of :data:`TARGETS`) says for which targets an
    evaluation computes the measure by default. The keyword arguments from ``batched`` to
    ``lag_scaled`` declare the measure's :class:`Capabilities`; its computational form follows
    from them (:attr:`Capabilities.computational_form`).
    """
    if direction is None and higher_is_better is None:
        raise TypeError(f"metric {name!r}: give direction (one of {DIRECTIONS})")
    if direction is not None and higher_is_better is not None:
        raise TypeError(f"metric {name!r}: give direction or higher_is_better, not both")
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}")
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}; got {inputs!r}")
    if batched is not None and not isinstance(batched, RatioForm | RankSweepForm | ReplicateForm):
        raise TypeError(
            f"batched must be a RatioForm, a RankSweepForm or a ReplicateForm; got {batched!r}"
        )
    if breakdown is not None and not isinstance(breakdown, BreakdownBound):
        raise TypeError(f"breakdown must be a BreakdownBound; got {breakdown!r}")
    if curve is not None and not isinstance(curve, CurveForm):
        raise TypeError(f"curve must be a CurveForm; got {curve!r}")
    if delong is not None and not isinstance(delong, ConcordanceForm):
        raise TypeError(f"delong must be a ConcordanceForm; got {delong!r}")
    if sums is not None and not isinstance(sums, SumsForm):
        raise TypeError(f"sums must be a SumsForm; got {sums!r}")
    if median is not None and not isinstance(median, MedianForm):
        raise TypeError(f"median must be a MedianForm; got {median!r}")
    if ranked_list is not None and not isinstance(ranked_list, RankedListForm):
        raise TypeError(f"ranked_list must be a RankedListForm; got {ranked_list!r}")
    if lag_scaled is not None and not isinstance(lag_scaled, LagScaledForm):
        raise TypeError(f"lag_scaled must be a LagScaledForm; got {lag_scaled!r}")
    for label, value in (("leave_one_out", leave_one_out), ("variance", variance)):
        if value is not None and not callable(value):
            raise TypeError(f"{label} must be callable; got {value!r}")

    def decorator(func: F) -> F:
        if name in REGISTRY and REGISTRY[name].func is not func:
            raise ValueError(f"metric {name!r} is registered twice")
        doc = (inspect.getdoc(func) or "").strip().splitlines()
        REGISTRY[name] = MetricSpec(
            name=name,
            func=func,
            higher_is_better=higher_is_better,
            direction=direction,
            target=target,
            family=family,
            inputs=inputs,
            supports_sample_weight="sample_weight" in inspect.signature(func).parameters,
            order_dependent=order_dependent,
            targets=targets,
            description=description if description is not None else (doc[0] if doc else ""),
            plain_name=plain_name or "",
            meaning=meaning or "",
            capabilities=Capabilities(
                batched=batched,
                leave_one_out=leave_one_out,
                breakdown=breakdown,
                variance=variance,
                curve=curve,
                delong=delong,
                sums=sums,
                median=median,
                ranked_list=ranked_list,
                lag_scaled=lag_scaled,
                describes=func,
            ),
        )
        return func

    return decorator
