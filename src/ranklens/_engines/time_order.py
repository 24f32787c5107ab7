"""Rows in time order in the pipeline: the times read, the rows sorted, the block scheme chosen.

:func:`ranklens.evaluate_models` takes ``time`` (the rows' times), ``scheme`` and
``block_length``. :func:`check_resampling` checks them before any work and says which scheme
the bootstrap uses; :func:`read_times` turns the times (datetime64, pandas datetimes with or
without a time zone, ISO 8601 strings, or numbers) into sort keys and :class:`TimeOrder` the
stable order that puts the rows in time order, which the pipeline applies to every column
before anything else (:func:`take_rows`). :func:`block_settings` says, for the settings, the
terminal, the JSON document and the report, which block bootstrap gave the intervals.

References
----------
Politis, D. N. and Romano, J. P. (1992). A circular block-resampling procedure for stationary
data. In *Exploring the Limits of Bootstrap*, Wiley, 263-270.

Politis, D. N. and Romano, J. P. (1994). The stationary bootstrap. *Journal of the American
Statistical Association* 89(428), 1303-1313.

Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
bootstrap. *Econometric Reviews* 23(1), 53-70.
"""

from __future__ import annotations

import dataclasses
from numbers import Real
from typing import Any

import numpy as np

from ranklens._foundation.times import as_time_series, first_row, parse_times
from ranklens._inference.resampling import BLOCK_SCHEMES, resolve_block_length

__all__ = [
    "TimeOrder",
    "block_settings",
    "check_resampling",
    "read_times",
    "take_rows",
]


def check_resampling(
    time_given: bool,
    scheme: Any,
    block_length: Any,
    *,
    n_bootstrap: int,
    groups_given: bool,
) -> str | None:
    """The block scheme the bootstrap uses (None: rows resampled one by one), checked before
    any work.

    With ``time`` the default is ``"stationary"``; ``scheme="stationary"`` or ``"circular"``
    without ``time`` takes the rows in the order given.

    Parameters
    ----------
    time_given : bool
        Whether ``time`` was given.
    scheme : {"stationary", "circular"} or None
        The scheme asked for.
    block_length : float or "auto"
        The block length asked for (a number needs a block scheme).
    n_bootstrap : int
        The replicates (a block scheme needs them).
    groups_given : bool
        Whether ``groups`` was given (it cannot be combined with a block scheme).

    Returns
    -------
    str or None
        ``"stationary"``, ``"circular"`` or None.

    Raises
    ------
    ValueError
        Naming the argument: an unknown ``scheme``; a ``block_length`` other than ``"auto"``
        without a block scheme; a block scheme with ``groups`` or with ``n_bootstrap=0``.
    """
    if scheme is not None and scheme not in BLOCK_SCHEMES:
        raise ValueError(
            f"scheme must be one of {BLOCK_SCHEMES} (blocks of consecutive rows) or None (rows "
            f"resampled one by one, unless time is given); got {scheme!r}"
        )
    chosen = scheme if scheme is not None else ("stationary" if time_given else None)
    auto = isinstance(block_length, str) and block_length == "auto"
    if chosen is None:
        if not auto:
            raise ValueError(
                "block_length is the length of the blocks of a block scheme; give time= (rows in "
                "time order, resampled by the stationary bootstrap) or scheme='stationary' or "
                f"'circular' too (got block_length={block_length!r})"
            )
        return None
    why = f"scheme={chosen!r}" if scheme is not None else "time (scheme='stationary' by default)"
    if groups_given:
        raise ValueError(
            f"groups: {why} resamples blocks of consecutive rows, groups whole units; the "
            "two designs cannot be combined (leave groups out, or time and scheme)"
        )
    if not n_bootstrap:
        raise ValueError(
            f"{why} resamples blocks of consecutive rows; with n_bootstrap=0 nothing is "
            "resampled (give n_bootstrap >= 2)"
        )
    if not auto and (isinstance(block_length, bool) or not isinstance(block_length, Real)):
        raise ValueError(f"block_length must be 'auto' or a number; got {block_length!r}")
    return chosen


@dataclasses.dataclass(frozen=True)
class TimeOrder:
    """The rows' times and the stable order that sorts them.

    Attributes
    ----------
    rows : ndarray of int64
        ``rows[i]`` is the position, in the data as given, of the ``i``-th row in time order
        (a stable sort: rows with equal times keep their order).
    first, last : str
        The earliest and the latest time, as text (a date alone when every time is midnight).
    name : str or None
        The column's name (None for unnamed values).
    sorted_already : bool
        Whether the rows were in time order already.
    n_tied : int
        Rows whose time equals the previous row's (in time order).
    times : pandas.Series or None
        The times as read (:func:`parse_times`), in the order given: datetimes (time-zone
        aware ones as given, in UTC when the offsets differ) or float64 numbers.
    dates : bool
        Whether ``times`` are dates and times (else numbers, a time index).
    """

    rows: np.ndarray
    first: str
    last: str
    name: str | None
    sorted_already: bool
    n_tied: int
    times: Any = None
    dates: bool = False

    def settings(self) -> dict[str, Any]:
        """The ``settings`` entry ``"time"``: the column, the span and what was done."""
        label = repr(self.name) if self.name is not None else "given"
        done = "rows in that order already" if self.sorted_already else "rows sorted by it"
        tied = f"; {self.n_tied:,} row(s) share the time of the row before" if self.n_tied else ""
        n = self.rows.shape[0]
        return {"time": f"{label}: {n:,} rows from {self.first} to {self.last} ({done}{tied})"}


