"""The cold routes of a first ``ranklens evaluate``: the same numbers, fewer kernels compiled.

* ``per_observation_pair_counts`` (behind the leave-one-out influence of tau-b) counts by direct
  comparison below ``POLICY.pair_counts_numpy_below`` rows while the sweep kernel is not loaded:
  exact counts, so the kernel's bit for bit.
* The bootstrap budget compiles and times a small comparison on the NumPy twins when the real
  comparison will take them (``ranklens._inference.resampling.prefer_numpy_twins``): the resampling
  and rank-batch kernels are then not compiled for it, and the plan is the kernels' plan.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ranklens
from ranklens import ranking
from ranklens._compute.kernels import compare as _kc
from ranklens._compute.xp import measure_routes
from ranklens._compute.xp.sequence import sequence
from ranklens._compute.xp.summary import per_row_pair_counts
from ranklens._engines import budget as _budget
from ranklens._foundation import cache as _cache
from ranklens._foundation import route as _route
from ranklens._foundation.route import POLICY
from ranklens._inference import resampling as _resampling
from ranklens._measures import rank_sweep as _rank_sweep

_FIELDS = ("concordant", "discordant", "tied_true_only", "tied_pred_only", "tied_both")


def _routes(monkeypatch: pytest.MonkeyPatch, y: Any, p: Any) -> tuple[list, list]:
    """``per_observation_pair_counts`` on the cold route and on the sweep kernel."""
    out = []
    for cold in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n, _c=cold: _c)
        r = ranking.per_observation_pair_counts(y, p)
        out.append([getattr(r, f) for f in _FIELDS])
    return out[0], out[1]


def _identical(a: list, b: list) -> bool:
    return all(u.dtype == v.dtype == np.int64 and np.array_equal(u, v) for u, v in zip(a, b))


def _pair_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(21)
    n = 601  # more than two blocks of the comparison, the last one short
    y, p = rng.normal(size=n), rng.normal(size=n)
    zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    return [
        ("continuous", y, p),
        ("ties", np.round(y), np.round(2 * p)),
        ("heavy ties", rng.integers(0, 3, n).astype(float), rng.integers(0, 2, n).astype(float)),
        ("signed zeros", np.where(y > 0, zeros, y), np.where(p > 0, -zeros, 1.0)),
        ("constant y", np.full(n, 2.0), p),
        ("constant prediction", y, np.full(n, -1.0)),
        ("all tied", np.zeros(5), np.array([0.0, -0.0, 0.0, -0.0, 0.0])),
        ("two rows", np.array([1.0, 2.0]), np.array([2.0, 1.0])),
        ("three rows", np.array([1.0, 2.0, 2.0]), np.array([0.0, 5.0, 5.0])),
        ("huge values", y * 1e300, p * 1e-300),
    ]


@pytest.mark.parametrize("case", _pair_cases(), ids=lambda c: c[0])
def test_pair_counts_cold_route_equals_the_sweep_bit_for_bit(monkeypatch, case):
    _, y, p = case
    cold, kern = _routes(monkeypatch, y, p)
    assert _identical(cold, kern)
    # every other row is in exactly one class
    assert np.all(sum(cold) == y.size - 1)
    assert _identical(list(per_row_pair_counts(np, y, p)), kern)


@pytest.mark.parametrize("n", [0, 1])
def test_pair_counts_too_few_rows_refused_alike(monkeypatch, n):
    messages = []
    for cold in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda m, _c=cold: _c)
        with pytest.raises(ValueError) as info:
            ranking.per_observation_pair_counts(np.arange(n, dtype=float), np.ones(n))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_pair_counts_refuse_infinite_values_alike(monkeypatch):
    for cold in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda m, _c=cold: _c)
        with pytest.raises(ValueError, match="infinite"):
            ranking.per_observation_pair_counts([1.0, 2.0, 3.0], [0.0, np.inf, 1.0])


def test_pair_counts_brute_force_reference():
    """An independent reference: the pair classes of every pair (i, j), i != j, in Python."""
    rng = np.random.default_rng(8)
    y = rng.integers(0, 4, 40).astype(float)
    p = rng.integers(0, 5, 40).astype(float)
    want = np.zeros((5, y.size), np.int64)
    for i in range(y.size):
        for j in range(y.size):
            if i == j:
                continue
            s = np.sign(y[j] - y[i]) * np.sign(p[j] - p[i])
            k = (
                0
                if s > 0
                else 1
                if s < 0
                else 4
                if y[i] == y[j] and p[i] == p[j]
                else (2 if y[i] == y[j] else 3)
            )
            want[k, i] += 1
    got = per_row_pair_counts(np, y, p)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_pair_counts_field_containers(monkeypatch, field_containers):
    rng = np.random.default_rng(5)
    y, p = np.round(rng.lognormal(size=300), 1), np.round(rng.normal(size=300), 1)
    _, want = _routes(monkeypatch, y, p)
    containers = field_containers(y, p)
    for y_in, p_in in containers:
        cold, kern = _routes(monkeypatch, y_in, p_in)
        assert _identical(cold, kern) and _identical(cold, want)
    _, read_only = containers[1]
    assert not read_only.flags.writeable and np.array_equal(read_only, p)


def test_pair_counts_route_rule(monkeypatch):
    """The cold route only below POLICY.pair_counts_numpy_below rows and while the sweep is not
    loaded; the influence of tau-b (its caller) is the same either way."""
    asked = []
    monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n: asked.append(n) or True)
    monkeypatch.setattr(
        ranking, "per_row_pair_counts", lambda *a: pytest.fail("cold route above the bound")
    )
    rng = np.random.default_rng(3)
    big = rng.normal(size=POLICY.pair_counts_numpy_below)
    ranking.per_observation_pair_counts(big, big[::-1].copy())
    assert asked == []  # never asked: too many rows for the comparison of every pair


def test_leave_one_out_tau_cold_route_equals_the_kernel(monkeypatch):
    rng = np.random.default_rng(9)
    y = np.round(rng.lognormal(size=200), 1)
    p = np.round(np.log(y) + rng.normal(size=200), 1)
    out = []
    for cold in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n, _c=cold: _c)
        with np.errstate(all="ignore"):
            out.append(ranking._loo_kendall_tau(y, p))
    assert np.array_equal(out[0], out[1], equal_nan=True)
    assert np.array_equal(np.signbit(out[0]), np.signbit(out[1]))


# --------------------------------------------------------------------------------------------
# the bootstrap budget: a small comparison is compiled and timed on the NumPy twins
# --------------------------------------------------------------------------------------------

_TWINNED = (
    "multiplicities_serial",
    "multiplicities_parallel",
    "weighted_loss_sums_serial",
    "weighted_loss_sums_parallel",
    "rank_batches_serial",
    "rank_batches_parallel",
)


def _plan(monkeypatch: pytest.MonkeyPatch, twins: bool, weight: bool) -> tuple[Any, list[str]]:
    """``plan_bootstrap`` with the twins' rule forced, and the twinned kernels it called."""
    called: list[str] = []
    for name in _TWINNED:
        real = getattr(_kc, name)
        monkeypatch.setattr(_kc, name, lambda *a, _n=name, _r=real: called.append(_n) or _r(*a))
    monkeypatch.setattr(_resampling, "prefer_numpy_twins", lambda *a: twins)
    monkeypatch.setattr(_cache, "is_compiled", lambda k: False)  # an empty numba cache
    rng = np.random.default_rng(4)
    n = 300
    y = np.round(rng.lognormal(size=n), 2)
    preds = {"a": np.round(np.log(y) + rng.normal(size=n), 2), "b": np.log(y) * 0.5}
    w = rng.integers(1, 4, n).astype(float) if weight else None
    specs = [ranklens.metrics.get_metric(m) for m in ranklens.DEFAULT_COMPARISON_METRICS]
    plan = _budget.plan_bootstrap(y, preds, specs, w, n_bootstrap=200, budget_s=600.0)
    return plan, called


