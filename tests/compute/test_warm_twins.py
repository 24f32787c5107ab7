"""A small bootstrap in a fresh process with a warm numba cache runs on the NumPy twins.

Getting the cached kernels costs numba's import (the kernel modules are imported by the
functions that call them) and the cache loads; below the cost model's threshold
(:func:`ranklens._inference.resampling.prefer_numpy_twins`) the bootstrap runs on the NumPy twins,
never imports numba, and gives the same numbers as the kernels: bit for bit for the loss sums and
Kendall's tau, to 1e-12 for Spearman's rho.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

import ranklens._compute.kernels
from ranklens._foundation.route import POLICY
from ranklens._inference import resampling as _resampling


class _NoKernels:
    """Stands for the kernel module where the rule must not import it."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the kernel module was touched ({name})")


class _Dispatcher:
    signatures: tuple = ()


class _Cached:
    """A kernel module whose kernels are cached on disk, none loaded in this process."""

    multiplicities_serial = weighted_loss_sums_serial = rank_batches_serial = _Dispatcher()


# 1,000 rows, 2 rank models, loss sums: estimate rows * 1000 * 6.2e-7 s.
_BETWEEN = 1100  # 0.68 s: above the load cost, below load + numba's import
_ABOVE = 1500  # 0.93 s: above both


def test_without_numba_a_small_bootstrap_takes_the_twins_without_importing_it(monkeypatch):
    assert (
        POLICY.twins_load_s
        < 1000 * _BETWEEN * (2 * 10 * POLICY.twins_rank_s + POLICY.twins_row_s)
        < POLICY.twins_load_s + POLICY.numba_import_s
    )
    monkeypatch.delitem(sys.modules, "numba")
    # what `from ranklens._compute.kernels import compare` in the rule would get
    monkeypatch.setattr(ranklens._compute.kernels, "compare", _NoKernels(), raising=False)
    assert _resampling.prefer_numpy_twins(1000, _BETWEEN, 2, True)


def test_the_import_counts_only_while_numba_is_not_imported(monkeypatch):
    monkeypatch.setattr(ranklens._compute.kernels, "compare", _Cached(), raising=False)
    monkeypatch.setattr(_resampling, "is_compiled", lambda kernel: True)
    # numba imported (it is in this process): cached kernels cost only their loading
    assert "numba" in sys.modules
    assert not _resampling.prefer_numpy_twins(1000, _BETWEEN, 2, True)
    monkeypatch.delitem(sys.modules, "numba")
    assert _resampling.prefer_numpy_twins(1000, _BETWEEN, 2, True)
    assert not _resampling.prefer_numpy_twins(1000, _ABOVE, 2, True)  # loading them pays
    monkeypatch.setattr(_resampling, "is_compiled", lambda kernel: False)
    assert _resampling.prefer_numpy_twins(1000, _ABOVE, 2, True)  # compiling them does not
    with _resampling.kernels_only():
        assert not _resampling.prefer_numpy_twins(1000, _BETWEEN, 2, True)


_RUN = """
import json, sys
import numpy as np
import ranklens
{prelude}
rng = np.random.default_rng(0)
y = rng.lognormal(size=1000)
p = np.log(y) + rng.normal(size=1000)
q = np.log(y) + rng.normal(scale=1.5, size=1000)
r = ranklens.compare_models(y, {{'a': p, 'b': q}}, random_state=3, show_progress=False)
fields = ("values", "std_error", "ci_lower", "ci_upper", "difference", "difference_sd",
          "difference_ci_lower", "difference_ci_upper", "p_value", "replicates")
out = {{f: np.asarray(getattr(r, f), dtype=float).tolist() for f in fields}}
print(json.dumps({{"metrics": list(r.metrics), "numba": "numba" in sys.modules, "out": out}}))
"""


def _run(cache: str, prelude: str = "") -> dict[str, Any]:
    code = textwrap.dedent(_RUN.format(prelude=prelude))
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_warm_cache_small_compare_models_equals_the_kernels_without_numba(tmp_path):
    cache = str(tmp_path)
    forced = "import ranklens.compare as c\nc.prefer_numpy_twins = lambda *a: False\n"
    kernels = _run(cache, forced)  # compiles the kernels and caches them
    assert kernels["numba"]
    warm = _run(cache)  # a fresh process, the kernels cached: the twins, no numba
    assert not warm["numba"]
    assert warm["metrics"] == kernels["metrics"]
    metrics = warm["metrics"]
    for field, got in warm["out"].items():
        got, want = np.array(got), np.array(kernels["out"][field])
        assert got.shape == want.shape, field
        # the replicates are (rows, metric, model); every other field starts with the metric
        axis = 1 if field == "replicates" else 0
        for k, metric in enumerate(metrics):
            a, b = np.take(got, k, axis=axis), np.take(want, k, axis=axis)
            if metric == "spearman_rho":
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=field)
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"{field} {metric}")
