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
:mod:`ranklens._compute.kernels.delong`). Case weights enter as sampling weights: the variance is
the linearisation of the weighted statistic, rows being the independent units, and equal weights
give the unweighted numbers exactly.

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

from ranklens._compute.xp import delong as _kd
from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.interval_formulas import concordance_logit_interval, few_class_rows_note
from ranklens._foundation.normal import ndtr, ndtr_array, ndtri
from ranklens._foundation.registry import ConcordanceForm, MetricSpec
from ranklens._foundation.results import ConfidenceInterval, Result
from ranklens._foundation.validation import check_pair, check_probability, check_sample_weight
from ranklens.exceptions import warn_undefined

__all__ = [
    "DeLongIntervalResult",
    "DeLongTestResult",
    "concordance_interval",
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


#: The interval methods of one model's value: ``"logit"`` (the default, chosen by the Monte Carlo
#: study of ``benchmarks/coverage_study.py``) and ``"wald"`` (pROC's ``ci.auc(method = "delong")``).
INTERVAL_METHODS = ("logit", "wald")


def _check_method(method: str) -> str:
    if method not in INTERVAL_METHODS:
        raise ValueError(f"method must be one of {INTERVAL_METHODS}; got {method!r}")
    return method


def concordance_interval(
    estimate: float,
    class_variances: Sequence[float] | np.ndarray,
    class_rows: Sequence[float] | np.ndarray,
    level: float,
    *,
    method: str = "logit",
) -> tuple[ConfidenceInterval, float]:
    """The interval of a concordance probability from DeLong's variance, part by class.

    What :func:`delong_interval` computes, for an engine that has DeLong's variance in parts
    (the Dask engine's sums): with two classes (the AUC's events and non-events) the logit
    interval with Student's t and the Welch-Satterthwaite degrees of freedom of the two parts,
    with one (Harrell's C) the logit interval with the normal quantile; at an estimate of 0 or
    1 the score-type interval under the variance bound
    (:func:`ranklens._foundation.interval_formulas. logit_interval`). ``method="wald"`` gives the
    Wald interval clipped to [0, 1].

    Parameters
    ----------
    estimate : float
        The concordance probability.
    class_variances : sequence of float
        DeLong's variance of the estimate, part by class (one part for the one-sample design).
    class_rows : sequence of float
        The rows of positive weight of each class.
    level : float
    method : {"logit", "wald"}, default "logit"

    Returns
    -------
    tuple
        ``(interval, df)``: the interval and the degrees of freedom of its t quantile (inf: the
        normal quantile).

    Raises
    ------
    ValueError
        If ``method`` is unknown.

    References
    ----------
    Pohar Perme, M. and Manevski, D. (2019). Confidence intervals for the Mann-Whitney test.
    *Statistical Methods in Medical Research* 28(12), 3755-3768.

    Brunner, E. and Munzel, U. (2000). The nonparametric Behrens-Fisher problem: asymptotic
    theory and a small-sample approximation. *Biometrical Journal* 42(1), 17-25.
    """
    _check_method(method)
    variance = float(np.sum(class_variances))
    se = _sqrt(variance)
    if method == "wald":
        return _wald(estimate, se, level, 0.0, 1.0), math.inf
    low, high, df = concordance_logit_interval(estimate, class_variances, class_rows, level)
    return ConfidenceInterval(low, high), df


def _interval(
    part: _kd.ConcordanceComponents, se: float, level: float, method: str
) -> tuple[ConfidenceInterval, float]:
    """One concordance's interval by ``method`` and the degrees of freedom it used (``se``:
    DeLong's standard error, the square root of the parts' sum)."""
    if method == "wald" or not part.denominator > 0:
        return _wald(part.estimate, se, level, 0.0, 1.0), math.inf
    parts, rows = _kd.class_parts(part)
    if not part.binary:
        parts, rows = np.array([se * se]), np.array([float(np.nansum(rows))])
    return concordance_interval(part.estimate, parts, rows, level, method=method)


def _few_rows(part: _kd.ConcordanceComponents) -> str:
    """The note of a difference made with fewer than ``MIN_CLASS_ROWS`` rows in a class."""
    if not part.binary:
        return ""
    rows = _kd.class_rows(part)
    smallest = float(np.nanmin(rows)) if np.isfinite(rows).any() else math.nan
    return few_class_rows_note(smallest)


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
        The interval at ``confidence_level`` by ``method`` (see :func:`delong_interval`).
    confidence_level : float
    statistic : str
        ``"auc"`` or ``"harrell_c"``.
    design : str
        The variance estimator: DeLong's two-sample form (binary ``y_true``) or the one-sample
        form (Sen 1960).
    n : int
        Rows with positive weight.
    method : str
        ``"logit"`` or ``"wald"``: how ``ci`` was made.
    df : float
        Degrees of freedom of its t quantile (inf: the normal quantile).
    """

    estimate: float
    std_error: float
    ci: ConfidenceInterval
    confidence_level: float
    statistic: str
    design: str
    n: int
    method: str = "logit"
    df: float = math.inf

    @property
    def auc(self) -> float:
        """Alias of :attr:`estimate` (Harrell's C for a response with more than two values)."""
        return self.estimate


@shared_paragraphs
def delong_interval(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    confidence_level: float = 0.95,
    method: str = "logit",
) -> DeLongIntervalResult:
    """AUC (or Harrell's C) with DeLong's standard error and a range-respecting interval.

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
    method : {"logit", "wald"}, default "logit"
        ``"logit"``: the interval on the logit scale with Student's t (see Notes); ``"wald"``:
        ``estimate -+ z std_error`` clipped to [0, 1], pROC's ``ci.auc(method = "delong")``.

    Returns
    -------
    DeLongIntervalResult
        ``estimate``, ``std_error`` and ``ci``; NaN (with an ``UndefinedMetricWarning``) when
        ``y_true`` is constant or, for a binary ``y_true``, a class has a single row.

    Raises
    ------
    ValueError
        Inputs of different lengths, non-finite values, negative weights, a
        ``confidence_level`` outside (0, 1) or an unknown ``method``.

    Notes
    -----
    For events ``X_1..X_m`` and non-events ``Y_1..Y_n`` with components
    ``V10(X_i) = (1/n) sum_j psi(X_i, Y_j)`` and ``V01(Y_j) = (1/m) sum_i psi(X_i, Y_j)``
    (``psi`` 1, 1/2 or 0 as ``X`` is above, tied with or below ``Y``), DeLong et al. (1988)
    estimate ``Var(AUC) = S10 / m + S01 / n`` with ``S10``, ``S01`` the sample variances of the
    components. The components are midranks (Sun & Xu 2014): one sort, O(n log n).

    The default interval is ``expit(logit(AUC) -+ t sqrt(Var) / (AUC (1 - AUC)))`` (Pohar Perme &
    Manevski 2019: DeLong's variance on the logit scale), with ``t`` the quantile of Student's t
    with the Welch-Satterthwaite degrees of freedom ``(S10/m + S01/n)^2 / ((S10/m)^2 / (m - 1) +
    (S01/n)^2 / (n - 1))`` (the small-sample approximation of Brunner & Munzel 2000) for the
    two-sample design and the normal quantile for the one-sample one. It stays within [0, 1]; at
    10 % events it covered 94-97 % where the Wald interval covered 74-86 % (n = 30, 100;
    ``docs/coverage.md``). At ``AUC`` 0 or 1, where the logit is infinite, it is the score-type
    interval under the variance bound ``AUC (1 - AUC) (m + n - 1) / (m n)`` (Bamber 1975; ``2 /
    N`` for the one-sample design, Hoeffding 1948). ``method="wald"`` gives ``AUC -+
    z_{(1+level)/2} sqrt(Var)``, clipped to [0, 1], as pROC's ``ci.auc(..., method =
    "delong")``.

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
    %(delong1988)s

    %(sun2014)s

    Sen, P. K. (1960). On some convergence properties of U-statistics. *Calcutta Statistical
    Association Bulletin* 10(1), 1-18.

    Pohar Perme, M. and Manevski, D. (2019). Confidence intervals for the Mann-Whitney test.
    *Statistical Methods in Medical Research* 28(12), 3755-3768.

    Brunner, E. and Munzel, U. (2000). The nonparametric Behrens-Fisher problem: asymptotic
    theory and a small-sample approximation. *Biometrical Journal* 42(1), 17-25.

    Bamber, D. (1975). The area above the ordinal dominance graph and the area below the
    receiver operating characteristic graph. *Journal of Mathematical Psychology* 12(4),
    387-415.

    Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution. *The
    Annals of Mathematical Statistics* 19(3), 293-325.

    Examples
    --------
    >>> res = delong_interval([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> round(res.estimate, 4), round(res.std_error, 4)
    (0.8889, 0.1571)
    """
    y, score = check_pair(y_true, y_score, names=("y_true", "y_score"))
    w = check_sample_weight(sample_weight, y.shape[0])
    level = check_probability(confidence_level, "confidence_level")
    _check_method(method)
    part = _kd.components(y, score, w)
    _warn_if_undefined([part], stacklevel=3)
    se = _sqrt(_kd.covariance(part, part))
    statistic, design = _statistic(part)
    ci, df = _interval(part, se, level, method)
    return DeLongIntervalResult(
        estimate=part.estimate,
        std_error=se,
        ci=ci,
        confidence_level=level,
        statistic=statistic,
        design=design,
        n=int(y.shape[0] if w is None else np.count_nonzero(w)),
        method=method,
        df=df,
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
        Correlation of the two estimates (from DeLong's covariance); NaN, with a warning, when
        a standard error is 0.
    difference : float
        ``estimate_a - estimate_b``.
    difference_std_error : float
        ``sqrt(Var_a + Var_b - 2 Cov_ab)``.
    z : float
        ``difference / difference_std_error`` (0 for identical scores; NaN, with an
        ``UndefinedMetricWarning``, when the estimates differ but the difference has variance 0).
    p_value : float
        Two-sided, ``2 Phi(-|z|)``.
    ci_a, ci_b : ConfidenceInterval
        Each estimate's interval by ``method`` (:func:`delong_interval`).
    difference_ci : ConfidenceInterval
        Wald interval of the difference, clipped to [-1, 1].
    confidence_level : float
    statistic : str
        ``"auc"`` or ``"harrell_c"``.
    design : str
        The variance estimator (two-sample DeLong or one-sample Sen).
    n : int
        Rows with positive weight.
    method : str
        ``"logit"`` or ``"wald"``: how ``ci_a`` and ``ci_b`` were made.
    difference_approximate : bool
        The difference's interval and test are approximate: a binary ``y_true`` with fewer
        than :data:`ranklens._foundation.interval_formulas.MIN_CLASS_ROWS` rows in a class
        (``approximate_reason``).
    approximate_reason : str
        Why (empty when not approximate).
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
    method: str = "logit"
    difference_approximate: bool = False
    approximate_reason: str = ""

    @property
    def auc_a(self) -> float:
        """Alias of :attr:`estimate_a`."""
        return self.estimate_a

    @property
    def auc_b(self) -> float:
        """Alias of :attr:`estimate_b`."""
        return self.estimate_b


@shared_paragraphs
def delong_test(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    sample_weight: Any = None,
    confidence_level: float = 0.95,
    names: tuple[str, str] = ("a", "b"),
    method: str = "logit",
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
    method : {"logit", "wald"}, default "logit"
        The interval of each model's estimate (:func:`delong_interval`); the difference's is
        the Wald interval with either, and the test pROC's.

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
    scores give ``z = 0`` and ``p = 1``. A constant score has AUC 1/2 and DeLong variance 0, as
    has a score that separates the classes perfectly (AUC 0 or 1); the test of two such scores
    with different AUCs has a difference of variance 0, where pROC reports ``z = -+Inf`` and
    ``p = 0``: here ``z`` and ``p`` are NaN with an ``UndefinedMetricWarning`` (no sampling
    variation is estimated, so no p-value is). ``correlation`` is NaN, with a warning, when a
    model's standard error is 0. For a response with more than two values the same with
    Harrell's C and the one-sample components (see :func:`delong_interval`).

    References
    ----------
    %(delong1988)s

    %(sun2014)s

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
    _check_method(method)
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
    _warn_if_degenerate(
        (str(names[0]), str(names[1])), (se_a, se_b), (part_a.estimate, part_b.estimate), se_diff
    )
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
        ci_a=_interval(part_a, se_a, level, method)[0],
        ci_b=_interval(part_b, se_b, level, method)[0],
        difference_ci=_wald(diff, se_diff, level, -1.0, 1.0),
        confidence_level=level,
        statistic=statistic,
        design=design,
        n=int(y.shape[0] if w is None else np.count_nonzero(w)),
        method=method,
        difference_approximate=bool(_few_rows(part_a)),
        approximate_reason=_few_rows(part_a),
    )


def _z(diff: float, se: float) -> float:
    """``diff / se``; 0 for no difference with no variance (pROC's special case), NaN for a
    difference whose estimated variance is 0 (no finite statistic: the caller warns)."""
    if not (math.isfinite(diff) and math.isfinite(se)):
        return math.nan
    if se == 0.0:
        return 0.0 if diff == 0.0 else math.nan
    return diff / se


def _zero_variance_reason(models: str) -> str:
    return (
        f"DeLong's variance of the difference between {models} is 0 while the estimates "
        "differ: each model's score is constant or separates the classes perfectly (no "
        "structural component varies), so z and the p-value are NaN; use a bootstrap or more "
        "data"
    )


def _warn_if_degenerate(
    names: tuple[str, str], ses: tuple[float, float], estimates: tuple[float, float], se: float
) -> None:
    """Warn for :func:`delong_test`'s fields that are NaN with both estimates defined: the
    correlation when a model's standard error is 0, z and p when the difference's is."""
    if not all(math.isfinite(v) for v in (*estimates, *ses)):
        return  # the components' own warning (constant y_true, a class of one row) has run
    constant = [name for name, value in zip(names, ses, strict=True) if value == 0.0]
    if constant:
        warn_undefined(
            f"the correlation of the two estimates is NaN: DeLong's standard error of "
            f"{' and '.join(map(repr, constant))} is 0 (a constant score, or one that separates "
            "the classes perfectly, has no varying structural component)",
            stacklevel=4,
        )
    if se == 0.0 and estimates[0] != estimates[1]:
        warn_undefined(_zero_variance_reason(f"{names[0]!r} and {names[1]!r}"), stacklevel=4)


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
    interval: str = "logit",
) -> dict[str, Any]:
    """The analytic fields of a comparison for measures that declare a concordance form.

    Reads ``spec.capabilities.delong`` only (never a measure's name); a measure without it is
    refused with a ``ValueError`` naming it. Returns ``std_error, ci_lower, ci_upper,
    difference_sd, z, p_value, p_value_one_sided, difference_ci_lower, difference_ci_upper``
    indexed like :class:`ranklens.compare.ComparisonResult`'s fields, with
    ``interval_methods``, ``difference_interval_methods``, ``approximate``,
    ``difference_approximate`` and ``interval_notes``. Each model's interval is the concordance
    probability's by ``interval`` (:func:`delong_interval`: ``"logit"`` or ``"wald"``) mapped by
    the measure's affine form (Somers' D = 2C - 1: the logit interval of C is the ``arctanh``
    interval of D, Edwardes 1995, Newson 2006); a difference's is the Wald interval, flagged
    approximate with fewer than :data:`ranklens._foundation.interval_formulas.MIN_CLASS_ROWS` rows
    in a class.
    """
    _check_method(interval)
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
    out: dict[str, Any] = {
        name: np.full((n_metrics, n_models), math.nan)
        for name in ("std_error", "ci_lower", "ci_upper")
    }
    out.update(
        {
            name: np.full((n_metrics, n_pairs), math.nan)
            for name in ("difference_sd", "z", "difference_ci_lower", "difference_ci_upper")
        }
    )
    out["approximate"] = np.zeros((n_metrics, n_models), dtype=bool)
    out["difference_approximate"] = np.zeros((n_metrics, n_pairs), dtype=bool)
    notes = [""] * n_metrics
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
        scale = form.slope
        for m, part in enumerate(parts):
            se = _sqrt(_kd.covariance(part, part))
            ci, _ = _interval(part, se, level, interval)
            ends = sorted((form.intercept + scale * ci.low, form.intercept + scale * ci.high))
            out["std_error"][k, m] = abs(scale) * se
            out["ci_lower"][k, m], out["ci_upper"][k, m] = ends
        notes[k] = _few_rows(parts[0]) if parts else ""
        out["difference_approximate"][k] = bool(notes[k])
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
            if se == 0.0 and diff != 0.0:
                names = f"the models at positions {a} and {b} on {spec.name!r}"
                warn_undefined(_zero_variance_reason(names), stacklevel=4)
            out["difference_ci_lower"][k, p], out["difference_ci_upper"][k, p] = ci
    with np.errstate(invalid="ignore"):
        out["p_value"] = 2.0 * ndtr_array(-np.abs(out["z"]))
        out["p_value_one_sided"] = ndtr_array(-np.abs(out["z"]))
    name = "delong" if interval == "wald" else f"delong-{interval}"
    out["interval_methods"] = (name,) * n_metrics
    out["difference_interval_methods"] = ("delong",) * n_metrics
    out["interval_notes"] = tuple(notes)
    return out
