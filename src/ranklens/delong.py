"""DeLong's analytic inference for the AUC and Harrell's C: intervals and the paired test.

The AUC of a score (and, for a response with more than two values, Harrell's C) is a
concordance probability, a U-statistic, so its variance and the covariance of two models' values
on the same rows have closed forms: DeLong, DeLong & Clarke-Pearson (1988) estimate them from
per-row *structural components*, which Sun & Xu (2014) compute from midranks in O(n log n)
instead of O(n^2). This module gives

* :func:`delong_interval`: one model's value, its standard error and a Wald interval, what
  pROC's ``ci.auc(roc, method = "delong")`` gives (Robin et al. 2011);
* :func:`delong_test`: two models on the same rows, their values, the difference, its standard
  error, the z statistic and two-sided p-value and the intervals, what pROC's
  ``roc.test(roc1, roc2, method = "delong")`` gives;
* the analytic path of :func:`ranklens.compare_models` with ``method="delong"``, for every
  registered measure that declares itself an affine map of a concordance probability
  (``capabilities.delong``: the AUC, Harrell's C, Somers' D).

The response decides the statistic: with exactly two distinct values (0/1 labels, or any two
values, the larger being the event) the AUC with DeLong's two-sample variance; with more, Harrell's
C (pairs tied in the response left out, pairs tied in the prediction counting 1/2) with the
one-sample variance of Sen (1960), the generalisation whose two-sample form is DeLong's (see
:mod:`ranklens._kernels.delong`). Case weights enter as sampling weights: the variance is the
linearisation of the weighted statistic, rows being the independent units, and equal weights give
the unweighted numbers exactly.

References
----------
DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two or
more correlated receiver operating characteristic curves: a nonparametric approach.
*Biometrics* 44(3), 837-845. doi:10.2307/2531595

Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
under correlated receiver operating characteristic curves. *IEEE Signal Processing Letters*
21(11), 1389-1393. doi:10.1109/LSP.2014.2337313

Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez, J.-C. and Müller, M.
(2011). pROC: an open-source package for R and S+ to analyze and compare ROC curves. *BMC
Bioinformatics* 12, 77. doi:10.1186/1471-2105-12-77

Sen, P. K. (1960). On some convergence properties of U-statistics. *Calcutta Statistical
Association Bulletin* 10(1), 1-18.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._normal import ndtr, ndtr_array, ndtri
from ranklens._registry import ConcordanceForm, MetricSpec
from ranklens._results import ConfidenceInterval, Result
from ranklens._validation import check_pair, check_probability, check_sample_weight
from ranklens._xp import delong as _kd
from ranklens.exceptions import warn_undefined

__all__ = [
    "DeLongIntervalResult",
    "DeLongTestResult",
    "delong_interval",
    "delong_test",
]


def _statistic(part: _kd.ConcordanceComponents) -> tuple[str, str]:
    if part.binary:
        return "auc", "two-sample (DeLong, DeLong & Clarke-Pearson 1988)"
    return "harrell_c", "one-sample (Sen 1960)"


def _wald(
    estimate: float, std_error: float, level: float, low: float, high: float
) -> ConfidenceInterval:
    if not (math.isfinite(estimate) and math.isfinite(std_error)):
        return ConfidenceInterval.undefined()
    half = float(ndtri(0.5 + level / 2)) * std_error
    return ConfidenceInterval(max(low, estimate - half), min(high, estimate + half))


def _sqrt(variance: float) -> float:
    # rounding can leave -1e-18 for a variance that is 0
    return math.sqrt(max(variance, 0.0)) if math.isfinite(variance) else math.nan


def _warn_if_undefined(parts: Sequence[_kd.ConcordanceComponents], stacklevel: int) -> None:
    first = parts[0]
    if not first.denominator > 0:
        warn_undefined(
            "the concordance is undefined: y_true is constant (no pair of rows with different "
            "y_true)",
            stacklevel=stacklevel,
        )
    elif np.isnan(first.factors).any():
        warn_undefined(
            "DeLong's variance is undefined: a class of y_true has a single row (its structural "
            "components have no spread)",
            stacklevel=stacklevel,
        )


# --------------------------------------------------------------------------------------------
# one model
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class DeLongIntervalResult(Result):
    """One model's AUC (or Harrell's C) with DeLong's standard error and interval.

    Attributes
    ----------
    estimate : float
        The AUC for a two-valued ``y_true``, else Harrell's C.
    std_error : float
        Square root of DeLong's variance.
    ci : ConfidenceInterval
        ``estimate -+ z std_error`` at ``confidence_level``, clipped to [0, 1].
    confidence_level : float
    statistic : str
        ``"auc"`` or ``"harrell_c"``.
    design : str
        The variance estimator: DeLong's two-sample form (binary ``y_true``) or the one-sample
        form (Sen 1960).
    n : int
        Rows with positive weight.
    """

    estimate: float
    std_error: float
    ci: ConfidenceInterval
    confidence_level: float
    statistic: str
    design: str
    n: int

    @property
    def auc(self) -> float:
        """Alias of :attr:`estimate` (Harrell's C for a response with more than two values)."""
        return self.estimate


def delong_interval(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    confidence_level: float = 0.95,
) -> DeLongIntervalResult:
    """AUC (or Harrell's C) with DeLong's standard error and Wald confidence interval.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcome (any two values, the larger being the event), or a response with more
        values (the statistic is then Harrell's C).
    y_score : array-like of shape (n,)
        Score; higher means more likely an event (higher response).
    sample_weight : array-like of shape (n,), optional
        Non-negative sampling weights (see Notes).
    confidence_level : float, default 0.95

    Returns
    -------
    DeLongIntervalResult
        ``estimate``, ``std_error`` and ``ci``; NaN (with an ``UndefinedMetricWarning``) when
        ``y_true`` is constant or, for a binary ``y_true``, a class has a single row.

    Raises
    ------
    ValueError
        Inputs of different lengths, non-finite values, negative weights or a
        ``confidence_level`` outside (0, 1).

    Notes
    -----
    For events ``X_1..X_m`` and non-events ``Y_1..Y_n`` with components
    ``V10(X_i) = (1/n) sum_j psi(X_i, Y_j)`` and ``V01(Y_j) = (1/m) sum_i psi(X_i, Y_j)``
    (``psi`` 1, 1/2 or 0 as ``X`` is above, tied with or below ``Y``), DeLong et al. (1988)
    estimate ``Var(AUC) = S10 / m + S01 / n`` with ``S10``, ``S01`` the sample variances of the
    components. The components are midranks (Sun & Xu 2014): one sort, O(n log n). The interval
    is ``AUC -+ z_{(1+level)/2} sqrt(Var)``, clipped to [0, 1], as pROC's
    ``ci.auc(..., method = "delong")``.

    For a response with more than two values the estimate is Harrell's C and the variance the
    one-sample U-statistic estimate ``4 N/(N-1) sum_i phi_i^2 / (sum_i d_i)^2`` with
    ``phi_i = psi_i - C d_i``, ``psi_i`` the concordance credit of row ``i`` over the rows with a
    different response and ``d_i`` their number (Sen 1960; its two-sample form is DeLong's).

    Weights are sampling weights: every sum above is weighted, and the variance is the
    linearisation ``c sum_i w_i^2 (V_i - AUC)^2 / W^2`` per class, with ``c = m/(m-1)`` from the
    rows; it is invariant to the scale of the weights and equal weights give the unweighted
    numbers. Integer weights are *not* treated as repeated rows.

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    *Biometrics* 44(3), 837-845.

    Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves. *IEEE Signal Processing Letters*
    21(11), 1389-1393.

    Sen, P. K. (1960). On some convergence properties of U-statistics. *Calcutta Statistical
    Association Bulletin* 10(1), 1-18.

    Examples
    --------
    >>> res = delong_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> round(res.estimate, 4), round(res.std_error, 4)
    (0.8889, 0.1571)
    """
    y, score = check_pair(y_true, y_score, names=("y_true", "y_score"))
    w = check_sample_weight(sample_weight, y.shape[0])
    level = check_probability(confidence_level, "confidence_level")
    part = _kd.components(y, score, w)
    _warn_if_undefined([part], stacklevel=3)
    se = _sqrt(_kd.covariance(part, part))
    statistic, design = _statistic(part)
    return DeLongIntervalResult(
        estimate=part.estimate,
        std_error=se,
        ci=_wald(part.estimate, se, level, 0.0, 1.0),
        confidence_level=level,
        statistic=statistic,
        design=design,
        n=int(y.shape[0] if w is None else np.count_nonzero(w)),
    )


# --------------------------------------------------------------------------------------------
# two models
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, repr=False)
class DeLongTestResult(Result):
    """DeLong's paired test of two models' AUCs (or Harrell's C) on the same rows.

    Attributes
    ----------
    models : tuple of str
        The two models' names.
    estimate_a, estimate_b : float
        The AUC of each model (Harrell's C for a response with more than two values).
    std_error_a, std_error_b : float
        DeLong's standard errors.
    correlation : float
        Correlation of the two estimates (from DeLong's covariance).
    difference : float
        ``estimate_a - estimate_b``.
    difference_std_error : float
        ``sqrt(Var_a + Var_b - 2 Cov_ab)``.
    z : float
        ``difference / difference_std_error`` (0 for identical scores).
    p_value : float
        Two-sided, ``2 Phi(-|z|)``.
    ci_a, ci_b : ConfidenceInterval
        Wald intervals of each estimate, clipped to [0, 1].
    difference_ci : ConfidenceInterval
        Wald interval of the difference, clipped to [-1, 1].
    confidence_level : float
    statistic : str
        ``"auc"`` or ``"harrell_c"``.
    design : str
        The variance estimator (two-sample DeLong or one-sample Sen).
    n : int
        Rows with positive weight.
    """

    models: tuple[str, str]
    estimate_a: float
    estimate_b: float
    std_error_a: float
    std_error_b: float
    correlation: float
    difference: float
    difference_std_error: float
    z: float
    p_value: float
    ci_a: ConfidenceInterval
    ci_b: ConfidenceInterval
    difference_ci: ConfidenceInterval
    confidence_level: float
    statistic: str
    design: str
    n: int

    @property
    def auc_a(self) -> float:
        """Alias of :attr:`estimate_a`."""
        return self.estimate_a

    @property
    def auc_b(self) -> float:
        """Alias of :attr:`estimate_b`."""
        return self.estimate_b


