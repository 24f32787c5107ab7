"""The concordance profile on Dask: per-row concordance and its envelope from the buckets of the
sort by prediction.

The concordance profile (Rosset, Perlich & Zadrozny 2005, Sect. 3.2, Figure 1) needs, per row
``i`` in the order of the prediction, ``C_i``: the weight of the rows with another ``y`` that
the prediction orders correctly relative to ``i`` (a tie in the prediction counting 1/2), and,
per distinct ``y`` value ``v``, the locally optimal envelope ``E(v) = W(y < v) + max_q P_v(q)``,
``P_v(q)`` the sum of ``w_t sign(y_t - v)`` over the first ``q`` runs of tied predictions (the
empty prefix included). After the shuffle by prediction a run of tied predictions lies in one
bucket, so:

* ``C_i`` = the partners in its own bucket (the in-memory sweep on the bucket) + the rows of the
  buckets above it with a larger ``y`` + the rows of the buckets below it with a smaller ``y``.
  The cross-bucket part is counted on the client by halving the list of buckets (the earlier
  half's rows against the later half's, by one sort of ``y`` and a cumulative sum each): O(n
  log n log B) for B buckets.
* ``P_v`` over a run of buckets is a function of ``v`` that is constant between the distinct
  ``y`` of those buckets: each bucket returns, at its distinct values and in the gaps between
  them, the largest prefix sum ``M_b(v)`` inside it (the in-memory envelope kernel, on the
  bucket's values with the gaps as values of no row) and its total ``D_b(v) = W_b(y > v) -
  W_b(y < v)``. Adjacent runs combine as ``M = max(M_L, D_L + M_R)``, ``D = D_L + D_R`` on the
  union of their values, pairwise, so that ``E(v) = W(y < v) + M(v)`` for every distinct ``y``.

Without weights every count is an integer below 2^53, exact in float64 whatever the order of
the additions: the profile equals the in-memory one bit for bit. With weights the sums are
floats and agree to rounding. The client holds every row's weight, ``y`` and counts (the profile
has one point per row), as for the rank lift curve.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._compute.kernels import ranking as _kr
from ranklens._compute.xp import sequence as _xs
from ranklens._measures.rank_sweep import pair_counts_per_row


def bucket(row: np.ndarray, yv: np.ndarray, pv: np.ndarray, wv: np.ndarray | None) -> dict:
    """One prediction bucket's pieces: its rows in the order of the result (decreasing
    prediction, ties by row position) with their position, ``y``, weight and partners ordered
    correctly within the bucket; and its envelope pieces (:func:`_envelope_pieces`)."""
    order = np.lexsort((row, -pv))
    y = np.ascontiguousarray(yv[order])
    p = np.ascontiguousarray(pv[order])
    w = None if wv is None else np.ascontiguousarray(wv[order], dtype=np.float64)
    return {
        "row": row[order],
        "y": y,
        "w": w,
        "correct": local_correct(y, p, w),
        **_envelope_pieces(y, p, w),
    }


def local_correct(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """Per row, the weight of the rows of this bucket with another ``y`` ordered correctly
    relative to it, a tie in the prediction counting 1/2 (the in-memory sweep).

    Parameters
    ----------
    y, p : ndarray of float64
        The truth and the prediction of the bucket's rows.
    w : ndarray of float64 or None
        Their case weights (None: unit).

    Returns
    -------
    ndarray of float64
        The weight correctly ordered with each row.
    """
    n = y.size
    if n < 2:
        return np.zeros(n)
    if w is None:
        concordant, _, _, tied_pred_only, _ = pair_counts_per_row(y, p)
        return concordant.astype(np.float64) + tied_pred_only.astype(np.float64) / 2
    order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p, import_kernels=True)
    conc, tied = np.empty(n), np.empty(n)
    u0, u1, u2 = np.empty(n), np.empty(n), np.empty(n)  # the other classes, not needed
    proto = _kr.record_prototype(n, unit=False)
    _kr.sweep(key, pkey, n_y, w[order], False, proto, order, conc, u0, u1, tied, u2)
    return conc + tied / 2


def _envelope_pieces(y: np.ndarray, p: np.ndarray, w: np.ndarray | None) -> dict:
    """The bucket's distinct ``y`` (``"u"``, increasing) and, at each (``"mp"``, ``"dp"``) and
    in each gap around them (``"mg"``, ``"dg"``, one more): the largest prefix sum of ``w_t
    sign(y_t - v)`` over the bucket's runs of tied predictions (the empty one included) and the
    sum over the whole bucket."""
    n = y.size
    if n == 0:
        empty = np.zeros(0)
        return {"u": empty, "mp": empty, "mg": np.zeros(1), "dp": empty, "dg": np.zeros(1)}
    weights = np.ones(n) if w is None else w
    order, key, pkey, _, _, n_y, _ = _xs.sequence(y, p, import_kernels=True)
    w_seq = np.ascontiguousarray(weights[order])
    u = np.unique(y)
    ytot = np.bincount(key, weights=w_seq, minlength=n_y)
    cum = np.r_[0.0, np.cumsum(ytot)]  # weight below each value / gap
    total = cum[-1]
    # the gaps as values of no row: value 2k + 1 is u[k], value 2g is the gap below u[g]
    doubled = _kr.concordance_envelope(np.ascontiguousarray(2 * key + 1), pkey, 2 * n_y + 1, w_seq)
    below_points, below_gaps = cum[:-1], cum
    return {
        "u": u,
        "mp": doubled[1::2] - below_points,
        "mg": doubled[0::2] - below_gaps,
        "dp": (total - cum[1:]) - below_points,
        "dg": (total - cum) - below_gaps,
    }


def _at(u: np.ndarray, vp: np.ndarray, vg: np.ndarray, union: np.ndarray) -> tuple[Any, Any]:
    """A function given at the points ``u`` (``vp``) and in the gaps around them (``vg``),
    read at the points of ``union`` (which holds ``u``) and in the gaps around them."""
    i = np.searchsorted(u, union)
    hit = np.zeros(union.size, bool)
    inside = i < u.size
    hit[inside] = u[i[inside]] == union[inside]
    points = vg[i].copy()
    points[hit] = vp[i[hit]]
    gaps = vg[np.r_[0, np.searchsorted(u, union, side="right")]]
    return points, gaps


def _merge(left: dict, right: dict) -> dict:
    """The pieces of two adjacent runs of buckets (``left`` above ``right``) as one."""
    union = np.union1d(left["u"], right["u"])
    lm, lmg = _at(left["u"], left["mp"], left["mg"], union)
    ld, ldg = _at(left["u"], left["dp"], left["dg"], union)
    rm, rmg = _at(right["u"], right["mp"], right["mg"], union)
    rd, rdg = _at(right["u"], right["dp"], right["dg"], union)
    return {
        "u": union,
        "mp": np.maximum(lm, ld + rm),
        "mg": np.maximum(lmg, ldg + rmg),
        "dp": ld + rd,
        "dg": ldg + rdg,
    }


def _cross_correct(keys: list[np.ndarray], weights: list[np.ndarray]) -> list[np.ndarray]:
    """Per bucket (highest predictions first) and row: the weight of the rows of the buckets
    above with a larger ``y`` plus that of the buckets below with a smaller ``y``."""
    out = [np.zeros(k.size) for k in keys]
    # groups of adjacent buckets: (bucket indices, keys sorted, their weights)
    groups = []
    for b, (k, w) in enumerate(zip(keys, weights, strict=True)):
        s = np.argsort(k, kind="stable")
        groups.append(([b], k[s], w[s]))
    while len(groups) > 1:
        merged = []
        for j in range(0, len(groups) - 1, 2):
            (lb, lk, lw), (rb, rk, rw) = groups[j], groups[j + 1]
            above = np.r_[np.cumsum(lw[::-1])[::-1], 0.0]  # weight of lk[i:]
            below = np.r_[0.0, np.cumsum(rw)]  # weight of rk[:i]
            for b in rb:  # rows of the later (lower) half: the earlier rows with a larger y
                out[b] += above[np.searchsorted(lk, keys[b], side="right")]
            for b in lb:  # rows of the earlier half: the later rows with a smaller y
                out[b] += below[np.searchsorted(rk, keys[b], side="left")]
            ks = np.concatenate((lk, rk))
            s = np.argsort(ks, kind="stable")
            merged.append((lb + rb, ks[s], np.concatenate((lw, rw))[s]))
        if len(groups) % 2:
            merged.append(groups[-1])
        groups = merged
    return out


def profile_args(pieces: Sequence[Any]) -> tuple[Any, ...]:
    """The arguments of ``CurveSpec.from_concordance`` from the buckets' pieces (``pieces[b]``:
    bucket ``b``, in increasing prediction; the highest bucket comes first in the result).

    The weights are rescaled to mean 1 over the rows, as the in-memory function rescales them
    (every count is linear in the weights, so the counts are rescaled with them)."""
    parts = [p for p in reversed(pieces) if p["y"].size]
    ys = np.concatenate([p["y"] for p in parts])
    rows = np.concatenate([p["row"] for p in parts])
    unit = all(p["w"] is None for p in parts)
    w_parts = [np.ones(p["y"].size) if p["w"] is None else p["w"] for p in parts]
    y_values, y_index = np.unique(ys, return_inverse=True)
    y_index = y_index.ravel()
    keys, start = [], 0
    for p in parts:
        keys.append(y_index[start : start + p["y"].size])
        start += p["y"].size
    correct = np.concatenate(
        [p["correct"] + c for p, c in zip(parts, _cross_correct(keys, w_parts), strict=True)]
    )
    weights = np.concatenate(w_parts)
    y_weights = np.bincount(y_index, weights=weights, minlength=y_values.size).astype(np.float64)
    funcs = [{k: p[k] for k in ("u", "mp", "mg", "dp", "dg")} for p in parts]
    while len(funcs) > 1:
        nxt = [_merge(funcs[j], funcs[j + 1]) for j in range(0, len(funcs) - 1, 2)]
        if len(funcs) % 2:
            nxt.append(funcs[-1])
        funcs = nxt
    top = funcs[0]
    best = _at(top["u"], top["mp"], top["mg"], y_values)[0]
    envelope = (np.cumsum(y_weights) - y_weights) + np.maximum(best, 0.0)
    if not unit:
        scale = math.fsum(weights) / weights.size
        weights, y_weights = weights / scale, y_weights / scale
        correct, envelope = correct / scale, envelope / scale
    return weights, y_index, y_weights, correct, envelope, rows
