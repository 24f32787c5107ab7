"""scikit-learn scorers for utility-based precision, recall and F-beta (Torgo & Ribeiro 2009).

Torgo & Ribeiro (2009) argue that models for rare extremes should be *selected* with these
measures, not with MSE or MAD. These scorers plug them into ``GridSearchCV``,
``cross_val_score`` and friends::

    from ranklens import relevance_from_boxplot
    from ranklens.scorers import make_utility_scorer

    phi = relevance_from_boxplot(y_train)    # fix the relevance once, from all of y_train
    scorer = make_utility_scorer("f_beta", relevance=phi, beta=0.5)
    search = GridSearchCV(model, grid, scoring=scorer)

Pass a relevance derived from the whole training target: without it each validation fold derives
its own box-plot relevance from its own ``y``, so folds judge extremes differently (and a fold
with no outliers warns). Undefined scores (a model that predicts no events has no precision,
Torgo & Ribeiro 2009, footnote 8) are NaN, which scikit-learn ranks last with a warning.

This module imports scikit-learn (the ``sklearn`` extra: ``pip install "ranklens[sklearn]"``) and is
not star-imported by ``ranklens``; import it as ``ranklens.scorers``.
"""

from __future__ import annotations

from typing import Any, Literal

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.extras import require

require("sklearn", "ranklens.scorers")  # one line naming the extra, not a traceback from sklearn

from sklearn.metrics import make_scorer  # noqa: E402

from ranklens.extremes import (  # noqa: E402
    AccuracyLike,
    RelevanceLike,
    regression_precision_recall,
)

__all__ = ["make_utility_scorer", "utility_f1_scorer", "utility_recall_scorer"]

_MEASURES = ("precision", "recall", "f_beta")


def _utility_score(
    y_true: Any,
    y_pred: Any,
    *,
    measure: str,
    relevance: RelevanceLike | None,
    event_threshold: float,
    accuracy: AccuracyLike | None,
    beta: float,
    sample_weight: Any = None,
) -> float:
    res = regression_precision_recall(
        y_true,
        y_pred,
        relevance=relevance,
        event_threshold=event_threshold,
        accuracy=accuracy,
        beta=beta,
        sample_weight=sample_weight,
    )
    return float(getattr(res, measure))


@shared_paragraphs
def make_utility_scorer(
    measure: Literal["precision", "recall", "f_beta"] = "f_beta",
    *,
    relevance: RelevanceLike | None = None,
    event_threshold: float = 0.5,
    accuracy: AccuracyLike | None = None,
    beta: float = 1.0,
) -> Any:
    """A scikit-learn scorer (greater is better) for a utility-based measure (Torgo & Ribeiro 2009).

    Parameters
    ----------
    measure : {"precision", "recall", "f_beta"}, default "f_beta"
        Which field of :func:`ranklens.regression_precision_recall` to score.
    relevance, event_threshold, accuracy, beta
        As in :func:`ranklens.regression_precision_recall`; the defaults derive relevance and
        accuracy from each validation fold's ``y`` (see the module docstring for why you should
        pass ``relevance``).

    Returns
    -------
    scorer
        ``scorer(estimator, X, y, sample_weight=None) -> float``, usable as ``scoring=`` in
        ``GridSearchCV``; picklable, so it works with ``n_jobs > 1``.

    Raises
    ------
    ValueError
        If ``measure`` is not one of the utility-based measures this module knows; the message
        lists them. Errors in the data are raised when the scorer is called, by the measure.

    Notes
    -----
    Pass a ``relevance`` fixed from the whole training target: without it each validation fold
    derives its own box-plot relevance from its own ``y``, so folds judge extremes differently.
    A model that predicts no events has no precision (Torgo & Ribeiro 2009, footnote 8); its score
    is NaN, which scikit-learn ranks last with a warning.

    References
    ----------
    %(torgo2009)s
    """
    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {_MEASURES}; got {measure!r}")
    return make_scorer(
        _utility_score,
        greater_is_better=True,
        measure=measure,
        relevance=relevance,
        event_threshold=event_threshold,
        accuracy=accuracy,
        beta=beta,
    )


utility_f1_scorer = make_utility_scorer("f_beta")
"""F1 scorer with the default (per-fold box-plot) relevance; prefer :func:`make_utility_scorer`."""

utility_recall_scorer = make_utility_scorer("recall")
"""Recall scorer with the default (per-fold box-plot) relevance."""
