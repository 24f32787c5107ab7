"""``evaluate_models``: one entry point, one vocabulary, two engines.

With ``data`` the arguments name columns: a pandas DataFrame (as pandas 3 reads a CSV file), a
polars DataFrame, Parquet files (one path, a glob of several) and a dask DataFrame give, in
memory, the numbers of the call on the columns as arrays; ``engine="dask"`` on the same data
gives the in-memory values of every measure it computes, to 1e-12. The errors name what is
wrong: an unknown engine, a column missing from ``data`` (with its parameter), an array given
with ``data``, an option the engine cannot honour.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ranklens import evaluate_models

TOL = 1e-12
N = 240
#: every option of a run whose numbers depend on the inputs: weights, units, intervals, the
#: bootstrap (with no time budget, so the plan does not depend on timings)
OPTIONS = dict(
    alpha=0.2,
    n_bootstrap=20,
    random_state=3,
    robustness=False,
    bootstrap_budget_s=math.inf,
    show_progress=False,
)


def _table(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.round(np.exp(rng.normal(size=N)), 2)
    a = y + rng.normal(size=N)
    return pd.DataFrame(
        {
            "y": y,
            "a": a,
            "b": np.round(y + 2 * rng.normal(size=N), 1),
            "w": rng.integers(1, 4, N).astype(float),
            "unit": [f"u{i}" for i in rng.integers(0, 15, N)],
            "lo": a - 1.0,
            "hi": a + 1.0,
        }
    )


@pytest.fixture(scope="module")
def csv_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("entry") / "scores.csv"
    _table().to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def frame(csv_path) -> pd.DataFrame:
    """The table as pandas reads it back (pandas 3: the unit labels a string column)."""
    return pd.read_csv(csv_path)


@pytest.fixture(scope="module")
def by_arrays(frame):
    """The call on arrays: the reference of every call with ``data``."""
    return _arrays_call(frame)


def _arrays_call(frame: pd.DataFrame):
    """:func:`evaluate_models` on the arrays of ``frame``'s columns."""
    return evaluate_models(
        frame["y"].to_numpy(),
        {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()},
        target="y",
        sample_weight=frame["w"].to_numpy(),
        groups=frame["unit"].rename("unit"),
        intervals={"a": (frame["lo"].to_numpy(), frame["hi"].to_numpy())},
        **OPTIONS,
    )


def _by_columns(data, **kw):
    return evaluate_models(
        "y",
        ["a", "b"],
        data=data,
        sample_weight="w",
        groups="unit",
        intervals={"a": ("lo", "hi")},
        **{**OPTIONS, **kw},
    )


def _same(got, want, path="") -> None:
    """Equal plain objects: floats to ``TOL`` (relative, NaN equal to NaN), the rest exactly."""
    if isinstance(want, dict):
        assert set(got) == set(want), (path, set(got) ^ set(want))
        for key in want:
            _same(got[key], want[key], f"{path}/{key}")
    elif isinstance(want, list | tuple):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{path}[{i}]")
    elif isinstance(want, float) and isinstance(got, float):
        if math.isnan(want) or math.isinf(want):
            assert got == want or (math.isnan(got) and math.isnan(want)), (path, got, want)
        else:
            assert abs(got - want) <= TOL * max(1.0, abs(want)), (path, got, want)
    else:
        assert got == want, (path, got, want)


def _values(ev) -> np.ndarray:
    """Every model's values in one array, NaN where a model has no such measure."""
    names = sorted({name for values in ev.values.values() for name in values})
    return np.array([[ev.values[m].get(name, math.nan) for name in names] for m in ev.model_names])


def _comparable(ev) -> dict:
    """The result as plain objects, less what depends on the clock or names an object."""
    out = ev.to_dict()
    out["settings"] = {k: v for k, v in out["settings"].items() if k != "bootstrap time"}
    out["extras"] = {k: v for k, v in out["extras"].items() if k != "relevance"}
    return out


