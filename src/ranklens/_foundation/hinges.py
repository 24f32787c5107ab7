"""Order statistics of a sample with frequency weights, and Tukey's hinges from them.

The box plot of :func:`ranklens.boxplot_stats` reads its quartiles as R's ``fivenum`` does:
Tukey's hinges and the median, each the midpoint of two order statistics. With frequency weights
(a weight of 3 counts as three observations) the order statistics are those of the repeated
sample, found without repeating anything (:class:`Sample`). The box-plot relevance of
:mod:`ranklens.extremes` and the Dask engine, which finds the same order statistics by exact
selection over pieces of the rows, read the positions and the hinges here, so that the three
agree to the bit.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._foundation.validation import check_sample_weight
from ranklens.exceptions import DomainError

__all__ = ["Sample", "frequency_weights", "hinge_positions", "hinges_of", "midpoint"]

FloatArray = NDArray[np.float64]


def frequency_weights(sample_weight: Any, n: int) -> FloatArray | None:
    """Validated case weights on the scale they were given (None without weights).

    The box plot reads weights as frequencies (a weight of 3 is three observations), so unlike
    the scale-free measures it needs their absolute size, and integer weights must stay exact
    integers: the validated weights themselves, not rescaled to mean 1.

    Parameters
    ----------
    sample_weight : array-like or None
        The weights given.
    n : int
        The number of rows.

    Returns
    -------
    ndarray of float64 or None
        The weights, or None without weights.
    """
    return check_sample_weight(sample_weight, n, normalize=False)


@dataclasses.dataclass(frozen=True)
class Sample:
    """A sample sorted ascending, with cumulative frequency weights (``cum`` None: unit).

    Attributes
    ----------
    x : ndarray of float64
        The values of positive weight, sorted ascending (stable).
    cum : ndarray of float64 or None
        Their cumulative weights (None: every value counts once).
    size : float
        ``n``, or the total weight ``W``.
    """

    x: FloatArray
    cum: FloatArray | None
    size: float  # n, or the total weight W

    @classmethod
    def of(cls, y: FloatArray, w: FloatArray | None) -> Sample:
        """The sample of ``y`` with frequency weights ``w``.

        Parameters
        ----------
        y : ndarray of float64
            The values.
        w : ndarray of float64 or None
            Their frequency weights (rows of weight 0 are absent).

        Returns
        -------
        Sample
            The sorted sample.

        Raises
        ------
        DomainError
            If the weights sum to less than 2 (fewer than the two observations a box plot needs).
        """
        if w is None:
            return cls(np.sort(y), None, float(y.shape[0]))
        keep = w > 0  # a row of weight 0 is absent
        order = np.argsort(y[keep], kind="stable")
        cum = np.cumsum(w[keep][order])
        total = float(cum[-1])
        if total < 2.0:
            raise DomainError(
                "the box plot reads sample_weight as frequencies (a weight of 3 counts as three "
                f"observations); these weights sum to {total:.6g}, less than the two "
                "observations a box plot needs. Relative weights (probabilities, weights that "
                "sum to 1) must be scaled to counts first, e.g. multiplied by the number of rows"
            )
        return cls(y[keep][order], cum, total)

    def at(self, k: float) -> float:
        """The k-th smallest (1-based, k a whole number) of the sample with each row repeated
        w_i times: the row whose block ``(C_{i-1}, C_i]`` of cumulative weight holds k.

        Parameters
        ----------
        k : float
            The position, a whole number (clipped to the sample).

        Returns
        -------
        float
            The order statistic.
        """
        last = self.x.shape[0] - 1
        if self.cum is None:
            return float(self.x[min(max(int(k) - 1, 0), last)])
        return float(self.x[min(int(np.searchsorted(self.cum, k, side="left")), last)])


def midpoint(a: float, b: float) -> float:
    """``(a + b) / 2`` as R's ``0.5 * (a + b)``, without overflow of the sum.

    Parameters
    ----------
    a, b : float
        The two values.

    Returns
    -------
    float
        Their midpoint (``a`` itself when they are equal).
    """
    return a if a == b else 0.5 * a + 0.5 * b


def hinge_positions(size: float) -> tuple[int, ...]:
    """The 1-based positions whose values give Tukey's hinges and the median of a sample of
    ``size`` (n, or the total frequency weight): the floor and ceiling of each of R's
    ``fivenum`` depths ``n4 = floor((N + 3) / 2) / 2``, ``(N + 1) / 2`` and ``N + 1 - n4``.

    Parameters
    ----------
    size : float
        ``N``: the number of rows, or the total frequency weight.

    Returns
    -------
    tuple of int
        Six positions: floor and ceiling of the lower hinge's, the median's and the upper
        hinge's depths.
    """
    n4 = math.floor((size + 3.0) / 2.0) / 2.0
    out: list[int] = []
    for depth in (n4, (size + 1.0) / 2.0, size + 1.0 - n4):
        out += [math.floor(depth), math.ceil(depth)]
    return tuple(out)


def hinges_of(values: Sequence[float]) -> tuple[float, float, float]:
    """(lower hinge, median, upper hinge) from the values at :func:`hinge_positions`.

    Parameters
    ----------
    values : sequence of float
        The six order statistics at :func:`hinge_positions`, in that order.

    Returns
    -------
    lower_hinge, median, upper_hinge : float
        Each the midpoint of its two order statistics.
    """
    v = [float(x) for x in values]
    return midpoint(v[0], v[1]), midpoint(v[2], v[3]), midpoint(v[4], v[5])
