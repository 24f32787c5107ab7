"""The one entry point of an evaluation: arrays or the columns of a table, in memory or on Dask.

:func:`evaluate_models` takes the truth and the predictions as arrays, or as the names of
columns of ``data`` (a pandas or polars DataFrame, a dask DataFrame, or Parquet files), and runs
one of two engines with one vocabulary: ``engine="memory"``, the in-memory pipeline
(:func:`ranklens.evaluation.evaluate_arrays`), or ``engine="dask"``, the exact Dask engine
(:func:`ranklens.dask.evaluate`, which takes the same parameter names). Both return a
:class:`ranklens.evaluation.ModelEvaluation`.

It sits beside the pipeline rather than in it because the Dask engine builds its result from
the pipeline's classes: the pipeline cannot import the engine without a cycle, so the choice of
engine is made here, above both. The Dask engine is imported only when it is asked for, so
``import ranklens`` and the in-memory engine never import dask.
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens._foundation.docstrings import raises_input_errors, shared_paragraphs
from ranklens._foundation.extras import require
from ranklens._foundation.problems import Problem, exception_problem
from ranklens._foundation.typing import ArrayLike
from ranklens.classification import binary_target
from ranklens.evaluation import (
    ALL_MODELS,
    ModelEvaluation,
    ProgressCallback,
    SegmentOptions,
    evaluate_arrays,
    segment_items,
    segment_metrics,
)
from ranklens.segments import TASK_PARAMETERS, SegmentSettings, scan_result

if TYPE_CHECKING:
    from ranklens.dask._segments import DaskSource

__all__ = ["evaluate_models"]

#: The engines of :func:`evaluate_models`.
ENGINES: tuple[str, ...] = ("memory", "dask")

#: Options only the in-memory engine honours, with their defaults: the Dask engine refuses any
#: other value (it builds the curves its passes give, keeps no rows for an agreement study and
#: plans no time budget).
MEMORY_ONLY: dict[str, Any] = {
    "curves": True,
    "agreement_predictions": None,
    "bootstrap_budget_s": 60.0,
    "on_progress": None,
    "show_progress": False,
}

#: Options only the Dask engine honours, with their defaults: the in-memory engine refuses any
#: other value (it computes the measures exactly, with the rows themselves, at the level of
#: :func:`ranklens.compare_models`).
DASK_ONLY: dict[str, Any] = {
    "n_bins": 10,
    "exact": True,
    "confidence_level": 0.95,
    "n_buckets": None,
    "row_plots": True,
}


@raises_input_errors(
    "y_true",
    "predictions",
    also=(
        "if ``groups`` has another length, a missing label, more than one column or fewer "
        "than 10 units, or is given with ``n_bootstrap=0``",
        "if ``n_bootstrap`` is neither 0 nor an integer >= 2, or ``random_state`` neither "
        "None nor an integer >= 0",
        "if ``events`` does not split ``y_true`` into events and non-events",
        "if ``engine`` is neither ``'memory'`` nor ``'dask'``, or an option is given that the "
        "engine cannot honour (the message names the option and the engine)",
        "if a column named is not in ``data`` (the message names the column and the parameter)",
        "if ``by`` or ``scan`` cannot slice the rows (labels of another length or all missing, "
        "fewer than two models; with ``engine='dask'``, labels that are not column names), or "
        "one of the ``segment_*`` options is out of range or given without either "
        "(the message names the option)",
        "if ``time`` has another length, a missing time or a value that is not a time, "
        "``scheme`` is not a block scheme, ``block_length`` is not ``'auto'`` or a number in "
        "``[1, n]`` or is given without a block scheme, or a block scheme is given with "
        "``groups`` or ``n_bootstrap=0`` (the message names the argument); with "
        "``engine='dask'``, rows not in time order (the message names the column and says to "
        "sort them), a ``scheme`` other than ``'blocks'`` or ``'poisson'`` or a "
        "``block_length`` that is not a whole number of rows",
        "if ``window`` is not a calendar period or a number of rows >= 1, is a calendar "
        "period without ``time`` (or with numbers for times), or is given with fewer than two "
        "models (the message names ``window``)",
        "if ``metrics`` is empty or names a measure that is not registered, ``goal`` is not "
        "one of :data:`GOALS` or none of its measures is in ``metrics``, or ``currency`` is not "
        "a non-empty string of at most 5 characters (the message names the argument)",
    ),
)
@shared_paragraphs
def evaluate_models(
    y_true: ArrayLike | str,
    predictions: Mapping[str, Any] | Sequence[str] | str,
    *,
    data: Any = None,
    engine: str = "memory",
    title: str = "Model evaluation",
    description: str = "",
    target: str | None = None,
    intervals: Mapping[str, tuple[Any, Any]] | None = None,
    alpha: float | None = None,
    sample_weight: ArrayLike | str | None = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    events: str | float | None = None,
    budget: float | None = None,
    cost_per_target: float | None = None,
    value_margin: float | None = None,
    cost_benefit: Any = None,
    k: int | None = None,
    gains: str | None = None,
    n_bootstrap: int = 0,
    random_state: int | None = 0,
    inference: str = "auto",
    groups: ArrayLike | str | None = None,
    robustness: bool = True,
    curves: bool = True,
    agreement_predictions: Mapping[str, Any] | None = None,
    n_dropped: int = 0,
    bootstrap_budget_s: float = 60.0,
    on_progress: ProgressCallback | None = None,
    show_progress: bool | None = False,
    metrics: Sequence[str] | None = None,
    n_bins: int = 10,
    exact: bool = True,
    confidence_level: float = 0.95,
    n_buckets: int | None = None,
    storage_options: dict[str, Any] | None = None,
    curve_arrays: bool = False,
    row_plots: bool = True,
    by: Any = None,
    scan: Any = None,
    segment_bins: int = 5,
    min_segment_rows: int = 30,
    min_segment_events: int = 10,
    segment_fdr: str = "bh",
    segment_fdr_level: float = 0.05,
    cross_segments: bool = False,
    time: ArrayLike | str | None = None,
    scheme: str | None = None,
    block_length: float | str = "auto",
    window: str | int | None = None,
    goal: str | None = None,
    currency: str | None = None,
    positive_label: Any = None,
) -> ModelEvaluation:
    """Evaluate several models' predictions of one target: measures, comparison, curves.

    The one entry point of both engines. With arrays it computes in memory; with ``data`` (a
    table), ``y_true``, ``predictions``, ``sample_weight``, ``groups``, ``time`` and the bounds
    of ``intervals`` name its columns, and ``engine`` says where the work is done: in memory
    (the columns read into arrays: the numbers of the call on those arrays) or on Dask
    (:func:`ranklens.dask.evaluate`, exact whatever the size of the data).

    Parameters
    ----------
    y_true : array-like of shape (n,) or str
        The truth, or with ``data`` the name of its column.
    predictions : mapping of str to array-like of shape (n,), or sequence of str
        Point predictions (or scores) by model name. With ``data``: the names of the prediction
        columns (each model named by its column), or a mapping of model name to column name
        (``engine="dask"`` names each model by its column, so there each name must be its
        column's).
    data : DataFrame or str, optional
        A pandas or polars DataFrame, a dask DataFrame, or a Parquet path or glob (local or any
        fsspec URL; the files in the natural order of their paths, as Dask reads them) whose
        columns the other arguments name. None (default): the arguments are arrays.
    engine : {"memory", "dask"}, default "memory"
        ``"memory"``: the in-memory pipeline (a dask DataFrame is computed, Parquet files are
        read with pandas), the numbers of the call on the columns as arrays. ``"dask"``: the
        exact Dask engine, :func:`ranklens.dask.evaluate` (needs ``ranklens[dask]``), on a dask
        DataFrame or Parquet files given as ``data`` (a pandas DataFrame is refused:
        ``dask.dataframe.from_pandas`` converts it). An option that the chosen engine cannot
        honour (below: the in-memory engine's ``curves``, ``agreement_predictions``,
        ``bootstrap_budget_s``, ``on_progress`` and ``show_progress``; the Dask engine's
        ``n_bins``, ``exact``, ``confidence_level``, ``n_buckets`` and ``row_plots``) is a
        ``ValueError`` unless left at its default.
    title, description : str
        What the task is (shown as a report section heading).
    target : str, optional
        The name of the truth in the report; default the column ``y_true`` names with ``data``,
        else ``"y"``.
    intervals : mapping of str to (lower, upper), optional
        Prediction intervals by model name (a model here need not be in ``predictions``), for the
        interval measures, the bounds as arrays or with ``data`` as column names; needs
        ``alpha`` (each interval is a central ``1 - alpha`` interval).
    alpha : float, optional
        Each interval is a central ``1 - alpha`` interval.
    sample_weight : array-like of shape (n,) or str, optional
        Non-negative case weights (with ``data``, their column), passed as given to every
        measure that takes them (a measure that is a sum, such as SERA, scales with them,
        exactly as when it is called directly).
    relevance : callable, optional
        A relevance function (``ranklens.relevance``) for the measures of rare extremes.
    event_threshold, events, budget, cost_per_target, value_margin, cost_benefit : optional
        Task parameters passed by name to the measures and curves that take them (see
        :func:`ranklens.profit_curve`: ``value_margin`` or ``cost_benefit`` enables the profit
        curve). ``events`` is applied to ``y_true`` first (:func:`ranklens.targeting.check_events`):
        a definition that makes every row an event or none, or a ``"top:q"`` that falls on the
        tie of a 0/1 target, is a ``ValueError`` before any work.
    k, gains : optional
        Task parameters of the listwise measures, passed by name like the ones above (None: the
        measure's default): NDCG's cutoff ``k`` (only the first ``k`` positions count) and its
        ``gains`` (``"linear"`` or ``"exponential"``, :func:`ranklens.ndcg_score`).
    n_bootstrap : int
        Paired bootstrap replicates for :func:`ranklens.compare_models`: 0 draws none (the
        analytic intervals and tests of ``inference="auto"`` remain; no curve bands, and no
        consistency band on the reliability diagram), else an integer >= 2
        (checked as :func:`ranklens.compare_models` checks it; 1 or a fraction is a
        ``ValueError``, not a comparison left out).
    random_state : int or None
        Seed of the bootstrap: None or an integer >= 0 (a ``ValueError`` otherwise).
    inference : {"auto", "bootstrap"}, default "auto"
        Where the intervals and paired tests come from. ``"auto"``: per measure, the analytic
        inference its registry entry declares, and the paired bootstrap for the rest (with
        ``n_bootstrap=0`` the analytic intervals and tests alone: they draw no replicate, as in
        :func:`ranklens.dask.evaluate`). A concordance form (the AUC, Harrell's C, Somers' D)
        gives DeLong's interval and paired test (DeLong, DeLong & Clarke-Pearson 1988; exact
        to rounding, O(n log n), no replicates, and the same numbers as
        :func:`ranklens.delong_interval` and :func:`ranklens.delong_test`); an analytic variance
        gives its Wald interval for unweighted data (Kendall's tau: Noether 1967, the interval
        of :meth:`ranklens.RankingSummary.confidence_interval`), its paired differences still
        tested by the bootstrap. Measures with task parameters bound (e.g. ``events``) are
        bootstrapped. ``"bootstrap"``: the paired bootstrap for every measure, as
        :func:`ranklens.compare_models`. The comparison's ``interval_methods`` and
        ``test_methods``, ``settings["intervals"]`` and ``settings["paired tests"]`` say which
        method each number came from; the bootstrap's time budget spends no replicate on a
        measure whose intervals and tests are all analytic. With ``groups``, ``"auto"`` is the
        clustered bootstrap for every measure (see ``groups``).
    groups : array-like of shape (n,) or str, optional
        A unit id per row (customer, account, day; any labels: integers, strings, a pandas
        categorical; a one-column pandas or polars DataFrame is its column), or with ``data``
        the name of its column (its name is then ``settings["groups"]``): the comparison and
        the bands come from the clustered bootstrap, which resamples whole units
        (:func:`ranklens.compare_models`'s ``groups``; Davison & Hinkley 1997, Sect. 3.8), so
        that the correlation of the rows of one unit is kept. DeLong's and
        Noether's analytic intervals assume independent rows and would understate the
        uncertainty of clustered data, so with ``groups`` every interval and paired test comes
        from the clustered bootstrap, whatever ``inference`` says (``settings["clustered
        bootstrap"]`` says so; ``settings["groups"]`` holds the Series' name, else
        ``"given"``, and ``settings["n_units"]`` the number of units). Needs ``n_bootstrap``
        (with 0 nothing is resampled and ``groups`` would change nothing: a ``ValueError``)
        and at least :data:`ranklens._inference.resampling.MIN_UNITS` (10) units: with fewer the
        resamples repeat and the intervals come out too narrow (a ``ValueError``). ``groups``
        resamples whole units; it does not split the evaluation by unit.
        The time budget is planned from replicates of rows (the same sweeps per replicate).
    robustness, curves : bool
        Whether to compute the robustness tables and the curves.
    agreement_predictions : mapping, optional
        A (larger) set of candidate models whose rankings by different measures are compared
        (Torgo & Ribeiro 2009, Fig. 2); defaults to ``predictions`` when there are at least five
        models.
    n_dropped : int
        Rows the caller dropped for missing values (recorded in the result).
    bootstrap_budget_s : float
        Time budget of the bootstrap in seconds, a bound on its wall time (``inf``: none). The
        kernels are compiled on a small sample first (not counted), real replicates are timed,
        and the measures with a vectorised kernel (the headline measures of Rosset et al. 2005,
        Table 2, among them; with fewer replicates if even they do not fit), then the bands,
        then the per-replicate measures, cheapest first, are kept while they fit
        (:func:`ranklens._engines.budget.plan_bootstrap`). What was reduced or skipped, and the time
        taken, are in ``settings``.
    on_progress : callable, optional
        Called with a short description before each step (for progress bars).
    show_progress : bool or None
        Passed to :func:`ranklens.compare_models` (None: a bar when the bootstrap is slow).
    positive_label : object, optional
        The label of an event in a target of two labels (``"yes"``, ``"churned"``, or a
        number); the target becomes 1 there and 0 elsewhere
        (:func:`ranklens.classification.binary_target`), and is evaluated as a 0/1 target.
        Refused, naming it, when the label does not occur or the target holds more than two
        distinct values; a target of two values other than 0 and 1 without it is refused.
        With ``engine="dask"`` the distinct values come from one pass over the target column
        and each partition's target is mapped before the engine reads it (a missing target
        stays missing, which the engine refuses, naming the column).
        A 0/1 target gets the measures of events and probabilities (the average precision,
        precision and recall at 5/10/20 %, the Brier score and log loss of scores in [0, 1])
        and not those of rare extremes and relative errors; ``settings["binary target"]``
        says so.
    metrics : sequence of str, optional
        The registry names of the measures to compute (:func:`ranklens.metrics.available_metrics`;
        default every registered measure), on either engine; ``settings["metrics"]`` lists
        them. In memory the curves of the families without a chosen measure are left out too,
        and the report shows no section without one of them. Empty, or a name that is not
        registered (the message suggests the closest names), is a ``ValueError``.
    n_bins, exact, confidence_level, n_buckets, row_plots : optional
        ``engine="dask"`` only, as :func:`ranklens.dask.evaluate` takes them: the decile table's
        bins, ``exact=False`` for the binned AUC alone, the level of the bootstrap's intervals,
        the value buckets of a sort, and the row summaries behind the report's plots.
    storage_options : dict, optional
        Passed to the reader of ``data`` given as a Parquet path or glob (either engine).
    curve_arrays : bool, default False
        ``engine="dask"``: also build the curves as arrays (:func:`ranklens.dask.evaluate`). In
        memory the curves are arrays already (with ``curves``, which it then needs).
    by : str, array-like, list or mapping of them, optional
        Evaluate by segment (:func:`ranklens.segments.by_segment`, result in
        ``ModelEvaluation.segments``): a column name of ``data``, an array of labels (one per row;
        a Series is named by its name), or a list of them (each its own slicing; their cross
        product too with ``cross_segments``; a list of strings names columns), or a mapping of
        slicing names to either. Numeric columns with more than ``segment_bins`` distinct values
        are cut into quantile bins; missing labels form their own segment. The measures are those
        of :data:`ranklens.segments.DEFAULT_SEGMENT_METRICS` defined for every model on all the
        rows; each segment is compared with the evaluation's ``sample_weight``, ``groups``,
        ``events``, ``relevance``, ``random_state`` and ``n_bootstrap`` (per segment; with
        ``n_bootstrap=0`` each segment gets its values and counts but no interval and no verdict),
        at the 95% level, the verdicts with the false discovery rate held at ``segment_fdr_level``
        (by ``segment_fdr``). Needs at least two models. The segments' bootstraps are not counted
        in ``bootstrap_budget_s``. With ``engine="dask"``: column names of ``data`` only, evaluated
        by :func:`ranklens.dask.by_segment` (the same segments, quantile bins included, values
        and counts; intervals and tests from the engine's Poisson replicates, at
        ``confidence_level``).
    scan : str, array-like, list or mapping of them, optional
        Search these columns for weak segments (:func:`ranklens.segments.scan_segments`, result
        in ``ModelEvaluation.segment_scan``), given as ``by`` and with the same settings. With
        ``engine="dask"``: column names of ``data`` only, searched by
        :func:`ranklens.dask.scan_segments` (as ``by``).
    segment_bins : int, default 5
        Quantile bins of a numeric column of ``by`` or ``scan`` (at least 2).
    min_segment_rows : int, default 30
        A segment with fewer rows keeps its values and counts but gets no interval and no
        verdict (at least 1).
    min_segment_events : int, default 10
        The same for the measures that count events: a segment with fewer events (or
        non-events) than this gets no interval and no verdict for them (at least 1).
    segment_fdr : {"bh", "by"}, default "bh"
        How the segments' verdicts control the false discovery rate: ``"bh"``, Benjamini &
        Hochberg (1995), valid for independent or positively dependent tests; ``"by"``,
        Benjamini & Yekutieli (2001), valid under any dependence and more conservative.
    segment_fdr_level : float, default 0.05
        The false discovery rate controlled, in (0, 1).
    cross_segments : bool, default False
        With several ``by`` columns, also slice by their cross product (every combination of
        labels, one slicing more); ``scan`` slices by each column alone.
    time : array-like of shape (n,) or str, optional
        The rows' times (with ``data``, the name of their column; its name is then in
        ``settings["time"]``): NumPy datetime64, pandas datetimes (time-zone aware ones are
        compared in UTC), ISO 8601 strings (all with a UTC offset or none; one that does not
        parse is a ``ValueError`` naming ``time`` and the row), Python dates, or numbers (a time
        index). The rows are put in time order (a stable sort: equal times keep their order)
        before anything else, so every measure, curve, robustness table, segment and the
        report's plots see them in that order; and the bootstrap resamples blocks of
        consecutive rows: by default the stationary bootstrap (Politis & Romano 1994) with the
        mean block length of Politis & White (2004), as :func:`ranklens.compare_models` with
        ``scheme="stationary"``. A missing time is a ``ValueError`` (drop those rows first;
        ``ranklens evaluate --drop-na`` does). With ``engine="dask"`` (a column of ``data``, or
        the index of a dask DataFrame sorted by ``set_index(time)``) the rows must already be
        in time order: the engine checks it in one read of the column and refuses otherwise,
        naming the column and the first partition out of order (it does not sort data larger
        than memory); its replicates weigh fixed, non-overlapping blocks of consecutive rows
        (Carlstein 1986), one Poisson weight per block (:func:`ranklens.dask.evaluate`'s
        ``scheme="blocks"``), which ``settings["scheme"]``, ``settings["block_length"]`` and
        ``settings["block bootstrap"]`` say.
    scheme : {"stationary", "circular"}, optional
        The block scheme of the bootstrap (:func:`ranklens.compare_models`' ``scheme``): None
        (default) is ``"stationary"`` with ``time`` and rows resampled one by one without it;
        ``"circular"`` draws blocks of one fixed length (Politis & Romano 1992). Without
        ``time`` a block scheme takes the rows in the order given. With a block scheme every
        interval and paired test of the comparison, and the curves' bands, come from the block
        bootstrap, whatever ``inference`` says: DeLong's and Noether's analytic intervals
        assume independent rows (as with ``groups``; ``settings["block bootstrap"]`` says so,
        ``settings["scheme"]`` and ``settings["block_length"]`` hold the scheme and its
        length). Needs ``n_bootstrap`` (a ``ValueError`` with 0); not with ``groups`` (a
        ``ValueError``: a different design). The segments of ``by`` and ``scan`` and the
        windows of ``window`` are resampled with the same scheme and length, in blocks of
        consecutive rows of each segment or window. With ``engine="dask"``: ``"blocks"`` (the
        default with ``time``), the fixed, non-overlapping blocks of the Dask engine, or
        ``"poisson"`` (rows one by one, the default without it); ``"stationary"`` and
        ``"circular"`` draw blocks from random starting rows, which the partitions cannot draw
        on their own, and are refused by name. The segments and the windows then weigh the
        evaluation's blocks of its one length (the windows' cut anew at each window's first
        row).
    block_length : float or "auto", default "auto"
        The mean (``"stationary"``) or fixed (``"circular"``, ``"blocks"``) block length:
        ``"auto"`` chooses it once from every model's absolute errors and every pair's
        differences of them (Politis & White 2004, with the correction of Patton, Politis &
        White 2009; on Dask computed exactly on the partitions and rounded to whole rows); a
        number in ``[1, n]`` (on Dask a whole number) is used as given. Needs a block scheme
        (``time`` or ``scheme``).
    window : str or int, optional
        Evaluate over time windows (:func:`ranklens.timeseries.by_window`, result in
        ``ModelEvaluation.windows``): a calendar period of ``time`` (``"Y"``, ``"Q"``,
        ``"M"``, ``"W"``, ``"D"``, ...; needs ``time`` given as dates or times) or a number of
        rows per window (the rows in time order, or as given without ``time``). Every model
        on every window with its interval from a bootstrap of the window's rows, each model
        against the pick, how often the pick's lead is clear, not clear or reversed, and
        whether the difference trends. The measures are those of
        :data:`ranklens.segments.DEFAULT_SEGMENT_METRICS` defined for every model on all the
        rows; each window is compared with the evaluation's ``sample_weight``, ``events``,
        ``relevance``, ``random_state``, ``n_bootstrap`` (per window; with 0 each window gets
        its values and counts but no interval and no verdict), at the 95% level, with the
        evaluation's block scheme and its one block length (without one, the stationary
        bootstrap with each window's own length; with ``groups``, whole units), and with
        ``min_segment_rows``, ``min_segment_events``, ``segment_fdr`` and
        ``segment_fdr_level`` as for the segments. Needs at least two models. The windows'
        bootstraps are not counted in ``bootstrap_budget_s``. With ``engine="dask"``:
        :func:`ranklens.dask.by_window` on the same rows (the same windows, values and counts;
        intervals from the engine's Poisson replicates of the evaluation's blocks, or without
        ``time`` and ``scheme`` of fixed blocks with each window's own automatic length, or
        with ``groups`` of whole units, at ``confidence_level``).
    goal : {"ranking", "targeting", "extremes", "intervals", "errors"}, optional
        What the models are for (:data:`GOALS`: the report's sections, whose families of
        measures each goal reads), recorded as ``settings["goal"]`` for the report's
        recommendation; nothing is computed differently. With ``metrics``, at least one chosen
        measure must belong to the goal.
    currency : str, optional
        The unit of money of ``budget``, ``cost_per_target``, ``value_margin`` and
        ``cost_benefit`` (``"$"``, ``"€"``, ``"EUR"``, ...: at most 5 characters), recorded as
        ``settings["currency"]`` for the report; nothing is converted.

    Returns
    -------
    ModelEvaluation

    Raises
    ------
    %(input_errors)s
    MissingExtraError
        If ``engine="dask"`` without ``ranklens[dask]``, or Parquet files without
        ``ranklens[parquet]`` (the message is the command that installs it).

    Notes
    -----
    Without ``time``, ``scheme`` or ``groups``, the rows are checked for serial dependence in
    the order given (``ModelEvaluation.serial_dependence``): when the autocorrelation of the
    models' absolute errors, or of the pick's paired differences, makes intervals that assume
    independent rows materially too narrow, ``problems`` holds a note under ``"serial
    dependence"`` that says so and how much.

    With ``data``, ``evaluate_models("y", ["a", "b"], data=df)`` is
    ``evaluate_models(df["y"], {"a": df["a"], "b": df["b"]}, target="y")``: the same numbers.
    The Dask engine's numbers equal the in-memory ones where it is exact (counts exactly, float
    sums correctly rounded; :func:`ranklens.dask.evaluate` says where they may differ by
    rounding and which measures it skips).

    Every measure is the registered function of :mod:`ranklens.metrics`, applied to each model;
    the report and the JSON document render this result and recompute nothing. "Best" follows
    each measure's registered direction; a measure best closest to a target (interval coverage) is
    judged by its distance to the target, never by size.

    References
    ----------
    %(rosset2005)s

    %(rosset2007)s

    %(torgo2009)s

    %(provost2013)s

    %(gneiting2007)s

    Davison, A. C. and Hinkley, D. V. (1997). *Bootstrap Methods and their Application*.
    Cambridge University Press (Sect. 3.8, clustered data).

    Politis, D. N. and Romano, J. P. (1994). The stationary bootstrap. *Journal of the American
    Statistical Association* 89(428), 1303-1313.

    Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
    bootstrap. *Econometric Reviews* 23(1), 53-70.

    Carlstein, E. (1986). The use of subseries values for estimating the variance of a general
    statistic from a stationary sequence. *The Annals of Statistics* 14(3), 1171-1179.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}; got {engine!r}")
    metrics = check_metric_names(metrics)
    chosen = _chosen_settings(metrics, goal, currency)
    if engine == "dask":
        _check_dask_resampling(time, scheme, block_length, n_bootstrap, groups)
    _refuse_options(
        engine,
        dict(
            curves=curves,
            agreement_predictions=agreement_predictions,
            bootstrap_budget_s=bootstrap_budget_s,
            on_progress=on_progress,
            show_progress=show_progress,
        )
        if engine == "dask"
        else dict(
            n_bins=n_bins,
            exact=exact,
            confidence_level=confidence_level,
            n_buckets=n_buckets,
            row_plots=row_plots,
        ),
    )
    segment_options = SegmentOptions(
        bins=segment_bins,
        min_rows=min_segment_rows,
        min_events=min_segment_events,
        fdr=segment_fdr,
        fdr_level=segment_fdr_level,
        cross=cross_segments,
    )
    if engine == "dask":
        _check_dask_segments(by, scan, segment_options, windowed=window is not None)
    if storage_options is not None and not _is_path(data):
        raise ValueError(
            "storage_options is for data given as a Parquet path or glob; "
            f"got data of type {type(data).__name__}"
        )
    # the options both engines take, under the same names
    task: dict[str, Any] = dict(
        title=title,
        alpha=alpha,
        relevance=relevance,
        event_threshold=event_threshold,
        events=events,
        budget=budget,
        cost_per_target=cost_per_target,
        value_margin=value_margin,
        cost_benefit=cost_benefit,
        k=k,
        gains=gains,
        n_bootstrap=n_bootstrap,
        random_state=random_state,
        inference=inference,
        robustness=robustness,
    )
    if engine == "dask":
        if data is None:
            raise ValueError(
                "data: engine='dask' reads the columns of data (a dask DataFrame or a Parquet "
                "path or glob); give data, or use engine='memory' for arrays"
            )
        named = _columns(y_true, predictions, sample_weight, groups, intervals, by, scan, time)
        if positive_label is not None:
            data, storage_options = _binary_on_dask(data, named, positive_label, storage_options)
        result = _evaluate_on_dask(
            data,
            named,
            task,
            slices=_DaskSlices(
                labels=_dask_slicings(by, scan) if by is not None or scan is not None else {},
                window=window,
                options=segment_options,
            ),
            resampling=dict(scheme=scheme, block_length=block_length),
            metrics=metrics,
            n_bins=n_bins,
            exact=exact,
            confidence_level=confidence_level,
            n_buckets=n_buckets,
            storage_options=storage_options,
            curve_arrays=curve_arrays,
            row_plots=row_plots,
        )
        # the report's labels and the caller's count of dropped rows, as the memory engine
        # records them
        return dataclasses.replace(
            result,
            description=description,
            target=result.target if target is None else target,
            n_dropped=int(n_dropped),
            settings={**result.settings, **chosen},
        )
    if curve_arrays and not curves:
        raise ValueError(
            "curve_arrays=True asks for the curves as arrays, which curves=False leaves out "
            "(engine='memory' builds its curves as arrays)"
        )
    if data is not None:
        named = _columns(y_true, predictions, sample_weight, groups, intervals, by, scan, time)
        table = _read_columns(data, named, storage_options)
        by = _segment_labels(by, "by", table)
        scan = _segment_labels(scan, "scan", table)
        y_true = table[named.y]
        predictions = {model: table[column] for model, column in named.models.items()}
        sample_weight = None if named.weight is None else table[named.weight]
        groups = None if named.groups is None else table[named.groups]
        time = None if named.time is None else table[named.time]
        if intervals is not None:
            intervals = {m: (table[lo], table[hi]) for m, (lo, hi) in named.intervals.items()}
        if target is None:
            target = named.y
    elif not isinstance(predictions, Mapping):
        raise TypeError(
            "predictions must map model names to arrays (column names need data); got "
            f"{type(predictions).__name__}"
        )
    y_true = binary_target(y_true, positive_label)
    result = evaluate_arrays(
        y_true,
        predictions,
        metrics=metrics,
        description=description,
        target="y" if target is None else target,
        intervals=intervals,
        sample_weight=sample_weight,
        groups=groups,
        curves=curves,
        agreement_predictions=agreement_predictions,
        n_dropped=n_dropped,
        bootstrap_budget_s=bootstrap_budget_s,
        on_progress=on_progress,
        show_progress=show_progress,
        by=by,
        scan=scan,
        segment_options=segment_options,
        time=time,
        scheme=scheme,
        block_length=block_length,
        window=window,
        **task,
    )
    return dataclasses.replace(result, settings={**result.settings, **chosen})


