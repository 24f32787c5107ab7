"""NumPy's default quantiles (linear interpolation) from two order statistics each.

``np.quantile(x, q)`` (method ``"linear"``, Hyndman & Fan 1996, definition 7) reads two order
statistics of ``x`` and interpolates between them. The positions depend on ``n`` and ``q``
alone, so an engine that selects order statistics without sorting everything (a sort of the
replicates once, an exact selection over pieces of the rows on Dask) can find them first and
interpolate after. :func:`linear_positions` and :func:`linear_interpolation` are NumPy's own
arithmetic, step for step, so the quantiles are the same to the last bit.

References
----------
Hyndman, R. J. and Fan, Y. (1996). Sample quantiles in statistical packages. *The American
Statistician* 50(4), 361-365.
"""

from __future__ import annotations

import numpy as np

__all__ = ["linear_interpolation", "linear_positions"]


def linear_positions(n: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two order statistics ``np.quantile`` interpolates between, and their weight.

    Parameters
    ----------
    n : int
        The number of values (at least 1).
    q : ndarray of float
        The probabilities, in [0, 1].

    Returns
    -------
    previous, following : ndarray of intp
        0-based positions in the sorted values: the floor of the virtual index ``(n - 1) q``
        and the next one, both ``n - 1`` from the virtual index ``n - 1`` on.
    weight : ndarray of float
        The weight ``t`` of ``following``: the virtual index minus ``previous`` as NumPy takes
        it (from ``n - 1`` on, where both positions are the last, the difference from ``-1``).
    """
    virtual = (n - 1) * np.asarray(q, dtype=np.float64)
    previous = np.floor(virtual)
    following = previous + 1
    at_end = virtual >= n - 1
    previous[at_end] = -1
    following[at_end] = -1
    previous_index = previous.astype(np.intp)
    following_index = following.astype(np.intp)
    weight = np.asarray(virtual - previous_index, dtype=virtual.dtype)
    last = np.intp(n - 1)
    return (
        np.where(at_end, last, previous_index),
        np.where(at_end, last, following_index),
        weight,
    )


def linear_interpolation(low: np.ndarray, high: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """NumPy's interpolation of quantiles: ``low + (high - low) t``, taken as
    ``high - (high - low)(1 - t)`` where ``t >= 0.5``.

    Parameters
    ----------
    low, high : ndarray of float
        The order statistics at :func:`linear_positions`' ``previous`` and ``following`` (any
        trailing axes after the probabilities').
    weight : ndarray of float
        Its ``weight``, shaped to broadcast against ``low``.

    Returns
    -------
    ndarray of float
        The quantiles.
    """
    step = high - low
    out = np.add(low, step * weight)
    np.subtract(high, step * (1 - weight), out=out, where=weight >= 0.5)
    return out
