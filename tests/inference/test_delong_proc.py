"""DeLong's interval and paired test against the R package pROC (Robin et al. 2011).

Every reference number below was printed by ``tests/data/proc_reference.R`` (pROC 1.18.0 on
R 4.2.2): ``auc(roc(y, s, levels = c(0, 1), direction = "<"))``, ``var(...)`` (DeLong's
variance), ``ci.auc(..., method = "delong")`` and ``roc.test(ra, rb, method = "delong",
paired = TRUE)`` (its ``statistic`` Z and ``p.value``). The data are read from CSV with pandas,
as users have them.

Data: ``asah.csv`` is pROC's aSAH data set (Turck et al. 2010: 113 patients after aneurysmal
subarachnoid haemorrhage, outcome "Poor" as the event; ``wfns`` is an ordinal scale with five
values, so it is heavily tied). The ``delong_*.csv`` files were drawn once with
``np.random.default_rng(20261123)``: for ``(name, n, digits)`` in ``(("ties", 300, 1),
("continuous", 500, 6), ("small", 23, 0))`` in this order, ``y = (rng.random(n) < 0.35)``,
``a = 0.8 y + N(0, 1)``, ``b = 0.6 a + 0.4 y + N(0, 1)``, both rounded to ``digits`` (so
"ties" and "small" carry many ties within and across the classes).

References
----------
Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez, J.-C. and Müller, M.
(2011). pROC: an open-source package for R and S+ to analyze and compare ROC curves. *BMC
Bioinformatics* 12, 77.

Turck, N., Vutskits, L., Sanchez-Pena, P., et al. (2010). A multiparameter panel method for
outcome prediction following aneurysmal subarachnoid hemorrhage. *Intensive Care Medicine*
36(1), 107-115.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ranklens import compare_models, delong_interval, delong_test, roc_curve

DATA = Path(__file__).resolve().parents[1] / "data"

# (file, outcome column, model a, model b):
#   auc_a, var_a, ci_a, auc_b, var_b, ci_b, z, p  as printed by proc_reference.R
PROC = [
    (
        "asah.csv",
        "outcome",
        "s100b",
        "wfns",
        0.73136856368563685,
        0.0026686824571724378,
        (0.63011821176162264, 0.83261891560965107),
        0.82367886178861793,
        0.0014699147088236264,
        (0.74853488781945288, 0.89882283575778299),
        -2.2089835914409077,
        0.02717578222918815,
    ),
    (
        "asah.csv",
        "outcome",
        "ndka",
        "s100b",
        0.61195799457994582,
        0.0031908105493913021,
        (0.50124499927170263, 0.72267098988818901),
        0.73136856368563685,
        0.0026686824571724378,
        (0.63011821176162264, 0.83261891560965107),
        -1.3907700257355771,
        0.16429517522305448,
    ),
    (
        "delong_ties.csv",
        "y",
        "a",
        "b",
        0.70132028875379937,
        0.00094953857458728551,
        (0.64092481431293047, 0.76171576319466827),
        0.70989266717325228,
        0.00096919490143631052,
        (0.64887527372602039, 0.77091006062048395),
        -0.2627584399211213,
        0.79273677031794187,
    ),
    (
        "delong_continuous.csv",
        "y",
        "a",
        "b",
        0.68347664420171972,
        0.00060127190133936101,
        (0.63541666866036495, 0.73153661974307449),
        0.68372691682010767,
        0.00061947152781281854,
        (0.63494501070026221, 0.73250882293995312),
        -0.01035693003156363,
        0.99173651316262668,
    ),
    (
        "delong_small.csv",
        "y",
        "a",
        "b",
        0.51666666666666672,
        0.017336601307189541,
        (0.25860109358036654, 0.7747322397529669),
        0.43888888888888894,
        0.022843137254901967,
        (0.14266098490249918, 0.73511679287527865),
        0.52210121988536318,
        0.6015998571757436,
    ),
]
IDS = [f"{case[0]}:{case[2]}-{case[3]}" for case in PROC]
REL = 1e-12


@pytest.mark.parametrize("case", PROC, ids=IDS)
def test_interval_matches_proc_ci_auc(case):
    file, outcome, a, b, auc_a, var_a, ci_a, auc_b, var_b, ci_b, _, _ = case
    data = pd.read_csv(DATA / file)
    for column, auc, var, ci in ((a, auc_a, var_a, ci_a), (b, auc_b, var_b, ci_b)):
        # R: ci.auc(roc(outcome, column, direction = "<"), method = "delong")
        result = delong_interval(data[outcome], data[column], method="wald")
        assert result.estimate == pytest.approx(auc, rel=REL)
        assert result.std_error**2 == pytest.approx(var, rel=REL)
        assert result.ci.low == pytest.approx(ci[0], rel=REL)
        assert result.ci.high == pytest.approx(ci[1], rel=REL)
        # roc_curve carries DeLong's standard error and the default (logit) interval
        curve = roc_curve(data[outcome].to_numpy(), data[column].to_numpy())
        logit = delong_interval(data[outcome], data[column])
        assert curve.auc_std_error**2 == pytest.approx(var, rel=REL)
        assert curve.auc_ci.low == pytest.approx(logit.ci.low, rel=REL)
        assert curve.auc_ci.high == pytest.approx(logit.ci.high, rel=REL)


@pytest.mark.parametrize("case", PROC, ids=IDS)
def test_paired_test_matches_proc_roc_test(case):
    file, outcome, a, b, auc_a, _, _, auc_b, _, _, z, p = case
    data = pd.read_csv(DATA / file)
    result = delong_test(data[outcome], data[a], data[b])
    assert result.estimate_a == pytest.approx(auc_a, rel=REL)
    assert result.estimate_b == pytest.approx(auc_b, rel=REL)
    assert result.z == pytest.approx(z, rel=1e-11)
    assert result.p_value == pytest.approx(p, rel=1e-11)


@pytest.mark.parametrize("case", PROC, ids=IDS)
def test_compare_models_delong_matches_proc(case):
    file, outcome, a, b, _, _, ci_a, _, _, _ci_b, _, p = case
    data = pd.read_csv(DATA / file)
    result = compare_models(
        data[outcome], {a: data[a], b: data[b]}, metrics=["roc_auc"], method="delong"
    )
    assert result.p_value[0, 0] == pytest.approx(p, rel=1e-11)
    # each model's interval is delong_interval's logit interval (tested against its formula in
    # test_delong_intervals.py); pROC's Wald interval is method="wald"
    for m, column in enumerate((a, b)):
        own = delong_interval(data[outcome], data[column])
        assert result.ci_lower[0, m] == pytest.approx(own.ci.low, rel=1e-12)
        assert result.ci_upper[0, m] == pytest.approx(own.ci.high, rel=1e-12)
    wald = delong_interval(data[outcome], data[a], method="wald").ci
    assert (wald.low, wald.high) == pytest.approx(tuple(ci_a), rel=REL)
