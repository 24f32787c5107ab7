"""ranklens.dask: every measure it computes equals the in-memory one, whatever the partitioning.

The reference is the registered in-memory function itself (which has its own brute-force and
scipy/sklearn checks); counts are compared exactly, floats to 1e-12 (relative).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens._compute.kernels import ranking as _kr  # noqa: E402
from ranklens._measures.rank_sweep import pair_class_stats, rank_sweep  # noqa: E402
from ranklens.metrics import get_metric  # noqa: E402
from ranklens.targeting import decile_table  # noqa: E402

TOL = 1e-12


def _data(n: int, binary: bool, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(float) if binary else rng.integers(0, 40, n).astype(float)
    return pd.DataFrame(
        {
            "y": y,
            # few distinct values: tie runs longer than a partition, straddling every boundary
            "a": np.round(rng.normal(size=n) + 0.05 * y, 1),
            "b": rng.integers(0, 7, n).astype(float),
            "w": rng.uniform(0.5, 2.0, n),
            "g": rng.integers(0, n // 10, n),
        }
    )


def _reference(spec, df: pd.DataFrame, model: str, weighted: bool, **kw):
    if weighted:
        kw["sample_weight"] = df["w"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return spec.func(df["y"].to_numpy(), df[model].to_numpy(), **kw)
        except ValueError:
            return math.nan


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _check_all(ev, df: pd.DataFrame, weighted: bool, events=None) -> int:
    checked = 0
    for model in ev.model_names:
        for name, value in ev.values[model].items():
            problem = ev.problems.get(model, {}).get(name)
            if problem is not None and problem.kind == "skipped":
                continue
            spec = get_metric(name)
            kw = {"events": events} if events is not None and "events" in _params(spec) else {}
            ref = _reference(spec, df, model, weighted, **kw)
            assert _close(value, ref), (model, name, value, ref)
            checked += 1
    return checked


def _params(spec):
    import inspect

    return inspect.signature(spec.func).parameters


def _exact_pairs(df: pd.DataFrame, model: str) -> dict:
    y = df["y"].to_numpy()
    p = df[model].to_numpy()
    s = pair_class_stats(rank_sweep(y, p, None)[0], exact=True)
    return {k: s[k] for k in ("concordant", "discordant", "tied_both", "distinct_y")}


@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize(
    ("npartitions", "n_buckets"),
    [(1, 1), (3, 4), pytest.param(7, 9, marks=pytest.mark.slow)],
)
def test_unweighted_equals_in_memory(client, binary, npartitions, n_buckets):
    df = _data(1500, binary, seed=npartitions)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        n_buckets=n_buckets,
    )
    assert ev.n == len(df)
    # the AUC family, residual sums and the rank correlations are all computed
    assert _check_all(ev, df, weighted=False) >= 2 * 17
    for model in ("a", "b"):
        got = ev.extras["pair_counts"][model]
        want = _exact_pairs(df, model)
        for key, value in want.items():
            assert got[key] == value and isinstance(got[key], int), (model, key)


@pytest.mark.parametrize("binary", [True, False])
def test_weighted_equals_in_memory(client, binary):
    df = _data(1500, binary, seed=11)
    df.loc[::17, "w"] = 0.0  # rows of zero weight are dropped, as in memory
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=5),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
        n_buckets=6,
    )
    assert _check_all(ev, df, weighted=True) >= 2 * 17


@pytest.mark.parametrize("weighted", [False, True])
def test_decile_table_equals_in_memory(client, weighted):
    df = _data(2000, binary=True, seed=3)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        n_buckets=5,
        n_bins=10,
    )
    for model in ("a", "b"):
        kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
        want = decile_table(df["y"].to_numpy(), df[model].to_numpy(), **kw)
        got = ev.curves["decile_table"][model]
        for field in want._COLUMNS:
            np.testing.assert_allclose(
                getattr(got, field), getattr(want, field), rtol=TOL, atol=TOL, err_msg=field
            )
        assert got.ks_max == pytest.approx(want.ks_max, rel=TOL, abs=TOL)


@pytest.mark.parametrize(
    "events",
    [
        "top:0.1",
        ">20",
        pytest.param(">=20", marks=pytest.mark.slow),
        pytest.param(25.0, marks=pytest.mark.slow),
    ],
)
def test_event_definitions_on_continuous_y(client, events):
    df = _data(1200, binary=False, seed=5)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a"],
        events=events,
        n_buckets=4,
        metrics=["roc_auc", "ks_statistic", "lift_at_10", "gain_area"],
    )
    assert _check_all(ev, df, weighted=False, events=events) == 4


@pytest.mark.parametrize(
    "events", ["top:0", "top:1.5", "top:150%", ">=nan", ">inf", "top10", "value"]
)
def test_event_definitions_are_refused_as_in_memory(client, events):
    from ranklens.targeting import roc_auc

    df = _data(200, binary=False, seed=3)
    with pytest.raises(ValueError) as in_memory:
        roc_auc(df["y"].to_numpy(), df["a"].to_numpy(), events=events)
    with pytest.raises(ValueError) as on_dask:
        rd.evaluate(
            dd.from_pandas(df, npartitions=2), y_true="y", predictions=["a"], events=events,
            n_buckets=4, metrics=["roc_auc"],
        )  # fmt: skip
    if events == "value":  # a definition the Dask engine does not take, named as such
        assert "Dask engine takes None" in str(on_dask.value)
    else:  # the same grammar: the same message
        assert str(on_dask.value) == str(in_memory.value)


def test_weighted_top_quantile_events(client):
    df = _data(1200, binary=False, seed=8)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a"],
        sample_weight="w",
        n_buckets=5,
        metrics=["roc_auc", "lift_at_5"],
    )
    assert _check_all(ev, df, weighted=True, events="top:0.1") == 2


def test_parquet_glob(client, parquet_files):
    df = _data(900, binary=True, seed=2)
    _, parts_glob = parquet_files(df, 3)
    ev = rd.evaluate(
        parts_glob,
        y_true="y",
        predictions=["a"],
        metrics=["roc_auc", "kendall_tau", "root_mean_squared_error"],
        n_buckets=3,
    )
    assert _check_all(ev, df, weighted=False) == 3


def test_files_of_several_row_groups_are_read_in_pieces(client, tmp_path, monkeypatch):
    """A file of several row groups is read a piece of whole row groups at a time, of about a
    bucket's bytes (not whole): the same numbers, the rows in the file's order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ranklens.dask import _engine
    from ranklens.dask._evaluate import _loader

    df = _data(1200, binary=True, seed=5)
    for i in range(2):  # two files of 600 rows, row groups of 100 rows
        rows = df.iloc[600 * i : 600 * (i + 1)]
        table = pa.Table.from_pandas(rows, preserve_index=False)
        pq.write_table(table, tmp_path / f"part{i}.parquet", row_group_size=100)
    glob = str(tmp_path / "*.parquet")
    columns = ["y", "a", "b"]
    monkeypatch.setattr(_engine, "ROWS_PER_BUCKET", 100)  # a bucket: one row group's bytes
    frame = _loader(glob, columns, None)(columns)
    assert frame.npartitions == 12
    np.testing.assert_array_equal(frame.compute()["a"].to_numpy(), df["a"].to_numpy())
    # a bucket of three row groups' rows: small row groups are read together (as many as fit the
    # bucket's bytes with the file's overhead: two here), never more than the file
    monkeypatch.setattr(_engine, "ROWS_PER_BUCKET", 300)
    assert 4 <= _loader(glob, columns, None)(columns).npartitions < 12
    ev = rd.evaluate(
        glob,
        y_true="y",
        predictions=["a", "b"],
        metrics=["roc_auc", "kendall_tau", "mean_absolute_error"],
    )
    assert _check_all(ev, df, weighted=False) == 6


