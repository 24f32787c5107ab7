"""``ranklens evaluate --engine dask`` with workers under a memory limit: the same JSON numbers as
the in-memory run on the same data.

The workers are separate processes, each with its memory limit enforced by its nanny (a worker
passing it is restarted, which this test would see), and the sorts are cut into many buckets,
each a small fraction of the data, so no worker ever holds all the rows: the small-scale form of
data larger than the workers' memory (docs/scaling.md has the run at 2e7 rows with 1 GiB
workers). Every value of the JSON is compared, counts exactly and floats to 1e-12 (relative).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")
pytest.importorskip("typer")

TOL = 1e-12


def _pid() -> int:
    return os.getpid()


@pytest.fixture(scope="module")
def limited_client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="1GiB",
        dashboard_address=":0",
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _same(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is None and b is None
    assert isinstance(a, float | int) and isinstance(b, float | int)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


@pytest.mark.parametrize("binary", [False, True])
def test_cli_dask_under_worker_memory_limit_same_numbers(
    limited_client: Any,
    cli_dask_and_in_memory: Any,
    results_entry: Any,
    monkeypatch: Any,
    binary: bool,
) -> None:
    from ranklens.dask import _engine

    rng = np.random.default_rng(11 + binary)
    n = 6000
    latent = rng.normal(size=n)
    y = (
        (latent + rng.normal(size=n) > 1.0).astype(float)
        if binary
        else np.exp(latent + 0.5 * rng.normal(size=n)).round(2)
    )
    df = pd.DataFrame(
        {
            "y": y,
            "a": latent + rng.normal(size=n),
            # few distinct values: tie runs straddle every file and every bucket boundary
            "b": (latent + 2.0 * rng.normal(size=n)).round(1),
        }
    )
    # buckets of about 400 rows: every sort cut into some 15 pieces, none near the data's size
    monkeypatch.setattr(_engine, "ROWS_PER_BUCKET", 400)
    pids = limited_client.run(_pid)

    common = ["--target", "y", "--pred", "a", "--pred", "b", "--bootstrap", "0", "-q"]
    scheduler = limited_client.scheduler.address
    got, want = cli_dask_and_in_memory(df, common, scheduler=scheduler, parts=6)
    # no worker passed its limit (the nanny would have restarted it)
    assert limited_client.run(_pid) == pids

    assert got["n"] == want["n"] == n
    compared = 0
    for model in ("a", "b"):
        for name in got["models"][model]:
            value, status = results_entry(got, model, name)
            if status == "skipped":
                continue
            ref_value, ref_status = results_entry(want, model, name)
            assert status == ref_status, (model, name)
            assert _same(value, ref_value), (model, name, value, ref_value)
            compared += 1
        assert got["curves"]["decile_table"][model] == want["curves"]["decile_table"][model]
    # the AUC family, tau, rho, Somers' D and the mergeable losses of both models at least
    assert compared >= 2 * 17


def test_shuffle_buffers_are_an_eighth_of_a_worker_within_dasks_defaults():
    from ranklens.dask._engine import P2P_BUFFERS_MAX, shuffle_buffers

    mib, gib = 2**20, 2**30
    assert shuffle_buffers(gib) == {
        "distributed.p2p.comm.buffer": 128 * mib,
        "distributed.p2p.storage.buffer": 100 * mib,
    }
    assert shuffle_buffers(64 * gib) == P2P_BUFFERS_MAX  # never more than Dask's defaults
    assert set(shuffle_buffers(100 * mib).values()) == {32 * mib}  # never less than 32 MiB
    with pytest.raises(ValueError, match="worker_memory"):
        shuffle_buffers(0)


def test_cli_own_cluster_starts_its_workers_with_the_bounded_buffers(monkeypatch, tmp_path):
    """Without --scheduler the command line's own cluster gets the bounded buffers: the
    configuration its workers inherit is read when the cluster is created."""
    import dask
    from distributed.system import MEMORY_LIMIT
    from typer.testing import CliRunner

    from ranklens.cli import app
    from ranklens.dask._engine import shuffle_buffers

    seen = {}

    class Refused(RuntimeError):
        pass

    def fake_cluster(**kwargs):
        seen.update({key: dask.config.get(key) for key in shuffle_buffers(2**30)})
        raise Refused("no cluster in this test")

    monkeypatch.setattr(distributed, "LocalCluster", fake_cluster)
    path = tmp_path / "d.parquet"
    pd.DataFrame({"y": [1.0, 2.0, 3.0], "p": [1.0, 3.0, 2.0]}).to_parquet(path)
    before = dask.config.get("distributed.p2p.comm.buffer")
    result = CliRunner().invoke(
        app, ["evaluate", str(path), "--target", "y", "--pred", "p", "--engine", "dask"]
    )
    assert isinstance(result.exception, Refused) or result.exit_code != 0
    assert seen == shuffle_buffers(MEMORY_LIMIT // (os.cpu_count() or 1))
    assert dask.config.get("distributed.p2p.comm.buffer") == before  # this process's unchanged
