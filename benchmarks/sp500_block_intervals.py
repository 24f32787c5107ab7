"""The demo's S&P 500 evaluation with its dates (block bootstrap) and without (rows independent).

Run (about two minutes on two cores)::

    nice -n 10 python benchmarks/sp500_block_intervals.py --bootstrap 500

The demo's models are fitted (:func:`ranklens._demo.fit_sp500_models`) and their test days
evaluated twice with the same seed and replicates: as ``ranklens demo`` does now
(``time=`` the test days' dates: the stationary block bootstrap for every interval and test)
and as it did before (no dates: the paired bootstrap of single rows, DeLong's and Noether's
analytic intervals where a measure declares them). Per measure it prints the method of each
run's intervals, the ratio block / independent of the mean width of the models' 95 %
intervals and of the pairs' difference intervals, and the Holm-adjusted verdicts of the report
(the pairs whose difference is clear); then the Summary's verdict per goal in both runs, and the
check for serial dependence of the run without dates.
"""

from __future__ import annotations

import argparse
import math

import numpy as np


def _widths(comparison: object, k: int) -> tuple[float, float]:
    """The mean width of measure ``k``'s value intervals and of its difference intervals."""
    values = np.asarray(comparison.ci_upper[k]) - np.asarray(comparison.ci_lower[k])  # type: ignore[attr-defined]
    pairs = np.asarray(comparison.difference_ci_upper[k]) - np.asarray(  # type: ignore[attr-defined]
        comparison.difference_ci_lower[k]  # type: ignore[attr-defined]
    )
    return float(np.nanmean(values)), float(np.nanmean(pairs)) if pairs.size else math.nan


def _clear(evaluation: object) -> dict[str, set[str]]:
    """Per measure, the pairs whose Holm-adjusted difference is clear (as the report shades)."""
    from ranklens.report.goals import comparison_contrasts

    out: dict[str, set[str]] = {}
    for contrast in comparison_contrasts(evaluation).values():
        if contrast.better:
            pair = f"{contrast.model_a}/{contrast.model_b}: {contrast.better}"
            out.setdefault(contrast.metric, set()).add(pair)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import warnings

    from ranklens import evaluate_models
    from ranklens._demo import fit_sp500_models
    from ranklens._inference.method_names import interval_methods
    from ranklens.report.goals import summary_verdicts

    sp = fit_sp500_models(args.seed)
    common = dict(
        intervals=sp["intervals"],
        alpha=0.1,
        relevance=sp["relevance"],
        events="top:0.05",
        n_bootstrap=args.bootstrap,
        random_state=args.seed,
        bootstrap_budget_s=math.inf,
        curves=False,
        robustness=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = evaluate_models(sp["y_test"], sp["predictions"], **common)
        blocks = evaluate_models(sp["y_test"], sp["predictions"], time=sp["dates_test"], **common)
    print(f"{blocks.n} test days; {blocks.settings['time']}")
    print(blocks.settings["block bootstrap"])
    a, b = rows.comparison, blocks.comparison
    methods_a = interval_methods(a)
    clear_a, clear_b = _clear(rows), _clear(blocks)
    print(
        f"\n{'measure':34} {'rows: method':28} {'value CI':>9} {'diff CI':>8}  clear pairs "
        "(rows -> blocks)"
    )
    for k_b, metric in enumerate(b.metrics):
        if metric not in a.metrics:
            continue
        k_a = a.metrics.index(metric)
        values_a, pairs_a = _widths(a, k_a)
        values_b, pairs_b = _widths(b, k_b)
        before = sorted(clear_a.get(metric, set()))
        after = sorted(clear_b.get(metric, set()))
        change = "same" if before == after else f"{before} -> {after}"
        print(
            f"{metric:34} {methods_a[k_a]:28} {values_b / values_a:9.2f} "
            f"{pairs_b / pairs_a:8.2f}  {len(before)} -> {len(after)} ({change})"
        )
    print("\nSummary (goal: pick, evidence; rows -> blocks)")
    for va, vb in zip(summary_verdicts(rows), summary_verdicts(blocks), strict=True):
        print(f"  {va.goal.key}: {va.metric} {va.best} {va.evidence} -> {vb.best} {vb.evidence}")
    check = rows.serial_dependence
    if check is not None:
        print("\nSerial dependence of the rows in the order given (the run without dates):")
        print(check.to_frame().round(3).to_string(index=False))
        print(f"warning: {check.warning or '(none)'}")


if __name__ == "__main__":
    main()
