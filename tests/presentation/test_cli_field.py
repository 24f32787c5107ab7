"""``ranklens evaluate`` on the inputs users really have, and no failure that is silent.

End to end through the command line on files written by pandas (CSV and Parquet), with numbers
checked against scikit-learn and SciPy; every bad option is exit 2 with one ``error:`` line and
nothing computed; a measure that fails is exit 1 with an error line (the outputs still written
and showing it); names with rich markup or mathtext are shown verbatim; ``--json -`` is JSON
only; outputs are replaced atomically.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import (
    mean_absolute_error,
    mean_pinball_loss,
    mean_squared_error,
    median_absolute_error,
    roc_auc_score,
)
from typer.testing import CliRunner

from ranklens.cli import MAX_BOOTSTRAP, app, read_table

runner = CliRunner()
TOL = {"rel": 1e-12, "abs": 1e-12}


def _run(*args: str, quiet: bool = True):
    # A wide terminal, so that rich never shortens a column name the assertions look for.
    extra = ["-q"] if quiet else []
    return runner.invoke(app, [*map(str, args), *extra], env={"COLUMNS": "240"})


def _one_line_error(result, pattern: str, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error: "), lines[0]
    assert pattern in lines[0], lines[0]
    assert result.stdout == ""
    return lines[0]


def _json(path) -> dict:
    def refuse(constant):
        raise AssertionError(f"non-standard JSON constant {constant}")

    return json.loads(path.read_text(), parse_constant=refuse)


def _write(frame: pd.DataFrame, path) -> None:
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)


@pytest.fixture
def binary(rng) -> pd.DataFrame:
    n = 300
    y = (rng.random(n) < 0.3).astype(np.float64)
    return pd.DataFrame(
        {
            "bought": y,
            # Distinct scores (the ROC and lift are read off exact points) and a tied one.
            "gbm": y + rng.normal(size=n),
            "lm": np.round(0.5 * y + rng.normal(size=n), 1),
            "w": rng.uniform(0.2, 3.0, size=n),
        }
    )


@pytest.fixture
def wallet(rng) -> pd.DataFrame:
    n = 120
    y = rng.lognormal(mean=3, sigma=1, size=n)
    gbm = y * rng.lognormal(sigma=0.4, size=n)
    return pd.DataFrame(
        {
            "spend": y,
            "gbm": gbm,
            "lo": gbm * 0.6,
            "hi": gbm * 1.5,
            "segment": ["a", "b", "c"] * (n // 3),
        }
    )


@pytest.fixture
def wallet_csv(tmp_path, wallet):
    path = tmp_path / "wallet.csv"
    wallet.to_csv(path, index=False)
    return path


# --------------------------------------------------------------------------------------------
# End to end against scikit-learn and SciPy


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_binary_target_matches_sklearn_and_scipy(tmp_path, binary, suffix, dtype):
    binary = binary.astype({"bought": dtype})
    path = tmp_path / f"scores{suffix}"
    _write(binary, path)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate", path, "-t", "bought", "-p", "gbm", "-p", "lm", "--bootstrap", "0", "--json", out
    )
    assert result.exit_code == 0, result.output
    doc = _json(out)
    y = binary["bought"].to_numpy(dtype=np.float64)
    assert doc["failures"] == []
    for model in ("gbm", "lm"):
        p = binary[model].to_numpy()
        got = {k: v["value"] for k, v in doc["models"][model].items()}
        assert got["roc_auc"] == pytest.approx(roc_auc_score(y, p), **TOL)
        assert got["kendall_tau"] == pytest.approx(stats.kendalltau(y, p).statistic, **TOL)
        assert got["spearman_rho"] == pytest.approx(stats.spearmanr(y, p).statistic, **TOL)
        assert got["mean_squared_error"] == pytest.approx(mean_squared_error(y, p), **TOL)
        assert got["mean_absolute_error"] == pytest.approx(mean_absolute_error(y, p), **TOL)
        assert got["median_absolute_error"] == pytest.approx(median_absolute_error(y, p), **TOL)
        assert doc["curves"]["roc"][model]["auc"] == pytest.approx(roc_auc_score(y, p), **TOL)
    # Lift at 10%: the top 30 of 300 distinct scores, against the event rate.
    top = np.argsort(-binary["gbm"].to_numpy())[:30]
    lift = (y[top].sum() / y.sum()) / 0.1
    assert doc["models"]["gbm"]["lift_at_10"]["value"] == pytest.approx(lift, **TOL)
    ks = stats.ks_2samp(binary["gbm"][y == 1], binary["gbm"][y == 0]).statistic
    assert doc["models"]["gbm"]["ks_statistic"]["value"] == pytest.approx(ks, **TOL)
    # Meaningless for a 0/1 target: not computed, and the settings say why in one sentence.
    assert "log_rmse" not in doc["models"]["gbm"]
    assert "binary target" in doc["settings"]


def test_weights_match_sklearn_sample_weight(tmp_path, binary):
    path = tmp_path / "scores.parquet"
    binary.to_parquet(path)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate", path, "-t", "bought", "-p", "gbm", "--weight", "w", "--bootstrap", "0",
        "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = _json(out)
    y, p, w = (binary[c].to_numpy(dtype=np.float64) for c in ("bought", "gbm", "w"))
    got = {k: v["value"] for k, v in doc["models"]["gbm"].items()}
    assert doc["settings"]["sample_weight"] == "given"
    assert got["roc_auc"] == pytest.approx(roc_auc_score(y, p, sample_weight=w), **TOL)
    assert got["mean_squared_error"] == pytest.approx(
        mean_squared_error(y, p, sample_weight=w), **TOL
    )
    assert got["mean_absolute_error"] == pytest.approx(
        mean_absolute_error(y, p, sample_weight=w), **TOL
    )
    unweighted = roc_auc_score(y, p)
    assert not math.isclose(got["roc_auc"], unweighted, rel_tol=1e-6)


def test_budget_and_margin_profit_numbers_and_plot(tmp_path, wallet_csv, wallet):
    pytest.importorskip("matplotlib")
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    margin, cost, budget = 0.5, 10.0, 100.0
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--budget", budget,
        "--cost-per-target", cost, "--value-margin", margin, "--bootstrap", "0",
        "--json", out, "--html", html,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    profit = _json(out)["curves"]["profit"]["gbm"]
    # Target the k largest predictions: profit(k) = margin x their spend - cost x k.
    y = wallet["spend"].to_numpy()
    order = np.argsort(-wallet["gbm"].to_numpy())
    k = np.arange(y.size + 1)
    by_depth = margin * np.concatenate([[0.0], np.cumsum(y[order])]) - cost * k
    affordable = int(budget // cost)
    assert profit["max_targets"] == affordable
    assert profit["best_profit"] == pytest.approx(by_depth.max(), **TOL)
    assert profit["best_n_targeted"] == int(np.argmax(by_depth))
    assert profit["budget_profit"] == pytest.approx(by_depth[: affordable + 1].max(), **TOL)
    assert profit["value_margin"] == margin and profit["budget"] == budget
    text = html.read_text()
    assert "<strong>Profit.</strong>" in text and "Plot unavailable" not in text


def test_intervals_match_pinball_losses(tmp_path, wallet_csv, wallet):
    out = tmp_path / "r.json"
    alpha = 0.1
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--lower", "lo", "--upper", "hi",
        "--alpha", alpha, "--bootstrap", "0", "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    got = {k: v["value"] for k, v in _json(out)["models"]["gbm"].items()}
    y, lo, hi = (wallet[c].to_numpy() for c in ("spend", "lo", "hi"))
    # Gneiting & Raftery (2007): the interval score is 2/alpha times the pinball losses of the
    # alpha/2 and 1 - alpha/2 quantiles.
    score = (2 / alpha) * (
        mean_pinball_loss(y, lo, alpha=alpha / 2) + mean_pinball_loss(y, hi, alpha=1 - alpha / 2)
    )
    assert got["interval_score"] == pytest.approx(score, **TOL)
    assert got["interval_coverage"] == pytest.approx(np.mean((lo <= y) & (y <= hi)), **TOL)
    assert got["mean_interval_width"] == pytest.approx(np.mean(hi - lo), **TOL)


def test_events_as_a_bare_number_is_a_threshold(tmp_path, wallet_csv, wallet):
    out = tmp_path / "r.json"
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--events", "50", "--bootstrap", "0",
        "--json", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = _json(out)
    events = (wallet["spend"] >= 50).to_numpy()
    assert 0 < events.sum() < events.size
    assert doc["settings"]["events"] == 50.0
    expected = roc_auc_score(events, wallet["gbm"])
    assert doc["models"]["gbm"]["roc_auc"]["value"] == pytest.approx(expected, **TOL)
    assert doc["curves"]["roc"]["gbm"]["event_definition"] == "y >= 50"


# --------------------------------------------------------------------------------------------
# Bad options: exit 2, one line, before any work


BAD_OPTIONS = [
    (["--events", "top10"], "--events 'top10': events must be"),
    (["--events", "top:10"], "--events 'top:10': the fraction"),
    (["--events", "bogus"], "--events 'bogus'"),
    (["--events", "nan"], "must be finite"),
    (["--events", " "], "--events is empty"),
    (["--event-threshold", "1.5"], "--event-threshold must be in (0, 1]"),
    (["--event-threshold", "-0.2"], "--event-threshold must be in (0, 1]"),
    (["--event-threshold", "nan"], "--event-threshold"),
    (["--seed", "-1"], "--seed must be an integer >= 0"),
    (["--seed", "abc"], "'--seed'"),
    (["--bootstrap", "1"], "--bootstrap must be an integer >= 2; got 1 (or 0 for no bootstrap)"),
    (["--bootstrap", "-5"], "--bootstrap must be an integer >= 2"),
    (["--bootstrap", str(MAX_BOOTSTRAP + 1)], "replicates"),
    (["--bootstrap-budget", "-1"], "--bootstrap-budget must be a finite non-negative"),
    (["--alpha", "nan", "--lower", "lo", "--upper", "hi"], "--alpha must be in (0, 1)"),
    (["--budget", "0", "--cost-per-target", "1"], "--budget must be positive"),
    (["--budget", "-5", "--cost-per-target", "1"], "--budget must be a finite number >= 0"),
    (["--budget", "inf", "--cost-per-target", "1"], "--budget must be a finite number"),
    (["--budget", "100", "--cost-per-target", "0"], "--cost-per-target must be positive"),
    (["--cost-per-target", "nan", "--value-margin", "1"], "--cost-per-target must be a finite"),
    (["--value-margin", "inf", "--cost-per-target", "1"], "--value-margin must be a finite"),
    (["--budget", "100"], "go together"),
    (["--budget", "100", "--cost-per-target", "5"], "shape the profit curve"),
    (["--cost-per-target", "5"], "shape the profit curve"),
    (["--cost-benefit", "1,2,3"], "--cost-benefit needs four numbers"),
    (["--cost-benefit", "a,b,c,d"], "--cost-benefit needs four numbers"),
    (["--cost-benefit", "nan,0,-1,0"], "--cost-benefit needs four finite numbers"),
    (
        ["--cost-benefit", "4,0,-5,0", "--cost-per-target", "2"],
        "profit curve: with --cost-benefit the matrix already holds the cost of targeting",
    ),
    (["--alpha", "0.1"], "--alpha describes prediction intervals"),
    (
        ["--cost-benefit", "4,0,-5,0", "--value-margin", "1", "--cost-per-target", "1"],
        "not both",
    ),
    (["--lower", "hi", "--upper", "lo", "--alpha", "0.1"], "--lower 'hi' is above --upper 'lo'"),
    (["--weight", "segment"], "column 'segment' row 1: 'a' is not a number"),
    (["--json", "{tmp}/missing/r.json"], "does not exist"),
    (["--html", "{tmp}"], "is a directory"),
    (["--html", "-"], "--html - (stdout) is not supported"),
    (["--no-such-option"], "No such option"),
]


@pytest.mark.parametrize(("args", "message"), BAD_OPTIONS)
def test_bad_option_is_one_line_exit_2(tmp_path, wallet_csv, monkeypatch, args, message):
    # Nothing may be computed for bad input: evaluating at all would be a bug here.
    import ranklens.report

    def no_work(*args, **kwargs):
        raise AssertionError("evaluate_models ran for bad input")

    monkeypatch.setattr(ranklens.report, "evaluate_models", no_work)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = _run("evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", *args)
    _one_line_error(result, message)


def test_crossed_intervals_name_the_columns_and_first_row(tmp_path, wallet):
    wallet.loc[[4, 9], "lo"] = wallet.loc[[4, 9], "hi"] + 1.0
    path = tmp_path / "d.csv"
    wallet.to_csv(path, index=False)
    result = _run(
        "evaluate", path, "-t", "spend", "-p", "gbm", "--lower", "lo", "--upper", "hi",
        "--alpha", "0.1", "--bootstrap", "0",
    )  # fmt: skip
    line = _one_line_error(result, "--lower 'lo' is above --upper 'hi' in 2 row(s)")
    assert "first at data row 5" in line


def test_duplicate_column_names_are_refused_by_name(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("spend,gbm,gbm,other\n1,2,3,4\n2,3,4,5\n3,5,4,6\n")
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    _one_line_error(result, "column name 'gbm' appears 2 times in dup.csv (columns 2, 3)")
    # pandas' silent rename of the copy is not a column of the file.
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm.1", "--bootstrap", "0")
    _one_line_error(result, "column 'gbm.1' not found in dup.csv; columns: spend, gbm, gbm, other")
    # A repeated name the run does not use is harmless.
    result = _run("evaluate", path, "-t", "spend", "-p", "other", "--bootstrap", "0")
    assert result.exit_code == 0, result.output


def test_csv_numbers_are_read_exactly_under_every_pandas(tmp_path):
    # Written with 17 significant digits, every float64 has one nearest decimal; pandas 2's
    # default parser misses it for about one number in a few hundred, pandas 3's never does.
    values = np.random.default_rng(7).lognormal(size=(4000, 2)) * 1e3
    path = tmp_path / "exact.csv"
    pd.DataFrame(values, columns=["y", "p"]).to_csv(path, index=False, float_format="%.17g")
    frame = read_table(path)
    np.testing.assert_array_equal(frame["y"].to_numpy(), values[:, 0])
    np.testing.assert_array_equal(frame["p"].to_numpy(), values[:, 1])


def test_header_only_csv_says_no_data_rows(tmp_path):
    path = tmp_path / "empty.csv"
    pd.DataFrame({"spend": [], "gbm": []}).to_csv(path, index=False)
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    _one_line_error(result, "empty.csv has no data rows")


def test_a_cell_that_is_not_a_number_is_named(tmp_path, wallet):
    frame = wallet[["spend", "gbm"]].astype(object)
    frame.loc[2, "gbm"] = "abc"
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    result = _run("evaluate", path, "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    _one_line_error(result, "column 'gbm' row 3: 'abc' is not a number")


# --------------------------------------------------------------------------------------------
# Failures: exit 1, one line each, outputs still written and showing them


def _register(monkeypatch, name, func, family="residual"):
    from ranklens._foundation import registry as _registry

    spec = _registry.MetricSpec(name, func, False, family)
    monkeypatch.setitem(_registry.REGISTRY, name, spec)


def test_failure_is_exit_1_and_shown_in_both_outputs(tmp_path, wallet_csv, monkeypatch):
    def broken(y_true, y_pred, *, sample_weight=None):
        """Fails whatever the data."""
        raise RuntimeError("kernel exploded")

    _register(monkeypatch, "broken_error", broken)
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", "--json", out,
        "--html", html, quiet=False,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: broken_error failed for gbm: RuntimeError: kernel exploded"]
    assert "failed" in result.stdout  # the summary table marks the cell
    doc = _json(out)
    assert doc["problems"]["gbm"]["broken_error"]["kind"] == "failed"
    assert doc["failures"][0]["measure"] == "broken_error"
    text = html.read_text()
    # the report says it in plain words; the exception's text stays in the JSON and on stderr
    assert "Could not be computed; the JSON results keep the error message." in text
    assert "RuntimeError" not in text and "kernel exploded" not in text
    assert doc["problems"]["gbm"]["broken_error"]["message"] == "RuntimeError: kernel exploded"
    # the summary cell itself says "failed" (never a dash that reads as "not applicable")
    assert '<td class="failed"' in text


def test_a_failing_curve_is_a_failure(tmp_path, wallet_csv, monkeypatch):
    import dataclasses

    from ranklens._foundation import curve_registry as _curve_registry
    from ranklens.metrics import get_curve

    def broken_roc(*args, **kwargs):
        raise TypeError("cannot sort a read-only array")

    spec = dataclasses.replace(get_curve("roc"), func=broken_roc)
    monkeypatch.setitem(_curve_registry._CURVES, "roc", spec)
    out = tmp_path / "r.json"
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", "--json", out
    )
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        "error: roc curve failed for gbm: TypeError: cannot sort a read-only array"
    ]
    assert _json(out)["problems"]["gbm"]["roc curve"]["kind"] == "failed"


def test_nan_without_a_reason_is_a_failure(tmp_path, wallet_csv, monkeypatch):
    def silent(y_true, y_pred, *, sample_weight=None):
        """Returns NaN and says nothing."""
        return math.nan

    _register(monkeypatch, "silent_error", silent)
    result = _run("evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    assert result.exit_code == 1, result.output
    assert "error: silent_error failed for gbm: returned NaN without a warning" in result.stderr


def test_a_value_error_outside_the_library_checks_is_a_failure(tmp_path, wallet_csv, monkeypatch):
    # A ValueError that no ranklens check raised (here NumPy's) is a bug, not the data's fault.
    def mismatched(y_true, y_pred, *, sample_weight=None):
        """Broadcasts arrays of different lengths."""
        return float(np.mean(np.asarray(y_true) - np.asarray(y_pred)[:-1]))

    _register(monkeypatch, "mismatched_error", mismatched)
    result = _run("evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    assert result.exit_code == 1, result.output
    assert "error: mismatched_error failed for gbm: ValueError: operands" in result.stderr


def test_undefined_and_skipped_are_not_failures(tmp_path, wallet_csv, monkeypatch):
    def needs_horizon(y_true, y_pred, *, horizon, sample_weight=None):
        """Needs a parameter the command line never gives."""
        return 0.0

    _register(monkeypatch, "horizon_error", needs_horizon)
    out = tmp_path / "r.json"
    frame = pd.read_csv(wallet_csv).assign(spend=lambda f: f["spend"] - 30.0)  # some y <= 0
    frame.to_csv(wallet_csv, index=False)
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", "--json", out,
        "--verbose", quiet=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = _json(out)
    assert doc["problems"]["gbm"]["horizon_error"] == {
        "kind": "skipped",
        "message": "needs parameter 'horizon'",
    }
    assert doc["problems"]["gbm"]["log_rmse"]["kind"] == "undefined"
    assert doc["failures"] == []
    # The terminal says why, below the table.
    assert "Why values are missing" in result.stderr or "Why values are missing" in result.stdout
    assert "log_rmse needs y_true" in result.output


def test_demo_exits_1_when_something_failed(tmp_path, monkeypatch, rng):
    import ranklens._demo as demo
    from ranklens.report import evaluate_models

    def broken(y_true, y_pred, *, sample_weight=None):
        """Fails whatever the data."""
        raise RuntimeError("demo measure broke")

    _register(monkeypatch, "broken_error", broken)
    y = rng.lognormal(size=40)
    small = evaluate_models(y, {"a": y * 1.1}, title="Small", n_bootstrap=0, curves=False)
    monkeypatch.setattr(demo, "run_demo", lambda **kwargs: [small])
    out = tmp_path / "demo.html"
    result = runner.invoke(app, ["demo", "--out", str(out), "--bootstrap", "0"])
    assert result.exit_code == 1, result.output
    assert "error: broken_error failed for a: RuntimeError: demo measure broke" in result.stderr
    # the report names the failure in plain words (the message itself is on stderr)
    page = out.read_text()
    assert out.exists() and "Could not be computed; the JSON results keep the error" in page
    assert "demo measure broke" not in page


def test_demo_refuses_a_bad_bootstrap_before_fitting(monkeypatch):
    import ranklens._demo as demo

    monkeypatch.setattr(demo, "run_demo", lambda **kwargs: pytest.fail("demo ran"))
    _one_line_error(runner.invoke(app, ["demo", "--bootstrap", "1"]), "--bootstrap must be")


# --------------------------------------------------------------------------------------------
# User strings: rich markup, terminal hyperlinks, mathtext


@pytest.mark.parametrize(
    "name", ["a[/]", "[link=https://example.com]m[/link]", "[bold]x", ":fire:"]
)
def test_markup_in_names_is_shown_verbatim(tmp_path, wallet, name):
    frame = wallet[["spend", "gbm"]].rename(columns={"gbm": name})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    result = _run(
        "evaluate", path, "-t", "spend", "-p", name, "--bootstrap", "0", "--title", f"T {name}",
        quiet=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert name in result.stdout  # the column header, verbatim
    assert f"T {name}" in result.stdout  # the title
    assert "\x1b]8;" not in result.output  # no terminal hyperlink


def test_markup_in_a_failure_message_and_path(tmp_path, wallet_csv, monkeypatch):
    def broken(y_true, y_pred, *, sample_weight=None):
        """Fails with markup in its message."""
        raise RuntimeError("bad [/] value")

    _register(monkeypatch, "broken_error", broken)
    folder = tmp_path / "[red]out"
    folder.mkdir()
    out = folder / "r.json"
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", "--json", out,
        quiet=False,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "RuntimeError: bad [/] value" in result.output
    assert f"results: {out}" in result.stderr


def test_mathtext_in_a_model_name_keeps_every_plot(tmp_path, wallet):
    pytest.importorskip("matplotlib")
    name = "m_$_v1_$"
    frame = wallet[["spend", "gbm"]].assign(**{name: wallet["gbm"] * 1.1})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    html = tmp_path / "r.html"
    result = _run(
        "evaluate", path, "-t", "spend", "-p", "gbm", "-p", name, "--bootstrap", "0",
        "--html", html, "--title", "cost in $ and $x_1$",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = html.read_text()
    assert "Plot unavailable" not in text
    assert text.count("data:image/svg+xml") + text.count('class="vl-chart"') >= 5
    assert "<strong>ROC curve.</strong>" in text


# --------------------------------------------------------------------------------------------
# --json - and atomic outputs


def test_json_to_stdout_is_json_only(tmp_path, wallet_csv):
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", "--json", "-",
        quiet=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)  # the whole of stdout
    assert doc["models"]["gbm"]["mean_absolute_error"]["value"] > 0
    assert "spend (n = " in result.stderr and "ranking" in result.stderr  # the summary too


def test_json_to_stdout_with_a_failure_is_still_json_only(wallet_csv, monkeypatch):
    def broken(y_true, y_pred, *, sample_weight=None):
        """Fails whatever the data."""
        raise RuntimeError("boom")

    _register(monkeypatch, "broken_error", broken)
    result = _run(
        "evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0", "--json", "-"
    )
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["failures"][0]["measure"] == "broken_error"
    assert result.stderr.strip() == "error: broken_error failed for gbm: RuntimeError: boom"


def test_a_rendering_failure_keeps_the_previous_outputs(tmp_path, wallet_csv, monkeypatch):
    out, html = tmp_path / "r.json", tmp_path / "r.html"
    args = ["evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0"]
    result = _run(*args, "--json", out, "--html", html)
    assert result.exit_code == 0, result.output
    before = {path: path.read_bytes() for path in (out, html)}

    import ranklens.report.render as render

    def broken_render(*args, **kwargs):
        raise RuntimeError("template exploded")

    monkeypatch.setattr(render, "render_html", broken_render)
    result = _run(*args, "--seed", "3", "--title", "second run", "--json", out, "--html", html)
    _one_line_error(result, "could not render the HTML report: RuntimeError: template", code=1)
    # Neither file changed: the JSON is not replaced while its report fails.
    assert {path: path.read_bytes() for path in (out, html)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.json", "wallet.csv"]


def test_atomic_writes_leave_nothing_half_done(tmp_path):
    from ranklens.report.render import write_text_atomic, write_texts_atomic

    first = tmp_path / "a.json"
    first.write_text("old")
    with pytest.raises(OSError):
        write_texts_atomic({first: "new", tmp_path / "missing" / "b.html": "new"})
    assert first.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]  # no temporary file left
    first.chmod(0o640)
    assert write_text_atomic(first, "new ü") == first.resolve()
    assert first.read_text(encoding="utf-8") == "new ü"
    assert first.stat().st_mode & 0o777 == 0o640


def test_an_unexpected_error_outside_the_measures_is_one_line_exit_1(wallet_csv, monkeypatch):
    import ranklens.report

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(ranklens.report, "evaluate_models", broken)
    result = _run("evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0")
    _one_line_error(result, "evaluation failed: RuntimeError: out of memory", code=1)


def test_help_and_no_arguments_still_show_the_usage():
    result = runner.invoke(app, [])
    assert result.exit_code == 2 and "evaluate" in result.output
    assert "error:" not in result.output
    result = runner.invoke(app, ["evaluate", "--help"])
    assert result.exit_code == 0 and "--json" in result.output


def test_a_plot_that_fails_to_draw_is_a_failure(tmp_path, wallet_csv, monkeypatch):
    """The report keeps a note in the plot's place, and the command exits 1 naming the plot."""
    pytest.importorskip("matplotlib")
    from ranklens.report import figures

    def broken(evaluation):
        raise RuntimeError("cannot draw")

    section = next(iter(figures.BUILDERS))
    monkeypatch.setitem(figures.BUILDERS, section, (broken, *figures.BUILDERS[section]))
    html = tmp_path / "r.html"
    result = _run("evaluate", wallet_csv, "-t", "spend", "-p", "gbm", "--bootstrap", "0",
                  "--html", html)  # fmt: skip
    assert result.exit_code == 1, result.output
    assert f"error: {section} plot 1: RuntimeError: cannot draw" in result.stderr
    assert "Plot unavailable" in html.read_text()  # the rest of the report is there


def test_rare_binary_target_is_not_a_failure(tmp_path, rng):
    """A 0/1 target with 10 % events: the box-plot relevance is degenerate (IQR = 0), so the
    rare-extreme measures are undefined for these data (exit 0), and ROC AUC equals
    scikit-learn's."""
    n = 400
    x = rng.normal(size=n)
    frame = pd.DataFrame({"churned": (x > np.quantile(x, 0.9)).astype(int)})
    frame["gbm"] = x + rng.normal(size=n)
    path = tmp_path / "churn.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "r.json"
    result = _run("evaluate", path, "-t", "churned", "-p", "gbm", "--bootstrap", "0",
                  "--json", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = _json(out)
    assert doc["failures"] == []
    expected = roc_auc_score(frame["churned"], frame["gbm"])
    assert doc["models"]["gbm"]["roc_auc"]["value"] == pytest.approx(expected, **TOL)
    # the measures of rare extremes mean nothing for a target of two values: not computed,
    # said once in the settings (the report prints that sentence, no table of undefined values)
    assert "utility_f1" not in doc["models"]["gbm"]
    assert "rare extremes" in doc["settings"]["binary target"]
