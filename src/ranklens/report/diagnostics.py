"""The report's own plots: the four-panel decile view, regression diagnostics, a binned
concordance profile and the cutoff-AUC views without their edge artefacts.

Each builder takes a :class:`~ranklens.evaluation.ModelEvaluation` and returns ``(title,
caption, figure, css)`` or None when its data are absent. They draw stored results (decile
tables, concordance profiles, cutoff-AUC curves and bands) and the evaluated truth and
predictions; the only arithmetic is what a plot needs (bin means, a histogram), never a measure.
An evaluation without rows (the Dask engine's) has in ``extras["row_summaries"]`` the exact
summaries (group means, histogram counts, a density grid) from which predicted against actual,
the residuals and calibration by decile are drawn instead.
Legends list the models first and the baselines (random, perfect) last.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
doi:10.1109/ICDM.2005.126

Provost, F. and Fawcett, T. (2013). *Data Science for Business*, ch. 8. O'Reilly Media.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.events import events_words
from ranklens._foundation.format import plain_number
from ranklens._foundation.scaling import ldexp, scaled

__all__ = [
    "bands_view",
    "calibration_groups",
    "calibration_view",
    "concordance_bins",
    "concordance_view",
    "cutoff_auc_view",
    "decile_panels",
    "is_binary",
    "long_tailed",
    "order_legend",
    "predicted_vs_actual",
    "probabilities_shown",
    "residual_histograms",
    "residuals_view",
    "rows_of",
    "stable_cutoffs",
    "target_is_binary",
]

Built = tuple[str, str, Any, str]

#: Above this many cases, scatter plots become hexbin densities and per-case profiles bin means.
LARGE_N = 2_000
#: Cutoffs with fewer cases than this on either side are left out of the cutoff-AUC views.
_MIN_SIDE = 10
_BASELINE_COLOR = "#9e9e9e"


def _figure(rows: int, columns: int, *, width: float = 6.2, height: float = 4.3) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(
        figsize=(
            width * columns / (2 if columns > 1 else 1) * (1.6 if columns > 1 else 1),
            height * rows * (0.85 if rows > 1 else 1),
        ),
        layout="constrained",
    )
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    return fig, axes


def order_legend(ax: Any, models: Sequence[str], **kwargs: Any) -> None:
    """Redraw ``ax``'s legend with the models' entries first, in the order given, and every
    other entry (random, perfect, reference lines) after them."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return

    def rank(label: str) -> tuple[int, int]:
        for k, model in enumerate(models):
            if label == model or label.startswith(f"{model} ") or label.startswith(f"{model}:"):
                return 0, k
        return 1, 0

    order = sorted(range(len(labels)), key=lambda i: rank(labels[i]))
    old = ax.get_legend()
    loc = kwargs.pop("loc", None) or (old._loc if old is not None else "best")
    ax.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        loc=loc,
        fontsize="small",
        frameon=False,
        **kwargs,
    )


def is_binary(y: Any) -> bool:
    """Whether the evaluated truth takes at most two values (a 0/1 response).

    Two passes over the values rather than a sort: the report asks this of every view.
    """
    if y is None:
        return False
    values = np.asarray(y).ravel()
    if values.dtype.kind not in "biuf" or (values.dtype.kind == "f" and np.isnan(values).any()):
        return np.unique(values).size <= 2  # NaN (one value to np.unique) or not numbers
    others = values[values != values[0]] if values.size else values
    return others.size == 0 or bool(np.all(others == others[0]))


def target_is_binary(ev: Any) -> bool:
    """Whether the evaluation's truth takes at most two values: from its rows where it holds
    them (the in-memory pipeline), else from the distinct values counted by the Dask engine's
    row summaries (up to three kept)."""
    y = ev.extras.get("y_true")
    if y is not None:
        return is_binary(y)
    for summary in (ev.extras.get("row_summaries") or {}).values():
        return len(summary.y_values) <= 2
    return False


def probabilities_shown(ev: Any) -> bool:
    """Whether a 0/1 target's report has the section Probabilities, which then takes the
    calibration views of the section on the size of the errors: some model's Brier score is a
    number (its scores are probabilities)."""
    if not target_is_binary(ev):
        return False
    values = [ev.values.get(m, {}).get("brier_score_loss") for m in ev.model_names]
    return any(v is not None and math.isfinite(float(v)) for v in values)


