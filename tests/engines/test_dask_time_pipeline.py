"""``evaluate_models(engine="dask", time=..., window=...)``: rows in time order through the
pipeline's Dask run.

The pipeline's Dask run with ``time`` is :func:`ranklens.dask.evaluate` called directly with
the same column, seed and replicates (values, settings, replicates); its windows are
:func:`ranklens.dask.by_window` called directly with the evaluation's blocks and its segments
:func:`ranklens.dask.by_segment`'s; its values and counts, and those of its windows and
segments, are the in-memory pipeline's on the same rows. The terminal, the report and
``results.json`` name the Dask engine's fixed, non-overlapping blocks (Carlstein 1986), not the
stationary bootstrap. Rows out of time order, schemes the engine does not draw and windows that
cannot be cut are refused by name.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens.dask as rd  # noqa: E402
from ranklens import evaluate_models  # noqa: E402
from ranklens.report import evaluation_to_json  # noqa: E402
from ranklens.report.render import task_view  # noqa: E402
from ranklens.report.terminal import inference_caption  # noqa: E402
from report_schema import results_schema, validate  # noqa: E402

N = 540
B = 40
SEED = 3
TOL = 1e-12


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """Two readings a day for nine months, in time order; model b drifts away from the truth,
    its errors persisting from one reading to the next; a region."""
    rng = np.random.default_rng(29)
    y = rng.gamma(2.0, size=N)
    noise = np.zeros(N)
    for t in range(1, N):
        noise[t] = 0.6 * noise[t - 1] + rng.normal()
    return pd.DataFrame(
        {
            "date": pd.date_range("2024-01-01 09:00", periods=N, freq="12h"),
            "y": y,
            "a": y + rng.normal(size=N),
            "b": y + np.linspace(0.3, 1.6, N) * noise,
            "region": rng.choice(["north", "south"], N),
        }
    )


@pytest.fixture(scope="module")
def frame(table):
    """The rows in five partitions, the months crossing them."""
    return dd.from_pandas(table, npartitions=5, sort=False)


@pytest.fixture(scope="module")
def piped(frame, client):
    """The pipeline's Dask run with time, windows of months and segments of the region."""
    return evaluate_models(
        "y",
        ["a", "b"],
        data=frame,
        engine="dask",
        time="date",
        window="M",
        by="region",
        n_bootstrap=B,
        random_state=SEED,
    )


@pytest.fixture(scope="module")
def memory(table):
    """The in-memory pipeline on the same rows."""
    return evaluate_models(
        "y",
        ["a", "b"],
        data=table,
        time="date",
        window="M",
        by="region",
        n_bootstrap=B,
        random_state=SEED,
        curves=False,
        robustness=False,
    )


