"""Counter-based Poisson(1) weights and unit keys (ranklens._inference.resampling), and the
resampling schemes of compare_models and curve_bands built on them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ranklens import metrics as _metrics
from ranklens._compute.kernels.resampling import POISSON_THRESHOLDS
from ranklens._inference.resampling import POISSON_ABOVE, Resampler, group_keys, poisson_weights
from ranklens.bands import curve_bands
from ranklens.compare import compare_models
from ranklens.exceptions import RanklensWarning

MASK = (1 << 64) - 1


def _mix(x: int) -> int:
    """SplitMix64 in plain Python integers (Steele, Lea & Flood 2014), the kernel's twin."""
    z = (x + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _poisson_inverse(u53: int) -> int:
    """Poisson(1) quantile of ``u53 / 2^53`` from the distribution function in exact terms."""
    cdf, k = 0.0, 0
    while True:
        cdf += math.exp(-1) / math.factorial(k)
        if u53 < round(cdf * 2**53):
            return k
        k += 1


def test_poisson_weights_match_a_python_twin():
    keys = np.array([0, 1, 2, 17, 2**40 + 3, 2**64 - 1], dtype=np.uint64)
    reps = np.array([0, 5, 999])
    seed = 20240611
    got = poisson_weights(keys, reps, seed)
    assert got.dtype == np.int32 and got.shape == (3, 6)
    for b, r in enumerate(reps):
        state = _mix(_mix(seed) ^ _mix(int(r) + 1))
        for i, key in enumerate(keys):
            u53 = _mix(state ^ _mix(int(key))) >> 11
            assert got[b, i] == _poisson_inverse(u53)


def test_thresholds_are_the_poisson_cdf():
    k = np.arange(POISSON_THRESHOLDS.size)
    np.testing.assert_allclose(
        POISSON_THRESHOLDS.astype(np.float64) / 2.0**53, stats.poisson.cdf(k, 1.0), rtol=1e-15
    )
    assert stats.poisson.sf(POISSON_THRESHOLDS.size - 1, 1.0) < 2.0**-53


def test_poisson_weights_do_not_depend_on_the_split():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**63, size=5000, dtype=np.int64).astype(np.uint64)
    reps = np.arange(40)
    whole = poisson_weights(keys, reps, 11)
    # any split of the keys, in any order, and any split of the replicates
    perm = rng.permutation(keys.size)
    pieces = np.array_split(perm, 7)
    for piece in pieces:
        np.testing.assert_array_equal(poisson_weights(keys[piece], reps, 11), whole[:, piece])
    np.testing.assert_array_equal(poisson_weights(keys, reps[[31, 2]], 11), whole[[31, 2]])
    assert not np.array_equal(poisson_weights(keys, reps, 12), whole)


def test_poisson_weights_have_poisson_1_moments_and_frequencies():
    keys = np.arange(200_000, dtype=np.uint64)
    w = poisson_weights(keys, np.arange(20), 3).ravel()
    n = w.size
    assert abs(w.mean() - 1.0) < 4 / math.sqrt(n)
    assert abs(w.var() - 1.0) < 4 * math.sqrt(3.0 / n)  # var of (X-1)^2 is 2 + 1 = 3 at lambda=1
    counts = np.bincount(w, minlength=8)[:6]
    expected = stats.poisson.pmf(np.arange(6), 1.0) * n
    assert abs(counts[0] - expected[0]) < 5 * math.sqrt(expected[0])  # zero frequency e^-1
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    assert chi2 < stats.chi2.ppf(0.9999, 5)
    # replicates and neighbouring keys are uncorrelated
    m = poisson_weights(keys[:50_000], np.arange(2), 3).astype(float)
    assert abs(np.corrcoef(m[0], m[1])[0, 1]) < 0.02
    assert abs(np.corrcoef(m[0, :-1], m[0, 1:])[0, 1]) < 0.02


def test_poisson_weights_validate():
    with pytest.raises(ValueError, match="uint64"):
        poisson_weights(np.arange(3), np.arange(2), 0)
    with pytest.raises(ValueError, match="replicates"):
        poisson_weights(np.arange(3, dtype=np.uint64), np.array([-1]), 0)


