"""ranklens.dask gives DeLong's interval of Harrell's C and Somers' D (any response) and DeLong's
paired tests of the AUC and of C (DeLong, DeLong & Clarke-Pearson 1988; Sun & Xu 2014) in the
comparison of ``evaluate(..., inference="auto")``, equal to the in-memory numbers: the
comparison fields of ``ranklens.evaluate_models`` to 1e-12 (relative), ``delong_interval``,
``delong_test`` and ``compare_models(method="delong")``; for 1, 3 and 7 partitions with tie runs
of predictions straddling the partition boundaries and a heavy truth value, with and without
weights, for a two-valued response (DeLong's two-sample form) and for three models. Without
weights the covariances are exact rationals rounded once: the same bits for every partitioning.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import compare_models, evaluate_models  # noqa: E402
from ranklens.delong import delong_interval, delong_test  # noqa: E402

TOL = 1e-12
MEASURES = ["roc_auc", "tau_normalized", "somers_d", "kendall_tau"]
DELONG = ("roc_auc", "tau_normalized", "somers_d")
PER_MODEL = ("values", "std_error", "ci_lower", "ci_upper", "variance_plug_in")
PER_PAIR = (
    "difference",
    "difference_sd",
    "z",
    "p_value",
    "p_value_one_sided",
    "difference_ci_lower",
    "difference_ci_upper",
)

pytestmark = pytest.mark.usefixtures("client")


def _data(n: int, seed: int, models: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.lognormal(size=n).round(1)
    y[rng.random(n) < 0.25] = 0.0  # a heavy truth value: a single-valued truth bucket
    out = {"y": y}
    for k, name in enumerate("abc"[:models]):
        # few distinct values: tie runs longer than a partition, across every boundary
        p = np.round(rng.normal(size=n) + (0.6 - 0.2 * k) * (y > np.median(y)), 1)
        p[rng.random(n) < 0.2] = 0.5
        out[name] = p
    out["w"] = rng.uniform(0.1, 3.0, n)
    return pd.DataFrame(out)


def _close(got, want, what: str) -> None:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    ok = np.abs(got - want) <= TOL * np.maximum(1.0, np.abs(want))
    ok |= np.isnan(got) & np.isnan(want)
    assert ok.all(), (what, got, want)


def _memory(df: pd.DataFrame, models: list[str], weighted: bool):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_models(
            df["y"],
            {m: df[m] for m in models},
            sample_weight=df["w"] if weighted else None,
            n_bootstrap=2,
            robustness=False,
            curves=False,
        ).comparison


def _dask(df, models, weighted, parts, n_buckets, **kw):
    return rd.evaluate(
        dd.from_pandas(df, npartitions=parts),
        y_true="y",
        predictions=models,
        sample_weight="w" if weighted else None,
        metrics=MEASURES,
        n_buckets=n_buckets,
        **kw,
    )


def _same_comparison(got, want, names=DELONG) -> None:
    assert got.models == want.models and got.pairs == want.pairs
    for name in names:
        i, j = got.metrics.index(name), want.metrics.index(name)
        assert got.interval_methods[i] == want.interval_methods[j] == "delong-logit", name
        assert got.test_methods[i] == want.test_methods[j] == "delong", name
        for field in (*PER_MODEL, *PER_PAIR):
            _close(getattr(got, field)[i], getattr(want, field)[j], f"{name}.{field}")


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _data(700, seed=3)


@pytest.fixture(scope="module")
def memory(frame):
    return {w: _memory(frame, ["a", "b"], w) for w in (False, True)}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("parts, n_buckets", [(1, 1), (3, 3), (7, 4)])
def test_comparison_equals_evaluate_models(frame, memory, weighted, parts, n_buckets):
    ev = _dask(frame, ["a", "b"], weighted, parts, n_buckets)
    _same_comparison(ev.comparison, memory[weighted])
    # Kendall's tau keeps Noether's interval (unweighted) and is not tested without replicates
    if not weighted:
        k = ev.comparison.metrics.index("kendall_tau")
        assert ev.comparison.test_methods[k] == ""
    else:
        assert "kendall_tau" not in ev.comparison.metrics
    # the one-model results: DeLong's interval of C as ranklens.delong_interval
    for model in ("a", "b"):
        got = ev.extras["delong_c"][model]
        want = delong_interval(
            frame["y"], frame[model], sample_weight=frame["w"] if weighted else None
        )
        assert (got.statistic, got.design, got.n) == (want.statistic, want.design, want.n)
        _close(
            [got.estimate, got.std_error, *got.ci], [want.estimate, want.std_error, *want.ci], model
        )
        assert got.estimate == pytest.approx(ev.values[model]["tau_normalized"], rel=TOL)
    # the paired tests as ranklens.delong_test (C) on the same rows
    test = delong_test(
        frame["y"], frame["a"], frame["b"], sample_weight=frame["w"] if weighted else None
    )
    i = ev.comparison.metrics.index("tau_normalized")
    _close(
        [ev.comparison.difference_sd[i, 0], ev.comparison.z[i, 0], ev.comparison.p_value[i, 0]],
        [test.difference_std_error, test.z, test.p_value],
        "delong_test",
    )
    assert ev.settings["paired tests"].startswith("DeLong")


def test_unweighted_covariances_are_the_same_bits_for_every_partitioning(frame):
    runs = [_dask(frame, ["a", "b"], False, p, b) for p, b in [(1, 1), (3, 2), (7, 5)]]
    for key in ("auc", "harrell_c"):
        first = runs[0].extras["delong_covariance"][key]
        assert np.isfinite(first).all()
        for ev in runs[1:]:
            assert np.array_equal(ev.extras["delong_covariance"][key], first), key
    for name in DELONG:
        k = runs[0].comparison.metrics.index(name)
        # the AUC's own interval comes from float sums of the buckets (agreeing to rounding)
        fields = PER_PAIR if name == "roc_auc" else (*PER_MODEL, *PER_PAIR)
        for ev in runs[1:]:
            for field in fields:
                assert np.array_equal(
                    getattr(ev.comparison, field)[k], getattr(runs[0].comparison, field)[k]
                ), (name, field)


@pytest.mark.parametrize("weighted", [False, True])
def test_three_models_equal_compare_models_delong(weighted):
    df = _data(500, seed=11, models=3)
    models = ["a", "b", "c"]
    ev = _dask(df, models, weighted, 5, 3)
    assert len(ev.comparison.pairs) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = compare_models(
            df["y"],
            {m: df[m] for m in models},
            metrics=list(DELONG),
            method="delong",
            sample_weight=df["w"] if weighted else None,
        )
    _same_comparison_fields(ev.comparison, want)


def _same_comparison_fields(got, want) -> None:
    assert got.pairs == want.pairs
    for name in want.metrics:
        i, j = got.metrics.index(name), want.metrics.index(name)
        assert got.test_methods[i] == "delong"
        for field in (*PER_MODEL, *PER_PAIR):
            _close(getattr(got, field)[i], getattr(want, field)[j], f"{name}.{field}")


@pytest.mark.parametrize("values", [(0.0, 1.0), (2.0, 5.0)])
@pytest.mark.parametrize("weighted", [False, True])
def test_two_valued_response_takes_the_two_sample_form(values, weighted):
    """A response with two values: C is the AUC, with DeLong's two-sample variance (two strata,
    as the in-memory components), whichever the two values are."""
    rng = np.random.default_rng(5)
    n = 600
    event = rng.random(n) < 0.3
    df = pd.DataFrame(
        {
            "y": np.where(event, values[1], values[0]),
            "a": np.round(rng.normal(size=n) + 0.8 * event, 1),
            "b": rng.integers(0, 6, n).astype(float),
            "w": rng.uniform(0.2, 2.0, n),
        }
    )
    sw = df["w"] if weighted else None
    for parts, n_buckets in [(1, 1), (3, 2), (7, 4)]:
        ev = _dask(df, ["a", "b"], weighted, parts, n_buckets)
        for model in ("a", "b"):
            got = ev.extras["delong_c"][model]
            want = delong_interval(df["y"], df[model], sample_weight=sw)
            assert got.statistic == want.statistic == "auc"
            assert got.design == want.design
            _close([got.estimate, got.std_error], [want.estimate, want.std_error], model)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want_cmp = compare_models(
                df["y"],
                {"a": df["a"], "b": df["b"]},
                metrics=list(DELONG),
                method="delong",
                sample_weight=sw,
            )
        _same_comparison_fields(ev.comparison, want_cmp)


def test_pandas_parquet_read_back(frame, memory, tmp_path):
    pytest.importorskip("pyarrow")
    (tmp_path / "parts").mkdir()
    rows = -(-len(frame) // 3)
    for i in range(3):
        frame.iloc[i * rows : (i + 1) * rows].to_parquet(tmp_path / "parts" / f"p{i}.parquet")
    ev = rd.evaluate(
        str(tmp_path / "parts" / "*.parquet"),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
        metrics=MEASURES,
        n_buckets=3,
    )
    _same_comparison(ev.comparison, memory[True])


def test_auc_pairs_alone_and_one_model():
    """Only the AUC asked for (no rank correlation: the shuffles are chained for the pairs); one
    model: C's interval, no pair."""
    df = _data(400, seed=8)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3), y_true="y", predictions=["a", "b"], metrics=["roc_auc"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = compare_models(
            df["y"], {"a": df["a"], "b": df["b"]}, metrics=["roc_auc"], method="delong"
        )
    _same_comparison_fields(ev.comparison, want)
    assert "harrell_c" not in ev.extras["delong_covariance"]

    one = _dask(df, ["a"], False, 3, 2)
    k = one.comparison.metrics.index("somers_d")
    assert one.comparison.interval_methods[k] == "delong-logit"
    assert one.comparison.pairs == ()
    want_d = delong_interval(df["y"], df["a"])
    assert one.comparison.std_error[k, 0] == pytest.approx(2 * want_d.std_error, rel=TOL)


def test_bootstrap_inference_leaves_delong_out(frame):
    ev = _dask(frame, ["a", "b"], False, 3, 2, n_bootstrap=20, inference="bootstrap")
    assert "delong_c" not in ev.extras and "delong_covariance" not in ev.extras
    for name in DELONG:
        k = ev.comparison.metrics.index(name)
        assert ev.comparison.interval_methods[k] == "bootstrap-percentile"
        assert ev.comparison.test_methods[k] == "bootstrap"
    # with inference="auto" and replicates, the DeLong rows stay DeLong's
    auto = _dask(frame, ["a", "b"], False, 3, 2, n_bootstrap=20)
    for name in DELONG:
        k = auto.comparison.metrics.index(name)
        assert auto.comparison.test_methods[k] == "delong"


def test_undefined_variance_is_nan_as_in_memory():
    """A two-valued response with one event: DeLong's variance has no estimate (NaN), as
    ranklens.delong_interval says."""
    rng = np.random.default_rng(2)
    n = 200
    y = np.zeros(n)
    y[17] = 1.0
    df = pd.DataFrame({"y": y, "a": rng.normal(size=n).round(1), "b": rng.normal(size=n)})
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a", "b"],
        metrics=["tau_normalized"],
        n_buckets=2,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = delong_interval(df["y"], df["a"])
    got = ev.extras["delong_c"]["a"]
    assert math.isnan(want.std_error) and math.isnan(got.std_error)
    assert got.estimate == pytest.approx(want.estimate, rel=TOL)
    k = ev.comparison.metrics.index("tau_normalized")
    assert np.isnan(ev.comparison.difference_sd[k]).all()


def test_groups_take_the_clustered_replicates_throughout(frame):
    """With units (groups), as in memory: every interval and test from the clustered replicates
    (DeLong's variances assume independent rows)."""
    df = frame.assign(g=np.arange(len(frame)) // 4)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a", "b"],
        groups="g",
        metrics=MEASURES,
        n_bootstrap=10,
        n_buckets=2,
    )
    assert "delong_c" not in ev.extras and "delong_covariance" not in ev.extras
    assert set(ev.comparison.interval_methods) == {"bootstrap-percentile"}
    assert set(ev.comparison.test_methods) == {"bootstrap"}


def test_groups_without_replicates_are_refused(frame):
    """Units change only the bootstrap: without replicates they would be ignored silently."""
    df = frame.assign(g=np.arange(len(frame)) // 4)
    with pytest.raises(ValueError, match=r"groups='g' needs n_bootstrap"):
        rd.evaluate(
            dd.from_pandas(df, npartitions=3), y_true="y", predictions=["a", "b"], groups="g"
        )


@pytest.mark.parametrize("weighted", [False, True])
def test_without_kendall_tau_the_counts_are_the_engines_own(weighted):
    """C and D alone (no Noether pass to share the per-row counts with)."""
    df = _data(500, seed=21)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=7),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        metrics=["tau_normalized", "somers_d"],
        n_buckets=3,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = compare_models(
            df["y"],
            {"a": df["a"], "b": df["b"]},
            metrics=["tau_normalized", "somers_d"],
            method="delong",
            sample_weight=df["w"] if weighted else None,
        )
    _same_comparison_fields(ev.comparison, want)
