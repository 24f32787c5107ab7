"""Draw the report's plots from stored results (placeholder, filled as the displays land)."""

from __future__ import annotations

from typing import Any

__all__ = ["build_figures"]


def build_figures(evaluation: Any) -> dict[str, list[Any]]:
    return {}
