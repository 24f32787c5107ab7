"""Warnings and errors raised by ranklens.

Every public function raises :class:`ValueError` (naming the offending argument) for bad input, and
returns NaN together with an :class:`UndefinedMetricWarning` where a measure is genuinely
undefined for valid input (for example a constant ``y_true`` for a rank correlation, or no
predicted events for precision).
"""

from __future__ import annotations

import warnings

__all__ = [
    "DomainError",
    "RanklensWarning",
    "RowAlignmentWarning",
    "SwappedArgumentsWarning",
    "UndefinedMetricWarning",
    "warn_undefined",
]


class RanklensWarning(UserWarning):
    """Base class of every warning ranklens issues."""


class UndefinedMetricWarning(RanklensWarning):
    """A measure is undefined for this (valid) input; NaN was returned in its place."""


def warn_undefined(message: str, *, stacklevel: int = 3) -> None:
    """Issue an :class:`UndefinedMetricWarning` attributed to the caller of the public function.

    Parameters
    ----------
    message : str
        The warning text.
    stacklevel : int, default 3
        Passed to :func:`warnings.warn`; 3 points at the caller of the public function.

    Returns
    -------
    None
    """
    warnings.warn(message, UndefinedMetricWarning, stacklevel=stacklevel)


class RowAlignmentWarning(RanklensWarning):
    """Two pandas inputs have different indexes; ranklens matches their rows by position."""


class SwappedArgumentsWarning(RanklensWarning):
    """The arguments look swapped (for example a 0/1 label passed as the score)."""


class DomainError(ValueError):
    """The data lie outside the domain of a measure (Log-RMSE of a negative target, say).

    A :class:`ValueError`, so code that catches bad input keeps working; it is raised for valid
    data on which one measure is not defined, so that an evaluation of many measures can report
    that measure as undefined for this data rather than as a failure.
    """
