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

The kernels only: :mod:`ranklens._compute.xp.delong` dispatches (its ``components``,
``components_many`` and ``covariance`` take NumPy forms on small unweighted data while these kernels
are not loaded, so that such a call does not import numba). No validation here: the public wrappers
(:mod:`ranklens.delong`, :func:`ranklens.roc_curve`) check their input. Nothing writes into a
caller's array.

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

import numpy as np
from numba import njit

from ranklens._compute.kernels.fenwick import fenwick_add, fenwick_prefix

__all__ = [
    "binary_components",
    "concordance_components",
    "influence",
    "stratified_products",
    "two_values",
    "weighted_sums",
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
def two_values(y, weight):
    """The distinct values of ``y`` on the rows of positive weight, counted up to 3 (O(n), no
    sort): whether ``y`` is binary.

    Parameters
    ----------
    y : ndarray of float64
        The response.
    weight : ndarray of float64
        Case weights; rows of weight 0 or less are skipped.

    Returns
    -------
    count : int
        0, 1, 2, or 3 for three or more distinct values.
    low, high : float
        The smaller and the larger of the first two distinct values found.
    """
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
            below = fenwick_prefix(tree, p_rank[r])
            tied = fenwick_prefix(tree, p_rank[r] + 1) - below
            psi[r] = below + 0.5 * tied
            block += weight[r]
        for k in range(start, stop):
            r = y_order[k]
            d[r] = total - block
            fenwick_add(tree, p_rank[r], weight[r])
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
            at_most = fenwick_prefix(tree, p_rank[r] + 1)
            tied = at_most - fenwick_prefix(tree, p_rank[r])
            psi[r] += (inserted - at_most) + 0.5 * tied
            block += weight[r]
        for k in range(start, stop):
            r = y_order[k]
            fenwick_add(tree, p_rank[r], weight[r])
        inserted += block
        stop = start
    return psi, d


@njit(cache=True)
def influence(psi, d, weight, estimate):
    """The influence ``phi_i = w_i (psi_i - C d_i)`` of each row on the concordance ``C``.

    Parameters
    ----------
    psi, d : ndarray of float64
        The components of each row (see the module docstring).
    weight : ndarray of float64
        Case weights.
    estimate : float
        The concordance ``C`` (0 when it is undefined).

    Returns
    -------
    ndarray of float64
        ``phi`` per row.
    """
    n = psi.shape[0]
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        out[i] = weight[i] * (psi[i] - estimate * d[i])
    return out


@njit(cache=True)
def weighted_sums(psi, d, weight):
    """The numerator and denominator of the concordance ``C = sum w psi / sum w d``.

    Parameters
    ----------
    psi, d : ndarray of float64
        The components of each row (see the module docstring).
    weight : ndarray of float64
        Case weights.

    Returns
    -------
    num, den : float
        ``sum w psi`` and ``sum w d``, summed in row order.
    """
    num = 0.0
    den = 0.0
    for i in range(psi.shape[0]):
        num += weight[i] * psi[i]
        den += weight[i] * d[i]
    return num, den


@njit(cache=True)
def stratified_products(phi_a, phi_b, stratum, n_strata):
    """Per stratum, the sum of the products of two models' influences (their covariance term).

    Parameters
    ----------
    phi_a, phi_b : ndarray of float64
        The influences of the two models, row by row.
    stratum : ndarray of int
        The stratum of each row, in ``0 .. n_strata - 1``.
    n_strata : int
        The number of strata.

    Returns
    -------
    ndarray of float64
        ``sum phi_a phi_b`` over the rows of each stratum, summed in row order.
    """
    out = np.zeros(n_strata, dtype=np.float64)
    for i in range(phi_a.shape[0]):
        out[stratum[i]] += phi_a[i] * phi_b[i]
    return out
