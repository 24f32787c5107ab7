"""The evaluation pipeline: everything a report shows for one task, computed once.

This layer sits between the inference engines and the presentation: :mod:`ranklens.report`
renders a :class:`ModelEvaluation`, it never computes one.

:func:`evaluate_arrays` is the in-memory engine of :func:`ranklens.evaluate_models` (what
``ranklens evaluate`` and ``ranklens demo`` call): every registered measure for every model
(the registry is iterated, no list of names is kept here), the bootstrap comparison, the
robustness tables and the curves. The HTML renderer and ``results.json`` only read
the :class:`ModelEvaluation` it returns; nothing is recomputed while rendering.

Every measure and curve ends in one of three states: a **value**; **undefined** for this data
(NaN with the reason from an :class:`~ranklens.exceptions.UndefinedMetricWarning` or another
ranklens warning, or a :class:`~ranklens.exceptions.DomainError`: the data lie outside the
measure's domain, e.g. Log-RMSE of a target with zeros); or **failed** (any other exception: a
bug or an environment problem, never mistaken for a property of the data). A measure that needs
a parameter nobody gave is **skipped**. Each missing or qualified value is recorded in
``problems`` as a :class:`Problem` with its kind and message; nothing stops the rest of the
evaluation, and the caller decides what a failure means (``ranklens evaluate`` exits with
status 1).
"""

from __future__ import annotations

import dataclasses
import inspect
import itertools
import math
import time
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from ranklens._engines.budget import BootstrapPlan, plan_bootstrap
from ranklens._engines.time_order import (
    TimeOrder,
    block_length_for,
    block_settings,
    check_resampling,
    read_times,
    take_rows,
)
from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.format import finite_or_none, format_number, table_html
from ranklens._foundation.forms import CONFUSION_FIELDS
from ranklens._foundation.multiplicity import FDR_METHODS
from ranklens._foundation.names import did_you_mean
from ranklens._foundation.problems import (
    Problem,
    as_float,
    call_quietly,
    fit_kwargs,
    metric_info,
    score_quietly,
)
from ranklens._foundation.registry import (
    BINARY_TARGET_NOTE,
    NOT_PROBABILITIES,
    AnalyticVariance,
    applies_to_target,
    is_binary_target,
    needs_probabilities,
)
from ranklens._foundation.results import Result, to_builtin
from ranklens._foundation.shared import shared_results
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    check_pair,
    check_positive_int,
    check_probability,
    check_random_state,
    check_sample_weight,
)
from ranklens._inference.method_names import interval_methods, methods_settings, paired_test_methods
from ranklens._inference.resampling import BLOCK_SCHEMES
from ranklens._inference.serial_check import (
    CHANCE_Z,
    NARROWER,
    SerialDependence,
    check_serial_dependence,
)
from ranklens._version import __version__
from ranklens.agreement import compare_metric_rankings
from ranklens.bands import curve_bands
from ranklens.calibration import reliability_diagram, score_decompositions
from ranklens.classification import confusion_at_depth, probability_scores
from ranklens.compare import (
    DEFAULT_COMPARISON_METRICS,
    ComparisonResult,
    compare_models,
)
from ranklens.exceptions import RanklensWarning
from ranklens.metrics import CurveSpec, available_curves, available_metrics, get_curve, get_metric
from ranklens.relevance import relevance_from_boxplot
from ranklens.robustness import robustness_table
from ranklens.segments import (
    DEFAULT_SEGMENT_METRICS,
    TASK_PARAMETERS,
    SegmentSettings,
    scan_result,
    segment_evaluation,
    slice_rows,
)
from ranklens.targeting import best_model_by_depth, check_events
from ranklens.timeseries import time_windows, window_evaluation

__all__ = [
    "EvaluationComparison",
    "ModelEvaluation",
    "Problem",
    "evaluation_to_json",
]

ProgressCallback = Callable[[str], None]


#: Key of ``problems`` for task-level results (the bootstrap comparison, bands, agreement).
ALL_MODELS = "(all models)"

#: The choices of ``evaluate_models(inference=...)`` (``ranklens evaluate --inference``):
#: ``"auto"``, the analytic interval and paired test of each measure whose registry entry declares
#: them and the paired bootstrap for the rest; ``"bootstrap"``, the paired bootstrap throughout.
INFERENCE: tuple[str, ...] = ("auto", "bootstrap")


@dataclasses.dataclass(frozen=True)
class ModelEvaluation(Result):
    """Everything computed for one task: the measures, the comparison, robustness and curves.

    Attributes
    ----------
    title, description : str
        What the task is (shown as a report section heading).
    target : str
        Name of the truth column.
    n : int
        Observations evaluated (after dropping rows, see ``n_dropped``).
    model_names : tuple of str
        The models, in the order given.
    values : dict
        ``values[model][metric]`` for every registered measure that applies; NaN where a measure
        was undefined, skipped or failed (see ``problems``).
    metrics : dict
        ``metrics[name]`` = ``{"family", "direction", "target", "higher_is_better", "inputs",
        "order_dependent", "description"}`` from the registry, for the measures in ``values``
        (``target`` is the value a ``"target"`` measure is best at, e.g. ``1 - alpha`` for
        coverage; ``higher_is_better`` is None for target and neutral measures).
    problems : dict
        ``problems[model][what]``: a :class:`Problem` saying why a value (a measure, a curve, the
        comparison) is missing or qualified; task-level entries are under :data:`ALL_MODELS`.
    settings : dict
        The options the evaluation ran with (alpha, events, budget, bootstrap replicates, ...).
    n_dropped : int
        Rows dropped because of missing values (``--drop-na``).
    comparison : Result or None
        :func:`ranklens.compare_models` result when the bootstrap ran.
    robustness : dict
        ``robustness[model]``: :func:`ranklens.robustness_table` result.
    curves : dict
        ``curves[kind][model]``: the curve result objects (``"cutoff_auc"``, ``"gain"``, ...).
    extras : dict
        Task-level results that are not per model: ``relevance`` (the relevance function),
        ``metric_agreement``, ``best_model_by_depth``, ``bands`` (curve name ->
        :func:`ranklens.bands.curve_bands` result), ``calibration`` (the decomposition of each
        model's mean squared error, :func:`ranklens.calibration.score_decompositions`, its
        reliability diagrams and the model whose diagram has the consistency band, None in a
        run without resampling),
        ``at_depth`` (for a 0/1 target, each model's precision, recall and 2x2 counts at the
        budget's depth: :func:`counts_at_depth`), ``y_true``
        (the evaluated truth) and ``predictions`` (model -> the evaluated predictions), for the
        report's plots.
    segments : SegmentEvaluation or None
        The evaluation by segment of ``evaluate_models(by=...)``
        (:func:`ranklens.segments.by_segment` on the evaluated rows, with the evaluation's
        weights, units, task parameters, seed and replicates); None when no ``by`` was given, or
        when it could not be run (``problems`` says why).
    segment_scan : SegmentScan or None
        The search for weak segments of ``evaluate_models(scan=...)``
        (:func:`ranklens.segments.scan_segments`, with the same settings); None without ``scan``.
    windows : WindowEvaluation or None
        The evaluation over time windows of ``evaluate_models(window=...)``
        (:func:`ranklens.timeseries.by_window` on the evaluated rows, in time order, with the
        evaluation's weights, units, task parameters, seed, replicates, scheme and block
        length); None when no ``window`` was given, or when it could not be run (``problems``
        says why).
    serial_dependence : SerialDependence or None
        The check for serially dependent rows, run when intervals were computed and no time
        order was declared (no ``time``, ``scheme`` or ``groups``): the autocorrelations of each
        model's absolute errors and of the pick's paired differences, in the order the rows
        were given, and how much too narrow intervals that assume independent rows may be
        (:func:`ranklens._inference.serial_check.check_serial_dependence`); its ``warning``,
        when some series is flagged, is also in ``problems`` under ``"serial dependence"``.
        None when it did not run.
    """

    title: str
    target: str
    n: int
    model_names: tuple[str, ...]
    values: dict[str, dict[str, float]]
    metrics: dict[str, dict[str, Any]]
    problems: dict[str, dict[str, Problem]]
    description: str = ""
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    n_dropped: int = 0
    comparison: Any = None
    robustness: dict[str, Any] = dataclasses.field(default_factory=dict)
    curves: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)
    segments: Any = None
    segment_scan: Any = None
    serial_dependence: SerialDependence | None = None
    windows: Any = None

    def to_frame(self) -> Any:
        """The measures as a pandas DataFrame: one row per measure, one column per model."""
        import pandas as pd

        frame = pd.DataFrame(
            {
                model: [self.values[model].get(m, np.nan) for m in self.metrics]
                for model in self.model_names
            },
            index=pd.Index(list(self.metrics), name="metric"),
        )
        frame.insert(0, "family", [self.metrics[m]["family"] for m in self.metrics])
        frame.insert(
            1, "higher_is_better", [self.metrics[m]["higher_is_better"] for m in self.metrics]
        )
        return frame

    @property
    def failures(self) -> list[tuple[str, str, Problem]]:
        """``(model, what, problem)`` for every measure, curve or comparison that failed."""
        return [
            (who, what, problem)
            for who, items in self.problems.items()
            for what, problem in items.items()
            if problem.kind == "failed"
        ]

    def _repr_html_(self) -> str:
        """Every measure by model, grouped by family.

        No value is shaded "best" here: which differences are clear needs the paired bootstrap
        comparisons with a Holm correction, which the HTML report and the terminal table apply
        (``ranklens.report``); a notebook view that marked the largest value would claim a
        winner without evidence.
        """
        models = list(self.model_names)
        rows: list[tuple[str, list[tuple[str, str]]] | str] = []
        families = list(dict.fromkeys(info["family"] for info in self.metrics.values()))
        for family in families:
            rows.append(family)
            for metric, info in self.metrics.items():
                if info["family"] != family:
                    continue
                values = [self.values.get(m, {}).get(metric) for m in models]
                cells = []
                for model, value in zip(models, values, strict=True):
                    problem = self.problems.get(model, {}).get(metric)
                    if problem is not None and problem.kind == "failed":
                        cells.append(("failed", "failed"))
                        continue
                    cells.append((format_number(value), ""))
                rows.append((metric, cells))
        return table_html(f"{self.title} (n = {self.n:,})", ["measure", *models], rows)


@dataclasses.dataclass(frozen=True, repr=False)
@shared_paragraphs
class EvaluationComparison(ComparisonResult):
    """The comparison of an evaluation whose measures were compared by different methods.

    What :func:`evaluate_models` stores with ``inference="auto"`` when some measure has analytic
    inference: a :class:`~ranklens.compare.ComparisonResult` (same fields, same indexing) whose
    rows each come from the method its measure declares. Per measure ``k``,
    ``interval_methods[k]`` says how each model's interval was made and ``test_methods[k]`` how
    the paired differences were tested (their standard deviation, p-values and interval):

    * ``"delong"`` (both): DeLong's analytic variance and paired test (DeLong, DeLong &
      Clarke-Pearson 1988), the measures that declare a concordance form (the AUC, Harrell's C,
      Somers' D), as :func:`ranklens.compare_models` with ``method="delong"``;
    * an analytic variance's own name, e.g. ``"noether"`` (interval only): the Wald interval
      ``value -+ z sqrt(v)`` with the unbiased variance ``v`` the measure declares (Noether 1967
      for Kendall's tau), clipped to the measure's range; its paired test stays the bootstrap's;
    * ``"bootstrap-bca"`` or ``"bootstrap-percentile"`` (interval) and ``"bootstrap"`` (test):
      the paired bootstrap, as :func:`ranklens.compare_models`;
    * ``""`` (test): not tested (a measure with an analytic interval that the bootstrap left
      out; its pair fields are NaN).

    ``std_error`` is the standard error of the interval's method. A measure that was not
    resampled has NaN ``replicates`` and 0 ``n_undefined``, and ``evaluation`` ``"analytic"``.
    ``n_bootstrap`` and ``interval`` are the bootstrap's (0 and ``"none"`` when none ran).

    Attributes
    ----------
    interval_methods, test_methods : tuple of str
        Per measure, as above.
    references : dict of str to str
        The name and reference of each analytic variance's method, e.g.
        ``{"noether": "Noether (1967)"}``, for the report's methods sentence.

    References
    ----------
    %(delong1988)s

    Noether, G. E. (1967). *Elements of Nonparametric Statistics*. New York: Wiley.

    %(efron1987)s
    """

    interval_methods: tuple[str, ...] = ()
    test_methods: tuple[str, ...] = ()
    references: dict[str, str] = dataclasses.field(default_factory=dict)
    # A constant, not an argument: the methods are per measure.
    method: str = dataclasses.field(default="auto", init=False)

    def _repr_html_(self) -> str:
        """The notebook view: per measure its methods, then each model's value with its
        interval and each pair's difference, z and two-sided p."""
        methods = [
            f"{self.interval_methods[k]} / {self.test_methods[k] or 'not tested'}"
            for k in range(len(self.metrics))
        ]
        title = (
            f"Paired comparison, each measure by its own method: value "
            f"[{self.confidence_level:.0%} interval] per model, difference, z and two-sided p "
            f"per pair ({self.n_bootstrap:,} bootstrap replicates where resampled)"
        )
        return self._table_html(title, methods)


