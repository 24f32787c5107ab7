"""The metric registry's storage and decorator (the public face is :mod:`ranklens.metrics`).

Each module registers its own scalar measures with :func:`register_metric`, so no list of names is
kept by hand anywhere. Consumers (the comparison engine, the CLI, the report) look up direction and
family here; they never guess them from a metric's name.

A registration also declares what the measure *can do* (:class:`Capabilities`): a batched form for
resampling, an exact leave-one-out, a breakdown bound, an analytical variance and the forms that an
engine processing the data in pieces computes (what such an engine must provide, the
:class:`ComputationalForm`, follows from them and is never declared). Engines
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
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np

__all__ = [
    "DIRECTIONS",
    "FAMILIES",
    "FAMILY_ALIASES",
    "INPUTS",
    "METRIC_ALIASES",
    "RANK_STATISTICS",
    "REGISTRY",
    "AnalyticVariance",
    "BreakdownBound",
    "Capabilities",
    "ComputationalForm",
    "ConcordanceForm",
    "CurveForm",
    "CurveStatistic",
    "LagScaledForm",
    "MedianForm",
    "MetricSpec",
    "OrderStatisticFit",
    "RankStatistic",
    "RankSweepForm",
    "RankedListForm",
    "RatioForm",
    "ReplicateForm",
    "ReplicateSweep",
    "SumsForm",
    "register_metric",
]

Family = Literal["ranking", "residual", "targeting", "extremes", "intervals", "listwise"]
#: The families of measures, in display order. One vocabulary across ranklens: the same names
#: are the curve families, the report's sections, the ``ranklens.plot`` modules and the docs.
FAMILIES: tuple[str, ...] = (
    "ranking",
    "residual",
    "targeting",
    "extremes",
    "intervals",
    "listwise",
)
#: Earlier family names, still accepted by ``available_metrics(family=...)``.
FAMILY_ALIASES: dict[str, str] = {
    "business": "targeting",
    "utility": "extremes",
    "interval": "intervals",
}
Inputs = Literal["point", "interval"]
INPUTS: tuple[str, ...] = ("point", "interval")

Direction = Literal["higher", "lower", "target", "neutral"]
#: What makes a value better. ``"higher"`` and ``"lower"``: its size; ``"target"``: its distance
#: to a target value the measure declares (an interval's coverage against the nominal
#: ``1 - alpha``: ``|coverage - (1 - alpha)|``, smaller is better); ``"neutral"``: nothing, the
#: measure describes and is never ranked (the mean width of intervals: a narrower interval is
#: better only at the same coverage, which the width alone does not know).
DIRECTIONS: tuple[str, ...] = ("higher", "lower", "target", "neutral")

#: Earlier registry keys, still accepted by ``get_metric`` (and so by every engine's ``metrics=``)
#: and mapped to the measure's current key, which is its function's name. ``available_metrics``
#: lists each measure once, under its current key.
METRIC_ALIASES: dict[str, str] = {
    "mse": "mean_squared_error",
    "rmse": "root_mean_squared_error",
    "mae": "mean_absolute_error",
    "ndcg": "ndcg_score",
}

F = TypeVar("F", bound=Callable[..., Any])


def _identity(value: Any) -> Any:
    return value


# --------------------------------------------------------------------------------------------
# Capabilities: what a measure declares that engines may use
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RatioForm:
    """A measure that is a function of one ratio of weighted sums of per-row values.

    ``metric = finalize(sum_i w_i num_i / sum_i w_i den_i)``, with ``den_i = 1`` when
    ``denominator`` is None. Every mean of a per-row loss has this form (``finalize`` the identity,
    or ``sqrt`` for a root mean). A bootstrap replicate with multiplicities ``c_i`` is then
    ``finalize((c w) @ num / (c w) @ den)``: one matrix product serves a block of replicates.

    Attributes
    ----------
    numerator, denominator : callable
        ``(y_true, y_pred, **params) -> ndarray`` of per-row values, on validated float64 arrays.
    finalize : callable
        Applied element-wise to the ratio (arrays of replicates included).
    """

    numerator: Callable[..., np.ndarray]
    denominator: Callable[..., np.ndarray] | None = None
    finalize: Callable[[Any], Any] = _identity

    def row_terms(self, y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The per-row ``(num, den)`` as float64 arrays (``den`` all ones when there is no
        denominator), floating-point warnings silenced: a measure's domain check still raises."""
        with np.errstate(all="ignore"):
            num = np.asarray(self.numerator(y, p), dtype=np.float64)
            if self.denominator is None:
                return num, np.ones_like(num)
            return num, np.asarray(self.denominator(y, p), dtype=np.float64)

    def evaluate(
        self, y: np.ndarray, p: np.ndarray, w: np.ndarray | None = None, **params: Any
    ) -> float:
        """The measure from its sums (plain float64 sums: ordinary magnitudes only)."""
        num = self.numerator(y, p, **params)
        weight = np.ones(y.shape[0]) if w is None else w
        den = (
            weight.sum() if self.denominator is None else weight @ self.denominator(y, p, **params)
        )
        return float(self.finalize((weight @ num) / den))