def test_measures_chosen_by_declaration(client, monkeypatch):
    from ranklens._foundation.registry import REGISTRY, MetricSpec

    df = _data(300, binary=True)
    ev = rd.evaluate(dd.from_pandas(df, npartitions=2), y_true="y", predictions="a")
    # every registered point measure declares a distributed form, but the isotonic fits of
    # ranklens.calibration (a sequential pass in the order of the prediction) and the partial
    # AUC (a curve functional the engine does not sum yet): skipped, saying so by name
    skipped = {k for k, p in ev.problems["a"].items() if p.kind == "skipped"}
    assert skipped == {"miscalibration", "discrimination", "partial_roc_auc"}
    # a median, the lag-scaled pmap and the measures of a 0/1 target are computed too; those
    # of rare extremes are not (a target of two values has none), and the settings say why
    for name in ("median_absolute_error", "pmap", "roc_auc", "average_precision_score"):
        assert math.isfinite(ev.values["a"][name])
    assert "sera" not in ev.values["a"] and "extreme" in ev.settings["binary target"]
    continuous = rd.evaluate(
        dd.from_pandas(_data(300, False), npartitions=2),
        y_true="y",
        predictions="a",
        metrics=["sera"],
    )
    assert math.isfinite(continuous.values["a"]["sera"])
    assert ev.settings["engine"] == "dask"
    # a measure that declares none is reported as skipped, with the reason, and NaN
    monkeypatch.setitem(
        REGISTRY, "no_form_score", MetricSpec("no_form_score", lambda y, p: 0.0, True, "ranking")
    )
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=2),
        y_true="y",
        predictions="a",
        metrics=["no_form_score", "roc_auc"],
    )
    problem = ev.problems["a"]["no_form_score"]
    assert problem.kind == "skipped" and "declares no computational form" in problem.message
    assert math.isnan(ev.values["a"]["no_form_score"]) and math.isfinite(ev.values["a"]["roc_auc"])


