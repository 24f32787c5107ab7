"""``ranklens demo`` (what ``make demo`` runs): wiring fast, the real thing marked slow."""

from __future__ import annotations

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
    assert "kendall_tau" in result.output  # the terminal summary table


def test_wallet_models_predict_on_the_held_out_half():
    from ranklens._demo import fit_wallet_models

    y_test, predictions = fit_wallet_models()
    assert y_test.size == 501
    assert set(predictions) == {"linear", "random_forest", "gbm", "knn"}
    for pred in predictions.values():
        assert pred.shape == y_test.shape and np.all(pred > 0)


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
    text = write_html(tmp_path / "demo.html", [wallet, returns]).read_text()
    assert "Wallet targeting" in text and "Rare extreme moves" in text
