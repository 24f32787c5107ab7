"""``ranklens evaluate --time COL`` (and ``--scheme``, ``--block-length``): rows in time order
from the command line.

A CSV written by pandas with ISO 8601 dates (and one with UTC offsets that change with
daylight saving time), its rows shuffled: the JSON numbers equal :func:`ranklens.evaluate_models`
called with the same column, seed and replicates, and the block bootstrap is named in the
settings. A row without a time is refused, or dropped with ``--drop-na``. Bad input is one
``error:`` line naming the option, and exit status 2, before any work.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")

from typer.testing import CliRunner

from ranklens import evaluate_models
from ranklens.cli import app
from ranklens.evaluation import evaluation_to_json

N = 150
N_BOOT = 60
SEED = 7


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Daily rows, shuffled; the errors of both models are AR(1) with coefficient 0.7."""
    rng = np.random.default_rng(20260304)
    y = rng.normal(size=N).round(3)

    def ar1() -> np.ndarray:
        x = np.empty(N)
        x[0] = rng.normal() / math.sqrt(1 - 0.49)
        for t in range(1, N):
            x[t] = 0.7 * x[t - 1] + rng.normal()
        return x

    table = pd.DataFrame(
        {
            "date": pd.date_range("2024-03-01", periods=N, freq="D"),
            "y": y,
            "a": (y + ar1()).round(3),
            "b": (y + ar1()).round(3),
            "unit": np.arange(N) % 15,
        }
    )
    return table.sample(frac=1.0, random_state=1).reset_index(drop=True)


@pytest.fixture(scope="module")
def files(frame, tmp_path_factory):
    root = tmp_path_factory.mktemp("time")
    frame.to_csv(root / "dates.csv", index=False)
    # hours in New York: the offset is -05:00 in winter and -04:00 from 10 March
    zoned = frame.assign(date=frame["date"].dt.tz_localize("America/New_York"))
    zoned.to_csv(root / "zoned.csv", index=False)
    gap = frame.copy().astype({"date": object})
    gap.loc[4, "date"] = None
    gap.to_csv(root / "gap.csv", index=False)
    bad = frame.copy().astype({"date": str})
    bad.loc[2, "date"] = "soon"
    bad.to_csv(root / "bad.csv", index=False)
    return root


def _invoke(*args: str):
    return CliRunner().invoke(app, ["evaluate", *args], catch_exceptions=False)