#: The goals an evaluation may be for, and the families of measures that answer each (the
#: report's sections, :data:`ranklens.report.goals.GOALS`, read the same families).
GOALS: dict[str, tuple[str, ...]] = {
    "ranking": ("ranking", "listwise"),
    "targeting": ("targeting",),
    "probabilities": ("probability",),
    "extremes": ("extremes",),
    "intervals": ("intervals",),
    "errors": ("residual",),
}

#: The longest ``currency`` (a symbol or an ISO 4217 code, with room for "US$" and "CHF ").
MAX_CURRENCY = 5


def close_names(given: str, names: Sequence[str]) -> str:
    """``" (did you mean 'x'?)"`` for the registered names closest to ``given`` (difflib's
    ratio of at least 0.6, at most three, best first), else ``""``.

    Parameters
    ----------
    given : str
        The name as given.
    names : sequence of str
        The names it may have meant.

    Returns
    -------
    str
        The suggestion, with a leading space, or ``""``.
    """
    import difflib

    close = difflib.get_close_matches(given, list(names), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(name) for name in close) + "?)"


def check_metric_names(metrics: Sequence[str] | str | None) -> tuple[str, ...] | None:
    """``metrics`` as a tuple of registered names without repeats (None: every measure).

    Parameters
    ----------
    metrics : sequence of str, optional
        Registry names (:func:`ranklens.metrics.available_metrics`).

    Returns
    -------
    tuple of str or None
        The names in the order given, each once.

    Raises
    ------
    ValueError
        If ``metrics`` is a single string or empty, or a name is not registered (the message
        names it and the closest registered names).
    """
    from ranklens.metrics import available_metrics

    if metrics is None:
        return None
    if isinstance(metrics, str):
        raise ValueError(f"metrics must be a sequence of measure names; got the string {metrics!r}")
    names = tuple(dict.fromkeys(metrics))
    if not names:
        raise ValueError("metrics is empty: name at least one measure, or leave it out for all")
    known = available_metrics()
    for name in names:
        if name not in known:
            raise ValueError(
                f"metrics: unknown measure {name!r}{close_names(str(name), known)}; the "
                "measures are ranklens.metrics.available_metrics()"
            )
    return names


