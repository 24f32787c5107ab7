"""ranklens.dask builds the concordance profile (Rosset, Perlich & Zadrozny 2005, Fig. 1) with
curve_arrays=True, equal to ranklens.concordance_profile: row order and unweighted values bit
for bit, weighted values to 1e-12, for 1, 3 and 7 partitions, with tie runs of predictions across
partition boundaries, a heavy truth value, weights, constant inputs (the same warnings) and
pandas-written Parquet; refused with a reason for rows of weight 0."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens._foundation.curve_registry import get_curve  # noqa: E402
from ranklens.dask import _profile  # noqa: E402
from ranklens.exceptions import UndefinedMetricWarning  # noqa: E402
from ranklens.ranking import (  # noqa: E402
    ConcordanceProfileResult,
    _concordance_profile_from_counts,
    concordance_profile,
)

TOL = 1e-12


pytestmark = pytest.mark.usefixtures("client")


def _data(n: int, seed: int, weights: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.lognormal(size=n).round(1)
    y[rng.random(n) < 0.25] = 0.0  # a heavy truth value
    a = np.round(rng.normal(size=n) + 0.4 * (y > np.median(y)), 1)
    a[rng.random(n) < 0.3] = 0.5  # a heavy tie run over many partitions
    df = pd.DataFrame({"y": y, "a": a, "b": rng.integers(0, 7, n).astype(float)})
    if weights:
        df["w"] = rng.uniform(0.1, 3.0, n)
    return df


def _same(got: ConcordanceProfileResult, want: ConcordanceProfileResult, exact: bool) -> None:
    assert type(got) is type(want)
    assert np.array_equal(got.row_index, want.row_index)
    for f in dataclasses.fields(want):
        if f.name == "row_index":
            continue
        g, w = getattr(got, f.name), getattr(want, f.name)
        if isinstance(w, np.ndarray):
            assert g.shape == w.shape, f.name
            if exact:
                assert np.array_equal(g, w, equal_nan=True), f.name
            else:
                ok = np.abs(g - w) <= TOL * np.maximum(1.0, np.abs(w))
                ok |= np.isnan(g) & np.isnan(w)
                assert ok.all(), (f.name, g[~ok][:5], w[~ok][:5])
        elif math.isnan(w):
            assert math.isnan(g), f.name
        elif exact:
            assert g == w, (f.name, g, w)
        else:
            assert abs(g - w) <= TOL * max(1.0, abs(w)), (f.name, g, w)


def _evaluate(df: pd.DataFrame, npartitions: int, n_buckets: int, **kw):
    return rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=["a", "b"],
        metrics=["roc_auc"],
        n_buckets=n_buckets,
        curve_arrays=True,
        **kw,
    )


def test_declared_on_the_spec():
    """The engine reads the spec's declaration; the in-memory function finishes with it too."""
    spec = get_curve("concordance_profile")
    assert spec.from_concordance is _concordance_profile_from_counts
    assert spec.from_ranked is None and spec.from_sequence is None


def test_pieces_without_dask_match_brute_force_buckets():
    """The bucket pieces combined on the client equal the in-memory profile for random
    bucketings of small data with many ties (no cluster involved)."""
    rng = np.random.default_rng(5)
    for trial in range(40):
        n = int(rng.integers(2, 200))
        y = rng.integers(0, int(rng.integers(1, 8)), n).astype(float)
        p = rng.integers(0, int(rng.integers(1, 10)), n).astype(float)
        w = None if trial % 2 == 0 else rng.uniform(0.1, 3.0, n)
        values = np.unique(p)
        bounds = np.sort(rng.choice(values, size=min(int(rng.integers(1, 6)), values.size)))
        b = np.searchsorted(bounds, p, side="right")
        pieces = [
            _profile.bucket(
                np.flatnonzero(b == k), y[b == k], p[b == k], None if w is None else w[b == k]
            )
            for k in range(bounds.size + 1)
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            got = _concordance_profile_from_counts(*_profile.profile_args(pieces))
            want = concordance_profile(y, p, sample_weight=w)
        _same(got, want, exact=w is None)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_equals_in_memory_unweighted(npartitions):
    """Bit for bit without weights, whatever the partitioning and the buckets."""
    df = _data(700, seed=npartitions)
    ev = _evaluate(df, npartitions, n_buckets=5)
    for model in ("a", "b"):
        want = concordance_profile(df["y"].to_numpy(), df[model].to_numpy())
        _same(ev.curves["concordance_profile"][model], want, exact=True)
    assert "concordance_profile" not in ev.extras["curves_not_built"]


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_equals_in_memory_weighted(npartitions):
    df = _data(600, seed=10 + npartitions, weights=True)
    ev = _evaluate(df, npartitions, n_buckets=4, sample_weight="w")
    for model in ("a", "b"):
        want = concordance_profile(
            df["y"].to_numpy(), df[model].to_numpy(), sample_weight=df["w"].to_numpy()
        )
        _same(ev.curves["concordance_profile"][model], want, exact=False)


def test_tie_runs_straddle_partitions():
    """A prediction taking three values, sorted so that each run spans several partitions."""
    df = _data(500, seed=3).sort_values("b", kind="stable").reset_index(drop=True)
    df["a"] = np.repeat([0.0, 1.0, 2.0], [200, 150, 150])
    ev = _evaluate(df, 7, n_buckets=3)
    for model in ("a", "b"):
        want = concordance_profile(df["y"].to_numpy(), df[model].to_numpy())
        _same(ev.curves["concordance_profile"][model], want, exact=True)


def test_constant_inputs_same_warnings():
    """A constant truth: NaN profile and area, with the in-memory warning; a constant
    prediction: every pair half right."""
    df = _data(200, seed=4)
    df["y"] = 1.5
    with pytest.warns(UndefinedMetricWarning, match="y_true is constant"):
        want = concordance_profile(df["y"].to_numpy(), df["a"].to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        ev = _evaluate(df, 3, n_buckets=3)
    # the NaN profile, as in memory, and the warning's reason as the model's problem
    _same(ev.curves["concordance_profile"]["a"], want, exact=True)
    problem = ev.problems["a"]["concordance_profile curve"]
    assert problem.kind == "undefined" and "y_true is constant" in problem.message
    df = _data(200, seed=4)
    df["a"] = 0.25
    ev = _evaluate(df, 3, n_buckets=3)
    want = concordance_profile(df["y"].to_numpy(), df["a"].to_numpy())
    _same(ev.curves["concordance_profile"]["a"], want, exact=True)
    assert want.area == 0.5


def test_zero_weights_refused_with_reason():
    df = _data(300, seed=6, weights=True)
    df.loc[::10, "w"] = 0.0
    ev = _evaluate(df, 3, n_buckets=3, sample_weight="w")
    assert "concordance_profile" not in ev.curves
    assert "weight 0" in ev.extras["curves_not_built"]["concordance_profile"]


def test_parquet_written_by_pandas(tmp_path):
    df = _data(400, seed=8, weights=True)
    for i, chunk in enumerate(np.array_split(np.arange(len(df)), 3)):
        df.iloc[chunk].to_parquet(tmp_path / f"part{i}.parquet", index=False)
    ev = rd.evaluate(
        str(tmp_path / "*.parquet"),
        y_true="y",
        predictions=["a", "b"],
        sample_weight="w",
        metrics=["kendall_tau"],
        n_buckets=3,
        curve_arrays=True,
    )
    for model in ("a", "b"):
        want = concordance_profile(
            df["y"].to_numpy(), df[model].to_numpy(), sample_weight=df["w"].to_numpy()
        )
        _same(ev.curves["concordance_profile"][model], want, exact=False)
