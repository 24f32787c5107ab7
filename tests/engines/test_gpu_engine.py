"""The array-API replicate kernels (ranklens._compute.xp) and the GPU engine of the bootstrap.

On NumPy (every run): the kernels against brute-force pair counts and the numba engine, and
``compare_models(device="gpu")`` with the engine's namespace set to NumPy against the CPU path.
On CuPy (``@pytest.mark.gpu``, skipped without CuPy or a CUDA device): the same numbers on the
device.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ranklens._inference.device_engine as gpu_engine
from ranklens import compare_models, kendall_tau
from ranklens._compute.kernels.ranking import weighted_rank_sums
from ranklens._compute.xp import rank as xr
from ranklens._compute.xp.sequence import prepare_ranks
from ranklens._foundation.extras import MissingExtraError, missing_modules
from ranklens._foundation.forms import RankStatistic
from reference_ranking import statistics_of_sums

RANK_METRICS = ["kendall_tau", "spearman_rho", "tau_normalized", "somers_d", "rho_normalized"]


def _values(stats):
    """``(rows, 3)``: tau-b, rho and Harrell's C of replicate group sums (host arrays)."""
    classes = xr.replicate_classes(stats)
    statistics = (RankStatistic.KENDALL_TAU_B, RankStatistic.SPEARMAN_RHO, RankStatistic.HARRELL_C)
    return np.stack([s(classes) for s in statistics], axis=1)


def _has_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


needs_gpu = pytest.mark.skipif(not _has_gpu(), reason="needs CuPy and a CUDA device")


def _brute(y, p, w):
    """Pair sums by enumerating pairs: (W, Sy, Sp, Sj, D) as Python ints."""
    n = len(y)
    total = sum(int(v) for v in w)
    disc = 0
    for i, j in itertools.combinations(range(n), 2):
        if (y[i] - y[j]) * (p[i] - p[j]) < 0:
            disc += int(w[i]) * int(w[j])

    def squares(keys):
        groups: dict = {}
        for k, wk in zip(keys, w, strict=True):
            groups[k] = groups.get(k, 0) + int(wk)
        return sum(g * g for g in groups.values())

    return total, squares(list(y)), squares(list(p)), squares(list(zip(y, p, strict=True))), disc


def _data(rng, n, ties=True):
    if ties:
        return rng.integers(0, 6, n).astype(float), rng.integers(0, 8, n).astype(float)
    return rng.normal(size=n), rng.normal(size=n)


@pytest.mark.parametrize("n", [2, 3, 7, 16, 33, 90])
def test_pair_sums_match_brute_force(n):
    rng = np.random.default_rng(n)
    y, p = _data(rng, n)
    weights = rng.integers(0, 4, size=(5, n)).astype(np.int32)
    plan = xr.build_plan(np, y, p)
    got = xr.replicate_statistics(np, plan, weights)
    for b in range(weights.shape[0]):
        total, sy, sp, sj, disc = _brute(y, p, weights[b])
        assert int(got["total"][b]) == total
        assert int(got["sum_y2"][b]) == sy
        assert int(got["sum_p2"][b]) == sp
        assert int(got["sum_j2"][b]) == sj
        assert int(got["disc"][b]) == disc
        assert got["disc"].dtype == np.int64


@pytest.mark.parametrize(("n", "ties"), [(5, True), (64, True), (500, True), (1000, False)])
def test_replicates_equal_numba_engine(n, ties):
    rng = np.random.default_rng(7 + n)
    y, p = _data(rng, n, ties)
    weights = rng.integers(0, 3, size=(8, n)).astype(np.int32)
    weights[0] = 0
    weights[0, :1] = 1  # a single row: every statistic undefined
    values = _values(xr.replicate_statistics(np, xr.build_plan(np, y, p), weights))
    order, y_rank, pred_rank = prepare_ranks(y, p)
    ref = np.array(
        [
            statistics_of_sums(weighted_rank_sums(order, y_rank, pred_rank, w.astype(float)))
            for w in weights
        ]
    )
    np.testing.assert_array_equal(np.isnan(values), np.isnan(ref))
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-12)


