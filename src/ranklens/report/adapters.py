"""Turn the library's result objects into report tables (reading fields only, never computing).

One function per kind of result; each accepts None (that part of the evaluation did not run) and
returns nothing for it, so a report degrades gracefully when a piece is missing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.events import events_words
from ranklens._foundation.registry import REGISTRY, direction_of
from ranklens._inference.method_names import method_name, paired_test_methods
from ranklens.compare import DEFAULT_COMPARISON_METRICS, ComparisonResult, PermutationTestResult
from ranklens.report.significance import (
    MAX_UNDEFINED_SHARE,
    Contrast,
    adjusted_method_name,
    holm_contrasts,
    pair_contrast,
)
from ranklens.report.tables import (
    Cell,
    Row,
    Table,
    format_pvalue,
    interval_text,
    number_style,
)
from ranklens.report.tables import header as _header


def _plain_name(metric: str) -> str:
    """The measure's name in readers' words (its registration's plain name)."""
    spec = REGISTRY.get(metric)
    return spec.plain_name if spec is not None else metric.replace("_", " ")


__all__ = [
    "comparison_intervals",
    "comparison_tables",
    "decile_table",
    "depth_counts_table",
    "robustness_tables",
    "section_tables",
]


def comparison_intervals(comparison: Any) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(model, metric): (low, high)}`` from a :class:`~ranklens.compare.ComparisonResult`.

    Empty for anything else: a :class:`~ranklens.compare.PermutationTestResult` gives p-values,
    not intervals.

    Parameters
    ----------
    comparison : ComparisonResult or PermutationTestResult
        The comparison an evaluation ran.

    Returns
    -------
    dict
        ``{(model, metric): (low, high)}``; empty for a permutation test.
    """
    if not isinstance(comparison, ComparisonResult):
        return {}
    out = {}
    for k, metric in enumerate(comparison.metrics):
        for m, model in enumerate(comparison.models):
            low, high = float(comparison.ci_lower[k, m]), float(comparison.ci_upper[k, m])
            if math.isfinite(low) and math.isfinite(high):
                out[(model, metric)] = (low, high)
    return out


def _headline_metrics(comparison: Any) -> list[str]:
    """The compared measures that Table 2 of Rosset, Perlich & Zadrozny (2005) reports."""
    return [m for m in DEFAULT_COMPARISON_METRICS if m in comparison.metrics]


@shared_paragraphs
def comparison_tables(comparison: Any, metrics: Any = None) -> list[Table]:
    """Table 2's layout (Rosset, Perlich & Zadrozny 2005): the headline measures in full view,
    every measure collapsed. Takes the bootstrap's or the permutation test's result.

    Parameters
    ----------
    comparison : ComparisonResult or PermutationTestResult
        The comparison an evaluation ran.
    metrics : dict, optional
        ``evaluation.metrics`` (each measure's direction); without it, the comparison's own
        ``higher_is_better``.

    Returns
    -------
    list of Table
        The report tables, headline measures first. Each table is one family of tests: its
        p-values are Holm-adjusted across its rows, and a model is named better only when the
        adjusted test is clear.

    References
    ----------
    %(rosset2005)s
    """
    if comparison is None:
        return []
    frame = comparison.to_frame()
    headline = _headline_metrics(comparison)
    tables = []
    if headline and len(headline) < len(comparison.metrics):
        table = _pairs_table(comparison, frame[frame["metric"].isin(headline)], metrics)
        table.caption = "Headline measures (Rosset, Perlich & Zadrozny 2005, Table 2)"
        tables.append(table)
        rest = _pairs_table(comparison, frame, metrics)
        rest.caption = (
            f"Every compared measure ({len(comparison.metrics)} measures, "
            f"{len(comparison.pairs)} pair(s) each)"
        )
        rest.collapsed = True
        tables.append(rest)
    else:
        tables.append(_pairs_table(comparison, frame, metrics))
    return tables


def _direction(record: Any, metrics: Any) -> str:
    info = (metrics or {}).get(record.metric)
    if info is not None:
        return direction_of(info)
    return {True: "higher", False: "lower"}.get(record.higher_is_better, "target")


def _pairs_table(comparison: Any, frame: Any, metrics: Any = None) -> Table:
    # The two tests share the layout; what differs is the spread column, how the p-value is
    # read, and whether there is an interval (the permutation test gives none).
    permutation = isinstance(comparison, PermutationTestResult)
    if permutation:
        spread = ("null SD", "standard deviation of the difference over the random swaps")
        p_help = "two-sided permutation p-value, (1 + #{|d*| ≥ |d|}) / (1 + swaps)"
        columns: tuple[Any, ...] = ()
    else:
        level = round(100 * comparison.confidence_level)
        spread = (
            "SD",
            "standard deviation of the paired difference, by the test of its measure (bootstrap "
            "or DeLong's analytic one)",
        )
        p_help = (
            "two-sided p-value by the measure's test: DeLong's 2 Φ(−|difference / SD|), or the "
            "paired bootstrap's (1 + r) / (B + 1), r centred replicates at least as far from 0"
        )
        columns = ((f"{level}% CI of difference", "the test's own interval, unadjusted"),)
    tests = dict(zip(comparison.metrics, paired_test_methods(comparison), strict=True))
    contrasts = []
    records = list(frame.itertuples(index=False))
    for record in records:
        direction = _direction(record, metrics)
        contrast = pair_contrast(
            comparison, str(record.metric), str(record.model_a), str(record.model_b), direction
        )
        if contrast is None:  # a result without the fields pair_contrast reads
            sd = float(record.null_sd if permutation else record.difference_sd)
            contrast = Contrast(
                metric=str(record.metric),
                model_a=str(record.model_a),
                model_b=str(record.model_b),
                value_a=float(record.value_a),
                value_b=float(record.value_b),
                difference=float(record.difference),
                sd=sd,
                p_value=float(record.p_value),
                direction=direction,
            )
        contrasts.append(contrast)
    holm_contrasts(contrasts)
    columns += (("Holm p-value", f"adjusted for the {len(records)} comparisons of this table"),)
    if not permutation:
        columns += (
            ("adjusted interval", "interval of the difference at the Holm level of its row"),
        )
    header = _header(
        "models (a vs b)",
        ("a", "value of model a"),
        ("b", "value of model b"),
        ("difference", "a − b, in the measure's units"),
        spread,
        ("p-value", p_help),
        *columns,
        ("better", "named only when the Holm-adjusted difference is clear"),
    )
    rows = []
    current = None
    style = number_style([])
    for record, contrast in zip(records, contrasts, strict=True):
        if record.metric != current:
            current = record.metric
            arrow = {"higher": "↑ higher is better", "lower": "↓ lower is better"}.get(
                contrast.direction, "≈ closest to its target is better (not tested by size)"
            )
            test = tests.get(current, "")
            how = f"; {method_name(test)}" if test and not permutation else ""
            rows.append(Row(group=f"{_plain_name(str(record.metric))} ({arrow}{how})"))
            block = [c for c in contrasts if c.metric == current]
            style = number_style(
                [v for c in block for v in (c.value_a, c.value_b, c.difference)],
                [c.high - c.low for c in block] + [c.sd for c in block],
            )
        p_value = contrast.p_value
        cells = [
            Cell(f"{record.model_a} vs {record.model_b}", css="text"),
            Cell(style(record.value_a)),
            Cell(style(record.value_b)),
            Cell(style(record.difference)),
            Cell(style(contrast.sd)),
            Cell(
                format_pvalue(p_value), key=f"p:{record.metric}:{record.model_a}:{record.model_b}"
            ),
        ]
        if not permutation:
            cells.append(
                Cell(interval_text(style, record.difference_ci_lower, record.difference_ci_upper))
            )
        cells.append(
            Cell(
                format_pvalue(contrast.p_adjusted)
                if math.isfinite(contrast.p_adjusted)
                else "not tested",
                title=contrast.untested,
                css="sig" if contrast.clear else "",
            )
        )
        if not permutation:
            cells.append(_adjusted_cell(contrast, style))
        if contrast.clear:
            cells.append(Cell(contrast.better, css="text sig"))
        elif contrast.direction not in ("higher", "lower"):
            cells.append(Cell("not ranked by size", css="text missing"))
        else:
            cells.append(Cell("no clear difference", css="text missing"))
        rows.append(Row(cells=cells))
    n = len(records)
    if permutation:
        note = (
            f"Paired permutation test, {comparison.n_permutations} random swaps of the two "
            f"models' predictions per pair. Multiple comparisons: the {n} p-values of this table "
            "are Holm-adjusted together (Holm 1979); bold: clear after adjustment. A "
            "permutation test gives no interval."
        )
    else:
        shown = {str(r.metric) for r in records}
        by_test: dict[str, list[str]] = {}
        for metric, test in tests.items():
            if metric in shown:
                by_test.setdefault(test, []).append(_plain_name(metric))
        analytic = [
            f"{method_name(test)} for {', '.join(names)}"
            for test, names in by_test.items()
            if test not in ("bootstrap", "")
        ]
        origin = f"Paired bootstrap, {comparison.n_bootstrap} replicates"
        if analytic:
            origin = (
                f"Paired tests: {'; '.join(analytic)}"
                + (
                    "; paired bootstrap, " + f"{comparison.n_bootstrap} replicates, elsewhere"
                    if "bootstrap" in by_test
                    else ""
                )
                + " (each measure's heading says which)"
            )
        untested = by_test.get("", [])
        if untested:
            origin += f"; not tested: {', '.join(untested)}"
        note = (
            f"{origin}. Multiple comparisons: the {n} p-values of this table, whatever their "
            "test, are Holm-adjusted together (Holm 1979); bold and named in the last column: "
            "clear after adjustment. The unadjusted interval is the test's own; the adjusted one "
            "is its method's interval at the Holm level (for the bootstrap the symmetric "
            "interval of the centred replicates); a measure undefined in more than "
            f"{100 * MAX_UNDEFINED_SHARE:g}% of the replicates is not tested. One-sided "
            "p-values are in the JSON results."
        )
    return Table(header=header, rows=rows, note=note, css="comparison")


def _adjusted_cell(contrast: Contrast, style: Any) -> Cell:
    """The adjusted interval of a comparison, with its method below it."""
    if math.isfinite(contrast.low) and math.isfinite(contrast.high):
        return Cell(
            interval_text(style, contrast.low, contrast.high),
            sub=adjusted_method_name(contrast.method),
        )
    if contrast.unresolved:
        return Cell("beyond the replicates", css="text", title="too few replicates for this level")
    return Cell("not tested", css="text", title=contrast.untested)


@shared_paragraphs
def robustness_tables(robustness: dict[str, Any]) -> list[Table]:
    """The layout of Table 1 of Rosset et al. (2005), one block of rows per model.

    Parameters
    ----------
    robustness : dict of str to RobustnessTableResult
        One robustness table per model.

    Returns
    -------
    list of Table
        One block of rows per model.

    References
    ----------
    %(rosset2005)s
    """
    if not robustness:
        return []
    header = _header(
        "measure",
        ("entire set", "the measure on every case"),
        ("excluding one", "without the single case whose removal changes it most"),
        ("% change", "100 |excluding one − entire set| / |entire set|"),
        ("case", "row of that most influential case (0-based, in the evaluated data)"),
    )
    rows = []
    for model, result in robustness.items():
        rows.append(Row(group=model))
        percent = number_style(result.percent_change, [0.1])
        for k, metric in enumerate(result.metrics):
            index = int(result.index[k])
            # One notation per row: the measure on all cases and without the one case.
            style = number_style([result.entire_set[k], result.excluding_one[k]])
            rows.append(
                Row(
                    cells=[
                        Cell(_plain_name(str(metric)), css="text"),
                        Cell(style(result.entire_set[k])),
                        Cell(style(result.excluding_one[k])),
                        Cell(
                            percent(result.percent_change[k]),
                            css="sig" if float(result.percent_change[k]) >= 5 else "",
                        ),
                        Cell(
                            str(index) if index >= 0 else "none",
                            title="" if index >= 0 else "no single case changes the measure",
                        ),
                    ]
                )
            )
    note = "Changes of 5% or more in bold: one case moves that evaluation noticeably."
    return [Table(header=header, rows=rows, note=note, css="robustness")]


@shared_paragraphs
def section_tables(evaluation: Any, section: str) -> list[Table]:
    """Tables shown next to a section's plots (decile tables, best model by depth, coverage).

    Parameters
    ----------
    %(evaluation)s
    section : str
        The report section (e.g. ``"targeting"``, ``"intervals"``).

    Returns
    -------
    list of Table
        Possibly empty.
    """
    tables: list[Table] = []
    if section == "targeting":
        counts = depth_counts_table(evaluation)
        if counts is not None:
            tables.append(counts)
        best = evaluation.extras.get("best_model_by_depth")
        if best is not None:
            tables.append(_depth_table(best, evaluation))
        for model, result in evaluation.curves.get("decile_table", {}).items():
            table = decile_table(result, weighted="sample_weight" in evaluation.settings)
            table.caption = f"Decile table: {model}"
            table.collapsed = True
            tables.append(table)
    if section == "intervals":
        for model, result in evaluation.curves.get("coverage_by_bin", {}).items():
            tables.append(_coverage_table(model, result))
    return tables


@shared_paragraphs
def depth_counts_table(evaluation: Any) -> Table | None:
    """For a 0/1 target: each model's precision, recall and 2x2 counts when the top of the
    cases by score is targeted, at the budget's depth or the top 10 %, as the pipeline stored
    them (``evaluation.extras["at_depth"]``, from
    :func:`ranklens.classification.confusion_at_depth`).

    Parameters
    ----------
    %(evaluation)s

    Returns
    -------
    Table or None
        One row per model; None when the evaluation has no counts (any other target).
    """
    block = (getattr(evaluation, "extras", None) or {}).get("at_depth")
    if not isinstance(block, dict) or not block.get("models"):
        return None
    depth = float(block["depth"])
    weighted = "sample_weight" in evaluation.settings
    fields = ("true_positives", "false_positives", "false_negatives", "true_negatives")
    # one notation per column: whole counts whole (up to rounding: TN = W - E - FP is a
    # difference of sums), a count shared by a tie at the cut as the column's other numbers
    counts = {
        field: number_style([_whole(r[field]) for r in block["models"].values()], integer=True)
        for field in fields
    }
    rates = number_style(
        [v for r in block["models"].values() for v in (r["precision"], r["recall"])]
    )
    rows = []
    for model, row in block["models"].items():
        rows.append(
            Row(
                cells=[
                    Cell(model, css="text"),
                    Cell(rates(row["precision"]), key=f"{model}:precision_at_depth"),
                    Cell(rates(row["recall"]), key=f"{model}:recall_at_depth"),
                    *(
                        Cell(counts[field](_whole(row[field])), key=f"{model}:{field}")
                        for field in fields
                    ),
                ]
            )
        )
    where = "the budget's depth" if block.get("basis") == "budget" else "the depth of the headlines"
    note = (
        f"The top {100 * depth:.3g}% of the cases by score targeted ({where}). Precision: the "
        "share of events among them; recall: the share of all events they hold. TP: events "
        "targeted, FP: non-events targeted, FN: events missed, TN: non-events left out"
        + ("; counts are sums of case weights" if weighted else "")
        + (
            "; a tie of scores at the cut is shared, so counts may be fractional"
            if any(
                math.isfinite(r[f]) and _whole(r[f]) != round(r[f])
                for r in block["models"].values()
                for f in fields
            )
            else ""
        )
        + "."
    )
    return Table(
        header=_header(
            "model",
            ("precision", "share of the targeted cases that are events"),
            ("recall", "share of all events among the targeted cases"),
            ("TP", "true positives: events targeted"),
            ("FP", "false positives: non-events targeted"),
            ("FN", "false negatives: events not targeted"),
            ("TN", "true negatives: non-events not targeted"),
        ),
        rows=rows,
        caption=f"Precision, recall and counts in the top {100 * depth:.3g}% by score",
        note=note,
    )


def _whole(value: float) -> float:
    """A count, rounded to the whole number it differs from by rounding only (at most 1e-9 of
    it); any other number (a count shared by a tie, NaN) as it is."""
    if math.isfinite(value) and abs(value - round(value)) <= 1e-9 * max(1.0, abs(value)):
        return float(round(value))
    return value


def decile_table(result: Any, *, weighted: bool = False) -> Table:
    """A gains table a marketer reads: per decile of score, whole-number counts, the score range,
    events, cumulative events and their share, lift and KS (the layout of the kds package).

    Parameters
    ----------
    result : DecileTableResult
        :func:`ranklens.targeting.decile_table`'s result.
    weighted : bool, default False
        Counts are sums of case weights (labelled as such, with decimals).

    Returns
    -------
    Table
        One row per decile, highest scores first.
    """
    value = "value" in str(result.event_definition).lower() and "top" not in str(
        result.event_definition
    )
    count_label = "weighted cases" if weighted else "cases"
    event_label = "value captured" if value else ("weighted events" if weighted else "events")
    header = _header(
        "decile",
        ("score range", "lowest to highest score in the decile"),
        count_label,
        event_label,
        ("event rate", "events per case in the decile"),
        ("cumulative " + event_label, "events in this decile and all above"),
        ("cumulative share", "share of all events captured down to this decile (gain)"),
        ("lift", "cumulative share / share of cases targeted (1 = random)"),
        ("decile lift", "the decile's own event rate / the overall rate"),
        ("KS", "cumulative share of events minus that of non-events, at the decile's end"),
    )
    whole_events = not (weighted or value)
    count, cum_events = np.asarray(result.count, float), np.asarray(result.cumulative_events, float)
    shared = bool(np.any(count != np.round(count)) or np.any(cum_events != np.round(cum_events)))
    if not weighted:
        # Whole cases: round the running totals and take differences, so the rows add up to
        # the totals (a tied group at a boundary is shared by the two deciles in the library).
        cum_count = np.round(np.asarray(result.cumulative_count, float))
        count = np.diff(cum_count, prepend=0.0)
    bin_events = np.asarray(result.events, float)
    if whole_events:
        cum_events = np.round(cum_events)
        bin_events = np.diff(cum_events, prepend=0.0)
    counts = number_style(count, integer=not weighted)
    events = number_style(bin_events, integer=whole_events)
    cumulative = number_style(cum_events, integer=whole_events)
    scores = number_style(list(result.score_min) + list(result.score_max))
    rate = number_style(result.rate)
    lift = number_style(list(result.lift) + list(result.bin_lift), [0.01])
    ks_max = int(abs(result.ks - result.ks_max).argmin()) if result.ks.size else -1
    rows = []
    for k in range(result.bin.size):
        rows.append(
            Row(
                cells=[
                    Cell(str(int(result.bin[k])), css="text"),
                    Cell(f"{scores(result.score_min[k])} to {scores(result.score_max[k])}"),
                    Cell(counts(count[k])),
                    Cell(events(bin_events[k])),
                    Cell(rate(result.rate[k])),
                    Cell(cumulative(cum_events[k])),
                    Cell(f"{100 * float(result.cumulative_gain[k]):.1f}%"),
                    Cell(lift(result.lift[k])),
                    Cell(lift(result.bin_lift[k])),
                    Cell(
                        f"{100 * float(result.ks[k]):.1f}",
                        css="sig" if k == ks_max else "",
                        title="the largest KS of the table" if k == ks_max else "",
                    ),
                ]
            )
        )
    note = (
        f"Events: {_plain_events(result.event_definition)}. KS in percentage points; bold: the "
        f"decile where it peaks ({100 * float(result.ks_max):.1f})."
        + (" Counts are sums of case weights." if weighted else "")
        + (
            " Whole counts are rounded running totals: cases tied on score at a decile boundary "
            "are shared between the two deciles, and the rates, shares and lifts use the exact "
            "shares."
            if shared and not weighted
            else ""
        )
    )
    return Table(header=header, rows=rows, note=note, css="deciles")


def _plain_events(definition: Any) -> str:
    """An event definition in words (:func:`ranklens._foundation.events.events_words`)."""
    text = str(definition).replace("events = ", "")
    return events_words(text).replace("true top", "the true top")


#: Targeting depths shown in the best-model table, and the compared measure at each.
_DEPTHS = (0.05, 0.1, 0.2, 0.3, 0.5)


def gain_contrasts(bands: Any, depths: Any = None) -> dict[tuple[float, str, str], Contrast]:
    """Paired comparisons of the gain of every pair of models at each depth of ``depths``
    (default: every depth of the band grid), from the bootstrap replicates of the gain bands;
    Holm-adjusted together. The gain and the lift at one depth differ by a constant factor, so
    a clear gain difference is a clear lift difference.

    Parameters
    ----------
    bands : CurveBandsResult
        :func:`ranklens.bands.curve_bands` of the gain curve.
    depths : sequence of float, optional
        Depths to compare (the nearest grid depth within 1e-9 is used; others are skipped).

    Returns
    -------
    dict
        ``{(depth, model_a, model_b): Contrast}``.
    """
    import statistics

    x = np.asarray(bands.x, dtype=float)
    columns = range(x.size) if depths is None else [int(abs(x - d).argmin()) for d in depths]
    replicates = np.asarray(bands.replicates, dtype=float)
    models = list(bands.models)
    normal = statistics.NormalDist()
    out: dict[tuple[float, str, str], Contrast] = {}
    for j in columns:
        depth = float(x[j])
        if depths is not None and min(abs(depth - d) for d in depths) > 1e-9:
            continue
        for a, b in bands.pairs:
            ia, ib = models.index(a), models.index(b)
            difference = float(bands.estimate[ia, j] - bands.estimate[ib, j])
            reps = replicates[:, ia, j] - replicates[:, ib, j]
            reps = reps[np.isfinite(reps)]
            sd = float(reps.std(ddof=1)) if reps.size > 1 else math.nan
            if sd > 0:
                p = 2.0 * normal.cdf(-abs(difference / sd))
            else:
                p = 1.0 if difference == 0 else 0.0
            out[(depth, a, b)] = Contrast(
                metric=f"gain at {100 * depth:g}%",
                model_a=a,
                model_b=b,
                value_a=float(bands.estimate[ia, j]),
                value_b=float(bands.estimate[ib, j]),
                difference=difference,
                sd=sd,
                p_value=p,
                direction="higher",
            )
    holm_contrasts(list(out.values()))
    return out


def leader_is_clear(
    contrasts: dict[tuple[float, str, str], Contrast], depth: float, leader: str, models: list[str]
) -> bool | None:
    """True when ``leader`` is clearly ahead of every other model at ``depth``; None when the
    depth was not compared."""
    tested = [
        c
        for (d, _a, _b), c in contrasts.items()
        if abs(d - depth) <= 1e-9 and leader in (c.model_a, c.model_b)
    ]
    if len(tested) != len(models) - 1:
        return None
    return all(c.better == leader for c in tested)


def _depth_table(result: Any, evaluation: Any = None) -> Table:
    """Each model's curve at a few depths; a model is named best at a depth only where the
    bootstrap bands of the gain separate it from every other model there (Holm-adjusted across
    every comparison in the table); elsewhere the row says so."""
    models = list(result.model_names)
    bands = (getattr(evaluation, "extras", None) or {}).get("bands", {}).get("gain")
    depths = [d for d in _DEPTHS if np.min(np.abs(result.depths - d)) <= 1e-9]
    contrasts = gain_contrasts(bands, depths) if bands is not None else {}
    header = _header("share targeted", *models, ("best", "named only where the lead is clear"))
    rows = []
    for depth in depths:
        j = int(abs(result.depths - depth).argmin())
        values = [float(v) for v in result.values[:, j]]
        leader = str(result.winner[j])
        style = number_style(values, [0.01])
        clear = leader_is_clear(contrasts, depth, leader, models) if leader else None
        cells = [Cell(f"{100 * depth:g}%", css="text")]
        for m, v in zip(models, values, strict=True):
            sub = ""
            if bands is not None and m in bands.models:
                k = list(bands.models).index(m)
                g = int(abs(np.asarray(bands.x) - depth).argmin())
                scale = v / float(bands.estimate[k, g]) if float(bands.estimate[k, g]) else 1.0
                sub = interval_text(style, bands.lower[k, g] * scale, bands.upper[k, g] * scale)
            cells.append(Cell(style(v), css="best" if clear and m == leader else "", sub=sub))
        if clear:
            verdict = leader
        elif clear is None:
            verdict = f"not tested ({leader} highest)"
        else:
            verdict = f"no clear difference ({leader} highest)"
        cells.append(Cell(verdict, css="text" if clear else "text missing"))
        rows.append(Row(cells=cells))
    if bands is not None:
        level = round(100 * bands.confidence_level)
        how = (
            f"Small numbers: the pointwise {level}% bootstrap band. A model is named best at a "
            "depth only when its gain there is clearly above every other model's, Holm-adjusted "
            f"across the {len(contrasts)} comparisons of this table."
        )
    else:
        how = "No bootstrap bands of the gain were computed: no model is named best."
    note = (
        f"{result.curve.capitalize()} of each model when the top share is targeted; events: "
        f"{_plain_events(result.event_definition)}. {how}"
    )
    return Table(
        header=header,
        rows=rows,
        caption=f"Best model by targeting depth ({result.curve})",
        note=note,
    )


def _coverage_table(model: str, result: Any) -> Table:
    level = round(100 * result.confidence_level)
    header = _header(
        "decile of prediction",
        "predictions",
        "cases",
        ("coverage", "share of the truth inside its interval"),
        (f"{level}% interval", "Wilson score interval of the coverage"),
        "mean width",
    )
    rows = []
    nominal = result.nominal
    predicted = number_style(list(result.pred_min) + list(result.pred_max))
    width = number_style(result.mean_width)
    count = number_style(result.count, integer=True)
    for k in range(result.bin.size):
        coverage = float(result.coverage[k])
        low, high = float(result.coverage_low[k]), float(result.coverage_high[k])
        off = math.isfinite(nominal) and not (low <= nominal <= high)
        rows.append(
            Row(
                cells=[
                    Cell(str(int(result.bin[k])), css="text"),
                    Cell(f"{predicted(result.pred_min[k])} to {predicted(result.pred_max[k])}"),
                    Cell(count(result.count[k])),
                    Cell(f"{100 * coverage:.1f}%", css="sig" if off else ""),
                    Cell(f"[{100 * low:.1f}%, {100 * high:.1f}%]"),
                    Cell(width(result.mean_width[k])),
                ]
            )
        )
    note = (
        f"Overall coverage {100 * result.overall_coverage:.1f}%"
        + (f" against a nominal {100 * nominal:.0f}%" if math.isfinite(nominal) else "")
        + "; bold: the nominal level is outside the bin's interval."
    )
    return Table(
        header=header, rows=rows, caption=f"Coverage by prediction decile: {model}", note=note
    )