def difference_interval_method(comparison: Any, k: int) -> str | None:
    """How the interval of measure ``k``'s paired differences was made (None: none made)."""
    test = paired_test_methods(comparison)[k]
    own = getattr(comparison, "difference_interval_methods", ())
    if test in ("delong", "bootstrap") and k < len(own) and own[k]:
        return str(own[k])
    if test == "delong":
        return "delong"
    if test == "bootstrap":
        interval = str(getattr(comparison, "interval", "bca"))
        return f"bootstrap-{interval}"
    return None


#: Version of the JSON document of :func:`evaluation_to_json` (``docs/report.md``; the JSON
#: Schema ships as ``ranklens/report/results.schema.json``). 2: each measure a record; 2.1:
#: each interval and p-value says its method (``interval_method``, ``test_method``); 2.2: the
#: report's Summary verdicts as data (``summary``, added by ``ranklens.report``); 2.3: the
#: evaluation by segment (``segments``, present when ``by`` or ``scan`` was given); 2.4: the check
#: for serially dependent rows (``serial_dependence``, present when it ran) and a block
#: bootstrap's ``scheme`` and ``block_length`` in ``comparison`` (present when one ran); 2.5:
#: the evaluation over time windows (``windows``, present when ``window`` was given); 2.6: the
#: decomposition of each model's mean squared error (``calibration``, present when it was made).
SCHEMA_VERSION = "2.7"


def evaluation_to_json(
    evaluation: ModelEvaluation, *, include_replicates: bool = False
) -> dict[str, Any]:
    """The JSON document of ``ranklens evaluate --json``: strict JSON (NaN becomes null).

    ``doc["schema_version"]`` versions the layout. ``doc["models"][model][measure]`` is a record
    ``{"value", "ci_low", "ci_high", "interval_method", "status", "reason"}``: the value, its
    interval and how it was made (``"delong"``, ``"noether"``, ``"bootstrap-bca"``,
    ``"bootstrap-percentile"``; all three null when the measure has no interval), ``status`` one
    of ``"ok"`` or a :data:`ranklens._foundation.problems.PROBLEM_KINDS` entry, and ``reason`` (null
    for ``"ok"``).
    ``doc["comparisons"]`` is a list of records, one per measure and pair of models (difference,
    its standard deviation, p-values, interval), each with ``test_method`` (``"delong"``,
    ``"bootstrap"``, ``"permutation"``; null when not tested) and ``interval_method`` (of the
    difference's interval); ``doc["comparison"]`` the settings of the test (null when none ran;
    ``method`` ``"auto"`` when the measures were compared by different methods).
    ``doc["robustness"][model]`` holds the robustness tables; ``doc["problems"][model][what]``
    why a value is missing or qualified (``{"kind", "message"}``); ``doc["failures"]`` the
    failed ones; ``doc["curves"][kind][model]`` each curve's summary numbers;
    ``doc["segments"]`` the evaluation by segment (:func:`segments_json`; only when ``by`` or
    ``scan`` was given); ``doc["windows"]`` the evaluation over time windows
    (:func:`windows_json`; only when ``window`` was given); ``doc["serial_dependence"]`` the
    check for serially dependent rows (:func:`serial_dependence_json`; only when it ran);
    ``doc["calibration"]`` the decomposition of each model's mean squared error
    (:func:`calibration_json`; only when it could be made); ``doc["at_depth"]`` each model's
    precision, recall and 2x2 counts at the budget's depth for a 0/1 target
    (:func:`at_depth_json`).
    With a block bootstrap (``time``, ``scheme``) ``doc["comparison"]`` also holds its
    ``scheme`` and ``block_length``. The bootstrap replicates are left out unless
    ``include_replicates``.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`evaluate_models`.
    include_replicates : bool, default False
        Add ``doc["replicates"]`` = ``{"models", "measures", "values"}``, ``values`` indexed
        ``[replicate][measure][model]`` (large: replicates x measures x models numbers).

    Returns
    -------
    dict
        A JSON-serialisable document (NaN and infinities become null).

    Notes
    -----
    The layout is versioned by ``doc["schema_version"]`` and described by the JSON Schema
    shipped as ``ranklens/report/results.schema.json`` (documented in the report guide).

    References
    ----------
    Bray, T. (Ed.) (2017). The JavaScript Object Notation (JSON) Data Interchange Format.
    RFC 8259, IETF. doi:10.17487/RFC8259 (NaN and infinities have no JSON form, hence null).
    """
    comparison = evaluation.comparison
    intervals: dict[tuple[str, str], tuple[float, float, str]] = {}
    qualifiers: dict[tuple[str, str], tuple[bool, str]] = {}
    records: list[dict[str, Any]] = []
    settings = None
    if comparison is not None:
        frame = comparison.to_frame()
        per_interval = interval_methods(comparison)
        per_test = paired_test_methods(comparison)
        flags = np.asarray(getattr(comparison, "approximate", np.zeros((0, 0))), dtype=bool)
        notes = tuple(getattr(comparison, "interval_notes", ()))
        for k, metric in enumerate(comparison.metrics):
            for m, model in enumerate(comparison.models):
                if hasattr(comparison, "ci_lower"):
                    low, high = comparison.ci_lower[k, m], comparison.ci_upper[k, m]
                    intervals[(model, metric)] = (float(low), float(high), per_interval[k])
                    shape = (len(comparison.metrics), len(comparison.models))
                    flag = bool(flags[k, m]) if flags.shape == shape else False
                    qualifiers[(model, metric)] = (flag, notes[k] if k < len(notes) else "")
        for row in frame.to_dict(orient="records"):
            record = {"measure": row.pop("metric")}
            record.update({key: to_builtin(value) for key, value in row.items()})
            if "difference_ci_lower" in record:
                record["ci_low"] = record.pop("difference_ci_lower")
                record["ci_high"] = record.pop("difference_ci_upper")
            # The model with the better point value, whether or not the difference is clear.
            record["better_value"] = record.pop("better", None) or None
            k = comparison.metrics.index(record["measure"])
            record["test_method"] = per_test[k] or None
            record["interval_method"] = difference_interval_method(comparison, k)
            records.append(record)
        keys = ["method", "interval", "n_bootstrap", "n_permutations", "confidence_level"]
        if getattr(comparison, "scheme", None) in BLOCK_SCHEMES:
            keys += ["scheme", "block_length"]
        settings = {
            key: to_builtin(getattr(comparison, key)) for key in keys if hasattr(comparison, key)
        }
    models: dict[str, dict[str, Any]] = {}
    for model, values in evaluation.values.items():
        out = models.setdefault(model, {})
        for metric, value in values.items():
            problem = evaluation.problems.get(model, {}).get(metric)
            low, high, method = intervals.get((model, metric), (None, None, None))
            defined = all(v is not None and math.isfinite(v) for v in (low, high))
            flag, note = qualifiers.get((model, metric), (False, ""))
            out[metric] = {
                "value": float(value),
                "ci_low": low,
                "ci_high": high,
                "interval_method": (method or None) if defined else None,
                "approximate": flag if defined else None,
                "interval_note": note or None,
                "status": problem.kind if problem is not None else "ok",
                "reason": problem.message if problem is not None else None,
            }
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "ranklens_version": __version__,
        "title": evaluation.title,
        "target": evaluation.target,
        "n": evaluation.n,
        "n_dropped": evaluation.n_dropped,
        "settings": to_builtin(evaluation.settings),
        "models": models,
        "metrics": to_builtin(evaluation.metrics),
        "problems": to_builtin(evaluation.problems),
        "failures": [
            {"model": who, "measure": what, "message": problem.message}
            for who, what, problem in evaluation.failures
        ],
        "comparison": settings,
        "comparisons": records,
        "robustness": {m: to_builtin(t) for m, t in evaluation.robustness.items()},
        "curves": {
            kind: {model: _curve_summary(result) for model, result in results.items()}
            for kind, results in evaluation.curves.items()
        },
    }
    segments = segments_json(evaluation)
    if segments is not None:
        doc["segments"] = segments
    windows = windows_json(evaluation)
    if windows is not None:
        doc["windows"] = windows
    serial = serial_dependence_json(evaluation)
    if serial is not None:
        doc["serial_dependence"] = serial
    calibration = calibration_json(evaluation)
    if calibration is not None:
        doc["calibration"] = calibration
    at_depth = at_depth_json(evaluation)
    if at_depth is not None:
        doc["at_depth"] = at_depth
    replicates = getattr(comparison, "replicates", None)
    if include_replicates and replicates is not None:
        doc["replicates"] = {
            "models": list(comparison.models),
            "measures": list(comparison.metrics),
            "values": np.asarray(replicates, dtype=np.float64).tolist(),
        }
    return finite_or_none(doc)


def calibration_json(evaluation: ModelEvaluation) -> dict[str, Any] | None:
    """The ``calibration`` block of the JSON document (None when the evaluation has none).

    The CORP decomposition of each model's mean score
    (:func:`ranklens.calibration.score_decompositions`): ``score`` (``"squared_error"``),
    ``quantile_level`` (null), ``reference`` (the best constant prediction), ``n``, ``models``
    (per model ``mean_score``, ``mcb``, ``dsc`` and ``unc``, with ``mean_score = mcb - dsc +
    unc``) and ``statement``
    (:meth:`~ranklens.calibration.ScoreDecompositionTable.statement`).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    dict or None
        NaN kept (:func:`evaluation_to_json` maps it to null).
    """
    block = evaluation.extras.get("calibration")
    table = block.get("table") if isinstance(block, dict) else None
    if table is None:
        return None
    return {
        "score": table.score,
        "quantile_level": table.quantile_level,
        "reference": float(table.reference),
        "n": int(table.n),
        "models": {
            model: {
                "mean_score": float(table.mean_score[m]),
                "mcb": float(table.mcb[m]),
                "dsc": float(table.dsc[m]),
                "unc": float(table.unc[m]),
            }
            for m, model in enumerate(table.models)
        },
        "statement": table.statement(),
    }


def serial_dependence_json(evaluation: ModelEvaluation) -> dict[str, Any] | None:
    """The ``serial_dependence`` block of the JSON document (None when the check did not run).

    ``n``, ``bandwidth`` (the lag ``L`` of the variance ratio), ``pick``, ``threshold`` (the
    smallest variance ratio that warns), ``chance_bound`` (the largest independent rows give by
    chance), ``rule`` (the rule in words), ``series`` (per series its ``kind``, the
    ``autocorrelations`` at lags 1 to 5, the ``variance_ratio``, ``too_narrow`` and
    ``flagged``) and ``warning`` (null when no series is flagged).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    dict or None
        NaN kept (:func:`evaluation_to_json` maps it to null).
    """
    check = evaluation.serial_dependence
    if check is None:
        return None
    return {
        "n": check.n,
        "bandwidth": check.bandwidth,
        "pick": check.pick,
        "threshold": check.threshold,
        "chance_bound": check.chance_bound,
        "rule": (
            "variance ratio R = 1 + 2 sum_{k<=L} (1 - k/(L+1)) rho_k (Newey & West 1987), "
            "L = floor(4 (n/100)^(2/9)) (Newey & West 1994); a series warns when intervals "
            f"that assume independent rows are at least {100 * NARROWER:.0f}% too narrow "
            f"(1 - 1/sqrt(R)) and R - 1 exceeds {CHANCE_Z:g} standard deviations of its value "
            "on independent rows"
        ),
        "series": check.records(),
        "warning": check.warning or None,
    }


def _curve_summary(result: Any) -> dict[str, Any]:
    """A curve result's scalar fields (numbers, settings, labels), without its arrays."""
    if not dataclasses.is_dataclass(result):
        return {}
    out = {}
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        skip = isinstance(value, np.ndarray) or hasattr(value, "to_numpy")  # arrays, frames
        if skip or callable(value) or dataclasses.is_dataclass(value):
            continue
        out[field.name] = to_builtin(value)
    return out


# --------------------------------------------------------------------------------------------
# Calling registered measures


def model_context(
    context: Mapping[str, Any], bounds: tuple[np.ndarray, np.ndarray] | None
) -> dict[str, Any]:
    """Task parameters for a point measure of one model.

    ``alpha`` describes prediction intervals and is withheld from point measures: a point measure
    with an optional interval term (``pmap``) is then the same quantity for every model in its row
    of the table, whether or not that model also gave intervals. The interval measures report the
    interval part separately.
    """
    del bounds  # the interval term is reported by the interval measures, per model
    return {**context, "alpha": None}


def default_measures(y_true: np.ndarray, predictions: Mapping[str, Any]) -> list[str]:
    """The registered measures an evaluation computes for this target and these scores.

    A 0/1 ``y_true`` gets the measures for binary targets (:attr:`MetricSpec.targets`) and not
    those for continuous ones; any other target the reverse. The measures of probability scores
    are left out when no model's scores are probabilities (all in [0, 1]).
    """
    binary = is_binary_target(y_true)
    any_probabilities = any(probability_scores(p) for p in predictions.values())
    out = []
    for name in available_metrics():
        spec = get_metric(name)
        if not applies_to_target(spec, binary):
            continue
        if needs_probabilities(spec) and not any_probabilities:
            continue
        out.append(name)
    return out