def test_fractional_weights_run_in_float64():
    rng = np.random.default_rng(3)
    y, p = _data(rng, 200)
    weights = rng.uniform(0, 2, size=(4, 200))
    values = _values(xr.replicate_statistics(np, xr.build_plan(np, y, p), weights))
    order, y_rank, pred_rank = prepare_ranks(y, p)
    ref = np.array(
        [statistics_of_sums(weighted_rank_sums(order, y_rank, pred_rank, w)) for w in weights]
    )
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("n", "ties"), [(2, False), (50, True), (3000, True), (4097, False)])
def test_exact_pair_counts(n, ties):
    rng = np.random.default_rng(n)
    y, p = _data(rng, n, ties)
    counts = xr.exact_pair_counts(np, y, p)
    if n <= 50:
        _, sy, sp, sj, disc = _brute(y, p, np.ones(n, dtype=np.int64))
        assert counts["discordant"] == disc
        assert counts["tied_y"] == (sy - n) // 2
        assert counts["tied_pred"] == (sp - n) // 2
        assert counts["tied_both"] == (sj - n) // 2
    assert float(RankStatistic.KENDALL_TAU_B(xr.classes_from_counts(counts))) == pytest.approx(
        stats.kendalltau(y, p).statistic, abs=1e-12
    )
    assert float(RankStatistic.KENDALL_TAU_B(xr.classes_from_counts(counts))) == pytest.approx(
        kendall_tau(y, p), abs=1e-12
    )


def test_exact_pair_counts_constant_input_is_nan():
    counts = xr.exact_pair_counts(np, np.ones(10), np.arange(10.0))
    assert math.isnan(float(RankStatistic.KENDALL_TAU_B(xr.classes_from_counts(counts))))


def test_weights_too_large_for_exact_sums_are_refused():
    assert xr.max_rows_exact(1_000_000) == (1 << 62) // 10**6
    with pytest.raises(ValueError, match="too large for exact int64"):
        xr.max_rows_exact(1 << 31)


# ---------------------------------------------------------------------------------------------
# compare_models(device="gpu") with the engine on NumPy
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def numpy_device(monkeypatch):
    monkeypatch.setattr(gpu_engine, "device_namespace", lambda: np)


def _setup(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n).round(1)
    preds = {"a": y + rng.normal(size=n), "b": (y + 2 * rng.normal(size=n)).round(0)}
    return y, preds


@pytest.mark.parametrize("weighted", [False, True])
def test_compare_models_device_equals_cpu(numpy_device, weighted):
    y, preds = _setup()
    sw = np.random.default_rng(1).integers(1, 4, y.size).astype(float) if weighted else None
    metrics = [*RANK_METRICS, "root_mean_squared_error", "mean_absolute_error"]
    kw = dict(metrics=metrics, n_bootstrap=60, random_state=5, sample_weight=sw)
    cpu = compare_models(y, preds, **kw)
    dev = compare_models(y, preds, device="gpu", **kw)
    assert set(dev.evaluation) == {"gpu"}
    np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dev.ci_lower, cpu.ci_lower, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dev.p_value, cpu.p_value, rtol=1e-9, atol=1e-12)


def test_compare_models_device_field_containers(numpy_device):
    y, preds = _setup(200)
    ro = preds["a"].copy()
    ro.setflags(write=False)
    strided = np.repeat(preds["b"], 2)[::2]
    kw = dict(metrics=["kendall_tau", "spearman_rho"], n_bootstrap=30, random_state=2)
    cpu = compare_models(y, preds, **kw)
    dev = compare_models(pd.Series(y), {"a": ro, "b": strided}, device="cuda", **kw)
    np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-12)


def test_compare_models_device_auc_of_binary_outcome(numpy_device):
    """AUC-type: Harrell's C of a 0/1 outcome is the AUC (ties in the score count 1/2)."""
    rng = np.random.default_rng(4)
    y = (rng.uniform(size=300) < 0.3).astype(float)
    preds = {"a": y + rng.normal(size=300), "b": np.round(y + 2 * rng.normal(size=300))}
    kw = dict(metrics=["tau_normalized"], n_bootstrap=40, random_state=0, interval="percentile")
    dev = compare_models(y, preds, device="gpu", **kw)
    from sklearn.metrics import roc_auc_score

    assert dev.values[0, 0] == pytest.approx(roc_auc_score(y, preds["a"]), abs=1e-12)
    np.testing.assert_allclose(
        dev.replicates, compare_models(y, preds, **kw).replicates, rtol=1e-12, atol=1e-12
    )


