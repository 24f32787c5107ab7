"""Which form the curve bands' grids take (numba kernel or NumPy form), decided without numba.

The band grids of :func:`ranklens.curve_bands` and the targeting measures' replicate sweep have
numba kernels in :mod:`ranklens._kernels.curve_sweeps` and NumPy forms in :mod:`ranklens._xp.curves`
(the same numbers bit for bit). Importing the kernel module imports numba and starts LLVM (about
0.5 s), more than a small job spends on its bootstrap, so the route is asked here first: while the
kernel module is not imported in the process, none of its kernels has machine code, and a grid over
fewer than ``ranklens._route.POLICY.band_grid_unimported_below`` data rows takes its NumPy form
without importing it (:func:`numpy_route`). Otherwise (a larger call, or the module imported by
``ranklens warmup``, a large call or a test forcing the kernels) the kernel module's own rule
decides (``ranklens._kernels.curve_sweeps.numpy_route``, which also knows about kernels in numba's
on-disk cache).

:func:`routed_as` makes the grids take the route of a larger call: the bootstrap budget compiles
the kernels on a tiny sample of the rows, and that sample must take the route of the real run.
The kernel module reads the same context (it imports :data:`ROUTE_ROWS` from here), so both rules
see it.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import sys
from collections.abc import Iterator

from ranklens._route import POLICY

__all__ = ["ROUTE_ROWS", "numpy_route", "routed_as"]

#: The data rows the route is decided for within :func:`routed_as` (0: the call's own).
ROUTE_ROWS: contextvars.ContextVar[int] = contextvars.ContextVar("ROUTE_ROWS", default=0)

_KERNELS = "ranklens._kernels.curve_sweeps"


def numpy_route(n: int, *kernels: str) -> bool:
    """Whether a band grid over ``n`` data rows, whose kernels (its serial and parallel drivers)
    are named ``kernels`` in :mod:`ranklens._kernels.curve_sweeps`, takes its NumPy form.

    While the kernel module is not imported, below ``POLICY.band_grid_unimported_below`` rows
    (:mod:`ranklens._route`; the rows of :func:`routed_as` if more): the NumPy form, decided
    without importing numba. Otherwise the kernel
    module's ``numpy_route`` decides on the kernels themselves (importing it).
    """
    module = sys.modules.get(_KERNELS)
    if module is None:
        if max(int(n), ROUTE_ROWS.get()) < POLICY.band_grid_unimported_below:
            return True  # no grid kernel has machine code in this process: NumPy, no import
        # the kernel module imports this one: by name, as ranklens._kernels.LazyKernels does
        module = importlib.import_module(_KERNELS)
    return bool(module.numpy_route(n, *(getattr(module, name) for name in kernels)))


@contextlib.contextmanager
def routed_as(n: int) -> Iterator[None]:
    """Within the block the grids take the route of a call on (at least) ``n`` rows: a small
    sample run to compile the kernels of a larger run (the bootstrap budget's first step)
    compiles the grid kernels that run will use instead of standing in for them."""
    token = ROUTE_ROWS.set(int(n))
    try:
        yield
    finally:
        ROUTE_ROWS.reset(token)
