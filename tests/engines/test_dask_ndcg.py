"""ranklens.dask: NDCG of one ranking equals the in-memory ``ndcg_score``, whatever the
partitioning and the value buckets.

The reference is the registered function itself, called as the in-memory pipeline calls it
(``evaluation.score_quietly``: the same value, and the same problem kind and message where it
is NaN); floats to 1e-12 (relative). Tie runs straddle the input partitions (the data sorted by
the prediction before it is cut) and long runs of the truth fill value buckets of their own.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402

import ranklens.dask as rd  # noqa: E402
from ranklens import ndcg_score  # noqa: E402
from ranklens._foundation.problems import score_quietly  # noqa: E402
from ranklens.dask import _engine as _e  # noqa: E402
from ranklens.dask import _listwise as _lw  # noqa: E402
from ranklens.metrics import get_metric  # noqa: E402

TOL = 1e-12
NAME = "ndcg_score"


def _data(n: int = 1200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, n).astype(float)  # graded relevance: long tie runs
    cont = rng.random(n) < 0.2  # and some continuous values
    y[cont] = np.round(rng.exponential(3.0, int(cont.sum())), 2)
    return pd.DataFrame(
        {
            "y": y,
            "a": np.round(y + rng.normal(size=n), 1),  # ties in the prediction
            "b": rng.integers(0, 6, n).astype(float),  # few values: large tie blocks
            "wi": rng.integers(0, 4, n).astype(float),  # integer weights, zeros included
            "wf": rng.uniform(0.0, 2.0, n),
        }
    )


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _reference(df: pd.DataFrame, model: str, weight: str | None, **kw):
    if weight is not None:
        kw["sample_weight"] = df[weight].to_numpy()
    return score_quietly(ndcg_score, df["y"].to_numpy(), df[model].to_numpy(), **kw)


def _check(ev, df: pd.DataFrame, weight: str | None, models=("a", "b")) -> None:
    for model in models:
        want, want_problem = _reference(df, model, weight)
        got = ev.values[model][NAME]
        assert _close(got, want), (model, weight, got, want)
        got_problem = ev.problems.get(model, {}).get(NAME)
        if want_problem is None:
            assert got_problem is None, got_problem
        else:
            assert got_problem is not None
            assert (got_problem.kind, got_problem.message) == (
                want_problem.kind,
                want_problem.message,
            )


@pytest.mark.parametrize("weight", [None, "wi", "wf"])
@pytest.mark.parametrize("parts", [1, 3, 7])
def test_equals_ndcg_score_for_any_partitioning(client, parts, weight):
    df = _data()
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=parts),
        y_true="y",
        predictions=["a", "b"],
        sample_weight=weight,
        metrics=[NAME],
        n_buckets=4,
    )
    _check(ev, df, weight)
    assert NAME in ev.metrics


@pytest.mark.parametrize("weight", [None, "wf"])
def test_tie_runs_straddling_partitions_and_buckets(client, weight):
    # sorted by the prediction: every input partition boundary cuts a tie run of "b"
    df = _data(seed=3).sort_values("b", kind="stable").reset_index(drop=True)
    for parts, buckets in ((7, 1), (7, 3), (3, 12)):
        ev = rd.evaluate(
            dd.from_pandas(df, npartitions=parts, sort=False),
            y_true="y",
            predictions=["a", "b"],
            sample_weight=weight,
            metrics=[NAME],
            n_buckets=buckets,
        )
        _check(ev, df, weight)


@pytest.mark.parametrize("weight", [None, "wi"])
@pytest.mark.parametrize(
    "params", [{"k": 1}, {"k": 17}, {"gains": "exponential"}, {"k": 40, "gains": "exponential"}]
)
def test_cutoff_and_gains(client, params, weight):
    """NDCG@k and exponential gains through the engine's pass (the task parameters are passed
    to the measure by name, as the in-memory pipeline passes them)."""
    df = _data(seed=5)
    frame = dd.from_pandas(df, npartitions=3)
    values = {m: {} for m in ("a", "b")}
    problems = {m: {} for m in ("a", "b")}
    _lw.evaluate_claimed(
        dask,
        frame,
        [get_metric(NAME)],
        y="y",
        preds=["a", "b"],
        weight=weight,
        context=dict(params),
        part_rows=[len(p) for p in frame.partitions],
        n_buckets=5,
        sample_y=df["y"].to_numpy(),
        sample_p=[df["a"].to_numpy(), df["b"].to_numpy()],
        values=values,
        problems=problems,
        info={},
    )
    for model in ("a", "b"):
        want, _ = _reference(df, model, weight, **params)
        assert _close(values[model][NAME], want), (model, params, values[model][NAME], want)
        assert NAME not in problems[model]


def test_constant_inputs(client):
    df = _data(n=300, seed=7)
    # every y 0: IDCG = 0, NaN and the same reason as in memory
    zero = df.assign(y=0.0)
    ev = rd.evaluate(
        dd.from_pandas(zero, npartitions=3), y_true="y", predictions=["a", "b"], metrics=[NAME]
    )
    _check(ev, zero, None)
    assert ev.problems["a"][NAME].kind == "undefined"
    # constant y > 0: 1; constant prediction: one tie block, every row the mean gain
    for frame in (df.assign(y=2.5), df.assign(a=1.0, b=-3.0)):
        ev = rd.evaluate(
            dd.from_pandas(frame, npartitions=3),
            y_true="y",
            predictions=["a", "b"],
            metrics=[NAME],
            sample_weight="wf",
        )
        _check(ev, frame, "wf")


def test_negative_relevance_is_refused_as_in_memory(client):
    df = _data(n=300, seed=8)
    df.loc[[250, 280], "y"] = [-1.5, -2.0]  # the first negative row is in the last partition
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3), y_true="y", predictions=["a", "b"], metrics=[NAME]
    )
    _check(ev, df, None)
    assert "position 250" in ev.problems["a"][NAME].message


def test_bad_parameter_is_reported_as_in_memory(client):
    df = _data(n=200, seed=9)
    frame = dd.from_pandas(df, npartitions=2)
    values = {"a": {}}
    problems = {"a": {}}
    _lw.evaluate_claimed(
        dask,
        frame,
        [get_metric(NAME)],
        y="y",
        preds=["a"],
        weight=None,
        context={"gains": "cubic"},
        part_rows=[100, 100],
        n_buckets=2,
        sample_y=df["y"].to_numpy(),
        sample_p=[df["a"].to_numpy()],
        values=values,
        problems=problems,
        info={},
    )
    want, want_problem = _reference(df, "a", None, gains="cubic")
    assert math.isnan(values["a"][NAME]) and math.isnan(want)
    assert problems["a"][NAME] == want_problem


def test_planned_by_its_declared_form():
    """The engine takes NDCG for its ranked-list form, not its name."""
    the_plan, taken = _lw.claim(_e.plan([NAME, "pmap"]))
    assert [s.name for s in taken] == [NAME]
    assert "pmap" in the_plan.unsupported and NAME not in the_plan.unsupported
    assert get_metric(NAME).capabilities.ranked_list is not None


@pytest.mark.parametrize("weight,groups", [(None, None), ("wf", None), ("wi", "g")])
def test_poisson_bootstrap_equals_compare_models(
    client, dask_by_partitions, poisson_compare_models, weight, groups
):
    """NDCG's replicates are identical for 1, 3 and 7 partitions and equal
    compare_models(..., scheme="poisson") replicate for replicate, by rows or by units."""
    df = _data(n=900, seed=11)
    df["g"] = np.random.default_rng(2).integers(0, 120, len(df))
    n_rep = 9
    evaluations = dask_by_partitions(
        df,
        (1, 3, 7),
        y_true="y",
        predictions=["a", "b"],
        sample_weight=weight,
        groups=groups,
        n_bootstrap=n_rep,
        random_state=4,
        metrics=[NAME],
    )
    replicates = {}
    for parts, ev in evaluations.items():
        replicates[parts] = ev.extras["bootstrap"]["replicates"]
        assert NAME in ev.extras["bootstrap"]["intervals"]["a"]
    ref = poisson_compare_models(
        df, [NAME], n_bootstrap=n_rep, random_state=4, weight=weight, groups=groups
    )
    for i, model in enumerate(("a", "b")):
        want = ref.replicates[:, list(ref.metrics).index(NAME), i]
        assert np.isfinite(want).all()
        for parts in (1, 3, 7):
            np.testing.assert_allclose(replicates[parts][model][NAME], want, rtol=TOL, atol=TOL)


@pytest.mark.parametrize("weight", [None, "wf"])
def test_partitions_larger_than_a_bucket_are_cut_first_same_numbers(
    client, monkeypatch, poisson_compare_models, weight
):
    """Input partitions larger than a bucket are cut before NDCG's shuffles (their memory grows
    with the input partitions): the value and the row-keyed Poisson replicates are unchanged."""
    df = _data(n=900, seed=12)
    monkeypatch.setattr(_e, "ROWS_PER_BUCKET", 100)  # 3 partitions of 300 rows: cut in 3 each
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3, sort=False),
        y_true="y",
        predictions=["a", "b"],
        sample_weight=weight,
        metrics=[NAME],
        n_buckets=4,
        n_bootstrap=7,
        random_state=3,
    )
    ref = poisson_compare_models(df, [NAME], n_bootstrap=7, random_state=3, weight=weight)
    for i, model in enumerate(("a", "b")):
        assert _close(ev.values[model][NAME], _reference(df, model, weight)[0])
        want = ref.replicates[:, list(ref.metrics).index(NAME), i]
        got = ev.extras["bootstrap"]["replicates"][model][NAME]
        np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)
