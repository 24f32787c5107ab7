"""Benchmark: ``ranklens evaluate --engine dask`` on Parquet larger than the workers' memory,
against ``ranklens evaluate`` in memory on the same rows: the same report and numbers.

Writes ``n`` rows (``y`` lognormal, two predictions ``a`` and ``b``, ``b`` with ties) as Parquet
files and, for the memory engine, the same rows as one Parquet file; starts a ``LocalCluster``
of 2 single-threaded worker processes with a memory limit each (together below the size of the
columns), then runs the command line twice, each in a fresh process, with the default options
but ``--bootstrap 0`` (the analytic intervals, DeLong's and Noether's, on both engines; the Dask
engine draws no replicate unless asked):

    ranklens evaluate 'DIR/parts/*.parquet' --target y --pred a --pred b --bootstrap 0 \
        --engine dask --scheduler ADDRESS --json dask.json --html dask.html
    ranklens evaluate DIR/all.parquet --target y --pred a --pred b --bootstrap 0 \
        --json memory.json --html memory.html

and compares the two JSON files: every measure the Dask engine computed has the memory engine's
status and value (integers exactly, floats to 1e-12 relative), every interval its bounds and
method; the measures the Dask engine does not compute are listed with its reason, and the
report sections of the two HTML files are listed side by side. Reported: wall and CPU time of
each command, the workers' CPU time, peak resident memory and spill, worker restarts, the peak
resident memory of the memory engine's process.

    nice -n 5 python benchmarks/bench_cli_dask.py --n 3e7 --dir /work/tmp/cli --keep
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench_dask import WorkerWatch, generate, log_trouble

TOL = 1e-12


def _write_single_file(parts: pathlib.Path, target: pathlib.Path) -> None:
    """The parts' rows, in order, as one Parquet file (streamed: one part in memory at a time)."""
    import pyarrow.parquet as pq

    files = sorted(parts.glob("*.parquet"))
    writer = None
    for f in files:
        table = pq.read_table(f)
        if writer is None:
            writer = pq.ParquetWriter(target, table.schema)
        writer.write_table(table, row_group_size=1_000_000)
    assert writer is not None
    writer.close()


def _run(argv: list[str]) -> dict[str, Any]:
    """``argv`` in a fresh process: exit status, wall / CPU seconds, peak RSS, output's end."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        proc = subprocess.Popen(argv, stdout=output, stderr=output)
        # wait4: this child's own resource use (its peak resident memory, its CPU time)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        output.seek(0)
        tail = output.read().decode(errors="replace")[-2000:]
    return {
        "exit_status": os.waitstatus_to_exitcode(status),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "peak_rss_mib": round(usage.ru_maxrss / 1024),  # KiB on Linux
        "output_tail": tail,
    }


def _run_cli(args: list[str]) -> dict[str, Any]:
    """One ``ranklens evaluate`` in a fresh process, measured by :func:`_run`."""
    return _run([sys.executable, "-m", "ranklens", "evaluate", *args])


#: The memory engine's pipeline without the command line's curves and robustness tables, for
#: sizes where ``ranklens evaluate`` in memory does not fit this machine (it takes some 550 bytes
#: a row in all, 5.5 GB at 1e7 rows: about 55 GB at 1e8); the same measures, intervals and
#: paired tests, written as the command line writes them.
LIBRARY = """
import json, sys
import pandas as pd
from ranklens import evaluate_models, evaluation_to_json
df = pd.read_parquet(sys.argv[1], columns=["y", "a", "b"])
y, preds = df["y"].to_numpy(), {"a": df["a"].to_numpy(), "b": df["b"].to_numpy()}
del df
ev = evaluate_models(y, preds, curves=False, robustness=False, n_bootstrap=0)
with open(sys.argv[2], "w") as out:
    json.dump(evaluation_to_json(ev), out)
