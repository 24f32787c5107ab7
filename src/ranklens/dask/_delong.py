"""DeLong's inference on Dask beyond the AUC's interval: the interval of Harrell's C (and of
Somers' D = 2 C - 1) for any response, and the paired tests of two models' AUCs and of their
Harrell's C, from exact per-row sums formed in the passes the engine already makes.

DeLong's structural components (DeLong, DeLong & Clarke-Pearson 1988) of a concordance
probability ``C = sum_i w_i psi_i / sum_i w_i d_i`` are per row: ``psi_i``, the weight of the
rows with another response that the score orders as the response does (a tie in the score
counting 1/2), and ``d_i``, the weight of the rows with another response. With ``h_i`` the
concordant minus the discordant partners of row ``i`` (weighted by the partner's weight),
``psi_i = (d_i + h_i) / 2``, so the influence is ``phi_i = w_i (psi_i - C d_i) = w_i (h_i - D
d_i) / 2`` with ``D = 2 C - 1 = sum w h / sum w d`` (Somers' D), and the covariance of two
models' values on the same rows (the variance for ``a = b``) is

    Cov(C_a, C_b) = sum_g c_g S_g(a, b) / (sum w d)^2,
    S_g(a, b) = Q_ab - D_b R_a - D_a R_b + D_a D_b T

over the strata ``g`` (the two classes of a two-valued response, else all rows) with
``c_g = n_g / (n_g - 1)`` (``n_g`` its rows of positive weight), ``Q_ab = sum_g w^2 h_a h_b``,
``R_a = sum_g w^2 h_a d`` and ``T = sum_g w^2 d^2`` (Sen 1960 for the one-sample form; its
two-sample form is DeLong's; Sun & Xu 2014 compute the same components from one sort).
Those sums are all the engine gathers: per row it needs every model's ``h`` on the same row.

* Harrell's C (the response is ``y``): ``h_i`` is the per-row count behind Noether's interval
  (:mod:`ranklens.dask._noether`): its partners in the same prediction bucket (the in-memory
  sweep there), in another prediction bucket and another truth bucket (a function of the row's
  cell of the bucket grid) and, after the shuffle by truth, in the same truth bucket and another
  prediction bucket. The first two travel with the row as a column through the chained shuffles
  by prediction, so after the shuffle by truth every model's complete ``h`` is on every row, and
  the sums are formed there; the rows of single-valued truth buckets (a heavy ``y``, no third
  class) are summed in the last model's shuffle by prediction, where every model's column is
  already on the row. ``d_i = W - W(y = y_i)``, a tie run of ``y`` lying in one truth bucket.
* The AUC (the response is the events): ``h_i`` of an event is the weight of the non-events
  below it minus that above it, of a non-event the events above minus below: a function of its
  tie group's place in the sort by prediction with the bucket's carry-ins, a column added in
  each model's shuffle; ``d_i`` is the other class's total. The sums are formed in the last
  model's shuffle by prediction.

Without weights every count is an integer: the sums are exact Python integers and the
covariance is one rational number rounded once, whatever the partitioning. With weights the
partitions' float sums are added with :func:`math.fsum` (agreement with the in-memory kernels to
rounding).

References: those of :mod:`ranklens._compute.kernels.delong` (DeLong et al. 1988, Sun & Xu 2014, Sen
1960).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ranklens._foundation.forms import CurveForm, CurveStatistic, RankStatistic, RankSweepForm
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.results import ConfidenceInterval
from ranklens.dask import _noether as _nt
from ranklens.dask._passes import bucket_column, bucket_of, exact_dot
from ranklens.dask._profile import local_correct

#: The statistics whose DeLong inference this module gives, by the key the engine stores them.
AUC = "auc"
HARRELL_C = "harrell_c"


def statistic_key(spec: MetricSpec) -> str | None:
    """Which concordance a measure with a DeLong form is, read from its capabilities: the AUC of
    the events (the ranked curve's ROC AUC), Harrell's C (the rank sweep's statistic), or None."""
    caps = spec.capabilities
    if caps.delong is None:
        return None
    curve = caps.curve
    if isinstance(curve, CurveForm) and curve.statistic is CurveStatistic.ROC_AUC:
        return AUC if curve.depth is None else None
    sweep = caps.batched
    if isinstance(sweep, RankSweepForm) and sweep.statistic is RankStatistic.HARRELL_C:
        return HARRELL_C
    return None


def wanted(specs: Sequence[MetricSpec], key: str) -> bool:
    """Whether one of ``specs`` is the statistic ``key``."""
    return any(statistic_key(s) == key for s in specs)


def auc_column(model_index: int) -> str:
    """The column carrying a row's AUC count ``h`` (the other class below minus above)."""
    return f"_ranklens_e{model_index}"


def meta_columns(model_index: int, *, c: bool, auc: bool, unit: bool) -> dict[str, np.ndarray]:
    """Empty columns for the meta of the frame after a model's shuffle by prediction (``c``: the
    Harrell's C count, under the name of Noether's column; ``auc``: the AUC count)."""
    dtype = np.int64 if unit else np.float64
    out = {}
    if c:
        out[_nt.h_column(model_index)] = np.zeros(0, dtype)
    if auc:
        out[auc_column(model_index)] = np.zeros(0, dtype)
    return out


def _other_y(yv: np.ndarray, wv: np.ndarray | None) -> tuple[np.ndarray, Any]:
    """Per row, the weight (count) of the rows of this piece with the same ``y``; the total."""
    _, inverse, counts = np.unique(yv, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    if wv is None:
        return counts[inverse].astype(np.int64), int(yv.size)
    return np.bincount(inverse, weights=wv)[inverse], float(np.sum(wv))


def _local_h(yv: np.ndarray, pv: np.ndarray, wv: np.ndarray | None) -> np.ndarray:
    """Per row, the concordant minus the discordant partners among the rows of this piece."""
    if wv is None:
        return _nt.net_concordance(yv, pv)
    if yv.size < 2:
        return np.zeros(yv.size)
    same, total = _other_y(yv, wv)
    return 2.0 * local_correct(yv, pv, wv) - (total - same)


def _auc_h(
    yv: np.ndarray,
    pv: np.ndarray,
    wv: np.ndarray | None,
    threshold: float,
    carry: dict[str, Any],
) -> np.ndarray:
    """Per row of one prediction bucket, its AUC count: an event's non-events below minus above,
    a non-event's events above minus below (``carry``: the events and non-events of the buckets
    above this one and the totals)."""
    event = yv >= threshold
    _, inverse = np.unique(pv, return_inverse=True)  # tie groups, increasing prediction
    inverse = inverse.ravel()
    if wv is None:
        groups = int(inverse.max()) + 1 if inverse.size else 0
        ev = np.bincount(inverse[event], minlength=groups).astype(np.int64)
        non = np.bincount(inverse[~event], minlength=groups).astype(np.int64)
        e_above, n_above = round(carry["e_above"]), round(carry["n_above"])
        e_total, n_total = round(carry["E"]), round(carry["N"])
    else:
        ev = np.bincount(inverse, weights=wv * event)
        non = np.bincount(inverse, weights=wv * ~event)
        e_above, n_above = carry["e_above"], carry["n_above"]
        e_total, n_total = carry["E"], carry["N"]
    # inside the bucket: the groups below (smaller prediction) and above each group
    ev_below, non_below = np.cumsum(ev) - ev, np.cumsum(non) - non
    ev_above_in, non_above_in = ev.sum() - ev_below - ev, non.sum() - non_below - non
    # the buckets below hold the totals less this bucket and the buckets above
    non_h = (n_total - n_above - non.sum() + non_below) - (n_above + non_above_in)
    ev_h = (e_above + ev_above_in) - (e_total - e_above - ev.sum() + ev_below)
    return np.where(event, non_h[inverse], ev_h[inverse])


def _sums(h: Sequence[np.ndarray], d: np.ndarray, w: np.ndarray | None) -> dict[str, Any]:
    """The sums of DeLong's covariances over some rows (:func:`covariances`): their count, ``Q``
    (models ``a <= b`` in order), ``R``, ``T``, and ``sum w h`` and ``sum w d``; exact Python
    integers without weights."""
    m = len(h)
    pairs = [(a, b) for a in range(m) for b in range(a, m)]
    if w is None:
        hi = [np.asarray(v, dtype=np.int64) for v in h]
        di = np.asarray(d, dtype=np.int64)
        return {
            "n": int(di.size),
            "hh": [exact_dot(hi[a], hi[b]) for a, b in pairs],
            "hd": [exact_dot(v, di) for v in hi],
            "dd": exact_dot(di, di),
            "wh": [_int_sum(v) for v in hi],
            "wd": _int_sum(di),
        }
    w2 = w * w
    hf = [np.asarray(v, dtype=np.float64) for v in h]
    return {
        "n": int(np.count_nonzero(w > 0)),
        "hh": [float(np.sum(w2 * hf[a] * hf[b])) for a, b in pairs],
        "hd": [float(np.sum(w2 * v * d)) for v in hf],
        "dd": float(np.sum(w2 * d * d)),
        "wh": [float(np.sum(w * v)) for v in hf],
        "wd": float(np.sum(w * d)),
    }


def _int_sum(v: np.ndarray) -> int:
    """``sum v_i`` of an int64 array as an exact Python integer."""
    if v.size == 0:
        return 0
    if v.size < 1 << 31 and max(abs(int(v.max())), abs(int(v.min()))) < 1 << 31:
        return int(v.sum())  # below 2**62 in magnitude: no int64 overflow
    return int(v.sum(dtype=object))


def _take(w: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if w is None else w[rows]


def _add(parts: Sequence[dict[str, Any]], m: int, unit: bool) -> dict[str, Any]:
    """Sums of several row sets added (Python integers, or :func:`math.fsum`)."""
    total = sum if unit else math.fsum
    n_pairs = m * (m + 1) // 2
    return {
        "n": sum(p["n"] for p in parts),
        "hh": [total(p["hh"][j] for p in parts) for j in range(n_pairs)],
        "hd": [total(p["hd"][j] for p in parts) for j in range(m)],
        "dd": total(p["dd"] for p in parts),
        "wh": [total(p["wh"][j] for p in parts) for j in range(m)],
        "wd": total(p["wd"] for p in parts),
    }


def _empty(m: int, unit: bool) -> dict[str, Any]:
    zero: Any = 0 if unit else 0.0
    return {
        "n": 0,
        "hh": [zero] * (m * (m + 1) // 2),
        "hd": [zero] * m,
        "dd": zero,
        "wh": [zero] * m,
        "wd": zero,
    }


def prediction_rows(
    part: Any,
    frame: Any,
    *,
    y: str,
    pred: str,
    weight: str | None,
    model_index: int,
    n_models: int,
    h_row: np.ndarray | None,
    t_bounds: np.ndarray,
    single: np.ndarray,
    t_sizes: np.ndarray,
    total_w: Any,
    auc: dict[str, Any] | None,
    rows: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """One prediction bucket of model ``model_index`` (``part``, its index reset; ``frame``, the
    rows the shuffle passes on): the frame with this model's columns added (Harrell's C count of
    the partners in this bucket and, from ``h_row = H[bucket, :]``, in the other prediction and
    truth buckets, unless Noether's pass added it; the AUC count with ``auc``, which holds the
    event threshold and the bucket's carry-ins). In the last model's bucket, every model's
    columns being on the rows: the AUC sums per class (``out["auc"]``) and the sums of the rows
    of each single-valued truth bucket (``out["single"]``: bucket -> (its ``y``, sums)).
    ``rows``: the bucket's per-row counts where its sweep gave them already (unweighted: the
    concordant minus discordant partners, and the prediction's tie sizes)."""
    unit = weight is None
    yv = part[y].to_numpy(dtype=np.float64)
    pv = part[pred].to_numpy(dtype=np.float64)
    wv = None if unit else part[weight].to_numpy(dtype=np.float64)
    h_name = _nt.h_column(model_index)
    added: dict[str, Any] = {}
    if h_row is not None and h_name not in frame.columns:
        tb = bucket_of(yv, t_bounds)
        cross = np.asarray(h_row, dtype=np.int64 if unit else np.float64)[tb]
        local = rows[0] if rows is not None and unit else _local_h(yv, pv, wv)
        added[h_name] = local + cross
    if auc is not None:
        added[auc_column(model_index)] = _auc_h(yv, pv, wv, auc["threshold"], auc["carry"])
    if added:
        frame = frame.assign(**added)
    out: dict[str, Any] = {}
    if model_index != n_models - 1:
        return frame, out
    if auc is not None:
        h = [frame[auc_column(k)].to_numpy() for k in range(n_models)]
        event = yv >= auc["threshold"]
        carry = auc["carry"]
        other = (
            (round(carry["N"]), round(carry["E"])) if unit else (carry["N"], carry["E"])
        )  # the other class's total: non-events for an event
        out["auc"] = {}
        for label, mask in ((1, event), (0, ~event)):
            d = np.full(int(mask.sum()), other[1 - label], dtype=np.int64 if unit else np.float64)
            out["auc"][label] = _sums([v[mask] for v in h], d, _take(wv, mask))
    if h_row is not None and single.size:
        tb = bucket_of(yv, t_bounds)
        h = [frame[_nt.h_column(k)].to_numpy() for k in range(n_models)]
        sizes = np.asarray(t_sizes, dtype=np.int64 if unit else np.float64)
        out["single"] = {}
        for b in single.tolist():
            mask = tb == b
            if not mask.any():
                continue
            d = np.full(int(mask.sum()), total_w - sizes[b], dtype=sizes.dtype)
            value = float(yv[mask][0])
            out["single"][int(b)] = (
                value,
                _sums([v[mask] for v in h], d, _take(wv, mask)),
            )
    return frame, out


def truth_rows(
    part: Any,
    *,
    y: str,
    weight: str | None,
    n_models: int,
    total_w: Any,
    rows: dict[str, Any] | None = None,
) -> dict:
    """One truth bucket after the shuffle by truth: every model's complete Harrell's C count
    (the column plus the partners in this bucket and another prediction bucket) and the sums of
    the rows with the bucket's largest ``y`` and of the others, and the number of the bucket's
    distinct ``y`` (3 for three or more; for the strata: two values in all make two classes).
    ``rows``: the per-row counts the bucket's sweeps gave already (unweighted: each row's ``y``
    tie size, ``"y_ties"``, and per model its concordant minus discordant partners, ``"h"``),
    else they are counted here."""
    if len(part) == 0:
        return {"distinct": 0}
    unit = weight is None
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    wv = None if unit else np.ascontiguousarray(part[weight].to_numpy(dtype=np.float64))
    given = rows if unit else None
    same = _other_y(yv, wv)[0] if given is None else given["y_ties"]
    d = total_w - same
    h = []
    for k in range(n_models):
        if given is not None:
            local = given["h"][k]
        else:
            pb = np.ascontiguousarray(part[bucket_column(k)].to_numpy().astype(np.float64))
            local = _local_h(yv, pb, wv)
        h.append(part[_nt.h_column(k)].to_numpy() + local)
    low, high = yv.min(), yv.max()
    top = yv == high
    # the distinct values, 3 standing for three or more: two in all make the two classes
    distinct = 1 if low == high else 3 if np.any((yv > low) & (yv < high)) else 2
    return {
        "distinct": distinct,
        "ymax": float(yv.max()),
        "top": _sums([v[top] for v in h], d[top], _take(wv, top)),
        "rest": _sums([v[~top] for v in h], d[~top], _take(wv, ~top)),
    }


def covariances(
    strata: Sequence[dict[str, Any]], m: int, unit: bool
) -> tuple[np.ndarray, list, np.ndarray]:
    """DeLong's covariance matrix of ``m`` models' concordances, the concordances, and each
    model's variance part by stratum (shape ``(m, strata)``, what :func:`ranklens.delong.
    concordance_interval` takes), from the sums of each stratum (see the module's formula).
    Without weights the sums are integers and each covariance is the exact rational number
    rounded once."""
    pairs = [(a, b) for a in range(m) for b in range(a, m)]
    whole = _add(strata, m, unit)
    den, k = whole["wd"], whole["wh"]
    cov = np.full((m, m), math.nan)
    parts = np.full((m, len(strata)), math.nan)
    if not den > 0:
        return cov, [math.nan] * m, parts
    if unit:
        estimates = [float(Fraction(den + k[a], 2 * den)) for a in range(m)]
    else:
        estimates = [0.5 + k[a] / (2.0 * den) for a in range(m)]
    if any(s["n"] < 2 for s in strata):  # a class with one row: no variance estimate
        return cov, estimates, parts
    for j, (a, b) in enumerate(pairs):
        terms = [_stratum_covariance(s, j, a, b, den, k, unit) for s in strata]
        cov[a, b] = cov[b, a] = float(sum(terms)) if unit else math.fsum(terms)
        if a == b:
            parts[a] = [float(t) for t in terms]
    return cov, estimates, parts


def _stratum_covariance(
    s: dict[str, Any], j: int, a: int, b: int, den: Any, k: Sequence[Any], unit: bool
) -> Any:
    """One stratum's part of DeLong's covariance of models ``a`` and ``b`` (``j``: the pair's
    index in the sums): an exact :class:`~fractions.Fraction` from integer sums, else a float."""
    if unit:
        spread = den * den * s["hh"][j] - den * (k[b] * s["hd"][a] + k[a] * s["hd"][b])
        return Fraction(s["n"] * (spread + k[a] * k[b] * s["dd"]), (s["n"] - 1) * den**4)
    da, db = k[a] / den, k[b] / den
    spread = math.fsum([s["hh"][j], -db * s["hd"][a], -da * s["hd"][b], da * db * s["dd"]])
    return s["n"] / (s["n"] - 1.0) * spread / (den * den)


def auc_covariance(parts: Sequence[dict[str, Any]], m: int, unit: bool) -> np.ndarray:
    """The AUC's covariance matrix from the last model's buckets (two strata: the classes)."""
    pieces = [p["auc"] for p in parts if "auc" in p]
    if not pieces:
        return np.full((m, m), math.nan)
    strata = [_add([p[label] for p in pieces], m, unit) for label in (1, 0)]
    return covariances(strata, m, unit)[0]


def c_covariance(
    last_parts: Sequence[dict[str, Any]], truth_parts: Sequence[dict[str, Any]], m: int, unit: bool
) -> tuple[np.ndarray, list, bool, np.ndarray, list[int]]:
    """Harrell's C's covariance matrix, the concordances, whether ``y`` takes two values (two
    strata, as the in-memory components: DeLong's two-sample form) rather than more (one), each
    model's variance part by stratum and the rows of each stratum."""
    singles: dict[int, tuple[float, list]] = {}
    for p in last_parts:
        for b, (value, sums) in p.get("single", {}).items():
            singles.setdefault(b, (value, []))[1].append(sums)
    groups = [(value, _add(sums, m, unit)) for value, sums in singles.values()]
    truths = [t for t in truth_parts if t.get("distinct")]
    distinct = len(groups) + sum(t["distinct"] for t in truths)
    if distinct == 2:
        top_value = max([v for v, _ in groups] + [t["ymax"] for t in truths])
        top: list[dict[str, Any]] = []
        rest: list[dict[str, Any]] = []
        for value, sums in groups:
            (top if value == top_value else rest).append(sums)
        for t in truths:
            (top if t["ymax"] == top_value else rest).append(t["top"])
            rest.append(t["rest"])
        strata = [_add(top, m, unit), _add(rest, m, unit)]
    else:
        every = [s for _, s in groups] + [t[key] for t in truths for key in ("top", "rest")]
        strata = [_add(every, m, unit) if every else _empty(m, unit)]
    cov, estimates, parts = covariances(strata, m, unit)
    return cov, estimates, distinct == 2, parts, [s["n"] for s in strata]


def interval_result(
    estimate: float,
    class_variances: Sequence[float] | np.ndarray,
    class_rows: Sequence[float],
    level: float,
    binary: bool,
    n: int,
) -> Any:
    """One model's :class:`ranklens.delong.DeLongIntervalResult` of its concordance, as
    :func:`ranklens.delong.delong_interval` gives it: the logit interval from DeLong's variance
    part by stratum (:func:`ranklens.delong.concordance_interval`; one part, the sum, for the
    one-sample design of Harrell's C)."""
    from ranklens.delong import DeLongIntervalResult, concordance_interval

    parts = np.asarray(class_variances, dtype=np.float64)
    variance = float(parts.sum()) if parts.size and np.isfinite(parts).all() else math.nan
    se = std_error(variance)
    if math.isfinite(se) and math.isfinite(estimate):
        rows = np.asarray(class_rows, dtype=np.float64)
        if not binary:
            parts, rows = np.array([variance]), np.array([float(rows.sum())])
        ci, df = concordance_interval(estimate, parts, rows, level)
    else:
        ci, df = ConfidenceInterval.undefined(), math.inf
    return DeLongIntervalResult(
        estimate=estimate,
        std_error=se,
        ci=ci,
        confidence_level=level,
        statistic="auc" if binary else "harrell_c",
        design="two-sample (DeLong, DeLong & Clarke-Pearson 1988)"
        if binary
        else "one-sample (Sen 1960)",
        n=n,
        method="logit",
        df=df,
    )


def wald(estimate: float, se: float, level: float, low: float, high: float) -> tuple[float, float]:
    """``estimate -+ z se`` clipped to ``[low, high]`` (NaN where either is not finite), as
    :func:`ranklens.delong.comparison_arrays`."""
    from ranklens._foundation.normal import ndtri

    if not (math.isfinite(estimate) and math.isfinite(se)):
        return math.nan, math.nan
    half = float(ndtri(0.5 + level / 2)) * se
    return max(low, estimate - half), min(high, estimate + half)


def std_error(variance: float) -> float:
    """``sqrt(variance)``, 0 for a rounding's negative zero, NaN for NaN."""
    return math.sqrt(max(variance, 0.0)) if math.isfinite(variance) else math.nan
