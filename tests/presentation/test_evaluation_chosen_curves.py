"""An evaluation of chosen measures (``metrics=``) computes the curves of their families only."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import ranklens.evaluation as evaluation
from ranklens.metrics import get_curve
from ranklens.report import evaluate_models


@pytest.fixture(scope="module")
def task():
    rng = np.random.default_rng(11)
    n = 90
    y = rng.lognormal(size=n)
    predictions = {"a": y + rng.normal(size=n), "b": 0.5 * y + rng.random(n)}
    return y, predictions


def _computed(monkeypatch):
    """The names of the curves the evaluation computes, as it computes them."""
    names: list[str] = []
    real = evaluation._curve_results

    def recording(spec, *args, **kwargs):
        names.append(spec.name)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(evaluation, "_curve_results", recording)
    return names


def test_a_measure_of_the_residuals_computes_no_ranked_curve(task, monkeypatch):
    y, predictions = task
    full = evaluate_models(y, predictions, robustness=False)
    names = _computed(monkeypatch)

    def refuse(*args, **kwargs):
        raise AssertionError("a targeting curve was computed")

    # the ranked curves of the targeting family (ROC, gain, lift, ...) all start here
    monkeypatch.setattr("ranklens.targeting._prepare", refuse)
    chosen = evaluate_models(y, predictions, robustness=False, metrics=["mean_absolute_error"])
    assert names and {get_curve(name).family for name in names} == {"residual"}
    assert "gain" in full.curves and set(chosen.curves) == {
        name for name in full.curves if get_curve(name).family == "residual"
    }
    for name, by_model in chosen.curves.items():
        for model, curve in by_model.items():
            for field in dataclasses.fields(curve):
                np.testing.assert_array_equal(
                    getattr(curve, field.name), getattr(full.curves[name][model], field.name)
                )
    assert chosen.values == {
        model: {"mean_absolute_error": row["mean_absolute_error"]}
        for model, row in full.values.items()
    }


def test_without_a_choice_every_curve_is_computed(task, monkeypatch):
    y, predictions = task
    names = _computed(monkeypatch)
    evaluate_models(y, predictions, robustness=False)
    assert {get_curve(name).family for name in names} >= {"residual", "targeting", "ranking"}
