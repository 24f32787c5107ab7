"""Serially dependent rows: autocovariances, the Diebold-Mariano test and automatic block lengths.

Rows in time order (daily returns, weekly demand, scores logged in production) are rarely
independent: a mean over them varies more than an i.i.d. formula says, by the long-run variance
``sigma^2_LR = sum_k gamma_k`` instead of ``gamma_0``. This module holds the NumPy formulas the
time-aware inference reads: the sample autocovariances, the Diebold & Mariano (1995) test of
equal expected loss with its variance at the forecast horizon and the small-sample correction of
Harvey, Leybourne & Newbold (1997), and the automatic block length of Politis & White (2004) as
corrected by Patton, Politis & White (2009) for the stationary and the circular block bootstrap.

References
----------
Diebold, F. X. and Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of Business &
Economic Statistics* 13(3), 253-263. doi:10.1080/07350015.1995.10524599

Harvey, D., Leybourne, S. and Newbold, P. (1997). Testing the equality of prediction mean
squared errors. *International Journal of Forecasting* 13(2), 281-291.
doi:10.1016/S0169-2070(96)00719-4

Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
bootstrap. *Econometric Reviews* 23(1), 53-70. doi:10.1081/ETC-120028836

Patton, A., Politis, D. N. and White, H. (2009). Correction to "Automatic block-length selection
for the dependent bootstrap" by D. Politis and H. White. *Econometric Reviews* 28(4), 372-375.
doi:10.1080/07474930802459016
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = [
    "BlockLengths",
    "DieboldMariano",
    "autocovariances",
    "block_length_lags",
    "diebold_mariano",
    "lengths_from_autocovariances",
    "optimal_block_lengths",
]


def autocovariances(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Sample autocovariances ``gamma_0 .. gamma_L`` of ``x`` (``L = min(max_lag, n - 1)``).

    ``gamma_k = (1/n) sum_{t=1}^{n-k} (x_t - xbar)(x_{t+k} - xbar)``: the divisor ``n`` at every
    lag (R's ``acf(type="covariance")``), which keeps the sequence positive semi-definite.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        The series, in time order.
    max_lag : int
        The largest lag wanted (>= 0).

    Returns
    -------
    ndarray of float64, shape (L + 1,)
    """
    n = x.shape[0]
    centred = x - x.mean()
    lags = min(int(max_lag), n - 1)
    return np.array([centred[: n - k] @ centred[k:] / n for k in range(lags + 1)])


@dataclasses.dataclass(frozen=True)
class DieboldMariano:
    """The Diebold-Mariano test of one loss differential.

    Attributes
    ----------
    statistic : float
        The statistic with Harvey, Leybourne & Newbold's correction, referred to Student's t
        with ``n - 1`` degrees of freedom.
    p_value : float
        Two-sided.
    mean : float
        The mean loss differential ``dbar``.
    std_error : float
        ``sqrt(V)`` with ``V = (gamma_0 + 2 sum_{k=1}^{h-1} gamma_k) / n`` the variance of ``dbar``
        at horizon ``h``, divided by the correction factor: ``mean / std_error`` is
        ``statistic``.
    horizon : int
        The horizon whose autocovariances entered ``V`` (1 when the one asked for gave a
        variance <= 0: then ``fell_back`` is True).
    df : int
        ``n - 1``.
    fell_back : bool
        The variance at the horizon asked for was not positive and the horizon-1 variance was
        used instead, as R's ``forecast::dm.test`` does.
    """

    statistic: float
    p_value: float
    mean: float
    std_error: float
    horizon: int
    df: int
    fell_back: bool = False


