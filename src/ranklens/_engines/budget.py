"""A time budget for the bootstrap of an evaluation that is a real bound, not a hope.

``ranklens evaluate --bootstrap-budget S`` (``evaluate_models(bootstrap_budget_s=S)``) bounds the
wall time of the bootstrap part: the timing done here (the planning), the comparison of the
measures (:func:`ranklens.compare_models`) and the curve bands (:func:`ranklens.curve_bands`).
Compiling the kernels (step 1) is outside it, and said so in the result's ``settings``.

1. **Compile first, outside the budget, on a sample that takes the real run's route.** The
   comparison and the bands run once on a sample of :func:`route_rows` rows (the whole data up to
   ``ranklens._foundation.route.POLICY.level_sweep_above + 1`` rows, else that many: every size rule
   of the measures and of the bootstrap, 2^15 rows, is past), with the drivers of the real run
   (:func:`ranklens._inference.resampling.draws_as`,
   :func:`ranklens._compute.xp.band_routes.routed_as`): the measures' weighted kernels, the sweeps,
   the level sweep of the rank measures, its uint8 lanes and loss sums (a whole block of
   :func:`ranklens._inference.resampling.compact_block_rows` replicates) and, from
   :data:`ranklens._inference.resampling.BCA_JACKKNIFE_BELOW` rows on, the weight per jackknife
   group are compiled (or loaded from numba's cache) there. A sample of 48 rows used to compile only
   the small-n kernels, and a million rows then compiled the rest inside the timing. A small
   comparison that will resample on the NumPy twins
   (:func:`ranklens._inference.resampling.prefer_numpy_twins`) is compiled and timed on them.
2. **Time, within a deadline.** Planning may take :data:`PLANNING_SHARE` of the budget. Every
   part is timed first on the compile sample (cheap, kernels warm), then again, in order of
   priority (the resampling and the vectorised paths, the bands, the per-replicate measures) on
   the largest sample of ``n / 2^k`` rows whose predicted timing fits both what is left of the
   planning time and :data:`STEP_S` (so that progress is reported every few seconds); a part
   is extrapolated to ``n`` rows from its largest timing, by ``n log2 n``. A measure not timed
   when the deadline passes is left out, with that reason. Each timing is the second run of its
   part, so that a parallel driver compiled on the way does not count.
3. **Fit what is left of the budget, in order of priority.** The measures with a vectorised
   kernel (the headline measures of Rosset, Perlich & Zadrozny 2005, Table 2, among them) come
   first; when even they do not fit at the requested number of replicates, the replicates are
   reduced (down to :data:`MIN_REPLICATES`, below which the bootstrap is skipped; the other
   batched measures then wait with the per-replicate ones). Then the bands, then the
   per-replicate measures, cheapest first, join while the estimate stays within :data:`SAFETY`
   of what the planning left of the budget.

A comparison that would not fit the memory budget
(:func:`ranklens._inference.resampling.memory_budget`) is skipped before anything is timed, with the
reason. The plan says what it reduced or skipped and why (:meth:`BootstrapPlan.notes`), and the
caller records the time the bootstrap took against the budget. Progress goes to ``progress`` (the
pipeline's callback) before each step: ``"bootstrap: timing measures (5/26)"``. Timings:
docs/performance.md, "The bootstrap at scale".
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

from ranklens._compute.xp.band_routes import routed_as
from ranklens._foundation.forms import RankSweepForm, RatioForm, ReplicateForm
from ranklens._foundation.route import POLICY
from ranklens._foundation.shared import shared_results
from ranklens._inference import evaluators as _evaluators
from ranklens._inference import resampling as _resampling
from ranklens._inference.resampling import BootstrapMemoryError, jackknife_rows
from ranklens.bands import curve_bands
from ranklens.compare import compare_models

__all__ = [
    "MIN_REPLICATES",
    "PLANNING_SHARE",
    "SAFETY",
    "STEP_S",
    "BootstrapPlan",
    "plan_bootstrap",
    "route_rows",
]

#: Fewer replicates than this give intervals too rough to report: the bootstrap is skipped.
MIN_REPLICATES = 100

#: The plan fills at most this share of the budget left after timing (single timings on a busy
#: machine are off by 10-20%; the bound is the whole budget).
SAFETY = 0.8

#: Share of the budget the planning (the timing of step 2) may take.
PLANNING_SHARE = 0.25

#: Longest predicted timing step at a larger sample (seconds): progress every few seconds.
STEP_S = 4.0

#: A timing at a larger sample is run when its prediction, times this, fits what is left.
_PREDICTION_MARGIN = 1.5

#: Rows of the smallest sample the kernels are compiled on.
_COMPILE_ROWS = 48

#: Replicates timed per fast path (and for the bands).
_TIMED_ROWS = 4

ProgressCallback = Callable[[str], None]


def route_rows(n: int) -> int:
    """Rows of the sample the kernels are compiled (and first timed) on: all ``n`` up to
    ``POLICY.level_sweep_above + 1`` (every size rule of the measures and the bootstrap, 2^15 rows,
    is then past for the data that are), at least :data:`_COMPILE_ROWS`."""
    return min(n, max(_COMPILE_ROWS, POLICY.level_sweep_above + 1))


def _evaluate_as_the_run(evaluator: Any, block: np.ndarray) -> np.ndarray:
    """One block as the bootstrap evaluates it: with its uint8 lanes on large data (made here
    for each evaluator, so an evaluator's time includes them)."""
    return _evaluators.evaluate_one(evaluator, _evaluators.Block(block))


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
        Measures not bootstrapped (over the budget, or not timed by the planning deadline).
    skipped_bands : dict
        Curve -> why its bands were skipped.
    skipped : str or None
        Why nothing is bootstrapped (even the fastest measures at the fewest replicates are over
        the budget, or the comparison does not fit the memory budget), else None.
    estimate_s : float
        Estimated seconds of the comparison and the bands.
    budget_s, planning_s, compile_s : float
        The budget; seconds spent timing (inside the budget, at most :data:`PLANNING_SHARE` of
        it but for the step under way); seconds spent compiling on the sample (outside it).
    run_s : float
        Seconds the comparison and the bands took (added by the caller as they run).
    untimed : dict
        Measure -> why it was not timed (the planning deadline passed first).
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
    untimed: dict[str, str] = dataclasses.field(default_factory=dict)

    def time_note(self) -> str:
        """The ``settings`` entry of the time taken: the run against the budget and the plan."""
        taken = self.planning_s + self.run_s
        if math.isinf(self.budget_s):
            return f"{taken:.1f} s (no time budget)"
        return (
            f"{taken:.1f} s of the {self.budget_s:g} s budget (timing {self.planning_s:.1f} s, "
            f"planned run {self.estimate_s:.1f} s, run {self.run_s:.1f} s); compiling the "
            f"kernels on a sample beforehand took {self.compile_s:.1f} s, outside the budget"
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
        if self.untimed:
            out["not timed (time budget)"] = (
                f"{', '.join(sorted(self.untimed))}: the planning's share of the budget "
                f"({PLANNING_SHARE:.0%}) was spent first"
            )
        for curve, why in self.skipped_bands.items():
            out[f"{curve} bands"] = f"skipped: {why}"
        return out


@dataclasses.dataclass
class _Costs:
    """Seconds at the real n (extrapolated from the largest sample each part was timed on).

    The measures are timed in groups, each evaluated together in the run: the measures of one
    vectorised path (the loss sums, the rank sweep, one replicate sweep), or one measure called
    once per replicate.
    """

    values: dict[int, float] = dataclasses.field(default_factory=dict)  # point value of k
    group_of: dict[int, int] = dataclasses.field(default_factory=dict)  # metric -> group
    build: dict[int, float] = dataclasses.field(default_factory=dict)  # group -> fixed
    row: dict[int, float] = dataclasses.field(default_factory=dict)  # group -> per replicate
    fast: set[int] = dataclasses.field(default_factory=set)  # groups on a vectorised path
    resample: float = 0.0  # one bootstrap row: random indices and multiplicities
    band_fixed: dict[str, float] = dataclasses.field(default_factory=dict)
    band_row: dict[str, float] = dataclasses.field(default_factory=dict)

    def timed(self, k: int) -> bool:
        """Whether metric ``k`` was timed (point value and replicates)."""
        return k in self.values and self.group_of.get(k, -1) in self.row


def _timed(func: Callable[[], Any], clock: Callable[[], float] = time.perf_counter) -> float:
    start = clock()
    func()
    return clock() - start


def _quietly(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``, or None when it raises; warnings silenced (timing runs only)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return func(*args, **kwargs)
        except BootstrapMemoryError:
            return None
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
    from ranklens._compute.kernels import compare as _kc
    from ranklens._foundation.cache import is_compiled

    needed: list[Any] = [_kc.multiplicities_serial]
    needed += [_kc.weighted_loss_sums_serial] if ratio else []
    needed += [_kc.rank_batches_serial] if rank else []
    return not all(is_compiled(k) for k in needed)


def _sample_rows(n: int, m: int) -> np.ndarray:
    """``m`` rows spread evenly over the ``n`` rows (all of them when ``m >= n``)."""
    if m >= n:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, m).round().astype(np.int64))


@dataclasses.dataclass
class _Data:
    """The evaluation's arrays, and their samples by size."""

    y: np.ndarray
    preds: dict[str, np.ndarray]
    weight: np.ndarray | None
    _samples: dict[int, tuple[np.ndarray, dict[str, np.ndarray], np.ndarray | None]] = (
        dataclasses.field(default_factory=dict)
    )

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    def sample(self, m: int) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray | None]:
        """``(y, preds, weight)`` on :func:`_sample_rows` ``(n, m)`` (kept for reuse)."""
        if m >= self.n:
            return self.y, self.preds, self.weight
        if m not in self._samples:
            rows = _sample_rows(self.n, m)
            weight = None if self.weight is None else self.weight[rows]
            preds = {name: pred[rows] for name, pred in self.preds.items()}
            self._samples[m] = (self.y[rows], preds, weight)
        return self._samples[m]


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
    data: _Data | None = None,
) -> None:
    """Run the comparison and the bands on the :func:`route_rows` sample as the real run will
    (its drivers and routes): every kernel they use gets compiled (with ``twins``, every kernel
    but those the NumPy twins stand in for). ``data``: the arrays' samples, kept for the
    timing."""
    data = _Data(y, dict(preds), weight) if data is None else data
    n = data.n
    m = route_rows(n)
    y, small, weight = data.sample(m)
    # Not the NumPy twins of a small first call, unless the real run takes them too; the band
    # grids likewise take the route of the real n (their NumPy forms stand in below a size; the
    # rule is asked without importing the grid kernels, ranklens._compute.xp.band_routes).
    forced = contextlib.nullcontext() if twins else _resampling.kernels_only()
    common = {"random_state": 0, "sample_weight": weight, "show_progress": False}
    with forced, routed_as(n), _resampling.draws_as(n, rows_real):
        # every measure, weighted by the replicates' multiplicities (percentile: no jackknife
        # evaluations of the per-replicate measures and the sweeps)
        _quietly(
            compare_models,
            y,
            small,
            metrics=list(specs),
            n_bootstrap=2,
            interval="percentile",
            **common,
        )
        lanes = (RatioForm, RankSweepForm)
        fast = [s for s in specs if isinstance(s.capabilities.batched, lanes)]
        if fast and m > POLICY.level_sweep_above:
            # a whole block of uint8 counts: the lanes, the loss sums and the level sweep of
            # the run (its jackknife's float64 blocks too, with BCa below a million rows)
            replicates = _resampling.compact_block_rows(m) + 1
            bca = interval != "percentile"
            with_bca = interval if bca and n < _resampling.BCA_JACKKNIFE_BELOW else "percentile"
            _quietly(
                compare_models,
                y,
                small,
                metrics=fast,
                n_bootstrap=replicates,
                interval=with_bca,
                **common,
            )
            if bca and n >= _resampling.BCA_JACKKNIFE_BELOW:
                _quietly(_group_sums, m)
    with routed_as(n), _resampling.draws_as(n, rows_real):
        for curve in band_curves:
            _quietly(
                curve_bands,
                y,
                small,
                curve=curve,
                n_bootstrap=2,
                **common,
                **band_kwargs.get(curve, {}),
            )


