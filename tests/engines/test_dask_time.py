"""Rows in time order on the Dask engine: blocks of consecutive rows, and windows.

``ranklens.dask.evaluate(..., time=, scheme="blocks", block_length=)`` keys each row's Poisson
weight by its block (its position // L), so its replicates are the in-memory
``compare_models(..., scheme="poisson", groups=positions // L)``'s, replicate for replicate, at
any partitioning; ``block_length="auto"`` is Politis and White's length of the in-memory
``optimal_block_lengths`` on the same rows (to 1e-12), computed from autocovariances summed
across the partitions. ``ranklens.dask.by_window`` gives the in-memory ``by_window``'s
windows, bounds, values and counts on the same rows (Parquet files of 1, 3 and 7 parts, a
window across parts, a calendar gap, zone-aware times); its intervals come from the blocks'
replicates, so only strong verdicts are compared. Rows out of time order and schemes the
engine does not draw are refused by name.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ranklens as rl  # noqa: E402
import ranklens.dask as rd  # noqa: E402
from ranklens._foundation.serial import optimal_block_lengths  # noqa: E402
from ranklens._inference.resampling import resolve_block_length  # noqa: E402
from ranklens.dask import _serial  # noqa: E402
from ranklens.dask._windows import BLOCK, CODE, WINDOW, WindowCut, with_windows  # noqa: E402
from ranklens.metrics import get_metric  # noqa: E402

TOL = 1e-12

#: A measure of each form the engine segments: a mean loss, the ranked curve, pair classes.
MEASURES = ["mean_absolute_error", "root_mean_squared_error", "kendall_tau"]


def _ar1(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    e = np.zeros(n)
    z = rng.normal(size=n)
    for t in range(1, n):
        e[t] = phi * e[t - 1] + z[t]
    return e


def _series(n: int, seed: int, *, start: str = "2023-01-01", freq: str = "6h", tz=None):
    """Times every ``freq`` from ``start``, a truth, a model ``a`` whose errors persist (AR(1),
    0.7) and a model ``b`` of independent errors."""
    rng = np.random.default_rng(seed)
    y = rng.gamma(2.0, size=n)
    return pd.DataFrame(
        {
            "t": pd.date_range(start, periods=n, freq=freq, tz=tz),
            "y": y,
            "a": y + _ar1(rng, n, 0.7),
            "b": y + 0.9 * rng.normal(size=n),
        }
    )


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


# ------------------------------------------------------------------------------------------------
# The automatic length


@pytest.mark.parametrize("parts", [1, 3, 7, 40])
def test_automatic_lengths_equal_memory(client, parts):
    """Every series' lengths (the models' absolute errors and their difference) equal
    ``optimal_block_lengths`` on the same rows, whole or by segment of consecutive rows, with
    partitions smaller than the lags read."""
    df = _series(1500, seed=parts)
    rng = np.random.default_rng(parts)
    cuts = np.sort(rng.choice(np.arange(1, 1500), size=4, replace=False))
    df["code"] = np.searchsorted(cuts, np.arange(1500), side="right").astype(np.int64) * 2
    df.loc[df.index[-5:], "code"] = 20  # a segment of 5 rows: too short for a length
    frame = dd.from_pandas(df, npartitions=parts, sort=False)
    for code in (None, "code"):
        got = _serial.automatic_lengths(dask, frame, "y", ["a", "b"], code)
        segments = [(0, df)] if code is None else list(df.groupby("code"))
        for c, rows in segments:
            if len(rows) < 9:
                assert c not in got
                continue
            x = _serial.series_rows(
                rows["y"].to_numpy(), [rows["a"].to_numpy(), rows["b"].to_numpy()]
            )
            assert len(got[c]) == 3
            for s, series in enumerate(x):
                want, have = optimal_block_lengths(series), got[c][s]
                assert have.bandwidth == want.bandwidth
                assert have.stationary == pytest.approx(want.stationary, rel=TOL)
                assert have.circular == pytest.approx(want.circular, rel=TOL)


def test_automatic_length_reads_more_lags_when_needed(client, monkeypatch):
    """A random walk's autocorrelations never fall inside the band: the lags are read round
    after round up to ``ceil(sqrt(n)) + K_n``, and the length is still memory's."""
    monkeypatch.setattr(_serial, "FIRST_LAGS", 4)
    rng = np.random.default_rng(2)
    n = 900
    y = rng.normal(size=n)
    df = pd.DataFrame({"y": y, "a": y + np.cumsum(rng.normal(size=n)), "b": y})
    got = _serial.automatic_lengths(
        dask, dd.from_pandas(df, npartitions=30, sort=False), "y", ["a"]
    )
    want = optimal_block_lengths(np.abs(df["a"].to_numpy() - y))
    assert want.bandwidth > 8
    assert got[0][0].stationary == pytest.approx(want.stationary, rel=TOL)
    assert got[0][0].bandwidth == want.bandwidth


