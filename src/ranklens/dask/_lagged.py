"""Measures scaled by the mean lag-1 change of the truth (pmap) on Dask: sums in row order.

A measure declaring a :class:`ranklens._foundation.forms.LagScaledForm` is a mean of a per-row loss
over the mean absolute change between consecutive rows of the truth,

``[sum_i w_i loss_i / sum_i w_i] / [sum_{t=2..n} |y_t - y_{t-1}| / (n - 1)]``.

The partitions of a dask DataFrame are its rows in order (a Parquet data set's files in the
order of their paths, each file's rows in order), so one read gives, per partition, the sums of
the weighted losses and of the weights, the sum of the lag-1 changes inside the partition, and
its first and last truth values; the client adds the changes between the last row of each
non-empty partition and the first of the next, and adds everything with :func:`math.fsum`.
No sort and no shuffle. The value depends on the row order, as in memory: the memory engine on
the same rows in the same order gives the same number (to the last bits of the sums).

References
----------
Hyndman, R. J. and Koehler, A. B. (2006). Another look at measures of forecast accuracy.
*International Journal of Forecasting* 22(4), 679-688. doi:10.1016/j.ijforecast.2006.03.001

Payne, K., Li, T. and Qin, M. (2016). Measures of prediction accuracy and ranking. Technical
report.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._foundation.forms import LagScaledForm
from ranklens._foundation.problems import Problem, metric_info
from ranklens._foundation.registry import MetricSpec
from ranklens.dask import _engine as _e

__all__ = ["claim", "evaluate_claimed", "lag_partition"]


def claim(the_plan: Any) -> tuple[Any, list[MetricSpec]]:
    """The plan without the point measures declaring a lag-scaled form, and those measures."""
    return _e.claim_declared(the_plan, lambda spec: spec.capabilities.lag_scaled is not None)


def lag_partition(
    part: Any, y: str, preds: Sequence[str], weight: str | None, forms: Sequence[LagScaledForm]
) -> dict[str, Any]:
    """One partition's sums: rows, first and last ``y``, the lag-1 change sum inside it, the
    weight, and per model and form the weighted loss sum."""
    yv = part[y].to_numpy(dtype=np.float64)
    if yv.size == 0:
        return {"n": 0}
    w = None if weight is None else part[weight].to_numpy(dtype=np.float64)
    losses = []
    for pred in preds:
        p = part[pred].to_numpy(dtype=np.float64)
        per_form = []
        for form in forms:
            loss = np.asarray(form.loss(yv, p), dtype=np.float64)
            per_form.append(float(loss.sum() if w is None else (w * loss).sum()))
        losses.append(per_form)
    return {
        "n": int(yv.size),
        "first": float(yv[0]),
        "last": float(yv[-1]),
        "lag": float(np.abs(np.diff(yv)).sum()),
        "w": float(yv.size if w is None else w.sum()),
        "loss": losses,
    }


def scale_sum(parts: Sequence[dict[str, Any]]) -> float:
    """``sum_{t=2..n} |y_t - y_{t-1}|`` over all rows from the partitions' pieces (in order)."""
    parts = [q for q in parts if q["n"]]
    terms = [q["lag"] for q in parts]
    terms += [abs(b["first"] - a["last"]) for a, b in itertools.pairwise(parts)]
    return math.fsum(terms)


def evaluate_claimed(
    dask: Any,
    frame: Any,
    specs: Sequence[MetricSpec],
    *,
    y: str,
    preds: Sequence[str],
    weight: str | None,
    values: dict[str, dict[str, float]],
    problems: dict[str, dict[str, Problem]],
    info: dict[str, dict[str, Any]],
) -> None:
    """Compute the claimed measures into ``values``, ``problems`` and ``info`` (in place), in one
    read of the truth, the predictions and the weights."""
    if not specs:
        return
    forms = [s.capabilities.lag_scaled for s in specs]
    assert all(f is not None for f in forms)
    parts = dask.compute(
        *[
            dask.delayed(lag_partition)(part, y, list(preds), weight, forms)
            for part in frame.to_delayed()
        ]
    )
    parts = [q for q in parts if q["n"]]
    n = sum(q["n"] for q in parts)
    scale = scale_sum(parts) / (n - 1)
    total_w = math.fsum(q["w"] for q in parts)
    for j, spec in enumerate(specs):
        info[spec.name] = metric_info(spec)
        form = forms[j]
        assert form is not None
        for k, model in enumerate(preds):
            if not scale > 0:
                values[model][spec.name] = math.nan
                problems[model][spec.name] = Problem("undefined", form.zero_scale)
                continue
            mean_loss = math.fsum(q["loss"][k][j] for q in parts) / total_w
            values[model][spec.name] = mean_loss / scale
