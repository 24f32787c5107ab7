"""Coverage of compare_models' intervals on serially dependent rows, by resampling scheme.

Run (a few minutes on two cores)::

    nice -n 10 python benchmarks/block_bootstrap_coverage.py --reps 300

Data: ``y ~ N(0, 1)`` i.i.d.; two equally good models ``y + e`` whose errors ``e`` are AR(1)
with coefficient ``--phi`` (unit innovations, started in the stationary distribution), ``n``
rows in time order. The true MAE of each model is ``sqrt(2 / pi) / sqrt(1 - phi^2)`` and the
true difference of the two MAEs 0. Each cell prints the coverage of the nominal 95 % interval
of model a's MAE and of the difference, with its Monte Carlo standard error, for the row
bootstrap (``"multinomial"``, which treats the rows as independent) and the two block schemes
with the automatic block length. The Diebold-Mariano test's rejection rate of the (true)
"equal expected loss" is printed beside them.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import ranklens as rl


def _ar1(rng: np.random.Generator, phi: float, n: int) -> np.ndarray:
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0] / math.sqrt(1.0 - phi**2)
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--n", type=int, nargs="*", default=[200, 1000])
    parser.add_argument("--phi", type=float, default=0.7)
    parser.add_argument("--boot", type=int, default=500)
    parser.add_argument("--schemes", nargs="*", default=["multinomial", "stationary", "circular"])
    args = parser.parse_args()
    truth = math.sqrt(2.0 / math.pi) / math.sqrt(1.0 - args.phi**2)
    print(f"AR(1) errors, phi = {args.phi}; {args.reps} data sets a cell, {args.boot} replicates")
    print("| n | scheme | MAE covered | difference covered | DM test rejects |")
    print("|---|---|---|---|---|")
    for n in args.n:
        hits = {s: [0, 0] for s in args.schemes}
        rejects = 0
        for rep in range(args.reps):
            rng = np.random.default_rng([2026, n, rep])
            y = rng.normal(size=n)
            preds = {"a": y + _ar1(rng, args.phi, n), "b": y + _ar1(rng, args.phi, n)}
            for scheme, counts in hits.items():
                result = rl.compare_models(
                    y,
                    preds,
                    metrics=["mean_absolute_error"],
                    n_bootstrap=args.boot,
                    scheme=scheme,
                    random_state=rep,
                )
                counts[0] += result.ci_lower[0, 0] <= truth <= result.ci_upper[0, 0]
                counts[1] += (
                    result.difference_ci_lower[0, 0] <= 0 <= result.difference_ci_upper[0, 0]
                )
            dm = rl.diebold_mariano_test(y, preds["a"], preds["b"], metric="mean_absolute_error")
            rejects += dm.p_value < 0.05
        for scheme, (mae, diff) in hits.items():
            cells = []
            for count in (mae, diff):
                p = count / args.reps
                cells.append(f"{100 * p:.1f} +- {100 * math.sqrt(p * (1 - p) / args.reps):.1f} %")
            rate = rejects / args.reps
            dm_cell = f"{100 * rate:.1f} % (h = 1)" if scheme == args.schemes[0] else ""
            print(f"| {n} | {scheme} | {cells[0]} | {cells[1]} | {dm_cell} |")


if __name__ == "__main__":
    main()