# ------------------------------------------------------------------------------------------------
# evaluate with blocks


@pytest.mark.parametrize("parts", [1, 3, 7])
def test_block_replicates_are_the_clustered_poisson_bootstrap_of_blocks(
    client, parquet_files, poisson_counts, parts
):
    """With ``time`` the replicates weigh blocks of consecutive rows: each one is the in-memory
    measure under the Poisson weights of the blocks ``position // L`` (as
    ``compare_models(scheme="poisson", groups=...)`` draws them), whatever the partitioning;
    ``"auto"`` is the in-memory automatic length of the stationary scheme, rounded."""
    df = _series(1200, seed=4, tz="Europe/Paris")
    df["e"] = (df["y"] > df["y"].quantile(0.7)).astype(float)  # a 0/1 target for the AUC
    _, glob = parquet_files(df, parts)
    n_rep = 12
    ev = rd.evaluate(
        glob,
        y_true="y",
        predictions=["a", "b"],
        time="t",
        n_bootstrap=n_rep,
        random_state=3,
        metrics=MEASURES,
        n_buckets=parts + 1,
        robustness=False,
        row_plots=False,
    )
    estimate = resolve_block_length(
        "auto", "stationary", df["y"].to_numpy(), np.stack([df["a"], df["b"]])
    )
    settings = ev.settings
    assert settings["scheme"] == "blocks" and settings["time"] == "t"
    assert settings["block_length_estimate"] == pytest.approx(estimate, rel=TOL)
    length = settings["block_length"]
    assert length == max(1, round(estimate)) and length > 1
    boot = ev.extras["bootstrap"]
    assert boot["scheme"] == "blocks" and f"blocks of {length} consecutive rows" in boot["keys"]
    df["block"] = np.arange(len(df)) // length
    counts = poisson_counts(df, "block", n_rep, 3)
    for name in MEASURES:
        spec = get_metric(name)
        for model in ("a", "b"):
            want = [
                spec.func(df["y"].to_numpy(), df[model].to_numpy(), sample_weight=counts[r] * 1.0)
                for r in range(n_rep)
            ]
            np.testing.assert_allclose(
                boot["replicates"][model][name], want, rtol=TOL, atol=TOL, err_msg=name
            )
    # every interval from the replicates, as with groups
    assert set(ev.comparison.interval_methods) <= {"bootstrap-percentile"}
    binary = rd.evaluate(
        dd.from_pandas(df, npartitions=parts, sort=False),
        y_true="e",
        predictions=["a"],
        time="t",
        block_length=9,
        n_bootstrap=n_rep,
        random_state=3,
        metrics=["roc_auc"],
        robustness=False,
        row_plots=False,
    )
    assert binary.settings["block_length"] == 9 and "block_length_estimate" not in binary.settings
    df["block"] = np.arange(len(df)) // 9
    counts = poisson_counts(df, "block", n_rep, 3)
    want = [
        get_metric("roc_auc").func(df["e"], df["a"], sample_weight=counts[r] * 1.0)
        for r in range(n_rep)
    ]
    got = binary.extras["bootstrap"]["replicates"]["a"]["roc_auc"]
    np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)


