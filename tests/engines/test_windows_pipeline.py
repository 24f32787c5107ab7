"""``evaluate_models(window=...)``: the evaluation over time windows inside the pipeline.

Its numbers are those of :func:`ranklens.timeseries.by_window` called directly on the rows in
time order with the evaluation's settings (weights, units, events, seed, replicates, the block
scheme and its one length), whether the rows come in time order or shuffled, with calendar
windows or windows of rows; with a block scheme the segments of ``by`` and ``scan`` resample
blocks too; an option that cannot apply is refused with a message that names it;
``results.json`` carries the ``windows`` block its schema describes.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ranklens import by_segment, evaluate_models, scan_segments
from ranklens.evaluation import ALL_MODELS, window_records, windows_json
from ranklens.report import evaluation_to_json
from ranklens.segments import DEFAULT_SEGMENT_METRICS
from ranklens.timeseries import by_window
from report_schema import results_schema, validate

N = 540
B = 40
SEED = 3


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """Two readings a day for nine months, in time order; model b drifts away from the truth,
    its errors persist from one reading to the next; a region, case weights and units."""
    rng = np.random.default_rng(17)
    time = pd.date_range("2024-01-01 09:00", periods=N, freq="12h")
    y = rng.gamma(2.0, size=N)
    noise = np.zeros(N)
    for t in range(1, N):
        noise[t] = 0.5 * noise[t - 1] + rng.normal()
    drift = np.linspace(0.3, 1.6, N)
    return pd.DataFrame(
        {
            "date": time,
            "y": y,
            "a": y + rng.normal(size=N),
            "b": y + drift * noise,
            "region": rng.choice(["north", "south"], N),
            "w": rng.uniform(0.5, 2.0, N),
            "customer": rng.integers(0, 40, N),
        }
    )


@pytest.fixture(scope="module")
def shuffled(table) -> pd.DataFrame:
    return table.sample(frac=1.0, random_state=4).reset_index(drop=True)


def _light(**kwargs):
    """The pipeline without curves and robustness tables (they do not touch the windows)."""
    return dict(curves=False, robustness=False, **kwargs)


def _same(got, want) -> None:
    pd.testing.assert_frame_equal(got.to_frame(), want.to_frame(), check_exact=True)
    pd.testing.assert_frame_equal(got.stability_frame(), want.stability_frame(), check_exact=True)
    pd.testing.assert_frame_equal(got.trend_frame(), want.trend_frame(), check_exact=True)
    assert got.summary() == want.summary()
    assert got.notes == want.notes


def _arrays(frame: pd.DataFrame) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    return frame["y"].to_numpy(), {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()}


@pytest.mark.parametrize("rows", ["in order", "shuffled"])
def test_calendar_windows_give_the_numbers_of_by_window(table, shuffled, rows):
    """Months of the times: the rows sorted, then by_window with the evaluation's seed,
    replicates, events, the stationary scheme and the one block length of the evaluation."""
    given = table if rows == "in order" else shuffled
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=given,
        time="date",
        window="M",
        n_bootstrap=B,
        random_state=SEED,
        events="top:0.2",
        **_light(),
    )
    y, preds = _arrays(table)
    direct = by_window(
        y,
        preds,
        table["date"],
        window="M",
        metrics=ev.windows.metrics,
        n_bootstrap=B,
        random_state=SEED,
        events="top:0.2",
        scheme="stationary",
        block_length=ev.settings["block_length"],
    )
    assert ev.windows.metrics == DEFAULT_SEGMENT_METRICS
    assert ev.windows.windows == tuple(f"2024-{m:02d}" for m in range(1, 10))
    assert ev.windows.scheme == "stationary"
    assert ev.windows.block_length == ev.settings["block_length"]
    assert ev.settings["window"] == "M"
    _same(ev.windows, direct)
    # the windows' evaluation was left alone by the rest: no problem recorded for it
    assert "evaluation over time" not in ev.problems.get(ALL_MODELS, {})


def test_windows_of_rows_without_time(table):
    """A number of rows per window takes the rows as given: the stationary bootstrap with
    each window's own block length (the evaluation itself draws no blocks)."""
    y, preds = _arrays(table)
    ev = evaluate_models(y, preds, window=120, n_bootstrap=B, random_state=SEED, **_light())
    direct = by_window(y, preds, window=120, metrics=ev.windows.metrics, n_bootstrap=B,
                       random_state=SEED)  # fmt: skip
    _same(ev.windows, direct)
    assert ev.windows.block_length == "auto" and ev.windows.window_kind == "rows"
    assert ev.windows.windows[-1] == "rows 481-540"
    assert "scheme" not in ev.settings  # the evaluation's own bootstrap resamples rows


def test_numbers_for_times_sort_the_rows_for_windows_of_rows(table, shuffled):
    """A time index of numbers puts the rows in time order; windows of rows then need no
    dates (their bounds are None) and give the numbers of the rows as sorted."""
    index = (shuffled["date"] - table["date"].iloc[0]).dt.total_seconds().to_numpy()
    y, preds = _arrays(shuffled)
    ev = evaluate_models(y, preds, time=index, window=120, n_bootstrap=B, random_state=SEED,
                         **_light())  # fmt: skip
    sorted_y, sorted_preds = _arrays(table)
    direct = by_window(
        sorted_y,
        sorted_preds,
        window=120,
        metrics=ev.windows.metrics,
        n_bootstrap=B,
        random_state=SEED,
        scheme="stationary",
        block_length=ev.settings["block_length"],
    )
    _same(ev.windows, direct)
    assert set(ev.windows.window_starts) == {None}