def test_binned_auc_bound(client):
    df = _data(3000, binary=True, seed=4)
    df["a"] = df["a"] + np.random.default_rng(0).normal(scale=0.01, size=len(df))
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3), y_true="y", predictions=["a", "b"], exact=False
    )
    for model in ("a", "b"):
        auc, bound = ev.extras["binned_auc"][model]
        exact = get_metric("roc_auc")(df["y"].to_numpy(), df[model].to_numpy())
        assert abs(auc - exact) <= bound + 1e-15
    # a score with 7 values: every bin is one value, so the binned AUC is exact
    assert ev.extras["binned_auc"]["b"][1] > 0


def test_binned_auc_bound_by_hand():
    # bins in increasing score: (events, non-events)
    auc, bound = rd.binned_auc(np.array([0, 1, 2]), np.array([2, 1, 0]))
    # pairs: event in bin 1 vs non-events below: 1*2; bin 2: 2*(2+1) = 6; same bin: 1*1 = 1
    assert auc == pytest.approx((2 + 6 + 0.5) / (3 * 3))
    assert bound == pytest.approx(0.5 / 9)


def test_missing_values_name_the_column(client):
    df = _data(200, binary=True)
    df.loc[5, "b"] = np.nan
    with pytest.raises(ValueError, match="'b'"):
        rd.evaluate(dd.from_pandas(df, npartitions=2), y_true="y", predictions=["a", "b"])


def test_exact_spearman_dot():
    from ranklens.dask._passes import exact_dot

    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**31 - 1, 1000)
    b = rng.integers(0, 2**31 - 1, 1000)
    assert exact_dot(a, b) == sum(int(u) * int(v) for u, v in zip(a, b, strict=True))
    big = np.array([2**40, 3], dtype=np.int64)
    assert exact_dot(big, big) == 2**80 + 9
    assert _kr is not None


@pytest.mark.parametrize("weighted", [False, True])
def test_heavy_truth_ties_mixed_with_continuous(client, weighted):
    # a zero-inflated target: the zeros are a bucket of their own (no shuffle), the rest is
    # shuffled by truth; both kinds of bucket feed tau, rho and C
    rng = np.random.default_rng(9)
    n = 1600
    y = np.where(rng.random(n) < 0.6, 0.0, rng.gamma(2.0, 3.0, n).round(1))
    df = pd.DataFrame(
        {"y": y, "a": (y + rng.normal(scale=3, size=n)).round(0), "w": rng.uniform(0.2, 3, n)}
    )
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a"],
        sample_weight="w" if weighted else None,
        n_buckets=6,
        metrics=["kendall_tau", "spearman_rho", "somers_d", "tau_normalized", "roc_auc"],
    )
    assert _check_all(ev, df, weighted=weighted) == 5
    if not weighted:
        got = ev.extras["pair_counts"]["a"]
        for key, value in _exact_pairs(df, "a").items():
            assert got[key] == value, key