def _chosen_settings(
    metrics: tuple[str, ...] | None, goal: str | None, currency: str | None
) -> dict[str, Any]:
    """``settings`` entries of ``metrics``, ``goal`` and ``currency`` when given, checked."""
    from ranklens.metrics import get_metric

    out: dict[str, Any] = {}
    if metrics is not None:
        out["metrics"] = ", ".join(metrics)
    if goal is not None:
        if not isinstance(goal, str) or goal not in GOALS:
            raise ValueError(
                f"goal must be one of {', '.join(GOALS)}; got {goal!r}"
                + (close_names(goal, list(GOALS)) if isinstance(goal, str) else "")
            )
        if metrics is not None and not any(get_metric(m).family in GOALS[goal] for m in metrics):
            raise ValueError(
                f"goal {goal!r} is answered by the measures of {', '.join(GOALS[goal])}, and "
                f"metrics names none of them ({', '.join(metrics)}); add one, or choose "
                "another goal"
            )
        out["goal"] = goal
    if currency is not None:
        if not isinstance(currency, str) or not currency.strip():
            raise ValueError(f"currency must be a non-empty string; got {currency!r}")
        if len(currency.strip()) > MAX_CURRENCY or not currency.isprintable():
            raise ValueError(
                f"currency must be a symbol or code of at most {MAX_CURRENCY} printable "
                f'characters (e.g. "$", "€", "EUR"); got {currency!r}'
            )
        out["currency"] = currency.strip()
    return out


