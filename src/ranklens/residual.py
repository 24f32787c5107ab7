"""Residual-based (additive) error measures, all weighted, all registered as ``family="residual"``.

The standard approach the cited papers contrast with ranking-based evaluation: a mean of a loss of
the residuals ``r_i = y_i - yhat_i`` (Rosset, Perlich & Zadrozny (2005), Sect. 2), plus the
median absolute error ("MAD", their eq. 1), the asymmetric LINLIN loss (Torgo & Ribeiro (2009),
eq. 1), Log-RMSE (Rosset, Perlich & Zadrozny (2007), Sect. 6) and Payne, Li & Qin's (2016)
RMSPE and pmap.

Every measure is lower-is-better. With ``sample_weight`` each mean becomes
``sum w_i L_i / sum w_i`` (non-negative case weights: integer weights equal repeated rows, zero
weight equals dropping the row), except where a docstring says otherwise (``pmap``'s scale).

Any magnitude: the residuals are scaled by a power of two near their largest absolute value
before they are squared or summed (the approach of LAPACK's ``dnrm2`` and of C's ``hypot``), so
a value that is representable as a float is returned as such: ``root_mean_squared_error`` of
residuals of size 1e200, or ``rmspe`` of a response of size 1e-200, is exact to rounding instead
of ``inf`` or a division by zero. A value beyond the largest float (``mean_squared_error`` of
residuals of 1e200) is ``inf``.

Each measure declares its capabilities where it is registered: the means their ratio form
(one matrix product per block of bootstrap replicates), every measure an exact leave-one-out rule
that :func:`ranklens.robustness.most_influential` uses to search every observation in O(n)
(O(n log n) for the median), and the means of an unbounded loss their breakdown at 1/n.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np

from ranklens._compute.xp import median as _median
from ranklens._foundation.curve_registry import CurveSumsForm, register_curve, sample_grid
from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.forms import (
    LagScaledForm,
    MedianForm,
    RatioForm,
    ReplicateForm,
    ReplicateSweep,
)
from ranklens._foundation.registry import BreakdownBound, register_metric
from ranklens._foundation.results import CurveResult
from ranklens._foundation.scaling import binary_exponent as _binary_exponent
from ranklens._foundation.scaling import ldexp as _ldexp
from ranklens._foundation.scaling import product_exponent, scaled_residuals
from ranklens._foundation.scaling import scaled as _scaled
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    FloatArray,
    as_1d_float,
    check_nonnegative_number,
    check_pair,
    check_probability,
    check_sample_weight,
)
from ranklens.exceptions import RowDomainError, warn_undefined
from ranklens.intervals import interval_score

__all__ = [
    "RECCurveResult",
    "RROCCurveResult",
    "epsilon_insensitive_loss",
    "linlin_loss",
    "log_rmse",
    "mean_absolute_error",
    "mean_squared_error",
    "median_absolute_error",
    "pmap",
    "prmspe",
    "rec_curve",
    "rmspe",
    "root_mean_squared_error",
    "rroc_curve",
]


# --------------------------------------------------------------------------------------------
# Shared machinery: every mean-type measure is finalize(sum w_i num_i / sum w_i den_i).
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _RatioForm(RatioForm):
    """``metric = finalize(sum_i w_i num_i / sum_i w_i den_i)`` (``den_i = 1`` when None).

    ``scaled``, when given, computes the public value without overflow or underflow (see
    :func:`ranklens._foundation.scaling.scaled_residuals`); the plain ``numerator`` /
    ``denominator`` columns serve the leave-one-out rules and the bootstrap, which work at ordinary
    magnitudes. ``scaled_leave_one_out`` is the leave-one-out rule at any magnitude (``(y, p) ->
    values``); data of extreme size without one are recomputed row by row with ``scaled``.
    """

    scaled: Callable[..., float] | None = None
    scaled_leave_one_out: Callable[..., FloatArray] | None = None


def _unbounded(n: int, k: Any) -> FloatArray:
    return np.full(np.shape(k), np.inf)


# A mean of a non-negative loss that is unbounded in y_true: one corrupted row moves it
# arbitrarily far, so it breaks down at 1/n (Rosset, Perlich & Zadrozny 2005, Proposition 1).
_PROPOSITION_1 = BreakdownBound(_unbounded, reference="proposition 1 (unbounded)")


def _prepare(
    y_true: Any, y_pred: Any, sample_weight: Any, *, min_n: int = 2
) -> tuple[FloatArray, FloatArray, FloatArray | None]:
    y, p = check_pair(y_true, y_pred, min_n=min_n)
    return y, p, check_sample_weight(sample_weight, y.shape[0])


def _weighted_sum(values: FloatArray, w: FloatArray | None) -> float:
    return float(values.sum() if w is None else (w * values).sum())  # pairwise, no BLAS threads


def _evaluate_form(
    form: _RatioForm, y: FloatArray, p: FloatArray, w: FloatArray | None, **params: Any
) -> float:
    if form.scaled is not None:
        return float(form.scaled(y, p, w, **params))
    num = _weighted_sum(form.numerator(y, p, **params), w)
    if form.denominator is None:
        den = float(y.shape[0]) if w is None else float(w.sum())
    else:
        den = _weighted_sum(form.denominator(y, p, **params), w)
    return float(form.finalize(num / den))


#: Rows whose own sum without them is taken by two pairwise sums each; more such rows (signed
#: values) fall back to prefix and suffix sums.
_EXCLUSIVE_DIRECT_ROWS = 64


def _exclusive_sums(values: FloatArray) -> FloatArray:
    """``sum_{j != i} values_j`` for every i, each to about one rounding.

    The correctly rounded total (:func:`math.fsum`) less the row's own value, wherever that
    cannot cancel (``|values_i| <= |total| / 2``: relative error at most 1.5 units of the last
    place); the other rows (at most one for non-negative losses, the row that carries most of the
    loss) are summed without them directly. Prefix and suffix sums (``np.cumsum``) would drift
    with n, a few 1e-14 relative at 1e7 rows, which the percent change of a measure that barely
    moves magnifies (to 1e-9 at a change of 0.002 %).
    """
    total = math.fsum(values)
    out = total - values
    risky = np.flatnonzero(np.abs(values) > abs(total) / 2)
    if risky.size > _EXCLUSIVE_DIRECT_ROWS:  # signed values: prefix + suffix, no cancellation
        prefix = np.concatenate(([0.0], np.cumsum(values)[:-1]))
        suffix = np.concatenate((np.cumsum(values[::-1])[::-1][1:], [0.0]))
        out[risky] = (prefix + suffix)[risky]
    else:
        for i in risky.tolist():
            out[i] = math.fsum((float(np.sum(values[:i])), float(np.sum(values[i + 1 :]))))
    return out


def _extreme_size(y: FloatArray, p: FloatArray) -> bool:
    """Whether ``y`` or ``p`` is so large (or every value so small) that squares or sums of
    their rows may overflow (or underflow): the leave-one-out rules then work on scaled values."""
    return product_exponent(float(max(np.abs(y).max(), np.abs(p).max()))) != 0


def _leave_one_out_scaled(
    form: _RatioForm, y: FloatArray, p: FloatArray, params: Mapping[str, Any]
) -> FloatArray:
    """The measure without each row, for data of extreme size: the form's scaled rule, else the
    scaled value recomputed on each of the n samples (exact, O(n^2))."""
    if form.scaled_leave_one_out is not None and not params:
        return form.scaled_leave_one_out(y, p)
    assert form.scaled is not None  # the caller checked
    n = y.shape[0]
    out = np.empty(n)
    keep = np.ones(n, dtype=bool)
    for i in range(n):
        keep[i] = False
        out[i] = form.scaled(y[keep], p[keep], None, **params)
        keep[i] = True
    return out


def _form_leave_one_out(form: _RatioForm) -> Callable[..., FloatArray]:
    def leave_one_out(y: FloatArray, p: FloatArray, **params: Any) -> FloatArray:
        if form.scaled is not None and _extreme_size(y, p):
            return _leave_one_out_scaled(form, y, p, params)
        num = _exclusive_sums(form.numerator(y, p, **params))
        if form.denominator is None:
            den = np.full(y.shape[0], float(y.shape[0] - 1))
        else:
            den = _exclusive_sums(form.denominator(y, p, **params))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(form.finalize(num / den), dtype=np.float64)

    return leave_one_out


def _mean_capabilities(form: _RatioForm, *, additive: bool = True) -> dict[str, Any]:
    """The capabilities of a ratio-form measure, for ``register_metric(**...)``.

    Its ratio form batches the bootstrap, its sums give the O(n) leave-one-out and make it a
    mergeable-sums measure; ``additive`` (a mean of an unbounded non-negative loss) adds the
    breakdown at 1/n.
    """
    return {
        "batched": form,
        "leave_one_out": _form_leave_one_out(form),
        "breakdown": _PROPOSITION_1 if additive else None,
    }


def _check_strictly_positive(
    x: FloatArray, name: str, metric: str, hint: str, check: int = 0
) -> None:
    """A :class:`RowDomainError` if ``x`` has a value <= 0 (``check``: which of the measure's
    checks, in the order they run)."""
    bad = x <= 0
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        # the braces of the hint are literal, not fields of the template
        hint = hint.replace("{", "{{").replace("}", "}}")
        raise RowDomainError(
            f"{metric} needs {name} > 0; got {{value!r}} at position {{position}} "
            f"({{count}} value(s) <= 0). {hint}",
            float(x[first]),
            first,
            int(bad.sum()),
            check,
        )


# --------------------------------------------------------------------------------------------
# Scaling: every value that is representable is computed, whatever the magnitude of the data
# --------------------------------------------------------------------------------------------


def _mean(values: FloatArray, w: FloatArray | None) -> float:
    """(Weighted) mean; ``w`` has mean 1 after validation, so ``w * values`` cannot overflow."""
    if w is None:
        return float(values.sum() / values.shape[0])
    return float((w * values).sum() / w.sum())


def _scaled_power_mean(
    y: FloatArray, p: FloatArray, w: FloatArray | None, *, power: int, root: bool
) -> float:
    """``mean |r|^power`` (``power`` 1 or 2), or its square root, without over/underflow."""
    rs, e = scaled_residuals(y, p)
    m = _mean(np.abs(rs) if power == 1 else rs * rs, w)
    if root:
        return _ldexp(math.sqrt(m), e)
    return _ldexp(m, power * e)


def _scaled_power_leave_one_out(
    y: FloatArray, p: FloatArray, *, power: int, root: bool
) -> FloatArray:
    """:func:`_scaled_power_mean` without each row in turn, O(n): the exclusive sums of the
    scaled residuals' powers, scaled back once (inf only for a mean beyond the float range)."""
    rs, e = scaled_residuals(y, p)
    mean = _exclusive_sums(np.abs(rs) if power == 1 else rs * rs) / (y.shape[0] - 1)
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(np.sqrt(mean), e) if root else np.ldexp(mean, power * e)


