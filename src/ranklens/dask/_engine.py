"""The passes over a dask DataFrame and the exact combination of their summaries.

Reads: (1) a scan (row counts, validity, samples for the bucket boundaries, mergeable sums);
(2) for an event definition by a quantile of ``y``, exact two-pass selection of the threshold;
(3) the (prediction bucket x truth bucket) grid of every model; (4) one shuffle by prediction
per model (range partitioning by value: one bucket per partition) followed, when rank
correlations are wanted, by one shuffle by truth. Measures are chosen by what they declare in the
registry (:class:`ranklens._registry.Capabilities`), never by their names.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens._kernels import ranking as _kr
from ranklens._registry import (
    ComputationalForm,
    CurveForm,
    MetricSpec,
    RankStatistic,
    RankSweepForm,
    RatioForm,
)
from ranklens.metrics import available_metrics, get_metric
from ranklens.ranking import _tau_c_from_classes

#: Rows per bucket aimed at when the buckets are chosen (a bucket is one partition in memory).
ROWS_PER_BUCKET = 500_000


@dataclasses.dataclass(frozen=True)
class Plan:
    """The measures the engine computes, by what they declare, and those it cannot."""

    ratio: list[MetricSpec]
    sweep: list[MetricSpec]
    curve: list[MetricSpec]
    unsupported: dict[str, str]


def plan(measures: Sequence[str] | None) -> Plan:
    """Sort the registered point measures by the computation they declare."""
    names = list(available_metrics()) if measures is None else list(measures)
    ratio, sweep, curve, unsupported = [], [], [], {}
    for name in names:
        spec = get_metric(name)
        caps = spec.capabilities
        form = caps.computational_form
        if spec.inputs != "point":
            unsupported[spec.name] = "needs prediction intervals: give intervals= and alpha="
        elif form is ComputationalForm.MERGEABLE_SUMS and isinstance(caps.batched, RatioForm):
            ratio.append(spec)
        elif form is not None and isinstance(caps.batched, RankSweepForm):
            sweep.append(spec)
        elif form is not None and isinstance(caps.curve, CurveForm):
            curve.append(spec)
        else:
            why = "declares no computational form" if form is None else f"needs {form.value}"
            unsupported[spec.name] = (
                f"not computed by the Dask engine: {why} without a distributed summary "
                "(ratio of sums, rank sweep or ranked curve)"
            )
    return Plan(ratio, sweep, curve, unsupported)


def _bounds(sample: np.ndarray, n_buckets: int, extra: Sequence[float] = ()) -> np.ndarray:
    """Distinct value boundaries cutting the sample into about ``n_buckets`` equal buckets."""
    if n_buckets <= 1 or sample.size == 0:
        cuts = np.zeros(0)
    else:
        cuts = np.quantile(sample, np.arange(1, n_buckets) / n_buckets, method="inverted_cdf")
        # bucket(x) = number of boundaries <= x: the smallest sampled value needs no boundary
        cuts = cuts[cuts > sample.min()]
    return np.unique(np.r_[cuts, np.asarray(extra, dtype=np.float64)])


def truth_bounds(
    sample: np.ndarray, n_buckets: int, extra: Sequence[float] = ()
) -> tuple[np.ndarray, np.ndarray]:
    """Boundaries for the truth, with every heavy value (a tie run of more than about half a
    bucket in the sample) isolated in a bucket of its own, ``[v, nextafter(v))``; and the
    indices of those single-valued buckets. Their rows need no shuffle: every pair in them is
    tied in the truth, and every row has the same truth midrank."""
    heavy = np.zeros(0)
    if sample.size and n_buckets > 1:
        values, counts = np.unique(sample, return_counts=True)
        heavy = values[counts > sample.size / (2 * n_buckets)]
    if sample.size and n_buckets <= 1:
        values, counts = np.unique(sample, return_counts=True)
        heavy = values[counts > sample.size / 2]
    isolating = np.r_[heavy, np.nextafter(heavy, np.inf)]
    bounds = np.unique(np.r_[_bounds(sample, n_buckets, extra), isolating])
    single = np.searchsorted(bounds, heavy, side="right")  # the bucket of each heavy value
    return bounds, single.astype(np.int64)


def _fsum(values: Any) -> float:
    return math.fsum(float(v) for v in values)


def _grid_cross(counts: Any) -> tuple[Any, Any]:
    """Pairs in different prediction buckets and different truth buckets: (concordant,
    discordant), from the grid ``G[a, b]`` (a: prediction bucket, b: truth bucket)."""
    g = np.asarray(counts, dtype=object)
    n_a, n_b = g.shape
    conc = 0
    disc = 0
    # above[b] = weight of rows in earlier prediction buckets, by truth bucket
    above = np.zeros(n_b, dtype=object) if g.dtype == object else np.zeros(n_b)
    for a in range(n_a):
        row = g[a]
        lower = np.concatenate([[0], np.cumsum(above)[:-1]])  # earlier buckets, smaller truth
        total = sum(above)
        higher = total - np.cumsum(above)  # earlier buckets, larger truth
        conc += sum(row * lower)
        disc += sum(row * higher)
        above = above + row
    return conc, disc


def combine_pairs(
    pred_parts: Sequence[dict[str, Any]],
    truth_parts: Sequence[dict[str, Any]],
    grid_cross: tuple[Any, Any],
    all_pairs: Any,
    unit: bool,
) -> dict[str, Any]:
    """Global pair classes from the pieces (see ``ranklens.ranking._pair_class_stats``)."""
    add = sum if unit else _fsum

    def total(parts: Sequence[dict[str, Any]], key: str) -> Any:
        return add(p[key] for p in parts)

    conc = total(pred_parts, "concordant") + total(truth_parts, "concordant") + grid_cross[0]
    disc = total(pred_parts, "discordant") + total(truth_parts, "discordant") + grid_cross[1]
    tied_y = total(truth_parts, "tied_y")
    tied_p = total(pred_parts, "tied_p")
    tied_b = total(pred_parts, "tied_both")
    return {
        "concordant": conc,
        "discordant": disc,
        "tied_true_only": tied_y - tied_b,
        "tied_pred_only": tied_p - tied_b,
        "tied_both": tied_b,
        "distinct_y": all_pairs - tied_y,
        "distinct_pred": all_pairs - tied_p,
    }


def rank_statistics(classes: dict[str, Any]) -> dict[RankStatistic, float]:
    """Kendall's tau-b and Harrell's C from the pair classes (as the in-memory sweep)."""
    tau, c_index = _tau_c_from_classes(classes)
    return {RankStatistic.KENDALL_TAU_B: tau, RankStatistic.HARRELL_C: c_index}


def spearman_unit(n: int, s2: int, t_pred: int, t_y: int) -> float:
    """Midrank Spearman rho from exact integer sums (as ``ranklens.ranking._exact_spearman``)."""
    cube = n**3 - n
    cross = s2 - n * (n + 1) ** 2
    denom = (cube - t_pred) * (cube - t_y)
    if denom <= 0:
        return math.nan
    return min(1.0, max(-1.0, 3 * cross / math.sqrt(denom)))


def spearman_weighted(cov: float, var_a: float, var_b: float) -> float:
    """Weighted midrank Spearman rho from the weighted midrank moments."""
    return float(_kr._rho(cov, var_a, var_b))


def exact_top_threshold(
    values: np.ndarray,
    weights: np.ndarray | None,
    above_count: int,
    above_weight: float,
    q: float,
    n: int,
    total_w: float,
) -> float:
    """The smallest y value v with weight{y >= v} >= q W (``targeting._top_threshold``), from the
    rows of the truth bucket that holds it and the count / weight of the buckets above it."""
    if weights is None:
        k = min(n, max(1, math.ceil(q * n - 1e-9)))
        j = k - above_count  # the j-th largest value of this bucket
        order = np.sort(values)[::-1]
        return float(order[j - 1])
    order = np.argsort(-values, kind="stable")
    cum = above_weight + np.cumsum(weights[order])
    j = min(int(np.searchsorted(cum, q * total_w * (1.0 - 1e-12), side="left")), values.size - 1)
    return float(values[order][j])
