"""Render :class:`~ranklens.report.ModelEvaluation` objects as one self-contained HTML file.

The renderer only reads result objects; it never recomputes a measure. Plots are drawn from the
stored curves by :mod:`ranklens.plot` and embedded as inline SVG, styles are inline, and there is
no script and no external resource, so the file opens anywhere without a network.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import html
import math
import os
import pathlib
import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from ranklens._foundation.events import events_words
from ranklens._foundation.format import format_number, plain_number, result_html
from ranklens._foundation.registry import (
    FAMILIES,
    NOT_PROBABILITIES,
    direction_of,
    shaded_positions,
)
from ranklens._inference.method_names import interval_methods, method_name
from ranklens._version import __version__
from ranklens.report.adapters import (
    comparison_intervals,
    comparison_tables,
    robustness_tables,
    section_tables,
)
from ranklens.report.calibration_views import (
    calibration_lead,
    calibration_sentence,
    decomposition_table,
)
from ranklens.report.decision import format_money, recommend
from ranklens.report.diagnostics import probabilities_shown, target_is_binary
from ranklens.report.figures import build_figures
from ranklens.report.goals import (
    GOALS,
    Goal,
    budget_targets,
    clearly_best,
    closest_to_target,
    comparison_contrasts,
    goal_measures,
    goal_title,
    meaning,
    plain_name,
    problem_sentence,
    summary_verdicts,
    undefined_reason,
)
from ranklens.report.segment_views import segment_sentence, segments_section
from ranklens.report.significance import adjusted_method_name
from ranklens.report.tables import (
    Cell,
    Row,
    Section,
    Table,
    distinguishing_style,
    interval_text,
    number_style,
)
from ranklens.report.tables import header as _header
from ranklens.report.window_views import window_sentence, windows_section

__all__ = [
    "format_number",
    "render_html",
    "result_html",
    "write_html",
    "write_text_atomic",
    "write_texts_atomic",
]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "task"


# --------------------------------------------------------------------------------------------
# Reading guides: what a section shows in plain words, and (collapsed) how it is computed.

GUIDES = {
    "summary": (
        "For each goal the data allow, the model with the best headline measure, how far ahead "
        "it is of the closest other model, and whether that lead is clear: a lead is called "
        "clear only when its interval excludes no difference after correcting for every pair "
        "of models compared on the goals' headline measures."
    ),
    "comparison": (
        "Each row compares two models on one measure. A model is named in the last column only "
        "when the difference is clear after correcting for every comparison in the same table; "
        "otherwise the row says no clear difference."
    ),
    "ranking": (
        "Does the model put the cases in the right order? This matters whenever the "
        "predictions are used to choose whom to act on first, whatever their exact values."
    ),
    "targeting": (
        "Contact the cases the model scores highest: how many of the events (or how much of the "
        "value) you reach for the share of cases you can afford. Where curves cross, the better "
        "model depends on how many you can contact."
    ),
    "probabilities": (
        "Are the scores probabilities you can take at their word? A score of 0.3 should be "
        "followed by the event three times in ten. The Brier score and the log loss reward "
        "both ordering and calibration; the reliability diagram shows where a model is over- "
        "or under-confident."
    ),
    "extremes": (
        "Rare extreme values (very large or very small targets) often matter most. These "
        "measures ask whether the model predicts them, and predicts them accurately."
    ),
    "errors": (
        "How far the predicted values are from the truth, and whether the model is biased: "
        "predicted against actual, the residuals, and calibration by decile of prediction."
    ),
    "intervals": (
        "Prediction intervals against the truth: an interval should contain the truth as often "
        "as it promises (its nominal coverage) while staying narrow."
    ),
    "robustness": (
        "How much one single case can move each measure: a large change means the measure "
        "rests on a few cases, so read it with care."
    ),
}

#: The collapsible "How this is computed" of each section: formulas and references.
HOW = {
    "summary": (
        "Each difference is the paired difference of the two models' values on the same cases. "
        "<em>The family.</em> The leader is the model with the best headline value, known only "
        "after seeing the values, so the summary tests every pair of models on each goal's "
        "headline "
        "measure and adjusts all of them, across goals, with Holm's step-down procedure (Holm "
        "1979): the chance of any false &lsquo;clear&rsquo; is at most 5% whichever model "
        "comes out on top. A leader is clearly best, and recommended, only when it beats every "
        "other model in that family. <em>Each test keeps its measure's method, at the "
        "adjusted level too.</em> "
        "DeLong's analytic test for the measures that have it (the AUC, Harrell's C and Somers' "
        "D; DeLong, DeLong &amp; Clarke-Pearson 1988): p = 2&Phi;(&minus;|d/sd|) and the Wald "
        "interval d &plusmn; z&middot;sd at the adjusted level. The paired bootstrap for the "
        "others (both models evaluated on the same resampled cases; Rosset, Perlich &amp; "
        "Zadrozny 2005, Sect. 5.3): the replicated differences d* are centred at d (Hall &amp; "
        "Wilson 1991), the interval is d &plusmn; q with q the adjusted-level quantile of "
        "|d* &minus; d| (Hall 1988's symmetric interval), and its p-value (1 + r)/(B + 1), r "
        "the replicates with |d* &minus; d| &ge; |d| (Davison &amp; Hinkley 1997, Sect. 4.4.1), "
        "so the interval excludes zero exactly when the test is significant; a long tail of the "
        "replicates, as for a measure resting on a few rows, makes it conservative. The "
        "level of the j-th smallest p-value of m is 1 &minus; 0.05/(m &minus; j + 1). With B "
        "replicates no bootstrap p-value is below 1/(B + 1): a level the replicates cannot "
        "resolve gives no interval and no &lsquo;clear&rsquo;, and the summary says how many "
        "replicates it needs. <em>Not tested:</em> a comparison whose measure is undefined in "
        "more than 1% of the bootstrap replicates (its spread over the surviving replicates "
        "would understate the uncertainty), or whose interval is flagged approximate, is left "
        "out of the family and said to be not tested. A measure that is best closest to a "
        "target (interval coverage) is never ranked by its size."
    ),
    "comparison": (
        "Layout of Rosset, Perlich &amp; Zadrozny (2005, Table 2): value of each model, their "
        "difference (a &minus; b), its standard deviation (DeLong's analytic one where the "
        "measure has it, else the paired bootstrap's; each measure's heading says which), the "
        "two-sided Gaussian p-value, the Holm-adjusted p-value over every row of the same table "
        "(Holm 1979; valid whatever the tests behind the p-values) and the interval of the "
        "difference at the Holm level. One-sided p-values and the raw intervals are in the JSON "
        "results, each with its method. The band plot shows each model's AUC at "
        "every cutoff with its pointwise bootstrap band (Rosset et al. 2005, Fig. 5)."
    ),
    "ranking": (
        "Kendall's tau-b and Spearman's rho compare the predicted order with the true order "
        "(Rosset, Perlich &amp; Zadrozny 2005, eq. 4 and 5); the share of pairs ordered right is "
        "Harrell's C, (1 + tau)/2 without ties. <em>Concordance profile</em> (Rosset et al. "
        "2005, Fig. 1): per case, in decreasing order of prediction, the share of pairs "
        "containing it that the model orders right, averaged in bins for large data. "
        "<em>AUC by cutoff</em> (Fig. 2): the AUC of separating the true top i cases from the "
        "rest, at every cutoff; the area under it equals the normalised rho. <em>Rank lift</em> "
        "(Fig. 3): the sum of true ranks reached by targeting the top share by prediction, "
        "between the worst and the best possible order."
    ),
    "targeting": (
        "Cumulative gain, lift, decile-wise lift and the Kolmogorov-Smirnov statistic follow "
        "Provost &amp; Fawcett (2013, ch. 8) and the four-panel decile report of the kds "
        "package (Jain 2019). Lift at depth d = (share of events in the top d) / d. KS = the "
        "largest gap between the cumulative shares of events and non-events. The decile table "
        "splits the cases into ten equal groups by score; with case weights, counts are sums of "
        "weights. Profit = margin &times; value captured &minus; cost per contact &times; "
        "contacts; the budget caps the contacts. The winner by depth is marked only where the "
        "bootstrap band of its gain difference to every other model excludes zero after a Holm "
        "correction across all depths and pairs shown."
    ),
    "probabilities": (
        "Brier score = mean of (y &minus; p)&sup2; (Brier 1950); log loss = mean of &minus;[y "
        "log p + (1 &minus; y) log(1 &minus; p)], p clipped to the float64 epsilon as "
        "scikit-learn does (Good 1952); both are strictly proper scoring rules (Gneiting &amp; "
        "Raftery 2007). For a 0/1 target the mean squared error of a probability is its Brier "
        "score, and it splits into miscalibration &minus; discrimination + uncertainty (the CORP "
        "decomposition, Dimitriadis, Gneiting &amp; Jordan 2021): miscalibration is what the "
        "best monotone (isotonic) recalibration removes, drawn as the reliability diagram's "
        "step curve per model."
    ),
    "extremes": (
        "The relevance function &phi;(y) (Torgo &amp; Ribeiro 2009) scores how much each target "
        "value matters, from 0 (ordinary) to 1 (an extreme worth catching); by default it comes "
        "from the box plot of the target (values beyond the whiskers are extreme). "
        "Utility-based precision and recall (Torgo &amp; Ribeiro 2009; Branco, Torgo &amp; "
        "Ribeiro 2016) count a prediction as an event when &phi; of the prediction reaches "
        "the event threshold. SERA (Ribeiro &amp; Moniz 2020) integrates the squared errors of "
        "the cases above each relevance level. The agreement plot ranks many candidate models "
        "by an average error and by the F measure (Torgo &amp; Ribeiro 2009, Fig. 2)."
    ),
    "errors": (
        "Residual = actual &minus; predicted. Predicted against actual is drawn as a hexbin "
        "density for large data. Calibration by decile: the cases are split into ten groups by "
        "prediction; each point is the group's mean prediction against its mean actual value "
        "with a 95% normal interval of the mean (mean &plusmn; 1.96 sd/&radic;n). <em>REC</em> "
        "(Bi &amp; Bennett 2003): share of cases within each error tolerance; the area over the "
        "curve is the mean absolute error. <em>RROC</em> (Hern&aacute;ndez-Orallo 2013): total "
        "over- against under-prediction as a constant shift is added. The mean squared error "
        "splits into miscalibration &minus; discrimination + uncertainty (the CORP "
        "decomposition, Dimitriadis, Gneiting &amp; Jordan 2021; Gneiting &amp; Resin 2023): "
        "the predictions are recalibrated by the best monotone (isotonic) map; miscalibration "
        "is the error that map removes, discrimination how far the recalibrated predictions "
        "improve on the average, and uncertainty the error of the average itself. The "
        "reliability diagram draws that map as a step curve per model, with a consistency band "
        "(resampled under calibration, in a run that resamples) for the model with the lowest "
        "mean squared error. The "
        "Summary compares the models' discrimination with its paired interval: a model with "
        "the higher error but clearly higher discrimination would win once recalibrated."
    ),
    "intervals": (
        "Coverage = share of true values inside [lower, upper], with a Wilson score interval "
        "per decile of prediction. The interval score (Gneiting &amp; Raftery 2007) is the width "
        "plus 2/&alpha; times the distance of each miss, so it rewards intervals that are "
        "narrow and cover. Coverage is best closest to its nominal level, never by size."
    ),
    "robustness": (
        "Layout of Rosset, Perlich &amp; Zadrozny (2005, Table 1): each measure on all cases, "
        "without the single most influential case, and the percent change. Additive losses can "
        "be moved arbitrarily by one case; rank measures move by at most O(1/n)."
    ),
}


# --------------------------------------------------------------------------------------------
# Tables


def _plain(text: str) -> str:
    """A docstring line without reStructuredText markup (``code``, :func:`x`)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    return text.replace("``", "")


