"""Type aliases of the public signatures: the bottom of the package, imports nothing of ranklens.

Every public function takes its arrays as :data:`ArrayLike`: anything NumPy can turn into an
array (lists, tuples, NumPy arrays, pandas and polars Series, Arrow arrays: objects with
``__array__``), validated and converted once by :mod:`ranklens._foundation.validation`.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy.typing as npt

__all__ = ["ArrayLike"]

#: An array input of a public function: a list, tuple, NumPy array, pandas or polars Series, Arrow
#: array or anything else with ``__array__`` (see ``docs/inputs.md``).
ArrayLike: TypeAlias = npt.ArrayLike
