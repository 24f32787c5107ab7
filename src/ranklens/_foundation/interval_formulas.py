"""Interval methods chosen by simulation beside the percentile, BCa and Wald intervals.

The defaults of :func:`ranklens.compare_models`, :mod:`ranklens.delong` and
:func:`ranklens.ranking_summary` were checked by the Monte Carlo study of
``benchmarks/coverage_study.py`` (``docs/coverage.md``): normal, long-tailed (lognormal),
heavily tied and binary (10 % events) data at n = 30, 100 and 1000. This module holds the
methods that study chose where the standard ones fail, and the rules that flag an interval
``approximate`` or leave it out:

* :func:`logit_interval`: an interval of a concordance probability (AUC, Harrell's C; Somers'
  D = 2C - 1) on the logit scale, with Student's t and the Welch-Satterthwaite degrees of freedom
  of :func:`satterthwaite_df` for the two-sample (binary) design, range-respecting; at the
  boundary (an estimate of 0 or 1, or a variance of 0) the score-type interval under a variance
  bound (:func:`bound_interval`);
* :func:`fisher_z_tau_interval`: Kendall's tau on Fisher's z scale, and
  :func:`tau_confidence_interval`, the interval of ``ranking_summary`` and the Dask engine;
* :class:`RatioStudentizer`: per-replicate standard errors of a mean loss (a
  :class:`~ranklens._foundation.forms.RatioForm`) and of paired differences, for the symmetric
  bootstrap-t interval (:func:`symmetric_t_interval`);
* :func:`symmetric_p_value` and :func:`studentized_p_value`: the paired bootstrap's two-sided
  tests, dual to the symmetric intervals :func:`symmetric_interval_at` and
  :func:`studentized_interval_at` at any level (the report's Holm-adjusted levels too);
* :func:`tail_weight`: the quantile tail weight of per-row contributions that flags an interval
  of a mean approximate (:data:`TAIL_WEIGHT_LIMIT`);
* :func:`skewed_target_note`: Cochran's rule (with Sugden, Smith & Jones's offset), which flags
  an interval of a mean loss approximate while the sample is small for the skewness of its
  target (:data:`COCHRAN_OFFSET`, :data:`COCHRAN_FACTOR`), from the
  target's :class:`TargetMoments` (mergeable over the partitions of a Dask frame);
* :func:`mean_loss_flags`: both engines' flags of a mean loss's intervals, from the tail weights
  and the target's note;
* :data:`MIN_CLASS_ROWS`: below it, a bootstrap interval for a binary response is not given.

References
----------
Pohar Perme, M. and Manevski, D. (2019). Confidence intervals for the Mann-Whitney test.
*Statistical Methods in Medical Research* 28(12), 3755-3768. doi:10.1177/0962280218814556

Brunner, E. and Munzel, U. (2000). The nonparametric Behrens-Fisher problem: asymptotic theory
and a small-sample approximation. *Biometrical Journal* 42(1), 17-25.

Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance components.
*Biometrics Bulletin* 2(6), 110-114.

Fieller, E. C., Hartley, H. O. and Pearson, E. S. (1957). Tests for rank correlation
coefficients. I. *Biometrika* 44(3/4), 470-481.

Bonett, D. G. and Wright, T. A. (2000). Sample size requirements for estimating Pearson,
Kendall and Spearman correlations. *Psychometrika* 65(1), 23-28.

Newson, R. (2006). Confidence intervals for rank statistics: Somers' D and extensions. *The Stata
Journal* 6(3), 309-334.

Hall, P. (1988). Theoretical comparison of bootstrap confidence intervals. *The Annals of
Statistics* 16(3), 927-953.

Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer (Sect. 3.6, symmetric
bootstrap-t intervals).

Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
*Biometrics* 47(2), 757-762.

Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
Cambridge University Press (Sect. 4.4.1, the Monte Carlo p-value ``(1 + r) / (R + 1)``).

Cochran, W. G. (1977). *Sampling Techniques*, 3rd ed. Wiley (Sect. 2.15, the sample size at
which the mean of a skewed population is near normal, ``n > 25 G1^2``).

Pebay, P. P. (2008). Formulas for robust, one-pass parallel computation of covariances and
arbitrary-order statistical moments. Sandia Report SAND2008-6212.

Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979). Updating formulae and a pairwise algorithm
for computing sample variances. Technical report STAN-CS-79-773, Stanford University.

Sugden, R. A., Smith, T. M. F. and Jones, R. P. (2000). Cochran's rule for simple random
sampling. *Journal of the Royal Statistical Society B* 62(4), 787-793.

Bamber, D. (1975). The area above the ordinal dominance graph and the area below the receiver
operating characteristic graph. *Journal of Mathematical Psychology* 12(4), 387-415.

Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution. *The Annals
of Mathematical Statistics* 19(3), 293-325.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ranklens._foundation.normal import ndtri
from ranklens._foundation.results import ConfidenceInterval

__all__ = [
    "COCHRAN_FACTOR",
    "COCHRAN_OFFSET",
    "DOMINANT_SHARE_LIMIT",
    "FHP_VARIANCE",
    "MIN_CLASS_ROWS",
    "TAIL_WEIGHT_LIMIT",
    "TAU_INTERVAL_METHODS",
    "RatioStudentizer",
    "TargetMoments",
    "bound_interval",
    "class_rows",
    "concordance_logit_interval",
    "critical_value",
    "dominant_share",
    "few_class_rows_note",
    "fisher_z_tau_interval",
    "logit_interval",
    "mean_loss_flags",
    "satterthwaite_df",
    "skewed_target_note",
    "smallest_class",
    "studentized_interval_at",
    "studentized_p_value",
    "symmetric_interval_at",
    "symmetric_p_value",
    "symmetric_t_interval",
    "tail_weight",
    "tail_weight_reason",
    "tau_confidence_interval",
]

#: Fewest rows in each class of a binary response for which a bootstrap interval is given: with
#: fewer (3 events at n = 30 with 10 % events), the paired bootstrap's intervals of rank measures
#: covered 75-84 % and its "excludes 0" rejected a true null 12-17 % of the time
#: (``docs/coverage.md``).
MIN_CLASS_ROWS = 10


def few_class_rows_note(smallest: float) -> str:
    """The note of DeLong's interval and test of a difference made with ``smallest`` rows in the
    smaller class of a binary response: empty from :data:`MIN_CLASS_ROWS` rows (or NaN) on."""
    if not (math.isfinite(smallest) and smallest < MIN_CLASS_ROWS):
        return ""
    return (
        f"approximate: {round(smallest)} row(s) in the smaller class of the response, fewer "
        f"than {MIN_CLASS_ROWS}; DeLong's interval of a difference covered about 88 % (3 events) "
        "there, not 95 % (docs/coverage.md)"
    )


#: The tail weight (:func:`tail_weight`) of the per-row contributions above which an interval
#: of a mean loss is flagged approximate. Squared errors of normal errors have a tail weight of
#: about 5 (at most 6 in 95 % of samples of n >= 100), those of a lognormal target 20-30, where
#: no bootstrap interval of the RMSE covered more than 87 % (``docs/coverage.md``).
TAIL_WEIGHT_LIMIT = 10.0

#: Cochran's (1977) rule as refined by Sugden, Smith & Jones (2000): the mean of a population of
#: skewness ``G1`` is near normal from ``n > COCHRAN_OFFSET + COCHRAN_FACTOR * G1^2`` rows on (their
#: Edgeworth-expansion derivation adds the offset of 28 rows to Cochran's ``25 G1^2``). Applied to
#: the target's sample skewness, it flags the intervals of a mean loss approximate where the tail
#: weight of the losses cannot: a small sample of a long-tailed target has often not drawn the
#: tail, its losses look light, and no bootstrap sees what the sample lacks. On a lognormal target
#: the bootstrap-t of the MAE covered 88 % at n = 30 and 91.5 % at n = 100 (``docs/coverage.md``);
#: Cochran's ``25 G1^2`` alone left 5 % of those samples of 30 rows unflagged (their skewness below
#: 1.1), and those covered about 62 %. With the offset, a sample of 30 rows is flagged from a
#: skewness of 0.28 on: every lognormal one, and about half of a normal target's, whose small
#: samples' intervals are then called approximate although they cover (a known cost of a rule
#: that cannot tell a tail not yet drawn from no tail).
COCHRAN_FACTOR = 25.0

#: The offset of Sugden, Smith & Jones (2000) in Cochran's rule (:data:`COCHRAN_FACTOR`).
COCHRAN_OFFSET = 28.0


#: The largest share of the spread of the per-row contributions one row may carry before an
#: interval of a mean is flagged approximate (:func:`dominant_share`): a mean resting on one row
#: has no sampling distribution a bootstrap can see (the bootstrap-t's replicates that leave the
#: row out have almost no spread, and its interval explodes). The largest of 30 squared normal
#: errors carries more than 0.62 in one sample in ten.
DOMINANT_SHARE_LIMIT = 0.75

#: Fieller, Hartley & Pearson's (1957) variance of Fisher's z of Kendall's tau, ``0.437 / (n -
#: 4)`` (bivariate normal; Bonett & Wright 2000).
FHP_VARIANCE = 0.437

#: Fewest rows for Kendall's tau's Fisher-z interval (the variance ``0.437 / (n - 4)``); below
#: :data:`_TAU_SMALL_N` it is flagged approximate.
_TAU_MIN_N = 5
_TAU_SMALL_N = 10


# --------------------------------------------------------------------------------------------
# quantiles and degrees of freedom


def critical_value(level: float, df: float = math.inf) -> float:
    """The two-sided critical value: ``Phi^-1((1 + level) / 2)``, or Student's t with ``df``.

    Parameters
    ----------
    level : float in (0, 1)
    df : float, default inf
        Degrees of freedom (any positive real); infinite gives the normal quantile.

    Returns
    -------
    float
    """
    p = 0.5 + level / 2.0
    if not math.isfinite(df):
        return float(ndtri(p))
    if not df > 0:
        return math.nan
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def satterthwaite_df(
    parts: Sequence[float] | np.ndarray, counts: Sequence[float] | np.ndarray
) -> float:
    """Welch-Satterthwaite degrees of freedom of a variance that is a sum of per-stratum parts.

    ``df = (sum_g v_g)^2 / sum_g v_g^2 / (n_g - 1)`` (Satterthwaite 1946), the small-sample
    approximation Brunner & Munzel (2000) use for the rank statistic whose variance is DeLong's
    (``v_g`` the part of the events and of the non-events).

    Parameters
    ----------
    parts : sequence of float
        The variance's part from each stratum.
    counts : sequence of float
        The rows of each stratum.

    Returns
    -------
    float
        ``inf`` for one stratum, a variance of 0 or undefined parts (then the normal quantile).
    """
    v = np.asarray(parts, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    total = float(v.sum())
    if v.size < 2 or not (math.isfinite(total) and total > 0) or np.any(c < 2):
        return math.inf
    denominator = float(np.sum(v * v / (c - 1.0)))
    return total * total / denominator if denominator > 0 else math.inf


# --------------------------------------------------------------------------------------------
# a concordance probability


def bound_interval(estimate: float, factor: float, q: float) -> tuple[float, float]:
    """Score-type interval of a probability under the variance bound ``theta (1 - theta) k``.

    The set of ``theta`` with ``(estimate - theta)^2 <= q^2 k theta (1 - theta)``, a Wilson-type
    interval: ``(2 e + c -+ sqrt(c^2 + 4 c e (1 - e))) / (2 (1 + c))`` with ``c = q^2 k``. A
    concordance probability of ``m`` events and ``n`` non-events has variance at most
    ``theta (1 - theta) (m + n - 1) / (m n)`` (Bamber's 1975 expression with both
    ``Q - theta^2 <= theta (1 - theta)``); a one-sample U-statistic of degree 2 on ``N`` rows
    with a kernel in [0, 1] at most ``2 theta (1 - theta) / N`` (Hoeffding 1948, ``2 zeta_1 <=
    zeta_2``). Used where the logit interval is not defined (an estimate of 0 or 1).

    Parameters
    ----------
    estimate : float in [0, 1]
    factor : float
        ``k``.
    q : float
        The critical value.

    Returns
    -------
    tuple of float
        ``(low, high)`` within [0, 1].
    """
    c = q * q * factor
    if not (math.isfinite(c) and math.isfinite(estimate)):
        return math.nan, math.nan
    root = math.sqrt(c * c + 4.0 * c * estimate * (1.0 - estimate))
    low = (2.0 * estimate + c - root) / (2.0 * (1.0 + c))
    high = (2.0 * estimate + c + root) / (2.0 * (1.0 + c))
    return max(0.0, low), min(1.0, high)


def logit_interval(
    estimate: float, std_error: float, level: float, df: float, bound_factor: float
) -> tuple[float, float]:
    """Interval of a probability on the logit scale: ``expit(logit(p) -+ q se / (p (1 - p)))``.

    ``q`` is Student's t with ``df`` degrees of freedom (:func:`critical_value`). With DeLong's
    standard error this is the interval Pohar Perme & Manevski (2019) recommend for the AUC
    (Edwardes 1995 and Newson 2006 use the equivalent ``arctanh`` of Somers' D = 2 AUC - 1:
    ``arctanh(2p - 1) = logit(p) / 2``). Where the logit is not defined (``p`` 0 or 1) or the
    standard error is 0, the score-type interval of :func:`bound_interval`.

    Parameters
    ----------
    estimate, std_error, level, df : float
    bound_factor : float
        ``k`` of :func:`bound_interval`.

    Returns
    -------
    tuple of float
        ``(low, high)`` within [0, 1]; NaN when the estimate or the standard error is.
    """
    if not (math.isfinite(estimate) and math.isfinite(std_error)):
        return math.nan, math.nan
    q = critical_value(level, df)
    if 0.0 < estimate < 1.0 and std_error > 0.0:
        centre = math.log(estimate / (1.0 - estimate))
        half = q * std_error / (estimate * (1.0 - estimate))
        return _expit(centre - half), _expit(centre + half)
    return bound_interval(estimate, bound_factor, q)


def concordance_logit_interval(
    estimate: float,
    class_variances: Sequence[float] | np.ndarray,
    class_rows: Sequence[float] | np.ndarray,
    level: float,
) -> tuple[float, float, float]:
    """``(low, high, df)``: the logit interval of a concordance probability from DeLong's
    variance part by class (:func:`ranklens.delong.concordance_interval`).

    With two classes (the AUC's events and non-events) Student's t with the Welch-Satterthwaite
    degrees of freedom of the two parts and the variance bound of Bamber (1975), with one
    (Harrell's C over more than two values) the normal quantile and Hoeffding's (1948) bound
    ``2 / N`` (:func:`logit_interval`).
    """
    variance = float(np.sum(class_variances))
    se = math.sqrt(max(variance, 0.0)) if math.isfinite(variance) else math.nan
    rows = np.asarray(class_rows, dtype=np.float64)
    two = rows.size == 2
    df = satterthwaite_df(class_variances, rows) if two else math.inf
    if two:  # Bamber's (1975) expression with both Q - theta^2 <= theta (1 - theta)
        bound = (rows[0] + rows[1] - 1.0) / (rows[0] * rows[1])
    else:  # Hoeffding (1948): 2 zeta_1 <= zeta_2
        bound = 2.0 / float(rows.sum()) if rows.sum() > 0 else math.nan
    low, high = logit_interval(estimate, se, level, df, float(bound))
    return low, high, df


def _expit(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


# --------------------------------------------------------------------------------------------
# Kendall's tau


def fisher_z_tau_interval(
    tau: float, variance: float, n: int, level: float
) -> tuple[float, float, bool, str]:
    """Kendall's tau on Fisher's z scale: ``tanh(arctanh(tau) -+ q s)``.

    ``s`` is the larger of Fieller, Hartley & Pearson's (1957) ``sqrt(0.437 / (n - 4))`` (the
    bivariate-normal value Bonett & Wright 2000 recommend) and the delta-method standard error of
    the distribution-free (Noether, U-statistic) variance, ``sqrt(v) / (1 - tau^2)`` (Newson 2006
    transforms it so). The first keeps a noisy small-sample variance from making the interval too
    narrow (Noether's Wald interval covered 59-83 % at n <= 10 and 91 % at n = 30), the second
    covers tied and non-normal data, whose variance the first does not describe. With every pair
    concordant (``|tau| = 1``, ``arctanh`` infinite) the interval is made at ``tau`` less one
    pair's worth, ``(P - 1) / P`` of ``P = n (n - 1) / 2`` pairs, and reaches the estimate.

    Parameters
    ----------
    tau : float
    variance : float
        The unbiased U-statistic variance of tau (NaN: only the bivariate-normal value is used).
    n : int
        Rows.
    level : float

    Returns
    -------
    tuple
        ``(low, high, approximate, reason)``: NaN below 5 rows (the reason says so);
        ``approximate`` with fewer than 10 rows or ``|tau| = 1``.
    """
    if not math.isfinite(tau):
        return math.nan, math.nan, False, ""
    if n < _TAU_MIN_N:
        return math.nan, math.nan, False, f"Fisher's z interval of tau needs n >= 5 (got {n})"
    reasons = []
    t = tau
    if abs(tau) >= 1.0:
        pairs = n * (n - 1) / 2.0
        t = math.copysign((pairs - 1.0) / pairs, tau)
        reasons.append(
            "every pair is ordered alike (|tau| = 1): the interval is made at one pair less "
            "and reaches the estimate"
        )
    if n < _TAU_SMALL_N:
        reasons.append(
            f"only {n} rows: below 10, no interval of tau was found to hold its level for "
            "tied and binary data (docs/coverage.md)"
        )
    s = math.sqrt(FHP_VARIANCE / (n - 4.0))
    if math.isfinite(variance) and variance > 0:
        s = max(s, math.sqrt(variance) / (1.0 - t * t))
    q = critical_value(level)
    z = math.atanh(t)
    low, high = math.tanh(z - q * s), math.tanh(z + q * s)
    if tau >= 1.0:
        high = 1.0
    elif tau <= -1.0:
        low = -1.0
    return low, high, bool(reasons), "; ".join(reasons)


# --------------------------------------------------------------------------------------------
# the bootstrap


#: The interval methods of Kendall's tau (:func:`tau_confidence_interval`).
TAU_INTERVAL_METHODS = ("fisher-z", "noether")


def tau_confidence_interval(
    tau: float, variance: float, n: int, level: float, *, method: str = "fisher-z"
) -> tuple[ConfidenceInterval, bool, str]:
    """An interval of Kendall's tau from its unbiased (Noether) variance and the number of rows.

    Parameters
    ----------
    tau : float
        Kendall's tau-b.
    variance : float
        Its unbiased U-statistic variance (``tau_variance_unbiased``); NaN gives no interval.
    n : int
        Rows.
    level : float
        Confidence level in (0, 1).
    method : {"fisher-z", "noether"}, default "fisher-z"
        ``"fisher-z"``: ``tanh(arctanh(tau) -+ z s)`` with ``s`` the larger of
        ``sqrt(0.437 / (n - 4))`` (Fieller, Hartley & Pearson 1957; Bonett & Wright 2000) and
        ``sqrt(variance) / (1 - tau^2)`` (Newson 2006), from 5 rows
        (:func:`fisher_z_tau_interval`). ``"noether"``: the Wald interval
        ``tau -+ z sqrt(variance)`` clipped to [-1, 1] (Noether 1967), which covered 59-83 %
        at n <= 10 and 91 % at n = 30 (``docs/coverage.md``), where Fisher's z covered 93-100 %.

    Returns
    -------
    tuple
        ``(interval, approximate, reason)``: ``approximate`` when the interval is given but not
        known to hold its level (fewer than 10 rows, or ``|tau| = 1``), ``reason`` in words.

    Raises
    ------
    ValueError
        If ``method`` is unknown.

    References
    ----------
    Fieller, E. C., Hartley, H. O. and Pearson, E. S. (1957). Tests for rank correlation
    coefficients. I. *Biometrika* 44(3/4), 470-481.

    Bonett, D. G. and Wright, T. A. (2000). Sample size requirements for estimating Pearson,
    Kendall and Spearman correlations. *Psychometrika* 65(1), 23-28.

    Newson, R. (2006). Confidence intervals for rank statistics: Somers' D and extensions. *The
    Stata Journal* 6(3), 309-334.

    Noether, G. E. (1967). *Elements of Nonparametric Statistics*. New York: Wiley.

    Examples
    --------
    >>> ci, approximate, _ = tau_confidence_interval(0.5, 0.01, 30, 0.95)
    >>> round(ci.low, 3), round(ci.high, 3), approximate
    (0.28, 0.67, False)
    """
    if method not in TAU_INTERVAL_METHODS:
        raise ValueError(f"method must be one of {TAU_INTERVAL_METHODS}; got {method!r}")
    if method == "noether":
        return _wald_tau_interval(tau, variance, level), False, ""
    if not (math.isfinite(tau) and math.isfinite(variance)):
        return ConfidenceInterval.undefined(), False, ""
    low, high, approximate, reason = fisher_z_tau_interval(tau, variance, n, level)
    return ConfidenceInterval(low, high), approximate, reason


def _wald_tau_interval(estimate: float, variance: float, level: float) -> ConfidenceInterval:
    if not (np.isfinite(estimate) and np.isfinite(variance)):
        return ConfidenceInterval.undefined()
    half = ndtri(0.5 + level / 2) * math.sqrt(variance)
    return ConfidenceInterval(max(-1.0, estimate - half), min(1.0, estimate + half))


def smallest_class(response: np.ndarray, weight: np.ndarray | None = None) -> int | None:
    """Rows (of positive weight) in the smaller class of a two-valued response, else None."""
    rows = class_rows(response, weight)
    return None if rows is None else min(rows)


def class_rows(response: np.ndarray, weight: np.ndarray | None = None) -> tuple[int, int] | None:
    """Rows (of positive weight) at the smaller and at the larger value of a two-valued
    response (the non-events and the events), else None."""
    keep = response if weight is None else response[weight > 0]
    values, counts = np.unique(keep, return_counts=True)
    if values.size != 2:
        return None
    return int(counts[0]), int(counts[1])


def tail_weight(values: np.ndarray) -> float:
    """Quantile tail weight: ``q90 / q50`` of the nonzero ``|v - median(v)|``.

    A ratio of quantiles, so it describes the shape of the bulk of the distribution and is not
    moved by the largest values alone (which a small sample from a long tail may not have drawn).
    About 2.4 for normal values, 3.3 for double-exponential ones, 5 for the squares of normal
    values and 20-30 for the squared errors of a lognormal target (``docs/coverage.md``). The
    deviations equal to zero (ties at the median, as discrete data have) are left out.

    Parameters
    ----------
    values : ndarray

    Returns
    -------
    float
        0 when fewer than two deviations are nonzero.
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return 0.0
    dev = np.abs(v - np.median(v))
    dev = dev[dev > 0]
    if dev.size < 2:
        return 0.0
    q50, q90 = np.quantile(dev, [0.5, 0.9])
    return float(q90 / q50) if q50 > 0 else math.inf


def dominant_share(values: np.ndarray) -> float:
    """The largest share one row has in ``sum_i (v_i - mean(v))^2`` (0 for constant values)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return 0.0
    d2 = (v - v.mean()) ** 2
    total = float(d2.sum())
    return float(d2.max() / total) if total > 0 else 0.0


@dataclasses.dataclass(frozen=True)
class TargetMoments:
    """The weighted central moments of a target, mergeable across parts of the data.

    ``rows`` counts the rows of positive weight, ``weight`` their total weight; ``mean``,
    ``m2`` and ``m3`` (the sums ``sum w (y - mean)^k``) are those of ``y * 2**-exponent``, a
    power of two that puts the largest ``|y|`` in [0.5, 1) so that no cube overflows or
    underflows at any scale (it changes no digit, and the skewness not at all); ``values``
    holds up to three of the distinct values (enough to tell a two-valued target). Parts merge
    by the pairwise formulas of Chan, Golub & LeVeque (1979) and Pebay (2008), never by
    differences of raw power sums.
    """

    rows: int
    weight: float
    mean: float
    m2: float
    m3: float
    values: tuple[float, ...]
    exponent: int = 0

    @classmethod
    def of(cls, target: np.ndarray, weight: np.ndarray | None = None) -> TargetMoments:
        """The moments of the finite values of ``target`` with positive ``weight``."""
        y = np.asarray(target, dtype=np.float64)
        w = None if weight is None else np.asarray(weight, dtype=np.float64)
        keep = np.isfinite(y) if w is None else np.isfinite(y) & (w > 0)
        if not keep.all():
            y, w = y[keep], None if w is None else w[keep]
        values = _smallest_distinct(y, 3)
        if y.size == 0:
            return cls(0, 0.0, 0.0, 0.0, 0.0, values)
        largest = max(-values[0], float(y.max()))
        exponent = math.frexp(largest)[1] if largest > 0 else 0
        scaled = np.ldexp(y, -exponent)
        total = float(y.size) if w is None else float(w.sum())
        with np.errstate(over="ignore", invalid="ignore"):  # weights whose sums overflow: NaN
            mean = _weighted_sum(scaled, w) / total
            centred = scaled - mean
            squares = centred * centred
            m2 = _weighted_sum(squares, w)
            m3 = _weighted_sum(squares * centred, w)
        return cls(int(y.size), total, mean, m2, m3, values, exponent)

    def _at(self, exponent: int) -> tuple[float, float, float]:
        """``mean``, ``m2`` and ``m3`` in the units of ``2**exponent`` (not below this one's)."""
        shift = self.exponent - exponent
        return (
            math.ldexp(self.mean, shift),
            math.ldexp(self.m2, 2 * shift),
            math.ldexp(self.m3, 3 * shift),
        )

    def merge(self, other: TargetMoments) -> TargetMoments:
        """The moments of both parts together (Pebay 2008, eqs. 2.1-2.2, with weights)."""
        if other.rows == 0:
            return self
        if self.rows == 0:
            return other
        exponent = max(self.exponent, other.exponent)
        (mean_a, m2_a, m3_a), (mean_b, m2_b, m3_b) = self._at(exponent), other._at(exponent)
        wa, wb = self.weight, other.weight
        total = wa + wb
        delta = mean_b - mean_a
        m2 = m2_a + m2_b + delta**2 * wa * wb / total
        m3 = (
            m3_a
            + m3_b
            + delta**3 * wa * wb * (wa - wb) / total**2
            + 3.0 * delta * (wa * m2_b - wb * m2_a) / total
        )
        values = tuple(sorted(set(self.values) | set(other.values)))[:3]
        return TargetMoments(
            self.rows + other.rows,
            total,
            mean_a + delta * wb / total,
            m2,
            m3,
            values,
            exponent,
        )

    @property
    def skewness(self) -> float:
        """``m3 / m2^(3/2)`` of the weighted moments (NaN for a constant target)."""
        if not self.m2 > 0:
            return math.nan
        return (self.m3 / self.weight) / (self.m2 / self.weight) ** 1.5


def _smallest_distinct(values: np.ndarray, k: int) -> tuple[float, ...]:
    """The ``k`` smallest distinct values of finite ``values``, in ``k`` linear scans (no sort,
    no copy: the first pass of the Dask engine reads every partition with it)."""
    out: list[float] = []
    below = -math.inf
    while len(out) < k:
        smallest = float(np.min(values, where=values > below, initial=math.inf))
        if smallest == math.inf:
            break
        out.append(smallest)
        below = smallest
    return tuple(out)


def _weighted_sum(x: np.ndarray, w: np.ndarray | None) -> float:
    """``sum(x)``, or ``sum(w x)`` with weights."""
    return float(x.sum() if w is None else (w * x).sum())


def skewed_target_note(target: np.ndarray | TargetMoments, weight: np.ndarray | None = None) -> str:
    """The note of an interval of a mean loss on a target too skewed for the sample's size.

    Cochran's (1977) rule, refined by Sugden, Smith & Jones (2000), asks ``n > 28 + 25 g^2`` rows
    for a mean of a population of skewness ``g`` to be near normal (:data:`COCHRAN_OFFSET`,
    :data:`COCHRAN_FACTOR`); here ``g`` is the target's sample skewness
    ``m3 / m2^(3/2)`` (the moments weighted by ``weight``, if given) and ``n`` its rows of
    positive weight. A long-tailed target gives every model's losses its tail, which a small
    sample has often not drawn: the intervals of its mean losses are then approximate. A
    two-valued target (a binary response) has bounded losses and is never flagged here.

    Parameters
    ----------
    target : ndarray of shape (n,), or TargetMoments
        The target, or its moments (merged over the partitions of a Dask frame).
    weight : ndarray of shape (n,), optional
        Case weights of an array ``target``.

    Returns
    -------
    str
        ``"approximate: ..."`` with the skewness, the rows and the rule's size, or ``""``.
    """
    moments = target if isinstance(target, TargetMoments) else TargetMoments.of(target, weight)
    if moments.rows < 3 or len(moments.values) <= 2:
        return ""
    skewness = moments.skewness
    if not math.isfinite(skewness):
        return ""
    needed = COCHRAN_OFFSET + COCHRAN_FACTOR * skewness**2
    if not moments.rows < needed:
        return ""
    return (
        f"approximate: a skewed target (sample skewness {skewness:.2f}) and {moments.rows} "
        f"rows, fewer than the {needed:.0f} ({COCHRAN_OFFSET:g} + {COCHRAN_FACTOR:g} x "
        "skewness^2) from which a mean of a population so skewed is near normal (Cochran 1977; "
        "Sugden, Smith & Jones 2000); a small sample of a "
        "long-tailed target has often not drawn its tail (the bootstrap-t of a lognormal "
        "target's MAE covered 88-92 % at 30-100 rows, docs/coverage.md)"
    )


def mean_loss_flags(
    tails: tuple[np.ndarray, ...], target_note: str, *, bounded: bool = False
) -> tuple[np.ndarray, np.ndarray, str]:
    """Which intervals of a mean loss are approximate, and why.

    Parameters
    ----------
    tails : tuple of ndarray
        ``(single, paired, single_share, paired_share)``: the tail weights (:func:`tail_weight`)
        and the largest one-row shares (:func:`dominant_share`) of each model's and each pair's
        per-row contributions (:meth:`RatioStudentizer.tail_weights`).
    target_note : str
        :func:`skewed_target_note` of the target (empty when the rule does not flag it).
    bounded : bool, default False
        Whether the contributions are bounded (:attr:`RatioForm.bounded`): the tail weight then
        flags nothing (the one-row share and the target's rule still apply).

    Returns
    -------
    approximate, difference_approximate : ndarray of bool
        Per model and per pair: a tail weight above :data:`TAIL_WEIGHT_LIMIT`, a row carrying
        more than :data:`DOMINANT_SHARE_LIMIT` of the spread, or (every one) a flagged target.
    note : str
        The reasons, ``"approximate: ..."``, joined by ``"; "`` (empty when none).
    """
    single, paired, single_share, paired_share = (np.asarray(t) for t in tails)
    if bounded:  # a mean of bounded contributions holds its level at any tail weight
        single, paired = np.zeros_like(single), np.zeros_like(paired)
    approximate = (single > TAIL_WEIGHT_LIMIT) | (single_share > DOMINANT_SHARE_LIMIT)
    difference = (paired > TAIL_WEIGHT_LIMIT) | (paired_share > DOMINANT_SHARE_LIMIT)
    notes = []
    if approximate.any() or difference.any():
        weight = float(max(np.max(single, initial=0.0), np.max(paired, initial=0.0)))
        share = float(max(np.max(single_share, initial=0.0), np.max(paired_share, initial=0.0)))
        notes.append("approximate: " + tail_weight_reason(weight, share))
    if target_note:  # every model's and pair's interval: the target is shared
        approximate = np.ones_like(approximate)
        difference = np.ones_like(difference)
        notes.append(target_note)
    return approximate, difference, "; ".join(notes)


def tail_weight_reason(weight: float, share: float = 0.0) -> str:
    """The words of an interval flagged approximate for its tail weight or a dominant row."""
    if weight > TAIL_WEIGHT_LIMIT:
        return (
            f"long-tailed per-row contributions (tail weight q90/q50 = {weight:.3g} > "
            f"{TAIL_WEIGHT_LIMIT:g}): no bootstrap interval of a mean holds its level there "
            "(a lognormal target's RMSE intervals covered 71-82 %, docs/coverage.md); compare "
            "a log-scale measure or the MAE"
        )
    return (
        f"one row carries {share:.0%} of the spread of the per-row contributions (more than "
        f"{DOMINANT_SHARE_LIMIT:.0%}): the interval rests on that row and no bootstrap "
        "interval holds its level"
    )


def symmetric_t_interval(
    estimate: float, std_error: float, t_replicates: np.ndarray, level: float
) -> tuple[float, float]:
    """Hall's (1988) symmetric bootstrap-t interval ``estimate -+ t*_level std_error``.

    ``t*_level`` is the ``level`` quantile of ``|t*|`` over the replicates' studentized values
    ``t* = (theta* - theta) / se*``; its coverage error is of order ``1 / n^2`` for smooth
    functions of means (Hall 1988; 1992, Sect. 3.6), against ``1 / n`` for the percentile and
    BCa intervals' two-sided coverage.

    Parameters
    ----------
    estimate, std_error : float
    t_replicates : ndarray
        Studentized replicates (non-finite ones are left out).
    level : float

    Returns
    -------
    tuple of float
        NaN with fewer than two finite replicates or an undefined estimate; the estimate itself
        for a standard error of 0 (no variation, e.g. identical models).
    """
    if std_error == 0.0 and math.isfinite(estimate):
        return estimate, estimate  # no variation (identical models): the point
    t = np.abs(t_replicates[np.isfinite(t_replicates)])
    if t.size < 2 or not (math.isfinite(estimate) and math.isfinite(std_error)):
        return math.nan, math.nan
    half = float(np.quantile(t, level)) * std_error
    return estimate - half, estimate + half


def symmetric_p_value(replicates: np.ndarray, estimate: float) -> float:
    """Two-sided bootstrap p-value of "no difference" from the centred replicates.

    Parameters
    ----------
    replicates : ndarray
        Finite bootstrap replicates ``d*`` of the difference (``R`` of them).
    estimate : float
        The difference ``d`` on every case.

    Returns
    -------
    float
        ``(1 + r) / (R + 1)`` with ``r = #{|d* - d| >= |d|}``; NaN without replicates.

    Notes
    -----
    The replicates are centred at the estimate, so that their spread stands for the null
    distribution of ``d`` (Hall & Wilson 1991, the first guideline), and compared in absolute
    value, a two-sided test that a long tail of the replicates on either side makes
    conservative rather than liberal. :func:`symmetric_interval_at` at level ``1 - a`` excludes
    zero exactly when this p-value is at most ``a``. The ``+ 1`` (Davison & Hinkley 1997,
    Sect. 4.4.1) keeps the test valid at levels the replicates barely resolve: with ``R``
    replicates no p-value is below ``1 / (R + 1)``, so a Holm level ``alpha / m`` below that
    cannot be reached and more replicates are needed.

    References
    ----------
    Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
    *Biometrics* 47(2), 757-762.

    Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
    Cambridge University Press.
    """
    reps = np.asarray(replicates, dtype=np.float64)
    if reps.size == 0 or not math.isfinite(estimate):
        return math.nan
    beyond = int(np.count_nonzero(np.abs(reps - estimate) >= abs(estimate)))
    return min(1.0, (1 + beyond) / (reps.size + 1))


def symmetric_interval_at(
    replicates: np.ndarray, estimate: float, level: float
) -> tuple[float, float]:
    """The symmetric bootstrap interval ``d -+ q`` at any level, by order statistics.

    Parameters
    ----------
    replicates : ndarray
        Finite bootstrap replicates ``d*`` (``R`` of them).
    estimate : float
        The estimate ``d``.
    level : float
        Confidence level ``1 - a``.

    Returns
    -------
    tuple of float
        ``d -+ u_(R + 1 - k)``, where ``u_(1) <= ... <= u_(R)`` are the sorted ``|d* - d|``
        and ``k = floor((R + 1) a)``: the ``(1 - a)`` quantile of the absolute centred
        replicates (Hall 1988's symmetric interval, with the bootstrap's own quantile in place
        of a normal one); NaNs when ``k < 1``: the replicates do not resolve the level.

    References
    ----------
    Hall, P. (1988). Theoretical comparison of bootstrap confidence intervals. *The Annals of
    Statistics* 16(3), 927-953.
    """
    deviations = np.sort(np.abs(np.asarray(replicates, dtype=np.float64) - estimate))
    n = deviations.size
    # a tiny tolerance so that (R + 1) a = 3 is not read as 2.9999999
    k = math.floor((n + 1) * (1.0 - level) + 1e-9)
    if n == 0 or k < 1 or not math.isfinite(estimate):
        return math.nan, math.nan
    half = float(deviations[n - k])
    return estimate - half, estimate + half


def studentized_p_value(t_replicates: np.ndarray, estimate: float, std_error: float) -> float:
    """Two-sided p-value of "no difference" by the symmetric bootstrap-t test.

    Parameters
    ----------
    t_replicates : ndarray
        Studentized replicates ``t* = (d* - d) / se*`` (non-finite ones are left out).
    estimate, std_error : float
        The difference ``d`` on every case and its standard error ``se`` there.

    Returns
    -------
    float
        ``(1 + r) / (R + 1)`` with ``r = #{|t*| >= |d| / se}`` over the ``R`` finite
        replicates; 1 for ``d = 0``; NaN otherwise without replicates or with an undefined
        estimate.

    Notes
    -----
    The test dual to Hall's (1988) symmetric bootstrap-t interval (:func:`symmetric_t_interval`):
    the studentized statistic is pivotal to a higher order than the difference itself (Hall &
    Wilson 1991, the second guideline), which is what keeps the level of a mean loss's test at
    small n where the Gaussian ``2 Phi(-|z|)`` with the bootstrap's SD rejects too often
    (``docs/coverage.md``). :func:`studentized_interval_at` at level ``1 - a`` excludes zero
    exactly when this p-value is at most ``a``.

    References
    ----------
    Hall, P. (1988). Theoretical comparison of bootstrap confidence intervals. *The Annals of
    Statistics* 16(3), 927-953.

    Hall, P. and Wilson, S. R. (1991). Two guidelines for bootstrap hypothesis testing.
    *Biometrics* 47(2), 757-762.
    """
    if estimate == 0.0:
        return 1.0  # no difference (identical models give t* = 0 / 0): nothing to test
    t = np.asarray(t_replicates, dtype=np.float64)
    t = t[~np.isnan(t)]
    if t.size == 0 or not (math.isfinite(estimate) and std_error >= 0.0):
        return math.nan
    with np.errstate(divide="ignore"):
        observed = abs(estimate) / std_error if std_error > 0.0 else math.inf
    beyond = int(np.count_nonzero(np.abs(t) >= observed))
    return min(1.0, (1 + beyond) / (t.size + 1))


def studentized_interval_at(
    t_replicates: np.ndarray, estimate: float, std_error: float, level: float
) -> tuple[float, float]:
    """Hall's symmetric bootstrap-t interval ``d -+ |t*|_(R + 1 - k) se`` at any level, by order
    statistics.

    Parameters
    ----------
    t_replicates : ndarray
        Studentized replicates ``t*`` (non-finite ones count as beyond every quantile).
    estimate, std_error : float
        The difference ``d`` and its standard error ``se``.
    level : float
        Confidence level ``1 - a``.

    Returns
    -------
    tuple of float
        ``d -+ u_(R + 1 - k) se``, where ``u_(1) <= ... <= u_(R)`` are the sorted ``|t*|`` and
        ``k = floor((R + 1) a)``, as :func:`symmetric_interval_at`; the estimate itself for a
        standard error of 0; NaNs when ``k < 1`` (the replicates do not resolve the level).
    """
    if std_error == 0.0 and math.isfinite(estimate):
        return estimate, estimate
    t = np.asarray(t_replicates, dtype=np.float64)
    t = t[~np.isnan(t)]
    _, half = symmetric_interval_at(t, 0.0, level)
    if not (math.isfinite(half) and math.isfinite(std_error)):
        return math.nan, math.nan
    return estimate - half * std_error, estimate + half * std_error


def _derivative(finalize: Callable[[Any], Any], r: np.ndarray) -> np.ndarray:
    """``finalize'(r)`` by central differences (``finalize`` is element-wise and smooth)."""
    h = 1e-6 * np.maximum(np.abs(r), 1e-300)
    with np.errstate(all="ignore"):
        up = np.asarray(finalize(r + h), dtype=np.float64)
        down = np.asarray(finalize(r - h), dtype=np.float64)
        return (up - down) / (2.0 * h)


class RatioStudentizer:
    """Standard errors of ratio-form measures and of their paired differences, per replicate.

    A ratio form ``finalize(r)``, ``r = sum w num / sum w den``, has the sandwich (delta-method)
    variance ``finalize'(r)^2 sum_g c_g z_g^2 / (sum_g c_g Z2_g)^2`` with
    ``z_g = sum_{i in g} w_i (num_i - r den_i)`` over the resampled units ``g`` (rows, or the
    clusters of a clustered bootstrap) and ``c_g`` their multiplicity; the covariance of two
    models' values is the same with the two ``z``. The per-unit sums are centred at the full
    sample's ratio, so that each replicate's sums are one matrix product of its multiplicities
    with per-unit columns (no pass over the rows per replicate).

    Parameters
    ----------
    forms : dict of int to RatioForm
        The measures (by their row in the comparison) that are ratio forms.
    y : ndarray
    preds : ndarray of shape (n_models, n)
    weight : ndarray or None
        Case weights.
    unit_of_row : ndarray of int or None
        The resampled unit of each row (None: the rows).
    pairs : list of (int, int)
    n_replicates : int
    columns : bool, default True
        False: only :meth:`tail_weights` and :meth:`floor` are wanted (no per-unit columns).
    """

    def __init__(
        self,
        forms: dict[int, Any],
        y: np.ndarray,
        preds: np.ndarray,
        weight: np.ndarray | None,
        unit_of_row: np.ndarray | None,
        pairs: list[tuple[int, int]],
        n_replicates: int,
        columns: bool = True,
    ) -> None:
        n_models = preds.shape[0]
        w = np.ones(y.shape[0]) if weight is None else weight
        self.forms = forms
        self.pairs = pairs
        self.unit_of_row = unit_of_row
        self.first_row: np.ndarray | None = None
        if unit_of_row is not None:
            _, self.first_row = np.unique(unit_of_row, return_index=True)
        z1, z2, ratio, contributions = {}, {}, {}, {}
        self.floors: dict[int, float] = {}
        for k, form in forms.items():
            signs = []
            for m in range(n_models):
                num, den = form.row_terms(y, preds[m])
                signs.append(bool(np.all(num >= 0) and np.all(den > 0)))
                r = float(np.sum(w * num) / np.sum(w * den))
                z1[k, m] = self._units(w * (num - r * den))
                z2[k, m] = self._units(w * den)
                ratio[k, m] = r
                contributions[k, m] = num - r * den
            if all(signs):
                with np.errstate(all="ignore"):
                    self.floors[k] = float(form.finalize(np.float64(0.0)))
        self.z1, self.z2, self.ratio, self.contributions = z1, z2, ratio, contributions
        self.n_models = n_models
        if not columns:  # the tail weights only
            return
        # the columns: first moments (z1, z2) per (k, m), then the products per (k, m, m')
        firsts = [(k, m) for k in forms for m in range(n_models)]
        seconds = [(k, a, b) for k in forms for a in range(n_models) for b in range(a, n_models)]
        self._first_index = {key: i for i, key in enumerate(firsts)}
        self._second_index = {key: i for i, key in enumerate(seconds)}
        cols = []
        for k, m in firsts:
            cols += [z1[k, m], z2[k, m]]
        for k, a, b in seconds:
            cols += [
                z1[k, a] * z1[k, b],
                z1[k, a] * z2[k, b],
                z2[k, a] * z1[k, b],
                z2[k, a] * z2[k, b],
            ]
        self.columns = np.ascontiguousarray(np.stack(cols, axis=1))
        self.n_firsts = len(firsts)
        self.sums = np.empty((n_replicates, self.columns.shape[1]))
        full = np.ones((1, self.columns.shape[0])) @ self.columns
        self.full = full[0]

    def _units(self, per_row: np.ndarray) -> np.ndarray:
        if self.unit_of_row is None:
            return per_row
        return np.bincount(self.unit_of_row, weights=per_row)

    def add(
        self,
        multiplicity: Any,
        start: int,
        product: Callable[[Any, np.ndarray], np.ndarray] | None = None,
    ) -> None:
        """Record the sums of replicates ``start ..`` from their ``(rows, n)`` multiplicities
        (any numeric dtype; a clustered bootstrap's are read at one row of each unit).
        ``product(multiplicity, columns)`` computes ``multiplicity @ columns`` as a float64
        NumPy array where the multiplicities live (a device); default NumPy's."""
        if self.first_row is not None:
            multiplicity = multiplicity[:, self.first_row]
        if product is None:
            sums = np.asarray(multiplicity, dtype=np.float64) @ self.columns
        else:
            sums = product(multiplicity, self.columns)
        self.sums[start : start + sums.shape[0]] = sums

    def _moments(self, sums: np.ndarray, k: int) -> tuple[dict[int, Any], dict[int, Any]]:
        """Per model: ``(r, s2)`` the replicates' ratios and ``sum c Z2``."""
        ratio, total = {}, {}
        for m in range(self.n_models):
            i = 2 * self._first_index[k, m]
            s1, s2 = sums[..., i], sums[..., i + 1]
            with np.errstate(all="ignore"):
                ratio[m] = self.ratio[k, m] + s1 / s2
            total[m] = s2
        return ratio, total

    def _covariance(
        self, sums: np.ndarray, k: int, a: int, b: int, ratio: dict[int, Any], total: dict[int, Any]
    ) -> np.ndarray:
        lo, hi = min(a, b), max(a, b)
        i = 2 * self.n_firsts + 4 * self._second_index[k, lo, hi]
        p11, p12, p21, p22 = (sums[..., i + j] for j in range(4))
        if a > b:
            p12, p21 = p21, p12
        da = ratio[a] - self.ratio[k, a]
        db = ratio[b] - self.ratio[k, b]
        with np.errstate(all="ignore"):
            return (p11 - db * p12 - da * p21 + da * db * p22) / (total[a] * total[b])

    def standard_errors(self, k: int, replicates: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(se of each model, se of each pair's difference)`` of measure ``k``: shapes
        ``(n_models,)`` and ``(n_pairs,)`` for the full sample, ``(B, ...)`` per replicate."""
        sums = self.sums if replicates else self.full
        finalize = self.forms[k].finalize
        ratio, total = self._moments(sums, k)
        slope = {m: _derivative(finalize, np.asarray(ratio[m])) for m in range(self.n_models)}
        var = {}
        for m in range(self.n_models):
            var[m] = slope[m] ** 2 * self._covariance(sums, k, m, m, ratio, total)
        single = np.stack([np.sqrt(np.maximum(var[m], 0.0)) for m in range(self.n_models)], -1)
        diff = []
        for a, b in self.pairs:
            cov = slope[a] * slope[b] * self._covariance(sums, k, a, b, ratio, total)
            diff.append(np.sqrt(np.maximum(var[a] + var[b] - 2.0 * cov, 0.0)))
        shape = (*single.shape[:-1], len(self.pairs))
        diffs = np.stack(diff, -1) if diff else np.empty(shape)
        return single, diffs

    def tail_weights(self, k: int) -> tuple[np.ndarray, ...]:
        """Of each model's per-row contributions ``num - r den`` and of each pair's to the
        difference, ``f'(r_a) (num_a - r_a den_a) - f'(r_b) (...)``: the :func:`tail_weight`
        (models, pairs) and the :func:`dominant_share` (models, pairs)."""
        finalize = self.forms[k].finalize
        contributions = [self.contributions[k, m] for m in range(self.n_models)]
        slopes = [
            float(_derivative(finalize, np.asarray(self.ratio[k, m]))) for m in range(self.n_models)
        ]
        paired = [
            slopes[a] * contributions[a] - slopes[b] * contributions[b] for a, b in self.pairs
        ]
        return (
            np.array([tail_weight(c) for c in contributions]),
            np.array([tail_weight(c) for c in paired]),
            np.array([dominant_share(c) for c in contributions]),
            np.array([dominant_share(c) for c in paired]),
        )

    def floor(self, k: int) -> float:
        """The smallest value measure ``k`` can take when every numerator is >= 0 and every
        denominator > 0 (``finalize(0)``, a mean loss's 0), else ``-inf``."""
        return self.floors.get(k, -math.inf)
