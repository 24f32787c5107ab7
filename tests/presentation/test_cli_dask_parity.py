"""``ranklens evaluate --engine dask`` honours every option of the memory engine, or refuses it.

Each option the CLI passes to the Dask engine gives the memory engine's JSON numbers on the same
data (four Parquet files written by pandas against their concatenation; counts exactly, floats
to 1e-12); the analytic intervals (DeLong's of the AUC, Noether's of Kendall's tau) appear in
the JSON and the report where the memory engine puts them, with their method; the Poisson
bootstrap runs with ``--bootstrap N`` and ``--seed``; every option the Dask engine cannot honour
is refused with exit status 2 and one line; ``--drop-na`` drops and counts as in memory.
"""

from __future__ import annotations

import json
import math
import types

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pytest.importorskip("pyarrow")
pytest.importorskip("typer")

from typer.testing import CliRunner  # noqa: E402

import ranklens.dask as rd  # noqa: E402
from ranklens.cli import app  # noqa: E402

TOL = 1e-12
MODELS = ("a", "b")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A lognormal target with ties, two models, weights; one file and the same rows in four."""
    root = tmp_path_factory.mktemp("parity")
    rng = np.random.default_rng(11)
    n = 1200
    y = np.exp(rng.normal(size=n)).round(1)
    df = pd.DataFrame(
        {
            "y": y,
            "a": (np.log1p(y) + rng.normal(size=n)).round(2),
            "b": (np.log1p(y) + 1.5 * rng.normal(size=n)).round(1),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )
    df.to_parquet(root / "all.parquet")
    (root / "parts").mkdir()
    for i in range(4):
        df.iloc[i * 300 : (i + 1) * 300].to_parquet(root / "parts" / f"p{i}.parquet")
    return root, df


def _run(args, tmp_path, name, client=None, expect=(0,)):
    out_path = tmp_path / f"{name}.json"
    extra = ["--engine", "dask", "--scheduler", client.scheduler.address] if client else []
    result = CliRunner().invoke(
        app, ["evaluate", *args, "-q", "--json", str(out_path), *extra], catch_exceptions=False
    )
    assert result.exit_code in expect, result.output
    return json.loads(out_path.read_text()), result


def _pair(client, data, tmp_path, options, memory_options=("--bootstrap", "0")):
    root, _ = data
    common = ["--target", "y", "--pred", "a", "--pred", "b", *options]
    got, _ = _run([str(root / "parts" / "*.parquet"), *common], tmp_path, "dask", client)
    # the memory engine builds every curve: it takes no --curve-arrays
    common = [o for o in common if o != "--curve-arrays"]
    want, _ = _run(
        [str(root / "all.parquet"), *common, *memory_options], tmp_path, "memory", expect=(0, 1)
    )
    return got, want


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b  # counts exactly
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL * max(1.0, abs(b))


def _same_values(got, want, names=None) -> int:
    """Every measure the Dask engine computed equals the memory engine's (value and status)."""
    compared = 0
    for model in MODELS:
        for name, entry in got["models"][model].items():
            if entry["status"] == "skipped" or (names is not None and name not in names):
                continue
            ref = want["models"][model][name]
            assert entry["status"] == ref["status"], (model, name, entry, ref)
            assert _close(entry["value"], ref["value"]), (model, name, entry, ref)
            compared += 1
    return compared


def _same_summary(got: dict, want: dict, keys) -> None:
    for key in keys:
        assert _close(got[key], want[key]), (key, got[key], want[key])


# --------------------------------------------------------------------------------------------
# the profit curve's options


