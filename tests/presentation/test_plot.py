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


@pytest.mark.parametrize(
    ("value", "text"),
    [(8.5496e9, "8.55 billion"), (12345.6, "12,346"), (1.23456e-7, "0.0000001235"), (0.5, "0.500")],
)
def test_legend_numbers_are_never_scientific(value, text):
    from ranklens.plot._base import legend_number

    assert legend_number(value) == text


def test_agreement_labels_do_not_overlap(rng):
    from ranklens import compare_metric_rankings

    y = rng.normal(size=300)
    # close candidates: their ranks crowd the top corner
    predictions = {f"candidate_model_{k}": y + rng.normal(scale=0.5, size=300) for k in range(12)}
    result = compare_metric_rankings(y, predictions, metrics=["mean_absolute_error", "kendall_tau"])
    display = plot.MetricAgreementDisplay.from_result(result)
    display.figure_.canvas.draw()
    renderer = display.figure_.canvas.get_renderer()
    boxes = [text.get_window_extent(renderer) for text in display.ax_.texts]
    assert boxes
    for i, box in enumerate(boxes):
        for other in boxes[:i]:
            assert not box.overlaps(other)


def test_legends_stay_off_the_data(data):
    """The concordance profile and the relevance function put their legend below the axes; a
    legend inside the axes has a frame."""
    y, good, _ = data
    concordance = plot.ConcordanceProfileDisplay.from_predictions(y, good, name="good")
    legend = concordance.ax_.get_legend()
    assert legend.get_bbox_to_anchor().y0 < concordance.ax_.get_window_extent().y0
    roc = plot.RocCurveDisplay.from_predictions(y, good, name="good", events="top:0.2")
    assert roc.ax_.get_legend().get_frame_on()