def _check_dask_resampling(
    time: Any, scheme: Any, block_length: Any, n_bootstrap: Any, groups: Any
) -> None:
    """``time``, ``scheme`` and ``block_length`` checked as the Dask engine takes them, before
    any work: ``scheme`` ``"blocks"`` (fixed, non-overlapping blocks of consecutive rows, the
    default with ``time``) or ``"poisson"``; the in-memory ``"stationary"`` and ``"circular"``
    refused by name with the reason (:func:`ranklens.dask._blocks.check_resampling`)."""
    if time is None and scheme is None:
        auto = isinstance(block_length, str) and block_length == "auto"
        if not auto:
            raise ValueError(
                "block_length sets the blocks of the block bootstrap: give time (rows in time "
                f"order) or scheme='blocks' too (got block_length={block_length!r})"
            )
        return
    if scheme is None or scheme == "blocks":
        # the in-memory engine's messages, for the Dask engine's blocks
        why = "time (scheme='blocks' by default)" if scheme is None else "scheme='blocks'"
        if groups is not None:
            raise ValueError(
                f"groups: {why} resamples blocks of consecutive rows, groups whole units; the "
                "two designs cannot be combined (leave groups out, or time and scheme)"
            )
        if not n_bootstrap:
            raise ValueError(
                f"{why} resamples blocks of consecutive rows; with n_bootstrap=0 nothing is "
                "resampled (give n_bootstrap >= 2)"
            )
    from ranklens.dask._blocks import check_resampling

    check_resampling(
        time if time is None or isinstance(time, str) else "time",
        scheme,
        block_length,
        n_bootstrap=n_bootstrap,
        groups=groups,
    )


