"""Deprecated import paths: one way to keep a moved name importable, with a warning.

A module whose contents moved elsewhere keeps working as a thin alias: its module-level
``__getattr__`` (PEP 562) is :func:`moved_to`, which looks the name up in the new module and
warns once per access with a ``DeprecationWarning`` naming the new path.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["moved_to"]


def moved_to(old: str, new: ModuleType) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the module ``old`` whose names now live in ``new``."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # dunder probes (copy, pickle, doctest) are not moved names
            raise AttributeError(name)
        value = getattr(new, name)  # AttributeError for unknown names, as usual
        warnings.warn(
            f"{old}.{name} moved to {new.__name__}.{name}; "
            "the old path will be removed in a future release",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__
