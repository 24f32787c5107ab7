"""What every display shares: lazy matplotlib, the thinning of long curves, and the base class.

Displays follow scikit-learn's pattern (``RocCurveDisplay``): ``XDisplay.from_predictions(y_true,
y_pred, *, ax=None, name=...)`` computes the result and draws it, ``XDisplay.from_result(result)``
draws a result already computed, and ``XDisplay(result, name=...).plot(ax=...)`` returns ``self``
with ``ax_``, ``figure_`` and ``lines_`` set. Drawing again on the same axes adds a model to it.

The exact curve stays on ``display.result``; only what is handed to matplotlib is thinned
(:func:`thin_indices`), so a curve of ten million points draws as a few thousand vertices without
changing what the eye sees.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ranklens._foundation.curve_registry import register_display
from ranklens._foundation.format import plain_number

__all__ = [
    "DEFAULT_MAX_POINTS",
    "Display",
    "label_points",
    "legend_number",
    "percent_axis",
    "place_legend",
    "share_axes",
    "thin_indices",
]

#: Vertices per drawn curve at most (per line; a band counts its two edges).
DEFAULT_MAX_POINTS = 4000


def _pyplot() -> Any:
    """Import ``matplotlib.pyplot`` on first use, with an actionable message when it is missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "plotting needs matplotlib, the optional extra 'plot': pip install 'ranklens[plot]'"
        ) from exc
    return plt


def thin_indices(x: Any, *ys: Any, max_points: int = DEFAULT_MAX_POINTS) -> np.ndarray:
    """Indices of at most about ``max_points`` vertices that draw like the whole curve.

    The x range is split into equal buckets (by position when ``x`` is not sorted); each bucket
    keeps its first and last point and, for every ``y`` in ``ys``, the points where that y is
    smallest and largest and the two points around its largest jump. A jagged line (the
    per-observation concordance of Rosset et al. 2005, Fig. 1) thus keeps its full vertical extent
    in every pixel column, a step stays exactly where it is, and the first and last points are
    always kept. With ``n <= max_points`` every index is returned.

    Parameters
    ----------
    x : array-like of shape (n,)
        Horizontal positions, usually non-decreasing.
    *ys : array-like of shape (n,)
        The vertical series drawn against ``x`` (a band passes its lower and upper edges).
    max_points : int
        Upper bound on the number of returned indices.

    Returns
    -------
    ndarray of int64
        Sorted unique indices into ``x``.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    if n <= max_points:
        return np.arange(n, dtype=np.int64)
    per_bucket = 2 + 4 * len(ys)
    n_buckets = max(1, (max_points - 2) // per_bucket)
    finite = np.isfinite(x)
    lo = float(np.min(x[finite])) if finite.any() else 0.0
    hi = float(np.max(x[finite])) if finite.any() else 0.0
    if hi > lo and finite.all() and bool(np.all(np.diff(x) >= 0)):
        bucket = np.minimum(((x - lo) / (hi - lo) * n_buckets).astype(np.int64), n_buckets - 1)
    else:
        bucket = np.arange(n, dtype=np.int64) * n_buckets // n
    # Segment starts; buckets are contiguous runs along the index in both branches.
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:], n] - 1
    keep = [starts, ends, np.array([0, n - 1])]
    for y in ys:
        y = np.asarray(y, dtype=np.float64)
        # Sort by (bucket, y): the first and last of each run are the argmin and argmax of y.
        # NaN sorts last; a gap stays a gap because its neighbours are kept by start/end.
        keep += _run_ends(np.nan_to_num(y, nan=np.inf), bucket)
        # The largest jump in each bucket and the point before it: a step stays where it is.
        filled = np.nan_to_num(y, nan=0.0)
        jump = np.abs(np.diff(filled, prepend=filled[0]))
        largest = _run_ends(jump, bucket)[1]
        keep += [largest, np.maximum(largest - 1, 0)]
    return np.unique(np.concatenate(keep)).astype(np.int64)


def _run_ends(key: np.ndarray, bucket: np.ndarray) -> list[np.ndarray]:
    """Per bucket (contiguous runs of equal ``bucket``), the first index of the smallest ``key``
    and the last index of the largest (``key`` holds no NaN), in two passes instead of a sort."""
    new_run = np.r_[True, bucket[1:] != bucket[:-1]]
    starts = np.flatnonzero(new_run)
    run = np.cumsum(new_run) - 1
    ends = []
    for extreme, pick_last in ((np.minimum, False), (np.maximum, True)):
        at = np.flatnonzero(key == extreme.reduceat(key, starts)[run])
        runs = run[at]
        change = runs[1:] != runs[:-1]
        ends.append(at[np.r_[change, True] if pick_last else np.r_[True, change]])
    return ends


def legend_number(value: float, digits: int = 3) -> str:
    """A summary number for a legend, never in scientific notation; NaN is 'n/a' (undefined).

    Parameters
    ----------
    value : float
        The number (anything else is shown as ``str(value)``).
    digits : int, default 3
        Decimals shown. From 10,000 on and below ``10**-digits`` the number is written as
        :func:`ranklens._foundation.format.plain_number` writes it, with ``max(digits, 3) + 1``
        significant digits: whole numbers with thousands separators ("12,346"), a word from a
        million on ("8.55 billion"), small numbers written out ("0.0000123").

    Returns
    -------
    str
        The text for the legend.

    Examples
    --------
    >>> [legend_number(v) for v in (8.5496e9, 12345.678, 0.5, 1.23e-5)]
    ['8.55 billion', '12,346', '0.500', '0.0000123']
    """
    try:
        v = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(v):
        return "n/a"
    if v != 0 and (abs(v) >= 10**4 or abs(v) < 10 ** (-digits)):
        # never scientific notation: 8.55 billion, 12,346, 0.0000123
        return plain_number(v, max(digits, 3) + 1)
    return f"{v:.{digits}f}"


def percent_axis(axis: Any) -> None:
    """Show the shares (0 to 1) on a matplotlib axis (``ax.xaxis``) as percentages."""
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(xmax=1.0, decimals=0))


def share_axes(ax: Any, *, y: bool = False) -> None:
    """The x axis of a curve over the share targeted: 0 to 100%; with ``y`` the y axis too (0 to
    just above 100%, so that a curve reaching 1 is not cut)."""
    ax.set_xlim(0, 1)
    percent_axis(ax.xaxis)
    if y:
        ax.set_ylim(0, 1.01)
        percent_axis(ax.yaxis)


def _constructor_options(cls: type[Any]) -> set[str]:
    """Keyword-only options of a display's constructor beyond ``result`` and ``name``."""
    params = inspect.signature(cls.__init__).parameters
    return {p for p, v in params.items() if v.kind is v.KEYWORD_ONLY and p != "name"}


