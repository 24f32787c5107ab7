"""``ranklens.dask.by_segment`` and ``ranklens.dask.scan_segments``: every model on every
segment of the rows, exactly, on Dask, and the search for weak segments.

The segments ride in the engine's own passes: each row carries its segment's code in every
slicing (one code column per column of labels, the label -> code map fixed first from the
distinct labels, or, for a numeric column with more than ``bins`` distinct values, from the
edges of its quantile bins, selected exactly; the missing label its own segment), and every
pass's summary of a partition or
bucket is keyed by segment (:mod:`ranklens.dask._segment_passes`). One pass serves every
segment: the scan by segment (counts, the ratio measures' sums, the grids of prediction by
truth buckets, the replicates' sums), then one shuffle by prediction per model and one by
truth, in which each bucket's rows of each segment go through the engine's bucket functions
with that segment's carry-ins. The summaries of a segment are then combined by the engine's
own combination (:func:`ranklens.dask._combining.combine`), so a segment's value is the
in-memory value on its rows, exactly as the unsegmented run's is on all the rows. The values
on all the rows (the pick, ``overall``) come from the same passes: slicing 0, one segment of
every row.

The intervals and paired tests come from the engine's Poisson bootstrap (each row's weight in a
replicate a function of the seed, the replicate and its row position or unit), restricted to
each segment's rows and paired across models: percentile intervals, and the Wald p-value of each
difference from its bootstrap standard deviation, as in memory (the replicates of
:func:`ranklens.dask._engine.interval_comparison` with ``inference="bootstrap"``);
in memory :func:`ranklens.by_segment` resamples each segment's rows with
:func:`ranklens.compare_models` (a multinomial bootstrap, BCa or studentized intervals), so the
intervals and p-values differ by resampling noise while the values agree. The search judges
both its questions over every candidate as one family and reads the findings with the
in-memory functions (:func:`ranklens.segments.judged_evaluation`,
:func:`ranklens.segments.scan_result`).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens._foundation.extras import require
from ranklens._foundation.forms import RankSweepForm
from ranklens._foundation.problems import Problem, exception_problem
from ranklens._foundation.registry import MetricSpec
from ranklens.dask import _engine as _e
from ranklens.dask import _passes as _p
from ranklens.dask import _quantiles as _q
from ranklens.dask import _segment_passes as _sp
from ranklens.dask._blocks import (
    BLOCKS,
    BlockKey,
    block_key,
    check_resampling,
    time_as_column,
)
from ranklens.dask._boot_pairs import add_rank_replicates
from ranklens.dask._bucket_passes import (
    Shuffled,
    boot_carry,
    decile_queries,
    prediction_carry_ins,
)
from ranklens.dask._combining import boot_results, combine
from ranklens.dask._evaluate import column_loader
from ranklens.dask._partition_passes import (
    Events,
    Results,
    Scanned,
    event_pass,
    scan_pass,
    split_partitions,
)
from ranklens.dask._planning import Options, PassPlan, plan_passes, prediction_columns
from ranklens.metrics import get_metric
from ranklens.segments import (
    DEFAULT_SEGMENT_METRICS,
    MISSING_SEGMENT,
    SegmentEvaluation,
    SegmentScan,
    SegmentSettings,
    Slicing,
    check_segment_settings,
    choose_picks,
    judged_evaluation,
    label_name,
    label_order,
    quantile_bin_edges,
    quantile_bin_names,
    quantile_bin_positions,
    scan_result,
    segment_records,
    small_reason,
)

#: The key of the one segment of every row (the values on all the rows).
ALL_ROWS = (0, 0)

#: Why the engine does not evaluate a measure of one of its forms by segment.
SUMS_REFUSED = (
    "its sums need parameters fitted on y_true (a relevance function, an accuracy), which "
    "in memory are fitted on each segment's rows; the Dask engine fits them once, on all rows"
)
MEDIAN_REFUSED = "a median needs an exact selection of its own, which is not made by segment"
LISTED_REFUSED = "its shuffles of ranked lists carry no segment key"
LAGGED_REFUSED = "it reads the rows in their order (a lag), which segments do not keep"
MOMENTS_REFUSED = (
    "the engine draws no replicates of it, so its segments would get no interval and no "
    "verdict: give n_bootstrap=0 for its exact values by segment"
)

#: What the result's notes say about the intervals of the Dask engine.
POISSON_NOTE = (
    "values exact (the in-memory values on each segment's rows); intervals and paired tests "
    "from the Dask engine's Poisson bootstrap (replicate weights keyed by {keys}, paired "
    "across models, percentile intervals), not the in-memory {memory} of compare_models: "
    "they differ from the in-memory ones by resampling noise"
)


@dataclasses.dataclass(frozen=True)
class DaskSource:
    """Where the Dask engine reads a run by segment or by window, beside its
    :class:`~ranklens.segments.SegmentSettings`: the columns of the truth and the predictions,
    the buckets of its sorts, how to read Parquet files and the time column that orders the
    rows for blocks.

    Attributes
    ----------
    y_true : str
        The truth column.
    predictions : str or sequence of str
        The prediction columns, one per model.
    n_buckets : int or None
        Value buckets per sort (None: the engine's choice).
    storage_options : dict or None
        Passed to ``dask.dataframe.read_parquet``.
    time : str or None
        The column of the rows' times (blocks of consecutive rows in time order).
    """

    y_true: str
    predictions: Sequence[str] | str
    n_buckets: int | None = None
    storage_options: dict[str, Any] | None = None
    time: str | None = None


def by_segment(
    data: Any,
    *,
    y_true: str,
    predictions: Sequence[str] | str,
    by: Sequence[str] | Mapping[str, str] | str,
    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS,
    sample_weight: str | None = None,
    groups: str | None = None,
    bins: int = 5,
    cross: bool = False,
    min_rows: int = 30,
    min_events: int = 10,
    pick: str | None = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    interval: str = "auto",
    fdr: str = "bh",
    fdr_level: float = 0.05,
    random_state: int = 0,
    events: Any = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    k: int | None = None,
    gains: str | None = None,
    n_buckets: int | None = None,
    storage_options: dict[str, Any] | None = None,
    time: str | None = None,
    scheme: str | None = None,
    block_length: int | str = "auto",
) -> SegmentEvaluation:
    """Evaluate and compare the models on every segment of the rows, exactly, on Dask.

    The Dask engine of ``ranklens.by_segment``: the same result (values, counts, the
    paired difference from the pick, verdicts with the false discovery rate controlled), from
    a dask DataFrame or Parquet files, whatever their size. Every segment rides in the same
    passes, one key per segment.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob (local or any fsspec URL).
    y_true : str
        The truth column.
    predictions : sequence of str
        The prediction columns, one per model (at least two; each model named by its column).
    by : str, sequence of str, or mapping of str to str
        The columns of labels (a mapping names each slicing: ``{name: column}``; otherwise a
        slicing is named by its column): each one a slicing (strings, categories, booleans,
        integers, or numbers with at most ``bins`` distinct values, used as their labels; a
        pandas categorical in its categories' order, others sorted, numbers first). A numeric column
        with more distinct values is cut into ``bins`` quantile bins, as in memory: the same
        edges (NumPy's linear quantiles of its present values, from order statistics selected
        exactly) and the same names. Missing labels form their own segment,
        :data:`ranklens.segments.MISSING_SEGMENT`.
    metrics : str or sequence of str, default :data:`ranklens.segments.DEFAULT_SEGMENT_METRICS`
        Registry names. The engine evaluates by segment the measures whose forms merge: the
        ratios of sums (the mean losses: mean absolute error, root mean squared error, ...),
        the functionals of the ranked curve (the AUC, KS, gain area, accuracy ratio, lifts)
        and the statistics of the pair classes (Kendall's tau-b, Harrell's C, Somers' D,
        Goodman and Kruskal's gamma), and, with ``n_bootstrap=0``, Spearman's rho (the rows
        carry their midranks in their segments; the engine draws no replicates of it). Any
        other measure is refused, named with the reason.
    sample_weight : str, optional
        A column of non-negative case weights.
    groups : str, optional
        A column of unit labels: the replicates weigh whole units (with ``n_bootstrap``).
    bins : int, default 5
        Quantile bins of a numeric column with more distinct values, as ``ranklens.by_segment``.
    cross : bool, default False
        With several columns, also their cross product (a segment per combination present).
    min_rows, min_events, pick, fdr, fdr_level : optional
        As ``ranklens.by_segment``.
    n_bootstrap : int, default 1000
        Poisson bootstrap replicates (0: values only, no interval, no verdict).
    confidence_level : float, default 0.95
        Of the percentile intervals of the values and of the differences.
    interval : {"auto", "percentile"}, default "auto"
        The engine's intervals are the replicates' percentile intervals (``"bca"`` and
        ``"studentized"`` are refused).
    random_state : int, default 0
        The seed of the replicate weights (as :func:`ranklens.dask.evaluate`'s).
    events : None, str or number
        The event definition, fixed on all the rows (a true top fraction becomes the threshold
        it reaches there, as :func:`ranklens.targeting.fixed_events` fixes it).
    relevance, event_threshold, k, gains : optional
        Task parameters, accepted for the in-memory signature: no measure the engine segments
        takes them.
    n_buckets : int, optional
        Value buckets per sort, as :func:`ranklens.dask.evaluate`.
    storage_options : dict, optional
        Passed to ``dask.dataframe.read_parquet``.
    time, scheme, block_length : optional
        As :func:`ranklens.dask.evaluate`: with ``time`` (the rows already in time order by
        it, checked) or ``scheme="blocks"``, each replicate weighs blocks of ``block_length``
        consecutive rows of all the rows, one Poisson count per block (the fixed
        non-overlapping blocks of the engine, not the in-memory ``"stationary"`` or
        ``"circular"`` bootstrap of each segment's own rows, refused here), a segment's rows
        sharing their block's weight; ``"auto"`` is one automatic length over all the rows
        (in memory, each segment's own). The records' ``block_length`` holds it.

    Returns
    -------
    SegmentEvaluation
        As ``ranklens.by_segment``'s; its ``notes`` say where the intervals come from.

    Raises
    ------
    ValueError
        If an argument is invalid (the message names it), a measure cannot be evaluated by
        segment on Dask (the message names each one with the reason), or a column's labels are
        all missing.

    See Also
    --------
    ranklens.dask.evaluate : the unsegmented run.

    Notes
    -----
    The values equal the in-memory ones on the same data (counts exactly, floats to rounding):
    a segment's summaries are the unsegmented run's summaries of its rows. The passes are the
    unsegmented run's, each serving every segment: the labels read once (their distinct
    values; for a column cut into quantile bins, two more reads of it select the order
    statistics of its edges), the scan and the event threshold, the scan by segment, and, for
    the curves and the rank statistics, the shuffles by prediction and by truth. Inside a
    bucket the work is done segment by segment: it grows with the rows, plus a cost per segment
    and bucket (per replicate, for the replicates of the pair classes).
    """
    settings = SegmentSettings.of(locals())
    source = DaskSource(y_true, predictions, n_buckets, storage_options, time)
    return segment_run(data, "by", by, settings, source, level_tests=False)


def scan_segments(
    data: Any,
    *,
    y_true: str,
    predictions: Sequence[str] | str,
    columns: Sequence[str] | Mapping[str, str] | str,
    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS,
    sample_weight: str | None = None,
    groups: str | None = None,
    bins: int = 5,
    min_rows: int = 30,
    min_events: int = 10,
    pick: str | None = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    interval: str = "auto",
    fdr: str = "bh",
    fdr_level: float = 0.05,
    random_state: int = 0,
    events: Any = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    k: int | None = None,
    gains: str | None = None,
    n_buckets: int | None = None,
    storage_options: dict[str, Any] | None = None,
    time: str | None = None,
    scheme: str | None = None,
    block_length: int | str = "auto",
) -> SegmentScan:
    """Search the segments of several columns for where the models are weak, exactly, on Dask.

    The Dask engine of ``ranklens.scan_segments``: every segment of every column (numeric
    ones with more than ``bins`` distinct values cut into quantile bins, as in memory) is a
    candidate, evaluated as :func:`by_segment` evaluates it, with each model's value also
    tested against its own value on all the rows. Both questions (the pick clearly worse than
    another model, every model clearly worse than its overall level), over every candidate
    tried, form one family whose false discovery rate is controlled, as in memory; the
    findings are read from the judged records by the in-memory rules
    (:func:`ranklens.segments.weak_segments`).

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob (local or any fsspec URL).
    y_true : str
        The truth column.
    predictions : sequence of str
        The prediction columns, one per model (at least two).
    columns : str, sequence of str, or mapping of str to str
        The columns of labels to search, each one a slicing (as :func:`by_segment`'s ``by``;
        never their cross product).
    metrics, sample_weight, groups, bins, min_rows, min_events, pick : optional
        As :func:`by_segment`.
    n_bootstrap, confidence_level, interval, fdr, fdr_level, random_state : optional
        As :func:`by_segment`.
    events, relevance, event_threshold, k, gains : optional
        As :func:`by_segment`.
    n_buckets, storage_options, time, scheme, block_length : optional
        As :func:`by_segment`.

    Returns
    -------
    SegmentScan
        As ``ranklens.scan_segments``'s: the findings, largest segment first, then by the size
        of the gap, the candidates and tests counted, and everything measured
        (``evaluation``, whose ``notes`` say where the intervals come from).

    Raises
    ------
    ValueError
        As :func:`by_segment`.

    See Also
    --------
    by_segment : the evaluation of chosen slicings on Dask.

    Notes
    -----
    The values, counts and segments equal the in-memory ones on the same data; a segment's
    level test is the Wald statistic ``(v - v_all) / sd*`` of memory, ``sd*`` the standard
    deviation of the segment's Poisson replicates, so the p-values, and a verdict near the
    threshold, differ from the in-memory ones by resampling noise. The passes are those of
    :func:`by_segment`, one key per segment of every column.
    """
    settings = SegmentSettings.of(locals())
    source = DaskSource(y_true, predictions, n_buckets, storage_options, time)
    return scan_result(segment_run(data, "columns", columns, settings, source, level_tests=True))


def segment_run(
    data: Any,
    option: str,
    labels: Any,
    settings: SegmentSettings,
    source: DaskSource,
    *,
    level_tests: bool,
    blocks: BlockKey | None = None,
) -> SegmentEvaluation:
    """Evaluate every segment of the columns ``labels`` (the argument ``option``), with the
    ``settings`` and ``source`` of :func:`by_segment`'s arguments, and judge them as one family
    (with the tests against the overall level when ``level_tests``): the work of both public
    functions and of :func:`ranklens.dask.by_window`.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob.
    option : str
        The argument that named the columns of labels (``"by"``, ``"columns"``), for messages.
    labels : str, sequence or mapping
        The columns of labels, as :func:`by_segment`'s ``by``.
    settings : SegmentSettings
        The settings of :func:`by_segment`'s arguments.
    source : DaskSource
        The columns of the truth and the predictions, and how to read them.
    level_tests : bool
        Whether each segment is also tested against the model's value on all the rows.
    blocks : BlockKey, optional
        Blocks decided by the caller, their ids in the ``groups`` column of ``settings`` (the
        windows of :func:`ranklens.dask.by_window`); the ``time`` of ``source`` and the
        ``scheme`` and ``block_length`` of ``settings`` are then not read.

    Returns
    -------
    SegmentEvaluation
    """
    require("dask", "evaluating by segment on Dask")
    import dask
    import dask.dataframe as dd

    preds = prediction_columns(source.predictions)
    if len(preds) < 2:
        raise ValueError("predictions must name at least two model columns")
    titles, columns_by = _label_columns(option, labels)
    settings = dataclasses.replace(settings, fdr_level=check_segment_settings(settings, preds))
    n_bootstrap = settings.n_bootstrap
    _check_run(settings)
    time = None
    if blocks is None:
        time = source.time
        resampling = check_resampling(
            time,
            settings.scheme,
            settings.block_length,
            n_bootstrap=n_bootstrap,
            groups=settings.groups,
        )
    metrics = settings.metrics
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics names no measure")
    specs = [get_metric(name) for name in names]
    options = _options(source, preds, settings.groups if n_bootstrap else None, specs, settings)
    plan = _segment_plan(options, specs)

    timed = [time] if time is not None else []
    data = time_as_column(data, time)
    every = list(dict.fromkeys([*options.columns, *columns_by, *timed]))
    labelled = [*options.labels, *columns_by, *timed]
    load = column_loader(data, every, source.storage_options, labelled)
    frame = load(every)
    if blocks is None and resampling == BLOCKS:
        blocks = block_key(
            dask,
            frame,
            y=options.y,
            preds=preds,
            time=time,
            block_length=settings.block_length,
        )
    # the records name the blocks drawn, or the multinomial bootstrap the replicates stand for
    settings = dataclasses.replace(settings, scheme="multinomial", block_length="auto")
    if blocks is not None:
        options = dataclasses.replace(options, blocks=blocks)
        settings = dataclasses.replace(settings, scheme=BLOCKS, block_length=blocks.asked)
    slicings, orders = _label_slicings(dask, frame, columns_by, int(settings.bins))
    slicings = [dataclasses.replace(s, name=t) for s, t in zip(slicings, titles, strict=True)]
    cross = bool(settings.cross and len(slicings) > 1)
    keys = _sp.Keys(tuple(len(s.segments) for s in slicings), cross)
    drop = [c for c in dict.fromkeys([*columns_by, *timed]) if c not in options.columns]
    meta = _sp.with_codes(frame._meta, columns_by, [[] for _ in columns_by], drop)
    frame = frame.map_partitions(_sp.with_codes, columns_by, orders, drop, meta=meta)

    scan_plan = dataclasses.replace(plan, specs=dataclasses.replace(plan.specs, ratio=[]))
    scanned = scan_pass(dask, dd, frame, options, scan_plan)
    found = event_pass(dask, options, plan, scanned)
    totals = _scan_by_segment(dask, options, plan, scanned, found, keys)
    outs = _shuffles(dask, dd, options, plan, scanned, found, keys, totals)
    estimates = {
        key: _estimate(key, options, plan, scanned, found, totals[key], outs) for key in totals
    }
    if keys.cross:
        slicings.append(_crossed(slicings, keys, totals))
    return _evaluation(options, specs, slicings, estimates, settings, found, level_tests)


def _label_columns(option: str, labels: Any) -> tuple[list[str], list[str]]:
    """The slicings' names and their columns: a column name, a sequence of them (each slicing
    named by its column) or a mapping of slicing names to column names.

    Raises
    ------
    ValueError
        When ``labels`` names no column, names one twice or holds something else than names
        (the message names ``option``).
    """
    if isinstance(labels, str):
        titles, columns = [labels], [labels]
    elif isinstance(labels, Mapping):
        titles, columns = [str(t) for t in labels], list(labels.values())
    elif isinstance(labels, Sequence):
        titles, columns = list(labels), list(labels)
    else:
        titles, columns = [], []
    if not columns or not all(isinstance(c, str) for c in [*titles, *columns]):
        raise ValueError(
            f"{option} must name one column of labels, several, or map slicing names to "
            f"columns; got {labels!r}"
        )
    twice = [c for c in dict.fromkeys(columns) if columns.count(c) > 1]
    if twice:
        raise ValueError(f"{option} names the column {twice[0]!r} twice")
    return titles, columns


def _check_run(settings: SegmentSettings) -> None:
    """Refuse the arguments of :func:`by_segment` that the engine cannot honour."""
    from ranklens._foundation.validation import check_probability

    bins, n_bootstrap, interval = settings.bins, settings.n_bootstrap, settings.interval
    random_state = settings.random_state

    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 2:
        raise ValueError(f"bins must be an integer >= 2; got {bins!r}")
    if (
        isinstance(n_bootstrap, bool)
        or not isinstance(n_bootstrap, int | np.integer)
        or n_bootstrap < 0
        or n_bootstrap == 1
    ):
        raise ValueError(f"n_bootstrap must be 0 or an integer >= 2; got {n_bootstrap!r}")
    if interval not in ("auto", "percentile"):
        raise ValueError(
            f"interval={interval!r}: the Dask engine's intervals are the percentile intervals "
            "of its Poisson replicates; give 'auto' or 'percentile'"
        )
    if isinstance(random_state, bool) or not isinstance(random_state, int | np.integer):
        raise ValueError(f"random_state must be an integer on Dask; got {random_state!r}")
    check_probability(settings.confidence_level, "confidence_level")


def _options(
    source: DaskSource,
    preds: list[str],
    groups: str | None,
    specs: Sequence[MetricSpec],
    settings: SegmentSettings,
) -> Options:
    """The engine's settings of the run (``groups``: the units of the replicates, if any)."""
    n_bootstrap = int(settings.n_bootstrap)
    return Options(
        y=source.y_true,
        preds=preds,
        weight=settings.sample_weight,
        groups=groups,
        measures=[spec.name for spec in specs],
        events=settings.events,
        intervals={},
        alpha=None,
        relevance=settings.relevance,
        event_threshold=settings.event_threshold,
        n_bins=10,
        exact=True,
        n_bootstrap=n_bootstrap,
        random_state=int(settings.random_state),
        confidence_level=float(settings.confidence_level),
        n_buckets=source.n_buckets,
        title="Evaluation by segment",
        storage_options=source.storage_options,
        curve_arrays=False,
        cost_benefit=None,
        budget=None,
        cost_per_target=None,
        value_margin=None,
        inference="bootstrap" if n_bootstrap else "auto",
        k=settings.k,
        gains=settings.gains,
        robustness=False,
        row_plots=False,
    )


def _segment_plan(options: Options, specs: Sequence[MetricSpec]) -> PassPlan:
    """The engine's plan of the measures, restricted to the forms it evaluates by segment.

    Raises
    ------
    ValueError
        Naming every measure it cannot evaluate by segment, with the reason.
    """
    plan = plan_passes(options)
    refused = dict(plan.specs.unsupported)
    refused.update({spec.name: SUMS_REFUSED for spec in plan.claimed.sums})
    refused.update({spec.name: MEDIAN_REFUSED for spec in plan.claimed.medians})
    refused.update({spec.name: LISTED_REFUSED for spec in plan.listed})
    refused.update({spec.name: LAGGED_REFUSED for spec in plan.lagged})
    sweep = []
    for spec in plan.specs.sweep:
        form = spec.capabilities.batched
        # Spearman's rho reads the rows' midranks in their segments (carried through the
        # shuffle by truth); the engine draws no replicates of it
        if isinstance(form, RankSweepForm) and form.statistic.moments and options.n_bootstrap:
            refused[spec.name] = MOMENTS_REFUSED
        else:
            sweep.append(spec)
    if refused:
        listed = "; ".join(f"{name!r} ({why})" for name, why in refused.items())
        raise ValueError(f"metrics: the Dask engine cannot evaluate these by segment: {listed}")
    return dataclasses.replace(
        plan,
        specs=dataclasses.replace(plan.specs, sweep=sweep),
        table_specs=[],
        table_rules=[],
        robust_here=False,
        want_curves=bool(plan.specs.curve),
        want_pairs=bool(sweep),
        noether=False,
        delong_c=False,
        delong_auc=False,
    )


# ------------------------------------------------------------------------------------------------
# The labels


def _label_slicings(
    dask: Any, frame: Any, columns: list[str], bins: int
) -> tuple[list[Slicing], list[Any]]:
    """Each column's slicing from its distinct labels (one read of the label columns), and
    each one's labels in the order of their codes, or its quantile bins
    (:class:`ranklens.dask._segment_passes.QuantileBins`) for a numeric column with more than
    ``bins`` distinct values, as in memory (:func:`ranklens.segments.slice_rows`).

    Raises
    ------
    ValueError
        When a column's labels are all missing.
    """
    import pandas as pd

    numeric = {}
    for name in columns:
        dtype = frame._meta[name].dtype
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            numeric[name] = bins + 1  # (one more than bins tells a column to cut)
    found = dask.compute(
        *[dask.delayed(_sp.labels)(part, columns, numeric) for part in frame[columns].to_delayed()]
    )
    slicings: list[Slicing] = []
    orders: list[Any] = []
    cut: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(columns):
        present: dict[Any, None] = {}
        categories: dict[Any, None] = {}
        n_missing = 0
        for part in found:
            present.update(dict.fromkeys(part[i]["present"]))
            categories.update(dict.fromkeys(part[i]["categories"] or []))
            n_missing += part[i]["missing"]
        if not present:
            raise ValueError(f"segment labels {name!r} are all missing")
        dtype = frame._meta[name].dtype
        if name in numeric and len(present) > bins:
            cut[name] = {
                "n": sum(part[i]["n_present"] for part in found),
                "sample": np.concatenate([part[i]["sample"] for part in found]),
            }
            orders.append(None)  # (the bins, once their edges are selected)
            slicings.append(Slicing(name, np.zeros(0, np.int64), (), "quantile bins", n_missing))
            continue
        if isinstance(dtype, pd.CategoricalDtype):
            order = [c for c in categories if c in present]
        else:
            order = label_order(list(present))
        names = [label_name(v) for v in order]
        if n_missing:
            names.append(MISSING_SEGMENT)
        slicings.append(Slicing(name, np.zeros(0, np.int64), tuple(names), "categories", n_missing))
        orders.append(order)
    if cut:
        edges = _bin_edges(dask, frame, cut, bins)
        for i, name in enumerate(columns):
            if name in edges:
                names = quantile_bin_names(edges[name])
                if slicings[i].n_missing:
                    names.append(MISSING_SEGMENT)
                slicings[i] = dataclasses.replace(slicings[i], segments=tuple(names))
                orders[i] = _sp.QuantileBins(edges[name])
    return slicings, orders


def _bin_edges(
    dask: Any, frame: Any, cut: dict[str, dict[str, Any]], bins: int
) -> dict[str, np.ndarray]:
    """The edges of the quantile bins of each column of ``cut`` (its count of present values
    ``n`` and a ``sample`` of them), as in memory: the order statistics NumPy's quantiles read
    (:func:`ranklens.segments.quantile_bin_positions`), selected exactly in two reads of the
    columns (:func:`ranklens.dask._quantiles.select`, every column at once), and NumPy's
    interpolation of them (:func:`ranklens.segments.quantile_bin_edges`)."""
    targets, samples, wanted = [], {}, {}
    n_rows = 0
    for name, info in cut.items():
        source = _q.Source(name, labels=True)
        samples[source] = info["sample"]
        wanted[name] = quantile_bin_positions(info["n"], bins)
        # the (k + 1)-th smallest value is the first whose count of values at most it is k + 1
        targets += [_q.Target(source, float(k + 1)) for k in wanted[name]]
        n_rows = max(n_rows, int(info["n"]))
    found = iter(
        _q.select(
            dask,
            frame[list(cut)],
            targets,
            samples,
            max(1, math.ceil(n_rows / _e.ROWS_PER_BUCKET)),
        )
    )
    edges = {}
    for name, info in cut.items():
        values = {int(k): next(found) for k in wanted[name]}
        edges[name] = quantile_bin_edges(int(info["n"]), bins, values)
    return edges


def _crossed(
    slicings: list[Slicing], keys: _sp.Keys, totals: dict[tuple[int, int], Any]
) -> Slicing:
    """The cross product of the columns' slicings: its segments are the combinations present,
    in the order of their codes (as in memory)."""
    combos = sorted(code for s, code in totals if s == keys.cross_slicing)
    names = []
    for code in combos:
        parts, rest = [], code
        for size in reversed(keys.sizes):
            parts.append(rest % size)
            rest //= size
        names.append(
            " & ".join(s.segments[c] for s, c in zip(slicings, reversed(parts), strict=True))
        )
    name = " x ".join(s.name for s in slicings)
    return Slicing(name, np.asarray(combos, dtype=np.int64), tuple(names), "crossed", 0)


# ------------------------------------------------------------------------------------------------
# The passes by segment


def _scan_by_segment(
    dask: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    keys: _sp.Keys,
) -> dict[tuple[int, int], dict[str, Any]]:
    """Every segment's counts, ratio sums, grids and replicates' sums, merged pairwise on the
    workers (one summary of every segment reaches the client)."""
    replicates = options.replicates
    grids = plan.want_curves or plan.want_pairs
    work = _sp.ScanWork(
        ratio_forms=plan.ratio_forms,
        threshold=events.threshold,
        p_bounds=events.p_bounds if grids else None,
        t_bounds=events.t_bounds if grids else None,
        reps=None if replicates is None else replicates["reps"],
        seed=0 if replicates is None else replicates["seed"],
        curves=plan.want_curves,
        pairs=plan.want_pairs,
    )
    level = [
        dask.delayed(_sp.segment_scan)(part, keys, options.y, options.preds, options.weight, work)
        for part in scanned.frame.to_delayed()
    ]
    while len(level) > 1:
        pairs = zip(level[::2], level[1::2], strict=False)
        level = [dask.delayed(_sp.merge_scans)(u, v) for u, v in pairs] + level[
            len(level) // 2 * 2 :
        ]
    (totals,) = dask.compute(level[0])
    return dict(totals)


@dataclasses.dataclass(frozen=True)
class _Segment:
    """A segment's totals as the engine's combination reads them."""

    rows: int
    events: int
    n_eff: int
    total_w: Any
    w2: float
    grids: list[np.ndarray]

    @classmethod
    def of(cls, summary: dict[str, Any], unit: bool) -> _Segment:
        rows = int(summary["rows"])
        grids = []
        for counts, weights in summary.get("grids", []):
            grids.append(counts.astype(object) if unit else weights)
        return cls(
            rows=rows,
            events=int(summary["events"]),
            n_eff=rows if unit else int(summary["positive"]),
            total_w=rows if unit else _e.fsum(summary["w"]),
            w2=0.0 if unit else _e.fsum(summary["w2"]),
            grids=grids,
        )

    def truth_below(self, unit: bool) -> dict[int, Any]:
        """Per truth bucket, the count (or weight) of the segment's rows below it."""
        t_counts = self.grids[0].sum(axis=0)
        below = np.r_[0, np.cumsum(t_counts)[:-1]]  # (Python integers without weights)
        return {b: int(v) if unit else float(v) for b, v in enumerate(below)}


def _shuffles(
    dask: Any,
    dd: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    keys: _sp.Keys,
    totals: dict[tuple[int, int], dict[str, Any]],
) -> dict[str, Any]:
    """The shuffles by prediction (one per model) and by truth, each bucket's rows of each
    segment through the engine's bucket functions: ``{"pred": [model][bucket], "truth":
    [bucket]}``, each a mapping of segment key to summary."""
    if not (plan.want_curves or plan.want_pairs):
        return {"pred": [[] for _ in options.preds], "truth": []}
    unit, preds = options.unit, options.preds
    segments = {key: _Segment.of(summary, unit) for key, summary in totals.items()}
    replicates = options.replicates
    frame = split_partitions(dask, dd, scanned.frame, scanned.part_rows, _e.ROWS_PER_BUCKET)
    keep = [options.y, *([options.weight] if options.weight else [])]
    keep += [_sp.code_column(i) for i in range(len(keys.sizes))]
    keep += [_p.KEY] if replicates is not None else []
    current, pred_tasks = frame, []
    for k, model in enumerate(preds):
        source = current if plan.want_pairs else frame
        wanted = [*keep, *(preds[k:] if plan.want_pairs else [model])]
        wanted += [c for c in source.columns if c.startswith(("_ranklens_a", "_ranklens_p"))]
        source = source[list(dict.fromkeys(c for c in source.columns if c in wanted))]
        bucketed = source.map_partitions(
            _p.with_p_bucket, model, options.weight, events.p_bounds[k]
        )
        n_buckets = events.p_bounds[k].size + 1
        shuffled = _p.by_bucket(bucketed, _p.P_BUCKET, n_buckets)
        work = _prediction_work(k, options, plan, scanned, events, segments, totals)
        if _reads_midranks(plan):
            work = dataclasses.replace(work, slicings=keys.n_slicings)
        outputs = [
            dask.delayed(_sp.prediction_bucket, nout=2)(part, keys, _in_bucket(work, i, segments))
            for i, part in enumerate(shuffled.to_delayed())
        ]
        pred_tasks.append([o[1] for o in outputs])
        meta = source._meta.assign(
            **{
                _p.midrank_column(k): np.zeros(0, work.midrank_dtype),
                _p.bucket_column(k): np.zeros(0, _p.BUCKET_DTYPE),
            },
            **{
                _sp.segment_midrank_column(k, s): np.zeros(0, work.midrank_dtype)
                for s in range(work.slicings)
            },
        )
        current = dd.from_delayed([o[0] for o in outputs], meta=meta, verify_meta=False)
    truth_tasks = _truth_tasks(dask, current, options, plan, events, keys, segments)
    pred_out, truth_out = dask.compute(pred_tasks, truth_tasks)
    return {"pred": pred_out, "truth": truth_out}


def _reads_midranks(plan: PassPlan) -> bool:
    """Whether a measure reads the rows' midranks (Spearman's rho): each row then carries its
    midrank in its segment of every slicing to the shuffle by truth."""
    return any(
        isinstance(spec.capabilities.batched, RankSweepForm)
        and spec.capabilities.batched.statistic.moments
        for spec in plan.specs.sweep
    )


def _prediction_work(
    k: int,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    segments: dict[tuple[int, int], _Segment],
    totals: dict[tuple[int, int], dict[str, Any]],
) -> _sp.PredictionWork:
    """Model ``k``'s bucket work: every segment's carry-ins by bucket (filtered per bucket by
    :func:`_in_bucket`)."""
    unit, replicates = options.unit, options.replicates
    carries, queries, boot_carries = {}, {}, {}
    for key, seg in segments.items():
        if seg.n_eff == 0:
            continue
        carries[key] = prediction_carry_ins(
            seg.grids[k], events.first_event_bucket, seg.total_w, unit
        )
        queries[key] = decile_queries(options.n_bins, seg.total_w)
        if replicates is not None and key != ALL_ROWS and plan.want_curves:
            boot = {
                "parts": [totals[key]["boot"]],
                "reps": replicates["reps"],
                "depths": plan.depths,
            }
            boot_carries[key] = boot_carry(boot, k, replicates["seed"])["carry"]
    return _sp.PredictionWork(
        model_index=k,
        y=options.y,
        pred=options.preds[k],
        weight=options.weight,
        threshold=events.threshold,
        carries=carries,
        queries=queries,
        depths=plan.depths,
        rank_pairs=plan.want_pairs,
        curves=plan.want_curves,
        t_bounds=events.t_bounds,
        single=events.single,
        reps=None if replicates is None else replicates["reps"],
        seed=0 if replicates is None else replicates["seed"],
        boot_carries=boot_carries,
        midrank_dtype=_p.midrank_dtype(scanned.n, unit),
    )


def _in_bucket(
    work: _sp.PredictionWork, bucket: int, segments: dict[tuple[int, int], _Segment]
) -> _sp.PredictionWork:
    """``work`` for one prediction bucket: the carry-ins of the segments with rows in it."""
    k = work.model_index
    held = [key for key in work.carries if segments[key].grids[k][bucket].sum() > 0]
    return dataclasses.replace(
        work,
        carries={key: work.carries[key][bucket] for key in held},
        queries={key: work.queries[key] for key in held},
        boot_carries={
            key: work.boot_carries[key][bucket] for key in held if key in work.boot_carries
        },
    )


def _truth_tasks(
    dask: Any,
    current: Any,
    options: Options,
    plan: PassPlan,
    events: Events,
    keys: _sp.Keys,
    segments: dict[tuple[int, int], _Segment],
) -> list[Any]:
    """The shuffle by truth of the last shuffle by prediction's rows, and its buckets' tasks
    (none without rank statistics)."""
    if not plan.want_pairs:
        return []
    unit, replicates = options.unit, options.replicates
    below = {key: seg.truth_below(unit) for key, seg in segments.items() if seg.n_eff}
    wanted = [c for c in current.columns if c not in options.preds]
    source = current[wanted]
    bucketed = source.map_partitions(_p.with_t_bucket, options.y, events.t_bounds, events.single)
    shuffled = _p.by_bucket(bucketed, _p.T_BUCKET, events.t_bounds.size + 1)
    boot = None
    if replicates is not None:
        boot = {
            "reps": replicates["reps"],
            "seed": replicates["seed"],
            "keys": {key for key in below if key != ALL_ROWS},
        }
    tasks = []
    for b, part in enumerate(shuffled.to_delayed()):
        held = [key for key in below if segments[key].grids[0][:, b].sum() > 0]
        tasks.append(
            dask.delayed(_sp.truth_bucket)(
                part,
                keys,
                options.y,
                options.weight,
                len(options.preds),
                {key: below[key][b] for key in held},
                {key: float(segments[key].total_w) for key in held},
                boot,
            )
        )
    return tasks


# ------------------------------------------------------------------------------------------------
# Each segment's values, replicates and comparison


@dataclasses.dataclass(frozen=True)
class _Estimate:
    """A segment's counts, values (with their problems) and comparison."""

    rows: int
    events: int
    values: dict[str, dict[str, float]]
    problems: dict[str, dict[str, Problem]]
    comparison: Any


def _estimate(
    key: tuple[int, int],
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    summary: dict[str, Any],
    outs: dict[str, Any],
) -> _Estimate:
    """One segment's values (the engine's combination of its summaries) and, with replicates,
    its comparison (percentile intervals and paired tests of its replicates)."""
    preds, unit = options.preds, options.unit
    seg = _Segment.of(summary, unit)
    results = Results.empty(preds)
    pred_out = [[o[key] for o in per_model if key in o] for per_model in outs["pred"]]
    truth_out = [t[key] for t in outs["truth"] if key in t]
    if seg.n_eff == 0:
        for spec in [*plan.specs.ratio, *plan.specs.curve, *plan.specs.sweep]:
            for model in preds:
                results.values[model][spec.name] = math.nan
                results.problems[model][spec.name] = Problem(
                    "undefined", "the segment has no row of positive weight"
                )
        return _Estimate(seg.rows, seg.events, results.values, results.problems, None)
    _ratio_values(options, plan, summary, results)
    if plan.want_curves or plan.want_pairs:
        t_counts = seg.grids[0].sum(axis=0)
        shuffled = Shuffled(
            pred_out=pred_out,
            truth_out=truth_out,
            pred_pairs_out=[],
            truth_pairs_out=[],
            rho_out=[],
            curve_out=[],
            truth_curve_out=None,
            grid_totals=seg.grids,
            t_counts=t_counts,
            t_w2=None if unit else summary["t_w2"],
            t_carry=seg.truth_below(unit),
            sequence=False,
            value_curves=False,
        )
        own = dataclasses.replace(
            scanned, n=seg.rows, total_w=seg.total_w, n_eff=seg.n_eff, scans=[{"w2": seg.w2}]
        )
        combine(options, plan, own, events, shuffled, results)
    comparison = None
    if options.replicates is not None and key != ALL_ROWS:
        replicates = _replicates(options, plan, events, summary, pred_out, truth_out)
        comparison = _e.interval_comparison(
            results.values, preds, {"bootstrap": replicates}, "bootstrap", options.confidence_level
        )
    return _Estimate(seg.rows, seg.events, results.values, results.problems, comparison)


def _ratio_values(
    options: Options, plan: PassPlan, summary: dict[str, Any], results: Results
) -> None:
    """The ratio measures of a segment from its partial sums, as the unsegmented run's (a
    domain error on a row is the measure's problem there)."""
    for j, spec in enumerate(plan.specs.ratio):
        form = spec.capabilities.batched
        for k, model in enumerate(options.preds):
            parts = summary["sums"][k][j]
            failed = _e.whole_failure(parts, summary["rows_parts"])
            if failed is not None:
                results.values[model][spec.name] = math.nan
                results.problems[model][spec.name] = exception_problem(failed)
                continue
            num = _e.fsum(p[0] for p in parts)
            den = _e.fsum(p[1] for p in parts)
            with np.errstate(all="ignore"):
                value = float(form.finalize(num / den)) if den != 0 else math.nan
            results.values[model][spec.name] = value
            if not math.isfinite(value):
                results.problems[model][spec.name] = Problem(
                    "undefined", "the per-row values are not finite for these data"
                )


def _replicates(
    options: Options,
    plan: PassPlan,
    events: Events,
    summary: dict[str, Any],
    pred_out: list[list[dict[str, Any]]],
    truth_out: list[dict[str, Any]],
) -> dict[str, Any]:
    """A segment's replicates and percentile intervals, as the unsegmented run's
    ``extras["bootstrap"]``: the engine's functions on the segment's summaries."""
    from ranklens._inference.resampling import percentile_interval

    replicates = options.replicates
    assert replicates is not None
    level, reps, seed = options.confidence_level, replicates["reps"], replicates["seed"]
    boot = {"reps": reps, "parts": [summary["boot"]], "depths": plan.depths, "seed": seed}
    if plan.want_curves:
        out = boot_results(
            boot,
            pred_out,
            options.preds,
            plan.specs,
            level,
            options.key_words,
            options.random_state,
            "poisson" if options.blocks is None else "blocks",
        )
    else:  # the ratio measures alone (no curve piece to read)
        sums = summary["boot"]["sums"]
        values: dict[str, dict[str, np.ndarray]] = {}
        for k, model in enumerate(options.preds):
            values[model] = {}
            for j, spec in enumerate(plan.specs.ratio):
                with np.errstate(all="ignore"):
                    ratio = sums[k, j, 0] / sums[k, j, 1]
                    values[model][spec.name] = np.asarray(
                        spec.capabilities.batched.finalize(ratio), np.float64
                    )
        intervals = {
            model: {
                name: tuple(float(v) for v in percentile_interval(r[np.isfinite(r)], level))
                if np.isfinite(r).sum() >= 2
                else (math.nan, math.nan)
                for name, r in out_model.items()
            }
            for model, out_model in values.items()
        }
        out = {"n_replicates": int(reps.size), "replicates": values, "intervals": intervals}
    if plan.want_pairs:
        add_rank_replicates(
            out,
            [summary["boot_grid"]],
            [[o["boot_pairs"] for o in per_model if "boot_pairs" in o] for per_model in pred_out],
            [t["boot_pairs"] for t in truth_out if "boot_pairs" in t],
            options.preds,
            plan.specs.sweep,
            events.single,
            level,
        )
    return out


# ------------------------------------------------------------------------------------------------
# The result


def _evaluation(
    options: Options,
    specs: list[MetricSpec],
    slicings: list[Slicing],
    estimates: dict[tuple[int, int], _Estimate],
    settings: SegmentSettings,
    events: Events,
    level_tests: bool = False,
) -> SegmentEvaluation:
    """The records of every segment, judged as one family, in the in-memory result (with
    ``level_tests``, each record also tested against the model's value on all the rows)."""
    preds = options.preds
    whole = estimates[ALL_ROWS]
    overall = {spec.name: {m: whole.values[m][spec.name] for m in preds} for spec in specs}
    picks = choose_picks(specs, overall, settings.pick)
    counts = ["events" in inspect.signature(spec.func).parameters for spec in specs]
    defined = any(counts)
    records: list[dict[str, Any]] = []
    unshown: list[float] = []
    for s, slicing in enumerate(slicings, start=1):
        codes = slicing.codes if slicing.kind == "crossed" else range(len(slicing.segments))
        for j, code in enumerate(codes):
            est = estimates[(s, int(code))]
            comparison, problem = _comparison(est, options, slicing.segments[j])
            n_events = est.events if defined else None
            small = [
                small_reason(
                    est.rows,
                    est.events,
                    est.rows - est.events,
                    counts_events=c and defined,
                    min_rows=int(settings.min_rows),
                    min_events=int(settings.min_events),
                )
                for c in counts
            ]
            shown, others = segment_records(
                slicing.name,
                slicing.segments[j],
                (est.rows, n_events),
                specs=specs,
                models=preds,
                picks=picks,
                small=small,
                comparison=comparison,
                problem=problem,
                score=_scorer(est),
                overall=overall if level_tests else None,
            )
            if options.blocks is not None and comparison is not None:
                _block_lengths(shown, est, small, specs, options.blocks, slicing.segments[j])
            records += shown
            unshown += others
    keys_note = options.key_words
    return judged_evaluation(
        records,
        specs=specs,
        models=preds,
        picks=picks,
        overall=overall,
        slicings=slicings,
        settings=settings,
        level_tests=level_tests,
        events=_fixed_events(options, events) if defined else None,
        notes=[POISSON_NOTE.format(keys=keys_note, memory=_memory_scheme(options))]
        if options.n_bootstrap
        else [],
        unshown=unshown,
    )


def _comparison(est: _Estimate, options: Options, segment: str) -> tuple[Any, Problem | None]:
    """A segment's comparison, or None with the problem that kept it from one (a window too
    short for its blocks, as in memory)."""
    why = None if options.blocks is None else options.blocks.not_compared.get(segment)
    if why is None or est.comparison is None:
        return est.comparison, None
    return None, exception_problem(ValueError(why))


def _memory_scheme(options: Options) -> str:
    """The in-memory bootstrap the Dask engine's replicates stand in for, in words."""
    if options.blocks is None:
        return "multinomial bootstrap"
    return "stationary block bootstrap (blocks from random starts, each segment's own length)"


def _block_lengths(
    records: list[dict[str, Any]],
    est: _Estimate,
    small: Sequence[str],
    specs: Sequence[MetricSpec],
    blocks: BlockKey,
    segment: str,
) -> None:
    """The rows per block of a compared segment's bootstrap, in its records of the measures it
    compared (where the in-memory records hold their block length)."""
    tested = set(est.comparison.metrics)
    length = blocks.lengths.get(segment, blocks.length)
    compared = {
        spec.name for spec, why in zip(specs, small, strict=True) if not why and spec.name in tested
    }
    for record in records:
        if record["metric"] in compared and length is not None:
            record["block_length"] = float(length)


def _scorer(est: _Estimate) -> Any:
    def score(spec: MetricSpec, model: str) -> tuple[float, Any]:
        return est.values[model][spec.name], est.problems[model].get(spec.name)

    return score


def _fixed_events(options: Options, events: Events) -> Any:
    """The event definition every segment applied, as :func:`ranklens.targeting.fixed_events`
    words it: a true top fraction as the threshold it reached on all the rows."""
    if events.top is not None:
        return f">={events.threshold!r}"
    return options.events