def test_cost_benefit_budget_same_profit_curve(client, data, tmp_path):
    options = ["--cost-benefit", "4,0,-5,0", "--budget", "150", "--cost-per-target", "1"]
    got, want = _pair(client, data, tmp_path, [*options, "--curve-arrays"])
    assert "profit" in got["curves"]
    for model in MODELS:
        g, w = got["curves"]["profit"][model], want["curves"]["profit"][model]
        numbers = [
            k for k, v in w.items() if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        assert numbers, w
        _same_summary(g, w, numbers)
    for key in ("cost_benefit", "budget", "cost_per_target"):
        assert got["settings"][key] == want["settings"][key], key
    assert _same_values(got, want) >= 2 * 17


def test_value_margin_same_profit_curve(client, data, tmp_path):
    options = ["--value-margin", "2.5", "--cost-per-target", "1", "--budget", "200"]
    root, _ = data
    common = ["--target", "y", "--pred", "a", "--pred", "b", *options]
    got, _ = _run(
        [str(root / "parts" / "*.parquet"), *common, "--curve-arrays"], tmp_path, "dask", client
    )
    want, _ = _run(
        [str(root / "all.parquet"), *common, "--bootstrap", "0"], tmp_path, "mem", expect=(0, 1)
    )
    for model in MODELS:
        g, w = got["curves"]["profit"][model], want["curves"]["profit"][model]
        numbers = [
            k for k, v in w.items() if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        assert numbers, w
        _same_summary(g, w, numbers)
    for key in ("value_margin", "budget", "cost_per_target"):
        assert got["settings"][key] == want["settings"][key], key


# --------------------------------------------------------------------------------------------
# relevance


RELEVANCE_MEASURES = {
    "sera",
    "relevance_weighted_squared_error",
    "relevance_weighted_absolute_error",
    "utility_precision",
    "utility_recall",
    "utility_f1",
}


@pytest.mark.parametrize(
    "spec", ["sigmoid:high=4,k=0.8", "points:0:0,2:0.2,6:1", "high", "pchip:high", "both"]
)
def test_relevance_same_measures(client, data, tmp_path, spec):
    got, want = _pair(client, data, tmp_path, ["--relevance", spec])
    assert _same_values(got, want, RELEVANCE_MEASURES) >= 2 * 3
    assert _same_values(got, want) >= 2 * 17


def test_relevance_auto_with_weights_is_the_unweighted_box_plot(client, data, tmp_path):
    got, want = _pair(client, data, tmp_path, ["--relevance", "auto", "--weight", "w"])
    assert _same_values(got, want, RELEVANCE_MEASURES) >= 2 * 3


# --------------------------------------------------------------------------------------------
# intervals


def _interval(doc, model, name):
    entry = doc["models"][model][name]
    return entry["ci_low"], entry["ci_high"], entry["interval_method"]


def test_analytic_intervals_by_default_where_memory_puts_them(client, data, tmp_path):
    root, _ = data
    # memory: its analytic intervals come with the comparison (any bootstrap size)
    got, want = _pair(client, data, tmp_path, [], ["--bootstrap", "2"])
    for model in MODELS:
        for name, method in (("roc_auc", "delong-logit"), ("kendall_tau", "fisher-z")):
            low, high, used = _interval(got, model, name)
            ref_low, ref_high, ref_used = _interval(want, model, name)
            assert used == ref_used == method
            assert _close(low, ref_low) and _close(high, ref_high), (name, low, ref_low)
            assert low < got["models"][model][name]["value"] < high
        # without replicates, nothing else has an interval
        assert _interval(got, model, "root_mean_squared_error") == (None, None, None)
    assert got["comparison"]["n_bootstrap"] == 0
    # the same sentence for the analytic intervals (memory's goes on with its 2 resamples)
    assert want["settings"]["intervals"].startswith(got["settings"]["intervals"])
    assert got["settings"]["intervals"].startswith("DeLong on the logit scale")
    assert "Fisher's z (Fieller, Hartley & Pearson 1957" in got["settings"]["intervals"]
    assert "not resampled" in got["settings"]["paired tests"]
    tested = {(r["measure"], r["test_method"]) for r in got["comparisons"]}
    # DeLong's paired tests of the AUC, Harrell's C and Somers' D, as in memory
    want_tested = {(r["measure"], r["test_method"]) for r in want["comparisons"]}
    for name in ("roc_auc", "tau_normalized", "somers_d"):
        assert (name, "delong") in tested and (name, "delong") in want_tested, name
        low, high, used = _interval(got, "a", name)
        ref_low, ref_high, ref_used = _interval(want, "a", name)
        assert used == ref_used == "delong-logit"
        assert _close(low, ref_low) and _close(high, ref_high), (name, low, ref_low)
    pairs = {(r["measure"], r["model_a"], r["model_b"]): r for r in got["comparisons"]}
    for ref in want["comparisons"]:
        if ref["test_method"] == "delong":
            row = pairs[(ref["measure"], ref["model_a"], ref["model_b"])]
            for key in ("difference", "difference_sd", "z", "p_value", "ci_low", "ci_high"):
                assert _close(row[key], ref[key]), (ref["measure"], key, row[key], ref[key])
    # the report names the methods
    html = tmp_path / "r.html"
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(root / "parts" / "*.parquet"),
            "--target",
            "y",
            "--pred",
            "a",
            "--pred",
            "b",
            "-q",
            "--html",
            str(html),
            "--engine",
            "dask",
            "--scheduler",
            client.scheduler.address,
        ],
    )
    assert result.exit_code == 0, result.output
    text = html.read_text()
    assert "DeLong" in text and "Fisher" in text