def _scaled_mse(y: FloatArray, p: FloatArray, w: FloatArray | None) -> float:
    return _scaled_power_mean(y, p, w, power=2, root=False)


def _scaled_rmse(y: FloatArray, p: FloatArray, w: FloatArray | None) -> float:
    return _scaled_power_mean(y, p, w, power=2, root=True)


def _scaled_mae(y: FloatArray, p: FloatArray, w: FloatArray | None) -> float:
    return _scaled_power_mean(y, p, w, power=1, root=False)


def _scaled_epsilon(
    y: FloatArray, p: FloatArray, w: FloatArray | None, *, epsilon: float = 0.1
) -> float:
    rs, e = scaled_residuals(y, p)
    # epsilon on the residuals' scale; inf when it exceeds every residual by far (loss 0)
    eps = _ldexp(epsilon, -e)
    return _ldexp(_mean(np.maximum(np.abs(rs) - eps, 0.0), w), e)


def _scaled_linlin(
    y: FloatArray,
    p: FloatArray,
    w: FloatArray | None,
    *,
    cost_over: float = 1.0,
    cost_under: float = 1.0,
) -> float:
    rs, e = scaled_residuals(p, y)  # > 0: over-prediction
    # the costs are scaled too, so that a cost near the largest float times n rows cannot overflow
    e_cost = _binary_exponent(max(cost_over, cost_under))
    c_o, c_u = _ldexp(cost_over, -e_cost), _ldexp(cost_under, -e_cost)
    loss = np.where(rs > 0, c_o * rs, -c_u * rs)
    return _ldexp(_mean(loss, w), e + e_cost)


def _scaled_rmspe(y: FloatArray, p: FloatArray, w: FloatArray | None) -> float:
    _check_rmspe_response(y)
    rs, e_r = scaled_residuals(y, p)
    ys, e_y = _scaled(y)
    ratio = _mean(rs * rs, w) / _mean(ys * ys, w)
    return _ldexp(math.sqrt(ratio), e_r - e_y)


# --------------------------------------------------------------------------------------------
# Per-observation losses
# --------------------------------------------------------------------------------------------


def _squared(y: FloatArray, p: FloatArray) -> FloatArray:
    return (y - p) ** 2


def _absolute(y: FloatArray, p: FloatArray) -> FloatArray:
    return np.abs(y - p)


def _epsilon_insensitive(y: FloatArray, p: FloatArray, *, epsilon: float = 0.1) -> FloatArray:
    return np.maximum(np.abs(y - p) - epsilon, 0.0)


def _linlin(
    y: FloatArray, p: FloatArray, *, cost_over: float = 1.0, cost_under: float = 1.0
) -> FloatArray:
    r = p - y  # > 0: over-prediction
    return np.where(r > 0, cost_over * r, -cost_under * r)


def _squared_log_error(y: FloatArray, p: FloatArray, *, offset: float = 0.0) -> FloatArray:
    hint = (
        "Log-RMSE is defined on a positive scale; pass offset=1 for log(1 + y) "
        "(scikit-learn's root_mean_squared_log_error) or another shift that makes every value "
        "positive."
    )
    with np.errstate(over="ignore"):  # a sum beyond the largest float is positive all the same
        _check_strictly_positive(
            y + offset, f"y_true + offset (offset={offset:g})", "log_rmse", hint
        )
        _check_strictly_positive(
            p + offset, f"y_pred + offset (offset={offset:g})", "log_rmse", hint, check=1
        )
    return (_log_shifted(y, offset) - _log_shifted(p, offset)) ** 2


