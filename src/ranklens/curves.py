"""Deprecated module name: its contents moved to :mod:`ranklens.targeting` (the targeting family).

One vocabulary names the families of measures, their modules, the report's sections and the
plots. Names are still importable from here, with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ranklens import targeting as _moved


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    value = getattr(_moved, name)  # AttributeError for unknown names, as usual
    warnings.warn(
        f"ranklens.curves.{name} moved to ranklens.targeting.{name}; "
        "the old path will be removed in a future release",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
