"""Business curves at n = 1e7 (target: each under 3 s on 2 cores), with scikit-learn peers.

Usage: ``python benchmarks/bench_curves.py [--quick] [--n N] [--repeats R]``. Prints one table of
best-of-``R`` wall and CPU times and each wall time's ratio to ``sklearn.metrics.roc_curve``
measured in the same run. Every case runs on one thread, so on a shared machine the CPU time is
the better estimate of the time on an idle core. Data: a binary target with 20 % events and a
noisy continuous score (all scores distinct), plus a lognormal continuous target for the
event-definition and value-based curves.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from sklearn import metrics as skm

from ranklens import targeting

BUDGET_S = 3.0


def _best_time(func: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Best wall-clock and best CPU time of ``repeats`` calls."""
    wall = cpu = np.inf
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        func()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="n = 1e5, for a smoke run")
    parser.add_argument("--n", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n = args.n or (100_000 if args.quick else 10_000_000)

    rng = np.random.default_rng(2005)
    y = (rng.random(n) < 0.2).astype(np.float64)
    score = y + rng.normal(size=n)
    y_cont = rng.lognormal(size=n)
    pred_cont = y_cont * rng.lognormal(0.0, 0.5, size=n)
    tied = np.round(score, 2)
    weight = rng.integers(1, 4, size=n).astype(np.float64)
    matrix = [[4, 0], [-5, 0]]

    cases: list[tuple[str, Callable[[], object]]] = [
        ("sklearn roc_curve (peer)", lambda: skm.roc_curve(y, score, drop_intermediate=False)),
        ("sklearn roc_auc_score (peer)", lambda: skm.roc_auc_score(y, score)),
        ("roc_curve", lambda: targeting.roc_curve(y, score)),
        ("roc_curve, tied scores", lambda: targeting.roc_curve(y, tied)),
        ("roc_curve, weighted", lambda: targeting.roc_curve(y, score, sample_weight=weight)),
        ("roc_curve, events='top:0.1'", lambda: targeting.roc_curve(y_cont, pred_cont)),
        ("gain_curve", lambda: targeting.gain_curve(y, score)),
        (
            "gain_curve, events='value'",
            lambda: targeting.gain_curve(y_cont, pred_cont, events="value"),
        ),
        ("lift_curve", lambda: targeting.lift_curve(y, score)),
        ("decile_table", lambda: targeting.decile_table(y, score)),
        (
            "profit_curve, budget",
            lambda: targeting.profit_curve(
                y, score, cost_benefit=matrix, budget=4_000_000, cost_per_target=5
            ),
        ),
        (
            "profit_curve, value_margin",
            lambda: targeting.profit_curve(
                y_cont, pred_cont, value_margin=0.5, cost_per_target=0.2
            ),
        ),
        (
            "best_model_by_depth, 2 models",
            lambda: targeting.best_model_by_depth(y, {"a": score, "b": tied}),
        ),
    ]

    # Warm numba (compiled on first call, cached afterwards).
    targeting.roc_curve(y[:1000], score[:1000])
    targeting.gain_curve(y_cont[:1000], pred_cont[:1000], events="value")
    targeting.roc_curve(y[:1000], score[:1000], sample_weight=weight[:1000])

    print(f"n = {n:,}; best of {args.repeats}; ratio = time / sklearn roc_curve")
    times = {name: _best_time(func, args.repeats) for name, func in cases}
    peer = times["sklearn roc_curve (peer)"][0]
    print(f"{'case':<36}{'wall (s)':>10}{'cpu (s)':>10}{'ratio':>8}{'< 3 s':>8}")
    for name, (wall, cpu) in times.items():
        ok = "" if "peer" in name else ("yes" if wall < BUDGET_S else "NO")
        print(f"{name:<36}{wall:>10.3f}{cpu:>10.3f}{wall / peer:>8.2f}{ok:>8}")


if __name__ == "__main__":
    main()
