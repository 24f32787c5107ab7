"""The report's interactive charts: Vega-Lite specifications built from the stored results.

The numbers in a specification are the stored ones, exactly, at the points kept; long curves
keep their ends and marked points; no text a reader sees is in scientific notation; every chart
has its tooltips, zoom and legend toggle; a chart that cannot be built falls back to its SVG.
(tests/presentation/test_report_browser.py draws them in Chromium.)
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings

import numpy as np
import pytest

from ranklens.exceptions import RanklensWarning
from ranklens.report import charts, evaluate_models, render_html

pytest.importorskip("matplotlib")

SPEC = re.compile(
    r'<script type="application/json" class="vl-spec" data-target="[^"]+">(.*?)</script>'
)


@pytest.fixture(scope="module")
def evaluation():
    rng = np.random.default_rng(3)
    n = 1500  # long curves: more points than a chart keeps
    y = rng.lognormal(mean=3, size=n)
    predictions = {
        "gbm": y * rng.lognormal(sigma=0.4, size=n),
        "linear": y + rng.normal(scale=20, size=n),
    }
    return evaluate_models(
        y,
        predictions,
        title="Charts",
        events="top:0.1",
        budget=3000.0,
        cost_per_target=10.0,
        value_margin=0.4,
        n_bootstrap=30,
        random_state=0,
    )


@pytest.fixture(scope="module")
def figure_views(evaluation):
    from ranklens.report.figures import build_figures

    return build_figures(evaluation, prefix="t0")


def _specs(views) -> dict[str, dict]:
    out = {}
    for section in views.values():
        for view in section:
            if view.chart:
                (text,) = SPEC.findall(view.image)
                out[view.title] = json.loads(text.replace("<\\/", "</"))
    return out


def _units(spec):
    """Every unit (a dict with a mark) of a specification, through layers and concatenations."""
    if "mark" in spec:
        yield spec
    for key in ("layer", "concat", "vconcat", "hconcat"):
        for child in spec.get(key, []):
            yield from _units(child)


def _strings(value, *, data=False):
    """Every string of a specification outside its data (or only inside with ``data``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "$schema":
                continue
            if key == "data" and not data:
                continue
            yield from _strings(item, data=data)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, data=data)
    elif isinstance(value, str) and not re.fullmatch(r"#[0-9a-f]{6}", value):  # not colours
        yield value


def test_every_plot_with_a_chart_is_a_vega_lite_spec(figure_views):
    specs = _specs(figure_views)
    # the report's main plots are charts, not images
    for title in (
        "Concordance profile",
        "AUC by cutoff",
        "Rank lift",
        "Decile report: gain, lift, decile lift and KS",
        "Value captured",
        "ROC curve",
        "Profit",
        "Calibration by decile",
        "Reliability diagram",
        "Relevance function",
        "Predicted against actual",
        "Residuals",
        "REC curve",
        "RROC curve",
    ):
        assert title in specs, title
    for title, spec in specs.items():
        assert spec["$schema"] == charts.SCHEMA, title
        units = list(_units(spec))
        assert units, title
        params = [p for u in units for p in u.get("params", [])]
        # zoom and pan on the scales, tooltips on the marks
        assert any(p.get("bind") == "scales" for p in params), title
        assert any("tooltip" in u.get("encoding", {}) for u in units), title
        for unit in units:
            assert "encoding" in unit, (title, unit["mark"])
        # the models' legend toggles them
        if any(u["encoding"].get("color", {}).get("field") == "model" for u in units):
            assert {"name": "pick", "select": {"type": "point", "fields": ["model"]}} | {
                "bind": "legend"
            } in params, title


def test_no_text_is_in_scientific_notation(figure_views):
    for title, spec in _specs(figure_views).items():
        for text in _strings(spec):
            assert not re.search(r"\d[eE][+-]?\d", text), (title, text)
        # the d3 formats never write exponents (types e, g, s)
        formats = [u for u in _strings(spec) if re.fullmatch(r"[,.0-9~]*[a-z%]", u)]
        for fmt in formats:
            assert not fmt.endswith(("e", "g", "s")), (title, fmt)
        # nor the summaries shown in tooltips (data strings)
        for text in _strings(spec, data=True):
            assert not re.search(r"\d[eE][+-]?\d", text), (title, text)


def _line_rows(spec):
    """The per-model columns of the model curves (the layer with the legend toggle)."""
    (layer,) = [u for u in _units(spec) if any(p["name"] == "pick" for p in u.get("params", []))]
    return layer["data"]["values"]