def test_weighted_delong_equals_memory(client, data, tmp_path):
    got, want = _pair(client, data, tmp_path, ["--weight", "w"], ["--bootstrap", "2"])
    for model in MODELS:
        low, high, used = _interval(got, model, "roc_auc")
        ref_low, ref_high, ref_used = _interval(want, model, "roc_auc")
        assert used == ref_used == "delong-logit"
        assert _close(low, ref_low) and _close(high, ref_high)
        # Noether's variance is unweighted: no analytic interval with weights, as in memory
        assert _interval(got, model, "kendall_tau")[2] != "fisher-z"


def test_bootstrap_and_seed_run_the_poisson_bootstrap(client, data, tmp_path):
    root, df = data
    args = [str(root / "parts" / "*.parquet"), "--target", "y", "--pred", "a", "--pred", "b"]
    got, _ = _run(
        [*args, "--bootstrap", "25", "--seed", "7", "--include-replicates"], tmp_path, "b7", client
    )
    direct = rd.evaluate(
        dd.from_pandas(df, npartitions=3),
        y_true="y",
        predictions=list(MODELS),
        n_bootstrap=25,
        random_state=7,
    )
    intervals = direct.extras["bootstrap"]["intervals"]
    for model in MODELS:
        low, high, used = _interval(got, model, "root_mean_squared_error")
        assert used == "bootstrap-percentile"
        want_low, want_high = intervals[model]["root_mean_squared_error"]
        assert _close(low, want_low) and _close(high, want_high)
        # the analytic ones stay with --inference auto
        assert _interval(got, model, "roc_auc")[2] == "delong-logit"
        assert _interval(got, model, "kendall_tau")[2] == "fisher-z"
    assert got["comparison"]["n_bootstrap"] == 25
    assert got["settings"]["random_state"] == 7
    reps = got["replicates"]
    assert len(reps["values"]) == 25 and reps["models"] == list(MODELS)
    k = reps["measures"].index("root_mean_squared_error")
    boot = direct.extras["bootstrap"]["replicates"]
    for m, model in enumerate(MODELS):
        column = [r[k][m] for r in reps["values"]]
        assert np.allclose(column, boot[model]["root_mean_squared_error"], rtol=TOL, atol=0)
    tests = {r["measure"]: r["test_method"] for r in got["comparisons"]}
    assert tests["root_mean_squared_error"] == "bootstrap"

    # another seed, other replicates; --inference bootstrap: the replicates' intervals throughout
    boot_only, _ = _run(
        [*args, "--bootstrap", "25", "--seed", "8", "--inference", "bootstrap"],
        tmp_path,
        "bb",
        client,
    )
    for model in MODELS:
        assert _interval(boot_only, model, "roc_auc")[2] == "bootstrap-percentile"
        assert _interval(boot_only, model, "kendall_tau")[2] == "bootstrap-percentile"
        rmse = _interval(boot_only, model, "root_mean_squared_error")
        assert rmse[2] == "bootstrap-percentile"
        assert rmse[:2] != _interval(got, model, "root_mean_squared_error")[:2]