#: Where a point's name may go, in points from it (with its alignment), in order of preference:
#: next to it, then further up or down a column to its right, joined to it by a thin line.
_LABEL_SPOTS = (
    (4, 3, "left", "bottom"),
    (4, -3, "left", "top"),
    (-4, 3, "right", "bottom"),
    (-4, -3, "right", "top"),
    *((24, step * sign, "left", "center") for step in range(10, 130, 10) for sign in (1, -1)),
)


def _text_extent(note: Any, renderer: Any) -> Any:
    """The box of an annotation's text alone (an Annotation's own extent includes its line)."""
    from matplotlib.text import Text

    note.update_positions(renderer)  # where the text goes is worked out only when drawn
    return Text.get_window_extent(note, renderer)


def label_points(ax: Any, points: Sequence[tuple[float, float, str]]) -> list[Any]:
    """Name points on ``ax`` so that no two names overlap, where the figure can be measured.

    Names of points at the same place are joined ("a, b"). Each name takes the first place
    that overlaps no name placed before it: next to its point (right above, right below, left
    above, left below), else further up or down a column to its right, joined to the point by
    a thin line; when every place is taken, the last one is kept. Call it after the axes'
    limits and aspect are set: the places are measured in the figure's pixels.

    Parameters
    ----------
    ax : matplotlib Axes
        Where the points are drawn.
    points : sequence of (x, y, name)
        The points to name, in data coordinates.

    Returns
    -------
    list of matplotlib Annotation
        The names drawn.
    """
    merged: dict[tuple[float, float], list[str]] = {}
    for x, y, name in points:
        merged.setdefault((float(x), float(y)), []).append(str(name))
    get_renderer = getattr(ax.figure.canvas, "get_renderer", None)
    renderer = get_renderer() if get_renderer is not None else None
    if renderer is not None:
        ax.apply_aspect()
    placed: list[Any] = []
    names = []
    for (x, y), models in merged.items():
        for spot, (dx, dy, ha, va) in enumerate(_LABEL_SPOTS):
            leader = {"arrowstyle": "-", "color": "0.6", "linewidth": 0.6} if spot >= 4 else None
            note = ax.annotate(
                ", ".join(models),
                (x, y),
                textcoords="offset points",
                xytext=(dx, dy),
                ha=ha,
                va=va,
                fontsize=7,
                color="0.25",
                arrowprops=leader,
            )
            if renderer is None:
                break
            box = _text_extent(note, renderer)
            last = spot == len(_LABEL_SPOTS) - 1
            if last or not any(box.overlaps(other) for other in placed):
                placed.append(box)
                break
            note.remove()
        names.append(note)
    return names


