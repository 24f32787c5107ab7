"""Terminal output shared by ``ranklens evaluate`` and ``ranklens demo`` (rich tables).

Every string that comes from the user or the data (a column name, a title, a path, an error
message) reaches rich as a :class:`rich.text.Text`, never as a markup string: a model column named
``a[/]`` must not crash the table, and one named ``[link=...]x`` must not become a hyperlink.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.problems import PROBLEM_KINDS
from ranklens.report.calibration_views import calibration_sentence
from ranklens.report.goals import clearly_best, closest_to_target, comparison_contrasts
from ranklens.report.render import direction_symbol, format_number

__all__ = ["calibration_line", "inference_caption", "plain", "problems_table", "summary_table"]

#: Longest reason shown in the terminal (the report and the JSON keep the whole message).
_MAX_REASON = 160


def plain(text: Any, style: str = "") -> Any:
    """``text`` as a rich Text: shown verbatim, with no markup or emoji codes interpreted.

    Parameters
    ----------
    text : object
        The text (converted with ``str``).
    style : str, default ''
        A rich style.

    Returns
    -------
    rich.text.Text
        The text, with no markup interpreted.
    """
    from rich.text import Text

    return Text(str(text), style=style)


@shared_paragraphs
def summary_table(evaluation: Any, *, max_rows: int | None = None) -> Any:
    """Every measure (rows) by model (columns); a clearly best value in bold green.

    "Best" follows each measure's registered direction (arrow column), and is marked only when
    the model's paired difference to every other model is clear after a Holm (1979) correction
    across the comparison (the report's rule: each measure's own test, DeLong's or the paired
    bootstrap's percentile test); without a comparison nothing is marked. A measure whose
    bootstrap replicates are undefined in more than 1% of the resamples is not tested, and the
    caption says so. A measure that failed
    shows ``failed`` in red; one that is undefined for this data or skipped shows an en dash
    (:func:`problems_table` says why).

    Parameters
    ----------
    %(evaluation)s
    max_rows : int, optional
        Show at most this many measures.

    Returns
    -------
    rich.table.Table
        Measures by model.
    """
    from rich.table import Table

    table = Table(title=plain(f"{evaluation.title} (n = {evaluation.n:,})"), title_justify="left")
    table.add_column("measure", style="bold")
    table.add_column("", justify="center")
    for model in evaluation.model_names:
        table.add_column(plain(model), justify="right")
    contrasts = comparison_contrasts(evaluation)
    models = list(evaluation.model_names)
    for metric, info in list(evaluation.metrics.items())[:max_rows]:
        values = [evaluation.values.get(m, {}).get(metric, math.nan) for m in models]
        # Marked only when clearly best (Holm-adjusted bootstrap comparisons), as in the report.
        best = clearly_best(metric, models, values, info, contrasts) or closest_to_target(
            values, info
        )
        cells = []
        for j, value in enumerate(values):
            model = evaluation.model_names[j]
            if metric not in evaluation.values.get(model, {}):
                cells.append(plain(""))
                continue
            problem = evaluation.problems.get(model, {}).get(metric)
            if problem is not None and problem.kind == "failed":
                cells.append(plain("failed", "bold red"))
                continue
            cells.append(plain(format_number(value), "bold green" if j in best else ""))
        table.add_row(plain(metric), direction_symbol(info), *cells)
    lines = (
        inference_caption(evaluation),
        _untested_caption(contrasts),
        calibration_line(evaluation),
    )
    caption = "\n".join(line for line in lines if line)
    if caption:
        table.caption = plain(caption)
        table.caption_justify = "left"
    return table


@shared_paragraphs
def calibration_line(evaluation: Any) -> str:
    """The Summary's sentence on calibration against discrimination, as the report says it
    (:func:`ranklens.report.calibration_views.calibration_sentence`), after ``calibration:``;
    empty when the report says nothing.

    Parameters
    ----------
    %(evaluation)s

    Returns
    -------
    str
        One line, or ``""``.
    """
    sentence = calibration_sentence(evaluation)
    return f"calibration: {sentence}" if sentence else ""


def _untested_caption(contrasts: Mapping[Any, Any]) -> str:
    """'not tested: measure (why); ...' for the measures whose comparisons were set aside."""
    reasons: dict[str, str] = {}
    for contrast in contrasts.values():
        if contrast.untested:
            reasons.setdefault(contrast.metric, contrast.untested)
    if not reasons:
        return ""
    return "not tested: " + "; ".join(f"{m} ({why})" for m, why in reasons.items())


def inference_caption(evaluation: Any) -> str:
    """Where the intervals and the paired tests behind "best" came from (the table's caption).

    The ``settings`` sentences of :func:`ranklens.report.evaluate_models` (``intervals``,
    ``paired tests``, and with units or rows in time order ``clustered bootstrap``, ``time``
    and ``block bootstrap``), one line each; empty when no comparison ran.
    """
    return "\n".join(
        f"{key}: {evaluation.settings[key]}"
        for key in ("intervals", "paired tests", "clustered bootstrap", "time", "block bootstrap")
        if evaluation.settings.get(key)
    )


def _reason(problem: Any) -> str:
    text = problem.first_line
    return text if len(text) <= _MAX_REASON else text[: _MAX_REASON - 1] + "…"


@shared_paragraphs
def problems_table(evaluation: Any, *, kinds: tuple[str, ...] | None = None) -> Any | None:
    """Why values are missing or qualified, one row per reason (None when there is nothing).

    Rows with the same kind, subject and reason are merged, listing their models: a target with
    zeros gives Log-RMSE's reason once, not once per model. Failures come first.

    Parameters
    ----------
    %(evaluation)s
    kinds : tuple of str, optional
        Keep only these kinds of problem.

    Returns
    -------
    rich.table.Table or None
        None when there is nothing to report.
    """
    from rich.table import Table

    merged: dict[tuple[str, str, str], list[str]] = {}
    for who, items in evaluation.problems.items():
        for what, problem in items.items():
            if kinds is not None and problem.kind not in kinds:
                continue
            merged.setdefault((problem.kind, what, _reason(problem)), []).append(who)
    if not merged:
        return None
    severity = {kind: k for k, kind in enumerate(reversed(PROBLEM_KINDS))}
    styles = {"failed": "bold red", "undefined": "yellow", "skipped": "dim", "note": "dim"}
    table = Table(
        title=plain("Why values are missing or qualified"), title_justify="left", show_lines=False
    )
    for header in ("", "measure", "model", "reason"):
        table.add_column(header, overflow="fold")
    for (kind, what, reason), models in sorted(
        merged.items(), key=lambda item: (severity.get(item[0][0], 0), item[0][1])
    ):
        table.add_row(
            plain(kind, styles.get(kind, "")), plain(what), plain(", ".join(models)), plain(reason)
        )
    return table
