"""``ranklens --version``, suggestions for misspelt options and choices, ``--metrics``,
``--goal``, ``--currency`` and the short terminal summary (``--verbose`` for every table).

Every refusal is one ``error:`` line that names the option, exit status 2. The numbers of a
run with ``--metrics`` are checked against SciPy and scikit-learn on the CSV as pandas reads it.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from rich.cells import cell_len
from scipy.stats import kendalltau
from sklearn.metrics import mean_absolute_error
from typer.testing import CliRunner

from ranklens import evaluate_models
from ranklens._version import __version__
from ranklens.cli import app
from ranklens.report.decision import recommend
from ranklens.report.goals import plain_name, summary_verdicts
from ranklens.report.terminal import CLEAR_MARK, headline_lines, recommendation_line

runner = CliRunner()

LONG = (
    "gradient_boosting_with_monotone_constraint",
    "linear_regression_on_log_target_with_l2_x",
    "ridge_regression_with_spline_features_v02",
)


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """A skewed target with ties, one good model and two weaker ones (a clear ranking lead)."""
    rng = np.random.default_rng(20261129)
    n = 300
    y = np.round(rng.lognormal(3, 1, size=n), 1)
    return pd.DataFrame(
        {
            "spend": y,
            "gbm": np.round(y * rng.lognormal(sigma=0.3, size=n), 2),
            "linear": y + rng.normal(scale=20, size=n),
            "ridge": y + rng.normal(scale=25, size=n),
        }
    )


@pytest.fixture(scope="module")
def csv(table, tmp_path_factory):
    path = tmp_path_factory.mktemp("conveniences") / "scores.csv"
    table.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def long_csv(table, tmp_path_factory):
    path = tmp_path_factory.mktemp("long") / "long names.csv"
    table.rename(columns=dict(zip(("gbm", "linear", "ridge"), LONG, strict=True))).to_csv(
        path, index=False
    )
    return path


def _run(*args, columns: int = 100):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)})


def _evaluate(csv, *options, columns: int = 100):
    return _run(
        "evaluate", csv, "-t", "spend", "-p", "gbm", "-p", "linear", *options, columns=columns
    )


def _one_line_error(result, *patterns: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: "), lines[0]
    for pattern in patterns:
        assert pattern in lines[0], lines[0]
    return lines[0]


# --------------------------------------------------------------------------------------------
# --version and suggestions


@pytest.mark.parametrize("args", [["--version"], ["evaluate", "--version"]])
def test_version_prints_the_package_version(args):
    result = _run(*args)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"ranklens {__version__}\n"


@pytest.mark.parametrize(
    ("args", "given", "meant"),
    [
        (["evaluate", "data.csv", "--taget", "y"], "--taget", "--target"),
        (["evaluate", "data.csv", "-t", "y", "--metric", "roc_auc"], "--metric", "--metrics"),
        (["evaluate", "data.csv", "-t", "y", "--verbse"], "--verbse", "--verbose"),
        (["--verison"], "--verison", "--version"),
    ],
)
def test_an_unknown_option_suggests_the_closest(args, given, meant):
    line = _one_line_error(_run(*args), f"No such option: {given} (did you mean {meant}?)")
    assert line.count("did you mean") == 1


def test_an_unknown_option_far_from_any_has_no_suggestion():
    line = _one_line_error(_run("evaluate", "data.csv", "--xyzzy"), "No such option: --xyzzy")
    assert "did you mean" not in line


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (["--engine", "dsak"], ["--engine must be memory or dask", "(did you mean 'dask'?)"]),
        (["--inference", "boot"], ["--inference must be", "(did you mean 'bootstrap'?)"]),
        (["--scheme", "circulr", "--bootstrap", "20"], ["--scheme", "(did you mean 'circular'?)"]),
        (
            ["--by", "ridge", "--segment-fdr", "bhh"],
            ["--segment-fdr must be", "(did you mean 'bh'?)"],
        ),
        (["--goal", "rank"], ["--goal must be one of ranking, targeting", "(did you mean"]),
        (["--goal", "profit"], ["--goal must be one of", "got 'profit'"]),
    ],
)
def test_a_bad_choice_is_refused_with_the_closest(csv, options, patterns):
    _one_line_error(_evaluate(csv, *options), *patterns)


# --------------------------------------------------------------------------------------------
# --metrics, --goal, --currency


def test_metrics_computes_only_the_chosen_measures(csv, tmp_path):
    out = tmp_path / "r.json"
    result = _evaluate(
        csv,
        "--metrics",
        "kendall_tau,mean_absolute_error",
        "--metrics",
        "roc_auc",
        "--goal",
        "ranking",
        "--currency",
        "€",
        "--bootstrap",
        "0",
        "--json",
        out,
        "-q",
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert set(doc["metrics"]) == {"kendall_tau", "mean_absolute_error", "roc_auc"}
    settings = doc["settings"]
    assert settings["metrics"] == "kendall_tau, mean_absolute_error, roc_auc"
    assert (settings["goal"], settings["currency"]) == ("ranking", "€")
    frame = pd.read_csv(csv)  # the numbers of the file as pandas reads it
    for model in ("gbm", "linear"):
        got = doc["models"][model]
        tau = kendalltau(frame["spend"], frame[model]).statistic
        assert got["kendall_tau"]["value"] == pytest.approx(tau, abs=1e-12)
        mae = mean_absolute_error(frame["spend"], frame[model])
        assert got["mean_absolute_error"]["value"] == pytest.approx(mae, rel=1e-12)


def test_metrics_leaves_out_the_other_sections_of_the_report(csv, tmp_path):
    html = tmp_path / "r.html"
    result = _evaluate(csv, "--metrics", "kendall_tau", "--bootstrap", "0", "--html", html, "-q")
    assert result.exit_code == 0, result.output
    text = html.read_text()
    assert 'spend-ranking"' in text
    for key in ("targeting", "extremes", "errors"):
        assert f'spend-{key}"' not in text, key


@pytest.mark.parametrize(
    ("options", "patterns"),
    [
        (
            ["--metrics", "kendal_tau"],
            ["--metrics: unknown measure 'kendal_tau' (did you mean 'kendall_tau'?)", "roc_auc"],
        ),
        (["--metrics", ""], ["--metrics names no measure"]),
        (["--metrics", ","], ["--metrics names no measure"]),
        (["--metrics", "roc_auc,,kendall_tau"], ["--metrics has an empty name"]),
        (
            ["--metrics", "kendall_tau", "--goal", "targeting"],
            ["--goal targeting: none of its measures", "--metrics kendall_tau"],
        ),
        (["--currency", "dollars"], ["--currency must be a symbol or code of 1 to 5"]),
        (["--currency", " "], ["--currency must be", "got ' '"]),
    ],
)
def test_metrics_goal_and_currency_refusals_name_the_option(csv, options, patterns):
    _one_line_error(_evaluate(csv, *options, "--bootstrap", "0"), *patterns)


def test_the_refusals_come_before_the_file_is_read(tmp_path):
    missing = tmp_path / "nowhere.csv"
    _one_line_error(_evaluate(missing, "--goal", "rank"), "--goal must be")


def test_dask_engine_takes_metrics_goal_and_currency(client, table, tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "scores.parquet"
    table.to_parquet(path)
    choices = ["--metrics", "kendall_tau,mean_absolute_error", "--goal", "errors"]
    choices += ["--currency", "USD", "--bootstrap", "0", "-q"]
    docs = {}
    for engine in ("memory", "dask"):
        out = tmp_path / f"{engine}.json"
        extra = ["--scheduler", client.scheduler.address] if engine == "dask" else []
        result = _evaluate(path, *choices, "--engine", engine, *extra, "--json", out)
        assert result.exit_code == 0, result.output
        docs[engine] = json.loads(out.read_text())
    for key in ("metrics", "goal", "currency"):
        assert docs["dask"]["settings"][key] == docs["memory"]["settings"][key]
    assert set(docs["dask"]["metrics"]) == {"kendall_tau", "mean_absolute_error"}
    for model in ("gbm", "linear"):
        for name in ("kendall_tau", "mean_absolute_error"):
            want = docs["memory"]["models"][model][name]["value"]
            got = docs["dask"]["models"][model][name]["value"]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12), (model, name)
    bad = _evaluate(path, "--engine", "dask", "--metrics", "rocauc", "--bootstrap", "0")
    _one_line_error(bad, "--metrics: unknown measure 'rocauc' (did you mean 'roc_auc'?)")


# --------------------------------------------------------------------------------------------
# The terminal summary


def test_the_default_output_is_short(csv, tmp_path):
    out = tmp_path / "r.json"
    result = _run(
        "evaluate", csv, "-t", "spend", "-p", "gbm", "-p", "linear", "-p", "ridge",
        "--bootstrap", "200", "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) <= 15, result.stdout
    evaluation = evaluate_models(
        "spend", ["gbm", "linear", "ridge"], data=pd.read_csv(csv), n_bootstrap=200
    )
    assert recommendation_line(evaluation) in lines
    verdicts = summary_verdicts(evaluation)
    assert any(v.evidence == "clear" for v in verdicts)
    assert any(v.evidence != "clear" and v.best for v in verdicts)
    rows = {line.split()[0]: line for line in lines if line.split()[0] in evaluation.model_names}
    assert set(rows) == {"gbm", "linear", "ridge"}
    marked = {model for model, line in rows.items() if line.rstrip().endswith(CLEAR_MARK)}
    # the mark only where the summary's Holm-adjusted rule calls the lead clear
    clear = {v.best for v in verdicts if v.evidence == "clear"}
    assert marked <= clear and sum(line.count(CLEAR_MARK) for line in rows.values()) == len(
        [v for v in verdicts if v.evidence == "clear"]
    )
    for verdict in verdicts:
        # each column headed by the measure's plain name (wrapped), not the registry's
        assert all(word in result.stdout for word in plain_name(verdict.metric).split())
        assert "_" not in verdict.metric or verdict.metric not in result.stdout
    assert "kendall_tau" not in result.stdout  # not a headline: in the JSON and --verbose
    assert "Why values are missing" not in result.stdout
    # ridge and linear have negative predictions: log_rmse is undefined, folded into one line
    folded = [line for line in lines if "could not be computed" in line]
    assert len(folded) == 1 and "log_rmse" in folded[0] and folded[0].endswith(f"see {out}")


def test_verbose_prints_every_measure_and_the_reasons(csv):
    result = _evaluate(csv, "-p", "ridge", "--bootstrap", "0", "--verbose", columns=240)
    assert result.exit_code == 0, result.output
    assert "kendall_tau" in result.stdout and "Why values are missing" in result.stdout
    assert "could not be computed" not in result.stdout


@pytest.mark.parametrize("columns", [80, 60, 200])
def test_long_model_names_are_never_cut(long_csv, columns):
    args = ["evaluate", long_csv, "-t", "spend"]
    for name in LONG:
        args += ["-p", name]
    result = _run(*args, "--bootstrap", "50", columns=columns)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for name in LONG:
        rows = [line for line in lines if line.startswith(name)]
        # one row per block of goals, each with the whole name
        assert rows and all(line[len(name)] == " " for line in rows), name
    table = [line for line in lines if line.startswith(LONG) or line.startswith(" ")]
    widest = max(cell_len(name) for name in LONG) + 2 + len("mean_absolute_error ↓")
    assert all(cell_len(line) <= max(columns, widest) for line in table), table
    blocks = sum(1 for line in lines if line.startswith("model "))
    assert (blocks > 1) == (columns < 120)


def test_headline_lines_keep_wide_characters_aligned(table):
    named = {"模型甲": table["gbm"], "b": table["linear"]}
    evaluation = evaluate_models(table["spend"], named, n_bootstrap=0)
    lines = headline_lines(evaluation, width=70)
    rows = [line for line in lines if line.startswith(("模型甲", "b "))]
    # each block's rows end at the same terminal cell
    for k in range(0, len(rows), 2):
        assert cell_len(rows[k]) == cell_len(rows[k + 1]), rows


def test_json_to_stdout_keeps_the_summary_on_stderr(csv):
    result = _evaluate(csv, "--bootstrap", "0", "--metrics", "kendall_tau", "--json", "-")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc["metrics"]) == {"kendall_tau"}
    assert "Kendall's tau" in result.stderr and "scores.csv: spend (n = 300)" in result.stderr


@pytest.mark.parametrize("goal", ["errors", "ranking"])
def test_the_recommendation_speaks_to_the_goal(csv, goal):
    result = _evaluate(csv, "--goal", goal, "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    evaluation = evaluate_models(
        "spend", ["gbm", "linear"], data=pd.read_csv(csv), n_bootstrap=0, goal=goal
    )
    decision = recommend(evaluation)
    assert decision.purpose == goal
    assert lines[1] == recommendation_line(evaluation) == decision.one_line()
    assert decision.purpose_text in lines[1]