def _log_shifted(x: FloatArray, offset: float) -> FloatArray:
    """``log(x + offset)``, also where the sum exceeds the largest float (log of the halves)."""
    with np.errstate(over="ignore"):
        s = x + offset
    out = np.log(s)
    big = np.isinf(s)
    if big.any():
        out[big] = np.log(0.5 * x[big] + 0.5 * offset) + math.log(2.0)
    return out


def _check_rmspe_response(y: FloatArray) -> None:
    _check_strictly_positive(
        y,
        "y_true",
        "rmspe",
        "RMSPE is a relative error for a positive, ratio-scale response (as in Payne et al. 2016); "
        "for a response with zeros or negative values use root_mean_squared_error.",
    )


def _y_squared_positive(y: FloatArray, p: FloatArray) -> FloatArray:
    _check_rmspe_response(y)
    return y**2


_MSE = _RatioForm(
    _squared,
    scaled=_scaled_mse,
    scaled_leave_one_out=functools.partial(_scaled_power_leave_one_out, power=2, root=False),
)
_RMSE = _RatioForm(
    _squared,
    finalize=np.sqrt,
    scaled=_scaled_rmse,
    scaled_leave_one_out=functools.partial(_scaled_power_leave_one_out, power=2, root=True),
)
_MAE = _RatioForm(
    _absolute,
    scaled=_scaled_mae,
    scaled_leave_one_out=functools.partial(_scaled_power_leave_one_out, power=1, root=False),
)
_EPSILON = _RatioForm(_epsilon_insensitive, scaled=_scaled_epsilon)
_LINLIN = _RatioForm(_linlin, scaled=_scaled_linlin)
_LOG_RMSE = _RatioForm(_squared_log_error, finalize=np.sqrt)
_RMSPE = _RatioForm(_squared, _y_squared_positive, finalize=np.sqrt, scaled=_scaled_rmspe)


# --------------------------------------------------------------------------------------------
# Public measures
# --------------------------------------------------------------------------------------------


