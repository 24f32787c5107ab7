"""Turn the library's result objects into report tables (reading fields only, never computing).

One function per kind of result; each accepts None (that part of the evaluation did not run) and
returns nothing for it, so a report degrades gracefully when a piece is missing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ranklens.report.render import Cell, Row, Table, _header, format_number, format_pvalue

__all__ = ["comparison_intervals", "comparison_table", "robustness_tables", "section_tables"]


def comparison_intervals(comparison: Any) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(model, metric): (low, high)}`` from a :class:`~ranklens.compare.ComparisonResult`."""
    if comparison is None or getattr(comparison, "method", "") != "bootstrap":
        return {}
    out = {}
    for k, metric in enumerate(comparison.metrics):
        for m, model in enumerate(comparison.models):
            low, high = float(comparison.ci_lower[k, m]), float(comparison.ci_upper[k, m])
            if math.isfinite(low) and math.isfinite(high):
                out[(model, metric)] = (low, high)
    return out


def comparison_table(comparison: Any) -> Table | None:
    """Seed 000 Table 2's layout for every metric and pair of models."""
    if comparison is None:
        return None
    frame = comparison.to_frame()
    level = int(round(100 * comparison.confidence_level))
    header = _header(
        "measure",
        "models (a vs b)",
        ("a", "value of model a"),
        ("b", "value of model b"),
        ("difference", "a − b, in the measure's units"),
        ("SD", "bootstrap standard deviation of the paired difference"),
        ("p-value", "two-sided Gaussian p-value, 2 Φ(−|difference / SD|)"),
        (f"{level}% CI of difference", f"{comparison.interval} interval"),
        ("better", "the model with the better value (using the measure's direction)"),
    )
    rows = []
    for record in frame.itertuples(index=False):
        rows.append(
            Row(
                cells=[
                    Cell(str(record.metric), css="text"),
                    Cell(f"{record.model_a} vs {record.model_b}", css="text"),
                    Cell(format_number(record.value_a)),
                    Cell(format_number(record.value_b)),
                    Cell(format_number(record.difference)),
                    Cell(format_number(record.difference_sd)),
                    Cell(
                        format_pvalue(record.p_value),
                        css="sig" if record.p_value < 0.05 else "",
                        key=f"p:{record.metric}:{record.model_a}:{record.model_b}",
                    ),
                    Cell(
                        f"[{format_number(record.difference_ci_lower)}, "
                        f"{format_number(record.difference_ci_upper)}]"
                    ),
                    Cell(str(record.better), css="text"),
                ]
            )
        )
    note = (
        f"{comparison.method.capitalize()}, {comparison.n_bootstrap} paired replicates; "
        "p-values below 0.05 in bold. One-sided p-values (seed 000's convention) are half the "
        "two-sided ones and are in results.json."
    )
    return Table(header=header, rows=rows, note=note, css="comparison")


def robustness_tables(robustness: dict[str, Any]) -> list[Table]:
    """Seed 000 Table 1's layout per model (whole set, without the most influential point)."""
    tables = []
    for model, result in robustness.items():
        frame = result.to_frame() if hasattr(result, "to_frame") else None
        if frame is None:
            continue
        from ranklens.report.render import frame_table

        tables.append(frame_table(frame, caption=model, index=False))
    return tables


def section_tables(evaluation: Any, section: str) -> list[Table]:
    """Tables shown next to a section's plots (e.g. the decile table under targeting)."""
    return []


def _finite(values: Any) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    return arr[np.isfinite(arr)]
