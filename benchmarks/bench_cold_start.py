"""First contact: the time of a first call in a fresh process, cold and warm numba cache.

Each case runs in a fresh Python process (so imports and numba's in-memory dispatchers start
empty) with its own temporary ``NUMBA_CACHE_DIR``: first empty (*cold*: numba compiles every
kernel the case needs), then again with the cache that first run wrote (*warm*: what every later
run of an installed ranklens sees). Times are wall clock of the whole process, interpreter
start-up and imports included, as a user waiting at the prompt experiences them.

Cases and targets:

* ``import ranklens`` (<= 0.5 s);
* ``ranking_summary`` on 1,000 rows (cold <= 3 s, warm <= 1 s);
* ``compare_models`` with 4 metrics and 2 models, default options (cold <= 5 s, warm <= 1 s);
* ``ranklens evaluate`` on a 500-row, 3-model CSV with default options (cold <= 20 s,
  warm <= 5 s).

Usage::

    python benchmarks/bench_cold_start.py [--repeat K] [--only CASE ...]

``--repeat K`` runs the cold/warm pair K times (each time with a new empty cache) and prints the
median and the range.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

#: name -> (code run with ``python -c``, cold target s, warm target s). ``{csv}`` is the data file.
_DATA = """
import numpy as np
rng = np.random.default_rng(0)
y = rng.lognormal(size={n})
p = np.log(y) + rng.normal(size={n})
q = np.log(y) + rng.normal(scale=1.5, size={n})
"""

CASES: dict[str, tuple[str, float | None, float]] = {
    "import ranklens": ("import ranklens", None, 0.5),
    "ranking_summary, n = 1,000": (
        _DATA.format(n=1000) + "import ranklens\nranklens.ranking_summary(y, p)\n",
        3.0,
        1.0,
    ),
    "compare_models, 4 metrics x 2 models, n = 1,000": (
        _DATA.format(n=1000)
        + "import ranklens\n"
        + "ranklens.compare_models(y, {'a': p, 'b': q}, random_state=0, show_progress=False)\n",
        5.0,
        1.0,
    ),
    "ranklens evaluate, 500 rows x 3 models": ("", 20.0, 5.0),
}

EVALUATE = "ranklens evaluate, 500 rows x 3 models"


def _write_csv(path: pathlib.Path) -> None:
    """500 rows: a lognormal target and three models of different quality."""
    import numpy as np

    rng = np.random.default_rng(0)
    n = 500
    y = rng.lognormal(mean=3.0, sigma=1.0, size=n)
    rows = ["y,good,fair,poor"]
    good = y * rng.lognormal(0.0, 0.3, n)
    fair = y * rng.lognormal(0.0, 0.7, n)
    poor = y.mean() + rng.normal(0.0, y.std(), n)
    for k in range(n):
        rows.append(f"{y[k]:.17g},{good[k]:.17g},{fair[k]:.17g},{poor[k]:.17g}")
    path.write_text("\n".join(rows) + "\n")


def _command(case: str, workdir: pathlib.Path) -> list[str]:
    if case == EVALUATE:
        csv = workdir / "scores.csv"
        if not csv.exists():
            _write_csv(csv)
        # The console script's own module, with this interpreter (no PATH lookup).
        return [
            sys.executable,
            "-c",
            "from ranklens.__main__ import main; main()",
            "evaluate",
            str(csv),
            "--target",
            "y",
            "--pred",
            "good",
            "--pred",
            "fair",
            "--pred",
            "poor",
            "--json",
            str(workdir / "out.json"),
            "--quiet",
        ]
    return [sys.executable, "-c", textwrap.dedent(CASES[case][0])]


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str], cache: pathlib.Path) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    cpu = _cpu_children()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    CPU_SECONDS.append(_cpu_children() - cpu)
    if done.returncode != 0:  # a failed run is no timing of the work it did not do
        raise RuntimeError(f"{command} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds


#: CPU seconds (user + system) of each run, in the order run: on a loaded machine the wall time
#: includes waiting for a core, the CPU time much less so.
CPU_SECONDS: list[float] = []


def measure(case: str, repeat: int) -> tuple[list[float], list[float]]:
    """``(cold, warm)`` wall times of ``case`` over ``repeat`` fresh caches."""
    cold, warm = [], []
    for _ in range(repeat):
        workdir = pathlib.Path(tempfile.mkdtemp(prefix="ranklens-cold-"))
        try:
            cache = workdir / "numba-cache"
            cache.mkdir()
            command = _command(case, workdir)
            cold.append(_run(command, cache))
            warm.append(_run(command, cache))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    return cold, warm


def _fmt(times: list[float], target: float | None) -> str:
    med = statistics.median(times)
    spread = f" ({min(times):.2f}-{max(times):.2f})" if len(times) > 1 else ""
    verdict = "" if target is None else ("  ok" if med <= target else f"  OVER {target:g} s")
    return f"{med:6.2f} s{spread}{verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="substrings of case names")
    parser.add_argument(
        "--quick", action="store_true", help="one run of each case (make bench --quick)"
    )
    args = parser.parse_args()
    if args.quick:
        args.repeat = 1
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {args.repeat}")
    print(f"{'case':52s} {'cold':>26s}   {'warm':>26s}")
    for case, (_, cold_target, warm_target) in CASES.items():
        if args.only and not any(s in case for s in args.only):
            continue
        CPU_SECONDS.clear()
        cold, warm = measure(case, args.repeat)
        print(f"{case:52s} {_fmt(cold, cold_target):>26s}   {_fmt(warm, warm_target):>26s}")
        cpu_cold = statistics.median(CPU_SECONDS[0::2])
        cpu_warm = statistics.median(CPU_SECONDS[1::2])
        print(f"{'  CPU time (user + system)':52s} {cpu_cold:6.2f} s{'':19s}   {cpu_warm:6.2f} s")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
