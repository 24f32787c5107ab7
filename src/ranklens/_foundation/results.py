"""Base classes of the frozen result dataclasses every rich function returns.

Every result derives from :class:`Result`: a compact ``repr`` (arrays summarised, at most a few
lines), ``to_dict()`` (JSON-ready), ``to_frame()`` (a pandas DataFrame) and a notebook table
(``_repr_html_``). Every curve derives from :class:`CurveResult`, which adds the same axis names
for all of them (``x``, ``y``, ``area``, ``at(x)``, ``x_label``, ``y_label``) beside each curve's
own field names. Intervals are :class:`ConfidenceInterval` named tuples, as in scipy.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np

from ranklens._foundation.format import result_html

if TYPE_CHECKING:
    import pandas as pd

# The public result types (re-exported by ``ranklens``); ``to_builtin`` is internal.
__all__ = ["ConfidenceInterval", "CurveResult", "Result"]

#: The longest ``repr`` of a result, in characters (about five lines of a terminal).
REPR_MAX_CHARS = 480


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``(low, high)``, as scipy's ``ConfidenceInterval``.

    An interval that cannot be computed is ``ConfidenceInterval(nan, nan)``, never None.

    Attributes
    ----------
    low, high : float
        The lower and upper end.
    """

    low: float
    high: float

    @classmethod
    def undefined(cls) -> ConfidenceInterval:
        """``ConfidenceInterval(nan, nan)``: the interval that could not be computed.

        Returns
        -------
        ConfidenceInterval
            Both ends NaN.
        """
        return cls(math.nan, math.nan)

    def __repr__(self) -> str:
        return f"ConfidenceInterval(low={self.low:.6g}, high={self.high:.6g})"


def to_builtin(value: Any) -> Any:
    """Convert NumPy arrays and scalars, fractions and nested containers to JSON-ready Python.

    Arrays become lists, NumPy scalars become ``int``/``float``, exact ``Fraction`` counts become
    ``int`` when integral and ``float`` otherwise; NaN stays ``float('nan')``.

    Parameters
    ----------
    value : object
        A result, array, scalar or container of them.

    Returns
    -------
    object
        The same content as plain Python objects.
    """
    if isinstance(value, Result):
        return value.to_dict()
    if isinstance(value, np.ndarray):
        return [to_builtin(v) for v in value.tolist()] if value.dtype == object else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if isinstance(value, dict):
        return {str(k): to_builtin(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_builtin(v) for v in value]
    return value


def _short(value: Any) -> str:
    """One field value in a ``repr``: arrays by shape and dtype, floats to 6 digits, long cut."""
    if isinstance(value, np.ndarray):
        return f"<array shape={value.shape} dtype={value.dtype}>"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, Result):
        return f"<{type(value).__name__}>"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def compact_repr(result: Any) -> str:
    """The ``repr`` of every result: fields in order, arrays summarised, at most
    :data:`REPR_MAX_CHARS` characters (the fields that do not fit are counted, not shown).

    Parameters
    ----------
    result : Result
        A frozen result object.

    Returns
    -------
    str
        ``ClassName(field=value, ...)`` on one line.
    """
    name = type(result).__name__
    fields = [(f.name, getattr(result, f.name)) for f in dataclasses.fields(result) if f.repr]
    parts = [f"{k}={_short(v)}" for k, v in fields]
    text = f"{name}({', '.join(parts)})"
    if len(text) <= REPR_MAX_CHARS:
        return text
    # Too long: the arrays are named, not described (the scalars say more in a line) ...
    arrays = [k for k, v in fields if isinstance(v, np.ndarray)]
    parts = [f"{k}={_short(v)}" for k, v in fields if not isinstance(v, np.ndarray)]
    if arrays:
        parts.append(f"arrays: {' '.join(arrays)}")
    text = f"{name}({', '.join(parts)})"
    if len(text) <= REPR_MAX_CHARS:
        return text
    # ... and what still does not fit is cut.
    return text[: REPR_MAX_CHARS - 4] + "...)"