def binary_target_settings(y_true: Any, predictions: Mapping[str, Any]) -> dict[str, str]:
    """What an evaluation records about a 0/1 target in its settings (empty for any other):
    why the measures for continuous targets are not computed, and which models' scores are
    not probabilities."""
    if not is_binary_target(y_true):
        return {}
    out = {"binary target": BINARY_TARGET_NOTE}
    others = [m for m, p in predictions.items() if not probability_scores(p)]
    if others:
        out["probability scores"] = (
            f"the scores of {', '.join(map(repr, others))} are not probabilities (some lie "
            "outside [0, 1]): the Brier score and the log loss are not computed for them"
        )
    return out


def score_registered_metrics(
    y_true: np.ndarray,
    predictions: Mapping[str, np.ndarray],
    *,
    intervals: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    sample_weight: np.ndarray | None = None,
    context: Mapping[str, Any] | None = None,
    progress: ProgressCallback | None = None,
    metrics: Sequence[str] | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, Any]], dict[str, dict[str, Problem]]]:
    """Every registered measure (or those named in ``metrics``) for every model:
    ``(values, metric_info, problems)``.

    Point measures are evaluated for every model; interval measures for the models in
    ``intervals``. ``context`` supplies named task parameters to the measures that take them.
    ``problems[model][metric]`` is a :class:`Problem` for each value that is not a plain number.
    """
    context = dict(context or {})
    intervals = dict(intervals or {})
    models = list(dict.fromkeys([*predictions, *intervals]))
    values: dict[str, dict[str, float]] = {name: {} for name in models}
    problems: dict[str, dict[str, Problem]] = {name: {} for name in models}
    info: dict[str, dict[str, Any]] = {}
    names = default_measures(y_true, predictions) if metrics is None else tuple(metrics)
    not_probabilities = {m for m, p in predictions.items() if not probability_scores(p)}
    # Steps, for progress lines that say how far the measures are ("measures (12/75): ...").
    total = sum(
        len(intervals if get_metric(m).inputs == "interval" else predictions) for m in names
    )
    step = 0
    # the measures of one model share its sorts and sweeps (Kendall's tau, Somers' D, gamma, ...)
    with shared_results():
        for metric in names:
            spec = get_metric(metric)
            interval = spec.inputs == "interval"
            inputs = intervals if interval else predictions
            if not inputs:
                continue
            info[metric] = metric_info(spec, context)
            for model, given in inputs.items():
                step += 1
                if progress is not None:
                    progress(f"measures ({step}/{total}): {model}: {metric}")
                if needs_probabilities(spec) and model in not_probabilities:
                    values[model][metric] = math.nan
                    problems[model][metric] = Problem("skipped", NOT_PROBABILITIES)
                    continue
                local = context if interval else model_context(context, intervals.get(model))
                kwargs, skip = fit_kwargs(spec.func, 3 if interval else 2, local)
                if spec.supports_sample_weight and sample_weight is not None:
                    kwargs["sample_weight"] = sample_weight
                if skip is not None:
                    values[model][metric] = math.nan
                    problems[model][metric] = skip
                    continue
                args = (y_true, *given) if interval else (y_true, given)
                value, problem = score_quietly(spec.func, *args, **kwargs)
                values[model][metric] = value
                if problem is not None:
                    problems[model][metric] = problem
    if sample_weight is not None:
        for metric, meta in info.items():
            if not get_metric(metric).supports_sample_weight:
                meta["note"] = "unweighted: this measure takes no sample_weight"
    return values, info, {m: p for m, p in problems.items() if p}


# --------------------------------------------------------------------------------------------
# Curves and task-level results: each builder is optional (its module may be absent or raise).


#: Curves with bootstrap bands: the cutoff AUC of Rosset et al. (2005, Fig. 5) in the comparison
#: section, and the gain, whose bands say at which targeting depths one model is clearly ahead
#: (the report's winner by depth); each must be a registered curve that can carry bands
#: (``CurveSpec.on_grid``).
BAND_CURVES: tuple[str, ...] = ("cutoff_auc", "gain")


def _curve_results(
    spec: CurveSpec,
    y_true: np.ndarray,
    predictions: Mapping[str, np.ndarray],
    intervals: Mapping[str, tuple[np.ndarray, np.ndarray]],
    sample_weight: np.ndarray | None,
    context: Mapping[str, Any],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
) -> dict[str, Any]:
    """One registered curve for every model; a curve that raises is recorded as undefined or
    failed. What it is computed from and with which task parameters is read from its spec."""
    func = spec.func
    if any(context.get(key) is None for key in spec.needs):
        return {}
    if spec.needs_any and all(context.get(key) is None for key in spec.needs_any):
        return {}
    if spec.applies is not None and not spec.applies(y_true):
        return {}
    point = spec.inputs == "point"
    targets: Mapping[str, Any] = predictions if point else intervals
    local = dict(context)
    for key, fixed in spec.fixed_with.items():
        if local.get(key) is not None:
            local.update(fixed)
    local.update(spec.fixed)
    with_prediction = spec.inputs == "point_and_interval"
    n_positional = 2 if point else (4 if with_prediction else 3)
    kwargs, skip = fit_kwargs(func, n_positional, local)
    if skip is not None:
        return {}
    if sample_weight is not None and "sample_weight" in inspect.signature(func).parameters:
        kwargs["sample_weight"] = sample_weight
    out = {}
    for model, target in targets.items():
        if progress is not None:
            progress(f"{model}: {spec.name} curve")
        if point:
            args: tuple[Any, ...] = (y_true, target)
        elif with_prediction:
            if model not in predictions:
                continue
            args = (y_true, predictions[model], *target)
        else:
            args = (y_true, *target)
        result, problem = call_quietly(func, *args, **kwargs)
        if result is not None:
            out[model] = result
        if problem is not None:
            problems.setdefault(model, {})[f"{spec.name} curve"] = problem
    return out


# --------------------------------------------------------------------------------------------


def evaluate_arrays(
    y_true: ArrayLike,
    predictions: Mapping[str, Any],
    *,
    title: str = "Model evaluation",
    description: str = "",
    target: str = "y",
    intervals: Mapping[str, tuple[Any, Any]] | None = None,
    alpha: float | None = None,
    sample_weight: ArrayLike | None = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    events: str | float | None = None,
    budget: float | None = None,
    cost_per_target: float | None = None,
    value_margin: float | None = None,
    cost_benefit: Any = None,
    k: int | None = None,
    gains: str | None = None,
    n_bootstrap: int = 0,
    random_state: int | None = 0,
    inference: str = "auto",
    groups: ArrayLike | None = None,
    robustness: bool = True,
    curves: bool = True,
    agreement_predictions: Mapping[str, Any] | None = None,
    n_dropped: int = 0,
    bootstrap_budget_s: float = 60.0,
    on_progress: ProgressCallback | None = None,
    show_progress: bool | None = False,
    by: Any = None,
    scan: Any = None,
    segment_options: SegmentOptions | None = None,
    time: ArrayLike | None = None,
    scheme: str | None = None,
    block_length: float | str = "auto",
    window: str | int | None = None,
    metrics: Sequence[str] | None = None,
) -> ModelEvaluation:
    """The in-memory engine of :func:`ranklens.evaluate_models`, on arrays.

    ``evaluate_models(y_true, predictions, ...)`` with ``engine="memory"`` calls it, with the
    columns of ``data`` read into arrays when ``data`` is given.

    Parameters
    ----------
    y_true, predictions
        As :func:`ranklens.evaluate_models` (arrays, not column names); every keyword argument
        is the argument of :func:`ranklens.evaluate_models` of the same name (``by``, ``scan``
        and ``time`` as labels and times, or a mapping of names to labels, not as column
        names), but for ``segment_options``, which holds its ``segment_*`` options (None: their
        defaults).

    Returns
    -------
    ModelEvaluation
    """
    progress = on_progress
    if inference not in INFERENCE:
        raise ValueError(f"inference must be one of {INFERENCE}; got {inference!r}")
    n_bootstrap = _check_n_bootstrap(n_bootstrap)
    random_state = check_random_state(random_state)
    y, preds, bounds = _checked_predictions(y_true, predictions, intervals, alpha)
    # the weights as given, as a direct call sees them (a sum such as SERA keeps their scale)
    weight = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    block = check_resampling(
        time is not None,
        scheme,
        block_length,
        n_bootstrap=n_bootstrap,
        groups_given=groups is not None,
    )
    groups, n_units = _check_groups(groups, y, n_bootstrap)
    _check_events(y, events, weight)
    segment_options = segment_options or SegmentOptions()
    order = None if time is None else read_times(time, y.shape[0])
    shape = (y.shape[0], len(preds))  # rows, models
    labels, windows = _checked_slices(by, scan, window, order, shape, segment_options)
    order_settings: dict[str, Any] = {} if order is None else order.settings()
    if order is not None:
        # every measure, curve, table, segment and window sees the rows in time order
        y, preds, bounds, weight, labels, agreement_predictions = _in_time_order(
            order.rows, y, preds, bounds, weight, labels, agreement_predictions
        )
    resampling = _block_resampling(block, block_length, y, preds)
    order_settings.update(
        _resampling_settings(resampling, block_length, time is not None, inference)
    )
    relevance, relevance_note, relevance_failure = _relevance_or_default(relevance, y)
    context = {
        "alpha": alpha,
        "relevance": relevance,
        "event_threshold": event_threshold,
        "events": events,
        "budget": budget,
        "cost_per_target": cost_per_target,
        "value_margin": value_margin,
        "cost_benefit": cost_benefit,
        "k": k,
        "gains": gains,
    }
    analytic = _analytic_inference(inference, groups, block)
    settings = {
        **_run_settings(
            context,
            relevance_note,
            weighted=weight is not None,
            n_bootstrap=n_bootstrap,
            inference=inference,
            analytic=analytic,
            random_state=random_state,
        ),
        **_units_settings(groups, n_units, inference),
        **order_settings,
        **binary_target_settings(y, preds),
    }

    values, info, problems = _scored_measures(
        y, preds, bounds, weight, context, progress, metrics, relevance_failure
    )
    serial = None
    if (n_bootstrap or analytic) and time is None and block is None and groups is None:
        serial = _serial_check(y, preds, problems)

    comparison, plan = _compare_models(
        y,
        preds,
        weight,
        groups,
        values,
        info,
        context,
        settings,
        problems,
        n_bootstrap=n_bootstrap,
        analytic=analytic,
        bootstrap_budget_s=bootstrap_budget_s,
        curves=curves,
        random_state=random_state,
        show_progress=show_progress,
        progress=progress,
        resampling=resampling,
    )
    settings.update(methods_settings(comparison))
    robust = _robustness_tables(y, preds, problems, progress) if robustness else {}

    extras: dict[str, Any] = {"y_true": y, "predictions": preds}
    curve_results = (
        _curves_and_extras(
            y,
            preds,
            bounds,
            weight,
            context,
            plan,
            extras,
            agreement_predictions=agreement_predictions,
            random_state=random_state,
            show_progress=show_progress,
            problems=problems,
            progress=progress,
            groups=groups,
            resampling=resampling,
            metrics=metrics,
        )
        if curves
        else {}
    )
    if plan is not None:
        settings["bootstrap time"] = plan.time_note()
    found = _sliced_results(
        labels,
        windows,
        y,
        preds,
        weight,
        groups,
        values,
        context,
        n_bootstrap=n_bootstrap,
        random_state=random_state,
        options=segment_options,
        settings=settings,
        problems=problems,
        progress=progress,
        resampling=resampling,
    )
    return ModelEvaluation(
        title=title,
        description=description,
        target=target,
        n=int(y.shape[0]),
        model_names=tuple(dict.fromkeys([*preds, *bounds])),
        values=values,
        metrics=info,
        problems={m: p for m, p in problems.items() if p},
        settings=settings,
        n_dropped=int(n_dropped),
        comparison=comparison,
        robustness=robust,
        curves=curve_results,
        extras=extras,
        segments=found.get("by"),
        segment_scan=found.get("scan"),
        serial_dependence=serial,
        windows=found.get("window"),
    )


def _scored_measures(
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    bounds: Any,
    weight: np.ndarray | None,
    context: dict[str, Any],
    progress: ProgressCallback | None,
    metrics: Sequence[str] | None,
    relevance_failure: Problem | None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, Any]], dict[str, dict[str, Problem]]]:
    """Every measure of every model (:func:`score_registered_metrics`), with the failure of the
    default relevance, if any, among the problems."""
    values, info, problems = score_registered_metrics(
        y,
        preds,
        intervals=bounds,
        sample_weight=weight,
        context=context,
        progress=progress,
        metrics=metrics,
    )
    if relevance_failure is not None:
        problems.setdefault(ALL_MODELS, {})["default relevance"] = relevance_failure
    return values, info, problems


def _curves_of_families(metrics: Sequence[str] | None) -> Sequence[str]:
    """The registered curves of the chosen measures' families (all of them without a choice)."""
    if metrics is None:
        return available_curves()
    families = {get_metric(name).family for name in metrics}
    return [name for name in available_curves() if get_curve(name).family in families]


def _relevance_or_default(relevance: Any, y: np.ndarray) -> tuple[Any, str | None, Any]:
    """``(relevance, note, failure)``: the relevance function given, or the default one fitted
    on ``y`` with its note (or the problem that stopped it)."""
    if relevance is not None:
        return relevance, None, None
    return _default_relevance(y)


