"""Analytic inference in the evaluation pipeline: DeLong and Noether where declared, else bootstrap.

``evaluate_models(inference="auto")`` (the default) takes each measure's interval and paired
test from the analytic method its registry entry declares and the paired bootstrap for the rest;
every number says where it came from. The references are the library's own analytic functions on
the same data (:func:`ranklens.delong_interval`, :func:`ranklens.delong_test`, the Noether
interval of :func:`ranklens.ranking_summary`), themselves checked against pROC and published
numbers in ``test_delong_proc.py`` and ``test_ranking.py``; ``inference="bootstrap"`` is checked
against :func:`ranklens.compare_models` itself.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from ranklens import compare_models, delong_interval, delong_test, ranking_summary
from ranklens.evaluation import (
    EvaluationComparison,
    evaluate_models,
    evaluation_to_json,
    interval_methods,
    paired_test_methods,
)

B = 120
SEED = 3
DELONG = ("roc_auc", "tau_normalized", "somers_d")


def _task(rng, n=160, binary=False):
    latent = rng.normal(size=n)
    if binary:
        y = (latent + rng.normal(scale=0.8, size=n) > 0.3).astype(float)
    else:
        # ties in y_true and in the predictions
        y = np.round(np.exp(latent), 1)
    preds = {
        "a": np.round(latent + rng.normal(scale=0.6, size=n), 1),
        "b": np.round(latent + rng.normal(scale=1.2, size=n), 1),
    }
    return y, preds


def _evaluate(y, preds, **kwargs):
    return evaluate_models(
        y,
        preds,
        n_bootstrap=B,
        random_state=SEED,
        curves=False,
        robustness=False,
        bootstrap_budget_s=float("inf"),
        **kwargs,
    )


@pytest.fixture(scope="module")
def continuous():
    rng = np.random.default_rng(1988)
    y, preds = _task(rng)
    return y, preds, _evaluate(y, preds), _evaluate(y, preds, inference="bootstrap")


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(2014)
    y, preds = _task(rng, binary=True)
    return y, preds, _evaluate(y, preds)


def _row(comparison, metric):
    return comparison.metrics.index(metric)


def test_methods_are_read_from_the_registry(continuous):
    _, _, auto, boot = continuous
    comparison = auto.comparison
    assert isinstance(comparison, EvaluationComparison) and comparison.method == "auto"
    methods = dict(zip(comparison.metrics, interval_methods(comparison), strict=True))
    tests = dict(zip(comparison.metrics, paired_test_methods(comparison), strict=True))
    for metric in DELONG:
        assert methods[metric] == "delong" and tests[metric] == "delong", metric
        assert comparison.evaluation[_row(comparison, metric)] == "analytic"
    assert methods["kendall_tau"] == "noether" and tests["kendall_tau"] == "bootstrap"
    assert methods["root_mean_squared_error"] == "bootstrap-bca"
    assert tests["root_mean_squared_error"] == "bootstrap"
    # the bootstrap mode: the paired bootstrap throughout, compare_models' own result type
    assert type(boot.comparison).__name__ == "ComparisonResult"
    assert set(interval_methods(boot.comparison)) == {"bootstrap-bca"}
    assert set(paired_test_methods(boot.comparison)) == {"bootstrap"}
    assert set(auto.comparison.metrics) == set(boot.comparison.metrics)


@pytest.mark.parametrize("case", ["continuous", "binary"])
def test_delong_rows_equal_delong_interval_and_test(case, request):
    y, preds, ev = request.getfixturevalue(case)[:3]
    comparison = ev.comparison
    measures = ("tau_normalized", "somers_d") + (("roc_auc",) if case == "binary" else ())
    test = delong_test(y, preds["a"], preds["b"])
    for metric in measures:
        k = _row(comparison, metric)
        # Somers' D = 2 C - 1: the same interval, mapped
        slope, intercept = (2.0, -1.0) if metric == "somers_d" else (1.0, 0.0)
        for m, model in enumerate(comparison.models):
            ref = delong_interval(y, preds[model])
            assert comparison.values[k, m] == pytest.approx(intercept + slope * ref.estimate)
            assert comparison.std_error[k, m] == pytest.approx(slope * ref.std_error, rel=1e-12)
            assert comparison.ci_lower[k, m] == pytest.approx(intercept + slope * ref.ci[0])
            assert comparison.ci_upper[k, m] == pytest.approx(intercept + slope * ref.ci[1])
        assert comparison.difference[k, 0] == pytest.approx(slope * test.difference)
        assert comparison.difference_sd[k, 0] == pytest.approx(
            slope * test.difference_std_error, rel=1e-12
        )
        assert comparison.z[k, 0] == pytest.approx(test.z, rel=1e-12)
        assert comparison.p_value[k, 0] == pytest.approx(test.p_value, rel=1e-12)
        assert comparison.difference_ci_lower[k, 0] == pytest.approx(slope * test.difference_ci[0])
        assert comparison.difference_ci_upper[k, 0] == pytest.approx(slope * test.difference_ci[1])
        assert np.isnan(comparison.replicates[:, k]).all()


def test_binary_auc_is_delong_without_task_parameters(binary):
    y, preds, ev = binary
    k = _row(ev.comparison, "roc_auc")
    assert ev.comparison.interval_methods[k] == "delong"
    assert ev.values["a"]["roc_auc"] == pytest.approx(delong_interval(y, preds["a"]).estimate)


def test_noether_interval_equals_ranking_summary(continuous):
    y, preds, auto, boot = continuous
    comparison = auto.comparison
    k = _row(comparison, "kendall_tau")
    for m, model in enumerate(comparison.models):
        summary = ranking_summary(y, preds[model])
        ci = summary.confidence_interval(0.95)
        assert (comparison.ci_lower[k, m], comparison.ci_upper[k, m]) == pytest.approx(tuple(ci))
        assert comparison.std_error[k, m] == pytest.approx(
            np.sqrt(summary.tau_variance_unbiased), rel=1e-12
        )
        assert comparison.variance_unbiased[k, m] == summary.tau_variance_unbiased
    # Its paired test stays the bootstrap's, with the same replicates as the bootstrap mode.
    j = _row(boot.comparison, "kendall_tau")
    for field in ("difference_sd", "p_value", "difference_ci_lower", "difference_ci_upper"):
        np.testing.assert_array_equal(
            getattr(comparison, field)[k], getattr(boot.comparison, field)[j], err_msg=field
        )
    np.testing.assert_array_equal(comparison.replicates[:, k], boot.comparison.replicates[:, j])


def test_bootstrap_rows_are_unchanged(continuous):
    """Measures without analytic inference have the bootstrap mode's numbers in auto mode."""
    _, _, auto, boot = continuous
    fields = ("values", "std_error", "ci_lower", "ci_upper", "difference_sd", "p_value")
    for metric in ("root_mean_squared_error", "mean_absolute_error", "spearman_rho"):
        k, j = _row(auto.comparison, metric), _row(boot.comparison, metric)
        for field in fields:
            np.testing.assert_array_equal(
                getattr(auto.comparison, field)[k], getattr(boot.comparison, field)[j]
            )