def _group_sums(m: int) -> None:
    """The replicates' weight per jackknife group from a block's lanes, as BCa's regression
    reads it from a million rows on (compiled here on ``m`` rows)."""
    rng = np.random.default_rng(0)
    block = next(
        _resampling.bootstrap_blocks(rng, m, _resampling.compact_block_rows(m), compact=True)
    )
    groups, n_groups = _resampling.jackknife_groups(rng, m)
    _evaluators.block_group_counts(_evaluators.Block(block), groups, n_groups)


class _Timer:
    """Timings at samples of the data, within the planning deadline, with progress."""

    def __init__(
        self,
        data: _Data,
        clock: Callable[[], float],
        deadline: float,
        progress: ProgressCallback | None,
    ) -> None:
        self.data = data
        self.clock = clock
        self.deadline = deadline
        self.progress = progress
        self.interval = "auto"  # the comparison's interval (its studentizer is timed too)
        self.scale: dict[str, int] = {}  # part -> rows of its largest timing
        self.blocks: dict[int, np.ndarray] = {}  # rows -> a block of replicate weights

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    def left(self) -> float:
        return self.deadline - self.clock()

    def factor(self, m: int) -> float:
        """``n log2 n / (m log2 m)``: a timing on m rows to the real n."""
        n = self.data.n
        return (n * math.log2(max(n, 2))) / (m * math.log2(max(m, 2)))

    def larger(self, predicted_at_n: float, part: str) -> int | None:
        """Rows of the largest sample ``n / 2^k`` (above the part's largest timing so far) whose
        predicted timing fits what is left of the deadline and :data:`STEP_S`, else None."""
        n, done = self.data.n, self.scale.get(part, 0)
        room = min(self.left(), STEP_S) / _PREDICTION_MARGIN
        m = n
        while m > done:
            if predicted_at_n / self.factor(m) <= room:
                return m
            m //= 2
        return None


