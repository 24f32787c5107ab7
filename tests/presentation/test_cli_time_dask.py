"""``ranklens evaluate --engine dask --time COL [--block-length N] [--window M]``: rows in time
order on Dask from the command line.

Parquet files written by pandas, with a datetime column, the rows in time order across three
files: the JSON numbers and windows equal :func:`ranklens.evaluate_models` with
``engine="dask"`` on the same files, seed and replicates; the windows' values and counts equal
the in-memory run's; the document validates against its schema; the terminal, the JSON and the
report name the Dask engine's fixed blocks. Rows out of time order, a missing time, a missing
column and the schemes the engine cannot draw are one ``error:`` line naming the option.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")
pytest.importorskip("pyarrow")
pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from typer.testing import CliRunner

from ranklens import evaluate_models
from ranklens.cli import app
from ranklens.report import evaluation_to_json
from report_schema import results_schema, validate

N = 450
B = 30
SEED = 5
TOL = 1e-12


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Daily rows for fifteen months, in time order; the errors of b persist (AR(1), 0.7)."""
    rng = np.random.default_rng(20260511)
    y = rng.gamma(2.0, size=N).round(3)
    noise = np.zeros(N)
    for t in range(1, N):
        noise[t] = 0.7 * noise[t - 1] + rng.normal()
    return pd.DataFrame(
        {
            "date": pd.date_range("2024-02-01", periods=N, freq="D"),
            "y": y,
            "a": (y + rng.normal(size=N)).round(3),
            "b": (y + noise).round(3),
        }
    )


