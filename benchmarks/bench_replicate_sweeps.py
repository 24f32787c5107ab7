"""Bootstrap replicates from weighted sweeps against calling the measure once per replicate.

``compare_models`` with roc_auc, gain_area and lift_at_10 of two models (a continuous target:
their default events are its true top 10 %, refitted in every replicate), ``B`` replicates
(default 1000), percentile intervals, at n = 1e5:

* *sweep*: the registered measures, whose replicates the targeting sweep computes (the rows
  sorted once per model and once by y_true; a replicate is one weighted pass over each order);
* *per replicate*: the same measures without their capabilities, so the engine calls each
  function once per replicate and model (what it did before the sweep was declared). Slow, so
  it runs ``--generic-replicates`` replicates (default 50) and its time is scaled linearly to
  ``B`` (the work is one call per replicate); the replicates of both paths are compared on the
  replicates both ran (the same random_state gives the same multiplicities).

Run: ``python benchmarks/bench_replicate_sweeps.py [--n N] [--replicates B]``; warm (one small call
of each path first).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
import warnings
from typing import Any

import numpy as np

from ranklens import compare_models
from ranklens._foundation.registry import Capabilities
from ranklens.metrics import get_metric

METRICS = ["roc_auc", "gain_area", "lift_at_10"]


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    y = rng.lognormal(0.0, 1.0, n)
    return y, {"a": y * rng.lognormal(0.0, 0.5, n), "b": y * rng.lognormal(0.0, 0.8, n)}


def _run(
    y: np.ndarray, preds: dict[str, np.ndarray], metrics: list[Any], replicates: int
) -> tuple[float, Any]:
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = compare_models(
            y,
            preds,
            metrics=metrics,
            n_bootstrap=replicates,
            random_state=0,
            interval="percentile",
            show_progress=False,
        )
    CPU.append(time.process_time() - cpu)
    return time.perf_counter() - start, res


#: CPU seconds (all threads) of each run, in order: on a loaded machine the wall time includes
#: waiting for a core, the CPU time much less so.
CPU: list[float] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--generic-replicates", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="200 replicates (make bench --quick)")
    args = parser.parse_args()
    if args.quick:
        args.replicates = 200
    fast = [get_metric(name) for name in METRICS]
    slow = [dataclasses.replace(spec, capabilities=Capabilities()) for spec in fast]
    small_y, small_preds = _data(500, seed=1)
    _run(small_y, small_preds, fast, 20)  # warm: compile or load the kernels
    _run(small_y, small_preds, slow, 5)
    y, preds = _data(args.n)
    sweep_s, sweep = _run(y, preds, fast, args.replicates)
    sweep_cpu = CPU[-1]
    generic_s, generic = _run(y, preds, slow, args.generic_replicates)
    generic_cpu = CPU[-1]
    k = args.generic_replicates
    check = _run(y, preds, fast, k)[1]
    diff = np.nanmax(np.abs(check.replicates - generic.replicates))
    scaled = generic_s * args.replicates / k
    print(f"compare_models, {', '.join(METRICS)}, 2 models, n = {args.n:,}, percentile")
    print(
        f"  sweep:         {args.replicates} replicates  {sweep_s:8.2f} s  "
        f"(CPU {sweep_cpu:.2f} s; {sweep.evaluation})"
    )
    print(
        f"  per replicate: {k} replicates timed        {generic_s:8.2f} s, "
        f"x{args.replicates / k:g} = {scaled:.1f} s  "
        f"(CPU {generic_cpu:.2f} s, x{args.replicates / k:g} = "
        f"{generic_cpu * args.replicates / k:.1f} s; {generic.evaluation})"
    )
    print(f"  speed-up {scaled / sweep_s:.0f}x; largest replicate difference {diff:.2g}")


if __name__ == "__main__":
    main()
