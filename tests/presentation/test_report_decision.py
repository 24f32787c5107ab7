"""The decision that opens the report: ranklens.report.decision.recommend, its JSON object, its
HTML block, and the helpers that keep its numbers honest (distinguishing digits, money)."""

from __future__ import annotations

import io
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from ranklens._foundation.events import events_words
from ranklens._foundation.format import distinguishing_decimals
from ranklens.report import evaluate_models
from ranklens.report.decision import Recommendation, format_money, recommend
from ranklens.report.document import evaluation_to_json
from ranklens.report.goals import problem_sentence, summary_verdicts
from ranklens.report.render import render_html
from ranklens.report.tables import NumberStyle, distinguishing_style
from report_schema import results_schema, validate


def _visible(page: str) -> str:
    """The text a reader sees: no style sheet, no script, no tags."""
    page = re.sub(r"(?s)<style.*?</style>", "", page)
    page = re.sub(r"(?s)<script.*?</script>", "", page)
    return re.sub(r"<[^>]+>", " ", page)


@pytest.fixture(scope="module")
def clear_case():
    """One model far better than the other two, the truth read from a CSV (pandas Series)."""
    rng = np.random.default_rng(7)
    n = 300
    y = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "y": y,
            "good": y + 0.2 * rng.normal(size=n),
            "fair": y + 1.5 * rng.normal(size=n),
            "poor": y + 2.0 * rng.normal(size=n),
        }
    )
    frame = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
    predictions = {name: frame[name] for name in ("good", "fair", "poor")}
    return evaluate_models(frame["y"], predictions, n_bootstrap=200, random_state=0)


@pytest.fixture(scope="module")
def equal_case():
    """Two models with errors of the same size: no lead can be clear."""
    rng = np.random.default_rng(11)
    n = 200
    y = rng.normal(size=n)
    predictions = {"a": y + rng.normal(size=n), "b": y + rng.normal(size=n)}
    return evaluate_models(y, predictions, n_bootstrap=200, random_state=0)


@pytest.fixture(scope="module")
def budget_case():
    """A campaign: a long-tailed value, a budget for a quarter of the cases, a margin so thin
    that the best profit within the budget stops short of the budget's last case."""
    rng = np.random.default_rng(3)
    n = 400
    y = np.exp(rng.normal(size=n))
    predictions = {
        "sharp": y * np.exp(0.2 * rng.normal(size=n)),
        "blurred": y * np.exp(1.5 * rng.normal(size=n)),
    }
    return evaluate_models(
        y,
        predictions,
        events="top:0.1",
        budget=0.25 * n * 0.5,
        cost_per_target=0.5,
        value_margin=0.3,
        n_bootstrap=200,
        random_state=0,
    )


def test_a_clearly_better_model_is_recommended_with_its_evidence(clear_case):
    rec = recommend(clear_case)
    assert isinstance(rec, Recommendation)
    assert rec.purpose == "ranking" and rec.model == "good" and rec.clear
    evidence = rec.evidence
    assert evidence is not None and evidence.leader == "good" and evidence.clear
    # share of pairs ordered right: higher is better, so good minus the closest is positive and
    # its adjusted interval lies above zero
    assert rec.measure == "tau_normalized"
    values = clear_case.values
    assert evidence.value_leader == pytest.approx(values["good"]["tau_normalized"])
    assert evidence.value_other == pytest.approx(values[evidence.other]["tau_normalized"])
    assert evidence.difference == pytest.approx(evidence.value_leader - evidence.value_other)
    assert 0 < evidence.low < evidence.difference < evidence.high
    # the closest other model is the one with the smaller gap
    others = {m: values[m]["tau_normalized"] for m in ("fair", "poor")}
    assert evidence.other == max(others, key=others.get)
    assert rec.sentence.startswith("Deploy good for ranking")
    assert (
        rec.one_line().startswith("Deploy good for ranking") and "clearly ahead" in rec.one_line()
    )
    assert rec.settle == ""
    # the same verdict as the Summary's (nothing recomputed)
    (ranking,) = [v for v in summary_verdicts(clear_case) if v.goal.key == "ranking"]
    assert ranking.evidence == "clear" and ranking.best == "good"


