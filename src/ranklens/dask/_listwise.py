"""Ranked-list measures (NDCG of one ranking) on Dask, exactly, by sorts with carry-in positions.

A measure declaring a :class:`ranklens._foundation.forms.RankedListForm` is a ratio of two
discounted sums: over the rows ranked by the prediction (tie blocks sharing their mean gain) and
over the rows ranked by the truth (the ideal list). Each sum is computed from value buckets:

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

from ranklens._foundation.forms import RankedListForm
from ranklens._foundation.problems import (
    Problem,
    exception_problem,
    fit_kwargs,
    metric_info,
    score_quietly,
)
from ranklens._foundation.registry import MetricSpec
from ranklens.dask import _engine as _e
from ranklens.dask import _passes as _p
from ranklens.evaluation import model_context


def claim(the_plan: Any) -> tuple[Any, list[MetricSpec]]:
    """The plan without the point measures declaring a ranked-list form, and those measures."""
    return _e.claim_declared(the_plan, lambda spec: spec.capabilities.ranked_list is not None)


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
    boot: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Rows (weight) per prediction bucket of each model and per truth bucket, the largest
    ``y``, and each check's exception for these rows (rows ``offset``, ... of the data); with
    ``boot`` (``reps``, ``seed``), each replicate's weight per bucket too (``"boot_truth"``,
    ``"boot_pred"``: arrays of shape (replicates, buckets))."""
    yv = part[y].to_numpy(dtype=np.float64)
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    rw = None
    if boot is not None:
        rw = _p.replicate_weights(part[_p.KEY].to_numpy(), w, boot["reps"], boot["seed"])

    def per_bucket(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        b = _p.bucket_of(values, bounds)
        if w is None:
            return np.bincount(b, minlength=bounds.size + 1).astype(np.int64)
        return np.bincount(b, weights=w, minlength=bounds.size + 1)

    def per_replicate(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
        assert rw is not None
        b = _p.bucket_of(values, bounds)
        return np.stack([np.bincount(b, weights=r, minlength=bounds.size + 1) for r in rw])

    out: dict[str, Any] = {}
    if rw is not None:
        out["boot_truth"] = per_replicate(yv, t_bounds)
        out["boot_pred"] = [
            per_replicate(part[c].to_numpy(dtype=np.float64), b)
            for c, b in zip(preds, p_bounds, strict=True)
        ]
    return out | {
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
    boot: dict[str, Any] | None = None,
    replicate_w: np.ndarray | None = None,
) -> dict[str, Any]:
    """Each job's sum over the run (``"sums"``); with ``boot``, each replicate's too
    (``"boot"``, shape (replicates, jobs)), the replicate weights ``replicate_w`` (replicates,
    rows) and the replicates' carry-ins ``boot["starts"]``."""
    order = np.argsort(-key, kind="stable")  # decreasing: the run as it sits in the list
    ys, ks = yv[order], key[order]
    ws = None if w is None else w[order]
    out: dict[str, Any] = {
        "sums": [job.form.segment(ys, ks, ws, start, y_max, **job.params) for job in jobs]
    }
    if boot is not None and replicate_w is not None:
        rws = replicate_w[:, order]
        out["boot"] = np.array(
            [
                [
                    job.form.segment(ys, ks, rws[r], boot["starts"][r], y_max, **job.params)
                    for job in jobs
                ]
                for r in range(rws.shape[0])
            ]
        ).reshape(rws.shape[0], len(jobs))
    return out


def _replicates_of(part: Any, w: np.ndarray | None, boot: dict[str, Any] | None) -> Any:
    if boot is None:
        return None
    return _p.replicate_weights(part[_p.KEY].to_numpy(), w, boot["reps"], boot["seed"])


def _empty(jobs: Sequence[_Job], boot: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {"sums": [0.0] * len(jobs)}
    if boot is not None:
        out["boot"] = np.zeros((len(boot["starts"]), len(jobs)))
    return out


def prediction_piece(
    part: Any,
    y: str,
    pred: str,
    weight: str | None,
    start: float,
    y_max: float,
    jobs: Sequence[_Job],
    boot: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Each job's discounted sum of this prediction bucket's run, from its carry-in (and each
    replicate's, from the replicate's carry-in)."""
    if not len(part):
        return _empty(jobs, boot)
    yv = part[y].to_numpy(dtype=np.float64)
    pv = part[pred].to_numpy(dtype=np.float64)
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    return _run_sums(yv, pv, w, start, y_max, jobs, boot, _replicates_of(part, w, boot))


def truth_piece(
    part: Any,
    y: str,
    weight: str | None,
    start: float,
    y_max: float,
    jobs: Sequence[_Job],
    boot: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Each job's discounted sum of this truth bucket's run (the ideal list), from its
    carry-in (and each replicate's): the prediction bucket's sums with y as the prediction."""
    return prediction_piece(part, y, y, weight, start, y_max, jobs, boot)


def _carry_ins(totals: np.ndarray, unit: bool) -> list[float]:
    """The weight ranked above each bucket (buckets ranked from the highest values down)."""
    if unit:
        counts = [int(c) for c in totals]
        return [float(sum(counts[a + 1 :])) for a in range(len(counts))]
    return [math.fsum(float(v) for v in totals[a + 1 :]) for a in range(totals.size)]


def _jobs(
    specs: Sequence[MetricSpec],
    preds: Sequence[str],
    context: dict[str, Any],
    values: dict[str, dict[str, float]],
    problems: dict[str, dict[str, Problem]],
    info: dict[str, dict[str, Any]],
) -> tuple[list[_Job], dict[str, int]]:
    """The ranked-list measures to compute, with their parameters checked as the functions check
    them, and each measure's job index; a measure whose parameters fail is NaN for every model
    with the reason (in ``values`` / ``problems``)."""
    jobs: list[_Job] = []
    where: dict[str, int] = {}
    for spec in specs:
        info[spec.name] = metric_info(spec, context)
        form = spec.capabilities.ranked_list
        assert form is not None
        kwargs, skip = fit_kwargs(spec.func, 2, model_context(context, None))
        params = {k: v for k, v in kwargs.items() if k in form.params}
        failure = skip
        if failure is None:
            try:  # the parameters, checked as the function checks them
                form.segment(np.zeros(0), np.zeros(0), None, 0.0, 1.0, **params)
            except Exception as exc:
                failure = exception_problem(exc)
        if failure is not None:
            for model in preds:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = failure
            continue
        where[spec.name] = len(jobs)
        jobs.append(_Job(form, params))
    return jobs, where


def _totals_pass(
    dask: Any,
    frame: Any,
    jobs: Sequence[_Job],
    *,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    part_rows: Sequence[int],
    p_bounds: Sequence[np.ndarray],
    t_bounds: np.ndarray,
    boot: dict[str, Any] | None,
) -> tuple[list[dict[str, Any]], list[Exception | None], float]:
    """The first pass: each partition's bucket totals and the checks of every job's inputs.

    Returns the partitions' totals, each job's first error in row order (None where its
    inputs passed), and the largest ``y``.
    """
    offsets = np.r_[0, np.cumsum(part_rows)[:-1]].astype(np.int64)
    totals = dask.compute(
        *[
            dask.delayed(totals_partition)(
                part,
                y,
                preds,
                weight,
                p_bounds,
                t_bounds,
                [j.form.check for j in jobs],
                int(o),
                boot,
            )
            for part, o in zip(frame.to_delayed(), offsets, strict=True)
        ]
    )
    errors: list[Exception | None] = [None] * len(jobs)
    for t in totals:  # partitions in row order: the earliest error is the function's
        for j, found in enumerate(t["errors"]):
            if errors[j] is None and found is not None:
                errors[j] = found
    return list(totals), errors, max(t["y_max"] for t in totals)


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
    bootstrap: dict[str, Any] | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    """Compute the ranked-list measures into ``values`` / ``problems`` / ``info`` (in place).

    ``frame``: the data in its row order (``part_rows`` rows per partition), for the checks'
    row positions. ``context``: the task parameters, passed by name to the measures that take
    them (as :func:`ranklens.evaluate_models` does). With ``bootstrap`` (``reps``, ``seed``;
    ``frame`` then holds the replicate key column, :func:`ranklens.dask._passes.add_key`), the
    Poisson replicates from the same passes: each replicate's rows weighted by its weights, its
    buckets' carry-ins from its own weights, as the in-memory function with those weights;
    returned as model -> measure -> replicates.
    """
    if not specs:
        return {}
    unit = weight is None
    jobs, where = _jobs(specs, preds, context, values, problems, info)
    if not jobs:
        return {}

    t_bounds, single = _e.truth_bounds(sample_y, n_buckets)
    p_bounds = [_e.quantile_bounds(sp, n_buckets) for sp in sample_p]
    boot = None if bootstrap is None else {"reps": bootstrap["reps"], "seed": bootstrap["seed"]}
    totals, errors, y_max = _totals_pass(
        dask, frame, jobs, y=y, preds=preds, weight=weight, part_rows=part_rows,
        p_bounds=p_bounds, t_bounds=t_bounds, boot=boot,
    )  # fmt: skip

    def added(arrays: Sequence[np.ndarray]) -> np.ndarray:
        if unit:
            return np.sum(np.stack(arrays).astype(object), axis=0)
        stacked = np.stack(arrays)
        return np.array([math.fsum(stacked[:, a]) for a in range(stacked.shape[1])])

    def boot_starts(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Each replicate's weight per bucket and weight ranked above it: (replicates, buckets)."""
        w_rb = np.sum(arrays, axis=0)
        return w_rb, np.cumsum(w_rb[:, ::-1], axis=1)[:, ::-1] - w_rb

    def with_starts(starts: np.ndarray) -> dict[str, Any] | None:
        return None if boot is None else {**boot, "starts": starts}

    live = [j for j in range(len(jobs)) if errors[j] is None]
    live_jobs = [jobs[j] for j in live]
    dcg: dict[str, list[float]] = {}
    ideal: list[float] = [0.0] * len(jobs)
    n_reps = 0 if boot is None else int(np.asarray(boot["reps"]).size)
    boot_dcg: dict[str, np.ndarray] = {}
    boot_ideal = np.zeros((n_reps, len(live)))
    if live_jobs and y_max > 0:
        columns = [c for c in dict.fromkeys([y, weight]) if c is not None]
        columns += [_p.KEY] if boot is not None else []
        pieces = []
        for k, model in enumerate(preds):
            starts = _carry_ins(added([t["pred"][k] for t in totals]), unit)
            b_starts = boot_starts([t["boot_pred"][k] for t in totals])[1] if boot else None
            source = frame[list(dict.fromkeys([*columns, model]))]
            bucketed = source.map_partitions(_p.with_p_bucket, model, weight, p_bounds[k])
            shuffled = _p.by_bucket(bucketed, _p.P_BUCKET, len(starts))
            pieces.append(
                [
                    dask.delayed(prediction_piece)(
                        part,
                        y,
                        model,
                        weight,
                        starts[i],
                        y_max,
                        live_jobs,
                        None if b_starts is None else with_starts(b_starts[:, i]),
                    )
                    for i, part in enumerate(shuffled.to_delayed())
                ]
            )
        t_totals = added([t["truth"] for t in totals])
        t_starts = _carry_ins(t_totals, unit)
        bt_w, bt_starts = boot_starts([t["boot_truth"] for t in totals]) if boot else (None, None)
        bucketed = frame[columns].map_partitions(_p.with_t_bucket, y, t_bounds, single)
        shuffled = _p.by_bucket(bucketed, _p.T_BUCKET, t_bounds.size + 1)
        heavy_buckets = set(single.tolist())
        truth = [
            dask.delayed(truth_piece)(
                part,
                y,
                weight,
                t_starts[b],
                y_max,
                live_jobs,
                None if bt_starts is None else with_starts(bt_starts[:, b]),
            )
            for b, part in enumerate(shuffled.to_delayed())
            if b not in heavy_buckets
        ]
        # one shuffle at a time: at once, each worker would hold the buffers of all of them
        pred_out = [dask.compute(*model_pieces) for model_pieces in pieces]
        truth_out = dask.compute(*truth)
        # a single-valued truth bucket is one block: its value and its weight
        heavy = []
        for b in single.tolist():
            held = np.array([t_bounds[b - 1]])
            heavy.append(
                _run_sums(
                    held,
                    held,
                    np.array([float(t_totals[b])]),
                    t_starts[b],
                    y_max,
                    live_jobs,
                    None if bt_starts is None else with_starts(bt_starts[:, b]),
                    None if bt_w is None else bt_w[:, b : b + 1],
                )
            )
        runs = [*truth_out, *heavy]
        for i, j in enumerate(live):
            ideal[j] = math.fsum(p["sums"][i] for p in runs)
        for k, model in enumerate(preds):
            dcg[model] = [math.fsum(p["sums"][i] for p in pred_out[k]) for i in range(len(live))]
        if boot is not None:
            boot_ideal = np.sum([p["boot"] for p in runs], axis=0)
            for k, model in enumerate(preds):
                boot_dcg[model] = np.sum([p["boot"] for p in pred_out[k]], axis=0)
    replicates: dict[str, dict[str, np.ndarray]] = {}
    for spec in specs:
        if spec.name not in where:
            continue
        j = where[spec.name]
        job = jobs[j]
        for model in preds:
            if errors[j] is not None:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = exception_problem(errors[j])  # type: ignore[arg-type]
                continue
            i = live.index(j)
            got = dcg[model][i] if model in dcg else 0.0
            value, problem = score_quietly(job.form.finalize, got, ideal[j], **job.params)
            values[model][spec.name] = value
            if problem is not None:
                problems[model][spec.name] = problem
            if boot is not None:
                d = boot_dcg[model][:, i] if model in boot_dcg else np.zeros(n_reps)
                ideal_r = boot_ideal[:, i] if boot_dcg else np.zeros(n_reps)
                replicates.setdefault(model, {})[spec.name] = np.array(
                    [
                        score_quietly(job.form.finalize, float(a), float(b), **job.params)[0]
                        for a, b in zip(d, ideal_r, strict=True)
                    ]
                )
    return replicates
