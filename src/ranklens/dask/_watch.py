"""Stop a Dask computation that can no longer progress: every worker paused on memory.

A Dask worker runs no task while its process memory is above ``distributed.worker.memory.pause``
of its limit (80 % by default), and resumes once spilling its data to disk brings it below.
Memory Dask does not manage (allocator caches, a shuffle's buffers, the libraries' own) cannot
be spilled: when every worker is paused on it, nothing finishes and ``dask.compute`` waits
forever. :class:`PausedWorkersGuard` watches the scheduler from a thread and, once every worker
has been paused for ``limit_s`` seconds without a break, interrupts the main thread (as Ctrl-C
would), so that the caller can stop with a message that says why instead of hanging.
"""

from __future__ import annotations

import _thread
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["STALL_SECONDS", "PausedWorkersGuard"]

#: How long every worker must stay paused before the command line gives up: long enough for
#: spilling to bring a worker back (seconds, in the runs measured), far below an hour of waiting.
STALL_SECONDS = 600.0


class PausedWorkersGuard:
    """Interrupt the main thread once every worker of ``client`` has stayed paused ``limit_s``.

    Parameters
    ----------
    client : distributed.Client
        The client whose scheduler is asked for the workers' status every ``poll_s`` seconds.
    limit_s : float
        How long every worker must stay paused, without one resuming, before the interrupt.
        Zero or less: never.
    poll_s : float, default 5.0
        How often the scheduler is asked.
    interrupt : callable, optional
        What to call on a stall (default :func:`_thread.interrupt_main`: a
        ``KeyboardInterrupt`` in the main thread).

    Attributes
    ----------
    stalled : str or None
        Why the main thread was interrupted, None while it was not.

    Notes
    -----
    Use :meth:`start` before the computation and :meth:`stop` after it (in a ``finally``), and
    read :attr:`stalled` where a ``KeyboardInterrupt`` is caught: set, the interrupt is the
    guard's; None, it is the user's. :meth:`stop` and the interrupt hold one lock, so after
    :meth:`stop` returns no interrupt comes.
    """

    def __init__(
        self,
        client: Any,
        limit_s: float = STALL_SECONDS,
        *,
        poll_s: float = 5.0,
        interrupt: Callable[[], None] = _thread.interrupt_main,
    ) -> None:
        self.client = client
        self.limit_s = float(limit_s)
        self.poll_s = float(poll_s)
        self.stalled: str | None = None
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

    def _all_paused(self) -> tuple[bool, int]:
        try:
            info = self.client.scheduler_info(n_workers=-1)  # every worker, not the first five
        except TypeError:  # a distributed from before the argument: it lists every worker
            info = self.client.scheduler_info()
        workers = info.get("workers", {})
        statuses = [str(w.get("status", "")) for w in workers.values()]
        return bool(statuses) and all(s == "paused" for s in statuses), len(statuses)

    def _watch(self) -> None:
        since: float | None = None
        while not self._stopped.wait(self.poll_s):
            try:
                paused, n_workers = self._all_paused()
            except Exception:
                # the scheduler is gone or busy: the computation itself fails and says why,
                # or the next poll gets an answer; the guard never stops it on a missing answer
                since = None
                continue
            now = time.monotonic()
            if not paused:
                since = None
                continue
            since = now if since is None else since
            if now - since >= self.limit_s:
                with self._lock:
                    if self._stopped.is_set():
                        return
                    self.stalled = (
                        f"every Dask worker ({n_workers}) stayed paused on memory for "
                        f"{self.limit_s:.0f} s, with memory Dask cannot spill (over "
                        "distributed.worker.memory.pause of its limit): nothing could progress; "
                        "give the workers more memory, or smaller Parquet row groups"
                    )
                    self._interrupt()
                return
