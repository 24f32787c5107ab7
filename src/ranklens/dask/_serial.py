"""Politis and White's automatic block length on Dask: autocovariances summed across partitions.

The automatic length of :func:`ranklens._foundation.serial.optimal_block_lengths` reads the
sample autocovariances ``gamma_k = (1/n) sum_{t=1}^{n-k} (x_t - xbar)(x_{t+k} - xbar)`` of each
series, from lag 0 up to the first run of ``K_n`` small autocorrelations and then up to the
bandwidth ``M`` (Politis & White 2004, with the correction of Patton, Politis & White 2009).
The series are, as in memory (:func:`ranklens._inference.resampling.resolve_block_length`),
every model's absolute errors ``|y - p|`` and every pair's differences of them, in row order.

The partitions of a dask DataFrame are its rows in order, so a product ``x_t x_{t+k}`` lies in
one partition or straddles a boundary. One read gives each partition's count and sum of every
series (the means, added with :func:`math.fsum`); then each read of a round of lags
``lo..hi`` gives, per partition, the sums of the products inside it, its first and its last
``hi`` centred values: a product straddling a boundary pairs a value of the last ``hi`` before
the partition (the tails of the partitions before it, as many as hold ``hi`` rows) with one of
its first ``hi``, which a task on the workers adds per partition. The client adds every piece
with :func:`math.fsum` and asks :func:`ranklens._foundation.serial.lengths_from_autocovariances`
whether the lags so far decide the length; when they do not, it is told how many more to read.
Most series decide within the first round (64 lags); a series whose dependence never dies down
reads up to ``ceil(sqrt(n)) + K_n`` lags, as in memory.

Rows may carry a segment code (a time window, whose rows are consecutive): each segment is then
a series of its own, centred by its own mean, and a product counts only when both rows are in
the same segment, so every window gets the in-memory length of its own rows.

References
----------
Politis, D. N. and White, H. (2004). Automatic block-length selection for the dependent
bootstrap. *Econometric Reviews* 23(1), 53-70. doi:10.1081/ETC-120028836

Patton, A., Politis, D. N. and White, H. (2009). Correction to "Automatic block-length selection
for the dependent bootstrap" by D. Politis and H. White. *Econometric Reviews* 28(4), 372-375.
doi:10.1080/07474930802459016
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.serial import (
    BlockLengths,
    block_length_lags,
    lengths_from_autocovariances,
)

__all__ = ["FIRST_LAGS", "MIN_ROWS", "automatic_lengths", "series_rows"]

#: The lags the first round reads (fewer when a series is shorter).
FIRST_LAGS = 64

#: The fewest rows an automatic length is computed from (as in memory).
MIN_ROWS = 9


def series_rows(yv: np.ndarray, pv: Sequence[np.ndarray]) -> np.ndarray:
    """The series of the automatic length, one row each: every model's absolute errors, then
    every pair's differences of absolute errors (``e_i - e_j``, ``i < j``), as in memory.

    Parameters
    ----------
    yv : ndarray of float64
        The truth.
    pv : sequence of ndarray of float64
        The predictions, one per model.

    Returns
    -------
    ndarray of float64, shape (S, n)
    """
    errors = [np.abs(yv - p) for p in pv]
    pairs = [a - b for i, a in enumerate(errors) for b in errors[i + 1 :]]
    return np.stack(errors + pairs) if errors else np.zeros((0, yv.size))


def _arrays(part: Any, y: str, preds: Sequence[str], code: str | None) -> tuple[Any, Any]:
    """A partition's series (S, n) and its rows' segment codes (int64)."""
    yv = part[y].to_numpy(dtype=np.float64)
    x = series_rows(yv, [part[p].to_numpy(dtype=np.float64) for p in preds])
    codes = np.zeros(yv.size, np.int64) if code is None else part[code].to_numpy(dtype=np.int64)
    return x, codes


def mean_piece(part: Any, y: str, preds: Sequence[str], code: str | None) -> dict[str, Any]:
    """One partition's rows and sums of every series, per segment code present."""
    x, codes = _arrays(part, y, preds, code)
    present, inverse = np.unique(codes, return_inverse=True)
    if present.size == 1:  # (one segment: NumPy's pairwise sum)
        sums = x.sum(axis=1)[:, None]
    else:
        sums = np.stack([np.bincount(inverse, weights=row, minlength=present.size) for row in x])
    return {
        "codes": present,
        "rows": np.bincount(inverse, minlength=present.size),
        "sums": sums,
    }