def _analytic_inference(inference: str, groups: Any, block: str | None) -> bool:
    """Whether the measures' analytic intervals and tests are used: with ``inference="auto"``
    (they need no replicates, so ``n_bootstrap=0`` has them too), and only for independent rows
    (DeLong's and Noether's variances assume them: with units or blocks, every interval and
    test comes from the clustered or the block bootstrap)."""
    return inference == "auto" and groups is None and block is None


def _units_settings(groups: Any, n_units: int, inference: str) -> dict[str, Any]:
    """The ``settings`` of the clustered bootstrap (empty without units)."""
    if not n_units:
        return {}
    name = getattr(groups, "name", None)
    return groups_settings(None if name is None else str(name), n_units, inference)


def _compare_models(
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    weight: np.ndarray | None,
    groups: Any,
    values: dict[str, dict[str, float]],
    info: dict[str, Any],
    context: dict[str, Any],
    settings: dict[str, Any],
    problems: dict[str, dict[str, Problem]],
    *,
    n_bootstrap: int,
    analytic: bool,
    bootstrap_budget_s: float,
    curves: bool,
    random_state: Any,
    show_progress: bool | None,
    progress: ProgressCallback | None,
    resampling: Mapping[str, Any],
) -> tuple[Any, BootstrapPlan | None]:
    """The evaluation's paired comparison of the models: the bootstrap (planned within the time
    budget, its notes in ``settings``) and the analytic intervals and tests the measures
    declare; ``(comparison, plan)``, both None when neither applies."""
    comparison, plan = None, None
    if not (n_bootstrap or analytic):
        return comparison, plan
    candidates = _comparable_metrics(values, info, preds, context, weighted=weight is not None)
    methods = (
        _declared_analytic_methods(candidates, weighted=weight is not None) if analytic else {}
    )
    if n_bootstrap:
        plan = _bootstrap_plan(
            y,
            [s for s in candidates if _needs_bootstrap(methods.get(s.name), len(preds))],
            info,
            preds,
            context,
            weight,
            n_bootstrap=n_bootstrap,
            budget_s=bootstrap_budget_s,
            bands=curves,
            progress=progress,
        )
        settings.update(plan.notes())
        comparison = _bootstrap_comparison(
            plan,
            y,
            preds,
            weight,
            groups,
            random_state=random_state,
            show_progress=show_progress,
            progress=progress,
            analytic_follows=bool(methods),
            problems=problems,
            resampling=resampling,
        )
    if methods:
        comparison = _with_analytic_inference(
            comparison,
            candidates,
            methods,
            plan,
            y,
            preds,
            weight,
            values,
            settings,
            problems,
            progress,
        )
    return comparison, plan


def _curves_and_extras(
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    bounds: Any,
    weight: np.ndarray | None,
    context: dict[str, Any],
    plan: BootstrapPlan | None,
    extras: dict[str, Any],
    *,
    agreement_predictions: Any,
    random_state: Any,
    show_progress: bool | None,
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
    groups: Any,
    resampling: Mapping[str, Any],
    metrics: Sequence[str] | None,
) -> dict[str, dict[str, Any]]:
    """Every curve of the chosen measures' families (all without ``metrics``) of every model,
    and in ``extras`` what the report draws beside them (the task's plots, the relevance
    function, the curves' bootstrap bands with the comparison's resampling); the curves by name.
    A curve of another family is not computed, but for the profit curves when a budget sets the
    depth of the counts and the bands (they are then computed for that depth alone)."""
    names = _curves_of_families(metrics)
    curve_results = _all_curves(names, y, preds, bounds, weight, context, problems, progress)
    profits = curve_results.get("profit")
    binary = is_binary_target(y)
    if "profit" not in names and (plan is not None or binary):
        profits = _curve_results(
            get_curve("profit"), y, preds, bounds, weight, context, problems, progress
        )
    budget_depth = depth_of_budget(profits)
    extras.update(
        _task_extras(
            y,
            preds,
            agreement_predictions,
            context,
            weight,
            problems,
            progress,
            resamples=plan is not None,
        )
    )
    if context.get("relevance") is not None:
        extras["relevance"] = context["relevance"]
    if binary:
        at_depth = counts_at_depth(y, preds, weight, budget_depth, problems)
        if at_depth is not None:
            extras["at_depth"] = at_depth
    if plan is not None:
        bands = _bands(
            y,
            preds,
            weight,
            context.get("events"),
            plan,
            random_state,
            show_progress,
            problems,
            progress,
            groups=groups,
            resampling=resampling,
            budget_depth=budget_depth,
            value_profit=context.get("value_margin") is not None,
        )
        if bands:
            extras["bands"] = bands
    return curve_results


def _checked_slices(
    by: Any,
    scan: Any,
    window: Any,
    order: TimeOrder | None,
    shape: tuple[int, int],
    options: SegmentOptions,
) -> tuple[dict[str, dict[str, Any]], tuple[str | int, Any] | None]:
    """The slicings of ``by`` and ``scan`` (:func:`_checked_segments`) and the windows of
    ``window`` (:func:`_checked_window`), checked before any work; ``order``: the rows' times
    read (None without ``time``); ``shape``: the rows and the models."""
    n, n_models = shape
    labels = _checked_segments(
        by, scan, n=n, n_models=n_models, options=options, windowed=window is not None
    )
    return labels, _checked_window(window, order, n=n, n_models=n_models)


def _block_resampling(
    block: str | None, block_length: Any, y: np.ndarray, preds: Mapping[str, np.ndarray]
) -> dict[str, Any]:
    """``{"scheme", "block_length"}`` of the block bootstrap (:func:`ranklens.compare_models`'
    arguments, the length resolved once from every model, :func:`block_length_for`), or empty
    when the rows are resampled one by one (``block`` None)."""
    if block is None:
        return {}
    return {
        "scheme": block,
        "block_length": block_length_for(block_length, block, y, list(preds.values())),
    }


def _resampling_settings(
    resampling: Mapping[str, Any], given: Any, in_time_order: bool, inference: str
) -> dict[str, Any]:
    """The ``settings`` entries of the block bootstrap of ``resampling`` (:func:`block_settings`;
    ``given``: the ``block_length`` asked for), empty without one."""
    if not resampling:
        return {}
    return block_settings(
        resampling["scheme"],
        resampling["block_length"],
        chosen=isinstance(given, str),
        in_time_order=in_time_order,
        inference=inference,
    )


def _in_time_order(
    rows: np.ndarray,
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    bounds: dict[str, tuple[np.ndarray, np.ndarray]],
    weight: np.ndarray | None,
    labels: dict[str, dict[str, Any]],
    agreement: Mapping[str, Any] | None,
) -> tuple[Any, ...]:
    """The checked columns with their rows in the order ``rows`` (the truth, the predictions,
    the interval bounds, the weights, the labels of ``by`` and ``scan`` and the candidates of
    the agreement study; a candidate of another length is left as given, for its own check to
    refuse)."""
    n = y.shape[0]
    return (
        y[rows],
        {m: p[rows] for m, p in preds.items()},
        {m: (lo[rows], hi[rows]) for m, (lo, hi) in bounds.items()},
        None if weight is None else weight[rows],
        {
            option: {name: take_rows(item, rows) for name, item in columns.items()}
            for option, columns in labels.items()
        },
        None
        if agreement is None
        else {
            m: take_rows(v, rows) if np.ndim(v) == 1 and len(v) == n else v
            for m, v in agreement.items()
        },
    )


def _serial_check(
    y: np.ndarray, preds: Mapping[str, np.ndarray], problems: dict[str, dict[str, Problem]]
) -> SerialDependence | None:
    """The check for serially dependent rows (:func:`check_serial_dependence`); its warning,
    when a series is flagged, recorded in ``problems`` as a note."""
    result, problem = call_quietly(check_serial_dependence, y, preds)
    if problem is not None:
        problems.setdefault(ALL_MODELS, {})["serial dependence"] = problem
    if result is not None and result.warns:
        problems.setdefault(ALL_MODELS, {})["serial dependence"] = Problem("note", result.warning)
    return result


# --------------------------------------------------------------------------------------------
# Evaluation by segment (``by`` and ``scan``)


def segment_items(value: Any, option: str) -> list[tuple[str | None, Any]]:
    """``by`` or ``scan`` as one ``(name, item)`` per slicing, in the order given.

    ``item`` is a column name (a str, which needs ``data``) or the labels (an array-like of one
    label per row); ``name`` is None where the item names itself (a column name, a named
    Series). A mapping gives ``name -> item``; a DataFrame one slicing per column; a list or
    tuple whose items are all strings or array-likes one slicing per item (a list of strings
    names columns); any other list or tuple, and a 1-D array-like, is one column of labels.

    Parameters
    ----------
    value : str, array-like, list of them, mapping or DataFrame, or None
        What the caller gave.
    option : str
        ``"by"`` or ``"scan"``, for the messages.

    Returns
    -------
    list of (str or None, object)
        Empty for None.

    Raises
    ------
    ValueError
        If ``value`` is an empty list.
    TypeError
        If ``value`` is neither of the above.
    """
    if value is None:
        return []
    if isinstance(value, Mapping):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, list | tuple):
        if not value:
            raise ValueError(f"{option} is empty; give a column name, labels or a list of them")
        if all(isinstance(v, str) or _is_label_column(v) for v in value):
            return [(None, v) for v in value]
        return [(None, value)]
    if isinstance(value, str) or _is_label_column(value):
        return [(None, value)]
    if hasattr(value, "columns"):  # a DataFrame
        return [(str(c), value[c]) for c in value.columns]
    raise TypeError(
        f"{option} must be a column name of data, an array of labels (one per row), or a list "
        f"or mapping of them; got {type(value).__name__}"
    )


def _is_label_column(value: Any) -> bool:
    """Whether ``value`` is one column of labels (a sequence or a 1-D array-like, not text)."""
    frame = hasattr(value, "columns") and not hasattr(value, "dtype")
    if isinstance(value, str | bytes) or frame:
        return False
    if isinstance(value, list | tuple):
        return True
    return hasattr(value, "__array__") and np.ndim(value) == 1


def _checked_segments(
    by: Any,
    scan: Any,
    *,
    n: int,
    n_models: int,
    options: SegmentOptions,
    windowed: bool = False,
) -> dict[str, dict[str, Any]]:
    """``{"by": {name: labels}, "scan": {name: labels}}`` (the options given), every column of
    labels checked as the evaluation by segment will slice it, before any work; the options
    checked too (``windowed``: ``window`` is given, whose windows they judge as well)."""
    given = {"by": segment_items(by, "by"), "scan": segment_items(scan, "scan")}
    options.check(sliced=any(given.values()), windowed=windowed)
    if not any(given.values()):
        return {}
    bins = options.bins
    out: dict[str, dict[str, Any]] = {}
    for option, items in given.items():
        if not items:
            continue
        if n_models < 2:
            raise ValueError(
                f"{option}: the evaluation by segment compares the models in every segment; "
                f"give at least two models (got {n_models})"
            )
        columns: dict[str, Any] = {}
        for k, (label, item) in enumerate(items):
            if isinstance(item, str):
                raise TypeError(
                    f"{option}: {item!r} names a column, which needs data (a list of strings "
                    "names columns); without data give the labels as an array"
                )
            own = getattr(item, "name", None)
            name = label or (own if isinstance(own, str) and own else "segment")
            if label is None and name == "segment" and len(items) > 1:
                name = f"segment {k + 1}"
            if name in columns:
                raise ValueError(f"{option}: the slicing {name!r} is given twice")
            try:
                slice_rows(item, name, n=n, bins=bins)
            except ValueError as exc:
                raise ValueError(f"{option}: {exc}") from None
            columns[name] = item
        out[option] = columns
    return out


