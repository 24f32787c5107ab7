"""The in-memory reader of ``ranklens evaluate``: a CSV or Parquet file read whole, its columns
checked and turned into the arrays the in-memory engine evaluates.

The rules and messages it shares with the Dask engine are in :mod:`ranklens.cli._inputs`.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import Any

from ranklens.cli._errors import InputError, first_line, library_check
from ranklens.cli._inputs import (
    NOTHING_LEFT,
    check_events,
    check_groups_name,
    check_unit_count,
    crossed_interval_error,
    missing_values_error,
    used_columns,
)


def read_table(path: pathlib.Path, sep: str | None = None) -> Any:
    """Read a CSV (``.csv``, ``.tsv``, ``.txt``, optionally compressed) or Parquet file.

    Column names are the file's own: pandas renames a repeated CSV header ``a`` to ``a.1``
    silently, so the header is read again and the repeats restored, to be refused by name
    (:func:`numeric_column`) rather than evaluated under a name the file does not have. A file
    with a header and no data rows is refused. ``sep`` is a text file's field separator (None:
    a comma, a tab for ``.tsv`` and ``.tab``); a Parquet file with ``sep`` is refused.
    """
    import pandas as pd

    if not path.exists():
        raise InputError(f"file not found: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a data file")
    suffixes = [s.lower() for s in path.suffixes]
    compressed = {".gz", ".bz2", ".xz", ".zip", ".zst"}
    kind = (
        suffixes[-2]
        if len(suffixes) >= 2 and suffixes[-1] in compressed
        else (suffixes[-1] if suffixes else "")
    )
    if kind in (".parquet", ".pq"):
        if sep is not None:
            raise InputError(f"--sep is for a text file; {path.name} is a Parquet file")
        _require_parquet()
    try:
        if kind in (".parquet", ".pq"):
            frame = pd.read_parquet(path)
        elif kind in (".csv", ".txt", ".tsv", ".tab"):
            sep = sep or ("\t" if kind in (".tsv", ".tab") else ",")
            frame = pd.read_csv(path, sep=sep, **exact_float_parsing())
            frame.columns = _csv_header(path, sep, list(frame.columns))
        else:
            raise InputError(
                f"unsupported file type {path.suffix or '(none)'!r} for {path}; "
                "use .csv, .tsv or .parquet"
            )
    except InputError:
        raise
    except Exception as exc:  # pandas / pyarrow raise many types for unreadable files
        raise InputError(f"could not read {path}: {first_line(exc)}") from None
    if frame.shape[0] == 0:
        raise InputError(f"{path.name} has no data rows (only a header); nothing to evaluate")
    return frame


def exact_float_parsing() -> dict[str, str]:
    """The ``pandas.read_csv`` option that parses every decimal number to the nearest float64.

    pandas 3 does by default; pandas 2's default parser can land one unit in the last place
    away (about one number in a few hundred), so the same file would give numbers that differ
    in their last digits between pandas releases. ``float_precision="round_trip"`` is exact
    there (and deprecated in pandas 3, whose default is).
    """
    import pandas as pd

    major = int(pd.__version__.split(".", 1)[0])
    return {"float_precision": "round_trip"} if major < 3 else {}


def _require_parquet() -> None:
    """Parquet needs pyarrow (the ``parquet`` extra); pandas can also use fastparquet."""
    from ranklens._foundation.extras import MissingExtraError, require

    try:
        require("parquet", "reading Parquet files")
    except MissingExtraError as exc:
        try:
            require("parquet", "reading Parquet files", modules=("fastparquet",))
        except MissingExtraError:
            raise InputError(str(exc)) from None


def _csv_header(path: pathlib.Path, sep: str, parsed: list[Any]) -> list[Any]:
    """The header as written in the file, where pandas renamed a repeated name (``a.1``)."""
    import pandas as pd

    row = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
    raw = row.iloc[0].tolist() if row.shape[0] else []
    if len(raw) != len(parsed):
        return parsed  # an index column or a ragged header: keep what pandas made of it
    # An empty header cell keeps pandas' "Unnamed: k"; every other name is the file's.
    return [
        name if name != "" else parsed_name for name, parsed_name in zip(raw, parsed, strict=True)
    ]


def missing_column(option: str, column: str, frame: Any, path: pathlib.Path) -> InputError:
    """The error for a column the file does not have: the option that named it, the file's
    columns and, when one is close (a different case, a typo), which one was probably meant.

    Parameters
    ----------
    option : str
        The option that named the column (``"--groups"``), or ``""`` for the measured columns.
    column : str
        The name given.
    frame : DataFrame
        The file as read.
    path : pathlib.Path
        The file, for the message.

    Returns
    -------
    InputError
        To raise.
    """
    import difflib

    names = [str(c) for c in frame.columns]
    by_case = [name for name in names if name.casefold() == column.casefold()]
    close = by_case or difflib.get_close_matches(column, names, n=1, cutoff=0.8)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    prefix = f"{option} column" if option else "column"
    return InputError(
        f"{prefix} {column!r} not found in {path.name}{hint}; columns: {_list_columns(frame)}"
    )


def _list_columns(frame: Any, limit: int = 12) -> str:
    names = [str(c) for c in frame.columns]
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} columns)" if len(names) > limit else "")


def _shown(value: Any, limit: int = 40) -> str:
    text = str(value)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _one_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """``frame[column]``, refused when the name is repeated (pandas would give a DataFrame)."""
    import pandas as pd

    series = frame[column]
    if isinstance(series, pd.DataFrame):
        positions = [k + 1 for k, name in enumerate(frame.columns) if name == column]
        raise InputError(
            f"column name {column!r} appears {len(positions)} times in {path.name} (columns "
            f"{', '.join(map(str, positions))}); rename the copies so that each name is one column"
        )
    return series


def numeric_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """The column as a float64 NumPy array, or an :class:`InputError` naming what is wrong.

    Booleans count as 0/1 and missing cells become NaN (see :func:`drop_missing`); a cell that
    is not a number is named by column, 1-based data row and value.
    """
    import numpy as np
    import pandas as pd

    if column not in frame.columns:
        raise missing_column("", column, frame, path)
    series = _one_column(frame, column, path)
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(dtype.categories.dtype)
        dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
    ):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not (pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype)):
        raise InputError(f"column {column!r} is not numeric (dtype {dtype})")
    numbers = pd.to_numeric(series, errors="coerce")
    bad = (numbers.isna() & series.notna()).to_numpy()
    if bad.any():
        row = int(bad.argmax())
        raise InputError(
            f"column {column!r} row {row + 1}: {_shown(series.iloc[row])} is not a number"
        )
    return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def label_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """The ``--groups`` column as a pandas Series of unit ids, named ``column``, as read.

    Any dtype is a label (strings, integers, a categorical written by pandas): only a missing
    cell is a problem, refused or dropped by :func:`drop_missing` as in the other columns.
    """
    if column not in frame.columns:
        raise missing_column("--groups", column, frame, path)
    return _one_column(frame, column, path).rename(column)


def time_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """The ``--time`` column as a pandas Series named ``column``, as read, its values checked
    to be times (ISO 8601 dates or times, or numbers) before any work: a value that is not is
    one line naming the option, the column and the 1-based data row. Missing times stay
    missing, refused or dropped by :func:`drop_missing` as in the other columns."""
    from ranklens._foundation.times import parse_times

    if column not in frame.columns:
        raise missing_column("--time", column, frame, path)
    series = _one_column(frame, column, path).rename(column)
    try:
        parse_times(series)
    except ValueError as exc:
        message = first_line(exc)
        message = message[len("time: ") :] if message.startswith("time: ") else message
        message = message[len("time ") :] if message.startswith("time ") else message
        raise InputError(f"--time {column!r}: {message}") from None
    return series


def segment_columns(
    frame: Any, segments: dict[str, list[str]], path: pathlib.Path
) -> dict[str, dict[str, Any]]:
    """The columns of ``--by`` and ``--scan`` as pandas Series of labels, as read (strings,
    numbers, categories; a missing label stays missing and forms its own segment):
    ``{"by": {column: labels}, "scan": {column: labels}}``."""
    out: dict[str, dict[str, Any]] = {}
    for option, columns in segments.items():
        for column in columns:
            if column not in frame.columns:
                raise missing_column(f"--{option}", column, frame, path)
            labels = _one_column(frame, column, path).rename(column)
            out.setdefault(option, {})[column] = labels.reset_index(drop=True)
    return out


def check_units(labels: Any, column: str) -> None:
    """At least :data:`ranklens._inference.resampling.MIN_UNITS` units
    (:func:`ranklens.cli._inputs.check_unit_count`), counted as the bootstrap keys them
    (``3`` and ``3.0`` are one)."""
    import numpy as np

    from ranklens._inference.resampling import group_keys

    check_unit_count(int(np.unique(group_keys(labels)).shape[0]), column)


def drop_missing(columns: dict[str, Any], *, drop: bool) -> tuple[dict[str, Any], int]:
    """Remove rows with a NaN or infinite value in any used column (or explain and stop)."""
    import numpy as np

    stacked = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns.values()])
    bad = ~np.isfinite(stacked).all(axis=1)
    n_bad = int(bad.sum())
    if n_bad == 0:
        return columns, 0
    if not drop:
        per_column = {
            name: int((~np.isfinite(np.asarray(c, dtype=np.float64))).sum())
            for name, c in columns.items()
        }
        raise missing_values_error(n_bad, int(np.flatnonzero(bad)[0]), per_column)
    keep = ~bad
    if not keep.any():
        raise InputError(NOTHING_LEFT)
    return {name: np.asarray(c, dtype=np.float64)[keep] for name, c in columns.items()}, n_bad


def check_intervals(
    columns: dict[str, Any], pairs: list[tuple[str, str]], *, explicit: bool = False
) -> None:
    """Refuse crossed intervals (lower > upper), naming the columns and the first data row
    (as ``--interval``'s bounds when ``explicit``, else as ``--lower`` and ``--upper``)."""
    import numpy as np

    for lower, upper in pairs:
        crossed = np.asarray(columns[lower]) > np.asarray(columns[upper])  # NaN: not crossed
        if crossed.any():
            row = int(np.flatnonzero(crossed)[0])
            raise crossed_interval_error(
                lower,
                upper,
                int(crossed.sum()),
                row,
                columns[lower][row],
                columns[upper][row],
                explicit=explicit,
            )


#: The key under which :func:`read_columns` carries the rows' positions through
#: :func:`drop_missing` (not a string, so no column of a file can have it).
_ROWS: Any = ("rows",)


@dataclasses.dataclass(frozen=True)
class Columns:
    """The checked columns of a file, as the in-memory engine takes them."""

    y: Any
    predictions: dict[str, Any]
    intervals: dict[str, tuple[Any, Any]]
    sample_weight: Any
    groups: Any
    n_dropped: int
    #: The labels of ``--by`` and ``--scan``: ``{"by": {column: labels}, "scan": {...}}``.
    segments: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    #: The rows' times of ``--time`` (a pandas Series, as read), or None.
    time: Any = None


def _binary_target(frame: Any, target: str, positive_label: str | None) -> Any:
    """The frame with ``--target`` as 0/1 where ``--positive-label`` names its event label
    (missing values kept missing); without it, a target of two labels other than 0 and 1 is
    refused, naming ``--positive-label``."""
    import numpy as np
    import pandas as pd

    from ranklens.classification import binary_target

    column = frame[target]
    present = column.notna().to_numpy()
    values = column[present].to_numpy()
    if positive_label is None:
        if not pd.api.types.is_numeric_dtype(column.dtype):
            library_check(binary_target, values)  # two labels: refused naming the option
        return frame
    mapped = np.full(column.shape[0], np.nan)
    try:
        mapped[present] = binary_target(values, positive_label)
    except ValueError as exc:
        raise InputError(
            f"--positive-label {positive_label!r}: {first_line(exc)}".replace(
                f"positive_label={positive_label!r} ", ""
            )
        ) from None
    return frame.assign(**{target: mapped})


def read_columns(
    file: pathlib.Path,
    *,
    target: str,
    preds: list[str],
    pairs: dict[str, tuple[str, str]],
    explicit_intervals: bool,
    weight: str | None,
    groups: str | None,
    events: str | None,
    event_spec: str | float | None,
    drop_na: bool,
    segments: dict[str, list[str]] | None = None,
    time: str | None = None,
    sep: str | None = None,
    positive_label: str | None = None,
) -> Columns:
    """Read ``file`` and check every column the options name: numbers, crossed intervals,
    missing values (refused, or dropped with ``drop_na``), units, weights and events; the
    labels of ``segments`` (``--by``, ``--scan``) are read as they are, a missing label kept
    (it is a segment of its own, not a reason to drop the row), the rows that ``drop_na``
    drops left out of them too.

    Bad input raises :class:`InputError`. The arrays are read-only.
    """
    import numpy as np

    from ranklens._foundation.validation import check_sample_weight

    frame = read_table(file, sep)
    if target in frame.columns:
        frame = _binary_target(frame, target, positive_label)
    used = used_columns(target, preds, pairs, weight)
    check_groups_name(groups, used, target, weight)
    columns = {name: numeric_column(frame, name, file) for name in used}
    check_intervals(columns, list(pairs.values()), explicit=explicit_intervals)
    labels = None
    if groups is not None:
        labels = label_column(frame, groups, file)
        # The row's position where it has a unit id, NaN where not: drop_missing refuses or
        # drops the rows without one as it does for the other columns, and what it keeps of
        # this column says which labels remain.
        positions = np.arange(len(labels), dtype=np.float64)
        columns[groups] = np.where(labels.isna().to_numpy(), np.nan, positions)
    times = None
    if time is not None:
        times = time_column(frame, time, file)
        # as for the units: the row's position where it has a time, NaN where not
        positions = np.arange(len(times), dtype=np.float64)
        columns[time] = np.where(times.isna().to_numpy(), np.nan, positions)
    sliced = segment_columns(frame, segments or {}, file)
    if sliced:
        # the rows' positions, to cut the labels as drop_missing cuts the columns (a key that
        # is no column name: a name of the file could be anything)
        columns[_ROWS] = np.arange(frame.shape[0], dtype=np.float64)
    columns, n_dropped = drop_missing(columns, drop=drop_na)
    if sliced:
        rows = columns.pop(_ROWS).astype(np.int64)
        sliced = {
            option: {c: v.iloc[rows].reset_index(drop=True) for c, v in labels_of.items()}
            for option, labels_of in sliced.items()
        }
    if time is not None and times is not None:
        times = times.iloc[columns.pop(time).astype(np.int64)].reset_index(drop=True)
    if groups is not None and labels is not None:
        kept = columns.pop(groups).astype(np.int64)
        labels = labels.iloc[kept].reset_index(drop=True)
        check_units(labels, groups)
    for values in columns.values():
        # The same arrays feed every measure: one that wrote into its input would corrupt the
        # rest, so that becomes an error (a failure) instead. pandas 3 hands out read-only
        # arrays too, so the library has to take them either way.
        values.setflags(write=False)
    y = columns[target]
    if len(y) < 2:
        raise InputError(f"{len(y)} row(s) to evaluate; at least 2 are needed")
    sample_weight = columns[weight] if weight is not None else None
    if sample_weight is not None:
        library_check(check_sample_weight, sample_weight, len(y), name=f"--weight {weight!r}")
    if event_spec is not None:
        check_events(str(events), event_spec, y, sample_weight)
    return Columns(
        y=y,
        predictions={p: columns[p] for p in preds},
        intervals={model: (columns[lo], columns[hi]) for model, (lo, hi) in pairs.items()},
        sample_weight=sample_weight,
        groups=labels,
        n_dropped=n_dropped,
        segments=sliced,
        time=times,
    )
