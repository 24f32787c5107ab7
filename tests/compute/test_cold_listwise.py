"""The cold routes of NDCG's DCG and of the weighted median: the kernels' numbers, no compiling.

* NDCG (``ndcg_score``, ``ndcg_by_group`` and its bootstrap sweep) computes the tie-averaged DCG
  in NumPy below ``POLICY.dcg_numpy_below`` rows while ``grouped_ndcg`` is not compiled: the same
  running sums in the same order, so the kernel's numbers bit for bit (a tie block whose stretch
  the kernel sums by Euler-Maclaurin goes to the kernel).
* The weighted median (median absolute error with weights, and its bootstrap sweep) finds its
  two thresholds after one sort below ``POLICY.median_numpy_below`` rows while the selection
  kernel is not compiled: the same elements as the kernel, or the kernel where a cumulative
  weight is within rounding of the target.
"""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

import ranklens
from ranklens import listwise, residual
from ranklens._compute.kernels import listwise as _kl
from ranklens._compute.kernels import residual as _kres
from ranklens._compute.xp import dcg, measure_routes, median
from ranklens._compute.xp import ranked_keys as _kcu
from ranklens._foundation import route as _route
from ranklens._foundation.route import POLICY
from ranklens._foundation.validation import check_sample_weight

# --------------------------------------------------------------------------------------------
# NDCG
# --------------------------------------------------------------------------------------------


def _grouped_args(
    y: np.ndarray,
    p: np.ndarray,
    codes: np.ndarray,
    w: np.ndarray | None,
    exponential: bool,
    k: float,
    n_groups: int | None = None,
) -> tuple[Any, ...]:
    """``grouped_ndcg``'s arguments as ``ndcg_by_group`` forms them (groups may be empty)."""
    n_groups = int(codes.max()) + 1 if n_groups is None else n_groups
    sizes = np.bincount(codes, minlength=n_groups)
    starts = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    order_pred = _kcu.ranked_order(p)[0]
    order_pred = order_pred[np.argsort(codes[order_pred], kind="stable")]
    order_true = _kcu.ranked_order(y)[0]
    order_true = order_true[np.argsort(codes[order_true], kind="stable")]
    weighted = w is not None
    return (
        y[order_pred],
        p[order_pred],
        w[order_pred] if weighted else np.ones(0),
        y[order_true],
        y[order_true],
        w[order_true] if weighted else np.ones(0),
        starts,
        starts,
        weighted,
        exponential,
        k,
    )


def _list_cases() -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
    rng = np.random.default_rng(12)
    n = 90
    y = rng.lognormal(size=n)
    p = y + rng.normal(size=n)
    grades = rng.integers(0, 4, n).astype(float)
    coarse = np.round(p)  # ties within and across groups
    codes = np.sort(rng.integers(0, 30, n))  # groups of 1-3 rows mostly
    codes = np.unique(codes, return_inverse=True)[1]
    one = np.zeros(n, dtype=np.int64)
    uniform = rng.uniform(0.0, 3.0, n) * (rng.random(n) < 0.8)  # real weights, some zero
    counts = rng.integers(0, 4, n).astype(float)  # bootstrap-like multiplicities
    return [
        ("continuous, one list", y, p, one, None),
        ("ties, one list", grades, coarse, one, None),
        ("ties within and across groups", grades, coarse, codes, None),
        ("real weights", y, coarse, codes, uniform),
        ("integer weights", grades, coarse, one, counts),
        ("constant prediction", y, np.full(n, 0.5), codes, None),
        ("constant y", np.full(n, 2.0), p, codes, counts),
        ("no relevant item in some groups", np.where(codes % 3 == 0, 0.0, grades), p, codes, None),
        ("single rows", y[:7], p[:7], np.arange(7), None),
        (
            "two and three rows",
            grades[:10],
            coarse[:10],
            np.repeat([0, 1, 2, 3], [2, 3, 2, 3]),
            counts[:10],
        ),
    ]


