"""The report's "Over time" section: whether the pick's lead holds window after window, read
from the results.

:func:`windows_section` turns the evaluation over time windows of
:func:`ranklens.evaluate_models` (``window=``; :class:`ranklens.timeseries.WindowEvaluation`)
into a compact stability table (per measure and model against the pick: in how many windows the
pick's lead is clear, in its direction but not clear, reversed, ..., and the trend);
:func:`window_view` draws one panel per headline measure (models as lines over the windows,
with their interval bands); :func:`window_sentence` is the Summary's sentence. Nothing is
recomputed: every number is a field of the stored results.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

from ranklens._foundation.format import plain_number
from ranklens.metrics import get_metric
from ranklens.report.goals import plain_name
from ranklens.report.segment_views import better_words
from ranklens.report.tables import Cell, Row, Section, Table
from ranklens.report.tables import header as _header
from ranklens.segments import DEFAULT_SEGMENT_METRICS

__all__ = ["window_sentence", "window_view", "windows_section"]

GUIDE = (
    "Does the model that is best on all the rows stay best over time? Each model's headline "
    "measures window by window, with an interval from resampling that window's rows, and how "
    "often the pick's lead over each other model is clear, in its direction but not clear, or "
    "reversed (the other model clearly better), with whether the lead grows or shrinks."
)

HOW = (
    "The rows are put in time order and cut into windows: calendar periods of their times "
    "(a period without rows has no window) or runs of a fixed number of rows. Each window's "
    "value is the measure on that window's rows alone; its interval comes from a bootstrap "
    "that resamples only those rows, by default in blocks of consecutive rows (in memory the "
    "stationary bootstrap, Politis &amp; Romano 1994; on Dask fixed, non-overlapping blocks, "
    "each with one Poisson weight, Carlstein 1986, cut anew at each window's first row; whole "
    "units with groups), so that an error that carries over to the next row is kept in the "
    "uncertainty. Each model's difference d from "
    "the pick is tested by the Wald statistic "
    "d / sd*, sd* the bootstrap standard deviation of the paired difference, and the p-values "
    "of every pair of models in every window and measure are adjusted together so that among "
    "the differences called clear the expected share of false ones (the false discovery rate) "
    "is at most the level shown (Benjamini &amp; Hochberg 1995, or Benjamini &amp; Yekutieli "
    "2001 under any dependence). <em>Stability.</em> A window counts as <em>clear</em> when "
    "the other model is clearly worse than the pick there, <em>reversed</em> when it is "
    "clearly better, and otherwise by the direction of the two values. <em>Trend.</em> A "
    "fixed-effect meta-regression (Hedges &amp; Olkin 1985; Borenstein et al. 2009, ch. 20): "
    "the weighted least-squares slope b of the windows' differences d<sub>i</sub> on their "
    "position x<sub>i</sub> in the calendar, each weighted by 1/s<sub>i</sub><sup>2</sup> "
    "(s<sub>i</sub> the bootstrap standard deviation of d<sub>i</sub>), b = &Sigma; w (x "
    "&minus; x&#772;)(d &minus; d&#772;) / &Sigma; w (x &minus; x&#772;)<sup>2</sup>, its "
    "standard error 1 / &radic;&Sigma; w (x &minus; x&#772;)<sup>2</sup> and p = "
    "2&Phi;(&minus;|b / se|), adjusted over the trends as the verdicts are; a trend needs 3 "
    "windows with an interval. The windows are disjoint and their bootstraps independent, so "
    "the differences are taken as independent estimates; dependence that reaches across a "
    "window's boundary makes that only approximately true."
)

_METHODS = {
    "benjamini-hochberg": "Benjamini & Hochberg 1995",
    "benjamini-yekutieli": "Benjamini & Yekutieli 2001",
}


def _units(result: Any, count: int) -> str:
    """``"quarter"``, ``"3 quarters"``, ``"12 windows"``: ``count`` windows in words."""
    unit = result.unit if result.window_kind == "calendar" else "window"
    return unit if count == 1 else f"{count} {unit}s"


def _rival(result: Any, metric: str) -> dict[str, Any] | None:
    """The stability record of the other model closest to the pick on all the rows."""
    records = [s for s in result.stability if s["metric"] == metric]
    if not records:
        return None
    overall = result.overall[metric]

    def gap(record: dict[str, Any]) -> float:
        value = abs(overall[record["model"]] - overall[record["pick"]])
        return value if math.isfinite(value) else math.inf

    return min(records, key=gap)


def _reversed_words(result: Any, metric: str, model: str, count: int) -> str:
    """``"reversed in none"``, ``"reversed in the last 3 quarters"`` (the last windows with a
    verdict: a short last window without one is passed over, and said so), ``"reversed in
    2"``."""
    if count == 0:
        return "reversed in none"
    verdicts = [
        r.get("verdict") for r in result.records if r["metric"] == metric and r["model"] == model
    ]
    untested = 0
    while verdicts and verdicts[-1] == "not tested":
        verdicts.pop()
        untested += 1
    last = 0
    for verdict in reversed(verdicts):
        if verdict != "better":
            break
        last += 1
    if last != count:
        return f"reversed in {count}"
    tested = " tested" if untested else ""
    return f"reversed in the last {_units(result, count)}{tested}"


