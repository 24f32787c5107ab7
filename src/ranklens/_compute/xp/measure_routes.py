"""Where a measure's small inputs take the NumPy form instead of a numba kernel.

A first call of a numba kernel compiles it (seconds) or loads it from numba's on-disk cache
(tenths of a second), and importing numba itself takes about half a second. On small inputs the
NumPy form of the same step (the same operations in the same order, so the same numbers bit for
bit) is cheaper than getting the kernel; on large ones, or once the kernel has machine code in
the process, the kernel is. The measure modules ask here which one runs; the sizes and times
the answers are made of are the policy of :mod:`ranklens._foundation.route`, and the other routes
(the sorting steps, the curves' keys, the curve bands' grids) are in
:mod:`ranklens._compute.xp.sequence`, :mod:`ranklens._compute.xp.ranked_keys` and
:mod:`ranklens._compute.xp.band_routes`.

* :func:`sweep_numpy`: the rank measures' pair counts and rank sums (the sweep kernel of
  :mod:`ranklens._compute.kernels.ranking`), with the seconds the NumPy sums have taken in this
  process (:func:`timed_summary_sums`): a long loop of small calls ends up loading or compiling the
  kernel, as a ski-rental rule would;
* :func:`curve_helper_numpy`: the targeting curves' trapezoids, interpolations and ROC sums;
* :func:`median_numpy`: the weighted median's selection;
* :func:`pav_numpy`: the isotonic recalibration's pool-adjacent-violators;
* :func:`dcg_numpy` and :func:`libm_ufuncs`: NDCG's discounted sums.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ranklens._compute.xp.compiled import kernel_ready
from ranklens._compute.xp.summary import summary_sums
from ranklens._foundation.cache import is_compiled
from ranklens._foundation.route import POLICY

__all__ = [
    "PAV_TWIN_SECONDS",
    "SWEEP_NUMPY_SECONDS",
    "curve_helper_numpy",
    "dcg_numpy",
    "libm_ufuncs",
    "median_numpy",
    "pair_counts_numpy",
    "pav_numpy",
    "ranking_kernel_loaded",
    "sweep_numpy",
    "timed_summary_sums",
    "timed_twin",
]

#: Seconds of NumPy rank sums spent in this process (:func:`timed_summary_sums`), which
#: :func:`sweep_numpy` weighs against getting the kernel.
SWEEP_NUMPY_SECONDS = [0.0]


def ranking_kernel_loaded(name: str) -> bool:
    """Whether kernel ``name`` of :mod:`ranklens._compute.kernels.ranking` has machine code in this
    process (without importing numba)."""
    kernels = sys.modules.get("ranklens._compute.kernels.ranking")
    return kernels is not None and bool(getattr(kernels, name).signatures)


def sweep_numpy(n: int) -> bool:
    """Whether an unweighted rank measure on ``n`` rows takes the NumPy sums.

    The NumPy sums (:func:`ranklens._compute.xp.summary.summary_sums`) give the same exact counts
    and sums as the sweep kernel, so the same numbers bit for bit. They run below
    ``POLICY.sweep_numpy_below`` rows while the kernel has no machine code in the process, until
    the NumPy sums of the process have taken ``POLICY.sweep_load_after_s`` seconds (then the
    kernel is loaded if numba's cache has it) or ``POLICY.sweep_compile_after_s`` (then
    compiled).
    """
    if n >= POLICY.sweep_numpy_below or ranking_kernel_loaded("sweep_kernel"):
        return False  # machine code in this process already: the kernel is cheaper per call
    return _twin_until_rented(SWEEP_NUMPY_SECONDS[0], _sweep_kernel)


def _sweep_kernel() -> Any:
    from ranklens._compute.kernels import ranking as kernels  # imports numba

    return kernels.sweep_kernel


def _twin_until_rented(spent: float, kernel: Callable[[], Any]) -> bool:
    """Whether a twin that has run ``spent`` seconds in this process runs again, for a kernel
    with no machine code in the process yet: until ``POLICY.sweep_load_after_s`` seconds, then
    while ``kernel()`` (its dispatcher; importing its module imports numba) is not in numba's
    cache, and from ``POLICY.sweep_compile_after_s`` seconds on never (the kernel is compiled):
    a loop of small calls ends on the kernel, having paid at most about twice the cheapest cost
    (the rule of ski rental: Karlin, Manasse, Rudolph & Sleator 1988)."""
    if spent < POLICY.sweep_load_after_s:
        return True
    if spent >= POLICY.sweep_compile_after_s:
        return False
    return not kernel_ready(kernel())


def timed_twin(seconds: list[float], twin: Callable[..., Any], *args: Any) -> Any:
    """``twin(*args)``, its time added to ``seconds[0]``: the seconds a ski-rental route
    (:func:`sweep_numpy`, :func:`pav_numpy`) weighs against getting the kernel."""
    start = time.perf_counter()
    try:
        return twin(*args)
    finally:
        seconds[0] += time.perf_counter() - start


def pair_counts_numpy(n: int) -> bool:
    """Whether the per-row pair counts of ``n`` unweighted rows compare every pair in NumPy
    (the same exact counts) instead of sweeping: below ``POLICY.pair_counts_numpy_below`` rows
    while the rank measures take their NumPy sums (:func:`sweep_numpy`)."""
    return n < POLICY.pair_counts_numpy_below and sweep_numpy(n)


def timed_summary_sums(y: np.ndarray, p: np.ndarray) -> dict[str, Any]:
    """:func:`ranklens._compute.xp.summary.summary_sums` on NumPy, its time counted for
    :func:`sweep_numpy`."""
    return timed_twin(SWEEP_NUMPY_SECONDS, summary_sums, np, y, p)


def curve_helper_numpy(m: int, kernel: Callable[[], Any]) -> bool:
    """Whether a step on ``m`` curve points takes its NumPy form
    (:mod:`ranklens._compute.xp.curve_helpers`, the kernels' numbers bit for bit): below
    ``POLICY.curve_helpers_numpy_below`` points while ``kernel()`` (the dispatcher, looked up
    only once :mod:`ranklens._compute.kernels.curves` is imported) has no machine code in this
    process."""
    if m >= POLICY.curve_helpers_numpy_below:
        return False
    return "ranklens._compute.kernels.curves" not in sys.modules or not kernel().signatures


def median_numpy(n: int) -> bool:
    """Whether a weighted median of ``n`` values takes the NumPy form (the same values): below
    ``POLICY.median_numpy_below`` rows while the selection kernel
    (``weighted_quantile_threshold``) has no machine code, in this process or in numba's
    cache."""
    if n >= POLICY.median_numpy_below:
        return False
    if "numba" not in sys.modules:
        return True  # no kernel has machine code, and loading one costs numba's import
    from ranklens._compute.kernels import residual as kernels  # imports numba

    kernel = kernels.weighted_quantile_threshold
    return not kernel.signatures and not is_compiled(kernel)


#: Seconds the isotonic recalibration's Python pool-adjacent-violators has run in this process
#: (:func:`ranklens._compute.xp.isotonic.pav_means` adds them), which :func:`pav_numpy` weighs
#: against getting the kernel.
PAV_TWIN_SECONDS = [0.0]


def pav_numpy(n: int) -> bool:
    """Whether pool-adjacent-violators over ``n`` groups runs its Python twin (the same values).

    Below ``POLICY.pav_numpy_below`` groups while the kernel (``pav_block_means``) has no
    machine code in the process, until the twin has taken ``POLICY.sweep_load_after_s`` seconds
    in this process (then the kernel is loaded if numba's cache has it) or
    ``POLICY.sweep_compile_after_s`` (then compiled): a bootstrap refits thousands of times, a
    single call once (the rule of ski rental, as :func:`sweep_numpy`).
    """
    kernels = sys.modules.get("ranklens._compute.kernels.isotonic")
    if n >= POLICY.pav_numpy_below or (kernels is not None and kernels.pav_block_means.signatures):
        return False  # machine code in this process already: the kernel is cheaper per call
    return _twin_until_rented(PAV_TWIN_SECONDS[0], _pav_kernel)


def _pav_kernel() -> Any:
    from ranklens._compute.kernels import isotonic  # imports numba

    return isotonic.pav_block_means


@functools.cache
def libm_ufuncs() -> bool:
    """Whether NumPy's float64 ``log1p``, ``expm1`` and ``exp2`` run their baseline loops, which
    call the C library's functions, the ones the kernels call (numba lowers ``2.0 ** x`` to
    ``exp2``). NumPy's SIMD variants (AVX-512 builds) may differ in the last bit: then the NumPy
    form calls Python's :mod:`math` functions (the C library's) element by element instead."""
    try:
        from numpy.lib.introspect import opt_func_info
    except ImportError:  # NumPy < 2.0 cannot say which loop runs: the C library's, per element
        return False
    info = opt_func_info(func_name="^(log1p|expm1|exp2)$", signature="^float64")
    targets = [t["current"] for loops in info.values() for t in loops.values()]
    return len(targets) == 3 and all(t.startswith("baseline") for t in targets)


def dcg_numpy(n: int, calls: int = 1) -> bool:
    """Whether ``calls`` DCG computations on ``n`` rows take the NumPy form.

    The NumPy form runs the same operations in the same order as
    :func:`ranklens._compute.kernels.listwise.grouped_ndcg`, so its numbers bit for bit. It runs
    below ``POLICY.dcg_numpy_below`` rows while the kernel has no machine code in the process and
    getting it (importing numba, loading or compiling the kernel) costs more than the NumPy form
    takes.
    """
    if n >= POLICY.dcg_numpy_below:
        return False
    per_row = POLICY.dcg_row_s if libm_ufuncs() else POLICY.dcg_libm_row_s
    estimate = calls * (POLICY.dcg_call_s + per_row * n)
    if "numba" not in sys.modules and estimate < POLICY.numba_import_s + POLICY.dcg_load_s:
        return True  # cheaper than even importing numba: decide without importing it
    from ranklens._compute.kernels import listwise as kernels  # imports numba

    kernel = kernels.grouped_ndcg
    if kernel.signatures:
        return False
    return estimate < (POLICY.dcg_load_s if is_compiled(kernel) else POLICY.dcg_compile_s)