def test_block_replicates_of_the_measures_of_sums(client, poisson_counts):
    """SERA's replicates (its own pass of sums, the relevance at its full-sample value) weigh
    the same blocks: identical for 1 and 7 partitions and equal to the in-memory measure under
    the blocks' Poisson weights."""
    from ranklens.relevance import relevance_from_boxplot

    df = _series(700, seed=10)
    n_rep = 5
    got = {
        parts: rd.evaluate(
            dd.from_pandas(df, npartitions=parts, sort=False),
            y_true="y",
            predictions=["a"],
            time="t",
            block_length=8,
            n_bootstrap=n_rep,
            random_state=2,
            metrics=["sera"],
            robustness=False,
            row_plots=False,
        ).extras["bootstrap"]["replicates"]["a"]["sera"]
        for parts in (1, 7)
    }
    np.testing.assert_allclose(got[7], got[1], rtol=TOL, atol=TOL)
    df["block"] = np.arange(len(df)) // 8
    counts = poisson_counts(df, "block", n_rep, 2)
    phi = relevance_from_boxplot(df["y"].to_numpy())
    sera = get_metric("sera").func
    want = [
        sera(df["y"], df["a"], sample_weight=counts[r] * 1.0, relevance=phi) for r in range(n_rep)
    ]
    np.testing.assert_allclose(got[1], want, rtol=TOL, atol=TOL)


def test_blocks_without_time_take_the_rows_as_given(client):
    df = _series(300, seed=5).drop(columns="t")
    ev = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a"],
        scheme="blocks",
        block_length=10,
        n_bootstrap=4,
        metrics=["mean_absolute_error"],
        robustness=False,
        row_plots=False,
    )
    assert ev.settings["block_length"] == 10 and "time" not in ev.settings
    assert "in the order given" in ev.extras["bootstrap"]["keys"]


def test_a_time_index_is_read_as_the_time_column(client):
    """A dask DataFrame sorted by ``set_index(time)``: the index is the time column."""
    df = _series(400, seed=9)
    kw = dict(
        y_true="y",
        predictions=["a", "b"],
        time="t",
        n_bootstrap=6,
        metrics=["mean_absolute_error"],
        robustness=False,
        row_plots=False,
    )
    by_column = rd.evaluate(dd.from_pandas(df, npartitions=3, sort=False), **kw)
    by_index = rd.evaluate(dd.from_pandas(df, npartitions=3).set_index("t"), **kw)
    assert by_index.settings["block_length"] == by_column.settings["block_length"]
    np.testing.assert_array_equal(
        by_index.extras["bootstrap"]["replicates"]["a"]["mean_absolute_error"],
        by_column.extras["bootstrap"]["replicates"]["a"]["mean_absolute_error"],
    )
    windows = rd.by_window(
        dd.from_pandas(df, npartitions=3).set_index("t"),
        y_true="y",
        predictions=["a", "b"],
        time="t",
        window="W",
        metrics=["mean_absolute_error"],
        n_bootstrap=0,
    )
    assert (
        windows.windows
        == _memory_windows(df, df["t"], "W", n_bootstrap=0, metrics=["mean_absolute_error"]).windows
    )


def test_rows_out_of_time_order_are_refused_naming_the_partition(client):
    df = _series(300, seed=6)
    kw = dict(y_true="y", predictions=["a"], time="t", n_bootstrap=4, robustness=False)
    inside = df.copy()
    inside.loc[150:151, "t"] = inside.loc[150:151, "t"].to_numpy()[::-1]
    with pytest.raises(
        ValueError, match=r"'t'.*not in time order in partition 1 of 3.*sort_values"
    ):
        rd.evaluate(dd.from_pandas(inside, npartitions=3, sort=False), **kw)
    across = pd.concat([df.iloc[100:200], df.iloc[:100], df.iloc[200:]], ignore_index=True)
    with pytest.raises(
        ValueError, match=r"partition 1 of 3 \(counting from 0\) starts at .*before"
    ):
        rd.evaluate(dd.from_pandas(across, npartitions=3, sort=False), **kw)
    missing = df.astype({"t": object})
    missing.loc[5, "t"] = None
    with pytest.raises(ValueError, match="'t' holds missing"):
        rd.evaluate(dd.from_pandas(missing, npartitions=2, sort=False), **kw)
    # numbers and ISO 8601 strings with changing offsets are times too
    numbers = df.assign(t=np.arange(300) * 0.5)
    iso = df.assign(t=pd.date_range("2024-03-30", periods=300, freq="h", tz="Europe/Paris"))
    iso["t"] = iso["t"].map(lambda v: v.isoformat())
    for frame in (numbers, iso):
        ev = rd.evaluate(
            dd.from_pandas(frame, npartitions=3, sort=False),
            **{**kw, "metrics": ["mean_absolute_error"], "block_length": 5},
        )
        assert ev.settings["block_length"] == 5


