"""``evaluate_models(by=..., scan=...)``: the evaluation by segment inside the pipeline.

Its numbers are those of :func:`ranklens.by_segment` and :func:`ranklens.scan_segments` called
directly with the evaluation's settings (weights, units, events, seed, replicates), whether the
labels come as arrays or as columns of ``data``; an option that cannot apply is refused with a
message that names it; ``results.json`` carries the ``segments`` block its schema describes.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from ranklens import by_segment, evaluate_models, scan_segments
from ranklens.evaluation import segment_records
from ranklens.report import evaluation_to_json
from ranklens.segments import DEFAULT_SEGMENT_METRICS, MISSING_SEGMENT
from report_schema import results_schema, validate

N = 600
B = 40


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    """Two models, one better in the north; a region with missing labels, a numeric tier,
    case weights and customer units."""
    rng = np.random.default_rng(11)
    y = rng.lognormal(size=N)
    region = pd.Series(rng.choice(["north", "south", "east"], N), dtype="object")
    region[rng.random(N) < 0.05] = None
    noise_b = np.where(region == "north", 0.4, 1.3)
    return pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(size=N),
            "b": y + rng.normal(size=N) * noise_b,
            "region": region,
            "tier": rng.integers(0, 1000, N),
            "w": rng.uniform(0.5, 2.0, N),
            "customer": rng.integers(0, 60, N),
        }
    )


def _light(**kwargs):
    """The pipeline without curves and robustness tables (they do not touch the segments)."""
    return dict(curves=False, robustness=False, **kwargs)


def _same_frames(got: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_by_gives_the_numbers_of_by_segment(table):
    preds = {"a": table["a"].to_numpy(), "b": table["b"].to_numpy()}
    labels = {"region": table["region"], "tier": table["tier"]}
    ev = evaluate_models(
        table["y"].to_numpy(),
        preds,
        by=labels,
        n_bootstrap=B,
        random_state=3,
        events="top:0.2",
        **_light(),
    )
    direct = by_segment(
        table["y"].to_numpy(),
        preds,
        labels,
        metrics=ev.segments.metrics,
        n_bootstrap=B,
        random_state=3,
        events="top:0.2",
    )
    assert ev.segments.metrics == DEFAULT_SEGMENT_METRICS
    _same_frames(ev.segments.to_frame(), direct.to_frame())
    assert ev.segments.summary() == direct.summary()
    assert ev.segment_scan is None
    assert MISSING_SEGMENT in ev.segments.segments["region"]
    assert len(ev.segments.segments["tier"]) == 5  # quantile bins, the default
    assert ev.settings["by"] == "region, tier" and ev.settings["segment_bins"] == 5


def test_the_segment_options_reach_by_segment(table):
    """segment_fdr, segment_fdr_level, min_segment_events and cross_segments are by_segment's
    fdr, fdr_level, min_events and cross (scan slices by each column alone)."""
    preds = {"a": table["a"].to_numpy(), "b": table["b"].to_numpy()}
    labels = {"region": table["region"], "tier": table["tier"]}
    options = dict(segment_fdr="by", segment_fdr_level=0.2, min_segment_events=15)
    ev = evaluate_models(
        table["y"].to_numpy(),
        preds,
        by=labels,
        scan={"region": table["region"]},
        cross_segments=True,
        n_bootstrap=B,
        random_state=3,
        events="top:0.2",
        **options,
        **_light(),
    )
    same = dict(n_bootstrap=B, random_state=3, events="top:0.2", fdr="by", fdr_level=0.2)
    direct = by_segment(
        table["y"].to_numpy(),
        preds,
        labels,
        metrics=ev.segments.metrics,
        cross=True,
        min_events=15,
        **same,
    )
    _same_frames(ev.segments.to_frame(), direct.to_frame())
    assert ev.segments.fdr_method == "benjamini-yekutieli" and ev.segments.fdr_level == 0.2
    assert len(ev.segments.slicings) == 3  # region, tier and their cross product
    assert ev.segments.min_events == 15
    scan = scan_segments(
        table["y"].to_numpy(),
        preds,
        {"region": table["region"]},
        metrics=ev.segments.metrics,
        min_events=15,
        **same,
    )
    _same_frames(ev.segment_scan.evaluation.to_frame(), scan.evaluation.to_frame())
    assert ev.settings["segment_fdr"] == "by" and ev.settings["cross_segments"] is True
    block = evaluation_to_json(ev)["segments"]
    assert block["settings"]["fdr_method"] == "benjamini-yekutieli"
    assert block["settings"]["min_events"] == 15


def test_columns_of_data_give_the_numbers_of_the_arrays(table):
    """A column name of ``data`` (strings with missing labels) is the column as labels; a
    list of names is one slicing each; the segment columns are not models."""
    by_name = evaluate_models(
        "y", ["a", "b"], data=table, by=["region", "tier"], n_bootstrap=B, **_light()
    )
    by_array = evaluate_models(
        table["y"],
        {"a": table["a"], "b": table["b"]},
        by=[table["region"], table["tier"]],
        n_bootstrap=B,
        **_light(),
    )
    assert by_name.model_names == ("a", "b")
    assert by_name.segments.slicings == ("region", "tier")
    _same_frames(by_name.segments.to_frame(), by_array.segments.to_frame())
    # one unnamed array of labels is the slicing "segment"; a mapping names its slicings
    plain = evaluate_models(
        table["y"], {"a": table["a"], "b": table["b"]}, by=table["region"].to_numpy(), **_light()
    )
    assert plain.segments.slicings == ("segment",)
    named = evaluate_models("y", ["a", "b"], data=table, by={"area": "region"}, **_light())
    assert named.segments.slicings == ("area",)


def test_weights_units_and_scan_are_passed_on(table):
    y = table["y"].to_numpy()
    preds = {"a": table["a"].to_numpy(), "b": table["b"].to_numpy()}
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=table,
        by="region",
        scan=["region", "tier"],
        sample_weight="w",
        groups="customer",
        n_bootstrap=B,
        random_state=5,
        segment_bins=4,
        min_segment_rows=40,
        **_light(),
    )
    settings = dict(
        sample_weight=table["w"].to_numpy(),
        groups=table["customer"].to_numpy(),
        n_bootstrap=B,
        random_state=5,
        bins=4,
        min_rows=40,
    )
    direct = by_segment(
        y, preds, {"region": table["region"]}, metrics=ev.segments.metrics, **settings
    )
    _same_frames(ev.segments.to_frame(), direct.to_frame())
    scan = scan_segments(
        y,
        preds,
        {"region": table["region"], "tier": table["tier"]},
        metrics=ev.segment_scan.evaluation.metrics,
        **settings,
    )
    assert ev.segment_scan.findings == scan.findings
    _same_frames(ev.segment_scan.evaluation.to_frame(), scan.evaluation.to_frame())
    assert len(ev.segment_scan.evaluation.segments["tier"]) == 4
    assert ev.segments.min_rows == 40


def test_without_replicates_segments_have_values_and_counts_only(table):
    ev = evaluate_models("y", ["a", "b"], data=table, by="region", n_bootstrap=0, **_light())
    frame = ev.segments.to_frame()
    assert frame["value"].notna().all() and (frame["n_rows"] > 0).all()
    assert frame["ci_lower"].isna().all() and frame["q_value"].isna().all()
    assert set(frame["verdict"]) <= {"pick", "not tested"}
    assert set(frame["status"]) <= {"not compared", "too small"}
    assert ev.segments.n_tests == 0


def test_only_measures_defined_overall_are_evaluated_by_segment(table):
    constant = np.full(N, 1.0)
    ev = evaluate_models(
        table["y"],
        {"a": table["a"], "flat": constant},
        by=table["region"],
        n_bootstrap=0,
        **_light(),
    )
    assert not math.isfinite(ev.values["flat"]["kendall_tau"])
    assert ev.values["flat"]["roc_auc"] == 0.5  # a constant score separates nothing: defined
    assert ev.segments.metrics == ("mean_absolute_error", "roc_auc")


def test_without_by_nothing_changes(table):
    ev = evaluate_models("y", ["a", "b"], data=table, **_light())
    assert ev.segments is None and ev.segment_scan is None
    assert "by" not in ev.settings and "segment_bins" not in ev.settings
    assert "segments" not in evaluation_to_json(ev)


@pytest.mark.parametrize(
    ("kwargs", "error", "named"),
    [
        (dict(by="nowhere"), ValueError, "by: no column 'nowhere'"),
        (dict(scan=["region", "nowhere"]), ValueError, "scan: no column 'nowhere'"),
        (dict(segment_bins=3), ValueError, "segment_bins"),
        (dict(min_segment_rows=10), ValueError, "min_segment_rows"),
        (dict(by="region", segment_bins=1), ValueError, "segment_bins must be"),
        (dict(by="region", min_segment_rows=0), ValueError, "min_segment_rows must be"),
        (dict(by=["region", "region"]), ValueError, "given twice"),
        (dict(by=[]), ValueError, "by is empty"),
        (dict(segment_fdr="by"), ValueError, "segment_fdr is an option of the evaluation"),
        (dict(cross_segments=True), ValueError, "cross_segments is an option of the evaluation"),
        (dict(min_segment_events=3), ValueError, "min_segment_events is an option"),
        (dict(by="region", segment_fdr="holm"), ValueError, "segment_fdr must be one of"),
        (dict(by="region", segment_fdr_level=1.5), ValueError, "segment_fdr_level"),
        (dict(by="region", min_segment_events=0), ValueError, "min_segment_events must be"),
        (dict(by="region", cross_segments="yes"), ValueError, "cross_segments must be"),
    ],
)
def test_options_that_cannot_apply_are_refused_by_name(table, kwargs, error, named):
    with pytest.raises(error, match=named.replace("(", r"\(")):
        evaluate_models("y", ["a", "b"], data=table, **_light(**kwargs))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("bins", 1, "{bins} must be an integer >= 2; got 1"),
        ("min_rows", 0, "{min_rows} must be an integer >= 1; got 0"),
        ("fdr", "bhh", "{fdr} must be one of bh, by; got 'bhh' (did you mean 'bh'?)"),
        ("fdr_level", 0.0, "{fdr_level} must be"),
        ("cross", "yes", "{cross} must be True or False; got 'yes'"),
    ],
)
def test_one_range_check_names_the_options_as_each_caller_writes_them(field, value, message):
    """SegmentOptions.check_values serves the Python API (the argument names) and the command
    line (its ``--segment-*`` options): the same check, each name as its user typed it."""
    from ranklens.evaluation import SegmentOptions

    options = SegmentOptions(**{field: value})
    cli = {f: "--" + a.replace("_", "-") for f, a in SegmentOptions.ARGUMENTS.items()}
    for names in (SegmentOptions.ARGUMENTS, cli):
        with pytest.raises(ValueError) as caught:
            options.check_values(names)
        assert str(caught.value).startswith(message.format(**names))


def test_the_settings_are_the_public_functions_arguments(table):
    """SegmentSettings.of reads a function's arguments by name (the data are not fields) and
    the engine-side run with those settings is the public function's result."""
    from ranklens.segments import SegmentSettings, segment_evaluation

    y, preds = table["y"], {"a": table["a"], "b": table["b"]}
    asked = dict(metrics=["mean_absolute_error"], bins=3, min_rows=5, n_bootstrap=30, k=None)
    settings = SegmentSettings.of({"y_true": y, "predictions": preds, **asked})
    assert settings == SegmentSettings(**asked)
    direct = by_segment(y, preds, table[["region", "tier"]], **asked)
    carried = segment_evaluation(y, preds, table[["region", "tier"]], settings)
    assert carried.to_frame().equals(direct.to_frame())


