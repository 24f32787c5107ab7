"""The report of a 0/1 target: the classification view (ROC AUC once, the average precision,
the probabilities, the precision, recall and counts at the budget's depth, the precision-recall
chart), its numbers against scikit-learn, through the command line and the library."""

from __future__ import annotations

import importlib.util
import json
import math
import pathlib
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    confusion_matrix,
    log_loss,
    precision_score,
    recall_score,
    roc_auc_score,
)
from typer.testing import CliRunner

from ranklens.cli import app
from ranklens.report import evaluate_models
from ranklens.report.goals import summary_verdicts
from ranklens.report.render import render_html
from report_schema import results_schema, validate

runner = CliRunner()
MODELS = ("good", "fair", "overconfident")
N = 3_000


def _make_churn(n: int, seed: int) -> pd.DataFrame:
    path = pathlib.Path(__file__).parents[2] / "benchmarks" / "data" / "churn.py"
    spec = importlib.util.spec_from_file_location("churn_data", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_churn(n, seed=seed)


def _visible(page: str) -> str:
    """The text a reader sees: no style sheet, no script, no tags."""
    page = re.sub(r"(?s)<style.*?</style>", "", page)
    page = re.sub(r"(?s)<script.*?</script>", "", page)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def _evaluate_cli(tmp_path, csv, *extra):
    html, out = tmp_path / "r.html", tmp_path / "r.json"
    args = ["evaluate", str(csv), "--bootstrap", "40", "--html", str(html), "--json", str(out)]
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output
    return result.output, html.read_text(), json.loads(out.read_text())


@pytest.fixture(scope="module")
def churn(tmp_path_factory):
    frame = _make_churn(N, seed=2)  # no tie of scores at the top 10 %'s cut
    path = tmp_path_factory.mktemp("churn") / "churn.csv"
    frame.drop(columns="weight").to_csv(path, index=False)
    tmp = tmp_path_factory.mktemp("report")
    picks = [a for m in MODELS for a in ("-p", m)]
    terminal, page, doc = _evaluate_cli(tmp, path, "-t", "churn", *picks)
    return pd.read_csv(path), terminal, page, doc


def _top(frame: pd.DataFrame, model: str, share: float) -> np.ndarray:
    """0/1 of being among the top ``share`` of rows by score (no tie straddles the cut)."""
    k = round(share * len(frame))
    order = np.argsort(-frame[model].to_numpy(), kind="stable")
    scores = frame[model].to_numpy()[order]
    assert scores[k - 1] != scores[k], "a tie straddles the cut: pick another seed"
    chosen = np.zeros(len(frame), dtype=int)
    chosen[order[:k]] = 1
    return chosen


def test_no_table_of_extremes_one_sentence_instead(churn):
    _, _, page, _ = churn
    text = _visible(page)
    assert "section-extremes" not in page and "<h3>Rare extremes</h3>" not in page
    assert text.count("Rare extremes: not shown") == 1
    assert "so there are no extreme values to catch" in text
    assert "Prediction intervals: not shown" in text
    # "undefined" only in the description of the tests, never as a value
    assert text.lower().count("undefined") == text.count("undefined in more than 1%")
    for goal in ("ranking", "targeting", "probabilities"):
        section = page[page.index(f'class="section section-{goal}"') :]
        section = section[: section.index("</section>")]
        assert "not defined" not in _visible(section), goal
    assert "<h3>Probabilities</h3>" in page


def test_precision_recall_chart_with_average_precision_in_the_legend(churn):
    frame, _, page, _ = churn
    assert "Precision-recall curve." in _visible(page)
    y = frame["churn"].to_numpy()
    for model in MODELS:
        ap = average_precision_score(y, frame[model])
        assert f"{model} (AP {ap:.3f})" in page or f"{model} (AP {ap:.3g})" in page


def test_counts_at_depth_equal_sklearn_on_the_top_rows(churn):
    frame, _, page, doc = churn
    validate(doc, results_schema())
    block = doc["at_depth"]
    assert block["depth"] == 0.1 and block["basis"] == "default"
    y = frame["churn"].to_numpy()
    for model in MODELS:
        chosen = _top(frame, model, 0.1)
        tn, fp, fn, tp = confusion_matrix(y, chosen, labels=[0, 1]).ravel()
        got = block["models"][model]
        assert got["precision"] == pytest.approx(precision_score(y, chosen), rel=1e-12)
        assert got["recall"] == pytest.approx(recall_score(y, chosen), rel=1e-12)
        fields = ("true_positives", "false_positives", "false_negatives", "true_negatives")
        assert [got[f] for f in fields] == pytest.approx([tp, fp, fn, tn], rel=1e-12)
        assert f'data-key="{model}:true_positives">{tp:,}<' in page
        assert f'data-key="{model}:true_negatives">{tn:,}<' in page
    assert "Precision, recall and counts in the top 10% by score" in page


def test_measures_equal_sklearn(churn):
    frame, _, _, doc = churn
    y = frame["churn"].to_numpy()
    for model in MODELS:
        values = {k: v["value"] for k, v in doc["models"][model].items()}
        p = frame[model].to_numpy()
        assert values["average_precision_score"] == pytest.approx(
            average_precision_score(y, p), rel=1e-12
        )
        assert values["brier_score_loss"] == pytest.approx(brier_score_loss(y, p), rel=1e-12)
        assert values["log_loss"] == pytest.approx(log_loss(y, p), rel=1e-12)
        assert values["roc_auc"] == pytest.approx(roc_auc_score(y, p), rel=1e-12)


def test_ranking_and_targeting_headlines_differ(churn):
    frame, _, page, _ = churn
    ranking = re.search(r'data-key="headline:ranking">([^<]+)<', page).group(1)
    targeting = re.search(r'data-key="headline:targeting">([^<]+)<', page).group(1)
    assert ranking != targeting
    y = frame["churn"].to_numpy()
    best_auc = max(roc_auc_score(y, frame[m]) for m in MODELS)
    best_ap = max(average_precision_score(y, frame[m]) for m in MODELS)
    assert float(ranking) == pytest.approx(best_auc, abs=5e-4)
    assert float(targeting) == pytest.approx(best_ap, abs=5e-4)
    text = _visible(page)
    assert "the ROC AUC is the concordance C" in text
    # the share of pairs ordered right and Somers' D duplicate the AUC: no rows of their own
    for model in MODELS:
        assert f'data-key="{model}:roc_auc"' in page
        assert f'data-key="{model}:tau_normalized"' not in page
        assert f'data-key="{model}:somers_d"' not in page
        assert page.count(f'data-key="{model}:roc_auc"') == 1


def test_terminal_shows_the_classification_headlines(churn):
    _, terminal, _, _ = churn
    header = next(
        line for line in terminal.splitlines() if "ranking" in line and "model" not in line
    )
    assert "extremes" not in terminal.split("bootstrap time")[0]
    assert "probabilities" in header and "targeting" in header
    # the columns are headed by the measures' plain names (the registry's are in --verbose)
    assert "ROC AUC" in terminal and "average" in terminal and "precision" in terminal
    assert "Brier score" in terminal and "mean absolute" not in terminal
    assert "roc_auc" not in terminal and "brier_score_loss" not in terminal


def test_a_target_of_two_labels_gives_the_same_numbers(churn, tmp_path):
    frame, _, _, doc = churn
    labelled = frame.assign(churn=np.where(frame["churn"] == 1, "yes", "no"))
    path = tmp_path / "labels.csv"
    labelled.to_csv(path, index=False)
    picks = [a for m in MODELS for a in ("-p", m)]
    _, page, other = _evaluate_cli(tmp_path, path, "-t", "churn", *picks, "--positive-label", "yes")
    assert other["at_depth"] == doc["at_depth"]
    for model in MODELS:
        for name in ("average_precision_score", "brier_score_loss", "log_loss", "roc_auc"):
            assert other["models"][model][name]["value"] == doc["models"][model][name]["value"]
    assert "Rare extremes: not shown" in _visible(page)


def test_scores_that_are_not_probabilities_get_one_sentence(tmp_path):
    frame = _make_churn(1_000, seed=4)
    frame["logit"] = np.log(frame["good"] / (1 - frame["good"]))  # outside [0, 1]
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    _, page, doc = _evaluate_cli(tmp_path, path, "-t", "churn", "-p", "logit")
    text = _visible(page)
    assert text.count("scores are not probabilities") == 1
    assert "Probabilities: not shown for any model" in text
    assert "<h3>Probabilities</h3>" not in page
    _, page, doc = _evaluate_cli(tmp_path, path, "-t", "churn", "-p", "logit", "-p", "good")
    text = _visible(page)
    assert "Probabilities: not shown for logit" in text and "<h3>Probabilities</h3>" in page
    assert doc["models"]["logit"]["brier_score_loss"]["status"] == "skipped"


def test_weighted_counts_at_the_budget_depth(tmp_path):
    frame = _make_churn(2_000, seed=5)
    y, w = frame["churn"].to_numpy(), frame["weight"].to_numpy(dtype=float)
    ev = evaluate_models(
        y,
        {m: frame[m] for m in MODELS},
        sample_weight=frame["weight"],
        budget=300.0,
        cost_per_target=1.0,
        value_margin=10.0,
        n_bootstrap=0,
    )
    block = ev.extras["at_depth"]
    assert block["basis"] == "budget"
    for model in MODELS:
        got = block["models"][model]
        order = np.argsort(-frame[model].to_numpy(), kind="stable")
        cum = np.cumsum(w[order])
        k = int(np.searchsorted(cum, block["depth"] * w.sum() - 1e-9)) + 1
        scores = frame[model].to_numpy()[order]
        if math.isclose(cum[k - 1], block["depth"] * w.sum()) and scores[k - 1] != scores[k]:
            chosen = np.zeros(len(y), dtype=int)
            chosen[order[:k]] = 1
            tn, fp, fn, tp = confusion_matrix(y, chosen, sample_weight=w, labels=[0, 1]).ravel()
            assert got["true_positives"] == pytest.approx(tp, rel=1e-12)
            assert got["false_positives"] == pytest.approx(fp, rel=1e-12)
            assert got["false_negatives"] == pytest.approx(fn, rel=1e-12)
            assert got["true_negatives"] == pytest.approx(tn, rel=1e-12)
        # whatever the cut: the counts add up to the weights and agree with precision/recall
        total = sum(
            got[f]
            for f in ("true_positives", "false_positives", "false_negatives", "true_negatives")
        )
        assert total == pytest.approx(w.sum(), rel=1e-12)
        assert got["precision"] == pytest.approx(
            got["true_positives"] / (got["true_positives"] + got["false_positives"]), rel=1e-12
        )
    page = render_html(ev)
    assert "the budget&#39;s depth" in page or "the budget's depth" in page
    verdicts = {v.goal.key: v for v in summary_verdicts(ev)}
    # no bootstrap, so no gain at exactly the budget's depth: the lift nearest to it
    assert verdicts["targeting"].metric in ("lift_at_5", "lift_at_10", "lift_at_20")
    assert "errors" not in verdicts and "extremes" not in verdicts