def direction_symbol(info: Mapping[str, Any]) -> str:
    """The direction column: ↑ higher, ↓ lower, ``≈ t`` closest to the target t, blank for a
    measure that is not ranked."""
    direction = direction_of(info)
    if direction == "target":
        target = info.get("target")
        return "≈" if target is None else f"≈ {format_number(target)}"
    return {"higher": "↑", "lower": "↓"}.get(direction, "")


def best_models(values: Sequence[float], info: Mapping[str, Any]) -> set[int]:
    """Positions of the best values under a measure's direction; empty when all are equal,
    fewer than two are finite, or the measure is not ranked (a target measure is best closest
    to its target, never by size).

    ``info`` is the measure's entry of ``evaluation.metrics``.
    """
    return shaded_positions(values, info)


def _family_order(metrics: dict[str, dict[str, Any]]) -> list[str]:
    seen = list(dict.fromkeys(m["family"] for m in metrics.values()))
    return [f for f in FAMILIES if f in seen] + [f for f in seen if f not in FAMILIES]


def _goal_models(evaluation: Any, goal: Goal) -> list[str]:
    return [
        m
        for m in evaluation.model_names
        if any(
            evaluation.metrics.get(k, {}).get("family") in goal.families
            for k in evaluation.values.get(m, {})
        )
    ]


