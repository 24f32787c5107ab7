"""The targeting measures on the device (``ranklens._compute.xp.targeting``) and the weighted device
``ranking_summary``.

On NumPy (every run, the device namespace set to NumPy): the array-namespace sweep against
brute-force pair sums and the CPU functions (ties, integer, zero and fractional weights, the
per-replicate top-10 % events and their binary fallback, undefined replicates), the public
``device="gpu"`` scalars against the CPU for every event definition, ``compare_models(device=
"gpu")`` against the CPU engine replicate by replicate, and the weighted device summary against
the CPU field by field. On CuPy (``@pytest.mark.gpu``, skipped without CuPy or a CUDA device):
the same numbers from device arrays.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import ranklens as rl
import ranklens._compute.xp.measures as xm
import ranklens._inference.device_engine as gpu_engine
from emulated_device import on_device
from ranklens import ranking
from ranklens._compute.xp import targeting as xt
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.metrics import get_metric

SCALARS = [
    rl.roc_auc,
    rl.ks_statistic,
    rl.gain_area,
    rl.accuracy_ratio,
    rl.lift_at_5,
    rl.lift_at_10,
    rl.lift_at_20,
]
NAMES = [f.__name__ for f in SCALARS]
# (statistic of ranklens._compute.xp.targeting, depth) of each scalar
STATISTICS = [
    ("auc", None),
    ("ks", None),
    ("gain_area", None),
    ("accuracy_ratio", None),
    ("lift", 0.05),
    ("lift", 0.1),
    ("lift", 0.2),
]


def _has_gpu() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


needs_gpu = pytest.mark.skipif(not _has_gpu(), reason="needs CuPy and a CUDA device")


@pytest.fixture
def numpy_device(monkeypatch):
    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: np)
    monkeypatch.setattr(gpu_engine, "device_namespace", lambda: np)


def _data(n, kind, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n).round(1)
    if kind == "binary":
        y = (y > 0.5).astype(float)
    elif kind == "mixed":  # mostly 0/1: some replicates hold no other value
        y = np.where(rng.uniform(size=n) < 0.97, (y > 0).astype(float), 2.0)
    p = (y + rng.normal(size=n)).round(0)
    return y, p


def _call(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# The array-namespace sweep on NumPy
# ---------------------------------------------------------------------------------------------


def _brute_auc_sums(y, p, w):
    """(twice the concordant event/non-event weight + ties, P, N) by enumerating pairs."""
    twice = 0
    for i, j in itertools.product(range(len(y)), repeat=2):
        if y[i] == 1 and y[j] == 0:
            wij = int(w[i]) * int(w[j])
            twice += 2 * wij if p[i] > p[j] else (wij if p[i] == p[j] else 0)
    events = int(sum(int(wi) for wi, yi in zip(w, y, strict=True) if yi == 1))
    return twice, events, int(sum(int(v) for v in w)) - events


@pytest.mark.parametrize("seed", range(6))
def test_auc_and_ks_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    y = (rng.uniform(size=n) < 0.4).astype(float)
    p = rng.integers(0, 5, n).astype(float)  # many ties
    weights = rng.integers(0, 4, (6, n)).astype(np.int32)
    weights[:, 0] = 1
    state = xt.prepare(np, y, p, response=y)
    sums = xt.curve_sums(np, state, weights)
    assert sums.exact and sums.cw.dtype == np.int64
    auc = xt.statistic(np, sums, "auc")
    ks = xt.statistic(np, sums, "ks")
    for r, w in enumerate(weights):
        twice, pos, neg = _brute_auc_sums(y, p, w)
        if pos == 0 or neg == 0:
            assert math.isnan(auc[r]) and math.isnan(ks[r])
            continue
        assert auc[r] == twice / (2.0 * pos * neg)  # exact integer sums, one division
        gaps = [
            sum(w[(y == 1) & (p >= t)]) / pos - sum(w[(y == 0) & (p >= t)]) / neg
            for t in np.unique(p)
        ]
        assert ks[r] == pytest.approx(max(0.0, *gaps), abs=1e-15)


@pytest.mark.parametrize("kind", ["binary", "continuous", "mixed"])
@pytest.mark.parametrize("weights", ["integer", "fractional"])
def test_sweep_equals_cpu_functions_per_replicate(kind, weights):
    y, p = _data(150, kind, seed=3)
    rng = np.random.default_rng(4)
    n = y.size
    w = rng.integers(0, 4, (12, n)).astype(np.int32)  # zero weights: rows dropped
    if kind == "mixed":  # replicates without the value 2: the labels are the events
        w[:4, y == 2.0] = 0
    w[:, 0] += 1
    if weights == "fractional":
        w = w * rng.uniform(0.1, 3.0, n)
    state = get_metric("roc_auc").capabilities.batched.sweep.device_prepare(np, y, p[None], {})
    forms = [get_metric(name).capabilities.batched.statistic for name in NAMES]
    sweep = get_metric("roc_auc").capabilities.batched.sweep
    got = sweep.device_evaluate(np, state, w, tuple(forms))
    for r in range(w.shape[0]):
        want = [_call(f, y, p, sample_weight=w[r].astype(float)) for f in SCALARS]
        _close(got[r, :, 0], want)


def test_integer_weights_give_the_cpu_auc_to_the_last_bit():
    y, p = _data(2000, "binary", seed=7)
    w = np.random.default_rng(1).integers(0, 6, (5, y.size)).astype(np.int32)
    state = xt.prepare(np, y, p, response=y)
    auc = xt.evaluate(np, state, w, "auc")
    assert [float(v) for v in auc] == [rl.roc_auc(y, p, sample_weight=r * 1.0) for r in w]


def test_value_curves_and_their_perfect_ranking():
    rng = np.random.default_rng(5)
    y = rng.exponential(size=80).round(1)
    p = (y + rng.normal(size=80)).round(1)
    w = rng.integers(0, 3, (5, 80)).astype(np.int32)
    w[:, 0] = 1
    state = xt.prepare(np, y, p, response=y, is_value=True)
    for which, f in [("gain_area", rl.gain_area), ("accuracy_ratio", rl.accuracy_ratio)]:
        want = [f(y, p, sample_weight=r * 1.0, events="value") for r in w]
        _close(xt.evaluate(np, state, w, which), want)
    _close(
        xt.evaluate(np, state, w, "lift", 0.1),
        [rl.lift_at_10(y, p, sample_weight=r * 1.0, events="value") for r in w],
    )
    with pytest.raises(ValueError, match="binary events"):
        xt.evaluate(np, state, w, "auc")


def test_undefined_replicates_are_nan():
    y = np.array([0.0, 0.0, 1.0, 1.0])
    p = np.array([0.1, 0.4, 0.35, 0.8])
    w = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]], dtype=np.int32)
    state = xt.prepare(np, y, p, response=y)
    for which in ("auc", "ks"):
        value = xt.evaluate(np, state, w, which)
        assert np.isnan(value[:2]).all() and np.isfinite(value[2])
    gain = xt.evaluate(np, state, w, "gain_area")
    assert np.isnan(gain[0]) and np.isfinite(gain[1:]).all()
    # every row an event: the perfect model is no better than random
    assert np.isnan(xt.evaluate(np, state, w, "accuracy_ratio")[1])
    with pytest.raises(ValueError, match="depth"):
        xt.evaluate(np, state, w, "lift", 0.0)


# ---------------------------------------------------------------------------------------------
# The public functions on device inputs (namespace NumPy)
# ---------------------------------------------------------------------------------------------


def _relevance(v):
    return np.clip(np.asarray(v) / 2.0, 0.0, 1.0)


@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize(
    "events", [None, "top:0.2", "top:15%", ">=0.5", ">0", 0.3, (_relevance, 0.4)]
)
def test_device_scalars_equal_cpu(numpy_device, kind, events):
    """The device gives the CPU's value, or refuses what the CPU refuses with the same message
    (``top:15%`` of a 0/1 target with about a third events cannot mark 15 % of the rows)."""
    y, p = _data(300, kind, seed=11)
    rng = np.random.default_rng(12)
    for sw in (None, rng.integers(0, 4, y.size).astype(float), rng.uniform(0, 2, y.size)):
        for f in SCALARS:
            try:
                want = _call(f, y, p, sample_weight=sw, events=events)
            except ValueError as refused:
                with pytest.raises(ValueError, match=re.escape(str(refused))):
                    _call(f, on_device(y), p, sample_weight=sw, events=events)
                assert "events" in str(refused)
                continue
            got = _call(f, on_device(y), p, sample_weight=sw, events=events)
            _close(got, want)


def test_device_auc_against_sklearn(numpy_device):
    from sklearn.metrics import roc_auc_score

    y, p = _data(500, "binary", seed=13)
    sw = np.random.default_rng(14).integers(0, 5, y.size).astype(float)
    assert rl.roc_auc(on_device(y), p) == pytest.approx(roc_auc_score(y, p), abs=1e-15)
    assert rl.roc_auc(on_device(y), p, sample_weight=sw) == pytest.approx(
        roc_auc_score(y, p, sample_weight=sw), abs=1e-15
    )
    # the accuracy ratio of binary events is the Gini coefficient 2 AUC - 1
    assert rl.accuracy_ratio(on_device(y), p, sample_weight=sw) == pytest.approx(
        2 * roc_auc_score(y, p, sample_weight=sw) - 1, abs=1e-12
    )


def test_device_value_events_equal_cpu(numpy_device):
    rng = np.random.default_rng(2)
    y = rng.exponential(size=200).round(1)
    p = y + rng.normal(size=200)
    sw = rng.integers(0, 3, 200).astype(float)
    for f in SCALARS[2:]:
        for w in (None, sw):
            _close(
                f(on_device(y), p, events="value", sample_weight=w),
                f(y, p, events="value", sample_weight=w),
            )
    with pytest.raises(ValueError, match="binary events"):
        rl.roc_auc(on_device(y), p, events="value")
    with pytest.raises(rl.exceptions.DomainError, match="non-negative"):
        rl.gain_area(on_device(y - 1.0), p, events="value")


def test_device_scalars_undefined_warn(numpy_device):
    y = np.zeros(6)
    p = np.arange(6.0)
    for f in SCALARS:
        with pytest.warns(UndefinedMetricWarning, match="undefined"):
            assert math.isnan(f(on_device(y), p))
    with pytest.warns(UndefinedMetricWarning, match="accuracy ratio"):
        assert math.isnan(rl.accuracy_ratio(on_device(np.ones(6)), p))


def test_device_scalars_errors_name_the_argument(numpy_device):
    with pytest.raises(ValueError, match="y_pred contains NaN"):
        rl.roc_auc(on_device([0.0, 1.0, 1.0]), [0.2, np.nan, 0.3])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        rl.gain_area(on_device([0.0, 1.0, 1.0]), [0.2, 0.1, 0.3], sample_weight=[1, -1, 1])
    with pytest.raises(ValueError, match="sums to zero"):
        rl.lift_at_10(on_device([0.0, 1.0, 1.0]), [0.2, 0.1, 0.3], sample_weight=[0, 0, 0])
    with pytest.raises(ValueError, match="events must be"):
        rl.ks_statistic(on_device([0.0, 1.0, 2.0]), [0.2, 0.1, 0.3], events="bottom:3")


def test_device_swapped_arguments_warn(numpy_device):
    y = np.random.default_rng(9).normal(size=40)
    labels = (y > 0).astype(float)
    with pytest.warns(rl.exceptions.SwappedArgumentsWarning, match="swapped"):
        rl.roc_auc(on_device(y), labels)
    with pytest.warns(rl.exceptions.SwappedArgumentsWarning, match="swapped"):
        rl.decile_table(on_device(y), labels)


def test_device_capacity_is_a_clear_error(numpy_device, monkeypatch):
    import ranklens._compute.xp.summary as xs

    y, p = _data(500, "binary")
    monkeypatch.setattr(xt, "free_bytes", lambda xp: xt.sums_bytes(500) // 2)
    with pytest.raises(ValueError, match="beyond this device's capacity"):
        rl.roc_auc(on_device(y), p)
    monkeypatch.setattr(xs, "free_bytes", lambda xp: 1000)
    with pytest.raises(ValueError, match="beyond this device's capacity"):
        ranking._ranking_summary_on_device(y, p, np.ones(500), 0.95, namespace=np)


def test_device_scalars_field_containers(numpy_device):
    y, p = _data(400, "continuous", seed=21)
    ro = p.copy()
    ro.setflags(write=False)
    strided = np.repeat(y, 2)[::2]
    for f in SCALARS:
        assert f(pd.Series(strided), on_device(ro)) == pytest.approx(f(y, p), rel=1e-12, abs=1e-15)


def _assert_result_equal(dev, cpu):
    for field in dataclasses.fields(cpu):
        want, got = getattr(cpu, field.name), getattr(dev, field.name)
        if isinstance(want, np.ndarray) and want.dtype.kind == "f":
            assert got.shape == want.shape, field.name
            _close(got, want)
        elif isinstance(want, np.ndarray):
            np.testing.assert_array_equal(got, want, err_msg=field.name)
        elif isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), field.name
        else:
            assert got == want, field.name


@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("events", [None, "top:0.2", ">=1", "value", (_relevance, 0.4)])
def test_device_decile_table_equals_cpu(numpy_device, kind, events):
    rng = np.random.default_rng(81)
    y = rng.exponential(size=250).round(1)
    if kind == "binary":
        if events == "value":
            pytest.skip("value curves need a continuous y_true")
        y = (y > 1.0).astype(float)
    p = (y + rng.normal(size=250)).round(1)  # ties straddle the bin boundaries
    for sw in (None, rng.integers(0, 4, 250).astype(float), rng.uniform(0, 2, 250)):
        for n_bins in (10, 7):
            kw = dict(events=events, sample_weight=sw, n_bins=n_bins)
            _assert_result_equal(
                _call(rl.decile_table, on_device(y), p, **kw), _call(rl.decile_table, y, p, **kw)
            )


def test_device_profit_curve_equals_cpu(numpy_device):
    rng = np.random.default_rng(82)
    y = rng.exponential(size=300).round(1)
    p = (y + rng.normal(size=300)).round(1)
    for sw in (None, rng.integers(0, 4, 300).astype(float), rng.uniform(0, 2, 300)):
        for kw in (
            dict(cost_benefit=((10.0, 0.0), (-2.0, 0.0)), events="top:0.2"),
            dict(cost_benefit=((10.0, 0.0), (-2.0, 0.0)), budget=40.0, cost_per_target=1.0),
            dict(value_margin=2.0, cost_per_target=0.6, budget=55.0),
        ):
            _assert_result_equal(
                rl.profit_curve(on_device(y), p, sample_weight=sw, **kw),
                rl.profit_curve(y, p, sample_weight=sw, **kw),
            )


# ---------------------------------------------------------------------------------------------
# compare_models(device="gpu") with the engine on NumPy
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["binary", "continuous", "mixed"])
@pytest.mark.parametrize("weights", [None, "integer", "fractional"])
def test_compare_models_device_targeting_equals_cpu(numpy_device, kind, weights):
    y, p = _data(300, kind, seed=31)
    rng = np.random.default_rng(32)
    preds = {"a": p, "b": (y + 2 * rng.normal(size=y.size)).round(0)}
    sw = {
        None: None,
        "integer": rng.integers(0, 4, y.size).astype(float),
        "fractional": rng.uniform(0.1, 2.0, y.size),
    }[weights]
    kw = dict(metrics=[*NAMES, "kendall_tau"], n_bootstrap=40, random_state=5, sample_weight=sw)
    cpu = _call(rl.compare_models, y, preds, **kw)
    dev = _call(rl.compare_models, y, preds, device="gpu", **kw)
    assert set(dev.evaluation) == {"gpu"}
    _close(dev.values, cpu.values)
    _close(dev.replicates, cpu.replicates)
    _close(dev.ci_lower, cpu.ci_lower)
    # without device=, the device follows the data: one input there sends the bootstrap there
    followed = _call(rl.compare_models, y, {**preds, "a": on_device(p)}, **kw)
    assert set(followed.evaluation) == {"gpu"}
    np.testing.assert_array_equal(followed.replicates, dev.replicates)
    # device="cpu" takes host copies of device inputs
    host = _call(rl.compare_models, on_device(y), preds, device="cpu", **kw)
    assert "gpu" not in set(host.evaluation)
    np.testing.assert_array_equal(host.replicates, cpu.replicates)


def test_compare_models_device_targeting_chunks(numpy_device, monkeypatch):
    y, p = _data(200, "continuous", seed=41)
    preds = {"a": p, "b": -p}
    kw = dict(metrics=["roc_auc", "lift_at_10"], n_bootstrap=30, random_state=3)
    whole = rl.compare_models(y, preds, device="gpu", **kw)
    per_row = gpu_engine.replicate_bytes(200)
    monkeypatch.setattr(gpu_engine, "free_bytes", lambda xp: int(3.5 * per_row / 0.5))
    chunked = rl.compare_models(y, preds, device="gpu", **kw)
    np.testing.assert_array_equal(chunked.replicates, whole.replicates)


# ---------------------------------------------------------------------------------------------
# Weighted ranking_summary of device inputs
# ---------------------------------------------------------------------------------------------


def _assert_weighted_summary_equal(dev, cpu):
    scale = max(1.0, cpu.concordant_pairs + cpu.discordant_pairs + cpu.tied_true_only_pairs)
    for field in dataclasses.fields(cpu):
        want, got = getattr(cpu, field.name), getattr(dev, field.name)
        if field.name.endswith("_pairs"):
            # pair classes are differences of sums of squared group weights: on the CPU the
            # float sums leave residues of a few ulps of the total pair weight
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12 * scale), field.name
        elif field.name == "weighted_discordance":  # pairs times a midrank distance
            tol = 1e-12 * scale * math.sqrt(scale)
            if math.isinf(want) or math.isinf(tol):  # beyond any float (weights of 1e150)
                assert got == want or got == pytest.approx(want, rel=1e-12), field.name
            else:
                assert got == pytest.approx(want, rel=1e-12, abs=tol), field.name
        elif isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-12, abs=1e-13, nan_ok=True), field.name
        elif field.name == "tau_ci":
            assert math.isnan(got.low) and math.isnan(want.low)
        else:
            assert got == want, field.name


@pytest.mark.parametrize("n", [2, 3, 7, 60, 400])
@pytest.mark.parametrize("ties", [False, True])
def test_weighted_summary_equals_cpu(n, ties):
    rng = np.random.default_rng(n)
    if ties:
        y, p = rng.integers(0, 5, n).astype(float), rng.integers(0, 7, n).astype(float)
    else:
        y, p = rng.normal(size=n), rng.normal(size=n)
    for sw in (
        rng.integers(0, 5, n).astype(float) + np.eye(1, n)[0],
        rng.uniform(0.0, 3.0, n),
        1e150 * rng.uniform(0.5, 1.0, n),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cpu = rl.ranking_summary(y, p, sample_weight=sw)
            dev = ranking._ranking_summary_on_device(y, p, sw, 0.95, namespace=np)
        _assert_weighted_summary_equal(dev, cpu)


def test_weighted_summary_integer_weights_are_repeated_rows():
    # integer weights: the pair counts are exact integers, those of the materialised data
    rng = np.random.default_rng(3)
    n = 300
    y, p = rng.integers(0, 6, n).astype(float), rng.integers(0, 9, n).astype(float)
    sw = rng.integers(0, 4, n)
    with pytest.warns(UndefinedMetricWarning, match="case weights"):
        dev = ranking._ranking_summary_on_device(y, p, sw, 0.95, namespace=np)
    rep = rl.ranking_summary(np.repeat(y, sw), np.repeat(p, sw))
    for name in ("discordant", "concordant", "tied_true_only", "tied_pred_only", "tied_both"):
        assert getattr(dev, f"{name}_pairs") == rep.exact_counts[f"{name}_pairs"], name
    assert dev.kendall_tau == pytest.approx(rep.kendall_tau, rel=1e-12)
    assert dev.spearman_rho == pytest.approx(rep.spearman_rho, rel=1e-12)
    assert dev.tau_normalized == pytest.approx(rep.tau_normalized, rel=1e-12)
    assert dev.weighted_discordance == pytest.approx(rep.weighted_discordance, rel=1e-12)
    assert math.isnan(dev.tau_variance) and dev.exact_counts is None


def test_weighted_summary_errors():
    y, p = np.arange(5.0), np.arange(5.0)
    with pytest.raises(ValueError, match="sums to zero"):
        ranking._ranking_summary_on_device(y, p, np.zeros(5), 0.95, namespace=np)
    with pytest.raises(ValueError, match="non-negative"):
        ranking._ranking_summary_on_device(y, p, -np.ones(5), 0.95, namespace=np)


# ---------------------------------------------------------------------------------------------
# On a CUDA device
# ---------------------------------------------------------------------------------------------


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_cupy_scalars_equal_cpu(kind):
    import cupy

    y, p = _data(100_000, kind, seed=51)
    sw = np.random.default_rng(52).integers(0, 4, y.size).astype(float)
    for f in SCALARS:
        got = f(cupy.asarray(y), cupy.asarray(p))
        assert got == pytest.approx(f(y, p), rel=1e-12, abs=1e-14)
        got = f(y, p, sample_weight=cupy.asarray(sw))
        assert got == pytest.approx(f(y, p, sample_weight=sw), rel=1e-12, abs=1e-14)


@pytest.mark.gpu
@needs_gpu
def test_cupy_compare_models_targeting_equals_cpu_for_host_draws(monkeypatch):
    import cupy

    y, p = _data(5000, "continuous", seed=61)
    preds = {"a": p, "b": (y + 2 * np.random.default_rng(62).normal(size=y.size)).round(1)}
    # Poisson draws are made on the host on either path: the same replicates
    kw = dict(metrics=NAMES, n_bootstrap=50, random_state=1, scheme="poisson")
    cpu = rl.compare_models(y, preds, **kw)
    dev = rl.compare_models(
        cupy.asarray(y), {k: cupy.asarray(v) for k, v in preds.items()}, device="gpu", **kw
    )
    _close(dev.replicates, cpu.replicates)


@pytest.mark.gpu
@needs_gpu
def test_cupy_weighted_summary_equals_cpu():
    import cupy

    rng = np.random.default_rng(71)
    n = 200_000
    y, p = rng.integers(0, 50, n).astype(float), rng.normal(size=n).round(2)
    sw = rng.integers(0, 4, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dev = rl.ranking_summary(cupy.asarray(y), cupy.asarray(p), sample_weight=cupy.asarray(sw))
        cpu = rl.ranking_summary(y, p, sample_weight=sw.astype(float))
    # integer weights are repeated rows: the exact reference is the materialised data's summary
    # (the CPU's weighted sweep sums float64 weights rescaled to mean 1: its tau-b, 0.0023 here,
    # was 1.7e-12 off, 7e-10 relative)
    rep = rl.ranking_summary(np.repeat(y, sw), np.repeat(p, sw))
    for name in ("discordant", "concordant", "tied_true_only", "tied_pred_only", "tied_both"):
        assert getattr(dev, f"{name}_pairs") == rep.exact_counts[f"{name}_pairs"], name
    for name in ("kendall_tau", "spearman_rho", "tau_normalized"):
        assert getattr(dev, name) == pytest.approx(getattr(rep, name), rel=1e-12), name
        assert getattr(dev, name) == pytest.approx(getattr(cpu, name), rel=1e-8, abs=1e-11)
    # R from float64 midrank sums (as on the CPU): a difference of sums of size n^3
    assert dev.weighted_discordance == pytest.approx(rep.weighted_discordance, rel=1e-10)


@pytest.mark.gpu
@needs_gpu
def test_cupy_decile_table_and_profit_equal_cpu():
    import cupy

    y, p = _data(50_000, "continuous", seed=91)
    sw = np.random.default_rng(92).integers(0, 4, y.size).astype(float)
    args = cupy.asarray(y), cupy.asarray(p)
    _assert_result_equal(
        rl.decile_table(*args, sample_weight=cupy.asarray(sw)),
        rl.decile_table(y, p, sample_weight=sw),
    )
    kw = dict(cost_benefit=((10.0, 0.0), (-2.0, 0.0)), budget=4000.0, cost_per_target=1.0)
    _assert_result_equal(rl.profit_curve(*args, **kw), rl.profit_curve(y, p, **kw))


@pytest.mark.gpu
@needs_gpu
def test_torch_tensors_through_dlpack_targeting():
    torch = pytest.importorskip("torch")
    y, p = _data(20_000, "binary", seed=93)
    got = rl.roc_auc(torch.as_tensor(y, device="cuda"), torch.as_tensor(p, device="cuda"))
    assert got == rl.roc_auc(y, p)
