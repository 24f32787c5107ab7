"""The NumPy routes of a first call: the same numbers as the compiled kernels, nothing compiled.

Below ``POLICY.sweep_numpy_below`` rows an unweighted ``ranking_summary`` or rank measure takes the
NumPy sums of :mod:`ranklens._compute.xp.summary` while the sweep kernel is not loaded; a small
multinomial bootstrap whose kernels are not compiled runs on the NumPy twins
(:mod:`ranklens._inference.resampling`, :mod:`ranklens._compute.xp.rank`). These tests force each
route and compare every field, and check in a fresh process with an empty numba cache that a first
small call compiles nothing.
"""

from __future__ import annotations

import dataclasses
import io
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ranklens
from ranklens import compare, ranking
from ranklens._compute.kernels import compare as _kc
from ranklens._compute.kernels import ranking as _kr
from ranklens._compute.xp import measure_routes
from ranklens._compute.xp.sequence import sequence
from ranklens._foundation import route as _route
from ranklens._inference import resampling as _resampling

# --------------------------------------------------------------------------------------------
# ranking_summary and the rank measures: NumPy sums against the sweep kernel
# --------------------------------------------------------------------------------------------


def _both(monkeypatch: pytest.MonkeyPatch, func: Any, *args: Any, **kwargs: Any) -> tuple:
    """``func`` on the NumPy route and on the kernel, with the warnings each raised."""
    out = []
    for numpy_route in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n, _r=numpy_route: _r)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = func(*args, **kwargs)
        out.append((value, [(w.category, str(w.message)) for w in caught]))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def _same(a: Any, b: Any) -> bool:
    """Bit-for-bit equality, NaN equal to NaN (dicts, sequences and floats)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    return bool(a == b) and type(a) is type(b)


def _summary_fields(s: ranking.RankingSummary) -> dict[str, Any]:
    return {f.name: getattr(s, f.name) for f in dataclasses.fields(s)}


def _cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(12)
    n = 257
    y, p = rng.normal(size=n), rng.normal(size=n)
    zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    return [
        ("continuous", y, p),
        ("ties", np.round(y), np.round(2 * p)),
        ("heavy ties", rng.integers(0, 3, n).astype(float), rng.integers(0, 2, n).astype(float)),
        ("signed zeros", np.where(y > 0, zeros, y), np.where(p > 0, -zeros, 1.0)),
        ("constant y", np.full(n, 2.0), p),
        ("constant prediction", y, np.full(n, -1.0)),
        ("two rows", np.array([1.0, 2.0]), np.array([2.0, 1.0])),
        ("three rows", np.array([1.0, 2.0, 2.0]), np.array([0.0, 5.0, 5.0])),
        ("exact p-values", y[:20], p[:20]),
        ("infinite", np.r_[y[:50], np.inf], np.r_[p[:50], -np.inf]),
    ]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_ranking_summary_numpy_route_equals_the_kernel_bit_for_bit(monkeypatch, case):
    _, y, p = case
    try:
        a, b, wa, wb = _both(monkeypatch, ranklens.ranking_summary, y, p, confidence_level=0.9)
    except ValueError:  # an input every route refuses (infinite values): the same message
        for route in (True, False):
            monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n, _r=route: _r)
            with pytest.raises(ValueError, match="infinite"):
                ranklens.ranking_summary(y, p)
        return
    assert _same(_summary_fields(a), _summary_fields(b))
    assert wa == wb


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
@pytest.mark.parametrize(
    "func",
    [
        ranklens.kendall_tau,
        ranklens.spearman_rho,
        ranklens.tau_normalized,
        ranklens.rho_normalized,
        ranklens.somers_d,
    ],
    ids=lambda f: f.__name__,
)
def test_rank_measures_numpy_route_equal_the_kernel(monkeypatch, case, func):
    _, y, p = case
    if not np.isfinite(y).all():
        return
    a, b, wa, wb = _both(monkeypatch, func, y, p)
    assert _same(float(a), float(b))
    assert wa == wb


@pytest.mark.parametrize("n", [0, 1])
def test_too_few_rows_are_refused_alike(monkeypatch, n):
    messages = []
    for route in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda m, _r=route: _r)
        with pytest.raises(ValueError) as info:
            ranklens.ranking_summary(np.arange(n, dtype=float), np.arange(n, dtype=float))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_ranking_summary_field_containers(monkeypatch, field_containers):
    rng = np.random.default_rng(5)
    y, p = np.round(rng.lognormal(size=400), 1), np.round(rng.normal(size=400), 1)
    want = None
    containers = field_containers(y, p)
    for y_in, p_in in containers:
        a, b, wa, wb = _both(monkeypatch, ranklens.ranking_summary, y_in, p_in)
        assert _same(_summary_fields(a), _summary_fields(b)) and wa == wb
        if want is None:
            want = _summary_fields(a)
        assert _same(_summary_fields(a), want)
    _, read_only = containers[1]
    assert not read_only.flags.writeable and np.array_equal(read_only, p)


def test_weighted_calls_take_the_kernel(monkeypatch):
    """The NumPy sums are unweighted: with sample_weight the sweep kernel runs (route asked
    never), and the result is the kernel's."""
    asked = []
    monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n: asked.append(n) or True)
    rng = np.random.default_rng(2)
    y, p, w = rng.normal(size=60), rng.normal(size=60), rng.uniform(0.5, 2.0, 60)
    with pytest.warns(ranklens.exceptions.UndefinedMetricWarning):
        s = ranklens.ranking_summary(y, p, sample_weight=w)
    assert ranklens.kendall_tau(y, p, sample_weight=w) == s.kendall_tau
    assert asked == []