def _row_order(goal: Goal, metrics: list[str], headline: str) -> list[str]:
    first = [headline] if headline in metrics else []
    lead = [m for m in goal.headline if m in metrics and m not in first]
    return first + lead + [m for m in metrics if m not in first and m not in lead]


def goal_table(
    evaluation: Any,
    goal: Goal,
    *,
    headline: str = "",
    contrasts: Mapping[tuple[str, str, str], Any] | None = None,
) -> tuple[Table | None, list[str]]:
    """One goal's measures (headline first), one column per model, and the sentences that
    replace the measures undefined or not computed for every model.

    A value is written in the one notation of its row, with digits from the narrowest interval
    of the row; it is shaded only when it is clearly best (its Holm-adjusted comparison with
    every other model excludes zero).
    """
    intervals = comparison_intervals(evaluation.comparison)
    contrasts = contrasts or {}
    models = _goal_models(evaluation, goal)
    metrics = goal_measures(goal, evaluation)
    rows: list[Row] = []
    missing: dict[tuple[str, str], list[str]] = {}
    for metric in _row_order(goal, metrics, headline):
        info = evaluation.metrics[metric]
        values = [evaluation.values.get(m, {}).get(metric, math.nan) for m in models]
        present = [m for m in models if metric in evaluation.values.get(m, {})]
        finite = [v for v in values if v is not None and math.isfinite(v)]
        problems = [evaluation.problems.get(m, {}).get(metric) for m in present]
        if not finite and not any(getattr(p, "kind", "") == "failed" for p in problems):
            kinds = {getattr(p, "kind", "undefined") for p in problems if p is not None}
            kind = "not computed" if kinds == {"skipped"} else "not defined for this data"
            reasons = sorted({undefined_reason(p) for p in problems if p is not None})
            missing.setdefault((kind, " ".join(reasons)), []).append(metric)
            continue
        widths = [
            intervals[(m, metric)][1] - intervals[(m, metric)][0]
            for m in models
            if (m, metric) in intervals
        ]
        style = number_style(finite, widths)
        best = clearly_best(metric, models, values, info, contrasts)
        closest = closest_to_target(values, info)
        description = meaning(metric, info, evaluation)
        cells = [
            Cell(
                plain_name(metric),
                css="measure headline" if metric == headline else "measure",
                title=f"name in the results: {metric}",
                sub=f"{direction_symbol(info)} {description}",
            )
        ]
        for j, model in enumerate(models):
            value = values[j]
            problem = evaluation.problems.get(model, {}).get(metric)
            if metric not in evaluation.values.get(model, {}):
                what = "no intervals given" if info.get("inputs") == "interval" else "not computed"
                cells.append(Cell(what, css="missing text"))
                continue
            if getattr(problem, "kind", "") == "failed":
                cells.append(
                    Cell("failed", css="failed", title=_short(problem, 500), sub=_short(problem))
                )
                continue
            if value is None or not math.isfinite(value):
                cells.append(
                    Cell(
                        "not defined",
                        css="missing",
                        title=_short(problem, 500),
                        sub=_short(problem),
                        key=f"{model}:{metric}",
                    )
                )
                continue
            ci = intervals.get((model, metric))
            cells.append(
                Cell(
                    style(value),
                    css="best" if j in best else ("closest" if j in closest else ""),
                    title=_short(problem, 500)
                    if problem
                    else (
                        f"closest to the target {format_number(info.get('target'))}; "
                        "no test of the difference"
                        if j in closest
                        else ""
                    ),
                    sub=interval_text(style, *ci) if ci else "",
                    key=f"{model}:{metric}",
                )
            )
        rows.append(Row(cells=cells))
    sentences = [
        f"{kind.capitalize()}: {', '.join(plain_name(m) for m in names)}."
        + (f" {reason}" if reason else "")
        for (kind, reason), names in missing.items()
    ]
    if not rows:
        return None, sentences
    note = ""
    if intervals:
        level = evaluation.settings.get("confidence_level", 0.95)
        note = (
            f"Small numbers under a value: its {round(100 * level)}% interval, "
            f"{_interval_origin(evaluation, {metric for _, metric in intervals})}. Shaded: "
            "clearly best, that is better than every other model with the difference's "
            "interval excluding zero after a Holm correction across all "
            f"{len(contrasts)} comparisons."
        )
    elif len(models) > 1:
        note = "No bootstrap comparison ran: no model is marked best."
    table = Table(header=_header("measure", *models), rows=rows, note=note, css="summary")
    return table, sentences


