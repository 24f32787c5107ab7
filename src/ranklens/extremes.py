"""Precision and recall for regression: utility-based measures for rare extreme values.

Torgo & Ribeiro (2009), "Precision and Recall for Regression", with the parameters that reproduce
their Table 3 and its errata put right; relevance-weighted errors (their Sect. 3.1) and SERA
(Ribeiro & Moniz 2020).

- Accuracy functions alpha (eqs. 8-9): :func:`step_accuracy`, :func:`smooth_accuracy`.
- :func:`regression_precision_recall` (eqs. 6, 10, 11): precision, recall and F-beta with the
  event counts; :func:`regression_precision_recall_curve` over the event threshold and
  :func:`regression_f_beta_curve` over beta.
- :func:`relevance_weighted_error` (case weights phi(y)), :func:`sera` and :func:`sera_curve`.

Registered scalar measures (family ``"extremes"``): ``utility_precision``, ``utility_recall``,
``utility_f1`` (higher is better), ``sera``, ``relevance_weighted_squared_error`` and
``relevance_weighted_absolute_error`` (lower is better). Called with only
``(y_true, y_pred, *, sample_weight=None)`` they use the **default relevance**
``relevance_from_boxplot(y_true, extremes="auto")`` (box-plot sigmoids, warning and falling back
to both fences when ``y_true`` has no outliers) and the **default accuracy**
``smooth_accuracy(threshold=IQR(y_true) / 2, k=8)``, which for the sample behind Torgo & Ribeiro's
Table 3 (fences at +-2, so IQR = 1) is exactly the table's t_L = 0.5, k = 8. With
``sample_weight`` both defaults use the weighted box plot (frequency weights, on the scale they
are given), so integer weights act exactly as repeated rows, as everywhere in ranklens; with an
explicit relevance and accuracy every measure depends only on the ratios of the weights (SERA, a
sum, on their scale as well).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ranklens._compute.xp import utility as _xu
from ranklens._foundation.curve_registry import CurveSumsForm, register_curve
from ranklens._foundation.docstrings import (
    made_function,
    raises_input_errors,
    shared_paragraphs,
)
from ranklens._foundation.forms import OrderStatisticFit, ReplicateForm, ReplicateSweep, SumsForm
from ranklens._foundation.hinges import Sample, frequency_weights, hinge_positions, hinges_of
from ranklens._foundation.registry import register_metric
from ranklens._foundation.results import CurveResult, Result
from ranklens._foundation.scaling import scaled_residuals
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    as_1d_float,
    check_event_threshold,
    check_nonnegative_number,
    check_pair,
    check_sample_weight_scaled,
    relevance_values,
)
from ranklens._measures.relevance_functions import relevance_from_limits
from ranklens.exceptions import warn_undefined
from ranklens.relevance import SigmoidRelevance, relevance_from_boxplot

__all__ = [
    "RegressionFBetaCurveResult",
    "RegressionPrecisionRecallCurveResult",
    "RegressionPrecisionRecallResult",
    "SeraCurveResult",
    "SmoothAccuracy",
    "StepAccuracy",
    "regression_f_beta_curve",
    "regression_precision_recall",
    "regression_precision_recall_curve",
    "relevance_weighted_absolute_error",
    "relevance_weighted_error",
    "relevance_weighted_squared_error",
    "sera",
    "sera_curve",
    "smooth_accuracy",
    "step_accuracy",
    "utility_f1",
    "utility_precision",
    "utility_recall",
]

FloatArray = NDArray[np.float64]
RelevanceLike = Callable[[Any], Any]
AccuracyLike = Callable[[FloatArray, FloatArray], Any]
Loss = Literal["absolute", "squared"]
_LOSSES = ("absolute", "squared")


def _loss_code(loss: str) -> int:
    """The kernel's code of a loss name (held by the NumPy forms: reading it imports no numba)."""
    return _xu.LOSS_SQUARED if loss == "squared" else _xu.LOSS_ABSOLUTE


def _accuracy_kernel(n: int) -> Any:
    """``accuracy_values`` for ``n`` rows: its NumPy form (the same numbers, bit for bit) for
    small inputs while the kernel is not loaded
    (:func:`ranklens._compute.xp.utility.numpy_route`)."""
    if _xu.numpy_route(n, "accuracy_values"):
        return _xu.accuracy_values_numpy
    from ranklens._compute.kernels import utility as _k  # imports numba

    return _k.accuracy_values


def _precision_recall_sums(*args: Any) -> tuple[float, float, int, float, float, int]:
    """``precision_recall_sums(phi_true, phi_pred, alpha, weight, use_weight, event_threshold)``
    from its NumPy form (bit for bit) for small inputs while the kernel is not loaded."""
    if _xu.numpy_route(args[0].shape[0], "precision_recall_sums"):
        return _xu.precision_recall_sums_numpy(*args)
    from ranklens._compute.kernels import utility as _k  # imports numba

    return _k.precision_recall_sums(*args)


# ------------------------------------------------------------------------------------------------
# Accuracy functions alpha (Torgo & Ribeiro 2009, eqs. 8-9)


def _check_loss(loss: Any) -> int:
    if loss not in _LOSSES:
        raise ValueError(f"loss must be 'absolute' or 'squared'; got {loss!r}")
    return _loss_code(loss)


def _check_threshold(value: Any, *, allow_zero: bool) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"threshold must be a non-negative number; got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        bound = "non-negative" if allow_zero else "positive"
        raise ValueError(f"threshold must be a finite {bound} number; got {value!r}")
    return v


@dataclasses.dataclass(frozen=True)
class StepAccuracy:
    r"""alpha = I(L(y, yhat) <= t_L), Torgo & Ribeiro (2009) eq. 8 (use :func:`step_accuracy`).

    With ``threshold=0`` only exact predictions are accurate: the 0/1 accuracy of classification
    (eq. 7), under which the measures reduce to classification precision and recall.
    """

    threshold: float
    loss: Loss = "absolute"

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", _check_threshold(self.threshold, allow_zero=True))
        _check_loss(self.loss)

    def __call__(self, y_true: Any, y_pred: Any) -> FloatArray:
        """alpha for each pair (argument order as everywhere in ranklens: truth first)."""
        a, b = check_pair(y_true, y_pred, min_n=1)
        return _accuracy_kernel(a.shape[0])(a, b, False, self.threshold, 0.0, _loss_code(self.loss))


@dataclasses.dataclass(frozen=True)
class SmoothAccuracy:
    r"""alpha = I(L <= t_L) (1 - exp(-k (L - t_L)^2 / t_L^2)), Torgo & Ribeiro (2009) eq. 9.

    Use :func:`smooth_accuracy`. Note alpha(L = 0) = 1 - e^{-k}, not exactly 1 (0.99966 for
    k = 8), as in the paper.
    """

    threshold: float
    k: float = 8.0
    loss: Loss = "absolute"

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", _check_threshold(self.threshold, allow_zero=False))
        try:
            k = float(self.k)
        except (TypeError, ValueError):
            raise ValueError(f"k must be a positive number; got {self.k!r}") from None
        if not (math.isfinite(k) and k > 0):
            raise ValueError(f"k must be a positive number; got {self.k!r}")
        object.__setattr__(self, "k", k)
        _check_loss(self.loss)

    def __call__(self, y_true: Any, y_pred: Any) -> FloatArray:
        """alpha for each pair (argument order as everywhere in ranklens: truth first)."""
        a, b = check_pair(y_true, y_pred, min_n=1)
        return _accuracy_kernel(a.shape[0])(
            a, b, True, self.threshold, self.k, _loss_code(self.loss)
        )