def test_equally_good_models_get_no_pick_and_what_would_settle_it(equal_case):
    rec = recommend(equal_case)
    assert rec.model is None and not rec.clear
    assert rec.sentence.startswith("No model is clearly better for ranking")
    assert "Deploy" not in rec.sentence and "Deploy" not in rec.one_line()
    assert rec.leader in ("a", "b")
    evidence = rec.evidence
    assert evidence is not None and not evidence.clear
    assert evidence.low < 0 < evidence.high or not math.isfinite(evidence.low)
    # the planning sentence: what these rows detect and the rows the observed gap needs
    assert "would take about" in rec.settle and "rows" in rec.settle
    doc = evaluation_to_json(equal_case)
    assert doc["recommendation"]["model"] is None
    assert doc["recommendation"]["settle"] == rec.settle


def test_budget_depth_count_and_worth_come_from_the_profit_curves(budget_case):
    budget_case.settings["currency"] = "$"
    try:
        rec = recommend(budget_case)
        page = render_html(budget_case, figures=False)
    finally:
        del budget_case.settings["currency"]
    profits = budget_case.curves["profit"]
    curve = profits["sharp"]
    k = curve.max_targets
    assert k == 100  # floor(budget / cost)
    assert rec.purpose == "targeting" and rec.n_targeted == k
    assert rec.depth == pytest.approx(k / budget_case.n)
    assert "the 100 cases the budget pays for" in rec.purpose_text
    # worth: the profit of targeting exactly the budget's cases, by the recommended model (or
    # the leader), with the currency
    who = rec.model or rec.leader
    assert who is not None
    expected = profits[who].at(k / budget_case.n)
    assert rec.worth == pytest.approx(expected)
    assert rec.worth_text == format_money(expected, "$") and rec.worth_text.startswith(("$", "-$"))
    # one number of cases in the text: the budget's (the plot's budget line), never the best
    # depth within the budget when that stops earlier
    assert all(p.budget_n_targeted <= k for p in profits.values())
    text = _visible(page)
    assert "the 100 cases the budget pays for" in text
    shorter = {round(p.budget_n_targeted) for p in profits.values()} - {k}
    for count in shorter:
        assert f"{count} cases" not in text
    # the evidence is at exactly the budget's depth
    assert rec.measure in ("gain_at_budget", "value_gain_at_budget")
    bands = budget_case.extras["bands"]
    assert np.min(np.abs(np.asarray(bands["gain"].x) - k / budget_case.n)) < 1e-12
    assert rec.evidence is not None
    value = bands["budget_value_gain"]
    ia, ib = (list(value.models).index(m) for m in (rec.evidence.leader, rec.evidence.other))
    assert rec.evidence.difference == pytest.approx(
        float(value.estimate[ia, 0] - value.estimate[ib, 0])
    )
    # the sharper model reaches more of the value at that depth
    assert rec.leader == "sharp" and rec.evidence.difference > 0


def test_the_goal_setting_is_honoured_without_a_budget(clear_case):
    clear_case.settings["goal"] = "errors"
    try:
        rec = recommend(clear_case)
    finally:
        del clear_case.settings["goal"]
    assert rec.purpose == "errors"
    assert rec.measure == "mean_absolute_error"
    assert rec.model == "good"
    # mean absolute error: lower is better, so good minus the closest is negative
    assert rec.evidence is not None and rec.evidence.difference < 0
    assert rec.evidence.high < 0
    assert "predicted values close to the truth" in rec.sentence
    titles = [title for title, _ in rec.secondary]
    assert "Size of the errors" not in titles and "Ranking" in titles
    # an unknown goal falls back to ranking
    clear_case.settings["goal"] = "nonsense"
    try:
        assert recommend(clear_case).purpose == "ranking"
    finally:
        del clear_case.settings["goal"]