def _interval_origin(evaluation: Any, shown: set[str]) -> str:
    """Where the intervals of the measures ``shown`` came from, in words (for a table's note).

    ``"paired bootstrap (1000 resamples)"`` when every one is the bootstrap's, else each
    method with its measures, e.g. ``"DeLong (DeLong, DeLong & Clarke-Pearson 1988) for roc
    auc; paired bootstrap (1000 resamples) for the others"``.
    """
    comparison = evaluation.comparison
    replicates = getattr(comparison, "n_bootstrap", None)
    if replicates is None:
        replicates = evaluation.settings.get("n_bootstrap")
    boot = f"paired bootstrap ({replicates} resamples)"
    units = evaluation.settings.get("n_units")
    if units:
        # clustered data: whole units resampled (ranklens.evaluate_models' groups)
        of = evaluation.settings.get("groups", "given")
        of = f"units of {of}" if of != "given" else "units"
        boot = f"clustered paired bootstrap over {units:,} {of} ({replicates} resamples)"
    blocks = _block_words(evaluation)
    if blocks:
        # rows in time order: blocks of consecutive rows (ranklens.evaluate_models' time, scheme)
        boot = f"paired {blocks} ({replicates} resamples)"
    references = getattr(comparison, "references", {}) or {}
    groups: dict[str, list[str]] = {}
    for metric, method in zip(comparison.metrics, interval_methods(comparison), strict=True):
        if metric in shown:
            groups.setdefault(method, []).append(plain_name(metric))
    analytic = [
        f"{references.get(method) or method_name(method)} for {', '.join(names)}"
        for method, names in sorted(groups.items(), key=lambda item: item[0] != "delong")
        if not method.startswith("bootstrap")
    ]
    if not analytic:
        return boot
    rest = any(method.startswith("bootstrap") for method in groups)
    return "; ".join(analytic) + (f"; {boot} for the others" if rest else "")


def _block_words(evaluation: Any) -> str:
    """The block bootstrap in a few words (``"stationary block bootstrap, mean block length
    9.3"``; the Dask engine's ``"non-overlapping block bootstrap, block length 9"``), or ""
    when the rows were resampled one by one."""
    scheme = evaluation.settings.get("scheme")
    length = evaluation.settings.get("block_length")
    if scheme not in ("stationary", "circular", "blocks") or length is None:
        return ""
    if scheme == "stationary":
        return f"stationary block bootstrap, mean block length {plain_number(length, 3)}"
    if scheme == "blocks":
        return f"non-overlapping block bootstrap, block length {max(1, round(float(length)))}"
    return f"circular block bootstrap, block length {max(1, round(float(length)))}"


def how_blocks(evaluation: Any) -> str:
    """The "How this is computed" of the block bootstrap the evaluation ran (the in-memory
    schemes', :data:`HOW_BLOCKS`, or the Dask engine's fixed blocks, :data:`HOW_FIXED_BLOCKS`),
    added to the summary's and the comparison's; "" when the rows were resampled one by one."""
    if not _block_words(evaluation):
        return ""
    return HOW_FIXED_BLOCKS if evaluation.settings.get("scheme") == "blocks" else HOW_BLOCKS


def time_notes(evaluation: Any) -> list[str]:
    """Plain sentences, for the summary and the comparison, on the order of the rows: how a
    block bootstrap kept the dependence between neighbouring rows, or, when the rows were
    checked and look serially dependent, that the intervals may be too narrow (plain text,
    unescaped)."""
    notes = []
    blocks = _block_words(evaluation)
    if blocks:
        where = evaluation.settings.get("time")
        order = (
            f"The rows are in time order ({where.split(' (')[0]})"
            if where
            else "The rows are taken in the order given"
        )
        notes.append(
            f"{order}, and every interval and test comes from a {blocks} rows: it resamples "
            "runs of consecutive rows, so that an error that carries over from one row to the "
            "next is kept in the uncertainty."
        )
    check = getattr(evaluation, "serial_dependence", None)
    if check is not None and check.warns:
        flagged = [s for s in range(len(check.series)) if check.flagged[s]]
        worst = max(flagged, key=lambda s: float(check.variance_ratio[s]))
        name, kind = check.series[worst], check.kinds[worst]
        what = (
            f"the errors of {name}"
            if kind == "absolute error"
            else "the gap between the errors of " + " and ".join(name.split(" - ", 1))
        )
        narrow = 100.0 * float(check.too_narrow[worst])
        notes.append(
            "The rows may not be independent: in the order given, "
            f"{what} carry over from one row to the next (lag-1 autocorrelation "
            f"{float(check.autocorrelations[worst, 0]):.2f}). The intervals and tests here "
            f"assume independent rows, so they may be about {narrow:.0f}% too narrow, and a "
            "'clear' difference may not be one. If the rows are in time order, evaluate with "
            "the rows' times (time=, or --time on the command line) to resample blocks of "
            "consecutive rows."
        )
    return notes


#: The "How this is computed" of a block bootstrap, added to the summary's and the comparison's.
HOW_BLOCKS = (
    " <em>Rows in time order.</em> With the rows' times (or a block scheme) the bootstrap "
    "resamples blocks of consecutive rows: the stationary bootstrap (Politis &amp; Romano 1994) "
    "joins blocks of random length, geometric with the mean block length, from uniform starts, "
    "wrapping past the last row; the circular block bootstrap (Politis &amp; Romano 1992) blocks "
    "of one length. The length is chosen by Politis &amp; White (2004), with the correction of "
    "Patton, Politis &amp; White (2009), from the autocorrelations of every model's absolute "
    "errors and of every pair's differences of them. The intervals are BCa for the values (its "
    "acceleration from a jackknife that deletes blocks of rows) and percentile for the "
    "differences; DeLong's and Noether's analytic intervals assume independent rows and are not "
    "used."
)

