"""The work of the passes by segment inside one partition: plain NumPy, every summary keyed by
segment.

A row belongs to one segment of each slicing. Slicing 0 is every row (its one segment, code 0,
gives the values on all the rows); slicings ``1..m`` are the columns of labels, each row's code
an index into the column's segments (fixed on the client from the distinct labels, the missing
label last); with ``cross`` slicing ``m + 1`` is their cross product, each row's code the
mixed-radix number of its codes (renumbered on the client, in the order of the combinations
present). A summary's key is ``(slicing, code)``; a partition returns the keys of the segments
it holds, so a segment absent from a partition is simply absent from its summary.

The summaries are those of the unsegmented passes (:mod:`ranklens.dask._passes`) with a segment
axis: the scan's sums, the grid of prediction by truth buckets, the replicates' sums, bucket
weights and grids, each reduced by segment (``numpy.add.reduceat`` over the rows sorted by
code, ``numpy.bincount`` over segment-major cells), and, after the shuffles, the engine's own
bucket functions on each segment's rows of the bucket.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens.dask import _boot_pairs as _bp
from ranklens.dask import _passes as _p
from ranklens.segments import quantile_bin_codes

#: The prefix of the columns of segment codes the passes carry (one per column of labels).
CODE_PREFIX = "_ranklens_s"

#: The dtype of the code columns.
CODE_DTYPE = np.int32


def code_column(index: int) -> str:
    """The column holding each row's code in the ``index``-th column of labels."""
    return f"{CODE_PREFIX}{index}"


@dataclasses.dataclass(frozen=True)
class Keys:
    """How the rows fall into segments.

    Attributes
    ----------
    sizes : tuple of int
        The segments of each column of labels (its labels, and the missing label last when a
        row lacks one).
    cross : bool
        Whether the columns' cross product is a slicing too.
    """

    sizes: tuple[int, ...]
    cross: bool

    @property
    def cross_slicing(self) -> int:
        """The index of the crossed slicing (valid with ``cross``)."""
        return len(self.sizes) + 1

    @property
    def n_slicings(self) -> int:
        """The slicings, every row's one included (slicing 0)."""
        return len(self.sizes) + 1 + int(self.cross)


def row_codes(part: Any, keys: Keys) -> list[tuple[int, np.ndarray]]:
    """Each row's code in every slicing: ``[(slicing, codes), ...]``, slicing 0 first."""
    n = len(part)
    out = [(0, np.zeros(n, np.int64))]
    codes = [part[code_column(i)].to_numpy().astype(np.int64) for i in range(len(keys.sizes))]
    out += [(i + 1, c) for i, c in enumerate(codes)]
    if keys.cross:
        radix = np.zeros(n, np.int64)
        for c, size in zip(codes, keys.sizes, strict=True):
            radix = radix * size + c
        out.append((keys.cross_slicing, radix))
    return out


