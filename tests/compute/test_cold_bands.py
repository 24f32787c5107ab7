"""The NumPy forms of the curve-band grid kernels: the kernels' numbers bit for bit.

A small first call (``curve_bands``, the bootstrap of the targeting measures, a cold ``ranklens
evaluate``) runs ``cutoff_auc_grid_numpy``, ``gain_grid_numpy`` and ``targeting_replicates_numpy``
(:mod:`ranklens._compute.xp.curves`) while the kernels of
:mod:`ranklens._compute.kernels.curve_sweeps` have no machine code in the process (below
``POLICY.band_grid_numpy_below`` rows). Each test runs the NumPy form and the forced kernel on the
same prepared state and weight rows and asserts equal arrays (NaN where NaN, every bit elsewhere).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ranklens import ranking, targeting
from ranklens._compute.kernels import curve_sweeps as cs
from ranklens._compute.xp import band_routes
from ranklens._compute.xp import curves as xpc
from ranklens._foundation import route as _route

_GRID = np.round(np.arange(1, 101) / 100.0, 2)
_CODES = np.array([0, 1, 2, 3, 4, 4, 4], dtype=np.int64)
_DEPTHS = np.array([np.nan, np.nan, np.nan, np.nan, 0.05, 0.1, 0.2])


def _same(a: np.ndarray, b: np.ndarray) -> None:
    np.testing.assert_array_equal(a, b)
    # equal arrays may still differ in the sign of a zero: compare the bits where not NaN
    fin = ~np.isnan(a)
    assert np.array_equal(np.signbit(a[fin]), np.signbit(b[fin]))


def _weight_rows(n: int, rng: np.random.Generator, kind: str) -> np.ndarray:
    """Replicate rows: multiplicities (with zeros), times case weights of ``kind``; plus an
    all-zero row and a row keeping one data row (per-replicate undefined cases)."""
    rows = (
        rng.multinomial(n, np.full(n, 1.0 / n), size=24).astype(np.float64)
        if n
        else (np.zeros((24, 0)))
    )
    if kind == "integer":
        rows = rows * rng.integers(0, 4, n)
    elif kind == "fractional":
        rows = rows * rng.uniform(0.01, 3.0, n) * np.where(rng.random(n) < 0.2, 0.0, 1.0)
    elif kind == "tiny and huge":
        rows = rows * np.where(rng.random(n) < 0.5, 1e-17, 1e3)
    extra = np.zeros((2, n))
    if n:
        extra[1, rng.integers(0, n)] = 2.5
    return np.vstack([rows, extra])


def _cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    n = 157
    y = rng.lognormal(size=n)
    p = y * rng.lognormal(0.0, 0.6, n)
    zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    return [
        ("continuous", y, p),
        ("ties", np.round(y), np.round(p)),
        ("heavy ties", rng.integers(0, 3, n).astype(float), rng.integers(0, 2, n).astype(float)),
        ("binary y", (y > np.median(y)).astype(float), p),
        ("signed zeros", np.where(y > 1, zeros, y), np.where(p > 1, -zeros, p)),
        ("constant y", np.full(n, 2.0), p),
        ("constant prediction", y, np.full(n, -1.0)),
        ("one row", y[:1], p[:1]),
        ("two rows", np.array([1.0, 2.0]), np.array([2.0, 1.0])),
        ("three rows", np.array([1.0, 2.0, 2.0]), np.array([0.0, 5.0, 5.0])),
    ]


_KINDS = ("multiplicity", "integer", "fractional", "tiny and huge")


def _targeting_args(y: np.ndarray, preds: np.ndarray, w: np.ndarray, events: Any = None) -> tuple:
    params = {} if events is None else {"events": events}
    st = targeting._sweep_prepare(y, preds, params)
    return (
        np.ascontiguousarray(w),
        st.y_order,
        st.y_group_sorted,
        st.nonbinary,
        st.top,
        st.orders,
        st.y_by_pred,
        st.group_by_pred,
        st.new_group,
    )


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_targeting_replicates_numpy_equals_the_kernel(case, kind):
    _name, y, p = case
    rng = np.random.default_rng(3)
    w = _weight_rows(y.size, rng, kind)
    preds = np.stack([p, -p, np.round(p, 1)])
    args = _targeting_args(y, preds, w)
    with np.errstate(all="ignore"):
        ours = xpc.targeting_replicates_numpy(*args, _CODES, _DEPTHS)
        kernel = cs.targeting_replicates_serial(*args, _CODES, _DEPTHS)
    _same(ours, kernel)


@pytest.mark.parametrize("events", ["top:0.3", 1.5])
def test_targeting_replicates_numpy_other_events(events):
    rng = np.random.default_rng(11)
    y = np.round(rng.lognormal(size=90), 1)
    preds = np.stack([y + rng.normal(size=90), rng.normal(size=90)])
    args = _targeting_args(y, preds, _weight_rows(90, rng, "fractional"), events)
    _same(
        xpc.targeting_replicates_numpy(*args, _CODES, _DEPTHS),
        cs.targeting_replicates_serial(*args, _CODES, _DEPTHS),
    )


@pytest.mark.parametrize("lift", [False, True])
@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_gain_grid_numpy_equals_the_kernel(case, kind, lift):
    _name, y, p = case
    w = _weight_rows(y.size, np.random.default_rng(5), kind)
    args = _targeting_args(y, p[None, :], w)
    with np.errstate(all="ignore"):
        ours = xpc.gain_grid_numpy(*args, _GRID, lift)
        kernel = cs.gain_grid_serial(*args, _GRID, lift)
    _same(ours, kernel)


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_cutoff_auc_grid_numpy_equals_the_kernel(case, kind):
    _name, y, p = case
    w = _weight_rows(y.size, np.random.default_rng(9), kind)
    order, key, pkey, n_y = ranking._sequence_state(y, p)
    grid = _GRID[:-1]
    ours = xpc.cutoff_auc_grid_numpy(w, order, key, pkey, n_y, grid)
    kernel = cs.cutoff_auc_grid(w, order, key, pkey, n_y, grid)
    _same(ours, kernel)


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_cutoff_auc_sums_numpy_equals_the_kernel(case, kind):
    """The sums behind ``cutoff_auc_curve`` (its estimate on a small first call)."""
    from ranklens._compute.kernels import ranking as _kr

    _name, y, p = case
    w = _weight_rows(y.size, np.random.default_rng(13), kind)[0]
    order, key, pkey, n_y = ranking._sequence_state(y, p)
    for ours, kernel in zip(
        xpc.cutoff_auc_sums_numpy(key, pkey, n_y, w[order]),
        _kr.cutoff_auc_sums(key, pkey, n_y, np.ascontiguousarray(w[order])),
    ):
        _same(ours, kernel)


@pytest.mark.parametrize("weighted", [False, True])
def test_cutoff_auc_curve_routes_equal(monkeypatch, weighted):
    rng = np.random.default_rng(8)
    y, p = np.round(rng.lognormal(size=70), 1), np.round(rng.normal(size=70), 1)
    sw = rng.uniform(0.0, 2.0, 70) if weighted else None

    def call():
        return ranking.cutoff_auc_curve(y, p, sample_weight=sw)

    cold, kernel = _routes(monkeypatch, call)
    for field in ("n_positive", "fraction_positive", "auc", "pair_weight", "x_edges"):
        _same(getattr(cold, field), getattr(kernel, field))
    assert cold.area == kernel.area


def test_empty_data_and_empty_rows():
    """n = 0 and no replicate row: the shapes of the kernels, all NaN. (The cutoff AUC kernel
    cannot take n = 0, ``n_y - 1`` cuts; the functions refuse fewer than two rows before it, and
    its NumPy form gives NaN rows.)"""
    grid = _GRID[:-1]
    e_i = np.empty(0, np.int64)
    assert np.isnan(xpc.cutoff_auc_grid_numpy(np.zeros((3, 0)), e_i, e_i, e_i, 0, grid)).all()
    order, key, pkey, n_y = ranking._sequence_state(np.array([1.0, 2.0]), np.array([0.0, 1.0]))
    w0 = np.zeros((0, 2))
    _same(
        xpc.cutoff_auc_grid_numpy(w0, order, key, pkey, n_y, grid),
        cs.cutoff_auc_grid(w0, order, key, pkey, n_y, grid),
    )
    for rows in (0, 3):
        w = np.zeros((rows, 0))
        args = (w, e_i, e_i, np.zeros(0, bool), 0.1, np.zeros((1, 0), np.int64))
        rest = (np.zeros((1, 0)), np.zeros((1, 0), np.int64), np.zeros((1, 0), bool))
        _same(
            xpc.targeting_replicates_numpy(*args, *rest, _CODES, _DEPTHS),
            cs.targeting_replicates_serial(*args, *rest, _CODES, _DEPTHS),
        )
        _same(
            xpc.gain_grid_numpy(*args, *rest, _GRID, False),
            cs.gain_grid_serial(*args, *rest, _GRID, False),
        )


def test_numpy_forms_in_blocks_of_rows(monkeypatch):
    """More cells than one pass holds: the forms run blocks of rows, the same numbers."""
    monkeypatch.setattr(xpc, "_NUMPY_CELLS", 200)
    rng = np.random.default_rng(2)
    y, p = rng.normal(size=60), rng.normal(size=60)
    w = _weight_rows(60, rng, "fractional")
    order, key, pkey, n_y = ranking._sequence_state(y, p)
    _same(
        xpc.cutoff_auc_grid_numpy(w, order, key, pkey, n_y, _GRID),
        cs.cutoff_auc_grid(w, order, key, pkey, n_y, _GRID),
    )
    args = _targeting_args(y, np.stack([p, y]), w)
    _same(
        xpc.targeting_replicates_numpy(*args, _CODES, _DEPTHS),
        cs.targeting_replicates_serial(*args, _CODES, _DEPTHS),
    )
    _same(xpc.gain_grid_numpy(*args, _GRID, True), cs.gain_grid_serial(*args, _GRID, True))


def _routes(monkeypatch: pytest.MonkeyPatch, call: Any) -> tuple[Any, Any]:
    """``call()`` with the NumPy forms (threshold high, kernels deemed not compiled) and with the
    kernels forced (threshold 0)."""
    monkeypatch.setattr(band_routes, "numpy_route", lambda n, *k: True)
    cold = call()
    monkeypatch.setattr(band_routes, "numpy_route", lambda n, *k: False)
    return cold, call()


@pytest.mark.parametrize("curve", ["cutoff_auc", "gain", "lift"])
def test_curve_bands_field_containers(monkeypatch, curve):
    """``curve_bands`` from a CSV's Series, read-only and strided arrays: both routes equal."""
    from ranklens import curve_bands

    rng = np.random.default_rng(4)
    n = 80
    y = np.round(rng.lognormal(size=n), 2)
    a, b = y * rng.lognormal(0, 0.5, n), rng.normal(size=n)
    frame = pd.read_csv(io.StringIO(pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(index=False)))
    wide = np.empty(2 * n)
    wide[::2] = y
    ro = a.copy()
    ro.flags.writeable = False
    inputs = [
        (frame["y"], {"a": frame["a"], "b": frame["b"]}, None),
        (wide[::2], {"a": ro, "b": b}, None),
        (y, {"a": a, "b": b}, rng.integers(1, 4, n).astype(float)),
    ]
    for yy, preds, sw in inputs:

        def call(yy=yy, preds=preds, sw=sw):
            return curve_bands(
                yy, preds, curve=curve, n_bootstrap=40, random_state=1, sample_weight=sw
            )

        cold, kernel = _routes(monkeypatch, call)
        _same(cold.replicates, kernel.replicates)
        _same(cold.lower, kernel.lower)
        _same(cold.prob_a_beats_b, kernel.prob_a_beats_b)


