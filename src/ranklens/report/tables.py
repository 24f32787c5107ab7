"""The report's view models: tables of cells, sections, and the number formats they use.

The adapters (results -> tables) and the renderer (tables -> HTML) both read these, so neither
imports the other's module for them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from ranklens._foundation.format import distinguishing_decimals, format_number, is_finite_number

__all__ = [
    "Cell",
    "Row",
    "Section",
    "Table",
    "distinguishing_style",
    "format_number",
    "format_pvalue",
    "header",
    "interval_text",
]


# --------------------------------------------------------------------------------------------
# Numbers


def format_pvalue(p: Any) -> str:
    """A p-value: three decimals, or '< 0.001'.

    Parameters
    ----------
    p : float
        A p-value (NaN allowed).

    Returns
    -------
    str
        The formatted p-value.
    """
    try:
        v = float(p)
    except (TypeError, ValueError):
        return "not defined"
    if math.isnan(v):
        return "not defined"
    return "< 0.001" if v < 0.001 else f"{v:.3f}"


# --------------------------------------------------------------------------------------------
# View models (plain dicts for the template)


@dataclasses.dataclass
class Cell:
    text: str
    css: str = ""
    title: str = ""
    sub: str = ""
    key: str = ""


@dataclasses.dataclass
class Row:
    cells: list[Cell] = dataclasses.field(default_factory=list)
    group: str = ""


@dataclasses.dataclass
class Table:
    header: list[dict[str, str]]
    rows: list[Row]
    caption: str = ""
    note: str = ""
    css: str = ""
    collapsed: bool = False


@dataclasses.dataclass
class Section:
    id: str
    title: str
    guide: str = ""
    tables: list[Table] = dataclasses.field(default_factory=list)
    figures: list[Any] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    #: Sentences shown before the tables (HTML: the caller escapes what comes from the data).
    lead: list[str] = dataclasses.field(default_factory=list)
    #: The collapsible "How this is computed" (HTML).
    how: str = ""


def header(*names: str | tuple[str, str]) -> list[dict[str, str]]:
    """Column headings: a name, or ``(name, tooltip)``.

    Parameters
    ----------
    *names : str or (str, str)
        Column names, each optionally with a tooltip.

    Returns
    -------
    list of dict
        One ``{"text": name, "title": tooltip}`` entry per column (tooltip ``""`` if none).
    """
    out = []
    for name in names:
        text, title = name if isinstance(name, tuple) else (name, "")
        out.append({"text": text, "title": title})
    return out


# --------------------------------------------------------------------------------------------
# One notation per row or column, digits from the interval width
#
# Readers see positional numbers only, never scientific notation: thousands separators for
# large magnitudes (every whole digit written: ``25,198,765``), as many decimals as the row's
# intervals can tell for the others (``0.0000123``), and always enough that two different
# numbers of one row or column read differently.

#: Most decimals a row gets from its interval widths, unless its largest magnitude needs more
#: for four significant digits.
_MAX_DECIMALS = 6


@dataclasses.dataclass(frozen=True)
class NumberStyle:
    """How every number of one row or column is written: positional notation with thousands
    separators and ``decimals`` decimals."""

    decimals: int = 0

    def __call__(self, value: Any) -> str:
        try:
            v = float(value)
        except (TypeError, ValueError):
            return "not a number"
        if math.isnan(v):
            return "not defined"
        if math.isinf(v):
            return "infinite" if v > 0 else "minus infinite"
        text = f"{v:,.{self.decimals}f}"
        return "0" if text.strip("-0.,") == "" and self.decimals == 0 else text


def distinguishing_style(style: NumberStyle, *values: Any) -> NumberStyle:
    """``style``, with more decimals if needed so that no two different numbers of ``values``
    are written the same (:func:`~ranklens._foundation.format.distinguishing_decimals`).

    Parameters
    ----------
    style : NumberStyle
        The notation chosen for the row or sentence.
    *values : float
        The numbers shown together (a row, or the two sides of a comparison).

    Returns
    -------
    NumberStyle
        ``style`` itself when they already read differently (or are equal).

    Examples
    --------
    >>> a, b = 0.71021, 0.71024
    >>> style = distinguishing_style(NumberStyle(2), a, b)
    >>> style(a), style(b)
    ('0.71021', '0.71024')
    """
    decimals = distinguishing_decimals(values, style.decimals)
    return style if decimals == style.decimals else dataclasses.replace(style, decimals=decimals)


def interval_text(style: NumberStyle, low: Any, high: Any) -> str:
    """An interval in a row's notation: ``[0.018, 0.029]``, or ``[14,587,144 to 39,779,873]``
    when thousands separators would make the comma between the two ends ambiguous.

    Parameters
    ----------
    style : NumberStyle
        The notation of the row or column.
    low, high : float
        The interval's ends.

    Returns
    -------
    str
        The interval, in brackets.

    Examples
    --------
    >>> interval_text(NumberStyle(3), 0.0181, 0.0293)
    '[0.018, 0.029]'
    >>> interval_text(NumberStyle(0), 14587144.2, 39779873.0)
    '[14,587,144 to 39,779,873]'
    """
    a, b = style(low), style(high)
    return f"[{a} to {b}]" if "," in a + b else f"[{a}, {b}]"


def number_style(
    values: Iterable[Any], widths: Iterable[Any] = (), *, integer: bool = False
) -> NumberStyle:
    """The one notation for a row or column of numbers: positional, never scientific.

    The decimals give the narrowest interval width two significant digits (a value is not
    written more precisely than the data can tell); without intervals, four significant digits
    of the largest magnitude. At most six decimals from the widths, unless the largest
    magnitude needs more for four significant digits (``0.00001234``); large numbers keep
    every whole digit (``25,198,765``). Then as many more decimals as it takes for two
    different values never to read the same
    (:func:`~ranklens._foundation.format.distinguishing_decimals`). ``integer=True`` (counts)
    keeps whole numbers whole.

    Parameters
    ----------
    values : iterable of float
        The numbers shown together.
    widths : iterable of float, optional
        Widths of their confidence intervals.
    integer : bool, default False
        Write whole numbers (counts): no decimals.

    Returns
    -------
    NumberStyle
        A formatter.

    Examples
    --------
    >>> number_style([2.52e7, 813_000.5])(2.52e7)
    '25,200,000'
    >>> style = number_style([1.2e-5, 3.4e-6])
    >>> style(1.2e-5), style(3.4e-6)
    ('0.00001200', '0.00000340')
    """
    values = list(values)
    finite = [abs(float(v)) for v in values if is_finite_number(v)]
    big = max(finite, default=0.0)
    if (integer and all(float(v).is_integer() for v in finite)) or big == 0:
        return NumberStyle(0)
    most = max(_MAX_DECIMALS, 3 - math.floor(math.log10(big)))
    positive = [float(w) for w in widths if is_finite_number(w) and float(w) > 0]
    if positive:
        decimals = 1 - math.floor(math.log10(min(positive)))
    else:
        decimals = 3 - math.floor(math.log10(big))
    return distinguishing_style(NumberStyle(min(max(decimals, 0), most)), *values)