def _grouped(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows sorted by code (stable), the codes present, where each one's rows start in that
    order, and each sorted row's local segment index (0, 1, ... over the codes present)."""
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if ordered.size else ordered
    present = ordered[starts]
    local = np.repeat(np.arange(present.size), np.diff(np.r_[starts, ordered.size]))
    return order, present, starts, local


def segment_rows(part: Any, keys: Keys) -> list[tuple[tuple[int, int], np.ndarray]]:
    """``[(key, rows), ...]``: the positions of every segment's rows in the partition."""
    out = []
    for s, codes in row_codes(part, keys):
        order, present, starts, _ = _grouped(codes)
        ends = np.r_[starts[1:], order.size]
        out += [((s, int(c)), order[a:b]) for c, a, b in zip(present, starts, ends, strict=True)]
    return out


# ------------------------------------------------------------------------------------------------
# The labels


#: Values of a numeric column of labels each partition sends to place the selection's buckets.
LABEL_SAMPLE = 1000


def labels(
    part: Any, columns: Sequence[str], numeric: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    """Per column of labels: its distinct present labels, its rows without a label and, for a
    categorical, its categories in their order.

    A column of ``numeric`` (name -> the most distinct labels wanted) sends at most that many
    distinct labels (enough to tell whether the column has more distinct values than its
    bins), its count of present values, ``n_present``, and up to :data:`LABEL_SAMPLE` of them
    evenly spaced, ``sample`` (they only place the buckets of the selection of its quantiles).
    """
    import pandas as pd

    numeric = numeric or {}
    out = []
    for name in columns:
        series = part[name]
        missing = series.isna().to_numpy()
        present = series[~missing]
        categories = None
        if isinstance(series.dtype, pd.CategoricalDtype):
            categories = list(series.dtype.categories)
            present = present.astype(object)
        found: dict[str, Any] = {"missing": int(missing.sum()), "categories": categories}
        if name in numeric:
            values = present.to_numpy(dtype=np.float64)
            found["present"] = present.unique()[: numeric[name]].tolist()
            found["n_present"] = int(values.size)
            if values.size > LABEL_SAMPLE:
                values = values[np.linspace(0, values.size - 1, LABEL_SAMPLE).astype(np.int64)]
            found["sample"] = values
        else:
            found["present"] = list(dict.fromkeys(present.unique().tolist()))
        out.append(found)
    return out


@dataclasses.dataclass(frozen=True, eq=False)
class QuantileBins:
    """A numeric column's quantile bins: each present label's code is its bin.

    Attributes
    ----------
    edges : ndarray of float
        The distinct edges, ascending (:func:`ranklens.segments.quantile_bin_edges`).
    """

    edges: np.ndarray

    def __len__(self) -> int:
        return int(self.edges.size) - 1

    def codes(self, series: Any) -> np.ndarray:
        """Each row's bin (-1 where its label is missing)."""
        missing = series.isna().to_numpy()
        out = np.full(len(series), -1, dtype=np.int64)
        present = series[~missing].to_numpy(dtype=np.float64)
        out[~missing] = quantile_bin_codes(present, self.edges)
        return out


def with_codes(
    part: Any,
    columns: Sequence[str],
    orders: Sequence[Sequence[Any] | QuantileBins],
    drop: Sequence[str],
) -> Any:
    """The partition with each row's code in each column of labels (:func:`code_column`): the
    position of its label in ``orders[i]`` (its quantile bin, for :class:`QuantileBins`), the
    missing label ``len(orders[i])``; the label columns in ``drop`` removed."""
    assigned = {}
    for i, (name, order) in enumerate(zip(columns, orders, strict=True)):
        series = part[name]
        missing = series.isna().to_numpy()
        if isinstance(order, QuantileBins):
            found = order.codes(series)
        else:
            found = _positions(series, list(order))
        if (found[~missing] < 0).any():  # (the labels were read from these very partitions)
            raise ValueError(f"segment labels {name!r} changed between two reads")
        assigned[code_column(i)] = np.where(missing, len(order), found).astype(CODE_DTYPE)
    out = part.assign(**assigned)
    return out.drop(columns=list(drop)) if drop else out


def _positions(series: Any, order: list[Any]) -> np.ndarray:
    """Each label's position in ``order`` (-1 where missing or absent): by Arrow's hash lookup
    for labels that are all strings, else by a pandas categorical of those categories."""
    import pandas as pd

    if order and all(isinstance(v, str) for v in order):
        try:
            import pyarrow as pa
            import pyarrow.compute as pc

            values = pa.array(series.astype(object), from_pandas=True, type=pa.string())
            found = pc.index_in(values, value_set=pa.array(order, type=pa.string()))
            return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), np.int64)
        except (ImportError, TypeError, ValueError):  # (pyarrow's ArrowInvalid is a ValueError)
            pass
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    return np.asarray(pd.Categorical(series, categories=order).codes, np.int64)


# ------------------------------------------------------------------------------------------------
# The scan by segment: counts, sums, grids and the replicates' sums


