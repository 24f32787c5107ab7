"""The comparison engine: paired bootstrap, permutation test, intervals, reproducibility."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numba
import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats

from ranklens.compare import (
    DEFAULT_COMPARISON_METRICS,
    ComparisonResult,
    PermutationTestResult,
    compare_models,
)
from ranklens.exceptions import FewEventsWarning, UndefinedMetricWarning, warn_undefined
from ranklens.metrics import get_metric
from ranklens.residual import mean_absolute_error as mae
from ranklens.residual import median_absolute_error
from ranklens.residual import root_mean_squared_error as rmse
from reference_compare import bootstrap_indices, materialised_bootstrap, swap_masks


def _wallets(rng: np.random.Generator, n: int = 300) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Long-tailed truth and two multiplicative-noise models, M1 better than M2."""
    y = rng.lognormal(0.0, 1.0, n)
    return y, {
        "m1": y * rng.lognormal(0.0, 0.5, n),
        "m2": y * rng.lognormal(0.0, 1.0, n),
    }


def _generic(name: str):
    """The registered metric behind a wrapper, so the engine must take its generic path."""
    spec = get_metric(name)

    def func(y_true, y_pred, *, sample_weight=None):
        return spec.func(y_true, y_pred, sample_weight=sample_weight)

    return dataclasses.replace(spec, func=func)


# ---------------------------------------------------------------------------------------------
# the resampling is the textbook bootstrap, paired, reproducible
# ---------------------------------------------------------------------------------------------


def test_weighted_replicates_equal_materialised_resamples(rng):
    y, preds = _wallets(rng, 150)
    res = compare_models(
        y,
        preds,
        metrics=["root_mean_squared_error", "mean_absolute_error", "median_absolute_error"],
        n_bootstrap=70,
        random_state=11,
        interval="percentile",
        show_progress=False,
    )
    # the median's replicates come from its replicate sweep (ReplicateForm)
    assert res.evaluation == ("kernel", "kernel", "kernel")
    ref = materialised_bootstrap(
        y, list(preds.values()), [rmse, mae, median_absolute_error], 70, 11
    )
    np.testing.assert_allclose(res.replicates, ref, rtol=1e-12, atol=0)


def test_kernel_path_equals_generic_path_with_weights(rng):
    y, preds = _wallets(rng, 120)
    w = rng.integers(0, 4, y.shape[0]).astype(float)
    names = [
        "root_mean_squared_error",
        "mean_absolute_error",
        "mean_squared_error",
        "log_rmse",
        "rmspe",
        "epsilon_insensitive_loss",
    ]
    # one interval method for both paths (interval="auto" follows the measure's form)
    kwargs = dict(
        n_bootstrap=50, random_state=3, sample_weight=w, show_progress=False, interval="bca"
    )
    fast = compare_models(y, preds, metrics=names, **kwargs)
    slow = compare_models(y, preds, metrics=[_generic(n) for n in names], **kwargs)
    assert set(fast.evaluation) == {"kernel"}
    assert set(slow.evaluation) == {"generic"}
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-10)
    for field in ("values", "std_error", "ci_lower", "ci_upper", "difference_sd", "p_value"):
        np.testing.assert_allclose(getattr(fast, field), getattr(slow, field), rtol=1e-9)


def test_same_random_state_same_numbers_and_prefix_property(rng):
    y, preds = _wallets(rng, 200)
    a = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=150,
        random_state=5,
        show_progress=False,
    )
    b = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=150,
        random_state=5,
        show_progress=False,
    )
    c = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=150,
        random_state=6,
        show_progress=False,
    )
    short = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=40,
        random_state=5,
        show_progress=False,
    )
    np.testing.assert_array_equal(a.replicates, b.replicates)
    np.testing.assert_array_equal(a.ci_lower, b.ci_lower)
    assert not np.array_equal(a.replicates, c.replicates)
    # replicate b depends only on the seed and b: the first 40 of 150 are the 40 of a short run
    np.testing.assert_array_equal(short.replicates, a.replicates[:40])


def test_generator_random_state_is_accepted(rng):
    y, preds = _wallets(rng, 60)
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=20,
        random_state=np.random.default_rng(1),
        show_progress=False,
    )
    assert np.isfinite(res.std_error).all()


def test_independent_of_thread_count(rng):
    y, preds = _wallets(rng, 5000)
    preds["m3"] = y + rng.normal(0, 1, y.shape[0])
    before = numba.get_num_threads()
    results = []
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            results.append(
                compare_models(
                    y,
                    preds,
                    metrics=["root_mean_squared_error", "mean_absolute_error"],
                    n_bootstrap=130,
                    random_state=9,
                    show_progress=False,
                )
            )
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(results[0].replicates, results[1].replicates)
    np.testing.assert_array_equal(results[0].ci_upper, results[1].ci_upper)


def test_the_comparison_is_paired(rng):
    """B = A + tiny noise: the paired difference is far more precise than either value."""
    y, preds = _wallets(rng, 400)
    preds = {"a": preds["m1"], "b": preds["m1"] + rng.normal(0, 1e-3, y.shape[0])}
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=200,
        random_state=0,
        show_progress=False,
    )
    assert res.difference_sd[0, 0] < 0.01 * res.std_error[0].min()


# ---------------------------------------------------------------------------------------------
# intervals and p-values
# ---------------------------------------------------------------------------------------------