def test_json_recommendation_validates_and_matches(clear_case, budget_case):
    for evaluation in (clear_case, budget_case):
        doc = json.loads(json.dumps(evaluation_to_json(evaluation), allow_nan=False))
        validate(doc, results_schema())
    doc = json.loads(json.dumps(evaluation_to_json(clear_case), allow_nan=False))
    rec = doc["recommendation"]
    assert rec["model"] == "good" and rec["clear"] and rec["purpose"] == "ranking"
    assert rec["evidence"]["difference"] > 0 and rec["evidence"]["interval"]["lower"] > 0
    assert rec["evidence"]["method"]
    assert doc["schema_version"] == "2.7"
    info = doc["metrics"]["tau_normalized"]
    assert info["plain_name"] == "share of pairs ordered right" and info["meaning"]


def test_html_opens_with_the_decision_in_plain_words(clear_case, equal_case):
    page = render_html([clear_case, equal_case], figures=False)
    first = page.index('data-key="recommendation"')
    assert first < page.index('class="table-wrap"')
    assert "Deploy <strong>good</strong> for ranking" in page
    # only the clear decision is marked as one
    assert page.count('class="decision decision-clear"') == 1
    assert page.count('class="decision"') == 1
    assert "What would settle it." in page
    text = _visible(page)
    leaks = (r"tau_normalized", r"tau normalized", r"\bsera\b", r"top:", r"y >=", r"Error")
    for leak in (*leaks, r"\bposition\b"):
        assert not re.search(leak, text), leak
    assert "choose on other grounds" not in text and "Pick " not in text


def test_distinguishing_decimals_against_brute_force():
    assert distinguishing_decimals([24812345.0, 24798765.0]) == 0
    assert distinguishing_decimals([0.712, 0.708], 2) == 3
    assert distinguishing_decimals([1.0, 1.0], 3) == 3
    assert distinguishing_decimals([math.nan, 1.0, math.inf], 3) == 3
    assert distinguishing_decimals([0.3, 0.1 + 0.2]) == 17  # two doubles always told apart
    rng = np.random.default_rng(0)
    for _ in range(300):
        a = float(rng.lognormal(0, 5)) * float(rng.choice([-1, 1]))
        b = a * (1 + float(rng.choice([1e-9, 1e-6, 1e-4, 1e-2])) * float(rng.uniform(-1, 1)))
        c = float(rng.choice([0.0, 1e-6, 1e10]))
        d = distinguishing_decimals([a, b, c], 1)
        # brute force: the fewest decimals (at least 1) at which the three texts differ
        brute = next(
            k for k in range(1, 400) if len({f"{v:,.{k}f}" for v in (a, b, c)}) == len({a, b, c})
        )
        assert d == brute


def test_distinguishing_style_widens_only_when_needed():
    fixed = NumberStyle(2)
    assert distinguishing_style(fixed, 0.72, 0.70) is fixed
    assert distinguishing_style(fixed, 0.712, 0.708).decimals == 3
    wider = distinguishing_style(fixed, 0.7102, 0.7098)
    assert (wider(0.7102), wider(0.7098)) == ("0.7102", "0.7098")
    big = distinguishing_style(NumberStyle(0), 24812345.0, 24798765.0)
    assert (big(24812345.0), big(24798765.0)) == ("24,812,345", "24,798,765")
    assert distinguishing_style(fixed, 1.0, 1.0) is fixed
    many = distinguishing_style(NumberStyle(0), 1e10, 1e-6, 2e-6, math.nan)
    assert [many(v) for v in (1e-6, 2e-6)] == ["0.000001", "0.000002"]


@pytest.mark.parametrize(
    ("value", "currency", "text"),
    [
        (1234.4, "$", "$1,234"),
        (-1234.4, "$", "-$1,234"),
        (1234.4, "EUR", "1,234 EUR"),
        (12.345, "€", "€12.35"),
        (1234.4, None, "1,234"),
        (-0.001, "$", "$0.00"),
    ],
)
def test_format_money(value, currency, text):
    assert format_money(value, currency) == text


def test_events_and_problems_in_words():
    assert events_words("top:0.1 (y >= 512.013; event share 0.1002)") == (
        "the top 10% of values, at least 512"
    )
    assert events_words("y >= 1234.5", unit="EUR") == "values at least 1,234 EUR"
    # the report's plain numbers: never scientific notation, large values in words
    assert events_words("y >= 1.234e-05") == "values at least 0.00001234"
    assert events_words("y < -2500000", unit="$") == "values below -$2.5 million"
    message = (
        "undefined: y_true must be non-negative for NDCG (it is the relevance gain); got "
        "-0.36 at position 2. Transform the target first"
    )
    sentence = problem_sentence(message)
    assert "position" not in sentence and "y_true" not in sentence
    assert problem_sentence("") == ""


