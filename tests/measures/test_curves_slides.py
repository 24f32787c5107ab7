"""Every number of the lecture "Visualize Model Performance" (Provost & Fawcett 2013, ch. 8)."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.targeting import (
    best_model_by_depth,
    decile_table,
    gain_curve,
    lift_at_10,
    lift_curve,
    profit_curve,
)

# "Example: Plot CRC" and "Example: Plot Lift Curve": 100,000 customers, (p, n) = (20,000, 80,000).
CUM_TARGETED = [10_000 * k for k in range(1, 11)]
CUM_RESPONSES = [6_000, 10_000, 13_000, 15_800, 17_000, 18_000, 18_800, 19_400, 19_800, 20_000]
CUM_TPR = [0.30, 0.50, 0.65, 0.79, 0.85, 0.90, 0.94, 0.97, 0.99, 1.00]
LIFT_TABLE = [3, 2.5, 2.17, 1.98, 1.7, 1.5, 1.34, 1.21, 1.1, 1]
DECILE_EVENTS = np.diff([0, *CUM_RESPONSES])
SLIDES_MATRIX = [[4, 0], [-5, 0]]  # revenue 9, cost 5: p targeted +4, n targeted -5


def _decile_data(layout: str):
    """Customers whose deciles hold the slides' responder counts.

    ``distinct``: every score different (responders first within each decile); ``tied``: one
    score per decile (so each decile is one tie group); ``weighted``: the tied data compressed
    to 20 weighted rows.
    """
    if layout == "weighted":
        y = np.tile([1.0, 0.0], 10)
        score = np.repeat(10.0 - np.arange(10), 2)
        weight = np.column_stack([DECILE_EVENTS, 10_000 - DECILE_EVENTS]).reshape(-1)
        return y, score, weight.astype(float)
    y = np.concatenate([np.r_[np.ones(e), np.zeros(10_000 - e)] for e in DECILE_EVENTS])
    if layout == "distinct":
        return y, -np.arange(y.shape[0], dtype=float), None
    return y, np.repeat(10.0 - np.arange(10), 10_000), None


@pytest.mark.parametrize("layout", ["distinct", "tied", "weighted"])
def test_cumulative_response_and_lift_tables_row_by_row(layout):
    y, score, w = _decile_data(layout)
    table = decile_table(y, score, sample_weight=w)
    np.testing.assert_allclose(table.cumulative_count, CUM_TARGETED)
    np.testing.assert_allclose(table.cumulative_events, CUM_RESPONSES)
    np.testing.assert_allclose(table.cumulative_gain, CUM_TPR, rtol=1e-12)
    np.testing.assert_allclose(table.events, DECILE_EVENTS)
    np.testing.assert_allclose(table.count, 10_000)
    np.testing.assert_allclose(table.rate, DECILE_EVENTS / 10_000)
    # The slides print the lift to two decimals (1.975 -> 1.98, 1.3428... -> 1.34).
    np.testing.assert_allclose(table.lift, LIFT_TABLE, atol=0.005 + 1e-12)
    np.testing.assert_allclose(table.lift, np.array(CUM_TPR) / np.arange(1, 11) * 10, rtol=1e-12)
    assert table.lift[0] == pytest.approx(3.0) and table.lift[1] == pytest.approx(2.5)
    assert table.total_events == 20_000 and table.overall_rate == pytest.approx(0.2)

    gain = gain_curve(y, score, sample_weight=w)
    lift = lift_curve(y, score, sample_weight=w)
    depths = np.arange(1, 11) / 10
    np.testing.assert_allclose(gain.at(depths), CUM_TPR, rtol=1e-12)
    np.testing.assert_allclose(lift.at(depths), np.array(CUM_TPR) / depths, rtol=1e-12)
    assert lift_at_10(y, score, sample_weight=w) == pytest.approx(3.0)


def test_random_and_perfect_baselines_of_the_slides():
    # "Random classifier: lift = 1"; perfect lift at 10 % with 20 % positives is 5.
    y, score, _ = _decile_data("distinct")
    lift = lift_curve(y, score)
    np.testing.assert_array_equal(lift.random_lift, 1.0)
    at_10 = np.flatnonzero(np.isclose(lift.fraction_targeted, 0.1))[0]
    assert lift.perfect_lift[at_10] == pytest.approx(5.0)
    gain = gain_curve(y, score)
    np.testing.assert_allclose(gain.random_gain, gain.fraction_targeted)
    assert gain.perfect_area == pytest.approx(1 - 0.2 / 2)
    assert lift.perfect_area == pytest.approx(1 + np.log(5.0))


def _profit_example():
    """(p, n) = (500, 500); the top 400 hold 240 p and 160 n (the slides' x = 40 % point)."""
    y = np.r_[np.ones(240), np.zeros(160), np.ones(260), np.zeros(340)]
    return y, -np.arange(1000.0)


def test_profit_curve_numbers_of_the_slides():
    y, score = _profit_example()
    r = profit_curve(y, score, cost_benefit=SLIDES_MATRIX)
    assert r.profit[0] == 0.0  # x = 0 %: nobody targeted
    assert r.profit[-1] == -500.0  # x = 100 %: 500 * 4 + 500 * (-5)
    assert r.at(0.4) == pytest.approx(160.0)  # 240 * 4 + 160 * (-5)
    # Random model at 40 %: 200 p and 200 n targeted, 200 * 4 + 200 * (-5) = -200.
    k = np.flatnonzero(np.isclose(r.fraction_targeted, 0.4))[0]
    assert r.profit[k] == 160.0
    assert r.random_profit[k] == pytest.approx(-200.0)
    np.testing.assert_allclose(r.random_profit[[0, -1]], [0.0, -500.0])
    # Perfect: all 500 responders first, 500 * 4 = 2000 at x = 50 %.
    assert r.perfect_profit.max() == pytest.approx(2000.0)
    assert r.best_profit == r.profit.max()


def test_profit_curve_with_the_same_data_as_one_tied_block_per_segment():
    y, _ = _profit_example()
    score = np.r_[np.full(400, 2.0), np.full(600, 1.0)]
    r = profit_curve(y, score, cost_benefit=SLIDES_MATRIX)
    np.testing.assert_allclose(r.fraction_targeted, [0.0, 0.4, 1.0])
    np.testing.assert_allclose(r.profit, [0.0, 160.0, -500.0])
    np.testing.assert_allclose(r.random_profit, [0.0, -200.0, -500.0])
    assert (r.best_profit, r.best_fraction, r.best_threshold) == (160.0, 0.4, 2.0)


def _budget_classifiers():
    """10,000 customers, 3,000 responders; three classifiers as tied blocks of scores.

    Classifier 1 is sharp at the top (600 p in its top 800) but weak after; classifier 2 keeps a
    60 % response rate down to 50 % of the list (the slides: "max profit is achieved with
    classifier 2, when 50 % instances are targeted"); classifier 3 ranks at random (all tied).
    """
    y = np.zeros(10_000)
    # Customer ids 0..2999 are responders.
    y[:3000] = 1.0
    c1 = np.zeros(10_000)
    c1[:600] = 2.0  # 600 responders ...
    c1[3000:3200] = 2.0  # ... and 200 non-responders in the top block of 800
    c2 = np.zeros(10_000)
    c2[:480] = 3.0
    c2[3000:3320] = 3.0  # top 800: 480 p, 320 n
    c2[480:3000] = 2.0
    c2[3320:5000] = 2.0  # next 4200: 2520 p, 1680 n
    c3 = np.zeros(10_000)
    return y, {"classifier 1": c1, "classifier 2": c2, "classifier 3": c3}


def test_budget_exercise_of_the_slides():
    # "$4,000 budget ... 10,000 customers ... $5 per offer": at most floor(4000 / 5) = 800 targets.
    y, models = _budget_classifiers()
    results = {
        name: profit_curve(y, s, cost_benefit=SLIDES_MATRIX, budget=4000, cost_per_target=5)
        for name, s in models.items()
    }
    for r in results.values():
        assert r.max_targets == 800
        assert r.budget_n_targeted <= 800
    c1, c2, c3 = results.values()
    # Unconstrained, classifier 2 is best at 50 %: 480*4 - 320*5 + 2520*4 - 1680*5 = 2000.
    assert (c2.best_profit, c2.best_fraction) == (2000.0, 0.5)
    assert (c1.best_profit, c1.best_fraction) == (1400.0, 0.08)
    # Within the budget classifier 1 wins: 600*4 - 200*5 = 1400 against 480*4 - 320*5 = 320.
    assert (c1.budget_profit, c1.budget_n_targeted, c1.budget_fraction) == (1400.0, 800.0, 0.08)
    assert (c2.budget_profit, c2.budget_n_targeted) == (320.0, 800.0)
    # The random classifier loses money on every offer: target nobody.
    assert (c3.budget_profit, c3.budget_n_targeted) == (0.0, 0.0)
    assert max(results, key=lambda name: results[name].budget_profit) == "classifier 1"
    # The same comparison through best_model_by_depth at the budget depth and at 50 %.
    cmp = best_model_by_depth(
        y, models, curve="profit", cost_benefit=SLIDES_MATRIX, depths=[0.08, 0.5]
    )
    assert cmp.winner.tolist() == ["classifier 1", "classifier 2"]
    np.testing.assert_allclose(cmp.values[:, 0], [1400.0, 320.0, -1840.0])


def test_tree_best_up_to_25_percent_naive_bayes_beyond():
    # Slides, "Model Evaluation with Lift Curve": two lift curves crossing at 25 %.
    # 1000 customers, 200 responders; each model's list is three tied blocks.
    y = np.zeros(1000)
    y[:200] = 1.0
    tree = np.zeros(1000)  # blocks: 100 rows with 80 p, 150 with 40 p, 750 with 80 p
    tree[:80] = 3.0
    tree[200:220] = 3.0
    tree[80:120] = 2.0
    tree[220:330] = 2.0
    bayes = np.zeros(1000)  # blocks: 250 rows with 120 p, 250 with 60 p, 500 with 20 p
    bayes[:120] = 3.0
    bayes[200:330] = 3.0
    bayes[120:180] = 2.0
    bayes[330:520] = 2.0
    models = {"tree": tree, "naive Bayes": bayes}
    r = best_model_by_depth(y, models)
    assert r.curve == "lift"
    np.testing.assert_array_equal(r.crossing_depths, [0.25])
    assert r.crossing_from.tolist() == ["tree"] and r.crossing_to.tolist() == ["naive Bayes"]
    assert r.segments == (("tree", 0.01, 0.25), ("naive Bayes", 0.25, 1.0))
    assert set(r.winner[r.depths <= 0.25]) == {"tree"}
    assert set(r.winner[r.depths > 0.25]) == {"naive Bayes"}
    # At 100 % every lift is 1: the tie keeps the previous winner (no spurious crossing).
    np.testing.assert_allclose(r.values[:, -1], 1.0)
    # The crossing is located exactly even when it falls between two grid depths.
    coarse = best_model_by_depth(y, models, curve="gain", depths=[0.2, 0.3])
    np.testing.assert_allclose(coarse.crossing_depths, [0.25], rtol=1e-12)