class _Distribution:
    def __init__(self, values):
        self.bootstrap_distribution = values


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_intervals_equal_scipy_on_the_same_replicates(rng, interval):
    """With n <= 100 the BCa acceleration is the ordinary jackknife, as in scipy."""
    y, preds = _wallets(rng, 80)
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=400,
        random_state=2,
        interval=interval,
        confidence_level=0.9,
        show_progress=False,
    )
    for m, pred in enumerate(preds.values()):
        ci = stats.bootstrap(
            (y, pred),
            lambda a, b: mae(a, b),
            paired=True,
            vectorized=False,
            n_resamples=0,
            bootstrap_result=_Distribution(res.replicates[:, 0, m]),
            method="BCa" if interval == "bca" else "percentile",
            confidence_level=0.9,
        ).confidence_interval
        np.testing.assert_allclose([res.ci_lower[0, m], res.ci_upper[0, m]], ci, rtol=1e-10)


def test_gaussian_p_values_follow_table_2_convention(rng):
    # Rosset, Perlich & Zadrozny (2005) Table 2: difference, bootstrap SD and the printed
    # (one-sided) p-value.
    table2 = [
        (96890, 92649, 0.14778),
        (25124, 33498, 0.22663),
        (0.1154, 0.0304, 0.00007),
        (0.1529, 0.0426, 0.00016),
    ]
    for diff, sd, printed in table2:
        # the printed inputs are rounded; one-sided fits, two-sided (twice as large) does not
        assert stats.norm.sf(diff / sd) == pytest.approx(printed, rel=2e-3, abs=1e-5)
    y, preds = _wallets(rng, 300)
    res = compare_models(
        y,
        preds,
        n_bootstrap=100,
        random_state=1,
        show_progress=False,
        metrics=["root_mean_squared_error", "mean_absolute_error"],
    )
    z = res.difference / res.difference_sd
    np.testing.assert_allclose(res.z, z)
    np.testing.assert_allclose(res.p_value_one_sided, stats.norm.sf(np.abs(z)))


def _recount_p_values(res):
    """The two-sided bootstrap p-values recounted from the stored replicates by their
    definitions (Hall & Wilson 1991; Davison & Hinkley 1997, Sect. 4.4.1), one by one."""
    out = np.full(res.p_value.shape, np.nan)
    for k in range(len(res.metrics)):
        for j, (a, b) in enumerate(res.pairs):
            ia, ib = res.models.index(a), res.models.index(b)
            d = res.difference[k, j]
            if res.difference_interval_methods[k] == "bootstrap-studentized":
                t = [x for x in res.studentized_replicates[:, k, j] if not np.isnan(x)]
                observed = abs(d) / res.difference_se[k, j]
                beyond = sum(1 for x in t if abs(x) >= observed)
                out[k, j] = 1.0 if d == 0 else (1 + beyond) / (len(t) + 1)
            else:
                reps = res.replicates[:, k, ia] - res.replicates[:, k, ib]
                reps = [x for x in reps if np.isfinite(x)]
                beyond = sum(1 for x in reps if abs(x - d) >= abs(d))
                out[k, j] = (1 + beyond) / (len(reps) + 1)
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_p_value_is_the_bootstrap_test_dual_to_each_pairs_interval(rng, weighted):
    # studentized pairs (the mean losses) and percentile pairs (the rank measures), with ties
    n = 80
    y = np.round(rng.normal(size=n), 1)
    preds = {m: np.round(y + s * rng.normal(size=n), 1) for m, s in (("a", 0.5), ("b", 0.9))}
    preds["c"] = preds["a"] + 0.05
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    res = compare_models(
        y, preds, sample_weight=w, n_bootstrap=399, random_state=3, show_progress=False
    )
    assert "bootstrap-studentized" in res.difference_interval_methods
    assert "bootstrap-percentile" in res.difference_interval_methods
    np.testing.assert_allclose(res.p_value, _recount_p_values(res), rtol=1e-12)
    studentized = np.array(res.difference_interval_methods) == "bootstrap-studentized"
    assert np.isnan(res.difference_se[~studentized]).all()
    assert np.isfinite(res.difference_se[studentized]).all()
    # the test's t* are the differences' replicates studentized by their own SEs: centred
    # at the estimate, they have about unit spread
    t = res.studentized_replicates[:, studentized]
    assert np.nanstd(t, axis=0) == pytest.approx(1.0, abs=0.25)


def test_bootstrap_p_values_of_exchangeable_models_are_uniform():
    rng = np.random.default_rng(7)
    p_values = []
    for _ in range(200):
        y = rng.normal(size=150)
        preds = {"a": y + rng.normal(size=150), "b": y + rng.normal(size=150)}
        res = compare_models(
            y,
            preds,
            metrics=["mean_absolute_error"],
            n_bootstrap=200,
            interval="percentile",
            random_state=rng,
            show_progress=False,
        )
        p_values.append(res.p_value[0, 0])
    assert stats.kstest(p_values, "uniform").pvalue > 1e-3


def test_permutation_test_matches_reference(rng):
    y, preds = _wallets(rng, 90)
    res = compare_models(
        y,
        preds,
        metrics=["root_mean_squared_error", "median_absolute_error"],
        n_bootstrap=60,
        method="permutation",
        random_state=4,
        show_progress=False,
    )
    assert isinstance(res, PermutationTestResult) and res.n_permutations == 60
    assert res.null_differences.shape == (60, 2, 1)
    pa, pb = preds["m1"], preds["m2"]
    ref = np.array(
        [
            [
                rmse(y, np.where(s, pb, pa)) - rmse(y, np.where(s, pa, pb)),
                median_absolute_error(y, np.where(s, pb, pa))
                - median_absolute_error(y, np.where(s, pa, pb)),
            ]
            for s in swap_masks(y.shape[0], 60, 4)
        ]
    )
    np.testing.assert_allclose(res.null_differences[:, :, 0], ref, rtol=1e-10, atol=1e-14)
    extreme = (np.abs(ref) >= np.abs(res.difference[:, 0]) * (1 - 1e-10)).sum(axis=0)
    np.testing.assert_allclose(res.p_value[:, 0], (1 + extreme) / 61)


