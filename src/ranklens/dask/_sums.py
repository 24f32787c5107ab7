"""Measures that are sums once their parameters are fixed, and medians, on Dask.

What each measure declares decides how it is computed (never its name):

- :class:`ranklens._foundation.forms.SumsForm`: a few weighted sums of per-row values, added over
  the partitions with :func:`math.fsum`, then finished by the measure's own ``finalize`` (the
  relevance-weighted errors, SERA and utility-based precision, recall and F1 of Torgo & Ribeiro
  2009 and Ribeiro & Moniz 2020; the interval score, coverage, coverage error, width and
  weighted interval score of Gneiting & Raftery 2007 and Bracher et al. 2021). Parameters a
  measure fits from order statistics of ``y`` (``SumsForm.fitted``: the default accuracy from
  the hinges) come first from exact selection (:mod:`ranklens.dask._quantiles`).
- The default relevance, as :func:`ranklens.evaluate_models` builds it: the box-plot relevance
  of ``y`` (Torgo & Ribeiro 2009, Sect. 4.1), its hinges, minimum and maximum found by exact
  selection, then :func:`ranklens._measures.relevance_functions.relevance_from_limits`, the
  in-memory function's own construction.
- :class:`ranklens._foundation.forms.MedianForm`: the (weighted) median of per-row values by exact
  selection (median absolute error, Rosset, Perlich & Zadrozny 2005).

References
----------
Torgo, L. and Ribeiro, R. P. (2009). Precision and recall for regression. *Discovery Science
(DS 2009)*, LNCS 5808, 332-346.
Ribeiro, R. P. and Moniz, N. (2020). Imbalanced regression and extreme value prediction.
*Machine Learning* 109(9), 1803-1835.
Gneiting, T. and Raftery, A. E. (2007). Strictly proper scoring rules, prediction, and
estimation. *Journal of the American Statistical Association* 102(477), 359-378.
Bracher, J., Ray, E. L., Gneiting, T. and Reich, N. G. (2021). Evaluating epidemic forecasts in
an interval format. *PLoS Computational Biology* 17(2), e1008618.
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of ICDM 2005*, 370-377.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens._foundation.hinges import midpoint
from ranklens._foundation.problems import (
    Problem,
    call_quietly,
    exception_problem,
    fit_kwargs,
    metric_info,
    score_quietly,
)
from ranklens._foundation.registry import MetricSpec
from ranklens.dask._engine import whole_failure
from ranklens.dask._quantiles import Source, Target, relevance_at_hinges, select
from ranklens.evaluation import model_context


@dataclasses.dataclass(frozen=True)
class Claimed:
    """The measures this module computes, taken from the engine's unsupported ones."""

    sums: list[MetricSpec]
    medians: list[MetricSpec]


def claim(the_plan: Any, with_intervals: bool) -> tuple[Any, Claimed]:
    """The plan without the measures declaring a sums or median form (interval measures only
    when intervals are given), and those measures."""
    from ranklens.metrics import get_metric

    sums, medians, rest = [], [], {}
    for name, why in the_plan.unsupported.items():
        spec = get_metric(name)
        caps = spec.capabilities
        if caps.sums is not None and (spec.inputs == "point" or with_intervals):
            sums.append(spec)
        elif caps.median is not None and spec.inputs == "point":
            medians.append(spec)
        else:
            rest[name] = why
    return dataclasses.replace(the_plan, unsupported=rest), Claimed(sums, medians)


@dataclasses.dataclass(frozen=True)
class _Job:
    """One measure of one model in the sums pass: its form, columns and parameters."""

    spec: MetricSpec
    columns: tuple[str, ...]
    params: dict[str, Any]
    boot: bool = False


