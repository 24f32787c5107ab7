"""Kernels for NDCG: tie-averaged DCG over positions that may be fractional (case weights).

An item of weight w occupies the stretch (c, c + w] of the list, where c is the total weight ranked
above it, and position t in that stretch is discounted by D(ceil t) = 1 / log2(ceil t + 1). For
integer weights this is exactly the list with rows repeated; positions beyond ``k`` count zero.
Long stretches (large tie blocks or large weights) are summed by Euler-Maclaurin with an accurate
integral, so the cost is O(number of items), never O(total weight).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

LN2 = math.log(2.0)
# Stretches shorter than this are summed term by term; longer ones by Euler-Maclaurin, whose
# remainder after the f''' term is below 1e-16 once positions exceed this.
DIRECT_LIMIT = 256
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(10)


@njit(cache=True)
def discount(position: float) -> float:
    """D(p) = 1 / log2(p + 1) for position p >= 1."""
    return LN2 / math.log1p(position)


@njit(cache=True)
def _discount_integral(a: float, b: float) -> float:
    """Integral of 1 / log2(t + 1) over [a, b]: with t + 1 = e^s it is ln 2 * int e^s / s ds.

    Gauss-Legendre on pieces of length <= 0.5 in s; the integrand is analytic and positive, so this
    is accurate to rounding.
    """
    s0 = math.log1p(a)
    s1 = math.log1p(b)
    pieces = max(1, math.ceil((s1 - s0) / 0.5))
    h = (s1 - s0) / pieces
    total = 0.0
    for j in range(pieces):
        mid = s0 + (j + 0.5) * h
        part = 0.0
        for q in range(_GL_NODES.shape[0]):
            s = mid + 0.5 * h * _GL_NODES[q]
            part += _GL_WEIGHTS[q] * math.exp(s) / s
        total += 0.5 * h * part
    return LN2 * total


@njit(cache=True)
def _d1(t: float) -> float:
    s = t + 1.0
    lg = math.log(s)
    return -LN2 / (s * lg * lg)


@njit(cache=True)
def _d3(t: float) -> float:
    s = t + 1.0
    lg = math.log(s)
    return -LN2 * (2.0 * lg * lg + 6.0 * lg + 6.0) / (s * s * s * lg**4)


#: Above this position a float64 no longer holds every whole number (the positions of case
#: weights near 1e200): such stretches are never summed term by term.
EXACT_POSITIONS = 2.0**53


@njit(cache=True)
def sum_discounts(first: float, last: float) -> float:
    """Sum of D(p) for whole p = first..last (0 when last < first).

    ``first`` and ``last`` are whole numbers, integers or floats of any size: positions beyond
    :data:`EXACT_POSITIONS` (case weights near 1e200 make the list that long) are summed by
    Euler-Maclaurin like any long stretch, never converted to a machine integer.
    """
    lo = float(first)
    hi = float(last)
    if hi < lo:
        return 0.0
    total = 0.0
    # short stretches and small positions term by term, the rest by Euler-Maclaurin
    if hi - lo < DIRECT_LIMIT and hi < EXACT_POSITIONS:
        direct_end = hi
    else:
        direct_end = min(hi, DIRECT_LIMIT - 1.0)
    if lo <= direct_end:
        for p in range(int(lo), int(direct_end) + 1):
            total += LN2 / math.log1p(p)
    a = max(lo, direct_end + 1.0)
    if a > hi:
        return total
    b = hi
    return total + (
        _discount_integral(a, b)
        + 0.5 * (discount(a) + discount(b))
        + (_d1(b) - _d1(a)) / 12.0
        - (_d3(b) - _d3(a)) / 720.0
    )


@njit(cache=True)
def span_discount(start: float, end: float, k: float) -> float:
    """Integral of D(ceil t) over t in (start, end], with positions beyond ``k`` counting zero."""
    if end > k:
        end = k
    if end <= start:
        return 0.0
    # np.floor and np.ceil stay floats (numba's math.floor is an int64, which positions beyond
    # 2**63, from case weights near 1e200, would overflow)
    first = np.floor(start) + 1.0  # first position touched
    last = np.ceil(end)  # last position touched
    if last == first:
        return (end - start) * discount(first)
    total = (first - start) * discount(first) + (end - (last - 1.0)) * discount(last)
    return total + sum_discounts(first + 1.0, last - 1.0)


@njit(cache=True)
def gain(y: float, y_max: float, exponential: bool) -> float:
    """Gain of relevance y divided by the gain of y_max (> 0): y / y_max or (2^y - 1) / 2^y_max.

    Dividing by a per-list constant leaves NDCG unchanged and keeps 2^y from overflowing.
    """
    if not exponential:
        return y / y_max
    if y < 1.0:
        return math.expm1(y * LN2) * 2.0 ** (-y_max)
    return 2.0 ** (y - y_max) - 2.0 ** (-y_max)


@njit(cache=True)
def tie_averaged_dcg_from(
    y_sorted: np.ndarray,
    key_sorted: np.ndarray,
    w_sorted: np.ndarray,
    weighted: bool,
    y_max: float,
    exponential: bool,
    k: float,
    start: float,
) -> float:
    """DCG of a list in decreasing ``key`` order, items tied in ``key`` sharing their mean gain,
    placed after ``start`` positions (0.0: the whole list; else the total weight ranked above a
    run of whole tie blocks, and the result the run's share of the DCG of the full list)."""
    n = y_sorted.shape[0]
    total = 0.0
    position = start
    i = 0
    while i < n and position < k:
        gain_sum = 0.0
        weight_sum = 0.0
        j = i
        while j < n and key_sorted[j] == key_sorted[i]:
            w = w_sorted[j] if weighted else 1.0
            gain_sum += w * gain(y_sorted[j], y_max, exponential)
            weight_sum += w
            j += 1
        if weight_sum > 0.0:
            total += gain_sum / weight_sum * span_discount(position, position + weight_sum, k)
        position += weight_sum
        i = j
    return total


@njit(cache=True)
def grouped_ndcg(
    y_by_pred: np.ndarray,
    pred_keys: np.ndarray,
    w_by_pred: np.ndarray,
    y_by_true: np.ndarray,
    true_keys: np.ndarray,
    w_by_true: np.ndarray,
    starts_pred: np.ndarray,
    starts_true: np.ndarray,
    weighted: bool,
    exponential: bool,
    k: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-group DCG and ideal DCG (both divided by the group's largest gain).

    Rows are sorted by group, then by decreasing prediction (``*_by_pred``; ties are equal
    ``pred_keys``) or decreasing truth (``*_by_true``). Group g occupies rows
    ``starts_pred[g]:starts_pred[g + 1]`` of the first and ``starts_true[g]:starts_true[g + 1]``
    of the second (the lists may differ in length when only the top k were kept).
    """
    n_groups = starts_pred.shape[0] - 1
    dcg = np.zeros(n_groups)
    ideal = np.zeros(n_groups)
    for g in range(n_groups):
        lo_t = starts_true[g]
        hi_t = starts_true[g + 1]
        y_max = y_by_true[lo_t]
        if y_max <= 0.0:
            continue  # no relevant item: NDCG undefined, left to the caller
        ideal[g] = tie_averaged_dcg_from(
            y_by_true[lo_t:hi_t],
            true_keys[lo_t:hi_t],
            w_by_true[lo_t:hi_t] if weighted else w_by_true,
            weighted,
            y_max,
            exponential,
            k,
            0.0,
        )
        lo_p = starts_pred[g]
        hi_p = starts_pred[g + 1]
        dcg[g] = tie_averaged_dcg_from(
            y_by_pred[lo_p:hi_p],
            pred_keys[lo_p:hi_p],
            w_by_pred[lo_p:hi_p] if weighted else w_by_pred,
            weighted,
            y_max,
            exponential,
            k,
            0.0,
        )
    return dcg, ideal


@njit(cache=True)
def rank_distance_ndcg_kernel(distance: np.ndarray, n: int) -> float:
    """(sum w_i 2^-d_i - 2^-n W) / ((1 - 2^-n) W), w_i = 1/log2(i + 1): the stable form."""
    weighted_sum = 0.0
    weight_total = 0.0
    for i in range(distance.shape[0]):
        w = LN2 / math.log1p(i + 1.0)
        weighted_sum += w * 2.0 ** (-distance[i])
        weight_total += w
    tail = 2.0 ** (-float(n))
    return (weighted_sum - tail * weight_total) / ((1.0 - tail) * weight_total)
