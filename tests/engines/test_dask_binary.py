"""The measures of a 0/1 target on Dask equal the in-memory ones (the defaults of the target)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens as rl  # noqa: E402


def _frame(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(np.int64)
    good = np.round(np.clip(0.2 + 0.4 * (y - 0.2) + rng.normal(0, 0.2, n), 0, 1), 2)
    return pd.DataFrame(
        {
            "y": y,
            "good": good,
            "fair": np.round(rng.random(n), 2),
            "raw": good * 4 - 1.0,  # not probabilities
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_defaults_on_dask_equal_memory(client, weighted):
    f = _frame()
    kw = {"sample_weight": "w"} if weighted else {}
    models = ["good", "fair", "raw"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", models, data=f, n_bootstrap=0, **kw)
        dsk = rl.evaluate_models(
            "y", models, data=dd.from_pandas(f, npartitions=4), engine="dask", **kw
        )
    assert "binary target" in mem.settings and "binary target" in dsk.settings
    assert set(mem.metrics) == set(dsk.metrics)
    for gone in ("utility_f1", "sera", "log_rmse", "rmspe"):
        assert gone not in mem.metrics
    checked = 0
    for model in models:
        for name in (
            "brier_score_loss",
            "log_loss",
            "precision_at_10",
            "recall_at_20",
            "average_precision_score",
        ):
            a, b = mem.values[model][name], dsk.values[model][name]
            if model == "raw" and name in ("brier_score_loss", "log_loss"):
                assert math.isnan(a) and math.isnan(b)
                assert mem.problems[model][name].kind == "skipped"
                assert dsk.problems[model][name].kind == "skipped"
                continue
            assert b == pytest.approx(a, rel=1e-10), (model, name)
            checked += 1
    assert checked == 13


def test_positive_label_is_refused_on_dask(client):
    f = _frame()
    with pytest.raises(ValueError, match="positive_label"):
        rl.evaluate_models(
            "y",
            ["good"],
            data=dd.from_pandas(f, npartitions=2),
            engine="dask",
            positive_label=1,
        )


def test_continuous_target_keeps_its_measures(client):
    rng = np.random.default_rng(3)
    y = rng.gamma(2.0, 2.0, 500)
    ev = rl.evaluate_models(y, {"a": y + rng.normal(0, 1, 500)}, n_bootstrap=0)
    assert "binary target" not in ev.settings
    assert "sera" in ev.metrics and "rmspe" in ev.metrics
    assert "average_precision_score" not in ev.metrics and "brier_score_loss" not in ev.metrics
