"""The rank sweep of large data sets on precomputed level orders
(ranklens._compute.kernels.rank_levels).

Its replicates must equal the one-replicate sweep's
(ranklens._compute.kernels.compare.rank_replicates, the reference that the batched and GPU engines
are tested against too): bit for bit for integer weights (bootstrap counts with unit case weights),
to rounding for fractional weights; the level orders must equal those of the array-API engine
(ranklens._compute.xp.rank.build_plan).
"""

from __future__ import annotations

import numpy as np
import pytest

from ranklens import compare_models
from ranklens._compute.kernels import compare as kc
from ranklens._compute.kernels import rank_levels as rl
from ranklens._compute.xp.rank import build_plan
from ranklens._compute.xp.sequence import order_by_y_then_pred, prepare_ranks


def _prepared(y, preds):
    orders, ys, ps, nps = [], [], [], []
    for pred in preds:
        order, y_rank, pred_rank = prepare_ranks(y, pred)
        by_y = np.ascontiguousarray(order_by_y_then_pred(order, y_rank)[::-1])
        orders.append(by_y)
        ys.append(y_rank[by_y])
        ps.append(pred_rank[by_y])
        nps.append(int(pred_rank.max()) + 1)
    return np.stack(orders), np.stack(ys), np.stack(ps), np.array(nps, dtype=np.int64)


def _data(rng, n, ties):
    y = rng.normal(size=n)
    a = y + rng.normal(size=n)
    b = rng.normal(size=n)
    if ties:
        y, a, b = np.round(y, 0), np.round(a, 1), np.round(b, 0)
    return y, np.stack([a, b])


def _levels(multiplicity, base_weight, prepared, width, small):
    orders, ys, ps, nps = prepared
    top_rows, p_top, perms = rl.level_plan(orders, ps, nps)
    if small:
        weights, fits = rl.batch_weights_small(multiplicity, base_weight, width)
        assert fits
    else:
        weights = rl.batch_weights_float(multiplicity, base_weight, width)
    args = (weights, multiplicity.shape[0], top_rows, p_top, perms, ys, ps, nps)
    out = rl.level_statistics_serial(*args)
    np.testing.assert_array_equal(rl.level_statistics_parallel(*args), out)
    return out


@pytest.mark.parametrize("n", [2, 3, 5, 17, 64, 300])
@pytest.mark.parametrize("ties", [False, True])
def test_level_orders_equal_the_array_api_plan(n, ties):
    rng = np.random.default_rng(n)
    y, preds = _data(rng, n, ties)
    orders, _, ps, nps = _prepared(y, preds)
    top_rows, p_top, perms = rl.level_plan(orders, ps, nps)
    for m in range(2):
        plan = build_plan(np, y, preds[m])
        assert perms.shape[1] == len(plan.perms)
        for level, perm in enumerate(plan.perms):
            np.testing.assert_array_equal(perms[m, level], perm)
        np.testing.assert_array_equal(top_rows[m], orders[m][perms[m, -1]])
        np.testing.assert_array_equal(p_top[m], np.sort(ps[m]))


@pytest.mark.parametrize("n", [2, 3, 7, 100, 1000])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("width", [1, 3, 8, 32])
def test_integer_weights_bit_identical_to_one_replicate_sweep(n, ties, width):
    rng = np.random.default_rng(7 * n + width)
    y, preds = _data(rng, n, ties)
    prepared = _prepared(y, preds)
    rows = 11
    multiplicity = np.stack(
        [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(rows)]
    ).astype(np.float64)
    multiplicity[0] = 0.0  # an empty replicate: NaN everywhere, as the reference
    multiplicity[1] = 0.0
    multiplicity[1, 0] = 3.0  # a single row: undefined too
    base_weight = np.ones(n)
    ref = kc.rank_replicates_serial(multiplicity, base_weight, *prepared)
    for small in (True, False):
        out = _levels(multiplicity, base_weight, prepared, width, small)
        np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("ties", [False, True])
def test_integer_case_weights_bit_identical(ties):
    """Integer case weights times counts (up to 255 in the compact layout) are exact too."""
    rng = np.random.default_rng(3)
    n = 500
    y, preds = _data(rng, n, ties)
    prepared = _prepared(y, preds)
    multiplicity = rng.poisson(1.0, size=(9, n)).astype(np.float64)
    base_weight = rng.integers(0, 5, n).astype(np.float64)
    ref = kc.rank_replicates_serial(multiplicity, base_weight, *prepared)
    for small in (True, False):
        np.testing.assert_array_equal(_levels(multiplicity, base_weight, prepared, 8, small), ref)