#: The "How this is computed" of the Dask engine's block bootstrap (``scheme="blocks"``).
HOW_FIXED_BLOCKS = (
    " <em>Rows in time order.</em> With the rows' times (or the blocks scheme) the Dask "
    "engine's bootstrap resamples fixed, non-overlapping blocks of consecutive rows "
    "(Carlstein 1986): row t, counted from 0 in time order, is in block t // L, and each "
    "replicate gives each block one Poisson(1) weight shared by its rows (Hanley &amp; "
    "MacGibbon 2006), drawn from the block's number, so that every partition weighs its rows "
    "without the others. The stationary and circular bootstraps of the in-memory engine draw "
    "blocks from random starting rows, which the partitions cannot draw on their own. The "
    "length L is chosen by Politis &amp; White (2004), with the correction of Patton, Politis "
    "&amp; White (2009), from the autocorrelations of every model's absolute errors and of "
    "every pair's differences of them, rounded to whole rows (or given). The intervals are the "
    "replicates' percentile intervals; DeLong's and Noether's analytic intervals assume "
    "independent rows and are not used."
)


def _short(problem: Any, limit: int = 70) -> str:
    if not problem:
        return ""
    text = undefined_reason(problem)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_table(evaluation: Any) -> Table:
    """Every goal's measures in one table (the notebook and terminal overview); the report
    shows one table per goal (:func:`goal_table`)."""
    contrasts = comparison_contrasts(evaluation)
    rows: list[Row] = []
    header: list[dict[str, str]] = _header("measure", *evaluation.model_names)
    for goal in GOALS:
        table, _ = goal_table(evaluation, goal, contrasts=contrasts)
        if table is None:
            continue
        rows.append(Row(group=goal.title))
        width = len(header)
        for row in table.rows:
            cells = list(row.cells)
            rows.append(Row(cells=cells + [Cell("", css="missing")] * (width - len(cells))))
    return Table(header=header, rows=rows, css="summary")


_EVIDENCE_WORDS = {
    "clear": "clear",
    "partly clear": "clear against some",
    "not clear": "no clear difference",
    "no test": "not tested",
    "nothing to compare": "one model only",
    "undefined": "not defined for this data",
    "no difference": "all equal",
    "no model fit": "no model fit",
}


def _verdict_row(verdict: Any, evaluation: Any) -> Row:
    """One goal's row of the Summary's table: headline, leader, closest other model, the
    difference with its interval, and the evidence."""
    goal = verdict.goal
    title = goal_title(goal, evaluation)
    # the closest other model among the tested comparisons, as the sentence says
    shown = [c for c in verdict.contrasts if c.tested] or verdict.contrasts
    runner = min(shown, key=lambda c: abs(c.difference)) if shown else None
    diff, method, other, value = "no test", "", "", verdict.value_text
    if runner is not None:
        widths = [runner.high - runner.low] if math.isfinite(runner.high - runner.low) else []
        style = number_style([runner.value_a, runner.value_b, runner.difference], widths)
        values = distinguishing_style(style, runner.value_a, runner.value_b)
        value = values(runner.value_a)
        other = f"{runner.model_b} ({values(runner.value_b)})"
        if runner.tested and math.isfinite(runner.low):
            diff = f"{style(runner.difference)} {interval_text(style, runner.low, runner.high)}"
            method = adjusted_method_name(runner.method)
        elif runner.tested:
            diff = f"{style(runner.difference)} (no interval at this level)"
            method = adjusted_method_name(runner.method)
        else:
            diff = f"{style(runner.difference)} (not tested)"
    leader = verdict.best if verdict.evidence != "no model fit" else ""
    return Row(
        cells=[
            Cell(title, css="text", sub=goal.question),
            Cell(plain_name(verdict.metric) if verdict.metric else "none", css="text"),
            Cell(
                leader or "none",
                css="text pick" + (" best" if verdict.evidence == "clear" else ""),
                key=f"pick:{goal.key}",
            ),
            Cell(value or "not defined", key=f"headline:{goal.key}"),
            Cell(other or "none", css="text"),
            Cell(diff, sub=method),
            Cell(
                _EVIDENCE_WORDS.get(verdict.evidence, verdict.evidence),
                css="text evidence-" + verdict.evidence.replace(" ", "-"),
            ),
        ]
    )


def decision_view(evaluation: Any) -> dict[str, Any]:
    """The decision block that opens the report (HTML strings, escaped here): the model to
    deploy for the stated purpose and its evidence (:func:`ranklens.report.decision.recommend`),
    what would settle an unclear lead, one line per other goal, and each goal's verdict in
    detail (collapsed)."""
    rec = recommend(evaluation)
    main = html.escape(rec.sentence)
    if rec.model is not None:
        main = main.replace(html.escape(rec.model), _strong(rec.model), 1)
    return {
        "main": main,
        "recommended": rec.model is not None,
        "settle": html.escape(rec.settle),
        "secondary": [(html.escape(t), html.escape(line)) for t, line in rec.secondary],
        "details": [
            f"<strong>{html.escape(goal_title(v.goal, evaluation))}.</strong> {v.sentence}"
            for v in summary_verdicts(evaluation)
        ],
    }


def _strong(name: str) -> str:
    return f"<strong>{html.escape(name)}</strong>"