def _fast_positions(specs: Sequence[Any]) -> list[int]:
    """Positions of the measures a vectorised path may evaluate (by their batched forms)."""
    kinds = (RatioForm, RankSweepForm, ReplicateForm)
    return [k for k, s in enumerate(specs) if isinstance(s.capabilities.batched, kinds)]


def _timing_groups(specs: Sequence[Any], headline: Sequence[str]) -> list[list[int]]:
    """The measures' positions in the groups the run evaluates together (the loss sums, the
    rank sweep, each replicate sweep; every other measure alone), those holding a headline
    measure first, then the vectorised ones, then the rest (the order of the timing)."""
    forms = [spec.capabilities.batched for spec in specs]
    groups = [
        [k for k, form in enumerate(forms) if isinstance(form, kind)]
        for kind in (RatioForm, RankSweepForm)
    ]
    groups += _evaluators.replicate_groups(forms)
    groups = [group for group in groups if group]
    grouped = {k for group in groups for k in group}
    groups += [[k] for k in range(len(specs)) if k not in grouped]

    def priority(group: list[int]) -> int:
        if any(specs[k].name in headline for k in group):
            return 0
        return 1 if group[0] in grouped else 2

    return sorted(groups, key=priority)


def _value_seconds(
    timer: _Timer,
    spec: Any,
    y: np.ndarray,
    matrix: np.ndarray,
    weight: np.ndarray | None,
    out: np.ndarray,
) -> float:
    """Seconds of the point value of ``spec`` for every model (values written to ``out``)."""
    start = timer.clock()
    with _resampling.quiet():
        for m, pred in enumerate(matrix):
            try:
                out[m] = _evaluators.point_value(spec, y, pred, weight)
            except Exception:  # the real run records it; here it only costs time
                out[m] = math.nan
    return timer.clock() - start


