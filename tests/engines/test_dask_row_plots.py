"""ranklens.dask: the exact summaries behind the report's regression plots equal what the
in-memory report computes from every row, whatever the partitioning, and the report draws them.

The reference is the in-memory report's own arithmetic on the concatenated rows
(``report.diagnostics``): ten groups of ``np.array_split(np.argsort(p, kind="stable"), 10)``
(ties in input order) with their mean prediction, mean actual and ``std(ddof=1) / sqrt(size)``;
``np.quantile`` of all models' residuals pooled at 0.5 % and 99.5 %, ``np.histogram`` of the
clipped residuals on 40 bins and ``np.median`` per model; ``np.histogram2d`` of (prediction,
actual) on the summary's edges. Unweighted, as in memory, with a weight column (zeros included)
present. Counts exactly, means to 1e-12 and standard errors to 1e-10 (relative).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pytest.importorskip("matplotlib")

import ranklens.dask as rd  # noqa: E402
from ranklens.dask._row_plots import _bin_index, _lerp, _quantile_positions  # noqa: E402
from ranklens.evaluation import ModelEvaluation  # noqa: E402
from ranklens.report import diagnostics  # noqa: E402
from ranklens.report.figures import build_figures  # noqa: E402

PARTITIONS = (1, 3, 7)
MODELS = ["a", "b", "c"]


def _frame(n: int, seed: int, *, long_tail: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    if long_tail:
        y = np.round(np.exp(2.0 * rng.normal(size=n)), 2) + 0.01  # positive, max >> 20 median
    else:
        y = np.round(rng.normal(size=n) * 3.0, 1)  # negative values: linear axes
    df = pd.DataFrame(
        {
            "y": y,
            # rounded: tie runs straddle the partitions and the group boundaries
            "a": np.round(y + rng.normal(size=n), 0 if not long_tail else 1),
            # four values: every group boundary inside a long tie run (buckets of one value)
            "b": rng.integers(0, 4, n).astype(float) + (0.5 if long_tail else 0.0),
            "c": y * 0.8 + rng.normal(size=n) * 0.5 + (5.0 if long_tail else 0.0),
            "w": rng.integers(0, 3, n).astype(float),  # weights with zeros: the plots ignore them
        }
    )
    if long_tail:  # every value positive: log axes
        df["a"] = np.abs(df["a"]) + 0.1
        df["c"] = np.abs(df["c"]) + 0.01
    return df


def _memory(df: pd.DataFrame, models: list[str]) -> dict[str, dict[str, object]]:
    """The in-memory report's numbers, from the rows."""
    y = df["y"].to_numpy()
    residuals = {m: (y - df[m].to_numpy()) for m in models}
    low, high = np.quantile(np.concatenate(list(residuals.values())), [0.005, 0.995])
    if not high > low:
        pooled = np.concatenate(list(residuals.values()))
        low, high = pooled.min() - 0.5, pooled.max() + 0.5
    edges = np.linspace(low, high, 41)
    everything = np.concatenate([y, *(df[m].to_numpy() for m in models)])
    out: dict[str, dict[str, object]] = {}
    for m in models:
        p = df[m].to_numpy()
        groups = np.array_split(np.argsort(p, kind="stable"), min(10, y.size))
        out[m] = {
            "count": np.array([g.size for g in groups]),
            "pm": np.array([p[g].mean() for g in groups]),
            "ym": np.array([y[g].mean() for g in groups]),
            "se": np.array(
                [y[g].std(ddof=1) / np.sqrt(g.size) if g.size > 1 else np.nan for g in groups]
            ),
            "low": low,
            "high": high,
            "hist": np.histogram(np.clip(residuals[m], low, high), bins=edges)[0],
            "median": np.median(residuals[m]),
            "logs": bool(everything.min() > 0 and y.max() > 20 * np.median(y)),
        }
    return out


def _close(got: np.ndarray, want: np.ndarray, tol: float) -> bool:
    got, want = np.asarray(got, float), np.asarray(want, float)
    same_nan = np.isnan(got) == np.isnan(want)
    both = ~np.isnan(want)
    near = np.abs(got[both] - want[both]) <= tol * np.maximum(1.0, np.abs(want[both]))
    return bool(same_nan.all() and near.all())


