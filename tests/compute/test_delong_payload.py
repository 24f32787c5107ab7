"""DeLong's components with the compact (int32) sort payload equal those of an int64 payload."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from ranklens._compute.kernels import delong as kd
from ranklens._compute.xp import delong as xd
from ranklens._compute.xp.ranked_keys import descending_keys, radix_sort


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ties", [False, True])
def test_int32_payload_equals_int64(weighted, ties):
    rng = np.random.default_rng(4)
    n = 50_000  # above the radix sort's NumPy threshold: the kernel sorts
    y = (rng.random(n) < 0.3).astype(np.float64)
    scores = np.stack([y + rng.normal(size=n), y + 2.0 * rng.normal(size=n), -y])
    if ties:
        scores = np.round(scores, 1)
        scores[0, :100] = -0.0  # -0.0 and +0.0 are one tie group
        scores[0, 100:200] = 0.0
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    parts = xd.components_many(y, scores, w)
    event = y == 1.0
    payload64 = (np.arange(n, dtype=np.int64) << 1) | event
    for score, part in zip(scores, parts, strict=True):
        keys, load = radix_sort(descending_keys(score), payload64, True)
        psi = kd.binary_components(keys, load, np.ones(n) if w is None else w, w is not None)
        auc = roc_auc_score(y, score, sample_weight=w)
        assert part.estimate == pytest.approx(auc, rel=1e-12)
        wt = np.ones(n) if w is None else w
        d = np.where(event, wt[~event].sum(), wt[event].sum())
        np.testing.assert_allclose(part.influence, wt * (psi - part.estimate * d), rtol=1e-13)
