"""The robustness table (Rosset, Perlich & Zadrozny 2005, Table 1) on Dask, from candidate rows.

The table is computed by runs of its own four measures (unweighted, as in memory; one model a
run) after the report's passes, so that its per-row columns never ride along the report's
shuffles.

For each measure of :data:`ranklens.robustness.TABLE1_METRICS` the in-memory
:func:`ranklens.robustness.most_influential` evaluates the measure without row ``i`` for every
row (its exact leave-one-out rule) and keeps the row furthest from the value on all rows,
``argmax_i |m_{-i} - m|`` (the first row on a tie; rows whose leave-one-out value is undefined are
skipped). On Dask no per-row array reaches the client: each partition returns the few rows that
can be furthest, and the client evaluates those candidates with the in-memory formula. Which
rule applies is read from the measure's registration (its
:class:`~ranklens.metrics.MetricSpec` capabilities), never from its name:

* a mean of a per-row loss (a :class:`~ranklens._foundation.forms.RatioForm` without denominator):
  ``m_{-i} = f((S - x_i) / (n - 1))`` with ``S = sum_j x_j`` and ``f`` the form's (monotone)
  ``finalize``, so the furthest row is the row of the largest or of the smallest loss ``x_i``
  (the first of each). The scan returns, per partition, its sum and those two rows with the sum of
  the partition without each (no subtraction: no cancellation when one row holds almost all of
  the loss, as the in-memory prefix and suffix sums); the client adds the other partitions'
  sums with :func:`math.fsum`.
* Kendall's tau-b: removing row ``i`` removes its ``n - 1`` pairs, so

  ``tau_{-i} = ((C - D) - h_i) / sqrt((P' - T_y + t^y_i - 1) (P' - T_p + t^p_i - 1))``

  with ``P' = (n - 1)(n - 2) / 2``, ``C``, ``D``, ``T_y``, ``T_p`` the concordant, discordant and
  tied (in ``y``, in the prediction) pairs, ``h_i`` the concordant minus discordant partners of
  row ``i`` and ``t^y_i``, ``t^p_i`` the sizes of its tie groups. For a fixed ``(t^y_i, t^p_i)``
  this is linear in ``h_i``: per partition, for every distinct ``(t^y, t^p)``, the rows of the
  largest and of the smallest ``h`` (the first of each, by input position) are the candidates.
  ``h_i`` and the tie sizes are the per-row counts of Noether's interval
  (:mod:`ranklens.dask._noether`), complete after the shuffle by truth (or, for the rows of a
  truth bucket with one value, after the shuffle by prediction); the row's input position
  travels through the shuffles as the column :data:`POS`.
* Spearman's rho (midranks): the exact update of ``ranklens.ranking._loo_spearman_rho``
  (:func:`rho_candidates`) needs, per row, the centred doubled midranks ``u_i``, ``v_i`` of
  ``y`` and of the prediction, the signed sums ``S_x(W)_i = sum_j sign(y_j - y_i) W_j`` and
  ``S_z(W)_i = sum_j sign(p_j - p_i) W_j`` of ``U`` and ``V``, ``h_i`` and the tie sizes, all
  exact integers. ``S_z(V)`` is formed in the shuffle by prediction, ``S_x(U)`` and ``S_x(V)``
  in the shuffle by truth (the buckets above a bucket enter as totals: the centred midranks of
  a bucket's positions sum to a function of its row count, :func:`above_sums`, and each
  prediction bucket sums its ``v`` per truth bucket); the rows then go back into each model's
  prediction buckets (one more shuffle per model, :func:`truth_rows`, :func:`alone_rows`) for
  ``S_z(U)``, where each bucket returns its rows of largest and smallest ``rho_{-i}``: one of
  them is the furthest from ``rho``. Only the part of ``S_z(U)_i`` from row ``i``'s own
  prediction bucket needs that shuffle, and the bucket's sums of its positive and of its
  negative ``u`` bound it; so every row sends back only its two midranks
  (:func:`rho_slim`), and its other columns go back only when its bounds leave it possibly the
  furthest (:func:`rho_bounds`, :func:`rho_survivors`): on the benchmark's data, 0.02 to
  0.2 % of the rows with 400 buckets (at worst all of them, as before).

Floats equal the in-memory ones to rounding (the candidates' sums are added in another order)
and the row is the same: the in-memory search breaks an exact tie of two rows' distances by
position, as here. One exception for the losses: where rows' losses differ by less than a
rounding of the total, the in-memory search (the correctly rounded total less each row's loss)
sees them tied and keeps the first of them; here the exact order of the losses decides (the
first row of the largest loss), and the row may differ from the in-memory one while the values
agree to rounding. Rows of exactly the largest loss are told apart alike (the first).

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
doi:10.1109/ICDM.2005.126

Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.

Spearman, C. (1904). The proof and measurement of association between two things. *American
Journal of Psychology* 15(1), 72-101.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.format import percent_change
from ranklens._foundation.forms import RankStatistic, RankSweepForm, RatioForm
from ranklens._foundation.registry import MetricSpec
from ranklens.dask import _noether as _nt
from ranklens.dask._passes import (
    BUCKET_DTYPE,
    T_BUCKET,
    bucket_column,
    bucket_of,
    exact_dot,
    midrank_column,
    midrank_dtype,
    release_unused_memory,
)
from ranklens.exceptions import warn_undefined
from ranklens.metrics import get_metric
from ranklens.robustness import TABLE1_METRICS, RobustnessTableResult

#: The column carrying each row's position in the input (partitions laid end to end).
POS = "_ranklens_pos"

#: How many times the report's buckets the table's own run cuts the rows into: its shuffles carry
#: more per-row columns than the report's (each row's position, Spearman's leave-one-out sums)
#: and Spearman's rho shuffles each model's rows once more, so each task gets half the rows.
BUCKETS_FACTOR = 2

#: The leave-one-out rules the engine evaluates from candidates.
LOSS, TAU, RHO = "mean of a per-row loss", "Kendall's tau-b", "Spearman's rho"

#: Columns of a candidate row of Kendall's tau-b.
_CANDIDATE_COLUMNS = 4  # (t^y, t^p, h, position)

#: The columns of the rows sent back to the order of a prediction for Spearman's rho.
TB, U, A, X, SSX, SSZ, PB = (f"_ranklens_r{c}" for c in ("tb", "u", "a", "x", "sx", "sz", "pb"))

#: The columns every row sends back to its prediction bucket (the others travel only with the
#: rows that can be the furthest, :func:`rho_survivors`).
SLIM_COLUMNS = (A, U, PB)


def z_column(model_index: int) -> str:
    """The column carrying a row's ``v^2 + 2 S_z(V) - (n - t^p)`` of one model (Spearman)."""
    return f"_ranklens_z{model_index}"


