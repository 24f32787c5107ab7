"""Progress of long work as plain lines, for logs: CI jobs, pipelines, ``nohup``, notebooks' files.

A rich progress bar redraws one terminal line; written to a file or a pipe it shows nothing until
the end (or a mess of control codes). Where stderr is not a terminal, long work reports with
:class:`LineProgress` instead: one line at most every few seconds, with the stage, the percentage
done and an estimate of the time left, e.g.::

    ranklens: bootstrap 45% (495/1100), 12 s elapsed, about 15 s left

Nothing is printed for work that ends before the first interval. A new stage is shown as soon as
:data:`STAGE_INTERVAL_S` has passed since the last line (at its first update, or the next one):
the time left of a finished stage is never the last word while the next one runs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["LINE_INTERVAL_S", "STAGE_INTERVAL_S", "LineProgress", "is_terminal"]

#: Seconds between two progress lines (a log stays readable, a stuck job is still visible).
LINE_INTERVAL_S = 5.0

#: ... but a new stage is shown once this many seconds have passed since the last line.
STAGE_INTERVAL_S = 1.0


def is_terminal(stream: Any = None) -> bool:
    """Whether ``stream`` (default: ``sys.stderr``) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _seconds(value: float) -> str:
    if value < 90:
        return f"{value:.0f} s"
    if value < 5400:
        return f"{value / 60:.0f} min"
    return f"{value / 3600:.1f} h"


class LineProgress:
    """Rate-limited progress lines on a stream: stage, percent, elapsed and time left.

    Parameters
    ----------
    label : str
        Start of every line (``"ranklens"``).
    stream : text stream, optional
        Where the lines go (default: ``sys.stderr`` at the time of each line).
    interval : float, optional
        Seconds between lines at least (default :data:`LINE_INTERVAL_S`).
    clock : callable
        Monotonic time in seconds (tests pass a fake one).
    """

    def __init__(
        self,
        label: str = "ranklens",
        *,
        stream: TextIO | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.stream = stream
        self.interval = LINE_INTERVAL_S if interval is None else interval
        self.clock = clock
        self.start = clock()
        self._last = self.start
        self._stage: str | None = None
        self._stage_start = self.start
        self._stage_shown = True  # the current stage has had its line
        self.lines = 0

    def update(
        self,
        stage: str,
        done: float | None = None,
        total: float | None = None,
        *,
        force: bool = False,
    ) -> None:
        """Report ``done`` of ``total`` in ``stage``; prints only once ``interval`` has passed."""
        now = self.clock()
        if stage != self._stage:
            # a later stage is due its own line soon (the first one waits for the interval)
            self._stage_shown = self._stage is None
            self._stage, self._stage_start = stage, now
        due = self.interval if self._stage_shown else min(self.interval, STAGE_INTERVAL_S)
        if not force and now - self._last < due:
            return
        self._last = now
        self._stage_shown = True
        parts = [f"{self.label}: {stage}"]
        if total and done is not None:
            fraction = min(max(done / total, 0.0), 1.0)
            count = f" ({done:.0f}/{total:.0f})" if float(total).is_integer() else ""
            parts[0] += f" {100 * fraction:.0f}%{count}"
        parts.append(f"{_seconds(now - self.start)} elapsed")
        if total and done:
            spent = now - self._stage_start
            if spent > 0 and 0 < done < total:
                parts.append(f"about {_seconds(spent / done * (total - done))} left")
        stream = sys.stderr if self.stream is None else self.stream
        print(", ".join(parts), file=stream, flush=True)
        self.lines += 1
