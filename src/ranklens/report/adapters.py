"""Turn the library's result objects into report tables (reading fields only, never computing).

One function per kind of result; each accepts None (that part of the evaluation did not run) and
returns nothing for it, so a report degrades gracefully when a piece is missing.
"""

from __future__ import annotations

import math
from typing import Any

from ranklens.compare import DEFAULT_COMPARISON_METRICS, ComparisonResult, PermutationTestResult
from ranklens.report.tables import Cell, Row, Table, format_number, format_pvalue, frame_table
from ranklens.report.tables import header as _header

__all__ = ["comparison_intervals", "comparison_tables", "robustness_tables", "section_tables"]


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


def comparison_tables(comparison: Any) -> list[Table]:
    """Table 2's layout (Rosset, Perlich & Zadrozny 2005): the headline measures in full view,
    every measure collapsed. Takes the bootstrap's or the permutation test's result.

    Parameters
    ----------
    comparison : ComparisonResult or PermutationTestResult
        The comparison an evaluation ran.

    Returns
    -------
    list of Table
        The report tables, headline measures first.

    References
    ----------
    Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
    models. *Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*,
    370-377. doi:10.1109/ICDM.2005.126
    """
    if comparison is None:
        return []
    frame = comparison.to_frame()
    headline = _headline_metrics(comparison)
    tables = []
    if headline and len(headline) < len(comparison.metrics):
        table = _pairs_table(comparison, frame[frame["metric"].isin(headline)])
        table.caption = "Headline measures (Rosset, Perlich & Zadrozny 2005, Table 2)"
        tables.append(table)
        rest = _pairs_table(comparison, frame)
        rest.caption = (
            f"Every compared measure ({len(comparison.metrics)} measures, "
            f"{len(comparison.pairs)} pair(s) each)"
        )
        rest.collapsed = True
        tables.append(rest)
    else:
        tables.append(_pairs_table(comparison, frame))
    return tables


def _pairs_table(comparison: Any, frame: Any) -> Table:
    # The two tests share the layout; what differs is the spread column, how the p-value is
    # read, and whether there is an interval (the permutation test gives none).
    permutation = isinstance(comparison, PermutationTestResult)
    if permutation:
        spread = ("null SD", "standard deviation of the difference over the random swaps")
        p_help = "two-sided permutation p-value, (1 + #{|d*| ≥ |d|}) / (1 + swaps)"
        columns: tuple[Any, ...] = ()
    else:
        level = round(100 * comparison.confidence_level)
        spread = ("SD", "bootstrap standard deviation of the paired difference")
        p_help = "two-sided Gaussian p-value, 2 Φ(−|difference / SD|)"
        columns = ((f"{level}% CI of difference", f"{comparison.interval} interval"),)
    header = _header(
        "models (a vs b)",
        ("a", "value of model a"),
        ("b", "value of model b"),
        ("difference", "a − b, in the measure's units"),
        spread,
        ("p-value", p_help),
        *columns,
        ("better", "the model with the better value (using the measure's direction)"),
    )
    rows = []
    current = None
    for record in frame.itertuples(index=False):
        if record.metric != current:
            current = record.metric
            arrow = {True: "↑ higher is better", False: "↓ lower is better"}.get(
                record.higher_is_better, "≈ closest to its target is better"
            )
            rows.append(Row(group=f"{record.metric} ({arrow})"))
        p_value = float(record.p_value)
        cells = [
            Cell(f"{record.model_a} vs {record.model_b}", css="text"),
            Cell(format_number(record.value_a)),
            Cell(format_number(record.value_b)),
            Cell(format_number(record.difference)),
            Cell(format_number(record.null_sd if permutation else record.difference_sd)),
            Cell(
                format_pvalue(p_value),
                css="sig" if p_value < 0.05 else "",
                key=f"p:{record.metric}:{record.model_a}:{record.model_b}",
            ),
        ]
        if not permutation:
            cells.append(
                Cell(
                    f"[{format_number(record.difference_ci_lower)}, "
                    f"{format_number(record.difference_ci_upper)}]"
                )
            )
        cells.append(Cell(str(record.better), css="text"))
        rows.append(Row(cells=cells))
    if permutation:
        note = (
            f"Paired permutation test, {comparison.n_permutations} random swaps of the two "
            "models' predictions per pair; p-values below 0.05 in bold. A permutation test gives "
            "no interval. One-sided p-values are in results.json."
        )
    else:
        note = (
            f"Paired bootstrap, {comparison.n_bootstrap} replicates; p-values below 0.05 in "
            "bold. One-sided p-values (the convention of Rosset, Perlich & Zadrozny 2005) are "
            "half the two-sided ones and are in results.json."
        )
    return Table(header=header, rows=rows, note=note, css="comparison")


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
    Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
    models. *Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*,
    370-377. doi:10.1109/ICDM.2005.126
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
        for k, metric in enumerate(result.metrics):
            index = int(result.index[k])
            rows.append(
                Row(
                    cells=[
                        Cell(str(metric), css="text"),
                        Cell(format_number(result.entire_set[k])),
                        Cell(format_number(result.excluding_one[k])),
                        Cell(
                            format_number(result.percent_change[k], 3),
                            css="sig" if float(result.percent_change[k]) >= 5 else "",
                        ),
                        Cell(str(index) if index >= 0 else "–"),
                    ]
                )
            )
    note = "Changes of 5% or more in bold: one case moves that evaluation noticeably."
    return [Table(header=header, rows=rows, note=note, css="robustness")]


