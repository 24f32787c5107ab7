"""Curves from mergeable sums on Dask: REC, RROC and the utility-based precision-recall curve.

A registered curve that declares a :class:`ranklens._foundation.curve_registry.CurveSumsForm` is
built here at a bounded set of points, each exactly on the curve the in-memory function computes
from every row, with the in-memory result class (so the report's Displays draw it unchanged):

- the regression error characteristic curve (Bi & Bennett 2003): the share of cases within
  each tolerance, at tolerance 0, at the losses of evenly spaced order statistics of the
  engine's row sample and at the largest loss; the area over the curve is the exact mean loss;
- the regression ROC curve (Hernandez-Orallo 2013): total over- against under-estimation at
  the shifts that cancel the smallest error, the errors of evenly spaced order statistics of
  the sample, no error (the model's own point) and the largest error; its area
  ``W^2 var_w(e) / 2`` from the pieces' moments (Chan, Golub & LeVeque 1983);
- utility-based precision, recall and F over the event threshold (Torgo & Ribeiro 2009), at
  the in-memory curve's own fixed grid of thresholds, with the relevance the engine's utility
  measures use and their fitted default accuracy.

The sample only places the abscissae; the value at each is exact (counts as integers, float
sums to rounding). Every piece of the rows gives a summary of a few thousand numbers per model
and curve, added pairwise on the workers: the sums ride along the engine's bucket-grid pass
(one read of the data for both), so the curves cost no read of their own.

References
----------
Bi, J. and Bennett, K. P. (2003). Regression error characteristic curves. *Proceedings of the
20th International Conference on Machine Learning (ICML 2003)*, 43-50.
Hernandez-Orallo, J. (2013). ROC curves for regression. *Pattern Recognition* 46(12),
3395-3411.
Torgo, L. and Ribeiro, R. P. (2009). Precision and recall for regression. *Discovery Science
(DS 2009)*, LNCS 5808, 332-346.
Chan, T. F., Golub, G. H. and LeVeque, R. J. (1983). Algorithms for computing the sample
variance: analysis and recommendations. *The American Statistician* 37(3), 242-247.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens._foundation.curve_registry import CurveSumsForm, available_curves, get_curve
from ranklens._foundation.problems import Problem, call_quietly, exception_problem, fit_kwargs


@dataclasses.dataclass(frozen=True)
class Job:
    """One curve of one model: its registry name, form, abscissae and parameters."""

    name: str
    form: CurveSumsForm
    model: str
    grid: np.ndarray
    params: dict[str, Any]


def plan(
    context: Mapping[str, Any],
    fitted: Mapping[int, tuple[Any, Problem | None]],
    sample_y: np.ndarray,
    sample_p: Mapping[str, np.ndarray],
    problems: dict[str, dict[str, Problem]],
) -> tuple[list[Job], dict[str, str]]:
    """The jobs of every registered point curve that declares a sums form, as the in-memory
    pipeline decides which curves to compute (``evaluation._curve_results``): the curve's
    ``needs`` given, its ``fixed`` parameters over the task's; and the curves not built, with
    the reason (for ``extras["curves_not_built"]``).

    ``fitted`` holds the parameters the engine's measures fitted from order statistics of
    ``y`` (keyed by the ``id`` of their :class:`ranklens._foundation.forms.OrderStatisticFit`, with
    the problem of a failed fit). A curve whose parameter was not fitted because no measure asked
    for it is not built (the in-memory pipeline fits it for every run); one whose fit failed is
    recorded under ``problems[model]["<name> curve"]``, as the in-memory curve's failure is.
    """
    jobs: list[Job] = []
    not_built: dict[str, str] = {}
    for name in available_curves():
        spec = get_curve(name)
        form = spec.sums
        if form is None or spec.inputs != "point":
            continue
        missing = [key for key in spec.needs if context.get(key) is None]
        if spec.needs_any and all(context.get(key) is None for key in spec.needs_any):
            missing.append(" or ".join(spec.needs_any))
        if missing:
            not_built[name] = (
                f"needs {missing[0]}, which the Dask engine has where given or where a measure "
                "asked for uses it (in memory it is derived for every run)"
            )
            continue
        if spec.applies is not None:
            continue  # a test on every value of y: not made on pieces
        local = dict(context)
        for key, fixed in spec.fixed_with.items():
            if local.get(key) is not None:
                local.update(fixed)
        local.update(spec.fixed)
        kwargs, skip = fit_kwargs(spec.func, 2, local)
        if skip is not None:
            continue
        params = {k: v for k, v in kwargs.items() if k in form.params}
        failure: Problem | None = None
        for key, fit in form.fitted.items():
            if key in params:
                continue
            if id(fit) not in fitted:
                not_built[name] = (
                    f"its default {key} is fitted from order statistics of y with the measures "
                    "that take it, none of which was asked for"
                )
                break
            value, problem = fitted[id(fit)]
            if value is None:
                failure = failure or problem
            else:
                params[key] = value
        if name in not_built:
            continue
        for model, sp in sample_p.items():
            if failure is not None:
                problems.setdefault(model, {})[f"{name} curve"] = failure
                continue
            grid, problem = call_quietly(form.grid, sample_y, sp, **params)
            if grid is None:
                problems.setdefault(model, {})[f"{name} curve"] = problem  # type: ignore[assignment]
                continue
            jobs.append(Job(name, form, model, np.asarray(grid, dtype=np.float64), params))
    return jobs, not_built


#: Rows summarised at once inside a partition: the per-row temporaries stay near 8 MB each
#: however large the partition's file.
BLOCK_ROWS = 1 << 20


def partition(part: Any, y: str, weight: str | None, jobs: Sequence[Job]) -> list[Any]:
    """Every job's summary of one partition (None without rows of positive weight; the
    exception the curve raised on these rows, to report it), its rows taken in blocks of
    :data:`BLOCK_ROWS` whose summaries are merged."""
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    wv = None if weight is None else np.ascontiguousarray(part[weight].to_numpy(dtype=np.float64))
    columns: dict[str, np.ndarray] = {}
    out: list[Any] = []
    for job in jobs:
        if job.model not in columns:
            columns[job.model] = np.ascontiguousarray(part[job.model].to_numpy(dtype=np.float64))
        summary: Any = None
        for start in range(0, yv.size, BLOCK_ROWS):
            rows = slice(start, start + BLOCK_ROWS)
            w = None if wv is None else wv[rows]
            if w is not None and not (w > 0).any():
                continue
            try:
                with np.errstate(all="ignore"):
                    piece = job.form.partial(
                        yv[rows], columns[job.model][rows], w, job.grid, **job.params
                    )
            except Exception as exc:  # the curve's own checks, reported as in memory
                summary = exc
                break
            if piece is not None:
                summary = piece if summary is None else job.form.merge(summary, piece)
        out.append(summary)
    return out


def merge(a: list[Any], b: list[Any], jobs: Sequence[Job]) -> list[Any]:
    """Two partitions' summaries added, job by job (the first exception kept)."""
    out = []
    for job, u, v in zip(jobs, a, b, strict=True):
        if isinstance(u, Exception) or v is None:
            out.append(u)
        elif isinstance(v, Exception) or u is None:
            out.append(v)
        else:
            out.append(job.form.merge(u, v))
    return out


