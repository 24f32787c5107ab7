"""Calibration against discrimination in the report: the decomposition of each model's mean
squared error, its reliability diagram, and the Summary's sentence.

The pipeline computes the decomposition and the diagrams (``evaluation.extras["calibration"]``,
:func:`ranklens.calibration.score_decompositions` and
:func:`ranklens.calibration.reliability_diagram`); this module only shows them.
:func:`decomposition_table` is the table of the Size of the errors section,
:func:`ranklens.report.diagnostics.reliability_view` its plot and :func:`calibration_sentence`
the Summary's sentence, which reads the paired intervals of the ``miscalibration`` and
``discrimination`` differences in the evaluation's comparison.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ranklens.report.tables import Cell, Row, Table, format_number, number_style
from ranklens.report.tables import header as _header

__all__ = [
    "calibration_lead",
    "calibration_sentence",
    "decomposition_table",
    "paired_difference",
]


def _calibration(evaluation: Any) -> dict[str, Any] | None:
    extras = getattr(evaluation, "extras", None) or {}
    block = extras.get("calibration")
    return block if isinstance(block, dict) and block.get("table") is not None else None


def decomposition_table(evaluation: Any) -> Table | None:
    """Each model's mean squared error as miscalibration - discrimination + uncertainty.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    Table or None
        One row per model; None when the evaluation has no decomposition.
    """
    block = _calibration(evaluation)
    if block is None:
        return None
    table = block["table"]
    columns = [table.mean_score, table.mcb, table.dsc, table.unc]
    best_score = int(np.argmin(table.mean_score))
    best_dsc = int(np.argmax(table.dsc))
    styles = [number_style(values) for values in columns]  # one notation per column
    rows = []
    for m, model in enumerate(table.models):
        cells = [Cell(model, css="text")]
        for k, values in enumerate(columns):
            best = (k == 0 and m == best_score) or (k == 2 and m == best_dsc)
            cells.append(Cell(styles[k](values[m]), css="best" if best else ""))
        rows.append(Row(cells=cells))
    header = _header(
        "model",
        ("mean squared error", "= miscalibration - discrimination + uncertainty"),
        (
            "miscalibration",
            "what a monotone recalibration would remove (lower is better)",
        ),
        (
            "discrimination",
            "how far the recalibrated predictions improve on the best constant (higher is better)",
        ),
        ("uncertainty", "the error of the best constant prediction: the same for every model"),
    )
    return Table(
        header=header,
        rows=rows,
        caption="Mean squared error = miscalibration - discrimination + uncertainty",
        note=(
            "Miscalibration: what a monotone recalibration of the model's predictions would "
            "remove. Discrimination: how much the recalibrated predictions improve on "
            "predicting the average for everyone. Uncertainty: the error of that constant "
            "prediction, the same for every model."
        ),
        css="decomposition",
    )


def calibration_lead(evaluation: Any) -> list[str]:
    """The section's sentences on the decomposition (plain text; the caller escapes).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    list of str
        Empty without a decomposition.
    """
    block = _calibration(evaluation)
    if block is None or len(block["table"].models) < 2:
        return []
    table = block["table"]
    best = table.models[int(np.argmin(table.mean_score))]
    sharp = table.models[int(np.argmax(table.dsc))]
    if best == sharp:
        return [
            f"{best} has the lowest mean squared error and the highest discrimination: its "
            "lead does not come from calibration alone."
        ]
    return [
        f"{best} has the lowest mean squared error, but {sharp} discriminates best: after a "
        f"monotone recalibration of each model's predictions, {sharp} would have the lower "
        "error on these rows (whether the difference in discrimination is clear is in the "
        "Model comparison)."
    ]


def paired_difference(comparison: Any, metric: str, a: str, b: str) -> tuple[float, float, float]:
    """``metric(a) - metric(b)`` and its paired interval from the comparison.

    Parameters
    ----------
    comparison : ComparisonResult or None
        The evaluation's comparison.
    metric : str
        A compared measure.
    a, b : str
        Two compared models.

    Returns
    -------
    (float, float, float)
        The difference and the interval's ends; NaN where the comparison does not hold them.
    """
    missing = (math.nan, math.nan, math.nan)
    if comparison is None or not hasattr(comparison, "difference_ci_lower"):
        return missing
    metrics = list(getattr(comparison, "metrics", ()))
    if metric not in metrics:
        return missing
    k = metrics.index(metric)
    for p, pair in enumerate(comparison.pairs):
        if tuple(pair) in ((a, b), (b, a)):
            sign = 1.0 if tuple(pair) == (a, b) else -1.0
            d = sign * float(comparison.difference[k, p])
            ends = sorted(
                sign * float(v)
                for v in (
                    comparison.difference_ci_lower[k, p],
                    comparison.difference_ci_upper[k, p],
                )
            )
            return d, ends[0], ends[1]
    return missing


def _clearly_positive(interval: tuple[float, float, float]) -> bool:
    _, low, high = interval
    return math.isfinite(low) and math.isfinite(high) and low > 0


def calibration_sentence(evaluation: Any) -> str:
    """The Summary's sentence on calibration against discrimination (plain text; the caller
    escapes), or ``""`` when there is nothing to say.

    Against the model with the lowest mean squared error (B): a model A with a higher error
    whose discrimination is clearly higher (the paired interval of the difference in
    discrimination excludes 0) is "mostly miscalibration: recalibrated, it would beat B";
    otherwise, when B's discrimination is clearly higher than the runner-up's, no
    recalibration of the runner-up closes the gap.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    str
        One sentence, or ``""``.
    """
    block = _calibration(evaluation)
    comparison = getattr(evaluation, "comparison", None)
    if block is None or comparison is None or len(block["table"].models) < 2:
        return ""
    table = block["table"]
    order = [table.models[i] for i in np.argsort(table.mean_score, kind="stable")]
    best = order[0]
    rivals = []
    for model in order[1:]:
        interval = paired_difference(comparison, "discrimination", model, best)
        if _clearly_positive(interval):
            rivals.append((interval[0], model))
    if rivals:
        _, model = max(rivals)
        return (
            f"{model}'s error is mostly miscalibration: recalibrated, it would beat {best} "
            f"({_gap_words(comparison, model, best)})."
        )
    runner = order[1]
    interval = paired_difference(comparison, "discrimination", best, runner)
    if _clearly_positive(interval):
        return (
            f"{best} discriminates better; no recalibration of {runner} closes the gap "
            f"({_gap_words(comparison, best, runner)})."
        )
    return ""


def _gap_words(comparison: Any, a: str, b: str) -> str:
    """'discrimination higher by x, paired interval l to h; miscalibration ...' (``a`` against
    ``b``) for the Summary's sentence."""
    words = []
    for metric in ("discrimination", "miscalibration"):
        d, low, high = paired_difference(comparison, metric, a, b)
        if not math.isfinite(d):
            continue
        side = "higher" if d > 0 else "lower"
        interval = ""
        if math.isfinite(low) and math.isfinite(high) and low * high > 0:
            ends = sorted((abs(low), abs(high)))
            interval = (
                f", paired interval {format_number(ends[0], 3)} to {format_number(ends[1], 3)}"
            )
        elif math.isfinite(low) and math.isfinite(high):
            interval = ", not clearly"
        words.append(f"{metric} {side} by {format_number(abs(d), 3)}{interval}")
    return "; ".join(words)
