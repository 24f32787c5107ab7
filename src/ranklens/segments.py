"""Evaluation by segment: where each model wins and loses, with evidence.

After "which model is better overall?" comes "better for whom?": by region, product, channel,
customer tier, risk band. :func:`by_segment` evaluates every model on every segment of one or
more slicings of the rows, with a paired bootstrap inside each segment (:func:`compare_models` on
the segment's rows only; ``groups`` still resamples whole units), and compares each model with
the overall pick of each measure there (with a block scheme, blocks of consecutive rows of each
segment, for rows in time order). The verdicts across all segments, measures and models
are judged together, controlling the false discovery rate (Benjamini & Hochberg 1995, or
Benjamini & Yekutieli 2001 under any dependence): among the segments called "clearly better",
the expected share of false calls stays at the level asked. :func:`scan_segments` searches the
segments of several columns for where the pick is clearly worse than another model, or where
every model is clearly worse than its own overall level, with the search counted in the same
family of tests.

Small segments are honest: a segment with fewer rows than ``min_rows`` (or, for a measure that
counts events, fewer than ``min_events`` events or non-events) keeps its point value and counts
but gets no interval and no verdict, and says why.

References
----------
Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate: a practical and
powerful approach to multiple testing. *Journal of the Royal Statistical Society B* 57(1),
289-300.

Benjamini, Y. and Yekutieli, D. (2001). The control of the false discovery rate in multiple
testing under dependency. *Annals of Statistics* 29(4), 1165-1188.

Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM'05)*, 370-377.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens._foundation.linear_quantiles import linear_interpolation, linear_positions
from ranklens._foundation.multiplicity import FDR_METHOD_NAMES, FDR_METHODS, fdr_adjust
from ranklens._foundation.normal import ndtr
from ranklens._foundation.problems import call_quietly, score_quietly
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.results import Result
from ranklens._foundation.validation import (
    as_1d_float,
    check_probability,
    check_random_state,
    check_sample_weight,
)
from ranklens._inference.resampling import BLOCK_SCHEMES, SCHEMES, draws_as
from ranklens.compare import compare_models
from ranklens.metrics import get_metric
from ranklens.targeting import event_flags, fixed_events

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_SEGMENT_METRICS",
    "MISSING_SEGMENT",
    "SegmentEvaluation",
    "SegmentScan",
    "by_segment",
    "scan_segments",
]

#: The measures :func:`by_segment` evaluates unless told: the size of the errors, the order of
#: the cases and the separation of the events (the headline of three of the report's goals).
DEFAULT_SEGMENT_METRICS: tuple[str, ...] = ("mean_absolute_error", "kendall_tau", "roc_auc")

#: The name of the segment of the rows whose label is missing (None, NaN, NaT, pandas' NA).
MISSING_SEGMENT = "(missing)"

#: The task parameters a segment's measures take by name, as :func:`ranklens.evaluate_models`
#: passes them.
TASK_PARAMETERS = ("events", "relevance", "event_threshold", "k", "gains")


@dataclasses.dataclass(frozen=True)
class Slicing:
    """One way of cutting the rows into segments: a code per row and each segment's name.

    Attributes
    ----------
    name : str
        What the segments are of (a column name).
    codes : ndarray of int64, shape (n,)
        Each row's segment, an index into ``segments``.
    segments : tuple of str
        The segments' names, in the order shown (quantile bins from low to high, categories in
        their own order or sorted, the missing label last).
    kind : str
        ``"categories"`` or ``"quantile bins"``.
    n_missing : int
        Rows whose label is missing (they form the segment :data:`MISSING_SEGMENT`).
    """

    name: str
    codes: np.ndarray
    segments: tuple[str, ...]
    kind: str
    n_missing: int


@dataclasses.dataclass(frozen=True)
class SegmentSettings:
    """The settings of an evaluation by segment or by time window, held together from the public
    functions to the engine that runs them (in memory or on Dask) and from the pipeline
    (:func:`ranklens.evaluate_models`).

    :func:`by_segment`, :func:`scan_segments`, :func:`ranklens.timeseries.by_window` and their
    Dask twins take these as keyword arguments (their signatures document each one) and build
    the settings once (:meth:`of`); everything after them reads the settings. A field a
    function does not take keeps its default here (:func:`scan_segments` does not cross its
    columns, :func:`ranklens.timeseries.by_window` cuts no quantile bins).

    Attributes
    ----------
    metrics, sample_weight, groups, scheme, block_length, bins, cross, min_rows, min_events
        The arguments of :func:`by_segment` of these names (arrays in memory, column names on
        Dask), as its docstring defines them.
    pick, n_bootstrap, confidence_level, interval, fdr, fdr_level, random_state
        Likewise.
    events, relevance, event_threshold, k, gains
        Likewise: the task parameters of the measures.
    """

    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS
    sample_weight: Any = None
    groups: Any = None
    scheme: str | None = "multinomial"
    block_length: float | str = "auto"
    bins: int = 5
    cross: bool = False
    min_rows: int = 30
    min_events: int = 10
    pick: str | None = None
    n_bootstrap: int = 1000
    confidence_level: float = 0.95
    interval: str = "auto"
    fdr: str = "bh"
    fdr_level: float = 0.05
    random_state: Any = 0
    events: Any = None
    relevance: Any = None
    event_threshold: float | None = None
    k: int | None = None
    gains: str | None = None

    @classmethod
    def of(cls, arguments: Mapping[str, Any]) -> SegmentSettings:
        """The settings among a function's arguments (its ``locals()`` before any other name is
        bound): every field found by name, the others at their defaults.

        Parameters
        ----------
        arguments : mapping
            The arguments by name; names that are not fields (the data) are not read.

        Returns
        -------
        SegmentSettings
        """
        names = {field.name for field in dataclasses.fields(cls)}
        return cls(**{name: value for name, value in arguments.items() if name in names})

    def task(self) -> dict[str, Any]:
        """The task parameters the measures take by name: ``events``, ``relevance``,
        ``event_threshold``, ``k`` and ``gains``."""
        return {name: getattr(self, name) for name in TASK_PARAMETERS}


def _as_series(values: Any, name: str) -> pd.Series:
    """``values`` (NumPy, list, pandas, polars, Arrow) as a pandas Series named ``name``."""
    import pandas as pd

    if isinstance(values, pd.Series):
        return values.rename(name)
    if hasattr(values, "to_pandas"):  # polars and Arrow
        return pd.Series(values.to_pandas(), name=name)
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"segment labels {name!r} must be one-dimensional; got {array.shape}")
    return pd.Series(array, name=name)


def _label_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _quantile_bins(values: np.ndarray, present: np.ndarray, bins: int) -> tuple[np.ndarray, list]:
    """Codes of ``bins`` quantile bins of the present values, and the bins' names."""
    v = values[present]
    edges = np.unique(np.quantile(v, quantile_levels(bins)))
    codes = np.full(values.shape[0], -1, dtype=np.int64)
    codes[present] = quantile_bin_codes(v, edges)
    return codes, quantile_bin_names(edges)


def quantile_levels(bins: int) -> np.ndarray:
    """The probabilities of the edges of ``bins`` quantile bins: ``0, 1/bins, ..., 1``.

    Parameters
    ----------
    bins : int
        The bins asked for (at least 2).

    Returns
    -------
    ndarray of float
        ``numpy.linspace(0, 1, bins + 1)``.
    """
    return np.linspace(0.0, 1.0, bins + 1)


def quantile_bin_positions(n: int, bins: int) -> np.ndarray:
    """The order statistics the edges of ``bins`` quantile bins of ``n`` values are read from.

    Parameters
    ----------
    n : int
        The present values (at least 1).
    bins : int
        The bins asked for.

    Returns
    -------
    ndarray of int
        The distinct 0-based positions in the sorted values, ascending: the two order
        statistics NumPy's linear quantile interpolates between, at every level of
        :func:`quantile_levels`.
    """
    previous, following, _ = linear_positions(n, quantile_levels(bins))
    return np.unique(np.r_[previous, following]).astype(np.int64)


