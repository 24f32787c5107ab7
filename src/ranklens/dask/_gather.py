"""Compute a pass's small summaries and its large pieces in one graph, gathering the large pieces
as they finish.

``dask.compute(summaries, pieces)`` keeps every finished piece on its worker until the last task
of the graph is done, and only then sends all of them to the client. The curve arrays of
``curve_arrays=True`` are as large as the data's distinct predictions (one piece per bucket,
per model): held together on the workers they passed a 1 GiB worker's limit at 1e7 rows while
the shuffles were still running. With a ``distributed`` client the pieces are fetched one by one
as they finish (:func:`distributed.as_completed`) and released on the workers at once, so a
worker holds a piece only between its end and its transfer; the client holds them all in the
end, as before. Without a distributed scheduler (the threaded or synchronous scheduler, where
everything is in the client's memory anyway) this is ``dask.compute``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["compute_gathering"]


def _distributed_client() -> Any:
    """The ``distributed`` client that ``dask.compute`` would use now, or None."""
    try:
        from distributed import default_client
    except ImportError:
        return None
    try:
        client = default_client()
    except ValueError:  # no client
        return None
    import dask.base

    # a client may exist while the user chose another scheduler for this computation
    return client if dask.base.get_scheduler() == client.get else None


def compute_gathering(
    small: Sequence[Any], pieces: Sequence[Sequence[Any]]
) -> tuple[tuple[Any, ...], list[list[Any]]]:
    """``dask.compute(*small, pieces)``, with the ``pieces`` fetched as each one finishes.

    Parameters
    ----------
    small : sequence
        Nested lists of ``dask.delayed`` objects whose results are small (per-bucket summaries).
    pieces : sequence of sequence of dask.delayed
        Groups of large results (e.g. per model, one curve piece per bucket).

    Returns
    -------
    tuple, list of list
        The computed ``small`` (one item each) and ``pieces`` (same nesting).
    """
    import dask

    client = _distributed_client()
    flat = [(g, i) for g, group in enumerate(pieces) for i in range(len(group))]
    if client is None or not flat:
        *done, gathered = dask.compute(*small, [list(group) for group in pieces])
        return tuple(done), [list(group) for group in gathered]
    from distributed import as_completed

    # one submission: the shuffles both kinds of result need run once
    futures = client.compute([dask.delayed(list(small)), *(pieces[g][i] for g, i in flat)])
    summary, piece_futures = futures[0], futures[1:]
    where = {id(future): at for future, at in zip(piece_futures, flat, strict=True)}
    out: list[list[Any]] = [[None] * len(group) for group in pieces]
    for future in as_completed(piece_futures):
        g, i = where[id(future)]
        out[g][i] = future.result()  # raises the task's own error, as dask.compute would
        future.release()
    return tuple(summary.result()), out
