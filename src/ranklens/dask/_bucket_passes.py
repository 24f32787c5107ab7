"""The passes of :func:`ranklens.dask.evaluate` over value buckets: the grid of prediction by truth
buckets, the replicates' sums, and the shuffles by prediction (one per model) and by truth."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens.dask import _boot_pairs as _bp
from ranklens.dask import _curve_sums as _cs
from ranklens.dask import _curves as _c
from ranklens.dask import _delong as _dl
from ranklens.dask import _engine as _e
from ranklens.dask import _noether as _nt
from ranklens.dask import _passes as _p
from ranklens.dask import _robustness as _rb
from ranklens.dask import _row_plots as _rp
from ranklens.dask import _sums as _s
from ranklens.dask._gather import compute_gathering
from ranklens.dask._partition_passes import Events, Results, Scanned, split_partitions
from ranklens.dask._planning import Clock, Options, PassPlan


@dataclass(frozen=True)
class Grid:
    """What the grid pass gave.

    Attributes
    ----------
    grids : list of dict
        Each model's counts (and weights) by prediction bucket and truth bucket, added up by
        pairs of partitions on the workers.
    curve_jobs, curves_not_built, curve_sums : Any
        The curves from sums (:mod:`ranklens.dask._curve_sums`): their jobs, those not built
        with the reason, and the sums read.
    row_plan : ranklens.dask._row_plots.RowPlots or None
        The report's regression plots (None without ``row_plots``), and ``row_first`` the
        first read of their exact selection.
    """

    grids: list[dict[str, Any]]
    curve_jobs: Any
    curves_not_built: Any
    curve_sums: Sequence[Any]
    row_plan: Any
    row_first: Sequence[Any]


def grid_pass(
    dask: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    results: Results,
    used: dict[str, Any],
) -> Grid:
    """The pass of the bucket grids, with the reads of the curves from sums and the first read
    of the report's regression plots."""
    y, preds, weight, frame = options.y, options.preds, options.weight, scanned.frame
    # added pairwise on the workers: one grid per partition, gathered at once, would need
    # partitions x buckets^2 cells on the client (16 GB per model at 1e9 rows)
    level = [
        dask.delayed(_p.grid)(part, y, preds, weight, events.p_bounds, events.t_bounds)
        for part in frame.to_delayed()
    ]
    while len(level) > 1:
        pairs = zip(level[::2], level[1::2], strict=False)
        level = [dask.delayed(_p.add_grids)(u, v) for u, v in pairs] + level[len(level) // 2 * 2 :]
    # the curves declaring a sums form (REC, RROC, precision-recall), on this pass's reads
    curve_jobs, curves_not_built = _cs.plan(
        {
            "relevance": used.get("relevance", options.relevance),
            "event_threshold": options.event_threshold,
        },
        used.get("fitted", {}),
        scanned.sample_y,
        dict(zip(preds, scanned.sample_p, strict=True)),
        results.problems,
    )
    # the report's regression plots: the first read of their exact selection, on this pass's
    # reads (ranklens.dask._row_plots)
    row_plan = (
        _rp.RowPlots(y, preds, scanned.n, scanned.sample_y, scanned.sample_p, scanned.buckets)
        if options.row_plots
        else None
    )
    row_first: Sequence[Any] = [] if row_plan is None else row_plan.first_read_tasks(dask, frame)
    summed = dask.compute(*level, *_cs.reduced(dask, frame, y, weight, curve_jobs), *row_first)
    split = len(summed) - len(row_first)
    summed, row_first = summed[:split], summed[split:]
    return Grid(
        grids=list(summed[: len(level)]),
        curve_jobs=curve_jobs,
        curves_not_built=curves_not_built,
        curve_sums=summed[len(level) :],
        row_plan=row_plan,
        row_first=row_first,
    )


def with_event_share(
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    grid: Grid,
    results: Results,
) -> Events:
    """The events of a true top fraction with their share of the weight in their definition (in
    ``results.settings`` too), as ``targeting._event_response`` words it; other events as they
    are."""
    if events.top is None or not plan.want_curves:
        return events
    event_from = events.first_event_bucket
    column = 0 if options.unit else 1  # the counts, else the weights
    events_w = sum(float(gr["grids"][0][column][:, event_from:].sum()) for gr in grid.grids)
    definition = events.definition[:-1] + f"; event share {events_w / float(scanned.total_w):.4g})"
    results.settings["events"] = definition
    return dataclasses.replace(events, definition=definition)


def bootstrap_pass(
    dask: Any, options: Options, plan: PassPlan, scanned: Scanned, events: Events
) -> dict[str, Any] | None:
    """The replicates' sums of the ratio measures and curve pieces and, with rank correlations,
    their bucket grids (:mod:`ranklens.dask._boot_pairs`); None without replicates."""
    if not options.n_bootstrap:
        return None
    y, preds, weight, frame = options.y, options.preds, options.weight, scanned.frame
    reps = np.arange(int(options.n_bootstrap))
    boot_seed = _s.poisson_seed(options.random_state)
    boot_parts = dask.compute(
        *[
            dask.delayed(_p.bootstrap_sums)(
                part,
                y,
                preds,
                weight,
                plan.ratio_forms,
                events.threshold,
                events.p_bounds,
                reps,
                boot_seed,
            )
            for part in frame.to_delayed()
        ]
    )
    boot = {"reps": reps, "parts": boot_parts, "depths": plan.depths, "seed": boot_seed}
    if plan.want_pairs:
        # Kendall's tau-b and Harrell's C per replicate (ranklens.dask._boot_pairs)
        boot["grid_parts"] = dask.compute(
            *[
                dask.delayed(_bp.replicate_grids)(
                    part, y, preds, weight, events.p_bounds, events.t_bounds, reps, boot_seed
                )
                for part in frame.to_delayed()
            ]
        )
    return boot


@dataclass(frozen=True)
class Shuffled:
    """What the shuffles by prediction (one per model) and by truth gave.

    Attributes
    ----------
    pred_out : list of list of dict
        Per model, the summary of each prediction bucket.
    truth_out : list of dict
        The summary of each truth bucket (none without the truth shuffle).
    pred_pairs_out, truth_pairs_out : list
        The replicates' pair counts of the prediction and truth buckets.
    rho_out : list
        Per model, Spearman's leave-one-out candidates (the robustness table).
    curve_out, truth_curve_out : list
        With ``curve_arrays``: per model, the buckets' ranked sums; per truth bucket, its sums
        by distinct ``y``.
    grid_totals : list of numpy.ndarray
        Per model, the grid of counts (or weights) of all partitions.
    t_counts, t_w2 : numpy.ndarray
        The counts (or weights, and the sum of squared weights) of each truth bucket.
    t_carry : dict
        Per truth bucket, the count (or weight) below it (with the truth shuffle).
    sequence, value_curves : bool
        Whether the curves are built from every row, and with ``y`` as the value.
    """

    pred_out: list[Any]
    truth_out: list[Any]
    pred_pairs_out: list[Any]
    truth_pairs_out: list[Any]
    rho_out: list[Any]
    curve_out: list[Any]
    truth_curve_out: Any
    grid_totals: list[np.ndarray]
    t_counts: np.ndarray
    t_w2: np.ndarray | None
    t_carry: dict[int, Any]
    sequence: bool
    value_curves: bool


@dataclass
class _ShuffleTasks:
    """The delayed outputs of the shuffles, built model by model and computed at once, and how
    the curve pieces are read (``sequence``: from every row, in order; ``value_curves``: with
    ``y`` as the value)."""

    sequence: bool
    value_curves: bool
    pred_summaries: list[Any] = field(default_factory=list)
    rho_alone: list[Any] = field(default_factory=list)  # per model (Spearman's leave-one-out)
    curve_pieces: list[Any] = field(default_factory=list)  # per model, with curve_arrays
    boot_pred_pairs: list[Any] = field(default_factory=list)
    truth_summaries: list[Any] = field(default_factory=list)
    rho_parts: list[Any] = field(default_factory=list)
    boot_truth_pairs: list[Any] = field(default_factory=list)
    truth_curve_pieces: list[Any] = field(default_factory=list)


def shuffle_passes(
    dask: Any,
    dd: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    grid: Grid,
    boot: dict[str, Any] | None,
    clock: Clock,
) -> Shuffled:
    """The shuffles by prediction for each model, then by truth, computed at once; the curve
    arrays are fetched bucket by bucket as they finish."""
    unit = options.unit
    sequence = options.curve_arrays and _c.sequence_wanted(scanned.n_eff)  # every row, in order
    value_curves = options.curve_arrays and min(s["y_min"] for s in scanned.scans) >= 0
    frame = _shuffle_input(dask, dd, options, plan, scanned, sequence)
    grid_totals = [_grid_total(grid.grids, k, unit) for k in range(len(options.preds))]
    tasks = _ShuffleTasks(sequence=sequence, value_curves=value_curves)
    current = frame
    for k in range(len(options.preds)):
        # Only the columns still needed travel. Without rank correlations each model's shuffle
        # reads the input itself (y, its prediction, the weight and key); with them the
        # shuffles are chained (the truth shuffle needs every model's midrank on the same
        # rows), less the predictions already sorted.
        current = _prediction_shuffle(
            dask,
            dd,
            current if plan.chain else frame,
            k,
            options,
            plan,
            scanned,
            events,
            grid_totals[k],
            boot,
            tasks,
        )
    t_counts = np.sum(grid_totals[0], axis=0)
    t_w2 = None if unit else np.sum([gr["t_w2"] for gr in grid.grids], axis=0)
    t_carry: dict[int, Any] = {}
    if plan.want_pairs:
        t_carry = {
            b: (int(sum(t_counts[:b])) if unit else float(sum(t_counts[:b])))
            for b in range(t_counts.size)
        }
        _truth_shuffle(
            dask, dd, current, options, plan, scanned, events, t_counts, t_carry, boot, tasks
        )
    clock.lap("bootstrap sums")  # the replicates' pass, and the shuffles' graph built
    # the curve arrays are fetched bucket by bucket as they finish, not held on the workers
    # until the whole pass is done (ranklens.dask._gather)
    (pred_out, truth_out, pred_pairs_out, truth_pairs_out, rho_out), gathered = compute_gathering(
        [
            tasks.pred_summaries,
            tasks.truth_summaries,
            tasks.boot_pred_pairs,
            tasks.boot_truth_pairs,
            tasks.rho_parts,
        ],
        [*tasks.curve_pieces, tasks.truth_curve_pieces],
    )
    n_curves = len(tasks.curve_pieces)
    return Shuffled(
        pred_out=pred_out,
        truth_out=truth_out,
        pred_pairs_out=pred_pairs_out,
        truth_pairs_out=truth_pairs_out,
        rho_out=rho_out,
        curve_out=gathered[:n_curves],
        truth_curve_out=gathered[n_curves],
        grid_totals=grid_totals,
        t_counts=t_counts,
        t_w2=t_w2,
        t_carry=t_carry,
        sequence=tasks.sequence,
        value_curves=tasks.value_curves,
    )


def _shuffle_input(
    dask: Any, dd: Any, options: Options, plan: PassPlan, scanned: Scanned, sequence: bool
) -> Any:
    """The rows the shuffles read: with their order inside tie runs and index for the curves of
    every row, their input positions for the robustness table's rows, and cut into pieces of at
    most a bucket's rows (a shuffle's memory grows with its input partitions: files of
    millions of rows)."""
    frame = scanned.frame
    if sequence and (not options.unit or _c.rows_wanted()):
        frame = _c.with_rows(dask, dd, frame, scanned.part_rows)  # the order inside tie runs
    if plan.robust_rows:  # each row's input position, for the table's rows
        frame = _rb.with_positions(dask, dd, frame, scanned.part_rows, scanned.n)
    return split_partitions(dask, dd, frame, scanned.part_rows, _e.ROWS_PER_BUCKET)


def _grid_total(grids: Sequence[dict[str, Any]], k: int, unit: bool) -> np.ndarray:
    """Model ``k``'s grid over all partitions: exact integer counts without weights (Python
    integers), the weights' sums with them."""
    if unit:
        return np.sum([gr["grids"][k][0] for gr in grids], axis=0).astype(object)
    return np.sum([gr["grids"][k][1] for gr in grids], axis=0)


def prediction_carry_ins(
    g: np.ndarray, first_event_bucket: int, total_w: Any, unit: bool
) -> dict[int, Any]:
    """Per prediction bucket of a model, what its bucket's pass takes in from the others (the
    weight below and above it, the events and non-events above it, the totals), from the
    model's grid of counts or weights by prediction and truth bucket.

    Parameters
    ----------
    g : ndarray of shape (prediction buckets, truth buckets)
        The grid over the rows concerned (all of them, or one segment's).
    first_event_bucket : int
        The first truth bucket of events.
    total_w : int or float
        The rows' count or total weight.
    unit : bool
        Whether every row counts once.

    Returns
    -------
    dict
        ``carry[bucket]``, as :func:`ranklens.dask._passes.prediction_partition` reads it.
    """
    return _carry_ins(g.sum(axis=1), g[:, first_event_bucket:].sum(axis=1), total_w, unit)


def _carry_ins(w_a: np.ndarray, e_a: np.ndarray, total_w: Any, unit: bool) -> dict[int, Any]:
    """Per prediction bucket, the weight below and above it, the events and non-events above
    it, and the totals, from each bucket's weight ``w_a`` and events ``e_a``."""
    carry = {}
    for a in range(w_a.size):
        carry[a] = {
            "n_below": int(sum(w_a[:a])) if unit else 0,
            "w_below": float(sum(w_a[:a])),
            "w_above": float(sum(w_a[a + 1 :])),
            "e_above": float(sum(e_a[a + 1 :])),
            "n_above": float(sum(w_a[a + 1 :]) - sum(e_a[a + 1 :])),
            "W": float(total_w),
            "E": float(sum(e_a)),
            "N": float(total_w - sum(e_a)),
        }
    return carry


def _prediction_shuffle(
    dask: Any,
    dd: Any,
    source: Any,
    k: int,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    g: np.ndarray,
    boot: dict[str, Any] | None,
    tasks: _ShuffleTasks,
) -> Any:
    """Model ``k``'s shuffle of the rows of ``source`` by prediction, its tasks added to
    ``tasks``: the frame of its buckets' rows, with the columns they carry on (each row's
    midrank and bucket, and its per-row counts)."""
    y, preds, weight, n = options.y, options.preds, options.weight, scanned.n
    model, unit = preds[k], options.unit
    h_cross: Any = _nt.cross_counts(g) if plan.per_row or (plan.delong_c and unit) else None
    if plan.delong_c and not unit:
        h_cross = _nt.cross_counts(g, np.float64)
    w_a = g.sum(axis=1)
    nb = w_a.size
    v_above = _rb.above_sums(w_a, n) if plan.robust_rho else None  # (Spearman's leave-one-out)
    carry = _carry_ins(w_a, g[:, events.first_event_bucket :].sum(axis=1), scanned.total_w, unit)
    boot_k = None if boot is None else boot_carry(boot, k, boot["seed"])
    source = _without(
        source, [*preds, options.groups], [y, weight, *(preds[k:] if plan.chain else [model])]
    )
    bucketed = source.map_partitions(_p.with_p_bucket, model, weight, events.p_bounds[k])
    shuffled = _p.by_bucket(bucketed, _p.P_BUCKET, nb)
    queries = decile_queries(options.n_bins, scanned.total_w)
    outputs = [
        dask.delayed(_prediction_task, nout=2)(
            part,
            k,
            y,
            model,
            weight,
            events.threshold,
            {i: carry[i]},  # partition i holds bucket i (the divisions): its carry-ins only
            queries,
            plan.depths,
            plan.want_pairs,
            events.t_bounds,
            events.single,
            None if boot_k is None else {**boot_k, "carry": {i: boot_k["carry"][i]}},
            curves=plan.want_curves,
            **_per_row_work(i, k, options, plan, scanned, events, g, h_cross, carry, v_above),
        )
        for i, part in enumerate(shuffled.to_delayed())
    ]
    tasks.pred_summaries.append([o[1] for o in outputs])
    meta = source._meta.assign(
        **{
            _p.midrank_column(k): np.zeros(0, _p.midrank_dtype(n, unit)),
            _p.bucket_column(k): np.zeros(0, _p.BUCKET_DTYPE),
            **(_nt.meta_columns(k, n) if plan.per_row else {}),
            **_dl.meta_columns(
                k, c=plan.delong_c and not plan.per_row, auc=plan.delong_auc, unit=unit
            ),
            **(_rb.meta_columns(k) if plan.robust_rho else {}),
        }
    )
    if plan.robust_rho:  # the rows of single-valued truth buckets, for Spearman's leave-one-out
        tasks.rho_alone.append(
            [
                dask.delayed(_rb.alone_rows, nout=2)(
                    o[0], y, k, n, events.t_bounds, events.single, g.sum(axis=0), nb
                )
                for o in outputs
            ]
        )
    if options.curve_arrays:
        tasks.curve_pieces.append(
            [
                dask.delayed(_c.piece)(
                    part, y, model, weight, events.threshold, tasks.value_curves, tasks.sequence
                )
                for part in shuffled.to_delayed()
            ]
        )
    if boot is not None and plan.want_pairs:
        tasks.boot_pred_pairs.append(
            [
                dask.delayed(_bp.prediction_bucket_pairs)(
                    part, y, model, weight, boot["reps"], boot["seed"]
                )
                for part in shuffled.to_delayed()
            ]
        )
    return dd.from_delayed([o[0] for o in outputs], meta=meta, verify_meta=False)


def _per_row_work(
    i: int,
    k: int,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    g: np.ndarray,
    h_cross: Any,
    carry: dict[int, Any],
    v_above: Any,
) -> dict[str, Any]:
    """The per-row work of model ``k``'s prediction bucket ``i``, as :func:`_prediction_task`
    takes it: Noether's (``noether``), DeLong's (``delong``) and the robustness table's
    (``robust``) arguments, None where not wanted."""
    y, model, n = options.y, options.preds[k], scanned.n
    t_bounds, single = events.t_bounds, events.single
    noether = None
    if plan.per_row:
        noether = dict(
            y=y,
            pred=model,
            model_index=k,
            h_row=h_cross[i],
            t_bounds=t_bounds,
            single=single,
            t_sizes=g.sum(axis=0),
            n=n,
        )
    delong = None
    if plan.delong_c or plan.delong_auc:
        delong = dict(
            y=y,
            pred=model,
            weight=options.weight,
            model_index=k,
            n_models=len(options.preds),
            h_row=h_cross[i] if plan.delong_c else None,
            t_bounds=t_bounds,
            single=single,
            t_sizes=g.sum(axis=0),
            total_w=scanned.total_w,
            auc=dict(threshold=events.threshold, carry=carry[i]) if plan.delong_auc else None,
        )
    robust = None
    if plan.robust_rows:
        robust = dict(
            y=y,
            model_index=k,
            t_bounds=t_bounds,
            single=single,
            t_sizes=g.sum(axis=0),
            n=n,
            rho=None
            if v_above is None
            else dict(v_above=int(v_above[i]), n_truth=t_bounds.size + 1),
        )
    return {"noether": noether, "delong": delong, "robust": robust}


def _truth_shuffle(
    dask: Any,
    dd: Any,
    current: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    t_counts: np.ndarray,
    t_carry: dict[int, Any],
    boot: dict[str, Any] | None,
    tasks: _ShuffleTasks,
) -> None:
    """The shuffle by truth of the rows of the last shuffle by prediction (``current``), every
    model's midrank on them, its tasks added to ``tasks``."""
    y, preds, weight, n = options.y, options.preds, options.weight, scanned.n
    t_bounds, single = events.t_bounds, events.single
    source = _without(
        current,
        [
            *preds,
            options.groups,
            _c.ROW,
            *([_p.KEY] if boot is None else []),
            *([_dl.auc_column(k) for k in range(len(preds))] if plan.delong_auc else []),
        ],
        [y, weight],
    )
    bucketed = source.map_partitions(_p.with_t_bucket, y, t_bounds, single)
    shuffled = _p.by_bucket(bucketed, _p.T_BUCKET, t_bounds.size + 1)
    u_above = _rb.above_sums(t_counts, n) if plan.robust_rho else None
    truth_tasks = [
        dask.delayed(_truth_task, nout=2 if plan.robust_rho else None)(
            part,
            y,
            weight,
            len(preds),
            {b: t_carry[b]},
            float(scanned.total_w),
            noether=dict(y=y, n_models=len(preds), n=n) if plan.per_row else None,
            delong=dict(y=y, weight=weight, n_models=len(preds), total_w=scanned.total_w)
            if plan.delong_c
            else None,
            robust=dict(n_models=len(preds), n=n) if plan.robust_tau else None,
            rho=None
            if u_above is None
            else dict(n=n, u_above=int(u_above[b]), n_pred=[c.size + 1 for c in events.p_bounds]),
        )
        for b, part in enumerate(shuffled.to_delayed())
    ]
    tasks.truth_summaries = [t[0] for t in truth_tasks] if plan.robust_rho else truth_tasks
    if plan.robust_rho:
        tasks.rho_parts = _rho_parts(
            dd, truth_tasks, n, single, events.p_bounds, tasks.rho_alone, tasks.pred_summaries
        )
    if boot is not None:
        tasks.boot_truth_pairs = [
            dask.delayed(_bp.truth_bucket_pairs)(
                part, y, weight, len(preds), boot["reps"], boot["seed"]
            )
            for part in shuffled.to_delayed()
        ]
    if options.curve_arrays:
        tasks.truth_curve_pieces = [
            dask.delayed(_c.truth_piece)(part, y, weight, len(preds))
            for part in shuffled.to_delayed()
        ]


def decile_queries(n_bins: int, total_w: Any) -> np.ndarray:
    """The cumulative weights (from the top) at the bounds of the decile table's bins."""
    queries = np.arange(n_bins + 1) * float(total_w) / n_bins
    queries[-1] = float(total_w)
    return queries


def _prediction_task(
    part: Any,
    *args: Any,
    curves: bool = True,
    noether: dict[str, Any] | None = None,
    delong: dict[str, Any] | None = None,
    robust: dict[str, Any] | None = None,
) -> tuple[Any, dict[str, Any]]:
    _p.release_unused_memory()
    part = part.reset_index(drop=True)
    # with Noether's interval the bucket's one sweep also gives each row's partners
    frame, out = _p.prediction_partition(
        part, *args, curves=curves, per_row=noether is not None or delong is not None
    )
    rows = out.pop("_rows", None)
    if noether is not None:
        frame, out["noether"] = _nt.prediction_rows(part, frame, **noether, rows=rows)
    if delong is not None:
        frame, out["delong_pairs"] = _dl.prediction_rows(part, frame, **delong, rows=rows)
    if robust is not None:  # the robustness table's candidate rows of tau (with ``noether``)
        frame, out["robust"] = _rb.prediction_bucket(frame, **robust)
    return frame, out


def _truth_task(
    part: Any,
    *args: Any,
    noether: dict[str, Any] | None = None,
    delong: dict[str, Any] | None = None,
    robust: dict[str, Any] | None = None,
    rho: dict[str, Any] | None = None,
) -> Any:
    """One truth bucket: its summary; with ``rho``, ``(summary, frames)``, the frames of its
    rows for Spearman's leave-one-out (:func:`ranklens.dask._robustness.truth_rows`)."""
    _p.release_unused_memory()
    part = part.reset_index(drop=True)
    out = _p.truth_partition(part, *args, per_row=noether is not None or delong is not None)
    rows = out.pop("_rows", None)
    if noether is not None:
        out["noether"] = _nt.truth_rows(part, **noether, rows=rows)
    if delong is not None:
        out["delong_c"] = _dl.truth_rows(part, **delong, rows=rows)
    if robust is not None and rows is not None:  # the table's candidate rows (with ``noether``)
        out["robust"] = _rb.truth_candidates(part, rows, **robust)
    if rho is None:
        return out
    frames, out["rho"] = _rb.truth_rows(part, rows, **rho)
    return out, frames


def _rho_parts(
    dd: Any,
    truth: Sequence[Any],
    n: int,
    single: np.ndarray,
    p_bounds: Sequence[np.ndarray],
    alone: Sequence[Sequence[Any]],
    pred_summaries: Sequence[Sequence[Any]],
) -> list[Any]:
    """Spearman's leave-one-out candidates (:func:`ranklens.dask._robustness.rho_candidates`):
    the rows of each truth bucket (``truth``: the truth tasks, each ``(summary, frames)``), with
    what the order of ``y`` gives them, and the rows of single-valued truth buckets go back into
    each model's prediction buckets, to be read there with the totals of that model.

    Every row sends back its two midranks (8 bytes a row below n = 2^30; its bucket is the
    shuffle's partition number); the rest of what the row knows (36 bytes more) goes back only
    for the rows that bounds taken before the shuffle leave as possibly the furthest
    (:func:`ranklens.dask._robustness.rho_survivors`: on the benchmark's data, 0.02 to 0.2 %
    of the rows with 400 buckets; all of them at worst)."""
    import dask

    out = []
    for k, m in enumerate(b.size + 1 for b in p_bounds):
        frames = [dask.delayed(operator.getitem)(t[1], k) for t in truth]
        frames += [a[0] for a in alone[k]]
        constants = dask.delayed(_rb.rho_constants)(
            k, [t[0] for t in truth], [a[1] for a in alone[k]], pred_summaries[k], single
        )
        thresholds = dask.delayed(_rb.rho_thresholds)(
            [dask.delayed(_rb.rho_bounds)(f, constants) for f in frames]
        )
        slim = dd.from_delayed(
            [dask.delayed(_rb.rho_slim)(f) for f in frames],
            meta=_rb.slim_meta(n),
            verify_meta=False,
        )
        kept = dd.from_delayed(
            [dask.delayed(_rb.rho_survivors)(f, constants, thresholds) for f in frames],
            meta=_rb.rho_meta(n),
            verify_meta=False,
        )
        out.append(
            [
                dask.delayed(_rb.rho_candidates)(every, few, constants, n)
                for every, few in zip(
                    _p.by_bucket(slim, _rb.PB, m).to_delayed(),
                    _p.by_bucket(kept, _rb.PB, m).to_delayed(),
                    strict=True,
                )
            ]
        )
    return out


def boot_carry(boot: dict[str, Any], k: int, seed: int) -> dict[str, Any]:
    """Per prediction bucket, the replicates' weight, events and non-events above it."""
    w_a = np.sum([p["buckets"][k][0] for p in boot["parts"]], axis=0)  # (B, buckets)
    e_a = np.sum([p["buckets"][k][1] for p in boot["parts"]], axis=0)
    total_w, total_e = w_a.sum(axis=1), e_a.sum(axis=1)
    above_w = np.cumsum(w_a[:, ::-1], axis=1)[:, ::-1] - w_a
    above_e = np.cumsum(e_a[:, ::-1], axis=1)[:, ::-1] - e_a
    carry = {
        a: {
            "w_above": above_w[:, a],
            "e_above": above_e[:, a],
            "n_above": above_w[:, a] - above_e[:, a],
            "W": total_w,
            "E": total_e,
            "N": total_w - total_e,
        }
        for a in range(w_a.shape[1])
    }
    return {"carry": carry, "reps": boot["reps"], "seed": seed, "depths": boot.get("depths")}


def _without(frame: Any, drop: Sequence[str | None], keep: Sequence[str | None]) -> Any:
    """``frame`` without the columns in ``drop`` that are not in ``keep``."""
    gone = {c for c in drop if c is not None} - {c for c in keep if c is not None}
    columns = [c for c in frame.columns if c not in gone]
    return frame if len(columns) == len(frame.columns) else frame[columns]
