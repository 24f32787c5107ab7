"""The GPU engine of the bootstrap: replicates drawn and evaluated on a CUDA device through CuPy.

``compare_models(..., device="gpu")`` hands its resampling here. The engine reads what each
measure declares (:class:`~ranklens._foundation.registry.MetricSpec` ``capabilities.batched``) and
never its name:

* a :class:`~ranklens._foundation.forms.RankSweepForm` (Kendall's tau-b, Spearman's rho, Harrell's C
  and the measures derived from them, e.g. the AUC of a binary outcome) is evaluated by the
  array-API kernels of :mod:`ranklens._compute.xp.rank`: the level orders of each model are built
  once on the device with sorts; each chunk of replicates is gathers, prefix sums and masked sums,
  with exact int64 pair counts for integer weights;
* a :class:`~ranklens._foundation.forms.RatioForm` (the mean losses) is one float64 matrix product
  ``W @ L`` per chunk;
* a :class:`~ranklens._foundation.forms.ReplicateForm` whose sweep gives the array-namespace entry
  points (``ReplicateSweep.device_prepare`` / ``device_evaluate``: the targeting measures, the
  AUC, KS, gain area, accuracy ratio and lifts, from weighted prefix sums over each model sorted
  once by its score, :mod:`ranklens._compute.xp.targeting`) is evaluated by that sweep on the
  device, with int64 sums of integer weights;
* any other measure is refused with a ValueError that names it.

Replicates are the same multinomial bootstrap as on the CPU (n rows drawn with replacement per
replicate, as multiplicities), drawn on the device by CuPy's generator seeded from
``random_state``: reproducible on the GPU, but not the same draws as the CPU path. For the same
weights the two engines give the same values (counts exactly, floats to rounding). Chunks of
replicates are sized from the device's free memory and from the int64 bounds of the exact sums.

The engine runs unchanged on NumPy (``namespace=numpy``), which is how the test suite checks it
without a GPU.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import Any, cast

import numpy as np

from ranklens._compute.xp import cuda as _cuda
from ranklens._compute.xp import (
    cupy_or_raise,
    free_bytes,
    is_cupy,
    is_device_array,
    to_host,
    to_namespace,
)
from ranklens._compute.xp import curves as _xpc
from ranklens._compute.xp.measures import DEVICES, resolve_device
from ranklens._compute.xp.rank import (
    build_plan,
    max_rows_exact,
    plan_bytes,
    replicate_bytes,
    replicate_classes,
    replicate_statistics,
)
from ranklens._foundation.forms import RankSweepForm, RatioForm, ReplicateForm
from ranklens._foundation.registry import MetricSpec
from ranklens._inference.resampling import Resampler

__all__ = [
    "DEVICES",
    "DeviceEngine",
    "curve_band_replicates",
    "device_curve_sweep",
    "device_namespace",
    "resolve_device",
]

# The share of the free device memory one chunk of replicates may take.
_MEMORY_SHARE = 0.5


def device_namespace() -> ModuleType:
    """The array namespace of ``device="gpu"``: CuPy, with a usable CUDA device."""
    return cupy_or_raise("device='gpu'")


def _gpu_form(spec: MetricSpec) -> RankSweepForm | RatioForm | ReplicateForm | None:
    form = spec.capabilities.batched
    if isinstance(form, ReplicateForm):
        sweep = form.sweep
        on_device = sweep.device_prepare is not None and sweep.device_evaluate is not None
        return form if on_device else None
    return form if isinstance(form, RankSweepForm | RatioForm) else None


def refuse_without_gpu_form(specs: list[MetricSpec]) -> None:
    """ValueError naming the measures that declare no form the GPU engine evaluates."""
    missing = [s.name for s in specs if _gpu_form(s) is None]
    if missing:
        raise ValueError(
            "device='gpu' evaluates the measures that declare a rank-sweep or ratio form, or a "
            "replicate sweep with an array-namespace form (capabilities.batched); these have "
            f"none: {', '.join(missing)}. Leave them out or use device='cpu'"
        )


class DeviceEngine:
    """The caller's arrays (device arrays kept where they are) and the GPU evaluators.

    Parameters
    ----------
    y_true, predictions, sample_weight
        As given to ``compare_models``; CuPy arrays and DLPack tensors stay on the device.
    namespace : module, optional
        The array namespace; default CuPy (:func:`device_namespace`). NumPy runs the same code on
        the host (tests).
    """

    def __init__(
        self,
        y_true: Any,
        predictions: Any,
        sample_weight: Any,
        *,
        namespace: ModuleType | None = None,
    ) -> None:
        self.xp = device_namespace() if namespace is None else namespace
        self._y = y_true
        self._predictions = predictions
        self._sample_weight = sample_weight

    def host(self) -> tuple[Any, Any, Any]:
        """Host copies of the inputs for validation and the point estimates (same containers)."""
        predictions = self._predictions
        if isinstance(predictions, Mapping):
            predictions = {k: to_host(v) for k, v in predictions.items()}
        return to_host(self._y), predictions, to_host(self._sample_weight)

    def _on_device(self, given: Any, host: np.ndarray) -> Any:
        """The device copy: the caller's device array when there is one, else the host array."""
        if is_cupy(self.xp) and is_device_array(given):
            arr = to_namespace(given, self.xp)
            if arr.shape == host.shape:
                return arr.astype(self.xp.float64, copy=False)
        return self.xp.asarray(host)

    def evaluators(
        self,
        specs: list[MetricSpec],
        y: np.ndarray,
        preds: np.ndarray,
        sample_weight: np.ndarray | None,
        values: np.ndarray,
    ) -> list[Any]:
        """One evaluator per form (rank sweep, ratio), each checked against ``values``."""
        refuse_without_gpu_form(specs)
        xp = self.xp
        y_dev = self._on_device(self._y, y)
        given = self._predictions if isinstance(self._predictions, Mapping) else {}
        given_list = list(given.values()) if len(given) == preds.shape[0] else [None] * len(preds)
        preds_dev = [self._on_device(g, p) for g, p in zip(given_list, preds, strict=True)]
        weight = _base_weight(xp, sample_weight)
        forms = [_gpu_form(s) for s in specs]
        evaluators: list[Any] = []
        rank = [k for k, f in enumerate(forms) if isinstance(f, RankSweepForm)]
        if rank:
            evaluators.append(
                RankEvaluator(rank, [forms[k] for k in rank], xp, y_dev, preds_dev, weight)
            )
        ratio = [k for k, f in enumerate(forms) if isinstance(f, RatioForm)]
        if ratio:
            evaluators.append(
                RatioEvaluator(ratio, [forms[k] for k in ratio], xp, y, preds, weight)
            )
        # one evaluator per replicate sweep and bound parameters: one pass serves its measures
        groups: dict[tuple[int, tuple[tuple[str, Any], ...]], list[int]] = {}
        for k, f in enumerate(forms):
            if isinstance(f, ReplicateForm):
                groups.setdefault((id(f.sweep), f.bound), []).append(k)
        for positions in groups.values():
            chosen = [cast(ReplicateForm, forms[k]) for k in positions]
            evaluator = SweepEvaluator(positions, chosen, xp, y_dev, preds_dev, weight)
            if evaluator.state is None:
                names = ", ".join(specs[k].name for k in positions)
                raise ValueError(
                    f"device='gpu': the replicate sweep of {names} cannot reproduce them for "
                    "these parameters; use device='cpu'"
                )
            evaluators.append(evaluator)
        ones = np.ones((1, y.shape[0]))
        for evaluator in evaluators:
            full = evaluator.evaluate(ones)[0]
            for j, k in enumerate(evaluator.positions):
                if not np.allclose(full[j], values[k], rtol=1e-9, atol=1e-12, equal_nan=True):
                    raise ValueError(
                        f"device='gpu': the declared form of {specs[k].name!r} does not reproduce "
                        f"its registered function on the full sample ({full[j]} against "
                        f"{values[k]}); use device='cpu'"
                    )
        return evaluators

    def resampler(self, base: Resampler, method: str) -> Resampler:
        """The resampler of the bootstrap on the device (multinomial rows drawn there): a
        :class:`DeviceResampler`, which has the interface of ``base``."""
        if method != "bootstrap":
            raise ValueError(f"device='gpu' runs method='bootstrap' only; got method={method!r}")
        return cast(Resampler, DeviceResampler(base, self))

    def bootstrap_blocks(
        self, rng: np.random.Generator, n: int, n_replicates: int
    ) -> Iterator[Any]:
        """Blocks of multiplicity rows drawn on the device."""
        xp = self.xp
        seed = int(rng.integers(0, 2**63 - 1))
        generator = xp.random.default_rng(seed)
        rows = max(1, min(n_replicates, int(free_bytes(xp) * 0.25) // (16 * (n + 1))))
        for start in range(0, n_replicates, rows):
            stop = min(start + rows, n_replicates)
            yield draw_multiplicities(xp, generator, n, stop - start)


class DeviceResampler:
    """A :class:`ranklens._inference.resampling.Resampler` whose multinomial replicates are drawn on
    the device; the other schemes (and every scheme on NumPy) draw as on the CPU, and the evaluators
    move their blocks to the device."""

    def __init__(self, base: Any, engine: DeviceEngine) -> None:
        self.base = base
        self.engine = engine
        self.n_units = base.n_units
        self.unit_of_row = base.unit_of_row  # (the studentized intervals read one row a unit)
        self.scheme = base.scheme
        self.block_length = base.block_length

    def blocks(
        self, rng: np.random.Generator, n_replicates: int, *, compact: bool = False
    ) -> Iterator[Any]:
        """Float64 blocks, whatever ``compact`` asks: the device evaluators read no lanes."""
        on_device = is_cupy(self.engine.xp)
        if on_device and self.base.scheme == "multinomial" and self.base.unit_of_row is None:
            return self.engine.bootstrap_blocks(rng, self.base.n, n_replicates)
        return iter(self.base.blocks(rng, n_replicates))

    def jackknife_groups(self, rng: np.random.Generator) -> Any:
        return self.base.jackknife_groups(rng)


def draw_multiplicities(xp: ModuleType, generator: Any, n: int, rows: int) -> Any:
    """``(rows, n)`` int32 multiplicities: each row counts n indices drawn with replacement."""
    idx = generator.integers(0, n, size=(rows, n), dtype=xp.int64)
    idx += xp.arange(rows, dtype=xp.int64)[:, None] * n
    counts = xp.bincount(xp.reshape(idx, (-1,)), minlength=rows * n)
    del idx
    return xp.reshape(counts.astype(xp.int32), (rows, n))


def _base_weight(xp: ModuleType, sample_weight: np.ndarray | None) -> Any:
    """None (unit weights), int64 for integer-valued case weights (exact), else float64."""
    if sample_weight is None:
        return None
    sw = np.asarray(sample_weight, dtype=np.float64)
    if np.all(sw == np.round(sw)) and sw.max(initial=0.0) < 2.0**31:
        return xp.asarray(sw.astype(np.int64))
    return xp.asarray(sw)


def _replicate_weights(xp: ModuleType, multiplicity: Any, base: Any) -> Any:
    """Replicate weights on the device: int32 multiplicities, times the case weights if any."""
    m = to_namespace(multiplicity, xp)
    if m.dtype.kind == "f":
        if not bool(xp.all(m == xp.floor(m))):
            raise ValueError("device='gpu' needs integer multiplicities")
        m = m.astype(xp.int32)
    if base is None:
        return m if m.dtype == xp.int32 else m.astype(xp.int32)
    return m.astype(base.dtype) * base[None, :]


def _chunks(xp: ModuleType, weights: Any, n: int, n_models: int) -> Iterator[slice]:
    """Row slices of ``weights`` that fit the free memory and the exact int64 bounds."""
    rows = weights.shape[0]
    per_row = replicate_bytes(n)
    by_memory = int(free_bytes(xp) * _MEMORY_SHARE) // per_row
    if by_memory < 1:
        raise ValueError(
            f"n = {n} rows is beyond this device's capacity: one replicate needs about "
            f"{per_row / 2**30:.1f} GiB and {free_bytes(xp) / 2**30:.1f} GiB are free"
        )
    step = min(rows, by_memory)
    if weights.dtype.kind in "iu":
        total = int(xp.max(xp.sum(weights, axis=1, dtype=xp.int64)))
        step = min(step, max_rows_exact(total))
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))


