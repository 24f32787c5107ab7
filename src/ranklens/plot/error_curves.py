"""Deprecated module name: its contents moved to :mod:`ranklens.plot.residual`.

One vocabulary names the families of measures, their modules, the report's sections and the
plots. Names are still importable from here, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ranklens.plot import residual as _moved


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    value = getattr(_moved, name)  # AttributeError for unknown names, as usual
    warnings.warn(
        f"ranklens.plot.error_curves.{name} moved to ranklens.plot.residual.{name}; "
        "the old path will be removed in a future release",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
