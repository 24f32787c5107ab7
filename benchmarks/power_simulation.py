"""Simulation: does the sample size planned from a pilot comparison give the power asked for?

Run ``python benchmarks/power_simulation.py --pilots 20 --reps 25`` (the table of
``docs/planning.md``). For each case, each of ``pilots`` pilot data sets of ``n0`` rows is
compared with :func:`ranklens.compare_models`; :func:`ranklens.required_sample_size` plans from
it the rows that detect the *true* difference with 80 % power at a two-sided level of 5 %; then
``reps`` data sets of that many rows (rounded up) are drawn and compared by the same test. The
share of all of them in which the test rejects "no difference" at 5 % is the power achieved,
printed with its Monte Carlo standard error (from the spread of the pilots' shares, so that it
holds the pilots' noise too). A pilot's standard error is an estimate, so the n planned from it
is too: the power achieved from one pilot may miss 80 % by a few points either way; over many
pilots it should be near 80 %. The rows that the true standard error plans (from one sample of
``BIG`` rows) are printed beside the pilots' median.

Cases:

* ``mean loss``: a signal ``S ~ N(0, 1)``, ``y = S + 0.6 e0``, models ``a = S + 0.5 e1`` and ``b =
  S + 0.6 e2``; the mean absolute error, compared by the paired bootstrap (its symmetric
  bootstrap-t test, 500 replicates). True difference ``sqrt(2/pi) (sqrt(0.61) - sqrt(0.72))``.
* ``AUC``: 25 % events ``y``, ``a = 1.2 y + e1``, ``b = 0.9 y + 0.6 e1 + 0.8 e2`` (correlated
  scores); the AUC, compared by DeLong's test (``method="delong"``), planned with
  ``null_variance="alternative"`` (the variance of the test that is run) and, as pROC's
  ``power.roc.test`` plans, with ``"auto"`` (model ``a``, the better and more precise one, as
  pROC's ``roc1``). True AUCs ``Phi(1.2 / sqrt 2)`` and ``Phi(0.9 / sqrt 2)``.

Measured (``--pilots 20 --reps 25 --random-state 0``; power achieved, Monte Carlo standard error):
mean loss 80.6 % (1.9), rows planned 941 from the true standard error, 962 the pilots' median;
AUC 78.0 % (3.1), 486 and 507 rows; AUC with pROC's null variance 64.0 % (3.4), 390 and 377
rows: pROC's plan is optimistic for DeLong's test when its ``roc1`` is the more precise model.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from ranklens import compare_models, required_sample_size

#: The true mean absolute errors of the mean-loss case: E|N(0, s^2)| = s sqrt(2 / pi).
TRUE_MAE_DIFFERENCE = math.sqrt(2.0 / math.pi) * (math.sqrt(0.61) - math.sqrt(0.72))

#: The true AUCs of the AUC case: binormal with unit variances, Phi(mu / sqrt 2).
TRUE_AUC_DIFFERENCE = float(stats.norm.cdf(1.2 / math.sqrt(2)) - stats.norm.cdf(0.9 / math.sqrt(2)))


def draw_mean_loss(rng: np.random.Generator, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The target and the two models' predictions of the mean-loss case."""
    s = rng.normal(size=n)
    y = s + 0.6 * rng.normal(size=n)
    return y, {"a": s + 0.5 * rng.normal(size=n), "b": s + 0.6 * rng.normal(size=n)}


def draw_auc(rng: np.random.Generator, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The events and the two correlated scores of the AUC case."""
    y = (rng.random(n) < 0.25).astype(float)
    e1, e2 = rng.normal(size=n), rng.normal(size=n)
    return y, {"a": 1.2 * y + e1, "b": 0.9 * y + 0.6 * e1 + 0.8 * e2}


def compare_mean_loss(y: np.ndarray, preds: dict[str, np.ndarray], stream: int) -> Any:
    """The paired bootstrap of the mean absolute error."""
    return compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=500,
        random_state=stream,
        show_progress=False,
    )


def compare_auc(y: np.ndarray, preds: dict[str, np.ndarray], stream: int) -> Any:
    """DeLong's comparison of the AUCs."""
    return compare_models(y, preds, metrics=["roc_auc"], method="delong")


#: One sample this large gives the true standard errors (the population's plan).
BIG = 200_000

CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any], float, int, str]] = {
    # name: (draw, compare, true difference a - b, pilot rows, null_variance)
    "mean loss": (draw_mean_loss, compare_mean_loss, TRUE_MAE_DIFFERENCE, 400, "auto"),
    "AUC": (draw_auc, compare_auc, TRUE_AUC_DIFFERENCE, 300, "alternative"),
    "AUC, pROC's null variance": (draw_auc, compare_auc, TRUE_AUC_DIFFERENCE, 300, "auto"),
}


def _plan(compared: Any, truth: float, null: str) -> float:
    plan = required_sample_size(
        compared, model_a="a", model_b="b", difference=truth, null_variance=null
    )
    return float(plan.required_n[0])


def simulate(case: str, pilots: int, reps: int, random_state: int = 0) -> dict[str, float]:
    """``pilots`` plans, ``reps`` data sets at each planned n, for 80 % power at 5 %.

    Returns
    -------
    dict
        ``n_pilot``, ``true_n`` (planned from the true standard error), ``median_n`` (of the
        pilots' plans), ``achieved`` (the share of rejections) and ``mc_se`` (its Monte Carlo
        standard error from the pilots' shares).
    """
    draw, compare, truth, n_pilot, null = CASES[case]
    shares, planned = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = compare(*draw(np.random.default_rng([random_state, 0]), BIG), random_state)
        true_n = _plan(big, truth, null)
        for p in range(pilots):
            pilot = compare(*draw(np.random.default_rng([random_state, 1, p]), n_pilot), p)
            n = math.ceil(_plan(pilot, truth, null))
            planned.append(n)
            hits = 0
            for r in range(reps):
                result = compare(*draw(np.random.default_rng([random_state, 2, p, r]), n), r)
                hits += bool(result.p_value[0, 0] < 0.05)
            shares.append(hits / reps)
    return {
        "n_pilot": float(n_pilot),
        "true_n": true_n,
        "median_n": float(np.median(planned)),
        "achieved": float(np.mean(shares)),
        "mc_se": float(np.std(shares, ddof=1) / math.sqrt(pilots)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pilots", type=int, default=20, help="pilot data sets")
    parser.add_argument("--reps", type=int, default=25, help="data sets at each planned n")
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)
    print("| case | pilot rows | rows planned: true SE, pilots' median | power achieved (80 %) |")
    print("|---|---:|---:|---:|")
    for case in CASES:
        start = time.perf_counter()
        out = simulate(case, args.pilots, args.reps, args.random_state)
        print(
            f"| {case} | {out['n_pilot']:.0f} | {out['true_n']:.0f}, {out['median_n']:.0f} | "
            f"{100 * out['achieved']:.1f} % (MC s.e. {100 * out['mc_se']:.1f}) |"
        )
        print(f"  ({time.perf_counter() - start:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
