"""The HTML report: rendered from result objects only, self-contained, readable without network."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from ranklens.report import (
    ModelEvaluation,
    evaluate_models,
    evaluation_to_json,
    render_html,
    result_html,
    write_html,
)
from ranklens.report.render import format_number
from report_schema import results_schema, validate


@pytest.fixture(scope="module")
def task():
    rng = np.random.default_rng(7)
    n = 120
    y = rng.lognormal(mean=3, size=n)
    predictions = {
        "gbm": y * rng.lognormal(sigma=0.3, size=n),
        "linear": y + rng.normal(scale=25, size=n),
    }
    bounds = {"gbm": (predictions["gbm"] * 0.6, predictions["gbm"] * 1.6)}
    return y, predictions, bounds


@pytest.fixture(scope="module")
def evaluation(task) -> ModelEvaluation:
    y, predictions, bounds = task
    return evaluate_models(
        y,
        predictions,
        title="Wallets",
        description="A test task.",
        target="spend",
        intervals=bounds,
        alpha=0.1,
        events="top:0.2",
        budget=200.0,
        cost_per_target=10.0,
        value_margin=0.5,
        n_bootstrap=40,
        random_state=1,
    )


@pytest.fixture(scope="module")
def page(evaluation) -> str:
    pytest.importorskip("matplotlib")
    return render_html(evaluation, title="Test report")


def test_evaluation_holds_the_library_results(task, evaluation):
    from ranklens.compare import ComparisonResult
    from ranklens.intervals import interval_score
    from ranklens.ranking import kendall_tau
    from ranklens.targeting import roc_curve

    y, predictions, bounds = task
    assert evaluation.model_names == ("gbm", "linear")
    assert isinstance(evaluation.comparison, ComparisonResult)
    for model, pred in predictions.items():
        assert evaluation.values[model]["kendall_tau"] == kendall_tau(y, pred)
        expected = roc_curve(y, pred, events="top:0.2")
        np.testing.assert_array_equal(evaluation.curves["roc"][model].tpr, expected.tpr)
    assert evaluation.values["gbm"]["interval_score"] == interval_score(
        y, *bounds["gbm"], alpha=0.1
    )
    assert "interval_score" not in evaluation.values["linear"]
    for kind in (
        "cutoff_auc",
        "rank_lift",
        "roc",
        "gain",
        "lift",
        "profit",
        "rec",
        "rroc",
        "concordance_profile",
        "decile_table",
        "value_gain",
    ):
        assert set(evaluation.curves[kind]) == {"gbm", "linear"}, kind
    assert set(evaluation.curves["intervals"]) == {"gbm"}
    assert set(evaluation.robustness) == {"gbm", "linear"}
    profit = evaluation.curves["profit"]["gbm"]
    assert profit.max_targets == 20 and profit.value_margin == 0.5


def test_point_values_are_the_registered_functions(evaluation):
    from ranklens.metrics import get_metric

    y = evaluation.extras["y_true"]
    rec = evaluation.curves["rec"]["gbm"]
    # The REC area is the MAE: the curve and the value come from the same predictions.
    assert rec.area_over_curve == pytest.approx(evaluation.values["gbm"]["mean_absolute_error"])
    spec = get_metric("spearman_rho")
    assert spec.higher_is_better
    assert evaluation.metrics["spearman_rho"]["family"] == spec.family
    assert y.size == evaluation.n == 120


def test_bootstrap_uses_the_task_parameters(evaluation):
    # roc_auc with events="top:0.2" in the table and in the bootstrap must be the same number.
    comparison = evaluation.comparison
    if "roc_auc" in comparison.metrics:
        assert comparison.value("roc_auc", "gbm") == pytest.approx(
            evaluation.values["gbm"]["roc_auc"]
        )


def test_page_is_self_contained(page):
    assert page.startswith("<!DOCTYPE html>")
    # scripts are inline (the vendored chart library, the table sorting), never loaded
    assert not re.search(r"<script[^>]*\bsrc\s*=", page)
    assert page.count("vega-lite") >= 1 and page.count("vegaEmbed") >= 1
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', page)
    assert "@import" not in page and "url(http" not in page


def test_page_shows_every_model_measure_and_interval(page, evaluation, task):
    from ranklens.ranking import ranking_summary

    for metric in evaluation.metrics:
        assert f">{metric}<" in page or f">{metric}</th>" in page or metric in page
    for model in evaluation.model_names:
        assert model in page
    # The value is written to the precision its interval supports: the shown digits round it.
    tau = evaluation.values["gbm"]["kendall_tau"]
    shown = re.search(r'data-key="gbm:kendall_tau">([-0-9.,]+)<span class="sub">\[([^,]+), ', page)
    assert shown, "kendall_tau of gbm is not shown with its interval"
    text, low_text = shown.group(1), shown.group(2)
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert abs(float(text.replace(",", "")) - tau) <= 0.5 * 10**-decimals + 1e-12
    low = evaluation.comparison.ci_lower[evaluation.comparison.metrics.index("kendall_tau"), 0]
    assert abs(float(low_text.replace(",", "")) - low) <= 0.5 * 10**-decimals + 1e-12
    # By default tau's interval is Fisher's z (the report's note says so), not the bootstrap's.
    y, predictions, _ = task
    noether = ranking_summary(y, predictions["gbm"]).confidence_interval(0.95)
    assert low == pytest.approx(noether[0])
    assert "Newson 2006) for Kendall&#39;s tau" in page
    assert page.index(">Summary</h3>") < page.index(">Ranking</h3>")
    for title in (
        "Summary",
        "Model comparison",
        "Ranking",
        "Targeting at the budget",
        "Rare extremes",
        "Size of the errors",
        "Prediction intervals",
        "Evaluation robustness",
    ):
        assert f">{title}</h3>" in page, title
    assert page.count("How this is computed") >= 6
    # every plot is an interactive chart or, where it has none, an embedded SVG
    assert page.count('<img src="data:image/svg+xml;base64,') + page.count('class="vl-chart"') >= 8


def test_renderer_never_recomputes(evaluation, monkeypatch):
    import ranklens.metrics
    import ranklens.ranking

    def forbidden(*args, **kwargs):
        raise AssertionError("the renderer recomputed a measure")

    for name in ("concordance_profile", "cutoff_auc_curve", "rank_lift_curve", "kendall_tau"):
        monkeypatch.setattr(ranklens.ranking, name, forbidden)
    monkeypatch.setattr(ranklens.metrics, "get_metric", forbidden)
    assert "Wallets" in render_html(evaluation, figures=False)


def test_report_without_plots_or_comparison(rng, tmp_path):
    y = rng.normal(size=50)
    # no replicates and no analytic inference: nothing to compare
    ev = evaluate_models(
        y, {"a": y + rng.normal(size=50)}, curves=False, robustness=False, inference="bootstrap"
    )
    assert ev.comparison is None and not ev.curves
    path = write_html(tmp_path / "r.html", ev, figures=False)
    text = path.read_text()
    assert "Model comparison" not in text and "kendall_tau" in text


def test_a_broken_plot_does_not_break_the_report(evaluation, monkeypatch):
    pytest.importorskip("matplotlib")
    from ranklens.report import figures

    def broken(ev):
        raise RuntimeError("cannot draw")

    monkeypatch.setitem(figures.BUILDERS, "errors", (broken,))
    text = render_html(evaluation)
    assert "Plot unavailable" in text and "cannot draw" in text


def test_json_document(evaluation):
    from ranklens.ranking import ranking_summary

    doc = evaluation_to_json(evaluation)
    text = json.dumps(doc, allow_nan=False)
    back = json.loads(text)
    record = back["models"]["gbm"]["kendall_tau"]
    assert record["value"] == pytest.approx(evaluation.values["gbm"]["kendall_tau"])
    k = evaluation.comparison.metrics.index("kendall_tau")
    assert record["ci_low"] == pytest.approx(evaluation.comparison.ci_lower[k, 0])
    assert record["ci_high"] == pytest.approx(evaluation.comparison.ci_upper[k, 0])
    # ... which is Fisher's z interval of tau by default, and says so.
    y = evaluation.extras["y_true"]
    gbm = evaluation.extras["predictions"]["gbm"]
    assert record["interval_method"] == "fisher-z"
    assert (record["ci_low"], record["ci_high"]) == pytest.approx(
        tuple(ranking_summary(y, gbm).confidence_interval(0.95))
    )
    assert record["status"] == "ok" and record["reason"] is None
    assert back["schema_version"] == "2.7"
    assert {c["measure"] for c in back["comparisons"]} <= set(evaluation.metrics)
    first = back["comparisons"][0]
    assert {"model_a", "model_b", "difference", "p_value", "ci_low", "ci_high"} <= set(first)
    assert back["robustness"]["gbm"]["metrics"]
    assert "replicates" not in back and "replicates" not in text
    with_replicates = evaluation_to_json(evaluation, include_replicates=True)["replicates"]
    values = np.asarray(with_replicates["values"], dtype=float)
    np.testing.assert_array_equal(values, evaluation.comparison.replicates)


def test_repr_html_for_notebooks(evaluation):
    rec = evaluation.curves["rec"]["gbm"]
    text = rec._repr_html_()
    assert "RECCurveResult" in text and "area_over_curve" in text and "array of" in text
    assert result_html(rec) == text
    summary = evaluation._repr_html_()
    assert "kendall_tau" in summary and "Wallets" in summary
    assert "<body" not in summary and "body {" not in summary
    frame = evaluation.to_frame()
    assert list(frame.columns[:2]) == ["family", "higher_is_better"]
    assert frame.loc["kendall_tau", "gbm"] == evaluation.values["gbm"]["kendall_tau"]


def test_empty_predictions_are_refused():
    with pytest.raises(ValueError, match="predictions is empty"):
        evaluate_models([1.0, 2.0, 3.0], {})


def test_format_number():
    assert format_number(float("nan")) == "–"
    assert format_number(None) == "–"
    assert format_number(12) == "12"
    assert format_number(0.123456) == "0.1235"
    assert format_number(123456.0) == "123,456"
    assert format_number(-2.52e7) == "-25,200,000"
    assert format_number(1.23456e-5) == "0.00001235"
    assert format_number(float("-inf")) == "−∞"
    assert format_number(1234.5) == "1,234.5"
    assert format_number(0) == "0"


def test_embedded_plots_are_valid_svg(page, evaluation):
    import base64
    import xml.etree.ElementTree as ET

    from ranklens.report.figures import build_figures

    # the page's plots are interactive charts; each has its SVG image when charts are off
    views = build_figures(evaluation, interactive=False)
    static = "".join(v.image for section in views.values() for v in section)
    images = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page + static)
    assert len(images) >= 8
    for data in images:
        root = ET.fromstring(base64.b64decode(data))
        assert root.tag.endswith("svg")


def test_bootstrap_keeps_to_its_time_budget(task):
    """A budget is a bound: the plan says what it left out, and a budget too small for even the
    fastest measures skips the bootstrap, saying why (tests/common/test_first_contact.py checks the
    wall time and the order of priority)."""
    from ranklens.compare import DEFAULT_COMPARISON_METRICS

    y, predictions, _ = task
    quick = {"curves": False, "robustness": False}
    none = evaluate_models(
        y, predictions, n_bootstrap=200, bootstrap_budget_s=0.0, inference="bootstrap", **quick
    )
    assert none.comparison is None
    assert none.settings["bootstrap (time budget)"].startswith("skipped: even 100 replicates")
    assert none.problems["(all models)"]["bootstrap comparison"].kind == "skipped"
    # By default the analytic intervals and tests are no bootstrap: they run whatever its
    # budget; only the measures that declare them are compared.
    analytic = evaluate_models(y, predictions, n_bootstrap=200, bootstrap_budget_s=0.0, **quick)
    assert analytic.settings["bootstrap (time budget)"].startswith("skipped: even 100 replicates")
    assert analytic.problems["(all models)"]["bootstrap comparison"].kind == "skipped"
    assert set(analytic.comparison.metrics) == {
        "kendall_tau",
        "roc_auc",
        "somers_d",
        "tau_normalized",
    }
    assert analytic.comparison.n_bootstrap == 0
    assert analytic.comparison.test_methods[analytic.comparison.metrics.index("kendall_tau")] == ""
    full = evaluate_models(y, predictions, n_bootstrap=20, curves=False, robustness=False)
    assert set(DEFAULT_COMPARISON_METRICS) <= set(full.comparison.metrics)
    assert "roc_auc" in full.comparison.metrics
    assert "not bootstrapped (time budget)" not in full.settings
    assert "of the 60 s budget" in full.settings["bootstrap time"]


def test_metric_agreement_gets_the_task_relevance(rng, monkeypatch):
    import ranklens.agreement
    import ranklens.evaluation
    from ranklens._foundation.registry import MetricSpec
    from ranklens.relevance import SigmoidRelevance

    y = rng.standard_t(3, size=150)
    candidates = {f"m{i}": y * (0.2 * i) + rng.normal(size=150) for i in range(6)}
    relevance = SigmoidRelevance(low_center=-2.0, high_center=2.0)
    seen = []
    real = ranklens.agreement.compare_metric_rankings

    def accepting_specs(y_true, predictions, metrics, **kwargs):
        seen.append(list(metrics))
        names = [m.name if isinstance(m, MetricSpec) else m for m in metrics]
        return real(y_true, predictions, metrics=names, **kwargs)

    monkeypatch.setattr(ranklens.evaluation, "compare_metric_rankings", accepting_specs)
    ev = evaluate_models(y, candidates, relevance=relevance, curves=True, robustness=False)
    specs = {m.name: m for m in seen[0]}
    assert specs["utility_f1"].func.keywords["relevance"] is relevance
    assert "metric_agreement" in ev.extras


def test_json_matches_its_schema(evaluation, rng):
    schema = results_schema()
    doc = json.loads(json.dumps(evaluation_to_json(evaluation, include_replicates=True)))
    validate(doc, schema)
    try:  # the reference validator, where it is installed
        import jsonschema
    except ImportError:
        pass
    else:
        jsonschema.validate(doc, schema)
    # A document the schema must refuse: a bare number where a measure record belongs.
    broken = json.loads(json.dumps(doc))
    broken["models"]["gbm"]["kendall_tau"] = 0.5
    with pytest.raises(AssertionError):
        validate(broken, schema)
    # Without a bootstrap and without analytic inference: no intervals, no comparisons, valid.
    y = rng.normal(size=40)
    plain = evaluate_models(
        y, {"a": y + rng.normal(size=40)}, curves=False, robustness=False, inference="bootstrap"
    )
    doc = json.loads(json.dumps(evaluation_to_json(plain)))
    validate(doc, schema)
    assert doc["comparisons"] == [] and doc["comparison"] is None
    assert doc["models"]["a"]["kendall_tau"]["ci_low"] is None
    # Without a bootstrap, analytic inference only (the default): valid, with its methods.
    analytic = evaluate_models(y, {"a": y + rng.normal(size=40)}, curves=False, robustness=False)
    doc = json.loads(json.dumps(evaluation_to_json(analytic)))
    validate(doc, schema)
    assert doc["comparison"]["n_bootstrap"] == 0
    assert doc["models"]["a"]["kendall_tau"]["interval_method"] == "fisher-z"
    assert doc["models"]["a"]["root_mean_squared_error"]["ci_low"] is None


def test_holm_adjustment_matches_the_textbook_procedure():
    from ranklens.report.significance import holm_adjust

    p = [0.01, 0.04, 0.03, 0.005, float("nan")]
    # Holm (1979) by hand: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1, then running max.
    expected = [0.03, 0.06, 0.06, 0.02, float("nan")]
    np.testing.assert_allclose(holm_adjust(p), expected, equal_nan=True)
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError:
        return
    rng = np.random.default_rng(0)
    q = rng.uniform(0, 0.2, size=30)
    np.testing.assert_allclose(holm_adjust(q), multipletests(q, method="holm")[1])


def test_a_model_is_named_only_when_its_adjusted_interval_excludes_zero():
    from ranklens.report.significance import Contrast, holm_contrasts

    def contrast(d, sd, p):
        return Contrast("m", "a", "b", 1.0, 1.0 - d, d, sd, p, "higher")

    # Alone, p = 0.03 is clear; among three with p = 0.03, 0.04, 0.2 Holm keeps all of them.
    (alone,) = holm_contrasts([contrast(0.2, 0.092, 0.03)])
    assert alone.better == "a" and alone.low > 0
    family = holm_contrasts(
        [contrast(0.2, 0.092, 0.03), contrast(0.1, 0.05, 0.04), contrast(0.1, 0.08, 0.2)]
    )
    assert [c.better for c in family] == ["", "", ""]
    for c in family:
        assert c.low <= 0 <= c.high  # every interval includes zero: no winner named
    # A target measure is never ranked by size.
    (target,) = holm_contrasts([Contrast("cov", "a", "b", 0.99, 0.8, 0.19, 0.01, 1e-9, "target")])
    assert target.better == ""


def test_summary_is_first_and_says_whether_the_evidence_is_clear(page, evaluation):
    from ranklens.report.goals import summary_verdicts

    first = re.search(r"<section[^>]*>\s*<h3>([^<]+)</h3>", page)
    assert first and first.group(1) == "Summary"
    verdicts = {v.goal.key: v for v in summary_verdicts(evaluation)}
    assert {"ranking", "targeting", "errors"} <= set(verdicts)
    for key, verdict in verdicts.items():
        if verdict.best:
            assert f'data-key="pick:{key}">{verdict.best}<' in page
        for c in verdict.contrasts:
            # "clear" exactly when the adjusted interval excludes zero
            assert c.clear == (c.low > 0 or c.high < 0)
            if c.clear:
                assert c.better == verdict.best
    assert "Holm" in page and "clear" in page
    assert "seed" not in page.lower() and "NOTES" not in page
    assert "locally optimal envelope" not in page
    assert "cumulative inverse rank captured" not in page


def test_number_style_one_notation_and_digits_from_the_interval():
    from ranklens.report.tables import number_style

    # Two significant digits of the narrowest interval width (0.012 -> 3 decimals).
    style = number_style([0.58512, 0.57321], [0.012, 0.03])
    assert [style(v) for v in (0.58512, 0.57321)] == ["0.585", "0.573"]
    # One notation for the whole row, positional: never "75,635.2" beside "9.130e+07".
    row = number_style([75_635.2, 9.13e7])
    assert (row(75_635.2), row(9.13e7)) == ("75,635", "91,300,000")
    # Small magnitudes: positional, four significant digits of the largest.
    small = number_style([1.2345e-5, -3.4e-6])
    assert (small(1.2345e-5), small(-3.4e-6)) == ("0.00001234", "-0.00000340")
    fixed = number_style([75_635.2, 913_000.0])
    assert fixed(75_635.2) == "75,635" and fixed(913_000.0) == "913,000"
    # Whole counts stay whole.
    counts = number_style([50.0, 51.0, 0.0], integer=True)
    assert [counts(v) for v in (50.0, 51.0, 0.0)] == ["50", "51", "0"]
    assert number_style([1.5], integer=True)(1.5) == "1.500"  # not whole: not an integer column
    assert style(float("nan")) == "not defined"


def test_decile_table_has_whole_counts_that_add_up(evaluation):
    from ranklens.report.adapters import decile_table

    result = evaluation.curves["decile_table"]["gbm"]
    table = decile_table(result)
    assert [h["text"] for h in table.header][:4] == ["decile", "score range", "cases", "events"]
    counts = [int(row.cells[2].text.replace(",", "")) for row in table.rows]
    events = [int(row.cells[3].text.replace(",", "")) for row in table.rows]
    cumulative = [int(row.cells[5].text.replace(",", "")) for row in table.rows]
    assert sum(counts) == evaluation.n == 120
    assert cumulative == list(np.cumsum(events))
    assert cumulative[-1] == round(float(result.total_events))
    assert all(" to " in row.cells[1].text for row in table.rows)
    weighted = decile_table(result, weighted=True)
    assert weighted.header[2]["text"] == "weighted cases"


def test_gain_comparisons_by_depth_read_the_band_replicates(rng):
    from ranklens.report.adapters import gain_contrasts, leader_is_clear, section_tables

    n = 400
    x = rng.normal(size=n)
    y = (x + rng.normal(scale=0.7, size=n) > 1.0).astype(float)
    ev = evaluate_models(
        y,
        {"strong": x, "noise": rng.normal(size=n)},
        n_bootstrap=100,
        random_state=0,
        robustness=False,
    )
    bands = ev.extras["bands"]["gain"]
    contrasts = gain_contrasts(bands, [0.2])
    ((depth, a, b), c) = next(iter(contrasts.items()))
    j = int(np.argmin(np.abs(bands.x - 0.2)))
    ia, ib = bands.models.index(a), bands.models.index(b)
    reps = bands.replicates[:, ia, j] - bands.replicates[:, ib, j]
    assert c.sd == pytest.approx(np.std(reps, ddof=1))
    assert c.difference == pytest.approx(bands.estimate[ia, j] - bands.estimate[ib, j])
    assert leader_is_clear(contrasts, depth, "strong", ["strong", "noise"]) is True
    (depth_table,) = [t for t in section_tables(ev, "targeting") if "depth" in t.caption]
    named = [row.cells[-1].text for row in depth_table.rows]
    assert "strong" in named  # a strong model against noise is clearly ahead somewhere
    assert all(text == "strong" or text.startswith(("no clear", "not tested")) for text in named)
    assert "Holm" in depth_table.note


def test_log_axes_are_labelled_in_plain_numbers():
    """A long-tailed target gets log axes; their tick labels are plain numbers, not the raw
    mathtext (``$\\mathdefault{10^{3}}$``) that the report's verbatim text would print."""
    pytest.importorskip("matplotlib")
    import base64
    import re

    import matplotlib

    from ranklens.report.diagnostics import predicted_vs_actual
    from ranklens.report.figures import _STYLE, figure_to_img

    rng = np.random.default_rng(5)
    y = rng.lognormal(1.0, 1.5, 3000)  # long-tailed: max far above 20 x the median
    ev = evaluate_models(
        y, {"m": y * rng.lognormal(0.0, 0.3, 3000)}, curves=False, robustness=False
    )
    with matplotlib.rc_context(_STYLE):
        title, caption, figure, _ = predicted_vs_actual(ev)
        svg = figure_to_img(figure, alt=title, salt="t")
    text = base64.b64decode(re.search(r"base64,([^\"]+)", svg).group(1)).decode()
    assert "logarithmic" in caption
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", text)
    assert "mathdefault" not in text and not any("$" in label for label in labels)
    assert {"0.1", "1", "10", "100"} <= set(labels)
