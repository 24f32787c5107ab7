"""Which form a computation takes: a NumPy form or a numba kernel, a serial or a parallel driver.

Every step that has both a numba kernel and a NumPy form (or both a serial and a parallel driver)
decides between them by size, and every size (and every cost estimate the decision weighs) lives
here, in one mutable :class:`RoutePolicy`, :data:`POLICY`. The modules that route read its fields
at each call, never a copy made at import, so that ``ranklens warmup`` and the tests can change a
rule for a block of code (:func:`kernels_at_any_size`, or ``monkeypatch.setattr(POLICY, ...)``).

Why a NumPy form below a size
-----------------------------
numba compiles a kernel on its first call (seconds) and loads it from its on-disk cache in later
processes (a fraction of a second, plus importing numba and starting LLVM the first time). A small
first call would spend most of its time there, so below a size, while the kernel has no machine
code in the process, the call takes a NumPy form instead: the same operations in the same order
(or exact integer sums), so the same numbers bit for bit, with nothing to compile or load. From
the size on, or once the kernel has machine code, the kernel runs: there it is the faster one and
a first call's compilation is small against the work. The timings behind each size are in
``docs/performance.md`` ("Cold start").

Why a serial driver below a size
--------------------------------
A ``prange`` driver pays for waking numba's thread pool on each call and costs more to compile
than its serial twin; below a size of work the serial driver is as fast, and small calls never
compile the parallel one. Either driver gives the same numbers (every row's sums run
sequentially).

The policy is performance only: no field changes a number a measure returns. The choices that
pick a statistical method by size (BCa's jackknife or regression, multinomial or Poisson
resampling) stay with the method, in :mod:`ranklens._inference.resampling`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
from collections.abc import Iterator

__all__ = ["POLICY", "RoutePolicy", "Thresholds", "kernels_at_any_size"]


class Thresholds(enum.Flag):
    """The groups of size thresholds that :func:`kernels_at_any_size` sets to 0."""

    #: The NumPy forms that stand in for a kernel without machine code (the sorting steps apart).
    FIRST_CALLS = enum.auto()
    #: The sorting and grouping steps of the rank measures and the curves.
    SORTS = enum.auto()
    #: The bootstrap's rank sweep on level orders.
    LEVELS = enum.auto()
    #: The parallel drivers.
    DRIVERS = enum.auto()
    ALL = FIRST_CALLS | SORTS | LEVELS | DRIVERS


def _size(default: int, group: Thresholds) -> int:
    """A size threshold of ``group`` (a dataclass field)."""
    return dataclasses.field(default=default, metadata={"group": group})


@dataclasses.dataclass
class RoutePolicy:
    """The sizes and costs by which a call picks its form. Comparisons are those of the
    callers: ``n < *_below`` takes the NumPy form (or the serial driver), ``n >= *_from`` and
    ``work >= *_work`` the parallel driver, ``n > level_sweep_above`` the level sweep."""

    # -- the sorting steps ------------------------------------------------------------------------

    #: Rows below which the sorting and grouping steps (the rank measures' dense ranks and
    #: sequence, the curves' keys, radix sort and group sums) run in NumPy while their kernel has
    #: no machine code, in the process or in numba's cache: the same arrays bit for bit (a stable
    #: sort of the same keys; sequential cumulative sums), 2-3x slower but nothing to compile
    #: (the radix argsort and the sequence builder cost seconds on a first call). One number for
    #: the kernel modules (``ranklens._compute.kernels.ranking``,
    #: ``ranklens._compute.kernels.curves``) and for their dispatchers that decide without importing
    #: numba (``ranklens._compute.xp.sequence``, ``ranklens._compute.xp.ranked_keys``): below it,
    #: while the kernel module is not imported, NumPy.
    sort_numpy_below: int = _size(1 << 15, Thresholds.SORTS)

    #: Below the sorting steps' size a kernel with machine code already (in this process, or in
    #: numba's cache by an earlier process or ``ranklens warmup``) is still used: one call of it
    #: is cheaper than NumPy's dozen small calls, which counts when a bootstrap calls a measure
    #: thousands of times. Off: NumPy below the size whatever is compiled.
    prefer_compiled: bool = True

    # -- the rank measures' sweep -----------------------------------------------------------------

    #: Rows below which an unweighted ``ranking_summary`` or rank measure sums in NumPy
    #: (``ranklens._compute.xp.summary.summary_sums``) while the sweep kernel has no machine code in
    #: the process: the same exact counts and sums. The sorting steps' number.
    sweep_numpy_below: int = _size(1 << 15, Thresholds.FIRST_CALLS)
    #: Seconds of NumPy sums in one process after which the sweep kernel is loaded anyway (when
    #: numba's cache has it) or compiled (when it does not): a loop of many small calls then runs
    #: at the kernel's speed, having paid at most about twice the cheapest cost (the rule of ski
    #: rental: Karlin, Manasse, Rudolph & Sleator 1988, Competitive snoopy caching,
    #: Algorithmica 3, 79-119).
    sweep_load_after_s: float = 1.0
    sweep_compile_after_s: float = 3.0
    #: Rows below which the per-row pair counts (and the concordance envelope) of a cold
    #: unweighted call compare every pair of rows
    #: (``ranklens._compute.xp.summary.per_row_pair_counts``, O(n^2), a tenth of a second at this
    #: size) instead of compiling the sweep kernel (seconds); only while the sums take NumPy
    #: (:attr:`sweep_numpy_below`).
    pair_counts_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)

    # -- DeLong, the utility measures, NDCG, the weighted median ----------------------------------

    #: Rows below which an unweighted DeLong call while the kernels of
    #: ``ranklens._compute.kernels.delong`` have no machine code forms the components by comparing
    #: every pair of rows in NumPy (with unit weights every component is a multiple of 1/2 below
    #: 2**53, so every sum is exact): a first call neither imports numba nor compiles anything, and
    #: the comparison stays near a tenth of a second up to this size.
    delong_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)
    #: Rows below which the utility-based regression kernels' NumPy forms
    #: (``ranklens._compute.xp.utility``) run while the kernel has no machine code: about 0.1
    #: microsecond a row, against importing numba and loading the kernel.
    utility_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)
    #: Rows below which a DCG computed while the DCG kernel has no machine code (and costs more to
    #: compile, or to load from numba's cache, than the NumPy form takes: the costs below) comes
    #: from its NumPy form in ``ranklens.listwise``: the same operations in the same order.
    dcg_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)
    #: Seconds of the NumPy DCG per call and per row (where NumPy's ufuncs run the C library's
    #: loops; else per row with the C library's functions called element by element), and what
    #: getting the kernel costs instead: compiling it, or loading it from numba's cache.
    dcg_call_s: float = 1.5e-4
    dcg_row_s: float = 2e-7
    dcg_libm_row_s: float = 4e-7
    dcg_compile_s: float = 3.0
    dcg_load_s: float = 0.2
    #: Rows below which a weighted median taken while the selection kernel has no machine code,
    #: in this process or in numba's cache, comes from its NumPy form in ``ranklens.residual``
    #: (the same values; compiling the kernel costs about a second of a first call).
    median_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)
    #: Groups of tied predictions below which the isotonic recalibration's
    #: pool-adjacent-violators, while its kernel (``ranklens._compute.kernels.isotonic``) has no
    #: machine code, in the process or in numba's cache, runs its Python twin
    #: (``ranklens._compute.xp.isotonic``, the same values): under a microsecond a group, against
    #: about a second to compile the kernel. From here on the kernel; below, too, once the twin
    #: has run as long in the process as the rank sweep's rule allows (:attr:`sweep_load_after_s`
    #: and :attr:`sweep_compile_after_s`, a bootstrap's refits).
    pav_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)
    #: Curve points below which the areas, the ROC sums and the perfect model's interpolation run
    #: their NumPy forms (``ranklens._compute.xp.curve_helpers``) while the kernel has no machine
    #: code: loading even a cached kernel costs importing numba and starting LLVM.
    curve_helpers_numpy_below: int = _size(1 << 15, Thresholds.FIRST_CALLS)

    # -- the curve bands' grids and the targeting measures' replicate sweep -----------------------

    #: Data rows below which a band grid whose kernels (``ranklens._compute.kernels.curve_sweeps``)
    #: have no machine code, in the process or in numba's cache, runs its NumPy form
    #: (``ranklens._compute.xp.curves``, the same additions in the same order): a grid kernel costs
    #: seconds to compile, its NumPy form well under a microsecond per replicate row and data row,
    #: so 1,000 replicates stay below the compile time up to about this size.
    band_grid_numpy_below: int = _size(1 << 12, Thresholds.FIRST_CALLS)
    #: Data rows below which a band grid takes its NumPy form without importing the kernel module
    #: at all (``ranklens._compute.xp.band_routes``, while it is not imported); from here on the
    #: kernel module's rule (:attr:`band_grid_numpy_below`) decides. Half of it: with the kernels in
    #: numba's cache, loading them costs about as much CPU as the NumPy grids take at this size.
    band_grid_unimported_below: int = _size(1 << 11, Thresholds.FIRST_CALLS)
    #: Work of one replicate row of a targeting sweep or a gain grid (data rows, times the models
    #: of a sweep) from which the kernels' parallel drivers pay for their threads.
    band_grid_parallel_work: int = _size(1 << 15, Thresholds.DRIVERS)

    # -- the bootstrap ----------------------------------------------------------------------------

    #: Rows below which a multinomial bootstrap whose kernels have no machine code draws its
    #: multiplicities and sums its losses with the NumPy twins of ``ranklens._inference.resampling``
    #: (the same numbers bit for bit) and sweeps its rank measures with
    #: ``ranklens._compute.xp.rank``, when that costs less than getting the kernels (the costs
    #: below).
    twins_numpy_below: int = _size(1 << 15, Thresholds.FIRST_CALLS)
    #: Seconds to load the bootstrap's kernels from numba's cache (numba's first use of its CPU
    #: target included), and to compile them.
    twins_load_s: float = 0.5
    twins_compile_s: float = 3.0
    #: Seconds of importing numba, added to the cost of getting any kernel while numba is not
    #: imported in the process (the kernel modules are imported by the functions that call them).
    numba_import_s: float = 0.3
    #: Seconds of the NumPy rank sweep per replicate row, model, data row and level, and of the
    #: twins per replicate row and data row (measured on one core).
    twins_rank_s: float = 3e-8
    twins_row_s: float = 2e-8
    #: Rows above which the rank sweep runs on precomputed divide-and-conquer level orders
    #: (``ranklens._compute.kernels.rank_levels``, up to 32 replicates a sweep) and the replicate
    #: blocks are read as uint8 lanes; at most, eight replicates a sweep on a Fenwick tree. The
    #: level sweep is the faster from a thousand rows on once compiled; it starts where small first
    #: calls stop running on the twins (:attr:`twins_numpy_below`, the same number), so a small
    #: job never compiles it.
    level_sweep_above: int = _size(1 << 15, Thresholds.LEVELS)
    #: Work of a block of replicates (replicate rows times the work of one) from which it runs on
    #: numba's thread pool: waking the pool costs more than small blocks take (about a
    #: millisecond of work here), very much so on a busy machine.
    parallel_block_work: int = _size(2_000_000, Thresholds.DRIVERS)
    #: ... and the work of the whole call (about 4 s on one thread) from which it does, unless the
    #: parallel driver is compiled already: compiling a ``prange`` driver costs more than its
    #: serial twin, which only a long run wins back.
    parallel_run_work: int = _size(8_000_000_000, Thresholds.DRIVERS)

    # -- the rank measures' argsort ---------------------------------------------------------------

    #: Rows from which the argsorts of the rank measures run in parallel (with more than one
    #: thread): below, the serial sort is as fast, and small calls compile no parallel kernel.
    parallel_sort_from: int = _size(1 << 21, Thresholds.DRIVERS)


#: The policy every routing decision reads, at each call.
POLICY = RoutePolicy()


@contextlib.contextmanager
def kernels_at_any_size(which: Thresholds = Thresholds.ALL) -> Iterator[RoutePolicy]:
    """Within the block the size thresholds of the groups ``which`` are 0: the kernels (and the
    parallel drivers) run at any size, so that a small data set compiles them (``ranklens
    warmup``) or a test compares them with the NumPy forms. Restored on leaving, whatever they
    were; the costs and :attr:`RoutePolicy.prefer_compiled` are left as they are.

    Parameters
    ----------
    which : Thresholds
        The groups to set to 0 (all by default).

    Yields
    ------
    RoutePolicy
        :data:`POLICY`.
    """
    fields = [
        f
        for f in dataclasses.fields(POLICY)
        if "group" in f.metadata and f.metadata["group"] & which
    ]
    saved = {f.name: getattr(POLICY, f.name) for f in fields}
    try:
        for name in saved:
            setattr(POLICY, name, 0)
        yield POLICY
    finally:
        for name, value in saved.items():
            setattr(POLICY, name, value)
