"""Numba kernels: pure numeric code on NumPy arrays, no validation, plotting or I/O.

Public wrappers in the concept modules validate input and call these. Every kernel has a slow,
definitional twin in the tests (``tests/reference.py``) that it is checked against.

Kernels compile on their first call (nothing is compiled at import) and are cached on disk;
:func:`ranklens._cache.configure` runs first so that a read-only install caches them in the
user's cache folder instead of compiling them again in every process.
"""

from ranklens._cache import configure as _configure

_configure()


class LazyKernels:
    """A kernel module imported, and numba with it (0.2-0.4 s), on its first attribute access.

    The measure and inference modules hold their kernel modules through this proxy, so that a
    call that takes a NumPy path (small data, kernels not loaded: see
    :func:`ranklens._resampling.prefer_numpy_twins`) never imports numba. The import goes through
    Python's import lock (:func:`importlib.import_module`), so concurrent first uses are safe.
    """

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> object:
        import importlib

        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"LazyKernels({self._name!r})"
