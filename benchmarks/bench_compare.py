"""Paired bootstrap of two models: ranklens.compare_models against scipy.stats.bootstrap.

The task of Table 2 of Rosset, Perlich & Zadrozny (2005) at scale: Kendall's tau, Spearman's rho,
RMSE and MAE of two models, 1000 paired bootstrap replicates, n = 1e5 (lognormal "wallets",
multiplicative-noise models).

* ranklens: ``compare_models(..., n_bootstrap=1000)`` (multiplicity weights; weighted O(n log n)
  rank kernels and ``W @ L`` for the losses, replicates in a numba prange loop), with the
  percentile interval (the peer's) and with the default BCa interval (adds a 100-group jackknife).
* scipy: ``scipy.stats.bootstrap((y, p1, p2), statistic, paired=True, vectorized=False,
  method="percentile")`` whose statistic returns the 8 values (``kendalltau``, ``spearmanr``,
  RMSE, MAE of both models). scipy needs about 0.1 s per replicate at n = 1e5, so it is timed on
  fewer replicates and its time is scaled linearly to 1000 (the work is exactly linear in the
  replicate count: one Python call of the statistic per replicate); the table says so.

Run: ``python benchmarks/bench_compare.py`` (``--quick``: n = 1e4, seconds).
"""

from __future__ import annotations

import argparse

from _timing import best_time
from _two_models import METRICS, lognormal_models, scipy_statistics
from scipy import stats

from ranklens.compare import compare_models


def main(quick: bool) -> None:
    n = 10_000 if quick else 100_000
    n_boot = 200 if quick else 1000
    n_peer = 10 if quick else 20
    repeats = 2 if quick else 3
    y, a, b = lognormal_models(n)
    preds = {"m1": a, "m2": b}

    # warm numba (compilation is cached on disk after the first run)
    compare_models(
        y[:500],
        {k: v[:500] for k, v in preds.items()},
        metrics=METRICS,
        n_bootstrap=20,
        random_state=0,
        show_progress=False,
    )

    def ours(interval: str) -> None:
        compare_models(
            y,
            preds,
            metrics=METRICS,
            n_bootstrap=n_boot,
            interval=interval,
            random_state=0,
            show_progress=False,
        )

    t_pct = best_time(lambda: ours("percentile"), repeats, warm_up=False)
    t_bca = best_time(lambda: ours("bca"), repeats, warm_up=False)

    def peer() -> None:
        stats.bootstrap(
            (y, a, b),
            scipy_statistics,
            paired=True,
            vectorized=False,
            n_resamples=n_peer,
            method="percentile",
            random_state=0,
        )

    t_peer = best_time(peer, 1 if not quick else 2, warm_up=False) * n_boot / n_peer

    res = compare_models(
        y, preds, metrics=METRICS, n_bootstrap=n_boot, random_state=0, show_progress=False
    )
    print(f"n = {n:,}, {n_boot} paired replicates of tau, rho, RMSE, MAE for two models")
    print(f"evaluation paths: {dict(zip(res.metrics, res.evaluation))}")
    print(f"{'method':<66}{'time (s)':>10}{'ratio':>10}")
    rows = [
        (
            f"scipy.stats.bootstrap(paired=True), percentile [{n_peer} timed, x{n_boot // n_peer}]",
            t_peer,
        ),
        ("ranklens compare_models, percentile", t_pct),
        ("ranklens compare_models, BCa (default)", t_bca),
    ]
    for label, t in rows:
        print(f"{label:<66}{t:>10.2f}{t_peer / t:>9.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small n, a few seconds")
    main(parser.parse_args().quick)
