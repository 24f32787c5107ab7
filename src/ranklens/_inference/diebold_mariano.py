"""The Diebold-Mariano comparison's arrays: the per-row losses of a mean-loss measure, each mean
loss's standard error and t interval at the forecast horizon, and every pair's test.

:func:`ranklens.compare_models` (``method="diebold-mariano"``) builds its result from
:func:`comparison_arrays`; :func:`ranklens.timeseries.diebold_mariano_test` tests one pair on
:func:`loss_rows`. The test itself (the variance at the horizon, Harvey, Leybourne & Newbold's
correction) is :func:`ranklens._foundation.serial.diebold_mariano`.

References
----------
Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of Business &
Economic Statistics* 13(3), 253-263.

Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
squared errors. *International Journal of Forecasting* 13(2), 281-291.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.forms import RatioForm
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.serial import autocovariances, diebold_mariano

__all__ = ["comparison_arrays", "loss_rows"]


def loss_rows(spec: MetricSpec, y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """The per-row losses whose mean the measure ``spec`` is.

    Raises
    ------
    ValueError
        Naming the measure, when it is not the plain mean of a per-row loss (a root, a ratio of
        two sums, a rank or curve measure).
    """
    form = spec.capabilities.batched
    if not (
        isinstance(form, RatioForm)
        and form.denominator is None
        and spec.capabilities.describes is spec.func
        and np.isclose(float(form.finalize(np.float64(4.0))), 4.0)
    ):
        raise ValueError(
            f"the Diebold-Mariano test compares means of a per-row loss; {spec.name!r} is not one "
            "(for the root mean squared error test mean_squared_error: the same hypothesis)"
        )
    num, _ = form.row_terms(y, pred)
    return num


def _mean_interval(losses: np.ndarray, horizon: int, level: float) -> tuple[float, float, float]:
    """A mean loss's standard error at the horizon (the Diebold-Mariano variance, corrected)
    and its t interval."""
    n = losses.shape[0]
    gamma = autocovariances(losses, horizon - 1)
    h = horizon
    variance = (gamma[0] + 2.0 * gamma[1:].sum()) / n
    if not variance > 0.0 and h > 1:
        h, variance = 1, gamma[0] / n
    if not variance >= 0.0:
        return math.nan, math.nan, math.nan
    correction = math.sqrt((n + 1 - 2 * h + h * (h - 1) / n) / n)
    se = math.sqrt(variance) / correction
    from scipy import stats  # loaded here: importing it takes about half a second

    half = float(stats.t.ppf(0.5 + level / 2.0, df=n - 1)) * se
    mean = float(losses.mean())
    return se, mean - half, mean + half


def comparison_arrays(
    specs: Sequence[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    values: np.ndarray,
    pair_index: Sequence[tuple[int, int]],
    level: float,
    horizon: int,
) -> dict[str, Any]:
    """The fields of a comparison by the Diebold-Mariano test, indexed like
    :class:`ranklens.compare.ComparisonResult`'s: per model the mean loss's standard error and
    t interval at the horizon; per pair the loss differential's, the test's statistic (``z``)
    and two-sided p-value, and the dual interval ``dbar -+ t_{n-1} sd``.

    Raises
    ------
    ValueError
        Naming a measure that is not the mean of a per-row loss, or when a loss differential is
        constant (the test is undefined).
    """
    n_metrics, n_models = values.shape
    n_pairs = len(pair_index)
    out: dict[str, Any] = {
        name: np.full((n_metrics, n_models), math.nan)
        for name in ("std_error", "ci_lower", "ci_upper")
    }
    for name in ("difference_sd", "z", "p_value", "difference_ci_lower", "difference_ci_upper"):
        out[name] = np.full((n_metrics, n_pairs), math.nan)
    from scipy import stats  # loaded here: importing it takes about half a second

    quantile = float(stats.t.ppf(0.5 + level / 2.0, df=y.shape[0] - 1))
    for k, spec in enumerate(specs):
        losses = [loss_rows(spec, y, preds[m]) for m in range(n_models)]
        for m in range(n_models):
            se, lo, hi = _mean_interval(losses[m], horizon, level)
            out["std_error"][k, m], out["ci_lower"][k, m], out["ci_upper"][k, m] = se, lo, hi
        for p, (a, b) in enumerate(pair_index):
            if np.array_equal(losses[a], losses[b]):  # identical losses: no difference at all
                out["difference_sd"][k, p], out["z"][k, p], out["p_value"][k, p] = 0.0, 0.0, 1.0
                out["difference_ci_lower"][k, p] = out["difference_ci_upper"][k, p] = 0.0
                continue
            test = diebold_mariano(losses[a] - losses[b], horizon)
            out["difference_sd"][k, p] = test.std_error
            out["z"][k, p] = test.statistic
            out["p_value"][k, p] = test.p_value
            out["difference_ci_lower"][k, p] = test.mean - quantile * test.std_error
            out["difference_ci_upper"][k, p] = test.mean + quantile * test.std_error
    out["p_value_one_sided"] = out["p_value"] / 2.0
    out["interval_methods"] = ("diebold-mariano-t",) * n_metrics
    out["difference_interval_methods"] = ("diebold-mariano-t",) * n_metrics
    out["approximate"] = np.zeros((n_metrics, n_models), dtype=bool)
    out["difference_approximate"] = np.zeros((n_metrics, n_pairs), dtype=bool)
    out["interval_notes"] = ("",) * n_metrics
    return out