def _float(value: Any) -> Any:
    """float64 of a pair total: a Python integer (exact counts, any size) rounded once, an array
    as float64."""
    return (
        np.asarray(value, dtype=np.float64) if isinstance(value, np.ndarray) else np.float64(value)
    )


def _root_product(a: Any, b: Any) -> Any:
    """``sqrt(a b)``: of the exact product of two integers (exact counts) rounded once, else of
    the float64 product, as the kernels form it."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.sqrt(_float(a) * _float(b))
    if isinstance(a, int | np.integer) and isinstance(b, int | np.integer):
        return np.sqrt(np.float64(int(a) * int(b)))
    return np.sqrt(np.float64(a) * np.float64(b))


def _kendall_tau_b(classes: Mapping[str, Any]) -> Any:
    distinct_y, distinct_pred = _float(classes["distinct_y"]), _float(classes["distinct_pred"])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (classes["concordant"] - classes["discordant"]) / np.sqrt(
            distinct_y * distinct_pred
        )
    return np.where((distinct_y > 0) & (distinct_pred > 0), np.clip(ratio, -1.0, 1.0), np.nan)


def _harrell_c(classes: Mapping[str, Any]) -> Any:
    distinct_y = _float(classes["distinct_y"])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (classes["concordant"] + 0.5 * _float(classes["tied_pred_only"])) / distinct_y
    return np.where(distinct_y > 0, np.clip(ratio, 0.0, 1.0), np.nan)


def _somers_d(classes: Mapping[str, Any]) -> Any:
    distinct_y = _float(classes["distinct_y"])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (classes["concordant"] - classes["discordant"]) / distinct_y
    return np.where(distinct_y > 0, ratio, np.nan)


def _spearman_rho(classes: Mapping[str, Any]) -> Any:
    var_a, var_b = _float(classes["var_a"]), _float(classes["var_b"])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = classes["cov"] / _root_product(classes["var_a"], classes["var_b"])
    return np.where((var_a > 0) & (var_b > 0), np.clip(ratio, -1.0, 1.0), np.nan)


@dataclasses.dataclass(frozen=True, eq=False)
class RankStatistic:
    """A statistic of the weighted rank sweep: a function of its pair classes.

    Every engine computes the pair classes of a sample, weighted with pair weights ``w_i w_j``
    (the in-memory sweep, its batched and level-order forms per bootstrap replicate, the array
    namespace form on a device, the pieces of the Dask engine), and calls ``of_classes`` on
    them: a statistic is written once, as this function, and every engine serves it. The
    classes are a mapping of equal-shaped arrays (or numbers: exact Python integers for unit
    weights) with the keys ``concordant`` (C), ``discordant`` (D), ``tied_pred_only`` (pairs
    tied in the prediction and not in y), ``distinct_y`` and ``distinct_pred`` (pairs whose y,
    or prediction, differ); the statistics that read the midranks (``moments=True``, Spearman's
    rho) also get ``cov``, ``var_a`` and ``var_b``, the weighted covariance and variances of the
    prediction's and y's midranks (each up to a common factor).

    The built-in statistics are class attributes: ``KENDALL_TAU_B``, ``(C - D) /
    sqrt(distinct_y distinct_pred)`` (Kendall 1945); ``SPEARMAN_RHO``, ``cov / sqrt(var_a
    var_b)`` of the midranks; ``HARRELL_C``, ``(C + tied_pred_only / 2) / distinct_y`` (pairs
    tied in y excluded, ties in the prediction counting 1/2; Harrell et al. 1982); and
    ``SOMERS_D``, ``(C - D) / distinct_y`` (Somers 1962).

    Attributes
    ----------
    name : str
        The statistic's name, as messages give it (``"Kendall's tau"``).
    of_classes : callable
        ``(classes) -> array``: the statistic element-wise, NaN where undefined.
    moments : bool
        Whether ``of_classes`` reads the midrank moments.

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3),
    239-251.

    Somers, R. H. (1962). A new asymmetric measure of association for ordinal variables.
    *American Sociological Review* 27(6), 799-811.

    Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L. and Rosati, R. A. (1982).
    Evaluating the yield of medical tests. *JAMA* 247(18), 2543-2546.

    Examples
    --------
    Goodman and Kruskal's gamma, ``(C - D) / (C + D)``:

    >>> import numpy as np
    >>> gamma = RankStatistic(
    ...     "Goodman and Kruskal's gamma",
    ...     lambda s: (s["concordant"] - s["discordant"]) / (s["concordant"] + s["discordant"]),
    ... )
    >>> float(gamma({"concordant": 3, "discordant": 1}))
    0.5
    """

    KENDALL_TAU_B: ClassVar[RankStatistic]
    SPEARMAN_RHO: ClassVar[RankStatistic]
    HARRELL_C: ClassVar[RankStatistic]
    SOMERS_D: ClassVar[RankStatistic]

    name: str
    of_classes: Callable[[Mapping[str, Any]], Any]
    moments: bool = False

    def __call__(self, classes: Mapping[str, Any]) -> Any:
        return self.of_classes(classes)

    def __repr__(self) -> str:
        return f"RankStatistic({self.name!r})"


RankStatistic.KENDALL_TAU_B = RankStatistic("Kendall's tau", _kendall_tau_b)
RankStatistic.SPEARMAN_RHO = RankStatistic("Spearman's rho", _spearman_rho, moments=True)
RankStatistic.HARRELL_C = RankStatistic("Harrell's C", _harrell_c)
RankStatistic.SOMERS_D = RankStatistic("Somers' D", _somers_d)
#: The statistics of the rank sweep that ranklens defines.
RANK_STATISTICS = (
    RankStatistic.KENDALL_TAU_B,
    RankStatistic.SPEARMAN_RHO,
    RankStatistic.HARRELL_C,
    RankStatistic.SOMERS_D,
)


@dataclasses.dataclass(frozen=True)
class RankSweepForm:
    """A measure that is a fixed map of one output of the shared rank sweep.

    ``metric = transform(statistic)``; e.g. ``(1 + rho) / 2`` is
    ``RankSweepForm(RankStatistic.SPEARMAN_RHO, lambda v: (1 + v) / 2)``. The comparison engine
    sorts each model once and then runs one lean sweep per bootstrap replicate for every measure
    declared this way (the same sweep serves all of them).

    Attributes
    ----------
    statistic : RankStatistic
    transform : callable
        Applied element-wise to arrays of replicates (NaN for an undefined statistic stays NaN).
    """

    statistic: RankStatistic
    transform: Callable[[Any], Any] = _identity


@dataclasses.dataclass(frozen=True)
class ReplicateSweep:
    """A family's bootstrap engine: rows ordered once per model, weighted sums per replicate.

    A resample changes the weights, never the order of the rows: ``prepare`` sorts once (by the
    prediction, by ``y_true``, ...) and ``evaluate`` computes every replicate of a block from
    weighted cumulative sums over those fixed orders, O(n) per replicate and model, instead of
    calling the measure function once per replicate. One sweep serves every measure of a family
    declared with it (:class:`ReplicateForm`), in one pass.

    Attributes
    ----------
    prepare : callable
        ``prepare(y_true, preds, params) -> state or None`` once per comparison: validated float64
        ``y_true`` of shape (n,), ``preds`` of shape (n_models, n) and the bound keyword
        parameters of the measures (:meth:`MetricSpec.bind`; empty for their defaults). None
        when the sweep cannot reproduce the measures for these parameters (the engine then
        calls the function per replicate).
    evaluate : callable
        ``evaluate(state, weights, statistics) -> ndarray (rows, len(statistics), n_models)`` for
        a float64 block ``weights`` of shape (rows, n) (the replicate's multiplicities times the
        case weights as given) and the :attr:`ReplicateForm.statistic` of each measure wanted.
        Entry ``[r, j, m]`` equals the measure ``j`` called on ``(y_true, preds[m])`` with
        ``sample_weight=weights[r]`` and the bound parameters, to rounding (relative 1e-12;
        counts exactly), and NaN where that call returns NaN or raises (a degenerate resample);
        it warns about nothing (the engine reports undefined replicates).
    name : str
        A label for reprs and messages.
    device_prepare, device_evaluate : callable, optional
        The same sweep written once against an array namespace ``xp`` (NumPy or CuPy), for
        ``compare_models(device="gpu")``: ``device_prepare(xp, y_true, preds, params) -> state
        or None`` (arrays of that namespace; None as for ``prepare``) and
        ``device_evaluate(xp, state, weights, statistics) -> array (rows, len(statistics),
        n_models)`` of that namespace, for integer (exact sums) or float64 ``weights`` of shape
        (rows, n) in it, with the same values as ``evaluate`` (counts exactly, floats to 1e-12).
    """

    prepare: Callable[[np.ndarray, np.ndarray, Mapping[str, Any]], Any]
    evaluate: Callable[[Any, np.ndarray, tuple[Any, ...]], np.ndarray]
    name: str = ""
    device_prepare: Callable[[Any, Any, Any, Mapping[str, Any]], Any] | None = None
    device_evaluate: Callable[[Any, Any, Any, tuple[Any, ...]], Any] | None = None


@dataclasses.dataclass(frozen=True)
class ReplicateForm:
    """A measure whose bootstrap replicates one :class:`ReplicateSweep` computes.

    ``metric = sweep.evaluate(...)[:, j]`` for ``statistics[j] == statistic``: e.g. the
    targeting measures declare ``ReplicateForm(<targeting sweep>, CurveForm(...))``, one sweep
    over the rows sorted by prediction giving every functional of the ranked cumulative curve.

    Attributes
    ----------
    sweep : ReplicateSweep
        Shared by the measures of a family (compared by identity).
    statistic : hashable
        Which output of the sweep the measure is (the sweep's own vocabulary).
    parameters : tuple of str
        The measure's keyword parameters the sweep takes as well: :meth:`MetricSpec.bind` keeps
        the form when only these are bound (e.g. a relevance function fixed by the task).
    bound : tuple of (str, object)
        The parameters bound so far, passed to ``sweep.prepare``.
    """

    sweep: ReplicateSweep
    statistic: Any
    parameters: tuple[str, ...] = ()
    bound: tuple[tuple[str, Any], ...] = ()


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


class CurveStatistic(enum.Enum):
    """Functionals of the ranked cumulative curve (rows in decreasing order of the prediction,
    with the weight, the events and the non-events accumulated per distinct prediction).

    An engine that holds the rows in that order, in pieces, computes each from per-piece sums
    with the totals of the pieces before it (carry-ins).
    """

    ROC_AUC = "area under the ROC curve (ties count 1/2)"
    KS = "Kolmogorov-Smirnov statistic max(TPR - FPR)"
    GAIN_AREA = "area under the cumulative gain curve"
    ACCURACY_RATIO = "accuracy ratio (gain area over the perfect model's, both less 1/2)"
    LIFT_AT = "cumulative lift at a depth"


@dataclasses.dataclass(frozen=True)
class CurveForm:
    """A measure that is one functional of the ranked cumulative curve of its events.

    ``metric = statistic(curve)`` with the measure's event definition (binary ``y_true`` itself,
    else its ``events`` parameter); ``depth`` is the fraction targeted for
    :attr:`CurveStatistic.LIFT_AT`.

    Attributes
    ----------
    statistic : CurveStatistic
    depth : float or None
    """

    statistic: CurveStatistic
    depth: float | None = None


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
class OrderStatisticFit:
    """A parameter a measure fits from order statistics of ``y_true`` when it is not given.

    The sample is ``y_true`` with row i repeated ``w_i`` times (frequency weights as given; rows
    of weight 0 absent): its k-th smallest value is the value of the row whose block
    ``(C_{i-1}, C_i]`` of cumulative weight holds k, as :func:`ranklens.boxplot_stats` reads
    weights. An engine holding the data in pieces finds these values by exact selection.

    Attributes
    ----------
    positions : callable
        ``(size) -> sequence of float``: the 1-based positions k wanted, for a sample of ``size``
        (n, or the total weight).
    build : callable
        ``(values) -> parameter``: the parameter from the values at those positions, as the
        measure builds it (raising as the measure does when it cannot).
    """

    positions: Callable[[float], Any]
    build: Callable[[Any], Any]


@dataclasses.dataclass(frozen=True)
class SumsForm:
    """A measure that is a function of a few weighted sums of per-row values.

    ``metric = finalize(S, n, **params)`` with ``S_j = sum_i w_i T[j, i]``,
    ``T = terms(*columns, **params)`` (``w_i = 1`` without weights), ``n`` the number of rows and
    ``columns`` ``(y_true, y_pred)`` for a point measure or ``(y_true, lower, upper)`` for an
    interval measure. ``finalize`` warns and returns NaN where the function does. Unlike
    :class:`RatioForm` the per-row values may depend on task parameters (``alpha``, a relevance
    function), and several sums may be combined (precision and recall).

    Attributes
    ----------
    terms : callable
        ``(*columns, **params) -> ndarray`` of shape (m, n), on validated float64 arrays.
    finalize : callable
        ``(sums, n, **params) -> float``, ``sums`` of shape (m,).
    params : tuple of str
        The task parameters ``terms`` and ``finalize`` take (the measure's keyword arguments).
    fitted : mapping of str to OrderStatisticFit
        The parameters among ``params`` that the measure fits from order statistics of
        ``y_true`` when they are not given.
    """

    terms: Callable[..., np.ndarray]
    finalize: Callable[..., float]
    params: tuple[str, ...] = ()
    fitted: Mapping[str, OrderStatisticFit] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class MedianForm:
    """A measure that is the median of per-row values (with weights: the average of the lower and
    upper weighted medians, rows of weight 0 absent).

    Attributes
    ----------
    values : callable
        ``(y_true, y_pred) -> ndarray`` of shape (n,), on validated float64 arrays.
    """

    values: Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclasses.dataclass(frozen=True)
class RankedListForm:
    """A measure that is a ratio of two discounted sums over the rows ranked: by the prediction
    (rows tied in it sharing their mean gain) and by the truth (the ideal ranking).

    ``metric = finalize(S_pred, S_true, **params)`` with ``S = sum over the runs of the ranked
    list of segment(run)``. A run is a stretch of whole tie blocks; ``start`` is the total weight
    (the number of rows, without weights) ranked above it, so an engine that sorts the data in
    value buckets sums the buckets' segments given each bucket's carry-in. NDCG has this form
    (Jarvelin & Kekalainen 2002): DCG over the predicted order, over IDCG over the true order.

    Attributes
    ----------
    segment : callable
        ``(y_sorted, key_sorted, w_sorted, start, y_max, **params) -> float``: the discounted
        gain of a run in decreasing ``key`` (``w_sorted`` None without weights), with ``y_max``
        the largest ``y`` of the whole data (the gains' common scale, > 0).
    finalize : callable
        ``(s_pred, s_true, **params) -> float``; warns and returns NaN where the function does
        (``s_true = 0``, also given when ``y_max <= 0``).
    check : callable
        ``(y, offset) -> Exception or None``: the function's check of the truth on a piece of
        the rows in their order, the first of them at row ``offset`` of the data (the exception
        it would raise, or None); the engine reports the earliest piece's.
    params : tuple of str
        The keyword parameters ``segment`` and ``finalize`` take.
    """

    segment: Callable[..., float]
    finalize: Callable[..., float]
    check: Callable[[np.ndarray, int], Exception | None]
    params: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class LagScaledForm:
    """A mean of a per-row loss over the mean lag-1 change of the truth, rows in their order.

    ``metric = [sum_i w_i loss_i / sum_i w_i] / [sum_{t=2..n} |y_t - y_{t-1}| / (n - 1)]``: the
    mean absolute scaled error with the in-sample naive one-step forecast as scale (Hyndman &
    Koehler 2006), as in Payne, Li & Qin's (2016) pmap. The scale is a property of the series, so
    it stays unweighted. An engine holding the rows in pieces *kept in row order* adds each
    piece's loss sums and its lag sum, and the lag between the last row of a piece and the first
    row of the next; no sort is involved, but the order of the pieces is.

    Attributes
    ----------
    loss : callable
        ``(y_true, y_pred) -> ndarray`` of per-row losses, on validated float64 arrays.
    zero_scale : str
        The reason the measure is undefined when the truth never changes (zero scale), as the
        function's own warning says it.
    """

    loss: Callable[[np.ndarray, np.ndarray], np.ndarray]
    zero_scale: str

    def evaluate(self, y: np.ndarray, p: np.ndarray, w: np.ndarray | None = None) -> float:
        """The measure from its sums (plain float64 sums: ordinary magnitudes only); NaN for a
        zero scale."""
        loss = self.loss(y, p)
        mean_loss = loss.mean() if w is None else (w @ loss) / w.sum()
        scale = np.abs(np.diff(y)).sum() / (y.shape[0] - 1)
        return float(mean_loss / scale) if scale > 0 else math.nan


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
          10 %, are a quantile of the truth) or a :class:`SumsForm` with a parameter fitted from
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

    def __post_init__(self) -> None:
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
) -> Callable[[F], F]:
    """Decorator registering a scalar measure under ``name`` (the function itself is unchanged).

    Give ``direction`` (one of :data:`DIRECTIONS`, with ``target`` for ``"target"``), or the
    shorthand ``higher_is_better``. The keyword arguments after ``description`` declare the
    measure's :class:`Capabilities`; its computational form follows from them
    (:attr:`Capabilities.computational_form`).
    """
    if direction is None and higher_is_better is None:
        raise TypeError(f"metric {name!r}: give direction (one of {DIRECTIONS})")
    if direction is not None and higher_is_better is not None:
        raise TypeError(f"metric {name!r}: give direction or higher_is_better, not both")
    if name in METRIC_ALIASES:
        raise ValueError(f"{name!r} is an alias of {METRIC_ALIASES[name]!r}")
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
            description=description if description is not None else (doc[0] if doc else ""),
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
