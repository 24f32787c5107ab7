"""Deprecated module name: its contents moved to :mod:`ranklens.extremes` (the extremes family).

One vocabulary names the families of measures, their modules, the report's sections and the
plots. Names are still importable from here, with a ``DeprecationWarning``.
"""

from __future__ import annotations

from ranklens import extremes
from ranklens._deprecation import moved_to

__getattr__ = moved_to("ranklens.utility", extremes)
