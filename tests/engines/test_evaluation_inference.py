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

import ranklens as rl
from emulated_device import on_device
from ranklens import compare_models, delong_interval, delong_test, evaluate_models, ranking_summary
from ranklens.evaluation import (
    EvaluationComparison,
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
        assert methods[metric] == "delong-logit" and tests[metric] == "delong", metric
        assert comparison.evaluation[_row(comparison, metric)] == "analytic"
    assert methods["kendall_tau"] == "fisher-z" and tests["kendall_tau"] == "bootstrap"
    assert methods["root_mean_squared_error"] == "bootstrap-studentized"
    assert tests["root_mean_squared_error"] == "bootstrap"
    # the bootstrap mode: the paired bootstrap throughout, compare_models' own result type
    assert type(boot.comparison).__name__ == "ComparisonResult"
    assert set(interval_methods(boot.comparison)) == {"bootstrap-bca", "bootstrap-studentized"}
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
    assert ev.comparison.interval_methods[k] == "delong-logit"
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
    assert comparison.interval_methods[k] == "delong-logit"
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
    from report_schema import results_schema, validate

    _, _, auto, boot = continuous
    assert auto.settings["inference"] == "auto"
    intervals = auto.settings["intervals"]
    assert intervals.startswith("DeLong on the logit scale (DeLong, DeLong & Clarke-Pearson")
    assert "Fisher's z (Fieller, Hartley & Pearson 1957" in intervals
    assert "for kendall_tau" in intervals
    assert f"symmetric bootstrap-t (Hall 1988), {B} resamples, for " in intervals
    assert intervals.endswith(f"paired bootstrap, BCa (Efron 1987), {B} resamples, elsewhere")
    assert "DeLong" in auto.settings["paired tests"]
    assert boot.settings["intervals"].startswith(
        f"paired bootstrap, symmetric bootstrap-t (Hall 1988), {B} resamples, for "
    )
    schema = results_schema()
    for ev in (auto, boot):
        doc = json.loads(json.dumps(evaluation_to_json(ev, include_replicates=True)))
        validate(doc, schema)
        assert doc["schema_version"] == "2.7"
    doc = evaluation_to_json(auto)
    comparison = auto.comparison
    assert doc["comparison"]["method"] == "auto"
    record = doc["models"]["a"]["tau_normalized"]
    k = _row(comparison, "tau_normalized")
    assert record["interval_method"] == "delong-logit"
    assert record["ci_low"] == pytest.approx(comparison.ci_lower[k, 0])
    assert doc["models"]["a"]["kendall_tau"]["interval_method"] == "fisher-z"
    assert doc["models"]["a"]["root_mean_squared_error"]["interval_method"] == (
        "bootstrap-studentized"
    )
    assert doc["models"]["a"]["pmap"]["interval_method"] is None  # not resampled, no interval
    by_measure = {r["measure"]: r for r in doc["comparisons"]}
    assert by_measure["somers_d"]["test_method"] == "delong"
    assert by_measure["somers_d"]["interval_method"] == "delong"
    assert by_measure["kendall_tau"]["test_method"] == "bootstrap"
    assert by_measure["kendall_tau"]["interval_method"] == "bootstrap-percentile"
    plain = evaluation_to_json(boot)
    assert {r["test_method"] for r in plain["comparisons"]} == {"bootstrap"}


def test_report_and_terminal_say_which_method(continuous):
    from rich.console import Console

    from ranklens.report import render_html
    from ranklens.report.terminal import summary_table

    _, _, auto, boot = continuous
    page = render_html(auto, figures=False)
    assert "DeLong on the logit scale (DeLong, DeLong &amp; Clarke-Pearson 1988" in page
    assert "Newson 2006) for Kendall&#39;s tau" in page  # the measures table's note
    assert f"paired bootstrap ({B} resamples) for the others" in page
    assert "share of pairs ordered right (↑ higher is better; DeLong (DeLong, DeLong" in page
    assert "Paired tests: DeLong" in page
    # the settings name the measures in readers' words too
    assert "for kendall_tau" not in page and "for Kendall&#39;s tau" in page
    console = Console(width=300, record=True)
    console.print(summary_table(auto))
    text = " ".join(console.export_text().split())  # the caption wraps at the table's width
    assert "intervals: DeLong" in text and "Newson 2006) for kendall_tau" in text
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
    assert docs["auto"]["models"]["a"]["tau_normalized"]["interval_method"] == "delong-logit"
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
    assert ev.settings["intervals"].startswith("DeLong on the logit scale (DeLong, DeLong")
    assert "not resampled" in ev.settings["paired tests"]
    assert "random_state" not in ev.settings and "bootstrap time" not in ev.settings
    # the bootstrap mode with no replicates has nothing to give
    none = evaluate_models(
        y, preds, n_bootstrap=0, inference="bootstrap", curves=False, robustness=False
    )
    assert none.comparison is None and "intervals" not in none.settings


# --------------------------------------------------------------------------------------------
# Inputs refused at the call, before any work


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"n_bootstrap": 1}, r"n_bootstrap must be an integer >= 2; got 1 \(or 0"),
        ({"n_bootstrap": 2.5}, "n_bootstrap must be an integer >= 2; got 2.5"),
        ({"n_bootstrap": True}, "n_bootstrap must be an integer >= 2; got True"),
        ({"n_bootstrap": -3}, "n_bootstrap must be an integer >= 2; got -3"),
        ({"n_bootstrap": 20, "random_state": -1}, "random_state must be None, an integer >= 0"),
        ({"n_bootstrap": 20, "random_state": 2.5}, "random_state must be .* got 2.5"),
        ({"n_bootstrap": 20, "random_state": "x"}, "random_state must be .* got 'x'"),
    ],
)
def test_bootstrap_settings_are_checked_at_the_call(rng, monkeypatch, kwargs, pattern):
    """They used to drop the comparison without a word (1, 2.5) or fail inside it (-1)."""
    import ranklens.evaluation as evaluation

    def no_work(*args, **kwargs):
        raise AssertionError("measures computed for bad input")

    monkeypatch.setattr(evaluation, "score_registered_metrics", no_work)
    y, preds = _task(rng)
    with pytest.raises(ValueError, match=pattern):
        evaluate_models(y, preds, curves=False, robustness=False, **kwargs)


