"""NumPy forms of the utility-based regression kernels (Torgo & Ribeiro 2009).

:func:`sigmoid_relevance_numpy`, :func:`accuracy_values_numpy` and
:func:`precision_recall_sums_numpy` take the arguments of the numba kernels of the same names in
:mod:`ranklens._compute.kernels.utility` and return their numbers bit for bit: the same IEEE
operations in the same order element by element, every sequential sum of a kernel a sequential
``np.cumsum`` started from 0.0 over the rows the kernel adds, and every ``exp`` the C library's
(``math.exp``, which is what the kernels call) rather than NumPy's ``exp`` loop, whose SIMD variants
may differ in the last bit. A small call takes them while the kernel has no machine code in the
process (:func:`numpy_route`): loading a kernel costs importing numba and initialising LLVM (0.5-0.8
s), the NumPy form well under a millisecond at a few thousand rows. O(n) per call.

References
----------
Torgo, L. and Ribeiro, R. (2009). Precision and recall for regression. *Discovery Science 2009*,
Lecture Notes in Computer Science 5808, 332-346.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from ranklens._foundation.route import POLICY

__all__ = [
    "LOSS_ABSOLUTE",
    "LOSS_SQUARED",
    "accuracy_values_numpy",
    "numpy_route",
    "precision_recall_sums_models",
    "precision_recall_sums_numpy",
    "sigmoid_relevance_numpy",
]

#: The kernels' loss codes (``ranklens._compute.kernels.utility.LOSS_*``), here so that reading them
#: does not import numba.
LOSS_ABSOLUTE = 0
LOSS_SQUARED = 1

_KERNELS = "ranklens._compute.kernels.utility"


def numpy_route(n: int, kernel: str) -> bool:
    """Whether a call of kernel ``kernel`` (its name in :mod:`ranklens._compute.kernels.utility`) on
    ``n`` rows takes its NumPy form: below ``POLICY.utility_numpy_below`` rows
    (:mod:`ranklens._foundation.route`) while the kernel has no machine code in this process.
    Decided without importing numba."""
    if n >= POLICY.utility_numpy_below:
        return False
    module = sys.modules.get(_KERNELS)
    if module is None:  # not imported: no kernel of the family is loaded
        return True
    return not getattr(module, kernel).signatures


def _libm_exp(x: np.ndarray) -> np.ndarray:
    """``exp`` of each element by the C library (``math.exp``, the kernels' ``exp``); the
    arguments here are never above 0, so nothing overflows."""
    return np.fromiter(map(math.exp, x.ravel().tolist()), dtype=np.float64, count=x.size)


def _logistic(x: np.ndarray) -> np.ndarray:
    """The kernels' ``_logistic``: ``1 / (1 + exp(-x))`` for x >= 0, ``e / (1 + e)`` with
    ``e = exp(x)`` otherwise (NaN gives NaN)."""
    upper = x >= 0.0
    e = _libm_exp(np.where(upper, -x, x))
    return np.where(upper, 1.0 / (1.0 + e), e / (1.0 + e))


def sigmoid_relevance_numpy(
    y: np.ndarray,
    has_low: bool,
    low_center: float,
    low_shape: float,
    has_high: bool,
    high_center: float,
    high_shape: float,
) -> np.ndarray:
    """NumPy form of ``sigmoid_relevance``: phi(y) = max of the low and high sigmoids
    ``1 / (1 + exp(-s (y - c)))`` (Torgo & Ribeiro 2009, eq. 4); NaN stays NaN."""
    y = np.asarray(y)
    with np.errstate(all="ignore"):
        r = np.zeros(y.shape[0], dtype=np.float64)
        if has_low:
            r = _logistic(low_shape * (y - low_center))
        if has_high:
            h = _logistic(high_shape * (y - high_center))
            r = np.where(h > r, h, r)
    r[np.isnan(y)] = np.nan
    return r


def accuracy_values_numpy(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    smooth: bool,
    threshold: float,
    k: float,
    loss_kind: int,
) -> np.ndarray:
    """NumPy form of ``accuracy_values``: alpha_i of Torgo & Ribeiro (2009), eq. 8 (step) or
    eq. 9 (smooth), ``1 - exp(-k d^2)`` with ``d = (L - t) / t`` for ``L <= t``, 0 above."""
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    with np.errstate(all="ignore"):
        d = y_pred - y_true
        loss = d * d if loss_kind == LOSS_SQUARED else np.abs(d)
        out = np.where(loss > threshold, 0.0, 1.0)
        if smooth:  # the exp only where alpha is not 0 (NaN losses included, as in the kernel)
            flat = out.reshape(-1)
            rows = np.flatnonzero(flat)
            u = (loss.reshape(-1)[rows] - threshold) / threshold
            flat[rows] = 1.0 - _libm_exp(-k * u * u)
        return out


def precision_recall_sums_numpy(
    phi_true: np.ndarray,
    phi_pred: np.ndarray,
    alpha: np.ndarray,
    weight: np.ndarray,
    use_weight: bool,
    event_threshold: float,
) -> tuple[float, float, int, float, float, int]:
    """NumPy form of ``precision_recall_sums``: the four sums of Torgo & Ribeiro (2009), eqs. 6
    and 10, and the event counts, rows of zero weight skipped. Returns (recall numerator, recall
    denominator, number of true events, precision numerator, precision denominator, number of
    predicted events).

    Each sum is the kernel's loop, ``0.0 + t_0 + t_1 + ...`` from the left: one ``np.cumsum``
    per sum over a first 0.0 and the row terms, a row the kernel skips contributing +0.0 (which
    changes no sum: an accumulator started at +0.0 is never -0.0).
    """
    sums, counts = precision_recall_sums_models(
        phi_true,
        np.asarray(phi_pred, dtype=np.float64)[None],
        np.asarray(alpha, dtype=np.float64)[None],
        weight,
        use_weight,
        event_threshold,
    )
    (num_r, den_r, num_p, den_p), (n_true, n_pred) = sums[0].tolist(), counts[0].tolist()
    return num_r, den_r, int(n_true), num_p, den_p, int(n_pred)


def precision_recall_sums_models(
    phi_true: np.ndarray,
    phi_pred: np.ndarray,
    alpha: np.ndarray,
    weight: np.ndarray,
    use_weight: bool,
    event_threshold: float,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`precision_recall_sums_numpy` of several models at once: ``phi_pred`` and ``alpha``
    of shape (models, n), ``phi_true`` and ``weight`` shared. Returns the sums (models, 4: recall
    numerator and denominator, precision numerator and denominator) and the event counts
    (models, 2: true, predicted), each model's the kernel's to the last bit."""
    n_models, n = np.shape(alpha)
    phi = np.empty((n_models, 2, n), dtype=np.float64)
    phi[:, 0] = phi_true
    phi[:, 1] = phi_pred
    event = phi >= event_threshold
    w: Any = 1.0
    if use_weight:
        w = np.asarray(weight, dtype=np.float64)
        event &= w != 0.0
    with np.errstate(all="ignore"):
        wa = w * np.asarray(alpha, dtype=np.float64)  # the kernel's (w * alpha) * phi
        terms = np.zeros((n_models, 4, n + 1), dtype=np.float64)
        np.multiply(wa[:, None, :], phi, out=terms[:, 0:2, 1:], where=event)
        np.multiply(w, phi, out=terms[:, 2:4, 1:], where=event)
        sums = np.cumsum(terms, axis=2)[:, :, -1]
    # (num_r, den_r, num_p, den_p) per model, from the terms' rows (num_r, num_p, den_r, den_p)
    return sums[:, [0, 2, 1, 3]], np.count_nonzero(event, axis=2)
