"""Benchmark: the bootstrap's time budget is a bound on what it promises to bound.

``evaluate_models(..., bootstrap_budget_s=B)`` plans how many replicates, measures and bands fit
in B seconds and says what it cut. This script times the whole evaluation (compilation excluded
by a warm-up run) at several sizes and prints the part the budget bounds (the planning, the
comparison and the bands, as the ``bootstrap time`` setting reports it) against the budget: a
bound holds when the ratio is at most about 1.2 (the budget is a plan from measured costs, not a
hard deadline). The whole run adds what the budget does not cover (every point value, the
curves, the analytic intervals). A timing cannot be a test (a loaded machine would turn it
red), so the check lives here.

Run ``python benchmarks/bench_budget.py`` (``--quick`` for the small sizes only).
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from ranklens.report import evaluate_models


def data(n: int, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    y = rng.lognormal(mean=3, size=n)
    return y, {
        "a": y * rng.lognormal(sigma=0.3, size=n),
        "b": y * rng.lognormal(sigma=0.8, size=n),
        "c": y.mean() + rng.normal(scale=y.std(), size=n),
    }


def bench_bound(n: int, budget: float) -> None:
    y, predictions = data(n)
    start = time.perf_counter()
    ev = evaluate_models(
        y, predictions, n_bootstrap=1000, bootstrap_budget_s=budget, robustness=False
    )
    whole = time.perf_counter() - start
    said = ev.settings.get("bootstrap time", "not run")
    # what the budget bounds (planning, comparison, bands): the leading figure of the setting
    bounded = float(said.split(" s of the ")[0]) if " s of the " in said else math.nan
    replicates = ev.comparison.n_bootstrap if ev.comparison is not None else 0
    cut = [key for key in ev.settings if "(time budget)" in key or key.endswith(" bands")]
    flag = "" if bounded <= 1.2 * budget else "  <- over the bound"
    print(
        f"{n:>10,}{budget:>8.0f} s{bounded:>10.1f} s{bounded / budget:>8.2f}{whole:>10.1f} s"
        f"{replicates:>12}   {said}; cut: {', '.join(cut) or 'nothing'}{flag}"
    )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    warm_y, warm_predictions = data(500)
    evaluate_models(warm_y, warm_predictions, n_bootstrap=50, robustness=False)  # compile
    print(
        f"{'rows':>10}{'budget':>10}{'bounded':>12}{'ratio':>8}{'whole run':>12}{'replicates':>12}"
    )
    cases = [(8_000, 4.0)] if quick else [(8_000, 4.0), (50_000, 60.0), (2_000_000, 60.0)]
    for n, budget in cases:
        bench_bound(n, budget)
