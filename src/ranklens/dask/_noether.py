"""Noether's interval of Kendall's tau on Dask, from exact per-row sums of the same passes.

The variance of tau-b (Noether 1967; eq. 6 of Rosset, Perlich & Zadrozny 2005, in the
delta-method form of ``ranklens.ranking.noether_variances``) needs, besides the pair classes,
nine sums over rows of products of three per-row counts: ``h_i`` (concordant minus discordant
partners of row ``i``), ``y_i`` (partners with another ``y``) and ``p_i`` (partners with another
prediction). Every partner of a row falls in one of the three classes of the pair counts:

1. the same prediction bucket: ``ranklens._measures.rank_sweep.pair_counts_per_row`` on the bucket,
   after the shuffle by prediction;
2. another prediction bucket and another truth bucket: the order of both is known from the
   buckets, so the count is a function of the row's cell of the (prediction bucket x truth
   bucket) grid, ``H[a, b]``, computed on the client from the grid;
3. the same truth bucket and another prediction bucket: after the shuffle by truth, per row, the
   concordant minus discordant partners in (truth, prediction bucket), in which partners of one
   prediction bucket are tied and so count zero.

Classes 1 and 2 are added in the shuffle by prediction and travel with the row as a column;
class 3 is added after the shuffle by truth, where the sums are formed. Rows of a single-valued
truth bucket (a heavy ``y`` value) have no class-3 partners and are summed at once. ``y_i = n -
(ties of y_i)`` and ``p_i = n - (ties of the prediction)``, each tie group being inside one
bucket. All sums are exact Python integers (unweighted data; with weights tau has no Noether
interval in memory either).

References
----------
Noether, G. E. (1967). *Elements of Nonparametric Statistics*. New York: Wiley.

Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
models. *Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*,
370-377.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.forms import RankStatistic, RankSweepForm
from ranklens._foundation.interval_formulas import tau_confidence_interval
from ranklens._measures.rank_sweep import noether_variances, pair_counts_per_row
from ranklens.dask._passes import bucket_column, bucket_of, exact_dot, exact_sum


def h_column(model_index: int) -> str:
    """The column carrying a row's class 1 + 2 concordant-minus-discordant count."""
    return f"_ranklens_h{model_index}"


def p_column(model_index: int) -> str:
    """The column carrying a row's number of partners with another prediction."""
    return f"_ranklens_q{model_index}"


def p_dtype(n: int | None) -> Any:
    """The dtype of the ``p_i`` column (at most ``n - 1``): int32 where it fits (fewer bytes
    through the shuffles), else int64."""
    return np.int32 if n is not None and n < 1 << 31 else np.int64


def meta_columns(model_index: int, n: int | None = None) -> dict[str, np.ndarray]:
    """Empty columns for the meta of the frames after the shuffle by prediction (``n`` rows)."""
    return {
        h_column(model_index): np.zeros(0, np.int64),
        p_column(model_index): np.zeros(0, p_dtype(n)),
    }


def cross_counts(grid: np.ndarray, dtype: Any = np.int64) -> np.ndarray:
    """``H[a, b]``: concordant minus discordant partners of a row of cell ``(a, b)`` among rows
    of another prediction bucket and another truth bucket, from the count grid ``G`` (int64),
    or their weight from a grid of weights (``dtype`` float64, for DeLong's components)."""
    g = np.asarray(grid, dtype=dtype)
    n_a, n_b = g.shape
    cum = np.zeros((n_a + 1, n_b + 1), dtype)  # cum[i, j] = sum of G[:i, :j]
    cum[1:, 1:] = g.cumsum(axis=0).cumsum(axis=1)
    a = np.arange(n_a)[:, None]
    b = np.arange(n_b)[None, :]
    low_low = cum[a, b]
    low_high = cum[a, n_b] - cum[a, b + 1]
    high_low = cum[n_a, b] - cum[a + 1, b]
    high_high = cum[n_a, n_b] - cum[a + 1, n_b] - cum[n_a, b + 1] + cum[a + 1, b + 1]
    return (low_low + high_high) - (low_high + high_low)


def moments(h: np.ndarray, y: np.ndarray, p: np.ndarray) -> list[int]:
    """The nine sums of ``ranklens.ranking.noether_variances`` (h, hh, hy, hp, y, yy, yp, p,
    pp), exact."""
    h, y, p = (np.asarray(v, dtype=np.int64) for v in (h, y, p))
    return [
        exact_sum(h),
        exact_dot(h, h),
        exact_dot(h, y),
        exact_dot(h, p),
        exact_sum(y),
        exact_dot(y, y),
        exact_dot(y, p),
        exact_sum(p),
        exact_dot(p, p),
    ]