@pytest.mark.parametrize("weight", [False, True])
def test_budget_plans_a_small_comparison_on_the_twins(monkeypatch, weight):
    twin_plan, twin_calls = _plan(monkeypatch, True, weight)
    assert twin_calls == []  # neither compiled nor timed: the real run will not call them
    kern_plan, kern_calls = _plan(monkeypatch, False, weight)
    assert kern_calls  # the kernels' route does reach them
    # a generous budget: the same plan either way
    assert [s.name for s in twin_plan.metrics] == [s.name for s in kern_plan.metrics]
    assert twin_plan.n_bootstrap == kern_plan.n_bootstrap == 200


def test_budget_asks_the_twins_rule_of_the_real_run(monkeypatch):
    asked = []
    monkeypatch.setattr(_resampling, "prefer_numpy_twins", lambda *a: asked.append(a) or False)
    specs = [ranklens.metrics.get_metric(m) for m in ranklens.DEFAULT_COMPARISON_METRICS]
    assert not _budget._twins(500, 1100, specs, 3)
    n, rows, rank_models, ratio = asked[0]
    assert (n, rows) == (500, 1100) and rank_models in (0, 3) and isinstance(ratio, bool)


def test_budget_takes_the_twins_only_in_place_of_compiling(monkeypatch):
    """With the kernels in numba's cache the budget loads them, as before (the real run then
    has them); the twins stand in only for kernels that would be compiled."""
    specs = [ranklens.metrics.get_metric(m) for m in ranklens.DEFAULT_COMPARISON_METRICS]
    monkeypatch.setattr(_resampling, "prefer_numpy_twins", lambda *a: True)
    monkeypatch.setattr(_cache, "is_compiled", lambda k: True)
    assert not _budget._twins(500, 1100, specs, 3)
    monkeypatch.setattr(_cache, "is_compiled", lambda k: False)
    assert _budget._twins(500, 1100, specs, 3)


