"""The CORP decomposition (ranklens.calibration) against independent references.

* the isotonic fit against scikit-learn's ``IsotonicRegression`` (ties, weights);
* MCB, DSC and UNC against scikit-learn's fit with the formulas written out here, and against
  the values of the ``model-diagnostics`` package's ``decompose`` (recorded below, with the call);
* the pinball-loss recalibration against a brute-force minimiser over every monotone fit;
* the identity ``S = MCB - DSC + UNC`` on many random cases with ties and weights;
* a calibrated simulation (MCB small, by a bound from the number of blocks and n) and a shifted
  copy (MCB grows by the shift squared, to a tolerance from n);
* the exact leave-one-out, the registered measures in the paired bootstrap, the reliability
  diagram's band and its display.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

import ranklens as rl
from ranklens import (
    calibration,
    compare_models,
    discrimination,
    isotonic_recalibration,
    miscalibration,
    reliability_diagram,
    score_decomposition,
    score_decompositions,
)
from ranklens.exceptions import RanklensWarning, UndefinedMetricWarning
from ranklens.metrics import get_metric


def _case(rng: np.random.Generator, n: int, *, weights: str = "none"):
    """Rounded data: ties in the prediction and in the response; weights none, integer (with
    zeros) or real."""
    x = np.round(rng.normal(size=n), int(rng.integers(0, 2)))
    y = np.round(rng.uniform(-1.0, 2.0) * x + rng.normal(size=n) * rng.uniform(0.2, 2.0), 1)
    w = None
    if weights == "integer":
        w = rng.integers(0, 4, n).astype(float)
        w[0] = 1.0
    elif weights == "real":
        w = rng.gamma(0.8, size=n) + 0.01
    return y, x, w


def _pinball(y, z, level):
    d = y - z
    return np.where(d >= 0, level * d, (level - 1.0) * d)


def _sklearn_decomposition(y, x, w):
    """MCB, DSC, UNC, S from scikit-learn's isotonic fit and the formulas of Dimitriadis et al.
    (2021) written out: S(z) = sum w (y - z)^2 / sum w."""
    w = np.ones_like(y) if w is None else w
    keep = w > 0
    rc = IsotonicRegression(out_of_bounds="clip").fit(x[keep], y[keep], w[keep]).predict(x[keep])
    y, x, w = y[keep], x[keep], w[keep]
    r = np.average(y, weights=w)

    def mean_score(z):
        return np.average((y - z) ** 2, weights=w)

    s_x, s_rc, s_r = mean_score(x), mean_score(rc), mean_score(r)
    return s_x - s_rc, s_r - s_rc, s_r, s_x


# --- the isotonic fit ----------------------------------------------------------------------------


@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_isotonic_fit_equals_scikit_learn(weights):
    rng = np.random.default_rng({"none": 1, "integer": 2, "real": 3}[weights])
    for _ in range(100):
        y, x, w = _case(rng, int(rng.integers(1, 80)), weights=weights)
        ours = isotonic_recalibration(y, x, sample_weight=w)
        keep = slice(None) if w is None else w > 0
        theirs = (
            IsotonicRegression(out_of_bounds="clip")
            .fit(x[keep], y[keep], None if w is None else w[keep])
            .predict(x)
        )
        np.testing.assert_allclose(ours[keep], theirs[keep], rtol=1e-12, atol=1e-12)
        # a function of the prediction: equal predictions, equal values; non-decreasing
        order = np.argsort(x, kind="stable")
        assert np.all(np.diff(ours[order]) >= 0)


def test_zero_weight_rows_take_the_value_below_them():
    y = np.array([1.0, 2.0, 9.0, 3.0])
    x = np.array([1.0, 2.0, 2.5, 3.0])
    w = np.array([1.0, 1.0, 0.0, 1.0])
    rc = isotonic_recalibration(y, x, sample_weight=w)
    assert rc.tolist() == [1.0, 2.0, 2.0, 3.0]
    assert score_decomposition(y, x, sample_weight=w).mcb == pytest.approx(
        score_decomposition(y[w > 0], x[w > 0]).mcb, abs=1e-15
    )


# --- the decomposition ---------------------------------------------------------------------------


@pytest.mark.parametrize("weights", ["none", "integer", "real"])
def test_squared_error_parts_equal_scikit_learn_with_the_formulas(weights):
    rng = np.random.default_rng({"none": 11, "integer": 12, "real": 13}[weights])
    for _ in range(60):
        y, x, w = _case(rng, int(rng.integers(2, 120)), weights=weights)
        d = score_decomposition(y, x, sample_weight=w)
        mcb, dsc, unc, s = _sklearn_decomposition(y, x, w)
        np.testing.assert_allclose([d.mcb, d.dsc, d.unc, d.mean_score], [mcb, dsc, unc, s],
                                   rtol=1e-10, atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("score", ["squared_error", "pinball"])
def test_the_identity_holds_to_rounding_on_many_cases(score):
    rng = np.random.default_rng(21 if score == "pinball" else 22)
    for i in range(300):
        y, x, w = _case(rng, int(rng.integers(1, 60)), weights=("none", "integer", "real")[i % 3])
        level = float(rng.uniform(0.05, 0.95)) if score == "pinball" else None
        d = score_decomposition(y, x, sample_weight=w, score=score, quantile_level=level)
        scale = max(1.0, abs(d.mean_score), abs(d.unc))
        assert abs(d.mcb - d.dsc + d.unc - d.mean_score) <= 8 * np.finfo(float).eps * scale
        assert d.mcb >= -1e-12 * scale and d.dsc >= -1e-12 * scale


#: ``model-diagnostics`` 1.5.0 (scratch environment, not a dependency), on the data of
#: :func:`_md_data`: ``decompose(y_obs=y, y_pred=x, weights=None or w,
#: scoring_function=SquaredError() or PinballLoss(level=a))``; its columns ``miscalibration``,
#: ``discrimination``, ``uncertainty`` and ``score`` (it has no weighted quantiles).
MODEL_DIAGNOSTICS = {
    ("squared_error", None, False): (0.2686455128205125, 0.8127121794871792, 1.4262333333333332,
                                     0.8821666666666665),
    ("squared_error", None, True): (0.3076963953920475, 0.7909092498343915, 1.3909519848771266,
                                    0.9077391304347826),
    ("pinball", 0.8, False): (0.2583333333333335, 0.14200000000000007, 0.3496666666666667,
                              0.46600000000000014),
    ("pinball", 0.5, False): (0.06166666666666665, 0.17916666666666675, 0.4900000000000001,
                              0.3725),
    ("pinball", 0.2, False): (0.09233333333333338, 0.13200000000000006, 0.3186666666666667,
                              0.279),
}  # fmt: skip


def _md_data():
    rng = np.random.default_rng(20260101)
    n = 60
    x = np.round(rng.normal(size=n), 1)
    y = np.round(0.8 * x + 0.3 + rng.normal(size=n), 1)
    w = rng.integers(1, 4, n).astype(float)
    return y, x, w


@pytest.mark.parametrize(("score", "level", "weighted"), list(MODEL_DIAGNOSTICS))
def test_parts_equal_model_diagnostics(score, level, weighted):
    y, x, w = _md_data()
    d = score_decomposition(
        y, x, sample_weight=w if weighted else None, score=score, quantile_level=level
    )
    want = MODEL_DIAGNOSTICS[(score, level, weighted)]
    np.testing.assert_allclose([d.mcb, d.dsc, d.unc, d.mean_score], want, rtol=1e-12, atol=1e-15)


def _brute_pinball(y, x, w, level):
    """The smallest mean pinball loss of a non-decreasing function of x: some optimal fit takes
    values among the observed y, so every non-decreasing choice of them per distinct x is
    tried."""
    xs, candidates = np.unique(x), np.unique(y)
    best = math.inf
    for combo in itertools.combinations_with_replacement(range(candidates.shape[0]), xs.shape[0]):
        fit = candidates[list(combo)][np.searchsorted(xs, x)]
        best = min(best, float(np.sum(w * _pinball(y, fit, level))))
    return best / float(w.sum())


def test_pinball_recalibration_equals_the_brute_force_minimiser():
    rng = np.random.default_rng(31)
    for i in range(300):
        n = int(rng.integers(1, 8))
        x = rng.integers(0, 5, n).astype(float)
        y = rng.integers(0, 6, n).astype(float)
        w = rng.integers(0, 4, n).astype(float) if i % 2 else np.ones(n)
        w[0] = max(w[0], 1.0)
        level = float(rng.choice([0.1, 0.25, 0.5, 0.75, 0.9, rng.uniform(0.01, 0.99)]))
        d = score_decomposition(y, x, sample_weight=w, score="pinball", quantile_level=level)
        assert d.mean_score - d.mcb == pytest.approx(_brute_pinball(y, x, w, level), abs=1e-12)
        # the recalibrated values are that minimiser, and not the mean PAV's
        rc = d.recalibrated
        assert float(np.sum(w * _pinball(y, rc, level)) / w.sum()) == pytest.approx(
            d.mean_score - d.mcb, abs=1e-12
        )


def _exact_pav_quantiles(y, x, w, level):
    """Reference PAV: every block's quantile recomputed from its rows with exact (rational) weight
    sums, the target ``level * W`` rounded once to a float; O(n^2), for small n."""
    keep = w > 0
    order = np.argsort(x[keep], kind="stable")
    y, x, w = y[keep][order], x[keep][order], w[keep][order]

    def quantile(lo, hi):
        rows = lo + np.argsort(y[lo:hi], kind="stable")
        weights = [Fraction(float(v)) for v in w[rows]]
        target = Fraction(level * float(sum(weights)))
        below = Fraction(0)
        for row, weight in zip(rows, weights):
            below += weight
            if below >= target:
                return float(y[row])
        return float(y[rows[-1]])

    starts = [*np.flatnonzero(np.r_[True, x[1:] != x[:-1]]).tolist(), y.shape[0]]
    blocks = []  # (value, first row)
    for lo, hi in itertools.pairwise(starts):
        v = quantile(lo, hi)
        while blocks and blocks[-1][0] > v:
            lo = blocks.pop()[1]
            v = quantile(lo, hi)
        blocks.append((v, lo))
    fit = np.empty(y.shape[0])
    for (v, lo), (_, hi) in itertools.pairwise([*blocks, (None, y.shape[0])]):
        fit[lo:hi] = v
    return x, fit


@pytest.mark.parametrize("order", ["decreasing", "equal", "ties", "random"])
@pytest.mark.parametrize(
    "weights", ["none", "integer", "zeros", "real", "decimal", "wide", "powers"]
)
def test_quantile_pav_equals_the_exact_reference_on_adversarial_orders(order, weights):
    # y decreasing in x (every row joins one block), all equal, few values: the rule at the
    # boundary W(y <= v) == level W and ties of values; zero weights drop their rows.
    rng = np.random.default_rng(sum(map(ord, order + weights)))
    for _ in range(12):
        n = int(rng.integers(1, 70))
        x = np.sort(rng.integers(0, max(1, n // int(rng.integers(1, 4))), n)).astype(float)
        y = {
            "decreasing": -x - np.arange(n) % 3,
            "equal": np.full(n, 2.5),
            "ties": rng.integers(0, 4, n).astype(float) - x / max(n, 1),
            "random": np.round(rng.normal(size=n), 1),
        }[order]
        w = {
            "none": np.ones(n),
            "integer": rng.integers(1, 5, n).astype(float),
            "zeros": rng.integers(0, 3, n).astype(float),
            "real": rng.exponential(size=n),
            "decimal": rng.choice([0.1, 0.2, 0.3, 0.7], n),
            "wide": rng.choice([1e-12, 0.3, 1e12], n),  # sums beyond int64: Python integers
            "powers": rng.choice([1024.0, 4096.0, 3072.0], n),  # a positive exponent
        }[weights]
        w[0] = max(w[0], 1.0)
        for level in (0.1, 0.2, 0.25, 0.5, 0.7, 0.9, float(rng.uniform(0.01, 0.99))):
            d = calibration._prepare(y, x, w)
            fit = calibration._fit(d, level)
            xs, expected = _exact_pav_quantiles(d.ys, d.xs, d.w, level)
            got = fit.group_value[np.searchsorted(fit.group_x, xs)]
            np.testing.assert_array_equal(got, expected)


def test_pinball_leave_one_out_refuses_above_its_size(monkeypatch):
    rng = np.random.default_rng(61)
    y, x, _ = _case(rng, 30)
    monkeypatch.setattr(calibration, "_REFIT_MAX_ROWS", 29)
    for name in ("miscalibration", "discrimination"):
        with pytest.warns(UndefinedMetricWarning, match="not computed on 30 rows"):
            loo = get_metric(name).capabilities.leave_one_out(
                y, x, score="pinball", quantile_level=0.3
            )
        assert loo.shape == (30,) and np.isnan(loo).all()


def test_the_quantile_pav_pools_by_the_quantile_not_the_mean():
    # a decreasing pair pools to the median of {0, 0, 10} = 0, where the mean PAV gives 10/3
    y = np.array([0.0, 10.0, 0.0])
    x = np.array([1.0, 2.0, 3.0])
    rc = isotonic_recalibration(y, x, score="pinball", quantile_level=0.5)
    assert rc.tolist() == [0.0, 0.0, 0.0]
    assert isotonic_recalibration(y, x).tolist() == [0.0, 5.0, 5.0]


def test_a_calibrated_model_has_small_mcb_and_a_shift_adds_its_square():
    rng = np.random.default_rng(41)
    n, sigma, shift = 20_000, 1.0, 0.3
    x = rng.normal(size=n)
    y = x + sigma * rng.normal(size=n)  # E[y | x] = x: calibrated
    d = score_decomposition(y, x)
    # the isotonic fit's in-sample optimism: about 2 sigma^2 (blocks) / n (its degrees of
    # freedom, Meyer & Woodroofe 2000); twice that bounds it
    assert 0.0 <= d.mcb <= 4.0 * sigma**2 * d.n_blocks / n
    shifted = score_decomposition(y, x + shift)
    # the same order, so the same recalibration: MCB(x + s) = MCB(x) + s^2 + 2 s mean(x - y)
    exact = d.mcb + shift**2 + 2.0 * shift * float(np.mean(x - y))
    assert shifted.mcb == pytest.approx(exact, rel=1e-9)
    assert shifted.dsc == pytest.approx(d.dsc, rel=1e-12)
    # mean(x - y) has sd sigma / sqrt(n): 5 of them bound it
    tolerance = d.mcb + 2.0 * shift * 5.0 * sigma / math.sqrt(n)
    assert abs(shifted.mcb - shift**2) <= tolerance


def test_any_magnitude_and_the_scale_of_the_weights():
    y, x, w = _md_data()
    base = score_decomposition(y, x, sample_weight=w)
    for k in (-600, 500):
        c = 2.0**k
        d = score_decomposition(y * c, x * c, sample_weight=w)
        assert d.mcb == pytest.approx(base.mcb * c * c, rel=1e-14)
        assert d.dsc == pytest.approx(base.dsc * c * c, rel=1e-14)
    for factor in (1e-300, 1e300):
        d = score_decomposition(y, x, sample_weight=w * factor)
        assert d.mcb == pytest.approx(base.mcb, rel=1e-12)


def test_discrimination_depends_on_the_order_only():
    y, x, _ = _md_data()
    assert discrimination(y, np.exp(x)) == pytest.approx(discrimination(y, x), rel=1e-12)
    assert miscalibration(y, y) == 0.0 and discrimination(y, y) == pytest.approx(
        score_decomposition(y, y).unc
    )


# --- results and errors --------------------------------------------------------------------------


def test_results_frames_and_statements():
    y, x, _ = _md_data()
    d = score_decomposition(y, x)
    frame = d.to_frame()
    assert list(frame.columns[:4]) == ["mean_score", "mcb", "dsc", "unc"] and len(frame) == 1
    assert d.statement().startswith("Mean squared error 0.8822 = MCB 0.2686 - DSC 0.8127 + UNC")
    table = score_decompositions(y, {"a": x, "b": 0.8 * x + 0.3, "c": x + 1.0})
    assert table.to_frame().index.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(table.unc, d.unc)
    # b is the true regression of y on x: the same order (the same DSC), better calibrated
    assert "b has the lowest mean score" in table.statement()
    # a sharp but shifted model against a calibrated but blunt one: recalibration reverses them
    pair = score_decompositions(y, {"sharp": x + 2.0, "blunt": np.round(x) * 0.8 + 0.3})
    assert pair.mean_score[0] > pair.mean_score[1] and pair.dsc[0] > pair.dsc[1]
    assert "Recalibrated, sharp would beat blunt" in pair.statement()
    assert len(repr(d)) <= 480


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"score": "absolute"}, "score must be one of"),
        ({"score": "pinball"}, "quantile_level is required"),
        ({"score": "pinball", "quantile_level": 1.5}, "quantile_level must be in"),
        ({"quantile_level": 0.5}, "quantile_level=0.5 is used with score='pinball' only"),
        ({"sample_weight": [1.0, -1.0, 1.0]}, "sample_weight must be non-negative"),
    ],
)
def test_errors_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        score_decomposition([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], **kwargs)


def test_bad_options_of_the_diagram_and_the_table():
    with pytest.raises(ValueError, match="n_bootstrap"):
        reliability_diagram([1.0, 2.0], [1.0, 2.0], n_bootstrap=-1)
    with pytest.raises(ValueError, match="confidence_level"):
        reliability_diagram([1.0, 2.0], [1.0, 2.0], confidence_level=1.0)
    with pytest.raises(ValueError, match="predictions must be a non-empty mapping"):
        score_decompositions([1.0, 2.0], {})


# --- the registered measures ---------------------------------------------------------------------


def test_exact_leave_one_out_equals_refits():
    rng = np.random.default_rng(51)
    for _ in range(40):
        y, x, _ = _case(rng, int(rng.integers(2, 40)))
        y = y + rng.uniform(-50, 50)
        for name in ("miscalibration", "discrimination"):
            spec = get_metric(name)
            keep = np.ones(y.shape[0], dtype=bool)
            brute = []
            for i in range(y.shape[0]):
                keep[i] = False
                brute.append(spec.func(y[keep], x[keep]))
                keep[i] = True
            fast = spec.capabilities.leave_one_out(y, x)
            np.testing.assert_allclose(fast, brute, rtol=1e-9, atol=1e-11)
    # the pinball versions refit (exactly)
    loo = get_metric("miscalibration").capabilities.leave_one_out(
        y, x, score="pinball", quantile_level=0.3
    )
    assert loo[0] == pytest.approx(
        miscalibration(y[1:], x[1:], score="pinball", quantile_level=0.3)
    )


def test_paired_bootstrap_of_the_differences():
    y, x, _ = _md_data()
    preds = {"a": x, "b": x + 0.5}
    res = compare_models(
        y, preds, metrics=["miscalibration", "discrimination"], n_bootstrap=200, random_state=0,
        show_progress=False,
    )  # fmt: skip
    frame = res.to_frame()
    mcb = frame[frame["metric"] == "miscalibration"].iloc[0]
    # a shift by 0.5 adds about 0.25 to MCB and nothing to DSC, in every replicate alike
    assert mcb["difference"] == pytest.approx(
        miscalibration(y, x) - miscalibration(y, x + 0.5), rel=1e-12
    )
    dsc = frame[frame["metric"] == "discrimination"].iloc[0]
    assert dsc["difference"] == pytest.approx(0.0, abs=1e-12)
    # the quantile versions: the registered measure with its level bound
    spec = get_metric("miscalibration").bind(score="pinball", quantile_level=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        q = compare_models(y, preds, metrics=[spec], n_bootstrap=50, random_state=0,
                           show_progress=False)  # fmt: skip
    assert q.value("miscalibration", "a") == pytest.approx(
        miscalibration(y, x, score="pinball", quantile_level=0.9)
    )


# --- the reliability diagram ---------------------------------------------------------------------


def test_the_diagram_is_the_recalibration_with_a_band_around_the_diagonal():
    rng = np.random.default_rng(61)
    n = 3000
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    r = reliability_diagram(y, x, n_bootstrap=100, random_state=0)
    assert np.all(np.diff(r.prediction) > 0) and np.all(np.diff(r.recalibrated) >= 0)
    np.testing.assert_allclose(r.at(r.prediction), r.recalibrated)
    assert r.mcb == pytest.approx(score_decomposition(y, x).mcb)
    # calibrated: the band holds the diagonal at most predictions, and the curve too
    inside = (r.band_low <= r.prediction) & (r.prediction <= r.band_high)
    assert inside.mean() > 0.8
    # shifted by one standard deviation: the curve leaves the band
    s = reliability_diagram(y, x + 1.0, n_bootstrap=100, random_state=0)
    outside = (s.recalibrated < s.band_low) | (s.recalibrated > s.band_high)
    assert outside.mean() > 0.5
    again = reliability_diagram(y, x, n_bootstrap=100, random_state=0)
    np.testing.assert_array_equal(again.band_low, r.band_low)
    q = reliability_diagram(y, x, score="pinball", quantile_level=0.9, n_bootstrap=20)
    assert q.quantile_level == 0.9 and np.isfinite(q.band_high).all()
    none = reliability_diagram(y, x, n_bootstrap=0)
    assert np.isnan(none.band_low).all() and none.band_method == "none"
    assert math.isnan(r.area) and r.to_frame().columns[:2].tolist() == ["x", "y"]


def test_reliability_display_draws_the_curve_band_and_diagonal_once():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ranklens.plot import ReliabilityDisplay

    y, x, _ = _md_data()
    disp = ReliabilityDisplay.from_predictions(y, x, name="a", n_bootstrap=20, random_state=0)
    ReliabilityDisplay.from_predictions(y, x + 1.0, ax=disp.ax_, name="b", n_bootstrap=0)
    labels = disp.ax_.get_legend_handles_labels()[1]
    assert (
        labels[0].startswith("a (MCB = ")
        and sum(lab.startswith("calibrated") for lab in labels) == 1
    )
    assert disp.ax_.get_legend() is not None
    plt.close("all")


def test_public_names():
    for name in ("score_decomposition", "ReliabilityDiagramResult", "DECOMPOSITION_SCORES"):
        assert hasattr(rl, name)
    assert get_metric("miscalibration").direction == "lower"
    assert get_metric("discrimination").direction == "higher"


def _band_brute_force(y, p, w, level, n_bootstrap, confidence, seed):
    """The consistency band as resamples times predictions: every resample's recalibration at
    every prediction, then the quantiles of each column (the definition, in memory n_bootstrap
    times the predictions)."""
    d = calibration._prepare(y, p, w)
    fit = calibration._decompose(d, level).fit
    rows = fit.order
    residuals = d.ys[rows] - calibration._row_values(d, fit)[rows]
    weights = None if d.w is None else d.w[rows]
    prob = None if weights is None else weights / weights.sum()
    rng = np.random.default_rng(seed)
    xs = d.xs[rows]
    curves = np.empty((n_bootstrap, fit.group_x.shape[0]))
    for b in range(n_bootstrap):
        draw = rng.choice(residuals.shape[0], size=residuals.shape[0], replace=True, p=prob)
        star = calibration._Data(xs + residuals[draw], xs, weights, 0)
        curves[b] = calibration._fit(star, level).group_value
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(curves, [tail, 1.0 - tail], axis=0)
    return np.ldexp(low, d.e), np.ldexp(high, d.e)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("level", [None, 0.7])
@pytest.mark.parametrize("block_cells", [7, 1 << 22])
def test_band_taken_at_the_steps_equals_every_column(monkeypatch, weighted, level, block_cells):
    rng = np.random.default_rng(4)
    n = 800
    y = rng.lognormal(size=n).round(1)
    p = (np.log1p(y) + rng.normal(size=n)).round(2)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    monkeypatch.setattr(calibration, "_BAND_BLOCK_CELLS", block_cells)
    kw = {} if level is None else {"score": "pinball", "quantile_level": level}
    got = calibration.reliability_diagram(
        y, p, sample_weight=w, n_bootstrap=30, confidence_level=0.8, random_state=3, **kw
    )
    low, high = _band_brute_force(y, p, w, level, 30, 0.8, 3)
    assert got.band_low.tobytes() == low.tobytes()
    assert got.band_high.tobytes() == high.tobytes()


@pytest.mark.parametrize("cells", [1, 1 << 20])
@pytest.mark.parametrize("scale", [1.0, 1e6])
@pytest.mark.parametrize("ties", [False, True])
def test_the_bootstrap_sweep_equals_the_functions_bit_for_bit(monkeypatch, cells, scale, ties):
    """Each replicate of the miscalibration and discrimination sweep is what the functions give
    with that replicate's weights, to the bit: integer and fractional weights, a replicate of
    zero total (NaN), rows of zero weight first and last, replicates taken a few cells at a time
    or all at once."""
    from ranklens import calibration

    monkeypatch.setattr(calibration, "_REPLICATE_CELLS", cells)
    rng = np.random.default_rng(21)
    n = 60
    y = rng.lognormal(0.0, 1.0, n) * scale
    preds = np.stack([y * rng.lognormal(0.0, 0.4, n), y + rng.normal(0.0, scale, n)])
    if ties:
        preds = np.round(preds / scale, 0) * scale
    weights = rng.poisson(1.0, size=(7, n)).astype(np.float64)
    weights[1] = 0.0  # refused by the functions: NaN
    weights[2] *= rng.uniform(0.5, 1.5, n)  # fractional: rescaled to mean 1
    weights[3, np.argsort(preds[0])[:5]] = 0.0  # the lowest predictions out
    state = calibration._SWEEP.prepare(y, preds, {})
    got = calibration._SWEEP.evaluate(state, weights, ("mcb", "dsc"))
    for r in range(weights.shape[0]):
        for m in range(preds.shape[0]):
            if r == 1:
                assert np.isnan(got[r, :, m]).all()
                continue
            want = [
                miscalibration(y, preds[m], sample_weight=weights[r]),
                discrimination(y, preds[m], sample_weight=weights[r]),
            ]
            assert np.array(want).tobytes() == got[r, :, m].tobytes(), (r, m)