def test_bootstrap_mode_reproduces_compare_models(continuous):
    y, preds, _, boot = continuous
    metrics = ["root_mean_squared_error", "kendall_tau", "tau_normalized", "somers_d"]
    ref = compare_models(y, preds, metrics=metrics, n_bootstrap=B, random_state=SEED)
    for metric in metrics:
        k, j = _row(boot.comparison, metric), _row(ref, metric)
        for field in ("values", "std_error", "ci_lower", "ci_upper", "p_value"):
            np.testing.assert_allclose(
                getattr(boot.comparison, field)[k], getattr(ref, field)[j], rtol=1e-12
            )


def test_the_budget_spends_no_replicate_on_analytic_measures(monkeypatch, rng):
    import ranklens.evaluation

    seen = []
    real = ranklens.evaluation.plan_bootstrap

    def spy(y, preds, specs, *args, **kwargs):
        seen.append([s.name for s in specs])
        return real(y, preds, specs, *args, **kwargs)

    monkeypatch.setattr(ranklens.evaluation, "plan_bootstrap", spy)
    y, preds = _task(rng, n=80)
    _evaluate(y, preds)
    _evaluate(y, {"a": preds["a"]})
    _evaluate(y, preds, inference="bootstrap")
    two, one, boot = (set(names) for names in seen)
    assert not two & set(DELONG) and "kendall_tau" in two  # tau's paired test needs replicates
    assert not one & {*DELONG, "kendall_tau"}  # one model: nothing to test, all analytic
    assert {*DELONG, "kendall_tau"} <= boot


