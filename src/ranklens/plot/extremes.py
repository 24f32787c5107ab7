"""Rare extremes (Torgo & Ribeiro 2009): the relevance function, precision and recall over the event
threshold, and the agreement of two metrics' model rankings (their Fig. 2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.agreement import compare_metric_rankings
from ranklens.extremes import regression_precision_recall_curve
from ranklens.plot._base import Display, legend_number
from ranklens.relevance import relevance_from_boxplot

__all__ = ["MetricAgreementDisplay", "RegressionPrecisionRecallDisplay", "RelevanceDisplay"]


class RelevanceDisplay(Display):
    """A relevance function phi(y) (Torgo & Ribeiro 2009, Fig. 1) over the range of the data.

    ``result`` is the relevance function itself (any vectorised callable). With ``y`` given, a
    histogram of the data is drawn underneath (right axis) so one sees which values count as
    extreme; with ``event_threshold``, the horizontal line phi = t_E marks where events begin.
    """

    xlabel = "y"
    ylabel = "relevance φ(y)"
    title = "Relevance function"
    _legend_loc = "below"

    def __init__(
        self,
        result: Any,
        *,
        name: str | None = None,
        y: Any = None,
        event_threshold: float | None = None,
    ) -> None:
        super().__init__(result, name=name)
        self.y = None if y is None else np.asarray(y, dtype=np.float64)
        self.event_threshold = event_threshold

    @classmethod
    def from_predictions(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            "a relevance function depends on the target only: use "
            "RelevanceDisplay.from_data(y) or RelevanceDisplay.from_relevance(phi, y=y)"
        )

    @classmethod
    def from_relevance(
        cls,
        relevance: Any,
        *,
        y: Any = None,
        event_threshold: float | None = None,
        ax: Any = None,
        name: str | None = None,
        **plot_kwargs: Any,
    ) -> RelevanceDisplay:
        """Draw a relevance function already built (optionally over the data ``y``)."""
        display = cls(relevance, name=name, y=y, event_threshold=event_threshold)
        return display.plot(ax=ax, **plot_kwargs)

    @classmethod
    def from_data(
        cls,
        y: Any,
        *,
        event_threshold: float | None = None,
        ax: Any = None,
        name: str | None = None,
        plot_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> RelevanceDisplay:
        """Build :func:`ranklens.relevance_from_boxplot` from ``y`` (``kwargs``) and draw it."""
        relevance = relevance_from_boxplot(y, **kwargs)
        display = cls(relevance, name=name, y=y, event_threshold=event_threshold)
        return display.plot(ax=ax, **dict(plot_kwargs or {}))

    def _grid(self) -> np.ndarray:
        if self.y is not None and self.y.size:
            lo, hi = float(np.nanmin(self.y)), float(np.nanmax(self.y))
        else:
            centres = [getattr(self.result, a, None) for a in ("low_center", "high_center")]
            knots = [p[0] for p in getattr(self.result, "points", ())]
            values = [c for c in [*centres, *knots] if c is not None]
            lo, hi = (min(values), max(values)) if values else (-1.0, 1.0)
        pad = 0.15 * (hi - lo) if hi > lo else 1.0
        return np.linspace(lo - pad, hi + pad, 801)

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        grid = self._grid()
        phi = np.asarray(self.result(grid), dtype=np.float64)
        line = self._line(ax, grid, phi, max_points=max_points, label=name, **kwargs)
        artists = [line]
        if self.y is not None and self.y.size:
            hist_ax = ax.twinx()
            hist_ax.hist(self.y[np.isfinite(self.y)], bins=60, color="0.75", alpha=0.6)
            hist_ax.set_ylabel("cases", color="0.45")
            hist_ax.tick_params(axis="y", colors="0.45")
            ax.set_zorder(hist_ax.get_zorder() + 1)
            ax.patch.set_visible(False)
            events = self.result(self.y)
            if self.event_threshold is not None:
                share = float(np.mean(events >= self.event_threshold))
                line.set_label(self._label(name, f"{100 * share:.1f}% of cases are events"))
        if self.event_threshold is not None:
            artists += self._once(
                ax,
                "ranklens-event-threshold",
                lambda: [
                    ax.axhline(
                        self.event_threshold,
                        linestyle="--",
                        color="0.4",
                        linewidth=1,
                        label=f"event threshold t_E = {self.event_threshold:g}",
                    )
                ],
            )
        ax.set_ylim(-0.02, 1.05)
        return artists


class RegressionPrecisionRecallDisplay(Display):
    """Utility-based precision, recall and F-beta as the event threshold t_E varies.

    One colour per model; precision solid, recall dashed, F-beta dotted; the best F-beta is
    marked. ``from_predictions(y_true, y_pred, relevance=..., ...)`` computes
    :func:`ranklens.regression_precision_recall_curve`.
    """

    _compute = staticmethod(regression_precision_recall_curve)
    xlabel = "event threshold t_E (relevance)"
    ylabel = "precision / recall / F"
    title = "Precision and recall for rare extremes"
    _legend_loc = "below"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        label = self._label(
            name,
            f"best F{legend_number(r.beta, 1).rstrip('0').rstrip('.')} = "
            f"{legend_number(r.best_f_beta)} at t_E = {legend_number(r.best_threshold, 2)}",
        )
        kwargs.setdefault("drawstyle", "steps-post")
        precision = self._line(
            ax, r.thresholds, r.precision, max_points=max_points, label=label, **kwargs
        )
        color = precision.get_color()
        kwargs.pop("color", None)
        recall = self._line(
            ax, r.thresholds, r.recall, max_points=max_points, color=color, linestyle="--", **kwargs
        )
        f_beta = self._line(
            ax, r.thresholds, r.f_beta, max_points=max_points, color=color, linestyle=":", **kwargs
        )
        artists = [precision, recall, f_beta]
        if np.isfinite(r.best_f_beta):
            (best,) = ax.plot(
                [r.best_threshold], [r.best_f_beta], "o", color=color, markeredgecolor="white"
            )
            artists.append(best)
        artists += self._once(
            ax,
            "ranklens-pr-styles",
            lambda: [
                ax.plot([], [], color="0.3", linestyle=ls, label=lab)[0]
                for ls, lab in (("-", "precision"), ("--", "recall"), (":", "F"))
            ],
        )
        ax.set_ylim(-0.02, 1.05)
        ax.set_xlim(0, 1)
        return artists


#: Where a point's label may go, in order: offset (points), horizontal and vertical alignment.
_LABEL_SPOTS = (
    ((4, 3), "left", "bottom"),
    ((4, -3), "left", "top"),
    ((-4, 3), "right", "bottom"),
    ((-4, -3), "right", "top"),
    ((0, 8), "center", "bottom"),
    ((0, -8), "center", "top"),
)


def _free_spot(
    ax: Any, point: tuple[float, float], text: str, placed: list[tuple[float, float, float, float]]
) -> tuple[tuple[int, int], str, str] | None:
    """The first of :data:`_LABEL_SPOTS` where a 7-point label of ``text`` at ``point`` overlaps
    no label already ``placed`` (boxes in display units, appended to); None if every spot does.

    The box is estimated from the font size (0.6 em per character), so no renderer is needed.
    """
    scale = ax.figure.dpi / 72.0
    px, py = ax.transData.transform(point)
    width, height = 0.6 * 7 * len(text) * scale, 1.2 * 7 * scale
    for (dx, dy), ha, va in _LABEL_SPOTS:
        x0 = px + dx * scale - {"left": 0.0, "center": width / 2, "right": width}[ha]
        y0 = py + dy * scale - (height if va == "top" else 0.0)
        box = (x0, y0, x0 + width, y0 + height)
        if all(
            box[2] <= b[0] or b[2] <= box[0] or box[3] <= b[1] or b[3] <= box[1] for b in placed
        ):
            placed.append(box)
            return (dx, dy), ha, va
    return None


def _in_comparison(metric: Any, names: tuple[str, ...]) -> str:
    """``metric``, checked to be in a comparison of ``names``."""
    if metric in names:
        return str(metric)
    raise ValueError(f"metric {metric!r} is not in this comparison: {names}")


class MetricAgreementDisplay(Display):
    """Torgo & Ribeiro (2009), Fig. 2 (right): each model's rank under one metric against another.

    Points on the dashed diagonal are ranked alike by both metrics; the dashed lines mark the top
    ``top`` positions of each. The models in the top three of either ranking are named, each
    label placed where it overlaps no other (a label with no free place is left out).
    ``result`` is a :func:`ranklens.compare_metric_rankings` result; ``metrics`` picks the two
    (default: its first two).
    """

    title = "Do the metrics pick the same models?"
    _legend_loc = "upper left"

    def __init__(
        self,
        result: Any,
        *,
        name: str | None = None,
        metrics: Sequence[str] | None = None,
        top: int | None = None,
    ) -> None:
        super().__init__(result, name=name)
        names = tuple(result.metrics)
        if len(names) < 2 and metrics is None:
            raise ValueError(f"the comparison holds one metric ({names[0]!r}); two are needed")
        given = tuple(metrics) if metrics is not None else names[:2]
        self.metrics = tuple(_in_comparison(metric, names) for metric in given)
        self.top = top

    @classmethod
    def from_predictions(  # type: ignore[override]
        cls,
        y_true: Any,
        predictions: Mapping[str, Any],
        *,
        metrics: Sequence[str],
        ax: Any = None,
        name: str | None = None,
        top: int | None = None,
        plot_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> MetricAgreementDisplay:
        """Rank the models by two metrics (:func:`ranklens.compare_metric_rankings`) and draw."""
        result = compare_metric_rankings(y_true, predictions, metrics=list(metrics), **kwargs)
        display = cls(result, name=name, metrics=metrics[:2], top=top)
        return display.plot(ax=ax, **dict(plot_kwargs or {}))

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        a, b = (r.metrics.index(m) for m in self.metrics)
        x, y = r.ranks[:, a], r.ranks[:, b]
        n_models = len(r.models)
        tau = r.kendall_tau[a, b]
        kwargs.setdefault("s", 28)
        dots = ax.scatter(
            x,
            y,
            label=self._label(name, f"Kendall τ = {legend_number(tau, 2)}"),
            zorder=3,
            **kwargs,
        )
        top = self.top if self.top is not None else max(1, min(10, n_models // 4))
        artists = [dots]
        artists += self._once(
            ax,
            "ranklens-agreement-guides",
            lambda: [
                ax.axline((0, 0), slope=1, linestyle="--", color="0.6", linewidth=1),
                ax.axvline(top + 0.5, linestyle=":", color="0.6", linewidth=1),
                ax.axhline(top + 0.5, linestyle=":", color="0.6", linewidth=1),
            ],
        )
        ax.set_xlim(0.5, n_models + 0.5)
        ax.set_ylim(0.5, n_models + 0.5)
        # Name the models at the top of either ranking, each label where it overlaps no other.
        top_three = [i for i in range(n_models) if x[i] <= 3 or y[i] <= 3]
        top_three.sort(key=lambda i: (min(x[i], y[i]), max(x[i], y[i])))
        placed: list[tuple[float, float, float, float]] = []
        for i in top_three:
            spot = _free_spot(ax, (float(x[i]), float(y[i])), str(r.models[i]), placed)
            if spot is not None:
                (dx, dy), ha, va = spot
                ax.annotate(
                    r.models[i],
                    (x[i], y[i]),
                    textcoords="offset points",
                    xytext=(dx, dy),
                    ha=ha,
                    va=va,
                    fontsize=7,
                    color="0.25",
                )
        ax.set_aspect("equal", adjustable="box")
        arrows = {True: "↑", False: "↓"}  # None: best closest to a target
        direction = [f"(1 = best, {arrows.get(r.higher_is_better[k], '≈')})" for k in (a, b)]
        ax.set_xlabel(f"rank by {self.metrics[0]} {direction[0]}")
        ax.set_ylabel(f"rank by {self.metrics[1]} {direction[1]}")
        return artists