def sums_partition(
    part: Any,
    weight: str | None,
    jobs: Sequence[_Job],
    boot: dict[str, Any] | None = None,
    offset: int = 0,
) -> list[Any]:
    """Per job, the weighted sums of the measure's per-row terms (or the exception raised),
    then the partition's number of rows;
    with ``boot`` (replicates, seed, groups), the pair (sums, (B, m) replicate sums) for the
    jobs marked for the bootstrap, the replicate weights keyed by the global row position
    (``offset`` + the position here), by the unit or by the block
    (:func:`ranklens.dask._passes.add_key`)."""
    from ranklens.dask._passes import BLOCK_CELLS, KEY, add_key, replicate_weights

    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    keys = None
    if boot is not None and len(part):
        groups = boot["groups"]
        keys = add_key(
            part[[]] if groups is None else part, offset, groups, boot.get("block_rows")
        )[KEY].to_numpy()
    cols: dict[str, np.ndarray] = {}
    out: list[Any] = []
    for job in jobs:
        form = job.spec.capabilities.sums
        assert form is not None
        arrays = []
        for c in job.columns:
            if c not in cols:
                cols[c] = np.ascontiguousarray(part[c].to_numpy(dtype=np.float64))
                if not np.isfinite(cols[c]).all():
                    return [{"bad": c}]
            arrays.append(cols[c])
        if arrays[0].size == 0:
            out.append(None)
            continue
        try:
            with np.errstate(all="ignore"):
                terms = np.asarray(form.terms(*arrays, **job.params), dtype=np.float64)
        except Exception as exc:  # the measure's own checks, reported as in memory
            out.append(exc)
            continue
        total = terms.sum(axis=1) if w is None else terms @ w
        if keys is None or not job.boot:
            out.append(total)
            continue
        assert boot is not None
        reps = boot["reps"]
        replicate = np.zeros((reps.size, terms.shape[0]))
        rows = max(1, BLOCK_CELLS // max(1, reps.size))
        for start in range(0, terms.shape[1], rows):
            sl = slice(start, start + rows)
            rw = replicate_weights(keys[sl], None if w is None else w[sl], reps, boot["seed"])
            replicate += rw @ terms[:, sl].T
        out.append((total, replicate))
    out.append(len(part))
    return out


@dataclasses.dataclass
class _OrderStatistics:
    """The order statistics the claimed measures need, asked in one selection: the default
    relevance's box plot, the fitted parameters and the medians (each a slice of ``targets``)."""

    targets: list[Target] = dataclasses.field(default_factory=list)
    samples: dict[Source, np.ndarray] = dataclasses.field(default_factory=dict)
    relevance_at: slice | None = None
    fits: dict[int, tuple[Any, slice]] = dataclasses.field(default_factory=dict)
    medians: dict[tuple[str, str], slice] = dataclasses.field(default_factory=dict)
    #: Why no parameter can be fitted (weights that sum to less than two observations).
    fit_problem: Problem | None = None

    def want(self, source: Source, positions: Sequence[float], strict: bool = False) -> slice:
        """Ask for the order statistics of ``source`` at ``positions``; their slice."""
        start = len(self.targets)
        self.targets.extend(Target(source, float(k), strict) for k in positions)
        return slice(start, len(self.targets))


def _order_statistics(
    claimed: Claimed,
    *,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    context: Mapping[str, Any],
    n: int,
    total_w: float,
    sample_y: np.ndarray,
    sample_p: dict[str, np.ndarray],
) -> _OrderStatistics:
    """What the one selection pass must find for the claimed measures."""
    from ranklens._foundation.hinges import hinge_positions

    weighted_y = Source(y, weight=weight)
    wanted = _OrderStatistics(samples={weighted_y: sample_y})
    needs_relevance = any("relevance" in s.capabilities.sums.params for s in claimed.sums)  # type: ignore[union-attr]
    # the default relevance is unweighted, as evaluate_models builds it (every row once, rows of
    # weight 0 too); the fitted accuracy reads the weights as frequencies, as the measures do: a
    # sample of size W, rows of weight 0 absent
    every_y = Source(y)
    wanted.samples[every_y] = sample_y
    size = float(n) if weight is None else float(total_w)
    if weight is not None and total_w < 2.0:
        wanted.fit_problem = Problem(
            "undefined",
            "the box plot reads sample_weight as frequencies (a weight of 3 counts as three "
            f"observations); these weights sum to {total_w:.6g}, less than the two "
            "observations a box plot needs",
        )
    if needs_relevance and context.get("relevance") is None:
        start = len(wanted.targets)
        wanted.want(every_y, hinge_positions(float(n)))
        wanted.want(every_y, [0.0], strict=True)  # the smallest value: the first row
        wanted.want(every_y, [math.inf])  # the largest: no position reached, the last row
        wanted.relevance_at = slice(start, len(wanted.targets))
    for spec in claimed.sums:
        form = spec.capabilities.sums
        assert form is not None
        for name, fit in form.fitted.items():
            if (
                context.get(name) is None
                and id(fit) not in wanted.fits
                and wanted.fit_problem is None
            ):
                wanted.fits[id(fit)] = (fit, wanted.want(weighted_y, list(fit.positions(size))))
    for spec in claimed.medians:
        median_form = spec.capabilities.median
        assert median_form is not None
        for model in preds:
            source = Source(y, model, median_form.values, weight)
            wanted.samples[source] = source.sample(sample_y, sample_p)
            if weight is None:
                half = [n // 2 + 1] if n % 2 else [n // 2, n // 2 + 1]
                wanted.medians[(spec.name, model)] = wanted.want(source, half)
            else:
                h = float(total_w) / 2.0
                tol = 64.0 * np.finfo(np.float64).eps * h
                start = len(wanted.targets)
                wanted.want(source, [h - tol])
                wanted.want(source, [h + tol], strict=True)
                wanted.medians[(spec.name, model)] = slice(start, len(wanted.targets))
    return wanted


def _relevance(
    found: Sequence[float],
    wanted: _OrderStatistics,
    context: Mapping[str, Any],
    n: int,
    weight: str | None,
    settings: dict[str, Any],
) -> tuple[Any, Problem | None]:
    """The relevance of the utility measures: given, or the default box plot's as
    evaluate_models builds it (with a note in ``settings``, or the problem that prevents it)."""
    relevance = context.get("relevance")
    if wanted.relevance_at is not None:
        relevance, problem = call_quietly(relevance_at_hinges, n, found[wanted.relevance_at])
        if relevance is None:
            return None, problem
        note = "box plot of the evaluated target (default)"
        settings["relevance"] = note + (f"; {problem.message}" if problem else "")
        if weight is not None:
            settings["relevance_weights"] = "unweighted"
    elif relevance is not None:
        settings["relevance"] = repr(relevance)
    return relevance, None


def _job_parameters(
    form: Any,
    params: dict[str, Any],
    skip: Problem | None,
    relevance: Any,
    relevance_failure: Problem | None,
    wanted: _OrderStatistics,
    fitted: Mapping[int, tuple[Any, Problem | None]],
) -> Problem | None:
    """Complete ``params`` (in place) with the fitted parameters; the problem that leaves the
    measure undefined, if any (a parameter missing, no relevance, a fit that failed)."""
    failure = skip
    if "relevance" in form.params and relevance is None:
        failure = (
            relevance_failure
            or wanted.fit_problem
            or Problem("undefined", "no relevance: y gives no box-plot relevance")
        )
    for name, fit in form.fitted.items():
        if name in params:
            continue
        if wanted.fit_problem is not None:
            failure = failure or wanted.fit_problem
            continue
        value, problem = fitted[id(fit)]
        if value is None:
            failure = failure or problem
        else:
            params[name] = value
    return failure


def _sums_pass(
    dask: Any,
    frame: Any,
    jobs: Sequence[_Job],
    keys: Sequence[tuple[str, str]],
    *,
    weight: str | None,
    n: int,
    bootstrap: dict[str, Any] | None,
    values: dict[str, dict[str, float]],
    problems: dict[str, dict[str, Problem]],
) -> dict[str, dict[str, np.ndarray]]:
    """One pass over the partitions for every job: each measure's value (and, with
    ``bootstrap``, its Poisson replicates, returned as model -> measure -> replicates)."""
    replicates: dict[str, dict[str, np.ndarray]] = {}
    delayed = frame.to_delayed()
    offsets = [0] * len(delayed) if bootstrap is None else list(bootstrap["offsets"])
    parts = dask.compute(
        *[
            dask.delayed(sums_partition)(p, weight, jobs, bootstrap, int(offset))
            for p, offset in zip(delayed, offsets, strict=True)
        ]
    )
    for p in parts:
        if p and isinstance(p[0], dict):
            raise ValueError(
                f"column {p[0]['bad']!r} holds missing or non-finite values; drop or fill "
                "them first"
            )
    part_rows = [p[-1] for p in parts]  # each partition's last entry: its number of rows
    for j, (job, (name, model)) in enumerate(zip(jobs, keys, strict=True)):
        pieces = [p[j] for p in parts if p[j] is not None]
        failed = whole_failure([p[j] for p in parts], part_rows)
        if failed is not None:
            values[model][name] = math.nan
            problems[model][name] = exception_problem(failed)
            continue
        form = job.spec.capabilities.sums
        assert form is not None
        if job.boot:
            boot_sums = np.sum([x[1] for x in pieces], axis=0)  # (B, m)
            pieces = [x[0] for x in pieces]
            replicates.setdefault(model, {})[name] = np.array(
                [score_quietly(form.finalize, s, n, **job.params)[0] for s in boot_sums]
            )
        sums = np.array([math.fsum(float(x[i]) for x in pieces) for i in range(len(pieces[0]))])
        value, problem = score_quietly(form.finalize, sums, n, **job.params)
        values[model][name] = value
        if problem is not None:
            problems[model][name] = problem
    return replicates


def evaluate_claimed(
    dask: Any,
    frame: Any,
    claimed: Claimed,
    *,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    intervals: Mapping[str, tuple[str, str]],
    context: dict[str, Any],
    n: int,
    n_rows: int,
    total_w: float,
    n_buckets: int,
    sample_y: np.ndarray,
    sample_p: dict[str, np.ndarray],
    values: dict[str, dict[str, float]],
    problems: dict[str, dict[str, Problem]],
    info: dict[str, dict[str, Any]],
    settings: dict[str, Any],
    bootstrap: dict[str, Any] | None = None,
    used: dict[str, Any] | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    """Compute the claimed measures into ``values`` / ``problems`` / ``info`` (in place);
    ``used["relevance"]`` receives the relevance function of the utility measures (given, or
    the default box plot's), where one was built, and ``used["fitted"]`` the parameters fitted
    from order statistics of ``y`` (``id`` of the fit -> (value or None, problem)).

    Reads: one two-pass selection for every order statistic wanted (the default relevance's
    box plot, the fitted parameters, the medians), then one pass for all the sums. With
    ``bootstrap`` (``reps``, ``seed``, ``offsets`` of the partitions, ``groups``): the Poisson
    replicates of the sums measures whose parameters are all given or fixed on the full sample
    (the relevance, as ``evaluate_models`` binds it; not a fitted accuracy, refitted per
    replicate in memory), from the same pass; returned as model -> measure -> replicates.
    """
    if not claimed.sums and not claimed.medians:
        return {}
    for model in intervals:
        values.setdefault(model, {})
        problems.setdefault(model, {})
    wanted = _order_statistics(
        claimed,
        y=y,
        preds=preds,
        weight=weight,
        context=context,
        n=n,
        total_w=total_w,
        sample_y=sample_y,
        sample_p=sample_p,
    )
    found = select(dask, frame, wanted.targets, wanted.samples, n_buckets) if wanted.targets else []
    relevance, relevance_failure = _relevance(found, wanted, context, n, weight, settings)
    fitted: dict[int, tuple[Any, Problem | None]] = {
        key: call_quietly(fit.build, found[where]) for key, (fit, where) in wanted.fits.items()
    }
    if used is not None:  # the fitted parameters, for the curves that take them too
        used["fitted"] = dict(fitted)
        used["relevance"] = relevance

    # the sums pass: every (measure, model) whose parameters are known
    full = {**context, "relevance": relevance}
    jobs: list[_Job] = []
    keys: list[tuple[str, str]] = []
    for spec in claimed.sums:
        form = spec.capabilities.sums
        assert form is not None
        interval = spec.inputs == "interval"
        info[spec.name] = metric_info(spec, full)
        for model in list(intervals) if interval else list(preds):
            local = full if interval else model_context(full, None)
            kwargs, skip = fit_kwargs(spec.func, 3 if interval else 2, local)
            params = {k: v for k, v in kwargs.items() if k in form.params}
            failure = _job_parameters(
                form, params, skip, relevance, relevance_failure, wanted, fitted
            )
            if failure is not None:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = failure
                continue
            columns = (y, *intervals[model]) if interval else (y, model)
            fixed = not any(name in form.fitted and context.get(name) is None for name in params)
            jobs.append(_Job(spec, columns, params, boot=bootstrap is not None and fixed))
            keys.append((spec.name, model))
    replicates: dict[str, dict[str, np.ndarray]] = {}
    if jobs:
        replicates = _sums_pass(
            dask,
            frame,
            jobs,
            keys,
            weight=weight,
            n=n,
            bootstrap=bootstrap,
            values=values,
            problems=problems,
        )
    for spec in claimed.medians:
        info[spec.name] = metric_info(spec)
        for model in preds:
            got = found[wanted.medians[(spec.name, model)]]
            values[model][spec.name] = got[0] if len(got) == 1 else midpoint(got[0], got[1])
    return replicates


def add_replicates(
    result: dict[str, Any], replicates: dict[str, dict[str, np.ndarray]], level: float
) -> None:
    """Add the sums measures' replicates and percentile intervals to the engine's bootstrap
    result (in place)."""
    from ranklens._inference.resampling import percentile_interval

    for model, by_name in replicates.items():
        for name, reps in by_name.items():
            result["replicates"].setdefault(model, {})[name] = reps
            finite = reps[np.isfinite(reps)]
            result["intervals"].setdefault(model, {})[name] = (
                tuple(float(v) for v in percentile_interval(finite, level))
                if finite.size >= 2
                else (math.nan, math.nan)
            )


def poisson_seed(random_state: int | None) -> int:
    """The seed of the Poisson replicate weights that :func:`ranklens.compare_models` with
    ``scheme="poisson"`` uses for ``random_state``: the first draw of the bootstrap's generator
    (the first of the two spawned from ``numpy.random.default_rng(random_state)``), so the
    engine's replicates are that function's, row for row."""
    boot_rng, _ = np.random.default_rng(random_state).spawn(2)
    return int(boot_rng.integers(0, 2**63, dtype=np.int64))
