"""DeLong's components of several models in parallel (large n) equal the one-model calls."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from ranklens._kernels import delong as kd


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_parallel_models_equal_serial(monkeypatch, weighted, ties):
    rng = np.random.default_rng(4)
    n = 50_000  # above the radix sort's NumPy threshold: the kernels on both paths
    y = (rng.random(n) < 0.3).astype(np.float64)
    scores = np.stack([y + rng.normal(size=n), y + 2.0 * rng.normal(size=n), -y])
    if ties:
        scores = np.round(scores, 1)
        scores[0, :100] = -0.0  # -0.0 and +0.0 are one tie group
        scores[0, 100:200] = 0.0
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    serial = kd.components_many(y, scores, w)
    monkeypatch.setattr(kd, "PARALLEL_MODELS_N", 0)
    if numba.get_num_threads() < 2:
        pytest.skip("one numba thread: the parallel driver is not used")
    parallel = kd.components_many(y, scores, w)
    for s, p in zip(serial, parallel, strict=True):
        assert s.estimate == p.estimate
        assert s.denominator == p.denominator
        np.testing.assert_array_equal(s.influence, p.influence)
    direct = kd.binary_components_parallel(
        scores, (np.arange(n, dtype=np.int32) << 1) | (y == 1.0), np.ones(n), False
    )
    assert direct.shape == scores.shape
