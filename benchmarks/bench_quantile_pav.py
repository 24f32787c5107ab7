"""Benchmark: PAV for the pinball loss, the range-quantile PAV against the old one.

Run ``python benchmarks/bench_quantile_pav.py`` (n = 1e3, 1e4, 1e5) or ``--quick`` (n up to 1e4).

The old PAV recomputed a merged block's quantile from its rows at each merge (the values between
the two blocks' quantiles, sorted): O(n^2) when every row joins one growing block. The new one
answers each block's quantile by a range query over a wavelet matrix of the ranks of ``y``:
O(n log n) in all. Orders of ``y`` against the prediction (rows sorted by the prediction):

* ``random``: y = x + noise, few merges;
* ``decreasing``: y decreasing in x, every row joins one block (the old worst case);
* ``equal``: all y equal; ``ties``: y in four values, decreasing in x on average.

Unweighted and with random float weights. Times are the best of a few repeats (one for the old
PAV when it takes over a second); the results are checked equal where both run.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_time

from ranklens._foundation.validation import FloatArray
from ranklens.calibration import _pav_quantiles

# The old implementation, as it stood before the range-quantile PAV (the reference).


def _weighted_quantile(values: FloatArray, weights: FloatArray, level: float) -> float:
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    k = int(np.searchsorted(cumulative, level * cumulative[-1], side="left"))
    return float(values[order[min(k, values.shape[0] - 1)]])


def _pooled_quantile(
    values: FloatArray, weights: FloatArray, level: float, low: float, high: float
) -> float:
    below = float(weights[values < low].sum())
    inside = (values >= low) & (values <= high)
    candidates, mass = values[inside], weights[inside]
    order = np.argsort(candidates, kind="stable")
    cumulative = below + np.cumsum(mass[order])
    target = level * (below + float(mass.sum()) + float(weights[values > high].sum()))
    k = int(np.searchsorted(cumulative, target, side="left"))
    return float(candidates[order[min(k, candidates.shape[0] - 1)]])


def old_pav_quantiles(
    ys: FloatArray, w: FloatArray, starts: np.ndarray, level: float
) -> tuple[list[float], list[int]]:
    n_groups = starts.shape[0]
    ends = np.append(starts[1:], ys.shape[0])
    values: list[float] = []
    firsts: list[int] = []
    row_firsts: list[int] = []
    for g in range(n_groups):
        lo, hi = int(starts[g]), int(ends[g])
        first = g
        v = _weighted_quantile(ys[lo:hi], w[lo:hi], level)
        while values and values[-1] > v:
            top = values.pop()
            first = firsts.pop()
            lo = row_firsts.pop()
            v = _pooled_quantile(ys[lo:hi], w[lo:hi], level, v, top)
        values.append(v)
        firsts.append(first)
        row_firsts.append(lo)
    return values, firsts


def _case(order: str, n: int, rng: np.random.Generator) -> FloatArray:
    x = np.arange(n, dtype=np.float64)
    if order == "random":
        return x + rng.normal(scale=n / 10, size=n)
    if order == "decreasing":
        return -x
    if order == "equal":
        return np.ones(n)
    return np.floor(4.0 * (1.0 - x / n) + rng.random(n)).clip(0, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 1e4")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    rng = np.random.default_rng(0)
    level = 0.9
    print(f"level {level}; seconds, best of {args.repeats}")
    print(f"{'n':>8} {'order':>10} {'weights':>8} {'old':>9} {'new':>9} {'old/new':>8}")
    for n in sizes:
        starts = np.arange(n)
        for order in ("random", "decreasing", "equal", "ties"):
            ys = _case(order, n, rng)
            for weighted in (False, True):
                w = rng.exponential(size=n) if weighted else np.ones(n)
                w = w / w.mean()
                new = best_time(lambda: _pav_quantiles(ys, w, starts, level), args.repeats)
                old = best_time(lambda: old_pav_quantiles(ys, w, starts, level), 1, warm_up=False)
                if old < 1.0:
                    old = min(old, best_time(lambda: old_pav_quantiles(ys, w, starts, level)))
                same = old_pav_quantiles(ys, w, starts, level) == _pav_quantiles(
                    ys, w, starts, level
                )
                label = "float" if weighted else "none"
                print(
                    f"{n:>8} {order:>10} {label:>8} {old:9.4f} {new:9.4f} "
                    f"{old / new:8.1f}{'' if same else '  (differs)'}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