def test_group_keys_are_stable_and_per_label():
    labels = np.array(["b", "a", "c", "a", "b"])
    keys = group_keys(labels)
    assert keys.dtype == np.uint64
    assert keys[1] == keys[3] and keys[0] == keys[4] and len(set(keys.tolist())) == 3
    # independent of the order and of the other labels
    np.testing.assert_array_equal(group_keys(labels[::-1]), keys[::-1])
    np.testing.assert_array_equal(group_keys(labels[2:3]), keys[2:3])
    # the same unit whatever the container or integer dtype
    ints = np.array([7, -3, 7, 2**40])
    k = group_keys(ints)
    np.testing.assert_array_equal(group_keys(ints.astype(np.int32)[:3]), k[:3])
    np.testing.assert_array_equal(group_keys(ints.astype(float)), k)
    np.testing.assert_array_equal(group_keys(pd.Series(ints)), k)
    np.testing.assert_array_equal(group_keys(list(ints)), k)
    np.testing.assert_array_equal(group_keys(np.array(ints, dtype=object)), k)
    assert group_keys(pd.Series(["a", "b"]).astype("category"))[0] == keys[1]
    # fixed values: the key of a label never changes between releases or processes
    assert int(group_keys(np.array([0]))[0]) == _mix(0)
    assert group_keys(["x"])[0] == group_keys(np.array(["x"], dtype=object))[0]


def test_group_keys_reject_missing_labels():
    with pytest.raises(ValueError, match="missing label"):
        group_keys(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="missing label"):
        group_keys(["a", None])
    with pytest.raises(ValueError, match="missing label"):
        group_keys(pd.Series(["a", pd.NA], dtype="string"))


# ---------------------------------------------------------------------------------------------
# schemes of compare_models and curve_bands
# ---------------------------------------------------------------------------------------------


def _clustered(rng, n_units=30, per_unit=(1, 8)):
    sizes = rng.integers(per_unit[0], per_unit[1], size=n_units)
    unit = np.repeat(np.arange(n_units), sizes)
    effect = rng.normal(size=n_units)[unit]  # a strong unit effect: rows of a unit move together
    y = effect + 0.3 * rng.normal(size=unit.size)
    p1 = y + effect * 0.8 + 0.5 * rng.normal(size=unit.size)
    p2 = y + 0.7 * rng.normal(size=unit.size)
    return y, {"a": p1, "b": p2}, unit


def _boot_rng(seed):
    return np.random.default_rng(seed).spawn(2)[0]


def test_multinomial_default_is_unchanged_and_named_explicitly(rng):
    y, preds, _ = _clustered(rng)
    kw = dict(metrics=["mean_absolute_error", "kendall_tau"], n_bootstrap=30, random_state=4)
    default = compare_models(y, preds, **kw)
    explicit = compare_models(y, preds, scheme="multinomial", **kw)
    np.testing.assert_array_equal(default.replicates, explicit.replicates)
    auto = compare_models(y, preds, scheme="auto", **kw)  # small n: auto is multinomial
    np.testing.assert_array_equal(default.replicates, auto.replicates)


def test_clustered_bootstrap_replicates_are_materialised_unit_resamples(rng):
    y, preds, unit = _clustered(rng)
    labels = np.array([f"customer-{u}" for u in unit])
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=25,
        random_state=9,
        groups=labels,
        interval="percentile",
    )
    # the documented draw: units in the order of their keys, G draws of G with replacement
    keys = group_keys(labels)
    unit_keys, inverse = np.unique(keys, return_inverse=True)
    g = unit_keys.size
    boot = _boot_rng(9)
    mae = _metrics.get_metric("mean_absolute_error").func
    for b in range(25):
        drawn = boot.integers(0, g, size=g)
        rows = np.concatenate([np.flatnonzero(inverse == u) for u in drawn])
        for m, pred in enumerate(preds.values()):
            assert res.replicates[b, 0, m] == pytest.approx(mae(y[rows], pred[rows]), rel=1e-12)