@shared_paragraphs
def step_accuracy(threshold: float, loss: Loss = "absolute") -> StepAccuracy:
    r"""Step accuracy alpha(yhat, y) = I(L(yhat, y) <= t_L) (Torgo & Ribeiro 2009, eq. 8).

    Parameters
    ----------
    threshold : float
        t_L >= 0, on the scale of the loss (squared units for ``loss="squared"``).
    loss : {"absolute", "squared"}
        L = |yhat - y| or (yhat - y)^2.

    Returns
    -------
    StepAccuracy
        A callable ``alpha(y_true, y_pred) -> ndarray`` of 0s and 1s.

    Notes
    -----
    alpha = I(L <= t_L) (Torgo & Ribeiro 2009, eq. 8).

    References
    ----------
    %(torgo2009)s

    Examples
    --------
    >>> step_accuracy(0.5)([0.0, 0.0], [0.4, 0.6]).tolist()
    [1.0, 0.0]
    """
    return StepAccuracy(threshold=threshold, loss=loss)


@shared_paragraphs
def smooth_accuracy(threshold: float, k: float = 8.0, loss: Loss = "absolute") -> SmoothAccuracy:
    r"""Smooth accuracy (Torgo & Ribeiro 2009, eq. 9): a Gaussian-shaped decay over [0, t_L].

    Parameters
    ----------
    threshold : float
        t_L > 0, on the scale of the loss.
    k : float, default 8
        Steepness; k = 8 reproduces Table 3 of Torgo & Ribeiro (2009) (the paper does not
        state it).
    loss : {"absolute", "squared"}

    Returns
    -------
    SmoothAccuracy
        A callable ``alpha(y_true, y_pred) -> ndarray`` of values in [0, 1].

    Notes
    -----
    .. math:: \alpha = I(L \le t_L) \left(1 - e^{-k (L - t_L)^2 / t_L^2}\right)

    References
    ----------
    %(torgo2009)s

    Examples
    --------
    Torgo & Ribeiro (2009) Table 3, M1's third prediction (L = 0.23, t_L = 0.5):

    >>> round(float(smooth_accuracy(0.5)([-2.43], [-2.20])[0]), 2)
    0.9
    """
    return SmoothAccuracy(threshold=threshold, k=k, loss=loss)


# ------------------------------------------------------------------------------------------------
# Shared preparation


def _default_accuracy(y_true: FloatArray, frequency: FloatArray | None) -> SmoothAccuracy:
    """``smooth_accuracy(IQR / 2, k=8)`` with the IQR of the default box plot (Tukey's hinges;
    ``frequency``: the case weights as given, read as frequencies as the box plot reads them)."""
    sample = Sample.of(y_true, frequency)
    return _accuracy_from_hinges([sample.at(k) for k in hinge_positions(sample.size)])


def _accuracy_from_hinges(values: Any) -> SmoothAccuracy:
    """The default accuracy from the values at the hinge positions
    (:func:`ranklens._foundation.hinges.hinge_positions`) of ``y_true``."""
    q1, _, q3 = hinges_of(values)
    half_iqr = 0.5 * q3 - 0.5 * q1  # halves first: q3 - q1 may exceed the largest float
    if not half_iqr > 0:
        raise ValueError(
            "the default accuracy smooth_accuracy(threshold=IQR(y_true)/2) needs an interquartile "
            "range > 0; y_true has IQR 0, so pass accuracy= explicitly"
        )
    return SmoothAccuracy(threshold=half_iqr, k=8.0)


#: The default accuracy, smooth_accuracy(IQR(y_true) / 2, k=8), from the hinges of y_true.
_ACCURACY_FIT = OrderStatisticFit(positions=hinge_positions, build=_accuracy_from_hinges)


def _accuracy_values(accuracy: Any, y_true: FloatArray, y_pred: FloatArray) -> FloatArray:
    if isinstance(accuracy, StepAccuracy | SmoothAccuracy):
        # Skip the re-validation of the public __call__: the pair is already checked.
        smooth = isinstance(accuracy, SmoothAccuracy)
        k = accuracy.k if isinstance(accuracy, SmoothAccuracy) else 0.0
        return _accuracy_kernel(y_true.shape[0])(
            y_true, y_pred, smooth, accuracy.threshold, k, _loss_code(accuracy.loss)
        )
    if not callable(accuracy):
        raise ValueError(
            f"accuracy must be a callable alpha(y_true, y_pred) such as step_accuracy(...); "
            f"got {type(accuracy).__name__}"
        )
    alpha = np.ascontiguousarray(np.asarray(accuracy(y_true, y_pred), dtype=np.float64))
    if alpha.shape != y_true.shape:
        raise ValueError(
            f"accuracy must return one value per pair ({y_true.shape[0]}); got shape {alpha.shape}"
        )
    if not (np.isfinite(alpha).all() and alpha.min() >= 0.0 and alpha.max() <= 1.0):
        raise ValueError("accuracy must return finite values in [0, 1]")
    return alpha


@dataclasses.dataclass(frozen=True)
class _Prepared:
    y_true: FloatArray
    y_pred: FloatArray
    weight: FloatArray | None  # case weights rescaled to mean 1
    weight_scale: float  # the given weights are weight * weight_scale
    phi_true: FloatArray
    phi_pred: FloatArray
    alpha: FloatArray


def _prepare(
    y_true: Any,
    y_pred: Any,
    relevance: RelevanceLike | None,
    accuracy: Any,
    sample_weight: Any,
    *,
    need_pred_relevance: bool = True,
    need_accuracy: bool = True,
) -> _Prepared:
    a, b = check_pair(y_true, y_pred)
    # The weighted sums use the weights rescaled to mean 1 (no overflow or underflow however
    # large or small the weights are); the default box plot reads the weights as frequencies,
    # on the scale they were given, so that integer weights act exactly as repeated rows.
    w, scale = check_sample_weight_scaled(sample_weight, a.shape[0])
    uses_box_plot = relevance is None or (need_accuracy and accuracy is None)
    frequency = frequency_weights(sample_weight, a.shape[0]) if uses_box_plot else None
    if relevance is None:
        relevance = relevance_from_boxplot(a, extremes="auto", sample_weight=frequency)
    elif not callable(relevance):
        raise ValueError(
            "relevance must be a callable phi(y) -> [0, 1] such as SigmoidRelevance(...); "
            f"got {type(relevance).__name__}"
        )
    phi_true = relevance_values(relevance, a, "y_true")
    phi_pred = relevance_values(relevance, b, "y_pred") if need_pred_relevance else phi_true
    if need_accuracy:
        acc = _default_accuracy(a, frequency) if accuracy is None else accuracy
        alpha = _accuracy_values(acc, a, b)
    else:
        alpha = phi_true
    return _Prepared(a, b, w, scale, phi_true, phi_pred, alpha)


def _f_beta(precision: float, recall: float, beta: float) -> float:
    """Eq. 11; 0 when precision = recall = 0 (the weighted harmonic mean lies between them)."""
    if math.isnan(precision) or math.isnan(recall):
        return math.nan
    b2 = beta * beta
    den = b2 * precision + recall
    if den == 0.0:
        return 0.0
    return (b2 + 1.0) * precision * recall / den


# ------------------------------------------------------------------------------------------------
# Precision, recall, F-beta


