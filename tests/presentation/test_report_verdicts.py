"""The Summary's verdicts: one Holm family over every pair of models, tests that keep their
method at the adjusted level, measures with undefined replicates left untested, and the
verdicts as data in ``results.json``."""

from __future__ import annotations

import json
import math
import types
import warnings
from importlib import resources

import numpy as np
import pytest

from ranklens import compare_models
from ranklens._foundation.interval_formulas import studentized_interval_at, studentized_p_value
from ranklens.report import evaluate_models, evaluation_to_json
from ranklens.report.goals import summary_verdicts
from ranklens.report.significance import (
    MAX_UNDEFINED_SHARE,
    Contrast,
    holm_contrasts,
    pair_contrast,
    symmetric_interval_at,
    symmetric_p_value,
)

RANKING = {"family": "ranking", "direction": "higher", "higher_is_better": True}
ERRORS = {"family": "residual", "direction": "lower", "higher_is_better": False}


def _check(instance, schema, root=None, path="$"):
    """The JSON Schema keywords results.schema.json uses (type, enum, required, properties,
    additionalProperties, items, $ref, minimum, maximum)."""
    root = root or schema
    if "$ref" in schema:
        return _check(instance, root["$defs"][schema["$ref"].split("/")[-1]], root, path)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        types_of = {
            "object": dict,
            "array": list,
            "string": str,
            "boolean": bool,
            "null": type(None),
        }
        ok = any(
            (k == "number" and isinstance(instance, int | float) and not isinstance(instance, bool))
            or (k == "integer" and isinstance(instance, int) and not isinstance(instance, bool))
            or (k in types_of and isinstance(instance, types_of[k]))
            for k in kinds
        )
        assert ok, f"{path}: {instance!r:.60} is not {kinds}"
    if "enum" in schema:
        assert instance in schema["enum"], f"{path}: {instance!r} not in {schema['enum']}"
    if "minimum" in schema and instance is not None:
        assert instance >= schema["minimum"], path
    if "maximum" in schema and instance is not None:
        assert instance <= schema["maximum"], path
    if isinstance(instance, dict):
        for key in schema.get("required", ()):
            assert key in instance, f"{path}: missing {key!r}"
        extra = schema.get("additionalProperties", True)
        for key, value in instance.items():
            if key in schema.get("properties", {}):
                _check(value, schema["properties"][key], root, f"{path}.{key}")
            else:
                assert extra is not False, f"{path}: unexpected {key!r}"
    if isinstance(instance, list) and "items" in schema:
        for k, item in enumerate(instance):
            _check(item, schema["items"], root, f"{path}[{k}]")
    return None


def _data(n, sds, seed, binary=False):
    """A shared latent; model j predicts it with error sd ``sds[j]``."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    y = (z > 0.8416).astype(float) if binary else z
    return y, {f"m{j + 1}": z + sd * rng.normal(size=n) for j, sd in enumerate(sds)}


def _evaluate(y, preds, n_bootstrap=300):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_models(
            y, preds, n_bootstrap=n_bootstrap, random_state=0, robustness=False, curves=False
        )


def _fake_evaluation(p_values, *, replicates=None, metric="tau_normalized", info=RANKING):
    """Three models a, b, c compared on one measure by a stored comparison with the given
    p-values (pairs ab, ac, bc), a the best; DeLong's test unless replicates are given."""
    models = ("a", "b", "c")
    pairs = (("a", "b"), ("a", "c"), ("b", "c"))
    values = np.array([[0.80, 0.75, 0.74]])
    if info["direction"] == "lower":
        values = np.array([[0.74, 0.75, 0.80]])
    difference = np.array([[values[0, 0] - values[0, 1], values[0, 0] - values[0, 2], 0.01]])
    bootstrap = replicates is not None
    comparison = types.SimpleNamespace(
        method="auto",
        metrics=(metric,),
        models=models,
        pairs=pairs,
        values=values,
        difference=difference,
        difference_sd=np.full((1, 3), 0.02),
        p_value=np.array([p_values], dtype=float),
        test_methods=("bootstrap" if bootstrap else "delong",),
        interval="percentile",
        replicates=replicates if bootstrap else np.empty((0, 1, 3)),
        n_bootstrap=replicates.shape[0] if bootstrap else 0,
        n_undefined=(~np.isfinite(replicates)).sum(axis=0)
        if bootstrap
        else np.zeros((1, 3), dtype=int),
    )
    return types.SimpleNamespace(
        metrics={metric: info},
        values={m: {metric: float(values[0, j])} for j, m in enumerate(models)},
        model_names=models,
        comparison=comparison,
        settings={},
        problems={},
        extras={},
        n=100,
    )


