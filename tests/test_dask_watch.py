"""ranklens.dask._watch: a run whose workers all stay paused on memory is stopped, with the
reason, instead of waiting forever; a run with one worker still running is left alone."""

from __future__ import annotations

import threading
import time

import pytest

from ranklens.dask._watch import STALL_SECONDS, PausedWorkersGuard


class FakeClient:
    """Answers ``scheduler_info`` from a list of worker statuses (the last one repeats)."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = 0

    def scheduler_info(self, n_workers=5):
        assert n_workers == -1  # every worker, not Dask's first five
        self.asked += 1
        answer = self.answers[min(self.asked - 1, len(self.answers) - 1)]
        if isinstance(answer, Exception):
            raise answer
        return {"workers": {f"w{i}": {"status": s} for i, s in enumerate(answer)}}


def _run(client, limit_s=0.2, wait_s=1.0):
    fired = threading.Event()
    guard = PausedWorkersGuard(client, limit_s, poll_s=0.02, interrupt=fired.set).start()
    fired.wait(wait_s)
    guard.stop()
    return guard, fired.is_set()


def test_every_worker_paused_past_the_limit_interrupts_with_the_reason():
    guard, fired = _run(FakeClient(["paused", "paused"]))
    assert fired
    assert guard.stalled.startswith("every Dask worker (2) stayed paused on memory for 0 s")
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
    assert fired and "(3)" in guard.stalled


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


@pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="the interrupt is delivered to the main thread",
)
def test_the_default_interrupt_raises_keyboard_interrupt_in_the_main_thread():
    guard = PausedWorkersGuard(FakeClient(["paused"]), 0.05, poll_s=0.01).start()
    deadline = time.monotonic() + 5.0
    with pytest.raises(KeyboardInterrupt):
        while time.monotonic() < deadline:  # bounded: the test fails rather than hangs
            time.sleep(0.01)
    guard.stop()
    assert guard.stalled is not None
