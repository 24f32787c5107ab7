"""Input checks shared by every public function.

One place converts what users hold (lists, NumPy arrays of any dtype, byte order, layout or
writeability, pandas 2 and 3 Series including nullable, Arrow-backed and categorical dtypes,
polars Series, pyarrow arrays, one-column data frames) to the one array type the kernels take:
a C-contiguous, aligned, writable, native-endian float64 array. A copy is made only when the
input is not already such an array, and kernels never write into what they are given, so a
caller's array is never modified.

Every message names the argument and what was received, so a user can tell ``y_true`` from
``y_pred`` without reading a traceback. Data of the wrong kind (strings, objects that are not
numbers, complex numbers, dates) raise :class:`TypeError`; data of the right kind but the wrong
shape, length or values raise :class:`ValueError`. Missing values of nullable, Arrow and polars
containers become NaN, so they are treated exactly as NaN is (usually: rejected, naming the
first position).
"""

from __future__ import annotations

import decimal
import math
import numbers
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens.exceptions import RowAlignmentWarning

__all__ = [
    "as_1d_float",
    "as_2d_float",
    "as_group_codes",
    "check_aligned",
    "check_event_threshold",
    "check_finite_number",
    "check_fraction",
    "check_nonnegative_number",
    "check_pair",
    "check_positive_int",
    "check_probability",
    "check_random_state",
    "check_sample_weight",
    "check_sample_weight_scaled",
    "is_constant",
    "normalize_weights",
    "relevance_values",
    "to_float_array",
]

FloatArray = NDArray[np.float64]

#: dtype kinds that are numbers: bool, signed and unsigned integers, floats.
_NUMERIC_KINDS = "biuf"
_KIND_NAMES = {
    "c": "complex numbers",
    "M": "dates/times",
    "m": "time differences",
    "U": "strings",
    "S": "bytes",
    "V": "structured records",
}


def _module_of(x: Any) -> str:
    return type(x).__module__.split(".", 1)[0]


def _wrong_kind(name: str, what: str) -> TypeError:
    return TypeError(f"{name} must be numeric (numbers or booleans); got {what}")


def _from_pandas(x: Any, name: str) -> np.ndarray:
    """A pandas Series / one-column DataFrame / Index as a float64 array (missing -> NaN)."""
    import pandas as pd

    if isinstance(x, pd.DataFrame):
        if x.shape[1] != 1:
            raise ValueError(
                f"{name} must be 1-D; got a DataFrame with {x.shape[1]} columns (pass one column)"
            )
        x = x.iloc[:, 0]
    dtype = x.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = dtype.categories
        if not (
            pd.api.types.is_numeric_dtype(categories.dtype)
            or pd.api.types.is_bool_dtype(categories.dtype)
        ):
            raise _wrong_kind(name, f"a categorical with {categories.dtype} categories")
        codes = np.asarray(x.cat.codes if isinstance(x, pd.Series) else x.codes)
        values = categories.to_numpy(dtype=np.float64, na_value=np.nan)
        out = np.full(codes.shape[0], np.nan)
        present = codes >= 0
        out[present] = values[codes[present]]
        return out
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
    ):
        # Nullable (Int64, Float64, boolean) and Arrow-backed numbers: pd.NA becomes NaN.
        return x.to_numpy(dtype=np.float64, na_value=np.nan)
    if pd.api.types.is_object_dtype(dtype):
        return x.to_numpy(dtype=object)
    raise _wrong_kind(name, f"a pandas {type(x).__name__} of dtype {dtype}")


