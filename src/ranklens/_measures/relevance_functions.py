"""The relevance functions: the sigmoid and the control-point forms, and the box plot's choice.

:mod:`ranklens.relevance` presents them; the box-plot relevance built from a box plot's summary
(:func:`relevance_from_limits`) is shared with :mod:`ranklens.extremes` and the Dask engine,
which find the box plot by other means and must build the same function from it.
"""

from __future__ import annotations

import abc
import dataclasses
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._compute.xp import utility as _xu
from ranklens._foundation.validation import check_finite_number, check_probability, to_float_array
from ranklens.exceptions import DomainError, RanklensWarning

__all__ = [
    "ControlPointRelevance",
    "NoExtremesWarning",
    "Relevance",
    "SigmoidRelevance",
    "relevance_from_limits",
]


FloatArray = NDArray[np.float64]


class NoExtremesWarning(RanklensWarning):
    """The sample has no box-plot outliers, so a box-plot relevance had to use a fallback."""


def _as_float_array(y: Any, name: str = "y") -> tuple[FloatArray, tuple[int, ...]]:
    """Any-shaped float view of ``y`` (NaN allowed, passed through) and its original shape.

    The library's one conversion (:func:`ranklens._foundation.validation.to_float_array`), so
    strings, dates and complex numbers raise the same ``TypeError`` here as in every measure.
    """
    arr = to_float_array(y, name)
    return np.ascontiguousarray(arr.reshape(-1)), arr.shape


class Relevance(abc.ABC):
    """Base class of ranklens relevance functions: ``phi(y)`` maps values to [0, 1].

    Calling the object on an array-like of any shape returns a float array of the same shape
    (a NumPy float for a scalar); NaN maps to NaN. Subclasses implement :meth:`_evaluate` on a
    flat float64 array.
    """

    def __call__(self, y: Any) -> FloatArray:
        flat, shape = _as_float_array(y)
        out = self._evaluate(flat).reshape(shape)
        return out[()] if out.ndim == 0 else out

    @abc.abstractmethod
    def _evaluate(self, y: FloatArray) -> FloatArray:
        """phi on a contiguous 1-D float64 array."""


def _sigmoid_shape(center: float, origin: float, k: float, delta: float, name: str) -> float:
    """|s| of Torgo & Ribeiro (2009) eq. 5, s = ln(1/delta - 1) / |(c - origin) k|."""
    width = abs((center - origin) * k)
    if width == 0.0:
        raise ValueError(
            f"{name} equals origin ({origin!r}), so the sigmoid's shape ln(1/delta - 1)/|(c - "
            f"origin) k| is undefined; move the centre or pass a different origin"
        )
    return math.log(1.0 / delta - 1.0) / width


