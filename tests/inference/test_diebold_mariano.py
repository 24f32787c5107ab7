"""The Diebold-Mariano test (ranklens.diebold_mariano_test and compare_models'
method="diebold-mariano") against R's forecast::dm.test, against its formula on statsmodels'
autocovariances and scipy's t, its refusals, and its size under serially dependent errors."""

from __future__ import annotations

import math
import pathlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.tsa.stattools import acovf

import ranklens as rl


def _ar1_errors(phi: float, n: int, rng: np.random.Generator) -> np.ndarray:
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0] / math.sqrt(1 - phi**2)
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


def _reference(d: np.ndarray, h: int) -> tuple[float, float]:
    """R's forecast::dm.test, written out: acf(type="covariance") up to lag h - 1, the
    Harvey-Leybourne-Newbold factor, Student's t with n - 1 degrees of freedom."""
    n = d.size
    gamma = acovf(d, nlag=h - 1, fft=False)
    statistic = d.mean() / math.sqrt((gamma[0] + 2 * gamma[1:].sum()) / n)
    statistic *= math.sqrt((n + 1 - 2 * h + h * (h - 1) / n) / n)
    return statistic, 2 * stats.t.sf(abs(statistic), n - 1)


DATA = pathlib.Path(__file__).parent.parent / "data"

# R 4.2.2, forecast 8.20: tests/data/dm_reference.R on tests/data/dm_forecasts.csv, i.e.
#   dm.test(d$y - d$a, d$y - d$b, alternative = "two.sided", h = h, power = p)
# printed with %.17g. dm_forecasts.csv: y a random walk of 120 standard normal steps, the
# forecast errors MA(2) (weights 1, 0.6, 0.3 for a; 1.15 x (1, 0.5, 0.2) for b), drawn with
# np.random.default_rng(20261129).
R_DM_TEST = {
    (1, 1): (1.0601500465081821, 0.29122335829753548),
    (1, 2): (0.85842307749675251, 0.39238463725452011),
    (2, 1): (0.79912024779984259, 0.42581281591438325),
    (2, 2): (0.62519408204013094, 0.53304074329527429),
    (5, 1): (0.68663186341387383, 0.49365055190971108),
    (5, 2): (0.54465588971800993, 0.58700942892904062),
}


@pytest.mark.parametrize(("h", "power"), sorted(R_DM_TEST))
def test_equals_r_forecast_dm_test(h: int, power: int) -> None:
    d = pd.read_csv(DATA / "dm_forecasts.csv")
    metric = {1: "mean_absolute_error", 2: "mean_squared_error"}[power]
    result = rl.diebold_mariano_test(d["y"], d["a"], d["b"], metric=metric, horizon=h)
    statistic, p_value = R_DM_TEST[(h, power)]
    assert result.statistic == pytest.approx(statistic, rel=1e-12)
    assert result.p_value == pytest.approx(p_value, rel=1e-12)


@pytest.mark.parametrize(
    ("metric", "power"), [("mean_squared_error", 2), ("mean_absolute_error", 1)]
)
@pytest.mark.parametrize("h", [1, 2, 5])
def test_matches_the_formula(metric: str, power: int, h: int) -> None:
    rng = np.random.default_rng(h)
    y = rng.normal(size=250)
    a = y + _ar1_errors(0.5, 250, rng)
    b = y + 1.2 * _ar1_errors(0.5, 250, rng)
    result = rl.diebold_mariano_test(y, a, b, metric=metric, horizon=h)
    d = np.abs(y - a) ** power - np.abs(y - b) ** power
    statistic, p = _reference(d, h)
    assert result.statistic == pytest.approx(statistic, rel=1e-12)
    assert result.p_value == pytest.approx(p, rel=1e-10)
    assert result.difference == pytest.approx(d.mean(), rel=1e-12)
    half = stats.t.ppf(0.975, 249) * result.std_error
    assert result.ci.low == pytest.approx(d.mean() - half, rel=1e-12)


