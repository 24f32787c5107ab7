"""The report's "By segment" section: where each model wins and loses, read from the results.

:func:`segments_section` turns the evaluation by segment of
:func:`ranklens.evaluate_models` (``by=``; :class:`ranklens.segments.SegmentEvaluation`) and its
scan (``scan=``; :class:`ranklens.segments.SegmentScan`) into a compact table per slicing
(segments as rows, models as columns, each headline measure's value with its interval, the rows
and events of each segment, the verdict against the pick marked) and the scan's findings;
:func:`forest_view` draws a forest plot per measure; :func:`segment_sentence` is the Summary's
sentence. Nothing is recomputed: every number is a field of the stored results.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

from ranklens._foundation.registry import direction_of
from ranklens.metrics import get_metric
from ranklens.report.goals import plain_name
from ranklens.report.tables import (
    Cell,
    Row,
    Section,
    Table,
    format_pvalue,
    interval_text,
    number_style,
)
from ranklens.report.tables import header as _header
from ranklens.segments import DEFAULT_SEGMENT_METRICS, MISSING_SEGMENT

__all__ = ["forest_view", "segment_sentence", "segments_section", "shown_segments"]

GUIDE = (
    "Is the model that is best on all the rows also best for every group of them? Each "
    "model's headline measures on each segment, with an interval from resampling the segment's "
    "own rows, against the pick (the model best on all the rows for that measure). A model is "
    "marked clearly better or worse than the pick only when the difference holds after judging "
    "every segment, measure and model together."
)

HOW = (
    "Each segment's value is the measure on that segment's rows alone; its interval comes from "
    "a paired bootstrap that resamples only those rows (whole units with groups; on Dask, the "
    "engine's Poisson replicates restricted to the segment), so a small segment has the wide "
    "interval it should. Each model's difference d from the pick is "
    "tested by the Wald statistic d / sd*, sd* the bootstrap standard deviation of the paired "
    "difference (Rosset, Perlich &amp; Zadrozny 2005, Sect. 5.3; a studentized statistic, as "
    "Hall &amp; Wilson 1991 advise): p-values counted from the replicates cannot go below "
    "1/(R + 1), too coarse for a family of many tests. <em>Many segments, one family.</em> "
    "Looking at many segments, some differences look clear by chance. The p-values of every "
    "pair of models (the pairs without the pick too, so that the family does not depend on "
    "which model the data made the pick), in every segment with an interval, every measure and "
    "every slicing, are adjusted together so that, among the differences called clear, the "
    "expected share of false ones (the false discovery rate) is at most the level shown: "
    "Benjamini "
    "&amp; Hochberg (1995) compare the j-th smallest of m p-values with j/m times the level "
    "(valid for independent segments and for measures of the same rows, which are positively "
    "dependent); Benjamini &amp; Yekutieli (2001) divide that by 1 + 1/2 + ... + 1/m, valid "
    "under any dependence. This is a weaker promise than the Summary's Holm correction (no "
    "false &lsquo;clear&rsquo; at all, with 95% confidence), which stays as it is. "
    "<em>Small segments.</em> A segment with fewer rows than the minimum (or, for a measure of "
    "events, too few events or non-events) keeps its value and counts but gets no interval and "
    "no verdict. <em>The scan</em> also asks whether every model is worse in a segment than on "
    "all the rows (the Wald statistic of the gap with the segment's bootstrap standard error; "
    "conservative, since the overall value contains the segment), every candidate segment and "
    "both questions counted in the same family."
)

_METHODS = {
    "benjamini-hochberg": "Benjamini & Hochberg 1995",
    "benjamini-yekutieli": "Benjamini & Yekutieli 2001",
}


def shown_segments(evaluation: Any) -> Any:
    """The evaluation by segment the report shows: ``evaluation.segments``, else the scanned
    one (``evaluation.segment_scan.evaluation``), else None.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    SegmentEvaluation or None
        What the section's tables and plots read.
    """
    segments = getattr(evaluation, "segments", None)
    if segments is not None:
        return segments
    scan = getattr(evaluation, "segment_scan", None)
    return None if scan is None else scan.evaluation


def _where(record: dict[str, Any]) -> str:
    """``"region is north"`` (``"region is missing"`` for the segment of missing labels)."""
    segment = record["segment"]
    if segment == MISSING_SEGMENT:
        return f"{record['slicing']} is missing"
    return f"{record['slicing']} is {segment}"


def _family(seg: Any) -> str:
    """The family of verdicts in words: how many, and the false discovery rate held."""
    n_segments = sum(len(v) for v in seg.segments.values())
    method = _METHODS.get(seg.fdr_method, seg.fdr_method)
    return (
        f"{seg.n_tests:,} comparison{'s' if seg.n_tests != 1 else ''} over {n_segments:,} "
        f"segment{'s' if n_segments != 1 else ''}, false discovery rate "
        f"{100 * seg.fdr_level:g}%, {method}"
    )


def segment_sentence(evaluation: Any) -> str:
    """The Summary's sentence on the segments, in plain words (plain text; the caller escapes).

    :meth:`ranklens.segments.SegmentEvaluation.summary` in the report's words: where another
    model is clearly better than the pick (the model best on all the rows for that measure),
    or that there is no such segment; empty when the evaluation was not segmented (``by``).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    str
        One sentence, or ``""``.
    """
    seg = getattr(evaluation, "segments", None)
    if seg is None:
        return ""
    if seg.n_bootstrap == 0:
        return (
            "No bootstrap replicates, so no segment is judged: each segment has its values "
            "and counts only, no interval and no verdict."
        )
    better = seg.clearly_better()
    if not better:
        return f"No segment where another model is clearly better than the pick ({_family(seg)})."
    parts = [
        f"{r['model']} beats {r['pick']} on {plain_name(r['metric'])} where {_where(r)} "
        f"({r['n_rows']:,} rows)"
        for r in better[:3]
    ]
    more = f", and in {len(better) - 3} more" if len(better) > 3 else ""
    return (
        "Another model is clearly better than the pick (the best on all the rows) in some "
        f"segments: {'; '.join(parts)}{more} ({_family(seg)})."
    )


# --------------------------------------------------------------------------------------------
# Tables


def _cell(record: dict[str, Any], style: Any) -> Cell:
    """One model's value in one segment: the value, its interval, the verdict against the pick."""
    status, verdict = record["status"], record.get("verdict")
    key = f"segment:{record['slicing']}:{record['segment']}:{record['metric']}:{record['model']}"
    if status == "undefined":
        return Cell("not defined", css="missing", title=record["reason"], key=key)
    text = style(record["value"])
    if status == "too small":
        return Cell(
            text, css="small", title=record["reason"], sub="too small: no interval", key=key
        )
    if status == "not compared":
        return Cell(text, title=record["reason"], sub="no interval", key=key)
    sub = interval_text(style, record["ci_lower"], record["ci_upper"])
    marks = {
        "pick": ("pick", "the pick"),
        "better": ("best", "clearly better than the pick"),
        "worse": ("worse", "clearly worse than the pick"),
    }
    css, words = marks.get(verdict or "", ("", ""))
    title = ""
    if verdict in ("better", "worse"):
        q_value = format_pvalue(record["q_value"])
        title = f"difference from the pick {style(record['difference'])}, q = {q_value}"
    return Cell(text, css=css, title=title, sub=f"{sub} {words}".strip(), key=key)


