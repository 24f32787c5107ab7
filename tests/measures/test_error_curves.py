"""REC and RROC curves against definitional references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference_residual as ref
from ranklens import mean_absolute_error as mae
from ranklens import mean_squared_error as mse
from ranklens import rec_curve, rroc_curve


def _data(rng, n=30):
    y = np.round(rng.normal(size=n), 1)
    p = np.round(y + rng.normal(scale=0.7, size=n), 1)  # ties in the residuals
    return y, p


# --- REC -----------------------------------------------------------------------------------------


def test_rec_is_the_ecdf_of_the_losses(rng):
    for _ in range(10):
        y, p = _data(rng)
        w = rng.integers(0, 3, size=y.shape[0]).astype(float)
        w[0] = 1
        for loss, losses in (("absolute", np.abs(y - p)), ("squared", (y - p) ** 2)):
            for weights in (None, w):
                curve = rec_curve(y, p, loss=loss, sample_weight=weights)
                ww = np.ones_like(y) if weights is None else weights
                expected = [np.sum(ww * (losses <= t)) / ww.sum() for t in curve.tolerance]
                np.testing.assert_allclose(curve.accuracy, expected)
                assert curve.tolerance[0] == 0.0
                assert np.all(np.diff(curve.tolerance) > 0)
                assert np.all(np.diff(curve.accuracy) >= 0)
                assert curve.accuracy[-1] == 1.0
                assert curve.tolerance[-1] == pytest.approx(losses[ww > 0].max())


def test_rec_area_over_curve_is_the_mean_loss(rng):
    y, p = _data(rng, 200)
    w = rng.random(200)
    assert rec_curve(y, p).area_over_curve == pytest.approx(mae(y, p))
    assert rec_curve(y, p, loss="squared").area_over_curve == pytest.approx(mse(y, p))
    assert rec_curve(y, p, sample_weight=w).area_over_curve == pytest.approx(
        mae(y, p, sample_weight=w)
    )
    # Rosset, Perlich & Zadrozny (2005), Sect. 4: AOC >= max |r| / n, the non-robustness of the AOC
    assert rec_curve(y, p).area_over_curve >= np.abs(y - p).max() / 200


def test_rec_worked_example_and_perfect_model():
    curve = rec_curve([1.0, 2.0, 4.0, 8.0], [1.0, 3.0, 2.0, 8.5])
    assert curve.tolerance.tolist() == [0.0, 0.5, 1.0, 2.0]
    assert curve.accuracy.tolist() == [0.25, 0.5, 0.75, 1.0]
    assert curve.area_over_curve == pytest.approx(0.875)
    perfect = rec_curve([1.0, 2.0], [1.0, 2.0])
    assert perfect.tolerance.tolist() == [0.0] and perfect.accuracy.tolist() == [1.0]
    assert perfect.area_over_curve == 0.0
    assert perfect.to_dict()["loss"] == "absolute"


def test_rec_bad_input():
    with pytest.raises(ValueError, match="loss must be one of"):
        rec_curve([1.0, 2.0], [1.0, 2.0], loss="huber")
    with pytest.raises(ValueError, match="y_pred contains 1 NaN"):
        rec_curve([1.0, 2.0], [np.nan, 1.0])
    with pytest.raises(ValueError, match="same length"):
        rec_curve([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"y_true has 1 observation\(s\); at least 2"):
        rec_curve([1.0], [1.0])


# --- RROC ----------------------------------------------------------------------------------------


def test_rroc_vertices_and_area_against_the_definition(rng):
    for _ in range(10):
        y, p = _data(rng, 25)
        w = rng.integers(0, 3, size=25).astype(float)
        w[0] = 1
        for weights in (None, w):
            curve = rroc_curve(y, p, sample_weight=weights)
            for s, o, u in zip(curve.shift, curve.over, curve.under, strict=True):
                eo, eu = ref.rroc_point(y, p, s, weights)
                assert o == pytest.approx(eo, abs=1e-9) and u == pytest.approx(eu, abs=1e-9)
            assert curve.area == pytest.approx(ref.rroc_area(y, p, weights))
            assert np.all(np.diff(curve.shift) > 0)
            assert np.all(np.diff(curve.over) >= 0) and np.all(np.diff(curve.under) >= 0)
            assert curve.over[0] == 0.0 and curve.under[-1] == 0.0
            o0, u0 = ref.rroc_point(y, p, 0.0, weights)
            assert (curve.model_over, curve.model_under) == pytest.approx((o0, u0))
            # the unbiased shift puts the model on the diagonal OVER + UNDER = 0
            assert sum(ref.rroc_point(y, p, curve.unbiased_shift, weights)) == pytest.approx(
                0.0, abs=1e-9
            )


@given(st.lists(st.floats(-100, 100, allow_subnormal=False), min_size=2, max_size=20), st.data())
def test_rroc_area_is_n_squared_variance_over_two(errors, data):
    """Hernandez-Orallo (2013): AOC = n^2 sigma^2 / 2 (population variance of the errors)."""
    e = np.array(errors)
    y = np.array(data.draw(st.lists(st.floats(-100, 100), min_size=len(e), max_size=len(e))))
    curve = rroc_curve(y, y + e)
    e = (y + e) - y
    n = e.shape[0]
    assert curve.area == pytest.approx(n**2 * np.var(e) / 2, rel=1e-7, abs=1e-6)
    # convex: the slope dUNDER/dOVER never increases along the curve
    d_over, d_under = np.diff(curve.over), np.diff(curve.under)
    ok = d_over > 1e-9
    slopes = d_under[ok] / d_over[ok]
    assert np.all(np.diff(slopes) <= 1e-6 * (1 + np.abs(slopes[1:])))


def test_rroc_is_shift_invariant_in_shape(rng):
    y, p = _data(rng, 40)
    y, p = np.round(y * 4) / 4, np.round(p * 4) / 4  # exact in binary, so p + 3 is too
    a, b = rroc_curve(y, p), rroc_curve(y, p + 3.0)
    np.testing.assert_allclose(a.over, b.over, atol=1e-9)
    np.testing.assert_allclose(a.under, b.under, atol=1e-9)
    np.testing.assert_allclose(a.shift - 3.0, b.shift, atol=1e-12)
    assert a.area == pytest.approx(b.area)
    assert b.unbiased_shift == pytest.approx(a.unbiased_shift - 3.0)


def test_rroc_large_offsets_do_not_cancel():
    e = np.array([-1.0, 0.0, 2.0])
    y = np.full(3, 1e9)
    curve = rroc_curve(y, y + e)
    assert curve.area == pytest.approx(3**2 * np.var(e) / 2, rel=1e-9)
    np.testing.assert_allclose(curve.over, [0.0, 2.0, 4.0])
    np.testing.assert_allclose(curve.under, [-5.0, -1.0, 0.0])


def test_rroc_area_at_scale(rng):
    """The area's closed form at n = 1e6 (the curve's speed: benchmarks/bench_robustness.py)."""
    n = 1_000_000
    y = rng.lognormal(size=n)
    p = y * rng.lognormal(sigma=0.5, size=n)
    curve = rroc_curve(y, p)
    assert curve.area == pytest.approx(n**2 * np.var(p - y) / 2, rel=1e-6)


def test_rroc_bad_input():
    with pytest.raises(ValueError, match="y_true contains 1 infinite"):
        rroc_curve([np.inf, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="sample_weight sums to zero"):
        rroc_curve([1.0, 2.0], [1.0, 1.0], sample_weight=[0, 0])