def _time_resampling(timer: _Timer, m: int, costs: _Costs, total_rows: int, twins: bool) -> None:
    """One bootstrap row's random indices and multiplicities, on m rows (as the run draws
    them: whole blocks of uint8 counts above the level sweep's threshold)."""
    rng = np.random.default_rng(0)
    with _resampling.run_rows(total_rows), _resampling.numpy_twins(twins):
        compact = _evaluators.compact_blocks(m)
        rows = _resampling.compact_block_rows(m) if compact else _TIMED_ROWS
        # A first block may compile the parallel driver: not timed.
        next(_resampling.bootstrap_blocks(rng, m, rows, compact=compact))
        start = timer.clock()
        block = next(_resampling.bootstrap_blocks(rng, m, rows, compact=compact))
        costs.resample = timer.factor(m) * (timer.clock() - start) / block.shape[0]
    timer.blocks[m] = block
    timer.scale["resampling"] = m


def _time_group(
    timer: _Timer,
    m: int,
    specs: Sequence[Any],
    group: list[int],
    g: int,
    costs: _Costs,
    total_rows: int,
    twins: bool,
) -> None:
    """On m rows (to the real n): the point values of a group's measures, the build of its
    evaluators (their sorts and their check on the full sample) and their cost per replicate
    (on a whole block of the run's size where they read its lanes, on a few of its rows where
    their cost is per replicate). Each evaluation is timed on its second run."""
    y, preds, weight = timer.data.sample(m)
    matrix = np.stack(list(preds.values()))
    f = timer.factor(m)
    values = np.full((len(group), matrix.shape[0]), math.nan)
    if m not in timer.blocks:
        _time_resampling(timer, m, costs, total_rows, twins)
    block = timer.blocks[m]
    # As compare_models computes them: the point values and the build sharing one sort (and
    # sweep) of each model's data (tau, rho and C from one sweep; the rank evaluator's orders).
    with shared_results():
        for j, k in enumerate(group):
            costs.values[k] = f * _value_seconds(timer, specs[k], y, matrix, weight, values[j])
        with _resampling.run_rows(total_rows), _resampling.numpy_twins(twins):
            start = timer.clock()
            evaluators = _quietly(
                _evaluators.build_evaluators, [specs[k] for k in group], y, matrix, weight, values
            )
            costs.build[g] = f * (timer.clock() - start)
    with _resampling.run_rows(total_rows), _resampling.numpy_twins(twins):
        row, fast = 0.0, False
        for evaluator in evaluators or []:
            fast |= evaluator.path != "generic"
            row += _row_seconds(timer, evaluator, block)
        fixed, per_row = _studentizer_seconds(timer, [specs[k] for k in group], block, total_rows)
        costs.build[g] += f * fixed
        row += per_row
    # What else the comparison does once (the analytic variances, the level orders, the
    # intervals, ...): a whole call with two replicates, less what was timed above, with the
    # intervals of the real n (no jackknife from a million rows on; the studentized ones only
    # up to _evaluators.STUDENTIZED_MAX_UNITS).
    interval = _interval_of(timer.interval, timer.data.n)
    whole = _timed(
        lambda: _quietly(
            compare_models,
            y,
            preds,
            metrics=[specs[k] for k in group],
            n_bootstrap=2,
            interval=interval,
            random_state=0,
            sample_weight=weight,
            show_progress=False,
        ),
        timer.clock,
    )
    jack = jackknife_rows(m, "percentile" if interval == "percentile" else "bca")
    timed = sum(costs.values[k] for k in group) / f + costs.build[g] / f + (2 + jack) * row
    costs.build[g] += f * max(whole - timed, 0.0)
    costs.row[g] = f * row
    if fast:
        costs.fast.add(g)
    for k in group:
        costs.group_of[k] = g
    timer.scale[f"group {g}"] = m


