"""The NumPy forms of the small curve kernels (``ranklens._compute.xp.curve_helpers``): the kernels'
numbers bit for bit, and a small first curve that loads none of those kernels.

``trapezoid``, ``roc_sums``, ``interp_sorted`` and ``lift_area`` of
``ranklens._compute.kernels.curves`` are each compared with their NumPy form on random data with
ties, repeated points, zero-length and one-point inputs, signed zeros and NaN; then the public
curves (ROC, gain, lift, profit) with the route forced both ways, on field containers; then a fresh
process.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ranklens import targeting
from ranklens._compute.kernels import curves as _k
from ranklens._compute.xp import curve_helpers as xh
from ranklens._compute.xp import measure_routes
from ranklens._foundation import route as _route


def _bits(a: Any) -> np.ndarray:
    """The float64 bit patterns (so that -0.0 != 0.0 and NaN == NaN of the same payload)."""
    return np.asarray(a, dtype=np.float64).reshape(-1).view(np.uint64)


def _same(a: Any, b: Any) -> None:
    np.testing.assert_array_equal(_bits(a), _bits(b))


def _polylines() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """``(name, x, y)``: x non-decreasing from 0, y arbitrary (ties, signed zeros, NaN)."""
    rng = np.random.default_rng(42)
    n = 777
    x = np.concatenate(([0.0], np.sort(rng.random(n - 1))))
    y = rng.normal(size=n)
    tied = np.round(x * 8) / 8  # repeated x values
    zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    nan_y = y.copy()
    nan_y[[5, 100, 400]] = np.nan
    return [
        ("random", x, y),
        ("cumulative", np.cumsum(rng.integers(0, 3, n)).astype(float), np.cumsum(rng.random(n))),
        ("repeated x", tied, np.cumsum(rng.integers(0, 2, n)).astype(float)),
        ("signed zeros", zeros * 0 + np.where(rng.random(n) < 0.3, -0.0, x), zeros),
        ("negative zero products", np.array([0.0, -0.0, 0.0]), np.array([-0.0, 0.0, -0.0])),
        ("nan y", x, nan_y),
        ("huge and tiny", x * 1e300, y * 1e-300),
        ("two points", np.array([0.0, 1.0]), np.array([0.0, 1.0])),
        ("one point", np.array([0.0]), np.array([3.0])),
        ("empty", np.empty(0), np.empty(0)),
    ]


@pytest.mark.parametrize("case", _polylines(), ids=lambda c: c[0])
def test_trapezoid_numpy_is_the_kernel(case):
    _, x, y = case
    got, want = xh.trapezoid_numpy(x, y), _k.trapezoid(x, y)
    _same(got, want)
    assert isinstance(got, float)


def test_trapezoid_numpy_is_not_np_sum_order():
    """A sum whose pairwise and sequential orders round differently: the kernel's order wins."""
    rng = np.random.default_rng(1)
    x = np.cumsum(rng.random(5000))
    y = rng.normal(size=5000) * 10.0 ** rng.integers(-8, 8, 5000)
    terms = np.diff(x) * (y[1:] + y[:-1])
    want = _k.trapezoid(x, y)
    assert xh.trapezoid_numpy(x, y) == want
    assert 0.5 * float(np.sum(terms)) != want  # the case does tell the two orders apart


def _roc_points(rng: np.random.Generator, n: int, weighted: bool) -> tuple:
    y = (rng.random(n) < 0.3).astype(float)
    y[:2] = [1.0, 0.0]  # an event and a non-event in every draw
    score = np.round(rng.normal(size=n), 1)  # tied scores
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    ranked = targeting._prepare(y, score, None, w)
    return ranked.cum_events, ranked.cum_nonevents, ranked.total_events, ranked.total_nonevents


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [2, 3, 50, 1001])
def test_roc_sums_numpy_is_the_kernel(n, weighted):
    rng = np.random.default_rng(n)
    tp, fp, p, n_ = _roc_points(rng, n, weighted)
    got, want = xh.roc_sums_numpy(tp, fp, p, n_), _k.roc_sums(tp, fp, p, n_)
    _same(got, want)
    assert all(isinstance(v, float) for v in got)


