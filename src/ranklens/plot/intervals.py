"""Prediction intervals against the truth (:func:`ranklens.intervals_by_prediction`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.intervals import intervals_by_prediction
from ranklens.plot._base import Display, thin_indices

__all__ = ["IntervalDisplay"]


class IntervalDisplay(Display):
    """Each case's interval and truth, cases in increasing order of the point prediction.

    The band is the interval, the line the point prediction, dots the truth; truths outside their
    interval (misses) are drawn in red. At large n the band and line are thinned and the dots
    subsampled to ``max_points`` (misses first), the exact data stay on ``result``.

    ``from_predictions(y_true, y_pred, *, lower, upper)`` computes the result.
    """

    _compute = staticmethod(intervals_by_prediction)
    xlabel = "cases, in increasing order of prediction"
    title = "Prediction intervals against the truth"
    _legend_loc = "upper left"

    @classmethod
    def from_predictions(  # type: ignore[override]
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        lower: Any,
        upper: Any,
        ax: Any = None,
        name: str | None = None,
        plot_kwargs: Any = None,
    ) -> IntervalDisplay:
        """Compute :func:`ranklens.intervals_by_prediction` and draw it."""
        result = cls._compute_result(y_true, y_pred, lower, upper)
        return cls(result, name=name).plot(ax=ax, **dict(plot_kwargs or {}))

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        n = r.y_true.shape[0]
        x = np.arange(n, dtype=np.float64)
        label = self._label(name, f"coverage {100 * r.coverage:.1f}%")
        band = self._band(
            ax,
            x,
            r.lower,
            r.upper,
            max_points=max_points,
            alpha=0.25,
            color=kwargs.pop("color", None),
            label=label,
        )
        color = band.get_facecolor()[0][:3]
        line = self._line(
            ax, x, r.y_pred, max_points=max_points, color=color, linewidth=1, **kwargs
        )
        covered = np.flatnonzero(r.covered)
        missed = np.flatnonzero(~r.covered)
        budget = max(max_points // 2, 1)
        if missed.size > budget:
            missed = missed[thin_indices(x[missed], r.y_true[missed], max_points=budget)]
        if covered.size > budget:
            covered = covered[thin_indices(x[covered], r.y_true[covered], max_points=budget)]
        dots = ax.scatter(x[covered], r.y_true[covered], s=6, color="0.25", linewidths=0, zorder=3)
        miss = ax.scatter(
            x[missed],
            r.y_true[missed],
            s=10,
            color="#c62828",
            linewidths=0,
            zorder=4,
            label=f"truth outside ({(~r.covered).sum():,})",
        )
        if not ax.get_ylabel():
            ax.set_ylabel("value")
        ax.set_xlim(-0.5, n - 0.5)
        return [band, line, dots, miss]