def test_compare_models_targeting_routes_equal(monkeypatch):
    from ranklens import compare_models

    rng = np.random.default_rng(6)
    y = rng.lognormal(size=120)
    preds = {"a": y * rng.lognormal(0, 0.4, 120), "b": rng.normal(size=120)}
    metrics = ["roc_auc", "ks_statistic", "gain_area", "accuracy_ratio", "lift_at_10"]

    def call():
        return compare_models(y, preds, metrics=metrics, n_bootstrap=60, random_state=0)

    cold, kernel = _routes(monkeypatch, call)
    pd.testing.assert_frame_equal(cold.to_frame(), kernel.to_frame())


def test_route_rule_and_warmup(monkeypatch):
    """The NumPy forms stand in only below POLICY.band_grid_numpy_below rows and while the
    kernels have no machine code, in the process or in numba's cache; ``ranklens warmup`` turns
    the route off so that it compiles them."""
    policy = _route.POLICY

    class Compiled:
        signatures = ("sig",)

    class Bare:
        signatures: tuple = ()

    # kernels of the grid module (imported), by name as the callers name them
    monkeypatch.setattr(cs, "bare_kernel", Bare(), raising=False)
    monkeypatch.setattr(cs, "other_bare_kernel", Bare(), raising=False)
    monkeypatch.setattr(cs, "compiled_kernel", Compiled(), raising=False)
    assert band_routes.numpy_route(500, "bare_kernel", "other_bare_kernel")
    assert not band_routes.numpy_route(policy.band_grid_numpy_below, "bare_kernel")
    assert not band_routes.numpy_route(500, "bare_kernel", "compiled_kernel")
    with monkeypatch.context() as m:  # in numba's cache (a warm install): load the kernels
        m.setattr(band_routes, "kernel_ready", lambda k: True)
        assert not band_routes.numpy_route(500, "bare_kernel", "other_bare_kernel")
    with band_routes.routed_as(1 << 20):  # a tiny sample compiling for a large run: the kernels
        assert not band_routes.numpy_route(500, "bare_kernel")
    assert band_routes.numpy_route(500, "bare_kernel")
    before = policy.band_grid_numpy_below
    with _route.kernels_at_any_size(_route.Thresholds.FIRST_CALLS):  # as warmup forces them
        assert policy.band_grid_numpy_below == 0
        assert not band_routes.numpy_route(10, "bare_kernel")
    assert policy.band_grid_numpy_below == before == 1 << 12


