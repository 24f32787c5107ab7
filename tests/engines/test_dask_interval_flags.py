"""The Dask engine flags a mean loss's bootstrap intervals approximate as memory does.

The rules (:func:`ranklens._foundation.interval_formulas.mean_loss_flags`): the tail weight and
one-row share of the per-row contributions, and Cochran's rule on the target's skewness, whose
moments the engine merges over the partitions
(:class:`ranklens._foundation.interval_formulas.TargetMoments`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as ss

import ranklens as rl
from ranklens._foundation.interval_formulas import TargetMoments, skewed_target_note

dd = pytest.importorskip("dask.dataframe")

LOSSES = ["mean_absolute_error", "root_mean_squared_error", "kendall_tau"]


def _data(n, seed, lognormal=True):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    cols = {"y": s + 0.6 * rng.normal(size=n), "a": s + 0.5 * rng.normal(size=n)}
    cols["b"] = s + 0.8 * rng.normal(size=n)
    frame = pd.DataFrame({k: np.exp(v) for k, v in cols.items()} if lognormal else cols)
    frame["w"] = rng.integers(1, 4, n).astype(float)
    return frame


def _both(frame, weighted):
    kw = dict(n_bootstrap=40, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_dask = rl.evaluate_models(
            "y",
            ["a", "b"],
            data=dd.from_pandas(frame, npartitions=3),
            engine="dask",
            sample_weight="w" if weighted else None,
            metrics=LOSSES,
            **kw,
        ).comparison
        in_memory = rl.evaluate_models(
            frame["y"],
            {"a": frame["a"], "b": frame["b"]},
            sample_weight=frame["w"] if weighted else None,
            **kw,
        ).comparison
    return on_dask, in_memory


@pytest.mark.parametrize("weighted", [False, True])
def test_long_tailed_target_flags_the_same_intervals_on_dask(weighted):
    on_dask, in_memory = _both(_data(60, 3), weighted)
    for name in LOSSES:
        k, j = on_dask.metrics.index(name), in_memory.metrics.index(name)
        np.testing.assert_array_equal(on_dask.approximate[k], in_memory.approximate[j])
        np.testing.assert_array_equal(
            on_dask.difference_approximate[k], in_memory.difference_approximate[j]
        )
        assert on_dask.interval_notes[k] == in_memory.interval_notes[j]
    k = on_dask.metrics.index("mean_absolute_error")
    assert on_dask.approximate[k].all() and "Cochran 1977" in on_dask.interval_notes[k]
    assert not on_dask.approximate[on_dask.metrics.index("kendall_tau")].any()


def test_normal_target_flags_nothing_on_dask():
    on_dask, _ = _both(_data(200, 4, lognormal=False), False)
    k = on_dask.metrics.index("mean_absolute_error")
    assert not on_dask.approximate[k].any() and on_dask.interval_notes[k] == ""


def test_target_moments_merge_equals_one_pass():
    rng = np.random.default_rng(5)
    y = np.exp(rng.normal(size=1000))
    w = rng.integers(0, 4, 1000).astype(float)
    whole = TargetMoments.of(y, w)
    cuts = np.sort(rng.choice(np.arange(1, 1000), 7, replace=False))
    parts = [TargetMoments.of(a, b) for a, b in zip(np.split(y, cuts), np.split(w, cuts))]
    parts.insert(3, TargetMoments.of(np.zeros(0)))  # an empty partition
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    assert merged.rows == whole.rows == int((w > 0).sum())
    assert merged.exponent == whole.exponent
    for field in ("weight", "mean", "m2", "m3"):
        assert getattr(merged, field) == pytest.approx(getattr(whole, field), rel=1e-12)
    repeated = np.repeat(y, w.astype(int))
    assert whole.skewness == pytest.approx(ss.skew(repeated), rel=1e-12)
    assert skewed_target_note(merged) == skewed_target_note(y, w)
    assert merged.values == whole.values == tuple(np.unique(y[w > 0])[:3])


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_target_moments_at_extreme_scales(scale):
    """A power of two keeps every cube finite: the skewness at 1e300 is the one at 1."""
    y = np.exp(np.random.default_rng(6).normal(size=400))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = TargetMoments.of(y * scale)
        halves = TargetMoments.of(y[:150] * scale).merge(TargetMoments.of(y[150:] * scale))
    assert big.skewness == pytest.approx(TargetMoments.of(y).skewness, rel=1e-12)
    assert halves.skewness == pytest.approx(big.skewness, rel=1e-12)