"""


def _run_library(single: pathlib.Path, out: pathlib.Path) -> dict[str, Any]:
    """:data:`LIBRARY` in a fresh process, measured by :func:`_run`."""
    return _run([sys.executable, "-c", LIBRARY, str(single), str(out)])


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool | str) or isinstance(b, bool | str):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b  # counts exactly
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def compare(got: dict[str, Any], want: dict[str, Any]) -> dict[str, Any]:
    """Every measure, interval and paired test the Dask engine gave, against the memory
    engine's: values, statuses, interval bounds and methods, the tests' numbers."""
    compared, intervals, tests, differ, skipped = 0, 0, 0, [], {}
    for model, entries in got["models"].items():
        for name, entry in entries.items():
            if entry["status"] == "skipped":
                skipped[name] = entry.get("reason")
                continue
            ref = want["models"][model][name]
            same = all(_close(entry[k], ref[k]) for k in entry)  # value, status, ci, method
            compared += 1
            intervals += entry.get("ci_low") is not None
            if not same:
                differ.append({"model": model, "measure": name, "dask": entry, "memory": ref})
    rows = {(r["measure"], r["model_a"], r["model_b"]): r for r in want["comparisons"]}
    for row in got["comparisons"]:
        ref = rows.get((row["measure"], row["model_a"], row["model_b"]))
        tests += 1
        if ref is None or not all(_close(row[k], ref[k]) for k in row):
            differ.append({"comparison": row, "memory": ref})
    # the robustness tables (Rosset, Perlich & Zadrozny 2005, Table 1): rows exactly, values
    tables = 0
    for model, table in (want.get("robustness") or {}).items():
        mine = (got.get("robustness") or {}).get(model)
        tables += 1
        if mine is None or not _close(mine, table):
            differ.append({"robustness": model, "dask": mine, "memory": table})
    # the curves' summaries in the JSON (areas, best depths, KS, ...), where the Dask run has them
    curve_values, curves_missing = 0, []
    for kind, per_model in (want.get("curves") or {}).items():
        for model, summary in per_model.items():
            mine = (got.get("curves") or {}).get(kind, {}).get(model)
            if mine is None:
                curves_missing.append(f"{kind}/{model}")
                continue
            curve_values += len(summary)
            if not _close(mine, summary):
                differ.append({"curve": f"{kind}/{model}", "dask": mine, "memory": summary})
    return {
        "measures_compared": compared,
        "intervals_compared": intervals,
        "paired_tests_compared": tests,
        "paired_tests_in_memory": len(want["comparisons"]),
        "robustness_tables_compared": tables,
        "curve_summary_values_compared": curve_values,
        "curves_missing_in_dask": curves_missing,
        "differ": differ,
        "skipped_by_dask": skipped,
        "settings_dask": got["settings"],
        "settings_memory": want["settings"],
    }


def _sections(html: pathlib.Path) -> dict[str, Any]:
    """The report's section and table headings (below the title) and its number of figures."""
    text = html.read_text(encoding="utf-8")
    found = re.findall(r"<h[34][^>]*>(.*?)</h[34]>", text, flags=re.S)
    return {
        "headings": [re.sub(r"<[^>]+>", "", h).strip() for h in found],
        "figures": len(re.findall(r'<img |class="vl-chart"', text)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=3e7, help="rows (default 3e7)")
    parser.add_argument("--dir", default="/tmp/ranklens_bench_cli_dask", help="work directory")
    parser.add_argument("--rows-per-file", type=float, default=1e6)
    parser.add_argument("--workers", type=int, default=2, help="single-threaded workers")
    parser.add_argument("--memory-limit", default="1GiB", help="per worker")
    parser.add_argument(
        "--p2p-buffer",
        default="128MiB",
        help="the workers' buffer of shuffle data waiting to be sent "
        "(distributed.p2p.comm.buffer; Dask's default, 1 GiB, is a whole small worker)",
    )
    parser.add_argument(
        "--p2p-storage-buffer",
        default="100MiB",
        help="the workers' buffer of shuffle data waiting to be written to disk "
        "(distributed.p2p.storage.buffer; Dask's default 100 MiB)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the Parquet files")
    parser.add_argument(
        "--only",
        choices=["dask", "memory"],
        default=None,
        help="run one engine (the other's JSON from an earlier run is compared when it is there)",
    )
    parser.add_argument(
        "--curve-arrays", action="store_true", help="pass --curve-arrays to the Dask run"
    )
    parser.add_argument(
        "--memory-engine",
        choices=["cli", "library"],
        default="cli",
        help="the in-memory reference: ranklens evaluate, or evaluate_models without curves "
        "and robustness tables (for sizes where the command line does not fit in memory)",
    )
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument(
        "--quick", action="store_true", help="2e6 rows in files of 5e5 (make bench --quick)"
    )
    args = parser.parse_args()
    if args.quick:
        args.n = 2000000.0
        args.rows_per_file = 500000.0
    n = int(args.n)

    import dask
    import distributed

    root = pathlib.Path(args.dir) / f"n{n}"
    parts = root / "parts"
    if not parts.exists():
        print(f"writing {n:.3g} rows to {parts} ...", flush=True)
        print(f"  {generate(parts, n, int(args.rows_per_file), False):.1f} s", flush=True)
    single = root / "all.parquet"
    if not single.exists() and args.only != "dask":
        _write_single_file(parts, single)
    common = ["--target", "y", "--pred", "a", "--pred", "b", "--bootstrap", "0", "-q"]
    figures: dict[str, Any] = {
        "n": n,
        "column_bytes": 3 * 8 * n,
        "parquet_bytes": sum(f.stat().st_size for f in parts.glob("*.parquet")),
        "parquet_files": len(list(parts.glob("*.parquet"))),
        "workers": args.workers,
        "memory_limit_per_worker": args.memory_limit,
        "p2p_comm_buffer": args.p2p_buffer,
        "p2p_storage_buffer": args.p2p_storage_buffer,
        "cpu_count": os.cpu_count(),
    }

    dask_json, dask_html = root / "dask.json", root / "dask.html"
    if args.only != "memory":
        # the workers' nannies pass this process's Dask configuration on to them
        with dask.config.set(
            {
                "distributed.p2p.comm.buffer": args.p2p_buffer,
                "distributed.p2p.storage.buffer": args.p2p_storage_buffer,
            }
        ):
            cluster = distributed.LocalCluster(
                n_workers=args.workers,
                threads_per_worker=1,
                memory_limit=args.memory_limit,
                dashboard_address=":0",
            )
        client = distributed.Client(cluster)
        figures["p2p_buffers_on_workers"] = sorted(
            set(
                client.run(
                    lambda: (
                        dask.config.get("distributed.p2p.comm.buffer"),
                        dask.config.get("distributed.p2p.storage.buffer"),
                    )
                ).values()
            )
        )
        print(f"dask: {args.workers} worker(s) x {args.memory_limit}", flush=True)
        load = os.getloadavg()[0]
        with WorkerWatch(client) as watch:
            figures["dask"] = _run_cli(
                [
                    str(parts / "*.parquet"),
                    *common,
                    "--engine",
                    "dask",
                    "--scheduler",
                    cluster.scheduler_address,
                    "--json",
                    str(dask_json),
                    "--html",
                    str(dask_html),
                    *(["--curve-arrays"] if args.curve_arrays else []),
                ]
            )
        figures["dask"].update(watch.figures(), load_average_1min=[load, os.getloadavg()[0]])
        figures["worker_log_trouble"] = log_trouble(client)
        client.close()
        cluster.close()
        print(json.dumps(figures["dask"], indent=2), flush=True)

    mem_json, mem_html = root / "memory.json", root / "memory.html"
    if args.only != "dask":
        print("memory engine ...", flush=True)
        load = os.getloadavg()[0]
        if args.memory_engine == "library":
            figures["memory"] = _run_library(single, mem_json)
        else:
            figures["memory"] = _run_cli(
                [str(single), *common, "--json", str(mem_json), "--html", str(mem_html)]
            )
        figures["memory"]["load_average_1min"] = [load, os.getloadavg()[0]]
        print(json.dumps(figures["memory"], indent=2), flush=True)
    if dask_json.exists() and mem_json.exists():
        got, want = json.loads(dask_json.read_text()), json.loads(mem_json.read_text())
        figures["comparison"] = compare(got, want)
        if mem_html.exists() and args.memory_engine == "cli":
            figures["report_sections"] = {
                "dask": _sections(dask_html),
                "memory": _sections(mem_html),
            }
    print(json.dumps(figures, indent=2, default=str))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
    if not args.keep:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
