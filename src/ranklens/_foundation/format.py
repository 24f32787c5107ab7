"""Number formatting and the compact HTML of result objects: the bottom of the package.

Everything that shows a number (result ``repr``s in notebooks, the report, the terminal tables)
formats it here, so a value reads the same everywhere, and the result base class can render
itself without importing the presentation layer.
"""

from __future__ import annotations

import dataclasses
import html
import itertools
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "distinguishing_decimals",
    "finite_or_none",
    "format_number",
    "is_finite_number",
    "percent_change",
    "plain_number",
    "result_html",
    "summarise",
    "table_html",
    "with_currency",
]


def is_finite_number(value: Any) -> bool:
    """Whether ``value`` reads as a finite float (False for NaN, infinities, None and text).

    Parameters
    ----------
    value : object
        A number, a numeric string, None or anything else.

    Returns
    -------
    bool
        True when ``float(value)`` succeeds and is finite.

    Examples
    --------
    >>> [is_finite_number(v) for v in (1, "2.5", None, math.nan, "n/a")]
    [True, True, False, False, False]
    """
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def finite_or_none(value: Any) -> Any:
    """JSON has no NaN or infinity: map them to null, recursively (dicts and lists)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_or_none(v) for v in value]
    return value


def with_currency(text: str, currency: str | None) -> str:
    """An amount already formatted as ``text``, with its currency.

    A symbol (one character that is not a letter or digit, such as ``$``, ``€`` or ``£``) goes
    before the number, after its sign; a code or a word (``EUR``, ``CHF``) after it, spaced.
    Without a currency the text is returned as it is.

    Examples
    --------
    >>> with_currency("1,234", "$"), with_currency("-1,234", "€"), with_currency("1,234", "EUR")
    ('$1,234', '-€1,234', '1,234 EUR')
    """
    if not currency:
        return text
    if len(currency) == 1 and not currency.isalnum():
        sign, digits = ("-", text[1:]) if text.startswith(("-", "\u2212")) else ("", text)
        return f"{sign}{currency}{digits}"
    return f"{text} {currency}"


def distinguishing_decimals(values: Iterable[Any], decimals: int = 0) -> int:
    """The fewest decimals, at least ``decimals``, with which different numbers are written
    differently in positional notation (so that two numbers shown together never read the same).

    Every finite number of ``values`` is written with ``d`` decimals (``f"{v:,.{d}f}"``), ``d``
    counting up from ``decimals`` until no two different numbers share a text. Seventeen
    significant digits tell any two doubles apart, so the count stops, at the latest, at
    ``16 - floor(log10(m))`` decimals, ``m`` the smallest magnitude that needs telling apart.
    NaN, infinities, non-numbers and repeats of one number need no decimals.

    Parameters
    ----------
    values : iterable of float
        The numbers shown together (a row or a column of a table, or the two sides of a
        comparison).
    decimals : int, default 0
        The decimals a reader gets anyway.

    Returns
    -------
    int
        The number of decimals.

    Examples
    --------
    >>> distinguishing_decimals([24812345.0, 24798765.0])
    0
    >>> distinguishing_decimals([0.712, 0.708], 2)
    3
    >>> distinguishing_decimals([0.71021, 0.71024], 3)
    5
    >>> distinguishing_decimals([1.0e10, 1.0e-6, 2.0e-6])
    6
    >>> distinguishing_decimals([1.0, 1.0, math.nan], 3)
    3
    """
    distinct = sorted({float(v) for v in values if is_finite_number(v)})
    d = max(int(decimals), 0)
    if len(distinct) < 2:
        return d
    # the closest neighbours decide; 17 significant digits of the smaller one always suffice
    smallest = min((abs(a) or abs(b)) for a, b in itertools.pairwise(distinct))
    most = max(d, 16 - math.floor(math.log10(smallest)))
    while d < most and len({f"{v:,.{d}f}" for v in distinct}) < len(distinct):
        d += 1
    return d


def format_number(value: Any, digits: int = 4) -> str:
    """A number as a report, a terminal table or a notebook shows it: positional notation,
    never scientific.

    Magnitudes from 0.001 to 100 get ``digits`` decimals, from 100 to 100,000 ``digits - 3``
    (at least one); from 100,000 up every whole digit is written, with thousands separators
    (``25,198,765``); below 0.001, ``digits`` significant digits (``0.00001235``). NaN and None
    show as an en dash; integers stay integers; booleans as yes/no.

    Parameters
    ----------
    value : object
        A number, bool, None or NaN.
    digits : int, default 4
        Significant decimals.

    Returns
    -------
    str
        The formatted value.

    Examples
    --------
    >>> format_number(25198765.4), format_number(1234.5), format_number(0.123456)
    ('25,198,765', '1,234.5', '0.1235')
    >>> format_number(-1.23456e-5), format_number(float("nan")), format_number(float("inf"))
    ('-0.00001235', '–', '∞')
    """
    if value is None:
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(v):
        return "–"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e5:
        return f"{v:,.0f}"
    if a < 1e-3:
        return f"{v:.{digits - 1 - math.floor(math.log10(a))}f}"
    if a >= 100:
        return f"{v:,.{max(digits - 3, 1)}f}"
    return f"{v:.{digits}f}"


def plain_number(value: Any, digits: int = 4) -> str:
    """A number as plain text for a legend or label: never scientific notation.

    Billions and millions are written as words (``8.55 billion``); other numbers with
    ``digits`` significant digits and thousands separators, in positional notation
    (``0.00001235``).

    Parameters
    ----------
    value : float
        The number; NaN (or None) reads ``n/a``.
    digits : int, default 4
        Significant digits.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> plain_number(8.5496e9)
    '8.55 billion'
    >>> plain_number(1234.5678)
    '1,235'
    >>> plain_number(1.23456e-5)
    '0.00001235'
    """
    if value is None:
        return "n/a"
    v = float(value)
    if math.isnan(v):
        return "n/a"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if abs(v) >= size:
            scaled = np.format_float_positional(
                v / size, precision=max(digits - 1, 1), unique=True, fractional=False, trim="-"
            )
            return f"{scaled} {word}"
    if abs(v) >= 10 ** (digits - 1):
        return f"{v:,.0f}"
    text = np.format_float_positional(v, precision=digits, unique=True, fractional=False, trim="-")
    return str(text)


def summarise(value: Any) -> str:
    """One short line for any field value: arrays by size, dtype and range; long reprs cut."""
    if isinstance(value, np.ndarray):
        if value.size and value.dtype.kind in "biuf":
            finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
            span = (
                f", {format_number(finite.min())} … {format_number(finite.max())}"
                if finite.size
                else ""
            )
            return f"array of {value.size:,} ({value.dtype}{span})"
        return f"array of {value.size:,} ({value.dtype})"
    if isinstance(value, tuple) and all(isinstance(v, int | float | np.number) for v in value):
        return "(" + ", ".join(format_number(v) for v in value) + ")"
    if isinstance(value, float | int | np.number) and not isinstance(value, bool):
        return format_number(value)
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def result_html(result: Any) -> str:
    """Any frozen result as a small HTML table (for ``_repr_html_`` in notebooks).

    Parameters
    ----------
    result : Result
        A frozen result object of ranklens.

    Returns
    -------
    str
        An HTML fragment.
    """
    rows = []
    for field in dataclasses.fields(result):
        if not field.repr:
            continue
        value = getattr(result, field.name)
        if dataclasses.is_dataclass(value) and hasattr(value, "_repr_html_"):
            text = (
                f"<details><summary>{html.escape(type(value).__name__)}</summary>"
                f"{value._repr_html_()}</details>"
            )
        else:
            text = html.escape(summarise(value))
        rows.append(
            f"<tr><th style='text-align:left'>{html.escape(field.name)}</th>"
            f"<td style='text-align:right'>{text}</td></tr>"
        )
    return (
        f"<div class='ranklens-result'><strong>{html.escape(type(result).__name__)}</strong>"
        f"<table>{''.join(rows)}</table></div>"
    )


#: Styles of :func:`table_html`, scoped to its fragment so a notebook's own page is left alone.
_TABLE_STYLE = (
    ".ranklens-table table{border-collapse:collapse;font-size:13px}"
    ".ranklens-table th,.ranklens-table td{padding:3px 9px;text-align:right;"
    "border-bottom:1px solid #d9dde5}"
    ".ranklens-table th:first-child,.ranklens-table td:first-child{text-align:left}"
    ".ranklens-table tr.group th{background:#eef2f8;text-transform:capitalize}"
    ".ranklens-table td.best{background:#e7f3e8;font-weight:600}"
    ".ranklens-table td.failed{color:#b00020;font-weight:600}"
)


def table_html(
    title: str,
    header: list[str],
    rows: list[tuple[str, list[tuple[str, str]]] | str],
) -> str:
    """A small self-contained HTML table for notebooks (``_repr_html_`` of rich results).

    ``rows`` holds group headings (a plain string) and data rows ``(label, [(text, css), ...])``;
    every text is escaped here.
    """
    parts = [
        f"<div class='ranklens-table'><style>{_TABLE_STYLE}</style>",
        f"<strong>{html.escape(title)}</strong><table><thead><tr>",
        "".join(f"<th>{html.escape(h)}</th>" for h in header),
        "</tr></thead><tbody>",
    ]
    for row in rows:
        if isinstance(row, str):
            parts.append(
                f"<tr class='group'><th colspan='{len(header)}'>{html.escape(row)}</th></tr>"
            )
            continue
        label, cells = row
        parts.append(f"<tr><td>{html.escape(label)}</td>")
        parts.extend(
            f"<td class='{html.escape(css)}'>{html.escape(text)}</td>" for text, css in cells
        )
        parts.append("</tr>")
    parts.append("</tbody></table></div>")
    return "".join(parts)


def percent_change(change: float, value: float) -> float:
    """The size of a change as a percentage of the value it changes (the robustness tables'
    "% change" column).

    Parameters
    ----------
    change : float
        The change of the value.
    value : float
        The value before the change.

    Returns
    -------
    float
        ``100 |change| / |value|``; 0 for no change, infinity for a change of a zero value.
    """
    if change == 0.0:
        return 0.0
    return math.inf if value == 0.0 else 100.0 * abs(change) / abs(value)
