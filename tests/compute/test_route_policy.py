"""The performance policy (ranklens._foundation.route): its numbers, and the block that forces the
kernels."""

from __future__ import annotations

import dataclasses

import pytest

from ranklens._foundation import route as _route
from ranklens._foundation.route import POLICY, RoutePolicy, Thresholds, kernels_at_any_size

#: The sizes and costs the routing rules have always used (a change here changes which form a
#: call takes, never a number, but is a decision of its own).
_DEFAULTS = {
    "sort_numpy_below": 1 << 15,
    "prefer_compiled": True,
    "sweep_numpy_below": 1 << 15,
    "sweep_load_after_s": 1.0,
    "sweep_compile_after_s": 3.0,
    "pair_counts_numpy_below": 1 << 12,
    "delong_numpy_below": 1 << 12,
    "utility_numpy_below": 1 << 12,
    "dcg_numpy_below": 1 << 12,
    "dcg_call_s": 1.5e-4,
    "dcg_row_s": 2e-7,
    "dcg_libm_row_s": 4e-7,
    "dcg_compile_s": 3.0,
    "dcg_load_s": 0.2,
    "median_numpy_below": 1 << 12,
    "pav_numpy_below": 1 << 12,
    "curve_helpers_numpy_below": 1 << 15,
    "band_grid_numpy_below": 1 << 12,
    "band_grid_unimported_below": 1 << 11,
    "band_grid_parallel_work": 1 << 15,
    "twins_numpy_below": 1 << 15,
    "twins_load_s": 0.5,
    "twins_compile_s": 3.0,
    "numba_import_s": 0.3,
    "twins_rank_s": 3e-8,
    "twins_row_s": 2e-8,
    "level_sweep_above": 1 << 15,
    "parallel_block_work": 2_000_000,
    "parallel_run_work": 8_000_000_000,
    "parallel_sort_from": 1 << 21,
}


def _sizes(which: Thresholds) -> set[str]:
    return {
        f.name
        for f in dataclasses.fields(RoutePolicy)
        if "group" in f.metadata and f.metadata["group"] & which
    }


def test_the_defaults():
    assert dataclasses.asdict(RoutePolicy()) == _DEFAULTS
    assert dataclasses.asdict(POLICY) == _DEFAULTS  # nothing left changed by another test


def test_the_groups():
    assert _sizes(Thresholds.SORTS) == {"sort_numpy_below"}
    assert _sizes(Thresholds.LEVELS) == {"level_sweep_above"}
    assert _sizes(Thresholds.DRIVERS) == {
        "band_grid_parallel_work",
        "parallel_block_work",
        "parallel_run_work",
        "parallel_sort_from",
    }
    first = _sizes(Thresholds.FIRST_CALLS)
    assert all(name.endswith("_below") for name in first) and "sort_numpy_below" not in first
    costs = set(_DEFAULTS) - _sizes(Thresholds.ALL)
    assert costs == {"prefer_compiled"} | {name for name in _DEFAULTS if name.endswith("_s")}


@pytest.mark.parametrize("which", [Thresholds.ALL, Thresholds.FIRST_CALLS, Thresholds.DRIVERS])
def test_kernels_at_any_size_sets_its_groups_to_zero_and_restores(which):
    with kernels_at_any_size(which) as policy:
        assert policy is _route.POLICY
        now = dataclasses.asdict(POLICY)
        assert {name for name, value in now.items() if value != _DEFAULTS[name]} == _sizes(which)
        assert all(now[name] == 0 for name in _sizes(which))
    assert dataclasses.asdict(POLICY) == _DEFAULTS


def test_nested_blocks_and_errors_restore_what_was_there(monkeypatch):
    monkeypatch.setattr(POLICY, "sweep_numpy_below", 7)
    with pytest.raises(RuntimeError), kernels_at_any_size(Thresholds.FIRST_CALLS):
        with kernels_at_any_size(Thresholds.DRIVERS):
            assert POLICY.sweep_numpy_below == POLICY.parallel_block_work == 0
        assert POLICY.parallel_block_work == 2_000_000 and POLICY.sweep_numpy_below == 0
        raise RuntimeError
    assert POLICY.sweep_numpy_below == 7