def trend_words(result: Any, trend: dict[str, Any]) -> str:
    """What the trend of a model's difference from the pick says, in plain words.

    Parameters
    ----------
    result : WindowEvaluation
        The evaluation over time windows.
    trend : dict
        One of ``result.trends``.

    Returns
    -------
    str
        ``"no clear trend"``, ``"too few windows with an interval for a trend"``, ``"the lead
        shrinks by 0.02 a month (clear trend)"``, ...
    """
    if trend["reason"]:
        return "too few windows with an interval for a trend"
    if not trend["q_value"] <= result.fdr_level:
        return "no clear trend"
    unit = result.unit if result.window_kind == "calendar" else "window"
    amount = f"{plain_number(abs(trend['slope']), 2)} a {unit}"
    direction = _direction(trend["metric"])
    if direction not in ("lower", "higher"):
        return f"the difference changes by {amount} (clear trend)"
    grows = (trend["slope"] > 0) == (direction == "lower")
    return f"the lead {'grows' if grows else 'shrinks'} by {amount} (clear trend)"


def _direction(metric: str) -> str:
    return str(get_metric(metric).direction)


def _trend(result: Any, metric: str, model: str) -> dict[str, Any] | None:
    return next((t for t in result.trends if t["metric"] == metric and t["model"] == model), None)


def window_sentence(evaluation: Any) -> str:
    """The Summary's sentence on the windows, in plain words (plain text; the caller escapes).

    Whether the pick's lead holds over time on the first measure of the windows: against the
    other model closest to it on all the rows, in how many windows the lead is clear and in
    how many (or in which last ones) it is reversed, and whether it trends; empty when the
    evaluation was not cut into windows (``window``).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    str
        One sentence, or ``""``.
    """
    result = getattr(evaluation, "windows", None)
    if result is None or not result.metrics:
        return ""
    if result.n_bootstrap == 0:
        return (
            f"No bootstrap replicates, so no window is judged: each of the "
            f"{_units(result, len(result.windows))} has its values and counts only, no "
            "interval and no verdict."
        )
    metric = result.metrics[0]
    rival = _rival(result, metric)
    if rival is None:
        return ""
    pick, model = rival["pick"], rival["model"]
    closest = " (the closest other model)" if len(result.models) > 2 else ""
    trend = _trend(result, metric, model)
    words = trend_words(result, trend) if trend is not None else "no trend tested"
    return (
        f"On {plain_name(metric)}, {pick}'s lead over {model}{closest} is clear in "
        f"{rival['clear']} of {_units(result, rival['n_windows'])} and "
        f"{_reversed_words(result, metric, model, rival['reversed'])}; {words}."
    )


# --------------------------------------------------------------------------------------------
# The stability table


