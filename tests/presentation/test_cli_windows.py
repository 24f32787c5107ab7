"""``ranklens evaluate --window``: the evaluation over time windows from the command line.

A CSV written by pandas with ISO 8601 dates, its rows shuffled, evaluated with ``--time date
--window M``: the JSON's ``windows`` block validates against the schema and holds the numbers
of :func:`ranklens.evaluate_models` on the same file with the same settings, and the terminal
prints the Summary's sentence after the table. An option that cannot apply is one ``error:``
line naming it, exit status 2.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("typer")

from typer.testing import CliRunner

from ranklens import evaluate_models
from ranklens._foundation.format import finite_or_none
from ranklens.cli import app
from ranklens.evaluation import windows_json
from ranklens.report.window_views import window_sentence
from report_schema import results_schema, validate

N = 360
B = "30"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    """Two readings a day for six months, shuffled; gbm drifts away from the truth."""
    rng = np.random.default_rng(31)
    y = rng.lognormal(mean=1.0, size=N).round(4)
    drift = np.linspace(0.4, 1.8, N)
    table = pd.DataFrame(
        {
            "date": pd.date_range("2024-01-01 08:00", periods=N, freq="12h"),
            "spend": y,
            "gbm": (y + drift * rng.normal(size=N)).round(4),
            "linear": (y + rng.normal(size=N)).round(4),
            "day": np.arange(N, dtype=float),
        }
    )
    return table.sample(frac=1.0, random_state=2).reset_index(drop=True)


@pytest.fixture(scope="module")
def csv(frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("windows") / "scores.csv"
    frame.to_csv(path, index=False)
    return path


def _run(*args: str):
    return CliRunner().invoke(app, ["evaluate", *map(str, args)])


def _one_line_error(result, *patterns: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for pattern in patterns:
        assert pattern in lines[0], lines[0]


def _strict(doc):
    """A document as ``results.json`` holds it: NaN as null, then through strict JSON."""
    return json.loads(json.dumps(finite_or_none(doc), allow_nan=False))


def test_months_from_a_csv_match_the_python_api(csv, tmp_path):
    out = tmp_path / "results.json"
    result = _run(csv, "-t", "spend", "-p", "gbm", "-p", "linear", "--time", "date",
                  "--window", "M", "--bootstrap", B, "--seed", "4", "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    validate(doc, results_schema())
    block = doc["windows"]
    assert [w["window"] for w in block["windows"]] == [f"2024-{m:02d}" for m in range(1, 7)]
    assert block["settings"]["scheme"] == "stationary"
    assert doc["settings"]["window"] == "M"
    # the Python API on the same file (ISO dates as text), with the same settings
    ev = evaluate_models(
        "spend",
        ["gbm", "linear"],
        data=pd.read_csv(csv),
        time="date",
        window="M",
        n_bootstrap=int(B),
        random_state=4,
        curves=False,
        robustness=False,
    )
    assert block == _strict(windows_json(ev))
    # the terminal: the Summary's sentence on the windows, after the table
    sentence = window_sentence(ev)
    assert sentence.startswith("On mean absolute error, linear's lead over gbm is clear in")
    assert f"Over time: {sentence}" in " ".join(result.output.split())


def test_rows_and_the_segment_options(csv, tmp_path):
    """A number of rows per window (no --time: the file's order), --min-segment-rows and
    --segment-fdr-level judging the windows, --bootstrap 0: values and counts only."""
    out = tmp_path / "results.json"
    result = _run(csv, "-t", "spend", "-p", "gbm", "-p", "linear", "--window", "100",
                  "--min-segment-rows", "50", "--segment-fdr-level", "0.1", "--bootstrap", "0",
                  "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    block = json.loads(out.read_text())["windows"]
    assert block["settings"]["window"] == 100 and block["settings"]["window_kind"] == "rows"
    assert block["settings"]["min_rows"] == 50 and block["settings"]["fdr_level"] == 0.1
    assert [w["window"] for w in block["windows"]][-1] == "rows 301-360"
    assert "estimated" not in {r["status"] for r in block["records"]}
    assert "Over time: No bootstrap replicates, so no window is judged" in " ".join(
        result.output.split()
    )


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (["--window", "M"], ["--window M is a calendar period: it needs --time COL"]),
        (["--window", "2M", "--time", "date"], ["--window must be a calendar period", "'2M'"]),
        (["--window", "0"], ["--window must be", "a number of rows >= 1; got '0'"]),
        (["--window", "fortnight"], ["--window must be a calendar period"]),
        (
            ["--window", "M", "--engine", "dask", "--bootstrap", "20"],
            ["--window M is a calendar period: it needs --time COL"],
        ),
        (
            ["--window", "M", "--time", "day"],
            ["--window M is a calendar period: the --time column 'day' holds numbers"],
        ),
        (["--window", "100", "--segment-bins", "3"], ["--segment-bins is for the evaluation"]),
        (["--min-segment-rows", "5"], ["give --by COL or --scan COL or --window too"]),
    ],
)
def test_bad_options_are_one_line(csv, options, patterns):
    result = _run(csv, "-t", "spend", "-p", "gbm", "-p", "linear", *options)
    _one_line_error(result, *patterns)


def test_one_model_is_refused(csv):
    result = _run(csv, "-t", "spend", "-p", "gbm", "--window", "100")
    _one_line_error(result, "--window compares the models in every window")