def _write(table: pd.DataFrame, folder, parts: int = 3) -> str:
    folder.mkdir()
    rows = -(-len(table) // parts)
    for i in range(parts):
        table.iloc[i * rows : (i + 1) * rows].to_parquet(folder / f"part{i}.parquet")
    return str(folder / "*.parquet")


@pytest.fixture(scope="module")
def files(frame, tmp_path_factory):
    root = tmp_path_factory.mktemp("dask_time")
    gap = frame.copy()
    gap.loc[40, "date"] = pd.NaT
    frame.to_parquet(root / "whole.parquet")
    return {
        "sorted": _write(frame, root / "sorted"),
        "shuffled": _write(frame.sample(frac=1.0, random_state=2), root / "shuffled"),
        "gap": _write(gap, root / "gap"),
        "whole": str(root / "whole.parquet"),
    }


def _invoke(*args: str):
    return CliRunner().invoke(app, ["evaluate", *args], catch_exceptions=False)


def _one_line_error(result, *patterns: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    for pattern in patterns:
        assert pattern in lines[0], lines[0]
    return lines[0]


def _common(path: str) -> list[str]:
    return [path, "-t", "y", "-p", "a", "-p", "b", "--bootstrap", str(B), "--seed", str(SEED)]


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    return a == b


def test_parquet_with_dates_on_dask_equals_the_python_api(files, tmp_path, client):
    out, html = tmp_path / "dask.json", tmp_path / "dask.html"
    scheduler = ["--engine", "dask", "--scheduler", client.scheduler.address]
    result = _invoke(
        *_common(files["sorted"]),
        *scheduler,
        "--time",
        "date",
        "--window",
        "M",
        "--json",
        str(out),
        "--html",
        str(html),
    )
    assert result.exit_code in (0, 1), result.output
    text = " ".join(result.output.split())
    assert "time: date" in text
    assert "block bootstrap: every interval and paired test from the non-overlapping" in text
    assert "stationary bootstrap" not in text
    got = json.loads(out.read_text())
    validate(got, results_schema())
    evaluation = evaluate_models(
        "y",
        ["a", "b"],
        data=files["sorted"],
        engine="dask",
        time="date",
        window="M",
        n_bootstrap=B,
        random_state=SEED,
    )
    want = json.loads(json.dumps(evaluation_to_json(evaluation)))
    compared = 0
    for model in ("a", "b"):
        for name, ref in want["models"][model].items():
            entry = got["models"][model][name]
            for key in ("value", "ci_low", "ci_high", "interval_method", "status"):
                assert _same(entry[key], ref[key]), (model, name, key, entry[key], ref[key])
            compared += ref["ci_low"] is not None
    assert compared >= 15
    assert got["comparisons"] == want["comparisons"]
    settings = got["settings"]
    for key in ("scheme", "block_length", "block_length_estimate", "time", "block bootstrap"):
        assert settings[key] == want["settings"][key], key
    assert settings["scheme"] == "blocks" and "Carlstein 1986" in settings["block bootstrap"]
    assert settings["window"] == "M"
    assert got["windows"] == want["windows"]
    assert got["windows"]["settings"]["scheme"] == "blocks"
    assert got["windows"]["settings"]["block_length"] == settings["block_length"]
    report = html.read_text()
    assert "fixed, non-overlapping blocks of consecutive rows" in report
    assert "Carlstein 1986" in report
    # the windows' values and counts are those of the in-memory run on the same rows
    memory = tmp_path / "memory.json"
    again = _invoke(*_common(files["whole"]), "--time", "date", "--window", "M",
                    "--json", str(memory), "-q")  # fmt: skip
    assert again.exit_code in (0, 1), again.output
    records = json.loads(memory.read_text())["windows"]["records"]
    assert len(records) == len(got["windows"]["records"])
    for g, w in zip(got["windows"]["records"], records, strict=True):
        assert (g["window"], g["metric"], g["model"]) == (w["window"], w["metric"], w["model"])
        assert g["n_rows"] == w["n_rows"]
        assert g["value"] == pytest.approx(w["value"], rel=TOL, abs=TOL)


def test_a_given_length_and_windows_of_rows(files, tmp_path, client):
    out = tmp_path / "o.json"
    scheduler = ["--engine", "dask", "--scheduler", client.scheduler.address]
    result = _invoke(*_common(files["sorted"]), *scheduler, "--time", "date", "--scheme",
                     "blocks", "--block-length", "7", "--window", "150", "--json", str(out),
                     "-q")  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(out.read_text())
    validate(doc, results_schema())
    assert doc["settings"]["block_length"] == 7
    assert "block length 7 given" in doc["settings"]["block bootstrap"]
    assert [w["window"] for w in doc["windows"]["windows"]] == [
        "rows 1-150",
        "rows 151-300",
        "rows 301-450",
    ]
    assert doc["windows"]["settings"]["block_length"] == 7


def test_rows_out_of_time_order_are_one_line(files, client):
    scheduler = ["--engine", "dask", "--scheduler", client.scheduler.address]
    _one_line_error(
        _invoke(*_common(files["shuffled"]), *scheduler, "--time", "date", "-q"),
        "--time column 'date': the rows are not in time order",
        "sort the rows by 'date' first",
    )


def test_a_missing_time_is_refused_or_dropped(files, tmp_path, client):
    scheduler = ["--engine", "dask", "--scheduler", client.scheduler.address]
    args = [*_common(files["gap"]), *scheduler, "--time", "date", "-q"]
    _one_line_error(_invoke(*args), "1 row(s) have missing", "date (1)", "--drop-na")
    out = tmp_path / "o.json"
    result = _invoke(*args, "--drop-na", "--json", str(out))
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(out.read_text())
    assert doc["n"] == N - 1 and doc["n_dropped"] == 1


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (["--time", "nosuch"], ["--time column 'nosuch' not found in"]),
        (
            ["--time", "date", "--scheme", "stationary"],
            ["--scheme with --engine dask must be blocks", "random starting rows"],
        ),
        (["--scheme", "circular"], ["--scheme with --engine dask must be blocks"]),
        (
            ["--time", "date", "--block-length", "2.5"],
            ["--block-length with --engine dask must be auto or a whole number of rows"],
        ),
        (["--block-length", "5"], ["--block-length sets the blocks", "--scheme blocks"]),
        (["--window", "M"], ["--window M is a calendar period: it needs --time COL"]),
    ],
)
def test_bad_options_are_one_line(files, options, patterns):
    """Refused before a cluster starts (no --scheduler is reached)."""
    result = _invoke(
        *_common(files["sorted"]), "--engine", "dask", "--scheduler", "tcp://192.0.2.1:1", *options
    )
    _one_line_error(result, *patterns)
