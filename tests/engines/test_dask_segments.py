"""ranklens.dask.by_segment: every segment's value equals the in-memory by_segment's, whatever
the partitioning; the intervals are the engine's Poisson replicates restricted to the segment.

The reference is :func:`ranklens.by_segment` on the same rows (counts compared exactly, floats to
1e-12, relative to max(1, |value|) as the engine's other tests); the replicates are recomputed
from the Poisson counts of every row (keyed by its position in the data) with the registered
in-memory functions on each segment's rows.
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
from ranklens._inference.resampling import percentile_interval  # noqa: E402
from ranklens.metrics import get_metric  # noqa: E402
from ranklens.segments import wald_p_value  # noqa: E402

TOL = 1e-12

#: A measure of each form the engine segments: ratios of sums, the ranked curve, pair classes.
MEASURES = [
    "mean_absolute_error",
    "root_mean_squared_error",
    "log_rmse",  # undefined where y_true holds a 0 (the measure's domain error), segment by segment
    "kendall_tau",
    "somers_d",
    "goodman_kruskal_gamma",
    "roc_auc",
    "ks_statistic",
    "gain_area",
    "accuracy_ratio",
    "lift_at_10",
]


def _frame(n: int, seed: int, binary: bool = False) -> pd.DataFrame:
    """Ties in both predictions and the truth, weights with some zeros, a column of strings with
    missing labels whose label ``"rare"`` is in the first rows only (absent from every part file
    but the first), and a column of three integer labels."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(float) if binary else rng.integers(0, 40, n).astype(float)
    region = rng.choice(np.array(["north", "south", "east", None], dtype=object), n)
    region[:60] = "rare"
    return pd.DataFrame(
        {
            "y": y,
            "a": np.round(rng.normal(size=n) + 0.05 * y, 1),
            "b": rng.integers(0, 7, n).astype(float),
            "w": rng.uniform(0.5, 2.0, n) * (rng.random(n) > 0.05),
            "region": region,
            "tier": rng.integers(1, 4, n),
            "unit": rng.integers(0, n // 5, n),
        }
    )


def _memory(df: pd.DataFrame, by: list[str], weighted: bool, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rl.by_segment(
            df["y"],
            {"a": df["a"], "b": df["b"]},
            df[by],
            sample_weight=df["w"] if weighted else None,
            **kw,
        )


def _close(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _by_cell(evaluation) -> dict[tuple, dict]:
    return {(r["slicing"], r["segment"], r["metric"], r["model"]): r for r in evaluation.records}


def _assert_equal_values(got, want) -> int:
    """The same slicings, segments, measures, picks and counts; every value equal."""
    assert got.slicings == want.slicings
    assert got.segments == want.segments
    assert got.metrics == want.metrics and got.models == want.models
    assert got.events == want.events
    assert got.picks == want.picks
    for metric, by_model in want.overall.items():
        for model, value in by_model.items():
            assert _close(got.overall[metric][model], value), (metric, model)
    cells, expected = _by_cell(got), _by_cell(want)
    assert list(cells) == list(expected)
    for key, record in expected.items():
        mine = cells[key]
        assert mine["n_rows"] == record["n_rows"], key
        assert mine["n_events"] == record["n_events"], key
        assert _close(mine["value"], record["value"]), (key, mine["value"], record["value"])
        assert (mine["status"] == "undefined") == (record["status"] == "undefined"), key
        if record["status"] == "too small":
            assert mine["status"] == "too small" and mine["reason"] == record["reason"], key
    return len(expected)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("parts", [1, 3, 7])
def test_values_equal_memory_on_parquet_files(client, parquet_files, parts, weighted):
    df = _frame(1400, seed=parts)
    _, glob = parquet_files(df, parts)
    got = rd.by_segment(
        glob,
        y_true="y",
        predictions=["a", "b"],
        by=["region", "tier"],
        metrics=MEASURES,
        sample_weight="w" if weighted else None,
        n_bootstrap=0,
        n_buckets=parts + 1,
    )
    want = _memory(df, ["region", "tier"], weighted, metrics=MEASURES, n_bootstrap=0)
    assert _assert_equal_values(got, want) == (5 + 3) * len(MEASURES) * 2
    # the segment of the first rows only, and the missing labels as their own segment
    assert "rare" in got.segments["region"] and got.segments["region"][-1] == rl.MISSING_SEGMENT
    assert any("missing label" in note for note in got.notes)
    assert {r["status"] for r in got.records} >= {"not compared", "undefined"}


def test_crossed_segments_and_a_binary_target_equal_memory(client):
    df = _frame(1200, seed=11, binary=True)
    got = rd.by_segment(
        dd.from_pandas(df, npartitions=4),
        y_true="y",
        predictions=["a", "b"],
        by=["region", "tier"],
        cross=True,
        metrics=["mean_squared_error", "roc_auc", "kendall_tau"],
        n_bootstrap=0,
        min_rows=20,
        min_events=5,
    )
    want = _memory(
        df,
        ["region", "tier"],
        False,
        cross=True,
        metrics=["mean_squared_error", "roc_auc", "kendall_tau"],
        n_bootstrap=0,
        min_rows=20,
        min_events=5,
    )
    _assert_equal_values(got, want)
    assert got.slicings[-1] == "region x tier" and got.events is None  # the 0/1 labels


def test_replicates_are_the_engines_poisson_replicates_of_each_segment(client, poisson_counts):
    """A segment's interval is the percentile interval of the measure on its rows weighted by
    each row's Poisson count (keyed by its position in the data), and the paired test of the
    difference from the pick the Wald p-value of those replicates' standard deviation, as in
    memory."""
    df = _frame(900, seed=5)
    n_rep, level = 25, 0.9
    got = rd.by_segment(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a", "b"],
        by="region",
        metrics=["mean_absolute_error", "kendall_tau", "roc_auc"],
        sample_weight="w",
        n_bootstrap=n_rep,
        random_state=3,
        confidence_level=level,
        n_buckets=3,
        min_rows=40,
    )
    counts = poisson_counts(df, None, n_rep, 3).astype(np.float64)  # (replicates, rows)
    events = got.events
    labels = df["region"].to_numpy(dtype=object)
    checked = 0
    for record in got.records:
        if record["status"] != "estimated":
            continue
        missing = record["segment"] == rl.MISSING_SEGMENT
        rows = pd.isna(labels) if missing else labels == record["segment"]
        spec = get_metric(record["metric"])
        kw = {"events": events} if record["metric"] == "roc_auc" else {}

        def replicates(model: str, rows=rows, spec=spec, kw=kw) -> np.ndarray:
            y, p, w = df["y"][rows].to_numpy(), df[model][rows].to_numpy(), df["w"][rows]
            return np.array(
                [spec.func(y, p, sample_weight=c[rows] * w.to_numpy(), **kw) for c in counts]
            )

        mine = replicates(record["model"])
        lo, hi = percentile_interval(mine[np.isfinite(mine)], level)
        assert _close(record["ci_lower"], lo) and _close(record["ci_upper"], hi), record
        if record["model"] != record["pick"]:
            d = mine - replicates(record["pick"])
            d = d[np.isfinite(d)]
            expected = wald_p_value(record["difference"], float(np.std(d, ddof=1)))
            assert record["p_value"] == pytest.approx(expected, rel=1e-9), record
            assert 0.0 < record["q_value"] <= 1.0 and record["verdict"] in (
                "better",
                "worse",
                "no clear difference",
            )
        checked += 1
    assert checked >= 12
    # two models: the pairs with the pick are every pair
    assert got.n_tests == sum(math.isfinite(r.get("p_value", math.nan)) for r in got.records)
    assert "Poisson bootstrap" in got.notes[-1] and "row position" in got.notes[-1]


def test_statuses_follow_the_segment_sizes_as_in_memory(client):
    df = _frame(800, seed=2)
    kw = dict(metrics=["mean_absolute_error", "roc_auc"], n_bootstrap=20, min_rows=100)
    got = rd.by_segment(
        dd.from_pandas(df, npartitions=2), y_true="y", predictions=["a", "b"], by="region", **kw
    )
    want = _memory(df, ["region"], False, **kw)
    statuses = {k: r["status"] for k, r in _by_cell(got).items()}
    assert statuses == {k: r["status"] for k, r in _by_cell(want).items()}
    assert statuses[("region", "rare", "roc_auc", "a")] == "too small"
    rare = _by_cell(got)[("region", "rare", "roc_auc", "b")]
    assert rare["verdict"] == "not tested" and math.isnan(rare["ci_lower"])


def test_units_key_the_replicates(client):
    df = _frame(700, seed=4)
    got = rd.by_segment(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=["a", "b"],
        by="tier",
        metrics=["mean_absolute_error"],
        groups="unit",
        n_bootstrap=20,
    )
    assert "groups 'unit'" in got.notes[-1]
    assert all(math.isfinite(r["ci_lower"]) for r in got.records)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("parts", [1, 4])
def test_spearman_rho_by_segment_equals_memory(client, parquet_files, parts, weighted):
    """Spearman's rho of every segment, from the rows' midranks in their segments carried
    through the shuffle by truth, with a heavy truth value (its rows summed in the shuffle by
    prediction) and a crossed slicing; without replicates (the engine draws none of it)."""
    df = _frame(1600, seed=20 + parts)
    df.loc[np.random.default_rng(parts).random(len(df)) < 0.4, "y"] = 0.0
    _, glob = parquet_files(df, parts)
    kw = dict(metrics=["spearman_rho", "kendall_tau"], n_bootstrap=0, cross=True, min_rows=20)
    got = rd.by_segment(
        glob,
        y_true="y",
        predictions=["a", "b"],
        by=["region", "tier"],
        sample_weight="w" if weighted else None,
        n_buckets=3,
        **kw,
    )
    want = _memory(df, ["region", "tier"], weighted, **kw)
    assert _assert_equal_values(got, want) == (5 + 3 + 15) * 2 * 2
    rho = [r for r in got.records if r["metric"] == "spearman_rho"]
    assert all(math.isfinite(r["value"]) for r in rho)
    if not weighted:  # exact integer sums of doubled midranks: the same bits
        expected = [r["value"] for r in want.records if r["metric"] == "spearman_rho"]
        assert [r["value"] for r in rho] == expected


@pytest.mark.parametrize(
    ("metrics", "named"),
    [
        (["kendall_tau", "spearman_rho", "ndcg_score"], ["spearman_rho", "ndcg_score"]),
        (["median_absolute_error", "sera", "pmap"], ["median_absolute_error", "sera", "pmap"]),
        (["roc_auc", "interval_score"], ["interval_score"]),
    ],
)
def test_a_measure_it_cannot_segment_is_refused_by_name(metrics, named):
    df = _frame(200, seed=0)
    with pytest.raises(ValueError, match="cannot evaluate these by segment") as caught:
        rd.by_segment(
            dd.from_pandas(df, npartitions=2),
            y_true="y",
            predictions=["a", "b"],
            by="region",
            metrics=metrics,
        )
    message = str(caught.value)
    for name in named:
        assert f"'{name}' (" in message
    assert all(f"'{m}' (" not in message for m in metrics if m not in named)


def test_other_intervals_are_refused_with_the_reason():
    df = _frame(200, seed=0)
    frame = dd.from_pandas(df, npartitions=2)
    common = dict(y_true="y", predictions=["a", "b"], n_bootstrap=0)
    with pytest.raises(ValueError, match="percentile intervals"):
        rd.by_segment(frame, by="region", interval="bca", **common)
    with pytest.raises(ValueError, match="all missing"):
        rd.by_segment(frame.assign(none=None), by="none", **common)
    with pytest.raises(ValueError, match="at least two"):
        rd.by_segment(frame, y_true="y", predictions=["a"], by="region")


def test_categories_keep_their_order_and_unused_ones_are_dropped(client, parquet_files):
    df = _frame(600, seed=9)
    levels = ["low", "mid", "high", "unused"]
    df["band"] = pd.Categorical(
        np.array(levels[:3], dtype=object)[df["tier"].to_numpy() - 1], categories=levels
    )
    _, glob = parquet_files(df, 3)
    kw = dict(metrics=["mean_absolute_error", "roc_auc"], n_bootstrap=0)
    got = rd.by_segment(glob, y_true="y", predictions=["a", "b"], by="band", **kw)
    want = _memory(df, ["band"], False, **kw)
    assert got.segments["band"] == ("low", "mid", "high")
    _assert_equal_values(got, want)
