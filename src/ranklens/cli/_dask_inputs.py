"""The Dask reader of ``ranklens evaluate --engine dask``: the checks of the in-memory reader
(:mod:`ranklens.cli._table`) made on Parquet data by partition, each in one read of the columns
it needs, with the same messages (:mod:`ranklens.cli._inputs`).

Every function here runs on the cluster of the client that is current (``dask.compute``).
"""

from __future__ import annotations

import math
from typing import Any

from ranklens.cli._errors import InputError, first_line
from ranklens.cli._inputs import (
    NOTHING_LEFT,
    check_unit_count,
    crossed_interval_error,
    missing_values_error,
    with_option,
)


def check_schema(
    path: str, used: list[str], labels: list[str], *, target: str, weight: str | None
) -> None:
    """Every file's schema (footers only), before a cluster starts or a pass runs: a missing
    or non-numeric column is one line, with the option that named it."""
    from ranklens.dask._inputs import check_parquet

    try:
        check_parquet(path, used, labels)
    except (ValueError, OSError) as exc:
        groups = labels[0] if labels else None
        options = {groups: "--groups", weight: "--weight", target: "--target"}
        raise InputError(with_option(first_line(exc), options)) from None


def check_segment_columns(path: str, segments: dict[str, list[str]]) -> None:
    """The columns of ``--by`` and ``--scan`` (``{"by": [...], "scan": [...]}``) in every
    file's schema (footers only, any type), a missing one named with its option, as the
    in-memory reader names it."""
    from ranklens.dask._inputs import check_parquet

    for option, columns in segments.items():
        if not columns:
            continue
        try:
            check_parquet(path, [], columns)
        except (ValueError, OSError) as exc:
            message = first_line(exc)
            named = with_option(message, dict.fromkeys(columns, f"--{option}"))
            raise InputError(named if named != message else f"--{option}: {message}") from None


def check_time_column(path: str, time: str | None) -> None:
    """The column of ``--time`` in every file's schema (footers only, any type: numbers,
    timestamps, ISO 8601 strings), a missing one named with its option, as the in-memory
    reader names it."""
    if time is None:
        return
    from ranklens.dask._inputs import check_parquet

    try:
        check_parquet(path, [], [time])
    except (ValueError, OSError) as exc:
        message = first_line(exc)
        named = with_option(message, {time: "--time"})
        raise InputError(named if named != message else f"--time: {message}") from None


def time_message(message: str, time: str | None) -> str:
    """A refusal of the ``--time`` column by the Dask engine (``time column 'date': ...``:
    rows out of order, values that are not times) named by its option."""
    if time is not None and message.startswith(f"time column {time!r}"):
        return f"--{message}"
    return message


def check_crossed(path: str, pairs: list[tuple[str, str]]) -> None:
    """Refuse crossed intervals (a lower bound above its upper bound) as the memory engine does
    (:func:`ranklens.cli._table.check_intervals`), in one read of the bound columns, before any
    pass of the evaluation (NaN is not crossed). The bounds are named as ``--lower`` and
    ``--upper`` whichever option gave them."""
    if not pairs:
        return
    import dask
    import dask.dataframe as dd
    import numpy as np

    from ranklens.dask._inputs import as_float

    columns = list(dict.fromkeys(c for pair in pairs for c in pair))

    def crossed(part: Any) -> tuple[int, list[tuple[int, int, float, float]]]:
        part = as_float(part, columns)
        out = []
        for lower, upper in pairs:
            low, high = part[lower].to_numpy(), part[upper].to_numpy()
            bad = np.flatnonzero(low > high)
            if bad.size:
                at = int(bad[0])
                out.append((int(bad.size), at, float(low[at]), float(high[at])))
            else:
                out.append((0, -1, math.nan, math.nan))
        return len(part), out

    frame = dd.read_parquet(path, columns=columns)
    parts = dask.compute(*[dask.delayed(crossed)(p) for p in frame.to_delayed()])
    for k, (lower, upper) in enumerate(pairs):
        offset, first = 0, None
        for size, found in parts:
            if found[k][0] and first is None:
                first = (offset + found[k][1], found[k][2], found[k][3])
            offset += size
        if first is not None:
            n_crossed = sum(found[k][0] for _, found in parts)
            row, low, high = first
            raise crossed_interval_error(lower, upper, n_crossed, row, low, high, explicit=False)


