"""``ranklens.dask.evaluate``: the orchestration of its passes and the assembly of its result.

The passes are planned from the settings alone (:mod:`ranklens.dask._planning`), run over the
partitions as they are (:mod:`ranklens.dask._partition_passes`), then over value buckets
(:mod:`ranklens.dask._bucket_passes`), and their summaries combined into the measures
(:mod:`ranklens.dask._combining`); the partition functions are :mod:`ranklens.dask._passes`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._foundation.extras import require
from ranklens._foundation.problems import Problem, call_quietly, metric_info
from ranklens._foundation.registry import (
    BINARY_TARGET_NOTE,
    NOT_PROBABILITIES,
    MetricSpec,
    applies_to_target,
    needs_probabilities,
)
from ranklens._inference.method_names import methods_settings
from ranklens.dask import _boot_pairs as _bp
from ranklens.dask import _curve_sums as _cs
from ranklens.dask import _curves as _c
from ranklens.dask import _engine as _e
from ranklens.dask import _passes as _p
from ranklens.dask import _robustness as _rb
from ranklens.dask import _sums as _s
from ranklens.dask._blocks import BLOCKS, block_key, check_resampling, time_as_column
from ranklens.dask._bucket_passes import (
    Grid,
    Shuffled,
    bootstrap_pass,
    grid_pass,
    shuffle_passes,
    with_event_share,
)
from ranklens.dask._combining import Combined, boot_results, combine, counts_at_depth
from ranklens.dask._inputs import check_meta, check_parquet, read_as_float
from ranklens.dask._partition_passes import (
    Claimed,
    Events,
    Results,
    Scanned,
    claimed_passes,
    event_pass,
    lagged_pass,
    ratio_values,
    run_settings,
    scan_pass,
)
from ranklens.dask._planning import (
    Clock,
    Options,
    PassPlan,
    check_inference,
    plan_passes,
    prediction_columns,
)
from ranklens.evaluation import ModelEvaluation


def _dask() -> tuple[Any, Any]:
    require("dask", "evaluating on Dask")
    import dask
    import dask.dataframe as dd

    return dask, dd


def _loader(
    data: Any, columns: list[str], storage_options: Any, labels: Sequence[str] = ()
) -> Callable[[list[str]], Any]:
    """``load(some_columns)``: those of the used ``columns`` of a dask DataFrame or of Parquet
    data, each but the ``labels`` (unit ids, as they are) read as float64 in every partition.

    Checked once, before any pass: a Parquet path's files each hold every column, of a numeric
    type (:func:`ranklens.dask._inputs.check_parquet`, footers only); a DataFrame's columns are
    there and numeric (:func:`ranklens.dask._inputs.check_meta`).
    """
    _, dd = _dask()
    numeric = [c for c in columns if c not in labels]
    if isinstance(data, dd.DataFrame):
        missing = [c for c in columns if c not in data.columns]
        if missing:
            raise ValueError(f"data: no column {missing[0]!r}")
        recast = check_meta(data._meta, numeric)
        return lambda wanted: read_as_float(data[wanted], [c for c in recast if c in wanted])
    if isinstance(data, str) or hasattr(data, "__fspath__"):
        require("parquet", "reading Parquet files")
        path = str(data)
        in_files = check_parquet(
            path, numeric, [c for c in columns if c in labels], storage_options
        )

        def load(wanted: list[str]) -> Any:
            # Partitions of whole row groups, about a bucket's bytes each (a file of several row
            # groups is read in pieces, not whole): the passes that read the files hold one
            # piece at a time, as the shuffles hold one bucket.
            frame = dd.read_parquet(
                path,
                columns=wanted,
                storage_options=storage_options,
                split_row_groups="adaptive",
                blocksize=_e.ROWS_PER_BUCKET * 8 * len(wanted),
            )
            # a file's own type (integers, a dictionary of numbers) or a categorical restored
            # from the pandas metadata: float64 in every partition, whatever the first file's
            recast = check_meta(frame._meta, [c for c in numeric if c in wanted])
            return read_as_float(
                frame, [c for c in dict.fromkeys([*recast, *in_files]) if c in wanted]
            )

        return load
    raise TypeError(
        "data must be a dask DataFrame or a Parquet path or glob (local or any fsspec "
        f"URL); got {type(data).__name__}"
    )


def column_loader(
    data: Any, columns: list[str], storage_options: Any, labels: Sequence[str] = ()
) -> Callable[[list[str]], Any]:
    """``load(some_columns)``: the columns of ``data`` as the engine's passes read them (the
    ``labels`` as they are, every other one as float64), checked once before any pass.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob.
    columns : list of str
        Every column the run reads.
    storage_options : dict or None
        Passed to ``dask.dataframe.read_parquet``.
    labels : sequence of str, optional
        The columns read as they are (unit ids, segment labels).

    Returns
    -------
    callable
        ``load(wanted) -> dask.dataframe.DataFrame``.

    Raises
    ------
    ValueError
        When a column is missing, or a numeric one is not numeric in a file.
    TypeError
        When ``data`` is neither a dask DataFrame nor a Parquet path.
    """
    return _loader(data, columns, storage_options, labels)


def evaluate(
    data: Any,
    *,
    y_true: str,
    predictions: Sequence[str] | str,
    sample_weight: str | None = None,
    groups: str | None = None,
    metrics: Sequence[str] | None = None,
    events: Any = None,
    intervals: dict[str, tuple[str, str]] | None = None,
    alpha: float | None = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    n_bins: int = 10,
    exact: bool = True,
    n_bootstrap: int = 0,
    random_state: int = 0,
    confidence_level: float = 0.95,
    n_buckets: int | None = None,
    title: str = "Model evaluation",
    storage_options: dict[str, Any] | None = None,
    curve_arrays: bool = False,
    cost_benefit: Any = None,
    budget: float | None = None,
    cost_per_target: float | None = None,
    value_margin: float | None = None,
    inference: str = "auto",
    k: int | None = None,
    gains: str | None = None,
    robustness: bool = True,
    row_plots: bool = True,
    time: str | None = None,
    scheme: str | None = None,
    block_length: int | str = "auto",
) -> ModelEvaluation:
    """Evaluate models on a dask DataFrame or Parquet data, exactly, whatever its size.

    The Dask engine of :func:`ranklens.evaluate_models`: ``evaluate_models(y_true, predictions,
    data=data, engine="dask", ...)`` calls it with the same names.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob (local or any fsspec URL, e.g. ``"s3://b/*.parquet"``).
    y_true : str
        The truth column.
    predictions : str or sequence of str
        The prediction columns, one per model (each model is named by its column).
    sample_weight : str, optional
        A column of non-negative case weights.
    groups : str, optional
        A column of unit labels (customers, accounts): the bootstrap then resamples units, and
        every interval and paired test comes from it (needs ``n_bootstrap``).
    metrics : sequence of str, optional
        Registry names; default every registered measure (the interval measures only with
        ``intervals``, as in memory). A measure is computed when it declares a form the engine
        provides (a ratio of sums, a rank-sweep statistic, a functional of the ranked curve or a
        ratio of discounted sums over the ranked rows, as NDCG); the others are reported as
        skipped, with the reason.
    events : None, str or number
        Event definition for the targeting measures: None (a 0/1 ``y_true`` itself, else the
        true top 10 %), ``"top:q"``, ``">=t"``, ``">t"`` or a number ``t``.
    intervals : mapping of str to (str, str), optional
        Prediction intervals by model name: the lower and upper bound columns, for the interval
        measures (as :func:`ranklens.evaluate_models`'s ``intervals``; a model here need not be
        in ``predictions``); needs ``alpha``.
    alpha : float, optional
        Each interval is a central ``1 - alpha`` interval.
    relevance : callable, optional
        The relevance function of the measures of rare extremes; default the box-plot relevance
        of ``y_true`` as :func:`ranklens.evaluate_models` builds it, unweighted (every row counts
        once; its hinges, minimum and maximum found by exact selection), built once; with a
        ``sample_weight``, ``settings["relevance_weights"]`` says ``"unweighted"``.
    event_threshold : float, optional
        The utility measures' relevance threshold of an event (their default 0.5).
    n_bins : int, default 10
        Bins of the decile table (``evaluation.curves["decile_table"]``).
    exact : bool, default True
        False: binned AUC only (one pass, no shuffle) with its guaranteed error bound, in
        ``evaluation.extras["binned_auc"]``.
    n_bootstrap : int, default 0
        Poisson bootstrap replicates (Oza & Russell 2001; Chamandy et al. 2012) of the
        mergeable and ranked-curve measures (lifts included), of SERA, the relevance-weighted
        errors and the interval measures (the relevance held at its full-sample value) and of
        Kendall's tau-b, Harrell's C and NDCG (not Spearman's rho, the utility measures or
        the median), all in the same passes; each row's weight in replicate ``r``
        is a function of ``(seed, r, key)`` with the key its global row position (or its unit's
        key with ``groups``), so the replicates do not depend on the partitioning; the seed
        is drawn from ``random_state`` as :func:`ranklens.compare_models` with
        ``scheme="poisson"`` draws it, so the replicates are that function's. The event
        threshold is held at its full-sample value.
        Percentile intervals in ``extras["bootstrap"]``.
    random_state : int, default 0
        Seed of the replicate weights.
    confidence_level : float, default 0.95
        Level of the bootstrap intervals.
    n_buckets : int, optional
        Value buckets per sort (each one partition in memory); default about one per 500,000
        rows (a worker of 1 GiB is then enough). The results do not depend on it.
    title : str
        The evaluation's title.
    storage_options : dict, optional
        Passed to ``dask.dataframe.read_parquet``.
    curve_arrays : bool, default False
        Also build the curves as arrays, one point per distinct prediction, from the buckets of
        the sort by prediction (ROC, gain, lift; the value gain for a non-negative continuous
        ``y_true``; profit with ``cost_benefit`` or ``value_margin``), and the cutoff AUC, one point
        per distinct ``y_true``, from the shuffle by truth, the rank lift curve and the concordance
        profile (Rosset, Perlich & Zadrozny 2005, Figs. 3 and 1), one point per row, up to 10
        million rows, into ``evaluation.curves[name][model]``
        (the in-memory result objects), and, for two models or more,
        ``extras["best_model_by_depth"]``. The arrays must fit the client.
    cost_benefit, budget, cost_per_target, value_margin : optional
        The profit curve's parameters (:func:`ranklens.profit_curve`), with ``curve_arrays``.
    k, gains : optional
        Task parameters passed by name to the measures that take them, as
        :func:`ranklens.evaluate_models` passes its task parameters (None: the measure's
        default): NDCG's cutoff ``k`` (only the first ``k`` positions count) and its ``gains``
        (``"linear"`` or ``"exponential"``, :func:`ranklens.ndcg_score`). A value a measure
        rejects makes that measure NaN with the function's own message in ``problems``.
    robustness : bool, default True
        Whether to compute each model's robustness table (Rosset, Perlich & Zadrozny 2005,
        Table 1) into ``evaluation.robustness[model]``, as :func:`ranklens.evaluate_models`:
        the :class:`ranklens.robustness.RobustnessTableResult` of
        :func:`ranklens.robustness_table` on the same rows (unweighted, as in memory; ``index``
        the row's position in the input, partitions laid end to end), from candidate rows
        (:mod:`ranklens.dask._robustness`): unweighted runs of the table's four measures alone,
        one model a run, after the other passes, with twice the buckets (Spearman's rho adds
        one shuffle, and the rows carry their positions and leave-one-out sums); in this run's
        own passes when it is such a run (``metrics`` the table's, no ``sample_weight``). A
        failure or an undefined row is a problem ``problems[model]["robustness table"]``, as in
        memory.
    row_plots : bool, default True
        Whether to compute, into ``extras["row_summaries"]`` (model ->
        ``ranklens.dask._row_plots.RowSummary``), the exact summaries from which the report
        draws the plots the in-memory report draws from every row: calibration by decile of
        prediction (each group's count, mean prediction, mean ``y_true`` and its standard error),
        the residuals' histogram between the 0.5 % and 99.5 % quantiles of all models'
        residuals, with each model's median residual, and the density of (prediction, ``y_true``)
        on a 40 x 40 grid. Unweighted, as in memory. Costs two more reads of ``y_true`` and the
        predictions (the rows of the buckets holding the order statistics sought, then one
        pass of counts) after a bucket count in the grid's pass; not with ``exact=False``.
    inference : {"auto", "bootstrap"}, default "auto"
        Where the intervals in ``evaluation.comparison`` come from, as
        :func:`ranklens.evaluate_models`'s ``inference``: ``"auto"``, the analytic intervals the
        engine computes (DeLong's for the AUC, Harrell's C and Somers' D, with weights too;
        Noether's for Kendall's tau-b without weights) and the percentile intervals of the
        Poisson replicates (with ``n_bootstrap``) for the rest; pairs of models are tested by
        DeLong's paired test on the AUC, C and D, by the paired replicates elsewhere;
        ``"bootstrap"``, the replicates throughout (needs ``n_bootstrap``). With ``groups`` the
        comparison is the replicates' throughout, as in memory (the analytic variances assume
        independent rows). Its ``interval_methods`` and ``test_methods`` (and
        ``settings["intervals"]``, ``settings["paired tests"]``) say which method gave each
        number.
    time : str, optional
        A column of the rows' times (numbers, datetimes with or without a zone, or ISO 8601
        strings), or the index of a dask DataFrame of that name (``set_index(time)``): the rows
        are in time order by it, and the replicates draw blocks of
        consecutive rows (``scheme="blocks"`` by default). The engine does not sort: the rows
        must already be in time order (each partition's times non-decreasing, and each
        partition's first time at or after the last of the one before; one read of the
        column checks it), else the run is refused, naming the first partition out of order
        (sort them first: ``df.sort_values(time)`` or ``df.set_index(time)``, then write the
        files in that order).
    scheme : {"poisson", "blocks"}, optional
        How the replicates weigh the rows: ``"poisson"`` (the default without ``time``), each
        row (or unit, with ``groups``) its own Poisson(1) count; ``"blocks"`` (the default with
        ``time``), the rows in order cut into consecutive blocks of ``block_length`` rows (row
        ``t``, counted from 0, in block ``t // block_length``), each block one Poisson(1)
        count shared by its rows: the non-overlapping block bootstrap (Carlstein 1986) with
        Poisson weights, computed as the clustered bootstrap keyed by the block, so the
        replicates equal ``compare_models(..., scheme="poisson", groups=positions //
        block_length)`` and do not depend on the partitioning. Without ``time`` the rows are
        taken in the order given. It is not the in-memory engine's ``"stationary"`` or
        ``"circular"`` bootstrap, which draw blocks from random starting rows (refused here:
        a row's weight would depend on the other rows' draws, which the partitions cannot know
        without coordination); the blocks here are fixed. As with ``groups``, every interval
        and paired test then comes from the replicates (the analytic ones assume independent
        rows). Needs ``n_bootstrap``; not with ``groups``.
    block_length : int or "auto", default "auto"
        Rows per block with ``scheme="blocks"``: a whole number, or ``"auto"``, the automatic
        length of Politis & White (2004) with the correction of Patton, Politis & White (2009),
        the largest over every model's absolute errors and every pair's differences of absolute
        errors (as in memory), computed exactly on the partitions (their autocovariances summed
        across the partitions' boundaries: one read for the means and one per round of lags,
        :mod:`ranklens.dask._serial`) and rounded to whole rows: the value of the formula of
        the stationary bootstrap, which is also the non-overlapping block bootstrap's (its
        variance 3/2 that of moving blocks for the same bias; Lahiri 1999).
        ``settings["block_length"]`` holds the rows per block, ``settings["block_length_
        estimate"]`` the automatic length before rounding.

    Returns
    -------
    ModelEvaluation
        The in-memory pipeline's result object: ``values[model][measure]``, ``metrics``,
        ``problems`` (measures the engine does not compute are ``"skipped"``),
        ``curves["decile_table"][model]`` (:class:`ranklens.DecileTableResult`), the curves
        declaring a sums form (``CurveSpec.sums``: ``curves["rec"]``, ``["rroc"]`` and
        ``["precision_recall"]``, the in-memory result classes at a bounded number of points,
        each exactly on the in-memory curve, with exact summary scalars;
        :mod:`ranklens.dask._curve_sums`; ``extras["curve_points"]`` says where the points lie,
        ``extras["curves_not_built"]`` names a curve not built, with the reason) and ``extras``:
        ``"delong"`` (model -> :class:`ranklens.delong.DeLongIntervalResult` of the AUC),
        with ``inference="auto"`` ``"delong_c"`` (model -> the ``DeLongIntervalResult`` of
        Harrell's C) and ``"delong_covariance"`` (``"auc"`` with two models or more and
        ``"harrell_c"`` -> the models' DeLong covariance matrix, in the order of ``predictions``),
        ``"pair_counts"`` (model -> the pair classes behind tau and C; Python integers without
        weights), ``"bootstrap"`` (with ``n_bootstrap``: replicates and intervals),
        ``"binned_auc"`` (with ``exact=False``: model -> (AUC, error bound)) and ``"seconds"``
        (wall time per pass); ``comparison``, the intervals (and, with ``n_bootstrap``, the
        paired tests) as :func:`ranklens.evaluate_models` stores them, an
        :class:`ranklens.evaluation.EvaluationComparison` whose ``interval_methods`` and
        ``test_methods`` name each number's method (None when no measure has an interval).

    Raises
    ------
    ValueError
        When a column holds a missing or non-finite value, or a weight is negative.

    Notes
    -----
    Counts are added as Python integers, float sums with :func:`math.fsum`: the results equal
    the in-memory ones (counts exactly, floats to rounding) for any partitioning. Without
    weights (or with integer weights) the AUC, gain area, accuracy ratio and decile table are
    the in-memory bits: both engines divide exact integer sums once. With real weights the
    in-memory running sums round differently from the buckets' sums started at their carry-ins
    (at most about n times the unit roundoff relative, 2e-13 measured at n = 1e5). Weights are
    passed to the measures as given, as :func:`ranklens.evaluate_models` passes them. Kendall's
    tau-b and Harrell's C split the pairs by the two sorts: pairs within one prediction bucket
    are counted by the in-memory sweep there; pairs in different prediction buckets and
    different truth buckets come from the bucket grid; pairs sharing a truth bucket but not a
    prediction bucket are counted by a sweep over (truth, prediction bucket) in the truth bucket.
    Spearman's rho is the correlation of midranks (Spearman 1904), both carried across buckets.
    DeLong's covariances of C (and of the AUC) are sums over rows of products of each model's
    per-row concordant-minus-discordant count ``h_i`` and of ``d_i``, the partners with another
    response: ``Cov(C_a, C_b) = sum_g c_g sum_{i in g} w_i^2 (h_a,i - D_a d_i)(h_b,i - D_b d_i) /
    (sum w d)^2`` over the strata ``g`` (the classes of a two-valued response, else all rows),
    ``c_g = n_g / (n_g - 1)``, ``D = sum w h / sum w d`` (:mod:`ranklens.dask._delong`); without
    weights exact rationals.

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.
    Spearman, C. (1904). The proof and measurement of association between two things. *American
    Journal of Psychology* 15(1), 72-101.
    Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition Letters* 27(8),
    861-874.
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    *Biometrics* 44(3), 837-845.
    Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves. *IEEE Signal Processing Letters*
    21(11), 1389-1393.
    Sen, P. K. (1960). On some convergence properties of U-statistics. *Calcutta Statistical
    Association Bulletin* 10(1), 1-18.
    Noether, G. E. (1967). *Elements of Nonparametric Statistics*. New York: Wiley.
    Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
    models. *Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*,
    370-377.
    Carlstein, E. (1986). The use of subseries values for estimating the variance of a general
    statistic from a stationary sequence. *The Annals of Statistics* 14(3), 1171-1179.
    Künsch, H. R. (1989). The jackknife and the bootstrap for general stationary observations.
    *The Annals of Statistics* 17(3), 1217-1241.
    Hanley, J. A. and MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
    Poisson frequencies. *Computer Methods and Programs in Biomedicine* 83(1), 57-62.
    Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
    bootstrap. *Econometric Reviews* 23(1), 53-70.
    Lahiri, S. N. (1999). Theoretical comparisons of block bootstrap methods. *The Annals of
    Statistics* 27(1), 386-404.
    """
    dask, dd = _dask()
    resampling = check_resampling(
        time, scheme, block_length, n_bootstrap=n_bootstrap, groups=groups
    )
    check_inference(inference, n_bootstrap, groups)
    preds = prediction_columns(predictions)
    _c.check_options(
        curve_arrays,
        exact,
        cost_benefit=cost_benefit,
        budget=budget,
        cost_per_target=cost_per_target,
        value_margin=value_margin,
    )
    options = Options(
        y=y_true,
        preds=preds,
        weight=sample_weight,
        groups=groups,
        measures=metrics,
        events=events,
        intervals=dict(intervals or {}),
        alpha=alpha,
        relevance=relevance,
        event_threshold=event_threshold,
        n_bins=n_bins,
        exact=exact,
        n_bootstrap=n_bootstrap,
        random_state=random_state,
        confidence_level=confidence_level,
        n_buckets=n_buckets,
        title=title,
        storage_options=storage_options,
        curve_arrays=curve_arrays,
        cost_benefit=cost_benefit,
        budget=budget,
        cost_per_target=cost_per_target,
        value_margin=value_margin,
        inference=inference,
        k=k,
        gains=gains,
        robustness=robustness,
        row_plots=row_plots,
    )
    timed = [time] if time is not None else []
    data = time_as_column(data, time)
    load = _loader(
        data, [*options.every_column, *timed], storage_options, [*options.labels, *timed]
    )
    if resampling == BLOCKS:
        blocks = block_key(
            dask,
            load(list(dict.fromkeys([y_true, *preds, *timed]))),
            y=y_true,
            preds=preds,
            time=time,
            block_length=block_length,
        )
        options = dataclasses.replace(options, blocks=blocks)
    frame = load(options.columns)
    plan = plan_passes(options)

    # the passes over the rows as they are: the scan, then the measures read from it or from
    # passes of their own
    clock = Clock()
    scanned = scan_pass(dask, dd, frame, options, plan)
    results = Results.empty(preds)
    ratio_values(dask, options, plan, scanned, results)
    lagged_pass(dask, options, plan, scanned, results)
    events = event_pass(dask, options, plan, scanned)
    results.settings.update(run_settings(options, plan, events, scanned.buckets))
    if options.blocks is not None:
        results.settings.update(options.blocks.settings(options.inference))
    claimed = claimed_passes(dask, dd, load, options, plan, scanned, results)
    if not exact:
        return _binned_evaluation(dask, options, plan, scanned, events, results)
    clock.lap("scan and event threshold")

    # the passes over the buckets: the grid, the replicates' sums, the shuffles
    grid = grid_pass(dask, options, plan, scanned, events, results, claimed.used)
    events = with_event_share(options, plan, scanned, events, grid, results)
    clock.lap("grid")
    boot = bootstrap_pass(dask, options, plan, scanned, events)
    shuffled = shuffle_passes(dask, dd, options, plan, scanned, events, grid, boot, clock)
    clock.lap("shuffles by prediction and truth")

    combined = combine(options, plan, scanned, events, shuffled, results)
    tables = _robustness_tables(data, options, plan, scanned, shuffled, combined, results, clock)
    clock.lap("combining")
    row_summaries = _row_summaries_pass(dask, load, options, grid, clock)
    return _assemble(
        options,
        plan,
        results,
        clock,
        _Passes(
            scanned=scanned,
            events=events,
            grid=grid,
            boot=boot,
            claimed=claimed,
            shuffled=shuffled,
            combined=combined,
            robustness=tables,
            row_summaries=row_summaries,
        ),
    )


def _binned_evaluation(
    dask: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    results: Results,
) -> ModelEvaluation:
    """The result of ``exact=False``: the binned AUC, the rank and curve measures skipped."""
    for model in options.preds if options.robustness else []:
        results.problems[model]["robustness table"] = Problem(
            "skipped", "exact=False computes the binned AUC only (extras['binned_auc'])"
        )
    return _binned(
        dask,
        scanned.frame,
        options.preds,
        options.y,
        options.weight,
        events.threshold,
        scanned.sample_p,
        results.values,
        results.problems,
        results.info,
        plan.specs,
        scanned.n,
        options.title,
        results.settings,
    )


def _robustness_tables(
    data: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    shuffled: Shuffled,
    combined: Combined,
    results: Results,
    clock: Clock,
) -> dict[str, Any]:
    """Each model's robustness table: from this run's candidate rows when it is the table's own
    run, else from runs of its own (timed apart); a failure is a problem of the model."""
    tables: dict[str, Any] = {}
    if plan.robust_here:
        for k, model in enumerate(options.preds):
            found = [p["robust"]["tau"] for p in shuffled.pred_out[k] if "robust" in p] + [
                t["robust"][k] for t in shuffled.truth_out if "robust" in t
            ]
            result, problem = call_quietly(
                _rb.model_table,
                plan.table_specs,
                plan.table_rules,
                scanned.n,
                [(losses[k], start) for losses, start in scanned.robust_losses],
                results.values[model],
                combined.pair_counts.get(model),
                found,
                shuffled.rho_out[k] if plan.robust_rho else None,
            )
            if result is not None:
                tables[model] = result
            if problem is not None:
                results.problems[model]["robustness table"] = problem
    elif plan.table_specs:
        clock.lap("combining")
        _robustness_run(
            data,
            options.y,
            options.preds,
            plan.table_specs,
            options.n_buckets or scanned.buckets * _rb.BUCKETS_FACTOR,
            options.storage_options,
            tables,
            results.problems,
        )
        clock.lap("robustness table")  # its own runs
    return tables


def _row_summaries_pass(
    dask: Any, load: Callable[[list[str]], Any], options: Options, grid: Grid, clock: Clock
) -> Any:
    """The exact summaries behind the report's regression plots (two more reads of ``y`` and
    the predictions), None without ``row_plots``."""
    if grid.row_plan is None:
        return None
    summaries = grid.row_plan.finish(
        dask, load(list(dict.fromkeys([options.y, *options.preds]))), grid.row_first
    )
    clock.lap("row summaries")
    return summaries


@dataclass(frozen=True)
class _Passes:
    """What every pass of a run gave, for the result."""

    scanned: Scanned
    events: Events
    grid: Grid
    boot: dict[str, Any] | None
    claimed: Claimed
    shuffled: Shuffled
    combined: Combined
    robustness: dict[str, Any]
    row_summaries: Any


def _assemble(
    options: Options, plan: PassPlan, results: Results, clock: Clock, passes: _Passes
) -> ModelEvaluation:
    """The run's result: the extras, the measures the engine skips, the comparison (intervals
    and paired tests with their methods) and the settings."""
    binary = passes.scanned.binary
    if options.measures is None:
        _defaults_for_target(options, results, binary)
    extras = _extras(options, plan, results, clock, passes)
    for name, why in plan.specs.unsupported.items():
        if options.measures is None and not applies_to_target(_e.get_metric(name), binary):
            continue  # not a default measure for this target, as in memory
        if options.measures is None and why == _e.NEEDS_INTERVALS:
            # as in memory: interval measures only for models given intervals (here none);
            # named in ``metrics``, they are listed as skipped with the reason
            continue
        results.info[name] = metric_info(_e.get_metric(name))
        for model in options.preds:
            results.values[model][name] = math.nan
            results.problems[model][name] = Problem("skipped", why)
    # intervals and paired tests where the in-memory pipeline keeps them, with their methods
    # as in memory: with units (groups) every interval and test comes from the clustered
    # replicates, DeLong's and Noether's variances assuming independent rows
    scanned = passes.scanned
    comparison = _e.interval_comparison(
        results.values,
        options.preds,
        extras,
        options.inference if options.resampled_alike else "bootstrap",
        options.confidence_level,
        _e.RowSample(
            scanned.sample_y, np.stack(scanned.sample_p), scanned.sample_w, scanned.target
        ),
    )
    settings = results.settings
    # the task parameters given, as evaluate_models records them
    task = dict(
        alpha=options.alpha,
        event_threshold=options.event_threshold,
        budget=options.budget,
        cost_per_target=options.cost_per_target,
        value_margin=options.value_margin,
        cost_benefit=options.cost_benefit,
    )
    settings.update({key: v for key, v in task.items() if v is not None and key not in settings})
    settings["n_bootstrap"] = int(options.n_bootstrap)
    if options.n_bootstrap:
        settings["random_state"] = options.random_state
    settings["confidence_level"] = options.confidence_level
    settings["inference"] = options.inference
    settings.update(methods_settings(comparison))
    values = results.values
    return ModelEvaluation(
        title=options.title,
        target=options.y,
        n=passes.scanned.n,
        model_names=tuple(values),
        values=values,
        metrics=results.info,
        problems={m: p for m, p in results.problems.items() if p},
        settings=settings,
        comparison=comparison,
        robustness=passes.robustness,
        curves=passes.combined.curves,
        extras=extras,
    )


def _defaults_for_target(options: Options, results: Results, binary: bool) -> None:
    """The default measures of this target, as in memory: those for the other kind of target
    dropped, and the measures of probability scores skipped for a model whose scores are not
    probabilities (its per-row terms are NaN there), dropped when no model's are; the settings
    say why (:func:`ranklens.evaluation.binary_target_settings`)."""
    names = {name for values in results.values.values() for name in values}
    for name in names:
        spec = _e.get_metric(name)
        drop = not applies_to_target(spec, binary)
        if not drop and needs_probabilities(spec):
            nan = [m for m in options.preds if math.isnan(results.values[m].get(name, math.nan))]
            drop = len(nan) == len(options.preds)
            for model in [] if drop else nan:
                results.problems[model][name] = Problem("skipped", NOT_PROBABILITIES)
        if drop:
            results.info.pop(name, None)
            for model in options.preds:
                results.values[model].pop(name, None)
                results.problems[model].pop(name, None)
    if binary:
        results.settings["binary target"] = BINARY_TARGET_NOTE


def _extras(
    options: Options, plan: PassPlan, results: Results, clock: Clock, passes: _Passes
) -> dict[str, Any]:
    """``evaluation.extras``: pair counts, the analytic intervals and what they rest on, the
    timings, the report's row summaries and relevance, the curves from sums and as arrays,
    and the replicates."""
    combined, grid = passes.combined, passes.grid
    extras: dict[str, Any] = {
        "pair_counts": combined.pair_counts,
        "delong": combined.delong,
        "seconds": clock.timings,
    }
    if passes.row_summaries is not None:  # the report's regression plots, from exact summaries
        extras["row_summaries"] = passes.row_summaries
    if combined.delong_c:
        extras["delong_c"] = combined.delong_c
    if combined.delong_covariance:
        extras["delong_covariance"] = combined.delong_covariance
    if combined.class_rows:
        extras["delong_class_rows"] = combined.class_rows
    if combined.noether:
        extras["noether"] = combined.noether
    if passes.claimed.used.get("relevance") is not None:
        extras["relevance"] = passes.claimed.used["relevance"]  # the report draws it, as in memory
    _cs.finish(  # the curves from sums, where their points lie, those not built and why
        grid.curve_jobs,
        grid.curve_sums[0] if grid.curve_sums else [],
        grid.curves_not_built,
        combined.curves,
        results.problems,
        extras,
    )
    if options.curve_arrays:
        _curve_arrays(options, passes, results, extras)
    if passes.scanned.binary:  # after the curves: a budget's depth is read from them
        at_depth = counts_at_depth(combined, combined.curves, results.problems)
        if at_depth is not None:
            extras["at_depth"] = at_depth
    if passes.boot is not None:
        extras["bootstrap"] = _bootstrap_extras(options, plan, passes, passes.boot)
    return extras


def _curve_arrays(
    options: Options, passes: _Passes, results: Results, extras: dict[str, Any]
) -> None:
    """The curves as arrays (``curve_arrays``) into ``passes.combined.curves`` and ``extras``."""
    scanned, events, shuffled = passes.scanned, passes.events, passes.shuffled
    single, t_counts, t_bounds = events.single, shuffled.t_counts, events.t_bounds
    truth_curve_out = shuffled.truth_curve_out
    context = dict(
        cost_benefit=options.cost_benefit,
        budget=options.budget,
        cost_per_target=options.cost_per_target,
        value_margin=options.value_margin,
    )
    values_y = None
    if shuffled.value_curves:
        values_y = _c.distinct_values(truth_curve_out, single, t_counts, t_bounds)
    cuts = [
        _c.cutoff_auc_inputs(
            truth_curve_out,
            single,
            t_counts,
            shuffled.pred_out[k],
            k,
            float(scanned.total_w),
            options.unit,
        )
        for k in range(len(options.preds))
    ]
    _c.add_curves(
        shuffled.curve_out,
        options.preds,
        events.definition,
        context,
        passes.combined.delong,
        passes.combined.curves,
        extras,
        results.problems,
        cuts,
        options.unit,
        values_y,
        _c.distinct_values(truth_curve_out, single, t_counts, t_bounds)
        if shuffled.sequence
        else None,
        zero_weight_rows=scanned.n - scanned.n_eff,
    )


def _bootstrap_extras(
    options: Options, plan: PassPlan, passes: _Passes, boot: dict[str, Any]
) -> dict[str, Any]:
    """``extras["bootstrap"]``: every measure's replicates and percentile intervals."""
    level, shuffled = options.confidence_level, passes.shuffled
    out = boot_results(
        boot,
        shuffled.pred_out,
        options.preds,
        plan.specs,
        level,
        options.key_words,
        options.random_state,
        "poisson" if options.blocks is None else "blocks",
    )
    _s.add_replicates(out, passes.claimed.sums_replicates, level)
    _s.add_replicates(out, passes.claimed.listed_replicates, level)
    if plan.want_pairs:
        _bp.add_rank_replicates(
            out,
            boot["grid_parts"],
            shuffled.pred_pairs_out,
            shuffled.truth_pairs_out,
            options.preds,
            plan.specs.sweep,
            passes.events.single,
            level,
        )
    return out


def _robustness_run(
    data: Any,
    y: str,
    preds: list[str],
    specs: Sequence[MetricSpec],
    n_buckets: int,
    storage_options: Any,
    tables: dict[str, Any],
    problems: dict[str, dict[str, Problem]],
) -> None:
    """The robustness tables by unweighted runs of their measures alone, one model a run, after
    the report's passes (``n_buckets`` prediction and truth buckets): ``tables`` and
    ``problems`` filled."""
    names = [spec.name for spec in specs]
    swept = {spec.name for spec in _e.plan(names).sweep}
    if any(_rb.rule(s) is not _rb.LOSS and s.name not in swept for s in specs):
        for model in preds:
            problems[model]["robustness table"] = Problem(
                "skipped", "the Dask engine has no distributed leave-one-out rule for its measures"
            )
        return
    for model in preds:  # one model a run: its shuffles carry one model's per-row columns
        run = evaluate(
            data,
            y_true=y,
            predictions=[model],
            metrics=names,
            n_buckets=n_buckets,
            storage_options=storage_options,
            row_plots=False,
        )
        tables.update(run.robustness)
        problem = run.problems.get(model, {}).get("robustness table")
        if problem is not None:
            problems[model]["robustness table"] = problem


def _binned(
    dask: Any,
    frame: Any,
    preds: list[str],
    y: str,
    weight: str | None,
    threshold: float,
    sample_p: list[np.ndarray],
    values: dict[str, dict[str, float]],
    problems: dict[str, dict[str, Problem]],
    info: dict[str, dict[str, Any]],
    the_plan: Any,
    n: int,
    title: str,
    settings: dict[str, Any],
    n_bins: int = 1000,
) -> ModelEvaluation:
    """Binned AUC (one pass, no shuffle) with its guaranteed error bound."""
    binned = {}
    for k, model in enumerate(preds):
        bounds = _e.quantile_bounds(sample_p[k], n_bins)
        counts = dask.compute(
            *[
                dask.delayed(_p.binned_counts)(part, y, model, weight, threshold, bounds)
                for part in frame.to_delayed()
            ]
        )
        binned[model] = binned_auc(
            np.sum([c[0] for c in counts], axis=0), np.sum([c[1] for c in counts], axis=0)
        )
    for spec in the_plan.curve + the_plan.sweep:
        for model in preds:
            values[model][spec.name] = math.nan
            problems[model][spec.name] = Problem(
                "skipped", "exact=False computes the binned AUC only (extras['binned_auc'])"
            )
        info[spec.name] = metric_info(spec)
    return ModelEvaluation(
        title=title,
        target=y,
        n=n,
        model_names=tuple(values),
        values=values,
        metrics=info,
        problems={m: p for m, p in problems.items() if p},
        settings=settings,
        extras={"binned_auc": binned},
    )


def binned_auc(events: np.ndarray, nonevents: np.ndarray) -> tuple[float, float]:
    """AUC from per-bin (events, non-events), bins in increasing score, and its error bound.

    Pairs in different bins are ordered exactly; pairs sharing a bin count 1/2, so the error is
    at most half the sum over bins of events x non-events in the bin, over P x N.
    """
    e = np.asarray(events, dtype=np.float64)
    m = np.asarray(nonevents, dtype=np.float64)
    p_tot, n_tot = math.fsum(e), math.fsum(m)
    if not (p_tot > 0 and n_tot > 0):
        return math.nan, math.nan
    below = np.r_[0.0, np.cumsum(m)[:-1]]
    same = e * m
    auc = (math.fsum(e * below) + 0.5 * math.fsum(same)) / (p_tot * n_tot)
    return auc, 0.5 * math.fsum(same) / (p_tot * n_tot)
