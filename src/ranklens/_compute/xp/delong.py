"""DeLong's structural components of a concordance probability, without importing numba.

The dispatching half of :mod:`ranklens._compute.kernels.delong` (which explains the components, the
influences and the stratified covariance in full): :func:`components`, :func:`components_many` and
:func:`covariance` decide per call between the numba kernels and their NumPy forms, and
:func:`grouped_binary_variance` (O(blocks), NumPy only). An unweighted call on fewer than
``ranklens._foundation.route.POLICY.delong_numpy_below`` rows while the kernels have no machine code
in the process forms the components by comparing every pair of rows in NumPy; the numbers are the
kernels' bit for bit (with unit weights every component is a multiple of 1/2 below 2**53, so every
sum is exact in any order). :mod:`ranklens._compute.kernels.delong`, and with it numba, is imported
only when a call takes the kernels: a small warm ``ranklens evaluate`` does not import numba for
DeLong's intervals.

The concordance ``C = sum w psi / sum w d`` and the influence ``phi_i = w_i (psi_i - C d_i)``
give ``Cov(C_a, C_b) = 4 / (sum w d)^2 * sum_g c_g sum_{i in g} phi_a,i phi_b,i`` over strata
``g`` (the two classes of a binary ``y``, else the whole sample), ``c_g = n_g / (n_g - 1)``.

References: those of :mod:`ranklens._compute.kernels.delong` (DeLong et al. 1988, Sun & Xu 2014, Sen
1960).
"""

from __future__ import annotations

import dataclasses
import math
import sys

import numpy as np

from ranklens._compute.xp.ranked_keys import descending_keys, radix_sort
from ranklens._foundation.route import POLICY
from ranklens._foundation.scaling import product_exponent

__all__ = [
    "ConcordanceComponents",
    "components",
    "components_many",
    "covariance",
    "grouped_binary_variance",
]

_KERNELS = "ranklens._compute.kernels.delong"


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


_PAIR_BLOCK = 256


def _kernel_ready(*names: str) -> bool:
    """Whether one of the kernels ``names`` has machine code in this process (its module is
    imported and the dispatcher has a signature); decided without importing numba."""
    module = sys.modules.get(_KERNELS)
    return module is not None and any(getattr(module, name).signatures for name in names)


def _numpy_route(weight: np.ndarray | None, n: int) -> bool:
    """Whether an unweighted call on ``n`` rows takes the NumPy comparison
    (:func:`_unit_components`): below ``POLICY.delong_numpy_below`` rows
    (:mod:`ranklens._foundation.route`) while the kernels have no machine code in the process."""
    return (
        weight is None
        and n < POLICY.delong_numpy_below
        and not _kernel_ready("influence", "weighted_sums")
    )


def _numpy_products(n: int) -> bool:
    """Whether :func:`covariance` on ``n`` rows sums its products in NumPy (below
    ``POLICY.delong_numpy_below`` rows, while the kernel has no machine code)."""
    return n < POLICY.delong_numpy_below and not _kernel_ready("stratified_products")


