"""The standard normal distribution function and its inverse, without importing scipy.special.

BCa intervals (Efron 1987), the Gaussian p-values of :func:`ranklens.compare_models` and the
Wilson interval need ``Phi`` and ``Phi^-1`` at a handful of points. ``scipy.special`` provides
them (``ndtr``, ``ndtri``), but importing it loads its array-API layer (``array_api_compat``,
which imports ``numpy.f2py``): about 0.25-0.3 s of a fresh process, a quarter of a warm
``compare_models`` call. This module evaluates the same Cephes algorithms (Moshier 1989) that
``scipy.special.ndtr`` and ``ndtri`` compile, operation for operation in IEEE double precision,
so the values are the same bits (checked against scipy on over a million points, tails,
subnormal probabilities, 0, 1, infinities and NaN included: ``tests/compute/test_warm_compare.py``).

Notes
-----
``Phi(a)``: with ``x = a / sqrt(2)``, ``1/2 + erf(x) / 2`` for ``|x| < 1/sqrt(2)``, else
``erfc(|x|) / 2`` (reflected for ``x > 0``); ``erf`` by a rational function of ``x^2`` on
``|x| <= 1``, ``erfc(x) = exp(-x^2) P(x) / Q(x)`` with one rational function below 8 and another
above, 0 once ``x^2`` passes the largest argument of ``exp``.

``Phi^-1(y)``: for ``exp(-2) < y < 1 - exp(-2)``, ``sqrt(2 pi) (u + u v P0(v) / Q0(v))`` with
``u = y - 1/2``, ``v = u^2``; in the tails, with ``x = sqrt(-2 log y)`` (y the smaller tail),
``x - log(x) / x - z P(z) / Q(z)``, ``z = 1 / x``, with one rational function for ``x < 8`` and
another beyond (Moshier 1989, ``ndtri``). Wichura's (1988) algorithm AS 241
(``statistics.NormalDist.inv_cdf``) is as accurate but differs from scipy by up to a few ulps,
which would move a BCa interval end in its last digits; this module keeps scipy's bits.

References
----------
Moshier, S. L. (1989). *Methods and Programs for Mathematical Functions*. Ellis Horwood
(the Cephes library: ``ndtr``, ``erf``, ``erfc``, ``ndtri``).
Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American Statistical
Association* 82(397), 171-185.
Wichura, M. J. (1988). Algorithm AS 241: The percentage points of the normal distribution.
*Applied Statistics* 37(3), 477-484.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["ndtr", "ndtr_array", "ndtri"]

# Cephes ndtri: the central region, then the tails below and beyond x = 8.
_S2PI = 2.50662827463100050242e0
_EXP_M2 = 0.13533528323661269189  # exp(-2)
_P0 = (
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
)
_Q0 = (
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
)
_P1 = (
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
)
_Q1 = (
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
)
_P2 = (
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
)
_Q2 = (
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
)
# Cephes erf (|x| <= 1) and erfc (below and from 8).
_T = (
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_U = (
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)
_P = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_Q = (
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_R = (
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
)
_S = (
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
)
_MAXLOG = 7.09782712893383996843e2  # log of the largest double
_SQRT1_2 = 0.70710678118654752440


def _polevl(x: float, coef: tuple[float, ...]) -> float:
    """``coef[0] x^N + ... + coef[N]`` by Horner's rule."""
    ans = coef[0]
    for c in coef[1:]:
        ans = ans * x + c
    return ans


def _p1evl(x: float, coef: tuple[float, ...]) -> float:
    """``x^N + coef[0] x^(N-1) + ... + coef[N-1]`` (leading coefficient 1) by Horner's rule."""
    ans = x + coef[0]
    for c in coef[1:]:
        ans = ans * x + c
    return ans


def _erf(x: float) -> float:
    if abs(x) > 1.0:
        return 1.0 - _erfc(x)
    z = x * x
    return x * _polevl(z, _T) / _p1evl(z, _U)


def _erfc(a: float) -> float:
    x = -a if a < 0.0 else a
    if x < 1.0:
        return 1.0 - _erf(a)
    z = -a * a
    if z < -_MAXLOG:  # exp underflows
        return 2.0 if a < 0.0 else 0.0
    z = math.exp(z)
    num, den = (_P, _Q) if x < 8.0 else (_R, _S)
    y = (z * _polevl(x, num)) / _p1evl(x, den)
    if a < 0.0:
        y = 2.0 - y
    if y != 0.0:
        return y
    return 2.0 if a < 0.0 else 0.0


def ndtr(a: float) -> float:
    """``Phi(a)``, the standard normal distribution function (``scipy.special.ndtr``'s bits).

    Parameters
    ----------
    a : float

    Returns
    -------
    float
        In [0, 1]; NaN for NaN.
    """
    a = float(a)
    if math.isnan(a):
        return math.nan
    x = a * _SQRT1_2
    z = abs(x)
    if z < _SQRT1_2:
        return 0.5 + 0.5 * _erf(x)
    y = 0.5 * _erfc(z)
    return 1.0 - y if x > 0.0 else y


def ndtri(y: float) -> float:
    """``Phi^-1(y)``, the standard normal quantile function (``scipy.special.ndtri``'s bits).

    Parameters
    ----------
    y : float
        A probability.

    Returns
    -------
    float
        ``-inf`` at 0, ``inf`` at 1, NaN outside [0, 1] or for NaN.
    """
    y = float(y)
    if math.isnan(y) or y < 0.0 or y > 1.0:
        return math.nan
    if y == 0.0:
        return -math.inf
    if y == 1.0:
        return math.inf
    lower = True
    if y > 1.0 - _EXP_M2:
        y = 1.0 - y
        lower = False
    if y > _EXP_M2:
        u = y - 0.5
        v = u * u
        return (u + u * (v * _polevl(v, _P0) / _p1evl(v, _Q0))) * _S2PI
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    num, den = (_P1, _Q1) if x < 8.0 else (_P2, _Q2)
    x = x0 - z * _polevl(z, num) / _p1evl(z, den)
    return -x if lower else x


def ndtr_array(a: Any) -> np.ndarray:
    """:func:`ndtr` of every element of ``a``: a float64 array of ``a``'s shape."""
    arr = np.asarray(a, dtype=np.float64)
    out = np.empty(arr.shape, dtype=np.float64)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i in range(flat_in.shape[0]):
        flat_out[i] = ndtr(flat_in[i])
    return out
