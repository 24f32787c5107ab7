"""The large pieces of a pass are fetched as they finish, and released on the workers."""

from __future__ import annotations

import time

import pytest

dask = pytest.importorskip("dask")
pytest.importorskip("distributed")

from ranklens.dask import _gather  # noqa: E402


def _square(x: int) -> int:
    return x * x


def _pieces() -> tuple[list, list]:
    base = [dask.delayed(_square)(i, dask_key_name=f"base-{i}") for i in range(5)]
    small = [base, [dask.delayed(sum)(base)]]
    pieces = [
        [dask.delayed(_square)(b, dask_key_name=f"piece-a-{i}") for i, b in enumerate(base)],
        [],
        [dask.delayed(_square)(base[0], dask_key_name="piece-c")],
    ]
    return small, pieces


def _expected() -> tuple[tuple, list]:
    squares = [i * i for i in range(5)]
    return (squares, [sum(squares)]), [[s * s for s in squares], [], [0]]


def test_distributed_results_equal_dask_compute_and_are_released(client):
    small, pieces = _pieces()
    assert _gather._distributed_client() is client
    done, gathered = _gather.compute_gathering(small, pieces)
    expected_small, expected_pieces = _expected()
    assert done == expected_small
    assert gathered == expected_pieces
    # nothing of the pass stays on the workers once its results are on the client (the release
    # reaches the scheduler asynchronously: wait a little for it)
    deadline = time.monotonic() + 10
    while [key for key in client.who_has() if "piece" in str(key)]:
        assert time.monotonic() < deadline, client.who_has()
        time.sleep(0.05)


def test_without_a_distributed_scheduler_it_is_dask_compute(client):
    small, pieces = _pieces()
    with dask.config.set(scheduler="sync"):
        assert _gather._distributed_client() is None
        done, gathered = _gather.compute_gathering(small, pieces)
    assert (done, gathered) == _expected()


def test_a_failed_piece_raises_its_own_error(client):
    def fail(x: int) -> int:
        raise ArithmeticError(f"bucket {x} failed")

    pieces = [[dask.delayed(fail)(3)]]
    with pytest.raises(ArithmeticError, match="bucket 3 failed"):
        _gather.compute_gathering([[dask.delayed(_square)(2)]], pieces)
