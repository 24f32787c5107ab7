"""DeLong's structural components of a concordance probability (AUC, Harrell's C), O(n log n).

A concordance probability ``C = sum_{i<j comparable} w_i w_j s_ij / sum_{comparable} w_i w_j``
(pairs *comparable* when their ``y`` differ; ``s_ij`` 1 when the prediction orders the pair as
``y`` does, 1/2 when it ties, 0 otherwise) is a ratio of two U-statistics. Its variance follows
from the per-row *structural components* (DeLong, DeLong & Clarke-Pearson 1988; Sen 1960)

``psi_i = sum_{j: y_j != y_i} w_j s_ij``  and  ``d_i = sum_{j: y_j != y_i} w_j``,

so that ``C = sum w psi / sum w d`` and the influence of row ``i`` is
``phi_i = w_i (psi_i - C d_i)``. Every (co)variance is then a sum of products of influences:

``Cov(C_a, C_b) = 4 / (sum w d)^2 * sum_g c_g sum_{i in g} phi_a,i phi_b,i``

over strata ``g`` with small-sample factors ``c_g = n_g / (n_g - 1)``. For a binary ``y`` the
strata are the two classes (the two-sample design of DeLong et al. 1988, class sizes fixed), and
the formula is exactly DeLong's ``S10 / m + S01 / n`` (with ``V10``, ``V01`` the components
``psi / d``); for any other ``y`` there is one stratum, the whole sample (Sen's 1960 one-sample
estimator, applied to the linearised ratio as in Newson 2006).

For a binary ``y`` the components are weighted midranks (Sun & Xu 2014): one sort of the
prediction and one sweep over its tie blocks. For any other ``y`` they need a two-dimensional
count: the rows in order of ``y`` and a Fenwick tree over the prediction ranks, both ways.

No validation here: the public wrappers (:mod:`ranklens.delong`, :func:`ranklens.roc_curve`)
check their input. Nothing writes into a caller's array.

References
----------
DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two or
more correlated receiver operating characteristic curves: a nonparametric approach.
*Biometrics* 44(3), 837-845. doi:10.2307/2531595

Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
under correlated receiver operating characteristic curves. *IEEE Signal Processing Letters*
21(11), 1389-1393. doi:10.1109/LSP.2014.2337313

Sen, P. K. (1960). On some convergence properties of U-statistics. *Calcutta Statistical
Association Bulletin* 10(1), 1-18.

Newson, R. (2006). Confidence intervals for rank statistics: Somers' D and extensions.
*The Stata Journal* 6(3), 309-334.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from numba import njit

from ranklens._kernels.curves import descending_keys, radix_sort

__all__ = [
    "ConcordanceComponents",
    "binary_components",
    "components",
    "components_many",
    "concordance_components",
    "covariance",
    "grouped_binary_variance",
]


@njit(cache=True)
def binary_components(sorted_keys, payload, weight, weighted):
    """``psi`` per row for 0/1 events: weighted midranks over the tie blocks of the score.

    ``sorted_keys`` are the scores' keys in decreasing order of the score (equal keys: tied
    scores) and ``payload`` the rows carried along, ``2 * row + event``, so that the sweep reads
    memory sequentially and only writes (and, with ``weighted``, reads the weight of) each row.
    For an event row ``psi`` is the non-event weight scored below it plus half the tied
    non-event weight (``d`` is the total non-event weight); for a non-event row the event weight
    scored above it plus half the tied event weight.
    """
    n = sorted_keys.shape[0]
    w_event = 0.0
    w_total = 0.0
    for k in range(n):
        wk = weight[payload[k] >> 1] if weighted else 1.0
        w_total += wk
        if payload[k] & 1:
            w_event += wk
    w_non = w_total - w_event
    psi = np.empty(n, dtype=np.float64)
    above_event = 0.0
    above_non = 0.0
    start = 0
    while start < n:
        key = sorted_keys[start]
        stop = start + 1
        while stop < n and sorted_keys[stop] == key:
            stop += 1
        block_event = 0.0
        block_non = 0.0
        for k in range(start, stop):
            wk = weight[payload[k] >> 1] if weighted else 1.0
            if payload[k] & 1:
                block_event += wk
            else:
                block_non += wk
        v_event = (w_non - above_non - block_non) + 0.5 * block_non
        v_non = above_event + 0.5 * block_event
        for k in range(start, stop):
            psi[payload[k] >> 1] = v_event if payload[k] & 1 else v_non
        above_event += block_event
        above_non += block_non
        start = stop
    return psi


@njit(cache=True)
def _two_values(y, weight):
    """``(count, low, high)``: the distinct values of ``y`` on the rows of positive weight,
    counted up to 3, and the two smallest found (O(n), no sort)."""
    found = 0
    a = 0.0
    b = 0.0
    for i in range(y.shape[0]):
        if weight[i] <= 0.0:
            continue
        v = y[i]
        if found == 0:
            a = v
            found = 1
        elif v == a:
            continue
        elif found == 1:
            b = v
            found = 2
        elif v != b:
            return 3, min(a, b), max(a, b)
    return found, min(a, b), max(a, b)


@njit(cache=True)
def _dense_ranks(x, order):
    n = x.shape[0]
    rank = np.empty(n, dtype=np.int64)
    current = -1
    for k in range(n):
        r = order[k]
        if k == 0 or x[r] != x[order[k - 1]]:
            current += 1
        rank[r] = current
    return rank, current + 1


@njit(inline="always")
def _prefix(tree, r):
    # sum of the leaves 0..r-1
    total = 0.0
    while r > 0:
        total += tree[r]
        r -= r & (-r)
    return total


@njit(inline="always")
def _add(tree, r, v):
    # leaf r (0-based)
    r += 1
    size = tree.shape[0]
    while r < size:
        tree[r] += v
        r += r & (-r)


@njit(cache=True)
def concordance_components(y, score, weight, y_order, score_order):
    """``(psi, d)`` for any ``y``: two sweeps in order of ``y`` with a Fenwick tree of weights.

    ``y_order`` and ``score_order`` sort ``y`` and ``score`` increasingly. Rows tied in ``y`` are
    queried together before any of them is inserted, so they never count each other.
    """
    n = y.shape[0]
    p_rank, n_ranks = _dense_ranks(score, score_order)
    psi = np.zeros(n, dtype=np.float64)
    d = np.empty(n, dtype=np.float64)
    total = 0.0
    for i in range(n):
        total += weight[i]
    tree = np.zeros(n_ranks + 1, dtype=np.float64)
    # Increasing y: the rows below in y count when they are below in the score.
    inserted = 0.0
    start = 0
    while start < n:
        v = y[y_order[start]]
        stop = start + 1
        while stop < n and y[y_order[stop]] == v:
            stop += 1
        block = 0.0
        for k in range(start, stop):
            r = y_order[k]
            below = _prefix(tree, p_rank[r])
            tied = _prefix(tree, p_rank[r] + 1) - below
            psi[r] = below + 0.5 * tied
            block += weight[r]
        for k in range(start, stop):
            r = y_order[k]
            d[r] = total - block
            _add(tree, p_rank[r], weight[r])
        inserted += block
        start = stop
    # Decreasing y: the rows above in y count when they are above in the score.
    tree[:] = 0.0
    inserted = 0.0
    stop = n
    while stop > 0:
        v = y[y_order[stop - 1]]
        start = stop - 1
        while start > 0 and y[y_order[start - 1]] == v:
            start -= 1
        block = 0.0
        for k in range(start, stop):
            r = y_order[k]
            at_most = _prefix(tree, p_rank[r] + 1)
            tied = at_most - _prefix(tree, p_rank[r])
            psi[r] += (inserted - at_most) + 0.5 * tied
            block += weight[r]
        for k in range(start, stop):
            r = y_order[k]
            _add(tree, p_rank[r], weight[r])
        inserted += block
        stop = start
    return psi, d


@njit(cache=True)
def _influence(psi, d, weight, estimate):
    n = psi.shape[0]
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        out[i] = weight[i] * (psi[i] - estimate * d[i])
    return out


@njit(cache=True)
def _weighted_sums(psi, d, weight):
    num = 0.0
    den = 0.0
    for i in range(psi.shape[0]):
        num += weight[i] * psi[i]
        den += weight[i] * d[i]
    return num, den


@njit(cache=True)
def _stratified_products(phi_a, phi_b, stratum, n_strata):
    out = np.zeros(n_strata, dtype=np.float64)
    for i in range(phi_a.shape[0]):
        out[stratum[i]] += phi_a[i] * phi_b[i]
    return out


@dataclasses.dataclass(frozen=True)
class ConcordanceComponents:
    """One model's concordance probability and its per-row influences.

    Attributes
    ----------
    estimate : float
        ``C = sum w psi / sum w d`` (NaN without comparable pairs).
    influence : ndarray
        ``phi_i = w_i (psi_i - C d_i)``.
    denominator : float
        ``sum w d`` (twice the weight of the comparable pairs).
    stratum : ndarray of int64
        Stratum of each row (the class of a binary ``y``, else 0).
    factors : ndarray
        ``n_g / (n_g - 1)`` per stratum, ``n_g`` its rows of positive weight (NaN below 2).
    binary : bool
        ``y`` takes exactly two values on the rows of positive weight (the AUC, two strata).
    """

    estimate: float
    influence: np.ndarray
    denominator: float
    stratum: np.ndarray
    factors: np.ndarray
    binary: bool


def components(
    y: np.ndarray, score: np.ndarray, weight: np.ndarray | None
) -> ConcordanceComponents:
    """The components of ``score``'s concordance with ``y`` (float64 arrays, weights >= 0)."""
    return components_many(y, score[None, :], weight)[0]


