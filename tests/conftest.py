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