@dataclasses.dataclass(frozen=True)
class ScanWork:
    """What the scan by segment computes besides the counts.

    Attributes
    ----------
    ratio_forms : list
        The ratio-of-sums forms whose sums are wanted.
    threshold : float
        Events are the rows of ``y >= threshold`` (infinite: no event is counted).
    p_bounds, t_bounds : list of ndarray, ndarray, or None
        The buckets of the grid (None: no grid).
    reps : ndarray or None
        The replicates' numbers (None: no replicate).
    seed : int
        The replicates' seed.
    curves, pairs : bool
        Whether the replicates' bucket weights (the curves' carry-ins) and grids (the pair
        classes) are wanted.
    """

    ratio_forms: list[Any]
    threshold: float
    p_bounds: list[np.ndarray] | None
    t_bounds: np.ndarray | None
    reps: np.ndarray | None
    seed: int
    curves: bool
    pairs: bool


def segment_scan(
    part: Any, keys: Keys, y: str, preds: Sequence[str], weight: str | None, work: ScanWork
) -> dict[tuple[int, int], dict[str, Any]]:
    """The partition's summary of every segment it holds.

    Per segment: ``rows`` (every row, also as ``rows_parts``, one per partition), ``events``
    (rows of ``y >= threshold``), ``positive`` (rows of positive weight), the partial sums
    ``w`` and ``w2`` of the weights and their squares and ``sums[model][form]``, ``(num,
    den)`` or the measure's domain error, as lists (one item per partition: the client adds
    them with :func:`math.fsum`); with a grid, ``grids[model]`` ``(counts, weights)`` by
    prediction and truth bucket of the rows of positive weight and ``t_w2`` (as
    :func:`ranklens.dask._passes.grid`); with replicates (not for slicing 0, the values on all
    rows), ``boot`` as :func:`ranklens.dask._passes.bootstrap_sums` and ``boot_grid`` as
    :func:`ranklens.dask._boot_pairs.replicate_grids`.
    """
    yv, pv, wv = _p.partition_arrays(part, y, preds, weight)
    keys_of = None if work.reps is None else part[_p.KEY].to_numpy()
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for s, codes in row_codes(part, keys):
        order, present, starts, local = _grouped(codes)
        if not present.size:
            continue
        ys, ps = yv[order], [p[order] for p in pv]
        ws = None if wv is None else wv[order]
        counts = _counts(ys, ws, starts, work.threshold)
        sums = _ratio_sums(ys, ps, ws, starts, work.ratio_forms)
        grids: dict[str, Any] = {}
        if work.p_bounds is not None and work.t_bounds is not None:
            grids = _grids(ys, ps, ws, local, present.size, work.p_bounds, work.t_bounds)
        boot: dict[str, Any] = {}
        if keys_of is not None and s != 0:
            boot = _replicates(ys, ps, ws, keys_of[order], local, present.size, work)
        for j, code in enumerate(present.tolist()):
            summary: dict[str, Any] = {
                name: int(counts[name][j])
                for name in ("rows", "events", "positive")
                if name in counts
            }
            summary["rows_parts"] = [summary["rows"]]
            summary["w"] = [float(v[j]) for v in counts.get("w_sums", ())]
            summary["w2"] = [float(v[j]) for v in counts.get("w2_sums", ())]
            summary["sums"] = [[[_cell(f, j)] for f in per_model] for per_model in sums]
            if grids:
                summary["grids"] = [
                    (c[..., j], None if w is None else w[..., j]) for c, w in grids["grids"]
                ]
                if "t_w2" in grids:
                    summary["t_w2"] = grids["t_w2"][:, j]
            if boot:
                summary["boot"] = {
                    "sums": boot["boot"]["sums"][..., j],
                    "buckets": [b[..., j] for b in boot["boot"]["buckets"]],
                }
                if "boot_grid" in boot:
                    summary["boot_grid"] = {
                        "grids": [g[..., j] for g in boot["boot_grid"]["grids"]],
                        "squares": boot["boot_grid"]["squares"][..., j],
                    }
            out[(s, int(code))] = summary
    return out


def _cell(sums: Any, j: int) -> Any:
    """Segment ``j``'s ``(num, den)`` of a form (floats), or its domain error."""
    if isinstance(sums, tuple):
        return (float(sums[0][j]), float(sums[1][j]))
    return sums[j]  # an array of objects: (num, den) or the exception, per segment