def test_clustered_bootstrap_sd_matches_manual_unit_resampling(rng):
    y, preds, unit = _clustered(rng, n_units=40)
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error", "spearman_rho"],
        n_bootstrap=1500,
        random_state=1,
        groups=unit,
        interval="percentile",
    )
    # an independent cluster bootstrap with its own generator, rows materialised
    members = [np.flatnonzero(unit == u) for u in range(40)]
    gen = np.random.default_rng(123)
    manual = np.empty((1500, 2))
    for b in range(1500):
        rows = np.concatenate([members[u] for u in gen.integers(0, 40, size=40)])
        manual[b, 0] = np.mean(np.abs(y[rows] - preds["a"][rows])) - np.mean(
            np.abs(y[rows] - preds["b"][rows])
        )
        manual[b, 1] = (
            stats.spearmanr(y[rows], preds["a"][rows])[0]
            - stats.spearmanr(y[rows], preds["b"][rows])[0]
        )
    sd = res.difference_sd[:, 0]
    np.testing.assert_allclose(sd, manual.std(axis=0, ddof=1), rtol=0.12)
    # a row bootstrap of the same data understates the spread of the unit-level model a
    rows_only = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=1500,
        random_state=1,
        interval="percentile",
    )
    assert rows_only.difference_sd[0, 0] < 0.8 * sd[0]


def test_poisson_replicates_are_weighted_evaluations(rng):
    y, preds, _ = _clustered(rng)
    n = y.size
    res = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error", "kendall_tau"],
        n_bootstrap=20,
        random_state=5,
        scheme="poisson",
        interval="percentile",
    )
    seed = int(_boot_rng(5).integers(0, 2**63, dtype=np.int64))
    w = poisson_weights(np.arange(n, dtype=np.uint64), np.arange(20), seed)
    for k, name in enumerate(["mean_absolute_error", "kendall_tau"]):
        func = _metrics.get_metric(name).func
        for m, pred in enumerate(preds.values()):
            expect = [func(y, pred, sample_weight=w[b].astype(float)) for b in range(20)]
            np.testing.assert_allclose(res.replicates[:, k, m], expect, rtol=1e-9)


def test_poisson_with_groups_gives_whole_units_one_weight_whatever_the_row_order(rng):
    y, preds, unit = _clustered(rng)
    labels = np.array([f"u{u}" for u in unit], dtype=object)
    kw = dict(
        metrics=["mean_absolute_error", "spearman_rho"],
        n_bootstrap=15,
        random_state=2,
        scheme="poisson",
        interval="percentile",
    )
    res = compare_models(y, preds, groups=labels, **kw)
    perm = rng.permutation(y.size)
    shuffled = compare_models(
        y[perm], {k: v[perm] for k, v in preds.items()}, groups=pd.Series(labels[perm]), **kw
    )
    np.testing.assert_allclose(shuffled.replicates, res.replicates, rtol=1e-10)
    # the weights themselves: one per unit
    resampler = Resampler.resolve("poisson", labels, y)
    block = next(resampler.blocks(_boot_rng(2), 15))
    for u in np.unique(unit):
        rows = unit == u
        assert (block[:, rows] == block[:, rows][:, :1]).all()


def test_stratified_keeps_the_event_count_and_materialises(rng):
    n = 300
    y = (rng.random(n) < 0.05).astype(float)
    y[:3] = 1.0
    score = y + rng.normal(size=n)
    resampler = Resampler.resolve("stratified", None, y)
    events = y == 1
    for block in resampler.blocks(_boot_rng(0), 40):
        np.testing.assert_array_equal(block[:, events].sum(axis=1), events.sum())
        np.testing.assert_array_equal(block.sum(axis=1), n)
    res = compare_models(
        y,
        {"s": score, "t": -score},
        metrics=["roc_auc"],
        n_bootstrap=200,
        random_state=0,
        scheme="stratified",
        interval="percentile",
    )
    assert res.n_undefined.sum() == 0  # no replicate without events
    # the documented draw: per class (in sorted order), as many rows as it has, with replacement
    boot = _boot_rng(0)
    strata = [np.flatnonzero(y == v) for v in np.unique(y)]
    auc = _metrics.get_metric("roc_auc").func
    for b in range(5):
        rows = np.concatenate([s[boot.integers(0, s.size, size=s.size)] for s in strata])
        assert res.replicates[b, 0, 0] == pytest.approx(auc(y[rows], score[rows]), rel=1e-12)