def test_what_the_engine_cannot_draw_is_refused_by_name(client):
    df = _series(200, seed=7)
    frame = dd.from_pandas(df.assign(g=np.arange(200) % 9), npartitions=2, sort=False)
    kw = dict(y_true="y", predictions=["a"], n_bootstrap=4, robustness=False)
    for scheme in ("stationary", "circular"):
        with pytest.raises(
            ValueError, match=rf"scheme='{scheme}' is not available on Dask.*'blocks'"
        ):
            rd.evaluate(frame, time="t", scheme=scheme, **kw)
    with pytest.raises(ValueError, match="scheme must be one of"):
        rd.evaluate(frame, scheme="weekly", **kw)
    with pytest.raises(ValueError, match="block_length is the 'blocks' scheme's"):
        rd.evaluate(frame, block_length=5, **kw)
    with pytest.raises(ValueError, match="time='t' orders the rows"):
        rd.evaluate(frame, time="t", scheme="poisson", **kw)
    with pytest.raises(ValueError, match="groups='g' with scheme='blocks'"):
        rd.evaluate(frame, time="t", groups="g", **kw)
    with pytest.raises(ValueError, match="needs n_bootstrap"):
        rd.evaluate(frame, time="t", **{**kw, "n_bootstrap": 0})
    for bad in (2.5, 0, True, "long"):
        with pytest.raises(ValueError, match="block_length must be 'auto' or a whole number"):
            rd.evaluate(frame, time="t", block_length=bad, **kw)
    with pytest.raises(ValueError, match=r"block_length must lie in \[1, 200\]"):
        rd.evaluate(frame, time="t", block_length=201, **kw)
    with pytest.raises(ValueError, match="time must name the column"):
        rd.evaluate(frame, time=["t"], **kw)
    with pytest.raises(ValueError, match="'zz'"):
        rd.evaluate(frame, time="zz", **kw)
    with pytest.raises(ValueError, match="scheme='stationary' is not available on Dask"):
        rd.by_segment(frame, y_true="y", predictions=["a", "b"], by="g", scheme="stationary")


