"""``ranklens evaluate --engine dask`` on hostile inputs: memory's numbers or its refusal.

Each case runs the command line on Parquet (or CSV) files written by pandas: weights with the
default relevance give the memory engine's utility, SERA and relevance-weighted values (the box
plot of the default relevance is unweighted in both engines, and their settings say so); data
of extreme size (1e-300, 1e300) give its RMSE and RMSPE; a timestamp, strings in one part file,
a column missing from one file, a CSV, weights whose total overflows and crossed interval bounds
are refused with one ``error:`` line naming the column (and the file), exit status 2, before
any pass runs and with nothing written; a dictionary-encoded (categorical) column of numbers
and integers in one file are read as numbers; an unreachable or malformed ``--scheduler`` is
one line, quickly; ``--quiet`` prints nothing from Dask's loggers.
"""

from __future__ import annotations

import json
import logging
import math
import os
import socket
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pytest.importorskip("pyarrow")
pytest.importorskip("typer")

from typer.testing import CliRunner  # noqa: E402

import ranklens.cli as cli  # noqa: E402
import ranklens.dask as rd  # noqa: E402
from ranklens.cli import app  # noqa: E402
from ranklens.relevance import relevance_from_boxplot  # noqa: E402

TOL = 1e-12
N = 300


def _frame(seed: int = 3, n: int = N) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.exp(rng.normal(size=n)).round(2)
    a = (y + rng.normal(size=n)).round(2)
    # heavy weights on the high values: the weighted box plot's hinges move up
    w = np.where(y > np.median(y), 5.0, 1.0) + rng.integers(0, 2, n)
    return pd.DataFrame({"y": y, "a": a, "w": w, "lo": a - 1.0, "hi": a + 1.0})


def _write(root, name: str, parts: list[pd.DataFrame], whole: bool = True) -> tuple[str, str]:
    """The parts as Parquet files under ``root / name`` and (``whole``) their concatenation as
    one file: (glob of the parts, the whole file)."""
    folder = root / name
    folder.mkdir()
    for i, part in enumerate(parts):
        part.to_parquet(folder / f"p{i}.parquet")
    path = root / f"{name}.parquet"
    if whole:
        pd.concat(parts, ignore_index=True).to_parquet(path)
    return str(folder / "*.parquet"), str(path)


