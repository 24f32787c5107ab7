"""The Dask engine's quantile bins and search for weak segments equal the in-memory ones.

``ranklens.dask.by_segment`` cuts a numeric column with more than ``bins`` distinct values into
the in-memory function's quantile bins (the same edges, to the bit, from order statistics
selected exactly, and the same names), and ``ranklens.dask.scan_segments`` returns the
in-memory ``SegmentScan`` of the same data: the same candidates, the same family of tests, the
same findings. The reference is :func:`ranklens.by_segment` / :func:`ranklens.scan_segments` on
the same rows: segments, counts, statuses and (without replicates) verdicts compared exactly,
values to 1e-12 relative to max(1, |value|), as the engine's other tests.
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
from ranklens.segments import (  # noqa: E402
    quantile_bin_edges,
    quantile_bin_positions,
    quantile_levels,
)

TOL = 1e-12

#: A measure of each form the engine segments: ratios of sums, the ranked curve, pair classes.
MEASURES = ["mean_absolute_error", "root_mean_squared_error", "kendall_tau", "roc_auc", "gain_area"]

#: The columns cut into quantile bins (``bins=5``) and one used as its labels.
CUT = ["steps", "score", "age"]


def _frame(n: int, seed: int) -> pd.DataFrame:
    """``steps``: twelve values with long tie runs, so that quantile edges fall on tied values;
    ``score``: rounded normal values (many distinct, some ties) with 8 % missing; ``age``: a
    nullable integer column with pandas' NA; ``tier``: three integers (used as labels)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 40, n).astype(float)
    steps = rng.choice(
        np.array([0.0, 1.0, 2.0, 2.5, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0, 89.0]),
        n,
        p=np.array([20, 15, 12, 10, 10, 8, 7, 6, 5, 3, 2, 2]) / 100,
    )
    score = np.round(rng.normal(size=n), 2)
    score[rng.random(n) < 0.08] = np.nan
    age = pd.array(rng.integers(18, 90, n), dtype="Int64")
    age[rng.random(n) < 0.05] = pd.NA
    return pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=n) + 0.05 * y, 1),
            "b": rng.integers(0, 7, n).astype(float),
            "w": rng.uniform(0.5, 2.0, n) * (rng.random(n) > 0.05),
            "steps": steps,
            "score": score,
            "age": age,
            "tier": rng.integers(1, 4, n),
        }
    )


