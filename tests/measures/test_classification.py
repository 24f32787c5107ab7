"""The measures of a binary target against scikit-learn and brute force (ties and weights)."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import ranklens as rl
from ranklens.exceptions import DomainError, UndefinedMetricWarning
from ranklens.metrics import get_metric

polars = pytest.importorskip("polars")


def _data(seed: int, n: int = 400, ties: int = 12):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.25).astype(np.float64)
    score = np.round(np.clip(0.25 + 0.3 * (y - 0.25) + rng.normal(0, 0.2, n), 0, 1) * ties) / ties
    w = rng.integers(0, 4, n).astype(np.float64)
    w[0] = 1.0
    return y, score, w


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weighted", [False, True])
def test_average_precision_equals_sklearn_with_ties_and_weights(seed, weighted):
    y, s, w = _data(seed)
    kw = {"sample_weight": w} if weighted else {}
    got = rl.average_precision_score(y, s, **kw)
    assert got == pytest.approx(skm.average_precision_score(y, s, **kw), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_precision_recall_curve_equals_sklearn(seed):
    y, s, w = _data(seed)
    r = rl.precision_recall_curve(y, s, sample_weight=w)
    p, rc, th = skm.precision_recall_curve(y, s, sample_weight=w)
    np.testing.assert_allclose(r.precision, p[::-1], rtol=1e-12)
    np.testing.assert_allclose(r.recall, rc[::-1], rtol=1e-12)
    np.testing.assert_array_equal(r.thresholds[1:], th[::-1])
    assert r.area == r.average_precision


def _brute_ap(y, s, w):
    """AP over the distinct thresholds by counting the rows at or above each."""
    total = (w * y).sum()
    ap, prev = 0.0, 0.0
    for t in np.unique(s)[::-1]:
        top = s >= t
        tp = (w * y)[top].sum()
        ap += (tp / total - prev) * tp / w[top].sum()
        prev = tp / total
    return ap


def test_average_precision_brute_force_on_small_data():
    y = np.array([1, 0, 1, 1, 0, 0, 1, 0.0])
    s = np.array([0.9, 0.9, 0.5, 0.4, 0.4, 0.4, 0.1, 0.1])
    w = np.array([1, 2, 1, 3, 1, 1, 2, 1.0])
    assert rl.average_precision_score(y, s, sample_weight=w) == pytest.approx(
        _brute_ap(y, s, w), rel=1e-13
    )


def test_average_precision_of_a_continuous_target_uses_the_top_ten_percent():
    rng = np.random.default_rng(3)
    y = rng.gamma(2.0, 1.0, 500)
    s = y + rng.normal(0, 1.0, 500)
    events = (y >= np.sort(y)[-50]).astype(float)
    assert rl.average_precision_score(y, s) == pytest.approx(
        skm.average_precision_score(events, s), rel=1e-12
    )
    assert rl.average_precision_score(y, s) == rl.average_precision_score(y, s, events="top:0.1")


def test_average_precision_without_events_is_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="average precision is undefined"):
        assert math.isnan(rl.average_precision_score([0, 0, 0], [0.1, 0.2, 0.3]))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighted", [False, True])
def test_brier_and_log_loss_equal_sklearn(seed, weighted):
    y, s, w = _data(seed)
    s[:3] = [0.0, 1.0, 0.0]  # clipped by the log loss as scikit-learn clips
    y[:3] = [1.0, 0.0, 0.0]
    kw = {"sample_weight": w} if weighted else {}
    assert rl.brier_score_loss(y, s, **kw) == pytest.approx(
        skm.brier_score_loss(y, s, **kw), rel=1e-12
    )
    assert rl.log_loss(y, s, **kw) == pytest.approx(skm.log_loss(y, s, **kw), rel=1e-12)


def test_log_loss_clips_at_machine_epsilon():
    # an event given probability 0 costs -log(eps), not infinity
    assert rl.log_loss([1.0, 0.0], [0.0, 0.0]) == pytest.approx(
        -math.log(np.finfo(np.float64).eps) / 2, rel=1e-15
    )


@pytest.mark.parametrize("func", [rl.brier_score_loss, rl.log_loss])
def test_scores_outside_the_unit_interval_are_not_probabilities(func):
    with pytest.warns(UndefinedMetricWarning, match="scores are not probabilities"):
        assert math.isnan(func([0, 1, 1], [0.2, 1.4, 0.7]))


@pytest.mark.parametrize("func", [rl.brier_score_loss, rl.log_loss])
def test_a_target_that_is_not_zero_one_is_refused_naming_y_true(func):
    with pytest.raises(DomainError, match="0/1 y_true"):
        func([0, 2, 1], [0.2, 0.4, 0.7])


def _brute_confusion(y, s, w, depth):
    """Counts at a depth, the boundary tie shared pro rata (expected counts under random
    tie-breaking), by walking the distinct scores."""
    target = depth * w.sum()
    tp = fp = taken = 0.0
    for t in np.unique(s)[::-1]:
        block = s == t
        bw, be = w[block].sum(), (w * y)[block].sum()
        if taken + bw <= target:
            taken += bw
            tp += be
            fp += bw - be
            continue
        share = (target - taken) / bw
        tp += share * be
        fp += share * (bw - be)
        break
    e = (w * y).sum()
    return tp, fp, e - tp, w.sum() - e - fp


@pytest.mark.parametrize("depth", [0.05, 0.1, 0.2, 0.37, 1.0])
@pytest.mark.parametrize("seed", range(3))
def test_confusion_precision_and_recall_at_depth_brute_force(depth, seed):
    y, s, w = _data(seed, n=120, ties=6)
    c = rl.confusion_at_depth(y, s, depth=depth, sample_weight=w)
    tp, fp, fn, tn = _brute_confusion(y, s, w, depth)
    got = (c.true_positives, c.false_positives, c.false_negatives, c.true_negatives)
    np.testing.assert_allclose(got, (tp, fp, fn, tn), rtol=1e-10, atol=1e-9)
    assert rl.precision_at_depth(y, s, depth=depth, sample_weight=w) == pytest.approx(
        tp / (tp + fp), rel=1e-10
    )
    assert rl.recall_at_depth(y, s, depth=depth, sample_weight=w) == pytest.approx(
        tp / (tp + fn), rel=1e-10
    )


def test_precision_and_recall_without_ties_equal_sklearn_on_the_top_rows():
    rng = np.random.default_rng(7)
    y = (rng.random(1000) < 0.2).astype(float)
    s = rng.random(1000) + 0.3 * y
    top = s >= np.sort(s)[-100]
    pred = top.astype(int)
    assert rl.precision_at_10(y, s) == pytest.approx(skm.precision_score(y, pred), rel=1e-12)
    assert rl.recall_at_10(y, s) == pytest.approx(skm.recall_score(y, pred), rel=1e-12)


def test_registered_depth_measures_match_the_functions_and_lift():
    y, s, w = _data(11)
    for depth in (5, 10, 20):
        prec = get_metric(f"precision_at_{depth}").func(y, s, sample_weight=w)
        rec = get_metric(f"recall_at_{depth}").func(y, s, sample_weight=w)
        lift = get_metric(f"lift_at_{depth}").func(y, s, sample_weight=w)
        share = (w * y).sum() / w.sum()
        assert prec == pytest.approx(lift * share, rel=1e-12)
        assert rec == pytest.approx(lift * depth / 100, rel=1e-12)
        assert prec == rl.precision_at_depth(y, s, depth=depth / 100, sample_weight=w)


def test_depth_is_checked_by_name():
    with pytest.raises(ValueError, match="depth"):
        rl.precision_at_depth([0, 1], [0.1, 0.2], depth=0.0)
    with pytest.raises(ValueError, match="depth"):
        rl.recall_at_depth([0, 1], [0.1, 0.2], depth=1.5)


def test_registrations():
    for name in ("average_precision_score", "precision_at_10", "recall_at_20"):
        spec = get_metric(name)
        assert spec.family == "targeting" and spec.direction == "higher"
        assert spec.targets == "binary"
    for name in ("brier_score_loss", "log_loss"):
        spec = get_metric(name)
        assert spec.family == "probability" and spec.direction == "lower"
        assert spec.targets == "binary"
    assert get_metric("precision_at_10").capabilities.curve is not None


def _containers(a):
    text = pd.DataFrame({"v": a}).to_csv(index=False)
    ro = a.copy()
    ro.flags.writeable = False
    wide = np.empty(2 * a.shape[0])
    wide[::2] = a
    return [pd.read_csv(io.StringIO(text))["v"], polars.Series(a), ro, wide[::2]]


@pytest.mark.parametrize(
    "func",
    [
        rl.average_precision_score,
        rl.brier_score_loss,
        rl.log_loss,
        rl.precision_at_10,
        rl.recall_at_20,
    ],
)
def test_realistic_containers(func):
    y, s, w = _data(5, n=200)
    ref = func(y, s, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cy, cs, cw in zip(_containers(y), _containers(s), _containers(w), strict=True):
            assert func(cy, cs, sample_weight=cw) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("binary", [True, False])
def test_bootstrap_sweep_replicates_equal_the_functions(binary):
    """The targeting sweep's replicates of precision and recall at a depth (NumPy twin and
    compiled kernel) equal the functions called with the replicate's weights."""
    from ranklens._compute.kernels import curve_sweeps
    from ranklens._compute.xp import curves as xpc

    rng = np.random.default_rng(2)
    n = 300
    y = (rng.random(n) < 0.3).astype(float) if binary else rng.gamma(2.0, 1.0, n)
    preds = np.stack([np.round(y + rng.normal(0, 1, n), 1), rng.integers(0, 9, n) * 1.0])
    names = [
        "precision_at_5",
        "precision_at_20",
        "recall_at_10",
        "recall_at_20",
        "lift_at_10",
        "average_precision_score",
    ]
    forms = [get_metric(name).capabilities.batched for name in names]
    sweep = forms[0].sweep
    state = sweep.prepare(y, preds, {})
    weights = rng.poisson(1.0, (6, n)).astype(float)
    got = sweep.evaluate(state, weights, tuple(f.statistic for f in forms))
    orig = xpc.targeting_replicates_host
    try:
        for engine in (xpc.targeting_replicates_numpy, curve_sweeps.targeting_replicates_serial):
            xpc.targeting_replicates_host = engine
            got_engine = sweep.evaluate(state, weights, tuple(f.statistic for f in forms))
            np.testing.assert_allclose(got_engine, got, rtol=1e-12)
    finally:
        xpc.targeting_replicates_host = orig
    for r in range(weights.shape[0]):
        for j, name in enumerate(names):
            for m in range(2):
                want = get_metric(name).func(y, preds[m], sample_weight=weights[r])
                assert got[r, j, m] == pytest.approx(want, rel=1e-12), (r, name, m)


