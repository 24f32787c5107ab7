"""Serially dependent rows (ranklens._foundation.serial): the autocovariances against
statsmodels, the Diebold-Mariano test against its formula built on statsmodels' autocovariances
and HAC variance, and the automatic block lengths against the ``arch`` package."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.tsa.stattools import acovf

from ranklens._foundation.serial import autocovariances, diebold_mariano, optimal_block_lengths


def _ar1(phi: float, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0]
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


@pytest.mark.parametrize(("phi", "n", "lags"), [(0.0, 50, 5), (0.7, 300, 12), (-0.4, 31, 30)])
def test_autocovariances_match_statsmodels(phi: float, n: int, lags: int) -> None:
    x = _ar1(phi, n, 1)
    np.testing.assert_allclose(
        autocovariances(x, lags), acovf(x, nlag=min(lags, n - 1), fft=False), rtol=1e-12
    )


@pytest.mark.parametrize(
    ("phi", "n", "h"), [(0.0, 40, 1), (0.5, 200, 1), (0.5, 200, 3), (0.8, 1000, 6)]
)
def test_diebold_mariano_is_the_harvey_leybourne_newbold_statistic(
    phi: float, n: int, h: int
) -> None:
    d = _ar1(phi, n, 2) + 0.1
    result = diebold_mariano(d, horizon=h)
    gamma = acovf(d, nlag=h - 1, fft=False)
    variance = (gamma[0] + 2 * gamma[1:].sum()) / n
    k = math.sqrt((n + 1 - 2 * h + h * (h - 1) / n) / n)
    expected = d.mean() / math.sqrt(variance) * k
    assert result.statistic == pytest.approx(expected, rel=1e-12)
    assert result.p_value == pytest.approx(2 * stats.t.sf(abs(expected), n - 1), rel=1e-12)
    assert result.df == n - 1 and result.horizon == h and not result.fell_back


def test_diebold_mariano_variance_is_statsmodels_hac_with_uniform_weights() -> None:
    import statsmodels.api as sm
    from statsmodels.stats.sandwich_covariance import cov_hac, weights_uniform

    d = _ar1(0.6, 400, 3)
    h = 4
    fit = sm.OLS(d, np.ones((d.size, 1))).fit()
    hac = cov_hac(fit, nlags=h - 1, weights_func=weights_uniform, use_correction=False)[0, 0]
    result = diebold_mariano(d, horizon=h)
    k = math.sqrt((d.size + 1 - 2 * h + h * (h - 1) / d.size) / d.size)
    assert (result.std_error * k) ** 2 == pytest.approx(hac, rel=1e-10)


def test_diebold_mariano_falls_back_to_horizon_one_when_the_variance_is_not_positive() -> None:
    d = np.tile([1.0, -1.0], 20) + 0.05  # strongly negative lag-1 autocovariance
    result = diebold_mariano(d, horizon=2)
    assert result.fell_back and result.horizon == 1


@pytest.mark.parametrize(
    ("argument", "match"),
    [
        ({"differential": np.ones(10)}, "constant"),
        ({"horizon": 0}, "horizon"),
        ({"horizon": 10}, "horizon"),
        ({"differential": np.arange(2.0)}, "at least 3"),
    ],
)
def test_diebold_mariano_refusals(argument: dict, match: str) -> None:
    call = {"differential": np.arange(10.0), "horizon": 1} | argument
    with pytest.raises(ValueError, match=match):
        diebold_mariano(call["differential"], horizon=call["horizon"])


@pytest.mark.parametrize(
    ("phi", "n", "seed"),
    [(0.7, 500, 0), (0.3, 2000, 1), (0.9, 5000, 3), (-0.5, 1000, 4), (0.5, 100, 5), (0.0, 300, 2)],
)
def test_block_lengths_match_arch(phi: float, n: int, seed: int) -> None:
    arch_bootstrap = pytest.importorskip("arch.bootstrap")
    x = _ar1(phi, n, seed)
    reference = arch_bootstrap.optimal_block_length(x).iloc[0]
    got = optimal_block_lengths(x)
    # arch leaves a length below 1 as it is; a block is at least one row
    assert got.stationary == pytest.approx(max(reference["stationary"], 1.0), rel=1e-12)
    assert got.circular == pytest.approx(max(reference["circular"], 1.0), rel=1e-12)


def test_block_lengths_of_a_constant_series_and_too_few_rows() -> None:
    assert optimal_block_lengths(np.ones(50)).stationary == 1.0
    with pytest.raises(ValueError, match="at least 9"):
        optimal_block_lengths(np.arange(5.0))
