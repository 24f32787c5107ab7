"""``ranklens evaluate --groups COLUMN``: the clustered bootstrap from the command line.

The units' column is read from CSV and Parquet files written by pandas (string and integer ids,
a pandas categorical in Parquet) and handed to the pipeline: the JSON numbers equal
:func:`ranklens.evaluate_models` called with the same column, seed and replicates (and, for the
measures without task parameters, :func:`ranklens.compare_models` with ``groups``); they differ
from the row bootstrap's. Every interval then comes from the clustered bootstrap (DeLong's and
Noether's analytic ones assume independent rows), which the JSON settings and the report say,
with the number of units. ``--engine dask`` passes the column to
:func:`ranklens.dask.evaluate` (Poisson weights keyed by the unit): the same numbers as that
function with ``inference="bootstrap"``, and as ``compare_models(scheme="poisson", groups=...)``.
Bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")

from typer.testing import CliRunner

from ranklens import compare_models, evaluate_models
from ranklens.cli import app
from ranklens.evaluation import evaluation_to_json

N_UNITS = 30
N_BOOT = 60
SEED = 7
#: Measures with no task parameter: compare_models evaluates them as the pipeline does.
PLAIN = ["root_mean_squared_error", "mean_absolute_error", "kendall_tau", "spearman_rho"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Clustered data: a unit effect shared by the rows of each of 30 customers."""
    rng = np.random.default_rng(20051127)
    n = 240
    unit = rng.integers(0, N_UNITS, n)
    unit[:N_UNITS] = np.arange(N_UNITS)  # every unit present
    y = np.exp(rng.normal(size=N_UNITS)[unit] + 0.4 * rng.normal(size=n)).round(2)
    return pd.DataFrame(
        {
            "y": y,
            "a": (y * np.exp(0.3 * rng.normal(size=n))).round(2),
            "b": (y * np.exp(0.6 * rng.normal(size=n))).round(2),
            "customer": [f"cust-{k:03d}" for k in unit],
            "unit_id": unit * 17 + 1000,
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


@pytest.fixture(scope="module")
def files(frame, tmp_path_factory):
    root = tmp_path_factory.mktemp("groups")
    frame.to_csv(root / "data.csv", index=False)
    if _has_parquet():
        with_category = frame.assign(segment=frame["customer"].astype("category"))
        with_category.to_parquet(root / "data.parquet")
    return root


def _has_parquet() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _invoke(*args: str):
    return CliRunner().invoke(app, ["evaluate", *args], catch_exceptions=False)


def _run(path, out, *options: str) -> dict:
    result = _invoke(str(path), "-t", "y", "-p", "a", "-p", "b", "-q", "--json", str(out), *options)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _one_line_error(result, *patterns: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip().startswith("error:")]
    assert len(lines) == 1, result.output
    for pattern in patterns:
        assert pattern in lines[0], lines[0]
    return lines[0]


def _python(table: pd.DataFrame, labels, n_boot: int = N_BOOT, **kw) -> dict:
    """The Python API on the columns the CLI reads, as the JSON document."""
    evaluation = evaluate_models(
        table["y"].to_numpy(dtype=float),
        {"a": table["a"].to_numpy(dtype=float), "b": table["b"].to_numpy(dtype=float)},
        target="y",
        n_bootstrap=n_boot,
        random_state=SEED,
        groups=labels,
        bootstrap_budget_s=60.0,
        **kw,
    )
    return evaluation_to_json(evaluation)


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def _same_numbers(got: dict, want: dict) -> int:
    """Every measure's value, interval and method, and every paired test, are the same."""
    compared = 0
    for model in ("a", "b"):
        for name, ref in want["models"][model].items():
            entry = got["models"][model][name]
            for key in ("value", "ci_low", "ci_high", "interval_method", "status"):
                assert _same(entry[key], ref[key]), (model, name, key, entry[key], ref[key])
            compared += ref["ci_low"] is not None
    assert len(got["comparisons"]) == len(want["comparisons"])
    for g, w in zip(got["comparisons"], want["comparisons"], strict=True):
        assert g.keys() == w.keys()
        for key in w:
            assert _same(g[key], w[key]), (w["measure"], key, g[key], w[key])
    return compared


def _interval(doc: dict, model: str, measure: str) -> tuple[float, float]:
    entry = doc["models"][model][measure]
    return entry["ci_low"], entry["ci_high"]


# --------------------------------------------------------------------------------------------
# memory engine: the numbers are the Python API's


def test_csv_string_ids_equal_python_api(frame, files, tmp_path):
    got = _run(
        files / "data.csv",
        tmp_path / "o.json",
        "--groups",
        "customer",
        "--bootstrap",
        str(N_BOOT),
        "--seed",
        str(SEED),
    )
    table = pd.read_csv(files / "data.csv")
    want = _python(table, table["customer"])
    assert _same_numbers(got, want) >= 20
    settings = got["settings"]
    assert settings["groups"] == "customer"
    assert settings["n_units"] == N_UNITS
    assert (
        f"clustered bootstrap over {N_UNITS} units of 'customer'" in settings["clustered bootstrap"]
    )
    assert "not used with groups" in settings["clustered bootstrap"]
    # every interval is the bootstrap's: none is DeLong's or Noether's
    methods = {e["interval_method"] for m in got["models"].values() for e in m.values()}
    assert methods - {None} == {"bootstrap-bca", "bootstrap-studentized"}
    # an independent check: compare_models with the same units, replicates and seed
    y = table["y"].to_numpy()
    preds = {"a": table["a"].to_numpy(), "b": table["b"].to_numpy()}
    clustered = compare_models(
        y,
        preds,
        metrics=PLAIN,
        n_bootstrap=N_BOOT,
        random_state=SEED,
        groups=table["customer"].to_numpy(),
        show_progress=False,
    )
    rows = compare_models(
        y, preds, metrics=PLAIN, n_bootstrap=N_BOOT, random_state=SEED, show_progress=False
    )
    for k, measure in enumerate(PLAIN):
        for m, model in enumerate(("a", "b")):
            low, high = _interval(got, model, measure)
            assert low == clustered.ci_lower[k, m] and high == clustered.ci_upper[k, m], measure
            # the row bootstrap gives other (here narrower) intervals: the units were used
            assert (low, high) != (rows.ci_lower[k, m], rows.ci_upper[k, m]), measure
    record = next(r for r in got["comparisons"] if r["measure"] == "root_mean_squared_error")
    assert record["difference_sd"] == clustered.difference_sd[0, 0]


def test_csv_integer_ids_equal_python_api(files, tmp_path):
    got = _run(
        files / "data.csv",
        tmp_path / "o.json",
        "--groups",
        "unit_id",
        "--bootstrap",
        str(N_BOOT),
        "--seed",
        str(SEED),
    )
    table = pd.read_csv(files / "data.csv")
    assert table["unit_id"].dtype.kind == "i"
    want = _python(table, table["unit_id"])
    assert _same_numbers(got, want) >= 20
    assert got["settings"]["n_units"] == N_UNITS


def test_weights_and_groups_equal_python_api(files, tmp_path):
    got = _run(
        files / "data.csv",
        tmp_path / "o.json",
        "--groups",
        "customer",
        "--weight",
        "w",
        "--bootstrap",
        str(N_BOOT),
        "--seed",
        str(SEED),
    )
    table = pd.read_csv(files / "data.csv")
    want = _python(table, table["customer"], sample_weight=table["w"].to_numpy(dtype=float))
    assert _same_numbers(got, want) >= 20
    assert got["settings"]["sample_weight"] == "given"
    assert got["settings"]["n_units"] == N_UNITS


def test_parquet_categorical_ids_equal_python_api_and_string_ids(files, tmp_path):
    pytest.importorskip("pyarrow")
    path = files / "data.parquet"
    table = pd.read_parquet(path)
    assert isinstance(table["segment"].dtype, pd.CategoricalDtype)
    got = _run(
        path,
        tmp_path / "cat.json",
        "--groups",
        "segment",
        "--bootstrap",
        str(N_BOOT),
        "--seed",
        str(SEED),
    )
    want = _python(table, table["segment"])
    assert _same_numbers(got, want) >= 20
    # a unit's key is its label: the categorical of the customer ids is the same resampling
    strings = _run(
        path,
        tmp_path / "str.json",
        "--groups",
        "customer",
        "--bootstrap",
        str(N_BOOT),
        "--seed",
        str(SEED),
    )
    assert _same_numbers(got, strings) >= 20


def test_missing_ids_refused_or_dropped_like_missing_weights(frame, tmp_path):
    table = frame.copy()
    table["customer"] = table["customer"].astype(object)
    table.loc[[4, 9], "customer"] = None
    path = tmp_path / "holes.csv"
    table.to_csv(path, index=False)
    args = [str(path), "-t", "y", "-p", "a", "-p", "b", "--groups", "customer", "-q"]
    line = _one_line_error(_invoke(*args, "--bootstrap", "20"), "customer (2)", "--drop-na")
    assert "first at data row 5" in line
    got = _run(
        path,
        tmp_path / "o.json",
        "--groups",
        "customer",
        "--bootstrap",
        str(N_BOOT),
        "--seed",
        str(SEED),
        "--drop-na",
    )
    assert got["n_dropped"] == 2
    kept = pd.read_csv(path).dropna(subset=["customer"]).reset_index(drop=True)
    want = _python(kept, kept["customer"], n_dropped=2)
    assert _same_numbers(got, want) >= 20


def test_inference_bootstrap_with_groups_same_numbers_as_auto(files, tmp_path):
    options = ["--groups", "customer", "--bootstrap", "30", "--seed", "3"]
    auto = _run(files / "data.csv", tmp_path / "auto.json", *options)
    boot = _run(files / "data.csv", tmp_path / "boot.json", *options, "--inference", "bootstrap")
    assert _same_numbers(boot, auto) >= 20
    assert boot["settings"]["inference"] == "bootstrap"
    assert "not used with groups" not in boot["settings"]["clustered bootstrap"]


def test_report_names_the_clustered_bootstrap(files, tmp_path):
    html = tmp_path / "report.html"
    result = _invoke(
        str(files / "data.csv"),
        "-t",
        "y",
        "-p",
        "a",
        "-p",
        "b",
        "-q",
        "--groups",
        "customer",
        "--bootstrap",
        "30",
        "--html",
        str(html),
    )
    assert result.exit_code == 0, result.output
    text = html.read_text()
    assert f"clustered paired bootstrap over {N_UNITS} units of customer (30 resamples)" in text
    assert f"clustered bootstrap over {N_UNITS} units of &#39;customer&#39;" in text


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (
            ["--groups", "shop"],
            [
                "--groups column 'shop' not found in data.csv",
                "columns: y, a, b, customer, unit_id, w",
            ],
        ),
        (
            ["--groups", "customer", "--bootstrap", "0"],
            ["--groups 'customer'", "--bootstrap 0", "nothing is resampled"],
        ),
        (["--groups", "y"], ["--groups 'y' is also the --target column"]),
        (["--groups", "a"], ["--groups 'a' is also the --pred/--lower/--upper column"]),
    ],
)
def test_bad_groups_is_one_line_exit_2(files, tmp_path, options, patterns):
    out = tmp_path / "o.json"
    args = [str(files / "data.csv"), "-t", "y", "-p", "a", "-p", "b", "--json", str(out)]
    _one_line_error(_invoke(*args, *options), *patterns)
    assert not out.exists()