def _colors(models: Sequence[str]) -> dict[str, Any]:
    import matplotlib

    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
    return {m: cycle[k % len(cycle)] for k, m in enumerate(models)}


# --------------------------------------------------------------------------------------------
# Targeting: the four panels of a decile report


def decile_panels(ev: Any) -> Built | None:
    """Cumulative gain, lift, decile-wise lift and KS by decile, every model on each axes."""
    tables = ev.curves.get("decile_table")
    if not tables:
        return None
    models = list(tables)
    colors = _colors(list(ev.model_names))
    fig, axes = _figure(2, 2, width=6.2, height=3.6)
    gain, lift, bin_lift, ks = axes
    width = 0.8 / max(len(models), 1)
    for k, (model, t) in enumerate(tables.items()):
        x = np.concatenate([[0.0], np.asarray(t.fraction_end, float)])
        color = colors.get(model)
        gain.plot(
            x,
            np.concatenate([[0.0], t.cumulative_gain]),
            marker="o",
            ms=3,
            color=color,
            label=model,
        )
        lift.plot(t.fraction_end, t.lift, marker="o", ms=3, color=color, label=model)
        deciles = np.asarray(t.bin, float)
        bin_lift.bar(
            deciles - 0.4 + width * (k + 0.5), t.bin_lift, width=width, color=color, label=model
        )
        ks.plot(t.fraction_end, t.ks, marker="o", ms=3, color=color, label=model)
        j = int(np.nanargmax(t.ks)) if np.isfinite(t.ks).any() else -1
        if j >= 0:
            ks.annotate(
                f"{100 * float(t.ks[j]):.0f}",
                (float(t.fraction_end[j]), float(t.ks[j])),
                textcoords="offset points",
                xytext=(0, 6),
                ha="center",
                fontsize=7,
                color=color,
            )
            ks.plot(
                [t.fraction_end[j]], [t.ks[j]], marker="*", ms=10, color=color, linestyle="none"
            )
    gain.plot([0, 1], [0, 1], linestyle="--", color=_BASELINE_COLOR, label="random")
    lift.axhline(1.0, linestyle="--", color=_BASELINE_COLOR, label="random")
    bin_lift.axhline(1.0, linestyle="--", color=_BASELINE_COLOR, label="random")
    for ax, title, ylabel in (
        (gain, "Cumulative gain", "share of events captured"),
        (lift, "Lift", "times better than random"),
        (bin_lift, "Decile-wise lift", "decile's rate / overall rate"),
        (ks, "KS statistic (peak marked)", "events minus non-events captured"),
    ):
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.set_xlabel("decile" if ax is bin_lift else "share of cases targeted")
    order_legend(gain, models, loc="lower right")  # one legend: the colours are shared
    bin_lift.set_xticks(range(1, 11))
    from matplotlib.ticker import PercentFormatter

    for ax in (gain, lift, ks):
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    gain.yaxis.set_major_formatter(PercentFormatter(1.0))
    ks.yaxis.set_major_formatter(PercentFormatter(1.0))
    events = events_words(next(iter(tables.values())).event_definition)
    caption = (
        f"The decile report of a campaign (events: {events}). Top left: share of all events "
        "reached against the share of cases contacted, highest scores first. Top right: how "
        "many times better than random that is. Bottom left: each decile's own event rate "
        "against the average. Bottom right: the gap between events and non-events reached; "
        "the star marks each model's largest gap (the KS statistic at decile resolution)."
    )
    return "Decile report: gain, lift, decile lift and KS", caption, fig, "wide"


# --------------------------------------------------------------------------------------------
# Regression diagnostics


def _pairs(ev: Any) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
    y = ev.extras.get("y_true")
    predictions = ev.extras.get("predictions") or {}
    return (None if y is None else np.asarray(y, float)), {
        m: np.asarray(p, float) for m, p in predictions.items()
    }


def _summaries(ev: Any) -> dict[str, Any]:
    """The Dask engine's exact summaries of the rows (``extras["row_summaries"]``: model -> a
    ``RowSummary``), where the evaluation holds no rows; else empty."""
    if ev.extras.get("y_true") is not None:
        return {}
    return dict(ev.extras.get("row_summaries") or {})


def _summary_binary(summaries: dict[str, Any]) -> bool:
    return any(len(s.y_values) <= 2 for s in summaries.values())


