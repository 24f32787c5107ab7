"""Properties of the ranking measures (hypothesis): invariances, symmetries, bounds, weights."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ranklens import UndefinedMetricWarning
from ranklens.ranking import (
    concordance_profile,
    cutoff_auc_curve,
    rank_lift_curve,
    ranking_summary,
)

FIELDS = ("kendall_tau", "spearman_rho", "tau_normalized", "rho_normalized")


@st.composite
def pairs(draw, min_n=4, max_n=25):
    """(y, pred) on a small integer grid (so ties are common) with two distinct y values."""
    n = draw(st.integers(min_n, max_n))
    values = st.integers(-6, 6)
    y = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=float)
    p = np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=float)
    y[0], y[1] = -7.0, 7.0  # y never constant
    p[0], p[1] = draw(st.sampled_from([(-7.0, 7.0), (7.0, -7.0), (0.0, 1.0)]))
    return y, p


def _summary(y, p, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return ranking_summary(y, p, **kw)


def _same(a, b):
    for f in (*FIELDS, "discordant_pairs", "concordant_pairs", "weighted_discordance"):
        assert float(getattr(a, f)) == pytest.approx(float(getattr(b, f)), abs=1e-12)


@given(pairs(), st.sampled_from(["exp", "cube", "affine"]), st.booleans())
def test_invariant_to_increasing_transforms(case, transform, of_truth):
    y, p = case
    f = {"exp": np.exp, "cube": lambda v: v**3 + v, "affine": lambda v: 3 * v - 11}[transform]
    y2, p2 = (f(y), p) if of_truth else (y, f(p))
    _same(_summary(y, p), _summary(y2, p2))
    a, b = cutoff_auc_curve(y, p), cutoff_auc_curve(y2, p2)
    np.testing.assert_allclose(a.auc, b.auc, atol=1e-12)
    assert concordance_profile(y, p).area == pytest.approx(concordance_profile(y2, p2).area)


@given(pairs())
def test_reversal_flips_the_signs(case):
    y, p = case
    a, b = _summary(y, p), _summary(y, -p)
    assert b.kendall_tau == pytest.approx(-a.kendall_tau, abs=1e-12)
    assert b.spearman_rho == pytest.approx(-a.spearman_rho, abs=1e-12)
    assert b.tau_normalized == pytest.approx(1 - a.tau_normalized, abs=1e-12)
    assert b.rho_normalized == pytest.approx(1 - a.rho_normalized, abs=1e-12)
    assert b.discordant_pairs == a.concordant_pairs
    assert rank_lift_curve(y, -p).area == pytest.approx(1 - rank_lift_curve(y, p).area, abs=1e-12)


@given(pairs(), st.randoms(use_true_random=False))
def test_row_permutation_invariance(case, random):
    y, p = case
    perm = np.arange(y.size)
    random.shuffle(perm)
    _same(_summary(y, p), _summary(y[perm], p[perm]))
    a, b = concordance_profile(y, p), concordance_profile(y[perm], p[perm])
    assert a.area == pytest.approx(b.area, abs=1e-12)
    np.testing.assert_allclose(np.sort(a.envelope), np.sort(b.envelope), atol=1e-12)


@given(pairs())
def test_bounds(case):
    y, p = case
    s = _summary(y, p)
    n = y.size
    for f in ("kendall_tau", "spearman_rho"):
        v = getattr(s, f)
        assert np.isnan(v) or -1 <= v <= 1
    assert 0 <= s.tau_normalized <= 1
    assert 0 <= s.discordant_pairs <= n * (n - 1) // 2
    assert 0 <= s.weighted_discordance <= n * (n * n - 1) / 6
    assert s.tau_variance >= 0
    assert np.isnan(s.tau_variance_unbiased) or s.tau_variance_unbiased >= 0
    prof = concordance_profile(y, p)
    assert np.all((0 <= prof.fraction_correct) & (prof.fraction_correct <= prof.envelope + 1e-12))
    assert np.all(prof.envelope <= 1 + 1e-12)
    cut = cutoff_auc_curve(y, p)
    assert np.all((0 <= cut.auc) & (cut.auc <= 1)) and 0 <= cut.area <= 1
    assert -1e-12 <= rank_lift_curve(y, p).area <= 1 + 1e-12


@given(pairs(max_n=15), st.lists(st.integers(0, 3), min_size=15, max_size=15))
def test_integer_weights_equal_repeated_rows(case, counts):
    y, p = case
    m = np.array(counts[: y.size])
    m[0] = m[1] = 1  # keep two distinct y values
    a = _summary(y, p, sample_weight=m)
    b = _summary(np.repeat(y, m), np.repeat(p, m))
    _same(a, b)
    assert cutoff_auc_curve(y, p, sample_weight=m).area == pytest.approx(
        cutoff_auc_curve(np.repeat(y, m), np.repeat(p, m)).area, abs=1e-12
    )
    assert concordance_profile(y, p, sample_weight=m).area == pytest.approx(
        concordance_profile(np.repeat(y, m), np.repeat(p, m)).area, abs=1e-12
    )
