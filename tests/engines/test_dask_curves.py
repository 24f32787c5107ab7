"""ranklens.dask curves as arrays: ROC, gain, lift, profit and the best model by depth equal the
in-memory result objects field by field (counts exactly, floats to 1e-12), for 1, 3 and 7
partitions, with weights, and with tie runs of predictions across partition boundaries
(30 % of the rows share one prediction value)."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import evaluate_models  # noqa: E402
from ranklens._measures.rank_sweep import rank_sweep  # noqa: E402
from ranklens.ranking import cutoff_auc_curve, ranking_summary  # noqa: E402
from ranklens.targeting import (  # noqa: E402
    best_model_by_depth,
    gain_curve,
    lift_curve,
    profit_curve,
    roc_curve,
)

pytestmark = pytest.mark.usefixtures("client")  # the LocalCluster of conftest.py

TOL = 1e-12


def _same(got, want, path: str = "") -> None:
    """Field-by-field equality of two results: arrays and floats to TOL, the rest exactly."""
    if dataclasses.is_dataclass(want):
        assert type(got) is type(want), path
        for f in dataclasses.fields(want):
            _same(getattr(got, f.name), getattr(want, f.name), f"{path}.{f.name}")
    elif isinstance(want, np.ndarray) and want.dtype.kind == "f":
        assert got.shape == want.shape, path
        scale = np.maximum(1.0, np.abs(want))
        with np.errstate(invalid="ignore"):
            close = np.abs(got - want) <= TOL * scale
        ok = (got == want) | close | (np.isnan(got) & np.isnan(want))
        assert ok.all(), (path, got[~ok][:5], want[~ok][:5])
    elif isinstance(want, np.ndarray):
        assert np.array_equal(got, want), path
    elif isinstance(want, float):
        assert isinstance(got, float | int), path
        if math.isnan(want):
            assert math.isnan(got), path
        elif got != want:
            assert abs(got - want) <= TOL * max(1.0, abs(want)), (path, got, want)
    elif isinstance(want, tuple | list):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{path}[{i}]")
    else:
        assert got == want, (path, got, want)


COST_BENEFIT = [[4.0, 0.0], [-1.5, 0.0]]


@pytest.mark.parametrize(("binary", "zeros"), [(True, 0.0), (False, 0.0), (False, 0.4)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("npartitions", "n_buckets"), [(1, 1), (3, 4), (7, 9)])
def test_curves_equal_in_memory(binary, zeros, weighted, npartitions, n_buckets, curve_frame):
    df = curve_frame(1200, binary, seed=npartitions + 10 * weighted, zeros=zeros)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        metrics=["roc_auc", "kendall_tau"],
        n_buckets=n_buckets,
        curve_arrays=True,
        cost_benefit=COST_BENEFIT,
        budget=30.0,
        cost_per_target=0.1,
    )
    y = df["y"].to_numpy()
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in ("a", "b"):
            p = df[model].to_numpy()
            _same(ev.curves["roc"][model], roc_curve(y, p, **kw), f"roc {model}")
            _same(ev.curves["gain"][model], gain_curve(y, p, **kw), f"gain {model}")
            _same(ev.curves["lift"][model], lift_curve(y, p, **kw), f"lift {model}")
            want = profit_curve(
                y, p, cost_benefit=COST_BENEFIT, budget=30.0, cost_per_target=0.1, **kw
            )
            _same(ev.curves["profit"][model], want, f"profit {model}")
            _same(ev.curves["cutoff_auc"][model], cutoff_auc_curve(y, p, **kw), f"cutoff {model}")
            if not weighted:  # counts are exact integers
                assert ev.curves["roc"][model].n_events == float((y >= _threshold(ev, y)).sum())
        by_depth = best_model_by_depth(y, {"a": df["a"].to_numpy(), "b": df["b"].to_numpy()}, **kw)
    _same(ev.extras["best_model_by_depth"], by_depth, "best_model_by_depth")
    # the budget binds (300 targets of 1200 rows) inside the heavy tie run of model a or not:
    assert ev.curves["profit"]["a"].max_targets == 300


def _threshold(ev, y: np.ndarray) -> float:
    definition = ev.settings["events"]
    if definition == "binary":
        return 1.0
    return float(np.sort(y)[::-1][math.ceil(0.1 * y.size) - 1])


def test_curves_equal_the_in_memory_evaluation(curve_frame):
    """The curves of the in-memory pipeline (evaluate_models) and of the Dask engine agree."""
    df = curve_frame(900, True, seed=3)
    preds = {m: df[m].to_numpy() for m in ("a", "b")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = evaluate_models(
            df["y"].to_numpy(),
            preds,
            cost_benefit=COST_BENEFIT,
            robustness=False,
        )
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=5),
        y_true="y",
        predictions=["a", "b"],
        metrics=["roc_auc"],
        n_buckets=6,
        curve_arrays=True,
        cost_benefit=COST_BENEFIT,
    )
    for name in (
        "roc",
        "gain",
        "lift",
        "profit",
        "decile_table",
        "cutoff_auc",
        "concordance_profile",
    ):
        for model in ("a", "b"):
            _same(ev.curves[name][model], mem.curves[name][model], f"{name} {model}")
    _same(ev.extras["best_model_by_depth"], mem.extras["best_model_by_depth"], "by depth")
    # every curve asked for is built (a curve it cannot build is named there with the reason)
    assert "concordance_profile" not in ev.extras["curves_not_built"]
    assert "profit" not in ev.extras["curves_not_built"]


def test_curve_arrays_off_by_default(curve_frame):
    df = curve_frame(300, True, seed=1)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=2), y_true="y", predictions="a", metrics=["roc_auc"]
    )
    # the decile table, and the REC and RROC curves at a bounded number of points, from sums
    assert set(ev.curves) == {"decile_table", "rec", "rroc"}
    assert "best_model_by_depth" not in ev.extras


def test_profit_needs_its_parameters(curve_frame):
    """Without cost_benefit the profit curve is left out, as in the in-memory pipeline."""
    df = curve_frame(300, False, seed=2)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a"],
        metrics=["roc_auc"],
        curve_arrays=True,
    )
    assert "profit" not in ev.curves  # no profit parameters: not built, as in memory
    assert {"roc", "gain", "lift"} <= set(ev.curves)


@pytest.mark.parametrize(("binary", "zeros"), [(True, 0.0), (False, 0.0), (False, 0.4)])
@pytest.mark.parametrize(("npartitions", "n_buckets"), [(1, 1), (3, 4), (7, 9)])
def test_noether_interval_equals_ranking_summary(
    binary, zeros, npartitions, n_buckets, curve_frame
):
    """Noether's variances of tau (plug-in, unbiased) and the interval equal ranking_summary's;
    the nine per-row sums behind them equal the in-memory sweep's exactly."""
    df = curve_frame(1000, binary, seed=npartitions, zeros=zeros)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        metrics=["kendall_tau"],
        n_buckets=n_buckets,
    )
    y = df["y"].to_numpy()
    for model in ("a", "b"):
        p = df[model].to_numpy()
        got = ev.extras["noether"][model]
        want = ranking_summary(y, p)
        assert got["moments"] == [int(v) for v in rank_sweep(y, p, None)[1]]
        _same(got["kendall_tau"], want.kendall_tau, "tau")
        _same(got["tau_variance"], want.tau_variance, "plug-in")
        _same(got["tau_variance_unbiased"], want.tau_variance_unbiased, "unbiased")
        _same(got["tau_ci"], want.tau_ci, "ci")