def test_permutation_of_identical_models_gives_p_one(rng):
    y, preds = _wallets(rng, 50)
    res = compare_models(
        y,
        {"a": preds["m1"], "b": preds["m1"]},
        metrics=["mean_absolute_error"],
        n_bootstrap=30,
        method="permutation",
        random_state=0,
        show_progress=False,
    )
    assert res.difference[0, 0] == 0
    assert res.p_value[0, 0] == 1.0
    # no difference and a null of zeros: z is 0, as for the bootstrap, not 0/0
    assert res.null_sd[0, 0] == 0 and res.z[0, 0] == 0


def test_identical_models_bootstrap(rng):
    y, preds = _wallets(rng, 50)
    res = compare_models(
        y,
        {"a": preds["m1"], "b": preds["m1"]},
        metrics=["mean_absolute_error"],
        n_bootstrap=30,
        random_state=0,
        show_progress=False,
    )
    assert res.difference_sd[0, 0] == 0 and res.p_value[0, 0] == 1.0
    assert res.difference_ci_lower[0, 0] == 0 == res.difference_ci_upper[0, 0]


def test_bca_shifts_towards_the_skew_of_rmse(rng):
    """RMSE on a long-tailed target: the BCa interval sits to the right of the percentile one."""
    y = rng.lognormal(0, 1.5, 400)
    preds = {"a": y * rng.lognormal(0, 0.5, 400)}
    kw = dict(
        metrics=["root_mean_squared_error"], n_bootstrap=1000, random_state=0, show_progress=False
    )
    bca = compare_models(y, preds, interval="bca", **kw)
    pct = compare_models(y, preds, interval="percentile", **kw)
    assert bca.ci_upper[0, 0] > pct.ci_upper[0, 0]
    assert bca.ci_lower[0, 0] > pct.ci_lower[0, 0]


# ---------------------------------------------------------------------------------------------
# undefined replicates
# ---------------------------------------------------------------------------------------------


def _fragile(y_true, y_pred, *, sample_weight=None):
    """Undefined (NaN with a warning) when fewer than 4 rows carry weight."""
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight)
    if np.count_nonzero(w) < 4:
        warn_undefined("fewer than four distinct rows")
        return float("nan")
    return float(np.average(np.abs(np.asarray(y_true) - y_pred), weights=w))


def test_undefined_replicates_are_counted_and_reported(rng):
    spec = dataclasses.replace(get_metric("mean_absolute_error"), name="fragile", func=_fragile)
    y, preds = _wallets(rng, 5)
    with pytest.warns(
        UndefinedMetricWarning, match=r"fragile of model 'm[12]' is undefined in \d+ of 200"
    ):
        res = compare_models(
            y, preds, metrics=[spec], n_bootstrap=200, random_state=0, show_progress=False
        )
    assert (res.n_undefined > 0).all()
    assert (res.n_undefined == np.isnan(res.replicates).sum(axis=0)).all()
    assert np.isfinite(res.std_error).all() and np.isfinite(res.ci_lower).all()


# ---------------------------------------------------------------------------------------------
# results and inputs
# ---------------------------------------------------------------------------------------------


def test_frames_and_dict(rng):
    y, preds = _wallets(rng, 100)
    preds["m3"] = y + rng.normal(0, 2, y.shape[0])
    res = compare_models(
        y,
        preds,
        metrics=["root_mean_squared_error", "mean_absolute_error"],
        n_bootstrap=50,
        random_state=0,
        show_progress=False,
    )
    assert isinstance(res, ComparisonResult)
    assert res.pairs == (("m1", "m2"), ("m1", "m3"), ("m2", "m3"))
    frame = res.to_frame()
    assert len(frame) == 2 * 3
    row = frame.iloc[0]
    assert (row.metric, row.model_a, row.model_b) == ("root_mean_squared_error", "m1", "m2")
    assert row.difference == pytest.approx(row.value_a - row.value_b)
    assert row.better == ("m1" if row.value_a < row.value_b else "m2")
    values = res.values_frame()
    assert len(values) == 2 * 3
    assert values.loc[1, "value"] == res.value("root_mean_squared_error", "m2")
    assert (values.ci_lower <= values.value).all() and (values.value <= values.ci_upper).all()
    json.dumps(res.to_dict())
    assert "ComparisonResult(" in repr(res)


# ---------------------------------------------------------------------------------------------
# one result type per method: no field changes meaning with the method
# ---------------------------------------------------------------------------------------------

BOOTSTRAP_FIELDS = [
    "models",
    "metrics",
    "higher_is_better",
    "values",
    "std_error",
    "ci_lower",
    "ci_upper",
    "pairs",
    "difference",
    "difference_sd",
    "z",
    "p_value",
    "p_value_one_sided",
    "difference_ci_lower",
    "difference_ci_upper",
    "variance_plug_in",
    "variance_unbiased",
    "n_undefined",
    "evaluation",
    "method",
    "interval",
    "n_bootstrap",
    "confidence_level",
    "replicates",
    "targets",
    "interval_methods",
    "difference_interval_methods",
    "approximate",
    "difference_approximate",
    "interval_notes",
    "difference_se",
    "studentized_replicates",
    "scheme",
    "block_length",
    "n_units",
    "n_events",
    "n_non_events",
]
PERMUTATION_FIELDS = [
    "models",
    "metrics",
    "higher_is_better",
    "values",
    "pairs",
    "difference",
    "null_sd",
    "z",
    "p_value",
    "p_value_one_sided",
    "n_undefined",
    "evaluation",
    "method",
    "n_permutations",
    "null_differences",
    "targets",
]
PAIR_KEYS = ["metric", "model_a", "model_b", "value_a", "value_b", "difference"]