def test_arrays_that_cannot_slice_the_rows_are_refused(table):
    y, preds = table["y"], {"a": table["a"], "b": table["b"]}
    with pytest.raises(TypeError, match="by: 'region' names a column, which needs data"):
        evaluate_models(y, preds, by="region", **_light())
    with pytest.raises(ValueError, match="by: segment labels 'segment' have length 10"):
        evaluate_models(y, preds, by=np.arange(10), **_light())
    with pytest.raises(ValueError, match="scan: segment labels 'segment' are all missing"):
        evaluate_models(y, preds, scan=[None] * N, **_light())
    with pytest.raises(ValueError, match="by: the evaluation by segment compares the models"):
        evaluate_models(y, {"a": table["a"]}, by=table["region"], **_light())


def test_the_dask_engine_refuses_what_it_cannot_honour_by_name(table):
    """Refused before any work (no cluster needed): labels given as arrays, a slicing named
    twice, and the numbers of the segments without them."""
    with pytest.raises(TypeError, match=r"^by: engine='dask' reads the columns of data"):
        evaluate_models("y", ["a", "b"], data=table, engine="dask", by=table["region"])
    with pytest.raises(TypeError, match=r"^scan: engine='dask' reads the columns of data"):
        evaluate_models("y", ["a", "b"], data=table, engine="dask", scan=[table["tier"]])
    with pytest.raises(ValueError, match=r"^segment_bins is an option of the evaluation by"):
        evaluate_models("y", ["a", "b"], data=table, engine="dask", segment_bins=3)


