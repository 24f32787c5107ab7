"""Benchmark: the in-memory bootstrap's cost per replicate is O(n log n) at any n, within memory.

``compare_models`` with its default measures (RMSE, MAE, Kendall's tau, Spearman's rho), two
models, lognormal data, at 1e6, 2e6, 5e6, 1e7 and 2e7 rows. Each size runs in a fresh process
(its peak resident memory is its own): a warm-up on 40,000 rows, then the comparison with
``B1`` and with ``B2`` replicates, each timing its bootstrap part (``compare._bootstrap``: the
draws, the evaluation of every block, the intervals). The cost per replicate is the difference
divided by ``B2 - B1`` (what the point values, the sorts and the level orders cost once
cancels), and ``seconds / (n log2 n)`` per size shows the scaling: flat for O(n log n).

The memory columns: the peak resident set of the process (the data included), and the
comparison's plan against its budget (``ranklens._inference.evaluators.memory_plan``;
``RANKLENS_MEMORY_BUDGET`` sets the budget).

Run ``python benchmarks/bench_scale.py`` (``--sizes 1e6,2e6`` for some sizes, ``--replicates
32,96`` for other replicate counts). Timings on a shared machine: state its load average.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np

SIZES = (1_000_000, 2_000_000, 5_000_000, 10_000_000, 20_000_000)


def _one(n: int, replicates: tuple[int, int]) -> dict[str, float]:
    """Time the bootstrap of ``compare_models`` at ``n`` rows in this process."""
    from ranklens import compare
    from ranklens._inference import resampling as _resampling

    rng = np.random.default_rng(0)
    y = rng.lognormal(mean=3, size=n)
    preds = {
        "a": y * rng.lognormal(sigma=0.3, size=n),
        "b": y * rng.lognormal(sigma=0.8, size=n),
    }
    small = {k: v[:40_000] for k, v in preds.items()}
    compare.compare_models(y[:40_000], small, n_bootstrap=40, random_state=0, show_progress=False)
    spent: list[float] = []
    bootstrap = compare._bootstrap

    def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        out = bootstrap(*args, **kwargs)
        spent.append(time.perf_counter() - start)
        return out

    compare._bootstrap = timed  # type: ignore[assignment]
    whole = []
    for b in replicates:
        start = time.perf_counter()
        compare.compare_models(
            y, preds, n_bootstrap=b, random_state=1, interval="percentile", show_progress=False
        )
        whole.append(time.perf_counter() - start)
    b1, b2 = replicates
    per = (spent[1] - spent[0]) / (b2 - b1)
    forms = [compare.get_metric(m).capabilities.batched for m in compare.DEFAULT_COMPARISON_METRICS]
    plan, budget = None, math.nan
    try:
        from ranklens._inference.evaluators import memory_plan
    except ImportError:  # an earlier release: the plan on the comparison's module, if any
        memory_plan = getattr(compare, "_memory_plan", None)
    if memory_plan is not None:  # (a release before the memory budget: no plan)
        budget = _resampling.memory_budget()
        plan = memory_plan(n, 2, forms, budget)
    return {
        "n": n,
        "whole_b1": whole[0],
        "whole_b2": whole[1],
        "boot_b1": spent[0],
        "boot_b2": spent[1],
        "per_replicate": per,
        "ns_per_nlogn": per / (n * math.log2(n)) * 1e9,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "plan_mib": math.nan if plan is None else plan.total / 2**20,
        "budget_mib": budget / 2**20,
        "level_tasks": 0 if plan is None else min(plan.level_tasks, 99),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    parser.add_argument("--replicates", default="32,96")
    parser.add_argument("--one", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="1e6 rows only (make bench --quick)")
    args = parser.parse_args()
    if args.quick:
        args.sizes = "1000000"
    replicates = tuple(int(b) for b in args.replicates.split(","))
    assert len(replicates) == 2 and replicates[0] < replicates[1]
    if args.one:
        print(json.dumps(_one(int(args.one), replicates)))  # type: ignore[arg-type]
        return
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f}; replicates {replicates[0]} and {replicates[1]}")
    print(
        f"{'rows':>12}{'boot B1 s':>11}{'boot B2 s':>11}{'s/replicate':>13}"
        f"{'ns/(n log2 n)':>15}{'peak MiB':>10}{'plan MiB':>10}{'budget MiB':>12}{'tasks':>7}"
    )
    for n in sizes:
        command = [sys.executable, __file__, "--one", str(n), "--replicates", args.replicates]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{n:>12,}  failed: {last}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{n:>12,}{r['boot_b1']:>11.2f}{r['boot_b2']:>11.2f}{r['per_replicate']:>13.4f}"
            f"{r['ns_per_nlogn']:>15.3f}{r['peak_mib']:>10.0f}{r['plan_mib']:>10.0f}"
            f"{r['budget_mib']:>12.0f}{r['level_tasks']:>7}",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