class RankEvaluator:
    """Measures declared as a :class:`RankSweepForm`, every model, per replicate, on the device."""

    path = "gpu"

    def __init__(
        self,
        positions: list[int],
        forms: list[Any],
        xp: ModuleType,
        y: Any,
        preds: list[Any],
        base_weight: Any,
    ) -> None:
        self.positions = positions
        self.forms = forms
        self.xp = xp
        self.n = int(y.shape[0])
        need = plan_bytes(self.n) * len(preds)
        if need > free_bytes(xp):
            raise ValueError(
                f"n = {self.n} rows is beyond this device's capacity: the sort structures of "
                f"{len(preds)} model(s) need about {need / 2**30:.1f} GiB and "
                f"{free_bytes(xp) / 2**30:.1f} GiB are free"
            )
        self.plans = [build_plan(xp, y, p) for p in preds]
        self.base_weight = base_weight
        # the fused level kernel on CuPy (ranklens._compute.xp.cuda), the generic code elsewhere
        self.level_term = _cuda.fused_level_term if is_cupy(xp) else None

    def classes(self, multiplicity: Any) -> dict[str, np.ndarray]:
        """The pair classes and midrank moments of every replicate row and model, host arrays of
        shape ``(rows, n_models)`` (:func:`ranklens._compute.xp.rank.replicate_classes`)."""
        xp = self.xp
        weights = _replicate_weights(xp, multiplicity, self.base_weight)
        blocks = []
        for rows in _chunks(xp, weights, self.n, len(self.plans)):
            per_model = []
            for plan in self.plans:
                stats = replicate_statistics(xp, plan, weights[rows], level_term=self.level_term)
                per_model.append(replicate_classes({k: to_host(v) for k, v in stats.items()}))
            blocks.append({k: np.stack([c[k] for c in per_model], axis=1) for k in per_model[0]})
        return {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}

    def evaluate(self, multiplicity: Any) -> np.ndarray:
        classes = self.classes(multiplicity)
        with np.errstate(invalid="ignore"):
            return np.stack(
                [np.asarray(f.transform(f.statistic(classes))) for f in self.forms], axis=1
            )