# --------------------------------------------------------------------------------------------
# concordance_profile: the pair counts and the envelope by comparison
# --------------------------------------------------------------------------------------------


def _profile_fields(r: Any) -> list[Any]:
    return [r.row_index, r.fraction_correct, r.envelope, r.area, r.envelope_area]


def _same_profile(a: Any, b: Any) -> bool:
    for u, v in zip(_profile_fields(a), _profile_fields(b)):
        u, v = np.asarray(u), np.asarray(v)
        if u.dtype != v.dtype or not np.array_equal(u, v, equal_nan=True):
            return False
        if u.dtype.kind == "f" and not np.array_equal(np.signbit(u), np.signbit(v)):
            return False
    return True


def _profile_routes(monkeypatch: pytest.MonkeyPatch, *args: Any, **kwargs: Any) -> tuple:
    out = []
    for cold in (True, False):
        monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n, _c=cold: _c)
        with _Warnings() as caught:
            out.append(ranklens.concordance_profile(*args, **kwargs))
        out.append(caught.messages)
    return out[0], out[2], out[1], out[3]


class _Warnings:
    """Record the warnings of a block (their category and message)."""

    def __enter__(self) -> _Warnings:
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self._log = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.messages = [(w.category, str(w.message)) for w in self._log]
        self._cm.__exit__(*exc)


@pytest.mark.parametrize("case", _pair_cases()[:-1], ids=lambda c: c[0])
def test_concordance_profile_cold_route_equals_the_kernels_bit_for_bit(monkeypatch, case):
    _, y, p = case
    a, b, wa, wb = _profile_routes(monkeypatch, y, p)
    assert _same_profile(a, b)
    assert wa == wb


