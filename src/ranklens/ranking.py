"""Ranking-based evaluation of regression models (Rosset, Perlich & Zadrozny 2005, 2007).

A regression model used to *rank* (whom to target first) is judged by how well its predictions
order the truth. Notation as in Rosset, Perlich & Zadrozny (2005): observations sorted by
decreasing prediction, ``s_i`` the true rank (1 = largest), ``N = n(n-1)``.

* ``T`` = pairs ordered the wrong way round (eq. 2), ``R`` = those pairs weighted by their distance
  in the model's ranking (eq. 3); ``tau = 1 - 4T/N`` and ``rho = 1 - 12R/(n(n^2-1))`` without ties.
* ``tau~ = (1 + tau)/2`` is the probability of ordering a random pair correctly;
  ``rho~ = (1 + rho)/2``.
* Figures 1-3 of Rosset, Perlich & Zadrozny (2005) (:func:`concordance_profile`,
  :func:`cutoff_auc_curve`, :func:`rank_lift_curve`), the partial measures of their 2007 journal
  version, Sect. 5 (:func:`partial_kendall_tau`, :func:`partial_spearman_rho`) and the Noether
  confidence interval (eq. 6) for tau.

Ties (the papers assume none, so ranklens decides): Kendall's tau is tau-b, Spearman's rho uses
midranks (both agree with scipy); ``tau_normalized`` is Harrell's C, the fraction of pairs with
different ``y_true`` that the prediction orders correctly, a tie in the prediction earning half
(``(1 + Somers' D(pred|y))/2``, AUC for binary ``y_true``); ``somers_d`` is Somers' D(pred|y)
itself, ``2 C - 1``; ``rho_normalized = (1 + rho)/2``.
``T`` counts strictly discordant pairs; ``R`` weights each by the distance of the two prediction
midranks (a multiple of 1/2 when predictions tie). Both are exact Python integers (``Fraction``
for a half-integer ``R``) at any n; with ``sample_weight`` every pair counts ``w_i * w_j`` and they
are floats. Every algorithm is O(n log n); the kernels are in
:mod:`ranklens._compute.kernels.ranking`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from ranklens._compute.xp import curves as _xpc
from ranklens._compute.xp import measure_routes as _routes
from ranklens._compute.xp import measures as _xm
from ranklens._compute.xp import sequence as _xs
from ranklens._compute.xp.measures import device_inputs, device_point
from ranklens._compute.xp.summary import (
    per_row_pair_counts,
    summary_sums,
    weighted_summary_sums,
)
from ranklens._foundation.curve_registry import CurveSweepForm, register_curve
from ranklens._foundation.docstrings import (
    computes_where_inputs_live,
    raises_input_errors,
    shared_paragraphs,
)
from ranklens._foundation.exact_null import (
    SPEARMAN_EXACT_MAX_N,
    kendall_exact_pvalue,
    kendall_uses_exact,
    spearman_exact_pvalue,
)
from ranklens._foundation.forms import RankStatistic, RankSweepForm
from ranklens._foundation.interval_formulas import tau_confidence_interval
from ranklens._foundation.normal import ndtr as _ndtr
from ranklens._foundation.registry import (
    AnalyticVariance,
    BreakdownBound,
    ConcordanceForm,
    register_metric,
)
from ranklens._foundation.results import ConfidenceInterval, CurveResult, Result
from ranklens._foundation.scaling import product_exponent
from ranklens._foundation.typing import ArrayLike
from ranklens._foundation.validation import (
    check_pair,
    check_probability,
    check_sample_weight,
    check_sample_weight_scaled,
)
from ranklens._measures.rank_sweep import (
    SUMMARY_CLASSES,
    exact_number,
    leave_one_out_classes,
    noether_variances,
    pair_class_stats,
    pair_counts_per_row,
    profile_counts,
    rank_leave_one_out,
    rank_sweep,
    rank_value,
    spearman_from_limbs,
    spearman_from_sums,
    tau_c_from_classes,
    tie_cubes,
    weighted_spearman,
)
from ranklens.exceptions import warn_undefined

__all__ = [
    "ConcordanceProfileResult",
    "CutoffAUCResult",
    "PairCountsResult",
    "PartialRankingResult",
    "RankLiftResult",
    "RankingSummary",
    "concordance_profile",
    "cutoff_auc_curve",
    "goodman_kruskal_gamma",
    "kendall_tau",
    "partial_kendall_tau",
    "partial_spearman_rho",
    "per_observation_pair_counts",
    "rank_lift_curve",
    "ranking_summary",
    "rho_normalized",
    "somers_d",
    "spearman_rho",
    "tau_confidence_interval",
    "tau_normalized",
]


def _warn_all(reasons: list[str], stacklevel: int = 4) -> None:
    """One warning per call naming every undefined quantity (stacklevel 4: the user's call)."""
    if reasons:
        warn_undefined("; ".join(reasons), stacklevel=stacklevel)


def _inputs(y_true: Any, y_pred: Any, sample_weight: Any) -> tuple[Any, Any, Any]:
    y, p = check_pair(y_true, y_pred)
    return y, p, check_sample_weight(sample_weight, y.size)


# ---------------------------------------------------------------------------------------------
# Per-observation pair counts (the contract leave-one-out code builds on)
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PairCountsResult(Result):
    """For every row i (original order), the number of other rows j in each pair class.

    ``concordant + discordant + tied_true_only + tied_pred_only + tied_both == n - 1`` row-wise;
    each total over rows is twice the number of pairs of that class. Removing row i lowers the
    pair counts of the data by exactly row i's counts (exact leave-one-out tau; Proposition 2 of the
    2005 paper).
    """

    concordant: np.ndarray
    discordant: np.ndarray
    tied_true_only: np.ndarray
    tied_pred_only: np.ndarray
    tied_both: np.ndarray


@raises_input_errors("y_true", "y_pred", weights=False)
@shared_paragraphs
def per_observation_pair_counts(y_true: ArrayLike, y_pred: ArrayLike) -> PairCountsResult:
    """Concordant, discordant and tied counts of every observation against all others.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s

    Returns
    -------
    PairCountsResult
        ``concordant``, ``discordant``, ``tied_true_only``, ``tied_pred_only`` and ``tied_both``:
        int64 arrays of shape (n,) in the original row order.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Row i and j != i are concordant when ``(y_j - y_i)(pred_j - pred_i) > 0``, discordant when it is
    ``< 0``; otherwise they are tied in ``y_true`` only, in ``y_pred`` only or in both. Without ties
    ``concordant`` is the C_i of Rosset, Perlich & Zadrozny (2005), eq. (6), with the inequalities
    the printed text reverses put right.

    One Fenwick sweep, O(n log n); int64 arrays in the original row order.

    References
    ----------
    %(rosset2005)s

    %(rosset2007)s

    Examples
    --------
    >>> r = per_observation_pair_counts([1, 2, 3], [1, 3, 2])
    >>> r.concordant.tolist(), r.discordant.tolist()
    ([2, 1, 1], [0, 1, 1])
    """
    y, p = check_pair(y_true, y_pred)
    if _routes.pair_counts_numpy(y.size):
        # small and the sweep kernel not loaded: the n^2 comparisons, the same exact counts
        out = list(per_row_pair_counts(np, y, p))
    else:
        out = list(pair_counts_per_row(y, p))
    return PairCountsResult(
        concordant=out[0],
        discordant=out[1],
        tied_true_only=out[2],
        tied_pred_only=out[3],
        tied_both=out[4],
    )


# ---------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RankingSummary(Result):
    """Ranking evaluation of one model (Rosset et al. 2005, Sect. 2-3; 2007, Sect. 3.1).

    Attributes
    ----------
    n : int
        Number of observations (rows; with ``sample_weight`` still the rows, not W).
    discordant_pairs : float
        T (eq. 2): pairs ordered oppositely by ``y_true`` and ``y_pred`` (ties excluded).
    weighted_discordance : float
        R (eq. 3): each discordant pair weighted by the distance of its prediction midranks.
    concordant_pairs, tied_true_only_pairs, tied_pred_only_pairs, tied_both_pairs : float
        The other pair classes; the five add up to n(n-1)/2. With weights they are counts of
        the sample with row i repeated w_i times, on the scale of the weights given: pairs of
        different rows count ``w_i w_j`` and the copies of one row are tied in both, so a group
        of rows equal in both variables with total weight W_g holds ``W_g (W_g - 1)/2`` tied
        pairs (none when W_g < 1); the five add up to (W^2 - W)/2 when every such group weighs
        at least 1 (integer weights, for example).
    kendall_tau, spearman_rho : float
        tau-b and midrank Spearman (scipy's definitions).
    tau_normalized, rho_normalized : float
        Harrell's C = (1 + Somers' D(pred|y))/2 (= (1 + tau)/2 without ties) and (1 + rho)/2.
    tau_variance, tau_variance_unbiased : float
        Noether's plug-in variance (eq. 6 of Rosset, Perlich & Zadrozny 2005) and the unbiased
        U-statistic version; with ties both are for tau-b by the delta method (see
        :func:`ranking_summary`).
    tau_ci : ConfidenceInterval
        The interval of tau at ``confidence_level`` by ``tau_ci_method``
        (:func:`tau_confidence_interval`): by default Fisher's z interval;
        ``ConfidenceInterval(nan, nan)`` where it cannot be computed (with ``sample_weight``, or
        fewer than 5 rows).
    tau_null_pvalue, rho_null_pvalue : float
        Two-sided p-values of independence. Without ties, exact at small n as R's ``cor.test``
        and scipy's ``kendalltau`` by default: tau's from the permutation distribution of the
        discordant pairs where scipy's ``method="auto"`` is exact (n <= 33), rho's by Algorithm
        AS 89 for n <= 1290 (all permutations up to n = 9, its Edgeworth series above; Best &
        Roberts 1975). Otherwise normal with Kendall's tie-corrected variance for tau and t with
        n - 2 degrees of freedom for rho, as scipy's ``kendalltau(method="asymptotic")`` and
        ``spearmanr``.
    confidence_level : float
    exact_counts : dict of str to int or Fraction, or None
        The five pair counts and R exactly (Python ``int``; R a ``Fraction`` when it is a
        half-integer), keyed by the field names above; the float fields round them to 53 bits
        (exact below 2**53, about n = 1.3e8 for pair counts and n = 3.7e5 for R). None with
        ``sample_weight`` (the weighted counts are floats).
    tau_ci_method : str
        ``"fisher-z"`` (the default) or ``"noether"``: how ``tau_ci`` was made.
    tau_ci_approximate : bool
        ``tau_ci`` is given but not known to hold its level (``tau_ci_reason`` says why: fewer
        than 10 rows, or every pair ordered alike).
    tau_ci_reason : str
        Why ``tau_ci`` is approximate or not given (empty otherwise).

    Notes
    -----
    Counts have one type, float, whether or not ``sample_weight`` is given; the exact integers
    are in ``exact_counts``.
    """

    n: int
    discordant_pairs: float
    weighted_discordance: float
    concordant_pairs: float
    tied_true_only_pairs: float
    tied_pred_only_pairs: float
    tied_both_pairs: float
    kendall_tau: float
    spearman_rho: float
    tau_normalized: float
    rho_normalized: float
    tau_variance: float
    tau_variance_unbiased: float
    tau_ci: ConfidenceInterval
    tau_null_pvalue: float
    rho_null_pvalue: float
    confidence_level: float
    exact_counts: dict[str, int | Fraction] | None = None
    tau_ci_method: str = "fisher-z"
    tau_ci_approximate: bool = False
    tau_ci_reason: str = ""

    def confidence_interval(
        self, confidence_level: float | None = None, method: str | None = None
    ) -> ConfidenceInterval:
        """The interval of tau at another level or by another method.

        Parameters
        ----------
        confidence_level : float, optional
            In (0, 1); default the summary's ``confidence_level``.
        method : {"fisher-z", "noether"}, optional
            Default the summary's ``tau_ci_method`` (:func:`tau_confidence_interval`).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``(nan, nan)`` where the variance is undefined.

        Raises
        ------
        ValueError
            If ``confidence_level`` is not in (0, 1) or ``method`` is unknown.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        level = check_probability(level, "confidence_level")
        chosen = self.tau_ci_method if method is None else method
        return tau_confidence_interval(
            self.kendall_tau, self.tau_variance_unbiased, self.n, level, method=chosen
        )[0]


def _special() -> ModuleType:
    """``scipy.special``, imported on first use (about 0.3-0.5 s with the array-API layer it
    brings): the point measures (``kendall_tau``, ``spearman_rho``, ...) never need it."""
    from scipy import special

    return special


def _kendall_null_variance(n: int, sizes_a: np.ndarray, sizes_b: np.ndarray) -> float:
    """Var0(S), S = concordant - discordant, with Kendall's tie correction (as scipy)."""
    m = n * (n - 1.0)

    def tie_terms(sizes: np.ndarray) -> tuple[float, float, float]:
        t = sizes[sizes > 1].astype(np.float64)
        return (
            float(np.sum(t * (t - 1) / 2)),
            float(np.sum(t * (t - 1) * (t - 2))),
            float(np.sum(t * (t - 1) * (2 * t + 5))),
        )

    atie, a0, a1 = tie_terms(sizes_a)
    btie, b0, b1 = tie_terms(sizes_b)
    var = (m * (2 * n + 5) - a1 - b1) / 18 + 2 * atie * btie / m
    if n > 2:
        var += a0 * b0 / (9 * m * (n - 2))
    return var


def _normal_two_sided(z: float) -> float:
    return 2 * _ndtr(-abs(z)) if np.isfinite(z) else math.nan


def _spearman_pvalue(rho: float, n: int) -> float:
    """Two-sided p-value of rho = 0 from t = rho sqrt((n-2)/(1-rho^2)), df = n-2 (as scipy)."""
    if not np.isfinite(rho) or n <= 2:
        return math.nan
    if abs(rho) >= 1.0:
        return 0.0
    t = rho * math.sqrt((n - 2) / ((1.0 - rho) * (1.0 + rho)))
    return float(2 * _special().stdtr(n - 2, -abs(t)))


def _ranking_summary_on_device(
    y_true: Any,
    y_pred: Any,
    sample_weight: Any,
    confidence_level: float,
    *,
    namespace: Any = None,
) -> RankingSummary:
    """:func:`ranking_summary` from the exact sums of
    :func:`ranklens._compute.xp.summary.summary_sums` on the device; the scalar tails (interval,
    p-values) on the host, as on the CPU. With ``sample_weight``, the weighted point estimates from
    :func:`ranklens._compute.xp.summary.weighted_summary_sums` (pair counts exact for integer
    weights). ``namespace`` (default CuPy) lets the tests run the same code on NumPy."""
    level = check_probability(confidence_level, "confidence_level")
    xp = _xm.cupy_or_raise("ranking_summary on device inputs") if namespace is None else namespace
    y, p, w = device_inputs(xp, y_true, y_pred, sample_weight)
    if w is None:
        return _summary_from_sums(summary_sums(xp, y, p), level, stacklevel=5)
    largest = float(xp.max(w))
    if not largest > 0:
        raise ValueError(
            "sample_weight sums to zero; at least one observation needs positive weight"
        )
    scale = 1.0
    if w.dtype.kind == "f":  # rescaled to mean 1 as on the CPU (check_sample_weight_scaled)
        unit = w / largest
        mean_unit = float(xp.mean(unit))
        w, scale = unit / mean_unit, largest * mean_unit
    sums = weighted_summary_sums(xp, y, p, w, scale)
    exact = w.dtype.kind in "iu"
    s = pair_class_stats(np.array(sums["stats"], dtype=object), exact=exact)
    cov, var_a, var_b, f3 = sums["fsums"]
    rho = math.nan
    if var_a > 0.0 and var_b > 0.0:
        rho = min(1.0, max(-1.0, cov / math.sqrt(var_a * var_b)))
    tau, c_index = tau_c_from_classes(s)
    counts = {
        name: max(0.0, float(s[name] * scale * scale)) if not exact else max(0, s[name])
        for name in ("discordant", "concordant", "tied_true_only", "tied_pred_only")
    }
    counts["tied_both"] = max(0, sums["tied_both"])
    r_value = max(0.0, float(var_a - cov - f3 / 2) * scale * scale * scale)
    _warn_all([*_undefined_reasons(s), _WEIGHTED_INFERENCE_SKIPPED])
    return _summary_result(int(y.shape[0]), counts, r_value, tau, rho, c_index, level)


def _summary_from_sums(sums: dict[str, Any], level: float, *, stacklevel: int) -> RankingSummary:
    """:class:`RankingSummary` from :func:`ranklens._compute.xp.summary.summary_sums`
    (unweighted)."""
    n = sums["n"]
    s = {k: sums[k] for k in SUMMARY_CLASSES}
    tau, c_index = tau_c_from_classes(s)
    rho, r_value = spearman_from_sums(n, sums["s2"], sums["wy"], sums["t_pred"], sums["t_y"])
    reasons = _undefined_reasons(s)
    moments = np.array(sums["moments"], dtype=float)
    inference = _unweighted_inference(
        n, s, moments, tau, rho, sums["pred_sizes"], sums["y_sizes"], reasons
    )
    _warn_all(reasons, stacklevel)
    return _summary_result(
        n, s, r_value, tau, rho, c_index, level, inference=inference, exact_counts=True
    )


class _TauRhoInference(NamedTuple):
    """The variances of tau and the null p-values of tau and rho (NaN where not computed)."""

    tau_variance: float = math.nan
    tau_variance_unbiased: float = math.nan
    tau_null_pvalue: float = math.nan
    rho_null_pvalue: float = math.nan


#: A weighted summary's: case weights define no sample size.
_NOT_COMPUTED = _TauRhoInference()

#: Why a weighted summary has no variances, interval or p-values.
_WEIGHTED_INFERENCE_SKIPPED = (
    "with sample_weight the variance, confidence interval and p-values of tau and rho are "
    "not computed (case weights define no sample size); use a bootstrap"
)

#: The pair classes of :class:`RankingSummary`, each a ``<name>_pairs`` field.
_PAIR_CLASSES = ("discordant", "concordant", "tied_true_only", "tied_pred_only", "tied_both")


def _unweighted_inference(
    n: int,
    s: dict[str, Any],
    moments: np.ndarray,
    tau: float,
    rho: float,
    pred_sizes: np.ndarray,
    y_sizes: np.ndarray,
    reasons: list[str],
) -> _TauRhoInference:
    """Noether's variances of tau and the null p-values of tau and rho without weights, from the
    pair classes ``s`` and the tie group sizes; appends to ``reasons`` what is undefined."""
    var_plug, var_unb = noether_variances(n, s, moments, tau)
    if n < 4 and np.isfinite(tau):
        reasons.append(f"the unbiased variance of tau needs n >= 4 (got n = {n})")
    tau_p = math.nan
    if np.isfinite(tau):
        var0 = _kendall_null_variance(n, pred_sizes, y_sizes)
        diff = s["concordant"] - s["discordant"]
        tau_p = _normal_two_sided(diff / math.sqrt(var0)) if var0 > 0 else math.nan
    # Without ties every permutation is equally likely under independence: exact p-values.
    untied = s["tied_true_only"] == 0 and s["tied_pred_only"] == 0 and s["tied_both"] == 0
    if untied and np.isfinite(tau) and kendall_uses_exact(n, int(s["discordant"])):
        tau_p = kendall_exact_pvalue(n, int(s["discordant"]))
    if untied and np.isfinite(rho) and n <= SPEARMAN_EXACT_MAX_N:
        rho_p = spearman_exact_pvalue(n, rho)
    else:  # the t approximation only where the exact p-value does not replace it
        rho_p = _spearman_pvalue(rho, n)
    return _TauRhoInference(var_plug, var_unb, tau_p, rho_p)


def _summary_result(
    n: int,
    counts: dict[str, Any],
    r_value: int | Fraction | float,
    tau: float,
    rho: float,
    c_index: float,
    level: float,
    *,
    inference: _TauRhoInference = _NOT_COMPUTED,
    exact_counts: bool = False,
) -> RankingSummary:
    """:class:`RankingSummary` from the pair ``counts`` (keyed by :data:`_PAIR_CLASSES`), R and
    the statistics; ``exact_counts``: the counts and R are exact (unweighted) and are kept."""
    exact: dict[str, int | Fraction] | None = None
    if exact_counts:
        exact = {f"{name}_pairs": int(counts[name]) for name in _PAIR_CLASSES}
        assert not isinstance(r_value, float)  # the exact R of an unweighted sweep
        exact["weighted_discordance"] = r_value
    tau_ci, approximate, reason = tau_confidence_interval(
        tau, inference.tau_variance_unbiased, n, level
    )
    return RankingSummary(
        n=n,
        discordant_pairs=float(counts["discordant"]),
        weighted_discordance=float(r_value),
        concordant_pairs=float(counts["concordant"]),
        tied_true_only_pairs=float(counts["tied_true_only"]),
        tied_pred_only_pairs=float(counts["tied_pred_only"]),
        tied_both_pairs=float(counts["tied_both"]),
        kendall_tau=tau,
        spearman_rho=rho,
        tau_normalized=c_index,
        rho_normalized=(1 + rho) / 2,
        tau_variance=inference.tau_variance,
        tau_variance_unbiased=inference.tau_variance_unbiased,
        tau_ci=tau_ci,
        tau_null_pvalue=inference.tau_null_pvalue,
        rho_null_pvalue=inference.rho_null_pvalue,
        confidence_level=level,
        exact_counts=exact,
        tau_ci_approximate=approximate,
        tau_ci_reason=reason,
    )


def _undefined_reasons(s: dict[str, Any]) -> list[str]:
    reasons = []
    if s["distinct_y"] == 0:
        reasons.append("y_true is constant (every pair is tied): tau, rho and C are undefined")
    elif s["distinct_pred"] == 0:
        reasons.append(
            "y_pred is constant: Kendall's tau and Spearman's rho are undefined "
            "(Harrell's C is 0.5, every pair being a tie in the prediction)"
        )
    return reasons


# ---------------------------------------------------------------------------------------------
# What the registered measures declare: exact leave-one-out, breakdown bounds, rank-sweep forms
# ---------------------------------------------------------------------------------------------


def _exact_dot(a: np.ndarray, b: np.ndarray) -> int:
    """``sum a_i b_i`` as an exact Python int (each product fits int64; the sum may not)."""
    prod = a * b
    high, low = prod >> 31, prod & ((1 << 31) - 1)  # prod = high * 2^31 + low, low >= 0
    return (int(high.sum()) << 31) + int(low.sum())


@dataclasses.dataclass(frozen=True)
class _TieGroups:
    """Sorted tie groups of one variable, with doubled centred midranks ``U = 2 r - (n + 1)``."""

    order: np.ndarray  # argsort
    group: np.ndarray  # group id of every observation (groups numbered in increasing value)
    starts: np.ndarray  # first sorted position of every group
    sizes: np.ndarray  # size of every group
    doubled_rank: np.ndarray  # U_i, integers summing to 0

    @classmethod
    def of(cls, x: np.ndarray) -> _TieGroups:
        n = x.shape[0]
        order = np.argsort(x, kind="stable")
        xs = x[order]
        first = np.empty(n, dtype=bool)
        first[0] = True
        np.not_equal(xs[1:], xs[:-1], out=first[1:])
        starts = np.flatnonzero(first).astype(np.int64)
        sizes = np.diff(np.append(starts, n)).astype(np.int64)
        group_sorted = np.cumsum(first, dtype=np.int64) - 1
        group = np.empty(n, dtype=np.int64)
        group[order] = group_sorted
        # midrank r = start + (size + 1) / 2 (1-based), so 2r - (n + 1) = 2 start + size - n
        doubled = 2 * starts[group] + sizes[group] - n
        return cls(order, group, starts, sizes, doubled)

    def signed_sums(self, values: np.ndarray) -> np.ndarray:
        """``sum_{j != i} sign(x_j - x_i) values_j`` for every i, given ``sum values = 0``.

        Equals ``2 * (sum over larger x) + (sum over the tie group of i, i included)``.
        """
        cumulative = np.concatenate(([0], np.cumsum(values[self.order])))
        ends = self.starts + self.sizes
        group_sum = cumulative[ends] - cumulative[self.starts]
        above = cumulative[-1] - cumulative[ends]
        return (2 * above + group_sum)[self.group]


def _pair_counts(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    counts = per_observation_pair_counts(y, p)
    return (
        counts.concordant,
        counts.discordant,
        counts.tied_true_only,
        counts.tied_pred_only,
        counts.tied_both,
    )


def _loo_kendall_tau(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Leave-one-out tau-b for every row, ``(C - D) / sqrt((P - T_y)(P - T_p))``, O(n log n)
    (the pair classes without each row:
    :func:`ranklens._measures.rank_sweep.leave_one_out_classes`)."""
    s = leave_one_out_classes(_pair_counts(y, p))
    with np.errstate(divide="ignore", invalid="ignore"):
        den = np.sqrt(s["distinct_y"].astype(np.float64)) * np.sqrt(
            s["distinct_pred"].astype(np.float64)
        )
        out = (s["concordant"] - s["discordant"]) / den
    out[~np.isfinite(out)] = np.nan
    return out


def _loo_distinct_y(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """Without row i: concordant, discordant and pairs with distinct y (all integers)."""
    s = leave_one_out_classes(_pair_counts(y, p))
    return s["concordant"], s["discordant"], s["distinct_y"]


def _loo_harrell_c(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Leave-one-out Harrell's C, ``(C + T_pred only / 2) / (P - T_y)``, for every row."""
    conc, disc, distinct_y = _loo_distinct_y(y, p)
    pred_only = distinct_y - conc - disc
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (conc + 0.5 * pred_only) / distinct_y.astype(np.float64)
    out[~np.isfinite(out)] = np.nan
    return out


def _loo_somers_d(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Leave-one-out Somers' D(pred|y), ``(C - D) / (P - T_y)``, for every row."""
    conc, disc, distinct_y = _loo_distinct_y(y, p)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (conc - disc) / distinct_y.astype(np.float64)
    out[~np.isfinite(out)] = np.nan
    return out


def _loo_spearman_rho(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Leave-one-out Spearman rho (midranks, i.e. Pearson correlation of midranks) for every i.

    Derivation (doubled centred midranks ``U = 2r - (n+1)`` of ``y``, ``V`` of ``yhat``): deleting
    row i lowers the midrank of every other row j by ``1{x_j > x_i} + 1/2 1{x_j = x_i}``, and the
    mean midrank drops by 1/2, so the centred doubled ranks become ``U_j - sign(x_j - x_i)`` (and
    likewise ``V_j - sign(z_j - z_i)``). Expanding the sums of products,

    ``sum_{j!=i} U'_j V'_j = sum U V - U_i V_i - S_x(V)_i - S_z(U)_i + (c_i - d_i)``
    ``sum_{j!=i} U'_j^2   = sum U^2 - U_i^2 - 2 S_x(U)_i + (n - t_i)``

    with ``S_x(V)_i = sum_{j != i} sign(x_j - x_i) V_j`` (one sort and a cumulative sum over the tie
    groups of x), ``c_i - d_i = sum_j sign(x_j - x_i) sign(z_j - z_i)`` the concordant minus
    discordant count of row i, and ``t_i`` the size of row i's tie group in x. Then
    ``rho_i = sum U'V' / sqrt(sum U'^2 sum V'^2)``. The big totals are exact integers; each row
    adds an O(n^2) integer correction, so rho_i is accurate to float64 rounding.
    """
    n = y.shape[0]
    gx, gz = _TieGroups.of(y), _TieGroups.of(p)
    u, v = gx.doubled_rank, gz.doubled_rank
    c, d, *_ = _pair_counts(y, p)
    cross = float(_exact_dot(u, v)) - (
        u * v + gx.signed_sums(v) + gz.signed_sums(u) - (c - d)
    ).astype(np.float64)
    ss_x = float(_exact_dot(u, u)) - (
        u * u + 2 * gx.signed_sums(u) - (n - gx.sizes[gx.group])
    ).astype(np.float64)
    ss_z = float(_exact_dot(v, v)) - (
        v * v + 2 * gz.signed_sums(v) - (n - gz.sizes[gz.group])
    ).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = cross / (np.sqrt(ss_x) * np.sqrt(ss_z))
    out[~((ss_x > 0) & (ss_z > 0))] = np.nan
    return np.clip(out, -1.0, 1.0)


def _loo_rho_normalized(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return _to_unit(_loo_spearman_rho(y, p))


def _to_unit(v: Any) -> Any:
    """``(1 + v) / 2``: a correlation in [-1, 1] as a probability-like score in [0, 1]."""
    return (1.0 + v) / 2.0


def _from_unit(c: Any) -> Any:
    """``2 c - 1``: Harrell's C as Somers' D."""
    return 2.0 * c - 1.0


def _c_bound(n: int, k: Any) -> np.ndarray:
    """Largest change of Harrell's C (= tau~ without ties) when k of n responses are corrupted.

    Only the ``k(n-1) - k(k-1)/2`` pairs that involve a corrupted row can change, so
    ``|dT| <= k(n-1) - k(k-1)/2`` and ``|dC| <= 2 |dT| / (n(n-1))`` (``2/n`` for k = 1, attained
    from a perfect ranking), capped at the range 1.
    """
    k_arr = np.asarray(k, dtype=np.float64)
    pairs = k_arr * (n - 1) - k_arr * (k_arr - 1) / 2.0
    return np.minimum(2.0 * pairs / (n * (n - 1.0)), 1.0)


def _twice_c_bound(n: int, k: Any) -> np.ndarray:
    """Kendall's tau and Somers' D are ``2 C - 1`` without ties: twice C's bound."""
    return 2.0 * _c_bound(n, k)


def _rho_normalized_bound(n: int, k: Any) -> np.ndarray:
    """One corrupted row changes R by at most n(n-1)/2 (tight), so ``|d rho~| <= 3k/(n+1)``."""
    return np.minimum(3.0 * np.asarray(k, dtype=np.float64) / (n + 1.0), 1.0)


def _spearman_bound(n: int, k: Any) -> np.ndarray:
    return 2.0 * _rho_normalized_bound(n, k)


# Rosset, Perlich & Zadrozny (2005), Proposition 2, in its tight form; proven without ties.
_P2 = "proposition 2"
_TWICE_C_BOUND = BreakdownBound(_twice_c_bound, reference=_P2, requires_distinct=True)
_C_BOUND = BreakdownBound(_c_bound, reference=_P2, requires_distinct=True)


def _concordance_with_y(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Harrell's C is the concordance of the prediction with ``y_true`` itself."""
    return y, p, w


# DeLong's variance (ranklens.delong): C itself, and Somers' D = 2 C - 1.
_C_DELONG = ConcordanceForm(_concordance_with_y)
_D_DELONG = ConcordanceForm(_concordance_with_y, slope=2.0, intercept=-1.0)
_RHO_NORMALIZED_BOUND = BreakdownBound(_rho_normalized_bound, reference=_P2, requires_distinct=True)
_SPEARMAN_BOUND = BreakdownBound(_spearman_bound, reference=_P2, requires_distinct=True)


def _tau_variances(y: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    """Noether's plug-in variance of tau and its unbiased U-statistic version (unweighted)."""
    summary = ranking_summary(y, p)
    return summary.tau_variance, summary.tau_variance_unbiased


def _tau_interval(tau: float, variance: float, n: int, level: float) -> tuple[Any, ...]:
    """``(low, high, method, approximate, reason)`` of ``ranking_summary``'s interval of tau
    from its value, unbiased variance and rows (:func:`tau_confidence_interval`)."""
    ci, approximate, reason = tau_confidence_interval(tau, variance, n, level)
    return ci.low, ci.high, "fisher-z", approximate, reason


#: What each measure computes on a CUDA device when its inputs live there (the
#: docstrings' device paragraph, :func:`ranklens._foundation.docstrings.device_inputs`).
_ON_DEVICE_PAIRS = "exact pair counts, the same value as the CPU"
_ON_DEVICE_SUMMARY = (
    "the same exact counts, R and Noether sums, so every field equals the CPU result (floats "
    "to rounding), the interval and p-values formed on the host; with ``sample_weight``, the "
    "weighted point estimates (pair counts in int64, exact, for integer weights; the midrank "
    "sums of rho and R in float64, as on the CPU)"
)


@register_metric(
    "kendall_tau",
    plain_name="Kendall's tau",
    meaning="Agreement of the model's order with the true order, from -1 (reversed) to 1.",
    higher_is_better=True,
    family="ranking",
    batched=RankSweepForm(RankStatistic.KENDALL_TAU_B),
    leave_one_out=_loo_kendall_tau,
    breakdown=_TWICE_C_BOUND,
    variance=AnalyticVariance(
        _tau_variances,
        "noether",
        "Noether (1967)",
        bounds=(-1.0, 1.0),
        interval=_tau_interval,
        interval_reference=(
            "Fisher's z (Fieller, Hartley & Pearson 1957; Bonett & Wright 2000; Newson 2006)"
        ),
    ),
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_PAIRS)
@shared_paragraphs
def kendall_tau(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Kendall's tau-b between truth and prediction (Rosset, Perlich & Zadrozny 2005, eq. 4).

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    float
        tau-b in [-1, 1] (1: the prediction orders every pair as the truth does); NaN when either
        argument is constant.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    tau-b = (C - D) / sqrt((P - T_y)(P - T_p)) over pairs (P pairs, T_y / T_p tied in y / pred),
    equal to 1 - 4T/N without ties; pairs weighted by ``w_i w_j``. NaN and an
    ``UndefinedMetricWarning`` when either argument is constant.

    Without ties tau = 1 - 4T/N with T the number of discordant pairs and N = n(n - 1)
    (Rosset et al. 2005, eqs. 2 and 4). The papers assume no ties; with ties ranklens reports
    Kendall's tau-b, as :func:`scipy.stats.kendalltau` does, since 1 - 4T/N would count tied
    pairs as correctly ordered.

    %(device_inputs)s

    References
    ----------
    %(rosset2005)s

    Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3),
    239-251. doi:10.1093/biomet/33.3.239
    """
    return _point(y_true, y_pred, sample_weight, RankStatistic.KENDALL_TAU_B)


@register_metric(
    "spearman_rho",
    plain_name="Spearman's rho",
    meaning="Correlation between predicted and true ranks, from -1 to 1.",
    higher_is_better=True,
    family="ranking",
    batched=RankSweepForm(RankStatistic.SPEARMAN_RHO),
    leave_one_out=_loo_spearman_rho,
    breakdown=_SPEARMAN_BOUND,
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_PAIRS)
@shared_paragraphs
def spearman_rho(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Spearman's rho: Pearson correlation of midranks (Rosset, Perlich & Zadrozny 2005, eq. 5).

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    float
        rho in [-1, 1]; NaN when either argument is constant.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Equal to 1 - 12R/(n(n^2-1)) without ties. With weights: weighted Pearson correlation of
    weighted midranks W(<) + W(=)/2. NaN and an ``UndefinedMetricWarning`` for constant input.

    Without ties rho = 1 - 12R/(n(n^2 - 1)), with R the discordant pairs weighted by their
    distance in the model's ranking (Rosset et al. 2005, eqs. 3 and 5); R = sum_i (i - s_i)^2 / 2.
    With ties (which the papers exclude) ranklens uses midranks, as :func:`scipy.stats.spearmanr`
    does.

    %(device_inputs)s

    References
    ----------
    %(rosset2005)s

    Spearman, C. (1904). The proof and measurement of association between two things. *The
    American Journal of Psychology* 15(1), 72-101. doi:10.2307/1412159
    """
    return _point(y_true, y_pred, sample_weight, RankStatistic.SPEARMAN_RHO)


@register_metric(
    "tau_normalized",
    plain_name="share of pairs ordered right",
    meaning="Share of pairs of cases the model puts in the right order (0.5 = chance).",
    higher_is_better=True,
    family="ranking",
    batched=RankSweepForm(RankStatistic.HARRELL_C),
    leave_one_out=_loo_harrell_c,
    breakdown=_C_BOUND,
    delong=_C_DELONG,
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_PAIRS)
@shared_paragraphs
def tau_normalized(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Harrell's C: the fraction of pairs with different truth that the prediction orders correctly.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    float
        Harrell's C in [0, 1]: the probability that a random pair with different truth is ordered
        correctly; 1/2 for a random ranking.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    (concordant + tied-in-prediction/2) / pairs with distinct y = (1 + Somers' D(pred|y))/2; equal
    to tau~ = (1 + tau)/2 of Rosset, Perlich & Zadrozny (2005) without ties and to the AUC for
    binary y.

    The papers' tau~ = (1 + tau)/2 reads as "the probability of ordering a pair correctly"; with
    ties ranklens keeps that reading, which is Harrell's C = (1 + Somers' D(pred | y))/2, rather
    than (1 + tau-b)/2.

    %(device_inputs)s

    References
    ----------
    %(rosset2005)s

    Harrell, F. E., Lee, K. L. and Mark, D. B. (1996). Multivariable prognostic models: issues
    in developing models, evaluating assumptions and adequacy, and measuring and reducing errors.
    *Statistics in Medicine* 15(4), 361-387.

    Somers, R. H. (1962). A new asymmetric measure of association for ordinal variables.
    *American Sociological Review* 27(6), 799-811. doi:10.2307/2090408
    """
    return _point(y_true, y_pred, sample_weight, RankStatistic.HARRELL_C)


@register_metric(
    "rho_normalized",
    plain_name="normalised rank correlation",
    meaning="Spearman's rank correlation rescaled to 0 (reversed) to 1 (perfect).",
    higher_is_better=True,
    family="ranking",
    batched=RankSweepForm(RankStatistic.SPEARMAN_RHO, _to_unit),
    leave_one_out=_loo_rho_normalized,
    breakdown=_RHO_NORMALIZED_BOUND,
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_PAIRS)
@shared_paragraphs
def rho_normalized(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    """rho~ = (1 + rho)/2 (Rosset et al. 2005, Sect. 2): 1 for a perfect ranking, 0 for reversed.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    float
        (1 + rho)/2 in [0, 1]; NaN when either argument is constant.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    rho~ = (1 + rho)/2 with rho from :func:`spearman_rho` (midranks with ties). It is the area under
    the cutoff-AUC curve of :func:`cutoff_auc_curve` with x-widths i(n - i).

    %(device_inputs)s

    References
    ----------
    %(rosset2005)s
    """
    rho = _point(y_true, y_pred, sample_weight, RankStatistic.SPEARMAN_RHO)
    return (1 + rho) / 2


@register_metric(
    "somers_d",
    plain_name="Somers' D",
    meaning="How much more often pairs are ordered right than wrong, from -1 to 1.",
    higher_is_better=True,
    family="ranking",
    batched=RankSweepForm(RankStatistic.HARRELL_C, _from_unit),
    leave_one_out=_loo_somers_d,
    breakdown=_TWICE_C_BOUND,
    delong=_D_DELONG,
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_PAIRS)
@shared_paragraphs
def somers_d(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Somers' D of the prediction given the truth, D(y_pred | y_true) = 2 C - 1.

    Over the pairs of rows with different ``y_true`` (the pairs tied in ``y_true`` are left
    out), the fraction ordered the same way by the prediction minus the fraction ordered the
    opposite way; a pair tied in the prediction counts as neither:

    ``D = (n_c - n_d) / (n_c + n_d + n_p) = 2 C - 1``

    with ``n_c`` concordant, ``n_d`` discordant and ``n_p`` tied-in-prediction-only pairs, and
    ``C = (n_c + n_p / 2) / (n_c + n_d + n_p)`` Harrell's C (:func:`tau_normalized`). D is in
    [-1, 1], 1 for a prediction that orders every pair with different truth correctly, 0 for a
    constant prediction, -1 for the reversed order. Without ties it equals Kendall's tau; for a
    binary ``y_true`` it is the Gini coefficient ``2 AUC - 1`` (the accuracy ratio).

    Asymmetric: the truth defines which pairs count, so ``somers_d(y, p) != somers_d(p, y)`` in
    general. It equals ``scipy.stats.somersd(y_true, y_pred).statistic`` (scipy's
    ``somersd(x, y)`` is D(Y|X)).

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    float
        Higher is better; NaN with an :class:`~ranklens.exceptions.UndefinedMetricWarning` when
        ``y_true`` is constant (no pair with different truth).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Computed by the O(n log n) weighted rank sweep shared with Kendall's tau and Harrell's C.
    Removing row i removes exactly its own pairs, so the leave-one-out value of every row costs
    O(1) after one count. Corrupting the responses of k of n rows (without ties) changes D by at
    most ``2 |dC|``, i.e. ``4 (k(n-1) - k(k-1)/2) / (n(n-1))`` (``4/n`` for one row, capped at 2),
    twice the bound for C because ``D = 2C - 1`` (Rosset, Perlich & Zadrozny 2005, Prop. 2).

    %(device_inputs)s

    References
    ----------
    Somers, R. H. (1962). A new asymmetric measure of association for ordinal variables.
    American Sociological Review 27(6), 799-811.

    Newson, R. (2002). Parameters behind "nonparametric" statistics: Kendall's tau, Somers' D
    and median differences. The Stata Journal 2(1), 45-64.

    Harrell, F. E., Lee, K. L. & Mark, D. B. (1996). Multivariable prognostic models: issues in
    developing models, evaluating assumptions and adequacy, and measuring and reducing errors.
    Statistics in Medicine 15(4), 361-387.

    Examples
    --------
    >>> somers_d([1, 2, 3, 4], [1, 3, 2, 4])  # 5 concordant, 1 discordant of 6 pairs
    0.6666666666666666
    >>> somers_d([1, 2, 3, 4], [1, 1, 2, 2])  # 4 concordant, 2 tied in the prediction
    0.6666666666666666
    """
    return _point(y_true, y_pred, sample_weight, RankStatistic.SOMERS_D)


def _gamma(classes: Mapping[str, Any]) -> Any:
    """``(C - D) / (C + D)`` of the pair classes, NaN without an untied pair."""
    concordant, discordant = classes["concordant"], classes["discordant"]
    untied = np.asarray(concordant + discordant, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (concordant - discordant) / untied
    return np.where(untied > 0, np.clip(ratio, -1.0, 1.0), np.nan)


#: Goodman and Kruskal's gamma as a statistic of the rank sweep's pair classes.
GOODMAN_KRUSKAL_GAMMA = RankStatistic("Goodman and Kruskal's gamma", _gamma)


@register_metric(
    "goodman_kruskal_gamma",
    plain_name="Goodman and Kruskal's gamma",
    meaning="Pairs ordered right minus pairs ordered wrong, as a share of the pairs without ties.",
    higher_is_better=True,
    family="ranking",
    batched=RankSweepForm(GOODMAN_KRUSKAL_GAMMA),
    leave_one_out=functools.partial(rank_leave_one_out, statistic=GOODMAN_KRUSKAL_GAMMA),
    breakdown=_TWICE_C_BOUND,
)
@raises_input_errors("y_true", "y_pred")
@computes_where_inputs_live(_ON_DEVICE_PAIRS)
@shared_paragraphs
def goodman_kruskal_gamma(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
) -> float:
    """Goodman and Kruskal's gamma: concordant minus discordant pairs over the untied pairs.

    ``gamma = (n_c - n_d) / (n_c + n_d)``

    with ``n_c`` concordant and ``n_d`` discordant pairs of rows; a pair tied in ``y_true``, in
    the prediction or in both counts in neither. Gamma is in [-1, 1]: 1 when no untied pair is
    ordered the wrong way, -1 when none is ordered the right way. Without ties it equals
    Kendall's tau and Somers' D; with ties it is the largest of the three in absolute value,
    since it leaves every tied pair out of the denominator, so it suits coarse ordinal scales
    (grades, risk bands) where ties are by design.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    float
        Higher is better; NaN with an :class:`~ranklens.exceptions.UndefinedMetricWarning` when
        every pair is tied in ``y_true`` or in the prediction.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    A statistic of the pair classes of the O(n log n) weighted rank sweep shared with Kendall's
    tau and Harrell's C, so its bootstrap, its exact leave-one-out (removing row i removes
    exactly its own pairs), the Dask engine and device inputs all come from those classes.
    Without ties gamma equals tau-b, and corrupting the responses of k of n rows changes it by
    at most ``4 (k(n-1) - k(k-1)/2) / (n(n-1))`` (Rosset, Perlich & Zadrozny 2005, Prop. 2).

    %(device_inputs)s

    References
    ----------
    Goodman, L. A. and Kruskal, W. H. (1954). Measures of association for cross
    classifications. *Journal of the American Statistical Association* 49(268), 732-764.

    Agresti, A. (2010). *Analysis of Ordinal Categorical Data*, 2nd ed., section 7.1. Wiley.

    Examples
    --------
    >>> goodman_kruskal_gamma([1, 2, 3, 4], [1, 3, 2, 4])  # 5 concordant, 1 discordant
    0.6666666666666666
    >>> goodman_kruskal_gamma([1, 2, 3, 4], [1, 1, 2, 2])  # 4 concordant, 2 tied
    1.0
    """
    return _point(y_true, y_pred, sample_weight, GOODMAN_KRUSKAL_GAMMA)


def _point(y_true: Any, y_pred: Any, sample_weight: Any, statistic: RankStatistic) -> float:
    """``statistic`` of the rank sweep of the inputs, where they live, warning when undefined."""
    if _xm.on_device(y_true, y_pred, sample_weight):  # the device follows the data
        value = device_point(y_true, y_pred, sample_weight, statistic)
    else:
        y, p, w = _inputs(y_true, y_pred, sample_weight)
        value = rank_value(y, p, w, statistic)
    if math.isnan(value):
        warn_undefined(
            f"{statistic.name} is undefined: y_true or y_pred is constant (all pairs tied)",
            stacklevel=4,
        )
    return value


@raises_input_errors("y_true", "y_pred", probabilities=("confidence_level",))
@computes_where_inputs_live(_ON_DEVICE_SUMMARY)
@shared_paragraphs
def ranking_summary(
    y_true: ArrayLike,
    y_pred: ArrayLike,
    *,
    sample_weight: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> RankingSummary:
    """Every ranking measure of Rosset et al. (2005, 2007) for one model, exactly, in O(n log n).

    T and R (eqs. 2-3), Kendall's tau-b and Spearman's rho (eqs. 4-5), their [0, 1] forms, the
    Noether variance of tau (eq. 6 of the 2005 paper) with its unbiased U-statistic version,
    a Wald interval ``tau +- z sqrt(V_unbiased)`` and null-hypothesis p-values (2007 paper,
    Sect. 3.1).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights; pairs count ``w_i w_j`` (integer weights equal repeated rows).
        Point estimates only: the variance, interval and p-values need a sample size that case
        weights do not define, so they are NaN (with an ``UndefinedMetricWarning``); use a
        bootstrap instead.
    confidence_level : float, default 0.95

    Returns
    -------
    RankingSummary
        T, R, tau-b, rho, their [0, 1] forms, Somers' D, the Noether variances and interval of tau
        and the null p-values (see :class:`RankingSummary`).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Decisions where the papers are silent: with ties, tau is tau-b; ``tau_normalized`` is Harrell's
    C; the Noether variance is that of the delta-method linearisation of tau-b (the same U-statistic
    formulas applied to g_ij = h_ij/sqrt(by bp) - tau/2 (dy_ij/by + dp_ij/bp)), identical to eq. (6)
    without ties. The interval uses the unbiased variance (eq. 6 is biased low for small n).
    Without ties the p-values are exact at small n (the permutation distribution of the
    discordant pairs for tau, n <= 33, as scipy; Algorithm AS 89 for rho, n <= 1290, as R's
    ``cor.test``); otherwise the asymptotic normal (Kendall) and t (Spearman) approximations.

    %(device_inputs)s

    References
    ----------
    %(rosset2005)s

    %(rosset2007)s

    Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3),
    239-251. doi:10.1093/biomet/33.3.239

    Harrell, F. E., Lee, K. L. and Mark, D. B. (1996). Multivariable prognostic models: issues
    in developing models, evaluating assumptions and adequacy, and measuring and reducing errors.
    *Statistics in Medicine* 15(4), 361-387.

    Best, D. J. and Roberts, D. E. (1975). Algorithm AS 89: the upper tail probabilities of
    Spearman's rho. *Journal of the Royal Statistical Society, Series C* 24(3), 377-379.

    Examples
    --------
    >>> s = ranking_summary([1, 2, 3, 4, 5], [2, 1, 3, 5, 4])
    >>> s.discordant_pairs, s.weighted_discordance, s.kendall_tau, s.spearman_rho
    (2.0, 2.0, 0.6, 0.8)
    >>> s.exact_counts["discordant_pairs"]
    2
    """
    if _xm.on_device(y_true, y_pred, sample_weight):  # the device follows the data
        return _ranking_summary_on_device(y_true, y_pred, sample_weight, confidence_level)
    y, p = check_pair(y_true, y_pred)
    # Every weighted sum uses the weights rescaled to mean 1 (pairs of weights of 1e150 neither
    # overflow nor, at 1e-150, underflow); the counts go back to the scale given at the end.
    # Integer weights of moderate total stay as given, so their pair counts are exact.
    w, weight_scale = check_sample_weight_scaled(sample_weight, y.size, integers_as_given=True)
    level = check_probability(confidence_level, "confidence_level")
    n = int(y.size)
    if w is None and _routes.sweep_numpy(n):
        return _summary_from_sums(_routes.timed_summary_sums(y, p), level, stacklevel=4)
    stats, moments, limbs, fsums, order, key, pkey = rank_sweep(y, p, w)
    s = pair_class_stats(stats, exact=w is None)
    r_value: int | Fraction | float
    if w is None:
        rho, r_value = spearman_from_limbs(n, limbs)
    else:
        rho = weighted_spearman(fsums)
        r_value = float(fsums[1] - fsums[0] - fsums[3] / 2)
    tau, c_index = tau_c_from_classes(s)
    reasons = _undefined_reasons(s)
    if w is not None:
        assert isinstance(r_value, float)  # the weighted sweep's R, computed above
        counts = {name: s[name] for name in _PAIR_CLASSES}
        counts, r_value = _weighted_counts(counts, r_value, w, weight_scale, order, key, pkey)
        _warn_all([*reasons, _WEIGHTED_INFERENCE_SKIPPED])
        return _summary_result(n, counts, r_value, tau, rho, c_index, level)
    pred_sizes = np.diff(np.flatnonzero(np.r_[True, pkey[1:] != pkey[:-1], True]))
    inference = _unweighted_inference(
        n, s, moments, tau, rho, pred_sizes, np.bincount(key), reasons
    )
    _warn_all(reasons)
    return _summary_result(
        n, s, r_value, tau, rho, c_index, level, inference=inference, exact_counts=True
    )


def _weighted_counts(
    counts: dict[str, float],
    r_value: float,
    w: np.ndarray,
    scale: float,
    order: np.ndarray,
    key: np.ndarray,
    pkey: np.ndarray,
) -> tuple[dict[str, float], float]:
    """The weighted pair counts and R on the scale of the given weights ``w * scale``.

    The sweep counts pairs of different rows, ``w_i w_j``, so a pair class scales by ``scale^2``
    and R (pairs times a midrank distance) by ``scale^3``; the factors are applied one at a time
    so that a count that is a float is never lost to an intermediate overflow. Tied in both, the
    sweep's ``(sum_g W_g^2 - sum_i w_i^2) / 2`` leaves out the pairs among the copies of one row,
    which repeated rows have: it becomes ``sum_g W_g (W_g - 1) / 2`` over the groups of rows equal
    in both variables (``W_g`` on the given scale), each taken as 0 when ``W_g < 1`` (less than
    one observation has no pair; integer weights never get there).
    """
    out = {name: counts[name] * scale * scale for name in counts if name != "tied_both"}
    # groups equal in both variables are runs of the sequence (decreasing prediction, ties by y)
    w_seq = w[order]
    starts = np.flatnonzero(np.r_[True, (pkey[1:] != pkey[:-1]) | (key[1:] != key[:-1])])
    with np.errstate(over="ignore", under="ignore"):  # inf only for a count beyond any float
        group = np.add.reduceat(w_seq, starts) * scale
        out["tied_both"] = float(np.sum(group * np.maximum(group - 1.0, 0.0)) / 2.0)
    # Every class is a sum of non-negative terms; the weighted ones are differences of float sums
    # (e.g. tied in y only = (sum of squared y-group weights - joint ones) / 2), which round-off
    # can leave a few units in the last place below 0. A count is never negative: clip.
    out = {name: max(0.0, float(value)) for name, value in out.items()}
    return out, max(0.0, float(r_value) * scale * scale * scale)


# ---------------------------------------------------------------------------------------------
# Figure 1: per-observation concordance and its locally optimal envelope
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ConcordanceProfileResult(CurveResult):
    """Figure 1 of Rosset et al. (2005): per observation, in decreasing-prediction order.

    Attributes
    ----------
    row_index : ndarray of int
        Original row of each position (ties in the prediction by row index).
    fraction_correct : ndarray
        C_i / comparable_i: rows j with a different y that are ordered correctly relative to i
        (a tie in the prediction counts 1/2); C_i / (n - 1) without ties.
    envelope : ndarray
        E_i / comparable_i, the locally optimal envelope: the best fraction achievable by moving
        this one prediction anywhere among the others (>= ``fraction_correct``).
    area : float
        Comparable-weighted mean of ``fraction_correct`` = Harrell's C (= tau~ without ties).
    envelope_area : float
        The same mean of ``envelope``.
    """

    row_index: np.ndarray
    fraction_correct: np.ndarray
    envelope: np.ndarray
    area: float
    envelope_area: float

    y_field = "fraction_correct"
    x_label = "cases by decreasing prediction (share of cases)"
    y_label = "correctly ranked pairs (share)"

    @property
    def x(self) -> np.ndarray:
        """Position of each case as a share of the cases, ``(i + 1/2) / n``."""
        n = self.fraction_correct.shape[0]
        return (np.arange(n, dtype=np.float64) + 0.5) / max(n, 1)


def _concordance_profile_from_counts(
    weights: np.ndarray,
    y_index: np.ndarray,
    y_weights: np.ndarray,
    correct: np.ndarray,
    envelope: np.ndarray,
    row_index: np.ndarray,
    order: np.ndarray | None = None,
    stacklevel: int = 4,
) -> ConcordanceProfileResult:
    """:func:`concordance_profile` from per-row concordance counts (``CurveSpec.from_concordance``).

    Per row: its weight, the index of its ``y`` among the distinct values (increasing), its
    weight of correctly ordered partners (a tie in the prediction counting 1/2) and its position
    in the input (``row_index``); per distinct ``y``: its weight and the envelope ``E(v)``.
    The rows are in the order of the result (decreasing prediction, ties by row position), or
    ``order`` gives that order. Engines that sort the rows in pieces (:mod:`ranklens.dask`)
    call it with the buckets' counts laid end to end; the in-memory function calls it too.
    """
    # the weight of the other values of y: exactly 0 when y is constant, whatever the order in
    # which the weights were added
    comparable = y_weights.sum() - y_weights[y_index]
    envelope = envelope[y_index]
    # weighted partner counts are differences of float sums: a count that is 0 can come out
    # a few units in the last place below it (never by more), so clip at 0 (with unit weights
    # the counts are exact integers and the clip changes nothing)
    comparable = np.maximum(comparable, 0.0)
    # a row without a partner of another y has no pair to order (its weighted counts can come
    # out a few units in the last place from 0): its fraction is 0/0, NaN, never inf
    alone = comparable == 0
    correct = np.where(alone, 0.0, np.maximum(correct, 0.0))
    envelope = np.where(alone, 0.0, np.maximum(envelope, 0.0))
    shown = np.arange(weights.size) if order is None else order
    reasons = []
    denom = float(np.sum(weights * comparable))
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = correct / comparable
        env = envelope / comparable
    if denom > 0:
        area = float(np.sum(weights * correct) / denom)
        env_area = float(np.sum(weights * envelope) / denom)
    else:
        area = env_area = math.nan
        reasons.append("y_true is constant: no pair can be ordered, the profile is undefined")
    if denom > 0 and not np.all(comparable > 0):
        reasons.append("some rows have no partner with a different y_true: their fraction is NaN")
    _warn_all(reasons, stacklevel=stacklevel)
    return ConcordanceProfileResult(
        row_index=np.asarray(row_index)[shown],
        fraction_correct=frac[shown],
        envelope=env[shown],
        area=area,
        envelope_area=env_area,
    )


@register_curve(
    "concordance_profile", family="ranking", from_concordance=_concordance_profile_from_counts
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def concordance_profile(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> ConcordanceProfileResult:
    """Percent of correctly ranked pairs per observation and its locally optimal envelope.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    ConcordanceProfileResult
        Per observation in decreasing-prediction order: the share of its pairs ranked correctly,
        the locally optimal envelope, and the area (= Harrell's C).

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Rosset et al. (2005), Sect. 3.2, Figure 1: C_i = #{j<i: s_j < s_i} + #{j>i: s_j > s_i}
    (the text reverses the inequalities) and E_i = (n - s_i) + max_q sum_{t<=q} g_t, computed
    for every i by one sweep over a max segment tree, O(n log n).

    With ties, a row's comparable partners are the rows with a different ``y_true``; a tie in the
    prediction earns 1/2 in C_i; the envelope moves the prediction between the distinct predictions
    of the others. With ``sample_weight`` partners count ``w_j`` and the area weights rows by
    ``w_i * comparable_i``. ``area`` equals ``tau_normalized`` of :func:`ranking_summary`.

    References
    ----------
    %(rosset2005)s
    """
    y, p, w = _inputs(y_true, y_pred, sample_weight)
    weights, y_rank, ytot, correct, envelope, pred_rank = profile_counts(y, p, w)
    shown = _xs.order_by_pred(pred_rank)
    return _concordance_profile_from_counts(
        weights, y_rank, ytot, correct, envelope, np.arange(y.size), order=shown, stacklevel=5
    )


# ---------------------------------------------------------------------------------------------
# Figure 2: AUC at every cutoff; Figure 3: lift of the cumulative rank
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class CutoffAUCResult(CurveResult):
    """Figure 2 of Rosset et al. (2005): AUC_i at every cutoff (positives = the true top i).

    Attributes
    ----------
    n_positive : ndarray
        i, the number (weight) of positives at each cut; cuts lie between distinct y values.
    fraction_positive : ndarray
        i / n.
    auc : ndarray
        AUC_i = 1 - M_i / (i (n - i)), a tie in the prediction counting 1/2.
    pair_weight : ndarray
        The x-width of each cut: i (n - i) without ties; with ties in ``y_true`` times the midrank
        gap between the two values the cut separates.
    x_edges : ndarray
        Cumulative share of ``pair_weight`` (length m + 1, from 0 to 1): draw ``auc`` as bars
        between consecutive edges.
    area : float
        sum(pair_weight * auc) / sum(pair_weight) = rho~ without ties.
    """

    n_positive: np.ndarray
    fraction_positive: np.ndarray
    auc: np.ndarray
    pair_weight: np.ndarray
    x_edges: np.ndarray
    area: float

    x_field = "fraction_positive"
    y_field = "auc"
    x_label = "cutoff: share of cases counted as top"
    y_label = "AUC at the cutoff"

    def at(self, x: Any) -> Any:
        """AUC when the top share ``x`` of the truth is called positive.

        Linear between two cuts; before the first and after the last cut, the end value (NaN
        everywhere when there is no cut). The bootstrap bands read the curve the same way.

        Parameters
        ----------
        x : float or array-like
            Shares of the cases counted as top, in [0, 1].

        Returns
        -------
        float or ndarray
            The AUC at each share.
        """
        q = np.asarray(x, dtype=np.float64)
        if self.auc.size == 0:
            out = np.full(q.shape, np.nan)
        else:
            out = np.interp(q, self.fraction_positive, self.auc)
        return float(out) if out.ndim == 0 else out


def _positive_weight_rows(
    y_true: Any, y_pred: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The checked rows of positive weight, their weights (mean 1; ones unweighted), the scale."""
    y, p = check_pair(y_true, y_pred)
    w, weight_scale = check_sample_weight_scaled(sample_weight, y.size)
    if w is None:
        return y, p, np.ones(y.size), weight_scale
    keep = w > 0
    return y[keep], p[keep], w[keep], weight_scale


def _cutoff_auc_on_grid(result: CutoffAUCResult, grid: np.ndarray) -> np.ndarray:
    """AUC at each fraction of the truth called positive (:meth:`CutoffAUCResult.at`)."""
    return np.asarray(result.at(grid), dtype=np.float64)


def _sequence_state(y: np.ndarray, p: np.ndarray) -> tuple[Any, ...]:
    """The weight-free sort of the curve sweeps: ``(order, key, pkey, n_y)``."""
    order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p)  # small: NumPy, without numba
    return order, key, pkey, n_y


def _cutoff_auc_sweep(state: tuple[Any, ...], weights: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Cutoff AUC of each weight row at ``grid``
    (:func:`ranklens._compute.kernels.curve_sweeps`)."""
    order, key, pkey, n_y = state
    w = np.ascontiguousarray(weights)
    # a ratio of pair sums: weights of any scale are brought near 1 by one power of two first
    # (the same digits, as cutoff_auc_curve's rescaling to mean 1 keeps its sums representable)
    e = product_exponent(float(w.sum(axis=1).max())) if w.size else 0
    w = np.ldexp(w, -e) if e else w
    return _xpc.cutoff_auc_grid_host(w, order, key, pkey, n_y, grid)


def _rank_lift_sweep(state: tuple[Any, ...], weights: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Rank lift of each weight row at ``grid`` (:func:`ranklens._compute.kernels.curve_sweeps`)."""
    order, key, pkey, n_y = state
    w = np.ascontiguousarray(weights)
    return _xpc.rank_lift_grid_host(w, order, key, pkey, n_y, grid)


def _cutoff_auc_from_cuts(
    weights: Sequence[Any], sums: Sequence[Any], unit: bool
) -> CutoffAUCResult:
    """:func:`cutoff_auc_curve` from the distinct ``y`` values' weights and sums of
    weight x prediction midrank, in increasing ``y`` (Rosset, Perlich & Zadrozny 2005, Fig. 2).

    Cut ``c`` calls the ``c`` largest distinct values positive; with ``W_P`` their weight and
    ``a`` the prediction midrank ``W(<) + W(=)/2``, ``U_c = sum_pos w a - W_P^2 / 2`` (ties in
    the prediction count 1/2), the in-memory kernel's sum. Without weights ``sums`` hold sums of
    doubled 1-based midranks (``2 W(<) + W(=) + 1``) and ``U_c = (S - W_P (W_P + 1)) / 2``, in
    exact integers.
    """
    m = len(weights) - 1
    if m < 1:
        warn_undefined("y_true is constant: there is no cutoff, the curve is empty", stacklevel=2)
        empty = np.empty(0)
        return CutoffAUCResult(empty, empty, empty, empty, np.zeros(1), math.nan)
    positives = np.empty(m)
    u = np.empty(m)
    gap = np.empty(m)
    wp: Any = 0
    acc: Any = 0
    for c in range(m):
        v = m - c  # the c-th largest value joins the positives
        wp += weights[v]
        acc += sums[v]
        positives[c] = float(wp)
        u[c] = (acc - wp * (wp + 1)) / 2 if unit else acc - 0.5 * wp * wp
        gap[c] = 0.5 * (float(weights[v]) + float(weights[v - 1]))
    total = float(sum(weights)) if unit else math.fsum(weights)
    return _cutoff_auc_result(positives, u, gap, total)


def _cutoff_auc_result(
    positives: np.ndarray, u: np.ndarray, gap: np.ndarray, total: float, weight_scale: float = 1.0
) -> CutoffAUCResult:
    """The curve from each cut's positive weight, Mann-Whitney sum ``u`` and half-gap weight
    (Rosset, Perlich & Zadrozny 2005, Fig. 2): ``AUC_c = u_c / (P_c (W - P_c))`` and each cut's
    width ``gap_c P_c (W - P_c)``. ``weight_scale`` takes the counts back to the weights' given
    scale (positives: weight; widths: weight^3), one factor at a time."""
    pairs = positives * (total - positives)
    auc = np.clip(u / pairs, 0.0, 1.0)  # round-off in the weighted sums
    pair_weight = gap * pairs
    edges = np.concatenate(([0.0], np.cumsum(pair_weight) / pair_weight.sum()))
    area = float(np.sum(pair_weight * auc) / pair_weight.sum())
    if weight_scale == 1.0:
        return CutoffAUCResult(positives, positives / total, auc, pair_weight, edges, area)
    with np.errstate(over="ignore", under="ignore"):
        return CutoffAUCResult(
            n_positive=positives * weight_scale,
            fraction_positive=positives / total,
            auc=auc,
            pair_weight=pair_weight * weight_scale * weight_scale * weight_scale,
            x_edges=edges,
            area=area,
        )


@register_curve(
    "cutoff_auc",
    family="ranking",
    on_grid=_cutoff_auc_on_grid,
    sweep=CurveSweepForm(_sequence_state, _cutoff_auc_sweep, _xpc.prepare, _xpc.cutoff_auc_grid),
    from_cuts=_cutoff_auc_from_cuts,
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def cutoff_auc_curve(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> CutoffAUCResult:
    """AUC of the prediction for every split of the truth into top i versus the rest.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    CutoffAUCResult
        AUC_i at every cutoff i = 1..n-1 on the rescaled axis and the area under the curve.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Rosset, Perlich & Zadrozny (2005), Sect. 3.2, Figure 2: M_i = sum_{r<=i} pi(r) - i(i+1)/2 and
    AUC_i = 1 - M_i/(i(n-i)) from one sort and a cumulative sum; sum_i M_i = R, so with x-widths
    i(n-i) the area is rho~ (the text's class definition is corrected to y_j >= the i-th largest y).

    Ties: cuts only between distinct ``y_true`` values, prediction ties count 1/2 (midranks), and
    each cut's width is multiplied by the midrank gap it spans, so that the widths still add up
    the rank differences. Then ``area = (1 + cov(a, b)/var(b))/2`` for prediction midranks a and
    truth midranks b: rho~ whenever the two have the same tie structure (e.g. no ties), otherwise
    the Spearman analogue of Harrell's C (1 when every AUC is 1), as is :func:`rank_lift_curve`'s.

    References
    ----------
    %(rosset2005)s

    %(rosset2007)s
    """
    y, p, weights, weight_scale = _positive_weight_rows(y_true, y_pred, sample_weight)
    total = float(weights.sum())
    if y.size < 2 or y.min() == y.max():
        _warn_all(["y_true is constant: there is no cutoff, the curve is empty"])
        empty = np.empty(0)
        return CutoffAUCResult(empty, empty, empty, empty, np.zeros(1), math.nan)
    order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p)  # small: NumPy, without numba
    positives, u, gap = _xpc.cutoff_auc_sums_host(key, pkey, n_y, weights[order])
    return _cutoff_auc_result(positives, u, gap, total, weight_scale)


@dataclasses.dataclass(frozen=True)
class RankLiftResult(CurveResult):
    """Figure 3 of Rosset et al. (2005): lift curve of the cumulative inverse rank of the truth.

    Attributes
    ----------
    fraction_targeted : ndarray
        0, 1/n, ..., 1: the share targeted, in decreasing-prediction order.
    model : ndarray
        p_i = sum_{j<=i} (n - s_j + 1) as a share of its total (so 1 at the end).
    optimal, worst : ndarray
        The same for the perfect ranking sum_{j<=i} (n - j + 1) and the reversed one sum_{j<=i} j.
    area : float
        (area(model) - area(worst)) / (area(optimal) - area(worst)) = rho~ without ties.
    """

    fraction_targeted: np.ndarray
    model: np.ndarray
    optimal: np.ndarray
    worst: np.ndarray
    area: float

    x_field = "fraction_targeted"
    y_field = "model"
    x_label = "share of cases targeted (by decreasing prediction)"
    y_label = "cumulative inverse rank captured"

    def at(self, x: Any) -> Any:
        """The curve when the top share ``x`` is targeted (linear between the cases).

        Parameters
        ----------
        x : float or array-like
            Shares targeted, in [0, 1] (outside: the end value).

        Returns
        -------
        float or ndarray
            The share of the inverse rank captured at each ``x``.
        """
        out = np.interp(np.asarray(x, dtype=np.float64), self.fraction_targeted, self.model)
        return float(out) if out.ndim == 0 else out


def _rank_lift_on_grid(result: RankLiftResult, grid: np.ndarray) -> np.ndarray:
    return np.asarray(result.at(grid), dtype=np.float64)


def _rank_lift_from_sequence(
    w_seq: np.ndarray, key: np.ndarray, starts: np.ndarray, ytot: np.ndarray, offset: float
) -> RankLiftResult:
    """:func:`rank_lift_curve` from the rows in the order of the prediction.

    ``w_seq``: the weight of every row of positive weight, by decreasing prediction, ties by
    decreasing ``y`` then by row (``_compute.xp.sequence.sequence``); ``key``: the index of each
    row's ``y`` among the distinct values of ``y`` (increasing); ``starts``: the first position
    of every run of tied predictions; ``ytot``: the weight of each distinct ``y``; ``offset``:
    half an observation in the units of the weights. Engines that sort the rows in pieces
    (:mod:`ranklens.dask`) call it with the pieces laid end to end.
    """
    # The inverse rank of a row is its ascending midrank in the repeated sample, W(<) + W(=)/2
    # + 1/2 in observations. The weights are rescaled to mean 1 (units of weight_scale
    # observations), so the 1/2 becomes ``offset``; it adds ``offset * x`` to every curve, which
    # cancels in the normalised area, so the areas are taken without it (no cancellation of
    # large terms however large or small the weights are).
    midrank = np.cumsum(ytot) - ytot / 2
    mass_seq = w_seq * midrank[key]
    group_mean = np.add.reduceat(mass_seq, starts) / np.add.reduceat(w_seq, starts)
    sizes = np.diff(np.r_[starts, key.size])
    model = np.concatenate(([0.0], np.cumsum(w_seq * np.repeat(group_mean, sizes))))
    x = np.concatenate(([0.0], np.cumsum(w_seq)))
    # optimal / worst: whole y values at a time (rows of one value share their inverse rank)
    value_mass = ytot * midrank
    best_x = np.concatenate(([0.0], np.cumsum(ytot[::-1])))
    best = np.concatenate(([0.0], np.cumsum(value_mass[::-1])))
    worst_x = np.concatenate(([0.0], np.cumsum(ytot)))
    worst = np.concatenate(([0.0], np.cumsum(value_mass)))
    a_model = np.trapezoid(model, x)
    a_best = np.trapezoid(best, best_x)
    a_worst = np.trapezoid(worst, worst_x)
    if a_best - a_worst > 0:
        area = float((a_model - a_worst) / (a_best - a_worst))
    else:
        area = math.nan
        _warn_all(["y_true is constant: the rank lift area is undefined"])
    with np.errstate(over="ignore", invalid="ignore"):
        model = model + offset * x
        best = best + offset * best_x
        worst = worst + offset * worst_x
    total_w, total_mass = x[-1], model[-1]
    return RankLiftResult(
        fraction_targeted=x / total_w,
        model=model / total_mass,
        optimal=np.interp(x, best_x, best) / total_mass,
        worst=np.interp(x, worst_x, worst) / total_mass,
        area=area,
    )


@register_curve(
    "rank_lift",
    family="ranking",
    on_grid=_rank_lift_on_grid,
    sweep=CurveSweepForm(_sequence_state, _rank_lift_sweep, _xpc.prepare, _xpc.rank_lift_grid),
    from_sequence=_rank_lift_from_sequence,
)
@raises_input_errors("y_true", "y_pred")
@shared_paragraphs
def rank_lift_curve(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> RankLiftResult:
    """Cumulative inverse rank captured by targeting the top predictions first.

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    %(sample_weight_pairs)s

    Returns
    -------
    RankLiftResult
        The cumulative inverse rank captured, the optimal and worst curves and the normalised
        area.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    Rosset, Perlich & Zadrozny (2005), Sect. 3.2, Figure 3. The printed area identity
    "n^3 - n^2 - n - R + sum i^2" is false; the area normalised between the worst and the optimal
    curve is rho~ (exactly, since sum_i p_i = sum i^2 - R).

    Ties: the inverse rank is the midrank of ``y_true``; rows tied in the prediction share their
    mean inverse rank (the curve is the straight line across the tie, as a ROC curve is). With
    ties the normalised area is the Spearman analogue of Harrell's C described in
    :func:`cutoff_auc_curve` (the two areas agree). With ``sample_weight`` rows advance the x axis
    by their weight and add weight times inverse (weighted mid)rank.

    References
    ----------
    %(rosset2005)s
    """
    y, p, weights, weight_scale = _positive_weight_rows(y_true, y_pred, sample_weight)
    order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p)  # small: NumPy, without numba
    w_seq = weights[order]
    ytot = np.bincount(key, weights=w_seq, minlength=n_y)
    starts = np.flatnonzero(np.r_[True, pkey[1:] != pkey[:-1]])
    with np.errstate(over="ignore", divide="ignore"):
        offset = 0.5 / weight_scale
    return _rank_lift_from_sequence(w_seq, key, starts, ytot, offset)


# ---------------------------------------------------------------------------------------------
# Partial ranking (Rosset, Perlich & Zadrozny 2007, Sect. 5)
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PartialRankingResult(Result):
    """A partial ranking measure of Rosset, Perlich & Zadrozny (2007), Sect. 5.

    The formulas are garbled in the published text; ranklens reconstructs them so that the
    paper's Proposition 3 holds (one cut gives 2 AUC - 1, n bins give tau and rho).

    Attributes
    ----------
    statistic : float
        tau^p or rho^p, in [-1, 1].
    misordered : int, Fraction
        T^p (pairs from different bins in the wrong order) or R^p = sum over cuts of the
        misordered pairs M_{N_l}; a tie in the prediction counts 1/2.
    null_mean, null_variance : float
        Mean and variance of ``misordered`` under independence (random prediction order).
    pvalue : float
        Two-sided normal p-value of independence.
    percentiles : ndarray
        The cuts k_1 < ... < k_{p-1} (fractions of the data counted from the top).
    bin_sizes : ndarray of int
        n_1, ..., n_p: observations in each bin, top bin first.
    n : int
    """

    statistic: float
    misordered: Any
    null_mean: float
    null_variance: float
    pvalue: float
    percentiles: np.ndarray
    bin_sizes: np.ndarray
    n: int


def _check_percentiles(percentiles: Any) -> np.ndarray:
    try:
        k = np.atleast_1d(np.asarray(percentiles, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError(
            f"percentiles must be numbers in (0, 1); got {percentiles!r:.60}"
        ) from None
    if k.ndim != 1 or k.size == 0:
        raise ValueError(f"percentiles must be a non-empty 1-D sequence; got shape {k.shape}")
    if not np.all(np.isfinite(k)) or np.any(k <= 0) or np.any(k >= 1):
        hint = " (fractions, not percent: divide by 100)" if np.nanmax(k) >= 1 else ""
        raise ValueError(f"percentiles must lie strictly in (0, 1){hint}; got {k.tolist()}")
    if np.any(np.diff(k) <= 0):
        raise ValueError(f"percentiles must be strictly increasing; got {k.tolist()}")
    return k


def _bins(y: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bin (1 = top) of every row: b(r) = min{j : N_j >= r} at the true midrank r (1 = largest).

    Tied values share a midrank and so a bin; cuts N_l = n k_l need not be integers (a cut within
    1e-9 of an integer is snapped to it, so 0.3 * 10 is 3).
    """
    n = y.size
    cuts = n * k
    nearest = np.round(cuts)
    cuts = np.where(np.abs(cuts - nearest) < 1e-9 * max(1.0, n), nearest, cuts)
    y_rank, _ = _xs.dense_ranks(y, import_kernels=True)
    sizes = np.bincount(y_rank)
    below = np.cumsum(sizes) - sizes
    desc_mid = n - below[y_rank] - (sizes[y_rank] - 1) / 2  # 1 = largest
    bins = 1 + np.searchsorted(cuts, desc_mid, side="left")
    return bins, np.bincount(bins, minlength=k.size + 2)[1:]


@raises_input_errors("y_true", "y_pred", weights=False)
@shared_paragraphs
def partial_kendall_tau(
    y_true: ArrayLike, y_pred: ArrayLike, percentiles: Any
) -> PartialRankingResult:
    """Partial Kendall tau for percentile bins (Rosset, Perlich & Zadrozny 2007, Sect. 5).

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    percentiles : sequence of float
        Cut points ``0 < k_1 < ... < k_{p-1} < 1`` that split the true ranking into p bins, top
        first (e.g. ``[0.1, 0.5]``: top 10 %, next 40 %, bottom half).

    Returns
    -------
    PartialRankingResult
        T^p, tau^p, the bins and the null mean, variance and p-value.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    T^p = #{i<j : b(s_i) > b(s_j)}, tau^p = 1 - 4 T^p / (n^2 - sum n_j^2): only pairs in different
    bins count. One cut (p = 2) gives 2 AUC - 1, n bins give tau (Proposition 3). Worked example:
    n = 10, k = (0.2, 0.5) gives T^p = 5 and tau^p = 21/31.

    Ties: rows with equal ``y_true`` share a bin (by their midrank); a tie in the prediction between
    two bins counts 1/2 in T^p, so tau^p = Somers' D(pred | bin). Null: Var0(T^p) =
    [n^2(2n+3) - sum n_j^2(2n_j+3)]/72 without prediction ties (Jonckheere), Kendall's tie
    correction otherwise.

    References
    ----------
    %(rosset2007)s
    """
    y, p = check_pair(y_true, y_pred)
    k = _check_percentiles(percentiles)
    n = int(y.size)
    bins, bin_sizes = _bins(y, k)
    # the pair classes of (-bin, prediction): bins play the role of a heavily tied y_true
    stats, _, _, _, _, _, pkey = rank_sweep(-bins.astype(np.float64), p, None)
    pred_sizes = np.diff(np.flatnonzero(np.r_[True, pkey[1:] != pkey[:-1], True]))
    s = pair_class_stats(stats, exact=True)
    diff_pairs = s["distinct_y"]
    misordered = exact_number(s["discordant"] + Fraction(s["tied_pred_only"], 2))
    reasons = []
    if diff_pairs == 0:
        reasons.append("all observations fall in one bin: partial tau is undefined")
        statistic = pvalue = math.nan
        var0 = math.nan
    else:
        statistic = float(1 - Fraction(4) * misordered / (2 * diff_pairs))
        var_s = _kendall_null_variance(n, bin_sizes, pred_sizes)
        var0 = var_s / 4
        if var_s > 0:
            pvalue = _normal_two_sided((s["concordant"] - s["discordant"]) / math.sqrt(var_s))
        else:
            pvalue = math.nan
            reasons.append("y_pred is constant: the null p-value of partial tau is undefined")
    _warn_all(reasons)
    return PartialRankingResult(
        statistic=statistic,
        misordered=misordered,
        null_mean=diff_pairs / 2,
        null_variance=var0,
        pvalue=pvalue,
        percentiles=k,
        bin_sizes=bin_sizes,
        n=n,
    )


@raises_input_errors("y_true", "y_pred", weights=False)
@shared_paragraphs
def partial_spearman_rho(
    y_true: ArrayLike, y_pred: ArrayLike, percentiles: Any
) -> PartialRankingResult:
    """Partial Spearman rho for percentile bins (Rosset, Perlich & Zadrozny 2007, Sect. 5).

    Parameters
    ----------
    %(y_true_order)s
    %(y_pred_order)s
    percentiles : sequence of float
        Cut points ``0 < k_1 < ... < k_{p-1} < 1`` that split the true ranking into p bins, top
        first (e.g. ``[0.1, 0.5]``: top 10 %, next 40 %, bottom half).

    Returns
    -------
    PartialRankingResult
        R^p, rho^p, the bins and the null mean, variance and p-value.

    Raises
    ------
    %(input_errors)s

    Notes
    -----
    R^p = sum_{i<j} (b(s_i) - b(s_j))_+ = sum_l M_{N_l}, rho^p = 1 - 2 R^p / sum_l N_l (n - N_l):
    a weighted mean of 2 AUC - 1 over the cuts. One cut gives 2 AUC - 1, n bins give rho
    (Proposition 3). Worked example: n = 10, k = (0.2, 0.5) gives R^p = 6 and rho^p = 29/41.

    Ties as in :func:`partial_kendall_tau` (cut sizes N_l are the actual bin counts). Null:
    R^p is a linear rank statistic, Var0 = Var(pred midranks) * sum_j n_j (j - jbar)^2 / (n - 1)
    (= n(n+1)/12 * sum_j n_j (j - jbar)^2 without ties), E0 = sum_l N_l (n - N_l) / 2.

    References
    ----------
    %(rosset2007)s
    """
    y, p = check_pair(y_true, y_pred)
    k = _check_percentiles(percentiles)
    n = int(y.size)
    bins, bin_sizes = _bins(y, k)
    pred_rank, _ = _xs.dense_ranks(p, import_kernels=True)
    pred_sizes = np.bincount(pred_rank)
    mid2 = (2 * (np.cumsum(pred_sizes) - pred_sizes) + pred_sizes + 1)[pred_rank]  # 2 x midrank
    per_bin = np.bincount(bins, weights=mid2, minlength=k.size + 2)[1:]
    cum_mid2 = np.cumsum(np.round(per_bin).astype(np.int64))
    cum_size = np.cumsum(bin_sizes)
    misordered = Fraction(0)
    denom = 0
    for cut in range(k.size):
        i = int(cum_size[cut])
        if 0 < i < n:
            u = Fraction(int(cum_mid2[cut]), 2) - i * (i + 1) // 2
            misordered += i * (n - i) - u
            denom += i * (n - i)
    reasons = []
    if denom == 0:
        reasons.append("all observations fall in one bin: partial rho is undefined")
        statistic = pvalue = var0 = math.nan
    else:
        statistic = float(1 - 2 * misordered / denom)
        j = np.arange(1, k.size + 2, dtype=np.float64)
        jbar = float(np.sum(j * bin_sizes) / n)
        spread = float(np.sum(bin_sizes * (j - jbar) ** 2))
        var_pred = (n**3 - n - tie_cubes(pred_sizes)) / 12
        var0 = var_pred * spread / (n - 1)
        if var0 > 0:
            pvalue = _normal_two_sided(float(misordered - Fraction(denom, 2)) / math.sqrt(var0))
        else:
            pvalue = math.nan
            reasons.append("y_pred is constant: the null p-value of partial rho is undefined")
    _warn_all(reasons)
    return PartialRankingResult(
        statistic=statistic,
        misordered=exact_number(misordered),
        null_mean=denom / 2,
        null_variance=var0,
        pvalue=pvalue,
        percentiles=k,
        bin_sizes=bin_sizes,
        n=n,
    )
