"""Terminal output shared by ``ranklens evaluate`` and ``ranklens demo`` (rich tables).

Every string that comes from the user or the data (a column name, a title, a path, an error
message) reaches rich as a :class:`rich.text.Text`, never as a markup string: a model column named
``a[/]`` must not crash the table, and one named ``[link=...]x`` must not become a hyperlink.
"""

from __future__ import annotations

import html
import math
import re
import shutil
from collections.abc import Mapping, Sequence
from typing import Any

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.problems import PROBLEM_KINDS
from ranklens.report.calibration_views import calibration_sentence
from ranklens.report.decision import recommend
from ranklens.report.goals import (
    clearly_best,
    closest_to_target,
    comparison_contrasts,
    plain_name,
    summary_verdicts,
    verdict_values,
)
from ranklens.report.render import direction_symbol, format_number
from ranklens.report.tables import number_style

__all__ = [
    "CLEAR_MARK",
    "calibration_line",
    "headline_lines",
    "inference_caption",
    "plain",
    "problems_line",
    "problems_table",
    "recommendation_line",
    "short_summary",
    "summary_table",
]

#: Longest reason shown in the terminal (the report and the JSON keep the whole message).
_MAX_REASON = 160

#: The mark after a headline value whose lead over every other model is clear.
CLEAR_MARK = "*"

#: Terminal width when it cannot be read (not a terminal, and no ``COLUMNS``).
DEFAULT_WIDTH = 100

#: Longest reason in the folded line of missing values, in terminal cells.
_MAX_SHORT_REASON = 60

#: A headline column's measure name wraps onto lines of about this many cells (a longer word
#: is kept whole), unless the column's values are wider.
_HEADER_CELLS = 16


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

    Each row is named in readers' words (the measure's ``plain_name``), with the name that
    ``--metrics`` and the JSON results take beside it, dimmed: this table (``--verbose``) is
    where a user of the command line looks a measure up.

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
    longest = max((len(metric) for metric in evaluation.metrics), default=0)
    table.add_column("name for --metrics", style="dim", min_width=longest, no_wrap=True)
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
        texts = _column_texts(values)
        cells = []
        for j, model in enumerate(models):
            if metric not in evaluation.values.get(model, {}):
                cells.append(plain(""))
                continue
            problem = evaluation.problems.get(model, {}).get(metric)
            if problem is not None and problem.kind == "failed":
                cells.append(plain("failed", "bold red"))
                continue
            cells.append(plain(texts[j], "bold green" if j in best else ""))
        table.add_row(plain(plain_name(metric)), plain(metric), direction_symbol(info), *cells)
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


# --------------------------------------------------------------------------------------------
# The short summary (the default of ``ranklens evaluate``; ``--verbose`` shows the tables above)