def better_words(metric: str) -> str:
    """``" (higher is better)"``, ``" (lower is better)"`` or ``""``, from the registry."""
    spec = get_metric(metric)
    info = {"direction": spec.direction, "higher_is_better": spec.higher_is_better}
    return {"higher": " (higher is better)", "lower": " (lower is better)"}.get(
        direction_of(info), ""
    )


def _metric_group(seg: Any, metric: str) -> str:
    """The group row of a measure: its name, direction and pick."""
    return f"{plain_name(metric)}{better_words(metric)}; pick: {seg.picks[metric]}"


def slicing_table(seg: Any, slicing: str) -> Table:
    """The table of one slicing: a group per measure, a row per segment, a column per model.

    Parameters
    ----------
    seg : SegmentEvaluation
        The evaluation by segment.
    slicing : str
        One of ``seg.slicings``.

    Returns
    -------
    Table
        The report table.
    """
    models = list(seg.models)
    counts = seg.events is not None
    columns: list[str | tuple[str, str]] = [
        "segment",
        ("rows", "rows in the segment"),
    ]
    if counts:
        columns.append(("events", f"events in the segment ({seg.events}, fixed on all the rows)"))
    columns += [(m, "value [interval]; marked against the pick") for m in models]
    cells: dict[tuple[str, str, str], dict[str, Any]] = {
        (r["segment"], r["metric"], r["model"]): r for r in seg.records if r["slicing"] == slicing
    }
    rows: list[Row] = []
    for metric in seg.metrics:
        shown = [r for r in cells.values() if r["metric"] == metric]
        values = [r["value"] for r in shown]
        widths = [r["ci_upper"] - r["ci_lower"] for r in shown if r["status"] == "estimated"]
        style = number_style([*values, *seg.overall[metric].values()], widths)
        rows.append(Row(group=_metric_group(seg, metric)))
        for segment in seg.segments[slicing]:
            first = cells[(segment, metric, models[0])]
            row = [Cell(segment, css="text"), Cell(f"{first['n_rows']:,}")]
            if counts:
                events = first["n_events"]
                row.append(Cell("" if events is None else f"{events:,}"))
            row += [_cell(cells[(segment, metric, m)], style) for m in models]
            rows.append(Row(cells=row))
        overall = [Cell("all rows", css="text"), Cell("")] + ([Cell("")] if counts else [])
        overall += [Cell(style(seg.overall[metric][m]), css="overall") for m in models]
        rows.append(Row(cells=overall))
    return Table(
        header=_header(*columns),
        rows=rows,
        caption=f"By {slicing}",
        css="segments",
    )


