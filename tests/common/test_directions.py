"""Directions: higher, lower, closest to a target, or not ranked; and the renamed keywords.

A measure best closest to a target (interval coverage against the nominal ``1 - alpha``) is never
called best by its size: not by the report's shading, the terminal table, the JSON document,
compare's ``better`` column nor the ranking agreement.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import ranklens as rl
from ranklens.metrics import MetricSpec, get_metric

N = 200
ALPHA = 0.2  # nominal coverage 0.8


def _intervals(n_inside: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truth and bounds with exactly ``n_inside`` of ``N`` rows covered."""
    y = np.arange(N, dtype=float)
    lower, upper = y - 1.0, y + 1.0
    lower[n_inside:] = y[n_inside:] + 0.5  # above the truth: not covered
    upper[n_inside:] = y[n_inside:] + 2.0
    return y, lower, upper


@pytest.fixture(scope="module")
def evaluation():
    y, lo_a, up_a = _intervals(199)  # coverage 0.995
    _, lo_b, up_b = _intervals(162)  # coverage 0.81
    return rl.evaluate_models(
        y,
        {},
        intervals={"wide": (lo_a, up_a), "calibrated": (lo_b, up_b)},
        alpha=ALPHA,
        robustness=False,
        curves=False,
    )


def test_coverage_values(evaluation):
    assert evaluation.values["wide"]["interval_coverage"] == pytest.approx(0.995)
    assert evaluation.values["calibrated"]["interval_coverage"] == pytest.approx(0.81)


def test_metric_info_records_the_direction_and_target(evaluation):
    info = evaluation.metrics["interval_coverage"]
    assert info["direction"] == "target" and info["target"] == pytest.approx(0.8)
    assert info["higher_is_better"] is None
    assert evaluation.metrics["mean_interval_width"]["direction"] == "neutral"
    assert evaluation.metrics["interval_score"]["direction"] == "lower"
    doc = json.loads(json.dumps(rl.evaluation_to_json(evaluation), allow_nan=False))
    assert doc["metrics"]["interval_coverage"]["direction"] == "target"
    assert doc["metrics"]["interval_coverage"]["higher_is_better"] is None


def _best_cells(table, metric):
    for row in table.rows:
        names = (metric, metric.replace("_", " "), get_metric(metric).plain_name)
        if row.cells and row.cells[0].text in names:
            # A measure best closest to a target is marked "closest" (there is no test of the
            # difference to call it "best"); any other measure "best" when clearly so.
            return [cell.css in ("best", "closest") for cell in row.cells[1:]]
    raise AssertionError(f"no row for {metric}")


def test_report_shades_the_coverage_closest_to_nominal(evaluation):
    from ranklens.report.render import best_models, summary_table

    table = summary_table(evaluation)
    models = list(evaluation.model_names)
    best = _best_cells(table, "interval_coverage")
    assert best[models.index("calibrated")] and not best[models.index("wide")]
    assert not any(_best_cells(table, "mean_interval_width"))  # not ranked
    assert best_models([0.995, 0.81], {"direction": "higher"}) == {0}
    html = evaluation._repr_html_()
    assert "interval_coverage" in html


def test_notebook_view_shades_the_coverage_closest_to_nominal(evaluation):
    from ranklens._foundation.registry import best_positions

    models = list(evaluation.model_names)
    values = [evaluation.values[m]["interval_coverage"] for m in models]
    assert best_positions(values, evaluation.metrics["interval_coverage"]) == {
        models.index("calibrated")
    }


