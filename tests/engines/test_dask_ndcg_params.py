"""ranklens.dask.evaluate takes NDCG's task parameters ``k`` and ``gains`` by name and passes them
to the measures that take them (as evaluate_models passes its task parameters): the values
equal ``ndcg_score(y, p, k=..., gains=...)`` (1e-12 relative) for 1, 3 and 7 partitions, with
tie runs straddling partitions, weights, constant inputs and pandas-written Parquet; a bad value
gives the function's own problem; without them both engines agree with evaluate_models."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import evaluate_models, ndcg_score  # noqa: E402
from ranklens._foundation.problems import score_quietly  # noqa: E402

TOL = 1e-12
NAME = "ndcg_score"


pytestmark = pytest.mark.usefixtures("client")


def _data(n: int = 900, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, n).astype(float)  # graded relevance, long tie runs
    df = pd.DataFrame(
        {
            "y": y,
            "a": np.round(y + rng.normal(size=n), 1),
            "b": rng.integers(0, 6, n).astype(float),  # six tie runs
            "w": rng.uniform(0.2, 2.0, n),
        }
    )
    # sorted by a prediction before the partitions are cut: its tie runs straddle them
    return df.sort_values("b", kind="stable").reset_index(drop=True)


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _evaluate(df, parts: int, **kw):
    source = kw.pop("source", None)
    return rd.evaluate(
        dd.from_pandas(df, npartitions=parts) if source is None else source,
        y_true="y",
        predictions=["a", "b"],
        metrics=[NAME],
        n_buckets=kw.pop("n_buckets", 4),
        **kw,
    )


def _check(ev, df, weight=None, **params):
    for model in ("a", "b"):
        extra = {} if weight is None else {"sample_weight": df[weight].to_numpy()}
        want, want_problem = score_quietly(
            ndcg_score, df["y"].to_numpy(), df[model].to_numpy(), **params, **extra
        )
        got = ev.values[model][NAME]
        assert _close(got, want), (model, params, got, want)
        got_problem = ev.problems.get(model, {}).get(NAME)
        if want_problem is None:
            assert got_problem is None, got_problem
        else:
            assert (got_problem.kind, got_problem.message) == (
                want_problem.kind,
                want_problem.message,
            )


@pytest.mark.parametrize("parts", [1, 3, 7])
@pytest.mark.parametrize("weight", [None, "w"])
def test_k_and_exponential_gains(parts, weight):
    df = _data(seed=parts)
    ev = _evaluate(df, parts, sample_weight=weight, k=37, gains="exponential")
    _check(ev, df, weight, k=37, gains="exponential")
    assert ev.settings["k"] == 37 and ev.settings["gains"] == "exponential"
    # the parameters change the value: they were passed, not dropped
    plain = ndcg_score(df["y"].to_numpy(), df["a"].to_numpy())
    assert not _close(ev.values["a"][NAME], plain)


@pytest.mark.parametrize("k", [1, 250, 5000])
def test_k_inside_a_tie_run_and_beyond_n(k):
    """k = 1 and 250 cut a run of tied predictions (b) that spans buckets; k > n is all."""
    df = _data(seed=4)
    ev = _evaluate(df, 3, k=k, n_buckets=6)
    _check(ev, df, k=k)


def test_defaults_agree_with_evaluate_models():
    """Without k and gains both engines give the measure's default, the in-memory pipeline's."""
    df = _data(seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = evaluate_models(
            df["y"].to_numpy(),
            {m: df[m].to_numpy() for m in ("a", "b")},
            robustness=False,
            curves=False,
        )
    ev = _evaluate(df, 3)
    for model in ("a", "b"):
        assert _close(ev.values[model][NAME], mem.values[model][NAME])
    assert "k" not in ev.settings and "gains" not in ev.settings


@pytest.mark.parametrize(
    "params", [{"k": 25}, {"gains": "exponential"}, {"k": 40, "gains": "exponential"}]
)
def test_parameters_agree_with_evaluate_models(params):
    """With k and gains both engines pass them to the measure: the same NDCG."""
    df = _data(seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = evaluate_models(
            df["y"].to_numpy(),
            {m: df[m].to_numpy() for m in ("a", "b")},
            robustness=False,
            curves=False,
            **params,
        )
    ev = _evaluate(df, 3, **params)
    for model in ("a", "b"):
        assert _close(ev.values[model][NAME], mem.values[model][NAME])
    for name, value in params.items():
        assert ev.settings[name] == mem.settings[name] == value


def test_constant_inputs():
    df = _data(seed=6)
    df["a"] = 0.5  # one tie run over every partition
    ev = _evaluate(df, 7, k=10, gains="exponential")
    _check(ev, df, k=10, gains="exponential")
    df["y"] = 0.0  # no gain at all: NDCG undefined, with the function's reason
    ev = _evaluate(df, 3, k=10, gains="exponential")
    _check(ev, df, k=10, gains="exponential")
    assert math.isnan(ev.values["a"][NAME])


@pytest.mark.parametrize("params", [{"k": 0}, {"k": 2.5}, {"gains": "cubic"}])
def test_bad_values_give_the_functions_problem(params):
    df = _data(n=200, seed=7)
    ev = _evaluate(df, 2, **params)
    _check(ev, df, **params)
    assert math.isnan(ev.values["a"][NAME])


def test_parquet_written_by_pandas(tmp_path):
    df = _data(seed=8)
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
        df.iloc[chunk].to_parquet(tmp_path / f"part{i}.parquet", index=False)
    ev = _evaluate(
        df, 0, source=str(tmp_path / "*.parquet"), sample_weight="w", k=50, gains="exponential"
    )
    _check(ev, df, "w", k=50, gains="exponential")
