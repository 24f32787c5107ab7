"""Weights and values of extreme size: results that do not depend on the scale stay the same.

docs/inputs.md promises that ``w`` and ``1e150 * w`` give the same value for every measure that
depends only on the ratios of the weights. The ratio measures multiply sums of weights (an AUC
``sum dFP (TP + TP_prev) / (2 P N)``, DeLong's variance), so weights near 1e200 overflowed and
weights near 1e-300 underflowed; values near 1e307 overflowed the sums of the report's tables and
plots; two rows failed the robustness table. Also: aliases in the agreement display, DeLong's test
of a constant score, and ties in the curve bands' win counts.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from typer.testing import CliRunner

from emulated_device import on_device
from ranklens import (
    compare_models,
    curve_bands,
    delong_interval,
    delong_test,
    ranking_summary,
    robustness_table,
    roc_curve,
)
from ranklens.cli import app
from ranklens.exceptions import RanklensWarning, UndefinedMetricWarning
from ranklens.listwise import ndcg_score
from ranklens.metrics import available_metrics, get_metric
from ranklens.residual import rroc_curve

runner = CliRunner()
SCALES = (1e200, 1e-300)

#: Measures whose value is not a function of the ratios of the weights, by definition:
#: a weighted total, list positions, and box-plot relevance that reads weights as frequencies
#: (documented DomainError below a total of two observations).
NOT_RATIOS = {
    "sera": "a weighted total: linear in the weights",
    "ndcg_score": "the weights are stretches of the list: NDCG is not scale-free in them",
}
FREQUENCIES = {
    "utility_precision",
    "utility_recall",
    "utility_f1",
    "relevance_weighted_absolute_error",
    "relevance_weighted_squared_error",
    "sera",
}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(34)
    n = 60
    y = np.exp(rng.normal(size=n))  # positive: every measure's domain
    pred = y * np.exp(0.4 * rng.normal(size=n))
    w = rng.integers(1, 5, size=n).astype(float)
    return y, pred, w


def _value(name, y, pred, w):
    spec = get_metric(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        if spec.inputs == "interval":
            return float(spec(y, pred - 1.0, pred + 1.0, alpha=0.1, sample_weight=w))
        return float(spec(y, pred, sample_weight=w))


def _close(a, b, rtol=1e-12):
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= rtol * max(abs(a), abs(b))


def test_the_exclusions_are_registered():
    names = set(available_metrics())
    assert set(NOT_RATIOS) <= names and FREQUENCIES <= names


@pytest.mark.parametrize(
    "name",
    [
        m
        for m in available_metrics()
        if get_metric(m).supports_sample_weight
        and m not in NOT_RATIOS
        # a 0/1 target and probabilities: tests/measures/test_classification.py
        and get_metric(m).family != "probability"
    ],
)
def test_every_ratio_measure_is_scale_free_in_the_weights(data, name):
    y, pred, w = data
    reference = _value(name, y, pred, w)
    assert math.isfinite(reference)
    for scale in SCALES:
        if scale < 1 and name in FREQUENCIES:
            continue  # frequencies summing below two observations: a documented DomainError
        value = _value(name, y, pred, w * scale)
        assert _close(value, reference), (name, scale, value, reference)


def test_roc_auc_of_the_reported_case_against_scikit_learn():
    y = np.array([0, 1, 0, 1, 1, 0.0])
    s = np.array([0.1, 0.4, 0.35, 0.8, 0.7, 0.2])
    for scale in (1.0, *SCALES):
        w = np.full(6, scale)
        assert _value("roc_auc", y, s, w) == pytest.approx(roc_auc_score(y, s), rel=1e-12)


@pytest.mark.parametrize("name", ["roc_auc", "ks_statistic", "gain_area", "accuracy_ratio"])
def test_device_scalars_are_scale_free_in_the_weights(data, monkeypatch, name):
    """Device inputs on the NumPy namespace (as tests/engines/test_gpu_targeting.py): the same
    sums."""
    import ranklens._compute.xp.measures as xm

    monkeypatch.setattr(xm, "cupy_or_raise", lambda what: np)
    y, pred, w = data
    func = get_metric(name).func
    reference = func(y, pred, sample_weight=w)
    for scale in SCALES:
        assert _close(func(on_device(y), pred, sample_weight=w * scale), reference)


def test_sera_is_linear_and_ndcg_defined_for_huge_weights(data):
    y, pred, w = data
    assert _close(_value("sera", y, pred, w * 1e200), 1e200 * _value("sera", y, pred, w))
    # positions beyond 2**63 (weights near 1e200) once overflowed the kernel's integers: NaN
    for scale in (1e17, 1e19, 1e200, 1e300):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value = ndcg_score(y, pred, sample_weight=w * scale)
        assert 0.99 < value <= 1.0


def test_delong_and_the_auc_interval_are_scale_free(data):
    y = data[0]
    rng = np.random.default_rng(5)
    events = (rng.random(y.size) < 0.4).astype(float)
    a, b = events + rng.normal(size=y.size), events + 2 * rng.normal(size=y.size)
    w = rng.integers(1, 4, size=y.size).astype(float)
    test0 = delong_test(events, a, b, sample_weight=w)
    interval0 = delong_interval(events, a, sample_weight=w)
    curve0 = roc_curve(events, a, sample_weight=w)
    compared0 = compare_models(
        events, {"a": a, "b": b}, metrics=["roc_auc"], method="delong", sample_weight=w
    )
    for scale in SCALES:
        test = delong_test(events, a, b, sample_weight=w * scale)
        for field in ("estimate_a", "std_error_a", "difference_std_error", "z", "p_value"):
            assert _close(getattr(test, field), getattr(test0, field)), field
        interval = delong_interval(events, a, sample_weight=w * scale)
        assert _close(interval.std_error, interval0.std_error)
        assert _close(interval.ci.low, interval0.ci.low)
        curve = roc_curve(events, a, sample_weight=w * scale)
        assert _close(curve.auc, curve0.auc) and _close(curve.auc_std_error, curve0.auc_std_error)
        compared = compare_models(
            events, {"a": a, "b": b}, metrics=["roc_auc"], method="delong", sample_weight=w * scale
        )
        assert _close(float(compared.p_value[0, 0]), float(compared0.p_value[0, 0]))


def test_ranking_summary_with_huge_weights(data):
    y, pred, w = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        reference = ranking_summary(y, pred, sample_weight=w)
        for scale in SCALES:
            summary = ranking_summary(y, pred, sample_weight=w * scale)  # OverflowError before
            assert _close(summary.kendall_tau, reference.kendall_tau)
            assert _close(summary.spearman_rho, reference.spearman_rho)


def _evaluate(tmp_path, frame, stem, *extra):
    csv = tmp_path / f"{stem}.csv"
    frame.to_csv(csv, index=False)
    out = tmp_path / f"{stem}.json"
    html = tmp_path / f"{stem}.html"
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(csv),
            "-t",
            "y",
            "-p",
            "p",
            *extra,
            "--bootstrap",
            "0",
            "--json",
            str(out),
            "--html",
            str(html),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def test_cli_with_huge_weights_gives_the_unscaled_values(tmp_path, data):
    y, pred, w = data
    base = _evaluate(tmp_path, pd.DataFrame({"y": y, "p": pred, "w": w}), "w1", "--weight", "w")
    huge = _evaluate(
        tmp_path, pd.DataFrame({"y": y, "p": pred, "w": w * 1e200}), "w200", "--weight", "w"
    )
    for name, entry in base["models"]["p"].items():
        if name in NOT_RATIOS or entry["value"] is None:
            continue
        assert _close(huge["models"]["p"][name]["value"], entry["value"]), name


# --------------------------------------------------------------------------------------------
# tiny and huge data through the command line


def test_two_rows_leave_the_robustness_table_undefined_not_failed(tmp_path):
    doc = _evaluate(tmp_path, pd.DataFrame({"y": [1.0, 2.0], "p": [1.5, 1.8]}), "two")
    table = doc["robustness"]["p"]
    assert table["excluding_one"] == [None] * len(table["metrics"])
    assert table["entire_set"][0] == pytest.approx(math.sqrt((0.25 + 0.04) / 2), rel=1e-12)
    problem = doc["problems"]["p"]["robustness table"]
    assert problem["kind"] == "undefined" and "single row" in problem["message"]


def test_robustness_table_of_two_rows_warns_why():
    with pytest.warns(UndefinedMetricWarning, match="on 2 rows: removing one leaves a single row"):
        table = robustness_table([1.0, 2.0], [1.5, 1.8])
    assert np.isnan(table.excluding_one).all() and (table.index == -1).all()
    assert table.entire_set[2] == 1.0  # Kendall's tau of two concordant rows


@pytest.fixture(scope="module")
def huge():
    rng = np.random.default_rng(307)
    unit = rng.normal(size=60)
    return unit, unit + 0.3 * rng.normal(size=60)


def test_cli_with_values_near_1e307(tmp_path, huge):
    y, pred = huge
    doc = _evaluate(tmp_path, pd.DataFrame({"y": 1e307 * y, "p": 1e307 * pred}), "huge")
    small = robustness_table(y, pred)  # the same table at ordinary magnitude
    table = doc["robustness"]["p"]
    assert table["index"] == small.index.tolist()
    np.testing.assert_allclose(table["percent_change"], small.percent_change, rtol=1e-9)
    rmse = table["metrics"].index("root_mean_squared_error")
    assert table["excluding_one"][rmse] == pytest.approx(1e307 * small.excluding_one[rmse])


def test_robustness_table_scales_with_the_data(huge):
    y, pred = huge
    small = robustness_table(y, pred)
    big = robustness_table(y * 2.0**1000, pred * 2.0**1000)  # exact: the same digits
    assert big.index.tolist() == small.index.tolist()
    np.testing.assert_array_equal(big.excluding_one[:2], small.excluding_one[:2] * 2.0**1000)
    np.testing.assert_array_equal(big.percent_change, small.percent_change)


def test_rroc_curve_of_huge_values(huge):
    y, pred = huge
    small = rroc_curve(y, pred)
    big_y, big_p = y * 2.0**1000, pred * 2.0**1000
    with pytest.warns(UndefinedMetricWarning, match="exceed the float range"):
        big = rroc_curve(big_y, big_p)
    assert big.area == math.inf  # n^2 var / 2 near 1e604: beyond any float, not NaN
    assert big.model_over == small.model_over * 2.0**1000
    finite = np.isfinite(big.over) & np.isfinite(big.under)
    assert finite.sum() > big.over.size // 2
    np.testing.assert_array_equal(big.over[finite], small.over[finite] * 2.0**1000)
    with pytest.warns(UndefinedMetricWarning, match="exceed the float range"):
        weighted = rroc_curve(y, pred, sample_weight=np.full(y.size, 2.0**600))
    assert weighted.area == math.inf and weighted.model_over == small.model_over * 2.0**600
    w = np.random.default_rng(1).integers(1, 4, size=y.size) * 1.0
    assert rroc_curve(y, pred, sample_weight=w * 2.0**300).area == pytest.approx(
        rroc_curve(y, pred, sample_weight=w).area * 2.0**600, rel=1e-15
    )


def test_rroc_display_of_huge_values_has_finite_limits(huge):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import io

    from ranklens.plot import RROCCurveDisplay

    y, pred = huge
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        display = RROCCurveDisplay.from_predictions(1e307 * y, 1e307 * pred)
    limits = [*display.ax_.get_xlim(), *display.ax_.get_ylim()]
    assert all(math.isfinite(v) and abs(v) < 1e300 for v in limits)
    assert "×" in display.ax_.get_xlabel()
    display.figure_.savefig(io.BytesIO(), format="svg")  # OverflowError in the ticks before


# --------------------------------------------------------------------------------------------
# item 13: aliases, DeLong with a constant score, ties in the bands


def test_metric_agreement_display_accepts_aliases():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from ranklens.plot import MetricAgreementDisplay

    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    preds = {f"m{i}": y + rng.normal(size=50) * (i + 1) * 0.3 for i in range(4)}
    metrics = ["mean_absolute_error", "root_mean_squared_error"]
    display = MetricAgreementDisplay.from_predictions(y, preds, metrics=metrics)
    assert display.metrics == tuple(metrics)
    with pytest.raises(ValueError, match="'kendall_tau' is not in this comparison"):
        MetricAgreementDisplay(display.result, metrics=["mean_absolute_error", "kendall_tau"])
    compared = compare_models(y, preds, metrics=metrics[:1], n_bootstrap=20, random_state=0)
    with pytest.raises(ValueError, match="'mae' is not in this comparison"):
        compared.value("mae", "m0")  # one name for one measure


def test_delong_test_of_a_constant_and_a_perfect_score_says_why():
    y = np.array([0, 0, 0, 1, 1, 1, 0, 1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = delong_test(y, np.zeros(8), y.copy())
    messages = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert result.estimate_a == 0.5 and result.estimate_b == 1.0
    assert result.std_error_a == 0.0 and result.std_error_b == 0.0
    assert math.isnan(result.z) and math.isnan(result.p_value)  # z was -inf, p NaN, silently
    assert any("variance of the difference" in m for m in messages)
    assert any("correlation" in m for m in messages)
    with pytest.warns(UndefinedMetricWarning, match="variance of the difference"):
        compared = compare_models(
            y, {"c": np.zeros(8), "p": y.copy()}, metrics=["roc_auc"], method="delong"
        )
    assert math.isnan(compared.z[0, 0]) and math.isnan(compared.p_value[0, 0])


def test_delong_test_of_a_constant_score_is_defined():
    rng = np.random.default_rng(5)
    y = (rng.random(50) < 0.4).astype(float)
    score = y + rng.normal(size=50)
    with pytest.warns(UndefinedMetricWarning, match="correlation"):
        result = delong_test(y, np.zeros(50), score)
    alone = delong_interval(y, score)
    assert result.estimate_a == 0.5 and result.std_error_a == 0.0
    assert result.difference_std_error == pytest.approx(alone.std_error, rel=1e-12)
    assert result.z == pytest.approx((0.5 - alone.estimate) / alone.std_error, rel=1e-12)
    assert 0.0 < result.p_value < 1.0


@pytest.mark.parametrize("curve", ["cutoff_auc", "rank_lift", "gain", "lift"])
def test_curve_bands_wins_do_not_depend_on_the_weight_scale(curve):
    rng = np.random.default_rng(0)
    y = rng.normal(size=60)
    a = y + rng.normal(size=60)
    b = np.round(a, 1)  # often tied with a: the curves agree in exact arithmetic
    w = rng.integers(1, 4, size=60).astype(float)
    kwargs = {"curve": curve, "n_bootstrap": 200, "random_state": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        one = curve_bands(y, {"a": a, "b": b}, sample_weight=w, **kwargs)
        thousand = curve_bands(y, {"a": a, "b": b}, sample_weight=1000 * w, **kwargs)
    np.testing.assert_array_equal(one.prob_a_beats_b, thousand.prob_a_beats_b)
