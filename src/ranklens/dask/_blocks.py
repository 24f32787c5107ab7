"""The Dask engine's block bootstrap: rows in time order, fixed blocks with Poisson weights.

The engine's replicates weigh each row by a Poisson(1) count that is a function of the seed, the
replicate and the row's key, so that every partition draws its rows' counts without
coordination (Hanley & MacGibbon 2006; Oza & Russell 2001). With units (``groups``) the key is
the unit's, so every row of a unit shares its weight (the clustered bootstrap). The block
bootstrap keys a row by its block: the rows in time order are cut into consecutive blocks of
``L`` rows (row ``t``, counted from 0, in block ``t // L``) and each block gets one Poisson
weight: the non-overlapping block bootstrap (Carlstein 1986) with Poisson weights, which keeps
the dependence between the rows of a block (Künsch 1989), computed as the clustered bootstrap
keyed by the block.

It differs from the in-memory schemes: the stationary bootstrap (Politis & Romano 1994) and the
circular block bootstrap draw blocks from random starting rows, so a row's weight depends on
which blocks other rows started, which cannot be drawn partition by partition; fixed blocks
give every row a key known from its position alone. The automatic length is Politis & White's
(2004, corrected by Patton, Politis & White 2009), computed exactly on the partitions
(:mod:`ranklens.dask._serial`) and rounded to whole rows: the value of their stationary
bootstrap's formula, ``b = (2 G^2 / D)^(1/3) n^(1/3)`` with ``D = 2 g^2``, which is also the
non-overlapping block bootstrap's, whose variance is 3/2 that of the moving or circular
blocks (``D = (4/3) g^2``) for the same bias (Hall, Horowitz & Jing 1995; Lahiri 1999).

To avoid a global sort the rows must already be in time order: the partitions in order and the
times non-decreasing within each and across their boundaries, checked in one read of the time
column (each partition's first and last time and whether it is sorted); otherwise the run is
refused, naming the first partition out of order. A row's position is then its partition's
first row plus its position in the partition.

References
----------
Carlstein, E. (1986). The use of subseries values for estimating the variance of a general
statistic from a stationary sequence. *The Annals of Statistics* 14(3), 1171-1179.

Hall, P., Horowitz, J. L. and Jing, B.-Y. (1995). On blocking rules for the bootstrap with
dependent data. *Biometrika* 82(3), 561-574.

Hanley, J. A. and MacGibbon, B. (2006). Creating non-parametric bootstrap samples using Poisson
frequencies. *Computer Methods and Programs in Biomedicine* 83(1), 57-62.

Künsch, H. R. (1989). The jackknife and the bootstrap for general stationary observations.
*The Annals of Statistics* 17(3), 1217-1241.

Lahiri, S. N. (1999). Theoretical comparisons of block bootstrap methods. *The Annals of
Statistics* 27(1), 386-404.

Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
bootstrap. *Econometric Reviews* 23(1), 53-70.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.dask import _serial

__all__ = [
    "BLOCKS",
    "POISSON",
    "SCHEMES",
    "BlockKey",
    "block_key",
    "check_resampling",
    "check_time_order",
    "order_info",
    "order_piece",
    "rounded_length",
    "time_as_column",
    "time_keys",
]

#: The Dask engine's resampling schemes: Poisson weights of rows (or units), or of blocks.
POISSON, BLOCKS = "poisson", "blocks"
SCHEMES = (POISSON, BLOCKS)

#: What the schemes of the in-memory engine that the Dask engine does not draw are, and why.
_NOT_ON_DASK = (
    "the Dask engine draws Poisson weights keyed by row, unit or block; the stationary and "
    "circular bootstraps draw blocks from random starting rows, which cannot be drawn "
    "partition by partition"
)


@dataclasses.dataclass(frozen=True)
class BlockKey:
    """How the block bootstrap keys the rows.

    Attributes
    ----------
    length : int or None
        Rows per block, over the rows' positions (row ``t`` in block ``t // length``); None
        when each row's block is given in a column (the ``groups`` column of the run: blocks
        that restart at each time window).
    asked : int or str
        The length asked: a number of rows or ``"auto"``.
    estimate : float or None
        With ``"auto"``, Politis & White's length before rounding (None when the blocks'
        lengths differ by window).
    time : str or None
        The column whose times put the rows in order (None: the order given).
    lengths : dict
        Per segment name (a time window), its rows per block, when they differ by segment.
    not_compared : dict
        Per segment name, why it gets no comparison (a window too short for an automatic
        length, or shorter than the length given), as in memory.
    """

    length: int | None
    asked: int | str
    estimate: float | None = None
    time: str | None = None
    lengths: dict[str, int] = dataclasses.field(default_factory=dict)
    not_compared: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def words(self) -> str:
        """What the replicates are keyed by, for notes and ``extras["bootstrap"]["keys"]``."""
        order = f"in time order by {self.time!r}" if self.time else "in the order given"
        if self.length is None:
            return f"blocks of consecutive rows {order}, cut anew in each window"
        return f"blocks of {self.length} consecutive rows {order}"

    def settings(self, inference: str | None = None) -> dict[str, Any]:
        """The run's settings of the scheme: ``scheme``, ``block_length`` (and the automatic
        length before rounding, ``block_length_estimate``), ``time`` and ``block bootstrap``,
        the sentence the terminal, the JSON document and the report show (as the in-memory
        block schemes' ``settings["block bootstrap"]``).

        Parameters
        ----------
        inference : str, optional
            The ``inference`` asked for: with ``"auto"`` the sentence says why the analytic
            intervals are not used.

        Returns
        -------
        dict
        """
        length = self.length or self.asked
        out: dict[str, Any] = {"scheme": BLOCKS, "block_length": length}
        if self.estimate is not None:
            out["block_length_estimate"] = self.estimate
        if self.time is not None:
            out["time"] = self.time
        how = "chosen by Politis & White (2004)" if self.asked == "auto" else "given"
        order = (
            f"the rows in time order by {self.time!r}"
            if self.time
            else "the rows in the order given"
        )
        sentence = (
            "every interval and paired test from the non-overlapping block bootstrap (fixed "
            f"blocks of consecutive rows, Carlstein 1986; one Poisson weight per block), block "
            f"length {length} {how}, over {order}"
        )
        if inference == "auto":
            sentence += (
                "; DeLong's and Noether's analytic intervals assume independent rows and are not "
                "used with blocks"
            )
        out["block bootstrap"] = sentence
        return out


def check_resampling(
    time: Any,
    scheme: Any,
    block_length: Any,
    *,
    n_bootstrap: int | None,
    groups: Any,
    default: str | None = None,
) -> str:
    """The scheme the replicates use, checked before any read.

    Parameters
    ----------
    time : str or None
        The time column (it asks for blocks by default).
    scheme : {"poisson", "blocks"} or None
        ``"poisson"``: rows (or units, with ``groups``) weighed one by one; ``"blocks"``:
        blocks of consecutive rows; None: ``default``, else ``"blocks"`` with ``time`` and
        ``"poisson"`` without.
    block_length : int or "auto"
        Rows per block (``"auto"``: Politis & White's length).
    n_bootstrap : int or None
        The replicates (blocks need them; None: not checked, for a run whose values alone are
        asked without replicates).
    groups : str or None
        The units' column (units and blocks are two designs).
    default : str, optional
        The scheme when none is given.

    Returns
    -------
    str
        ``"poisson"`` or ``"blocks"``.

    Raises
    ------
    ValueError
        Naming the argument: ``time`` not a column name, an unknown ``scheme`` (the in-memory
        ``"stationary"`` and ``"circular"`` with the reason), a ``block_length`` that is not
        ``"auto"`` or a whole number >= 1 or that is given without blocks, blocks with
        ``groups`` or without replicates.
    """
    if time is not None and not isinstance(time, str):
        raise ValueError(f"time must name the column of the rows' times; got {time!r}")
    if scheme is None:
        scheme = default or (BLOCKS if time is not None else POISSON)
    if scheme in ("stationary", "circular", "multinomial", "bayesian"):
        raise ValueError(
            f"scheme={scheme!r} is not available on Dask ({_NOT_ON_DASK}); give "
            f"scheme='blocks' (fixed blocks of consecutive rows in time order) or 'poisson'"
        )
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; got {scheme!r}")
    auto = isinstance(block_length, str) and block_length == "auto"
    if scheme == POISSON:
        if not auto:
            raise ValueError(
                f"block_length is the 'blocks' scheme's; scheme='poisson' draws no blocks, got "
                f"block_length={block_length!r}"
            )
        if time is not None:
            raise ValueError(
                f"time={time!r} orders the rows for the blocks; scheme='poisson' weighs rows one "
                "by one and does not read their order: give scheme='blocks' or leave time out"
            )
        return POISSON
    check_block_length(block_length)
    if groups is not None:
        raise ValueError(
            f"groups={groups!r} with scheme='blocks': blocks of consecutive rows and whole units "
            "are two designs of the bootstrap; give one"
        )
    if n_bootstrap is not None and not n_bootstrap:
        raise ValueError(
            "scheme='blocks' needs n_bootstrap replicates (>= 2): the blocks are resampled by "
            "the bootstrap"
        )
    return BLOCKS


def check_block_length(block_length: Any) -> int | str:
    """``block_length`` as ``"auto"`` or a whole number of rows >= 1.

    Raises
    ------
    ValueError
        Naming ``block_length``.
    """
    if isinstance(block_length, str) and block_length == "auto":
        return "auto"
    whole = (
        isinstance(block_length, numbers.Real)
        and not isinstance(block_length, bool)
        and float(block_length).is_integer()
    )
    if not whole or block_length < 1:
        raise ValueError(
            "block_length must be 'auto' or a whole number of rows >= 1 (the blocks are fixed); "
            f"got {block_length!r}"
        )
    return int(block_length)


def time_as_column(data: Any, time: str | None) -> Any:
    """``data`` with its index as a column when the index is the time column (a dask
    DataFrame sorted by ``set_index(time)``); otherwise ``data`` as it is."""
    if time is None or isinstance(data, str) or hasattr(data, "__fspath__"):
        return data
    columns = getattr(data, "columns", ())
    index = getattr(data, "index", None)
    if time not in columns and getattr(index, "name", None) == time:
        return data.reset_index()
    return data


def rounded_length(estimate: float) -> int:
    """The whole rows per block of an automatic length (the nearest, at least 1), as the
    in-memory circular bootstrap rounds its length."""
    return max(1, round(estimate))


# ------------------------------------------------------------------------------------------------
# The rows in time order, checked


def time_keys(values: Any, name: str) -> tuple[np.ndarray, str]:
    """The rows' times as values that sort as the times do, and their kind.

    Numbers as float64 (``"number"``); datetimes (naive: ``"naive"``; with a zone, as UTC
    instants: ``"aware"``) as ``datetime64``; ISO 8601 strings parsed as times (with an offset,
    as UTC instants).

    Raises
    ------
    ValueError
        Naming the column: missing times, or values that are neither numbers nor times.
    """
    import pandas as pd

    series = pd.Series(values).reset_index(drop=True)
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise ValueError(f"time column {name!r} holds booleans, not times")
    if pd.api.types.is_numeric_dtype(dtype) and not isinstance(dtype, pd.CategoricalDtype):
        keys = series.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(keys).any():
            raise ValueError(f"time column {name!r} holds missing values; every row needs its time")
        return keys, "number"
    if not pd.api.types.is_datetime64_any_dtype(dtype):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                series = pd.Series(pd.to_datetime(series.astype(object), format="ISO8601"))
        except (ValueError, TypeError, OverflowError):
            series = _utc_strings(series, name)
    if series.isna().any():
        raise ValueError(f"time column {name!r} holds missing times; every row needs its time")
    if series.dt.tz is not None:
        return series.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(), "aware"
    return series.to_numpy(), "naive"


def _utc_strings(series: Any, name: str) -> Any:
    """ISO 8601 strings with changing offsets, as UTC times (or the refusal, by name)."""
    import pandas as pd

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pd.Series(pd.to_datetime(series.astype(object), format="ISO8601", utc=True))
    except (ValueError, TypeError, OverflowError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(
            f"time column {name!r}: cannot read the values as numbers or ISO 8601 times ({first})"
        ) from exc


def order_piece(part: Any, name: str) -> dict[str, Any]:
    """One partition's rows, first and last time, kind and first row out of order (-1: none)."""
    keys, kind = time_keys(part[name], name)
    return order_info(keys, kind)


def order_info(keys: np.ndarray, kind: str) -> dict[str, Any]:
    """What :func:`check_time_order` reads of one partition's sort keys of its times: its rows,
    first and last key, their ``kind`` and the first row out of order (-1: none)."""
    out: dict[str, Any] = {"rows": int(keys.size), "kind": kind}
    if keys.size:
        down = np.flatnonzero(keys[1:] < keys[:-1])
        out.update(first=keys[0], last=keys[-1], unsorted=int(down[0]) + 1 if down.size else -1)
        out["shown"] = (str(keys[down[0]]), str(keys[down[0] + 1])) if down.size else None
    return out


def check_time_order(pieces: Sequence[dict[str, Any]], name: str) -> list[int]:
    """The partitions' rows, once the rows are checked to be in time order.

    Raises
    ------
    ValueError
        Naming the column and the first partition out of order (not sorted inside, or starting
        before the one before it ends), or partitions of different kinds of times.
    """
    sort = (
        f"sort the rows by {name!r} first (e.g. df.sort_values({name!r}) or df.set_index({name!r})"
        ", then write the files in that order): the Dask engine does not sort them"
    )
    kinds = {p["kind"] for p in pieces if p["rows"]}
    if len(kinds) > 1:
        raise ValueError(
            f"time column {name!r} holds different kinds of times in different partitions "
            f"({', '.join(sorted(kinds))}); give one kind"
        )
    start, last, before = 0, None, None
    for i, p in enumerate(pieces):
        if p["rows"] and p["unsorted"] >= 0:
            at = start + p["unsorted"]
            earlier, later = p["shown"]
            raise ValueError(
                f"time column {name!r}: the rows are not in time order in partition {i} of "
                f"{len(pieces)} (counting from 0): row {at} ({later}) comes after row {at - 1} "
                f"({earlier}); {sort}"
            )
        if p["rows"] and last is not None and p["first"] < last:
            raise ValueError(
                f"time column {name!r}: the rows are not in time order: partition {i} of "
                f"{len(pieces)} (counting from 0) starts at {p['first']}, before partition "
                f"{before} ends ({last}); {sort}"
            )
        if p["rows"]:
            last, before = p["last"], i
        start += p["rows"]
    return [int(p["rows"]) for p in pieces]


def block_key(
    dask: Any,
    frame: Any,
    *,
    y: str,
    preds: Sequence[str],
    time: str | None,
    block_length: Any,
) -> BlockKey:
    """The blocks of a run: the rows checked to be in time order by ``time`` (one read of it),
    and the length, given or automatic (:func:`ranklens.dask._serial.automatic_lengths` of the
    models' absolute errors and their pairs' differences, the largest).

    Parameters
    ----------
    dask : module
        ``dask``.
    frame : dask.dataframe.DataFrame
        The rows, with ``y``, ``preds`` and ``time``.
    y, preds : str, sequence of str
        The truth and the prediction columns.
    time : str or None
        The time column (None: the rows in the order given).
    block_length : int or "auto"
        As :func:`check_block_length` returns it.

    Returns
    -------
    BlockKey

    Raises
    ------
    ValueError
        When the rows are not in time order (:func:`check_time_order`), ``"auto"`` meets fewer
        than 9 rows, or a length exceeds the rows (naming ``block_length``).
    """
    if time is not None:
        pieces = dask.compute(
            *[dask.delayed(order_piece)(p, time) for p in frame[[time]].to_delayed()]
        )
        n = sum(check_time_order(pieces, time))
    else:
        n = None
    asked = check_block_length(block_length)
    if asked == "auto":
        found = _serial.automatic_lengths(dask, frame, y, preds)
        if 0 not in found:
            raise ValueError(
                f"block_length='auto' needs at least {_serial.MIN_ROWS} rows; give a number of rows"
            )
        estimate = max(length.stationary for length in found[0])
        return BlockKey(rounded_length(estimate), "auto", estimate, time)
    if n is None:
        n = sum(dask.compute(*[dask.delayed(len)(p) for p in frame[[y]].to_delayed()]))
    assert isinstance(asked, int)
    if asked > n:
        raise ValueError(f"block_length must lie in [1, {n}] (the rows); got {block_length!r}")
    return BlockKey(asked, asked, None, time)