def test_the_summary_block_validates_against_the_schema():
    y, preds = _data(150, [1.0, 1.0, 0.8], seed=1)
    evaluation = _evaluate(y, preds, n_bootstrap=200)
    doc = json.loads(json.dumps(evaluation_to_json(evaluation), allow_nan=False))
    schema = json.loads(
        resources.files("ranklens.report").joinpath("results.schema.json").read_text()
    )
    _check(doc, schema)
    summary = doc["summary"]
    assert doc["schema_version"] == "2.7" and summary["procedure"] == "holm"
    assert summary["max_undefined_share"] == MAX_UNDEFINED_SHARE
    goals = {g["goal"]: g for g in summary["goals"]}
    assert {"ranking", "targeting", "errors"} <= set(goals)
    for goal in goals.values():
        # every pair of the three models, not only the pick's two comparisons
        assert len(goal["contrasts"]) == 3
        for c in goal["contrasts"]:
            assert c["tested"] == (c["p_value_holm"] is not None)
            if c["tested"]:
                assert c["interval"]["method"] == c["test_method"]
    assert goals["ranking"]["contrasts"][0]["test_method"] == "delong"
    # the mean loss keeps the bootstrap-t of its interval; a rank measure the symmetric test
    assert goals["errors"]["contrasts"][0]["test_method"] == "bootstrap-studentized"
    assert goals["targeting"]["contrasts"][0]["test_method"] in ("delong", "bootstrap-symmetric")
    assert summary["n_tests"] == sum(c["tested"] for g in goals.values() for c in g["contrasts"])


def test_holm_runs_over_every_pair_so_a_pick_chosen_after_the_fact_is_not_favoured():
    # The pick a against b and c, p = 0.02 each: alone (m = 2) Holm would keep both
    # (0.02 <= 0.025); among all three pairs the first threshold is 0.05 / 3 = 0.0167.
    evaluation = _fake_evaluation([0.02, 0.02, 0.9])
    (verdict,) = summary_verdicts(evaluation)
    assert verdict.best == "a" and len(verdict.family) == 3
    assert verdict.evidence == "not clear"
    assert [c.clear for c in verdict.family] == [False, False, False]
    assert all(c.level == pytest.approx(1 - 0.05 / 3) for c in verdict.family)
    # Strong enough for the whole family: 0.01 <= 0.05 / 3, then 0.02 <= 0.05 / 2.
    (verdict,) = summary_verdicts(_fake_evaluation([0.01, 0.02, 0.9]))
    assert (
        verdict.evidence == "clear"
        and "<strong>a</strong> is clearly best for this goal" in verdict.sentence
    )
    assert [c.model_b for c in verdict.contrasts] == ["b", "c"]
    assert [c.clear for c in verdict.family] == [True, True, False]
    first, second, third = verdict.family
    assert (first.level, second.level) == pytest.approx((1 - 0.05 / 3, 1 - 0.05 / 2))
    assert third.level == pytest.approx(1 - 0.05)  # Holm stops: the last level is alpha / 1
    for c in verdict.family:  # each Wald interval excludes zero exactly when Holm declares
        assert (c.low > 0 or c.high < 0) == c.clear


def test_a_pick_is_clearly_best_only_when_it_beats_every_other_model():
    (verdict,) = summary_verdicts(_fake_evaluation([0.001, 0.4, 0.3]))
    assert verdict.evidence == "partly clear"
    assert [c.clear for c in verdict.contrasts] == [True, False]