def _assert_same_evaluation(got, want) -> None:
    np.testing.assert_array_equal(_values(got), _values(want))
    _same(_comparable(got), _comparable(want))


# --------------------------------------------------------------------------------------------
# engine="memory": the numbers of the call on arrays, whatever holds the columns


def test_pandas_frame_from_csv(frame, by_arrays):
    got = _by_columns(frame)
    _assert_same_evaluation(got, by_arrays)
    assert got.target == "y" and got.settings["groups"] == "unit"


def test_polars_frame(csv_path):
    pl = pytest.importorskip("polars")
    table = pl.read_csv(csv_path)
    # the reference from polars' own parse: pandas 2's CSV parser may round a value one unit in
    # the last place away from polars' (pandas 3's does not)
    _assert_same_evaluation(_by_columns(table), _arrays_call(table.to_pandas()))


def test_parquet_path_and_glob(frame, by_arrays, tmp_path):
    pytest.importorskip("pyarrow")
    one = tmp_path / "one.parquet"
    frame.to_parquet(one)
    _assert_same_evaluation(_by_columns(str(one)), by_arrays)
    # several files, read end to end in the natural order of their names (part.10 after
    # part.9, as Dask reads them): the rows in their order, as the order-dependent measures
    # need
    parts = tmp_path / "parts"
    parts.mkdir()
    cuts = np.linspace(0, N, 12).astype(int)
    for i, (start, stop) in enumerate(itertools.pairwise(cuts)):
        frame.iloc[start:stop].to_parquet(parts / f"part.{i}.parquet")
    _assert_same_evaluation(_by_columns(str(parts / "*.parquet")), by_arrays)
    _assert_same_evaluation(_by_columns(parts), by_arrays)  # a directory, as a PathLike


def test_dask_frame_computed_in_memory(frame, by_arrays):
    dd = pytest.importorskip("dask.dataframe")
    _assert_same_evaluation(_by_columns(dd.from_pandas(frame, npartitions=3)), by_arrays)


def test_a_mapping_names_the_models(frame):
    kw = dict(robustness=False, curves=False)
    got = evaluate_models("y", {"first": "a", "second": "b"}, data=frame, **kw)
    want = evaluate_models(frame["y"], {"first": frame["a"], "second": frame["b"]}, **kw)
    assert got.model_names == ("first", "second")
    np.testing.assert_array_equal(_values(got), _values(want))


