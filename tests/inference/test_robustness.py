"""Evaluation robustness: exact leave-one-out search, Table 1 layout, breakdown curves."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference_residual as ref
from ranklens import (
    breakdown_curve,
    most_influential,
    robustness_table,
)
from ranklens._foundation.registry import MetricSpec
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.metrics import get_metric
from ranklens.ranking import _exact_dot
from ranklens.robustness import proposition2_bound

RANKING = ("kendall_tau", "tau_normalized", "spearman_rho", "rho_normalized")

RESIDUAL_CASES = [
    ("mean_squared_error", {}),
    ("root_mean_squared_error", {}),
    ("mean_absolute_error", {}),
    ("median_absolute_error", {}),
    ("epsilon_insensitive_loss", {"epsilon": 0.4}),
    ("linlin_loss", {"cost_over": 3.0, "cost_under": 0.5}),
    ("log_rmse", {}),
    ("log_rmse", {"offset": 1.0}),
    ("rmspe", {}),
    ("pmap", {}),
]


def _data(rng, n, *, ties=True):
    y = np.round(rng.lognormal(size=n), 1 if ties else 12) + 0.1
    p = np.round(y * rng.lognormal(sigma=0.5, size=n), 1 if ties else 12) + 0.1
    return y, p


def _brute(name, y, p, params=None):
    func = get_metric(name).func
    params = params or {}

    def call(a, b):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            return func(a, b, **params)

    return ref.leave_one_out(call, y, p)


def _check_consistent(result, name, y, p, params=None):
    func = get_metric(name).func
    params = params or {}
    assert result.value == pytest.approx(func(y, p, **params), rel=1e-12, abs=1e-14)
    distance = np.abs(result.leave_one_out - result.value)
    assert abs(result.value_without - result.value) == pytest.approx(np.nanmax(distance))
    assert result.change == pytest.approx(result.value_without - result.value)


# --- leave-one-out values against brute force --------------------------------------------------


@pytest.mark.parametrize(("name", "params"), RESIDUAL_CASES)
def test_residual_leave_one_out_is_exact(rng, name, params):
    for n in (3, 4, 5, 12, 41):
        y, p = _data(rng, n)
        result = most_influential(y, p, name, metric_params=params)
        np.testing.assert_allclose(
            result.leave_one_out, _brute(name, y, p, params), rtol=1e-12, atol=1e-14
        )
        assert result.method == "exact update"
        _check_consistent(result, name, y, p, params)


@pytest.mark.parametrize("name", RANKING)
def test_ranking_leave_one_out_is_exact_with_ties(rng, name):
    for n in (3, 4, 7, 30, 80):
        for levels in (2, 4, 1000):
            y = rng.integers(0, levels, size=n).astype(float)
            p = rng.integers(0, levels, size=n).astype(float)
            if np.ptp(y) == 0 or np.ptp(p) == 0:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                result = most_influential(y, p, name)
            expected = _brute(name, y, p)
            np.testing.assert_allclose(result.leave_one_out, expected, rtol=0, atol=1e-12)
            assert result.method == "exact update"


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=3, max_size=14))
def test_spearman_and_kendall_updates_property(pairs):
    y = np.array([a for a, _ in pairs], dtype=float)
    p = np.array([b for _, b in pairs], dtype=float)
    if np.ptp(y) == 0 or np.ptp(p) == 0:
        return
    for name in RANKING:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            loo = most_influential(y, p, name).leave_one_out
        np.testing.assert_allclose(loo, _brute(name, y, p), rtol=0, atol=1e-12)


def test_ranking_references_agree_with_published_definitions(rng):
    """Without ties tau~ = 1 - 2T/N (Rosset, Perlich & Zadrozny 2005, eqs. 2 and 4) and
    tau_normalized = Harrell's C."""
    y, p = rng.permutation(12).astype(float), rng.permutation(12).astype(float)
    assert get_metric("tau_normalized").func(y, p) == pytest.approx(
        ref.tau_tilde_from_switches(y, p)
    )
    assert get_metric("tau_normalized").func(y, p) == pytest.approx(ref.harrell_c(y, p))


def test_large_n_ranking_leave_one_out_matches_direct_computation(rng):
    """Exactness at n = 200,000 with heavy ties: compare selected rows with direct recomputation."""
    n = 200_000
    y = np.round(rng.lognormal(size=n), 2)
    p = np.round(y * rng.lognormal(sigma=0.8, size=n), 1)
    for name in ("kendall_tau", "spearman_rho", "tau_normalized"):
        result = most_influential(y, p, name)
        func = get_metric(name).func
        for i in [0, 17, n - 1, result.index]:
            direct = func(np.delete(y, i), np.delete(p, i))
            assert result.leave_one_out[i] == pytest.approx(direct, rel=0, abs=1e-12)


