"""Simulation: how often the report's Summary calls a lead "clear" when no model is better.

Run ``python benchmarks/verdicts_fwer.py --reps 400`` (the table of ``docs/report.md``; add
``--markdown`` for the table alone). Each data set runs the real
:func:`ranklens.report.evaluate_models` (paired bootstrap, ``inference="auto"``: DeLong for the
AUC and Harrell's C) and the Summary's verdict function
:func:`ranklens.report.goals.summary_verdicts`, as the HTML report and ``results.json`` do.

Data. A shared latent ``z ~ N(0, 1)``; each model predicts ``z + sd_j e_j`` with independent
``e_j ~ N(0, 1)`` (its error sd is ``sd_j``); the target is ``y = z`` (``normal``) or
``y = 1{z > 0.8416}`` (``binary``, 20 % events).

* Equally good models (every ``sd_j = 1``): any "clear" verdict is a false claim. The share of
  data sets with at least one is the family-wise error rate of the Summary, promised <= 5 %;
  cells ``k`` in {2, 3, 5} models by ``n`` in {100, 1000} by target.
* Power (``k = 2``, ``n = 200``, ``sd = 0.7`` against ``1.0``): the share of data sets in which
  the better model is called clearly best, per goal and on any goal.

Each share is printed with its Monte Carlo standard error ``sqrt(p (1 - p) / reps)``; the
binomial 95 % bound is about two of them. One evaluation takes 0.5-4 s of one core (more with
five models and at n = 1000): time a few with ``--reps 5`` first.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pathlib
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from ranklens.report import evaluate_models
from ranklens.report.goals import summary_verdicts

GOAL_KEYS = ("ranking", "targeting", "extremes", "errors")


@dataclasses.dataclass(frozen=True)
class Cell:
    """One simulation setting."""

    name: str
    k: int
    n: int
    target: str
    better_sd: float | None = None  # None: every model equally good

    @property
    def power(self) -> bool:
        return self.better_sd is not None


def cells() -> list[Cell]:
    """The null cells (k x n x target) and the power cells."""
    out = [
        Cell(f"null-k{k}-n{n}-{target}", k, n, target)
        for target in ("normal", "binary")
        for n in (100, 1000)
        for k in (2, 3, 5)
    ]
    out += [Cell(f"power-k2-n200-{t}", 2, 200, t, better_sd=0.7) for t in ("normal", "binary")]
    return out


def simulate(cell: Cell, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One data set of ``cell``: the target and the models' predictions (the first model is the
    better one in a power cell)."""
    z = rng.normal(size=cell.n)
    y = (z > 0.8416).astype(np.float64) if cell.target == "binary" else z
    sds = [1.0] * cell.k
    if cell.better_sd is not None:
        sds[0] = cell.better_sd
    preds = {f"m{j + 1}": z + sd * rng.normal(size=cell.n) for j, sd in enumerate(sds)}
    return y, preds


def verdict_outcome(verdicts: list[Any], better: str | None) -> dict[str, bool]:
    """``any``: some comparison of the Summary's family is called clear (every pair of models
    on each goal's headline measure, as ``results.json``'s ``summary`` lists them; the pick's
    comparisons where the verdicts have no ``family``); per goal (and ``best_any``) in a power
    cell: the better model is called clearly best."""
    out = {"any": False, "best_any": False}
    for verdict in verdicts:
        if any(c.clear for c in getattr(verdict, "family", verdict.contrasts)):
            out["any"] = True
        best = better is not None and verdict.best == better and verdict.evidence == "clear"
        out[verdict.goal.key] = best
        out["best_any"] = out["best_any"] or best
    return out


def run_cell(cell: Cell, reps: int, n_bootstrap: int, seed: int, jobs: int = 1) -> dict[str, Any]:
    """``reps`` data sets of ``cell``: counts of each outcome and the seconds taken (wall
    clock; ``jobs`` worker processes share the data sets, each drawn from its own seed, so the
    counts do not depend on ``jobs``)."""
    start = time.perf_counter()
    chunks = [range(j, reps, jobs) for j in range(jobs)]
    if jobs == 1:
        parts = [_run_reps(cell, chunks[0], n_bootstrap, seed)]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(
                pool.map(_run_reps, [cell] * jobs, chunks, [n_bootstrap] * jobs, [seed] * jobs)
            )
    counts: dict[str, int] = {}
    for part in parts:
        for key, hits in part.items():
            counts[key] = counts.get(key, 0) + hits
    return {"cell": cell, "reps": reps, "counts": counts, "seconds": time.perf_counter() - start}


