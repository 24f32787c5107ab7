"""ranklens.dask: the robustness table (Rosset, Perlich & Zadrozny 2005, Table 1) equals the
in-memory one on the same rows, whatever the partitioning.

The reference is :func:`ranklens.robustness_table` called as :func:`ranklens.evaluate_models`
calls it (``evaluation.call_quietly``: the same table, and the same kind of problem where a row
is undefined): the row (its position in the input, partitions laid end to end) identical, the
floats to 1e-12 (relative). The candidate rules of :mod:`ranklens.dask._robustness` are checked
against brute force on small data with ties.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens._foundation.problems import call_quietly  # noqa: E402
from ranklens.dask import _robustness as _rb  # noqa: E402
from ranklens.dask._engine import truth_bounds  # noqa: E402
from ranklens.dask._passes import loss_candidates  # noqa: E402
from ranklens.robustness import TABLE1_METRICS, robustness_table  # noqa: E402

TOL = 1e-12
MODELS = ["a", "b", "c"]


def _data(n: int = 1200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # rounded: long tie runs across partitions; a heavy value (a quarter of the rows at 0) gets a
    # truth bucket of its own, whose rows skip the shuffle by truth
    y = np.round(rng.normal(size=n), 1)
    y[rng.random(n) < 0.25] = 0.0
    a = np.round(y + rng.normal(size=n), 1)
    # one clearly largest error of the rounded model: rows whose losses differ by a rounding
    # are told apart by the rounding of the in-memory running sums (see _robustness)
    a[n // 2] = y[n // 2] - 6.0
    b = y + 0.3 * rng.normal(size=n)
    b[-1] = y[-1] + 40.0  # the most influential row of the losses, in the last partition
    return pd.DataFrame(
        {
            "y": y,
            "a": a,
            "b": b,
            "c": np.full(n, 2.0),  # constant: tau and rho undefined
            "w": np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.0, 2.0, n)),
        }
    )


def _reference(df: pd.DataFrame, model: str):
    return call_quietly(robustness_table, df["y"].to_numpy(), df[model].to_numpy())


def _assert_same(got, want) -> None:
    assert got.metrics == want.metrics
    np.testing.assert_array_equal(got.index, want.index)
    np.testing.assert_array_equal(got.higher_is_better, want.higher_is_better)
    for field in ("entire_set", "excluding_one", "percent_change"):
        np.testing.assert_allclose(
            getattr(got, field), getattr(want, field), rtol=TOL, atol=0.0, err_msg=field
        )


def _check(ev, df: pd.DataFrame) -> None:
    for model in MODELS:
        want, problem = _reference(df, model)
        got = ev.robustness.get(model)
        assert got is not None, ev.problems.get(model)
        _assert_same(got, want)
        mine = ev.problems.get(model, {}).get("robustness table")
        assert (mine is None) == (problem is None), (model, mine, problem)
        if problem is not None:
            assert mine.kind == problem.kind
            assert "most_influential is undefined for 'kendall_tau'" in mine.message


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_table_equals_in_memory(client, npartitions):
    df = _data(seed=npartitions)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions), y_true="y", predictions=MODELS, n_buckets=5
    )
    _check(ev, df)
    # the heavy value has a truth bucket of its own (the sample is every row here)
    assert truth_bounds(df["y"].to_numpy(), 5)[1].size == 1
    # the losses' most influential row is the last one, in the last partition
    assert ev.robustness["b"].index[0] == len(df) - 1
    assert ev.robustness["c"].index[2] == -1  # tau undefined for a constant prediction


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_the_tables_own_run_computes_it_in_its_passes(client, npartitions, monkeypatch):
    """With the table's measures alone and no weight, the run is the table's own: no second
    run, the candidates come from its own shuffles (positions and Spearman's sums on the rows)."""
    from ranklens.dask import _evaluate

    def no_second_run(*args, **kwargs):
        raise AssertionError("the table's own run started another")

    monkeypatch.setattr(_evaluate, "_robustness_run", no_second_run)
    df = _data(seed=20 + npartitions)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=MODELS,
        metrics=list(TABLE1_METRICS),
        n_buckets=5,
    )
    _check(ev, df)