def test_the_route_prefers_a_loaded_kernel_and_switches_after_its_budget(monkeypatch):
    policy = _route.POLICY
    assert policy.sweep_numpy_below == policy.sort_numpy_below  # one number, as documented
    assert not measure_routes.sweep_numpy(policy.sweep_numpy_below)
    _kr.sweep(*_sweep_args())  # machine code in this process: the kernel from now on
    assert _kr.sweep_kernel.signatures and not measure_routes.sweep_numpy(100)
    # as if the kernel were not loaded
    monkeypatch.setattr(measure_routes, "ranking_kernel_loaded", lambda name: False)
    monkeypatch.setattr(measure_routes, "SWEEP_NUMPY_SECONDS", [0.0])
    assert measure_routes.sweep_numpy(100)
    measure_routes.SWEEP_NUMPY_SECONDS[0] = policy.sweep_compile_after_s
    assert not measure_routes.sweep_numpy(100)  # a long loop of small calls: compile or load


def _sweep_args() -> tuple:
    y, p = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    _, key, pkey, _, _, n_y, _ = sequence(y, p)
    empties = [np.empty(0, np.int64)] * 5
    proto = _kr.record_prototype(3, unit=True)
    return (key, pkey, n_y, np.ones(1, np.int64), True, proto, np.empty(0, np.int64), *empties)


# --------------------------------------------------------------------------------------------
# the bootstrap's NumPy twins
# --------------------------------------------------------------------------------------------


def test_multiplicities_twin_equals_the_kernel():
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 1000):
        indices = rng.integers(0, n, size=(9, n), dtype=np.int32)
        want = _kc.multiplicities_serial(indices, n)
        got = _resampling.multiplicities_numpy(indices, n)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_loss_sums_twin_equals_the_kernel_bit_for_bit():
    rng = np.random.default_rng(3)
    n = 500
    multiplicity = rng.multinomial(n, np.ones(n) / n, size=12).astype(np.float64)
    multiplicity[0] = 0.0
    multiplicity[1, :] = 0.0
    multiplicity[1, 5] = 2.0
    base = rng.uniform(0.0, 3.0, n)
    base[::7] = 0.0
    losses = rng.normal(size=(n, 5)) * 10.0 ** rng.integers(-8, 8, size=(n, 5))
    losses[:, 3] = -0.0  # a sum of negative zeros stays -0.0, as in the kernel
    losses[4, 4] = np.inf
    for m in (multiplicity, multiplicity[:, ::-1].copy()):
        want = _kc.weighted_loss_sums_serial(m, base, losses)
        got = _resampling.weighted_loss_sums_numpy(m, base, losses)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g, w, equal_nan=True)
            assert np.array_equal(np.signbit(g), np.signbit(w))


def _compare(monkeypatch: pytest.MonkeyPatch, twins: bool, *args: Any, **kwargs: Any) -> Any:
    monkeypatch.setattr(compare, "prefer_numpy_twins", lambda *a: twins)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.exceptions.UndefinedMetricWarning)
        return ranklens.compare_models(*args, show_progress=False, **kwargs)