def _from_polars(x: Any, name: str) -> np.ndarray:
    """A polars Series / one-column DataFrame as a float64 array (null -> NaN)."""
    import polars as pl

    if isinstance(x, pl.DataFrame):
        if x.width != 1:
            raise ValueError(
                f"{name} must be 1-D; got a DataFrame with {x.width} columns (pass one column)"
            )
        x = x.to_series(0)
    if not isinstance(x, pl.Series):
        raise _wrong_kind(name, f"a polars {type(x).__name__}")
    dtype = x.dtype
    if dtype == pl.Boolean or dtype.is_numeric():
        # Casting first turns nulls into NaN (and decimals into floats).
        return x.cast(pl.Float64).to_numpy()
    if dtype == pl.Null:
        return np.full(x.len(), np.nan)
    raise _wrong_kind(name, f"a polars Series of dtype {dtype}")


def _from_arrow(x: Any, name: str) -> np.ndarray:
    """A pyarrow Array / ChunkedArray as a float64 array (null -> NaN)."""
    import pyarrow as pa
    import pyarrow.types as pat

    if isinstance(x, pa.Table | pa.RecordBatch):
        if x.num_columns != 1:
            raise ValueError(f"{name} must be 1-D; got an Arrow table with {x.num_columns} columns")
        x = x.column(0)
    if not isinstance(x, pa.Array | pa.ChunkedArray):
        raise _wrong_kind(name, f"a pyarrow {type(x).__name__}")
    t = x.type
    if pat.is_dictionary(t):
        x = x.cast(t.value_type)
        t = x.type
    if not (pat.is_integer(t) or pat.is_floating(t) or pat.is_boolean(t) or pat.is_decimal(t)):
        raise _wrong_kind(name, f"an Arrow array of type {t}")
    filled = x.cast(pa.float64()).fill_null(float("nan"))
    return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.float64)


def _is_missing_marker(v: Any) -> bool:
    """None and ``pandas.NA`` (found by type name: pandas is not imported for this)."""
    return v is None or type(v).__name__ == "NAType"