def test_compare_models_tests_every_pair_as_the_function_does() -> None:
    rng = np.random.default_rng(4)
    y = rng.normal(size=200)
    preds = {m: y + s * _ar1_errors(0.6, 200, rng) for m, s in (("a", 1.0), ("b", 1.3), ("c", 1.0))}
    metrics = ["mean_squared_error", "linlin_loss"]
    result = rl.compare_models(y, preds, metrics=metrics, method="diebold-mariano", horizon=3)
    assert isinstance(result, rl.DieboldMarianoComparisonResult)
    assert result.method == "diebold-mariano" and result.horizon == 3
    for k, metric in enumerate(metrics):
        for p, (a, b) in enumerate(result.pairs):
            single = rl.diebold_mariano_test(y, preds[a], preds[b], metric=metric, horizon=3)
            assert result.z[k, p] == pytest.approx(single.statistic, rel=1e-12)
            assert result.p_value[k, p] == pytest.approx(single.p_value, rel=1e-12)
            assert result.difference[k, p] == pytest.approx(single.difference, rel=1e-9)
            assert result.difference_ci_lower[k, p] == pytest.approx(single.ci.low, rel=1e-12)
    frame = result.to_frame()
    assert set(frame["metric"]) == set(metrics)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metrics": ["root_mean_squared_error"]}, "root_mean_squared_error"),
        ({"metrics": ["kendall_tau"]}, "kendall_tau"),
        ({"sample_weight": np.ones(50)}, "sample_weight"),
        ({"groups": np.arange(50) // 5}, "groups"),
        ({"horizon": 0}, "horizon"),
        ({"horizon": 50}, "horizon"),
    ],
)
def test_compare_models_refusals(kwargs: dict, match: str) -> None:
    rng = np.random.default_rng(0)
    y = rng.normal(size=50)
    call = {"metrics": ["mean_squared_error"], "method": "diebold-mariano"} | kwargs
    with pytest.raises(ValueError, match=match):
        rl.compare_models(y, {"a": y + rng.normal(size=50), "b": y + rng.normal(size=50)}, **call)


def test_horizon_belongs_to_the_diebold_mariano_test() -> None:
    y = np.arange(20.0)
    with pytest.raises(ValueError, match="horizon"):
        rl.compare_models(y, {"a": y, "b": y + 1}, n_bootstrap=10, horizon=2)


def test_identical_models_have_no_difference() -> None:
    rng = np.random.default_rng(1)
    y = rng.normal(size=60)
    a = y + rng.normal(size=60)
    result = rl.compare_models(
        y, {"a": a, "b": a.copy()}, metrics=["mean_absolute_error"], method="diebold-mariano"
    )
    assert result.p_value[0, 0] == 1.0 and result.difference[0, 0] == 0.0


def _ma_errors(h: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """The error of an optimal h-step forecast of a random walk: a sum of h shocks, MA(h - 1)."""
    shocks = rng.normal(size=n + h - 1)
    return np.convolve(shocks, np.ones(h), mode="valid")


@pytest.mark.slow
@pytest.mark.parametrize("h", [1, 3])
def test_size_with_h_step_forecast_errors(h: int) -> None:
    """Two equally good h-step forecasts (MA(h - 1) errors, the test's own assumption) and
    n = 100: the test rejects "equal expected loss" at 5 % in about 5 % of data sets."""
    runs, hits = 800, 0
    rng = np.random.default_rng(2026 + h)
    for _ in range(runs):
        y = rng.normal(size=100)
        a = y + _ma_errors(h, 100, rng)
        b = y + _ma_errors(h, 100, rng)
        hits += rl.diebold_mariano_test(y, a, b, horizon=h).p_value < 0.05
    share = hits / runs
    # measured: 4.3 % (h = 1) and 4.9 % (h = 3) with these 800 data sets
    assert share <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs) + 0.02, share
