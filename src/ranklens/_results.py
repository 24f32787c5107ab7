"""Base class for the frozen result dataclasses every rich function returns."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import numpy as np

from ranklens._format import result_html

__all__ = ["Result", "to_builtin"]


def to_builtin(value: Any) -> Any:
    """Convert NumPy arrays and scalars, fractions and nested containers to JSON-ready Python.

    Arrays become lists, NumPy scalars become ``int``/``float``, exact ``Fraction`` counts become
    ``int`` when integral and ``float`` otherwise; NaN stays ``float('nan')``.
    """
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, np.ndarray):
        return [to_builtin(v) for v in value.tolist()] if value.dtype == object else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if isinstance(value, dict):
        return {str(k): to_builtin(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_builtin(v) for v in value]
    if isinstance(value, float) and math.isinf(value):
        return value
    return value


@dataclasses.dataclass(frozen=True)
class Result:
    """Mixin for frozen result dataclasses: ``to_dict()`` and a compact ``repr``.

    Subclasses are ``@dataclasses.dataclass(frozen=True)``; array fields are NumPy arrays, summary
    fields Python scalars.
    """

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python objects (lists, floats, ints), ready for ``json.dumps``."""
        return {f.name: to_builtin(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def _repr_html_(self) -> str:
        """A compact HTML table of the fields for notebooks (arrays are summarised, not dumped)."""
        return result_html(self)

    def __repr__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            if not f.repr:
                continue
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                parts.append(f"{f.name}=<array shape={v.shape} dtype={v.dtype}>")
            elif isinstance(v, float):
                parts.append(f"{f.name}={v:.6g}")
            else:
                text = repr(v)
                parts.append(f"{f.name}={text if len(text) <= 60 else text[:57] + '...'}")
        return f"{type(self).__name__}({', '.join(parts)})"
