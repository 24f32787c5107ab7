"""The exact sums behind ``ranking_summary`` of one unweighted sample, for NumPy and CuPy.

Everything :func:`ranklens.ranking.ranking_summary` needs beyond the pair counts of
:func:`ranklens._compute.xp.rank.exact_pair_counts` comes from the same sorts and divide-and-conquer
splits (Knight 1966, read top-down), written once against the array namespace:

* **Per-row discordance.** At every level, the split that counts the pairs (left ``i``, right
  ``j`` of a block, ``p_i > p_j``) also gives each row its own share: a right row counts the left
  rows of its block with a larger prediction, a left row the right rows with a smaller one
  (those before it in the block's order by prediction). Summed over the levels, ``D_i`` is the
  number of rows discordant with row ``i``.
* **Per-row concordance.** With ``m_y``, ``m_p``, ``m_j`` the sizes of the row's tie groups of y,
  of the prediction and of both, ``C_i = (n - m_y) - D_i - (m_p - m_j)`` and
  ``h_i = C_i - D_i``; the Noether variance needs the sums over rows of ``h``, ``h^2``,
  ``h dy``, ``h dp``, ``dy``, ``dy^2``, ``dy dp``, ``dp``, ``dp^2`` with ``dy = n - m_y`` and
  ``dp = n - m_p`` (Rosset, Perlich & Zadrozny 2005, eq. 6).
* **Spearman's rho and R.** ``S2 = sum (2a)(2b)`` of the (1-based) midranks and
  ``WY = sum 2a (L - H)`` with L and H the rows of the own y value with a lower and a higher
  prediction, and ``sum t^3 - t`` over the tie groups (Kendall 1945).

Every sum is an exact Python int: products are at most ``(2n + 1)^2`` in int64, summed as two
31-bit limbs; ``t^3 - t`` of a tie group above ``2^20`` rows is formed on the host.

With case weights (:func:`weighted_summary_sums`) the pair classes count ``w_i w_j``: the sums of
squared group weights and the discordant weight come from one row of
:func:`ranklens._compute.xp.rank.replicate_statistics` (int64, exact for integer weights), and the
weighted midrank sums of Spearman's rho and R (``a = W(<) + W(=)/2``) in float64, as the CPU's
sweep forms them.

References
----------
Knight, W. R. (1966). A computer method for calculating Kendall's tau with ungrouped data.
*Journal of the American Statistical Association* 61(314), 436-439.

Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.

Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from ranklens._compute.xp import argsort_stable, free_bytes, is_cupy
from ranklens._compute.xp.rank import (
    build_plan,
    index_dtype,
    max_rows_exact,
    n_levels,
    plan_bytes,
    position_sequence,
    replicate_bytes,
    replicate_statistics,
    run_bounds,
    split_blocks,
)

__all__ = [
    "envelope_by_comparison",
    "pair_classes",
    "per_row_pair_counts",
    "summary_sums",
    "weighted_summary_sums",
]

_LIMB = 31
_SMALL_GROUP = 1 << 20

_PAIR_BLOCK = 256


def pair_classes(
    conc: Any, disc: Any, tied_y: Any, tied_p: Any, tied_b: Any, pairs: Any
) -> dict[str, Any]:
    """The pair classes by name (those of ``ranklens._measures.rank_sweep.pair_class_stats``) from
    the concordant and discordant pairs, the pairs tied in y, in the prediction and in both (the
    first two including the last) and all pairs: counts or weights, any numbers."""
    return {
        "concordant": conc,
        "discordant": disc,
        "tied_true_only": tied_y - tied_b,
        "tied_pred_only": tied_p - tied_b,
        "tied_both": tied_b,
        "distinct_y": pairs - tied_y,
        "distinct_pred": pairs - tied_p,
    }


def per_row_pair_counts(xp: ModuleType, y: Any, p: Any) -> tuple[Any, ...]:
    """Every row's pair classes by direct comparison with every other row, O(n^2).

    Returns ``(concordant, discordant, tied_true_only, tied_pred_only, tied_both)``, int64 arrays
    of length n: row ``i``'s counts of the rows ``j != i`` with ``(y_j - y_i)(p_j - p_i) > 0``,
    ``< 0``, ``y_j = y_i`` only, ``p_j = p_i`` only, and both (Kendall 1945). Comparisons, not
    differences: ``-0.0`` ties ``+0.0`` and infinities compare as numbers, as in the sweep. The
    counts are exact, so they equal the sweep kernel's bit for bit; meant for small n only
    (the cold route of :func:`ranklens.ranking.per_observation_pair_counts` below
    ``ranklens._foundation.route.POLICY.pair_counts_numpy_below`` rows).
    """
    n = int(y.shape[0])
    out = [xp.zeros(n, dtype=xp.int64) for _ in range(5)]
    for start in range(0, n, _PAIR_BLOCK):
        stop = min(start + _PAIR_BLOCK, n)
        yi, pi = y[start:stop, None], p[start:stop, None]
        y_up, y_down, y_tie = y[None, :] > yi, y[None, :] < yi, y[None, :] == yi
        p_up, p_down, p_tie = p[None, :] > pi, p[None, :] < pi, p[None, :] == pi
        both = xp.sum(y_tie & p_tie, axis=1, dtype=xp.int64)
        out[0][start:stop] = xp.sum((y_up & p_up) | (y_down & p_down), axis=1, dtype=xp.int64)
        out[1][start:stop] = xp.sum((y_up & p_down) | (y_down & p_up), axis=1, dtype=xp.int64)
        out[2][start:stop] = xp.sum(y_tie, axis=1, dtype=xp.int64) - both
        out[3][start:stop] = xp.sum(p_tie, axis=1, dtype=xp.int64) - both
        out[4][start:stop] = both - 1  # the row itself
    return tuple(out)


def envelope_by_comparison(key: Any, pkey: Any, n_y: int, w: Any) -> np.ndarray:
    """NumPy twin of ``ranklens._compute.kernels.ranking.concordance_envelope`` for small n, O(n
    n_y).

    Sequence arrays as the kernel takes them (``key``: dense rank of y, increasing with y, per
    position; positions by decreasing prediction, ``pkey`` equal within a run of tied
    predictions). For each y value v, the envelope of Rosset, Perlich & Zadrozny (2005, Fig. 1) is
    ``E(v) = W(y < v) + max(0, max_q P_v(q))``, ``P_v(q)`` the sum over the first ``q``
    prediction groups of ``w_t sign(y_t - v)``: all prefixes of all values at once, in blocks of
    values. With unit weights every sum is an integer below 2**53, so the result equals the
    kernel's bit for bit whatever the order of the additions; with other weights it agrees to
    rounding (the kernel adds in the order of its prefix tree).
    """
    n = int(key.shape[0])
    n_y = int(n_y)
    envelope = np.zeros(n_y, np.float64)
    if n == 0 or n_y == 0:
        return envelope
    key = np.asarray(key, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, pkey[1:] != pkey[:-1]])
    weight_of_y = np.bincount(key, weights=w, minlength=n_y)
    below = np.cumsum(weight_of_y) - weight_of_y
    block = max(1, (1 << 20) // n)
    for v0 in range(0, n_y, block):
        values = np.arange(v0, min(v0 + block, n_y), dtype=np.int64)
        signed = np.sign(key[:, None] - values[None, :]) * w[:, None]
        prefix = np.cumsum(np.add.reduceat(signed, starts, axis=0), axis=0)
        envelope[v0 : v0 + values.size] = below[values] + np.maximum(prefix.max(axis=0), 0.0)
    return envelope


def _exact_sum(xp: ModuleType, v: Any) -> int:
    """The exact sum of an int64 array (|v| < 2^62) as a Python int, in two 31-bit limbs."""
    v = v.astype(xp.int64, copy=False)
    hi = int(xp.sum(v >> _LIMB, dtype=xp.int64))
    lo = int(xp.sum(v & ((1 << _LIMB) - 1), dtype=xp.int64))
    return (hi << _LIMB) + lo


def _host(xp: ModuleType, x: Any) -> np.ndarray:
    return np.asarray(x.get() if is_cupy(xp) else x)


def _t3_minus_t(xp: ModuleType, sizes: Any) -> int:
    """``sum t^3 - t`` over group sizes, exactly (large groups on the host)."""
    small = xp.where(sizes <= _SMALL_GROUP, sizes, 0)
    total = _exact_sum(xp, (small - 1) * small * (small + 1))
    big = _host(xp, sizes[sizes > _SMALL_GROUP])
    return total + sum(int(t) ** 3 - int(t) for t in big)


def _split_rows(xp: ModuleType, cur: Any, level: int, n: int, d_row: Any) -> Any:
    """:func:`ranklens._compute.xp.rank.split_blocks`' new order, each position's discordant
    partners of this level added to ``d_row`` (by position)."""
    nxt, k, left, start, in_block, left_total = split_blocks(xp, cur, level, n)
    # a right row: the left rows of the block with a larger prediction; a left row: the right
    # rows before it in the block's order (a smaller prediction)
    share = xp.where(left, k - start - in_block, left_total - in_block)
    d_row[cur] += share.astype(xp.int64)
    return nxt


def _group_size(xp: ModuleType, starts: Any, ends: Any, n: int) -> tuple[Any, Any]:
    """Per slot: the size and the start of its run (runs ``[starts, ends)`` cover 0..n-1)."""
    sizes = ends - starts
    change = xp.zeros(n, dtype=xp.int64)
    change[starts[1:]] = 1
    run = xp.cumsum(change)
    return sizes[run], starts[run]


def summary_sums(xp: ModuleType, y: Any, p: Any) -> dict[str, Any]:
    """Exact integer sums of one unweighted sample for ``ranking_summary`` (float64, no NaN).

    Returns Python ints ``n``, ``concordant``, ``discordant``, ``tied_true_only``,
    ``tied_pred_only``, ``tied_both``, ``distinct_y``, ``distinct_pred``, ``s2``, ``wy``,
    ``t_pred``, ``t_y``; ``moments`` (the nine Noether sums above, Python ints, in the order
    h, h^2, h dy, h dp, dy, dy^2, dy dp, dp, dp^2); and the NumPy arrays ``pred_sizes`` (tie
    groups of the prediction with more than one row, by decreasing prediction) and ``y_sizes``
    (those of y, by increasing y).
    """
    n = int(y.shape[0])
    _, ry_s, rp_s, _ = position_sequence(xp, y, p)
    change_y = ry_s[1:] != ry_s[:-1]
    y_start, y_end = run_bounds(xp, change_y, n)
    j_start, j_end = run_bounds(xp, change_y | (rp_s[1:] != rp_s[:-1]), n)
    del change_y
    m_y, ys = _group_size(xp, y_start, y_end, n)
    m_j, js = _group_size(xp, j_start, j_end, n)
    ye = ys + m_y
    spread = (js - ys) - (ye - (js + m_j))  # same y: lower minus higher prediction
    b2 = 2 * ys + m_y + 1  # twice the 1-based midrank of y
    del js, ye, ys
    cur = argsort_stable(xp, rp_s).astype(index_dtype(n))  # positions by prediction
    p_sorted = rp_s[cur]
    p_start, p_end = run_bounds(xp, p_sorted[1:] != p_sorted[:-1], n)
    del p_sorted, ry_s, rp_s
    size_slot, start_slot = _group_size(xp, p_start, p_end, n)
    m_p = xp.empty(n, dtype=xp.int64)
    m_p[cur] = size_slot
    a2 = xp.empty(n, dtype=xp.int64)
    a2[cur] = 2 * start_slot + size_slot + 1  # twice the 1-based midrank of the prediction
    del size_slot, start_slot
    d_row = xp.zeros(n, dtype=xp.int64)
    for level in range(n_levels(n), 0, -1):
        cur = _split_rows(xp, cur, level, n, d_row)
    del cur
    y_sizes = y_end - y_start
    p_sizes = p_end - p_start
    pairs = n * (n - 1) // 2

    def tied(sizes: Any) -> int:
        return int(xp.sum(sizes * (sizes - 1) // 2, dtype=xp.int64))

    tied_y, tied_p, tied_b = tied(y_sizes), tied(p_sizes), tied(j_end - j_start)
    disc = int(xp.sum(d_row, dtype=xp.int64)) // 2
    conc = pairs - tied_y - (tied_p - tied_b) - disc
    dy = n - m_y
    dp = n - m_p
    h = dy - (m_p - m_j) - 2 * d_row
    moments = [
        _exact_sum(xp, v) for v in (h, h * h, h * dy, h * dp, dy, dy * dy, dy * dp, dp, dp * dp)
    ]
    return {
        "n": n,
        **pair_classes(conc, disc, tied_y, tied_p, tied_b, pairs),
        "s2": _exact_sum(xp, a2 * b2),
        "wy": _exact_sum(xp, a2 * spread),
        "t_pred": _t3_minus_t(xp, p_sizes),
        "t_y": _t3_minus_t(xp, y_sizes),
        "moments": moments,
        "pred_sizes": _host(xp, p_sizes[p_sizes > 1])[::-1].copy(),
        "y_sizes": _host(xp, y_sizes[y_sizes > 1]),
    }


def weighted_summary_sums(
    xp: ModuleType, y: Any, p: Any, w: Any, scale: float = 1.0
) -> dict[str, Any]:
    """The weighted sums of ``ranking_summary`` for case weights ``w`` (int64 or float64, n).

    Returns ``stats``, the CPU sweep's pair sums ``[2 C, 2 D, W, Sy, Sp, Sj, sum w^2]``
    (:func:`ranklens._compute.kernels.ranking.sweep`; Python ints for integer weights, exact, else
    floats), ``fsums``, its four float64 midrank sums (``sum w (a - W/2)(b - W/2)``, the same for
    ``a`` twice and ``b`` twice, and ``sum w a (W(same y, lower pred) - W(same y, higher pred))``,
    with ``a``, ``b`` the weighted midranks ``W(<) + W(=)/2`` of prediction and y), and
    ``tied_both``, ``sum_g W_g max(W_g - 1, 0) / 2`` over the groups of rows equal in both
    on the scale of ``w * scale`` (``scale`` 1 for integer weights: a Python int). Integer
    weights need a squared total below ``2^62`` (ValueError otherwise).
    """
    exact = bool(np.issubdtype(w.dtype, np.integer))
    acc = xp.int64 if exact else xp.float64
    n = int(y.shape[0])
    need = plan_bytes(n) + replicate_bytes(n)
    if need > free_bytes(xp):
        raise ValueError(
            f"n = {n} rows is beyond this device's capacity: the weighted summary needs about "
            f"{need / 2**30:.1f} GiB and {free_bytes(xp) / 2**30:.1f} GiB are free"
        )
    plan = build_plan(xp, y, p)
    weights = w.astype(acc)[None, :]
    if exact:
        max_rows_exact(int(xp.sum(weights)))  # raises beyond the int64 bound
    st = replicate_statistics(xp, plan, weights)
    ws = weights[0, plan.seq]  # position order: y increasing, ties by prediction
    csy = xp.concatenate([xp.zeros(1, dtype=acc), xp.cumsum(ws, dtype=acc)])
    g_j = csy[plan.j_end] - csy[plan.j_start]
    lower = csy[plan.j_start] - csy[plan.y_start[plan.j_y]]  # same y, lower prediction
    higher = csy[plan.y_end[plan.j_y]] - csy[plan.j_end]
    wl = ws[plan.perms[-1]]  # by prediction
    csp = xp.concatenate([xp.zeros(1, dtype=acc), xp.cumsum(wl, dtype=acc)])
    g_p = csp[plan.p_end] - csp[plan.p_start]
    a2 = (2 * csp[plan.p_start] + g_p).astype(xp.float64)  # 2 W(<) + W(=) per prediction
    f3 = xp.sum(g_j.astype(xp.float64) * 0.5 * a2[plan.j_p] * (lower - higher).astype(xp.float64))
    given = g_j if exact else g_j * scale
    one = xp.ones((), dtype=acc)
    both = xp.sum(given * xp.maximum(given - one, 0 * one))
    sw2 = xp.sum(ws * ws)

    def num(v: Any) -> Any:
        v = v.get() if is_cupy(xp) else v
        return int(v) if exact else float(v)

    def real(v: Any) -> float:
        return float(v.get() if is_cupy(xp) else v)

    total, sy2, sp2, sj2, disc = (
        num(st[k][0]) for k in ("total", "sum_y2", "sum_p2", "sum_j2", "disc")
    )
    conc2 = (total * total - sy2) - 2 * disc - (sp2 - sj2)
    return {
        "stats": [conc2, 2 * disc, total, sy2, sp2, sj2, num(sw2)],
        "fsums": [
            real(st["cov"][0]) / 4.0,
            real(st["var_a"][0]) / 4.0,
            real(st["var_b"][0]) / 4.0,
            real(f3),
        ],
        "tied_both": num(both) // 2 if exact else num(both) / 2.0,
    }
