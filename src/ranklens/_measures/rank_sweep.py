"""One rank sweep of ``(y, p)`` and what the rank measures read from it.

Kendall's tau-b, Harrell's C, Spearman's rho and the analytic variance of tau all come from one
sort of the rows by prediction and one sweep over them
(:func:`ranklens._compute.kernels.ranking.sweep`). The measures of :mod:`ranklens.ranking` and the
Dask engine (which sweeps each piece of the rows and adds the pieces' sums) read them here alike:
the sweep, the pair classes it counts, tau-b and C from those classes, and the U-statistic variances
of tau-b from its moments.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from ranklens._compute.xp import measure_routes as _routes
from ranklens._compute.xp import sequence as _xs
from ranklens._compute.xp.summary import envelope_by_comparison, pair_classes, per_row_pair_counts
from ranklens._foundation.forms import RankStatistic
from ranklens._foundation.shared import RANK_SEQUENCE, RANK_SWEEP, shared, sharing

__all__ = [
    "SUMMARY_CLASSES",
    "leave_one_out_classes",
    "noether_variances",
    "pair_class_stats",
    "pair_counts_per_row",
    "profile_counts",
    "rank_leave_one_out",
    "rank_sweep",
    "rank_value",
    "spearman_from_limbs",
    "spearman_from_sums",
    "tau_c_from_classes",
    "tie_cubes",
    "weighted_spearman",
]

# The sweep's unit weight and its empty per-row outputs (no per-row counts are kept).
_ONE = np.ones(1, np.int64)
_NO_INT = np.empty(0, np.int64)
_NO_FLOAT = np.empty(0, np.float64)


def _ranking_kernels() -> Any:
    """:mod:`ranklens._compute.kernels.ranking`, imported (and numba with it) on the first kernel
    call."""
    from ranklens._compute.kernels import ranking

    return ranking


def noether_variances(
    n: int, stats: dict[str, float], moments: np.ndarray, tau: float
) -> tuple[float, float]:
    """Plug-in (eq. 6) and unbiased variance of tau-b by U-statistic formulas.

    The kernel is the delta-method linearisation of tau-b = U_h / sqrt(U_y U_p) (U_h: mean of
    sign(dy) sign(dp) over ordered pairs, U_y / U_p: fractions of pairs with distinct y / pred):
    g_ij = h_ij / sqrt(by bp) - tau/2 (dy_ij / by + dp_ij / bp). Without ties g = h - tau and both
    formulas reduce to eq. 6 of Rosset, Perlich & Zadrozny (2005) and its unbiased twin. Needs only
    sums over rows of G_i = sum_j g_ij and G_i^2, accumulated by the sweep (``moments``), and the
    pair-class totals.

    Parameters
    ----------
    n : int
        The number of rows.
    stats : dict
        The pair-class totals (:func:`pair_class_stats`).
    moments : ndarray
        The nine sums of the sweep's ``moments`` (h, hh, hy, hp, y, yy, yp, p, pp).
    tau : float
        Kendall's tau-b.

    Returns
    -------
    plug_in, unbiased : float
        The two variances of tau-b (NaN where undefined: tau undefined, or too few rows).
    """
    if not np.isfinite(tau) or n < 2:
        return math.nan, math.nan
    npairs = n * (n - 1.0)
    by = 2 * stats["distinct_y"] / npairs
    bp = 2 * stats["distinct_pred"] / npairs
    alpha = 1 / math.sqrt(by * bp)
    beta = tau / (2 * by)
    gamma = tau / (2 * bp)
    s_h, s_hh, s_hy, s_hp, s_y, s_yy, s_yp, s_p, s_pp = (float(v) for v in moments)
    a_sum = alpha * s_h - beta * s_y - gamma * s_p
    q_sum = (
        alpha**2 * s_hh
        + beta**2 * s_yy
        + gamma**2 * s_pp
        - 2 * alpha * beta * s_hy
        - 2 * alpha * gamma * s_hp
        + 2 * beta * gamma * s_yp
    )
    # sum of g_ij^2 over ordered pairs, by pair class
    b_sum = 2 * (
        stats["concordant"] * (alpha - beta - gamma) ** 2
        + stats["discordant"] * (alpha + beta + gamma) ** 2
        + stats["tied_true_only"] * gamma**2
        + stats["tied_pred_only"] * beta**2
    )
    u = a_sum / npairs
    e2 = b_sum / npairs
    plug_in = math.nan
    if n > 2:
        e12 = (q_sum - b_sum) / (npairs * (n - 2))
        plug_in = max(0.0, 2 / npairs * (2 * (n - 2) * (e12 - u * u) + (e2 - u * u)))
    else:
        plug_in = max(0.0, 2 / npairs * (e2 - u * u))
    unbiased = math.nan
    if n > 3:
        theta2 = (a_sum**2 - 2 * b_sum - 4 * (q_sum - b_sum)) / (npairs * (n - 2) * (n - 3))
        unbiased = (2 / npairs) * (
            2 * (q_sum - b_sum) / npairs + b_sum / npairs - (2 * n - 3) * theta2
        )
        unbiased = max(0.0, unbiased)
    return plug_in, unbiased


def pair_counts_per_row(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every row's partners in each pair class, by one sweep (unweighted).

    Parameters
    ----------
    y, p : ndarray of float64, shape (n,)
        The truth and the prediction (validated, finite).

    Returns
    -------
    tuple of ndarray of int64, shape (n,)
        ``(concordant, discordant, tied_true_only, tied_pred_only, tied_both)`` in the rows'
        order: the counts of :func:`ranklens.per_observation_pair_counts`, from the sweep kernel
        (:func:`ranklens._compute.kernels.ranking.sweep`) whatever ``n``.
    """
    order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p, import_kernels=True)
    return _unit_pair_counts(order, key, pkey, n_y)