def place_legend(ax: Any, loc: str) -> Any:
    """Draw ``ax``'s legend at ``loc``, a matplotlib ``loc`` or ``"below"`` (under the axes).

    A legend below the axes keeps curves that fill the axes (profit, lift, the concordance
    profile) readable, but it needs a layout engine that makes room for it: on a figure of
    several axes without one (a user's grid of subplots), it would run into the plot below,
    so there it goes inside the axes, where it hides the fewest points, on a light frame.
    """
    figure = ax.figure
    outside = loc == "below" and (len(figure.axes) == 1 or figure.get_layout_engine() is not None)
    if outside:
        return ax.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.14),
            ncols=2,
            fontsize="small",
            frameon=False,
        )
    if loc == "below":
        return ax.legend(loc="best", fontsize="small", frameon=True, framealpha=0.85)
    return ax.legend(loc=loc, fontsize="small", frameon=False)


class Display:
    """Base class of every display: holds one exact result and draws it, thinned, on an axes.

    Subclasses set ``_compute`` (the library function behind ``from_predictions``) and implement
    ``_draw(ax, name, max_points, **kwargs)``, which returns the artists it made. Baselines shared
    by every model on an axes (the random model, the optimal curve, the budget line) are drawn once
    per axes through :meth:`_once`.

    Parameters
    ----------
    result : Result
        The exact result drawn (kept on ``result``).
    name : str, optional
        The model's name in the legend.

    Attributes
    ----------
    ax_, figure_ : matplotlib Axes and Figure
        Where the display drew, once :meth:`plot` ran.
    lines_ : list
        The artists it made.
    """

    #: The library function computing the result from ``(y_true, y_pred, **kwargs)``; setting it
    #: registers the display as the one that draws that curve (see ``ranklens.metrics``).
    _compute: ClassVar[Any] = None
    xlabel: ClassVar[str] = ""
    ylabel: ClassVar[str] = ""
    title: ClassVar[str] = ""

    def __init__(self, result: Any, *, name: str | None = None) -> None:
        self.result = result
        self.name = name
        self.ax_: Any = None
        self.figure_: Any = None
        self.lines_: list[Any] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_compute" in cls.__dict__ and cls._compute is not None:
            register_display(cls._compute, cls)

    @classmethod
    def _compute_result(cls, *args: Any, **kwargs: Any) -> Any:
        if cls._compute is None:  # pragma: no cover - every concrete display sets it
            raise TypeError(f"{cls.__name__} has no library function to compute its result")
        return cls._compute(*args, **kwargs)

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        ax: Any = None,
        name: str | None = None,
        plot_kwargs: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Compute the result from ``(y_true, y_pred, **kwargs)`` and draw it on ``ax``.

        ``kwargs`` go to the library function; ``plot_kwargs`` to :meth:`plot`.
        """
        result = cls._compute_result(y_true, y_pred, **kwargs)
        return cls(result, name=name).plot(ax=ax, **dict(plot_kwargs or {}))

    @classmethod
    def from_result(
        cls, result: Any, *, ax: Any = None, name: str | None = None, **kwargs: Any
    ) -> Any:
        """Draw a result already computed (no recomputation).

        ``kwargs`` that the display's constructor takes (e.g. ``metrics`` of
        :class:`MetricAgreementDisplay`) go to it, the rest to :meth:`plot`.
        """
        options = _constructor_options(cls)
        init = {k: kwargs.pop(k) for k in list(kwargs) if k in options}
        return cls(result, name=name, **init).plot(ax=ax, **kwargs)

    @classmethod
    def from_results(
        cls, results: Mapping[str, Any], *, ax: Any = None, **plot_kwargs: Any
    ) -> list[Any]:
        """Draw several models' results (``{name: result}``) on one axes; returns the displays."""
        displays = []
        for name, result in results.items():
            display = cls(result, name=name).plot(ax=ax, **plot_kwargs)
            ax = display.ax_
            displays.append(display)
        return displays

    def plot(
        self,
        ax: Any = None,
        *,
        name: str | None = None,
        max_points: int = DEFAULT_MAX_POINTS,
        legend: bool = True,
        **kwargs: Any,
    ) -> Any:
        """Draw on ``ax`` (a new figure when None) and return ``self``.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw; pass the same axes again to overlay another model.
        name : str, optional
            Legend label of this model (defaults to the name given at construction).
        max_points : int
            Vertices per drawn line at most; the exact curve stays on ``self.result``.
        legend : bool
            Whether to (re)draw the legend.
        **kwargs
            Passed to the main ``Axes.plot`` call (``color``, ``linestyle``, ...).
        """
        if ax is None:
            # A layout engine that makes room for a legend below the axes.
            _, ax = _pyplot().subplots(figsize=(6.4, 4.4), layout="constrained")
        label_name = name if name is not None else self.name
        self.lines_ = list(self._draw(ax, label_name, max_points, **kwargs))
        self.ax_, self.figure_ = ax, ax.figure
        if self.xlabel and not ax.get_xlabel():
            ax.set_xlabel(self.xlabel)
        if self.ylabel and not ax.get_ylabel():
            ax.set_ylabel(self.ylabel)
        if self.title and not ax.get_title():
            ax.set_title(self.title)
        if legend and ax.get_legend_handles_labels()[0]:
            place_legend(ax, self._legend_loc)
        return self

    #: Legend position: a matplotlib ``loc`` or ``"below"`` (under the axes, two columns).
    _legend_loc: ClassVar[str] = "best"

    def _draw(self, ax: Any, name: str | None, max_points: int, **kwargs: Any) -> list[Any]:
        raise NotImplementedError

    @staticmethod
    def _once(ax: Any, gid: str, draw: Callable[[], list[Any]]) -> list[Any]:
        """Run ``draw`` unless the axes already has an artist tagged ``gid`` (shared baseline)."""
        for artist in [*ax.lines, *ax.collections, *ax.patches]:
            if artist.get_gid() == gid:
                return []
        artists = draw()
        for artist in artists:
            artist.set_gid(gid)
        return artists

    @staticmethod
    def _line(
        ax: Any,
        x: Any,
        y: Any,
        *,
        max_points: int,
        label: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """One thinned line; returns the Line2D."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        idx = thin_indices(x, y, max_points=max_points)
        (line,) = ax.plot(x[idx], y[idx], label=label, **kwargs)
        return line

    def _model_line(
        self,
        ax: Any,
        x: Any,
        y: Any,
        name: str | None,
        summary: str | None,
        *,
        max_points: int,
        **kwargs: Any,
    ) -> Any:
        """The model's thinned line, labelled ``"name (summary)"`` (:meth:`_label`)."""
        label = self._label(name, summary)
        return self._line(ax, x, y, max_points=max_points, label=label, **kwargs)

    @staticmethod
    def _baseline(ax: Any, x: Any, y: Any, label: str, *, max_points: int, **kwargs: Any) -> Any:
        """A reference curve drawn once per axes (the perfect or optimal model): a thin thinned
        line, dark grey and dotted unless ``kwargs`` say otherwise."""
        style = {"color": "0.3", "linestyle": ":", "linewidth": 1, **kwargs}
        return Display._line(ax, x, y, max_points=max_points, label=label, **style)

    @staticmethod
    def _diagonal(ax: Any, **kwargs: Any) -> Any:
        """The random model of a curve from (0, 0) to (1, 1): the dashed grey diagonal."""
        style = {"color": "0.6", "linestyle": "--", "linewidth": 1, "label": "random", **kwargs}
        return ax.axline((0, 0), slope=1, **style)

    @staticmethod
    def _band(
        ax: Any,
        x: Any,
        lower: Any,
        upper: Any,
        *,
        max_points: int,
        **kwargs: Any,
    ) -> Any:
        """A thinned filled band between ``lower`` and ``upper``."""
        x = np.asarray(x, dtype=np.float64)
        lower = np.asarray(lower, dtype=np.float64)
        upper = np.asarray(upper, dtype=np.float64)
        idx = thin_indices(x, lower, upper, max_points=max_points)
        kwargs.setdefault("alpha", 0.2)
        kwargs.setdefault("linewidth", 0)
        return ax.fill_between(x[idx], lower[idx], upper[idx], **kwargs)

    @staticmethod
    def _label(name: str | None, summary: str | None = None) -> str | None:
        """Legend text: ``"name (summary)"``, just one of them, or None when neither is known."""
        if name and summary:
            return f"{name} ({summary})"
        return name or summary