def test_concordance_profile_field_containers(monkeypatch, field_containers):
    rng = np.random.default_rng(6)
    y, p = np.round(rng.lognormal(size=300), 1), np.round(rng.normal(size=300), 1)
    want, *_ = _profile_routes(monkeypatch, y, p)
    containers = field_containers(y, p)
    for y_in, p_in in containers:
        a, b, wa, wb = _profile_routes(monkeypatch, y_in, p_in)
        assert _same_profile(a, b) and _same_profile(a, want) and wa == wb
    _, read_only = containers[1]
    assert not read_only.flags.writeable and np.array_equal(read_only, p)


def test_weighted_concordance_profile_takes_the_kernels(monkeypatch):
    monkeypatch.setattr(
        _rank_sweep, "envelope_by_comparison", lambda *a: pytest.fail("weighted: the kernel")
    )
    monkeypatch.setattr(
        _rank_sweep, "per_row_pair_counts", lambda *a: pytest.fail("weighted: the kernel")
    )
    monkeypatch.setattr(measure_routes, "sweep_numpy", lambda n: True)
    rng = np.random.default_rng(2)
    y, p, w = rng.normal(size=50), rng.normal(size=50), rng.uniform(0.5, 2.0, 50)
    ranklens.concordance_profile(y, p, sample_weight=w)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 257, 1500])
def test_envelope_twin_equals_the_kernel(n, weighted):
    """Unit weights: bit for bit; other weights (and signed-zero y values): to rounding."""
    from ranklens._compute.kernels import ranking as _kr
    from ranklens._compute.xp.summary import envelope_by_comparison

    rng = np.random.default_rng(n)
    y = np.round(rng.normal(size=n), 1)
    y[: n // 3] = np.where(rng.random(n // 3) < 0.5, 0.0, -0.0)
    p = np.round(rng.normal(size=n), 1)
    _, key, pkey, _, _, n_y, _ = sequence(y, p)
    w = rng.uniform(0.1, 10.0, n) if weighted else np.ones(n)
    want = _kr.concordance_envelope(key, pkey, n_y, w)
    got = envelope_by_comparison(key, pkey, n_y, w)
    if weighted:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * w.sum())
    else:
        assert np.array_equal(got, want)
    ro = w.copy()
    ro.flags.writeable = False
    assert np.array_equal(envelope_by_comparison(key, pkey, n_y, ro), got)


# --------------------------------------------------------------------------------------------
# DeLong's components: unit weights by comparing the rows
# --------------------------------------------------------------------------------------------


def _delong_routes(monkeypatch: pytest.MonkeyPatch, func: Any, *args: Any, **kwargs: Any):
    """``func`` with the delong kernels' NumPy routes forced on, then off (values, warnings)."""
    from ranklens._compute.xp import delong as _kd

    out = []
    for cold in (True, False):
        monkeypatch.setattr(_kd, "_numpy_route", lambda w, n, _c=cold: _c and w is None)
        monkeypatch.setattr(_kd, "_numpy_products", lambda n, _c=cold: _c)
        with _Warnings() as caught:
            value = func(*args, **kwargs)
        out.append((value, caught.messages))
    return out[0][0], out[1][0], out[0][1], out[1][1]


def _bitwise(a: Any, b: Any) -> bool:
    """Every field of two results equal bit for bit (NaN equal to NaN, signed zeros told apart)."""
    da, db = a.to_dict(), b.to_dict()
    if da.keys() != db.keys():
        return False
    for key in da:
        u, v = da[key], db[key]
        if isinstance(u, float | np.floating | np.ndarray | list | tuple) and not isinstance(
            u, str
        ):
            try:
                uu, vv = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                if u != v:
                    return False
                continue
            if not (np.array_equal(uu, vv, equal_nan=True)):
                return False
            if not np.array_equal(np.signbit(uu), np.signbit(vv)):
                return False
        elif u != v:
            return False
    return True


