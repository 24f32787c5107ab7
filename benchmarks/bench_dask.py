"""Benchmark: ranklens.dask.evaluate on Parquet larger than the workers' memory, against in-memory.

Writes ``n`` rows (``y`` and two predictions ``a``, ``b``) as Parquet files on local disk, then
evaluates AUC, gain area, the decile table, Kendall's tau-b, Spearman's rho and RMSE of both
models on a ``LocalCluster`` of 2 single-threaded worker processes with a memory limit each
(below the data size). The two families of the targets are timed apart (two runs): the AUC
family (AUC, gain area, RMSE and the decile table: the sort by prediction) and the rank
correlations (tau and rho: the sorts by prediction and by truth); ``--together`` times one run
of all of them instead. Reported per run: the wall time, the CPU time of the workers, the peak
resident memory of each worker (sampled every 0.2 s in the workers, and the scheduler's own
worker memory metric), the largest amount spilled to disk, whether a worker was restarted or
paused (worker pids before and after, and the workers' logs), the load average; and the ratio
to the in-memory ranklens time of the same measures at ``--reference-n`` rows scaled by
``n log n``, by wall time and by CPU time (the CPU ratio halves the workers' CPU time: two
workers on two cores; on a loaded machine it is the steadier figure).

Target: continuous (``y`` lognormal, the events of the AUC family the true top 10 %, found by
exact selection) or binary (``--binary``: ``y`` 0/1 with a 20 % event rate).

    nice -n 10 python benchmarks/bench_dask.py       # n = 1e8 (2.4 GB of columns), 2 x 1 GiB
    nice -n 10 python benchmarks/bench_dask.py --n 1e7 --dir /work/tmp/bench --keep
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import shutil
import threading
import time
import warnings
from typing import Any

import numpy as np

MEASURES = ["roc_auc", "gain_area", "kendall_tau", "spearman_rho", "root_mean_squared_error"]

#: The families of the targets (the decile table comes with the AUC family's sort).
FAMILIES = {
    "auc_family": ["roc_auc", "gain_area", "root_mean_squared_error"],
    "tau_rho": ["kendall_tau", "spearman_rho"],
}


def generate(directory: pathlib.Path, n: int, rows_per_file: int, binary: bool) -> float:
    """Write the Parquet files; returns the seconds taken."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    start = time.perf_counter()
    directory.mkdir(parents=True, exist_ok=True)
    for i, first in enumerate(range(0, n, rows_per_file)):
        m = min(rows_per_file, n - first)
        rng = np.random.default_rng([7, i])
        latent = rng.normal(size=m)
        if binary:
            y = (latent + rng.normal(size=m) > 1.2).astype(np.float64)
        else:
            y = np.exp(latent + 0.5 * rng.normal(size=m)).round(3)
        a = latent + rng.normal(size=m)
        b = (latent + 2.0 * rng.normal(size=m)).round(2)  # ties straddle every bucket
        table = pa.table({"y": y, "a": a, "b": b})
        pq.write_table(table, directory / f"part{i:05d}.parquet", row_group_size=1_000_000)
    return time.perf_counter() - start


def in_memory(directory: pathlib.Path, n_ref: int, runs: dict[str, list[str]]) -> dict[str, Any]:
    """The same measures with the in-memory functions on the first ``n_ref`` rows, per run."""
    import pandas as pd

    from ranklens.metrics import get_metric
    from ranklens.targeting import decile_table

    files = sorted(directory.glob("*.parquet"))
    frames, rows = [], 0
    for f in files:
        frames.append(pd.read_parquet(f))
        rows += len(frames[-1])
        if rows >= n_ref:
            break
    df = pd.concat(frames).iloc[:n_ref]
    y = df["y"].to_numpy()
    # compile first (numba), on a small slice
    for name in MEASURES:
        get_metric(name)(y[:1000], df["a"].to_numpy()[:1000])
    decile_table(y[:1000], df["a"].to_numpy()[:1000])
    out: dict[str, Any] = {"n": len(df), "runs": {}}
    for run, measures in runs.items():
        load = os.getloadavg()[0]
        start, cpu = time.perf_counter(), time.process_time()
        values: dict[str, dict[str, float]] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for model in ("a", "b"):
                p = df[model].to_numpy()
                values[model] = {name: get_metric(name)(y, p) for name in measures}
                if "roc_auc" in measures:
                    decile_table(y, p)
        out["runs"][run] = {
            "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu,
            "load_average_1min": [load, os.getloadavg()[0]],
            "values": values,
        }
    return out