def _split(df: pd.DataFrame, k: int = 3) -> list[pd.DataFrame]:
    size = -(-len(df) // k)
    return [df.iloc[i * size : (i + 1) * size].copy() for i in range(k)]


def _invoke(args, client=None, json_path=None):
    extra = ["--engine", "dask"] + (["--scheduler", client.scheduler.address] if client else [])
    out = ["--json", str(json_path)] if json_path else []
    return CliRunner().invoke(app, ["evaluate", *args, "-q", *out, *extra])


def _memory(args, json_path):
    result = CliRunner().invoke(
        app, ["evaluate", *args, "-q", "--bootstrap", "0", "--json", str(json_path)]
    )
    assert result.exit_code in (0, 1), result.output
    return json.loads(json_path.read_text())


def _one_line(result, *words: str) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for word in words:
        assert word in lines[0], (word, lines[0])
    assert "Traceback" not in result.output
    return lines[0]


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(abs(b), np.finfo(float).tiny)


def _same_as_memory(got: dict, want: dict, model: str = "a") -> int:
    """Every measure the Dask engine computed equals the memory engine's (value and status)."""
    compared = 0
    for name, entry in got["models"][model].items():
        if entry["status"] == "skipped":
            continue
        ref = want["models"][model][name]
        beyond = entry["value"] is None and ref["value"] is None
        if beyond and (entry["status"], ref["status"]) == ("undefined", "ok"):
            # beyond the float range (MSE at 1e300): the memory engine says inf without a note
            continue
        assert entry["status"] == ref["status"], (name, entry, ref)
        assert _close(entry["value"], ref["value"]), (name, entry["value"], ref["value"])
        compared += 1
    return compared


# --------------------------------------------------------------------------------------------
# weights and the default relevance


RELEVANCE_MEASURES = [
    "sera",
    "relevance_weighted_squared_error",
    "relevance_weighted_absolute_error",
    "utility_precision",
    "utility_recall",
    "utility_f1",
]


def test_weights_give_the_memory_engines_relevance_measures(client, tmp_path):
    """With --weight and the default relevance, utility, SERA and the relevance-weighted errors
    equal the memory engine's on the same rows; both settings say the box plot is unweighted."""
    df = _frame(seed=5)
    y, w = df["y"].to_numpy(), df["w"].to_numpy()
    # the data tell the two readings apart: the weighted box plot is another relevance
    grid = np.linspace(y.min(), y.max(), 50)
    assert not np.allclose(
        relevance_from_boxplot(y)(grid), relevance_from_boxplot(y, sample_weight=w)(grid)
    )
    parts, whole = _write(tmp_path, "weighted", _split(df))
    args = ["--target", "y", "--pred", "a", "--weight", "w"]
    got_run = _invoke([parts, *args], client, tmp_path / "d.json")
    assert got_run.exit_code in (0, 1), got_run.output
    got = json.loads((tmp_path / "d.json").read_text())
    want = _memory([whole, *args], tmp_path / "m.json")
    assert _same_as_memory(got, want) >= 20
    finite = [
        n for n in RELEVANCE_MEASURES if math.isfinite(got["models"]["a"][n]["value"] or math.nan)
    ]
    assert {"sera", "relevance_weighted_squared_error"} <= set(finite)
    for name in RELEVANCE_MEASURES:
        assert _close(got["models"]["a"][name]["value"], want["models"]["a"][name]["value"]), name
    assert (
        got["settings"]["relevance_weights"]
        == want["settings"]["relevance_weights"]
        == "unweighted"
    )
    assert got["settings"]["relevance"] == want["settings"]["relevance"]


# --------------------------------------------------------------------------------------------
# data of extreme size


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_extreme_scale_gives_the_memory_engines_rmse_and_rmspe(client, tmp_path, scale):
    """y and the predictions times 1e-300 (squares underflow) or 1e300 (squares overflow):
    RMSE, RMSPE and every other measure as in memory, to 1e-12 relative."""
    df = _frame(seed=7)[["y", "a"]] * scale
    parts, whole = _write(tmp_path, "tiny", _split(df))
    args = ["--target", "y", "--pred", "a"]
    result = _invoke([parts, *args], client, tmp_path / "d.json")
    assert result.exit_code in (0, 1), result.output
    got = json.loads((tmp_path / "d.json").read_text())
    want = _memory([whole, *args], tmp_path / "m.json")
    for name in ("root_mean_squared_error", "rmspe"):
        value = got["models"]["a"][name]["value"]
        assert value is not None and value > 0 and math.isfinite(value), (name, value)
    assert _same_as_memory(got, want) >= 20


def test_extreme_scale_in_the_library_with_weights(client):
    """ranklens.dask.evaluate with weights at 1e-300: RMSE and RMSPE as evaluate_models'."""
    import warnings

    from ranklens import evaluate_models

    df = _frame(seed=8)
    df[["y", "a"]] *= 1e-300
    names = ["root_mean_squared_error", "rmspe", "mean_absolute_error", "epsilon_insensitive_loss"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = rd.evaluate(
            dd.from_pandas(df, npartitions=3),
            y_true="y",
            predictions="a",
            sample_weight="w",
            metrics=names,
        )
        ref = evaluate_models(
            df["y"], {"a": df["a"]}, sample_weight=df["w"], robustness=False, curves=False
        )
    for name in names:
        assert _close(ev.values["a"][name], ref.values["a"][name]), name
    assert ev.values["a"]["root_mean_squared_error"] > 0


# --------------------------------------------------------------------------------------------
# refusals: one line, exit 2, before any pass, nothing written


def test_timestamp_prediction_refused_as_in_memory(client, tmp_path):
    df = _frame()
    df["t"] = pd.date_range("2020-01-01", periods=len(df), freq="h")
    parts, whole = _write(tmp_path, "stamps", _split(df))
    args = ["--target", "y", "--pred", "t"]
    _one_line(
        _invoke([parts, *args], client, tmp_path / "d.json"), "'t'", "not numeric", "timestamp"
    )
    memory = CliRunner().invoke(app, ["evaluate", whole, *args, "-q"])
    _one_line(memory, "'t'", "not numeric")
    assert not (tmp_path / "d.json").exists()


def _no_pass(monkeypatch):
    """The evaluation's passes must not start: ranklens.dask.evaluate fails the test."""

    def forbidden(*args, **kwargs):
        raise AssertionError("a pass ran")

    monkeypatch.setattr(rd, "evaluate", forbidden)


def test_strings_in_one_part_file(client, tmp_path, monkeypatch):
    parts = _split(_frame())
    parts[1]["a"] = parts[1]["a"].astype(str)
    glob, _ = _write(tmp_path, "strings", parts, whole=False)
    _no_pass(monkeypatch)
    line = _one_line(_invoke([glob, "--target", "y", "--pred", "a"], client), "'a'", "p1.parquet")
    assert "not numeric" in line


def test_a_column_missing_from_one_file(client, tmp_path, monkeypatch):
    parts = _split(_frame())
    parts[2] = parts[2].drop(columns="w")
    glob, _ = _write(tmp_path, "missing", parts)
    _no_pass(monkeypatch)
    result = _invoke([glob, "--target", "y", "--pred", "a", "--weight", "w"], client)
    _one_line(result, "'w'", "not found", "p2.parquet")


def test_a_csv_file_is_refused_with_a_pointer_to_parquet(client, tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    _frame().to_csv(path, index=False)
    _no_pass(monkeypatch)
    result = _invoke([str(path), "--target", "y", "--pred", "a"], client)
    _one_line(result, "scores.csv", "not a Parquet file", "to_parquet")


def test_weights_whose_total_overflows(client, tmp_path):
    df = _frame()
    df["w"] = 1e308
    parts, whole = _write(tmp_path, "huge", _split(df))
    args = ["--target", "y", "--pred", "a", "--weight", "w"]
    line = _one_line(_invoke([parts, *args], client, tmp_path / "d.json"), "'w'", "overflow")
    assert "rescale the weights" in line
    _one_line(CliRunner().invoke(app, ["evaluate", whole, *args, "-q"]), "'w'", "overflow")
    assert not (tmp_path / "d.json").exists()
    with pytest.raises(ValueError, match="'w' sums to inf"):
        rd.evaluate(
            parts, y_true="y", predictions="a", sample_weight="w", metrics=["mean_absolute_error"]
        )


def test_crossed_bounds_refused_before_any_pass(client, tmp_path, monkeypatch):
    df = _frame()
    df.loc[[7, 250], "lo"] = df.loc[[7, 250], "hi"] + 1.0
    parts, whole = _write(tmp_path, "crossed", _split(df))
    args = ["--target", "y", "--pred", "a", "--lower", "lo", "--upper", "hi", "--alpha", "0.1"]
    memory = CliRunner().invoke(app, ["evaluate", whole, *args, "-q"])
    want = _one_line(memory, "--lower 'lo'", "2 row(s)", "data row 8")
    _no_pass(monkeypatch)
    html = tmp_path / "r.html"
    result = _invoke([parts, *args, "--html", str(html)], client, tmp_path / "d.json")
    assert _one_line(result) == want
    assert not (tmp_path / "d.json").exists() and not html.exists()


# --------------------------------------------------------------------------------------------
# read as numbers, as in memory


@pytest.mark.parametrize("kind", ["categorical", "integers in one file", "decimals"])
def test_numbers_of_other_types_read_as_in_memory(client, tmp_path, kind):
    """A categorical (dictionary-encoded) column of numbers, integer weights in one file only
    and decimals: the memory engine's numbers on the same rows."""
    import decimal

    parts = _split(_frame(seed=11))
    if kind == "categorical":
        parts = [p.assign(a=p["a"].astype("category")) for p in parts]
    elif kind == "integers in one file":
        parts[1]["w"] = parts[1]["w"].astype(np.int64)
    else:
        parts = [p.assign(a=[decimal.Decimal(f"{v:.2f}") for v in p["a"]]) for p in parts]
    glob, whole = _write(tmp_path, "types", parts)
    args = ["--target", "y", "--pred", "a", "--weight", "w"]
    result = _invoke([glob, *args], client, tmp_path / "d.json")
    assert result.exit_code in (0, 1), result.output
    got = json.loads((tmp_path / "d.json").read_text())
    assert _same_as_memory(got, _memory([whole, *args], tmp_path / "m.json")) >= 20


# --------------------------------------------------------------------------------------------
# the scheduler and Dask's logs


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("address", ["closed", "nonsense", "foo://x:1"])
def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch, address):
    if address == "closed":
        address = f"tcp://127.0.0.1:{_closed_port()}"
    monkeypatch.setattr(cli, "DASK_CONNECT_TIMEOUT_S", 1)
    path = tmp_path / "d.parquet"
    _frame().to_parquet(path)
    start = time.perf_counter()
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(path),
            "--target",
            "y",
            "--pred",
            "a",
            "-q",
            "--engine",
            "dask",
            "--scheduler",
            address,
        ],
    )
    assert time.perf_counter() - start < 8
    _one_line(result, f"--scheduler {address}", "could not be reached")


def test_quiet_leaves_dask_loggers_as_they_were(client, tmp_path):
    path = tmp_path / "d.parquet"
    _frame().to_parquet(path)
    before = {name: logging.getLogger(name).level for name in ("distributed", "distributed.client")}
    result = _invoke([str(path), "--target", "y", "--pred", "a"], client)
    assert result.exit_code in (0, 1), result.output
    after = {name: logging.getLogger(name).level for name in before}
    assert after == before
    assert cli._DASK_LOG_ENV not in os.environ or os.environ[cli._DASK_LOG_ENV] != "critical"


def test_quiet_local_cluster_prints_nothing(tmp_path):
    """--quiet with the local cluster (worker processes, shuffles): no line on stdout or
    stderr, where Dask's loggers printed 18-30 lines (a fresh process: its own loggers)."""
    path = tmp_path / "d.parquet"
    _frame(n=400).to_parquet(path)
    args = ["evaluate", str(path), "--target", "y", "--pred", "a", "-q", "--engine", "dask"]
    done = subprocess.run(
        [sys.executable, "-m", "ranklens", *args, "--json", str(tmp_path / "d.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout == "" and done.stderr == "", done.stderr[-2000:]
    assert (tmp_path / "d.json").exists()
