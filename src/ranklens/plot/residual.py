"""REC and RROC curves (:mod:`ranklens.residual`)."""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from ranklens.plot._base import Display, legend_number
from ranklens.residual import rec_curve, rroc_curve

__all__ = ["RECCurveDisplay", "RROCCurveDisplay"]

#: Sums of errors above this are drawn in units of a power of ten: matplotlib's tick locator
#: overflows on an axis that spans about 1e307 or more.
LARGEST_DRAWN = 1e300

#: The unit of each axes holding RROC curves, fixed by the first one drawn (overlays share it).
_UNITS: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def _axes_unit(ax: Any, size: float) -> float:
    """The unit in which the RROC curves on ``ax`` are drawn: 1, or a power of ten near ``size``
    (the model's largest total error) when that is beyond :data:`LARGEST_DRAWN`."""
    if ax not in _UNITS:
        big = math.isfinite(size) and size > LARGEST_DRAWN
        _UNITS[ax] = 10.0 ** math.floor(math.log10(size)) if big else 1.0
    return _UNITS[ax]


class RECCurveDisplay(Display):
    """Regression error characteristic curve (Bi & Bennett 2003): share of cases within tolerance.

    Draws ``result.accuracy`` against ``result.tolerance`` as the exact step function; the legend
    gives the area over the curve (the mean loss).

    Examples
    --------
    >>> from ranklens.plot import RECCurveDisplay
    >>> disp = RECCurveDisplay.from_predictions(y_test, pred, name="gbm")  # doctest: +SKIP
    >>> RECCurveDisplay.from_predictions(y_test, p2, ax=disp.ax_, name="lin")  # doctest: +SKIP
    """

    _compute = staticmethod(rec_curve)
    ylabel = "share of cases within tolerance"
    title = "REC curve"
    _legend_loc = "lower right"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        kwargs.setdefault("drawstyle", "steps-post")
        summary = f"AOC = {legend_number(r.area_over_curve)}"
        line = self._model_line(
            ax, r.tolerance, r.accuracy, name, summary, max_points=max_points, **kwargs
        )
        if not ax.get_xlabel():
            ax.set_xlabel(
                "tolerance (absolute error)"
                if r.loss == "absolute"
                else "tolerance (squared error)"
            )
        ax.set_ylim(0, 1.02)
        ax.set_xlim(left=0)
        return [line]


class RROCCurveDisplay(Display):
    """Regression ROC curve (Hernández-Orallo 2013): over- against under-estimation.

    Each point is the total over-prediction and total under-prediction after a constant shift of
    the predictions; the model's own point (shift 0) is marked, and the dashed diagonal
    ``OVER = -UNDER`` is where the errors are balanced. A curve closer to the origin is better.
    """

    _compute = staticmethod(rroc_curve)
    xlabel = "over-estimation  Σ (ŷ − y)₊"
    ylabel = "under-estimation  −Σ (ŷ − y)₋"
    title = "RROC curve"
    _legend_loc = "lower right"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        unit = _axes_unit(ax, max(r.model_over, -r.model_under))
        model_over, model_under = r.model_over / unit, r.model_under / unit
        # vertices beyond the float range (inf: sums of errors near 1e307) are not drawn
        drawn = np.isfinite(r.over) & np.isfinite(r.under)
        over, under = r.over[drawn] / unit, r.under[drawn] / unit
        summary = f"area = {legend_number(r.area, 4)}"
        line = self._model_line(ax, over, under, name, summary, max_points=max_points, **kwargs)
        if unit != 1.0 and not ax.get_xlabel():
            scale = f"(× {unit:.0e})"
            ax.set_xlabel(f"{self.xlabel}  {scale}")
            ax.set_ylabel(f"{self.ylabel}  {scale}")
        (point,) = ax.plot(
            [model_over],
            [model_under],
            "o",
            color=line.get_color(),
            markersize=6,
            markeredgecolor="white",
        )
        # The curve runs to infinity; show the square around every model's operating point.
        extent = 2.0 * max(model_over, -model_under, 1e-12)
        first = not any(a.get_gid() == "ranklens-rroc-diagonal" for a in ax.lines)
        if not first:
            extent = max(extent, ax.get_xlim()[1])
        ax.set_xlim(0, extent)
        ax.set_ylim(-extent, 0)
        artists = [line, point]
        artists += self._once(
            ax,
            "ranklens-rroc-diagonal",
            lambda: [
                ax.axline(
                    (0, 0),
                    slope=-1,
                    linestyle="--",
                    color="0.6",
                    linewidth=1,
                    label="balanced errors",
                )
            ],
        )
        return artists
