"""The vector midrank passes of the level-order rank sweep (ranklens._compute.kernels.rank_levels).

Compact (uint8) batches run the prediction groups' pass and the y / joint groups' pass as LLVM
vector code (one vector of 32 lanes per group); they must give the float64 passes' sums bit for
bit, and the whole sweep the one-replicate sweep's replicates
(ranklens._compute.kernels.compare.rank_replicates, the reference of
tests/compute/test_rank_levels.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from ranklens._compute.kernels import compare as kc
from ranklens._compute.kernels import rank_levels as rl
from ranklens._compute.xp.sequence import order_by_y_then_pred, prepare_ranks

_SIZES = [1, 2, 3, 5, 17, 64, 257, 1000, 4099]


def _groups(rng, n, n_groups):
    """Sorted group ids of n rows (dense, every group present) and their count."""
    n_groups = max(1, min(n, n_groups))
    cuts = np.sort(rng.choice(np.arange(1, n), n_groups - 1, replace=False)) if n > 1 else []
    ids = np.zeros(n, np.int64)
    for c in cuts:
        ids[c:] += 1
    return ids, n_groups


def _weights(rng, n, w_max):
    w = rng.integers(0, w_max + 1, (n, 32)).astype(np.uint8)
    w[:, 7] = 0  # a zero lane (the padding of a short batch)
    if n > 2:
        w[n // 2] = 0  # a row no replicate draws
    return w


@pytest.mark.parametrize("n", _SIZES)
@pytest.mark.parametrize("tie_share", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("w_max", [1, 4, 255])
def test_prediction_pass_vector_equals_float(n, tie_share, w_max):
    rng = np.random.default_rng(1000 * n + w_max + int(10 * tie_share))
    # tie_share 1.0: every prediction tied (one group); 0.0: no ties
    n_groups = 1 if tie_share == 1.0 else (n if tie_share == 0.0 else max(1, n // 3))
    p_top, n_pred = _groups(rng, n, n_groups)
    cur = _weights(rng, n, w_max)
    half = 0.5 * cur.sum(axis=0).astype(np.float64)
    before = cur.copy()
    pred_mid, sum_p2, var_a = rl._pred_groups(cur, p_top.astype(np.int32), n_pred, half)
    mid2 = np.empty((n_pred, 32), np.int32)
    sum_p2_v, var_a_v = rl._pred_groups_vector(cur, p_top.astype(np.int32), n_pred, half, mid2)
    np.testing.assert_array_equal(sum_p2_v, sum_p2)
    np.testing.assert_array_equal(var_a_v, var_a)
    np.testing.assert_array_equal(0.5 * mid2.astype(np.float64), pred_mid)
    np.testing.assert_array_equal(cur, before)


@pytest.mark.parametrize("n", _SIZES)
@pytest.mark.parametrize("ties", ["none", "some", "all_y", "all_pred", "all"])
@pytest.mark.parametrize("w_max", [1, 255])
def test_joint_pass_vector_equals_float(n, ties, w_max):
    rng = np.random.default_rng(7 * n + w_max + len(ties))
    n_y = {"none": n, "some": n // 4 + 1, "all_y": 1, "all_pred": n, "all": 1}[ties]
    y_seq, _ = _groups(rng, n, n_y)
    if ties in ("all_pred", "all"):
        p_seq = np.zeros(n, np.int64)
    else:
        p_seq = rng.integers(0, max(1, n // 2 if ties == "some" else n), n)
        order = np.lexsort((p_seq, y_seq))  # positions: by y, ties by prediction
        p_seq = p_seq[order]
    n_pred = int(p_seq.max()) + 1
    ws = _weights(rng, n, w_max)
    total = ws.sum(axis=0).astype(np.float64)
    half = 0.5 * total
    mid2 = rng.integers(-int(total.max()), int(total.max()) + 1, (n_pred, 32)).astype(np.int32)
    pred_mid = 0.5 * mid2.astype(np.float64)
    before = ws.copy()
    ref = rl._joint_groups(ws, y_seq, p_seq, pred_mid, half)
    out = rl._joint_groups_vector(ws, y_seq, p_seq, mid2, half)
    for a, b in zip(out, ref, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ws, before)


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


@pytest.mark.parametrize("n", [2, 3, 17, 300, 2049])
@pytest.mark.parametrize("ties", ["none", "some", "all_y", "all_pred"])
@pytest.mark.parametrize("width", [5, 32])
def test_compact_sweep_bit_identical_to_one_replicate_sweep(n, ties, width):
    """The whole level sweep of compact batches (vector passes; in fresh arrays and in buffers
    kept from an earlier call) and of float64 batches (the float passes) against the
    one-replicate sweep, bit for bit: bootstrap counts, counts times integer case weights, an
    empty and a one-row replicate."""
    rng = np.random.default_rng(31 * n + width + len(ties))
    y = rng.normal(size=n)
    preds = np.stack([y + rng.normal(size=n), rng.normal(size=n)])
    if ties == "some":
        y, preds = np.round(y, 0), np.round(preds, 0)
    elif ties == "all_y":
        y = np.zeros(n)
    elif ties == "all_pred":
        preds[1] = 1.0
    prepared = _prepared(y, preds)
    top_rows, p_top, perms = rl.level_plan(prepared[0], prepared[2], prepared[3])
    rows = width + 3
    multiplicity = np.stack(
        [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(rows)]
    ).astype(np.float64)
    multiplicity[0] = 0.0
    multiplicity[1] = 0.0
    multiplicity[1, 0] = 2.0
    for base_weight in (np.ones(n), rng.integers(0, 4, n).astype(np.float64)):
        ref = kc.rank_replicates_serial(multiplicity, base_weight, *prepared)
        small, fits = rl.batch_weights_small(multiplicity, base_weight, width)
        assert fits
        wide = rl.batch_weights_float(multiplicity, base_weight, width)
        for weights in (small, wide):
            args = (weights, rows, top_rows, p_top, perms, *prepared[1:])
            np.testing.assert_array_equal(rl.level_statistics_serial(*args), ref)
            np.testing.assert_array_equal(rl.level_statistics_parallel(*args), ref)
        # compact tasks in kept buffers: full of stale bytes, then used a second time
        tasks = small.shape[0] * preds.shape[0]
        scratch = rl.level_scratch(tasks, n, int(prepared[3].max()))
        scratch[0].fill(0xAB)
        scratch[1].fill(-7)
        args = (small, rows, top_rows, p_top, perms, *prepared[1:], scratch)
        for _ in range(2):
            np.testing.assert_array_equal(rl.level_statistics_serial(*args), ref)
            np.testing.assert_array_equal(rl.level_statistics_parallel(*args), ref)


@pytest.mark.parametrize("n", [1, 2, 3, 1000, 70_000])
def test_multiplicities_counted_in_int32_equal_the_numpy_counts(n):
    """The bootstrap's counts (kernel rows counted in int32, then converted) equal NumPy's
    bincount of the same draws, for both drivers: random draws, one index drawn every time,
    every index once, and no row at all."""
    from ranklens._inference.resampling import multiplicities_numpy

    rng = np.random.default_rng(n)
    indices = rng.integers(0, n, (5, n)).astype(np.int32)
    indices[1] = n - 1
    indices[2] = np.arange(n)
    for block in (indices, indices[:0], indices.astype(np.int64)):
        want = multiplicities_numpy(block, n)
        for kernel in (kc.multiplicities_serial, kc.multiplicities_parallel):
            got = kernel(block, n)
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 3, 1000, 70_000])
def test_small_multiplicities_equal_the_float_counts(n):
    """The compact counts (uint8, both drivers) equal the float64 counts of the same draws and
    say they fit; a count of 255 fits, one of 256 (it wraps to 0 in uint8) does not."""
    rng = np.random.default_rng(n)
    indices = rng.integers(0, n, (5, n)).astype(np.int32)
    indices[2] = np.arange(n)
    for kernel in (kc.small_multiplicities_serial, kc.small_multiplicities_parallel):
        counts, fits = kernel(indices, n)
        assert counts.dtype == np.uint8 and fits
        np.testing.assert_array_equal(counts, kc.multiplicities_serial(indices, n))
        empty, fits = kernel(indices[:0], n)
        assert empty.shape == (0, n) and fits
    for repeats, fit in ((255, True), (256, False), (511, False)):
        draws = np.zeros((3, repeats), np.int32)  # row 0 drawn `repeats` times in every row
        for kernel in (kc.small_multiplicities_serial, kc.small_multiplicities_parallel):
            counts, fits = kernel(draws, 2)
            assert fits is fit
            if fit:
                assert (counts[:, 0] == 255).all()


@pytest.mark.parametrize("rows", [32, 45, 64])
def test_count_lanes_equal_the_batches_of_the_float_counts(rows):
    """The lanes made from uint8 counts are the uint8 batches of the same counts as float64
    (zero padding of the last batch included)."""
    rng = np.random.default_rng(rows)
    n = 5000
    indices = rng.integers(0, n, (rows, n)).astype(np.int32)
    counts, fits = kc.small_multiplicities_parallel(indices, n)
    assert fits
    want, fits = rl.batch_weights_small(counts.astype(np.float64), np.ones(n), rl.LEVEL_BATCH)
    assert fits
    got = rl.count_lanes(counts, rl.LEVEL_BATCH)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [40_000, 100_003])
def test_compact_bootstrap_blocks_are_the_same_draws(n):
    """bootstrap_blocks with ``compact`` gives uint8 counts equal to the float64 blocks of the
    same generator, block for block; and the weight per jackknife group of a compact block
    equals the float64 block's bit for bit."""
    from ranklens._inference.resampling import bootstrap_blocks, group_counts, kernels_only

    with kernels_only():
        wide = list(bootstrap_blocks(np.random.default_rng(7), n, 40))
        compact = list(bootstrap_blocks(np.random.default_rng(7), n, 40, compact=True))
    assert [b.shape for b in wide] == [b.shape for b in compact]
    groups = np.random.default_rng(1).permutation(np.arange(n) % 100)
    for w, c in zip(wide, compact, strict=True):
        assert w.dtype == np.float64 and c.dtype == np.uint8
        np.testing.assert_array_equal(c, w)
        with kernels_only():
            np.testing.assert_array_equal(
                group_counts(c, groups, 100), group_counts(w, groups, 100)
            )


