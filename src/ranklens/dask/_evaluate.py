"""``ranklens.dask.evaluate``: the orchestration of the passes (:mod:`ranklens.dask._engine`)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._extras import require
from ranklens._registry import CurveStatistic, MetricSpec, RankStatistic, RankSweepForm, RatioForm
from ranklens.dask import _boot_pairs as _bp
from ranklens.dask import _curve_sums as _cs
from ranklens.dask import _curves as _c
from ranklens.dask import _delong as _dl
from ranklens.dask import _engine as _e
from ranklens.dask import _lagged as _lag
from ranklens.dask import _listwise as _lw
from ranklens.dask import _magnitude as _mg
from ranklens.dask import _noether as _nt
from ranklens.dask import _passes as _p
from ranklens.dask import _robustness as _rb
from ranklens.dask import _row_plots as _rp
from ranklens.dask import _sums as _s
from ranklens.dask._gather import compute_gathering
from ranklens.dask._inputs import check_meta, check_parquet, read_as_float
from ranklens.evaluation import (
    ModelEvaluation,
    Problem,
    _call_quietly,
    _exception_problem,
    _methods_settings,
    _metric_info,
)
from ranklens.targeting import DecileTableResult, _gain_ratios_exact


def _dask() -> tuple[Any, Any]:
    require("dask", "evaluating on Dask")
    import dask
    import dask.dataframe as dd

    return dask, dd


def _loader(
    frame_or_path: Any, columns: list[str], storage_options: Any, labels: Sequence[str] = ()
) -> Callable[[list[str]], Any]:
    """``load(some_columns)``: those of the used ``columns`` of a dask DataFrame or of Parquet
    data, each but the ``labels`` (unit ids, as they are) read as float64 in every partition.

    Checked once, before any pass: a Parquet path's files each hold every column, of a numeric
    type (:func:`ranklens.dask._inputs.check_parquet`, footers only); a DataFrame's columns are
    there and numeric (:func:`ranklens.dask._inputs.check_meta`).
    """
    _, dd = _dask()
    numeric = [c for c in columns if c not in labels]
    if isinstance(frame_or_path, dd.DataFrame):
        missing = [c for c in columns if c not in frame_or_path.columns]
        if missing:
            raise ValueError(f"frame_or_path: no column {missing[0]!r}")
        recast = check_meta(frame_or_path._meta, numeric)
        return lambda wanted: read_as_float(
            frame_or_path[wanted], [c for c in recast if c in wanted]
        )
    if isinstance(frame_or_path, str) or hasattr(frame_or_path, "__fspath__"):
        require("parquet", "reading Parquet files")
        path = str(frame_or_path)
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
        "frame_or_path must be a dask DataFrame or a Parquet path or glob (local or any fsspec "
        f"URL); got {type(frame_or_path).__name__}"
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
        total = _e._fsum(sums)
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


def _events(events: Any, binary: bool) -> tuple[str, float | None, float | None]:
    """(definition, threshold or None, top fraction or None) for the supported definitions."""
    if events is None and binary:
        return "binary", 1.0, None
    if events is None:
        events = "top:0.1"
    if isinstance(events, int | float) and not isinstance(events, bool):
        return f"y >= {float(events):g}", float(events), None
    if isinstance(events, str):
        spec = events.strip().replace(" ", "")
        if spec.startswith("top:"):
            text = spec[4:]
            q = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
            if not 0.0 < q <= 1.0:
                raise ValueError(f"events={events!r}: the fraction must be in (0, 1]")
            return f"top:{q:g}", None, q
        if spec.startswith(">="):
            t = float(spec[2:])
            return f"y >= {t:g}", t, None
        if spec.startswith(">"):
            t = float(spec[1:])
            # y > t is y >= the next float above t
            return f"y > {t:g}", float(np.nextafter(t, math.inf)), None
    raise ValueError(
        f"events: the Dask engine takes None, 'top:q', '>=t', '>t' or a number t; got {events!r}"
    )


def evaluate(
    frame_or_path: Any,
    *,
    y: str,
    pred: Sequence[str] | str,
    weight: str | None = None,
    groups: str | None = None,
    measures: Sequence[str] | None = None,
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
) -> ModelEvaluation:
    """Evaluate models on a dask DataFrame or Parquet data, exactly, whatever its size.

    Parameters
    ----------
    frame_or_path : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob (local or any fsspec URL, e.g. ``"s3://b/*.parquet"``).
    y : str
        The truth column.
    pred : str or sequence of str
        The prediction columns, one per model.
    weight : str, optional
        A column of non-negative case weights.
    groups : str, optional
        A column of unit labels (customers, accounts): the bootstrap then resamples units, and
        every interval and paired test comes from it (needs ``n_bootstrap``).
    measures : sequence of str, optional
        Registry names; default every registered measure (the interval measures only with
        ``intervals``, as in memory). A measure is computed when it declares a form the engine
        provides (a ratio of sums, a rank-sweep statistic, a functional of the ranked curve or a
        ratio of discounted sums over the ranked rows, as NDCG); the others are reported as
        skipped, with the reason.
    events : None, str or number
        Event definition for the targeting measures: None (a 0/1 ``y`` itself, else the true top
        10 %), ``"top:q"``, ``">=t"``, ``">t"`` or a number ``t``.
    intervals : mapping of str to (str, str), optional
        Prediction intervals by model name: the lower and upper bound columns, for the interval
        measures (as :func:`ranklens.evaluate_models`'s ``intervals``; a model here need not be
        in ``pred``); needs ``alpha``.
    alpha : float, optional
        Each interval is a central ``1 - alpha`` interval.
    relevance : callable, optional
        The relevance function of the measures of rare extremes; default the box-plot relevance
        of ``y`` as :func:`ranklens.evaluate_models` builds it, unweighted (every row counts
        once; its hinges, minimum and maximum found by exact selection), built once; with a
        ``weight``, ``settings["relevance_weights"]`` says ``"unweighted"``.
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
        ``y``; profit with ``cost_benefit`` or ``value_margin``), and the cutoff AUC, one point
        per distinct ``y``, from the shuffle by truth, the rank lift curve and the concordance
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
        own passes when it is such a run (``measures`` the table's, no ``weight``). A failure
        or an undefined row is a problem ``problems[model]["robustness table"]``, as in memory.
    row_plots : bool, default True
        Whether to compute, into ``extras["row_summaries"]`` (model ->
        ``ranklens.dask._row_plots.RowSummary``), the exact summaries from which the report
        draws the plots the in-memory report draws from every row: calibration by decile of
        prediction (each group's count, mean prediction, mean ``y`` and its standard error),
        the residuals' histogram between the 0.5 % and 99.5 % quantiles of all models'
        residuals, with each model's median residual, and the density of (prediction, ``y``)
        on a 40 x 40 grid. Unweighted, as in memory. Costs two more reads of ``y`` and the
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
        ``"harrell_c"`` -> the models' DeLong covariance matrix, in the order of ``pred``),
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
    """
    dask, dd = _dask()
    _check_inference(inference, n_bootstrap, groups)
    preds = _prediction_columns(pred)
    _c.check_options(
        curve_arrays,
        exact,
        cost_benefit=cost_benefit,
        budget=budget,
        cost_per_target=cost_per_target,
        value_margin=value_margin,
    )
    options = _Options(
        y=y,
        preds=preds,
        weight=weight,
        groups=groups,
        measures=measures,
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
    load = _loader(frame_or_path, options.every_column, storage_options, options.labels)
    frame = load(options.columns)
    plan = _plan_passes(options)

    # the passes over the rows as they are: the scan, then the measures read from it or from
    # passes of their own
    clock = _Clock()
    scanned = _scan_pass(dask, dd, frame, options, plan)
    results = _Results.empty(preds)
    _ratio_values(dask, options, plan, scanned, results)
    _lagged_pass(dask, options, plan, scanned, results)
    events = _event_pass(dask, options, plan, scanned)
    results.settings.update(_run_settings(options, plan, events, scanned.buckets))
    claimed = _claimed_passes(dask, dd, load, options, plan, scanned, results)
    if not exact:
        return _binned_evaluation(dask, options, plan, scanned, events, results)
    clock.lap("scan and event threshold")

    # the passes over the buckets: the grid, the replicates' sums, the shuffles
    grid = _grid_pass(dask, options, plan, scanned, events, results, claimed.used)
    events = _with_event_share(options, plan, scanned, events, grid, results)
    clock.lap("grid")
    boot = _bootstrap_pass(dask, options, plan, scanned, events)
    shuffled = _shuffle_passes(dask, dd, options, plan, scanned, events, grid, boot, clock)
    clock.lap("shuffles by prediction and truth")

    combined = _combine(options, plan, scanned, events, shuffled, results)
    tables = _robustness_tables(
        frame_or_path, options, plan, scanned, shuffled, combined, results, clock
    )
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


def _check_inference(inference: str, n_bootstrap: int, groups: str | None) -> None:
    """Refuse an ``inference`` the engine has no method for, or replicates it would lack."""
    if inference not in ("auto", "bootstrap"):
        raise ValueError(f"inference must be 'auto' or 'bootstrap'; got {inference!r}")
    if inference == "bootstrap" and not n_bootstrap:
        raise ValueError("inference='bootstrap' needs n_bootstrap replicates (>= 2)")
    if groups is not None and not n_bootstrap:
        # Units only matter to the bootstrap: analytic intervals assume independent rows, so
        # with units and no replicates there would be no interval the units could change.
        raise ValueError(
            f"groups={groups!r} needs n_bootstrap replicates (>= 2): the units are resampled "
            "by the bootstrap, and the analytic intervals assume independent rows"
        )


def _prediction_columns(pred: Sequence[str] | str) -> list[str]:
    """The prediction columns, one per model, as a list (at least one)."""
    preds = [pred] if isinstance(pred, str) else list(pred)
    if not preds:
        raise ValueError("pred: give at least one prediction column")
    return preds


@dataclass(frozen=True)
class _Options:
    """The settings of one run: the arguments of :func:`evaluate` of the same names, ``pred`` as
    the list ``preds`` and ``intervals`` as a dict (empty without intervals)."""

    y: str
    preds: list[str]
    weight: str | None
    groups: str | None
    measures: Sequence[str] | None
    events: Any
    intervals: dict[str, tuple[str, str]]
    alpha: float | None
    relevance: Any
    event_threshold: float | None
    n_bins: int
    exact: bool
    n_bootstrap: int
    random_state: int
    confidence_level: float
    n_buckets: int | None
    title: str
    storage_options: dict[str, Any] | None
    curve_arrays: bool
    cost_benefit: Any
    budget: float | None
    cost_per_target: float | None
    value_margin: float | None
    inference: str
    k: int | None
    gains: str | None
    robustness: bool
    row_plots: bool

    @property
    def unit(self) -> bool:
        """Whether every row counts once (no weight column)."""
        return self.weight is None

    @property
    def labels(self) -> list[str]:
        """The columns read as they are, not as float64: the unit labels."""
        return [self.groups] if self.groups else []

    @property
    def columns(self) -> list[str]:
        """The columns of the engine's passes: the truth, the predictions, weight and units."""
        return list(
            dict.fromkeys(
                [
                    self.y,
                    *self.preds,
                    *([self.weight] if self.weight else []),
                    *([self.groups] if self.groups else []),
                ]
            )
        )

    @property
    def every_column(self) -> list[str]:
        """:attr:`columns` and the bounds of the prediction intervals."""
        bounds = [c for pair in self.intervals.values() for c in pair]
        return list(dict.fromkeys([*self.columns, *bounds]))

    @property
    def ranked_list_params(self) -> dict[str, Any]:
        """NDCG's task parameters, passed by name (None: the measure's default)."""
        return {"k": self.k, "gains": self.gains}

    @property
    def measure_context(self) -> dict[str, Any]:
        """The parameters the measures of their own passes take by name."""
        return {
            "alpha": self.alpha,
            "relevance": self.relevance,
            "event_threshold": self.event_threshold,
        }

    @property
    def replicates(self) -> dict[str, Any] | None:
        """The replicates' numbers and seed, as the passes of their own take them (None
        without replicates)."""
        if not self.n_bootstrap:
            return None
        return dict(reps=np.arange(int(self.n_bootstrap)), seed=_s.poisson_seed(self.random_state))


@dataclass(frozen=True)
class _PassPlan:
    """Which passes a run makes and what they carry, decided from its settings before any read.

    Attributes
    ----------
    specs : Any
        The engine's plan (:func:`ranklens.dask._engine.plan`) less the measures claimed by
        passes of their own: its ``ratio``, ``sweep`` and ``curve`` measures and the
        ``unsupported`` ones with the reason.
    claimed, listed, lagged : Any
        The measures of passes of their own: sums and medians (:mod:`ranklens.dask._sums`),
        ranked lists (:mod:`ranklens.dask._listwise`), lag-scaled (:mod:`ranklens.dask._lagged`).
    table_specs, table_rules : list
        The robustness table's measures and their leave-one-out rules (none without it).
    robust_here : bool
        Whether the table comes from this run's passes (this run is the table's own), not from
        runs of its own after them.
    want_curves : bool
        Whether the ranked curves are read (and with them the event threshold, the decile table
        and DeLong's interval of the AUC).
    want_pairs : bool
        Whether the rows are shuffled by truth (the rank correlations, the cutoff AUC).
    noether : bool
        Whether the shuffles give Noether's interval of Kendall's tau.
    delong_c, delong_auc : bool
        Whether the shuffles give DeLong's variances of Harrell's C, covariances of the AUC.
    depths : numpy.ndarray
        The depths of the lifts asked for, in increasing order.
    """

    specs: Any
    claimed: Any
    listed: Any
    lagged: Any
    table_specs: list[MetricSpec]
    table_rules: list[Any]
    robust_here: bool
    want_curves: bool
    want_pairs: bool
    noether: bool
    delong_c: bool
    delong_auc: bool
    depths: np.ndarray

    @property
    def ratio_forms(self) -> list[Any]:
        """The ratio-of-sums forms of the ratio measures, in order."""
        return [spec.capabilities.batched for spec in self.specs.ratio]

    @property
    def robust_forms(self) -> list[Any]:
        """The forms of the table's losses whose per-row values the scan keeps (this run's
        passes computing the table)."""
        return [
            spec.capabilities.batched
            for spec, r in zip(self.table_specs, self.table_rules, strict=True)
            if self.robust_here and r is _rb.LOSS
        ]

    @property
    def robust_tau(self) -> bool:
        """Whether the shuffles find the table's candidate rows of Kendall's tau."""
        return self.robust_here and _rb.TAU in self.table_rules

    @property
    def robust_rho(self) -> bool:
        """Whether the shuffles find the table's candidate rows of Spearman's rho."""
        return self.robust_here and _rb.RHO in self.table_rules

    @property
    def robust_rows(self) -> bool:
        """Whether per-row counts and positions travel through the shuffles for the table."""
        return self.robust_tau or self.robust_rho

    @property
    def per_row(self) -> bool:
        """Whether the shuffles count each row's pairs (Noether's interval, the table's rules)."""
        return self.noether or self.robust_rows

    @property
    def chain(self) -> bool:
        """Whether the shuffles are chained: every model's columns on the rows of the last."""
        return self.want_pairs or self.delong_auc


def _plan_passes(options: _Options) -> _PassPlan:
    """The passes of a run, from its settings alone.

    Raises
    ------
    ValueError
        When prediction intervals come without ``alpha``, or a measure is not registered.
    """
    if options.intervals and options.alpha is None:
        raise ValueError(
            "alpha is required with prediction intervals (a central 1 - alpha interval); got None"
        )
    requested = _e.plan(options.measures)
    specs, claimed = _s.claim(requested, bool(options.intervals))
    specs, listed = _lw.claim(specs)  # ranked-list measures (NDCG): ranklens.dask._listwise
    specs, lagged = _lag.claim(specs)  # lag-scaled measures (pmap): ranklens.dask._lagged
    # the robustness table: in these passes when this run is the table's own (unweighted, its
    # measures and no others), else by unweighted runs of its own after these passes, one model
    # a run (the table is unweighted, as in memory). Its per-row columns (each row's position,
    # Spearman's leave-one-out sums) and Spearman's extra shuffle never ride along the report's
    # shuffles, which at 1e8 rows already fill workers of 1 GiB.
    table_specs = _rb.table_specs() if options.robustness and options.exact else []
    table_rules = [_rb.rule(spec) for spec in table_specs]
    swept = {spec.name for spec in specs.sweep}
    asked = [s.name for s in [*requested.ratio, *requested.sweep, *requested.curve]]
    robust_here = (
        bool(table_specs)
        and options.unit
        and {*asked, *requested.unsupported} <= {spec.name for spec in table_specs}
        and all(
            r is _rb.LOSS or spec.name in swept
            for spec, r in zip(table_specs, table_rules, strict=True)
        )
    )
    # the ranked curves (and with them the event threshold, the decile table and DeLong's
    # interval of the AUC) only where something asks for them: a run of rank correlations alone
    # reads the data neither for the threshold nor for the curve pieces
    want_curves = (
        bool(specs.curve) or options.curve_arrays or bool(options.n_bootstrap) or not options.exact
    )
    want_pairs = bool(specs.sweep) or options.curve_arrays  # the cutoff AUC: the truth shuffle
    # DeLong's interval of Harrell's C and the paired tests of the AUC and C: per-row counts
    # travelling with the rows through the chained shuffles (ranklens.dask._delong); with
    # units (groups) the comparison is the replicates' throughout, as in memory
    analytic = options.inference == "auto" and options.groups is None
    return _PassPlan(
        specs=specs,
        claimed=claimed,
        listed=listed,
        lagged=lagged,
        table_specs=table_specs,
        table_rules=table_rules,
        robust_here=robust_here,
        want_curves=want_curves,
        want_pairs=want_pairs,
        # Noether's interval of tau (unweighted, as in memory): exact per-row sums of the shuffles
        noether=options.unit and want_pairs and any(_nt.wanted(spec) for spec in specs.sweep),
        delong_c=analytic and want_pairs and _dl.wanted(specs.sweep, _dl.HARRELL_C),
        delong_auc=analytic and len(options.preds) >= 2 and _dl.wanted(specs.curve, _dl.AUC),
        depths=np.array(sorted({d for d in map(_depth, specs.curve) if d is not None})),
    )


class _Clock:
    """The wall time of each phase of a run (``extras["seconds"]``); a phase timed in pieces
    adds them up."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._since = time.perf_counter()

    def lap(self, name: str) -> None:
        """Charge the time since the last lap to the phase ``name``."""
        now = time.perf_counter()
        self.timings[name] = round(self.timings.get(name, 0.0) + now - self._since, 3)
        self._since = now


@dataclass(frozen=True)
class _Scanned:
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
    sample_y, sample_p : numpy.ndarray, list of numpy.ndarray
        Samples of ``y`` and of each prediction, for the bounds of the buckets.
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
    buckets: int


def _scan_pass(dask: Any, dd: Any, frame: Any, options: _Options, plan: _PassPlan) -> _Scanned:
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
                dask.delayed(_p.add_key)(part, int(offset), options.groups)
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
    return _Scanned(
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
        buckets=options.n_buckets or max(1, math.ceil(n_eff / _e.ROWS_PER_BUCKET)),
    )


@dataclass(frozen=True)
class _Results:
    """What the passes fill as they run: ``values[model][measure]``, ``problems[model][what]``,
    ``info[measure]`` (the registry's description of each measure) and the settings recorded."""

    values: dict[str, dict[str, float]]
    problems: dict[str, dict[str, Problem]]
    info: dict[str, dict[str, Any]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls, preds: Sequence[str]) -> _Results:
        """No value nor problem yet for any of the models ``preds``."""
        return cls(values={m: {} for m in preds}, problems={m: {} for m in preds})


def _ratio_values(
    dask: Any, options: _Options, plan: _PassPlan, scanned: _Scanned, results: _Results
) -> None:
    """The ratio measures from the scan's sums: a measure that failed on a partition fails for
    its model; data of extreme size are read again, rescaled."""
    values, problems = results.values, results.problems
    preds, specs, scans = options.preds, plan.specs, scanned.scans
    for j, spec in enumerate(specs.ratio):
        results.info[spec.name] = _metric_info(spec)
        form = spec.capabilities.batched
        assert isinstance(form, RatioForm)
        for k, model in enumerate(preds):
            failed = _e.whole_failure([s["sums"][k][j] for s in scans], scanned.part_rows)
            if failed is not None:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = _exception_problem(failed)
                continue
            num = _e._fsum(s["sums"][k][j][0] for s in scans)
            den = _e._fsum(s["sums"][k][j][1] for s in scans)
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


def _lagged_pass(
    dask: Any, options: _Options, plan: _PassPlan, scanned: _Scanned, results: _Results
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
class _Events:
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


def _event_pass(dask: Any, options: _Options, plan: _PassPlan, scanned: _Scanned) -> _Events:
    """The event definition, with the exact threshold of a true top fraction where the curves
    are read (two more reads), and the bucket bounds of the sorts."""
    definition, threshold, top = _events(options.events, scanned.binary)
    if top is not None and plan.want_curves:
        threshold = _top_threshold(dask, options, scanned, top)
        definition = f"top:{top:g} (y >= {threshold:.6g})"
    if not plan.want_curves:
        threshold = math.inf  # no events: nothing reads them
    assert threshold is not None
    t_bounds, single = _e.truth_bounds(
        scanned.sample_y, scanned.buckets, [threshold] if plan.want_curves else []
    )
    return _Events(
        definition=definition,
        threshold=threshold,
        top=top,
        t_bounds=t_bounds,
        single=single,
        p_bounds=[_e._bounds(sp, scanned.buckets) for sp in scanned.sample_p],
    )


def _top_threshold(dask: Any, options: _Options, scanned: _Scanned, top: float) -> float:
    """The exact threshold of the true top fraction ``top`` of the weight: the weight of each
    truth bucket, then the rows of the bucket holding the threshold."""
    y, weight, frame, n = options.y, options.weight, scanned.frame, scanned.n
    unit, total_w = options.unit, scanned.total_w
    t_bounds = _e._bounds(scanned.sample_y, scanned.buckets)
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


def _run_settings(
    options: _Options, plan: _PassPlan, events: _Events, buckets: int
) -> dict[str, Any]:
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
class _Claimed:
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


def _claimed_passes(
    dask: Any,
    dd: Any,
    load: Callable[[list[str]], Any],
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    results: _Results,
) -> _Claimed:
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
        else dict(**replicates, offsets=scanned.offsets, groups=options.groups),
        used=used,
    )
    # NDCG's shuffles, as the rank sweeps' below, from pieces of at most a bucket's rows: a
    # shuffle's memory grows with its input partitions (files of millions of rows)
    listed_replicates = _lw.evaluate_claimed(
        dask,
        _split(dask, dd, scanned.frame, scanned.part_rows, _e.ROWS_PER_BUCKET),
        plan.listed,
        y=options.y,
        preds=options.preds,
        weight=options.weight,
        context={**options.measure_context, **options.ranked_list_params},
        part_rows=_split_rows(scanned.part_rows, _e.ROWS_PER_BUCKET),
        n_buckets=scanned.buckets,
        sample_y=scanned.sample_y,
        sample_p=scanned.sample_p,
        values=results.values,
        problems=results.problems,
        info=results.info,
        bootstrap=options.replicates,
    )
    return _Claimed(sums_replicates, listed_replicates, used)


def _binned_evaluation(
    dask: Any,
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    results: _Results,
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


@dataclass(frozen=True)
class _Grid:
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


def _grid_pass(
    dask: Any,
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    results: _Results,
    used: dict[str, Any],
) -> _Grid:
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
    return _Grid(
        grids=list(summed[: len(level)]),
        curve_jobs=curve_jobs,
        curves_not_built=curves_not_built,
        curve_sums=summed[len(level) :],
        row_plan=row_plan,
        row_first=row_first,
    )


def _with_event_share(
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    grid: _Grid,
    results: _Results,
) -> _Events:
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


def _bootstrap_pass(
    dask: Any, options: _Options, plan: _PassPlan, scanned: _Scanned, events: _Events
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
class _Shuffled:
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


def _shuffle_passes(
    dask: Any,
    dd: Any,
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    grid: _Grid,
    boot: dict[str, Any] | None,
    clock: _Clock,
) -> _Shuffled:
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
    clock.lap("bootstrap sums")
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
    return _Shuffled(
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
    dask: Any, dd: Any, options: _Options, plan: _PassPlan, scanned: _Scanned, sequence: bool
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
    return _split(dask, dd, frame, scanned.part_rows, _e.ROWS_PER_BUCKET)


def _grid_total(grids: Sequence[dict[str, Any]], k: int, unit: bool) -> np.ndarray:
    """Model ``k``'s grid over all partitions: exact integer counts without weights (Python
    integers), the weights' sums with them."""
    if unit:
        return np.sum([gr["grids"][k][0] for gr in grids], axis=0).astype(object)
    return np.sum([gr["grids"][k][1] for gr in grids], axis=0)


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
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
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
        h_cross = _dl.cross_weights(g)
    w_a = g.sum(axis=1)
    nb = w_a.size
    v_above = _rb.above_sums(w_a, n) if plan.robust_rho else None  # (Spearman's leave-one-out)
    carry = _carry_ins(w_a, g[:, events.first_event_bucket :].sum(axis=1), scanned.total_w, unit)
    boot_k = None if boot is None else _boot_carry(boot, k, boot["seed"])
    source = _without(
        source, [*preds, options.groups], [y, weight, *(preds[k:] if plan.chain else [model])]
    )
    bucketed = source.map_partitions(_p.with_p_bucket, model, weight, events.p_bounds[k])
    shuffled = _p.by_bucket(bucketed, _p.P_BUCKET, nb)
    queries = _decile_queries(options.n_bins, scanned.total_w)
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
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
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
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
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


def _decile_queries(n_bins: int, total_w: Any) -> np.ndarray:
    """The cumulative weights (from the top) at the bounds of the decile table's bins."""
    queries = np.arange(n_bins + 1) * float(total_w) / n_bins
    queries[-1] = float(total_w)
    return queries


@dataclass(frozen=True)
class _Combined:
    """The shuffles' summaries combined, model by model: the curves (the decile table), the
    pair counts, Noether's and DeLong's intervals, DeLong's covariances and the rows of each
    class behind DeLong's variances."""

    curves: dict[str, dict[str, Any]]
    pair_counts: dict[str, dict[str, Any]] = field(default_factory=dict)
    noether: dict[str, Any] = field(default_factory=dict)
    delong: dict[str, Any] = field(default_factory=dict)
    class_rows: dict[str, list[float]] = field(default_factory=dict)
    delong_covariance: dict[str, np.ndarray] = field(default_factory=dict)
    delong_c: dict[str, Any] = field(default_factory=dict)


def _combine(
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    shuffled: _Shuffled,
    results: _Results,
) -> _Combined:
    """The curve and rank measures of every model from the shuffles' summaries, into
    ``results``, with the intervals and pair counts behind them."""
    combined = _Combined(curves={"decile_table": {}} if plan.want_curves else {})
    for spec in plan.specs.curve:
        results.info[spec.name] = _metric_info(spec)
    for spec in plan.specs.sweep:
        results.info[spec.name] = _metric_info(spec)
    total_w, n = scanned.total_w, scanned.n
    w2 = 0.0 if options.unit else _e._fsum(s["w2"] for s in scanned.scans)
    all_pairs = n * (n - 1) // 2 if options.unit else (float(total_w) ** 2 - w2) / 2.0
    for k in range(len(options.preds)):
        parts = [s for s in shuffled.pred_out[k] if s["n"]]
        _curve_measures(k, parts, options, plan, scanned, events, shuffled, results, combined)
        if plan.want_pairs:
            _rank_measures(
                k, parts, all_pairs, options, plan, scanned, events, shuffled, results, combined
            )
    _delong_covariances(options, plan, scanned, shuffled, combined)
    return combined


def _curve_measures(
    k: int,
    parts: Sequence[dict[str, Any]],
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    shuffled: _Shuffled,
    results: _Results,
    combined: _Combined,
) -> None:
    """Model ``k``'s curve measures, DeLong's interval of its AUC and its decile table, from its
    prediction buckets' summaries ``parts``."""
    model, total_w = options.preds[k], float(scanned.total_w)
    e_total = float(sum(shuffled.grid_totals[k][:, events.first_event_bucket :].sum(axis=1)))
    n_total = total_w - e_total
    stats = (
        _curve_statistics(parts, e_total, n_total, total_w, plan.depths) if plan.want_curves else {}
    )
    for spec in plan.specs.curve:
        curve = spec.capabilities.curve
        assert curve is not None
        value = stats[curve.statistic] if curve.depth is None else stats[("lift", curve.depth)]
        results.values[model][spec.name] = value
        if math.isnan(value):
            results.problems[model][spec.name] = Problem(
                "undefined", f"undefined: no events or no non-events under {events.definition!r}"
            )
    if plan.want_curves:
        combined.delong[model], combined.class_rows[_dl.AUC] = _delong(
            parts, stats[CurveStatistic.ROC_AUC], e_total, n_total, options.confidence_level
        )
        combined.curves["decile_table"][model] = _decile_table(
            parts,
            _decile_queries(options.n_bins, scanned.total_w),
            options.n_bins,
            e_total,
            n_total,
            total_w,
            events.definition,
        )


def _rank_measures(
    k: int,
    parts: Sequence[dict[str, Any]],
    all_pairs: Any,
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    events: _Events,
    shuffled: _Shuffled,
    results: _Results,
    combined: _Combined,
) -> None:
    """Model ``k``'s rank measures, pair counts and Noether's interval of Kendall's tau, from
    its prediction buckets' summaries ``parts``, the truth buckets' and the grid
    (``all_pairs``: the pairs, or their weight)."""
    model, unit = options.preds[k], options.unit
    tparts = [t for t in shuffled.truth_out if t["n"]]
    cross = _e._grid_cross(shuffled.grid_totals[k])
    # single-valued truth buckets: every pair in one is tied in the truth only
    single_pairs = [
        {"concordant": 0, "discordant": 0, "tied_y": tied}
        for tied in _single_tied_pairs(shuffled.t_counts, shuffled.t_w2, events.single, unit)
    ]
    classes = _e.combine_pairs(
        [p["pairs"] for p in parts],
        [t["models"][k]["pairs"] for t in tparts] + single_pairs,
        cross,
        all_pairs,
        unit,
    )
    combined.pair_counts[model] = classes
    rank = _e.rank_statistics(classes)
    if plan.noether:
        combined.noether[model] = _nt.interval(
            scanned.n,
            classes,
            [p["noether"] for p in parts] + [t["noether"][k] for t in tparts],
            rank[RankStatistic.KENDALL_TAU_B],
            options.confidence_level,
        )
    if unit:
        rank[RankStatistic.SPEARMAN_RHO] = _spearman_unit(
            k, parts, tparts, scanned.n, events.single, shuffled
        )
    else:
        rank[RankStatistic.SPEARMAN_RHO] = _spearman_weighted(
            k, parts, tparts, float(scanned.total_w), events.single, shuffled
        )
    for spec in plan.specs.sweep:
        sweep = spec.capabilities.batched
        assert isinstance(sweep, RankSweepForm)
        value = float(sweep.transform(rank[sweep.statistic]))
        results.values[model][spec.name] = value
        if math.isnan(value):
            results.problems[model][spec.name] = Problem(
                "undefined", "undefined: y_true or y_pred is constant (all pairs tied)"
            )


def _spearman_unit(
    k: int,
    parts: Sequence[dict[str, Any]],
    tparts: Sequence[dict[str, Any]],
    n: int,
    single: np.ndarray,
    shuffled: _Shuffled,
) -> float:
    """Spearman's rho of model ``k`` without weights, from exact integer sums of doubled
    midranks (the single-valued truth buckets' from the prediction buckets)."""
    t_counts, t_carry = shuffled.t_counts, shuffled.t_carry
    s2 = sum(t["models"][k]["s2"] for t in tparts)
    t_y = sum(t["t3"] for t in tparts)
    for b in single:
        size = int(t_counts[b])
        two_b = 2 * t_carry[b] + size + 1  # the bucket's one doubled midrank
        s2 += two_b * sum(p["a_single"][int(b)] for p in parts)
        t_y += size**3 - size
    return _e.spearman_unit(n, s2, sum(p["t3"] for p in parts), t_y)


def _spearman_weighted(
    k: int,
    parts: Sequence[dict[str, Any]],
    tparts: Sequence[dict[str, Any]],
    total_w: float,
    single: np.ndarray,
    shuffled: _Shuffled,
) -> float:
    """Spearman's rho of model ``k`` with weights, from the midranks' covariance and variances
    (the single-valued truth buckets' from the prediction buckets)."""
    t_counts, t_carry = shuffled.t_counts, shuffled.t_carry
    half = total_w / 2.0
    cov = [t["models"][k]["cov"] for t in tparts]
    var_b = [t["models"][k]["var_b"] for t in tparts]
    for b in single:
        db = t_carry[b] + float(t_counts[b]) / 2.0 - half
        cov.append(db * _e._fsum(p["a_single"][int(b)] for p in parts))
        var_b.append(float(t_counts[b]) * db * db)
    return _e.spearman_weighted(_e._fsum(cov), _e._fsum(p["var_a"] for p in parts), _e._fsum(var_b))


def _delong_covariances(
    options: _Options, plan: _PassPlan, scanned: _Scanned, shuffled: _Shuffled, combined: _Combined
) -> None:
    """DeLong's covariances of the models' AUC and Harrell's C, and the interval of each
    model's C, from the per-row counts on the rows of the last shuffles."""
    if not (plan.delong_auc or plan.delong_c):
        return
    n_models, unit = len(options.preds), options.unit
    last = [p.get("delong_pairs", {}) for p in shuffled.pred_out[-1] if p["n"]]
    if plan.delong_auc:
        combined.delong_covariance[_dl.AUC] = _dl.auc_covariance(last, n_models, unit)
    if plan.delong_c:
        cov_c, estimates, two, class_parts, c_rows = _dl.c_covariance(
            last, [t.get("delong_c", {}) for t in shuffled.truth_out], n_models, unit
        )
        combined.delong_covariance[_dl.HARRELL_C] = cov_c
        combined.class_rows[_dl.HARRELL_C] = [float(r) for r in c_rows]
        for k, model in enumerate(options.preds):
            combined.delong_c[model] = _dl.interval_result(
                estimates[k], class_parts[k], c_rows, options.confidence_level, two, scanned.n_eff
            )


def _robustness_tables(
    frame_or_path: Any,
    options: _Options,
    plan: _PassPlan,
    scanned: _Scanned,
    shuffled: _Shuffled,
    combined: _Combined,
    results: _Results,
    clock: _Clock,
) -> dict[str, Any]:
    """Each model's robustness table: from this run's candidate rows when it is the table's own
    run, else from runs of its own (timed apart); a failure is a problem of the model."""
    tables: dict[str, Any] = {}
    if plan.robust_here:
        for k, model in enumerate(options.preds):
            found = [p["robust"]["tau"] for p in shuffled.pred_out[k] if "robust" in p] + [
                t["robust"][k] for t in shuffled.truth_out if "robust" in t
            ]
            result, problem = _call_quietly(
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
            frame_or_path,
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
    dask: Any, load: Callable[[list[str]], Any], options: _Options, grid: _Grid, clock: _Clock
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

    scanned: _Scanned
    events: _Events
    grid: _Grid
    boot: dict[str, Any] | None
    claimed: _Claimed
    shuffled: _Shuffled
    combined: _Combined
    robustness: dict[str, Any]
    row_summaries: Any


def _assemble(
    options: _Options, plan: _PassPlan, results: _Results, clock: _Clock, passes: _Passes
) -> ModelEvaluation:
    """The run's result: the extras, the measures the engine skips, the comparison (intervals
    and paired tests with their methods) and the settings."""
    extras = _extras(options, plan, results, clock, passes)
    for name, why in plan.specs.unsupported.items():
        if options.measures is None and why == _e.NEEDS_INTERVALS:
            # as in memory: interval measures only for models given intervals (here none);
            # named in ``measures``, they are listed as skipped with the reason
            continue
        results.info[name] = _metric_info(_e.get_metric(name))
        for model in options.preds:
            results.values[model][name] = math.nan
            results.problems[model][name] = Problem("skipped", why)
    # intervals and paired tests where the in-memory pipeline keeps them, with their methods
    # as in memory: with units (groups) every interval and test comes from the clustered
    # replicates, DeLong's and Noether's variances assuming independent rows
    comparison = _e.interval_comparison(
        results.values,
        options.preds,
        extras,
        options.inference if options.groups is None else "bootstrap",
        options.confidence_level,
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
    settings.update(_methods_settings(comparison))
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


def _extras(
    options: _Options, plan: _PassPlan, results: _Results, clock: _Clock, passes: _Passes
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
    if passes.boot is not None:
        extras["bootstrap"] = _bootstrap_extras(options, plan, passes, passes.boot)
    return extras


def _curve_arrays(
    options: _Options, passes: _Passes, results: _Results, extras: dict[str, Any]
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
    options: _Options, plan: _PassPlan, passes: _Passes, boot: dict[str, Any]
) -> dict[str, Any]:
    """``extras["bootstrap"]``: every measure's replicates and percentile intervals."""
    level, shuffled = options.confidence_level, passes.shuffled
    out = _boot_results(
        boot,
        shuffled.pred_out,
        options.preds,
        plan.specs,
        level,
        options.groups,
        options.random_state,
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


def _robustness_run(
    frame_or_path: Any,
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
            frame_or_path,
            y=y,
            pred=[model],
            measures=names,
            n_buckets=n_buckets,
            storage_options=storage_options,
            row_plots=False,
        )
        tables.update(run.robustness)
        problem = run.problems.get(model, {}).get("robustness table")
        if problem is not None:
            problems[model]["robustness table"] = problem


def _split_edges(m: int, rows: int) -> list[int]:
    """Where a partition of ``m`` rows is cut into even pieces of at most ``rows`` rows."""
    return np.linspace(0, m, max(1, math.ceil(m / rows)) + 1).astype(np.int64).tolist()


def _split_rows(part_rows: Sequence[int], rows: int) -> list[int]:
    """The rows of each piece of :func:`_split`, in order."""
    if max(part_rows, default=0) <= rows:
        return list(part_rows)
    return [b - a for m in part_rows for a, b in itertools.pairwise(_split_edges(m, rows))]


def _split(dask: Any, dd: Any, frame: Any, part_rows: Sequence[int], rows: int) -> Any:
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


def _without(frame: Any, drop: Sequence[str | None], keep: Sequence[str | None]) -> Any:
    """``frame`` without the columns in ``drop`` that are not in ``keep``."""
    gone = {c for c in drop if c is not None} - {c for c in keep if c is not None}
    columns = [c for c in frame.columns if c not in gone]
    return frame if len(columns) == len(frame.columns) else frame[columns]


def _delong(
    parts: Sequence[dict[str, Any]], auc: float, e_total: float, n_total: float, level: float
) -> tuple[Any, list[float]]:
    """DeLong's interval of the AUC of the events from the buckets' sums and the rows of each
    class (events, non-events), as
    ``ranklens.delong.delong_interval(events, score, sample_weight=w)``: the variance part of
    each class is ``m/(m-1) sum w^2 (V - AUC)^2 / W^2`` (``m`` rows, total weight ``W``), the
    interval the logit one of :func:`ranklens.delong.concordance_interval`."""
    sums = [p["delong"] for p in parts if "delong" in p]
    class_parts = [math.nan, math.nan]
    class_rows = [0.0, 0.0]
    if sums and math.isfinite(auc):
        total = [_e._fsum(s[i] for s in sums) for i in range(8)]
        for c, (w2, wv, wvv, m, weight) in enumerate(
            (
                (total[0], total[1], total[2], total[3], e_total),
                (total[4], total[5], total[6], total[7], n_total),
            )
        ):
            # both classes' components average to the AUC
            spread = _e._fsum([wvv, -2.0 * auc * wv, auc * auc * w2])
            class_parts[c] = m / (m - 1) * spread / (weight * weight) if m > 1 else math.nan
            class_rows[c] = float(round(m))
    result = _dl.interval_result(
        auc, class_parts, class_rows, level, binary=True, n=round(sum(class_rows))
    )
    return result, class_rows


def _boot_carry(boot: dict[str, Any], k: int, seed: int) -> dict[str, Any]:
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


def _boot_results(
    boot: dict[str, Any],
    pred_out: Any,
    preds: list[str],
    the_plan: Any,
    level: float,
    groups: str | None,
    seed: int,
) -> dict[str, Any]:
    """Replicates and percentile intervals of the mergeable and ranked-curve measures."""
    from ranklens._resampling import percentile_interval

    replicates: dict[str, dict[str, np.ndarray]] = {}
    for k, model in enumerate(preds):
        out: dict[str, np.ndarray] = {}
        sums = np.sum([p["sums"][k] for p in boot["parts"]], axis=0)  # (forms, 2, B)
        for j, spec in enumerate(the_plan.ratio):
            form = spec.capabilities.batched
            with np.errstate(all="ignore"):
                out[spec.name] = np.asarray(form.finalize(sums[j, 0] / sums[j, 1]), np.float64)
        carry = _boot_carry(boot, k, seed)["carry"]
        pieces = [p["boot"] for p in pred_out[k] if p["n"] and "boot" in p]
        some = next(iter(carry.values()))
        e_tot, n_tot, w_tot = some["E"], some["N"], some["W"]
        with np.errstate(divide="ignore", invalid="ignore"):
            twice = np.sum([p["roc_twice"] for p in pieces], axis=0)
            stats: dict[Any, Any] = {
                CurveStatistic.ROC_AUC: twice / (2.0 * e_tot * n_tot),
                CurveStatistic.KS: np.maximum(0.0, np.max([p["ks"] for p in pieces], axis=0)),
                CurveStatistic.GAIN_AREA: 0.5 * np.sum([p["gain_area2"] for p in pieces], axis=0),
            }
            perfect = 1.0 - (e_tot / w_tot) / 2.0
            stats[CurveStatistic.ACCURACY_RATIO] = np.where(
                perfect > 0.5, (stats[CurveStatistic.GAIN_AREA] - 0.5) / (perfect - 0.5), np.nan
            )
        # the lift at each depth: from the one bucket per replicate whose piece holds it
        lifts = [p["lift"] for p in pieces if "lift" in p]
        depths = boot.get("depths")
        if lifts and depths is not None:
            held = np.stack(lifts)  # (buckets, B, depths)
            found = np.isfinite(held).any(axis=0)
            best = np.where(np.isnan(held), -np.inf, held).max(axis=0)
            for i, d in enumerate(depths):
                stats[("lift", float(d))] = np.where(found[:, i], best[:, i], np.nan)
        for spec in the_plan.curve:
            curve = spec.capabilities.curve
            if curve is None:
                continue
            key = curve.statistic if curve.depth is None else ("lift", float(curve.depth))
            if key in stats:
                out[spec.name] = stats[key]
        replicates[model] = out
    intervals = {
        model: {
            name: tuple(float(v) for v in percentile_interval(reps[np.isfinite(reps)], level))
            if np.isfinite(reps).sum() >= 2
            else (math.nan, math.nan)
            for name, reps in out.items()
        }
        for model, out in replicates.items()
    }
    return {
        "n_replicates": int(boot["reps"].size),
        "scheme": "poisson",
        "keys": f"groups {groups!r}" if groups else "row position",
        "random_state": seed,
        "seed": boot["seed"],
        "confidence_level": level,
        "replicates": replicates,
        "intervals": intervals,
    }


def _single_tied_pairs(
    t_counts: np.ndarray, t_w2: np.ndarray | None, single: np.ndarray, unit: bool
) -> list[Any]:
    """Pairs (weight of pairs) inside each single-valued truth bucket."""
    if unit:
        return [int(t_counts[b]) * (int(t_counts[b]) - 1) // 2 for b in single]
    assert t_w2 is not None
    return [(float(t_counts[b]) ** 2 - float(t_w2[b])) / 2.0 for b in single]


def _depth(spec: MetricSpec) -> float | None:
    curve = spec.capabilities.curve
    return None if curve is None else curve.depth


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


def _curve_statistics(
    parts: Sequence[dict[str, Any]],
    e_total: float,
    n_total: float,
    total_w: float,
    depths: np.ndarray,
) -> dict[Any, float]:
    out: dict[Any, float] = {}
    defined = e_total > 0 and n_total > 0
    out[CurveStatistic.ROC_AUC] = (
        _e._fsum(p["roc_twice"] for p in parts) / (2.0 * e_total * n_total) if defined else math.nan
    )
    out[CurveStatistic.KS] = max([0.0, *(p["ks"] for p in parts)]) if defined else math.nan
    area = 0.5 * _e._fsum(p["gain_area2"] for p in parts) if e_total > 0 else math.nan
    perfect = 1.0 - (e_total / total_w) / 2.0
    ratio = (area - 0.5) / (perfect - 0.5) if perfect > 0.5 and not math.isnan(area) else math.nan
    if e_total > 0 and parts and all("gain_twice" in p for p in parts):
        # integer counts: exact integer sums, the in-memory ratios of them (targeting._gain)
        area, exact_ratio = _gain_ratios_exact(
            sum(p["gain_twice"] for p in parts), int(total_w), int(e_total)
        )
        if perfect > 0.5 and exact_ratio is not None:
            ratio = exact_ratio
    out[CurveStatistic.GAIN_AREA] = area
    out[CurveStatistic.ACCURACY_RATIO] = ratio
    for i, d in enumerate(depths):
        hits = [p["lift"][i] for p in parts if i in p["lift"]]
        out[("lift", float(d))] = hits[0] if hits else math.nan
    return out


def _decile_table(
    parts: Sequence[dict[str, Any]],
    queries: np.ndarray,
    n_bins: int,
    total_e: float,
    n_non: float,
    total_w: float,
    definition: str,
) -> DecileTableResult:
    """``targeting.decile_table`` from the pieces' readings of the curve at the bin bounds."""
    cum_events = np.zeros(n_bins + 1)
    gain_at = np.full(n_bins + 1, np.nan)
    last_score = np.full(n_bins + 1, np.nan)
    first_score = np.full(n_bins + 1, np.nan)
    for p in parts:
        for i, (ce, score) in p["at"].items():
            cum_events[i], last_score[i] = ce, score
        for i, g in p.get("gain_at", {}).items():
            gain_at[i] = g
        for i, score in p["first_score"].items():
            first_score[i] = score
    cum_events[0], cum_events[-1] = 0.0, total_e
    fractions = np.arange(n_bins + 1) / n_bins
    cum_count = queries
    events_in = np.diff(cum_events)
    count = np.diff(cum_count)
    overall_rate = total_e / total_w
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = events_in / count
        bin_lift = rate / overall_rate if total_e > 0 else np.full(n_bins, np.nan)
        cum_gain = cum_events[1:] / total_e if total_e > 0 else np.full(n_bins, np.nan)
    if total_e > 0:
        # the in-memory reading, to the bit on integer counts: the gain G = E(x) / E
        # interpolated (not the interpolated events over E, which differs by an ulp)
        cum_gain = np.where(np.isnan(gain_at[1:]), cum_gain, gain_at[1:])
    if total_e > 0:
        cum_gain[-1] = 1.0
    lift = cum_gain / fractions[1:]
    fpr = (cum_count[1:] - cum_events[1:]) / n_non if n_non > 0 else np.full(n_bins, np.nan)
    ks = cum_gain - fpr
    ks_max = float(np.max(ks)) if np.isfinite(ks).all() else math.nan
    return DecileTableResult(
        bin=np.arange(1, n_bins + 1, dtype=np.int64),
        fraction_start=fractions[:-1],
        fraction_end=fractions[1:],
        score_max=first_score[:-1],
        score_min=last_score[1:],
        count=count,
        events=events_in,
        rate=rate,
        cumulative_count=cum_count[1:],
        cumulative_events=cum_events[1:],
        cumulative_gain=cum_gain,
        lift=lift,
        bin_lift=bin_lift,
        ks=ks,
        ks_max=ks_max,
        overall_rate=overall_rate,
        total_count=total_w,
        total_events=total_e,
        event_definition=definition,
    )


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
        bounds = _e._bounds(sample_p[k], n_bins)
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
        info[spec.name] = _metric_info(spec)
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
