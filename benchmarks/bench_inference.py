"""The inference engine at full speed: compare_models and curve_bands against their targets.

Four measurements, printed in one run with their ratios and targets:

1. Per-replicate cost of each part of the engine at n = 1e5 and 1e6 (two models): drawing the
   replicate weights (multinomial and Poisson), the mean losses (``W @ L``), the rank sweep
   (tau, rho, Harrell's C: one O(n log n) weighted sweep per model over a fixed order, a block
   of 32 replicates on precomputed level orders at both sizes) and the cutoff AUC curve (an O(n)
   weighted sweep). The multinomial weights are drawn as the comparison draws them, as uint8
   counts; the loss sums and the rank sweep each include making the block's uint8 lanes, which a
   comparison makes once for both.
2. ``compare_models`` with Kendall's tau, Spearman's rho, RMSE and MAE of two models, 1000
   replicates, n = 1e5, against ``scipy.stats.bootstrap((y, p1, p2), statistic, paired=True,
   vectorized=False, method="percentile")`` whose statistic calls ``kendalltau`` and
   ``spearmanr`` (and computes RMSE and MAE) for both models. scipy needs about 0.1 s a
   replicate at n = 1e5, so it runs fewer replicates and its time is scaled linearly to 1000 (one
   Python call of the statistic per replicate: the work is linear in the replicates); the table
   says so. Target: at least 20x.
3. The same ``compare_models`` at n = 1e6. Target: under 10 s.
4. ``curve_bands`` (cutoff AUC, the default curve), 1000 replicates, two models, n = 1e5.
   Target: under 5 s.

ranklens is warmed first (``ranklens warmup``, then one small call of each function), so the
times are warm and the parallel drivers are used.
``--replicates-1e6 B`` runs the n = 1e6 comparison with B replicates and with one block of
replicates, and adds the cost of ``1000 - B`` extra replicates to the first (say so when
reporting; the call's fixed costs are not scaled).
Run: ``python benchmarks/bench_inference.py`` (``--quick``: n/10, seconds).
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from _timing import best_time
from _two_models import METRICS, lognormal_models, scipy_statistics
from scipy import stats

from ranklens._foundation.route import POLICY
from ranklens._inference import evaluators as _evaluators
from ranklens._inference.resampling import Resampler, block_rows, bootstrap_blocks, run_rows
from ranklens._warmup import warmup
from ranklens.bands import curve_bands
from ranklens.compare import compare_models
from ranklens.metrics import get_curve, get_metric


def per_replicate_costs(n: int, rows: int) -> None:
    """Milliseconds per replicate (two models) of each part of the engine at n rows."""
    y, a, b = lognormal_models(n)
    preds = np.stack([a, b])
    # as the comparison draws them: uint8 counts where it reads uint8 lanes (large n)
    compact = _evaluators.compact_blocks(n)
    with run_rows(1000):
        block = next(bootstrap_blocks(np.random.default_rng(1), n, rows, compact=compact))
    rows = block.shape[0]
    poisson = Resampler("poisson", n, None, y)
    # one long run of blocks: its buffers are made once, as in a comparison
    stream = bootstrap_blocks(np.random.default_rng(1), n, 1000 * rows, compact=compact)
    parts = {
        "multinomial weights": lambda: next(stream),
        "Poisson weights": lambda: next(poisson.blocks(np.random.default_rng(1), rows)),
    }
    with run_rows(1000):
        for label, names in (
            ("RMSE + MAE (W @ L)", ["root_mean_squared_error", "mean_absolute_error"]),
            ("tau + rho (rank sweep)", ["kendall_tau", "spearman_rho"]),
        ):
            specs = [get_metric(m) for m in names]
            values = np.array(
                [[_evaluators.point_value(s, y, p, None) for p in preds] for s in specs]
            )
            evaluators = _evaluators.build_evaluators(specs, y, preds, None, values)
            out = np.empty((rows, len(specs), 2))
            parts[label] = lambda ev=evaluators, out=out: _evaluators.evaluate_all(ev, block, out)
    sweep = get_curve("cutoff_auc").sweep
    assert sweep is not None
    grid = np.round(np.arange(1, 100) / 100.0, 2)
    states = [sweep.prepare(y, p) for p in preds]
    wide = block.astype(np.float64)  # the bands' blocks are float64
    parts["cutoff AUC curve (sweep)"] = lambda: [sweep.evaluate(s, wide, grid) for s in states]
    with run_rows(1000):  # the drivers of a 1000-replicate run (the parallel draws included)
        for label, fn in parts.items():
            fn()  # compile / warm
            ms = 1e3 * best_time(fn, 2, warm_up=False) / rows
            print(f"  n={n:.0e}  {label:<28s} {ms:8.2f} ms per replicate")


def main(quick: bool, replicates_1e6: int, only_1e6: bool = False, previous: bool = False) -> None:
    scale = 10 if quick else 1
    n_small, n_large = 100_000 // scale, 1_000_000 // scale
    n_boot = 1000
    print(f"numba threads: {numba.get_num_threads()}")
    if previous:  # the rank sweep before the level orders: the Fenwick sweep, 4-row blocks
        import ranklens._inference.resampling as _rs

        POLICY.level_sweep_above = 1 << 62
        _rs.WIDE_BLOCK_ROWS = 0
        print("previous rank sweep (eight replicates a Fenwick sweep at every n, 4-row blocks)")
    if only_1e6:
        _large_comparison(n_large, n_boot, replicates_1e6)
        return
    # Warm: `ranklens warmup` compiles the serial and the parallel drivers (a process that has
    # not compiled a parallel driver yet runs calls of under ~4 s of work on the serial one).
    warmup()
    y0, a0, b0 = lognormal_models(2000)
    compare_models(y0, {"a": a0, "b": b0}, metrics=METRICS, n_bootstrap=50, random_state=0)
    curve_bands(y0, {"a": a0, "b": b0}, n_bootstrap=20, random_state=0)

    print("1. per-replicate cost, two models (best of 2)")
    per_replicate_costs(n_small, 64)
    per_replicate_costs(n_large, 32)

    y, a, b = lognormal_models(n_small)
    preds = {"a": a, "b": b}
    t_rl = best_time(
        lambda: compare_models(
            y, preds, metrics=METRICS, n_bootstrap=n_boot, random_state=0, show_progress=False
        ),
        2,
        warm_up=False,
    )
    t_rl_pct = best_time(
        lambda: compare_models(
            y,
            preds,
            metrics=METRICS,
            n_bootstrap=n_boot,
            random_state=0,
            interval="percentile",
            show_progress=False,
        ),
        2,
        warm_up=False,
    )
    scipy_reps = 20
    start = time.perf_counter()
    stats.bootstrap(
        (y, a, b),
        scipy_statistics,
        paired=True,
        vectorized=False,
        n_resamples=scipy_reps,
        method="percentile",
        random_state=0,
    )
    t_scipy = (time.perf_counter() - start) * n_boot / scipy_reps
    print(f"2. compare_models, 4 measures, 2 models, {n_boot} replicates, n = {n_small:.0e}")
    print(f'  ranklens (default, "auto")  {t_rl:8.2f} s')
    print(f"  ranklens (percentile)       {t_rl_pct:8.2f} s")
    print(
        f"  scipy.stats.bootstrap       {t_scipy:8.2f} s  (timed on {scipy_reps} replicates, "
        f"scaled x{n_boot // scipy_reps})"
    )
    print(
        f"  ratio scipy / ranklens      {t_scipy / t_rl:8.1f}x (BCa), "
        f"{t_scipy / t_rl_pct:.1f}x (percentile)   target >= 20x"
    )

    _large_comparison(n_large, n_boot, replicates_1e6)

    y, a, b = lognormal_models(n_small)
    t_bands = best_time(
        lambda: curve_bands(
            y, {"a": a, "b": b}, n_bootstrap=n_boot, random_state=0, show_progress=False
        ),
        1,
        warm_up=False,
    )
    print(f"4. curve_bands (cutoff AUC), 2 models, {n_boot} replicates, n = {n_small:.0e}")
    print(f"  ranklens                    {t_bands:8.2f} s  target under 5 s")


def _large_comparison(n_large: int, n_boot: int, replicates_1e6: int) -> None:
    """3.: compare_models at n_large (wall and process CPU time, all threads)."""
    y0, a0, b0 = lognormal_models(3 * n_large // 10)  # warm: the large-n kernels compiled or loaded
    compare_models(
        y0,
        {"a": a0, "b": b0},
        metrics=METRICS,
        n_bootstrap=8,
        random_state=0,
        show_progress=False,
    )
    y, a, b = lognormal_models(n_large)
    reps = min(replicates_1e6, n_boot)

    def timed(replicates: int) -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        compare_models(
            y,
            {"a": a, "b": b},
            metrics=METRICS,
            n_bootstrap=replicates,
            random_state=0,
            show_progress=False,
        )
        return time.perf_counter() - start, time.process_time() - cpu

    wall, cpu = timed(reps)
    if reps == n_boot:
        t_large, note = wall, ""
    else:
        # The call's fixed costs (sorts, level orders, point values) are paid once whatever the
        # replicate count: scale only the cost of an extra replicate, from a second call with
        # one block of replicates (scaling the whole call would overstate it).
        few = min(block_rows(n_large), reps // 2)
        wall_few, _ = timed(few)
        per_replicate = (wall - wall_few) / (reps - few)
        t_large = wall + (n_boot - reps) * per_replicate
        note = (
            f" (ran {reps} and {few} replicates: {1e3 * per_replicate:.1f} ms per extra "
            f"replicate, fixed costs {wall - reps * per_replicate:.1f} s)"
        )
    print(f"3. compare_models, n = {n_large:.0e}, {n_boot} replicates: {t_large:.1f} s{note}")
    print(
        f"  the {reps}-replicate call: {1e3 * wall / reps:.1f} ms wall, {1e3 * cpu / reps:.1f} "
        "ms CPU per replicate (all threads; the call's fixed costs included)"
    )
    print("  target under 10 s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n / 10: a run of seconds")
    parser.add_argument(
        "--replicates-1e6",
        type=int,
        default=1000,
        help="replicates of the n = 1e6 comparison (when fewer, extra replicates scaled to 1000)",
    )
    parser.add_argument("--only-1e6", action="store_true", help="only the n = 1e6 comparison (3.)")
    parser.add_argument(
        "--previous-rank-sweep",
        action="store_true",
        help="the rank sweep before the level orders (the Fenwick sweep), for comparison",
    )
    args = parser.parse_args()
    main(args.quick, args.replicates_1e6, args.only_1e6, args.previous_rank_sweep)
