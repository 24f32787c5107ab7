"""Exact summaries of the rows for the report's regression plots on Dask.

The in-memory report draws three plots from every row (``extras["y_true"]`` and
``extras["predictions"]``; :mod:`ranklens.report.diagnostics`): calibration by decile of
prediction, the histogram of the residuals and predicted against actual. The Dask engine holds
no rows on the client; it computes the small summaries those plots draw, exactly, in three reads
of the truth and prediction columns, the first done in the same ``dask.compute`` as the engine's
grid pass, which then reads each partition once for both (never the weight: the in-memory plots
are unweighted, so rows of weight 0 count as well):

1. and 2. one two-pass selection (:mod:`ranklens.dask._quantiles`; Floyd & Rivest 1975) of every
   order statistic needed at once: per model the prediction at the first position of each of
   the ten calibration groups, its minimum and maximum, the two middle residuals; the median,
   minimum and maximum of ``y``; the two order statistics of all models' residuals pooled
   around their 0.5 % and 99.5 % quantiles (and their minimum and maximum);
3. one pass over the rows with those values fixed: per model and calibration group the count,
   the sums of the prediction and of ``y`` and the sum of squared deviations of ``y`` from the
   partition's group mean; the residual histogram; the density grid of (prediction, ``y``);
   and up to three distinct values of ``y`` (whether it is a 0/1-like target).

The calibration groups are those of ``np.array_split(np.argsort(p, kind="stable"), 10)``: the
rows in increasing prediction, ties in input order, cut into ten groups of equal count. Group
``g`` starts at sorted position ``Q_g``; the prediction there, ``v_g``, is an order statistic.
A row whose prediction equals no ``v_g`` is in the group ``#{g: v_g < p}``; the rows tied at a
``v_g`` hold the sorted positions ``L .. L + t - 1`` in input order (``L`` the rows with a
smaller prediction, ``t`` the tie run's length), which the selection's second read tells per
partition: the ``o``-th tied row of partition ``i`` is at ``L + T_i + o`` (``T_i`` the tied rows
of the partitions before ``i``), in the group ``#{g: Q_g <= position}``.

Group variances are merged across partitions by the parallel formula of Chan, Golub & LeVeque
(1979): ``M2 = M2_a + M2_b + (mean_b - mean_a)^2 n_a n_b / (n_a + n_b)``, never by a difference
of sums of squares. The quantiles interpolate as ``np.quantile``'s default (Hyndman & Fan 1996,
definition 7), with NumPy's own rounding of the interpolation.

References
----------
Floyd, R. W. and Rivest, R. L. (1975). Expected time bounds for selection. *Communications of
the ACM* 18(3), 165-172.
Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979). Updating formulae and a pairwise algorithm
for computing sample variances. Technical report STAN-CS-79-773, Stanford University.
Hyndman, R. J. and Fan, Y. (1996). Sample quantiles in statistical packages. *The American
Statistician* 50(4), 361-365.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.results import Result
from ranklens.dask._passes import bucket_of
from ranklens.dask._quantiles import FINER

__all__ = ["RowPlots", "RowSummary"]

#: The calibration groups, the residual histogram's bins and the density grid's bins per axis
#: (those of the in-memory plots: ``np.array_split(..., 10)``, ``np.linspace(low, high, 41)``,
#: and a hexbin of ``gridsize=40``).
N_GROUPS = 10
N_RESIDUAL_BINS = 40
N_GRID = 40
#: The pooled residuals' quantiles between which the histogram is drawn.
RESIDUAL_RANGE = (0.005, 0.995)
#: y is long-tailed (log axes) when every value is positive and its maximum exceeds this many
#: times its median (the in-memory rule).
LONG_TAIL = 20.0


@dataclasses.dataclass(frozen=True, repr=False)
class RowSummary(Result):
    """What the report's regression plots draw for one model, computed without the rows.

    Attributes
    ----------
    n : int
        Rows (every row, whatever its weight).
    group_count : numpy.ndarray of int64
        Rows of each calibration group (at most ten groups of equal count by prediction rank).
    mean_predicted, mean_true : numpy.ndarray
        Each group's mean prediction and mean ``y``.
    m2_true : numpy.ndarray
        Each group's sum of squared deviations of ``y`` from its mean.
    std_error : numpy.ndarray
        ``sqrt(m2_true / (count - 1)) / sqrt(count)``, the standard error of each group's mean
        ``y`` (NaN for a group of one row).
    residual_edges : numpy.ndarray
        41 edges from the 0.5 % to the 99.5 % quantile of every model's residuals pooled.
    residual_counts : numpy.ndarray of int64
        Residuals ``y - p`` (finite ones) in each of the 40 bins, values outside the edges
        counted in the end bins.
    median_residual : float
        The median residual (NumPy's: the mean of the two middle ones for an even count).
    pred_min, pred_max, y_min, y_max, y_median : float
        The prediction's and ``y``'s range and ``y``'s median.
    log_axes : bool
        Every value of ``y`` and of every model's prediction is positive and ``max y > 20
        median y``: the density is drawn on log axes, its bins evenly spaced in the logarithm.
    x_edges, y_edges : numpy.ndarray
        The density grid's 41 edges along the prediction and along ``y``.
    density : numpy.ndarray of int64
        Rows in each (prediction bin, ``y`` bin) cell, shape ``(40, 40)``.
    y_values : tuple of float
        Up to three distinct values of ``y``: two or fewer mean a two-valued target.
    """

    n: int
    group_count: np.ndarray
    mean_predicted: np.ndarray
    mean_true: np.ndarray
    m2_true: np.ndarray
    std_error: np.ndarray
    residual_edges: np.ndarray
    residual_counts: np.ndarray
    median_residual: float
    pred_min: float
    pred_max: float
    y_min: float
    y_max: float
    y_median: float
    log_axes: bool
    x_edges: np.ndarray
    y_edges: np.ndarray
    density: np.ndarray
    y_values: tuple[float, ...]


def _finite_residuals(yv: np.ndarray, pv: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        r = yv - pv
    return r[np.isfinite(r)]


def _columns(part: Any, y: str, preds: Sequence[str]) -> list[np.ndarray]:
    """The columns of the selection's sources: ``y``, each prediction, each model's finite
    residuals."""
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    pv = [np.ascontiguousarray(part[c].to_numpy(dtype=np.float64)) for c in preds]
    return [yv, *pv, *(_finite_residuals(yv, p) for p in pv)]


def first_read(
    part: Any, y: str, preds: Sequence[str], bounds: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """The selection's first read, one partition: the rows of every value bucket of every
    source (``y``, each prediction, each model's residuals on the pooled residuals' buckets).

    Bucket ``k`` holds ``bounds[k-1] <= v < bounds[k]`` (:func:`ranklens.dask._passes.
    bucket_of`); counted from the sorted values (NumPy's vectorised sort is several times
    faster than a binary search of every value among thousands of bounds).
    """
    out = []
    for v, b in zip(_columns(part, y, preds), bounds, strict=True):
        ends = np.searchsorted(np.sort(v), b, side="left")
        out.append(np.diff(np.r_[0, ends, v.size]).astype(np.int64))
    return out


def second_read(
    part: Any,
    y: str,
    preds: Sequence[str],
    bounds: Sequence[np.ndarray],
    wanted: Sequence[tuple[int, int, bool]],
) -> list[Any]:
    """The selection's second read, one partition: for each ``(source, bucket, single)`` the
    values in the bucket, or, for a bucket of one value (``single``), their count."""
    columns = _columns(part, y, preds)
    out: list[Any] = []
    for source, bucket, single in wanted:
        v, b = columns[source], bounds[source]
        inside = np.ones(v.size, dtype=bool)
        if bucket > 0:
            inside &= v >= b[bucket - 1]
        if bucket < b.size:
            inside &= v < b[bucket]
        out.append(int(np.count_nonzero(inside)) if single else v[inside])
    return out


@dataclasses.dataclass
class _Selection:
    """Order statistics of the sources (two reads), and what the second read tells per
    partition about the rows tied with a value."""

    bounds: list[np.ndarray]
    single: list[set[int]]
    totals: list[np.ndarray]  # per source: rows per bucket, Python integers
    wanted: list[tuple[int, int, bool]]
    rows: Sequence[Any]  # per partition: per wanted entry, the values or the count

    def _parts(self, source: int, bucket: int) -> list[Any]:
        k = self.wanted.index((source, bucket, bucket in self.single[source]))
        return [r[k] for r in self.rows]

    def value(self, sources: Sequence[int], bucket: int, at: int) -> float:
        """The value at 0-based position ``at`` among the rows of ``bucket`` of ``sources``."""
        if bucket in self.single[sources[0]]:
            return float(self.bounds[sources[0]][bucket - 1])
        v = np.sort(np.concatenate([x for s in sources for x in self._parts(s, bucket)]))
        return float(v[min(max(at, 0), v.size - 1)])

    def ties(self, source: int, v: float) -> tuple[int, np.ndarray]:
        """Rows of ``source`` below ``v`` (all partitions), and per partition the rows equal to
        ``v``."""
        bucket = int(bucket_of(np.array([v]), self.bounds[source])[0])
        below = int(sum(self.totals[source][:bucket]))
        parts = self._parts(source, bucket)
        if bucket in self.single[source]:
            return below, np.array(parts, dtype=np.int64)
        below += sum(int(np.count_nonzero(x < v)) for x in parts)
        return below, np.array([np.count_nonzero(x == v) for x in parts], dtype=np.int64)


def _locate(totals: np.ndarray, k: float) -> tuple[int, int]:
    """The bucket holding the ``k``-th smallest row (1-based; 0 the minimum, ``inf`` the
    maximum) and the rows below it (the rule of :func:`ranklens.dask._quantiles.select`)."""
    cum = np.cumsum(totals)
    hit = [b for b in range(len(cum)) if (cum[b] > k if k == 0 else cum[b] >= k)]
    bucket = hit[0] if hit else int(np.flatnonzero(np.asarray(totals) > 0)[-1])
    return bucket, int(cum[bucket - 1]) if bucket > 0 else 0


def _lerp(a: float, b: float, t: float) -> float:
    """``numpy``'s linear interpolation of quantiles (``a + (b - a) t``, from ``b`` for
    ``t >= 0.5``), to the bit."""
    a64, b64, t64 = np.float64(a), np.float64(b), np.float64(t)
    diff = b64 - a64
    return float(b64 - diff * (1 - t64)) if t64 >= 0.5 else float(a64 + diff * t64)


def _quantile_positions(n: int, q: float) -> tuple[int, int, float]:
    """0-based order statistics and weight of ``np.quantile(x, q)`` (linear) on ``n`` values."""
    h = float(np.float64(n - 1) * np.float64(q))
    if h >= n - 1:
        return n - 1, n - 1, 0.0
    lo = math.floor(h)
    return lo, lo + 1, h - lo


def _median_positions(n: int) -> tuple[int, int]:
    return (n - 1) // 2, n // 2


def _median(a: float, b: float) -> float:
    """``np.median`` of two middle values (their mean, as NumPy computes it)."""
    return a if a == b else float(np.mean(np.array([a, b])))


def _group_starts(n: int) -> np.ndarray:
    """Sorted positions where calibration groups 1, 2, ... start (``np.array_split``)."""
    k = min(N_GROUPS, max(1, n))
    sizes = np.full(k, n // k, dtype=np.int64)
    sizes[: n % k] += 1
    return np.cumsum(sizes)[:-1]


def _edges(lo: float, hi: float, log: bool) -> np.ndarray:
    """41 bin edges over ``[lo, hi]`` (evenly spaced in the logarithm with ``log``)."""
    if not hi > lo:
        lo, hi = (lo / 2.0, hi * 2.0) if log else (lo - 0.5, hi + 0.5)
    return np.geomspace(lo, hi, N_GRID + 1) if log else np.linspace(lo, hi, N_GRID + 1)


def _bin_index(v: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of every value of ``v`` (all within ``[edges[0], edges[-1]]``), as
    ``np.histogram2d`` bins it: ``edges[i] <= v < edges[i + 1]``, the last bin closed (a binary
    search of the edges, as ``np.histogramdd`` does)."""
    index = np.searchsorted(edges, v, side="right") - 1
    return np.clip(index, 0, edges.size - 2).astype(np.int64)


