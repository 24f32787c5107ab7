"""Do two metrics pick the same models? Agreement between metric rankings.

Torgo & Ribeiro (2009, Figure 2) rank 57 models by MAD and by utility-based F and show the two
rankings barely agree: the top five differ completely and MAD's top ten sit below F's 45th place.
:func:`compare_metric_rankings` reproduces that analysis for any registered metrics: it scores
every model with every metric, ranks the models per metric (using each metric's registered
direction, never its name) and reports Kendall's tau-b and the top-k overlap for every pair of
metrics.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.results import ConfidenceInterval, Result
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    check_pair,
    check_positive_int,
    check_probability,
    check_sample_weight,
)
from ranklens.exceptions import RanklensWarning, warn_undefined
from ranklens.metrics import get_metric
from ranklens.ranking import kendall_tau, ranking_summary, spearman_rho

__all__ = [
    "MetricRankingComparisonResult",
    "RankingAgreementResult",
    "compare_metric_rankings",
    "ranking_agreement",
]

FloatArray = NDArray[np.float64]


@dataclasses.dataclass(frozen=True, repr=False)
class MetricRankingComparisonResult(Result):
    """Models ranked by several metrics and the agreement between those rankings.

    Attributes
    ----------
    models, metrics : tuple of str
        Row and column labels.
    higher_is_better : tuple of bool or None
        Registered direction of each metric (None for a measure best closest to a target).
    scores : ndarray of shape (n_models, n_metrics)
        Each model's value of each metric (NaN where undefined).
    ranks : ndarray of shape (n_models, n_metrics)
        Rank of each model under each metric, 1 = best; ties share their average rank; models
        with an undefined (NaN) score rank below every scored model (Torgo & Ribeiro 2009, footnote
        8: models that issue no event signal "have no precision score").
    kendall_tau, kendall_pvalue : ndarray of shape (n_metrics, n_metrics)
        Kendall's tau-b between the rankings of each pair of metrics and its two-sided p-value
        (``scipy.stats.kendalltau``; exact for small untied cases). NaN where a ranking is
        constant.
    top_k : int
    top_k_overlap : ndarray of shape (n_metrics, n_metrics)
        |top-k(a) & top-k(b)| / k. The top k are the k best ranks, ties at the boundary broken by
        the order of ``predictions``.
    best_models : tuple of str
        The best model under each metric (first in ``predictions`` order on ties).
    """

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    higher_is_better: tuple[bool | None, ...]
    scores: FloatArray
    ranks: FloatArray
    kendall_tau: FloatArray
    kendall_pvalue: FloatArray
    top_k: int
    top_k_overlap: FloatArray
    best_models: tuple[str, ...]


def _metric_scores(
    spec: Any, y_true: FloatArray, preds: list[FloatArray], w: FloatArray | None
) -> FloatArray:
    """Score every model with one metric, re-issuing each distinct warning once (not per model)."""
    kwargs = {} if w is None else {"sample_weight": w}
    out = np.empty(len(preds))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RanklensWarning)
        for i, p in enumerate(preds):
            out[i] = float(spec.func(y_true, p, **kwargs))
    seen: set[tuple[type, str]] = set()
    for rec in caught:
        key = (rec.category, str(rec.message))
        if key in seen:
            continue
        seen.add(key)
        warnings.warn_explicit(
            rec.message, rec.category, rec.filename, rec.lineno, source=rec.source
        )
    return out


def _goodness(scores: FloatArray, spec: MetricSpec) -> FloatArray:
    """Scores oriented so larger is better (for a target measure: minus the distance to the
    target), NaN (undefined) below everything."""
    g = spec.goodness(scores)
    return np.where(np.isnan(g), -np.inf, g)


@raises_input_errors("y_true", "predictions", counts=("top_k",))
@shared_paragraphs
def compare_metric_rankings(
    y_true: ArrayLike,
    predictions: Mapping[str, Any],
    *,
    metrics: Sequence[str | MetricSpec] | None = None,
    top_k: int = 5,
    sample_weight: ArrayLike | None = None,
) -> MetricRankingComparisonResult:
    r"""Rank many models by each metric and measure how much the rankings agree.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    predictions : mapping of str to array-like of shape (n,)
        Model name -> predictions; at least two models.
    metrics : sequence of str or MetricSpec, keyword-only
        Registered point metrics (see :func:`ranklens.available_metrics`), at least one, by name
        or as :class:`~ranklens.metrics.MetricSpec` objects. A name is called as
        ``f(y_true, y_pred[, sample_weight=...])`` with its defaults (for utility measures, the
        default box-plot relevance of ``y_true``); to fix parameters such as a relevance function
        learnt on training data, pass a spec whose ``func`` binds them, e.g.
        ``dataclasses.replace(get_metric("utility_f1"), func=functools.partial(utility_f1,
        relevance=phi))``. Passing it as the third positional argument still works, with a
        DeprecationWarning. A measure best closest to a target ranks by the distance to it; one
        that is not ranked (direction ``"neutral"``) is refused.
    top_k : int, default 5
        Size of the top sets compared (capped at the number of models).
    sample_weight : array-like of shape (n,), optional
        Case weights passed to every metric.

    Returns
    -------
    MetricRankingComparisonResult

    Raises
    ------
    %(input_errors)s

    Warns
    -----
    UndefinedMetricWarning
        Kendall's tau is undefined for a pair where one ranking is constant (NaN is reported);
        warnings raised by the metrics are passed on once each.

    Notes
    -----
    The analysis of Torgo & Ribeiro (2009), Sect. 5.2 and Figure 2 (MAD vs utility F):
    for every metric the models are ranked by their score in the metric's registered direction
    (:func:`ranklens.get_metric`), and every pair of rankings is compared by Kendall's tau-b (1:
    same order, -1: reversed) with its p-value, and by the overlap of their top-k sets.

    References
    ----------
    %(torgo2009)s

    Examples
    --------
    >>> import numpy as np
    >>> y = np.r_[np.linspace(-1, 1, 41), 4.0, 5.0, -4.5]
    >>> preds = {"a": y * 1.05, "b": np.clip(y, -3, 3), "c": y + 0.3}
    >>> res = compare_metric_rankings(y, preds, metrics=["utility_f1", "sera"], top_k=1)
    >>> res.ranks.tolist()                      # rows: models a, b, c; 1 = best
    [[1.0, 1.0], [3.0, 3.0], [2.0, 2.0]]
    >>> float(res.kendall_tau[0, 1]), res.best_models
    (1.0, ('a', 'a'))
    """
    if metrics is None:
        raise TypeError("compare_metric_rankings() missing the keyword argument metrics=[...]")
    if not isinstance(predictions, Mapping):
        raise ValueError(
            f"predictions must be a mapping of model name to predictions; "
            f"got {type(predictions).__name__}"
        )
    if len(predictions) < 2:
        raise ValueError(f"predictions needs at least two models; got {len(predictions)}")
    if isinstance(metrics, str | MetricSpec):
        metrics = [metrics]
    specs = [m if isinstance(m, MetricSpec) else get_metric(m) for m in metrics]
    metric_names = tuple(spec.name for spec in specs)
    if not metric_names:
        raise ValueError("metrics needs at least one metric name; got none")
    if len(set(metric_names)) != len(metric_names):
        raise ValueError(f"metrics contains duplicates: {list(metric_names)}")
    for spec in specs:
        if spec.inputs != "point":
            raise ValueError(
                f"metric {spec.name!r} needs {spec.inputs} predictions; only point metrics "
                "can be compared here"
            )
        if spec.direction == "neutral":
            raise ValueError(f"metric {spec.name!r} is not ranked (direction 'neutral')")
    top_k = check_positive_int(top_k, "top_k")
    y = as_1d_float(y_true, "y_true", min_n=2)
    w = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    model_names = tuple(str(name) for name in predictions)
    preds = [
        check_pair(y, p, names=("y_true", f"predictions[{name!r}]"))[1]
        for name, p in zip(model_names, predictions.values(), strict=True)
    ]
    for spec in specs:
        if w is not None and not spec.supports_sample_weight:
            raise ValueError(f"metric {spec.name!r} does not accept sample_weight")

    from scipy.stats import kendalltau, rankdata

    n_models, n_metrics = len(preds), len(specs)
    k = min(top_k, n_models)
    scores = np.column_stack([_metric_scores(spec, y, preds, w) for spec in specs])
    goodness = np.column_stack([_goodness(scores[:, j], spec) for j, spec in enumerate(specs)])
    # rankdata ranks ascending; rank the negated goodness so 1 = best, -inf (undefined) last.
    ranks = np.column_stack([rankdata(-goodness[:, j], method="average") for j in range(n_metrics)])
    tops = [set(np.argsort(-goodness[:, j], kind="stable")[:k].tolist()) for j in range(n_metrics)]

    tau = np.eye(n_metrics)
    pval = np.zeros((n_metrics, n_metrics))
    overlap = np.eye(n_metrics)
    constant = [bool(np.all(ranks[:, j] == ranks[0, j])) for j in range(n_metrics)]
    for a in range(n_metrics):
        if constant[a]:
            tau[a, a] = pval[a, a] = math.nan
        for b in range(a + 1, n_metrics):
            if constant[a] or constant[b]:
                t, p = math.nan, math.nan
                which = metric_names[a] if constant[a] else metric_names[b]
                warn_undefined(
                    f"Kendall's tau between {metric_names[a]!r} and {metric_names[b]!r} is "
                    f"undefined: {which!r} gives every model the same rank; returning NaN"
                )
            else:
                res = kendalltau(ranks[:, a], ranks[:, b])
                t, p = float(res.statistic), float(res.pvalue)
            tau[a, b] = tau[b, a] = t
            pval[a, b] = pval[b, a] = p
            overlap[a, b] = overlap[b, a] = len(tops[a] & tops[b]) / k
    best = tuple(model_names[int(np.argmax(goodness[:, j]))] for j in range(n_metrics))
    return MetricRankingComparisonResult(
        models=model_names,
        metrics=metric_names,
        higher_is_better=tuple(spec.higher_is_better for spec in specs),
        scores=scores,
        ranks=ranks,
        kendall_tau=tau,
        kendall_pvalue=pval,
        top_k=k,
        top_k_overlap=overlap,
        best_models=best,
    )


# --------------------------------------------------------------------------------------------
# Agreement between two models' rankings


@dataclasses.dataclass(frozen=True, repr=False)
class RankingAgreementResult(Result):
    """How similarly two models rank the same observations (Rosset, Perlich & Zadrozny 2007).

    Attributes
    ----------
    n : int
    kendall_tau : float
        Kendall's tau-b between the two prediction vectors.
    spearman_rho : float
        Spearman's rho (midranks) between them.
    tau_ci : ConfidenceInterval
        Noether interval for tau at ``confidence_level`` (unbiased variance, see
        :func:`ranklens.ranking.ranking_summary`); ``ConfidenceInterval(nan, nan)`` with
        ``sample_weight`` (case weights define no sample size).
    confidence_level : float
    """

    n: int
    kendall_tau: float
    spearman_rho: float
    tau_ci: ConfidenceInterval
    confidence_level: float


@raises_input_errors("pred_a", "pred_b", probabilities=("confidence_level",))
@shared_paragraphs
def ranking_agreement(
    pred_a: ArrayLike,
    pred_b: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> RankingAgreementResult:
    """Kendall's tau and Spearman's rho between two models' predictions.

    Parameters
    ----------
    pred_a, pred_b : array-like of shape (n,)
        Predictions of the two models on the same rows.
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights (point estimates only).
    confidence_level : float, default 0.95
        Level of the interval for tau.

    Returns
    -------
    RankingAgreementResult
        Kendall's tau-b and Spearman's rho between the two predictions, with tau's interval and
        p-values.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    In the KDD Cup 98 donations study of Rosset, Perlich & Zadrozny (2007, Sect. 7) the linear
    model and the neural network disagree on RMSE and MAE yet rank the donors almost
    identically, tau = 0.9 and rho = 0.984 between their predictions, "much higher than that of
    either of them and the true donations". Two models
    that agree this closely can still differ significantly (:func:`compare_models` pairs them).

    Same definitions as :func:`ranklens.ranking.ranking_summary` (tau-b and midrank Spearman;
    weighted pairs count ``w_i w_j``). Symmetric in ``pred_a`` and ``pred_b``. For a bivariate
    normal pair with correlation r, tau = (2/pi) arcsin r and rho = (6/pi) arcsin(r/2): tau = 0.9
    goes with rho = 0.986, so the paper's two numbers are consistent.

    Computed as :func:`ranklens.ranking.ranking_summary` with ``pred_a`` in place of the truth.

    References
    ----------
    %(rosset2007)s

    Examples
    --------
    >>> r = ranking_agreement([1.0, 2.0, 3.0, 4.0], [1.5, 2.5, 2.0, 9.0])
    >>> round(r.kendall_tau, 4), round(r.spearman_rho, 4)
    (0.6667, 0.8)
    """
    a, b = check_pair(pred_a, pred_b, names=("pred_a", "pred_b"))
    level = check_probability(confidence_level, "confidence_level")
    sw = check_sample_weight(sample_weight, a.shape[0], normalize=False)
    if sw is None:
        summary = ranking_summary(a, b, confidence_level=level)
        return RankingAgreementResult(
            n=int(a.shape[0]),
            kendall_tau=float(summary.kendall_tau),
            spearman_rho=float(summary.spearman_rho),
            tau_ci=ConfidenceInterval(float(summary.tau_ci.low), float(summary.tau_ci.high)),
            confidence_level=level,
        )
    return RankingAgreementResult(
        n=int(a.shape[0]),
        kendall_tau=float(kendall_tau(a, b, sample_weight=sw)),
        spearman_rho=float(spearman_rho(a, b, sample_weight=sw)),
        tau_ci=ConfidenceInterval.undefined(),
        confidence_level=level,
    )
