"""Whether a numba kernel has machine code, for the routes that choose a kernel or its NumPy form.

A kernel with machine code, in this process or in numba's on-disk cache (compiled by an earlier
process or ``ranklens warmup``), is cheaper to call than its NumPy form even below the sizes of
:mod:`ranklens._foundation.route`: one call of it against NumPy's dozen small calls, which counts
when a bootstrap calls a measure thousands of times. The sorting steps of the rank measures
(:mod:`ranklens._compute.xp.sequence`), the curves (:mod:`ranklens._compute.xp.ranked_keys`) and the
curve bands' grids (:mod:`ranklens._compute.xp.band_routes`) ask it here; the kernel modules only
hold the kernels.
"""

from __future__ import annotations

from typing import Any

from ranklens._foundation.cache import is_compiled
from ranklens._foundation.route import POLICY

__all__ = ["kernel_ready", "use_kernel"]

#: Whether a kernel (by ``id`` of its dispatcher) is in numba's cache: the cache index is read
#: once per process, not at each call.
_ON_DISK: dict[int, bool] = {}


def kernel_ready(kernel: Any) -> bool:
    """Whether ``kernel`` has machine code in this process or in numba's cache (and
    ``POLICY.prefer_compiled`` is on).

    Parameters
    ----------
    kernel : numba dispatcher
        A kernel of a module of :mod:`ranklens._compute.kernels` (already imported).

    Returns
    -------
    bool
        Whether calling it costs no compilation.
    """
    if not POLICY.prefer_compiled:
        return False
    if kernel.signatures:
        return True
    key = id(kernel)
    if key not in _ON_DISK:
        _ON_DISK[key] = is_compiled(kernel)
    return _ON_DISK[key]


def use_kernel(n: int, kernel: Any) -> bool:
    """Whether a sorting or grouping step on ``n`` rows runs ``kernel`` (else its NumPy form).

    From ``POLICY.sort_numpy_below`` rows on (:mod:`ranklens._foundation.route`: below, the sorting
    and grouping steps run in NumPy, the same arrays bit for bit with nothing to compile; ``ranklens
    warmup`` compiles the kernels all the same), or when the kernel has machine code already
    (:func:`kernel_ready`).

    Parameters
    ----------
    n : int
        The rows of the step.
    kernel : numba dispatcher
        The step's kernel.

    Returns
    -------
    bool
        Whether the kernel runs.
    """
    return n >= POLICY.sort_numpy_below or kernel_ready(kernel)