def stability_table(result: Any) -> Table:
    """Per measure and model against the pick: the windows counted by where the lead stands,
    and the trend.

    Parameters
    ----------
    result : WindowEvaluation
        The evaluation over time windows.

    Returns
    -------
    Table
        The report table.
    """
    rows: list[Row] = []
    for metric in result.metrics:
        records = [s for s in result.stability if s["metric"] == metric]
        if not records:
            continue
        rows.append(
            Row(group=f"{plain_name(metric)}{better_words(metric)}; pick: {result.picks[metric]}")
        )
        for record in records:
            trend = _trend(result, metric, record["model"])
            other = record["other_direction"] + record["tied"]
            rows.append(
                Row(
                    cells=[
                        Cell(record["model"], css="text"),
                        Cell(f"{record['n_windows']:,}"),
                        Cell(f"{record['clear']:,}", css="worse" if record["clear"] else ""),
                        Cell(f"{record['same_direction']:,}"),
                        Cell(f"{record['reversed']:,}", css="best" if record["reversed"] else ""),
                        Cell(f"{other:,}"),
                        Cell(f"{record['not_tested']:,}"),
                        Cell(
                            trend_words(result, trend) if trend is not None else "",
                            css="text",
                            title=trend["statement"] if trend is not None else "",
                        ),
                    ]
                )
            )
    header = _header(
        ("model", "each other model, against the pick"),
        "windows",
        ("lead clear", "the pick clearly better than this model"),
        ("same direction", "the pick ahead, not clearly"),
        ("reversed", "this model clearly better than the pick"),
        ("other way", "this model ahead (or tied), not clearly"),
        ("not tested", "too few rows or events, or not defined"),
        ("trend", "of the difference over the windows"),
    )
    return Table(
        header=header,
        rows=rows,
        caption="How stable the pick's lead is",
        css="windows",
    )


def _notes(result: Any, units: bool) -> list[str]:
    """The section's notes: the windows, small windows, the intervals and the family."""
    kind = (
        f"calendar {result.unit}s"
        if result.window_kind == "calendar"
        else f"runs of {result.window:,} rows"
    )
    first, last = result.windows[0], result.windows[-1]
    notes = [f"Windows: {len(result.windows):,} {kind}, from {first} to {last}."]
    notes += list(result.notes)
    notes.append(
        f"Too small: a window with fewer than {result.min_rows:,} rows"
        + (
            f" (for a measure of events, fewer than {result.min_events:,} events or non-events)"
            if result.events is not None
            else ""
        )
        + " shows its value, with no interval, no verdict and no place in the trend."
    )
    if result.n_bootstrap == 0:
        notes.append(
            "No bootstrap replicates: values and counts only, no intervals and no verdicts."
        )
        return notes
    method = _METHODS.get(result.fdr_method, result.fdr_method)
    blocks = _resampling_words(result, units)
    notes.append(
        f"Intervals: {round(100 * result.confidence_level)}% from {blocks} within each window "
        f"({result.n_bootstrap:,} resamples). Lead clear or reversed: the {result.n_tests:,} "
        "comparisons of every pair of models in every window and measure are judged together "
        "so that among the differences called clear the expected share of false ones is at "
        f"most {100 * result.fdr_level:g}% (false discovery rate; {method})."
    )
    return notes


def _resampling_words(result: Any, units: bool) -> str:
    """How each window was resampled, in words (``units``: the evaluation resampled whole
    units, ``groups``)."""
    length = result.block_length
    given = isinstance(length, int | float)
    if result.scheme == "stationary":
        return "the stationary bootstrap of blocks of consecutive rows" + (
            f" (mean block length {plain_number(length, 3)}, as for the whole evaluation)"
            if given
            else " (each window's own mean block length)"
        )
    if result.scheme == "blocks":  # the Dask engine's
        return "the bootstrap of fixed, non-overlapping blocks of consecutive rows" + (
            f" (Carlstein 1986; block length {max(1, round(float(length)))}, as for the whole "
            "evaluation)"
            if given
            else " (Carlstein 1986; each window's own block length)"
        )
    if result.scheme == "circular":
        return "the circular bootstrap of blocks of consecutive rows" + (
            f" (block length {max(1, round(float(length)))}, as for the whole evaluation)"
            if given
            else " (each window's own block length)"
        )
    return "a paired bootstrap of whole units" if units else "a paired bootstrap of the rows"


def windows_section(evaluation: Any, figures: list[Any] | None = None) -> Section | None:
    """The report section "Over time" (None when the evaluation has no windows).

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models` with ``window``.
    figures : list of FigureView, optional
        The section's panels (:func:`window_view`, drawn by the report's figures).

    Returns
    -------
    Section or None
        Its stability table, panels, notes and "How this is computed".
    """
    result = getattr(evaluation, "windows", None)
    if result is None:
        return None
    section = Section("windows", "Over time", GUIDE, [stability_table(result)], list(figures or []))
    sentence = window_sentence(evaluation)
    if sentence:
        section.lead = [html.escape(sentence)]
    section.notes = _notes(result, units=bool(evaluation.settings.get("n_units")))
    section.how = HOW
    return section


