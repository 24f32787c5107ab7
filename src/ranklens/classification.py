"""Binary targets as what they are: events ranked by a score, and probabilities of them.

A churn or credit model is judged on a 0/1 target with a score in [0, 1]. Two questions:

- **Does the score put the events first?** :func:`average_precision_score` (the step-wise area
  under :func:`precision_recall_curve`), :func:`precision_at_depth`, :func:`recall_at_depth` and
  the 2x2 counts of :func:`confusion_at_depth` when the top share of the cases by score is
  targeted (family ``"targeting"``, with the ROC AUC, the lift and the gain of
  :mod:`ranklens.targeting`, where they are defined). A continuous ``y_true`` has the events of
  those functions: its true top 10 % by default, or the ``events=`` given.
- **Is the score a good probability?** :func:`brier_score_loss` and :func:`log_loss`, proper
  scoring rules that reward calibration as well as ranking (family ``"probability"``). Both
  need a 0/1 ``y_true`` and scores in [0, 1]: a score outside gives NaN with an
  :class:`~ranklens.exceptions.UndefinedMetricWarning` saying that the scores are not
  probabilities.

Every function here equals its scikit-learn namesake (``sklearn.metrics``), weights included.
:func:`ranklens.evaluate_models` computes them by default for a 0/1 target
(``positive_label=`` turns a target of two labels into one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.forms import RatioForm
from ranklens._foundation.registry import register_metric
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import FloatArray, check_pair, check_sample_weight
from ranklens.exceptions import DomainError, warn_undefined
from ranklens.targeting import (
    ConfusionCounts,
    PrecisionRecallCurveResult,
    average_precision_score,
    confusion_at_depth,
    precision_at_5,
    precision_at_10,
    precision_at_20,
    precision_at_depth,
    precision_recall_curve,
    recall_at_5,
    recall_at_10,
    recall_at_20,
    recall_at_depth,
)

__all__ = [
    "LOG_LOSS_EPS",
    "ConfusionCounts",
    "PrecisionRecallCurveResult",
    "average_precision_score",
    "binary_target",
    "brier_score_loss",
    "confusion_at_depth",
    "event_label",
    "log_loss",
    "precision_at_5",
    "precision_at_10",
    "precision_at_20",
    "precision_at_depth",
    "precision_recall_curve",
    "probability_scores",
    "recall_at_5",
    "recall_at_10",
    "recall_at_20",
    "recall_at_depth",
]

#: The log loss clips each probability to ``[eps, 1 - eps]`` with this ``eps``, the machine
#: epsilon of float64 (``np.finfo(np.float64).eps``, about 2.2e-16), as scikit-learn's
#: ``log_loss`` does since 1.5 (its ``eps`` argument is gone): a probability of exactly 0 for
#: an event costs ``-log(eps)``, about 36.04, instead of infinity.
LOG_LOSS_EPS = float(np.finfo(np.float64).eps)


def probability_scores(y_pred: Any) -> bool:
    """Whether every value of ``y_pred`` lies in [0, 1] (a score that can be a probability).

    Parameters
    ----------
    y_pred : array-like of shape (n,)
        The scores (numbers).

    Returns
    -------
    bool
        True when all values are in [0, 1] (NaN is not).
    """
    p = np.asarray(y_pred, dtype=np.float64)
    return bool(np.all((p >= 0.0) & (p <= 1.0)))


def _not_probabilities(p: FloatArray, func: str) -> bool:
    """Warn (undefined) and return True when a score lies outside [0, 1]."""
    bad = ~((p >= 0.0) & (p <= 1.0))
    if not bad.any():
        return False
    first = int(np.flatnonzero(bad)[0])
    warn_undefined(
        f"{func} is undefined: the scores are not probabilities (y_pred holds {p[first]!r} at "
        f"position {first}, {int(bad.sum())} value(s) outside [0, 1]); rescale them to "
        "probabilities or judge their ranking with roc_auc or average_precision_score",
        stacklevel=4,
    )
    return True


def _binary_labels(y: FloatArray, func: str) -> None:
    """A :class:`DomainError` naming ``y_true`` when it holds a value other than 0 and 1."""
    bad = (y != 0.0) & (y != 1.0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise DomainError(
            f"{func} needs a 0/1 y_true (the events of a binary target); got {y[first]!r} at "
            f"position {first}. Map a target of two labels to 0/1 first "
            "(evaluate_models(..., positive_label=...))"
        )


def _probability_loss(
    form: RatioForm, y_true: Any, y_pred: Any, sample_weight: Any, func: str
) -> float:
    """The mean loss of ``form`` on the validated arrays, or NaN (after the warning) when the
    scores are not probabilities."""
    y, p = check_pair(y_true, y_pred, min_n=1)
    w = check_sample_weight(sample_weight, y.shape[0])
    _binary_labels(y, func)
    if _not_probabilities(p, func):
        return math.nan
    return form.evaluate(y, p, w)


def _in_domain(y: FloatArray, p: FloatArray) -> np.ndarray:
    return ((y == 0.0) | (y == 1.0)) & (p >= 0.0) & (p <= 1.0)


def _squared_terms(y: FloatArray, p: FloatArray) -> FloatArray:
    """Per-row ``(y - p)^2``; NaN where ``y`` is not 0/1 or ``p`` not in [0, 1] (the measure
    is then NaN, as the function says with its warning)."""
    return np.where(_in_domain(y, p), (y - p) ** 2, np.nan)


def _log_terms(y: FloatArray, p: FloatArray) -> FloatArray:
    """Per-row ``-log(p)`` for an event, ``-log(1 - p)`` for a non-event, ``p`` clipped to
    ``[eps, 1 - eps]``; NaN where ``y`` is not 0/1 or ``p`` not in [0, 1]."""
    clipped = np.clip(p, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = np.where(y == 1.0, -np.log(clipped), -np.log(1.0 - clipped))
    return np.where(_in_domain(y, p), loss, np.nan)


_BRIER = RatioForm(_squared_terms, bounded=True)  # squared errors of probabilities: in [0, 1]
_LOG_LOSS = RatioForm(_log_terms)


def _leave_one_out(terms: Any) -> Any:
    """The exact O(n) leave-one-out of the mean of per-row ``terms(y, p)``: the correctly
    rounded total less each row's own term, over ``n - 1``."""

    def without_each(y: FloatArray, p: FloatArray) -> FloatArray:
        values = terms(y, p)
        return np.asarray((math.fsum(values) - values) / (values.shape[0] - 1), np.float64)

    return without_each