@dataclasses.dataclass(frozen=True)
class SigmoidRelevance(Relevance):
    r"""The sigmoid relevance of Torgo & Ribeiro (2009), eqs. 4-5.

    .. math::
        f(y) = \frac{1}{1 + e^{-s (y - c)}}, \qquad
        s = \pm \frac{\ln(\Delta^{-1} - 1)}{|(c - o)\, k|}

    with ``+`` for the high sigmoid (centre ``high_center``) and ``-`` for the low one. ``c`` is
    where phi = 1/2; phi decays to ``delta`` at ``c - (c - o) k``. For both extremes
    ``phi = max(f_low, f_high)`` (the paper does not say how to combine them; the choice is
    immaterial because the sigmoids do not overlap in practice).

    Parameters
    ----------
    low_center, high_center : float or None
        Centres of the low and high sigmoids; at least one is required, and
        ``low_center < high_center`` when both are given.
    k : float, default 0.5
        Decay factor of eq. 5 (> 0).
    delta : float, default 1e-4
        Relevance reached at the decay point, in (0, 1/2).
    origin : float, default 0.0
        Reference point the decay width is measured from. ``0`` is the paper's eq. 5 exactly
        (sensible for returns and other data centred at 0); :func:`relevance_from_boxplot` passes
        the sample median, so its relevance does not change when the data are shifted (eq. 5 with
        origin 0 is not location-equivariant: Celsius and Kelvin would give different shapes).

    Examples
    --------
    Torgo & Ribeiro (2009) Table 3 (reproduced only with centres +-2, not the +-1.5 the text
    states):

    >>> phi = SigmoidRelevance(low_center=-2.0, high_center=2.0, k=0.5, delta=1e-4)
    >>> phi([-5.29, -2.43, 0.03, 1.46, 2.53]).round(2)
    array([1.  , 0.98, 0.  , 0.01, 0.99])
    """

    low_center: float | None = None
    high_center: float | None = None
    k: float = 0.5
    delta: float = 1e-4
    origin: float = 0.0

    def __post_init__(self) -> None:
        if self.low_center is None and self.high_center is None:
            raise ValueError("give low_center, high_center or both; got neither")
        for name in ("low_center", "high_center"):
            value = getattr(self, name)
            if value is not None:
                value = check_finite_number(value, name)
                object.__setattr__(self, name, value)
        if (
            self.low_center is not None
            and self.high_center is not None
            and not self.low_center < self.high_center
        ):
            raise ValueError(
                "low_center must be below high_center; "
                f"got {self.low_center!r} and {self.high_center!r}"
            )
        k = check_finite_number(self.k, "k")
        if k <= 0:
            raise ValueError(f"k must be positive; got {self.k!r}")
        delta = check_probability(self.delta, "delta")
        if delta >= 0.5:
            raise ValueError(f"delta must be in (0, 0.5); got {self.delta!r}")
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "origin", check_finite_number(self.origin, "origin"))
        # Validate the shapes now so a bad centre fails at construction, not on first call.
        self.low_shape  # noqa: B018
        self.high_shape  # noqa: B018

    @property
    def low_shape(self) -> float | None:
        """s of the low sigmoid (negative), or None."""
        if self.low_center is None:
            return None
        return -_sigmoid_shape(self.low_center, self.origin, self.k, self.delta, "low_center")

    @property
    def high_shape(self) -> float | None:
        """s of the high sigmoid (positive), or None."""
        if self.high_center is None:
            return None
        return _sigmoid_shape(self.high_center, self.origin, self.k, self.delta, "high_center")

    def _evaluate(self, y: FloatArray) -> FloatArray:
        low_s, high_s = self.low_shape, self.high_shape
        # Small inputs while the kernel is not loaded: its NumPy form, bit for bit
        sigmoid: Any = _xu.sigmoid_relevance_numpy
        if not _xu.numpy_route(y.shape[0], "sigmoid_relevance"):
            from ranklens._compute.kernels import utility as _k  # imports numba

            sigmoid = _k.sigmoid_relevance
        return sigmoid(
            y,
            low_s is not None,
            self.low_center if self.low_center is not None else 0.0,
            low_s if low_s is not None else 0.0,
            high_s is not None,
            self.high_center if self.high_center is not None else 0.0,
            high_s if high_s is not None else 0.0,
        )


@dataclasses.dataclass(frozen=True)
class ControlPointRelevance(Relevance):
    r"""Relevance by monotone cubic Hermite interpolation through control points.

    The form of Ribeiro (2011) and the R packages uba, UBL and IRon: the user (or
    :func:`relevance_from_boxplot` with ``shape="pchip"``) gives points ``(y, phi)`` or
    ``(y, phi, slope)``; between neighbouring points phi is the cubic Hermite polynomial with
    those values and slopes, and outside the outermost points it is constant. Missing slopes are
    the shape-preserving pchip slopes of Fritsch & Carlson (as
    ``scipy.interpolate.PchipInterpolator`` computes them), so phi never overshoots the control
    values; given slopes are used as they are, and the result is clipped to [0, 1].

    Parameters
    ----------
    points : sequence of (y, phi) or (y, phi, slope)
        At least two points with distinct ``y`` (any order) and ``phi`` in [0, 1].

    Examples
    --------
    The box-plot form with zero slopes is phi = 3t^2 - 2t^3 between median and fence:

    >>> phi = ControlPointRelevance([(-1.5, 1, 0), (0, 0, 0), (1.5, 1, 0)])
    >>> phi([-3.0, -0.75, 0.0, 0.75, 1.5]).tolist()
    [1.0, 0.5, 0.0, 0.5, 1.0]
    """

    points: tuple[tuple[float, ...], ...]
    _knots: FloatArray = dataclasses.field(init=False, repr=False, compare=False)
    _values: FloatArray = dataclasses.field(init=False, repr=False, compare=False)
    _slopes: FloatArray = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        raw: list[Any] = (
            list(self.points) if not isinstance(self.points, np.ndarray) else self.points.tolist()
        )
        if len(raw) < 2:
            raise ValueError(f"points needs at least two control points; got {len(raw)}")
        ys, phis, slopes = [], [], []
        for idx, point in enumerate(raw):
            point = tuple(point)
            if len(point) not in (2, 3):
                raise ValueError(
                    f"points[{idx}] must be (y, phi) or (y, phi, slope); got {point!r}"
                )
            ys.append(check_finite_number(point[0], f"points[{idx}] y"))
            phi = check_finite_number(point[1], f"points[{idx}] phi")
            if not 0.0 <= phi <= 1.0:
                raise ValueError(f"points[{idx}] phi must be in [0, 1]; got {point[1]!r}")
            phis.append(phi)
            slopes.append(
                None if len(point) == 2 else check_finite_number(point[2], f"points[{idx}] slope")
            )
        order = np.argsort(ys, kind="stable")
        knots = np.asarray(ys, dtype=np.float64)[order]
        if np.any(np.diff(knots) == 0):
            dup = knots[np.flatnonzero(np.diff(knots) == 0)[0]]
            raise ValueError(f"points must have distinct y values; {dup!r} appears twice")
        values = np.asarray(phis, dtype=np.float64)[order]
        given = [slopes[i] for i in order]
        if any(s is None for s in given):
            from scipy.interpolate import PchipInterpolator

            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                auto = PchipInterpolator(knots, values).derivative()(knots)
            if not np.isfinite(auto).all():
                raise ValueError(
                    "points are too close together for pchip slopes (they overflow); "
                    "merge the nearly equal y values or give the slopes explicitly"
                )
            slope_arr = np.array([a if s is None else s for a, s in zip(auto, given, strict=True)])
        else:
            slope_arr = np.asarray(given, dtype=np.float64)
        object.__setattr__(
            self,
            "points",
            tuple(
                (float(a), float(b), float(c))
                for a, b, c in zip(knots, values, slope_arr, strict=True)
            ),
        )
        object.__setattr__(self, "_knots", knots)
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_slopes", np.ascontiguousarray(slope_arr, dtype=np.float64))

    def _evaluate(self, y: FloatArray) -> FloatArray:
        from ranklens._compute.kernels import utility as _k  # imports numba

        return _k.hermite_relevance(y, self._knots, self._values, self._slopes)