def test_spearman_leave_one_out_is_exact_beyond_int64_sums(rng):
    """At n = 3e6 the rank sums (~n^3/3) overflow int64; the update must still be exact."""
    n = 3_000_000
    y = rng.integers(0, 50_000, size=n).astype(float)  # ties in both
    p = y + rng.integers(0, 200_000, size=n)
    result = most_influential(y, p, "spearman_rho")
    func = get_metric("spearman_rho").func
    for i in (5, result.index):
        assert result.leave_one_out[i] == pytest.approx(
            func(np.delete(y, i), np.delete(p, i)), rel=0, abs=1e-13
        )


def test_exact_dot_does_not_overflow():
    a = np.full(5_000_000, 3_000_000, dtype=np.int64)  # sum of products ~4.5e19 > int64
    assert _exact_dot(a, a) == 5_000_000 * 3_000_000**2
    b = np.array([-(2**40), 2**41, -3], dtype=np.int64)
    assert _exact_dot(b, b[::-1].copy()) == int(b @ b[::-1])


# --- most_influential: behaviour ----------------------------------------------------------------


def test_additive_loss_picks_the_largest_residual(rng):
    y, p = _data(rng, 50, ties=False)
    p[13] += 100.0
    for name in ("mean_squared_error", "root_mean_squared_error", "mean_absolute_error"):
        result = most_influential(y, p, name)
        assert result.index == 13
        assert result.value_without == pytest.approx(
            get_metric(name).func(np.delete(y, 13), np.delete(p, 13))
        )


def test_one_row_carrying_almost_all_the_loss_has_no_cancellation():
    y = np.array([1.0, 2.0, 3.0, 4.0, 1e9])
    p = np.array([1.1, 2.1, 2.9, 4.2, 0.0])
    result = most_influential(y, p, "mean_squared_error")
    assert result.index == 4
    assert result.value_without == pytest.approx(np.mean([0.01, 0.01, 0.01, 0.04]), rel=1e-12)


def test_median_picks_by_exact_search():
    # removing any residual above the median moves it down by the same amount
    y = np.zeros(6)
    p = np.array([1.0, 2.0, 3.0, 4.0, 50.0, 60.0])
    result = most_influential(y, p, "median_absolute_error")
    assert result.value == 3.5
    assert result.value_without == 4.0  # every removal moves it by 0.5: the first row wins
    assert result.index == 0
    np.testing.assert_allclose(result.leave_one_out, [4, 4, 4, 3, 3, 3])


def test_pmap_leave_one_out_skips_rows_that_leave_a_constant_series():
    y = np.array([1.0, 1.0, 1.0, 5.0])
    p = np.array([1.5, 1.0, 0.5, 4.0])
    result = most_influential(y, p, "pmap")
    assert math.isnan(result.leave_one_out[3])
    assert result.index in (0, 1, 2)
    np.testing.assert_allclose(result.leave_one_out, _brute("pmap", y, p), equal_nan=True)


def test_generic_fallback_for_other_measures(rng):
    def max_error(y_true, y_pred):
        """Largest absolute residual."""
        return float(np.max(np.abs(np.asarray(y_true) - np.asarray(y_pred))))

    spec = MetricSpec("max_error", max_error, higher_is_better=False, family="residual")
    y, p = _data(rng, 20)
    result = most_influential(y, p, spec)
    assert result.method == "recomputation"
    np.testing.assert_allclose(result.leave_one_out, ref.leave_one_out(max_error, y, p))
    assert result.index == int(np.argmax(np.abs(y - p)))


def test_percent_change_matches_published_table1_arithmetic():
    # Table 1 of Rosset, Perlich & Zadrozny (2005): RMSE $3,872,481 -> $1,940,415 is printed as
    # 49.8% (truncated 49.89%)
    from ranklens._foundation.format import percent_change

    assert percent_change(1940415 - 3872481, 3872481) == pytest.approx(49.89, abs=0.005)
    assert percent_change(421198 - 568281, 568281) == pytest.approx(25.9, abs=0.05)
    assert percent_change(0.2896 - 0.2845, 0.2845) == pytest.approx(1.80, abs=0.01)
    assert percent_change(0.0, 0.0) == 0.0
    assert percent_change(1.0, 0.0) == math.inf