def _both(rng, n=80, **kwargs):
    y, preds = _wallets(rng, n)
    preds["m3"] = y * rng.lognormal(0.0, 0.7, n)
    kw = dict(
        metrics=["root_mean_squared_error", "kendall_tau"],
        n_bootstrap=20,
        random_state=0,
        show_progress=False,
    )
    kw.update(kwargs)
    return compare_models(y, preds, **kw), compare_models(y, preds, method="permutation", **kw)


def test_each_method_has_its_own_result_type(rng):
    boot, perm = _both(rng)
    assert type(boot) is ComparisonResult and type(perm) is PermutationTestResult
    assert [f.name for f in dataclasses.fields(boot)] == BOOTSTRAP_FIELDS
    assert [f.name for f in dataclasses.fields(perm)] == PERMUTATION_FIELDS
    # What the two share is the same numbers.
    for name in ("models", "metrics", "higher_is_better", "pairs", "evaluation"):
        assert getattr(boot, name) == getattr(perm, name)
    np.testing.assert_array_equal(boot.values, perm.values)
    np.testing.assert_array_equal(boot.difference, perm.difference)
    # The bootstrap's fields are all about the bootstrap ...
    assert boot.method == "bootstrap" and boot.interval == "auto" and boot.n_bootstrap == 20
    assert boot.replicates.shape == (20, 2, 3) and boot.n_undefined.shape == (2, 3)
    assert np.isfinite(boot.std_error).all() and np.isfinite(boot.difference_ci_lower).all()
    assert not hasattr(boot, "null_differences")
    # ... and the permutation test's about the test: no NaN intervals, no empty replicates.
    assert perm.method == "permutation" and perm.n_permutations == 20
    assert perm.null_differences.shape == (20, 2, 3) and perm.n_undefined.shape == (2, 3)
    assert (perm.n_undefined == 0).all()
    for name in ("std_error", "ci_lower", "difference_ci_lower", "interval", "replicates"):
        assert not hasattr(perm, name), name
    np.testing.assert_allclose(perm.null_sd, perm.null_differences.std(axis=0, ddof=1))
    np.testing.assert_allclose(perm.z, perm.difference / perm.null_sd)
    # The method is a constant of the type, not something to set.
    with pytest.raises(ValueError, match="init=False"):
        dataclasses.replace(boot, method="permutation")


def test_permutation_numbers_are_unchanged():
    """The permutation p-values and null SD computed before the test had its own result type."""
    rng = np.random.default_rng(20240501)
    n = 120
    y = rng.lognormal(0.0, 1.0, n)
    preds = {
        name: y * rng.lognormal(0.0, s, n) for name, s in (("a", 0.7), ("b", 0.8), ("c", 0.75))
    }
    w = rng.uniform(0.5, 2.0, n)
    expected = {
        False: (
            [[0.085, 0.2, 0.705], [0.415, 0.765, 0.28], [0.615, 0.205, 0.47]],
            [[0.025, 0.12, 0.34], [0.205, 0.415, 0.125], [0.31, 0.1, 0.21]],
            [
                [0.753002192962, 0.441676476514, 0.701240000922],
                [0.0389903113833, 0.0411517557262, 0.0391389958984],
                [0.102459540604, 0.0873223920957, 0.0969001321564],
            ],
        ),
        True: (
            [[0.08, 0.205, 0.665], [0.59, 0.505, 0.265], [0.68, 0.37, 0.495]],
            [[0.03, 0.125, 0.32], [0.265, 0.285, 0.115], [0.31, 0.165, 0.245]],
            [
                [0.842728250148, 0.470433546658, 0.787146088089],
                [0.0426052823633, 0.0416943498518, 0.0428878353236],
                [0.111970214184, 0.0915711210045, 0.106379773868],
            ],
        ),
    }
    for weighted, (p_two, p_one, null_sd) in expected.items():
        res = compare_models(
            y,
            preds,
            metrics=[
                "root_mean_squared_error",
                "kendall_tau",
                "median_absolute_error",
            ],  # ratio, rank, replicate sweep (a swap mixes two orders: the function is called)
            n_bootstrap=199,
            method="permutation",
            random_state=42,
            sample_weight=w if weighted else None,
            show_progress=False,
        )
        assert res.evaluation == ("kernel", "kernel", "kernel")
        np.testing.assert_allclose(res.p_value, p_two, rtol=1e-12)
        np.testing.assert_allclose(res.p_value_one_sided, p_one, rtol=1e-12)
        np.testing.assert_allclose(res.null_sd, null_sd, rtol=1e-10)


def test_frame_layouts(rng):
    boot, perm = _both(rng)
    frame, perm_frame = boot.to_frame(), perm.to_frame()
    assert list(frame.columns) == [
        *PAIR_KEYS,
        "difference_sd",
        "z",
        "p_value",
        "p_value_one_sided",
        "difference_ci_lower",
        "difference_ci_upper",
        "approximate",
        "interval_note",
        "better",
        "higher_is_better",
    ]
    assert list(perm_frame.columns) == [
        *PAIR_KEYS,
        "null_sd",
        "z",
        "p_value",
        "p_value_one_sided",
        "better",
        "higher_is_better",
    ]
    # Same rows in the same order (metric-major, then pair): the tables line up row by row.
    assert len(perm_frame) == 2 * 3
    keys = [*PAIR_KEYS, "better", "higher_is_better"]
    pd.testing.assert_frame_equal(frame[keys], perm_frame[keys])
    for name in ("null_sd", "z", "p_value", "p_value_one_sided"):
        np.testing.assert_array_equal(perm_frame[name], getattr(perm, name).ravel())
    np.testing.assert_array_equal(frame["difference_sd"], boot.difference_sd.ravel())
    assert list(boot.values_frame().columns) == [
        "metric",
        "model",
        "value",
        "std_error",
        "ci_lower",
        "ci_upper",
        "interval_method",
        "approximate",
        "n_undefined",
        "higher_is_better",
    ]
    values = perm.values_frame()
    assert list(values.columns) == ["metric", "model", "value", "higher_is_better"]
    np.testing.assert_array_equal(values["value"], perm.values.ravel())