def test_the_reports_shuffles_leave_the_table_to_a_run_of_its_own(client, monkeypatch):
    """The report's run leaves the table to a run of its four measures with twice the buckets,
    so that the report's shuffles carry none of the table's per-row columns."""
    from ranklens.dask import _evaluate

    calls = []
    second_run = _evaluate._robustness_run

    def spy(*args, **kwargs):
        calls.append(args)
        return second_run(*args, **kwargs)

    monkeypatch.setattr(_evaluate, "_robustness_run", spy)
    df = _data(n=800, seed=4)
    frame = dd.from_pandas(df, npartitions=3)
    ev = rd.evaluate(frame, y_true="y", predictions=MODELS)
    _check(ev, df)
    assert len(calls) == 1
    assert [s.name for s in calls[0][3]] == list(TABLE1_METRICS)
    assert calls[0][4] == _rb.BUCKETS_FACTOR * ev.settings["buckets"]
    assert ev.extras["seconds"]["robustness table"] > 0  # its runs timed apart
    # a bucket count given by the caller is kept
    calls.clear()
    rd.evaluate(frame, y_true="y", predictions=["a"], n_buckets=3)
    assert calls[0][4] == 3
    # the table's measures with one more (a sum, taken by its own pass) are not the table's run
    calls.clear()
    rd.evaluate(frame, y_true="y", predictions=["a"], metrics=[*TABLE1_METRICS, "sera"])
    assert len(calls) == 1


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_weights_leave_the_table_unweighted(client, npartitions):
    df = _data(seed=10 + npartitions)
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=npartitions),
        y_true="y",
        predictions=MODELS,
        sample_weight="w",
        n_buckets=4,
    )
    _check(ev, df)


def test_table_without_its_measures_in_the_run(client):
    df = _data(n=600, seed=3)
    frame = dd.from_pandas(df, npartitions=3)
    ev = rd.evaluate(
        frame, y_true="y", predictions=MODELS, metrics=["root_mean_squared_error", "roc_auc"]
    )
    _check(ev, df)
    assert set(ev.robustness) == set(MODELS)
    off = rd.evaluate(
        frame, y_true="y", predictions=["a"], metrics=list(TABLE1_METRICS), robustness=False
    )
    assert off.robustness == {}
    assert "robustness table" not in off.problems.get("a", {})
    binned = rd.evaluate(frame, y_true="y", predictions=["a"], exact=False)
    assert binned.problems["a"]["robustness table"].kind == "skipped"


def test_with_the_bootstrap_and_the_curve_arrays(client):
    """The extra columns of the replicates and of the curves travel with the rows unharmed."""
    df = _data(n=500, seed=5)
    for measures in (None, list(TABLE1_METRICS)):  # the table in a run of its own, in this run
        ev = rd.evaluate(
            dd.from_pandas(df, npartitions=3),
            y_true="y",
            predictions=MODELS,
            metrics=measures,
            n_bootstrap=8,
            curve_arrays=True,
            n_buckets=3,
        )
        _check(ev, df)


def test_distinct_values_and_a_tie_of_the_largest_loss(client):
    rng = np.random.default_rng(7)
    n = 400
    # multiples of 1/8: every loss and every sum of them exact, so a tie is a tie in memory too
    y = np.round(8 * rng.normal(size=n)) / 8
    a = y + np.round(8 * rng.normal(size=n)) / 8
    df = pd.DataFrame({"y": y, "a": a, "b": y.copy(), "c": -y})
    # the largest absolute error twice, in different partitions: the first row is kept
    df.loc[50, "a"] = df.loc[50, "y"] + 9.0
    df.loc[350, "a"] = df.loc[350, "y"] - 9.0
    for parts in (2, 5):
        ev = rd.evaluate(
            dd.from_pandas(df, npartitions=parts), y_true="y", predictions=MODELS, n_buckets=3
        )
        _check(ev, df)
        assert ev.robustness["a"].index[1] == 50


def test_only_the_rows_that_can_be_furthest_travel_whole(monkeypatch):
    """Spearman's shuffle back carries every row's midranks, and the other columns only for the
    rows whose bounds (taken before the shuffle) leave them possibly the furthest; the table is
    the in-memory one with rows tied at the extremes and with most rows left behind. (On Dask's
    threads: the spies must count in this process.)"""
    kept, every = [], []
    survivors, slim = _rb.rho_survivors, _rb.rho_slim

    def count_kept(part, constants, thresholds):
        out = survivors(part, constants, thresholds)
        kept.append(len(out))
        return out

    def count_every(part):
        every.append(len(part))
        return slim(part)

    monkeypatch.setattr(_rb, "rho_survivors", count_kept)
    monkeypatch.setattr(_rb, "rho_slim", count_every)
    rng = np.random.default_rng(11)
    n = 6000
    y = rng.lognormal(size=n).round(2)  # ties within and across buckets
    df = pd.DataFrame({"y": y, "a": np.log(y) + rng.normal(size=n), "b": y.copy()})
    frame = dd.from_pandas(df, npartitions=4)
    # not the cluster of the module's other tests, where these run
    with dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "tasks"}):
        ev = rd.evaluate(
            frame, y_true="y", predictions=["a", "b"], metrics=list(TABLE1_METRICS), n_buckets=40
        )
    for model in ("a", "b"):
        want, _ = _reference(df, model)
        _assert_same(ev.robustness[model], want)
    assert sum(every) == 2 * n  # every row of both models sent its midranks back
    # b ranks y perfectly: every row's bounds reach rho_{-i} = 1, so every row is kept; of a's
    # rows, few can be the furthest
    assert n <= sum(kept) < n + n // 10