def test_one_model_gets_analytic_intervals_without_replicates(rng):
    y, preds = _task(rng, n=90)
    ev = _evaluate(y, {"a": preds["a"]})
    comparison = ev.comparison
    k = _row(comparison, "kendall_tau")
    assert comparison.test_methods[k] == "" and comparison.evaluation[k] == "analytic"
    ci = ranking_summary(y, preds["a"]).confidence_interval()
    assert (comparison.ci_lower[k, 0], comparison.ci_upper[k, 0]) == pytest.approx(tuple(ci))
    assert "paired tests" not in ev.settings  # one model: no pair to test


def test_weights_keep_delong_and_bootstrap_tau(rng):
    y, preds = _task(rng, n=120)
    w = rng.integers(1, 4, size=y.size).astype(float)
    ev = _evaluate(y, preds, sample_weight=w)
    comparison = ev.comparison
    k = _row(comparison, "tau_normalized")
    assert comparison.interval_methods[k] == "delong"
    ref = delong_interval(y, preds["b"], sample_weight=w)
    assert comparison.ci_lower[k, 1] == pytest.approx(ref.ci[0])
    # Noether's variance needs a number of observations, which case weights do not define.
    assert comparison.interval_methods[_row(comparison, "kendall_tau")] == "bootstrap-bca"


def test_task_parameters_fall_back_to_the_bootstrap(rng):
    """A measure with bound parameters is another function than the one its capabilities
    describe: ``roc_auc`` with ``events`` given is bootstrapped."""
    y, preds = _task(rng, n=120)
    ev = _evaluate(y, preds, events="top:0.2")
    k = _row(ev.comparison, "roc_auc")
    assert ev.comparison.interval_methods[k] == "bootstrap-bca"
    assert ev.comparison.test_methods[k] == "bootstrap"


def test_settings_and_json_say_where_each_number_came_from(continuous):
    from test_report import _schema, _validate

    _, _, auto, boot = continuous
    assert auto.settings["inference"] == "auto"
    intervals = auto.settings["intervals"]
    assert intervals.startswith("DeLong (DeLong, DeLong & Clarke-Pearson 1988) for ")
    assert "Noether (1967) for kendall_tau" in intervals
    assert intervals.endswith(f"paired bootstrap, BCa (Efron 1987), {B} resamples, elsewhere")
    assert "DeLong" in auto.settings["paired tests"]
    assert boot.settings["intervals"] == f"paired bootstrap, BCa (Efron 1987), {B} resamples, " + (
        "for " + ", ".join(boot.comparison.metrics[:-1]) + " and " + boot.comparison.metrics[-1]
    )
    schema = _schema()
    for ev in (auto, boot):
        doc = json.loads(json.dumps(evaluation_to_json(ev, include_replicates=True)))
        _validate(doc, schema)
        assert doc["schema_version"] == "2.1"
    doc = evaluation_to_json(auto)
    comparison = auto.comparison
    assert doc["comparison"]["method"] == "auto"
    record = doc["models"]["a"]["tau_normalized"]
    k = _row(comparison, "tau_normalized")
    assert record["interval_method"] == "delong"
    assert record["ci_low"] == pytest.approx(comparison.ci_lower[k, 0])
    assert doc["models"]["a"]["kendall_tau"]["interval_method"] == "noether"
    assert doc["models"]["a"]["root_mean_squared_error"]["interval_method"] == "bootstrap-bca"
    assert doc["models"]["a"]["pmap"]["interval_method"] is None  # not resampled, no interval
    by_measure = {r["measure"]: r for r in doc["comparisons"]}
    assert by_measure["somers_d"]["test_method"] == "delong"
    assert by_measure["somers_d"]["interval_method"] == "delong"
    assert by_measure["kendall_tau"]["test_method"] == "bootstrap"
    assert by_measure["kendall_tau"]["interval_method"] == "bootstrap-bca"
    plain = evaluation_to_json(boot)
    assert {r["test_method"] for r in plain["comparisons"]} == {"bootstrap"}