# --------------------------------------------------------------------------------------------
# refusals: exit 2, one line


@pytest.mark.parametrize(
    "options, words",
    [
        (["--bootstrap-budget", "10"], "--bootstrap-budget"),
        (["--seed", "3"], "--seed"),
        (["--include-replicates"], "--include-replicates"),
        (["--inference", "bootstrap"], "--inference bootstrap"),
        (["--inference", "permutation"], "--inference"),
        (["--cost-benefit", "4,0,-5,0"], "--curve-arrays"),
        (["--value-margin", "2", "--cost-per-target", "1"], "--curve-arrays"),
        (["--budget", "10"], "--budget"),  # the memory engine's own rule
        (["--relevance", "nonsense"], "--relevance"),
        (["--bootstrap", "1"], "--bootstrap"),
    ],
)
def test_refused_with_one_line(data, options, words, tmp_path):
    root, _ = data
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(root / "parts" / "*.parquet"),
            "--target",
            "y",
            "--pred",
            "a",
            "--engine",
            "dask",
            "-q",
            *options,
        ],
    )
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], lines


# --------------------------------------------------------------------------------------------
# missing values


@pytest.fixture(scope="module")
def holes(tmp_path_factory, data):
    _, df = data
    root = tmp_path_factory.mktemp("holes")
    df = df.copy()
    df.loc[[5, 400, 401, 1000], "a"] = np.nan
    df.loc[[401, 700], "y"] = np.inf
    df.to_parquet(root / "all.parquet")
    (root / "parts").mkdir()
    for i in range(4):
        df.iloc[i * 300 : (i + 1) * 300].to_parquet(root / "parts" / f"p{i}.parquet")
    return root


def test_drop_na_counts_and_values(client, holes, tmp_path):
    common = ["--target", "y", "--pred", "a", "--pred", "b", "--drop-na"]
    got, _ = _run([str(holes / "parts" / "*.parquet"), *common], tmp_path, "d", client)
    want, _ = _run(
        [str(holes / "all.parquet"), *common, "--bootstrap", "0"], tmp_path, "m", expect=(0, 1)
    )
    assert got["n_dropped"] == want["n_dropped"] == 5
    assert got["n"] == want["n"] == 1195
    assert _same_values(got, want) >= 2 * 17


def test_missing_values_same_error_as_memory(client, holes):
    runner = CliRunner()
    common = ["--target", "y", "--pred", "a", "--pred", "b", "-q"]
    dask_run = runner.invoke(
        app,
        [
            "evaluate",
            str(holes / "parts" / "*.parquet"),
            *common,
            "--engine",
            "dask",
            "--scheduler",
            client.scheduler.address,
        ],
    )
    memory_run = runner.invoke(app, ["evaluate", str(holes / "all.parquet"), *common])
    assert dask_run.exit_code == memory_run.exit_code == 2
    assert dask_run.output == memory_run.output
    assert "5 row(s) have missing or infinite values (first at data row 6" in dask_run.output


