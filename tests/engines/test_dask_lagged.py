"""ranklens.dask: pmap (a mean loss over the mean lag-1 change of the truth, in row order) equals
the in-memory value, whatever the partitioning.

The reference is the registered function called as the in-memory pipeline calls it
(``evaluation.score_quietly``): the same value to 1e-12 (relative), and the same problem kind
and message where it is undefined. The lag-1 changes across partition boundaries are the ones a
piece-wise sum would lose.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask  # noqa: E402

import ranklens.dask as rd  # noqa: E402
from ranklens import pmap  # noqa: E402
from ranklens._foundation.forms import LagScaledForm  # noqa: E402
from ranklens._foundation.problems import score_quietly  # noqa: E402
from ranklens.dask import _engine as _e  # noqa: E402
from ranklens.dask import _lagged as _lag  # noqa: E402
from ranklens.metrics import get_metric  # noqa: E402

pytestmark = pytest.mark.usefixtures("client")  # the LocalCluster of conftest.py

TOL = 1e-12


def _data(n: int = 900, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # a series with runs (zero lag-1 changes) and jumps, so partition boundaries matter
    y = np.cumsum(rng.normal(size=n)).round(1)
    y[100:140] = 7.0
    return pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(scale=0.5, size=n),
            "b": np.round(y + rng.normal(size=n)),  # ties
            "w": rng.uniform(0.0, 3.0, n),
        }
    )


def _reference(df: pd.DataFrame, model: str, weight: str | None):
    kw = {} if weight is None else {"sample_weight": df[weight].to_numpy()}
    return score_quietly(pmap, df["y"].to_numpy(), df[model].to_numpy(), **kw)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(b))


@pytest.mark.parametrize("npartitions", [1, 3, 7])
@pytest.mark.parametrize("weight", [None, "w"])
def test_equals_memory_for_any_partitioning(npartitions, weight):
    df = _data()
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        sample_weight=weight,
        metrics=["pmap"],
    )
    for model in ("a", "b"):
        want, problem = _reference(df, model, weight)
        assert problem is None
        assert _close(ev.values[model]["pmap"], want), (model, ev.values[model]["pmap"], want)
        assert "pmap" not in ev.problems.get(model, {})
    assert ev.metrics["pmap"]["higher_is_better"] is False


def test_parquet_files_in_path_order_equal_memory_on_their_concatenation(tmp_path):
    df = _data(1000, seed=8)
    for i, start in enumerate(range(0, 1000, 300)):  # 4 files: part-0 ... part-3
        df.iloc[start : start + 300].to_parquet(tmp_path / f"part-{i}.parquet")
    ev = rd.evaluate(str(tmp_path / "*.parquet"), y_true="y", predictions=["a"], metrics=["pmap"])
    want, _ = _reference(df, "a", None)
    assert _close(ev.values["a"]["pmap"], want)


def test_empty_partitions_are_passed_over():
    df = _data(400)
    pieces = [df.iloc[:150], df.iloc[:0], df.iloc[150:151], df.iloc[:0], df.iloc[151:]]
    frame = dd.from_delayed([dask.delayed(p) for p in pieces], meta=df.iloc[:0])
    ev = rd.evaluate(frame, y_true="y", predictions=["a"], metrics=["pmap"])
    want, _ = _reference(df, "a", None)
    assert _close(ev.values["a"]["pmap"], want)


def test_a_constant_truth_is_undefined_with_the_memory_reason():
    df = _data(300).assign(y=2.5)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3), y_true="y", predictions=["a"], metrics=["pmap"]
    )
    want, problem = _reference(df, "a", None)
    assert math.isnan(want) and math.isnan(ev.values["a"]["pmap"])
    assert problem is not None
    got = ev.problems["a"]["pmap"]
    assert (got.kind, got.message) == (problem.kind, problem.message)


def test_claimed_by_its_declared_form_not_its_name():
    the_plan, taken = _lag.claim(_e.plan(["pmap", "kendall_tau"]))
    assert [s.name for s in taken] == ["pmap"]
    assert "pmap" not in the_plan.unsupported
    form = get_metric("pmap").capabilities.lag_scaled
    assert isinstance(form, LagScaledForm)


def test_the_form_reproduces_the_function():
    df = _data(200, seed=11)
    y, p, w = (df[c].to_numpy() for c in ("y", "a", "w"))
    form = get_metric("pmap").capabilities.lag_scaled
    assert form is not None
    assert _close(form.evaluate(y, p), pmap(y, p))
    assert _close(form.evaluate(y, p, w), pmap(y, p, sample_weight=w))
    assert math.isnan(form.evaluate(np.ones(5), np.arange(5.0)))


def test_scale_sum_adds_the_changes_across_pieces():
    y = np.array([1.0, 4.0, 2.0, 2.0, 9.0, -1.0, 0.5])
    pieces = [
        _lag.lag_partition(pd.DataFrame({"y": y[a:b], "a": y[a:b]}), "y", ["a"], None, [])
        for a, b in ((0, 2), (2, 2), (2, 5), (5, 7))
    ]
    assert _lag.scale_sum(pieces) == pytest.approx(np.abs(np.diff(y)).sum(), rel=1e-15)
