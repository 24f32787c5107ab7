"""The curves' sums forms (``CurveSpec.sums``) without an engine: the rows cut into pieces in
several ways, each piece's summary merged, the result's points on the in-memory curve of all
rows and its scalars equal to the in-memory ones (floats to 1e-12 relative to the curve's
scale, counts exactly); ties (values rounded to 0.1) and weights with zeros."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from ranklens._foundation.curve_registry import get_curve
from ranklens.extremes import _default_accuracy, regression_precision_recall_curve
from ranklens.relevance import relevance_from_boxplot
from ranklens.residual import rec_curve, rroc_curve

TOL = 1e-12


def _data(n: int = 3000, seed: int = 4):
    rng = np.random.default_rng(seed)
    y = np.round(np.exp(rng.normal(size=n)), 1)
    p = np.round(y + rng.normal(size=n) * 0.7 + 0.2, 1)
    w = rng.uniform(0.0, 2.0, n)
    w[::7] = 0.0
    p[5], w[5] = y[5] + 40.0, 0.0  # the largest error on a row of weight 0
    return y, p, w


def _summary(form, y, p, w, grid, cuts, **params):
    bounds = [0, *cuts, y.size]
    pieces = [
        form.partial(y[a:b], p[a:b], None if w is None else w[a:b], grid, **params)
        for a, b in itertools.pairwise(bounds)
    ]
    pieces = [s for s in pieces if s is not None]
    total = pieces[0]
    for s in pieces[1:]:
        total = form.merge(total, s)
    return total


CUTS = [[], [1000], [1, 2, 1500, 2999]]


@pytest.mark.parametrize("cuts", CUTS)
@pytest.mark.parametrize("weighted", [False, True])
def test_rec_and_rroc_from_pieces(cuts, weighted):
    y, p, w = _data()
    w = w if weighted else None
    sample = slice(None, None, 3)  # the grid from a sample of the rows
    rec_form, rroc_form = get_curve("rec").sums, get_curve("rroc").sums
    grid = rec_form.grid(y[sample], p[sample])
    got = rec_form.finish(_summary(rec_form, y, p, w, grid, cuts), grid)
    want = rec_curve(y, p, sample_weight=w)
    assert got.tolerance[0] == 0.0 and got.tolerance[-1] == want.tolerance[-1]
    assert np.all(np.abs(got.accuracy - want.at(got.tolerance)) <= TOL)
    assert abs(got.area_over_curve - want.area_over_curve) <= TOL * want.area_over_curve

    grid = rroc_form.grid(y[sample], p[sample])
    got = rroc_form.finish(_summary(rroc_form, y, p, w, grid, cuts), grid)
    want = rroc_curve(y, p, sample_weight=w)
    assert got.shift[0] == want.shift[0] and got.shift[-1] == want.shift[-1]
    scale = max(float(want.over.max()), float(-want.under.min()))
    for field in ("over", "under"):
        at = np.interp(got.shift, want.shift, getattr(want, field))
        assert np.all(np.abs(getattr(got, field) - at) <= TOL * scale), field
    assert abs(got.area - want.area) <= TOL * want.area
    for field in ("model_over", "model_under"):
        assert abs(getattr(got, field) - getattr(want, field)) <= TOL * scale, field
    assert abs(got.unbiased_shift - want.unbiased_shift) <= TOL * 50.0


def test_rroc_of_a_perfect_model_is_one_point():
    y, _, _ = _data(200)
    form = get_curve("rroc").sums
    grid = form.grid(y, y)
    got = form.finish(_summary(form, y, y, None, grid, [100]), grid)
    want = rroc_curve(y, y)
    assert got.shift.tolist() == want.shift.tolist() == [0.0]
    assert got.over.tolist() == [0.0] and got.under.tolist() == [0.0] and got.area == 0.0
    rec = get_curve("rec").sums
    grid = rec.grid(y, y)
    got = rec.finish(_summary(rec, y, y, None, grid, [100]), grid)
    assert got.tolerance.tolist() == [0.0] and got.accuracy.tolist() == [1.0]


@pytest.mark.parametrize("cuts", CUTS)
@pytest.mark.parametrize("weighted", [False, True])
def test_precision_recall_from_pieces(cuts, weighted):
    y, p, w = _data()
    w = w if weighted else None
    spec = get_curve("precision_recall")
    form = spec.sums
    params = {
        "relevance": relevance_from_boxplot(y),
        "accuracy": _default_accuracy(y, w),
        "thresholds": spec.fixed["thresholds"],
    }
    grid = form.grid(y, p, **params)
    with warnings.catch_warnings(record=True) as got_warned:
        warnings.simplefilter("always")
        got = form.finish(_summary(form, y, p, w, grid, cuts, **params), grid, **params)
    with warnings.catch_warnings(record=True) as want_warned:
        warnings.simplefilter("always")
        want = regression_precision_recall_curve(y, p, sample_weight=w, **params)
    assert [str(m.message) for m in got_warned] == [str(m.message) for m in want_warned]
    assert np.array_equal(got.thresholds, want.thresholds)
    for field in ("precision", "recall", "f_beta"):
        a, b = getattr(got, field), getattr(want, field)
        assert np.array_equal(np.isnan(a), np.isnan(b)), field
        assert np.nanmax(np.abs(a - b)) <= TOL, field
    assert np.array_equal(got.n_true_events, want.n_true_events)
    assert np.array_equal(got.n_predicted_events, want.n_predicted_events)
    assert abs(got.best_f_beta - want.best_f_beta) <= TOL


def test_precision_recall_from_sums_needs_a_grid():
    form = get_curve("precision_recall").sums
    with pytest.raises(ValueError, match="thresholds"):
        form.grid(np.zeros(3), np.zeros(3), thresholds=None)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        form.grid(np.zeros(3), np.zeros(3), thresholds=[0.0, 0.5])