def test_cli_engine_dask_same_json_as_in_memory(client, cli_dask_and_in_memory, results_entry):
    rng = np.random.default_rng(3)
    n = 4000
    y = np.exp(rng.normal(size=n)).round(2)
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.log(y) + rng.normal(size=n),
            "b": (np.log(y) + rng.normal(size=n)).round(1),
        }
    )
    common = ["--target", "y", "--pred", "a", "--pred", "b", "--bootstrap", "0", "-q"]
    got, want = cli_dask_and_in_memory(df, common, scheduler=client.scheduler.address, parts=4)
    compared = 0
    for model in ("a", "b"):
        for name in got["models"][model]:
            value, status = results_entry(got, model, name)
            if status == "skipped":
                continue
            ref_value, ref_status = results_entry(want, model, name)
            assert status == ref_status, name
            if ref_value is None:
                assert value is None
            else:
                assert _close(value, ref_value), name
            compared += 1
        assert got["curves"]["decile_table"][model] == want["curves"]["decile_table"][model]
    assert compared >= 2 * 17


@pytest.mark.slow
@pytest.mark.parametrize("groups", [None, "g"])
def test_poisson_bootstrap_by_rows_and_units(client, dask_by_partitions, poisson_counts, groups):
    _check_bootstrap(dask_by_partitions, poisson_counts, groups)


def test_poisson_bootstrap_by_units_fast(client, dask_by_partitions, poisson_counts):
    _check_bootstrap(dask_by_partitions, poisson_counts, "g", parts_list=(1, 7), n_rep=6)


def _check_bootstrap(dask_by_partitions, poisson_counts, groups, parts_list=(1, 3, 7), n_rep=16):
    """Replicates equal for every partitioning, and each equal to the in-memory measure under
    the replicate's Poisson weights."""
    df = _data(1500, binary=True, seed=21)
    measures = [
        "roc_auc",
        "ks_statistic",
        "gain_area",
        "accuracy_ratio",
        "average_precision_score",
        "precision_at_10",
        "recall_at_10",
        "root_mean_squared_error",
        "mean_absolute_error",
    ]
    evaluations = dask_by_partitions(
        df,
        parts_list,
        y_true="y",
        predictions="a",
        sample_weight="w",
        groups=groups,
        n_bootstrap=n_rep,
        random_state=5,
        metrics=measures,
    )
    replicates = {k: ev.extras["bootstrap"]["replicates"]["a"] for k, ev in evaluations.items()}
    assert set(replicates[1]) == set(measures)
    for parts in parts_list[1:]:
        for name in measures:
            np.testing.assert_allclose(
                replicates[parts][name], replicates[1][name], rtol=TOL, atol=TOL, err_msg=name
            )
    # each replicate is the in-memory measure under the replicate's Poisson weights
    counts = poisson_counts(df, groups, n_rep, 5)
    for name in measures:
        spec = get_metric(name)
        want = [
            spec.func(
                df["y"].to_numpy(), df["a"].to_numpy(), sample_weight=counts[r] * df["w"].to_numpy()
            )
            for r in range(n_rep)
        ]
        np.testing.assert_allclose(replicates[1][name], want, rtol=TOL, atol=TOL, err_msg=name)
    ev = evaluations[parts_list[-1]]
    for name in ("roc_auc", "average_precision_score"):
        low, high = ev.extras["bootstrap"]["intervals"]["a"][name]
        assert low < ev.values["a"][name] < high, name


@pytest.mark.parametrize("weighted", [False, True])
def test_delong_interval_equals_in_memory(client, weighted):
    delong = pytest.importorskip("ranklens.delong")
    delong_interval = delong.delong_interval

    df = _data(1800, binary=True, seed=13)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=5),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        n_buckets=4,
        metrics=["roc_auc"],
    )
    for model in ("a", "b"):
        got = ev.extras["delong"][model]
        want = delong_interval(df["y"], df[model], sample_weight=df["w"] if weighted else None)
        assert got.estimate == pytest.approx(want.estimate, rel=TOL)
        assert got.std_error == pytest.approx(want.std_error, rel=TOL)
        assert got.ci.low == pytest.approx(want.ci.low, rel=TOL)
        assert got.ci.high == pytest.approx(want.ci.high, rel=TOL)
        assert got.n == want.n