def _data(n: int, ties: bool) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(7)
    y = rng.lognormal(size=n)
    preds = {"a": np.log(y) + rng.normal(size=n), "b": np.log(y) + rng.normal(scale=1.5, size=n)}
    if ties:
        y = np.round(y, 1)
        preds = {k: np.round(v, 1) for k, v in preds.items()}
    return y, preds


_FIELDS = (
    "values",
    "std_error",
    "ci_lower",
    "ci_upper",
    "difference",
    "difference_sd",
    "z",
    "p_value",
    "p_value_one_sided",
    "difference_ci_lower",
    "difference_ci_upper",
    "variance_plug_in",
    "variance_unbiased",
    "n_undefined",
    "replicates",
)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_compare_models_twins_give_the_kernels_results(monkeypatch, ties, interval):
    y, preds = _data(300, ties)
    metrics = [
        "root_mean_squared_error",
        "mean_absolute_error",
        "kendall_tau",
        "spearman_rho",
        "tau_normalized",
        "somers_d",
    ]
    kw = dict(metrics=metrics, n_bootstrap=150, random_state=11, interval=interval)
    twin = _compare(monkeypatch, True, y, preds, **kw)
    kern = _compare(monkeypatch, False, y, preds, **kw)
    assert twin.evaluation == kern.evaluation == ("kernel",) * len(metrics)
    for field in _FIELDS:
        a, b = getattr(twin, field), getattr(kern, field)
        # counts exact, so tau-b, C, D and the losses bit for bit; rho's float moments to rounding
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=field)
    rho = metrics.index("spearman_rho")
    exact = [k for k in range(len(metrics)) if k != rho]
    assert np.array_equal(twin.replicates[:, exact], kern.replicates[:, exact], equal_nan=True)


def test_compare_models_twins_weighted_and_field_containers(monkeypatch):
    y, preds = _data(200, ties=True)
    rng = np.random.default_rng(4)
    w = rng.integers(1, 4, y.size).astype(float)
    frame = pd.read_csv(io.StringIO(pd.DataFrame({"y": y, **preds}).to_csv(index=False)))
    read_only = preds["a"].copy()
    read_only.flags.writeable = False
    kw = dict(n_bootstrap=120, random_state=3)
    twin = _compare(
        monkeypatch,
        True,
        frame["y"],
        {"a": read_only, "b": np.repeat(preds["b"], 2)[::2]},
        sample_weight=w,
        **kw,
    )
    kern = _compare(monkeypatch, False, y, preds, sample_weight=w, **kw)
    for field in _FIELDS:
        np.testing.assert_allclose(
            getattr(twin, field),
            getattr(kern, field),
            rtol=1e-12,
            atol=1e-14,
            equal_nan=True,
            err_msg=field,
        )


def test_twins_only_for_a_small_uncompiled_multinomial_bootstrap(monkeypatch):
    assert not _resampling.prefer_numpy_twins(_route.POLICY.twins_numpy_below, 1100, 2, True)
    y, preds = _data(100, ties=False)
    _compare(monkeypatch, False, y, preds, n_bootstrap=20, random_state=0)  # the kernels
    assert not _resampling.prefer_numpy_twins(1000, 1100, 2, True)  # loaded: the kernels
    asked = []
    monkeypatch.setattr(compare, "prefer_numpy_twins", lambda *a: asked.append(a) or True)
    ranklens.compare_models(y, preds, n_bootstrap=20, method="permutation", random_state=0)
    ranklens.compare_models(y, preds, n_bootstrap=20, scheme="poisson", random_state=0)
    assert asked == []


def test_budget_and_warmup_force_the_kernels():
    """The bootstrap budget compiles on a tiny sample and warmup on 120 rows: both must reach the
    kernels, not the NumPy routes."""
    policy = _route.POLICY
    with _resampling.kernels_only():
        assert not _resampling.prefer_numpy_twins(48, 2, 2, True)
    with _route.kernels_at_any_size(_route.Thresholds.FIRST_CALLS):  # as warmup forces them
        assert policy.sweep_numpy_below == 0 and policy.twins_numpy_below == 0
        assert not measure_routes.sweep_numpy(120)
        assert not _resampling.prefer_numpy_twins(120, 10, 2, True)
    assert policy.sweep_numpy_below == policy.twins_numpy_below == 1 << 15