def _matched(stored_x, stored_y, xs, ys) -> list[int]:
    """The indices of the stored curve that the chart's points are, in order (exact equality)."""
    found, i = [], 0
    for x, y in zip(xs, ys, strict=True):
        while i < len(stored_x) and not (stored_x[i] == x and stored_y[i] == y):
            i += 1
        assert i < len(stored_x), (x, y)
        found.append(i)
        i += 1
    return found


@pytest.mark.parametrize(
    ("kind", "x", "y"),
    [
        ("roc", "fpr", "tpr"),
        ("profit", "fraction_targeted", "profit"),
        ("rank_lift", "fraction_targeted", "model"),
        ("value_gain", "fraction_targeted", "gain"),
        ("rec", "tolerance", "accuracy"),
    ],
)
def test_curve_points_are_the_stored_numbers_with_both_ends(evaluation, kind, x, y):
    spec = charts.curve_chart(kind, evaluation)
    rows = _line_rows(spec)
    assert [r["model"] for r in rows] == list(evaluation.curves[kind])
    for row in rows:
        result = evaluation.curves[kind][row["model"]]
        stored_x = np.asarray(getattr(result, x), float)
        stored_y = np.asarray(getattr(result, y), float)
        index = _matched(stored_x.tolist(), stored_y.tolist(), row["x"], row["y"])
        assert index[0] == 0 and index[-1] == stored_x.size - 1
        assert len(index) <= charts.MAX_POINTS + 10 < stored_x.size


def test_profit_keeps_the_budget_and_best_points_and_names_the_currency(evaluation):
    ev = dataclasses.replace(evaluation, settings={**evaluation.settings, "currency": "EUR"})
    spec = charts.curve_chart("profit", ev)
    rows = _line_rows(spec)
    for row in rows:
        r = ev.curves["profit"][row["model"]]
        x = r.fraction_targeted
        for depth in (r.budget_fraction, r.best_fraction):
            nearest = float(x[np.argmin(np.abs(x - depth))])
            assert nearest in row["x"]
    titles = [u["encoding"].get("y", {}).get("axis", {}).get("title") for u in _units(spec)]
    assert "profit (EUR)" in titles
    (marks,) = [u for u in _units(spec) if u["encoding"].get("shape")]
    for row in marks["data"]["values"]:
        r = ev.curves["profit"][row["model"]]
        assert row["x"] == [r.best_fraction, r.budget_fraction]
        assert row["y"] == [r.best_profit, r.budget_profit]


def test_kept_indices_keep_the_shape_the_ends_and_the_marks():
    rng = np.random.default_rng(0)
    x = np.linspace(0.0, 1.0, 20_000)
    y = np.cumsum(rng.normal(size=x.size))
    keep = [1234, 17_000]
    idx = charts.kept_indices(x, y, keep=keep)
    assert idx[0] == 0 and idx[-1] == x.size - 1
    assert set(keep) <= set(idx.tolist())
    assert len(idx) <= charts.MAX_POINTS + len(keep)
    # the extremes of the curve (its vertical extent) are kept
    assert int(np.argmax(y)) in idx and int(np.argmin(y)) in idx
    assert np.all(np.diff(idx) > 0)
    short = charts.kept_indices(x[:50], y[:50])
    assert short.tolist() == list(range(50))
    with pytest.raises(ValueError, match="keep"):
        charts.kept_indices(x, y, keep=[x.size])


@pytest.mark.parametrize(
    "value", [8.5496e9, 1234.5678, 1.2345e-5, -0.12, 0.0, 99_999.4, 3.2e6, -7.7e12]
)
def test_plain_numbers_are_never_scientific(value):
    text = charts.plain_number(value)
    assert "e" not in text.lower().replace("billion", "").replace("million", "").replace(
        "trillion", ""
    )
    words = {"trillion": 1e12, "billion": 1e9, "million": 1e6}
    number, _, word = text.partition(" ")
    shown = float(number.replace(",", "")) * words.get(word, 1.0)
    assert shown == pytest.approx(value, rel=5e-3, abs=1e-9)
    assert charts.plain_number(8.5496e9) == "8.55 billion"


def test_number_formats():
    assert charts.number_format([0.2, 0.5], share=True) == ".2%"
    assert charts.number_format([1.0, 8.5e9]) == ",.0f"
    assert charts.number_format([0.001, 2.5]) == ",.4~r"
    assert charts.number_format([float("nan"), None]) == ",.4~r"


def test_bands_are_layers_of_their_own_toggled_with_their_model(evaluation):
    spec = charts.gain_bands_chart(evaluation)
    (band,) = [u for u in _units(spec) if u["mark"]["type"] == "area"]
    assert band["encoding"]["opacity"]["condition"]["param"] == "pick"
    assert band["encoding"]["color"]["field"] == "model"
    result = evaluation.extras["bands"]["gain"]
    for k, row in enumerate(band["data"]["values"]):
        assert row["model"] == result.models[k]
        index = _matched(result.x.tolist(), result.lower[k].tolist(), row["x"], row["lo"])
        assert [result.upper[k][i] for i in index] == row["hi"]


