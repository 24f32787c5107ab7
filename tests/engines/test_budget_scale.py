"""The bootstrap at scale: its time budget is a bound, its cost per replicate O(n log n), its
memory within a stated budget (ranklens._engines.budget, ranklens._inference.resampling,
ranklens.compare).

Timings are not asserted here (a loaded machine would turn them red): benchmarks/bench_budget.py
and benchmarks/bench_scale.py time them. These tests pin the deterministic parts: the compile step
takes the real run's route, planning stops at its deadline, blocks of compact weights keep a
whole batch of replicates at any n with the same numbers, the loss columns summed in chunks equal
the materialised sums bit for bit, and a comparison over its memory budget is refused with one
clear line.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from ranklens import compare as compare_module
from ranklens._compute.kernels import rank_levels
from ranklens._engines import budget as _budget
from ranklens._foundation import progress as _progress
from ranklens._foundation.route import POLICY
from ranklens._inference import evaluators as _evaluators
from ranklens._inference import resampling as _resampling
from ranklens._inference.resampling import BootstrapMemoryError
from ranklens.compare import compare_models
from ranklens.metrics import get_metric

# A size rule of the rank sweep lowered for the tests: from this many rows on, the level sweep
# and its uint8 lanes (the route of a million rows) run on a few hundred.
_SMALL_LEVEL_SWEEP_ABOVE = 64


def _data(n, seed=0, models=2):
    rng = np.random.default_rng(seed)
    y = rng.lognormal(mean=2, size=n)
    preds = {f"m{k}": y * rng.lognormal(sigma=0.3 + 0.3 * k, size=n) for k in range(models)}
    return y, preds


@pytest.fixture
def level_route(monkeypatch):
    """The level sweep (and compact blocks) from :data:`_SMALL_LEVEL_SWEEP_ABOVE` rows on."""
    monkeypatch.setattr(POLICY, "level_sweep_above", _SMALL_LEVEL_SWEEP_ABOVE)


# --------------------------------------------------------------------------------------------
# the time budget


def test_compile_step_runs_the_level_sweep_of_the_real_n(level_route, monkeypatch):
    """Above the level sweep's threshold the real run sweeps on level orders with uint8 lanes;
    the compile step must run those kernels (outside the budget), not only the small-n ones, or
    their compilation lands in the timing (docs/performance.md, "The bootstrap at scale")."""
    calls: list[str] = []
    originals = {}
    for name in ("level_statistics_parallel", "level_statistics_serial", "count_lanes"):
        kernel = originals[name] = getattr(rank_levels, name)

        def spy(*args, _kernel=kernel, _name=name):
            calls.append(_name)
            return _kernel(*args)

        monkeypatch.setattr(rank_levels, name, spy)
    y, preds = _data(500)
    specs = [get_metric(name) for name in ("kendall_tau", "mean_absolute_error")]
    assert _budget.route_rows(500) == _SMALL_LEVEL_SWEEP_ABOVE + 1
    _budget._compile(y, preds, specs, None, (), {}, "bca", False, 1100)
    assert "count_lanes" in calls  # a whole block of uint8 counts, as the run draws them
    assert {"level_statistics_parallel", "level_statistics_serial"} & set(calls)
    from ranklens._foundation.cache import is_compiled

    assert any(
        is_compiled(kernel)
        for kernel in originals.values()
        if kernel.py_func.__name__ != "count_lanes"
    )


def test_compile_sample_is_the_data_below_the_route_threshold():
    assert _budget.route_rows(30) == 30
    assert _budget.route_rows(10_000) == 10_000
    level = POLICY.level_sweep_above
    assert _budget.route_rows(10**7) == level + 1


class _FakeClock:
    """A clock read by the planner: a hundredth of a second a reading, and whatever a test adds
    (``now``) for the steps it makes slow."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.01
        return self.now