def _counts(
    ys: np.ndarray, ws: np.ndarray | None, starts: np.ndarray, threshold: float
) -> dict[str, Any]:
    """Rows, events, rows of positive weight and the weights' partial sums, per segment."""
    sizes = np.diff(np.r_[starts, ys.size])
    out: dict[str, Any] = {"rows": sizes.astype(np.int64)}
    out["events"] = np.add.reduceat((ys >= threshold).astype(np.int64), starts)
    if ws is not None:
        out["positive"] = np.add.reduceat((ws > 0).astype(np.int64), starts)
        with np.errstate(over="ignore"):
            out["w_sums"] = [np.add.reduceat(ws, starts)]
            out["w2_sums"] = [np.add.reduceat(ws * ws, starts)]
    return out


def _ratio_sums(
    ys: np.ndarray,
    ps: Sequence[np.ndarray],
    ws: np.ndarray | None,
    starts: np.ndarray,
    forms: Sequence[Any],
) -> list[list[Any]]:
    """``[model][form]``: ``(num, den)`` arrays over the segments, or, where the partition's
    rows fail the measure's domain check, an array of objects: per segment its ``(num, den)``
    or the error on its rows."""
    out = []
    for p in ps:
        per_model: list[Any] = []
        for form in forms:
            try:
                num, den = form.row_terms(ys, p)
            except ValueError:  # the measure's domain check: which segments fail it
                per_model.append(_failing_segments(form, ys, p, ws, starts))
                continue
            per_model.append(_summed(num, den, ws, starts))
        out.append(per_model)
    return out


def _summed(
    num: np.ndarray, den: np.ndarray, ws: np.ndarray | None, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):
        if ws is not None:
            num, den = ws * num, ws * den
        return np.add.reduceat(num, starts), np.add.reduceat(den, starts)


def _failing_segments(
    form: Any, ys: np.ndarray, p: np.ndarray, ws: np.ndarray | None, starts: np.ndarray
) -> np.ndarray:
    ends = np.r_[starts[1:], ys.size]
    cells = np.empty(starts.size, dtype=object)
    for j, (a, b) in enumerate(zip(starts, ends, strict=True)):
        try:
            num, den = form.row_terms(ys[a:b], p[a:b])
        except ValueError as exc:
            cells[j] = exc
            continue
        w = None if ws is None else ws[a:b]
        total_num, total_den = _summed(num, den, w, np.zeros(1, np.int64))
        cells[j] = (float(total_num[0]), float(total_den[0]))
    return cells


def _grids(
    ys: np.ndarray,
    ps: Sequence[np.ndarray],
    ws: np.ndarray | None,
    local: np.ndarray,
    m: int,
    p_bounds: Sequence[np.ndarray],
    t_bounds: np.ndarray,
) -> dict[str, Any]:
    """Per model, the (prediction bucket x truth bucket) counts and weights of each segment's
    rows of positive weight (segment last), and the squared weights by truth bucket."""
    if ws is not None:
        keep = ws > 0
        ys, ws, local = ys[keep], ws[keep], local[keep]
        ps = [p[keep] for p in ps]
    tb = _p.bucket_of(ys, t_bounds)
    nt = t_bounds.size + 1
    grids = []
    for p, bounds in zip(ps, p_bounds, strict=True):
        cells = (bounds.size + 1) * nt
        index = (_p.bucket_of(p, bounds) * nt + tb) * m + local
        shape = (bounds.size + 1, nt, m)
        counts = np.bincount(index, minlength=cells * m).reshape(shape).astype(np.int64)
        weights = None if ws is None else np.bincount(index, ws, minlength=cells * m).reshape(shape)
        grids.append((counts, weights))
    out: dict[str, Any] = {"grids": grids}
    if ws is not None:
        out["t_w2"] = np.bincount(tb * m + local, ws * ws, minlength=nt * m).reshape(nt, m)
    return out