def meta_columns(model_index: int) -> dict[str, np.ndarray]:
    """Empty columns for the meta of the frames after a model's shuffle by prediction."""
    return {z_column(model_index): np.zeros(0, np.int64)}


def slim_meta(n: int) -> Any:
    """The meta of :func:`rho_slim`."""
    return rho_meta(n)[list(SLIM_COLUMNS)]


def rho_meta(n: int) -> Any:
    """The meta of the rows sent back to the order of a prediction (see :func:`truth_rows`)."""
    import pandas as pd

    ranks = midrank_dtype(n, True)
    columns: dict[str, Any] = {POS: np.zeros(0, position_dtype(n)), TB: np.zeros(0, np.int32)}
    columns.update({U: np.zeros(0, ranks), A: np.zeros(0, ranks)})
    columns.update({c: np.zeros(0, np.int64) for c in (X, SSX, SSZ)})
    columns[PB] = np.zeros(0, BUCKET_DTYPE)
    return pd.DataFrame(columns)


def _signed_parts(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every row: the sum of ``values`` over the rows of larger ``keys`` and over the rows of
    equal ``keys`` (the row included), exact in int64."""
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    first = np.r_[True, ks[1:] != ks[:-1]]
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], ks.size]
    cum = np.r_[np.int64(0), np.cumsum(values[order], dtype=np.int64)]
    group = np.empty(keys.size, np.int64)
    group[order] = np.cumsum(first) - 1
    return (cum[-1] - cum[ends])[group], (cum[ends] - cum[starts])[group]


def above_sums(counts: np.ndarray, n: int) -> np.ndarray:
    """Per bucket, the sum of the centred doubled midranks ``2 r - (n + 1)`` of the rows of the
    buckets above it (``counts``: rows per bucket, in increasing value): a bucket of ``m`` rows
    above ``b`` rows holds the positions ``b + 1 .. b + m``, whose sum does not depend on ties."""
    m = np.asarray(counts, dtype=np.int64)
    below = np.cumsum(m) - m
    per = m * (2 * below + m + 1) - m * (n + 1)
    return np.cumsum(per[::-1])[::-1] - per


def table_specs() -> list[MetricSpec]:
    """The measures of the table, as :func:`ranklens.robustness_table` resolves them."""
    return [get_metric(name) for name in TABLE1_METRICS]


def rule(spec: MetricSpec) -> str | None:
    """The leave-one-out rule the engine applies to ``spec`` (None: none it can distribute)."""
    caps = spec.capabilities
    if caps.leave_one_out is None or spec.inputs != "point":
        return None
    form = caps.batched
    if isinstance(form, RatioForm) and form.denominator is None:
        return LOSS
    if isinstance(form, RankSweepForm) and form.statistic is RankStatistic.KENDALL_TAU_B:
        return TAU
    if isinstance(form, RankSweepForm) and form.statistic is RankStatistic.SPEARMAN_RHO:
        return RHO
    return None


def position_dtype(n: int) -> Any:
    """The smallest unsigned integer dtype that holds every position ``0 .. n - 1``."""
    return np.min_scalar_type(max(int(n) - 1, 0))


def with_positions(dask: Any, dd: Any, frame: Any, part_rows: Sequence[int], n: int) -> Any:
    """``frame`` with the column :data:`POS` (``part_rows``: the rows of each partition)."""
    dtype = position_dtype(n)
    offsets = np.r_[0, np.cumsum(part_rows)[:-1]].astype(np.int64)
    meta = frame._meta.assign(**{POS: np.zeros(0, dtype)})
    return dd.from_delayed(
        [
            dask.delayed(_add_positions)(part, int(offset), dtype)
            for part, offset in zip(frame.to_delayed(), offsets, strict=True)
        ],
        meta=meta,
        verify_meta=False,
    )


def _add_positions(part: Any, offset: int, dtype: Any) -> Any:
    return part.assign(**{POS: np.arange(offset, offset + len(part)).astype(dtype)})


# --------------------------------------------------------------------------------------------
# On the workers


def tau_candidates(h: np.ndarray, ty: np.ndarray, tp: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For every distinct ``(t^y, t^p)`` of these rows, the first row (by input position) of the
    largest and of the smallest ``h``: an int64 array of rows ``(t^y, t^p, h, position)``."""
    if h.size == 0:
        return np.zeros((0, _CANDIDATE_COLUMNS), np.int64)
    h, ty, tp = (np.asarray(v, dtype=np.int64) for v in (h, ty, tp))
    pos = np.asarray(pos, dtype=np.int64)
    found = []
    for key in (-h, h):
        order = np.lexsort((pos, key, tp, ty))
        a, b = ty[order], tp[order]
        first = order[np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]]
        found.append(np.stack([ty[first], tp[first], h[first], pos[first]], axis=1))
    return np.unique(np.concatenate(found), axis=0)