def _few_values(yv: np.ndarray, at_most: int = 3) -> list[float]:
    out: list[float] = []
    rest = yv
    while rest.size and len(out) < at_most:
        out.append(float(rest[0]))
        rest = rest[rest != rest[0]]
    return out


def final_pass(
    part: Any,
    y: str,
    preds: Sequence[str],
    calibration: Sequence[dict[str, Any]],
    residual_edges: np.ndarray,
    grids: Sequence[tuple[np.ndarray, np.ndarray]],
    log: bool = False,
) -> dict[str, Any]:
    """The third read, one partition: per model the calibration groups' sums, the residual
    histogram and the density grid; up to three distinct values of ``y``.

    ``calibration[k]``: ``"values"`` the predictions at the groups' first positions (sorted),
    ``"starts"`` those positions, ``"ties"`` for each of those values ``(rows below it, rows
    tied with it in the partitions before this one)``. ``grids[k]``: the density's edges along
    the prediction and along ``y`` (the same ``y`` edges for every model; evenly spaced in the
    logarithm with ``log``); a cell counts as ``np.histogram2d`` counts.
    """
    yv = np.ascontiguousarray(part[y].to_numpy(dtype=np.float64))
    low, high = float(residual_edges[0]), float(residual_edges[-1])
    y_bins = _bin_index(yv, grids[0][1]) if grids else np.zeros(0, np.int64)
    models = []
    for pred, cal, (x_edges, y_edges) in zip(preds, calibration, grids, strict=True):
        pv = np.ascontiguousarray(part[pred].to_numpy(dtype=np.float64))
        values, starts = cal["values"], cal["starts"]
        group = np.zeros(pv.size, dtype=np.int64)  # #{g: v_g < p}
        for v in values.tolist():
            group += pv > v
        for v, (below, before) in cal["ties"].items():
            tied = np.flatnonzero(pv == v)
            position = below + before + np.arange(tied.size, dtype=np.int64)
            group[tied] = np.searchsorted(starts, position, side="right")
        n_groups = starts.size + 1
        order = np.argsort(group.astype(np.uint8), kind="stable")
        sizes = np.bincount(group, minlength=n_groups).astype(np.int64)
        cuts = np.r_[0, np.cumsum(sizes)]
        ys, ps = yv[order], pv[order]
        sum_p, sum_y, m2 = np.zeros(n_groups), np.zeros(n_groups), np.zeros(n_groups)
        for g in range(n_groups):
            if sizes[g]:
                yg = ys[cuts[g] : cuts[g + 1]]
                sum_p[g] = ps[cuts[g] : cuts[g + 1]].sum()
                sum_y[g] = yg.sum()
                m2[g] = float(np.sum((yg - sum_y[g] / sizes[g]) ** 2))
        r = _finite_residuals(yv, pv)
        counts = np.histogram(np.clip(r, low, high), bins=residual_edges)[0].astype(np.int64)
        cell = _bin_index(pv, x_edges) * (y_edges.size - 1) + y_bins
        shape = (x_edges.size - 1, y_edges.size - 1)
        density = np.bincount(cell, minlength=shape[0] * shape[1]).reshape(shape)
        models.append(
            {
                "count": sizes,
                "sum_p": sum_p,
                "sum_y": sum_y,
                "m2": m2,
                "residuals": counts,
                "density": density,
            }
        )
    return {"models": models, "y_values": _few_values(yv)}