def _objects_to_float(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array whose items are all real numbers (or missing) as float64; else TypeError.

    ``decimal.Decimal`` is a number (what databases and ``pandas.read_sql`` hand out for
    NUMERIC columns), converted to the nearest float; a signalling NaN becomes NaN. Strings
    are refused even when they look like numbers (``"1.5"``): parsing them is the reader's job,
    and a column of strings usually means the wrong column.
    """
    flat = arr.reshape(-1)
    out = np.empty(flat.shape[0], dtype=np.float64)
    for i, v in enumerate(flat):
        if _is_missing_marker(v):
            out[i] = np.nan
        elif isinstance(v, decimal.Decimal):
            out[i] = np.nan if v.is_nan() else float(v)
        elif isinstance(v, numbers.Real | np.bool_) and not isinstance(v, np.datetime64):
            out[i] = float(v)
        else:
            raise TypeError(
                f"{name} must be numeric (numbers or booleans); got {type(v).__name__} "
                f"{v!r:.40} at position {i}"
            )
    return out.reshape(arr.shape)


def to_float_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float64 NumPy array of any shape, or a ``TypeError`` / ``ValueError``.

    The one conversion every public function goes through. Missing values of nullable containers
    become NaN; masked arrays with masked entries are refused (their mask would otherwise be
    ignored); strings, non-numeric objects, complex numbers and dates are refused with a
    ``TypeError`` naming ``name``. The result is C-contiguous, aligned, native-endian and
    writable; it is ``x`` itself only when ``x`` already is such a float64 array.
    """
    if x is None:
        raise ValueError(f"{name} is required; got None")
    if isinstance(x, str | bytes):
        raise _wrong_kind(name, f"a string {x!r:.40}")
    if isinstance(x, np.ma.MaskedArray):
        n_masked = int(np.ma.count_masked(x))
        if n_masked:
            raise TypeError(
                f"{name} is a masked array with {n_masked} masked value(s); ranklens does not "
                "ignore masks silently: pass x.filled(np.nan) to treat them as missing, or "
                "x.compressed() (and the same rows of the other arguments) to drop them"
            )
        x = np.ma.getdata(x)
    module = _module_of(x)
    if module == "pandas":
        arr = _from_pandas(x, name)
    elif module == "polars":
        arr = _from_polars(x, name)
    elif module == "pyarrow":
        arr = _from_arrow(x, name)
    else:
        try:
            arr = np.asarray(x)
        except Exception as exc:  # ragged lists and exotic objects raise many types
            raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    kind = arr.dtype.kind
    if kind == "O":
        arr = _objects_to_float(arr, name)
    elif kind not in _NUMERIC_KINDS:
        what = _KIND_NAMES.get(kind, f"dtype {arr.dtype}")
        raise _wrong_kind(name, f"{what} (dtype {arr.dtype})")
    out = np.require(arr, dtype=np.float64, requirements=("C", "A", "W"))
    return out


def check_aligned(*, stacklevel: int = 3, **named: Any) -> None:
    """Warn when pandas inputs carry different indexes: ranklens matches rows by position.

    scikit-learn and NumPy match by position too, but a pandas user who filtered or shuffled one
    Series and not the other usually meant to match by label, and would get a wrong number
    without any error.
    """
    indexes = [
        (key, value.index)
        for key, value in named.items()
        if _module_of(value) == "pandas" and hasattr(value, "index")
    ]
    if len(indexes) < 2:
        return
    first, first_index = indexes[0]
    for other, other_index in indexes[1:]:
        if len(first_index) == len(other_index) and not first_index.equals(other_index):
            warnings.warn(
                f"{first} and {other} are pandas objects with different indexes; ranklens "
                "matches rows by position, not by index label (align them first, e.g. "
                f"{other} = {other}.reindex({first}.index), or pass .to_numpy() to silence this)",
                RowAlignmentWarning,
                stacklevel=stacklevel,
            )
            return


def as_1d_float(
    x: Any,
    name: str,
    *,
    min_n: int = 1,
    allow_nan: bool = False,
    allow_inf: bool = False,
) -> FloatArray:
    """Return ``x`` as a writable, contiguous 1-D float64 array, or raise naming ``name``.

    Accepts everything :func:`to_float_array` accepts; a one-column 2-D input is flattened.
    NaN (including the missing values of nullable containers) and infinities are rejected
    unless allowed, naming the count and the first position.
    """
    arr = to_float_array(x, name)
    if arr.ndim == 2 and 1 in arr.shape and arr.size > 0:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.shape[0] < min_n:
        if min_n <= 1:
            raise ValueError(f"{name} is empty; at least one observation is needed")
        raise ValueError(f"{name} has {arr.shape[0]} observation(s); at least {min_n} are needed")
    finite = np.isfinite(arr)
    if not finite.all():
        nan_mask = np.isnan(arr)
        n_nan = int(nan_mask.sum())
        n_inf = int(arr.size - finite.sum()) - n_nan
        if n_nan and not allow_nan:
            first = int(np.flatnonzero(nan_mask)[0])
            raise ValueError(
                f"{name} contains {n_nan} NaN or missing value(s) (first at position {first}); "
                "drop or impute them first"
            )
        if n_inf and not allow_inf:
            first = int(np.flatnonzero(np.isinf(arr))[0])
            raise ValueError(
                f"{name} contains {n_inf} infinite value(s) (first at position {first})"
            )
    return arr


def check_sample_weight_scaled(
    sample_weight: Any, n: int, *, name: str = "sample_weight", integers_as_given: bool = False
) -> tuple[FloatArray | None, float]:
    """Validated case weights rescaled to mean 1, and the scale: ``w = scaled * scale``.

    Every measure that is scale-free in the weights (a weighted mean, a weighted correlation, a
    fraction targeted) works on the rescaled weights, so ``w`` and ``1e150 * w`` give the same
    number: products and sums of weights over all pairs can neither overflow nor underflow.
    Measures that report weighted *counts* (rows targeted under a budget, pair counts) multiply
    by ``scale`` (or its square, for pairs) at the end. Returns ``(None, 1.0)`` for ``None``.

    With ``integers_as_given``, integer weights whose total squared stays below ``2**53`` come
    back as given with scale 1: every weighted pair count is then a sum of products of integers
    below ``2**53``, exact in float64, so integer weights count pairs exactly as repeated rows
    do (rescaled to mean 1 they would not be integers, and the counts would be off in the last
    place).
    """
    if sample_weight is None:
        return None, 1.0
    w = _validated_weights(sample_weight, n, name)
    # total < 2**26.5, tested without squaring: float ** 2 raises OverflowError above 1e154
    total = float(w.sum())
    if integers_as_given and total < 2.0**27 and total**2 < 2.0**53 and np.all(w == np.floor(w)):
        return w, 1.0
    return normalize_weights(w)


def normalize_weights(w: FloatArray) -> tuple[FloatArray, float]:
    """Validated weights ``w`` as ``(w / scale, scale)`` with ``w / scale`` of mean 1.

    For engines that received the user's weights unscaled (so that every measure they call sees
    exactly what the user gave) and run a scale-free fast path of their own.
    """
    # Dividing by the largest weight first keeps the mean representable however small the
    # weights are (denormal weights would make n / total overflow).
    largest = float(w.max())
    unit = w / largest
    mean_unit = float(unit.mean())
    return unit / mean_unit, largest * mean_unit


def _validated_weights(sample_weight: Any, n: int, name: str) -> FloatArray:
    w = as_1d_float(sample_weight, name)
    if w.shape[0] != n:
        raise ValueError(f"{name} has length {w.shape[0]} but the data have length {n}")
    if (w < 0).any():
        first = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"{name} must be non-negative; got {w[first]!r} at position {first}")
    largest = float(w.max())
    if not largest > 0:
        raise ValueError(f"{name} sums to zero; at least one observation needs positive weight")
    with np.errstate(over="ignore"):
        total = float(w.sum())
    if not np.isfinite(total):
        raise ValueError(
            f"{name} sums to {total} (overflow); rescale the weights (only their ratios matter "
            "for most measures)"
        )
    return w


