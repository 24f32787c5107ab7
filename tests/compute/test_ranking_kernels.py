"""The kernels behind the ranking measures, including the two-stage (sort once, sweep per weight
vector) interface that the bootstrap builds on (ranklens._compute.kernels.ranking)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as ss
from numba import njit

import reference_ranking as ref
from ranklens._compute.kernels import ranking as K
from ranklens._compute.xp import sequence as S
from ranklens._foundation.route import POLICY
from ranklens.ranking import ranking_summary
from reference_ranking import statistics_of_sums


def _weighted(order, y_rank, pred_rank, w):
    """Weighted ``(tau_b, rho, harrell_c)`` from the stage-2 kernel's group sums."""
    return statistics_of_sums(K.weighted_rank_sums(order, y_rank, pred_rank, w))


def test_radix_argsort_is_a_stable_argsort():
    rng = np.random.default_rng(0)
    cases = [
        rng.normal(size=1000),
        rng.integers(-3, 3, 1000).astype(float),
        np.array([0.0, -0.0, 1e308, -1e308, 5e-324, -5e-324, np.inf, -np.inf, 2.0, -2.0]),
        np.array([1.5]),
        rng.lognormal(size=5000) * 1e-300,
    ]
    for x in cases:
        keys, order = K.radix_argsort(x)
        np.testing.assert_array_equal(order, np.argsort(x + 0.0, kind="stable"))
        # keys are equal exactly when the values are
        np.testing.assert_array_equal(keys[1:] == keys[:-1], x[order][1:] == x[order][:-1])


def test_dense_ranks():
    x = np.array([3.0, -0.0, 0.0, 2.0, 3.0, -1.0])
    rank, groups = S.dense_ranks(x)
    np.testing.assert_array_equal(rank, ss.rankdata(x, method="dense") - 1)
    assert groups == 4


def test_prepare_ranks_contract():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 5, 200).astype(float)
    p = rng.integers(0, 7, 200).astype(float)
    order, y_rank, pred_rank = S.prepare_ranks(y, p)
    for arr in (order, y_rank, pred_rank):
        assert arr.dtype == np.int64 and arr.shape == (200,)
    np.testing.assert_array_equal(y_rank, ss.rankdata(y, method="dense") - 1)
    np.testing.assert_array_equal(pred_rank, ss.rankdata(p, method="dense") - 1)
    expected = np.lexsort((np.arange(200), -y, -p))  # pred desc, y desc, row asc
    np.testing.assert_array_equal(order, expected)
    by_y = S.order_by_y_then_pred(order, y_rank)
    np.testing.assert_array_equal(by_y, np.lexsort((np.arange(200), -p, -y)))


def _repeat_reference(y, p, m):
    s = ranking_summary(np.repeat(y, m), np.repeat(p, m))
    return s.kendall_tau, s.spearman_rho, s.tau_normalized


@pytest.mark.parametrize("seed", range(8))
def test_two_stage_integer_weights_equal_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    n = 40
    if seed % 2:
        y, p = rng.normal(size=n), rng.normal(size=n)
    else:
        y, p = rng.integers(0, 6, n).astype(float), rng.integers(0, 6, n).astype(float)
    order, y_rank, pred_rank = S.prepare_ranks(y, p)  # once
    for _ in range(3):  # a few bootstrap-like replicates
        m = rng.multinomial(n, np.ones(n) / n)
        got = _weighted(order, y_rank, pred_rank, m.astype(np.float64))
        np.testing.assert_allclose(got, _repeat_reference(y, p, m), atol=1e-12)


def test_two_stage_zero_weight_drops_the_row():
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 5, 30).astype(float), rng.normal(size=30)
    w = rng.random(30)
    w[[0, 5, 6]] = 0.0
    keep = w > 0
    full = _weighted(*S.prepare_ranks(y, p), w)
    dropped = _weighted(*S.prepare_ranks(y[keep], p[keep]), w[keep])
    np.testing.assert_allclose(full, dropped, atol=1e-12)


def test_two_stage_fractional_weights_match_brute_force():
    rng = np.random.default_rng(4)
    y, p = rng.integers(0, 4, 14).astype(float), rng.integers(0, 4, 14).astype(float)
    w = rng.random(14) + 0.1
    got = _weighted(*S.prepare_ranks(y, p), w)
    expected = (ref.tau_b(y, p, w), ref.spearman_rho(y, p, w), ref.harrell_c(y, p, w))
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_stage_two_is_callable_from_numba():
    @njit
    def replicate_sums(order, y_rank, pred_rank, weights):
        out = np.empty((weights.shape[0], 8))
        for b in range(weights.shape[0]):
            sums = K.weighted_rank_sums(order, y_rank, pred_rank, weights[b])
            for k in range(8):
                out[b, k] = sums[k]
        return out

    def replicate_mean(*args):
        return statistics_of_sums(replicate_sums(*args)).mean(axis=0)

    rng = np.random.default_rng(5)
    y, p = rng.normal(size=25), rng.normal(size=25)
    prepared = S.prepare_ranks(y, p)
    weights = rng.multinomial(25, np.ones(25) / 25, size=4).astype(np.float64)
    got = replicate_mean(*prepared, weights)
    expected = np.mean([_repeat_reference(y, p, m.astype(int)) for m in weights], axis=0)
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_undefined_weighted_values_are_nan():
    y = np.array([1.0, 1.0, 2.0])
    p = np.array([1.0, 2.0, 3.0])
    w = np.array([1.0, 1.0, 0.0])  # all positive weight on one y value
    tau, rho, c = _weighted(*S.prepare_ranks(y, p), w)
    assert np.isnan(tau) and np.isnan(rho) and np.isnan(c)