def test_most_influential_bad_input(rng):
    y, p = _data(rng, 10)
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        most_influential(y, p, "nope")
    with pytest.raises(ValueError, match="needs prediction intervals"):
        most_influential(y, p, "interval_score")
    with pytest.raises(ValueError, match="metric must be a registered metric name or a MetricSpec"):
        most_influential(y, p, 3)
    with pytest.raises(ValueError, match="y_true has 1 observation"):
        most_influential([1.0], [1.0], "mean_squared_error")
    # two rows: no leave-one-out sample has two rows, so the search is undefined, with a reason
    with pytest.warns(UndefinedMetricWarning, match="leaves a single row"):
        two = most_influential([1.0, 2.0], [1.0, 2.0], "mean_squared_error")
    assert two.index is None and two.value == 0.0 and math.isnan(two.value_without)
    with pytest.raises(ValueError, match="y_pred contains 1 NaN"):
        most_influential([1.0, 2.0, 3.0], [1.0, np.nan, 2.0], "mean_squared_error")
    with pytest.raises(ValueError, match="rmspe needs y_true > 0"):
        most_influential([1.0, 0.0, 3.0], [1.0, 1.0, 2.0], "rmspe")
    with pytest.raises(ValueError, match="metric_params may hold scalar parameters only"):
        most_influential(y, p, "pmap", metric_params={"lower": p - 1, "upper": p + 1, "alpha": 0.1})
    with pytest.raises(ValueError, match="'sample_weight' with one value per row"):
        most_influential(y, p, "mean_squared_error", metric_params={"sample_weight": np.ones(10)})
    with pytest.raises(ValueError, match="metric_params may hold scalar"):
        breakdown_curve(y, p, "mean_squared_error", metric_params={"sample_weight": np.ones(10)})


def test_undefined_measure_warns():
    with pytest.warns(UndefinedMetricWarning):
        result = most_influential([2.0, 2.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0], "pmap")
    assert result.index is None and math.isnan(result.value_without)


# --- robustness_table --------------------------------------------------------------------------


def test_robustness_table_layout(rng):
    y, p = _data(rng, 60)
    table = robustness_table(y, p)
    assert table.metrics == (
        "root_mean_squared_error",
        "mean_absolute_error",
        "kendall_tau",
        "spearman_rho",
    )
    for k, name in enumerate(table.metrics):
        single = most_influential(y, p, name)
        assert table.entire_set[k] == single.value
        assert table.excluding_one[k] == single.value_without
        assert table.percent_change[k] == single.percent_change
        assert table.index[k] == single.index
    frame = table.to_frame()
    assert list(frame.columns) == ["Entire set", "Excl. one", "% change", "row"]
    assert frame.index.name == "Measure" and list(frame.index) == list(table.metrics)
    assert table.higher_is_better.tolist() == [False, False, True, True]
    assert table.to_dict()["metrics"] == list(table.metrics)
    custom = robustness_table(y, p, metrics=["log_rmse", get_metric("median_absolute_error")])
    assert custom.metrics == ("log_rmse", "median_absolute_error")
    with pytest.raises(ValueError, match="at least one"):
        robustness_table(y, p, metrics=[])


def test_robustness_table_on_long_tailed_wallets():
    """Rosset, Perlich & Zadrozny (2005), Sect. 5.2: on long-tailed wallets one company moves RMSE
    and MAE by tens of percent and tau, rho by well under Table 1's 2.05%."""
    rng = np.random.default_rng(2005)
    y = rng.lognormal(mean=12, sigma=1.6, size=500)  # 500 wallets, as in the IBM survey
    p = y * rng.lognormal(sigma=1.0, size=500)
    table = robustness_table(y, p).to_frame()
    assert table.loc["root_mean_squared_error", "% change"] > 25
    assert table.loc["mean_absolute_error", "% change"] > 10
    assert table.loc["kendall_tau", "% change"] < 2.05
    assert table.loc["spearman_rho", "% change"] < 2.05
    # the additive measures lose the row with the largest residual, as Sect. 5.2 says
    assert (
        table.loc["root_mean_squared_error", "row"]
        == table.loc["mean_absolute_error", "row"]
        == np.argmax(np.abs(y - p))
    )


# --- breakdown_curve: Propositions 1 and 2 -----------------------------------------------------