@pytest.mark.parametrize("case", _polylines(), ids=lambda c: c[0])
def test_roc_sums_numpy_is_the_kernel_on_any_points(case):
    """Arbitrary points (negative gaps only, NaN, signed zeros): the KS maximum keeps 0.0 and
    skips NaN as the kernel's ``gap > ks`` does."""
    _, x, y = case
    for p, n in ((3.0, 7.0), (1e-300, 1e300), (-2.0, 5.0)):
        _same(xh.roc_sums_numpy(y, x, p, n), _k.roc_sums(y, x, p, n))
        _same(xh.roc_sums_numpy(-np.abs(y), x, p, n), _k.roc_sums(-np.abs(y), x, p, n))


def test_roc_sums_zero_totals_raise_as_the_kernel():
    tp, fp = np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.0, 1.0])
    for p, n in ((0.0, 1.0), (1.0, 0.0), (-0.0, 1.0)):
        with pytest.raises(ZeroDivisionError):
            _k.roc_sums(tp, fp, p, n)
        with pytest.raises(ZeroDivisionError):
            xh.roc_sums_numpy(tp, fp, p, n)
    _same(xh.roc_sums_numpy(tp[:1], fp[:1], 0.0, 0.0), _k.roc_sums(tp[:1], fp[:1], 0.0, 0.0))


def _interp_cases() -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    xp = np.concatenate(([0.0], np.sort(rng.random(300)), [1.0]))
    fp = np.cumsum(rng.random(xp.size))
    xq = np.sort(np.concatenate((rng.uniform(-0.2, 1.2, 500), xp[::7], xp[::7])))  # hits, ties
    tied_xp = np.round(xp * 20) / 20  # repeated xp (zero-width segments)
    nan_q = xq.copy()
    nan_q[[0, 3, 250, 499]] = np.nan
    nan_fp = fp.copy()
    nan_fp[[10, 11, 200]] = np.nan
    zeros = np.array([-0.0, 0.0, 0.0, 1.0])
    return [
        ("random", xq, xp, fp),
        ("repeated xp", xq, tied_xp, np.cumsum(rng.random(xp.size))),
        ("nan queries", nan_q, xp, fp),
        ("nan values", xq, xp, nan_fp),
        (
            "signed zeros",
            np.array([-0.0, 0.0, -0.0, 0.5, 1.0]),
            zeros,
            np.array([-0.0, 0.0, -0.0, 2.0]),
        ),
        ("queries equal the ends", np.array([0.0, 0.0, 1.0, 1.0]), xp, fp),
        ("all outside", np.array([-5.0, -1.0, 2.0, 9.0]), xp, fp),
        ("two points", np.linspace(-1, 2, 31), np.array([0.0, 1.0]), np.array([3.0, -1.0])),
        ("one point", np.array([-1.0, 0.0, 1.0]), np.array([0.5]), np.array([7.0])),
        ("no queries", np.empty(0), xp, fp),
        ("the model's fractions", np.linspace(0.0, 1.0, 1001), xp, fp),
    ]


@pytest.mark.parametrize("case", _interp_cases(), ids=lambda c: c[0])
def test_interp_sorted_numpy_is_the_kernel(case):
    _, xq, xp, fp = case
    got, want = xh.interp_sorted_numpy(xq, xp, fp), _k.interp_sorted(xq, xp, fp)
    assert got.dtype == want.dtype == np.float64 and got.shape == want.shape
    _same(got, want)


def test_interp_sorted_numpy_is_the_kernel_on_unsorted_queries():
    """The kernel's merge pointer never moves back; the NumPy form's running maximum neither
    (outside the documented input, but the same numbers where the kernel stays in bounds)."""
    rng = np.random.default_rng(3)
    xp = np.concatenate(([0.0], np.sort(rng.random(50)), [1.0]))
    fp = rng.normal(size=xp.size)
    xq = rng.uniform(0.0, 0.999, 200)
    _same(xh.interp_sorted_numpy(xq, xp, fp), _k.interp_sorted(xq, xp, fp))