@pytest.mark.parametrize("case", _list_cases(), ids=lambda c: c[0])
@pytest.mark.parametrize("gains", ["linear", "exponential"])
@pytest.mark.parametrize("k", [math.inf, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("per_element", [False, True], ids=["as NumPy runs here", "math module"])
def test_grouped_dcg_numpy_form_equals_the_kernel_bit_for_bit(
    case, gains, k, per_element, monkeypatch
):
    """Bit for bit on this machine's NumPy, and with the C library's functions called per
    element (what the NumPy form does where NumPy's SIMD loops round differently, AVX-512)."""
    if per_element:
        monkeypatch.setattr(measure_routes, "libm_ufuncs", lambda: False)
    _, y, p, codes, w = case
    args = _grouped_args(y, p, codes, w, gains == "exponential", k)
    got = dcg.grouped_ndcg_numpy(*args)
    assert got is not None
    want = _kl.grouped_ndcg(*args)
    assert_array_equal(got[0], want[0])
    assert_array_equal(got[1], want[1])


def test_grouped_dcg_empty_groups_score_zero_as_the_kernel():
    """Groups of no row (the public functions never form them) give a DCG and IDCG of 0."""
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 3, 8).astype(float), rng.normal(size=8)
    codes = np.array([1, 1, 2, 4, 4, 4, 5, 6])  # groups 0 and 3 empty, the last one filled
    args = _grouped_args(y, p, codes, None, False, math.inf, n_groups=7)
    got = dcg.grouped_ndcg_numpy(*args)
    want = _kl.grouped_ndcg(*args)
    assert got is not None
    assert_array_equal(got[0], want[0])
    assert_array_equal(got[1], want[1])
    assert got[1][0] == got[1][3] == 0.0


def test_random_lists_numpy_form_equals_the_kernel():
    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(1, 60))
        y = rng.choice([0.0, 1.0, 2.0, 3.5, 0.3], n) if trial % 2 else rng.lognormal(size=n)
        p = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
        w = None
        if trial % 3 == 0:
            w = rng.choice([0.0, 1.0, 2.0, 0.5, 3.0], n)
        elif trial % 3 == 1 and trial % 2:
            w = rng.uniform(0.0, 5.0, n)
        k = math.inf if trial % 5 else float(rng.integers(1, 10))
        codes = np.unique(
            np.sort(rng.integers(0, int(rng.integers(1, 6)), n)), return_inverse=True
        )[1]
        args = _grouped_args(y, p, codes, w, trial % 4 == 1, k)
        got = dcg.grouped_ndcg_numpy(*args)
        want = _kl.grouped_ndcg(*args)
        assert got is not None
        assert_array_equal(got[0], want[0], err_msg=f"trial {trial}")
        assert_array_equal(got[1], want[1], err_msg=f"trial {trial}")


def test_long_tie_stretch_goes_to_the_kernel():
    """A tie block over 258 positions or more is summed by Euler-Maclaurin: the kernel's."""
    rng = np.random.default_rng(4)
    n = 400
    y, p = rng.lognormal(size=n), np.r_[np.full(300, 1.0), rng.normal(size=100)]
    args = _grouped_args(y, p, np.zeros(n, dtype=np.int64), None, False, math.inf)
    assert dcg.grouped_ndcg_numpy(*args) is None
    # a weight spreads one row over a long stretch too
    w = np.ones(n)
    w[5] = 300.0
    args = _grouped_args(y, rng.normal(size=n), np.zeros(n, dtype=np.int64), w, False, math.inf)
    assert dcg.grouped_ndcg_numpy(*args) is None
    # the public function still answers, from the kernel
    with_numpy = _routed(lambda: ranklens.ndcg_score(y, p), numpy=True)
    assert with_numpy == _routed(lambda: ranklens.ndcg_score(y, p), numpy=False)