def test_exact_helpers():
    sizes = np.array([1, 2, 5, 3_000_000, 2_500_000])
    assert K.sum_t3_minus_t(sizes) == sum(int(t) ** 3 - int(t) for t in sizes)
    assert K.limbs_to_int(-3, 5) == -3 * 2**31 + 5


@pytest.mark.parametrize("n_y", [1, 2, 1023, 1025, 5000])
def test_sweep_bucket_boundaries(n_y):
    """Counts are right whether y has one bucket or many (the two-level Fenwick)."""
    rng = np.random.default_rng(n_y)
    n = 2000
    y = rng.integers(0, n_y, n).astype(float)
    p = np.round(y / max(n_y, 1) + rng.normal(size=n), 1)
    order, key, pkey, _, _, n_vals, _ = S.sequence(y, p)
    outs = [np.empty(n, np.int64) for _ in range(5)]
    stats, *_ = K.sweep(
        key, pkey, n_vals, np.ones(1, np.int64), True, K.record_prototype(n, True), order, *outs
    )
    np.testing.assert_array_equal(np.array(outs), ref.per_observation_counts_vectorized(y, p))
    assert stats[0] == outs[0].sum() and stats[1] == outs[1].sum()


def _stage_one(y, p):
    order, key, pkey, y_rank, pred_rank, n_y, n_pred = S.sequence(y, p, need_pred_rank=True)
    return (
        order,
        key,
        pkey,
        y_rank,
        pred_rank,
        n_y,
        n_pred,
        S.dense_ranks(p),
        S.order_by_pred(pred_rank),
        S.order_by_y_then_pred(order, y_rank),
    )


def test_numpy_and_radix_stage_one_agree(monkeypatch):
    """Below POLICY.sort_numpy_below rows stage 1 sorts with NumPy (nothing to compile), above
    with the radix kernels: the same arrays, ties, signed zeros and infinities included."""
    rng = np.random.default_rng(11)
    cases = [
        (rng.normal(size=500), rng.normal(size=500)),
        (rng.integers(0, 4, 700).astype(float), rng.integers(0, 3, 700).astype(float)),
        (rng.integers(0, 40, 900).astype(float), np.round(rng.normal(size=900), 1)),
        (
            np.array([0.0, -0.0, 1.0, np.inf, -np.inf, 0.0]),
            np.array([-0.0, 0.0, 2.0, 2.0, 0.0, 1.0]),
        ),
        (np.array([2.5]), np.array([1.0])),
        (np.ones(40), np.zeros(40)),
        (rng.normal(size=300), np.repeat(rng.normal(size=3), 100)),  # tie groups of 100 rows
    ]
    for y, p in cases:
        monkeypatch.setattr(POLICY, "sort_numpy_below", 0)
        radix = _stage_one(y, p)
        monkeypatch.setattr(POLICY, "sort_numpy_below", 1 << 40)
        monkeypatch.setattr(POLICY, "prefer_compiled", False)  # NumPy though the kernels are ready
        small = _stage_one(y, p)
        monkeypatch.setattr(POLICY, "prefer_compiled", True)
        for a, b in zip(radix, small):
            if isinstance(a, tuple):
                np.testing.assert_array_equal(a[0], b[0])
                assert a[1] == b[1]
            elif isinstance(a, np.ndarray):
                assert a.dtype == b.dtype == np.int64
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b
        # and both are the definition: prediction descending, y descending, row ascending
        expected = np.lexsort((np.arange(y.size), -y, -p))
        np.testing.assert_array_equal(small[0], expected)


@pytest.mark.parametrize("n", [0, 1, 2, 63, 64, 65, 1000, 100_003])
@pytest.mark.parametrize("kind", ["continuous", "ties", "constant", "signed_zeros", "extremes"])
def test_parallel_radix_argsort_equals_the_serial_one(n, kind):
    """The radix argsort with its passes in parallel chunks gives the serial one's keys and
    order (a stable argsort): sizes around the chunk count, ties, one value, both zeros (one
    tie group), infinities and the extreme finite values."""
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    if kind == "ties":
        x = np.round(x, 1)
    elif kind == "constant":
        x = np.full(n, 3.0)
    elif kind == "signed_zeros":
        x = np.where(rng.random(n) < 0.5, -0.0, 0.0)
    elif kind == "extremes":
        x = rng.choice([-np.inf, np.inf, -1.7e308, 1.7e308, 5e-324, -5e-324, 0.0, 1.0], n)
    keys, order = K.radix_argsort(x.copy())
    keys_p, order_p = K.radix_argsort_parallel(x.copy())
    np.testing.assert_array_equal(keys_p, keys)
    np.testing.assert_array_equal(order_p, order)
    if kind != "signed_zeros":  # (np.argsort puts -0.0 and 0.0 apart in no order; ties here)
        np.testing.assert_array_equal(order_p, np.argsort(x, kind="stable"))


def test_argsort_keys_takes_the_parallel_sort_from_its_threshold(monkeypatch):
    calls = []
    parallel = K.radix_argsort_parallel
    monkeypatch.setattr(K, "radix_argsort_parallel", lambda x: calls.append(x.size) or parallel(x))
    monkeypatch.setattr(POLICY, "parallel_sort_from", 500)
    x = np.random.default_rng(0).normal(size=600)
    S.argsort_keys(x)
    S.argsort_keys(x[:400])
    import numba

    assert calls == ([600] if numba.get_num_threads() > 1 else [])