# --------------------------------------------------------------------------------------------
# The candidate rules against brute force


def test_tau_candidates_hold_the_extremes_of_every_tie_class():
    rng = np.random.default_rng(1)
    m = 300
    h = rng.integers(-5, 6, m)
    ty = rng.integers(1, 4, m)
    tp = rng.integers(1, 3, m)
    pos = rng.permutation(10 * m)[:m]
    got = {tuple(r) for r in _rb.tau_candidates(h, ty, tp, pos).tolist()}
    want = set()
    for a, b in itertools.product(np.unique(ty), np.unique(tp)):
        sel = np.flatnonzero((ty == a) & (tp == b))
        if sel.size == 0:
            continue
        for extreme in (h[sel].max(), h[sel].min()):
            rows = sel[h[sel] == extreme]
            first = rows[np.argmin(pos[rows])]
            want.add((int(a), int(b), int(extreme), int(pos[first])))
    assert got == want


def test_loss_candidates_and_sums():
    x = np.array([3.0, 1.0, 3.0, 0.5, 0.5, 2.0])
    total, rows = loss_candidates(x)
    assert total == x.sum()
    assert rows == [(0, 3.0, x.sum() - 3.0), (3, 0.5, x.sum() - 0.5)]


def test_signed_parts_and_above_sums_by_brute_force():
    rng = np.random.default_rng(2)
    keys = rng.integers(0, 6, 50)
    values = rng.integers(-9, 10, 50)
    above, group = _rb._signed_parts(keys, values)
    for i in range(keys.size):
        assert above[i] == values[keys > keys[i]].sum()
        assert group[i] == values[keys == keys[i]].sum()
    counts = np.array([3, 0, 4, 1, 2])
    n = int(counts.sum())
    positions = np.arange(1, n + 1)  # 1-based ranks laid out bucket after bucket
    centred = 2 * positions - (n + 1)
    edges = np.r_[0, np.cumsum(counts)]
    per = np.array([centred[edges[i] : edges[i + 1]].sum() for i in range(counts.size)])
    want = [per[i + 1 :].sum() for i in range(counts.size)]
    np.testing.assert_array_equal(_rb.above_sums(counts, n), want)


def test_position_dtype_is_the_smallest_that_holds_n():
    assert _rb.position_dtype(200) == np.uint8
    assert _rb.position_dtype(257) == np.uint16
    assert _rb.position_dtype(1 << 20) == np.uint32
    assert _rb.position_dtype((1 << 32) + 1) == np.uint64


@pytest.mark.parametrize("n", [10, 2**30 - 1, 2**30])
def test_rows_sent_back_for_spearman_carry_midranks_exactly(n):
    """The midranks sent back for Spearman's rho travel in int32 while doubled midranks fit it
    (below n = 2^30), else int64; the frame's dtypes are its meta's, values exact either way."""
    meta = _rb.rho_meta(n)
    small = 2 * n + 1 < 2**31
    assert meta[_rb.U].dtype == meta[_rb.A].dtype == (np.int32 if small else np.int64)
    u = np.array([-(n - 1), 0, n - 1], dtype=np.int64)
    a = np.array([2, n + 1, 2 * n], dtype=np.int64)
    big = np.array([-(2**62), 0, 2**62], dtype=np.int64)
    frame = _rb._rho_frame(np.arange(3), np.arange(3), u, a, big, big, big, np.arange(3), n)
    assert (frame.dtypes == meta.dtypes).all()
    np.testing.assert_array_equal(frame[_rb.U].to_numpy(np.int64), u)
    np.testing.assert_array_equal(frame[_rb.A].to_numpy(np.int64), a)
    np.testing.assert_array_equal(frame[_rb.X].to_numpy(), big)