def _density_view(ev: Any, summaries: dict[str, Any]) -> Built | None:
    """Predicted against actual from the counts on a fixed grid (no rows on the client)."""
    from matplotlib.colors import LogNorm

    if _summary_binary(summaries):
        return None
    models = list(summaries)
    columns = 2 if len(models) > 1 else 1
    rows = math.ceil(len(models) / columns)
    fig, axes = _figure(rows, columns, height=3.6)
    for ax in axes[len(models) :]:
        ax.set_visible(False)
    logs = False
    for ax, model in zip(axes, models, strict=False):
        s = summaries[model]
        logs = bool(s.log_axes)
        counts = np.ma.masked_equal(np.asarray(s.density, float).T, 0.0)
        if counts.count():
            ax.pcolormesh(
                s.x_edges, s.y_edges, counts, cmap="Blues", norm=LogNorm(vmin=1.0), linewidth=0
            )
            ax.use_sticky_edges = False  # margins around the grid, as around the hexagons
        lo, hi = min(s.y_min, s.pred_min), max(s.y_max, s.pred_max)
        _pred_actual_panel(ax, model, lo, hi, logs)
    grid = next(iter(summaries.values())).density.shape
    caption = (
        f"Predicted against actual, density of cases: the number of cases in each cell of a "
        f"{grid[0]} x {grid[1]} grid (log colour scale)"
        + (" (both axes logarithmic: the target is long-tailed)" if logs else "")
        + "; on the dashed line the prediction is exact. Cells above it are under-predicted, "
        "below it over-predicted."
    )
    return "Predicted against actual", caption, fig, "wide" if columns > 1 else ""


def _log_axes(ax: Any) -> None:
    """Both axes logarithmic, ticks labelled as plain numbers (``1,000``, ``1 million``).

    The report draws every text verbatim (``text.parse_math`` off, so that users' column names
    are never read as mathtext); matplotlib's default log-axis labels are mathtext
    (``$\\mathdefault{10^{3}}$``) and would be printed as that raw text.
    """
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda value, _: plain_number(value)))
        axis.set_minor_formatter(NullFormatter())


def _pred_actual_panel(ax: Any, model: str, lo: float, hi: float, logs: bool) -> None:
    """One model's panel of predicted against actual, around its points or density: the
    diagonal from ``lo`` to ``hi``, log axes with ``logs``, titles and the legend."""
    ax.plot([lo, hi], [lo, hi], linestyle="--", color=_BASELINE_COLOR, label="predicted = actual")
    if logs:
        _log_axes(ax)
    ax.set_title(model)
    ax.set_xlabel("predicted")
    ax.set_ylabel("actual")
    ax.legend(loc="upper left", fontsize="small", frameon=False)


def long_tailed(y: np.ndarray, predictions: dict[str, np.ndarray]) -> bool:
    """Whether predicted against actual reads better on log axes: every value positive and the
    largest truth above 20 times the median (a long-tailed target such as a wallet)."""
    finite = np.isfinite(y)
    if not finite.any():
        return False
    everything = np.concatenate([y[finite], *(p[np.isfinite(p)] for p in predictions.values())])
    high = float(np.max(y[finite]))
    return bool(everything.min() > 0 and high > 20 * np.median(y[finite]))


def rows_of(ev: Any) -> tuple[np.ndarray | None, dict[str, np.ndarray]]:
    """The evaluated truth (None without rows) and every model's predictions, as float arrays."""
    return _pairs(ev)


