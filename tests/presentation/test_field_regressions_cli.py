"""``ranklens evaluate`` refuses what it cannot honour, and the numbers it keeps are right.

Field reports, each through the command line on CSV files written by pandas: an event rule that
does not split the target (``--events top:0.1`` of a 0/1 column made every row an event and
exited 0 with lifts of 1), interval bounds that went to the first ``--pred`` without a word,
``--groups`` over a handful of units, options that could not apply and were ignored, temporary
files left behind by SIGTERM or Ctrl-C during the write, and ``--version``.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from typer.testing import CliRunner

import ranklens
from ranklens.cli import app

runner = CliRunner()


def _run(*args: object):
    return runner.invoke(app, [*map(str, args), "-q"], env={"COLUMNS": "240"})


def _one_line_error(result, *patterns: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: "), lines[0]
    for pattern in patterns:
        assert pattern in lines[0], lines[0]
    return lines[0]


def _no_work(monkeypatch) -> None:
    """Bad input is refused before any work: evaluating at all would be the bug."""
    import ranklens.report

    def refuse(*args, **kwargs):
        raise AssertionError("evaluate_models ran for bad input")

    monkeypatch.setattr(ranklens.report, "evaluate_models", refuse)


def _temporaries(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def churn(tmp_path):
    """A 0/1 target with 5% events (so ``top:0.1`` reaches down to the zeros) and 30% events."""

    def write(rate: float) -> tuple[pathlib.Path, pd.DataFrame]:
        rng = np.random.default_rng(34)
        n = 400
        churned = (np.arange(n) < rate * n).astype(int)
        rng.shuffle(churned)
        frame = pd.DataFrame({"churned": churned, "score": churned * 0.8 + rng.uniform(size=n)})
        path = tmp_path / f"churn{int(rate * 100)}.csv"
        frame.to_csv(path, index=False)
        return path, pd.read_csv(path)

    return write


@pytest.fixture
def spend(tmp_path):
    """A continuous target, three models, interval bounds for two of them, 3 segments."""
    rng = np.random.default_rng(35)
    n = 240
    y = rng.lognormal(3, 1, n)
    frame = pd.DataFrame(
        {
            "spend": y,
            "linear": y + rng.normal(scale=20, size=n),
            "gbm": y * rng.lognormal(sigma=0.3, size=n),
            "rf": y * rng.lognormal(sigma=0.5, size=n),
            "segment": rng.choice(["north", "south", "west"], size=n),
            "customer": np.arange(n) % 10,
            "nine": np.arange(n) % 9,
        }
    )
    frame["gbm_lo"], frame["gbm_hi"] = frame["gbm"] * 0.6, frame["gbm"] * 1.6
    frame["rf_lo"], frame["rf_hi"] = frame["rf"] * 0.8, frame["rf"] * 1.2
    path = tmp_path / "spend.csv"
    frame.to_csv(path, index=False)
    return path, pd.read_csv(path)


# --------------------------------------------------------------------------------------------
# --events that cannot separate the target


def test_events_top_that_marks_every_row_of_a_01_target_is_refused(churn, tmp_path):
    path, _ = churn(0.05)
    out = tmp_path / "r.json"
    result = _run("evaluate", path, "-t", "churned", "-p", "score", "--events", "top:0.1",
                  "--bootstrap", "0", "--json", out)  # fmt: skip
    _one_line_error(
        result,
        "--events 'top:0.1' marks every row as an event (y >= 0; event share 1)",
        "the target has only the values 0 and 1",
        "leave --events out",
        "--events '>0'",
    )
    assert not out.exists()


def test_events_top_on_the_tie_of_a_01_target_is_refused(churn):
    path, _ = churn(0.30)
    result = _run("evaluate", path, "-t", "churned", "-p", "score", "--events", "top:0.1",
                  "--bootstrap", "0")  # fmt: skip
    _one_line_error(result, "event share of 30.0%, not 10.0%", "falls on the tie at 1")


def test_events_that_mark_no_row_are_refused(spend):
    path, _ = spend
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--events", "1e9",
                  "--bootstrap", "0")  # fmt: skip
    _one_line_error(result, "--events '1e9' marks no row as an event (y >= 1e+09)")


def test_events_that_split_a_01_target_give_its_labels(churn, tmp_path):
    path, frame = churn(0.05)
    out = tmp_path / "r.json"
    result = _run("evaluate", path, "-t", "churned", "-p", "score", "--events", ">0",
                  "--bootstrap", "0", "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    got = json.loads(out.read_text())["models"]["score"]
    y, score = frame["churned"].to_numpy(), frame["score"].to_numpy()
    assert got["roc_auc"]["value"] == pytest.approx(roc_auc_score(y, score), rel=1e-12)
    top = np.argsort(-score, kind="stable")[: len(y) // 10]
    assert got["lift_at_10"]["value"] == pytest.approx(y[top].mean() / y.mean(), rel=1e-12)
    assert got["lift_at_10"]["value"] > 5


# --------------------------------------------------------------------------------------------
# Prediction intervals belong to a named model


def test_lower_upper_with_several_preds_is_refused(spend, monkeypatch):
    _no_work(monkeypatch)
    path, _ = spend
    result = _run("evaluate", path, "-t", "spend", "-p", "linear", "-p", "gbm", "-p", "rf",
                  "--lower", "gbm_lo", "--upper", "gbm_hi", "--alpha", "0.1",
                  "--bootstrap", "0")  # fmt: skip
    _one_line_error(
        result, "--lower/--upper with 3 --pred columns (linear, gbm, rf)", "--interval MODEL"
    )


def test_interval_names_its_model(spend, tmp_path):
    path, frame = spend
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    result = _run("evaluate", path, "-t", "spend", "-p", "linear", "-p", "gbm", "-p", "rf",
                  "--interval", "gbm:gbm_lo:gbm_hi", "--interval", "rf:rf_lo:rf_hi",
                  "--alpha", "0.1", "--bootstrap", "0", "--json", out, "--html", html)  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    y = frame["spend"].to_numpy()
    for model in ("gbm", "rf"):
        lo, hi = frame[f"{model}_lo"].to_numpy(), frame[f"{model}_hi"].to_numpy()
        got = doc["models"][model]
        assert got["interval_coverage"]["value"] == pytest.approx(((lo <= y) & (y <= hi)).mean())
        assert got["mean_interval_width"]["value"] == pytest.approx(np.mean(hi - lo), rel=1e-12)
    assert "interval_coverage" not in doc["models"]["linear"]
    # gbm's bounds are 0.6-1.6 x, rf's 0.8-1.2 x: the two coverages differ
    assert doc["models"]["gbm"]["interval_coverage"]["value"] != pytest.approx(
        doc["models"]["rf"]["interval_coverage"]["value"]
    )
    expected = "gbm: lower 'gbm_lo', upper 'gbm_hi'; rf: lower 'rf_lo', upper 'rf_hi'"
    assert doc["settings"]["prediction intervals"] == expected
    assert "prediction intervals" in html.read_text()


def test_lower_upper_with_one_pred_still_pairs_with_it(spend, tmp_path):
    path, frame = spend
    out = tmp_path / "r.json"
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--lower", "gbm_lo",
                  "--upper", "gbm_hi", "--alpha", "0.1", "--bootstrap", "0",
                  "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    y, lo, hi = (frame[c].to_numpy() for c in ("spend", "gbm_lo", "gbm_hi"))
    cover = doc["models"]["gbm"]["interval_coverage"]["value"]
    assert cover == pytest.approx(((lo <= y) & (y <= hi)).mean())
    assert doc["settings"]["prediction intervals"] == "gbm: lower 'gbm_lo', upper 'gbm_hi'"


def test_dask_takes_each_models_interval_as_memory_does(spend, tmp_path):
    """``--interval MODEL:LOWER:UPPER`` on the Dask engine: each model's interval measures from
    its own bounds, the same numbers as the memory engine, and the pairing in the settings."""
    pytest.importorskip("distributed")
    path, frame = spend
    parquet = tmp_path / "spend.parquet"
    frame.to_parquet(parquet)  # the file as pandas writes it
    common = ["-t", "spend", "-p", "gbm", "-p", "rf", "--interval", "gbm:gbm_lo:gbm_hi",
              "--interval", "rf:rf_lo:rf_hi", "--alpha", "0.1", "--bootstrap", "0"]  # fmt: skip
    docs = {}
    for engine, source in (("memory", path), ("dask", parquet)):
        out = tmp_path / f"{engine}.json"
        result = _run("evaluate", source, *common, "--engine", engine, "--json", out)
        assert result.exit_code == 0, result.output
        docs[engine] = json.loads(out.read_text())
    y = frame["spend"].to_numpy()
    for model in ("gbm", "rf"):
        lo, hi = frame[f"{model}_lo"].to_numpy(), frame[f"{model}_hi"].to_numpy()
        want = ((lo <= y) & (y <= hi)).mean()
        for engine in ("memory", "dask"):
            cover = docs[engine]["models"][model]["interval_coverage"]["value"]
            assert cover == pytest.approx(want, rel=1e-12), (engine, model)
        for name in ("interval_score", "mean_interval_width", "interval_coverage_error"):
            got = docs["dask"]["models"][model][name]["value"]
            ref = docs["memory"]["models"][model][name]["value"]
            assert got == pytest.approx(ref, rel=1e-12), (model, name)
    pairing = "gbm: lower 'gbm_lo', upper 'gbm_hi'; rf: lower 'rf_lo', upper 'rf_hi'"
    assert docs["dask"]["settings"]["prediction intervals"] == pairing
    assert docs["memory"]["settings"]["prediction intervals"] == pairing


def test_dask_lower_upper_with_several_preds_is_refused_as_in_memory(spend, monkeypatch):
    _no_work(monkeypatch)
    path, _ = spend
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "-p", "rf", "--lower", "gbm_lo",
                  "--upper", "gbm_hi", "--alpha", "0.1", "--engine", "dask")  # fmt: skip
    _one_line_error(result, "say which model each interval belongs to", "--interval MODEL:")


def test_dask_groups_below_the_minimum_of_units_is_refused_as_in_memory(spend, tmp_path):
    pytest.importorskip("distributed")
    _, frame = spend
    parquet = tmp_path / "spend.parquet"
    frame.to_parquet(parquet)
    result = _run("evaluate", parquet, "-t", "spend", "-p", "gbm", "--groups", "segment",
                  "--bootstrap", "50", "--engine", "dask")  # fmt: skip
    _one_line_error(
        result, "--groups 'segment' holds 3 distinct unit(s)", "needs at least 10",
        "it does not split the evaluation by segment",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (["--interval", "gbm_lo:gbm_hi"], ["is not MODEL:LOWER:UPPER"]),
        (["--interval", "xgb:gbm_lo:gbm_hi"], ["'xgb' is not a --pred column (linear, gbm)"]),
        (["--interval", "gbm:gbm_lo:gbm_hi", "--interval", "gbm:rf_lo:rf_hi"], ["twice"]),
        (
            ["--interval", "gbm:gbm_lo:gbm_hi", "--lower", "rf_lo", "--upper", "rf_hi"],
            ["not both"],
        ),
        (["--interval", "gbm:gbm_hi:gbm_lo"], ["--interval lower 'gbm_hi' is above upper"]),
        (["--interval", "gbm:gbm_lo:nope"], ["column 'nope' not found"]),
    ],
)
def test_bad_interval_is_one_line(spend, monkeypatch, options, patterns):
    _no_work(monkeypatch)
    path, _ = spend
    result = _run("evaluate", path, "-t", "spend", "-p", "linear", "-p", "gbm", *options,
                  "--alpha", "0.1", "--bootstrap", "0")  # fmt: skip
    _one_line_error(result, *patterns)


# --------------------------------------------------------------------------------------------
# --groups over too few units


def test_groups_over_three_segments_is_refused(spend, monkeypatch):
    _no_work(monkeypatch)
    path, _ = spend
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--groups", "segment",
                  "--bootstrap", "50")  # fmt: skip
    _one_line_error(
        result,
        "--groups 'segment' holds 3 distinct unit(s)",
        "needs at least 10",
        "only 10 distinct resamples",
        "--groups resamples whole units; it does not split the evaluation by segment",
    )


def test_groups_needs_ten_units(spend, monkeypatch, tmp_path):
    path, _ = spend
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "-p", "rf", "--groups", "nine",
                  "--bootstrap", "30")  # fmt: skip
    _one_line_error(result, "--groups 'nine' holds 9 distinct unit(s)", "at least 10")
    out = tmp_path / "r.json"
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "-p", "rf", "--groups",
                  "customer", "--bootstrap", "30", "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["settings"]["n_units"] == 10


# --------------------------------------------------------------------------------------------
# Options that cannot apply are refused


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler is the address of a Dask"),
        (["--inference", "bootstrap", "--bootstrap", "0"], "--inference bootstrap takes every"),
        (["--include-replicates", "--bootstrap", "20"], "--include-replicates adds"),
        (["--include-replicates", "--bootstrap", "0", "--json", "{out}"], "--bootstrap 0: no"),
    ],
)
def test_options_that_cannot_apply_are_refused(spend, monkeypatch, tmp_path, options, pattern):
    _no_work(monkeypatch)
    path, _ = spend
    out = tmp_path / "r.json"
    options = [o.replace("{out}", str(out)) for o in options]
    _one_line_error(_run("evaluate", path, "-t", "spend", "-p", "gbm", *options), pattern)
    assert not out.exists()


# --------------------------------------------------------------------------------------------
# No temporary file left behind by an interrupted write

_SIGTERM_DURING_WRITE = """
import os, signal, sys