def _check_dask_window(window: Any, time: str | None, n_models: int) -> None:
    """``window`` checked as :func:`ranklens.dask.by_window` will cut the rows, before any
    pass (its times are read by the engine): at least two models, a calendar period or a
    number of rows >= 1, a calendar period only with ``time``; the message names ``window``."""
    if window is None:
        return
    if n_models < 2:
        raise ValueError(
            "window: the evaluation over time windows compares the models in every window; "
            f"give at least two models (got {n_models})"
        )
    from ranklens.timeseries import time_windows

    try:
        # one time stands for the column: the period is checked, not the rows
        time_windows(None if time is None else ["2000-01-01"], window, 1)
    except ValueError as exc:
        message = str(exc)
        named = message if message.startswith("window") else f"window: {message}"
        raise ValueError(named) from None


@dataclasses.dataclass(frozen=True)
class _DaskSlices:
    """The slices of the rows a Dask run evaluates after the evaluation itself: the slicings of
    ``by`` and ``scan`` (:func:`_dask_slicings`; empty without either), the ``window`` and the
    ``segment_*`` options that judge them."""

    labels: dict[str, dict[str, str]]
    window: str | int | None
    options: SegmentOptions


def _evaluate_on_dask(
    data: Any,
    named: _Columns,
    task: dict[str, Any],
    *,
    slices: _DaskSlices,
    resampling: dict[str, Any],
    **engine_options: Any,
) -> ModelEvaluation:
    """The Dask engine's evaluation (:func:`_on_dask`) with the rows in time order by
    ``named.time`` and the block scheme of ``resampling`` (``scheme``, ``block_length``),
    then its segments (:func:`_segments_on_dask`) and its windows (:func:`_windows_on_dask`),
    each with the evaluation's blocks."""
    _check_dask_window(slices.window, named.time, len(named.models))
    result = _on_dask(data, named, task, time=named.time, **resampling, **engine_options)
    settings, source = _dask_slice_settings(result, named, task, engine_options)
    if slices.labels:
        result = _segments_on_dask(
            result, data, settings, source, labels=slices.labels, options=slices.options
        )
    if slices.window is not None:
        window_source = dataclasses.replace(source, time=named.time)
        result = _windows_on_dask(
            result, data, settings, window_source, window=slices.window, options=slices.options
        )
    return result