def findings_table(scan: Any) -> Table:
    """The scan's findings, one row each (largest segment first).

    Parameters
    ----------
    scan : SegmentScan
        The search for weak segments.

    Returns
    -------
    Table
        The report table.
    """
    words = {
        "pick beaten": "another model beats the pick",
        "all models worse": "every model worse than on all the rows",
    }
    rows = []
    for f in scan.findings:
        style = number_style([f["gap"]])
        rows.append(
            Row(
                cells=[
                    Cell(_where(f), css="text"),
                    Cell(plain_name(f["metric"]), css="text"),
                    Cell(words.get(f["kind"], f["kind"]), css="text"),
                    Cell(", ".join(f["models"]), css="text"),
                    Cell(f"{f['n_rows']:,}"),
                    Cell(style(f["gap"])),
                    Cell(format_pvalue(f["q_value"])),
                ]
            )
        )
    header = _header(
        "segment",
        "measure",
        "finding",
        ("models", "the models concerned"),
        "rows",
        ("gap", "the largest difference: against the pick, or against the overall level"),
        ("q", "adjusted p-value (false discovery rate), the largest among the models"),
    )
    return Table(
        header=header,
        rows=rows,
        caption="Weak segments found by the scan",
        note=scan.summary(),
        css="findings",
    )


def _notes(seg: Any) -> list[str]:
    """The section's notes: missing labels, quantile bins, small segments, the family."""
    notes = list(seg.notes)
    notes.append(
        f"Too small: a segment with fewer than {seg.min_rows:,} rows"
        + (
            f" (for a measure of events, fewer than {seg.min_events:,} events or non-events)"
            if seg.events is not None
            else ""
        )
        + " shows its value and counts, with no interval and no verdict."
    )
    if seg.events is not None:
        notes.append(
            f"Events: {seg.events}, fixed on all the rows, so every segment counts the same events."
        )
    if seg.n_bootstrap == 0:
        notes.append(
            "No bootstrap replicates (n_bootstrap=0): values and counts only, no intervals "
            "and no verdicts."
        )
    else:
        method = _METHODS.get(seg.fdr_method, seg.fdr_method)
        notes.append(
            f"Intervals: {round(100 * seg.confidence_level)}% paired bootstrap within each "
            f"segment ({seg.n_bootstrap:,} resamples). Marked clearly better or worse: the "
            f"{seg.n_tests:,} comparisons of every pair of models (those with the pick shown), "
            "in every segment and measure, are judged together so that among the differences "
            f"called clear the expected share of false ones is at most {100 * seg.fdr_level:g}% "
            f"(false discovery rate; {method})."
        )
    return notes


def segments_section(evaluation: Any, figures: list[Any] | None = None) -> Section | None:
    """The report section "By segment" (None when the evaluation was not segmented).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models` with ``by`` or ``scan``.
    figures : list of FigureView, optional
        The section's forest plots (:func:`forest_view`, drawn by the report's figures).

    Returns
    -------
    Section or None
        Its tables, figures, notes and "How this is computed".
    """
    seg = shown_segments(evaluation)
    if seg is None:
        return None
    tables = [slicing_table(seg, slicing) for slicing in seg.slicings]
    scan = getattr(evaluation, "segment_scan", None)
    if scan is not None:
        tables.append(findings_table(scan))
    section = Section("segments", "By segment", GUIDE, tables, list(figures or []))
    sentence = segment_sentence(evaluation)
    if sentence:
        section.lead = [html.escape(sentence)]
    elif scan is not None:
        section.lead = [html.escape(scan.summary())]
    section.notes = _notes(seg)
    section.how = HOW
    return section