def test_planning_stops_at_its_deadline_and_says_what_it_did_not_time(monkeypatch):
    y, preds = _data(400)
    names = [
        "root_mean_squared_error",
        "kendall_tau",
        "spearman_rho",
        "median_absolute_error",
        "ndcg_score",
    ]
    specs = [get_metric(name) for name in names]
    clock = _FakeClock()
    timed_groups: list[list[str]] = []
    time_group = _budget._time_group

    def slow_group(timer, m, specs_, group, *args):  # each group's timing takes 6 s
        clock.now += 6.0
        timed_groups.append([specs_[k].name for k in group])
        return time_group(timer, m, specs_, group, *args)

    monkeypatch.setattr(_budget, "_time_group", slow_group)
    messages: list[str] = []
    budget = 40.0  # planning: 10 s, so two groups of the four
    plan = _budget.plan_bootstrap(
        y,
        preds,
        specs,
        None,
        n_bootstrap=200,
        budget_s=budget,
        headline=("root_mean_squared_error", "kendall_tau"),
        progress=messages.append,
        clock=clock,
    )
    deadline = _budget.PLANNING_SHARE * budget
    assert len(timed_groups) == 2  # nothing started after the deadline
    assert deadline <= plan.planning_s <= deadline + 6.5
    # the headline measures' groups first; the others not timed, left out with the reason
    assert sorted(n for group in timed_groups for n in group) == [
        "kendall_tau",
        "root_mean_squared_error",
        "spearman_rho",
    ]
    assert set(plan.untimed) == {"median_absolute_error", "ndcg_score"}
    assert plan.skipped is None
    assert {s.name for s in plan.metrics} == {
        "root_mean_squared_error",
        "kendall_tau",
        "spearman_rho",
    }
    notes = plan.notes()
    assert "median_absolute_error" in notes["not timed (time budget)"]
    assert "planning" in notes["not timed (time budget)"]
    assert messages[0].startswith("bootstrap: compiling the kernels")
    assert "bootstrap: timing measures (1/4): root_mean_squared_error" in messages


def test_planning_reports_every_step_through_the_callback():
    y, preds = _data(300)
    names = ["mean_absolute_error", "median_absolute_error", "ndcg_score"]
    messages: list[str] = []
    plan = _budget.plan_bootstrap(
        y,
        preds,
        [get_metric(name) for name in names],
        None,
        n_bootstrap=50,
        budget_s=600.0,
        progress=messages.append,
    )
    assert plan.skipped is None
    counted = [m for m in messages if m.startswith("bootstrap: timing measures (")]
    assert counted == [
        "bootstrap: timing measures (1/3): mean_absolute_error",
        "bootstrap: timing measures (2/3): median_absolute_error",
        "bootstrap: timing measures (3/3): ndcg_score",
    ]


def test_messages_of_a_skipped_bootstrap_do_not_contradict_the_budget():
    plan = _budget.BootstrapPlan([], 1000, 1000, budget_s=60.0, planning_s=40.0)
    costs = _budget._Costs(
        values={0: 1.0},
        group_of={0: 0},
        build={0: 1.0},
        row={0: 0.2},
        fast={0},
        resample=0.01,
    )
    _budget._fit(plan, costs, [get_metric("kendall_tau")], (), ("kendall_tau",), 10**6, 0)
    assert plan.skipped is not None
    # about 23 s needed, 16 s left (0.8 x (60 - 40)): never "23 s, over the 60 s budget"
    assert "more than the 16 s the 60 s budget leaves after 40 s of timing" in plan.skipped
    need = float(plan.skipped.split("about ")[1].split(" s")[0])
    assert need > 16


def test_a_comparison_over_the_memory_budget_is_skipped_by_the_plan(level_route, monkeypatch):
    monkeypatch.setattr(_resampling, "memory_budget", lambda: 1e5)
    y, preds = _data(500)
    plan = _budget.plan_bootstrap(
        y, preds, [get_metric("kendall_tau")], None, n_bootstrap=200, budget_s=60.0
    )
    assert plan.skipped is not None and "--engine dask" in plan.skipped
    assert plan.left_out == ["kendall_tau"]