def check_sample_weight(
    sample_weight: Any, n: int, *, name: str = "sample_weight", normalize: bool = True
) -> FloatArray | None:
    """Validate non-negative case weights of length ``n`` with a finite, positive total.

    Returns the weights rescaled to mean 1 (see :func:`check_sample_weight_scaled`; only the
    ratios of case weights matter to a scale-free measure), or, with ``normalize=False``, the
    validated weights themselves (for results that report weighted counts of rows, such as the
    number of customers a budget buys). ``None`` when ``sample_weight`` is ``None`` (the
    unweighted case, which callers usually handle with faster exact integer arithmetic).
    """
    if sample_weight is None:
        return None
    if normalize:
        return check_sample_weight_scaled(sample_weight, n, name=name)[0]
    return _validated_weights(sample_weight, n, name)


def check_pair(
    y_true: Any,
    y_pred: Any,
    *,
    min_n: int = 2,
    names: Sequence[str] = ("y_true", "y_pred"),
) -> tuple[FloatArray, FloatArray]:
    """Validate two equal-length 1-D numeric arrays with at least ``min_n`` finite values.

    Warns (:class:`~ranklens.exceptions.RowAlignmentWarning`) when both are pandas objects with
    different indexes, since rows are matched by position.
    """
    check_aligned(stacklevel=4, **{names[0]: y_true, names[1]: y_pred})
    a = as_1d_float(y_true, names[0], min_n=min_n)
    b = as_1d_float(y_pred, names[1], min_n=min_n)
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same length; "
            f"got {a.shape[0]} and {b.shape[0]}"
        )
    return a, b


def is_constant(x: FloatArray) -> bool:
    """True when every value of ``x`` is equal (a rank correlation is then undefined)."""
    return bool(x.size == 0 or x.min() == x.max())