# --------------------------------------------------------------------------------------------
# The forest plot


def _forest(seg: Any, metric: str) -> tuple[Any, bool]:
    """The forest plot of one measure: a row per segment (the slicings one below the other), a
    point and bar per model, each model's value on all the rows as a dashed vertical line; a
    segment without an interval is a hollow point, marked "too small" when it is. Returns the
    figure and whether a too-small segment was drawn."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    models = list(seg.models)
    labels = [(slicing, segment) for slicing in seg.slicings for segment in seg.segments[slicing]]
    records = {
        (r["slicing"], r["segment"], r["model"]): r for r in seg.records if r["metric"] == metric
    }
    height = max(2.4, 0.3 * len(labels) * max(1.0, 0.5 * len(models)) + 1.2)
    fig = Figure(figsize=(6.2, height), layout="constrained")
    ax = fig.subplots()
    step = 0.6 / max(len(models), 1)
    small_rows: set[int] = set()
    for m, model in enumerate(models):
        color = f"C{m % 10}"
        offset = (m - (len(models) - 1) / 2) * step
        ax.axvline(seg.overall[metric][model], color=color, linestyle="--", linewidth=0.9)
        for i, key in enumerate(labels):
            record = records[(*key, model)]
            y = len(labels) - 1 - i + offset
            if not math.isfinite(record["value"]):
                continue
            if record["status"] == "estimated":
                ax.plot([record["ci_lower"], record["ci_upper"]], [y, y], color=color, lw=1.4)
                ax.plot([record["value"]], [y], "o", color=color, ms=4.5)
            else:
                ax.plot([record["value"]], [y], "o", mfc="white", color=color, ms=4.5)
                if record["status"] == "too small" and i not in small_rows:
                    small_rows.add(i)
                    ax.annotate(
                        "too small",
                        (record["value"], len(labels) - 1 - i),
                        xytext=(8, 0),
                        textcoords="offset points",
                        va="center",
                        fontsize=7,
                        color="0.4",
                    )
    # a thin line between slicings
    ends = [
        sum(len(seg.segments[s]) for s in seg.slicings[: k + 1]) for k in range(len(seg.slicings))
    ]
    for end in ends[:-1]:
        ax.axhline(len(labels) - end - 0.5, color="0.85", linewidth=0.8)
    ax.set_yticks(range(len(labels)), [f"{s}: {g}" for s, g in reversed(labels)], fontsize=8)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel(plain_name(metric) + better_words(metric))
    handles = [
        Line2D([], [], color=f"C{m % 10}", marker="o", ms=4.5, lw=1.4, label=model)
        for m, model in enumerate(models)
    ]
    ax.legend(handles=handles, loc="best", frameon=False)
    return fig, bool(small_rows)


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def forest_view(k: int) -> Callable[[Any], Any]:
    """The builder of the forest plot of the ``k``-th measure of the evaluation by segment
    (for :data:`ranklens.report.figures.BUILDERS`; None when there is no such measure).

    Parameters
    ----------
    k : int
        The position of the measure in ``segments.metrics``.

    Returns
    -------
    callable
        ``build(evaluation) -> (title, caption, figure, css) or None``.
    """

    def build(evaluation: Any) -> Any:
        seg = shown_segments(evaluation)
        if seg is None or k >= len(seg.metrics):
            return None
        metric = seg.metrics[k]
        fig, small = _forest(seg, metric)
        level = round(100 * seg.confidence_level)
        caption = (
            f"{_capitalized(plain_name(metric))} of each model in each segment (point) with its "
            f"{level}% interval from resampling the segment (bar); dashed lines: each model's "
            "value on all the rows."
            + (
                " Hollow points: no interval (a segment too small for one, or no replicates)."
                if small or seg.n_bootstrap == 0
                else ""
            )
        )
        return f"By segment: {plain_name(metric)}", caption, fig, ""

    return build


#: One forest plot per measure of the evaluation by segment, at most one per default measure.
FOREST_VIEWS: tuple[Callable[[Any], Any], ...] = tuple(
    forest_view(k) for k in range(len(DEFAULT_SEGMENT_METRICS))
)
