"""Terminal output shared by ``ranklens evaluate`` and ``ranklens demo`` (rich tables)."""

from __future__ import annotations

import math
from typing import Any

from ranklens.report.render import best_models, format_number

__all__ = ["summary_table"]


def summary_table(evaluation: Any, *, max_rows: int | None = None) -> Any:
    """Every measure (rows) by model (columns); the best value per row in bold green.

    "Best" follows each measure's registered direction (arrow column); with a bootstrap
    comparison the row also shows whether the best model is significantly ahead of the runner-up.
    """
    from rich.table import Table

    table = Table(title=f"{evaluation.title} (n = {evaluation.n:,})", title_justify="left")
    table.add_column("measure", style="bold")
    table.add_column("", justify="center")
    for model in evaluation.model_names:
        table.add_column(model, justify="right")
    for metric, info in list(evaluation.metrics.items())[:max_rows]:
        values = [
            evaluation.values.get(m, {}).get(metric, math.nan) for m in evaluation.model_names
        ]
        best = best_models(values, bool(info["higher_is_better"]))
        cells = []
        for j, value in enumerate(values):
            if metric not in evaluation.values.get(evaluation.model_names[j], {}):
                cells.append("")
                continue
            text = format_number(value)
            cells.append(f"[bold green]{text}[/]" if j in best else text)
        table.add_row(metric, "↑" if info["higher_is_better"] else "↓", *cells)
    return table