def delong_test(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    sample_weight: Any = None,
    confidence_level: float = 0.95,
    names: tuple[str, str] = ("a", "b"),
) -> DeLongTestResult:
    """DeLong's test of two correlated AUCs (or Harrell's C) on the same rows, in O(n log n).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary outcome (any two values, the larger being the event), or a response with more
        values (Harrell's C).
    pred_a, pred_b : array-like of shape (n,)
        The two models' scores for the same rows.
    sample_weight : array-like of shape (n,), optional
        Non-negative sampling weights (see :func:`delong_interval`).
    confidence_level : float, default 0.95
    names : tuple of two str, default ("a", "b")
        The models' names in the result.

    Returns
    -------
    DeLongTestResult

    Raises
    ------
    ValueError
        Inputs of different lengths, non-finite values, negative weights, a
        ``confidence_level`` outside (0, 1) or ``names`` not two strings.

    Notes
    -----
    ``z = (A_a - A_b) / sqrt(Var_a + Var_b - 2 Cov_ab)`` with DeLong's (co)variances
    ``Cov_ab = S10_ab / m + S01_ab / n`` (``S10_ab`` the sample covariance of the two models'
    event components, ``S01_ab`` of the non-event components), and ``p = 2 Phi(-|z|)``: the
    statistic and p-value of pROC's ``roc.test(roc1, roc2, method = "delong", paired = TRUE)``
    (Robin et al. 2011), for the orientation "higher score, more likely an event". Identical
    scores give ``z = 0`` and ``p = 1``. For a response with more than two values the same with
    Harrell's C and the one-sample components (see :func:`delong_interval`).

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    *Biometrics* 44(3), 837-845.

    Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves. *IEEE Signal Processing Letters*
    21(11), 1389-1393.

    Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze and compare
    ROC curves. *BMC Bioinformatics* 12, 77.

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> res = delong_test(y, [1, 2, 3, 4, 2, 5, 1, 2], [2, 1, 1, 3, 3, 2, 2, 4])
    >>> round(res.difference, 4), round(res.p_value, 4)
    (0.3125, 0.2386)
    """
    if (
        not isinstance(names, tuple | list)
        or len(names) != 2
        or not all(isinstance(s, str) for s in names)
    ):
        raise ValueError(f"names must be two strings; got {names!r}")
    y, a = check_pair(y_true, pred_a, names=("y_true", "pred_a"))
    _, b = check_pair(y, pred_b, names=("y_true", "pred_b"))
    w = check_sample_weight(sample_weight, y.shape[0])
    level = check_probability(confidence_level, "confidence_level")
    part_a, part_b = _kd.components_many(y, np.stack([a, b]), w)
    _warn_if_undefined([part_a], stacklevel=3)
    var_a = _kd.covariance(part_a, part_a)
    var_b = _kd.covariance(part_b, part_b)
    cov = _kd.covariance(part_a, part_b)
    se_a, se_b = _sqrt(var_a), _sqrt(var_b)
    diff = part_a.estimate - part_b.estimate
    se_diff = _sqrt(var_a + var_b - 2.0 * cov)
    z = _z(diff, se_diff)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = cov / (se_a * se_b) if se_a > 0 and se_b > 0 else math.nan
    statistic, design = _statistic(part_a)
    return DeLongTestResult(
        models=(str(names[0]), str(names[1])),
        estimate_a=part_a.estimate,
        estimate_b=part_b.estimate,
        std_error_a=se_a,
        std_error_b=se_b,
        correlation=float(corr),
        difference=diff,
        difference_std_error=se_diff,
        z=z,
        p_value=float(2.0 * ndtr(-abs(z))) if math.isfinite(z) else math.nan,
        ci_a=_wald(part_a.estimate, se_a, level, 0.0, 1.0),
        ci_b=_wald(part_b.estimate, se_b, level, 0.0, 1.0),
        difference_ci=_wald(diff, se_diff, level, -1.0, 1.0),
        confidence_level=level,
        statistic=statistic,
        design=design,
        n=int(y.shape[0] if w is None else np.count_nonzero(w)),
    )


