"""``ranklens evaluate --by/--scan``: segments read from the file, the JSON block, refusals.

The segment columns are read from the file as labels (a string column written by pandas with
missing labels included, from CSV and Parquet), never taken as predictions; the JSON's
``segments`` block validates against the schema and holds the numbers of the Python API on the
same file; an option that cannot apply is one ``error:`` line naming it, exit 2.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranklens import evaluate_models
from ranklens._foundation.format import finite_or_none
from ranklens.cli import app, exact_float_parsing
from ranklens.evaluation import segments_json
from report_schema import results_schema, validate

runner = CliRunner()

N = 500
B = "30"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(21)
    y = rng.lognormal(mean=2, size=N)
    region = pd.Series(rng.choice(["north", "south", "west"], N), dtype="object")
    region[rng.random(N) < 0.06] = None  # missing labels: a segment of their own
    return pd.DataFrame(
        {
            "spend": y,
            "gbm": y + rng.normal(size=N) * np.where(region == "north", 0.5, 2.0),
            "linear": y + rng.normal(size=N) * 1.5,
            "region": region,
            "tier": rng.integers(1, 400, N),
        }
    )


@pytest.fixture(scope="module")
def files(frame, tmp_path_factory):
    folder = tmp_path_factory.mktemp("segments")
    csv, parquet = folder / "scores.csv", folder / "scores.parquet"
    frame.to_csv(csv, index=False)
    frame.to_parquet(parquet)
    return {"csv": csv, "parquet": parquet}


def _run(*args: str):
    return runner.invoke(app, ["evaluate", *map(str, args)])


def _one_line_error(result, *patterns: str) -> None:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for pattern in patterns:
        assert pattern in lines[0], lines[0]


def _strict(doc):
    """A document as ``results.json`` holds it: NaN as null, then through strict JSON."""
    return json.loads(json.dumps(finite_or_none(doc), allow_nan=False))


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_segments_from_the_file_match_the_python_api(files, frame, tmp_path, kind):
    path = files[kind]
    out = tmp_path / "results.json"
    result = _run(
        path,
        "-t",
        "spend",
        "-p",
        "gbm",
        "-p",
        "linear",
        "--by",
        "region",
        "--by",
        "tier",
        "--scan",
        "region,tier",
        "--bootstrap",
        B,
        "--seed",
        "4",
        "--json",
        out,
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    validate(doc, results_schema())
    assert set(doc["models"]) == {"gbm", "linear"}  # the segment columns are no models
    block = doc["segments"]
    assert block["settings"]["slicings"] == ["region", "tier"]
    assert block["segments"]["region"] == ["north", "south", "west", "(missing)"]
    assert len(block["segments"]["tier"]) == 5
    missing = [r for r in block["records"] if r["segment"] == "(missing)"]
    assert missing and missing[0]["n_rows"] == int(frame["region"].isna().sum())
    # the Python API on the same file, with the same settings
    # read as the command line reads it: every decimal to the nearest float (pandas < 3's
    # default parser can miss by an ulp)
    data = pd.read_csv(path, **exact_float_parsing()) if kind == "csv" else pd.read_parquet(path)
    ev = evaluate_models(
        "spend",
        ["gbm", "linear"],
        data=data,
        by=["region", "tier"],
        scan=["region", "tier"],
        n_bootstrap=int(B),
        random_state=4,
        curves=False,
        robustness=False,
    )
    assert block == _strict(segments_json(ev))
    # the terminal: the segments' sentence and the scan's, after the table
    assert f"By segment: {ev.segments.summary()}" in " ".join(result.output.split())
    assert "Segment scan: " in result.output


def test_the_segment_options_reach_the_evaluation(files, frame, tmp_path):
    """--segment-fdr, --segment-fdr-level, --min-segment-events and --cross-segments are
    evaluate_models' segment_fdr, segment_fdr_level, min_segment_events and cross_segments."""
    out = tmp_path / "results.json"
    result = _run(files["csv"], "-t", "spend", "-p", "gbm", "-p", "linear", "--by", "region",
                  "--by", "tier", "--cross-segments", "--segment-fdr", "by",
                  "--segment-fdr-level", "0.1", "--min-segment-events", "12", "--events",
                  "top:0.2", "--bootstrap", B, "--seed", "4", "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    block = json.loads(out.read_text())["segments"]
    ev = evaluate_models(
        "spend",
        ["gbm", "linear"],
        data=pd.read_csv(files["csv"], **exact_float_parsing()),
        by=["region", "tier"],
        cross_segments=True,
        segment_fdr="by",
        segment_fdr_level=0.1,
        min_segment_events=12,
        events="top:0.2",
        n_bootstrap=int(B),
        random_state=4,
        curves=False,
        robustness=False,
    )
    assert block == _strict(segments_json(ev))
    assert block["settings"]["fdr_method"] == "benjamini-yekutieli"
    assert block["settings"]["fdr_level"] == 0.1 and block["settings"]["min_events"] == 12
    assert len(block["settings"]["slicings"]) == 3


def test_a_string_column_read_back_by_pandas_keeps_its_missing_labels(files):
    read = pd.read_csv(files["csv"])
    assert read["region"].isna().sum() > 0
    assert pd.api.types.is_string_dtype(read["region"]) or read["region"].dtype == object


def test_dropped_rows_leave_the_segments_too(frame, tmp_path):
    holed = frame.copy()
    holed.loc[[3, 7, 11], "spend"] = np.nan
    path = tmp_path / "holed.csv"
    holed.to_csv(path, index=False)
    out = tmp_path / "results.json"
    result = _run(path, "-t", "spend", "-p", "gbm", "-p", "linear", "--by", "region",
                  "--bootstrap", "0", "--drop-na", "--json", out, "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["n"] == N - 3 and doc["n_dropped"] == 3
    records = doc["segments"]["records"]
    rows = {r["segment"]: r["n_rows"] for r in records}
    assert sum(rows.values()) == N - 3
    kept = holed.dropna(subset=["spend"])
    assert rows["north"] == int((kept["region"] == "north").sum())
    # no replicates: values and counts, no verdicts, and the terminal says so
    assert {r["verdict"] for r in records} <= {"pick", "not tested"}


def test_without_replicates_the_terminal_says_there_are_no_verdicts(files):
    result = _run(files["csv"], "-t", "spend", "-p", "gbm", "-p", "linear", "--by", "region",
                  "--bootstrap", "0")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "no interval and no verdict" in " ".join(result.output.split())


@pytest.mark.parametrize(
    ("args", "patterns"),
    [
        (["--by", "nowhere"], ["--by column 'nowhere' not found"]),
        (["--scan", "region,nowhere"], ["--scan column 'nowhere' not found"]),
        (["--by", "spend"], ["--by 'spend' is also the --target column"]),
        (["--by", "gbm"], ["--by 'gbm' is also the --pred column"]),
        (["--scan", "tier,linear"], ["--scan 'linear' is also the --pred column"]),
        (["--by", "region", "--by", "region"], ["--by 'region' is given twice"]),
        (["--scan", "region,"], ["--scan names an empty column"]),
        (["--segment-bins", "3"], ["--segment-bins is for the evaluation by segment"]),
        (["--min-segment-rows", "5"], ["--min-segment-rows is for the evaluation by segment"]),
        (["--by", "tier", "--segment-bins", "1"], ["--segment-bins must be an integer >= 2"]),
        (["--by", "tier", "--min-segment-rows", "0"], ["--min-segment-rows must be an integer"]),
        (["--by", "region", "--groups", "region"], ["--by 'region' is also the --groups column"]),
        (["--segment-fdr", "by"], ["--segment-fdr is for the evaluation by segment"]),
        (["--cross-segments"], ["--cross-segments is for the evaluation by segment"]),
        (["--by", "region", "--segment-fdr", "holm"], ["--segment-fdr must be one of bh, by"]),
        (["--by", "region", "--segment-fdr-level", "2"], ["--segment-fdr-level"]),
        (["--by", "region", "--min-segment-events", "0"], ["--min-segment-events must be"]),
        (["--by", "region", "--cross-segments"], ["--cross-segments crosses the --by columns"]),
    ],
)
def test_options_that_cannot_apply_are_refused_by_name(files, args, patterns):
    bootstrap = "20" if "--groups" in args else "0"  # --groups needs replicates
    common = ["-t", "spend", "-p", "gbm", "-p", "linear", "--bootstrap", bootstrap]
    _one_line_error(_run(files["csv"], *common, *args), *patterns)


def test_one_model_is_refused_naming_the_option(files):
    result = _run(files["csv"], "-t", "spend", "-p", "gbm", "--by", "region", "--bootstrap", "0")
    _one_line_error(result, "--by compares the models in every segment", "two --pred")


def test_by_on_dask_reads_the_segments_from_parquet(files, frame, tmp_path, client):
    """``--engine dask --by``: the Dask engine's evaluation by segment, its values and counts
    those of the in-memory run; a missing column is refused by the option's name."""
    pytest.importorskip("dask")
    out = tmp_path / "dask.json"
    common = ["-t", "spend", "-p", "gbm", "-p", "linear", "--engine", "dask"]
    scheduler = ["--scheduler", client.scheduler.address]
    result = _run(files["parquet"], *common, *scheduler, "--by", "region", "--json", out, "-q")
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    validate(doc, results_schema())
    block = doc["segments"]
    assert block["segments"]["region"] == ["north", "south", "west", "(missing)"]
    memory = tmp_path / "memory.json"
    result = _run(files["parquet"], *common[:6], "--by", "region", "--bootstrap", "0",
                  "--json", memory, "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    want = json.loads(memory.read_text())["segments"]["records"]
    for got, expected in zip(block["records"], want, strict=True):
        assert got["n_rows"] == expected["n_rows"] and got["segment"] == expected["segment"]
        assert got["value"] == pytest.approx(expected["value"], rel=1e-12, abs=1e-12)
    missing = _run(files["parquet"], *common, *scheduler, "--by", "nowhere", "-q")
    _one_line_error(missing, "--by column 'nowhere' not found")
    missing = _run(files["parquet"], *common, *scheduler, "--scan", "region,nowhere", "-q")
    _one_line_error(missing, "--scan column 'nowhere' not found")


def test_quantile_bins_and_the_scan_on_dask_match_memory(files, tmp_path, client):
    """``--engine dask --by tier --scan region,tier``: a numeric column cut into the in-memory
    quantile bins, and the search for weak segments, with the segments, counts and values of
    the in-memory run and the same candidates and tests."""
    pytest.importorskip("dask")
    common = ["-t", "spend", "-p", "gbm", "-p", "linear", "--by", "tier", "--scan", "region,tier"]
    docs = {}
    for engine, extra in (
        ("dask", ["--scheduler", client.scheduler.address]),
        ("memory", []),
    ):
        out = tmp_path / f"{engine}.json"
        result = _run(files["parquet"], *common, "--engine", engine, *extra, "--bootstrap", B,
                      "--json", out, "-q")  # fmt: skip
        assert result.exit_code == 0, result.output
        docs[engine] = json.loads(out.read_text())["segments"]
        validate(json.loads(out.read_text()), results_schema())
    got, want = docs["dask"], docs["memory"]
    assert got["segments"]["tier"] == want["segments"]["tier"]
    assert len(got["segments"]["tier"]) == 5
    for block_got, block_want in ((got, want), (got["scan"], want["scan"])):
        pairs = zip(block_got["records"], block_want["records"], strict=True)
        for mine, theirs in pairs:
            assert (mine["segment"], mine["n_rows"]) == (theirs["segment"], theirs["n_rows"])
            assert mine["value"] == pytest.approx(theirs["value"], rel=1e-12, abs=1e-12)
    assert got["scan"]["n_candidates"] == want["scan"]["n_candidates"] == 4 + 5
    assert got["scan"]["n_tests"] == want["scan"]["n_tests"]
