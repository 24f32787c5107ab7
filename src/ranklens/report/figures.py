"""Draw the report's plots from the stored results (no recomputation).

Every plot has a matplotlib builder (:mod:`ranklens.plot`, :mod:`ranklens.report.diagnostics`):
it decides whether the plot says anything for the evaluation and gives its title and caption.
Where :data:`CHARTS` has an interactive chart for the plot (:mod:`ranklens.report.charts`, a
Vega-Lite specification with tooltips, zoom and a legend that toggles the models), the report
shows that chart; the others are rendered to SVG and embedded as an ``<img>`` with a ``data:``
URI. Either way the file stays self-contained. Without matplotlib the report simply has no plots.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import html
import io
import math
import re
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import ranklens.plot  # noqa: F401  (its Displays register themselves with the curves they draw)
from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.format import format_number
from ranklens.exceptions import RanklensWarning
from ranklens.extremes import regression_precision_recall
from ranklens.metrics import get_curve
from ranklens.plot import (
    BeatProbabilityDisplay,
    ConcordanceProfileDisplay,
    CurveBandsDisplay,
    IntervalDisplay,
    MetricAgreementDisplay,
    RelevanceDisplay,
)
from ranklens.report import charts
from ranklens.report.diagnostics import (
    bands_view,
    calibration_view,
    concordance_view,
    cutoff_auc_view,
    decile_panels,
    gain_bands_view,
    order_legend,
    predicted_vs_actual,
    probabilities_shown,
    reliability_view,
    residuals_view,
)
from ranklens.report.goals import plain_name
from ranklens.report.segment_views import FOREST_VIEWS, better_words, shown_segments
from ranklens.report.window_views import WINDOW_VIEWS

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = ["CHARTS", "FigureView", "build_figures", "figure_to_img"]

#: Width of one plot in inches; SVG scales to the page.
_WIDTH = 6.2
_HEIGHT = 4.3

_STYLE: dict[RcKeyType, Any] = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",
    # Model names and titles are the user's column names: a name such as "m_$_v1_$" would be
    # read as mathtext and fail to parse, losing the plot. No report plot uses mathtext, so
    # every text is drawn verbatim.
    "text.parse_math": False,
}


@dataclasses.dataclass
class FigureView:
    """One embedded plot: its title, caption, and the ``<img>`` element."""

    title: str
    caption: str
    image: str
    css: str = ""
    #: Why the plot could not be drawn (empty when it was): the report shows the note in its
    #: place, and the command line counts it as a failure.
    error: str = ""
    #: Whether ``image`` is an interactive chart (drawn by the page's scripts) rather than SVG.
    chart: bool = False

    def page_scripts(self) -> str:
        """The scripts a page with interactive charts includes once (see
        :func:`ranklens.report.charts.page_scripts`)."""
        return charts.page_scripts()


def figure_to_img(figure: Any, *, alt: str, salt: str) -> str:
    """Render a matplotlib Figure as an ``<img>`` holding base64 SVG (deterministic ids).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure to embed.
    alt : str
        Alternative text.
    salt : str
        matplotlib's ``svg.hashsalt``: makes the SVG ids deterministic and distinct per figure.

    Returns
    -------
    str
        An ``<img>`` element with the SVG as a base64 data URI.
    """
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": salt}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}" alt="{html.escape(alt)}" loading="lazy">'


def _new_figure(n_axes: int = 1, *, columns: int = 1, wide: bool = False) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    rows = math.ceil(n_axes / columns)
    width = _WIDTH * (2 if wide else 1)
    height = _HEIGHT * rows * (0.8 if columns > 1 else 1)
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax in axes[n_axes:]:
        ax.set_visible(False)
    return fig, axes[:n_axes]


# --------------------------------------------------------------------------------------------
# One builder per plot: returns (title, caption, figure, css) or None when its data is absent.

Built = tuple[str, str, Any, str]
Spec = dict[str, Any]

#: The interactive chart of each plot builder that has one: ``builder -> chart(evaluation)``,
#: the chart's Vega-Lite specification (or None). A builder without an entry stays SVG.
CHARTS: dict[Callable[[Any], Any], Callable[[Any], Spec | None]] = {}


def _overlay(display: Any, results: Mapping[str, Any]) -> Any:
    fig, (ax,) = _new_figure()
    display.from_results(results, ax=ax)
    order_legend(ax, list(results))
    _plain_legend(ax)
    return fig


#: Legend wording of the library's plots, in the report's plain words.
_PLAIN_LEGEND = (
    (re.compile(r"best F(\S*) = n/a at t_E = n/a"), r"predicts no extreme: F\1 not defined"),
    (re.compile(r"best F(\S*) = (\S+) at t_E = (\S+)"), r"best F\1 \2 at relevance \3"),
    (re.compile(r"event threshold t_E = "), "counts as extreme from relevance "),
)


def _plain_legend(ax: Any) -> None:
    """Reword the legend entries of a library plot (symbols such as t_E become words)."""
    legend = ax.get_legend()
    if legend is None:
        return
    for text in legend.get_texts():
        label = text.get_text()
        for pattern, replacement in _PLAIN_LEGEND:
            label = pattern.sub(replacement, label)
        text.set_text(label)


def _concordance(ev: Any) -> Built | None:
    results = ev.curves.get("concordance_profile")
    if not results:
        return None
    columns = 2 if len(results) > 1 else 1
    fig, axes = _new_figure(len(results), columns=columns, wide=columns > 1)
    for ax, (name, result) in zip(axes, results.items(), strict=True):
        ConcordanceProfileDisplay.from_result(result, ax=ax, name=name)
        ax.set_title(name)
    caption = (
        "Per case, from the highest prediction down: the share of its pairs the model orders "
        "right (solid), the best it could reach (dashed); cases below 50% are strongly out of "
        "place (Rosset, Perlich & Zadrozny 2005, Fig. 1)."
    )
    return "Concordance profile", caption, fig, "wide" if columns > 1 else ""


def _simple(
    kind: str,
    title: str,
    caption: str,
    *,
    ylabel: str = "",
    when: Callable[[Any], bool] | None = None,
) -> Callable[[Any], Any]:
    """A plot of the registered curve ``kind``, every model on one axes, by the curve's Display
    (``ylabel`` replaces the Display's axis label; ``when`` says whether the plot says anything
    for this evaluation)."""
    display = get_curve(kind).display
    if display is None:
        raise ValueError(f"no Display draws the curve {kind!r}; register one in ranklens.plot")

    def build(ev: Any) -> Built | None:
        results = ev.curves.get(kind)
        if not results or (when is not None and not when(ev)):
            return None
        fig = _overlay(display, results)
        if ylabel:
            fig.axes[0].set_ylabel(ylabel)
        return title, caption, fig, ""

    # Its interactive chart: any registered curve is drawn from its x and y fields
    # (charts.curve_chart), so a curve added to BUILDERS with _simple is interactive at once.
    CHARTS[build] = functools.partial(charts.curve_chart, kind)
    return build


def any_extreme_caught(ev: Any) -> bool:
    """Whether some model has a positive utility F1 (else the precision-recall plot is empty,
    and the section says why in words)."""
    values = [ev.values.get(m, {}).get("utility_f1") for m in ev.model_names]
    return any(v is not None and math.isfinite(v) and v > 0 for v in values)


def _relevance(ev: Any) -> Built | None:
    relevance = ev.extras.get("relevance")
    if relevance is None:
        return None
    fig, (ax,) = _new_figure()
    threshold = ev.settings.get("event_threshold", _default_event_threshold())
    RelevanceDisplay.from_relevance(
        relevance, y=ev.extras.get("y_true"), event_threshold=threshold, ax=ax
    )
    _plain_legend(ax)
    caption = (
        "How much each target value matters (Torgo & Ribeiro 2009, Fig. 1), over the "
        "distribution of the evaluated target (grey); values above the dashed threshold are events."
    )
    return "Relevance function", caption, fig, ""


def _default_event_threshold() -> float | None:
    import inspect

    return inspect.signature(regression_precision_recall).parameters["event_threshold"].default


def _agreement(ev: Any) -> Built | None:
    result = ev.extras.get("metric_agreement")
    if result is None or len(result.metrics) < 2:
        return None
    # Torgo & Ribeiro (2009, Fig. 2) set an average error against the utility F measure; failing
    # that, an average error against the rank correlation makes Rosset et al.'s (2005) point.
    metrics = _agreement_metrics(result)
    fig, (ax,) = _new_figure()
    MetricAgreementDisplay.from_result(result, ax=ax, metrics=metrics)
    a, b = (result.metrics.index(m) for m in metrics)
    caption = (
        f"{len(result.models)} candidate models ranked by {metrics[0]} and by "
        f"{metrics[1]} (Torgo & Ribeiro 2009, Fig. 2); Kendall tau between the rankings "
        f"{_num(result.kendall_tau[a, b])}. Points far from the diagonal are models the "
        "two measures judge differently; undefined scores rank last."
    )
    return "Do the measures pick the same models?", caption, fig, ""


def _intervals(ev: Any) -> Built | None:
    results = ev.curves.get("intervals")
    if not results:
        return None
    fig, axes = _new_figure(len(results), columns=1)
    for ax, (name, result) in zip(axes, results.items(), strict=True):
        IntervalDisplay.from_result(result, ax=ax, name=name)
    alpha = ev.settings.get("alpha")
    nominal = f" (nominal {100 * (1 - alpha):g}%)" if alpha else ""
    caption = (
        f"Intervals (band), point predictions (line) and the truth (dots; red outside "
        f"the interval){nominal}, cases ordered by prediction."
    )
    return "Intervals against the truth", caption, fig, ""


def _bands(ev: Any) -> Built | None:
    result = ev.extras.get("bands", {}).get("cutoff_auc")
    if result is None:
        return None
    show_pairs = 0 < len(result.pairs) <= _MAX_PAIRS_DRAWN
    fig, axes = _new_figure(2 if show_pairs else 1, columns=2 if show_pairs else 1, wide=show_pairs)
    CurveBandsDisplay.from_result(result, ax=axes[0])
    if show_pairs:
        BeatProbabilityDisplay.from_result(result, ax=axes[1])
    level = round(100 * result.confidence_level)
    caption = (
        f"Left: each model's AUC at every cutoff (true top share counted as positive) "
        f"with its pointwise {level}% bootstrap band. Right: share of paired replicates "
        "in which the first model of a pair is ahead; beyond the dotted 95%/5% lines one "
        "model wins in at least 95% of resamples (Rosset, Perlich & Zadrozny 2005, Fig. 5)."
    )
    return "AUC by cutoff with bootstrap bands", caption, fig, "wide" if show_pairs else ""


#: More pairs than this make the pairwise plot unreadable (it is left out).
_MAX_PAIRS_DRAWN = 6


def _num(value: Any) -> str:
    return format_number(value, 3)


def _relevance_chart(ev: Any) -> Spec | None:
    relevance = ev.extras.get("relevance")
    if relevance is None:
        return None
    threshold = ev.settings.get("event_threshold", _default_event_threshold())
    return charts.relevance_chart(relevance, ev.extras.get("y_true"), threshold)


def _agreement_metrics(result: Any) -> list[str]:
    """The two measures the agreement plot sets against each other: Torgo & Ribeiro's (2009,
    Fig. 2) average error against the utility F measure; failing that, an average error
    against the rank correlation (Rosset et al.'s 2005 point); else the first two."""
    for pair in (("mean_absolute_error", "utility_f1"), ("mean_absolute_error", "kendall_tau")):
        if all(m in result.metrics for m in pair):
            return list(pair)
    return list(result.metrics[:2])


def _agreement_chart(ev: Any) -> Spec | None:
    result = ev.extras.get("metric_agreement")
    if result is None or len(result.metrics) < 2:
        return None
    return charts.agreement_chart(result, _agreement_metrics(result))


def _intervals_chart(ev: Any) -> Spec | None:
    results = ev.curves.get("intervals")
    if not results:
        return None
    return charts.intervals_chart(results, list(ev.model_names))


def _forest_chart(k: int) -> Callable[[Any], Spec | None]:
    def chart(ev: Any) -> Spec | None:
        seg = shown_segments(ev)
        if seg is None or k >= len(seg.metrics):
            return None
        metric = seg.metrics[k]
        return charts.forest_chart(seg, metric, x_title=plain_name(metric) + better_words(metric))

    return chart


def _window_chart(k: int) -> Callable[[Any], Spec | None]:
    def chart(ev: Any) -> Spec | None:
        result = getattr(ev, "windows", None)
        if result is None or k >= len(result.metrics):
            return None
        metric = result.metrics[k]
        return charts.window_chart(
            result, metric, y_title=plain_name(metric) + better_words(metric)
        )

    return chart


CHARTS.update(
    {
        bands_view: charts.auc_bands_chart,
        concordance_view: charts.concordance_chart,
        cutoff_auc_view: charts.cutoff_auc_chart,
        gain_bands_view: charts.gain_bands_chart,
        decile_panels: charts.decile_chart,
        calibration_view: charts.calibration_chart,
        reliability_view: charts.reliability_chart,
        predicted_vs_actual: charts.predicted_actual_chart,
        residuals_view: charts.residuals_chart,
        _relevance: _relevance_chart,
        _agreement: _agreement_chart,
        _intervals: _intervals_chart,
    }
)
CHARTS.update({build: _forest_chart(k) for k, build in enumerate(FOREST_VIEWS)})
CHARTS.update({build: _window_chart(k) for k, build in enumerate(WINDOW_VIEWS)})


def _in_section(build: Callable[[Any], Built | None], *, probabilities: bool) -> Any:
    """``build`` drawn only in the section Probabilities of a 0/1 target with probability
    scores (``probabilities``), or only outside it (the section on the size of the errors of
    any other evaluation), with the same interactive chart."""

    def drawn(ev: Any) -> Built | None:
        return build(ev) if probabilities_shown(ev) == probabilities else None

    drawn.__name__ = f"{build.__name__}_{'probabilities' if probabilities else 'errors'}"
    CHARTS[drawn] = lambda ev: CHARTS[build](ev)  # read when drawn: a replaced chart too
    return drawn


#: Section -> plot builders, in display order.
BUILDERS: dict[str, tuple[Callable[[Any], Built | None], ...]] = {
    "comparison": (bands_view,),
    "ranking": (
        concordance_view,
        cutoff_auc_view,
        _simple(
            "rank_lift",
            "Rank lift",
            "How much of the true order is reached by targeting the top predictions, between "
            "the best and the worst possible order (Rosset, Perlich & Zadrozny 2005, Fig. 3).",
            ylabel="share of the true order reached",
        ),
    ),
    "targeting": (
        gain_bands_view,
        decile_panels,
        _simple(
            "value_gain",
            "Value captured",
            "Share of the total target value captured by targeting the top predictions: "
            "what a wallet targeter wants.",
        ),
        _simple(
            "roc",
            "ROC curve",
            "True against false positive rate as the threshold falls.",
        ),
        _simple(
            "binary_precision_recall",
            "Precision-recall curve",
            "Precision (share of events among the cases targeted) against recall (share of all "
            "events found) as the threshold falls, drawn as the steps the average precision "
            "(AP, in the legend) sums; the dotted line is the event share, the precision of a "
            "random score (Davis & Goadrich 2006).",
        ),
        _simple(
            "profit",
            "Profit",
            "Profit against depth; circle = best depth, square = best within the budget, "
            "vertical line = the deepest the budget pays for.",
        ),
    ),
    "extremes": (
        _relevance,
        _simple(
            "precision_recall",
            "Precision and recall over the event threshold",
            "Utility-based precision (solid), recall (dashed) and F (dotted) as the "
            "relevance needed to count as an event rises (Torgo & Ribeiro 2009).",
            when=any_extreme_caught,
        ),
        _agreement,
    ),
    "probabilities": (
        _in_section(calibration_view, probabilities=True),
        _in_section(reliability_view, probabilities=True),
    ),
    "errors": (
        predicted_vs_actual,
        residuals_view,
        _in_section(calibration_view, probabilities=False),
        _in_section(reliability_view, probabilities=False),
        _simple(
            "rec",
            "REC curve",
            "Share of cases within each absolute-error tolerance; area over the curve = "
            "mean absolute error.",
        ),
        _simple(
            "rroc",
            "RROC curve",
            "Over- against under-estimation as a constant shift is added; dots = the "
            "models as fitted.",
        ),
    ),
    "intervals": (_intervals,),
    "segments": FOREST_VIEWS,
    "windows": WINDOW_VIEWS,
}


@shared_paragraphs
def build_figures(
    evaluation: Any, *, prefix: str = "", interactive: bool = True
) -> dict[str, list[FigureView]]:
    """Every plot the evaluation has data for, by report section (empty without matplotlib).

    A plot that fails to draw is left out with a note in its place rather than breaking the
    report. A plot with an interactive chart (:data:`CHARTS`) is that chart; if its
    specification cannot be built, the plot is shown as SVG with a
    :class:`~ranklens.exceptions.RanklensWarning` naming the error.

    Parameters
    ----------
    %(evaluation)s
    prefix : str, default ''
        Prefix of the element ids, so that several evaluations share one page.
    interactive : bool, default True
        Whether plots with an interactive chart are shown as charts (else every plot is SVG).

    Returns
    -------
    dict of str to list of FigureView
        The figures of each report section.

    References
    ----------
    %(rosset2005)s

    %(torgo2009)s

    %(provost2013)s
    """
    try:
        import matplotlib
    except ImportError:
        return {}
    out: dict[str, list[FigureView]] = {}
    with matplotlib.rc_context(_STYLE):
        for section, builders in BUILDERS.items():
            views = []
            for k, build in enumerate(builders):
                try:
                    built = build(evaluation)
                    if built is None:
                        continue
                    title, caption, figure, css = built
                    chart = CHARTS.get(build) if interactive else None
                    spec, image = None, ""
                    if chart is not None:
                        spec, image = _chart(chart, evaluation, title, f"{prefix}-{section}-{k}")
                    if spec is None:
                        # drawing happens here (layout, ticks): inside the guard like the
                        # building
                        image = figure_to_img(figure, alt=title, salt=f"{prefix}{section}{k}")
                except Exception as exc:  # a broken plot must not lose the whole report
                    message = f"{type(exc).__name__}: {exc}"
                    views.append(
                        FigureView(
                            title="Plot unavailable",
                            caption=message,
                            image="",
                            error=f"{section} plot {k + 1}: {message}",
                        )
                    )
                    continue
                views.append(
                    FigureView(
                        title=title,
                        caption=caption,
                        image=image,
                        css=_chart_css(css, spec),
                        chart=spec is not None,
                    )
                )
            if views:
                out[section] = views
    return out


def _chart(
    chart: Callable[[Any], Spec | None], evaluation: Any, title: str, key: str
) -> tuple[Spec | None, str]:
    """The chart's specification and HTML; ``(None, "")`` when the evaluation has no data for
    it or, with a warning, when it cannot be built (the plot is then shown as SVG)."""
    try:
        spec = chart(evaluation)
        if spec is None:
            return None, ""
        return spec, charts.chart_html(spec, element_id=f"chart-{key}", alt=title)
    except Exception as exc:
        warnings.warn(
            f"the interactive chart {title!r} could not be built ({type(exc).__name__}: {exc}); "
            "the report shows it as a static image",
            RanklensWarning,
            stacklevel=3,
        )
        return None, ""


def _chart_css(css: str, spec: Spec | None) -> str:
    """The figure's classes: ``chart`` for an interactive chart, and ``wide`` for one of
    several panels (they have a fixed width per panel)."""
    if spec is None:
        return css
    classes = css.split()
    if any(key in spec for key in ("concat", "hconcat", "vconcat")) and "wide" not in classes:
        classes.append("wide")
    return " ".join([*classes, "chart"])
