"""Coverage of the paired bootstrap's symmetric interval (Hall 1988) for the difference of two
models' Brier scores on a rare event: the interval the report's Summary uses for a mean loss.

Prints, per sample size and event rate, the coverage of the 95 % interval over 2,000 data sets
(400 replicates each) with its Monte Carlo standard error, and the share of data sets whose
per-row contributions the tail-weight rule (q90/q50 > 10) would flag. Run:
``python benchmarks/brier_coverage_study.py`` (about two minutes on one core). The figures are
in docs/binary.md.
"""

from __future__ import annotations

import numpy as np

SETS = 2000
REPLICATES = 400
LEVEL = 0.95


def tail_weight(values: np.ndarray) -> float:
    """q90 / q50 of the nonzero deviations from the median (the rule's statistic)."""
    dev = np.abs(values - np.median(values))
    dev = dev[dev > 0]
    q50, q90 = np.quantile(dev, [0.5, 0.9])
    return float(q90 / q50)


def draw(rng: np.random.Generator, n: int, intercept: float) -> tuple[np.ndarray, ...]:
    """A 0/1 target from a logistic model and two probability scores of it, one noisier."""
    logit = intercept + 1.4 * rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-logit)))
    a = 1 / (1 + np.exp(-(logit + rng.normal(scale=0.6, size=n))))
    b = 1 / (1 + np.exp(-(logit + rng.normal(scale=0.9, size=n))))
    return y, a, b


def study(n: int, intercept: float, seed: int = 0) -> tuple[float, float, float, float]:
    """Event rate, coverage, its Monte Carlo standard error, and the share flagged."""
    rng = np.random.default_rng(seed)
    y, a, b = draw(rng, 2_000_000, intercept)
    truth = np.mean((a - y) ** 2 - (b - y) ** 2)
    rate = float(y.mean())
    covered = flagged = 0
    for _ in range(SETS):
        y, a, b = draw(rng, n, intercept)
        rows = (a - y) ** 2 - (b - y) ** 2
        d = rows.mean()
        replicates = rows[rng.integers(0, n, size=(REPLICATES, n))].mean(axis=1)
        q = np.quantile(np.abs(replicates - d), LEVEL)
        covered += abs(d - truth) <= q
        flagged += tail_weight(rows) > 10
    coverage = covered / SETS
    return rate, coverage, float(np.sqrt(coverage * (1 - coverage) / SETS)), flagged / SETS


def main() -> None:
    print("rows  events  coverage  MC s.e.  flagged by the tail weight")
    for n in (200, 500, 2000, 10000):
        for intercept in (-2.0, -3.5):
            rate, coverage, se, flagged = study(n, intercept)
            print(f"{n:>5}  {rate:6.3f}  {coverage:8.3f}  {se:7.3f}  {flagged:.2f}")


if __name__ == "__main__":
    main()
