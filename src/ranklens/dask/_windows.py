"""``ranklens.dask.by_window``: every model on every time window, exactly, on Dask.

The Dask engine of :func:`ranklens.timeseries.by_window`. The windows are segments in time
order, so the work is :func:`ranklens.dask.by_segment`'s on one column of labels computed per
row, ``"window"``:

* one read of the time column checks that the rows are in time order (the engine does not
  sort; :func:`ranklens.dask._blocks.check_time_order`) and, for calendar windows, finds the
  periods present, their rows and the first time of each. The windows' names, bounds,
  positions and notes are then those :func:`ranklens.timeseries.time_windows` gives for one
  time of each period present (the same periods as on all the rows, so the same windows);
  windows of ``n`` rows are cut from the rows' positions (one more read of the time column
  for their first and last times);
* each row's window is its period's rank among those present (or its position ``// n``), a
  categorical of the windows' names in time order, as in memory;
* the replicates weigh blocks of consecutive rows that start anew at each window's first row
  (so no block spans two windows and the windows' replicates are independent, as the trend
  test assumes): each window's rows in blocks of its own length, with ``"auto"`` its own
  automatic length (:func:`ranklens.dask._serial.automatic_lengths` by window), each block one
  Poisson count (the clustered bootstrap keyed by the block);
* the stability of the pick's lead and the trends are read from the evaluation by the
  in-memory code (:func:`ranklens.timeseries.window_result`).

References
----------
Carlstein, E. (1986). The use of subseries values for estimating the variance of a general
statistic from a stationary sequence. *The Annals of Statistics* 14(3), 1171-1179.

Hedges, L. V. and Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic Press.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.extras import require
from ranklens.dask import _blocks as _b
from ranklens.dask import _serial
from ranklens.dask._evaluate import column_loader
from ranklens.dask._planning import prediction_columns
from ranklens.dask._segments import DaskSource, segment_run
from ranklens.segments import DEFAULT_SEGMENT_METRICS, SegmentSettings
from ranklens.timeseries import (
    TimeWindows,
    WindowEvaluation,
    time_windows,
    window_result,
    window_times,
)

__all__ = ["WindowCut", "by_window", "time_piece", "times_at", "with_windows"]

#: The columns the engine adds: each row's window (a categorical of the windows' names), its
#: window's number and its block's number.
WINDOW = "_ranklens_window"
CODE = "_ranklens_window_code"
BLOCK = "_ranklens_block"

#: A time with which a calendar period is checked before any read.
_PROBE = "2000-01-01"


@dataclasses.dataclass(frozen=True)
class WindowCut:
    """How each row's window is found: ``kind`` ``"calendar"`` (``period`` a pandas period
    alias, ``ordinals`` the periods present, sorted) or ``"rows"`` (``size`` rows each)."""

    kind: str
    time: str | None
    period: str | int
    ordinals: np.ndarray

    def codes(self, part: Any, offset: int) -> np.ndarray:
        """The window of each row of a partition whose first row is ``offset``."""
        rows = len(part)
        if self.kind == "rows":
            assert isinstance(self.period, int)
            return np.arange(offset, offset + rows, dtype=np.int64) // self.period
        assert self.time is not None
        found = _ordinals(part[self.time], self.time, str(self.period))
        return np.searchsorted(self.ordinals, found).astype(np.int64)


def _ordinals(values: Any, name: str, period: str) -> np.ndarray:
    """The calendar period of each time (wall time in its zone), as pandas' period ordinals."""
    times = _times(values, name)
    if times.dt.tz is not None:
        times = times.dt.tz_localize(None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(times.dt.to_period(period).array.asi8, dtype=np.int64)


def _times(values: Any, name: str) -> Any:
    """A partition's times as :func:`ranklens.timeseries.window_times` reads them (the
    message of a refusal naming the column)."""
    try:
        return window_times(values.reset_index(drop=True), len(values))
    except ValueError as exc:
        raise ValueError(f"time column {name!r}: {exc}") from exc


def time_piece(part: Any, name: str, period: str | None) -> dict[str, Any]:
    """One partition's times: what :func:`ranklens.dask._blocks.check_time_order` reads, the
    zone, and (for a calendar ``period``) each period present with its rows and first time."""
    times = _times(part[name], name)
    tz = times.dt.tz
    instants = times.dt.tz_convert("UTC").dt.tz_localize(None) if tz is not None else times
    out = _b.order_info(instants.to_numpy(), "aware" if tz is not None else "naive")
    out["zone"] = None if tz is None else str(tz)
    if period is not None and len(times):
        local = times.dt.tz_localize(None) if tz is not None else times
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ordinals = np.asarray(local.dt.to_period(period).array.asi8, dtype=np.int64)
        present, first, counts = np.unique(ordinals, return_index=True, return_counts=True)
        out.update(
            ordinals=present, counts=counts, firsts=[times.iloc[int(i)] for i in first.tolist()]
        )
    return out


def times_at(part: Any, name: str, positions: Sequence[int]) -> list[Any]:
    """The times of a partition's rows at ``positions`` (within it)."""
    times = _times(part[name], name)
    return [times.iloc[int(i)] for i in positions]


def _check_zones(pieces: Sequence[dict[str, Any]], name: str) -> None:
    zones = {p["zone"] for p in pieces if p["rows"]}
    if len(zones) > 1:
        raise ValueError(
            f"time column {name!r} holds times in different zones in different partitions "
            f"({', '.join(sorted(str(z) for z in zones))}); give them in one zone"
        )


def _calendar(pieces: Sequence[dict[str, Any]], name: str, window: Any) -> tuple[TimeWindows, Any]:
    """The calendar windows of the periods present (with one time of each, the in-memory
    :func:`ranklens.timeseries.time_windows`) and their rows, in time order."""
    import pandas as pd

    rows: dict[int, int] = {}
    firsts: dict[int, Any] = {}
    for p in pieces:
        if not p["rows"]:
            continue
        for ordinal, count, first in zip(
            p["ordinals"].tolist(), p["counts"].tolist(), p["firsts"], strict=True
        ):
            rows[ordinal] = rows.get(ordinal, 0) + int(count)
            firsts.setdefault(ordinal, first)
    ordinals = np.array(sorted(rows), dtype=np.int64)
    found = time_windows(pd.Series([firsts[o] for o in ordinals.tolist()]), window, ordinals.size)
    if len(found.labels) != ordinals.size:  # (one time of each period gives each its window)
        raise AssertionError(f"time column {name!r}: the windows of the periods present differ")
    counts = np.array([rows[o] for o in ordinals.tolist()], dtype=np.int64)
    return found, (ordinals, counts)


def _row_windows(
    dask: Any, frame: Any, time: str | None, size: int, part_rows: Sequence[int], tz: str | None
) -> TimeWindows:
    """Windows of ``size`` consecutive rows, as in memory: their names, and their first and
    last rows' times (one read of the time column at those rows)."""
    n = int(sum(part_rows))
    count = -(-n // size)
    first = [w * size for w in range(count)]
    last = [min(n, (w + 1) * size) - 1 for w in range(count)]
    starts: tuple[str | None, ...] = (None,) * count
    ends: tuple[str | None, ...] = (None,) * count
    if time is not None:
        wanted = sorted({*first, *last})
        offsets = np.r_[0, np.cumsum(part_rows)]
        tasks = []
        for j, part in enumerate(frame[[time]].to_delayed()):
            lo, hi = int(offsets[j]), int(offsets[j + 1])
            inside = [p - lo for p in wanted if lo <= p < hi]
            tasks.append(dask.delayed(times_at)(part, time, inside) if inside else [])
        found = [t for got in dask.compute(*tasks) for t in got]
        at = dict(zip(wanted, found, strict=True))
        starts = tuple(at[i].isoformat() for i in first)
        ends = tuple(at[i].isoformat() for i in last)
    notes = []
    if n % size and count > 1:
        notes.append(f"the last window holds {n % size} rows (windows of {size} rows)")
    return TimeWindows(
        order=np.zeros(0, np.int64),
        codes=np.zeros(0, np.int64),
        labels=tuple(f"rows {a + 1}-{b + 1}" for a, b in zip(first, last, strict=True)),
        starts=starts,
        ends=ends,
        index=tuple(range(count)),
        kind="rows",
        period=size,
        unit="window",
        timezone=tz,
        notes=tuple(notes),
    )


def _windows(
    dask: Any, frame: Any, time: str | None, window: Any, probe: TimeWindows
) -> tuple[TimeWindows, WindowCut, list[int], np.ndarray]:
    """The windows, how each row's is found, the partitions' rows and each window's rows."""
    if time is None:
        part_rows = list(dask.compute(*[dask.delayed(len)(p) for p in frame.to_delayed()]))
        tz = None
    else:
        period = probe.period if probe.kind == "calendar" else None
        pieces = dask.compute(
            *[dask.delayed(time_piece)(p, time, period) for p in frame[[time]].to_delayed()]
        )
        part_rows = _b.check_time_order(pieces, time)
        _check_zones(pieces, time)
        tz = next((p["zone"] for p in pieces if p["rows"]), None)
    n = int(sum(part_rows))
    if n < 1:
        raise ValueError(f"the data hold no rows; got {n}")
    if probe.kind == "calendar":
        found, (ordinals, counts) = _calendar(pieces, str(time), window)
        return found, WindowCut("calendar", time, probe.period, ordinals), part_rows, counts
    size = int(probe.period)
    found = _row_windows(dask, frame, time, size, part_rows, tz)
    counts = np.full(len(found.labels), size, dtype=np.int64)
    counts[-1] = n - size * (len(found.labels) - 1)
    return found, WindowCut("rows", time, size, np.zeros(0, np.int64)), part_rows, counts


def with_windows(
    part: Any,
    offset: int,
    cut: WindowCut,
    labels: Sequence[str],
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    drop: Sequence[str],
) -> Any:
    """The partition with its rows' windows (a categorical of ``labels``, and their numbers)
    and, with ``blocks`` (each window's first row, rows per block and blocks before it), its
    rows' blocks, numbered from 0 in time order, each window's cut from its first row; the
    columns in ``drop`` removed."""
    import pandas as pd

    codes = cut.codes(part, offset)
    added: dict[str, Any] = {
        WINDOW: pd.Categorical.from_codes(codes, categories=list(labels)),
        CODE: codes,
    }
    if blocks is not None:
        first, length, before = blocks
        positions = np.arange(offset, offset + len(part), dtype=np.int64)
        added[BLOCK] = before[codes] + (positions - first[codes]) // length[codes]
    out = part.assign(**added)
    return out.drop(columns=list(drop)) if drop else out


def _window_frame(
    dask: Any,
    dd: Any,
    frame: Any,
    part_rows: Sequence[int],
    cut: WindowCut,
    labels: Sequence[str],
    blocks: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    drop: Sequence[str],
) -> Any:
    """``frame`` with its rows' windows (and blocks), each partition told its first row."""
    import pandas as pd

    offsets = np.r_[0, np.cumsum(part_rows)[:-1]]
    meta = frame._meta.assign(
        **{
            WINDOW: pd.Categorical.from_codes(np.zeros(0, np.int64), categories=list(labels)),
            CODE: np.zeros(0, np.int64),
            **({BLOCK: np.zeros(0, np.int64)} if blocks is not None else {}),
        }
    )
    meta = meta.drop(columns=list(drop)) if drop else meta
    return dd.from_delayed(
        [
            dask.delayed(with_windows)(part, int(offset), cut, labels, blocks, drop)
            for part, offset in zip(frame.to_delayed(), offsets, strict=True)
        ],
        meta=meta,
        verify_meta=False,
    )


def _block_plan(
    dask: Any,
    frame: Any,
    y: str,
    preds: Sequence[str],
    found: TimeWindows,
    counts: np.ndarray,
    asked: int | str,
    time: str | None,
) -> tuple[_b.BlockKey, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each window's rows per block (given, or its own automatic length), and the block
    numbering: each window's first row, rows per block, and the blocks of the windows before."""
    labels = found.labels
    not_compared: dict[str, str] = {}
    if asked == "auto":
        lengths = _serial.automatic_lengths(dask, frame, y, preds, CODE)
        length = np.ones(len(labels), dtype=np.int64)
        for w, label in enumerate(labels):
            if w in lengths:
                length[w] = _b.rounded_length(max(b.stationary for b in lengths[w]))
            else:
                not_compared[label] = (
                    f"block_length='auto' needs at least {_serial.MIN_ROWS} rows; got "
                    f"{int(counts[w])}"
                )
    else:
        assert isinstance(asked, int)
        length = np.full(len(labels), asked, dtype=np.int64)
        for w, label in enumerate(labels):
            if asked > counts[w]:
                not_compared[label] = (
                    f"block_length must lie in [1, {int(counts[w])}]; got {asked!r}"
                )
    first = np.r_[0, np.cumsum(counts)[:-1]].astype(np.int64)
    per_window = -(-counts // length)
    before = np.r_[0, np.cumsum(per_window)[:-1]].astype(np.int64)
    key = _b.BlockKey(
        length=None,
        asked=asked,
        time=time,
        lengths={label: int(length[w]) for w, label in enumerate(labels)},
        not_compared=not_compared,
    )
    return key, (first, length, before)


def by_window(
    data: Any,
    *,
    y_true: str,
    predictions: Sequence[str] | str,
    time: str | None = None,
    window: str | int,
    metrics: Sequence[str] | str = DEFAULT_SEGMENT_METRICS,
    sample_weight: str | None = None,
    groups: str | None = None,
    pick: str | None = None,
    n_bootstrap: int = 1000,
    scheme: str = "blocks",
    block_length: int | str = "auto",
    confidence_level: float = 0.95,
    interval: str = "auto",
    fdr: str = "bh",
    fdr_level: float = 0.05,
    min_rows: int = 30,
    min_events: int = 10,
    random_state: int = 0,
    events: Any = None,
    relevance: Any = None,
    event_threshold: float | None = None,
    k: int | None = None,
    gains: str | None = None,
    n_buckets: int | None = None,
    storage_options: dict[str, Any] | None = None,
) -> WindowEvaluation:
    """Evaluate and compare the models on every time window, exactly, on Dask.

    The Dask engine of :func:`ranklens.timeseries.by_window`, with its result: every model on
    every window (calendar periods of ``time``, or runs of ``window`` rows), each model's
    paired difference from the pick, the verdicts with the false discovery rate controlled,
    how stable the pick's lead is and whether the difference trends (the fixed-effect
    meta-regression of Hedges & Olkin 1985). The windows are the segments of
    :func:`ranklens.dask.by_segment` (the slicing ``"window"``), whose values and counts equal
    the in-memory ones on the same rows; the intervals come from the engine's Poisson
    replicates of blocks (below), not the in-memory stationary bootstrap, so they and a few
    verdicts near the threshold differ by resampling noise.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str
        The data, or a Parquet path or glob (local or any fsspec URL).
    y_true : str
        The truth column.
    predictions : sequence of str
        The prediction columns, one per model (at least two).
    time : str, optional
        The column of the rows' times (datetimes with or without a zone, or ISO 8601 strings,
        as :func:`ranklens.timeseries.window_times` reads them), or the index of a dask
        DataFrame of that name (``set_index(time)``). The rows must already be in
        time order (the engine does not sort; each partition's times non-decreasing and each
        partition's first time at or after the last of the one before, checked in one read),
        else the run is refused naming the first partition out of order. None: the rows in
        the order given (then ``window`` is a number of rows).
    window : str or int
        A calendar period (``"Y"``, ``"Q"``, ``"M"``, ``"W"``, ``"D"``, ``"h"``, ``"min"``,
        ``"s"``, anchored as ``"W-MON"``, ``"Q-MAR"``; ``"YE"``, ``"QE"``, ``"ME"``) of the
        wall time in the times' zone, or a number of rows per window; as in memory.
    metrics : sequence of str, default :data:`ranklens.segments.DEFAULT_SEGMENT_METRICS`
        The measures, of the forms :func:`ranklens.dask.by_segment` evaluates by segment.
    sample_weight : str, optional
        A column of non-negative case weights.
    groups : str, optional
        A column of unit labels, with ``scheme="poisson"`` (the replicates weigh whole units);
        refused with blocks.
    pick : str, optional
        The model every other is compared with; default, per measure, the best on all rows.
    n_bootstrap : int, default 1000
        Poisson replicates (0: values only, no interval, no verdict, no trend).
    scheme : {"blocks", "poisson"}, default "blocks"
        ``"blocks"``: each window's rows, in time order, cut into consecutive blocks of
        ``block_length`` rows from the window's first row (the last block of a window may be
        shorter; no block spans two windows), each block one Poisson(1) count shared by its
        rows (the non-overlapping block bootstrap of Carlstein 1986 with Poisson weights: the
        in-memory ``"stationary"`` and ``"circular"`` bootstraps draw blocks from random
        starting rows, which the partitions cannot draw without coordination, and are refused
        here). ``"poisson"``: each row (or unit) its own count.
    block_length : int or "auto", default "auto"
        Rows per block: ``"auto"``, each window's own automatic length (Politis & White 2004,
        with the correction of Patton, Politis & White 2009, computed exactly on the
        partitions, the largest over the models' absolute errors and their pairs' differences,
        rounded to whole rows), or a number used in every window. A window with fewer than 9
        rows for ``"auto"``, or fewer rows than the number given, is not compared (as in
        memory). The records' ``block_length`` holds each window's.
    confidence_level, interval, fdr, fdr_level, min_rows, min_events, random_state : optional
        As :func:`ranklens.dask.by_segment`.
    events, relevance, event_threshold, k, gains : optional
        As :func:`ranklens.dask.by_segment`.
    n_buckets, storage_options : optional
        As :func:`ranklens.dask.by_segment`.

    Returns
    -------
    WindowEvaluation
        As :func:`ranklens.timeseries.by_window`'s (``scheme`` ``"blocks"`` or
        ``"poisson"``; ``block_lengths`` each compared window's rows per block); its
        ``notes`` also say where the intervals come from.

    Raises
    ------
    ValueError
        Naming the argument: a ``window`` that is not a calendar period or a number of rows
        >= 1, a calendar period without ``time``, times out of order (naming the partition),
        in different zones, missing or not times, a ``scheme`` not available on Dask, blocks
        with ``groups``, and what :func:`ranklens.dask.by_segment` refuses.

    See Also
    --------
    ranklens.timeseries.by_window : the in-memory engine.
    ranklens.dask.by_segment : the evaluation by segment this is built on.

    Notes
    -----
    Passes: one read of the time column (the order, the periods present); for windows of
    rows with ``time``, one more for their bounds; with ``"auto"``, one read of the truth and
    the predictions for each window's means and one per round of lags (usually one); then
    :func:`ranklens.dask.by_segment`'s. The blocks start anew at each window's first row, so
    the windows' replicates are independent, as the trend's meta-regression assumes.

    References
    ----------
    Carlstein, E. (1986). The use of subseries values for estimating the variance of a general
    statistic from a stationary sequence. *The Annals of Statistics* 14(3), 1171-1179.

    Hedges, L. V. and Olkin, I. (1985). *Statistical Methods for Meta-Analysis*. Academic
    Press.

    Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
    bootstrap. *Econometric Reviews* 23(1), 53-70.
    """
    settings = SegmentSettings.of(locals())
    source = DaskSource(y_true, predictions, n_buckets, storage_options, time)
    return window_run(data, window, settings, source)


def window_run(
    data: Any, window: str | int, settings: SegmentSettings, source: DaskSource
) -> WindowEvaluation:
    """Evaluate every time window on Dask: the work of :func:`by_window`.

    Parameters
    ----------
    data, window
        As :func:`by_window`.
    settings : SegmentSettings
        The settings of :func:`by_window`'s arguments (``scheme`` ``"blocks"`` or
        ``"poisson"``).
    source : DaskSource
        The columns of the truth, the predictions and the times, and how to read them.

    Returns
    -------
    WindowEvaluation

    Raises
    ------
    ValueError
        As :func:`by_window`.
    """
    require("dask", "evaluating by window on Dask")
    import dask
    import dask.dataframe as dd

    y_true, time, groups = source.y_true, source.time, settings.groups
    block_length, sample_weight = settings.block_length, settings.sample_weight
    preds = prediction_columns(source.predictions)
    probe = time_windows(None if time is None else [_PROBE], window, 1)
    if time is not None and not isinstance(time, str):
        raise ValueError(f"time must name the column of the rows' times; got {time!r}")
    resampling = _b.check_resampling(
        None,
        settings.scheme,
        block_length,
        n_bootstrap=None,
        groups=groups,
        default=_b.BLOCKS,
    )
    asked_length = _b.check_block_length(block_length)
    columns = list(
        dict.fromkeys(
            [
                y_true,
                *preds,
                *([sample_weight] if sample_weight else []),
                *([groups] if groups else []),
                *([time] if time else []),
            ]
        )
    )
    labels = [c for c in (groups, time) if c]
    data = _b.time_as_column(data, time)
    frame = column_loader(data, columns, source.storage_options, labels)(columns)
    found, cut, part_rows, counts = _windows(dask, frame, time, window, probe)
    drop = [time] if time else []
    blocks = None
    key = None
    if settings.n_bootstrap and resampling == _b.BLOCKS:
        if asked_length == "auto":
            coded = _window_frame(dask, dd, frame, part_rows, cut, found.labels, None, drop)
            key, blocks = _block_plan(dask, coded, y_true, preds, found, counts, "auto", time)
        else:
            key, blocks = _block_plan(dask, frame, y_true, preds, found, counts, asked_length, time)
    windowed = _window_frame(dask, dd, frame, part_rows, cut, found.labels, blocks, drop)
    # the windows are the segments of one slicing, their blocks' ids the units of the replicates
    segment_settings = dataclasses.replace(
        settings,
        groups=BLOCK if key is not None else groups,
        bins=2,
        scheme=_b.POISSON,
        block_length="auto",
    )
    read = DaskSource(y_true, preds, source.n_buckets)
    evaluation = segment_run(
        windowed, "by", {"window": WINDOW}, segment_settings, read, level_tests=False, blocks=key
    )
    if key is None:
        evaluation = dataclasses.replace(evaluation, scheme=resampling, block_length=block_length)
    return window_result(evaluation, found, settings)