real_fsync = os.fsync


def fsync(fd):
    os.kill(os.getpid(), signal.SIGTERM)  # as `kill PID` while the JSON is being written
    real_fsync(fd)


os.fsync = fsync
from ranklens.cli import main

sys.argv = ["ranklens", *sys.argv[1:]]
main()
"""


def test_sigterm_during_the_write_leaves_no_temporary(spend, tmp_path):
    path, _ = spend
    out = tmp_path / "r.json"
    out.write_text("old")
    result = subprocess.run(
        [sys.executable, "-c", _SIGTERM_DURING_WRITE, "evaluate", str(path), "-t", "spend",
         "-p", "gbm", "--bootstrap", "0", "-q", "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 128 + 15, (result.returncode, result.stderr)
    assert _temporaries(tmp_path) == []
    assert out.read_text() == "old"


def test_ctrl_c_inside_mkstemp_leaves_no_temporary(spend, tmp_path, monkeypatch):
    path, _ = spend
    out = tmp_path / "r.json"
    out.write_text("old")
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        fd, _name = real_mkstemp(*args, **kwargs)
        os.close(fd)
        raise KeyboardInterrupt  # the file exists; the writer never learnt its name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--bootstrap", "0",
                  "--json", out)  # fmt: skip
    assert result.exit_code == 128 + 2, result.output  # the shell's status after Ctrl-C
    assert _temporaries(tmp_path) == []
    assert out.read_text() == "old"


# --------------------------------------------------------------------------------------------
# --version


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output == f"ranklens {ranklens.__version__}\n"
    installed = subprocess.run(
        [sys.executable, "-m", "ranklens", "--version"], capture_output=True, text=True, timeout=60
    )
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout == f"ranklens {ranklens.__version__}\n"
