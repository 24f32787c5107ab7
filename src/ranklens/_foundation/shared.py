"""Results shared within a block: one computation per input, for callers that ask again.

A comparison takes the point values of Kendall's tau, Spearman's rho and Harrell's C, the
analytic variances of tau and the bootstrap's ranks of each model; each needs the same sort
of the model's data (and the first three the same sweep). Within :func:`shared_results`,
:func:`shared` computes a result once per kind and input and hands it to every later caller
with equal inputs: one sort a model instead of one a measure (about 0.1 s each at n = 1e6).

A result is reused only for inputs equal, value by value, to copies of those it was computed
from, so data changed in between are computed anew. The results are shared: callers read them
and never write into them (they stay writable: read-only arrays would make numba compile
every kernel they reach a second time).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

__all__ = ["RANK_SEQUENCE", "RANK_SWEEP", "shared", "shared_results", "sharing"]

T = TypeVar("T")

#: The rows sorted by y then prediction, with the dense ranks of both
#: (``ranklens._compute.xp.sequence.sequence(y, p, need_pred_rank=True)``), per ``(y, p)``.
RANK_SEQUENCE = "rank sequence"
#: The pair-class sums of one rank sweep, per ``(y, p, sample_weight)``.
RANK_SWEEP = "rank sweep"

#: How many leading values are compared before whole arrays are (most unequal data differ there).
_PROBE = 4096


@dataclasses.dataclass
class _Kept:
    """What a :func:`shared_results` block keeps: per kind, the results with the copies of the
    inputs they were computed from; and those copies, each held once however many results were
    computed from equal data (the truth of a comparison is one copy for every model's sort and
    sweep, not one a result: at 1e8 rows each copy is 800 MB)."""

    results: dict[str, list[tuple[tuple[np.ndarray | None, ...], Any]]] = dataclasses.field(
        default_factory=dict
    )
    copies: list[np.ndarray] = dataclasses.field(default_factory=list)

    def copy_of(self, given: np.ndarray) -> np.ndarray:
        """The kept copy whose values equal ``given``'s, made now if there is none."""
        for kept in self.copies:
            if _same_values(kept, given):
                return kept
        kept = given.copy()
        self.copies.append(kept)
        return kept


_KEPT: contextvars.ContextVar[_Kept | None] = contextvars.ContextVar("_KEPT", default=None)


@contextlib.contextmanager
def shared_results() -> Iterator[None]:
    """Within the block, :func:`shared` computes each result once per input."""
    token = _KEPT.set(_Kept())
    try:
        yield
    finally:
        _KEPT.reset(token)


def sharing() -> bool:
    """Whether the caller runs within :func:`shared_results`."""
    return _KEPT.get() is not None


def _same_values(kept: np.ndarray, given: np.ndarray) -> bool:
    if kept.shape != given.shape:
        return False
    if kept.size > _PROBE and not np.array_equal(kept.flat[:_PROBE], given.flat[:_PROBE]):
        return False
    return bool(np.array_equal(kept, given))


def shared(kind: str, inputs: tuple[np.ndarray | None, ...], compute: Callable[[], T]) -> T:
    """``compute()``, or within :func:`shared_results` the result an earlier call of the same
    ``kind`` computed from inputs equal to ``inputs`` (arrays or None)."""
    kept = _KEPT.get()
    if kept is None:
        return compute()
    copies = tuple(None if given is None else kept.copy_of(given) for given in inputs)
    results = kept.results.setdefault(kind, [])
    for arrays, result in results:
        # equal inputs share one kept copy: the same copies, the same data
        if all(a is c for a, c in zip(arrays, copies, strict=True)):
            return result
    result = compute()
    results.append((copies, result))
    return result
