"""The reproducers of the field report, one regression test each.

A new user's real CSV (pandas 3: read-only ``to_numpy()``), polars and Arrow columns crashed the
business curves with a numba ``TypingError``; masked arrays and numbers-as-strings gave numbers;
extreme weights gave wrong signs or raised; swapped arguments passed silently.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import ranklens as rl
from ranklens.exceptions import DomainError, SwappedArgumentsWarning

pl = pytest.importorskip("polars")

rng = np.random.default_rng(11)
N = 300
Y = rng.lognormal(size=N)
SCORE = Y * rng.lognormal(sigma=0.7, size=N)
LABEL = (Y > np.quantile(Y, 0.8)).astype(np.float64)
W = rng.integers(1, 4, N).astype(np.float64)


def _from_csv(**columns: np.ndarray) -> pd.DataFrame:
    text = pd.DataFrame(columns).to_csv(index=False)
    return pd.read_csv(io.StringIO(text))


def _readonly(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out.flags.writeable = False
    return out


FRAME = _from_csv(y=LABEL, value=Y, score=SCORE, w=W)


@pytest.mark.parametrize(
    "kind", ["numpy-readonly", "pandas-csv", "polars", "arrow-backed"], ids=str
)
@pytest.mark.parametrize(
    "call",
    [
        lambda y, s, w: rl.roc_auc(y, s, sample_weight=w),
        lambda y, s, w: rl.roc_curve(y, s, sample_weight=w).auc,
        lambda y, s, w: rl.gain_curve(y, s, sample_weight=w).area,
        lambda y, s, w: rl.lift_at_10(y, s, sample_weight=w),
        lambda y, s, w: rl.lift_curve(y, s, sample_weight=w).at(0.2),
        lambda y, s, w: rl.decile_table(y, s, sample_weight=w).cumulative_gain[-1],
        lambda y, s, w: (
            rl.profit_curve(y, s, cost_benefit=((4, 0), (-5, 0)), sample_weight=w).best_profit
        ),
        lambda y, s, w: rl.best_model_by_depth(y, {"a": s, "b": -s}, sample_weight=w).winner[0],
    ],
    ids=["roc_auc", "roc_curve", "gain", "lift_at_10", "lift_curve", "decile", "profit", "best"],
)
def test_business_curves_on_user_containers(call, kind):
    convert = {
        "numpy-readonly": _readonly,
        "pandas-csv": lambda a: FRAME[{id(LABEL): "y", id(SCORE): "score", id(W): "w"}[id(a)]],
        "polars": pl.Series,
        "arrow-backed": lambda a: pd.Series(a, dtype="double[pyarrow]"),
    }[kind]
    expected = call(LABEL, SCORE, W)
    assert call(convert(LABEL), convert(SCORE), convert(W)) == expected


def test_value_gain_on_a_pandas_3_column():
    expected = rl.gain_curve(Y, SCORE, events="value").area
    assert rl.gain_curve(FRAME["value"], FRAME["score"], events="value").area == expected


def test_roc_auc_on_a_csv_column_equals_sklearn():
    got = rl.roc_auc(FRAME["y"], FRAME["score"], sample_weight=FRAME["w"])
    assert got == pytest.approx(roc_auc_score(LABEL, SCORE, sample_weight=W), abs=1e-15)


def test_masked_array_and_string_series_are_refused():
    with pytest.raises(TypeError, match="masked"):
        rl.mean_squared_error(np.ma.masked_array([1.0, 2, 1e9], mask=[0, 0, 1]), [1.0, 2, 3])
    with pytest.raises(TypeError, match="y_true must be numeric"):
        rl.mean_squared_error(pd.Series(["1.5", "2", "3"]), [1, 2, 3])


@pytest.mark.parametrize("scale", [1e-150, 1e-100, 1.0, 1e75, 1e150])
def test_rank_measures_are_scale_free_in_the_weights(scale):
    y, p = [1, 2, 3, 4, 5], [1, 3, 2, 5, 4]
    w = np.full(5, scale)
    assert rl.spearman_rho(y, p, sample_weight=w) == pytest.approx(0.8, abs=1e-15)
    assert rl.kendall_tau(y, p, sample_weight=w) == pytest.approx(0.6, abs=1e-15)


def test_weights_with_an_infinite_total_are_refused():
    with pytest.raises(ValueError, match="sample_weight sums to inf"):
        rl.median_absolute_error([1.0, 2, 3, 4, 5], [1.0, 2, 3, 4, 6], sample_weight=[1e308] * 5)


def test_swapped_arguments_warn():
    with pytest.warns(SwappedArgumentsWarning, match="look swapped"):
        rl.roc_curve(SCORE, LABEL)
    with pytest.warns(SwappedArgumentsWarning):
        rl.roc_auc(SCORE, LABEL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rl.roc_curve(LABEL, SCORE)  # the right order is silent
        rl.roc_curve(Y, SCORE)  # a continuous score is silent


def test_data_outside_a_measures_domain_is_a_domain_error():
    with pytest.raises(DomainError, match="non-negative"):
        rl.ndcg_score([1.0, -1.0, 2.0], [1, 2, 3])
    with pytest.raises(DomainError, match="non-negative"):
        rl.gain_curve([1.0, -1.0, 2.0], [1, 2, 3], events="value")
    assert issubclass(DomainError, ValueError)  # code catching ValueError keeps working