def test_proposition1_additive_losses_break_at_one_point(rng):
    y, p = _data(rng, 200, ties=False)
    for name in (
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
        "epsilon_insensitive_loss",
        "linlin_loss",
        "log_rmse",
    ):
        curves = [
            breakdown_curve(y, p, name, fractions=[1 / 200], magnitude=m, random_state=0)
            for m in (10.0, 1e3, 1e6)
        ]
        assert curves[0].bound == "proposition 1 (unbounded)"
        assert np.isinf(curves[0].max_change).all()
        assert curves[0].n_corrupted.tolist() == [1]
        # one corrupted row: the value grows without bound as the corruption grows
        values = [c.adversarial[0] for c in curves]
        assert curves[0].clean < values[0] < values[1] < values[2]
        assert [c.random[0] for c in curves] == sorted(c.random[0] for c in curves)
        if name == "log_rmse":  # grows like log(magnitude) on the log scale
            assert curves[2].corruption == "multiplicative"
        else:
            assert curves[2].corruption == "additive"
            assert values[2] > 100 * values[0]


def test_median_is_robust_until_half(rng):
    y, p = _data(rng, 200, ties=False)
    curve = breakdown_curve(
        y, p, "median_absolute_error", fractions=[0.1, 0.3, 0.6], random_state=1
    )
    assert curve.bound == "none known"
    clean_abs = np.sort(np.abs(y - p))
    # with k < n/2 corrupted rows the median stays below the (n/2 + k)-th clean residual
    assert curve.adversarial[0] <= clean_abs[100 + 20]
    assert curve.adversarial[1] <= clean_abs[100 + 60]
    assert curve.adversarial[2] > 10 * clean_abs[-1]  # broken down beyond one half


@pytest.mark.parametrize("name", RANKING)
def test_proposition2_bound_is_attained_from_a_perfect_ranking(name):
    n = 50
    y = np.arange(n, dtype=float)
    curve = breakdown_curve(y, y.copy(), name, fractions=[1 / n, 3 / n], random_state=0)
    assert curve.bound == "proposition 2"
    change = np.abs(curve.adversarial - curve.clean)
    np.testing.assert_allclose(change[0], curve.max_change[0], rtol=1e-12)
    expected_one = {"tau_normalized": 2 / n, "kendall_tau": 4 / n}.get(name)
    if expected_one is not None:
        assert change[0] == pytest.approx(expected_one)  # one corrupted point moves T by n - 1
        np.testing.assert_allclose(change[1], curve.max_change[1], rtol=1e-12)
    else:
        factor = 1 if name == "rho_normalized" else 2
        assert change[0] == pytest.approx(factor * 3 / (n + 1))  # R moves by n(n-1)/2


@given(
    st.integers(5, 40).flatmap(
        lambda n: st.tuples(
            st.permutations(list(range(n))),
            st.permutations(list(range(n))),
            st.integers(0, 2**32 - 1),
        )
    )
)
def test_proposition2_bounds_hold_for_breakdown_curves(args):
    y, p, seed = (np.array(args[0], float), np.array(args[1], float), args[2])
    n = y.shape[0]
    for name in RANKING:
        curve = breakdown_curve(
            y, p, name, fractions=[1 / n, 0.2, 0.5, 1.0], n_random=3, random_state=seed
        )
        slack = 1e-12
        assert np.all(np.abs(curve.adversarial - curve.clean) <= curve.max_change + slack)
        assert np.all(np.abs(curve.random - curve.clean) <= curve.max_change + slack)


@given(
    st.integers(4, 30).flatmap(
        lambda n: st.tuples(
            st.permutations(list(range(n))),
            st.permutations(list(range(n))),
            st.sets(st.integers(0, n - 1), min_size=1, max_size=n),
            st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n, unique=True),
        )
    )
)
def test_proposition2_bounds_hold_for_arbitrary_corruption(args):
    """Any corruption of k responses to any distinct values moves the rank measures by <= bound."""
    y = np.array(args[0], dtype=float)
    p = np.array(args[1], dtype=float)
    rows = sorted(args[2])
    new_values = np.array(args[3])[: len(rows)] + 0.5  # never equal to the integer responses
    corrupted = y.copy()
    corrupted[rows] = new_values
    n, k = y.shape[0], len(rows)
    for name in RANKING:
        func = get_metric(name).func
        change = abs(func(corrupted, p) - func(y, p))
        assert change <= proposition2_bound(name, n, k) + 1e-12