def net_concordance(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per row, its concordant minus its discordant partners among the rows given.

    Parameters
    ----------
    y, p : ndarray of float64
        The truth and the prediction of the rows.

    Returns
    -------
    ndarray of int64
        ``c_i - d_i`` per row (zeros for fewer than two rows).
    """
    if y.size < 2:
        return np.zeros(y.size, np.int64)
    concordant, discordant = pair_counts_per_row(y, p)[:2]
    return (concordant - discordant).astype(np.int64)


def _tie_size(values: np.ndarray) -> np.ndarray:
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return counts[inverse.ravel()].astype(np.int64)


def prediction_rows(
    part: Any,
    frame: Any,
    y: str,
    pred: str,
    model_index: int,
    h_row: np.ndarray,
    t_bounds: np.ndarray,
    single: np.ndarray,
    t_sizes: np.ndarray,
    n: int,
    rows: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[Any, list[int]]:
    """One prediction bucket (``h_row = H[bucket, :]``): the frame with the class 1 + 2 count
    and ``p_i`` of every row added, and the sums of the rows of single-valued truth buckets.
    ``rows``: the class-1 counts and the prediction's tie-group sizes per row where the sweep
    of the bucket gave them already (``ranklens.dask._passes.prediction_partition``)."""
    yv = part[y].to_numpy(dtype=np.float64)
    tb = bucket_of(yv, t_bounds)
    if rows is None:
        pv = part[pred].to_numpy(dtype=np.float64)
        rows = (net_concordance(yv, pv), _tie_size(pv))
    h = rows[0] + np.asarray(h_row, np.int64)[tb]
    q = n - rows[1]
    alone = np.isin(tb, single)
    sums = moments(h[alone], n - np.asarray(t_sizes, np.int64)[tb[alone]], q[alone])
    frame = frame.assign(**{h_column(model_index): h, p_column(model_index): q.astype(p_dtype(n))})
    return frame, sums


def truth_rows(
    part: Any, y: str, n_models: int, n: int, rows: dict[str, Any] | None = None
) -> list[list[int]]:
    """One truth bucket after the shuffle by truth: per model, the nine sums of its rows, with
    the class-3 partners added. ``rows``: the ``y`` tie-group sizes and each model's class-3
    counts per row where the bucket's sweeps gave them already
    (``ranklens.dask._passes.truth_partition``)."""
    if len(part) == 0:
        return [[0] * 9 for _ in range(n_models)]
    yv = part[y].to_numpy(dtype=np.float64)
    ny = n - (_tie_size(yv) if rows is None else rows["y_ties"])
    out = []
    for k in range(n_models):
        if rows is None:
            pb = part[bucket_column(k)].to_numpy().astype(np.float64)
            h3 = net_concordance(yv, pb)
        else:
            h3 = rows["h"][k]
        h = part[h_column(k)].to_numpy().astype(np.int64) + h3
        out.append(moments(h, ny, part[p_column(k)].to_numpy().astype(np.int64)))
    return out


def interval(
    n: int, classes: dict[str, Any], sums: Sequence[Sequence[int]], tau: float, level: float
) -> dict[str, Any]:
    """Noether's variances of tau-b (plug-in and unbiased), the rows, and the interval of tau
    from the unbiased variance, as :func:`ranklens.ranking_summary` (``tau_variance``,
    ``tau_variance_unbiased``, ``tau_ci``: Fisher's z, :func:`ranklens.ranking.
    tau_confidence_interval`)."""
    total = [sum(s[i] for s in sums) for i in range(9)]
    plug, unbiased = noether_variances(n, classes, np.array(total, dtype=np.float64), tau)
    ci = tau_confidence_interval(tau, unbiased, n, level)[0]
    return {
        "kendall_tau": tau,
        "n": n,
        "tau_variance": plug,
        "tau_variance_unbiased": unbiased,
        "tau_ci": ci,
        "confidence_level": level,
        "moments": total,
    }


def wanted(spec: Any) -> bool:
    """Whether a measure is Kendall's tau-b (a rank-sweep statistic) with an analytic variance."""
    caps = spec.capabilities
    return (
        isinstance(caps.batched, RankSweepForm)
        and caps.batched.statistic is RankStatistic.KENDALL_TAU_B
        and caps.variance is not None
    )