def missing_counts(
    path: str, used: list[str], labels: list[str] | None = None
) -> tuple[int, dict[str, int], int, int]:
    """Rows with a missing or infinite value in a used column of the Parquet data (one read):
    their number, the count per column, the 0-based position of the first, and all rows.
    ``labels`` are columns of unit ids (any dtype), where only a missing cell counts."""
    import dask
    import dask.dataframe as dd
    import numpy as np

    labels = [c for c in labels or [] if c not in used]

    def count(part: Any) -> tuple[int, list[int], int, int]:
        values = np.column_stack([part[c].to_numpy(dtype=np.float64) for c in used])
        bad = ~np.isfinite(values)
        if labels:
            bad = np.column_stack([bad, *[part[c].isna().to_numpy() for c in labels]])
        rows = bad.any(axis=1)
        first = int(np.flatnonzero(rows)[0]) if rows.any() else -1
        return int(rows.sum()), bad.sum(axis=0).tolist(), first, len(part)

    frame = dd.read_parquet(path, columns=[*used, *labels])
    parts = dask.compute(*[dask.delayed(count)(p) for p in frame.to_delayed()])
    n_bad = sum(p[0] for p in parts)
    per_column = {c: sum(p[1][j] for p in parts) for j, c in enumerate([*used, *labels])}
    first, offset = -1, 0
    for rows, _, at, size in parts:
        if rows and first < 0:
            first = offset + at
        offset += size
    return n_bad, per_column, first, offset


def refuse_missing(path: str, used: list[str], labels: list[str] | None = None) -> None:
    """The memory engine's error for missing values (nothing when there are none)."""
    n_bad, per_column, first, _ = missing_counts(path, used, labels)
    if n_bad:
        raise missing_values_error(n_bad, first, per_column)


def drop_missing(
    path: str, used: list[str], labels: list[str] | None = None, kept: list[str] | None = None
) -> tuple[Any, int]:
    """``--drop-na`` on Dask: the Parquet data without the rows that have a missing or infinite
    value in a used column, or a missing unit id in a ``labels`` column (a filter applied as
    each partition is read), and their number. The ``kept`` columns (the labels of ``--by``
    and ``--scan``, whose missing labels are a segment of their own) are read along, never a
    reason to drop."""
    import dask.dataframe as dd
    import numpy as np

    labels = [c for c in labels or [] if c not in used]
    n_bad, _, _, n = missing_counts(path, used, labels)
    if not n_bad:
        return path, 0
    if n_bad == n:
        raise InputError(NOTHING_LEFT)
    extra = [c for c in kept or [] if c not in used and c not in labels]
    frame = dd.read_parquet(path, columns=[*used, *labels, *extra])

    def finite(part: Any) -> Any:
        values = np.column_stack([part[c].to_numpy(dtype=np.float64) for c in used])
        keep = np.isfinite(values).all(axis=1)
        for c in labels:
            keep = keep & part[c].notna().to_numpy()
        return part[keep]

    return frame.map_partitions(finite, meta=frame._meta), n_bad


def count_units(path: str, groups: str, used: list[str], drop_na: bool) -> int:
    """``--groups`` on Dask (one read of the units' column and, with missing ids, of the used
    ones): the number of distinct units among the rows evaluated (those without a missing
    value when ``drop_na``), counted by the keys the Poisson bootstrap hashes
    (:func:`ranklens._inference.resampling.group_keys`: ``3`` and ``3.0`` are one unit). A missing
    id without ``drop_na`` is the memory engine's error; fewer units than the clustered bootstrap
    needs, too."""
    import dask
    import dask.dataframe as dd
    import numpy as np

    from ranklens._inference.resampling import group_keys

    frame = dd.read_parquet(path, columns=list(dict.fromkeys([groups, *used])))

    def keys(part: Any) -> tuple[Any, int]:
        missing = part[groups].isna().to_numpy()
        n_missing = int(missing.sum())
        if drop_na:
            values = np.column_stack([part[c].to_numpy(dtype=np.float64) for c in used])
            missing = missing | ~np.isfinite(values).all(axis=1)
        labels = part[groups][~missing]
        if not len(labels):
            return np.zeros(0, np.uint64), n_missing
        return np.unique(group_keys(labels)), n_missing

    parts = dask.compute(*[dask.delayed(keys)(p) for p in frame.to_delayed()])
    if not drop_na and sum(p[1] for p in parts):
        refuse_missing(path, used, [groups])
    n_units = int(np.unique(np.concatenate([p[0] for p in parts])).size)
    check_unit_count(n_units, groups)
    return n_units


def boxplot_relevance(
    data: Any, target: str, boxplot: tuple[str, str], relevance: str | None
) -> Any:
    """``--relevance`` naming a box-plot relevance, on Dask: fitted to the target's quantiles,
    computed on the cluster by exact selection (``data`` is a path or a Dask frame)."""
    import dask.dataframe as dd

    from ranklens.dask._quantiles import boxplot_relevance as fit

    extremes, shape = boxplot
    column = data if isinstance(data, dd.DataFrame) else dd.read_parquet(data, columns=[target])
    try:
        return fit(column, target, extremes=extremes, shape=shape)
    except (ValueError, TypeError) as exc:
        raise InputError(f"--relevance {relevance!r}: {first_line(exc)}") from None