# --------------------------------------------------------------------------------------------
# The panels


def _positions(result: Any) -> tuple[list[Any], bool]:
    """The windows' places on the x axis: their start times (naive wall times in the times'
    zone), or their numbers (1, 2, ...) without times; and whether they are times."""
    if any(start is None for start in result.window_starts):
        return [i + 1 for i in range(len(result.windows))], False
    import pandas as pd

    if result.timezone is not None:
        starts = pd.to_datetime(list(result.window_starts), utc=True, format="ISO8601")
        starts = starts.tz_convert(result.timezone).tz_localize(None)
    else:
        starts = pd.to_datetime(list(result.window_starts), format="ISO8601")
    return list(starts.to_pydatetime()), True


def _panel(result: Any, metric: str) -> tuple[Any, bool]:
    """One measure over the windows: a line per model through its values, its interval as a
    band (a window without one is a hollow point), each model's value on all the rows as a
    dotted line. Returns the figure and whether a window without an interval was drawn."""
    from matplotlib.figure import Figure

    x, dated = _positions(result)
    fig = Figure(figsize=(6.2, 3.4), layout="constrained")
    ax = fig.subplots()
    hollow = False
    for m, model in enumerate(result.models):
        color = f"C{m % 10}"
        cell = [r for r in result.records if r["metric"] == metric and r["model"] == model]
        values = [float(r["value"]) if r["value"] is not None else math.nan for r in cell]
        estimated = [r["status"] == "estimated" for r in cell]
        low = [
            float(r["ci_lower"]) if e else math.nan for r, e in zip(cell, estimated, strict=True)
        ]
        high = [
            float(r["ci_upper"]) if e else math.nan for r, e in zip(cell, estimated, strict=True)
        ]
        width = 2.0 if model == result.picks[metric] else 1.3
        ax.plot(x, values, color=color, lw=width, marker="o", ms=3.5, label=model)
        ax.fill_between(x, low, high, color=color, alpha=0.15, lw=0)
        for xi, value, ok in zip(x, values, estimated, strict=True):
            if not ok and math.isfinite(value):
                hollow = True
                ax.plot([xi], [value], "o", mfc="white", color=color, ms=4.5)
        ax.axhline(result.overall[metric][model], color=color, linestyle=":", linewidth=0.9)
    if dated:
        from matplotlib import dates

        locator = dates.AutoDateLocator(minticks=3, maxticks=8)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator))
        ax.set_xlabel(f"start of the {result.unit}" if result.window_kind == "calendar" else "")
    else:
        ax.set_xlabel("window")
    ax.set_ylabel(plain_name(metric) + better_words(metric))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0.0)
    return fig, hollow


def window_view(k: int) -> Callable[[Any], Any]:
    """The builder of the panel of the ``k``-th measure of the evaluation over time windows
    (for :data:`ranklens.report.figures.BUILDERS`; None when there is no such measure).

    Parameters
    ----------
    k : int
        The position of the measure in ``windows.metrics``.

    Returns
    -------
    callable
        ``build(evaluation) -> (title, caption, figure, css) or None``.
    """

    def build(evaluation: Any) -> Any:
        result = getattr(evaluation, "windows", None)
        if result is None or k >= len(result.metrics):
            return None
        metric = result.metrics[k]
        fig, hollow = _panel(result, metric)
        level = round(100 * result.confidence_level)
        name = plain_name(metric)
        caption = (
            f"{name[:1].upper() + name[1:]} of each model in each window (line), with its "
            f"{level}% interval from resampling the window's rows (band; the interactive chart "
            "shows the pick's band until models are picked in its legend); the pick "
            f"({result.picks[metric]}) drawn thicker; dotted lines: each model's value on all "
            "the rows."
            + (
                " Hollow points: no interval (a window too small for one, or no replicates)."
                if hollow
                else ""
            )
        )
        return f"Over time: {name}", caption, fig, ""

    return build


#: One panel per measure of the evaluation over time windows, at most one per default measure.
WINDOW_VIEWS: tuple[Callable[[Any], Any], ...] = tuple(
    window_view(k) for k in range(len(DEFAULT_SEGMENT_METRICS))
)