def components(
    y: np.ndarray, score: np.ndarray, weight: np.ndarray | None
) -> ConcordanceComponents:
    """The components of ``score``'s concordance with ``y`` (float64 arrays, weights >= 0)."""
    return components_many(y, score[None, :], weight)[0]


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
    if weight is not None:
        # Every result is a ratio of sums of up to four weights: weights of any scale are brought
        # near 1 by a power of two first (the same digits; nothing copied for ordinary weights).
        e = product_exponent(float(weight.sum()))
        weight = np.ldexp(weight, -e) if e else weight
    w = np.ones(n) if weight is None else weight
    if _numpy_route(weight, n):
        values = np.unique(y)  # all rows have weight 1
        binary = values.size == 2
        stratum = (y == values[-1]).astype(np.int64) if binary else np.zeros(n, dtype=np.int64)
        factors = _factors(stratum, w)
        return [
            _unit_finish(*_unit_components(y, score), stratum, binary, factors) for score in scores
        ]
    from ranklens._compute.kernels import delong as _kd  # imports numba

    n_values, _, high = _kd.two_values(y, w)
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
            # the kernels' path (numba imported): the sorting kernels' rule decides
            keys = descending_keys(score, import_kernels=True)
            sorted_key, sorted_load = radix_sort(keys, payload, True, import_kernels=True)
            psi = _kd.binary_components(sorted_key, sorted_load, w, weight is not None)
            out.append(_finish(psi, d, w, stratum, binary, factors))
    else:
        y_order = np.argsort(y, kind="quicksort")
        stratum = np.zeros(n, dtype=np.int64)
        for score in scores:
            score_order = np.argsort(score, kind="quicksort")
            psi, d = _kd.concordance_components(y, score, w, y_order, score_order)
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
    """The estimate and the influences by the kernels (the caller took the kernel route)."""
    from ranklens._compute.kernels import delong as _kd

    num, den = _kd.weighted_sums(psi, d, w)
    estimate = num / den if den > 0 else math.nan
    phi = _kd.influence(psi, d, w, estimate if den > 0 else 0.0)
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
        from ranklens._compute.kernels import delong as _kd  # imports numba

        sums = _kd.stratified_products(a.influence, b.influence, a.stratum, a.factors.shape[0])
    total = float(np.sum(a.factors * sums))
    return 4.0 * total / (a.denominator * a.denominator)


def class_rows(part: ConcordanceComponents) -> np.ndarray:
    """Rows of positive weight in each stratum (class) of ``part``, from its factor
    ``n_g / (n_g - 1)`` (NaN for a stratum below 2 rows)."""
    f = part.factors
    with np.errstate(divide="ignore", invalid="ignore"):
        # n / (n - 1) inverted: integers up to rounding (10 rows must not read 9.999...)
        return np.where(np.isfinite(f) & (f > 1.0), np.rint(f / (f - 1.0)), np.nan)


def class_parts(part: ConcordanceComponents) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's variance of ``part``'s estimate, part by stratum (class), and the rows of each
    stratum: ``4 n_g/(n_g-1) sum_{i in g} phi_i^2 / D^2``; the parts add up to
    :func:`covariance` ``(part, part)``."""
    sums = np.zeros(part.factors.shape[0])
    np.add.at(sums, part.stratum, part.influence * part.influence)
    with np.errstate(invalid="ignore", divide="ignore"):
        parts = 4.0 * part.factors * sums / (part.denominator * part.denominator)
    return parts, class_rows(part)


def grouped_binary_parts(
    events: np.ndarray, nonevents: np.ndarray, auc: float
) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's ``Var(AUC)`` by class (events, non-events) and the rows of each class, from
    unweighted event and non-event counts per tie block of scores.

    ``events[k]`` and ``nonevents[k]`` count the rows of the k-th distinct score, in decreasing
    order of the score (the increments of an ROC curve). Within a block every event has the same
    component, and every non-event, so the variance needs no per-row pass: O(blocks). NaN parts
    with fewer than two rows in a class.
    """
    p = float(events.sum())
    n = float(nonevents.sum())
    rows = np.array([p, n])
    if p < 2 or n < 2 or not math.isfinite(auc):
        return np.full(2, math.nan), rows
    cum_events = np.cumsum(events)
    cum_non = np.cumsum(nonevents)
    v10 = (n - cum_non + 0.5 * nonevents) / n  # non-events scored below, ties 1/2
    v01 = (cum_events - 0.5 * events) / p  # events scored above, ties 1/2
    s10 = float(events @ (v10 - auc) ** 2) / (p * (p - 1.0))
    s01 = float(nonevents @ (v01 - auc) ** 2) / (n * (n - 1.0))
    return np.array([s10, s01]), rows


def grouped_binary_variance(events: np.ndarray, nonevents: np.ndarray, auc: float) -> float:
    """DeLong's ``Var(AUC)`` from unweighted event and non-event counts per tie block of scores
    (the sum of :func:`grouped_binary_parts`)."""
    parts, _ = grouped_binary_parts(events, nonevents, auc)
    return float(parts[0] + parts[1])