class SweepEvaluator:
    """Measures declared as a :class:`ReplicateForm` of one sweep with the array-namespace form:
    ``sweep.device_prepare`` once for every model, ``sweep.device_evaluate`` per chunk."""

    path = "gpu"

    def __init__(
        self,
        positions: list[int],
        forms: list[ReplicateForm],
        xp: ModuleType,
        y: Any,
        preds: list[Any],
        base_weight: Any,
    ) -> None:
        self.positions = positions
        self.sweep = forms[0].sweep
        self.statistics = tuple(f.statistic for f in forms)
        self.xp = xp
        self.n = int(y.shape[0])
        self.n_models = len(preds)
        self.base_weight = base_weight
        assert self.sweep.device_prepare is not None  # checked by _gpu_form
        self.state = self.sweep.device_prepare(xp, y, xp.stack(preds), dict(forms[0].bound))

    def evaluate(self, multiplicity: Any) -> np.ndarray:
        xp = self.xp
        assert self.sweep.device_evaluate is not None
        weights = _replicate_weights(xp, multiplicity, self.base_weight)
        out = np.empty((weights.shape[0], len(self.statistics), self.n_models))
        for rows in _chunks(xp, weights, self.n, self.n_models):
            values = self.sweep.device_evaluate(xp, self.state, weights[rows], self.statistics)
            out[rows] = to_host(values)
        return out


