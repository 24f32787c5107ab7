"""Exact order statistics on Dask by two-pass selection.

A quantile of a column that does not fit in one place is found exactly in two reads: (1) the
count and weight of the rows in each value bucket (boundaries from a sample; they only balance
the buckets), which tells the bucket that holds the wanted position and the weight below it;
(2) the rows of that one bucket, sorted on the client, where the position is read off. The
selection rule is that of the in-memory functions: the k-th smallest value of the sample with
row i repeated ``w_i`` times is the value of the row whose block ``(C_{i-1}, C_i]`` of cumulative
weight holds k (:func:`ranklens.boxplot_stats`), i.e. the smallest value ``x`` with
``W(x) >= k``, ``W(x)`` the weight of the values ``<= x``; ``W(x) > k`` for the upper weighted
median (:func:`ranklens.median_absolute_error`). Counts are Python integers, so positions are
exact at any n; weights are added per bucket, so integer weights are exact up to 2**53.

References
----------
Floyd, R. W. and Rivest, R. L. (1975). Expected time bounds for selection. *Communications of
the ACM* 18(3), 165-172.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ranklens.dask._passes import bucket_of

#: Value buckets of the selection histogram per sort bucket of the engine: the rows sent to
#: the client in the second read are about n / (buckets * this).
FINER = 16


@dataclasses.dataclass(frozen=True)
class Source:
    """A per-row column to select from: ``y`` itself, or ``values(y, pred)`` of a model.

    ``weighted``: the rows carry the weight column (rows of weight 0 are then absent);
    otherwise every row counts once. ``labels``: ``y`` is a numeric column of segment labels,
    read as pandas reads its missing labels (None, NaN, pandas' NA) and without the rows that
    lack one.
    """

    y: str
    pred: str | None = None
    values: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    weight: str | None = None
    labels: bool = False

    def read(self, part: Any) -> tuple[np.ndarray, np.ndarray | None]:
        if self.labels:
            column = part[self.y]
            present = column[column.notna()]
            return np.ascontiguousarray(present.to_numpy(dtype=np.float64)), None
        yv = np.ascontiguousarray(part[self.y].to_numpy(dtype=np.float64))
        if self.pred is not None and self.values is not None:
            pv = np.ascontiguousarray(part[self.pred].to_numpy(dtype=np.float64))
            with np.errstate(over="ignore"):
                v = np.asarray(self.values(yv, pv), dtype=np.float64)
        else:
            v = yv
        if self.weight is None:
            return v, None
        w = part[self.weight].to_numpy(dtype=np.float64)
        keep = w > 0
        return v[keep], w[keep]

    def sample(self, sample_y: np.ndarray, sample_p: dict[str, np.ndarray]) -> np.ndarray:
        """The column on the engine's row sample (only to place the bucket boundaries)."""
        if self.pred is not None and self.values is not None:
            with np.errstate(all="ignore"):
                out = np.asarray(self.values(sample_y, sample_p[self.pred]), dtype=np.float64)
            return out[np.isfinite(out)]
        return sample_y


@dataclasses.dataclass(frozen=True)
class Target:
    """The smallest value ``x`` of a source with ``W(x) >= position`` (``strict``: ``>``)."""

    source: Source
    position: float
    strict: bool = False


def histogram(part: Any, sources: Sequence[Source], bounds: Sequence[np.ndarray]) -> list[Any]:
    """First read: per source, the row count and weight of every value bucket."""
    out = []
    for source, b in zip(sources, bounds, strict=True):
        v, w = source.read(part)
        idx = bucket_of(v, b)
        size = b.size + 1
        counts = np.bincount(idx, minlength=size).astype(np.int64)
        weights = None if w is None else np.bincount(idx, weights=w, minlength=size)
        out.append((counts, weights))
    return out


def bucket_values(
    part: Any, sources: Sequence[Source], bounds: Sequence[np.ndarray], wanted: Sequence[Any]
) -> list[Any]:
    """Second read: for each ``(source index, bucket)``, the values (and weights) in it."""
    out = []
    cache: dict[int, tuple[np.ndarray, np.ndarray | None, np.ndarray]] = {}
    for s, bucket in wanted:
        if s not in cache:
            v, w = sources[s].read(part)
            cache[s] = (v, w, bucket_of(v, bounds[s]))
        v, w, idx = cache[s]
        mask = idx == bucket
        out.append((v[mask], None if w is None else w[mask]))
    return out


def select(
    dask: Any,
    frame: Any,
    targets: Sequence[Target],
    samples: dict[Source, np.ndarray],
    n_buckets: int,
) -> list[float]:
    """The values of ``targets``, exactly, in two reads of ``frame``.

    Raises
    ------
    ValueError
        When a source has no rows (of positive weight).
    """
    from ranklens.dask._engine import truth_bounds

    sources = list(dict.fromkeys(t.source for t in targets))
    index = {s: i for i, s in enumerate(sources)}
    # a value heavy in the sample (the zeros of a 0/1 column) gets a bucket [v, nextafter(v)) of
    # its own: a position falling there is v, and its rows are never sent to the client
    cuts = [truth_bounds(samples[s], max(1, n_buckets * FINER)) for s in sources]
    bounds = [b for b, _ in cuts]
    single = [{int(b) for b in heavy} for _, heavy in cuts]
    parts = frame.to_delayed()
    hists = dask.compute(*[dask.delayed(histogram)(p, sources, bounds) for p in parts])
    totals = []
    for i, s in enumerate(sources):
        counts = np.sum([h[i][0] for h in hists], axis=0).astype(object)  # Python integers
        if s.weight is None:
            weights = counts
        else:
            per_part = np.array([h[i][1] for h in hists])
            weights = np.array(
                [math.fsum(per_part[:, b]) for b in range(per_part.shape[1])], dtype=np.float64
            )
        if int(counts.sum()) == 0:
            raise ValueError("no rows (of positive weight) to select an order statistic from")
        totals.append((counts, weights))
    plan = []
    for t in targets:
        i = index[t.source]
        counts, weights = totals[i]
        below_and_in = _cumulative(weights)
        hit = [b for b in range(len(below_and_in)) if _reached(below_and_in[b], t)]
        bucket = hit[0] if hit else int(np.flatnonzero(np.asarray(counts) > 0)[-1])
        below = below_and_in[bucket - 1] if bucket > 0 else 0
        known = float(bounds[i][bucket - 1]) if bucket in single[i] else None
        plan.append((i, bucket, below, known))
    wanted = list(dict.fromkeys((i, b) for i, b, _, known in plan if known is None))
    rows: Any = ()
    if wanted:
        rows = dask.compute(
            *[dask.delayed(bucket_values)(p, sources, bounds, wanted) for p in parts]
        )
    out = []
    for t, (i, bucket, below, known) in zip(targets, plan, strict=True):
        if known is not None:
            out.append(known)
            continue
        k = wanted.index((i, bucket))
        v = np.concatenate([r[k][0] for r in rows])
        order = np.argsort(v, kind="stable")
        if t.source.weight is None:
            w = np.ones(v.size, dtype=np.int64)
        else:
            w = np.concatenate([r[k][1] for r in rows])[order]
        # counts: below the bucket a Python integer, inside it int64 (exact)
        cum = int(below) + np.cumsum(w) if t.source.weight is None else float(below) + np.cumsum(w)
        j = int(np.searchsorted(cum, t.position, side="right" if t.strict else "left"))
        j = min(j, v.size - 1)
        out.append(float(v[order][j]))
    return out


def _cumulative(weights: Any) -> list[Any]:
    out: list[Any] = []
    run: Any = 0
    for value in weights:
        run = run + value
        out.append(run)
    return out


def _reached(cum: Any, t: Target) -> bool:
    return bool(cum > t.position) if t.strict else bool(cum >= t.position)


def _y_sample(part: Any, y: str, size: int = 1000) -> tuple[int, np.ndarray]:
    """A partition's row count and up to ``size`` evenly spaced values of ``y`` (they only
    place the selection's bucket boundaries)."""
    values = part[y].to_numpy(dtype=np.float64)
    if values.size <= size:
        return values.size, values
    return values.size, values[np.linspace(0, values.size - 1, size).astype(np.int64)]


def boxplot_relevance(frame: Any, y: str, *, extremes: str, shape: str) -> Any:
    """``ranklens.relevance_from_boxplot(y, extremes=extremes, shape=shape)`` (unweighted, the
    other parameters at their defaults) of a dask DataFrame's column, exactly: the row count and
    a sample in one read, then Tukey's hinges, the median, the minimum and the maximum by
    two-pass selection (:func:`select`), and the in-memory function's own
    construction from them (:func:`ranklens._measures.relevance_functions.relevance_from_limits`).

    Raises
    ------
    ValueError
        When ``y`` is constant (as the in-memory function), or ``extremes`` / ``shape`` is not
        one of its choices.

    References
    ----------
    Tukey, J. W. (1977). *Exploratory Data Analysis*. Addison-Wesley.
    Torgo, L. and Ribeiro, R. P. (2009). Precision and recall for regression. *Discovery
    Science*, LNCS 5808, 332-346.
    """
    import dask

    from ranklens._foundation.hinges import hinge_positions
    from ranklens.dask._engine import ROWS_PER_BUCKET

    if extremes not in ("auto", "both", "high", "low"):
        raise ValueError(f"extremes must be 'auto', 'both', 'high' or 'low'; got {extremes!r}")
    if shape not in ("sigmoid", "pchip"):
        raise ValueError(f"shape must be 'sigmoid' or 'pchip'; got {shape!r}")
    parts = dask.compute(*[dask.delayed(_y_sample)(p, y) for p in frame[[y]].to_delayed()])
    n = sum(p[0] for p in parts)
    if n < 2:
        raise ValueError(f"y: need at least 2 rows for a box plot; got {n}")
    source = Source(y)
    positions = [*map(float, hinge_positions(float(n))), 0.0, math.inf]
    strict = [False] * 6 + [True, False]  # the minimum: the first value with W(x) > 0
    targets = [Target(source, k, s) for k, s in zip(positions, strict, strict=True)]
    sample = np.concatenate([p[1] for p in parts])
    found = select(
        dask, frame[[y]], targets, {source: sample}, max(1, math.ceil(n / ROWS_PER_BUCKET))
    )
    return relevance_at_hinges(n, found, extremes=extremes, shape=shape)


def relevance_at_hinges(
    n: int, values: Sequence[float], *, extremes: str = "auto", shape: str = "sigmoid"
) -> Any:
    """``ranklens.relevance_from_boxplot`` (unweighted, ``extremes`` and ``shape`` as given, the
    other parameters at their defaults) of ``n`` rows from the values of ``y`` at the hinge
    positions (:func:`ranklens._foundation.hinges.hinge_positions` of ``n``) followed by its minimum
    and maximum: the in-memory function's own construction
    (:func:`ranklens._measures.relevance_functions.relevance_from_limits`). The defaults are those
    of the relevance :func:`ranklens.evaluate_models` builds.

    Raises
    ------
    DomainError
        When the minimum equals the maximum (``y`` is constant).
    """
    from ranklens._foundation.hinges import hinges_of
    from ranklens._measures.relevance_functions import relevance_from_limits
    from ranklens.exceptions import DomainError

    q1, med, q3 = hinges_of(values[:6])
    y_min, y_max = float(values[6]), float(values[7])
    if y_min == y_max:
        raise DomainError(
            f"y is constant ({y_min!r}); no box-plot relevance can be derived from it"
        )
    iqr = q3 - q1
    lower, upper = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    return relevance_from_limits(
        n,
        float(med),
        iqr,
        (lower, upper),
        (lower, upper),
        (y_min < lower, y_max > upper),
        extremes=extremes,
        adjusted=False,
        shape=shape,
        k=0.5,
        delta=1e-4,
        fallback="fences",
    )