def summary_section(evaluation: Any) -> Section:
    """The first section: one verdict per goal, in a small table, after the decision block
    (:func:`decision_view`, which the template draws first)."""
    verdicts = summary_verdicts(evaluation)
    rows = [_verdict_row(verdict, evaluation) for verdict in verdicts]
    lead: list[str] = []
    budget = _budget_sentence(evaluation)
    if budget:
        lead.append(f"<strong>At the budget.</strong> {budget}")
    header = _header(
        "goal",
        "headline measure",
        ("leads", "the model with the best headline value; chosen only on clear evidence"),
        ("value", "the leader's headline value"),
        ("closest other model", "the other model nearest to the leader"),
        (
            "difference [interval]",
            "leader minus closest, with its interval at its Holm level (method below it)",
        ),
        ("evidence", "clear: the leader beats every other model after adjustment"),
    )
    calibration = calibration_sentence(evaluation)
    if calibration:
        lead.append(f"<strong>Calibration.</strong> {html.escape(calibration)}")
    settle = recommend(evaluation).settle  # says where the models differ when no lead is clear
    segments = segment_sentence(evaluation)
    if segments and segments not in settle:
        lead.append(f"<strong>By segment.</strong> {html.escape(segments)}")
    over_time = window_sentence(evaluation)
    if over_time and over_time not in settle:
        lead.append(f"<strong>Over time.</strong> {html.escape(over_time)}")
    note = _summary_note(verdicts)
    section = Section("summary", "Summary", GUIDES["summary"], [])
    section.tables = [Table(header=header, rows=rows, css="verdicts")]
    section.lead = lead
    section.how = HOW["summary"]
    section.notes.append(note)
    return section


def _summary_note(verdicts: list[Any]) -> str:
    """The summary's note on multiplicity and on what was not tested."""
    family = [c for v in verdicts for c in v.family]
    n_tests = sum(c.tested for c in family)
    if not family:
        return "No paired comparison: the report cannot say whether any difference is clear."
    note = (
        f"Multiple comparisons: the {n_tests} tested comparisons of every pair of models on "
        "each goal's headline measure are corrected together (Holm 1979), so that all the "
        "‘clear’ verdicts hold together with 95% confidence, whichever model "
        "leads; a leader is clearly best only when it beats every other model."
    )
    reasons: dict[str, str] = {}
    for c in family:
        if c.untested:
            reasons.setdefault(plain_name(c.metric), c.untested)
    if reasons:
        note += " Not tested: " + "; ".join(f"{m} ({why})" for m, why in reasons.items()) + "."
    return note


def _names(models: list[str]) -> str:
    return models[0] if len(models) == 1 else ", ".join(models[:-1]) + " and " + models[-1]


def _goal_sentences(evaluation: Any, goal: str) -> list[str]:
    """Plain sentences for what a goal's table cannot say by itself (plain text, unescaped)."""
    out: list[str] = []
    models = list(evaluation.model_names)
    if goal == "extremes" and "utility_precision" in evaluation.metrics:
        threshold = evaluation.settings.get("event_threshold", 0.5)

        def value(model: str, metric: str) -> float:
            return float(evaluation.values.get(model, {}).get(metric, math.nan))

        never = [m for m in models if math.isnan(value(m, "utility_precision"))]
        wrong = [m for m in models if value(m, "utility_precision") == 0]
        if never:
            out.append(
                f"{_names(never)} never predict{'s' if len(never) == 1 else ''} a value in the "
                f"extreme range (relevance >= {plain_number(threshold)}): precision is not "
                f"defined for "
                f"{'it' if len(never) == 1 else 'them'}."
            )
        if wrong:
            out.append(
                f"{_names(wrong)} predict{'s' if len(wrong) == 1 else ''} some extreme values, "
                "but none of them where a real extreme was (precision 0)."
            )
        recalls = [value(m, "utility_recall") for m in models]
        if recalls and all(r == 0 for r in recalls if not math.isnan(r)):
            out.append(
                "No model predicts any of the real extremes accurately (recall 0 for every "
                "model), so the measures of this section cannot pick a model; the precision "
                "and recall plot is left out."
            )
    if goal == "ranking" and target_is_binary(evaluation) and "roc_auc" in evaluation.metrics:
        out.append(
            "The target takes two values, so the ROC AUC is the concordance C (the share of "
            "pairs ordered right) and Somers' D is the accuracy ratio (2 AUC - 1): the ROC AUC "
            "is shown once, here."
        )
    if goal == "ranking" and "cutoff_auc" in evaluation.curves and target_is_binary(evaluation):
        out.append(
            "Every cutoff separates the same two groups, so the AUC by cutoff is the ROC AUC "
            "throughout: it is not drawn (the ROC curve is in Targeting)."
        )
    if goal == "probabilities":
        out.extend(not_probability_sentences(evaluation))
    return out


#: Why a goal is left out for a 0/1 target (one sentence each, in the Summary).
BINARY_LEFT_OUT = {
    "extremes": (
        "Rare extremes: not shown — the target takes two values, so there are no extreme "
        "values to catch."
    ),
    "intervals": (
        "Prediction intervals: not shown — the target takes two values, and a score of an "
        "event has no prediction interval."
    ),
    "errors": (
        "Size of the errors: shown as Probabilities — for a 0/1 target the squared error of a "
        "probability is its Brier score."
    ),
}


def not_probability_sentences(evaluation: Any) -> list[str]:
    """For a 0/1 target, one sentence naming the models whose scores are not probabilities
    (the evaluation skipped their Brier score and log loss, or computed neither: its settings
    say so); empty otherwise (plain text)."""
    if not target_is_binary(evaluation):
        return []
    skipped = [
        m
        for m in evaluation.model_names
        if any(
            getattr(p, "message", "") == NOT_PROBABILITIES
            for p in evaluation.problems.get(m, {}).values()
        )
    ]
    if not skipped and "probability scores" in evaluation.settings:
        skipped = list(evaluation.model_names)
    if not skipped:
        return []
    every = len(skipped) == len(evaluation.model_names)
    who = "the models'" if every and len(skipped) > 1 else f"{_names(skipped)}'s"
    return [
        f"Probabilities: not shown for {'any model' if every else _names(skipped)} — "
        f"{who} scores are not probabilities (some lie outside [0, 1]), so the Brier score "
        "and the log loss do not apply; rescale them to probabilities to judge them as such."
    ]