def test_import_stays_free_of_dask():
    code = (
        "import sys, numpy as np, ranklens; "
        "y = np.arange(50.0); "
        "ranklens.evaluate_models(y, {'a': y[::-1]}, robustness=False, curves=False); "
        "assert 'dask' not in sys.modules, 'dask imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


def test_the_pipeline_imports_first_in_a_fresh_process():
    """The pipeline imported before the package's entry point (as the command line's Dask
    path does): the lookup of a private submodule imports no other module on the way."""
    code = "import ranklens.evaluation, ranklens; assert ranklens.evaluate_models"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


# --------------------------------------------------------------------------------------------
# errors


def test_unknown_engine_is_named(frame):
    with pytest.raises(ValueError, match=r"engine must be one of .*'gpu'"):
        evaluate_models("y", ["a"], data=frame, engine="gpu")


@pytest.mark.parametrize(
    ("kw", "parameter", "column"),
    [
        (dict(y_true="truth", predictions=["a"]), "y_true", "truth"),
        (dict(predictions=["a", "zz"]), "predictions", "zz"),
        (dict(predictions={"m": "zz"}), "predictions", "zz"),
        (dict(sample_weight="weight"), "sample_weight", "weight"),
        (dict(groups="customer", n_bootstrap=20), "groups", "customer"),
        (dict(intervals={"a": ("lo", "top")}, alpha=0.2), r"intervals\['a'\]", "top"),
    ],
)
def test_a_missing_column_names_its_parameter(frame, tmp_path, kw, parameter, column):
    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    args = {"y_true": "y", "predictions": ["a"], **kw}
    for data in (frame, str(path)):
        with pytest.raises(ValueError, match=rf"{parameter}: no column '{column}'"):
            evaluate_models(data=data, robustness=False, **args)


@pytest.mark.parametrize("which", ["y_true", "predictions", "sample_weight", "groups"])
def test_an_array_given_with_data_is_refused(frame, which):
    args = {"y_true": "y", "predictions": ["a"], "sample_weight": None, "groups": None}
    args[which] = [frame["a"].to_numpy()] if which == "predictions" else frame["y"].to_numpy()
    with pytest.raises(TypeError, match=f"{which} must name a column of data"):
        evaluate_models(data=frame, n_bootstrap=20, **args)


def test_column_names_without_data_are_refused(frame):
    with pytest.raises(TypeError, match="predictions must map model names to arrays"):
        evaluate_models(frame["y"], ["a"])


@pytest.mark.parametrize(
    ("option", "value"),
    [("n_bins", 5), ("exact", False), ("n_buckets", 4),
     ("confidence_level", 0.9), ("row_plots", False)],
)  # fmt: skip
def test_memory_refuses_the_dask_options(frame, option, value):
    with pytest.raises(
        ValueError, match=f"{option} is an option of engine='dask' that engine='memory' cannot"
    ):
        evaluate_models("y", ["a"], data=frame, **{option: value})


def test_memory_refuses_storage_options_without_a_path(frame):
    with pytest.raises(ValueError, match="storage_options is for data given as a Parquet path"):
        evaluate_models("y", ["a"], data=frame, storage_options={"anon": True})


def test_memory_refuses_curve_arrays_without_curves(frame):
    with pytest.raises(ValueError, match=r"curve_arrays=True .* curves=False"):
        evaluate_models("y", ["a"], data=frame, curves=False, curve_arrays=True)


# --------------------------------------------------------------------------------------------
# engine="dask": the Dask engine's numbers, the in-memory ones where it computes a measure


@pytest.fixture(scope="module")
def dask_client():
    pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("source", ["dask frame", "parquet"])
def test_dask_engine_equals_memory(dask_client, frame, tmp_path, weighted, source):
    import dask.dataframe as dd

    if source == "parquet":
        pytest.importorskip("pyarrow")
        for i, start in enumerate(range(0, N, N // 3)):
            frame.iloc[start : start + N // 3].to_parquet(tmp_path / f"part.{i}.parquet")
        data = str(tmp_path / "*.parquet")
    else:
        data = dd.from_pandas(frame, npartitions=3)
    kw = dict(
        sample_weight="w" if weighted else None,
        intervals={"a": ("lo", "hi")},
        alpha=0.2,
        robustness=False,
    )
    on_dask = evaluate_models("y", ["a", "b"], data=data, engine="dask", **kw)
    in_memory = evaluate_models("y", ["a", "b"], data=frame, **kw)
    assert on_dask.model_names == in_memory.model_names == ("a", "b")
    assert on_dask.target == "y" and on_dask.n == in_memory.n == N
    compared = 0
    for model in on_dask.model_names:
        for name, value in on_dask.values[model].items():
            if on_dask.problems.get(model, {}).get(name) is not None or math.isnan(value):
                continue  # skipped by the engine, or undefined on both
            want = in_memory.values[model][name]
            assert abs(value - want) <= TOL * max(1.0, abs(want)), (model, name, value, want)
            compared += 1
    assert compared >= 40, compared


def test_dask_engine_takes_the_same_names_as_its_function(dask_client, frame):
    import dask.dataframe as dd

    import ranklens.dask

    data = dd.from_pandas(frame, npartitions=2)
    kw = dict(sample_weight="w", metrics=["roc_auc", "kendall_tau"], n_buckets=3)
    got = evaluate_models("y", ["a"], data=data, engine="dask", **kw)
    want = ranklens.dask.evaluate(data, y_true="y", predictions=["a"], **kw)
    assert got.values == want.values
    labelled = evaluate_models(
        "y", ["a"], data=data, engine="dask", description="d", target="truth", n_dropped=2, **kw
    )
    assert (labelled.description, labelled.target, labelled.n_dropped) == ("d", "truth", 2)


def test_dask_engine_reads_a_folder_of_subfolders(dask_client, frame, tmp_path):
    """A folder whose Parquet files sit in subfolders (partitions) is read as the Dask engine
    reads it: every data file below it, none refused for being a level down."""
    import ranklens.dask

    pytest.importorskip("pyarrow")
    for i, start in enumerate(range(0, N, N // 2)):
        (tmp_path / f"day{i}").mkdir()
        frame.iloc[start : start + N // 2].to_parquet(tmp_path / f"day{i}" / "data.parquet")
    kw = dict(metrics=["roc_auc", "kendall_tau"])
    got = evaluate_models("y", ["a"], data=str(tmp_path), engine="dask", **kw)
    want = ranklens.dask.evaluate(str(tmp_path), y_true="y", predictions=["a"], **kw)
    assert got.n == want.n == N
    assert got.values == want.values
    with pytest.raises(ValueError, match=r"data: no Parquet file matches .*nothing"):
        evaluate_models("y", ["a"], data=str(tmp_path / "nothing*.parquet"), engine="dask")


@pytest.mark.parametrize(
    ("option", "value"),
    [("curves", False), ("agreement_predictions", {"a": np.zeros(N)}),
     ("bootstrap_budget_s", 5.0), ("on_progress", print), ("show_progress", True)],
)  # fmt: skip
def test_dask_refuses_the_memory_options(dask_client, frame, option, value):
    import dask.dataframe as dd

    data = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(
        ValueError, match=f"{option} is an option of engine='memory' that engine='dask' cannot"
    ):
        evaluate_models("y", ["a"], data=data, engine="dask", **{option: value})


def test_dask_refusals(dask_client, frame, tmp_path):
    import dask.dataframe as dd

    data = dd.from_pandas(frame, npartitions=2)
    pytest.importorskip("pyarrow")
    frame.to_parquet(tmp_path / "part.0.parquet")
    with pytest.raises(ValueError, match=r"groups: no column 'customer' in .*part.0.parquet"):
        evaluate_models(
            "y", ["a"], data=str(tmp_path / "*.parquet"), engine="dask", groups="customer"
        )
    with pytest.raises(ValueError, match="data: engine='dask' reads the columns of data"):
        evaluate_models(frame["y"], {"a": frame["a"]}, engine="dask")
    with pytest.raises(TypeError, match=r"engine='dask' takes a dask DataFrame .* pandas"):
        evaluate_models("y", ["a"], data=frame, engine="dask")
    with pytest.raises(ValueError, match="predictions: engine='dask' names each model by its"):
        evaluate_models("y", {"m": "a"}, data=data, engine="dask")
    with pytest.raises(
        ValueError, match=r"random_state is an option .* engine='dask' cannot honour .got None"
    ):
        evaluate_models("y", ["a"], data=data, engine="dask", random_state=None, n_bootstrap=20)
    with pytest.raises(ValueError, match="sample_weight: no column 'q' in data"):
        evaluate_models("y", ["a"], data=data, engine="dask", sample_weight="q")


def test_dask_engine_without_dask_gives_the_install_hint(frame, monkeypatch):
    from ranklens._foundation.extras import MissingExtraError

    for module in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, module, None)  # an import that is blocked
    with pytest.raises(MissingExtraError, match=r'pip install "ranklens\[dask\]"'):
        evaluate_models("y", ["a"], data="scores/*.parquet", engine="dask")
