"""evaluate_models passes NDCG's task parameters (k, gains) by name, as the Dask engine does."""

import warnings

import numpy as np
import pandas as pd
import pytest

from ranklens import evaluate_models, ndcg_score


def _evaluate(y, preds, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_models(y, preds, robustness=False, curves=False, **kwargs)


@pytest.mark.parametrize(
    ("k", "gains"), [(None, None), (5, None), (None, "exponential"), (7, "exponential")]
)
def test_ndcg_task_parameters_reach_the_measure(rng, k, gains):
    y = rng.integers(0, 5, 60).astype(float)  # ties in the truth
    preds = {"a": y + rng.normal(0, 1, 60), "b": np.round(rng.normal(0, 1, 60), 1)}  # ties
    ev = _evaluate(y, preds, k=k, gains=gains)
    expected_kwargs = {name: v for name, v in (("k", k), ("gains", gains)) if v is not None}
    for model, p in preds.items():
        assert ev.values[model]["ndcg_score"] == ndcg_score(y, p, **expected_kwargs)
    for name, v in expected_kwargs.items():
        assert ev.settings[name] == v


def test_ndcg_task_parameters_with_weights_and_csv_columns(tmp_path, rng):
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 4, 80).astype(float),
            "p": rng.normal(size=80),
            "w": rng.integers(1, 4, 80),
        }
    )
    frame.to_csv(tmp_path / "d.csv", index=False)
    read = pd.read_csv(tmp_path / "d.csv")
    ev = _evaluate(read["y"], {"m": read["p"]}, sample_weight=read["w"], k=10, gains="exponential")
    expected = ndcg_score(
        frame["y"].to_numpy(),
        frame["p"].to_numpy(),
        sample_weight=frame["w"].to_numpy(),
        k=10,
        gains="exponential",
    )
    assert ev.values["m"]["ndcg_score"] == pytest.approx(expected, rel=1e-15, abs=0)


def test_a_rejected_k_leaves_ndcg_nan_with_the_measure_message(rng):
    y = rng.normal(size=30)
    ev = _evaluate(y, {"m": y + rng.normal(size=30)}, k=0)
    assert np.isnan(ev.values["m"]["ndcg_score"])
    assert "k" in str(ev.problems["m"]["ndcg_score"])