def test_terminal_table_marks_the_coverage_closest_to_nominal(evaluation):
    pytest.importorskip("rich")
    from rich.console import Console

    from ranklens.report.terminal import summary_table

    console = Console(record=True, width=200, color_system="truecolor")
    console.print(summary_table(evaluation))
    text = console.export_text()
    line = next(line for line in text.splitlines() if "interval_coverage " in line)
    assert "≈ 0.8" in line
    table = summary_table(evaluation)
    # the plain name, the name for --metrics, the direction, then the models
    names = [str(cell) for cell in table.columns[1]._cells]
    row = names.index("interval_coverage")
    marked = {
        str(column.header): "green" in str(getattr(column._cells[row], "style", ""))
        for column in table.columns[3:]
    }
    assert marked == {"wide": False, "calibrated": True}


def _mean_prediction(y_true, y_pred, *, sample_weight=None):
    return float(np.average(np.asarray(y_pred, dtype=float), weights=sample_weight))


TARGET_SPEC = MetricSpec(
    "mean_prediction",
    _mean_prediction,
    family="residual",
    direction="target",
    target=0.8,
    description="mean prediction, best at 0.8",
)


def test_compare_better_uses_the_distance_to_the_target():
    rng = np.random.default_rng(0)
    y = rng.random(60)
    preds = {"wide": np.full(60, 0.995), "calibrated": np.full(60, 0.81)}
    preds["wide"][::7] += 0.001  # keep the bootstrap non-degenerate
    preds["calibrated"][::5] -= 0.001
    for method in ("bootstrap", "permutation"):
        res = rl.compare_models(
            y,
            preds,
            metrics=[TARGET_SPEC],
            n_bootstrap=20,
            method=method,
            random_state=0,
            show_progress=False,
        )
        assert res.higher_is_better == (None,) and res.targets == (0.8,)
        assert res.to_frame()["better"].tolist() == ["calibrated"]


def test_agreement_ranks_by_the_distance_to_the_target():
    rng = np.random.default_rng(1)
    y = rng.random(50)
    preds = {"wide": np.full(50, 0.995), "calibrated": np.full(50, 0.81), "low": np.full(50, 0.3)}
    res = rl.compare_metric_rankings(y, preds, metrics=[TARGET_SPEC])
    assert res.ranks[:, 0].tolist() == [2.0, 1.0, 3.0]
    neutral = MetricSpec("width_like", _mean_prediction, family="residual", direction="neutral")
    with pytest.raises(ValueError, match="not ranked"):
        rl.compare_metric_rankings(y, preds, metrics=[neutral])


# --- renamed keywords ----------------------------------------------------------------------


def _data():
    rng = np.random.default_rng(2)
    y = rng.lognormal(size=60)
    return y, {"a": y * rng.lognormal(sigma=0.3, size=60), "b": y + rng.normal(size=60)}


def test_progress_is_switched_by_show_progress_and_followed_by_on_progress():
    y, preds = _data()
    kw = dict(metrics=["mean_absolute_error"], n_bootstrap=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = rl.compare_models(y, preds, show_progress=False, **kw)
        rl.curve_bands(y, preds, n_bootstrap=10, random_state=0, show_progress=False)
    assert quiet.p_value.shape == (1, 1)
    seen: list[str] = []
    rl.evaluate_models(y, preds, on_progress=seen.append, robustness=False, curves=False)
    assert seen
    with pytest.raises(TypeError, match="progress"):
        rl.compare_models(y, preds, progress=False, **kw)


def test_compare_metric_rankings_metrics_is_keyword_only():
    y, preds = _data()
    preds["c"] = y * 1.1
    with pytest.raises(TypeError, match="positional"):
        rl.compare_metric_rankings(y, preds, ["mean_absolute_error", "kendall_tau"])
    with pytest.raises(TypeError, match="metrics"):
        rl.compare_metric_rankings(y, preds)


def test_a_short_name_is_refused_by_the_engines():
    y, preds = _data()
    with pytest.raises(ValueError, match="unknown metric 'rmse'"):
        rl.compare_models(y, preds, metrics=["rmse"], n_bootstrap=20, show_progress=False)
    with pytest.raises(ValueError, match="unknown metric 'mse'"):
        rl.robustness_table(y, preds["a"], metrics=["mse"])
