"""Keep a Dask computation from waiting forever on workers paused on memory.

A Dask worker runs no task while its process memory is above ``distributed.worker.memory.pause``
of its limit (80 % by default), and resumes once spilling its data to disk brings it below.
Memory Dask does not manage (freed heap pages the C library keeps, Arrow's pool, a shuffle's
buffers, the libraries' own) cannot be spilled. Once a worker stays paused on it, the tasks
only it can run (a peer-to-peer shuffle's pieces live on one worker) wait, the other workers
run out of work, and ``dask.compute`` waits forever. :class:`PausedWorkersGuard` watches the
scheduler from a thread and

* asks a worker paused for ``trim_after_s`` to hand its free memory back to the operating
  system (:func:`trim_worker_memory`, the remedy of Dask's documentation, "Memory not released
  back to the OS"), again every ``trim_after_s`` while it stays paused;
* once a worker has stayed paused for ``limit_s`` while no task finished or ran anywhere (or,
  with a ``distributed`` that reports no task counts, every worker stayed paused), interrupts
  the main thread (as Ctrl-C would), so that the caller can stop with a message that says why.
"""

from __future__ import annotations

import _thread
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any

from ranklens.dask._passes import release_unused_memory

__all__ = ["STALL_SECONDS", "TRIM_AFTER_SECONDS", "PausedWorkersGuard", "trim_worker_memory"]

#: How long a worker must stay paused, with nothing progressing, before the command line gives
#: up: long enough for spilling and trimming to bring a worker back (seconds, in the runs
#: measured), far below an hour of waiting.
STALL_SECONDS = 600.0

#: How long a worker stays paused before it is asked to hand its free memory back (and again
#: after as long, while it stays paused).
TRIM_AFTER_SECONDS = 30.0


def trim_worker_memory() -> None:
    """Run in a worker: hand the memory it no longer uses back to the operating system.

    Python's unreachable cycles are collected, Arrow's pool releases its unused pages and the C
    library (glibc) returns its free heap pages (``malloc_trim(0)``; nothing where there is no
    glibc). Measured on a paused 1 GiB worker of a 1e8-row run: 840 MiB resident before, 773
    after, below the pause threshold, and the stalled computation went on.
    """
    import ctypes
    import gc

    gc.collect()
    release_unused_memory()
    with contextlib.suppress(OSError, AttributeError):  # not glibc (macOS, musl): no trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class PausedWorkersGuard:
    """Trim the memory of paused workers of ``client``; interrupt the main thread on a stall.

    Parameters
    ----------
    client : distributed.Client
        The client whose scheduler is asked for the workers' status every ``poll_s`` seconds.
    limit_s : float
        How long a worker must stay paused, with no task finishing or running on any worker,
        before the interrupt. Zero or less: never (and no trimming).
    poll_s : float, default 5.0
        How often the scheduler is asked.
    trim_after_s : float, default TRIM_AFTER_SECONDS
        How long a worker stays paused before :func:`trim_worker_memory` runs in it (again
        after as long while it stays paused). Zero or less: never.
    interrupt : callable, optional
        What to call on a stall (default :func:`_thread.interrupt_main`: a
        ``KeyboardInterrupt`` in the main thread).

    Attributes
    ----------
    stalled : str or None
        Why the main thread was interrupted, None while it was not.
    trims : int
        How many times a paused worker was asked to trim its memory.

    Notes
    -----
    Use :meth:`start` before the computation and :meth:`stop` after it (in a ``finally``), and
    read :attr:`stalled` where a ``KeyboardInterrupt`` is caught: set, the interrupt is the
    guard's; None, it is the user's. :meth:`stop` and the interrupt hold one lock, so after
    :meth:`stop` returns no interrupt comes. Progress is read from the workers' task counts by
    state (the scheduler's ``metrics["task_counts"]``): a change, or a task executing, restarts
    the clock. A ``distributed`` without them gets the narrower rule: every worker paused.
    """

    def __init__(
        self,
        client: Any,
        limit_s: float = STALL_SECONDS,
        *,
        poll_s: float = 5.0,
        trim_after_s: float = TRIM_AFTER_SECONDS,
        interrupt: Callable[[], None] = _thread.interrupt_main,
    ) -> None:
        self.client = client
        self.limit_s = float(limit_s)
        self.poll_s = float(poll_s)
        self.trim_after_s = float(trim_after_s)
        self.stalled: str | None = None
        self.trims = 0
        self._interrupt = interrupt
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> PausedWorkersGuard:
        """Start watching (a daemon thread); nothing when ``limit_s`` is zero or less."""
        if self.limit_s > 0 and self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="ranklens-stall", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching; no interrupt comes after this returns."""
        with self._lock:
            self._stopped.set()
        if self._thread is not None:
            self._thread.join()

    def _workers(self) -> dict[str, Any]:
        try:
            info = self.client.scheduler_info(n_workers=-1)  # every worker, not the first five
        except TypeError:  # a distributed from before the argument: it lists every worker
            info = self.client.scheduler_info()
        return dict(info.get("workers", {}))

    def _trim(self, addresses: list[str]) -> None:
        try:  # on the workers' event loops: a paused worker answers (it runs no task)
            self.client.run(trim_worker_memory, workers=addresses)
            self.trims += len(addresses)
        except Exception:  # a worker gone or busy: the next poll tries again; never fatal
            pass

    def _watch(self) -> None:
        since: float | None = None  # when the current stall began
        state: Any = None  # the task counts of the last poll
        trim_due: dict[str, float] = {}  # when each paused worker is next asked to trim
        while not self._stopped.wait(self.poll_s):
            try:
                workers = self._workers()
            except Exception:
                # the scheduler is gone or busy: the computation itself fails and says why,
                # or the next poll gets an answer; the guard never stops it on a missing answer
                since = None
                continue
            now = time.monotonic()
            paused = [a for a, w in workers.items() if str(w.get("status", "")) == "paused"]
            # a worker that resumed is forgotten: paused again, it waits trim_after_s anew
            trim_due = {a: trim_due.get(a, now + self.trim_after_s) for a in paused}
            due = [a for a in paused if now >= trim_due[a]] if self.trim_after_s > 0 else []
            if due:
                self._trim(due)
                trim_due.update(dict.fromkeys(due, now + self.trim_after_s))
            reported = [(w.get("metrics") or {}).get("task_counts") for w in workers.values()]
            counts: list[dict[str, int]] = [c for c in reported if isinstance(c, dict)]
            if paused and len(counts) == len(reported):
                # progress: a task executing, or any worker's task counts changed
                busy = any(c.get("executing", 0) for c in counts)
                pairs = zip(workers, counts, strict=True)
                new_state = sorted((a, sorted(c.items())) for a, c in pairs)
                stuck = not busy and (since is None or new_state == state)
                state = new_state
            else:
                stuck = bool(paused) and len(paused) == len(workers)
            if not stuck:
                since = None
                continue
            since = now if since is None else since
            if now - since >= self.limit_s:
                with self._lock:
                    if self._stopped.is_set():
                        return
                    self.stalled = (
                        f"{len(paused)} of {len(workers)} Dask worker(s) stayed paused on "
                        f"memory for {self.limit_s:.0f} s with nothing progressing, over "
                        "distributed.worker.memory.pause of their limit with memory Dask "
                        "cannot spill (trimmed "
                        f"{self.trims} time(s)); give the workers more memory, or smaller "
                        "Parquet row groups"
                    )
                    self._interrupt()
                return
