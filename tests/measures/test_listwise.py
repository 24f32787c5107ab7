"""NDCG for continuous targets and the rank-distance NDCG of Payne, Li & Qin (2016), exact form."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score as sk_ndcg

from ranklens._compute.kernels.listwise import span_discount, sum_discounts
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.listwise import ndcg_by_group, ndcg_score, rank_distance_ndcg
from ranklens.metrics import get_metric
from reference_listwise import (
    ndcg_exact_exponential,
    ndcg_tie_orders,
    rank_distance_ndcg_exact,
    repeat_rows,
)

# ------------------------------------------------- Payne, Li & Qin (2016): rank-distance NDCG

PUBLISHED_EXAMPLES = [
    ([1, 2, 4, 3, 5, 6, 7, 8, 9, 10], 0.897583),
    ([1, 2, 3, 4, 5, 6, 7, 10, 9, 8], 0.900211),
    ([1, 2, 3, 4, 50, 6, 7, 8, 9, 10], 0.914857),
]


@pytest.mark.parametrize(("pred_rank", "expected"), PUBLISHED_EXAMPLES)
def test_payne_li_qin_2016_examples(pred_rank, expected):
    true_rank = np.arange(1, 11)
    got = rank_distance_ndcg(true_rank, pred_rank, n=20)
    assert round(got, 6) == expected
    assert got == pytest.approx(rank_distance_ndcg_exact(true_rank, pred_rank, 20), rel=1e-13)


def test_payne_li_qin_2016_example_terms():
    # The text's summands with the "- 1" it drops restored (an erratum): 262143.5 (text: 262144),
    # 225798.12 (text: 225798.6) and 82696.91 (text agrees); they are the DCG terms of the
    # swapped positions, so NDCG = 1 - (their loss) / IDCG reproduces the first example.
    assert (2**19 - 1) / math.log2(4) == 262143.5
    assert (2**19 - 1) / math.log2(5) == pytest.approx(225798.12, abs=0.005)
    assert (2**18 - 1) / math.log2(9) == pytest.approx(82696.91, abs=0.005)
    terms = [(2**20 - 1) / math.log2(i + 1) for i in range(1, 11)]
    dcg = sum(terms) - terms[2] - terms[3] + 262143.5 + (2**19 - 1) / math.log2(5)
    assert dcg / sum(terms) == pytest.approx(
        rank_distance_ndcg(range(1, 11), PUBLISHED_EXAMPLES[0][0], n=20), rel=1e-13
    )


@pytest.mark.parametrize("n", [20, 1000, 1100, 5000])
def test_rank_distance_exact_for_large_n(rng, n):
    # 2^n overflows float64 for n > 1023; the stable form must agree with exact integer gains.
    p = 15
    true_rank = rng.permutation(np.arange(1, p + 1))
    pred_rank = np.clip(true_rank + rng.integers(-3, 4, size=p), 1, None)
    got = rank_distance_ndcg(true_rank, pred_rank, n=n)
    assert got == pytest.approx(rank_distance_ndcg_exact(true_rank, pred_rank, n), rel=1e-12)
    assert 0 <= got <= 1


def test_rank_distance_k_and_properties():
    t = np.arange(1, 11)
    p = np.array([1, 2, 3, 4, 5, 6, 7, 10, 9, 8])
    assert rank_distance_ndcg(t, t, n=20) == 1.0
    assert rank_distance_ndcg(t, p, n=20, k=7) == 1.0  # errors only below position 7
    assert rank_distance_ndcg(t, p, n=20, k=9) == pytest.approx(
        rank_distance_ndcg_exact(t, p, 20, k=9)
    )
    # the list is taken in true-rank order whatever order the rows come in
    perm = np.array([3, 0, 9, 1, 2, 8, 4, 5, 7, 6])
    assert rank_distance_ndcg(t[perm], p[perm], n=20) == pytest.approx(
        rank_distance_ndcg(t, p, n=20)
    )
    # a prediction beyond n has relevance 0: every distance >= n scores the same
    a = rank_distance_ndcg(t, [1, 2, 3, 4, 25, 6, 7, 8, 9, 10], n=20)
    b = rank_distance_ndcg(t, [1, 2, 3, 4, 500, 6, 7, 8, 9, 10], n=20)
    assert a == b


@pytest.mark.parametrize(
    ("args", "kwargs", "pattern"),
    [
        (([1, 2], [1, 2]), {"n": 1}, "true_rank lists 2 items but n = 1"),
        (([0, 2], [1, 2]), {"n": 5}, "true_rank must be >= 1; got 0.0 at position 0"),
        (([1, 2], [1, 0]), {"n": 5}, "pred_rank must be >= 1"),
        (([1, 7], [1, 2]), {"n": 5}, "true_rank must be <= n = 5"),
        (([1, 1], [1, 2]), {"n": 5}, "true_rank must not repeat"),
        (([1, 2], [1, 2, 3]), {"n": 5}, "same length"),
        (([1, 2], [1, np.nan]), {"n": 5}, "pred_rank contains 1 NaN"),
        (([1, 2], [1, 2]), {"n": 0}, "n must be an integer >= 1"),
        (([1, 2], [1, 2]), {"n": 5, "k": 0}, "k must be an integer >= 1"),
    ],
)
def test_rank_distance_bad_input(args, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        rank_distance_ndcg(*args, **kwargs)


# ------------------------------------------------------------------------- NDCG of one ranking


def _tied_data(rng, n, levels=4, pred_levels=5):
    y = rng.integers(0, levels, size=n).astype(float)
    y[0] = max(y[0], 1.0)
    pred = rng.integers(0, pred_levels, size=n).astype(float)
    return y, pred


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_agrees_with_sklearn_with_ties(seed, k):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    y, pred = _tied_data(rng, n)
    y = y * rng.uniform(0.5, 2.0, size=n)  # continuous gains
    expected = sk_ndcg(y[None, :], pred[None, :], k=k)
    assert ndcg_score(y, pred, k=k) == pytest.approx(expected, rel=1e-12)
    # exponential gains are linear gains of 2^y - 1
    expected_exp = sk_ndcg((2.0**y - 1)[None, :], pred[None, :], k=k)
    assert ndcg_score(y, pred, k=k, gains="exponential") == pytest.approx(expected_exp, rel=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_tie_average_is_mean_over_tie_orders(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 8))
    y, pred = _tied_data(rng, n, pred_levels=3)
    for k in (None, 2):
        for gains in ("linear", "exponential"):
            expected = ndcg_tie_orders(y, pred, k=k, exponential=gains == "exponential")
            got = ndcg_score(y, pred, k=k, gains=gains)
            assert got == pytest.approx(expected, rel=1e-12)


def test_top_k_shortcut_matches_full_computation(rng):
    n = 2000
    y, pred = _tied_data(rng, n, levels=6, pred_levels=40)
    for k in (1, 5, 37, 100):  # k < n/4: the O(n) selection path, with ties at the cut
        assert ndcg_score(y, pred, k=k) == pytest.approx(
            sk_ndcg(y[None, :], pred[None, :], k=k), rel=1e-12
        )
        full = ndcg_score(y, pred, k=k, sample_weight=np.ones(n))  # the general path
        assert ndcg_score(y, pred, k=k) == pytest.approx(full, rel=1e-12)


def test_large_tie_blocks_use_exact_discount_sums(rng):
    n = 200_000
    y = rng.exponential(size=n)
    pred = np.round(y + rng.normal(size=n), 0)  # ~10 distinct values: blocks of thousands
    for k in (None, 50_000):
        assert ndcg_score(y, pred, k=k) == pytest.approx(
            sk_ndcg(y[None, :], pred[None, :], k=k), rel=1e-11
        )


def test_discount_sums_against_direct_summation():
    for a, b in [(1, 1), (1, 255), (1, 256), (1, 300), (200, 5000), (300, 301), (10**5, 10**6)]:
        direct = math.fsum(1 / np.log2(np.arange(a, b + 1, dtype=float) + 1))
        assert sum_discounts(a, b) == pytest.approx(direct, rel=1e-13)
    assert sum_discounts(5, 4) == 0.0
    # fractional stretches: D(ceil t) integrated over (start, end], truncated at k
    assert span_discount(0.5, 2.5, math.inf) == pytest.approx(0.5 + 1 / math.log2(3) + 0.25)
    assert span_discount(0.5, 2.5, 2.0) == pytest.approx(0.5 + 1 / math.log2(3))
    assert span_discount(3.0, 3.0, math.inf) == 0.0


@given(
    st.lists(st.integers(0, 4), min_size=2, max_size=10),
    st.lists(st.integers(0, 3), min_size=10, max_size=10),
    st.lists(st.integers(0, 4), min_size=10, max_size=10),
    st.sampled_from([None, 1, 3]),
    st.sampled_from(["linear", "exponential"]),
)
def test_integer_weights_equal_repeated_rows(y, pred, counts, k, gains):
    y = np.array(y, dtype=float)
    pred = np.array(pred[: y.size], dtype=float)
    counts = np.array(counts[: y.size])
    if np.sum(counts * y) == 0:
        y[0], counts[0] = 1.0, 1
    y_rep, pred_rep = repeat_rows(y, pred, counts)
    if y_rep.size < 2:
        y_rep, pred_rep = np.r_[y_rep, 0.0], np.r_[pred_rep, -1.0]
        y, pred, counts = np.r_[y, 0.0], np.r_[pred, -1.0], np.r_[counts, 1]
    expected = ndcg_score(y_rep, pred_rep, k=k, gains=gains)
    got = ndcg_score(y, pred, k=k, gains=gains, sample_weight=counts)
    assert got == pytest.approx(expected, rel=1e-12)


def test_large_weights_equal_repeated_rows(rng):
    # weights of hundreds put whole blocks on the Euler-Maclaurin path
    n = 40
    y, pred = _tied_data(rng, n, levels=5, pred_levels=8)
    counts = rng.integers(100, 900, size=n)
    y_rep, pred_rep = repeat_rows(y, pred, counts)
    for k in (None, 3000):
        assert ndcg_score(y, pred, k=k, sample_weight=counts) == pytest.approx(
            sk_ndcg(y_rep[None, :], pred_rep[None, :], k=k), rel=1e-12
        )


def test_fractional_weights_are_continuous(rng):
    y, pred = _tied_data(rng, 30)
    w = rng.integers(1, 4, size=30).astype(float)
    base = ndcg_score(y, pred, sample_weight=w)
    assert ndcg_score(y, pred, sample_weight=w + 1e-9) == pytest.approx(base, abs=1e-7)
    assert 0 <= ndcg_score(y, pred, sample_weight=w * 0.37) <= 1


@given(
    st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 100)), min_size=2, max_size=20),
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=20, max_size=20),
    st.floats(0.01, 1000),
)
def test_linear_gains_are_scale_free_and_bounded(y, pred, c):
    y = np.array(y)
    pred = np.array(pred[: y.size])
    if y.max() == 0:
        y[0] = 1.0
    value = ndcg_score(y, pred)
    assert -1e-12 <= value <= 1 + 1e-12
    assert ndcg_score(c * y, pred) == pytest.approx(value, rel=1e-9)
    # an order-preserving transform of the prediction (exact in floating point) changes nothing
    assert ndcg_score(y, 4 * pred) == pytest.approx(value, rel=1e-12)
    assert ndcg_score(y, y) == pytest.approx(1.0)


def test_exponential_gains_do_not_overflow():
    y = [2000, 1999, 3, 0, 1500]
    pred = [5.0, 4.0, 3.0, 2.0, 1.0]
    got = ndcg_score(y, pred, gains="exponential")
    assert got == pytest.approx(ndcg_exact_exponential(y, pred), rel=1e-13)
    assert math.isfinite(got)


def test_registry_entry():
    spec = get_metric("ndcg_score")
    assert spec.family == "listwise" and spec.higher_is_better and spec.inputs == "point"
    assert spec.supports_sample_weight
    assert spec([3.0, 2.0, 0.0], [0.1, 0.3, 0.2]) == ndcg_score([3.0, 2.0, 0.0], [0.1, 0.3, 0.2])


def test_array_likes():
    y, p = [3.0, 2.0, 0.0, 1.0], [0.1, 0.3, 0.2, 0.2]
    expected = ndcg_score(y, p)
    assert ndcg_score(pd.Series(y), pl.Series(p)) == expected
    assert ndcg_score(np.array(y, dtype=np.int32), tuple(p)) == expected


def test_undefined_when_nothing_is_relevant():
    with pytest.warns(UndefinedMetricWarning, match="every y_true is 0"):
        assert math.isnan(ndcg_score([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]))


@pytest.mark.parametrize(
    ("args", "kwargs", "pattern"),
    [
        (([1.0, -0.5, 2.0], [1, 2, 3]), {}, r"y_true must be non-negative.*-0.5 at position 1"),
        (([1.0, np.nan], [1, 2]), {}, r"y_true contains 1 NaN"),
        (([1.0, 2.0], [1, np.inf]), {}, r"y_pred contains 1 infinite"),
        (([1.0, 2.0], [1, 2, 3]), {}, r"same length; got 2 and 3"),
        (([1.0], [1.0]), {}, r"y_true has 1 observation\(s\); at least 2"),
        ((["a", "b"], [1, 2]), {}, r"y_true must be numeric"),
        (([1.0, 2.0], [1, 2]), {"k": 0}, r"k must be an integer >= 1; got 0"),
        (([1.0, 2.0], [1, 2]), {"k": 1.5}, r"k must be an integer"),
        (([1.0, 2.0], [1, 2]), {"gains": "log"}, r"gains must be one of"),
        (([1.0, 2.0], [1, 2]), {"sample_weight": [1, -1]}, r"sample_weight must be non-negative"),
        (([[1.0, 2.0], [3, 4]], [[1, 2], [3, 4]]), {}, r"y_true must be 1-D"),
    ],
)
def test_bad_input(args, kwargs, pattern):
    error = TypeError if "numeric" in pattern else ValueError
    with pytest.raises(error, match=pattern):
        ndcg_score(*args, **kwargs)


def test_constant_prediction_is_the_mean_gain_order():
    # all ties: every position gets the mean gain
    y = np.array([3.0, 0.0, 1.0])
    got = ndcg_score(y, [1.0, 1.0, 1.0])
    d = 1 / np.log2(np.arange(2, 5))
    assert got == pytest.approx(y.mean() * d.sum() / np.sum(np.sort(y)[::-1] * d))


# ----------------------------------------------------------------------------------- grouped


def test_grouped_equals_per_group_loop(rng):
    n = 500
    groups = rng.choice(["q1", "q2", "q3", "q4", "q5", "q6"], size=n)
    y, pred = _tied_data(rng, n)
    w = rng.integers(0, 3, size=n).astype(float)
    for k in (None, 5):
        for gains in ("linear", "exponential"):
            res = ndcg_by_group(y, pred, groups, k=k, gains=gains, sample_weight=w)
            np.testing.assert_array_equal(res.groups, np.unique(groups))
            for label, score, size in zip(res.groups, res.scores, res.sizes, strict=True):
                m = groups == label
                assert size == m.sum()
                expected = ndcg_score(y[m], pred[m], k=k, gains=gains, sample_weight=w[m])
                assert score == pytest.approx(expected, rel=1e-12)
            assert res.mean == pytest.approx(res.scores.mean())
    json.dumps(res.to_dict())


def test_grouped_matches_sklearn_two_dimensional(rng):
    y, pred = _tied_data(rng, 7 * 12)
    y2, p2 = y.reshape(7, 12), pred.reshape(7, 12)
    y2[:, 0] = np.maximum(y2[:, 0], 1)  # every query has a relevant item
    res = ndcg_by_group(y2.ravel(), p2.ravel(), np.repeat(np.arange(7), 12), k=4)
    assert res.mean == pytest.approx(sk_ndcg(y2, p2, k=4), rel=1e-12)
    assert res.n_undefined == 0 and res.k == 4 and res.gains == "linear"


def test_grouped_undefined_and_singleton_groups():
    y = [0.0, 0.0, 2.0, 1.0, 5.0]
    pred = [1.0, 2.0, 1.0, 2.0, 0.0]
    groups = pd.Series([10, 10, 20, 20, 30])
    with pytest.warns(UndefinedMetricWarning, match="1 of 3 group"):
        res = ndcg_by_group(y, pred, groups)
    assert math.isnan(res.scores[0]) and res.scores[2] == 1.0
    assert res.n_undefined == 1
    assert res.mean == pytest.approx(np.mean(res.scores[1:]))
    np.testing.assert_array_equal(res.sizes, [2, 2, 1])


def test_grouped_bad_input():
    with pytest.raises(ValueError, match="groups has length 2 but the data have length 3"):
        ndcg_by_group([1.0, 2.0, 3.0], [1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="groups contains missing labels"):
        ndcg_by_group([1.0, 2.0, 3.0], [1, 2, 3], ["a", None, "b"])
    with pytest.raises(ValueError, match="groups contains NaN labels"):
        ndcg_by_group([1.0, 2.0, 3.0], [1, 2, 3], [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="y_true must be non-negative"):
        ndcg_by_group([1.0, -2.0, 3.0], [1, 2, 3], [1, 1, 2])


def test_grouped_polars_string_labels():
    res = ndcg_by_group(
        pl.Series([3.0, 1.0, 0.0, 2.0]), [0.1, 0.2, 0.3, 0.4], pl.Series(["x", "x", "y", "y"])
    )
    np.testing.assert_array_equal(res.groups, ["x", "y"])
    assert res.scores[1] == 1.0
