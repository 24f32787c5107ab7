"""Array-namespace helpers for the replicate kernels written once for NumPy and CuPy.

The kernels in :mod:`ranklens._compute.xp.rank` use only what the Python array API standard and both
NumPy and CuPy provide (``take``/fancy gathers, ``cumsum``, ``where``, ``sum``, ``argsort``,
``searchsorted``, ``bincount``, an indexed assignment), so the same code runs on the CPU, where
the test suite checks it against the numba engine, and on an NVIDIA GPU through CuPy. This
module picks the namespace of an array, moves arrays between host and device (DLPack for torch or
JAX tensors) and reports the free memory that sizes the replicate chunks.

No ranklens module above the foundations is imported here.
"""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType
from typing import Any

import numpy as np

from ranklens._foundation.extras import require

__all__ = [
    "argsort_stable",
    "cupy_or_raise",
    "free_bytes",
    "host_product",
    "is_cupy",
    "is_device_array",
    "namespace",
    "to_host",
    "to_namespace",
]


def is_cupy(xp: Any) -> bool:
    """Whether ``xp`` is the CuPy module."""
    return getattr(xp, "__name__", "") == "cupy"


def is_device_array(x: Any) -> bool:
    """An array that lives on a GPU: a CuPy array, or a tensor exposing CUDA memory or DLPack.

    A NumPy array (which also speaks DLPack) and plain sequences are host arrays.
    """
    if isinstance(x, np.ndarray) or x is None:
        return False
    if type(x).__module__.split(".")[0] == "cupy":
        return True
    if hasattr(x, "__cuda_array_interface__"):
        return True
    device = getattr(x, "__dlpack_device__", None)
    if device is None:
        return False
    try:
        kind = int(device()[0])
    except Exception:  # a tensor whose device cannot be asked: treat it as a host array
        return False
    return kind != 1  # 1 = kDLCPU in the DLPack device enumeration


def namespace(*arrays: Any) -> ModuleType:
    """CuPy when any argument is a CuPy array, else NumPy."""
    for a in arrays:
        if type(a).__module__.split(".")[0] == "cupy":
            import cupy

            return cupy
    return np


def cupy_or_raise(what: str) -> ModuleType:
    """The CuPy module with a usable device, or an error that says what is missing.

    Raises
    ------
    MissingExtraError
        CuPy is not installed (the message names ``pip install "ranklens[gpu]"``).
    RuntimeError
        CuPy is installed but no CUDA device can be used.
    """
    require("gpu", what)
    import cupy

    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # the CUDA driver is missing or broken
        raise RuntimeError(f"{what} needs a CUDA device; CuPy found none ({exc})") from exc
    if count < 1:
        raise RuntimeError(f"{what} needs a CUDA device; CuPy found none")
    return cupy


def to_namespace(x: Any, xp: ModuleType) -> Any:
    """``x`` as an array of ``xp``: device arrays stay where they are (DLPack, no copy)."""
    if is_cupy(xp):
        if type(x).__module__.split(".")[0] == "cupy":
            return x
        if is_device_array(x) and hasattr(x, "__dlpack__"):
            return xp.from_dlpack(x)
        return xp.asarray(np.asarray(x))
    return to_host(x)


def to_host(x: Any) -> Any:
    """A NumPy array for a CuPy array or a device tensor; anything else unchanged."""
    if x is None:
        return None
    if type(x).__module__.split(".")[0] == "cupy":
        return x.get()
    if is_device_array(x):
        if importlib.util.find_spec("cupy") is not None:
            import cupy

            return cupy.from_dlpack(x).get()
        cpu = getattr(x, "cpu", None)  # torch without CuPy
        if cpu is not None:
            return np.asarray(cpu())
        return np.asarray(x)
    return x


def host_product(weights: Any, columns: np.ndarray) -> np.ndarray:
    """``weights @ columns`` as a float64 NumPy array: computed where ``weights`` live (a CuPy
    block of replicate weights times host columns, only the small product copied back), so that
    a bootstrap drawn on the device needs no copy of its weights on the host."""
    if type(weights).__module__.split(".")[0] == "cupy":
        import cupy

        product = weights.astype(cupy.float64) @ cupy.asarray(columns)
        return np.asarray(product.get(), dtype=np.float64)
    return np.asarray(weights, dtype=np.float64) @ columns


def argsort_stable(xp: ModuleType, x: Any) -> Any:
    """A stable ascending argsort (CuPy's sort is always stable; NumPy is asked for it)."""
    if is_cupy(xp):
        return xp.argsort(x)
    return np.argsort(x, kind="stable")


def free_bytes(xp: ModuleType) -> int:
    """Free memory for the replicate chunks: the device's free memory plus what CuPy's pool
    holds unused; on the host, the available physical memory (or 4 GiB when unknown)."""
    if is_cupy(xp):
        free, _ = xp.cuda.runtime.memGetInfo()
        pool = xp.get_default_memory_pool()
        return int(free + pool.free_bytes())
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 4 << 30