@dataclasses.dataclass(frozen=True, repr=False)
class RegressionPrecisionRecallResult(Result):
    """Utility-based precision, recall and F-beta (:func:`regression_precision_recall`).

    Attributes
    ----------
    precision, recall, f_beta : float
        Eqs. 10, 6 and 11 of Torgo & Ribeiro (2009); NaN (with a warning) when undefined.
    beta, event_threshold : float
        The parameters used.
    n_true_events, n_predicted_events : int
        Observations with phi(y) >= t_E and with phi(yhat) >= t_E (rows of positive weight).
    true_event_relevance, predicted_event_relevance : float
        The denominators: (weighted) sums of phi over true and predicted events.
    """

    precision: float
    recall: float
    f_beta: float
    beta: float
    event_threshold: float
    n_true_events: int
    n_predicted_events: int
    true_event_relevance: float
    predicted_event_relevance: float


@raises_input_errors("y_true", "y_pred", nonnegative=("beta",))
@shared_paragraphs
def regression_precision_recall(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    relevance: RelevanceLike | None = None,
    event_threshold: float = 0.5,
    accuracy: AccuracyLike | None = None,
    beta: float = 1.0,
    sample_weight: ArrayLike | None = None,
) -> RegressionPrecisionRecallResult:
    r"""Precision, recall and F-beta for regression (Torgo & Ribeiro 2009, eqs. 6-11).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    relevance : callable, optional
        phi(y) -> [0, 1] (a :class:`~ranklens.SigmoidRelevance`,
        :class:`~ranklens.ControlPointRelevance` or any vectorised callable). Default:
        ``relevance_from_boxplot(y_true, extremes="auto")`` (see :mod:`ranklens.extremes`). For
        model selection derive it once from the training targets and pass it, so every model
        and fold is judged by the same relevance.
    event_threshold : float, default 0.5
        t_E in (0, 1].
    accuracy : callable, optional
        alpha(y_true, y_pred) -> [0, 1], e.g. :func:`smooth_accuracy` or :func:`step_accuracy`.
        Default ``smooth_accuracy(threshold=IQR(y_true)/2, k=8)``.
    beta : float, default 1.0
        Weight of recall relative to precision (>= 0; the paper uses beta = 0.5 for trading).
    %(sample_weight)s

    Returns
    -------
    RegressionPrecisionRecallResult

    Raises
    ------
    %(input_errors)s

    Warns
    -----
    UndefinedMetricWarning
        No predicted events (Torgo & Ribeiro 2009, footnote 8: the model "has no precision score"):
        precision and F are NaN. No true events: recall and F are NaN. When precision = recall = 0,
        F = 0.

    Notes
    -----
    .. math::
        \mathrm{recall} = \frac{\sum_{\phi(y_i) \ge t_E} \alpha_i\, \phi(y_i)}
                               {\sum_{\phi(y_i) \ge t_E} \phi(y_i)}, \quad
        \mathrm{precision} = \frac{\sum_{\phi(\hat y_i) \ge t_E} \alpha_i\, \phi(\hat y_i)}
                                  {\sum_{\phi(\hat y_i) \ge t_E} \phi(\hat y_i)}, \quad
        F_\beta = \frac{(\beta^2 + 1) P R}{\beta^2 P + R}

    Events are the observations whose relevance reaches ``t_E``; alpha_i in [0, 1] is the accuracy
    of prediction i. The paper's eq. 10 mixes >= and > between numerator and denominator;
    ranklens uses >= in both. Case weights multiply every term.

    References
    ----------
    %(torgo2009)s

    Examples
    --------
    Torgo & Ribeiro (2009) Table 3, model M2 (centres +-2 and k = 8, the values that reproduce
    the table; the text states +-1.5):

    >>> from ranklens import SigmoidRelevance
    >>> y = [-5.29, -2.65, -2.43, -0.20, -0.03, 0.03, 0.51, 1.46, 2.53, 2.94]
    >>> m2 = [-5.09, -2.95, -2.89, 0.69, -0.82, 0.70, -0.08, 0.92, 2.83, 3.17]
    >>> res = regression_precision_recall(
    ...     y, m2, relevance=SigmoidRelevance(-2.0, 2.0), event_threshold=0.75,
    ...     accuracy=smooth_accuracy(0.5, k=8))
    >>> round(res.recall, 6), round(res.precision, 6)
    (0.670344, 0.668162)
    """
    t_e = check_event_threshold(event_threshold)
    beta = check_nonnegative_number(beta, "beta")
    prep = _prepare(y_true, y_pred, relevance, accuracy, sample_weight)
    num_r, den_r, n_true, num_p, den_p, n_pred = _precision_recall_sums(
        prep.phi_true,
        prep.phi_pred,
        prep.alpha,
        prep.weight if prep.weight is not None else prep.alpha,
        prep.weight is not None,
        t_e,
    )
    precision = _precision(num_p, den_p, t_e)
    recall = _recall(num_r, den_r, t_e)
    return RegressionPrecisionRecallResult(
        precision=float(precision),
        recall=float(recall),
        f_beta=_f_beta(precision, recall, beta),
        beta=beta,
        event_threshold=t_e,
        n_true_events=int(n_true),
        n_predicted_events=int(n_pred),
        # weighted sums: on the scale of the given weights (integer weights = repeated rows)
        true_event_relevance=float(_unscale(den_r, 0, prep.weight_scale)),
        predicted_event_relevance=float(_unscale(den_p, 0, prep.weight_scale)),
    )


def _precision(num: float, den: float, t_e: float) -> float:
    if den > 0:
        return num / den
    warn_undefined(
        f"precision is undefined: no prediction has relevance >= event_threshold={t_e:g} "
        "(no predicted events; Torgo & Ribeiro 2009, footnote 8); returning NaN"
    )
    return math.nan


def _recall(num: float, den: float, t_e: float) -> float:
    if den > 0:
        return num / den
    warn_undefined(
        f"recall is undefined: no true value has relevance >= event_threshold={t_e:g} "
        "(no true events); returning NaN"
    )
    return math.nan


@dataclasses.dataclass(frozen=True, repr=False)
class RegressionPrecisionRecallCurveResult(CurveResult):
    """Precision, recall and F-beta as the event threshold t_E varies.

    Attributes
    ----------
    thresholds : ndarray
        Increasing event thresholds t_E.
    precision, recall, f_beta : ndarray
        The measures at each threshold (NaN where undefined).
    n_true_events, n_predicted_events : ndarray of int
        Event counts at each threshold.
    beta : float
    best_threshold, best_f_beta : float
        The threshold with the largest F-beta (the lowest such threshold on ties), NaN if none.
    """

    x_field = "thresholds"
    y_field = "f_beta"
    x_label = "event threshold t_E (relevance)"
    y_label = "F-beta"

    @property
    def area(self) -> float:
        """NaN: the precision-recall curve has no summary area (``CurveResult`` protocol)."""
        return math.nan

    thresholds: FloatArray
    precision: FloatArray
    recall: FloatArray
    f_beta: FloatArray
    n_true_events: NDArray[np.int64]
    n_predicted_events: NDArray[np.int64]
    beta: float
    best_threshold: float
    best_f_beta: float


def _suffix_totals(
    key: FloatArray, columns: list[FloatArray], thresholds: FloatArray
) -> list[FloatArray]:
    """For every threshold t and column c: sum of c over the cases with key >= t (one sort)."""
    order = np.argsort(key, kind="stable")
    idx = np.searchsorted(key[order], thresholds, side="left")
    out = []
    for col in columns:
        # suffix[j] = sum over sorted positions >= j, suffix[n] = 0.
        suffix = np.concatenate([np.cumsum(col[order][::-1])[::-1], [0.0]])
        out.append(suffix[idx])
    return out


