"""Coverage of ranklens's confidence intervals and the level of its tests, by simulation.

Regenerate the table of the documentation (``docs/coverage.md``) with one command::

    nice -n 10 python benchmarks/coverage_study.py --reps 1000 --write docs/coverage.md

Every interval and test the report can show is computed on ``--reps`` simulated data sets per
cell, with the library's public functions and their defaults, exactly as a user (or
:func:`ranklens.evaluate_models`) calls them:

* :func:`ranklens.compare_models` (the paired bootstrap, ``--boot`` replicates, its default
  interval) for RMSE, MAE, Kendall's tau, Spearman's rho, Harrell's C (``tau_normalized``),
  Somers' D and the ROC AUC;
* ``compare_models(..., method="delong")`` for Harrell's C, Somers' D and the AUC (DeLong's
  intervals and paired test, the report's default for them);
* :func:`ranklens.ranking_summary`'s ``tau_ci`` (the report's default interval for tau).

Data-generating processes (a signal ``S ~ N(0, 1)``, independent ``N(0, 1)`` noises ``e``):

* ``normal``: ``y = S + 0.6 e0``; models ``a = S + 0.5 e1``, ``b = S + 0.8 e2`` and ``c = S +
  0.5 e3`` (``c`` is exchangeable with ``a``: their true differences are 0);
* ``lognormal``: ``exp`` of each of the above (a long-tailed target; rank measures are
  invariant to the monotone map, so only the losses are shown);
* ``ties``: ``y = clip(round(S + 0.6 e0 + 0.6), -2, 2)`` (5 levels, the top one 22 %: the AUC's
  events), predictions rounded to halves;
* ``binary``: ``y = 1{S + 0.6 e0 > q_0.9}`` (10 % events), the predictions of ``normal``.

The AUC of a response with more than two values takes the true top 10 % as events (its
default), so it is a 10 %-events statistic under every process. True values come from one
sample of ``--truth-n`` rows (differences between ``a`` and ``c`` are 0 exactly).

For each interval: its coverage (with the Monte Carlo standard error
``sqrt(p (1 - p) / reps)``), the share of data sets where it was flagged ``approximate`` and the
coverage of the others, and the share where it was not given (NaN, e.g. too few events). For
each test: its rejection rate at ``a`` vs ``c`` (true difference 0), the type-I error. A cell is
marked ✗ where the intervals not flagged approximate cover less than ``level - 2.5`` points by
more than two standard errors (a test: rejects more than ``alpha + 2.5`` points).

Options: ``--reps`` data sets per cell, ``--n`` sample sizes, ``--dgp`` processes, ``--boot``
bootstrap replicates, ``--jobs`` worker processes, ``--seed``, ``--write`` a Markdown file.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

# This file is named like the ``coverage`` package that numba imports: its folder must not be
# on the import path, or numba would import this script in its place.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import numpy as np  # noqa: E402

LEVEL = 0.95
#: The measures of the bootstrap comparison, by registry name, with the label of the table.
BOOT_MEASURES = {
    "root_mean_squared_error": "RMSE",
    "mean_absolute_error": "MAE",
    "kendall_tau": "Kendall's tau",
    "spearman_rho": "Spearman's rho",
    "tau_normalized": "Harrell's C",
    "somers_d": "Somers' D",
    "roc_auc": "AUC",
}
DELONG_MEASURES = ("tau_normalized", "somers_d", "roc_auc")
LOSSES = ("root_mean_squared_error", "mean_absolute_error")
DGPS = ("normal", "lognormal", "ties", "binary")
#: The 90 % quantile of ``S + 0.6 e0`` (variance 1.36).
Q90 = 1.2815515655446004 * math.sqrt(1.36)


def draw(dgp: str, rng: np.random.Generator, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One data set of ``n`` rows: the response and the predictions of models a, b and c."""
    s = rng.standard_normal(n)
    e = rng.standard_normal((4, n))
    latent = s + 0.6 * e[0]
    preds = {"a": s + 0.5 * e[1], "b": s + 0.8 * e[2], "c": s + 0.5 * e[3]}
    if dgp == "normal":
        return latent, preds
    if dgp == "lognormal":
        return np.exp(latent), {k: np.exp(v) for k, v in preds.items()}
    if dgp == "ties":
        y = np.clip(np.round(latent + 0.6), -2.0, 2.0)
        return y, {k: np.round(2.0 * v) / 2.0 for k, v in preds.items()}
    if dgp == "binary":
        return (latent > Q90).astype(np.float64), preds
    raise ValueError(f"unknown dgp {dgp!r}")


