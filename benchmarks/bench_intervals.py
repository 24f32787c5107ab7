"""Benchmark: ndcg_score and interval_score at n = 1e7 against scikit-learn and NumPy.

Run ``python benchmarks/bench_intervals.py`` (n = 1e7) or ``--quick`` (n = 1e5, seconds).
Peers:

* ``sklearn.metrics.ndcg_score`` on the same ranking reshaped to one row (1, n), linear gains,
  ties averaged (its default ``ignore_ties=False``), full list and k = 10;
* the interval score as a NumPy expression (what users write by hand) and through scikit-learn's
  ``mean_pinball_loss`` (IS = 2/alpha [pinball_{alpha/2}(l) + pinball_{1-alpha/2}(u)]).

Times are the best of a few repeats after a warm-up call (numba compiled); peak memory is measured
separately with tracemalloc (NumPy reports its allocations to it).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from _timing import best_time, peak_mib
from sklearn.metrics import mean_pinball_loss
from sklearn.metrics import ndcg_score as sk_ndcg

from ranklens.intervals import interval_score
from ranklens.listwise import ndcg_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 1e5 instead of 1e7")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n = 100_000 if args.quick else 10_000_000
    rng = np.random.default_rng(0)

    y = rng.exponential(size=n)
    pred = y + rng.normal(size=n)
    pred_ties = np.round(pred, 1)  # ~100 distinct scores: big tie blocks
    alpha = 0.1
    lower = pred - 1.645
    upper = pred + 1.645

    cases: list[tuple[str, Callable[[], float], Callable[[], float]]] = [
        (
            "ndcg, full list",
            lambda: ndcg_score(y, pred),
            lambda: sk_ndcg(y[None, :], pred[None, :]),
        ),
        (
            "ndcg, k = 10",
            lambda: ndcg_score(y, pred, k=10),
            lambda: sk_ndcg(y[None, :], pred[None, :], k=10),
        ),
        (
            "ndcg, full list, tied scores",
            lambda: ndcg_score(y, pred_ties),
            lambda: sk_ndcg(y[None, :], pred_ties[None, :]),
        ),
        (
            "interval_score vs NumPy expression",
            lambda: interval_score(y, lower, upper, alpha=alpha),
            lambda: float(
                np.mean(
                    (upper - lower)
                    + (2 / alpha) * (np.maximum(lower - y, 0) + np.maximum(y - upper, 0))
                )
            ),
        ),
        (
            "interval_score vs sklearn pinball",
            lambda: interval_score(y, lower, upper, alpha=alpha),
            lambda: (
                (2 / alpha)
                * (
                    mean_pinball_loss(y, lower, alpha=alpha / 2)
                    + mean_pinball_loss(y, upper, alpha=1 - alpha / 2)
                )
            ),
        ),
    ]

    print(f"n = {n:,}; best of {args.repeats}; peak = tracemalloc peak of one call")
    header = (
        f"{'case':38s} {'ranklens s':>11s} {'peer s':>9s} {'speed-up':>9s} "
        f"{'rl MiB':>8s} {'peer MiB':>9s} {'max |diff|':>11s}"
    )
    print(header)
    print("-" * len(header))
    for name, ours, peer in cases:
        t_ours = best_time(ours, args.repeats, collect_garbage=True)
        t_peer = best_time(peer, args.repeats, collect_garbage=True)
        m_ours = peak_mib(ours, collect_garbage=True)
        m_peer = peak_mib(peer, collect_garbage=True)
        diff = abs(ours() - peer())
        print(
            f"{name:38s} {t_ours:11.4f} {t_peer:9.4f} {t_peer / t_ours:8.1f}x "
            f"{m_ours:8.0f} {m_peer:9.0f} {diff:11.2e}",
            flush=True,
        )


if __name__ == "__main__":
    main()