def test_one_unit_is_refused(frame, tmp_path):
    path = tmp_path / "one.csv"
    frame.assign(customer="x").to_csv(path, index=False)
    result = _invoke(str(path), "-t", "y", "-p", "a", "--groups", "customer", "--bootstrap", "20")
    _one_line_error(result, "--groups 'customer' holds 1 distinct unit(s)")


def test_python_api_refuses_groups_without_bootstrap(frame):
    with pytest.raises(ValueError, match="n_bootstrap=0 nothing is resampled"):
        evaluate_models(frame["y"], {"a": frame["a"]}, groups=frame["customer"])
    with pytest.raises(ValueError, match="at least 2 distinct units"):
        evaluate_models(frame["y"], {"a": frame["a"]}, groups=["u"] * len(frame), n_bootstrap=5)


# --------------------------------------------------------------------------------------------
# --engine dask: Poisson weights keyed by the unit


@pytest.fixture(scope="module")
def parts(frame, tmp_path_factory):
    pytest.importorskip("pyarrow")
    root = tmp_path_factory.mktemp("groups_dask")
    table = frame.assign(segment=frame["customer"].astype("category"))
    for i, start in enumerate(range(0, len(table), 80)):
        table.iloc[start : start + 80].to_parquet(root / f"p{i}.parquet")
    return root, table


