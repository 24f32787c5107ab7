"""The gain area, the accuracy ratio and the decile table: the same bits on Dask as in memory.

Without weights the gain curve's points are integer counts, so both engines compute the area and
the accuracy ratio as ratios of exact integers (one rounding each): the value does not depend on
the partitioning or on n, and equals an exact rational reference. The decile table reads the
same interpolations of the same integer counts. With weights the running sums are floats and the
engines agree to rounding (1e-12 relative).
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from ranklens import accuracy_ratio, gain_area
from ranklens.targeting import decile_table

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402

NAMES = ["gain_area", "accuracy_ratio", "roc_auc"]


def _data(n: int = 3000, seed: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(float)
    return pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=n) + y, 1),  # tie runs straddling partitions
            "b": rng.integers(0, 5, n).astype(float),  # a few huge tie blocks
            "w": rng.uniform(0.1, 3.0, n),
        }
    )


def _exact_gain(y: np.ndarray, score: np.ndarray) -> tuple[Fraction, Fraction]:
    """Brute force in rationals: the trapezoid area under (W(s)/W, E(s)/E) over the distinct
    scores s in decreasing order, and (area - 1/2) / (perfect - 1/2), perfect = 1 - E / (2 W)."""
    W, E = len(y), int(y.sum())
    area = Fraction(0)
    w_prev = e_prev = 0
    for s in sorted(set(score.tolist()), reverse=True):
        at = score == s
        w_now, e_now = w_prev + int(at.sum()), e_prev + int(y[at].sum())
        area += Fraction(w_now - w_prev, W) * (Fraction(e_now, E) + Fraction(e_prev, E)) / 2
        w_prev, e_prev = w_now, e_now
    perfect = 1 - Fraction(E, 2 * W)
    return area, (area - Fraction(1, 2)) / (perfect - Fraction(1, 2))


def test_in_memory_gain_area_is_correctly_rounded():
    df = _data(n=1500)
    y = df["y"].to_numpy()
    for model in ("a", "b"):
        area, ratio = _exact_gain(y, df[model].to_numpy())
        assert gain_area(y, df[model].to_numpy()) == float(area)
        assert accuracy_ratio(y, df[model].to_numpy()) == float(ratio)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_gain_and_decile_table_bit_identical_without_weights(client, npartitions):
    df = _data()
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        metrics=NAMES,
    )
    y = df["y"].to_numpy()
    for model in ("a", "b"):
        p = df[model].to_numpy()
        assert ev.values[model]["gain_area"] == gain_area(y, p)
        assert ev.values[model]["accuracy_ratio"] == accuracy_ratio(y, p)
        want, got = decile_table(y, p), ev.curves["decile_table"][model]
        for field in want._COLUMNS:
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field), field)
        assert got.ks_max == want.ks_max


@pytest.mark.parametrize("npartitions", [1, 4])
def test_dask_gain_with_weights_to_rounding(client, npartitions):
    df = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = rd.evaluate(
            dd.from_pandas(df, npartitions=npartitions),
            y_true="y",
            predictions=["a", "b"],
            sample_weight="w",
            metrics=NAMES,
        )
    y, w = df["y"].to_numpy(), df["w"].to_numpy()
    for model in ("a", "b"):
        p = df[model].to_numpy()
        want = {
            "gain_area": gain_area(y, p, sample_weight=w),
            "accuracy_ratio": accuracy_ratio(y, p, sample_weight=w),
        }
        for name, value in want.items():
            assert ev.values[model][name] == pytest.approx(value, rel=1e-12), (model, name)