def _interval_of(interval: str, n: int) -> str:
    """The interval a sample's comparison takes to cost what the real one on n rows costs once:
    percentile from a million rows on (BCa's acceleration then needs no jackknife), BCa above
    the studentized intervals' unit limit, else the real one."""
    if interval == "percentile" or n >= _resampling.BCA_JACKKNIFE_BELOW:
        return "percentile"
    if n > _evaluators.STUDENTIZED_MAX_UNITS:
        return "bca"
    return interval


def _studentizer_seconds(
    timer: _Timer, specs: Sequence[Any], block: np.ndarray, total_rows: int
) -> tuple[float, float]:
    """``(fixed, per row)`` seconds of the comparison's studentized intervals of these
    measures (their per-unit columns, and one product per block of replicates), where the real
    run computes them (:func:`ranklens.compare_models`'s ``interval`` and unit rule); zeros
    elsewhere."""
    if timer.interval not in ("auto", "studentized"):
        return 0.0, 0.0
    if timer.data.n > _evaluators.STUDENTIZED_MAX_UNITS:
        return 0.0, 0.0
    m = block.shape[1]
    y, preds, weight = timer.data.sample(m)
    matrix = np.stack(list(preds.values()))
    pairs = [(a, b) for a in range(matrix.shape[0]) for b in range(a + 1, matrix.shape[0])]
    resampler = _resampling.Resampler("multinomial", m, None, y)
    start = timer.clock()
    student = _quietly(
        _evaluators.studentizer, list(specs), y, matrix, weight, resampler, pairs, total_rows
    )
    fixed = timer.clock() - start
    if student is None:
        return fixed, 0.0
    # a block of the run's rows (its cost is mostly one read of the columns per block)
    rows = min(total_rows, max(block.shape[0], _resampling.block_rows(m)))
    part = np.ones((rows, m), dtype=block.dtype)
    seconds = _timed(lambda: _quietly(student.add, part, 0), timer.clock)
    return fixed, seconds / rows