def _frame_columns(result: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The 1-d array fields of the most common length (columns) and the scalar fields."""
    arrays: dict[str, np.ndarray] = {}
    scalars: dict[str, Any] = {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray) and value.ndim == 1:
            arrays[f.name] = value
        elif isinstance(value, ConfidenceInterval):
            scalars[f"{f.name}_low"], scalars[f"{f.name}_high"] = value.low, value.high
        elif value is None or isinstance(value, str | bool | int | float | Fraction | np.generic):
            scalars[f.name] = to_builtin(value)
    if arrays:
        lengths = [a.shape[0] for a in arrays.values()]
        common = max(set(lengths), key=lengths.count)
        arrays = {k: a for k, a in arrays.items() if a.shape[0] == common}
    return arrays, scalars


@dataclasses.dataclass(frozen=True)
class Result:
    """Base of the frozen result dataclasses: compact ``repr``, ``to_dict``, ``to_frame``, HTML.

    Subclasses are ``@dataclasses.dataclass(frozen=True)``; array fields are NumPy arrays, summary
    fields Python scalars, intervals :class:`ConfidenceInterval`. The compact ``repr`` is given to
    every subclass when it is created (:meth:`__init_subclass__`), so a dataclass decorator cannot
    replace it with one that prints every array element.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # dataclasses only add a __repr__ to a class whose own namespace has none: setting it
        # here, before the decorator runs, keeps the compact one (unless the class writes its own).
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Result.__repr__  # type: ignore[method-assign]

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python objects (lists, floats, ints), ready for ``json.dumps``.

        Returns
        -------
        dict
            Field name to value.
        """
        return {f.name: to_builtin(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> pd.DataFrame:
        """The result as a pandas DataFrame.

        The default: one column per one-dimensional array field (those of the most common
        length), with the scalar fields in ``frame.attrs``; a result without array fields is one
        row of its scalar fields (an interval ``ci`` as ``ci_low`` and ``ci_high``). Results with
        a natural table of their own override it.

        Returns
        -------
        pandas.DataFrame
            The table.
        """
        import pandas as pd

        arrays, scalars = _frame_columns(self)
        if arrays:
            frame = pd.DataFrame(arrays)
            frame.attrs.update(scalars)
            return frame
        return pd.DataFrame([scalars])

    def _repr_html_(self) -> str:
        """A compact HTML table of the fields for notebooks (arrays are summarised, not dumped)."""
        return result_html(self)

    def __repr__(self) -> str:
        return compact_repr(self)


class CurveResult(Result):
    """Base of every curve result: one set of names for the axes of all curves.

    Each curve keeps its own field names (``fpr``/``tpr``, ``fraction_targeted``/``gain``,
    ``tolerance``/``accuracy``, ...) and adds the common ones: ``x`` and ``y`` (the points the
    curve is drawn through, ``x`` in increasing order), ``area`` (the curve's summary area, NaN
    where the curve has none), ``at(x)`` (the curve read at any ``x``), ``x_label`` and
    ``y_label`` (what the axes show) and ``to_frame()`` (``x`` and ``y`` first, then the curve's
    own columns).

    A subclass names its axis fields in ``x_field`` and ``y_field`` (or overrides the ``x`` and
    ``y`` properties) and defines ``area`` (a field or a property).
    """

    x_field: ClassVar[str] = ""
    y_field: ClassVar[str] = ""
    x_label: ClassVar[str] = "x"
    y_label: ClassVar[str] = "y"

    if TYPE_CHECKING:

        @property
        def area(self) -> float: ...

    @property
    def x(self) -> np.ndarray:
        """The curve's x coordinates (float array, increasing)."""
        return np.asarray(getattr(self, self.x_field), dtype=np.float64)

    @property
    def y(self) -> np.ndarray:
        """The curve's y coordinates at :attr:`x` (float array)."""
        return np.asarray(getattr(self, self.y_field), dtype=np.float64)

    def at(self, x: Any) -> Any:
        """The curve at ``x``: linear between the curve's points, NaN outside its x range.

        Parameters
        ----------
        x : float or array-like
            Where to read the curve.

        Returns
        -------
        float or ndarray
            ``y`` at ``x`` (a float for a scalar ``x``).
        """
        xs, ys = self.x, self.y
        q = np.asarray(x, dtype=np.float64)
        keep = ~(np.isnan(xs) | np.isnan(ys))
        xs, ys = xs[keep], ys[keep]
        if xs.size == 0:
            out = np.full(q.shape, np.nan)
        else:
            out = np.interp(q, xs, ys)
            out = np.where((q < xs[0]) | (q > xs[-1]) | np.isnan(q), np.nan, out)
        return float(out) if out.ndim == 0 else out

    def to_frame(self) -> pd.DataFrame:
        """The curve's points: ``x`` and ``y`` first, then the curve's own array fields.

        Returns
        -------
        pandas.DataFrame
            One row per point; the scalar fields (``area`` among them) in ``frame.attrs``.
        """
        import pandas as pd

        arrays, scalars = _frame_columns(self)
        x, y = self.x, self.y
        columns: dict[str, np.ndarray] = {"x": x, "y": y}
        columns.update({k: a for k, a in arrays.items() if a.shape[0] == x.shape[0]})
        frame = pd.DataFrame(columns)
        frame.attrs.update(scalars)
        frame.attrs.update(area=float(self.area), x_label=self.x_label, y_label=self.y_label)
        return frame