def binary_left_out(evaluation: Any) -> list[str]:
    """For a 0/1 target, the sentences of the goals that cannot apply and are left out of the
    report (:data:`BINARY_LEFT_OUT`); empty otherwise (plain text)."""
    if not target_is_binary(evaluation):
        return []
    out = []
    for goal in GOALS:
        if goal.key not in BINARY_LEFT_OUT:
            continue
        if goal.key == "errors" and not probabilities_shown(evaluation):
            continue
        if goal.key != "errors" and goal_measures(goal, evaluation):
            continue
        out.append(BINARY_LEFT_OUT[goal.key])
    if not any(info.get("family") == "probability" for info in evaluation.metrics.values()):
        out.extend(not_probability_sentences(evaluation))
    return out


def _budget_sentence(evaluation: Any) -> str:
    """What each model earns by targeting exactly the cases the budget pays for (read off the
    stored profit curves at the depth of the profit plot's budget line; HTML)."""
    profits = evaluation.curves.get("profit") or {}
    targets = budget_targets(evaluation)
    if targets is None:
        return ""
    cases, share = targets
    values = {m: float(r.at(share)) for m, r in profits.items()}
    values = {m: v for m, v in values.items() if math.isfinite(v)}
    if not values:
        return ""
    currency = evaluation.settings.get("currency") or None
    ordered = sorted(values, key=lambda m: -values[m])
    amounts = ", ".join(
        f"{html.escape(m)} {html.escape(format_money(values[m], currency))}" for m in ordered
    )
    return (
        f"Targeting the {cases:,.0f} cases the budget pays for (the top "
        f"{100 * share:.3g}% by score), the models earn: {amounts}. No interval is computed "
        "for profit; the comparison of what each model reaches at that depth carries the "
        "evidence."
    )


# --------------------------------------------------------------------------------------------
# Generic result rendering (notebooks)


# --------------------------------------------------------------------------------------------
# Whole documents