def test_a_valid_seed_is_kept(rng):
    y, preds = _task(rng)
    for seed in (None, np.int64(5)):
        ev = evaluate_models(
            y, preds, n_bootstrap=20, random_state=seed, curves=False, robustness=False
        )
        assert ev.comparison is not None and ev.settings["random_state"] == seed


@pytest.mark.parametrize(
    ("events", "pattern"),
    [
        ("top:0.1", r"events='top:0.1' marks every row as an event \(y >= 0; event share 1\)"),
        (">=2", r"events='>=2' marks no row as an event \(y >= 2\)"),
        (-1.0, r"events=-1.0 marks every row as an event \(y >= -1\)"),
    ],
)
def test_events_that_do_not_split_the_target_are_refused(events, pattern):
    """A 0/1 target with 5 % events: top:0.1 reaches down to the zeros, so every row was an
    event (AUC undefined, every lift 1, gain area 1/2) and the evaluation went on."""
    from ranklens import gain_area, lift_at_10, roc_auc, roc_curve
    from ranklens.targeting import check_events

    y = np.r_[np.ones(10), np.zeros(190)]
    score = np.arange(200.0)[::-1]
    with pytest.raises(ValueError, match=pattern):
        evaluate_models(y, {"a": score}, curves=False, robustness=False, events=events)
    for measure in (roc_auc, lift_at_10, gain_area, check_events):
        with pytest.raises(ValueError, match=pattern):
            measure(y, score, events=events) if measure is not check_events else measure(y, events)
    with pytest.raises(ValueError, match="the target has only the values 0 and 1"):
        roc_curve(y, score, events=events)
    # the labels themselves: every event ranked first
    assert roc_auc(y, score, events=">0") == roc_auc(y, score) == 1.0
    assert lift_at_10(y, score, events=">0") == pytest.approx(10 / 20 / 0.05)