@dataclasses.dataclass(frozen=True)
class SegmentOptions:
    """How an evaluation by segment slices the rows and judges its verdicts: the ``segment_*``
    options of :func:`ranklens.evaluate_models`, held together from the entry point to either
    engine (and the command line's ``--segment-*`` options). The evaluation over time windows
    (``window``) takes the smallest slice and the verdicts' rules from them too
    (:data:`WINDOW_FIELDS`); the bins and the cross product are the segments' alone.

    Attributes
    ----------
    bins : int
        ``segment_bins``: quantile bins of a numeric column (>= 2).
    min_rows, min_events : int
        ``min_segment_rows`` and ``min_segment_events`` (>= 1): a smaller segment keeps its
        values and counts but gets no interval and no verdict.
    fdr : {"bh", "by"}
        ``segment_fdr``: the false discovery rate procedure of the verdicts.
    fdr_level : float
        ``segment_fdr_level``: the false discovery rate controlled, in (0, 1).
    cross : bool
        ``cross_segments``: slice by the cross product of the ``by`` columns too.
    """

    bins: int = 5
    min_rows: int = 30
    min_events: int = 10
    fdr: str = "bh"
    fdr_level: float = 0.05
    cross: bool = False

    #: The argument of :func:`ranklens.evaluate_models` that sets each field.
    ARGUMENTS: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            "bins": "segment_bins",
            "min_rows": "min_segment_rows",
            "min_events": "min_segment_events",
            "fdr": "segment_fdr",
            "fdr_level": "segment_fdr_level",
            "cross": "cross_segments",
        }
    )

    #: The fields that also judge the windows of ``window``.
    WINDOW_FIELDS: ClassVar[tuple[str, ...]] = ("min_rows", "min_events", "fdr", "fdr_level")

    def check(self, *, sliced: bool, windowed: bool = False) -> None:
        """Refuse a value out of range, or any option given without a slicing (or windows),
        naming the argument of :func:`ranklens.evaluate_models`.

        Parameters
        ----------
        sliced : bool
            Whether ``by`` or ``scan`` is given.
        windowed : bool, default False
            Whether ``window`` is given (the options of :data:`WINDOW_FIELDS` apply to it).

        Raises
        ------
        ValueError
            If an option is out of range, or differs from its default without ``by`` or
            ``scan`` (or, for the options of :data:`WINDOW_FIELDS`, without ``window``
            either).
        """
        if not sliced:
            default = SegmentOptions()
            for field, argument in self.ARGUMENTS.items():
                value = getattr(self, field)
                if windowed and field in self.WINDOW_FIELDS:
                    continue
                if value is not getattr(default, field) and value != getattr(default, field):
                    also = " or window" if field in self.WINDOW_FIELDS else ""
                    raise ValueError(
                        f"{argument} is an option of the evaluation by segment; give by or "
                        f"scan{also} too (got {argument}={value!r})"
                    )
            if not windowed:
                return
        self.check_values(self.ARGUMENTS)

    def check_values(self, names: Mapping[str, str]) -> None:
        """Refuse a value out of range, naming it as the caller's user typed it.

        Parameters
        ----------
        names : mapping of str to str
            Each field's name in the messages: :data:`ARGUMENTS` for
            :func:`ranklens.evaluate_models`, the ``--segment-*`` options for the command line.

        Raises
        ------
        ValueError
            If ``bins`` is not an integer >= 2, ``min_rows`` or ``min_events`` not an integer
            >= 1, ``fdr`` unknown (with the closest name), ``fdr_level`` not in (0, 1) or
            ``cross`` not a boolean (the message names it by ``names``).
        """
        for field, minimum in (("bins", 2), ("min_rows", 1), ("min_events", 1)):
            value = getattr(self, field)
            integer = isinstance(value, int | np.integer) and not isinstance(value, bool)
            if not integer or value < minimum:
                raise ValueError(f"{names[field]} must be an integer >= {minimum}; got {value!r}")
        if self.fdr not in FDR_METHODS:
            raise ValueError(
                f"{names['fdr']} must be one of {', '.join(FDR_METHODS)}; got {self.fdr!r}"
                + did_you_mean(str(self.fdr), FDR_METHODS)
            )
        check_probability(self.fdr_level, names["fdr_level"])
        if not isinstance(self.cross, bool | np.bool_):
            raise ValueError(f"{names['cross']} must be True or False; got {self.cross!r}")

    def arguments(self) -> dict[str, Any]:
        """The options as :func:`ranklens.evaluate_models`' keyword arguments."""
        return {argument: getattr(self, field) for field, argument in self.ARGUMENTS.items()}

    def applied(self, settings: SegmentSettings, option: str) -> SegmentSettings:
        """``settings`` with the options that judge the slices of ``option``.

        Parameters
        ----------
        settings : SegmentSettings
            The settings every slice shares (either engine).
        option : {"by", "scan", "window"}
            ``"by"``: every option; ``"scan"``: all but ``cross`` (the search slices by each
            column alone); ``"window"``: those of :data:`WINDOW_FIELDS`.

        Returns
        -------
        SegmentSettings
        """
        fields = {
            "by": tuple(self.ARGUMENTS),
            "scan": tuple(f for f in self.ARGUMENTS if f != "cross"),
            "window": self.WINDOW_FIELDS,
        }[option]
        return dataclasses.replace(settings, **{field: getattr(self, field) for field in fields})

    def settings(self, labels: Mapping[str, Collection[str]]) -> dict[str, Any]:
        """The ``settings`` entries of an evaluation by segment (either engine).

        Parameters
        ----------
        labels : mapping
            ``{"by": names, "scan": names}``: the slicings of each option given.

        Returns
        -------
        dict
            ``by`` and ``scan`` (the slicings' names, comma separated) and every option under
            its argument's name.
        """
        out: dict[str, Any] = {option: ", ".join(columns) for option, columns in labels.items()}
        out.update(to_builtin(self.arguments()))
        return out


def segment_metrics(
    values: Mapping[str, Mapping[str, float]], models: Collection[str], *, weighted: bool
) -> list[str]:
    """The measures an evaluation by segment runs: those of
    :data:`ranklens.segments.DEFAULT_SEGMENT_METRICS` defined for every model on all the rows
    (and, with case weights, that take them).

    Parameters
    ----------
    values : dict
        ``values[model][metric]``, as :class:`ModelEvaluation` holds them.
    models : collection of str
        The models compared.
    weighted : bool
        Whether the evaluation has case weights.

    Returns
    -------
    list of str
        Registry names, in the order of :data:`~ranklens.segments.DEFAULT_SEGMENT_METRICS`.
    """
    out = []
    for metric in DEFAULT_SEGMENT_METRICS:
        if weighted and not get_metric(metric).supports_sample_weight:
            continue
        if all(math.isfinite(values.get(m, {}).get(metric, math.nan)) for m in models):
            out.append(metric)
    return out


def _sliced_results(
    labels: Mapping[str, Mapping[str, Any]],
    windows: tuple[str | int, Any] | None,
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    weight: np.ndarray | None,
    groups: Any,
    values: Mapping[str, Mapping[str, float]],
    context: Mapping[str, Any],
    *,
    n_bootstrap: int,
    random_state: Any,
    options: SegmentOptions,
    settings: dict[str, Any],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
    resampling: Mapping[str, Any],
) -> dict[str, Any]:
    """The evaluation of slices of the rows: ``{"by": SegmentEvaluation, "scan": SegmentScan,
    "window": WindowEvaluation}`` for the options given (``labels``, :func:`_checked_segments`;
    ``windows``, :func:`_checked_window`), each on the evaluated rows with the evaluation's
    weights, units, task parameters, seed, replicates and block scheme (``resampling``: the
    ``scheme`` and ``block_length`` of a block bootstrap, empty without one) and the measures
    of :func:`segment_metrics`; their settings go into ``settings`` and what stopped one is
    recorded in ``problems``.
    """
    if not labels and windows is None:
        return {}
    metrics = segment_metrics(values, preds, weighted=weight is not None)
    task: dict[str, Any] = {name: context.get(name) for name in TASK_PARAMETERS}
    shared = SegmentSettings(
        metrics=metrics,
        sample_weight=weight,
        groups=groups,
        n_bootstrap=int(n_bootstrap),
        confidence_level=0.95,  # the level of the evaluation's own intervals
        random_state=random_state,
        **task,
    )
    found: dict[str, Any] = {}
    if labels:
        settings.update(options.settings(labels))
        found.update(
            _segment_results(labels, y, preds, shared, options, resampling, problems, progress)
        )
    if windows is not None:
        window, times = windows
        settings["window"] = window
        if metrics:
            found.update(
                _window_results(
                    window, times, y, preds, shared, options, resampling, problems, progress
                )
            )
        else:
            _no_slice_metrics(problems, "evaluation over time")
    return found


def _no_slice_metrics(problems: dict[str, dict[str, Problem]], what: str) -> None:
    """Record that no measure of :data:`~ranklens.segments.DEFAULT_SEGMENT_METRICS` is defined
    for every model on all the rows, so that ``what`` could not run."""
    problems.setdefault(ALL_MODELS, {})[what] = Problem(
        "undefined",
        f"no measure of the {what} ("
        + ", ".join(DEFAULT_SEGMENT_METRICS)
        + ") is defined for every model on all the rows",
    )


def _segment_results(
    labels: Mapping[str, Mapping[str, Any]],
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    shared: SegmentSettings,
    options: SegmentOptions,
    resampling: Mapping[str, Any],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
) -> dict[str, Any]:
    """``{"by": SegmentEvaluation, "scan": SegmentScan}`` for the options given, with the
    settings ``shared`` by every slice (:func:`_sliced_results`); what stopped one is recorded
    in ``problems``.

    With a block scheme (``resampling``) each segment's bootstrap resamples blocks of
    consecutive rows of that segment, in time order, with the evaluation's scheme and its one
    block length, so that the serial dependence within a segment is kept.

    The one place where the in-memory engine evaluates by segment (the Dask engine's,
    ``ranklens.dask.by_segment`` and ``ranklens.dask.scan_segments``, are called by
    :func:`ranklens.evaluate_models` with the same settings).
    """
    if not shared.metrics:
        _no_slice_metrics(problems, "evaluation by segment")
        return {}
    out: dict[str, Any] = {}
    for option, what in (("by", "evaluation by segment"), ("scan", "segment scan")):
        columns = labels.get(option)
        if not columns:
            continue
        if progress is not None:
            progress(f"{what}: {', '.join(columns)}")
        settings = dataclasses.replace(options.applied(shared, option), **resampling)
        scan = option == "scan"
        result, problem = call_quietly(
            segment_evaluation, y, preds, dict(columns), settings, level_tests=scan
        )
        if result is not None:
            out[option] = scan_result(result) if scan else result
        if problem is not None:
            problems.setdefault(ALL_MODELS, {})[what] = problem
    return out


# --------------------------------------------------------------------------------------------
# Evaluation over time windows (``window``)


def _checked_window(
    window: Any, order: TimeOrder | None, *, n: int, n_models: int
) -> tuple[str | int, Any] | None:
    """``(window, times)``: ``window`` checked as :func:`ranklens.timeseries.by_window` will
    cut the rows, before any work, with the rows' times in time order (None without ``time``
    or with numbers for times, which a window of rows does not need); None without
    ``window``.

    Raises
    ------
    ValueError
        Naming ``window``: fewer than two models, a period that is not one, a calendar period
        without ``time`` or with numbers for times.
    """
    if window is None:
        return None
    if n_models < 2:
        raise ValueError(
            "window: the evaluation over time windows compares the models in every window; "
            f"give at least two models (got {n_models})"
        )
    times = None
    if order is not None and order.dates:
        times = order.times.iloc[order.rows].reset_index(drop=True)
    elif order is not None and isinstance(window, str):
        raise ValueError(
            f"window={window!r} is a calendar period and needs dates or times in time; got "
            "numbers (a time index): give a number of rows per window"
        )
    try:
        time_windows(times, window, n)
    except ValueError as exc:
        message = str(exc)
        if not message.startswith(("window", "time")):
            message = f"window: {message}"
        raise ValueError(message) from None
    return window, times


def _window_results(
    window: str | int,
    times: Any,
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    shared: SegmentSettings,
    options: SegmentOptions,
    resampling: Mapping[str, Any],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
) -> dict[str, Any]:
    """``{"window": WindowEvaluation}``: :func:`ranklens.timeseries.by_window` on the rows in
    time order, with the settings ``shared`` by every slice (:func:`_sliced_results`), the
    smallest window and the verdicts' rules of ``options`` (:data:`SegmentOptions.WINDOW_FIELDS`)
    and the evaluation's block scheme and its one block length; without a block scheme, the
    stationary bootstrap with each window's own block length (with ``groups``: whole units,
    as the evaluation resamples them). A failure is recorded in ``problems``."""
    blocks: dict[str, Any] = dict(resampling)
    if not blocks:
        # whole units, not blocks (by_window refuses both); else its default, the stationary
        blocks = {"scheme": "multinomial" if shared.groups is not None else "stationary"}
    if progress is not None:
        progress(f"evaluation over time windows ({window})")
    settings = dataclasses.replace(options.applied(shared, "window"), **blocks)
    result, problem = call_quietly(window_evaluation, y, preds, times, window, settings)
    if problem is not None:
        problems.setdefault(ALL_MODELS, {})["evaluation over time"] = problem
    return {} if result is None else {"window": result}


def segment_records(result: Any) -> list[dict[str, Any]]:
    """The long table of a :class:`~ranklens.segments.SegmentEvaluation` as JSON-ready records,
    every record with every column of its :meth:`~ranklens.segments.SegmentEvaluation.to_frame`
    (None where a record has no such field; NaN kept).

    Parameters
    ----------
    result : SegmentEvaluation
        An evaluation by segment.

    Returns
    -------
    list of dict
        One record per slicing, segment, measure and model.
    """
    columns = [str(c) for c in result.to_frame().columns]
    return [{c: to_builtin(record.get(c)) for c in columns} for record in result.records]


def _plain_events(events: Any) -> Any:
    """An event definition as JSON holds it: text or a number as given, else its ``repr``."""
    if events is None or isinstance(events, str | int | float):
        return events
    return repr(events)


