"""The metric registry's storage and decorator (the public face is :mod:`ranklens.metrics`).

Each module registers its own scalar measures with :func:`register_metric`, so no list of names is
kept by hand anywhere. Consumers (the comparison engine, the CLI, the report) look up direction and
family here; they never guess them from a metric's name.

A registration also declares what the measure *can do* (:class:`Capabilities`): a batched form for
resampling, an exact leave-one-out, a breakdown bound, an analytical variance and the computational
form that an engine processing the data in pieces would need. Engines (:mod:`ranklens.compare`,
:mod:`ranklens.robustness`, ...) read these declarations and nothing else: they never name a
measure, so a new measure gets every fast path by declaring it where it is defined.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import numpy as np

__all__ = [
    "FAMILIES",
    "FAMILY_ALIASES",
    "INPUTS",
    "BreakdownBound",
    "Capabilities",
    "ComputationalForm",
    "MetricSpec",
    "RankStatistic",
    "RankSweepForm",
    "RatioForm",
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


class RankStatistic(enum.Enum):
    """The statistics that one weighted rank sweep computes together, in O(n log n).

    The sweep (stage 2 of :mod:`ranklens._kernels.ranking`) runs over the rows sorted by
    ``y_true`` and counts, with pair weights ``w_i w_j``, concordant, discordant and tied pairs
    and the midrank moments; from them it returns the three statistics below.
    """

    KENDALL_TAU_B = "Kendall's tau-b"
    SPEARMAN_RHO = "Spearman's rho (midranks)"
    HARRELL_C = "Harrell's C (pairs tied in y_true excluded, ties in y_pred count 1/2)"


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


class ComputationalForm(enum.Enum):
    """What an engine that processes the data in pieces must provide to compute a measure.

    The forms are nested, each providing what the previous one does: a measure declares the first
    that suffices for every input it accepts with its default parameters.

    * ``MERGEABLE_SUMS``: per-piece sums of per-row values, added across pieces, then finalised
      (means of losses, interval scores, coverage).
    * ``ONE_SORT_BY_PREDICTION``: the rows in decreasing order of the prediction, with a fixed
      per-row response accumulated along it (a gain or ROC curve of given events).
    * ``SORTS_BY_PREDICTION_AND_TRUTH``: the rows in order of the prediction and in order of the
      truth, or order statistics of the truth such as a quantile that defines the events or a
      box plot that defines relevance (rank correlations, NDCG's ideal ordering).

    A measure that needs none of these (a median of the residuals needs their order; a lag-1 scale
    needs the row order) declares no form.
    """

    MERGEABLE_SUMS = "mergeable sums"
    ONE_SORT_BY_PREDICTION = "one sort by prediction"
    SORTS_BY_PREDICTION_AND_TRUTH = "sorts by prediction and by truth"


@dataclasses.dataclass(frozen=True)
class Capabilities:
    """Optional abilities of one measure function, declared where it is registered.

    Each is an object the engines call; any may be None (the engine then takes its generic path:
    the function once per replicate, or n recomputations for the leave-one-out).

    Attributes
    ----------
    batched : RatioForm or RankSweepForm or None
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
        measure for unweighted data (e.g. Noether's for Kendall's tau).
    computational_form : ComputationalForm or None
        What an engine processing the data in pieces must provide.
    describes : callable or None
        The function these capabilities describe (set by :func:`register_metric`). A spec whose
        ``func`` is another function, e.g. ``dataclasses.replace(spec, func=partial(...))`` with
        parameters bound, keeps none of them: they would describe the wrong function.
    """

    batched: RatioForm | RankSweepForm | None = None
    leave_one_out: Callable[..., np.ndarray] | None = None
    breakdown: BreakdownBound | None = None
    variance: Callable[[np.ndarray, np.ndarray], tuple[float, float]] | None = None
    computational_form: ComputationalForm | None = None
    describes: Callable[..., Any] | None = dataclasses.field(default=None, repr=False)


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
    higher_is_better : bool
        Direction; ``*_score`` measures are higher-is-better, ``*_error``/``*_loss`` lower.
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
    """

    name: str
    func: Callable[..., float]
    higher_is_better: bool
    family: str
    inputs: str = "point"
    supports_sample_weight: bool = True
    order_dependent: bool = False
    description: str = ""
    capabilities: Capabilities = _NO_CAPABILITIES

    def __post_init__(self) -> None:
        described = self.capabilities.describes
        if described is not None and described is not self.func:
            # e.g. parameters bound with functools.partial: the declared fast paths compute the
            # measure with its defaults, so they no longer describe this function.
            object.__setattr__(self, "capabilities", _NO_CAPABILITIES)

    def __call__(self, *args: Any, **kwargs: Any) -> float:
        return self.func(*args, **kwargs)


_REGISTRY: dict[str, MetricSpec] = {}


def register_metric(
    name: str,
    *,
    higher_is_better: bool,
    family: str,
    inputs: str = "point",
    order_dependent: bool = False,
    description: str | None = None,
    batched: RatioForm | RankSweepForm | None = None,
    leave_one_out: Callable[..., np.ndarray] | None = None,
    breakdown: BreakdownBound | None = None,
    variance: Callable[[np.ndarray, np.ndarray], tuple[float, float]] | None = None,
    computational_form: ComputationalForm | None = None,
) -> Callable[[F], F]:
    """Decorator registering a scalar measure under ``name`` (the function itself is unchanged).

    The keyword arguments after ``description`` declare the measure's :class:`Capabilities`.
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}; got {family!r}")
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}; got {inputs!r}")
    if batched is not None and not isinstance(batched, RatioForm | RankSweepForm):
        raise TypeError(f"batched must be a RatioForm or a RankSweepForm; got {batched!r}")
    if breakdown is not None and not isinstance(breakdown, BreakdownBound):
        raise TypeError(f"breakdown must be a BreakdownBound; got {breakdown!r}")
    if computational_form is not None and not isinstance(computational_form, ComputationalForm):
        raise TypeError(
            f"computational_form must be a ComputationalForm; got {computational_form!r}"
        )
    for label, value in (("leave_one_out", leave_one_out), ("variance", variance)):
        if value is not None and not callable(value):
            raise TypeError(f"{label} must be callable; got {value!r}")

    def decorator(func: F) -> F:
        if name in _REGISTRY and _REGISTRY[name].func is not func:
            raise ValueError(f"metric {name!r} is registered twice")
        doc = (inspect.getdoc(func) or "").strip().splitlines()
        _REGISTRY[name] = MetricSpec(
            name=name,
            func=func,
            higher_is_better=higher_is_better,
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
                computational_form=computational_form,
                describes=func,
            ),
        )
        return func

    return decorator