def test_no_noether_interval_with_weights(curve_frame):
    """With case weights tau has no Noether interval (as ranking_summary): none is made."""
    df = curve_frame(300, False, seed=4)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions="a",
        sample_weight="w",
        metrics=["kendall_tau"],
    )
    assert "noether" not in ev.extras


@pytest.mark.parametrize("weighted", [False, True])
def test_sorted_input_tie_runs_across_partitions(weighted, curve_frame):
    """Rows sorted by prediction: the heavy tie run (30 % of rows) spans several input
    partitions, and every other run starts in one partition and ends in the next."""
    df = curve_frame(1400, False, seed=5, zeros=0.3).sort_values("a", kind="stable")
    df = df.reset_index(drop=True)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=7, sort=False),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        metrics=["kendall_tau", "roc_auc"],
        n_buckets=5,
        curve_arrays=True,
    )
    y = df["y"].to_numpy()
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in ("a", "b"):
            p = df[model].to_numpy()
            _same(ev.curves["roc"][model], roc_curve(y, p, **kw), f"roc {model}")
            _same(ev.curves["gain"][model], gain_curve(y, p, **kw), f"gain {model}")
            _same(ev.curves["cutoff_auc"][model], cutoff_auc_curve(y, p, **kw), "cutoff")
            if not weighted:
                want = ranking_summary(y, p)
                _same(ev.extras["noether"][model]["tau_ci"], want.tau_ci, "noether")