def test_missing_extra_names_the_install_command(monkeypatch):
    import ranklens._foundation.extras as extras

    real = extras._importable
    monkeypatch.setattr(extras, "_importable", lambda m: m != "distributed" and real(m))
    with pytest.raises(extras.MissingExtraError, match=r'pip install "ranklens\[dask\]"'):
        rd.evaluate("x.parquet", y_true="y", predictions="a")


def test_bad_arguments_are_named(client):
    df = _data(200, binary=False)
    frame = dd.from_pandas(df, npartitions=2)
    with pytest.raises(ValueError, match="events"):
        rd.evaluate(frame, y_true="y", predictions="a", events="value")
    with pytest.raises(ValueError, match="'zz'"):
        rd.evaluate(frame, y_true="y", predictions=["a", "zz"])
    with pytest.raises(ValueError, match="predictions"):
        rd.evaluate(frame, y_true="y", predictions=[])
    with pytest.raises(TypeError, match="data must be"):
        rd.evaluate(df, y_true="y", predictions="a")


@pytest.mark.parametrize("route", ["no expression", "another signature"])
def test_bucket_shuffle_public_route_gives_the_same_numbers(client, monkeypatch, route):
    """The shuffles by bucket use Dask's shuffle expression (not public API); a dask without it,
    or with another signature, takes ``set_index``: every value and pair count the same."""
    from ranklens.dask import _passes

    df = _data(1200, binary=False, seed=5)

    def run():
        return rd.evaluate(
            dd.from_pandas(df, npartitions=3),
            y_true="y",
            predictions=["a", "b"],
            sample_weight="w",
            metrics=[
                "roc_auc",
                "kendall_tau",
                "spearman_rho",
                "tau_normalized",
                "gain_area",
                "ndcg_score",
            ],
            n_buckets=4,
        )

    fast = run()
    if route == "no expression":
        monkeypatch.setattr(_passes, "_shuffle_expression", lambda: None)
    else:

        def changed(*args):
            raise TypeError("Shuffle() takes 3 positional arguments")

        monkeypatch.setattr(
            _passes, "_shuffle_expression", lambda: (changed, lambda expression: expression)
        )
    public = run()
    assert public.values == fast.values
    assert public.extras["pair_counts"] == fast.extras["pair_counts"]
    assert _check_all(public, df, weighted=True) >= 2 * 6


@pytest.mark.parametrize("method", ["tasks", "disk", "p2p"])
@pytest.mark.parametrize(("n_in", "n_out"), [(1, 40), (4, 3), (7, 7)])
def test_by_bucket_puts_each_bucket_in_its_partition(request, method, n_in, n_out):
    """Partition ``i`` holds exactly the rows of bucket ``i``, with every shuffle method (the
    task-based one hashes a column unless it has Dask's own name for the partition number), and
    no row is lost or changed. The bucket column itself is rebuilt from the partition number,
    so a copy of it is checked."""
    from ranklens.dask._passes import by_bucket

    rng = np.random.default_rng(n_in + n_out)
    n = 3000
    bucket = rng.integers(0, n_out, n).astype(np.int16)
    df = pd.DataFrame({"row": np.arange(n), "bucket": bucket, "copy": bucket.astype(np.int64)})
    # the peer-to-peer shuffle runs on a cluster only
    scheduler = request.getfixturevalue("client").get if method == "p2p" else "sync"
    with dask.config.set({"scheduler": scheduler, "dataframe.shuffle.method": method}):
        parts = dask.compute(
            *by_bucket(dd.from_pandas(df, npartitions=n_in), "bucket", n_out).to_delayed()
        )
    assert len(parts) == n_out
    for i, part in enumerate(parts):
        assert (part["copy"] == i).all() and (part["bucket"] == i).all()
    rows = pd.concat(parts)
    np.testing.assert_array_equal(np.sort(rows["row"].to_numpy()), np.arange(n))
    np.testing.assert_array_equal(rows["copy"].to_numpy(), bucket[rows["row"].to_numpy()])