def relevance_from_limits(
    n: int,
    median: float,
    iqr: float,
    fences: tuple[float, float],
    limits: tuple[float, float],
    outliers: tuple[bool, bool],
    *,
    extremes: str,
    adjusted: bool,
    shape: str,
    k: float,
    delta: float,
    fallback: str,
) -> SigmoidRelevance | ControlPointRelevance:
    """The box-plot relevance from the box plot's summary (:func:`ranklens.relevance_from_boxplot`
    after its box plot).

    An engine that finds the summary by exact selection in pieces builds the same function.

    Parameters
    ----------
    n : int
        The number of rows (named in the warning and the error).
    median, iqr : float
        The box plot's median and interquartile range.
    fences : (float, float)
        The lower and upper fences.
    limits : (float, float)
        The values at which phi is 1/2, below and above the median.
    outliers : (bool, bool)
        Whether the low and the high tail have outliers.
    extremes, adjusted, shape, k, delta
        As :func:`ranklens.relevance_from_boxplot`'s parameters.
    fallback : {"fences", "raise"}
        What ``extremes="auto"`` does without outliers: warn with :class:`NoExtremesWarning`
        and use both tails (the fences), or raise.

    Returns
    -------
    SigmoidRelevance or ControlPointRelevance
        The relevance.

    Raises
    ------
    ValueError
        Without outliers, when ``fallback`` is ``"raise"``.
    DomainError
        If a tail used is degenerate (its limit equals the median).
    """
    low_limit, high_limit = limits
    lower_fence, upper_fence = fences
    if extremes == "auto":
        use_low, use_high = outliers
        if not (use_low or use_high):
            kind = "medcouple-adjusted" if adjusted else "Tukey"
            message = (
                f"y has no box-plot outliers (n={n}, {kind} fences "
                f"[{lower_fence:.6g}, {upper_fence:.6g}]), so a relevance for "
                "'auto' extremes would be zero everywhere"
            )
            if fallback == "raise":
                raise ValueError(
                    message + "; choose extremes='both'/'high'/'low', a smaller coef, or an "
                    "explicit SigmoidRelevance / ControlPointRelevance"
                )
            warnings.warn(
                message + ". Falling back to extremes='both' with the same limits: phi is 1/2 "
                "at the fences, so only values beyond them are events. Pass extremes='both' "
                "(or 'high'/'low') to choose explicitly and silence this warning.",
                NoExtremesWarning,
                stacklevel=3,
            )
            use_low = use_high = True
    else:
        use_low = extremes in ("both", "low")
        use_high = extremes in ("both", "high")

    for used, limit, side in ((use_low, low_limit, "low"), (use_high, high_limit, "high")):
        if used and limit == median:
            raise DomainError(
                f"the box plot of y is degenerate (IQR = {iqr!r}): the {side} limit equals "
                f"the median {median!r}, so no {side} tail can be defined; use "
                "ControlPointRelevance or SigmoidRelevance with explicit centres"
            )

    if shape == "sigmoid":
        return SigmoidRelevance(
            low_center=low_limit if use_low else None,
            high_center=high_limit if use_high else None,
            k=k,
            delta=delta,
            origin=median,
        )
    points: list[Sequence[float]] = [(median, 0.0, 0.0)]
    if use_low:
        points.insert(0, (low_limit, 1.0, 0.0))
    if use_high:
        points.append((high_limit, 1.0, 0.0))
    return ControlPointRelevance(tuple(tuple(p) for p in points))
