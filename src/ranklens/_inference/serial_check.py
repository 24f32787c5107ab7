"""A check for serially dependent rows when no time order was declared.

The paired bootstrap of rows and DeLong's and Noether's analytic intervals treat the rows as
independent. When the rows come in time order and their errors are autocorrelated, the
variance of a mean loss is the long-run variance ``sum_k gamma_k`` rather than ``gamma_0``, and
those intervals are too narrow by the factor ``sqrt(gamma_0 / sum_k gamma_k)``.
:func:`check_serial_dependence` estimates that factor, in one pass per lag, for each model's
absolute errors and for the paired differences of absolute errors between the pick (the model
with the smallest mean absolute error) and each other model, in the order the rows were given,
and says so when the intervals look materially too narrow.

The rule
--------
The variance ratio of a series is the Newey & West (1987) estimate of the variance of its mean
over the independent rows' one, ``R = 1 + 2 sum_{k=1}^{L} (1 - k / (L + 1)) rho_k`` (Bartlett
weights, so ``R >= 0``), with the lag ``L = floor(4 (n / 100)^(2/9))`` of Newey & West (1994)'s
rule (statsmodels' default for its HAC standard errors), at most :data:`MAX_LAG`. The
independent rows' intervals are then ``1 - 1 / sqrt(R)`` too narrow. A series is flagged when

* ``R >= 1 / (1 - NARROWER)^2`` (:data:`NARROWER` = 20 %: the intervals at least a fifth too
  narrow, so a 95 % interval would cover about 88 % or less; a smaller shortfall is within what
  the bootstrap's own approximations cost), and
* ``R - 1`` exceeds :data:`CHANCE_Z` (3) standard deviations of its value on independent rows,
  ``2 sqrt(sum_k w_k^2 / n)`` (Bartlett's formula: an autocorrelation of independent rows has
  variance ``1 / n``), so that short series do not warn by chance.

On independent rows at ``n = 500`` the second condition is about five standard deviations away:
no warning in 99 % of data sets or more (``tests/engines/test_time_order.py`` simulates it).

References
----------
Bartlett, M. S. (1946). On the theoretical specification and sampling properties of
autocorrelated time-series. *Supplement to the Journal of the Royal Statistical Society* 8(1),
27-41.

Newey, W. K. and West, K. D. (1987). A simple, positive semi-definite, heteroskedasticity and
autocorrelation consistent covariance matrix. *Econometrica* 55(3), 703-708.

Newey, W. K. and West, K. D. (1994). Automatic lag selection in covariance matrix estimation.
*Review of Economic Studies* 61(4), 631-653.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ranklens._foundation.results import Result
from ranklens._foundation.serial import autocovariances

__all__ = [
    "CHANCE_Z",
    "MAX_LAG",
    "MIN_ROWS",
    "NARROWER",
    "SHOWN_LAGS",
    "SerialDependence",
    "bandwidth",
    "check_serial_dependence",
]

#: The autocorrelations reported, lags 1 to this.
SHOWN_LAGS = 5
#: The largest lag of the variance ratio (the rule's lag reaches it at about 4.6 million rows):
#: the check costs at most this many passes over each series.
MAX_LAG = 30
#: The share by which the independent rows' intervals must be too narrow for a warning.
NARROWER = 0.20
#: And the variance ratio's excess over 1 must exceed this many of its standard deviations on
#: independent rows.
CHANCE_Z = 3.0
#: Fewer rows are not checked (their autocorrelations say too little).
MIN_ROWS = 20


def bandwidth(n: int) -> int:
    """The lag ``L = floor(4 (n / 100)^(2/9))`` of Newey & West's (1994) rule, in ``[1,
    min(MAX_LAG, n - 1)]``.

    Parameters
    ----------
    n : int
        The number of rows.

    Returns
    -------
    int
    """
    rule = math.floor(4.0 * (n / 100.0) ** (2.0 / 9.0))
    return max(1, min(rule, MAX_LAG, n - 1))


@dataclasses.dataclass(frozen=True)
class SerialDependence(Result):
    """Autocorrelation of the losses in the order the rows were given, and what it does to
    intervals that assume independent rows.

    Attributes
    ----------
    series : tuple of str
        The series checked: each model's name (its absolute errors ``|y - p|``), then
        ``"pick - other"`` for each other model (the paired differences of their absolute
        errors).
    kinds : tuple of str
        ``"absolute error"`` or ``"difference of absolute errors"``, per series.
    autocorrelations : ndarray of shape (n_series, 5)
        The sample autocorrelations at lags 1 to 5 (NaN for a constant series).
    variance_ratio : ndarray of shape (n_series,)
        ``R``: the Newey-West variance of the series' mean over the independent rows' one.
    too_narrow : ndarray of shape (n_series,)
        ``1 - 1 / sqrt(R)``: the share by which intervals that assume independent rows are too
        narrow (negative: too wide).
    flagged : ndarray of bool, shape (n_series,)
        Whether the series passes both conditions of the rule.
    n : int
        The rows.
    bandwidth : int
        The lag ``L`` of the variance ratio.
    pick : str
        The model the differences are taken from (the smallest mean absolute error).
    threshold : float
        The smallest ``R`` that warns: ``1 / (1 - 0.2)^2``.
    chance_bound : float
        The largest ``R`` independent rows give by chance (``1 + 3`` standard deviations).
    warning : str
        The sentence of the warning ("" when no series is flagged).
    """

    series: tuple[str, ...]
    kinds: tuple[str, ...]
    autocorrelations: np.ndarray
    variance_ratio: np.ndarray
    too_narrow: np.ndarray
    flagged: np.ndarray
    n: int
    bandwidth: int
    pick: str
    threshold: float
    chance_bound: float
    warning: str = ""

    @property
    def warns(self) -> bool:
        """Whether some series is flagged."""
        return bool(self.warning)

    def to_frame(self) -> Any:
        """One row per series: its kind, the autocorrelations at lags 1 to 5, the variance
        ratio, the share too narrow and the flag.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        frame = pd.DataFrame(
            {
                "series": list(self.series),
                "kind": list(self.kinds),
                **{
                    f"lag_{k + 1}": self.autocorrelations[:, k]
                    for k in range(self.autocorrelations.shape[1])
                },
                "variance_ratio": self.variance_ratio,
                "too_narrow": self.too_narrow,
                "flagged": self.flagged,
            }
        )
        frame.attrs.update(n=self.n, bandwidth=self.bandwidth, pick=self.pick)
        return frame

    def records(self) -> list[dict[str, Any]]:
        """The series as JSON-ready records (the ``serial_dependence`` block of the JSON
        document).

        Returns
        -------
        list of dict
            ``{"series", "kind", "autocorrelations", "variance_ratio", "too_narrow",
            "flagged"}`` per series.
        """
        return [
            {
                "series": name,
                "kind": kind,
                "autocorrelations": [float(v) for v in self.autocorrelations[s]],
                "variance_ratio": float(self.variance_ratio[s]),
                "too_narrow": float(self.too_narrow[s]),
                "flagged": bool(self.flagged[s]),
            }
            for s, (name, kind) in enumerate(zip(self.series, self.kinds, strict=True))
        ]


