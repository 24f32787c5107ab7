"""Displays: scikit-learn's pattern, overlays on one axes, thinning only the drawing."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from ranklens import plot  # noqa: E402
from ranklens.plot import thin_indices  # noqa: E402
from ranklens.plot._base import label_points, legend_number  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def data(rng):
    n = 200
    y = rng.lognormal(size=n)
    good = np.log(y) + rng.normal(scale=0.5, size=n)
    poor = np.log(y) + rng.normal(scale=2.0, size=n)
    return y, good, poor


def _vertices(ax) -> int:
    return max(len(line.get_xdata()) for line in ax.lines)


# --------------------------------------------------------------------------------------------
# thinning


def test_run_ends_equal_a_stable_sort_by_bucket_then_value(rng):
    """Per run of equal buckets, the first index of the smallest value and the last of the
    largest: what a stable sort by (bucket, value) puts at each run's ends, ties and
    infinities included."""
    from ranklens.plot._base import _run_ends

    for trial in range(500):
        n = int(rng.integers(1, 200))
        bucket = np.sort(rng.integers(0, int(rng.integers(1, 15)), n))
        key = rng.integers(-2, 3, n).astype(float) if trial % 2 else rng.normal(size=n)
        key[rng.random(n) < 0.1] = np.inf
        key[rng.random(n) < 0.1] = -np.inf
        key[rng.random(n) < 0.1] = -0.0
        order = np.lexsort((key, bucket))
        first = np.flatnonzero(np.r_[True, bucket[order][1:] != bucket[order][:-1]])
        last = np.r_[first[1:], n] - 1
        lowest, highest = _run_ends(key, bucket)
        assert np.array_equal(lowest, order[first])
        assert np.array_equal(highest, order[last])


def test_thin_keeps_everything_below_the_limit():
    x = np.arange(10.0)
    np.testing.assert_array_equal(thin_indices(x, x**2, max_points=10), np.arange(10))


def test_thin_bounds_the_vertices_and_keeps_the_extremes(rng):
    n = 200_000
    x = np.sort(rng.uniform(size=n))
    y = rng.normal(size=n)
    idx = thin_indices(x, y, max_points=1000)
    assert idx.size <= 1000
    assert np.all(np.diff(idx) > 0)
    assert idx[0] == 0 and idx[-1] == n - 1
    assert int(np.argmax(y)) in idx and int(np.argmin(y)) in idx


def test_thin_keeps_each_series_extremes_in_every_bucket(rng):
    n = 50_000
    x = np.arange(n, dtype=float)
    lower, upper = rng.normal(size=n), rng.normal(size=n) + 5
    idx = thin_indices(x, lower, upper, max_points=600)
    assert idx.size <= 600
    for series in (lower, upper):
        assert int(np.argmax(series)) in idx and int(np.argmin(series)) in idx


def test_thin_works_for_unsorted_x(rng):
    x = rng.normal(size=20_000)  # e.g. an RROC-like path that is not monotone
    idx = thin_indices(x, rng.normal(size=20_000), max_points=400)
    assert idx.size <= 400 and idx[0] == 0 and idx[-1] == x.size - 1


def test_thin_keeps_the_corners_of_a_step_curve():
    x = np.linspace(0, 1, 100_001)
    y = (x >= 0.5).astype(float)
    idx = thin_indices(x, y, max_points=200)
    jump = int(np.argmax(y))
    assert jump in idx and jump - 1 in idx


# --------------------------------------------------------------------------------------------
# every display: from_predictions, from_result, plot returns self, overlays


POINT_DISPLAYS = [
    ("ConcordanceProfileDisplay", {}),
    ("CutoffAUCDisplay", {}),
    ("RankLiftDisplay", {}),
    ("RECCurveDisplay", {}),
    ("RROCCurveDisplay", {}),
    ("RocCurveDisplay", {"events": "top:0.2"}),
    ("GainCurveDisplay", {"events": "top:0.2"}),
    ("GainCurveDisplay", {"events": "value"}),
    ("LiftCurveDisplay", {"events": "top:0.2"}),
    ("ProfitCurveDisplay", {"value_margin": 0.5, "cost_per_target": 1.0, "budget": 40.0}),
]


@pytest.mark.parametrize(("name", "kwargs"), POINT_DISPLAYS)
def test_display_follows_the_sklearn_pattern(data, name, kwargs):
    y, good, poor = data
    cls = getattr(plot, name)
    display = cls.from_predictions(y, good, name="good", **kwargs)
    assert isinstance(display, cls)
    assert display.ax_ is not None and display.figure_ is display.ax_.figure
    assert display.lines_
    n_artists = len(display.ax_.get_children())
    # Overlay a second model on the same axes.
    second = cls.from_predictions(y, poor, ax=display.ax_, name="poor", **kwargs)
    assert second.ax_ is display.ax_
    assert len(display.ax_.get_children()) > n_artists
    labels = display.ax_.get_legend_handles_labels()[1]
    assert any(label.startswith("good") for label in labels)
    assert any(label.startswith("poor") for label in labels)
    # Shared baselines (random, optimal, budget) are drawn once per axes.
    gids = [a.get_gid() for a in display.ax_.get_children() if a.get_gid()]
    assert len(gids) == len(set(gids)) or all(gids.count(g) <= 3 for g in gids)
    # from_result and plot(ax=...) draw the stored result without recomputing it.
    again = cls.from_result(display.result, name="good")
    assert again.result is display.result
    _fig, ax = plt.subplots()
    assert cls(display.result, name="x").plot(ax=ax).ax_ is ax


@pytest.mark.parametrize(("name", "kwargs"), POINT_DISPLAYS[:6])
def test_baselines_are_drawn_once(data, name, kwargs):
    y, good, poor = data
    cls = getattr(plot, name)
    display = cls.from_predictions(y, good, **kwargs)
    before = [a.get_gid() for a in display.ax_.get_children() if a.get_gid()]
    cls.from_predictions(y, poor, ax=display.ax_, **kwargs)
    after = [a.get_gid() for a in display.ax_.get_children() if a.get_gid()]
    assert sorted(before) == sorted(after)


def test_large_n_draws_few_vertices_but_keeps_the_exact_curve(rng):
    n = 100_000
    y = rng.lognormal(size=n)
    pred = np.log(y) + rng.normal(size=n)
    display = plot.CutoffAUCDisplay.from_predictions(y, pred, plot_kwargs={"max_points": 2000})
    assert display.result.auc.size == n - 1
    assert _vertices(display.ax_) <= 2000
    rec = plot.RECCurveDisplay.from_predictions(y, pred)
    assert rec.result.tolerance.size > 50_000
    assert _vertices(rec.ax_) <= plot.DEFAULT_MAX_POINTS


def test_concordance_profile_marks_cases_below_half(data):
    y, good, _ = data
    display = plot.ConcordanceProfileDisplay.from_predictions(y, -good, name="reversed")
    marks = [c for c in display.ax_.collections if "below 50%" in str(c.get_label())]
    assert marks and marks[0].get_offsets().shape[0] == int(
        (display.result.fraction_correct < 0.5).sum()
    )


def test_profit_display_draws_the_budget_line(data):
    y, good, _ = data
    display = plot.ProfitCurveDisplay.from_predictions(
        y, good, value_margin=0.5, cost_per_target=1.0, budget=50.0
    )
    budget = [a for a in display.ax_.lines if a.get_gid() == "ranklens-profit-budget"]
    assert len(budget) == 1
    share = budget[0].get_xdata()[0]
    assert share == pytest.approx(display.result.max_targets / y.size)


def test_interval_display(data):
    y, good, _ = data
    pred = np.exp(good)
    display = plot.IntervalDisplay.from_predictions(
        y, pred, lower=pred * 0.5, upper=pred * 1.5, name="m"
    )
    assert display.result.y_true.size == y.size
    missed = [c for c in display.ax_.collections if "outside" in str(c.get_label())]
    assert missed[0].get_offsets().shape[0] == int((~display.result.covered).sum())


def test_relevance_display(rng):
    from ranklens.relevance import relevance_from_boxplot

    y = rng.standard_t(3, size=300)
    display = plot.RelevanceDisplay.from_data(y, extremes="both", event_threshold=0.75)
    assert display.ax_.get_ylabel().startswith("relevance")
    drawn = display.lines_[0].get_ydata()
    assert drawn.min() >= 0 and drawn.max() <= 1
    rel = relevance_from_boxplot(y, extremes="high")
    other = plot.RelevanceDisplay.from_relevance(rel, name="high only")
    assert other.result is rel
    with pytest.raises(TypeError, match="from_data"):
        plot.RelevanceDisplay.from_predictions(y, y)


def test_precision_recall_display(rng):
    from ranklens.relevance import relevance_from_boxplot

    y = rng.standard_t(3, size=400)
    pred = y + rng.normal(scale=0.3, size=400)
    rel = relevance_from_boxplot(y, extremes="both")
    display = plot.RegressionPrecisionRecallDisplay.from_predictions(y, pred, relevance=rel)
    assert len(display.lines_) >= 3  # precision, recall, F
    assert display.ax_.get_xlim() == (0.0, 1.0)


def test_metric_agreement_display(rng):
    y = rng.lognormal(size=120)
    predictions = {f"m{i}": y * rng.uniform(0.5, 1.5) + rng.normal(size=120) for i in range(8)}
    display = plot.MetricAgreementDisplay.from_predictions(
        y, predictions, metrics=["mean_absolute_error", "kendall_tau"]
    )
    offsets = display.ax_.collections[0].get_offsets()
    assert offsets.shape == (8, 2)
    np.testing.assert_array_equal(np.sort(offsets[:, 0]), np.arange(1, 9))
    with pytest.raises(ValueError, match="not in this comparison"):
        plot.MetricAgreementDisplay(
            display.result, metrics=["mean_absolute_error", "root_mean_squared_error"]
        )


def test_importing_the_library_or_plot_package_does_not_import_matplotlib():
    code = (
        "import sys, ranklens, ranklens.plot, ranklens.report, ranklens.cli; "
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bootstrap_band_displays(data):
    y, good, poor = data
    predictions = {"good": good, "poor": poor, "other": (good + poor) / 2}
    bands = plot.CurveBandsDisplay.from_predictions(
        y, predictions, n_bootstrap=30, random_state=0, plot_kwargs={"max_points": 500}
    )
    result = bands.result
    assert result.models == ("good", "poor", "other")
    labels = bands.ax_.get_legend_handles_labels()[1]
    assert labels == ["good", "poor", "other"]
    assert len(bands.ax_.collections) == 3  # one band per model
    simultaneous = plot.CurveBandsDisplay.from_result(result, simultaneous=True)
    assert len(simultaneous.ax_.lines) > len(bands.ax_.lines)
    beats = plot.BeatProbabilityDisplay.from_result(result, pairs=[("good", "poor")])
    assert beats.ax_.get_legend_handles_labels()[1] == ["good beats poor"]
    drawn = beats.lines_[0].get_ydata()
    np.testing.assert_allclose(drawn, result.prob_a_beats_b[0])


def test_from_result_routes_constructor_options(rng):
    y = rng.lognormal(size=100)
    predictions = {f"m{i}": y + rng.normal(scale=i + 1, size=100) for i in range(6)}
    from ranklens.agreement import compare_metric_rankings

    result = compare_metric_rankings(
        y, predictions, metrics=["mean_absolute_error", "root_mean_squared_error", "kendall_tau"]
    )
    display = plot.MetricAgreementDisplay.from_result(
        result, metrics=["root_mean_squared_error", "kendall_tau"], top=2
    )
    assert display.metrics == ("root_mean_squared_error", "kendall_tau") and display.top == 2
    assert display.ax_.get_xlabel().startswith("rank by root_mean_squared_error")


# --------------------------------------------------------------------------------------------
# what a reader sees: numbers, names and legends


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (8.5496e9, 3, "8.55 billion"),
        (2.4812e7, 0, "24.8 million"),
        (-3.2e6, 3, "-3.2 million"),
        (12345.678, 3, "12,346"),
        (0.789, 3, "0.789"),
        (1.23e-5, 3, "0.0000123"),
        (float("nan"), 3, "n/a"),
    ],
)
def test_legend_numbers_are_never_in_scientific_notation(value, digits, text):
    assert legend_number(value, digits) == text


def test_legend_numbers_read_without_exponents_at_every_size():
    for exponent in range(-8, 16):
        for sign in (1, -1):
            for digits in (0, 2, 3, 4):
                shown = legend_number(sign * 1.2345 * 10.0**exponent, digits)
                assert "e" not in shown.replace("million", "").replace("trillion", ""), shown


def test_profit_display_shows_the_currency(data):
    y, good, _ = data
    display = plot.ProfitCurveDisplay.from_predictions(
        y, good, name="good", currency="$", cost_per_target=1.0, value_margin=0.5, budget=40
    )
    assert display.ax_.get_ylabel() == "profit ($)"
    label = display.lines_[0].get_label()
    assert "best $" in label and "within budget $" in label
    euro = plot.ProfitCurveDisplay.from_predictions(
        y, good, currency="EUR", cost_per_target=1.0, value_margin=0.5
    )
    assert euro.ax_.get_ylabel() == "profit (EUR)" and " EUR at " in euro.lines_[0].get_label()


def _texts_overlap(ax) -> int:
    from matplotlib.text import Text

    renderer = ax.figure.canvas.get_renderer()
    boxes = [Text.get_window_extent(t, renderer) for t in ax.texts]
    return sum(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def test_point_names_do_not_overlap_in_a_crowded_corner():
    fig, ax = plt.subplots(figsize=(6.2, 4.3))
    names = ["gradient_boosting_v1", "random_forest_deep", "linear_ridge_alpha", "knn_15"]
    names += ["gbm_extremes_tuned", "baseline_mean", "svr_rbf"]
    spots = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (1, 3), (3, 3)]
    points = [(x, y, name) for (x, y), name in zip(spots, names, strict=True)]
    ax.set_xlim(0.5, 20.5)
    ax.set_ylim(0.5, 20.5)
    ax.set_aspect("equal", adjustable="box")
    notes = label_points(ax, [*points, (3, 3, "twin_of_svr")])
    assert len(notes) == 7  # the two models at (3, 3) share one name
    assert "svr_rbf, twin_of_svr" in {n.get_text() for n in notes}
    fig.canvas.draw()
    assert _texts_overlap(ax) == 0


def test_metric_agreement_names_do_not_overlap(rng):
    y = rng.normal(size=300)
    noise = rng.normal(scale=0.5, size=(20, 300))
    preds = {f"a_fairly_long_model_name_{i}": y + noise[i] for i in range(20)}
    display = plot.MetricAgreementDisplay.from_predictions(
        y, preds, metrics=["mean_absolute_error", "kendall_tau"]
    )
    display.figure_.canvas.draw()
    assert display.ax_.texts and _texts_overlap(display.ax_) == 0


def test_a_legend_below_the_axes_stays_inside_a_users_grid(data):
    y, good, _ = data
    own = plot.LiftCurveDisplay.from_predictions(y, good, name="good")
    assert own.figure_.get_layout_engine() is not None  # room is made below the axes
    assert own.ax_.get_legend().get_bbox_to_anchor() is not None
    fig, axes = plt.subplots(2, 2)
    shown = plot.LiftCurveDisplay.from_predictions(y, good, name="good", ax=axes[0, 0])
    legend = shown.ax_.get_legend()
    assert legend.get_frame_on()  # inside, on a frame: not over the plot below
    fig.canvas.draw()
    below = axes[1, 0].get_window_extent()
    assert not legend.get_window_extent().overlaps(below)


def test_many_models_bands_show_their_edges(data):
    from ranklens.bands import curve_bands

    y, good, poor = data
    preds = {"good": good, "poor": poor, "mid": (good + poor) / 2}
    result = curve_bands(y, preds, curve="gain", n_bootstrap=30, random_state=0)
    display = plot.CurveBandsDisplay(result).plot()
    assert len(display.ax_.lines) >= 3 * 3  # each model: its curve and the band's two edges
