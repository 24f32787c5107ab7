"""Deprecated location of the evaluation pipeline, which is now :mod:`ranklens.evaluation`.

``report/`` only renders a :class:`~ranklens.evaluation.ModelEvaluation`; computing one is the
evaluation pipeline's job, a layer below. Names are still importable from here, with a
``DeprecationWarning``.
"""

from __future__ import annotations

from ranklens import evaluation
from ranklens._deprecation import moved_to

__getattr__ = moved_to("ranklens.report.evaluation", evaluation)