def diebold_mariano(differential: np.ndarray, horizon: int = 1) -> DieboldMariano:
    """The Diebold-Mariano test of "equal expected loss" for a loss differential in time order.

    ``d_t = L(e_{a,t}) - L(e_{b,t})``. ``DM = dbar / sqrt(V)`` with ``V = (gamma_0 + 2
    sum_{k=1}^{h-1} gamma_k) / n`` (Diebold & Mariano 1995: an ``h``-step forecast error is at
    most ``MA(h - 1)``, so the autocovariances stop at lag ``h - 1``, rectangular weights); then
    ``DM* = DM sqrt((n + 1 - 2h + h(h - 1)/n) / n)`` referred to ``t_{n-1}`` (Harvey, Leybourne &
    Newbold 1997), whose size is close to nominal in samples where the normal one over-rejects.

    Parameters
    ----------
    differential : ndarray of float64, shape (n,)
        The loss differential, in time order.
    horizon : int, default 1
        The forecast horizon ``h`` (>= 1).

    Returns
    -------
    DieboldMariano

    Raises
    ------
    ValueError
        If ``horizon`` is not an integer in [1, n - 1], fewer than 3 rows are given, or the
        differential is constant (its variance is 0: the test is undefined).
    """
    d = np.asarray(differential, dtype=np.float64)
    n = d.shape[0]
    if n < 3:
        raise ValueError(f"the Diebold-Mariano test needs at least 3 rows; got {n}")
    if isinstance(horizon, bool) or not isinstance(horizon, int | np.integer):
        raise ValueError(f"horizon must be an integer >= 1; got {horizon!r}")
    if not 1 <= horizon < n:
        raise ValueError(f"horizon must lie in [1, {n - 1}] for {n} rows; got {horizon}")
    h = int(horizon)
    gamma = autocovariances(d, h - 1)
    variance = (gamma[0] + 2.0 * gamma[1:].sum()) / n
    fell_back = False
    if not variance > 0.0 and h > 1:
        h, variance, fell_back = 1, gamma[0] / n, True
    if not variance > 0.0:
        raise ValueError(
            "the loss differential is constant: its variance is 0 and the Diebold-Mariano test "
            "is undefined"
        )
    from scipy import stats  # (its t distribution; importing it loads scipy.special)

    correction = math.sqrt((n + 1 - 2 * h + h * (h - 1) / n) / n)
    mean = float(d.mean())
    std_error = math.sqrt(variance) / correction
    statistic = mean / std_error
    p_value = float(2.0 * stats.t.sf(abs(statistic), df=n - 1))
    return DieboldMariano(statistic, p_value, mean, std_error, h, n - 1, fell_back)


@dataclasses.dataclass(frozen=True)
class BlockLengths:
    """Automatic block lengths of Politis & White (2004), corrected by Patton, Politis & White
    (2009).

    Attributes
    ----------
    stationary : float
        The mean block length of the stationary bootstrap.
    circular : float
        The block length of the circular block bootstrap.
    bandwidth : int
        ``M``, the lag window's length (see :func:`optimal_block_lengths`).
    """

    stationary: float
    circular: float
    bandwidth: int