def _dask_slice_settings(
    result: ModelEvaluation, named: _Columns, task: Mapping[str, Any], engine: Mapping[str, Any]
) -> tuple[SegmentSettings, DaskSource]:
    """The settings and the source every slice of a Dask run shares: the evaluation's weights,
    units, task parameters, seed and replicates, at the level of its intervals (``engine``,
    its options), and the measures of the segments defined for every model on all the rows.

    With the evaluation's blocks (``time`` or ``scheme="blocks"``), their scheme and its one
    block length in rows (chosen on all the rows, as the in-memory slices take the
    evaluation's) and the time column; otherwise no scheme (the replicates weigh rows or units
    one by one) and no time column."""
    from ranklens.dask._segments import DaskSource

    blocks = result.settings.get("scheme") == "blocks"
    settings = SegmentSettings(
        metrics=segment_metrics(result.values, named.models, weighted=named.weight is not None),
        sample_weight=named.weight,
        groups=named.groups,
        scheme="blocks" if blocks else None,
        block_length=result.settings["block_length"] if blocks else "auto",
        n_bootstrap=task["n_bootstrap"],
        confidence_level=engine["confidence_level"],
        random_state=task["random_state"],
        **{name: task[name] for name in TASK_PARAMETERS},
    )
    source = DaskSource(
        named.y,
        list(named.models),
        engine["n_buckets"],
        engine["storage_options"],
        named.time if blocks else None,
    )
    return settings, source


def _no_slice_metrics(problems: dict[str, dict[str, Problem]], what: str) -> None:
    """Record that no measure of the default measures of a slice is defined for every model on
    all the rows, so that ``what`` could not run."""
    problems.setdefault(ALL_MODELS, {})[what] = Problem(
        "undefined", f"no measure of the {what} is defined for every model on all the rows"
    )


def _windows_on_dask(
    result: ModelEvaluation,
    data: Any,
    settings: SegmentSettings,
    source: DaskSource,
    *,
    window: str | int,
    options: SegmentOptions,
) -> ModelEvaluation:
    """The evaluation over time windows on the Dask engine (:func:`ranklens.dask.by_window`),
    with the ``settings`` every slice shares (:func:`_dask_slice_settings`) and the smallest
    window and the verdicts' rules of ``options``; the result with ``windows`` set and
    ``settings["window"]``.

    The replicates: with the evaluation's blocks, those blocks' scheme and its one length,
    cut anew at each window's first row; with ``groups``, whole units (Poisson weights keyed
    by the unit); otherwise fixed blocks of consecutive rows with each window's own automatic
    length (the rows are in time order in a window; in memory, the stationary bootstrap with
    each window's own length). An invalid input is its ``ValueError`` or ``TypeError``, named
    by ``window`` (or ``time``); any other failure is recorded in ``problems``, as in memory.
    """
    from ranklens.dask._windows import window_run

    summary = dict(result.settings)
    summary["window"] = window
    problems = {who: dict(items) for who, items in result.problems.items()}
    if not settings.metrics:
        _no_slice_metrics(problems, "evaluation over time")
        return dataclasses.replace(result, settings=summary, problems=problems)
    if settings.scheme is None:
        scheme = "poisson" if settings.groups is not None else "blocks"
        settings = dataclasses.replace(settings, scheme=scheme)
    found = None
    try:
        found = window_run(data, window, options.applied(settings, "window"), source)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        if message.startswith(("window", "time")):
            raise
        raise type(exc)(f"window: {message}") from None
    except Exception as exc:  # the cluster or a bug: recorded, as every other failure
        problems.setdefault(ALL_MODELS, {})["evaluation over time"] = exception_problem(exc)
    return dataclasses.replace(result, windows=found, settings=summary, problems=problems)


def _check_dask_segments(
    by: Any, scan: Any, options: SegmentOptions, *, windowed: bool = False
) -> None:
    """The options of the evaluation by segment that the Dask engine cannot honour, refused by
    name before any work: labels given as arrays (it reads the columns of ``data``), and the
    ``segment_*`` options out of range or without ``by`` or ``scan`` (or, for those that judge
    the windows too, ``window``: ``windowed``), as in memory."""
    for option, value in (("by", by), ("scan", scan)):
        for _, item in segment_items(value, option):
            if not isinstance(item, str):
                raise TypeError(
                    f"{option}: engine='dask' reads the columns of data; give column names, "
                    f"not labels (got {type(item).__name__})"
                )
    options.check(sliced=by is not None or scan is not None, windowed=windowed)


def _segments_on_dask(
    result: ModelEvaluation,
    data: Any,
    settings: SegmentSettings,
    source: DaskSource,
    *,
    labels: dict[str, dict[str, str]],
    options: SegmentOptions,
) -> ModelEvaluation:
    """The evaluation by segment (:func:`ranklens.dask.by_segment`, on the columns ``by``
    names) and the search for weak segments (:func:`ranklens.dask.scan_segments`, on those
    ``scan`` names; ``labels``, :func:`_dask_slicings`) on the Dask engine, with the
    ``settings`` every slice shares (:func:`_dask_slice_settings`: with ``time`` or
    ``scheme="blocks"``, the fixed blocks of the evaluation's one length over all the rows)
    and the options of ``options``; the result with ``segments`` and ``segment_scan`` set. An
    invalid input is its ``ValueError`` or ``TypeError``; any other failure is recorded in
    ``problems``, as in memory."""
    from ranklens.dask._segments import segment_run

    summary = dict(result.settings)
    summary.update(options.settings(labels))
    problems = {who: dict(items) for who, items in result.problems.items()}
    if not settings.metrics:
        _no_slice_metrics(problems, "evaluation by segment")
        return dataclasses.replace(result, settings=summary, problems=problems)
    found: dict[str, Any] = {}
    runs = (("by", "by", "evaluation by segment"), ("scan", "columns", "segment scan"))
    for option, argument, what in runs:
        if option not in labels:
            continue
        try:
            own = options.applied(settings, option)
            scan = option == "scan"
            evaluation = segment_run(data, argument, labels[option], own, source, level_tests=scan)
            found[option] = scan_result(evaluation) if scan else evaluation
        except (ValueError, TypeError) as exc:
            # named by the option, as the in-memory engine names what cannot slice the rows
            message = str(exc)
            if message.startswith(f"{option}:"):
                raise
            raise type(exc)(f"{option}: {message}") from None
        except Exception as exc:  # the cluster or a bug: recorded, as every other failure
            problems.setdefault(ALL_MODELS, {})[what] = exception_problem(exc)
    return dataclasses.replace(
        result,
        segments=found.get("by"),
        segment_scan=found.get("scan"),
        settings=summary,
        problems=problems,
    )