class RatioEvaluator:
    """Measures declared as a :class:`RatioForm`: ``finalize(W @ num / W @ den)`` in float64."""

    path = "gpu"

    def __init__(
        self,
        positions: list[int],
        forms: list[Any],
        xp: ModuleType,
        y: np.ndarray,
        preds: np.ndarray,
        base_weight: Any,
    ) -> None:
        self.positions = positions
        self.forms = forms
        self.xp = xp
        self.n = y.shape[0]
        self.base_weight = base_weight
        columns = []
        with np.errstate(all="ignore"):
            for pred in preds:
                for form in forms:
                    columns.append(form.numerator(y, pred))
                    den = form.denominator
                    columns.append(np.ones_like(y) if den is None else den(y, pred))
        self.columns = xp.asarray(np.stack(columns, axis=1))  # (n, 2 * forms * models)
        self.n_models = preds.shape[0]

    def evaluate(self, multiplicity: Any) -> np.ndarray:
        xp = self.xp
        weights = _replicate_weights(xp, multiplicity, self.base_weight)
        rows_total = weights.shape[0]
        out = np.empty((rows_total, len(self.forms), self.n_models))
        step = max(1, int(free_bytes(xp) * _MEMORY_SHARE) // (8 * (self.n + 1) * 2))
        for start in range(0, rows_total, step):
            block = weights[start : start + step].astype(xp.float64)
            sums = to_host(block @ self.columns)
            sums = sums.reshape(block.shape[0], self.n_models, len(self.forms), 2)
            with np.errstate(all="ignore"):
                for j, form in enumerate(self.forms):
                    ratio = sums[:, :, j, 0] / sums[:, :, j, 1]
                    out[start : start + block.shape[0], j, :] = form.finalize(ratio)
        return out


def device_curve_sweep(spec: Any) -> Any:
    """The curve's :class:`ranklens._foundation.curve_registry.CurveSweepForm` if it has the
    array-namespace form, else ``ValueError`` naming the curve."""
    sweep = spec.sweep
    if sweep is None or sweep.device_prepare is None or sweep.device_evaluate is None:
        raise ValueError(
            f"curve_bands(device='gpu'): the curve {spec.name!r} declares no array-namespace "
            "sweep, so its bands cannot run on the device; use device='cpu'"
        )
    return sweep


def curve_band_replicates(
    spec: Any,
    y: np.ndarray,
    preds: Any,
    sample_weight: np.ndarray | None,
    grid: np.ndarray,
    estimate: np.ndarray,
    resampler: Resampler,
    rng: np.random.Generator,
    n_replicates: int,
    advance: Any,
) -> np.ndarray:
    """``(n_replicates, n_models, n_grid)`` replicate curves of ``curve_bands(device="gpu")``.

    ``spec`` is the curve's :class:`ranklens._foundation.curve_registry.CurveSpec`; its sweep must
    give the namespace form (``device_prepare``, ``device_evaluate``), else ``ValueError`` naming
    the curve. Multinomial replicates without groups are drawn on the device (the draws of
    ``compare_models(device="gpu")`` with the same generator); the other schemes as on the CPU,
    moved there. Integer weights stay integers (exact sums); chunks of replicates are sized from
    the free memory and the int64 bound. ``advance(rows)`` reports progress.
    """
    sweep = device_curve_sweep(spec)
    xp = device_namespace()
    n = y.shape[0]
    y_d = xp.asarray(y)
    states = [sweep.device_prepare(xp, y_d, xp.asarray(np.asarray(pred))) for pred in preds]
    grid_d = xp.asarray(grid)
    base = _base_weight(xp, sample_weight)
    # the device sweep must reproduce the curve on the full sample, as on the CPU
    full = xp.ones((1, n), dtype=xp.int32) if base is None else base[None, :]
    for m, state in enumerate(states):
        check = to_host(sweep.device_evaluate(xp, state, full, grid_d))[0]
        if not np.allclose(check, estimate[m], rtol=1e-9, atol=1e-12, equal_nan=True):
            raise ValueError(
                f"curve_bands(device='gpu'): the device sweep of {spec.name!r} does not reproduce "
                f"the curve on the full sample ({check} against {estimate[m]}); use device='cpu'"
            )
    n_y = max(int(s.n_y) for s in states)
    per_row = _xpc.sweep_bytes(n, n_y)
    out = np.empty((n_replicates, len(states), grid.shape[0]))
    device_draws = is_cupy(xp) and resampler.scheme == "multinomial"
    device_draws = device_draws and resampler.unit_of_row is None
    if device_draws:
        generator = xp.random.default_rng(int(rng.integers(0, 2**63 - 1)))
        rows = max(1, min(n_replicates, int(free_bytes(xp) * 0.25) // (16 * (n + 1))))
        blocks: Iterator[Any] = (
            draw_multiplicities(xp, generator, n, min(rows, n_replicates - s))
            for s in range(0, n_replicates, rows)
        )
    else:
        blocks = iter(resampler.blocks(rng, n_replicates))
    start = 0
    for block in blocks:
        weights = _replicate_weights(xp, block, base)
        by_memory = int(free_bytes(xp) * _MEMORY_SHARE) // per_row
        if by_memory < 1:
            raise ValueError(
                f"n = {n} rows is beyond this device's capacity: one replicate needs about "
                f"{per_row / 2**30:.1f} GiB and {free_bytes(xp) / 2**30:.1f} GiB are free"
            )
        step = min(weights.shape[0], by_memory)
        if weights.dtype.kind in "iu":
            total = int(xp.max(xp.sum(weights, axis=1, dtype=xp.int64)))
            step = min(step, max_rows_exact(total))
        for lo in range(0, weights.shape[0], step):
            chunk = weights[lo : lo + step]
            for m, state in enumerate(states):
                values = sweep.device_evaluate(xp, state, chunk, grid_d)
                out[start + lo : start + lo + chunk.shape[0], m] = to_host(values)
        start += weights.shape[0]
        advance(weights.shape[0])
        del weights
    return out
