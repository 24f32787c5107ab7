"""A time budget for the bootstrap of an evaluation that is a real bound, not a hope.

``ranklens evaluate --bootstrap-budget S`` (``evaluate_models(bootstrap_budget_s=S)``) bounds the
wall time of the bootstrap part: the timing done here, the comparison of the measures
(:func:`ranklens.compare_models`) and the curve bands (:func:`ranklens.curve_bands`).

1. **Compile first, outside the budget.** The comparison and the bands run once on a tiny sample
   of the rows (two replicates), so that every kernel they use is compiled (or loaded from the
   cache) before anything is timed. A first run used to time the compilation and conclude, at
   n = 500, that the bands would take minutes. A small comparison that will resample on the NumPy
   twins (:func:`ranklens._resampling.prefer_numpy_twins`: their kernels have no machine code in
   the process and compiling them would cost more than the whole run) is compiled and timed on
   those twins, as it will run: its resampling and rank-sweep kernels are not compiled for it.
2. **Time real replicates.** At the real n, a block of replicates is evaluated by every fast path
   of the comparison and by each measure that is called once per replicate, the resampling itself
   is timed, and the bands run a few replicates. Each is timed on its second run, so that a
   parallel driver compiled on the way does not count.
3. **Fit the budget, in order of priority.** The measures with a vectorised kernel (the headline
   measures of Rosset, Perlich & Zadrozny 2005, Table 2, among them) come first; when even they do
   not fit at the requested number of replicates, the replicates are reduced (down to
   :data:`MIN_REPLICATES`, below which the bootstrap is skipped; the other batched measures
   then wait with the per-replicate ones). Then the bands, then the per-replicate measures,
   cheapest first, join while the estimate stays within :data:`SAFETY` of what is left of the
   budget.

The plan says what it reduced or skipped and why (:meth:`BootstrapPlan.notes`), and the caller
records the time the bootstrap took against the budget.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ranklens import _resampling, compare
from ranklens._registry import RankSweepForm, RatioForm
from ranklens._resampling import jackknife_rows
from ranklens._xp.band_routes import routed_as
from ranklens.bands import curve_bands
from ranklens.compare import compare_models

__all__ = ["MIN_REPLICATES", "SAFETY", "BootstrapPlan", "plan_bootstrap"]

#: Fewer replicates than this give intervals too rough to report: the bootstrap is skipped.
MIN_REPLICATES = 100

#: The plan fills at most this share of the budget left after timing (single timings on a busy
#: machine are off by 10-20%; the bound is the whole budget).
SAFETY = 0.8

#: Rows of the tiny sample the kernels are compiled on.
_COMPILE_ROWS = 48

#: Replicates timed per fast path (and for the bands).
_TIMED_ROWS = 4
#: ... and from ``compare._LEVEL_MIN_N`` rows on, a whole block of the level sweep (its batch,
#: ``ranklens._kernels.rank_levels.LEVEL_BATCH``, whose module imports numba).
_LEVEL_TIMED_ROWS = 32


def _evaluate_as_the_run(evaluator: Any, block: np.ndarray) -> np.ndarray:
    """One block as the bootstrap evaluates it: with its uint8 lanes on large data (made here
    for each evaluator, so an evaluator's time includes them)."""
    from ranklens import compare

    return compare._evaluate_one(evaluator, compare._Block(block))


@dataclasses.dataclass
class BootstrapPlan:
    """What the bootstrap will do within the budget, and what it reduced or skipped.

    Attributes
    ----------
    metrics : list of MetricSpec
        Measures to bootstrap, in the order given.
    n_bootstrap, requested : int
        Replicates to run, and replicates asked for.
    bands : tuple of str
        Curves whose bands fit.
    left_out : list of str
        Measures not bootstrapped (over the budget).
    skipped_bands : dict
        Curve -> why its bands were skipped.
    skipped : str or None
        Why nothing is bootstrapped (even the fastest measures at the fewest replicates are over
        the budget), else None.
    estimate_s : float
        Estimated seconds of the comparison and the bands.
    budget_s, planning_s, compile_s : float
        The budget; seconds spent timing replicates (inside the budget); seconds spent
        compiling on the tiny sample (outside it).
    run_s : float
        Seconds the comparison and the bands took (added by the caller as they run).
    """

    metrics: list[Any]
    n_bootstrap: int
    requested: int
    bands: tuple[str, ...] = ()
    left_out: list[str] = dataclasses.field(default_factory=list)
    skipped_bands: dict[str, str] = dataclasses.field(default_factory=dict)
    skipped: str | None = None
    estimate_s: float = 0.0
    budget_s: float = math.inf
    planning_s: float = 0.0
    compile_s: float = 0.0
    run_s: float = 0.0

    def time_note(self) -> str:
        """The ``settings`` entry of the time taken: the run against the budget and the plan."""
        taken = self.planning_s + self.run_s
        if math.isinf(self.budget_s):
            return f"{taken:.1f} s (no time budget)"
        return (
            f"{taken:.1f} s of the {self.budget_s:g} s budget (timing {self.planning_s:.1f} s, "
            f"planned run {self.estimate_s:.1f} s); compiling the kernels on a small sample "
            f"beforehand took {self.compile_s:.1f} s, outside the budget"
        )

    def notes(self) -> dict[str, str]:
        """``settings`` entries saying what was reduced or skipped to meet the budget."""
        out: dict[str, str] = {}
        if self.skipped is not None:
            out["bootstrap (time budget)"] = f"skipped: {self.skipped}"
            return out
        if self.n_bootstrap < self.requested:
            out["bootstrap replicates (time budget)"] = (
                f"{self.n_bootstrap} of the {self.requested} requested, to fit the "
                f"{self.budget_s:g} s budget"
            )
        if self.left_out:
            out["not bootstrapped (time budget)"] = ", ".join(sorted(self.left_out))
        for curve, why in self.skipped_bands.items():
            out[f"{curve} bands"] = f"skipped: {why}"
        return out


@dataclasses.dataclass
class _Costs:
    """Measured seconds: fixed per run, and per replicate row."""

    values: dict[int, float]  # point value of metric k, all models
    build: float  # building the fast paths (their sort, their check on the full sample)
    resample: float  # one bootstrap row: random indices and multiplicities
    group_of: dict[int, int]  # metric position -> fast path (generic ones: absent)
    group_row: dict[int, float]  # fast path -> seconds per row, all its metrics and models
    generic_row: dict[int, float]  # metric position -> seconds per row, all models
    band_fixed: dict[str, float]
    band_row: dict[str, float]


def _timed(func: Callable[[], Any]) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def _quietly(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``, or None when it raises; warnings silenced (timing runs only)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return func(*args, **kwargs)
        except Exception:  # the real run records any failure; a timing run only measures
            return None


def _twins(n: int, rows: int, specs: Sequence[Any], n_models: int) -> bool:
    """Whether the comparison of ``specs`` on ``n`` rows, ``rows`` replicate rows, will resample
    on the NumPy twins (the rule :func:`ranklens.compare_models` applies to its multinomial
    bootstrap, asked now, before anything here compiles the kernels it weighs) because its
    kernels would have to be compiled (not in numba's cache)."""
    forms = [spec.capabilities.batched for spec in specs]
    rank = any(isinstance(f, RankSweepForm) for f in forms)
    ratio = any(isinstance(f, RatioForm) for f in forms)
    if not _resampling.prefer_numpy_twins(n, rows, n_models if rank else 0, ratio):
        return False
    if "numba" not in sys.modules:
        # The twins cost less than importing numba and loading the kernels (what the rule
        # weighed): asking numba's cache would import numba for nothing.
        return True
    # Only in place of compiling: kernels in numba's cache load in a fraction of a second here,
    # outside the budget, and the real run then has them (the plan as before this rule).
    from ranklens._cache import is_compiled
    from ranklens._kernels import compare as _kc

    needed: list[Any] = [_kc.multiplicities_serial]
    needed += [_kc.weighted_loss_sums_serial] if ratio else []
    needed += [_kc.rank_batches_serial] if rank else []
    return not all(is_compiled(k) for k in needed)


def _compile(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    specs: Sequence[Any],
    weight: np.ndarray | None,
    band_curves: Sequence[str],
    band_kwargs: Mapping[str, Mapping[str, Any]],
    interval: str,
    twins: bool = False,
    rows_real: int = 0,
) -> None:
    """Run the comparison and the bands on a tiny sample: every kernel they use gets compiled
    (with ``twins``, every kernel but those the NumPy twins stand in for)."""
    n = y.shape[0]
    rows = np.unique(np.linspace(0, n - 1, min(n, _COMPILE_ROWS)).round().astype(np.int64))
    small = {name: pred[rows] for name, pred in preds.items()}
    small_weight = None if weight is None else weight[rows]
    # Not the NumPy twins of a small first call, unless the real run takes them too; the band
    # grids likewise take the route of the real n (their NumPy forms stand in below a size; the
    # rule is asked without importing the grid kernels, ranklens._xp.band_routes).
    forced = contextlib.nullcontext() if twins else _resampling.kernels_only()
    with forced, routed_as(n):
        _quietly(
            compare_models,
            y[rows],
            small,
            metrics=list(specs),
            n_bootstrap=2,
            interval=interval,
            random_state=0,
            sample_weight=small_weight,
            show_progress=False,
        )
    with routed_as(n), _resampling.draws_as(n, rows_real):
        for curve in band_curves:
            _quietly(
                curve_bands,
                y[rows],
                small,
                curve=curve,
                n_bootstrap=2,
                random_state=0,
                sample_weight=small_weight,
                show_progress=False,
                **band_kwargs.get(curve, {}),
            )


def _measure(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    specs: Sequence[Any],
    weight: np.ndarray | None,
    band_curves: Sequence[str],
    band_kwargs: Mapping[str, Mapping[str, Any]],
    total_rows: int,
    twins: bool = False,
) -> _Costs:
    """Time each part of the run at the real n (kernels compiled already; with ``twins``, the
    resampling and the fast paths on the NumPy twins, as the real run will take them)."""
    n = y.shape[0]
    names = list(preds)
    matrix = np.stack([preds[name] for name in names])
    values_of: dict[int, float] = {}
    values = np.full((len(specs), len(names)), math.nan)
    with _resampling.quiet():
        for k, spec in enumerate(specs):
            start = time.perf_counter()
            for m, pred in enumerate(matrix):
                try:
                    values[k, m] = compare._point_value(spec, y, pred, weight)
                except Exception:  # the real run records it; here it only costs time
                    values[k, m] = math.nan
            values_of[k] = time.perf_counter() - start

    rng = np.random.default_rng(0)
    # the drivers (or the twins) the real run will choose
    with _resampling.run_rows(total_rows), _resampling.numpy_twins(twins):
        start = time.perf_counter()
        evaluators = _quietly(compare._build_evaluators, list(specs), y, matrix, weight, values)
        build = time.perf_counter() - start
        # A first block may compile the parallel driver: not timed. The rank sweep on level
        # orders costs a block of 32 replicates whatever fewer it has: time a whole one there.
        timed_rows = _TIMED_ROWS if n <= compare._LEVEL_MIN_N else _LEVEL_TIMED_ROWS
        compact = compare._compact_blocks(n)  # as the run draws them
        next(_resampling.bootstrap_blocks(rng, n, timed_rows, compact=compact))
        start = time.perf_counter()
        block = next(_resampling.bootstrap_blocks(rng, n, timed_rows, compact=compact))
        resample = (time.perf_counter() - start) / block.shape[0]

        group_of: dict[int, int] = {}
        group_row: dict[int, float] = {}
        generic_row: dict[int, float] = {}
        for g, evaluator in enumerate(evaluators or []):
            if evaluator.path == "generic":
                continue
            with _resampling.quiet():
                _evaluate_as_the_run(evaluator, block)  # compile / warm
                seconds = _timed(functools.partial(_evaluate_as_the_run, evaluator, block))
            group_row[g] = seconds / block.shape[0]
            for k in evaluator.positions:
                group_of[k] = g
        for k, spec in enumerate(specs):
            if k in group_of:
                continue
            one = compare._GenericEvaluator([k], [spec], y, matrix, weight)
            with _resampling.quiet():
                seconds = _timed(functools.partial(one.evaluate, block[:1]))
                if seconds < 0.02:  # fast: time a few rows for a steadier figure
                    seconds = _timed(functools.partial(one.evaluate, block)) / block.shape[0]
            generic_row[k] = seconds

    band_fixed: dict[str, float] = {}
    band_row: dict[str, float] = {}
    for curve in band_curves:

        def bands(replicates: int, curve: str = curve) -> float:
            with _resampling.draws_as(y.shape[0], total_rows):  # the real run's multiplicities
                return _timed(
                    lambda: _quietly(
                        curve_bands,
                        y,
                        dict(preds),
                        curve=curve,
                        n_bootstrap=replicates,
                        random_state=0,
                        sample_weight=weight,
                        show_progress=False,
                        **band_kwargs.get(curve, {}),
                    )
                )

        # Two runs: the bands' fixed part (each model's curve on the full sample, the grid, the
        # simultaneous band) outweighs a replicate at small n, so one run cannot tell them apart.
        few, more = bands(2), bands(2 + 2 * _TIMED_ROWS)
        band_row[curve] = max(more - few, 0.0) / (2 * _TIMED_ROWS)
        band_fixed[curve] = max(few - 2 * band_row[curve], 0.0)
    return _Costs(
        values_of, build, resample, group_of, group_row, generic_row, band_fixed, band_row
    )


def _compare_seconds(costs: _Costs, chosen: Sequence[int], replicates: int, jack: int) -> float:
    """Estimated seconds of ``compare_models`` on the metrics at positions ``chosen``."""
    groups = {costs.group_of[k] for k in chosen if k in costs.group_of}
    per_row = sum(costs.group_row[g] for g in groups)
    per_row += sum(costs.generic_row[k] for k in chosen if k not in costs.group_of)
    fixed = sum(costs.values[k] for k in chosen) + (costs.build if groups else 0.0)
    return fixed + replicates * (per_row + costs.resample) + jack * per_row


def _band_seconds(costs: _Costs, curve: str, replicates: int) -> float:
    return costs.band_fixed[curve] + replicates * (costs.band_row[curve] + costs.resample)


def plan_bootstrap(
    y: np.ndarray,
    preds: Mapping[str, np.ndarray],
    specs: Sequence[Any],
    weight: np.ndarray | None,
    *,
    n_bootstrap: int,
    budget_s: float,
    headline: Sequence[str] = (),
    band_curves: Sequence[str] = (),
    band_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    interval: str = "bca",
) -> BootstrapPlan:
    """The measures, replicates and bands that fit ``budget_s`` (see the module docstring).

    Parameters
    ----------
    y, preds, weight
        The evaluated truth, predictions by model and case weights (validated arrays).
    specs : sequence of MetricSpec
        Measures the bootstrap can compare (defined for every model).
    n_bootstrap : int
        Replicates requested.
    budget_s : float
        Seconds for the timing, the comparison and the bands together (``inf``: no bound).
    headline : sequence of str
        Measures that come first whatever their cost.
    band_curves : sequence of str
        Curves whose bootstrap bands are wanted, in order of priority.
    band_kwargs : mapping, optional
        Extra keyword arguments of :func:`ranklens.curve_bands` per curve.
    interval : {"bca", "percentile"}
        The comparison's interval (BCa adds a jackknife of ``min(n, 100)`` rows below a
        million rows, none above: :func:`ranklens._resampling.jackknife_rows`).
    """
    band_kwargs = dict(band_kwargs or {})
    specs = list(specs)
    requested = int(n_bootstrap)
    if not specs and not band_curves:
        return BootstrapPlan([], requested, requested, budget_s=budget_s)
    if math.isinf(budget_s):  # no bound: nothing to time
        return BootstrapPlan(specs, requested, requested, tuple(band_curves), budget_s=budget_s)

    start = time.perf_counter()
    jack = jackknife_rows(y.shape[0], interval)
    twins = bool(specs) and _twins(y.shape[0], requested + jack, specs, len(preds))
    _compile(y, preds, specs, weight, band_curves, band_kwargs, interval, twins, requested)
    compiled = time.perf_counter()
    costs = _measure(y, preds, specs, weight, band_curves, band_kwargs, requested + jack, twins)
    planning_s = time.perf_counter() - compiled
    room = SAFETY * max(budget_s - planning_s, 0.0)
    plan = BootstrapPlan(
        [],
        requested,
        requested,
        budget_s=budget_s,
        planning_s=planning_s,
        compile_s=compiled - start,
    )

    # 1. The fast paths and the headline measures: their replicates are reduced to fit. When
    # they do not all fit at the requested replicates, the fast paths that hold no headline
    # measure wait with the per-replicate measures (after the bands): the headline measures keep
    # their replicates rather than sharing them with every batched measure.
    core = [k for k, spec in enumerate(specs) if k in costs.group_of or spec.name in headline]
    if core and _compare_seconds(costs, core, requested, jack) > room:
        head_groups = {
            costs.group_of[k]
            for k, spec in enumerate(specs)
            if spec.name in headline and k in costs.group_of
        }
        core = [
            k for k in core if specs[k].name in headline or costs.group_of.get(k) in head_groups
        ]
    optional = [k for k in range(len(specs)) if k not in core]
    replicates = requested
    if core and _compare_seconds(costs, core, replicates, jack) > room:
        per_replicate = _compare_seconds(costs, core, 1, 0) - _compare_seconds(costs, core, 0, 0)
        fixed = _compare_seconds(costs, core, 0, jack)
        replicates = int((room - fixed) / per_replicate) if per_replicate > 0 else requested
        replicates = min(replicates, requested)
        if replicates < min(MIN_REPLICATES, requested):
            need = _compare_seconds(costs, core, min(MIN_REPLICATES, requested), jack)
            plan.skipped = (
                f"even {min(MIN_REPLICATES, requested)} replicates of the fastest measures "
                f"take about {need:.0f} s at n = {y.shape[0]}, over the {budget_s:g} s budget"
            )
            plan.left_out = [spec.name for spec in specs]
            plan.skipped_bands = {c: "the bootstrap was skipped" for c in band_curves}
            return plan
    plan.n_bootstrap = replicates
    spent = _compare_seconds(costs, core, replicates, jack) if core else 0.0

    # 2. The bands, then 3. the per-replicate measures, cheapest first, while they fit.
    bands = []
    for curve in band_curves:
        cost = _band_seconds(costs, curve, replicates)
        if spent + cost <= room:
            bands.append(curve)
            spent += cost
        else:
            plan.skipped_bands[curve] = (
                f"about {cost:.0f} s at n = {y.shape[0]}, over what the {budget_s:g} s budget "
                "leaves after the comparison"
            )
    chosen = list(core)
    base = _compare_seconds(costs, chosen, replicates, jack) if chosen else 0.0
    for k in sorted(optional, key=lambda k: costs.generic_row.get(k, 0.0)):
        extra = _compare_seconds(costs, [*chosen, k], replicates, jack) - base
        if spent + extra <= room:
            chosen.append(k)
            spent += extra
            base += extra
        else:
            plan.left_out.append(specs[k].name)
    plan.metrics = [specs[k] for k in sorted(chosen)]
    plan.bands = tuple(bands)
    plan.estimate_s = spent
    return plan
