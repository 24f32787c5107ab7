"""Evaluation over time windows (ranklens.timeseries.by_window): each window's numbers against the
measure called on its rows and the block bootstrap of those rows, calendar windows with gaps,
one-row windows, time zones, unsorted rows, windows of rows, the stability of the pick's lead,
the trend test against statsmodels' weighted least squares, the containers of times and the
refusals."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import ranklens as rl
from ranklens.exceptions import DomainError
from ranklens.metrics import available_metrics, get_metric
from ranklens.timeseries import by_window, fixed_effect_trend

POINT_METRICS = [
    name
    for name in available_metrics()
    if get_metric(name).inputs == "point" and not get_metric(name).order_dependent
]


def _data(
    n: int = 720, seed: int = 0, start: str = "2023-01-01"
) -> tuple[np.ndarray, dict[str, np.ndarray], pd.Series]:
    """Daily-ish rows over two years, ties in the target and the predictions, AR(1) errors."""
    rng = np.random.default_rng(seed)
    offsets = np.sort(rng.integers(0, 730 * 24, size=n))  # hours since the start, some shared
    time = pd.Series(pd.Timestamp(start) + pd.to_timedelta(offsets, unit="h"))
    y = np.round(rng.lognormal(size=n), 1)
    noise = np.zeros(n)
    for i in range(1, n):
        noise[i] = 0.6 * noise[i - 1] + rng.normal()
    a = np.round(y + noise, 1)
    b = np.round(y + 0.8 * rng.normal(size=n), 1)
    return y, {"a": a, "b": b}, time


def _records(result: rl.WindowEvaluation, **where: object) -> list[dict]:
    return [r for r in result.records if all(r[k] == v for k, v in where.items())]


def _expected(spec, y, pred, w, events) -> float:
    kwargs = {"events": events} if "events" in spec.func.__code__.co_varnames else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return spec(y, pred, sample_weight=w, **kwargs)
        except DomainError:  # undefined on these rows: the window's value is NaN
            return math.nan


@pytest.mark.parametrize("weighted", [False, True])
def test_each_window_value_is_the_measure_on_its_rows(weighted: bool) -> None:
    y, preds, time = _data(600)
    w = np.random.default_rng(1).integers(0, 4, size=y.size).astype(float) if weighted else None
    result = by_window(
        y,
        preds,
        time,
        window="Q",
        metrics=POINT_METRICS,
        sample_weight=w,
        n_bootstrap=0,
        min_rows=1,
    )
    events = rl.targeting.fixed_events(y, None, sample_weight=w)
    quarters = time.dt.to_period("Q").astype(str).to_numpy()
    assert result.windows == tuple(sorted(set(quarters)))
    checked = 0
    for record in result.records:
        rows = quarters == record["window"]
        assert record["n_rows"] == rows.sum()
        spec = get_metric(record["metric"])
        expected = _expected(
            spec, y[rows], preds[record["model"]][rows], None if w is None else w[rows], events
        )
        if math.isnan(expected):
            assert math.isnan(record["value"]), record
        else:
            assert record["value"] == pytest.approx(expected, rel=1e-12, abs=1e-15), record
        checked += 1
    assert checked == len(POINT_METRICS) * 8 * 2


def test_intervals_are_each_windows_block_bootstrap_in_time_order() -> None:
    y, preds, time = _data(500)
    metrics = ["mean_absolute_error", "kendall_tau"]
    result = by_window(y, preds, time, window="Q", metrics=metrics, n_bootstrap=150, random_state=5)
    assert result.scheme == "stationary" and result.block_length == "auto"
    quarters = time.dt.to_period("Q").astype(str).to_numpy()
    for j, name in enumerate(result.windows):
        rows = quarters == name
        by_hand = rl.compare_models(
            y[rows],
            {m: p[rows] for m, p in preds.items()},
            metrics=metrics,
            n_bootstrap=150,
            random_state=np.random.SeedSequence(5, spawn_key=(0, j)),
            scheme="stationary",
        )
        assert result.block_lengths[name] == by_hand.block_length
        for k, metric in enumerate(metrics):
            for i, model in enumerate(preds):
                record = _records(result, window=name, metric=metric, model=model)[0]
                assert record["value"] == by_hand.values[k, i]
                assert record["ci_lower"] == by_hand.ci_lower[k, i]
                assert record["ci_upper"] == by_hand.ci_upper[k, i]
                assert record["interval_method"] == by_hand.interval_methods[k]


def test_calendar_gaps_are_absent_and_said() -> None:
    y, preds, time = _data(600)
    keep = ~time.dt.month.isin([4, 5]).to_numpy() | (time.dt.year != 2023).to_numpy()
    result = by_window(
        y[keep],
        {m: p[keep] for m, p in preds.items()},
        time[keep],
        window="M",
        metrics=["mean_absolute_error"],
        n_bootstrap=0,
    )
    assert "2023-04" not in result.windows and "2023-05" not in result.windows
    assert len(result.windows) == 22
    position = dict(zip(result.windows, result.window_index, strict=True))
    assert position["2023-03"] == 2 and position["2023-06"] == 5  # calendar positions
    assert any("2 of the 24 months" in note and "2023-04, 2023-05" in note for note in result.notes)
    frame = result.to_frame()
    assert set(frame["window"]) == set(result.windows)
    june = frame[frame["window"] == "2023-06"].iloc[0]
    assert june["window_start"] == pd.Timestamp("2023-06-01")
    assert june["window_end"] == pd.Timestamp("2023-07-01")


def test_a_window_of_one_row_is_too_small_and_left_out_of_the_trend() -> None:
    y, preds, time = _data(600)
    time = time.copy()
    time.iloc[-1] = pd.Timestamp("2025-03-15")  # alone in its month, after a gap
    result = by_window(
        y, preds, time, window="M", metrics=["mean_absolute_error"], n_bootstrap=60, min_rows=10
    )
    lonely = _records(result, window="2025-03")
    assert [r["n_rows"] for r in lonely] == [1, 1]
    for record in lonely:
        assert record["status"] == "too small"
        assert record["reason"].startswith("1 rows, fewer than min_rows=10")
        assert math.isnan(record["ci_lower"]) and record["verdict"] in ("not tested", "pick")
    stability = result.stability[0]
    assert stability["not_tested"] >= 1
    assert stability["n_windows"] == len(result.windows)
    counted = ("clear", "same_direction", "reversed", "other_direction", "tied", "not_tested")
    assert sum(stability[c] for c in counted) == len(result.windows)
    trend = result.trends[0]
    estimated = [
        r for r in result.records if r["model"] == trend["model"] and r["status"] == "estimated"
    ]
    assert trend["n_windows"] == len(estimated) == len(result.windows) - 1
    assert "2025-03" not in result.block_lengths


def test_time_zones_are_kept_and_cut_at_local_midnight() -> None:
    y, preds, naive = _data(400)
    local = naive.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris")
    result = by_window(y, preds, local, window="M", metrics=["mean_absolute_error"], n_bootstrap=0)
    months = local.dt.tz_localize(None).dt.to_period("M").astype(str).to_numpy()
    assert result.timezone == "Europe/Paris"
    for record in result.records:
        assert record["n_rows"] == (months == record["window"]).sum()
    frame = result.to_frame()
    assert str(frame["window_start"].dt.tz) == "Europe/Paris"
    april = frame[frame["window"] == "2023-04"].iloc[0]
    assert april["window_start"] == pd.Timestamp("2023-04-01", tz="Europe/Paris")
    assert april["window_end"] == pd.Timestamp("2023-05-01", tz="Europe/Paris")
    assert result.window_starts[result.windows.index("2023-04")] == "2023-04-01T00:00:00+02:00"
    assert result.window_starts[result.windows.index("2023-01")] == "2023-01-01T00:00:00+01:00"
    assert any("Europe/Paris" in note for note in result.notes)
    # a row at 23:30 UTC on the last day of January is in February in Paris
    edge = pd.Series(
        pd.to_datetime(["2024-01-31T23:30"] * 10 + ["2024-01-15"] * 10, utc=True, format="ISO8601")
    )
    got = by_window(
        np.arange(20.0),
        {"a": np.arange(20.0) + 1, "b": np.arange(20.0) - 2},
        edge.dt.tz_convert("Europe/Paris"),
        window="M",
        metrics=["mean_absolute_error"],
        n_bootstrap=0,
    )
    assert got.windows == ("2024-01", "2024-02")


def test_unsorted_rows_give_the_sorted_result() -> None:
    y, preds, time = _data(500)
    time = time + pd.to_timedelta(np.arange(500), unit="s")  # distinct times
    shuffle = np.random.default_rng(3).permutation(500)
    kwargs = dict(window="Q", metrics=["mean_absolute_error", "roc_auc"], n_bootstrap=80)
    ordered = by_window(y, preds, time, **kwargs)
    shuffled = by_window(
        y[shuffle], {m: p[shuffle] for m, p in preds.items()}, time.iloc[shuffle], **kwargs
    )
    pd.testing.assert_frame_equal(ordered.to_frame(), shuffled.to_frame())
    pd.testing.assert_frame_equal(ordered.stability_frame(), shuffled.stability_frame())
    pd.testing.assert_frame_equal(ordered.trend_frame(), shuffled.trend_frame())
    assert not any("not in time order" in note for note in ordered.notes)
    assert any("not in time order" in note for note in shuffled.notes)


def test_windows_of_rows() -> None:
    y, preds, time = _data(230)
    result = by_window(
        y, preds, window=50, metrics=["mean_absolute_error"], n_bootstrap=40, min_rows=20
    )
    assert result.window_kind == "rows" and result.unit == "window"
    assert result.windows == (
        "rows 1-50",
        "rows 51-100",
        "rows 101-150",
        "rows 151-200",
        "rows 201-230",
    )
    assert result.window_index == (0, 1, 2, 3, 4)
    assert result.window_starts == (None,) * 5
    assert any("the last window holds 30 rows" in note for note in result.notes)
    for j, name in enumerate(result.windows):
        rows = slice(50 * j, 50 * (j + 1))
        for model, pred in preds.items():
            record = _records(result, window=name, model=model)[0]
            expected = rl.mean_absolute_error(y[rows], pred[rows])
            assert record["value"] == pytest.approx(expected, rel=1e-12)
    assert result.to_frame()["window_start"].isna().all()
    with_time = by_window(y, preds, time, window=50, metrics=["mean_absolute_error"], n_bootstrap=0)
    assert with_time.window_starts[1] == time.iloc[50].isoformat()
    assert with_time.window_ends[1] == time.iloc[99].isoformat()


def _reversing(seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray], pd.Series]:
    """Eight months of 300 rows: b far worse than a in the first four, as good in the next two,
    far better in the last two."""
    rng = np.random.default_rng(seed)
    scale_b = [3.0, 3.0, 3.0, 3.0, 1.0, 1.0, 0.3, 0.3]
    ys, a, b, times = [], [], [], []
    for month, sb in enumerate(scale_b):
        y = rng.normal(size=300)
        ys.append(y)
        a.append(y + rng.normal(size=300))
        b.append(y + sb * rng.normal(size=300))
        start = pd.Timestamp(2024, month + 1, 1)
        times.append(start + pd.to_timedelta(np.arange(300) * 2, unit="h"))
    time = pd.Series(np.concatenate(times))
    return np.concatenate(ys), {"a": np.concatenate(a), "b": np.concatenate(b)}, time


def test_stability_counts_where_the_lead_reverses() -> None:
    y, preds, time = _reversing()
    result = by_window(
        y, preds, time, window="M", metrics=["mean_absolute_error"], n_bootstrap=200, pick="a"
    )
    stability = result.stability_frame().iloc[0]
    assert (stability["model"], stability["pick"]) == ("b", "a")
    assert stability["clear"] == 4 and stability["reversed"] == 2
    assert stability["same_direction"] + stability["other_direction"] == 2
    assert stability["n_windows"] == 8 and stability["not_tested"] == 0
    assert stability["statement"].startswith(
        "On mean_absolute_error, the lead of a over b is clear in 4 of 8 windows"
    )
    assert "reversed in 2" in stability["statement"]
    verdicts = [r["verdict"] for r in _records(result, model="b")]
    assert verdicts[:4] == ["worse"] * 4 and verdicts[6:] == ["better"] * 2
    trend = result.trend_frame().iloc[0]
    assert trend["slope"] < 0 and trend["q_value"] < 0.05
    assert "the lead of a shrinks" in trend["statement"]
    assert "reversed in 2" in result.summary()


def test_trend_is_statsmodels_weighted_least_squares_with_fixed_scale() -> None:
    y, preds, time = _reversing(1)
    result = by_window(
        y, preds, time, window="M", metrics=["mean_absolute_error", "kendall_tau"], n_bootstrap=150
    )
    assert result.trend_method.startswith("fixed-effect meta-regression")
    for trend in result.trends:
        cell = _records(result, metric=trend["metric"], model=trend["model"])
        x = np.array([r["window_index"] for r in cell], dtype=float)
        d = np.array([r["difference"] for r in cell])
        se = np.array([r["difference_sd"] for r in cell])
        fit = sm.WLS(d, sm.add_constant(x), weights=1.0 / se**2).fit(cov_type="fixed scale")
        assert trend["slope"] == pytest.approx(fit.params[1], rel=1e-10)
        assert trend["intercept"] == pytest.approx(fit.params[0], rel=1e-10)
        assert trend["std_error"] == pytest.approx(fit.bse[1], rel=1e-10)
        assert trend["z"] == pytest.approx(fit.tvalues[1], rel=1e-10)
        assert trend["p_value"] == pytest.approx(fit.pvalues[1], rel=1e-8)
        assert trend["heterogeneity"] == pytest.approx(fit.ssr, rel=1e-10)
        assert trend["heterogeneity_df"] == fit.df_resid == 6


def test_fixed_effect_trend_against_statsmodels_and_its_refusals() -> None:
    rng = np.random.default_rng(4)
    x = np.array([0, 1, 2, 4, 5, 9], dtype=float)  # gaps in the index
    se = rng.uniform(0.05, 0.3, size=6)
    d = 0.02 * x + se * rng.normal(size=6)
    trend = fixed_effect_trend(x, d, se)
    fit = sm.WLS(d, sm.add_constant(x), weights=1.0 / se**2).fit(cov_type="fixed scale")
    assert trend["slope"] == pytest.approx(fit.params[1], rel=1e-12)
    assert trend["std_error"] == pytest.approx(fit.bse[1], rel=1e-12)
    assert trend["p_value"] == pytest.approx(fit.pvalues[1], rel=1e-10)
    with pytest.raises(ValueError, match="at least 3"):
        fixed_effect_trend([0, 1], [0.1, 0.2], [0.1, 0.1])
    with pytest.raises(ValueError, match="std_errors"):
        fixed_effect_trend([0, 1, 2], [0.1, 0.2, 0.3], [0.1, 0.0, 0.1])
    with pytest.raises(ValueError, match="single value"):
        fixed_effect_trend([1, 1, 1], [0.1, 0.2, 0.3], [0.1, 0.1, 0.1])


def test_too_few_windows_for_a_trend_say_why() -> None:
    y, preds, time = _data(300)
    result = by_window(y, preds, time, window="Y", metrics=["mean_absolute_error"], n_bootstrap=30)
    trend = result.trends[0]
    assert trend["reason"] == "2 windows with an estimated difference, fewer than 3"
    assert math.isnan(trend["slope"]) and "no trend test" in trend["statement"]


def test_month_aliases_and_time_containers_agree_without_warnings() -> None:
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    y, preds, time = _data(300)
    kwargs = dict(metrics=["mean_absolute_error"], n_bootstrap=30)
    expected = by_window(y, preds, time, window="M", **kwargs).to_frame()
    times = {
        "datetime64": time.to_numpy(),
        "iso strings": time.dt.strftime("%Y-%m-%dT%H:%M:%S").tolist(),
        "python datetimes": list(time.dt.to_pydatetime()),
        "DatetimeIndex": pd.DatetimeIndex(time),
        "arrow-backed": time.astype("timestamp[us][pyarrow]"),
        "polars": pl.from_pandas(time),
        "pyarrow": pa.array(time),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for window in ("M", "ME"):
            for name, values in times.items():
                got = by_window(y, preds, values, window=window, **kwargs).to_frame()
                pd.testing.assert_frame_equal(got, expected, obj=f"{window}, {name}")
        quarters = by_window(y, preds, time, window="QE", **kwargs)
        assert quarters.windows == by_window(y, preds, time, window="Q", **kwargs).windows
        weeks = by_window(y, preds, time, window="W", **kwargs)
    assert weeks.windows[0] == str(time.iloc[0].to_period("W")) and weeks.unit == "week"
    start, end = (pd.Timestamp(weeks.window_starts[0]), pd.Timestamp(weeks.window_ends[0]))
    assert start.day_name() == "Monday" and end - start == pd.Timedelta(days=7)  # end excluded
    aware = time.dt.tz_localize("America/New_York")
    iso = aware.map(lambda t: t.isoformat()).tolist()  # offsets -05:00 and -04:00
    with pytest.raises(ValueError, match="time zones"):
        by_window(y, preds, iso, window="M", **kwargs)


def test_to_dict_is_json_ready() -> None:
    y, preds, time = _data(200)
    local = time.dt.tz_localize("Asia/Tokyo")
    result = by_window(y, preds, local, window="Q", n_bootstrap=20)
    json.dumps(result.to_dict(), allow_nan=True)
    assert result.window == "Q" and result.fdr_method == "benjamini-hochberg"
    assert result.evaluation.slicings == ("window",)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"window": "2M"}, "window must be a calendar period"),
        ({"window": "fortnight"}, "window must be a calendar period"),
        ({"window": "M-JAN"}, "window must be a calendar period"),
        ({"window": 0}, "window must be at least 1 row"),
        ({"window": True}, "window must be"),
        ({"window": 2.5}, "window must be"),
        ({"window": "M", "time": None}, "needs time"),
        ({"time": pd.date_range("2024-01-01", periods=9)}, "time has length 9"),
        ({"time": np.arange(10)}, "time must hold dates or times"),
        ({"time": ["2024-01-01"] * 9 + ["soon"]}, "time: row 10: 'soon' is not a date or time"),
        ({"time": ["2024-01-01"] * 9 + [None]}, "missing values"),
        ({"groups": np.arange(10) % 3}, "groups"),
        ({"scheme": "multinomial", "block_length": 3}, "block_length"),
        ({"pick": "zzz"}, "pick"),
    ],
)
def test_refusals_name_the_argument(kwargs: dict, match: str) -> None:
    rng = np.random.default_rng(0)
    call = {
        "time": pd.date_range("2024-01-01", periods=10, freq="D"),
        "window": "W",
        "metrics": ["mean_absolute_error"],
        "n_bootstrap": 10,
    }
    call.update(kwargs)
    with pytest.raises(ValueError, match=match):
        by_window(
            rng.normal(size=10),
            {"a": rng.normal(size=10), "b": rng.normal(size=10)},
            call.pop("time"),
            **call,
        )


def test_groups_with_a_scheme_of_rows() -> None:
    y, preds, time = _data(400)
    units = np.arange(400) // 4
    result = by_window(
        y,
        preds,
        time,
        window="Q",
        metrics=["mean_absolute_error"],
        groups=units,
        scheme="multinomial",
        n_bootstrap=40,
    )
    quarters = time.dt.to_period("Q").astype(str).to_numpy()
    rows = quarters == result.windows[1]
    by_hand = rl.compare_models(
        y[rows],
        {m: p[rows] for m, p in preds.items()},
        metrics=["mean_absolute_error"],
        n_bootstrap=40,
        random_state=np.random.SeedSequence(0, spawn_key=(0, 1)),
        groups=units[rows],
    )
    record = _records(result, window=result.windows[1], model="a")[0]
    assert record["ci_lower"] == by_hand.ci_lower[0, 0]
    assert result.block_lengths == {} and result.scheme == "multinomial"
