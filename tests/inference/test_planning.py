"""Sample sizes and detectable differences of a comparison (``ranklens.planning``).

Against the R package pROC 1.18.0 (Robin et al. 2011) on R 4.2.2: every reference number below
was printed by ``tests/data/power_reference.R``, ``power.roc.test(r1, r2, power = p, sig.level =
a, alternative = alt)`` (its ``ncases`` and ``ncontrols``) and ``power.roc.test(r1, r2,
sig.level = a, alternative = alt)`` (its ``power``, at the cases now) for two paired ROC curves
with DeLong's variances, and ``power.roc.test(auc =, kappa =, power =, sig.level =,
alternative =)`` for one curve (Obuchowski's variance). pROC prints its results to four
significant digits; the values here agree with its full double-precision numbers to 1e-12.

The data are those of ``test_delong_proc.py`` and ``test_partial_auc.py`` (which say where they
come from): pROC's aSAH (heavily tied ``wfns``) and two drawn data sets with ties.

The bootstrap's formula (``n' = n (z_a + z_b)^2 SE^2 / delta^2``) is checked against its
definition on the comparison's own standard error; a slow simulation checks that the n planned
from a pilot gives about the power asked for (``benchmarks/power_simulation.py`` runs it with
more data sets).

References
----------
Obuchowski, N. A., Lieber, M. L. and Wians, F. H. (2004). ROC curves in Clinical Chemistry: uses,
misuses, and possible solutions. *Clinical Chemistry* 50(7), 1118-1125.

Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze and compare ROC
curves. *BMC Bioinformatics* 12, 77.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ranklens as rl
from ranklens import (
    compare_models,
    detectable_difference,
    required_sample_size,
    roc_auc_sample_size,
)

DATA = Path(__file__).resolve().parents[1] / "data"
REL = 1e-12

# (file, outcome, model_a, model_b, power, alpha, alternative): ncases, ncontrols, power now,
# as power_reference.R printed them (alternative "one.sided" in R is "one-sided" here)
TWO_CURVES = [
    ("asah.csv", "outcome", "s100b", "wfns", 0.8, 0.05, "two-sided",
     96.384264663201748, 169.26017209147625, 0.36832044923142682),
    ("asah.csv", "outcome", "s100b", "wfns", 0.9, 0.01, "two-sided",
     179.85726972897081, 315.84691269477798, 0.12795890421453743),
    ("asah.csv", "outcome", "s100b", "wfns", 0.8, 0.05, "one-sided",
     74.500506081441529, 130.83015702106806, 0.52906116777307532),
    ("asah.csv", "outcome", "wfns", "s100b", 0.8, 0.05, "two-sided",
     31.593079872701004, 55.480530508157862, 0.86682795986173233),
    ("asah.csv", "outcome", "wfns", "s100b", 0.9, 0.01, "two-sided",
     62.34031207656917, 109.47566998812147, 0.77836216602014074),
    ("asah.csv", "outcome", "wfns", "s100b", 0.8, 0.05, "one-sided",
     26.105167109328171, 45.843220289551908, 0.90112076965690791),
    ("asah.csv", "outcome", "ndka", "s100b", 0.8, 0.05, "two-sided",
     174.57368243797444, 306.56841793985757, 0.26192684619032791),
    ("asah.csv", "outcome", "ndka", "s100b", 0.9, 0.01, "two-sided",
     330.22984944769746, 579.91583317644438, 0.10120441712021236),
    ("asah.csv", "outcome", "ndka", "s100b", 0.8, 0.05, "one-sided",
     137.15601380003648, 240.85934130738113, 0.37777198448343452),
    ("delong_ties.csv", "y", "a", "b", 0.8, 0.05, "two-sided",
     12567.729097079591, 21095.8309843836, 0.046573762783472049),
    ("partial_auc_ties.csv", "y", "a", "b", 0.8, 0.05, "two-sided",
     2626.4631606722996, 5914.8804512701381, 0.077913924096595213),
]  # fmt: skip

# (auc, kappa, power, alpha, alternative): ncases, ncontrols
ONE_CURVE = [
    (0.8, 1.0, 0.8, 0.05, "two-sided", 12.743616529027314, 12.743616529027314),
    (0.7, 2.0, 0.9, 0.05, "two-sided", 30.598773554907126, 61.197547109814252),
    (0.95, 0.5, 0.8, 0.01, "two-sided", 10.040676096053298, 5.0203380480266491),
    (0.6, 3.0, 0.8, 0.05, "one-sided", 65.244198001035627, 195.7325940031069),
    (0.75, 1.0, 0.95, 0.1, "two-sided", 25.343574773598654, 25.343574773598654),
]


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.mark.parametrize(
    "case", TWO_CURVES, ids=[f"{c[0]}:{c[2]}-{c[3]}:{c[4]}" for c in TWO_CURVES]
)
def test_two_auc_with_delong_equal_proc_power_roc_test(case):
    file, outcome, a, b, power, alpha, alternative, ncases, ncontrols, power_now = case
    data = pd.read_csv(DATA / file)
    others = [c for c in data.columns if c != outcome]
    cmp = compare_models(
        data[outcome], {c: data[c] for c in others}, metrics=["roc_auc"], method="delong"
    )
    plan = required_sample_size(
        cmp, model_a=a, model_b=b, power=power, alpha=alpha, alternative=alternative
    )
    assert plan.model_a == (a,) and plan.model_b == (b,)
    # R: power.roc.test(roc(a), roc(b), power = power, sig.level = alpha)$ncases, $ncontrols
    assert plan.required_events[0] == pytest.approx(ncases, rel=REL)
    assert plan.required_n[0] - plan.required_events[0] == pytest.approx(ncontrols, rel=REL)
    # R: power.roc.test(roc(a), roc(b), sig.level = alpha)$power: the power of the cases now
    assert plan.power_at_n[0] == pytest.approx(power_now, rel=REL)
    # the smallest difference detected now, and the n that detects the difference seen
    seen = detectable_difference(
        cmp, model_a=a, model_b=b, power=power, alpha=alpha, alternative=alternative
    )
    z_a = stats.norm.ppf(1 - (alpha / 2 if alternative == "two-sided" else alpha))
    z_b = stats.norm.ppf(power)
    margin = z_a * plan.null_std_error[0] + z_b * plan.std_error[0]
    assert seen.detectable_difference[0] == pytest.approx(margin, rel=REL)
    at_required = detectable_difference(
        cmp,
        model_a=a,
        model_b=b,
        n=plan.required_n[0],
        power=power,
        alpha=alpha,
        alternative=alternative,
    )
    assert at_required.detectable_difference[0] == pytest.approx(abs(plan.difference[0]), rel=1e-12)


def test_delong_null_variance_is_procs_2_var_a_minus_2_cov():
    data = pd.read_csv(DATA / "asah.csv")
    test = rl.delong_test(data["outcome"], data["s100b"], data["wfns"])
    cmp = compare_models(
        data["outcome"], {"s100b": data["s100b"], "wfns": data["wfns"]}, metrics=["roc_auc"],
        method="delong",
    )  # fmt: skip
    plan = required_sample_size(cmp, model_a="s100b", model_b="wfns")
    cov = test.correlation * test.std_error_a * test.std_error_b
    v0 = 2 * test.std_error_a**2 - 2 * cov
    assert plan.null_std_error[0] == pytest.approx(math.sqrt(v0), rel=1e-12)
    assert plan.std_error[0] == pytest.approx(test.difference_std_error, rel=1e-12)
    assert plan.n_events[0] == 41 and plan.n[0] == 113
    assert "power.roc.test" in plan.methods[0]
    # the variance of the test that is run, under the null too
    own = required_sample_size(cmp, model_a="s100b", model_b="wfns", null_variance="alternative")
    assert own.null_std_error[0] == own.std_error[0] == plan.std_error[0]
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    d, se = plan.difference[0], plan.std_error[0]
    assert own.required_n[0] == pytest.approx(113 * z**2 * se**2 / d**2, rel=1e-13)
    # model A (s100b) is the less precise of the two: pROC's null variance is the larger, and
    # its plan the more conservative; with the more precise wfns as A, the other way round
    assert test.std_error_a > test.std_error_b and own.required_n[0] < plan.required_n[0]
    swapped = required_sample_size(cmp, model_a="wfns", model_b="s100b")
    assert swapped.required_n[0] < own.required_n[0]
    assert "the test compare_models runs" in own.methods[0]
    assert own.to_frame().attrs["null_variance"] == "alternative"
    with pytest.raises(ValueError, match="null_variance must be one of"):
        required_sample_size(cmp, null_variance="proc")


@pytest.mark.parametrize("case", ONE_CURVE, ids=[f"auc={c[0]}:kappa={c[1]}" for c in ONE_CURVE])
def test_one_auc_equals_proc_power_roc_test(case):
    auc, kappa, power, alpha, alternative, ncases, ncontrols = case
    # R: power.roc.test(auc = auc, kappa = kappa, power = power, sig.level = alpha)
    res = roc_auc_sample_size(auc, kappa=kappa, power=power, alpha=alpha, alternative=alternative)
    assert res.n_cases == pytest.approx(ncases, rel=REL)
    assert res.n_controls == pytest.approx(ncontrols, rel=REL)
    assert res.n_total == pytest.approx(ncases + ncontrols, rel=REL)
    assert res.null_variance == pytest.approx(0.0792 * (1 + 1 / kappa), rel=1e-15)


# ------------------------------------------------------------------------------------------
# the bootstrap's comparison: the formula, the defaults
# ------------------------------------------------------------------------------------------


def _losses(n=400, stream=0):
    rng = np.random.default_rng(stream)
    y = rng.normal(size=n)
    preds = {
        "a": y + rng.normal(0.0, 1.0, n),
        "b": y + rng.normal(0.0, 1.15, n),
        "c": y + rng.normal(0.0, 0.9, n),
    }
    return y, preds


@pytest.fixture(scope="module")
def boot():
    y, preds = _losses()
    return _quiet(
        compare_models,
        y,
        preds,
        metrics=["mean_absolute_error", "kendall_tau"],
        n_bootstrap=300,
        random_state=1,
        show_progress=False,
    )


def test_bootstrap_formula(boot):
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    plan = required_sample_size(boot, metric="mean_absolute_error", model_a="a", model_b="b")
    p = boot.pairs.index(("a", "b"))
    se, d = boot.difference_sd[0, p], boot.difference[0, p]
    assert plan.std_error[0] == se and plan.null_std_error[0] == se
    assert plan.difference[0] == d and plan.planned_difference[0] == abs(d)
    assert plan.required_n[0] == pytest.approx(400 * z**2 * se**2 / d**2, rel=1e-13)
    assert plan.detectable_difference[0] == pytest.approx(z * se, rel=1e-13)
    assert plan.power_at_n[0] == pytest.approx(
        stats.norm.cdf(abs(d) / se - stats.norm.ppf(0.975)), rel=1e-12
    )
    # a given difference, either sign; a one-sided test needs fewer rows
    given = required_sample_size(boot, metric="mean_absolute_error", difference=-0.01)
    assert np.all(given.planned_difference == 0.01)
    one = required_sample_size(
        boot, metric="mean_absolute_error", difference=0.01, alternative="one-sided"
    )
    assert np.all(one.required_n < given.required_n)
    # n' scales as 1/delta^2 and detectable as 1/sqrt(n)
    half = required_sample_size(boot, metric="mean_absolute_error", difference=0.005)
    np.testing.assert_allclose(half.required_n, 4 * given.required_n, rtol=1e-13)
    far = detectable_difference(boot, metric="mean_absolute_error", n=1600)
    now = detectable_difference(boot, metric="mean_absolute_error")
    np.testing.assert_allclose(far.detectable_difference, now.detectable_difference / 2)
    assert np.all(far.at_n == 1600) and np.all(now.at_n == 400)


def test_default_pairs_are_the_pick_against_each_other_model(boot):
    plan = required_sample_size(boot)
    # MAE: lower is better, c has the smallest errors; tau: higher is better
    mae = [k for k, m in enumerate(plan.metrics) if m == "mean_absolute_error"]
    assert [plan.model_a[k] for k in mae] == ["c", "c"]
    assert [plan.model_b[k] for k in mae] == ["a", "b"]
    tau_pick = boot.models[int(np.argmax(boot.values[1]))]
    assert {plan.model_a[k] for k in range(len(plan.metrics)) if k not in mae} == {tau_pick}
    # the difference is the pick's value less the other's: the pair's sign flipped where needed
    for k in mae:
        want = boot.value("mean_absolute_error", "c") - boot.value(
            "mean_absolute_error", plan.model_b[k]
        )
        assert plan.difference[k] == pytest.approx(want, rel=1e-15)
    # model_b alone: the pick against it, or the best of the others where it is the pick
    against_b = required_sample_size(boot, metric="mean_absolute_error", model_b="b")
    assert (against_b.model_a, against_b.model_b) == (("c",), ("b",))
    against_c = required_sample_size(boot, metric="mean_absolute_error", model_b="c")
    assert (against_c.model_a, against_c.model_b) == (("a",), ("c",))


def test_result_protocol(boot):
    plan = required_sample_size(boot)
    frame = plan.to_frame()
    assert list(frame.columns) == [
        "metric", "model_a", "model_b", "n", "n_events", "std_error", "null_std_error",
        "difference", "planned_difference", "power_at_n", "at_n", "detectable_difference",
        "required_n", "required_events", "method", "note",
    ]  # fmt: skip
    assert len(frame) == 4 and frame.attrs == {
        "power": 0.8,
        "alpha": 0.05,
        "alternative": "two-sided",
        "null_variance": "auto",
    }
    assert frame["n_events"].isna().all() and frame["required_events"].isna().all()
    assert frame["method"].str.contains("bootstrap standard error").all()
    json.dumps(plan.to_dict())
    assert len(repr(plan)) <= 480
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.power = 0.9  # type: ignore[misc]


def test_groups_count_units_and_events_keep_their_share():
    rng = np.random.default_rng(5)
    n = 600
    y = (rng.random(n) < 0.2).astype(float)
    preds = {"a": y + rng.normal(size=n), "b": 0.7 * y + rng.normal(size=n)}
    groups = np.repeat(np.arange(200), 3)
    cmp = _quiet(
        compare_models, y, preds, metrics=["roc_auc"], n_bootstrap=200, random_state=0,
        groups=groups, show_progress=False,
    )  # fmt: skip
    assert cmp.n_units == 200 and cmp.n_events == (int(y.sum()),)
    plan = required_sample_size(cmp, model_a="a", model_b="b")
    assert plan.n[0] == 200
    assert plan.required_events[0] == pytest.approx(plan.required_n[0] * y.sum() / 200, rel=1e-13)
    # rows of weight 0 are not units
    w = np.where(np.arange(n) < 100, 0.0, 1.0)
    weighted = _quiet(
        compare_models, y, preds, metrics=["roc_auc"], n_bootstrap=50, random_state=0,
        sample_weight=w, show_progress=False,
    )  # fmt: skip
    assert weighted.n_units == 500 and weighted.n_events == (int(y[100:].sum()),)


def test_diebold_mariano_comparison():
    rng = np.random.default_rng(2)
    n = 300
    y = np.cumsum(rng.normal(size=n))
    preds = {"a": y + rng.normal(size=n), "b": y + 1.2 * rng.normal(size=n)}
    cmp = compare_models(y, preds, metrics=["mean_squared_error"], method="diebold-mariano")
    plan = required_sample_size(cmp)
    p = 0
    assert plan.std_error[0] == abs(cmp.difference_sd[0, p])
    assert "Diebold-Mariano" in plan.methods[0] and plan.n[0] == n


# ------------------------------------------------------------------------------------------
# refusals, by name
# ------------------------------------------------------------------------------------------


def test_refusals(boot):
    y, preds = _losses(100)
    perm = _quiet(
        compare_models, y, preds, metrics=["mean_absolute_error"], n_bootstrap=20,
        method="permutation", random_state=0, show_progress=False,
    )  # fmt: skip
    with pytest.raises(ValueError, match="comparison: a permutation test"):
        required_sample_size(perm)
    with pytest.raises(TypeError, match="comparison must be"):
        detectable_difference({"a": 1})
    unknown_n = dataclasses.replace(boot, n_units=0)
    with pytest.raises(ValueError, match="comparison: the number of rows"):
        required_sample_size(unknown_n)
    nothing = dataclasses.replace(
        boot, n_bootstrap=0, difference_sd=np.full_like(boot.difference_sd, np.nan)
    )
    with pytest.raises(ValueError, match=r"comparison: no standard error.*without bootstrap"):
        required_sample_size(nothing)
    for bad in (0, 1, 1.5, -0.2, math.nan, "high"):
        with pytest.raises(ValueError, match="power"):
            required_sample_size(boot, power=bad)
        with pytest.raises(ValueError, match="alpha"):
            detectable_difference(boot, alpha=bad)
    with pytest.raises(ValueError, match="power must exceed"):
        required_sample_size(boot, power=0.02)
    with pytest.raises(ValueError, match="alternative"):
        required_sample_size(boot, alternative="greater")
    with pytest.raises(ValueError, match="difference: no finite n detects a zero difference"):
        required_sample_size(boot, metric="mean_absolute_error", difference=0.0)
    with pytest.raises(ValueError, match="difference is in one measure's units: give metric="):
        required_sample_size(boot, difference=0.1)
    with pytest.raises(ValueError, match="difference must be a finite number"):
        required_sample_size(boot, metric="kendall_tau", difference=math.inf)
    with pytest.raises(ValueError, match="metric 'rmse' is not in this comparison"):
        required_sample_size(boot, metric="rmse")
    with pytest.raises(ValueError, match="model_b 'z' is not in this comparison"):
        detectable_difference(boot, model_b="z")
    with pytest.raises(ValueError, match="model_a and model_b are the same model"):
        detectable_difference(boot, model_a="a", model_b="a")
    for bad_n in (0, -5, math.nan, "many"):
        with pytest.raises(ValueError, match="n must be"):
            detectable_difference(boot, n=bad_n)


def test_a_zero_difference_is_refused_for_one_pair_and_infinite_among_many():
    y, preds = _losses(200)
    preds["same"] = preds["a"].copy()
    cmp = _quiet(
        compare_models, y, preds, metrics=["mean_absolute_error"], n_bootstrap=50,
        random_state=0, show_progress=False,
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"difference: the observed difference.*is 0"):
        required_sample_size(cmp, model_a="a", model_b="same")
    plan = required_sample_size(cmp, model_a="a")
    k = plan.model_b.index("same")
    assert plan.required_n[k] == math.inf and "no finite n detects" in plan.notes[k]
    assert all(not note for j, note in enumerate(plan.notes) if j != k)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"auc": 0.5}, "auc: an AUC of 1/2.*no finite n detects a zero difference"),
        ({"auc": 1.0}, "auc must be in"),
        ({"auc": 0.0}, "auc must be in"),
        ({"auc": 0.8, "kappa": 0.0}, "kappa must be a positive"),
        ({"auc": 0.8, "kappa": -1}, "kappa must be a positive"),
        ({"auc": 0.8, "power": 1.0}, "power"),
        ({"auc": 0.8, "alpha": 0.0}, "alpha"),
        ({"auc": 0.8, "alternative": "less"}, "alternative"),
    ],
)
def test_one_auc_refusals(kwargs, match):
    auc = kwargs.pop("auc")
    with pytest.raises(ValueError, match=match):
        roc_auc_sample_size(auc, **kwargs)


# ------------------------------------------------------------------------------------------
# the power achieved at the planned n
# ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_planned_n_gives_about_the_power_asked_for():
    """DeLong's AUCs (benchmarks/power_simulation.py's AUC case, fewer data sets): the pilot's
    plan for the test that is run (``null_variance="alternative"``), then 400 data sets at the
    planned n; their share of rejections within four Monte Carlo standard errors (and the
    pilot's own noise) of 80 %. pROC's null variance, with the better model as A, plans fewer
    rows (the benchmark: 64 % achieved)."""
    rng = np.random.default_rng(7)

    def draw(n):
        y = (rng.random(n) < 0.25).astype(float)
        e1, e2 = rng.normal(size=n), rng.normal(size=n)
        return y, {"a": 1.2 * y + e1, "b": 0.9 * y + 0.6 * e1 + 0.8 * e2}

    truth = stats.norm.cdf(1.2 / math.sqrt(2)) - stats.norm.cdf(0.9 / math.sqrt(2))
    pilot = compare_models(*draw(2000), metrics=["roc_auc"], method="delong")
    plan = required_sample_size(
        pilot, model_a="a", model_b="b", difference=truth, null_variance="alternative"
    )
    n = math.ceil(plan.required_n[0])
    reps = 400
    hits = sum(
        compare_models(*draw(n), metrics=["roc_auc"], method="delong").p_value[0, 0] < 0.05
        for _ in range(reps)
    )
    achieved = hits / reps
    assert abs(achieved - 0.8) < 4 * math.sqrt(0.8 * 0.2 / reps) + 0.03, (n, achieved)
