"""ranklens: evaluate regression and scoring models the way they are used.

To rank (Rosset, Perlich & Zadrozny), to target (profit, gain and lift curves), to catch rare
extremes (Torgo & Ribeiro's utility-based precision and recall) and to bound uncertainty (interval
scores, bootstrap comparisons). Every public function takes ``(y_true, y_pred, *, ...)`` like
scikit-learn and accepts NumPy, pandas or polars inputs.
"""

from __future__ import annotations

from ranklens import (
    agreement,
    bands,
    compare,
    curves,
    error_curves,
    intervals,
    listwise,
    ranking,
    relevance,
    residual,
    robustness,
    utility,
)
from ranklens._version import __version__ as __version__
from ranklens.agreement import *  # noqa: F403
from ranklens.bands import *  # noqa: F403
from ranklens.compare import *  # noqa: F403
from ranklens.curves import *  # noqa: F403
from ranklens.error_curves import *  # noqa: F403
from ranklens.exceptions import RanklensWarning as RanklensWarning
from ranklens.exceptions import RowAlignmentWarning as RowAlignmentWarning
from ranklens.exceptions import UndefinedMetricWarning as UndefinedMetricWarning
from ranklens.intervals import *  # noqa: F403
from ranklens.listwise import *  # noqa: F403
from ranklens.metrics import available_metrics as available_metrics
from ranklens.metrics import get_metric as get_metric
from ranklens.ranking import *  # noqa: F403
from ranklens.relevance import *  # noqa: F403
from ranklens.residual import *  # noqa: F403
from ranklens.robustness import *  # noqa: F403
from ranklens.utility import *  # noqa: F403

#: The public namespace: every name a user may rely on (the submodules' own ``__all__``).
__all__ = sorted(
    {
        *agreement.__all__,
        *bands.__all__,
        *compare.__all__,
        *curves.__all__,
        *error_curves.__all__,
        *intervals.__all__,
        *listwise.__all__,
        *ranking.__all__,
        *relevance.__all__,
        *residual.__all__,
        *robustness.__all__,
        *utility.__all__,
        "RanklensWarning",
        "RowAlignmentWarning",
        "UndefinedMetricWarning",
        "available_metrics",
        "get_metric",
        "__version__",
    }
)