def _routed(call: Any, numpy: bool) -> Any:
    """``call()`` with the NumPy route forced on or off."""
    saved = measure_routes.dcg_numpy
    measure_routes.dcg_numpy = (lambda n, calls=1: True) if numpy else (lambda n, calls=1: False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()
    finally:
        measure_routes.dcg_numpy = saved


def _field_containers(y: np.ndarray, p: np.ndarray) -> list[tuple[str, Any, Any]]:
    frame = pd.read_csv(io.StringIO(pd.DataFrame({"y": y, "p": p}).to_csv(index=False)))
    y_ro, p_ro = y.copy(), p.copy()
    y_ro.flags.writeable = p_ro.flags.writeable = False
    y_wide, p_wide = np.repeat(y, 2)[::2], np.repeat(p, 2)[::2]  # non-contiguous views
    assert not y_wide.flags.c_contiguous
    return [
        ("ndarray", y, p),
        ("Series from read_csv", frame["y"], frame["p"]),
        ("read-only", y_ro, p_ro),
        ("non-contiguous", y_wide, p_wide),
    ]


@pytest.mark.parametrize("container", range(4))
def test_public_ndcg_routes_agree_on_field_containers(container):
    rng = np.random.default_rng(7)
    n = 200
    y = np.round(rng.lognormal(size=n), 1)
    p = np.round(y + rng.normal(size=n), 1)
    w = rng.integers(0, 3, n).astype(float)
    groups = np.repeat(np.arange(n // 4), 4)
    name, yy, pp = _field_containers(y, p)[container]
    calls = [
        lambda: ranklens.ndcg_score(yy, pp),
        lambda: ranklens.ndcg_score(yy, pp, k=10, gains="exponential"),
        lambda: ranklens.ndcg_score(yy, pp, sample_weight=w),
        lambda: ranklens.ndcg_score(yy, pp, k=5, sample_weight=w),
        lambda: ranklens.ndcg_by_group(yy, pp, groups).scores,
        lambda: ranklens.ndcg_by_group(yy, pp, groups, k=2, sample_weight=w).scores,
        lambda: ranklens.ndcg_by_group(yy, pp, groups, gains="exponential").scores,
    ]
    for call in calls:
        assert_array_equal(_routed(call, True), _routed(call, False), err_msg=name)
    assert ranklens.ndcg_score(yy, pp) == pytest.approx(ranklens.ndcg_score(y, p))


def test_undefined_ndcg_on_the_numpy_route():
    y, p = np.zeros(5), np.arange(5.0)
    with pytest.warns(ranklens.exceptions.UndefinedMetricWarning):
        saved = measure_routes.dcg_numpy
        measure_routes.dcg_numpy = lambda n, calls=1: True
        try:
            assert math.isnan(ranklens.ndcg_score(y, p))
        finally:
            measure_routes.dcg_numpy = saved


@pytest.mark.parametrize("weights", ["multinomial", "real"])
def test_ndcg_bootstrap_sweep_numpy_form_equals_the_kernel(weights):
    rng = np.random.default_rng(9)
    n = 150
    y = np.round(rng.lognormal(size=n), 1)
    preds = np.stack([np.round(y + rng.normal(scale=s, size=n), 1) for s in (0.3, 1.0, 3.0)])
    state = listwise._ndcg_sweep_prepare(y, preds, {})
    if weights == "multinomial":
        w = rng.multinomial(n, np.full(n, 1.0 / n), size=25).astype(float)
    else:
        w = rng.uniform(0.0, 2.0, (25, n)) * (rng.random((25, n)) < 0.7)
    w[3] = 0.0  # a replicate of no weight: NaN on both routes
    got = _routed(lambda: listwise._ndcg_sweep_evaluate(state, w, ["ndcg_score"]), True)
    want = _routed(lambda: listwise._ndcg_sweep_evaluate(state, w, ["ndcg_score"]), False)
    assert np.isnan(got[3]).all()
    assert_array_equal(got, want)


def test_ndcg_route_rule(monkeypatch):
    monkeypatch.setattr(measure_routes, "libm_ufuncs", lambda: True)
    assert measure_routes.dcg_numpy(500) == (not _kl.grouped_ndcg.signatures)
    assert not measure_routes.dcg_numpy(POLICY.dcg_numpy_below)
    # a sweep whose NumPy form would cost more than compiling the kernel takes the kernel
    assert not measure_routes.dcg_numpy(4000, calls=100_000)
    # where NumPy's SIMD loops round differently the NumPy form still serves small lists (the C
    # library's functions per element, at a higher cost per row)
    monkeypatch.setattr(measure_routes, "libm_ufuncs", lambda: False)
    assert measure_routes.dcg_numpy(500) == (not _kl.grouped_ndcg.signatures)
    assert not measure_routes.dcg_numpy(POLICY.dcg_numpy_below)


@pytest.mark.parametrize("name", ["log1p", "expm1", "exp2"])
def test_libm_per_element_equals_the_c_library_with_its_edges(name, monkeypatch):
    """The per-element route: Python's math functions (the C library's), and NumPy's values
    where the C library raises (overflow: inf; log1p at -1: -inf, below: NaN)."""
    monkeypatch.setattr(measure_routes, "libm_ufuncs", lambda: False)
    x = np.array([[0.0, -0.0, 1e-300, 0.5, 3.0], [7.25, -0.75, 40.0, 600.0, 1e-5]])
    got = dcg.libm(name, x)
    assert got.shape == x.shape
    want = np.array([[getattr(math, name)(v) for v in row] for row in x.tolist()])
    assert_array_equal(got, want)
    with np.errstate(all="ignore"):
        edges = np.array([-1.0, -2.0, 1e4, np.inf, -np.inf, np.nan])
        assert_array_equal(dcg.libm(name, edges), getattr(np, name)(edges))


# --------------------------------------------------------------------------------------------
# the weighted median
# --------------------------------------------------------------------------------------------


def _thresholds(values: np.ndarray, w: np.ndarray) -> tuple[tuple[float, float], Any]:
    """The kernel's two thresholds of the weighted median and the NumPy form's."""
    half = float(w.sum()) / 2.0
    tol = 64.0 * np.finfo(np.float64).eps * half
    kernel = (
        float(_kres.weighted_quantile_threshold(values, w, half - tol, False)),
        float(_kres.weighted_quantile_threshold(values, w, half + tol, True)),
    )
    return kernel, median.weighted_thresholds_numpy(values, w, half - tol, half + tol)


def test_weighted_thresholds_numpy_form_equals_the_kernel():
    rng = np.random.default_rng(5)
    decided = 0
    for trial in range(2000):
        n = int(rng.integers(1, 40))
        values = np.abs(np.round(rng.normal(size=n), int(rng.integers(0, 3))))
        if trial % 3 == 0:
            raw = rng.integers(0, 4, n).astype(float)  # ties at exactly half the total
        else:
            raw = rng.uniform(0.0, 3.0, n) * (rng.random(n) < 0.8)
        if not raw.sum() > 0:
            continue
        w = check_sample_weight(raw, n)
        kernel, got = _thresholds(values, w)
        if got is None:
            continue
        decided += 1
        assert got == kernel and np.signbit(got).tolist() == np.signbit(kernel).tolist()
    assert decided > 1900  # the kernel is needed only within rounding of a target


def test_weighted_thresholds_defer_within_rounding_and_for_signed_zeros():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    w = np.array([1.0, 1.0, 1.0, 1.0])
    # a cumulative weight (2) equal to the target: the kernel decides
    assert median.weighted_thresholds_numpy(values, w, 2.0, 2.0) is None
    got = median.weighted_thresholds_numpy(values, w, 2.0 - 1e-9, 2.0 + 1e-9)
    assert got == (2.0, 3.0)
    # the answer is a zero present with both signs: whichever the kernel's pivot is
    signed = np.array([-0.0, 0.0, 0.0, 1.0])
    assert median.weighted_thresholds_numpy(signed, w, 1.5, 1.5 + 1e-9) is None
    assert median.weighted_thresholds_numpy(np.abs(signed), w, 1.5, 1.6) == (0.0, 0.0)


@pytest.mark.parametrize("container", range(4))
def test_weighted_median_error_routes_agree_on_field_containers(monkeypatch, container):
    rng = np.random.default_rng(11)
    n = 301
    y = np.round(rng.lognormal(size=n), 2)
    p = np.round(y + rng.normal(size=n), 2)
    name, yy, pp = _field_containers(y, p)[container]
    weights = (rng.integers(0, 4, n).astype(float), rng.uniform(0.1, 2.0, n), np.ones(n))
    got = {}
    default = POLICY.median_numpy_below
    for below in (default, 0):  # the NumPy form, then the kernel, on the same weights
        monkeypatch.setattr(POLICY, "median_numpy_below", below)
        monkeypatch.setattr(measure_routes, "is_compiled", lambda k: False)
        _fresh_threshold_kernel(monkeypatch)
        got[below] = [ranklens.median_absolute_error(yy, pp, sample_weight=w) for w in weights]
    assert got[default] == got[0], name


def test_weighted_median_sweep_numpy_form_equals_the_kernel(monkeypatch):
    rng = np.random.default_rng(13)
    n = 200
    y = rng.lognormal(size=n)
    preds = np.stack([y + rng.normal(scale=s, size=n) for s in (0.5, 1.0, 2.0)])
    res = residual._median_sweep_prepare(y, preds, {})
    w = rng.multinomial(n, np.full(n, 1.0 / n), size=40).astype(float)
    w[7] = 0.0
    monkeypatch.setattr(measure_routes, "is_compiled", lambda k: False)
    _fresh_threshold_kernel(monkeypatch)
    got = median.weighted_median_replicates(res, w, ["median_absolute_error"])
    monkeypatch.setattr(POLICY, "median_numpy_below", 0)
    want = median.weighted_median_replicates(res, w, ["median_absolute_error"])
    assert_array_equal(got, want)


def _fresh_threshold_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel module's ``weighted_quantile_threshold`` reporting no signatures (as in a
    fresh process), still callable: what ``residual`` finds when it imports the module."""
    kernel = _kres.weighted_quantile_threshold

    class _Fresh:
        def __init__(self) -> None:
            self.signatures: list[Any] = []

        def __call__(self, *args: Any) -> Any:
            return kernel(*args)

    monkeypatch.setattr(_kres, "weighted_quantile_threshold", _Fresh())


def test_weighted_median_route_rule(monkeypatch):
    monkeypatch.setattr(measure_routes, "is_compiled", lambda k: False)
    _fresh_threshold_kernel(monkeypatch)
    assert measure_routes.median_numpy(500)
    assert not measure_routes.median_numpy(POLICY.median_numpy_below)
    monkeypatch.setattr(measure_routes, "is_compiled", lambda k: True)  # in numba's cache: load it
    assert not measure_routes.median_numpy(500)


# --------------------------------------------------------------------------------------------
# warmup still compiles the kernels; a fresh small run does not
# --------------------------------------------------------------------------------------------


def test_warmup_compiles_the_dcg_and_selection_kernels():
    before = POLICY.dcg_numpy_below, POLICY.median_numpy_below
    with _route.kernels_at_any_size(_route.Thresholds.FIRST_CALLS):  # as warmup forces them
        assert POLICY.dcg_numpy_below == POLICY.median_numpy_below == 0
        assert not measure_routes.dcg_numpy(120) and not measure_routes.median_numpy(120)
    assert (POLICY.dcg_numpy_below, POLICY.median_numpy_below) == before == (1 << 12, 1 << 12)


_FRESH = """
import json
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, e): pass
    def on_end(self, e): compiled.append(e.data["dispatcher"].py_func.__qualname__)
event.register("numba:compile", Listener())
import numpy as np
import ranklens
rng = np.random.default_rng(0)
n = 300
y = rng.lognormal(size=n)
p = np.log(y) + rng.normal(size=n)
q = np.log(y) + rng.normal(scale=1.5, size=n)
w = rng.integers(0, 3, n).astype(float)
out = [
    ranklens.ndcg_score(y, p),
    ranklens.ndcg_score(y, q, k=20, sample_weight=w),
    float(ranklens.ndcg_by_group(y, p, np.repeat(np.arange(n // 3), 3)).mean),
    ranklens.median_absolute_error(y, p, sample_weight=w),
]
c = ranklens.compare_models(
    y, {"a": p, "b": q}, metrics=["ndcg_score", "median_absolute_error"], random_state=0,
    show_progress=False,
)
out.append(repr(c))
print(json.dumps({"compiled": compiled, "out": out}))
"""

_MINE = {"grouped_ndcg", "tie_averaged_dcg_from", "weighted_quantile_threshold"}


def test_a_small_first_run_compiles_neither_the_dcg_nor_the_selection_kernel(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_FRESH)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert not set(got["compiled"]) & _MINE, got["compiled"]
    rng = np.random.default_rng(0)
    n = 300
    y = rng.lognormal(size=n)
    p = np.log(y) + rng.normal(size=n)
    q = np.log(y) + rng.normal(scale=1.5, size=n)
    w = rng.integers(0, 3, n).astype(float)
    # the same numbers as this process, where the kernels may have run
    assert got["out"][0] == ranklens.ndcg_score(y, p)
    assert got["out"][1] == ranklens.ndcg_score(y, q, k=20, sample_weight=w)
    assert got["out"][3] == ranklens.median_absolute_error(y, p, sample_weight=w)
