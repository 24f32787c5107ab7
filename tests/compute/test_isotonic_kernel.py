"""The pool-adjacent-violators kernel against its Python twin and scikit-learn, and its route."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ranklens._compute.kernels.isotonic import pav_block_means
from ranklens._compute.xp import isotonic
from ranklens._foundation.route import POLICY


def _groups(rng: np.random.Generator, n: int, ties: bool) -> tuple[np.ndarray, np.ndarray]:
    means = rng.normal(size=n) + np.linspace(0.0, 2.0, n)
    if ties:  # equal neighbours: pooled (a block's value must rise strictly)
        means = np.round(means, 1)
    weights = rng.integers(1, 5, n).astype(np.float64) * rng.choice([1.0, 0.37], n)
    return means, weights


@pytest.mark.parametrize("n", [1, 2, 7, 300, 5000])
@pytest.mark.parametrize("ties", [False, True])
def test_kernel_equals_twin_bit_for_bit(n, ties):
    rng = np.random.default_rng(n + 10 * ties)
    means, weights = _groups(rng, n, ties)
    v_py, f_py = isotonic.pav_means_numpy(means, weights)
    v_nb, f_nb = pav_block_means(means, weights)
    assert f_py.tolist() == f_nb.tolist()
    assert v_py.tobytes() == v_nb.tobytes()
    assert np.all(np.diff(v_nb) > 0)


def test_against_scikit_learn():
    sklearn_isotonic = pytest.importorskip("sklearn.isotonic")
    rng = np.random.default_rng(3)
    means, weights = _groups(rng, 400, ties=True)
    values, firsts = isotonic.pav_means(means, weights)
    fitted = np.repeat(values, np.diff(np.append(firsts, means.shape[0])))
    want = sklearn_isotonic.IsotonicRegression().fit_transform(
        np.arange(400.0), means, sample_weight=weights
    )
    np.testing.assert_allclose(fitted, want, rtol=1e-12, atol=1e-12)


@pytest.fixture
def twin_calls(monkeypatch):
    """The sizes the Python twin is called with (it is replaced by a recorder)."""
    calls = []
    monkeypatch.setattr(
        isotonic, "pav_means_numpy", lambda m, w: calls.append(m.shape[0]) or (m[:1], [0])
    )
    return calls


def test_route_by_size(monkeypatch, twin_calls):
    """From ``POLICY.pav_numpy_below`` groups on the kernel runs, whatever is compiled."""
    rng = np.random.default_rng(5)
    means, weights = _groups(rng, 50, ties=True)
    monkeypatch.setattr(POLICY, "pav_numpy_below", 0)
    values, _ = isotonic.pav_means(means, weights)
    assert twin_calls == []
    assert values.tobytes() == pav_block_means(means, weights)[0].tobytes()


def test_small_cold_call_imports_no_numba():
    """A small first recalibration in a fresh process takes the twin: numba is not imported."""
    code = (
        "import sys\n"
        "from ranklens.calibration import miscalibration\n"
        "value = miscalibration([1.0, 3.0, 2.0, 4.0], [1.0, 2.0, 3.0, 4.0])\n"
        "assert value == 0.375, value\n"
        "assert 'numba' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_long_loop_of_small_calls_ends_on_the_kernel(monkeypatch, twin_calls):
    """Once the twin has run longer than compiling the kernel costs, the kernel takes over."""
    from ranklens._compute.xp import measure_routes

    rng = np.random.default_rng(6)
    means, weights = _groups(rng, 50, ties=True)
    monkeypatch.setattr(measure_routes, "PAV_TWIN_SECONDS", [POLICY.sweep_compile_after_s])
    values, _ = isotonic.pav_means(means, weights)
    assert twin_calls == []
    assert values.tobytes() == pav_block_means(means, weights)[0].tobytes()