def segments_json(evaluation: ModelEvaluation) -> dict[str, Any] | None:
    """The ``segments`` block of the JSON document (None when the evaluation has none).

    ``settings`` (the slicings, the measures, the pick of each measure, the false discovery
    rate's method and level, the confidence level, the replicates, the smallest segment with an
    interval, the events every segment counts), ``overall`` (each measure of each model on all
    the rows), ``segments`` (each slicing's segments, in order), ``n_tests``, ``records`` (the
    long table, :func:`segment_records`), ``notes``, ``summary`` (the one sentence of
    :meth:`~ranklens.segments.SegmentEvaluation.summary`) and ``scan`` (null unless scanned:
    the columns, candidates, tests, ``findings``, its own ``records`` with the level tests, and
    its sentence). Without ``by`` (a scan alone) ``records`` is empty and ``summary`` null.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    dict or None
        NaN kept (:func:`evaluation_to_json` maps it to null).
    """
    by, scan = evaluation.segments, evaluation.segment_scan
    if by is None and scan is None:
        return None
    main = by if by is not None else scan.evaluation
    block: dict[str, Any] = {
        "settings": {
            "slicings": list(by.slicings) if by is not None else [],
            "metrics": list(main.metrics),
            "picks": dict(main.picks),
            "fdr_method": main.fdr_method,
            "fdr_level": main.fdr_level,
            "confidence_level": main.confidence_level,
            "n_bootstrap": main.n_bootstrap,
            "bins": evaluation.settings.get("segment_bins"),
            "min_rows": main.min_rows,
            "min_events": main.min_events,
            "events": _plain_events(main.events),
        },
        "overall": to_builtin(main.overall),
        "segments": to_builtin(by.segments) if by is not None else {},
        "n_tests": by.n_tests if by is not None else 0,
        "records": segment_records(by) if by is not None else [],
        "notes": list(by.notes) if by is not None else [],
        "summary": by.summary() if by is not None else None,
        "scan": None,
    }
    if scan is not None:
        block["scan"] = {
            "slicings": list(scan.evaluation.slicings),
            "segments": to_builtin(scan.evaluation.segments),
            "n_candidates": scan.n_candidates,
            "n_tests": scan.n_tests,
            "findings": [to_builtin(finding) for finding in scan.findings],
            "records": segment_records(scan.evaluation),
            "notes": list(scan.evaluation.notes),
            "summary": scan.summary(),
        }
    return block


def window_records(result: Any) -> list[dict[str, Any]]:
    """The long table of a :class:`~ranklens.timeseries.WindowEvaluation` as JSON-ready records,
    every record with every column of its :meth:`~ranklens.timeseries.WindowEvaluation.to_frame`
    (the windows' bounds as ISO 8601 text; None where a record has no such field; NaN kept).

    Parameters
    ----------
    result : WindowEvaluation
        An evaluation over time windows.

    Returns
    -------
    list of dict
        One record per window, measure and model, windows in time order.
    """
    columns = [str(c) for c in result.to_frame().columns]
    return [{c: to_builtin(record.get(c)) for c in columns} for record in result.records]


def windows_json(evaluation: ModelEvaluation) -> dict[str, Any] | None:
    """The ``windows`` block of the JSON document (None when the evaluation has none).

    ``settings`` (the window asked for, its kind, unit and time zone, the measures, the pick of
    each measure, the scheme and block length of each window's bootstrap, the false discovery
    rate's method and level, the confidence level, the replicates, the smallest window with an
    interval, the events every window counts, the trend's method), ``overall`` (each measure
    of each model on all the rows), ``windows`` (one record per window, in time order: its
    name, ``index``, ``start``, ``end`` and the ``block_length`` its bootstrap drew),
    ``n_tests``, ``records`` (the long table, :func:`window_records`), ``stability`` and
    ``trends`` (per measure and model against the pick), ``notes`` and ``summary``
    (:meth:`~ranklens.timeseries.WindowEvaluation.summary`).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    dict or None
        NaN kept (:func:`evaluation_to_json` maps it to null).
    """
    result = evaluation.windows
    if result is None:
        return None
    windows = [
        {
            "window": name,
            "index": result.window_index[i],
            "start": result.window_starts[i],
            "end": result.window_ends[i],
            "block_length": result.block_lengths.get(name),
        }
        for i, name in enumerate(result.windows)
    ]
    return {
        "settings": {
            "window": result.window,
            "window_kind": result.window_kind,
            "unit": result.unit,
            "timezone": result.timezone,
            "metrics": list(result.metrics),
            "picks": dict(result.picks),
            "scheme": result.scheme,
            "block_length": to_builtin(result.block_length),
            "fdr_method": result.fdr_method,
            "fdr_level": result.fdr_level,
            "confidence_level": result.confidence_level,
            "n_bootstrap": result.n_bootstrap,
            "min_rows": result.min_rows,
            "min_events": result.min_events,
            "events": _plain_events(result.events),
            "trend_method": result.trend_method,
        },
        "overall": to_builtin(result.overall),
        "windows": to_builtin(windows),
        "n_tests": result.n_tests,
        "records": window_records(result),
        "stability": [to_builtin(record) for record in result.stability],
        "trends": [to_builtin(record) for record in result.trends],
        "notes": list(result.notes),
        "summary": result.summary(),
    }