def _delong_cases() -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(31)
    n = 333
    y = rng.lognormal(size=n)
    a = np.log(y) + rng.normal(size=n)
    b = np.round(np.log(y) + rng.normal(scale=2.0, size=n), 1)
    zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    return [
        ("continuous y", y, a, b),
        ("tied y", np.round(y), np.round(a), b),
        ("binary y", (y > np.median(y)).astype(float), a, b),
        ("signed zeros", np.where(y > 1, zeros, y), np.where(a > 0, -zeros, a), b),
        ("two rows", np.array([0.0, 1.0]), np.array([0.2, 0.1]), np.array([0.0, 1.0])),
        ("three rows", np.array([1.0, 2.0, 2.0]), np.array([0.0, 5.0, 5.0]), np.ones(3)),
        ("constant prediction", y, a, np.full(n, 3.0)),
    ]


@pytest.mark.parametrize("case", _delong_cases(), ids=lambda c: c[0])
def test_delong_test_numpy_route_equals_the_kernels_bit_for_bit(monkeypatch, case):
    from ranklens.delong import delong_test

    _, y, a, b = case
    r_np, r_k, w_np, w_k = _delong_routes(monkeypatch, delong_test, y, a, b)
    assert _bitwise(r_np, r_k), (r_np, r_k)
    assert w_np == w_k


@pytest.mark.parametrize("case", _delong_cases()[:3], ids=lambda c: c[0])
def test_delong_comparison_numpy_route_equals_the_kernels(monkeypatch, case):
    _, y, a, b = case
    fields = ("values", "std_error", "ci_lower", "ci_upper", "difference", "z", "p_value")

    def run() -> Any:
        return ranklens.compare_models(
            y, {"a": a, "b": b, "c": -a}, metrics=["somers_d", "tau_normalized"], method="delong"
        )

    r_np, r_k, w_np, w_k = _delong_routes(monkeypatch, run)
    for field in fields:
        u, v = np.asarray(getattr(r_np, field)), np.asarray(getattr(r_k, field))
        assert np.array_equal(u, v, equal_nan=True), field
    assert w_np == w_k


def test_delong_numpy_route_rule_and_field_containers(monkeypatch):
    from ranklens._compute.xp import delong as _kd
    from ranklens.delong import delong_test

    assert not _kd._numpy_route(np.ones(10), 10)  # weighted: the kernels
    assert not _kd._numpy_route(None, POLICY.delong_numpy_below)  # large: the kernels
    _, y, a, b = _delong_cases()[1]
    frame = pd.read_csv(io.StringIO(pd.DataFrame({"y": y, "a": a}).to_csv(index=False)))
    read_only = b.copy()
    read_only.flags.writeable = False
    strided = np.repeat(a, 2)[::2]
    want, *_ = _delong_routes(monkeypatch, delong_test, y, a, b)
    for args in [(frame["y"], frame["a"], b), (y, strided, read_only), (y.tolist(), a, b)]:
        r_np, r_k, w_np, w_k = _delong_routes(monkeypatch, delong_test, *args)
        assert _bitwise(r_np, r_k) and _bitwise(r_np, want) and w_np == w_k
    assert not read_only.flags.writeable


def test_weighted_delong_takes_the_kernels(monkeypatch):
    from ranklens._compute.xp import delong as _kd
    from ranklens.delong import delong_test

    monkeypatch.setattr(_kd, "_unit_components", lambda *a: pytest.fail("weighted: the kernel"))
    rng = np.random.default_rng(1)
    y, a, b = rng.normal(size=40), rng.normal(size=40), rng.normal(size=40)
    delong_test(y, a, b, sample_weight=rng.uniform(0.5, 2.0, 40))


def test_warmup_compiles_the_delong_kernels():
    """``ranklens warmup`` runs its small samples with the NumPy routes off: the delong kernels
    are compiled, not stood in for."""
    from ranklens._compute.xp import delong as _kd

    before = POLICY.delong_numpy_below
    with _route.kernels_at_any_size(_route.Thresholds.FIRST_CALLS):  # as warmup forces them
        assert POLICY.delong_numpy_below == 0
        assert not _kd._numpy_route(None, 120) and not _kd._numpy_products(120)
    assert POLICY.delong_numpy_below == before == 1 << 12
