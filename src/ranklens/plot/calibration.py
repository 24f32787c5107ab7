"""The CORP reliability diagram (:mod:`ranklens.calibration`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.calibration import reliability_diagram
from ranklens.plot._base import Display, legend_number

__all__ = ["ReliabilityDisplay"]


class ReliabilityDisplay(Display):
    """CORP reliability diagram (Dimitriadis, Gneiting & Jordan 2021): recalibrated against
    original predictions.

    Draws the isotonic recalibration as the exact step function, its consistency band (where the
    curve lies if the model were calibrated) shaded in the model's colour, and the diagonal once
    per axes; the legend, below the axes, gives MCB and DSC.

    Examples
    --------
    >>> from ranklens.plot import ReliabilityDisplay
    >>> disp = ReliabilityDisplay.from_predictions(y_test, pred, name="gbm")  # doctest: +SKIP
    >>> ReliabilityDisplay.from_predictions(y_test, p2, ax=disp.ax_, name="lin")  # doctest: +SKIP
    """

    _compute = staticmethod(reliability_diagram)
    xlabel = "prediction"
    ylabel = "recalibrated prediction"
    title = "Reliability diagram (CORP)"
    _legend_loc = "below"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        r = self.result
        kwargs.setdefault("drawstyle", "steps-post")
        summary = f"MCB = {legend_number(r.mcb)}, DSC = {legend_number(r.dsc)}"
        line = self._model_line(
            ax, r.prediction, r.recalibrated, name, summary, max_points=max_points, **kwargs
        )
        artists = [line]
        if np.isfinite(r.band_low).any():
            band = self._band(
                ax, r.prediction, r.band_low, r.band_high, max_points=max_points, step="post",
                color=line.get_color(), alpha=0.15,
            )  # fmt: skip
            artists.append(band)
        artists += self._once(ax, "ranklens-reliability-diagonal", lambda: [self._diagonal(
            ax, label="calibrated (x = y)")])  # fmt: skip
        return artists