def measures_of(dgp: str) -> tuple[str, ...]:
    """The bootstrap's measures for a process (the losses only under the monotone map)."""
    return LOSSES if dgp == "lognormal" else tuple(BOOT_MEASURES)


def truth(dgp: str, n_big: int, seed: int) -> dict[str, dict[str, float]]:
    """The measures of models a and b (c equals a) on one large sample."""
    from ranklens.metrics import get_metric

    rng = np.random.default_rng([seed, DGPS.index(dgp), 99])
    y, preds = draw(dgp, rng, n_big)
    out: dict[str, dict[str, float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in measures_of(dgp):
            func = get_metric(name).func
            value = {m: float(func(y, preds[m])) for m in ("a", "b")}
            out[name] = {"a": value["a"], "b": value["b"], "c": value["a"]}
    return out


@dataclasses.dataclass
class Tally:
    """Counts of one row of the table in one cell."""

    method: dict[str, int] = dataclasses.field(default_factory=dict)
    given: int = 0
    hit: int = 0
    approx: int = 0
    approx_hit: int = 0
    total: int = 0

    def add(self, method: str, hit: bool | None, approximate: bool) -> None:
        """One data set: ``hit`` None when no interval (or p-value) was given."""
        self.total += 1
        self.method[method] = self.method.get(method, 0) + 1
        if hit is None:
            return
        self.given += 1
        self.hit += bool(hit)
        if approximate:
            self.approx += 1
            self.approx_hit += bool(hit)

    def merge(self, other: Tally) -> None:
        for k, v in other.method.items():
            self.method[k] = self.method.get(k, 0) + v
        self.given += other.given
        self.hit += other.hit
        self.approx += other.approx
        self.approx_hit += other.approx_hit
        self.total += other.total


def _flag(result: Any, field: str, k: int, j: int) -> bool:
    flags = getattr(result, field, None)
    if flags is None or np.size(flags) == 0:
        return False
    return bool(np.asarray(flags)[k, j])


def _methods(result: Any, field: str, default: str) -> tuple[str, ...]:
    own = tuple(getattr(result, field, ()) or ())
    return own if own else (default,) * len(result.metrics)


def _covers(low: float, high: float, value: float) -> bool | None:
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return bool(low <= value <= high)


def _record_comparison(
    out: dict[tuple[str, ...], Tally], result: Any, source: str, true: dict[str, dict[str, float]]
) -> None:
    """Coverage of each model's interval (model a), of the difference a - b, and the tests."""
    models = result.models
    pairs = result.pairs
    a = models.index("a")
    ab, ac = pairs.index(("a", "b")), pairs.index(("a", "c"))
    default = result.interval if source == "bootstrap" else "delong"
    single = _methods(result, "interval_methods", default)
    diff = _methods(result, "difference_interval_methods", default)
    for k, metric in enumerate(result.metrics):
        t = true[metric]
        row = out.setdefault((metric, "value (model a)", source), Tally())
        hit = _covers(result.ci_lower[k, a], result.ci_upper[k, a], t["a"])
        row.add(single[k], hit, _flag(result, "approximate", k, a))
        row = out.setdefault((metric, "difference a - b", source), Tally())
        hit = _covers(
            result.difference_ci_lower[k, ab], result.difference_ci_upper[k, ab], t["a"] - t["b"]
        )
        row.add(diff[k], hit, _flag(result, "difference_approximate", k, ab))
        # type-I error: a and c are exchangeable (true difference 0)
        row = out.setdefault((metric, "excludes 0 (a vs c)", source), Tally())
        covered = _covers(result.difference_ci_lower[k, ac], result.difference_ci_upper[k, ac], 0.0)
        row.add(
            diff[k],
            None if covered is None else not covered,
            _flag(result, "difference_approximate", k, ac),
        )
        p = float(result.p_value[k, ac])
        if source == "delong":
            test = "delong"
        elif diff[k] == "bootstrap-studentized":
            test = "bootstrap-t"
        else:
            test = "bootstrap symmetric"
        row = out.setdefault((metric, "test p < 0.05 (a vs c)", source), Tally())
        row.add(
            test,
            None if not math.isfinite(p) else p < 1 - LEVEL,
            _flag(result, "difference_approximate", k, ac),
        )
        if source == "bootstrap":
            # Rosset, Perlich & Zadrozny's Gaussian 2 Phi(-|z|): not the default test, shown as
            # the reason it is not
            p = 2.0 * float(result.p_value_one_sided[k, ac])
            row = out.setdefault((metric, "Gaussian z p < 0.05 (a vs c)", source), Tally())
            row.add(
                "2 Phi(-|z|), not the default",
                None if not math.isfinite(p) else p < 1 - LEVEL,
                _flag(result, "difference_approximate", k, ac),
            )


def one_dataset(
    dgp: str, n: int, seed: int, boot: int, true: dict[str, dict[str, float]]
) -> dict[tuple[str, ...], Tally]:
    """Every interval and test of one simulated data set."""
    from ranklens import compare_models, ranking_summary

    rng = np.random.default_rng([seed, DGPS.index(dgp), n])
    y, preds = draw(dgp, rng, n)
    out: dict[tuple[str, ...], Tally] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = compare_models(
                y,
                preds,
                metrics=list(measures_of(dgp)),
                n_bootstrap=boot,
                confidence_level=LEVEL,
                random_state=seed,
            )
        except ValueError:  # e.g. a constant response: nothing is given
            res = None
        if res is not None:
            _record_comparison(out, res, "bootstrap", true)
        if dgp != "lognormal":
            try:
                dl = compare_models(
                    y,
                    preds,
                    metrics=list(DELONG_MEASURES),
                    method="delong",
                    confidence_level=LEVEL,
                )
            except ValueError:
                dl = None
            if dl is not None:
                _record_comparison(out, dl, "delong", true)
            summary = ranking_summary(y, preds["a"], confidence_level=LEVEL)
            low, high = summary.tau_ci
            row = out.setdefault(("kendall_tau", "value (model a)", "analytic"), Tally())
            row.add(
                str(getattr(summary, "tau_ci_method", "noether")),
                _covers(low, high, true["kendall_tau"]["a"]),
                bool(getattr(summary, "tau_ci_approximate", False)),
            )
    return out


def _chunk(
    args: tuple[str, int, list[int], int, dict[str, dict[str, float]]],
) -> dict[tuple[str, ...], Tally]:
    dgp, n, seeds, boot, true = args
    total: dict[tuple[str, ...], Tally] = {}
    for seed in seeds:
        for key, tally in one_dataset(dgp, n, seed, boot, true).items():
            total.setdefault(key, Tally()).merge(tally)
    return total


def small_n_tau(reps: int, seed: int, sizes: tuple[int, ...] = (5, 10, 20)) -> dict[Any, Tally]:
    """Kendall's tau interval of ``ranking_summary`` at small n (normal and ties)."""
    from ranklens import ranking_summary

    out: dict[Any, Tally] = {}
    for dgp in ("normal", "ties"):
        true = truth(dgp, 400_000, seed)["kendall_tau"]["a"]
        for n in sizes:
            tally = out.setdefault((dgp, n), Tally())
            for r in range(reps):
                rng = np.random.default_rng([seed, DGPS.index(dgp), n, r, 7])
                y, preds = draw(dgp, rng, n)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    s = ranking_summary(y, preds["a"], confidence_level=LEVEL)
                tally.add(
                    str(getattr(s, "tau_ci_method", "noether")),
                    _covers(*s.tau_ci, true),
                    bool(getattr(s, "tau_ci_approximate", False)),
                )
    return out


# --------------------------------------------------------------------------------------------
# the table


def _pct(k: int, m: int) -> tuple[float, float]:
    p = k / m
    return 100 * p, 100 * math.sqrt(p * (1 - p) / m)


#: Fewest data sets (given, not flagged approximate) a cell is judged on (✗) .
MIN_JUDGED = 20


def cell(t: Tally, test: bool) -> str:
    """``coverage ± se`` (or rejection rate), with the approximate and not-given shares."""
    if t.total == 0:
        return ""
    if t.given == 0:
        return "not given"
    if t.given < MIN_JUDGED:  # too few to estimate a rate: the counts
        return f"{t.hit} of {t.given} given ({t.total - t.given} of {t.total} not given)"
    p, se = _pct(t.hit, t.given)
    text = f"{p:.1f} ± {se:.1f}"
    exact = t.given - t.approx
    bad = False
    if exact >= MIN_JUDGED:
        q, qse = _pct(t.hit - t.approx_hit, exact)
        limit = 100 * (1 - LEVEL) + 2.5 if test else 100 * LEVEL - 2.5
        bad = q - 2 * qse > limit if test else q + 2 * qse < limit
    notes = []
    if t.approx:
        rest = f"; rest {_pct(t.hit - t.approx_hit, exact)[0]:.1f}" if exact else ""
        notes.append(f"{100 * t.approx / t.given:.0f} % approx.{rest}")
    if t.given < t.total:
        notes.append(f"{100 * (t.total - t.given) / t.total:.0f} % not given")
    if notes:
        text += " (" + ", ".join(notes) + ")"
    return text + (" ✗" if bad else "")


INTRO = """# Coverage of intervals and level of tests

Every interval and paired test the report can show, checked by simulation: how often a nominal
95 % interval covers the true value, and how often a test (or "the interval of a difference
excludes 0") rejects when the two models are exchangeable (true difference 0). The table is
made by `benchmarks/coverage_study.py` (its docstring describes the data-generating processes);
regenerate it with

```
nice -n 10 python benchmarks/coverage_study.py --reps 1000 --write docs/coverage.md
```

(`--reps` data sets per cell, `--boot` bootstrap replicates, `--n`, `--dgp`, `--jobs` worker
processes). Defaults it supports:

* the AUC, Harrell's C and Somers' D: DeLong's variance on the logit scale with Student's t and
  Satterthwaite's degrees of freedom (`delong-logit`; Pohar Perme & Manevski 2019, Brunner &
  Munzel 2000); the Wald interval (`method="wald"`, pROC's) covered 77-87 % at 10 % events
  and n = 30-100 in this study;
  a difference's Wald interval is flagged approximate with fewer than 10 events;
* Kendall's tau: Fisher's z (`fisher-z`; Fieller, Hartley & Pearson 1957, Bonett & Wright 2000,
  Newson 2006), flagged approximate below 10 rows; Noether's Wald interval by name;
* mean losses (RMSE, MAE, ...): Hall's (1988) symmetric bootstrap-t (`bootstrap-studentized`),
  flagged approximate when the per-row contributions are long-tailed (tail weight above 10),
  one row dominates them, or the sample has fewer rows than `28 + 25 g^2` for the target's
  skewness `g` (Cochran's 1977 rule with the offset of Sugden, Smith & Jones 2000: a small
  sample of a long-tailed target has often not drawn the tail, and its losses then look
  light); no bootstrap interval covers a lognormal target's RMSE (all its data sets flagged),
  nor its MAE at n = 30 and 100 (88-92 %; flagged in 100 and 98 %). Cochran's `25 g^2`
  without the offset left 5 % of the lognormal samples of 30 rows unflagged (those with a
  skewness below 1.1), and they covered the MAE in 62 %. The offset's price: at n = 30 it
  flags about half of a normal or tied target's samples (a skewness above 0.28), whose
  intervals cover as well as the others' (no rule the sample supports tells a tail not yet
  drawn from no tail; `benchmarks/mean_loss_intervals.py`). The bootstrap-t test of a mean
  loss at n = 30 is slightly liberal whatever the flag (6.4-6.7 % with a normal target, 7-8 %
  in the unflagged half);
* other bootstrapped measures: BCa for each model's value, percentile for differences;
* paired tests (`p_value`, and the report's Holm family): the bootstrap test dual to the
  difference's interval, the symmetric bootstrap-t test for the mean losses (`bootstrap-t`), the
  symmetric test of the centred replicates elsewhere (`bootstrap symmetric`; Hall & Wilson
  1991); DeLong's test for the concordance measures. Rosset, Perlich & Zadrozny's Gaussian
  `2 Phi(-|z|)` with the bootstrap's SD is shown for comparison, and is not a default: it
  rejected a true null in 8-9 % of data sets at n = 30. The symmetric test is conservative for
  the rank measures at n = 30 (1.8-3.7 %): the percentile test, which reads the replicates'
  tail on the side of zero, rejected 4-6 % there, but a measure resting on a few extreme rows
  (SERA) made it liberal (8 % at the Holm level 1.25 %; `docs/report.md`), and a conservative
  test keeps the report's promise where a liberal one breaks it;
* a binary response (or the AUC's events) with fewer than 10 rows in a class: no bootstrap
  interval or paired test (NaN, with a `FewEventsWarning`).

"""


def markdown(
    results: dict[tuple[str, int], dict[tuple[str, ...], Tally]],
    small: dict[Any, Tally] | None,
    args: argparse.Namespace,
    seconds: float,
) -> str:
    sizes = sorted({n for _, n in results})
    lines = [
        "<!-- generated by: python benchmarks/coverage_study.py " + " ".join(sys.argv[1:]) + " -->",
        "",
        INTRO,
        f"{args.reps} data sets per cell, nominal {LEVEL:.0%}, {args.boot} bootstrap replicates; "
        "coverage (or type-I error) in % ± its Monte Carlo standard error. "
        "'approx.': the share of data sets whose interval was flagged approximate, and the "
        "coverage of the rest; ✗: the intervals not flagged cover less than "
        f"{100 * LEVEL - 2.5:.1f} % (a test rejects more than {100 * (1 - LEVEL) + 2.5:.1f} %) "
        "by more than two standard errors (judged where at least "
        f"{MIN_JUDGED} are neither approximate nor left out). ({seconds / 60:.0f} min.)",
        "",
    ]
    for dgp in DGPS:
        keys: list[tuple[str, ...]] = []
        for (d, _), res in results.items():
            if d == dgp:
                keys += [k for k in res if k not in keys]
        if not keys:
            continue
        order = {m: i for i, m in enumerate(BOOT_MEASURES)}
        kinds = [
            "value (model a)",
            "difference a - b",
            "excludes 0 (a vs c)",
            "test p < 0.05 (a vs c)",
            "Gaussian z p < 0.05 (a vs c)",
        ]
        keys.sort(key=lambda k: (order[k[0]], kinds.index(k[1]), k[2]))
        lines += [
            f"### {dgp}",
            "",
            "| measure | quantity | method | " + " | ".join(f"n = {n}" for n in sizes) + " |",
            "|---|---|---|" + "---|" * len(sizes),
        ]
        for key in keys:
            metric, quantity, _ = key
            tallies = [results.get((dgp, n), {}).get(key, Tally()) for n in sizes]
            methods: dict[str, int] = {}
            for t in tallies:
                for k, v in t.method.items():
                    methods[k] = methods.get(k, 0) + v
            method = ", ".join(sorted(methods, key=lambda m: -methods[m]))
            test = quantity.startswith(("excludes", "test", "Gaussian"))
            lines.append(
                f"| {BOOT_MEASURES[metric]} | {quantity} | {method} | "
                + " | ".join(cell(t, test) for t in tallies)
                + " |"
            )
        lines.append("")
    if small:
        sizes_small = sorted({n for _, n in small})
        lines += [
            "### Kendall's tau at small n (ranking_summary's interval)",
            "",
            "| process | method | " + " | ".join(f"n = {n}" for n in sizes_small) + " |",
            "|---|---|" + "---|" * len(sizes_small),
        ]
        for dgp in ("normal", "ties"):
            tallies = [small[(dgp, n)] for n in sizes_small]
            method = ", ".join(sorted({m for t in tallies for m in t.method}))
            lines.append(
                f"| {dgp} | {method} | " + " | ".join(cell(t, False) for t in tallies) + " |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="data sets per cell")
    parser.add_argument("--boot", type=int, default=500, help="bootstrap replicates")
    parser.add_argument("--n", type=int, nargs="+", default=[30, 100, 1000])
    parser.add_argument("--dgp", nargs="+", default=list(DGPS), choices=DGPS)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=20240535)
    parser.add_argument("--truth-n", type=int, default=2_000_000)
    parser.add_argument("--no-small-n", action="store_true", help="skip tau at n = 5, 10, 20")
    parser.add_argument("--write", metavar="PATH", help="write the Markdown table here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results: dict[tuple[str, int], dict[tuple[str, ...], Tally]] = {}
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for dgp in args.dgp:
            true = truth(dgp, args.truth_n, args.seed)
            for n in args.n:
                seeds = [args.seed * 10_000 + r for r in range(args.reps)]
                chunks = [
                    (dgp, n, seeds[i :: max(args.jobs, 1)], args.boot, true)
                    for i in range(max(args.jobs, 1))
                ]
                mapper: Callable[..., Any] = pool.map if pool is not None else map
                cell_total: dict[tuple[str, ...], Tally] = {}
                for part in mapper(_chunk, chunks):
                    for key, tally in part.items():
                        cell_total.setdefault(key, Tally()).merge(tally)
                results[(dgp, n)] = cell_total
                print(
                    f"{dgp} n={n}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True
                )
    finally:
        if pool is not None:
            pool.shutdown()
    small = None if args.no_small_n else small_n_tau(args.reps, args.seed)
    text = markdown(results, small, args, time.perf_counter() - start)
    print(text)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    # one thread a process (the worker processes inherit it): the jobs are the parallelism.
    # Set here, not in main(): numba refuses a new thread count once its threads have started,
    # so a caller's process (the test of this harness) must keep its own.
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    main()
