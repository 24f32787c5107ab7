"""Evaluation by segment (ranklens.segments): each segment's numbers against the measure called on
its rows, the bootstrap against a hand-written per-segment resample, the false discovery rate
adjustment against statsmodels, small segments, missing labels and the containers users have."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import ranklens as rl
from ranklens._foundation.multiplicity import fdr_adjust
from ranklens.exceptions import DomainError
from ranklens.metrics import available_metrics, get_metric
from ranklens.segments import MISSING_SEGMENT, by_segment, scan_segments

POINT_METRICS = [
    name
    for name in available_metrics()
    if get_metric(name).inputs == "point" and not get_metric(name).order_dependent
]


def _data(n: int = 600, seed: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.round(rng.lognormal(size=n), 1)  # ties in y
    a = np.round(y + rng.normal(size=n), 1)  # ties in the predictions
    b = np.round(y + rng.normal(size=n) * 0.8, 1)
    region = rng.choice(["north", "south", "east"], size=n)
    return y, {"a": a, "b": b}, region


def _records(result: rl.SegmentEvaluation, **where: str) -> list[dict]:
    return [r for r in result.records if all(r[k] == v for k, v in where.items())]


@pytest.mark.parametrize("weighted", [False, True])
def test_each_segment_value_is_the_measure_on_its_rows(weighted: bool) -> None:
    y, preds, region = _data()
    w = np.random.default_rng(1).integers(0, 4, size=y.size).astype(float) if weighted else None
    result = by_segment(
        y, preds, region, metrics=POINT_METRICS, sample_weight=w, n_bootstrap=0, min_rows=1
    )
    events = rl.targeting.fixed_events(y, None, sample_weight=w)
    checked = 0
    for record in result.records:
        rows = region == record["segment"]
        spec = get_metric(record["metric"])
        kwargs = {"events": events} if "events" in spec.func.__code__.co_varnames else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = spec(
                    y[rows],
                    preds[record["model"]][rows],
                    sample_weight=None if w is None else w[rows],
                    **kwargs,
                )
            except DomainError:  # undefined on these rows: the segment's value is NaN
                expected = math.nan
        if math.isnan(expected):
            assert math.isnan(record["value"]), record
        else:
            assert record["value"] == pytest.approx(expected, rel=1e-12, abs=1e-15), record
        checked += 1
    assert checked == len(POINT_METRICS) * 3 * 2


def test_segment_of_one_row_and_segment_without_events() -> None:
    y, preds, _ = _data(200)
    labels = np.array(["big"] * 199 + ["one"], dtype=object)
    y = y.copy()
    top = y >= np.sort(y)[-20]  # the overall true top 10 %
    labels[np.flatnonzero(~top[:199])[:40]] = "no events"
    result = by_segment(
        y, preds, labels, metrics=["mean_absolute_error", "roc_auc"], n_bootstrap=50
    )
    one = _records(result, segment="one", metric="mean_absolute_error", model="a")[0]
    assert one["n_rows"] == 1
    assert one["status"] == "too small"
    assert one["reason"].startswith("1 rows, fewer than min_rows=30")
    assert math.isnan(one["ci_lower"]) and one["verdict"] == "not tested"
    none = _records(result, segment="no events", metric="roc_auc", model="a")[0]
    assert none["n_events"] == 0
    assert none["status"] in {"too small", "undefined"}
    assert "events" in none["reason"] or "undefined" in none["status"]
    assert math.isnan(none["ci_lower"])


def test_bootstrap_is_a_per_segment_resample_with_the_segment_seed() -> None:
    y, preds, region = _data(400)
    metrics = ["mean_absolute_error", "kendall_tau"]
    result = by_segment(y, preds, region, metrics=metrics, n_bootstrap=200, random_state=7)
    segments = result.segments["segment"]
    for j, name in enumerate(segments):
        rows = region == name
        seed = np.random.SeedSequence(7, spawn_key=(0, j))
        by_hand = rl.compare_models(
            y[rows],
            {m: p[rows] for m, p in preds.items()},
            metrics=metrics,
            n_bootstrap=200,
            random_state=seed,
        )
        for k, metric in enumerate(metrics):
            for i, model in enumerate(preds):
                record = _records(result, segment=name, metric=metric, model=model)[0]
                assert record["ci_lower"] == by_hand.ci_lower[k, i]
                assert record["ci_upper"] == by_hand.ci_upper[k, i]


def test_difference_and_its_interval_are_model_minus_pick() -> None:
    y, preds, region = _data(500)
    result = by_segment(y, preds, region, metrics=["mean_absolute_error"], n_bootstrap=100)
    pick = result.picks["mean_absolute_error"]
    other = "a" if pick == "b" else "b"
    for name in result.segments["segment"]:
        mine = _records(result, segment=name, model=other)[0]
        theirs = _records(result, segment=name, model=pick)[0]
        assert mine["difference"] == pytest.approx(mine["value"] - theirs["value"], rel=1e-12)
        assert mine["difference_ci_lower"] <= mine["difference"] <= mine["difference_ci_upper"]
        assert theirs["verdict"] == "pick"


def test_pick_is_the_overall_best_per_measure_unless_given() -> None:
    y, preds, region = _data(300)
    result = by_segment(
        y, preds, region, metrics=["mean_absolute_error", "kendall_tau"], n_bootstrap=0
    )
    mae = {m: float(np.mean(np.abs(y - p))) for m, p in preds.items()}
    assert result.picks["mean_absolute_error"] == min(mae, key=mae.get)
    fixed = by_segment(y, preds, region, metrics=["mean_absolute_error"], n_bootstrap=0, pick="a")
    assert fixed.picks == {"mean_absolute_error": "a"}


def test_fdr_adjustment_matches_statsmodels() -> None:
    rng = np.random.default_rng(3)
    for m in (1, 2, 9, 60):
        p = rng.uniform(size=m) ** 2
        p[::4] = p[0]  # ties
        for method, reference in (("bh", "fdr_bh"), ("by", "fdr_by")):
            np.testing.assert_allclose(
                fdr_adjust(p, method), multipletests(p, method=reference)[1], rtol=1e-12
            )
    with_nan = fdr_adjust([0.01, np.nan, 0.04])
    assert math.isnan(with_nan[1])
    np.testing.assert_allclose(with_nan[[0, 2]], multipletests([0.01, 0.04], method="fdr_bh")[1])
    with pytest.raises(ValueError, match="method"):
        fdr_adjust([0.1], "holm")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fdr_adjust([1.5])


def test_verdicts_use_the_adjusted_p_values_of_the_whole_family() -> None:
    y, preds, region = _data(900)
    result = by_segment(
        y, preds, {"region": region, "half": np.arange(y.size) % 2}, n_bootstrap=100
    )
    tested = [r for r in result.records if r.get("q_value") is not None]
    assert len(tested) == result.n_tests
    q = fdr_adjust([r["p_value"] for r in tested])  # the Wald p-values, one family
    np.testing.assert_array_equal([r["q_value"] for r in tested], q)
    for r in tested:
        assert (r["verdict"] in {"better", "worse"}) == (r["q_value"] <= 0.05)


def test_a_clearly_better_model_is_found_in_its_segment() -> None:
    rng = np.random.default_rng(5)
    n = 3000
    y = rng.normal(size=n)
    region = np.repeat(["north", "south", "east"], n // 3)
    a = y + rng.normal(size=n) * 0.8
    b = y + rng.normal(size=n) * np.where(region == "east", 0.2, 1.0)
    result = by_segment(y, {"a": a, "b": b}, region, metrics=["mean_absolute_error"], pick="a")
    better = result.clearly_better()
    assert [(r["segment"], r["model"]) for r in better] == [("east", "b")]
    assert "b beats a on mean_absolute_error where segment = east" in result.summary()
    nothing = by_segment(y[:1000], {"a": a[:1000], "b": a[:1000] + 1e-9}, region[:1000])
    assert nothing.summary().startswith("No segment where another model is clearly better")


def test_scan_finds_the_weak_segment_and_counts_the_search() -> None:
    rng = np.random.default_rng(11)
    n = 3000
    y = rng.normal(size=n)
    channel = rng.choice(["web", "store", "phone"], size=n)
    age = rng.uniform(18, 80, size=n)
    noise = np.where(channel == "phone", 3.0, 0.5)
    preds = {"a": y + rng.normal(size=n) * noise, "b": y + rng.normal(size=n) * noise * 1.1}
    scan = scan_segments(
        y, preds, {"channel": channel, "age": age}, metrics=["mean_absolute_error"], n_bootstrap=200
    )
    assert scan.n_candidates == 3 + 5
    worse = [f for f in scan.findings if f["kind"] == "all models worse"]
    assert [(f["slicing"], f["segment"]) for f in worse] == [("channel", "phone")]
    assert worse[0]["gap"] > 0  # a larger error than overall
    assert scan.n_tests == scan.evaluation.n_tests
    assert "phone" in scan.summary() and "8 segments searched" in scan.summary()
    frame = scan.evaluation.to_frame()
    assert {"level_q_value", "level_verdict"} <= set(frame.columns)


def test_missing_labels_form_their_own_segment_and_are_said() -> None:
    y, preds, _ = _data(300)
    labels = pd.Series(["x", None, "y"] * 100, dtype="string")
    result = by_segment(y, preds, labels, n_bootstrap=0)
    assert result.segments["segment"] == ("x", "y", MISSING_SEGMENT)
    assert any("100 rows with a missing label" in note for note in result.notes)
    missing = _records(result, segment=MISSING_SEGMENT)
    assert {r["n_rows"] for r in missing} == {100}


def test_numeric_columns_are_cut_into_quantile_bins_and_few_values_are_categories() -> None:
    y, preds, _ = _data(500)
    age = np.random.default_rng(2).normal(40, 10, size=500)
    result = by_segment(y, preds, {"age": age, "tier": np.arange(500) % 3}, bins=4, n_bootstrap=0)
    assert len(result.segments["age"]) == 4
    assert result.segments["age"][0].startswith("[") and result.segments["age"][-1].endswith("]")
    assert result.segments["tier"] == ("0", "1", "2")
    counts = {r["segment"]: r["n_rows"] for r in _records(result, slicing="age")}
    assert sum(counts.values()) == 500
    assert any("4 quantile bins" in note for note in result.notes)


def test_cross_is_the_product_only_when_asked() -> None:
    y, preds, region = _data(600)
    half = np.where(np.arange(600) < 300, "first", "second")
    plain = by_segment(y, preds, {"region": region, "half": half}, n_bootstrap=0)
    assert plain.slicings == ("region", "half")
    crossed = by_segment(y, preds, {"region": region, "half": half}, n_bootstrap=0, cross=True)
    assert crossed.slicings == ("region", "half", "region x half")
    assert "east & first" in crossed.segments["region x half"]


def test_groups_resample_whole_units_inside_each_segment() -> None:
    y, preds, region = _data(600)
    units = np.arange(600) // 3
    result = by_segment(
        y, preds, region, groups=units, metrics=["mean_absolute_error"], n_bootstrap=100
    )
    rows = region == "east"
    seed = np.random.SeedSequence(0, spawn_key=(0, 0))
    by_hand = rl.compare_models(
        y[rows],
        {m: p[rows] for m, p in preds.items()},
        metrics=["mean_absolute_error"],
        n_bootstrap=100,
        random_state=seed,
        groups=units[rows],
    )
    record = _records(result, segment="east", model="a")[0]
    assert record["ci_lower"] == by_hand.ci_lower[0, 0]


@pytest.mark.parametrize(("scheme", "block_length"), [("stationary", "auto"), ("circular", 7)])
def test_a_block_scheme_resamples_each_segment_in_the_order_given(
    scheme: str, block_length: float | str
) -> None:
    y, preds, region = _data(500)
    metrics = ["mean_absolute_error", "kendall_tau"]
    result = by_segment(
        y,
        preds,
        region,
        metrics=metrics,
        n_bootstrap=150,
        scheme=scheme,
        block_length=block_length,
        random_state=3,
    )
    assert result.scheme == scheme and result.block_length == block_length
    assert list(result.to_frame().columns)[-1] == "block_length"
    for j, name in enumerate(result.segments["segment"]):
        rows = region == name
        by_hand = rl.compare_models(
            y[rows],
            {m: p[rows] for m, p in preds.items()},
            metrics=metrics,
            n_bootstrap=150,
            random_state=np.random.SeedSequence(3, spawn_key=(0, j)),
            scheme=scheme,
            block_length=block_length,
        )
        assert by_hand.block_length is not None
        for k, metric in enumerate(metrics):
            for i, model in enumerate(preds):
                record = _records(result, segment=name, metric=metric, model=model)[0]
                assert record["ci_lower"] == by_hand.ci_lower[k, i]
                assert record["ci_upper"] == by_hand.ci_upper[k, i]
                assert record["block_length"] == by_hand.block_length
                assert record["interval_method"] == by_hand.interval_methods[k]


def test_the_default_scheme_is_unchanged_and_shows_no_block_length() -> None:
    y, preds, region = _data(300)
    default = by_segment(y, preds, region, metrics=["mean_absolute_error"], n_bootstrap=40)
    rows = by_segment(
        y, preds, region, metrics=["mean_absolute_error"], n_bootstrap=40, scheme="multinomial"
    )
    assert default.scheme == "multinomial" and "block_length" not in default.to_frame()
    pd.testing.assert_frame_equal(default.to_frame(), rows.to_frame())


def test_a_block_longer_than_a_segment_leaves_it_not_compared_and_says_why() -> None:
    y, preds, region = _data(300)
    result = by_segment(
        y,
        preds,
        region,
        metrics=["mean_absolute_error"],
        n_bootstrap=40,
        scheme="circular",
        block_length=150,
    )
    for record in result.records:
        if record["n_rows"] < 150:
            assert record["status"] == "not compared"
            assert "block_length" in record["reason"]
        else:
            assert record["status"] == "estimated"


@pytest.mark.parametrize(
    ("argument", "kwargs", "match"),
    [
        ("predictions", {"predictions": {"a": np.zeros(10)}}, "two model"),
        ("scheme", {"scheme": "blocks"}, "scheme must be one of"),
        ("groups", {"scheme": "stationary", "groups": np.arange(10) % 3}, "groups"),
        ("block_length", {"block_length": 4}, "block_length .*draws no blocks"),
        ("block_length", {"scheme": "circular", "block_length": 0.5}, "block_length must be"),
        ("block_length", {"scheme": "circular", "block_length": "long"}, "block_length must be"),
        ("bins", {"bins": 1}, "bins"),
        ("min_rows", {"min_rows": 0}, "min_rows"),
        ("pick", {"pick": "zzz"}, "pick"),
        ("fdr", {"fdr": "holm"}, "fdr"),
        ("metrics", {"metrics": ["interval_score"]}, "interval_score"),
        ("metrics", {"metrics": ["pmap"]}, "pmap"),
        ("segments", {"segments": np.array([None] * 10)}, "all missing"),
        ("segments", {"segments": np.zeros(9)}, "length"),
    ],
)
def test_invalid_arguments_are_named(argument: str, kwargs: dict, match: str) -> None:
    rng = np.random.default_rng(0)
    call = {
        "y_true": rng.normal(size=10),
        "predictions": {"a": rng.normal(size=10), "b": rng.normal(size=10)},
        "segments": np.array(["x", "y"] * 5),
    }
    call.update(kwargs)
    with pytest.raises(ValueError, match=match):
        by_segment(call.pop("y_true"), call.pop("predictions"), call.pop("segments"), **call)


def test_containers_give_the_same_numbers() -> None:
    y, preds, region = _data(300)
    expected = by_segment(y, preds, region, n_bootstrap=30).to_frame()
    frame = pd.DataFrame({"y": y, "a": preds["a"], "b": preds["b"], "region": region})
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    buffer.seek(0)
    read = pd.read_csv(buffer)
    from_csv = by_segment(read["y"], read[["a", "b"]], read["region"], n_bootstrap=30).to_frame()
    pd.testing.assert_frame_equal(
        from_csv.drop(columns="slicing"), expected.drop(columns="slicing")
    )
    assert set(from_csv["slicing"]) == {"region"}
    arrow = frame.astype({"y": "float64[pyarrow]", "region": "string[pyarrow]"})
    from_arrow = by_segment(
        arrow["y"], {"a": preds["a"], "b": preds["b"]}, arrow["region"], n_bootstrap=30
    ).to_frame()
    pd.testing.assert_frame_equal(
        from_arrow.drop(columns="slicing"), expected.drop(columns="slicing")
    )
    locked = {m: np.repeat(p, 2)[::2] for m, p in preds.items()}  # non-contiguous views
    for p in locked.values():
        p.flags.writeable = False
    from_views = by_segment(y, locked, region, n_bootstrap=30).to_frame()
    pd.testing.assert_frame_equal(from_views, expected)


def test_polars_inputs() -> None:
    pl = pytest.importorskip("polars")
    y, preds, region = _data(300)
    expected = by_segment(y, preds, {"region": region}, n_bootstrap=30).to_frame()
    frame = pl.DataFrame({"y": y, "a": preds["a"], "b": preds["b"], "region": region})
    got = by_segment(
        frame["y"], frame.select(["a", "b"]).to_pandas(), frame.select(["region"]), n_bootstrap=30
    ).to_frame()
    pd.testing.assert_frame_equal(got, expected)


def test_to_dict_is_json_ready() -> None:
    import json

    y, preds, region = _data(200)
    result = by_segment(y, preds, region, n_bootstrap=20)
    json.dumps(result.to_dict(), allow_nan=True)
    assert "by_segment" in rl.__dir__() or hasattr(rl, "by_segment")


@pytest.mark.slow
def test_false_discovery_rate_holds_under_no_difference() -> None:
    """With two equally good models, the share of data sets in which any segment is called
    clearly better stays near the nominal 5 % (under the global null the FDR is that share)."""
    runs, hits = 120, 0
    for seed in range(runs):
        rng = np.random.default_rng(1000 + seed)
        n = 400
        y = rng.normal(size=n)
        preds = {"a": y + rng.normal(size=n), "b": y + rng.normal(size=n)}
        region = rng.choice(["n", "s", "e", "w"], size=n)
        result = by_segment(
            y,
            preds,
            region,
            metrics=["mean_absolute_error", "kendall_tau"],
            n_bootstrap=200,
            random_state=seed,
        )
        hits += any(r["verdict"] in {"better", "worse"} for r in result.records)
    share = hits / runs
    # 0.05 plus three Monte Carlo standard errors of a proportion of 0.05 over 120 runs
    assert share <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs), share


def test_wald_p_value() -> None:
    from scipy.stats import norm

    from ranklens.segments import wald_p_value

    assert wald_p_value(1.5, 1.0) == pytest.approx(2 * norm.sf(1.5), rel=1e-14)
    assert wald_p_value(-40.0, 1.0) == pytest.approx(2 * norm.sf(40.0), rel=1e-10)  # no floor
    assert wald_p_value(0.0, 0.0) == 1.0
    assert math.isnan(wald_p_value(0.3, 0.0))
    assert math.isnan(wald_p_value(math.nan, 1.0))