def _dask_slicings(by: Any, scan: Any) -> dict[str, dict[str, str]]:
    """``{"by": {slicing: column}, "scan": {slicing: column}}`` for the options given, each
    slicing named as in memory (its name in a mapping, else its column's).

    Raises
    ------
    ValueError
        When a slicing's name is given twice in one option.
    """
    out: dict[str, dict[str, str]] = {}
    for option, value in (("by", by), ("scan", scan)):
        columns: dict[str, str] = {}
        for name, column in segment_items(value, option):
            title = name or column
            if title in columns:
                raise ValueError(f"{option}: the slicing {title!r} is given twice")
            columns[title] = column
        if columns:
            out[option] = columns
    return out


def _segment_labels(value: Any, option: str, table: Mapping[str, Any]) -> Any:
    """``by`` or ``scan`` with every column name replaced by its column of ``table`` (a
    mapping stays a mapping; anything else becomes a list of columns of labels)."""
    items = segment_items(value, option)
    if not items:
        return None

    def labels(item: Any) -> Any:
        return table[item] if isinstance(item, str) else item

    if isinstance(value, Mapping):
        return {name: labels(item) for name, item in items}
    return [labels(item) for _, item in items]


def _refuse_options(engine: str, options: Mapping[str, Any]) -> None:
    """Refuse an option of the other engine given a value other than its default."""
    other = "memory" if engine == "dask" else "dask"
    defaults = MEMORY_ONLY if engine == "dask" else DASK_ONLY
    for name, value in options.items():
        default = defaults[name]
        # None is compared by identity: an array or a mapping given is never "equal" to it
        if value is not default and (default is None or value != default):
            shown = repr(value)
            if "\n" in shown or len(shown) > 60:  # an array or a mapping of them: its type
                shown = f"a {type(value).__name__}"
            raise ValueError(
                f"{name} is an option of engine={other!r} that engine={engine!r} cannot "
                f"honour (got {shown}); leave it at {default!r} or use engine={other!r}"
            )


@dataclasses.dataclass(frozen=True)
class _Columns:
    """The columns of ``data`` that the arguments name."""

    y: str
    models: dict[str, str]
    weight: str | None
    groups: str | None
    intervals: dict[str, tuple[str, str]]
    #: ``(option, column)`` for every column ``by`` and ``scan`` name.
    segments: tuple[tuple[str, str], ...] = ()
    #: The column of the rows' times.
    time: str | None = None

    def used(self) -> list[tuple[str, str]]:
        """``(parameter, column)`` for every column named, in the order of the parameters."""
        out = [("y_true", self.y)]
        out += [("predictions", column) for column in self.models.values()]
        out += [("sample_weight", self.weight)] if self.weight is not None else []
        out += [("groups", self.groups)] if self.groups is not None else []
        for model, (lower, upper) in self.intervals.items():
            out += [(f"intervals[{model!r}]", lower), (f"intervals[{model!r}]", upper)]
        out += list(self.segments)
        out += [("time", self.time)] if self.time is not None else []
        return out

    def names(self) -> list[str]:
        """The distinct columns named."""
        return list(dict.fromkeys(column for _, column in self.used()))


def _column(value: Any, parameter: str) -> str:
    """``value`` as a column name; an array given with ``data`` is refused, by parameter."""
    if isinstance(value, str):
        return value
    raise TypeError(
        f"{parameter} must name a column of data when data is given; got "
        f"{type(value).__name__} (give arrays without data, or column names with it)"
    )


def _columns(
    y_true: Any,
    predictions: Any,
    sample_weight: Any,
    groups: Any,
    intervals: Any,
    by: Any = None,
    scan: Any = None,
    time: Any = None,
) -> _Columns:
    """The column names of the arguments given with ``data``, checked to be names (``by`` and
    ``scan`` may also hold labels, which name no column)."""
    if isinstance(predictions, str):
        models = {predictions: predictions}
    elif isinstance(predictions, Mapping):
        models = {str(m): _column(c, f"predictions[{m!r}]") for m, c in predictions.items()}
    elif isinstance(predictions, Sequence):
        models = {c: c for c in (_column(p, "predictions") for p in predictions)}
    else:
        _column(predictions, "predictions")  # raises, naming the parameter
    bounds = {
        str(m): (_column(lo, f"intervals[{m!r}]"), _column(hi, f"intervals[{m!r}]"))
        for m, (lo, hi) in dict(intervals or {}).items()
    }
    return _Columns(
        y=_column(y_true, "y_true"),
        models=models,
        weight=None if sample_weight is None else _column(sample_weight, "sample_weight"),
        groups=None if groups is None else _column(groups, "groups"),
        intervals=bounds,
        segments=tuple(
            (option, item)
            for option, value in (("by", by), ("scan", scan))
            for _, item in segment_items(value, option)
            if isinstance(item, str)
        ),
        time=None if time is None else _column(time, "time"),
    )


def _check_present(named: _Columns, available: Sequence[str], where: str) -> None:
    """Refuse a named column that ``available`` lacks, naming the column and the parameter."""
    have = set(available)
    for parameter, column in named.used():
        if column not in have:
            shown = ", ".join(repr(c) for c in list(available)[:10])
            more = ", ..." if len(available) > 10 else ""
            raise ValueError(
                f"{parameter}: no column {column!r} in {where} (its columns: {shown}{more})"
            )


def _frame_columns(data: Any, time: str | None) -> list[str]:
    """The columns of a dask DataFrame, and its index's name when that is the ``time`` column
    (a frame sorted by ``set_index(time)``: the engine reads the index as the times)."""
    columns = [str(c) for c in data.columns]
    if time is not None and time not in columns and getattr(data.index, "name", None) == time:
        columns.append(time)
    return columns


def _is_path(data: Any) -> bool:
    return isinstance(data, str | os.PathLike)


def _frame_kind(data: Any) -> str:
    """``"pandas"``, ``"polars"`` or ``"dask"``: the kind of DataFrame ``data`` is (read from the
    modules already imported: a DataFrame of a library implies that library is loaded)."""
    for module, kind in (("dask.dataframe", "dask"), ("pandas", "pandas"), ("polars", "polars")):
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(data, loaded.DataFrame):
            return kind
    raise TypeError(
        "data must be a pandas or polars DataFrame, a dask DataFrame or a Parquet path or glob; "
        f"got {type(data).__name__}"
    )