def predicted_vs_actual(ev: Any) -> Built | None:
    """Predicted against actual, one panel per model (a hexbin density for large data; from
    the Dask engine's summaries, the density on a fixed grid)."""
    summaries = _summaries(ev)
    if summaries:
        return _density_view(ev, summaries)
    y, predictions = _pairs(ev)
    if y is None or not predictions or is_binary(y):
        return None
    models = list(predictions)
    columns = 2 if len(models) > 1 else 1
    rows = math.ceil(len(models) / columns)
    fig, axes = _figure(rows, columns, height=3.6)
    for ax in axes[len(models) :]:
        ax.set_visible(False)
    finite = np.isfinite(y)
    low, high = float(np.nanmin(y)), float(np.nanmax(y))
    large = y.size > LARGE_N
    logs = long_tailed(y, predictions)
    for ax, model in zip(axes, models, strict=False):
        p = predictions[model]
        keep = finite & np.isfinite(p)
        lo, hi = min(low, float(p[keep].min())), max(high, float(p[keep].max()))
        if large:
            ax.hexbin(
                p[keep],
                y[keep],
                gridsize=40,
                bins="log",
                cmap="Blues",
                mincnt=1,
                xscale="log" if logs else "linear",
                yscale="log" if logs else "linear",
            )
        else:
            ax.scatter(p[keep], y[keep], s=6, alpha=0.5, linewidths=0)
        _pred_actual_panel(ax, model, lo, hi, logs)
    how = "density of cases (log colour scale)" if large else "one dot per case"
    caption = (
        f"Predicted against actual, {how}"
        + (" (both axes logarithmic: the target is long-tailed)" if logs else "")
        + "; on the dashed line the prediction is exact. Points above it are under-predicted, "
        "below it over-predicted."
    )
    return "Predicted against actual", caption, fig, "wide" if columns > 1 else ""


def residual_histograms(
    ev: Any,
) -> dict[str, tuple[np.ndarray, np.ndarray, float]] | None:
    """Per model, the histogram of the residuals (actual minus predicted): bin edges, counts
    and the median residual; None without rows (or on a 0/1 target).

    From the rows: 40 equal bins between the 0.5% and 99.5% quantiles of every model's
    residuals together, the outer cases piled into the end bins. From the Dask engine's
    summaries: the same bins' exact counts.
    """
    summaries = _summaries(ev)
    if summaries:
        if _summary_binary(summaries):
            return None
        return {
            m: (
                np.asarray(s.residual_edges, float),
                np.asarray(s.residual_counts, float),
                float(s.median_residual),
            )
            for m, s in summaries.items()
        }
    y, predictions = _pairs(ev)
    if y is None or not predictions or is_binary(y):
        return None
    residuals = {m: (y - p)[np.isfinite(y - p)] for m, p in predictions.items()}
    everything = np.concatenate(list(residuals.values()))
    if everything.size == 0:
        return None
    low, high = np.quantile(everything, [0.005, 0.995])
    if not high > low:
        low, high = float(everything.min()) - 0.5, float(everything.max()) + 0.5
    edges = np.linspace(low, high, 41)
    return {
        m: (
            edges,
            np.histogram(np.clip(r, low, high), bins=edges)[0].astype(float),
            float(np.median(r)) if r.size else math.nan,
        )
        for m, r in residuals.items()
    }


def residuals_view(ev: Any) -> Built | None:
    """The distribution of the residuals (actual minus predicted) of every model (from the
    Dask engine's summaries: the same bins' exact counts)."""
    histograms = residual_histograms(ev)
    if histograms is None:
        return None
    fig, (ax,) = _figure(1, 1)
    colors = _colors(list(ev.model_names))
    models = list(histograms)
    for model, (edges, counts, median) in histograms.items():
        ax.hist(
            edges[:-1],
            bins=edges,
            weights=counts,
            histtype="step",
            linewidth=1.4,
            color=colors.get(model),
            label=f"{model} (median {plain_number(median, 3)})",
        )
    ax.axvline(0.0, linestyle="--", color=_BASELINE_COLOR, label="no error")
    ax.set_xlabel("residual: actual minus predicted")
    ax.set_ylabel("cases")
    order_legend(ax, models, loc="upper right")
    caption = (
        "How far off the predictions are, and in which direction: a curve centred right of the "
        "dashed line means the model predicts too low. The outer 0.5% on each side are piled "
        "into the end bins."
    )
    return "Residuals", caption, fig, ""


def calibration_groups(ev: Any) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per model, each decile group's mean prediction, mean actual and standard error of the
    latter: from the rows, or from the Dask engine's summaries."""
    summaries = _summaries(ev)
    if summaries:
        return {
            m: (
                np.asarray(s.mean_predicted, float),
                np.asarray(s.mean_true, float),
                np.asarray(s.std_error, float),
            )
            for m, s in summaries.items()
        }
    y, predictions = _pairs(ev)
    if y is None or not predictions:
        return {}
    out = {}
    for model, p in predictions.items():
        keep = np.isfinite(p) & np.isfinite(y)
        order = np.argsort(p[keep], kind="stable")
        groups = np.array_split(order, min(10, max(1, int(keep.sum()))))
        pm = np.array([_mean_and_se(p[keep][g])[0] for g in groups if g.size])
        ym, se = np.array([_mean_and_se(y[keep][g]) for g in groups if g.size]).reshape(-1, 2).T
        out[model] = (pm, ym, se)
    return out


