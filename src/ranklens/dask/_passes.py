"""The work done inside one partition: plain NumPy and the in-memory kernels, no dask.

Every function here takes one partition (a ``pandas.DataFrame``) and small arguments computed on
the client (bucket boundaries, carry-ins), and returns a small summary. The client adds the
summaries in exact arithmetic (Python integers for counts, :func:`math.fsum` for float sums), so
the result does not depend on how the rows are partitioned.

Buckets are value ranges: ``bucket(x) = searchsorted(bounds, x, side="right")``, so bucket ``k``
holds ``bounds[k-1] <= x < bounds[k]`` and rows with equal values are always in one bucket (a
tie run never straddles two buckets).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._compute.kernels import curves as _kc
from ranklens._compute.kernels import ranking as _kr
from ranklens._compute.xp import sequence as _xs
from ranklens._foundation.interval_formulas import TargetMoments
from ranklens._measures.rank_sweep import pair_class_stats, rank_sweep
from ranklens._measures.ranked import Target, gain_twice_exact, integer_counts, rank_scores

#: Rows drawn from each partition to choose bucket boundaries (the boundaries only balance the
#: buckets; the results are exact whatever they are).
SAMPLE_PER_PARTITION = 4096

#: Column names the engine adds to the frames it shuffles.
P_BUCKET = "_ranklens_pb"
T_BUCKET = "_ranklens_tb"


def midrank_column(model_index: int) -> str:
    """The column holding a model's (doubled, for unit weights) midrank of the prediction."""
    return f"_ranklens_a{model_index}"


def bucket_column(model_index: int) -> str:
    """The column holding a model's prediction bucket."""
    return f"_ranklens_p{model_index}"


#: The dtype of the bucket columns carried through the later shuffles (fewer bytes to move).
BUCKET_DTYPE = np.int32


def midrank_dtype(n: int, unit: bool) -> Any:
    """The dtype of the midrank columns: the doubled midranks (at most ``2 n + 1``) in int32
    where they fit, else int64; weighted midranks in float64."""
    if not unit:
        return np.float64
    return np.int32 if 2 * n + 1 < 1 << 31 else np.int64


