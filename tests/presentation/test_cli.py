"""``ranklens evaluate``: every registered measure to JSON/HTML; bad input is one line, exit 2.

The field cases (every option's validation, failures against undefined values, markup in names,
atomic outputs, comparisons with scikit-learn and SciPy) are in ``test_cli_field.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranklens.cli import app
from ranklens.metrics import available_metrics, get_metric

runner = CliRunner()


@pytest.fixture
def frame(rng) -> pd.DataFrame:
    n = 80
    y = rng.lognormal(mean=3, size=n)
    return pd.DataFrame(
        {
            "spend": y,
            "gbm": y * rng.lognormal(sigma=0.3, size=n),
            "linear": y + rng.normal(scale=20, size=n),
            "segment": ["a", "b"] * (n // 2),
        }
    )


@pytest.fixture
def csv(tmp_path, frame):
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return path


def _run(*args: str):
    return runner.invoke(app, list(args))


def _one_line_error(result, pattern: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: ")
    assert pattern in lines[0], lines[0]


def test_evaluate_writes_every_registered_measure(tmp_path, csv):
    out = tmp_path / "results.json"
    html = tmp_path / "report.html"
    result = _run(
        "evaluate",
        str(csv),
        "--target",
        "spend",
        "--pred",
        "gbm",
        "--pred",
        "linear",
        "--bootstrap",
        "40",
        "--json",
        str(out),
        "--html",
        str(html),
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert set(doc["models"]) == {"gbm", "linear"}
    assert doc["n"] == 80 and doc["n_dropped"] == 0
    # the registry, not a hand-kept list: every point measure for a target that is not 0/1
    point = {n for n in available_metrics(inputs="point") if get_metric(n).targets != "binary"}
    assert set(doc["models"]["gbm"]) == point
    assert -1 <= doc["models"]["gbm"]["kendall_tau"]["value"] <= 1
    for name in point:
        assert doc["metrics"][name]["family"]
        info = doc["metrics"][name]
        assert info["direction"] in ("higher", "lower", "target", "neutral")
        assert info["higher_is_better"] is {"higher": True, "lower": False}.get(info["direction"])
    comparisons = doc["comparisons"]
    assert {(c["model_a"], c["model_b"]) for c in comparisons} == {("gbm", "linear")}
    compared = {c["measure"] for c in comparisons}
    assert "kendall_tau" in compared
    assert all(0 <= c["p_value"] <= 1 for c in comparisons)
    assert len(comparisons) == len(compared)  # one record per measure and pair
    tau = doc["models"]["gbm"]["kendall_tau"]
    assert tau["ci_low"] <= tau["value"] <= tau["ci_high"]
    assert "replicates" not in doc and doc["schema_version"] == "2.7"
    text = html.read_text()
    assert text.startswith("<!DOCTYPE html>") and "gbm" in text and "kendall_tau" in text


def test_evaluate_reads_parquet_and_prints_a_table(tmp_path, frame):
    path = tmp_path / "scores.parquet"
    frame.to_parquet(path)
    result = _run("evaluate", str(path), "-t", "spend", "-p", "gbm", "--bootstrap", "0", "-v")
    assert result.exit_code == 0, result.output
    assert "kendall_tau" in result.output and "gbm" in result.output


def test_json_is_strict_and_nan_becomes_null(tmp_path, rng):
    # A constant prediction leaves the rank measures undefined: null in JSON, reason recorded.
    n = 40
    y = rng.normal(size=n)
    path = tmp_path / "d.csv"
    pd.DataFrame({"y": y, "flat": np.zeros(n), "ok": y + rng.normal(size=n)}).to_csv(path)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate",
        str(path),
        "-t",
        "y",
        "-p",
        "flat",
        "-p",
        "ok",
        "--bootstrap",
        "0",
        "--json",
        str(out),
        "-q",
    )
    assert result.exit_code == 0, result.output

    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    doc = json.loads(out.read_text(), parse_constant=refuse)
    assert doc["models"]["flat"]["kendall_tau"]["value"] is None
    assert doc["problems"]["flat"]["kendall_tau"]["kind"] == "undefined"
    assert "constant" in doc["problems"]["flat"]["kendall_tau"]["message"]
    assert doc["failures"] == []


def test_a_measure_that_raises_is_a_failure_exit_1(tmp_path, csv, monkeypatch):
    from ranklens._foundation import registry as _registry

    def exploding(y_true, y_pred, *, sample_weight=None):
        """A measure that fails on this input."""
        raise RuntimeError("boom for this input")

    spec = _registry.MetricSpec("exploding_error", exploding, False, "residual")
    monkeypatch.setitem(_registry.REGISTRY, "exploding_error", spec)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate",
        str(csv),
        "-t",
        "spend",
        "-p",
        "gbm",
        "--bootstrap",
        "0",
        "--json",
        str(out),
        "-q",
    )
    # The rest is still evaluated and written; the failure is an error line and exit status 1.
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().splitlines() == [
        "error: exploding_error failed for gbm: RuntimeError: boom for this input"
    ]
    doc = json.loads(out.read_text())
    assert doc["models"]["gbm"]["exploding_error"]["value"] is None
    problem = doc["problems"]["gbm"]["exploding_error"]
    assert problem == {"kind": "failed", "message": "RuntimeError: boom for this input"}
    assert doc["failures"] == [
        {"model": "gbm", "measure": "exploding_error", "message": problem["message"]}
    ]
    assert doc["models"]["gbm"]["mean_absolute_error"]["value"] is not None


def test_intervals_add_the_interval_measures(tmp_path, frame):
    frame = frame.assign(lo=frame["gbm"] * 0.6, hi=frame["gbm"] * 1.6)
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate",
        str(path),
        "-t",
        "spend",
        "-p",
        "gbm",
        "-p",
        "linear",
        "--interval",
        "gbm:lo:hi",
        "--alpha",
        "0.1",
        "--bootstrap",
        "0",
        "--json",
        str(out),
        "-q",
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["prediction intervals"] == "gbm: lower 'lo', upper 'hi'"
    interval = set(available_metrics(inputs="interval"))
    assert interval <= set(doc["models"]["gbm"])
    assert not interval & set(doc["models"]["linear"])
    y, lo, hi = frame["spend"], frame["lo"], frame["hi"]
    inside = ((lo <= y) & (y <= hi)).mean()
    assert doc["models"]["gbm"]["interval_coverage"]["value"] == pytest.approx(inside)


def test_drop_na_drops_and_reports(tmp_path, frame):
    frame.loc[[3, 7], "gbm"] = np.nan
    frame.loc[11, "spend"] = np.inf
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    result = _run("evaluate", str(path), "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    _one_line_error(result, "3 row(s) have missing or infinite values")
    assert "--drop-na" in result.output
    out = tmp_path / "r.json"
    result = _run(
        "evaluate",
        str(path),
        "-t",
        "spend",
        "-p",
        "gbm",
        "--bootstrap",
        "0",
        "--drop-na",
        "--json",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "dropped 3 row(s)" in result.output
    doc = json.loads(out.read_text())
    assert doc["n"] == 77 and doc["n_dropped"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.csv", "-t", "spend", "-p", "gbm"], "file not found: "),
        (["{csv}", "-t", "nope", "-p", "gbm"], "column 'nope' not found in scores.csv"),
        (["{csv}", "-t", "spend", "-p", "segment"], "column 'segment' row 1: 'a' is not a number"),
        (["{csv}", "-t", "spend", "-p", "gbm", "--lower", "gbm"], "come in pairs"),
        (
            ["{csv}", "-t", "spend", "-p", "gbm", "--lower", "gbm", "--upper", "gbm"],
            "--alpha is required",
        ),
        (
            [
                "{csv}",
                "-t",
                "spend",
                "-p",
                "gbm",
                "--alpha",
                "1.5",
                "--lower",
                "gbm",
                "--upper",
                "gbm",
            ],
            "--alpha must be in (0, 1)",
        ),
        (["{csv}", "-t", "spend", "-p", "gbm", "--budget", "10"], "go together"),
        (["{csv}", "-t", "spend", "-p", "gbm", "--relevance", "wobbly"], "not understood"),
        (["{csv}", "-t", "spend", "-p", "gbm", "--weight", "segment"], "is not a number"),
        (["{csv}", "-t", "spend", "-p", "gbm", "-p", "gbm"], "given twice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(csv, args, message):
    args = [a.replace("{csv}", str(csv)) for a in args]
    _one_line_error(_run("evaluate", *args, "--bootstrap", "0"), message)


def test_unsupported_and_unreadable_files(tmp_path):
    path = tmp_path / "scores.xlsx"
    path.write_text("x")
    _one_line_error(_run("evaluate", str(path), "-t", "a", "-p", "b"), "unsupported file type")
    bad = tmp_path / "broken.parquet"
    bad.write_text("not parquet")
    _one_line_error(_run("evaluate", str(bad), "-t", "a", "-p", "b"), "could not read")


def test_library_errors_are_one_line(tmp_path, frame):
    frame["w"] = -1.0
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    _one_line_error(
        _run(
            "evaluate", str(path), "-t", "spend", "-p", "gbm", "--weight", "w", "--bootstrap", "0"
        ),
        "--weight 'w' must be non-negative",
    )


def test_relevance_options(tmp_path, rng):
    from ranklens.cli import parse_relevance
    from ranklens.relevance import ControlPointRelevance, SigmoidRelevance

    y = rng.standard_t(3, size=200)
    assert isinstance(parse_relevance("sigmoid:low=-2,high=2,k=0.5", y), SigmoidRelevance)
    assert isinstance(parse_relevance("points:0:0:0,3:1:0", y), ControlPointRelevance)
    assert parse_relevance("both", y)(np.array([0.0]))[0] < 0.5
    assert parse_relevance(None, y) is None
    path = tmp_path / "d.csv"
    pd.DataFrame({"y": y, "p": y + rng.normal(scale=0.5, size=200)}).to_csv(path)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate",
        str(path),
        "-t",
        "y",
        "-p",
        "p",
        "--relevance",
        "both",
        "--event-threshold",
        "0.75",
        "--bootstrap",
        "0",
        "--json",
        str(out),
        "-q",
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["event_threshold"] == 0.75
    assert doc["models"]["p"]["utility_f1"]["value"] is not None


def test_budget_and_margin_reach_the_profit_curve(tmp_path, csv):
    pytest.importorskip("matplotlib")
    html = tmp_path / "r.html"
    result = _run(
        "evaluate",
        str(csv),
        "-t",
        "spend",
        "-p",
        "gbm",
        "--budget",
        "100",
        "--cost-per-target",
        "10",
        "--value-margin",
        "0.5",
        "--bootstrap",
        "0",
        "--html",
        str(html),
        "-q",
    )
    assert result.exit_code == 0, result.output
    assert "Profit" in html.read_text()


def test_help_lists_the_commands():
    result = _run("--help")
    assert result.exit_code == 0
    assert "evaluate" in result.output and "demo" in result.output


def test_json_has_the_replicates_only_when_asked(tmp_path, csv):
    # The bootstrap itself: every interval the bootstrap's (by default tau's is Noether's).
    args = (
        "evaluate",
        *(str(csv), "-t", "spend", "-p", "gbm", "-p", "linear", "--bootstrap", "20"),
        *("--inference", "bootstrap"),
    )
    lean, full = tmp_path / "lean.json", tmp_path / "full.json"
    assert _run(*args, "--json", str(lean), "--quiet").exit_code == 0
    result = _run(*args, "--json", str(full), "--include-replicates", "--quiet")
    assert result.exit_code == 0, result.output
    lean_doc, full_doc = json.loads(lean.read_text()), json.loads(full.read_text())
    assert "replicates" not in lean_doc
    replicates = full_doc["replicates"]
    assert replicates["models"] == ["gbm", "linear"]
    values = np.asarray(replicates["values"], dtype=float)
    assert values.shape == (20, len(replicates["measures"]), 2)
    # Same seed, same numbers: the replicates only add to the document.
    assert full_doc["models"] == lean_doc["models"]
    k = replicates["measures"].index("kendall_tau")
    low = full_doc["models"]["gbm"]["kendall_tau"]["ci_low"]
    assert np.nanmin(values[:, k, 0]) <= low + 1e-12
    assert full_doc["models"]["gbm"]["kendall_tau"]["interval_method"] == "bootstrap-bca"
    # By default: the same replicates of tau, which keeps them for its paired test, and
    # Fisher's z interval; the measures with DeLong's inference have no replicates.
    auto = tmp_path / "auto.json"
    auto_args = [a for a in args if a not in ("--inference", "bootstrap")]
    assert _run(*auto_args, "--json", str(auto), "--include-replicates", "-q").exit_code == 0
    auto_doc = json.loads(auto.read_text())
    auto_values = np.asarray(auto_doc["replicates"]["values"], dtype=float)
    j = auto_doc["replicates"]["measures"].index("kendall_tau")
    np.testing.assert_array_equal(auto_values[:, j], values[:, k])
    assert auto_doc["models"]["gbm"]["kendall_tau"]["interval_method"] == "fisher-z"
    c = auto_doc["replicates"]["measures"].index("tau_normalized")
    assert np.isnan(auto_values[:, c]).all()


@pytest.mark.parametrize(
    ("given", "meant"), [("Spend", "spend"), ("spnd", "spend"), ("gbmm", "gbm")]
)
def test_a_column_not_found_says_which_was_probably_meant(tmp_path, given, meant):
    """A different case or a typo gets "did you mean"; the error stays one line, exit 2."""
    path = tmp_path / "scores.csv"
    pd.DataFrame({"spend": [1.0, 2.0, 3.0], "gbm": [1.0, 2.5, 2.0]}).to_csv(path, index=False)
    args = ["-t", given, "-p", "gbm"] if meant == "spend" else ["-t", "spend", "-p", given]
    result = runner.invoke(app, ["evaluate", str(path), *args])
    assert result.exit_code == 2, result.output
    assert f"column {given!r} not found in scores.csv (did you mean {meant!r}?)" in result.output


def test_no_hint_for_a_column_unlike_any(tmp_path):
    path = tmp_path / "scores.csv"
    pd.DataFrame({"spend": [1.0, 2.0, 3.0], "gbm": [1.0, 2.5, 2.0]}).to_csv(path, index=False)
    result = runner.invoke(app, ["evaluate", str(path), "-t", "nope", "-p", "gbm"])
    assert result.exit_code == 2 and "did you mean" not in result.output


def test_sep_reads_a_semicolon_file_as_the_comma_file(tmp_path):
    """--sep ';' reads a file written by pandas with sep=';' to the numbers of the comma file."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"spend": rng.lognormal(size=60)})
    frame["gbm"] = frame["spend"] + rng.normal(size=60)
    comma, semi = tmp_path / "comma.csv", tmp_path / "semi.csv"
    frame.to_csv(comma, index=False)
    frame.to_csv(semi, index=False, sep=";")
    docs = []
    for path, extra in ((comma, []), (semi, ["--sep", ";"])):
        out = tmp_path / f"{path.stem}.json"
        result = runner.invoke(
            app, ["evaluate", str(path), "-t", "spend", "-p", "gbm", "--bootstrap", "0",
                  "--json", str(out), *extra],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        docs.append(json.loads(out.read_text())["models"])
    assert docs[0] == docs[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sep", ";;"], "--sep must be one character"),
        (["--sep", '"'], "--sep must be one character"),
        (["--sep", ";", "--engine", "dask"], "--sep is for a text file, which --engine dask"),
    ],
)
def test_sep_refusals(tmp_path, args, message):
    path = tmp_path / "scores.csv"
    pd.DataFrame({"spend": [1.0, 2.0, 3.0], "gbm": [1.0, 2.5, 2.0]}).to_csv(path, index=False)
    result = runner.invoke(app, ["evaluate", str(path), "-t", "spend", "-p", "gbm", *args])
    assert result.exit_code == 2 and message in result.output, result.output


