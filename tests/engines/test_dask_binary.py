"""The measures of a 0/1 target on Dask equal the in-memory ones (the defaults of the target)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import ranklens as rl  # noqa: E402


def _frame(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(np.int64)
    good = np.round(np.clip(0.2 + 0.4 * (y - 0.2) + rng.normal(0, 0.2, n), 0, 1), 2)
    return pd.DataFrame(
        {
            "y": y,
            "good": good,
            "fair": np.round(rng.random(n), 2),
            "raw": good * 4 - 1.0,  # not probabilities
            "w": rng.integers(1, 4, n).astype(float),
        }
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_binary_defaults_on_dask_equal_memory(client, weighted):
    f = _frame()
    kw = {"sample_weight": "w"} if weighted else {}
    models = ["good", "fair", "raw"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", models, data=f, n_bootstrap=0, **kw)
        dsk = rl.evaluate_models(
            "y", models, data=dd.from_pandas(f, npartitions=4), engine="dask", **kw
        )
    assert "binary target" in mem.settings and "binary target" in dsk.settings
    assert set(mem.metrics) == set(dsk.metrics)
    for gone in ("utility_f1", "sera", "log_rmse", "rmspe"):
        assert gone not in mem.metrics
    checked = 0
    for model in models:
        for name in (
            "brier_score_loss",
            "log_loss",
            "precision_at_10",
            "recall_at_20",
            "average_precision_score",
        ):
            a, b = mem.values[model][name], dsk.values[model][name]
            if model == "raw" and name in ("brier_score_loss", "log_loss"):
                assert math.isnan(a) and math.isnan(b)
                assert mem.problems[model][name].kind == "skipped"
                assert dsk.problems[model][name].kind == "skipped"
                continue
            assert b == pytest.approx(a, rel=1e-10), (model, name)
            checked += 1
    assert checked == 13


def _labelled(tmp_path, numbers: bool, n_files: int):
    """The frame of :func:`_frame` with its target as "yes"/"no" (or 2/1), written by pandas
    to ``n_files`` Parquet files (read by Dask as that many partitions or more)."""
    f = _frame()
    y = f.pop("y").to_numpy()
    f.insert(0, "y", np.where(y == 1, 2, 1) if numbers else np.where(y == 1, "yes", "no"))
    root = tmp_path / f"labelled-{numbers}-{n_files}"
    root.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(f)), n_files)):
        f.iloc[part].to_parquet(root / f"part.{i}.parquet")
    return f, str(root / "*.parquet")


def _same_values(mem, dsk) -> int:
    """Every value of the Dask evaluation equals the in-memory one (1e-12 relative)."""
    compared = 0
    for model, values in dsk.values.items():
        for name, value in values.items():
            ref = mem.values[model][name]
            if dsk.problems.get(model, {}).get(name) is not None and (
                dsk.problems[model][name].kind == "skipped"
            ):
                continue  # not computed by the Dask engine (a 0/1 target of numbers too)
            if isinstance(value, float) and math.isnan(value):
                assert math.isnan(ref), (model, name, ref)
                continue
            # 1e-12 relative to the value, or to 1 for a value near 0 (a sum that cancels,
            # gamma near 0, is rounded differently by the partitions' sums)
            assert abs(value - ref) <= 1e-12 * max(1.0, abs(ref)), (model, name, value, ref)
            compared += 1
    return compared


@pytest.mark.parametrize("numbers", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_files", [1, 3])
def test_positive_label_on_dask_equals_memory(client, tmp_path, numbers, weighted, n_files):
    f, path = _labelled(tmp_path, numbers, n_files)
    label = 2 if numbers else "yes"
    kw = {"sample_weight": "w"} if weighted else {}
    models = ["good", "fair", "raw"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", models, data=f, n_bootstrap=0, positive_label=label, **kw)
        dsk = rl.evaluate_models("y", models, data=path, engine="dask", positive_label=label, **kw)
        # the same on a dask DataFrame of the same rows
        frame = rl.evaluate_models(
            "y",
            models,
            data=dd.from_pandas(f, npartitions=n_files),
            engine="dask",
            positive_label=label,
            **kw,
        )
    assert "binary target" in dsk.settings
    # brute force: the average precision of the 0/1 target, by scikit-learn
    from sklearn.metrics import average_precision_score

    truth = (f["y"] == label).astype(int)
    weights = f["w"] if weighted else None
    assert dsk.values["good"]["average_precision_score"] == pytest.approx(
        average_precision_score(truth, f["good"], sample_weight=weights), rel=1e-12
    )
    assert _same_values(mem, dsk) >= 3 * 10
    assert _same_values(mem, frame) >= 3 * 10
    # the label mapped on Dask is the 0/1 target: the same numbers as the 0/1 column itself
    zero_one = f.assign(y=(f["y"] == label).astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = rl.evaluate_models(
            "y", models, data=dd.from_pandas(zero_one, npartitions=n_files), engine="dask", **kw
        )
    for model in models:
        np.testing.assert_array_equal(
            np.array(list(frame.values[model].values())),
            np.array(list(direct.values[model].values())),
        )


def test_positive_label_given_as_a_string_for_numbers(client, tmp_path):
    f, path = _labelled(tmp_path, True, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", ["good"], data=f, n_bootstrap=0, positive_label=2)
        dsk = rl.evaluate_models("y", ["good"], data=path, engine="dask", positive_label="2")
    assert _same_values(mem, dsk) >= 10


def test_positive_label_by_segment_and_windows_on_dask(client, tmp_path):
    f, _ = _labelled(tmp_path, False, 3)
    f["region"] = np.where(np.arange(len(f)) % 3 == 0, "north", "south")
    f.to_parquet(tmp_path / "regions.parquet")
    kw = dict(by="region", window=1000, positive_label="yes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", ["good", "fair"], data=f, n_bootstrap=0, **kw)
        dsk = rl.evaluate_models(
            "y", ["good", "fair"], data=str(tmp_path / "regions.parquet"), engine="dask", **kw
        )
    assert _same_values(mem, dsk) >= 2 * 10
    for got, want, keys in (
        (dsk.segments, mem.segments, ["slicing", "segment", "metric", "model", "n_rows"]),
        (dsk.windows, mem.windows, ["window", "metric", "model", "n_rows"]),
    ):
        g, w = got.to_frame(), want.to_frame()
        assert len(g) >= 8
        pd.testing.assert_frame_equal(g[keys], w[keys])
        np.testing.assert_allclose(g["value"], w["value"], rtol=1e-12, atol=1e-15)
        assert g["n_events"].tolist() == w["n_events"].tolist()


@pytest.mark.parametrize(
    ("label", "target", "message"),
    [
        ("maybe", ["yes", "no"], "positive_label='maybe' does not occur in y_true"),
        ("yes", ["yes", "no", "perhaps"], "positive_label='yes' makes a 0/1 target"),
        ("x", [1, 2], "positive_label='x' does not occur in y_true, which holds the numbers"),
    ],
)
def test_positive_label_refusals_on_dask_as_in_memory(client, tmp_path, label, target, message):
    f = _frame(300)
    f["y"] = np.resize(np.array(target, dtype=object), len(f))
    if all(isinstance(v, int) for v in target):
        f["y"] = f["y"].astype(np.int64)
    f.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(ValueError, match=message) as in_memory:
        rl.evaluate_models("y", ["good"], data=f, positive_label=label)
    with pytest.raises(ValueError, match=message) as on_dask:
        rl.evaluate_models(
            "y", ["good"], data=str(tmp_path / "bad.parquet"), engine="dask", positive_label=label
        )
    assert sorted(str(on_dask.value)) == sorted(str(in_memory.value))


def test_missing_target_with_positive_label_on_dask_is_refused(client, tmp_path):
    f = _frame(300)
    f["y"] = np.where(f["y"] == 1, "yes", "no").astype(object)
    f.loc[5, "y"] = None
    f.to_parquet(tmp_path / "missing.parquet")
    with pytest.raises(ValueError, match="'y' holds missing"):
        rl.evaluate_models(
            "y",
            ["good"],
            data=str(tmp_path / "missing.parquet"),
            engine="dask",
            positive_label="yes",
        )


def test_cli_positive_label_on_dask_equals_memory(client, tmp_path):
    json_ = pytest.importorskip("json")
    typer_testing = pytest.importorskip("typer.testing")
    from ranklens.cli import app

    _, path = _labelled(tmp_path, False, 3)
    common = ["--target", "y", "--pred", "good", "--pred", "fair", "--positive-label", "yes"]
    docs = {}
    for engine in ("memory", "dask"):
        out = tmp_path / f"{engine}.json"
        extra = ["--engine", "dask", "--scheduler", client.scheduler.address]
        args = [path, *common, "-q", "--json", str(out)]
        args += extra if engine == "dask" else ["--bootstrap", "0"]
        if engine == "memory":
            merged = tmp_path / "all.parquet"
            pd.concat(
                [pd.read_parquet(p) for p in sorted(tmp_path.glob("labelled-*/*"))]
            ).to_parquet(merged)
            args[0] = str(merged)
        result = typer_testing.CliRunner().invoke(app, ["evaluate", *args])
        assert result.exit_code == 0, result.output
        docs[engine] = json_.loads(out.read_text())
    compared = 0
    for model in ("good", "fair"):
        for name, entry in docs["dask"]["models"][model].items():
            ref = docs["memory"]["models"][model][name]
            if entry["status"] == "skipped" or entry["value"] is None:
                continue
            assert entry["status"] == ref["status"], (model, name)
            assert abs(entry["value"] - ref["value"]) <= 1e-12 * max(1.0, abs(ref["value"]))
            compared += 1
    assert compared >= 2 * 10
    # a label that does not occur: one line naming the option, exit status 2
    out = tmp_path / "bad.json"
    result = typer_testing.CliRunner().invoke(
        app,
        [
            "evaluate",
            path,
            *("--target", "y", "--pred", "good", "--positive-label", "maybe", "-q"),
            *("--json", str(out), "--engine", "dask", "--scheduler", client.scheduler.address),
        ],
    )
    assert result.exit_code == 2, result.output
    assert "--positive-label 'maybe': does not occur in y_true" in result.output


def test_continuous_target_keeps_its_measures(client):
    rng = np.random.default_rng(3)
    y = rng.gamma(2.0, 2.0, 500)
    ev = rl.evaluate_models(y, {"a": y + rng.normal(0, 1, 500)}, n_bootstrap=0)
    assert "binary target" not in ev.settings
    assert "sera" in ev.metrics and "rmspe" in ev.metrics
    assert "average_precision_score" not in ev.metrics and "brier_score_loss" not in ev.metrics


def test_cli_positive_label_on_dask_drops_a_missing_target_as_memory(client, tmp_path):
    import json

    from typer.testing import CliRunner

    from ranklens.cli import app

    f, _ = _labelled(tmp_path, False, 1)
    f["y"] = f["y"].astype(object)
    f.loc[[3, 700], "y"] = None
    path = tmp_path / "gaps.parquet"
    f.to_parquet(path)
    common = [str(path), "--target", "y", "--pred", "good", "--positive-label", "yes", "-q"]
    docs = {}
    for engine, extra in (
        ("memory", ["--bootstrap", "0"]),
        ("dask", ["--engine", "dask", "--scheduler", client.scheduler.address]),
    ):
        refused = CliRunner().invoke(app, ["evaluate", *common, *extra])
        assert refused.exit_code == 2 and "missing" in refused.output, (engine, refused.output)
        out = tmp_path / f"{engine}.json"
        result = CliRunner().invoke(
            app, ["evaluate", *common, "--drop-na", "--json", str(out), *extra]
        )
        assert result.exit_code == 0, result.output
        docs[engine] = json.loads(out.read_text())
    assert docs["dask"]["n_dropped"] == docs["memory"]["n_dropped"] == 2
    got, want = docs["dask"]["models"]["good"], docs["memory"]["models"]["good"]
    compared = 0
    for name, entry in got.items():
        if entry["status"] == "skipped" or entry["value"] is None:
            continue
        assert abs(entry["value"] - want[name]["value"]) <= 1e-12 * max(
            1.0, abs(want[name]["value"])
        )
        compared += 1
    assert compared >= 10


def _same_counts(got: dict, want: dict) -> int:
    """``extras["at_depth"]`` blocks equal: the depth and basis, and every count to 1e-12
    (relative)."""
    assert got["depth"] == pytest.approx(want["depth"], rel=1e-15)
    assert got["basis"] == want["basis"]
    assert list(got["models"]) == list(want["models"])
    compared = 0
    for model, counts in want["models"].items():
        assert set(got["models"][model]) == set(counts)
        for name, value in counts.items():
            assert got["models"][model][name] == pytest.approx(value, rel=1e-12), (model, name)
            compared += 1
    return compared


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("budget", [False, True])
@pytest.mark.parametrize("n_files", [1, 3])
def test_counts_at_depth_on_dask_equal_memory(client, tmp_path, weighted, budget, n_files):
    """The precision, recall and 2x2 counts at the budget's depth (or the top 10 %) on Dask
    equal the in-memory ones, and the brute-force counts of the top rows; with three files the
    target is "yes"/"no", read with ``positive_label``."""
    f, path = _labelled(tmp_path, False, n_files)
    label = {"positive_label": "yes"}
    if n_files == 1:  # the 0/1 target itself, as a dask DataFrame
        f = f.assign(y=(f["y"] == "yes").astype(np.int64))
        path, label = dd.from_pandas(f, npartitions=1), {}
    kw: dict = {"sample_weight": "w"} if weighted else {}
    if budget:  # 450 targets of the 3000 (weighted: of 6000 or so)
        kw.update(budget=900.0, cost_per_target=2.0, value_margin=10.0)
    models = ["good", "fair"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", models, data=f, n_bootstrap=0, **label, **kw)
        dsk = rl.evaluate_models(
            "y", models, data=path, engine="dask", curve_arrays=budget, **label, **kw
        )
    want, got = mem.extras["at_depth"], dsk.extras["at_depth"]
    assert got["basis"] == ("budget" if budget else "default")
    assert _same_counts(got, want) == 2 * 6
    # brute force: the top rows by score, a tie at the cut shared in proportion
    truth = (f["y"] == "yes").to_numpy() if label else f["y"].to_numpy() == 1
    w = f["w"].to_numpy() if weighted else np.ones(len(f))
    for model in models:
        score = f[model].to_numpy()
        targeted = got["depth"] * w.sum()
        tp = 0.0
        for value in np.unique(score)[::-1]:
            tie = score == value
            take = min(1.0, max(0.0, targeted / w[tie].sum()))
            tp += take * w[tie & truth].sum()
            targeted -= take * w[tie].sum()
        counts = got["models"][model]
        assert counts["true_positives"] == pytest.approx(tp, rel=1e-12)
        assert counts["false_negatives"] == pytest.approx(w[truth].sum() - tp, rel=1e-12)


def test_cli_counts_at_depth_on_dask_equal_memory(client, tmp_path):
    import json

    from typer.testing import CliRunner

    from ranklens.cli import app

    f, path = _labelled(tmp_path, False, 3)
    merged = tmp_path / "all.parquet"
    f.to_parquet(merged)
    common = ["--target", "y", "--pred", "good", "--pred", "fair", "--positive-label", "yes"]
    common += ["--weight", "w", "-q"]
    for budget in ([], ["--budget", "900", "--cost-per-target", "2", "--value-margin", "10"]):
        docs = {}
        for engine, source, extra in (
            ("memory", str(merged), ["--bootstrap", "0"]),
            ("dask", path, ["--engine", "dask", "--scheduler", client.scheduler.address]),
        ):
            if engine == "dask" and budget:
                extra = [*extra, "--curve-arrays"]
            out = tmp_path / f"{engine}.json"
            result = CliRunner().invoke(
                app, ["evaluate", source, *common, *budget, *extra, "--json", str(out)]
            )
            assert result.exit_code == 0, result.output
            docs[engine] = json.loads(out.read_text())
        assert docs["dask"]["at_depth"]["basis"] == ("budget" if budget else "default")
        assert _same_counts(docs["dask"]["at_depth"], docs["memory"]["at_depth"]) == 2 * 6


def test_average_precision_interval_and_comparison_on_dask(client):
    """With replicates, the Dask run has the average precision's interval and its paired
    comparison, as the in-memory run has them."""
    f = _frame(2000, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = rl.evaluate_models("y", ["good", "fair"], data=f, n_bootstrap=60)
        dsk = rl.evaluate_models(
            "y",
            ["good", "fair"],
            data=dd.from_pandas(f, npartitions=3),
            engine="dask",
            n_bootstrap=60,
        )
    name = "average_precision_score"
    intervals = dsk.extras["bootstrap"]["intervals"]
    for model in ("good", "fair"):
        low, high = intervals[model][name]
        assert low < dsk.values[model][name] < high
        assert len(dsk.extras["bootstrap"]["replicates"][model][name]) == 60
    rows = {}
    for engine, ev in (("memory", mem), ("dask", dsk)):
        assert name in ev.comparison.metrics, engine
        table = ev.comparison.to_frame()
        rows[engine] = table[table["metric"] == name].iloc[0]
    # the same point difference, and an interval around it on both engines
    assert rows["dask"]["difference"] == pytest.approx(rows["memory"]["difference"], rel=1e-12)
    for row in rows.values():
        assert row["difference_ci_lower"] < row["difference"] < row["difference_ci_upper"]


@pytest.mark.parametrize("relevance", ["high", "pchip:both"])
def test_cli_boxplot_relevance_with_positive_label_refused_alike(client, tmp_path, relevance):
    """A box-plot relevance of the 0/1 target of --positive-label: memory found a degenerate
    box plot (a fifth of events: IQR 0) or a relevance no measure of the target uses; both
    engines refuse it with one message naming both options."""
    from typer.testing import CliRunner

    from ranklens import relevance as rel
    from ranklens.cli import app

    f, path = _labelled(tmp_path, False, 2)
    with pytest.raises(ValueError, match="degenerate"):  # what memory met before
        rel.relevance_from_boxplot((f["y"] == "yes").astype(float), extremes="high")
    merged = tmp_path / "all.parquet"
    f.to_parquet(merged)
    common = ["--target", "y", "--pred", "good", "--positive-label", "yes", "-q"]
    common += ["--relevance", relevance]
    outputs = {}
    for engine, source, extra in (
        ("memory", str(merged), ["--bootstrap", "0"]),
        ("dask", path, ["--engine", "dask", "--scheduler", client.scheduler.address]),
    ):
        result = CliRunner().invoke(app, ["evaluate", source, *common, *extra])
        assert result.exit_code == 2, (engine, result.output)
        outputs[engine] = " ".join(result.output.split())
    assert outputs["dask"] == outputs["memory"]
    assert f"--relevance '{relevance}': a box-plot relevance" in outputs["dask"]
    assert "--positive-label 'yes' makes the target 0/1" in outputs["dask"]
    # without --positive-label, a box-plot relevance of a continuous target is fitted as before
    g = f.assign(y=f["good"] * 10 + np.arange(len(f)) % 7)
    g.to_parquet(merged)
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(merged),
            *("--target", "y", "--pred", "good", "--relevance", relevance, "-q"),
            *("--bootstrap", "0"),
        ],
    )
    assert result.exit_code == 0, result.output