def _check(ev, df: pd.DataFrame, models: list[str]) -> None:
    want = _memory(df, models)
    summaries = ev.extras["row_summaries"]
    assert list(summaries) == models
    y = df["y"].to_numpy()
    for m in models:
        s, w = summaries[m], want[m]
        np.testing.assert_array_equal(s.group_count, w["count"])
        assert _close(s.mean_predicted, w["pm"], 1e-12), m
        assert _close(s.mean_true, w["ym"], 1e-12), m
        assert _close(s.std_error, w["se"], 1e-10), m
        assert s.residual_edges[0] == w["low"] and s.residual_edges[-1] == w["high"]
        np.testing.assert_array_equal(s.residual_counts, w["hist"])
        assert s.residual_counts.sum() == len(df)
        assert s.median_residual == w["median"]
        assert s.y_median == np.median(y)
        assert (s.y_min, s.y_max) == (y.min(), y.max())
        assert (s.pred_min, s.pred_max) == (df[m].min(), df[m].max())
        assert s.log_axes == w["logs"]
        p = df[m].to_numpy()
        assert s.x_edges[0] == p.min() and s.x_edges[-1] == p.max()
        grid = np.histogram2d(p, y, bins=[s.x_edges, s.y_edges])[0]
        np.testing.assert_array_equal(s.density, grid)
        assert s.density.sum() == len(df)


@pytest.mark.parametrize("long_tail", [False, True])
def test_summaries_equal_the_in_memory_numbers(client, dask_by_partitions, long_tail):
    df = _frame(2_347, seed=5 if long_tail else 4, long_tail=long_tail)
    results = dask_by_partitions(
        df,
        PARTITIONS,
        y_true="y",
        predictions=MODELS,
        sample_weight="w",
        metrics=["root_mean_squared_error"],
    )
    for ev in results.values():
        _check(ev, df, MODELS)
        s = ev.extras["row_summaries"]["a"]
        assert s.log_axes is long_tail
        if long_tail:  # bins evenly spaced in the logarithm
            np.testing.assert_allclose(np.diff(np.log(s.y_edges)), np.log(s.y_max / s.y_min) / 40)


def test_few_rows_and_a_degenerate_residual_range(client, dask_by_partitions):
    # seven rows: seven groups of one (no standard error); the pooled residuals are all 0 but
    # one, so the 0.5 % and 99.5 % quantiles coincide and the range is widened as in memory
    df = pd.DataFrame(
        {
            "y": [1.0, 2.0, 2.0, 3.0, 5.0, 8.0, 13.0],
            "a": [1.0, 2.0, 2.0, 3.0, 5.0, 8.0, 10.0],
        }
    )
    results = dask_by_partitions(
        df, (1, 3), y_true="y", predictions=["a"], metrics=["mean_squared_error"]
    )
    for ev in results.values():
        _check(ev, df, ["a"])
        s = ev.extras["row_summaries"]["a"]
        assert s.group_count.tolist() == [1] * 7
        assert np.isnan(s.std_error).all()


def test_quantile_interpolation_is_numpys(rng):
    for n in (1, 2, 3, 10, 199, 1000, 4_689, 123_457):
        x = np.sort(rng.normal(size=n))
        for q in (0.0, 0.005, 0.25, 0.5, 0.7, 0.995, 1.0):
            lo, hi, t = _quantile_positions(n, q)
            assert _lerp(x[lo], x[hi], t) == np.quantile(x, q), (n, q)


def test_grid_bins_are_a_binary_searchs(rng):
    # values on, just below and just above every edge: the bins np.histogram2d gives
    for edges in (
        np.linspace(-3.0, 7.1, 41),
        np.geomspace(0.013, 517.0, 41),
        np.linspace(2.5, 3.5, 41),  # a constant column's widened range
    ):
        inside = lambda x: x[(x >= edges[0]) & (x <= edges[-1])]  # noqa: E731
        v = np.r_[
            edges,
            inside(np.nextafter(edges, -np.inf)),
            inside(np.nextafter(edges, np.inf)),
            rng.uniform(edges[0], edges[-1], 20_000),
        ]
        index = _bin_index(v, edges)
        # the counts np.histogram gives on these edges, and every value inside its bin
        want, _ = np.histogram(v, bins=edges)
        np.testing.assert_array_equal(np.bincount(index, minlength=edges.size - 1), want)
        assert np.all(edges[index] <= v) and np.all((v < edges[index + 1]) | (index == 39))


