"""Benchmark: DeLong's test of two models at n = 1e7 (Sun & Xu 2014's O(n log n) algorithm).

Run ``python benchmarks/bench_delong.py`` (n = 1e7) or ``--quick`` (n = 1e5, seconds).

* ``delong_test`` for two models on a binary target (AUCs, their covariance, the test) and on a
  continuous target (Harrell's C, the one-sample components: a Fenwick sweep both ways);
* the peer floor: ``sklearn.metrics.roc_auc_score`` for the two AUCs alone (no variance), the
  least work any AUC computation does; no DeLong implementation is installed here to compare with.

Times are the best of a few repeats after a warm-up call (numba compiled).
"""

from __future__ import annotations

import argparse

import numba
import numpy as np
from _timing import best_time
from sklearn.metrics import roc_auc_score

from ranklens.delong import delong_test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e5 instead of 1e7")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n = 100_000 if args.quick else 10_000_000
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.2).astype(np.float64)
    a = y + rng.normal(size=n)
    b = y + 1.5 * rng.normal(size=n)
    y_cont = rng.normal(size=n)
    a_cont = y_cont + rng.normal(size=n)
    b_cont = y_cont + 1.5 * rng.normal(size=n)

    print(f"n = {n:,}, numba threads = {numba.get_num_threads()}", flush=True)
    t_delong = best_time(lambda: delong_test(y, a, b), args.repeats, collect_garbage=True)
    res = delong_test(y, a, b)
    print(f"delong_test, binary target (AUCs, covariance, z = {res.z:.3f}): {t_delong:.3f} s")
    t_sklearn = best_time(
        lambda: (roc_auc_score(y, a), roc_auc_score(y, b)), args.repeats, collect_garbage=True
    )
    print(f"sklearn roc_auc_score x 2 (AUCs only, no variance): {t_sklearn:.3f} s")
    print(f"ratio delong_test / sklearn floor: {t_delong / t_sklearn:.2f}", flush=True)
    t_c = best_time(
        lambda: delong_test(y_cont, a_cont, b_cont),
        # the full size times the slower one-sample sweep fewer times; --quick as often as the rest
        args.repeats if args.quick else max(1, args.repeats - 2),
        collect_garbage=True,
    )
    print(f"delong_test, continuous target (Harrell's C, one-sample): {t_c:.3f} s")


if __name__ == "__main__":
    main()
