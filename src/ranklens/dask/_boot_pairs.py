"""The Poisson bootstrap of the statistics of the pair classes on Dask, in the same shuffles.

Every replicate's pair classes are computed, and each measure declaring a
:class:`~ranklens._foundation.forms.RankSweepForm` reads its own statistic of them (Kendall's tau-b,
Harrell's C, Somers' D, Goodman and Kruskal's gamma, ...).

Each replicate's pair classes split as the full sample's do (:mod:`ranklens.dask._engine`):
pairs inside one prediction bucket (the in-memory weighted sweep on the bucket's rows with the
replicate's weights), pairs in different prediction and truth buckets (the replicate's bucket
grid), pairs sharing a truth bucket but not a prediction bucket (a sweep over (truth, prediction
bucket) in the truth bucket). A row's weight in replicate ``r`` is ``c_r(key) w`` with
``c_r`` the Poisson(1) count of :func:`ranklens._inference.resampling.poisson_weights` (Oza &
Russell 2001; Chamandy et al. 2012), so the replicates do not depend on the partitioning. The tasks
read the partitions the engine's shuffles already produce: no further shuffle.

References
----------
Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.
Chamandy, N., Muralidharan, O., Najmi, A. and Naidu, S. (2012). Estimating uncertainty for
massive data streams. Google technical report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._measures.rank_sweep import rank_sweep
from ranklens.dask._passes import (
    BLOCK_CELLS,
    KEY,
    bucket_column,
    bucket_of,
    local_pairs,
    partition_arrays,
    replicate_weights,
)

_FIELDS = ("concordant", "discordant", "tied_y", "tied_p", "tied_both")


def replicate_grids(
    part: Any,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    p_bounds: Sequence[np.ndarray],
    t_bounds: np.ndarray,
    reps: np.ndarray,
    seed: int,
) -> dict[str, Any]:
    """Per replicate and model, the (prediction bucket x truth bucket) weight grid; per
    replicate, the sum of squared weights by truth bucket."""
    yv, pv, wv = partition_arrays(part, y, preds, weight)
    keys = part[KEY].to_numpy()
    n_b = reps.size
    nt = t_bounds.size + 1
    tb = bucket_of(yv, t_bounds)
    grids = [np.zeros((n_b, (b.size + 1) * nt)) for b in p_bounds]
    cells = [bucket_of(p, b) * nt + tb for p, b in zip(pv, p_bounds, strict=True)]
    squares = np.zeros((n_b, nt))
    rows = max(1, BLOCK_CELLS // max(1, n_b))
    for start in range(0, yv.size, rows):
        sl = slice(start, start + rows)
        rw = replicate_weights(keys[sl], None if wv is None else wv[sl], reps, seed)
        for r in range(n_b):
            squares[r] += np.bincount(tb[sl], weights=rw[r] * rw[r], minlength=nt)
            for k, cell in enumerate(cells):
                grids[k][r] += np.bincount(cell[sl], weights=rw[r], minlength=grids[k].shape[1])
    return {
        "grids": [g.reshape(n_b, -1, nt) for g in grids],
        "squares": squares,
    }


def _sweep_classes(yv: np.ndarray, xv: np.ndarray, v: np.ndarray) -> np.ndarray:
    """(concordant, discordant, tied_y, tied_p, tied_both) of the weighted sweep, as floats."""
    if not v.any():
        return np.zeros(len(_FIELDS))
    stats = rank_sweep(yv, np.ascontiguousarray(xv), np.ascontiguousarray(v))[0]
    pairs = local_pairs(stats, unit=False)
    return np.array([float(pairs[f]) for f in _FIELDS])


def prediction_bucket_pairs(
    part: Any, y: str, pred: str, weight: str | None, reps: np.ndarray, seed: int
) -> np.ndarray:
    """Per replicate, the pair classes inside one prediction bucket: shape (B, 5)."""
    out = np.zeros((reps.size, len(_FIELDS)))
    if len(part) == 0:
        return out
    yv, (pv,), wv = partition_arrays(part, y, [pred], weight)
    keys = part[KEY].to_numpy()
    for r in range(reps.size):
        v = replicate_weights(keys, wv, reps[r : r + 1], seed)[0]
        out[r] = _sweep_classes(yv, pv, v)
    return out


def truth_bucket_pairs(
    part: Any, y: str, weight: str | None, n_models: int, reps: np.ndarray, seed: int
) -> np.ndarray:
    """Per model and replicate, the pair classes of one truth bucket over (truth, prediction
    bucket): shape (models, B, 5)."""
    out = np.zeros((n_models, reps.size, len(_FIELDS)))
    if len(part) == 0:
        return out
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    wv = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    keys = part[KEY].to_numpy()
    pbs = [part[bucket_column(k)].to_numpy().astype(np.float64) for k in range(n_models)]
    for r in range(reps.size):
        v = replicate_weights(keys, wv, reps[r : r + 1], seed)[0]
        for k, pb in enumerate(pbs):
            out[k, r] = _sweep_classes(yv, pb, v)
    return out


def rank_replicates(
    grid_parts: Sequence[dict[str, Any]],
    pred_pairs: Sequence[np.ndarray],
    truth_pairs: Sequence[np.ndarray],
    model: int,
    single: np.ndarray,
) -> dict[str, np.ndarray]:
    """The pair classes of every replicate of one model, from the pieces: a mapping of arrays
    of shape (B,), as :class:`ranklens._foundation.forms.RankStatistic` reads them."""
    from ranklens.dask._engine import combine_pairs, cross_bucket_pairs

    grids = np.sum([g["grids"][model] for g in grid_parts], axis=0)  # (B, pb, tb)
    squares = np.sum([g["squares"] for g in grid_parts], axis=0)  # (B, tb)
    local = np.sum(pred_pairs, axis=0) if len(pred_pairs) else np.zeros((grids.shape[0], 5))
    shared = (
        np.sum([t[model] for t in truth_pairs], axis=0)
        if len(truth_pairs)
        else np.zeros((grids.shape[0], 5))
    )
    out: dict[str, list[float]] = {}
    for r in range(grids.shape[0]):
        g = grids[r]
        by_truth = g.sum(axis=0)
        total = float(by_truth.sum())
        all_pairs = (total * total - float(squares[r].sum())) / 2.0
        # rows of single-valued truth buckets: every pair among them tied in the truth only
        tied_single = sum(
            (float(by_truth[b]) ** 2 - float(squares[r, b])) / 2.0 for b in np.asarray(single)
        )
        pred_part = dict(zip(_FIELDS, local[r].tolist(), strict=True))
        truth_part = dict(zip(_FIELDS, shared[r].tolist(), strict=True))
        single_part = {"concordant": 0.0, "discordant": 0.0, "tied_y": tied_single}
        classes = combine_pairs(
            [pred_part], [truth_part, single_part], cross_bucket_pairs(g), all_pairs, unit=False
        )
        for name, value in classes.items():
            out.setdefault(name, []).append(float(value))
    return {name: np.asarray(values) for name, values in out.items()}


def add_rank_replicates(
    result: dict[str, Any],
    grid_parts: Sequence[dict[str, Any]],
    pred_pairs: Sequence[Sequence[np.ndarray]],
    truth_pairs: Sequence[np.ndarray],
    preds: Sequence[str],
    sweep_specs: Sequence[Any],
    single: np.ndarray,
    level: float,
) -> None:
    """Add the replicates and percentile intervals of the measures declaring a statistic of
    the pair classes (``RankSweepForm``) to the engine's bootstrap result (in place)."""
    from ranklens._inference.resampling import percentile_interval

    for k, model in enumerate(preds):
        classes = rank_replicates(grid_parts, pred_pairs[k], truth_pairs, k, single)
        for spec in sweep_specs:
            form = spec.capabilities.batched
            if form is None or form.statistic.moments:
                continue
            with np.errstate(all="ignore"):
                reps = np.asarray(form.transform(form.statistic(classes)), dtype=np.float64)
            result["replicates"][model][spec.name] = reps
            finite = reps[np.isfinite(reps)]
            result["intervals"][model][spec.name] = (
                tuple(float(v) for v in percentile_interval(finite, level))
                if finite.size >= 2
                else (float("nan"), float("nan"))
            )