# --------------------------------------------------------------------------------------------
# blocks of a whole batch at any n, the same numbers


def test_compact_blocks_keep_a_whole_batch_and_the_same_draws(monkeypatch):
    n = 40_000
    rng = np.random.default_rng(3)
    reference = np.concatenate(list(_resampling.bootstrap_blocks(rng, n, 70)))
    # as at 2e7 rows: one float64 row a block, and the indices drawn a few rows at a time
    monkeypatch.setattr(_resampling, "BLOCK_CELLS", n)
    monkeypatch.setattr(_resampling, "WIDE_BLOCK_CELLS", n)
    monkeypatch.setattr(_resampling, "DRAW_CELLS", 3 * n)
    assert _resampling.block_rows(n) == 1
    blocks = list(_resampling.bootstrap_blocks(np.random.default_rng(3), n, 70, compact=True))
    assert [b.shape[0] for b in blocks] == [32, 32, 6]
    assert all(b.dtype == np.uint8 for b in blocks)
    np.testing.assert_array_equal(np.concatenate(blocks).astype(np.float64), reference)


@pytest.mark.parametrize("scheme", ["poisson", "stratified"])
def test_compact_blocks_of_other_schemes_keep_the_numbers(scheme, monkeypatch):
    n = 40_000
    y = (np.arange(n) % 7 == 0).astype(float)
    resampler = _resampling.Resampler.resolve(scheme, None, y)
    reference = np.concatenate(list(resampler.blocks(np.random.default_rng(5), 40)))
    monkeypatch.setattr(_resampling, "BLOCK_CELLS", 3 * n)
    blocks = list(resampler.blocks(np.random.default_rng(5), 40, compact=True))
    assert [b.shape[0] for b in blocks] == [32, 8]
    np.testing.assert_array_equal(np.concatenate(blocks).astype(np.float64), reference)


def test_small_blocks_give_the_replicates_of_whole_ones(level_route, monkeypatch):
    """Blocks of one float64 row (the old rule at 2e7 rows) against whole batches of uint8
    counts, read by the lanes, the level sweep and, row by row, the generic measures."""
    y, preds = _data(3_000, seed=1)
    weight = np.random.default_rng(2).integers(1, 4, size=3_000).astype(float)
    kwargs = {
        "metrics": ["kendall_tau", "spearman_rho", "mean_absolute_error", "median_absolute_error"],
        "n_bootstrap": 45,
        "random_state": 4,
        "show_progress": False,
    }
    for sw in (None, weight):
        whole = compare_models(y, preds, sample_weight=sw, **kwargs)
        with monkeypatch.context() as m:
            m.setattr(_evaluators, "BLOCK_CELLS", 700)  # generic rows read a few at a time
            m.setattr(_resampling, "DRAW_CELLS", 2_000)  # indices drawn a row at a time
            small = compare_models(y, preds, sample_weight=sw, **kwargs)
        np.testing.assert_array_equal(small.replicates, whole.replicates)


# --------------------------------------------------------------------------------------------
# memory