def _z(diff: float, se: float) -> float:
    if not (math.isfinite(diff) and math.isfinite(se)):
        return math.nan
    if se == 0.0:
        return 0.0 if diff == 0.0 else math.copysign(math.inf, diff)
    return diff / se


# --------------------------------------------------------------------------------------------
# the analytic path of compare_models
# --------------------------------------------------------------------------------------------


def comparison_arrays(
    specs: Sequence[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sample_weight: np.ndarray | None,
    values: np.ndarray,
    pair_index: Sequence[tuple[int, int]],
    level: float,
) -> dict[str, np.ndarray]:
    """The analytic fields of a comparison for measures that declare a :class:`ConcordanceForm`.

    Reads ``spec.capabilities.delong`` only (never a measure's name); a measure without it is
    refused with a ``ValueError`` naming it. Returns ``std_error, ci_lower, ci_upper,
    difference_sd, z, p_value, p_value_one_sided, difference_ci_lower, difference_ci_upper``
    indexed like :class:`ranklens.compare.ComparisonResult`'s fields.
    """
    forms: list[ConcordanceForm] = []
    missing = []
    for spec in specs:
        form = spec.capabilities.delong
        if form is None:
            missing.append(spec.name)
        else:
            forms.append(form)
    if missing:
        raise ValueError(
            f"method='delong' needs measures with a DeLong variance (the AUC, Harrell's C, "
            f"Somers' D); {missing} have none: use method='bootstrap' for them"
        )
    n_metrics, n_models = values.shape
    n_pairs = len(pair_index)
    out = {
        name: np.full((n_metrics, n_models), math.nan)
        for name in ("std_error", "ci_lower", "ci_upper")
    }
    out.update(
        {
            name: np.full((n_metrics, n_pairs), math.nan)
            for name in ("difference_sd", "z", "difference_ci_lower", "difference_ci_upper")
        }
    )
    for k, (spec, form) in enumerate(zip(specs, forms, strict=True)):
        parts = []
        for m in range(n_models):
            response, score, weight = form.prepare(y, preds[m], sample_weight)
            part = _kd.components(response, score, weight)
            value = form.intercept + form.slope * part.estimate
            if not np.isclose(value, values[k, m], rtol=1e-9, atol=1e-12, equal_nan=True):
                raise ValueError(
                    f"metric {spec.name!r}: its declared concordance form gives {value!r}, the "
                    f"measure {values[k, m]!r}; method='delong' cannot be used for it"
                )
            parts.append(part)
        low, high = form.intercept, form.intercept + form.slope
        scale = form.slope
        for m, part in enumerate(parts):
            se = scale * _sqrt(_kd.covariance(part, part))
            ci = _wald(values[k, m], se, level, low, high)
            out["std_error"][k, m] = se
            out["ci_lower"][k, m], out["ci_upper"][k, m] = ci
        for p, (a, b) in enumerate(pair_index):
            var = (
                _kd.covariance(parts[a], parts[a])
                + _kd.covariance(parts[b], parts[b])
                - 2.0 * _kd.covariance(parts[a], parts[b])
            )
            se = scale * _sqrt(var)
            diff = values[k, a] - values[k, b]
            ci = _wald(diff, se, level, -scale, scale)
            out["difference_sd"][k, p] = se
            out["z"][k, p] = _z(diff, se)
            out["difference_ci_lower"][k, p], out["difference_ci_upper"][k, p] = ci
    with np.errstate(invalid="ignore"):
        out["p_value"] = 2.0 * ndtr_array(-np.abs(out["z"]))
        out["p_value_one_sided"] = ndtr_array(-np.abs(out["z"]))
    return out
