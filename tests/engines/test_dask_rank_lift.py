"""ranklens.dask builds the rank lift curve (Rosset, Perlich & Zadrozny 2005, Fig. 3) from the
sorts by prediction and by truth, equal to ranklens.rank_lift_curve field by field (floats to
1e-12) for 1, 3 and 7 partitions, with tie runs of predictions across partition boundaries,
with weights (rows tied in both the prediction and y keep the in-memory order), and with a
constant prediction or truth (the same warning as in memory); and ``ranklens evaluate --engine
dask --curve-arrays`` writes the same curve to the JSON as the in-memory run."""

from __future__ import annotations

import dataclasses
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import evaluate_models  # noqa: E402
from ranklens._foundation.curve_registry import get_curve  # noqa: E402
from ranklens.exceptions import UndefinedMetricWarning  # noqa: E402
from ranklens.ranking import RankLiftResult, rank_lift_curve  # noqa: E402

pytestmark = pytest.mark.usefixtures("client")  # the LocalCluster of conftest.py

TOL = 1e-12


def _same(got: RankLiftResult, want: RankLiftResult, label: str) -> None:
    assert type(got) is type(want), label
    for f in dataclasses.fields(want):
        g, w = getattr(got, f.name), getattr(want, f.name)
        if isinstance(w, np.ndarray):
            assert g.shape == w.shape, (label, f.name)
            ok = np.abs(g - w) <= TOL * np.maximum(1.0, np.abs(w))
            assert ok.all(), (label, f.name, g[~ok][:5], w[~ok][:5])
        elif math.isnan(w):
            assert math.isnan(g), (label, f.name)
        else:
            assert abs(g - w) <= TOL * max(1.0, abs(w)), (label, f.name, g, w)


def _evaluate(df: pd.DataFrame, npartitions: int, n_buckets: int, weighted: bool, **kw):
    return rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w" if weighted else None,
        metrics=["roc_auc"],
        n_buckets=n_buckets,
        curve_arrays=True,
        **kw,
    )


def test_declared_on_the_spec():
    """The engine reads the spec: the rank lift curve says how it is built from the sequence."""
    spec = get_curve("rank_lift")
    assert spec.from_sequence is not None and spec.from_ranked is None


@pytest.mark.parametrize(("binary", "zeros"), [(True, 0.0), (False, 0.0), (False, 0.4)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("npartitions", "n_buckets"), [(1, 1), (3, 4), (7, 9)])
def test_rank_lift_equals_in_memory(binary, zeros, weighted, npartitions, n_buckets, curve_frame):
    df = curve_frame(1200, binary, seed=npartitions + 10 * weighted, zeros=zeros)
    ev = _evaluate(df, npartitions, n_buckets, weighted)
    y = df["y"].to_numpy()
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    for model in ("a", "b"):
        want = rank_lift_curve(y, df[model].to_numpy(), **kw)
        got = ev.curves["rank_lift"][model]
        _same(got, want, f"rank lift {model}")
        # one point per row of positive weight, as in memory
        assert got.fraction_targeted.size == int((df["w"] > 0).sum() if weighted else y.size) + 1
        assert "rank_lift curve" not in ev.problems.get(model, {})
    assert "rank_lift" not in ev.extras["curves_not_built"]


def test_weighted_ties_in_prediction_and_truth_keep_the_row_order():
    """Rows tied in both the prediction and y advance the x axis in row order, as in memory:
    sorted input puts every tie run across partitions, and the weights of a run differ."""
    rng = np.random.default_rng(5)
    n = 900
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 3, n).astype(float),
            "a": rng.integers(0, 4, n).astype(float),
            "b": rng.integers(0, 2, n).astype(float),
            "w": rng.choice([0.0, 0.25, 1.0, 3.0], n),
        }
    ).sort_values(["a", "y"], kind="stable", ignore_index=True)
    for npartitions, n_buckets in [(1, 1), (3, 2), (7, 3)]:
        ev = _evaluate(df, npartitions, n_buckets, True)
        for model in ("a", "b"):
            want = rank_lift_curve(
                df["y"].to_numpy(), df[model].to_numpy(), sample_weight=df["w"].to_numpy()
            )
            _same(ev.curves["rank_lift"][model], want, f"{model} {npartitions}")


