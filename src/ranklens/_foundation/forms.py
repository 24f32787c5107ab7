"""The computational forms: what a measure declares so that every engine computes it.

A form is the measure written as a computation the engines know, declared where the measure is
registered (:func:`ranklens._foundation.registry.register_metric`) and read by every engine (the
bootstrap's kernels, the device, the Dask engine); an engine never names a measure. Seven forms:

* :class:`RatioForm`: a mean loss, a ratio of weighted sums of per-row values;
* :class:`SumsForm`: a function of a few weighted sums of per-row values (with order
  statistics of the truth as parameters, :class:`OrderStatisticFit`);
* :class:`RankSweepForm`: a statistic of the pair classes of the weighted rank sweep
  (:class:`RankStatistic`);
* :class:`CurveForm`: a functional of the ranked cumulative curve (:class:`CurveStatistic`),
  whose replicates a family's :class:`ReplicateSweep` computes (:class:`ReplicateForm`);
* :class:`MedianForm`: the median of per-row values;
* :class:`RankedListForm`: a ratio of discounted sums over the ranked rows (NDCG);
* :class:`LagScaledForm`: a mean loss over the mean lag-1 change of the truth.

This module is a foundation: it imports nothing of ranklens.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "CONFUSION_FIELDS",
    "RANK_STATISTICS",
    "CurveForm",
    "CurveStatistic",
    "LagScaledForm",
    "MedianForm",
    "OrderStatisticFit",
    "RankStatistic",
    "RankSweepForm",
    "RankedListForm",
    "RatioForm",
    "ReplicateForm",
    "ReplicateSweep",
    "SumsForm",
    "confusion_from_lift",
    "read_at_depth",
]


def _identity(value: Any) -> Any:
    return value


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
    bounded : bool, default False
        Whether the per-row values lie in a bounded range whatever the data (the Brier score's
        squared errors of probabilities, in [0, 1]). The tail-weight rule that flags the
        intervals of a mean loss approximate is for unbounded contributions: a mean of bounded
        ones is near normal from a few hundred rows, however skewed its bulk (the paired
        bootstrap's interval of a difference of Brier scores covered 94-96 % at 200-10,000
        rows, docs/binary.md).
    """

    numerator: Callable[..., np.ndarray]
    denominator: Callable[..., np.ndarray] | None = None
    finalize: Callable[[Any], Any] = _identity
    bounded: bool = False

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
        """The measure from its sums (plain float64 sums: ordinary magnitudes only). A plain
        mean (no weights, no denominator) is ``num.sum() / n``, NumPy's pairwise sum, the bits of
        ``np.mean`` and of scikit-learn's losses; weighted, ``(w @ num) / w.sum()``."""
        num = self.numerator(y, p, **params)
        if w is None and self.denominator is None:
            return float(self.finalize(num.sum() / num.shape[0]))
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
    """A measure that is a fixed map of a statistic of the rank sweep's pair classes.

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
    PARTIAL_ROC_AUC = "standardised area under the ROC curve up to a false positive rate"
    RECALL_AT = "share of the events among the rows targeted at a depth (the gain G(depth))"
    PRECISION_AT = "event rate among the rows targeted at a depth (lift times the event share)"
    AVERAGE_PRECISION = "average precision, sum over the distinct scores of dRecall x precision"

    @property
    def at_depth(self) -> bool:
        """Whether the functional is read at a depth (:attr:`CurveForm.depth`): the lift, the
        recall and the precision there, all three from the gain ``G(depth)`` (recall
        ``G(depth)``, lift ``G(depth) / depth``, precision the lift times the event share)."""
        return self in _AT_DEPTH


_AT_DEPTH = frozenset(
    {CurveStatistic.LIFT_AT, CurveStatistic.RECALL_AT, CurveStatistic.PRECISION_AT}
)


def read_at_depth(statistic: CurveStatistic, lift: Any, depth: float, event_share: Any) -> Any:
    """A functional read at a depth from the lift there (element-wise on arrays of replicates).

    ``lift = G(depth) / depth``; the recall is ``G(depth) = lift * depth`` and the precision
    ``E(depth) / W(depth) = lift * E / W`` (``event_share = E / W``). Every engine that
    computes the lift at a depth computes the other two through this one function.
    """
    if statistic is CurveStatistic.RECALL_AT:
        return lift * depth
    if statistic is CurveStatistic.PRECISION_AT:
        return lift * event_share
    return lift


#: The fields of :func:`confusion_from_lift`, in the order the reports list them.
CONFUSION_FIELDS = (
    "precision",
    "recall",
    "true_positives",
    "false_positives",
    "false_negatives",
    "true_negatives",
)


def confusion_from_lift(
    lift: float, depth: float, total_events: float, total_weight: float
) -> dict[str, float]:
    r"""The 2x2 counts, precision and recall when the top ``depth`` of the cases is targeted,
    from the lift there.

    Every engine that reads the lift at a depth (the in-memory ranked curve, the Dask engine's
    pieces of it) makes the counts at that depth through this one function, so that they agree
    to the bit on the same lift.

    Parameters
    ----------
    lift : float
        The cumulative lift at ``depth``, ``G(depth) / depth`` (:func:`read_at_depth`).
    depth : float
        The share of the (weighted) cases targeted, in (0, 1].
    total_events : float
        ``E``, the (weighted) number of events.
    total_weight : float
        ``W``, the (weighted) number of cases.

    Returns
    -------
    dict of str to float
        ``precision``, ``recall``, ``true_positives``, ``false_positives``,
        ``false_negatives`` and ``true_negatives`` (:data:`CONFUSION_FIELDS`); NaN throughout
        for a NaN lift (no events).

    Notes
    -----
    With ``d`` the depth and ``G(d) = lift * d`` the recall (the cumulative gain):

    .. math::
        TP = E\,G(d), \quad FP = d W - TP, \quad FN = E - TP, \quad TN = W - E - FP,

    and the precision ``TP / (d W)``, read as the lift at ``d`` times the event share ``E / W``
    (Provost & Fawcett 2013, ch. 8).

    References
    ----------
    Provost, F. and Fawcett, T. (2013). *Data Science for Business*, ch. 8, "Visualizing Model
    Performance". O'Reilly Media.

    Examples
    --------
    >>> c = confusion_from_lift(1.25, 0.4, 2.0, 5.0)
    >>> c["true_positives"], c["false_positives"], c["false_negatives"], c["true_negatives"]
    (1.0, 1.0, 1.0, 2.0)
    """
    recall = float(read_at_depth(CurveStatistic.RECALL_AT, lift, depth, math.nan))
    share = total_events / total_weight
    tp = recall * total_events
    fp = depth * total_weight - tp
    precision = read_at_depth(CurveStatistic.PRECISION_AT, recall / depth, depth, share)
    return {
        "precision": float(precision),
        "recall": recall,
        "true_positives": float(tp),
        "false_positives": float(fp),
        "false_negatives": float(total_events - tp),
        "true_negatives": float(total_weight - total_events - fp),
    }


@dataclasses.dataclass(frozen=True)
class CurveForm:
    """A measure that is one functional of the ranked cumulative curve of its events.

    ``metric = statistic(curve)`` with the measure's event definition (binary ``y_true`` itself,
    else its ``events`` parameter); ``depth`` is the fraction targeted for
    :attr:`CurveStatistic.LIFT_AT` (and the recall and precision there), ``max_fpr`` the false
    positive rate up to which :attr:`CurveStatistic.PARTIAL_ROC_AUC` takes the area.

    Attributes
    ----------
    statistic : CurveStatistic
    depth : float or None
    max_fpr : float or None
    """

    statistic: CurveStatistic
    depth: float | None = None
    max_fpr: float | None = None

    @property
    def bound(self) -> float:
        """The functional's one number: ``max_fpr`` for the partial AUC, ``depth`` for the lift,
        NaN for the others (the sweeps' ``depths`` argument)."""
        value = self.max_fpr if self.statistic is CurveStatistic.PARTIAL_ROC_AUC else self.depth
        return math.nan if value is None else float(value)


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