def _memory(func, df: pd.DataFrame, columns: list[str], weighted: bool, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(
            df["y"],
            {"a": df["a"], "b": df["b"]},
            df[columns],
            sample_weight=df["w"] if weighted else None,
            **kw,
        )


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _cells(evaluation) -> dict[tuple, dict]:
    return {(r["slicing"], r["segment"], r["metric"], r["model"]): r for r in evaluation.records}


def _assert_same(got, want, *, verdicts: bool) -> float:
    """The same slicings, segment names, notes, picks, counts, statuses; every value equal
    (and every verdict, when ``verdicts``). Returns the largest relative difference."""
    assert got.slicings == want.slicings
    assert got.segments == want.segments
    assert got.notes[: len(want.notes)] == want.notes  # (the engine adds its own after)
    assert got.picks == want.picks and got.events == want.events
    worst = 0.0
    for metric, by_model in want.overall.items():
        for model, value in by_model.items():
            assert _close(got.overall[metric][model], value), (metric, model)
    cells, expected = _cells(got), _cells(want)
    assert list(cells) == list(expected)
    for key, record in expected.items():
        mine = cells[key]
        assert (mine["n_rows"], mine["n_events"]) == (record["n_rows"], record["n_events"]), key
        assert _close(mine["value"], record["value"]), (key, mine["value"], record["value"])
        if math.isfinite(record["value"]):
            worst = max(
                worst, abs(mine["value"] - record["value"]) / max(1.0, abs(record["value"]))
            )
        assert (mine["status"] == "undefined") == (record["status"] == "undefined"), key
        if record["status"] == "too small":
            assert mine["status"] == "too small" and mine["reason"] == record["reason"], key
        if verdicts:
            assert mine["status"] == record["status"] and mine["verdict"] == record["verdict"]
    if verdicts:
        assert got.n_tests == want.n_tests
    return worst


def test_the_edges_are_numpys_quantiles_to_the_bit():
    """The positions and interpolation the engine uses give ``np.quantile``'s edges exactly."""
    rng = np.random.default_rng(0)
    for trial in range(2000):
        n, bins = int(rng.integers(3, 400)), int(rng.integers(2, 13))
        v = [
            rng.normal(size=n) * 10.0 ** rng.integers(-5, 6),
            rng.integers(-5, 5, n).astype(float),
            np.round(rng.lognormal(size=n), 2),
        ][trial % 3]
        ordered = np.sort(v)
        at = {int(k): float(ordered[k]) for k in quantile_bin_positions(n, bins)}
        got = quantile_bin_edges(n, bins, at)
        want = np.unique(np.quantile(v, quantile_levels(bins)))
        assert got.tobytes() == want.tobytes(), (trial, n, bins)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("parts", [1, 3, 7])
def test_quantile_bins_equal_memory_on_parquet_files(client, parquet_files, parts, weighted):
    df = _frame(1400, seed=parts)
    _, glob = parquet_files(df, parts)
    by = [*CUT, "tier"]
    got = rd.by_segment(
        glob,
        y_true="y",
        predictions=["a", "b"],
        by=by,
        metrics=MEASURES,
        sample_weight="w" if weighted else None,
        n_bootstrap=0,
        n_buckets=parts + 1,
    )
    want = _memory(rl.by_segment, df, by, weighted, metrics=MEASURES, n_bootstrap=0)
    assert _assert_same(got, want, verdicts=True) <= TOL
    for name in CUT:  # (fewer bins than asked where tied edges merge, as in memory)
        assert any(note.startswith(f"{name}: cut into ") for note in got.notes), name
    assert got.segments["score"][-1] == rl.MISSING_SEGMENT
    assert got.segments["age"][-1] == rl.MISSING_SEGMENT
    assert got.segments["tier"] == ("1", "2", "3")
    # an inner edge of "steps" falls on a tied value: its rows all go to the bin it opens
    inner = [float(name.split(",")[0][1:]) for name in got.segments["steps"][1:]]
    assert any((df["steps"] == edge).sum() > 1 for edge in inner)


def test_crossed_bins_and_verdicts_with_replicates(client):
    """A crossed slicing of a cut column, and replicates: the strong differences get the same
    verdict on both engines (the p-values differ by resampling noise)."""
    rng = np.random.default_rng(3)
    n = 2400
    y = rng.lognormal(size=n)
    x = np.round(rng.normal(size=n), 2)
    noise_b = np.where(x > 0.9, 0.2, 1.0)  # b far better on the top bins of x
    df = pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(size=n),
            "b": y + rng.normal(size=n) * noise_b,
            "x": x,
            "region": rng.choice(["north", "south"], n),
        }
    )
    kw = dict(metrics=["mean_absolute_error", "kendall_tau"], n_bootstrap=200, cross=True)
    got = rd.by_segment(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a", "b"],
        by=["x", "region"],
        **kw,
    )
    want = _memory(rl.by_segment, df, ["x", "region"], False, **kw)
    _assert_same(got, want, verdicts=False)
    assert got.slicings[-1] == "x x region"
    cells = _cells(got)
    strong = [k for k, r in _cells(want).items() if r.get("q_value", 1.0) < 1e-6]
    assert len(strong) >= 4
    assert all(cells[k]["verdict"] == _cells(want)[k]["verdict"] for k in strong)


