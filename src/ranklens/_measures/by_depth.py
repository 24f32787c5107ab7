"""Which model wins at each targeting depth, from each model's curve vertices.

:func:`ranklens.best_model_by_depth` reads every model's gain, lift or profit curve; the Dask
engine, which holds each model's ranked cumulative sums already, reads the gain or lift from
them (:func:`by_depth_from_ranked`). Both name the winners and locate their crossings here
(:func:`by_depth`), so the two give the same result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ranklens._foundation.results import Result
from ranklens._foundation.validation import as_1d_float
from ranklens._measures.ranked import Ranked, gain_or_undefined

__all__ = ["ModelByDepthResult", "by_depth", "by_depth_from_ranked", "check_depths"]

FloatArray = NDArray[np.float64]


_DEFAULT_DEPTHS = np.arange(1, 101) / 100.0


@dataclasses.dataclass(frozen=True, repr=False)
class ModelByDepthResult(Result):
    """Which model wins at each targeting depth (:func:`best_model_by_depth`).

    Attributes
    ----------
    curve : str
        The curve compared (``"gain"``, ``"lift"`` or ``"profit"``).
    depths : ndarray
        Fractions targeted at which the models are compared.
    model_names : tuple of str
        The models, in the order given.
    values : ndarray of shape (n_models, n_depths)
        Each model's curve at each depth (expected values inside ties).
    winner : ndarray of str
        The best model at each depth (on a tie the previous winner stays, else the first listed);
        empty strings when the curves are undefined (no events, with a warning).
    crossing_depths : ndarray
        Where the winner changes, located exactly between the two grid depths around the change.
    crossing_from, crossing_to : ndarray of str
        The models before and after each crossing.
    segments : tuple of (str, float, float)
        ``(model, from_depth, to_depth)`` runs: e.g. ``(("tree", 0.01, 0.25), ("nb", 0.25, 1.0))``.
    event_definition : str
        How events were defined.
    """

    curve: str
    depths: FloatArray
    model_names: tuple[str, ...]
    values: FloatArray
    winner: NDArray[np.str_]
    crossing_depths: FloatArray
    crossing_from: NDArray[np.str_]
    crossing_to: NDArray[np.str_]
    segments: tuple[tuple[str, float, float], ...]
    event_definition: str


def check_depths(depths: Any) -> FloatArray:
    """The depths compared: strictly increasing fractions in (0, 1].

    Parameters
    ----------
    depths : array-like or None
        The depths given; None for 0.01, 0.02, ..., 1.

    Returns
    -------
    ndarray of float64
        The depths.

    Raises
    ------
    ValueError
        If a depth is outside (0, 1] or they do not increase strictly.
    """
    if depths is None:
        return _DEFAULT_DEPTHS.copy()
    d = as_1d_float(depths, "depths")
    if (d <= 0).any() or (d > 1).any():
        raise ValueError(f"depths must lie in (0, 1]; got values in [{d.min()!r}, {d.max()!r}]")
    if (np.diff(d) <= 0).any():
        raise ValueError("depths must be strictly increasing")
    return d


def _crossing(
    xa: FloatArray, fa: FloatArray, xb: FloatArray, fb: FloatArray, lo: float, hi: float
) -> float:
    """Last point in [lo, hi] where f_b - f_a turns from <= 0 to > 0 (both piecewise linear)."""
    inner = np.concatenate((xa[(xa > lo) & (xa < hi)], xb[(xb > lo) & (xb < hi)]))
    grid = np.unique(np.concatenate(([lo, hi], inner)))
    diff = np.interp(grid, xb, fb) - np.interp(grid, xa, fa)
    below = np.flatnonzero(diff <= 0)
    if below.shape[0] == 0:  # pragma: no cover - the caller guarantees diff(lo) <= 0
        return lo
    k = int(below[-1])
    if k == grid.shape[0] - 1 or diff[k] == 0.0:
        return float(grid[k])
    d0, d1 = diff[k], diff[k + 1]
    return float(grid[k] + (grid[k + 1] - grid[k]) * (-d0) / (d1 - d0))


def by_depth_from_ranked(
    ranked: Mapping[str, Ranked], curve: str = "lift", depths: Sequence[float] | None = None
) -> ModelByDepthResult:
    """:func:`ranklens.best_model_by_depth` of the gain or lift from each model's ranked
    cumulative sums.

    Parameters
    ----------
    ranked : mapping of str to Ranked
        Each model's cumulative sums (one target), in the order the models are listed.
    curve : {"lift", "gain"}, default "lift"
        The curve compared.
    depths : sequence of float, optional
        As :func:`check_depths`.

    Returns
    -------
    ModelByDepthResult
        The winners and their crossings.
    """
    if curve not in ("gain", "lift"):
        raise ValueError(f"curve must be 'gain' or 'lift' here; got {curve!r}")
    vertices = [(r.fraction, gain_or_undefined(r, f"{curve} curve")) for r in ranked.values()]
    definition = next(iter(ranked.values())).target.definition
    names = tuple(str(name) for name in ranked)
    return by_depth(curve, check_depths(depths), names, vertices, definition)


def by_depth(
    curve: str,
    d: FloatArray,
    names: tuple[str, ...],
    vertices: list[tuple[FloatArray, FloatArray]],
    definition: str,
) -> ModelByDepthResult:
    """The winners by depth and their crossings from each model's vertices (x, f).

    Parameters
    ----------
    curve : str
        The curve compared (``"lift"`` divides the interpolated gain by the depth).
    d : ndarray of float64
        The depths (:func:`check_depths`).
    names : tuple of str
        The models.
    vertices : list of (ndarray, ndarray)
        Each model's curve vertices: the fractions targeted and the gain or profit there (NaN
        where undefined, already warned about).
    definition : str
        How events were defined.

    Returns
    -------
    ModelByDepthResult
        The winners and their crossings.
    """
    linear = np.vstack([np.interp(d, x, f) for x, f in vertices])
    values = linear / d if curve == "lift" else linear
    winner_idx = np.empty(d.shape[0], dtype=np.int64)
    crossings: list[tuple[float, int, int]] = []
    if np.isnan(linear).any():  # no events (already warned): no model can win
        return ModelByDepthResult(
            curve=curve,
            depths=d,
            model_names=names,
            values=values,
            winner=np.full(d.shape[0], "", dtype=np.str_),
            crossing_depths=np.empty(0),
            crossing_from=np.empty(0, dtype=np.str_),
            crossing_to=np.empty(0, dtype=np.str_),
            segments=(),
            event_definition=definition,
        )
    for j in range(d.shape[0]):
        column = linear[:, j]
        best = float(np.max(column))
        tol = 1e-12 * max(1.0, abs(best))
        tied = np.flatnonzero(column >= best - tol)
        prev = int(winner_idx[j - 1]) if j > 0 else -1
        winner_idx[j] = prev if prev in tied else int(tied[0])
        if j > 0 and winner_idx[j] != prev:
            a, b = prev, int(winner_idx[j])
            at = _crossing(*vertices[a], *vertices[b], float(d[j - 1]), float(d[j]))
            crossings.append((at, a, b))
    segments = []
    start = float(d[0])
    current = int(winner_idx[0])
    for at, _, b in crossings:
        segments.append((names[current], start, at))
        start, current = at, b
    segments.append((names[current], start, float(d[-1])))
    name_arr = np.array(names)
    return ModelByDepthResult(
        curve=curve,
        depths=d,
        model_names=names,
        values=values,
        winner=name_arr[winner_idx],
        crossing_depths=np.array([c[0] for c in crossings], dtype=np.float64),
        crossing_from=name_arr[np.array([c[1] for c in crossings], dtype=np.int64)],
        crossing_to=name_arr[np.array([c[2] for c in crossings], dtype=np.int64)],
        segments=tuple(segments),
        event_definition=definition,
    )
