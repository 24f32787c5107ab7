"""Placeholder: filled in by the issue that owns this module."""

from __future__ import annotations

__all__: list[str] = []
