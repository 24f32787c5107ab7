"""ranklens.dask._watch: paused workers are asked to trim their memory; a run with a worker
paused and nothing progressing (or, without task counts, every worker paused) is stopped with
the reason instead of waiting forever; a run that progresses is left alone."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from ranklens.dask._watch import STALL_SECONDS, PausedWorkersGuard, trim_worker_memory


class FakeClient:
    """Answers ``scheduler_info`` from a list of worker statuses (the last one repeats); with
    ``counts``, each answer's task counts per worker (the last one repeats), else none (a
    ``distributed`` that reports none). Records the workers ``run`` was asked to trim."""

    def __init__(self, *answers, counts=None):
        self.answers = list(answers)
        self.counts = counts
        self.asked = 0
        self.trimmed: list[str] = []

    def scheduler_info(self, n_workers=5):
        assert n_workers == -1  # every worker, not Dask's first five
        self.asked += 1
        answer = self.answers[min(self.asked - 1, len(self.answers) - 1)]
        if isinstance(answer, Exception):
            raise answer
        workers = {f"w{i}": {"status": s} for i, s in enumerate(answer)}
        if self.counts is not None:
            counts = self.counts[min(self.asked - 1, len(self.counts) - 1)]
            for i, c in enumerate(counts):
                workers[f"w{i}"]["metrics"] = {"task_counts": c}
        return {"workers": workers}

    def run(self, function, workers):
        assert function is trim_worker_memory
        self.trimmed.extend(workers)


def _run(client, limit_s=0.2, wait_s=1.0, trim_after_s=0.0):
    fired = threading.Event()
    guard = PausedWorkersGuard(
        client, limit_s, poll_s=0.02, trim_after_s=trim_after_s, interrupt=fired.set
    ).start()
    fired.wait(wait_s)
    guard.stop()
    return guard, fired.is_set()


def test_every_worker_paused_past_the_limit_interrupts_with_the_reason():
    guard, fired = _run(FakeClient(["paused", "paused"]))
    assert fired
    assert guard.stalled.startswith("2 of 2 Dask worker(s) stayed paused on memory for 0 s")
    assert "more memory" in guard.stalled


@pytest.mark.parametrize(
    "answers",
    [
        (["paused", "running"],),  # one worker still runs tasks
        ([],),  # no worker (yet)
        (RuntimeError("scheduler busy"),),  # no answer: never a reason to stop
    ],
)
def test_no_interrupt_while_anything_can_progress(answers):
    guard, fired = _run(FakeClient(*answers), wait_s=0.5)
    assert not fired and guard.stalled is None


def test_a_worker_resuming_restarts_the_clock():
    # paused, then one resumes at every third poll: never paused for 0.2 s without a break
    statuses = [["paused", "paused"], ["paused", "paused"], ["running", "paused"]] * 30
    guard, fired = _run(FakeClient(*statuses), limit_s=0.2, wait_s=1.0)
    assert not fired and guard.stalled is None


def test_a_distributed_without_the_n_workers_argument():
    class OldClient(FakeClient):
        def scheduler_info(self):
            return FakeClient.scheduler_info(self, n_workers=-1)

    guard, fired = _run(OldClient(["paused", "paused", "paused"]))
    assert fired and "3 of 3" in guard.stalled


def test_stop_before_the_limit_and_a_limit_of_zero_never_interrupt():
    fired = threading.Event()
    guard = PausedWorkersGuard(FakeClient(["paused"]), 60, poll_s=0.01, interrupt=fired.set)
    guard.start()
    time.sleep(0.1)
    guard.stop()
    assert not fired.is_set() and guard.stalled is None
    off = PausedWorkersGuard(FakeClient(["paused"]), 0, poll_s=0.01, interrupt=fired.set).start()
    assert off._thread is None
    off.stop()
    assert STALL_SECONDS >= 60  # long enough for spilling to bring a worker back


_DEFAULT_INTERRUPT = """
import time

from ranklens.dask._watch import PausedWorkersGuard


class Paused:
    def scheduler_info(self, n_workers=5):
        return {"workers": {"w0": {"status": "paused"}}}


guard = PausedWorkersGuard(Paused(), 0.05, poll_s=0.01).start()
deadline = time.monotonic() + 5.0
try:
    while time.monotonic() < deadline:  # bounded: the check fails rather than hangs
        time.sleep(0.01)
    print("no interrupt")
except KeyboardInterrupt:
    print("interrupted:", guard.stalled)
guard.stop()
"""


def test_the_default_interrupt_raises_keyboard_interrupt_in_the_main_thread():
    # in a fresh interpreter: an interrupt sent to the test runner's own main thread could land
    # in whatever it runs next (a garbage-collector callback, a report being formatted)
    result = subprocess.run(
        [sys.executable, "-c", _DEFAULT_INTERRUPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("interrupted: 1 of 1 Dask worker(s) stayed paused"), (
        result.stdout
    )


IDLE = {"memory": 3, "released": 40}


def test_one_worker_paused_the_others_idle_and_nothing_finishing_interrupts():
    """The stall seen at 1e8 rows: one worker paused holding a shuffle's pieces, the other
    running with nothing to do, the task counts unchanged."""
    client = FakeClient(["paused", "running"], counts=[[{**IDLE, "ready": 14}, IDLE]])
    guard, fired = _run(client)
    assert fired and guard.stalled.startswith("1 of 2 Dask worker(s) stayed paused")


@pytest.mark.parametrize(
    "counts",
    [
        [[IDLE, {**IDLE, "executing": 1}]],  # a task running on the other worker
        [[IDLE, {"memory": 3, "released": 40 + i}] for i in range(200)],  # tasks finishing
    ],
    ids=["executing", "finishing"],
)
def test_no_interrupt_while_tasks_run_or_finish(counts):
    guard, fired = _run(FakeClient(["paused", "running"], counts=counts), wait_s=0.6)
    assert not fired and guard.stalled is None


def test_paused_workers_are_trimmed_again_while_they_stay_paused():
    client = FakeClient(["paused", "running", "paused"])
    guard, fired = _run(client, limit_s=60, wait_s=0.5, trim_after_s=0.1)
    assert not fired
    assert set(client.trimmed) == {"w0", "w2"}  # never the running worker
    assert 2 <= client.trimmed.count("w0") <= 6  # after 0.1 s paused, then every 0.1 s
    assert guard.trims == len(client.trimmed)


def test_a_failing_trim_never_stops_the_watch():
    class Failing(FakeClient):
        def run(self, function, workers):
            raise OSError("worker gone")

    guard, fired = _run(Failing(["paused", "paused"]), limit_s=0.3, trim_after_s=0.05)
    assert fired and guard.trims == 0 and "trimmed 0 time(s)" in guard.stalled


def test_trim_worker_memory_runs_in_this_process():
    trim_worker_memory()  # gc, Arrow's pool, glibc's malloc_trim (or nothing without glibc)
