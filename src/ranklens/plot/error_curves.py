"""Deprecated module name: its contents moved to :mod:`ranklens.plot.residual`.

One vocabulary names the families of measures, their modules, the report's sections and the
plots. Names are still importable from here, with a ``DeprecationWarning``.
"""

from __future__ import annotations

from ranklens._deprecation import moved_to
from ranklens.plot import residual

__getattr__ = moved_to("ranklens.plot.error_curves", residual)
