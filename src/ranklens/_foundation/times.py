"""Reading the rows' times: one reader for the pipeline's time order and the time windows.

:func:`as_time_series` takes a column of times as users hold it (NumPy, a list, pandas, polars,
Arrow, a one-column frame) to a pandas Series; :func:`parse_times` reads it as sortable times
(datetimes, or numbers as a time index), strings as ISO 8601, refusing a value that is not a
time by its 1-based row.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np

__all__ = ["ISO_EXAMPLE", "as_time_series", "first_row", "parse_times"]

#: A UTC offset (or ``Z``) after the clock time at the end of an ISO 8601 time (a date's own
#: ``-31`` is no offset).
_OFFSET = re.compile(r"\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$")

#: How the ISO 8601 format is shown in messages.
ISO_EXAMPLE = "ISO 8601, e.g. 2024-01-31 or 2024-01-31T09:30:00+01:00"

#: Why times with several UTC offsets cannot be cut into calendar periods.
_SEVERAL_ZONES = (
    "time: cannot read the values as ISO 8601 dates or times (they mix time zones: give them "
    "in one zone, or in UTC)"
)


def as_time_series(time: Any) -> Any:
    """``time`` as a pandas Series with a fresh index.

    A polars Series or an Arrow array is converted, a one-column DataFrame gives its column, a
    pandas Index keeps its name; a string, or anything that is not one value per row, is
    refused naming ``time``.
    """
    import pandas as pd

    if hasattr(time, "columns") and not hasattr(time, "dtype"):  # a DataFrame
        columns = [str(c) for c in time.columns]
        if len(columns) != 1:
            raise ValueError(
                f"time must be one column of times; got a DataFrame with {len(columns)} columns"
            )
        time = time[time.columns[0]]
    if isinstance(time, pd.Series):
        return time.reset_index(drop=True)
    if isinstance(time, pd.Index):
        return pd.Series(time, name=time.name)
    if hasattr(time, "to_pandas"):  # polars, Arrow
        return as_time_series(time.to_pandas())
    if isinstance(time, str | bytes) or np.ndim(time) != 1:
        raise ValueError(
            "time must be one time per row (datetime64, pandas datetimes, ISO 8601 strings or "
            f"numbers), or with data a column name; got {type(time).__name__}"
        )
    return pd.Series(list(time) if isinstance(time, list | tuple) else np.asarray(time))


def first_row(mask: np.ndarray) -> int:
    """The 0-based position of the first True in ``mask``."""
    return int(np.flatnonzero(mask)[0])


def _parse_text(series: Any, *, several_offsets: bool) -> Any:
    """Strings (or Python dates and datetimes) parsed as ISO 8601 times; a time that does not
    parse, or a mix of times with and without a UTC offset, refused naming the row. Several
    UTC offsets are compared in UTC, or refused when ``several_offsets`` is False."""
    import pandas as pd

    present = series.notna().to_numpy()
    text = series.astype(str).str.strip()
    strings = series.map(lambda v: isinstance(v, str)).to_numpy() & present
    aware = text.str.contains(_OFFSET).to_numpy() & strings
    if aware.any() and not aware[strings].all():
        row = first_row(strings & ~aware)
        raise ValueError(
            f"time mixes times with a UTC offset and times without one (row {row + 1}: "
            f"{series.iloc[row]!r} has none); give every time an offset, or none"
        )
    try:  # one UTC offset throughout: kept as given
        with warnings.catch_warnings():
            # pandas < 3 leaves several offsets as objects, with a FutureWarning (pandas 3 raises)
            warnings.simplefilter("ignore", FutureWarning)
            parsed = pd.to_datetime(series, format="ISO8601", errors="coerce")
    except ValueError:  # several offsets
        parsed = None
    if parsed is None or not pd.api.types.is_datetime64_any_dtype(parsed.dtype):
        if not several_offsets:
            raise ValueError(_SEVERAL_ZONES)
        parsed = pd.to_datetime(series, format="ISO8601", errors="coerce", utc=True)
    bad = parsed.isna().to_numpy() & present
    if bad.any():
        row = first_row(bad)
        raise ValueError(
            f"time: row {row + 1}: {series.iloc[row]!r} is not a date or time ({ISO_EXAMPLE})"
        )
    return parsed


def parse_times(time: Any, *, several_offsets: bool = True) -> tuple[Any, bool]:
    """The rows' times as sortable values, missing ones kept missing.

    Parameters
    ----------
    time : array-like of shape (n,)
        As :func:`as_time_series` takes it: datetimes, ISO 8601 strings, Python dates and
        datetimes, or numbers (a time index).
    several_offsets : bool, default True
        Whether ISO 8601 strings with several UTC offsets (a zone that changes its clocks) are
        read, compared in UTC; False refuses them (a calendar period needs one zone).

    Returns
    -------
    times : pandas.Series
        Datetimes (time-zone aware ones as given) or float64 numbers, NaT or NaN where missing.
    dates : bool
        Whether they are dates and times (else numbers).

    Raises
    ------
    ValueError
        Naming ``time`` and the 1-based row: a value that is not a time, booleans, times with
        and without a UTC offset mixed, or several offsets when ``several_offsets`` is False.
    """
    import pandas as pd

    series = as_time_series(time)
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise ValueError(
            "time must hold dates or times (datetime64, ISO 8601 strings) or numbers; got booleans"
        )
    if isinstance(dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(dtype):
        return series, True
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        return pd.Series(series.to_numpy(dtype=np.float64, na_value=np.nan)), False
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(object)
    return _parse_text(series, several_offsets=several_offsets), True