def test_the_report_says_what_the_dask_engine_leaves_out(client, data, tmp_path):
    """The memory report's parts the Dask engine does not build are named with their reasons
    (skipped, not failed: exit status 0): without --curve-arrays only the curves held as arrays.
    The robustness table, the plots drawn from the rows' summaries and the relevance function
    are in the report, as in memory."""
    pytest.importorskip("matplotlib")
    root, _ = data
    html = tmp_path / "r.html"
    got, _ = _run(
        [str(root / "parts" / "*.parquet"), "--target", "y", "--pred", "a", "--html", str(html)],
        tmp_path,
        "dask",
        client,
    )
    task = got["problems"]["(all models)"]
    assert set(task) == {"curves"}
    assert task["curves"]["kind"] == "skipped" and "--curve-arrays" in task["curves"]["message"]
    text = html.read_text()
    for title in (
        "Relevance function",
        "Predicted against actual",
        "Residuals",
        "Calibration by decile",
        "REC curve",
        "RROC curve",
    ):
        # an SVG image, or an interactive chart
        assert f'alt="{title}"' in text or f'data-title="{title}"' in text, title
    assert "Evaluation robustness" in text and "most influential case" in text
    assert set(got["robustness"]["a"]["metrics"]) == {
        "root_mean_squared_error",
        "mean_absolute_error",
        "kendall_tau",
        "spearman_rho",
    }
    # with the curves as arrays, nothing is left out
    with_curves, _ = _run(
        [str(root / "parts" / "*.parquet"), "--target", "y", "--pred", "a", "--curve-arrays"],
        tmp_path,
        "dask2",
        client,
    )
    assert "(all models)" not in with_curves["problems"]


def test_a_dask_run_without_the_tables_and_plots_says_so():
    """What a Dask evaluation does not hold is named, read from the evaluation itself."""
    import ranklens.cli as cli
    from ranklens.evaluation import ModelEvaluation

    bare = ModelEvaluation(
        title="t", target="y", n=10, model_names=("a",), values={"a": {}}, metrics={}, problems={}
    )
    task = cli._dask_not_drawn(bare, curve_arrays=True)["(all models)"]
    assert set(task) == {"robustness table", "plots of the rows"}
    assert "Rosset, Perlich & Zadrozny 2005, Table 1" in task["robustness table"].message
    message = task["plots of the rows"].message
    assert "calibration by decile" in message and "REC" in message and "RROC" in message


def _dask_cli(root, client):
    """``ranklens evaluate`` of model ``a`` on the Dask engine, on the fixture's Parquet parts."""
    args = [str(root / "parts" / "*.parquet"), "--target", "y", "--pred", "a", "-q"]
    return CliRunner().invoke(
        app,
        ["evaluate", *args, "--engine", "dask", "--scheduler", client.scheduler.address],
        catch_exceptions=False,
    )


def test_a_failed_cluster_is_one_line_and_exit_1(client, data, monkeypatch):
    """A worker killed for its memory (Dask's KilledWorker) is one line, exit status 1."""
    from distributed.scheduler import KilledWorker

    root, _ = data

    def killed(*args, **kwargs):
        last = types.SimpleNamespace(address="tcp://127.0.0.1:1")
        raise KilledWorker("('shuffle-transfer-1', 17)", last, 4)

    monkeypatch.setattr(rd, "evaluate", killed)
    result = _dask_cli(root, client)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: Dask evaluation failed: KilledWorker")
    assert "memory limit" in lines[0] and "Traceback" not in result.output


def test_workers_paused_for_good_stop_the_run_with_a_reason(client, data, monkeypatch):
    """A worker paused on memory it cannot spill, nothing progressing, would leave the run
    waiting forever: the guard interrupts it and the command line says why, exit status 1."""
    from ranklens.dask import _watch

    root, _ = data

    class Stalled(_watch.PausedWorkersGuard):
        def start(self):
            self.stalled = (
                "1 of 2 Dask worker(s) stayed paused on memory for 600 s with nothing progressing"
            )
            return self

    def waiting(*args, **kwargs):
        raise KeyboardInterrupt  # what the guard's interrupt raises in the main thread

    guard = _watch.PausedWorkersGuard
    monkeypatch.setattr(_watch, "PausedWorkersGuard", Stalled)
    monkeypatch.setattr(rd, "evaluate", waiting)
    result = _dask_cli(root, client)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [
        "error: Dask evaluation stopped: 1 of 2 Dask worker(s) stayed paused on memory for "
        "600 s with nothing progressing"
    ]
    # a Ctrl-C of the user's own (the guard saw no stall) stays an interrupt: exit status 130
    monkeypatch.setattr(_watch, "PausedWorkersGuard", guard)
    result = _dask_cli(root, client)
    assert result.exit_code == 130
    assert "Dask evaluation stopped" not in result.output