def test_report_and_terminal_say_which_method(continuous):
    from rich.console import Console

    from ranklens.report import render_html
    from ranklens.report.terminal import summary_table

    _, _, auto, boot = continuous
    page = render_html(auto, figures=False)
    assert "DeLong (DeLong, DeLong &amp; Clarke-Pearson 1988) for " in page
    assert "Noether (1967) for kendall tau" in page  # the measures table's note
    assert f"paired bootstrap ({B} resamples) for the others" in page
    assert "tau normalized (↑ higher is better; DeLong (DeLong, DeLong" in page  # pairs table
    assert "Paired tests: DeLong" in page
    assert "Noether (1967) for kendall_tau" in page  # the settings
    console = Console(width=300, record=True)
    console.print(summary_table(auto))
    text = " ".join(console.export_text().split())  # the caption wraps at the table's width
    assert "intervals: DeLong" in text and "Noether (1967) for kendall_tau" in text
    page = render_html(boot, figures=False)
    assert "DeLong (DeLong" not in page and f"paired bootstrap ({B} resamples)" in page


def test_inference_is_checked():
    with pytest.raises(ValueError, match="inference must be one of"):
        evaluate_models([1.0, 2.0, 3.0], {"a": [1.0, 3.0, 2.0]}, inference="delong")


def test_cli_inference_option(tmp_path, rng):
    import pandas as pd
    from typer.testing import CliRunner

    from ranklens.cli import app

    y, preds = _task(rng, n=80)
    path = tmp_path / "scores.csv"
    pd.DataFrame({"y": y, **preds}).to_csv(path, index=False)
    runner = CliRunner()
    docs = {}
    for choice in ("auto", "bootstrap"):
        out = tmp_path / f"{choice}.json"
        args = ["evaluate", str(path), "-t", "y", "-p", "a", "-p", "b", "--bootstrap", "40"]
        result = runner.invoke(app, [*args, "--inference", choice, "--json", str(out), "-q"])
        assert result.exit_code == 0, result.output
        docs[choice] = json.loads(out.read_text())
    assert docs["auto"]["models"]["a"]["tau_normalized"]["interval_method"] == "delong"
    assert docs["auto"]["settings"]["inference"] == "auto"
    assert docs["bootstrap"]["models"]["a"]["tau_normalized"]["interval_method"] == (
        "bootstrap-bca"
    )
    ref = delong_interval(y, preds["a"])
    assert docs["auto"]["models"]["a"]["tau_normalized"]["ci_low"] == pytest.approx(ref.ci[0])
    result = runner.invoke(app, ["evaluate", str(path), "-t", "y", "-p", "a", "--inference", "x"])
    assert result.exit_code == 2 and "--inference must be one of auto, bootstrap" in result.output


def test_no_replicates_still_gives_the_analytic_intervals_and_tests(continuous):
    """``n_bootstrap=0`` draws nothing: DeLong's and Noether's numbers remain, equal to the
    ones of a run with replicates; the rest has no interval and tau's pairs are not tested."""
    y, preds, auto, _ = continuous
    ev = evaluate_models(y, preds, n_bootstrap=0, curves=False, robustness=False)
    comparison = ev.comparison
    assert comparison.n_bootstrap == 0 and comparison.interval == "none"
    assert set(comparison.metrics) == {*DELONG, "kendall_tau"}
    fields = ("values", "std_error", "ci_lower", "ci_upper")
    for metric in comparison.metrics:
        k, j = _row(comparison, metric), _row(auto.comparison, metric)
        for field in fields:
            np.testing.assert_array_equal(
                getattr(comparison, field)[k], getattr(auto.comparison, field)[j], err_msg=field
            )
        if metric in DELONG:
            for field in ("difference_sd", "p_value", "difference_ci_lower"):
                np.testing.assert_array_equal(
                    getattr(comparison, field)[k], getattr(auto.comparison, field)[j]
                )
    k = _row(comparison, "kendall_tau")
    assert comparison.test_methods[k] == "" and np.isnan(comparison.p_value[k]).all()
    assert ev.settings["intervals"].startswith("DeLong (DeLong, DeLong & Clarke-Pearson 1988)")
    assert "not resampled" in ev.settings["paired tests"]
    assert "random_state" not in ev.settings and "bootstrap time" not in ev.settings
    # the bootstrap mode with no replicates has nothing to give
    none = evaluate_models(
        y, preds, n_bootstrap=0, inference="bootstrap", curves=False, robustness=False
    )
    assert none.comparison is None and "intervals" not in none.settings
