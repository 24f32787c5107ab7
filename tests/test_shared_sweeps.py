"""Rank measures of the same data share one sort and sweep within ``shared_results`` (a
comparison's point values and variances): the same numbers, and data changed in between are
swept anew."""

from __future__ import annotations

import numpy as np
import pytest

import ranklens.ranking as ranking
from ranklens._resampling import kernels_only
from ranklens._shared import shared_results
from ranklens.compare import compare_models
from ranklens.ranking import kendall_tau, ranking_summary, spearman_rho


def _counting(monkeypatch) -> list[int]:
    calls: list[int] = []
    sequence = ranking._k.sequence

    def spy(y, p, **kwargs):
        calls.append(y.size)
        return sequence(y, p, **kwargs)

    monkeypatch.setattr(ranking._k, "sequence", spy)
    return calls


def test_one_sweep_serves_every_measure_of_the_same_data(monkeypatch):
    rng = np.random.default_rng(0)
    n = 50_000  # the sweep kernel, not the small-data NumPy sums
    y = np.round(rng.normal(size=n), 1)
    p = np.round(y + rng.normal(size=n), 1)
    alone = (kendall_tau(y, p), spearman_rho(y, p), ranking_summary(y, p).tau_variance)
    calls = _counting(monkeypatch)
    with shared_results():
        shared = (
            kendall_tau(y, p),
            spearman_rho(y.copy(), p.copy()),  # equal values in other arrays: shared too
            ranking_summary(y, p).tau_variance,
        )
        assert calls == [n]
        q = p.copy()
        q[0] += 1.0  # other data: a sweep of their own
        assert kendall_tau(y, q) == kendall_tau(y, q)
        assert calls == [n, n]
        p_changed = p.copy()
        tau_before = kendall_tau(y, p_changed)  # equal to p's: shared
        assert len(calls) == 2
        p_changed[:100] = 0.0  # the same array, changed in place: swept anew
        assert kendall_tau(y, p_changed) != tau_before
        assert len(calls) == 3
    assert shared == alone
    kendall_tau(y, p)  # outside the block: nothing kept
    assert len(calls) == 4


@pytest.mark.parametrize("weighted", [False, True])
def test_compare_models_sorts_each_model_once_for_its_point_values(monkeypatch, weighted):
    rng = np.random.default_rng(2)
    n = 40_000
    y = rng.normal(size=n)
    preds = {"a": y + rng.normal(size=n), "b": rng.normal(size=n)}
    sw = rng.integers(1, 4, n).astype(float) if weighted else None
    kwargs = dict(
        metrics=["kendall_tau", "spearman_rho", "somers_d", "tau_normalized"],
        n_bootstrap=16,
        random_state=0,
        sample_weight=sw,
        show_progress=False,
    )
    with kernels_only():
        before = compare_models(y, preds, **kwargs)
    calls = _counting(monkeypatch)
    with kernels_only():
        after = compare_models(y, preds, **kwargs)
    # one sort a model: the point values, tau's variances and the bootstrap's ranks
    assert len(calls) == 2
    for field in ("values", "replicates", "variance_plug_in", "variance_unbiased", "ci_lower"):
        np.testing.assert_array_equal(getattr(after, field), getattr(before, field))