def _lag_sums(
    left: np.ndarray,
    right: np.ndarray,
    left_codes: np.ndarray,
    right_codes: np.ndarray,
    out: dict[int, np.ndarray],
    column: int,
) -> None:
    """Add ``sum left * right`` of the pairs in one segment to ``out[code][:, column]``."""
    if left.shape[1] == 0:
        return
    if left_codes[0] == right_codes[-1]:  # (rows in time order: every pair in one segment)
        total = np.einsum("ij,ij->i", left, right)
        _add(out, int(left_codes[0]), total, column)
        return
    same = left_codes == right_codes
    codes = left_codes[same]
    present, inverse = np.unique(codes, return_inverse=True)
    products = left[:, same] * right[:, same]
    for j, c in enumerate(present.tolist()):
        _add(out, int(c), products[:, inverse == j].sum(axis=1), column)


def _add(out: dict[int, np.ndarray], code: int, total: np.ndarray, column: int) -> None:
    """``out[code][:, column] += total`` (the array created, wide enough, on first use)."""
    held = out.get(code)
    if held is None or held.shape[1] <= column:
        grown = np.zeros((total.shape[0], column + 1))
        if held is not None:
            grown[:, : held.shape[1]] = held
        out[code] = held = grown
    held[:, column] += total


def lag_piece(
    part: Any,
    y: str,
    preds: Sequence[str],
    code: str | None,
    means: tuple[np.ndarray, np.ndarray],
    lo: int,
    hi: int,
) -> dict[str, Any]:
    """One partition's sums of ``c_t c_{t+k}`` for ``k = lo..hi`` inside it (``c`` the series
    centred by its segment's mean; pairs in one segment), and its first and last ``hi``
    centred values with their codes (for the products across its boundaries). ``means``: the
    segments' codes, sorted, and their means (one row per code)."""
    x, codes = _arrays(part, y, preds, code)
    n = codes.size
    codes_known, table = means
    centred = x - table[np.searchsorted(codes_known, codes)].T
    sums: dict[int, np.ndarray] = {}
    for column, k in enumerate(range(lo, hi + 1)):
        if k >= n:
            break
        _lag_sums(centred[:, : n - k], centred[:, k:], codes[: n - k], codes[k:], sums, column)
    return {
        "rows": n,
        "sums": sums,
        "head": (centred[:, :hi], codes[:hi]),
        "tail": (centred[:, max(0, n - hi) :], codes[max(0, n - hi) :]),
    }


def cross_piece(
    before: Sequence[dict[str, Any]], piece: dict[str, Any], lo: int, hi: int
) -> dict[int, np.ndarray]:
    """The sums of ``c_t c_{t+k}`` (``k = lo..hi``, one segment) with ``t`` before a partition
    and ``t + k`` in it: ``before`` the pieces of the partitions before it, in order, enough of
    them to hold its last ``hi`` rows (or all)."""
    head, head_codes = piece["head"]
    if not before or head.shape[1] == 0:
        return {}
    prev = np.concatenate([p["tail"][0] for p in before], axis=1)[:, -hi:]
    prev_codes = np.concatenate([p["tail"][1] for p in before])[-hi:]
    q, h = prev.shape[1], head.shape[1]
    z = np.concatenate([prev, head], axis=1)
    z_codes = np.concatenate([prev_codes, head_codes])
    sums: dict[int, np.ndarray] = {}
    for column, k in enumerate(range(lo, hi + 1)):
        first, stop = max(0, q - k), min(q, q + h - k)  # t in prev, t + k in head
        if k == 0 or first >= stop:
            continue
        _lag_sums(
            z[:, first:stop],
            z[:, first + k : stop + k],
            z_codes[first:stop],
            z_codes[first + k : stop + k],
            sums,
            column,
        )
    return sums


def _preceding(part_rows: Sequence[int], j: int, hi: int) -> list[int]:
    """The partitions before ``j`` whose tails hold the last ``hi`` rows before it."""
    out: list[int] = []
    held = 0
    for i in range(j - 1, -1, -1):
        if part_rows[i]:
            out.append(i)
            held += part_rows[i]
        if held >= hi:
            break
    return out[::-1]


