"""Counter-based Poisson(1) weights and unit keys (ranklens._resampling), and the resampling
schemes of compare_models and curve_bands built on them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ranklens._kernels.resampling import POISSON_THRESHOLDS
from ranklens._resampling import group_keys, poisson_weights

MASK = (1 << 64) - 1


def _mix(x: int) -> int:
    """SplitMix64 in plain Python integers (Steele, Lea & Flood 2014), the kernel's twin."""
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _poisson_inverse(u53: int) -> int:
    """Poisson(1) quantile of ``u53 / 2^53`` from the distribution function in exact terms."""
    cdf, k = 0.0, 0
    while True:
        cdf += math.exp(-1) / math.factorial(k)
        if u53 < round(cdf * 2**53):
            return k
        k += 1


def test_poisson_weights_match_a_python_twin():
    keys = np.array([0, 1, 2, 17, 2**40 + 3, 2**64 - 1], dtype=np.uint64)
    reps = np.array([0, 5, 999])
    seed = 20240611
    got = poisson_weights(keys, reps, seed)
    assert got.dtype == np.int32 and got.shape == (3, 6)
    for b, r in enumerate(reps):
        state = _mix(_mix(seed) ^ _mix(int(r) + 1))
        for i, key in enumerate(keys):
            u53 = _mix(state ^ _mix(int(key))) >> 11
            assert got[b, i] == _poisson_inverse(u53)


def test_thresholds_are_the_poisson_cdf():
    k = np.arange(POISSON_THRESHOLDS.size)
    np.testing.assert_allclose(
        POISSON_THRESHOLDS.astype(np.float64) / 2.0**53, stats.poisson.cdf(k, 1.0), rtol=1e-15
    )
    assert stats.poisson.sf(POISSON_THRESHOLDS.size - 1, 1.0) < 2.0**-53


def test_poisson_weights_do_not_depend_on_the_split():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**63, size=5000, dtype=np.int64).astype(np.uint64)
    reps = np.arange(40)
    whole = poisson_weights(keys, reps, 11)
    # any split of the keys, in any order, and any split of the replicates
    perm = rng.permutation(keys.size)
    pieces = np.array_split(perm, 7)
    for piece in pieces:
        np.testing.assert_array_equal(poisson_weights(keys[piece], reps, 11), whole[:, piece])
    np.testing.assert_array_equal(poisson_weights(keys, reps[[31, 2]], 11), whole[[31, 2]])
    assert not np.array_equal(poisson_weights(keys, reps, 12), whole)


def test_poisson_weights_have_poisson_1_moments_and_frequencies():
    keys = np.arange(200_000, dtype=np.uint64)
    w = poisson_weights(keys, np.arange(20), 3).ravel()
    n = w.size
    assert abs(w.mean() - 1.0) < 4 / math.sqrt(n)
    assert abs(w.var() - 1.0) < 4 * math.sqrt(3.0 / n)  # var of (X-1)^2 is 2 + 1 = 3 at lambda=1
    counts = np.bincount(w, minlength=8)[:6]
    expected = stats.poisson.pmf(np.arange(6), 1.0) * n
    assert abs(counts[0] - expected[0]) < 5 * math.sqrt(expected[0])  # zero frequency e^-1
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    assert chi2 < stats.chi2.ppf(0.9999, 5)
    # replicates and neighbouring keys are uncorrelated
    m = poisson_weights(keys[:50_000], np.arange(2), 3).astype(float)
    assert abs(np.corrcoef(m[0], m[1])[0, 1]) < 0.02
    assert abs(np.corrcoef(m[0, :-1], m[0, 1:])[0, 1]) < 0.02


def test_poisson_weights_validate():
    with pytest.raises(ValueError, match="uint64"):
        poisson_weights(np.arange(3), np.arange(2), 0)
    with pytest.raises(ValueError, match="replicates"):
        poisson_weights(np.arange(3, dtype=np.uint64), np.array([-1]), 0)


def test_group_keys_are_stable_and_per_label():
    labels = np.array(["b", "a", "c", "a", "b"])
    keys = group_keys(labels)
    assert keys.dtype == np.uint64
    assert keys[1] == keys[3] and keys[0] == keys[4] and len(set(keys.tolist())) == 3
    # independent of the order and of the other labels
    np.testing.assert_array_equal(group_keys(labels[::-1]), keys[::-1])
    np.testing.assert_array_equal(group_keys(labels[2:3]), keys[2:3])
    # the same unit whatever the container or integer dtype
    ints = np.array([7, -3, 7, 2**40])
    k = group_keys(ints)
    np.testing.assert_array_equal(group_keys(ints.astype(np.int32)[:3]), k[:3])
    np.testing.assert_array_equal(group_keys(ints.astype(float)), k)
    np.testing.assert_array_equal(group_keys(pd.Series(ints)), k)
    np.testing.assert_array_equal(group_keys(list(ints)), k)
    np.testing.assert_array_equal(group_keys(np.array(ints, dtype=object)), k)
    assert group_keys(pd.Series(["a", "b"]).astype("category"))[0] == keys[1]
    # fixed values: the key of a label never changes between releases or processes
    assert int(group_keys(np.array([0]))[0]) == _mix(0)
    assert group_keys(["x"])[0] == group_keys(np.array(["x"], dtype=object))[0]


def test_group_keys_reject_missing_labels():
    with pytest.raises(ValueError, match="missing label"):
        group_keys(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="missing label"):
        group_keys(["a", None])
    with pytest.raises(ValueError, match="missing label"):
        group_keys(pd.Series(["a", pd.NA], dtype="string"))