def test_a_measure_undefined_in_too_many_replicates_is_not_tested():
    rng = np.random.default_rng(2)
    # about the values of _fake_evaluation for a lower-is-better measure: 0.74, 0.75, 0.80
    reps = rng.normal(loc=[0.74, 0.75, 0.80], scale=0.005, size=(400, 1, 3))
    reps[:8, 0, 1] = np.nan  # 2% of b's replicates: above the 1% threshold
    evaluation = _fake_evaluation(
        [1e-9, 1e-9, 0.5], replicates=reps, info=ERRORS, metric="mean_absolute_error"
    )
    (verdict,) = summary_verdicts(evaluation)
    ab, ac, bc = verdict.family
    assert not ab.tested and not bc.tested and ac.tested
    assert "undefined in 2.0% of the bootstrap replicates (more than 1%)" in ab.untested
    assert ab.undefined_share == pytest.approx(0.02)
    assert math.isnan(ab.p_adjusted) and not ab.clear  # never tested on the 98% that remain
    assert ac.clear and ac.method == "bootstrap-symmetric"
    assert verdict.evidence == "partly clear"
    assert "Not tested against <strong>b</strong>" in verdict.sentence
    # At 1% (4 of 400) the comparison is tested.
    reps[4:8, 0, 1] = 1.0
    (verdict,) = summary_verdicts(
        _fake_evaluation(
            [1e-9, 1e-9, 0.5], replicates=reps, info=ERRORS, metric="mean_absolute_error"
        )
    )
    assert all(c.tested for c in verdict.family)


def test_the_json_says_a_comparison_is_not_tested_and_why():
    # n = 100: the F1 on extremes rests on a handful of rows and is undefined in many resamples.
    y, preds = _data(100, [1.0, 1.0], seed=7)
    evaluation = _evaluate(y, preds)
    doc = json.loads(json.dumps(evaluation_to_json(evaluation), allow_nan=False))
    (extremes,) = [g for g in doc["summary"]["goals"] if g["goal"] == "extremes"]
    if extremes["measure"] != "utility_f1":
        pytest.skip("the F1 on extremes is not defined for every model of this sample")
    (contrast,) = extremes["contrasts"]
    assert contrast["undefined_share"] > MAX_UNDEFINED_SHARE
    assert contrast["tested"] is False and contrast["clear"] is False
    assert contrast["p_value_holm"] is None and "undefined in" in contrast["untested_reason"]
    assert extremes["evidence"] == "no test"


def test_an_interval_flagged_approximate_is_not_tested():
    evaluation = _fake_evaluation([1e-6, 1e-6, 0.5])
    evaluation.comparison.difference_approximate = np.array([[True, False, False]])
    contrast = pair_contrast(evaluation.comparison, "tau_normalized", "a", "b", "higher")
    assert contrast is not None and not contrast.tested and "approximate" in contrast.untested
    (verdict,) = summary_verdicts(evaluation)
    assert verdict.evidence == "partly clear"


def test_a_comparison_without_its_own_p_value_is_not_tested_from_the_replicates():
    # The comparison gives no test (NaN p-value, e.g. too few events): the replicates alone
    # do not make one.
    rng = np.random.default_rng(3)
    reps = rng.normal(loc=[0.74, 0.75, 0.80], scale=0.005, size=(400, 1, 3))
    evaluation = _fake_evaluation(
        [math.nan, 1e-9, 0.5], replicates=reps, info=ERRORS, metric="mean_absolute_error"
    )
    evaluation.comparison.interval_notes = ("not given: too few events",)
    contrast = pair_contrast(evaluation.comparison, "mean_absolute_error", "a", "b", "lower")
    assert contrast is not None and not contrast.tested
    assert contrast.untested == "no p-value: not given: too few events"


def test_the_bootstrap_interval_at_any_level_excludes_zero_exactly_when_its_p_value_allows():
    rng = np.random.default_rng(5)
    for estimate in (0.0, 1.5, 2.5, 3.2, -2.8):
        # skewed replicates: a gamma's long right tail around the estimate
        reps = estimate + rng.gamma(2.0, size=499) - 2.0
        p = symmetric_p_value(reps, estimate)
        for a in (0.05, 0.02, 0.0125, 0.01, 0.005, 0.0041, 0.002, 0.001):
            low, high = symmetric_interval_at(reps, estimate, 1 - a)
            if not math.isfinite(low):
                assert 500 * a < 1 and p > a  # beyond the replicates: never significant
                continue
            assert high - estimate == pytest.approx(estimate - low)  # symmetric
            assert (low > 0 or high < 0) == (p <= a), (estimate, a, p, low, high)
    # No centred replicate as far from zero as the estimate: p is the floor 1 / (B + 1).
    assert symmetric_p_value(np.linspace(9.0, 11.0, 499), 10.0) == pytest.approx(1 / 500)
    # The long tail counts on both sides: a percentile test would call this one significant.
    reps = np.concatenate([np.full(480, 1.0), np.full(19, 4.0)])
    assert np.count_nonzero(reps <= 0) == 0 and symmetric_p_value(reps, 1.2) > 0.02