def test_sep_with_a_parquet_file_is_refused(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "scores.parquet"
    pd.DataFrame({"spend": [1.0, 2.0, 3.0], "gbm": [1.0, 2.5, 2.0]}).to_parquet(path)
    result = runner.invoke(app, ["evaluate", str(path), "-t", "spend", "-p", "gbm", "--sep", ";"])
    assert result.exit_code == 2 and "--sep is for a text file; scores.parquet" in result.output


def test_positive_label_maps_a_target_of_two_labels(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    y = (rng.random(n) < 0.3).astype(int)
    score = np.round(np.clip(0.3 + 0.3 * (y - 0.3) + rng.normal(0, 0.2, n), 0, 1), 3)
    path = tmp_path / "churn.csv"
    pd.DataFrame({"target": np.where(y == 1, "yes", "no"), "p": score}).to_csv(path, index=False)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate",
        str(path),
        "--target",
        "target",
        "--pred",
        "p",
        "--positive-label",
        "yes",
        "--bootstrap",
        "0",
        "--json",
        str(out),
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    from sklearn.metrics import average_precision_score, brier_score_loss

    values = {name: entry["value"] for name, entry in doc["models"]["p"].items()}
    frame = pd.read_csv(path)
    truth = (frame["target"] == "yes").astype(int).to_numpy()
    text = json.dumps(doc)
    assert "binary target" in text
    if values:
        assert values["average_precision_score"] == pytest.approx(
            average_precision_score(truth, frame["p"]), rel=1e-12
        )
        assert values["brier_score_loss"] == pytest.approx(
            brier_score_loss(truth, frame["p"]), rel=1e-12
        )
    _one_line_error(
        _run(
            "evaluate",
            str(path),
            "--target",
            "target",
            "--pred",
            "p",
            "--bootstrap",
            "0",
            "--json",
            str(out),
        ),
        "--positive-label",
    )
    _one_line_error(
        _run(
            "evaluate",
            str(path),
            "--target",
            "target",
            "--pred",
            "p",
            "--bootstrap",
            "0",
            "--positive-label",
            "maybe",
            "--json",
            str(out),
        ),
        "--positive-label 'maybe'",
    )