def _no_rows(ev: ModelEvaluation) -> ModelEvaluation:
    assert "y_true" not in ev.extras and "predictions" not in ev.extras
    return ev


def test_the_report_draws_the_three_plots(client):
    df = _frame(3_001, seed=7)
    ev = _no_rows(
        rd.evaluate(
            dd.from_pandas(df, npartitions=4),
            y_true="y",
            predictions=["a", "c"],
            sample_weight="w",
            metrics=["root_mean_squared_error"],
        )
    )
    for build, title in (
        (diagnostics.predicted_vs_actual, "Predicted against actual"),
        (diagnostics.residuals_view, "Residuals"),
        (diagnostics.calibration_view, "Calibration by decile"),
    ):
        built = build(ev)
        assert built is not None and built[0] == title
    caption = diagnostics.predicted_vs_actual(ev)[1]
    assert "density of cases" in caption
    views = {v.title: v for v in build_figures(ev).get("errors", [])}
    for title in ("Predicted against actual", "Residuals", "Calibration by decile"):
        assert title in views, sorted(views)
        # an SVG image (predicted against actual: the density of the summaries) or a chart
        view = views[title]
        assert (view.image.startswith("<img") or view.chart) and not view.error
    # the calibration plot's points are the summaries' numbers
    fig = diagnostics.calibration_view(ev)[2]
    line = fig.axes[0].lines[0]
    s = ev.extras["row_summaries"]["a"]
    np.testing.assert_array_equal(line.get_xdata(), s.mean_predicted)
    np.testing.assert_array_equal(line.get_ydata(), s.mean_true)


def test_binary_target_and_opting_out(client):
    rng = np.random.default_rng(11)
    n = 1_200
    df = pd.DataFrame({"y": (rng.uniform(size=n) < 0.3).astype(float), "a": rng.uniform(size=n)})
    frame = dd.from_pandas(df, npartitions=3)
    ev = rd.evaluate(frame, y_true="y", predictions="a", metrics=["root_mean_squared_error"])
    _check(ev, df, ["a"])
    # as in memory: no residual histogram or scatter of a two-valued target; calibration drawn
    assert diagnostics.predicted_vs_actual(ev) is None
    assert diagnostics.residuals_view(ev) is None
    assert diagnostics.calibration_view(ev) is not None
    off = rd.evaluate(
        frame, y_true="y", predictions="a", metrics=["root_mean_squared_error"], row_plots=False
    )
    assert "row_summaries" not in off.extras
    assert diagnostics.calibration_view(off) is None


def test_a_two_valued_target_is_recognised_without_the_rows(client):
    """The report's two-valued-target decisions (no 'rare extremes' verdict, no AUC by cutoff)
    read the Dask run's row summaries where the rows are not held: as in memory."""
    from ranklens import evaluate_models
    from ranklens.report.goals import summary_verdicts

    rng = np.random.default_rng(4)
    n = 600
    y = (rng.random(n) < 0.3).astype(float)
    df = pd.DataFrame({"y": y, "a": y + rng.normal(size=n), "b": rng.normal(size=n)})
    ev = rd.evaluate(dd.from_pandas(df, npartitions=3), y_true="y", predictions=["a", "b"])
    assert "y_true" not in ev.extras and diagnostics.target_is_binary(ev)
    memory = evaluate_models(df["y"], {"a": df["a"], "b": df["b"]}, curves=False)
    assert diagnostics.target_is_binary(memory)
    goals = [v.goal.key for v in summary_verdicts(ev)]
    assert goals == [v.goal.key for v in summary_verdicts(memory)]
    assert "extremes" not in goals
    continuous = rd.evaluate(
        dd.from_pandas(df.assign(y=df["y"] + rng.normal(size=n)), npartitions=3),
        y_true="y",
        predictions=["a"],
    )
    assert not diagnostics.target_is_binary(continuous)