def _same_value(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def test_the_pipeline_is_the_engine_called_directly(frame, piped, client):
    """Values, settings, comparison and replicates of ``ranklens.dask.evaluate(time=...)``."""
    direct = rd.evaluate(
        frame, y_true="y", predictions=["a", "b"], time="date", n_bootstrap=B, random_state=SEED
    )
    assert piped.n == direct.n == N
    for model in ("a", "b"):
        for name, value in direct.values[model].items():
            assert _same_value(piped.values[model][name], value), (model, name)
    sliced = {"window", "by", "segment_bins", "min_segment_rows", "min_segment_events"}
    sliced |= {"segment_fdr", "segment_fdr_level", "cross_segments"}
    assert {k: v for k, v in piped.settings.items() if k not in sliced} == direct.settings
    assert piped.settings["window"] == "M" and piped.settings["by"] == "region"
    settings = piped.settings
    assert settings["scheme"] == "blocks" and settings["time"] == "date"
    assert isinstance(settings["block_length"], int) and settings["block_length"] >= 1
    sentence = settings["block bootstrap"]
    assert "non-overlapping block bootstrap" in sentence and "Carlstein 1986" in sentence
    assert f"block length {settings['block_length']} chosen by Politis & White" in sentence
    assert "stationary" not in sentence
    got, want = piped.extras["bootstrap"], direct.extras["bootstrap"]
    assert got["keys"] == want["keys"] and "blocks of" in str(want["keys"])
    assert want["replicates"].keys() == got["replicates"].keys() == {"a", "b"}
    for model, by_measure in want["replicates"].items():
        assert by_measure.keys() == got["replicates"][model].keys()
        for name, replicates in by_measure.items():
            assert len(replicates) == B
            np.testing.assert_array_equal(got["replicates"][model][name], replicates)
    pd.testing.assert_frame_equal(piped.comparison.to_frame(), direct.comparison.to_frame())


def test_the_windows_are_by_window_called_directly(frame, piped, client):
    """With the evaluation's blocks: its scheme and its one length, cut at each window."""
    direct = rd.by_window(
        frame,
        y_true="y",
        predictions=["a", "b"],
        time="date",
        window="M",
        metrics=piped.windows.metrics,
        n_bootstrap=B,
        random_state=SEED,
        scheme="blocks",
        block_length=piped.settings["block_length"],
    )
    got = piped.windows
    pd.testing.assert_frame_equal(got.to_frame(), direct.to_frame(), check_exact=True)
    pd.testing.assert_frame_equal(got.stability_frame(), direct.stability_frame())
    pd.testing.assert_frame_equal(got.trend_frame(), direct.trend_frame())
    assert got.summary() == direct.summary() and got.notes == direct.notes
    assert got.scheme == "blocks" and got.block_length == piped.settings["block_length"]


def test_the_segments_are_by_segment_with_the_evaluations_blocks(frame, piped, client):
    direct = rd.by_segment(
        frame,
        y_true="y",
        predictions=["a", "b"],
        by="region",
        metrics=piped.segments.metrics,
        n_bootstrap=B,
        random_state=SEED,
        time="date",
        block_length=piped.settings["block_length"],
    )
    pd.testing.assert_frame_equal(piped.segments.to_frame(), direct.to_frame(), check_exact=True)
    lengths = piped.segments.to_frame()["block_length"].dropna()
    assert len(lengths) and (lengths == piped.settings["block_length"]).all()


def test_values_and_counts_are_those_of_memory(piped, memory):
    """The engine is exact: the values of the measures both compute, the windows' and the
    segments' values and counts (the intervals come from another bootstrap)."""
    assert piped.n == memory.n
    compared = 0
    for model in ("a", "b"):
        for name, want in memory.values[model].items():
            got = piped.values[model].get(name, math.nan)
            problem = piped.problems.get(model, {}).get(name)
            if problem is not None and problem.kind == "skipped":
                continue
            assert got == pytest.approx(want, rel=TOL, abs=TOL, nan_ok=True), (model, name)
            compared += 1
    assert compared >= 20
    got, want = piped.windows, memory.windows
    assert got.windows == want.windows and got.metrics == want.metrics
    assert got.window_starts == want.window_starts and got.window_ends == want.window_ends
    g, w = got.to_frame(), want.to_frame()
    keys = ["window", "metric", "model", "n_rows", "pick"]
    pd.testing.assert_frame_equal(g[keys], w[keys])
    np.testing.assert_allclose(g["value"], w["value"], rtol=TOL, atol=TOL)
    g, w = piped.segments.to_frame(), memory.segments.to_frame()
    keys = ["slicing", "segment", "metric", "model", "n_rows", "pick"]
    pd.testing.assert_frame_equal(g[keys], w[keys])
    np.testing.assert_allclose(g["value"], w["value"], rtol=TOL, atol=TOL)


def test_the_report_the_terminal_and_the_json_name_the_fixed_blocks(piped, memory):
    caption = inference_caption(piped)
    assert "time: date" in caption
    assert "block bootstrap: every interval and paired test from the non-overlapping" in caption
    assert "stationary" not in caption
    view = task_view(piped, figures=False)
    sections = {section.id: section for section in view["sections"]}
    for key in ("summary", "comparison"):
        how = sections[key].how
        assert "fixed, non-overlapping blocks" in how and "Carlstein 1986" in how, key
        assert "the stationary bootstrap (Politis" not in how, key
    assert any(
        "non-overlapping block bootstrap, block length" in n for n in sections["summary"].notes
    )
    over_time = " ".join(sections["windows"].notes)
    assert "fixed, non-overlapping blocks of consecutive rows (Carlstein 1986; block length" in (
        over_time
    )
    # the in-memory run still names its own scheme
    how = {s.id: s.how for s in task_view(memory, figures=False)["sections"]}["summary"]
    assert "the stationary bootstrap (Politis" in how and "Carlstein" not in how
    doc = json.loads(json.dumps(evaluation_to_json(piped), allow_nan=False))
    validate(doc, results_schema())
    assert doc["settings"]["scheme"] == "blocks" == doc["windows"]["settings"]["scheme"]
    assert "Carlstein 1986" in doc["settings"]["block bootstrap"]
    assert doc["windows"]["settings"]["block_length"] == piped.settings["block_length"]


def test_a_frame_sorted_by_set_index_takes_the_index_as_times(table, client):
    """``set_index("date")``: the index is the time column; a given length, rows of windows."""
    frame = dd.from_pandas(table.set_index("date"), npartitions=3, sort=True)
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=frame,
        engine="dask",
        time="date",
        block_length=6,
        window=90,
        n_bootstrap=B,
        random_state=SEED,
        robustness=False,
        row_plots=False,
    )
    assert ev.settings["block_length"] == 6 and "block_length_estimate" not in ev.settings
    assert "block length 6 given" in ev.settings["block bootstrap"]
    assert ev.windows.windows[0] == "rows 1-90" and ev.windows.block_length == 6