def _dask_run(client, path, out, *options: str) -> dict:
    return _run(path, out, "--engine", "dask", "--scheduler", client.scheduler.address, *options)


@pytest.mark.parametrize("column", ["customer", "unit_id", "segment"])
def test_dask_equals_dask_api_and_poisson_compare_models(client, parts, tmp_path, column):
    pytest.importorskip("distributed")
    import ranklens.dask as rd

    root, table = parts
    glob = str(root / "*.parquet")
    got = _dask_run(
        client, glob, tmp_path / "d.json", "--groups", column, "--bootstrap", "40", "--seed", "5"
    )
    want = evaluation_to_json(
        rd.evaluate(
            glob,
            y_true="y",
            predictions=["a", "b"],
            groups=column,
            n_bootstrap=40,
            random_state=5,
            inference="bootstrap",
            title="t",
        )
    )
    compared = 0
    for model in ("a", "b"):
        for name, ref in want["models"][model].items():
            entry = got["models"][model][name]
            for key in ("value", "ci_low", "ci_high", "interval_method"):
                assert _same(entry[key], ref[key]), (column, model, name, key)
            compared += ref["ci_low"] is not None
    assert compared >= 10
    # no analytic interval: DeLong's and Noether's assume independent rows
    methods = {e["interval_method"] for m in got["models"].values() for e in m.values()}
    assert methods - {None} == {"bootstrap-percentile"}
    settings = got["settings"]
    assert (settings["groups"], settings["n_units"]) == (column, N_UNITS)
    assert settings["inference"] == "auto"
    assert f"over {N_UNITS} units of {column!r}" in settings["clustered bootstrap"]
    # the replicates are compare_models' Poisson ones keyed by the same units
    ref = compare_models(
        table["y"].to_numpy(),
        {"a": table["a"].to_numpy(), "b": table["b"].to_numpy()},
        metrics=["root_mean_squared_error"],
        n_bootstrap=40,
        random_state=5,
        scheme="poisson",
        groups=table[column],
        interval="percentile",
        show_progress=False,
    )
    for m, model in enumerate(("a", "b")):
        low, high = _interval(got, model, "root_mean_squared_error")
        assert low == pytest.approx(ref.ci_lower[0, m], rel=1e-12)
        assert high == pytest.approx(ref.ci_upper[0, m], rel=1e-12)


