"""The report's view models: tables of cells, sections, and the number formats they use.

The adapters (results -> tables) and the renderer (tables -> HTML) both read these, so neither
imports the other's module for them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from ranklens._foundation.format import distinguishing_digits, format_number

__all__ = [
    "Cell",
    "Row",
    "Section",
    "Table",
    "distinguishing_style",
    "format_number",
    "format_pvalue",
    "frame_table",
    "header",
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


def frame_table(
    frame: Any,
    *,
    caption: str = "",
    note: str = "",
    index: bool = True,
    pvalue_columns: Iterable[str] = (),
) -> Table:
    """A pandas DataFrame as a report table (numbers formatted, text left-aligned).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table's data.
    caption, note : str, default ''
        Text above and below the table.
    index : bool, default True
        Show the frame's index as the first column.
    pvalue_columns : iterable of str, default ()
        Columns formatted as p-values.

    Returns
    -------
    Table
        The report table.
    """
    pcols = set(pvalue_columns)
    columns = [str(c) for c in frame.columns]
    index_name = str(frame.index.name) if frame.index.name is not None else ""
    columns_header = header(*(([index_name] if index else []) + columns))
    rows = []
    for label, record in zip(frame.index, frame.itertuples(index=False), strict=True):
        cells = [Cell(str(label), css="text")] if index else []
        for column, value in zip(columns, record, strict=True):
            if column in pcols:
                text = format_pvalue(value)
                css = "sig" if _is_small(value) else ""
            elif isinstance(value, str):
                text, css = value, "text"
            elif isinstance(value, tuple | list) and len(value) == 2:
                text, css = f"[{format_number(value[0])}, {format_number(value[1])}]", ""
            else:
                text, css = format_number(value), ""
            cells.append(Cell(text, css=css))
        rows.append(Row(cells=cells))
    return Table(header=columns_header, rows=rows, caption=caption, note=note)


def _is_small(p: Any) -> bool:
    try:
        return float(p) < 0.05
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------
# One notation per row or column, digits from the interval width

#: Largest magnitude written in fixed-point notation; beyond it (or below 1e-3) a row or column
#: is written in scientific notation throughout.
_FIXED_MAX = 1e7
_FIXED_MIN = 1e-3


@dataclasses.dataclass(frozen=True)
class NumberStyle:
    """How every number of one row or column is written: fixed-point with ``decimals``, or
    scientific with ``digits`` significant digits (``scientific=True``)."""

    decimals: int = 0
    scientific: bool = False
    digits: int = 3

    def __call__(self, value: Any) -> str:
        try:
            v = float(value)
        except (TypeError, ValueError):
            return "not a number"
        if math.isnan(v):
            return "not defined"
        if math.isinf(v):
            return "infinite" if v > 0 else "minus infinite"
        if self.scientific:
            return f"{v:.{self.digits - 1}e}" if v != 0 else "0"
        text = f"{v:,.{self.decimals}f}"
        return "0" if text.strip("-0.,") == "" and self.decimals == 0 else text


def distinguishing_style(style: NumberStyle, a: Any, b: Any) -> NumberStyle:
    """``style``, with more digits if needed so that two different numbers ``a`` and ``b`` are
    not written the same (:func:`~ranklens._foundation.format.distinguishing_digits`).

    Parameters
    ----------
    style : NumberStyle
        The notation chosen for the row or sentence.
    a, b : float
        The two numbers compared side by side.

    Returns
    -------
    NumberStyle
        ``style`` itself when the two already read differently (or are equal).

    Examples
    --------
    >>> a, b = 24812345.0, 24798765.0
    >>> style = distinguishing_style(NumberStyle(scientific=True, digits=3), a, b)
    >>> style(a), style(b)
    ('2.481e+07', '2.480e+07')
    """
    if not (_finite(a) and _finite(b)) or float(a) == float(b) or style(a) != style(b):
        return style
    if style.scientific:
        return dataclasses.replace(style, digits=distinguishing_digits(a, b, style.digits))
    decimals = style.decimals
    while decimals < 17 and f"{float(a):,.{decimals}f}" == f"{float(b):,.{decimals}f}":
        decimals += 1
    return dataclasses.replace(style, decimals=decimals)


def number_style(
    values: Iterable[Any], widths: Iterable[Any] = (), *, integer: bool = False
) -> NumberStyle:
    """The one notation for a row or column of numbers.

    Fixed-point unless the largest magnitude is at least 1e7 or below 1e-3 (then scientific).
    The decimals give the narrowest interval width two significant digits (a value is not
    written more precisely than the data can tell); without intervals, four significant digits
    of the largest magnitude. ``integer=True`` (counts) keeps whole numbers whole.

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
    """
    finite = [abs(float(v)) for v in values if _finite(v)]
    if integer and all(float(v).is_integer() for v in finite):
        big = max(finite, default=0.0)
        return NumberStyle(0, scientific=big >= 1e12)
    big = max(finite, default=0.0)
    if big == 0:
        return NumberStyle(0)
    if big >= _FIXED_MAX or big < _FIXED_MIN:
        return NumberStyle(scientific=True, digits=3)
    positive = [float(w) for w in widths if _finite(w) and float(w) > 0]
    if positive:
        decimals = 1 - math.floor(math.log10(min(positive)))
    else:
        decimals = 3 - math.floor(math.log10(big))
    return NumberStyle(min(max(decimals, 0), 6))


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False