def _row_seconds(timer: _Timer, evaluator: Any, block: np.ndarray) -> float:
    """Seconds per replicate row of one evaluator, timed on its second run: a whole block where
    it reads the block's lanes (a sweep of fewer rows costs as much), else one row (a few when
    one is quick)."""
    lanes = isinstance(evaluator, _evaluators.LaneReader) and _evaluators.compact_blocks(
        block.shape[1]
    )
    part = block if lanes else block[:1]
    with _resampling.quiet():
        if evaluator.path != "generic":  # compile / warm (a measure's function: no warm-up)
            _evaluate_as_the_run(evaluator, part)
        seconds = _timed(functools.partial(_evaluate_as_the_run, evaluator, part), timer.clock)
        if not lanes and seconds < 0.02:  # fast: a few rows for a steadier figure
            part = block[:_TIMED_ROWS]
            seconds = _timed(functools.partial(_evaluate_as_the_run, evaluator, part), timer.clock)
    return seconds / part.shape[0]


def _time_band(
    timer: _Timer,
    m: int,
    curve: str,
    kwargs: Mapping[str, Any],
    costs: _Costs,
    total_rows: int,
) -> None:
    """The bands of ``curve`` on m rows: their fixed part and their cost per replicate."""
    y, preds, weight = timer.data.sample(m)

    def bands(replicates: int) -> float:
        with _resampling.draws_as(timer.data.n, total_rows):  # the real run's multiplicities
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
                    **kwargs,
                ),
                timer.clock,
            )

    # Two runs: the bands' fixed part (each model's curve on the full sample, the grid, the
    # simultaneous band) outweighs a replicate at small n, so one run cannot tell them apart.
    few, more = bands(2), bands(2 + 2 * _TIMED_ROWS)
    row = max(more - few, 0.0) / (2 * _TIMED_ROWS)
    f = timer.factor(m)
    costs.band_row[curve] = f * row
    costs.band_fixed[curve] = f * max(few - 2 * row, 0.0)
    timer.scale[f"band {curve}"] = m


def _names(specs: Sequence[Any], group: Sequence[int]) -> str:
    names = [specs[k].name for k in group]
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _measure(
    timer: _Timer,
    specs: Sequence[Any],
    headline: Sequence[str],
    band_curves: Sequence[str],
    band_kwargs: Mapping[str, Mapping[str, Any]],
    total_rows: int,
    twins: bool = False,
) -> _Costs:
    """Time every part on the compile sample, then again on larger samples while the deadline
    allows, in order of priority (module docstring); parts not timed by the deadline are
    absent from the costs. The groups of the headline measures are timed on the compile sample
    whatever the deadline (what the plan keeps first, or why it skips the bootstrap)."""
    costs = _Costs()
    first = route_rows(timer.data.n)
    groups = _timing_groups(specs, headline)
    first_of_all = {
        g for g, group in enumerate(groups) if any(specs[k].name in headline for k in group)
    }
    vectorised = [g for g, group in enumerate(groups) if group[0] in _fast_positions(specs)]
    order: list[tuple[str, Any]] = [("group", g) for g in vectorised]
    order += [("band", curve) for curve in band_curves]
    order += [("group", g) for g in range(len(groups)) if g not in vectorised]
    timer.say("bootstrap: timing the resampling")
    _time_resampling(timer, first, costs, total_rows, twins)
    for stage in (1, 2):
        for step, (kind, what) in enumerate(order):
            always = stage == 1 and kind == "group" and what in first_of_all
            if timer.left() <= 0 and not always:
                if stage == 1:
                    continue  # (a later headline group may still be due)
                return costs
            if stage == 2:
                if timer.data.n <= first:
                    return costs
                predicted = _predicted(costs, groups, kind, what, timer.data.n)
                m = timer.larger(predicted, f"{kind} {what}")
                if m is None:
                    continue
            else:
                m = first
            at = f" at {m:,} rows" if stage == 2 else ""
            if kind == "band":
                timer.say(f"bootstrap: timing the bands{at} ({step + 1}/{len(order)}): {what}")
                _time_band(timer, m, what, band_kwargs.get(what, {}), costs, total_rows)
                continue
            names = _names(specs, groups[what])
            timer.say(f"bootstrap: timing measures{at} ({step + 1}/{len(order)}): {names}")
            _time_group(timer, m, specs, groups[what], what, costs, total_rows, twins)
    return costs


