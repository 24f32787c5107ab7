"""ranklens: evaluate regression and scoring models the way they are used.

To rank (Rosset, Perlich & Zadrozny), to target (profit, gain and lift curves), to catch rare
extremes (Torgo & Ribeiro's utility-based precision and recall) and to bound uncertainty (interval
scores, bootstrap comparisons). Every public function takes ``(y_true, y_pred, *, ...)`` like
scikit-learn and accepts NumPy, pandas or polars inputs.

``import ranklens`` imports nothing heavy: each public name is looked up in :data:`_EXPORTS` and its
module (with NumPy, SciPy, numba and the module's kernels) is imported on first use, so a script
that needs the ranking measures never pays for pandas, the bootstrap or the curves.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ranklens.exceptions import RanklensWarning as RanklensWarning
from ranklens.exceptions import RowAlignmentWarning as RowAlignmentWarning
from ranklens.exceptions import UndefinedMetricWarning as UndefinedMetricWarning

__version__ = "0.1.0"

#: Public names by module (each module's own ``__all__``; ``tests/common/test_first_contact.py``
#: checks that they agree). A name missing here is still found: the lookup falls back to importing
#: every module.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "agreement": (
        "MetricRankingComparisonResult",
        "RankingAgreementResult",
        "compare_metric_rankings",
        "ranking_agreement",
    ),
    "bands": (
        "CurveBandsResult",
        "curve_bands",
    ),
    "calibration": (
        "DECOMPOSITION_SCORES",
        "ReliabilityDiagramResult",
        "ScoreDecomposition",
        "ScoreDecompositionTable",
        "discrimination",
        "isotonic_recalibration",
        "miscalibration",
        "reliability_diagram",
        "score_decomposition",
        "score_decompositions",
    ),
    "classification": (
        "LOG_LOSS_EPS",
        "ConfusionCounts",
        "PrecisionRecallCurveResult",
        "average_precision_score",
        "binary_target",
        "brier_score_loss",
        "confusion_at_depth",
        "event_label",
        "log_loss",
        "precision_at_5",
        "precision_at_10",
        "precision_at_20",
        "precision_at_depth",
        "precision_recall_curve",
        "probability_scores",
        "recall_at_5",
        "recall_at_10",
        "recall_at_20",
        "recall_at_depth",
    ),
    "compare": (
        "ComparisonResult",
        "DEFAULT_COMPARISON_METRICS",
        "DeLongComparisonResult",
        "DieboldMarianoComparisonResult",
        "PermutationTestResult",
        "compare_models",
    ),
    "delong": (
        "DeLongIntervalResult",
        "DeLongTestResult",
        "concordance_interval",
        "delong_interval",
        "delong_test",
    ),
    "planning": (
        "PowerAnalysisResult",
        "RocSampleSizeResult",
        "detectable_difference",
        "required_sample_size",
        "roc_auc_sample_size",
    ),
    "segments": (
        "DEFAULT_SEGMENT_METRICS",
        "MISSING_SEGMENT",
        "SegmentEvaluation",
        "SegmentScan",
        "by_segment",
        "scan_segments",
    ),
    "timeseries": (
        "DieboldMarianoTestResult",
        "WindowEvaluation",
        "by_window",
        "diebold_mariano_test",
    ),
    "targeting": (
        "DEFAULT_EVENTS",
        "ConfusionCounts",
        "DecileTableResult",
        "GainCurveResult",
        "LiftCurveResult",
        "ModelByDepthResult",
        "ProfitCurveResult",
        "PrecisionRecallCurveResult",
        "RocCurveResult",
        "accuracy_ratio",
        "average_precision_score",
        "best_model_by_depth",
        "confusion_at_depth",
        "decile_table",
        "gain_area",
        "gain_curve",
        "ks_statistic",
        "lift_at_10",
        "lift_at_20",
        "lift_at_5",
        "lift_curve",
        "partial_roc_auc",
        "precision_at_10",
        "precision_at_20",
        "precision_at_5",
        "precision_at_depth",
        "precision_recall_curve",
        "profit_curve",
        "recall_at_10",
        "recall_at_20",
        "recall_at_5",
        "recall_at_depth",
        "roc_auc",
        "roc_curve",
    ),
    "evaluation": (
        "EvaluationComparison",
        "ModelEvaluation",
        "Problem",
        "evaluation_to_json",
    ),
    # the one entry point of both engines, beside the pipeline (ranklens._engines.entry says why)
    "_engines.entry": ("evaluate_models",),
    "intervals": (
        "CoverageByBinResult",
        "CoverageLevelWarning",
        "IntervalScoreResult",
        "OrderedIntervalsResult",
        "interval_coverage",
        "interval_coverage_by_bin",
        "interval_coverage_error",
        "interval_score",
        "interval_score_decomposition",
        "interval_score_per_observation",
        "intervals_by_prediction",
        "mean_interval_width",
        "weighted_interval_score",
        "weighted_interval_score_decomposition",
        "weighted_interval_score_from_quantiles",
    ),
    "listwise": (
        "GroupedNDCGResult",
        "ndcg_by_group",
        "ndcg_score",
        "rank_distance_ndcg",
    ),
    "ranking": (
        "ConcordanceProfileResult",
        "CutoffAUCResult",
        "PairCountsResult",
        "PartialRankingResult",
        "RankLiftResult",
        "RankingSummary",
        "concordance_profile",
        "cutoff_auc_curve",
        "goodman_kruskal_gamma",
        "kendall_tau",
        "partial_kendall_tau",
        "partial_spearman_rho",
        "per_observation_pair_counts",
        "rank_lift_curve",
        "ranking_summary",
        "rho_normalized",
        "somers_d",
        "spearman_rho",
        "tau_confidence_interval",
        "tau_normalized",
    ),
    "relevance": (
        "BoxplotStatsResult",
        "ControlPointRelevance",
        "NoExtremesWarning",
        "Relevance",
        "SigmoidRelevance",
        "boxplot_stats",
        "medcouple",
        "relevance_from_boxplot",
    ),
    "residual": (
        "RECCurveResult",
        "RROCCurveResult",
        "rec_curve",
        "rroc_curve",
        "epsilon_insensitive_loss",
        "linlin_loss",
        "log_rmse",
        "mean_absolute_error",
        "mean_squared_error",
        "median_absolute_error",
        "pmap",
        "prmspe",
        "rmspe",
        "root_mean_squared_error",
    ),
    "robustness": (
        "BreakdownResult",
        "InfluenceResult",
        "RobustnessTableResult",
        "breakdown_curve",
        "most_influential",
        "proposition2_bound",
        "robustness_table",
    ),
    "extremes": (
        "RegressionFBetaCurveResult",
        "RegressionPrecisionRecallCurveResult",
        "RegressionPrecisionRecallResult",
        "SeraCurveResult",
        "SmoothAccuracy",
        "StepAccuracy",
        "regression_f_beta_curve",
        "regression_precision_recall",
        "regression_precision_recall_curve",
        "relevance_weighted_absolute_error",
        "relevance_weighted_error",
        "relevance_weighted_squared_error",
        "sera",
        "sera_curve",
        "smooth_accuracy",
        "step_accuracy",
        "utility_f1",
        "utility_precision",
        "utility_recall",
    ),
    "metrics": (
        "available_metrics",
        "get_metric",
    ),
    # the shared result types: scipy-style interval tuple, the curve protocol, the base class
    "_foundation.results": (
        "ConfidenceInterval",
        "CurveResult",
        "Result",
    ),
}

#: The submodules reachable as attributes (``ranklens.ranking``) without an explicit import.
_SUBMODULES = (
    *(m for m in _EXPORTS if m != "metrics" and not m.startswith("_")),
    "metrics",
)

_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

if TYPE_CHECKING:  # static tools see the eager imports
    from ranklens._engines.entry import evaluate_models as evaluate_models
    from ranklens._foundation.results import ConfidenceInterval as ConfidenceInterval
    from ranklens._foundation.results import CurveResult as CurveResult
    from ranklens._foundation.results import Result as Result
    from ranklens.agreement import *  # noqa: F403
    from ranklens.bands import *  # noqa: F403
    from ranklens.calibration import *  # noqa: F403
    from ranklens.classification import *  # noqa: F403
    from ranklens.compare import *  # noqa: F403
    from ranklens.evaluation import EvaluationComparison as EvaluationComparison
    from ranklens.evaluation import ModelEvaluation as ModelEvaluation
    from ranklens.evaluation import Problem as Problem
    from ranklens.evaluation import evaluation_to_json as evaluation_to_json
    from ranklens.extremes import *  # noqa: F403
    from ranklens.intervals import *  # noqa: F403
    from ranklens.listwise import *  # noqa: F403
    from ranklens.metrics import available_metrics as available_metrics
    from ranklens.metrics import get_metric as get_metric
    from ranklens.planning import *  # noqa: F403
    from ranklens.ranking import *  # noqa: F403
    from ranklens.relevance import *  # noqa: F403
    from ranklens.residual import *  # noqa: F403
    from ranklens.robustness import *  # noqa: F403
    from ranklens.segments import *  # noqa: F403
    from ranklens.targeting import *  # noqa: F403
    from ranklens.timeseries import *  # noqa: F403


def _public_names() -> list[str]:
    """Every public name, from the modules themselves (imports all of them)."""
    names = {"RanklensWarning", "RowAlignmentWarning", "UndefinedMetricWarning", "__version__"}
    for module in _EXPORTS:
        names.update(_EXPORTS[module] if module == "metrics" else _module(module).__all__)
    return sorted(names)


def _module(name: str) -> Any:
    return importlib.import_module(f"ranklens.{name}")


def __getattr__(name: str) -> Any:
    """Import the module behind a public name on first use (PEP 562), and keep the name."""
    if name == "__all__":
        value: Any = _public_names()
    elif name in _WHERE:
        value = getattr(_module(_WHERE[name]), name)
    elif name in _SUBMODULES:
        value = _module(name)
    elif name.startswith("_"):
        # A private name is never exported: "from ranklens import _module" then imports the
        # submodule, without importing every module first (one of them may be the module
        # whose import is under way, as when ranklens.evaluation imports ranklens._engines.budget).
        raise AttributeError(f"module 'ranklens' has no attribute {name!r}")
    else:
        # A name added to a module but not yet to _EXPORTS: look through every module.
        for module in _EXPORTS:
            if name in getattr(_module(module), "__all__", ()):
                value = getattr(_module(module), name)
                break
        else:
            raise AttributeError(f"module 'ranklens' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_SUBMODULES})