def test_top_fraction_far_from_q_on_a_01_target_is_refused():
    """30 % events, top:0.1: the quantile falls on the tie at 1, the events are the labels
    (share 0.3, not 0.1); top:0.2 (share 0.3 at most twice q) still runs."""
    from ranklens import roc_auc
    from ranklens.targeting import check_events

    y = np.r_[np.ones(30), np.zeros(70)]
    score = np.r_[np.linspace(1, 2, 30), np.linspace(0, 1.5, 70)]
    with pytest.raises(ValueError, match=r"event share of 30.0%, not 10.0%"):
        roc_auc(y, score, events="top:0.1")
    assert check_events(y, "top:0.2") == "top:0.2 (y >= 1; event share 0.3)"
    assert roc_auc(y, score, events="top:0.2") == roc_auc(y, score)
    # weights: the rows of weight 0 are left out, as by the measures
    w = np.r_[np.ones(5), np.zeros(25), np.ones(70)]
    assert check_events(y, "top:0.05", sample_weight=w).endswith("event share 0.06667)")
    with pytest.raises(ValueError, match="marks every row as an event"):
        check_events(y, "top:0.1", sample_weight=w)  # 5 events in 75 rows of weight


def test_default_events_of_a_constant_target_stay_undefined():
    """Only a rule the caller gave is refused; the default stays NaN with its warning."""
    from ranklens import roc_auc
    from ranklens.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="no non-events"):
        assert np.isnan(roc_auc([2.5, 2.5, 2.5], [1, 2, 3]))


def _units(n, k):
    return np.arange(n) % k


def test_groups_need_ten_units(rng):
    """--groups segment over 3 segments ran a clustered bootstrap of 3 units: 10 distinct
    resamples. Refused below 10 units by every entry point; 10 units run."""
    from ranklens import curve_bands

    y, preds = _task(rng)
    n = y.shape[0]
    pattern = "groups names 3 distinct units; the clustered bootstrap needs at least 10"
    with pytest.raises(ValueError, match=pattern):
        _evaluate(y, preds, groups=_units(n, 3))
    with pytest.raises(ValueError, match="only 10 distinct resamples"):
        compare_models(y, preds, n_bootstrap=20, groups=_units(n, 3))
    with pytest.raises(ValueError, match="groups names 9 distinct units"):
        curve_bands(y, preds, n_bootstrap=20, groups=_units(n, 9))
    with pytest.raises(ValueError, match="it does not split the evaluation by unit"):
        _evaluate(y, preds, groups=_units(n, 9))
    ev = _evaluate(y, preds, groups=_units(n, 10))
    assert ev.settings["n_units"] == 10


def test_groups_as_a_one_column_frame(rng):
    """A one-column DataFrame (pandas, polars) is the column of unit ids: the same numbers as
    the Series, under its name; more columns are refused, naming them."""
    import pandas as pd
    import polars as pl

    y, preds = _task(rng)
    units = _units(y.shape[0], 12)
    series = _evaluate(y, preds, groups=pd.Series(units, name="customer"))
    for frame in (pd.DataFrame({"customer": units}), pl.DataFrame({"customer": units})):
        ev = _evaluate(y, preds, groups=frame)
        assert (ev.settings["groups"], ev.settings["n_units"]) == ("customer", 12)
        np.testing.assert_array_equal(ev.comparison.ci_lower, series.comparison.ci_lower)
        np.testing.assert_array_equal(ev.comparison.p_value, series.comparison.p_value)
    direct = compare_models(y, preds, n_bootstrap=30, random_state=1, groups=units)
    framed = compare_models(
        y, preds, n_bootstrap=30, random_state=1, groups=pd.DataFrame({"u": units})
    )
    np.testing.assert_array_equal(framed.replicates, direct.replicates)
    two = pd.DataFrame({"customer": units, "day": units % 3})
    with pytest.raises(ValueError, match=r"DataFrame with 2 columns \(customer, day\)"):
        _evaluate(y, preds, groups=two)


