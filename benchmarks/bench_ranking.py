"""Benchmark: ranklens.ranking_summary against scipy.stats.kendalltau + spearmanr.

ranking_summary computes, exactly, T, R, Kendall's tau-b, Spearman's rho, Harrell's C, every
per-observation concordance count C_i, the Noether variance and interval and both null p-values;
scipy's kendalltau computes tau-b and its p-value, spearmanr rho and its p-value. Data: lognormal
y (a long-tailed "wallet") and a noisy prediction log(y) + N(0, 1).

Timings are the best of a few repeats, interleaved so that machine load hits every contender
alike; numba is compiled before timing. Peak memory is the growth of the peak resident set during
one call, each in a fresh process (Linux /proc; VmHWM is reset just before the call), so it also
counts numba's allocations, which tracemalloc cannot see.

    python benchmarks/bench_ranking.py            # n = 1e5, 1e6, 1e7; curves at 1e6
    python benchmarks/bench_ranking.py --quick    # n = 1e4, 1e5; curves at 1e5 (seconds)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.stats as ss

import ranklens
from ranklens.ranking import (
    concordance_profile,
    cutoff_auc_curve,
    partial_kendall_tau,
    partial_spearman_rho,
    rank_lift_curve,
    ranking_summary,
)


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_extra_mib(fn: Callable[[], Any]) -> float:
    """Growth of the peak resident set (MiB) during one call; NaN where /proc is unavailable."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # reset VmHWM to the current RSS
    except OSError:
        return float("nan")
    before = _status_kib("VmRSS")
    fn()
    peak = _status_kib("VmHWM")
    if before is None or peak is None:
        return float("nan")
    return (peak - before) / 1024


CONTENDERS: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "summary": ranking_summary,
    "kendalltau": ss.kendalltau,
    "spearmanr": ss.spearmanr,
}


def memory_in_child(name: str, n: int) -> float:
    """Run ``peak_extra_mib`` for one contender at size n in a fresh Python process."""
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", name, str(n)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def best_times(fns: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.lognormal(mean=10.0, sigma=1.5, size=n)
    return y, np.log(y) + rng.normal(size=n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small n, runs in seconds")
    parser.add_argument("--memory-child", nargs=2, metavar=("NAME", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        name, n = args.memory_child[0], int(args.memory_child[1])
        y, p = data(1000)
        CONTENDERS[name](y, p)  # import / compile outside the measurement
        y, p = data(n, seed=n)
        print(peak_extra_mib(lambda: CONTENDERS[name](y, p)))
        return
    sizes = [10**4, 10**5] if args.quick else [10**5, 10**6, 10**7]
    curve_n = 10**5 if args.quick else 10**6

    y, p = data(2000)
    ranking_summary(y, p)  # compile numba
    for f in (concordance_profile, cutoff_auc_curve, rank_lift_curve):
        f(y, p)
    partial_kendall_tau(y, p, [0.1, 0.5])
    partial_spearman_rho(y, p, [0.1, 0.5])

    scipy_version = __import__("scipy").__version__
    print(f"ranklens {ranklens.__version__} ranking_summary vs scipy {scipy_version}")
    print("kendalltau and spearmanr: best of repeats (s), ratios, peak memory growth (MiB)")
    header = (
        f"{'n':>10} {'summary':>9} {'kendalltau':>10} {'spearmanr':>9} "
        f"{'ratio/kt':>8} {'ratio/kt+sr':>11} {'MiB summary':>11} {'MiB kt':>7} {'MiB sr':>7}"
    )
    print(header)
    print("-" * len(header))
    for n in sizes:
        y, p = data(n, seed=n)
        fns = {name: (lambda f=f, y=y, p=p: f(y, p)) for name, f in CONTENDERS.items()}
        t = best_times(fns, repeats=2 if n >= 10**7 else 3)
        mem = {name: memory_in_child(name, n) for name in CONTENDERS}
        print(
            f"{n:>10.0e} {t['summary']:>9.3f} {t['kendalltau']:>10.3f} {t['spearmanr']:>9.3f} "
            f"{t['summary'] / t['kendalltau']:>8.2f} "
            f"{t['summary'] / (t['kendalltau'] + t['spearmanr']):>11.2f} "
            f"{mem['summary']:>11.1f} {mem['kendalltau']:>7.1f} {mem['spearmanr']:>7.1f}"
        )
        del y, p, fns

    y, p = data(curve_n, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curves = {
            "concordance_profile": lambda: concordance_profile(y, p),
            "cutoff_auc_curve": lambda: cutoff_auc_curve(y, p),
            "rank_lift_curve": lambda: rank_lift_curve(y, p),
            "partial_kendall_tau": lambda: partial_kendall_tau(y, p, [0.01, 0.1, 0.5]),
            "partial_spearman_rho": lambda: partial_spearman_rho(y, p, [0.01, 0.1, 0.5]),
        }
        t = best_times(curves, repeats=3)
    print(f"\ncurves at n = {curve_n:.0e} (target < 2 s each), best of 3, seconds")
    for name, seconds in t.items():
        print(f"{name:>22} {seconds:>8.3f}")


if __name__ == "__main__":
    main()
