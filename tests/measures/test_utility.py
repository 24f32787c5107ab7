"""Utility-based precision, recall, F, relevance-weighted errors and SERA (Torgo & Ribeiro 2009)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import precision_score, recall_score

import reference_utility as ref
from ranklens import (
    ControlPointRelevance,
    NoExtremesWarning,
    SigmoidRelevance,
    SmoothAccuracy,
    StepAccuracy,
    UndefinedMetricWarning,
    boxplot_stats,
    get_metric,
    regression_f_beta_curve,
    regression_precision_recall,
    regression_precision_recall_curve,
    relevance_from_boxplot,
    relevance_weighted_absolute_error,
    relevance_weighted_error,
    relevance_weighted_squared_error,
    sera,
    sera_curve,
    smooth_accuracy,
    step_accuracy,
    utility_f1,
    utility_precision,
    utility_recall,
)
from ranklens.metrics import available_metrics

Y = np.array([-5.29, -2.65, -2.43, -0.20, -0.03, 0.03, 0.51, 1.46, 2.53, 2.94])
M1 = np.array([-4.40, -2.06, -2.20, 0.10, -0.23, -0.27, 0.97, 2.00, 1.86, 2.15])
M2 = np.array([-5.09, -2.95, -2.89, 0.69, -0.82, 0.70, -0.08, 0.92, 2.83, 3.17])
# Table 3 reproduces only with centres +-2, k = 0.5, delta = 1e-4, t_E = 0.75,
# eq. 9 with t_L = 0.5 and k = 8 on |yhat - y|.
PHI = SigmoidRelevance(low_center=-2.0, high_center=2.0, k=0.5, delta=1e-4)
ALPHA = smooth_accuracy(0.5, k=8)
TABLE3 = {"relevance": PHI, "event_threshold": 0.75, "accuracy": ALPHA}


def _heavy_tailed(rng, n=400):
    y = rng.standard_t(df=2, size=n)
    return y, y + rng.normal(scale=0.5, size=n)


# ------------------------------------------------------------------------------------------------
# Torgo & Ribeiro (2009) Table 3, value by value


def test_table3_mad_and_mse_are_equal_for_both_models():
    for m in (M1, M2):
        assert np.mean(np.abs(m - Y)) == pytest.approx(0.497, abs=1e-12)
        assert np.mean((m - Y) ** 2) == pytest.approx(0.29893, abs=1e-12)


def test_table3_loss_and_accuracy_rows():
    np.testing.assert_array_equal(
        np.abs(M1 - Y).round(2), [0.89, 0.59, 0.23, 0.30, 0.20, 0.30, 0.46, 0.54, 0.67, 0.79]
    )
    np.testing.assert_array_equal(
        np.abs(M2 - Y).round(2), [0.20, 0.30, 0.46, 0.89, 0.79, 0.67, 0.59, 0.54, 0.30, 0.23]
    )
    np.testing.assert_array_equal(
        ALPHA(Y, M1).round(2), [0.00, 0.00, 0.90, 0.72, 0.94, 0.72, 0.05, 0.00, 0.00, 0.00]
    )
    np.testing.assert_array_equal(
        ALPHA(Y, M2).round(2), [0.94, 0.72, 0.05, 0.00, 0.00, 0.00, 0.00, 0.00, 0.72, 0.90]
    )


@pytest.mark.parametrize(
    ("pred", "recall", "precision"), [(M1, 0.178249, 0.292756), (M2, 0.670344, 0.668162)]
)
def test_table3_recall_and_precision(pred, recall, precision):
    res = regression_precision_recall(Y, pred, **TABLE3)
    assert res.recall == pytest.approx(recall, abs=5e-7)
    assert res.precision == pytest.approx(precision, abs=5e-7)
    # The paper truncates to three decimals.
    assert math.floor(res.recall * 1000) / 1000 == math.floor(recall * 1000) / 1000
    assert res.n_true_events == 5
    assert res.f_beta == pytest.approx(ref.f_beta(precision, recall, 1.0), abs=1e-6)


def test_table3_with_the_texts_parameters_does_not_reproduce():
    """Centres +-1.5 (as the text states) give other numbers (an erratum of the text)."""
    res = regression_precision_recall(
        Y, M1, relevance=SigmoidRelevance(-1.5, 1.5), event_threshold=0.75, accuracy=ALPHA
    )
    assert abs(res.recall - 0.178249) > 1e-3


# ------------------------------------------------------------------------------------------------
# Against the definitional reference


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("t_e", [0.3, 0.5, 0.9, 1.0])
def test_matches_reference_with_ties(rng, weighted, t_e):
    for _ in range(10):
        y = np.round(rng.standard_t(df=3, size=60), 1)
        pred = np.round(y + rng.normal(scale=0.7, size=60), 1)
        pred[:5] = y[:5]  # exact hits
        w = rng.integers(0, 4, size=60).astype(float) if weighted else None
        phi = ControlPointRelevance([(-2.0, 1.0), (0.0, 0.0), (1.5, 1.0)])
        acc = smooth_accuracy(0.8, k=5, loss="squared")
        pt, pp = phi(y), phi(pred)
        alpha = ref.accuracy(y, pred, 0.8, smooth=True, k=5, loss="squared")
        np.testing.assert_allclose(acc(y, pred), alpha, atol=1e-15)
        p_ref, r_ref = ref.precision_recall(pt, pp, alpha, t_e, w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            res = regression_precision_recall(
                y,
                pred,
                relevance=phi,
                event_threshold=t_e,
                accuracy=acc,
                sample_weight=w,
                beta=0.5,
            )
        for got, want in ((res.precision, p_ref), (res.recall, r_ref)):
            if want is None:
                assert math.isnan(got)
            else:
                assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_step_accuracy_matches_reference(rng):
    y, p = rng.normal(size=200), rng.normal(size=200)
    for loss in ("absolute", "squared"):
        np.testing.assert_array_equal(
            step_accuracy(0.6, loss=loss)(y, p), ref.accuracy(y, p, 0.6, smooth=False, loss=loss)
        )
        np.testing.assert_allclose(
            smooth_accuracy(0.6, k=3, loss=loss)(y, p),
            ref.accuracy(y, p, 0.6, smooth=True, k=3, loss=loss),
            atol=1e-15,
        )


def test_accuracy_boundaries():
    assert step_accuracy(0.5)([0.0], [0.5])[0] == 1.0  # L <= t_L counts as accurate
    assert smooth_accuracy(0.5)([0.0], [0.5])[0] == 0.0
    assert smooth_accuracy(0.5, k=8)([1.0], [1.0])[0] == pytest.approx(1 - math.exp(-8))
    assert step_accuracy(0)([1.0, 1.0], [1.0, 1.0 + 1e-12]).tolist() == [1.0, 0.0]


# ------------------------------------------------------------------------------------------------
# Properties (hypothesis)


@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=50),
    st.floats(0.05, 1.0),
)
def test_reduces_to_classification_precision_and_recall(pairs, t_e):
    """Torgo & Ribeiro (2009), Sect. 4.1: 0/1 relevance (eq. 3) with 0/1 accuracy (eqs. 7-8,
    t_L = 0)."""
    y = np.array([float(a) for a, _ in pairs])
    p = np.array([float(b) for _, b in pairs])

    def indicator(v):
        return (np.asarray(v) == 1.0).astype(float)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        res = regression_precision_recall(
            y, p, relevance=indicator, event_threshold=t_e, accuracy=step_accuracy(0.0)
        )
    if p.sum() > 0:
        assert res.precision == pytest.approx(precision_score(y, p))
    else:
        assert math.isnan(res.precision)
    if y.sum() > 0:
        assert res.recall == pytest.approx(recall_score(y, p))
    else:
        assert math.isnan(res.recall)


finite = st.floats(-50, 50, allow_nan=False)


@given(
    st.lists(st.tuples(finite, finite, st.integers(0, 3)), min_size=2, max_size=40),
    st.floats(0.05, 1.0),
    st.floats(0.0, 4.0),
)
def test_bounds_and_integer_weights_equal_repeated_rows(rows, t_e, beta):
    y = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows], dtype=float)
    if w.sum() == 0:
        w[0] = 1.0
    kwargs = {
        "relevance": SigmoidRelevance(-10.0, 10.0),
        "event_threshold": t_e,
        "accuracy": smooth_accuracy(5.0),
        "beta": beta,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        weighted = regression_precision_recall(y, p, sample_weight=w, **kwargs)
        reps = w.astype(int)
        repeated = (
            regression_precision_recall(np.repeat(y, reps), np.repeat(p, reps), **kwargs)
            if reps.sum() >= 2
            else None
        )
    for v in (weighted.precision, weighted.recall, weighted.f_beta):
        assert math.isnan(v) or 0.0 <= v <= 1.0 + 1e-12
    if repeated is not None:
        for a, b in (
            (weighted.precision, repeated.precision),
            (weighted.recall, repeated.recall),
            (weighted.f_beta, repeated.f_beta),
        ):
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9)
        assert weighted.n_true_events == repeated.n_true_events or reps.max() > 1


def test_f_beta_limits():
    res = regression_f_beta_curve(Y, M1, betas=[0.0, 1.0, 1e6], **TABLE3)
    assert res.f_beta[0] == pytest.approx(res.precision)
    assert res.f_beta[2] == pytest.approx(res.recall, rel=1e-9)
    assert res.f_beta[1] == pytest.approx(regression_precision_recall(Y, M1, **TABLE3).f_beta)
    default = regression_f_beta_curve(Y, M2, **TABLE3)
    assert default.betas.shape == (33,) and default.betas[0] == 1 / 16
    # F-beta moves monotonically from precision to recall.
    d = np.diff(default.f_beta)
    assert (d >= -1e-15).all() or (d <= 1e-15).all()
    with pytest.raises(ValueError, match="betas must be non-negative"):
        regression_f_beta_curve(Y, M1, betas=[-1.0], **TABLE3)


# ------------------------------------------------------------------------------------------------
# Undefined cases


def test_no_predicted_events_gives_nan_precision_with_warning():
    flat = np.zeros_like(Y)  # a MAD-style model that never signals an event (footnote 8)
    with pytest.warns(UndefinedMetricWarning, match="no predicted events.*footnote 8"):
        res = regression_precision_recall(Y, flat, **TABLE3)
    assert math.isnan(res.precision) and math.isnan(res.f_beta)
    assert res.n_predicted_events == 0
    assert res.recall == 0.0  # recall is defined (no event was caught)


def test_no_true_events_gives_nan_recall_with_warning():
    y = np.linspace(-1, 1, 20)
    with pytest.warns(UndefinedMetricWarning, match="recall is undefined: no true value"):
        res = regression_precision_recall(y, y * 5, **TABLE3)
    assert math.isnan(res.recall) and res.n_true_events == 0


def test_zero_precision_and_recall_give_zero_f():
    far = np.where(Y > 0, Y + 50.0, Y - 50.0)
    res = regression_precision_recall(Y, far, **TABLE3)
    assert res.precision == 0.0 and res.recall == 0.0 and res.f_beta == 0.0


def test_zero_weight_rows_are_absent():
    w = np.ones(10)
    w[0] = 0.0
    res = regression_precision_recall(Y, M2, sample_weight=w, **TABLE3)
    sub = regression_precision_recall(Y[1:], M2[1:], **TABLE3)
    assert res.precision == pytest.approx(sub.precision)
    assert res.recall == pytest.approx(sub.recall)
    assert (res.n_true_events, res.n_predicted_events) == (
        sub.n_true_events,
        sub.n_predicted_events,
    )


# ------------------------------------------------------------------------------------------------
# Curves


def test_precision_recall_curve_matches_pointwise(rng):
    y, p = _heavy_tailed(rng, 300)
    phi = relevance_from_boxplot(y)
    acc = smooth_accuracy(1.0)
    curve = regression_precision_recall_curve(y, p, relevance=phi, accuracy=acc, beta=2.0)
    assert curve.thresholds.size > 10 and np.all(np.diff(curve.thresholds) > 0)
    assert np.isfinite(curve.f_beta).all()  # default thresholds keep both measures defined
    for j in range(0, curve.thresholds.size, 7):
        one = regression_precision_recall(
            y, p, relevance=phi, accuracy=acc, beta=2.0, event_threshold=curve.thresholds[j]
        )
        assert curve.precision[j] == pytest.approx(one.precision, rel=1e-9)
        assert curve.recall[j] == pytest.approx(one.recall, rel=1e-9)
        assert curve.f_beta[j] == pytest.approx(one.f_beta, rel=1e-9)
        assert curve.n_true_events[j] == one.n_true_events
        assert curve.n_predicted_events[j] == one.n_predicted_events
    assert curve.best_f_beta == pytest.approx(np.nanmax(curve.f_beta))
    d = curve.to_dict()
    assert isinstance(d["thresholds"], list)


def test_precision_recall_curve_user_thresholds_warn_when_undefined():
    with pytest.warns(UndefinedMetricWarning, match="at 2 of 3 thresholds"):
        curve = regression_precision_recall_curve(
            Y, np.zeros(10), relevance=PHI, accuracy=ALPHA, thresholds=[0.5, 0.1, 1e-12]
        )
    np.testing.assert_array_equal(curve.thresholds, [1e-12, 0.1, 0.5])
    assert np.isnan(curve.precision[1:]).all() and np.isfinite(curve.precision[0])
    with pytest.raises(ValueError, match=r"thresholds must lie in \(0, 1\]"):
        regression_precision_recall_curve(Y, M1, relevance=PHI, thresholds=[0.0, 0.5])


# ------------------------------------------------------------------------------------------------
# Relevance-weighted errors and SERA


def test_relevance_weighted_errors(rng):
    y, p = _heavy_tailed(rng)
    phi = relevance_from_boxplot(y)
    w = rng.uniform(0, 2, size=y.size)
    case = phi(y) * w
    expected_sq = np.sum(case * (p - y) ** 2) / case.sum()
    expected_abs = np.sum(case * np.abs(p - y)) / case.sum()
    got = relevance_weighted_squared_error(y, p, relevance=phi, sample_weight=w)
    assert got == pytest.approx(expected_sq)
    assert relevance_weighted_absolute_error(y, p, relevance=phi, sample_weight=w) == (
        pytest.approx(expected_abs)
    )
    # Default relevance is relevance_from_boxplot(y_true).
    assert relevance_weighted_squared_error(y, p) == pytest.approx(
        relevance_weighted_error(y, p, relevance=phi)
    )
    with pytest.warns(UndefinedMetricWarning, match="every true value has zero relevance"):
        assert math.isnan(relevance_weighted_error(Y, M1, relevance=lambda v: np.zeros_like(v)))
    with pytest.raises(ValueError, match="loss must be"):
        relevance_weighted_error(Y, M1, relevance=PHI, loss="huber")


def test_sera_exact_against_integration_and_trapezoid(rng):
    for _ in range(5):
        y = np.round(rng.standard_t(df=3, size=80), 1)
        p = y + rng.normal(size=80)
        phi = relevance_from_boxplot(y, extremes="both", shape="pchip")
        sq = (p - y) ** 2
        exact = ref.sera_exact_by_integration(phi(y), sq)
        assert sera(y, p, relevance=phi) == pytest.approx(exact, rel=1e-12)
        trap = ref.sera_trapezoid(phi(y), sq, step=0.001)
        assert sera(y, p, relevance=phi) == pytest.approx(trap, rel=2e-3)


def test_sera_curve(rng):
    y, p = _heavy_tailed(rng, 200)
    phi = relevance_from_boxplot(y)
    w = rng.integers(0, 3, size=200).astype(float)
    c = sera_curve(y, p, relevance=phi, sample_weight=w)
    sq = w * (p - y) ** 2
    assert c.thresholds[0] == 0.0 and c.thresholds[-1] == 1.0
    assert c.ser[0] == pytest.approx(sq.sum())
    assert np.all(np.diff(c.ser) <= 1e-9)
    for j in range(0, c.thresholds.size, 17):
        assert c.ser[j] == pytest.approx(ref.ser(phi(y), sq, c.thresholds[j]))
    assert c.sera == pytest.approx(sera(y, p, relevance=phi, sample_weight=w))
    assert c.sera == pytest.approx(ref.sera_exact_by_integration(phi(y), sq))


# ------------------------------------------------------------------------------------------------
# Registry and defaults


def test_registered_utility_metrics():
    expected = {
        "utility_precision": True,
        "utility_recall": True,
        "utility_f1": True,
        "sera": False,
        "relevance_weighted_squared_error": False,
        "relevance_weighted_absolute_error": False,
    }
    assert set(expected) <= set(available_metrics("extremes"))
    for name, hib in expected.items():
        spec = get_metric(name)
        assert spec.higher_is_better is hib
        assert spec.family == "extremes"
        assert spec.supports_sample_weight


def test_scalar_defaults_use_boxplot_relevance_and_half_iqr_accuracy(rng):
    y, p = _heavy_tailed(rng)
    # the IQR of the default box plot: Tukey's hinges (R's fivenum), no longer type 7
    box = boxplot_stats(y)
    q1, q3 = box.q1, box.q3
    assert box.quartiles == "hinges"
    full = regression_precision_recall(
        y,
        p,
        relevance=relevance_from_boxplot(y, extremes="auto"),
        accuracy=SmoothAccuracy((q3 - q1) / 2, k=8),
    )
    assert utility_precision(y, p) == full.precision
    assert utility_recall(y, p) == full.recall
    assert utility_f1(y, p) == full.f_beta
    assert regression_precision_recall(y, p).precision == full.precision
    spec = get_metric("utility_f1")
    assert spec(y, p, sample_weight=np.ones_like(y)) == pytest.approx(full.f_beta)


def test_scalar_defaults_without_outliers_warn_then_fall_back():
    y = np.linspace(-1, 1, 50)
    with pytest.warns(NoExtremesWarning), pytest.warns(UndefinedMetricWarning):
        assert math.isnan(utility_recall(y, y))


def test_scalar_default_accuracy_needs_a_spread():
    y = np.r_[np.zeros(10), 1.0, 5.0, -5.0, 0.0]
    with pytest.raises(ValueError, match=r"(IQR|degenerate)"):
        utility_f1(y, y)
    with pytest.raises(ValueError, match="needs an interquartile range > 0"):
        utility_f1(y, y, relevance=PHI)


# ------------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("y_true", "y_pred", "pattern"),
    [
        ([1.0, np.nan, 2.0], [1.0, 2.0, 3.0], "y_true contains 1 NaN"),
        ([1.0, 2.0, 3.0], [1.0, np.inf, 3.0], "y_pred contains 1 infinite"),
        ([1.0, 2.0, 3.0], [1.0, 2.0], "same length"),
        ([1.0], [1.0], "at least 2"),
        (["a", "b"], [1.0, 2.0], "y_true must be numeric"),
    ],
)
def test_bad_arrays(y_true, y_pred, pattern):
    # strings are data of the wrong kind: TypeError (ValueError before validation said so)
    error = (TypeError, ValueError) if "numeric" in pattern else ValueError
    with pytest.raises(error, match=pattern):
        regression_precision_recall(y_true, y_pred, relevance=PHI, accuracy=ALPHA)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"relevance": 3.0}, "relevance must be a callable"),
        ({"relevance": lambda v: np.full(len(v), 1.5)}, r"relevance must map y_true into \[0, 1\]"),
        ({"relevance": lambda v: np.full(len(v), np.nan)}, "NaN present"),
        ({"relevance": lambda v: np.ones(3)}, "one value per element of y_true"),
        ({"relevance": lambda v: 1.0}, "one value per element of y_true"),
        ({"relevance": lambda v: v[10**6]}, "relevance could not be evaluated"),
        ({"accuracy": "smooth"}, "accuracy must be a callable"),
        ({"accuracy": lambda a, b: np.full(a.shape, 2.0)}, r"finite values in \[0, 1\]"),
        ({"accuracy": lambda a, b: np.ones(2)}, "one value per pair"),
        ({"event_threshold": 0.0}, r"event_threshold must be in \(0, 1\]"),
        ({"event_threshold": 1.5}, r"event_threshold must be in \(0, 1\]"),
        ({"event_threshold": "x"}, "event_threshold must be a number"),
        ({"beta": -1.0}, "beta must be a finite non-negative"),
        ({"beta": np.inf}, "beta must be a finite non-negative"),
        ({"sample_weight": [-1.0] * 10}, "sample_weight must be non-negative"),
        ({"sample_weight": [1.0] * 3}, "sample_weight has length 3"),
    ],
)
def test_bad_parameters(kwargs, pattern):
    params = {"relevance": PHI, "accuracy": ALPHA, **kwargs}
    with pytest.raises(ValueError, match=pattern):
        regression_precision_recall(Y, M1, **params)


@pytest.mark.parametrize(
    ("factory", "args", "pattern"),
    [
        (step_accuracy, (-0.1,), "threshold must be a finite non-negative"),
        (smooth_accuracy, (0.0,), "threshold must be a finite positive"),
        (smooth_accuracy, (np.nan,), "threshold must be a finite positive"),
        (smooth_accuracy, ("a",), "threshold must be a non-negative number"),
        (lambda t: smooth_accuracy(t, k=0), (0.5,), "k must be a positive number"),
        (lambda t: step_accuracy(t, loss="huber"), (0.5,), "loss must be"),
    ],
)
def test_bad_accuracy(factory, args, pattern):
    with pytest.raises(ValueError, match=pattern):
        factory(*args)


def test_accuracy_objects_are_frozen_and_readable():
    acc = smooth_accuracy(0.5)
    assert repr(acc) == "SmoothAccuracy(threshold=0.5, k=8.0, loss='absolute')"
    assert isinstance(step_accuracy(1), StepAccuracy)
    with pytest.raises(AttributeError):
        acc.k = 3  # type: ignore[misc]


def test_array_likes(rng):
    y, p = _heavy_tailed(rng, 100)
    base = regression_precision_recall(y, p, relevance=PHI, accuracy=ALPHA)
    for conv in (pd.Series, pl.Series, list):
        res = regression_precision_recall(conv(y), conv(p), relevance=PHI, accuracy=ALPHA)
        assert res.to_dict() == base.to_dict()


def test_large_n_matches_numpy(rng):
    n = 1_000_000
    y = rng.standard_t(df=3, size=n)
    p = y + rng.normal(size=n)
    res = regression_precision_recall(y, p, relevance=PHI, accuracy=ALPHA, event_threshold=0.6)
    pt, pp = PHI(y), PHI(p)
    d = np.abs(p - y)
    alpha = np.where(d <= 0.5, 1 - np.exp(-8 * (d - 0.5) ** 2 / 0.25), 0.0)
    et, ep = pt >= 0.6, pp >= 0.6
    assert res.recall == pytest.approx(np.sum(alpha[et] * pt[et]) / pt[et].sum(), rel=1e-9)
    assert res.precision == pytest.approx(np.sum(alpha[ep] * pp[ep]) / pp[ep].sum(), rel=1e-9)
    assert res.n_true_events == int(et.sum())


@pytest.mark.parametrize(
    "metric",
    [utility_precision, utility_recall, utility_f1, sera, relevance_weighted_squared_error],
)
def test_defaults_with_integer_weights_equal_repeated_rows(rng, metric):
    y, p = _heavy_tailed(rng, 150)
    w = rng.integers(0, 4, size=150).astype(float)
    reps = w.astype(int)
    assert metric(y, p, sample_weight=w) == pytest.approx(
        metric(np.repeat(y, reps), np.repeat(p, reps)), rel=1e-12
    )