def test_curve_bands_use_the_same_schemes(rng):
    y, preds, unit = _clustered(rng, n_units=50)
    kw = dict(curve="rank_lift", n_bootstrap=12, random_state=3)
    bands = curve_bands(y, preds, scheme="poisson", groups=unit, **kw)
    resampler = Resampler.resolve("poisson", unit, y)
    w = next(resampler.blocks(_boot_rng(3), 12))
    plain = curve_bands(
        y, preds, sample_weight=w[4], n_bootstrap=2, random_state=0, curve="rank_lift"
    )
    np.testing.assert_allclose(bands.replicates[4], plain.estimate, rtol=1e-12)
    clustered = curve_bands(y, preds, groups=unit, **kw)
    assert clustered.replicates.shape == (12, 2, 100)
    assert not np.allclose(clustered.replicates, curve_bands(y, preds, **kw).replicates)


def test_schemes_validate(rng):
    y, preds, unit = _clustered(rng)
    with pytest.raises(ValueError, match="scheme must be one of"):
        compare_models(y, preds, scheme="bayesian", n_bootstrap=5)
    with pytest.raises(ValueError, match="binary y_true"):
        compare_models(y, preds, scheme="stratified", n_bootstrap=5)
    with pytest.raises(ValueError, match="cannot be combined with groups"):
        compare_models((y > 0).astype(float), preds, scheme="stratified", groups=unit)
    with pytest.raises(ValueError, match="one unit id per row"):
        compare_models(y, preds, groups=unit[:-1], n_bootstrap=5)
    with pytest.raises(ValueError, match="at least 2 distinct units"):
        compare_models(y, preds, groups=np.zeros(y.size), n_bootstrap=5)
    with pytest.raises(ValueError, match="missing label"):
        compare_models(y, preds, groups=np.where(unit == 3, np.nan, unit), n_bootstrap=5)
    with pytest.raises(ValueError, match="permutation test"):
        compare_models(y, preds, method="permutation", groups=unit, n_bootstrap=5)
    with pytest.raises(ValueError, match="scheme must be one of"):
        curve_bands(y, preds, scheme="nope", n_bootstrap=5)
    assert Resampler.resolve("auto", None, np.zeros(POISSON_ABOVE)).scheme == "poisson"
    assert Resampler.resolve("auto", None, np.zeros(POISSON_ABOVE - 1)).scheme == "multinomial"