def test_permutation_result_repr_dict_and_lookup(rng):
    _, perm = _both(rng)
    text = repr(perm)
    assert text.startswith("PermutationTestResult(models=('m1', 'm2', 'm3')")
    assert "n_permutations=20" in text and "method='permutation'" in text
    assert "null_differences" not in text and len(text) < 1500
    assert "null_sd" in perm._repr_html_()
    doc = json.loads(json.dumps(perm.to_dict()))
    assert list(doc) == PERMUTATION_FIELDS and doc["method"] == "permutation"
    assert perm.value("kendall_tau", "m2") == perm.values[1, 1]
    with pytest.raises(ValueError, match="model 'm9' is not in this comparison"):
        perm.value("root_mean_squared_error", "m9")
    assert json.loads(json.dumps(_both(rng)[0].to_dict()))["method"] == "bootstrap"


def test_old_access_patterns_keep_working(rng):
    boot, perm = _both(rng, metrics=["kendall_tau", "mean_absolute_error"])
    # the fields every comparison had and that mean the same for the permutation test
    for name in ("difference", "z", "p_value", "p_value_one_sided"):
        assert getattr(perm, name).shape == (2, 3), name
    assert perm.null_differences.shape == (20, 2, 3)
    assert perm.to_frame()["p_value"].between(0, 1).all()
    # the permutation test's own names: its null's SD and its number of swaps
    assert perm.null_sd.shape == (2, 3) and perm.n_permutations == 20
    assert not hasattr(perm, "difference_sd") and not hasattr(perm, "n_bootstrap")
    assert boot.method == "bootstrap" and boot.n_bootstrap == 20


def test_type_checkers_see_the_result_of_each_method():
    import typing

    returns = [f.__annotations__["return"] for f in typing.get_overloads(compare_models)]
    assert returns == [
        "ComparisonResult",
        "PermutationTestResult",
        "ComparisonResult | PermutationTestResult",
    ]
    assert compare_models.__annotations__["return"] == returns[-1]


def test_the_report_renders_either_test(rng):
    from ranklens.report import evaluate_models, render_html
    from ranklens.report.adapters import comparison_intervals, comparison_tables

    boot, perm = _both(rng)
    assert comparison_intervals(perm) == {}
    assert len(comparison_intervals(boot)) == 2 * 3
    [boot_table] = comparison_tables(boot)
    [perm_table] = comparison_tables(perm)
    assert [h["text"] for h in boot_table.header][4:7] == ["SD", "p-value", "95% CI of difference"]
    # Each table states its multiplicity correction: a Holm-adjusted p-value per row.
    assert [h["text"] for h in perm_table.header][4:] == [
        "null SD",
        "p-value",
        "Holm p-value",
        "better",
    ]
    assert "Paired permutation test, 20 random swaps" in perm_table.note
    assert "Paired bootstrap, 20 replicates" in boot_table.note
    cells = [row.cells for row in perm_table.rows if row.cells]
    assert len(cells) == 2 * 3 and {len(c) for c in cells} == {8}
    # The pipeline runs the bootstrap; a permutation result swapped in must render too.
    y, preds = _wallets(rng, 60)
    evaluation = evaluate_models(y, preds, n_bootstrap=0, curves=False, robustness=False)
    html = render_html(dataclasses.replace(evaluation, comparison=perm), figures=False)
    assert "Model comparison" in html and "null SD" in html and "random swaps" in html


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_dataframe_of_predictions(rng, kind):
    y, preds = _wallets(rng, 40)
    frame = pd.DataFrame(preds) if kind == "pandas" else pl.DataFrame(preds)
    res = compare_models(
        pd.Series(y),
        frame,
        metrics=["mean_absolute_error"],
        n_bootstrap=20,
        random_state=0,
        show_progress=False,
    )
    ref = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=20,
        random_state=0,
        show_progress=False,
    )
    assert res.models == ("m1", "m2")
    np.testing.assert_array_equal(res.replicates, ref.replicates)


def test_default_metrics_are_table_2s():
    assert DEFAULT_COMPARISON_METRICS == (
        "root_mean_squared_error",
        "mean_absolute_error",
        "kendall_tau",
        "spearman_rho",
    )


def test_a_single_model_gets_intervals_and_no_pairs(rng):
    y, preds = _wallets(rng, 60)
    res = compare_models(
        y,
        {"m1": preds["m1"]},
        metrics=["mean_absolute_error"],
        n_bootstrap=30,
        random_state=0,
        show_progress=False,
    )
    assert res.pairs == () and res.to_frame().empty
    assert np.isfinite(res.ci_lower).all()