@register_metric(
    "mean_squared_error",
    plain_name="mean squared error",
    meaning="Average squared error (large errors dominate).",
    higher_is_better=False,
    family="residual",
    **_mean_capabilities(_MSE),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def mean_squared_error(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Mean squared error, ``sum w_i (y_i - yhat_i)^2 / sum w_i``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Observed response and prediction (NumPy, pandas or polars; finite).
    %(sample_weight)s

    Returns
    -------
    float
        Lower is better; breaks down at 1/n (Rosset et al. 2005, Proposition 1).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Squared error loss ``L(r) = r^2`` of Rosset, Perlich & Zadrozny (2005), Sect. 2.
    Equals scikit-learn's ``mean_squared_error``.

    References
    ----------
    %(rosset2005)s

    Examples
    --------
    >>> mean_squared_error([1.0, 2.0, 4.0], [1.0, 3.0, 2.0])
    1.6666666666666667
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    return _evaluate_form(_MSE, y, p, w)


@register_metric(
    "root_mean_squared_error",
    plain_name="typical error (root mean squared error)",
    meaning="Typical error size, with large errors counting more.",
    higher_is_better=False,
    family="residual",
    **_mean_capabilities(_RMSE),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def root_mean_squared_error(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Root mean squared error, ``sqrt(mean_squared_error)``.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better, in the units of ``y``.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    The RMSE of Rosset et al. (2005), Tables 1 and 2. Equals scikit-learn's
    ``root_mean_squared_error`` at ordinary magnitudes; computed as ``s sqrt(mean (r_i / s)^2)``
    with ``s`` a power of two near ``max |r_i|``, so it neither overflows nor underflows where the
    result is a float.

    References
    ----------
    %(rosset2005)s

    Anderson, E. (2017). Algorithm 978: Safe scaling in the Level 1 BLAS. ACM Transactions on
    Mathematical Software 44(1), article 12.

    Examples
    --------
    >>> root_mean_squared_error([1.0, 2.0, 4.0], [1.0, 3.0, 2.0])
    1.2909944487358056
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    return _evaluate_form(_RMSE, y, p, w)


@register_metric(
    "mean_absolute_error",
    plain_name="mean absolute error",
    meaning="Average size of the error, in the target's units.",
    higher_is_better=False,
    family="residual",
    **_mean_capabilities(_MAE),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def mean_absolute_error(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Mean absolute error, ``sum w_i |y_i - yhat_i| / sum w_i``.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better; 0 for a perfect prediction.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Absolute error loss of Rosset et al. (2005), Sect. 2; the MAE of its Tables 1 and 2. Equals
    scikit-learn's ``mean_absolute_error``.

    References
    ----------
    %(rosset2005)s

    Examples
    --------
    >>> mean_absolute_error([1.0, 2.0, 4.0], [1.0, 3.0, 2.0])
    1.0
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    return _evaluate_form(_MAE, y, p, w)


@register_metric(
    "epsilon_insensitive_loss",
    plain_name="error beyond a tolerance",
    meaning="Average error beyond a tolerance (small errors are free).",
    higher_is_better=False,
    family="residual",
    **_mean_capabilities(_EPSILON),
)
@raises_input_errors("y_true", "y_pred", nonnegative=("epsilon",))
@shared_paragraphs
def epsilon_insensitive_loss(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    epsilon: float = 0.1,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean epsilon-insensitive loss, ``sum w_i max(0, |r_i| - epsilon) / sum w_i``.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    epsilon : float, default 0.1
        Half-width of the tube inside which errors cost nothing (>= 0).
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better; 0 for a perfect prediction.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Rosset et al. (2005), Sect. 2 (the loss of support vector regression). ``epsilon`` is in the
    units of ``y``; the paper gives no value, so the default 0.1 is scikit-learn's ``SVR`` default.
    Set it to the tolerance that matters for your response. ``epsilon=0`` gives
    :func:`mean_absolute_error`.

    References
    ----------
    %(rosset2005)s

    Examples
    --------
    >>> epsilon_insensitive_loss([1.0, 2.0, 4.0], [1.0, 3.0, 2.0], epsilon=0.5)
    0.6666666666666666
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    eps = check_nonnegative_number(epsilon, "epsilon")
    return _evaluate_form(_EPSILON, y, p, w, epsilon=eps)


@register_metric(
    "linlin_loss",
    plain_name="asymmetric linear loss",
    meaning="Average error, with under- and over-prediction priced differently.",
    higher_is_better=False,
    family="residual",
    **_mean_capabilities(_LINLIN),
)
@raises_input_errors("y_true", "y_pred", nonnegative=("cost_over", "cost_under"))
@shared_paragraphs
def linlin_loss(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    cost_over: float = 1.0,
    cost_under: float = 1.0,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Mean LINLIN (asymmetric linear) loss, Torgo & Ribeiro (2009), eq. 1.

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    cost_over, cost_under : float, default 1.0
        The paper's ``c_o`` and ``c_u`` (non-negative, finite).
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better; 0 for a perfect prediction.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``L_i = cost_over * |y_i - yhat_i|`` for an over-prediction (``yhat_i > y_i``),
    ``cost_under * |y_i - yhat_i|`` for an under-prediction, 0 when exact; returned as the
    weighted mean ``sum w_i L_i / sum w_i``. Equal costs of 1 give :func:`mean_absolute_error`; the
    minimiser of the expected loss is the ``cost_under / (cost_over + cost_under)`` quantile (the
    pinball loss up to a factor).

    References
    ----------
    %(torgo2009)s

    Examples
    --------
    >>> linlin_loss([1.0, 2.0, 4.0], [1.0, 3.0, 2.0], cost_over=1.0, cost_under=3.0)
    2.3333333333333335
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    c_o = check_nonnegative_number(cost_over, "cost_over")
    c_u = check_nonnegative_number(cost_under, "cost_under")
    return _evaluate_form(_LINLIN, y, p, w, cost_over=c_o, cost_under=c_u)


@register_metric(
    "log_rmse",
    plain_name="typical error on the log scale",
    meaning="Typical error on the log scale: a relative (percentage-like) error.",
    higher_is_better=False,
    family="residual",
    targets="continuous",
    **_mean_capabilities(_LOG_RMSE),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def log_rmse(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    offset: float = 0.0,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Root mean squared error on the log scale (Rosset et al. 2007, Sect. 6).

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    offset : float, default 0.0
        Added to ``y_true`` and ``y_pred`` before the log; both sums must be strictly positive
        (``offset=1`` gives ``log1p``).
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better, in natural-log units.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``sqrt(sum w_i (log(y_i + offset) - log(yhat_i + offset))^2 / sum w_i)`` (natural log).

    Zeros and negatives: the paper applies it to wallets and donations, which are positive, and does
    not say what to do otherwise. Here ``y_true + offset`` and ``y_pred + offset`` must be
    strictly positive, else a ``ValueError`` names the first offending value: no silent clipping.
    ``offset=0`` (default) is the paper's log of the response; ``offset=1`` is ``log1p``, i.e.
    scikit-learn's ``root_mean_squared_log_error``, the usual choice for counts with zeros.

    Theoretically non-robust (a mean of an unbounded loss: Proposition 1 applies) but, as Rosset et
    al. (2007) observe, much less sensitive to single observations than RMSE on skewed data.

    References
    ----------
    %(rosset2007)s

    Examples
    --------
    >>> round(log_rmse([1.0, 10.0, 100.0], [1.0, 100.0, 100.0]), 6)
    1.329398
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    c = float(offset)
    if not math.isfinite(c):
        raise ValueError(f"offset must be a finite number; got {offset!r}")
    return _evaluate_form(_LOG_RMSE, y, p, w, offset=c)


# Not additive: a corrupted y_i grows the numerator and the denominator together.
@register_metric(
    "rmspe",
    plain_name="typical relative error",
    meaning="Typical error relative to the true value.",
    higher_is_better=False,
    family="residual",
    targets="continuous",
    **_mean_capabilities(_RMSPE, additive=False),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def rmspe(y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None) -> float:
    """Relative root mean squared prediction error, Payne, Li & Qin (2016).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Observed values; must be strictly positive (a ratio-scale response).
    %(y_pred_finite)s
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better; 0 for a perfect prediction, 0.2 reads "within 20 percent".

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``RMSPE = ||y - yhat|| / ||y|| = sqrt(sum w_i (y_i - yhat_i)^2 / sum w_i y_i^2)``:
    the prediction error relative to the size of the response ("within 20 percent" reads
    RMSPE <= 0.2). It is *not* the per-observation "mean squared percentage error" that some
    competitions call RMSPE.

    ``y_true`` must be strictly positive: the measure compares errors with distances from 0, which
    is meaningful only on a ratio scale (the phenotypes of Payne et al.); shifting a response with
    zeros or negatives would change the value arbitrarily. A ``ValueError`` says so; use
    :func:`root_mean_squared_error` instead. Not additive: corrupting one ``y_i`` grows numerator
    and denominator together, so Proposition 1 of Rosset et al. (2005) does not apply to corruption
    of ``y_true``.

    Numerator and denominator are scaled separately by powers of two before squaring, so the
    ratio is exact to rounding at any magnitude (``rmspe([1e-200, 2e-200], [0, 0])`` is 1).

    References
    ----------
    %(payne2016)s

    Examples
    --------
    >>> round(rmspe([3.0, 4.0], [3.0, 5.0]), 6)
    0.2
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    return _evaluate_form(_RMSPE, y, p, w)


# --------------------------------------------------------------------------------------------
# Median absolute error (the MAD of Rosset et al. 2005)
# --------------------------------------------------------------------------------------------


def _median_leave_one_out(y: FloatArray, p: FloatArray) -> FloatArray:
    """Median of the other n - 1 absolute residuals, for every i, after a single sort."""
    a = np.abs(y - p)
    n = a.shape[0]
    order = np.argsort(a, kind="stable")
    s = a[order]
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    m = n - 1  # size of each leave-one-out sample

    def kth_of_rest(k: int) -> FloatArray:  # k-th smallest of s with s[position] removed
        return s[k + (k >= position)]

    if m % 2 == 1:
        return kth_of_rest(m // 2)
    return 0.5 * (kth_of_rest(m // 2 - 1) + kth_of_rest(m // 2))


def _absolute_residuals(y: FloatArray, p: FloatArray) -> FloatArray:
    return np.abs(y - p)


def _median_sweep_prepare(y: FloatArray, preds: FloatArray, params: Any) -> Any:
    """The absolute residuals of each model, once (finite residuals, defaults only)."""
    if params:
        return None
    with np.errstate(over="ignore"):
        residuals = np.abs(y[None, :] - preds)
    return residuals if np.isfinite(residuals).all() else None


# The bootstrap's replicates of the median without calling the function per replicate.
_MEDIAN_SWEEP = ReplicateSweep(
    _median_sweep_prepare,
    _median.weighted_median_replicates,
    "weighted median of the absolute residuals",
)


# A quantile of the residuals needs their order, which neither mergeable sums nor sorts by
# prediction or truth provide: no computational form; an engine in pieces finds the median by
# exact selection (MedianForm).
@register_metric(
    "median_absolute_error",
    plain_name="median absolute error",
    meaning="The typical case's error: half the errors are smaller.",
    higher_is_better=False,
    family="residual",
    leave_one_out=_median_leave_one_out,
    median=MedianForm(_absolute_residuals),
    batched=ReplicateForm(_MEDIAN_SWEEP, "median"),
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def median_absolute_error(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Median of the absolute residuals, ``Median(|r_1|, ..., |r_n|)`` (Rosset et al. 2005, "MAD").

    Parameters
    ----------
    %(y_true_finite)s
    %(y_pred_finite)s
    %(sample_weight_rows)s

    Returns
    -------
    float
        Lower is better; robust (breakdown point near 1/2).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    For an even count the two middle values are averaged (as ``np.median`` and scikit-learn's
    ``median_absolute_error``). With ``sample_weight`` it is the average of the lower and upper
    weighted medians, so integer weights equal repeated rows (as scikit-learn >= 1.6).

    Robust for evaluation (breakdown point near 1/2, Rosset et al. 2005, Sect. 4) but, they warn, it
    ignores the largest errors completely.

    References
    ----------
    %(rosset2005)s

    Examples
    --------
    >>> median_absolute_error([1.0, 2.0, 4.0, 8.0], [1.0, 3.0, 2.0, 8.0])
    0.5
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight)
    with np.errstate(over="ignore"):
        a = np.abs(y - p)
    if np.isfinite(a).all():
        return _median.weighted_median(a, w)
    # A residual beyond the largest float: the median of the halved residuals, doubled (inf only
    # when the median itself is beyond the largest float).
    return _ldexp(_median.weighted_median(np.abs(0.5 * y - 0.5 * p), w), 1)


# --------------------------------------------------------------------------------------------
# pmap (Payne et al. 2016): MASE with lag-1 scaling, order-dependent
# --------------------------------------------------------------------------------------------


def _pmap_leave_one_out(y: FloatArray, p: FloatArray) -> FloatArray:
    """pmap (without intervals) of the series with row i deleted, for every i, in O(n)."""
    n = y.shape[0]
    mae_rest = _exclusive_sums(np.abs(y - p)) / (n - 1)
    d = np.abs(np.diff(y))  # d[t] = |y[t+1] - y[t]|
    prefix = np.concatenate(([0.0], np.cumsum(d)))  # prefix[t] = d[0] + ... + d[t-1]
    total = prefix[-1]
    scale_sum = np.empty(n)
    scale_sum[0] = total - d[0]
    scale_sum[-1] = total - d[-1]
    if n > 2:
        inner = np.arange(1, n - 1)
        # deleting row i removes d[i-1] and d[i] and joins y[i-1] to y[i+1]
        scale_sum[inner] = (
            prefix[inner - 1] + (total - prefix[inner + 1]) + np.abs(y[inner + 1] - y[inner - 1])
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = scale_sum / (n - 2) if n > 2 else np.full(n, np.nan)
        out = mae_rest / scale
    out[~(scale > 0)] = np.nan
    return out


def _absolute_errors(y: FloatArray, p: FloatArray) -> FloatArray:
    return np.abs(y - p)


_PMAP_ZERO_SCALE = "pmap is undefined: y_true is constant, so its mean lag-1 change is 0"


# Its lag-1 scale needs the rows in their order: sums over pieces kept in that order, no sort.
@register_metric(
    "pmap",
    plain_name="error relative to the usual change",
    meaning="Average error relative to how much the target moves from one case to the next.",
    higher_is_better=False,
    family="residual",
    order_dependent=True,
    leave_one_out=_pmap_leave_one_out,
    lag_scaled=LagScaledForm(loss=_absolute_errors, zero_scale=_PMAP_ZERO_SCALE),
)
@raises_input_errors("y_true", "y_pred", "lower", "upper", probabilities=("alpha",))
@shared_paragraphs
def pmap(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    lower: ArrayLike | None = None,
    upper: ArrayLike | None = None,
    alpha: float | None = None,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Payne, Li & Qin's (2016) pmap: MAE scaled by the mean lag-1 change of ``y_true``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 2, in their natural order
    lower, upper : array-like of shape (n,), optional
        A central ``(1 - alpha)`` prediction interval for each row.
    alpha : float in (0, 1), optional
        Required together with ``lower`` and ``upper``.
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    float
        Lower is better; NaN with an :class:`~ranklens.exceptions.UndefinedMetricWarning` when
        ``y_true`` never changes between consecutive rows (zero scale).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``pmap = [sum w_i |y_i - yhat_i| / sum w_i] / [1/(n-1) sum_{t=2..n} |y_t - y_{t-1}|]``
    ``+ mean interval score`` (the last term only when ``lower``, ``upper`` and ``alpha`` are
    given). The first term is Hyndman & Koehler's MASE with the in-sample
    naive one-step forecast as scale (the paper misprints ``Y_{i=1}`` for ``Y_{i-1}``). It depends
    on the order of the data, so ``y_true`` must be in time (or another meaningful) order.

    **Order-dependent**: the scale uses consecutive rows, so the rows must be in their natural
    order (time, or a spatial transect); shuffling or bootstrapping rows changes the value. It is
    registered with ``order_dependent=True`` so resampling procedures refuse it.

    With ``sample_weight`` the MAE (and the interval score) are weighted means; the scale is a
    property of the series, not of the evaluated cases, so it stays unweighted.

    The printed formula divides by ``Y_{i=1}``; ranklens reads it as the lag-1 change
    ``Y_i - Y_{i-1}`` (MASE with the naive one-step forecast as scale) and, because that scale
    depends on the order of the rows, refuses to resample it.

    References
    ----------
    %(payne2016)s

    Hyndman, R. J. and Koehler, A. B. (2006). Another look at measures of forecast accuracy.
    *International Journal of Forecasting* 22(4), 679-688. doi:10.1016/j.ijforecast.2006.03.001

    Examples
    --------
    >>> pmap([1.0, 3.0, 2.0, 4.0], [1.5, 2.5, 2.5, 3.5])
    0.3
    """
    y, p, w = _prepare(y_true, y_pred, sample_weight, min_n=2)
    given = [lower is not None, upper is not None, alpha is not None]
    if any(given) and not all(given):
        raise ValueError(
            "pmap needs lower, upper and alpha together (a central (1 - alpha) interval); "
            f"got lower={'given' if given[0] else None}, upper={'given' if given[1] else None}, "
            f"alpha={alpha!r}"
        )
    # both means scaled before summing (see scaled_residuals), so pmap is a float whenever it is
    # representable, for series of any magnitude
    scale = _scaled_mae(y[1:], y[:-1], None)
    if scale == 0.0:
        warn_undefined(_PMAP_ZERO_SCALE)
        return float("nan")
    value = _scaled_mae(y, p, w) / scale
    if all(given):
        lo = as_1d_float(lower, "lower")
        hi = as_1d_float(upper, "upper")
        for name, arr in (("lower", lo), ("upper", hi)):
            if arr.shape[0] != y.shape[0]:
                raise ValueError(
                    f"{name} has length {arr.shape[0]} but y_true has length {y.shape[0]}"
                )
        a = check_probability(alpha, "alpha")
        value += float(interval_score(y, lo, hi, alpha=a, sample_weight=w))
    return float(value)


@raises_input_errors("y_true", "y_pred", "lower", "upper")
@shared_paragraphs
def prmspe(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    alpha: float,
    sample_weight: ArrayLike | None = None,
) -> float:
    r"""Penalised RMSPE in its scale-consistent form: ``RMSPE + mean interval score / RMS(y)``.

    .. math::

        \mathrm{PRMSPE} = \frac{\lVert y - \hat y \rVert}{\lVert y \rVert}
        + \frac{\tfrac1k \sum_i S_\alpha(l_i, u_i; y_i)}{\sqrt{\tfrac1k \sum_i y_i^2}}

    with :func:`rmspe` and the interval score ``S_alpha`` of Gneiting & Raftery (2007)
    (:func:`ranklens.interval_score`).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Targets (strictly positive: a ratio scale, as for RMSPE) and point predictions.
    lower, upper : array-like of shape (n,)
        Bounds of central ``(1 - alpha)`` prediction intervals.
    alpha : float
        Miss rate of the intervals, in (0, 1) (0.2 for 80 % intervals).
    sample_weight : array-like of shape (n,), optional
        Case weights; every mean is weighted.

    Returns
    -------
    float

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Payne, Li & Qin (2016) print two forms and neither is free of the test size k:
    ``RMSPE + sum_j (u_j - l_j) / ||y||`` grows like sqrt(k) (a sum over k intervals divided by
    a norm of order sqrt(k)), and ``RMSPE + sum_j S_j / (k ||y||)`` shrinks like 1/sqrt(k), so
    the same model would score differently on a larger test set. Dividing the *mean* score by
    the root mean square of y (= ||y|| / sqrt(k)) removes the dependence, and both terms are
    free of the units of y. Not in the metric registry: it needs a point prediction and an
    interval at once.

    References
    ----------
    %(payne2016)s

    %(gneiting2007)s
    """
    y, yhat = check_pair(y_true, y_pred, min_n=1)
    w = check_sample_weight(sample_weight, y.shape[0])
    relative = rmspe(y, yhat, sample_weight=w)  # raises unless every y_true > 0
    mean_score = interval_score(y, lower, upper, alpha=alpha, sample_weight=w)
    # the root mean square of y, scaled before squaring like RMSPE itself
    ys, e = _scaled(y)
    rms_y = _ldexp(math.sqrt(float(np.average(ys * ys, weights=w))), e)
    return float(relative + mean_score / rms_y)


# --------------------------------------------------------------------------------------------
# Error curves: REC (Bi & Bennett 2003) and RROC (Hernandez-Orallo 2013)
#
# * rec_curve: the regression error characteristic curve cited by Rosset, Perlich & Zadrozny
#   (2005, Sect. 2 and 4): the fraction of observations predicted within each error tolerance,
#   and the area over it.
# * rroc_curve: the ROC space for regression: total over-estimation against total
#   under-estimation as a constant shift is added to the predictions, and the area over it, in
#   O(n log n) (the R package auditor draws it in O(n^2)).
# --------------------------------------------------------------------------------------------


_REC_LOSSES = ("absolute", "squared")


@dataclasses.dataclass(frozen=True, repr=False)
class RECCurveResult(CurveResult):
    """A regression error characteristic (REC) curve.

    Attributes
    ----------
    tolerance : ndarray
        0 followed by the distinct losses in increasing order (the curve's steps).
    accuracy : ndarray
        Weighted fraction of observations whose loss is ``<= tolerance`` (right-continuous ECDF).
    area_over_curve : float
        ``integral_0^max (1 - accuracy(t)) dt``; for this exact step curve it equals the mean
        loss (``mean_absolute_error`` for ``loss="absolute"``, ``mean_squared_error`` for
        ``"squared"``).
    loss : str
        ``"absolute"`` (``|y - yhat|``) or ``"squared"`` (``(y - yhat)^2``).
    """

    x_field = "tolerance"
    y_field = "accuracy"
    x_label = "error tolerance"
    y_label = "share of cases within tolerance"

    @property
    def area(self) -> float:
        """The area over the REC curve, :attr:`area_over_curve` (``CurveResult`` protocol)."""
        return self.area_over_curve

    def at(self, x: Any) -> Any:
        """The share of cases whose error is at most ``x`` (the exact step function).

        Parameters
        ----------
        x : float or array-like
            Tolerances.

        Returns
        -------
        float or ndarray
            The accuracy at each tolerance; NaN for a NaN tolerance.
        """
        q = np.asarray(x, dtype=np.float64)
        k = np.searchsorted(self.tolerance, q, side="right") - 1
        acc = np.asarray(self.accuracy, dtype=np.float64)
        out = np.where(k >= 0, acc[np.clip(k, 0, acc.size - 1)], 0.0) if acc.size else q * np.nan
        out = np.where(np.isnan(q), np.nan, out)
        return float(out) if out.ndim == 0 else out

    tolerance: FloatArray
    accuracy: FloatArray
    area_over_curve: float
    loss: str


#: Points of the REC and RROC curves built from mergeable sums (:class:`CurveSumsForm`): the
#: abscissae at this many evenly spaced order statistics of a sample of the rows, plus the ends.
SUMS_POINTS = 1000


def _losses(y: np.ndarray, p: np.ndarray, loss: str) -> np.ndarray:
    """The REC curve's per-row losses, as :func:`rec_curve` computes them."""
    if loss not in _REC_LOSSES:
        raise ValueError(f"loss must be one of {_REC_LOSSES}; got {loss!r}")
    return np.abs(y - p) if loss == "absolute" else (y - p) ** 2


def _positive(values: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """The values and weights of the rows of positive weight (all rows without weights)."""
    if w is None:
        return values, None
    keep = w > 0
    return values[keep], w[keep]


def _rec_grid(y: np.ndarray, p: np.ndarray, *, loss: str = "absolute") -> np.ndarray:
    """Tolerance 0 and the losses of a sample of rows at evenly spaced order statistics."""
    return np.unique(np.r_[0.0, sample_grid(_losses(y, p, loss), SUMS_POINTS)])


def _rec_partial(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, grid: np.ndarray, *, loss: str = "absolute"
) -> dict[str, Any] | None:
    """One piece's REC sums: per tolerance bin ``(grid[j-1], grid[j]]`` the rows and their
    weight, the weighted loss sum and the largest loss."""
    losses, w = _positive(_losses(y, p, loss), w)
    if losses.size == 0:
        return None
    where = np.searchsorted(grid, losses, side="left")
    count = np.bincount(where, minlength=grid.size + 1).astype(np.int64)
    mass = None if w is None else np.bincount(where, weights=w, minlength=grid.size + 1)
    total = float(losses.sum()) if w is None else float(np.sum(w * losses))
    return {"count": count, "mass": mass, "loss": [total], "max": float(losses.max())}


def _rec_merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    mass = None if a["mass"] is None else a["mass"] + b["mass"]
    return {
        "count": a["count"] + b["count"],
        "mass": mass,
        "loss": a["loss"] + b["loss"],
        "max": max(a["max"], b["max"]),
    }


def _rec_finish(s: dict[str, Any], grid: np.ndarray, *, loss: str = "absolute") -> RECCurveResult:
    """The REC curve at tolerance 0, at the grid's tolerances below the largest loss and at the
    largest loss (accuracy 1); the area over the curve, the mean loss, from the exact sums."""
    mass = s["count"] if s["mass"] is None else s["mass"]
    total = int(mass.sum()) if s["mass"] is None else math.fsum(mass)
    inside = grid < s["max"]
    cum = np.cumsum(mass)[: int(inside.sum())] / total  # weight of losses <= each tolerance
    tolerance = np.r_[grid[inside], s["max"]]
    accuracy = np.r_[cum, 1.0]
    return RECCurveResult(
        tolerance=tolerance,
        accuracy=accuracy,
        area_over_curve=math.fsum(s["loss"]) / total,
        loss=str(loss),
    )


_REC_SUMS = CurveSumsForm(
    grid=_rec_grid,
    partial=_rec_partial,
    merge=_rec_merge,
    finish=_rec_finish,
    params=("loss",),
    points=(
        f"at tolerance 0, at the losses of up to {SUMS_POINTS} evenly spaced order statistics "
        "of a sample of the rows and at the largest loss; each point's share of cases is "
        "exact, and the area over the curve is the exact mean loss"
    ),
)


@register_curve("rec", family="residual", sums=_REC_SUMS)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def rec_curve(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    loss: Literal["absolute", "squared"] = "absolute",
    sample_weight: ArrayLike | None = None,
) -> RECCurveResult:
    """Regression error characteristic curve (Bi & Bennett 2003).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    loss : {"absolute", "squared"}, default "absolute"
    %(sample_weight)s

    Returns
    -------
    RECCurveResult

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    ``accuracy(t) = sum_i w_i 1{L_i <= t} / sum_i w_i`` at every tolerance ``t``, with
    ``L_i = |y_i - yhat_i|`` or ``(y_i - yhat_i)^2``: the empirical CDF of the losses, drawn from
    ``t = 0`` to the largest loss.

    Curve and area: the curve is kept as the exact step function. Its area over the curve (AOC,
    up to accuracy 1) is then exactly the mean loss, the identity behind the remark of Rosset et al.
    (2005) that the AOC is evaluation non-robust (``AOC >= max_i |r_i| / n``, Sect. 4). Bi & Bennett
    join the points by straight lines, which gives a slightly smaller AOC that converges to the same
    value.

    References
    ----------
    Bi, J. and Bennett, K. P. (2003). Regression error characteristic curves. *Proceedings of
    the 20th International Conference on Machine Learning (ICML 2003)*, 43-50.

    %(rosset2005)s

    Examples
    --------
    >>> curve = rec_curve([1.0, 2.0, 4.0, 8.0], [1.0, 3.0, 2.0, 8.5])
    >>> curve.tolerance.tolist(), curve.accuracy.tolist(), curve.area_over_curve
    ([0.0, 0.5, 1.0, 2.0], [0.25, 0.5, 0.75, 1.0], 0.875)
    """
    if loss not in _REC_LOSSES:
        raise ValueError(f"loss must be one of {_REC_LOSSES}; got {loss!r}")
    y, p = check_pair(y_true, y_pred, min_n=2)
    w = check_sample_weight(sample_weight, y.shape[0])
    losses = np.abs(y - p) if loss == "absolute" else (y - p) ** 2
    if w is not None:  # zero-weight rows do not exist for the curve
        keep = w > 0
        losses, w = losses[keep], w[keep]
    values, inverse = np.unique(losses, return_inverse=True)
    mass = np.bincount(inverse, weights=w, minlength=values.shape[0])
    cdf = np.cumsum(mass) / mass.sum()
    cdf[-1] = 1.0
    if values[0] > 0.0:
        tolerance = np.concatenate(([0.0], values))
        accuracy = np.concatenate(([0.0], cdf))
    else:
        tolerance, accuracy = values, cdf
    area = float(np.sum(np.diff(tolerance) * (1.0 - accuracy[:-1])))
    return RECCurveResult(
        tolerance=tolerance, accuracy=accuracy, area_over_curve=area, loss=str(loss)
    )


@dataclasses.dataclass(frozen=True, repr=False)
class RROCCurveResult(CurveResult):
    """A regression ROC (RROC) curve: total over- against total under-estimation.

    Attributes
    ----------
    shift : ndarray
        The shifts ``s`` (added to every prediction) at the curve's vertices, increasing; a vertex
        is where ``yhat_i + s = y_i`` for some i.
    over : ndarray
        ``OVER(s) = sum_i w_i max(yhat_i + s - y_i, 0)`` (>= 0, increasing in ``s``).
    under : ndarray
        ``UNDER(s) = sum_i w_i min(yhat_i + s - y_i, 0)`` (<= 0, increasing towards 0).
    area : float
        Area over the curve (between the curve and ``UNDER = 0``). Hernandez-Orallo (2013): it
        equals ``W^2 var_w(e) / 2``, with ``e = yhat - y``, ``W = sum w`` and ``var_w`` the
        weighted population variance of the errors (``n^2 sigma^2 / 2`` unweighted).
    model_over, model_under : float
        The model's own operating point, ``OVER(0)`` and ``UNDER(0)``.
    unbiased_shift : float
        The shift ``-mean_w(e)`` at which ``OVER + UNDER = 0`` (the curve meets the diagonal).
    """

    x_field = "over"
    y_field = "under"
    x_label = "over-estimation  Σ (ŷ − y)₊"
    y_label = "under-estimation  −Σ (ŷ − y)₋"

    shift: FloatArray
    over: FloatArray
    under: FloatArray
    area: float
    model_over: float
    model_under: float
    unbiased_shift: float


def _strict_prefix_suffix(values: np.ndarray) -> tuple[FloatArray, FloatArray]:
    """``sum_{l < k} values_l`` and ``sum_{l > k} values_l`` for every k."""
    prefix = np.concatenate(([0.0], np.cumsum(values)[:-1]))
    suffix = np.concatenate((np.cumsum(values[::-1])[::-1][1:], [0.0]))
    return prefix, suffix


def _rroc_grid(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The errors ``yhat - y`` of a sample of rows at evenly spaced order statistics, and 0 (the
    model's own point): the curve's points are at the shifts ``-grid``."""
    return np.unique(np.r_[0.0, sample_grid(p - y, SUMS_POINTS)])


def _rroc_partial(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, grid: np.ndarray
) -> dict[str, Any] | None:
    """One piece's RROC sums over the error bins ``(grid[j-1], grid[j]]`` (the first bin from
    the piece's smallest error, the last to its largest): the weight of each bin, and its
    weighted errors measured from the bin's lower end (``>= 0``) and from its upper end
    (``<= 0``); the weight, error sum and squared deviations from the piece's mean; the
    positive and negative parts."""
    e, w = _positive(p - y, w)
    if e.size == 0:
        return None
    ww = np.ones_like(e) if w is None else w
    lo, hi = float(e.min()), float(e.max())
    where = np.searchsorted(grid, e, side="left")
    size = grid.size + 1
    below, above = np.r_[lo, grid], np.r_[grid, hi]
    total = float(ww.sum())
    esum = float(np.sum(ww * e))
    mean = esum / total
    return {
        "min": lo,
        "max": hi,
        "w": np.bincount(where, weights=ww, minlength=size),
        "up": np.bincount(where, weights=ww * (e - below[where]), minlength=size),
        "down": np.bincount(where, weights=ww * (e - above[where]), minlength=size),
        "moments": [(total, esum, float(np.sum(ww * (e - mean) ** 2)))],
        "over": [float(np.sum(ww * np.maximum(e, 0.0)))],
        "under": [float(np.sum(ww * np.minimum(e, 0.0)))],
    }


def _rroc_merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    lo, hi = min(a["min"], b["min"]), max(a["max"], b["max"])
    up, down = a["up"] + b["up"], a["down"] + b["down"]
    # the end bins' sums re-measured from the common smallest and largest error
    up[0] += a["w"][0] * (a["min"] - lo) + b["w"][0] * (b["min"] - lo)
    down[-1] += a["w"][-1] * (a["max"] - hi) + b["w"][-1] * (b["max"] - hi)
    return {
        "min": lo,
        "max": hi,
        "w": a["w"] + b["w"],
        "up": up,
        "down": down,
        "moments": a["moments"] + b["moments"],
        "over": a["over"] + b["over"],
        "under": a["under"] + b["under"],
    }


def _rroc_finish(s: dict[str, Any], grid: np.ndarray) -> RROCCurveResult:
    """The RROC curve at the shifts ``-x`` for the smallest error, the grid's errors between the
    smallest and largest, and the largest error; the area ``W M2 / 2`` from the pieces' moments
    (Chan, Golub & LeVeque 1983), the model's point and the unbiased shift from exact sums."""
    lo, hi = s["min"], s["max"]
    x = np.unique(np.r_[lo, grid[(grid > lo) & (grid < hi)], hi])
    bins = np.arange(grid.size + 1)
    below, above = np.r_[lo, grid], np.r_[grid, hi]
    # OVER(x) = sum over the bins whose rows are all >= x of sum w (e - x): the bin's sum from its
    # lower end plus its weight times (lower end - x), every term >= 0 (no cancellation)
    first = np.searchsorted(grid, x, side="right")
    first[0] = 0  # at the smallest error every bin
    over = np.sum(
        np.where(
            bins[None, :] >= first[:, None],
            s["up"][None, :] + s["w"][None, :] * (below[None, :] - x[:, None]),
            0.0,
        ),
        axis=1,
    )
    # UNDER(x): the bins whose rows are all <= x, from their upper ends (every term <= 0)
    last = np.searchsorted(grid, x, side="left")
    last[-1] = grid.size  # at the largest error every bin
    under = np.sum(
        np.where(
            bins[None, :] <= last[:, None],
            s["down"][None, :] + s["w"][None, :] * (above[None, :] - x[:, None]),
            0.0,
        ),
        axis=1,
    )
    over[-1], under[0] = 0.0, 0.0
    over, under = np.maximum(over, 0.0), np.minimum(under, 0.0)
    total = math.fsum(m[0] for m in s["moments"])
    center = math.fsum(m[1] for m in s["moments"]) / total
    spread = math.fsum(m[2] for m in s["moments"]) + math.fsum(
        m[0] * (m[1] / m[0] - center) ** 2 for m in s["moments"]
    )
    return RROCCurveResult(
        shift=0.0 - x[::-1],
        over=over[::-1],
        under=under[::-1],
        area=total * spread / 2.0,
        model_over=math.fsum(s["over"]),
        model_under=math.fsum(s["under"]),
        unbiased_shift=-center,
    )


_RROC_SUMS = CurveSumsForm(
    grid=_rroc_grid,
    partial=_rroc_partial,
    merge=_rroc_merge,
    finish=_rroc_finish,
    points=(
        f"at the shifts that cancel the smallest error, the errors of up to {SUMS_POINTS} evenly "
        "spaced order statistics of a sample of the rows, no error (the model's own point) and "
        "the largest error; each point's over- and under-estimation is exact, and the area is "
        "the exact W^2 var(e) / 2"
    ),
)


@register_curve("rroc", family="residual", sums=_RROC_SUMS)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def rroc_curve(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> RROCCurveResult:
    """Regression ROC curve of Hernandez-Orallo (2013), "ROC curves for regression", in O(n log n).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    %(sample_weight)s

    Returns
    -------
    RROCCurveResult

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    With errors ``e_i = yhat_i - y_i`` and a shift ``s`` added to every prediction,
    ``OVER(s) = sum w_i (e_i + s)_+`` and ``UNDER(s) = -sum w_i (e_i + s)_-``. As ``s`` runs over
    the real line the point ``(OVER, UNDER)`` traces a convex, piecewise-linear curve from
    ``(0, -inf)`` to ``(+inf, 0)``; its vertices are at ``s = -e_i``. After one sort of the errors
    every vertex follows from prefix sums (the errors are centred first so the differences are
    computed without cancellation), so the whole curve costs O(n log n).

    The area over the curve is summed exactly by trapezoids (both coordinates are linear in ``s``
    between vertices; the two unbounded end pieces add no area) and equals
    ``W^2 var_w(e) / 2``. It depends on the spread of the errors only, not on their bias: the bias
    is read from the model's operating point ``(model_over, model_under)`` against the diagonal
    ``OVER = -UNDER``.

    References
    ----------
    Hernández-Orallo, J. (2013). ROC curves for regression. *Pattern Recognition* 46(12),
    3395-3411. doi:10.1016/j.patcog.2013.06.014

    Examples
    --------
    >>> curve = rroc_curve([1.0, 2.0, 3.0], [1.5, 1.5, 3.0])
    >>> curve.shift.tolist(), curve.over.tolist(), curve.under.tolist()
    ([-0.5, 0.0, 0.5], [0.0, 0.5, 1.5], [-1.5, -0.5, 0.0])
    >>> curve.area
    0.75
    """
    y, p = check_pair(y_true, y_pred, min_n=2)
    w = check_sample_weight(sample_weight, y.shape[0], normalize=False)
    # Values or weights of extreme size (y near 1e307, weights near 1e200) are brought near 1 by
    # powers of two first (the same digits): the sums and the area are formed without overflow
    # and scaled back once at the end (ordinary data: both exponents 0, nothing changes).
    k = product_exponent(float(max(np.abs(y).max(), np.abs(p).max())))
    if k:
        y, p = np.ldexp(y, -k), np.ldexp(p, -k)
    j = 0
    if w is not None:
        j = product_exponent(float(w.sum()))
        w = np.ldexp(w, -j) if j else w
    curve = _rroc_sums(p - y, w)
    return curve if not (k or j) else _rroc_scaled_back(curve, k, j)


def _rroc_scaled_back(curve: RROCCurveResult, k: int, j: int) -> RROCCurveResult:
    """``curve`` of errors scaled by ``2**-k`` and weights by ``2**-j``, on the data's scale; a
    coordinate beyond the float range becomes inf, with an ``UndefinedMetricWarning``."""
    with np.errstate(over="ignore", under="ignore"):
        out = dataclasses.replace(
            curve,
            shift=np.ldexp(curve.shift, k),
            over=np.ldexp(curve.over, k + j),
            under=np.ldexp(curve.under, k + j),
            area=_ldexp(curve.area, 2 * (k + j)),
            model_over=_ldexp(curve.model_over, k + j),
            model_under=_ldexp(curve.model_under, k + j),
            unbiased_shift=_ldexp(curve.unbiased_shift, k),
        )
    finite = np.isfinite(out.over).all() and np.isfinite(out.under).all()
    if not (finite and math.isfinite(out.area)):
        warn_undefined(
            "the RROC curve's sums of errors exceed the float range (about 1.8e308): the "
            "coordinates (and the area) beyond it are inf; its shape is that of the data "
            "rescaled, e.g. y and y_pred divided by a power of ten",
            stacklevel=4,
        )
    return out


def _rroc_sums(e: FloatArray, w: FloatArray | None) -> RROCCurveResult:
    """:func:`rroc_curve` of the errors ``e`` with case weights ``w`` (None: unit)."""
    if w is not None:
        keep = w > 0
        e, w = e[keep], w[keep]
        total_w = float(w.sum())
        center = float((w * e).sum() / total_w)
    else:
        total_w = float(e.shape[0])
        center = float(e.mean())
    values, inverse = np.unique(e, return_inverse=True)  # increasing
    mass = np.bincount(inverse, weights=w, minlength=values.shape[0])
    c = values - center
    below_w, above_w = _strict_prefix_suffix(mass)  # weight of errors < and > values[k]
    below_wc, above_wc = _strict_prefix_suffix(mass * c)
    # vertex at s = -values[k]: OVER sums the errors above it, UNDER those below it
    over = np.maximum(above_wc - c * above_w, 0.0)
    under = np.minimum(-(c * below_w - below_wc), 0.0)
    # increasing shift = decreasing error
    shift, over, under = 0.0 - values[::-1], over[::-1], under[::-1]
    area = float(np.sum(np.diff(over) * -(under[:-1] + under[1:]) / 2.0))
    weight = 1.0 if w is None else w
    model_over = float(np.sum(np.maximum(e, 0.0) * weight))
    model_under = float(np.sum(np.minimum(e, 0.0) * weight))
    return RROCCurveResult(
        shift=shift,
        over=over,
        under=under,
        area=area,
        model_over=model_over,
        model_under=model_under,
        unbiased_shift=-center,
    )
