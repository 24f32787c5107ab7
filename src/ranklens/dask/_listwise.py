"""Ranked-list measures (NDCG of one ranking) on Dask, exactly, by sorts with carry-in positions.

A measure declaring a :class:`ranklens._registry.RankedListForm` is a ratio of two discounted
sums: over the rows ranked by the prediction (tie blocks sharing their mean gain) and over the
rows ranked by the truth (the ideal list). Each sum is computed from value buckets:

1. one read counts the rows (adds the weights) of every prediction bucket of every model and
   every truth bucket, finds the largest ``y`` (the gains' common scale) and applies the
   measure's check of the truth to each partition in row order;
2. one shuffle per model by prediction bucket (range partitioning by value, so a tie run never
   straddles two partitions) and one by truth bucket; the buckets are ranked from the highest
   values down, and each starts after the rows (weight) of the buckets above it, its carry-in,
   which gives every row its global position and so its discount;
3. each partition sums its run of the list with the measure's own ``segment`` from its
   carry-in; the client adds the pieces with :func:`math.fsum` and the measure's ``finalize``
   divides.

Truth values heavy enough to fill a bucket alone (:func:`ranklens.dask._engine.truth_bounds`) are
not shuffled: all their rows share one gain, so their run is one block of known weight.

References
----------
Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques.
*ACM Transactions on Information Systems* 20(4), 422-446. doi:10.1145/582415.582418
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._registry import MetricSpec, RankedListForm
from ranklens.dask import _engine as _e
from ranklens.dask import _passes as _p
from ranklens.evaluation import (
    Problem,
    _exception_problem,
    _fit_kwargs,
    _metric_info,
    _score_quietly,
    model_context,
)


def claim(the_plan: Any) -> tuple[Any, list[MetricSpec]]:
    """The plan without the point measures declaring a ranked-list form, and those measures."""
    from ranklens.metrics import get_metric

    taken, rest = [], {}
    for name, why in the_plan.unsupported.items():
        spec = get_metric(name)
        if spec.capabilities.ranked_list is not None and spec.inputs == "point":
            taken.append(spec)
        else:
            rest[name] = why
    return dataclasses.replace(the_plan, unsupported=rest), taken


@dataclasses.dataclass(frozen=True)
class _Job:
    form: RankedListForm
    params: dict[str, Any]


def totals_partition(
    part: Any,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    p_bounds: Sequence[np.ndarray],
    t_bounds: np.ndarray,
    checks: Sequence[Any],
    offset: int,
) -> dict[str, Any]:
    """Rows (weight) per prediction bucket of each model and per truth bucket, the largest
    ``y``, and each check's exception for these rows (rows ``offset``, ... of the data)."""
    yv = part[y].to_numpy(dtype=np.float64)
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)

    def per_bucket(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        b = _p.bucket_of(values, bounds)
        if w is None:
            return np.bincount(b, minlength=bounds.size + 1).astype(np.int64)
        return np.bincount(b, weights=w, minlength=bounds.size + 1)

    return {
        "n": int(yv.size),
        "y_max": float(yv.max()) if yv.size else -math.inf,
        "truth": per_bucket(yv, t_bounds),
        "pred": [
            per_bucket(part[c].to_numpy(dtype=np.float64), b)
            for c, b in zip(preds, p_bounds, strict=True)
        ],
        "errors": [check(yv, offset) if yv.size else None for check in checks],
    }


def _run_sums(
    yv: np.ndarray,
    key: np.ndarray,
    w: np.ndarray | None,
    start: float,
    y_max: float,
    jobs: Sequence[_Job],
) -> list[float]:
    order = np.argsort(-key, kind="stable")  # decreasing: the run as it sits in the list
    ys, ks = yv[order], key[order]
    ws = None if w is None else w[order]
    return [job.form.segment(ys, ks, ws, start, y_max, **job.params) for job in jobs]


def prediction_piece(
    part: Any,
    y: str,
    pred: str,
    weight: str | None,
    start: float,
    y_max: float,
    jobs: Sequence[_Job],
) -> list[float]:
    """Each job's discounted sum of this prediction bucket's run, from its carry-in."""
    if not len(part):
        return [0.0] * len(jobs)
    yv = part[y].to_numpy(dtype=np.float64)
    pv = part[pred].to_numpy(dtype=np.float64)
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    return _run_sums(yv, pv, w, start, y_max, jobs)


def truth_piece(
    part: Any, y: str, weight: str | None, start: float, y_max: float, jobs: Sequence[_Job]
) -> list[float]:
    """Each job's discounted sum of this truth bucket's run (the ideal list), from its
    carry-in."""
    if not len(part):
        return [0.0] * len(jobs)
    yv = part[y].to_numpy(dtype=np.float64)
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    return _run_sums(yv, yv, w, start, y_max, jobs)


def _carry_ins(totals: np.ndarray, unit: bool) -> list[float]:
    """The weight ranked above each bucket (buckets ranked from the highest values down)."""
    if unit:
        counts = [int(c) for c in totals]
        return [float(sum(counts[a + 1 :])) for a in range(len(counts))]
    return [math.fsum(float(v) for v in totals[a + 1 :]) for a in range(totals.size)]


def evaluate_claimed(
    dask: Any,
    frame: Any,
    specs: Sequence[MetricSpec],
    *,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    context: dict[str, Any],
    part_rows: Sequence[int],
    n_buckets: int,
    sample_y: np.ndarray,
    sample_p: Sequence[np.ndarray],
    values: dict[str, dict[str, float]],
    problems: dict[str, dict[str, Problem]],
    info: dict[str, dict[str, Any]],
) -> None:
    """Compute the ranked-list measures into ``values`` / ``problems`` / ``info`` (in place).

    ``frame``: the data in its row order (``part_rows`` rows per partition), for the checks'
    row positions. ``context``: the task parameters, passed by name to the measures that take
    them (as :func:`ranklens.evaluate_models` does).
    """
    if not specs:
        return
    unit = weight is None
    jobs: list[_Job] = []
    where: dict[str, int] = {}
    for spec in specs:
        info[spec.name] = _metric_info(spec, context)
        form = spec.capabilities.ranked_list
        assert form is not None
        kwargs, skip = _fit_kwargs(spec.func, 2, model_context(context, None))
        params = {k: v for k, v in kwargs.items() if k in form.params}
        failure = skip
        if failure is None:
            try:  # the parameters, checked as the function checks them
                form.segment(np.zeros(0), np.zeros(0), None, 0.0, 1.0, **params)
            except Exception as exc:
                failure = _exception_problem(exc)
        if failure is not None:
            for model in preds:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = failure
            continue
        where[spec.name] = len(jobs)
        jobs.append(_Job(form, params))
    if not jobs:
        return

    t_bounds, single = _e.truth_bounds(sample_y, n_buckets)
    p_bounds = [_e._bounds(sp, n_buckets) for sp in sample_p]
    offsets = np.r_[0, np.cumsum(part_rows)[:-1]].astype(np.int64)
    delayed = frame.to_delayed()
    totals = dask.compute(
        *[
            dask.delayed(totals_partition)(
                part, y, preds, weight, p_bounds, t_bounds, [j.form.check for j in jobs], int(o)
            )
            for part, o in zip(delayed, offsets, strict=True)
        ]
    )
    errors: list[Exception | None] = [None] * len(jobs)
    for t in totals:  # partitions in row order: the earliest error is the function's
        for j, found in enumerate(t["errors"]):
            if errors[j] is None and found is not None:
                errors[j] = found
    y_max = max(t["y_max"] for t in totals)

    def added(arrays: Sequence[np.ndarray]) -> np.ndarray:
        if unit:
            return np.sum(np.stack(arrays).astype(object), axis=0)
        stacked = np.stack(arrays)
        return np.array([math.fsum(stacked[:, a]) for a in range(stacked.shape[1])])

    live = [j for j in range(len(jobs)) if errors[j] is None]
    live_jobs = [jobs[j] for j in live]
    dcg: dict[str, list[float]] = {}
    ideal: list[float] = [0.0] * len(jobs)
    if live_jobs and y_max > 0:
        columns = [c for c in dict.fromkeys([y, weight]) if c is not None]
        pieces = []
        for k, model in enumerate(preds):
            starts = _carry_ins(added([t["pred"][k] for t in totals]), unit)
            source = frame[list(dict.fromkeys([*columns, model]))]
            bucketed = source.map_partitions(_p.with_p_bucket, model, weight, p_bounds[k])
            shuffled = bucketed.set_index(
                _p.P_BUCKET, divisions=list(range(len(starts) + 1)), drop=False
            )
            pieces.append(
                [
                    dask.delayed(prediction_piece)(
                        part, y, model, weight, starts[i], y_max, live_jobs
                    )
                    for i, part in enumerate(shuffled.to_delayed())
                ]
            )
        t_totals = added([t["truth"] for t in totals])
        t_starts = _carry_ins(t_totals, unit)
        bucketed = frame[columns].map_partitions(_p.with_t_bucket, y, t_bounds, single)
        shuffled = bucketed.set_index(
            _p.T_BUCKET, divisions=list(range(t_bounds.size + 2)), drop=False
        )
        truth = [
            dask.delayed(truth_piece)(part, y, weight, t_starts[b], y_max, live_jobs)
            for b, part in enumerate(shuffled.to_delayed())
            if b not in set(single.tolist())
        ]
        pred_out, truth_out = dask.compute(pieces, truth)
        # a single-valued truth bucket is one block: its value and its weight
        heavy = [
            _run_sums(
                np.array([t_bounds[b - 1]]),
                np.array([t_bounds[b - 1]]),
                np.array([float(t_totals[b])]),
                t_starts[b],
                y_max,
                live_jobs,
            )
            for b in single.tolist()
            if float(t_totals[b]) > 0
        ]
        for i, j in enumerate(live):
            ideal[j] = math.fsum([*(p[i] for p in truth_out), *(h[i] for h in heavy)])
        for k, model in enumerate(preds):
            dcg[model] = [math.fsum(p[i] for p in pred_out[k]) for i in range(len(live))]
    for spec in specs:
        if spec.name not in where:
            continue
        j = where[spec.name]
        job = jobs[j]
        for model in preds:
            if errors[j] is not None:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = _exception_problem(errors[j])  # type: ignore[arg-type]
                continue
            got = dcg[model][live.index(j)] if model in dcg else 0.0
            value, problem = _score_quietly(job.form.finalize, got, ideal[j], **job.params)
            values[model][spec.name] = value
            if problem is not None:
                problems[model][spec.name] = problem