def test_interp_sorted_numpy_agrees_with_np_interp_to_rounding():
    """An independent reference: ``np.interp`` (whose formula rounds differently)."""
    _, xq, xp, fp = _interp_cases()[0]
    np.testing.assert_allclose(
        xh.interp_sorted_numpy(xq, xp, fp), np.interp(xq, xp, fp), rtol=1e-14
    )


def _gain_lines() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(11)
    out = []
    for name, n, weighted in (("events", 400, False), ("weighted", 300, True), ("two", 2, False)):
        y = (rng.random(n) < 0.4).astype(float)
        y[0] = 1.0
        w = rng.integers(1, 5, n).astype(float) if weighted else None
        ranked = targeting._prepare(y, np.round(rng.normal(size=n), 1), None, w)
        out.append((name, ranked.fraction, ranked.cum_events / ranked.total_events))
    x = np.concatenate(([0.0], np.cumsum(rng.random(200))))
    x /= x[-1]
    out.append(("values", x, np.cumsum(np.concatenate(([0.0], rng.normal(size=200))))))
    g = np.cumsum(np.concatenate(([0.0], rng.random(200))))
    g[[50, 51]] = np.nan
    out.append(("nan gain", x, g))
    out.append(("signed zeros", np.array([0.0, 0.25, 0.5, 1.0]), np.array([0.0, -0.0, 0.0, -0.0])))
    out.append(("one segment", np.array([0.0, 1.0]), np.array([0.0, 1.0])))
    return out


@pytest.mark.parametrize("case", _gain_lines(), ids=lambda c: c[0])
def test_lift_area_numpy_is_the_kernel(case):
    _, x, g = case
    got, want = xh.lift_area_numpy(x, g), _k.lift_area(x, g)
    _same(got, want)
    assert isinstance(got, float)


def test_lift_area_repeated_or_zero_x_raise_as_the_kernel():
    for x in (np.array([0.0, 0.5, 0.5, 1.0]), np.array([0.0, 0.0, 0.5, 1.0])):
        g = np.array([0.0, 0.3, 0.4, 1.0])
        with pytest.raises(ZeroDivisionError):
            _k.lift_area(x, g)
        with pytest.raises(ZeroDivisionError):
            xh.lift_area_numpy(x, g)


def test_lift_area_reference_integral():
    """An independent reference: the integral of g(x)/x by scipy's adaptive quadrature."""
    from scipy.integrate import quad

    x = np.array([0.0, 0.1, 0.35, 0.6, 1.0])
    g = np.array([0.0, 0.3, 0.7, 0.85, 1.0])
    want = sum(
        quad(lambda t, i=i: np.interp(t, x, g) / t, x[i], x[i + 1])[0] for i in range(x.size - 1)
    )
    assert math.isclose(xh.lift_area_numpy(x, g), want, rel_tol=1e-12)


# --------------------------------------------------------------------------------------------
# the public curves with the route forced both ways
# --------------------------------------------------------------------------------------------


def _curves(y: Any, p: Any, w: Any = None) -> list[Any]:
    out = [
        targeting.roc_curve(y, p, sample_weight=w),
        targeting.gain_curve(y, p, sample_weight=w),
        targeting.lift_curve(y, p, sample_weight=w),
        targeting.gain_curve(y, p, events="value", sample_weight=w),
        targeting.lift_curve(y, p, events="value", sample_weight=w),
        targeting.profit_curve(y, p, cost_benefit=[[10.0, 0.0], [-1.0, 0.0]], sample_weight=w),
        targeting.profit_curve(y, p, value_margin=2.0, cost_per_target=0.5, sample_weight=w),
    ]
    return out


def _routes(monkeypatch: pytest.MonkeyPatch, *args: Any) -> tuple[list[Any], list[Any]]:
    got = []
    for cold in (True, False):
        seen: list[int] = []
        monkeypatch.setattr(
            measure_routes, "curve_helper_numpy", lambda m, k, _c=cold, _s=seen: _s.append(m) or _c
        )
        got.append(_curves(*args))
        assert seen  # every curve took the hook
    return got[0], got[1]


