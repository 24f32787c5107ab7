"""Benchmark: ranklens.dask.evaluate on Parquet larger than the workers' memory, against in-memory.

Writes ``n`` rows (``y`` and two predictions ``a``, ``b``) as Parquet files on local disk, then
evaluates AUC, gain area, the decile table, Kendall's tau-b, Spearman's rho and RMSE of both
models on a ``LocalCluster`` of 2 single-threaded worker processes with a memory limit each
(below the data size), and reports the wall time, the peak resident memory of each worker
(sampled every 0.2 s) and the ratio to the in-memory ranklens time at ``--reference-n`` rows
scaled by ``n log n``. The in-memory run computes the same measures with the registered functions.

Target: continuous (``y`` lognormal, the events of the AUC family the true top 10 %, found by
exact selection) or binary (``--binary``: ``y`` 0/1 with a 20 % event rate).

    python benchmarks/bench_dask.py                      # n = 1e8 (about 2.4 GB of columns)
    python benchmarks/bench_dask.py --n 2e7 --memory-limit 700MiB
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


def in_memory(directory: pathlib.Path, n_ref: int, binary: bool) -> dict[str, Any]:
    """The same measures with the in-memory functions on the first ``n_ref`` rows."""
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
    start = time.perf_counter()
    values = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in ("a", "b"):
            p = df[model].to_numpy()
            values[model] = {name: get_metric(name)(y, p) for name in MEASURES}
            decile_table(y, p)
    return {"n": len(df), "seconds": time.perf_counter() - start, "values": values}


class PeakMemory:
    """Peak resident memory of each worker, sampled in a background thread."""

    def __init__(self, client: Any, every: float = 0.2) -> None:
        self.client, self.every = client, every
        self.peak: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        def rss() -> int:
            return int(psutil.Process().memory_info().rss)

        while not self._stop.is_set():
            try:
                for worker, value in self.client.run(rss).items():
                    self.peak[worker] = max(self.peak.get(worker, 0), value)
            except Exception:  # a worker restarting: keep sampling the others
                pass
            self._stop.wait(self.every)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e8, help="rows (default 1e8)")
    parser.add_argument("--reference-n", type=float, default=1e7, help="in-memory rows")
    parser.add_argument("--dir", default="/tmp/ranklens_bench_dask", help="Parquet directory")
    parser.add_argument("--rows-per-file", type=float, default=2e6)
    parser.add_argument("--memory-limit", default="2GiB", help="per worker (2 workers)")
    parser.add_argument("--rows-per-bucket", type=float, default=None)
    parser.add_argument("--binary", action="store_true", help="a 0/1 target")
    parser.add_argument("--keep", action="store_true", help="keep the Parquet files")
    parser.add_argument("--json", default=None, help="write the figures here")
    args = parser.parse_args()
    n, n_ref = int(args.n), int(min(args.reference_n, args.n))

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
    ref = in_memory(directory, n_ref, args.binary)
    print(f"  {ref['seconds']:.2f} s", flush=True)

    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        memory_limit=args.memory_limit,
        dashboard_address=":0",
    )
    client = distributed.Client(cluster)
    # warm the workers (imports, numba's cache)
    small = sorted(directory.glob("*.parquet"))[0]
    rd.evaluate(str(small), y="y", pred=["a", "b"], measures=MEASURES)
    print(f"dask at n = {n:.3g}, 2 workers x {args.memory_limit} ...", flush=True)
    with PeakMemory(client) as memory:
        start = time.perf_counter()
        ev = rd.evaluate(str(directory / "*.parquet"), y="y", pred=["a", "b"], measures=MEASURES)
        seconds = time.perf_counter() - start
    client.close()
    cluster.close()
    scale = (n * math.log(n)) / (ref["n"] * math.log(ref["n"]))
    figures = {
        "n": n,
        "target": "binary" if args.binary else "continuous (events: true top 10 %)",
        "column_bytes": column_bytes,
        "parquet_bytes": data_bytes,
        "memory_limit_per_worker": args.memory_limit,
        "dask_seconds": round(seconds, 2),
        "in_memory_n": ref["n"],
        "in_memory_seconds": round(ref["seconds"], 2),
        "ratio_to_in_memory_n_log_n": round(seconds / (ref["seconds"] * scale), 2),
        "peak_worker_rss_mib": {w: round(v / 2**20) for w, v in memory.peak.items()},
        "settings": ev.settings,
        "seconds_by_pass": ev.extras.get("seconds"),
        "values": ev.values and {m: {k: ev.values[m][k] for k in MEASURES} for m in ("a", "b")},
        "in_memory_values_at_reference_n": ref["values"],
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(figures, indent=2, default=str))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
    if not args.keep:
        shutil.rmtree(directory)


if __name__ == "__main__":
    main()
