"""Rows in time order in the pipeline: ``evaluate_models(time=, scheme=, block_length=)``.

The rows are sorted by their times before anything else (a stable sort), so that a shuffled
input gives the numbers of the sorted one; the comparison is then
:func:`ranklens.compare_models` with ``scheme="stationary"`` and the one block length the
pipeline chose, on the sorted rows, with the same seed and replicates, number for number, and
the bands are :func:`ranklens.curve_bands` with the same scheme. DeLong's and Noether's
analytic intervals give way to the block bootstrap. Without a declared order the rows are
checked for serial dependence: no warning on independent rows (a simulation with a fixed seed),
a warning on AR(1) errors. Bad input is a ``ValueError`` naming the argument.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from ranklens import compare_models, curve_bands, evaluate_models
from ranklens._inference.method_names import interval_methods
from ranklens._inference.resampling import resolve_block_length
from ranklens._inference.serial_check import check_serial_dependence
from ranklens.evaluation import ALL_MODELS, evaluation_to_json
from report_schema import results_schema, validate

N = 240
N_BOOT = 120
SEED = 5
#: Measures with no task parameter: compare_models evaluates them as the pipeline does.
PLAIN = ["root_mean_squared_error", "mean_absolute_error", "kendall_tau", "spearman_rho"]


def _ar1(rng: np.random.Generator, n: int, phi: float = 0.7) -> np.ndarray:
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0] / math.sqrt(1.0 - phi**2)
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


@pytest.fixture(scope="module")
def series() -> pd.DataFrame:
    """Daily rows in time order, two models whose errors are AR(1) with coefficient 0.7."""
    rng = np.random.default_rng(20260301)
    y = rng.normal(size=N)
    return pd.DataFrame(
        {
            "date": pd.date_range("2023-01-02", periods=N, freq="D"),
            "y": y,
            "a": y + _ar1(rng, N),
            "b": y + 1.2 * _ar1(rng, N),
        }
    )


@pytest.fixture(scope="module")
def shuffled(series) -> pd.DataFrame:
    return series.sample(frac=1.0, random_state=3).reset_index(drop=True)


def _evaluate(table: pd.DataFrame, **kw):
    kw.setdefault("n_bootstrap", N_BOOT)
    kw.setdefault("random_state", SEED)
    kw.setdefault("robustness", False)
    kw.setdefault("bootstrap_budget_s", math.inf)
    return evaluate_models(
        table["y"].to_numpy(),
        {"a": table["a"].to_numpy(), "b": table["b"].to_numpy()},
        **kw,
    )


@pytest.fixture(scope="module")
def timed(shuffled):
    return _evaluate(shuffled, time=shuffled["date"], curves=False)


def test_comparison_is_compare_models_stationary_on_the_sorted_rows(series, timed):
    y = series["y"].to_numpy()
    preds = {"a": series["a"].to_numpy(), "b": series["b"].to_numpy()}
    length = resolve_block_length("auto", "stationary", y, np.vstack(list(preds.values())))
    assert timed.settings["scheme"] == "stationary"
    assert timed.settings["block_length"] == length > 1.0
    ours = timed.comparison
    assert ours.scheme == "stationary" and ours.block_length == length
    ref = compare_models(
        y,
        preds,
        metrics=PLAIN,
        n_bootstrap=N_BOOT,
        random_state=SEED,
        scheme="stationary",
        block_length=length,
        show_progress=False,
    )
    for k, metric in enumerate(PLAIN):
        j = ours.metrics.index(metric)
        for field in (
            "values",
            "ci_lower",
            "ci_upper",
            "difference",
            "difference_sd",
            "p_value",
            "difference_ci_lower",
            "difference_ci_upper",
        ):
            np.testing.assert_array_equal(getattr(ours, field)[j], getattr(ref, field)[k], field)
        np.testing.assert_array_equal(ours.replicates[:, j], ref.replicates[:, k])
    # and not the row bootstrap's: the blocks were used
    rows = compare_models(
        y, preds, metrics=PLAIN, n_bootstrap=N_BOOT, random_state=SEED, show_progress=False
    )
    assert not np.array_equal(rows.ci_lower, ref.ci_lower)


def test_analytic_intervals_give_way_to_the_blocks(timed):
    # one bootstrap comparison of every measure: no DeLong or Noether row is put in
    assert type(timed.comparison).__name__ == "ComparisonResult"
    assert "roc_auc" in timed.comparison.metrics and "kendall_tau" in timed.comparison.metrics
    methods = set(interval_methods(timed.comparison))
    assert methods <= {"bootstrap-bca", "bootstrap-percentile"}, methods
    sentence = timed.settings["block bootstrap"]
    assert sentence.startswith(
        "every interval and paired test from the stationary bootstrap (Politis & Romano 1994), "
        f"mean block length {timed.settings['block_length']:.3g} chosen by Politis & White (2004)"
    )
    assert "not used with blocks" in sentence
    last = pd.Timestamp("2023-01-02") + pd.Timedelta(days=N - 1)
    assert timed.settings["time"] == (
        f"'date': {N} rows from 2023-01-02 to {last:%Y-%m-%d} (rows sorted by it)"
    )
    assert timed.serial_dependence is None  # an order was declared: nothing to check


def test_shuffled_rows_give_the_numbers_of_the_sorted_rows(series, shuffled):
    labels = np.where(np.arange(N) % 3 == 0, "north", "south")
    position = pd.Series(np.arange(N), index=series["date"])
    shuffled_labels = labels[position.loc[shuffled["date"]].to_numpy()]
    kw = dict(curves=True, robustness=True, by=None)
    ordered = _evaluate(series, time=series["date"], **{**kw, "by": labels})
    mixed = _evaluate(shuffled, time=shuffled["date"], **{**kw, "by": shuffled_labels})
    assert ordered.values == mixed.values
    for field in ("ci_lower", "ci_upper", "p_value", "difference_ci_lower", "replicates"):
        np.testing.assert_array_equal(
            getattr(ordered.comparison, field), getattr(mixed.comparison, field)
        )
    np.testing.assert_array_equal(ordered.extras["y_true"], mixed.extras["y_true"])
    assert {m: t.to_dict() for m, t in ordered.robustness.items()} == {
        m: t.to_dict() for m, t in mixed.robustness.items()
    }
    assert ordered.extras["bands"].keys() == mixed.extras["bands"].keys()
    assert ordered.segments.to_frame().equals(mixed.segments.to_frame())
    # the segments resample blocks of their rows in time order, with the evaluation's scheme
    # and its one block length, and no note says otherwise
    assert mixed.segments.scheme == "stationary"
    assert mixed.segments.block_length == mixed.settings["block_length"]
    assert "segments' intervals" not in mixed.problems.get(ALL_MODELS, {})
    # the bands use the scheme and the length of the comparison
    curve, band = next(iter(mixed.extras["bands"].items()))
    ref = curve_bands(
        series["y"].to_numpy(),
        {"a": series["a"].to_numpy(), "b": series["b"].to_numpy()},
        curve=curve,
        n_bootstrap=N_BOOT,
        random_state=SEED,
        scheme="stationary",
        block_length=mixed.settings["block_length"],
        show_progress=False,
    )
    assert json.dumps(band.to_dict(), default=str) == json.dumps(ref.to_dict(), default=str)


def test_a_scheme_without_time_takes_the_rows_as_given(shuffled):
    result = _evaluate(shuffled, scheme="circular", block_length=7, curves=False)
    assert result.settings["scheme"] == "circular" and result.settings["block_length"] == 7.0
    assert (
        "block length 7 given, over the rows in the order given"
        in (result.settings["block bootstrap"])
    )
    assert "time" not in result.settings
    ref = compare_models(
        shuffled["y"].to_numpy(),
        {"a": shuffled["a"].to_numpy(), "b": shuffled["b"].to_numpy()},
        metrics=PLAIN,
        n_bootstrap=N_BOOT,
        random_state=SEED,
        scheme="circular",
        block_length=7,
        show_progress=False,
    )
    j = result.comparison.metrics.index("mean_absolute_error")
    np.testing.assert_array_equal(result.comparison.ci_lower[j], ref.ci_lower[1])


def test_times_of_every_kind_sort_the_same(series, shuffled):
    base = _evaluate(shuffled, time=shuffled["date"], curves=False, n_bootstrap=20)
    as_text = shuffled["date"].dt.strftime("%Y-%m-%dT%H:%M:%S")
    zoned = shuffled["date"].dt.tz_localize("Europe/Paris")
    mixed_offsets = zoned.dt.tz_convert("America/New_York").astype(str)
    for given in (
        as_text,
        shuffled["date"].to_numpy(),
        zoned,
        mixed_offsets,
        list(shuffled["date"].dt.date),
        shuffled["date"].astype("int64").to_numpy() // 10**9,  # seconds: a time index
    ):
        other = _evaluate(shuffled, time=given, curves=False, n_bootstrap=20)
        np.testing.assert_array_equal(base.extras["y_true"], other.extras["y_true"])
        assert other.settings["block_length"] == base.settings["block_length"]


def test_data_with_a_time_column_equals_the_arrays(shuffled):
    from_data = evaluate_models(
        "y",
        ["a", "b"],
        data=shuffled,
        time="date",
        n_bootstrap=40,
        random_state=SEED,
        curves=False,
        robustness=False,
    )
    arrays = _evaluate(shuffled, time=shuffled["date"], curves=False, n_bootstrap=40)
    np.testing.assert_array_equal(from_data.comparison.ci_lower, arrays.comparison.ci_lower)
    assert from_data.settings["time"].startswith("'date': 240 rows from 2023-01-02")


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (dict(scheme="multinomial"), "scheme must be one of ('stationary', 'circular')"),
        (dict(block_length=5), "block_length is the length of the blocks"),
        (dict(scheme="stationary", block_length="long"), "block_length must be 'auto' or a number"),
        (dict(scheme="stationary", block_length=10_000), "block_length must lie in [1, 240]"),
        (dict(scheme="stationary", n_bootstrap=0), "with n_bootstrap=0 nothing is resampled"),
        (dict(time="dates", n_bootstrap=0), "time (scheme='stationary' by default)"),
        (dict(scheme="circular", groups=np.arange(N) % 20), "groups: scheme='circular'"),
        (dict(time="dates", groups=np.arange(N) % 20), "groups: time"),
        (dict(time=["2024-01-01"] * 3), "time has length 3; the data have 240 rows"),
        (dict(time="missing"), "time: 1 row(s) have no time (the first is row 8)"),
        (dict(time="text"), "time: row 5: 'soon' is not a date or time (ISO 8601"),
        (dict(time="offsets"), "time mixes times with a UTC offset and times without one"),
        (dict(time=np.ones(N, dtype=bool)), "got booleans"),
    ],
)
def test_bad_input_is_refused_by_name(shuffled, kw, message):
    dates = shuffled["date"].dt.strftime("%Y-%m-%d").to_list()
    named = {
        "dates": dates,
        "missing": [*dates[:7], None, *dates[8:]],
        "text": [*dates[:4], "soon", *dates[5:]],
        "offsets": [d + "T00:00:00+01:00" for d in dates[:-1]] + [dates[-1] + "T00:00:00"],
    }
    if isinstance(kw.get("time"), str):
        kw = {**kw, "time": named[kw["time"]]}
    with pytest.raises(ValueError) as caught:
        _evaluate(shuffled, curves=False, **kw)
    assert message in str(caught.value)


@pytest.mark.parametrize("scheme", ["stationary", "circular"])
def test_dask_refuses_the_in_memory_block_schemes_by_name(scheme):
    """The Dask engine draws fixed blocks (``scheme="blocks"``), refused before any read; its
    runs with ``time`` are in tests/engines/test_dask_time_pipeline.py."""
    with pytest.raises(ValueError, match=f"^scheme='{scheme}' is not available on Dask"):
        evaluate_models(
            "y",
            ["a", "b"],
            data="unused.parquet",
            engine="dask",
            time="date",
            scheme=scheme,
            n_bootstrap=20,
        )


# --------------------------------------------------------------------------------------------
# The check for serial dependence when no order is declared


def test_independent_rows_do_not_warn():
    """At n = 500, three models with independent errors (one heavy-tailed): at most 1% of 300
    data sets warn (none do with this seed)."""
    rng = np.random.default_rng(20260302)
    warned = 0
    for _ in range(300):
        y = rng.normal(size=500)
        preds = {
            "a": y + rng.normal(size=500),
            "b": y + rng.standard_t(4, size=500),
            "c": 0.5 * y + rng.normal(size=500),
        }
        warned += check_serial_dependence(y, preds).warns
    assert warned <= 3, warned


def test_autocorrelated_errors_warn():
    rng = np.random.default_rng(20260303)
    for _ in range(20):
        y = rng.normal(size=500)
        check = check_serial_dependence(y, {"a": y + _ar1(rng, 500), "b": y + _ar1(rng, 500)})
        assert check.warns
        worst = int(np.nanargmax(check.variance_ratio))
        # AR(1) 0.7: the absolute errors' lag-1 autocorrelation is about 0.45, the ratio near 2
        assert 0.25 < check.autocorrelations[worst, 0] < 0.65
        assert check.variance_ratio[worst] > check.threshold == 1.5625
        assert check.warning.startswith("the rows look serially dependent: ")
        assert 'too narrow; give time= or scheme="stationary"' in check.warning


def test_the_pipeline_records_the_warning_in_problems_and_json(series):
    result = _evaluate(series, curves=False, n_bootstrap=40)
    check = result.serial_dependence
    assert check is not None and check.warns and check.pick in ("a", "b")
    assert check.series[:2] == ("a", "b") and check.kinds[2] == "difference of absolute errors"
    note = result.problems[ALL_MODELS]["serial dependence"]
    assert note.kind == "note" and note.message == check.warning
    # the numbers: the autocorrelations are those of the absolute errors, in the given order
    errors = np.abs(series["y"] - series["a"]).to_numpy()
    centred = errors - errors.mean()
    lag_1 = centred[:-1] @ centred[1:] / (centred @ centred)
    assert check.autocorrelations[0, 0] == pytest.approx(lag_1, rel=1e-12)
    doc = json.loads(json.dumps(evaluation_to_json(result)))
    validate(doc, results_schema())
    block = doc["serial_dependence"]
    assert block["warning"] == check.warning and block["bandwidth"] == 4
    assert [s["series"] for s in block["series"]] == list(check.series)
    assert block["series"][0]["variance_ratio"] == pytest.approx(check.variance_ratio[0])
    assert "scheme" not in doc["comparison"]
    # declared orders skip it, and a block scheme's settings reach the JSON
    timed = _evaluate(series, time=series["date"], curves=False, n_bootstrap=40)
    timed_doc = json.loads(json.dumps(evaluation_to_json(timed)))
    validate(timed_doc, results_schema())
    assert "serial_dependence" not in timed_doc
    assert timed_doc["comparison"]["scheme"] == "stationary"
    assert timed_doc["comparison"]["block_length"] == timed.settings["block_length"]
    grouped = _evaluate(series, curves=False, n_bootstrap=40, groups=np.arange(N) % 20)
    assert grouped.serial_dependence is None
