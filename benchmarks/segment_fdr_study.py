"""The false discovery rate of :func:`ranklens.by_segment`'s verdicts, by simulation.

Run (about ten minutes on two cores)::

    nice -n 10 python benchmarks/segment_fdr_study.py --reps 1000

Under "no true difference" every verdict "clearly better" or "clearly worse" is false, so the
false discovery rate is the share of data sets with at least one such verdict; it must stay at
or below the level asked (5 %). Each cell simulates ``--reps`` data sets and prints that share
with its Monte Carlo standard error ``sqrt(p (1 - p) / reps)``, for the Benjamini-Hochberg and
Benjamini-Yekutieli procedures. A last cell gives the power to find a segment where one model
really is better (its noise halved there).

Data: a signal ``S ~ N(0, 1)``; ``y = S + 0.6 e0``; models ``S + 0.7 e_m`` (independent
``N(0, 1)`` noises, every model equally good); ``lognormal``: ``exp`` of each. Segments: labels
drawn uniformly, so their sizes vary around ``n / K``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import ranklens as rl

CELLS = (
    # name, target, n, segments, models, measures
    ("normal, 4 segments, 2 models", "normal", 400, 4, 2, ("mean_absolute_error", "kendall_tau")),
    ("normal, 20 segments, 2 models", "normal", 2000, 20, 2, ("mean_absolute_error",)),
    ("normal, 4 segments, 5 models", "normal", 400, 4, 5, ("mean_absolute_error", "roc_auc")),
    ("lognormal, 4 segments, MAE and RMSE", "lognormal", 400, 4, 2,
     ("mean_absolute_error", "root_mean_squared_error")),
)  # fmt: skip


def _data(rng: np.random.Generator, target: str, n: int, k: int, m: int, better: bool) -> tuple:
    signal = rng.normal(size=n)
    labels = rng.integers(0, k, size=n)
    y = signal + 0.6 * rng.normal(size=n)
    preds = {}
    for j in range(m):
        scale = np.where((labels == 0) & (j == 1), 0.35, 0.7) if better else 0.7
        preds[f"m{j}"] = signal + scale * rng.normal(size=n)
    if target == "lognormal":
        y = np.exp(y)
        preds = {name: np.exp(p) for name, p in preds.items()}
    return y, preds, labels


def _share(args: argparse.Namespace, cell: tuple, fdr: str, better: bool = False) -> float:
    _, target, n, k, m, metrics = cell
    hits = 0
    for rep in range(args.reps):
        rng = np.random.default_rng([args.seed, rep])
        y, preds, labels = _data(rng, target, n, k, m, better)
        result = rl.by_segment(
            y,
            preds,
            labels,
            metrics=list(metrics),
            n_bootstrap=args.boot,
            fdr=fdr,
            random_state=rep,
            pick="m0" if better else None,  # the power: m1 against a fixed pick
        )
        if better:
            hits += any(
                r["verdict"] == "better" and r["model"] == "m1" and r["segment"] == "0"
                for r in result.records
            )
        else:
            hits += any(r["verdict"] in ("better", "worse") for r in result.records)
    return hits / args.reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cells", type=int, nargs="*", help="which cells (0-based; all if none)")
    args = parser.parse_args()
    print(f"{args.reps} data sets per cell, {args.boot} bootstrap replicates per segment")
    print("| cell | procedure | any false verdict (nominal 5 %) |")
    print("|---|---|---|")
    for index, cell in enumerate(CELLS):
        if args.cells and index not in args.cells:
            continue
        for fdr in ("bh", "by"):
            start = time.perf_counter()
            p = _share(args, cell, fdr)
            se = math.sqrt(p * (1 - p) / args.reps)
            took = time.perf_counter() - start
            print(f"| {cell[0]} | {fdr} | {100 * p:.1f} +- {100 * se:.1f} % ({took:.0f} s) |")
    # the power: m1 against a fixed pick m0, in the segment where m1's noise is halved
    power_cell = CELLS[0]
    p = _share(args, power_cell, "bh", better=True)
    se = math.sqrt(p * (1 - p) / args.reps)
    print(
        f"power: model m1 found better in segment 0 ({power_cell[0]}, bh): "
        f"{100 * p:.1f} +- {100 * se:.1f} %"
    )


if __name__ == "__main__":
    main()
