"""Numba kernels: pure numeric code on NumPy arrays, no validation, plotting or I/O.

Public wrappers in the concept modules validate input and call these. Every kernel has a slow,
definitional twin in the tests (``tests/reference.py``) that it is checked against.

The kernel modules hold the kernels only and import nothing of ranklens but each other and
:mod:`ranklens._foundation.cache`: whether a call takes a kernel or its NumPy form, a serial or a
parallel driver, is decided one layer up (the sizes in :mod:`ranklens._foundation.route`, the forms
and their choice in :mod:`ranklens._compute.xp` and the measure modules). Those modules import a
kernel module by an ``import`` statement in the function that calls it, so that importing them (and
a small call that takes a NumPy form) does not import numba.

Kernels compile on their first call (nothing is compiled at import) and are cached on disk;
:func:`ranklens._foundation.cache.configure` runs first so that a read-only install caches them in
the user's cache folder instead of compiling them again in every process.
"""

from ranklens._foundation.cache import configure as _configure

_configure()
