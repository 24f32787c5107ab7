"""The JSON document of ``ranklens evaluate --json``: the evaluation, the Summary's verdicts and
the recommendation.

:func:`ranklens.evaluation.evaluation_to_json` writes every measure, interval and comparison;
this module adds the Summary's verdicts as data (:func:`summary_json`), so that anyone can
re-run the family-wise check of the verdicts from ``results.json`` alone, and the decision
that opens the report (``recommendation``).
"""

from __future__ import annotations

from typing import Any

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.format import finite_or_none
from ranklens.evaluation import evaluation_to_json as _base_document
from ranklens.report.decision import recommend
from ranklens.report.goals import goal_title, summary_verdicts
from ranklens.report.significance import ALPHA, MAX_UNDEFINED_SHARE, Contrast

__all__ = ["evaluation_to_json", "summary_json"]


def _contrast_json(contrast: Contrast) -> dict[str, Any]:
    return {
        "model_a": contrast.model_a,
        "model_b": contrast.model_b,
        "value_a": contrast.value_a,
        "value_b": contrast.value_b,
        "difference": contrast.difference,
        "difference_sd": contrast.sd,
        "test_method": contrast.method,
        "p_value": contrast.p_value,
        "p_value_holm": contrast.p_adjusted,
        "interval": contrast.interval_record(),
        "tested": contrast.tested,
        "untested_reason": contrast.untested or None,
        "undefined_share": contrast.undefined_share,
        "clear": contrast.clear,
        "better": contrast.better or None,
    }


@shared_paragraphs
def summary_json(evaluation: Any, *, alpha: float = ALPHA) -> dict[str, Any]:
    """The Summary's verdicts as data: the ``summary`` block of ``results.json``.

    Per goal the headline measure, the pick, whether the pick is clearly best, and every pair of
    models' comparison on that measure (the family that is Holm-adjusted across goals), each
    with its difference, the interval at its Holm level (lower, upper, level, method), its
    p-value and the Holm-adjusted one, whether it is tested (and why not) and whether it is
    clear. With equally good models, the share of data sets in which any ``clear`` is true
    estimates the family-wise error rate of the Summary.

    Parameters
    ----------
    %(evaluation)s
    alpha : float, default 0.05
        Family-wise error rate of the verdicts.

    Returns
    -------
    dict
        ``{"alpha", "procedure", "family", "max_undefined_share", "n_tests", "goals"}``; NaN
        kept (:func:`evaluation_to_json` maps it to null).

    References
    ----------
    %(holm1979)s
    """
    verdicts = summary_verdicts(evaluation, alpha=alpha)
    goals = []
    for verdict in verdicts:
        goals.append(
            {
                "goal": verdict.goal.key,
                "title": goal_title(verdict.goal, evaluation),
                "measure": verdict.metric or None,
                "pick": verdict.best or None,
                "evidence": verdict.evidence,
                "clearly_best": verdict.evidence == "clear",
                "contrasts": [_contrast_json(c) for c in verdict.family],
            }
        )
    return {
        "alpha": alpha,
        "procedure": "holm",
        "family": "every pair of models on each goal's headline measure, across goals",
        "max_undefined_share": MAX_UNDEFINED_SHARE,
        "n_tests": sum(c.tested for v in verdicts for c in v.family),
        "goals": goals,
    }


@shared_paragraphs
def evaluation_to_json(evaluation: Any, *, include_replicates: bool = False) -> dict[str, Any]:
    """The JSON document of ``ranklens evaluate --json``, with the Summary's verdicts.

    :func:`ranklens.evaluation.evaluation_to_json` (every measure, interval and comparison)
    plus ``doc["summary"]`` (``summary_json``) and ``doc["recommendation"]`` (the decision
    that opens the report, ``Recommendation.to_json()`` of ``ranklens.report.decision``), in
    strict JSON (NaN becomes null). The layout is described by the JSON Schema
    ``ranklens/report/results.schema.json``.

    Parameters
    ----------
    %(evaluation)s
    include_replicates : bool, default False
        Add the bootstrap replicates (``doc["replicates"]``).

    Returns
    -------
    dict
        A JSON-serialisable document.
    """
    doc = _base_document(evaluation, include_replicates=include_replicates)
    doc["summary"] = finite_or_none(summary_json(evaluation))
    doc["recommendation"] = finite_or_none(recommend(evaluation).to_json())
    return doc