def reduced(dask: Any, frame: Any, y: str, weight: str | None, jobs: Sequence[Job]) -> list[Any]:
    """The delayed summary of all partitions (a one-element list; empty without jobs), added
    pairwise on the workers. Computed with the engine's bucket-grid pass, it shares that pass's
    read of every partition."""
    if not jobs:
        return []
    level = [dask.delayed(partition)(part, y, weight, jobs) for part in frame.to_delayed()]
    while len(level) > 1:
        pairs = zip(level[::2], level[1::2], strict=False)
        level = [dask.delayed(merge)(u, v, jobs) for u, v in pairs] + level[len(level) // 2 * 2 :]
    return level


def finish(
    jobs: Sequence[Job],
    summaries: Sequence[Any],
    not_built: Mapping[str, str],
    curves: dict[str, dict[str, Any]],
    problems: dict[str, dict[str, Problem]],
    extras: dict[str, Any],
) -> None:
    """Build every job's curve into ``curves[name][model]`` (its problems, as the in-memory
    pipeline words them, in ``problems[model]["<name> curve"]``); per curve built, where its
    points lie in ``extras["curve_points"]``, and the curves not built (:func:`plan`) in
    ``extras["curves_not_built"]``."""
    points: dict[str, str] = {}
    for job, summary in zip(jobs, summaries, strict=True):
        key = f"{job.name} curve"
        if isinstance(summary, Exception):
            problems.setdefault(job.model, {})[key] = exception_problem(summary)
            continue
        if summary is None:
            problems.setdefault(job.model, {})[key] = Problem(
                "undefined", "no rows of positive weight"
            )
            continue
        result, problem = call_quietly(job.form.finish, summary, job.grid, **job.params)
        if result is not None:
            curves.setdefault(job.name, {})[job.model] = result
            points[job.name] = job.form.points
        if problem is not None:
            problems.setdefault(job.model, {})[key] = problem
    if points:
        extras["curve_points"] = points
    if not_built:
        extras.setdefault("curves_not_built", {}).update(not_built)
