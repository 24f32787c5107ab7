"""Timing and memory helpers shared by the benchmark scripts."""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable


def best_time(
    func: Callable[[], object],
    repeats: int = 3,
    *,
    warm_up: bool = True,
    collect_garbage: bool = False,
) -> float:
    """The shortest wall time (seconds) of ``repeats`` calls of ``func``, after one untimed call
    (numba compiles, caches fill) unless ``warm_up`` is False; ``collect_garbage`` runs the
    garbage collector before each timed call."""
    if warm_up:
        func()
    times = []
    for _ in range(repeats):
        if collect_garbage:
            gc.collect()
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_mib(func: Callable[[], object], *, collect_garbage: bool = False) -> float:
    """The peak of the memory traced by :mod:`tracemalloc` during one call of ``func`` (MiB;
    NumPy reports its allocations to it, numba's are not seen); ``collect_garbage`` runs the
    garbage collector first."""
    if collect_garbage:
        gc.collect()
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20