def _mean_and_se(values: np.ndarray) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (NaN for one value), without overflow:
    the values are scaled into [0.5, 1) by a power of two first (the same digits), so values
    near 1e307 give their mean rather than inf."""
    xs, e = scaled(values)
    se = xs.std(ddof=1) / math.sqrt(xs.size) if xs.size > 1 else math.nan
    return ldexp(float(xs.mean()), e), ldexp(float(se), e)


def calibration_view(ev: Any) -> Built | None:
    """Mean actual against mean predicted in each decile of prediction, with 95% intervals."""
    groups = calibration_groups(ev)
    if not groups:
        return None
    fig, (ax,) = _figure(1, 1)
    colors = _colors(list(ev.model_names))
    lo, hi = math.inf, -math.inf
    for model, (pm, ym, se) in groups.items():
        ax.errorbar(
            pm,
            ym,
            yerr=1.96 * se,
            marker="o",
            ms=4,
            capsize=2,
            linewidth=1.2,
            color=colors.get(model),
            label=model,
        )
        # the finite ends only: a group of one case has no interval (se NaN)
        ends = np.concatenate([pm, ym, ym - 1.96 * se, ym + 1.96 * se])
        ends = ends[np.isfinite(ends)]
        if ends.size:
            lo, hi = min(lo, float(ends.min())), max(hi, float(ends.max()))
    if math.isfinite(lo) and math.isfinite(hi):
        ax.plot(
            [lo, hi], [lo, hi], linestyle="--", color=_BASELINE_COLOR, label="perfectly calibrated"
        )
    ax.set_xlabel("mean predicted, by decile of prediction")
    ax.set_ylabel("mean actual")
    order_legend(ax, list(groups), loc="upper left")
    caption = (
        "The cases split into ten groups by prediction: each point is a group's average "
        "prediction against its average actual value, with a 95% interval for the latter. On "
        "the dashed line the predictions are right on average."
    )
    return "Calibration by decile", caption, fig, ""


def _band_sentence(band_model: str | None, level: float) -> str:
    """What the reliability diagram's band shows, or why there is none (a run without
    resampling draws no band)."""
    if band_model is None:
        return (
            "No consistency band: the evaluation drew no resamples (n_bootstrap=0, "
            "--bootstrap 0 on the command line)."
        )
    return (
        f"The shaded band around {band_model} (the lowest mean squared error) is where its "
        f"curve would lie {100 * level:.0f}% of the time if its predictions were already "
        "calibrated."
    )


def reliability_view(ev: Any) -> Built | None:
    """The reliability diagram: each model's recalibrated against its original predictions,
    as step curves on one panel, the diagonal, and the consistency band of the model with the
    lowest mean squared error."""
    block = ev.extras.get("calibration")
    if not isinstance(block, dict) or not block.get("diagrams"):
        return None
    diagrams = block["diagrams"]
    fig, (ax,) = _figure(1, 1, width=6.2, height=4.8)
    colors = _colors(list(ev.model_names))
    lo, hi = math.inf, -math.inf
    band_model = block.get("band_model")
    for model, result in diagrams.items():
        x, y = np.asarray(result.prediction, float), np.asarray(result.recalibrated, float)
        if not x.size:
            continue
        color = colors.get(model)
        if model == band_model and np.isfinite(result.band_low).any():
            ax.fill_between(
                x,
                result.band_low,
                result.band_high,
                step="post",
                color=color,
                alpha=0.15,
                linewidth=0,
                label=f"{model}: consistency band",
            )
        ax.step(x, y, where="post", color=color, linewidth=1.4, label=model)
        ends = np.concatenate([x, y])
        ends = ends[np.isfinite(ends)]
        lo, hi = min(lo, float(ends.min())), max(hi, float(ends.max()))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    ax.plot([lo, hi], [lo, hi], linestyle="--", color=_BASELINE_COLOR, label="calibrated")
    # the curves and the diagonal set the scale; a band's far tail is clipped, not shown whole
    margin = 0.05 * (hi - lo) if hi > lo else 1.0
    ax.set_ylim(lo - margin, hi + margin)
    ax.set_xlabel("prediction")
    ax.set_ylabel("recalibrated prediction")
    # below the panel, off the data, in rows that fit a narrow page
    order_legend(ax, list(diagrams), loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    level = next(iter(diagrams.values())).confidence_level
    caption = (
        "Each step curve is a model's predictions after the best monotone recalibration: "
        "where it follows the dashed diagonal the predictions are right on average, and the "
        "further away it runs, the more a recalibration would remove. "
        + _band_sentence(band_model, level)
    )
    return "Reliability diagram", caption, fig, ""


# --------------------------------------------------------------------------------------------
# Ranking views


def concordance_bins(result: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A concordance profile in at most 50 groups of consecutive cases (at least 10 each where
    there are enough): each group's centre (share of cases), its mean share of pairs ordered
    right and its mean best reachable share."""
    values = np.asarray(result.fraction_correct, float)
    envelope = np.asarray(result.envelope, float)
    n = values.size
    groups = np.array_split(np.arange(n), max(1, min(50, n // 10)))
    x = np.array([(g.mean() + 0.5) / n for g in groups])
    return (
        x,
        np.array([values[g].mean() for g in groups]),
        np.array([envelope[g].mean() for g in groups]),
    )


def concordance_view(ev: Any) -> Built | None:
    """The concordance profile binned into at most 50 groups of cases, every model on one
    axes: the mean share of pairs ordered right per group (solid) and the best reachable
    (dashed)."""
    results = ev.curves.get("concordance_profile")
    if not results:
        return None
    fig, (ax,) = _figure(1, 1, width=6.2)
    colors = _colors(list(ev.model_names))
    below = []
    for model, r in results.items():
        values = np.asarray(r.fraction_correct, float)
        x, correct, best = concordance_bins(r)
        color = colors.get(model)
        ax.plot(
            x,
            correct,
            color=color,
            linewidth=1.6,
            label=f"{model} ({100 * r.area:.1f}% of pairs right)",
        )
        ax.plot(
            x,
            best,
            color=color,
            linewidth=1.0,
            linestyle="--",
            alpha=0.7,
        )
        below.append(f"{model} {int((values < 0.5).sum()):,}")
    ax.plot([], [], color=_BASELINE_COLOR, linestyle="--", label="dashed: best reachable")
    ax.axhline(0.5, color=_BASELINE_COLOR, linestyle=":", linewidth=1, label="chance (50%)")
    from matplotlib.ticker import PercentFormatter

    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("cases, highest prediction first (share of cases)")
    ax.set_ylabel("pairs ordered right (mean per group)")
    order_legend(ax, list(results), loc="lower left")
    caption = (
        "For each group of cases, from the highest prediction down, the average share of the "
        "pairs containing a case that the model orders right (solid) and the best it could "
        "reach by moving that case alone (dashed); dips show where the order goes wrong. Cases "
        f"ordered right in fewer than half their pairs: {', '.join(below)} (Rosset, Perlich & "
        "Zadrozny 2005, Fig. 1)."
    )
    return "Concordance profile", caption, fig, ""


def stable_cutoffs(n_positive: np.ndarray, n: int) -> np.ndarray:
    """Cutoffs with at least ``max(10, 1% of n)`` cases on each side."""
    side = max(_MIN_SIDE, math.ceil(0.01 * n))
    return (n_positive >= side) & (n - n_positive >= side)


def cutoff_auc_view(ev: Any) -> Built | None:
    """Each model's AUC at every cutoff (true top share as positives), stable cutoffs only."""
    results = ev.curves.get("cutoff_auc")
    if not results or target_is_binary(ev):
        return None
    fig, (ax,) = _figure(1, 1)
    colors = _colors(list(ev.model_names))
    n = ev.n
    for model, r in results.items():
        keep = stable_cutoffs(np.asarray(r.n_positive), n) & np.isfinite(r.auc)
        if not keep.any():
            continue
        ax.plot(
            np.asarray(r.fraction_positive)[keep],
            np.asarray(r.auc)[keep],
            color=colors.get(model),
            linewidth=1.3,
            label=f"{model} (area {r.area:.3f})",
        )
    ax.axhline(0.5, linestyle="--", color=_BASELINE_COLOR, label="random")
    from matplotlib.ticker import PercentFormatter

    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("size of the true top counted as positive (share of cases)")
    ax.set_ylabel("AUC at that cutoff")
    order_legend(ax, list(results), loc="lower left")
    side = max(_MIN_SIDE, math.ceil(0.01 * n))
    caption = (
        "How well each model separates the true top cases from the rest, for every size of the "
        "top; high on the left means the largest values are ranked well. Cutoffs with fewer "
        f"than {side} cases on either side are left out: an AUC from so few cases is noise "
        "(Rosset, Perlich & Zadrozny 2005, Fig. 2)."
    )
    return "AUC by cutoff", caption, fig, ""


def bands_view(ev: Any) -> Built | None:
    """The cutoff-AUC bootstrap bands, stable cutoffs only; none on a 0/1 target."""
    result = ev.extras.get("bands", {}).get("cutoff_auc")
    if result is None or target_is_binary(ev):
        return None
    fig, (ax,) = _figure(1, 1)
    colors = _colors(list(ev.model_names))
    x = np.asarray(result.x, float)
    n = ev.n
    keep = stable_cutoffs(np.round(x * n), n)
    if not keep.any():
        return None
    level = round(100 * result.confidence_level)
    for k, model in enumerate(result.models):
        color = colors.get(model)
        ax.fill_between(
            x[keep],
            result.lower[k][keep],
            result.upper[k][keep],
            color=color,
            alpha=0.15,
            linewidth=0,
        )
        ax.plot(x[keep], result.estimate[k][keep], color=color, linewidth=1.3, label=model)
    ax.axhline(0.5, linestyle="--", color=_BASELINE_COLOR, label="random")
    from matplotlib.ticker import PercentFormatter

    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("size of the true top counted as positive (share of cases)")
    ax.set_ylabel("AUC at that cutoff")
    order_legend(ax, list(result.models), loc="lower left")
    caption = (
        f"Each model's AUC at every cutoff with its pointwise {level}% bootstrap band "
        f"({result.n_bootstrap} resamples); where bands overlap, the models are not clearly "
        "different at that cutoff. Cutoffs with very few cases on either side are left out "
        "(Rosset, Perlich & Zadrozny 2005, Fig. 5)."
    )
    return "AUC by cutoff with bootstrap bands", caption, fig, ""


def gain_bands_view(ev: Any) -> Built | None:
    """Each model's gain with its bootstrap band; the depths where the leading model is
    clearly ahead of every other one (Holm across every depth and pair) are marked."""
    from ranklens.report.adapters import gain_contrasts, leader_is_clear

    result = ev.extras.get("bands", {}).get("gain")
    if result is None or len(result.models) < 2:
        return None
    fig, (ax,) = _figure(1, 1, width=6.2)
    colors = _colors(list(ev.model_names))
    x = np.asarray(result.x, float)
    models = list(result.models)
    for k, model in enumerate(models):
        color = colors.get(model)
        ax.fill_between(x, result.lower[k], result.upper[k], color=color, alpha=0.15, linewidth=0)
        ax.plot(x, result.estimate[k], color=color, linewidth=1.3, label=model)
    contrasts = gain_contrasts(result)
    separated = 0
    for j, depth in enumerate(x):
        leader = models[int(np.nanargmax(result.estimate[:, j]))]
        if leader_is_clear(contrasts, float(depth), leader, models):
            separated += 1
            ax.plot([depth], [0.02], marker="|", ms=12, color=colors.get(leader), mew=2)
    ax.plot(
        [], [], marker="|", ms=10, mew=2, linestyle="none", color="#424242", label="clearly ahead"
    )
    ax.plot([0, 1], [0, 1], linestyle="--", color=_BASELINE_COLOR, label="random")
    from matplotlib.ticker import PercentFormatter

    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("share of cases targeted")
    ax.set_ylabel("share of events captured")
    order_legend(ax, models, loc="lower right")
    level = round(100 * result.confidence_level)
    where = (
        f"ticks along the bottom mark the {separated} of {x.size} depths where the leading model "
        "(tick colour) is clearly ahead of every other one"
        if separated
        else f"at none of the {x.size} depths is one model clearly ahead of every other one"
    )
    caption = (
        f"Share of events captured at each depth with its pointwise {level}% bootstrap band "
        f"({result.n_bootstrap} resamples); {where}, after a Holm correction across all "
        f"{len(contrasts)} comparisons of depths and pairs."
    )
    return "Which model wins at which depth", caption, fig, ""