def section_tables(evaluation: Any, section: str) -> list[Table]:
    """Tables shown next to a section's plots (decile tables, best model by depth, coverage).

    Parameters
    ----------
    evaluation : ModelEvaluation
        A result of :func:`ranklens.report.evaluate_models`.
    section : str
        The report section (e.g. ``"targeting"``, ``"intervals"``).

    Returns
    -------
    list of Table
        Possibly empty.
    """
    tables: list[Table] = []
    if section == "targeting":
        best = evaluation.extras.get("best_model_by_depth")
        if best is not None:
            tables.append(_depth_table(best))
        for model, result in evaluation.curves.get("decile_table", {}).items():
            frame = result.to_frame()
            keep = [
                c
                for c in ("count", "events", "rate", "cumulative_gain", "lift", "bin_lift", "ks")
                if c in frame.columns
            ]
            table = frame_table(
                frame[keep],
                caption=f"Decile table: {model}",
                note=f"events: {result.event_definition}",
            )
            table.collapsed = True
            tables.append(table)
    if section == "intervals":
        for model, result in evaluation.curves.get("coverage_by_bin", {}).items():
            tables.append(_coverage_table(model, result))
    return tables


#: Targeting depths shown in the best-model table.
_DEPTHS = (0.05, 0.1, 0.2, 0.3, 0.5)


def _depth_table(result: Any) -> Table:
    """Each model's curve value at a few depths, the winner in bold, then where winners change."""
    models = list(result.model_names)
    header = _header("share targeted", *models, "best")
    rows = []
    for depth in _DEPTHS:
        j = int(abs(result.depths - depth).argmin())
        if abs(result.depths[j] - depth) > 1e-9:
            continue
        values = [float(v) for v in result.values[:, j]]
        winner = str(result.winner[j])
        cells = [Cell(f"{100 * depth:g}%", css="text")]
        cells += [
            Cell(format_number(v), css="best" if m == winner else "")
            for m, v in zip(models, values, strict=True)
        ]
        cells.append(Cell(winner, css="text"))
        rows.append(Row(cells=cells))
    runs = "; ".join(f"{name} {100 * lo:.0f}–{100 * hi:.0f}%" for name, lo, hi in result.segments)
    note = (
        f"{result.curve.capitalize()} of each model when the top share is targeted (which model "
        "for which depth, as in the lecture slides 'Visualize Model Performance'); events: "
        f"{result.event_definition}. Winner by depth: {runs}."
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
    for k in range(result.bin.size):
        coverage = float(result.coverage[k])
        low, high = float(result.coverage_low[k]), float(result.coverage_high[k])
        off = math.isfinite(nominal) and not (low <= nominal <= high)
        rows.append(
            Row(
                cells=[
                    Cell(str(int(result.bin[k])), css="text"),
                    Cell(
                        f"{format_number(result.pred_min[k])} to "
                        f"{format_number(result.pred_max[k])}"
                    ),
                    Cell(format_number(int(result.count[k]))),
                    Cell(f"{100 * coverage:.1f}%", css="sig" if off else ""),
                    Cell(f"[{100 * low:.1f}%, {100 * high:.1f}%]"),
                    Cell(format_number(result.mean_width[k])),
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