def test_progress_bar_can_be_forced(rng):
    y, preds = _wallets(rng, 60)
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=20,
        random_state=0,
        show_progress=True,
    )
    assert np.isfinite(res.std_error).all()


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        (dict(predictions=[1.0, 2.0]), "predictions must be a mapping"),
        (dict(predictions={}), "at least 1 model"),
        (dict(predictions={"a": [1.0, 2.0]}), r"y_true and predictions\['a'\] must have the same"),
        (dict(predictions={"a": [1.0, np.nan, 2.0, 3.0]}), r"predictions\['a'\] contains 1 NaN"),
        (dict(metrics=["no_such_metric"]), "unknown metric 'no_such_metric'"),
        (dict(metrics=["pmap"]), "depends on the order of the rows"),
        (dict(metrics=["mean_absolute_error", "mean_absolute_error"]), "duplicate"),
        (dict(metrics=[]), "non-empty"),
        (dict(n_bootstrap=1), "n_bootstrap must be an integer >= 2"),
        (dict(confidence_level=1.5), "confidence_level must be in"),
        (dict(method="jackknife"), "method must be one of"),
        (dict(interval="basic"), "interval must be one of"),
        (dict(sample_weight=[1.0, -1.0, 1.0, 1.0]), "sample_weight must be non-negative"),
        (dict(show_progress="yes"), "show_progress must be"),
    ],
)
def test_bad_input(kwargs, pattern):
    args = dict(
        y_true=[1.0, 2.0, 3.0, 4.0],
        predictions={"a": [1.0, 2.5, 2.0, 5.0]},
        metrics=["mean_absolute_error"],
        n_bootstrap=10,
    )
    args.update(kwargs)
    with pytest.raises(ValueError, match=pattern):
        compare_models(**args)


def test_interval_metrics_are_refused():
    interval_metrics = [
        name for name in __import__("ranklens.metrics").metrics.available_metrics(inputs="interval")
    ]
    if not interval_metrics:
        pytest.skip("no interval metric registered")
    with pytest.raises(ValueError, match="needs interval predictions"):
        compare_models([1.0, 2.0, 3.0], {"a": [1.0, 2.0, 3.0]}, metrics=interval_metrics[:1])