def automatic_lengths(
    dask: Any,
    frame: Any,
    y: str,
    preds: Sequence[str],
    code: str | None = None,
) -> dict[int, list[BlockLengths]]:
    """Per segment of at least :data:`MIN_ROWS` rows, the automatic block lengths of every
    series of its rows (:func:`series_rows`): those of
    :func:`ranklens._foundation.serial.optimal_block_lengths`, from autocovariances summed
    across the partitions.

    Parameters
    ----------
    dask : module
        ``dask``.
    frame : dask.dataframe.DataFrame
        The rows in order, with the truth, the predictions and (with ``code``) the segment codes.
    y : str
        The truth column.
    preds : sequence of str
        The prediction columns.
    code : str, optional
        A column of int64 segment codes, non-decreasing in row order (a segment's rows are
        consecutive); None: every row in one segment, code 0.

    Returns
    -------
    dict
        ``{code: [BlockLengths of each series]}``, for the segments of at least
        :data:`MIN_ROWS` rows.
    """
    columns = list(dict.fromkeys([y, *preds, *([code] if code else [])]))
    parts = frame[columns].to_delayed()
    pieces = dask.compute(*[dask.delayed(mean_piece)(p, y, list(preds), code) for p in parts])
    rows: dict[int, int] = {}
    sums: dict[int, list[np.ndarray]] = {}
    part_rows = []
    for piece in pieces:
        part_rows.append(int(piece["rows"].sum()))
        for j, c in enumerate(piece["codes"].tolist()):
            rows[c] = rows.get(c, 0) + int(piece["rows"][j])
            sums.setdefault(c, []).append(piece["sums"][:, j])
    codes_known = np.array(sorted(rows), dtype=np.int64)
    table = np.array(
        [
            [math.fsum(s[i] for s in sums[c]) / rows[c] for i in range(sums[c][0].size)]
            for c in codes_known.tolist()
        ]
    )
    wanted = {c: block_length_lags(n) for c, n in rows.items() if n >= MIN_ROWS}
    gamma: dict[int, np.ndarray] = {c: np.zeros((table.shape[1], 0)) for c in wanted}
    found: dict[int, list[BlockLengths]] = {}
    lo, hi = 0, min(FIRST_LAGS, max(wanted.values(), default=0))
    while wanted:
        totals = _round(dask, parts, y, preds, code, (codes_known, table), part_rows, lo, hi)
        asked = 0
        for c in list(wanted):
            held = totals.get(c, [])
            new = np.array(
                [
                    [math.fsum(t[i, k] for t in held if t.shape[1] > k) for k in range(hi - lo + 1)]
                    for i in range(table.shape[1])
                ]
            )
            gamma[c] = np.concatenate([gamma[c], new / rows[c]], axis=1)
            results = [lengths_from_autocovariances(g[: wanted[c] + 1], rows[c]) for g in gamma[c]]
            need = [r for r in results if not isinstance(r, BlockLengths)]
            if need:
                asked = max(asked, *need)
                continue
            found[c] = [r for r in results if isinstance(r, BlockLengths)]
            del wanted[c]
        lo, hi = hi + 1, asked
    return found


def _round(
    dask: Any,
    parts: Sequence[Any],
    y: str,
    preds: Sequence[str],
    code: str | None,
    means: tuple[np.ndarray, np.ndarray],
    part_rows: Sequence[int],
    lo: int,
    hi: int,
) -> dict[int, list[np.ndarray]]:
    """One read: every partition's and every boundary's sums for lags ``lo..hi``, per code."""
    pieces = [dask.delayed(lag_piece)(p, y, list(preds), code, means, lo, hi) for p in parts]
    crosses = [
        dask.delayed(cross_piece)(
            [pieces[i] for i in _preceding(part_rows, j, hi)], pieces[j], lo, hi
        )
        for j in range(len(pieces))
    ]
    inside, across = dask.compute([dask.delayed(_sums_of)(p) for p in pieces], crosses)
    out: dict[int, list[np.ndarray]] = {}
    for found in [*inside, *across]:
        for c, s in found.items():
            out.setdefault(c, []).append(s)
    return out


def _sums_of(piece: dict[str, Any]) -> dict[int, np.ndarray]:
    return piece["sums"]
