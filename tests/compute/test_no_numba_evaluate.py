"""A small ``ranklens evaluate`` (and ``compare_models``, ``curve_bands``) does not import numba.

The routing rules a small evaluation asks (the bootstrap budget's :func:`routed_as`, the band
grids' ``numpy_route``, the sequence of the ranking curves) are decided in numba-free modules
(:mod:`ranklens._compute.xp.band_routes`, :mod:`ranklens._compute.xp.sequence`): while a kernel
module is not imported, none of its kernels has machine code, and a small call takes the NumPy form
without importing it. A fresh process runs ``ranklens evaluate`` with default options on a 500-row,
3-model CSV written by pandas and must not have imported numba nor any kernel module; its JSON
must equal, value for value, that of another fresh process in which every threshold is 0 (the
kernels forced, as ``ranklens warmup`` forces them). Only the wall time of the bootstrap differs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ranklens._compute.kernels import curve_sweeps as cs
from ranklens._compute.kernels import ranking as _kr
from ranklens._compute.xp import band_routes
from ranklens._compute.xp import sequence as _xs
from ranklens._foundation.route import POLICY
from reference_compare import float_bits

_EVALUATE = """
import json, sys
{force}
from ranklens.__main__ import main
sys.argv = ["ranklens", "evaluate", {csv!r}, "--target", "y", "--pred", "good", "--pred", "fair",
            "--pred", "poor", "--json", {out!r}, "--quiet"]
try:
    main()