def check_probability(value: Any, name: str, *, open_interval: bool = True) -> float:
    """A float strictly inside (0, 1) (or in [0, 1] when ``open_interval`` is False)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1); got {value!r}") from None
    ok = 0.0 < v < 1.0 if open_interval else 0.0 <= v <= 1.0
    if not ok or not np.isfinite(v):
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must be in {bounds}; got {value!r}")
    return v


check_fraction = check_probability


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (booleans and floats with a fractional part are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_random_state(value: Any, name: str = "random_state") -> Any:
    """A seed of the resampling: None, an integer >= 0 (returned as ``int``), or a NumPy
    ``SeedSequence``, ``BitGenerator`` or ``Generator`` (returned as given).

    What :func:`numpy.random.default_rng` takes, checked where the caller gives it so that a bad
    seed is a ``ValueError`` naming ``name`` before any work (booleans, fractions and negative
    numbers are refused).
    """
    seeds = (np.random.SeedSequence, np.random.BitGenerator, np.random.Generator)
    if value is None or isinstance(value, seeds):
        return value
    if isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= 0:
        return int(value)
    raise ValueError(
        f"{name} must be None, an integer >= 0, or a NumPy SeedSequence or Generator; got {value!r}"
    )


def as_2d_float(x: Any, name: str, *, n_rows: int) -> FloatArray:
    """Return ``x`` as a finite float64 array of shape ``(n_rows, K)``; 1-D input is one column.

    Accepts NumPy arrays, nested lists and pandas / polars DataFrames (one column per level);
    non-numeric data raise a ``TypeError`` naming ``name``.
    """
    arr = _to_2d_numpy(x, name)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (rows x levels); got shape {arr.shape}")
    out = np.require(arr, dtype=np.float64, requirements=("C", "A", "W"))
    if out.shape[0] != n_rows:
        raise ValueError(f"{name} has {out.shape[0]} rows but the data have length {n_rows}")
    if out.shape[1] == 0:
        raise ValueError(f"{name} has no columns; at least one is needed")
    if not np.isfinite(out).all():
        row, col = (int(v[0]) for v in np.nonzero(~np.isfinite(out)))
        raise ValueError(
            f"{name} contains non-finite or missing values (first at row {row}, column {col}: "
            f"{out[row, col]!r})"
        )
    return out


def _to_2d_numpy(x: Any, name: str) -> np.ndarray:
    """A 2-D container column by column through :func:`to_float_array` (so each is checked)."""
    module = _module_of(x)
    if module == "pandas" and hasattr(x, "columns"):
        columns = [
            to_float_array(x.iloc[:, j], f"{name} column {x.columns[j]!r}")
            for j in range(x.shape[1])
        ]
        return np.column_stack(columns) if columns else np.empty((len(x), 0))
    if module == "polars" and hasattr(x, "columns"):
        columns = [
            to_float_array(x.to_series(j), f"{name} column {x.columns[j]!r}")
            for j in range(x.width)
        ]
        return np.column_stack(columns) if columns else np.empty((x.height, 0))
    return to_float_array(x, name)


def _labels_to_numpy(x: Any, name: str) -> np.ndarray:
    """Group labels (numbers or strings) as a NumPy array."""
    if x is None:
        raise ValueError(f"{name} is required; got None")
    to_numpy = getattr(x, "to_numpy", None)
    if callable(to_numpy) and not isinstance(x, np.ndarray):
        try:
            return np.asarray(to_numpy())
        except Exception as exc:
            raise ValueError(f"{name} could not be converted to an array: {exc}") from None
    try:
        return np.asarray(x)
    except Exception as exc:
        raise ValueError(f"{name} could not be converted to an array: {exc}") from None


def as_group_codes(groups: Any, n: int, *, name: str = "groups") -> tuple[np.ndarray, np.ndarray]:
    """Integer codes ``0..G-1`` (in sorted label order) and the sorted unique labels of ``groups``.

    Labels may be numbers or strings (NumPy, pandas, polars); missing labels are rejected.
    """
    arr = _labels_to_numpy(groups, name)
    if arr.ndim == 2 and 1 in arr.shape and arr.size > 0:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but the data have length {n}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        first = int(np.flatnonzero(np.isnan(arr))[0])
        raise ValueError(f"{name} contains NaN labels (first at position {first})")
    if arr.dtype.kind == "O":
        missing = [
            i
            for i, v in enumerate(arr)
            if _is_missing_marker(v) or (isinstance(v, float) and v != v)
        ]
        if missing:
            raise ValueError(f"{name} contains missing labels (first at position {missing[0]})")
    try:
        labels, codes = np.unique(arr, return_inverse=True)
    except TypeError:
        raise ValueError(f"{name} mixes label types that cannot be ordered") from None
    return np.ascontiguousarray(codes.reshape(-1), dtype=np.int64), labels


def check_nonnegative_number(value: Any, name: str) -> float:
    """A finite float >= 0 (a cost, a tolerance, a beta), or a ``ValueError`` naming ``name``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a non-negative number; got {value!r}") from None
    if not (np.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be a finite non-negative number; got {value!r}")
    return v


def relevance_values(relevance: Callable[[Any], Any], y: FloatArray, name: str) -> FloatArray:
    """phi(y) checked to be n finite values in [0, 1].

    The check of every relevance-based measure (:mod:`ranklens.extremes`) and of the targeting
    measures' relevance events (:mod:`ranklens.targeting`).

    Parameters
    ----------
    relevance : callable
        The relevance function ``phi``, called on the whole array.
    y : ndarray of float64 of shape (n,)
        The values it is evaluated on.
    name : str
        The argument ``y`` came from, named in the error message.

    Returns
    -------
    ndarray of float64 of shape (n,)
        ``phi(y)``, contiguous.

    Raises
    ------
    ValueError
        If ``phi`` raises, returns another number of values, or a value outside [0, 1] or NaN.
    """
    try:
        raw = relevance(y)
    except Exception as exc:
        raise ValueError(f"relevance could not be evaluated on {name}: {exc}") from exc
    phi = np.asarray(raw, dtype=np.float64).reshape(-1) if np.ndim(raw) else None
    if phi is None or phi.shape[0] != y.shape[0]:
        raise ValueError(
            f"relevance must return one value per element of {name} ({y.shape[0]}); "
            f"got shape {np.shape(raw)}"
        )
    phi = np.ascontiguousarray(phi)
    lo, hi = (float(phi.min()), float(phi.max())) if phi.size else (0.0, 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo >= 0.0 and hi <= 1.0):
        raise ValueError(
            f"relevance must map {name} into [0, 1]; got values in [{lo!r}, {hi!r}]"
            + (" (NaN present)" if np.isnan(phi).any() else "")
        )
    return phi


def check_event_threshold(value: Any) -> float:
    """The relevance threshold ``t_E`` from which a value is an event: a number in (0, 1].

    Parameters
    ----------
    value : Any
        The ``event_threshold`` given.

    Returns
    -------
    float
        The threshold.

    Raises
    ------
    ValueError
        If it is not a number in (0, 1].
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"event_threshold must be a number in (0, 1]; got {value!r}") from None
    if not (0.0 < v <= 1.0):
        raise ValueError(f"event_threshold must be in (0, 1]; got {value!r}")
    return v


def check_finite_number(value: Any, name: str, *, minimum: float | None = None) -> float:
    """A finite float, at least ``minimum`` when given (a cost, a margin, a budget, a
    relevance's parameter).

    Parameters
    ----------
    value : Any
        The number given.
    name : str
        Its argument's name, in the error message.
    minimum : float, optional
        The smallest value allowed.

    Returns
    -------
    float
        The number.

    Raises
    ------
    ValueError
        If it is not a number, not finite, or below ``minimum``.
    """
    bound = "" if minimum is None else f" >= {minimum:g}"
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a finite number{bound}; got {value!r}") from None
    if not math.isfinite(v) or (minimum is not None and v < minimum):
        raise ValueError(f"{name} must be a finite number{bound}; got {value!r}")
    return v