def leave_one_out_classes(counts: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
    """The pair classes of the sample without row i, for every row i (unweighted).

    Deleting row i removes exactly the n - 1 pairs it belongs to, so each class total drops by
    row i's own count (Rosset, Perlich & Zadrozny 2005, Sect. 4): O(1) per row after one
    O(n log n) count.

    Parameters
    ----------
    counts : tuple of ndarray of int64, shape (n,)
        Every row's partners ``(concordant, discordant, tied_true_only, tied_pred_only,
        tied_both)`` (:func:`pair_counts_per_row`, or
        :func:`ranklens.per_observation_pair_counts`).

    Returns
    -------
    dict of ndarray of int64, shape (n,)
        The classes :class:`ranklens._foundation.forms.RankStatistic` reads, exact counts:
        ``concordant``, ``discordant``, ``tied_pred_only``, ``distinct_y`` and
        ``distinct_pred``.
    """
    conc, disc, tied_true, tied_pred, _ = counts
    # every pair is counted at both of its rows
    total_c, total_d = int(conc.sum()) // 2, int(disc.sum()) // 2
    total_tp, total_tt = int(tied_pred.sum()) // 2, int(tied_true.sum()) // 2
    untied = conc + disc
    return {
        "concordant": total_c - conc,
        "discordant": total_d - disc,
        "tied_pred_only": total_tp - tied_pred,
        "distinct_y": total_c + total_d + total_tp - (untied + tied_pred),
        "distinct_pred": total_c + total_d + total_tt - (untied + tied_true),
    }


def rank_leave_one_out(y: np.ndarray, p: np.ndarray, *, statistic: RankStatistic) -> np.ndarray:
    """``statistic`` of the sample without row i, for every row i, exactly, in O(n log n).

    The exact leave-one-out a measure declares as ``functools.partial(rank_leave_one_out,
    statistic=...)`` when it is a statistic of the pair classes (not of the midranks).

    Parameters
    ----------
    y, p : ndarray of float64, shape (n,)
        The truth and the prediction (validated, finite), unweighted.
    statistic : RankStatistic
        A statistic of the pair classes (``statistic.moments`` false).

    Returns
    -------
    ndarray of float64, shape (n,)
        The statistic without each row, NaN where undefined.
    """
    if statistic.moments:
        raise ValueError(f"{statistic.name} reads the midranks, not only the pair classes")
    classes = leave_one_out_classes(pair_counts_per_row(y, p))
    return np.asarray(statistic(classes), dtype=np.float64)


def _unit_pair_counts(
    order: np.ndarray, key: np.ndarray, pkey: np.ndarray, n_y: int
) -> tuple[np.ndarray, ...]:
    """The five per-row pair counts from the integer sweep over a sequence of unit rows."""
    kernels = _ranking_kernels()
    out = tuple(np.empty(order.size, np.int64) for _ in range(5))
    proto = kernels.record_prototype(order.size, unit=True)
    kernels.sweep(key, pkey, n_y, _ONE, True, proto, order, *out)
    return out


def profile_counts(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """What the concordance profile reads of every row, by one sweep (or by comparing the rows).

    Parameters
    ----------
    y, p : ndarray of float64, shape (n,)
        The truth and the prediction (validated, finite).
    w : ndarray of float64, shape (n,), or None
        Case weights.

    Returns
    -------
    weights, y_rank, ytot, correct, envelope, pred_rank : ndarray
        The weights (ones without ``w``); each row's dense rank of ``y`` and the weight of each
        distinct ``y``; in the order of the sequence (decreasing prediction), each row's weight
        of partners ordered correctly (a tie in the prediction counting 1/2) and its locally
        optimal envelope; each row's rank of the prediction. Small unweighted inputs, while the
        sweep kernel has no machine code, compare the rows in NumPy
        (:func:`ranklens._compute.xp.measure_routes.pair_counts_numpy`): the same integers, so the
        same numbers bit for bit.
    """
    n = y.size
    # small: the NumPy sequence, without importing numba (ranklens._compute.xp.sequence)
    order, key, pkey, y_rank, pred_rank, n_y, _ = _xs.sequence(y, p, need_pred_rank=True)
    weights = np.ones(n) if w is None else w
    w_seq = weights[order]
    # small, unweighted and the kernels not loaded: the counts and the envelope by comparing the
    # rows (the same integers, so the same numbers bit for bit), nothing compiled
    cold = w is None and _routes.pair_counts_numpy(n)
    if cold:
        compared = per_row_pair_counts(np, y, p)
        conc, tied_pred = compared[0].astype(np.float64), compared[3].astype(np.float64)
    elif w is None:
        # The integer sweep of per_observation_pair_counts (one compiled kernel fewer on a first
        # call); its counts are the float sweep's with unit weights, exactly (below 2**53).
        counts = _unit_pair_counts(order, key, pkey, n_y)
        conc, tied_pred = counts[0].astype(np.float64), counts[3].astype(np.float64)
    else:
        kernels = _ranking_kernels()
        conc, tied_pred = np.empty(n), np.empty(n)
        unused = [np.empty(n) for _ in range(3)]
        proto = kernels.record_prototype(n, unit=False)
        kernels.sweep(
            key, pkey, n_y, w_seq, False, proto, order, conc, unused[0], unused[1], tied_pred,
            unused[2],
        )  # fmt: skip
    ytot = np.bincount(y_rank, weights=weights)
    correct = conc + tied_pred / 2
    if cold and not _routes.ranking_kernel_loaded("concordance_envelope_kernel"):
        envelope = envelope_by_comparison(key, pkey, n_y, w_seq)
    else:
        envelope = _ranking_kernels().concordance_envelope(key, pkey, n_y, w_seq)
    return weights, y_rank, ytot, correct, envelope, pred_rank


def pair_class_stats(stats: np.ndarray, exact: bool) -> dict[str, Any]:
    """Pair-class totals from the sweep's ``stats`` (see
    ``ranklens._compute.kernels.ranking.sweep``).

    Parameters
    ----------
    stats : ndarray
        The sweep's seven sums (twice the concordant and discordant weights, the total weight,
        and the sums of squared group weights over y, prediction and joint groups and rows).
    exact : bool
        Whether the sums are integer counts (unit weights): the totals are then exact integers.

    Returns
    -------
    dict
        ``total``, ``concordant``, ``discordant``, ``tied_true_only``, ``tied_pred_only``,
        ``tied_both``, ``distinct_y`` and ``distinct_pred`` (pair weights).
    """
    conc2, disc2, total, sy2, sp2, sj2, sw2 = (int(v) if exact else float(v) for v in stats)
    half = (lambda v: v // 2) if exact else (lambda v: v / 2)
    all_pairs = half(total * total - sw2)
    tied_y = half(sy2 - sw2)  # includes tied in both
    tied_p = half(sp2 - sw2)
    tied_b = half(sj2 - sw2)
    return {
        "total": total,
        **pair_classes(half(conc2), half(disc2), tied_y, tied_p, tied_b, all_pairs),
    }


#: The pair-class totals of a summary, as :func:`pair_class_stats` names them.
SUMMARY_CLASSES = (
    "concordant",
    "discordant",
    "tied_true_only",
    "tied_pred_only",
    "tied_both",
    "distinct_y",
    "distinct_pred",
)


def exact_number(value: Fraction) -> int | Fraction:
    """An exact count as an ``int`` when integral, else the ``Fraction`` itself."""
    return int(value) if value.denominator == 1 else value


def spearman_from_sums(
    n: int, s2: int, wy: int, t_pred: int, t_y: int
) -> tuple[float, int | Fraction]:
    """Midrank Spearman rho and R from exact sums (Python ints), unweighted.

    With a, b the prediction and truth midranks, S2 = sum (2a)(2b), WY = sum_i 2a_i (2 L_i + c_i -
    m_i) (within the y tie group of i, size m_i: L_i rows with a smaller prediction, c_i with the
    same), Tp / Ty = sum t^3 - t over tie groups: 4 sum (a - abar)(b - bbar) = S2 - n(n+1)^2 and
    R = sum over discordant pairs of |a_i - a_j| = [(n^3 - n - Tp) - 3 (S2 - n(n+1)^2) - 3 WY] / 12
    (= sum i^2 - sum i s_i without ties, Rosset, Perlich & Zadrozny 2005, Sect. 4).
    """
    cube = n**3 - n
    cross = s2 - n * (n + 1) ** 2
    r_value = exact_number(Fraction(cube - t_pred - 3 * cross - 3 * wy, 12))
    denom = (cube - t_pred) * (cube - t_y)
    rho = math.nan
    if denom > 0:
        rho = min(1.0, max(-1.0, 3 * cross / math.sqrt(denom)))
    return rho, r_value


def spearman_from_limbs(n: int, limbs: np.ndarray) -> tuple[float, int | Fraction]:
    """:func:`spearman_from_sums` from the sweep's exact limb sums (no overflow for n < 2**30)."""
    to_int = _ranking_kernels().limbs_to_int
    s2, wy, t_pred, t_y = (to_int(limbs[2 * i], limbs[2 * i + 1]) for i in range(4))
    return spearman_from_sums(n, s2, wy, t_pred, t_y)


def weighted_spearman(fsums: np.ndarray) -> float:
    """Spearman's rho of weighted midranks from the sweep's float sums."""
    return float(_ranking_kernels().clipped_correlation(fsums[0], fsums[1], fsums[2]))


def rank_value(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, statistic: RankStatistic
) -> float:
    """A statistic of the rank sweep of validated arrays: from the NumPy sums of small
    unweighted inputs while the sweep kernel has no machine code
    (:func:`ranklens._compute.xp.measure_routes.sweep_numpy`), else from one sweep; NaN where
    undefined (the caller warns). Spearman's rho comes from the exact midrank sums without weights
    (and the weighted midrank moments with them); every other statistic from the pair classes,
    exact integers without weights."""
    rho = statistic is RankStatistic.SPEARMAN_RHO
    if w is None and _routes.sweep_numpy(y.size):
        sums = _routes.timed_summary_sums(y, p)
        if rho:
            return float(
                spearman_from_sums(y.size, sums["s2"], sums["wy"], sums["t_pred"], sums["t_y"])[0]
            )
        return float(statistic({k: sums[k] for k in SUMMARY_CLASSES}))
    stats, _, limbs, fsums, *_ = rank_sweep(y, p, w)
    if rho:
        return (
            float(spearman_from_limbs(y.size, limbs)[0]) if w is None else weighted_spearman(fsums)
        )
    return float(statistic(pair_class_stats(stats, exact=w is None)))


def tie_cubes(sizes: np.ndarray) -> int:
    """Exact ``sum(t**3 - t)`` over tie-group sizes (Spearman's tie correction), a Python int."""
    return int(_ranking_kernels().sum_t3_minus_t(sizes))


def tau_c_from_classes(s: Mapping[str, Any]) -> tuple[float, float]:
    """Kendall's tau-b and Harrell's C from the pair classes (:class:`RankStatistic`).

    Parameters
    ----------
    s : mapping
        The pair-class totals (:func:`pair_class_stats`).

    Returns
    -------
    tau, c_index : float
        Tau-b (clipped to [-1, 1]) and C; NaN where undefined (no pair with distinct values).
    """
    return float(RankStatistic.KENDALL_TAU_B(s)), float(RankStatistic.HARRELL_C(s))


def _rank_sequence(y: np.ndarray, p: np.ndarray) -> tuple[Any, ...]:
    """``ranklens._compute.xp.sequence.sequence(y, p, need_pred_rank=True)`` on the kernels' path
    (the kernel module imported: its rule decides): ``(order, key, pkey, y_rank, pred_rank, n_y,
    n_p)``, computed once per input within :func:`ranklens._foundation.shared.shared_results`."""
    sort = functools.partial(_xs.sequence, y, p, need_pred_rank=True, import_kernels=True)
    return shared(RANK_SEQUENCE, (y, p), sort)


def rank_sweep(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> tuple[Any, ...]:
    """The sequence and one sweep, run once per input within
    :func:`ranklens._foundation.shared.shared_results`.

    Parameters
    ----------
    y, p : ndarray of float64
        The truth and the prediction (no NaN).
    w : ndarray of float64 or None
        Case weights (None: unit weights, whose sums are exact integers).

    Returns
    -------
    tuple
        ``(stats, moments, limbs, fsums, order, key, pkey)``: the sweep's outputs
        (:func:`ranklens._compute.kernels.ranking.sweep`) and the sequence it swept.
    """
    return shared(RANK_SWEEP, (y, p, w), lambda: _sweep_once(y, p, w))


def _sweep_once(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> tuple[Any, ...]:
    from ranklens._compute.kernels import ranking as _k  # imports numba

    if sharing():  # the sort the comparison's other users of these data share
        order, key, pkey, _, _, n_y, _ = _rank_sequence(y, p)
    else:
        order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p, import_kernels=True)
    empties = [_NO_INT] * 5 if w is None else [_NO_FLOAT] * 5
    weights = _ONE if w is None else w[order]
    proto = _k.record_prototype(y.size, unit=w is None)
    stats, moments, limbs, fsums = _k.sweep(
        key, pkey, n_y, weights, w is None, proto, _NO_INT, *empties
    )
    return stats, moments, limbs, fsums, order, key, pkey