@pytest.mark.parametrize(("n", "ties"), [(1, False), (2, False), (37, True), (1000, False)])
def test_level_codes_give_the_sweeps_of_the_level_orders(n, ties):
    """The rank sweep reads two bits of each level order's positions: the byte-a-level codes
    (a quarter of the memory) give the same statistics, bit for bit, in every sweep."""
    rng = np.random.default_rng(n)
    y = rng.normal(size=n)
    preds = np.stack([y + rng.normal(size=n), rng.normal(size=n)])
    if ties:
        y, preds = np.round(y), np.round(preds, 1)
    evaluator = _evaluators._RankEvaluator(
        [0], [get_metric("kendall_tau").capabilities.batched], y, preds, np.ones(n)
    )
    plan = (evaluator.orders, evaluator.p_sorted, evaluator.n_preds)
    top_rows, p_top, perms = rank_levels.level_plan(*plan)
    top_c, p_top_c, codes = rank_levels.level_plan(*plan, coded=True)
    np.testing.assert_array_equal(top_c, top_rows)
    np.testing.assert_array_equal(p_top_c, p_top)
    np.testing.assert_array_equal(codes, np.stack([rank_levels.level_codes(p) for p in perms]))
    assert codes.dtype == np.uint8
    counts = rng.poisson(1.0, size=(40, n)).astype(np.uint8)
    lanes = rank_levels.count_lanes(counts, 32)
    fractional = rank_levels.batch_weights_float(rng.random((5, n)) * 2, np.ones(n), 5)
    rest = (evaluator.y_sorted, evaluator.p_sorted, evaluator.n_preds)
    for weights, rows in ((lanes, 40), (fractional, 5)):
        for sweep in (rank_levels.level_statistics_serial, rank_levels.level_statistics_parallel):
            expected = sweep(weights, rows, top_rows, p_top, perms, *rest)
            np.testing.assert_array_equal(
                sweep(weights, rows, top_c, p_top_c, codes, *rest), expected
            )
    chunked = rank_levels._split_levels_compact  # a chunk too short for two levels a pass
    cur = rng.integers(0, 3, size=(n, 32)).astype(np.uint8)
    for chunk in (1, 5):
        for levels in (perms[0], codes[0]):
            a = chunked(cur.copy(), np.empty_like(cur), levels, chunk)
            b = chunked(cur.copy(), np.empty_like(cur), perms[0], chunk)
            np.testing.assert_array_equal(a[0], b[0])
            np.testing.assert_array_equal(a[1], b[1])


def _ratio_evaluator(y, preds, chunk_rows):
    names = ["mean_absolute_error", "root_mean_squared_error", "rmspe"]
    forms = [get_metric(name).capabilities.batched for name in names]
    matrix = np.stack(list(preds.values()))
    weight = np.random.default_rng(9).integers(1, 3, size=y.shape[0]).astype(float)
    return _evaluators._RatioFormEvaluator(
        [0, 1, 2], forms, y, matrix, weight / weight.mean(), chunk_rows
    )


@pytest.mark.parametrize("chunk_rows", [1, 7, 1000, 5000])
def test_loss_sums_in_chunks_equal_the_materialised_ones(level_route, chunk_rows):
    y, preds = _data(3_000, seed=5, models=3)
    whole = _ratio_evaluator(y, preds, None)
    chunked = _ratio_evaluator(y, preds, chunk_rows)
    assert chunked.flat is None
    rng = np.random.default_rng(6)
    counts = list(_resampling.bootstrap_blocks(rng, 3_000, 40, compact=True))
    fractional = rng.random((5, 3_000)) * 3  # no lanes: the float64 sums
    for weights in [*counts, fractional]:
        block = _evaluators.Block(weights)
        expected = whole.evaluate_block(_evaluators.Block(weights))
        np.testing.assert_array_equal(chunked.evaluate_block(block), expected)


def test_memory_plan_chunks_the_loss_columns_and_limits_the_tasks(level_route):
    forms = [
        get_metric(name).capabilities.batched
        for name in ("mean_absolute_error", "rmspe", "log_rmse", "kendall_tau")
    ]
    n = 10**7
    roomy = _evaluators.memory_plan(n, 3, forms, 1e12)
    threads = __import__("numba").get_num_threads()
    assert roomy.loss_chunk_rows is None and roomy.level_tasks == threads
    assert roomy.total <= 1e12
    tight_budget = roomy.total - 1
    tight = _evaluators.memory_plan(n, 3, forms, tight_budget)
    assert tight.loss_chunk_rows is not None
    assert tight.total <= tight_budget and tight.level_tasks >= 1