def _scan_frame(n: int, seed: int) -> pd.DataFrame:
    """Model ``b`` far better in the north; every model far worse than overall where ``load``
    is high (its top quantile bin); ``load`` has ties and missing values."""
    rng = np.random.default_rng(seed)
    y = rng.lognormal(size=n)
    region = rng.choice(np.array(["north", "south", "east"], dtype=object), n)
    load = np.round(rng.uniform(0, 10, n), 1)
    scale = np.where(load >= 8.0, 4.0, 1.0)
    noise_b = np.where(region == "north", 0.3, 1.2)
    load[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(size=n) * scale,
            "b": y + rng.normal(size=n) * noise_b * scale,
            "w": rng.uniform(0.5, 2.0, n),
            "region": region,
            "load": load,
        }
    )


@pytest.mark.parametrize("parts", [1, 3])
def test_scan_equals_memory(client, parquet_files, parts):
    df = _scan_frame(3000, seed=7)
    _, glob = parquet_files(df, parts)
    kw = dict(metrics=["mean_absolute_error", "kendall_tau"], n_bootstrap=200, random_state=5)
    got = rd.scan_segments(
        glob,
        y_true="y",
        predictions=["a", "b"],
        columns=["region", "load"],
        sample_weight="w",
        **kw,
    )
    want = _memory(rl.scan_segments, df, ["region", "load"], True, **kw)
    assert isinstance(got, rl.SegmentScan)
    _assert_same(got.evaluation, want.evaluation, verdicts=False)
    # the family: both questions over every candidate tried, as in memory
    assert got.n_candidates == want.n_candidates == 3 + 6
    assert got.n_tests == want.n_tests
    tested = sum(
        math.isfinite(r.get(key, math.nan))
        for r in got.evaluation.records
        for key in ("p_value", "level_p_value")
    )
    assert got.n_tests == tested
    for mine, record in zip(_cells(got.evaluation).values(), _cells(want.evaluation).values()):
        for key in ("overall_value", "level_gap"):
            if key in record:
                assert _close(mine[key], record[key]), (key, mine, record)
    fields = ("kind", "slicing", "segment", "metric", "n_rows", "n_events", "models")
    assert [tuple(f[k] for k in fields) for f in got.findings] == [
        tuple(f[k] for k in fields) for f in want.findings
    ]
    assert {f["kind"] for f in got.findings} == {"pick beaten", "all models worse"}
    for mine, theirs in zip(got.findings, want.findings, strict=True):
        assert _close(mine["gap"], theirs["gap"]) and mine["q_value"] <= 0.05
    assert got.summary().split(" (")[0] == want.summary().split(" (")[0]


def test_scan_without_replicates_tests_nothing_as_in_memory(client):
    df = _scan_frame(600, seed=1)
    kw = dict(metrics=["mean_absolute_error"], n_bootstrap=0)
    got = rd.scan_segments(
        dd.from_pandas(df, npartitions=2), y_true="y", predictions=["a", "b"], columns="load", **kw
    )
    want = _memory(rl.scan_segments, df, ["load"], False, **kw)
    _assert_same(got.evaluation, want.evaluation, verdicts=True)
    assert got.findings == want.findings == ()
    assert got.n_tests == want.n_tests == 0 and got.n_candidates == want.n_candidates


def test_scan_refuses_what_by_segment_refuses_naming_the_argument():
    df = _scan_frame(200, seed=0)
    frame = dd.from_pandas(df, npartitions=2)
    common = dict(y_true="y", predictions=["a", "b"], n_bootstrap=0)
    with pytest.raises(ValueError, match=r"^columns must name one column of labels"):
        rd.scan_segments(frame, columns=[], **common)
    with pytest.raises(ValueError, match=r"'spearman_rho' \(the engine draws no replicates"):
        rd.scan_segments(
            frame, columns="region", metrics=["spearman_rho"], **common | {"n_bootstrap": 20}
        )
    with pytest.raises(ValueError, match="all missing"):
        rd.scan_segments(frame.assign(none=np.nan), columns="none", **common)
