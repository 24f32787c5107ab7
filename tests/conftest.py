"""Shared fixtures; brute-force references live in ``tests/reference_*.py`` per concept."""

from __future__ import annotations

import os

import numpy as np
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