def _checked_predictions(
    y_true: ArrayLike,
    predictions: Mapping[str, Any],
    intervals: Mapping[str, Any] | None,
    alpha: float | None,
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The truth, each model's predictions and each interval's bounds, checked against the
    truth (the messages name the model); ``alpha`` is required with intervals."""
    if not predictions and not intervals:
        raise ValueError("predictions is empty; give at least one model")
    y = as_1d_float(y_true, "y_true", min_n=2)
    preds = {
        str(k): check_pair(y, v, names=("y_true", f"predictions[{k!r}]"))[1]
        for k, v in predictions.items()
    }
    bounds: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for model, (lower, upper) in dict(intervals or {}).items():
        lo = check_pair(y, lower, names=("y_true", f"lower bound of {model!r}"))[1]
        hi = check_pair(y, upper, names=("y_true", f"upper bound of {model!r}"))[1]
        bounds[str(model)] = (lo, hi)
    if bounds and alpha is None:
        raise ValueError(
            "alpha is required with prediction intervals (a central 1 - alpha interval); got None"
        )
    return y, preds, bounds


def _run_settings(
    context: Mapping[str, Any],
    relevance_note: str | None,
    *,
    weighted: bool,
    n_bootstrap: int,
    inference: str,
    analytic: bool,
    random_state: Any,
) -> dict[str, Any]:
    """The run's settings as the report lists them: the parameters given, the default
    relevance's description, and what the intervals and tests were asked for."""
    settings = {name: v for name, v in context.items() if v is not None and name != "relevance"}
    relevance = context["relevance"]
    if relevance is not None:
        settings["relevance"] = relevance_note or repr(relevance)
    if relevance_note is not None and weighted:
        # the default box plot counts every row once; the weights weigh the measures' terms
        settings["relevance_weights"] = "unweighted"
    settings["n_bootstrap"] = int(n_bootstrap)
    if n_bootstrap or analytic:
        settings["confidence_level"] = 0.95
        settings["inference"] = inference
    if n_bootstrap:
        settings["random_state"] = random_state
    if weighted:
        settings["sample_weight"] = "given"
    return settings


def _declared_analytic_methods(
    candidates: list[Any], *, weighted: bool
) -> dict[str, tuple[str, str]]:
    """The analytic interval and test each candidate measure declares (none where it declares
    none, or none that holds with case weights)."""
    methods: dict[str, tuple[str, str]] = {}
    for spec in candidates:
        declared = _analytic_methods(spec, weighted=weighted)
        if declared is not None:
            methods[spec.name] = declared
    return methods


def _bootstrap_comparison(
    plan: BootstrapPlan,
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    weight: np.ndarray | None,
    groups: Any,
    *,
    random_state: Any,
    show_progress: bool | None,
    progress: ProgressCallback | None,
    analytic_follows: bool,
    problems: dict[str, dict[str, Problem]],
    resampling: Mapping[str, Any] | None = None,
) -> Any:
    """The bootstrap comparison of the measures the budget kept (None when it kept none); its
    time is added to the plan's, what stopped it is recorded in ``problems``. ``resampling``:
    the block scheme and its length (:func:`ranklens.compare_models`' ``scheme`` and
    ``block_length``), empty for rows resampled one by one."""
    start = time.perf_counter()
    comparison, problem = None, None
    if plan.skipped is not None:
        problem = Problem("skipped", f"time budget: {plan.skipped}")
    elif plan.metrics:
        if progress is not None:
            progress(f"bootstrap comparison ({plan.n_bootstrap} replicates)")
        comparison, problem = call_quietly(
            compare_models,
            y,
            preds,
            metrics=plan.metrics,
            n_bootstrap=plan.n_bootstrap,
            random_state=random_state,
            sample_weight=weight,
            show_progress=show_progress,
            groups=groups,
            **dict(resampling or {}),
        )
    elif not plan.left_out and not analytic_follows:
        # Nothing to resample is a property of this data, not a failure of the comparison.
        problem = Problem("skipped", "no measure is defined for every model on this data")
    plan.run_s += time.perf_counter() - start
    if problem is not None:
        problems.setdefault(ALL_MODELS, {})["bootstrap comparison"] = problem
    return comparison


def _with_analytic_inference(
    comparison: Any,
    candidates: list[Any],
    methods: dict[str, tuple[str, str]],
    plan: BootstrapPlan | None,
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    weight: np.ndarray | None,
    values: Any,
    settings: Mapping[str, Any],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
) -> Any:
    """The comparison with the analytic intervals and tests of ``methods`` added (or made of
    them alone). Analytic inference is not resampling: it runs whatever the bootstrap's budget
    did, and without replicates (n_bootstrap=0) too."""
    kept = set(methods) | ({s.name for s in plan.metrics} if plan is not None else set())
    specs = [s for s in candidates if s.name in kept]
    combined, problem = call_quietly(
        _analytic_comparison,
        comparison,
        specs,
        methods,
        y,
        preds,
        weight,
        values,
        settings.get("confidence_level", 0.95),
        progress,
    )
    if problem is not None:
        problems.setdefault(ALL_MODELS, {})["analytic intervals"] = problem
    return comparison if combined is None else combined


def _robustness_tables(
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
) -> dict[str, Any]:
    """Each model's robustness table (a failure recorded against the model)."""
    robust: dict[str, Any] = {}
    for model, pred in preds.items():
        if progress is not None:
            progress(f"{model}: robustness")
        result, problem = call_quietly(robustness_table, y, pred)
        if result is not None:
            robust[model] = result
        if problem is not None:
            problems.setdefault(model, {})["robustness table"] = problem
    return robust


def _all_curves(
    names: Sequence[str],
    y: np.ndarray,
    preds: dict[str, np.ndarray],
    bounds: dict[str, tuple[np.ndarray, np.ndarray]],
    weight: np.ndarray | None,
    context: Mapping[str, Any],
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
) -> dict[str, dict[str, Any]]:
    """The registered curves ``names`` of every model that has them on this data."""
    curve_results: dict[str, dict[str, Any]] = {}
    for name in names:
        found = _curve_results(
            get_curve(name), y, preds, bounds, weight, context, problems, progress
        )
        if found:
            curve_results[name] = found
    return curve_results


def _check_events(y: np.ndarray, events: Any, weight: np.ndarray | None) -> None:
    """A given ``events`` applied to ``y`` once, before any work: a definition that does not
    split it into events and non-events is the caller's input, refused here rather than
    recorded as every event-based measure failing."""
    if events is not None:
        check_events(y, events, sample_weight=weight)


def _check_n_bootstrap(n_bootstrap: Any) -> int:
    """``n_bootstrap``: 0 (no bootstrap) or an integer >= 2, as :func:`compare_models` takes."""
    integer = isinstance(n_bootstrap, int | np.integer) and not isinstance(n_bootstrap, bool)
    if integer and n_bootstrap == 0:
        return 0
    try:
        return check_positive_int(n_bootstrap, "n_bootstrap", minimum=2)
    except ValueError as exc:
        raise ValueError(f"{exc} (or 0 for no bootstrap)") from None


def _check_groups(groups: Any, y: np.ndarray, n_bootstrap: int) -> tuple[Any, int]:
    """``groups`` as one column of unit ids and its number of units (None and 0 without it),
    validated as the bootstrap will.

    The comparison and the bands record their own errors as problems; a bad ``groups`` is the
    caller's input, so it is refused here, before any work, with the bootstrap's own message.
    """
    if groups is None:
        return None, 0
    if not n_bootstrap:
        raise ValueError(
            "groups names the units the clustered bootstrap resamples; with n_bootstrap=0 "
            "nothing is resampled (give n_bootstrap >= 2, or leave groups out)"
        )
    from ranklens._inference.resampling import Resampler, unit_labels

    groups = unit_labels(groups)
    return groups, int(Resampler.resolve("multinomial", groups, y).n_units)


def groups_settings(column: str | None, n_units: int, inference: str) -> dict[str, Any]:
    """``settings`` entries of a clustered bootstrap (the command line's Dask engine uses it too).

    Parameters
    ----------
    column : str or None
        The units' column (None: the labels were not named).
    n_units : int
        The number of distinct units.
    inference : str
        The ``inference`` asked for: with ``"auto"`` the sentence says why the analytic
        intervals are not used.

    Returns
    -------
    dict
        ``"groups"`` (the column, else ``"given"``), ``"n_units"`` and ``"clustered bootstrap"``,
        the sentence the report and the terminal show.

    References
    ----------
    Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
    Cambridge University Press (Sect. 3.8, clustered data).
    """
    label = column if column is not None else "given"
    of = f"units of {column!r}" if column is not None else "units (groups given)"
    sentence = (
        f"every interval and paired test from a clustered bootstrap over {n_units:,} {of}: "
        "whole units resampled (Davison & Hinkley 1997, Sect. 3.8)"
    )
    if inference == "auto":
        sentence += (
            "; DeLong's and Noether's analytic intervals assume independent rows and are not "
            "used with groups"
        )
    return {"groups": label, "n_units": n_units, "clustered bootstrap": sentence}


def _default_relevance(y: np.ndarray) -> tuple[Any, str | None, Problem | None]:
    """The library's default relevance, built once from the evaluated truth.

    The utility measures default to ``relevance_from_boxplot(y_true)``; building it here once
    makes every model, every bootstrap replicate and the relevance plot use the same function
    (a replicate would otherwise re-derive it from its own resample). Returns the relevance, the
    note for ``settings`` and, when building it failed (rather than being undefined for this
    target, e.g. a constant one), the failure.
    """
    build = relevance_from_boxplot
    relevance, problem = call_quietly(build, y)
    if relevance is None:
        failed = problem is not None and problem.kind == "failed"
        return None, None, problem if failed else None
    note = "box plot of the evaluated target (default)"
    return relevance, note + (f"; {problem.message}" if problem else ""), None


def _with_context(spec: Any, context: Mapping[str, Any]) -> Any:
    """The registry entry with the task parameters bound (same name, direction and family).

    compare_models calls each measure with its defaults; binding the relevance, event threshold
    etc. makes the bootstrap measure exactly what the point values measured. A batched form that
    takes the bound parameters stays (:meth:`ranklens._foundation.registry.MetricSpec.bind`).
    """
    kwargs, skip = fit_kwargs(spec.func, 3 if spec.inputs == "interval" else 2, context)
    if skip is not None or not kwargs:
        return spec
    return spec.bind(**kwargs)


def _comparable_metrics(
    values: Mapping[str, Mapping[str, float]],
    info: Mapping[str, Mapping[str, Any]],
    preds: Mapping[str, Any],
    context: Mapping[str, Any],
    *,
    weighted: bool,
) -> list[Any]:
    """Measures the bootstrap can compare: point, row-order free, defined for every model.

    A measure that depends on the row order (``pmap``) cannot be resampled, and one that is
    undefined on the full sample would be undefined in most replicates too.
    """
    out = []
    for metric, meta in info.items():
        spec = get_metric(metric)
        if meta["inputs"] != "point" or spec.order_dependent:
            continue
        if weighted and not spec.supports_sample_weight:
            continue
        if all(math.isfinite(values[m].get(metric, math.nan)) for m in preds):
            out.append(_with_context(spec, context))
    return out


def _task_extras(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    agreement_predictions: Mapping[str, Any] | None,
    context: Mapping[str, Any],
    weight: np.ndarray | None,
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
    *,
    resamples: bool,
) -> dict[str, Any]:
    """Results about the set of models rather than one model (best by depth, agreement, the
    decomposition of the mean squared error; the reliability diagram's consistency band only
    when the run ``resamples``)."""
    extras: dict[str, Any] = {}
    candidates = dict(agreement_predictions) if agreement_predictions else dict(preds)
    rankings = compare_metric_rankings
    if len(candidates) >= _MIN_AGREEMENT_MODELS:
        if progress is not None:
            progress(f"ranking {len(candidates)} models by every measure")
        metrics = _agreement_metrics(y, candidates, context, problems, scored=preds.keys())
        if len(metrics) >= 2:
            top_k = min(10, len(candidates) // 3 or 1)
            # Bound registry entries carry the task's relevance etc.; by name, each measure
            # would use its defaults (e.g. a relevance derived from the test targets).
            result, problem = call_quietly(rankings, y, candidates, metrics=metrics, top_k=top_k)
            if result is not None:
                extras["metric_agreement"] = result
            if problem is not None:
                problems.setdefault(ALL_MODELS, {})["metric agreement"] = problem
    best = best_model_by_depth
    if len(preds) >= 2:
        kwargs = {"events": context["events"]} if context.get("events") is not None else {}
        if weight is not None:
            kwargs["sample_weight"] = weight
        result, problem = call_quietly(best, y, dict(preds), **kwargs)
        if result is not None:
            extras["best_model_by_depth"] = result
        if problem is not None:
            problems.setdefault(ALL_MODELS, {})["best model by depth"] = problem
    band_resamples = _RELIABILITY_BAND_RESAMPLES if resamples else 0
    with shared_results():  # the table and the diagrams share each model's fit
        calibration = _calibration_extras(y, preds, weight, problems, band_resamples)
    if calibration is not None:
        extras["calibration"] = calibration
    return extras


#: Resamples behind the reliability diagram's consistency band (drawn for one model only, in a
#: run that resamples: ``n_bootstrap=0`` draws none).
_RELIABILITY_BAND_RESAMPLES = 200


def _calibration_extras(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    weight: np.ndarray | None,
    problems: dict[str, dict[str, Problem]],
    band_resamples: int,
) -> dict[str, Any] | None:
    """The CORP decomposition of every model's mean squared error and its reliability
    diagram, for the report's Size of the errors section (None when it could not be made).

    ``{"table": ScoreDecompositionTable, "diagrams": {model: ReliabilityDiagramResult},
    "band_model": str or None}``: the consistency band is drawn for ``band_model`` only, the
    model with the lowest mean squared error (bands for every model would hide the curves),
    from ``band_resamples`` resamples with a fixed seed, so that the report is the same on
    every run and the comparison's random stream is left as it was; with ``band_resamples=0``
    (a run without resampling) no model has a band and ``band_model`` is None. A failure is
    recorded under ``problems[ALL_MODELS]["calibration"]``.
    """
    if not preds:
        return None
    table, problem = call_quietly(
        score_decompositions, y, dict(preds), sample_weight=weight, score="squared_error"
    )
    if table is None:
        if problem is not None:
            problems.setdefault(ALL_MODELS, {})["calibration"] = problem
        return None
    best = table.models[int(np.argmin(table.mean_score))]
    band_model = best if band_resamples > 0 else None
    diagrams: dict[str, Any] = {}
    for model, pred in preds.items():
        n_bootstrap = band_resamples if model == band_model else 0
        diagram, problem = call_quietly(
            reliability_diagram,
            y,
            pred,
            sample_weight=weight,
            n_bootstrap=n_bootstrap,
            random_state=0,
        )
        if problem is not None:
            problems.setdefault(ALL_MODELS, {})[f"reliability diagram of {model}"] = problem
        if diagram is not None:
            diagrams[model] = diagram
    return {"table": table, "diagrams": diagrams, "band_model": band_model}


#: Fewer models than this make a ranking-agreement scatter meaningless.
_MIN_AGREEMENT_MODELS = 5


def _agreement_metrics(
    y: np.ndarray,
    candidates: Mapping[str, Any],
    context: Mapping[str, Any],
    problems: dict[str, dict[str, Problem]],
    scored: Collection[str] = (),
) -> list[Any]:
    """Registry entries (task parameters bound) that can rank the candidates.

    A measure qualifies when it is a row-order free point measure, never raises for any
    candidate, and is finite for at least two of them (an undefined score ranks last, Torgo &
    Ribeiro 2009). A measure that fails for a candidate is left out and its failure recorded
    under that candidate, unless the candidate is one of the ``scored`` models, whose failures
    the measures table records already.
    """
    out = []
    for name in available_metrics(inputs="point"):
        spec = _with_context(get_spec(name), {**context, "alpha": None})
        if spec.order_dependent or spec.direction == "neutral":
            continue
        finite = 0
        for candidate, pred in candidates.items():
            value, problem = call_quietly(spec.func, y, pred)
            if value is None:  # raised: the measure does not apply to this task, or failed
                if problem is not None and problem.kind == "failed" and candidate not in scored:
                    problems.setdefault(candidate, {})[f"{name} (metric agreement)"] = problem
                finite = -1
                break
            finite += math.isfinite(as_float(value))
        if finite >= 2:
            out.append(spec)
    return out


def get_spec(name: str) -> Any:
    """The registry entry of ``name`` (:func:`ranklens.metrics.get_metric`)."""
    return get_metric(name)


def _bootstrap_plan(
    y: np.ndarray,
    candidates: list[Any],
    info: Mapping[str, Mapping[str, Any]],
    preds: Mapping[str, np.ndarray],
    context: Mapping[str, Any],
    weight: np.ndarray | None,
    *,
    n_bootstrap: int,
    budget_s: float,
    bands: bool = True,
    progress: ProgressCallback | None = None,
) -> BootstrapPlan:
    """The measures, replicates and bands of the bootstrap that fit ``budget_s`` seconds.

    ``candidates`` are the measures that need replicates (:func:`_comparable_metrics`, less
    those whose intervals and tests are all analytic): no replicate is timed or spent on the
    others.

    :func:`ranklens._engines.budget.plan_bootstrap` compiles every kernel on a sample of the rows
    that takes the real run's route first (not counted), then times the parts on samples of the rows
    within a share of the budget (``progress`` hears each step) and fits the budget by
    priority: the measures
    the comparison engine evaluates on a vectorised kernel, the headline measures of Rosset et
    al. (2005, Table 2: :data:`ranklens.compare.DEFAULT_COMPARISON_METRICS`) among them, with
    fewer replicates if they do not fit; then the bands of :data:`BAND_CURVES`; then every other
    measure, called once per replicate and model, cheapest first. What it reduced or skipped is
    in :meth:`~ranklens._engines.budget.BootstrapPlan.notes`.
    """
    band_curves = BAND_CURVES if bands and n_bootstrap >= 2 else ()
    band_kwargs = {
        curve: {"events": context["events"]}
        for curve in band_curves
        if curve in ("gain", "lift") and context.get("events")
    }
    plan = plan_bootstrap(
        y,
        preds,
        candidates,
        weight,
        n_bootstrap=n_bootstrap,
        budget_s=budget_s,
        headline=DEFAULT_COMPARISON_METRICS,
        band_curves=band_curves,
        band_kwargs=band_kwargs,
        progress=progress,
    )
    order = {name: k for k, name in enumerate(info)}
    plan.metrics.sort(key=lambda spec: order.get(spec.name, len(order)))
    return plan


def _analytic_methods(spec: Any, *, weighted: bool) -> tuple[str, str] | None:
    """``(interval method, test method)`` a measure's registry entry declares, else None.

    Read from its capabilities, never its name: a concordance form gives DeLong's interval and
    paired test (weights enter as sampling weights); an analytic variance gives its interval for
    unweighted data (case weights define no number of observations), the paired test staying
    the bootstrap's. A measure with task parameters bound has no capabilities (they describe the
    function with its defaults), so it is bootstrapped.
    """
    caps = spec.capabilities
    if caps.delong is not None:
        return "delong", "delong"
    if caps.variance is not None and not weighted:
        name = caps.variance.method if isinstance(caps.variance, AnalyticVariance) else "analytic"
        return name, "bootstrap"
    return None


def _needs_bootstrap(methods: tuple[str, str] | None, n_models: int) -> bool:
    """Whether a measure still needs replicates: for its interval, or for its paired tests."""
    return methods is None or (methods[1] == "bootstrap" and n_models >= 2)


def _analytic_comparison(
    boot: ComparisonResult | None,
    specs: list[Any],
    methods: Mapping[str, tuple[str, str]],
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    weight: np.ndarray | None,
    values: Mapping[str, Mapping[str, float]],
    level: float,
    progress: ProgressCallback | None = None,
) -> EvaluationComparison:
    """The bootstrap comparison with each measure's analytic inference in place of its own.

    ``specs`` are the compared measures in display order (those the bootstrap ran and those with
    analytic inference). DeLong's rows come from :func:`ranklens.compare_models` with
    ``method="delong"``; an analytic variance's interval is ``value -+ z sqrt(unbiased)``
    clipped to its ``bounds`` (as :meth:`ranklens.RankingSummary.confidence_interval` for
    Kendall's tau); everything else is the bootstrap's.
    """
    from ranklens._foundation.normal import ndtri

    names = tuple(preds)
    n_metrics, n_models = len(specs), len(names)
    pair_index = list(itertools.combinations(range(n_models), 2))
    n_pairs = len(pair_index)
    delong_specs = [s for s in specs if methods.get(s.name, ("", ""))[1] == "delong"]
    delong = None
    steps = len(names) + 1  # DeLong's comparison, then each model's analytic variances
    if progress is not None:
        progress(f"analytic intervals and tests (1/{steps}): DeLong")
    if delong_specs:
        delong = compare_models(
            y,
            dict(preds),
            metrics=delong_specs,
            method="delong",
            sample_weight=weight,
            confidence_level=level,
        )
    n_boot = boot.n_bootstrap if boot is not None else 0

    def nan(shape: tuple[int, ...]) -> np.ndarray:
        return np.full(shape, math.nan)

    per_model = (
        "values",
        "std_error",
        "ci_lower",
        "ci_upper",
        "variance_plug_in",
        "variance_unbiased",
    )
    per_pair = (
        "difference",
        "difference_sd",
        "z",
        "p_value",
        "p_value_one_sided",
        "difference_ci_lower",
        "difference_ci_upper",
    )
    out: dict[str, Any] = {name: nan((n_metrics, n_models)) for name in per_model}
    out.update({name: nan((n_metrics, n_pairs)) for name in per_pair})
    n_undefined = np.zeros((n_metrics, n_models), dtype=np.int64)
    replicates = nan((n_boot, n_metrics, n_models))
    # the studentized pairs' t* and standard errors (the report's bootstrap-t tests)
    difference_se = nan((n_metrics, n_pairs))
    studentized = nan((n_boot, n_metrics, n_pairs))
    evaluation: list[str] = []
    interval_of: list[str] = []
    test_of: list[str] = []
    references: dict[str, str] = {}
    qualified = IntervalQualifiers(n_metrics, n_models, n_pairs)
    # the class sizes of each measure, where its comparison counted them (planning reads them)
    classes: dict[str, list[Any]] = {"n_events": [], "n_non_events": []}
    z_level = float(ndtri(0.5 + level / 2))
    for k, spec in enumerate(specs):
        interval_method, test_method = methods.get(spec.name, ("", "bootstrap"))
        source: Any = None
        if test_method == "delong" and delong is not None:
            source = delong
        elif boot is not None and spec.name in boot.metrics:
            source = boot
        for field, counts in classes.items():
            own = () if source is None else getattr(source, field, ())
            j = -1 if source is None else source.metrics.index(spec.name)
            counts.append(own[j] if 0 <= j < len(own) else None)
        if source is not None:
            j = source.metrics.index(spec.name)
            for name in (*per_model, *per_pair):
                out[name][k] = getattr(source, name)[j]
            n_undefined[k] = source.n_undefined[j]
            if source is boot:
                replicates[:, k] = boot.replicates[:, j]
                if boot.difference_se.shape[0] > j:
                    difference_se[k] = boot.difference_se[j]
                    studentized[:, k] = boot.studentized_replicates[:, j]
            evaluation.append(source.evaluation[j])
            qualified.take(k, source, j)
        else:  # an analytic interval, not resampled: its pairs are not tested
            out["values"][k] = [values[m][spec.name] for m in names]
            out["difference"][k] = [
                out["values"][k, a] - out["values"][k, b] for a, b in pair_index
            ]
            test_method = ""
            evaluation.append("analytic")
        if interval_method == "delong" or not interval_method:
            default = interval_method or f"bootstrap-{getattr(boot, 'interval', '')}"
            interval_of.append(qualified.method(k, default))
        else:
            variance = spec.capabilities.variance
            low, high = getattr(variance, "bounds", (-math.inf, math.inf))
            for m, model in enumerate(names):
                if progress is not None:
                    progress(f"analytic intervals and tests ({m + 2}/{steps}): {model}")
                with warnings.catch_warnings():
                    # an undefined value was already reported by its point estimate
                    warnings.simplefilter("ignore", RanklensWarning)
                    plug_in, unbiased = variance(y, preds[model])
                value = float(out["values"][k, m])
                se = math.sqrt(unbiased) if math.isfinite(unbiased) and unbiased >= 0 else math.nan
                defined = math.isfinite(value) and math.isfinite(se)
                out["variance_plug_in"][k, m] = plug_in
                out["variance_unbiased"][k, m] = unbiased
                out["std_error"][k, m] = se
                out["ci_lower"][k, m] = max(low, value - z_level * se) if defined else math.nan
                out["ci_upper"][k, m] = min(high, value + z_level * se) if defined else math.nan
                own = getattr(variance, "interval", None)
                if own is not None and defined:  # the measure's own interval (tau: Fisher's z)
                    own_low, own_high, interval_method, approximate, reason = own(
                        value, unbiased, int(y.shape[0]), level
                    )
                    out["ci_lower"][k, m], out["ci_upper"][k, m] = own_low, own_high
                    qualified.flag(k, m, approximate, reason)
            interval_of.append(interval_method)
            if isinstance(variance, AnalyticVariance):
                own_reference = variance.interval_reference if variance.interval else ""
                references[interval_method] = own_reference or variance.reference
        test_of.append(test_method)
    return EvaluationComparison(
        models=names,
        metrics=tuple(s.name for s in specs),
        higher_is_better=tuple(s.higher_is_better for s in specs),
        targets=tuple(s.target_value() for s in specs),
        pairs=tuple((names[a], names[b]) for a, b in pair_index),
        **out,
        n_undefined=n_undefined,
        evaluation=tuple(evaluation),
        interval=boot.interval if boot is not None else "none",
        n_bootstrap=n_boot,
        confidence_level=level,
        replicates=replicates,
        interval_methods=tuple(interval_of),
        test_methods=tuple(test_of),
        references=references,
        difference_se=difference_se,
        studentized_replicates=studentized,
        n_units=_rows_compared(boot, delong, y, weight),
        n_events=tuple(classes["n_events"]),
        n_non_events=tuple(classes["n_non_events"]),
        **qualified.fields(),
    )


def _rows_compared(boot: Any, delong: Any, y: np.ndarray, weight: np.ndarray | None) -> int:
    """The units the comparison resampled (rows, or the clusters of ``groups``): the
    bootstrap's or DeLong's count, else the rows of positive weight."""
    for source in (boot, delong):
        count = 0 if source is None else int(source.n_units)
        if count:
            return count
    return int(y.shape[0] if weight is None else np.count_nonzero(weight > 0))


class IntervalQualifiers:
    """Per measure of an evaluation's comparison, the difference's interval method and the
    ``approximate`` flags and notes, taken from the result each row came from."""

    def __init__(self, n_metrics: int, n_models: int, n_pairs: int) -> None:
        self.approximate = np.zeros((n_metrics, n_models), dtype=bool)
        self.difference_approximate = np.zeros((n_metrics, n_pairs), dtype=bool)
        self.notes = [""] * n_metrics
        self.methods = [""] * n_metrics
        self.difference_methods = [""] * n_metrics

    def take(self, k: int, source: Any, j: int) -> None:
        """Row ``k`` from row ``j`` of ``source`` (a comparison result)."""
        for name, mine in (
            ("interval_methods", self.methods),
            ("difference_interval_methods", self.difference_methods),
            ("interval_notes", self.notes),
        ):
            theirs = getattr(source, name, ())
            mine[k] = str(theirs[j]) if j < len(theirs) else ""
        for name in ("approximate", "difference_approximate"):
            theirs = np.asarray(getattr(source, name, np.zeros((0, 0))), dtype=bool)
            if theirs.ndim == 2 and theirs.shape[0] > j:
                getattr(self, name)[k] = theirs[j]

    def method(self, k: int, default: str) -> str:
        return self.methods[k] or default

    def flag(self, k: int, m: int, approximate: bool, reason: str) -> None:
        """Model ``m``'s interval of measure ``k`` is approximate (``reason``)."""
        if approximate:
            self.approximate[k, m] = True
            if reason and reason not in self.notes[k]:
                self.notes[k] = "; ".join(filter(None, [self.notes[k], f"approximate: {reason}"]))

    def fields(self) -> dict[str, Any]:
        return {
            "difference_interval_methods": tuple(self.difference_methods),
            "approximate": self.approximate,
            "difference_approximate": self.difference_approximate,
            "interval_notes": tuple(self.notes),
        }


#: The depth of the counts at depth without a budget: the top 10 % by score, the depth of the
#: headline lift and precision.
HEADLINE_DEPTH = 0.10


def counts_at_depth(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    weight: np.ndarray | None,
    budget_depth: float | None,
    problems: dict[str, dict[str, Problem]],
) -> dict[str, Any] | None:
    """Each model's precision, recall and 2x2 counts when the top of the cases by score is
    targeted, for a 0/1 target (:func:`ranklens.classification.confusion_at_depth`).

    The depth is the budget's (the share of the cases it pays for) when there is one, else
    :data:`HEADLINE_DEPTH`. A model whose counts cannot be made gets a problem under
    ``"counts at depth"`` and no entry.

    Parameters
    ----------
    y : ndarray of shape (n,)
        The 0/1 target.
    preds : mapping of str to ndarray
        Each model's scores.
    weight : ndarray or None
        Case weights (the counts are then weighted).
    budget_depth : float or None
        The budget's depth, from the profit curves.
    problems : dict
        Where a failure is recorded.

    Returns
    -------
    dict or None
        ``{"depth", "basis" ("budget" or "default"), "models": {model: {"precision", "recall",
        "true_positives", "false_positives", "false_negatives", "true_negatives"}}}``; None
        when no model has counts.
    """
    depth, basis = counts_depth(budget_depth)
    kwargs = {} if weight is None else {"sample_weight": weight}
    models: dict[str, dict[str, float]] = {}
    for model, p in preds.items():
        counts, problem = call_quietly(confusion_at_depth, y, p, depth=depth, **kwargs)
        if problem is not None:
            problems.setdefault(model, {})["counts at depth"] = problem
        if counts is None:
            continue
        models[model] = {field: float(getattr(counts, field)) for field in CONFUSION_FIELDS}
    if not models:
        return None
    return {"depth": depth, "basis": basis, "models": models}


def counts_depth(budget_depth: float | None) -> tuple[float, str]:
    """The depth of the counts at depth (:func:`counts_at_depth`) and its basis: the budget's
    depth, clipped to [0, 1], when there is one (``"budget"``), else :data:`HEADLINE_DEPTH`
    (``"default"``); every engine chooses it here.

    Parameters
    ----------
    budget_depth : float or None
        The budget's depth, from the profit curves (:func:`depth_of_budget`).

    Returns
    -------
    depth : float
        The share of the (weighted) cases targeted.
    basis : str
        ``"budget"`` or ``"default"``.
    """
    if budget_depth is None:
        return HEADLINE_DEPTH, "default"
    return min(max(float(budget_depth), 0.0), 1.0), "budget"


def at_depth_json(evaluation: ModelEvaluation) -> dict[str, Any] | None:
    """The ``at_depth`` block of the JSON document: each model's precision, recall and 2x2
    counts at the budget's depth (or :data:`HEADLINE_DEPTH`) for a 0/1 target
    (:func:`counts_at_depth`); None for any other target.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    dict or None
        A copy of ``evaluation.extras["at_depth"]``.
    """
    block = evaluation.extras.get("at_depth")
    if not isinstance(block, dict):
        return None
    return {
        "depth": float(block["depth"]),
        "basis": str(block["basis"]),
        "models": {m: dict(v) for m, v in block["models"].items()},
    }


def depth_of_budget(profits: Mapping[str, Any] | None) -> float | None:
    """The share of cases the budget pays for, from the profit curves (their ``max_targets``
    over their total weight: the profit plot's budget line); None without a budget.

    Parameters
    ----------
    profits : mapping of str to ProfitCurveResult, or None
        Each model's profit curve (:func:`ranklens.profit_curve`), as an engine built them.

    Returns
    -------
    float or None
        ``min(max_targets, W) / W`` of the first curve with a budget (``W`` its total
        weight), or None.
    """
    for curve in (profits or {}).values():
        k = getattr(curve, "max_targets", None)
        total = getattr(curve, "n_targeted", None)
        if k is not None and total is not None and len(total) and float(total[-1]) > 0:
            return min(float(k), float(total[-1])) / float(total[-1])
    return None


#: The depths of the gain bands: every whole percent, and the budget's depth when there is one
#: (so that the report compares the models at exactly the depth the budget pays for).
_GAIN_GRID = np.round(np.arange(1, 101) / 100.0, 2)


def _bands(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    weight: np.ndarray | None,
    events: Any,
    plan: BootstrapPlan,
    random_state: Any,
    show_progress: bool | None,
    problems: dict[str, dict[str, Problem]],
    progress: ProgressCallback | None,
    groups: ArrayLike | None = None,
    resampling: Mapping[str, Any] | None = None,
    budget_depth: float | None = None,
    value_profit: bool = False,
) -> dict[str, Any]:
    """Bootstrap bands of the curves the plan kept (same replicates, and the same scheme, as
    the comparison); the gain's grid holds the budget's depth too (``budget_depth``). When the
    profit is a margin on the value reached (``value_profit``), the gain of value at the
    budget's depth alone is added as ``"budget_value_gain"``: at one depth it orders the
    models as their profit does, and the report's recommendation compares them on it."""
    band_func = curve_bands
    bands: dict[str, Any] = {}
    start = time.perf_counter()
    runs: list[tuple[str, str, dict[str, Any]]] = []
    depth = budget_depth if budget_depth is not None and 0.0 < budget_depth <= 1.0 else None
    for curve in plan.bands:
        kwargs: dict[str, Any] = {"events": events} if curve in ("gain", "lift") and events else {}
        if curve == "gain" and depth is not None:
            grid = _GAIN_GRID[np.abs(_GAIN_GRID - depth) > 1e-9]
            kwargs["grid"] = np.sort(np.append(grid, depth))
        runs.append((curve, curve, kwargs))
    if depth is not None and value_profit and "gain" in plan.bands:
        runs.append(("budget_value_gain", "gain", {"events": "value", "grid": np.array([depth])}))
    for name, curve, kwargs in runs:
        if progress is not None:
            progress(f"bootstrap bands of the {name.replace('_', ' ')} curve")
        result, problem = call_quietly(
            band_func,
            y,
            preds,
            curve=curve,
            n_bootstrap=plan.n_bootstrap,
            random_state=random_state,
            sample_weight=weight,
            show_progress=show_progress,
            **({"groups": groups} if groups is not None else {}),
            **dict(resampling or {}),
            **kwargs,
        )
        if result is not None:
            bands[name] = result
        if problem is not None:
            problems.setdefault(ALL_MODELS, {})[f"{name.replace('_', ' ')} bands"] = problem
    plan.run_s += time.perf_counter() - start
    return bands
