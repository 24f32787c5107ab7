"""Goodman and Kruskal's gamma: a statistic of the rank sweep's pair classes, declared once.

The measure is one function of the pair classes (``ranklens.ranking.GOODMAN_KRUSKAL_GAMMA``);
every engine computes the classes and calls it. Checked here against a brute-force double loop
over pairs (with ties and weights), on every path that serves it: the point value (the NumPy
sums of small data and the sweep kernel), the exact leave-one-out, the bootstrap's batched
kernel, its level-order sweep and its NumPy twins (against the generic path, the function once
per replicate), the device path (NumPy as the device namespace) and the Dask engine (against
the in-memory value and the in-memory Poisson bootstrap, replicate for replicate).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest

import ranklens as rl
import ranklens._compute.xp.measures as xm
from emulated_device import on_device
from ranklens._foundation.route import POLICY
from ranklens._inference import evaluators
from ranklens._inference.resampling import kernels_only, numpy_twins
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.metrics import get_metric
from ranklens.ranking import GOODMAN_KRUSKAL_GAMMA


def gamma_brute(y, p, w=None):
    """``(C - D) / (C + D)`` by a double loop over the pairs, pairs weighted ``w_i w_j``."""
    n = len(y)
    w = np.ones(n) if w is None else np.asarray(w, float)
    conc = disc = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            sign = np.sign(y[i] - y[j]) * np.sign(p[i] - p[j])
            conc += w[i] * w[j] * (sign > 0)
            disc += w[i] * w[j] * (sign < 0)
    return (conc - disc) / (conc + disc) if conc + disc > 0 else np.nan


def _data(seed, n, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    p = y + rng.normal(size=n)
    if ties:
        y, p = np.round(y), np.round(p * 2) / 2
    return y, p


def _generic(name):
    """The registered measure behind a wrapper, so the engine takes its generic path."""
    spec = get_metric(name)

    def func(y_true, y_pred, *, sample_weight=None):
        return spec.func(y_true, y_pred, sample_weight=sample_weight)

    return dataclasses.replace(spec, func=func)


@pytest.mark.parametrize("n", [2, 3, 17, 60, 400])
@pytest.mark.parametrize("ties", [True, False])
def test_value_equals_the_pairs_with_ties_and_weights(n, ties):
    y, p = _data(n, n, ties)
    w = np.random.default_rng(n).integers(0, 4, n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for weights in (None, w, w + 0.25):
            got = rl.goodman_kruskal_gamma(y, p, sample_weight=weights)
            want = gamma_brute(y, p, weights)
            if np.isnan(want):
                assert np.isnan(got)
            else:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_without_ties_gamma_is_kendall_tau_and_with_ties_it_is_larger():
    y, p = _data(1, 300, ties=False)
    assert rl.goodman_kruskal_gamma(y, p) == pytest.approx(rl.kendall_tau(y, p), rel=1e-12)
    y, p = _data(1, 300, ties=True)
    assert abs(rl.goodman_kruskal_gamma(y, p)) > abs(rl.kendall_tau(y, p))


def test_published_example():
    # Goodman & Kruskal (1954) on a 2 x 2 table [[a, b], [c, d]]: gamma is Yule's Q,
    # (ad - bc) / (ad + bc). a = 10, b = 5, c = 3, d = 12: Q = (120 - 15) / (120 + 15) = 7/9.
    cells = {(0, 0): 10, (0, 1): 5, (1, 0): 3, (1, 1): 12}
    y = np.repeat([r for r, _ in cells], list(cells.values())).astype(float)
    p = np.repeat([c for _, c in cells], list(cells.values())).astype(float)
    assert rl.goodman_kruskal_gamma(y, p) == pytest.approx(7 / 9, rel=1e-15)


def test_constant_input_is_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="Goodman and Kruskal's gamma is undefined"):
        assert np.isnan(rl.goodman_kruskal_gamma(np.ones(5), np.arange(5.0)))


@pytest.mark.parametrize("ties", [True, False])
def test_exact_leave_one_out_equals_deleting_each_row(ties):
    y, p = _data(4, 70, ties)
    loo = get_metric("goodman_kruskal_gamma").capabilities.leave_one_out(y, p)
    want = [gamma_brute(np.delete(y, i), np.delete(p, i)) for i in range(y.size)]
    np.testing.assert_allclose(loo, want, rtol=1e-12, atol=1e-14)


def test_bootstrap_kernel_equals_the_function_once_per_replicate():
    y, p = _data(5, 120)
    preds = {"a": p, "b": np.round(y + np.random.default_rng(6).normal(size=y.size))}
    w = np.random.default_rng(7).integers(1, 4, y.size).astype(float)
    kw = dict(n_bootstrap=60, random_state=2, show_progress=False, sample_weight=w)
    with kernels_only():
        fast = rl.compare_models(y, preds, metrics=["goodman_kruskal_gamma"], **kw)
    slow = rl.compare_models(y, preds, metrics=[_generic("goodman_kruskal_gamma")], **kw)
    assert fast.evaluation == ("kernel",)
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-12, atol=1e-14)
    with numpy_twins(True):
        twins = rl.compare_models(y, preds, metrics=["goodman_kruskal_gamma"], **kw)
    np.testing.assert_allclose(twins.replicates, slow.replicates, rtol=1e-12, atol=1e-14)


def test_bootstrap_level_sweep_equals_the_batched_sweep(monkeypatch):
    y, p = _data(8, 300)
    preds = {"a": p, "b": np.round(y + np.random.default_rng(9).normal(size=y.size))}
    kw = dict(metrics=["goodman_kruskal_gamma"], n_bootstrap=40, random_state=4)
    with kernels_only():
        batched = rl.compare_models(y, preds, show_progress=False, **kw)
    monkeypatch.setattr(POLICY, "level_sweep_above", 0)
    calls = []
    levels = evaluators._RankEvaluator._evaluate_levels
    monkeypatch.setattr(
        evaluators._RankEvaluator,
        "_evaluate_levels",
        lambda self, block: calls.append(block.rows) or levels(self, block),
    )
    with kernels_only():
        swept = rl.compare_models(y, preds, show_progress=False, **kw)
    assert calls
    np.testing.assert_array_equal(swept.replicates, batched.replicates)


@pytest.mark.parametrize("weighted", [False, True])
def test_device_inputs_equal_the_cpu(monkeypatch, weighted):
    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: np)
    y, p = _data(10, 2000)
    w = np.random.default_rng(11).uniform(0.5, 2.0, y.size) if weighted else None
    got = rl.goodman_kruskal_gamma(on_device(y), p, sample_weight=on_device(w))
    assert got == pytest.approx(rl.goodman_kruskal_gamma(y, p, sample_weight=w), rel=1e-12)


def test_device_replicates_equal_the_kernel():
    from ranklens._inference import device_engine as gpu_engine

    y, p = _data(12, 500)
    mult = np.random.default_rng(13).multinomial(y.size, np.ones(y.size) / y.size, size=6)
    form = get_metric("goodman_kruskal_gamma").capabilities.batched
    device = gpu_engine.RankEvaluator([0], [form], np, y, [p], None)
    got = device.evaluate(mult.astype(np.int32))[:, 0, 0]
    want = [gamma_brute(np.repeat(y, m), np.repeat(p, m)) for m in mult]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_statistic_reads_only_the_pair_classes():
    classes = {"concordant": 3, "discordant": 1, "tied_pred_only": 7, "distinct_y": 11}
    assert float(GOODMAN_KRUSKAL_GAMMA(classes)) == 0.5
    assert not GOODMAN_KRUSKAL_GAMMA.moments


@pytest.mark.dask_engine
def test_dask_value_and_poisson_bootstrap_equal_the_memory_engine(
    client, dask_by_partitions, poisson_compare_models
):
    rng = np.random.default_rng(14)
    n = 900
    y = rng.integers(0, 30, n).astype(float)
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=n) + 0.05 * y, 1),
            "b": rng.integers(0, 7, n).astype(float),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )
    measures = ["goodman_kruskal_gamma"]
    evaluations = dask_by_partitions(
        df,
        (1, 4),
        extra_buckets=2,
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
        n_bootstrap=6,
        random_state=3,
        metrics=measures,
    )
    ref = poisson_compare_models(df, measures, n_bootstrap=6, random_state=3, weight="w")
    for parts, evaluation in evaluations.items():
        for i, model in enumerate(("a", "b")):
            value = rl.goodman_kruskal_gamma(df["y"], df[model], sample_weight=df["w"])
            assert evaluation.values[model]["goodman_kruskal_gamma"] == pytest.approx(
                value, rel=1e-12
            ), parts
            np.testing.assert_allclose(
                evaluation.extras["bootstrap"]["replicates"][model]["goodman_kruskal_gamma"],
                ref.replicates[:, 0, i],
                rtol=1e-12,
                atol=1e-12,  # (pair weights summed in another order; C - D cancels)
            )


@pytest.mark.dask_engine
def test_dask_refuses_a_midrank_statistic_it_does_not_sum():
    pytest.importorskip("dask.dataframe")
    from ranklens._foundation.forms import RankStatistic, RankSweepForm
    from ranklens.dask import _engine

    custom = RankStatistic("a midrank covariance", lambda s: s["cov"], moments=True)
    assert _engine._midranks_missing(RankSweepForm(custom))
    assert not _engine._midranks_missing(RankSweepForm(RankStatistic.SPEARMAN_RHO))
    assert not _engine._midranks_missing(RankSweepForm(GOODMAN_KRUSKAL_GAMMA))
