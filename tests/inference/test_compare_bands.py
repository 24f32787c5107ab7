"""Bootstrap curve bands and the agreement of two models' rankings.

Rosset, Perlich & Zadrozny (2005, Fig. 5; 2007).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from ranklens._foundation.results import ConfidenceInterval
from ranklens.agreement import ranking_agreement
from ranklens.bands import CurveBandsResult, curve_bands
from ranklens.exceptions import UndefinedMetricWarning
from ranklens.ranking import cutoff_auc_curve, rank_lift_curve
from ranklens.targeting import gain_curve, lift_curve
from reference_compare import bootstrap_indices


def _two_models(rng: np.random.Generator, n: int = 300):
    y = rng.lognormal(0.0, 1.0, n)
    return y, {"m1": y * rng.lognormal(0, 0.5, n), "m2": y * rng.lognormal(0, 1.2, n)}


def _read(curve: str, y, pred, grid):
    if curve == "cutoff_auc":
        res = cutoff_auc_curve(y, pred)
        return np.interp(grid, res.fraction_positive, res.auc)
    if curve == "rank_lift":
        res = rank_lift_curve(y, pred)
        return np.interp(grid, res.fraction_targeted, res.model)
    func = gain_curve if curve == "gain" else lift_curve
    return np.asarray(func(y, pred).at(grid))


@pytest.mark.parametrize("curve", ["cutoff_auc", "rank_lift", "gain", "lift"])
def test_replicates_are_the_curves_of_materialised_resamples(rng, curve):
    y, preds = _two_models(rng, 60)
    grid = np.array([0.1, 0.25, 0.5, 0.9])
    res = curve_bands(
        y, preds, curve=curve, grid=grid, n_bootstrap=15, random_state=3, show_progress=False
    )
    assert isinstance(res, CurveBandsResult)
    for m, pred in enumerate(preds.values()):
        np.testing.assert_allclose(res.estimate[m], _read(curve, y, pred, grid), rtol=1e-12)
        for b, rows in enumerate(bootstrap_indices(y.shape[0], 15, 3)):
            np.testing.assert_allclose(
                res.replicates[b, m], _read(curve, y[rows], pred[rows], grid), rtol=1e-9
            )


def test_figure_5_a_better_model_wins_at_every_cutoff(rng):
    """Rosset, Perlich & Zadrozny (2005), Fig. 5: M1 above M2 in more than 95% of replicates
    between cutoffs 0.1 and 0.9."""
    y, preds = _two_models(rng, 500)
    res = curve_bands(y, preds, n_bootstrap=300, random_state=0, show_progress=False)
    inside = (res.x >= 0.1) & (res.x <= 0.9)
    assert (res.prob_a_beats_b[0, inside] > 0.95).all()
    assert (res.difference_lower[0, inside] > 0).all()
    swapped = curve_bands(
        y,
        {"m2": preds["m2"], "m1": preds["m1"]},
        n_bootstrap=300,
        random_state=0,
        show_progress=False,
    )
    np.testing.assert_allclose(swapped.prob_a_beats_b, 1 - res.prob_a_beats_b)
    np.testing.assert_allclose(swapped.difference, -res.difference)


def test_bands_are_ordered_and_simultaneous_bands_cover_whole_curves(rng):
    y, preds = _two_models(rng, 300)
    res = curve_bands(
        y, preds, curve="rank_lift", n_bootstrap=400, random_state=1, show_progress=False
    )
    assert (res.lower <= res.upper).all()
    assert (res.simultaneous_lower <= res.lower + 1e-12).all()
    assert (res.simultaneous_upper >= res.upper - 1e-12).all()
    for m in range(2):
        inside = np.all(
            (res.replicates[:, m] >= res.simultaneous_lower[m])
            & (res.replicates[:, m] <= res.simultaneous_upper[m]),
            axis=1,
        )
        assert inside.mean() >= 0.95
        pointwise = np.all(
            (res.replicates[:, m] >= res.lower[m]) & (res.replicates[:, m] <= res.upper[m]), axis=1
        )
        assert pointwise.mean() < inside.mean()


def test_pointwise_band_has_nominal_coverage_of_the_true_curve():
    """Gain at 20 % targeted with binary events: the band covers the population value."""
    rng = np.random.default_rng(99)
    # population gain at 20 %: E[p(s) 1{s > q80}] / E[p(s)] with p(s) = Phi(s - 1), s ~ N(0, 1)
    s = np.linspace(-8, 8, 200001)
    dens = stats.norm.pdf(s) * stats.norm.cdf(s - 1.0)
    truth = np.trapezoid(dens * (s > stats.norm.ppf(0.8)), s) / np.trapezoid(dens, s)
    hits = 0
    n_sim = 60
    for _ in range(n_sim):
        score = rng.normal(size=400)
        y = (rng.random(400) < stats.norm.cdf(score - 1.0)).astype(float)
        res = curve_bands(
            y,
            {"m": score},
            curve="gain",
            grid=[0.2],
            n_bootstrap=200,
            random_state=rng,
            show_progress=False,
        )
        hits += res.lower[0, 0] <= truth <= res.upper[0, 0]
    assert hits / n_sim >= 0.85


def test_events_and_frames(rng):
    y, preds = _two_models(rng, 200)
    res = curve_bands(
        y,
        preds,
        curve="lift",
        events="top:0.2",
        grid=[0.1, 0.2, 0.5],
        n_bootstrap=30,
        random_state=0,
        show_progress=False,
    )
    ref = lift_curve(y, preds["m1"], events="top:0.2").at(np.array([0.1, 0.2, 0.5]))
    np.testing.assert_allclose(res.estimate[0], ref)
    frame = res.to_frame()
    assert list(frame.columns[:3]) == ["model", "x", "estimate"] and len(frame) == 6
    pairs = res.pairs_frame()
    assert len(pairs) == 3 and set(pairs.model_a) == {"m1"}
    json.dumps(res.to_dict())


def test_reproducible(rng):
    y, preds = _two_models(rng, 100)
    a = curve_bands(y, preds, n_bootstrap=20, random_state=5, show_progress=False)
    b = curve_bands(y, preds, n_bootstrap=20, random_state=5, show_progress=False)
    np.testing.assert_array_equal(a.replicates, b.replicates)


def test_undefined_replicates_are_reported(rng):
    y = np.zeros(12)
    y[:2] = 1.0
    score = rng.normal(size=12)
    with pytest.warns(UndefinedMetricWarning, match=r"gain curve of model 'm' is undefined in"):
        res = curve_bands(
            y,
            {"m": score},
            curve="gain",
            grid=[0.5],
            n_bootstrap=100,
            random_state=0,
            show_progress=False,
        )
    # P(no event drawn) = (10/12)^12 = 0.11
    assert 3 < res.n_undefined[0] < 25
    assert np.isfinite(res.lower).all()


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        (dict(curve="roc"), "curve must be one of"),
        (dict(grid=[0.5, 0.2]), "strictly increasing"),
        (dict(grid=[0.0, 0.5], curve="lift"), r"must lie in \(0, 1\]"),
        (dict(grid=[0.5, 1.5]), r"must lie in \[0, 1\]"),
        (dict(n_bootstrap=0), "n_bootstrap"),
        (dict(predictions=[1, 2, 3]), "predictions must be a mapping"),
    ],
)
def test_bad_input(kwargs, pattern):
    args = dict(y_true=[1.0, 2.0, 3.0, 4.0], predictions={"a": [1.0, 3.0, 2.0, 4.0]}, n_bootstrap=5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=pattern):
        curve_bands(**args)


# ---------------------------------------------------------------------------------------------
# ranking_agreement
# ---------------------------------------------------------------------------------------------


def test_agreement_matches_scipy_and_is_symmetric(rng):
    a = np.round(rng.normal(size=200), 1)
    b = np.round(a + rng.normal(size=200), 1)
    res = ranking_agreement(a, b)
    assert res.kendall_tau == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert res.spearman_rho == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert res.tau_ci[0] < res.kendall_tau < res.tau_ci[1]
    swapped = ranking_agreement(b, a)
    assert swapped.kendall_tau == pytest.approx(res.kendall_tau, abs=1e-12)
    assert swapped.spearman_rho == pytest.approx(res.spearman_rho, abs=1e-12)
    json.dumps(res.to_dict())


def test_seed_002_section_7_numbers_are_consistent():
    """tau = 0.9 between the two models' predictions goes with rho ~ 0.984-0.986."""
    rng = np.random.default_rng(98)
    r = np.sin(0.45 * np.pi)  # bivariate normal with Kendall's tau = 0.9
    z = rng.standard_normal((20000, 2))
    a, b = z[:, 0], r * z[:, 0] + np.sqrt(1 - r * r) * z[:, 1]
    res = ranking_agreement(a, b)
    assert res.kendall_tau == pytest.approx(0.9, abs=0.005)
    assert res.spearman_rho == pytest.approx(6 / np.pi * np.arcsin(r / 2), abs=0.003)
    assert res.spearman_rho == pytest.approx(0.984, abs=0.005)


