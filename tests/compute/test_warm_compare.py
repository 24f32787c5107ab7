"""A warm small ``compare_models`` in a fresh process: no scipy.special, the same numbers.

The BCa intervals and the Gaussian p-values take ``Phi`` and ``Phi^-1`` from
:mod:`ranklens._foundation.normal` (the Cephes algorithms that ``scipy.special.ndtr`` / ``ndtri``
compile, evaluated in Python), so a fresh process never imports ``scipy.special`` (a quarter of a
second of a warm call); the NumPy twin of the loss sums adds all replicates of a chunk together.
Every number must be the one the scipy-based, row-by-row path gave: bit for bit.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest
from scipy import special

from ranklens import compare as compare_module
from ranklens._foundation import normal as _normal
from ranklens._inference import evaluators as _evaluators
from ranklens._inference import resampling as _resampling
from ranklens.compare import compare_models

# ---------------------------------------------------------------------------------------------
# Phi and Phi^-1 against scipy.special, bit for bit
# ---------------------------------------------------------------------------------------------


def _same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: the same float64 bits (NaN matches NaN)."""
    return (got.view(np.int64) == want.view(np.int64)) | (np.isnan(got) & np.isnan(want))


def test_ndtr_is_scipys_to_the_bit_on_a_dense_grid_with_the_tails():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            np.linspace(-40.0, 40.0, 80_001),  # past the underflow of exp(-x^2 / 2)
            np.linspace(-1.5, 1.5, 30_001),  # the switch between erf and erfc at |x| = 1
            -np.logspace(-310, 1.6, 5_001),
            np.logspace(-310, 1.6, 5_001),
            rng.normal(scale=3.0, size=20_000),
            rng.standard_cauchy(5_000),
            [0.0, -0.0, 1.0, -1.0, math.sqrt(2.0), -math.sqrt(2.0), 8.0 * math.sqrt(2.0)],
            [np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.7976931348623157e308],
        ]
    )
    got = np.array([_normal.ndtr(v) for v in x])
    want = special.ndtr(x)
    bad = ~_same(got, want)
    assert not bad.any(), (x[bad][:5], got[bad][:5], want[bad][:5])
    grid = x[: 7 * (x.size // 7)].reshape(-1, 7)  # any shape
    assert _same(_normal.ndtr_array(grid), special.ndtr(grid)).all()


def test_ndtri_is_scipys_to_the_bit_on_a_dense_grid_with_the_tails():
    rng = np.random.default_rng(1)
    p = np.concatenate(
        [
            np.linspace(0.0, 1.0, 100_001),
            np.logspace(-324, -1e-4, 20_001),  # the lower tail, subnormal probabilities too
            1.0 - np.logspace(-17, -1e-4, 20_001),  # the upper tail
            rng.random(20_000),
            [math.exp(-2.0), 1.0 - math.exp(-2.0), 0.025, 0.975, 0.005, 0.995, 0.5],
            [np.nextafter(0.0, 1.0), np.nextafter(1.0, 0.0), -0.1, 1.1, np.nan, np.inf],
        ]
    )
    got = np.array([_normal.ndtri(v) for v in p])
    with np.errstate(all="ignore"):
        want = special.ndtri(p)
    bad = ~_same(got, want)
    assert not bad.any(), (p[bad][:5], got[bad][:5], want[bad][:5])


# ---------------------------------------------------------------------------------------------
# BCa intervals: the same as with scipy.special
# ---------------------------------------------------------------------------------------------


def _bca_scipy(reps: np.ndarray, estimate: float, jackknife: np.ndarray, level: float):
    """The BCa interval as computed with scipy.special before (the reference)."""
    below = np.count_nonzero(reps < estimate) + 0.5 * np.count_nonzero(reps == estimate)
    z0 = special.ndtri(below / reps.shape[0])
    if not np.isfinite(z0):
        return math.nan, math.nan
    jack = jackknife[np.isfinite(jackknife)]
    d = jack.mean() - jack if jack.size else np.zeros(1)
    ss = float(np.sum(d * d))
    accel = float(np.sum(d**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0
    alpha = 1.0 - level
    zq = special.ndtri(np.array([alpha / 2, 1 - alpha / 2]))
    shifted = z0 + zq
    probs = special.ndtr(z0 + shifted / (1.0 - accel * shifted))
    if not np.all(np.isfinite(probs)):
        return math.nan, math.nan
    lo, hi = np.quantile(reps, probs)
    return float(lo), float(hi)


def test_bca_intervals_equal_the_scipy_based_ones_on_many_random_cases():
    rng = np.random.default_rng(2)
    cases = 0
    for trial in range(3000):
        b = int(rng.integers(2, 2000))
        kind = trial % 4
        if kind == 0:  # continuous, skewed
            reps = rng.lognormal(sigma=float(rng.uniform(0.1, 2.0)), size=b)
        elif kind == 1:  # heavy ties: the estimate equals many replicates
            reps = rng.integers(0, 5, size=b).astype(float)
        elif kind == 2:  # replicates on one side of the estimate, or nearly
            reps = rng.normal(size=b) + float(rng.choice([-4.0, 4.0, 0.0]))
        else:  # tiny spread: interpolation between nearly equal order statistics
            reps = 1.0 + 1e-12 * rng.normal(size=b)
        estimate = float(rng.choice([np.median(reps), reps[0], np.mean(reps), 0.0]))
        g = int(rng.integers(1, 120))
        jackknife = rng.normal(size=g) * float(rng.choice([0.0, 1e-8, 1.0, 100.0]))
        if trial % 7 == 0:
            jackknife = rng.standard_cauchy(g)  # strong acceleration
        if trial % 11 == 0:
            jackknife[: g // 3] = np.nan
        level = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]))
        with np.errstate(all="ignore"):
            want = _bca_scipy(reps, estimate, jackknife, level)
            got = _resampling.bca_interval(reps, estimate, jackknife, level)
        np.testing.assert_array_equal(np.array(got), np.array(want), err_msg=str(trial))
        cases += not math.isnan(want[0])
    assert cases > 2000  # most cases give an interval


# ---------------------------------------------------------------------------------------------
# The NumPy twin of the loss sums: the same bits as the row-by-row twin
# ---------------------------------------------------------------------------------------------


def _loss_sums_by_row(multiplicity: np.ndarray, base_weight: np.ndarray, losses: np.ndarray):
    """The previous twin, one replicate at a time (the reference)."""
    rows, n_losses = multiplicity.shape[0], losses.shape[1]
    sums = np.empty((rows, n_losses))
    totals = np.empty(rows)
    for b in range(rows):
        m = multiplicity[b]
        w = m * base_weight
        left_out = (m == 0.0)[:, None]
        terms = np.empty((m.shape[0] + 1, n_losses + 1))
        terms[0] = 0.0
        with np.errstate(all="ignore"):
            terms[1:, :n_losses] = np.where(left_out, -0.0, w[:, None] * losses)
        terms[1:, n_losses] = np.where(left_out[:, 0], -0.0, w)
        acc = np.cumsum(terms, axis=0)[-1]
        sums[b] = acc[:n_losses]
        totals[b] = acc[n_losses]
    return sums, totals


@pytest.mark.parametrize("trial", range(24))
def test_chunked_loss_sums_equal_the_row_by_row_twin(trial, monkeypatch):
    rng = np.random.default_rng(100 + trial)
    n = int(rng.integers(2, 1500))
    rows = int(rng.integers(1, 70))
    n_losses = int(rng.integers(1, 9))
    if trial % 4 == 0:  # several chunks per call
        monkeypatch.setattr(_resampling, "_LOSS_CHUNK_CELLS", int(rng.integers(1, 5 * n)))
    m = rng.multinomial(n, np.full(n, 1.0 / n), size=rows).astype(np.float64)
    weight = rng.lognormal(size=n) if trial % 2 else np.ones(n)
    if trial % 3 == 0:
        weight[rng.integers(0, n, 5)] = 0.0  # drawn rows of weight 0
    losses = rng.standard_cauchy((n, n_losses)) * 10.0 ** float(rng.integers(-5, 5))
    losses[rng.integers(0, n, 3), 0] = -losses[0, 0]  # sums that cancel
    if trial % 5 == 0:
        losses[rng.integers(0, n, 3), 0] = np.inf
    if trial % 6 == 0:
        losses[rng.integers(0, n, 3), -1] = np.nan
    got = _resampling.weighted_loss_sums_numpy(m, weight, losses)
    want = _loss_sums_by_row(m, weight, losses)
    for a, b in zip(got, want, strict=True):
        assert _same(a, b).all()


# ---------------------------------------------------------------------------------------------
# compare_models: every field as on the scipy-based, row-by-row path
# ---------------------------------------------------------------------------------------------

_FIELDS = (
    "values",
    "std_error",
    "ci_lower",
    "ci_upper",
    "difference",
    "difference_sd",
    "difference_ci_lower",
    "difference_ci_upper",
    "z",
    "p_value",
    "p_value_one_sided",
    "variance_plug_in",
    "variance_unbiased",
    "replicates",
)


def _level_term_by_bool_masks(ws: np.ndarray, perm: np.ndarray, shift: int) -> np.ndarray:
    """The previous int32 level term of the NumPy rank sweep (boolean masks made per call)."""
    wl = ws[:, perm]
    left = ((perm >> shift) & 1) == 0
    s = np.cumsum(wl * left, axis=1, dtype=np.int32)
    return np.einsum("ij,ij->i", wl * ~left, s).astype(np.int64)


def _previous_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """scipy's Phi and Phi^-1, the row-by-row loss sums and the level term, as before."""
    monkeypatch.setattr(_evaluators, "_LevelTermInt32", lambda: _level_term_by_bool_masks)
    monkeypatch.setattr(_resampling, "ndtr", lambda x: special.ndtr(x))
    monkeypatch.setattr(_resampling, "ndtri", lambda x: special.ndtri(x))
    monkeypatch.setattr(compare_module, "ndtr_array", special.ndtr)
    monkeypatch.setattr(_evaluators, "weighted_loss_sums_numpy", _loss_sums_by_row)


def _data(seed: int, ties: bool, weighted: bool):
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.lognormal(size=n)
    p = np.log(y) + rng.normal(size=n)
    q = np.log(y) + rng.normal(scale=1.5, size=n)
    if ties:
        y, p, q = np.round(y, 1), np.round(p), np.round(q)
    w = rng.integers(1, 4, size=n).astype(float) if weighted else None
    return y, {"a": p, "b": q, "c": 0.5 * p + 0.5 * q}, w


@pytest.mark.parametrize(
    ("seed", "ties", "weighted", "interval"),
    [
        (0, False, False, "bca"),
        (1, True, False, "bca"),
        (2, True, True, "bca"),
        (3, False, True, "percentile"),
    ],
)
def test_compare_models_on_the_twins_equals_the_previous_path(
    seed, ties, weighted, interval, monkeypatch
):
    y, preds, w = _data(seed, ties, weighted)
    monkeypatch.setattr(compare_module, "prefer_numpy_twins", lambda *a: True)

    def run() -> Any:
        return compare_models(
            y,
            preds,
            sample_weight=w,
            n_bootstrap=300,
            interval=interval,
            random_state=seed,
            show_progress=False,
        )

    with np.errstate(all="ignore"):
        new = run()
        with monkeypatch.context() as m:
            _previous_path(m)
            old = run()
    assert new.interval == old.interval == interval
    for field in _FIELDS:
        a, b = np.asarray(getattr(new, field)), np.asarray(getattr(old, field))
        assert a.shape == b.shape, field
        assert _same(a.astype(float), b.astype(float)).all(), field


_FRESH = """
import json, sys
import numpy as np
import ranklens
rng = np.random.default_rng(0)
y = rng.lognormal(size=1000)
p = np.log(y) + rng.normal(size=1000)
q = np.log(y) + rng.normal(scale=1.5, size=1000)
r = ranklens.compare_models(y, {{'a': p, 'b': q}}, random_state={seed}, show_progress=False)
out = {{f: np.asarray(getattr(r, f), dtype=float).tolist() for f in {fields!r}}}
loaded = {{m: m in sys.modules for m in ("scipy", "scipy.special", "numba", "pandas")}}
print(json.dumps({{"loaded": loaded, "out": out}}))
"""


@pytest.mark.slow
def test_a_fresh_warm_compare_models_imports_no_scipy_special_and_gives_the_same_numbers(
    tmp_path, monkeypatch
):
    seed = 5
    code = textwrap.dedent(_FRESH.format(seed=seed, fields=_FIELDS))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    fresh = json.loads(done.stdout.strip().splitlines()[-1])
    # the benchmark's case (bench_cold_start.py) runs on the NumPy twins: no numba, no
    # scipy.special, no pandas
    assert fresh["loaded"] == {
        "scipy": False,
        "scipy.special": False,
        "numba": False,
        "pandas": False,
    }
    rng = np.random.default_rng(0)
    y = rng.lognormal(size=1000)
    p = np.log(y) + rng.normal(size=1000)
    q = np.log(y) + rng.normal(scale=1.5, size=1000)
    monkeypatch.setattr(compare_module, "prefer_numpy_twins", lambda *a: True)
    _previous_path(monkeypatch)
    old = compare_models(y, {"a": p, "b": q}, random_state=seed, show_progress=False)
    for field in _FIELDS:
        got = np.array(fresh["out"][field], dtype=float)
        want = np.asarray(getattr(old, field), dtype=float)
        assert _same(got, want).all(), field