@pytest.mark.parametrize("weighted", [False, True])
def test_equals_the_in_memory_evaluation(weighted, curve_frame):
    """The same curve as evaluate_models, whose curve functions take the weights as given (half
    an observation in the rank lift is in the units of the weights given)."""
    df = curve_frame(900, False, seed=3, zeros=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = evaluate_models(
            df["y"].to_numpy(),
            {m: df[m].to_numpy() for m in ("a", "b")},
            sample_weight=df["w"].to_numpy() if weighted else None,
            robustness=False,
        )
    ev = _evaluate(df, 5, 6, weighted)
    for model in ("a", "b"):
        _same(ev.curves["rank_lift"][model], mem.curves["rank_lift"][model], model)


@pytest.mark.parametrize("weighted", [False, True])
def test_constant_prediction(weighted, curve_frame):
    """A constant prediction: one tie run (a straight line, area 1/2), no warning in memory, no
    problem in the engine."""
    df = curve_frame(600, False, seed=8)
    df["a"] = 2.0
    ev = _evaluate(df, 3, 4, weighted)
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = rank_lift_curve(df["y"].to_numpy(), df["a"].to_numpy(), **kw)
    _same(ev.curves["rank_lift"]["a"], want, "constant prediction")
    assert abs(want.area - 0.5) <= TOL
    assert "rank_lift curve" not in ev.problems.get("a", {})


@pytest.mark.parametrize("weighted", [False, True])
def test_constant_truth_warns_as_in_memory(weighted, curve_frame):
    """A constant y: the area is NaN and the engine reports the in-memory warning's words."""
    df = curve_frame(600, False, seed=9)
    df["y"] = 1.5
    ev = _evaluate(df, 3, 4, weighted)
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    for model in ("a", "b"):
        with pytest.warns(UndefinedMetricWarning, match="rank lift area is undefined") as caught:
            want = rank_lift_curve(df["y"].to_numpy(), df[model].to_numpy(), **kw)
        _same(ev.curves["rank_lift"][model], want, f"constant y {model}")
        problem = ev.problems[model]["rank_lift curve"]
        assert problem.kind == "undefined"
        assert str(caught[0].message) in problem.message


def test_too_many_rows_for_the_client_are_named(monkeypatch, curve_frame):
    """Past the engine's row limit the curve is not built, and says why (never silently)."""
    import ranklens.dask._curves as dask_curves

    monkeypatch.setattr(dask_curves, "SEQUENCE_MAX_ROWS", 100)
    df = curve_frame(300, True, seed=2)
    ev = _evaluate(df, 3, 2, True)
    assert "rank_lift" not in ev.curves
    assert "100 rows of positive weight" in ev.extras["curves_not_built"]["rank_lift"]
    assert "roc" in ev.curves  # the curves from the ranked sums are built as before


def test_not_built_without_curve_arrays(curve_frame):
    df = curve_frame(300, True, seed=1)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=2), y_true="y", predictions="a", metrics=["roc_auc"]
    )
    assert "rank_lift" not in ev.curves


def test_cli_curve_arrays_flag(client, tmp_path, curve_frame):
    """``--curve-arrays``: the rank lift curve in the JSON of the Dask run equals the in-memory
    run's on the same Parquet file (written by pandas); without the flag it is not built, and
    the memory engine refuses the flag (it builds every curve)."""
    pytest.importorskip("pyarrow")
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from ranklens.cli import app

    df = curve_frame(800, False, seed=11, zeros=0.2)[["y", "a", "b"]]
    df.to_parquet(tmp_path / "all.parquet")
    runner = CliRunner()
    common = ["--target", "y", "--pred", "a", "--pred", "b", "--bootstrap", "0", "-q"]
    dask_args = ["--engine", "dask", "--scheduler", client.scheduler.address]
    path = str(tmp_path / "all.parquet")
    out = runner.invoke(
        app,
        [
            "evaluate",
            path,
            *common,
            *dask_args,
            "--curve-arrays",
            "--json",
            str(tmp_path / "d.json"),
        ],
    )
    assert out.exit_code in (0, 1), out.output
    out = runner.invoke(app, ["evaluate", path, *common, "--json", str(tmp_path / "m.json")])
    assert out.exit_code in (0, 1), out.output
    got = json.loads((tmp_path / "d.json").read_text())["curves"]["rank_lift"]
    want = json.loads((tmp_path / "m.json").read_text())["curves"]["rank_lift"]
    for model in ("a", "b"):
        g, w = got[model], want[model]  # the JSON holds the curve's scalars: its area
        assert set(g) == set(w) == {"area"}
        assert abs(g["area"] - w["area"]) <= TOL
    out = runner.invoke(
        app, ["evaluate", path, *common, *dask_args, "--json", str(tmp_path / "n.json")]
    )
    assert out.exit_code in (0, 1), out.output
    assert "rank_lift" not in json.loads((tmp_path / "n.json").read_text()).get("curves", {})
    out = runner.invoke(app, ["evaluate", path, *common, "--curve-arrays"])
    assert out.exit_code == 2
    assert "--curve-arrays is for --engine dask" in out.output