def optimal_block_lengths(x: np.ndarray) -> BlockLengths:
    """Politis & White's (2004) automatic block lengths, with Patton, Politis & White's (2009)
    correction of the circular bootstrap's constant.

    With ``gamma_k`` the sample autocovariances and the flat-top lag window ``lambda(t) = 1``
    for ``|t| <= 1/2``, ``2(1 - |t|)`` up to 1:
    ``G = sum_{|k| <= M} lambda(k/M) |k| gamma_k`` and ``g = sum_{|k| <= M} lambda(k/M)
    gamma_k`` (the long-run variance); then ``b = (2 G^2 / D)^(1/3) n^(1/3)`` with ``D = 2 g^2``
    (stationary) or ``(4/3) g^2`` (circular), capped at ``min(3 sqrt(n), n / 3)``. ``M = 2 m``
    where ``m`` is the first lag after which ``K_n = max(5, ceil(log10 n))`` autocorrelations
    in a row are inside ``+-2 sqrt(log10(n) / n)``, at most ``ceil(sqrt(n)) + K_n``.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        The series, in time order (at least 9 rows).

    Returns
    -------
    BlockLengths
        Each at least 1.

    Raises
    ------
    ValueError
        For fewer than 9 rows.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    if n < 9:
        raise ValueError(f"an automatic block length needs at least 9 rows; got {n}")
    found = lengths_from_autocovariances(autocovariances(x, block_length_lags(n)), n)
    assert isinstance(found, BlockLengths)  # (every lag it may read was given)
    return found


def block_length_lags(n: int) -> int:
    """The most lags :func:`optimal_block_lengths` reads for a series of ``n`` rows:
    ``min(ceil(sqrt(n)) + K_n, n - 1)`` with ``K_n = max(5, ceil(sqrt(log10 n)))``.

    Parameters
    ----------
    n : int
        The rows of the series (at least 9).

    Returns
    -------
    int
    """
    k_n = max(5, math.ceil(math.sqrt(math.log10(n))))
    return min(math.ceil(math.sqrt(n)) + k_n, n - 1)


def lengths_from_autocovariances(gamma: np.ndarray, n: int) -> BlockLengths | int:
    """:func:`optimal_block_lengths` from the autocovariances of the series, or the lags it
    still needs.

    The selection reads the autocovariances from lag 0 up to the first run of ``K_n`` small
    autocorrelations and then up to the bandwidth ``M``; an engine that computes them a few lags
    at a time (each a pass over data it cannot hold) gives what it has and is told how many
    more to compute. Given every lag up to :func:`block_length_lags` it always decides, with
    the arithmetic of :func:`optimal_block_lengths`.

    Parameters
    ----------
    gamma : ndarray of float64, shape (H + 1,)
        ``gamma_0 .. gamma_H`` (:func:`autocovariances`: divisor ``n`` at every lag), ``H`` at
        most :func:`block_length_lags`.
    n : int
        The rows of the series (at least 9).

    Returns
    -------
    BlockLengths or int
        The lengths, or (when ``H`` is too small to decide) the number of lags to give next,
        more than ``H``.
    """
    gamma = np.asarray(gamma, dtype=np.float64)
    k_n = max(5, math.ceil(math.sqrt(math.log10(n))))
    m_max = math.ceil(math.sqrt(n)) + k_n
    last = block_length_lags(n)  # the last lag the selection can read
    b_max = math.ceil(min(3.0 * math.sqrt(n), n / 3.0))
    if gamma[0] <= 0.0:  # a constant series: no dependence to keep
        return BlockLengths(1.0, 1.0, 0)
    given = gamma.shape[0] - 1
    significant = np.abs(gamma / gamma[0]) >= 2.0 * math.sqrt(math.log10(n) / n)
    significant[0] = True  # lag 0 is not a candidate
    m_hat = None
    for m in range(1, gamma.shape[0] - k_n + 1):
        if not significant[m : m + k_n].any():
            m_hat = m
            break
    if m_hat is None and given < last:  # the run may lie beyond the lags given
        return min(last, max(2 * given, given + k_n))
    if m_hat is None:  # no run of K_n small autocorrelations: the last significant lag
        m_hat = int(np.flatnonzero(significant)[-1])
    bandwidth = max(1, min(2 * m_hat, m_max))
    read = min(bandwidth, last)
    if read > given:
        return read
    lags = np.arange(1, read + 1)
    ratio = lags / bandwidth
    window = np.where(ratio <= 0.5, 1.0, 2.0 * (1.0 - ratio))
    big_g = 2.0 * np.sum(window * lags * gamma[lags])
    long_run = gamma[0] + 2.0 * np.sum(window * gamma[lags])
    lengths = []
    for constant in (2.0, 4.0 / 3.0):
        d = constant * long_run**2
        b = (2.0 * big_g**2 / d) ** (1.0 / 3.0) * n ** (1.0 / 3.0) if d > 0 else 1.0
        lengths.append(float(min(max(b, 1.0), b_max)))
    return BlockLengths(lengths[0], lengths[1], int(bandwidth))