def test_device_refuses_measures_without_gpu_form(numpy_device):
    y, preds = _setup(100)
    with pytest.raises(ValueError, match="median_absolute_error"):
        compare_models(y, preds, metrics=["kendall_tau", "median_absolute_error"], device="gpu")


def test_device_refuses_permutation_and_unknown_devices(numpy_device):
    y, preds = _setup(100)
    with pytest.raises(ValueError, match="method='bootstrap' only"):
        compare_models(y, preds, metrics=["kendall_tau"], method="permutation", device="gpu")
    with pytest.raises(ValueError, match="device must be one of"):
        compare_models(y, preds, metrics=["kendall_tau"], device="tpu")


def test_chunks_follow_free_memory(numpy_device, monkeypatch):
    y, preds = _setup(300)
    kw = dict(metrics=["kendall_tau", "spearman_rho"], n_bootstrap=40, random_state=3)
    whole = compare_models(y, preds, device="gpu", **kw)
    # room for 3 replicate rows per chunk: same numbers, many chunks
    per_row = xr.replicate_bytes(300)
    monkeypatch.setattr(gpu_engine, "free_bytes", lambda xp: int(3.5 * per_row / 0.5))
    chunked = compare_models(y, preds, device="gpu", **kw)
    np.testing.assert_array_equal(chunked.replicates, whole.replicates)
    monkeypatch.setattr(gpu_engine, "free_bytes", lambda xp: per_row // 4)
    with pytest.raises(ValueError, match="beyond this device's capacity"):
        compare_models(y, preds, device="gpu", **kw)


@pytest.mark.skipif(_has_gpu() or not missing_modules("gpu"), reason="CuPy is installed")
def test_missing_cupy_names_the_extra():
    y, preds = _setup(50)
    with pytest.raises(MissingExtraError, match=r'pip install "ranklens\[gpu\]"'):
        compare_models(y, preds, metrics=["kendall_tau"], device="gpu")


# ---------------------------------------------------------------------------------------------
# On the device
# ---------------------------------------------------------------------------------------------


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(("n", "ties"), [(50, True), (5000, True), (20000, False)])
def test_cupy_replicates_equal_numpy(n, ties):
    import cupy

    rng = np.random.default_rng(n)
    y, p = _data(rng, n, ties)
    weights = rng.integers(0, 3, size=(16, n)).astype(np.int32)
    host = xr.replicate_statistics(np, xr.build_plan(np, y, p), weights)
    dev = xr.replicate_statistics(
        cupy, xr.build_plan(cupy, cupy.asarray(y), cupy.asarray(p)), cupy.asarray(weights)
    )
    for key in ("total", "sum_y2", "sum_p2", "sum_j2", "disc"):
        np.testing.assert_array_equal(dev[key].get(), host[key])
    order, y_rank, pred_rank = prepare_ranks(y, p)
    ref = np.array(
        [
            statistics_of_sums(weighted_rank_sums(order, y_rank, pred_rank, w.astype(float)))
            for w in weights
        ]
    )
    values = _values({k: v.get() for k, v in dev.items()})
    np.testing.assert_allclose(values, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.gpu
@needs_gpu
def test_cupy_exact_tau_b_at_large_n():
    import cupy

    rng = np.random.default_rng(0)
    n = 2_000_000
    y = rng.normal(size=n)
    p = np.round(y + rng.normal(size=n), 2)
    counts = xr.exact_pair_counts(cupy, cupy.asarray(y), cupy.asarray(p))
    assert counts == xr.exact_pair_counts(np, y, p)
    assert float(RankStatistic.KENDALL_TAU_B(xr.classes_from_counts(counts))) == pytest.approx(
        kendall_tau(y, p), abs=1e-12
    )


@pytest.mark.gpu
@needs_gpu
def test_cupy_compare_models_with_device_inputs():
    import cupy

    y, preds = _setup(3000)
    kw = dict(metrics=[*RANK_METRICS, "root_mean_squared_error"], n_bootstrap=200)
    dev = compare_models(
        cupy.asarray(y),
        {k: cupy.asarray(v) for k, v in preds.items()},
        device="gpu",
        random_state=0,
        **kw,
    )
    cpu = compare_models(y, preds, random_state=0, **kw)
    assert set(dev.evaluation) == {"gpu"}
    np.testing.assert_allclose(dev.values, cpu.values, rtol=1e-12)
    # different draws, same distribution: the standard errors agree to Monte Carlo error
    np.testing.assert_allclose(dev.std_error, cpu.std_error, rtol=0.3)
    again = compare_models(
        cupy.asarray(y),
        {k: cupy.asarray(v) for k, v in preds.items()},
        device="gpu",
        random_state=0,
        **kw,
    )
    np.testing.assert_array_equal(again.replicates, dev.replicates)


@pytest.mark.gpu
@needs_gpu
def test_cupy_engine_equals_numba_for_the_same_multiplicities():
    import cupy

    y, preds = _setup(5000)
    rng = np.random.default_rng(9)
    mult = np.stack([np.bincount(rng.integers(0, 5000, 5000), minlength=5000) for _ in range(20)])
    stacked = np.stack(list(preds.values()))
    evaluator = gpu_engine.RankEvaluator(
        [0], [None], cupy, cupy.asarray(y), [cupy.asarray(p) for p in stacked], None
    )
    classes = evaluator.classes(cupy.asarray(mult.astype(np.int32)))
    got = np.stack(
        [
            RankStatistic.KENDALL_TAU_B(classes),
            RankStatistic.SPEARMAN_RHO(classes),
            RankStatistic.HARRELL_C(classes),
        ],
        axis=1,
    )
    for m, p in enumerate(stacked):
        order, y_rank, pred_rank = prepare_ranks(y, p)
        ref = np.array(
            [
                statistics_of_sums(weighted_rank_sums(order, y_rank, pred_rank, w.astype(float)))
                for w in mult
            ]
        )
        np.testing.assert_allclose(got[:, :, m], ref, rtol=1e-12, atol=1e-12)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("n", [3, 4096, 4097, 100_003])
def test_fused_level_kernel_equals_generic(n):
    import cupy

    from ranklens._compute.xp import cuda

    rng = np.random.default_rng(n)
    y, p = _data(rng, n, ties=n < 5000)
    plan = xr.build_plan(cupy, cupy.asarray(y), cupy.asarray(p))
    weights = cupy.asarray(rng.integers(0, 4, size=(7, n)).astype(np.int32))
    ws = weights[:, plan.seq]
    for level in range(1, len(plan.perms) + 1):
        perm = plan.perms[level - 1]
        left = ((perm >> (level - 1)) & 1) == 0
        generic = xr.generic_level_term(cupy, ws[:, perm], left, cupy.int64, True)
        np.testing.assert_array_equal(cuda.level_term(ws, perm, level - 1).get(), generic.get())
    fused = xr.replicate_statistics(cupy, plan, weights, level_term=cuda.fused_level_term)
    plain = xr.replicate_statistics(cupy, plan, weights)
    np.testing.assert_array_equal(fused["disc"].get(), plain["disc"].get())
    assert cuda.STATUS["level_term"] == "fused"


@pytest.mark.parametrize("scheme", ["poisson", "groups"])
def test_compare_models_device_other_schemes_equal_cpu(numpy_device, scheme):
    """Poisson weights and the cluster bootstrap are drawn as on the CPU and moved to the
    device: the same replicates."""
    y, preds = _setup(300)
    kw = dict(metrics=["kendall_tau", "spearman_rho"], n_bootstrap=30, random_state=4)
    if scheme == "groups":
        kw["groups"] = np.arange(y.size) // 3
    else:
        kw["scheme"] = "poisson"
    cpu = compare_models(y, preds, **kw)
    dev = compare_models(y, preds, device="gpu", **kw)
    np.testing.assert_allclose(dev.replicates, cpu.replicates, rtol=1e-12, atol=1e-12)
