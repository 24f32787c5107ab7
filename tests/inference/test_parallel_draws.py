"""The bootstrap's indices drawn in parallel chunks of NumPy's PCG64 stream
(ranklens._compute.kernels.pcg64, ranklens._inference.resampling.draw_segments) are the numbers of
``rng.integers(0, n, size=n, dtype=np.int32)`` called once per replicate, and leave the generator
in the same state, so every bootstrap number is unchanged for a given ``random_state``."""

from __future__ import annotations

import numpy as np
import pytest

import ranklens._inference.resampling as resampling
from ranklens._compute.kernels import compare as kc
from ranklens._compute.kernels import pcg64 as kp
from ranklens._foundation.route import POLICY
from ranklens._inference.resampling import (
    DrawnSegments,
    bootstrap_blocks,
    draw_segments,
    kernels_only,
)


def _sequential(
    seed: int, n: int, rows: int, before: int
) -> tuple[np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(seed)
    rng.integers(0, 10, before, dtype=np.int32)  # an odd count leaves a half word kept
    draws = np.stack([rng.integers(0, n, size=n, dtype=np.int32) for _ in range(rows)])
    return draws, rng


@pytest.mark.parametrize("n", [2, 3, 1000, 65_537, 1_000_003])
@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize("before", [0, 1, 2])
@pytest.mark.parametrize("spare", [1.01, 0.3])
def test_segments_are_the_sequential_draws_and_leave_the_same_state(
    monkeypatch, n, rows, before, spare
):
    """Ranges from 2 to a million (about 230 values rejected a replicate), a half word kept from
    an earlier call or not, and a first round of chunks too short (spare 0.3), which further
    rounds make up."""
    monkeypatch.setattr(resampling, "_DRAW_SPARE", spare)
    seed = n + 10 * rows + before
    want, ref = _sequential(seed, n, rows, before)
    rng = np.random.default_rng(seed)
    rng.integers(0, 10, before, dtype=np.int32)
    drawn = draw_segments(rng, n, rows)
    assert drawn is not None
    np.testing.assert_array_equal(drawn.joined(rows * n).reshape(rows, n), want)
    assert rng.bit_generator.state == ref.bit_generator.state
    assert rng.integers(0, 2**40) == ref.integers(0, 2**40)
    args = (drawn.buf, drawn.starts, drawn.counts, drawn.offsets, rows, n)
    np.testing.assert_array_equal(kp.segment_counts(*args), kc.multiplicities_serial(want, n))
    small, fits = kp.segment_counts_small(*args)
    assert fits
    np.testing.assert_array_equal(small, kc.multiplicities_serial(want, n))


def test_scratch_buffer_is_reused_and_the_draws_continue():
    """Blocks drawn one after the other with one scratch buffer are the sequential draws."""
    n, rows = 50_000, 4
    want, _ = _sequential(1, n, 3 * rows, 0)
    rng = np.random.default_rng(1)
    scratch: list[np.ndarray] = []
    got = []
    for _ in range(3):
        drawn = draw_segments(rng, n, rows, scratch)
        assert drawn is not None and np.shares_memory(drawn.buf, scratch[0])
        got.append(drawn.joined(rows * n).reshape(rows, n))
    np.testing.assert_array_equal(np.concatenate(got), want)


def test_other_generators_and_one_value_draw_nothing():
    """Only PCG64 is reproduced; a range of one value is left to rng.integers (which draws no
    value for it); the generator is untouched."""
    philox = np.random.Generator(np.random.Philox(3))
    assert draw_segments(philox, 1000, 2) is None
    assert philox.integers(0, 2**40) == np.random.Generator(np.random.Philox(3)).integers(0, 2**40)
    pcg = np.random.default_rng(3)
    state = pcg.bit_generator.state
    assert draw_segments(pcg, 1, 2) is None
    assert draw_segments(pcg, 1000, 0) is None
    assert pcg.bit_generator.state == state


def test_segment_counts_say_when_a_count_does_not_fit():
    """A count past 255 is reported (the uint8 counts are then not used), 255 fits."""
    for repeats, fits in ((255, True), (256, False)):
        buf = np.zeros(repeats + 1, np.int32)
        buf[-1] = 1
        segments = DrawnSegments(
            buf,
            np.array([0, repeats], np.int64),
            np.array([repeats, 1], np.int64),
            np.array([0, repeats], np.int64),
        )
        args = (segments.buf, segments.starts, segments.counts, segments.offsets, 1, repeats + 1)
        small, ok = kp.segment_counts_small(*args)
        assert ok is fits
        wide = kp.segment_counts(*args)
        assert wide[0, 0] == repeats and wide[0, 1] == 1
        if fits:
            np.testing.assert_array_equal(small, wide)


@pytest.mark.parametrize("compact", [False, True])
def test_bootstrap_blocks_unchanged_by_the_parallel_draws(monkeypatch, compact):
    """The blocks of a bootstrap on the parallel drivers equal those drawn with rng.integers."""
    monkeypatch.setattr(POLICY, "parallel_block_work", 0)
    monkeypatch.setattr(POLICY, "parallel_run_work", 0)
    n = 40_000
    with kernels_only():
        fast = list(bootstrap_blocks(np.random.default_rng(9), n, 70, compact=compact))
    monkeypatch.setattr(resampling, "draw_segments", lambda *args: None)
    with kernels_only():
        slow = list(bootstrap_blocks(np.random.default_rng(9), n, 70, compact=compact))
    assert len(fast) == len(slow) > 1
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype == (np.uint8 if compact else np.float64)
        np.testing.assert_array_equal(a, b)


def test_compare_models_unchanged_by_the_parallel_draws(monkeypatch):
    """A comparison whose replicates are drawn in parallel chunks gives the replicates of one
    drawn with rng.integers, bit for bit (and so every interval and test)."""
    from ranklens.compare import compare_models

    rng = np.random.default_rng(4)
    n = 60_000
    y = rng.normal(size=n)
    preds = {"a": y + rng.normal(size=n), "b": np.round(y + 2 * rng.normal(size=n), 1)}
    kwargs = dict(
        metrics=["kendall_tau", "spearman_rho", "root_mean_squared_error"],
        n_bootstrap=70,
        random_state=11,
        show_progress=False,
    )
    monkeypatch.setattr(POLICY, "parallel_block_work", 0)
    monkeypatch.setattr(POLICY, "parallel_run_work", 0)
    calls = []
    segments = resampling.draw_segments

    def spy(*args):
        calls.append(args[2])
        return segments(*args)

    monkeypatch.setattr(resampling, "draw_segments", spy)
    fast = compare_models(y, preds, **kwargs)
    assert calls  # the parallel draws ran
    monkeypatch.setattr(resampling, "draw_segments", lambda *args: None)
    slow = compare_models(y, preds, **kwargs)
    np.testing.assert_array_equal(fast.replicates, slow.replicates)
    np.testing.assert_array_equal(fast.ci_lower, slow.ci_lower)
