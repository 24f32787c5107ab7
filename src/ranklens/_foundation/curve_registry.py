"""The curve registry: every evaluation curve with what the engines and the report need to know.

The metric registry's twin for curves. A curve function registers itself where it is defined
(:func:`register_curve`), holding the objects themselves, never their names as strings: the
function, its family (which is also its report section), the task parameters it needs, and, for
curves that can carry bootstrap bands, how to read the curve on a grid of fractions. The Display
that draws a curve registers itself from the presentation layer (:func:`register_display`), so
this module, at the bottom of the package, imports nothing above it.

Readers: :func:`ranklens.curve_bands` (which curves have bands, and how to read them),
the evaluation pipeline (which curves to compute, with which parameters), and the report (which
Display draws each one). A new curve is one function, one registration and one test.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

import numpy as np

__all__ = [
    "CURVE_FAMILIES",
    "CurveSpec",
    "CurveSumsForm",
    "CurveSweepForm",
    "available_curves",
    "display_for",
    "get_curve",
    "register_curve",
    "register_display",
    "sample_grid",
]

#: The families of curves, in display order; each is also a section of the report.
CURVE_FAMILIES: tuple[str, ...] = ("ranking", "targeting", "extremes", "residual", "intervals")

CurveInputs = Literal["point", "interval", "point_and_interval"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclasses.dataclass(frozen=True)
class CurveSweepForm:
    """How the bootstrap evaluates a banded curve per replicate without calling its function.

    The order of the rows never depends on the replicate weights: ``prepare`` sorts once, and
    ``evaluate`` reads the curve of every weight row off the grid from weighted cumulative sums
    over that order (O(n) a replicate), with the same numbers as ``on_grid(func(y, pred,
    sample_weight=w), grid)`` up to rounding.

    Attributes
    ----------
    prepare : callable
        ``prepare(y, pred) -> state``, once per model.
    evaluate : callable
        ``evaluate(state, weights, grid) -> ndarray (rows, n_grid)`` for a float64 block
        ``weights`` of shape ``(rows, n)``.
    device_prepare, device_evaluate : callable, optional
        The same sweep written once against an array namespace ``xp`` (NumPy or CuPy):
        ``device_prepare(xp, y, pred) -> state`` and ``device_evaluate(xp, state, weights, grid)``
        for integer or float64 ``weights`` of that namespace. Curves that give them can carry
        bands computed on a GPU (``curve_bands(device="gpu")``).
    """

    prepare: Callable[[np.ndarray, np.ndarray], Any]
    evaluate: Callable[[Any, np.ndarray, np.ndarray], np.ndarray]
    device_prepare: Callable[[Any, Any, Any], Any] | None = None
    device_evaluate: Callable[[Any, Any, Any, Any], Any] | None = None


@dataclasses.dataclass(frozen=True)
class CurveSumsForm:
    """How an engine that reads the rows in pieces builds a curve at a bounded set of points.

    Every point returned lies exactly on the curve the function computes from every row (the
    step function or polyline it draws, read at the point's abscissa); only the number of points
    is bounded. The abscissae are placed from a sample of the rows (``grid``: they only decide
    where the points fall, not their values), each piece of the rows gives a small summary at
    them (``partial``), two summaries add up (``merge``, exact for counts, float sums in any
    order) and the summary of all rows gives the result, of the function's own result class
    (``finish``), so the same Display draws it. The summary scalars of the result (an area, the
    model's own point) are computed exactly from sums too, not from the bounded points.

    Attributes
    ----------
    grid : callable
        ``grid(y_sample, pred_sample, **params) -> ndarray``: the abscissae, from a sample of
        ``(y, prediction)`` rows (float64 arrays).
    partial : callable
        ``partial(y, pred, weight, grid, **params) -> summary``: one piece's summary (``weight``
        None without weights; rows of weight 0 count for nothing), None for a piece of no rows
        of positive weight; raises as the curve function would on these values.
    merge : callable
        ``merge(a, b) -> summary`` of two non-None summaries.
    finish : callable
        ``finish(summary, grid, **params) -> result``; warns as the curve function does.
    params : tuple of str
        The task parameters ``grid``, ``partial`` and ``finish`` take (the curve's keyword
        arguments, given or fixed by its registration).
    fitted : mapping of str to OrderStatisticFit
        The parameters among ``params`` the curve fits from order statistics of ``y_true``
        when they are not given (:class:`ranklens._foundation.forms.OrderStatisticFit`).
    points : str
        Where the points lie, in words, for the engine's notes.
    """

    grid: Callable[..., np.ndarray]
    partial: Callable[..., Any]
    merge: Callable[[Any, Any], Any]
    finish: Callable[..., Any]
    params: tuple[str, ...] = ()
    fitted: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    points: str = ""


@dataclasses.dataclass(frozen=True)
class CurveSpec:
    """What the rest of ranklens needs to know about a registered curve.

    Attributes
    ----------
    name : str
        Registry name, also the key of the curve in an evaluation (``evaluation.curves[name]``).
        One function may be registered under several names with different fixed parameters
        (the gain curve of events, and of the value captured).
    func : callable
        ``func(y_true, y_pred, **params)`` (``inputs="point"``), ``func(y_true, lower, upper)``
        (``"interval"``) or ``func(y_true, y_pred, lower, upper)`` (``"point_and_interval"``).
    family : str
        One of :data:`CURVE_FAMILIES`: the measure family and the report section.
    inputs : str
        What the curve is computed from.
    needs : tuple of str
        Task parameters that must all be given for the curve to be computed.
    needs_any : tuple of str
        Task parameters of which at least one must be given.
    fixed : mapping
        Keyword arguments always passed (they override the task's parameters).
    fixed_with : mapping
        ``{parameter: {keyword: value}}``: when the task gives ``parameter``, these keyword
        arguments are fixed too (a profit from a value margin works on ``y`` itself, whatever
        event definition the task gave the other curves).
    applies : callable, optional
        ``applies(y_true) -> bool``: whether the curve makes sense for this target (value curves
        need a non-negative, non-binary target).
    on_grid : callable, optional
        ``on_grid(result, grid) -> ndarray``: the curve's value at each fraction of ``grid``.
        Curves that define it can carry bootstrap bands (:func:`ranklens.curve_bands`).
    sweep : CurveSweepForm, optional
        How the bands evaluate the curve per replicate from weighted sweeps over a fixed order;
        without it they call ``func`` once per replicate and model.
    from_ranked : callable, optional
        ``from_ranked(ranked, **params) -> result``: the same result as ``func`` built from the
        prediction-sorted cumulative sums alone (``ranklens._measures.ranked.Ranked``: the distinct
        scores in decreasing order with the cumulative weight, events and non-events, for binary
        events). Engines that sort the rows in pieces (:mod:`ranklens.dask`) build the curve from
        those sums with it; the task parameters it takes are passed by name.
    from_sequence : callable, optional
        ``from_sequence(weights, y_index, starts, y_weights, offset) -> result``: the same result
        as ``func`` built from every row of positive weight in the order of the prediction
        (decreasing prediction, ties by decreasing ``y`` then by row position): each row's
        weight and the index of its ``y`` among the distinct values of ``y`` (increasing), the
        first position of every run of tied predictions, the weight of each distinct ``y``, and
        half an observation in the units of the weights. Engines that sort the rows in pieces
        (:mod:`ranklens.dask`) build the curve from the buckets of the sort by prediction laid
        end to end and the distinct values of the sort by truth (one point per row: the arrays
        are as long as the data).
    sums : CurveSumsForm, optional
        How an engine that reads the rows in pieces (:mod:`ranklens.dask`) builds the curve at
        a bounded set of points, each exactly on the curve, from small mergeable sums.
    from_concordance : callable, optional
        ``from_concordance(weights, y_index, y_weights, correct, envelope, row_index) -> result``:
        the same result as ``func`` built from per-row concordance counts, every row in the
        order of the result (decreasing prediction, ties by row position): each row's weight,
        the index of its ``y`` among the distinct values of ``y`` (increasing), the weight of
        each distinct ``y``, each row's weight of partners ordered correctly relative to it (a
        tie in the prediction counting 1/2), the envelope of each distinct ``y`` (the most such
        weight a row of that value can reach by moving its prediction), and each row's position
        in the input. Engines that sort the rows in pieces (:mod:`ranklens.dask`) count them
        from the buckets of the sort by prediction (one point per row).
    from_cuts : callable, optional
        ``from_cuts(weights, sums, unit) -> result``: the same result as ``func`` built from one
        pair of numbers per distinct value of ``y`` (increasing): its weight and the sum over its
        rows of weight x prediction midrank (without weights, ``unit=True``: its count and the
        sum of doubled 1-based midranks, exact integers). Engines that sort the rows in pieces
        (:mod:`ranklens.dask`) add them up over the sort by truth.
    description : str
        One line for tables and the report.
    """

    name: str
    func: Callable[..., Any]
    family: str
    inputs: str = "point"
    needs: tuple[str, ...] = ()
    needs_any: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    fixed_with: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    applies: Callable[[np.ndarray], bool] | None = None
    on_grid: Callable[[Any, np.ndarray], np.ndarray] | None = None
    description: str = ""
    sweep: CurveSweepForm | None = None
    from_ranked: Callable[..., Any] | None = None
    from_sequence: Callable[..., Any] | None = None
    from_concordance: Callable[..., Any] | None = None
    from_cuts: Callable[..., Any] | None = None
    sums: CurveSumsForm | None = None

    @property
    def display(self) -> type | None:
        """The Display class that draws this curve (None until the plot layer is imported)."""
        return display_for(self.func)


def sample_grid(values: np.ndarray, points: int) -> np.ndarray:
    """At most ``points`` distinct values of ``values`` at evenly spaced order statistics
    (increasing, the smallest and largest included; non-finite values left out).

    The abscissae of a :class:`CurveSumsForm` drawn from a sample of the rows: being values of
    rows, they fall where the curve computed from every row has its own vertices.
    """
    v = np.sort(np.asarray(values, dtype=np.float64).ravel())
    v = v[np.isfinite(v)]
    if v.size == 0:
        return v
    at = np.round(np.linspace(0.0, v.size - 1.0, min(int(points), v.size))).astype(np.int64)
    return np.unique(v[at])


_CURVES: dict[str, CurveSpec] = {}
_DISPLAYS: dict[Callable[..., Any], type] = {}


def register_curve(
    name: str,
    *,
    family: str,
    inputs: CurveInputs = "point",
    needs: tuple[str, ...] = (),
    needs_any: tuple[str, ...] = (),
    fixed: Mapping[str, Any] | None = None,
    fixed_with: Mapping[str, Mapping[str, Any]] | None = None,
    applies: Callable[[np.ndarray], bool] | None = None,
    on_grid: Callable[[Any, np.ndarray], np.ndarray] | None = None,
    description: str | None = None,
    sweep: CurveSweepForm | None = None,
    from_ranked: Callable[..., Any] | None = None,
    from_sequence: Callable[..., Any] | None = None,
    from_concordance: Callable[..., Any] | None = None,
    from_cuts: Callable[..., Any] | None = None,
    sums: CurveSumsForm | None = None,
) -> Callable[[F], F]:
    """Decorator registering a curve function under ``name`` (the function is unchanged).

    Decorators stack: the same function can be registered under several names.
    """
    if family not in CURVE_FAMILIES:
        raise ValueError(f"family must be one of {CURVE_FAMILIES}; got {family!r}")
    if inputs not in ("point", "interval", "point_and_interval"):
        raise ValueError(
            f"inputs must be 'point', 'interval' or 'point_and_interval'; got {inputs!r}"
        )

    def decorator(func: F) -> F:
        if name in _CURVES and _CURVES[name].func is not func:
            raise ValueError(f"curve {name!r} is registered twice")
        doc = (func.__doc__ or "").strip().splitlines()
        _CURVES[name] = CurveSpec(
            name=name,
            func=func,
            family=family,
            inputs=inputs,
            needs=tuple(needs),
            needs_any=tuple(needs_any),
            fixed=dict(fixed or {}),
            fixed_with={k: dict(v) for k, v in (fixed_with or {}).items()},
            applies=applies,
            on_grid=on_grid,
            description=description if description is not None else (doc[0] if doc else ""),
            sweep=sweep,
            from_ranked=from_ranked,
            from_sequence=from_sequence,
            from_concordance=from_concordance,
            from_cuts=from_cuts,
            sums=sums,
        )
        return func

    return decorator


def register_display(func: Callable[..., Any], display: type) -> None:
    """Record that ``display`` draws the results of ``func`` (called by the plot layer)."""
    _DISPLAYS[func] = display


def display_for(func: Callable[..., Any]) -> type | None:
    """The Display registered for the curve function ``func``, if any."""
    return _DISPLAYS.get(func)


def get_curve(name: str) -> CurveSpec:
    """The :class:`CurveSpec` registered under ``name``; ``ValueError`` lists the valid names.

    Parameters
    ----------
    name : str
        A registered curve name.

    Returns
    -------
    CurveSpec
        The curve's function and its axes.

    Raises
    ------
    ValueError
        If no curve is registered under ``name``; the message lists the registered names.
    """
    try:
        return _CURVES[name]
    except KeyError:
        raise ValueError(f"unknown curve {name!r}; available: {', '.join(_CURVES)}") from None


def available_curves(family: str | None = None, *, banded: bool | None = None) -> tuple[str, ...]:
    """Names of registered curves in display order (by family, then registration).

    ``banded=True`` keeps the curves that can carry bootstrap bands (they define ``on_grid``).

    Parameters
    ----------
    family : str, optional
        Keep only the curves of this family.
    banded : bool, optional
        True: keep only the curves that can carry bootstrap bands; False: only the others.

    Returns
    -------
    tuple of str
        The registered curve names.

    Raises
    ------
    ValueError
        If ``family`` is not one of :data:`CURVE_FAMILIES`.
    """
    if family is not None and family not in CURVE_FAMILIES:
        raise ValueError(f"family must be one of {CURVE_FAMILIES}; got {family!r}")
    order = {f: k for k, f in enumerate(CURVE_FAMILIES)}
    specs = sorted(_CURVES.values(), key=lambda s: order[s.family])  # stable: registration order
    return tuple(
        s.name
        for s in specs
        if (family is None or s.family == family)
        and (banded is None or (s.on_grid is not None) == banded)
    )