def _read_columns(data: Any, named: _Columns, storage_options: Any) -> dict[str, Any]:
    """Column name -> its values (a pandas or polars Series), for the in-memory engine."""
    columns = named.names()
    if _is_path(data):
        return _read_parquet(os.fspath(data), named, storage_options)
    kind = _frame_kind(data)
    _check_present(named, [str(c) for c in data.columns], "data")
    if kind == "dask":
        data = data[columns].compute()  # the columns used, in memory as one pandas DataFrame
    return {column: data[column] for column in columns}


def _natural_key(path: str) -> list[Any]:
    """Sort key of a path with its digit runs as numbers (``part.10`` after ``part.9``): the
    order in which Dask reads the files of a glob, so both engines see the rows in one order."""
    return [int(piece) if piece.isdigit() else piece for piece in re.split(r"(\d+)", path)]


def _parquet_sources(path: str, storage_options: Any) -> list[Any]:
    """The files of a Parquet path, glob or directory: local paths, or fsspec's open files for
    a URL, in the natural order of their paths."""
    if "://" in path:
        import fsspec

        opened = fsspec.open_files(path, mode="rb", **(storage_options or {}))
        return sorted(opened, key=lambda f: _natural_key(f.path))
    if os.path.isdir(path):
        # the data files of a directory, as pyarrow reads one (names starting with "_" or "."
        # are metadata)
        found = [
            os.path.join(path, name)
            for name in os.listdir(path)
            if not name.startswith(("_", ".")) and os.path.isfile(os.path.join(path, name))
        ]
    elif glob.has_magic(path):
        found = glob.glob(path)
    else:
        found = [path]
    if not found:
        raise ValueError(f"data: no Parquet file matches {path!r}")
    return sorted(found, key=_natural_key)


def _read_parquet(path: str, named: _Columns, storage_options: Any) -> dict[str, Any]:
    """The named columns of Parquet files, read with pandas, the files end to end; a file's
    footer is read first, so that a missing column is named with its parameter."""
    require("parquet", "reading Parquet files")
    import pandas as pd
    import pyarrow.parquet as pq

    columns = named.names()
    frames = []
    for source in _parquet_sources(path, storage_options):
        where = getattr(source, "path", source)
        with source if hasattr(source, "open") else open(source, "rb") as handle:
            _check_present(named, pq.read_schema(handle).names, where)
            handle.seek(0)
            frames.append(pd.read_parquet(handle, columns=columns))
    table = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    return {column: table[column] for column in columns}


def _binary_on_dask(
    data: Any, named: _Columns, positive_label: Any, storage_options: Any
) -> tuple[Any, Any]:
    """``data`` as a dask DataFrame of the named columns with the target ``named.y`` as 0/1
    (1 where it equals ``positive_label``, missing where missing), and the storage options
    left for the engine (None: the files are read here); ``data`` as it is, for
    :func:`_on_dask` to refuse, when it is neither Parquet files nor a dask DataFrame with
    the target.

    The target's distinct values come from one pass over its column alone, checked as in
    memory (:func:`ranklens.classification.event_label`); each partition is mapped by
    :func:`_events_of`. Parquet files are read as the engine reads them (whole row groups
    about a bucket's bytes, in the files' order), after every file's footer is checked to hold
    every named column (naming the file).
    """
    require("dask", "evaluating on Dask")
    import dask.dataframe as dd
    import pandas as pd

    from ranklens.classification import event_label

    columns = named.names()
    if _is_path(data):
        require("parquet", "reading Parquet files")
        from ranklens.dask._engine import ROWS_PER_BUCKET
        from ranklens.dask._inputs import check_parquet

        path = os.fspath(data)
        _check_first_footer(path, named, storage_options)
        check_parquet(path, [], columns, storage_options)
        frame = dd.read_parquet(
            path,
            columns=columns,
            storage_options=storage_options,
            split_row_groups="adaptive",
            blocksize=ROWS_PER_BUCKET * 8 * len(columns),
        )
    elif isinstance(data, dd.DataFrame) and named.y in data.columns:
        frame, storage_options = data, None
    else:
        return data, storage_options
    found = frame[named.y].dropna().drop_duplicates().compute()
    distinct = [v.item() if isinstance(v, np.generic) else v for v in found.tolist()]
    numeric = pd.api.types.is_numeric_dtype(found.dtype) or pd.api.types.is_bool_dtype(found.dtype)
    label = event_label(distinct, positive_label, numeric=numeric)
    mapped = frame[named.y].map_partitions(_events_of, label, meta=(named.y, "f8"))
    return frame.assign(**{named.y: mapped}), None


def _events_of(part: Any, label: Any) -> Any:
    """A partition's target as 0/1 floats: 1 where it equals ``label``, NaN where missing."""
    import pandas as pd

    missing = part.isna().to_numpy()
    hit = (part == label).fillna(False).to_numpy(dtype=bool).astype(np.float64)
    return pd.Series(np.where(missing, np.nan, hit), index=part.index, name=part.name)


def _check_first_footer(path: str, named: _Columns, storage_options: Any) -> None:
    """The first Parquet file's footer holds every named column (the message names the
    parameter); the engine then checks every file's (naming the file)."""
    import pyarrow.parquet as pq

    from ranklens.dask._inputs import parquet_files

    try:
        # the files as the engine lists them: a directory stands for every data file below it,
        # in its subfolders too (partitions), which the engine reads
        fs, files = parquet_files(path, storage_options)
    except ValueError:
        raise ValueError(f"data: no Parquet file matches {path!r}") from None
    with fs.open(files[0], "rb") as handle:
        _check_present(named, pq.read_schema(handle).names, files[0])


def _on_dask(
    data: Any, named: _Columns, task: dict[str, Any], **engine_options: Any
) -> ModelEvaluation:
    """The Dask engine on ``data``: a dask DataFrame or Parquet files, each model named by its
    column; the named columns checked here, so that a missing one is named with its
    parameter."""
    require("dask", "evaluating on Dask")
    if _is_path(data):
        # the first file's footer, for a message that names the parameter; the engine then
        # checks every file's (naming the file)
        require("parquet", "reading Parquet files")
        _check_first_footer(os.fspath(data), named, engine_options["storage_options"])
    else:
        kind = _frame_kind(data)
        if kind != "dask":
            raise TypeError(
                f"engine='dask' takes a dask DataFrame or a Parquet path or glob as data; got a "
                f"{kind} DataFrame (dask.dataframe.from_pandas converts a pandas one; or use "
                "engine='memory')"
            )
        _check_present(named, _frame_columns(data, named.time), "data")
    renamed = {m: c for m, c in named.models.items() if m != c}
    if renamed:
        model, column = next(iter(renamed.items()))
        raise ValueError(
            f"predictions: engine='dask' names each model by its column; {model!r} names column "
            f"{column!r} (give the column names, or use engine='memory')"
        )
    if task["random_state"] is None:
        raise ValueError(
            "random_state is an option of engine='memory' that engine='dask' cannot honour "
            "(got None): the Dask engine's replicate weights are functions of an integer seed; "
            "give an integer"
        )
    from ranklens.dask import evaluate

    return evaluate(
        data,
        y_true=named.y,
        predictions=list(named.models),
        sample_weight=named.weight,
        groups=named.groups,
        intervals=named.intervals or None,
        **task,
        **engine_options,
    )