_FRESH = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import numba.core.event as ev
    compiled = []
    class L(ev.Listener):
        def on_start(self, event):
            pass
        def on_end(self, event):
            compiled.append(event.data["dispatcher"].py_func.__name__)
    ev.register("numba:compile", L())
    from ranklens import compare_models, curve_bands
    from ranklens._compute.kernels import curve_sweeps as cs
    rng = np.random.default_rng(0)
    y = rng.lognormal(size=300)
    preds = {"a": y * rng.lognormal(0, 0.5, 300), "b": rng.normal(size=300)}
    for curve in ("cutoff_auc", "gain", "lift"):
        curve_bands(y, preds, curve=curve, n_bootstrap=50, random_state=0, show_progress=False)
    compare_models(y, preds, metrics=["roc_auc", "gain_area", "lift_at_10"], n_bootstrap=50,
                   random_state=0, show_progress=False)
    grids = [k.__name__ for k in (cs.cutoff_auc_grid, cs.gain_grid_serial, cs.gain_grid_parallel,
             cs.targeting_replicates_serial, cs.targeting_replicates_parallel) if k.signatures]
    print(json.dumps({"grids": grids, "compiled": compiled}))
    """
)


def test_fresh_process_small_bands_compile_no_grid_kernel(tmp_path):
    """A fresh process with an empty numba cache: small curve bands and a targeting bootstrap
    compile none of the band-grid kernels."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", _FRESH], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["grids"] == []
    grid_kernels = {
        "cutoff_auc_grid",
        "_cutoff_auc_row",
        "gain_grid_serial",
        "_gain_grid_rows",
        "targeting_replicates_serial",
        "_targeting_rows",
        "cutoff_auc_sums",
    }
    assert not grid_kernels & set(out["compiled"])