def test_by_segment_with_blocks_equals_memory_values(client, parquet_files):
    """Segments of blocked rows: the values and counts of memory's ``by_segment``; each
    compared record holds the rows per block."""
    df = _series(900, seed=8)
    df["region"] = np.random.default_rng(8).choice(["north", "south", "west"], len(df))
    _, glob = parquet_files(df, 3)
    got = rd.by_segment(
        glob,
        y_true="y",
        predictions=["a", "b"],
        by="region",
        metrics=MEASURES,
        time="t",
        block_length=6,
        n_bootstrap=60,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = rl.by_segment(
            df["y"], {"a": df["a"], "b": df["b"]}, df[["region"]], metrics=MEASURES, n_bootstrap=0
        )
    assert got.scheme == "blocks" and got.block_length == 6
    cells = {(r["segment"], r["metric"], r["model"]): r for r in want.records}
    assert len(got.records) == len(cells)
    for record in got.records:
        ref = cells[(record["segment"], record["metric"], record["model"])]
        assert record["n_rows"] == ref["n_rows"]
        assert _close(record["value"], ref["value"])
        assert record["block_length"] == 6.0
    assert got.to_frame()["block_length"].dropna().eq(6.0).all()
    assert any("blocks of 6 consecutive rows in time order by 't'" in note for note in got.notes)


# ------------------------------------------------------------------------------------------------
# by_window


def _memory_windows(df: pd.DataFrame, time, window, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rl.timeseries.by_window(
            df["y"], {"a": df["a"], "b": df["b"]}, time, window=window, **kw
        )


def _same_windows(got, want, *, verdicts: bool) -> None:
    """The same windows, bounds, positions, notes (the engine adds its own after), picks,
    values and counts (and statuses and verdicts with ``verdicts``)."""
    assert got.windows == want.windows
    assert got.window_starts == want.window_starts and got.window_ends == want.window_ends
    assert got.window_index == want.window_index
    assert got.window == want.window and got.window_kind == want.window_kind
    assert got.unit == want.unit and got.timezone == want.timezone
    assert got.notes[: len(want.notes)] == want.notes
    assert got.picks == want.picks
    for metric, by_model in want.overall.items():
        for model, value in by_model.items():
            assert _close(got.overall[metric][model], value), (metric, model)
    assert len(got.records) == len(want.records)
    for mine, ref in zip(got.records, want.records, strict=True):
        key = (ref["window"], ref["metric"], ref["model"])
        assert (mine["window"], mine["metric"], mine["model"]) == key
        assert mine["window_index"] == ref["window_index"]
        assert (mine["window_start"], mine["window_end"]) == (
            ref["window_start"],
            ref["window_end"],
        )
        assert (mine["n_rows"], mine["n_events"]) == (ref["n_rows"], ref["n_events"]), key
        assert _close(mine["value"], ref["value"]), (key, mine["value"], ref["value"])
        if verdicts:
            assert (mine["status"], mine["verdict"]) == (ref["status"], ref["verdict"]), key


@pytest.mark.parametrize("parts", [1, 3, 7])
def test_calendar_windows_equal_memory_on_parquet_files(client, parquet_files, parts):
    """Months of zone-aware times with a month without rows (a gap), each month across the
    parts' boundaries: the in-memory windows, bounds, values and counts, and each window's
    rows per block the rounded in-memory automatic length of its rows."""
    df = _series(1400, seed=parts, start="2023-12-20", freq="6h", tz="Europe/Paris")
    df = df[df["t"].dt.month != 3].reset_index(drop=True)  # no rows in March
    _, glob = parquet_files(df, parts)
    kw = dict(metrics=MEASURES, n_bootstrap=0)
    got = rd.by_window(glob, y_true="y", predictions=["a", "b"], time="t", window="ME", **kw)
    want = _memory_windows(df, df["t"], "ME", **kw)
    _same_windows(got, want, verdicts=True)
    assert any("holds no rows" in note for note in got.notes)
    assert got.timezone == "Europe/Paris"
    boot = rd.by_window(
        glob,
        y_true="y",
        predictions=["a", "b"],
        time="t",
        window="M",
        metrics=MEASURES,
        n_bootstrap=50,
    )
    assert boot.scheme == "blocks" and boot.block_length == "auto"
    want = _memory_windows(df, df["t"], "M", metrics=MEASURES, n_bootstrap=50)
    _same_windows(boot, want, verdicts=False)
    assert set(boot.block_lengths) == set(want.block_lengths)
    for window, length in want.block_lengths.items():
        assert boot.block_lengths[window] == max(1, round(length)), window


def test_windows_of_rows_equal_memory(client, parquet_files):
    """Windows of a number of rows, with times (their first and last rows' times as bounds)
    and without (the rows in the order given); a short last window."""
    df = _series(1030, seed=11, freq="h", tz="UTC")
    _, glob = parquet_files(df, 4)
    kw = dict(metrics=MEASURES, n_bootstrap=0)
    got = rd.by_window(glob, y_true="y", predictions=["a", "b"], time="t", window=200, **kw)
    _same_windows(got, _memory_windows(df, df["t"], 200, **kw), verdicts=True)
    frame = dd.from_pandas(df.drop(columns="t"), npartitions=5, sort=False)
    got = rd.by_window(frame, y_true="y", predictions=["a", "b"], window=300, **kw)
    want = _memory_windows(df, None, 300, **kw)
    _same_windows(got, want, verdicts=True)
    assert got.notes[0] == "the last window holds 130 rows (windows of 300 rows)"


def test_strong_verdicts_and_trend_agree_with_memory(client):
    """A model that drifts away: where memory's verdicts are beyond doubt the engine's are the
    same, and both find the trend."""
    rng = np.random.default_rng(12)
    n = 2880
    t = pd.date_range("2023-01-01", periods=n, freq="3h")
    y = rng.gamma(2.0, size=n)
    drift = np.linspace(-0.6, 1.2, n)
    df = pd.DataFrame(
        {
            "t": t,
            "y": y,
            "a": y + (0.5 + np.maximum(drift, 0.0) * 1.5) * _ar1(rng, n, 0.5),
            "b": y + 0.9 * rng.normal(size=n),
        }
    )
    kw = dict(metrics=["mean_absolute_error"], n_bootstrap=200)
    got = rd.by_window(
        dd.from_pandas(df, npartitions=5, sort=False),
        y_true="y",
        predictions=["a", "b"],
        time="t",
        window="M",
        **kw,
    )
    want = _memory_windows(df, df["t"], "M", **kw)
    _same_windows(got, want, verdicts=False)
    strong = [i for i, r in enumerate(want.records) if r.get("q_value", 1.0) < 1e-4]
    assert len(strong) >= 3
    assert all(got.records[i]["verdict"] == want.records[i]["verdict"] for i in strong)
    (trend,) = got.trends
    assert trend["p_value"] < 1e-3 and want.trends[0]["p_value"] < 1e-3
    assert "grows" in trend["statement"] or "shrinks" in trend["statement"]


def test_blocks_start_anew_in_each_window(client):
    """No block spans two windows: each window's rows are numbered in blocks of its own length
    from its first row, the blocks numbered on in time order."""
    df = _series(25, seed=13, freq="D").iloc[:, :2]
    cut = WindowCut("rows", None, 10, np.zeros(0, np.int64))
    first = np.array([0, 10, 20])
    length = np.array([4, 3, 2])
    before = np.array([0, 3, 7])
    part = with_windows(df.iloc[8:23], 8, cut, ["w0", "w1", "w2"], (first, length, before), [])
    assert part[CODE].tolist() == [0, 0] + [1] * 10 + [2] * 3
    assert part[BLOCK].tolist() == [2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 7, 7, 8]
    assert list(part[WINDOW].cat.categories) == ["w0", "w1", "w2"]


def test_short_windows_are_not_compared_as_in_memory(client):
    """A last window of 5 rows with ``"auto"`` (fewer than 9) and windows shorter than a given
    length: not compared, with memory's reason."""
    df = _series(205, seed=14, freq="D")
    frame = dd.from_pandas(df, npartitions=3, sort=False)
    kw = dict(metrics=["mean_absolute_error"], n_bootstrap=40, min_rows=3)
    got = rd.by_window(frame, y_true="y", predictions=["a", "b"], time="t", window=50, **kw)
    want = _memory_windows(df, df["t"], 50, **kw)
    last = [(r["status"], r["reason"]) for r in got.records if r["window"] == "rows 201-205"]
    assert last == [
        (r["status"], r["reason"]) for r in want.records if r["window"] == "rows 201-205"
    ]
    assert last[0] == (
        "not compared",
        "ValueError: block_length='auto' needs at least 9 rows; got 5",
    )
    got = rd.by_window(
        frame, y_true="y", predictions=["a", "b"], time="t", window=50, block_length=20, **kw
    )
    want = _memory_windows(df, df["t"], 50, block_length=20, **kw)
    assert [(r["status"], r["reason"]) for r in got.records] == [
        (r["status"], r["reason"]) for r in want.records
    ]
    assert got.block_lengths == {w: 20.0 for w in got.windows[:-1]}


def test_by_window_refusals_are_named(client):
    df = _series(120, seed=15, freq="D")
    frame = dd.from_pandas(df, npartitions=2, sort=False)
    kw = dict(y_true="y", predictions=["a", "b"], n_bootstrap=0)
    with pytest.raises(ValueError, match="window="):
        rd.by_window(frame, window="M", **kw)  # a calendar period needs time
    with pytest.raises(ValueError, match="window must be"):
        rd.by_window(frame, time="t", window="2M", **kw)
    with pytest.raises(ValueError, match="scheme='circular' is not available on Dask"):
        rd.by_window(frame, time="t", window="M", scheme="circular", **kw)
    shuffled = df.iloc[::-1].reset_index(drop=True)
    with pytest.raises(ValueError, match=r"not in time order.*sort"):
        rd.by_window(
            dd.from_pandas(shuffled, npartitions=2, sort=False), time="t", window="M", **kw
        )
    with pytest.raises(ValueError, match="time column 'y'"):
        rd.by_window(frame, time="y", window="M", **kw)
    zones = pd.concat(
        [
            df.iloc[:60].assign(
                t=df["t"].iloc[:60].dt.tz_localize("UTC").map(lambda v: v.isoformat())
            ),
            df.iloc[60:].assign(
                t=df["t"].iloc[60:].dt.tz_localize("Asia/Tokyo").map(lambda v: v.isoformat())
            ),
        ]
    )
    with pytest.raises(ValueError, match=r"different zones|not in time order"):
        rd.by_window(dd.from_pandas(zones, npartitions=2, sort=False), time="t", window="M", **kw)
