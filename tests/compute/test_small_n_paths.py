"""Below ``POLICY.sort_numpy_below`` rows the sorting and grouping steps of the curve and ranking
kernels run in NumPy (nothing to compile on a first call); from there on, the numba kernels. Both
paths must give the same arrays bit for bit, on data with ties, signed zeros and infinities."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens._compute.kernels import curves as C
from ranklens._compute.xp import ranked_keys as X
from ranklens._compute.xp.compiled import use_kernel
from ranklens._foundation.route import POLICY


def _cases():
    rng = np.random.default_rng(3)
    return [
        rng.normal(size=400),
        rng.integers(-3, 4, 600).astype(float),
        np.array([0.0, -0.0, 1e308, -1e308, 5e-324, -5e-324, np.inf, -np.inf, 2.0, -2.0, 0.0]),
        np.array([1.5]),
        np.empty(0),
        np.round(rng.lognormal(size=500), 1),
    ]


def _both(monkeypatch, fn):
    """``fn()`` with the kernels (threshold 0) and with NumPy (threshold above any n)."""
    monkeypatch.setattr(POLICY, "sort_numpy_below", 0)
    monkeypatch.setattr(POLICY, "prefer_compiled", True)
    kernel = fn()
    monkeypatch.setattr(POLICY, "sort_numpy_below", 1 << 40)
    monkeypatch.setattr(POLICY, "prefer_compiled", False)  # NumPy though the kernels are ready
    return kernel, fn()


def _assert_identical(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _assert_identical(u, v)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    # bit patterns: -0.0 against 0.0 or one NaN payload against another would be a difference
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))


def test_keys_sort_and_decode(monkeypatch):
    rng = np.random.default_rng(4)
    for x in _cases():
        keys = _both(monkeypatch, lambda: X.descending_keys(x))
        _assert_identical(*keys)
        # the keys' order is the values' descending order; ties exactly where values are equal
        order = np.argsort(keys[1], kind="stable")
        assert np.all(np.diff(x[order]) <= 0)
        payload_f = rng.normal(size=x.size)
        payload_i = np.arange(x.size, dtype=np.int32)
        for payload, carry in ((payload_f, True), (payload_i, True), (payload_f, False)):
            got = _both(monkeypatch, lambda: X.radix_sort(X.descending_keys(x), payload, carry))
            _assert_identical(*got)
        _assert_identical(*_both(monkeypatch, lambda: X.decode_keys(X.descending_keys(x))))
        _assert_identical(*_both(monkeypatch, lambda: X.ranked_order(x)))
        # decoding gives the values back (-0.0 as +0.0)
        np.testing.assert_array_equal(X.decode_keys(X.descending_keys(x)), x + 0.0)


def test_group_sums(monkeypatch):
    rng = np.random.default_rng(5)
    for x in _cases():
        response = rng.uniform(size=x.size)
        weight = rng.uniform(0.1, 3.0, size=x.size)

        def unweighted():
            keys, r = X.radix_sort(X.descending_keys(x), response, True)
            return X.group_sums_sorted(keys, r)

        def weighted():
            order, keys = X.ranked_order(x)
            return X.group_sums_indexed(keys, order, response, weight)

        _assert_identical(*_both(monkeypatch, unweighted))
        _assert_identical(*_both(monkeypatch, weighted))
        # against the definition: one row per distinct value, cumulative sums to its end
        thr, cw, cr, _ = weighted()
        values = np.unique(x)[::-1]
        assert thr.size == values.size + 1 and np.isposinf(thr.view(np.float64)[0])
        for g, v in enumerate(values, start=1):
            upto = x >= v
            assert cw[g] == pytest.approx(weight[upto].sum(), rel=1e-12)
            assert cr[g] == pytest.approx((weight * response)[upto].sum(), rel=1e-12)


def test_public_curves_and_measures_agree(monkeypatch):
    """The measures built on these steps give identical numbers on both paths."""
    from ranklens.listwise import ndcg_score
    from ranklens.ranking import concordance_profile, ranking_summary
    from ranklens.targeting import gain_curve, roc_curve

    rng = np.random.default_rng(6)
    y = np.round(rng.lognormal(size=300), 1)
    p = np.round(np.log(y + 1) + rng.normal(size=300), 1)
    w = rng.uniform(0.5, 2.0, size=300)
    calls = [
        lambda: ranking_summary(y, p).to_dict(),
        lambda: concordance_profile(y, p).to_dict(),
        lambda: roc_curve(y, p).to_dict(),
        lambda: roc_curve(y, p, sample_weight=w).to_dict(),
        lambda: gain_curve(y, p, sample_weight=w).to_dict(),
        lambda: ndcg_score(y, p),
    ]
    for call in calls:
        kernel, small = _both(monkeypatch, call)
        assert repr(kernel) == repr(small)


def test_small_data_uses_a_compiled_kernel(monkeypatch):
    """Below POLICY.sort_numpy_below a kernel that is compiled already is used (cheaper per call
    than NumPy); one that is not is left alone (nothing compiles)."""
    assert use_kernel(POLICY.sort_numpy_below, C.radix_sort_kernel)  # at it: always the kernel
    X.radix_sort(X.descending_keys(np.arange(5.0)), np.arange(5), True)
    monkeypatch.setattr(POLICY, "sort_numpy_below", 0)
    X.radix_sort(X.descending_keys(np.arange(5.0)), np.arange(5), True)  # compiles it
    monkeypatch.undo()
    assert use_kernel(10, C.radix_sort_kernel)
    monkeypatch.setattr(POLICY, "prefer_compiled", False)
    assert not use_kernel(10, C.radix_sort_kernel)