@pytest.mark.parametrize("n", [300, 5000])
def test_budget_compiles_the_grids_of_the_real_run(monkeypatch, n):
    """The bootstrap budget's tiny sample (48 rows) takes the grid route of the real n: below
    POLICY.band_grid_numpy_below the NumPy forms, as the real run will; above it the kernels, so
    that the timed real replicates do not compile them."""
    from ranklens._engines import budget as _budget
    from ranklens.metrics import get_metric

    seen: list[bool] = []
    real = band_routes.numpy_route

    def spy(rows: int, *kernels: str) -> bool:
        with monkeypatch.context() as m:  # the rule as if none of the kernels were compiled
            m.setattr(band_routes, "kernel_ready", lambda k: False)
            seen.append(real(rows, *kernels))
        return False

    monkeypatch.setattr(band_routes, "numpy_route", spy)
    rng = np.random.default_rng(0)
    y = rng.lognormal(size=n)
    preds = {"a": y * rng.lognormal(0, 0.5, n), "b": rng.normal(size=n)}
    specs = [get_metric("roc_auc"), get_metric("lift_at_10")]
    _budget._compile(y, preds, specs, None, ["cutoff_auc", "gain"], {}, "percentile")
    assert len(seen) >= 3  # the targeting sweep, the cutoff AUC and the gain grids
    assert all(seen) if n < _route.POLICY.band_grid_numpy_below else not any(seen)


