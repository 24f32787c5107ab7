"""The Dask engine's inputs checked before any pass: Parquet files, their columns and types.

Every part file of a Parquet path, directory or glob is opened for its footer only (the schema,
no rows): a column missing from one file, a column that is not numeric in one file (strings, a
timestamp), or a file that is not Parquet at all (a CSV) is named with the file, before any
pass reads the data. The numeric columns are read as float64 whatever their type in each file
(integers, booleans, a dictionary-encoded or categorical column of numbers, decimals), as the
in-memory engine reads them, so that every partition reaches the passes with the same dtypes.
"""

from __future__ import annotations

import concurrent.futures
import posixpath
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Suffixes of text tables: named in the refusal, which points to Parquet.
TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".json", ".jsonl")

#: Footers read at once (remote files: one small read each).
_FOOTER_THREADS = 16


def parquet_files(
    path: str, storage_options: dict[str, Any] | None = None
) -> tuple[Any, list[str]]:
    """The filesystem and the data files of a Parquet path, directory or glob.

    A directory stands for the files below it, less those whose name starts with ``_`` or ``.``
    (metadata and hidden files, as Dask and pyarrow skip them).

    Parameters
    ----------
    path : str
        A file, directory or glob (local or any fsspec URL).
    storage_options : dict, optional
        Passed to fsspec.

    Returns
    -------
    tuple
        The fsspec filesystem and the files' paths on it.

    Raises
    ------
    ValueError
        When nothing matches ``path``.
    """
    from fsspec.core import get_fs_token_paths

    fs, _, paths = get_fs_token_paths(path, mode="rb", storage_options=storage_options or {})
    files: list[str] = []
    for p in paths:
        if fs.isdir(p):
            found = sorted(fs.find(p))
            files.extend(f for f in found if not posixpath.basename(f).startswith(("_", ".")))
        else:
            files.append(p)
    if not files:
        raise ValueError(f"no file matches {path}")
    return fs, files


def _footer(fs: Any, file: str) -> Any:
    """The Arrow schema of a Parquet file (its footer only), or the reason it is not one."""
    import pyarrow.parquet as pq

    if file.lower().endswith(TEXT_SUFFIXES):
        return ValueError(
            f"{file} is not a Parquet file: the Dask engine reads Parquet only (convert a CSV "
            "once with pandas.read_csv(...).to_parquet(...), or evaluate it in memory)"
        )
    try:
        with fs.open(file, "rb") as handle:
            return pq.ParquetFile(handle).schema_arrow
    except FileNotFoundError:
        return ValueError(f"{file} not found")
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return ValueError(
            f"{file} could not be read as Parquet ({reason}); the Dask engine reads Parquet only"
        )


def _is_number_type(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_null(kind)
    )


def check_parquet(
    path: str,
    numeric: Sequence[str],
    labels: Sequence[str] = (),
    storage_options: dict[str, Any] | None = None,
) -> list[str]:
    """Every data file of ``path`` is Parquet and holds every column, the ``numeric`` ones of a
    numeric type (integer, float, boolean, decimal, or a dictionary of those), the ``labels``
    (unit ids) of any type. Reads the files' footers only.

    Parameters
    ----------
    path : str
        A Parquet file, directory or glob (local or any fsspec URL).
    numeric : sequence of str
        The columns read as numbers.
    labels : sequence of str, optional
        Columns of any type that must be present (the ``groups`` column).
    storage_options : dict, optional
        Passed to fsspec.

    Returns
    -------
    list of str
        The ``numeric`` columns that are not float64 in every file (to be read as float64).

    Raises
    ------
    ValueError
        Naming the file (and the column) that is missing, not numeric, or not Parquet.
    """
    import pyarrow as pa

    fs, files = parquet_files(path, storage_options)
    with concurrent.futures.ThreadPoolExecutor(min(_FOOTER_THREADS, len(files))) as pool:
        schemas = list(pool.map(lambda f: _footer(fs, f), files))
    recast: dict[str, None] = {}
    for file, schema in zip(files, schemas, strict=True):
        if isinstance(schema, Exception):
            raise schema
        names = list(schema.names)
        for name in [*numeric, *labels]:
            if name not in names:
                shown = ", ".join(names[:12]) + (
                    f", ... ({len(names)} columns)" if len(names) > 12 else ""
                )
                raise ValueError(
                    f"column {name!r} not found in {file} ({_one_of(files)}); its columns: {shown}"
                )
        for name in numeric:
            kind = schema.field(name).type
            if not _is_number_type(kind):
                raise ValueError(
                    f"column {name!r} in {file} is not numeric (Parquet type {kind}); the Dask "
                    "engine reads integer, float and boolean columns"
                )
            if kind != pa.float64():
                recast[name] = None
    return list(recast)


def _one_of(files: Sequence[str]) -> str:
    return "the only file" if len(files) == 1 else f"one of {len(files)} files"


def check_meta(meta: Any, numeric: Sequence[str]) -> list[str]:
    """The ``numeric`` columns of a (dask) DataFrame's ``meta`` that are not float64 but can be
    read as numbers (integers, booleans, categoricals of numbers, decimals, objects).

    Parameters
    ----------
    meta : pandas.DataFrame
        The empty frame that describes a dask DataFrame's columns.
    numeric : sequence of str
        The columns read as numbers.

    Returns
    -------
    list of str
        Those to be read as float64 (:func:`read_as_float`).

    Raises
    ------
    TypeError
        Naming the first column of another dtype (a timestamp, a duration, strings, complex).
    """
    import pandas as pd
    from dask.dataframe.utils import has_known_categories

    out = []
    for name in numeric:
        dtype = meta[name].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            if not has_known_categories(meta[name]):  # read from Parquet: checked per file
                out.append(name)
                continue
            dtype = dtype.categories.dtype
            if not (
                pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_object_dtype(dtype)
            ) or pd.api.types.is_complex_dtype(dtype):
                raise TypeError(f"column {name!r} is not numeric (categories of dtype {dtype})")
            out.append(name)
            continue
        if dtype == np.float64:
            continue
        number = pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
        if pd.api.types.is_complex_dtype(dtype) or not (
            number or pd.api.types.is_object_dtype(dtype)
        ):
            raise TypeError(f"column {name!r} is not numeric (dtype {dtype})")
        out.append(name)
    return out


def as_float(part: Any, columns: Sequence[str]) -> Any:
    """The partition with ``columns`` as float64 (missing cells NaN), as the in-memory engine
    reads a numeric column; the other columns as they are."""
    import pandas as pd

    out = part.copy(deep=False) if isinstance(part, pd.DataFrame) else part
    for name in columns:
        series = part[name]
        if isinstance(series.dtype, pd.CategoricalDtype):
            series = series.astype(series.dtype.categories.dtype)
        if pd.api.types.is_object_dtype(series.dtype):
            series = pd.to_numeric(series)  # decimals, numbers held as objects
        out[name] = series.to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def read_as_float(frame: Any, columns: Sequence[str]) -> Any:
    """``frame`` with ``columns`` read as float64 in every partition (nothing when empty)."""
    if not columns:
        return frame
    meta = as_float(frame._meta, columns)
    return frame.map_partitions(as_float, list(columns), meta=meta)
