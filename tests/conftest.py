"""Shared fixtures; brute-force references live in ``tests/reference_*.py`` per concept."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, settings

# numba compilation makes the first example of a property slow; deadlines would be flaky on 2 cores.
settings.register_profile(
    "ranklens", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "ranklens")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the Dask engine's own tests (``test_dask*.py``) ``dask_engine``. The job under
    pandas < 3 leaves them out: they test the engine's distributed algorithms against the
    in-memory ones, which the pandas version does not change; the command line's Dask tests,
    which start from files pandas wrote, stay in that job."""
    for item in items:
        if item.path.name.startswith("test_dask"):
            item.add_marker(pytest.mark.dask_engine)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20051127)


@pytest.fixture(scope="module")
def client():
    """A two-worker dask LocalCluster of threads in the test process, one per test module."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        # No memory limit for workers that are threads of the test process: their monitor would
        # read the whole process's memory (every test run in it so far), pause at 80 % of the
        # limit and leave the computation waiting forever. The limits are enforced on separate
        # worker processes in test_dask_memory.py.
        memory_limit=0,
        dashboard_address=":0",
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture
def fresh_python(tmp_path: Path) -> Callable[[str], Any]:
    """``run(code)``: run Python ``code`` in a fresh interpreter whose numba cache is the test's
    ``tmp_path`` (empty at first, shared by the test's runs) and return its last line of output
    read as JSON; the test fails with the end of its stderr when it exits with an error."""

    def run(code: str) -> Any:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run


@pytest.fixture
def parquet_files(tmp_path: Path) -> Callable[[pd.DataFrame, int], tuple[str, str]]:
    """``write(df, parts)``: ``df`` as Parquet under ``tmp_path``, whole (``all.parquet``) and cut
    into ``parts`` files of consecutive rows (``parts/part{i}.parquet``): the whole file's path
    and the glob of the parts."""
    pytest.importorskip("pyarrow")

    def write(df: pd.DataFrame, parts: int) -> tuple[str, str]:
        df.to_parquet(tmp_path / "all.parquet")
        (tmp_path / "parts").mkdir()
        rows = -(-len(df) // parts)
        for i in range(parts):
            df.iloc[i * rows : (i + 1) * rows].to_parquet(tmp_path / "parts" / f"part{i}.parquet")
        return str(tmp_path / "all.parquet"), str(tmp_path / "parts" / "*.parquet")

    return write


@pytest.fixture
def cli_dask_and_in_memory(
    tmp_path: Path, parquet_files: Callable[[pd.DataFrame, int], tuple[str, str]]
) -> Callable[..., tuple[dict, dict]]:
    """``run(df, options, scheduler=, parts=)``: ``ranklens evaluate`` with ``options`` on the
    Parquet parts of ``df`` with ``--engine dask`` at ``scheduler``, and in memory on the whole
    file: their two results.json documents. The Dask run must succeed; the in-memory one may
    exit 1 (a measure undefined)."""
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from ranklens.cli import app

    def run(
        df: pd.DataFrame, options: Sequence[str], *, scheduler: str, parts: int
    ) -> tuple[dict, dict]:
        whole, parts_glob = parquet_files(df, parts)
        dask_json, memory_json = tmp_path / "dask.json", tmp_path / "m.json"
        runner = CliRunner()
        dask_args = ["--engine", "dask", "--scheduler", scheduler, "--json", str(dask_json)]
        out = runner.invoke(app, ["evaluate", parts_glob, *options, *dask_args])
        assert out.exit_code == 0, out.output
        out = runner.invoke(app, ["evaluate", whole, *options, "--json", str(memory_json)])
        assert out.exit_code in (0, 1), out.output
        return json.loads(dask_json.read_text()), json.loads(memory_json.read_text())

    return run


@pytest.fixture
def results_entry() -> Callable[[dict, str, str], tuple[Any, str]]:
    """``entry(doc, model, name)``: the (value, status) of a measure in a results.json document,
    in either layout of its ``models`` (an entry per measure, or the value with its problem
    under ``problems``; NaN read as None)."""

    def entry(doc: dict, model: str, name: str) -> tuple[Any, str]:
        item = doc["models"][model][name]
        if isinstance(item, dict):
            return item["value"], item["status"]
        problem = doc.get("problems", {}).get(model, {}).get(name)
        kind = problem.get("kind") if isinstance(problem, dict) else None
        return (None if item is None or item != item else item), kind or "ok"

    return entry


@pytest.fixture
def dask_by_partitions() -> Callable[..., dict[int, Any]]:
    """``evaluate(df, partitionings, extra_buckets=1, **kwargs)``: ``ranklens.dask.evaluate`` of
    ``df`` cut into each number of partitions, with one more bucket than partitions (or
    ``extra_buckets`` more; None: the default buckets), keyed by the number of partitions."""
    dd = pytest.importorskip("dask.dataframe")
    import ranklens.dask as rd

    def evaluate(
        df: pd.DataFrame, partitionings: Sequence[int], extra_buckets: int | None = 1, **kw: Any
    ) -> dict[int, Any]:
        results = {}
        for parts in partitionings:
            if extra_buckets is not None:
                kw["n_buckets"] = parts + extra_buckets
            results[parts] = rd.evaluate(dd.from_pandas(df, npartitions=parts), **kw)
        return results

    return evaluate


@pytest.fixture
def poisson_compare_models() -> Callable[..., Any]:
    """``run(df, measures, n_bootstrap=, random_state=, weight=None, groups=None)``: the
    in-memory ``compare_models(..., scheme="poisson")`` of the models ``a`` and ``b`` of ``df``
    against ``y``, weighted and grouped by the named columns; its replicates are the ones the
    Dask engine draws with the same ``random_state``."""
    from ranklens import compare_models

    def run(
        df: pd.DataFrame,
        measures: Sequence[str],
        *,
        n_bootstrap: int,
        random_state: int,
        weight: str | None = None,
        groups: str | None = None,
    ) -> Any:
        return compare_models(
            df["y"].to_numpy(),
            {"a": df["a"].to_numpy(), "b": df["b"].to_numpy()},
            metrics=measures,
            n_bootstrap=n_bootstrap,
            random_state=random_state,
            scheme="poisson",
            sample_weight=None if weight is None else df[weight].to_numpy(),
            groups=None if groups is None else df[groups].to_numpy(),
            show_progress=False,
        )

    return run


@pytest.fixture
def poisson_counts() -> Callable[[pd.DataFrame, str | None, int, int], np.ndarray]:
    """``counts(df, groups, n_rep, random_state)``: the Poisson multiplicities of every row in
    each replicate, by rows or by the units of the column ``groups``, as
    ``compare_models(scheme="poisson", random_state=random_state)`` and the Dask engine draw
    them."""
    from ranklens._inference.resampling import group_keys, poisson_weights
    from ranklens.dask._sums import poisson_seed

    def counts(df: pd.DataFrame, groups: str | None, n_rep: int, random_state: int) -> np.ndarray:
        keys = group_keys(df[groups]) if groups else np.arange(len(df), dtype=np.uint64)
        return poisson_weights(keys, np.arange(n_rep), poisson_seed(random_state))

    return counts


@pytest.fixture
def curve_frame() -> Callable[..., pd.DataFrame]:
    """``frame(n, binary, seed, zeros=0.0)``: a target ``y`` (0/1 with 30 % events, or rounded
    lognormal values with a share ``zeros`` of rows at 0), a prediction ``a`` with a heavy tie
    run (30 % of the rows at 0.5), a prediction ``b`` of seven values and weights ``w`` with
    some rows of weight 0: the tie runs of the curve tests on Dask cross every partition."""

    def frame(n: int, binary: bool, seed: int, zeros: float = 0.0) -> pd.DataFrame:
        rng = np.random.default_rng(seed)
        y = (rng.random(n) < 0.3).astype(float) if binary else rng.lognormal(size=n).round(2)
        y[rng.random(n) < zeros] = 0.0  # a heavy truth value (kept out of the shuffle by truth)
        a = np.round(rng.normal(size=n) + 0.3 * (y > np.median(y)), 1)
        a[rng.random(n) < 0.3] = 0.5  # a heavy tie run: 30 % of the rows share one prediction
        return pd.DataFrame(
            {
                "y": y,
                "a": a,
                "b": rng.integers(0, 7, n).astype(float),  # seven tie runs, over many partitions
                "w": rng.uniform(0.5, 2.0, n) * (rng.random(n) > 0.05),  # some rows of weight 0
            }
        )

    return frame


@pytest.fixture
def field_containers() -> Callable[[np.ndarray, np.ndarray], list[tuple[Any, Any]]]:
    """``pairs(y, p)``: ``(y, p)`` as callers in the field pass them: the columns of a frame read
    back from CSV, ``p`` read-only (the second pair's, to check it is left as it was), and ``y``
    a list with ``p`` a non-contiguous view."""

    def pairs(y: np.ndarray, p: np.ndarray) -> list[tuple[Any, Any]]:
        frame = pd.read_csv(io.StringIO(pd.DataFrame({"y": y, "p": p}).to_csv(index=False)))
        read_only = p.copy()
        read_only.flags.writeable = False
        strided = np.repeat(p, 2)[::2]
        assert not strided.flags.c_contiguous
        return [(frame["y"], frame["p"]), (y, read_only), (y.tolist(), strided)]

    return pairs