def bucket_of(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Bucket index of every value (``bounds`` sorted, distinct)."""
    return np.searchsorted(bounds, values, side="right").astype(np.int64)


def partition_arrays(
    part: Any, y: str, preds: Sequence[str], weight: str | None
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray | None]:
    """A partition's columns as contiguous float64 arrays.

    Parameters
    ----------
    part : DataFrame
        One partition.
    y : str
        The truth's column.
    preds : sequence of str
        The prediction columns.
    weight : str or None
        The case weight column, if any.

    Returns
    -------
    y : ndarray of float64
        The truth.
    preds : list of ndarray of float64
        Each prediction.
    weight : ndarray of float64 or None
        The case weights.
    """
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    pv = [np.ascontiguousarray(part[c].to_numpy(dtype=np.float64)) for c in preds]
    wv = None if weight is None else np.ascontiguousarray(part[weight].to_numpy(dtype=np.float64))
    return yv, pv, wv


def scan(
    part: Any,
    index: int,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    ratio_forms: Sequence[Any],
    robust_forms: Sequence[Any] = (),
) -> dict[str, Any]:
    """First pass: row count, validity, value ranges, a sample, the target's moments and the
    mergeable sums.

    ``ratio_forms``: the :class:`ranklens._foundation.forms.RatioForm` of each mergeable measure;
    for each model and form the weighted numerator and denominator sums (pairwise summation inside
    the partition; the client adds partitions with :func:`math.fsum`). ``robust_forms``: the
    forms of the robustness table's means of a per-row loss; for each model and form
    ``out["robust"][k][j]``, the unweighted loss sum and the candidate rows of
    :func:`loss_candidates` (or the measure's domain error).
    """
    yv, pv, wv = partition_arrays(part, y, preds, weight)
    bad: list[str] = []
    for name, v in [(y, yv), *zip(preds, pv, strict=True)]:
        if not np.isfinite(v).all():
            bad.append(name)
    if wv is not None and (not np.isfinite(wv).all() or (wv < 0).any()):
        bad.append(weight or "")
    out: dict[str, Any] = {"n": int(yv.size), "bad": bad}
    if bad or yv.size == 0:
        return out
    rng = np.random.default_rng([index, yv.size])
    take = rng.choice(yv.size, size=min(yv.size, SAMPLE_PER_PARTITION), replace=False)
    out["sample_y"] = yv[take]
    out["sample_p"] = [v[take] for v in pv]
    out["sample_w"] = None if wv is None else wv[take]
    out["target"] = TargetMoments.of(yv, wv)  # the skewness rule of the mean losses' intervals
    out["binary"] = bool(np.all((yv == 0.0) | (yv == 1.0)))
    out["y_min"], out["y_max"] = float(yv.min()), float(yv.max())
    out["p_abs"] = [float(np.abs(p).max()) for p in pv]  # the data's magnitude, per model
    if wv is not None:
        keep = wv > 0
        out["n_positive"] = int(keep.sum())
        with np.errstate(over="ignore"):  # a total beyond the largest float is refused
            out["w"] = float(wv.sum())
            out["w2"] = float(wv @ wv)
    sums = []
    for p in pv:
        per_model: list[Any] = []
        for form in ratio_forms:
            try:
                num, den = form.row_terms(yv, p)
            except ValueError as exc:  # the measure's own domain check (DomainError)
                per_model.append(exc)
                continue
            if wv is None:
                per_model.append((float(num.sum()), float(den.sum())))
            else:
                with np.errstate(over="ignore"):  # weights whose total overflows are refused
                    per_model.append((float((wv * num).sum()), float((wv * den).sum())))
        sums.append(per_model)
    out["sums"] = sums
    if robust_forms:
        out["robust"] = [[_robust_losses(form, yv, p) for form in robust_forms] for p in pv]
    return out


def _robust_losses(form: Any, yv: np.ndarray, p: np.ndarray) -> Any:
    try:
        with np.errstate(all="ignore"):
            num = np.asarray(form.numerator(yv, p), dtype=np.float64)
    except ValueError as exc:  # the measure's own domain check (DomainError)
        return exc
    return loss_candidates(num)


def loss_candidates(num: np.ndarray) -> tuple[float, list[tuple[int, float, float]]]:
    """A partition's loss sum and its rows of largest and smallest loss (the first of each):
    ``(local position, loss, sum of the partition without that row)``, the sums without a row
    added from both sides of it (no subtraction: no cancellation when the row holds almost all
    of the loss), for the robustness table (:mod:`ranklens.dask._robustness`)."""
    if num.size == 0:
        return 0.0, []
    rows = []
    for i in (int(np.argmax(num)), int(np.argmin(num))):
        rows.append((i, float(num[i]), float(num[:i].sum()) + float(num[i + 1 :].sum())))
    return float(num.sum()), rows


def bucket_totals(part: Any, y: str, weight: str | None, bounds: np.ndarray) -> dict[str, Any]:
    """Weights and counts per truth bucket (for exact selection of a quantile of ``y``)."""
    yv = part[y].to_numpy(dtype=np.float64)
    b = bucket_of(yv, bounds)
    size = bounds.size + 1
    out = {"count": np.bincount(b, minlength=size).astype(np.int64)}
    if weight is not None:
        w = part[weight].to_numpy(dtype=np.float64)
        out["weight"] = np.bincount(b, weights=w, minlength=size)
    return out


def bucket_rows(
    part: Any, y: str, weight: str | None, bounds: np.ndarray, bucket: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """The ``y`` values (and weights) of one truth bucket."""
    yv = part[y].to_numpy(dtype=np.float64)
    mask = bucket_of(yv, bounds) == bucket
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)[mask]
    return yv[mask], w


def grid(
    part: Any,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    p_bounds: Sequence[np.ndarray],
    t_bounds: np.ndarray,
) -> dict[str, Any]:
    """Second pass: per model, the (prediction bucket x truth bucket) count and weight grid."""
    yv, pv, wv = partition_arrays(part, y, preds, weight)
    if wv is not None:
        keep = wv > 0
        yv, wv = yv[keep], wv[keep]
        pv = [p[keep] for p in pv]
    tb = bucket_of(yv, t_bounds)
    nt = t_bounds.size + 1
    grids = []
    for p, bounds in zip(pv, p_bounds, strict=True):
        np_ = bounds.size + 1
        cell = bucket_of(p, bounds) * nt + tb
        counts = np.bincount(cell, minlength=np_ * nt).reshape(np_, nt).astype(np.int64)
        weights = (
            None
            if wv is None
            else np.bincount(cell, weights=wv, minlength=np_ * nt).reshape(np_, nt)
        )
        grids.append((counts, weights))
    out: dict[str, Any] = {"grids": grids}
    if wv is not None:
        out["t_w2"] = np.bincount(tb, weights=wv * wv, minlength=nt)
    return out


def release_unused_memory() -> None:
    """Hand back to the system the memory Arrow's allocator keeps from the shuffles.

    Dask's peer-to-peer shuffle converts every shard to Arrow and back; Arrow's allocator
    (mimalloc or jemalloc) keeps the pages it freed for reuse, which a worker's memory monitor
    counts as unmanaged memory it cannot spill (some 80 MB per worker after the robustness
    table's run at 1e7 rows). On workers of 1 GiB that, with the shuffles' buffers, is enough to
    pause them for good. Called at the start of each bucket's task (a few microseconds).
    """
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def row_slice(part: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of a partition."""
    return part.iloc[start:stop]


def add_grids(u: dict[str, Any], v: dict[str, Any]) -> dict[str, Any]:
    """Two partitions' :func:`grid` summaries added (counts in int64, weights in float64)."""
    out: dict[str, Any] = {
        "grids": [
            (cu + cv, None if wu is None else wu + wv)
            for (cu, wu), (cv, wv) in zip(u["grids"], v["grids"], strict=True)
        ]
    }
    if "t_w2" in u:
        out["t_w2"] = u["t_w2"] + v["t_w2"]
    return out


def _add_bucket(part: Any, column: str, values: np.ndarray, bounds: np.ndarray) -> Any:
    return part.assign(**{column: bucket_of(values, bounds)})


def with_p_bucket(part: Any, pred: str, weight: str | None, bounds: np.ndarray) -> Any:
    """The partition with its rows of zero weight dropped and the prediction bucket added."""
    if weight is not None:
        part = part[part[weight].to_numpy() > 0]
    return _add_bucket(part, P_BUCKET, part[pred].to_numpy(dtype=np.float64), bounds)


def with_t_bucket(part: Any, y: str, bounds: np.ndarray, single: np.ndarray) -> Any:
    """The partition with the truth bucket added, without the rows of single-valued buckets
    (summed in the shuffle by prediction instead)."""
    tb = bucket_of(part[y].to_numpy(dtype=np.float64), bounds)
    keep = ~np.isin(tb, single)
    return part[keep].assign(**{T_BUCKET: tb[keep]})


def local_pairs(stats: np.ndarray, unit: bool) -> dict[str, Any]:
    """The pair classes of the rows of one piece, from its rank sweep's ``stats``.

    Parameters
    ----------
    stats : ndarray
        The ``stats`` of :func:`ranklens.rank_sweep.rank_sweep` on the piece.
    unit : bool
        Whether the weights are unit (the counts are then exact integers).

    Returns
    -------
    dict
        ``concordant``, ``discordant``, ``tied_y``, ``tied_p`` and ``tied_both`` (pairs tied in
        y include those tied in both, and likewise for the prediction).
    """
    s = pair_class_stats(stats, exact=unit)
    tied_y = s["tied_true_only"] + s["tied_both"]
    tied_p = s["tied_pred_only"] + s["tied_both"]
    return {
        "concordant": s["concordant"],
        "discordant": s["discordant"],
        "tied_y": tied_y,
        "tied_p": tied_p,
        "tied_both": s["tied_both"],
    }


def _tie_sizes(sorted_values: np.ndarray) -> np.ndarray:
    if sorted_values.size == 0:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    return np.diff(np.r_[starts, sorted_values.size]).astype(np.int64)


_ONE = np.ones(1, np.int64)
_NO_INT = np.empty(0, np.int64)


def _unit_sweep(
    yv: np.ndarray, pv: np.ndarray, per_row: bool
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray | None]:
    """The unweighted pair sweep of ``(y, prediction)`` (the one of ``ranklens.ranking.
    rank_sweep``): its pair statistics, the dense ranks of the prediction (0 = smallest) and
    their number, and with ``per_row`` the concordant minus discordant partners of every row
    (``ranklens.per_observation_pair_counts``, from the same sweep rather than a second one)."""
    order, key, pkey, _, p_rank, n_y, n_p = _xs.sequence(
        yv, pv, need_pred_rank=True, import_kernels=True
    )
    proto = _kr.record_prototype(yv.size, unit=True)
    if not per_row:
        stats = _kr.sweep(key, pkey, n_y, _ONE, True, proto, _NO_INT, *[_NO_INT] * 5)[0]
        return stats, p_rank, n_p, None
    rows = [np.empty(yv.size, np.int64) for _ in range(5)]
    stats = _kr.sweep(key, pkey, n_y, _ONE, True, proto, order, *rows)[0]
    return stats, p_rank, n_p, rows[0] - rows[1]


def _unit_midranks(rank: np.ndarray, n_values: int, below: int) -> tuple[np.ndarray, np.ndarray]:
    """Doubled midranks ``2 (rows below) + t + 1`` (exact int64) from dense ranks, and the
    tie-group sizes in increasing value."""
    sizes = np.bincount(rank, minlength=n_values).astype(np.int64)
    starts = np.cumsum(sizes) - sizes
    return 2 * (below + starts[rank]) + sizes[rank] + 1, sizes


def _weighted_midranks(values: np.ndarray, weights: np.ndarray, below: Any) -> np.ndarray:
    """Weighted midranks ``below + W(< v) + W(= v) / 2`` of every row's value ``v``, in the
    rows' order (the same for every row of a tie group, so NumPy's unstable sort, about 3x
    faster than its stable one, will do)."""
    order = np.argsort(values)
    sizes = _tie_sizes(values[order])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    ws = weights[order]
    cum = np.r_[0.0, np.cumsum(ws)]
    group_w = np.add.reduceat(ws, starts)
    mid_sorted = np.repeat(below + cum[starts] + group_w / 2.0, sizes)
    mid = np.empty_like(mid_sorted)
    mid[order] = mid_sorted
    return mid


def prediction_partition(
    part: Any,
    model_index: int,
    y: str,
    pred: str,
    weight: str | None,
    threshold: float,
    carry: dict[int, Any],
    queries: np.ndarray,
    depths: np.ndarray,
    rank_pairs: bool,
    t_bounds: np.ndarray,
    single: np.ndarray,
    boot: dict[str, Any] | None = None,
    *,
    curves: bool = True,
    per_row: bool = False,
) -> tuple[Any, dict[str, Any]]:
    """One prediction bucket, in a partition of its own after the shuffle by prediction.

    ``carry`` holds, for this bucket, the weight below it (ascending prediction; for midranks)
    and the weight, events and non-events above it (descending; for the curves), and the totals.
    ``queries`` are cumulative weights (from the top) at which the gain curve is read (decile
    boundaries), ``depths`` fractions targeted (lift at a depth). Returns the partition with the
    prediction's midrank and bucket columns added (for the shuffle by truth), and the summary.
    ``curves=False`` skips the pieces of the ranked curve (no curve measure, decile table or
    interval of the AUC asked for); ``per_row`` (unweighted) adds ``out["_rows"]``, the
    concordant minus discordant partners of every row in the bucket and the size of its
    prediction's tie group, for Noether's interval (``ranklens.dask._noether``).
    """
    out: dict[str, Any] = {"n": len(part)}
    frame = part.drop(columns=[P_BUCKET])
    a_col, b_col = midrank_column(model_index), bucket_column(model_index)
    a_dtype = midrank_dtype(round(carry[next(iter(carry))]["W"]), weight is None)
    if len(part) == 0:
        empty = frame.assign(**{a_col: np.zeros(0, a_dtype), b_col: np.zeros(0, BUCKET_DTYPE)})
        return empty, out
    bucket = int(part[P_BUCKET].iloc[0])
    c = carry[bucket]
    yv, (pv,), wv = partition_arrays(part, y, [pred], weight)
    unit = wv is None
    if curves:
        out.update(_curve_pieces(part, yv, pv, wv, threshold, c, queries, depths, boot, bucket))
    if not rank_pairs:
        # no shuffle by truth follows: the midrank and bucket columns are placeholders
        frame = frame.assign(**{a_col: np.zeros(len(part), a_dtype)})
        return frame.assign(**{b_col: np.full(len(part), bucket, BUCKET_DTYPE)}), out
    # Rank statistics: pairs inside the bucket, and the prediction's midrank for every row
    # (the same for every row of a tie group: the order inside a group does not matter).
    if wv is None:
        # one sweep: the pair statistics, the prediction's dense ranks (its midranks and tie
        # groups) and, for Noether's interval, each row's partners
        stats, p_rank, n_p, h = _unit_sweep(yv, pv, per_row)
        # doubled midrank 2a = 2 (rows below) + t + 1, an exact integer
        a, sizes = _unit_midranks(p_rank, n_p, c["n_below"])
        out["t3"] = int(_kr.sum_t3_minus_t(sizes))
        if per_row:
            out["_rows"] = (h, sizes[p_rank])
    else:
        a = _weighted_midranks(pv, wv, c["w_below"])
        stats = rank_sweep(yv, pv, wv)[0]
    out["pairs"] = local_pairs(stats, unit)
    # rows of single-valued truth buckets: sums of their midranks (see truth_partition)
    tb = bucket_of(yv, t_bounds) if single.size else np.zeros(0, np.int64)
    if wv is None:
        out["a_single"] = {int(b): int(a[tb == b].sum()) for b in single}
    else:
        da = a - c["W"] / 2.0
        out["var_a"] = float(np.sum(wv * da * da))
        out["a_single"] = {int(b): float(np.sum((wv * da)[tb == b])) for b in single}
    frame = frame.assign(
        **{a_col: a.astype(a_dtype, copy=False), b_col: np.full(len(part), bucket, BUCKET_DTYPE)}
    )
    return frame, out


def _curve_pieces(
    part: Any,
    yv: np.ndarray,
    pv: np.ndarray,
    wv: np.ndarray | None,
    threshold: float,
    c: dict[str, Any],
    queries: np.ndarray,
    depths: np.ndarray,
    boot: dict[str, Any] | None,
    bucket: int,
) -> dict[str, Any]:
    """The pieces of the ranked curves of one prediction bucket (see
    :func:`prediction_partition`)."""
    out: dict[str, Any] = {}
    # Curves: the rows in decreasing prediction with the in-memory accumulation
    # (ranklens._measures.ranked.rank_scores).
    response = (yv >= threshold).astype(np.float64)
    ranked = rank_scores(pv, Target(response, wv, None, False, ""))
    cw = c["w_above"] + ranked.cum_weight
    ce = c["e_above"] + ranked.cum_events
    cn = c["n_above"] + ranked.cum_nonevents
    total_w, total_e, total_n = c["W"], c["E"], c["N"]
    if total_e > 0 and total_n > 0:
        twice, ks = _kc.roc_sums(ce, cn, total_e, total_n)
    else:
        twice, ks = math.nan, math.nan
    out["roc_twice"] = twice
    out["ks"] = ks
    if total_e > 0 and total_n > 0:
        out["delong"] = _delong_sums(ranked, pv, wv, response, ce, cn, total_e, total_n)
    x = cw / total_w
    out["gain_area2"] = (
        float(np.sum((x[1:] - x[:-1]) * (ce[1:] / total_e + ce[:-1] / total_e)))
        if total_e > 0
        else math.nan
    )
    # the average precision's terms, dRecall x precision times E, at each distinct score of the
    # piece (a tie group never straddles two buckets)
    out["ap_sum"] = float(np.diff(ce) @ (ce[1:] / cw[1:])) if cw.shape[0] > 1 else 0.0
    if total_e > 0 and integer_counts(cw, ce):
        # integer counts (carry included): exact, so the area is the in-memory one to the bit
        out["gain_twice"] = gain_twice_exact(cw, ce)
    # The curve read at cumulative weights (decile boundaries) and at depths (lift): the piece
    # with prev_end < q <= end answers (np.interp on the global curve, restricted to the piece).
    lo, hi = cw[0], cw[-1]
    scores = ranked.thresholds[1:]
    ends = cw[1:]
    inside = (queries > lo) & (queries <= hi)
    if c["w_below"] == 0:
        # the lowest scores: the total weight read here even where its float sum differs
        inside |= queries > hi
    out["at"] = {
        int(i): (
            float(np.interp(queries[i], cw, ce)),
            float(scores[min(int(np.searchsorted(ends, queries[i], side="left")), ends.size - 1)]),
        )
        for i in np.flatnonzero(inside)
    }
    if total_e > 0:
        # the gain read as targeting.decile_table reads it (events over E, then interpolated)
        gain = ce / total_e
        out["gain_at"] = {
            int(i): float(np.interp(queries[i], cw, gain)) for i in np.flatnonzero(inside)
        }
    right = (queries >= lo) & (queries < hi)
    out["first_score"] = {
        int(i): float(scores[int(np.searchsorted(ends, queries[i], side="right"))])
        for i in np.flatnonzero(right)
    }
    depth_in = (depths > x[0]) & (depths <= x[-1])
    out["lift"] = {
        int(i): float(np.interp(depths[i], x, ce / total_e)) / float(depths[i])
        for i in np.flatnonzero(depth_in)
        if total_e > 0
    }
    if boot is not None:
        out["boot"] = bootstrap_curve(
            yv,
            pv,
            wv,
            part[KEY].to_numpy(),
            threshold,
            boot["carry"][bucket],
            boot["reps"],
            boot["seed"],
            boot.get("depths"),
        )
    return out


def _delong_sums(
    ranked: Any,
    pv: np.ndarray,
    wv: np.ndarray | None,
    response: np.ndarray,
    ce: np.ndarray,
    cn: np.ndarray,
    total_e: float,
    total_n: float,
) -> tuple[float, ...]:
    """DeLong's structural components of this bucket's rows, summed (DeLong, DeLong &
    Clarke-Pearson 1988): per class the sums of ``v w^2``, ``V w^2`` and ``V^2 w^2`` and the
    row count, with ``V`` the share of the other class below a row (ties 1/2)."""
    ge = np.diff(ranked.cum_events)
    gn = np.diff(ranked.cum_nonevents)
    if wv is None:
        e2, n2 = ge, gn
        e_rows, n_rows = ge, gn
    else:
        order = np.argsort(-pv, kind="stable")
        ps = pv[order]
        starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
        w2, r = wv[order] ** 2, response[order]
        e2 = np.add.reduceat(w2 * r, starts)
        n2 = np.add.reduceat(w2 * (1.0 - r), starts)
        e_rows = np.add.reduceat((wv[order] > 0) * r, starts)
        n_rows = np.add.reduceat((wv[order] > 0) * (1.0 - r), starts)
    v10 = (total_n - cn[1:] + gn / 2.0) / total_n  # events: non-events below, ties 1/2
    v01 = (ce[:-1] + ge / 2.0) / total_e  # non-events: events above, ties 1/2
    return (
        float(np.sum(e2)),
        float(np.sum(e2 * v10)),
        float(np.sum(e2 * v10 * v10)),
        float(np.sum(e_rows)),
        float(np.sum(n2)),
        float(np.sum(n2 * v01)),
        float(np.sum(n2 * v01 * v01)),
        float(np.sum(n_rows)),
    )


def truth_partition(
    part: Any,
    y: str,
    weight: str | None,
    n_models: int,
    carry: dict[int, Any],
    total_w: float,
    *,
    per_row: bool = False,
) -> dict[str, Any]:
    """One truth bucket after the shuffle by truth: pairs sharing it, and the Spearman sums.

    For each model, the pairs of the bucket in different prediction buckets are counted by one
    sweep over (truth, prediction bucket); the pairs in one prediction bucket were counted
    there. ``carry[bucket]`` is the weight (or row count) of the truth buckets below.
    ``per_row`` (unweighted) adds ``out["_rows"]``: the size of every row's ``y`` tie group, its
    doubled midrank of ``y`` and, per model, its concordant minus discordant partners in that
    sweep (for Noether's interval and the leave-one-out rules of the robustness table).
    """
    out: dict[str, Any] = {"n": len(part)}
    if len(part) == 0:
        return out
    bucket = int(part[T_BUCKET].iloc[0])
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    wv = None if weight is None else np.ascontiguousarray(part[weight].to_numpy(dtype=np.float64))
    unit = wv is None
    below = carry[bucket]
    if wv is None:
        # the midranks of y from its dense ranks (the order inside a tie group does not matter)
        y_rank, n_y = _xs.dense_ranks(yv, import_kernels=True)
        b, sizes = _unit_midranks(y_rank, n_y, below)
        out["t3"] = int(_kr.sum_t3_minus_t(sizes))
        rows: dict[str, Any] = {"y_ties": sizes[y_rank], "h": [], "y_mid": b}
    else:
        b = _weighted_midranks(yv, wv, below)
    models = []
    for k in range(n_models):
        a = part[midrank_column(k)].to_numpy()
        pb = np.ascontiguousarray(part[bucket_column(k)].to_numpy().astype(np.float64))
        if wv is None:
            stats, _, _, h = _unit_sweep(yv, pb, per_row)
            rows["h"].append(h)
            cross = exact_dot(a.astype(np.int64), b)
            models.append({"pairs": local_pairs(stats, unit), "s2": cross})
        else:
            stats = rank_sweep(yv, pb, wv)[0]
            half = total_w / 2.0
            da, db = a - half, b - half
            models.append(
                {
                    "pairs": local_pairs(stats, unit),
                    "cov": float(np.sum(wv * da * db)),
                    "var_b": float(np.sum(wv * db * db)),
                }
            )
    out["models"] = models
    if unit and per_row:
        out["_rows"] = rows
    return out


def exact_dot(a: np.ndarray, b: np.ndarray) -> int:
    """``sum a_i b_i`` as an exact Python int for integer ``a`` and ``b`` of any sign.

    Below ``2**31`` in magnitude each product fits int64 (``< 2**62``) and is split into its
    high and low 31 bits, whose int64 sums cannot overflow (at most ``2**31`` rows a block).

    Parameters
    ----------
    a, b : ndarray of int
        The two vectors, of the same length.

    Returns
    -------
    int
        The dot product, exactly.
    """
    if a.size == 0:
        return 0
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    limit = 1 << 31
    if max(int(a.max()), int(b.max())) >= limit or min(int(a.min()), int(b.min())) < -limit:
        # beyond 2**30 rows: Python integers (slow, exact)
        return sum(int(u) * int(v) for u, v in zip(a.tolist(), b.tolist(), strict=True))
    total = 0
    block = 1 << 31
    for first in range(0, a.size, block):
        prod = a[first : first + block] * b[first : first + block]  # |prod| < 2**62
        high = prod >> 31  # floor: prod = high * 2**31 + low, 0 <= low < 2**31
        prod &= limit - 1
        total += (int(high.sum()) << 31) + int(prod.sum())
    return total


def exact_sum(v: np.ndarray) -> int:
    """``sum v_i`` as an exact Python int for an integer array.

    Parameters
    ----------
    v : ndarray of int
        The values.

    Returns
    -------
    int
        Their sum, exactly.
    """
    v = np.asarray(v, dtype=np.int64)
    if v.size == 0:
        return 0
    if v.size < 1 << 31 and max(abs(int(v.max())), abs(int(v.min()))) < 1 << 31:
        return int(v.sum())  # at most 2**62 in magnitude: no int64 overflow
    return int(v.sum(dtype=object))


def binned_counts(
    part: Any, y: str, pred: str, weight: str | None, threshold: float, bounds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Events and non-events (weighted) per prediction bin, for the binned AUC."""
    yv, (pv,), wv = partition_arrays(part, y, [pred], weight)
    b = bucket_of(pv, bounds)
    ev = (yv >= threshold).astype(np.float64)
    w = np.ones_like(yv) if wv is None else wv
    size = bounds.size + 1
    return (
        np.bincount(b, weights=w * ev, minlength=size),
        np.bincount(b, weights=w * (1.0 - ev), minlength=size),
    )


# ------------------------------------------------------------------------------------------------
# Poisson bootstrap: replicate weights keyed by row position or unit label (never by partition)

KEY = "_ranklens_key"

#: Replicate-weight cells (float64) held at once in one partition.
BLOCK_CELLS = 1 << 22


def add_key(part: Any, offset: int, groups: str | None, block_rows: int | None = None) -> Any:
    """The partition with its bootstrap key: the global row position, the unit's key, or, with
    ``block_rows``, its block's key (:func:`block_keys`)."""
    from ranklens._inference.resampling import group_keys

    if groups is not None:
        keys = group_keys(part[groups])
    elif block_rows is not None:
        keys = block_keys(offset, len(part), block_rows)
    else:
        keys = np.arange(offset, offset + len(part), dtype=np.uint64)
    return part.assign(**{KEY: keys})


def block_keys(offset: int, rows: int, block_rows: int) -> np.ndarray:
    """The keys of ``rows`` rows from the global position ``offset`` on, in blocks of
    ``block_rows`` consecutive rows: :func:`ranklens._inference.resampling.group_keys` of the
    block numbers ``position // block_rows``, so every row of a block gets the block's weight,
    as ``compare_models(scheme="poisson", groups=positions // block_rows)`` weighs them."""
    from ranklens._inference.resampling import group_keys

    positions = np.arange(offset, offset + rows, dtype=np.int64)
    return group_keys(positions // int(block_rows))


def replicate_weights(
    keys: np.ndarray, w: np.ndarray | None, reps: np.ndarray, seed: int
) -> np.ndarray:
    """The Poisson bootstrap weights of some rows in some replicates, drawn from the rows' keys.

    A row's count in a replicate depends on its key, the replicate and the seed only, so every
    partition draws the same counts for its rows however the data are split.

    Parameters
    ----------
    keys : ndarray
        The rows' keys (cast to uint64).
    w : ndarray of float64 or None
        Case weights that multiply the counts.
    reps : ndarray
        The replicates' numbers.
    seed : int
        The bootstrap's seed.

    Returns
    -------
    ndarray of float64 of shape (len(reps), len(keys))
        The counts, times the case weights.
    """
    from ranklens._inference.resampling import poisson_weights

    c = poisson_weights(np.ascontiguousarray(keys, dtype=np.uint64), reps, seed)
    out = c.astype(np.float64)
    if w is not None:
        out *= w
    return out


def bootstrap_sums(
    part: Any,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    ratio_forms: Sequence[Any],
    threshold: float,
    p_bounds: Sequence[np.ndarray],
    reps: np.ndarray,
    seed: int,
) -> dict[str, Any]:
    """Per replicate: the mergeable sums of every model and form, and the weight and events of
    every prediction bucket (the carry-ins of the curve pieces)."""
    yv, pv, wv = partition_arrays(part, y, preds, weight)
    keys = part[KEY].to_numpy()
    n_b = reps.size
    sums = np.zeros((len(preds), len(ratio_forms), 2, n_b))
    buckets = [np.zeros((2, n_b, b.size + 1)) for b in p_bounds]
    rows = max(1, BLOCK_CELLS // max(1, n_b))
    for start in range(0, yv.size, rows):
        sl = slice(start, start + rows)
        rw = replicate_weights(keys[sl], None if wv is None else wv[sl], reps, seed)
        ev = (yv[sl] >= threshold).astype(np.float64)
        for k, p in enumerate(pv):
            for j, form in enumerate(ratio_forms):
                try:
                    num, den = form.row_terms(yv[sl], p[sl])
                except ValueError:
                    sums[k, j] = np.nan
                    continue
                sums[k, j, 0] += rw @ num
                sums[k, j, 1] += rw @ den
            pb = bucket_of(p[sl], p_bounds[k])
            size = p_bounds[k].size + 1
            for r in range(n_b):
                buckets[k][0, r] += np.bincount(pb, weights=rw[r], minlength=size)
                buckets[k][1, r] += np.bincount(pb, weights=rw[r] * ev, minlength=size)
    return {"sums": sums, "buckets": buckets}


def bootstrap_curve(
    yv: np.ndarray,
    pv: np.ndarray,
    wv: np.ndarray | None,
    keys: np.ndarray,
    threshold: float,
    carry: dict[str, np.ndarray],
    reps: np.ndarray,
    seed: int,
    depths: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Per replicate, the curve pieces of one prediction bucket (as in
    :func:`prediction_partition`, with the replicate's weights and carry-ins), among them
    ``out["ap_sum"][r]``, the average precision's terms times the events; with ``depths``,
    ``out["lift"][r, i]`` the cumulative lift at ``depths[i]`` where replicate ``r``'s curve
    reaches that depth inside this bucket (NaN elsewhere: one bucket holds it)."""
    order = np.argsort(-pv, kind="stable")
    ps = pv[order]
    starts = np.flatnonzero(np.r_[True, ps[1:] != ps[:-1]])
    ev = (yv[order] >= threshold).astype(np.float64)
    n_b = reps.size
    names = ("roc_twice", "ks", "gain_area2", "ap_sum")
    out: dict[str, np.ndarray] = {name: np.zeros(n_b) for name in names}
    lift = np.full((n_b, 0 if depths is None else depths.size), np.nan)
    block = max(1, BLOCK_CELLS // max(1, pv.size))
    for first in range(0, n_b, block):
        sl = slice(first, first + block)
        rw = replicate_weights(keys[order], None if wv is None else wv[order], reps[sl], seed)
        gw = np.add.reduceat(rw, starts, axis=1)
        ge = np.add.reduceat(rw * ev, starts, axis=1)
        zero = np.zeros((gw.shape[0], 1))
        cw = carry["w_above"][sl, None] + np.concatenate([zero, np.cumsum(gw, axis=1)], axis=1)
        ce = carry["e_above"][sl, None] + np.concatenate([zero, np.cumsum(ge, axis=1)], axis=1)
        cn = carry["n_above"][sl, None] + np.concatenate([zero, np.cumsum(gw - ge, axis=1)], axis=1)
        e_tot, n_tot, w_tot = carry["E"][sl, None], carry["N"][sl, None], carry["W"][sl, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            out["roc_twice"][sl] = np.sum(
                (cn[:, 1:] - cn[:, :-1]) * (ce[:, 1:] + ce[:, :-1]), axis=1
            )
            out["ks"][sl] = np.max(ce[:, 1:] / e_tot - cn[:, 1:] / n_tot, axis=1)
            x = cw / w_tot
            g = ce / e_tot
            out["gain_area2"][sl] = np.sum((x[:, 1:] - x[:, :-1]) * (g[:, 1:] + g[:, :-1]), axis=1)
            # the average precision's terms dE_k cumE_k / cumW_k at each distinct score (a
            # score of no weight in the replicate adds no events: its term is 0, not 0/0)
            precision = np.divide(ce[:, 1:], cw[:, 1:], out=np.zeros_like(ge), where=ge > 0)
            out["ap_sum"][sl] = np.sum(ge * precision, axis=1)
            # the lift where the depth falls in this piece of the curve (as prediction_partition)
            for i, d in enumerate(() if depths is None else depths.tolist()):
                for r in np.flatnonzero((d > x[:, 0]) & (d <= x[:, -1])):
                    lift[first + r, i] = float(np.interp(d, x[r], g[r])) / d
    if depths is not None:
        out["lift"] = lift
    return out


def _restore_bucket(
    part: Any, column: str, dtype: Any, order: list[str] | None, partition_info: Any = None
) -> Any:
    """The partition with its bucket column (the partition's number) put back, the columns in
    ``order`` (None: the bucket column last)."""
    part = part.assign(**{column: np.full(len(part), partition_info["number"], dtype)})
    return part if order is None else part[order]


#: The column name that every shuffle method of Dask reads as the output partition number.
_PARTITION_NUMBER = "_partitions"


def by_bucket(frame: Any, column: str, n_parts: int) -> Any:
    """``frame`` shuffled so that partition ``i`` holds the rows whose ``column`` is ``i``.

    Dask's shuffle with ``column`` itself as the output partition number: ``set_index`` with
    the divisions ``0, 1, ..., n_parts`` shuffles the same way, but moves a second copy of the
    column (the partition number it computes) and then sets and sorts the index; here the column
    is not moved at all (it is the partition number) and is put back after the shuffle.
    ``set_index`` where this dask has no such shuffle expression (the expression is not public
    API: a dask without it, or with another signature, takes the public route; the numbers are
    the same either way, tested).
    """
    expression = _shuffle_expression()
    if expression is not None and _PARTITION_NUMBER not in frame.columns:
        shuffle, new_collection = expression
        # under this name: Dask's task-based shuffle takes a column named otherwise for keys to
        # hash, and its partitions would not be the buckets (the peer-to-peer and disk-based
        # shuffles take any column as the partition number)
        numbered = frame.rename(columns={column: _PARTITION_NUMBER})
        try:
            moved = new_collection(
                shuffle(numbered.expr, _PARTITION_NUMBER, n_parts, True, None, None)
            )
        except (TypeError, AttributeError):  # the private expression changed: the public route
            moved = None
        if moved is not None:
            dtype = frame._meta[column].dtype
            rest = moved[[c for c in frame.columns if c != column]]
            order = None if frame.columns[-1] == column else list(frame.columns)
            return rest.map_partitions(_restore_bucket, column, dtype, order, meta=frame._meta)
    return frame.set_index(column, divisions=list(range(n_parts + 1)), drop=False)


def _shuffle_expression() -> tuple[Any, Any] | None:
    """Dask's shuffle expression and its collection constructor, or None where not present."""
    try:
        from dask.dataframe.dask_expr._collection import new_collection
        from dask.dataframe.dask_expr._shuffle import Shuffle
    except ImportError:  # a dask before the expression engine
        return None
    return Shuffle, new_collection