def _merge_groups(parts: Sequence[dict[str, Any]]) -> tuple[np.ndarray, ...]:
    """Counts, means of p and y, and M2 of y per group over the partitions (Chan et al. 1979)."""
    count = np.sum([p["count"] for p in parts], axis=0).astype(np.int64)
    n_groups = count.size
    mean_p = np.array([math.fsum(p["sum_p"][g] for p in parts) for g in range(n_groups)])
    mean_y = np.array([math.fsum(p["sum_y"][g] for p in parts) for g in range(n_groups)])
    m2 = np.zeros(n_groups)
    for g in range(n_groups):
        n_a, mean_a, m2_a = 0, 0.0, 0.0
        for p in parts:
            n_b = int(p["count"][g])
            if not n_b:
                continue
            mean_b = float(p["sum_y"][g]) / n_b
            n_ab = n_a + n_b
            delta = mean_b - mean_a
            m2_a = m2_a + float(p["m2"][g]) + delta * delta * n_a * n_b / n_ab
            mean_a = mean_a + delta * n_b / n_ab
            n_a = n_ab
        m2[g] = m2_a
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = mean_p / count
        mean_y = mean_y / count
    return count, mean_p, mean_y, m2


class RowPlots:
    """The exact summaries the report's regression plots draw, in three reads (see the module).

    The first read (:meth:`first_read_tasks`, bucket counts) can run in the same
    ``dask.compute`` as another pass over the same partitions, which then reads them once;
    :meth:`finish` makes the other two (the rows of the buckets holding the order statistics,
    then the counts of :func:`final_pass`).

    Parameters
    ----------
    y : str
        The truth column.
    preds : sequence of str
        The prediction columns, one per model.
    n : int
        The rows.
    sample_y : numpy.ndarray
        A sample of ``y`` (only to place the selection's bucket boundaries; the results do not
        depend on it).
    sample_p : sequence of numpy.ndarray
        A sample of each model's prediction, on the same rows as ``sample_y``.
    n_buckets : int
        The engine's value buckets per sort (the selection uses 16 times as many).

    Notes
    -----
    Read 1 buckets every row's ``y``, predictions and residuals (``O(n (2k + 1) log B)`` for
    ``k`` models and ``B`` buckets) and returns the counts; read 2 returns the rows of the
    buckets holding the ``15 k + 8`` order statistics sought (about ``n / (16 n_buckets)``
    rows each, some sharing a bucket; of a bucket of one value only its count); read 3
    (:func:`final_pass`) returns a few hundred numbers per model. Nothing else reaches the
    client.

    References
    ----------
    Floyd, R. W. and Rivest, R. L. (1975). Expected time bounds for selection. *Communications
    of the ACM* 18(3), 165-172.
    Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979). Updating formulae and a pairwise
    algorithm for computing sample variances. Technical report STAN-CS-79-773, Stanford
    University.
    """

    def __init__(
        self,
        y: str,
        preds: Sequence[str],
        n: int,
        sample_y: np.ndarray,
        sample_p: Sequence[np.ndarray],
        n_buckets: int,
    ) -> None:
        from ranklens.dask._engine import truth_bounds

        self.y, self.preds, self.n = y, list(preds), int(n)
        sample_y = np.asarray(sample_y, dtype=np.float64)
        sample_p = [np.asarray(p, dtype=np.float64) for p in sample_p]
        pooled = np.concatenate([_finite_residuals(sample_y, p) for p in sample_p])
        size = max(1, n_buckets * FINER)
        cuts = [truth_bounds(x, size) for x in (sample_y, *sample_p)]
        cut_r = truth_bounds(pooled, size)
        cuts += [cut_r] * len(self.preds)  # every model's residuals on the pooled buckets
        self.bounds = [b for b, _ in cuts]
        self.single = [{int(b) for b in heavy} for _, heavy in cuts]

    def first_read_tasks(self, dask: Any, frame: Any) -> list[Any]:
        """The first read of every partition of ``frame`` (any frame with the columns: only
        the totals are used), as delayed tasks to compute."""
        return [
            dask.delayed(first_read)(part, self.y, self.preds, self.bounds)
            for part in frame.to_delayed()
        ]

    def finish(self, dask: Any, frame: Any, first: Sequence[Any]) -> dict[str, RowSummary]:
        """Per model, its :class:`RowSummary`, from the first read's results and two reads of
        ``frame`` (its partitions are those of both reads: the ties are counted per partition).

        Raises
        ------
        ValueError
            When no residual is finite (``y - p`` overflows on every row).
        """
        m = len(self.preds)
        totals = [
            np.sum([f[i] for f in first], axis=0).astype(object) for i in range(len(self.bounds))
        ]
        pooled = np.sum(totals[1 + m :], axis=0)
        residuals = [int(t.sum()) for t in totals[1 + m :]]
        if int(pooled.sum()) == 0:
            raise ValueError("no finite residual y - p to draw")
        starts = _group_starts(self.n)
        # (sources, 1-based position); an order statistic of the pooled residuals reads the
        # bucket of every model's residuals
        y_src, p_src, r_src = [0], [[1 + k] for k in range(m)], list(range(1 + m, 1 + 2 * m))
        lo_y, hi_y = _median_positions(self.n)
        q_lo = _quantile_positions(int(pooled.sum()), RESIDUAL_RANGE[0])
        q_hi = _quantile_positions(int(pooled.sum()), RESIDUAL_RANGE[1])
        targets: list[tuple[list[int], Any, float]] = [
            (y_src, totals[0], k) for k in (0.0, math.inf, lo_y + 1.0, hi_y + 1.0)
        ]
        for k in range(m):
            targets += [
                (p_src[k], totals[1 + k], float(x))
                for x in (0.0, math.inf, *(float(s) + 1.0 for s in starts))
            ]
        targets += [
            (r_src, pooled, float(x))
            for x in (0.0, math.inf, *(i + 1.0 for i in (q_lo[0], q_lo[1], q_hi[0], q_hi[1])))
        ]
        for k in range(m):
            a, b = _median_positions(residuals[k])
            targets += [([1 + m + k], totals[1 + m + k], float(x)) for x in (a + 1.0, b + 1.0)]
        located = [(srcs, *_locate(tot, k), k) for srcs, tot, k in targets]
        wanted = list(
            dict.fromkeys(
                (s, bucket, bucket in self.single[s])
                for srcs, bucket, _, _ in located
                for s in srcs
            )
        )
        parts = frame.to_delayed()
        rows = dask.compute(
            *[dask.delayed(second_read)(p, self.y, self.preds, self.bounds, wanted) for p in parts]
        )
        selection = _Selection(self.bounds, self.single, totals, wanted, rows)
        found = []
        for srcs, bucket, below, position in located:
            if math.isinf(position):  # the maximum: the bucket's last row
                at = int(sum(totals[s][bucket] for s in srcs)) - 1
            else:
                at = 0 if position == 0 else int(position) - below - 1
            found.append(selection.value(srcs, bucket, at))
        y_min, y_max, y_a, y_b = found[:4]
        y_median = _median(y_a, y_b)
        each = 2 + starts.size  # per model: minimum, maximum, the groups' first positions
        per_model = [found[4 + each * k : 4 + each * (k + 1)] for k in range(m)]
        r = found[4 + each * m : 10 + each * m]
        medians = [_median(*found[10 + each * m + 2 * k : 12 + each * m + 2 * k]) for k in range(m)]
        low = _lerp(r[2], r[3], q_lo[2])
        high = _lerp(r[4], r[5], q_hi[2])
        if not high > low:
            low, high = r[0] - 0.5, r[1] + 0.5
        residual_edges = np.linspace(low, high, N_RESIDUAL_BINS + 1)
        p_range = [(f[0], f[1]) for f in per_model]
        smallest = min(y_min, *(lo for lo, _ in p_range))
        log_axes = bool(smallest > 0 and y_max > LONG_TAIL * y_median)
        y_edges = _edges(y_min, y_max, log_axes)
        grids = [(_edges(lo, hi, log_axes), y_edges) for lo, hi in p_range]

        calibration = []
        for k in range(m):
            boundary = np.array(per_model[k][2:], dtype=np.float64)
            ties: dict[float, tuple[int, np.ndarray]] = {}
            for v in dict.fromkeys(boundary.tolist()):
                below, per_part = selection.ties(1 + k, v)
                ties[v] = (below, np.r_[0, np.cumsum(per_part)[:-1]])
            calibration.append((boundary, ties))
        outs = dask.compute(
            *[
                dask.delayed(final_pass)(
                    part,
                    self.y,
                    self.preds,
                    [
                        {
                            "values": boundary,
                            "starts": starts,
                            "ties": {v: (b, int(t[i])) for v, (b, t) in ties.items()},
                        }
                        for boundary, ties in calibration
                    ],
                    residual_edges,
                    grids,
                    log_axes,
                )
                for i, part in enumerate(parts)
            ]
        )
        y_values = tuple(sorted({v for o in outs for v in o["y_values"]}))[:3]
        result = {}
        for k, model in enumerate(self.preds):
            pieces = [o["models"][k] for o in outs]
            count, mean_p, mean_y, m2 = _merge_groups(pieces)
            with np.errstate(invalid="ignore", divide="ignore"):
                se = np.where(count > 1, np.sqrt(m2 / (count - 1)) / np.sqrt(count), np.nan)
            result[model] = RowSummary(
                n=self.n,
                group_count=count,
                mean_predicted=mean_p,
                mean_true=mean_y,
                m2_true=m2,
                std_error=se,
                residual_edges=residual_edges,
                residual_counts=np.sum([p["residuals"] for p in pieces], axis=0).astype(np.int64),
                median_residual=medians[k],
                pred_min=p_range[k][0],
                pred_max=p_range[k][1],
                y_min=y_min,
                y_max=y_max,
                y_median=y_median,
                log_axes=log_axes,
                x_edges=grids[k][0],
                y_edges=y_edges,
                density=np.sum([p["density"] for p in pieces], axis=0).astype(np.int64),
                y_values=y_values,
            )
        return result
