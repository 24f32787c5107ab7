"""Rank measures of the same data share one sort and sweep within ``shared_results`` (a
comparison's point values and variances): the same numbers, and data changed in between are
swept anew."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import ranklens._measures.rank_sweep as rank_sweep
import ranklens.ranking as ranking
from ranklens._foundation.shared import shared_results
from ranklens._inference.resampling import kernels_only
from ranklens.compare import compare_models
from ranklens.ranking import (
    kendall_tau,
    ranking_summary,
    somers_d,
    spearman_rho,
    tau_normalized,
)


class _CountedSorts:
    """A stand-in for the sequence's module (``ranklens._compute.xp.sequence``) that counts the
    calls of its ``sequence`` (the sort) and passes everything else through."""

    def __init__(self, kernels, calls: list[int]) -> None:
        self._kernels = kernels
        self._calls = calls

    def sequence(self, y, p, **kwargs):
        self._calls.append(y.size)
        return self._kernels.sequence(y, p, **kwargs)

    def __getattr__(self, name):
        return getattr(self._kernels, name)


def _counting(monkeypatch) -> list[int]:
    """The sorts of the rank measures: those of the ranking module and of the rank sweep it
    shares with the other engines (each sorts through ``ranklens._compute.xp.sequence``, as
    ``_xs``)."""
    calls: list[int] = []
    for module in (ranking, rank_sweep):
        monkeypatch.setattr(module, "_xs", _CountedSorts(module._xs, calls))
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


def test_equal_inputs_are_kept_once_however_many_results_use_them():
    """The truth and each model's predictions are copied once within a block: the sort and the
    sweep of a model (and every model's sort) share the copies they were computed from."""
    import ranklens._foundation.shared as _shared

    rng = np.random.default_rng(3)
    n = 50_000
    y = rng.normal(size=n)
    preds = [y + rng.normal(size=n), rng.normal(size=n)]
    with shared_results():
        for p in preds:
            kendall_tau(y, p)  # the sweep, and the sort it is made from
            ranking_summary(y.copy(), p).tau_variance  # equal values: no new copy
        kept = _shared._KEPT.get()
        assert kept is not None
        assert len(kept.copies) == 3  # y once, each model's predictions once
        assert {len(r) for r in kept.results.values()} == {2}  # a sort and a sweep a model


@pytest.mark.parametrize("weighted", [False, True])
def test_delong_comparison_keeps_no_sort_through_its_tests(monkeypatch, weighted):
    """With DeLong's tests, each model's sort serves its own point values and is let go before
    the next model's and before the tests (which need none of it); the numbers are unchanged."""
    import ranklens.compare as compare
    from ranklens._foundation.shared import sharing

    rng = np.random.default_rng(4)
    n = 40_000
    y = (rng.normal(size=n) > 0.5).astype(float)
    preds = {"a": y + rng.normal(size=n), "b": rng.normal(size=n), "c": y + rng.normal(size=n)}
    sw = rng.integers(1, 4, n).astype(float) if weighted else None
    kwargs = dict(
        metrics=["roc_auc", "tau_normalized", "somers_d"],
        method="delong",
        sample_weight=sw,
    )
    with monkeypatch.context() as unshared, kernels_only():
        # the reference: every measure sorts for itself, nothing kept
        unshared.setattr(compare, "shared_results", contextlib.nullcontext)
        before = compare_models(y, preds, **kwargs)
    calls = _counting(monkeypatch)
    held: list[bool] = []
    delong = compare._delong

    def spy(*args, **kw):
        held.append(sharing())
        return delong(*args, **kw)

    monkeypatch.setattr(compare, "_delong", spy)
    with kernels_only():
        after = compare_models(y, preds, **kwargs)
    assert len(calls) == 3  # one sort a model for its C and Somers' D
    assert held == [False]
    for field in ("values", "std_error", "difference", "z", "p_value", "ci_lower", "ci_upper"):
        np.testing.assert_array_equal(getattr(after, field), getattr(before, field))
    expected = [
        [tau_normalized(y, p, sample_weight=sw) for p in preds.values()],
        [somers_d(y, p, sample_weight=sw) for p in preds.values()],
    ]
    np.testing.assert_array_equal(after.values[1:3], expected)
