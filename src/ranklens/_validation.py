"""Input checks shared by every public function.

One place for conversion of array-likes (lists, NumPy, pandas, polars) to NumPy and for the error
messages users see. Every message names the argument and what was received, so a user can tell
``y_true`` from ``y_pred`` without reading a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "as_1d_float",
    "as_2d_float",
    "as_group_codes",
    "check_fraction",
    "check_nonnegative_number",
    "check_pair",
    "check_positive_int",
    "check_probability",
    "check_sample_weight",
    "is_constant",
]

FloatArray = NDArray[np.float64]


def _to_numpy(x: Any, name: str) -> np.ndarray:
    """Convert an array-like (including pandas and polars objects) to a NumPy array."""
    if x is None:
        raise ValueError(f"{name} is required; got None")
    if isinstance(x, str | bytes):
        raise ValueError(f"{name} must be an array of numbers; got a string {x!r:.40}")
    # pandas / polars Series and single-column frames all offer to_numpy().
    to_numpy = getattr(x, "to_numpy", None)
    if callable(to_numpy) and not isinstance(x, np.ndarray):
        try:
            arr = to_numpy()
        except Exception as exc:  # pragma: no cover - defensive: exotic containers
            raise ValueError(f"{name} could not be converted to a NumPy array: {exc}") from exc
    else:
        try:
            arr = np.asarray(x)
        except Exception as exc:
            raise ValueError(f"{name} could not be converted to a NumPy array: {exc}") from exc
    return np.asarray(arr)


def as_1d_float(
    x: Any,
    name: str,
    *,
    min_n: int = 1,
    allow_nan: bool = False,
    allow_inf: bool = False,
) -> FloatArray:
    """Return ``x`` as a contiguous 1-D float64 array, or raise a ``ValueError`` naming ``name``.

    Accepts lists, tuples, NumPy arrays, pandas Series / single-column DataFrames and polars
    Series / single-column DataFrames. Booleans are accepted (as 0/1); strings, objects, complex
    numbers, datetimes and nested sequences are rejected.
    """
    arr = _to_numpy(x, name)
    if arr.ndim == 2 and 1 in arr.shape and arr.size > 0:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got an array of shape {arr.shape}")
    kind = arr.dtype.kind
    if kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be numeric; got dtype object with non-numeric values "
                f"(first: {arr[0]!r:.40})"
            ) from None
    elif kind not in "biuf":
        raise ValueError(f"{name} must be numeric; got dtype {arr.dtype}")
    out = np.ascontiguousarray(arr, dtype=np.float64)
    if out.shape[0] < min_n:
        if min_n <= 1:
            raise ValueError(f"{name} is empty; at least one observation is needed")
        raise ValueError(f"{name} has {out.shape[0]} observation(s); at least {min_n} are needed")
    finite = np.isfinite(out)
    if not finite.all():
        nan_mask = np.isnan(out)
        n_nan = int(nan_mask.sum())
        n_inf = int(out.size - finite.sum()) - n_nan
        if n_nan and not allow_nan:
            first = int(np.flatnonzero(nan_mask)[0])
            raise ValueError(
                f"{name} contains {n_nan} NaN value(s) (first at position {first}); "
                "drop or impute them first"
            )
        if n_inf and not allow_inf:
            first = int(np.flatnonzero(np.isinf(out))[0])
            raise ValueError(
                f"{name} contains {n_inf} infinite value(s) (first at position {first})"
            )
    return out


def check_sample_weight(
    sample_weight: Any, n: int, *, name: str = "sample_weight"
) -> FloatArray | None:
    """Validate non-negative, finite case weights of length ``n`` with a positive total.

    Returns ``None`` when ``sample_weight`` is ``None`` (the unweighted case, which callers
    usually handle with faster exact integer arithmetic).
    """
    if sample_weight is None:
        return None
    w = as_1d_float(sample_weight, name)
    if w.shape[0] != n:
        raise ValueError(f"{name} has length {w.shape[0]} but the data have length {n}")
    if (w < 0).any():
        first = int(np.flatnonzero(w < 0)[0])
        raise ValueError(f"{name} must be non-negative; got {w[first]!r} at position {first}")
    if not w.sum() > 0:
        raise ValueError(f"{name} sums to zero; at least one observation needs positive weight")
    return w


def check_pair(
    y_true: Any,
    y_pred: Any,
    *,
    min_n: int = 2,
    names: Sequence[str] = ("y_true", "y_pred"),
) -> tuple[FloatArray, FloatArray]:
    """Validate two equal-length 1-D numeric arrays with at least ``min_n`` finite values."""
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


def as_2d_float(x: Any, name: str, *, n_rows: int) -> FloatArray:
    """Return ``x`` as a finite float64 array of shape ``(n_rows, K)``; 1-D input is one column.

    Accepts NumPy arrays, nested lists and pandas / polars DataFrames (one column per level).
    """
    arr = _to_numpy(x, name)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D (rows x levels); got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be numeric; got dtype {arr.dtype}") from None
    out = np.ascontiguousarray(arr, dtype=np.float64)
    if out.shape[0] != n_rows:
        raise ValueError(f"{name} has {out.shape[0]} rows but the data have length {n_rows}")
    if out.shape[1] == 0:
        raise ValueError(f"{name} has no columns; at least one is needed")
    if not np.isfinite(out).all():
        row, col = (int(v[0]) for v in np.nonzero(~np.isfinite(out)))
        raise ValueError(
            f"{name} contains non-finite values (first at row {row}, column {col}: "
            f"{out[row, col]!r})"
        )
    return out


def as_group_codes(groups: Any, n: int, *, name: str = "groups") -> tuple[np.ndarray, np.ndarray]:
    """Integer codes ``0..G-1`` (in sorted label order) and the sorted unique labels of ``groups``.

    Labels may be numbers or strings (NumPy, pandas, polars); missing labels are rejected.
    """
    arr = _to_numpy(groups, name)
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
        missing = [i for i, v in enumerate(arr) if v is None or (isinstance(v, float) and v != v)]
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