@pytest.mark.parametrize("rows", [32, 45])
def test_group_lane_sums_equal_the_group_sums_of_the_counts(rows):
    """BCa's weight per jackknife group read from the uint8 lanes equals the row kernel's on
    the same counts (and np.bincount), bit for bit; groups of unequal sizes."""
    from ranklens._compute.kernels import resampling as kr

    rng = np.random.default_rng(rows)
    n, n_groups = 5003, 7
    indices = rng.integers(0, n, (rows, n)).astype(np.int32)
    counts, fits = kc.small_multiplicities_parallel(indices, n)
    assert fits
    groups = rng.integers(0, n_groups, n)
    lanes = rl.count_lanes(counts, rl.LEVEL_BATCH)
    got = rl.group_lane_sums(lanes, rows, groups, n_groups)
    want = kr.group_weight_sums_serial(counts, groups, n_groups)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        got, [np.bincount(groups, weights=c, minlength=n_groups) for c in counts]
    )


def test_bca_regression_from_the_lanes_equals_the_row_sums(monkeypatch):
    """compare_models with BCa's acceleration from the regression on the weight per group (a
    million rows and more; forced here at 40,000): the groups' weights from the block's lanes
    give the intervals of the row kernel, bit for bit."""
    import ranklens._inference.resampling as resampling
    import ranklens.compare as cmp
    from ranklens.compare import compare_models

    rng = np.random.default_rng(8)
    n = 40_000
    y = rng.normal(size=n)
    preds = {"a": y + rng.normal(size=n), "b": rng.normal(size=n)}
    monkeypatch.setattr(resampling, "BCA_JACKKNIFE_BELOW", 0)
    kwargs = dict(
        metrics=["kendall_tau", "root_mean_squared_error"],
        n_bootstrap=240,
        random_state=2,
        show_progress=False,
        interval="bca",
    )
    lane_sums = []
    original = rl.group_lane_sums

    def spy(*args):
        lane_sums.append(args[1])
        return original(*args)

    monkeypatch.setattr(rl, "group_lane_sums", spy)
    with resampling.kernels_only():
        from_lanes = compare_models(y, preds, **kwargs)
    assert lane_sums and from_lanes.interval == "bca"
    monkeypatch.setattr(
        cmp, "block_group_counts", lambda block, g, k: resampling.group_counts(block.weights, g, k)
    )
    with resampling.kernels_only():
        from_rows = compare_models(y, preds, **kwargs)
    for field in ("ci_lower", "ci_upper", "difference_ci_lower", "difference_ci_upper"):
        np.testing.assert_array_equal(getattr(from_lanes, field), getattr(from_rows, field))
