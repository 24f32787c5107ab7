"""The bootstrap's evaluators: every measure's value on each replicate of a block of weights.

:func:`ranklens.compare_models` evaluates its measures on blocks of bootstrap weights, one code path
per group of measures that share it (:func:`build_evaluators`): the ratio-form measures (mean
losses) as one matrix product per block, the rank measures by one sweep per replicate (on level
orders above ``ranklens._foundation.route.POLICY.level_sweep_above`` rows), the measures with a
replicate sweep of their own, and any other measure by calling it on the reweighted rows. A block
(:class:`Block`) holds its weights once for every evaluator, as uint8 lanes where they read them.
The bootstrap budget (:mod:`ranklens._engines.budget`) times the same evaluators on a sample of the
rows to plan a run, so that what it times is what the comparison runs.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ranklens._compute.xp.rank import (
    GROUP_SUMS,
    RankPlan,
    build_plan,
    replicate_classes,
    replicate_statistics,
)
from ranklens._foundation.forms import RankSweepForm, RatioForm, ReplicateForm
from ranklens._foundation.interval_formulas import (
    RatioStudentizer,
)
from ranklens._foundation.registry import MetricSpec
from ranklens._foundation.route import POLICY
from ranklens._foundation.shared import RANK_SEQUENCE, shared
from ranklens._foundation.validation import (
    normalize_weights,
)
from ranklens._inference.resampling import (
    BLOCK_CELLS,
    MEMORY_SHARE,
    NUMPY_TWINS,
    BootstrapMemoryError,
    Progress,
    Resampler,
    block_rows,
    compact_block_rows,
    draw_rows,
    format_bytes,
    group_counts,
    kernel,
    memory_budget,
    quiet,
    weighted_loss_sums_numpy,
)


def point_value(spec: MetricSpec, y: np.ndarray, pred: np.ndarray, sw: np.ndarray | None) -> float:
    """A measure's value on the whole sample, by its registered function.

    Parameters
    ----------
    spec : MetricSpec
        The measure.
    y, pred : ndarray of float64
        The truth and one model's prediction.
    sw : ndarray of float64 or None
        Case weights (passed only to a measure that accepts them).

    Returns
    -------
    float
        The value.
    """
    if spec.supports_sample_weight:
        return float(spec.func(y, pred, sample_weight=sw))
    return float(spec.func(y, pred))


class Evaluator:
    """Evaluates some of the metrics (``positions`` in the metric list) for every model.

    Parameters
    ----------
    positions : list of int
        The positions of its measures in the comparison's list of measures.

    Attributes
    ----------
    path : str
        The code path, named in the bootstrap budget's timings (``"generic"``: the measure's
        function called on each replicate).
    """

    path = "generic"

    def __init__(self, positions: list[int]) -> None:
        self.positions = positions

    def evaluate(self, multiplicity: np.ndarray) -> np.ndarray:
        """``(rows, len(positions), n_models)`` values for weights ``multiplicity * w``.

        Parameters
        ----------
        multiplicity : ndarray of shape (rows, n)
            Each replicate's multiplicity of each row.

        Returns
        -------
        ndarray of float64
            The replicates' values.
        """
        raise NotImplementedError

    def evaluate_swapped(self, swaps: np.ndarray, a: int, b: int) -> np.ndarray:
        """``(rows, len(positions), 2)`` values of models a and b after swapping predictions.

        Parameters
        ----------
        swaps : ndarray of bool of shape (rows, n)
            Per permutation, the rows whose predictions of the two models are swapped.
        a, b : int
            The two models.

        Returns
        -------
        ndarray of float64
            The two models' values under each permutation.
        """
        raise NotImplementedError


class LaneReader(Evaluator):
    """An evaluator that can read a block's shared uint8 lanes (:class:`Block`, large n).

    Parameters
    ----------
    positions : list of int
        As :class:`Evaluator`'s.
    """

    def evaluate(self, multiplicity: np.ndarray) -> np.ndarray:
        return self.evaluate_block(Block(multiplicity))

    def evaluate_block(self, block: Block) -> np.ndarray:
        """As :meth:`evaluate`, reading the block's uint8 lanes where it has them.

        Parameters
        ----------
        block : Block
            The block of replicate weights.

        Returns
        -------
        ndarray of float64 of shape (rows, len(positions), n_models)
            The replicates' values.
        """
        raise NotImplementedError


class _RatioFormEvaluator(LaneReader):
    """Weighted ratios of per-row sums, ``finalize(sum w num / sum w den)`` (``den = 1`` if None).

    Covers every mean loss of :mod:`ranklens.residual` (mean squared and absolute errors, RMSE,
    log_rmse, rmspe, ...): the
    numerators and denominators of every model form the columns of one matrix ``L`` and a block of
    replicates is the product ``W @ L``, one numba pass over the block.

    ``L`` holds ``n_models * n_columns`` float64 a data row. Over the comparison's memory budget
    (:func:`memory_plan`) it is not kept: each block makes it ``chunk_rows`` data rows at a
    time and carries the sums from chunk to chunk (:func:`ranklens._compute.kernels.rank_levels.
    lane_loss_sums_into`): the same sums, bit for bit (the per-row values of a form are
    element-wise, :class:`~ranklens._foundation.forms.RatioForm`).
    """

    path = "kernel"

    def __init__(
        self,
        positions: list[int],
        forms: list[Any],
        y: np.ndarray,
        preds: np.ndarray,
        base_weight: np.ndarray,
        chunk_rows: int | None = None,
    ) -> None:
        super().__init__(positions)
        self.forms = forms
        self.base_weight = np.ascontiguousarray(base_weight, dtype=np.float64)
        self.n_models = preds.shape[0]
        self.y, self.preds = y, preds
        # Per model, the columns: numerator of each form, then the denominators that exist.
        self.den_column: list[int | None] = []
        for form in forms:
            if form.denominator is None:
                self.den_column.append(None)
            else:
                self.den_column.append(len(forms) + sum(c is not None for c in self.den_column))
        self.n_columns = len(forms) + sum(form.denominator is not None for form in forms)
        self._columns: dict[int, np.ndarray] = {}  # model -> its columns (the permutation test)
        # (n, n_models * n_columns), model-major: one kernel pass serves every model; None
        # when it is made chunk_rows rows at a time instead (over the memory budget).
        self.chunk_rows = chunk_rows
        self.flat = None if chunk_rows is not None else self._flat(0, y.shape[0])

    def _model_columns(self, pred: np.ndarray, start: int, stop: int) -> np.ndarray:
        """``(stop - start, n_columns)``: one model's columns on data rows ``start .. stop - 1``."""
        y, p = self.y[start:stop], pred[start:stop]
        with np.errstate(all="ignore"):
            return np.stack(
                [form.numerator(y, p) for form in self.forms]
                + [form.denominator(y, p) for form in self.forms if form.denominator is not None],
                axis=1,
            )

    def _flat(self, start: int, stop: int) -> np.ndarray:
        """``L`` on data rows ``start .. stop - 1``, C-contiguous."""
        return np.ascontiguousarray(
            np.concatenate([self._model_columns(p, start, stop) for p in self.preds], axis=1)
        )

    def _chunked_sums(self, block: Block) -> tuple[np.ndarray, np.ndarray]:
        """The kernels' ``(sums, totals)`` with ``L`` made :attr:`chunk_rows` rows at a time,
        from the block's lanes (made here, padded, for a block of float64 weights that has
        none). Weights that do not fit uint8 lanes (none of the bootstrap's schemes draws one)
        take ``L`` whole for the block."""
        assert self.chunk_rows is not None
        from ranklens._compute.kernels import rank_levels

        n, step = block.n, self.chunk_rows
        columns = self.n_models * self.n_columns
        width = rank_levels.LEVEL_BATCH
        lanes = block.lanes()
        if lanes is None:
            lanes, fits = rank_levels.batch_weights_small(block.weights, np.ones(n), width)
            if not fits:
                flat = self._flat(0, n)
                return kernel("weighted_loss_sums", n * columns, n)(
                    block.multiplicity, self.base_weight, flat
                )
        acc = np.zeros((lanes.shape[0] * (columns + 1), width))
        for start in range(0, n, step):
            stop = min(start + step, n)
            base = self.base_weight[start:stop]
            rank_levels.lane_loss_sums_into(lanes, base, self._flat(start, stop), start, acc)
        return rank_levels.lane_sums_of(acc, block.rows, columns)

    def _finish(self, sums: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """``(rows, n_forms)`` metric values of one model from its column sums."""
        out = np.empty((sums.shape[0], len(self.forms)))
        with np.errstate(all="ignore"):
            for j, form in enumerate(self.forms):
                den = totals if self.den_column[j] is None else sums[:, self.den_column[j]]
                out[:, j] = form.finalize(sums[:, j] / den)
        return out

    def evaluate_block(self, block: Block) -> np.ndarray:
        n = block.n
        batch = block.lanes()
        if self.flat is None:  # over the memory budget: L a chunk of rows at a time
            sums, totals = self._chunked_sums(block)
        elif batch is not None:  # the block's uint8 lanes: one read of 32 bytes a row per column
            from ranklens._compute.kernels import rank_levels

            sums, totals = rank_levels.lane_loss_sums_parallel(
                batch, block.rows, self.base_weight, self.flat
            )
        else:
            sums_of = (
                weighted_loss_sums_numpy
                if NUMPY_TWINS.get()
                else kernel("weighted_loss_sums", n * self.flat.shape[1], n)
            )
            sums, totals = sums_of(block.multiplicity, self.base_weight, self.flat)
        c = self.n_columns
        return np.stack(
            [self._finish(sums[:, m * c : (m + 1) * c], totals) for m in range(self.n_models)],
            axis=2,
        )

    def evaluate_swapped(self, swaps: np.ndarray, a: int, b: int) -> np.ndarray:
        n = swaps.shape[1]
        for m in (a, b):
            if m not in self._columns:
                self._columns[m] = self._model_columns(self.preds[m], 0, n)
        sums_a, sums_b = kernel("swapped_loss_sums", 2 * n * self.n_columns, n)(
            swaps, self.base_weight, self._columns[a], self._columns[b]
        )
        total = np.full(swaps.shape[0], self.base_weight.sum())
        return np.stack([self._finish(sums_a, total), self._finish(sums_b, total)], axis=2)


class _GenericEvaluator(Evaluator):
    """Any registered metric: its function called once per replicate with ``sample_weight``."""

    def __init__(
        self,
        positions: list[int],
        specs: list[MetricSpec],
        y: np.ndarray,
        preds: np.ndarray,
        sample_weight: np.ndarray | None,
    ) -> None:
        super().__init__(positions)
        self.specs = specs
        self.y = y
        self.preds = preds
        self.sample_weight = sample_weight

    def _call(
        self, spec: MetricSpec, y: np.ndarray, pred: np.ndarray, w: np.ndarray | None
    ) -> float:
        try:
            return float(spec.func(y, pred, sample_weight=w))
        except (ValueError, ZeroDivisionError, FloatingPointError):
            # The full sample was fine (its value was computed first), so a failure here is a
            # degenerate resample: count it as an undefined replicate.
            return math.nan

    def _call_materialised(self, spec: MetricSpec, counts: np.ndarray, pred: np.ndarray) -> float:
        rows = np.repeat(np.arange(counts.shape[0]), counts.astype(np.int64))
        try:
            return float(spec.func(self.y[rows], pred[rows]))
        except (ValueError, ZeroDivisionError, FloatingPointError):
            return math.nan

    def evaluate(self, multiplicity: np.ndarray) -> np.ndarray:
        out = np.empty((multiplicity.shape[0], len(self.specs), self.preds.shape[0]))
        with quiet():
            for r, counts in enumerate(multiplicity):
                w = counts if self.sample_weight is None else counts * self.sample_weight
                for k, spec in enumerate(self.specs):
                    for m, pred in enumerate(self.preds):
                        if spec.supports_sample_weight:
                            out[r, k, m] = self._call(spec, self.y, pred, w)
                        else:
                            out[r, k, m] = self._call_materialised(spec, counts, pred)
        return out

    def evaluate_swapped(self, swaps: np.ndarray, a: int, b: int) -> np.ndarray:
        out = np.empty((swaps.shape[0], len(self.specs), 2))
        pa, pb = self.preds[a], self.preds[b]
        with quiet():
            for r, swap in enumerate(swaps):
                mix_a = np.where(swap, pb, pa)
                mix_b = np.where(swap, pa, pb)
                for k, spec in enumerate(self.specs):
                    w = self.sample_weight if spec.supports_sample_weight else None
                    call = self._call if spec.supports_sample_weight else _call_unweighted
                    out[r, k, 0] = call(spec, self.y, mix_a, w)
                    out[r, k, 1] = call(spec, self.y, mix_b, w)
        return out


def _call_unweighted(spec: MetricSpec, y: np.ndarray, pred: np.ndarray, _w: Any) -> float:
    try:
        return float(spec.func(y, pred))
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return math.nan


class _ReplicateSweepEvaluator(Evaluator):
    """Measures declaring the same :class:`~ranklens._foundation.forms.ReplicateSweep` (and bound
    parameters): the sweep prepared once (its rows sorted), then each block of replicates in
    weighted passes over those fixed orders, every measure and model together.

    The sweep gets the weights the generic path passes (multiplicities times the case weights
    as given), so a replicate is the function's value on the same weights, to rounding.
    """

    path = "kernel"

    def __init__(
        self,
        positions: list[int],
        specs: list[MetricSpec],
        forms: list[ReplicateForm],
        y: np.ndarray,
        preds: np.ndarray,
        sample_weight: np.ndarray | None,
        state: Any,
    ) -> None:
        super().__init__(positions)
        self.sweep = forms[0].sweep
        self.statistics = tuple(form.statistic for form in forms)
        self.state = state
        self.sample_weight = sample_weight
        self.generic = _GenericEvaluator(positions, specs, y, preds, sample_weight)

    def evaluate(self, multiplicity: np.ndarray) -> np.ndarray:
        weights = multiplicity.astype(np.float64)
        if self.sample_weight is not None:
            weights *= self.sample_weight
        with quiet():
            return np.asarray(self.sweep.evaluate(self.state, weights, self.statistics))

    def evaluate_swapped(self, swaps: np.ndarray, a: int, b: int) -> np.ndarray:
        # Swapping predictions row by row changes the order the sweep fixed: the functions.
        return self.generic.evaluate_swapped(swaps, a, b)


def _sweep_evaluator(
    specs: list[MetricSpec],
    forms: list[Any],
    y: np.ndarray,
    preds: np.ndarray,
    sample_weight: np.ndarray | None,
    state: Any,
    positions: list[int],
) -> Evaluator:
    return _ReplicateSweepEvaluator(
        positions,
        [specs[k] for k in positions],
        [forms[k] for k in positions],
        y,
        preds,
        sample_weight,
        state,
    )


def replicate_groups(forms: list[Any]) -> list[list[int]]:
    """Positions of the ReplicateForm measures, grouped by sweep and bound parameters.

    Measures of one group share one replicate sweep (one evaluator).

    Parameters
    ----------
    forms : list
        Each measure's batched form (``capabilities.batched``).

    Returns
    -------
    list of list of int
        The groups, each the positions of its measures.
    """
    groups: list[list[int]] = []
    for k, form in enumerate(forms):
        if not isinstance(form, ReplicateForm):
            continue
        for group in groups:
            head = forms[group[0]]
            if (
                head.sweep is form.sweep
                and len(head.bound) == len(form.bound)
                and all(
                    n1 == n2 and v1 is v2
                    for (n1, v1), (n2, v2) in zip(head.bound, form.bound, strict=True)
                )
            ):
                group.append(k)
                break
        else:
            groups.append([k])
    return groups


#: Bytes of the loss columns made at once when they are not kept whole (64 MiB).
_LOSS_CHUNK_BYTES = 1 << 26


@dataclasses.dataclass(frozen=True)
class MemoryPlan:
    """How the comparison holds its data within the memory budget
    (:func:`ranklens._inference.resampling.memory_budget`).

    Attributes
    ----------
    budget : float
        Bytes the bootstrap's working memory may take.
    need : dict of str to float
        Bytes by part, as planned (the caller's arrays not included). The parts named in
        ``building`` are held only while the evaluators are built, before the blocks, the level
        orders and the level sweep's buffers exist.
    building : tuple of str
        The parts held while the evaluators are built only.
    loss_chunk_rows : int or None
        Data rows of the loss columns made at once (:class:`_RatioFormEvaluator`), or None:
        kept whole.
    level_tasks : int
        Most tasks of the level sweep whose buffers are held at once (each
        ``64 n + 128 n_pred`` bytes, :func:`ranklens._compute.kernels.rank_levels.level_scratch`).
    total : float
        Bytes at the peak (a property).
    """

    budget: float
    need: dict[str, float]
    building: tuple[str, ...] = ()
    loss_chunk_rows: int | None = None
    level_tasks: int = 1 << 30

    @property
    def total(self) -> float:
        """Bytes at the peak: what is held throughout, and the larger of the build and the
        run."""
        build = sum(b for name, b in self.need.items() if name in self.building)
        rest = sum(b for name, b in self.need.items() if name in _RUNNING)
        held = sum(self.need.values()) - build - rest
        return float(held + max(build, rest))

    def check(self, n: int, n_models: int) -> None:
        """Raise :class:`ranklens._inference.resampling.BootstrapMemoryError` when the plan exceeds
        the budget (the message is one line, its largest parts named)."""
        if self.total <= self.budget:
            return
        parts = sorted(self.need.items(), key=lambda item: -item[1])[:3]
        shown = ", ".join(f"{name} {format_bytes(b)}" for name, b in parts)
        raise BootstrapMemoryError(
            f"the in-memory bootstrap of {n_models} models on {n:,} rows needs about "
            f"{format_bytes(self.total)} ({shown}), more than its memory budget of "
            f"{format_bytes(self.budget)} (RANKLENS_MEMORY_BUDGET, else {MEMORY_SHARE:.0%} of "
            "the memory available): run it on Dask (ranklens evaluate --engine dask, or "
            "ranklens.evaluate_models(..., engine='dask')), or on fewer rows"
        )


#: The parts of a :class:`MemoryPlan` that exist only while the replicates run.
_RUNNING = ("replicate blocks", "rank sweep level orders", "rank sweep buffers")


def memory_plan(n: int, n_models: int, forms: Sequence[Any], budget: float) -> MemoryPlan:
    """The memory the comparison of ``forms`` (each measure's batched form) on ``n`` rows and
    ``n_models`` models takes, fitted to ``budget`` bytes: the loss columns in chunks and
    fewer level-sweep tasks at once where they do not fit whole.

    Bytes a data row: replicate blocks 64 (uint8 counts and lanes of 32 replicates, above
    ``POLICY.level_sweep_above`` rows) plus the draw of their indices (at most 128 MiB); per
    model, the rank sweep's orders and ranks 24 and its level orders ``ceil(log2 n) + 8`` (a byte
    a level, :func:`ranklens._compute.kernels.rank_levels.level_codes`, and the top order; 12 more
    while they are built), the sorts shared while the evaluators are built 88, the loss columns 8
    per column, a replicate sweep's orders about 40; per task of the level sweep 192 (64 of lanes,
    128 of midranks), one task per thread while they fit. The sorts (and the loss columns' copy
    while they are made) are released before the blocks and the level orders are made.
    (Measured against the peaks: docs/performance.md, "The bootstrap at scale".)

    Parameters
    ----------
    n : int
        Data rows.
    n_models : int
        Models compared.
    forms : sequence
        Each measure's batched form (``capabilities.batched``).
    budget : float
        Bytes the bootstrap may take.

    Returns
    -------
    MemoryPlan
        The plan (:meth:`MemoryPlan.check` says whether it fits).
    """
    compact = n > POLICY.level_sweep_above
    need: dict[str, float] = {}
    if compact:
        rows = compact_block_rows(n)
        need["replicate blocks"] = 2.0 * rows * n + 4.0 * min(rows, draw_rows(n)) * n
    else:
        need["replicate blocks"] = 16.0 * block_rows(n) * n  # float64, and a copy
    task, threads = 0.0, 1
    if any(isinstance(f, RankSweepForm) for f in forms):
        need["rank sweep orders"] = (24.0 * n_models + 8.0) * n
        need["sorts shared while building"] = 88.0 * n_models * n
        if compact:
            levels = max(1, (n - 1).bit_length())
            need["rank sweep level orders"] = (levels + 20.0) * n_models * n
            import numba  # (large data: the level sweep imports it anyway)

            task, threads = 192.0 * n, numba.get_num_threads()
            need["rank sweep buffers"] = task * threads  # one task a thread, if they fit
    sweeps = len(replicate_groups(list(forms)))
    if sweeps:
        need["replicate sweeps"] = 40.0 * sweeps * n_models * n
    building = ("sorts shared while building", "loss columns being made")
    ratio = [f for f in forms if isinstance(f, RatioForm)]
    columns = len(ratio) + sum(f.denominator is not None for f in ratio)
    chunk_rows = None
    if columns:
        whole = 8.0 * columns * n_models * n
        made = {**need, "loss columns": whole, "loss columns being made": whole}
        if MemoryPlan(budget, made, building).total <= budget:  # (before fewer tasks)
            need = made
        else:
            # a chunk's columns by model and joined: twice its rows
            chunk_rows = max(1, min(n, _LOSS_CHUNK_BYTES // (16 * columns * n_models)))
            need["loss columns (in chunks)"] = 16.0 * columns * n_models * chunk_rows
    tasks = 1
    if task:
        # as many tasks as threads run (the level sweep's tasks at once) while they fit
        need["rank sweep buffers"] = task
        spare = budget - MemoryPlan(budget, need, building).total
        tasks = max(1, min(threads, 1 + int(max(spare, 0.0) // task)))
        need["rank sweep buffers"] = tasks * task
    return MemoryPlan(budget, need, building, chunk_rows, tasks)


def build_evaluators(
    specs: list[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sample_weight: np.ndarray | None,
    values: np.ndarray,
    memory: MemoryPlan | None = None,
) -> list[Evaluator]:
    """Fast evaluators for the metrics that have one (verified on the full sample), else generic
    (within ``memory``, :func:`memory_plan` with the budget of now when None).

    Parameters
    ----------
    specs : list of MetricSpec
        The measures, in the comparison's order.
    y : ndarray of float64
        The truth.
    preds : ndarray of float64 of shape (n_models, n)
        The models' predictions.
    sample_weight : ndarray of float64 or None
        Case weights.
    values : ndarray of float64 of shape (n_measures, n_models)
        The point values (:func:`point_value`), against which each fast path is verified.
    memory : MemoryPlan, optional
        The memory plan to hold to.

    Returns
    -------
    list of Evaluator
        Evaluators covering every measure once.
    """
    if memory is None:
        forms_ = [s.capabilities.batched for s in specs]
        memory = memory_plan(y.shape[0], preds.shape[0], forms_, memory_budget())
    plan = memory
    # The fast paths compute scale-free measures; weights of mean 1 keep their pair products
    # and sums representable whatever the user's scale.
    base_weight = (
        np.ones(y.shape[0]) if sample_weight is None else normalize_weights(sample_weight)[0]
    )
    factories: list[tuple[list[int], Callable[[list[int]], Evaluator]]] = []
    forms = [s.capabilities.batched for s in specs]
    ratio_positions = [k for k, form in enumerate(forms) if isinstance(form, RatioForm)]
    if ratio_positions:
        factories.append(
            (
                ratio_positions,
                lambda pos: _RatioFormEvaluator(
                    pos, [forms[k] for k in pos], y, preds, base_weight, plan.loss_chunk_rows
                ),
            )
        )
    rank_forms = {k: form for k, form in enumerate(forms) if isinstance(form, RankSweepForm)}
    rank_positions = list(rank_forms)
    if rank_positions:
        factories.append(
            (
                rank_positions,
                lambda pos: _RankEvaluator(
                    pos, [rank_forms[k] for k in pos], y, preds, base_weight, plan.level_tasks
                ),
            )
        )

    for group in replicate_groups(forms):
        head = forms[group[0]]
        assert isinstance(head, ReplicateForm)
        state = head.sweep.prepare(y, preds, dict(head.bound))
        if state is None:  # the sweep does not cover these parameters: the functions
            continue
        factories.append(
            (
                group,
                functools.partial(_sweep_evaluator, specs, forms, y, preds, sample_weight, state),
            )
        )

    evaluators: list[Evaluator] = []
    ones = np.ones((1, y.shape[0]))
    for positions, factory in factories:
        evaluator = factory(positions)
        with quiet():
            full = evaluator.evaluate(ones)[0]
        # A fast path is used only for the metrics where it reproduces the registered function.
        agree = [
            k
            for j, k in enumerate(positions)
            if np.allclose(full[j], values[k], rtol=1e-9, atol=1e-12, equal_nan=True)
        ]
        if agree:
            evaluators.append(evaluator if agree == positions else factory(agree))
    fast = {k for evaluator in evaluators for k in evaluator.positions}
    generic = [k for k in range(len(specs)) if k not in fast]
    if generic:
        evaluators.append(
            _GenericEvaluator(generic, [specs[k] for k in generic], y, preds, sample_weight)
        )
    return evaluators


class _LevelTermInt32:
    """One level's ``sum_{k right} w_k S^lev_k`` per replicate row for int32 counts ``ws``
    whose rows sum to at most n < 2^15 (:func:`ranklens._compute.xp.rank.replicate_statistics`'s
    ``level_term``): every prefix sum, product and row sum is at most n^2 < 2^31, so int32
    arithmetic is exact and about twice as fast as the generic int64 term.

    The left and right halves of each level order are int32 masks made once per level order
    and kept with it (a product with an int32 mask costs a fifth of one with a boolean); the
    sums are of the same integers, so the values are unchanged.
    """

    def __init__(self) -> None:
        # id of the level order -> (left mask, right mask, the order itself, which keeps the id
        # its own while the entry lives)
        self._masks: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def __call__(self, ws: np.ndarray, perm: np.ndarray, shift: int) -> np.ndarray:
        masks = self._masks.get((id(perm), shift))
        if masks is None:
            left = ((perm >> shift) & 1) == 0
            masks = (left.astype(np.int32), (~left).astype(np.int32), perm)
            self._masks[(id(perm), shift)] = masks
        left_mask, right_mask, _ = masks
        wl = ws[:, perm]
        s = np.cumsum(wl * left_mask, axis=1, dtype=np.int32)
        return np.einsum("ij,ij->i", wl * right_mask, s).astype(np.int64)


class _RankEvaluator(LaneReader):
    """Measures declared as outputs of the rank sweep, every model, per replicate (numba).

    One sweep gives the weighted group sums, hence the pair classes; each measure is its declared
    :class:`~ranklens._foundation.forms.RankSweepForm`: its statistic of the classes, mapped by its
    ``transform``.

    Stage 1 (once): ``prepare_ranks`` (dense ranks) and the rows sorted by y, ties by
    prediction. Stage 2 (per replicate and model): ``rank_sums_sorted`` on the rows with
    positive weight, O(n log n).
    """

    path = "kernel"

    def __init__(
        self,
        positions: list[int],
        forms: list[RankSweepForm],
        y: np.ndarray,
        preds: np.ndarray,
        base_weight: np.ndarray,
        max_tasks: int = 1 << 30,
    ) -> None:
        super().__init__(positions)
        self.forms = forms
        self.base_weight = base_weight
        self.preds = preds
        self._union: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, int]] = {}
        self._y = y
        self._plans: list[RankPlan] | None = None
        self._level_term = _LevelTermInt32()  # the NumPy twins' level term, masks kept
        self._levels: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._by_y: tuple[np.ndarray, np.ndarray] | None = None
        # the level sweep's buffers, kept from block to block (rank_levels.level_scratch), for
        # at most max_tasks tasks at once (the memory budget)
        self._scratch: tuple[np.ndarray, np.ndarray] | None = None
        self.max_tasks = max_tasks
        self._unit_weights = bool(np.all(base_weight == 1.0))
        self._prepared = False
        if not NUMPY_TWINS.get():
            self._prepare()

    def _prepare(self) -> None:
        """Stage 1 of the kernels (the NumPy twins need none of it, nor numba): each model's
        rows sorted by y, ties by prediction, and the dense ranks."""
        if self._prepared:
            return
        # the kernels' path: the kernel module is imported (numba with it) and its rule decides
        from ranklens._compute.xp.sequence import dense_ranks, order_by_y_then_pred, sequence

        y = self._y
        orders, y_sorted, p_sorted, n_preds = [], [], [], []
        for pred in self.preds:
            # (within shared_results, the sort the point values of the model made)
            sort = functools.partial(sequence, y, pred, need_pred_rank=True, import_kernels=True)
            order, _, _, y_rank, pred_rank, _, _ = shared(RANK_SEQUENCE, (y, pred), sort)
            # increasing y, ties by increasing prediction
            by_y = order_by_y_then_pred(order, y_rank, import_kernels=True)
            by_y = np.ascontiguousarray(by_y[::-1])
            orders.append(by_y)
            y_sorted.append(y_rank[by_y])
            p_sorted.append(pred_rank[by_y])
            n_preds.append(int(pred_rank.max()) + 1)
        self.y_rank = y_rank
        self.orders = np.stack(orders)
        self.y_sorted = np.stack(y_sorted)
        self.p_sorted = np.stack(p_sorted)
        self.n_preds = np.array(n_preds, dtype=np.int64)
        self._dense_ranks = functools.partial(dense_ranks, import_kernels=True)
        self._prepared = True

    def _evaluate_numpy(self, multiplicity: np.ndarray) -> dict[str, np.ndarray]:
        """The group sums, ``(rows, n_models)`` each, from :mod:`ranklens._compute.xp.rank` on NumPy
        (the bootstrap's NumPy twins, :data:`ranklens._inference.resampling.NUMPY_TWINS`): exact
        int64 pair sums for unit case weights, so the pair classes equal the kernel's bit for bit,
        the midrank moments to rounding."""
        if self._plans is None:
            self._plans = [build_plan(np, self._y, pred) for pred in self.preds]
        level_term = None
        if np.all(self.base_weight == 1.0):
            weights = multiplicity.astype(np.int32)  # counts below POLICY.twins_numpy_below rows
            level_term = self._level_term
        else:
            weights = multiplicity * self.base_weight
        per_model = [
            replicate_statistics(np, plan, weights, level_term=level_term) for plan in self._plans
        ]
        return {k: np.stack([sums[k] for sums in per_model], axis=1) for k in GROUP_SUMS}

    def _evaluate_levels(self, block: Block) -> np.ndarray:
        """The kernel's ``(rows, RANK_SUMS, n_models)`` group sums from the level orders (large
        n).

        Weights that are integers in [0, 255] (bootstrap counts with unit case weights) are
        swept as uint8 with exact sums (float64 holds integers exactly below 2^53), so tau-b, C
        and rho equal the one-replicate sweep's bit for bit; other weights as float64 (to
        rounding).
        """
        import numba

        from ranklens._compute.kernels import rank_levels

        if self._levels is None:
            # the level orders as a byte a row and level (the bits the sweep reads of them)
            self._levels = rank_levels.level_plan(
                self.orders, self.p_sorted, self.n_preds, coded=True
            )
        top_rows, p_top, perms = self._levels
        rows = block.rows
        width = min(rank_levels.LEVEL_BATCH, rows)
        bw = self.base_weight
        # unit case weights: the weights are the multiplicities, the block's shared lanes
        weights = block.lanes() if self._unit_weights else None
        # One row (the check on the full sample) sweeps in half the time as one float64 lane
        # than padded to 32 uint8 lanes; integer weights give the same values either way.
        if (
            weights is None
            and rows > 1
            and np.all((bw >= 0) & (bw <= rank_levels.SMALL_WEIGHT) & (bw == np.floor(bw)))
        ):
            # (read from the block as drawn: uint8 counts are never widened to float64)
            weights, fits = rank_levels.batch_weights_small(block.weights, bw, width)
            if not fits:
                weights = None
        if weights is None:
            weights = rank_levels.batch_weights_float(block.weights, bw, width)
        threads = numba.get_num_threads()
        run: Any = (  # (a numba dispatcher: its arguments are typed by numba)
            rank_levels.level_statistics_parallel
            if threads > 1
            else rank_levels.level_statistics_serial
        )
        plan = (top_rows, p_top, perms, self.y_sorted, self.p_sorted, self.n_preds)
        if weights.dtype != np.uint8:
            return run(weights, rows, *plan)
        # Compact weights: the models in groups of as many tasks as threads, each task with
        # buffers kept from one block to the next (no more memory than the tasks that run at
        # once would take afresh, and no page faults after the first block).
        batches = weights.shape[0]
        per_call = max(1, min(threads, self.max_tasks) // batches)
        n_models = top_rows.shape[0]
        tasks = min(n_models, per_call) * batches
        if self._scratch is None or self._scratch[0].shape[0] < tasks:
            self._scratch = rank_levels.level_scratch(tasks, block.n, int(self.n_preds.max()))
        out = np.empty((rows, len(GROUP_SUMS), n_models))
        for m0 in range(0, n_models, per_call):
            part = slice(m0, min(m0 + per_call, n_models))
            out[:, :, part] = run(weights, rows, *(a[part] for a in plan), self._scratch)
        return out

    def _select(self, sums: np.ndarray | dict[str, np.ndarray]) -> np.ndarray:
        """The group sums (a kernel's ``(rows, RANK_SUMS, n_models)`` output, or a mapping of
        ``(rows, n_models)`` arrays) -> ``(rows, len(forms), n_models)`` metrics: each form's
        statistic of the pair classes, mapped by its transform."""
        if isinstance(sums, np.ndarray):
            sums = {name: sums[:, k, :] for k, name in enumerate(GROUP_SUMS)}
        classes = replicate_classes(sums)
        with np.errstate(invalid="ignore"):
            return np.stack(
                [form.transform(form.statistic(classes)) for form in self.forms], axis=1
            )

    def evaluate_block(self, block: Block) -> np.ndarray:
        n = block.n
        if NUMPY_TWINS.get():
            return self._select(self._evaluate_numpy(block.multiplicity))
        self._prepare()
        if n > POLICY.level_sweep_above:  # precomputed level orders, 32 replicates a sweep
            return self._select(self._evaluate_levels(block))
        # batches of replicates swept together, bit-identical to one replicate per sweep
        raw = kernel("rank_batches", 30 * n * self.orders.shape[0], n)(
            np.ascontiguousarray(block.multiplicity),
            self.base_weight,
            self.orders,
            self.y_sorted,
            self.p_sorted,
            self.n_preds,
        )
        return self._select(raw)

    def evaluate_swapped(self, swaps: np.ndarray, a: int, b: int) -> np.ndarray:
        self._prepare()
        if (a, b) not in self._union:
            # Dense ranks in the union of both models' predictions: mixed vectors compare right.
            union, n_union = self._dense_ranks(np.concatenate([self.preds[a], self.preds[b]]))
            n = self.y_rank.shape[0]
            self._union[(a, b)] = (union[:n].copy(), union[n:].copy(), n_union)
        rank_a, rank_b, n_union = self._union[(a, b)]
        if self._by_y is None:  # the rows by y (the permutation test's alone)
            y_order = np.argsort(self.y_rank, kind="stable")
            self._by_y = (y_order, self.y_rank[y_order])
        y_order, y_ranks_by_y = self._by_y
        raw = kernel("swapped_rank", 80 * swaps.shape[1], swaps.shape[1])(
            swaps, self.base_weight, y_order, y_ranks_by_y, rank_a, rank_b, n_union
        )
        return self._select(raw)


class Block:
    """One block of replicate weights, as each evaluator reads it: the float64 multiplicities
    (``(rows, n)``, made on first use from uint8 counts,
    :func:`ranklens._inference.resampling.bootstrap_blocks` with ``compact``) and, above
    ``POLICY.level_sweep_above`` rows where the rank sweep runs on level orders, the same weights as
    uint8 lanes made once, on first use, for every evaluator that reads them: the rank sweep
    (unit case weights) and the loss sums. A block of 32 replicates is then 32 bytes a data row
    instead of 256 bytes of float64 multiplicities read once per evaluator and replicate, and a
    block drawn as counts is never widened to float64 unless an evaluator needs it.

    Parameters
    ----------
    weights : ndarray of shape (rows, n)
        The block as drawn: float64 multiplicities or uint8 counts.

    Attributes
    ----------
    weights : ndarray
        The block as drawn.
    rows, n : int
        Replicates and data rows.
    """

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights  # as drawn: float64 multiplicities or uint8 counts
        self.rows, self.n = weights.shape
        self._multiplicity = weights if weights.dtype != np.uint8 else None
        self._lanes_made = False
        self._lanes: np.ndarray | None = None

    @property
    def multiplicity(self) -> np.ndarray:
        """``(rows, n)`` float64 multiplicities (kept: small blocks only; large ones are read
        :meth:`row_step` rows at a time, :meth:`multiplicity_rows`)."""
        if self._multiplicity is None:
            self._multiplicity = self.weights.astype(np.float64)
        return self._multiplicity

    def row_step(self) -> int:
        """Replicate rows whose float64 multiplicities an evaluator without lanes gets at once:
        the whole block, or as many rows as :data:`ranklens._inference.resampling.BLOCK_CELLS` cells
        (32 MiB) hold when the block is uint8 counts on more (32 rows of 2e7 counts would be
        5 GB as float64)."""
        if self._multiplicity is not None or self.weights.dtype != np.uint8:
            return self.rows
        return max(1, min(self.rows, BLOCK_CELLS // max(self.n, 1)))

    def multiplicity_rows(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start .. stop - 1`` of :attr:`multiplicity` (made for them alone, unless
        the whole block is made already)."""
        if self._multiplicity is not None or (start == 0 and stop >= self.rows):
            return self.multiplicity[start:stop]
        return self.weights[start:stop].astype(np.float64)

    def lanes(self) -> np.ndarray | None:
        """``(batches, n, 32)`` uint8, or None up to ``POLICY.level_sweep_above`` rows (or on the
        NumPy twins), when a multiplicity is not an integer in [0, 255] or when a block of
        float64 weights has fewer than 32 rows (then each evaluator reads the multiplicities).
        A block of uint8 counts always has them (its last batch padded with zero lanes): a
        bootstrap's last, short block is then never widened to float64."""
        if not self._lanes_made:
            self._lanes_made = True
            if not compact_blocks(self.n):  # (small data: numba is not imported for them)
                return None
            from ranklens._compute.kernels import rank_levels

            width = rank_levels.LEVEL_BATCH
            if self.weights.dtype == np.uint8:  # counts: every one fits
                self._lanes = rank_levels.count_lanes(self.weights, width)
            elif self.rows >= width:
                batch, fits = rank_levels.batch_weights_small(self.weights, np.ones(self.n), width)
                self._lanes = batch if fits else None
        return self._lanes


def compact_blocks(n: int) -> bool:
    """Whether blocks on ``n`` rows are read as uint8 lanes (and so best drawn as counts).

    Parameters
    ----------
    n : int
        Data rows.

    Returns
    -------
    bool
        Above ``POLICY.level_sweep_above`` rows (:mod:`ranklens._foundation.route`), off the NumPy
        twins.
    """
    return n > POLICY.level_sweep_above and not NUMPY_TWINS.get()


def evaluate_one(evaluator: Evaluator, block: Block) -> np.ndarray:
    """``(rows, len(positions), n_models)``: one evaluator on one block (an evaluator without
    lanes gets the float64 multiplicities :meth:`Block.row_step` rows at a time: each
    replicate's values are its own, however many rows a call has).

    Parameters
    ----------
    evaluator : Evaluator
        The evaluator.
    block : Block
        The block of replicate weights.

    Returns
    -------
    ndarray of float64
        The replicates' values.
    """
    if isinstance(evaluator, LaneReader):
        return evaluator.evaluate_block(block)
    step = block.row_step()
    if step >= block.rows:
        return evaluator.evaluate(block.multiplicity)
    return np.concatenate(
        [
            evaluator.evaluate(block.multiplicity_rows(r0, min(r0 + step, block.rows)))
            for r0 in range(0, block.rows, step)
        ],
        axis=0,
    )


def evaluate_all(
    evaluators: list[Evaluator],
    weights: np.ndarray,
    out: np.ndarray,
    progress: Progress | None = None,
) -> Block:
    """Fill ``out[rows, metric, model]`` for one block of replicate weights (float64
    multiplicities or uint8 counts); returns the block as the evaluators read it. ``progress``
    advances by the block's rows, a share after each evaluator (a block of a large data set
    takes seconds: its progress is not held back to its end).

    Parameters
    ----------
    evaluators : list of Evaluator
        Evaluators covering the measures.
    weights : ndarray of shape (rows, n)
        The block as drawn.
    out : ndarray of float64 of shape (rows, n_measures, n_models)
        Filled in place.
    progress : Progress, optional
        The progress bar advanced.

    Returns
    -------
    Block
        The block, with the lanes the evaluators made (read again by the jackknife groups).
    """
    block = Block(weights)
    share = block.rows / max(len(evaluators), 1)
    for i, evaluator in enumerate(evaluators):
        out[:, evaluator.positions, :] = evaluate_one(evaluator, block)
        if progress is not None:
            last = i == len(evaluators) - 1
            progress.advance(block.rows - share * i if last else share)
    if progress is not None and not evaluators:
        progress.advance(block.rows)
    return block


def block_group_counts(block: Block, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """The block's weight per jackknife group (:func:`ranklens._inference.resampling.group_counts`),
    from its uint8 lanes where it has them (one pass of 32 bytes a data row): the same sums.

    Parameters
    ----------
    block : Block
        The block of replicate weights.
    groups : ndarray of int
        The group of each data row.
    n_groups : int
        The number of groups.

    Returns
    -------
    ndarray of shape (rows, n_groups)
        Each replicate's weight per group.
    """
    lanes = block.lanes()
    if lanes is None:
        return group_counts(block.weights, groups, n_groups)
    from ranklens._compute.kernels import rank_levels

    return np.asarray(rank_levels.group_lane_sums(lanes, block.rows, groups, n_groups))


#: Resampled units up to which ratio-form measures get the studentized interval (its per-unit
#: columns, about 8 (2 + 2 m) bytes a unit per model and measure, and one more matrix product
#: per block); above, BCa (or percentile), where the studentized and the BCa intervals agree
#: but for long tails, which the tail weight flags either way.
STUDENTIZED_MAX_UNITS = 100_000


def studentizer(
    specs: Sequence[MetricSpec],
    y: np.ndarray,
    preds: np.ndarray,
    sw: np.ndarray | None,
    resampler: Resampler,
    pair_index: list[tuple[int, int]],
    n_boot: int,
) -> RatioStudentizer | None:
    """The per-replicate standard errors of the ratio-form measures (None: none of them, or
    more units than :data:`STUDENTIZED_MAX_UNITS`).

    Parameters
    ----------
    specs : sequence of MetricSpec
        The measures, in the comparison's order.
    y : ndarray of float64
        The truth.
    preds : ndarray of float64 of shape (n_models, n)
        The models' predictions.
    sw : ndarray of float64 or None
        Case weights.
    resampler : Resampler
        How the replicates are drawn (its units).
    pair_index : list of (int, int)
        The pairs of models compared.
    n_boot : int
        Replicates.

    Returns
    -------
    RatioStudentizer or None
        What accumulates the standard errors block by block.
    """
    forms = {
        k: spec.capabilities.batched
        for k, spec in enumerate(specs)
        if isinstance(spec.capabilities.batched, RatioForm)
    }
    if not forms or resampler.n_units > STUDENTIZED_MAX_UNITS:
        return None
    return RatioStudentizer(forms, y, preds, sw, resampler.unit_of_row, pair_index, n_boot)