def _run(path, out, *options: str) -> dict:
    result = _invoke(str(path), "-t", "y", "-p", "a", "-p", "b", "-q", "--json", str(out), *options)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _one_line_error(result, *patterns: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    for pattern in patterns:
        assert pattern in lines[0], lines[0]
    return lines[0]


def _python(table: pd.DataFrame, **kw) -> dict:
    """The Python API on the columns the command line reads, as the JSON document."""
    evaluation = evaluate_models(
        table["y"].to_numpy(dtype=float),
        {"a": table["a"].to_numpy(dtype=float), "b": table["b"].to_numpy(dtype=float)},
        target="y",
        n_bootstrap=N_BOOT,
        random_state=SEED,
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
        for key in w:
            assert _same(g[key], w[key]), (w["measure"], key, g[key], w[key])
    return compared


def _options(*extra: str) -> list[str]:
    return ["--bootstrap", str(N_BOOT), "--seed", str(SEED), *extra]


def test_csv_with_iso_dates_equals_the_python_api(files, tmp_path):
    got = _run(files / "dates.csv", tmp_path / "o.json", *_options("--time", "date"))
    table = pd.read_csv(files / "dates.csv")
    assert table["date"].iloc[0] == "2024-03-15"  # ISO dates, as pandas writes them
    want = _python(table, time=table["date"])
    assert _same_numbers(got, want) >= 20
    settings = got["settings"]
    assert settings["time"] == (
        f"'date': {N} rows from 2024-03-01 to 2024-07-28 (rows sorted by it)"
    )
    assert settings["scheme"] == "stationary" == got["comparison"]["scheme"]
    assert settings["block_length"] == want["settings"]["block_length"] > 1
    assert "chosen by Politis & White (2004)" in settings["block bootstrap"]
    methods = {e["interval_method"] for m in got["models"].values() for e in m.values()}
    assert methods - {None} <= {"bootstrap-bca", "bootstrap-percentile"}
    assert "serial_dependence" not in got
    # the same rows, sorted by hand, without --time but with the scheme: the same numbers
    ordered = table.sort_values("date", kind="stable").reset_index(drop=True)
    ordered.to_csv(tmp_path / "ordered.csv", index=False)
    again = _run(
        tmp_path / "ordered.csv",
        tmp_path / "p.json",
        *_options("--scheme", "stationary", "--block-length", repr(settings["block_length"])),
    )
    assert again["models"]["a"]["mean_absolute_error"] == got["models"]["a"]["mean_absolute_error"]


def test_csv_with_utc_offsets_equals_the_python_api(files, tmp_path):
    got = _run(files / "zoned.csv", tmp_path / "o.json", *_options("--time", "date"))
    table = pd.read_csv(files / "zoned.csv")
    assert table["date"].str.endswith("-05:00").any() and table["date"].str.endswith("-04:00").any()
    want = _python(table, time=table["date"])
    assert _same_numbers(got, want) >= 20
    # the offsets differ: compared in UTC, the order is the dates' own
    naive = _run(files / "dates.csv", tmp_path / "n.json", *_options("--time", "date"))
    assert got["models"]["b"]["kendall_tau"] == naive["models"]["b"]["kendall_tau"]
    assert got["settings"]["time"].startswith(f"'date': {N} rows from 2024-03-01T05:00:00+00:00")


def test_scheme_without_time_and_a_given_length(files, tmp_path):
    got = _run(
        files / "dates.csv",
        tmp_path / "o.json",
        *_options("--scheme", "circular", "--block-length", "6"),
    )
    table = pd.read_csv(files / "dates.csv")
    want = _python(table, scheme="circular", block_length=6.0)
    assert _same_numbers(got, want) >= 20
    assert got["settings"]["block_length"] == 6.0
    assert (
        "block length 6 given, over the rows in the order given"
        in (got["settings"]["block bootstrap"])
    )


def test_a_missing_time_is_refused_or_dropped(files, tmp_path):
    args = [str(files / "gap.csv"), "-t", "y", "-p", "a", "-p", "b", "-q", "--time", "date"]
    _one_line_error(
        _invoke(*args, "--bootstrap", "20"), "1 row(s) have missing", "date (1)", "--drop-na"
    )
    out = tmp_path / "o.json"
    result = _invoke(*args, "--bootstrap", "20", "--drop-na", "--json", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["n"] == N - 1 and doc["n_dropped"] == 1
    assert doc["settings"]["time"].startswith(f"'date': {N - 1} rows from")


def test_the_terminal_names_the_block_bootstrap(files):
    result = _invoke(
        str(files / "dates.csv"), "-t", "y", "-p", "a", "-p", "b", *_options("--time", "date")
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "block bootstrap: every interval and paired test from the stationary bootstrap" in text
    assert "time: 'date': 150 rows from 2024-03-01 to 2024-07-28" in text


def test_without_time_the_serial_dependence_check_warns(files, tmp_path):
    table = pd.read_csv(files / "dates.csv").sort_values("date")
    table.to_csv(tmp_path / "sorted.csv", index=False)
    doc = _run(tmp_path / "sorted.csv", tmp_path / "o.json", *_options())
    warning = doc["serial_dependence"]["warning"]
    assert warning.startswith("the rows look serially dependent: ")
    assert doc["problems"]["(all models)"]["serial dependence"]["message"] == warning
    # shuffled rows are not serially dependent in the order given
    shuffled = _run(files / "dates.csv", tmp_path / "s.json", *_options())
    assert shuffled["serial_dependence"]["warning"] is None


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (["--scheme", "blocks"], ["--scheme must be one of stationary, circular; got 'blocks'"]),
        (
            ["--time", "date", "--block-length", "long"],
            ["--block-length must be auto or a number of rows >= 1; got 'long'"],
        ),
        (["--time", "date", "--block-length", "0.5"], ["--block-length must be auto or a number"]),
        (["--block-length", "5"], ["--block-length sets the blocks", "--time COL"]),
        (["--time", "date", "--groups", "unit"], ["--time resamples blocks", "--groups"]),
        (
            ["--scheme", "circular", "--bootstrap", "0"],
            ["--scheme circular resamples blocks", "with --bootstrap 0 nothing is resampled"],
        ),
        (["--time", "y"], ["--time 'y' is also the --target column"]),
        (["--time", "nosuch"], ["--time column 'nosuch' not found in"]),
        (["--time", "date", "--block-length", "1000"], ["--block-length 1000 is longer than"]),
        (
            ["--time", "date", "--engine", "dask"],
            ["--time resamples blocks", "with --engine dask and no --bootstrap N nothing is"],
        ),
        (
            ["--scheme", "stationary", "--engine", "dask", "--bootstrap", "20"],
            ["--scheme with --engine dask must be blocks", "random starting rows"],
        ),
        (
            ["--time", "date", "--engine", "dask", "--bootstrap", "20", "--block-length", "2.5"],
            ["--block-length with --engine dask must be auto or a whole number of rows"],
        ),
    ],
)
def test_bad_options_are_one_line(files, options, patterns):
    _one_line_error(
        _invoke(str(files / "dates.csv"), "-t", "y", "-p", "a", "-p", "b", *options), *patterns
    )


def test_a_time_that_does_not_parse_is_one_line(files):
    _one_line_error(
        _invoke(str(files / "bad.csv"), "-t", "y", "-p", "a", "--time", "date"),
        "--time 'date': row 3: 'soon' is not a date or time (ISO 8601",
    )
