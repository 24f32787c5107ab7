"""ranklens.dask: the REC, RROC and utility precision-recall curves from mergeable sums.

Every point the engine returns lies on the in-memory curve of every row (``evaluate_models``'s
``curves[kind][model]``, the same result class): the REC curve read at each tolerance (the exact
step function, ``RECCurveResult.at``), the RROC curve interpolated at each shift (it is linear
in the shift between its vertices), the precision-recall curve field by field on its fixed
grid of thresholds; and the scalars they carry (the area over the REC curve, the RROC area, the
model's point and the unbiased shift, the best F) equal the in-memory ones; floats to 1e-12
(relative to the curve's scale), counts exactly. For 1, 3 and 7 partitions, with ties (values
rounded to 0.1, tie runs across partition boundaries), with weights (zeros among them, one on
the row of the largest error), and the report draws them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import evaluate_models  # noqa: E402
from ranklens.extremes import RegressionPrecisionRecallCurveResult  # noqa: E402
from ranklens.relevance import relevance_from_boxplot  # noqa: E402
from ranklens.residual import SUMS_POINTS, RECCurveResult, RROCCurveResult  # noqa: E402

pytestmark = pytest.mark.usefixtures("client")  # the LocalCluster of conftest.py

TOL = 1e-12
MODELS = ["a", "b", "exact"]


def _frame(n: int, seed: int, rounded: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.exp(rng.normal(size=n))
    a = y + rng.normal(size=n) + 0.3
    b = rng.integers(0, 7, n).astype(float)
    if rounded:  # long tie runs of errors, losses and relevance across the partitions
        y, a = np.round(y, 1), np.round(a, 1)
    w = rng.uniform(0.0, 2.0, n)
    w[::11] = 0.0
    a[n // 2] = y[n // 2] + 50.0  # the largest error ...
    w[n // 2] = 0.0  # ... on a row of weight 0: absent from the weighted curves
    return pd.DataFrame({"y": y, "a": a, "b": b, "exact": y.copy(), "w": w})


def _close(got, want, scale: float, what: str) -> None:
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, what
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    ok = same | (np.abs(got - want) <= TOL * max(1.0, scale))
    assert ok.all(), (what, got[~ok][:5], want[~ok][:5])


def _check_rec(got: RECCurveResult, want: RECCurveResult, model: str) -> None:
    assert type(got) is RECCurveResult and got.loss == want.loss
    assert got.tolerance[0] == 0.0 and got.tolerance[-1] == want.tolerance[-1], model
    assert np.all(np.diff(got.tolerance) > 0) and got.tolerance.size <= SUMS_POINTS + 2
    _close(got.accuracy, want.at(got.tolerance), 1.0, f"{model} REC accuracy")
    assert got.accuracy[-1] == 1.0
    _close(got.area_over_curve, want.area_over_curve, want.area_over_curve, f"{model} AOC")


def _check_rroc(got: RROCCurveResult, want: RROCCurveResult, model: str, unit: bool) -> None:
    assert type(got) is RROCCurveResult
    assert got.shift[0] == want.shift[0] and got.shift[-1] == want.shift[-1], model
    assert np.all(np.diff(got.shift) > 0) and got.shift.size <= SUMS_POINTS + 3
    if unit:  # the abscissae are errors of rows (vertices of the in-memory curve), and 0
        assert np.isin(got.shift[got.shift != 0.0], want.shift).all(), model
    scale = max(float(want.over.max()), float(-want.under.min()))
    _close(got.over, np.interp(got.shift, want.shift, want.over), scale, f"{model} OVER")
    _close(got.under, np.interp(got.shift, want.shift, want.under), scale, f"{model} UNDER")
    _close(got.area, want.area, want.area, f"{model} area")
    _close(got.model_over, want.model_over, scale, f"{model} model_over")
    _close(got.model_under, want.model_under, scale, f"{model} model_under")
    spread = float(want.shift[-1] - want.shift[0])
    _close(got.unbiased_shift, want.unbiased_shift, spread, f"{model} unbiased shift")
    if 0.0 in got.shift:  # the model's own point is on the drawn curve
        k = int(np.flatnonzero(got.shift == 0.0)[0])
        assert math.isclose(got.over[k], got.model_over, rel_tol=TOL, abs_tol=TOL * scale)


def _check_pr(got, want, model: str) -> None:
    assert type(got) is RegressionPrecisionRecallCurveResult
    assert np.array_equal(got.thresholds, want.thresholds)
    for field in ("precision", "recall", "f_beta"):
        _close(getattr(got, field), getattr(want, field), 1.0, f"{model} {field}")
    assert np.array_equal(got.n_true_events, want.n_true_events)
    assert np.array_equal(got.n_predicted_events, want.n_predicted_events)
    assert got.beta == want.beta
    _close(got.best_f_beta, want.best_f_beta, 1.0, f"{model} best F")
    if math.isnan(want.best_threshold):
        assert math.isnan(got.best_threshold)
    elif got.best_threshold != want.best_threshold:
        # F tied to rounding at two thresholds (a perfect model's F is flat): the in-memory F
        # at the engine's best threshold is the best F all the same
        at = want.f_beta[want.thresholds == got.best_threshold]
        _close(at, [want.best_f_beta], 1.0, f"{model} F at the best threshold")


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_error_curves_lie_on_the_in_memory_curves(npartitions, weighted):
    df = _frame(1500, seed=npartitions + 10 * weighted)
    weight = "w" if weighted else None
    relevance = relevance_from_boxplot(df["y"].to_numpy())  # one function for both engines
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=MODELS,
        sample_weight=weight,
        relevance=relevance,
        metrics=["mean_absolute_error", "utility_f1", "kendall_tau"],
    )
    mem = evaluate_models(
        df["y"].to_numpy(),
        {m: df[m].to_numpy() for m in MODELS},
        sample_weight=None if weight is None else df[weight].to_numpy(),
        relevance=relevance,
        robustness=False,
    )
    for model in MODELS:
        _check_rec(ev.curves["rec"][model], mem.curves["rec"][model], model)
        _check_rroc(ev.curves["rroc"][model], mem.curves["rroc"][model], model, not weighted)
        if model in mem.curves.get("precision_recall", {}):
            _check_pr(
                ev.curves["precision_recall"][model], mem.curves["precision_recall"][model], model
            )
        else:
            assert model not in ev.curves.get("precision_recall", {})
        for kind in ("rec", "rroc", "precision_recall"):
            key = f"{kind} curve"
            got, want = ev.problems.get(model, {}).get(key), mem.problems.get(model, {}).get(key)
            assert (got is None) == (want is None), (model, key, got, want)
            if want is not None:
                assert got.kind == want.kind and got.message == want.message
    # the area over the REC curve is the mean absolute error the engine reports
    for model in MODELS:
        _close(
            ev.curves["rec"][model].area_over_curve,
            ev.values[model]["mean_absolute_error"],
            1.0,
            "AOC = MAE",
        )
    assert set(ev.extras["curve_points"]) == {"rec", "rroc", "precision_recall"}


@pytest.mark.parametrize("weighted", [False, True])
def test_rows_summarised_in_blocks(monkeypatch, weighted):
    """Partitions summarised in blocks of 97 rows (a block of weight 0 among them): the same
    curves as the in-memory ones (the workers are threads of this process)."""
    from ranklens.dask import _curve_sums

    monkeypatch.setattr(_curve_sums, "BLOCK_ROWS", 97)
    df = _frame(1200, seed=9)
    df.loc[100:250, "w"] = 0.0
    weight = "w" if weighted else None
    relevance = relevance_from_boxplot(df["y"].to_numpy())
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a"],
        sample_weight=weight,
        relevance=relevance,
        metrics=["utility_f1"],
    )
    mem = evaluate_models(
        df["y"].to_numpy(),
        {"a": df["a"].to_numpy()},
        sample_weight=None if weight is None else df[weight].to_numpy(),
        relevance=relevance,
        robustness=False,
    )
    _check_rec(ev.curves["rec"]["a"], mem.curves["rec"]["a"], "a")
    _check_rroc(ev.curves["rroc"]["a"], mem.curves["rroc"]["a"], "a", not weighted)
    _check_pr(ev.curves["precision_recall"]["a"], mem.curves["precision_recall"]["a"], "a")


def test_bounded_points_on_continuous_data():
    """20,000 distinct errors: at most about a thousand points, each on the curve; the exact
    ends and scalars. The default relevance of the engine is the one its measures use."""
    df = _frame(20_000, seed=5, rounded=False)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a"],
        metrics=["utility_f1"],
    )
    y, a = df["y"].to_numpy(), df["a"].to_numpy()
    mem = evaluate_models(y, {"a": a}, relevance=ev.extras["relevance"], robustness=False)
    rec, rroc = ev.curves["rec"]["a"], ev.curves["rroc"]["a"]
    assert 500 <= rec.tolerance.size <= SUMS_POINTS + 2 < mem.curves["rec"]["a"].tolerance.size
    assert 500 <= rroc.shift.size <= SUMS_POINTS + 3 < mem.curves["rroc"]["a"].shift.size
    _check_rec(rec, mem.curves["rec"]["a"], "a")
    _check_rroc(rroc, mem.curves["rroc"]["a"], "a", True)
    _check_pr(ev.curves["precision_recall"]["a"], mem.curves["precision_recall"]["a"], "a")


def test_default_accuracy_needs_the_utility_measures():
    """The precision-recall curve takes the utility measures' fitted default accuracy: without
    them it is named among the curves not built, with the reason; without a relevance
    function too. The REC and RROC curves are built all the same."""
    df = _frame(400, seed=3)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=2),
        y_true="y",
        predictions=["a"],
        relevance=relevance_from_boxplot(df["y"].to_numpy()),
        metrics=["mean_absolute_error"],
    )
    assert "precision_recall" not in ev.curves
    assert "accuracy" in ev.extras["curves_not_built"]["precision_recall"]
    assert set(ev.curves) >= {"rec", "rroc"}
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=2),
        y_true="y",
        predictions=["a"],
        metrics=["mean_absolute_error"],
    )
    assert "relevance" in ev.extras["curves_not_built"]["precision_recall"]
    assert set(ev.curves) >= {"rec", "rroc"}


def test_report_draws_the_curves():
    pytest.importorskip("matplotlib")
    from ranklens.report import figures

    df = _frame(800, seed=2)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
    )
    views = figures.build_figures(ev)
    assert not [v.error for section in views.values() for v in section if v.error]
    titles = {v.title for section in views.values() for v in section}
    assert {"REC curve", "RROC curve"} <= titles
    if figures.any_extreme_caught(ev):
        assert "Precision and recall over the event threshold" in titles
