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
    "FewEventsWarning",
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


class FewEventsWarning(RanklensWarning):
    """An interval or test is not given: a class of the binary response has too few rows.

    The paired bootstrap's intervals of a binary response with fewer than
    :data:`ranklens._foundation.interval_formulas.MIN_CLASS_ROWS` rows in a class covered far less
    than their level (``docs/coverage.md``); they are NaN, with this warning saying which measure
    and why.
    """


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


class RowDomainError(DomainError):
    """A :class:`DomainError` about rows: the first offending value, its position and how many.

    The message is ``template.format(value=..., position=..., count=...)``. Keeping the three
    numbers lets the errors of the pieces of one data set (the partitions of a Dask DataFrame)
    combine into the error of the whole (:meth:`combine`). ``check`` numbers a measure's checks
    in the order it runs them (the response before the predictions, say): on the whole data
    the first check that fails anywhere is the one raised.
    """

    def __init__(
        self, template: str, value: float, position: int, count: int, check: int = 0
    ) -> None:
        super().__init__(template, value, position, count, check)  # pickles as it is built
        self.template, self.value, self.position = template, value, position
        self.count, self.check = count, check

    def __str__(self) -> str:
        return self.template.format(value=self.value, position=self.position, count=self.count)

    @classmethod
    def combine(cls, pieces: list[tuple[int, RowDomainError]]) -> RowDomainError:
        """The error of the whole from ``(rows before the piece, its error)`` in row order: the
        earliest check that failed in any piece, its first offending value at the position
        shifted by the rows before that piece, and the rows it found in every piece added."""
        check = min(error.check for _, error in pieces)
        kept = [(offset, error) for offset, error in pieces if error.check == check]
        offset, first = kept[0]
        total = sum(error.count for _, error in kept)
        return cls(first.template, first.value, offset + first.position, total, check)
