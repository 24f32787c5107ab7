"""Numba kernels: pure numeric code on NumPy arrays, no validation, plotting or I/O.

Public wrappers in the concept modules validate input and call these. Every kernel has a slow,
definitional twin in the tests (``tests/reference.py``) that it is checked against.

Kernels compile on their first call (nothing is compiled at import) and are cached on disk;
:func:`ranklens._cache.configure` runs first so that a read-only install caches them in the
user's cache folder instead of compiling them again in every process.
"""

from ranklens._cache import configure as _configure

_configure()