def quantile_bin_edges(n: int, bins: int, order_statistics: Mapping[int, float]) -> np.ndarray:
    """The distinct edges of ``bins`` quantile bins of ``n`` values from their order statistics.

    The edges the in-memory slicing cuts a numeric column at,
    ``numpy.unique(numpy.quantile(v, quantile_levels(bins)))``, with NumPy's own positions and
    interpolation (:mod:`ranklens._foundation.linear_quantiles`), for an engine that selects
    the order statistics without holding the column.

    Parameters
    ----------
    n : int
        The present values.
    bins : int
        The bins asked for.
    order_statistics : mapping of int to float
        The value at each position of :func:`quantile_bin_positions` (0-based, in the sorted
        values).

    Returns
    -------
    ndarray of float
        The distinct edges, ascending.
    """
    previous, following, weight = linear_positions(n, quantile_levels(bins))
    low = np.array([order_statistics[int(i)] for i in previous], dtype=np.float64)
    high = np.array([order_statistics[int(i)] for i in following], dtype=np.float64)
    return np.unique(linear_interpolation(low, high, weight))


def quantile_bin_codes(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The quantile bin of every present value: ``[e_i, e_{i+1})``, the last bin closed.

    Parameters
    ----------
    values : ndarray of float
        Present values (no NaN), between the first and the last edge.
    edges : ndarray of float
        The distinct edges, ascending (:func:`quantile_bin_edges`).

    Returns
    -------
    ndarray of int64
        The bin of each value, ``0 .. edges.size - 2``.
    """
    return np.searchsorted(edges[1:-1], values, side="right").astype(np.int64)


def quantile_bin_names(edges: np.ndarray) -> list[str]:
    """The names of the quantile bins between ``edges``: ``"[a, b)"``, the last ``"[a, b]"``,
    each edge to 4 significant digits (a zero edge is ``0`` whatever its sign).

    Parameters
    ----------
    edges : ndarray of float
        The distinct edges, ascending.

    Returns
    -------
    list of str
        One name per bin, from low to high.
    """
    shown = np.asarray(edges, dtype=np.float64) + 0.0  # (-0.0 + 0.0 is 0.0)
    names = []
    for i in range(shown.size - 1):
        close = "]" if i == shown.size - 2 else ")"
        names.append(f"[{shown[i]:.4g}, {shown[i + 1]:.4g}{close}")
    return names


def slice_rows(values: Any, name: str, *, n: int, bins: int) -> Slicing:
    """The segments of one column of labels: numeric columns with more than ``bins`` distinct
    values are cut into quantile bins, anything else is used as its categories.

    Raises
    ------
    ValueError
        If the labels are not one-dimensional, not ``n`` long, or all missing.
    """
    import pandas as pd

    series = _as_series(values, name)
    if len(series) != n:
        raise ValueError(f"segment labels {name!r} have length {len(series)}; the data have {n}")
    missing = series.isna().to_numpy()
    if missing.all():
        raise ValueError(f"segment labels {name!r} are all missing")
    numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
    if numeric and series[~missing].nunique() > bins:
        floats = series.to_numpy(dtype=np.float64, na_value=np.nan)
        codes, names = _quantile_bins(floats, ~missing, bins)
        kind = "quantile bins"
    else:
        categorical = isinstance(series.dtype, pd.CategoricalDtype)
        present = series[~missing]
        if categorical:
            present = present.cat.remove_unused_categories()
            order = list(present.cat.categories)
        else:
            order = label_order(present.unique().tolist())
        lookup = {label: i for i, label in enumerate(order)}
        codes = np.full(n, -1, dtype=np.int64)
        codes[~missing] = [lookup[v] for v in present.tolist()]
        names = [label_name(v) for v in order]
        kind = "categories"
    n_missing = int(missing.sum())
    if n_missing:
        codes[missing] = len(names)
        names.append(MISSING_SEGMENT)
    return Slicing(name, codes, tuple(names), kind, n_missing)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool)


def label_order(labels: Sequence[Any]) -> list[Any]:
    """The distinct present labels of a column used as its categories, in the order its
    segments are shown: numbers first, ascending, then the others sorted.

    Parameters
    ----------
    labels : sequence
        The distinct labels (no missing one).

    Returns
    -------
    list
        The labels in order (how every engine orders the segments of a column of labels).
    """
    return sorted(labels, key=lambda v: (not _is_number(v), v))


def label_name(value: Any) -> str:
    """A segment's name from its label: a whole float without its decimals, another float
    to 6 significant digits, anything else as ``str`` gives it.

    Parameters
    ----------
    value : object
        The label.

    Returns
    -------
    str
        The segment's name.
    """
    return _label_text(value)


def _slicings(segments: Any, *, n: int, bins: int, cross: bool) -> list[Slicing]:
    """Every slicing of ``segments`` (one column, a mapping or a DataFrame of several)."""
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2; got {bins!r}")
    if hasattr(segments, "columns") and not hasattr(segments, "dtype"):  # a DataFrame
        columns = {str(c): segments[c] for c in segments.columns}
    elif isinstance(segments, Mapping):
        columns = {str(k): v for k, v in segments.items()}
    else:
        columns = {str(getattr(segments, "name", None) or "segment"): segments}
    if not columns:
        raise ValueError("segments names no column of labels")
    out = [slice_rows(v, k, n=n, bins=int(bins)) for k, v in columns.items()]
    if cross and len(out) > 1:
        out.append(_crossed(out))
    return out


def _crossed(slicings: list[Slicing]) -> Slicing:
    """The cross product of several slicings: a segment per combination present."""
    keys = np.stack([s.codes for s in slicings], axis=1)
    combos, codes = np.unique(keys, axis=0, return_inverse=True)
    names = tuple(
        " & ".join(s.segments[c] for s, c in zip(slicings, combo, strict=True)) for combo in combos
    )
    name = " x ".join(s.name for s in slicings)
    return Slicing(name, codes.reshape(-1).astype(np.int64), names, "crossed", 0)


# ------------------------------------------------------------------------------------------------
# The run: measures, comparisons and tests per segment


@dataclasses.dataclass
class _Task:
    """What every segment shares: the data, the measures and how to compare them (the checked
    ``settings``: the bootstrap's scheme, replicates and intervals, and the smallest segment)."""

    y: np.ndarray
    predictions: dict[str, np.ndarray]
    weight: np.ndarray | None
    groups: np.ndarray | None
    settings: SegmentSettings
    specs: list[MetricSpec]
    counts_events: list[bool]
    events: np.ndarray | None
    picks: dict[str, str]
    overall: dict[str, dict[str, float]]
    seed: np.random.SeedSequence
    level_tests: bool


def _bound_specs(
    metrics: Sequence[str] | str, context: Mapping[str, Any]
) -> tuple[list[MetricSpec], list[bool]]:
    """The registry entries with the task parameters they take bound, and whether each one's
    value rests on events (it takes ``events``)."""
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics names no measure")
    specs, counts = [], []
    for name in names:
        spec = name if isinstance(name, MetricSpec) else get_metric(name)
        if spec.inputs != "point" or spec.order_dependent:
            raise ValueError(
                f"metrics: {spec.name!r} cannot be evaluated by segment (it needs "
                + ("interval predictions)" if spec.inputs != "point" else "the rows in order)")
            )
        accepted = inspect.signature(spec.func).parameters
        params = {k: v for k, v in context.items() if k in accepted and v is not None}
        specs.append(spec.bind(**params) if params else spec)
        counts.append("events" in accepted)
    return specs, counts


def _overall(
    task_specs: list[MetricSpec], y: np.ndarray, predictions: dict[str, np.ndarray], w: Any
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for spec in task_specs:
        out[spec.name] = {
            model: score_quietly(spec, y, pred, sample_weight=w)[0]
            for model, pred in predictions.items()
        }
    return out


def _segment_seed(task: _Task, s: int, j: int) -> np.random.SeedSequence:
    """Slicing ``s``'s segment ``j`` draws its own stream: ``SeedSequence(entropy,
    spawn_key=(*key, s, j))`` of the run's seed, whatever the other segments are."""
    root = task.seed
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, s, j))


def small_reason(
    n_rows: int,
    n_events: int,
    n_non_events: int,
    *,
    counts_events: bool,
    min_rows: int,
    min_events: int,
) -> str:
    """Why a measure gets no interval and no verdict in a segment of these counts.

    Parameters
    ----------
    n_rows : int
        The segment's rows.
    n_events, n_non_events : int
        Its events and non-events (read only when ``counts_events``).
    counts_events : bool
        Whether the measure's value rests on events (it takes ``events``) and events are
        defined.
    min_rows, min_events : int
        The smallest segment that gets an interval, in rows and in events and non-events.

    Returns
    -------
    str
        The reason, or ``""`` when the segment is large enough.
    """
    if n_rows < min_rows:
        return f"{n_rows} rows, fewer than min_rows={min_rows}"
    if counts_events:
        fewest = min(n_events, n_non_events)
        if fewest < min_events:
            which = "events" if n_events <= n_non_events else "non-events"
            return f"{fewest} {which}, fewer than min_events={min_events}"
    return ""


def wald_p_value(estimate: float, std_error: float) -> float:
    """Two-sided p-value of "zero" for an estimate with a bootstrap standard error:
    ``2 Phi(-|estimate| / std_error)``; 1 for a zero estimate with no variability, NaN when the
    standard error is undefined.

    Bootstrap p-values, ``(1 + #{...}) / (R + 1)``, cannot go below ``1 / (R + 1)``; a false
    discovery rate over ``m`` tests needs the smallest below ``alpha / m`` (5e-5 for 1,000
    tests), which would take hundreds of thousands of replicates per segment. The Wald form
    of Rosset, Perlich & Zadrozny (2005, Sect. 5.3) resolves any p-value from the replicates'
    standard deviation; its level under the false discovery rate procedure is checked by
    simulation (``benchmarks/segment_fdr_study.py``, ``docs/segments.md``).
    """
    if not (math.isfinite(estimate) and math.isfinite(std_error)):
        return math.nan
    if std_error <= 0.0:
        return 1.0 if estimate == 0.0 else math.nan
    return 2.0 * ndtr(-abs(estimate) / std_error)


def _pair_fields(comparison: Any, k: int, model: str, pick: str) -> dict[str, float]:
    """``model - pick`` on measure ``k``: the difference, its interval, the bootstrap standard
    deviation of the paired difference and the Wald p-value."""
    pairs = list(comparison.pairs)
    if (model, pick) in pairs:
        j, sign = pairs.index((model, pick)), 1.0
    else:
        j, sign = pairs.index((pick, model)), -1.0
    lo = float(comparison.difference_ci_lower[k, j])
    hi = float(comparison.difference_ci_upper[k, j])
    difference = sign * float(comparison.difference[k, j])
    return {
        "difference": difference,
        "difference_ci_lower": lo if sign > 0 else -hi,
        "difference_ci_upper": hi if sign > 0 else -lo,
        "difference_sd": float(comparison.difference_sd[k, j]),
        "p_value": wald_p_value(difference, float(comparison.difference_sd[k, j])),
    }


def _level_fields(comparison: Any, k: int, i: int, value: float, overall: float) -> dict:
    """The segment's value against the model's overall value: the gap and the Wald p-value of
    "the segment is at the overall level", ``2 Phi(-|v - v_all| / sd*)`` with ``sd*`` the
    segment's bootstrap standard error. The overall value is held fixed; it contains the
    segment, which pulls it towards the segment's value, so the test is conservative."""
    gap = value - overall
    p = wald_p_value(gap, float(comparison.std_error[k, i]))
    return {"overall_value": overall, "level_gap": gap, "level_p_value": p}


def _unshown_p_values(comparison: Any, k: int, pick: str) -> list[float]:
    """The p-values of the pairs of measure ``k`` that leave the pick out: tested with the
    others so that the family does not depend on which model the data made the pick."""
    return [
        wald_p_value(float(comparison.difference[k, j]), float(comparison.difference_sd[k, j]))
        for j, pair in enumerate(comparison.pairs)
        if pick not in pair
    ]


def _segment_records(
    task: _Task, slicing: Slicing, s: int, j: int
) -> tuple[list[dict[str, Any]], list[float]]:
    """The rows of the long table for segment ``j`` of ``slicing`` (one per measure and model),
    and the p-values of the pairs without the pick (:func:`_unshown_p_values`)."""
    rows = np.flatnonzero(slicing.codes == j)
    n_rows = int(rows.size)
    n_events = n_non = -1
    if task.events is not None:
        n_events = int(task.events[rows].sum())
        n_non = n_rows - n_events
    y = task.y[rows]
    preds = {m: p[rows] for m, p in task.predictions.items()}
    w = None if task.weight is None else task.weight[rows]
    g = None if task.groups is None else task.groups[rows]
    small = [
        small_reason(
            n_rows,
            n_events,
            n_non,
            counts_events=counts and task.events is not None,
            min_rows=task.settings.min_rows,
            min_events=task.settings.min_events,
        )
        for counts in task.counts_events
    ]
    tested = [spec for spec, why in zip(task.specs, small, strict=True) if not why]
    comparison, problem = None, None
    settings = task.settings
    if tested and settings.n_bootstrap > 0:
        comparison, problem = call_quietly(
            compare_models,
            y,
            preds,
            metrics=tested,
            n_bootstrap=settings.n_bootstrap,
            confidence_level=settings.confidence_level,
            interval=settings.interval,
            random_state=_segment_seed(task, s, j),
            sample_weight=w,
            groups=g,
            scheme=settings.scheme,
            block_length=settings.block_length,
            show_progress=False,
        )
    return segment_records(
        slicing.name,
        slicing.segments[j],
        (n_rows, n_events if n_events >= 0 else None),
        specs=task.specs,
        models=list(task.predictions),
        picks=task.picks,
        small=small,
        comparison=comparison,
        problem=problem,
        score=lambda spec, model: score_quietly(spec, y, preds[model], sample_weight=w),
        overall=task.overall if task.level_tests else None,
    )


def segment_records(
    slicing: str,
    segment: str,
    counts: tuple[int, int | None],
    *,
    specs: Sequence[MetricSpec],
    models: Sequence[str],
    picks: Mapping[str, str],
    small: Sequence[str],
    comparison: Any,
    problem: Any,
    score: Callable[[MetricSpec, str], tuple[float, Any]],
    overall: Mapping[str, Mapping[str, float]] | None = None,
) -> tuple[list[dict[str, Any]], list[float]]:
    """The rows of the long table of one segment, one per measure and model, before judging,
    and the p-values of the pairs without the pick (:func:`_unshown_p_values`).

    Every engine builds its records here, so they have the same fields whatever computed the
    values and the replicates.

    Parameters
    ----------
    slicing, segment : str
        The slicing's and the segment's names.
    counts : (int, int or None)
        The segment's rows and events (None when no measure counts events).
    specs : sequence of MetricSpec
        The measures, in order.
    models : sequence of str
        The models, in the order of ``comparison``'s columns.
    picks : mapping of str to str
        Per measure, the model the others are compared with.
    small : sequence of str
        Per measure, why the segment is too small for an interval (``""`` when it is not).
    comparison : ComparisonResult or None
        The segment's paired comparison of the measures it tested (the values, their
        intervals, the paired differences and their p-values, the replicates), None when none
        was made.
    problem : Problem or None
        Why the comparison failed, when it did.
    score : callable
        ``score(spec, model) -> (value, problem or None)``: a measure's value in the segment
        where the comparison has none (the problem's first line is the reason of an undefined
        value).
    overall : mapping, optional
        ``overall[metric][model]``, the values on all the rows: given, each record also holds
        the test of the segment against the model's overall level (``level_*`` fields).

    Returns
    -------
    records : list of dict
        The records, in the order of the measures, then of the models.
    unshown : list of float
        The p-values of the pairs of models without the pick, to judge with the records
        (:func:`judged_evaluation`'s ``unshown``).
    """
    n_rows, n_events = counts
    base: dict[str, Any] = {
        "slicing": slicing,
        "segment": segment,
        "n_rows": n_rows,
        "n_events": n_events,
    }
    tested = [] if comparison is None else list(comparison.metrics)
    out: list[dict[str, Any]] = []
    unshown: list[float] = []
    for k, spec in enumerate(specs):
        kc = tested.index(spec.name) if not small[k] and spec.name in tested else -1
        pick = picks[spec.name]
        if comparison is not None and kc >= 0:
            unshown += _unshown_p_values(comparison, kc, pick)
        for i, model in enumerate(models):
            record: dict[str, Any] = dict(base, metric=spec.name, model=model, pick=pick)
            record.update(_measure_fields(comparison, kc, i, score, spec, model))
            record["status"], record["reason"] = _status(small[k], comparison, problem, record)
            if kc >= 0 and getattr(comparison, "block_length", None) is not None:
                record["block_length"] = float(comparison.block_length)
            if comparison is not None and kc >= 0 and model != pick:
                record.update(_pair_fields(comparison, kc, model, pick))
            if overall is not None and comparison is not None and kc >= 0:
                at = overall[spec.name][model]
                record.update(_level_fields(comparison, kc, i, float(record["value"]), at))
            out.append(record)
    return out, unshown


def _measure_fields(
    comparison: Any,
    kc: int,
    i: int,
    score: Callable[[MetricSpec, str], tuple[float, Any]],
    spec: MetricSpec,
    model: str,
) -> dict[str, Any]:
    """The value of measure ``spec`` for model ``model`` (the comparison's ``i``-th) in a
    segment, with its interval when the segment's comparison made one (its measure ``kc``);
    else ``score(spec, model)``'s value."""
    if comparison is not None and kc >= 0:
        return {
            "value": float(comparison.values[kc, i]),
            "ci_lower": float(comparison.ci_lower[kc, i]),
            "ci_upper": float(comparison.ci_upper[kc, i]),
            "interval_method": comparison.interval_methods[kc],
        }
    value, problem = score(spec, model)
    fields: dict[str, Any] = {
        "value": value,
        "ci_lower": math.nan,
        "ci_upper": math.nan,
        "interval_method": None,
    }
    if problem is not None:
        fields["value_problem"] = problem.first_line
    return fields


def _status(small: str, comparison: Any, problem: Any, record: dict) -> tuple[str, str]:
    """``(status, reason)`` of a value in a segment."""
    undefined = not math.isfinite(record["value"])
    why_undefined = record.get("value_problem") or "the measure is undefined here"
    if small:
        return "too small", f"{small}; {why_undefined}" if undefined else small
    if undefined:
        return "undefined", why_undefined
    if comparison is None:
        reason = "no bootstrap replicates asked (n_bootstrap=0)"
        if problem is not None:
            reason = problem.first_line
        return "not compared", reason
    return "estimated", ""


# ------------------------------------------------------------------------------------------------
# Verdicts


def _judge(
    records: list[dict[str, Any]],
    specs: list[MetricSpec],
    method: str,
    level: float,
    keys: tuple[str, ...],
    unshown: Sequence[float] = (),
) -> int:
    """Adjust every p-value under ``keys`` of every record as one family; write the verdicts.

    ``"p_value"``: a model against the pick; ``"level_p_value"``: a segment against the model's
    overall level. All of them form one family, with ``unshown`` (the pairs without the pick),
    so a scan's findings are judged with every candidate and both questions counted, and the
    family does not depend on which model the data made the pick: with five equally good
    models, testing only the pairs with the overall best called a false "clear" difference in
    9.5 % of data sets, every pair 5 % (``benchmarks/segment_fdr_study.py``). Returns the
    number of tests in the family.
    """
    by_name = {spec.name: spec for spec in specs}
    tested = [
        (record, key)
        for key in keys
        for record in records
        if math.isfinite(record.get(key, math.nan))
    ]
    others = [p for p in unshown if math.isfinite(p)]
    q = fdr_adjust([record[key] for record, key in tested] + others, method)[: len(tested)]
    for (record, key), q_value in zip(tested, q, strict=True):
        prefix = "" if key == "p_value" else "level_"
        record[f"{prefix}q_value"] = float(q_value)
        if key == "p_value":
            other = record["value"] - record["difference"]  # the pick's value
        else:
            other = record["overall_value"]
        good = by_name[record["metric"]].goodness([record["value"], other])
        clear = q_value <= level and np.isfinite(good).all() and good[0] != good[1]
        if not clear:
            record[f"{prefix}verdict"] = "no clear difference"
        else:
            record[f"{prefix}verdict"] = "better" if good[0] > good[1] else "worse"
    for record in records:
        if record["model"] == record["pick"]:
            record["verdict"] = "pick"
        for key in keys:
            prefix = "" if key == "p_value" else "level_"
            record.setdefault(f"{prefix}verdict", "not tested")
    return len(tested) + len(others)


# ------------------------------------------------------------------------------------------------
# Results


#: The columns of a record's values, counts and difference from the pick, in the long tables of
#: the segments and of the windows.
VALUE_COLUMNS = (
    "metric",
    "model",
    "value",
    "ci_lower",
    "ci_upper",
    "interval_method",
    "n_rows",
    "n_events",
    "status",
    "reason",
    "pick",
    "difference",
)
#: The columns of a record's test of its difference from the pick, after :data:`VALUE_COLUMNS`.
TEST_COLUMNS = ("difference_ci_lower", "difference_ci_upper", "p_value", "q_value", "verdict")
_COLUMNS = ("slicing", "segment", *VALUE_COLUMNS, *TEST_COLUMNS)
_LEVEL_COLUMNS = ("overall_value", "level_gap", "level_p_value", "level_q_value", "level_verdict")


@dataclasses.dataclass(frozen=True)
class SegmentEvaluation(Result):
    """Every model on every segment: values, intervals and the comparison with the pick.

    What :func:`by_segment` returns. :meth:`to_frame` is the long table (one row per slicing,
    segment, measure and model); :meth:`clearly_better` the segments where another model beats
    the pick with evidence; :meth:`summary` one sentence.

    Attributes
    ----------
    models, metrics : tuple of str
        The models (in the order given) and the measures (registry names).
    picks : dict
        ``picks[metric]``: the model each segment compares the others with (the ``pick``
        given, else the model best overall on that measure).
    overall : dict
        ``overall[metric][model]``: the value on all the rows.
    slicings : tuple of str
        The columns the rows were cut by (a crossed slicing is named ``"a x b"``).
    segments : dict
        ``segments[slicing]``: its segments' names, in order.
    records : tuple of dict
        The long table's rows (see :meth:`to_frame` for the fields).
    fdr_method : str
        ``"benjamini-hochberg"`` or ``"benjamini-yekutieli"``: how the verdicts were adjusted.
    fdr_level : float
        The false discovery rate the verdicts control.
    n_tests : int
        The comparisons in the family: every pair of models (those with the pick are shown,
        the others tested with them so that the family does not depend on which model the
        data made the pick), for every measure and segment with an interval.
    confidence_level : float
        Of the intervals of the values and differences (unadjusted).
    n_bootstrap : int
        Bootstrap replicates per segment.
    min_rows, min_events : int
        The smallest segment that gets an interval, in rows and (for measures of events) in
        events and in non-events.
    events : str or None
        The event definition every segment applies, fixed on all the rows (e.g. ``">=42.0"``
        for the true top 10 %), None when no measure counts events or the target is 0/1.
    notes : tuple of str
        What the reader should know (missing labels, quantile bins).
    scheme : str
        How each segment's bootstrap resampled its rows (``scheme`` of
        :func:`ranklens.compare_models`): ``"multinomial"`` by default, ``"stationary"`` or
        ``"circular"`` for blocks of consecutive rows of the segment.
    block_length : float or str
        The block length asked for a block scheme (``"auto"``: each segment's own automatic
        length, in the records' ``block_length``); ``"auto"`` for the other schemes, which draw
        no blocks.
    """

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    picks: dict[str, str]
    overall: dict[str, dict[str, float]]
    slicings: tuple[str, ...]
    segments: dict[str, tuple[str, ...]]
    records: tuple[dict[str, Any], ...]
    fdr_method: str
    fdr_level: float
    n_tests: int
    confidence_level: float
    n_bootstrap: int
    min_rows: int
    min_events: int
    events: Any = None
    notes: tuple[str, ...] = ()
    scheme: str = "multinomial"
    block_length: float | str = "auto"

    def to_frame(self) -> pd.DataFrame:
        """The long table: one row per slicing, segment, measure and model.

        Returns
        -------
        pandas.DataFrame
            Columns ``slicing, segment, metric, model, value, ci_lower, ci_upper,
            interval_method, n_rows, n_events, status, reason, pick, difference,
            difference_ci_lower, difference_ci_upper, p_value, q_value, verdict`` (and, after a
            scan, ``overall_value, level_gap, level_p_value, level_q_value, level_verdict``).
            ``difference`` is ``value(model) - value(pick)`` in the measure's units; ``verdict``
            is ``"better"`` or ``"worse"`` (than the pick, with the false discovery rate
            controlled), ``"no clear difference"``, ``"pick"`` or ``"not tested"``; ``status``
            is ``"estimated"``, ``"too small"``, ``"not compared"`` or ``"undefined"``, with
            ``reason``. With a block scheme (the Dask engine's fixed ``"blocks"`` too), a last
            column ``block_length``: the block length each segment's bootstrap drew (None where
            the segment was not compared).
        """
        import pandas as pd

        scanned = any("level_verdict" in r for r in self.records)
        columns = list(_COLUMNS) + (list(_LEVEL_COLUMNS) if scanned else [])
        if self.scheme in BLOCK_SCHEMES or self.scheme == "blocks":  # "blocks": the Dask engine's
            columns.append("block_length")
        frame = pd.DataFrame(
            [{c: r.get(c) for c in columns} for r in self.records], columns=columns
        )
        for column in ("value", "ci_lower", "ci_upper", "difference", "p_value", "q_value"):
            frame[column] = pd.to_numeric(frame[column], errors="coerce").astype("float64")
        frame.attrs.update(fdr_method=self.fdr_method, fdr_level=self.fdr_level)
        return frame

    def clearly_better(self) -> list[dict[str, Any]]:
        """The records where a model is clearly better than the pick, largest segment first.

        Returns
        -------
        list of dict
            Rows of the long table (:meth:`to_frame`) with ``verdict == "better"``.
        """
        better = [r for r in self.records if r.get("verdict") == "better"]
        return sorted(better, key=lambda r: (-r["n_rows"], r["q_value"]))

    def summary(self) -> str:
        """One sentence: where another model is clearly better than the pick, or that nowhere.

        Returns
        -------
        str
            For the report's Summary and the terminal.
        """
        method = self.fdr_method.replace("-", " and ").title().replace(" And ", " & ")
        family = (
            f"{self.n_tests} comparison{'s' if self.n_tests != 1 else ''}, false discovery "
            f"rate {100 * self.fdr_level:g}% ({method})"
        )
        better = self.clearly_better()
        if not better:
            return f"No segment where another model is clearly better than the pick ({family})."
        parts = [
            f"{r['model']} beats {r['pick']} on {r['metric']} where {r['slicing']} = "
            f"{r['segment']} ({r['n_rows']:,} rows; difference {r['difference']:.4g}, "
            f"q = {r['q_value']:.2g})"
            for r in better[:3]
        ]
        more = f", and in {len(better) - 3} more" if len(better) > 3 else ""
        return (
            f"Another model is clearly better than the pick: {'; '.join(parts)}{more} ({family})."
        )


@dataclasses.dataclass(frozen=True)
class SegmentScan(Result):
    """The weak segments found by :func:`scan_segments`, with their evidence.

    Attributes
    ----------
    findings : tuple of dict
        One per weak segment, largest first (then by the size of the gap): ``kind`` (``"pick
        beaten"``: another model is clearly better than the pick; ``"all models worse"``: every
        model is clearly worse than its own overall level), ``slicing``, ``segment``,
        ``metric``, ``n_rows``, ``n_events``, ``models`` (the models concerned), ``gap`` (the
        largest difference in the measure's units: against the pick, or against the overall
        level), ``q_value`` (the largest among the models concerned).
    n_candidates : int
        The segments tried (over every column scanned).
    n_tests : int
        The tests in the one family whose false discovery rate is controlled: both kinds of
        finding, over every candidate tried.
    evaluation : SegmentEvaluation
        Everything measured, with the level tests (``level_*`` columns of its table).
    """

    findings: tuple[dict[str, Any], ...]
    n_candidates: int
    n_tests: int
    evaluation: SegmentEvaluation

    def to_frame(self) -> pd.DataFrame:
        """The findings, one row each.

        Returns
        -------
        pandas.DataFrame
            Columns ``kind, slicing, segment, metric, n_rows, n_events, models, gap,
            q_value``.
        """
        import pandas as pd

        columns = [
            "kind",
            "slicing",
            "segment",
            "metric",
            "n_rows",
            "n_events",
            "models",
            "gap",
            "q_value",
        ]
        return pd.DataFrame(
            [{c: f.get(c) for c in columns} for f in self.findings], columns=columns
        )

    def summary(self) -> str:
        """One sentence on what the search found, with the search counted.

        Returns
        -------
        str
            For the report and the terminal.
        """
        head = (
            f"{self.n_candidates} segments searched, {self.n_tests} tests, false discovery rate "
            f"{100 * self.evaluation.fdr_level:g}%"
        )
        if not self.findings:
            return f"No weak segment found ({head})."
        words = {
            "pick beaten": "another model beats the pick",
            "all models worse": "every model is worse than overall",
        }
        parts = [
            f"{f['slicing']} = {f['segment']} ({f['n_rows']:,} rows, {f['metric']}): "
            f"{words[f['kind']]}"
            for f in self.findings[:3]
        ]
        more = f"; and {len(self.findings) - 3} more" if len(self.findings) > 3 else ""
        return f"Weak segments: {'; '.join(parts)}{more} ({head})."


# ------------------------------------------------------------------------------------------------
# Public functions


def prediction_columns(predictions: Any, n: int) -> dict[str, np.ndarray]:
    """Each model's predictions as a float64 array of ``n`` rows.

    Parameters
    ----------
    predictions : mapping of str to array-like, or DataFrame
        At least two models.
    n : int
        The rows of ``y_true``.

    Returns
    -------
    dict of str to ndarray
        The models in the order given.

    Raises
    ------
    ValueError
        If fewer than two models are given or one has another length (the message names it).
    """
    if hasattr(predictions, "columns") and not isinstance(predictions, Mapping):
        predictions = {str(c): predictions[c] for c in predictions.columns}
    if not isinstance(predictions, Mapping) or len(predictions) < 2:
        raise ValueError("predictions must map at least two model names to their predictions")
    out = {}
    for model, pred in predictions.items():
        values = as_1d_float(pred, f"predictions[{model!r}]")
        if values.shape[0] != n:
            raise ValueError(f"predictions[{model!r}] has length {values.shape[0]}; y_true has {n}")
        out[str(model)] = values
    return out


def _seed(random_state: Any) -> np.random.SeedSequence:
    seed = check_random_state(random_state)
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    if isinstance(seed, np.random.BitGenerator):
        return np.random.SeedSequence(int(np.random.Generator(seed).integers(2**63)))
    return np.random.SeedSequence(seed)


def group_labels(groups: Any, n: int) -> np.ndarray | None:
    """The unit id of each row (any container of labels) as an array, None for none.

    Parameters
    ----------
    groups : array-like of shape (n,) or None
        The unit ids.
    n : int
        The rows of the data.

    Returns
    -------
    ndarray or None
        The labels.

    Raises
    ------
    ValueError
        Naming ``groups``, if it has another length than the data.
    """
    if groups is None:
        return None
    labels = _as_series(groups, "groups").to_numpy()
    if labels.shape[0] != n:
        raise ValueError(f"groups has length {labels.shape[0]}; the data have {n}")
    return labels


def _check_counts(min_rows: Any, min_events: Any) -> None:
    for name, value in (("min_rows", min_rows), ("min_events", min_events)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1; got {value!r}")


def segment_evaluation(
    y_true: Any,
    predictions: Any,
    segments: Any,
    settings: SegmentSettings,
    *,
    level_tests: bool = False,
) -> SegmentEvaluation:
    """Evaluate, compare and judge every segment in memory: the work of :func:`by_segment`,
    :func:`scan_segments` (with ``level_tests``) and :func:`ranklens.timeseries.by_window`.

    Parameters
    ----------
    y_true, predictions, segments
        As :func:`by_segment`.
    settings : SegmentSettings
        Every other argument of :func:`by_segment`.
    level_tests : bool, default False
        Whether each segment is also tested against the model's value on all the rows (a scan).

    Returns
    -------
    SegmentEvaluation

    Raises
    ------
    ValueError
        As :func:`by_segment`.
    """
    y = as_1d_float(y_true, "y_true")
    n = y.shape[0]
    preds = prediction_columns(predictions, n)
    weight = check_sample_weight(settings.sample_weight, n, normalize=False)
    settings = dataclasses.replace(
        settings, fdr_level=check_segment_settings(settings, list(preds))
    )
    check_block_settings(settings.scheme, settings.block_length, settings.groups)
    slicings = _slicings(segments, n=n, bins=settings.bins, cross=settings.cross)
    context = settings.task()
    specs, counts = _bound_specs(settings.metrics, context)
    events = None
    if any(counts):
        context["events"] = fixed_events(y, context["events"], sample_weight=weight)
        specs, counts = _bound_specs(settings.metrics, context)
        events = event_flags(y, context["events"])
    overall = _overall(specs, y, preds, weight)
    task = _Task(
        y=y,
        predictions=preds,
        weight=weight,
        groups=group_labels(settings.groups, n),
        settings=dataclasses.replace(
            settings,
            n_bootstrap=int(settings.n_bootstrap),
            min_rows=int(settings.min_rows),
            min_events=int(settings.min_events),
        ),
        specs=specs,
        counts_events=counts,
        events=events,
        picks=choose_picks(specs, overall, settings.pick),
        overall=overall,
        seed=_seed(settings.random_state),
        level_tests=level_tests,
    )
    # every segment's bootstrap is part of one job of all the rows: route it as such
    records: list[dict[str, Any]] = []
    unshown: list[float] = []
    with draws_as(n * len(slicings), task.settings.n_bootstrap):
        for s, slicing in enumerate(slicings):
            for j in range(len(slicing.segments)):
                shown, others = _segment_records(task, slicing, s, j)
                records += shown
                unshown += others
    return judged_evaluation(
        records,
        specs=specs,
        models=list(preds),
        picks=task.picks,
        overall=overall,
        slicings=slicings,
        settings=settings,
        level_tests=level_tests,
        events=context["events"] if any(counts) else None,
        unshown=unshown,
    )


def judged_evaluation(
    records: list[dict[str, Any]],
    *,
    specs: Sequence[MetricSpec],
    models: Sequence[str],
    picks: dict[str, str],
    overall: dict[str, dict[str, float]],
    slicings: Sequence[Slicing],
    settings: SegmentSettings,
    level_tests: bool = False,
    events: Any = None,
    notes: Sequence[str] = (),
    unshown: Sequence[float] = (),
) -> SegmentEvaluation:
    """Every segment's records judged as one family, in the result every engine returns.

    The p-values of every record (and, with ``level_tests``, of the tests against the overall
    level) are adjusted together to control the false discovery rate, and each record gets its
    ``q_value`` and ``verdict`` (in place).

    Parameters
    ----------
    records : list of dict
        The records of every segment (:func:`segment_records`).
    specs : sequence of MetricSpec
        The measures.
    models : sequence of str
        The models, in order.
    picks : dict
        Per measure, the model the others were compared with.
    overall : dict
        ``overall[metric][model]``: the values on all the rows.
    slicings : sequence of Slicing
        The slicings (their names, segments, kinds and missing labels; the codes are not read).
    settings : SegmentSettings
        Its ``fdr``, ``fdr_level``, ``confidence_level``, ``n_bootstrap``, ``min_rows``,
        ``min_events``, ``scheme`` and ``block_length`` are read (checked by
        :func:`check_segment_settings`).
    level_tests : bool, default False
        Whether the records hold the tests against the overall level (a scan).
    events : optional
        The event definition every segment applied, fixed on all the rows.
    notes : sequence of str, optional
        Notes of the engine, after those on the slicings.
    unshown : sequence of float, optional
        The p-values of the pairs of models without the pick (the second value of
        :func:`segment_records`), judged in the same family.

    Returns
    -------
    SegmentEvaluation
        The judged evaluation.
    """
    level = float(settings.fdr_level)
    keys = ("p_value", "level_p_value") if level_tests else ("p_value",)
    n_tests = _judge(records, list(specs), settings.fdr, level, keys, unshown)
    return SegmentEvaluation(
        models=tuple(models),
        metrics=tuple(spec.name for spec in specs),
        picks=picks,
        overall=overall,
        slicings=tuple(s.name for s in slicings),
        segments={s.name: s.segments for s in slicings},
        records=tuple(records),
        fdr_method=FDR_METHOD_NAMES[settings.fdr],
        fdr_level=level,
        n_tests=n_tests,
        confidence_level=settings.confidence_level,
        n_bootstrap=int(settings.n_bootstrap),
        min_rows=int(settings.min_rows),
        min_events=int(settings.min_events),
        events=events,
        notes=(*_notes(list(slicings)), *notes),
        scheme=settings.scheme or "multinomial",
        block_length=settings.block_length,
    )


def check_segment_settings(settings: SegmentSettings, models: Sequence[str]) -> float:
    """Check the settings every engine of :func:`by_segment` shares.

    Parameters
    ----------
    settings : SegmentSettings
        Its ``min_rows``, ``min_events``, ``fdr``, ``fdr_level`` and ``pick`` are checked.
    models : sequence of str
        The models' names.

    Returns
    -------
    float
        The false discovery rate asked (``fdr_level``).

    Raises
    ------
    ValueError
        If ``min_rows`` or ``min_events`` is not an integer >= 1, ``fdr`` unknown,
        ``fdr_level`` not in (0, 1) or ``pick`` not one of the models (the message names it).
    """
    _check_counts(settings.min_rows, settings.min_events)
    if settings.fdr not in FDR_METHODS:
        raise ValueError(f"fdr must be one of {FDR_METHODS}; got {settings.fdr!r}")
    level = check_probability(settings.fdr_level, "fdr_level")
    pick = settings.pick
    if pick is not None and pick not in models:
        raise ValueError(f"pick {pick!r} is not one of the models {list(models)}")
    return level


def check_block_settings(scheme: Any, block_length: Any, groups: Any) -> None:
    """Check how each segment's bootstrap resamples its rows, before any segment is run.

    Parameters
    ----------
    scheme : str
        One of :func:`ranklens.compare_models`' schemes.
    block_length : float or "auto"
        The block length of a block scheme; ``"auto"`` for the others.
    groups : array-like or None
        The unit ids, if any.

    Raises
    ------
    ValueError
        Naming the argument: an unknown ``scheme``; a block scheme with ``groups`` (blocks of
        consecutive rows and whole units are two designs); a ``block_length`` that is neither
        ``"auto"`` nor a number >= 1, or a number with a scheme that draws no blocks. A number
        larger than a segment's rows is that segment's own problem: it is not compared, and its
        ``reason`` says why.
    """
    if not isinstance(scheme, str) or scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; got {scheme!r}")
    auto = isinstance(block_length, str) and block_length == "auto"
    if scheme not in BLOCK_SCHEMES:
        if not auto:
            raise ValueError(
                f"block_length is the block schemes' ({BLOCK_SCHEMES}); scheme={scheme!r} "
                f"draws no blocks, got block_length={block_length!r}"
            )
        return
    if groups is not None:
        raise ValueError(
            f"scheme={scheme!r} resamples blocks of consecutive rows of each segment; it cannot "
            "be combined with groups (which resamples whole units)"
        )
    number = isinstance(block_length, numbers.Real) and not isinstance(block_length, bool)
    if not auto and not (number and float(block_length) >= 1.0):
        raise ValueError(f"block_length must be 'auto' or a number >= 1; got {block_length!r}")


def choose_picks(
    specs: Sequence[MetricSpec], overall: dict[str, dict[str, float]], pick: str | None
) -> dict[str, str]:
    """Per measure, the model every other is compared with: ``pick``, else the model best on
    all the rows (the first model when none is defined).

    Parameters
    ----------
    specs : sequence of MetricSpec
        The measures.
    overall : dict
        ``overall[metric][model]``: the values on all the rows.
    pick : str or None
        The model asked for, if any.

    Returns
    -------
    dict
        ``picks[metric]``.
    """
    out = {}
    for spec in specs:
        models = list(overall[spec.name])
        if pick is not None:
            out[spec.name] = pick
            continue
        good = spec.goodness([overall[spec.name][m] for m in models])
        finite = np.isfinite(good)
        out[spec.name] = (
            models[int(np.argmax(np.where(finite, good, -np.inf)))] if finite.any() else models[0]
        )
    return out


def _notes(slicings: list[Slicing]) -> list[str]:
    notes = []
    for s in slicings:
        if s.kind == "quantile bins":
            notes.append(f"{s.name}: cut into {len(s.segments) - bool(s.n_missing)} quantile bins")
        if s.n_missing:
            notes.append(
                f"{s.name}: {s.n_missing:,} rows with a missing label form the segment "
                f"{MISSING_SEGMENT!r}"
            )
    return notes


def by_segment(
    y_true: Any,
    predictions: Any,
    segments: Any,
    *,
    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS,
    sample_weight: Any = None,
    groups: Any = None,
    scheme: str = "multinomial",
    block_length: float | str = "auto",
    bins: int = 5,
    cross: bool = False,
    min_rows: int = 30,
    min_events: int = 10,
    pick: str | None = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    interval: str = "auto",
    fdr: str = "bh",
    fdr_level: float = 0.05,
    random_state: Any = 0,
    events: Any = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    k: int | None = None,
    gains: str | None = None,
) -> SegmentEvaluation:
    """Evaluate and compare the models on every segment of the rows, with evidence.

    For each slicing (a column of labels) and each of its segments: every measure for every
    model on the segment's rows, its bootstrap interval from resampling within the segment
    (:func:`ranklens.compare_models` on those rows only: paired across models, ``groups``
    resampled as whole units), and each model's paired difference from the pick. The verdicts
    of every segment, measure and model are then adjusted together to control the false
    discovery rate (Benjamini & Hochberg 1995 by default).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The truth.
    predictions : mapping of str to array-like of shape (n,), or DataFrame
        One prediction (or score) per model, at least two models.
    segments : array-like of shape (n,), mapping of str to array-like, or DataFrame
        The labels: one column (a Series is named by its name, else ``"segment"``), or several
        (a mapping or a DataFrame), each its own slicing (not their cross product unless
        ``cross``). Numeric columns with more than ``bins`` distinct values are cut into
        ``bins`` quantile bins; anything else (strings, categories, booleans, few numbers) is
        used as its labels, a pandas categorical in its categories' order. Missing labels
        (None, NaN, NaT, pandas' NA) form their own segment, :data:`MISSING_SEGMENT`, and the
        result's ``notes`` say so.
    metrics : sequence of str, default :data:`DEFAULT_SEGMENT_METRICS`
        Registry names of measures of point predictions (interval measures and measures of
        the row order are refused with a ``ValueError``).
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights, given to every measure and the bootstrap.
    groups : array-like of shape (n,), optional
        A unit id per row: each segment's bootstrap resamples whole units (a segment with
        fewer units than the clustered bootstrap needs is not compared, and says why).
    scheme : str, default "multinomial"
        How each segment's bootstrap resamples its rows, as :func:`ranklens.compare_models`.
        ``"stationary"`` (Politis & Romano 1994) and ``"circular"`` resample blocks of
        consecutive rows of the segment, its rows kept in the order given: with the rows in time
        order, every block is a run of consecutive rows of that segment, so the serial
        dependence within a segment is kept. Not with ``groups``.
    block_length : float or "auto", default "auto"
        The mean (``"stationary"``) or fixed (``"circular"``) block length of a block scheme:
        ``"auto"`` chooses each segment's own (Politis & White 2004, corrected by Patton,
        Politis & White 2009), a number is used in every segment. A segment with fewer rows than
        the number, or fewer than 9 rows with ``"auto"``, is not compared and says why. The
        other schemes take none.
    bins : int, default 5
        Quantile bins of a numeric column.
    cross : bool, default False
        With several columns, also their cross product (a segment per combination present).
    min_rows : int, default 30
        A segment with fewer rows gets its values and counts but no interval and no verdict.
    min_events : int, default 10
        For a measure of events (one that takes ``events``: the AUC, lift, ...), the fewest
        events and the fewest non-events a segment needs for an interval and a verdict.
    pick : str, optional
        The model every other is compared with; default, per measure, the model best on all the
        rows.
    n_bootstrap : int, default 1000
        Paired bootstrap replicates per segment (0: values only, no interval, no verdict).
    confidence_level : float, default 0.95
        Of the intervals of the values and of the differences (each unadjusted).
    interval : {"auto", "bca", "percentile", "studentized"}, default "auto"
        The bootstrap interval, as :func:`ranklens.compare_models`.
    fdr : {"bh", "by"}, default "bh"
        ``"bh"``: Benjamini & Hochberg (1995), valid for independent tests (disjoint segments)
        and positively dependent ones (several measures on the same rows). ``"by"``: Benjamini
        & Yekutieli (2001), valid under any dependence (wider).
    fdr_level : float, default 0.05
        The false discovery rate of the verdicts: a difference is "clear" when its adjusted
        p-value (``q_value``) is at most this.
    random_state : int, SeedSequence, Generator or None, default 0
        The seed. Segment ``j`` of slicing ``s`` draws its replicates from
        ``numpy.random.SeedSequence(entropy, spawn_key=(s, j))`` of it, the same whatever the
        other segments.
    events, relevance, event_threshold, k, gains : optional
        Task parameters, passed by name to the measures that take them (as
        :func:`ranklens.evaluate_models` does). The event definition is fixed on all the rows
        first (:func:`ranklens.targeting.fixed_events`): with the default true top 10 %, every
        segment counts the same events, those at or above the overall threshold.

    Returns
    -------
    SegmentEvaluation
        The long table (:meth:`SegmentEvaluation.to_frame`), the segments where another model
        is clearly better than the pick, and one sentence (:meth:`SegmentEvaluation.summary`).

    Raises
    ------
    ValueError
        If an argument is invalid (the message names it): fewer than two models, lengths that
        differ, an unknown measure or one that cannot be evaluated by segment, labels all
        missing, ``bins`` below 2, ``min_rows``/``min_events`` below 1, an unknown ``pick`` or
        ``fdr``, an unknown ``scheme``, a block scheme with ``groups``, a ``block_length`` that
        is not ``"auto"`` or a number >= 1 or that is given to a scheme without blocks.

    See Also
    --------
    scan_segments : search many columns for the weak segments.
    ranklens.compare_models : the paired bootstrap each segment runs.

    Notes
    -----
    Each segment's value is the measure called on that segment's rows; its interval comes from
    resampling those rows only, so a small segment has the wide interval it should. Each
    model's difference from the pick is tested by the Wald statistic ``d / sd*``, ``sd*`` the
    bootstrap standard deviation of the paired difference (Rosset, Perlich & Zadrozny 2005,
    Sect. 5.3): p-values from counting replicates cannot go below ``1 / (R + 1)``, too coarse
    for a false discovery rate over hundreds of tests (:func:`wald_p_value`). The p-values of
    every pair of models, in every segment with an interval and every measure, form one family
    (the pairs without the pick are tested too, so that the family does not depend on which
    model the data made the pick), adjusted by ``q_(i) = min_{j >= i} min(1, m p_(j) / j)`` (times
    ``sum_{k<=m} 1/k`` for ``"by"``).

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate: a practical
    and powerful approach to multiple testing. *Journal of the Royal Statistical Society B*
    57(1), 289-300.

    Benjamini, Y. and Yekutieli, D. (2001). The control of the false discovery rate in
    multiple testing under dependency. *Annals of Statistics* 29(4), 1165-1188.

    Patton, A., Politis, D. N. and White, H. (2009). Correction to "Automatic block-length
    selection for the dependent bootstrap" by D. Politis and H. White. *Econometric Reviews*
    28(4), 372-375.

    Politis, D. N. and Romano, J. P. (1994). The stationary bootstrap. *Journal of the American
    Statistical Association* 89(428), 1303-1313.

    Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
    bootstrap. *Econometric Reviews* 23(1), 53-70.

    Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
    models. *Proceedings of the Fifth IEEE International Conference on Data Mining*, 370-377.

    Examples
    --------
    >>> import numpy as np
    >>> import ranklens as rl
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=400)
    >>> region = np.where(np.arange(400) < 200, "north", "south")
    >>> preds = {"a": y + rng.normal(size=400), "b": y + rng.normal(size=400)}
    >>> result = rl.by_segment(y, preds, region, metrics=["mean_absolute_error"], n_bootstrap=200)
    >>> result.to_frame()[["segment", "model", "n_rows", "verdict"]].shape
    (4, 4)
    """
    return segment_evaluation(y_true, predictions, segments, SegmentSettings.of(locals()))


def scan_segments(
    y_true: Any,
    predictions: Any,
    columns: Any,
    *,
    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS,
    sample_weight: Any = None,
    groups: Any = None,
    scheme: str = "multinomial",
    block_length: float | str = "auto",
    bins: int = 5,
    min_rows: int = 30,
    min_events: int = 10,
    pick: str | None = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    interval: str = "auto",
    fdr: str = "bh",
    fdr_level: float = 0.05,
    random_state: Any = 0,
    events: Any = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    k: int | None = None,
    gains: str | None = None,
) -> SegmentScan:
    """Search the segments of several columns for where the models are weak, with evidence.

    Every segment of every column (numeric ones cut into ``bins`` quantile bins) is a
    candidate. Two kinds of weak segment are looked for: where the pick is clearly worse than
    another model (the paired comparison of :func:`by_segment`), and where every model is
    clearly worse than its own overall level. Both questions, over every candidate tried, form
    one family whose false discovery rate is controlled, so a segment found by searching is
    judged with the search counted.

    Parameters
    ----------
    y_true, predictions
        As :func:`by_segment`.
    columns : mapping of str to array-like, or DataFrame
        The columns to search (a single array-like is one column).
    metrics, sample_weight, groups, scheme, block_length, bins, min_rows, min_events, pick
        As :func:`by_segment` (``scheme="stationary"`` or ``"circular"``: blocks of
        consecutive rows of each candidate segment, for rows in time order).
    n_bootstrap
        As :func:`by_segment`.
    confidence_level, interval, fdr, fdr_level, random_state
        As :func:`by_segment`.
    events, relevance, event_threshold, k, gains : optional
        As :func:`by_segment`.

    Returns
    -------
    SegmentScan
        The findings, largest segment first, then by the size of the gap, and everything
        measured (``evaluation``).

    Raises
    ------
    ValueError
        As :func:`by_segment`.

    See Also
    --------
    by_segment : the evaluation of chosen slicings.

    Notes
    -----
    A segment's level test compares its value with the model's value on all the rows, held
    fixed, by the Wald statistic ``(v - v_all) / sd*`` with the segment's bootstrap standard
    error ``sd*``. The overall value contains the segment, which pulls it towards the segment's,
    so the test is conservative (for a mean loss its variance is overstated by the factor
    ``1 / (1 - f)``, ``f`` the segment's share of the rows).

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate: a practical
    and powerful approach to multiple testing. *Journal of the Royal Statistical Society B*
    57(1), 289-300.

    Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
    models. *Proceedings of the Fifth IEEE International Conference on Data Mining*, 370-377.
    """
    settings = SegmentSettings.of(locals())
    return scan_result(segment_evaluation(y_true, predictions, columns, settings, level_tests=True))


def scan_result(evaluation: SegmentEvaluation) -> SegmentScan:
    """The search's result from its judged evaluation, whatever engine computed it.

    Parameters
    ----------
    evaluation : SegmentEvaluation
        Every candidate segment judged as one family with the tests against the overall level
        (:func:`judged_evaluation` with ``level_tests=True``).

    Returns
    -------
    SegmentScan
        The findings (:func:`weak_segments`), the candidates tried (every segment of every
        column) and the tests in the family.
    """
    return SegmentScan(
        findings=tuple(weak_segments(evaluation)),
        n_candidates=sum(len(v) for v in evaluation.segments.values()),
        n_tests=evaluation.n_tests,
        evaluation=evaluation,
    )


def weak_segments(evaluation: SegmentEvaluation) -> list[dict[str, Any]]:
    """The weak segments of a scanned evaluation, largest first, then by the size of the gap.

    Parameters
    ----------
    evaluation : SegmentEvaluation
        From :func:`scan_segments` (its records carry the level tests).

    Returns
    -------
    list of dict
        The findings (see :class:`SegmentScan`).
    """
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for record in evaluation.records:
        cells.setdefault((record["slicing"], record["segment"], record["metric"]), []).append(
            record
        )
    findings = []
    for (slicing, segment, metric), records in cells.items():
        base = {
            "slicing": slicing,
            "segment": segment,
            "metric": metric,
            "n_rows": records[0]["n_rows"],
            "n_events": records[0]["n_events"],
        }
        better = [r for r in records if r.get("verdict") == "better"]
        if better:
            best = max(better, key=lambda r: abs(r["difference"]))
            findings.append(
                dict(
                    base,
                    kind="pick beaten",
                    models=tuple(r["model"] for r in better),
                    gap=best["difference"],
                    q_value=max(r["q_value"] for r in better),
                )
            )
        if all(r.get("level_verdict") == "worse" for r in records):
            gaps = [r["level_gap"] for r in records]
            findings.append(
                dict(
                    base,
                    kind="all models worse",
                    models=tuple(r["model"] for r in records),
                    gap=min(gaps, key=abs),
                    q_value=max(r["level_q_value"] for r in records),
                )
            )
    return sorted(findings, key=lambda f: (-f["n_rows"], -abs(f["gap"])))
