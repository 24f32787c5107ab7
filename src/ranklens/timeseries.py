"""Comparing models on rows in time order: the Diebold-Mariano test of equal expected loss.

Forecasts, daily returns and scores logged in production arrive in time order, and their
errors are serially dependent: an ``h``-step-ahead forecast error is correlated with the next
``h - 1``, and the size of the errors persists. The paired bootstrap of rows treats them as
independent and understates the variance of a mean loss. The Diebold & Mariano (1995) test
compares two models' mean losses with the variance of the loss differential at the forecast
horizon, with the small-sample correction of Harvey, Leybourne & Newbold (1997) (R's
``forecast::dm.test``). It applies to measures that are the mean of a per-row loss (the mean
absolute and squared errors, the lin-lin and epsilon-insensitive losses); the others are refused
by name.

References
----------
Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of Business &
Economic Statistics* 13(3), 253-263.

Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
squared errors. *International Journal of Forecasting* 13(2), 281-291.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from scipy import stats

from ranklens._foundation.results import ConfidenceInterval, Result
from ranklens._foundation.serial import DieboldMariano, diebold_mariano
from ranklens._foundation.validation import as_1d_float, check_probability
from ranklens._inference.diebold_mariano import loss_rows
from ranklens.metrics import get_metric

__all__ = ["DieboldMarianoTestResult", "diebold_mariano_test"]


@dataclasses.dataclass(frozen=True)
class DieboldMarianoTestResult(Result):
    """The Diebold-Mariano test of two models' mean losses.

    Attributes
    ----------
    metric : str
        The measure (the mean of a per-row loss).
    value_a, value_b : float
        Each model's measure.
    difference : float
        ``value_a - value_b``, the mean loss differential ``dbar``.
    std_error : float
        Its standard error at the horizon (Harvey, Leybourne & Newbold's correction included).
    statistic : float
        ``difference / std_error``, referred to Student's t with ``df`` degrees of freedom.
    p_value : float
        Two-sided p-value of "equal expected loss".
    ci : ConfidenceInterval
        ``difference -+ t_{df, (1 + confidence_level)/2} std_error``.
    horizon : int
        The horizon whose autocovariances entered the variance (see ``fell_back``).
    df : int
        ``n - 1``.
    fell_back : bool
        The variance at the horizon asked for was not positive, so the horizon-1 variance was
        used (as R's ``forecast::dm.test`` does).
    confidence_level : float
    n : int
        Rows.
    """

    metric: str
    value_a: float
    value_b: float
    difference: float
    std_error: float
    statistic: float
    p_value: float
    ci: ConfidenceInterval
    horizon: int
    df: int
    fell_back: bool
    confidence_level: float
    n: int


def diebold_mariano_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    metric: str = "mean_squared_error",
    horizon: int = 1,
    confidence_level: float = 0.95,
) -> DieboldMarianoTestResult:
    """Test whether two models' forecasts have equal expected loss (Diebold & Mariano 1995).

    The rows must be in time order. The loss differential ``d_t = L(y_t, a_t) - L(y_t, b_t)``
    of the measure's per-row loss ``L`` is tested for mean zero with the variance of its mean
    at the forecast horizon, ``V = (gamma_0 + 2 sum_{k=1}^{h-1} gamma_k) / n`` (an ``h``-step
    forecast error is at most ``MA(h - 1)``), and Harvey, Leybourne & Newbold's (1997)
    correction: ``DM* = (dbar / sqrt(V)) sqrt((n + 1 - 2h + h(h - 1)/n) / n)`` against
    Student's t with ``n - 1`` degrees of freedom. The numbers of R's ``forecast::dm.test(e_a,
    e_b, h = h, power = 2)`` for the squared error (``power = 1``: the absolute error).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The truth, in time order.
    y_pred_a, y_pred_b : array-like of shape (n,)
        The two models' forecasts.
    metric : str, default "mean_squared_error"
        A measure that is the mean of a per-row loss: ``"mean_squared_error"``,
        ``"mean_absolute_error"``, ``"linlin_loss"``, ``"epsilon_insensitive_loss"`` (others are
        refused by name).
    horizon : int, default 1
        The forecast horizon ``h`` of the forecasts (1: one step ahead).
    confidence_level : float, default 0.95
        Of the interval of the difference.

    Returns
    -------
    DieboldMarianoTestResult

    Raises
    ------
    ValueError
        If the measure is not a mean loss, ``horizon`` is not in [1, n - 1], the inputs differ
        in length or hold non-finite values, fewer than 3 rows are given, or the loss
        differential is constant (the test is undefined); the message names the argument.

    See Also
    --------
    ranklens.compare_models : ``method="diebold-mariano"`` compares every pair of models.

    References
    ----------
    Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of
    Business & Economic Statistics* 13(3), 253-263.

    Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
    squared errors. *International Journal of Forecasting* 13(2), 281-291.

    Examples
    --------
    >>> import numpy as np
    >>> import ranklens as rl
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=300)
    >>> result = rl.diebold_mariano_test(y, y + rng.normal(size=300), y + 2 * rng.normal(size=300))
    >>> bool(result.p_value < 0.05), result.horizon
    (True, 1)
    """
    y = as_1d_float(y_true, "y_true")
    a = as_1d_float(y_pred_a, "y_pred_a")
    b = as_1d_float(y_pred_b, "y_pred_b")
    for name, values in (("y_pred_a", a), ("y_pred_b", b)):
        if values.shape[0] != y.shape[0]:
            raise ValueError(f"{name} has length {values.shape[0]}; y_true has {y.shape[0]}")
    level = check_probability(confidence_level, "confidence_level")
    spec = get_metric(metric)
    losses_a, losses_b = loss_rows(spec, y, a), loss_rows(spec, y, b)
    test: DieboldMariano = diebold_mariano(losses_a - losses_b, horizon)
    half = float(stats.t.ppf(0.5 + level / 2.0, df=test.df)) * test.std_error
    return DieboldMarianoTestResult(
        metric=spec.name,
        value_a=float(losses_a.mean()),
        value_b=float(losses_b.mean()),
        difference=test.mean,
        std_error=test.std_error,
        statistic=test.statistic,
        p_value=test.p_value,
        ci=ConfidenceInterval(test.mean - half, test.mean + half),
        horizon=test.horizon,
        df=test.df,
        fell_back=test.fell_back,
        confidence_level=level,
        n=int(y.shape[0]),
    )