def test_weighted_agreement_equals_repeated_rows(rng):
    a = rng.normal(size=40)
    b = a + rng.normal(size=40)
    w = rng.integers(0, 4, 40)
    res = ranking_agreement(a, b, sample_weight=w.astype(float))
    rep = ranking_agreement(np.repeat(a, w), np.repeat(b, w))
    assert isinstance(res.tau_ci, ConfidenceInterval)
    assert math.isnan(res.tau_ci.low) and math.isnan(res.tau_ci.high)
    assert res.kendall_tau == pytest.approx(rep.kendall_tau, abs=1e-12)
    assert res.spearman_rho == pytest.approx(rep.spearman_rho, abs=1e-12)


def test_agreement_bad_input():
    with pytest.raises(ValueError, match="pred_a and pred_b must have the same length"):
        ranking_agreement([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="pred_b contains 1 NaN"):
        ranking_agreement([1.0, 2.0, 3.0], [1.0, np.nan, 2.0])


def _simultaneous_band_by_np_quantile(reps, level):
    """The band's bisection with np.quantile called at every step (the reference)."""
    curves = reps[np.isfinite(reps).all(axis=1)]

    def band(gamma):
        return np.quantile(curves, [gamma / 2, 1 - gamma / 2], axis=0)

    def coverage(gamma):
        lo, hi = band(gamma)
        return float(np.mean(np.all((curves >= lo) & (curves <= hi), axis=1)))

    low, high = 0.0, 1.0 - level
    if coverage(high) >= level:
        return band(high)
    for _ in range(30):
        mid = 0.5 * (low + high)
        if coverage(mid) >= level:
            low = mid
        else:
            high = mid
    return band(low)


@pytest.mark.parametrize("kind", ["normal", "ties", "rounded", "monotone"])
def test_quantiles_from_one_sort_equal_np_quantile_to_the_bit(kind):
    """The simultaneous band sorts the replicate curves once and reads each pair of quantiles
    off the sorted columns with NumPy's own linear-interpolation arithmetic: the same bits as
    np.quantile, for short and long columns, ties and the bisection's levels."""
    from ranklens.bands import _linear_quantiles, _simultaneous_band

    rng = np.random.default_rng(["normal", "ties", "rounded", "monotone"].index(kind))
    for n in (2, 3, 7, 40, 999, 1000):
        for grid in (1, 5, 33):
            if kind == "normal":
                a = rng.normal(size=(n, grid))
            elif kind == "ties":
                a = rng.integers(0, 4, size=(n, grid)) / 7.0
            elif kind == "rounded":
                a = np.round(rng.uniform(size=(n, grid)), 2)
            else:
                a = np.cumsum(rng.uniform(size=(n, grid)), axis=1) / grid
            ordered = np.sort(a, axis=0)
            for gamma in (0.0, 1e-9, 0.013, 0.05, 0.1, rng.uniform(0, 0.2)):
                q = [gamma / 2, 1 - gamma / 2]
                want = np.quantile(a, q, axis=0)
                got = _linear_quantiles(ordered, np.array(q))
                assert np.array_equal(want.view(np.int64), got.view(np.int64)), (n, grid, gamma)
            if n >= 3:
                for level in (0.9, 0.95):
                    lo, hi = _simultaneous_band(a, a.mean(axis=0), level)
                    ref_lo, ref_hi = _simultaneous_band_by_np_quantile(a, level)
                    assert np.array_equal(lo.view(np.int64), ref_lo.view(np.int64))
                    assert np.array_equal(hi.view(np.int64), ref_hi.view(np.int64))