def test_compare_models_gives_intervals_for_the_binary_measures():
    y, s, _w = _data(4, n=600)
    rng = np.random.default_rng(0)
    other = np.clip(s + rng.normal(0, 0.2, s.shape[0]), 0, 1)
    names = ["average_precision_score", "brier_score_loss", "log_loss", "precision_at_10"]
    result = rl.compare_models(y, {"a": s, "b": other}, metrics=names, n_bootstrap=200)
    frame = result.to_frame()
    assert len(frame) >= len(names)
    assert np.isfinite(frame.select_dtypes("number").to_numpy()).any()


@pytest.mark.parametrize("name", ["brier_score_loss", "log_loss"])
def test_leave_one_out_equals_brute_force(name):
    y, s, _w = _data(8, n=60, ties=5)
    spec = get_metric(name)
    got = spec.capabilities.leave_one_out(y, s)
    keep = np.ones(y.shape[0], dtype=bool)
    for i in range(y.shape[0]):
        keep[i] = False
        assert got[i] == pytest.approx(spec.func(y[keep], s[keep]), rel=1e-12)
        keep[i] = True


@pytest.mark.parametrize("name", ["brier_score_loss", "log_loss", "average_precision_score"])
def test_scale_free_in_the_weights(name):
    y, s, w = _data(9)
    func = get_metric(name).func
    ref = func(y, s, sample_weight=w)
    for scale in (1e-300, 1e-150, 1e150, 1e300):
        assert func(y, s, sample_weight=w * scale) == pytest.approx(ref, rel=1e-12)
