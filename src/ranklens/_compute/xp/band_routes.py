"""Which form the curve bands' grids take (numba kernel or NumPy form).

The band grids of :func:`ranklens.curve_bands` and the targeting measures' replicate sweep have
numba kernels in :mod:`ranklens._compute.kernels.curve_sweeps` and NumPy forms in
:mod:`ranklens._compute.xp.curves` (the same numbers bit for bit); :func:`numpy_route` chooses.
Importing the kernel module imports numba and starts LLVM (about 0.5 s), more than a small job
spends on its bootstrap, so while the kernel module is not imported in the process (none of its
kernels has machine code), a grid over fewer than
``ranklens._foundation.route.POLICY.band_grid_unimported_below`` data rows takes its NumPy form
without importing it. Otherwise (a larger call, or the module imported by ``ranklens warmup``, a
large call or a test forcing the kernels) the kernel module is imported and a grid over fewer than
``POLICY.band_grid_numpy_below`` rows takes its NumPy form while none of its kernels has machine
code, in the process or in numba's on-disk cache
(:func:`ranklens._compute.xp.compiled.kernel_ready`).

:func:`parallel_chunks` says whether a kernel's grid runs on numba's threads (and in how many
chunks). :func:`routed_as` makes the grids take the route of a larger call: the bootstrap budget
compiles the kernels on a tiny sample of the rows, and that sample must take the route of the
real run.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
from collections.abc import Iterator

from ranklens._compute.xp.compiled import kernel_ready
from ranklens._foundation.route import POLICY

__all__ = ["ROUTE_ROWS", "numpy_route", "parallel_chunks", "routed_as"]

#: The data rows the route is decided for within :func:`routed_as` (0: the call's own).
ROUTE_ROWS: contextvars.ContextVar[int] = contextvars.ContextVar("ROUTE_ROWS", default=0)

_KERNELS = "ranklens._compute.kernels.curve_sweeps"


def numpy_route(n: int, *kernels: str) -> bool:
    """Whether a band grid over ``n`` data rows takes its NumPy form.

    Parameters
    ----------
    n : int
        The data rows of the grid (the rows of :func:`routed_as` if more).
    *kernels : str
        The names of the grid's kernels (its serial and parallel drivers) in
        :mod:`ranklens._compute.kernels.curve_sweeps`.

    Returns
    -------
    bool
        While the kernel module is not imported, below ``POLICY.band_grid_unimported_below``
        rows (:mod:`ranklens._foundation.route`): True, decided without importing numba. Otherwise
        (the module imported, numba with it) below ``POLICY.band_grid_numpy_below`` rows while none
        of ``kernels`` has machine code in this process or in numba's cache (a cached kernel
        loads in a fraction of a second, and a warm process keeps the kernels it ran with;
        ``ranklens warmup`` sets the size to 0 so that it still compiles them).
    """
    rows = max(int(n), ROUTE_ROWS.get())
    if _KERNELS not in sys.modules and rows < POLICY.band_grid_unimported_below:
        return True  # no grid kernel has machine code in this process: NumPy, no import
    from ranklens._compute.kernels import curve_sweeps  # imports numba

    if rows >= POLICY.band_grid_numpy_below:
        return False
    return not any(kernel_ready(getattr(curve_sweeps, name)) for name in kernels)


@contextlib.contextmanager
def routed_as(n: int) -> Iterator[None]:
    """Within the block the grids take the route of a call on (at least) ``n`` rows: a small
    sample run to compile the kernels of a larger run (the bootstrap budget's first step)
    compiles the grid kernels that run will use instead of standing in for them.

    Parameters
    ----------
    n : int
        The data rows of the larger call.

    Yields
    ------
    None
    """
    token = ROUTE_ROWS.set(int(n))
    try:
        yield
    finally:
        ROUTE_ROWS.reset(token)


def parallel_chunks(replicates: int, work: int) -> int:
    """The chunks a grid's kernel splits ``replicates`` weight rows into on numba's threads, or
    0 for its serial driver.

    Parallel from ``POLICY.band_grid_parallel_work`` units of work (data rows, times the orders
    swept) with more than one replicate and more than one thread; four chunks a thread, so that
    a slow chunk does not hold the others. Imports numba: call it on the kernels' route only.

    Parameters
    ----------
    replicates : int
        The weight rows (replicates) of the grid.
    work : int
        Data rows times the orders each replicate sweeps.

    Returns
    -------
    int
        ``4 * threads``, or 0 (serial).
    """
    import numba

    threads = numba.get_num_threads()
    if threads > 1 and replicates > 1 and work >= POLICY.band_grid_parallel_work:
        return 4 * threads
    return 0