def test_by_on_dask_gives_the_numbers_of_the_dask_engine_and_of_memory(table, client):
    """``engine="dask"`` runs :func:`ranklens.dask.by_segment` on the columns ``by`` names,
    with the evaluation's settings; its values and counts are the in-memory ones."""
    dd = pytest.importorskip("dask.dataframe")
    import ranklens.dask as rd

    frame = dd.from_pandas(table, npartitions=3)
    ev = evaluate_models(
        "y", ["a", "b"], data=frame, engine="dask", by="region", n_bootstrap=B, random_state=7
    )
    direct = rd.by_segment(
        frame,
        y_true="y",
        predictions=["a", "b"],
        by="region",
        metrics=ev.segments.metrics,
        n_bootstrap=B,
        random_state=7,
    )
    _same_frames(ev.segments.to_frame(), direct.to_frame())
    assert ev.settings["by"] == "region"
    memory = evaluate_models("y", ["a", "b"], data=table, by="region", **_light())
    got, want = ev.segments.to_frame(), memory.segments.to_frame()
    pd.testing.assert_series_equal(got["n_rows"], want["n_rows"])
    np.testing.assert_allclose(got["value"], want["value"], rtol=1e-12, atol=1e-12)
    doc = json.loads(json.dumps(evaluation_to_json(ev), allow_nan=False))
    validate(doc, results_schema())
    assert doc["segments"]["settings"]["slicings"] == ["region"]


