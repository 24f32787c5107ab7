"""Compile every kernel ahead of use (``ranklens warmup``), once per install.

numba compiles a kernel on its first call and caches the machine code on disk
(:mod:`ranklens._foundation.cache`). A fresh install therefore pays seconds of compilation on its
first calls; :func:`warmup` pays all of it at once, by calling every family of measures on a small
synthetic data set, unweighted and weighted, the whole evaluation pipeline, and both drivers (serial
and parallel) of the bootstrap kernels. The inputs go through the library's validation, which hands
the kernels C-contiguous float64 arrays, so the signatures compiled here are the ones real data use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from ranklens._foundation.route import Thresholds, kernels_at_any_size

__all__ = ["STEPS", "WarmupReport", "kernel_dispatchers", "kernel_modules", "warmup"]


@dataclasses.dataclass(frozen=True)
class WarmupReport:
    """What :func:`warmup` did: seconds per step, kernels ready, and where they are cached."""

    seconds: dict[str, float]
    n_kernels: int
    n_ready: int
    cache_dir: str

    @property
    def total_seconds(self) -> float:
        return float(sum(self.seconds.values()))


def kernel_modules() -> tuple[ModuleType, ...]:
    """The kernel modules whose kernels :func:`kernel_dispatchers` lists (importing them imports
    numba)."""
    from ranklens._compute.kernels import (
        compare,
        curves,
        delong,
        intervals,
        isotonic,
        listwise,
        pcg64,
        rank_levels,
        ranking,
        resampling,
        residual,
        utility,
    )

    return (
        compare,
        curves,
        delong,
        intervals,
        isotonic,
        listwise,
        pcg64,
        rank_levels,
        ranking,
        resampling,
        residual,
        utility,
    )


def kernel_dispatchers() -> dict[str, Any]:
    """Every numba kernel defined in a kernel module (:func:`kernel_modules`), as
    ``"module.name"`` (the module's name within ``ranklens._compute.kernels``).

    Helpers marked ``inline="always"`` are left out: they are compiled into their callers and
    never on their own.
    """
    from numba.core.registry import CPUDispatcher

    out = {}
    for module in kernel_modules():
        module_name = module.__name__.rsplit(".", 1)[-1]
        for name, value in vars(module).items():
            # Only the module's own kernels (ranking re-exports the curves' radix sort).
            if not isinstance(value, CPUDispatcher) or value.py_func.__module__ != module.__name__:
                continue
            if value.targetoptions.get("inline") != "always":
                out[f"{module_name}.{name}"] = value
    return out


def _data(n: int = 120) -> dict[str, Any]:
    """A small task with ties, a long-tailed target, two models, intervals and weights."""
    rng = np.random.default_rng(0)
    y = np.round(rng.lognormal(mean=2.0, sigma=1.0, size=n), 1)
    good = y * rng.lognormal(0.0, 0.3, n)
    poor = np.round(y.mean() + rng.normal(0.0, y.std(), n), 0)
    return {
        "y": y,
        "preds": {"good": good, "poor": poor},
        "lower": good * 0.6,
        "upper": good * 1.5,
        "weight": rng.uniform(0.5, 2.0, n),
        "groups": np.repeat(np.arange(n // 10), 10),
    }


def _measures(d: dict[str, Any]) -> None:
    """Every registered measure, unweighted and weighted (the registry, not a list of names)."""
    from ranklens.metrics import available_metrics, get_metric

    y, p, w = d["y"], d["preds"]["good"], d["weight"]
    for name in available_metrics():
        spec = get_metric(name)
        args = (y, d["lower"], d["upper"]) if spec.inputs == "interval" else (y, p)
        kwargs = {"alpha": 0.2} if spec.inputs == "interval" else {}
        with contextlib.suppress(Exception):  # a measure undefined here compiled all the same
            spec.func(*args, **kwargs)
        if spec.supports_sample_weight:
            with contextlib.suppress(Exception):
                spec.func(*args, sample_weight=w, **kwargs)


def _extras(d: dict[str, Any]) -> None:
    """Public functions outside the registry and the pipeline's defaults."""
    from ranklens.agreement import ranking_agreement
    from ranklens.delong import delong_test
    from ranklens.listwise import ndcg_by_group, rank_distance_ndcg
    from ranklens.metrics import get_metric
    from ranklens.ranking import (
        concordance_profile,
        cutoff_auc_curve,
        partial_kendall_tau,
        partial_spearman_rho,
        per_observation_pair_counts,
        rank_lift_curve,
        ranking_summary,
    )
    from ranklens.relevance import boxplot_stats, medcouple, relevance_from_boxplot
    from ranklens.residual import rec_curve, rroc_curve
    from ranklens.robustness import breakdown_curve, most_influential
    from ranklens.targeting import decile_table, gain_curve, lift_curve, roc_curve

    y, p, w = d["y"], d["preds"]["good"], d["weight"]
    # NDCG's run of tie blocks, read from its registry entry as the Dask engine reads it
    ndcg_list = get_metric("ndcg_score").capabilities.ranked_list
    assert ndcg_list is not None
    segment = ndcg_list.segment
    calls: list[Callable[[], Any]] = [
        lambda: ranking_summary(y, p),
        lambda: per_observation_pair_counts(y, p),
        lambda: partial_kendall_tau(y, p, [0.1, 0.5]),
        lambda: partial_spearman_rho(y, p, [0.1, 0.5]),
        lambda: ndcg_by_group(y, p, d["groups"]),
        lambda: ndcg_by_group(y, p, d["groups"], sample_weight=w),
        lambda: rank_distance_ndcg(np.arange(1.0, 11.0), np.arange(10.0, 0.0, -1.0), n=10),
        # the Dask engine's runs of NDCG (ranklens.dask._listwise), from a carry-in position
        lambda: segment(np.sort(np.abs(y))[::-1], np.sort(np.abs(y))[::-1], None, 2.0, 1.0),
        lambda: segment(np.sort(np.abs(y))[::-1], np.sort(np.abs(y))[::-1], w, 2.0, 1.0),
        lambda: medcouple(y),
        lambda: relevance_from_boxplot(y, adjusted=True, sample_weight=w),
        lambda: relevance_from_boxplot(y, shape="pchip")(y),
        lambda: boxplot_stats(y, sample_weight=w),
        lambda: most_influential(y, p, metric="kendall_tau"),
        lambda: most_influential(y, p, metric="spearman_rho"),
        lambda: breakdown_curve(y, p, metric="mean_absolute_error"),
        lambda: ranking_agreement(p, d["preds"]["poor"], sample_weight=w),
        # DeLong: the one-sample (continuous y) and the midrank (binary y) components
        lambda: delong_test(y, p, d["preds"]["poor"]),
        lambda: delong_test(y > np.median(y), p, d["preds"]["poor"]),
    ]
    weighted_curves = (
        roc_curve,
        gain_curve,
        lift_curve,
        decile_table,
        concordance_profile,
        cutoff_auc_curve,
        rank_lift_curve,
        rec_curve,
        rroc_curve,
    )
    calls.extend(functools.partial(curve, y, p, sample_weight=w) for curve in weighted_curves)
    for call in calls:
        with contextlib.suppress(Exception):
            call()


def _pipeline(d: dict[str, Any], weighted: bool) -> None:
    """The evaluation behind ``ranklens evaluate``: curves, robustness, bootstrap and bands."""
    from ranklens._engines.entry import evaluate_models

    evaluate_models(
        d["y"],
        d["preds"],
        intervals={"good": (d["lower"], d["upper"])},
        alpha=0.2,
        sample_weight=d["weight"] if weighted else None,
        value_margin=1.0,
        events="top:0.2",
        n_bootstrap=8,
        bootstrap_budget_s=float("inf"),
        show_progress=False,
    )


def _swept_metrics() -> list[Any]:
    """The registered point measures whose replicates a ReplicateSweep computes."""
    from ranklens._foundation.forms import ReplicateForm
    from ranklens.metrics import available_metrics, get_metric

    specs = [get_metric(name) for name in available_metrics(inputs="point")]
    return [s for s in specs if isinstance(s.capabilities.batched, ReplicateForm)]


def _resampling(d: dict[str, Any]) -> None:
    """Both drivers of every bootstrap and permutation kernel."""
    import numba

    from ranklens.bands import curve_bands
    from ranklens.compare import compare_models
    from ranklens.metrics import available_curves

    def run() -> None:
        for method in ("bootstrap", "permutation"):
            compare_models(
                d["y"],
                d["preds"],
                n_bootstrap=8,
                method=method,
                random_state=0,
                show_progress=False,
            )
        # the measures whose replicates a sweep computes (ReplicateForm), with their defaults,
        # and the bands read off the same sweep
        compare_models(
            d["y"], d["preds"], metrics=_swept_metrics(), n_bootstrap=8, show_progress=False
        )
        for curve in available_curves(banded=True):
            curve_bands(d["y"], d["preds"], curve=curve, n_bootstrap=8, show_progress=False)

    # the kernels at any size (below the policy's sizes a first call runs in NumPy while its
    # kernel is not compiled, so 120 rows would compile none), then their parallel drivers too
    with kernels_at_any_size(Thresholds.FIRST_CALLS):
        run()
        if numba.get_num_threads() > 1:  # one thread: the parallel drivers are never used
            with kernels_at_any_size(Thresholds.DRIVERS):
                run()
    # counter-based Poisson weights (rows and units as keys, both drivers) and the replicates'
    # weight per jackknife group (BCa's acceleration from a million rows on)
    from ranklens._inference.resampling import group_counts, kernels_only

    poisson: dict[str, Any] = {
        "metrics": ["kendall_tau"],
        "n_bootstrap": 8,
        "scheme": "poisson",
        "show_progress": False,
    }
    for which in (Thresholds.FIRST_CALLS, Thresholds.FIRST_CALLS | Thresholds.DRIVERS):
        with kernels_at_any_size(which):
            compare_models(d["y"], d["preds"], **poisson)
            compare_models(d["y"], d["preds"], groups=d["groups"], **poisson)
            with kernels_only():
                block = np.ones((8, d["y"].shape[0]))
                for weights in (block, block.astype(np.uint8)):  # multiplicities, counts
                    group_counts(weights, np.arange(d["y"].shape[0]) % 4, 4)
    # the rank sweep on level orders at any size (it runs above POLICY.level_sweep_above rows, so
    # 120 rows would never compile it), with the kernels of the sums
    with kernels_at_any_size(Thresholds.FIRST_CALLS | Thresholds.LEVELS):
        # the rank bootstrap of larger data sets: blocks of 32 replicates drawn as uint8 counts
        # (both drivers) whose uint8 lanes the rank sweep and the loss sums share, unit and
        # fractional case weights (uint8 and float64 batches), and the one-thread driver
        def level(replicates: int, weight: np.ndarray | None) -> None:
            compare_models(
                d["y"],
                d["preds"],
                metrics=["kendall_tau", "root_mean_squared_error"],
                n_bootstrap=replicates,
                sample_weight=weight,
                show_progress=False,
            )

        for weight in (None, d["weight"]):
            level(40, weight)
        with kernels_at_any_size(Thresholds.DRIVERS):
            level(40, None)
            # a generator other than PCG64 (drawn with rng.integers, then counted)
            from ranklens._inference.resampling import bootstrap_blocks

            for compact in (False, True):
                philox = np.random.Generator(np.random.Philox(0))
                next(bootstrap_blocks(philox, d["y"].shape[0], 40, compact=compact))
        # BCa's weight per jackknife group from the lanes (a million rows and more)
        from ranklens._compute.kernels.rank_levels import group_lane_sums

        group_lane_sums(np.ones((1, 8, 32), np.uint8), 32, np.arange(8) % 2, 2)
        # the loss sums a chunk of rows at a time (a comparison over its memory budget)
        from ranklens._compute.kernels.rank_levels import lane_loss_sums_into

        lanes = np.ones((1, 8, 32), np.uint8)
        lane_loss_sums_into(lanes, np.ones(4), np.ones((4, 2)), 2, np.zeros((3, 32)))
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            for weight in (None, d["weight"]):
                level(8, weight)
        finally:
            numba.set_num_threads(threads)


def _large_n(d: dict[str, Any]) -> None:
    """Every step above again, with the kernels that large data sets sort with (and the
    parallel argsort of the rank measures, from two million rows)."""
    # the sorting steps on their kernels at any size (below POLICY.sort_numpy_below rows they run
    # in NumPy, so the steps on 120 rows do not compile them), with the kernels of the sums
    with kernels_at_any_size(Thresholds.FIRST_CALLS | Thresholds.SORTS):
        for _, step in STEPS[:-1]:
            step(d)
    from ranklens._compute.kernels.ranking import radix_argsort_parallel

    radix_argsort_parallel(d["y"])


#: ``(description, function of the data)``, in the order they run.
STEPS: tuple[tuple[str, Callable[[dict[str, Any]], None]], ...] = (
    ("every measure", _measures),
    ("curves, robustness, ranking details", _extras),
    ("the evaluation pipeline", lambda d: _pipeline(d, weighted=False)),
    ("the evaluation pipeline, weighted", lambda d: _pipeline(d, weighted=True)),
    ("bootstrap and permutation drivers", _resampling),
    ("the sorting kernels of large data sets", _large_n),
)


def warmup(progress: Callable[[int, int, str], None] | None = None) -> WarmupReport:
    """Compile (or load from the cache) every kernel; ``progress(done, total, step)`` per step."""
    from ranklens._foundation.cache import cache_dir, is_compiled

    data = _data()
    seconds: dict[str, float] = {}
    for k, (description, step) in enumerate(STEPS):
        if progress is not None:
            progress(k, len(STEPS), description)
        start = time.perf_counter()
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # undefined measures on toy data say so; no matter
            step(data)
        seconds[description] = time.perf_counter() - start
    if progress is not None:
        progress(len(STEPS), len(STEPS), "done")
    kernels = kernel_dispatchers()
    ready = sum(1 for d in kernels.values() if is_compiled(d))
    return WarmupReport(
        seconds=seconds, n_kernels=len(kernels), n_ready=ready, cache_dir=str(cache_dir())
    )