except SystemExit as stop:
    assert not stop.code, stop.code
{check}
modules = sorted(
    m for m in sys.modules if m == "numba" or m.startswith("ranklens._compute.kernels.")
)
print(json.dumps({{"modules": modules, "kernels": kernels}}))
"""

_FORCE = """
import contextlib
from ranklens._compute.kernels import curve_sweeps as _kcs
from ranklens._foundation.route import Thresholds, kernels_at_any_size
_forced = contextlib.ExitStack()
_forced.enter_context(kernels_at_any_size(Thresholds.FIRST_CALLS | Thresholds.SORTS))
"""

# In the forced run: the grid kernels and the sequence builder this change routes did run.
_CHECK_FORCED = """
from ranklens._compute.kernels import ranking as _kr
_forced.close()
kernels = sorted(
    k.__name__
    for k in (_kcs.cutoff_auc_grid, _kcs.gain_grid_serial, _kcs.gain_grid_parallel,
              _kcs.targeting_replicates_serial, _kcs.targeting_replicates_parallel,
              _kcs.cutoff_auc_sums, _kr.build_sequence)
    if k.signatures
)
"""

_CHECK_NUMPY = "kernels = []"


def _run(code: str, env: dict[str, str]) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def scores_csv(tmp_path) -> str:
    """500 rows: a lognormal target and three models of different quality (the cold-start
    benchmark's data), written by pandas."""
    rng = np.random.default_rng(0)
    n = 500
    y = rng.lognormal(mean=3.0, sigma=1.0, size=n)
    frame = pd.DataFrame(
        {
            "y": y,
            "good": y * rng.lognormal(0.0, 0.3, n),
            "fair": y * rng.lognormal(0.0, 0.7, n),
            "poor": y.mean() + rng.normal(0.0, y.std(), n),
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return str(path)


def test_small_evaluate_does_not_import_numba_and_equals_the_kernels(tmp_path, scores_csv):
    pytest.importorskip("typer")
    out_numpy, out_kernels = str(tmp_path / "numpy.json"), str(tmp_path / "kernels.json")
    # An empty numba cache: a kernel the NumPy run needed would have to be compiled (it needs
    # none); the forced run uses the usual cache (it compiles what is not there).
    cold = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    numpy_run = _run(
        _EVALUATE.format(force="", csv=scores_csv, out=out_numpy, check=_CHECK_NUMPY), cold
    )
    kernel_run = _run(
        _EVALUATE.format(force=_FORCE, csv=scores_csv, out=out_kernels, check=_CHECK_FORCED),
        dict(os.environ),
    )
    assert numpy_run["modules"] == []  # neither numba nor any kernel module
    assert "numba" in kernel_run["modules"]
    assert {"ranklens._compute.kernels.curve_sweeps", "ranklens._compute.kernels.ranking"} <= set(
        kernel_run["modules"]
    )
    # the forced run did take the kernels of the routes decided here
    assert {"cutoff_auc_grid", "gain_grid_serial", "build_sequence"} <= set(kernel_run["kernels"])
    assert {"targeting_replicates_serial", "targeting_replicates_parallel"} & set(
        kernel_run["kernels"]
    )
    with open(out_numpy) as f:
        numpy_json = json.load(f)
    with open(out_kernels) as f:
        kernel_json = json.load(f)
    for doc in (numpy_json, kernel_json):
        doc["settings"].pop("bootstrap time")  # wall time of the bootstrap, the one difference
        # nothing reduced or skipped to meet the budget (that would depend on the machine's load)
        assert not any("time budget" in key or key.endswith(" bands") for key in doc["settings"])
    assert float_bits(numpy_json) == float_bits(kernel_json)
    # a real evaluation: every model measured, intervals, comparisons, curves with bands
    assert set(numpy_json["models"]) == {"good", "fair", "poor"}
    auc = numpy_json["models"]["good"]["accuracy_ratio"]
    assert 0.9 < auc["value"] < 1.0 and auc["ci_low"] < auc["value"] < auc["ci_high"]
    assert len(numpy_json["comparisons"]) > 10 and numpy_json["curves"]


_BANDS = """
import json, sys
import numpy as np
from ranklens import compare_models, curve_bands
rng = np.random.default_rng(3)
y = np.round(rng.lognormal(size=400), 1)
preds = {{"a": y * rng.lognormal(0, 0.5, 400), "b": np.round(rng.normal(size=400), 1)}}
out = {{}}
for curve in ("cutoff_auc", "gain", "lift"):
    r = curve_bands(y, preds, curve=curve, n_bootstrap=60, random_state=0, show_progress=False)
    out[curve] = np.asarray(r.to_frame().select_dtypes("number")).tolist()
r = compare_models(y, preds, random_state=0, n_bootstrap=200, show_progress=False)
out["compare"] = np.asarray(r.to_frame().select_dtypes("number")).tolist()
{check}
out["modules"] = sorted(
    m for m in sys.modules if m == "numba" or m.startswith("ranklens._compute.kernels.")
)
print(json.dumps(out))
"""


def test_small_bands_and_comparison_do_not_import_numba_and_equal_the_kernels(tmp_path):
    cold = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    numpy_run = _run(_BANDS.format(check=""), cold)
    kernel_run = _run(_FORCE + _BANDS.format(check="_forced.close()"), dict(os.environ))
    assert numpy_run.pop("modules") == []
    assert "ranklens._compute.kernels.curve_sweeps" in kernel_run.pop("modules")
    assert float_bits(numpy_run) == float_bits(kernel_run)
    assert len(numpy_run["gain"]) > 10


def _sequence_cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(8)
    n = 257
    y, p = rng.normal(size=n), rng.normal(size=n)
    zeros = np.where(rng.random(n) < 0.5, 0.0, -0.0)
    return [
        ("continuous", y, p),
        ("ties", np.round(y), np.round(2 * p)),
        ("heavy ties", rng.integers(0, 3, n).astype(float), rng.integers(0, 2, n).astype(float)),
        ("signed zeros", np.where(y > 0, zeros, y), np.where(p > 0, -zeros, 1.0)),
        ("constant prediction", y, np.full(n, -1.0)),
        ("one row", np.array([1.0]), np.array([2.0])),
        ("big tie groups", np.tile(np.arange(5.0), 60), np.repeat(np.arange(3.0), 100)),
    ]


@pytest.mark.parametrize("case", _sequence_cases(), ids=lambda c: c[0])
def test_numpy_sequence_equals_the_kernels(monkeypatch, case):
    """The NumPy sequence, dense ranks and prediction order (run while the kernel module is not
    imported) are the radix kernels' arrays, bit for bit; also from pandas / read-only input."""
    _, y, p = case
    with monkeypatch.context() as m:  # the kernel module imported: its radix kernels
        m.setattr(POLICY, "sort_numpy_below", 0)
        want = _xs.sequence(y, p, need_pred_rank=True, import_kernels=True)
        want_ranks = _xs.dense_ranks(p, import_kernels=True)
        want_shown = _xs.order_by_pred(want[4])
    assert _kr.build_sequence.signatures  # the kernels did run
    monkeypatch.delitem(sys.modules, "ranklens._compute.kernels.ranking")  # as in a fresh process
    assert _xs._numpy_route(p.size)
    read_only = np.array(p)
    read_only.flags.writeable = False
    for y_in, p_in in ((y, p), (pd.Series(y), read_only)):
        got = _xs.sequence(y_in, p_in, need_pred_rank=True)
        for a, b in zip(got[:5], want[:5]):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        assert got[5:] == want[5:]
        ranks = _xs.dense_ranks(p_in)
        assert np.array_equal(ranks[0], want_ranks[0]) and ranks[1] == want_ranks[1]
        assert np.array_equal(_xs.order_by_pred(got[4]), want_shown)
    assert not _xs._numpy_route(POLICY.sort_numpy_below)


def test_sequence_reference():
    """The sequence against its definition: rows by decreasing prediction, ties by decreasing y,
    then by row; dense ranks from 0."""
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 4, 60).astype(float), rng.integers(0, 5, 60).astype(float)
    order, key, pkey, y_rank, pred_rank, n_y, n_p = _xs.sequence_numpy(
        *_xs.dense_ranks_numpy(y), p, need_pred_rank=True
    )
    want = sorted(range(60), key=lambda i: (-p[i], -y[i], i))
    assert order.tolist() == want
    levels_y, levels_p = sorted(set(y)), sorted(set(p))
    assert y_rank.tolist() == [levels_y.index(v) for v in y] and n_y == len(levels_y)
    assert pred_rank.tolist() == [levels_p.index(v) for v in p] and n_p == len(levels_p)
    assert key.tolist() == y_rank[want].tolist() and pkey.tolist() == pred_rank[want].tolist()


def test_band_route_rule(monkeypatch):
    """While the grid kernels' module is not imported: NumPy below
    POLICY.band_grid_unimported_below rows (or the rows of ``routed_as``), decided without
    importing it; otherwise the module is imported and, below POLICY.band_grid_numpy_below rows,
    whether one of the grid's kernels has machine code decides."""
    import ranklens._compute.kernels

    below = POLICY.band_grid_unimported_below
    assert below <= POLICY.band_grid_numpy_below
    asked: list[str] = []
    ready = [False]

    def spy(kernel: Any) -> bool:
        asked.append(kernel.__name__)
        return ready[0]

    monkeypatch.setattr(band_routes, "kernel_ready", spy)
    assert sys.modules["ranklens._compute.kernels.curve_sweeps"] is cs
    # the module imported: below POLICY.band_grid_numpy_below rows the kernels' state decides
    assert band_routes.numpy_route(500, "gain_grid_serial", "gain_grid_parallel")
    assert asked == ["gain_grid_serial", "gain_grid_parallel"]
    ready[0] = True
    assert not band_routes.numpy_route(500, "cutoff_auc_grid")
    assert asked[-1] == "cutoff_auc_grid"
    ready[0] = False
    assert not band_routes.numpy_route(POLICY.band_grid_numpy_below, "cutoff_auc_grid")
    assert len(asked) == 3  # from that size on: the kernels, whatever is compiled

    def as_in_a_fresh_process() -> None:  # (the module and the package's name put back after)
        monkeypatch.delitem(sys.modules, "ranklens._compute.kernels.curve_sweeps")
        monkeypatch.delattr(ranklens._compute.kernels, "curve_sweeps")

    as_in_a_fresh_process()
    assert band_routes.numpy_route(500, "cutoff_auc_grid")
    assert band_routes.numpy_route(below - 1, "cutoff_auc_grid")
    assert band_routes.numpy_route(48, "cutoff_auc_grid")
    # the kernels neither asked nor their module imported
    assert len(asked) == 3 and "ranklens._compute.kernels.curve_sweeps" not in sys.modules
    with band_routes.routed_as(1 << 20):  # a tiny sample compiling for a large run: the kernels
        assert not band_routes.numpy_route(48, "cutoff_auc_grid")
    assert "ranklens._compute.kernels.curve_sweeps" in sys.modules  # imported to run them
    # from that many rows: the module imported, and the kernels' state asked
    as_in_a_fresh_process()
    assert band_routes.numpy_route(below, "cutoff_auc_grid")
    assert asked[-1] == "cutoff_auc_grid" and len(asked) == 4
    assert "ranklens._compute.kernels.curve_sweeps" in sys.modules
