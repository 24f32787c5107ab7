"""Warnings and errors raised by ranklens.

Every public function raises :class:`ValueError` (naming the offending argument) for bad input, and
returns NaN together with an :class:`UndefinedMetricWarning` where a measure is genuinely
undefined for valid input (for example a constant ``y_true`` for a rank correlation, or no
predicted events for precision).
"""

from __future__ import annotations

import warnings

__all__ = ["RanklensWarning", "RowAlignmentWarning", "UndefinedMetricWarning", "warn_undefined"]


class RanklensWarning(UserWarning):
    """Base class of every warning ranklens issues."""


class UndefinedMetricWarning(RanklensWarning):
    """A measure is undefined for this (valid) input; NaN was returned in its place."""


def warn_undefined(message: str, *, stacklevel: int = 3) -> None:
    """Issue an :class:`UndefinedMetricWarning` attributed to the caller of the public function."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=stacklevel)


class RowAlignmentWarning(RanklensWarning):
    """Two pandas inputs have different indexes; ranklens matches their rows by position."""