@register_metric(
    "brier_score_loss",
    higher_is_better=False,
    family="probability",
    targets="binary",
    plain_name="Brier score",
    meaning="Mean squared gap between the 0/1 outcome and its predicted probability (0 = perfect).",
    description="Brier score: mean squared gap between the 0/1 outcome and its probability",
    batched=_BRIER,
    leave_one_out=_leave_one_out(_squared_terms),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def brier_score_loss(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""Brier score of probability scores for a 0/1 target, lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 (or bool) labels: 1 for an event.
    y_pred : array-like of shape (n,)
        The probability of an event, in [0, 1].
    %(sample_weight)s

    Returns
    -------
    float
        In [0, 1]; 0 for certain and right predictions, ``p (1 - p)`` for the constant
        prediction of the event share ``p``. NaN, with an
        :class:`~ranklens.exceptions.UndefinedMetricWarning`, when a score lies outside
        [0, 1] (the scores are not probabilities).

    Raises
    ------
    %(input_errors)s
    DomainError
        If ``y_true`` holds a value other than 0 and 1.

    Notes
    -----
    .. math::
        \mathrm{BS} = \frac{\sum_i w_i (y_i - p_i)^2}{\sum_i w_i},

    a strictly proper scoring rule (Brier 1950; Gneiting & Raftery 2007). Equal to
    ``sklearn.metrics.brier_score_loss`` (with ``sample_weight`` too), which raises instead of
    returning NaN for scores outside [0, 1].

    References
    ----------
    Brier, G. W. (1950). Verification of forecasts expressed in terms of probability.
    *Monthly Weather Review* 78(1), 1-3.

    Gneiting, T. and Raftery, A. E. (2007). Strictly proper scoring rules, prediction, and
    estimation. *Journal of the American Statistical Association* 102(477), 359-378.

    Examples
    --------
    >>> round(brier_score_loss([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.1]), 6)
    0.055
    """
    return _probability_loss(_BRIER, y_true, y_pred, sample_weight, "brier_score_loss")


@register_metric(
    "log_loss",
    higher_is_better=False,
    family="probability",
    targets="binary",
    plain_name="log loss",
    meaning="Mean penalty -log(probability given to what happened): confident mistakes cost most.",
    description="Log loss: mean negative log-probability given to the outcome that occurred",
    batched=_LOG_LOSS,
    leave_one_out=_leave_one_out(_log_terms),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def log_loss(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    r"""Log loss (cross-entropy) of probability scores for a 0/1 target, lower is better.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 (or bool) labels: 1 for an event.
    y_pred : array-like of shape (n,)
        The probability of an event, in [0, 1].
    %(sample_weight)s

    Returns
    -------
    float
        Non-negative; ``-p log p - (1 - p) log(1 - p)`` for the constant prediction of the
        event share ``p``. NaN, with an :class:`~ranklens.exceptions.UndefinedMetricWarning`,
        when a score lies outside [0, 1] (the scores are not probabilities).

    Raises
    ------
    %(input_errors)s
    DomainError
        If ``y_true`` holds a value other than 0 and 1.

    Notes
    -----
    .. math::
        \mathrm{LL} = -\frac{\sum_i w_i \left[y_i \log \tilde p_i
        + (1 - y_i) \log(1 - \tilde p_i)\right]}{\sum_i w_i},
        \qquad \tilde p_i = \min(\max(p_i, \epsilon), 1 - \epsilon),

    the logarithmic scoring rule (Good 1952; Gneiting & Raftery 2007), with :data:`LOG_LOSS_EPS`
    (the float64 machine epsilon) as ``epsilon``: scikit-learn's ``log_loss`` clips alike
    (since 1.5, with no ``eps`` argument), so a probability of exactly 0 for an event costs
    ``-log(epsilon)``, about 36.04, and not infinity. Equal to ``sklearn.metrics.log_loss``
    (with ``sample_weight`` too), which raises instead of returning NaN for scores outside
    [0, 1], and needs both classes in ``y_true`` where this does not.

    References
    ----------
    Good, I. J. (1952). Rational decisions. *Journal of the Royal Statistical Society, Series B*
    14(1), 107-114.

    Gneiting, T. and Raftery, A. E. (2007). Strictly proper scoring rules, prediction, and
    estimation. *Journal of the American Statistical Association* 102(477), 359-378.

    Examples
    --------
    >>> round(log_loss([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.1]), 6)
    0.236173
    """
    return _probability_loss(_LOG_LOSS, y_true, y_pred, sample_weight, "log_loss")


def _distinct(values: np.ndarray) -> list[Any]:
    """The distinct values of a 1-D array, in order of first appearance (at most a few more
    than two are needed: the search stops early only through pandas' hashing, O(n))."""
    import pandas as pd  # imported where needed: the measures load without pandas

    return [v.item() if isinstance(v, np.generic) else v for v in pd.unique(pd.Series(values))]


def event_label(distinct: Sequence[Any], positive_label: Any, *, numeric: bool) -> Any:
    """The value of a target of two values that :func:`binary_target` maps to 1.

    The checks of :func:`binary_target` on the target's distinct values alone, for an engine
    that finds them in a pass of its own (the Dask engine); the target is then 1 where it
    equals the value returned and 0 elsewhere.

    Parameters
    ----------
    distinct : sequence
        The distinct values of the target (missing values left out).
    positive_label : object
        The label of an event; a string given for a numeric target is read as a number.
    numeric : bool
        Whether the target holds numbers.

    Returns
    -------
    object
        ``positive_label``, or the number it reads as for a numeric target.

    Raises
    ------
    ValueError
        Naming ``positive_label``: when it does not occur in ``distinct``, or when there are
        more than two distinct values.

    Examples
    --------
    >>> event_label(["no", "yes"], "yes", numeric=False)
    'yes'
    >>> event_label([1, 2], "2", numeric=True)
    2.0
    """
    if len(distinct) > 2:
        shown = ", ".join(map(repr, distinct[:5]))
        raise ValueError(
            f"positive_label={positive_label!r} makes a 0/1 target of a target with two "
            f"values; y_true holds {len(distinct)} distinct values ({shown}, ...)"
        )
    label = positive_label
    if numeric and isinstance(label, str):
        try:
            label = float(label)
        except ValueError:
            raise ValueError(
                f"positive_label={positive_label!r} does not occur in y_true, which holds the "
                f"numbers {', '.join(map(repr, distinct))}"
            ) from None
    if not any(v == label for v in distinct):
        raise ValueError(
            f"positive_label={positive_label!r} does not occur in y_true, which holds "
            f"{', '.join(map(repr, distinct))}"
        )
    return label


def binary_target(y_true: Any, positive_label: Any = None) -> Any:
    """``y_true`` as a 0/1 target: 1 where it equals ``positive_label``, 0 elsewhere.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The target: numbers, or labels such as ``"yes"``/``"no"``.
    positive_label : object, optional
        The label of an event. A string given for a numeric target is read as a number
        (``"1"`` matches ``1.0``). None: ``y_true`` is returned as given, unless it holds
        exactly two distinct labels that are not numbers (``"yes"``/``"no"``), which is
        refused; a numeric target is evaluated as its numbers (as events when they are 0 and
        1).

    Returns
    -------
    ndarray of float64 or the input
        The 0/1 target; ``y_true`` itself when ``positive_label`` is None.

    Raises
    ------
    ValueError
        Naming ``positive_label``: when it does not occur in ``y_true``, when ``y_true`` holds
        more than two distinct values, or (``positive_label`` None) when ``y_true`` holds two
        distinct labels that are not numbers.
    """
    values = np.asarray(y_true.to_numpy() if hasattr(y_true, "to_numpy") else y_true)
    if values.ndim != 1:
        return y_true  # the measures refuse it, naming y_true
    numeric = values.dtype.kind in "biuf"
    distinct = _distinct(values)
    if positive_label is None:
        # Two labels that are not numbers ("yes"/"no") need to be told which is the event; a
        # numeric target is evaluated as numbers (two rows of a continuous target have two
        # values too), and as events when its values are 0 and 1.
        if len(distinct) == 2 and not numeric:
            raise ValueError(
                f"y_true holds two values, {distinct[0]!r} and {distinct[1]!r}, not 0 and 1: "
                "give positive_label (--positive-label VALUE on the command line) to say which "
                "is the event"
            )
        return y_true
    label = event_label(distinct, positive_label, numeric=numeric)
    return (values == label).astype(np.float64)
