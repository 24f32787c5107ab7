"""Resampling shared by the inference engines: replicate weights, intervals, progress.

The comparison engine (:func:`ranklens.compare_models`) and the curve bands
(:func:`ranklens.curve_bands`) draw the same replicate weights from the same generator, in the
same blocks, so that their replicates are paired; they build the same percentile and BCa
intervals; and they report progress the same way. This module holds those pieces and nothing
that knows a measure.

* Replicate weights come in blocks of rows (one row one replicate): multinomial multiplicities
  for the bootstrap (each row from one ``rng.integers`` call), delete-one-group indicators for
  the grouped jackknife behind the BCa acceleration, fair coins for the paired permutation test.
  The block size changes memory and parallelism, never the numbers.
* Schemes (:class:`Resampler`): the multinomial bootstrap of rows or, with unit ids, of units
  (the cluster bootstrap, Davison & Hinkley 1997, Sect. 3.8); counter-based Poisson(1) weights
  per row or unit (:func:`poisson_weights`, :func:`group_keys`), the same however the data are
  split; the multinomial draw within the two classes of a binary target (stratified, Sect. 3.7).
* Intervals: the percentile interval and Efron's BCa interval (Efron & Tibshirani 1993, ch. 14).
* Progress: plain lines on stderr, a few seconds apart, when a run is projected to take more
  than about a second (a terminal bar belongs to the presentation layer, which passes its own
  callback to the evaluation pipeline).
* Memory: the in-memory bootstrap's working memory (what it allocates beyond the caller's
  arrays) is bounded by :func:`memory_budget`, :data:`MEMORY_SHARE` of the memory available
  when it starts (``RANKLENS_MEMORY_BUDGET`` sets it instead); where even its smallest form
  would not fit, :class:`BootstrapMemoryError` says so in one line and points to the Dask
  engine (docs/performance.md, "Bootstrap at scale").

References
----------
Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
Cambridge University Press.
Efron, B. (1992). Jackknife-after-bootstrap standard errors and influence functions. *Journal
of the Royal Statistical Society B* 54(1), 83-127.
Efron, B. and Narasimhan, B. (2020). The automatic construction of bootstrap confidence
intervals. *Journal of Computational and Graphical Statistics* 29(3), 608-619.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import math
import numbers
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from typing import Any

import numpy as np

from ranklens._foundation.cache import is_compiled
from ranklens._foundation.normal import ndtr, ndtri
from ranklens._foundation.progress import LineProgress
from ranklens._foundation.route import POLICY
from ranklens._foundation.serial import optimal_block_lengths
from ranklens._foundation.validation import as_1d_float, check_aligned, check_pair
from ranklens.exceptions import RanklensWarning

__all__ = [
    "BCA_JACKKNIFE_BELOW",
    "JACKKNIFE_GROUPS",
    "MEMORY_SHARE",
    "POISSON_ABOVE",
    "SCHEMES",
    "BootstrapMemoryError",
    "Progress",
    "Resampler",
    "available_memory",
    "bootstrap_blocks",
    "check_predictions",
    "compact_block_rows",
    "draw_rows",
    "draw_segments",
    "format_bytes",
    "group_keys",
    "interval_from_replicates",
    "jackknife_blocks",
    "jackknife_groups",
    "jackknife_rows",
    "kernel",
    "kernels_only",
    "memory_budget",
    "multiplicities_numpy",
    "numpy_twins",
    "poisson_weights",
    "prefer_numpy_twins",
    "quiet",
    "regression_influence",
    "replicate_sd",
    "run_rows",
    "swap_blocks",
    "weighted_loss_sums_numpy",
]

# At most this many float64 cells in one block of replicate weights (32 MiB); the block size only
# affects memory and parallelism, never the numbers.
BLOCK_CELLS = 1 << 22
MAX_BLOCK_ROWS = 64
# ... but a block has up to WIDE_BLOCK_ROWS rows while it stays within WIDE_BLOCK_CELLS cells
# (256 MiB): the rank sweep of large data sets (ranklens._compute.kernels.rank_levels) sweeps a
# block's replicates together and costs per replicate about half as much with 32 as with 8 of them.
WIDE_BLOCK_ROWS = 32
WIDE_BLOCK_CELLS = 1 << 25
# Indices drawn at once in a block of compact weights (int32, 128 MiB): the draw of a block of
# 32 replicates on 2e7 rows would otherwise hold 2.6 GB of indices for 640 MB of counts.
DRAW_CELLS = 1 << 25
# Groups of the grouped jackknife that estimates the BCa acceleration (the full jackknife when
# n is smaller). Efron & Narasimhan (2020, bcaboot::bcajack) show a few dozen groups suffice.
JACKKNIFE_GROUPS = 100
# Below this many rows (or units) BCa's acceleration comes from the grouped jackknife (its
# JACKKNIFE_GROUPS extra evaluations cost a tenth of 1000 replicates); from it on, from a
# regression of the replicates on their counts per group, with no extra evaluation (at n = 2e7
# the jackknife alone took minutes). Below the threshold the numbers are those of earlier
# releases.
BCA_JACKKNIFE_BELOW = 1_000_000
# A progress bar appears when the projected run time exceeds this many seconds.
PROGRESS_AFTER_S = 1.0
# Replicate rows (bootstrap + jackknife, or permutations x pairs) of the running call: the driver
# is chosen once per call from its total work, so a call compiles one of the two drivers.
RUN_ROWS: contextvars.ContextVar[int] = contextvars.ContextVar("RUN_ROWS", default=1)


@contextlib.contextmanager
def run_rows(rows: int) -> Iterator[None]:
    """Within the block: the running call evaluates ``rows`` replicate rows in all."""
    token = RUN_ROWS.set(max(int(rows), 1))
    try:
        yield
    finally:
        RUN_ROWS.reset(token)


#: Share of the memory available when an in-memory bootstrap starts that its working memory may
#: take (its memory budget, :func:`memory_budget`): the rest is left to the caller's arrays, the
#: point values' sorts and the rest of the machine.
MEMORY_SHARE = 0.75

#: Where the memory available cannot be read, the budget is this many bytes (8 GiB).
_DEFAULT_MEMORY_BYTES = 8 * 2**30

_BYTE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class BootstrapMemoryError(MemoryError):
    """The in-memory bootstrap does not fit its memory budget (:func:`memory_budget`).

    A :class:`MemoryError` whose message is one line: what would not fit, how much it needs,
    the budget, and the way out (the Dask engine, ``ranklens evaluate --engine dask``).
    """


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now (Linux ``MemAvailable``; elsewhere the
    free physical pages), or None where the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def memory_budget() -> float:
    """Bytes the in-memory bootstrap's working memory may take: ``RANKLENS_MEMORY_BUDGET``
    (bytes, or a number with a K, M, G or T suffix, powers of 1024) where set, else
    :data:`MEMORY_SHARE` of :func:`available_memory` (8 GiB where it is unknown)."""
    given = os.environ.get("RANKLENS_MEMORY_BUDGET", "").strip().upper().removesuffix("B")
    if given:
        unit = given[-1] if given[-1] in _BYTE_UNITS else ""
        try:
            return float(given[: len(given) - len(unit)]) * _BYTE_UNITS[unit]
        except ValueError:
            raise ValueError(
                "RANKLENS_MEMORY_BUDGET must be a number of bytes, optionally with a K, M, G or "
                f"T suffix; got {os.environ['RANKLENS_MEMORY_BUDGET']!r}"
            ) from None
    available = available_memory()
    return MEMORY_SHARE * (_DEFAULT_MEMORY_BYTES if available is None else available)


def format_bytes(value: float) -> str:
    """``value`` bytes for a message: ``"9.7 GiB"``, ``"640 MiB"``."""
    if value >= 2**30:
        return f"{value / 2**30:.1f} GiB"
    return f"{value / 2**20:.0f} MiB"


# Replicates on NumPy while the kernels are not compiled: below
# ranklens._foundation.route.POLICY.twins_numpy_below rows, a multinomial bootstrap whose kernels
# have no machine code in this process draws its multiplicities and sums its losses with the NumPy
# twins below (the same numbers bit for bit) and sweeps its rank measures with the array-API kernels
# of ranklens._compute.xp.rank (exact pair sums; Spearman's moments to rounding), when that costs
# less than importing numba and loading the cached kernels or compiling them (the costs are the
# policy's too: docs/performance.md, "Cold start").
NUMPY_TWINS: contextvars.ContextVar[bool] = contextvars.ContextVar("NUMPY_TWINS", default=False)
# Set where the kernels must be compiled whatever the size (the budget's tiny first sample).
KERNELS_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("KERNELS_ONLY", default=False)


@contextlib.contextmanager
def kernels_only() -> Iterator[None]:
    """Within the block no bootstrap takes the NumPy twins (:func:`prefer_numpy_twins`)."""
    token = KERNELS_ONLY.set(True)
    try:
        yield
    finally:
        KERNELS_ONLY.reset(token)


@contextlib.contextmanager
def numpy_twins(on: bool) -> Iterator[None]:
    """Within the block, replicates run on the NumPy twins when ``on`` (:data:`NUMPY_TWINS`)."""
    token = NUMPY_TWINS.set(bool(on))
    try:
        yield
    finally:
        NUMPY_TWINS.reset(token)


def prefer_numpy_twins(n: int, rows: int, rank_models: int, ratio: bool) -> bool:
    """Whether a multinomial bootstrap of ``rows`` replicate rows on ``n`` rows, with
    ``rank_models`` models swept by the rank kernel and (``ratio``) the loss sums, costs less on
    NumPy than getting its kernels: none of them runs NumPy from ``POLICY.twins_numpy_below``
    rows on (:mod:`ranklens._foundation.route`, which holds the costs weighed too), or when all have
    machine code in this process already. Within :func:`draws_as` the sizes are at least its
    own."""
    n_as, rows_as = _DRAWS_AS.get()
    n, rows = max(n, n_as), max(rows, rows_as)
    if n >= POLICY.twins_numpy_below or KERNELS_ONLY.get():
        return False
    levels = max(1, (n - 1).bit_length())
    estimate = rows * n * (rank_models * levels * POLICY.twins_rank_s + POLICY.twins_row_s)
    if "numba" not in sys.modules:
        # No kernel has machine code in this process, and the cheapest way to get them (cached)
        # costs the import too: decide without importing numba when that already says NumPy.
        if estimate < POLICY.twins_load_s + POLICY.numba_import_s:
            return True
        load = POLICY.twins_load_s + POLICY.numba_import_s
    else:
        load = POLICY.twins_load_s
    from ranklens._compute.kernels import compare as _kc  # imports numba

    needed: list[Any] = [_kc.multiplicities_serial]
    if ratio:
        needed.append(_kc.weighted_loss_sums_serial)
    if rank_models:
        needed.append(_kc.rank_batches_serial)
    if all(k.signatures for k in needed):
        return False
    cached = all(is_compiled(k) for k in needed)
    return estimate < (load if cached else POLICY.twins_compile_s)


#: The data rows and replicate rows the multiplicity route is decided for within
#: :func:`draws_as` (0: the call's own).
_DRAWS_AS: contextvars.ContextVar[tuple[int, int]] = contextvars.ContextVar(
    "_DRAWS_AS", default=(0, 0)
)


@contextlib.contextmanager
def draws_as(n: int, rows: int) -> Iterator[None]:
    """Within the block :func:`bootstrap_blocks` and :func:`prefer_numpy_twins` take the route
    of a bootstrap of (at least) ``rows`` replicates on ``n`` rows: the bootstrap budget's small
    runs (a tiny sample that compiles the kernels, a few timed replicates) get the drivers the
    real run will use, and the many small bootstraps of one job (an evaluation by segment) the
    route of the whole job, not a NumPy form chosen again for each small part."""
    token = _DRAWS_AS.set((int(n), int(rows)))
    try:
        yield
    finally:
        _DRAWS_AS.reset(token)


def multiplicities_route(n: int, n_replicates: int) -> bool:
    """Whether :func:`bootstrap_blocks` draws ``n_replicates`` rows of multiplicities on ``n``
    data rows with :func:`multiplicities_numpy` (the same counts as the kernel, exactly).

    Within :func:`numpy_twins` it does; within :func:`kernels_only`, from
    ``POLICY.twins_numpy_below`` rows on (:mod:`ranklens._foundation.route`), or when the kernel has
    machine code in this process it does not; otherwise it does when that costs less than getting
    the kernel (importing numba, loading it from numba's cache or compiling it), decided without
    importing numba while numba is not imported. Any caller of the bootstrap (the comparison, the
    bands, the budget) gets the same rule.
    """
    if NUMPY_TWINS.get():
        return True
    if KERNELS_ONLY.get():
        return False
    n_as, rows_as = _DRAWS_AS.get()
    n, rows = max(n, n_as), max(n_replicates, rows_as, RUN_ROWS.get())
    if n >= POLICY.twins_numpy_below:
        return False
    estimate = rows * n * POLICY.twins_row_s
    if "numba" not in sys.modules:
        return estimate < POLICY.twins_load_s + POLICY.numba_import_s
    from ranklens._compute.kernels import compare as _kc  # imports numba

    serial = _kc.multiplicities_serial
    if any(getattr(k, "signatures", True) for k in (serial, _kc.multiplicities_parallel)):
        return False  # machine code in this process (or no numba dispatcher: call it)
    return estimate < (POLICY.twins_load_s if is_compiled(serial) else POLICY.twins_compile_s)


def multiplicities_numpy(indices: np.ndarray, n: int) -> np.ndarray:
    """NumPy twin of ``multiplicities_serial``: the counts of each row's drawn indices (float64,
    exact)."""
    rows = indices.shape[0]
    flat = (np.arange(rows, dtype=np.int64)[:, None] * n + indices).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


def weighted_loss_sums_numpy(
    multiplicity: np.ndarray, base_weight: np.ndarray, losses: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """NumPy twin of ``weighted_loss_sums_serial``, bit for bit: the same products summed in the
    same order, one data row after the other, as the kernel's loop.

    The kernel skips a row the replicate leaves out; here it adds ``w * loss = +-0.0``, which
    changes no sum (an accumulator that starts at ``+0.0`` is never ``-0.0``, and adding a zero
    to any other value returns it), except where the loss is infinite or NaN: those terms are
    set to ``-0.0``. The replicates of a chunk (at most :data:`_LOSS_CHUNK_CELLS` terms) are
    summed together, one vector addition per data row.
    """
    rows, n = multiplicity.shape
    n_losses = losses.shape[1]
    sums = np.empty((rows, n_losses))
    totals = np.empty(rows)
    finite = bool(np.all(np.isfinite(losses)))
    step = max(1, _LOSS_CHUNK_CELLS // (n * (n_losses + 1)))
    for start in range(0, rows, step):
        m = multiplicity[start : start + step]
        w = (m * base_weight).T  # (data row, replicate)
        terms = np.empty((n, m.shape[0], n_losses + 1))
        with np.errstate(all="ignore"):  # inf * 0 is NaN, silently, as in the kernel
            np.multiply(w[:, :, None], losses[:, None, :], out=terms[:, :, :n_losses])
        if not finite:
            np.copyto(terms[:, :, :n_losses], -0.0, where=(m == 0.0).T[:, :, None])
        terms[:, :, n_losses] = w
        acc = np.zeros((m.shape[0], n_losses + 1))  # the kernel's accumulators start at +0.0
        for term in terms:
            acc += term
        sums[start : start + step] = acc[:, :n_losses]
        totals[start : start + step] = acc[:, n_losses]
    return sums, totals


# Terms per chunk of :func:`weighted_loss_sums_numpy` (16 MiB of float64).
_LOSS_CHUNK_CELLS = 1 << 21


def kernel(name: str, row_work: float, n: int) -> Callable[..., Any]:
    """The parallel or the serial driver of kernel ``name`` (same numbers either way).

    ``row_work`` is the work of one replicate row. The choice depends on the call (its block size
    and its total rows, :data:`RUN_ROWS`), never on one block: every block of a call, the last
    short one included, uses the same driver, and a call compiles at most one of the two.
    Within :func:`draws_as` it is the choice of the run it stands for (the bootstrap budget
    compiles the kernels on a sample of the rows: those of the real run).
    """
    import numba

    n_as, rows_as = _DRAWS_AS.get()
    if n_as > n:  # the bootstrap budget's small runs take the drivers of the real run
        row_work, n = row_work * n_as / max(n, 1), n_as
    rows = max(RUN_ROWS.get(), rows_as)
    block_work = row_work * min(block_rows(n), rows)
    parallel = block_work >= POLICY.parallel_block_work and numba.get_num_threads() > 1
    from ranklens._compute.kernels import compare as _kc  # imports numba

    if parallel and row_work * rows < POLICY.parallel_run_work:
        parallel = is_compiled(getattr(_kc, f"{name}_parallel"))
    return getattr(_kc, f"{name}_parallel" if parallel else f"{name}_serial")


def block_rows(n: int) -> int:
    """Replicates per block: a multiple of 8 where it can be, the rank sweep's batch
    (:data:`ranklens._compute.kernels.compare.RANK_BATCH`), so that no batch runs half empty."""
    rows = max(1, min(MAX_BLOCK_ROWS, BLOCK_CELLS // n))
    if rows < WIDE_BLOCK_ROWS:
        rows = max(rows, min(WIDE_BLOCK_ROWS, WIDE_BLOCK_CELLS // n))
    return rows - rows % 8 if rows >= 8 else rows


#: Share of the expected values the first round of a parallel draw generates beyond the
#: expected need (a shortfall, which another round makes up, is then vanishingly rare).
_DRAW_SPARE = 1.01


@dataclasses.dataclass(frozen=True)
class DrawnSegments:
    """The indices of a block of replicates as segments of one int32 buffer, in stream order:
    segment j holds ``counts[j]`` values from ``buf[starts[j]]``, numbered ``offsets[j]`` on;
    replicate b's indices are the values numbered ``b n .. (b + 1) n - 1``
    (:func:`draw_segments`)."""

    buf: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    offsets: np.ndarray

    def joined(self, total: int) -> np.ndarray:
        """The first ``total`` values, joined (the tests' view; the kernels read segments)."""
        pieces = [self.buf[s : s + c] for s, c in zip(self.starts, self.counts, strict=True)]
        return np.concatenate(pieces)[:total]


def draw_segments(
    rng: np.random.Generator, n: int, rows: int, scratch: list[np.ndarray] | None = None
) -> DrawnSegments | None:
    """``rows`` replicates of ``rng.integers(0, n, size=n, dtype=np.int32)``, one after the
    other, drawn in parallel chunks (:mod:`ranklens._compute.kernels.pcg64`): the same numbers, as
    segments, and ``rng`` left in the state the calls would have left. None, drawing nothing,
    when ``rng``'s bit generator is not NumPy's PCG64 (``np.random.default_rng``'s) or n is
    not in ``[2, 2^31)``; the caller then calls ``rng.integers``. ``scratch`` (a list holding
    at most one array) keeps the chunks' buffer from one block to the next.
    """
    bits = rng.bit_generator
    if type(bits) is not np.random.PCG64 or not 2 <= n < 2**31 or rows < 1:
        return None  # (a range of one value draws nothing from the generator)
    state = bits.state
    lcg, inc = state["state"]["state"], state["state"]["inc"]
    mask64 = (1 << 64) - 1
    hi, lo = np.uint64(lcg >> 64), np.uint64(lcg & mask64)
    inc_hi, inc_lo = np.uint64(inc >> 64), np.uint64(inc & mask64)
    threshold = (2**32 - n) % n  # Lemire's rejection threshold, as NumPy computes it
    total = rows * n
    head: list[int] = []
    if state["has_uint32"]:  # the high half a previous call left: the stream's first value
        m = int(state["uinteger"]) * n
        if m & 0xFFFFFFFF >= threshold:
            head.append(m >> 32)
    need = total - len(head)
    from ranklens._compute.kernels import pcg64 as _kp  # imports numba

    width = 2 * _kp.CHUNK_STEPS
    accept = 1.0 - threshold / 2**32  # at least 1/2
    buffers: list[np.ndarray] = []
    chunk_counts: list[np.ndarray] = []
    first_chunk, have = 0, 0
    # Rounds of chunks until `need` values are accepted: the first generates the expected need
    # and 1% more, each further one at least the shortfall (accepting at least half).
    for _ in range(64):
        if have >= need:
            break
        chunks = math.ceil((need - have) / (width * accept) * _DRAW_SPARE) + 1
        chunks += -chunks % 4  # four chunks a task
        size = chunks * width + 1  # and a slot for the head
        if not buffers and scratch and scratch[0].size >= size:
            buf = scratch[0]
        else:
            buf = np.empty(size, np.int32)
            if not buffers and scratch is not None:
                scratch[:] = [buf]
        counts = np.zeros(chunks, np.int64)
        _kp.bounded_chunks(
            hi, lo, inc_hi, inc_lo, first_chunk, chunks, n, np.uint64(threshold), buf, counts
        )
        buffers.append(buf[: chunks * width + 1])
        chunk_counts.append(counts)
        first_chunk += chunks
        have += int(counts.sum())
    else:  # pragma: no cover - each round accepts half its values at the very least
        raise RuntimeError("the parallel draw did not converge")
    counts = np.concatenate(chunk_counts)
    before = np.cumsum(counts) - counts  # accepted values before each chunk
    # the chunk holding the last value drawn, and the 32-bit values consumed up to it
    last = int(np.searchsorted(before, need, side="left")) - 1
    position = _kp.accepted_position(
        hi, lo, inc_hi, inc_lo, last, n, np.uint64(threshold), need - int(before[last])
    )
    consumed = last * width + int(position)
    # The state after `consumed` values, as NumPy's PCG64 leaves it: the LCG ceil(consumed / 2)
    # steps on, and the high half of the last output, kept for the next call when `consumed`
    # is odd (and stale, not used, when it is even).
    bits.state = {
        "bit_generator": "PCG64",
        "state": {"state": lcg, "inc": inc},
        "has_uint32": 0,
        "uinteger": 0,
    }
    bits.advance((consumed + 1) // 2)
    after = bits.state
    lcg_after = after["state"]["state"]
    word = int(_kp.output_of(np.uint64(lcg_after >> 64), np.uint64(lcg_after & mask64)))
    after["has_uint32"], after["uinteger"] = consumed % 2, word >> 32
    bits.state = after
    # one buffer, the head in its last slot; the chunks of any further round after the first's
    buf = buffers[0] if len(buffers) == 1 else np.concatenate(buffers)
    round_starts = np.cumsum([0] + [b.size for b in buffers[:-1]])
    starts = np.concatenate(
        [r0 + width * np.arange(c.size) for r0, c in zip(round_starts, chunk_counts, strict=True)]
    )
    if head:
        buf[buffers[0].size - 1] = head[0]
        starts = np.concatenate([[buffers[0].size - 1], starts])
        counts = np.concatenate([[1], counts])
    offsets = np.cumsum(counts) - counts
    return DrawnSegments(buf, starts.astype(np.int64), counts, offsets)


def bootstrap_blocks(
    rng: np.random.Generator, n: int, n_replicates: int, *, compact: bool = False
) -> Iterator[np.ndarray]:
    """Blocks of multiplicity rows, each row from one ``rng.integers`` call (one replicate).

    On the kernels' route a large block draws its indices in parallel chunks
    (:func:`draw_segments`, the same numbers). With ``compact`` a block on the kernels' route is
    uint8 counts (``small_multiplicities``, an eighth of the float64 block, for callers that
    read them as such: the comparison's uint8 lanes) wherever every count fits, else float64
    as always: the same numbers. Compact blocks have :data:`WIDE_BLOCK_ROWS` rows at least
    whatever n (:func:`compact_block_rows`: the rank sweep's batch, which costs the same with
    fewer), their indices drawn :func:`draw_rows` rows at a time.
    """
    dtype = np.int32 if n < 2**31 - 1 else np.int64
    on_numpy = multiplicities_route(n, n_replicates)  # one route for every block of the call
    rows = compact_block_rows(n) if compact and not on_numpy else block_rows(n)
    # Parallel draws where the counts run on the parallel driver (enough work; the same rule,
    # so a short call compiles no prange kernel for them) and the indices are int32.
    counter = None if on_numpy else kernel("small_multiplicities", n, n)
    parallel_draws = False  # (never touches the kernels on the twins: numba stays unimported)
    if counter is not None and dtype is np.int32:
        from ranklens._compute.kernels import compare as _kc

        parallel_draws = counter is _kc.small_multiplicities_parallel
    scratch: list[np.ndarray] = []
    indices: list[np.ndarray] = []  # the int32 indices' buffer, kept from block to block
    for start in range(0, n_replicates, rows):
        stop = min(start + rows, n_replicates)
        if counter is None:  # the NumPy route
            if not indices:
                indices.append(np.empty((rows, n), dtype=dtype))
            for r in range(stop - start):
                indices[0][r] = rng.integers(0, n, size=n, dtype=dtype)
            yield multiplicities_numpy(indices[0][: stop - start], n)
            continue
        # (made in a function: this generator holds no reference to a block it has yielded,
        # so the caller's release of one block frees it before the next is drawn)
        draw = _Draw(rng, n, compact, counter, parallel_draws, dtype, scratch, indices)
        yield draw.block(stop - start)


@dataclasses.dataclass
class _Draw:
    """How :func:`bootstrap_blocks` draws a block on the kernels' route."""

    rng: np.random.Generator
    n: int
    compact: bool
    counter: Callable[..., Any]
    parallel_draws: bool
    dtype: Any
    scratch: list[np.ndarray]
    indices: list[np.ndarray]

    def block(self, rows: int) -> np.ndarray:
        """The next ``rows`` replicates, :func:`draw_rows` rows drawn at a time if compact."""
        n = self.n
        step = min(rows, draw_rows(n)) if self.compact else rows
        parts = _BlockParts(rows, n, self.compact)
        for r0 in range(0, rows, step):
            r1 = min(r0 + step, rows)
            drawn = (
                draw_segments(self.rng, n, r1 - r0, self.scratch) if self.parallel_draws else None
            )
            if drawn is not None:
                from ranklens._compute.kernels import pcg64 as _kp  # imports numba

                args = (drawn.buf, drawn.starts, drawn.counts, drawn.offsets, r1 - r0, n)
                if parts.small:
                    counts, fits = _kp.segment_counts_small(*args)
                    if fits:
                        parts.put(r0, counts)
                        continue
                parts.put(r0, _kp.segment_counts(*args))
                continue
            if not self.indices:
                self.indices.append(np.empty((step, n), dtype=self.dtype))
            indices = self.indices[0][: r1 - r0]
            for r in range(r1 - r0):
                indices[r] = self.rng.integers(0, n, size=n, dtype=self.dtype)
            if parts.small:
                counts, fits = self.counter(indices, n)
                if fits:
                    parts.put(r0, counts)
                    continue
            parts.put(r0, kernel("multiplicities", n, n)(indices, n))
        return parts.block()


class _BlockParts:
    """One block of replicate weights assembled from parts of its rows, in order: uint8 counts
    while every part fits (``small``), float64 from the first part that does not (the earlier
    parts widened: the same numbers)."""

    def __init__(self, rows: int, n: int, small: bool) -> None:
        self.rows, self.n, self.small = rows, n, small
        self.out: np.ndarray | None = None

    def put(self, r0: int, part: np.ndarray) -> None:
        """Rows ``r0 .. r0 + len(part) - 1`` of the block."""
        if self.out is None and r0 == 0 and part.shape[0] == self.rows:
            self.out = part  # the whole block in one part: no copy
            self.small = part.dtype == np.uint8
            return
        if self.out is None:
            self.out = np.empty((self.rows, self.n), np.uint8 if self.small else np.float64)
        if self.small and part.dtype != np.uint8:  # a count that does not fit: float64 now
            wide = np.empty((self.rows, self.n), np.float64)
            wide[:r0] = self.out[:r0]
            self.out, self.small = wide, False
        self.out[r0 : r0 + part.shape[0]] = part

    def block(self) -> np.ndarray:
        assert self.out is not None
        return self.out


def _compact_block(
    make: Callable[[int, int], np.ndarray], start: int, stop: int, step: int, n: int
) -> np.ndarray:
    """Replicates ``start .. stop - 1`` from ``make``, ``step`` rows at a time, held as uint8
    where every weight is an integer in [0, 255] (else float64)."""
    parts = _BlockParts(stop - start, n, True)
    for r0 in range(start, stop, step):
        part = make(r0, min(r0 + step, stop))
        small = part.astype(np.uint8)
        parts.put(r0 - start, small if np.array_equal(small, part) else part)
    return parts.block()


def compact_block_rows(n: int) -> int:
    """Replicates per block of compact (uint8) weights: :func:`block_rows`, but at least
    :data:`WIDE_BLOCK_ROWS`, the rank sweep's batch (a sweep of fewer replicates costs as much
    as a whole batch, so smaller blocks multiplied the cost per replicate by up to 32 from a
    million rows on). 32 bytes a data row in counts, as many in the lanes made from them."""
    return max(block_rows(n), WIDE_BLOCK_ROWS)


def draw_rows(n: int) -> int:
    """Replicates whose int32 indices are drawn at once in a compact block (at most
    :data:`DRAW_CELLS` indices: 128 MiB), so that a block's draw does not take four times
    the memory of its counts at large n."""
    return max(1, DRAW_CELLS // max(n, 1))


def poisson_weights(keys: np.ndarray, replicates: np.ndarray, seed: int) -> np.ndarray:
    """Counter-based Poisson(1) bootstrap weights: ``out[b, i]`` for key ``i``, replicate ``b``.

    Parameters
    ----------
    keys : ndarray of uint64, shape (n,)
        One key per row or unit: the row's position, or :func:`group_keys` of its unit label.
    replicates : ndarray of int, shape (B,)
        Replicate numbers (non-negative); replicate ``r`` is the same whichever others are drawn.
    seed : int
        Any integer (taken modulo ``2^64``).

    Returns
    -------
    ndarray of int32, shape (B, n)
        Each entry a pure function of ``(seed, replicates[b], keys[i])``: the weights of a row
        do not depend on the other rows, their order, or how the data are split into pieces.

    Notes
    -----
    ``u = mix(mix(mix(seed) ^ mix(r + 1)) ^ mix(key))`` with SplitMix64's finaliser ``mix``
    (Steele, Lea & Flood 2014); the top 53 bits of ``u`` are inverted through the Poisson(1)
    distribution function on a fixed table (:mod:`ranklens._compute.kernels.resampling`). Poisson(1)
    weights approximate the multinomial bootstrap's multiplicities (mean 1, variance 1) without
    fixing the total, which makes them computable piece by piece (Oza & Russell 2001; Chamandy
    et al. 2012).

    References
    ----------
    Oza, N. C. and Russell, S. (2001). Online bagging and boosting. *Proceedings of AISTATS*.
    Chamandy, N., Muralidharan, O., Najmi, A. and Naidu, S. (2012). Estimating uncertainty for
    massive data streams. Google technical report.
    Steele, G. L., Lea, D. and Flood, C. H. (2014). Fast splittable pseudorandom number
    generators. *Proceedings of OOPSLA 2014*, 453-472.
    """
    import numba

    keys = np.ascontiguousarray(keys)
    if keys.ndim != 1 or keys.dtype != np.uint64:
        raise ValueError(
            f"keys must be a 1-d array of uint64 (row positions or group_keys); "
            f"got dtype {keys.dtype}, shape {keys.shape}"
        )
    reps = np.asarray(replicates)
    if reps.ndim != 1 or not np.issubdtype(reps.dtype, np.integer) or np.any(reps < 0):
        raise ValueError("replicates must be a 1-d array of non-negative integers")
    reps = np.ascontiguousarray(reps, dtype=np.int64)
    state = np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)
    work = reps.shape[0] * keys.shape[0]
    from ranklens._compute.kernels import resampling as _kr

    driver = (
        _kr.poisson_weights_parallel
        if work >= POLICY.parallel_block_work and numba.get_num_threads() > 1
        else _kr.poisson_weights_serial
    )
    return np.asarray(driver(keys, reps, state, _kr.POISSON_THRESHOLDS))


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _label_key(label: Any) -> int:
    """The uint64 key of one label (integers: SplitMix64; everything else: BLAKE2b)."""
    import hashlib

    if isinstance(label, (bool, np.bool_)):
        label = int(label)
    if isinstance(label, (float, np.floating)) and math.isfinite(label) and label == int(label):
        label = int(label)
    if isinstance(label, (int, np.integer)) and _INT64_MIN <= int(label) <= _INT64_MAX:
        from ranklens._compute.kernels import resampling as _kr  # imports numba

        value = np.array([int(label)], dtype=np.int64)
        return int(_kr.hash_int64(value)[0])
    if isinstance(label, str):
        data = b"s" + label.encode("utf-8", "surrogatepass")
    elif isinstance(label, bytes):
        data = b"b" + label
    elif isinstance(label, (float, np.floating)):
        data = b"f" + repr(float(label)).encode()
    elif isinstance(label, (int, np.integer)):
        data = b"i" + str(int(label)).encode()
    else:
        data = b"o" + str(label).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def group_keys(groups: Any) -> np.ndarray:
    """A stable uint64 key per row from its unit label (customer, account, day).

    The key depends on the label alone, never on the row order, the other labels or how the
    data are split, so :func:`poisson_weights` of the keys gives every row of a unit the same
    weight in every piece. Integer labels (and integral floats, so that ``3`` and ``3.0`` are
    one unit, as after a pandas column gains a missing value) go through SplitMix64 (Steele, Lea
    & Flood 2014); strings, bytes and other labels through an 8-byte BLAKE2b digest of their
    UTF-8 text.

    Raises
    ------
    ValueError
        When ``groups`` is not one-dimensional or holds a missing label (None, NaN, NaT).
    """
    values = np.asarray(getattr(groups, "to_numpy", lambda: groups)())
    if values.ndim != 1:
        raise ValueError(f"groups must be one-dimensional; got shape {values.shape}")
    if values.dtype.kind in "iub":
        if values.dtype.kind == "u" and values.size and int(values.max()) > _INT64_MAX:
            return np.array([_label_key(v) for v in values.tolist()], dtype=np.uint64)
        from ranklens._compute.kernels import resampling as _kr  # imports numba

        return np.asarray(_kr.hash_int64(np.ascontiguousarray(values, dtype=np.int64)))
    if values.dtype.kind == "f":
        if np.isnan(values).any():
            raise ValueError("groups holds a missing label (NaN); every row needs a unit id")
        as_int = np.trunc(values)
        if np.all((as_int == values) & (np.abs(values) < 2.0**63)):
            from ranklens._compute.kernels import resampling as _kr  # imports numba

            return np.asarray(_kr.hash_int64(as_int.astype(np.int64)))
    na = _NA()
    out = np.empty(values.shape[0], dtype=np.uint64)
    cache: dict[Any, int] = {}
    for i, label in enumerate(values.tolist()):
        if label is None or (isinstance(label, float) and math.isnan(label)) or label is na:
            raise ValueError(
                f"groups holds a missing label ({label!r}) at position {i}; every row needs "
                "a unit id"
            )
        key = cache.get(label)
        if key is None:
            key = cache[label] = _label_key(label)
        out[i] = key
    return out


def _NA() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        return object()
    return pd.NA


#: The resampling schemes of :func:`ranklens.compare_models` and :func:`ranklens.curve_bands`.
SCHEMES = ("auto", "multinomial", "poisson", "stratified", "stationary", "circular")
#: The schemes that resample blocks of consecutive rows (rows in time order, serially
#: dependent): Politis & Romano's (1994) stationary bootstrap and the circular block bootstrap.
BLOCK_SCHEMES = ("stationary", "circular")
#: ``scheme="auto"`` draws Poisson(1) weights from this many rows (or units) on, multinomial
#: multiplicities below (the default scheme stays "multinomial"). Multinomial draws come from
#: one sequential generator stream, on one core whatever the machine; Poisson weights are a hash
#: of (row, replicate), computed in parallel and piece by piece (the same in a distributed
#: run). On 2 cores the two cost about the same (0.65 ms a replicate at n = 1e5; 6.4 against
#: 7.3 ms at 1e6, benchmarks/bench_inference.py); only more cores make Poisson cheaper.
POISSON_ABOVE = 1_000_000

#: The clustered bootstrap (``groups``) needs at least this many units. With ``G`` units a
#: multinomial resample is one of only ``C(2G - 1, G)`` multisets of units (10 with 3 units,
#: 126 with 5, 92,378 with 10), so the replicates repeat and the percentile and BCa intervals
#: are set by a handful of values; and with few clusters the clustered (pairs) bootstrap's
#: intervals are too narrow and its tests reject too often (Cameron, Gelbach & Miller 2008,
#: "Bootstrap-based improvements for inference with clustered errors", *Review of Economics
#: and Statistics* 90(3), 414-427: 5 to 30 clusters, worst at the fewest). Below 10 units the
#: intervals would claim a precision they do not have, so the bootstrap refuses them.
MIN_UNITS = 10


def distinct_resamples(n_units: int) -> int:
    """The number of distinct multinomial resamples of ``n_units`` units, ``C(2G - 1, G)``."""
    return math.comb(2 * n_units - 1, n_units) if n_units > 0 else 0


def unit_labels(groups: Any) -> Any:
    """``groups`` as one column of unit ids: a one-column pandas or polars DataFrame becomes its
    column (a Series, keeping its name); anything else is returned as given.

    Raises
    ------
    ValueError
        For a DataFrame of more than one column (or none), naming its columns.
    """
    module = type(groups).__module__.split(".", 1)[0]
    if module not in ("pandas", "polars") or not hasattr(groups, "columns"):
        return groups
    names = [str(c) for c in groups.columns]
    if len(names) != 1:
        shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        raise ValueError(
            f"groups must be one column of unit ids; got a DataFrame with {len(names)} "
            f"columns ({shown}): pass the one column that names the units"
        )
    return groups.iloc[:, 0] if module == "pandas" else groups.to_series(0)


class Resampler:
    """The replicate weights of one resampling scheme, in blocks of rows (one row a replicate).

    * ``"multinomial"`` (the classical bootstrap, Efron & Tibshirani 1993): each replicate
      draws ``n`` rows with replacement; with ``groups``, it draws ``G`` units out of the ``G``
      units with replacement and every row of a unit gets the unit's multiplicity (the cluster
      bootstrap of Davison & Hinkley 1997, Sect. 3.8, resampling the first stage).
    * ``"poisson"``: independent Poisson(1) weights per row, or per unit with ``groups``
      (:func:`poisson_weights` of the row positions or :func:`group_keys`); the total weight
      varies around ``n``.
    * ``"stratified"``: a multinomial draw within each class of a binary ``y_true``, so every
      replicate has exactly the sample's number of events (Davison & Hinkley 1997, Sect. 3.7).
    * ``"stationary"`` (Politis & Romano 1994): blocks of consecutive rows (wrapping past the
      last row) with uniform starts and geometric lengths of mean ``block_length``, until ``n``
      rows are drawn; ``"circular"`` (Politis & Romano 1992): blocks of exactly
      ``block_length`` rows. Each row's weight is the number of times it was drawn; the
      dependence within a block is kept. BCa's jackknife deletes contiguous stretches of rows
      (a delete-block jackknife, Kunsch 1989), never single rows.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES` (``"auto"`` resolved by :meth:`resolve`).
    n : int
    groups : ndarray of uint64 or None
        :func:`group_keys` of the unit labels, one per row.
    y : ndarray
        The target (read by ``"stratified"`` only).
    block_length : float, optional
        The mean (stationary) or fixed (circular, rounded) block length of a block scheme.
    """

    def __init__(
        self,
        scheme: str,
        n: int,
        groups: np.ndarray | None,
        y: np.ndarray,
        block_length: float | None = None,
    ) -> None:
        self.scheme = scheme
        self.n = n
        self.block_length = block_length
        self.keys = groups
        self.unit_of_row: np.ndarray | None = None
        self.n_units = n
        if groups is not None:
            unit_keys, inverse = np.unique(groups, return_inverse=True)
            self.unit_keys = unit_keys
            self.unit_of_row = inverse.reshape(-1).astype(np.intp)
            self.n_units = int(unit_keys.shape[0])
        self.strata: list[np.ndarray] = []
        if scheme == "stratified":
            self.strata = [np.flatnonzero(y == v) for v in np.unique(y)]

    @classmethod
    def resolve(
        cls, scheme: Any, groups: Any, y: np.ndarray, block_length: float | None = None
    ) -> Resampler:
        """Validate ``scheme`` and ``groups`` against ``y`` and build the resampler (a block
        scheme with its ``block_length``, a number >= 1, resolved by the caller)."""
        n = y.shape[0]
        if scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}; got {scheme!r}")
        if scheme in BLOCK_SCHEMES:
            if groups is not None:
                raise ValueError(
                    f"scheme={scheme!r} resamples blocks of consecutive rows; it cannot be "
                    "combined with groups (which resamples whole units)"
                )
            if block_length is None or not 1.0 <= float(block_length) <= n:
                raise ValueError(
                    f"block_length must be a number in [1, {n}] for scheme={scheme!r}; "
                    f"got {block_length!r}"
                )
            return cls(scheme, n, None, y, float(block_length))
        keys = None
        if groups is not None:
            groups = unit_labels(groups)
            if hasattr(groups, "__len__") and len(groups) != n:
                raise ValueError(
                    f"groups must hold one unit id per row of y_true ({n}); got {len(groups)}"
                )
            keys = group_keys(groups)
            if keys.shape[0] != n:
                raise ValueError(
                    f"groups must hold one unit id per row of y_true ({n}); got {keys.shape[0]}"
                )
            n_units = int(np.unique(keys).shape[0])
            if n_units < 2:
                raise ValueError("groups must name at least 2 distinct units to resample them")
            if n_units < MIN_UNITS:
                raise ValueError(
                    f"groups names {n_units} distinct units; the clustered bootstrap needs at "
                    f"least {MIN_UNITS} (with {n_units} units there are only "
                    f"{distinct_resamples(n_units):,} distinct resamples, and its intervals come "
                    "out too narrow). groups resamples whole units; it does not split the "
                    "evaluation by unit"
                )
        if scheme == "stratified":
            if keys is not None:
                raise ValueError(
                    "scheme='stratified' resamples rows within the classes of y_true; it cannot "
                    "be combined with groups (use scheme='multinomial' or 'poisson' with groups)"
                )
            classes = np.unique(y)
            if classes.shape[0] != 2:
                raise ValueError(
                    "scheme='stratified' needs a binary y_true (two distinct values, the events "
                    f"and the rest); got {classes.shape[0]} distinct values"
                )
        resampler = cls(scheme, n, keys, y)
        if scheme == "auto":
            resampler.scheme = "poisson" if resampler.n_units >= POISSON_ABOVE else "multinomial"
        return resampler

    def blocks(
        self, rng: np.random.Generator, n_replicates: int, *, compact: bool = False
    ) -> Iterator[np.ndarray]:
        """Blocks of float64 replicate weights ``(rows, n)``; the numbers depend on ``rng`` only.

        The unclustered multinomial scheme is :func:`bootstrap_blocks` (the same numbers as
        before the other schemes existed; with ``compact``, uint8 counts where they fit).
        Poisson replicates ``b`` take the seed from the first draw of ``rng`` and are
        :func:`poisson_weights` of replicate numbers ``0, 1, ...``. With ``compact`` the other
        schemes' blocks too have :func:`compact_block_rows` rows, made :data:`BLOCK_CELLS`
        float64 cells at a time and held as uint8 where every weight is an integer in
        [0, 255] (else float64): the same numbers.
        """
        if self.scheme == "multinomial" and self.unit_of_row is None:
            yield from bootstrap_blocks(rng, self.n, n_replicates, compact=compact)
            return
        rows = compact_block_rows(self.n) if compact else block_rows(self.n)
        step = min(rows, block_rows(self.n))
        if self.scheme == "poisson":
            make = self._poisson_rows(rng)
        elif self.scheme in BLOCK_SCHEMES:
            make = self._block_rows(rng)
        else:
            make = self._drawn_rows(rng)
        for start in range(0, n_replicates, rows):
            stop = min(start + rows, n_replicates)
            yield _compact_block(make, start, stop, step, self.n) if compact else make(start, stop)

    def _poisson_rows(self, rng: np.random.Generator) -> Callable[[int, int], np.ndarray]:
        """Replicates ``start .. stop - 1`` of the Poisson scheme (float64 row weights)."""
        seed = int(rng.integers(0, 2**63, dtype=np.int64))
        keys = self.keys if self.unit_of_row is None else self.unit_keys
        if keys is None:
            keys = np.arange(self.n, dtype=np.uint64)

        def make(start: int, stop: int) -> np.ndarray:
            return self._expand(poisson_weights(keys, np.arange(start, stop), seed))

        return make

    def _drawn_rows(self, rng: np.random.Generator) -> Callable[[int, int], np.ndarray]:
        """The next replicates of the stratified or the clustered multinomial scheme, drawn
        from ``rng`` in replicate order (float64 row weights)."""

        def make(start: int, stop: int) -> np.ndarray:
            if self.scheme == "stratified":
                block = np.zeros((stop - start, self.n), dtype=np.float64)
                for r in range(stop - start):
                    for stratum in self.strata:
                        drawn = stratum[rng.integers(0, stratum.shape[0], size=stratum.shape[0])]
                        block[r] += np.bincount(drawn, minlength=self.n)
                return block
            # clustered multinomial: units drawn with replacement
            g = self.n_units
            counts = np.empty((stop - start, g), dtype=np.float64)
            for r in range(stop - start):
                counts[r] = np.bincount(rng.integers(0, g, size=g), minlength=g)
            return self._expand(counts)

        return make

    def _block_rows(self, rng: np.random.Generator) -> Callable[[int, int], np.ndarray]:
        """The next replicates of a block scheme, drawn from ``rng`` in replicate order: each
        row's weight the number of times a block covered it (float64)."""
        n, length = self.n, float(self.block_length or 1.0)

        def make(start: int, stop: int) -> np.ndarray:
            block = np.empty((stop - start, n), dtype=np.float64)
            for r in range(stop - start):
                block[r] = np.bincount(block_indices(rng, n, length, self.scheme), minlength=n)
            return block

        return make

    def _expand(self, unit_weights: np.ndarray) -> np.ndarray:
        """Row weights from unit weights (every row of a unit gets the unit's weight)."""
        if self.unit_of_row is None:
            return np.asarray(unit_weights, dtype=np.float64)
        return np.ascontiguousarray(unit_weights[:, self.unit_of_row], dtype=np.float64)

    def jackknife_groups(self, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """Rows to delete-one-group jackknife groups; with units, whole units go together; with
        a block scheme, contiguous stretches of rows (each at least a block long)."""
        if self.scheme in BLOCK_SCHEMES:
            length = max(1, math.ceil(self.block_length or 1.0))
            n_groups = max(2, min(JACKKNIFE_GROUPS, self.n // length))
            return (np.arange(self.n, dtype=np.int64) * n_groups) // self.n, n_groups
        if self.unit_of_row is None:
            return jackknife_groups(rng, self.n)
        unit_group, n_groups = jackknife_groups(rng, self.n_units)
        return unit_group[self.unit_of_row], n_groups


def resolve_block_length(
    block_length: Any, scheme: str, y: np.ndarray, preds: np.ndarray
) -> float | None:
    """The block length of a block scheme (None for the other schemes).

    ``"auto"``: Politis & White's (2004) automatic length, corrected by Patton, Politis & White
    (2009) (:func:`ranklens._foundation.serial.optimal_block_lengths`), of the scheme's kind,
    the largest over every model's absolute errors ``|y - p|`` and every pair's differences of
    absolute errors (the series whose means a comparison's mean losses are; a longer block keeps
    more of the dependence). A number is checked to lie in [1, n].

    Raises
    ------
    ValueError
        Naming ``block_length``: a number given with a scheme that draws no blocks, a number
        outside [1, n], or ``"auto"`` on fewer than 9 rows.
    """
    n = y.shape[0]
    if scheme not in BLOCK_SCHEMES:
        if not (isinstance(block_length, str) and block_length == "auto"):
            raise ValueError(
                f"block_length is the block schemes' ({BLOCK_SCHEMES}); scheme={scheme!r} "
                f"draws no blocks, got block_length={block_length!r}"
            )
        return None
    if isinstance(block_length, str):
        if block_length != "auto":
            raise ValueError(f"block_length must be 'auto' or a number; got {block_length!r}")
        if n < 9:
            raise ValueError(f"block_length='auto' needs at least 9 rows; got {n}")
        errors = [np.abs(y - p) for p in preds]
        series = errors + [a - b for i, a in enumerate(errors) for b in errors[i + 1 :]]
        lengths = [optimal_block_lengths(x) for x in series]
        kind = "stationary" if scheme == "stationary" else "circular"
        return max(float(getattr(length, kind)) for length in lengths)
    if isinstance(block_length, bool) or not isinstance(block_length, numbers.Real):
        raise ValueError(f"block_length must be 'auto' or a number; got {block_length!r}")
    if not 1.0 <= float(block_length) <= n:
        raise ValueError(f"block_length must lie in [1, {n}]; got {block_length!r}")
    return float(block_length)


def block_indices(rng: np.random.Generator, n: int, length: float, scheme: str) -> np.ndarray:
    """The ``n`` row indices of one block-bootstrap resample of a series of ``n`` rows.

    ``"circular"``: ``ceil(n / b)`` blocks of ``b = round(length)`` consecutive rows from
    uniform starts, wrapping past the last row, cut to ``n``. ``"stationary"``: a new block
    starts at each row with probability ``1 / length`` (the first always), from a uniform
    start; otherwise the next row follows the previous one, wrapping (Politis & Romano 1994).
    """
    if scheme == "circular":
        b = max(1, round(length))
        starts = rng.integers(0, n, size=-(-n // b))
        return ((starts[:, None] + np.arange(b)) % n).reshape(-1)[:n]
    new_block = rng.random(n) < 1.0 / length
    new_block[0] = True
    starts = rng.integers(0, n, size=n)
    first = np.flatnonzero(new_block)
    block = np.cumsum(new_block) - 1
    offset = np.arange(n) - first[block]
    return (starts[first][block] + offset) % n


def jackknife_groups(rng: np.random.Generator, n: int) -> tuple[np.ndarray, int]:
    """A random partition of the rows into ``min(n, 100)`` near-equal groups."""
    n_groups = min(n, JACKKNIFE_GROUPS)
    groups = np.empty(n, dtype=np.int64)
    groups[rng.permutation(n)] = np.arange(n) % n_groups
    return groups, n_groups


def jackknife_rows(n_units: int, interval: str) -> int:
    """Evaluations BCa's grouped jackknife adds: ``min(n, 100)`` below
    :data:`BCA_JACKKNIFE_BELOW` rows (or units), else 0 (and none for percentile intervals)."""
    if interval != "bca" or n_units >= BCA_JACKKNIFE_BELOW:
        return 0
    return min(n_units, JACKKNIFE_GROUPS)


def group_counts(block: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """``(rows, n_groups)``: each replicate's total weight in each jackknife group.

    The kernel (rows in parallel) and its NumPy twin (``np.bincount`` per row) add the same
    numbers in the same order: the same sums, bit for bit.
    """
    n = block.shape[1]
    if NUMPY_TWINS.get() or (not KERNELS_ONLY.get() and n < POLICY.twins_numpy_below):
        out = np.empty((block.shape[0], n_groups))
        for r in range(block.shape[0]):
            out[r] = np.bincount(groups, weights=block[r], minlength=n_groups)
        return out
    import numba

    # Only large data sets come here (BCa's regression runs from BCA_JACKKNIFE_BELOW rows on),
    # where a block is seconds of work: the parallel driver always pays.
    from ranklens._compute.kernels import resampling as _kr  # imports numba

    sums = (
        _kr.group_weight_sums_parallel
        if block.size >= POLICY.parallel_block_work and numba.get_num_threads() > 1
        else _kr.group_weight_sums_serial
    )
    dtype = np.uint8 if block.dtype == np.uint8 else np.float64  # compact counts stay compact
    return np.asarray(sums(np.ascontiguousarray(block, dtype=dtype), groups, n_groups))


def regression_influence(reps: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Grouped influence values from the replicates, in the jackknife's sign convention.

    The least-squares regression of the replicates ``t*_b`` on their weight per group
    ``C_bg`` (both centred) estimates the empirical influence ``l_g`` of each group (Efron 1992;
    Efron & Narasimhan 2020, ``bcajack2``); centred, they take the place of the grouped
    jackknife's ``mean(t_(.)) - t_(g)`` in the acceleration ``a = sum d^3 / (6 (sum d^2)^1.5)``,
    which is unchanged by their scale. Returns ``-l`` (what :func:`bca_interval` reads as
    delete-one-group estimates), or None with fewer than twice as many finite replicates as
    groups (too few for the regression).
    """
    finite = np.isfinite(reps)
    if finite.sum() < 2 * counts.shape[1]:
        return None
    x = counts[finite] - counts[finite].mean(axis=0)
    t = reps[finite] - reps[finite].mean()
    beta = np.linalg.lstsq(x, t, rcond=None)[0]
    return -(beta - beta.mean())


def jackknife_blocks(groups: np.ndarray, n_groups: int) -> Iterator[np.ndarray]:
    """Blocks of delete-one-group multiplicities (one row per group: ones, zeros in the group)."""
    n = groups.shape[0]
    rows = block_rows(n)
    for start in range(0, n_groups, rows):
        stop = min(start + rows, n_groups)
        block = np.ones((stop - start, n), dtype=np.float64)
        for g in range(start, stop):
            block[g - start, groups == g] = 0.0
        yield block


def swap_blocks(rng: np.random.Generator, n: int, n_replicates: int) -> Iterator[np.ndarray]:
    """Blocks of swap indicators: each row one fair coin per observation (one ``rng`` call)."""
    rows = block_rows(n)
    for start in range(0, n_replicates, rows):
        stop = min(start + rows, n_replicates)
        block = np.empty((stop - start, n), dtype=np.bool_)
        for r in range(stop - start):
            block[r] = rng.random(n) < 0.5
        yield block


class quiet:
    """Silence ranklens and NumPy warnings inside replicates (undefined ones are counted)."""

    def __enter__(self) -> None:
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("ignore", RanklensWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._errstate.__exit__(exc_type, exc, tb)
        self._warnings.__exit__(exc_type, exc, tb)


class Progress:
    """Progress of a resampling run, shown only when it is projected to exceed about a second.

    Plain lines on stderr a few seconds apart (stage, percentage, time left:
    :class:`ranklens._foundation.progress.LineProgress`), readable in a terminal, a notebook and a
    CI log alike. ``enabled``: True always shows it, False never, None when the run is projected to
    be long. Terminal bars belong to the presentation layer (the command line draws its own).
    """

    def __init__(self, total: int, description: str, enabled: bool | None) -> None:
        self.total = total
        self.description = description
        self.enabled = enabled
        self.done = 0.0
        self.start = time.perf_counter()
        self._lines: Any = None

    def __enter__(self) -> Progress:
        if self.enabled:
            self._open()
        return self

    def _open(self) -> None:
        self._lines = LineProgress()

    def advance(self, k: float) -> None:
        """``k`` more replicate rows done (a share of a block's rows, after one evaluator)."""
        self.done += k
        if self._lines is None and self.enabled is None and self.done < self.total:
            elapsed = time.perf_counter() - self.start
            if elapsed / self.done * self.total > PROGRESS_AFTER_S:
                self._open()
        if self._lines is not None:
            self._lines.update(self.description, self.done, self.total)

    def __exit__(self, *exc: object) -> None:
        return None


def percentile_interval(reps: np.ndarray, level: float) -> tuple[float, float]:
    alpha = 1.0 - level
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def bca_interval(
    reps: np.ndarray, estimate: float, jackknife: np.ndarray, level: float
) -> tuple[float, float]:
    """Efron's BCa interval (Efron & Tibshirani 1993, ch. 14), acceleration from the jackknife.

    ``z0 = Phi^-1((#{t* < t} + #{t* = t} / 2) / B)``; ``a = sum d^3 / (6 (sum d^2)^1.5)`` with
    ``d = mean(t_(g)) - t_(g)`` over the delete-one-group estimates; the interval is the bootstrap
    quantiles at ``Phi(z0 + (z0 + z_q) / (1 - a (z0 + z_q)))`` for ``z_q = Phi^-1(alpha/2)`` and
    ``Phi^-1(1 - alpha/2)``. Returns NaNs when every replicate lies on one side of the estimate
    (then ``z0`` is infinite).

    Notes
    -----
    ``Phi`` and ``Phi^-1`` are :func:`ranklens._foundation.normal.ndtr` and
    :func:`ranklens._foundation.normal.ndtri`: the Cephes algorithms (Moshier 1989) that
    ``scipy.special.ndtr`` and ``ndtri`` run, evaluated operation for operation in double precision,
    so the interval is the same to the bit as with scipy's functions, without importing
    ``scipy.special`` (a quarter of a second of a fresh process).

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
    Statistical Association* 82(397), 171-185.
    Moshier, S. L. (1989). *Methods and Programs for Mathematical Functions*. Ellis Horwood.
    """
    below = np.count_nonzero(reps < estimate) + 0.5 * np.count_nonzero(reps == estimate)
    z0 = ndtri(below / reps.shape[0])
    if not math.isfinite(z0):
        return math.nan, math.nan
    jack = jackknife[np.isfinite(jackknife)]
    d = jack.mean() - jack if jack.size else np.zeros(1)
    ss = float(np.sum(d * d))
    accel = float(np.sum(d**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0
    alpha = 1.0 - level
    probs = []
    for q in (alpha / 2, 1 - alpha / 2):
        # float64 scalars: a zero denominator gives an infinite z (probability 0 or 1) with
        # NumPy's warning, as the array form did, not a ZeroDivisionError
        shifted = np.float64(z0) + ndtri(q)
        probs.append(ndtr(z0 + shifted / (1.0 - accel * shifted)))
    if not all(math.isfinite(p) for p in probs):
        return math.nan, math.nan
    lo, hi = np.quantile(reps, probs)
    return float(lo), float(hi)


def interval_from_replicates(
    reps: np.ndarray,
    estimate: float,
    jackknife: np.ndarray | None,
    level: float,
    interval: str,
) -> tuple[float, float]:
    reps = reps[np.isfinite(reps)]
    if reps.size < 2 or not np.isfinite(estimate):
        return math.nan, math.nan
    if interval == "bca":
        assert jackknife is not None
        return bca_interval(reps, estimate, jackknife, level)
    return percentile_interval(reps, level)


def replicate_sd(reps: np.ndarray) -> float:
    reps = reps[np.isfinite(reps)]
    return float(np.std(reps, ddof=1)) if reps.size >= 2 else math.nan


def check_predictions(
    y_true: Any, predictions: Any, *, min_models: int = 1
) -> tuple[np.ndarray, tuple[str, ...], np.ndarray]:
    """``y_true`` as float64, model names and a ``(n_models, n)`` prediction matrix."""
    columns = getattr(predictions, "columns", None)
    if columns is not None and not isinstance(predictions, Mapping):
        # pandas or polars DataFrame: one model per column.
        items = [(str(c), predictions[c]) for c in columns]
    elif isinstance(predictions, Mapping):
        items = [(str(k), v) for k, v in predictions.items()]
    else:
        raise ValueError(
            "predictions must be a mapping from model name to predictions, e.g. "
            f"{{'m1': p1, 'm2': p2}}, or a DataFrame with one column per model; "
            f"got {type(predictions).__name__}"
        )
    if len(items) < min_models:
        raise ValueError(f"predictions must hold at least {min_models} model(s); got {len(items)}")
    names = tuple(name for name, _ in items)
    if len(set(names)) != len(names):
        raise ValueError(f"predictions has duplicate model names: {names}")
    check_aligned(
        stacklevel=4, y_true=y_true, **{f"predictions[{name!r}]": pred for name, pred in items}
    )
    y = as_1d_float(y_true, "y_true", min_n=2)
    preds = np.empty((len(items), y.shape[0]), dtype=np.float64)
    for m, (name, pred) in enumerate(items):
        _, preds[m] = check_pair(y, pred, names=("y_true", f"predictions[{name!r}]"))
    return y, names, preds
