"""Targeting curves (Provost & Fawcett 2013, ch. 8): ROC, cumulative gain, lift and profit
(:mod:`ranklens.targeting`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ranklens._foundation.events import events_words
from ranklens._foundation.format import with_currency
from ranklens.plot._base import Display, legend_number, share_axes
from ranklens.targeting import (
    gain_curve,
    lift_curve,
    precision_recall_curve,
    profit_curve,
    roc_curve,
)

__all__ = [
    "GainCurveDisplay",
    "LiftCurveDisplay",
    "PrecisionRecallDisplay",
    "ProfitCurveDisplay",
    "RocCurveDisplay",
]


class RocCurveDisplay(Display):
    """ROC curve: true against false positive rate as the targeting threshold falls.

    ``from_predictions(y_true, y_score, events="top:0.1")`` for a continuous target. The diagonal
    is the random model.
    """

    _compute = staticmethod(roc_curve)
    xlabel = "false positive rate"
    ylabel = "true positive rate"
    title = "ROC curve"
    _legend_loc = "lower right"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        summary = f"AUC = {legend_number(r.auc)}"
        line = self._model_line(ax, r.fpr, r.tpr, name, summary, max_points=max_points, **kwargs)
        artists = [line]
        artists += self._once(ax, "ranklens-roc-random", lambda: [self._diagonal(ax)])
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
        if r.event_definition and not ax.get_title().endswith(")"):
            ax.set_title(f"ROC curve (events: {events_words(r.event_definition)})", fontsize=10)
        return artists


class PrecisionRecallDisplay(Display):
    """Precision against recall as the targeting threshold falls, drawn as the steps the
    average precision sums (no interpolation between points); the event share, the precision
    of a random score, is the dotted line.

    ``from_predictions(y_true, y_score)`` for a 0/1 target (a continuous one: its events, the
    true top 10 % unless ``events=`` says otherwise).
    """

    _compute = staticmethod(precision_recall_curve)
    xlabel = "recall"
    ylabel = "precision"
    title = "Precision-recall curve"
    _legend_loc = "lower left"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        summary = f"AP = {legend_number(r.average_precision)}"
        style = {"drawstyle": "steps-pre", **kwargs}
        line = self._model_line(
            ax, r.recall, r.precision, name, summary, max_points=max_points, **style
        )
        artists = [line]
        share = r.precision[-1] if r.precision.size and r.recall[-1] == 1.0 else math.nan
        if math.isfinite(share):
            artists += self._once(
                ax,
                "ranklens-pr-random",
                lambda: [
                    ax.axhline(share, color="0.6", linestyle=":", linewidth=1, label="random")
                ],
            )
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
        if r.event_definition and ax.get_title() == self.title:
            ax.set_title(f"Precision-recall curve (events: {r.event_definition})", fontsize=10)
        return artists


class GainCurveDisplay(Display):
    """Cumulative gain (the slides' cumulative response curve): share of events, or of the total
    value with ``events="value"``, captured by targeting the top fraction by score.

    The random model is the diagonal; the perfect model (dashed) targets the events first.
    """

    _compute = staticmethod(gain_curve)
    xlabel = "share targeted"
    title = "Cumulative gain"
    _legend_loc = "lower right"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        value = r.event_definition == "value"
        x = r.fraction_targeted
        # the accuracy ratio is the measure of the events' gain; the value's is another quantity
        what = "share of the best value gain" if value else "accuracy ratio"
        summary = f"{what} = {legend_number(r.accuracy_ratio)}"
        line = self._model_line(ax, x, r.gain, name, summary, max_points=max_points, **kwargs)
        artists = [line]
        artists += self._once(
            ax,
            "ranklens-gain-baselines",
            lambda: [
                self._diagonal(ax),
                self._baseline(ax, x, r.perfect_gain, "perfect", max_points=max_points),
            ],
        )
        if not ax.get_ylabel():
            ax.set_ylabel("share of total value captured" if value else "share of events captured")
        if value and ax.get_title() == self.title:
            ax.set_title("Value captured (cumulative gain of y)")
        elif not value and ax.get_title() == self.title:
            events = events_words(r.event_definition)
            ax.set_title(f"Cumulative gain (events: {events})", fontsize=10)
        share_axes(ax, y=True)
        return artists


class LiftCurveDisplay(Display):
    """Lift: cumulative gain divided by the share targeted (random = 1, perfect dashed)."""

    _compute = staticmethod(lift_curve)
    xlabel = "share targeted"
    ylabel = "lift"
    title = "Lift"
    _legend_loc = "below"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        at_10 = r.at(0.1) if r.fraction_targeted.size else math.nan
        x = r.fraction_targeted
        summary = f"lift at 10% = {legend_number(at_10, 2)}"
        line = self._model_line(ax, x, r.lift, name, summary, max_points=max_points, **kwargs)
        artists = [line]
        artists += self._once(
            ax,
            "ranklens-lift-baselines",
            lambda: [
                ax.axhline(1.0, color="0.6", linestyle="--", linewidth=1, label="random"),
                self._baseline(ax, x, r.perfect_lift, "perfect", max_points=max_points),
            ],
        )
        # The first few cases swing the lift wildly and the perfect model's lift (1 / event
        # share) can dwarf every real model: scale to the models' curves beyond 2% targeted.
        body = r.lift[r.fraction_targeted >= 0.02]
        top = float(np.nanmax(body)) if body.size and np.isfinite(body).any() else 2.0
        previous = getattr(ax, "_ranklens_lift_top", 0.0)
        ax._ranklens_lift_top = max(previous, top)
        ax.set_ylim(0, max(1.5, 1.25 * ax._ranklens_lift_top))
        share_axes(ax)
        return artists


class ProfitCurveDisplay(Display):
    """Profit against the share targeted, with the random and perfect models and the budget.

    The marked point is the profit-maximising depth; with a budget the vertical line is the
    deepest targeting it pays for (``floor(budget / cost_per_target)`` cases) and the square the
    best profit within it.

    Parameters
    ----------
    result : ProfitCurveResult
        A :func:`ranklens.targeting.profit_curve` result.
    name : str, optional
        The model's name in the legend.
    currency : str, optional
        The profits' currency, a symbol (``"$"``) or a code (``"EUR"``): on the y axis and
        in the legend's amounts.
    """

    _compute = staticmethod(profit_curve)
    xlabel = "share targeted"
    ylabel = "profit"
    title = "Profit"
    _legend_loc = "below"

    def __init__(self, result: Any, *, name: str | None = None, currency: str | None = None):
        super().__init__(result, name=name)
        self.currency = currency

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        ax: Any = None,
        name: str | None = None,
        currency: str | None = None,
        plot_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> ProfitCurveDisplay:
        """Compute :func:`ranklens.targeting.profit_curve` from ``(y_true, y_pred, **kwargs)``
        and draw it; ``currency`` (``"$"``, ``"EUR"``) labels the profits."""
        result = cls._compute_result(y_true, y_pred, **kwargs)
        display = cls(result, name=name, currency=currency)
        return display.plot(ax=ax, **dict(plot_kwargs or {}))

    def _money(self, value: float) -> str:
        return with_currency(legend_number(value, 0), self.currency)

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        if self.currency and not ax.get_ylabel():
            ax.set_ylabel(f"profit ({self.currency})")
        summary = f"best {self._money(r.best_profit)} at {100 * r.best_fraction:.0f}%"
        if r.budget_profit is not None:
            summary += f"; within budget {self._money(r.budget_profit)}"
        x = r.fraction_targeted
        line = self._model_line(ax, x, r.profit, name, summary, max_points=max_points, **kwargs)
        color = line.get_color()
        (best,) = ax.plot(
            [r.best_fraction], [r.best_profit], "o", color=color, markeredgecolor="white", zorder=4
        )
        artists = [line, best]
        if r.budget_profit is not None:
            (within,) = ax.plot(
                [r.budget_fraction],
                [r.budget_profit],
                "s",
                color=color,
                markeredgecolor="white",
                zorder=4,
            )
            artists.append(within)
            total = float(r.n_targeted[-1]) if r.n_targeted.size else 0.0
            share = min(r.max_targets / total, 1.0) if total > 0 else math.nan
            artists += self._once(
                ax,
                "ranklens-profit-budget",
                lambda: [
                    ax.axvline(
                        share,
                        color="#8a4b00",
                        linestyle="-.",
                        linewidth=1.2,
                        label=f"budget: {r.max_targets:,} targets",
                    )
                ],
            )
        artists += self._once(
            ax,
            "ranklens-profit-baselines",
            lambda: [
                self._baseline(
                    ax,
                    x,
                    r.random_profit,
                    "random",
                    max_points=max_points,
                    color="0.6",
                    linestyle="--",
                ),
                self._baseline(ax, x, r.perfect_profit, "perfect", max_points=max_points),
                ax.axhline(0.0, color="0.85", linewidth=0.8),
            ],
        )
        share_axes(ax)
        return artists