def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("ranklens.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def _settings_items(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """The settings as (name, value) in words: measures by their plain names, the events as a
    phrase."""
    from ranklens.metrics import REGISTRY

    names = re.compile(r"\b(" + "|".join(sorted(map(re.escape, REGISTRY), key=len)[::-1]) + r")\b")
    items = []
    for key, value in settings.items():
        if isinstance(value, bool):
            text = "yes" if value else "no"
        elif isinstance(value, int | float):
            text = f"{value:,.6g}"
        elif key == "events" and value is not None:
            text = _events_phrase(value)
        else:
            text = (
                names.sub(lambda m: plain_name(m.group(1)), str(value)) if REGISTRY else str(value)
            )
        items.append((key.replace("_", " "), text))
    return items


def _events_phrase(events: Any) -> str:
    """The events setting as a phrase ("the top 10% of values")."""
    text = str(events)
    if text.startswith("top:"):
        try:
            share = float(text[4:].rstrip("%")) / (100.0 if text.endswith("%") else 1.0)
        except ValueError:
            return text
        return f"the top {100 * share:.3g}% of values"
    if isinstance(events, int | float) or re.fullmatch(r"[-0-9.eE+]+", text):
        return events_words(f"y >= {text}")
    rule = re.fullmatch(r"(>=|>)\s*([-0-9.eE+]+)", text)
    if rule:
        return events_words(f"y {rule.group(1)} {rule.group(2)}")
    return events_words(text)


def _problems(evaluation: Any) -> list[tuple[str, str, str]]:
    """Every problem as (model, what, why) in plain words: a measure by its plain name, the
    reason as a sentence (the JSON results keep the precise messages)."""
    return [
        (
            who,
            plain_name(what) if what in evaluation.metrics else what.replace("_", " "),
            problem_sentence(why),
        )
        for who, items in evaluation.problems.items()
        for what, why in items.items()
    ]


def task_view(
    evaluation: Any,
    *,
    index: int = 0,
    figures: bool = True,
    figure_errors: list[str] | None = None,
) -> dict[str, Any]:
    """The template's view of one evaluation: facts, sections with tables and figures.

    Plots that could not be drawn are appended to ``figure_errors`` (when given) as
    ``"<section> plot <k>: <error>"``.
    """
    sections = [summary_section(evaluation)]
    notes = time_notes(evaluation)
    sections[0].notes.extend(notes)
    sections[0].how += how_blocks(evaluation)
    drawn = {}
    if figures:
        drawn = build_figures(evaluation, prefix=f"t{index}")
        if figure_errors is not None:
            figure_errors.extend(v.error for views in drawn.values() for v in views if v.error)
    contrasts = comparison_contrasts(evaluation)
    headlines = {v.goal.key: v.metric for v in summary_verdicts(evaluation)}
    sections[0].notes.extend(binary_left_out(evaluation))
    folded = probabilities_shown(evaluation)  # a 0/1 target's errors are its probabilities'
    for goal in GOALS:
        if "metrics" in evaluation.settings and not any(
            info.get("family") in goal.families for info in evaluation.metrics.values()
        ):
            continue  # measures chosen (evaluate_models' metrics): no section without one
        if (goal.key == "errors" and folded) or (
            goal.key == "probabilities" and not goal_measures(goal, evaluation)
        ):
            continue
        table, sentences = goal_table(
            evaluation, goal, headline=headlines.get(goal.key, ""), contrasts=contrasts
        )
        tables = ([table] if table is not None else []) + section_tables(evaluation, goal.key)
        if goal.key == ("probabilities" if folded else "errors"):
            decomposition = decomposition_table(evaluation)
            tables += [decomposition] if decomposition is not None else []
            sentences = sentences + calibration_lead(evaluation)
        views = drawn.get(goal.key, [])
        if not (tables or views or sentences):
            continue
        section = Section(goal.key, goal_title(goal, evaluation), GUIDES[goal.key], tables, views)
        section.lead = [html.escape(s) for s in sentences + _goal_sentences(evaluation, goal.key)]
        section.how = HOW[goal.key]
        sections.append(section)
    by_segment = segments_section(evaluation, drawn.get("segments", []))
    if by_segment is not None:
        sections.append(by_segment)
    over_time = windows_section(evaluation, drawn.get("windows", []))
    if over_time is not None:
        sections.append(over_time)
    comparison = comparison_tables(evaluation.comparison, evaluation.metrics)
    if comparison or drawn.get("comparison"):
        section = Section(
            "comparison",
            "Model comparison",
            GUIDES["comparison"],
            comparison,
            drawn.get("comparison", []),
        )
        section.how = HOW["comparison"] + how_blocks(evaluation)
        section.notes.extend(notes)
        sections.append(section)
    robust = robustness_tables(evaluation.robustness)
    if robust:
        section = Section("robustness", "Evaluation robustness", GUIDES["robustness"], robust)
        section.how = HOW["robustness"]
        sections.append(section)
    if not figures:
        pass
    elif not any(s.figures for s in sections):
        sections[0].notes.append("No plots: install matplotlib (pip install 'ranklens[plot]').")
    return {
        "id": f"task-{index + 1}-{_slug(evaluation.title)}",
        "decision": decision_view(evaluation),
        "title": evaluation.title,
        "description": evaluation.description,
        "target": evaluation.target,
        "n": f"{evaluation.n:,}",
        "n_dropped": evaluation.n_dropped,
        "models": list(evaluation.model_names),
        "settings": _settings_items(evaluation.settings),
        "sections": sections,
        "problems": _problems(evaluation),
    }


def render_html(
    evaluations: Any,
    *,
    title: str = "ranklens report",
    subtitle: str = "",
    figures: bool = True,
    figure_errors: list[str] | None = None,
) -> str:
    """The report as one HTML string: every evaluation a section, plots inline.

    Parameters
    ----------
    evaluations : ModelEvaluation or sequence of them
        Computed results (:func:`ranklens.report.evaluate_models`); nothing is recomputed.
    title, subtitle : str
        Page heading.
    figures : bool
        Whether to draw plots (needs matplotlib; without it the report has tables only).
    figure_errors : list of str, optional
        Receives one message per plot that could not be drawn. The report keeps a note in the
        plot's place either way; a caller that must not pass over a failure (the command line)
        reads this list.

    Returns
    -------
    str
        A self-contained HTML document.
    """
    if not isinstance(evaluations, list | tuple):
        evaluations = [evaluations]
    template = _environment().get_template("report.html.j2")
    return template.render(
        title=title,
        subtitle=subtitle,
        version=__version__,
        created=_dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
        tasks=[
            task_view(ev, index=i, figures=figures, figure_errors=figure_errors)
            for i, ev in enumerate(evaluations)
        ],
    )


def write_html(path: str | pathlib.Path, evaluations: Any, **kwargs: Any) -> pathlib.Path:
    """Render (:func:`render_html`), then write to ``path`` atomically; returns the resolved path.

    The whole report is rendered before the file is touched, and written with
    ``write_text_atomic``: a rendering error or a full disk leaves a previous report intact.

    Parameters
    ----------
    path : str or pathlib.Path
        Where to write the report.
    evaluations : ModelEvaluation or sequence of them
        As in :func:`render_html`.
    **kwargs
        Passed to :func:`render_html` (``title``, ``subtitle``, ``figures``).

    Returns
    -------
    pathlib.Path
        The resolved path written.
    """
    text = render_html(evaluations, **kwargs)
    return write_text_atomic(path, text)


def write_text_atomic(path: str | pathlib.Path, text: str) -> pathlib.Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the resolved path.

    See :func:`write_texts_atomic`.

    Parameters
    ----------
    path : str or pathlib.Path
        Target file.
    text : str
        Contents, written as UTF-8.

    Returns
    -------
    pathlib.Path
        The resolved path written.
    """
    (written,) = write_texts_atomic({pathlib.Path(path): text})
    return written


# The target paths of write_texts_atomic: any mapping whose keys are str, Path or both (a bound
# type variable, as Mapping is invariant in its key type).
_PathT = TypeVar("_PathT", bound=str | pathlib.Path)


def write_texts_atomic(outputs: Mapping[_PathT, str]) -> list[pathlib.Path]:
    """Write several files so that readers see all old or all new contents, never a torn file.

    Each text goes to a temporary file in its target's directory (so the final rename stays on
    one file system), is flushed to disk, and only when every file is staged are they moved into
    place with :func:`os.replace`. A failure while staging removes the temporary files and leaves
    every previous file untouched: a JSON result is never replaced while its HTML report fails.
    A replaced file keeps its permissions; a new one gets the usual ``0o666 & ~umask``.

    Parameters
    ----------
    outputs : mapping of path to str
        Target files and their contents (UTF-8).

    Returns
    -------
    list of pathlib.Path
        The resolved paths, in the order given.
    """
    staged: list[tuple[str, pathlib.Path]] = []
    try:
        for target, text in outputs.items():
            path = pathlib.Path(target)
            fd, temporary = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
            )
            staged.append((temporary, path))
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            # mkstemp creates the file private (0o600); the report is an ordinary output file.
            os.chmod(temporary, _file_mode(path))
        for temporary, path in staged:
            os.replace(temporary, path)
    except BaseException:
        for temporary, _path in staged:
            with contextlib.suppress(FileNotFoundError):  # already moved into place
                os.unlink(temporary)
        raise
    return [path.resolve() for _temporary, path in staged]


def _file_mode(path: pathlib.Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)  # the only portable way to read it: set and restore at once
        os.umask(umask)
        return 0o666 & ~umask