#: Below this many rows an unweighted call made while the kernels of this module have no machine
#: code in the process forms the components by comparing every pair of rows in NumPy
#: (:func:`_unit_components`): with unit weights every component is a multiple of 1/2 below
#: 2**53, so the numbers are the kernels' bit for bit, and a first call compiles nothing (the
#: kernels cost seconds to compile, the comparison a tenth of a second at 4,096 rows).
#: ``ranklens warmup`` sets it to 0 so that it compiles the kernels.
NUMPY_BELOW = 1 << 12
_PAIR_BLOCK = 256


def _numpy_route(weight: np.ndarray | None, n: int) -> bool:
    """Whether an unweighted call on ``n`` rows takes the NumPy comparison (see NUMPY_BELOW)."""
    return (
        weight is None
        and n < NUMPY_BELOW
        and not (_influence.signatures or _weighted_sums.signatures)
    )


def _numpy_products(n: int) -> bool:
    """Whether :func:`covariance` on ``n`` rows sums its products in NumPy (see NUMPY_BELOW)."""
    return n < NUMPY_BELOW and not _stratified_products.signatures


def _unit_components(y: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(psi, d)`` with unit weights by comparing every pair of rows, O(n^2) in blocks:
    ``psi_i`` counts the rows of another ``y`` that ``score`` orders as ``y`` does, ties 1/2;
    ``d_i`` the rows of another ``y``."""
    n = y.shape[0]
    psi = np.empty(n)
    d = np.empty(n)
    for start in range(0, n, _PAIR_BLOCK):
        yi, si = y[start : start + _PAIR_BLOCK, None], score[start : start + _PAIR_BLOCK, None]
        y_low, y_high = y[None, :] < yi, y[None, :] > yi
        s_low, s_high, s_tie = score[None, :] < si, score[None, :] > si, score[None, :] == si
        right = np.sum((y_low & s_low) | (y_high & s_high), axis=1)
        tied = np.sum((y_low | y_high) & s_tie, axis=1)
        psi[start : start + _PAIR_BLOCK] = right + 0.5 * tied
        d[start : start + _PAIR_BLOCK] = np.sum(y_low | y_high, axis=1)
    return psi, d


def _unit_finish(
    psi: np.ndarray, d: np.ndarray, stratum: np.ndarray, binary: bool, factors: np.ndarray | None
) -> ConcordanceComponents:
    """:func:`_finish` with unit weights in NumPy: the sums are of multiples of 1/2 below 2**53
    (exact in any order) and the influence the kernel's products, one rounding each."""
    num, den = float(np.sum(psi)), float(np.sum(d))
    estimate = num / den if den > 0 else math.nan
    phi = psi - (estimate if den > 0 else 0.0) * d
    if factors is None:
        factors = _factors(stratum, np.ones(psi.shape[0]))
    return ConcordanceComponents(float(estimate), phi, float(den), stratum, factors, binary)


def components_many(
    y: np.ndarray, scores: np.ndarray, weight: np.ndarray | None
) -> list[ConcordanceComponents]:
    """:func:`components` of every row of ``scores`` (models, n), sharing the work on ``y``."""
    n = y.shape[0]
    w = np.ones(n) if weight is None else weight
    if _numpy_route(weight, n):
        values = np.unique(y)  # all rows have weight 1
        binary = values.size == 2
        stratum = (y == values[-1]).astype(np.int64) if binary else np.zeros(n, dtype=np.int64)
        factors = _factors(stratum, w)
        return [
            _unit_finish(*_unit_components(y, score), stratum, binary, factors) for score in scores
        ]
    n_values, _, high = _two_values(y, w)
    binary = n_values == 2
    out = []
    if binary:
        event = y == high
        w_event = float(event.sum()) if weight is None else float(w[event].sum())
        d = np.where(event, float(w.sum()) - w_event, w_event)
        stratum = event.astype(np.int64)
        # One radix sort by decreasing score carrying (row, event): the sweep reads sequentially.
        rows: np.ndarray = np.arange(n, dtype=np.int32 if n < (1 << 30) else np.int64)
        payload = np.left_shift(rows, 1) | event
        factors = _factors(stratum, w)  # the same for every model
        for score in scores:
            sorted_key, sorted_load = radix_sort(descending_keys(score), payload, True)
            psi = binary_components(sorted_key, sorted_load, w, weight is not None)
            out.append(_finish(psi, d, w, stratum, binary, factors))
    else:
        y_order = np.argsort(y, kind="quicksort")
        stratum = np.zeros(n, dtype=np.int64)
        for score in scores:
            score_order = np.argsort(score, kind="quicksort")
            psi, d = concordance_components(y, score, w, y_order, score_order)
            out.append(_finish(psi, d, w, stratum, binary))
    return out


def _factors(stratum: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``n_g / (n_g - 1)`` per stratum, ``n_g`` its rows of positive weight (NaN below 2)."""
    counts = np.bincount(stratum[w > 0], minlength=int(stratum.max()) + 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts >= 2, counts / (counts - 1.0), np.nan)


def _finish(
    psi: np.ndarray,
    d: np.ndarray,
    w: np.ndarray,
    stratum: np.ndarray,
    binary: bool,
    factors: np.ndarray | None = None,
) -> ConcordanceComponents:
    num, den = _weighted_sums(psi, d, w)
    estimate = num / den if den > 0 else math.nan
    phi = _influence(psi, d, w, estimate if den > 0 else 0.0)
    if factors is None:
        factors = _factors(stratum, w)
    return ConcordanceComponents(float(estimate), phi, float(den), stratum, factors, binary)


def covariance(a: ConcordanceComponents, b: ConcordanceComponents) -> float:
    """``Cov(C_a, C_b)`` of two models' concordances on the same rows (``a is b``: variance)."""
    if not (a.denominator > 0 and math.isfinite(a.estimate) and math.isfinite(b.estimate)):
        return math.nan
    if np.isnan(a.factors).any():  # a stratum (class) with a single row: no variance estimate
        return math.nan
    if _numpy_products(a.influence.shape[0]):
        # the kernel's loop in NumPy: each stratum's products added in row order (ufunc.at is
        # unbuffered and sequential), the same sums bit for bit
        sums = np.zeros(a.factors.shape[0])
        np.add.at(sums, a.stratum, a.influence * b.influence)
    else:
        sums = _stratified_products(a.influence, b.influence, a.stratum, a.factors.shape[0])
    total = float(np.sum(a.factors * sums))
    return 4.0 * total / (a.denominator * a.denominator)


def grouped_binary_variance(events: np.ndarray, nonevents: np.ndarray, auc: float) -> float:
    """DeLong's ``Var(AUC)`` from unweighted event and non-event counts per tie block of scores.

    ``events[k]`` and ``nonevents[k]`` count the rows of the k-th distinct score, in decreasing
    order of the score (the increments of an ROC curve). Within a block every event has the same
    component, and every non-event, so the variance needs no per-row pass: O(blocks).
    """
    p = float(events.sum())
    n = float(nonevents.sum())
    if p < 2 or n < 2 or not math.isfinite(auc):
        return math.nan
    cum_events = np.cumsum(events)
    cum_non = np.cumsum(nonevents)
    v10 = (n - cum_non + 0.5 * nonevents) / n  # non-events scored below, ties 1/2
    v01 = (cum_events - 0.5 * events) / p  # events scored above, ties 1/2
    s10 = float(events @ (v10 - auc) ** 2) / (p * (p - 1.0))
    s01 = float(nonevents @ (v01 - auc) ** 2) / (n * (n - 1.0))
    return s10 + s01