def _assert_same_results(cold: list[Any], kern: list[Any]) -> None:
    for a, b in zip(cold, kern):
        da, db = a.to_dict(), b.to_dict()
        assert da.keys() == db.keys()
        for key in da:
            va, vb = da[key], db[key]
            if isinstance(va, (float, np.ndarray)) or (
                isinstance(va, list) and va and isinstance(va[0], float)
            ):
                _same(va, vb)
            else:
                assert va == vb, key
        pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())


@pytest.mark.parametrize("weighted", [False, True])
def test_public_curves_same_numbers_either_route(monkeypatch, weighted):
    rng = np.random.default_rng(5)
    n = 500
    y = np.round(rng.lognormal(size=n), 1)  # value target with ties; events: its top 10 %
    p = np.round(np.log(y + 0.1) + rng.normal(size=n), 1)
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    with np.errstate(all="ignore"):
        cold, kern = _routes(monkeypatch, y, p, w)
    _assert_same_results(cold, kern)
    assert math.isfinite(cold[0].auc) and math.isfinite(cold[2].area)


def test_public_curves_field_containers(monkeypatch, field_containers):
    rng = np.random.default_rng(9)
    n = 300
    y = np.round(rng.lognormal(size=n), 2)
    p = np.round(y * rng.lognormal(0, 0.5, n), 2)
    _, want = _routes(monkeypatch, y, p)
    containers = field_containers(y, p)
    for y_in, p_in in containers:
        cold, kern = _routes(monkeypatch, y_in, p_in)
        _assert_same_results(cold, kern)
        _assert_same_results(cold, want)
    _, read_only = containers[1]
    assert not read_only.flags.writeable and np.array_equal(read_only, p)


def test_route_rule_and_warmup(monkeypatch):
    """The NumPy forms only below POLICY.curve_helpers_numpy_below points and while the kernel
    has no machine code in this process (numba's cache alone does not count: loading it is what
    they save); ``ranklens warmup`` turns them off so that it compiles the kernels."""
    policy = _route.POLICY

    class Compiled:
        signatures = ("sig",)

    class Bare:
        signatures: tuple = ()

    assert measure_routes.curve_helper_numpy(500, lambda: Bare())
    assert not measure_routes.curve_helper_numpy(500, lambda: Compiled())
    assert not measure_routes.curve_helper_numpy(policy.curve_helpers_numpy_below, lambda: Bare())
    before = policy.curve_helpers_numpy_below
    with _route.kernels_at_any_size(_route.Thresholds.FIRST_CALLS):  # as warmup forces them
        assert policy.curve_helpers_numpy_below == 0
        assert not measure_routes.curve_helper_numpy(2, lambda: Bare())
    assert policy.curve_helpers_numpy_below == before == 1 << 15


def test_fresh_process_small_curves_load_none_of_the_helpers(fresh_python):
    """A fresh process: small ROC, gain, lift and profit curves load none of the four kernels,
    even with all four compiled in numba's cache (the warm install) by an earlier process."""
    compile_all = """
        import numpy as np
        from ranklens._compute.kernels import curves as k
        x = np.array([0.0, 0.5, 1.0])
        k.trapezoid(x, x); k.roc_sums(x, x, 1.0, 1.0); k.interp_sorted(x, x, x); k.lift_area(x, x)
        print("[]")
    """
    fresh_python(compile_all)
    body = """
        import json
        import numpy as np
        from ranklens import gain_curve, lift_curve, profit_curve, roc_curve
        rng = np.random.default_rng(0)
        y = np.round(rng.lognormal(size=500), 1)
        p = np.round(y * rng.lognormal(0, 0.5, 500), 1)
        roc_curve(y, p); gain_curve(y, p); lift_curve(y, p)
        gain_curve(y, p, events="value"); lift_curve(y, p, events="value")
        profit_curve(y, p, value_margin=2.0, cost_per_target=0.5)
        from ranklens._compute.kernels import curves as k
        loaded = [f.__name__ for f in (k.trapezoid, k.roc_sums, k.interp_sorted, k.lift_area)
                  if f.signatures]
        print(json.dumps(loaded))
    """
    assert fresh_python(body) == []