@pytest.mark.parametrize("curve", ["cutoff_auc", "rank_lift"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("route", ["kernel", "numpy"])
def test_curve_sweeps_reproduce_the_curve_function_per_replicate(
    rng, monkeypatch, curve, weighted, route
):
    from ranklens._compute.kernels import curve_sweeps
    from ranklens._foundation.curve_registry import get_curve
    from ranklens._foundation.route import POLICY

    kernel_name = {"cutoff_auc": "cutoff_auc_grid", "rank_lift": "rank_lift_grid"}[curve]
    original = getattr(curve_sweeps, kernel_name)
    calls = []

    def counted(*args):
        calls.append(args[0].shape[0])
        return original(*args)

    if route == "kernel":  # small data take the grids' NumPy forms unless told otherwise
        monkeypatch.setattr(POLICY, "band_grid_numpy_below", 0)
        monkeypatch.setattr(curve_sweeps, kernel_name, counted)
    else:  # the NumPy forms, whatever this process has compiled before
        monkeypatch.setattr(POLICY, "prefer_compiled", False)

    n = 120
    y = rng.integers(0, 12, n).astype(float)  # ties in y
    preds = {"a": np.round(y + rng.normal(size=n), 1), "b": rng.integers(0, 5, n).astype(float)}
    sw = rng.uniform(0.5, 3.0, n) if weighted else None
    spec = get_curve(curve)
    assert spec.sweep is not None
    res = curve_bands(y, preds, curve=curve, n_bootstrap=30, random_state=8, sample_weight=sw)
    blocks = np.concatenate(
        list(Resampler.resolve("multinomial", None, y).blocks(_boot_rng(8), 30))
    )
    if route == "kernel":
        assert sum(calls) >= 2 * 30  # the replicates came from the sweep, not the function
    for b in range(30):
        w = blocks[b] if sw is None else blocks[b] * sw
        for m, pred in enumerate(preds.values()):
            direct = spec.on_grid(spec.func(y, pred, sample_weight=w), res.x)
            np.testing.assert_allclose(res.replicates[b, m], direct, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# BCa at large n: the acceleration from a regression on the counts per group
# ---------------------------------------------------------------------------------------------


def test_regression_influence_recovers_a_linear_statistic(rng):
    from ranklens._inference.resampling import group_counts, regression_influence

    n, g = 600, 20
    groups = rng.permutation(np.arange(n) % g)
    level = rng.lognormal(size=g)
    x = level[groups]  # constant within a group: the mean is linear in the counts per group
    blocks = rng.multinomial(n, np.full(n, 1.0 / n), size=400).astype(float)
    reps = blocks @ x / n
    counts = group_counts(blocks, groups, g)
    np.testing.assert_allclose(counts, [np.bincount(groups, b, g) for b in blocks])
    influence = -regression_influence(reps, counts)
    np.testing.assert_allclose(influence, (level - level.mean()) / n, atol=1e-12)
    assert regression_influence(reps[: 2 * g - 1], counts[: 2 * g - 1]) is None


def test_group_counts_kernel_equals_bincount_bit_for_bit(rng):
    from ranklens._inference.resampling import group_counts, kernels_only, numpy_twins

    n, g = 5000, 100
    groups = rng.permutation(np.arange(n) % g)
    block = rng.multinomial(n, np.full(n, 1.0 / n), size=9).astype(float)
    block[3] *= rng.random(n)  # fractional weights: the summation order shows
    with kernels_only():
        fast = group_counts(block, groups, g)
    with numpy_twins(True):
        twin = group_counts(block, groups, g)
    expected = np.stack([np.bincount(groups, weights=b, minlength=g) for b in block])
    np.testing.assert_array_equal(fast, expected)
    np.testing.assert_array_equal(twin, expected)
    from ranklens._compute.kernels import resampling as _kr

    for driver in (_kr.group_weight_sums_serial, _kr.group_weight_sums_parallel):
        np.testing.assert_array_equal(driver(block, groups, g), expected)
    strided = np.asfortranarray(block)[:, ::2]  # a non-contiguous block
    with kernels_only():
        np.testing.assert_array_equal(
            group_counts(strided, groups[::2], g),
            np.stack([np.bincount(groups[::2], weights=b, minlength=g) for b in strided]),
        )


def test_bca_from_regression_matches_the_jackknife_bca(rng, monkeypatch):
    import ranklens._inference.resampling as resampling

    n = 4000
    y = rng.lognormal(size=n)
    preds = {"a": y * rng.lognormal(0, 0.8, n), "b": y * rng.lognormal(0, 1.0, n)}
    kw = dict(
        metrics=["root_mean_squared_error", "kendall_tau"],
        n_bootstrap=1500,
        random_state=3,
        interval="bca",
    )
    jackknife = compare_models(y, preds, **kw)
    monkeypatch.setattr(resampling, "BCA_JACKKNIFE_BELOW", 1000)
    assert resampling.jackknife_rows(n, "bca") == 0
    regressed = compare_models(y, preds, **kw)
    assert regressed.interval == "bca"
    np.testing.assert_array_equal(regressed.replicates, jackknife.replicates)
    percentile = compare_models(y, preds, **{**kw, "interval": "percentile"})
    # the regression's acceleration moves the percentile ends towards the jackknife BCa's (it is
    # noisier: 100 group effects from 1500 replicates), and never past the other side
    for field in ("ci_lower", "ci_upper", "difference_ci_lower", "difference_ci_upper"):
        jack, reg, perc = (getattr(r, field) for r in (jackknife, regressed, percentile))
        assert np.all(np.abs(reg - jack) <= np.abs(perc - jack) + 1e-12)
    assert (
        np.abs(regressed.ci_upper - jackknife.ci_upper).max()
        < 0.7 * np.abs(percentile.ci_upper - jackknife.ci_upper).max()
    )
    # too few replicates for the regression: percentile intervals, and the result says so
    with pytest.warns(RanklensWarning, match="percentile intervals are given instead"):
        few = compare_models(
            y,
            preds,
            metrics=["mean_absolute_error"],
            n_bootstrap=150,
            random_state=1,
            interval="bca",
        )
    assert few.interval == "percentile"
    plain = compare_models(
        y,
        preds,
        metrics=["mean_absolute_error"],
        n_bootstrap=150,
        random_state=1,
        interval="percentile",
    )
    np.testing.assert_array_equal(few.ci_lower, plain.ci_lower)
