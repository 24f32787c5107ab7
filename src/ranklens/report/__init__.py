"""The HTML report: evaluate several models once, render the results as one self-contained file.

>>> from ranklens.report import evaluate_models, write_html
>>> evaluation = evaluate_models(y_test, {"gbm": p1, "lm": p2}, n_bootstrap=500)  # doctest: +SKIP
>>> write_html("report.html", evaluation)  # doctest: +SKIP

:func:`evaluate_models` computes (every registered measure, the bootstrap comparison, robustness
tables, curves); :func:`render_html` / :func:`write_html` only render what it returned. The
template and styles ship as package data (``ranklens/report/templates``); plots are inline SVG, so
the report needs no network to view. Each value that is missing or qualified carries a
:class:`Problem` (note, skipped, undefined or failed) in ``ModelEvaluation.problems``, and
:func:`write_html` replaces a previous report atomically. :func:`evaluation_to_json` is the
document of ``ranklens evaluate --json``: every measure and comparison, and the Summary's verdicts
(``summary``).
"""

from __future__ import annotations

from ranklens._engines.entry import evaluate_models
from ranklens.evaluation import ModelEvaluation, Problem
from ranklens.report.document import evaluation_to_json
from ranklens.report.render import render_html, result_html, write_html

__all__ = [
    "ModelEvaluation",
    "Problem",
    "evaluate_models",
    "evaluation_to_json",
    "render_html",
    "result_html",
    "write_html",
]
