"""Interactive charts of the HTML report: Vega-Lite specifications built from the stored results.

Each ``*_chart`` function takes a :class:`~ranklens.evaluation.ModelEvaluation` (or the stored
result it draws) and returns a Vega-Lite specification as a plain ``dict`` (JSON-ready), or None
when its data are absent. Nothing is recomputed: the numbers are the fields the matplotlib views
of :mod:`ranklens.report.figures` and :mod:`ranklens.report.diagnostics` draw, copied exactly
(Python's ``json`` writes the shortest text that reads back to the same float); a long curve keeps
at most about :data:`MAX_POINTS` of its points per model (:func:`kept_indices`: the shape, both
ends and the points the chart marks, such as the budget depth).

Every chart shares the same interactions (Satyanarayan, Moritz, Wongsuphasawat & Heer 2017):

* a tooltip with the values of the mark under the pointer (model, x, y);
* zoom and pan on the continuous axes (drag, wheel; double-click resets): an interval selection
  bound to the scales;
* a legend that toggles the models (click one, shift-click more; the others fade): a point
  selection on the ``model`` field bound to the legend. A model's band is its own layer, faded
  with the model.

Numbers in axes, legends and tooltips are plain (``8,549,600,000``, never ``8.5496e+09``); profit
axes name the currency of ``evaluation.settings["currency"]`` when it is set. The page draws the
specifications with the vendored Vega, Vega-Lite and Vega-Embed (``report/static``; see
:func:`page_scripts`).

References
----------
Satyanarayan, A., Moritz, D., Wongsuphasawat, K. and Heer, J. (2017). Vega-Lite: A grammar of
interactive graphics. *IEEE Transactions on Visualization and Computer Graphics*, 23(1), 341-350.
doi:10.1109/TVCG.2016.2599030

Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
doi:10.1109/ICDM.2005.126
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from ranklens._foundation.format import plain_number
from ranklens.plot import thin_indices

__all__ = [
    "MAX_POINTS",
    "PALETTE",
    "SCHEMA",
    "chart_html",
    "curve_chart",
    "kept_indices",
    "line_chart",
    "number_format",
    "page_scripts",
    "plain_number",
    "spec_json",
]

#: The Vega-Lite version the specifications are written for (the vendored one).
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
#: Points per model and curve at most (plus the points a chart marks).
MAX_POINTS = 400
#: matplotlib's default colour cycle (tab10), so a model keeps its colour across the report.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
BASELINE_COLOR = "#9e9e9e"
WIDTH = 470
HEIGHT = 290
SHARE = ".0%"
SHARE_TIP = ".2%"

#: The vendored files, in the order the page loads them.
VENDORED = ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")

_CONFIG: dict[str, Any] = {
    "font": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "axis": {"labelFontSize": 11, "titleFontSize": 11, "titleFontWeight": "normal"},
    "legend": {
        "labelFontSize": 11,
        "titleFontSize": 11,
        "labelLimit": 220,
        "orient": "right",
        "symbolOpacity": 1,
    },
    "view": {"stroke": None},
    "title": {"fontSize": 12, "fontWeight": "normal", "anchor": "start"},
}


# --------------------------------------------------------------------------------------------
# Numbers


def number_format(values: Iterable[Any], *, share: bool = False) -> str:
    """The d3-format string of a tooltip or axis for ``values``, never in scientific notation.

    Parameters
    ----------
    values : iterable of float
        The numbers to format (their largest magnitude decides).
    share : bool, default False
        Whether they are shares (0 to 1), shown as percentages.

    Returns
    -------
    str
        ``".2%"`` for shares, ``",.0f"`` from 10,000 up (every digit, with separators), else
        ``",.4~r"`` (four significant digits, positional).

    Examples
    --------
    >>> number_format([0.1, 0.5], share=True)
    '.2%'
    >>> number_format([1.0, 8.5e9])
    ',.0f'
    """
    if share:
        return SHARE_TIP
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    if finite and max(finite) >= 1e4:
        return ",.0f"
    return ",.4~r"


def _floats(values: Any, index: Any = None) -> list[float | None]:
    """The values (at ``index``) as a JSON list: exact floats, None for NaN or infinity."""
    array = np.asarray(values, dtype=np.float64)
    if index is not None:
        array = array[index]
    return [float(v) if math.isfinite(v) else None for v in array.tolist()]


def kept_indices(
    x: Any, *ys: Any, keep: Sequence[int] = (), max_points: int = MAX_POINTS
) -> np.ndarray:
    """The points of a curve a chart keeps: its shape in at most about ``max_points`` points.

    :func:`ranklens.plot.thin_indices` keeps, in each of equal buckets of x, the first and last
    point and every y's extremes and largest jump (a step stays where it is, a spike keeps its
    height); the first and last points are always kept, and so are the indices in ``keep`` (the
    points a chart marks: the budget depth, the best point).

    Parameters
    ----------
    x : array-like of shape (n,)
        Horizontal positions.
    *ys : array-like of shape (n,)
        The vertical series drawn against ``x``.
    keep : sequence of int
        Indices kept whatever the thinning (out-of-range ones are refused).
    max_points : int
        About the number of points kept besides ``keep``.

    Returns
    -------
    ndarray of int64
        Sorted unique indices.
    """
    n = np.asarray(x).shape[0]
    extra = np.asarray(list(keep), dtype=np.int64)
    if extra.size and (extra.min() < 0 or extra.max() >= n):
        raise ValueError(f"keep: indices must lie in [0, {n}); got {sorted(extra.tolist())}")
    base = thin_indices(x, *ys, max_points=max_points)
    return np.unique(np.concatenate([base, extra])).astype(np.int64)


def _nearest(x: Any, value: Any) -> list[int]:
    """The index of ``x`` closest to ``value`` (none when the value is missing or NaN)."""
    if value is None or not math.isfinite(float(value)):
        return []
    array = np.asarray(x, dtype=np.float64)
    if not array.size:
        return []
    return [int(np.nanargmin(np.abs(array - float(value))))]


# --------------------------------------------------------------------------------------------
# Building blocks


def _colors(models: Sequence[str]) -> list[str]:
    return [PALETTE[k % len(PALETTE)] for k in range(len(models))]


def model_color(models: Sequence[str], *, legend: bool = True) -> dict[str, Any]:
    """The colour encoding of the models (fixed colours, a legend to the right)."""
    encoding: dict[str, Any] = {
        "field": "model",
        "type": "nominal",
        "scale": {"domain": list(models), "range": _colors(models)},
    }
    if legend:
        # the layers of a chart share this one legend: a layer with "legend": null would
        # conflict with it (Vega-Lite warns), so the others leave the key out
        encoding["legend"] = {"title": "model (click to pick)", "symbolType": "stroke"}
    return encoding


def _picked(on: float = 1.0, off: float = 0.12) -> dict[str, Any]:
    """Opacity: ``on`` for the models picked in the legend (all when none is), else ``off``."""
    return {"condition": {"param": "pick", "value": on}, "value": off}


def interaction_params(*, zoom: bool = True) -> list[dict[str, Any]]:
    """The legend toggle of the models and (with ``zoom``) zoom and pan on the scales."""
    params: list[dict[str, Any]] = [
        {"name": "pick", "select": {"type": "point", "fields": ["model"]}, "bind": "legend"}
    ]
    if zoom:
        params.append({"name": "zoom", "select": "interval", "bind": "scales"})
    return params


def _axis(title: str, fmt: str | None) -> dict[str, Any]:
    axis: dict[str, Any] = {"title": title}
    if fmt is not None:
        axis["format"] = fmt
    return axis


def _scale(domain: Sequence[float] | None, *, zero: bool = False) -> dict[str, Any]:
    """A scale, with a fixed domain when one is given and finite (else the data's extent)."""
    scale: dict[str, Any] = {"zero": zero}
    if domain is not None and all(math.isfinite(float(d)) for d in domain):
        scale["domain"] = [float(d) for d in domain]
    return scale


def _series_layer(
    rows: list[dict[str, Any]], fields: Sequence[str], mark: dict[str, Any]
) -> dict[str, Any]:
    """A layer whose data are per-model columns (``{"model": m, "x": [...], "y": [...]}``),
    flattened into rows by Vega-Lite: the file stores each number once, without repeating
    the field names."""
    return {
        "data": {"values": rows},
        "transform": [{"flatten": list(fields)}],
        "mark": mark,
    }


def _tooltip(
    x_title: str, x_format: str, y_title: str, y_format: str, *extra: dict[str, Any]
) -> list[dict[str, Any]]:
    return [
        {"field": "model", "type": "nominal", "title": "model"},
        {"field": "x", "type": "quantitative", "title": x_title, "format": x_format},
        {"field": "y", "type": "quantitative", "title": y_title, "format": y_format},
        *extra,
    ]


def spec_json(spec: Mapping[str, Any]) -> str:
    """A specification as compact JSON that is safe inside a ``<script>`` element.

    NaN and infinity are refused (they are not JSON); ``</`` is written ``<\\/`` so that no
    text of the data can close the element.
    """
    text = json.dumps(spec, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return text.replace("</", "<\\/")


def chart_html(spec: Mapping[str, Any], *, element_id: str, alt: str) -> str:
    """The HTML of one chart: its container, its specification and a note without JavaScript.

    Parameters
    ----------
    spec : mapping
        The Vega-Lite specification.
    element_id : str
        The container's id (unique in the page).
    alt : str
        What the chart shows, for screen readers and the note without JavaScript.

    Returns
    -------
    str
        A ``<div>`` the page's script draws the chart into, the specification in a
        ``<script type="application/json">`` and a ``<noscript>`` note.
    """
    label = html.escape(alt)
    # the description becomes the drawing's accessible name (Vega-Embed names the container)
    described = {**spec, "description": alt}
    return (
        f'<div class="vl-chart" id="{element_id}" data-title="{label}"></div>'
        f'<script type="application/json" class="vl-spec" data-target="{element_id}">'
        f"{spec_json(described)}</script>"
        '<noscript><p class="chart-off">Interactive chart: JavaScript is off, so it is not '
        "drawn. The numbers are in the tables of this section and in the JSON results."
        "</p></noscript>"
    )


@cache
def _vendored(name: str) -> str:
    return resources.files("ranklens.report").joinpath("static", name).read_text(encoding="utf-8")


def page_scripts() -> str:
    """The ``<script>`` elements a page with charts needs, once per page: Vega, Vega-Lite and
    Vega-Embed (vendored, minified) and the few lines that draw every chart of the page."""
    parts = [f"<script>{_vendored(name)}</script>" for name in VENDORED]
    parts.append(f"<script>{_vendored('draw_charts.js')}</script>")
    return "\n".join(parts)


def base_spec(*, width: int | str | None = "container", height: int = HEIGHT) -> dict[str, Any]:
    """The specification every chart starts from (schema, size, fonts, no frame).

    By default the chart takes the width of its figure (``"container"``, legend included), so
    it fits a narrow page; ``width=None`` leaves the size to the panels of a chart of several.
    """
    spec: dict[str, Any] = {"$schema": SCHEMA}
    if width is not None:
        spec["width"], spec["height"] = width, height
    if width == "container":
        spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    spec["config"] = _CONFIG
    return spec


# --------------------------------------------------------------------------------------------
# Line charts


def _baseline_layer(
    base: Mapping[str, Any],
    x_enc: dict[str, Any],
    y_enc: dict[str, Any],
    titles: tuple[str, str, str, str],
    interpolate: str | None,
) -> dict[str, Any]:
    """A grey dashed reference curve (random, perfect, a diagonal) with its tooltip."""
    x_title, x_fmt, y_title, y_fmt = titles
    layer = _series_layer(
        [{"name": base["name"], "x": _floats(base["x"]), "y": _floats(base["y"])}],
        ("x", "y"),
        {
            "type": "line",
            "color": base.get("color", BASELINE_COLOR),
            "strokeDash": list(base.get("dash", [5, 4])),
            "strokeWidth": 1.1,
            "interpolate": interpolate or "linear",
        },
    )
    layer["encoding"] = {
        "x": x_enc,
        "y": y_enc,
        "tooltip": [
            {"field": "name", "title": "reference"},
            {"field": "x", "type": "quantitative", "title": x_title, "format": x_fmt},
            {"field": "y", "type": "quantitative", "title": y_title, "format": y_fmt},
        ],
    }
    return layer


def _finite_rule(rule: Mapping[str, Any]) -> bool:
    return math.isfinite(float(rule["x" if "x" in rule else "y"]))


def _rule_layer(rule: Mapping[str, Any], x_fmt: str, y_fmt: str) -> dict[str, Any]:
    """A reference line across the chart (``{"name", "x"}`` vertical, ``{"name", "y"}``
    horizontal) with its tooltip."""
    axis = "x" if "x" in rule else "y"
    return {
        "data": {"values": [{"name": rule["name"], axis: float(rule[axis])}]},
        "mark": {
            "type": "rule",
            "color": rule.get("color", BASELINE_COLOR),
            "strokeDash": list(rule.get("dash", [4, 4])),
        },
        "encoding": {
            axis: {"field": axis, "type": "quantitative"},
            "tooltip": [
                {"field": "name", "title": "line"},
                {"field": axis, "type": "quantitative", "format": x_fmt if axis == "x" else y_fmt},
            ],
        },
    }


def line_chart(
    series: Sequence[Mapping[str, Any]],
    *,
    models: Sequence[str],
    x_title: str,
    y_title: str,
    x_share: bool = False,
    y_share: bool = False,
    bands: Sequence[Mapping[str, Any]] = (),
    baselines: Sequence[Mapping[str, Any]] = (),
    points: Sequence[Mapping[str, Any]] = (),
    rules: Sequence[Mapping[str, Any]] = (),
    interpolate: str | None = None,
    x_domain: Sequence[float] | None = None,
    y_domain: Sequence[float] | None = None,
    stroke_dash: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, Any]:
    """A chart of one curve per model, with bands, baselines, marked points and rules.

    Parameters
    ----------
    series : sequence of mapping
        ``{"model": m, "x": [...], "y": [...]}`` per model (optionally ``"kind"``: the curve's
        kind for ``stroke_dash``, e.g. precision or recall, and ``"summary"``: a text shown in
        the tooltip).
    models : sequence of str
        Every model of the evaluation, in order (fixes the colours).
    x_title, y_title : str
        Axis titles.
    x_share, y_share : bool
        Whether the axis holds shares (drawn as percentages).
    bands : sequence of mapping
        ``{"model": m, "x": [...], "lo": [...], "hi": [...]}``: a band per model, faded with
        the model.
    baselines : sequence of mapping
        ``{"name": "random", "x": [...], "y": [...]}``: grey dashed reference curves.
    points : sequence of mapping
        ``{"model": m, "x": [...], "y": [...], "what": [...]}``: marked points (best depth...).
    rules : sequence of mapping
        ``{"name": "budget", "x": v}`` or ``{"name": ..., "y": v}``: reference lines.
    interpolate : str, optional
        Vega-Lite line interpolation (``"step-after"`` for a step function).
    x_domain, y_domain : sequence of float, optional
        Fixed axis ranges (the marks outside are clipped).
    stroke_dash : mapping of str to sequence of float, optional
        Dash pattern per ``"kind"`` of the series (a legend of the kinds is drawn).

    Returns
    -------
    dict
        The Vega-Lite specification.
    """
    all_x = [v for s in series for v in s["x"]]
    all_y = [v for s in series for v in s["y"]] + [v for b in bands for v in (*b["lo"], *b["hi"])]
    x_fmt = number_format(all_x, share=x_share)
    y_fmt = number_format(all_y, share=y_share)
    x_enc = {
        "field": "x",
        "type": "quantitative",
        "axis": _axis(x_title, SHARE if x_share else None),
        "scale": _scale(x_domain, zero=False),
    }
    y_enc = {
        "field": "y",
        "type": "quantitative",
        "axis": _axis(y_title, SHARE if y_share else None),
        "scale": _scale(y_domain, zero=False),
    }
    color = model_color(models)
    layers: list[dict[str, Any]] = []
    if bands:
        layer = _series_layer(
            [dict(b) for b in bands], ("x", "lo", "hi"), {"type": "area", "interpolate": "linear"}
        )
        layer["encoding"] = {
            "x": x_enc,
            "y": {"field": "lo", "type": "quantitative"},
            "y2": {"field": "hi"},
            "color": color,
            "opacity": _picked(0.16, 0.0),
        }
        layers.append(layer)
    titles = (x_title, x_fmt, y_title, y_fmt)
    layers += [_baseline_layer(b, x_enc, y_enc, titles, interpolate) for b in baselines]
    fields = ["x", "y"]
    line_mark: dict[str, Any] = {"type": "line", "strokeWidth": 1.6, "clip": True}
    if interpolate:
        line_mark["interpolate"] = interpolate
    line_layer = _series_layer([dict(s) for s in series], fields, line_mark)
    encoding: dict[str, Any] = {
        "x": x_enc,
        "y": y_enc,
        "color": color,
        "opacity": _picked(),
        "tooltip": _tooltip(x_title, x_fmt, y_title, y_fmt),
    }
    if stroke_dash:
        kinds = list(stroke_dash)
        encoding["strokeDash"] = {
            "field": "kind",
            "type": "nominal",
            "scale": {"domain": kinds, "range": [list(stroke_dash[k]) for k in kinds]},
            "legend": {"title": "curve", "symbolType": "stroke"},
        }
        encoding["detail"] = {"field": "kind"}
        encoding["tooltip"] = [
            *encoding["tooltip"][:1],
            {"field": "kind", "title": "curve"},
            *encoding["tooltip"][1:],
        ]
    if any("summary" in s for s in series):
        encoding["tooltip"].append({"field": "summary", "title": "summary"})
    line_layer["encoding"] = encoding
    line_layer["params"] = interaction_params()
    layers.append(line_layer)
    # invisible points on the curve: the tooltip shows anywhere along it, not only on the stroke
    hover = _series_layer(
        [dict(s) for s in series],
        fields,
        {"type": "point", "size": 40, "filled": True, "opacity": 0, "clip": True},
    )
    hover["encoding"] = {
        k: v for k, v in encoding.items() if k in ("x", "y", "tooltip", "detail")
    } | {"color": color}
    layers.append(hover)
    if points:
        layer = _series_layer(
            [dict(p) for p in points],
            ("x", "y", "what"),
            {"type": "point", "filled": True, "size": 70, "stroke": "white", "clip": True},
        )
        layer["encoding"] = {
            "x": x_enc,
            "y": y_enc,
            "color": color,
            "shape": {
                "field": "what",
                "type": "nominal",
                "legend": {"title": "marked"},
            },
            "opacity": _picked(),
            "tooltip": _tooltip(
                x_title, x_fmt, y_title, y_fmt, {"field": "what", "title": "point"}
            ),
        }
        layers.append(layer)
    layers += [_rule_layer(rule, x_fmt, y_fmt) for rule in rules if _finite_rule(rule)]
    spec = base_spec()
    spec["layer"] = layers
    return spec


# --------------------------------------------------------------------------------------------
# Curves registered in ranklens.metrics (rank lift, value gain, ROC, profit, REC, RROC, ...)


def _summary(kind: str, result: Any) -> str:
    """A curve's summary number in words for the tooltip (plain numbers)."""
    if kind == "roc":
        return f"AUC {plain_number(result.auc, 3)}"
    if kind in ("gain", "value_gain"):
        return f"accuracy ratio {plain_number(result.accuracy_ratio, 3)}"
    if kind == "rec":
        return f"area over the curve {plain_number(result.area_over_curve)}"
    if kind == "binary_precision_recall":
        return f"average precision {plain_number(result.average_precision, 3)}"
    if kind == "profit":
        text = f"best {plain_number(result.best_profit)} at {100 * result.best_fraction:.0f}%"
        if result.budget_profit is not None:
            text += f"; within budget {plain_number(result.budget_profit)}"
        return text
    area = getattr(result, "area", math.nan)
    return f"area {plain_number(area)}" if math.isfinite(float(area)) else ""


def _is_share(name: str) -> bool:
    return name.startswith("fraction") or name in (
        "fpr",
        "tpr",
        "gain",
        "model",
        "accuracy",
        "precision",
        "recall",
    )


def _currency(ev: Any) -> str:
    settings = getattr(ev, "settings", {}) or {}
    currency = settings.get("currency")
    return str(currency) if currency else ""


def curve_chart(kind: str, ev: Any) -> dict[str, Any] | None:
    """The chart of the registered curve ``kind``, every model on one chart.

    Draws ``result.y_field`` against ``result.x_field`` (the protocol of every curve result:
    :class:`ranklens.metrics.CurveResult`), with the baselines and marks of the kinds the report
    knows (random and perfect gain, ROC diagonal, rank-lift bounds, profit's best point, budget
    and currency, the RROC operating points and the precision-recall triple). A curve kind
    registered later (a precision-recall curve of a 0/1 target, for instance) is drawn from its
    x and y fields alone.

    Parameters
    ----------
    kind : str
        The curve's name in ``evaluation.curves``.
    ev : ModelEvaluation
        The evaluation.

    Returns
    -------
    dict or None
        The specification; None without the curve.
    """
    results = ev.curves.get(kind)
    if not results:
        return None
    first = next(iter(results.values()))
    if kind == "precision_recall" and hasattr(first, "f_beta"):
        # the utility-based precision and recall of rare extremes (a 0/1 target's
        # precision-recall curve, under another name, is drawn from its x and y fields)
        return _precision_recall_chart(ev, results)
    if kind == "rroc":
        return _rroc_chart(ev, results)
    x_name, y_name = first.x_field, first.y_field
    if kind == "rank_lift":
        y_name = "model"
    series, points, keep_sets = [], [], {}
    # a 0/1 target's precision-recall curve names each model's average precision in the legend
    labels = {
        model: f"{model} (AP {plain_number(r.average_precision, 3)})"
        for model, r in results.items()
        if kind == "binary_precision_recall"
    }
    for model, r in results.items():
        x, y = getattr(r, x_name), getattr(r, y_name)
        marks = _profit_marks(r) if kind == "profit" else []
        keep = [i for _, v, _ in marks for i in _nearest(x, v)]
        idx = kept_indices(x, y, keep=keep)
        keep_sets[model] = idx
        series.append(
            {
                "model": labels.get(model, model),
                "x": _floats(x, idx),
                "y": _floats(y, idx),
                "summary": _summary(kind, r),
            }
        )
        if marks:
            points.append(
                {
                    "model": model,
                    "x": [float(v) for _, v, _ in marks],
                    "y": [float(w) for _, _, w in marks],
                    "what": [what for what, _, _ in marks],
                }
            )
    baselines = _curve_baselines(kind, first)
    rules = _profit_rules(first) if kind == "profit" else []
    x_title = getattr(first, "x_label", x_name) or x_name
    y_title = getattr(first, "y_label", y_name) or y_name
    if kind == "profit" and _currency(ev):
        y_title = f"{y_title} ({_currency(ev)})"
    if kind == "rank_lift":
        y_title = "share of the true order reached"
    if kind == "value_gain":
        y_title = "share of total value captured"
    return line_chart(
        series,
        models=[labels.get(m, m) for m in ev.model_names],
        x_title=x_title,
        y_title=y_title,
        x_share=_is_share(x_name),
        y_share=_is_share(y_name) and kind != "profit",
        baselines=baselines,
        points=points,
        rules=rules,
        interpolate={"rec": "step-after", "binary_precision_recall": "step-before"}.get(kind),
    )


def _profit_marks(r: Any) -> list[tuple[str, float, float]]:
    marks = []
    if math.isfinite(float(r.best_profit)):
        marks.append(("best depth", float(r.best_fraction), float(r.best_profit)))
    if r.budget_profit is not None and math.isfinite(float(r.budget_profit)):
        marks.append(("best within budget", float(r.budget_fraction), float(r.budget_profit)))
    return marks


def _profit_rules(r: Any) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = [{"name": "no profit", "y": 0.0, "dash": [1, 0]}]
    total = float(r.n_targeted[-1]) if r.n_targeted.size else 0.0
    if r.max_targets is not None and total > 0:
        share = min(r.max_targets / total, 1.0)
        rules.append({"name": f"budget: {r.max_targets:,} targets", "x": share, "color": "#8a4b00"})
    return rules


def _baseline(name: str, x: Any, y: Any, **style: Any) -> dict[str, Any]:
    idx = kept_indices(x, y)
    return {"name": name, "x": _floats(x, idx), "y": _floats(y, idx), **style}


def _curve_baselines(kind: str, r: Any) -> list[dict[str, Any]]:
    diagonal = {"name": "random", "x": [0.0, 1.0], "y": [0.0, 1.0]}
    if kind in ("gain", "value_gain"):
        return [diagonal, _baseline("perfect", r.fraction_targeted, r.perfect_gain, dash=[2, 2])]
    if kind == "roc":
        return [diagonal]
    if kind == "lift":
        return [{"name": "random", "x": [0.0, 1.0], "y": [1.0, 1.0]}]
    if kind == "rank_lift":
        return [
            _baseline("optimal", r.fraction_targeted, r.optimal),
            _baseline("worst", r.fraction_targeted, r.worst, dash=[2, 2]),
        ]
    if kind == "profit":
        return [
            _baseline("random", r.fraction_targeted, r.random_profit),
            _baseline("perfect", r.fraction_targeted, r.perfect_profit, dash=[2, 2]),
        ]
    return []


def _precision_recall_chart(ev: Any, results: Mapping[str, Any]) -> dict[str, Any]:
    """Utility-based precision (solid), recall (dashed) and F (dotted) over the event threshold
    (Torgo & Ribeiro 2009), the best F of each model marked."""
    series, points = [], []
    for model, r in results.items():
        x = r.thresholds
        keep = _nearest(x, r.best_threshold)
        for label, y in (("precision", r.precision), ("recall", r.recall), ("F", r.f_beta)):
            idx = kept_indices(x, y, keep=keep)
            series.append(
                {"model": model, "kind": label, "x": _floats(x, idx), "y": _floats(y, idx)}
            )
        if math.isfinite(float(r.best_f_beta)):
            points.append(
                {
                    "model": model,
                    "x": [float(r.best_threshold)],
                    "y": [float(r.best_f_beta)],
                    "what": ["best F"],
                }
            )
    return line_chart(
        series,
        models=list(ev.model_names),
        x_title="relevance needed to count as an event",
        y_title="precision / recall / F",
        points=points,
        interpolate="step-after",
        x_domain=(0.0, 1.0),
        y_domain=(0.0, 1.0),
        stroke_dash={"precision": [1, 0], "recall": [6, 3], "F": [2, 2]},
    )


def _rroc_chart(ev: Any, results: Mapping[str, Any]) -> dict[str, Any]:
    """Over- against under-estimation as a constant shift is added (Hernández-Orallo 2013),
    the models' own points marked; the view is the square around every operating point."""
    series, points = [], []
    extent = 1e-12
    for model, r in results.items():
        drawn = np.isfinite(r.over) & np.isfinite(r.under)
        over, under = np.asarray(r.over)[drawn], np.asarray(r.under)[drawn]
        keep = [i for i in _nearest(over, r.model_over)]
        idx = kept_indices(over, under, keep=keep)
        series.append({"model": model, "x": _floats(over, idx), "y": _floats(under, idx)})
        points.append(
            {
                "model": model,
                "x": _floats([r.model_over]),
                "y": _floats([r.model_under]),
                "what": ["model as fitted"],
            }
        )
        extent = max(extent, 2.0 * max(float(r.model_over), -float(r.model_under)))
    return line_chart(
        series,
        models=list(ev.model_names),
        x_title="over-estimation: total of (prediction − truth) above 0",
        y_title="under-estimation: minus the total below 0",
        baselines=[{"name": "balanced errors", "x": [0.0, extent], "y": [0.0, -extent]}],
        points=points,
        x_domain=(0.0, extent),
        y_domain=(-extent, 0.0),
    )


# --------------------------------------------------------------------------------------------
# The report's own views (ranklens.report.diagnostics): the same data, interactive


def cutoff_auc_chart(ev: Any) -> dict[str, Any] | None:
    """Each model's AUC at every cutoff (true top share as positives), stable cutoffs only
    (:func:`ranklens.report.diagnostics.stable_cutoffs`); none on a 0/1 target."""
    from ranklens.report.diagnostics import stable_cutoffs, target_is_binary

    results = ev.curves.get("cutoff_auc")
    if not results or target_is_binary(ev):
        return None
    series = []
    for model, r in results.items():
        keep = np.flatnonzero(stable_cutoffs(np.asarray(r.n_positive), ev.n) & np.isfinite(r.auc))
        if not keep.size:
            continue
        x, y = np.asarray(r.fraction_positive)[keep], np.asarray(r.auc)[keep]
        idx = kept_indices(x, y)
        series.append(
            {
                "model": model,
                "x": _floats(x, idx),
                "y": _floats(y, idx),
                "summary": f"area {plain_number(r.area, 3)}",
            }
        )
    if not series:
        return None
    return line_chart(
        series,
        models=list(ev.model_names),
        x_title="size of the true top counted as positive (share of cases)",
        y_title="AUC at that cutoff",
        x_share=True,
        rules=[{"name": "random", "y": 0.5}],
    )


def _band_rows(result: Any, keep: np.ndarray) -> tuple[list[Any], list[Any]]:
    """Per model of a bands result: its estimate as a series and its band, at ``keep``."""
    x = np.asarray(result.x, float)[keep]
    series, bands = [], []
    for k, model in enumerate(result.models):
        estimate = np.asarray(result.estimate[k], float)[keep]
        lower = np.asarray(result.lower[k], float)[keep]
        upper = np.asarray(result.upper[k], float)[keep]
        idx = kept_indices(x, estimate, lower, upper)
        series.append({"model": model, "x": _floats(x, idx), "y": _floats(estimate, idx)})
        bands.append(
            {
                "model": model,
                "x": _floats(x, idx),
                "lo": _floats(lower, idx),
                "hi": _floats(upper, idx),
            }
        )
    return series, bands


def auc_bands_chart(ev: Any) -> dict[str, Any] | None:
    """The cutoff-AUC curves with their pointwise bootstrap bands (one band per model, faded
    with it in the legend), stable cutoffs only; none on a 0/1 target."""
    from ranklens.report.diagnostics import stable_cutoffs, target_is_binary

    result = ev.extras.get("bands", {}).get("cutoff_auc")
    if result is None or target_is_binary(ev):
        return None
    x = np.asarray(result.x, float)
    keep = np.flatnonzero(stable_cutoffs(np.round(x * ev.n), ev.n))
    if not keep.size:
        return None
    series, bands = _band_rows(result, keep)
    return line_chart(
        series,
        models=list(ev.model_names),
        x_title="size of the true top counted as positive (share of cases)",
        y_title="AUC at that cutoff",
        x_share=True,
        bands=bands,
        rules=[{"name": "random", "y": 0.5}],
    )


def gain_bands_chart(ev: Any) -> dict[str, Any] | None:
    """Each model's gain with its bootstrap band; the depths where the leading model is clearly
    ahead of every other one (Holm across every depth and pair) are marked along the bottom."""
    from ranklens.report.adapters import gain_contrasts, leader_is_clear

    result = ev.extras.get("bands", {}).get("gain")
    if result is None or len(result.models) < 2:
        return None
    x = np.asarray(result.x, float)
    models = list(result.models)
    series, bands = _band_rows(result, np.arange(x.size))
    contrasts = gain_contrasts(result)
    ticks: dict[str, list[float]] = {}
    for j, depth in enumerate(x):
        leader = models[int(np.nanargmax(result.estimate[:, j]))]
        if leader_is_clear(contrasts, float(depth), leader, models):
            ticks.setdefault(leader, []).append(float(depth))
    points = [
        {"model": m, "x": xs, "y": [0.0] * len(xs), "what": ["clearly ahead"] * len(xs)}
        for m, xs in ticks.items()
    ]
    spec = line_chart(
        series,
        models=list(ev.model_names),
        x_title="share of cases targeted",
        y_title="share of events captured",
        x_share=True,
        y_share=True,
        bands=bands,
        baselines=[{"name": "random", "x": [0.0, 1.0], "y": [0.0, 1.0]}],
        points=points,
    )
    for layer in spec["layer"]:
        if layer.get("mark", {}).get("type") == "point" and layer["mark"].get("size") == 70:
            layer["mark"] = {"type": "tick", "thickness": 2, "size": 14, "clip": True}
            layer["encoding"].pop("shape", None)
    return spec


def concordance_chart(ev: Any) -> dict[str, Any] | None:
    """The concordance profile in at most 50 groups of cases per model: the mean share of pairs
    ordered right (solid) and the best reachable (dashed) (Rosset, Perlich & Zadrozny 2005,
    Fig. 1)."""
    from ranklens.report.diagnostics import concordance_bins

    results = ev.curves.get("concordance_profile")
    if not results:
        return None
    series = []
    for model, r in results.items():
        x, correct, best = concordance_bins(r)
        summary = f"{100 * r.area:.1f}% of pairs right"
        series.append(
            {"model": model, "kind": "pairs right", "x": _floats(x), "y": _floats(correct)}
            | {"summary": summary}
        )
        series.append(
            {"model": model, "kind": "best reachable", "x": _floats(x), "y": _floats(best)}
            | {"summary": summary}
        )
    return line_chart(
        series,
        models=list(ev.model_names),
        x_title="cases, highest prediction first (share of cases)",
        y_title="pairs ordered right (mean per group)",
        x_share=True,
        y_share=True,
        rules=[{"name": "chance (50%)", "y": 0.5, "dash": [2, 3]}],
        stroke_dash={"pairs right": [1, 0], "best reachable": [6, 3]},
    )


def _panel(layers: list[dict[str, Any]], title: str) -> dict[str, Any]:
    return {"title": title, "width": 330, "height": 200, "layer": layers}


def _decile_layer(
    rows: list[dict[str, Any]], y_title: str, y_format: str | None, *, pick: bool, zoom: str
) -> dict[str, Any]:
    layer = _series_layer(rows, ("x", "y"), {"type": "line", "point": True, "clip": True})
    fmt = number_format([v for r in rows for v in r["y"]], share=y_format == SHARE)
    layer["encoding"] = {
        "x": {
            "field": "x",
            "type": "quantitative",
            "axis": _axis("share of cases targeted", SHARE),
        },
        "y": {"field": "y", "type": "quantitative", "axis": _axis(y_title, y_format)},
        "color": model_color([r["model"] for r in rows], legend=pick),
        "opacity": _picked(),
        "tooltip": _tooltip("share targeted", SHARE_TIP, y_title, fmt),
    }
    params = interaction_params() if pick else []
    params = [p for p in params if p["name"] != "zoom"]
    params.append({"name": zoom, "select": "interval", "bind": "scales"})
    layer["params"] = params
    return layer


def decile_chart(ev: Any) -> dict[str, Any] | None:
    """The decile report in four panels: cumulative gain, lift, decile-wise lift and KS, every
    model on each (one legend toggles the models on all four)."""
    tables = ev.curves.get("decile_table")
    if not tables:
        return None
    models = list(tables)
    gain, lift, ks, bars = [], [], [], []
    for model, t in tables.items():
        end = np.asarray(t.fraction_end, float)
        gain.append(
            {"model": model, "x": [0.0, *_floats(end)], "y": [0.0, *_floats(t.cumulative_gain)]}
        )
        lift.append({"model": model, "x": _floats(end), "y": _floats(t.lift)})
        ks.append({"model": model, "x": _floats(end), "y": _floats(t.ks)})
        bars.append({"model": model, "decile": [int(b) for b in t.bin], "y": _floats(t.bin_lift)})
    random_gain = {
        "data": {"values": [{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}]},
        "mark": {"type": "line", "color": BASELINE_COLOR, "strokeDash": [5, 4]},
        "encoding": {
            "x": {"field": "x", "type": "quantitative"},
            "y": {"field": "y", "type": "quantitative"},
        },
    }
    one = {
        "data": {"values": [{"y": 1.0}]},
        "mark": {"type": "rule", "color": BASELINE_COLOR, "strokeDash": [5, 4]},
        "encoding": {"y": {"field": "y", "type": "quantitative"}},
    }
    bar_fmt = number_format([v for b in bars for v in b["y"]])
    bar_layer = _series_layer(bars, ("decile", "y"), {"type": "bar"})
    bar_layer["encoding"] = {
        "x": {"field": "decile", "type": "ordinal", "axis": {"title": "decile", "labelAngle": 0}},
        "xOffset": {"field": "model", "type": "nominal", "sort": models},
        "y": {
            "field": "y",
            "type": "quantitative",
            "axis": _axis("decile's rate / overall rate", None),
        },
        "color": model_color(models, legend=False),
        "opacity": _picked(),
        "tooltip": [
            {"field": "model", "title": "model"},
            {"field": "decile", "title": "decile"},
            {"field": "y", "type": "quantitative", "title": "decile lift", "format": bar_fmt},
        ],
    }
    spec = base_spec(width=None)
    spec["columns"] = 2
    spec["concat"] = [
        _panel(
            [
                _decile_layer(gain, "share of events captured", SHARE, pick=True, zoom="zoom1"),
                random_gain,
            ],
            "Cumulative gain",
        ),
        _panel(
            [_decile_layer(lift, "times better than random", None, pick=False, zoom="zoom2"), one],
            "Lift",
        ),
        _panel([bar_layer, one], "Decile-wise lift"),
        _panel(
            [
                _decile_layer(
                    ks, "events minus non-events captured", SHARE, pick=False, zoom="zoom3"
                )
            ],
            "KS statistic",
        ),
    ]
    spec["resolve"] = {"scale": {"color": "shared"}}
    return spec


def calibration_chart(ev: Any) -> dict[str, Any] | None:
    """Mean actual against mean predicted in each decile of prediction, with 95% intervals
    (mean ± 1.96 standard errors), every model on one chart."""
    from ranklens.report.diagnostics import calibration_groups

    groups = calibration_groups(ev)
    if not groups:
        return None
    series, whiskers = [], []
    ends: list[float] = []
    for model, (pm, ym, se) in groups.items():
        low, high = ym - 1.96 * se, ym + 1.96 * se
        series.append({"model": model, "x": _floats(pm), "y": _floats(ym)})
        whiskers.append({"model": model, "x": _floats(pm), "lo": _floats(low), "hi": _floats(high)})
        values = np.concatenate([pm, ym, low, high])
        ends += values[np.isfinite(values)].tolist()
    if not ends:
        return None
    lo, hi = min(ends), max(ends)
    spec = line_chart(
        series,
        models=list(ev.model_names),
        x_title="mean predicted, by decile of prediction",
        y_title="mean actual",
        baselines=[{"name": "perfectly calibrated", "x": [lo, hi], "y": [lo, hi]}],
    )
    y_fmt = number_format(ends)
    layer = _series_layer(whiskers, ("x", "lo", "hi"), {"type": "rule", "strokeWidth": 1.4})
    layer["encoding"] = {
        "x": {"field": "x", "type": "quantitative"},
        "y": {"field": "lo", "type": "quantitative"},
        "y2": {"field": "hi"},
        "color": model_color(list(ev.model_names), legend=False),
        "opacity": _picked(0.8, 0.08),
        "tooltip": [
            {"field": "model", "title": "model"},
            {"field": "lo", "type": "quantitative", "title": "95% interval from", "format": y_fmt},
            {"field": "hi", "type": "quantitative", "title": "to", "format": y_fmt},
        ],
    }
    spec["layer"].insert(0, layer)
    for layer in spec["layer"]:
        if layer["mark"].get("type") == "point" and layer["mark"].get("opacity") == 0:
            layer["mark"] = {"type": "point", "filled": True, "size": 36}
            layer["encoding"]["opacity"] = _picked()
    return spec


def reliability_chart(ev: Any) -> dict[str, Any] | None:
    """The reliability diagram: each model's recalibrated against its predictions (step
    curves), the diagonal, and the consistency band of the model with the lowest mean squared
    error; the y range is set by the curves (a band's far tail is clipped)."""
    block = ev.extras.get("calibration")
    if not isinstance(block, dict) or not block.get("diagrams"):
        return None
    band_model = block.get("band_model")
    series, bands = [], []
    lo, hi = math.inf, -math.inf  # the extent of the curves (every distinct prediction)
    for model, result in block["diagrams"].items():
        x, y = np.asarray(result.prediction, float), np.asarray(result.recalibrated, float)
        if not x.size:
            continue
        idx = kept_indices(x, y)
        series.append({"model": model, "x": _floats(x, idx), "y": _floats(y, idx)})
        if model == band_model and np.isfinite(result.band_low).any():
            low, high = np.asarray(result.band_low, float), np.asarray(result.band_high, float)
            bidx = kept_indices(x, low, high)
            bands.append(
                {
                    "model": model,
                    "x": _floats(x, bidx),
                    "lo": _floats(low, bidx),
                    "hi": _floats(high, bidx),
                }
            )
        both = np.concatenate([x, y])
        both = both[np.isfinite(both)]
        if both.size:
            lo, hi = min(lo, float(both.min())), max(hi, float(both.max()))
    if lo > hi:
        return None
    margin = 0.05 * (hi - lo) if hi > lo else 1.0
    spec = line_chart(
        series,
        models=list(ev.model_names),
        x_title="prediction",
        y_title="recalibrated prediction",
        bands=bands,
        baselines=[{"name": "calibrated", "x": [lo, hi], "y": [lo, hi]}],
        interpolate="step-after",
        y_domain=(lo - margin, hi + margin),
    )
    for layer in spec["layer"]:
        if layer["mark"].get("type") == "area":
            layer["mark"]["interpolate"] = "step-after"
            layer["mark"]["clip"] = True
    return spec


def agreement_chart(result: Any, metrics: Sequence[str]) -> dict[str, Any]:
    """Each candidate model's rank by one measure against its rank by another (Torgo & Ribeiro
    2009, Fig. 2): one dot per model, the names in the tooltips (printed labels would overlap),
    the diagonal where both measures agree.

    Parameters
    ----------
    result : MetricRankingComparison
        The stored :func:`ranklens.compare_metric_rankings` result.
    metrics : sequence of str
        The two measures set against each other.

    Returns
    -------
    dict
        The specification.
    """
    a, b = (list(result.metrics).index(m) for m in metrics)
    ranks = np.asarray(result.ranks, float)
    n = len(result.models)
    rows = [
        {"model": str(m), "x": float(ranks[i, a]), "y": float(ranks[i, b])}
        for i, m in enumerate(result.models)
    ]
    arrows = {True: "higher is better", False: "lower is better"}
    words = [arrows.get(result.higher_is_better[k], "closest to target is best") for k in (a, b)]
    x_title = f"rank by {metrics[0]} (1 = best; {words[0]})"
    y_title = f"rank by {metrics[1]} (1 = best; {words[1]})"
    domain = (0.5, n + 0.5)
    spec = base_spec(width=360, height=360)
    spec["layer"] = [
        {
            "data": {"values": [{"x": 0.5, "y": 0.5}, {"x": n + 0.5, "y": n + 0.5}]},
            "mark": {"type": "line", "color": BASELINE_COLOR, "strokeDash": [5, 4]},
            "encoding": {
                "x": {"field": "x", "type": "quantitative"},
                "y": {"field": "y", "type": "quantitative"},
            },
        },
        {
            "data": {"values": rows},
            "mark": {"type": "circle", "size": 60, "opacity": 0.75, "color": PALETTE[0]},
            "params": [
                {"name": "zoom", "select": "interval", "bind": "scales"},
                {
                    "name": "hover",
                    "select": {"type": "point", "on": "pointerover", "clear": "pointerout"},
                },
            ],
            "encoding": {
                "x": {
                    "field": "x",
                    "type": "quantitative",
                    "axis": {"title": x_title, "format": "d", "tickMinStep": 1},
                    "scale": _scale(domain),
                },
                "y": {
                    "field": "y",
                    "type": "quantitative",
                    "axis": {"title": y_title, "format": "d", "tickMinStep": 1},
                    "scale": _scale(domain),
                },
                "size": {
                    "condition": {"param": "hover", "empty": False, "value": 160},
                    "value": 60,
                },
                "tooltip": [
                    {"field": "model", "title": "model"},
                    {"field": "x", "type": "quantitative", "title": f"rank by {metrics[0]}"},
                    {"field": "y", "type": "quantitative", "title": f"rank by {metrics[1]}"},
                ],
            },
        },
    ]
    return spec


def relevance_chart(relevance: Any, y: Any, threshold: float | None) -> dict[str, Any]:
    """The relevance function (Torgo & Ribeiro 2009, Fig. 1) over the distribution of the
    evaluated target (a 60-bin histogram on its own axis) and the event threshold.

    Parameters
    ----------
    relevance : callable
        The stored relevance function (target value -> relevance in [0, 1]).
    y : array-like or None
        The evaluated target (for the histogram and the grid's range).
    threshold : float or None
        The relevance from which a case counts as an event.

    Returns
    -------
    dict
        The specification.
    """
    values = None if y is None else np.asarray(y, float)
    values = None if values is None else values[np.isfinite(values)]
    if values is not None and values.size:
        lo, hi = float(values.min()), float(values.max())
    else:
        centres = [getattr(relevance, a, None) for a in ("low_center", "high_center")]
        known = [c for c in centres if c is not None]
        lo, hi = (min(known), max(known)) if known else (-1.0, 1.0)
    pad = 0.15 * (hi - lo) if hi > lo else 1.0
    grid = np.linspace(lo - pad, hi + pad, 801)
    phi = np.asarray(relevance(grid), float)
    idx = kept_indices(grid, phi)
    x_fmt = number_format(grid)
    layers: list[dict[str, Any]] = []
    if values is not None and values.size:
        counts, edges = np.histogram(values, bins=60)
        layers.append(
            {
                "data": {
                    "values": [
                        {"a": float(edges[i]), "b": float(edges[i + 1]), "cases": int(c)}
                        for i, c in enumerate(counts)
                    ]
                },
                "mark": {"type": "rect", "color": "#bdbdbd", "opacity": 0.6},
                "encoding": {
                    "x": {"field": "a", "type": "quantitative", "axis": {"title": "target value"}},
                    "x2": {"field": "b"},
                    "y": {
                        "field": "cases",
                        "type": "quantitative",
                        "axis": {"title": "cases", "orient": "right"},
                    },
                    "tooltip": [
                        {"field": "a", "type": "quantitative", "title": "from", "format": x_fmt},
                        {"field": "b", "type": "quantitative", "title": "to", "format": x_fmt},
                        {"field": "cases", "type": "quantitative", "title": "cases"},
                    ],
                },
            }
        )
    curve: dict[str, Any] = {
        "layer": [
            {
                "data": {"values": [{"x": _floats(grid, idx), "r": _floats(phi, idx)}]},
                "transform": [{"flatten": ["x", "r"]}],
                "mark": {"type": "line", "color": PALETTE[0], "strokeWidth": 1.8},
                "params": [{"name": "zoom", "select": "interval", "bind": "scales"}],
                "encoding": {
                    "x": {"field": "x", "type": "quantitative", "axis": {"title": "target value"}},
                    "y": {
                        "field": "r",
                        "type": "quantitative",
                        "axis": {"title": "relevance"},
                        "scale": {"domain": [0, 1.02]},
                    },
                    "tooltip": [
                        {"field": "x", "type": "quantitative", "title": "target", "format": x_fmt},
                        {
                            "field": "r",
                            "type": "quantitative",
                            "title": "relevance",
                            "format": ".3f",
                        },
                    ],
                },
            }
        ]
    }
    if threshold is not None:
        curve["layer"].append(
            {
                "data": {"values": [{"r": float(threshold), "name": "counts as an event from"}]},
                "mark": {"type": "rule", "strokeDash": [5, 4], "color": "#616161"},
                "encoding": {
                    "y": {"field": "r", "type": "quantitative"},
                    "tooltip": [
                        {"field": "name", "title": "line"},
                        {
                            "field": "r",
                            "type": "quantitative",
                            "title": "relevance",
                            "format": ".3f",
                        },
                    ],
                },
            }
        )
    layers.append(curve)
    spec = base_spec()
    spec["layer"] = layers
    spec["resolve"] = {"scale": {"y": "independent"}}
    return spec


def intervals_chart(results: Mapping[str, Any], models: Sequence[str]) -> dict[str, Any]:
    """Per model, the intervals (band), point predictions (line) and the truth (dots; red
    outside the interval), cases ordered by prediction; long series keep their shape
    (:func:`kept_indices`) and every miss up to :data:`MAX_POINTS`.

    Parameters
    ----------
    results : mapping of str to IntervalsResult
        The stored ``evaluation.curves["intervals"]``.
    models : sequence of str
        Every model of the evaluation (fixes the colours).

    Returns
    -------
    dict
        The specification (one panel per model, one below the other).
    """
    panels = []
    for k, (model, r) in enumerate(results.items()):
        color = PALETTE[list(models).index(model) % len(PALETTE)] if model in models else PALETTE[k]
        n = r.y_true.shape[0]
        x = np.arange(n, dtype=float)
        idx = kept_indices(x, r.lower, r.upper, r.y_pred)
        covered = np.asarray(r.covered, bool)
        truth_idx = []
        for mask in (covered, ~covered):
            where = np.flatnonzero(mask)
            if where.size > MAX_POINTS // 2:
                where = where[kept_indices(x[where], r.y_true[where], max_points=MAX_POINTS // 2)]
            truth_idx.append(where)
        every = np.concatenate([r.lower, r.upper, r.y_true])
        fmt = number_format(every[np.isfinite(every)])
        truth = np.sort(np.concatenate(truth_idx))
        inside = ["inside" if c else "outside" for c in covered[truth]]
        panels.append(
            {
                "title": f"{model}: coverage {100 * r.coverage:.1f}%",
                "width": WIDTH + 120,
                "height": 220,
                "layer": [
                    _interval_band(x, r, idx, color, fmt, k),
                    {
                        "data": {
                            "values": [
                                {
                                    "case": _floats(x, truth),
                                    "truth": _floats(r.y_true, truth),
                                    "where": inside,
                                }
                            ]
                        },
                        "transform": [{"flatten": ["case", "truth", "where"]}],
                        "mark": {"type": "circle", "size": 14},
                        "encoding": {
                            "x": {"field": "case", "type": "quantitative"},
                            "y": {"field": "truth", "type": "quantitative"},
                            "color": {
                                "field": "where",
                                "type": "nominal",
                                "scale": {
                                    "domain": ["inside", "outside"],
                                    "range": ["#424242", "#c62828"],
                                },
                                "legend": {"title": "truth"},
                            },
                            "tooltip": [
                                {"field": "case", "type": "quantitative", "title": "case"},
                                {"field": "truth", "type": "quantitative", "format": fmt},
                                {"field": "where", "title": "interval"},
                            ],
                        },
                    },
                ],
            }
        )
    spec = base_spec(width=None)
    spec["vconcat"] = panels
    return spec


def _interval_band(
    x: np.ndarray, r: Any, idx: np.ndarray, color: str, fmt: str, k: int
) -> dict[str, Any]:
    return {
        "data": {
            "values": [
                {
                    "case": _floats(x, idx),
                    "lo": _floats(r.lower, idx),
                    "hi": _floats(r.upper, idx),
                    "pred": _floats(r.y_pred, idx),
                }
            ]
        },
        "transform": [{"flatten": ["case", "lo", "hi", "pred"]}],
        "layer": [
            {
                "mark": {"type": "area", "opacity": 0.25, "color": color},
                "params": [
                    {
                        "name": f"zoom{k}",
                        "select": "interval",
                        "bind": "scales",
                    }
                ],
                "encoding": {
                    "x": {
                        "field": "case",
                        "type": "quantitative",
                        "axis": {"title": "cases, in increasing order of prediction"},
                    },
                    "y": {"field": "lo", "type": "quantitative", "axis": {"title": "value"}},
                    "y2": {"field": "hi"},
                    "tooltip": [
                        {"field": "case", "type": "quantitative", "title": "case"},
                        {
                            "field": "lo",
                            "type": "quantitative",
                            "title": "interval from",
                            "format": fmt,
                        },
                        {"field": "hi", "type": "quantitative", "title": "to", "format": fmt},
                        {
                            "field": "pred",
                            "type": "quantitative",
                            "title": "prediction",
                            "format": fmt,
                        },
                    ],
                },
            },
            {
                "mark": {"type": "line", "color": color, "strokeWidth": 1},
                "encoding": {
                    "x": {"field": "case", "type": "quantitative"},
                    "y": {"field": "pred", "type": "quantitative"},
                },
            },
        ],
    }


# --------------------------------------------------------------------------------------------
# By segment and over time


def _without_empty_intervals(spec: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Leave out the layers that draw intervals when no row has one (an empty extent would
    make Vega warn, and there is nothing to draw)."""
    if any(r.get("lo") is not None for r in rows):
        return spec
    spec["layer"] = [
        layer
        for layer in spec["layer"]
        if not any(
            isinstance(e, dict) and e.get("field") == "lo"
            for e in layer.get("encoding", {}).values()
        )
    ]
    return spec


def _interval_fields(record: Mapping[str, Any]) -> dict[str, Any]:
    """A stored record's interval (None unless estimated) and status, as a chart row holds them."""
    estimated = record["status"] == "estimated"
    return {
        "lo": float(record["ci_lower"]) if estimated else None,
        "hi": float(record["ci_upper"]) if estimated else None,
        "status": str(record["status"]),
    }


def _interval_tooltip(place: str, value: str, fmt: str) -> list[dict[str, Any]]:
    """The tooltip of a slice's value: model, slice (``place``), ``value``, interval, status."""
    return [
        {"field": "model", "title": "model"},
        {"field": place, "title": place},
        {"field": value, "type": "quantitative", "title": "value", "format": fmt},
        {"field": "lo", "type": "quantitative", "title": "interval from", "format": fmt},
        {"field": "hi", "type": "quantitative", "title": "to", "format": fmt},
        {"field": "status", "title": "status"},
    ]


def _overall_layer(
    overall: Mapping[str, Any],
    models: list[str],
    axis: tuple[str, str],
    fmt: str,
    **mark: Any,
) -> dict[str, Any]:
    """The layer of each model's value on all the rows, a dashed rule across a chart of slices:
    ``axis`` is the channel and the field of the value; ``mark``, the rule's dashes and width."""
    channel, field = axis
    return {
        "data": {"values": [{"model": m, field: float(overall[m])} for m in models]},
        "mark": {"type": "rule", **mark},
        "encoding": {
            channel: {"field": field, "type": "quantitative"},
            "color": model_color(models),
            "opacity": _picked(0.8, 0.1),
            "tooltip": [
                {"field": "model", "title": "on all the rows"},
                {"field": field, "type": "quantitative", "format": fmt},
            ],
        },
    }


def _estimated_fill(models: list[str]) -> dict[str, Any]:
    """The fill of a slice's point: the model's color with an interval, white without."""
    return {
        "condition": {
            "test": "datum.status === 'estimated'",
            "field": "model",
            "type": "nominal",
            "scale": {"domain": models, "range": _colors(models)},
        },
        "value": "white",
    }


def forest_chart(seg: Any, metric: str, *, x_title: str) -> dict[str, Any]:
    """The forest plot of one measure of an evaluation by segment: a row per segment, a point
    and interval per model (hollow without an interval), each model's value on all the rows as
    a dashed line.

    Parameters
    ----------
    seg : SegmentEvaluation
        The stored evaluation by segment.
    metric : str
        The measure drawn.
    x_title : str
        The axis title (the measure in words, which way is better).

    Returns
    -------
    dict
        The specification.
    """
    models = list(seg.models)
    rows = []
    labels = []
    for slicing in seg.slicings:
        for segment in seg.segments[slicing]:
            labels.append(f"{slicing}: {segment}")
    for r in seg.records:
        if r["metric"] != metric or r["value"] is None or not math.isfinite(float(r["value"])):
            continue
        rows.append(
            {
                "model": r["model"],
                "segment": f"{r['slicing']}: {r['segment']}",
                "value": float(r["value"]),
                **_interval_fields(r),
            }
        )
    fmt = number_format([r["value"] for r in rows])
    y = {
        "field": "segment",
        "type": "nominal",
        "sort": labels,
        "axis": {"title": None, "labelLimit": 240},
    }
    offset = {"field": "model", "type": "nominal", "sort": models}
    color = model_color(models)
    tooltip = _interval_tooltip("segment", "value", fmt)
    spec = base_spec(height=max(120, 16 * len(labels) * max(1, len(models) // 2 + 1)))
    spec["layer"] = [
        _overall_layer(
            seg.overall[metric], models, ("x", "value"), fmt, strokeDash=[5, 4], strokeWidth=1
        ),
        {
            "data": {"values": rows},
            "mark": {"type": "rule", "strokeWidth": 1.6},
            "encoding": {
                "x": {"field": "lo", "type": "quantitative"},
                "x2": {"field": "hi"},
                "y": y,
                "yOffset": offset,
                "color": color,
                "opacity": _picked(),
                "tooltip": tooltip,
            },
        },
        {
            "data": {"values": rows},
            "mark": {"type": "point", "size": 45, "strokeWidth": 1.5},
            "params": [
                {
                    "name": "pick",
                    "select": {"type": "point", "fields": ["model"]},
                    "bind": "legend",
                },
                {
                    "name": "zoom",
                    "select": {"type": "interval", "encodings": ["x"]},
                    "bind": "scales",
                },
            ],
            "encoding": {
                "x": {
                    "field": "value",
                    "type": "quantitative",
                    "axis": {"title": x_title},
                    "scale": {"zero": False},
                },
                "y": y,
                "yOffset": offset,
                "color": color,
                "fill": _estimated_fill(models),
                "opacity": _picked(),
                "tooltip": tooltip,
            },
        },
    ]
    return _without_empty_intervals(spec, rows)


def window_chart(result: Any, metric: str, *, y_title: str) -> dict[str, Any]:
    """One measure over the time windows: a line per model through its values with its
    interval as a band (a window without one is a hollow point), each model's value on all the
    rows as a dotted line; the x axis is the windows' start times, or their numbers.

    Parameters
    ----------
    result : WindowEvaluation
        The stored evaluation over time windows.
    metric : str
        The measure drawn.
    y_title : str
        The axis title.

    Returns
    -------
    dict
        The specification.
    """
    models = list(result.models)
    dated = not any(start is None for start in result.window_starts)
    rows = []
    for model in models:
        cell = [r for r in result.records if r["metric"] == metric and r["model"] == model]
        for i, r in enumerate(cell):
            value = None if r["value"] is None else float(r["value"])
            rows.append(
                {
                    "model": model,
                    "x": str(result.window_starts[i]) if dated else i + 1,
                    "window": str(result.windows[i]),
                    "y": value if value is not None and math.isfinite(value) else None,
                    **_interval_fields(r),
                }
            )
    fmt = number_format([r["y"] for r in rows])
    x = {
        "field": "x",
        "type": "temporal" if dated else "quantitative",
        "axis": {
            "title": f"start of the {result.unit}"
            if dated and result.window_kind == "calendar"
            else ("" if dated else "window"),
            **({} if dated else {"format": "d", "tickMinStep": 1}),
        },
    }
    color = model_color(models)
    tooltip = _interval_tooltip("window", "y", fmt)
    pick = json.dumps(result.picks[metric])
    spec = base_spec(height=240)
    spec["layer"] = [
        {
            # Every model's band at once reads as one smear: until models are picked in the
            # legend, only the pick's band is drawn (the one the others are compared with).
            "data": {"values": rows},
            "mark": {"type": "area"},
            "encoding": {
                "x": x,
                "y": {"field": "lo", "type": "quantitative"},
                "y2": {"field": "hi"},
                "color": color,
                "opacity": {
                    "condition": [
                        {"param": "pick", "empty": False, "value": 0.18},
                        {
                            "test": {"and": [{"param": "pick"}, f"datum.model === {pick}"]},
                            "value": 0.18,
                        },
                    ],
                    "value": 0.0,
                },
            },
        },
        _overall_layer(result.overall[metric], models, ("y", "y"), fmt, strokeDash=[2, 2]),
        {
            "data": {"values": rows},
            "mark": {"type": "line", "strokeWidth": 1.5},
            "params": interaction_params(),
            "encoding": {
                "x": x,
                "y": {
                    "field": "y",
                    "type": "quantitative",
                    "axis": {"title": y_title},
                    "scale": {"zero": False},
                },
                "color": color,
                "strokeWidth": {
                    "condition": {
                        "test": f"datum.model === {json.dumps(result.picks[metric])}",
                        "value": 2.4,
                    },
                    "value": 1.4,
                },
                "opacity": _picked(),
                "tooltip": tooltip,
            },
        },
        {
            # a window with an interval is a filled point, one without a hollow point
            "data": {"values": rows},
            "mark": {"type": "point", "size": 36, "strokeWidth": 1.5},
            "encoding": {
                "x": x,
                "y": {"field": "y", "type": "quantitative"},
                "color": color,
                "fill": _estimated_fill(models),
                "opacity": _picked(),
                "tooltip": tooltip,
            },
        },
    ]
    return _without_empty_intervals(spec, rows)


# --------------------------------------------------------------------------------------------
# Regression diagnostics from the rows


def predicted_actual_chart(ev: Any) -> dict[str, Any] | None:
    """Predicted against actual, a panel per model: one dot per case up to
    :data:`ranklens.report.diagnostics.LARGE_N` cases, else the number of cases in each cell of
    a 40 x 40 grid (log colour scale); log axes for a long-tailed positive target. None without
    rows (the Dask engine's summaries keep their static plot) or on a 0/1 target."""
    from ranklens.report.diagnostics import LARGE_N, is_binary, long_tailed, rows_of

    y, predictions = rows_of(ev)
    if y is None or not predictions or is_binary(y):
        return None
    logs = long_tailed(y, predictions)
    large = y.size > LARGE_N
    scale = {"type": "log"} if logs else {"zero": False}
    panels: list[dict[str, Any]] = []
    for model, p in predictions.items():
        keep = np.isfinite(y) & np.isfinite(p)
        lo = float(min(y[keep].min(), p[keep].min())) if keep.any() else 0.0
        hi = float(max(y[keep].max(), p[keep].max())) if keep.any() else 1.0
        fmt = number_format([lo, hi])
        diagonal = {
            "data": {"values": [{"x": lo, "y": lo}, {"x": hi, "y": hi}]},
            "mark": {"type": "line", "color": BASELINE_COLOR, "strokeDash": [5, 4]},
            "encoding": {
                "x": {"field": "x", "type": "quantitative", "scale": scale},
                "y": {"field": "y", "type": "quantitative", "scale": scale},
            },
        }
        if large:
            layer = _density_layer(p[keep], y[keep], logs=logs, fmt=fmt)
        else:
            layer = {
                "data": {"values": [{"x": _floats(p[keep]), "y": _floats(y[keep])}]},
                "transform": [{"flatten": ["x", "y"]}],
                "mark": {"type": "circle", "size": 14, "opacity": 0.55, "color": PALETTE[0]},
                "encoding": {
                    "x": {"field": "x", "type": "quantitative", "axis": {"title": "predicted"}},
                    "y": {"field": "y", "type": "quantitative", "axis": {"title": "actual"}},
                    "tooltip": [
                        {"field": "x", "type": "quantitative", "title": "predicted", "format": fmt},
                        {"field": "y", "type": "quantitative", "title": "actual", "format": fmt},
                    ],
                },
            }
        for channel in ("x", "y"):
            layer["encoding"][channel]["scale"] = scale
        layer["params"] = [{"name": f"zoom{len(panels)}", "select": "interval", "bind": "scales"}]
        panels.append({"title": model, "width": 300, "height": 260, "layer": [layer, diagonal]})
    spec = base_spec(width=None)
    spec["concat"] = panels
    spec["columns"] = 2
    spec["resolve"] = {"scale": {"color": "independent"}}
    return spec


def _density_layer(x: np.ndarray, y: np.ndarray, *, logs: bool, fmt: str) -> dict[str, Any]:
    """The cases counted on a 40 x 40 grid (log-spaced on log axes), the empty cells left out."""

    def edges(values: np.ndarray) -> np.ndarray:
        lo, hi = float(values.min()), float(values.max())
        if not hi > lo:
            lo, hi = lo - 0.5, hi + 0.5
        return np.geomspace(lo, hi, 41) if logs and lo > 0 else np.linspace(lo, hi, 41)

    x_edges, y_edges = edges(x), edges(y)
    counts, _, _ = np.histogram2d(x, y, bins=[x_edges, y_edges])
    i, j = np.nonzero(counts)
    cells = {
        "x": _floats(x_edges[i]),
        "x2": _floats(x_edges[i + 1]),
        "y": _floats(y_edges[j]),
        "y2": _floats(y_edges[j + 1]),
        "cases": [int(c) for c in counts[i, j]],
    }
    return {
        "data": {"values": [cells]},
        "transform": [{"flatten": ["x", "x2", "y", "y2", "cases"]}],
        "mark": {"type": "rect"},
        "encoding": {
            "x": {"field": "x", "type": "quantitative", "axis": {"title": "predicted"}},
            "x2": {"field": "x2"},
            "y": {"field": "y", "type": "quantitative", "axis": {"title": "actual"}},
            "y2": {"field": "y2"},
            "color": {
                "field": "cases",
                "type": "quantitative",
                "scale": {"type": "log", "scheme": "blues"},
                "legend": {"title": "cases", "format": ",d"},
            },
            "tooltip": [
                {"field": "x", "type": "quantitative", "title": "predicted from", "format": fmt},
                {"field": "x2", "type": "quantitative", "title": "to", "format": fmt},
                {"field": "y", "type": "quantitative", "title": "actual from", "format": fmt},
                {"field": "y2", "type": "quantitative", "title": "to", "format": fmt},
                {"field": "cases", "type": "quantitative", "title": "cases", "format": ",d"},
            ],
        },
    }


def residuals_chart(ev: Any) -> dict[str, Any] | None:
    """The distribution of the residuals (actual minus predicted) of every model, as step
    histograms on one chart (:func:`ranklens.report.diagnostics.residual_histograms`)."""
    from ranklens.report.diagnostics import residual_histograms

    histograms = residual_histograms(ev)
    if histograms is None:
        return None
    series = []
    for model, (edges, counts, median) in histograms.items():
        # a step histogram: each count held from its bin's left edge, closed at the right end
        series.append(
            {
                "model": model,
                "x": _floats(edges),
                "y": [*_floats(counts), float(counts[-1]) if counts.size else None],
                "summary": f"median residual {plain_number(median, 3)}",
            }
        )
    return line_chart(
        series,
        models=list(ev.model_names),
        x_title="residual: actual minus predicted",
        y_title="cases",
        interpolate="step-after",
        rules=[{"name": "no error", "x": 0.0}],
    )
