"""Inputs that say they live on a CUDA device, for running the device path on NumPy.

A measure computes where its inputs live (:func:`ranklens._compute.xp.measures.on_device`): a CuPy
array or a DLPack tensor on a GPU sends it down the device path. Without a GPU the tests run that
path with NumPy as the device namespace (``cupy_or_raise`` patched to return NumPy) and these
wrappers as the inputs: a host array that reports DLPack device type 2 (``kDLCUDA``) and hands
its values over through ``__array__``, so that the dispatch itself is what is tested.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class EmulatedDeviceArray:
    """A host array that reports a CUDA device (DLPack device type 2)."""

    def __init__(self, values: Any) -> None:
        self._values = np.asarray(values)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._values if dtype is None else self._values.astype(dtype)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __len__(self) -> int:
        return len(self._values)


def on_device(values: Any) -> Any:
    """``values`` as an input on the (emulated) device; ``None`` stays ``None``."""
    return None if values is None else EmulatedDeviceArray(values)