def _same_numbers(got, want) -> None:
    """The same slicings, segments, counts, statuses and notes of the slicings; values to
    1e-12 (the intervals and tests come from another bootstrap)."""
    assert got.slicings == want.slicings and got.segments == want.segments
    assert got.notes[: len(want.notes)] == want.notes
    g, w = got.to_frame(), want.to_frame()
    keys = ["slicing", "segment", "metric", "model", "n_rows", "n_events", "status", "pick"]
    pd.testing.assert_frame_equal(g[keys], w[keys])
    np.testing.assert_allclose(g["value"], w["value"], rtol=1e-12, atol=1e-12)


def test_a_numeric_column_and_the_scan_on_dask_give_the_numbers_of_memory(table, client):
    """``engine="dask"`` cuts a numeric column of ``by`` into the in-memory quantile bins and
    searches the columns of ``scan`` (:func:`ranklens.dask.scan_segments`): the segments,
    values and counts of the in-memory pipeline, the same candidates and family of tests, and
    the same findings where the evidence is strong; a mapping names the slicings."""
    dd = pytest.importorskip("dask.dataframe")
    import ranklens.dask as rd

    frame = dd.from_pandas(table, npartitions=3)
    kw = dict(by={"band": "tier"}, scan=["region", "tier"], n_bootstrap=B, random_state=7)
    ev = evaluate_models("y", ["a", "b"], data=frame, engine="dask", segment_bins=4, **kw)
    memory = evaluate_models("y", ["a", "b"], data=table, segment_bins=4, **kw, **_light())
    assert ev.settings["by"] == "band" and ev.settings["scan"] == "region, tier"
    assert len(ev.segments.segments["band"]) == 4
    _same_numbers(ev.segments, memory.segments)
    scan, want = ev.segment_scan, memory.segment_scan
    _same_numbers(scan.evaluation, want.evaluation)
    assert scan.n_candidates == want.n_candidates == 4 + 4
    assert scan.n_tests == want.n_tests
    strong = [f for f in want.findings if f["q_value"] < 1e-6]
    assert strong and all(
        any(g["segment"] == f["segment"] and g["kind"] == f["kind"] for g in scan.findings)
        for f in strong
    )
    direct = rd.scan_segments(
        frame,
        y_true="y",
        predictions=["a", "b"],
        columns=["region", "tier"],
        metrics=scan.evaluation.metrics,
        bins=4,
        n_bootstrap=B,
        random_state=7,
    )
    _same_frames(scan.evaluation.to_frame(), direct.evaluation.to_frame())
    assert scan.findings == direct.findings
    doc = json.loads(json.dumps(evaluation_to_json(ev), allow_nan=False))
    validate(doc, results_schema())
    assert doc["segments"]["scan"]["n_candidates"] == 8