def _worker_probe() -> dict[str, float]:
    """Run in each worker: its pid, resident memory and CPU seconds so far."""
    import psutil

    proc = psutil.Process()
    cpu = proc.cpu_times()
    return {"pid": proc.pid, "rss": proc.memory_info().rss, "cpu": cpu.user + cpu.system}


class WorkerWatch:
    """Peak resident memory of each worker (sampled in the workers, and the scheduler's worker
    memory metric), the most spilled to disk, and the workers' CPU time, over a block."""

    def __init__(self, client: Any, every: float = 0.2) -> None:
        self.client, self.every = client, every
        self.peak: dict[str, int] = {}
        self.peak_scheduler: dict[str, int] = {}
        self.spilled: dict[str, int] = {}
        self.failed_samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        for worker, probe in self.client.run(_worker_probe).items():
            self.peak[worker] = max(self.peak.get(worker, 0), int(probe["rss"]))
        for worker, info in self.client.scheduler_info(n_workers=-1)["workers"].items():
            metrics = info.get("metrics", {})
            memory = int(metrics.get("memory", 0))
            self.peak_scheduler[worker] = max(self.peak_scheduler.get(worker, 0), memory)
            disk = int(metrics.get("spilled_bytes", {}).get("disk", 0))
            self.spilled[worker] = max(self.spilled.get(worker, 0), disk)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._sample()
            except Exception:  # a worker restarting: keep sampling the others
                self.failed_samples += 1
            self._stop.wait(self.every)

    def __enter__(self) -> WorkerWatch:
        self.before = self.client.run(_worker_probe)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.after = self.client.run(_worker_probe)

    def figures(self) -> dict[str, Any]:
        restarted = sorted(
            w
            for w in self.before
            if w not in self.after or self.after[w]["pid"] != self.before[w]["pid"]
        )
        cpu = {
            w: round(self.after[w]["cpu"] - self.before[w]["cpu"], 1)
            for w in self.before
            if w in self.after
        }
        return {
            "peak_worker_rss_mib": {w: round(v / 2**20) for w, v in self.peak.items()},
            "peak_worker_memory_scheduler_mib": {
                w: round(v / 2**20) for w, v in self.peak_scheduler.items()
            },
            "max_spilled_to_disk_mib": {w: round(v / 2**20) for w, v in self.spilled.items()},
            "worker_cpu_seconds": cpu,
            "workers_restarted": restarted,
            "failed_samples": self.failed_samples,
        }


#: Worker log lines that mean the memory limit was in the way.
TROUBLE = ("exceeded", "restart", "paused", "Unmanaged memory use is high", "spill", "killed")