def test_agreement_is_a_dot_plot_with_names_in_tooltips():
    from ranklens import compare_metric_rankings

    rng = np.random.default_rng(1)
    y = rng.normal(size=200)
    predictions = {f"model {k}": y + rng.normal(scale=0.2 + k / 5, size=200) for k in range(8)}
    result = compare_metric_rankings(y, predictions, metrics=["mean_absolute_error", "kendall_tau"])
    spec = charts.agreement_chart(result, ["mean_absolute_error", "kendall_tau"])
    assert not [u for u in _units(spec) if u["mark"] == "text" or u["mark"].get("type") == "text"]
    (dots,) = [u for u in _units(spec) if u["mark"]["type"] == "circle"]
    rows = dots["data"]["values"]
    assert [r["model"] for r in rows] == list(result.models)
    assert [r["x"] for r in rows] == result.ranks[:, 0].tolist()
    assert [r["y"] for r in rows] == result.ranks[:, 1].tolist()
    assert dots["encoding"]["tooltip"][0]["field"] == "model"


def test_no_model_name_can_close_the_script_element():
    spec = {"data": {"values": [{"model": "</script><b>x</b>"}]}}
    text = charts.spec_json(spec)
    assert "</script" not in text and json.loads(text.replace("<\\/", "</")) == spec
    with pytest.raises(ValueError):
        charts.spec_json({"x": float("nan")})


def test_the_library_is_inlined_once_per_page(evaluation):
    page = render_html([evaluation, evaluation], title="Two")
    assert page.count("draw every chart of the page") == 1
    assert page.count("<script>") == 5  # vega, vega-lite, vega-embed, drawing, sorting
    ids = re.findall(r'class="vl-chart" id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) > 20


def test_a_chart_that_fails_is_shown_as_svg_with_a_warning(evaluation, monkeypatch):
    from ranklens.report import figures
    from ranklens.report.diagnostics import calibration_view

    def broken(ev):
        raise RuntimeError("no spec")

    monkeypatch.setitem(figures.CHARTS, calibration_view, broken)
    with pytest.warns(RanklensWarning, match="Calibration by decile.*RuntimeError: no spec"):
        views = figures.build_figures(evaluation)
    (view,) = [v for v in views["errors"] if v.title == "Calibration by decile"]
    assert not view.chart and view.image.startswith('<img src="data:image/svg+xml;base64,')
    assert not view.error


def test_static_images_only_when_asked(evaluation):
    from ranklens.report.figures import build_figures

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        views = build_figures(evaluation, interactive=False)
    assert not any(v.chart for section in views.values() for v in section)


def test_the_vendored_files_are_package_data():
    from importlib import resources

    static = resources.files("ranklens.report").joinpath("static")
    versions = dict(
        line.split() for line in static.joinpath("VERSIONS").read_text().splitlines() if line
    )
    assert set(versions) == {"vega", "vega-lite", "vega-embed"}
    # the schema the specifications name is the vendored Vega-Lite's major version
    assert charts.SCHEMA.endswith(f"/v{versions['vega-lite'].split('.')[0]}.json")
    for name in charts.VENDORED:
        text = static.joinpath(name).read_text(encoding="utf-8")
        assert "</script" not in text.lower() and "sourceMappingURL" not in text
    for package in versions:
        assert "Redistribution and use" in static.joinpath(f"LICENSE-{package}.txt").read_text()


def test_over_time_shows_the_picks_band_until_models_are_picked():
    import pandas as pd

    from ranklens.report import evaluate_models
    from ranklens.report.charts import window_chart

    rng = np.random.default_rng(2)
    n = 360
    y = rng.normal(size=n)
    predictions = {m: y + rng.normal(scale=s, size=n) for m, s in (("a", 0.5), ("b", 0.8))}
    time = pd.Series(pd.date_range("2023-01-01", periods=n, freq="D"))
    evaluation = evaluate_models(
        y, predictions, time=time, window="Q", n_bootstrap=50, metrics=["mean_absolute_error"]
    )
    result = evaluation.windows
    spec = window_chart(result, "mean_absolute_error", y_title="mean absolute error")
    band = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "area")
    opacity = band["encoding"]["opacity"]
    assert opacity["value"] == 0.0  # no band unless picked: four bands read as one smear
    picked, default = opacity["condition"]
    assert picked == {"param": "pick", "empty": False, "value": 0.18}
    assert default["test"]["and"][1] == f'datum.model === "{result.picks["mean_absolute_error"]}"'
