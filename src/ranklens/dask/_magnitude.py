"""Means of per-row values on data of extreme magnitude, on Dask, without overflow or underflow.

The first pass adds each ratio-form measure's per-row values as they are: squares of values
near ``1e-300`` underflow to 0 and squares near ``1e300`` overflow, although RMSE and RMSPE are
representable far beyond both (the in-memory functions scale the data by a power of two before
squaring, as LAPACK's ``dnrm2``). Where a model's data are of such a size
(:func:`ranklens._foundation.scaling.product_exponent` of the largest ``|y|``, ``|p|`` is not 0),
one more read adds the same per-row values on the data divided by ``2**e`` (``e`` its binary
exponent, so the largest value lies in [0.5, 1)), by ``2**(e + 1)`` and by ``2**(e + 2)``. Dividing
by a power of two changes no digit, so a measure whose value scales as ``c**d`` when the data scale
by ``c`` (RMSE: ``d = 1``, MSE: 2, RMSPE: 0) gives three values each exactly ``2**d`` from the
next: ``d`` is read off them and the value at the data's scale is the first times ``2**(d e)``.
A measure whose value does not scale so (a loss with a fixed offset or threshold: the log error,
the epsilon-insensitive loss; an affine ``a s + b`` with ``b != 0`` cannot be ``2**d`` apart
twice), or that is 0 or not finite at these scales, keeps its first-pass value.

References
----------
Anderson, E. (2017). Algorithm 978: safe scaling in the level 1 BLAS. *ACM Transactions on
Mathematical Software* 44(1), 12.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.scaling import binary_exponent, ldexp, product_exponent

#: The degrees of homogeneity looked for (a mean of powers up to the fourth, or a ratio of them).
_DEGREES = range(-4, 5)

#: Two values ``2**d`` apart agree to this relative tolerance (exactly, but for rows of a size
#: below ``2**-1022`` times the largest, whose rounding in the subnormal range is negligible).
_TOLERANCE = 1e-13


def exponents(scans: Sequence[dict[str, Any]], n_models: int) -> dict[int, int]:
    """Per model (its index) whose data are of extreme size: the binary exponent ``e`` of its
    largest ``|y|`` or ``|p|`` (the data divided by ``2**e`` lie within [-1, 1))."""
    y_abs = max(max(abs(s["y_min"]), abs(s["y_max"])) for s in scans)
    out = {}
    for k in range(n_models):
        big = max(y_abs, *(s["p_abs"][k] for s in scans))
        if product_exponent(big) != 0:
            out[k] = binary_exponent(big)
    return out


def scaled_sums(
    part: Any,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    forms: Sequence[Any],
    scales: dict[int, int],
) -> dict[int, list[Any]]:
    """Per model of ``scales`` and per form: the weighted sums ``(numerator, denominator)`` of the
    data divided by ``2**e``, ``2**(e + 1)`` and ``2**(e + 2)``, or the exception the form
    raised."""
    yv = part[y].to_numpy(dtype=np.float64)
    wv = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    out: dict[int, list[Any]] = {}
    for k, e in scales.items():
        pk = part[preds[k]].to_numpy(dtype=np.float64)
        per_form: list[Any] = []
        for form in forms:
            pair: list[tuple[float, float]] = []
            try:
                for shift in (e, e + 1, e + 2):
                    num, den = form.row_terms(np.ldexp(yv, -shift), np.ldexp(pk, -shift))
                    if wv is not None:
                        num, den = wv * num, wv * den
                    pair.append((float(num.sum()), float(den.sum())))
            except ValueError as exc:  # the measure's own domain check, as in the first pass
                per_form.append(exc)
                continue
            per_form.append(pair)
        out[k] = per_form
    return out


def _finished(form: Any, pieces: Sequence[tuple[float, float]]) -> float:
    num = math.fsum(p[0] for p in pieces)
    den = math.fsum(p[1] for p in pieces)
    with np.errstate(all="ignore"):
        return float(form.finalize(num / den)) if den != 0 else math.nan


def _degree(values: Sequence[float]) -> int | None:
    """``d`` with each value ``2**d`` times the next (the data halved between them), else None
    (also for values 0 or not finite, which tell no degree)."""
    if not all(math.isfinite(v) and v != 0.0 for v in values):
        return None
    for d in _DEGREES:
        pairs = itertools.pairwise(values)
        if all(abs(a - ldexp(b, d)) <= _TOLERANCE * abs(a) for a, b in pairs):
            return d
    return None


def extreme_values(
    dask: Any,
    frame: Any,
    *,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    forms: Sequence[Any],
    scans: Sequence[dict[str, Any]],
) -> dict[tuple[int, int], float]:
    """The ratio-form measures' values at the data's scale where the first pass's sums
    underflow or overflow.

    Parameters
    ----------
    dask : module
        The ``dask`` module.
    frame : dask DataFrame
        The data (``y``, the predictions and the weight as float64).
    y, preds, weight : str, sequence of str, str or None
        The columns.
    forms : sequence of RatioForm
        The measures' forms, in the order of the first pass's sums.
    scans : sequence of dict
        The first pass's partitions with rows (their ``y_min``, ``y_max`` and ``p_abs``).

    Returns
    -------
    dict
        ``(model index, form index) -> value`` for the models whose data are of extreme size
        and the forms whose value scales as a power of the data (one read of ``frame``; none,
        and nothing read, when no model's data are of such a size).
    """
    scales = exponents(scans, len(preds))
    if not scales or not forms:
        return {}
    parts = dask.compute(
        *[
            dask.delayed(scaled_sums)(part, y, preds, weight, forms, scales)
            for part in frame.to_delayed()
        ]
    )
    out: dict[tuple[int, int], float] = {}
    for k, e in scales.items():
        for j, form in enumerate(forms):
            pieces = [p[k][j] for p in parts]
            if any(isinstance(piece, Exception) for piece in pieces):
                continue  # the first pass's failure stands
            found = [_finished(form, [piece[i] for piece in pieces]) for i in range(3)]
            d = _degree(found)
            if d is not None:
                out[(k, j)] = ldexp(found[0], d * e)
    return out
