"""Plots in scikit-learn's display style (matplotlib, the optional extra ``ranklens[plot]``).

Every display is built three ways::

    disp = CutoffAUCDisplay.from_predictions(y_test, pred, name="gbm")   # compute and draw
    CutoffAUCDisplay.from_predictions(y_test, pred2, ax=disp.ax_, name="linear")  # overlay
    CutoffAUCDisplay.from_result(result, name="gbm")                      # draw a result
    CutoffAUCDisplay(result, name="gbm").plot(ax=ax)                      # returns the display

and keeps the exact result on ``display.result``; long curves are drawn thinned to a few thousand
vertices (:func:`thin_indices`). Importing this package does not import matplotlib; drawing does.
The core library never imports matplotlib.
"""

from __future__ import annotations

from ranklens.plot._base import DEFAULT_MAX_POINTS, thin_indices
from ranklens.plot.bands import BeatProbabilityDisplay, CurveBandsDisplay
from ranklens.plot.calibration import ReliabilityDisplay
from ranklens.plot.extremes import (
    MetricAgreementDisplay,
    RegressionPrecisionRecallDisplay,
    RelevanceDisplay,
)
from ranklens.plot.intervals import IntervalDisplay
from ranklens.plot.ranking import ConcordanceProfileDisplay, CutoffAUCDisplay, RankLiftDisplay
from ranklens.plot.residual import RECCurveDisplay, RROCCurveDisplay
from ranklens.plot.targeting import (
    GainCurveDisplay,
    LiftCurveDisplay,
    PrecisionRecallDisplay,
    ProfitCurveDisplay,
    RocCurveDisplay,
)

__all__ = [
    "DEFAULT_MAX_POINTS",
    "BeatProbabilityDisplay",
    "ConcordanceProfileDisplay",
    "CurveBandsDisplay",
    "CutoffAUCDisplay",
    "GainCurveDisplay",
    "IntervalDisplay",
    "LiftCurveDisplay",
    "MetricAgreementDisplay",
    "PrecisionRecallDisplay",
    "ProfitCurveDisplay",
    "RECCurveDisplay",
    "RROCCurveDisplay",
    "RankLiftDisplay",
    "RegressionPrecisionRecallDisplay",
    "RelevanceDisplay",
    "ReliabilityDisplay",
    "RocCurveDisplay",
    "thin_indices",
]