def test_proposition2_bound_values():
    n = 100
    assert proposition2_bound("tau_normalized", n, 1) == pytest.approx(2 / n)
    assert proposition2_bound("kendall_tau", n, 1) == pytest.approx(4 / n)
    assert proposition2_bound("rho_normalized", n, 1) == pytest.approx(3 / (n + 1))
    assert proposition2_bound("spearman_rho", n, 1) == pytest.approx(6 / (n + 1))
    # never looser than Proposition 2 of Rosset, Perlich & Zadrozny (2005)
    for k in (1, 5, 20):
        assert proposition2_bound("tau_normalized", n, k) <= 2 * k / (n - 1)
        assert proposition2_bound("rho_normalized", n, k) <= 6 * k / (n - 1) * (1 / (n + 1) + 0.5)
    assert proposition2_bound("tau_normalized", n, n) == 1.0
    with pytest.raises(ValueError, match="Proposition 2 covers"):
        proposition2_bound("mean_squared_error", n, 1)


def test_breakdown_positive_measures_stay_in_their_domain(rng):
    y, p = _data(rng, 40)
    curve = breakdown_curve(y, p, "rmspe", fractions=[0.1, 0.5], random_state=0)
    assert np.all(np.isfinite(curve.adversarial)) and curve.bound == "none known"
    curve = breakdown_curve(y, p, "log_rmse", fractions=[0.1], random_state=0)
    assert curve.adversarial[0] > curve.clean


def test_breakdown_ties_give_no_bound(rng):
    y, p = _data(rng, 40)  # rounded: ties
    curve = breakdown_curve(y, p, "kendall_tau", fractions=[0.1], random_state=0)
    assert curve.bound == "proposition 2" and np.isnan(curve.max_change).all()


def test_breakdown_defaults_and_reproducibility(rng):
    y, p = _data(rng, 300, ties=False)
    a = breakdown_curve(y, p, "spearman_rho", random_state=3)
    b = breakdown_curve(y, p, "spearman_rho", random_state=3)
    np.testing.assert_array_equal(a.random, b.random)
    assert a.n_corrupted.tolist() == [1, 3, 6, 15, 30, 60, 90, 120, 150]
    np.testing.assert_allclose(a.fractions, a.n_corrupted / 300)
    assert a.higher_is_better is True
    # adversarial corruption hurts a rank measure more than random corruption
    assert np.all(a.adversarial <= a.random + 1e-12)


def test_breakdown_bad_input(rng):
    y, p = _data(rng, 20)
    with pytest.raises(ValueError, match=r"fractions must be numbers in \(0, 1\]"):
        breakdown_curve(y, p, "mean_squared_error", fractions=[0.0, 0.5])
    with pytest.raises(ValueError, match="fractions"):
        breakdown_curve(y, p, "mean_squared_error", fractions=[])
    with pytest.raises(ValueError, match="magnitude must be a finite number > 1"):
        breakdown_curve(y, p, "mean_squared_error", magnitude=1.0)
    with pytest.raises(ValueError, match="n_random must be an integer >= 1"):
        breakdown_curve(y, p, "mean_squared_error", n_random=0)
    with pytest.raises(ValueError, match="needs prediction intervals"):
        breakdown_curve(y, p, "interval_score")


def test_exclusive_sums_are_correctly_rounded_to_about_one_unit():
    """The sums without each row behind the losses' leave-one-out values: within 2 units of the
    last place of math.fsum's, where prefix and suffix sums drift with n; a row carrying almost
    all of the loss, and signed values with many such rows, lose nothing to cancellation."""
    import math

    from ranklens.residual import _EXCLUSIVE_DIRECT_ROWS, _exclusive_sums

    rng = np.random.default_rng(3)
    losses = rng.lognormal(0.0, 2.0, 200_000)
    losses[17] = 1e12  # one row holds almost everything
    signed = rng.normal(size=5_000)
    signed -= signed.mean()  # a total near 0: many rows larger than half of it
    assert (np.abs(signed) > abs(math.fsum(signed)) / 2).sum() > _EXCLUSIVE_DIRECT_ROWS
    for values, tolerance in ((losses, 2.5e-16), (signed, 1e-9)):
        got = _exclusive_sums(values)
        for i in [0, 17, 4_999, *rng.integers(0, values.size, 40).tolist()]:
            exact = math.fsum(np.delete(values, i))
            assert abs(got[i] - exact) <= tolerance * abs(exact) + 1e-300, (i, got[i], exact)
