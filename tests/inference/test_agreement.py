"""compare_metric_rankings: agreement of models' metric rankings (Torgo & Ribeiro 2009, Fig. 2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau, rankdata

from ranklens import (
    SigmoidRelevance,
    UndefinedMetricWarning,
    compare_metric_rankings,
    get_metric,
    sera,
    utility_f1,
)
from ranklens.metrics import available_metrics


def _models(rng, n=600):
    """Half the models are precise in the bulk but clip the extremes, half track the extremes."""
    y = rng.standard_t(df=2.5, size=n)
    preds = {}
    for i in range(6):
        clip = 3.2 + 0.1 * i
        preds[f"bulk{i}"] = np.clip(y, -clip, clip) + rng.normal(scale=0.05, size=n)
    for i in range(6):
        noise = 0.3 + 0.1 * i
        preds[f"tail{i}"] = y + rng.normal(scale=noise, size=n)
    return y, preds


def test_scores_ranks_and_agreement_match_direct_computation(rng):
    y, preds = _models(rng)
    metrics = ["utility_f1", "sera", "relevance_weighted_absolute_error", "utility_recall"]
    res = compare_metric_rankings(y, preds, metrics=metrics, top_k=3)
    assert res.models == tuple(preds)
    assert res.metrics == tuple(metrics)
    assert res.higher_is_better == (True, False, False, True)
    for j, name in enumerate(metrics):
        direct = [get_metric(name)(y, p) for p in preds.values()]
        np.testing.assert_allclose(res.scores[:, j], direct)
        sign = 1 if res.higher_is_better[j] else -1
        np.testing.assert_array_equal(res.ranks[:, j], rankdata(-sign * np.array(direct)))
        assert res.best_models[j] == list(preds)[int(np.argmin(res.ranks[:, j]))]
    for a in range(len(metrics)):
        for b in range(len(metrics)):
            expected = kendalltau(res.ranks[:, a], res.ranks[:, b])
            assert res.kendall_tau[a, b] == pytest.approx(expected.statistic)
            if a != b:
                assert res.kendall_pvalue[a, b] == pytest.approx(expected.pvalue)
    assert res.top_k == 3
    np.testing.assert_array_equal(np.diag(res.top_k_overlap), 1.0)
    assert res.to_dict()["metrics"] == metrics


def test_mad_and_utility_f_disagree_as_in_figure_2(rng):
    if "mean_absolute_error" not in available_metrics():
        pytest.skip("the residual metrics are not registered yet")
    y, preds = _models(rng)
    res = compare_metric_rankings(y, preds, metrics=["mean_absolute_error", "utility_f1"], top_k=5)
    # MAD's top five are all bulk models, F's all tail models: the rankings barely agree.
    assert res.kendall_tau[0, 1] < 0.2
    assert res.top_k_overlap[0, 1] == 0.0
    assert res.best_models[0].startswith("bulk") and res.best_models[1].startswith("tail")


def test_direction_comes_from_the_registry(rng):
    y, preds = _models(rng)
    res = compare_metric_rankings(y, preds, metrics=["sera", "relevance_weighted_squared_error"])
    # Both lower-is-better: the best model has the smallest score.
    for j in range(2):
        assert res.scores[np.argmin(res.ranks[:, j]), j] == np.min(res.scores[:, j])
    assert res.kendall_tau[0, 1] > 0.9


def test_undefined_scores_rank_last_and_warn_once():
    y = np.r_[np.linspace(-1, 1, 40), 6.0, 7.0, -6.0]
    preds = {"silent": np.zeros_like(y), "good": y + 0.01, "ok": y * 0.9, "silent2": y * 0.01}
    with pytest.warns(UndefinedMetricWarning, match="no predicted events") as rec:
        res = compare_metric_rankings(y, preds, metrics=["utility_f1", "sera"], top_k=2)
    messages = [str(r.message) for r in rec if "no predicted events" in str(r.message)]
    assert len(messages) == 1
    f1 = res.scores[:, 0]
    assert math.isnan(f1[0]) and math.isnan(f1[3])
    assert res.ranks[0, 0] == res.ranks[3, 0] == 3.5
    assert set(np.array(res.models)[np.argsort(res.ranks[:, 0])[:2]]) == {"good", "ok"}
    assert res.scores[1, 0] == pytest.approx(utility_f1(y, preds["good"]))
    assert res.scores[2, 1] == pytest.approx(sera(y, preds["ok"]))


def test_constant_ranking_gives_nan_tau_with_warning():
    y = np.r_[np.linspace(-1, 1, 40), 6.0, 7.0]
    preds = {"a": np.zeros_like(y), "b": np.zeros_like(y) + 1e-3}
    # utility_precision is undefined (NaN, ranked last and tied) for both models.
    with pytest.warns(UndefinedMetricWarning) as rec:
        res = compare_metric_rankings(y, preds, metrics=["utility_precision", "sera"])
    assert any("gives every model the same rank" in str(r.message) for r in rec)
    assert math.isnan(res.kendall_tau[0, 1]) and math.isnan(res.kendall_tau[0, 0])
    assert res.kendall_tau[1, 1] == 1.0


def test_sample_weight_is_passed_to_every_metric(rng):
    y, preds = _models(rng, 200)
    w = rng.integers(0, 3, size=200).astype(float)
    res = compare_metric_rankings(y, preds, metrics=["sera"], sample_weight=w)
    assert res.scores[0, 0] == pytest.approx(sera(y, preds["bulk0"], sample_weight=w))


def test_top_k_is_capped_and_ties_follow_input_order():
    y = np.r_[np.linspace(-1, 1, 40), 6.0, 7.0, -6.0]
    phi = SigmoidRelevance(-2.0, 2.0)
    assert phi is not None
    same = y + 0.2
    res = compare_metric_rankings(y, {"x": same, "y": same.copy()}, metrics=["sera"], top_k=10)
    assert res.top_k == 2
    assert res.best_models == ("x",)


@pytest.mark.parametrize(
    ("predictions", "metrics", "pattern"),
    [
        ([np.zeros(5)], ["sera"], "predictions must be a mapping"),
        ({"a": np.zeros(5)}, ["sera"], "at least two models"),
        ({"a": np.zeros(5), "b": np.ones(5)}, [], "at least one metric"),
        ({"a": np.zeros(5), "b": np.ones(5)}, ["sera", "sera"], "duplicates"),
        ({"a": np.zeros(5), "b": np.ones(5)}, ["no_such_metric"], "unknown metric"),
        ({"a": np.zeros(5), "b": np.ones(4)}, ["sera"], r"predictions\['b'\]"),
        ({"a": np.zeros(5), "b": [np.nan] * 5}, ["sera"], r"predictions\['b'\] contains 5 NaN"),
    ],
)
def test_bad_input(predictions, metrics, pattern):
    y = np.array([1.0, 2.0, 3.0, 4.0, 50.0])
    with pytest.raises(ValueError, match=pattern):
        compare_metric_rankings(y, predictions, metrics=metrics)


def test_interval_metrics_are_rejected():
    interval = [m for m in available_metrics(inputs="interval")]
    if not interval:
        pytest.skip("no interval metric registered yet")
    y = np.array([1.0, 2.0, 3.0, 4.0, 50.0])
    with pytest.raises(ValueError, match="only point metrics"):
        compare_metric_rankings(y, {"a": y, "b": y}, metrics=[interval[0]])


def test_bad_top_k():
    y = np.array([1.0, 2.0, 3.0, 4.0, 50.0])
    with pytest.raises(ValueError, match="top_k must be an integer"):
        compare_metric_rankings(y, {"a": y, "b": y}, metrics=["sera"], top_k=0)


def test_metric_specs_with_bound_parameters_are_accepted():
    """A spec whose func binds a relevance learnt elsewhere is used as given, under its name."""
    import dataclasses
    import functools

    from ranklens import SigmoidRelevance, utility_f1
    from ranklens.metrics import get_metric

    rng = np.random.default_rng(3)
    y = np.r_[rng.normal(size=200), 4.0, 5.0, -4.5]
    preds = {"good": y + rng.normal(scale=0.1, size=y.size), "bad": rng.normal(size=y.size)}
    phi = SigmoidRelevance(low_center=-2.0, high_center=2.0)
    bound = dataclasses.replace(
        get_metric("utility_f1"), func=functools.partial(utility_f1, relevance=phi)
    )
    res = compare_metric_rankings(y, preds, metrics=[bound, "mean_absolute_error"], top_k=1)
    assert res.metrics == ("utility_f1", "mean_absolute_error")
    expected = [utility_f1(y, preds[m], relevance=phi) for m in ("good", "bad")]
    np.testing.assert_allclose(res.scores[:, 0], expected)
    assert res.best_models == ("good", "good")
