"""The first passes of :func:`ranklens.dask.evaluate`, over the partitions as they are: the scan
(checks, totals, samples, the ratio measures' sums), the event threshold and the passes of the
measures claimed by modules of their own."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._foundation.events import DEFAULT_EVENTS, parse_events
from ranklens._foundation.forms import RatioForm
from ranklens._foundation.interval_formulas import TargetMoments
from ranklens._foundation.problems import Problem, exception_problem, metric_info
from ranklens.dask import _engine as _e
from ranklens.dask import _lagged as _lag
from ranklens.dask import _listwise as _lw
from ranklens.dask import _magnitude as _mg
from ranklens.dask import _passes as _p
from ranklens.dask import _sums as _s
from ranklens.dask._planning import Options, PassPlan


@dataclass(frozen=True)
class Scanned:
    """What the first pass found: the totals and samples that size every later pass.

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
        The input, each row with its key (``_p.KEY``) when there are replicates.
    scans : list of dict
        The summaries of the partitions that hold rows.
    part_rows : list of int
        The rows of every partition of the input, empty ones included.
    offsets : numpy.ndarray or None
        With replicates, each partition's first row in the input.
    robust_losses : list
        ``(losses, first row)`` of each partition holding the robustness table's losses.
    n : int
        Rows.
    binary : bool
        Whether ``y`` is 0/1.
    total_w : int or float
        The total weight (``n`` without weights).
    n_eff : int
        Rows of positive weight (``n`` without weights).
    sample_y, sample_p, sample_w : numpy.ndarray, list of numpy.ndarray, numpy.ndarray or None
        Samples of ``y``, of each prediction and of the weight, the same rows of each
        (:data:`ranklens.dask._passes.SAMPLE_PER_PARTITION` a partition, at random), for the
        bounds of the buckets and the tail weights of the mean losses' intervals.
    target : ranklens._foundation.interval_formulas.TargetMoments
        The target's weighted moments, merged over the partitions.
    buckets : int
        Value buckets per sort.
    """

    frame: Any
    scans: list[dict[str, Any]]
    part_rows: list[int]
    offsets: np.ndarray | None
    robust_losses: list[tuple[Any, int]]
    n: int
    binary: bool
    total_w: Any
    n_eff: int
    sample_y: np.ndarray
    sample_p: list[np.ndarray]
    sample_w: np.ndarray | None
    target: TargetMoments
    buckets: int


def scan_pass(dask: Any, dd: Any, frame: Any, options: Options, plan: PassPlan) -> Scanned:
    """The first pass: each partition's rows, checks, sums of the ratio measures and samples.

    Raises
    ------
    ValueError
        When a column holds a missing or non-finite value, a weight is negative, there are fewer
        than 2 rows or the weights' total is zero or overflows.
    """
    y, preds, weight = options.y, options.preds, options.weight
    scans = dask.compute(
        *[
            dask.delayed(_p.scan)(part, i, y, preds, weight, plan.ratio_forms, plan.robust_forms)
            for i, part in enumerate(frame.to_delayed())
        ]
    )
    for s in scans:
        if s["bad"]:
            raise ValueError(
                f"column {s['bad'][0]!r} holds missing or non-finite values (or negative "
                "weights); drop or fill them first"
            )
    n = sum(s["n"] for s in scans)
    part_rows = [s["n"] for s in scans]
    robust_losses = [
        (s["robust"], int(start))
        for s, start in zip(scans, np.cumsum([0, *part_rows[:-1]]), strict=True)
        if "robust" in s
    ]
    offsets = None
    if options.n_bootstrap:
        offsets = np.r_[0, np.cumsum([s["n"] for s in scans])[:-1]]
        meta = frame._meta.assign(**{_p.KEY: np.zeros(0, np.uint64)})
        frame = dd.from_delayed(
            [
                dask.delayed(_p.add_key)(part, int(offset), options.groups, options.block_rows)
                for part, offset in zip(frame.to_delayed(), offsets, strict=True)
            ],
            meta=meta,
            verify_meta=False,
        )
    if n < 2:
        raise ValueError(f"need at least 2 rows; got {n}")
    scans = [s for s in scans if s["n"]]
    binary = all(s["binary"] for s in scans)
    total_w: Any = n if options.unit else _weight_total(weight, [s["w"] for s in scans])
    n_eff = n if options.unit else sum(s["n_positive"] for s in scans)
    return Scanned(
        frame=frame,
        scans=scans,
        part_rows=part_rows,
        offsets=offsets,
        robust_losses=robust_losses,
        n=n,
        binary=binary,
        total_w=total_w,
        n_eff=n_eff,
        sample_y=np.concatenate([s["sample_y"] for s in scans]),
        sample_p=[np.concatenate([s["sample_p"][k] for s in scans]) for k in range(len(preds))],
        sample_w=None if weight is None else np.concatenate([s["sample_w"] for s in scans]),
        target=functools.reduce(TargetMoments.merge, [s["target"] for s in scans]),
        buckets=options.n_buckets or max(1, math.ceil(n_eff / _e.ROWS_PER_BUCKET)),
    )


def _weight_total(weight: Any, sums: Sequence[float]) -> float:
    """The total of the weights from the partitions' sums, as the in-memory engine checks it.

    Raises
    ------
    ValueError
        When the total is zero, or beyond the largest float (weights near 1e308: the in-memory
        engine refuses them too, naming the column).
    """
    try:
        total = _e.fsum(sums)
    except OverflowError:  # math.fsum of finite sums whose total overflows
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(
            f"weight {weight!r} sums to {total} (overflow); rescale the weights (only their "
            "ratios matter for most measures)"
        )
    if not total > 0:
        raise ValueError(
            f"weight {weight!r} sums to zero; at least one observation needs positive weight"
        )
    return total


@dataclass(frozen=True)
class Results:
    """What the passes fill as they run: ``values[model][measure]``, ``problems[model][what]``,
    ``info[measure]`` (the registry's description of each measure) and the settings recorded."""

    values: dict[str, dict[str, float]]
    problems: dict[str, dict[str, Problem]]
    info: dict[str, dict[str, Any]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls, preds: Sequence[str]) -> Results:
        """No value nor problem yet for any of the models ``preds``."""
        return cls(values={m: {} for m in preds}, problems={m: {} for m in preds})


def ratio_values(
    dask: Any, options: Options, plan: PassPlan, scanned: Scanned, results: Results
) -> None:
    """The ratio measures from the scan's sums: a measure that failed on a partition fails for
    its model; data of extreme size are read again, rescaled."""
    values, problems = results.values, results.problems
    preds, specs, scans = options.preds, plan.specs, scanned.scans
    for j, spec in enumerate(specs.ratio):
        results.info[spec.name] = metric_info(spec)
        form = spec.capabilities.batched
        assert isinstance(form, RatioForm)
        for k, model in enumerate(preds):
            failed = _e.whole_failure([s["sums"][k][j] for s in scans], scanned.part_rows)
            if failed is not None:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = exception_problem(failed)
                continue
            num = _e.fsum(s["sums"][k][j][0] for s in scans)
            den = _e.fsum(s["sums"][k][j][1] for s in scans)
            with np.errstate(all="ignore"):
                value = float(form.finalize(num / den)) if den != 0 else math.nan
            values[model][spec.name] = value
    # data of extreme size (values near 1e-300 or 1e300): the means of their squares again on
    # the data scaled by a power of two, as the in-memory functions compute them
    rescaled = _mg.extreme_values(
        dask,
        scanned.frame,
        y=options.y,
        preds=preds,
        weight=options.weight,
        forms=plan.ratio_forms,
        scans=scans,
    )
    for (k, j), value in rescaled.items():
        values[preds[k]][specs.ratio[j].name] = value
    for j, spec in enumerate(specs.ratio):
        for k, model in enumerate(preds):
            if spec.name in problems[model] or math.isfinite(values[model][spec.name]):
                continue
            problems[model][spec.name] = Problem(
                "undefined",
                "the value lies beyond the float range (data of extreme size)"
                if (k, j) in rescaled
                else "the per-row values are not finite for these data",
            )


def lagged_pass(
    dask: Any, options: Options, plan: PassPlan, scanned: Scanned, results: Results
) -> None:
    """The lag-scaled measures (:mod:`ranklens.dask._lagged`): one more read, in row order (the
    partitions are the rows in order)."""
    _lag.evaluate_claimed(
        dask,
        scanned.frame,
        plan.lagged,
        y=options.y,
        preds=options.preds,
        weight=options.weight,
        values=results.values,
        problems=results.problems,
        info=results.info,
    )


@dataclass(frozen=True)
class Events:
    """The events of the ranked curves and the bounds of the buckets of the sorts.

    Attributes
    ----------
    definition : str
        The event definition as ``settings["events"]`` records it.
    threshold : float
        Events are the rows of ``y >= threshold`` (infinite when no pass reads the events).
    top : float or None
        The fraction of ``"top:q"``, else None.
    t_bounds, single : numpy.ndarray
        The truth buckets' bounds, and the buckets holding a single value
        (:func:`ranklens.dask._engine.truth_bounds`).
    p_bounds : list of numpy.ndarray
        Each model's prediction buckets' bounds.
    """

    definition: str
    threshold: float
    top: float | None
    t_bounds: np.ndarray
    single: np.ndarray
    p_bounds: list[np.ndarray]

    @property
    def first_event_bucket(self) -> int:
        """The first truth bucket of events (the threshold is one of the bounds)."""
        return int(np.searchsorted(self.t_bounds, self.threshold, side="right"))


def event_pass(dask: Any, options: Options, plan: PassPlan, scanned: Scanned) -> Events:
    """The event definition, with the exact threshold of a true top fraction where the curves
    are read (two more reads), and the bucket bounds of the sorts."""
    definition, threshold, top = _event_definition(options.events, scanned.binary)
    if top is not None and plan.want_curves:
        threshold = _top_threshold(dask, options, scanned, top)
        definition = f"top:{top:g} (y >= {threshold:.6g})"
    if not plan.want_curves:
        threshold = math.inf  # no events: nothing reads them
    assert threshold is not None
    t_bounds, single = _e.truth_bounds(
        scanned.sample_y, scanned.buckets, [threshold] if plan.want_curves else []
    )
    return Events(
        definition=definition,
        threshold=threshold,
        top=top,
        t_bounds=t_bounds,
        single=single,
        p_bounds=[_e.quantile_bounds(sp, scanned.buckets) for sp in scanned.sample_p],
    )


def _event_definition(events: Any, binary: bool) -> tuple[str, float | None, float | None]:
    """(definition, threshold or None, top fraction or None) of ``events``, read by the one
    grammar of the measures (:func:`ranklens._foundation.events.parse_events`): the same definitions
    mean the same and are refused with the same message. ``"value"`` and relevance functions
    are refused here: the Dask engine forms 0/1 events from a threshold on ``y`` only."""
    rule = parse_events(events)
    if rule.kind == "default":
        if binary:
            return "binary", 1.0, None
        rule = parse_events(DEFAULT_EVENTS)
    if rule.kind == "top":
        return f"top:{rule.bound:g}", None, rule.bound
    if rule.kind == ">=":
        return rule.threshold_text, rule.bound, None
    if rule.kind == ">":
        # y > t is y >= the next float above t
        return rule.threshold_text, float(np.nextafter(rule.bound, math.inf)), None
    raise ValueError(
        f"events={events!r}: the Dask engine takes None, 'top:q', '>=t', '>t' or a number t "
        "(events as a threshold on y); 'value' and relevance functions are for the in-memory "
        "engine"
    )


def _top_threshold(dask: Any, options: Options, scanned: Scanned, top: float) -> float:
    """The exact threshold of the true top fraction ``top`` of the weight: the weight of each
    truth bucket, then the rows of the bucket holding the threshold."""
    y, weight, frame, n = options.y, options.weight, scanned.frame, scanned.n
    unit, total_w = options.unit, scanned.total_w
    t_bounds = _e.quantile_bounds(scanned.sample_y, scanned.buckets)
    totals = dask.compute(
        *[dask.delayed(_p.bucket_totals)(part, y, weight, t_bounds) for part in frame.to_delayed()]
    )
    counts = np.sum([t["count"] for t in totals], axis=0)
    weights_t = counts if unit else np.sum([t["weight"] for t in totals], axis=0)
    above = np.cumsum(weights_t[::-1])[::-1]  # weight in this bucket and the ones above
    goal = math.ceil(top * n - 1e-9) if unit else top * total_w * (1.0 - 1e-12)
    bucket = int(np.flatnonzero(above >= goal)[-1])
    rows = dask.compute(
        *[
            dask.delayed(_p.bucket_rows)(part, y, weight, t_bounds, bucket)
            for part in frame.to_delayed()
        ]
    )
    vals = np.concatenate([r[0] for r in rows])
    wts = None if unit else np.concatenate([r[1] for r in rows])
    higher = int(counts[bucket + 1 :].sum())
    higher_w = 0.0 if unit else float(weights_t[bucket + 1 :].sum())
    return _e.exact_top_threshold(vals, wts, higher, higher_w, top, n, total_w)


def run_settings(options: Options, plan: PassPlan, events: Events, buckets: int) -> dict[str, Any]:
    """The settings recorded before the measures' passes add theirs."""
    settings: dict[str, Any] = {
        "engine": "dask",
        "events": events.definition,
        "exact": options.exact,
        "buckets": buckets,
    }
    if not plan.want_curves:
        del settings["events"]
    settings.update({key: v for key, v in options.ranked_list_params.items() if v is not None})
    return settings


@dataclass(frozen=True)
class Claimed:
    """What the passes of the claimed measures leave for the rest of the run.

    Attributes
    ----------
    sums_replicates, listed_replicates : Any
        The replicates of the measures of sums and medians, of the ranked-list measures.
    used : dict
        ``"relevance"``: the relevance function the measures used (for the report), and
        ``"fitted"``: the parameters fitted (:func:`ranklens.dask._sums.evaluate_claimed`).
    """

    sums_replicates: Any
    listed_replicates: Any
    used: dict[str, Any]


def claimed_passes(
    dask: Any,
    dd: Any,
    load: Callable[[list[str]], Any],
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    results: Results,
) -> Claimed:
    """The passes of the measures claimed by modules of their own: sums once their parameters
    are fitted and medians (:mod:`ranklens.dask._sums`), then ranked lists
    (:mod:`ranklens.dask._listwise`)."""
    used: dict[str, Any] = {}
    replicates = options.replicates
    sums_replicates = _s.evaluate_claimed(
        dask,
        load(options.every_column),
        plan.claimed,
        y=options.y,
        preds=options.preds,
        weight=options.weight,
        intervals=options.intervals,
        context=options.measure_context,
        n=scanned.n,
        n_rows=scanned.n_eff,
        total_w=float(scanned.total_w),
        n_buckets=scanned.buckets,
        sample_y=scanned.sample_y,
        sample_p=dict(zip(options.preds, scanned.sample_p, strict=True)),
        values=results.values,
        problems=results.problems,
        info=results.info,
        settings=results.settings,
        bootstrap=None
        if replicates is None
        else dict(
            **replicates,
            offsets=scanned.offsets,
            groups=options.groups,
            block_rows=options.block_rows,
        ),
        used=used,
    )
    # NDCG's shuffles, as the rank sweeps' below, from pieces of at most a bucket's rows: a
    # shuffle's memory grows with its input partitions (files of millions of rows)
    listed_replicates = _lw.evaluate_claimed(
        dask,
        split_partitions(dask, dd, scanned.frame, scanned.part_rows, _e.ROWS_PER_BUCKET),
        plan.listed,
        y=options.y,
        preds=options.preds,
        weight=options.weight,
        context={**options.measure_context, **options.ranked_list_params},
        part_rows=piece_rows(scanned.part_rows, _e.ROWS_PER_BUCKET),
        n_buckets=scanned.buckets,
        sample_y=scanned.sample_y,
        sample_p=scanned.sample_p,
        values=results.values,
        problems=results.problems,
        info=results.info,
        bootstrap=options.replicates,
    )
    return Claimed(sums_replicates, listed_replicates, used)


def _split_edges(m: int, rows: int) -> list[int]:
    """Where a partition of ``m`` rows is cut into even pieces of at most ``rows`` rows."""
    return np.linspace(0, m, max(1, math.ceil(m / rows)) + 1).astype(np.int64).tolist()


def piece_rows(part_rows: Sequence[int], rows: int) -> list[int]:
    """The rows of each piece of :func:`split_partitions`, in order."""
    if max(part_rows, default=0) <= rows:
        return list(part_rows)
    return [b - a for m in part_rows for a, b in itertools.pairwise(_split_edges(m, rows))]


def split_partitions(dask: Any, dd: Any, frame: Any, part_rows: Sequence[int], rows: int) -> Any:
    """``frame`` with every partition of more than ``rows`` rows cut into even pieces."""
    if max(part_rows, default=0) <= rows:
        return frame
    pieces = []
    for part, m in zip(frame.to_delayed(), part_rows, strict=True):
        pieces += [
            dask.delayed(_p.row_slice)(part, a, b)
            for a, b in itertools.pairwise(_split_edges(m, rows))
        ]
    return dd.from_delayed(pieces, meta=frame._meta, verify_meta=False)
