"""The rank measures of one sample on a CUDA device (the ranking measures of device inputs).

The statistics of the pair classes (Kendall's tau-b, Harrell's C, Somers' D, ...) without
weights come from the exact pair counts of :func:`ranklens._compute.xp.rank.exact_pair_counts`
(Python ints; the statistic is formed from them as on the CPU, so the values are the CPU path's);
Spearman's rho and every weighted measure from one row of
:func:`ranklens._compute.xp.rank.replicate_statistics`. Inputs may be
CuPy arrays, DLPack tensors (torch, JAX) or host arrays; device arrays are read where they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from ranklens._compute.xp import cupy_or_raise, is_cupy, is_device_array, to_namespace
from ranklens._compute.xp.rank import (
    build_plan,
    classes_from_counts,
    exact_pair_counts,
    replicate_classes,
    replicate_statistics,
)
from ranklens._foundation.forms import RankStatistic

__all__ = ["DEVICES", "device_inputs", "device_point", "on_device", "resolve_device"]

#: Accepted values of ``device=`` (``"cuda"`` and ``"cupy"`` are aliases of ``"gpu"``).
DEVICES: tuple[str, ...] = ("cpu", "gpu")
_ALIASES = {"cuda": "gpu", "cupy": "gpu"}


def on_device(*arrays: Any) -> bool:
    """Whether a measure of ``arrays`` computes on a CUDA device: when any of them lives there.

    The device follows the data, as in scikit-learn's array-API support: CuPy arrays and
    DLPack tensors on a GPU (torch, JAX) are computed on the device (host arrays given with
    them are copied there); NumPy arrays, pandas and polars columns and lists on the CPU.
    ``None`` (an omitted ``sample_weight``) is neither.
    """
    return any(is_device_array(a) for a in arrays if a is not None)


def resolve_device(device: Any, *arrays: Any) -> str:
    """``"cpu"`` or ``"gpu"`` from a ``device=`` argument; None follows the data: ``"gpu"`` when
    any of ``arrays`` (a mapping counts by its values) lives on a CUDA device (:func:`on_device`).
    """
    if device is None:
        flat = [v for a in arrays for v in (a.values() if isinstance(a, Mapping) else (a,))]
        return "gpu" if on_device(*flat) else "cpu"
    name = _ALIASES.get(str(device).lower(), str(device).lower()) if isinstance(device, str) else ""
    if name not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES} (or 'cuda', 'cupy'); got {device!r}")
    return name


def _vector(xp: ModuleType, x: Any, name: str) -> Any:
    try:
        arr = to_namespace(x, xp)
        if not is_cupy(xp):
            arr = np.asarray(arr)
        arr = arr.astype(xp.float64, copy=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of numbers ({exc})") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {tuple(arr.shape)}")
    if not bool(xp.all(xp.isfinite(arr))):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def _inputs(xp: ModuleType, y_true: Any, y_pred: Any, sample_weight: Any) -> tuple[Any, Any, Any]:
    y = _vector(xp, y_true, "y_true")
    p = _vector(xp, y_pred, "y_pred")
    if p.shape[0] != y.shape[0]:
        raise ValueError(f"y_true and y_pred have different lengths: {y.shape[0]} and {p.shape[0]}")
    if y.shape[0] < 2:
        raise ValueError(f"y_true needs at least 2 rows; got {y.shape[0]}")
    if sample_weight is None:
        return y, p, None
    w = _vector(xp, sample_weight, "sample_weight")
    if w.shape[0] != y.shape[0]:
        raise ValueError(f"sample_weight has length {w.shape[0]}; y_true has {y.shape[0]}")
    if bool(xp.any(w < 0)):
        raise ValueError("sample_weight must be non-negative")
    if bool(xp.all(w == xp.round(w))) and float(xp.max(w)) < 2.0**31:
        w = w.astype(xp.int64)  # integer weights: exact counts
    return y, p, w


#: Validated ``(y, p, w)`` in the namespace (``w`` int64 for integer weights, else float64).
device_inputs = _inputs


def device_point(
    y_true: Any,
    y_pred: Any,
    sample_weight: Any,
    statistic: RankStatistic,
    *,
    namespace: Any = None,
) -> float:
    """One statistic of the rank sweep on the device, NaN where it is undefined (a constant
    argument; the caller warns).

    Without weights a statistic of the pair classes reads the exact pair counts
    (:func:`ranklens._compute.xp.rank.exact_pair_counts`, Python ints); with weights, and for the
    statistics of the midranks, one row of :func:`ranklens._compute.xp.rank.replicate_statistics`.
    ``namespace`` (default CuPy) lets the tests run the same code on NumPy.
    """
    xp = cupy_or_raise("a rank measure on device inputs") if namespace is None else namespace
    y, p, w = _inputs(xp, y_true, y_pred, sample_weight)
    if w is None and not statistic.moments:
        return float(statistic(classes_from_counts(exact_pair_counts(xp, y, p))))
    weights = (xp.ones(y.shape[0], dtype=xp.int32) if w is None else w)[None, :]
    stats = replicate_statistics(xp, build_plan(xp, y, p), weights)
    host = {k: np.asarray(v.get() if is_cupy(xp) else v) for k, v in stats.items()}
    return float(statistic(replicate_classes(host))[0])