def test_a_goal_no_model_can_serve_is_left_out_never_picked():
    # rare extremes in the truth, predictions that never reach them: recall 0 for every model
    rng = np.random.default_rng(5)
    n = 300
    y = rng.normal(size=n)
    y[:12] = 8.0 + rng.uniform(size=12)
    predictions = {
        "shy": np.clip(0.5 * y, -1.0, 1.0) + 0.01 * rng.normal(size=n),
        "timid": np.clip(0.4 * y, -1.0, 1.0) + 0.01 * rng.normal(size=n),
    }
    evaluation = evaluate_models(y, predictions, n_bootstrap=100, random_state=0)
    evaluation.settings["goal"] = "extremes"
    rec = recommend(evaluation)
    assert rec.purpose == "extremes" and rec.model is None and rec.leader is None
    assert rec.sentence.startswith("No model can be recommended for catching the rare extreme")
    assert "none is fit for catching them" in rec.sentence
    (extremes,) = evaluation_to_json(evaluation)["summary"]["goals"][2:3]
    assert extremes["goal"] == "extremes" and extremes["pick"] is None
    assert extremes["evidence"] == "no model fit"
    # seen from another purpose, the goal is one line that names no model
    del evaluation.settings["goal"]
    lines = dict(recommend(evaluation).secondary)
    assert lines["Rare extremes"].startswith("Left out:")
    assert "shy" not in lines["Rare extremes"] and "timid" not in lines["Rare extremes"]


def test_one_model_or_no_comparison_gives_no_pick():
    rng = np.random.default_rng(2)
    y = rng.normal(size=150)
    alone = evaluate_models(y, {"only": y + rng.normal(size=150)}, n_bootstrap=50, random_state=0)
    rec = recommend(alone)
    assert rec.model is None and rec.leader == "only" and rec.settle == ""
    assert "there is no other model to choose between" in rec.sentence
    pair = {"a": y + rng.normal(size=150), "b": y + 3 * rng.normal(size=150)}
    # no replicates: the analytic test (DeLong's, for the share of pairs ordered right) decides
    analytic = recommend(evaluate_models(y, pair, n_bootstrap=0, random_state=0))
    assert analytic.model == "a" and analytic.evidence is not None
    assert analytic.evidence.method == "DeLong's Wald interval"
    # no comparison at all: a lead, however large, is not a pick
    untested = evaluate_models(y, pair, n_bootstrap=0, inference="bootstrap", random_state=0)
    assert untested.comparison is None
    rec = recommend(untested)
    assert rec.model is None and rec.leader == "a"
    assert "No paired comparison was run" in rec.settle


def test_two_different_values_never_read_the_same(clear_case, equal_case, budget_case):
    # no two models tie on any headline in these data, so no "x against x" may appear
    pair = re.compile(r"(-?[0-9][0-9.,e+-]*) against (-?[0-9][0-9.,e+-]*)")
    for evaluation in (clear_case, equal_case, budget_case):
        verdicts = summary_verdicts(evaluation)
        assert all(c.value_a != c.value_b for v in verdicts for c in v.contrasts)
        rec = recommend(evaluation)
        texts = [rec.sentence, *(line for _, line in rec.secondary)]
        texts += [re.sub("<[^>]+>", "", v.sentence) for v in verdicts]
        found = [(a, b) for text in texts for a, b in pair.findall(text)]
        assert found and all(a != b for a, b in found), found


def test_plot_captions_write_the_events_in_words():
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(11)
    y = rng.lognormal(3, 1, size=400)
    predictions = {"a": y * rng.lognormal(0, 0.5, 400), "b": y * rng.lognormal(0, 0.9, 400)}
    evaluation = evaluate_models(y, predictions, events="top:0.1", n_bootstrap=0)
    text = _visible(render_html(evaluation))
    assert "decile report of a campaign (events: the top 10%" in text
    assert "top:0.1" not in text and "y >=" not in text