def _predicted(
    costs: _Costs, groups: Sequence[Sequence[int]], kind: str, what: Any, n: int
) -> float:
    """Seconds the timing of a part would take at the real n (from its last timing), inf when
    it was not timed."""
    if kind == "band":
        if what not in costs.band_row:
            return math.inf
        return 2 * costs.band_fixed[what] + (4 + 2 * _TIMED_ROWS) * costs.band_row[what]
    if what not in costs.row:
        return math.inf
    rows = _resampling.compact_block_rows(n) if what in costs.fast else 1 + _TIMED_ROWS
    values = sum(costs.values.get(k, 0.0) for k in groups[what])
    # the values and the build, then a whole call with two replicates (about as long again)
    return 2 * (values + costs.build[what]) + rows * (costs.row[what] + 2 * costs.resample)


def _compare_seconds(costs: _Costs, chosen: Sequence[int], replicates: int, jack: int) -> float:
    """Estimated seconds of ``compare_models`` on the metrics at positions ``chosen``."""
    groups = {costs.group_of[k] for k in chosen}
    per_row = sum(costs.row[g] for g in groups)
    fixed = sum(costs.values[k] for k in chosen) + sum(costs.build[g] for g in groups)
    return fixed + replicates * (per_row + costs.resample) + jack * per_row


def _band_seconds(costs: _Costs, curve: str, replicates: int) -> float:
    return costs.band_fixed[curve] + replicates * (costs.band_row[curve] + costs.resample)