def test_weights_units_and_the_segment_options_are_passed_on(table):
    """Case weights, whole units (a scheme of rows: units cannot be cut into blocks), and
    min_segment_rows, segment_fdr and segment_fdr_level judge the windows too."""
    y, preds = _arrays(table)
    ev = evaluate_models(
        y,
        preds,
        sample_weight=table["w"].to_numpy(),
        groups=table["customer"].to_numpy(),
        window=90,
        n_bootstrap=B,
        random_state=SEED,
        min_segment_rows=100,
        segment_fdr="by",
        segment_fdr_level=0.1,
        **_light(),
    )
    direct = by_window(
        y,
        preds,
        window=90,
        metrics=ev.windows.metrics,
        sample_weight=table["w"].to_numpy(),
        groups=table["customer"].to_numpy(),
        scheme="multinomial",
        n_bootstrap=B,
        random_state=SEED,
        min_rows=100,
        fdr="by",
        fdr_level=0.1,
    )
    _same(ev.windows, direct)
    assert ev.windows.min_rows == 100 and ev.windows.fdr_method == "benjamini-yekutieli"
    # windows of 90 rows are below 100: values and counts, no interval
    assert {r["status"] for r in ev.windows.records} <= {"too small", "undefined"}


def test_segments_resample_blocks_with_time(table, shuffled):
    """With a block scheme the segments of by and scan resample blocks of their rows in time
    order, with the evaluation's scheme and length; no note says otherwise."""
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=shuffled,
        time="date",
        by="region",
        scan="region",
        window="Q",
        n_bootstrap=B,
        random_state=SEED,
        **_light(),
    )
    y, preds = _arrays(table)
    blocks = dict(scheme="stationary", block_length=ev.settings["block_length"])
    same = dict(metrics=ev.segments.metrics, n_bootstrap=B, random_state=SEED, **blocks)
    direct = by_segment(y, preds, {"region": table["region"]}, **same)
    pd.testing.assert_frame_equal(ev.segments.to_frame(), direct.to_frame(), check_exact=True)
    assert ev.segments.scheme == "stationary"
    scan = scan_segments(y, preds, {"region": table["region"]}, **same)
    pd.testing.assert_frame_equal(
        ev.segment_scan.evaluation.to_frame(), scan.evaluation.to_frame(), check_exact=True
    )
    assert "segments' intervals" not in ev.problems.get(ALL_MODELS, {})
    assert ev.windows.windows == ("2024Q1", "2024Q2", "2024Q3")


def test_without_replicates_a_window_of_rows_has_values_only(table):
    y, preds = _arrays(table)
    ev = evaluate_models(y, preds, window=200, n_bootstrap=0, **_light())
    assert ev.windows.n_bootstrap == 0
    assert {r["status"] for r in ev.windows.records} == {"not compared"}
    assert all(np.isfinite(r["value"]) for r in ev.windows.records if r["metric"] != "roc_auc")


@pytest.mark.parametrize(
    ("kwargs", "exception", "pattern"),
    [
        (dict(window="M"), ValueError, "window='M' is a calendar period and needs time"),
        (dict(window="2M"), ValueError, "window must be a calendar period"),
        (dict(window=0), ValueError, "window must be at least 1 row"),
        (dict(window=True), ValueError, "window must be a calendar period or a number of rows"),
        (
            dict(window="M", time=np.arange(N, dtype=float), n_bootstrap=B),
            ValueError,
            "window='M' is a calendar period and needs dates or times in time",
        ),
        (dict(window=100, segment_bins=3), ValueError, "segment_bins is an option of the"),
        (dict(min_segment_rows=5), ValueError, "give by or scan or window too"),
    ],
)
def test_refusals_name_the_option(table, kwargs, exception, pattern):
    y, preds = _arrays(table)
    with pytest.raises(exception, match=pattern.replace("(", r"\(").replace("[", r"\[")):
        evaluate_models(y, preds, **_light(**kwargs))


def test_one_model_is_refused(table):
    with pytest.raises(ValueError, match="window: the evaluation over time windows compares"):
        evaluate_models(table["y"], {"a": table["a"]}, window=100, **_light())


def test_the_json_block_holds_the_windows_and_validates(table):
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=table,
        time="date",
        window="M",
        n_bootstrap=B,
        random_state=SEED,
        **_light(),
    )
    doc = json.loads(json.dumps(evaluation_to_json(ev), allow_nan=False))
    validate(doc, results_schema())
    assert doc["schema_version"] == "2.7"
    block = doc["windows"]
    assert block["settings"]["window"] == "M" and block["settings"]["unit"] == "month"
    assert block["settings"]["scheme"] == "stationary"
    assert [w["window"] for w in block["windows"]] == list(ev.windows.windows)
    assert block["windows"][0]["start"] == "2024-01-01T00:00:00"
    assert block["windows"][0]["end"] == "2024-02-01T00:00:00"
    assert len(block["records"]) == len(window_records(ev.windows)) == 9 * 3 * 2
    assert block["summary"] == ev.windows.summary()
    assert [s["statement"] for s in block["stability"]] == [
        s["statement"] for s in ev.windows.stability
    ]
    assert windows_json(ev)["n_tests"] == ev.windows.n_tests
    # without window there is no block
    plain = evaluate_models("y", ["a", "b"], data=table, **_light())
    assert "windows" not in evaluation_to_json(plain) and plain.windows is None