def _run_reps(cell: Cell, reps: range, n_bootstrap: int, seed: int) -> dict[str, int]:
    """Counts of each outcome over the data sets ``reps`` of ``cell``."""
    counts: dict[str, int] = {}
    for rep in reps:
        rng = np.random.default_rng([seed, cell.k, cell.n, len(cell.target), int(cell.power), rep])
        y, preds = simulate(cell, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            evaluation = evaluate_models(
                y,
                preds,
                n_bootstrap=n_bootstrap,
                random_state=rep,
                robustness=False,
                curves=False,
            )
            verdicts = summary_verdicts(evaluation)
        outcome = verdict_outcome(verdicts, "m1" if cell.power else None)
        for key, hit in outcome.items():
            counts[key] = counts.get(key, 0) + int(hit)
    return counts


def share(hits: int, reps: int) -> str:
    """``p ± s.e.`` in percent (binomial Monte Carlo standard error)."""
    p = hits / reps
    return f"{100 * p:.1f} ± {100 * math.sqrt(p * (1 - p) / reps):.1f}"


def table(results: list[dict[str, Any]], n_bootstrap: int) -> str:
    """The results as two Markdown tables: the null cells, then the power cells."""
    lines = [
        f"Equally good models ({n_bootstrap} bootstrap replicates per data set): share of data "
        'sets with any "clear" verdict (%, ± Monte Carlo s.e.; promised <= 5 %)',
        "",
        "| target | n | 2 models | 3 models | 5 models |",
        "|---|---|---|---|---|",
    ]
    null = {(r["cell"].target, r["cell"].n, r["cell"].k): r for r in results if not r["cell"].power}
    for target in ("normal", "binary"):
        for n in (100, 1000):
            row = [target, str(n)]
            for k in (2, 3, 5):
                r = null.get((target, n, k))
                row.append(f"{share(r['counts']['any'], r['reps'])} ({r['reps']})" if r else "")
            if any(row[2:]):
                lines.append("| " + " | ".join(row) + " |")
    pooled = [r for r in results if not r["cell"].power]
    if pooled:
        hits = sum(r["counts"]["any"] for r in pooled)
        total = sum(r["reps"] for r in pooled)
        lines += ["", f"All null cells together: {share(hits, total)} % of {total} data sets."]
    power = [r for r in results if r["cell"].power]
    if power:
        lines += [
            "",
            "A better model (error sd 0.7 against 1.0, two models, n = 200): share of data sets "
            "in which it is called clearly best (%, ± s.e.)",
            "",
            "| target | reps | " + " | ".join(GOAL_KEYS) + " | any goal |",
            "|---|---|" + "---|" * (len(GOAL_KEYS) + 1),
        ]
        for r in power:
            c = r["counts"]
            goals = [share(c[g], r["reps"]) if g in c else "n/a" for g in GOAL_KEYS]
            lines.append(
                f"| {r['cell'].target} | {r['reps']} | "
                + " | ".join(goals)
                + f" | {share(c['best_any'], r['reps'])} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400, help="data sets per cell")
    parser.add_argument(
        "--reps-n1000",
        type=int,
        default=None,
        help="data sets per cell at n = 1000 (default: --reps; these cells cost 2-3 times more)",
    )
    parser.add_argument("--n-bootstrap", type=int, default=500, help="replicates per data set")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--cells", default="", help="comma-separated substrings of cell names (default: all)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--markdown", action="store_true", help="print the tables alone")
    parser.add_argument(
        "--update-docs",
        metavar="PATH",
        help="also write the tables into PATH between the verdicts_fwer markers",
    )
    args = parser.parse_args(argv)
    chosen = [
        c for c in cells() if not args.cells or any(s in c.name for s in args.cells.split(","))
    ]
    results = []
    for cell in chosen:
        reps = args.reps_n1000 if cell.n == 1000 and args.reps_n1000 else args.reps
        result = run_cell(cell, reps, args.n_bootstrap, args.seed, max(1, args.jobs))
        results.append(result)
        if not args.markdown:
            hits = result["counts"].get("best_any" if cell.power else "any", 0)
            print(
                f"{cell.name}: {share(hits, reps)} % ({result['seconds']:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    text = table(results, args.n_bootstrap)
    print(text)
    if args.update_docs:
        update_docs(args.update_docs, text, args)


#: The markers around the generated tables in docs/report.md.
START, END = "<!-- verdicts_fwer: start -->", "<!-- verdicts_fwer: end -->"


def update_docs(path: str, text: str, args: argparse.Namespace) -> None:
    """Replace what lies between :data:`START` and :data:`END` in ``path`` with the tables and
    the command that made them."""
    doc = pathlib.Path(path)
    source = doc.read_text(encoding="utf-8")
    head, rest = source.split(START, 1)
    _, tail = rest.split(END, 1)
    cells_arg = f" --cells {args.cells}" if args.cells else ""
    if args.reps_n1000:
        cells_arg += f" --reps-n1000 {args.reps_n1000}"
    command = (
        f"nice -n 10 python benchmarks/verdicts_fwer.py --reps {args.reps} "
        f"--n-bootstrap {args.n_bootstrap} --seed {args.seed}{cells_arg} --update-docs {path}"
    )
    block = f"{START}\n\n`{command}`\n\n{text}\n\n{END}"
    doc.write_text(head + block + tail, encoding="utf-8")


if __name__ == "__main__":
    main()
