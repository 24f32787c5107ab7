"""Exact evaluation on Dask, for data larger than one machine's memory (``ranklens[dask]``).

:func:`evaluate` takes a dask DataFrame or Parquet files and returns the in-memory pipeline's
:class:`ranklens.ModelEvaluation`; it is what :func:`ranklens.evaluate_models` calls with
``engine="dask"``, and takes the same parameter names (``y_true``, ``predictions``,
``sample_weight``, ``groups``, ``metrics``, ...), each naming a column of ``data``.
The measures are exact: counts are added as Python integers and float sums with
:func:`math.fsum`, so the numbers equal the in-memory ones whatever the partitioning. Which
measures it computes follows from what each declares in the registry (a ratio of sums, a
statistic of the rank sweep, a functional of the ranked curve).
:func:`by_segment` and :func:`scan_segments` evaluate segments of the rows and :func:`by_window`
time windows; with ``time`` the replicates draw blocks of consecutive rows in time order.
:func:`trim_worker_memory`, run in workers (``client.run(trim_worker_memory)``), hands back the
memory a worker paused on memory no longer uses.

References
----------
Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239-251.
Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition Letters* 27(8),
861-874.
"""

from __future__ import annotations

from ranklens.dask._evaluate import binned_auc, evaluate
from ranklens.dask._segments import by_segment, scan_segments
from ranklens.dask._watch import trim_worker_memory
from ranklens.dask._windows import by_window

__all__ = [
    "binned_auc",
    "by_segment",
    "by_window",
    "evaluate",
    "scan_segments",
    "trim_worker_memory",
]