def _shown(series: Any, position: int, dates: bool) -> str:
    value = series.iloc[position]
    if not dates:
        return f"{float(value):g}"
    midnight = value.tzinfo is None and value == value.normalize()
    return str(value.date()) if midnight else value.isoformat()


def read_times(time: Any, n: int) -> TimeOrder:
    """The rows' times read and the stable order that sorts them.

    Parameters
    ----------
    time : array-like of shape (n,)
        One time per row: NumPy datetime64, pandas datetimes (time-zone aware ones are
        compared in UTC), ISO 8601 strings (all with a UTC offset, or none), Python dates and
        datetimes, or numbers (a time index).
    n : int
        The number of rows.

    Returns
    -------
    TimeOrder

    Raises
    ------
    ValueError
        Naming ``time``: another length, a missing time (drop those rows first), a value that
        is not a time, booleans, or times with and without a UTC offset mixed.
    """
    series = as_time_series(time)
    if series.shape[0] != n:
        raise ValueError(f"time has length {series.shape[0]}; the data have {n} rows")
    missing = series.isna().to_numpy()
    if missing.any():
        raise ValueError(
            f"time: {int(missing.sum()):,} row(s) have no time (the first is row "
            f"{first_row(missing) + 1}); drop them first (ranklens evaluate --drop-na does)"
        )
    keys, dates = parse_times(series)
    values = keys.to_numpy()
    if dates and getattr(keys.dt, "tz", None) is not None:  # compared in UTC
        values = keys.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy()
    if not dates and not np.isfinite(values).all():
        row = first_row(~np.isfinite(values))
        raise ValueError(f"time: row {row + 1} is {values[row]!r}, not a finite number")
    rows = np.argsort(values, kind="stable").astype(np.int64)
    ordered = values[rows]
    name = getattr(time, "name", None)
    return TimeOrder(
        rows=rows,
        first=_shown(keys, int(rows[0]), dates),
        last=_shown(keys, int(rows[-1]), dates),
        name=str(name) if name is not None else None,
        sorted_already=bool(np.array_equal(rows, np.arange(n))),
        n_tied=int((ordered[1:] == ordered[:-1]).sum()),
        times=keys,
        dates=dates,
    )


def take_rows(values: Any, rows: np.ndarray) -> Any:
    """``values`` (one value per row: an array, a pandas or polars Series, a list or a pandas
    categorical) with its rows in the order ``rows``, of the same kind (a pandas Series keeps
    its name and dtype, with a fresh index)."""
    if values is None:
        return None
    import pandas as pd

    if isinstance(values, pd.Series):
        return values.iloc[rows].reset_index(drop=True)
    if isinstance(values, list | tuple):
        return [values[i] for i in rows]
    if type(values).__module__.split(".", 1)[0] == "polars":
        return values.gather(rows)
    if hasattr(values, "take"):
        return values.take(rows)
    return np.asarray(values)[rows]


def block_settings(
    scheme: str,
    block_length: float,
    *,
    chosen: bool,
    in_time_order: bool,
    inference: str,
) -> dict[str, Any]:
    """The ``settings`` entries of a block bootstrap: ``"scheme"``, ``"block_length"`` and the
    sentence ``"block bootstrap"`` the terminal, the JSON document and the report show.

    Parameters
    ----------
    scheme : {"stationary", "circular"}
        The block scheme.
    block_length : float
        The (mean) block length used.
    chosen : bool
        Whether it was chosen automatically (Politis & White 2004).
    in_time_order : bool
        Whether the rows were put in time order (``time`` given), else taken as given.
    inference : str
        The ``inference`` asked for: with ``"auto"`` the sentence says why the analytic
        intervals are not used.

    Returns
    -------
    dict
    """
    if scheme == "stationary":
        kind = "stationary bootstrap (Politis & Romano 1994)"
        length = f"mean block length {block_length:.3g}"
    else:
        kind = "circular block bootstrap (Politis & Romano 1992)"
        length = f"block length {max(1, round(block_length))}"
    how = "chosen by Politis & White (2004)" if chosen else "given"
    order = "the rows in time order" if in_time_order else "the rows in the order given"
    sentence = f"every interval and paired test from the {kind}, {length} {how}, over {order}"
    if inference == "auto":
        sentence += (
            "; DeLong's and Noether's analytic intervals assume independent rows and are not "
            "used with blocks"
        )
    return {"scheme": scheme, "block_length": float(block_length), "block bootstrap": sentence}


def block_length_for(
    block_length: Any, scheme: str, y: np.ndarray, predictions: list[np.ndarray]
) -> float:
    """The (mean) block length of ``scheme`` for these rows: ``"auto"`` resolved once from
    every model's absolute errors and every pair's differences of them
    (:func:`ranklens._inference.resampling.resolve_block_length`), a number checked to lie in
    ``[1, n]``; the comparison, the bands and the segments then use this one number."""
    stacked = np.vstack(predictions) if predictions else np.empty((0, y.shape[0]))
    length = resolve_block_length(block_length, scheme, y, stacked)
    assert length is not None  # a block scheme always has a length
    return float(length)