# --------------------------------------------------------------------------------------------
# a fresh process with an empty numba cache compiles nothing for a small first call
# --------------------------------------------------------------------------------------------

#: The data of the fresh processes' calls: a truth ``y`` and two predictions ``p`` and ``q``.
_SAMPLE = """
import numpy as np
rng = np.random.default_rng(0)
y = rng.lognormal(size=1000)
p = np.log(y) + rng.normal(size=1000)
q = np.log(y) + rng.normal(scale=1.5, size=1000)
"""

#: A fresh process that records what numba compiles while it runs ``{body}`` (which sets ``out``).
_COMPILE_LISTENER = """
import json, sys
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, e): pass
    def on_end(self, e): compiled.append(e.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Listener())
import ranklens
{sample}
{body}
print(json.dumps({{"compiled": compiled, "out": out}}))
"""


def _sample() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``y``, ``p`` and ``q`` of :data:`_SAMPLE`, in this process."""
    namespace: dict[str, Any] = {}
    exec(_SAMPLE, namespace)
    return namespace["y"], namespace["p"], namespace["q"]


def _fresh(fresh_python: Any, body: str, prelude: str = "") -> dict[str, Any]:
    """``body`` in a fresh process: what numba compiled and what ``out`` holds."""
    return fresh_python(_COMPILE_LISTENER.format(sample=_SAMPLE, body=prelude + body))


def test_a_small_ranking_summary_compiles_and_imports_no_kernel(fresh_python):
    body = (
        "s = ranklens.ranking_summary(y, p)\n"
        "k = ranklens.kendall_tau(y, q)\n"
        "out = [repr(s), k, 'ranklens._compute.kernels.ranking' in sys.modules]\n"
    )
    got = _fresh(fresh_python, body)
    assert got["compiled"] == []
    assert got["out"][2] is False  # the kernel module (and numba's work) never needed
    y, p, q = _sample()
    assert got["out"][0] == repr(ranklens.ranking_summary(y, p))
    assert got["out"][1] == ranklens.kendall_tau(y, q)


def test_a_first_rank_measure_imports_neither_numba_nor_scipy_special(fresh_python):
    body = (
        "values = [ranklens.kendall_tau(y, p), ranklens.spearman_rho(y, p),"
        " ranklens.tau_normalized(y, q), ranklens.somers_d(y, q)]\n"
        "out = [values, 'numba' in sys.modules, 'scipy.special' in sys.modules]\n"
    )
    # no compile listener here (it would import numba): the module check says it all
    code = "import json, sys\nimport ranklens\n" + _SAMPLE + body + "print(json.dumps(out))\n"
    values, numba_imported, special_imported = fresh_python(code)
    assert not numba_imported and not special_imported
    y, p, q = _sample()
    want = [
        ranklens.kendall_tau(y, p),
        ranklens.spearman_rho(y, p),
        ranklens.tau_normalized(y, q),
        ranklens.somers_d(y, q),
    ]
    assert values == want


def test_compare_models_cold_and_warm_give_the_same_results(fresh_python):
    """Cold (empty cache: the NumPy twins, nothing compiled) and warm (the kernels compiled
    and cached by an earlier process) runs of the same call: the same multiplicities, so the
    same results."""
    body = (
        "r = ranklens.compare_models(y, {'a': p, 'b': q}, random_state=5,"
        " show_progress=False)\n"
        "out = {f: np.asarray(getattr(r, f), dtype=float).ravel().tolist() for f in FIELDS}\n"
    )
    prelude = f"FIELDS = {list(_FIELDS)!r}\n"
    cold = _fresh(fresh_python, body, prelude)
    assert cold["compiled"] == []
    compile_all = "import ranklens.compare as c\nc.prefer_numpy_twins = lambda *a: False\n"
    first = _fresh(fresh_python, body, prelude + compile_all)
    assert first["compiled"]  # the kernels, compiled and cached
    warm = _fresh(fresh_python, body, prelude)
    assert warm["compiled"] == []
    for field in _FIELDS:
        a, b, c = (
            np.array(x[field], dtype=float) for x in (cold["out"], warm["out"], first["out"])
        )
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=field)
        np.testing.assert_array_equal(b, c, err_msg=field)