def test_decimals_are_numbers():
    """decimal.Decimal (what databases hand out for NUMERIC) was refused as not a number."""
    from decimal import Decimal

    from ranklens import mean_absolute_error, roc_auc

    y = [1.5, 2.0, 3.25, 4.0, 0.5]
    pred = [1.0, 2.5, 3.0, 5.0, 0.0]
    as_decimal = [Decimal(str(v)) for v in y]
    want = mean_absolute_error(y, pred)
    assert mean_absolute_error(as_decimal, pred) == want
    assert mean_absolute_error(np.array(as_decimal, dtype=object), pred) == want
    assert mean_absolute_error(y, [Decimal(str(v)) for v in pred]) == want
    assert roc_auc(as_decimal, pred, events=">=2") == roc_auc(y, pred, events=">=2")
    ev = evaluate_models(as_decimal, {"a": pred}, curves=False, robustness=False)
    assert ev.values["a"]["mean_absolute_error"] == want
    with pytest.raises(ValueError, match="y_true"):  # Decimal('NaN') is missing, as NaN is
        mean_absolute_error([*as_decimal[:-1], Decimal("NaN")], pred)


def test_device_path_refuses_the_same_events(monkeypatch):
    """The device path (here the NumPy namespace) refuses what the CPU refuses, in its words."""
    from ranklens import decile_table, lift_at_10, roc_auc
    from ranklens._compute.xp import measures as xm

    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: np)
    y = np.r_[np.ones(30), np.zeros(70)]
    score = np.r_[np.linspace(1, 2, 30), np.linspace(0, 1.5, 70)]
    w = np.r_[np.full(50, 2.0), np.ones(50)]
    for events in ("top:0.1", "top:0.5", ">=2", ">-1"):
        for func in (roc_auc, lift_at_10, decile_table):
            for weight in (None, w):
                with pytest.raises(ValueError) as cpu:
                    func(y, score, events=events, sample_weight=weight)
                with pytest.raises(ValueError) as gpu:
                    func(on_device(y), score, events=events, sample_weight=weight)
                assert str(gpu.value) == str(cpu.value)
                assert str(cpu.value).startswith(f"events={events!r} ")
    assert roc_auc(on_device(y), score, events="top:0.2") == roc_auc(y, score)


def test_the_analytic_step_reports_progress_model_by_model():
    # at millions of rows each model's analytic variances take seconds: a line for each, so
    # that the progress is never silent through the whole step
    rng = np.random.default_rng(41)
    y = rng.normal(size=300)
    preds = {"a": y + rng.normal(size=300), "b": y + rng.normal(scale=2.0, size=300)}
    seen: list[str] = []
    evaluate_models(
        y, preds, n_bootstrap=0, curves=False, robustness=False, on_progress=seen.append
    )
    steps = [s for s in seen if s.startswith("analytic intervals and tests")]
    assert steps == [
        "analytic intervals and tests (1/3): DeLong",
        "analytic intervals and tests (2/3): a",
        "analytic intervals and tests (3/3): b",
    ]


def test_the_evaluation_comparison_can_be_planned_from() -> None:
    """An evaluation's comparison records the rows it compared and each measure's class sizes,
    so ranklens.planning reads it as it reads compare_models' result: the DeLong AUC row plans
    the rows of compare_models(method="delong") on the same data."""
    rng = np.random.default_rng(0)
    n = 400
    y = rng.normal(size=n)
    preds = {"a": y + rng.normal(size=n), "b": y + 1.3 * rng.normal(size=n)}
    ev = rl.evaluate_models(y, preds, n_bootstrap=50, curves=False, robustness=False)
    comparison = ev.comparison
    assert comparison.n_units == n
    k = comparison.metrics.index("roc_auc")
    direct = rl.compare_models(y, preds, metrics=["roc_auc"], method="delong")
    assert comparison.n_events[k] == direct.n_events[0] == 40  # the top 10 % by default
    got = rl.required_sample_size(comparison, metric="roc_auc").to_frame()
    want = rl.required_sample_size(direct, metric="roc_auc").to_frame()
    np.testing.assert_allclose(got["required_n"], want["required_n"], rtol=1e-12)
    mae = rl.detectable_difference(comparison, metric="mean_absolute_error").to_frame()
    assert np.isfinite(mae["detectable_difference"]).all()