def _event_totals(
    phi: FloatArray, alpha: FloatArray, weight: FloatArray | None, thresholds: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For every t: sum_{phi >= t} w alpha phi, sum_{phi >= t} w phi, #{phi >= t, w > 0}."""
    w_phi = phi if weight is None else weight * phi
    counted = np.ones_like(phi) if weight is None else (weight > 0).astype(np.float64)
    num, den, cnt = _suffix_totals(phi, [w_phi * alpha, w_phi, counted], thresholds)
    return num, den, cnt


def _pr_grid(y: FloatArray, p: FloatArray, *, thresholds: Any = None, **params: Any) -> FloatArray:
    """The event thresholds, sorted and checked as :func:`regression_precision_recall_curve`
    checks them; the curve from sums needs them given (the default, every distinct relevance
    value, would hold every row)."""
    del y, p, params
    if thresholds is None:
        raise ValueError(
            "thresholds: the precision-recall curve from sums needs a grid of event thresholds"
        )
    t = np.sort(as_1d_float(thresholds, "thresholds"))
    if t[0] <= 0 or t[-1] > 1:
        raise ValueError(f"thresholds must lie in (0, 1]; got [{t[0]!r}, {t[-1]!r}]")
    return t


def _pr_partial(
    y: FloatArray,
    p: FloatArray,
    w: FloatArray | None,
    grid: FloatArray,
    *,
    relevance: Any,
    accuracy: Any,
    **params: Any,
) -> dict[str, Any] | None:
    """One piece's sums per threshold bin ``[t_{j-1}, t_j)`` of phi(y) and of phi(yhat): the
    weighted phi times alpha, the weighted phi and the rows of positive weight (the sums of
    :func:`regression_precision_recall_curve` at every threshold are the bins' suffix sums)."""
    del params
    if y.size == 0:
        return None
    phi_true = relevance_values(relevance, y, "y_true")
    phi_pred = relevance_values(relevance, p, "y_pred")
    alpha = _accuracy_values(accuracy, y, p)
    counted = None if w is None else w > 0
    size = grid.size + 1
    out: dict[str, Any] = {}
    for side, phi in (("true", phi_true), ("pred", phi_pred)):
        where = np.searchsorted(grid, phi, side="right")  # the thresholds <= phi
        w_phi = phi if w is None else w * phi
        out[f"num_{side}"] = np.bincount(where, weights=w_phi * alpha, minlength=size)
        out[f"den_{side}"] = np.bincount(where, weights=w_phi, minlength=size)
        rows = where if counted is None else where[counted]
        out[f"n_{side}"] = np.bincount(rows, minlength=size).astype(np.int64)
    return out


def _pr_merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {key: a[key] + b[key] for key in a}


def _pr_finish(
    s: dict[str, Any], grid: FloatArray, *, beta: float = 1.0, **params: Any
) -> RegressionPrecisionRecallCurveResult:
    """The curve at the given thresholds from the merged bins (as the in-memory function
    finishes it, warning where the measures are undefined)."""
    del params
    beta = check_nonnegative_number(beta, "beta")

    def at_or_above(values: np.ndarray) -> np.ndarray:
        return np.cumsum(values[::-1])[::-1][1:]  # bin j holds t_{j-1} <= phi < t_j

    totals = tuple(
        at_or_above(s[f"{kind}_{side}"])
        for side in ("true", "pred")
        for kind in ("num", "den", "n")
    )
    return _pr_curve_result(grid, totals, beta, given=True)


_PR_SUMS = CurveSumsForm(
    grid=_pr_grid,
    partial=_pr_partial,
    merge=_pr_merge,
    finish=_pr_finish,
    params=("relevance", "accuracy", "thresholds", "beta"),
    fitted={"accuracy": _ACCURACY_FIT},
    points=(
        "at the in-memory curve's own grid of event thresholds; precision, recall and F at "
        "each are exact"
    ),
)


@register_curve(
    "precision_recall",
    family="extremes",
    needs=("relevance",),
    # A fixed grid of event thresholds: the default (every distinct relevance value) crowds the
    # curve into [0, tiny] when the predictions never reach the extremes.
    fixed={"thresholds": tuple(np.linspace(0.01, 1.0, 100))},
    sums=_PR_SUMS,
)
@raises_input_errors("y_true", "y_pred", nonnegative=("beta",))
@shared_paragraphs
def regression_precision_recall_curve(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    relevance: RelevanceLike | None = None,
    accuracy: AccuracyLike | None = None,
    thresholds: ArrayLike | None = None,
    beta: float = 1.0,
    sample_weight: ArrayLike | None = None,
) -> RegressionPrecisionRecallCurveResult:
    r"""Utility-based precision, recall and F-beta at every event threshold, in O(n log n).

    Parameters
    ----------
    y_true, y_pred, relevance, accuracy, beta, sample_weight
        As in :func:`regression_precision_recall`.
    thresholds : array-like, optional
        Event thresholds in (0, 1]. Default: every distinct positive relevance value of y_true
        and y_pred up to the smaller of max phi(y_true) and max phi(y_pred), where both measures
        are defined (the exact step curve).

    Returns
    -------
    RegressionPrecisionRecallCurveResult
        Precision, recall and F-beta at every threshold, with the event counts.

    Raises
    ------
    %(input_errors)s

    Warns
    -----
    UndefinedMetricWarning
        Once, when the measures are undefined at some of the thresholds given.

    Notes
    -----
    The measures of :func:`regression_precision_recall` for a whole range of t_E from one sort of
    phi(y) and one of phi(yhat) (suffix sums), not one pass per threshold.

    References
    ----------
    %(torgo2009)s
    """
    beta = check_nonnegative_number(beta, "beta")
    prep = _prepare(y_true, y_pred, relevance, accuracy, sample_weight)
    if thresholds is None:
        top = min(float(prep.phi_true.max()), float(prep.phi_pred.max()))
        both = np.concatenate([prep.phi_true, prep.phi_pred])
        t = np.unique(both[(both > 0) & (both <= top)])
        if t.size == 0:
            warn_undefined(
                "no threshold gives both true and predicted events (max relevance of y_true "
                f"{prep.phi_true.max():g}, of y_pred {prep.phi_pred.max():g}); the curve is empty"
            )
    else:
        t = np.sort(as_1d_float(thresholds, "thresholds"))
        if t[0] <= 0 or t[-1] > 1:
            raise ValueError(f"thresholds must lie in (0, 1]; got [{t[0]!r}, {t[-1]!r}]")
    num_r, den_r, n_true = _event_totals(prep.phi_true, prep.alpha, prep.weight, t)
    num_p, den_p, n_pred = _event_totals(prep.phi_pred, prep.alpha, prep.weight, t)
    return _pr_curve_result(
        t, (num_r, den_r, n_true, num_p, den_p, n_pred), beta, given=thresholds is not None
    )


def _pr_curve_result(
    t: FloatArray, totals: tuple[FloatArray, ...], beta: float, *, given: bool
) -> RegressionPrecisionRecallCurveResult:
    """The curve from the sums at every threshold ``t``: ``(num_r, den_r, n_true, num_p, den_p,
    n_pred)``, each event's weight times phi (times alpha in the numerators), and the counts;
    ``given``: the thresholds were given (undefined entries are then warned about)."""
    num_r, den_r, n_true, num_p, den_p, n_pred = totals
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(den_r > 0, num_r / den_r, np.nan)
        precision = np.where(den_p > 0, num_p / den_p, np.nan)
        b2 = beta * beta
        den_f = b2 * precision + recall
        f = np.where(den_f > 0, (b2 + 1) * precision * recall / den_f, 0.0)
        f = np.where(np.isnan(precision) | np.isnan(recall), np.nan, f)
    undefined = int(np.isnan(f).sum())
    if undefined and given:
        warn_undefined(
            f"precision or recall is undefined (no predicted or no true events) at {undefined} "
            f"of {t.size} thresholds; those entries are NaN"
        )
    if np.isfinite(f).any():
        best = int(np.nanargmax(f))
        best_t, best_f = float(t[best]), float(f[best])
    else:
        best_t = best_f = math.nan
    return RegressionPrecisionRecallCurveResult(
        thresholds=t,
        precision=precision,
        recall=recall,
        f_beta=f,
        n_true_events=np.rint(n_true).astype(np.int64),
        n_predicted_events=np.rint(n_pred).astype(np.int64),
        beta=beta,
        best_threshold=best_t,
        best_f_beta=best_f,
    )


@dataclasses.dataclass(frozen=True, repr=False)
class RegressionFBetaCurveResult(CurveResult):
    """F-beta as a function of beta at a fixed event threshold (:func:`regression_f_beta_curve`).

    F-beta moves from precision (beta = 0) towards recall (beta -> infinity).
    """

    x_field = "betas"
    y_field = "f_beta"
    x_label = "beta"
    y_label = "F-beta"

    @property
    def area(self) -> float:
        """NaN: the F-beta curve over beta has no summary area (``CurveResult`` protocol)."""
        return math.nan

    betas: FloatArray
    f_beta: FloatArray
    precision: float
    recall: float
    event_threshold: float


@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def regression_f_beta_curve(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    relevance: RelevanceLike | None = None,
    event_threshold: float = 0.5,
    accuracy: AccuracyLike | None = None,
    betas: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> RegressionFBetaCurveResult:
    r"""F-beta (Torgo & Ribeiro 2009, eq. 11) over a range of beta (precision and recall once).

    Parameters
    ----------
    %(y_true)s
    %(y_pred)s
    %(relevance)s
    event_threshold : float, default 0.5
        t_E: rows with phi >= t_E are events.
    accuracy : callable, optional
        The accuracy function alpha (see :func:`regression_precision_recall`).
    betas : array-like, optional
        Non-negative values; default ``2 ** np.linspace(-4, 4, 33)`` (1/16 to 16).
    %(sample_weight_terms)s

    Returns
    -------
    RegressionFBetaCurveResult
        F-beta for every beta, with the precision and recall it is computed from.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    F_beta = (1 + beta^2) P R / (beta^2 P + R) (Torgo & Ribeiro 2009, eq. 11), 0 when P = R = 0.

    References
    ----------
    %(torgo2009)s
    """
    if betas is None:
        b = 2.0 ** np.linspace(-4.0, 4.0, 33)
    else:
        b = as_1d_float(betas, "betas")
        if (b < 0).any():
            raise ValueError(f"betas must be non-negative; got {b[b < 0][0]!r}")
    res = regression_precision_recall(
        y_true,
        y_pred,
        relevance=relevance,
        event_threshold=event_threshold,
        accuracy=accuracy,
        sample_weight=sample_weight,
    )
    f = np.array([_f_beta(res.precision, res.recall, float(v)) for v in b])
    return RegressionFBetaCurveResult(
        betas=b,
        f_beta=f,
        precision=res.precision,
        recall=res.recall,
        event_threshold=res.event_threshold,
    )


# ------------------------------------------------------------------------------------------------
# Relevance-weighted errors and SERA


def _scaled_losses(prep: _Prepared, loss: str) -> tuple[FloatArray, int]:
    """Losses ``L_i = values_i * 2**e``, the errors scaled to at most 1 before squaring.

    As for RMSE (:mod:`ranklens.residual`): squared errors of size 1e200 overflow and of size
    1e-200 underflow, while the sums and means built on them are representable.
    """
    code = _check_loss(loss)
    rs, e = scaled_residuals(prep.y_pred, prep.y_true)
    if code == _xu.LOSS_SQUARED:
        return rs * rs, 2 * e
    return np.abs(rs), e


def _unscale(values: Any, e: int, weight_scale: float = 1.0) -> Any:
    """``values * weight_scale * 2**e`` (array or scalar) with one rounding and IEEE overflow."""
    m, e_w = math.frexp(weight_scale)
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(np.asarray(values, dtype=np.float64) * m, e + e_w)


# ------------------------------------------------------------------------------------------------
# Bootstrap replicates without calling the functions (ranklens._foundation.forms.ReplicateForm). The
# rows are sorted by y_true once; a replicate's box plot (Tukey's hinges of its frequency-weighted
# y_true, fences, which tails have outliers) is read off that order from cumulative weights, so the
# default relevance (relevance_from_boxplot, refitted per replicate as the functions refit it) and
# the utility measures' default accuracy (half the IQR) cost O(n) a replicate; a given relevance
# (``ranklens evaluate`` gives the box plot of the evaluated target) is evaluated once. The sums
# are then the functions' own, on the same weights: the replicates are theirs bit for bit.

_SWEEP_RW_SQUARED = "relevance-weighted squared error"
_SWEEP_RW_ABSOLUTE = "relevance-weighted absolute error"
_SWEEP_SERA = "sera"
_SWEEP_PRECISION = "utility precision"
_SWEEP_RECALL = "utility recall"
_SWEEP_F1 = "utility f1"
_UTILITY_STATISTICS = (_SWEEP_PRECISION, _SWEEP_RECALL, _SWEEP_F1)
_DEFAULT_EVENT_THRESHOLD = 0.5


@dataclasses.dataclass(frozen=True)
class _SweepState:
    y: FloatArray
    preds: FloatArray
    relevance: Any  # a given relevance, or None: the box plot of each replicate
    phi_true: FloatArray | None  # of a given relevance
    phi_pred: FloatArray | None  # (models, n), of a given relevance
    t_e: float
    ascending: NDArray[np.intp]  # rows by increasing y_true (stable, as the box plot sorts)
    y_sorted: FloatArray
    losses: dict[str, tuple[FloatArray, NDArray[np.int64]]]  # loss -> (models, n), exponents


def _sweep_prepare(y: FloatArray, preds: FloatArray, params: Mapping[str, Any]) -> Any:
    relevance = params.get("relevance")
    if relevance is not None and not callable(relevance):
        return None  # the function raises; the engine reports it
    t_e = check_event_threshold(params.get("event_threshold", _DEFAULT_EVENT_THRESHOLD))
    residuals = [scaled_residuals(pred, y) for pred in preds]  # L_i = values_i * 2**e
    losses = {
        "squared": (
            np.stack([rs * rs for rs, _ in residuals]),
            np.array([2 * e for _, e in residuals]),
        ),
        "absolute": (
            np.stack([np.abs(rs) for rs, _ in residuals]),
            np.array([e for _, e in residuals]),
        ),
    }
    ascending = np.argsort(y, kind="stable")
    phi_true = phi_pred = None
    if relevance is not None:
        phi_true = relevance_values(relevance, y, "y_true")
        phi_pred = np.stack([relevance_values(relevance, p, "y_pred") for p in preds])
    return _SweepState(
        y=y,
        preds=preds,
        relevance=relevance,
        phi_true=phi_true,
        phi_pred=phi_pred,
        t_e=t_e,
        ascending=ascending,
        y_sorted=y[ascending],
        losses=losses,
    )


def _replicate_box(state: _SweepState, w: FloatArray) -> tuple[Any, Any]:
    """``(relevance, accuracy)`` of one replicate (the functions' defaults where not given),
    each None where the function raises: the box plot of the frequency-weighted y_true from the
    rows sorted once (``Sample.of`` on the rows of positive weight reads the same order)."""
    w_sorted = w[state.ascending]
    cum = np.cumsum(w_sorted)  # sequential, as Sample.of's
    size = float(cum[-1])
    if size < 2.0:
        return state.relevance, None  # the box plot needs two observations' weight
    kept = np.flatnonzero(w_sorted > 0.0)
    last = kept[-1]
    positions = np.asarray(hinge_positions(size), dtype=np.float64)
    at = state.y_sorted[np.minimum(np.searchsorted(cum, positions, side="left"), last)]
    try:
        accuracy = _accuracy_from_hinges(at)
    except ValueError:
        accuracy = None
    relevance = state.relevance
    if relevance is None:
        low, high = state.y_sorted[kept[0]], state.y_sorted[last]
        q1, median, q3 = hinges_of(at)
        iqr = q3 - q1
        fences = (q1 - 1.5 * iqr, q3 + 1.5 * iqr)  # coef * multiplier * iqr, multiplier 1
        relevance = None
        if low != high:  # a constant y_true: the function raises
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # no outliers: the fallback's warning
                    relevance = relevance_from_limits(
                        kept.shape[0],
                        median,
                        iqr,
                        fences,
                        fences,
                        (bool(low < fences[0]), bool(high > fences[1])),
                        extremes="auto",
                        adjusted=False,
                        shape="sigmoid",
                        k=0.5,
                        delta=1e-4,
                        fallback="fences",
                    )
            except ValueError:  # a degenerate box plot: the function raises
                relevance = None
    return relevance, accuracy


def _precision_recall_models(
    state: _SweepState, relevance: Any, accuracy: Any, phi_true: FloatArray, w_s: FloatArray
) -> FloatArray | None:
    """The precision / recall sums of every model of a replicate at once, ``(models, 4)``:
    recall numerator and denominator, precision numerator and denominator), from the NumPy forms
    (the kernels' numbers bit for bit) while they are the route (small n, kernels not loaded);
    None otherwise (the kernels model by model)."""
    n_models, n = state.preds.shape
    if not (
        (state.phi_pred is not None or isinstance(relevance, SigmoidRelevance))
        and isinstance(accuracy, StepAccuracy | SmoothAccuracy)
        and _xu.numpy_route(n, "accuracy_values")
        and _xu.numpy_route(n, "precision_recall_sums")
    ):
        return None
    smooth = isinstance(accuracy, SmoothAccuracy)
    k = accuracy.k if isinstance(accuracy, SmoothAccuracy) else 0.0
    alpha = _xu.accuracy_values_numpy(
        state.y, state.preds, smooth, accuracy.threshold, k, _loss_code(accuracy.loss)
    )
    phi_pred = state.phi_pred
    if phi_pred is None:  # an elementwise relevance: every model's predictions in one call
        flat = relevance_values(relevance, state.preds.reshape(-1), "y_pred")
        phi_pred = flat.reshape(n_models, n)
    sums, _ = _xu.precision_recall_sums_models(phi_true, phi_pred, alpha, w_s, True, state.t_e)
    return sums


def _sweep_evaluate(state: _SweepState, weights: FloatArray, wanted: tuple[Any, ...]) -> Any:
    """``(rows, len(wanted), models)`` replicates of the extremes measures."""
    n_models, n = state.preds.shape
    out = np.full((weights.shape[0], len(wanted), n_models), np.nan)
    utility = any(stat in _UTILITY_STATISTICS for stat in wanted)
    for r in range(weights.shape[0]):
        w = np.ascontiguousarray(weights[r], dtype=np.float64)
        if not w.sum() > 0:
            continue  # the functions refuse weights summing to 0
        relevance, accuracy = _replicate_box(state, w)
        if relevance is None:
            continue
        if state.relevance is None:
            phi_true = relevance_values(relevance, state.y, "y_true")
        else:
            assert state.phi_true is not None
            phi_true = state.phi_true
        w_s, scale = check_sample_weight_scaled(w, n)
        assert w_s is not None
        case_w = phi_true * w_s
        total = float(case_w.sum())
        batched = None
        if utility and accuracy is not None:
            batched = _precision_recall_models(state, relevance, accuracy, phi_true, w_s)
        for m in range(n_models):
            pr = None
            if batched is not None:
                num_r, den_r, num_p, den_p = batched[m].tolist()
                precision = num_p / den_p if den_p > 0 else math.nan
                recall = num_r / den_r if den_r > 0 else math.nan
                pr = (precision, recall, _f_beta(precision, recall, 1.0))
            elif utility and accuracy is not None:
                if state.phi_pred is None:
                    phi_pred = relevance_values(relevance, state.preds[m], "y_pred")
                else:
                    phi_pred = state.phi_pred[m]
                alpha = _accuracy_values(accuracy, state.y, state.preds[m])
                num_r, den_r, _, num_p, den_p, _ = _precision_recall_sums(
                    phi_true, phi_pred, alpha, w_s, True, state.t_e
                )
                precision = num_p / den_p if den_p > 0 else math.nan
                recall = num_r / den_r if den_r > 0 else math.nan
                pr = (precision, recall, _f_beta(precision, recall, 1.0))
            for j, stat in enumerate(wanted):
                if stat in (_SWEEP_RW_SQUARED, _SWEEP_RW_ABSOLUTE):
                    if total > 0:
                        loss = "squared" if stat == _SWEEP_RW_SQUARED else "absolute"
                        values, e = state.losses[loss]
                        out[r, j, m] = _unscale(_dot(case_w, values[m]) / total, int(e[m]))
                elif stat == _SWEEP_SERA:
                    values, e = state.losses["squared"]
                    out[r, j, m] = _unscale(_dot(phi_true, values[m] * w_s), int(e[m]), scale)
                elif pr is not None:
                    out[r, j, m] = pr[_UTILITY_STATISTICS.index(stat)]
    return out


_SWEEP = ReplicateSweep(_sweep_prepare, _sweep_evaluate, "extremes: box plot per replicate")


def _replicates(statistic: str) -> ReplicateForm:
    utility = statistic in _UTILITY_STATISTICS
    return ReplicateForm(
        _SWEEP, statistic, ("relevance", "event_threshold") if utility else ("relevance",)
    )


@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def relevance_weighted_error(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    relevance: RelevanceLike | None = None,
    loss: Loss = "squared",
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Mean loss with case weights phi(y_i) (Torgo & Ribeiro 2009, Sect. 3.1).

    Parameters
    ----------
    relevance : callable, optional
        Default ``relevance_from_boxplot(y_true, extremes="auto")``.
    loss : {"squared", "absolute"}

    Returns
    -------
    float
        Lower is better.

    Raises
    ------
    %(input_errors)s

    Warns
    -----
    UndefinedMetricWarning
        When every true value has zero relevance (NaN is returned).

    Notes
    -----
    .. math:: \frac{\sum_i w_i \phi(y_i) L(\hat y_i, y_i)}{\sum_i w_i \phi(y_i)}

    The case-weight alternative Torgo & Ribeiro discuss: it focuses on relevant **true** values, but
    (their objection) does not penalise false alarms - a relevant prediction for an
    irrelevant true value - which utility-based precision does.

    References
    ----------
    %(torgo2009)s
    """
    _check_loss(loss)
    prep = _prepare(
        y_true,
        y_pred,
        relevance,
        None,
        sample_weight,
        need_pred_relevance=False,
        need_accuracy=False,
    )
    case_w = prep.phi_true if prep.weight is None else prep.phi_true * prep.weight
    total = float(case_w.sum())
    if not total > 0:
        return _no_relevance()
    values, e = _scaled_losses(prep, loss)
    return float(_unscale(_dot(case_w, values) / total, e))


def _dot(a: FloatArray, b: FloatArray) -> float:
    """``sum_i a_i b_i`` by NumPy's pairwise summation, not BLAS's ``dot``: a BLAS dot adds in a
    few running sums, whose rounding grows with n (7.8e-12 relative at 1e8 rows, against the
    correctly rounded sum that pairwise summation and the Dask engine's sums of partitions
    reach to the last digit)."""
    return float(np.sum(a * b))


def _no_relevance() -> float:
    warn_undefined(
        "relevance-weighted error is undefined: every true value has zero relevance "
        "(or zero weight); returning NaN"
    )
    return math.nan


# ------------------------------------------------------------------------------------------------
# The measures as sums once the relevance (and the accuracy) are fixed: what an engine holding
# the data in pieces adds up (ranklens._foundation.forms.SumsForm). The default accuracy is fitted
# from the hinges of y_true (order statistics, found by exact selection).


def _rw_terms(y: FloatArray, p: FloatArray, *, relevance: Any, loss: str) -> FloatArray:
    phi = relevance_values(relevance, y, "y_true")
    d = p - y
    return np.stack([phi * (d * d if loss == "squared" else np.abs(d)), phi])


def _rw_finalize(sums: Any, n: int, **params: Any) -> float:
    del n, params
    if not sums[1] > 0:
        return _no_relevance()
    return float(sums[0] / sums[1])


def _rw_form(loss: str) -> SumsForm:
    def terms(y: FloatArray, p: FloatArray, *, relevance: Any) -> FloatArray:
        return _rw_terms(y, p, relevance=relevance, loss=loss)

    return SumsForm(terms=terms, finalize=_rw_finalize, params=("relevance",))


def _sera_sum_terms(y: FloatArray, p: FloatArray, *, relevance: Any) -> FloatArray:
    d = p - y
    return (relevance_values(relevance, y, "y_true") * (d * d))[None, :]


def _sera_finalize(sums: Any, n: int, **params: Any) -> float:
    del n, params
    return float(sums[0])


def _utility_terms(
    y: FloatArray,
    p: FloatArray,
    *,
    relevance: Any,
    accuracy: Any,
    event_threshold: float = 0.5,
) -> FloatArray:
    """Per row: the four sums of eqs. 6 and 10 (Torgo & Ribeiro 2009), >= in both."""
    t_e = check_event_threshold(event_threshold)
    phi_t = relevance_values(relevance, y, "y_true")
    phi_p = relevance_values(relevance, p, "y_pred")
    alpha = _accuracy_values(accuracy, y, p)
    true_event = phi_t >= t_e
    pred_event = phi_p >= t_e
    return np.stack(
        [
            np.where(true_event, alpha * phi_t, 0.0),
            np.where(true_event, phi_t, 0.0),
            np.where(pred_event, alpha * phi_p, 0.0),
            np.where(pred_event, phi_p, 0.0),
        ]
    )


def _utility_finalize(which: str) -> Callable[..., float]:
    def finalize(sums: Any, n: int, *, event_threshold: float = 0.5, **params: Any) -> float:
        del n, params
        t_e = check_event_threshold(event_threshold)
        if which == "precision":
            return _precision(sums[2], sums[3], t_e)
        if which == "recall":
            return _recall(sums[0], sums[1], t_e)
        return _f_beta(_precision(sums[2], sums[3], t_e), _recall(sums[0], sums[1], t_e), 1.0)

    return finalize


def _utility_form(which: str) -> SumsForm:
    return SumsForm(
        terms=_utility_terms,
        finalize=_utility_finalize(which),
        params=("relevance", "accuracy", "event_threshold"),
        fitted={"accuracy": _ACCURACY_FIT},
    )


#: The docstring of a relevance-weighted error (:func:`_register_relevance_weighted`), filled
#: with its loss and its formula.
_RELEVANCE_WEIGHTED_DOC = """Relevance-weighted mean {loss} error; \
see :func:`relevance_weighted_error`.

    Parameters
    ----------
    %(y_true)s
    %(y_pred)s
    %(sample_weight_terms)s
    %(relevance)s

    Returns
    -------
    float
        Lower is better.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    sum_i w_i phi(y_i) {term} / sum_i w_i phi(y_i).

    References
    ----------
    %(torgo2009)s
    """


def _register_relevance_weighted(
    loss: Loss, statistic: str, term: str, plain_name: str, meaning: str
) -> Callable[..., float]:
    """The registered measure ``relevance_weighted_<loss>_error``: :func:`relevance_weighted_error`
    with ``loss``, its bootstrap replicates from the utility sweep's ``statistic`` and its Dask
    form the relevance-weighted sums; ``term`` is the row's loss in the docstring's formula."""
    name = f"relevance_weighted_{loss}_error"

    def measure(
        y_true: ArrayLike,
        y_pred: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        relevance: RelevanceLike | None = None,
    ) -> float:
        return relevance_weighted_error(
            y_true, y_pred, relevance=relevance, loss=loss, sample_weight=sample_weight
        )

    doc = _RELEVANCE_WEIGHTED_DOC.format(loss=loss, term=term)
    measure = raises_input_errors("y_true", "y_pred")(made_function(measure, name, __name__, doc))
    return register_metric(
        name,
        plain_name=plain_name,
        meaning=meaning,
        targets="continuous",
        higher_is_better=False,
        family="extremes",
        description=(
            f"{loss.capitalize()} error weighted by phi(y_true) (default box-plot relevance)"
        ),
        batched=_replicates(statistic),
        sums=_rw_form(loss),
    )(measure)


relevance_weighted_squared_error = _register_relevance_weighted(
    "squared",
    _SWEEP_RW_SQUARED,
    "(yhat_i - y_i)^2",
    "squared error on extremes",
    "Average squared error, counting extremes most.",
)
relevance_weighted_absolute_error = _register_relevance_weighted(
    "absolute",
    _SWEEP_RW_ABSOLUTE,
    "|yhat_i - y_i|",
    "error on extremes",
    "Average error, counting errors on extremes most.",
)


@dataclasses.dataclass(frozen=True, repr=False)
class SeraCurveResult(CurveResult):
    """The relevance-thresholded squared-error curve SER_t and its exact area (:func:`sera_curve`).

    Attributes
    ----------
    thresholds : ndarray
        Increasing relevance thresholds t in [0, 1] (0, every distinct phi(y_true), 1).
    ser : ndarray
        SER_t = sum of (weighted) squared errors over the cases with phi(y_true) >= t.
    sera : float
        The area under SER_t over [0, 1], exactly.
    """

    x_field = "thresholds"
    y_field = "ser"
    x_label = "relevance threshold t"
    y_label = "squared error of the relevant cases SER_t"

    @property
    def area(self) -> float:
        """The area under the SER curve, :attr:`sera` (``CurveResult`` protocol)."""
        return self.sera

    thresholds: FloatArray
    ser: FloatArray
    sera: float


def _sera_prepare(y_true: Any, y_pred: Any, relevance: Any, sample_weight: Any) -> _Prepared:
    return _prepare(
        y_true,
        y_pred,
        relevance,
        None,
        sample_weight,
        need_pred_relevance=False,
        need_accuracy=False,
    )


def _sera_terms(prep: _Prepared) -> tuple[FloatArray, int]:
    """``w_i (yhat_i - y_i)^2 = terms_i * 2**e * weight_scale`` (see :func:`_scaled_losses`)."""
    sq, e = _scaled_losses(prep, "squared")
    if prep.weight is not None:
        sq = sq * prep.weight
    return sq, e


def _sera_value(prep: _Prepared) -> float:
    # SERA is a weighted sum, not a mean: it carries the scale of the weights (integer weights
    # act as repeated rows), restored after summing the rescaled terms.
    sq, e = _sera_terms(prep)
    return float(_unscale(_dot(prep.phi_true, sq), e, prep.weight_scale))


@register_metric(
    "sera",
    plain_name="squared error across extreme levels",
    meaning="Squared errors weighted towards the extremes, summed over relevance levels.",
    targets="continuous",
    higher_is_better=False,
    family="extremes",
    sums=SumsForm(terms=_sera_sum_terms, finalize=_sera_finalize, params=("relevance",)),
    batched=_replicates(_SWEEP_SERA),
)
@raises_input_errors("y_true", "y_pred")
def sera(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    relevance: RelevanceLike | None = None,
) -> float:
    r"""Squared error-relevance area, SERA (Ribeiro & Moniz 2020), computed exactly.

    Parameters
    ----------
    relevance : callable, optional
        Default ``relevance_from_boxplot(y_true, extremes="auto")``.

    Returns
    -------
    float
        SERA, lower is better, in squared units of ``y``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    .. math::
        SER_t = \sum_{i:\, \phi(y_i) \ge t} (\hat y_i - y_i)^2, \qquad
        SERA = \int_0^1 SER_t\, dt = \sum_i \phi(y_i)\, (\hat y_i - y_i)^2

    The closed form holds because case i contributes to SER_t exactly for t in [0, phi(y_i)],
    so the area is exact in O(n); the R package IRon's 1001-step trapezoid approximates it
    (error O(step)). SERA is a **sum**, so it grows with n; compare models on the same data.
    With case weights each squared error is multiplied by its weight (so integer weights act
    as repeated rows and multiplying every weight by c multiplies SERA by c). The errors are
    scaled by a power of two before squaring, so SERA is representable whenever its value is,
    whatever the magnitude of the data (errors of 1e200 or 1e-200).

    References
    ----------
    Ribeiro, R. P. and Moniz, N. (2020). Imbalanced regression and extreme value prediction.
    *Machine Learning* 109(9), 1803-1835. doi:10.1007/s10994-020-05900-9

    Examples
    --------
    >>> from ranklens import ControlPointRelevance
    >>> phi = ControlPointRelevance([(0, 0, 0), (2, 1, 0)])
    >>> sera([0.0, 1.0, 2.0], [1.0, 1.0, 4.0], relevance=phi)
    4.0
    """
    return _sera_value(_sera_prepare(y_true, y_pred, relevance, sample_weight))


@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def sera_curve(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    relevance: RelevanceLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> SeraCurveResult:
    """The SER_t curve at every distinct relevance value (one sort) and its exact area, SERA.

    Parameters
    ----------
    %(y_true)s
    %(y_pred)s
    %(relevance)s
    %(sample_weight_terms)s

    Returns
    -------
    SeraCurveResult
        ``thresholds``, ``ser`` and the exact area ``sera``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    SER_t is a left-continuous step function of t, constant between consecutive distinct values
    of phi(y_true); ``ser[j]`` is its value at ``thresholds[j]``. See :func:`sera`.

    References
    ----------
    Ribeiro, R. P. and Moniz, N. (2020). Imbalanced regression and extreme value prediction.
    *Machine Learning* 109(9), 1803-1835. doi:10.1007/s10994-020-05900-9
    """
    prep = _sera_prepare(y_true, y_pred, relevance, sample_weight)
    sq, e = _sera_terms(prep)
    t = np.unique(np.concatenate([[0.0, 1.0], prep.phi_true]))
    (ser,) = _suffix_totals(prep.phi_true, [sq], t)
    return SeraCurveResult(
        thresholds=t,
        ser=_unscale(ser, e, prep.weight_scale),
        sera=float(_unscale(_dot(prep.phi_true, sq), e, prep.weight_scale)),
    )


# ------------------------------------------------------------------------------------------------
# Registered scalar measures


#: The docstring of a utility-based measure (:func:`_register_utility`), filled with its title
#: and the equation of Torgo & Ribeiro (2009) it is.
_UTILITY_DOC = """{title} of :func:`regression_precision_recall` \
(defaults: see :mod:`ranklens.extremes`).

    Parameters
    ----------
    %(y_true)s
    %(y_pred)s
    %(sample_weight_terms)s
    %(relevance)s
    event_threshold : float, default 0.5
        t_E: rows with phi >= t_E are events.
    accuracy : callable, optional
        The accuracy function alpha; default ``smooth_accuracy(IQR(y_true) / 2, k=8)``.

    Returns
    -------
    float
        {title} in [0, 1]; NaN with an ``UndefinedMetricWarning`` when undefined.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    {title} of :func:`regression_precision_recall` (Torgo & Ribeiro 2009,
    {equation}); the registered metric uses the defaults above.

    References
    ----------
    %(torgo2009)s
    """


def _register_utility(
    statistic: str, label: str, equation: str, attribute: str, meaning: str
) -> Callable[..., float]:
    """The registered measure ``utility_<label>`` (``label`` one of precision, recall, F1): the
    ``attribute`` of :func:`regression_precision_recall` (F-beta with beta = 1), its bootstrap
    replicates from the utility sweep's ``statistic`` and its Dask form the utility sums."""
    name = f"utility_{label.lower()}"
    title = label[0].upper() + label[1:]

    def measure(
        y_true: ArrayLike,
        y_pred: ArrayLike,
        *,
        sample_weight: ArrayLike | None = None,
        relevance: RelevanceLike | None = None,
        event_threshold: float = 0.5,
        accuracy: AccuracyLike | None = None,
    ) -> float:
        found = regression_precision_recall(
            y_true,
            y_pred,
            relevance=relevance,
            event_threshold=event_threshold,
            accuracy=accuracy,
            sample_weight=sample_weight,
            beta=1.0,
        )
        return float(getattr(found, attribute))

    doc = _UTILITY_DOC.format(title=title, equation=equation)
    measure = raises_input_errors("y_true", "y_pred")(made_function(measure, name, __name__, doc))
    return register_metric(
        name,
        plain_name=f"{label} on extremes",
        meaning=meaning,
        targets="continuous",
        higher_is_better=True,
        family="extremes",
        description=f"Utility-based {label} for rare extremes (Torgo & Ribeiro 2009)",
        batched=_replicates(statistic),
        sums=_utility_form(label.lower()),
    )(measure)


utility_precision = _register_utility(
    _SWEEP_PRECISION,
    "precision",
    "eq. 10, with >= in both sums",
    "precision",
    "Of the extremes the model predicts, how many were real and accurate.",
)
utility_recall = _register_utility(
    _SWEEP_RECALL,
    "recall",
    "eq. 6",
    "recall",
    "Of the real extremes, how many the model predicted accurately.",
)
utility_f1 = _register_utility(
    _SWEEP_F1,
    "F1",
    "eq. 11 with beta = 1",
    "f_beta",
    "Balance of precision and recall on the rare extreme values.",
)