def test_dask_errors_and_missing_ids(client, parts, frame, tmp_path):
    pytest.importorskip("distributed")
    root, _ = parts
    glob = str(root / "*.parquet")
    dask = ["--engine", "dask", "--scheduler", client.scheduler.address]
    base = [glob, "-t", "y", "-p", "a", "-p", "b", *dask]
    _one_line_error(_invoke(*base, "--groups", "customer"), "--groups 'customer'", "--bootstrap N")
    _one_line_error(
        _invoke(*base, "--groups", "shop", "--bootstrap", "10"),
        "--groups column 'shop' not found",
        "columns: y, a, b, customer, unit_id, w, segment",
    )
    _one_line_error(
        _invoke(*base, "--weight", "nope", "--bootstrap", "10"), "column 'nope' not found"
    )
    _one_line_error(_invoke(*base, "--groups", "y", "--bootstrap", "10"), "is also the --target")
    # missing unit ids: refused naming the column, or dropped with --drop-na
    holes = frame.copy()
    holes["customer"] = holes["customer"].astype(object)
    holes.loc[[4, 9], "customer"] = None
    path = tmp_path / "holes.parquet"
    holes.to_parquet(path)
    args = [str(path), "-t", "y", "-p", "a", "-p", "b", *dask, "--groups", "customer"]
    _one_line_error(_invoke(*args, "--bootstrap", "10"), "customer (2)", "--drop-na")
    got = _run(
        path, tmp_path / "o.json", *dask, "--groups", "customer", "--bootstrap", "10", "--drop-na"
    )
    assert got["n_dropped"] == 2
    assert got["settings"]["n_units"] == N_UNITS
    kept = holes.dropna(subset=["customer"]).reset_index(drop=True)
    ref = compare_models(
        kept["y"].to_numpy(),
        {"a": kept["a"].to_numpy(), "b": kept["b"].to_numpy()},
        metrics=["mean_absolute_error"],
        n_bootstrap=10,
        random_state=0,
        scheme="poisson",
        groups=kept["customer"],
        interval="percentile",
        show_progress=False,
    )
    low, high = _interval(got, "a", "mean_absolute_error")
    assert low == pytest.approx(ref.ci_lower[0, 0], rel=1e-12)
    assert high == pytest.approx(ref.ci_upper[0, 0], rel=1e-12)