def test_the_bootstrap_t_interval_at_any_level_excludes_zero_exactly_when_its_p_value_allows():
    rng = np.random.default_rng(6)
    t = rng.standard_t(4, size=499)  # studentized replicates with long tails
    for estimate, se in ((0.0, 1.0), (0.4, 0.2), (-0.9, 0.3), (2.0, 0.5), (5.0, 0.7)):
        p = studentized_p_value(t, estimate, se)
        for a in (0.05, 0.02, 0.01, 0.005, 0.002):
            low, high = studentized_interval_at(t, estimate, se, 1 - a)
            if not math.isfinite(low):
                assert 500 * a < 1 and p > a
                continue
            assert high - estimate == pytest.approx(estimate - low)
            assert (low > 0 or high < 0) == (p <= a), (estimate, a, p, low, high)
    assert studentized_p_value(t, 0.0, 0.0) == 1.0  # identical models
    assert math.isnan(studentized_p_value(np.full(9, np.nan), 1.0, 0.1))


def test_a_mean_loss_is_tested_and_adjusted_by_the_bootstrap_t_its_interval_uses():
    rng = np.random.default_rng(8)
    n = 60
    y = rng.normal(size=n)
    preds = {"a": y + 0.5 * rng.normal(size=n), "b": y + 0.8 * rng.normal(size=n)}
    res = compare_models(y, preds, n_bootstrap=999, random_state=2, show_progress=False)
    k = res.metrics.index("root_mean_squared_error")
    assert res.difference_interval_methods[k] == "bootstrap-studentized"
    ab = pair_contrast(res, "root_mean_squared_error", "a", "b", "lower")
    ba = pair_contrast(res, "root_mean_squared_error", "b", "a", "lower")
    assert ab.method == ba.method == "bootstrap-studentized"
    assert ab.p_value == ba.p_value == res.p_value[k, 0]
    assert ab.se == res.difference_se[k, 0]
    holm_contrasts([ab])
    # at the nominal level (a family of one) the report's interval is the comparison's own
    # bootstrap-t interval up to the quantile rule (order statistic against interpolation)
    assert ab.level == pytest.approx(0.95)
    assert ab.low == pytest.approx(res.difference_ci_lower[k, 0], rel=0.05)
    assert ab.high == pytest.approx(res.difference_ci_upper[k, 0], rel=0.05)
    holm_contrasts([ba])
    assert (ba.low, ba.high) == pytest.approx((-ab.high, -ab.low))
    # the rank measures keep the symmetric test of the centred replicates
    tau = pair_contrast(res, "kendall_tau", "a", "b", "higher")
    assert tau.method == "bootstrap-symmetric" and math.isnan(tau.se)


def test_holm_contrasts_leave_untested_comparisons_out_of_the_family():
    def contrast(p, untested=""):
        return Contrast("m", "a", "b", 1.0, 0.9, 0.1, 0.02, p, "higher", untested=untested)

    family = holm_contrasts([contrast(0.02), contrast(1e-9, untested="flagged")])
    assert family[0].clear and family[0].level == pytest.approx(0.95)
    assert not family[1].clear and math.isnan(family[1].p_adjusted)


def test_a_clearly_better_model_is_called_clear():
    y, preds = _data(200, [0.7, 1.0], seed=6)
    evaluation = _evaluate(y, preds, n_bootstrap=500)
    verdicts = {v.goal.key: v for v in summary_verdicts(evaluation)}
    assert verdicts["errors"].best == "m1" and verdicts["errors"].evidence == "clear"
    assert verdicts["ranking"].best == "m1" and verdicts["ranking"].evidence == "clear"
    (runner,) = verdicts["errors"].contrasts
    assert runner.high < 0 and runner.method == "bootstrap-studentized"