def test_weights_beyond_the_compact_layout_are_reported():
    multiplicity = np.array([[1.0, 256.0, 2.0], [0.5, 1.0, 1.0]])
    assert not rl.batch_weights_small(multiplicity[:1], np.ones(3), 4)[1]
    assert not rl.batch_weights_small(multiplicity[1:], np.ones(3), 4)[1]
    assert rl.batch_weights_small(multiplicity[:, [0, 2]][:1], np.ones(2), 4)[1]
    for bad in (-1.0, np.nan, np.inf, 255.5, 1e300):
        assert not rl.batch_weights_small(np.array([[1.0, bad, 2.0]]), np.ones(3), 4)[1]
    edge, fits = rl.batch_weights_small(np.array([[255.0, 0.0, -0.0]]), np.ones(3), 4)
    assert fits and edge[0, :, 0].tolist() == [255, 0, 0]


@pytest.mark.parametrize("ties", [False, True])
def test_fractional_weights_equal_to_rounding(ties):
    rng = np.random.default_rng(11)
    n = 800
    y, preds = _data(rng, n, ties)
    prepared = _prepared(y, preds)
    multiplicity = rng.poisson(1.0, size=(13, n)).astype(np.float64)
    base_weight = rng.uniform(0.1, 3.0, n)
    ref = kc.rank_replicates_serial(multiplicity, base_weight, *prepared)
    out = _levels(multiplicity, base_weight, prepared, 8, small=False)
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("weighted", [False, True])
def test_compare_models_replicates_unchanged(monkeypatch, weighted):
    """compare_models on the level orders (forced at small n) gives today's replicates: bit for
    bit without case weights, to 1e-12 with them (normalised case weights are fractional and the
    two sweeps add the discordant weight in different orders)."""
    import ranklens._inference.evaluators as evaluators
    from ranklens._foundation.route import POLICY
    from ranklens._inference.resampling import kernels_only

    rng = np.random.default_rng(5)
    n = 20_000  # below the level sweep's threshold: the eight-replicate sweep first
    y = np.round(rng.normal(size=n), 1)
    preds = {"a": np.round(y + rng.normal(size=n), 1), "b": np.round(rng.normal(size=n), 1)}
    sw = rng.integers(1, 4, size=n).astype(float) if weighted else None
    kwargs = dict(
        metrics=["kendall_tau", "spearman_rho", "tau_normalized", "root_mean_squared_error"],
        n_bootstrap=37,
        random_state=3,
        sample_weight=sw,
        show_progress=False,
    )
    assert n <= POLICY.level_sweep_above
    with kernels_only():
        before = compare_models(y, preds, **kwargs)
    monkeypatch.setattr(POLICY, "level_sweep_above", 0)
    calls = []
    levels = evaluators._RankEvaluator._evaluate_levels

    def spy(self, block):
        calls.append(block.rows)
        return levels(self, block)

    monkeypatch.setattr(evaluators._RankEvaluator, "_evaluate_levels", spy)
    lane_calls = []
    lane_sums = rl.lane_loss_sums_parallel

    def lane_spy(*args):
        lane_calls.append(args[1])
        return lane_sums(*args)

    monkeypatch.setattr(rl, "lane_loss_sums_parallel", lane_spy)
    count_calls = []
    count_lanes = rl.count_lanes

    def count_spy(counts, width):
        count_calls.append((counts.dtype, counts.shape[0]))
        return count_lanes(counts, width)

    monkeypatch.setattr(rl, "count_lanes", count_spy)
    with kernels_only():
        after = compare_models(y, preds, **kwargs)
    assert sum(calls) >= 37  # the bootstrap (and the check on the full sample) ran on it
    # RMSE's sums from the blocks' shared uint8 lanes: the replicates, then BCa's jackknife
    assert lane_calls == [37, 64, 36]
    # the replicates drawn as uint8 counts, their lanes made from them once
    assert count_calls == [(np.dtype(np.uint8), 37)]
    if weighted:
        np.testing.assert_allclose(after.replicates, before.replicates, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_array_equal(after.replicates, before.replicates)
    np.testing.assert_array_equal(after.values, before.values)


@pytest.mark.parametrize("rows", [32, 45, 64])
@pytest.mark.parametrize("n_losses", [1, 4])
def test_lane_loss_sums_equal_the_loss_kernel_bit_for_bit(rows, n_losses):
    """The loss sums read from the uint8 lanes equal the float64 kernel's bit for bit, with
    fractional case weights, negative losses and an infinite loss on rows some replicates
    leave out (their sums stay finite, as the kernel skips those rows)."""
    from ranklens._compute.kernels.compare import weighted_loss_sums_serial

    rng = np.random.default_rng(rows + n_losses)
    n = 3001
    multiplicity = rng.poisson(1.0, size=(rows, n)).astype(np.float64)
    base_weight = rng.random(n) + 0.25
    losses = rng.normal(size=(n, n_losses)) * 1e3
    losses[17, 0] = np.inf
    multiplicity[: rows // 2, 17] = 0.0  # half the replicates leave the infinite loss out
    multiplicity[rows // 2 :, 17] = 2.0
    batch, fits = rl.batch_weights_small(multiplicity, np.ones(n), rl.LEVEL_BATCH)
    assert fits
    sums, totals = rl.lane_loss_sums_parallel(batch, rows, base_weight, losses)
    want_sums, want_totals = weighted_loss_sums_serial(multiplicity, base_weight, losses)
    np.testing.assert_array_equal(sums, want_sums)
    np.testing.assert_array_equal(totals, want_totals)
    assert np.isfinite(sums[: rows // 2, 0]).all() and np.isinf(sums[rows // 2 :, 0]).all()
    with pytest.raises(ValueError, match="32 lanes"):
        rl.lane_loss_sums_parallel(batch[:, :, :8].copy(), rows, base_weight, losses)


@pytest.mark.parametrize("n", [2, 5, 64, 1000, 1025, 2049, 4099, 70_001])
@pytest.mark.parametrize("chunk", [1, 3, 128, 1 << 20])
def test_compact_split_equals_the_float_split(n, chunk):
    """The integer vector sweep of compact weights (_split_levels_compact, chunks of any length
    whose int32 sums are exact: at n <= 4099 weights up to 255 in chunks of at most 8 rows, up
    to 3 in any chunk; at n = 70,001 up to 15 and 1) gives the float sweep's discordant weights
    and row order, bit for bit. The sizes put levels both above and among the bottom levels
    swept block by block (``_CACHED_LEVELS``), with odd and even counts of levels."""
    rng = np.random.default_rng(n + chunk)
    levels = rl.n_levels(n)
    perms = rl.level_orders(rng.permutation(n), n, levels)
    if n < 5000:
        high = 256 if chunk <= 8 else 4
    else:
        high = 16 if chunk <= 8 else 2
    cur = rng.integers(0, high, (n, 32)).astype(np.uint8)
    cur[:, 5] = 0  # a zero column (padding)
    disc, rows = rl._split_levels(cur.copy(), np.empty_like(cur), perms)
    before = cur.copy()
    disc_c, rows_c = rl._split_levels_compact(cur.copy(), np.empty_like(cur), perms, chunk)
    np.testing.assert_array_equal(disc_c, disc)
    np.testing.assert_array_equal(rows_c, rows)
    np.testing.assert_array_equal(cur, before)


@pytest.mark.parametrize("case_weight", [40.0, 255.0])
def test_large_integer_weights_exact_with_short_chunks_or_float_fallback(case_weight):
    """Compact weights whose products could overflow int32: case weight 40 at n = 40,000 makes
    the chunks 33 rows long; 255 makes even one product overflow-prone (255 x 10.2e6 >
    2^31), so the float sweep runs. Both bit-identical to the one-replicate sweep."""
    rng = np.random.default_rng(17)
    n = 40_000
    y, preds = _data(rng, n, ties=True)
    prepared = _prepared(y, preds)
    multiplicity = np.ones((3, n))
    multiplicity[1] = rng.integers(0, 2, n)
    multiplicity[2, : n // 2] = 0.0
    base_weight = np.full(n, case_weight)
    ref = kc.rank_replicates_serial(multiplicity, base_weight, *prepared)
    np.testing.assert_array_equal(_levels(multiplicity, base_weight, prepared, 3, True), ref)