def _memory_skip(n: int, n_models: int, specs: Sequence[Any]) -> str | None:
    """Why the comparison cannot run in memory (its one line), or None when it fits."""
    forms = [spec.capabilities.batched for spec in specs]
    try:
        _evaluators.memory_plan(n, n_models, forms, _resampling.memory_budget()).check(n, n_models)
    except BootstrapMemoryError as exc:
        return str(exc)
    return None


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
    interval: str = "auto",
    progress: ProgressCallback | None = None,
    clock: Callable[[], float] = time.perf_counter,
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
    interval : {"auto", "bca", "percentile", "studentized"}
        The comparison's interval, as :func:`ranklens.compare_models` takes it (BCa adds a
        jackknife of ``min(n, 100)`` rows below a million rows, none above:
        :func:`ranklens._inference.resampling.jackknife_rows`; the studentized intervals of the
        ratio-form measures a product per block, timed with their group).
    progress : callable, optional
        Called with a short description before each step (the pipeline's ``on_progress``).
    clock : callable
        Monotonic seconds (tests pass a fake one).

    Returns
    -------
    BootstrapPlan
    """
    band_kwargs = dict(band_kwargs or {})
    specs = list(specs)
    requested = int(n_bootstrap)
    if not specs and not band_curves:
        return BootstrapPlan([], requested, requested, budget_s=budget_s)
    if math.isinf(budget_s):  # no bound: nothing to time
        return BootstrapPlan(specs, requested, requested, tuple(band_curves), budget_s=budget_s)
    n = y.shape[0]
    plan = BootstrapPlan([], requested, requested, budget_s=budget_s)
    too_big = _memory_skip(n, len(preds), specs) if specs else None
    if too_big is not None:
        plan.skipped = too_big
        plan.left_out = [spec.name for spec in specs]
        plan.skipped_bands = {c: "the bootstrap was skipped" for c in band_curves}
        return plan

    data = _Data(y, dict(preds), weight)
    start = clock()
    # (as compare_models counts them: a BCa jackknife unless the intervals are percentile ones)
    jack = jackknife_rows(n, "percentile" if interval == "percentile" else "bca")
    twins = bool(specs) and _twins(n, requested + jack, specs, len(preds))
    if progress is not None:
        progress(f"bootstrap: compiling the kernels on {route_rows(n):,} rows (outside the budget)")
    _compile(
        y, preds, specs, weight, band_curves, band_kwargs, interval, twins, requested + jack, data
    )
    compiled = clock()
    timer = _Timer(data, clock, compiled + PLANNING_SHARE * budget_s, progress)
    timer.interval = interval
    costs = _measure(timer, specs, headline, band_curves, band_kwargs, requested + jack, twins)
    plan.planning_s = clock() - compiled
    plan.compile_s = compiled - start
    if progress is not None:
        progress("bootstrap: fitting the budget")
    _fit(plan, costs, specs, band_curves, headline, n, jack)
    return plan


def _fit(
    plan: BootstrapPlan,
    costs: _Costs,
    specs: Sequence[Any],
    band_curves: Sequence[str],
    headline: Sequence[str],
    n: int,
    jack: int,
) -> None:
    """Fill ``plan`` with what fits what the planning left of the budget (module docstring)."""
    budget_s, requested = plan.budget_s, plan.requested
    room = SAFETY * max(budget_s - plan.planning_s, 0.0)
    untimed = [k for k in range(len(specs)) if not costs.timed(k)]
    for k in untimed:
        plan.untimed[specs[k].name] = "not timed before the planning deadline"
    timed = [k for k in range(len(specs)) if costs.timed(k)]

    # 1. The fast paths and the headline measures: their replicates are reduced to fit. When
    # they do not all fit at the requested replicates, the fast paths that hold no headline
    # measure wait with the per-replicate measures (after the bands): the headline measures keep
    # their replicates rather than sharing them with every batched measure.
    core = [k for k in timed if costs.group_of[k] in costs.fast or specs[k].name in headline]
    if core and _compare_seconds(costs, core, requested, jack) > room:
        head_groups = {
            costs.group_of[k]
            for k in core
            if specs[k].name in headline and costs.group_of[k] in costs.fast
        }
        core = [k for k in core if specs[k].name in headline or costs.group_of[k] in head_groups]
    optional = [k for k in timed if k not in core]
    replicates = requested
    if core and _compare_seconds(costs, core, replicates, jack) > room:
        per_replicate = _compare_seconds(costs, core, 1, 0) - _compare_seconds(costs, core, 0, 0)
        fixed = _compare_seconds(costs, core, 0, jack)
        replicates = int((room - fixed) / per_replicate) if per_replicate > 0 else requested
        replicates = min(replicates, requested)
        if replicates < min(MIN_REPLICATES, requested):
            fewest = min(MIN_REPLICATES, requested)
            need = _compare_seconds(costs, core, fewest, jack)
            plan.skipped = (
                f"even {fewest} replicates of the fastest measures would take about "
                f"{need:.0f} s at n = {n:,}, more than the {room:.0f} s the {budget_s:g} s "
                f"budget leaves after {plan.planning_s:.0f} s of timing (with a "
                f"{1 - SAFETY:.0%} margin)"
            )
            plan.left_out = [spec.name for spec in specs]
            plan.untimed = {}
            plan.skipped_bands = {c: "the bootstrap was skipped" for c in band_curves}
            return
    plan.n_bootstrap = replicates
    spent = _compare_seconds(costs, core, replicates, jack) if core else 0.0

    # 2. The bands, then 3. the per-replicate measures, cheapest first, while they fit.
    bands = []
    for curve in band_curves:
        if curve not in costs.band_row:
            plan.skipped_bands[curve] = "not timed before the planning deadline"
            continue
        cost = _band_seconds(costs, curve, replicates)
        if spent + cost <= room:
            bands.append(curve)
            spent += cost
        else:
            plan.skipped_bands[curve] = (
                f"about {cost:.0f} s at n = {n:,}, more than the {max(room - spent, 0):.0f} s "
                f"the {budget_s:g} s budget leaves after the timing and the comparison"
            )
    chosen = list(core)
    base = _compare_seconds(costs, chosen, replicates, jack) if chosen else 0.0
    for k in sorted(optional, key=lambda k: costs.row[costs.group_of[k]]):
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