def prediction_bucket(
    frame: Any,
    y: str,
    model_index: int,
    t_bounds: np.ndarray,
    single: np.ndarray,
    t_sizes: np.ndarray,
    n: int,
    rho: dict[str, Any] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """One prediction bucket after Noether's per-row counts (``frame``: the bucket with the
    columns of :func:`ranklens.dask._noether.prediction_rows` and :data:`POS`).

    Returns the frame (with ``rho``, the column :func:`z_column` added: Spearman's
    ``v_i^2 + 2 S_z(V)_i - (n - t^p_i)`` of every row, see :func:`rho_candidates`) and the
    summary: ``"tau"``, the tau candidates among the rows of single-valued truth buckets (their
    counts are complete after the shuffle by prediction: every partner in their truth bucket is
    tied in ``y``); with ``rho``, ``"v_by_t"``, the sums of ``v`` per truth bucket (exact).
    ``rho`` holds ``v_above``, the sum of ``v`` over the prediction buckets above this one, and
    ``n_truth``, the number of truth buckets.
    """
    out: dict[str, Any] = {}
    empty = np.zeros(0, np.int64)
    if len(frame) == 0:
        out["tau"] = tau_candidates(empty, empty, empty, empty)
        if rho is not None:
            frame = frame.assign(**{z_column(model_index): empty})
            out["v_by_t"] = np.zeros(rho["n_truth"], np.int64)
        return frame, out
    tb = bucket_of(frame[y].to_numpy(dtype=np.float64), t_bounds)
    q = frame[_nt.p_column(model_index)].to_numpy().astype(np.int64)
    alone = np.isin(tb, single)
    h = frame[_nt.h_column(model_index)].to_numpy()[alone]
    ty = np.asarray(t_sizes, np.int64)[tb[alone]]
    out["tau"] = tau_candidates(h, ty, n - q[alone], frame[POS].to_numpy()[alone])
    if rho is not None:
        v = frame[midrank_column(model_index)].to_numpy().astype(np.int64) - (n + 1)
        above, group = _signed_parts(v, v)
        szv = 2 * (above + int(rho["v_above"])) + group
        frame = frame.assign(**{z_column(model_index): v * v + 2 * szv - q})
        v_by_t = np.zeros(rho["n_truth"], np.int64)
        np.add.at(v_by_t, tb, v)
        out["v_by_t"] = v_by_t
    return frame, out


def truth_candidates(part: Any, rows: dict[str, Any], n_models: int, n: int) -> list[np.ndarray]:
    """Per model, the tau candidates of one truth bucket after the shuffle by truth: ``h`` is the
    carried class 1 + 2 count plus the class-3 count of the bucket's sweep (``rows``, from
    :func:`ranklens.dask._passes.truth_partition`)."""
    pos = part[POS].to_numpy()
    out = []
    for k in range(n_models):
        h = part[_nt.h_column(k)].to_numpy().astype(np.int64) + rows["h"][k]
        q = part[_nt.p_column(k)].to_numpy().astype(np.int64)
        out.append(tau_candidates(h, rows["y_ties"], n - q, pos))
    return out


def _rho_frame(
    pos: np.ndarray,
    tb: np.ndarray,
    u: np.ndarray,
    a: np.ndarray,
    x: np.ndarray,
    ssx: np.ndarray,
    ssz: np.ndarray,
    pb: np.ndarray,
    n: int,
) -> Any:
    import pandas as pd

    # the midranks (doubled, and centred: |u| < n) in int32 below n = 2^30, as the shuffles'
    # midrank columns: 44 bytes a row sent back rather than 52
    ranks = midrank_dtype(n, True)
    return pd.DataFrame(
        {
            POS: np.asarray(pos).astype(position_dtype(n)),
            TB: np.asarray(tb).astype(np.int32),
            U: np.asarray(u).astype(ranks),
            A: np.asarray(a).astype(ranks),
            X: x,
            SSX: ssx,
            SSZ: ssz,
            PB: np.asarray(pb).astype(BUCKET_DTYPE),
        }
    )


def _rho_sums(u: np.ndarray, v: np.ndarray, pb: np.ndarray, n_pred: int) -> dict[str, Any]:
    """The sums of ``u`` per prediction bucket (all of them, the positive ones and the negative
    ones: the last two bound a row's ``S_z(U)`` before the shuffle back) and the exact totals."""
    bucket = pb.astype(np.int64)
    return {
        "u_by_p": _bucket_sums(bucket, u, n_pred),
        "u_pos_by_p": _bucket_sums(bucket, np.maximum(u, 0), n_pred),
        "u_neg_by_p": _bucket_sums(bucket, np.minimum(u, 0), n_pred),
        "uu": exact_dot(u, u),
        "vv": exact_dot(v, v),
        "uv": exact_dot(u, v),
    }


def _bucket_sums(bucket: np.ndarray, values: np.ndarray, n_buckets: int) -> np.ndarray:
    """Exact int64 sums of ``values`` per bucket (``np.bincount`` would add them as floats)."""
    out = np.zeros(n_buckets, np.int64)
    np.add.at(out, bucket, np.asarray(values, dtype=np.int64))
    return out


def truth_rows(
    part: Any, rows: dict[str, Any] | None, n: int, u_above: int, n_pred: Sequence[int]
) -> tuple[list[Any], list[dict[str, Any]]]:
    """One truth bucket after the shuffle by truth (``part``, its index reset; ``rows``, the
    per-row counts of its sweeps, :func:`ranklens.dask._passes.truth_partition`, None when it
    is empty; the centred doubled midranks of ``y`` above it sum to ``u_above``): per model, its
    rows with what Spearman's leave-one-out needs of the order of ``y`` (see
    :func:`rho_candidates`), to be sent back to the order of the prediction, and their sums
    (``n_pred``: prediction buckets per model)."""
    n_models = len(n_pred)
    if len(part) == 0 or rows is None:
        empty = np.zeros(0, np.int64)
        return (
            [_rho_frame(*(empty,) * 8, n) for _ in range(n_models)],
            [_rho_sums(empty, empty, empty, m) for m in n_pred],
        )
    doubled = np.asarray(rows["y_mid"], dtype=np.int64)
    u = doubled - (n + 1)
    above, group = _signed_parts(doubled, u)
    ssx = u * u + 2 * (2 * (above + u_above) + group) - (n - np.asarray(rows["y_ties"], np.int64))
    pos, tb = part[POS].to_numpy(), part[T_BUCKET].to_numpy()
    frames, sums = [], []
    for k in range(n_models):
        a = part[midrank_column(k)].to_numpy().astype(np.int64)
        v = a - (n + 1)
        pb = part[bucket_column(k)].to_numpy()
        h = part[_nt.h_column(k)].to_numpy().astype(np.int64) + rows["h"][k]
        above_v, group_v = _signed_parts(doubled, v)
        x = u * v + 2 * above_v + group_v - h  # S_x(V) without the buckets above: on the client
        ssz = part[z_column(k)].to_numpy().astype(np.int64)
        frames.append(_rho_frame(pos, tb, u, a, x, ssx, ssz, pb, n))
        sums.append(_rho_sums(u, v, pb, n_pred[k]))
    return frames, sums


def alone_rows(
    frame: Any,
    y: str,
    model_index: int,
    n: int,
    t_bounds: np.ndarray,
    single: np.ndarray,
    t_counts: np.ndarray,
    n_pred: int,
) -> tuple[Any, dict[str, Any]]:
    """The rows of single-valued truth buckets of one prediction bucket (they skip the shuffle
    by truth), as :func:`truth_rows` gives the others: every partner in their truth bucket has
    their ``y``, so the bucket's counts give their midrank and sums."""
    empty = np.zeros(0, np.int64)
    if len(frame) == 0 or not single.size:
        return _rho_frame(*(empty,) * 8, n), _rho_sums(empty, empty, empty, n_pred)
    counts = np.asarray(t_counts, dtype=np.int64)
    tb = bucket_of(frame[y].to_numpy(dtype=np.float64), t_bounds)
    keep = np.isin(tb, single)
    tb = tb[keep]
    t = counts[tb]
    u = 2 * (np.cumsum(counts) - counts)[tb] + t - n
    u_above = above_sums(counts, n)[tb]
    ssx = u * u + 2 * (2 * u_above + t * u) - (n - t)
    a = frame[midrank_column(model_index)].to_numpy()[keep].astype(np.int64)
    v = a - (n + 1)
    h = frame[_nt.h_column(model_index)].to_numpy()[keep].astype(np.int64)
    x = u * v - h  # S_x(V), the bucket's and those above, added on the client
    ssz = frame[z_column(model_index)].to_numpy()[keep].astype(np.int64)
    pb = frame[bucket_column(model_index)].to_numpy()[keep]
    pos = frame[POS].to_numpy()[keep]
    return _rho_frame(pos, tb, u, a, x, ssx, ssz, pb, n), _rho_sums(u, v, pb, n_pred)


def rho_constants(
    model_index: int,
    truth: Sequence[dict[str, Any]],
    alone: Sequence[dict[str, Any]],
    predicted: Sequence[dict[str, Any]],
    single: np.ndarray,
) -> dict[str, Any]:
    """The totals of one model: ``sum u v``, ``sum u^2``, ``sum v^2`` (exact), the sum of ``u``
    over the prediction buckets above each one, the sums of the positive and of the negative
    ``u`` in each one (:func:`rho_bounds`) and, per truth bucket, what ``S_x(V)`` adds for the
    rows in it (twice the sum of ``v`` above it, and the bucket's own sum for a single-valued
    one)."""
    parts = [t["rho"][model_index] for t in truth] + list(alone)
    u_by_p = np.sum([p["u_by_p"] for p in parts], axis=0)
    v_by_t = np.sum([p["robust"]["v_by_t"] for p in predicted], axis=0)
    v_above = np.cumsum(v_by_t[::-1])[::-1] - v_by_t
    own = np.zeros(v_by_t.size, np.int64)
    own[single] = v_by_t[single]
    return {
        "uv": sum(p["uv"] for p in parts),
        "uu": sum(p["uu"] for p in parts),
        "vv": sum(p["vv"] for p in parts),
        "u_above": np.cumsum(u_by_p[::-1])[::-1] - u_by_p,
        "u_pos": np.sum([p["u_pos_by_p"] for p in parts], axis=0),
        "u_neg": np.sum([p["u_neg_by_p"] for p in parts], axis=0),
        "add_x": 2 * v_above + own,
    }


def _rho_known(part: Any, constants: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the rows of ``part`` (rows of :func:`rho_meta`) know before the shuffle back: the
    exact ``u_i v_i + S_x(V)_i - h_i`` plus the prediction buckets above theirs in ``S_z(U)_i``
    (all of ``corr_i`` in :func:`rho_candidates` but the rows of their own prediction bucket),
    and the two sums of squares left without the row."""
    tb = part[TB].to_numpy().astype(np.int64)
    pb = part[PB].to_numpy().astype(np.int64)
    known = (
        part[X].to_numpy().astype(np.int64)
        + constants["add_x"][tb]
        + 2 * np.asarray(constants["u_above"], np.int64)[pb]
    )
    ss_x = float(constants["uu"]) - part[SSX].to_numpy().astype(np.float64)
    ss_z = float(constants["vv"]) - part[SSZ].to_numpy().astype(np.float64)
    return known, ss_x, ss_z


def _loo_rho(uv: int, corr: np.ndarray, ss_x: np.ndarray, ss_z: np.ndarray) -> np.ndarray:
    """``rho_{-i}`` from its exact integer parts, as ``ranklens.ranking._loo_spearman_rho``
    (NaN where a sum of squares left is not positive, clipped to [-1, 1]). Every step is
    monotone in ``corr`` (the roundings to float64 included), so bounds on ``corr`` bound it."""
    cross = float(uv) - corr.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = cross / (np.sqrt(ss_x) * np.sqrt(ss_z))
    rho[~((ss_x > 0) & (ss_z > 0))] = np.nan
    return np.clip(rho, -1.0, 1.0)


def _rho_range(part: Any, constants: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """For every row: the least and the largest ``rho_{-i}`` its prediction bucket allows.

    The rows of row ``i``'s own bucket enter ``S_z(U)_i`` as ``u_i + sum_j c_j u_j`` with
    ``c_j`` in {0, 1, 2} (below, tied with, above the row), which lies between
    ``u_i + 2 (N - min(u_i, 0))`` and ``u_i + 2 (P - max(u_i, 0))``, with ``P`` and ``N`` the
    sums of the bucket's positive and of its negative ``u``."""
    known, ss_x, ss_z = _rho_known(part, constants)
    u = part[U].to_numpy().astype(np.int64)
    pb = part[PB].to_numpy().astype(np.int64)
    low = known + u + 2 * (np.asarray(constants["u_neg"], np.int64)[pb] - np.minimum(u, 0))
    high = known + u + 2 * (np.asarray(constants["u_pos"], np.int64)[pb] - np.maximum(u, 0))
    uv = constants["uv"]
    return _loo_rho(uv, high, ss_x, ss_z), _loo_rho(uv, low, ss_x, ss_z)


def rho_bounds(part: Any, constants: dict[str, Any]) -> tuple[float, float]:
    """Of the rows of ``part`` (rows of :func:`rho_meta`): the largest of their least
    ``rho_{-i}`` and the smallest of their largest (:func:`_rho_range`; rows where it is
    undefined left out)."""
    if len(part) == 0:
        return -math.inf, math.inf
    least, largest = _rho_range(part, constants)
    defined = np.isfinite(least)
    if not defined.any():
        return -math.inf, math.inf
    return float(least[defined].max()), float(largest[defined].min())


def rho_thresholds(bounds: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The :func:`rho_bounds` of every part combined: no row whose largest ``rho_{-i}`` is below
    the first, or whose least one is above the second, can be the furthest from ``rho``."""
    highest = max((b[0] for b in bounds), default=-math.inf)
    lowest = min((b[1] for b in bounds), default=math.inf)
    return highest, lowest


def rho_slim(part: Any) -> Any:
    """What every row sends back to its prediction bucket: both midranks and the bucket."""
    return part[list(SLIM_COLUMNS)]


def rho_survivors(part: Any, constants: dict[str, Any], thresholds: tuple[float, float]) -> Any:
    """The rows of ``part`` that can hold the largest or the smallest ``rho_{-i}`` of all rows
    (``thresholds``: :func:`rho_thresholds`), with every column of :func:`rho_meta`.

    If row ``k`` holds the largest ``rho_{-i}``, ``rho_{-k}`` is at least every row's least
    value, so its own largest value is at least the first threshold: every row tied at the
    largest is kept (the first by position is chosen after), and likewise for the smallest.
    Undefined rows are never kept."""
    release_unused_memory()
    if len(part) == 0:
        return part
    least, largest = _rho_range(part, constants)
    with np.errstate(invalid="ignore"):
        keep = (largest >= thresholds[0]) | (least <= thresholds[1])
    return part.iloc[np.flatnonzero(keep)]


def rho_candidates(
    slim: Any, part: Any, constants: dict[str, Any], n: int
) -> list[tuple[int, float]]:
    """One prediction bucket after the shuffle back (``slim``: every row's :func:`rho_slim`;
    ``part``: its :func:`rho_survivors`): the rows of largest and smallest leave-one-out
    Spearman's rho (the first of each by position).

    With ``u``, ``v`` the centred doubled midranks of ``y`` and of the prediction (Spearman
    1904), ``S_x(W)_i = sum_j sign(y_j - y_i) W_j``, ``S_z(W)_i = sum_j sign(p_j - p_i) W_j``,
    ``h_i`` the concordant minus discordant partners and ``t^y_i``, ``t^p_i`` the tie sizes
    (``ranklens.ranking._loo_spearman_rho``):

    ``rho_{-i} = (UV - (u_i v_i + S_x(V)_i + S_z(U)_i - h_i))
    / sqrt((UU - (u_i^2 + 2 S_x(U)_i - (n - t^y_i))) (VV - (v_i^2 + 2 S_z(V)_i - (n - t^p_i))))``

    with ``UV = sum u v``, ``UU = sum u^2``, ``VV = sum v^2``; every term is an exact integer and
    the floats are the in-memory ones. The shuffle back brings ``u`` into the order of the
    prediction for the bucket's own part of ``S_z(U)_i``: twice the sum of ``u`` over its rows
    of larger prediction, plus the sum over its rows of the same prediction (the row
    included); the rest came with the row.
    """
    release_unused_memory()
    if len(part) == 0:
        return []
    keys = slim[A].to_numpy().astype(np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    cum = np.r_[np.int64(0), np.cumsum(slim[U].to_numpy().astype(np.int64)[order])]
    a = part[A].to_numpy().astype(np.int64)
    first = np.searchsorted(sorted_keys, a, side="left")
    after = np.searchsorted(sorted_keys, a, side="right")
    own = 2 * (cum[-1] - cum[after]) + (cum[after] - cum[first])
    known, ss_x, ss_z = _rho_known(part, constants)
    rho = _loo_rho(constants["uv"], known + own, ss_x, ss_z)
    ok = np.flatnonzero(np.isfinite(rho))
    if ok.size == 0:
        return []
    pos = part[POS].to_numpy().astype(np.int64)
    out = []
    for extreme in (rho[ok].max(), rho[ok].min()):
        at = ok[rho[ok] == extreme]
        out.append((int(pos[at].min()), float(extreme)))
    return out


# --------------------------------------------------------------------------------------------
# On the client


def _furthest(value: float, candidates: Sequence[tuple[int, float]]) -> tuple[int, float] | None:
    """The candidate ``(row, leave-one-out value)`` furthest from ``value`` (the first row on a
    tie; undefined values skipped), as :func:`ranklens.robustness.most_influential`."""
    best: tuple[int, float] | None = None
    best_distance = -math.inf
    for row, loo in sorted(candidates):
        distance = abs(loo - value)
        if math.isfinite(distance) and distance > best_distance:
            best, best_distance = (row, loo), distance
    return best


def loss_row(
    spec: MetricSpec, parts: Sequence[Any], offsets: Sequence[int], n: int
) -> tuple[float, tuple[int, float] | None]:
    """(value on all rows, furthest candidate) of a mean of a per-row loss from the scan's
    :func:`ranklens.dask._passes.loss_candidates` of every partition (``offsets``: each
    partition's first position)."""
    form = spec.capabilities.batched
    assert isinstance(form, RatioForm)
    for part in parts:
        if isinstance(part, Exception):
            raise part  # the measure's own domain check
    totals = [p[0] for p in parts]
    rows = [
        (offset + i, x, q, excl)
        for q, (p, offset) in enumerate(zip(parts, offsets, strict=True))
        for i, x, excl in p[1]
    ]
    with np.errstate(all="ignore"):
        value = float(form.finalize(np.float64(math.fsum(totals)) / np.float64(n)))
        picked = []
        if rows:
            # the largest and the smallest loss, the first of each (exact comparisons)
            top = min(rows, key=lambda r: (-r[1], r[0]))
            bottom = min(rows, key=lambda r: (r[1], r[0]))
            for row, _, q, excl in {top, bottom}:
                rest = math.fsum([*totals[:q], *totals[q + 1 :], excl])
                loo = float(form.finalize(np.float64(rest) / np.float64(n - 1)))
                picked.append((row, loo))
    return value, _furthest(value, picked)


def tau_row(
    spec: MetricSpec, value: float, n: int, classes: dict[str, Any], candidates: np.ndarray
) -> tuple[int, float] | None:
    """The furthest candidate of Kendall's tau-b (``value``: the measure on all rows) with the
    in-memory formula (``ranklens.ranking._loo_kendall_tau``) on the exact pair classes."""
    form = spec.capabilities.batched
    assert isinstance(form, RankSweepForm)
    if candidates.size == 0:
        return None
    m = n - 1
    pairs = m * (m - 1) // 2
    tied_y = int(classes["tied_true_only"]) + int(classes["tied_both"])
    tied_p = int(classes["tied_pred_only"]) + int(classes["tied_both"])
    conc, disc = int(classes["concordant"]), int(classes["discordant"])
    ty, tp, h, pos = (candidates[:, j] for j in range(_CANDIDATE_COLUMNS))
    with np.errstate(divide="ignore", invalid="ignore"):
        den = np.sqrt((pairs - tied_y + ty - 1).astype(np.float64)) * np.sqrt(
            (pairs - tied_p + tp - 1).astype(np.float64)
        )
        loo = ((conc - disc) - h) / den
        loo = np.asarray(form.transform(np.where(np.isfinite(loo), loo, np.nan)), np.float64)
    return _furthest(value, list(zip(pos.tolist(), loo.tolist(), strict=True)))


def table(
    specs: Sequence[MetricSpec],
    rows: Sequence[tuple[float, tuple[int, float] | None]],
    n: int,
) -> RobustnessTableResult:
    """The table from each measure's (value on all rows, furthest row); warns as
    :func:`ranklens.robustness.most_influential` where a measure's row is undefined."""
    if n < 3:
        raise ValueError(f"y_true has {n} observation(s); at least 3 are needed")
    entire, without, percent, index = [], [], [], []
    for spec, (value, best) in zip(specs, rows, strict=True):
        if math.isnan(value) or best is None:
            warn_undefined(
                f"most_influential is undefined for {spec.name!r}: the measure is NaN on the full "
                "data or on every leave-one-out sample"
            )
            entire.append(value)
            without.append(math.nan)
            percent.append(math.nan)
            index.append(-1)
            continue
        entire.append(value)
        without.append(best[1])
        percent.append(percent_change(best[1] - value, value))
        index.append(best[0])
    return RobustnessTableResult(
        metrics=tuple(s.name for s in specs),
        entire_set=np.array(entire, dtype=np.float64),
        excluding_one=np.array(without, dtype=np.float64),
        percent_change=np.array(percent, dtype=np.float64),
        index=np.array(index, dtype=np.int64),
        higher_is_better=np.array([s.higher_is_better for s in specs], dtype=bool),
    )


def model_table(
    specs: Sequence[MetricSpec],
    rules: Sequence[str | None],
    n: int,
    losses: Sequence[tuple[Sequence[Any], int]],
    values: dict[str, float],
    classes: dict[str, Any] | None,
    candidates: Sequence[np.ndarray],
    rho: Sequence[Sequence[tuple[int, float]]] | None = None,
) -> RobustnessTableResult:
    """One model's table on the client.

    Parameters
    ----------
    specs, rules : sequences
        The table's measures and their :func:`rule`.
    n : int
        Rows.
    losses : sequence of (list, int)
        Per partition: the model's :func:`ranklens.dask._passes.loss_candidates` of each loss
        measure (in the order of ``specs``) and the partition's first position.
    values : dict
        The model's values of the rank measures on all rows (unweighted).
    classes : dict or None
        The exact pair classes (``extras["pair_counts"][model]``).
    candidates : sequence of ndarray
        The tau candidates of every bucket (:func:`tau_candidates`).
    rho : sequence of lists, optional
        Spearman's candidates of every bucket (:func:`rho_candidates`).
    """
    rows = []
    j = 0
    for spec, r in zip(specs, rules, strict=True):
        if r is LOSS:
            parts = [p[j] for p, _ in losses]
            rows.append(loss_row(spec, parts, [offset for _, offset in losses], n))
            j += 1
        elif r is TAU and classes is not None:
            value = values[spec.name]
            found = np.concatenate(
                [c for c in candidates if c.size] or [np.zeros((0, 4), np.int64)]
            )
            rows.append((value, tau_row(spec, value, n, classes, found)))
        elif r is RHO and rho is not None:
            form = spec.capabilities.batched
            assert isinstance(form, RankSweepForm)
            pairs = [(row, float(form.transform(v))) for c in rho for row, v in c]
            rows.append((values[spec.name], _furthest(values[spec.name], pairs)))
        else:
            raise NotImplementedError(f"no distributed leave-one-out rule for {spec.name!r}")
    return table(specs, rows, n)
