"""Deprecated location of the evaluation pipeline, which is now :mod:`ranklens.evaluation`.

``report/`` only renders a :class:`~ranklens.evaluation.ModelEvaluation`; computing one is the
evaluation pipeline's job, a layer below. Names are still importable from here, with a
``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from typing import Any

from ranklens import evaluation as _evaluation


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    value = getattr(_evaluation, name)  # AttributeError for unknown names, as usual
    warnings.warn(
        f"ranklens.report.evaluation.{name} moved to ranklens.evaluation.{name}; the old path "
        "will be removed in a future release",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
