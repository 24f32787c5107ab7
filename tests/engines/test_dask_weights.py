"""Weighted evaluation: the Dask engine and the in-memory pipeline give the same numbers.

Both pass the case weights as given to every measure. A scale-free measure (a weighted mean, a
weighted AUC) does not change when every weight is multiplied by c; a measure that is a sum does,
as its definition says: SERA (Ribeiro & Moniz 2020) multiplies by c, and NDCG with weights as
multiplicities is computed on a list c times as long. The pipeline once rescaled the weights to
mean 1 before calling the measures, so its weighted SERA was SERA * n / sum(w).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import evaluate_models, ndcg_score, sera  # noqa: E402

TOL = 1e-12
NAMES = [
    "sera",
    "ndcg_score",
    "mean_squared_error",
    "relevance_weighted_squared_error",
    "utility_f1",
    "roc_auc",
    "gain_area",
    "kendall_tau",
]


def _data(n: int = 2000, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # skewed, rounded: box-plot outliers in the high tail, tie runs across partitions
    y = np.round(np.exp(rng.normal(size=n)), 1)
    return pd.DataFrame(
        {
            "y": y,
            "a": np.round(y + rng.normal(size=n), 1),
            "b": np.round(0.5 * y + rng.normal(size=n), 1),
            # weights far from mean 1: a rescaling to mean 1 would change SERA by ~40x
            "w": rng.uniform(10.0, 70.0, n),
        }
    )


def _in_memory(df: pd.DataFrame, w: np.ndarray) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_models(
            df["y"],
            {"a": df["a"], "b": df["b"]},
            sample_weight=w,
            robustness=False,
            curves=False,
        )


def _same(got: float, want: float) -> bool:
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return abs(got - want) <= TOL * max(1.0, abs(want))


def test_pipeline_passes_weights_as_given():
    """evaluate_models' weighted SERA and NDCG equal the measure functions called directly with
    the same weights, and scale with the weights as their definitions say; the scale-free
    measures do not move."""
    df = _data(n=800)
    w = df["w"].to_numpy()
    one, seven = _in_memory(df, w), _in_memory(df, 7.0 * w)
    y, a = df["y"].to_numpy(), df["a"].to_numpy()
    assert one.values["a"]["sera"] == sera(y, a, sample_weight=w)
    assert one.values["a"]["ndcg_score"] == ndcg_score(y, a, sample_weight=w)
    assert seven.values["a"]["sera"] == pytest.approx(7.0 * one.values["a"]["sera"], rel=1e-13)
    for name in ("mean_squared_error", "roc_auc", "kendall_tau", "utility_f1", "gain_area"):
        assert _same(seven.values["a"][name], one.values["a"][name]), name


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_equals_in_memory_with_weights(client, npartitions):
    """Every listed measure, both models: the Dask engine's weighted number equals the in-memory
    pipeline's (floats to 1e-12 relative), whatever the partitioning."""
    df = _data()
    ref = _in_memory(df, df["w"].to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = rd.evaluate(
            dd.from_pandas(df, npartitions=npartitions),
            y_true="y",
            predictions=["a", "b"],
            sample_weight="w",
            metrics=NAMES,
        )
    compared = 0
    for model in ("a", "b"):
        for name in NAMES:
            if name not in ev.values[model]:
                continue
            got, want = ev.values[model][name], ref.values[model][name]
            assert _same(got, want), (model, name, got, want)
            compared += 1
    assert compared >= 2 * 6  # at least the sums and the rank measures were computed
    assert math.isfinite(ev.values["a"]["sera"]) and ev.values["a"]["sera"] > 0