def test_a_comparison_over_the_memory_budget_raises_one_clear_line(level_route, monkeypatch):
    monkeypatch.setattr(compare_module, "memory_budget", lambda: 2e5)
    y, preds = _data(2_000)
    with pytest.raises(BootstrapMemoryError) as info:
        compare_models(y, preds, n_bootstrap=50, random_state=0, show_progress=False)
    message = str(info.value)
    assert isinstance(info.value, MemoryError)
    assert "\n" not in message
    assert "memory budget" in message and "--engine dask" in message


def test_a_comparison_with_chunked_loss_columns_gives_the_same_replicates(level_route, monkeypatch):
    y, preds = _data(3_000, seed=7)
    kwargs = {"n_bootstrap": 40, "random_state": 1, "show_progress": False}
    metrics = ["mean_absolute_error", "rmspe", "kendall_tau"]
    whole = compare_models(y, preds, metrics=metrics, **kwargs)
    forms = [get_metric(name).capabilities.batched for name in metrics]
    plan = _evaluators.memory_plan(3_000, 2, forms, 1e12)
    budget = plan.total - plan.need["loss columns"] / 2  # the columns no longer fit whole
    monkeypatch.setattr(compare_module, "memory_budget", lambda: budget)
    monkeypatch.setattr(_evaluators, "_LOSS_CHUNK_BYTES", 16 * 3 * 2 * 100)  # 100 rows
    assert _evaluators.memory_plan(3_000, 2, forms, budget).loss_chunk_rows == 100
    chunked = compare_models(y, preds, metrics=metrics, **kwargs)
    np.testing.assert_array_equal(chunked.replicates, whole.replicates)


def test_numpys_memory_error_becomes_the_clear_one(monkeypatch):
    def out_of_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 9.69 GiB for an array with shape (2, 26, 50000000)")

    monkeypatch.setattr(compare_module, "evaluate_all", out_of_memory)
    y, preds = _data(200)
    with pytest.raises(BootstrapMemoryError, match=r"ran out of memory .*--engine dask"):
        compare_models(y, preds, n_bootstrap=20, random_state=0, show_progress=False)


def test_memory_budget_reads_the_environment(monkeypatch):
    monkeypatch.setenv("RANKLENS_MEMORY_BUDGET", "1.5G")
    assert _resampling.memory_budget() == 1.5 * 2**30
    monkeypatch.setenv("RANKLENS_MEMORY_BUDGET", "123456")
    assert _resampling.memory_budget() == 123456
    monkeypatch.setenv("RANKLENS_MEMORY_BUDGET", "lots")
    with pytest.raises(ValueError, match="RANKLENS_MEMORY_BUDGET"):
        _resampling.memory_budget()
    monkeypatch.delenv("RANKLENS_MEMORY_BUDGET")
    budget = _resampling.memory_budget()
    assert 0 < budget < math.inf


# --------------------------------------------------------------------------------------------
# progress lines


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_new_stage_gets_its_line_within_a_second():
    """'measures ... about 3 s left' must not be the last word while the bootstrap's planning
    runs for minutes: the next stage's first message is shown (a second after the last line)."""
    out, clock = io.StringIO(), _Clock()
    lines = _progress.LineProgress("ranklens", stream=out, interval=5.0, clock=clock)
    for k in range(1, 11):
        clock.now = k
        lines.update("measures", k, 10)
    clock.now = 10.5
    lines.update("bootstrap: compiling the kernels")  # within a second of the last line
    clock.now = 11.6
    lines.update("bootstrap: compiling the kernels")  # due now, not at 15 s
    text = out.getvalue().splitlines()
    assert text[-1].startswith("ranklens: bootstrap: compiling the kernels")
    assert text[-2].startswith("ranklens: measures 100% (10/10)")