def test_the_json_block_holds_the_long_table_and_validates(table):
    ev = evaluate_models(
        "y",
        ["a", "b"],
        data=table,
        by="region",
        scan="tier",
        n_bootstrap=B,
        events="top:0.2",
        **_light(),
    )
    doc = json.loads(json.dumps(evaluation_to_json(ev), allow_nan=False))
    validate(doc, results_schema())
    assert doc["schema_version"] == "2.7"
    block = doc["segments"]
    assert block["settings"]["slicings"] == ["region"]
    assert block["settings"]["fdr_method"] == "benjamini-hochberg"
    assert block["settings"]["fdr_level"] == 0.05
    assert block["settings"]["min_rows"] == 30 and block["settings"]["min_events"] == 10
    assert block["settings"]["picks"] == ev.segments.picks
    assert block["settings"]["events"] == ev.segments.events
    assert block["summary"] == ev.segments.summary()
    assert block["n_tests"] == ev.segments.n_tests
    # the records are the long table, NaN written as null
    frame = ev.segments.to_frame()
    assert len(block["records"]) == len(frame)
    assert list(block["records"][0]) == list(frame.columns)
    for record, (_, row) in zip(block["records"], frame.iterrows(), strict=True):
        for key, value in record.items():
            want = row[key]
            if isinstance(want, float) and math.isnan(want):
                assert value is None, key
            elif want is None:
                assert value is None, key
            else:
                assert value == want, key
    scan = block["scan"]
    assert scan["slicings"] == ["tier"] and scan["summary"] == ev.segment_scan.summary()
    assert scan["n_candidates"] == ev.segment_scan.n_candidates
    assert len(scan["findings"]) == len(ev.segment_scan.findings)
    assert "level_verdict" in scan["records"][0]
    assert segment_records(ev.segments)[0]["slicing"] == "region"


def test_a_column_that_cannot_slice_the_rows_on_dask_is_named_by_its_option(table, client):
    """The Dask engine's refusal of a slicing carries the option's name, as in memory."""
    dd = pytest.importorskip("dask.dataframe")
    holed = table.assign(empty=pd.Series([None] * N, dtype="object"))
    frame = dd.from_pandas(holed, npartitions=2)
    for option in ("by", "scan"):
        with pytest.raises(ValueError, match=rf"^{option}: .*all missing"):
            evaluate_models("y", ["a", "b"], data=frame, engine="dask", **{option: "empty"})
        with pytest.raises(ValueError, match=rf"^{option}: .*all missing"):
            evaluate_models("y", ["a", "b"], data=holed, **{option: "empty"}, **_light())