def _one_series(x: np.ndarray, lag: int) -> tuple[np.ndarray, float]:
    """The autocorrelations at lags 1..5 and the variance ratio of one series (NaN for a
    constant one)."""
    gamma = autocovariances(x, max(lag, SHOWN_LAGS))
    shown = np.full(SHOWN_LAGS, math.nan)
    if not gamma[0] > 0.0:
        return shown, math.nan
    rho = gamma / gamma[0]
    shown[: rho.shape[0] - 1] = rho[1 : SHOWN_LAGS + 1]
    k = np.arange(1, lag + 1)
    ratio = 1.0 + 2.0 * float(np.sum((1.0 - k / (lag + 1.0)) * rho[1 : lag + 1]))
    return shown, ratio


def _sentence(name: str, kind: str, lag_1: float, ratio: float, others: int) -> str:
    """The warning, about the worst flagged series."""
    if kind == "absolute error":
        what = f"the absolute errors of {name} have"
    else:
        pick, _, other = name.partition(" - ")
        what = f"the differences of absolute errors between {pick} and {other} have"
    more = f" (and {others} other series)" if others else ""
    narrow = 100.0 * (1.0 - 1.0 / math.sqrt(ratio))
    return (
        f"the rows look serially dependent: {what} lag-1 autocorrelation {lag_1:.2f}{more}; "
        f"intervals that assume independent rows may be ~{narrow:.0f}% too narrow; give "
        'time= or scheme="stationary" (the command line\'s --time or --scheme)'
    )


def check_serial_dependence(
    y: np.ndarray, predictions: Mapping[str, np.ndarray]
) -> SerialDependence | None:
    """The rule of this module on the rows in the order given (None for fewer than
    :data:`MIN_ROWS` rows or no model).

    Parameters
    ----------
    y : ndarray of float64, shape (n,)
        The truth.
    predictions : mapping of str to ndarray of shape (n,)
        Each model's predictions.

    Returns
    -------
    SerialDependence or None
        Its ``warning`` is the sentence to show when a series is flagged. The cost is
        ``O(n L)`` per series, ``L <= MAX_LAG``: linear in the rows.
    """
    n = int(y.shape[0])
    if n < MIN_ROWS or not predictions:
        return None
    lag = bandwidth(n)
    errors = {str(m): np.abs(y - np.asarray(p, dtype=np.float64)) for m, p in predictions.items()}
    means = {m: float(e.mean()) for m, e in errors.items()}
    pick = min(means, key=lambda m: (math.isnan(means[m]), means[m]))
    named: list[tuple[str, str, np.ndarray]] = [(m, "absolute error", e) for m, e in errors.items()]
    named += [
        (f"{pick} - {m}", "difference of absolute errors", errors[pick] - e)
        for m, e in errors.items()
        if m != pick
    ]
    rho = np.full((len(named), SHOWN_LAGS), math.nan)
    ratio = np.full(len(named), math.nan)
    for s, (_, _, x) in enumerate(named):
        if np.isfinite(x).all():
            rho[s], ratio[s] = _one_series(x, lag)
    k = np.arange(1, lag + 1)
    chance = 1.0 + CHANCE_Z * 2.0 * math.sqrt(float(np.sum((1.0 - k / (lag + 1.0)) ** 2)) / n)
    threshold = round(1.0 / (1.0 - NARROWER) ** 2, 12)  # 1.5625, not 1.5624999999999998
    with np.errstate(invalid="ignore", divide="ignore"):
        too_narrow = 1.0 - 1.0 / np.sqrt(ratio)
        flagged = (ratio >= threshold) & (ratio > chance)
    warning = ""
    if flagged.any():
        worst = int(np.nanargmax(np.where(flagged, ratio, -np.inf)))
        name, kind, _ = named[worst]
        others = int(flagged.sum()) - 1
        warning = _sentence(name, kind, float(rho[worst, 0]), float(ratio[worst]), others)
    return SerialDependence(
        series=tuple(name for name, _, _ in named),
        kinds=tuple(kind for _, kind, _ in named),
        autocorrelations=rho,
        variance_ratio=ratio,
        too_narrow=too_narrow,
        flagged=flagged,
        n=n,
        bandwidth=lag,
        pick=pick,
        threshold=threshold,
        chance_bound=chance,
        warning=warning,
    )