def test_no_warnings_on_clean_data(rng):
    y, preds = _wallets(rng, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_models(
            y,
            preds,
            metrics=["root_mean_squared_error"],
            n_bootstrap=20,
            random_state=0,
            show_progress=False,
        )


def test_bootstrap_indices_reference_matches_engine(rng):
    """The reference's index stream is the engine's: multiplicities are their bincounts."""
    from ranklens._inference.resampling import bootstrap_blocks

    boot_rng, _ = np.random.default_rng(21).spawn(2)
    block = next(bootstrap_blocks(boot_rng, 30, 5))
    for row, rows in zip(block, bootstrap_indices(30, 5, 21)):
        np.testing.assert_array_equal(row, np.bincount(rows, minlength=30))


# ---------------------------------------------------------------------------------------------
# rank measures: the weighted kernels, both variances of tau, coverage
# ---------------------------------------------------------------------------------------------

RANK_METRICS = ["kendall_tau", "spearman_rho", "tau_normalized", "rho_normalized"]


def _tied(rng: np.random.Generator, n: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Data with ties in y and in both predictions."""
    y = rng.integers(0, 12, n).astype(float)
    return y, {
        "m1": np.round(y + rng.normal(0, 2, n)),
        "m2": np.round(y + rng.normal(0, 4, n)),
    }


@pytest.mark.parametrize("weighted", [False, True])
def test_rank_kernel_path_equals_generic_path(rng, weighted):
    y, preds = _tied(rng, 90)
    w = rng.integers(0, 3, y.shape[0]).astype(float) if weighted else None
    kw = dict(n_bootstrap=60, random_state=8, sample_weight=w, show_progress=False, interval="bca")
    fast = compare_models(y, preds, metrics=[*RANK_METRICS, "root_mean_squared_error"], **kw)
    slow = compare_models(
        y, preds, metrics=[_generic(m) for m in [*RANK_METRICS, "root_mean_squared_error"]], **kw
    )
    assert set(fast.evaluation) == {"kernel"} and set(slow.evaluation) == {"generic"}
    np.testing.assert_allclose(fast.replicates, slow.replicates, rtol=1e-10, atol=1e-12)
    for field in ("values", "std_error", "ci_lower", "ci_upper", "difference_sd", "p_value"):
        np.testing.assert_allclose(getattr(fast, field), getattr(slow, field), rtol=1e-9)


def test_rank_replicates_equal_materialised_resamples_and_scipy(rng):
    y, preds = _tied(rng, 70)

    def tau(a, b):
        return stats.kendalltau(a, b).statistic

    def rho(a, b):
        return stats.spearmanr(a, b).statistic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant resamples are not drawn here
        ref = materialised_bootstrap(y, list(preds.values()), [tau, rho], 40, 13)
    res = compare_models(
        y,
        preds,
        metrics=["kendall_tau", "spearman_rho"],
        n_bootstrap=40,
        random_state=13,
        show_progress=False,
    )
    np.testing.assert_allclose(res.replicates, ref, rtol=1e-10, atol=1e-12)


def test_weighted_rank_kernel_against_brute_force_and_general_sweep(rng):
    # The replicate kernel is checked against the ranking measures' general sweep (the public
    # measures with sample_weight), an implementation independent of the lean stage-2 kernel it
    # runs.
    from ranklens import kendall_tau, spearman_rho, tau_normalized
    from ranklens._compute.kernels import compare as kc
    from ranklens._compute.xp.sequence import order_by_y_then_pred, prepare_ranks
    from reference_compare import kendall_tau_b_brute
    from reference_ranking import statistics_of_sums

    for n in (2, 3, 25, 200):
        y, preds = _tied(rng, n)
        pred = preds["m1"]
        order, y_rank, pred_rank = prepare_ranks(y, pred)
        by_y = np.ascontiguousarray(order_by_y_then_pred(order, y_rank)[::-1])
        mult = rng.integers(0, 3, (5, n)).astype(float)
        base = rng.random(n) + 0.1
        args = (
            mult,
            base,
            by_y[None],
            y_rank[by_y][None],
            pred_rank[by_y][None],
            np.array([pred_rank.max() + 1]),
        )
        sums = kc.rank_replicates_serial(*args)
        np.testing.assert_array_equal(kc.rank_replicates_parallel(*args), sums)
        out = statistics_of_sums(sums, axis=1)
        for b in range(5):
            w = mult[b] * base
            with warnings.catch_warnings():  # NaN (undefined) replicates are compared as NaN
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                ref = (
                    [np.nan] * 3
                    if not w.any()
                    else [
                        f(y, pred, sample_weight=w)
                        for f in (kendall_tau, spearman_rho, tau_normalized)
                    ]
                )
            np.testing.assert_allclose(out[b, :, 0], ref, rtol=1e-10, atol=1e-12, equal_nan=True)
            if np.isfinite(ref[0]):
                assert out[b, 0, 0] == pytest.approx(kendall_tau_b_brute(y, pred, w), abs=1e-12)


def test_rank_permutation_kernel_equals_generic(rng):
    y, preds = _tied(rng, 80)
    kw = dict(n_bootstrap=40, method="permutation", random_state=2, show_progress=False)
    fast = compare_models(y, preds, metrics=RANK_METRICS, **kw)
    slow = compare_models(y, preds, metrics=[_generic(m) for m in RANK_METRICS], **kw)
    assert set(fast.evaluation) == {"kernel"}
    np.testing.assert_allclose(fast.null_differences, slow.null_differences, atol=1e-12)
    np.testing.assert_array_equal(fast.p_value, slow.p_value)


def test_permutation_with_long_tie_runs_in_y(rng):
    """A donation-like y (mostly zeros): the within-run sort of the swap kernel."""
    n = 300
    y = np.where(rng.random(n) < 0.8, 0.0, rng.lognormal(3, 1, n))
    preds = {"a": y + rng.normal(0, 20, n), "b": y + rng.normal(0, 40, n)}
    kw = dict(n_bootstrap=20, method="permutation", random_state=1, show_progress=False)
    fast = compare_models(y, preds, metrics=["kendall_tau", "spearman_rho"], **kw)
    slow = compare_models(
        y, preds, metrics=[_generic("kendall_tau"), _generic("spearman_rho")], **kw
    )
    np.testing.assert_allclose(fast.null_differences, slow.null_differences, atol=1e-12)


def test_both_variances_of_tau_are_exposed(rng):
    """Rosset, Perlich & Zadrozny (2005), Sect. 5.3: the bootstrap and Noether's variance agree
    closely (0.00103 vs 0.00097 at n = 500); here on bivariate normal data of the same size."""
    from ranklens.ranking import ranking_summary

    n, r = 500, 0.4
    z = rng.multivariate_normal([0, 0], [[1, r], [r, 1]], size=n)
    y, preds = z[:, 0], {"m": z[:, 1]}
    res = compare_models(
        y, preds, metrics=["kendall_tau"], n_bootstrap=2000, random_state=0, show_progress=False
    )
    summary = ranking_summary(y, preds["m"])
    assert res.variance_plug_in[0, 0] == summary.tau_variance
    assert res.variance_unbiased[0, 0] == summary.tau_variance_unbiased
    assert 0.8 < res.std_error[0, 0] ** 2 / res.variance_plug_in[0, 0] < 1.25
    # not for a comparison without tau, nor analytically with case weights
    other = compare_models(
        y, preds, metrics=["mean_absolute_error"], n_bootstrap=10, show_progress=False
    )
    assert np.isnan(other.variance_plug_in).all() and np.isnan(other.variance_unbiased).all()
    weighted = compare_models(
        y,
        preds,
        metrics=["kendall_tau"],
        n_bootstrap=10,
        show_progress=False,
        sample_weight=np.ones(n),
    )
    assert np.isnan(weighted.variance_plug_in).all() and np.isfinite(weighted.std_error).all()


def _bivariate_normal(rng, n, r):
    z = rng.standard_normal((n, 2))
    return z[:, 0], r * z[:, 0] + np.sqrt(1 - r * r) * z[:, 1]


def test_noether_interval_covers_the_true_tau_at_the_nominal_rate():
    """Bivariate normal, true tau = (2/pi) arcsin r, n = 200, 400 simulations."""
    from ranklens.ranking import ranking_summary

    rng = np.random.default_rng(2005)
    r = 0.6
    tau = 2 / np.pi * np.arcsin(r)
    z = stats.norm.ppf(0.975)
    hits_unbiased = hits_noether = 0
    n_sim = 400
    for _ in range(n_sim):
        y, pred = _bivariate_normal(rng, 200, r)
        s = ranking_summary(y, pred)
        hits_unbiased += s.tau_ci[0] <= tau <= s.tau_ci[1]
        hits_noether += abs(s.kendall_tau - tau) <= z * np.sqrt(s.tau_variance)
    # nominal 0.95; binomial SD at 400 simulations is 0.011
    assert 0.92 <= hits_unbiased / n_sim <= 0.98
    assert 0.92 <= hits_noether / n_sim <= 0.98


def test_bootstrap_interval_of_tau_covers_at_the_nominal_rate():
    rng = np.random.default_rng(2007)
    r = 0.6
    tau = 2 / np.pi * np.arcsin(r)
    hits = {"percentile": 0, "bca": 0}
    n_sim = 150
    for _ in range(n_sim):
        y, pred = _bivariate_normal(rng, 200, r)
        for interval in hits:
            res = compare_models(
                y,
                {"m": pred},
                metrics=["kendall_tau"],
                n_bootstrap=400,
                interval=interval,
                random_state=rng,
                show_progress=False,
            )
            hits[interval] += res.ci_lower[0, 0] <= tau <= res.ci_upper[0, 0]
    for interval, count in hits.items():
        assert 0.89 <= count / n_sim <= 0.99, interval


def test_bootstrap_p_values_of_exchangeable_rank_models_are_uniform():
    """Two models with the same noise level: Gaussian p-values of tau and rho ~ U(0, 1)."""
    rng = np.random.default_rng(11)
    p_values = []
    for _ in range(200):
        y = rng.normal(size=150)
        preds = {"a": y + rng.normal(size=150), "b": y + rng.normal(size=150)}
        res = compare_models(
            y,
            preds,
            metrics=["kendall_tau", "spearman_rho"],
            n_bootstrap=200,
            interval="percentile",
            random_state=rng,
            show_progress=False,
        )
        p_values.append(res.p_value[:, 0])
    p_values = np.array(p_values)
    for k in range(2):
        assert stats.kstest(p_values[:, k], "uniform").pvalue > 1e-3


def test_permutation_p_values_of_exchangeable_models_are_uniform():
    rng = np.random.default_rng(12)
    p_values = []
    for _ in range(150):
        y = rng.normal(size=100)
        preds = {"a": y + rng.normal(size=100), "b": y + rng.normal(size=100)}
        res = compare_models(
            y,
            preds,
            metrics=["kendall_tau", "root_mean_squared_error"],
            n_bootstrap=199,
            method="permutation",
            random_state=rng,
            show_progress=False,
        )
        p_values.append(res.p_value[:, 0])
    p_values = np.array(p_values)
    for k in range(2):
        assert stats.kstest(p_values[:, k], "uniform").pvalue > 1e-3


def test_rank_thread_count_independence(rng):
    y, preds = _tied(rng, 3000)
    before = numba.get_num_threads()
    out = []
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            out.append(
                compare_models(
                    y,
                    preds,
                    metrics=RANK_METRICS,
                    n_bootstrap=70,
                    random_state=4,
                    show_progress=False,
                ).replicates
            )
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(out[0], out[1])


def test_constant_resamples_of_a_rank_measure_are_undefined(rng):
    y = np.array([1.0, 1.0, 1.0, 2.0])
    preds = {"a": np.array([1.0, 2.0, 3.0, 4.0])}
    with (
        pytest.warns(UndefinedMetricWarning, match="kendall_tau of model 'a' is undefined"),
        pytest.warns(FewEventsWarning, match="1 row"),  # two values, one row in a class
    ):
        res = compare_models(
            y, preds, metrics=["kendall_tau"], n_bootstrap=100, random_state=0, show_progress=False
        )
    # P(no row with y = 2 drawn) = (3/4)^4 = 0.32
    assert 15 < res.n_undefined[0, 0] < 50


def test_a_fast_path_that_disagrees_with_the_registry_is_not_used(rng):
    from ranklens._foundation.forms import RankStatistic, RankSweepForm

    spec = get_metric("rho_normalized")
    wrong = dataclasses.replace(
        spec,
        capabilities=dataclasses.replace(
            spec.capabilities, batched=RankSweepForm(RankStatistic.SPEARMAN_RHO)
        ),  # forgets (1 + rho) / 2
    )
    assert wrong.capabilities.batched is not None  # declared for the same function: kept
    y, preds = _tied(rng, 60)
    res = compare_models(
        y,
        preds,
        metrics=["spearman_rho", wrong],
        n_bootstrap=20,
        random_state=0,
        show_progress=False,
    )
    assert res.evaluation == ("kernel", "generic")
    np.testing.assert_allclose(res.replicates[:, 1], (1 + res.replicates[:, 0]) / 2, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_batched_rank_sweep_equals_the_one_replicate_sweep(weighted):
    """The rank bootstrap of small data sweeps eight replicates at once (rank_batches), summing
    in the order of the one-replicate sweep (rank_replicates, the reference of the level sweep
    of larger data): the replicates are bit-identical (ties in y and in the predictions, a
    replicate count that is not a multiple of eight, both drivers)."""
    from ranklens._compute.kernels import compare as kc
    from ranklens._compute.xp.sequence import order_by_y_then_pred, prepare_ranks

    rng = np.random.default_rng(5)
    n = 300
    y = np.round(rng.normal(size=n), 1)
    preds = [np.round(y + rng.normal(size=n), 1), np.round(rng.normal(size=n), 1)]
    base = rng.integers(1, 4, size=n) / 2.0 if weighted else np.ones(n)
    mult = rng.multinomial(n, np.full(n, 1.0 / n), size=21).astype(float)
    prepared = [prepare_ranks(y, p) for p in preds]
    orders = [np.ascontiguousarray(order_by_y_then_pred(o, yr)[::-1]) for o, yr, _ in prepared]
    args = (
        base,
        np.stack(orders),
        np.stack([yr[o] for o, (_, yr, _) in zip(orders, prepared, strict=True)]),
        np.stack([pr[o] for o, (_, _, pr) in zip(orders, prepared, strict=True)]),
        np.array([pr.max() + 1 for _, _, pr in prepared]),
    )
    single = kc.rank_replicates_serial(mult, *args)
    np.testing.assert_array_equal(kc.rank_batches_serial(mult, *args), single)
    np.testing.assert_array_equal(kc.rank_batches_parallel(mult, *args), single)


@pytest.mark.parametrize("seed", [-1, 2.5, True, "0"])
def test_a_bad_random_state_is_refused_at_the_call(seed):
    """Checked before any work, naming the argument (not NumPy's message from deep inside)."""
    y = np.arange(20.0)
    with pytest.raises(ValueError, match="random_state must be None, an integer >= 0"):
        compare_models(y, {"a": y, "b": y[::-1]}, n_bootstrap=10, random_state=seed)