@pytest.mark.parametrize("zeros", [0.0, 0.4])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("npartitions", "n_buckets"), [(1, 1), (7, 9)])
def test_value_curves_equal_in_memory(zeros, weighted, npartitions, n_buckets, curve_frame):
    """The curves of the value captured (events='value'): the value gain and the profit of a
    value margin within a budget, whose perfect curves need the distinct values of y."""
    df = curve_frame(1100, False, seed=npartitions + 2 * weighted, zeros=zeros)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        metrics=["roc_auc"],
        n_buckets=n_buckets,
        curve_arrays=True,
        value_margin=2.0,
        cost_per_target=0.75,
        budget=150.0,
    )
    y = df["y"].to_numpy()
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in ("a", "b"):
            p = df[model].to_numpy()
            want = gain_curve(y, p, events="value", **kw)
            _same(ev.curves["value_gain"][model], want, f"value gain {model}")
            want = profit_curve(
                y, p, value_margin=2.0, cost_per_target=0.75, budget=150.0, events="value", **kw
            )
            _same(ev.curves["profit"][model], want, f"profit {model}")
    assert ev.curves["profit"]["a"].max_targets == 200


def test_value_curves_match_the_in_memory_evaluation(curve_frame):
    """evaluate_models with a value margin: the same value gain and profit curves."""
    df = curve_frame(700, False, seed=8, zeros=0.2)
    preds = {m: df[m].to_numpy() for m in ("a", "b")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = evaluate_models(
            df["y"].to_numpy(), preds, value_margin=3.0, cost_per_target=1.0, robustness=False
        )
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a", "b"],
        metrics=["roc_auc"],
        n_buckets=5,
        curve_arrays=True,
        value_margin=3.0,
        cost_per_target=1.0,
    )
    for name in ("value_gain", "profit", "roc", "gain", "lift", "cutoff_auc"):
        assert set(ev.curves[name]) == set(mem.curves[name]), name
        for model in ("a", "b"):
            _same(ev.curves[name][model], mem.curves[name][model], f"{name} {model}")
    assert set(mem.curves) - set(ev.curves) <= set(ev.extras["curves_not_built"])


def test_options_that_would_do_nothing_are_refused(curve_frame):
    df = curve_frame(200, True, seed=6)
    frame = dd.from_pandas(df, npartitions=2)
    with pytest.raises(ValueError, match=r"cost_benefit.*curve_arrays=True"):
        rd.evaluate(frame, y_true="y", predictions="a", cost_benefit=COST_BENEFIT)
    with pytest.raises(ValueError, match=r"budget.*curve_arrays=True"):
        rd.evaluate(frame, y_true="y", predictions="a", budget=10.0, cost_per_target=1.0)
    with pytest.raises(ValueError, match="exact=True"):
        rd.evaluate(frame, y_true="y", predictions="a", curve_arrays=True, exact=False)


def test_curves_from_parquet_files(parquet_files, curve_frame):
    """Parquet files in, the same curves and Noether interval as in memory on their rows."""
    df = curve_frame(800, False, seed=9, zeros=0.2)
    _, parts_glob = parquet_files(df, 4)
    ev = rd.evaluate(
        parts_glob,
        y_true="y",
        predictions=["a", "b"],
        metrics=["kendall_tau"],
        n_buckets=3,
        curve_arrays=True,
    )
    y = df["y"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in ("a", "b"):
            p = df[model].to_numpy()
            _same(ev.curves["lift"][model], lift_curve(y, p), f"lift {model}")
            _same(ev.curves["cutoff_auc"][model], cutoff_auc_curve(y, p), f"cutoff {model}")
            _same(ev.curves["value_gain"][model], gain_curve(y, p, events="value"), "value")
            _same(ev.extras["noether"][model]["tau_ci"], ranking_summary(y, p).tau_ci, "ci")