def _replicates(
    ys: np.ndarray,
    ps: Sequence[np.ndarray],
    ws: np.ndarray | None,
    row_keys: np.ndarray,
    local: np.ndarray,
    m: int,
    work: ScanWork,
) -> dict[str, Any]:
    """The replicates' sums of each segment, the rows sorted by segment: ``boot["sums"]``
    (models x forms x 2 x replicates) and, for the curves, ``boot["buckets"][model]`` (the
    weight and events of each prediction bucket, 2 x replicates x buckets); for the pair
    classes, ``boot_grid`` (each model's replicates x prediction x truth buckets, and the
    squared weights by truth bucket); the segment last."""
    assert work.reps is not None
    reps, n_b = work.reps, work.reps.size
    sums = np.zeros((len(ps), len(work.ratio_forms), 2, n_b, m))
    starts = np.flatnonzero(np.r_[True, local[1:] != local[:-1]])
    terms = [[_row_terms(form, ys, p, starts) for form in work.ratio_forms] for p in ps]
    cells = _ReplicateCells.of(ys, ps, local, m, work)
    rows = max(1, _p.BLOCK_CELLS // max(1, n_b))
    for start in range(0, ys.size, rows):
        sl = slice(start, start + rows)
        rw = _p.replicate_weights(row_keys[sl], None if ws is None else ws[sl], reps, work.seed)
        block = local[sl]
        first = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        held = block[first]
        for k, per_model in enumerate(terms):
            for j, both in enumerate(per_model):
                for side in (0, 1):
                    sums[k, j, side][:, held] += np.add.reduceat(rw * both[side][sl], first, axis=1)
        cells.add(rw, sl, (ys[sl] >= work.threshold).astype(np.float64))
    out: dict[str, Any] = {"boot": {"sums": sums, "buckets": cells.buckets}}
    if work.pairs:
        out["boot_grid"] = {"grids": cells.grids, "squares": cells.squares}
    return out


def _row_terms(
    form: Any, ys: np.ndarray, p: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A form's per-row ``(num, den)``; where the rows fail the measure's domain check, NaN for
    the rows of the segments that fail it (their replicates are then undefined)."""
    try:
        return form.row_terms(ys, p)
    except ValueError:
        pass
    num, den = np.full(ys.size, np.nan), np.full(ys.size, np.nan)
    for a, b in zip(starts, np.r_[starts[1:], ys.size], strict=True):
        try:
            num[a:b], den[a:b] = form.row_terms(ys[a:b], p[a:b])
        except ValueError:
            continue
    return num, den


@dataclasses.dataclass
class _ReplicateCells:
    """The replicates' bucket sums (the curves' carry-ins) and grids (the pair classes) of each
    segment, added block by block of rows: each row's cell, segment last."""

    m: int
    t_cell: np.ndarray | None
    bucket_cells: list[np.ndarray]
    grid_cells: list[np.ndarray]
    buckets: list[np.ndarray]
    grids: list[np.ndarray]
    squares: np.ndarray | None

    @classmethod
    def of(
        cls,
        ys: np.ndarray,
        ps: Sequence[np.ndarray],
        local: np.ndarray,
        m: int,
        work: ScanWork,
    ) -> _ReplicateCells:
        n_b = 0 if work.reps is None else work.reps.size
        out = cls(m, None, [], [], [], [], None)
        if work.p_bounds is None or work.t_bounds is None:
            return out
        nt = work.t_bounds.size + 1
        tb = _p.bucket_of(ys, work.t_bounds)
        for p, bounds in zip(ps, work.p_bounds, strict=True):
            pb = _p.bucket_of(p, bounds)
            if work.curves:
                out.bucket_cells.append(pb * m + local)
                out.buckets.append(np.zeros((2, n_b, bounds.size + 1, m)))
            if work.pairs:
                out.grid_cells.append((pb * nt + tb) * m + local)
                out.grids.append(np.zeros((n_b, bounds.size + 1, nt, m)))
        if work.pairs:
            out.t_cell = tb * m + local
            out.squares = np.zeros((n_b, nt, m))
        return out

    def add(self, rw: np.ndarray, sl: slice, ev: np.ndarray) -> None:
        """Add the replicate weights ``rw`` of the rows ``sl`` (events ``ev``), in place."""
        for r in range(rw.shape[0]):
            weights = rw[r]
            for cell, total in zip(self.bucket_cells, self.buckets, strict=True):
                size = total.shape[2] * self.m
                total[0, r] += np.bincount(cell[sl], weights, size).reshape(-1, self.m)
                total[1, r] += np.bincount(cell[sl], weights * ev, size).reshape(-1, self.m)
            for cell, grid in zip(self.grid_cells, self.grids, strict=True):
                size = grid[r].size
                grid[r] += np.bincount(cell[sl], weights, size).reshape(grid.shape[1:])
            if self.squares is not None and self.t_cell is not None:
                size = self.squares[r].size
                self.squares[r] += np.bincount(self.t_cell[sl], weights * weights, size).reshape(
                    -1, self.m
                )


def merge_scans(
    u: dict[tuple[int, int], dict[str, Any]], v: dict[tuple[int, int], dict[str, Any]]
) -> dict[tuple[int, int], dict[str, Any]]:
    """Two partitions' (or groups of partitions') summaries by segment merged, ``u``'s rows
    first: counts and arrays added, the partial sums kept in order."""
    out = dict(u)
    for key, b in v.items():
        a = out.get(key)
        out[key] = b if a is None else _merged(a, b)
    return out


def _merged(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in a.items():
        other = b[name]
        if name in ("rows_parts", "w", "w2"):
            out[name] = [*value, *other]
        elif name == "sums":
            out[name] = [
                [[*x, *z] for x, z in zip(ma, mb, strict=True)]
                for ma, mb in zip(value, other, strict=True)
            ]
        elif name == "grids":
            out[name] = [
                (ca + cb, None if wa is None else wa + wb)
                for (ca, wa), (cb, wb) in zip(value, other, strict=True)
            ]
        elif name in ("boot", "boot_grid"):
            out[name] = {
                field: [x + z for x, z in zip(part, other[field], strict=True)]
                if isinstance(part, list)
                else part + other[field]
                for field, part in value.items()
            }
        else:
            out[name] = value + other
    return out


# ------------------------------------------------------------------------------------------------
# The shuffles: each bucket's rows of each segment, by the engine's own bucket functions


@dataclasses.dataclass(frozen=True)
class PredictionWork:
    """What a prediction bucket's task computes, per segment (``carries``, ``queries`` and
    ``boot_carries`` by segment key, only the segments in the bucket)."""

    model_index: int
    y: str
    pred: str
    weight: str | None
    threshold: float
    carries: dict[tuple[int, int], Any]
    queries: dict[tuple[int, int], np.ndarray]
    depths: np.ndarray
    rank_pairs: bool
    curves: bool
    t_bounds: np.ndarray
    single: np.ndarray
    reps: np.ndarray | None
    seed: int
    boot_carries: dict[tuple[int, int], Any]
    midrank_dtype: Any
    slicings: int = 0


def segment_midrank_column(model_index: int, slicing: int) -> str:
    """The column holding each row's midrank of model ``model_index``'s prediction among the
    rows of its segment of slicing ``slicing`` (carried to the shuffle by truth for Spearman's
    rho, as :func:`ranklens.dask._passes.midrank_column` is for all the rows)."""
    return f"{_p.midrank_column(model_index)}_s{slicing}"


def prediction_bucket(
    part: Any, keys: Keys, work: PredictionWork
) -> tuple[Any, dict[tuple[int, int], dict[str, Any]]]:
    """One prediction bucket after the shuffle: each segment's summary, from
    :func:`ranklens.dask._passes.prediction_partition` on the segment's rows of the bucket with
    the segment's carry-ins (and, with replicates, its replicates' carry-ins and pair classes),
    and the rows for the shuffle by truth: their bucket column and, with ``work.slicings``,
    their midrank in their segment of each slicing (:func:`segment_midrank_column`, read by
    Spearman's rho); the midrank column of all the rows holds zeros."""
    _p.release_unused_memory()
    part = part.reset_index(drop=True)
    k = work.model_index
    a_col, b_col = _p.midrank_column(k), _p.bucket_column(k)
    frame = part.drop(columns=[_p.P_BUCKET])
    mids = {
        segment_midrank_column(k, s): np.zeros(len(part), work.midrank_dtype)
        for s in range(work.slicings)
    }
    if len(part) == 0:
        empty = frame.assign(
            **{a_col: np.zeros(0, work.midrank_dtype), b_col: np.zeros(0, _p.BUCKET_DTYPE)},
            **mids,
        )
        return empty, {}
    bucket = int(part[_p.P_BUCKET].iloc[0])
    # the columns the bucket's functions read, each segment's rows taken from them
    slim = part[
        [c for c in (work.y, work.pred, work.weight, _p.KEY, _p.P_BUCKET) if c in part.columns]
    ]
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for key, rows in segment_rows(part, keys):
        sub = slim.iloc[rows]
        boot = None
        if work.reps is not None and work.curves and key in work.boot_carries:
            boot = {
                "carry": {bucket: work.boot_carries[key]},
                "reps": work.reps,
                "seed": work.seed,
                "depths": work.depths,
            }
        ranked, summary = _p.prediction_partition(
            sub,
            k,
            work.y,
            work.pred,
            work.weight,
            work.threshold,
            {bucket: work.carries[key]},
            work.queries[key],
            work.depths,
            work.rank_pairs,
            work.t_bounds,
            work.single,
            boot,
            curves=work.curves,
        )
        if work.reps is not None and work.rank_pairs and key[0] != 0:  # (not the overall)
            summary["boot_pairs"] = _bp.prediction_bucket_pairs(
                sub, work.y, work.pred, work.weight, work.reps, work.seed
            )
        if work.slicings:
            mids[segment_midrank_column(k, key[0])][rows] = ranked[a_col].to_numpy()
        out[key] = summary
    frame = frame.assign(
        **{
            a_col: np.zeros(len(frame), work.midrank_dtype),
            b_col: np.full(len(frame), bucket, _p.BUCKET_DTYPE),
        },
        **mids,
    )
    return frame, out


def truth_bucket(
    part: Any,
    keys: Keys,
    y: str,
    weight: str | None,
    n_models: int,
    below: dict[tuple[int, int], Any],
    totals: dict[tuple[int, int], float],
    boot: dict[str, Any] | None,
) -> dict[tuple[int, int], dict[str, Any]]:
    """One truth bucket after the shuffle: each segment's summary, from
    :func:`ranklens.dask._passes.truth_partition` on the segment's rows of the bucket (``below``:
    the segment's count or weight of the truth buckets below; ``totals``: its total weight),
    with its replicates' pair classes (:func:`ranklens.dask._boot_pairs.truth_bucket_pairs`)
    where ``boot["keys"]`` holds it. Where the rows carry their midranks in their segments
    (:func:`segment_midrank_column`), each segment's Spearman sums read its own."""
    _p.release_unused_memory()
    part = part.reset_index(drop=True)
    if len(part) == 0:
        return {}
    bucket = int(part[_p.T_BUCKET].iloc[0])
    read = [y, weight, _p.KEY, _p.T_BUCKET]
    read += [f(k) for k in range(n_models) for f in (_p.midrank_column, _p.bucket_column)]
    own = [
        column
        for k in range(n_models)
        for slicing in range(keys.n_slicings)
        if (column := segment_midrank_column(k, slicing)) in part.columns
    ]
    slim = part[[c for c in read if c in part.columns] + own]
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for key, rows in segment_rows(part, keys):
        sub = slim.iloc[rows].reset_index(drop=True)
        if own:
            sub = sub.assign(
                **{
                    _p.midrank_column(k): sub[segment_midrank_column(k, key[0])]
                    for k in range(n_models)
                }
            )
        summary = _p.truth_partition(sub, y, weight, n_models, {bucket: below[key]}, totals[key])
        if boot is not None and key in boot["keys"]:
            summary["boot_pairs"] = _bp.truth_bucket_pairs(
                sub, y, weight, n_models, boot["reps"], boot["seed"]
            )
        out[key] = summary
    return out