def log_trouble(client: Any) -> dict[str, int]:
    """Count the worker (and nanny) log lines that mention memory trouble."""
    counts: dict[str, int] = {}
    for logs in (client.get_worker_logs(), client.get_worker_logs(nanny=True)):
        for lines in logs.values():
            for _level, line in lines:
                for word in TROUBLE:
                    if word.lower() in line.lower():
                        counts[word] = counts.get(word, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e8, help="rows (default 1e8)")
    parser.add_argument("--reference-n", type=float, default=1e7, help="in-memory rows")
    parser.add_argument("--dir", default="/tmp/ranklens_bench_dask", help="Parquet directory")
    parser.add_argument("--rows-per-file", type=float, default=2e6)
    parser.add_argument("--memory-limit", default="1GiB", help="per worker (2 workers)")
    parser.add_argument("--rows-per-bucket", type=float, default=None)
    parser.add_argument("--binary", action="store_true", help="a 0/1 target")
    parser.add_argument("--together", action="store_true", help="one run of all the measures")
    parser.add_argument("--only", choices=sorted(FAMILIES), default=None, help="one family")
    parser.add_argument("--keep", action="store_true", help="keep the Parquet files")
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="4e6 rows, 1e6 in memory, files of 1e6 (make bench --quick)",
    )
    args = parser.parse_args()
    if args.quick:
        args.n = 4000000.0
        args.reference_n = 1000000.0
        args.rows_per_file = 1000000.0
    n, n_ref = int(args.n), int(min(args.reference_n, args.n))
    runs = {"all": MEASURES} if args.together else dict(FAMILIES)
    if args.only:
        runs = {args.only: FAMILIES[args.only]}

    import distributed

    import ranklens.dask as rd
    from ranklens.dask import _engine

    if args.rows_per_bucket:
        _engine.ROWS_PER_BUCKET = int(args.rows_per_bucket)
    directory = pathlib.Path(args.dir) / f"n{n}{'_binary' if args.binary else ''}"
    if not directory.exists():
        print(f"writing {n:.3g} rows to {directory} ...", flush=True)
        print(f"  {generate(directory, n, int(args.rows_per_file), args.binary):.1f} s", flush=True)
    data_bytes = sum(f.stat().st_size for f in directory.glob("*.parquet"))
    column_bytes = 3 * 8 * n
    print(f"in-memory reference at n = {n_ref:.3g} ...", flush=True)
    ref = in_memory(directory, n_ref, runs)
    print(json.dumps({r: round(v["seconds"], 2) for r, v in ref["runs"].items()}), flush=True)

    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        memory_limit=args.memory_limit,
        dashboard_address=":0",
    )
    client = distributed.Client(cluster)
    # warm the workers (imports, numba's cache)
    small = sorted(directory.glob("*.parquet"))[0]
    rd.evaluate(str(small), y_true="y", predictions=["a", "b"], metrics=MEASURES, n_buckets=4)
    scale = (n * math.log(n)) / (ref["n"] * math.log(ref["n"]))
    figures: dict[str, Any] = {
        "n": n,
        "target": "binary" if args.binary else "continuous (events: true top 10 %)",
        "column_bytes": column_bytes,
        "parquet_bytes": data_bytes,
        "parquet_files": len(list(directory.glob("*.parquet"))),
        "memory_limit_per_worker": args.memory_limit,
        "in_memory_n": ref["n"],
        "n_log_n_scale": round(scale, 3),
        "cpu_count": os.cpu_count(),
        "runs": {},
    }
    for run, measures in runs.items():
        print(f"dask {run} at n = {n:.3g}, 2 workers x {args.memory_limit} ...", flush=True)
        load = os.getloadavg()[0]
        with WorkerWatch(client) as watch:
            start, client_cpu = time.perf_counter(), time.process_time()
            ev = rd.evaluate(
                str(directory / "*.parquet"), y_true="y", predictions=["a", "b"], metrics=measures
            )
            seconds = time.perf_counter() - start
            client_cpu = time.process_time() - client_cpu
        mem = ref["runs"][run]
        worker_cpu = watch.figures()["worker_cpu_seconds"]
        figures["runs"][run] = {
            "measures": measures + (["decile_table"] if "roc_auc" in measures else []),
            "dask_seconds": round(seconds, 1),
            "load_average_1min": [load, os.getloadavg()[0]],
            **watch.figures(),
            # this process: the client, the scheduler and the sampling thread (not in the ratio)
            "client_and_scheduler_cpu_seconds": round(client_cpu, 1),
            "in_memory_seconds": round(mem["seconds"], 2),
            "in_memory_cpu_seconds": round(mem["cpu_seconds"], 2),
            "in_memory_load_average_1min": mem["load_average_1min"],
            "ratio_wall_n_log_n": round(seconds / (mem["seconds"] * scale), 2),
            "ratio_cpu_n_log_n": round(
                sum(worker_cpu.values()) / 2 / (mem["cpu_seconds"] * scale), 2
            ),
            "settings": ev.settings,
            "seconds_by_pass": ev.extras.get("seconds"),
            "values": {m: {k: ev.values[m][k] for k in measures} for m in ("a", "b")},
            "in_memory_values_at_reference_n": mem["values"],
        }
        print(json.dumps(figures["runs"][run], indent=2, default=str), flush=True)
    figures["worker_log_trouble"] = log_trouble(client)
    client.close()
    cluster.close()
    print(json.dumps(figures, indent=2, default=str))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
    if not args.keep:
        shutil.rmtree(directory)


if __name__ == "__main__":
    main()