def test_cutoff_auc_grid_absorbed_weights():
    """A y value whose weight vanishes in the running sum (1e-13 beside 1e3): its cut repeats the
    positive weight of the cut before it while its Mann-Whitney sum moves; the kernel keeps the
    first of the two, and so does the NumPy form."""
    rng = np.random.default_rng(12)
    n = 40
    y, p = rng.normal(size=n), rng.normal(size=n)
    w = np.where(rng.random((30, n)) < 0.5, 1e-13, 1e3) * rng.integers(0, 3, (30, n))
    order, key, pkey, n_y = ranking._sequence_state(y, p)
    grid = np.linspace(0.0, 1.0, 257)
    _same(
        xpc.cutoff_auc_grid_numpy(w, order, key, pkey, n_y, grid),
        cs.cutoff_auc_grid(w, order, key, pkey, n_y, grid),
    )


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.999])
def test_pointwise_band_without_nan_equals_nanquantile(level):
    """The pointwise band takes np.quantile when no replicate is NaN: np.nanquantile's numbers."""
    from ranklens import bands

    rng = np.random.default_rng(1)
    for reps in (rng.normal(size=(1000, 3, 99)), np.round(rng.normal(size=(37, 2, 5)), 1)):
        alpha = 1.0 - level
        want = np.nanquantile(reps, [alpha / 2, 1 - alpha / 2], axis=0)
        got = bands._pointwise(reps, level)
        _same(got[0], want[0])
        _same(got[1], want[1])
        holed = reps.copy()
        holed[::3, 0] = np.nan
        want = np.nanquantile(holed, [alpha / 2, 1 - alpha / 2], axis=0)
        got = bands._pointwise(holed, level)
        _same(got[0], want[0])
        _same(got[1], want[1])