def test_without_time_windows_of_rows_get_each_windows_own_blocks(frame, client):
    """No time and no scheme: the evaluation weighs rows one by one; the windows, runs of rows
    in the order given, weigh fixed blocks with each window's own automatic length (in memory,
    the stationary bootstrap with each window's own length)."""
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=frame,
        engine="dask",
        window=180,
        n_bootstrap=B,
        random_state=SEED,
        robustness=False,
        row_plots=False,
    )
    assert "scheme" not in ev.settings and ev.settings["window"] == 180
    assert ev.windows.scheme == "blocks" and ev.windows.block_length == "auto"
    assert set(ev.windows.block_lengths) == set(ev.windows.windows)


def test_rows_out_of_time_order_are_refused_naming_the_column(table, client):
    shuffled = dd.from_pandas(table.sample(frac=1.0, random_state=1), npartitions=3, sort=False)
    with pytest.raises(ValueError, match=r"^time column 'date': the rows are not in time order"):
        evaluate_models("y", ["a", "b"], data=shuffled, engine="dask", time="date", n_bootstrap=B)
    with pytest.raises(ValueError, match=r"sort the rows by 'date' first"):
        evaluate_models("y", ["a", "b"], data=shuffled, engine="dask", time="date", n_bootstrap=B)


@pytest.mark.parametrize(
    ("kwargs", "exception", "pattern"),
    [
        (
            dict(time="date", scheme="stationary"),
            ValueError,
            r"^scheme='stationary' is not available on Dask \(.*random starting rows.*give "
            r"scheme='blocks'",
        ),
        (dict(scheme="circular"), ValueError, r"^scheme='circular' is not available on Dask"),
        (dict(time="date", scheme="nope"), ValueError, r"^scheme must be one of"),
        (dict(block_length=5), ValueError, r"^block_length sets the blocks of the block"),
        (
            dict(time="date", block_length=2.5),
            ValueError,
            r"^block_length must be 'auto' or a whole number of rows",
        ),
        (
            dict(time="date", n_bootstrap=0),
            ValueError,
            r"^time \(scheme='blocks' by default\) resamples blocks of consecutive rows; with "
            r"n_bootstrap=0",
        ),
        (dict(time="date", groups="region"), ValueError, r"^groups: time \(scheme='blocks'"),
        (dict(time="nosuch"), ValueError, r"^time: no column 'nosuch' in data"),
        (dict(time=np.arange(N)), TypeError, r"^time must name a column of data"),
        (dict(time="date", window="2M"), ValueError, r"^window must be a calendar period"),
        (dict(window="M"), ValueError, r"^window='M' is a calendar period and needs time"),
        (dict(window=0), ValueError, r"^window must be at least 1 row"),
        (
            dict(window=30, min_segment_rows=5, segment_bins=3),
            ValueError,
            r"^segment_bins is an option of the evaluation by segment",
        ),
    ],
)
def test_refusals_name_the_argument_before_any_work(frame, kwargs, exception, pattern):
    """No pass runs (no cluster is needed): every refusal comes before the engine reads."""
    kwargs = {"n_bootstrap": B, **kwargs}
    with pytest.raises(exception, match=pattern):
        evaluate_models("y", ["a", "b"], data=frame, engine="dask", **kwargs)


def test_one_model_is_refused_for_windows(frame):
    with pytest.raises(ValueError, match=r"^window: the evaluation over time windows compares"):
        evaluate_models("y", ["a"], data=frame, engine="dask", window=30, n_bootstrap=B)