def _plain_html(text: str) -> str:
    """A sentence of the report's summary (escaped HTML, names in ``<strong>``) as plain text."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


@shared_paragraphs
def recommendation_line(evaluation: Any) -> str | None:
    """The one line that says which model to deploy, or None when there is nothing to compare.

    The report's decision (:func:`ranklens.report.decision.recommend`) in one line: the model
    to deploy for the purpose (targeting at the budget's depth, else ``settings["goal"]``, else
    ranking) with its evidence, or, when no lead is clear, who leads and that no model is
    clearly better.

    Parameters
    ----------
    %(evaluation)s

    Returns
    -------
    str or None
        One line (a terminal may wrap it), or None without a comparison of two models.
    """
    if not summary_verdicts(evaluation):
        return None
    return recommend(evaluation).one_line()


def _cells(text: str) -> int:
    """The width of ``text`` in terminal cells (a wide character takes two)."""
    from rich.cells import cell_len

    return int(cell_len(text))


def _left(text: str, width: int) -> str:
    return text + " " * max(0, width - _cells(text))


def _right(text: str, width: int) -> str:
    return " " * max(0, width - _cells(text)) + text


@shared_paragraphs
def headline_lines(evaluation: Any, *, width: int | None = None) -> list[str]:
    """The headline measure of every goal (columns) for every model (rows), as text lines.

    Each goal's column is its headline measure (:func:`ranklens.report.goals.summary_verdicts`,
    as the report's summary chooses it) with its direction; the best value is followed by
    :data:`CLEAR_MARK` only when the lead over every other model is clear (the summary's rule:
    every pair of models on the headline measures, Holm-adjusted together). A column is headed
    by its goal and the measure's name in readers' words (its ``plain_name``, as the report
    writes it), wrapped onto lines of about 16 cells, never cut; the name that ``--metrics``
    takes is in :func:`summary_table` (``--verbose``). Model names are never cut either: when
    the columns do not fit ``width``, the goals go on in another block of rows, each block
    beginning with the names again.

    Parameters
    ----------
    %(evaluation)s
    width : int, optional
        Terminal columns (default: :func:`shutil.get_terminal_size`, else
        :data:`DEFAULT_WIDTH`).

    Returns
    -------
    list of str
        The lines (empty when no goal applies).

    References
    ----------
    %(holm1979)s
    """
    verdicts = [v for v in summary_verdicts(evaluation) if v.metric]
    if not verdicts:
        return []
    if width is None:
        width = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    models = list(evaluation.model_names)
    columns = []
    for verdict in verdicts:
        values, info = verdict_values(verdict, evaluation)
        texts = dict(zip(values, _column_texts(list(values.values())), strict=True))
        cells = []
        for model in models:
            text = texts.get(model, "")
            clear = verdict.evidence == "clear" and model == verdict.best
            cells.append(f"{text} {CLEAR_MARK}" if clear else f"{text}  " if text else "")
        name = _wrap(plain_name(verdict.metric), max(_HEADER_CELLS, *map(_cells, cells)))
        name[-1] = f"{name[-1]} {direction_symbol(info)}".rstrip()  # the arrow ends the name
        header = [verdict.goal.key, *name]
        wide = max(_cells(t) for t in (*header, *cells))
        columns.append((header, cells, wide))
    name_width = max(_cells(t) for t in ("model", *models))
    blocks: list[list[Any]] = [[]]
    used = name_width
    for column in columns:
        if blocks[-1] and used + 2 + column[2] > width:
            blocks.append([])
            used = name_width
        blocks[-1].append(column)
        used += 2 + column[2]
    lines: list[str] = []
    for k, block in enumerate(blocks):
        if k:
            lines.append("")
        # the goals on one line, then each measure's name ending on the line above the values
        depth = max(len(h) for h, _, _ in block)
        heads = [[h[0], *[""] * (depth - len(h)), *h[1:]] for h, _, _ in block]
        for row in range(depth):
            first = "model" if row == depth - 1 else ""
            lines.append(
                _left(first, name_width)
                + "".join("  " + _right(h[row], c[2]) for h, c in zip(heads, block, strict=True))
            )
        for i, model in enumerate(models):
            lines.append(
                _left(model, name_width) + "".join("  " + _right(c[i], w) for _, c, w in block)
            )
    return [line.rstrip() for line in lines]


def _column_texts(values: Sequence[Any]) -> list[str]:
    """The numbers of one row or column of a terminal table in one notation, as the report
    writes them (:func:`ranklens.report.tables.number_style`: positional, and two different
    values never the same text); NaN as an en dash, None (no value) as nothing."""
    style = number_style(v for v in values if v is not None)
    return ["" if v is None else style(v) if math.isfinite(v) else format_number(v) for v in values]


def _wrap(text: str, width: int) -> list[str]:
    """``text`` on lines of at most ``width`` terminal cells, broken between words (a longer
    word keeps a line of its own, whole)."""
    lines: list[str] = []
    for word in text.split():
        if lines and _cells(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


def _short_reason(problem: Any) -> str:
    """A problem's first clause (up to a semicolon, or a colon after two words or more), at
    most 60 cells."""
    text = problem.first_line.split("; ")[0].strip().rstrip(".")
    head = text.split(": ")[0]
    if " " in head:
        text = head
    if _cells(text) <= _MAX_SHORT_REASON:
        return text
    out = ""
    for char in text:
        if _cells(out + char) > _MAX_SHORT_REASON - 1:
            break
        out += char
    # at a word's end, when there is one
    cut = out.rsplit(" ", 1)[0] if " " in out else out
    return cut.rstrip(" ,(") + "…"


@shared_paragraphs
def problems_line(evaluation: Any, outputs: Sequence[str] = ()) -> str | None:
    """The values that could not be computed, folded into one line with their commonest
    reasons and where the whole list is; None when every value is a number.

    Failures are left out (the command line prints one ``error:`` line each), and so are the
    notes that qualify a value without replacing it (:func:`problems_table` lists both).

    Parameters
    ----------
    %(evaluation)s
    outputs : sequence of str, optional
        The files that list every reason (the JSON document, the HTML report).

    Returns
    -------
    str or None
        ``"12 values could not be computed (reason, reason, ...): see report.json"``, or None.
    """
    reasons: dict[str, int] = {}
    n_values = n_other = 0
    for items in evaluation.problems.values():
        for what, problem in items.items():
            if problem.kind not in ("undefined", "skipped"):
                continue
            if what in evaluation.metrics:
                n_values += 1
            else:
                n_other += 1
            reason = _short_reason(problem)
            reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return None
    common = sorted(reasons, key=lambda r: -reasons[r])
    listed = ", ".join(common[:3]) + (", ..." if len(common) > 3 else "")
    counts = []
    if n_values:
        counts.append(f"{n_values} value{'s' if n_values != 1 else ''}")
    if n_other:
        counts.append(f"{n_other} other result{'s' if n_other != 1 else ''} (curves, tables)")
    where = (
        "see " + " / ".join(outputs) if outputs else "--verbose lists them (or write --json/--html)"
    )
    return f"{' and '.join(counts)} could not be computed ({listed}): {where}"


@shared_paragraphs
def short_summary(
    evaluation: Any, *, width: int | None = None, outputs: Sequence[str] = ()
) -> list[str]:
    """The short terminal summary: the title, which model to pick, the headline measures by
    goal with the clear leads marked, the resampling of units or blocks when it is not the
    rows', one line on what could not be computed and one on what failed.

    Parameters
    ----------
    %(evaluation)s
    width : int, optional
        Terminal columns (:func:`headline_lines`).
    outputs : sequence of str, optional
        The files written (:func:`problems_line`).

    Returns
    -------
    list of str
        The lines, to be printed as they are (no markup).
    """
    lines = [f"{evaluation.title} (n = {evaluation.n:,})"]
    recommendation = recommendation_line(evaluation)
    if recommendation:
        lines.append(recommendation)
    table = headline_lines(evaluation, width=width)
    if table:
        lines += ["", *table]
        if evaluation.comparison is not None:
            lines.append(
                f"{CLEAR_MARK} clearly best: ahead of every other model, paired tests "
                "Holm-adjusted across the goals (no mark: not clear, or not tested)"
            )
    # what makes the intervals differ from the row bootstrap's, as the report's settings say
    lines += [
        f"{key}: {evaluation.settings[key]}"
        for key in ("clustered bootstrap", "time", "block bootstrap")
        if evaluation.settings.get(key)
    ]
    problems = problems_line(evaluation, outputs)
    if problems:
        lines += ["", problems]
    failed = [
        what
        for items in evaluation.problems.values()
        for what, problem in items.items()
        if problem.kind == "failed"
    ]
    if failed:
        shown = ", ".join(dict.fromkeys(failed))
        lines.append(f"{len(failed)} failed ({shown}): see the error lines")
    return lines
