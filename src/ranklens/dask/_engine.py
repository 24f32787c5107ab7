"""The passes over a dask DataFrame and the exact combination of their summaries.

Reads: (1) a scan (row counts, validity, samples for the bucket boundaries, mergeable sums);
(2) for an event definition by a quantile of ``y``, exact two-pass selection of the threshold;
(3) the (prediction bucket x truth bucket) grid of every model; (4) one shuffle by prediction
per model (range partitioning by value: one bucket per partition) followed, when rank
correlations are wanted, by one shuffle by truth. Measures are chosen by what they declare in the
registry (:class:`ranklens._foundation.registry.Capabilities`), never by their names.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ranklens._compute.kernels import ranking as _kr
from ranklens._compute.xp.summary import pair_classes
from ranklens._foundation.forms import CurveForm, RankStatistic, RankSweepForm, RatioForm
from ranklens._foundation.interval_formulas import (
    RatioStudentizer,
    TargetMoments,
    mean_loss_flags,
    skewed_target_note,
    symmetric_p_value,
)
from ranklens._foundation.normal import ndtri
from ranklens._foundation.registry import AnalyticVariance, ComputationalForm, MetricSpec
from ranklens.dask import _delong as _dl
from ranklens.exceptions import DomainError, RowDomainError
from ranklens.metrics import available_metrics, get_metric

#: Rows per bucket aimed at when the buckets are chosen (a bucket is one partition in memory).
ROWS_PER_BUCKET = 500_000

#: The largest in-memory buffers the engine asks of Dask's peer-to-peer shuffle on its own
#: cluster: Dask's defaults (1 GiB of shards waiting to be sent, 100 MiB waiting to be written).
P2P_BUFFERS_MAX = {
    "distributed.p2p.comm.buffer": 2**30,
    "distributed.p2p.storage.buffer": 100 * 2**20,
}


def shuffle_buffers(worker_memory: int) -> dict[str, int]:
    """Dask settings that hold the peer-to-peer shuffle's buffers to an eighth of a worker's
    memory (at least 32 MiB, at most Dask's defaults, :data:`P2P_BUFFERS_MAX`).

    Dask sizes the buffer of shards waiting to be sent at 1 GiB whatever the worker's memory;
    on a worker of 1 or 2 GiB that buffer alone can pass the limit at which the worker pauses
    (80 %), memory the worker cannot spill. Set them (``dask.config.set``) before the workers
    start: their nannies pass the configuration on.
    """
    if worker_memory <= 0:
        raise ValueError(f"worker_memory must be positive; got {worker_memory}")
    share = max(32 * 2**20, worker_memory // 8)
    return {key: min(share, most) for key, most in P2P_BUFFERS_MAX.items()}


#: Why an interval measure is not computed: no prediction intervals were given.
NEEDS_INTERVALS = "needs prediction intervals: give intervals= and alpha="


@dataclasses.dataclass(frozen=True)
class Plan:
    """The measures the engine computes, by what they declare, and those it cannot."""

    ratio: list[MetricSpec]
    sweep: list[MetricSpec]
    curve: list[MetricSpec]
    unsupported: dict[str, str]


def whole_failure(results: Sequence[Any], part_rows: Sequence[int]) -> Exception | None:
    """A measure's failure on the whole data from its results on the partitions (in row order,
    an exception where it failed; ``part_rows`` rows each), None where none failed: errors
    about rows combined (the first offending value at its global position, the counts added:
    the in-memory message), any other failure the first one."""
    rows_before = np.cumsum([0, *part_rows]).tolist()
    failures = [(rows_before[i], r) for i, r in enumerate(results) if isinstance(r, Exception)]
    if not failures:
        return None
    rows = [(offset, exc) for offset, exc in failures if isinstance(exc, RowDomainError)]
    return RowDomainError.combine(rows) if len(rows) == len(failures) else failures[0][1]


def plan(measures: Sequence[str] | None) -> Plan:
    """Sort the registered point measures by the computation they declare."""
    names = list(available_metrics()) if measures is None else list(measures)
    ratio, sweep, curve, unsupported = [], [], [], {}
    for name in names:
        spec = get_metric(name)
        caps = spec.capabilities
        form = caps.computational_form
        if spec.inputs != "point":
            unsupported[spec.name] = NEEDS_INTERVALS
        elif form is ComputationalForm.MERGEABLE_SUMS and isinstance(caps.batched, RatioForm):
            ratio.append(spec)
        elif isinstance(caps.batched, RankSweepForm) and _midranks_missing(caps.batched):
            unsupported[spec.name] = (
                "not computed by the Dask engine: its statistic reads the midrank moments, which "
                "the engine sums for Spearman's rho only"
            )
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


def _midranks_missing(form: RankSweepForm) -> bool:
    """Whether a rank-sweep statistic reads midrank moments the engine does not sum: it combines
    the pair classes for every statistic, and the midrank sums for Spearman's rho alone."""
    return form.statistic.moments and form.statistic is not RankStatistic.SPEARMAN_RHO


def claim_declared(
    the_plan: Plan, declares: Callable[[MetricSpec], bool]
) -> tuple[Plan, list[MetricSpec]]:
    """The plan without the point measures it could not compute for which ``declares(spec)``
    holds, and those measures: how a module that computes one more form takes its measures."""
    taken, rest = [], {}
    for name, why in the_plan.unsupported.items():
        spec = get_metric(name)
        if declares(spec) and spec.inputs == "point":
            taken.append(spec)
        else:
            rest[name] = why
    return dataclasses.replace(the_plan, unsupported=rest), taken


def quantile_bounds(sample: np.ndarray, n_buckets: int, extra: Sequence[float] = ()) -> np.ndarray:
    """Distinct value boundaries cutting the sample into about ``n_buckets`` equal buckets.

    Parameters
    ----------
    sample : ndarray of float64
        A sample of the column's values.
    n_buckets : int
        The number of buckets wanted.
    extra : sequence of float, optional
        Boundaries added whatever the sample (a threshold that must fall between buckets).

    Returns
    -------
    ndarray of float64
        The sorted, distinct boundaries: a value's bucket is the number of boundaries at or
        below it.
    """
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
    bounds = np.unique(np.r_[quantile_bounds(sample, n_buckets, extra), isolating])
    single = np.searchsorted(bounds, heavy, side="right")  # the bucket of each heavy value
    return bounds, single.astype(np.int64)


def fsum(values: Any) -> float:
    """The correctly rounded sum of float partial sums, whatever their order or grouping.

    Partitions finish in any order; adding their partial sums with :func:`math.fsum` gives the
    same bits however Dask grouped them.

    Parameters
    ----------
    values : iterable of float
        The partial sums.

    Returns
    -------
    float
        Their sum.
    """
    return math.fsum(float(v) for v in values)


def cross_bucket_pairs(counts: Any) -> tuple[Any, Any]:
    """Pairs in different prediction buckets and different truth buckets, from the grid of
    bucket counts.

    Parameters
    ----------
    counts : array-like of shape (prediction buckets, truth buckets)
        ``G[a, b]``: the weight of the rows in prediction bucket ``a`` and truth bucket ``b``
        (Python integers kept exact).

    Returns
    -------
    concordant, discordant : int or float
        The weight of the concordant and of the discordant pairs between buckets.
    """
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
    """Global pair classes from the pieces (see ``ranklens.ranking.pair_class_stats``)."""
    add = sum if unit else fsum

    def total(parts: Sequence[dict[str, Any]], key: str) -> Any:
        return add(p[key] for p in parts)

    conc = total(pred_parts, "concordant") + total(truth_parts, "concordant") + grid_cross[0]
    disc = total(pred_parts, "discordant") + total(truth_parts, "discordant") + grid_cross[1]
    tied_y = total(truth_parts, "tied_y")
    tied_p = total(pred_parts, "tied_p")
    tied_b = total(pred_parts, "tied_both")
    return pair_classes(conc, disc, tied_y, tied_p, tied_b, all_pairs)


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
    return float(_kr.clipped_correlation(cov, var_a, var_b))


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


def _analytic_method(spec: MetricSpec, model: str, extras: dict[str, Any]) -> tuple[str, Any]:
    """``(method, source)`` of the analytic interval the engine computed for a measure, read
    from its declarations: DeLong's for a concordance form that is the ROC AUC of the ranked
    curve (``extras["delong"]``) or an affine map of the rank sweep's Harrell's C (Harrell's C,
    Somers' D: ``extras["delong_c"]``), Noether's for Kendall's tau-b (an analytic variance of
    the rank-sweep statistic: ``extras["noether"]``, unweighted); ``("", None)`` for the
    others."""
    caps = spec.capabilities
    key = _dl.statistic_key(spec)
    if key == _dl.AUC and model in extras.get("delong", {}):
        return "delong", extras["delong"][model]
    if key == _dl.HARRELL_C and model in extras.get("delong_c", {}):
        return "delong", extras["delong_c"][model]
    sweep = caps.batched
    if (
        isinstance(caps.variance, AnalyticVariance)
        and isinstance(sweep, RankSweepForm)
        and sweep.statistic is RankStatistic.KENDALL_TAU_B
        and model in extras.get("noether", {})
    ):
        return caps.variance.method, extras["noether"][model]
    return "", None


def _concordance_agrees(spec: MetricSpec, source: Any, values: dict[str, float]) -> bool:
    """Whether a measure's declared concordance form maps the concordance DeLong's interval is
    about to its value (as :func:`ranklens.delong.comparison_arrays` checks before using it)."""
    form = spec.capabilities.delong
    if form is None:
        return False
    estimate = source["estimate"] if isinstance(source, dict) else source.estimate
    value = values.get(spec.name, math.nan)
    mapped = form.intercept + form.slope * estimate
    return bool(np.isclose(mapped, value, rtol=1e-9, atol=1e-12, equal_nan=True))


def interval_comparison(
    values: dict[str, dict[str, float]],
    preds: Sequence[str],
    extras: dict[str, Any],
    inference: str,
    level: float,
    sample: RowSample | None = None,
) -> Any:
    """The intervals and paired tests of a Dask evaluation, as the in-memory pipeline stores
    them (:class:`ranklens.evaluation.EvaluationComparison`), or None when there are none.

    Per measure: with ``inference="auto"`` the analytic interval the engine computed (DeLong,
    DeLong & Clarke-Pearson 1988 for the AUC, Harrell's C and Somers' D, the Wald interval
    ``value -+ z slope sqrt(Var C)`` clipped to the measure's range for a measure ``intercept +
    slope C``; Noether 1967 for Kendall's tau-b, the Wald interval ``tau -+ z sqrt(unbiased
    variance)`` clipped to [-1, 1], as in memory), else the percentile interval of the Poisson
    replicates (``extras["bootstrap"]``), with ``interval_methods`` saying which. Pairs of
    models are tested by DeLong's paired test where the engine computed the covariances
    (``extras["delong_covariance"]``: ``sd = slope sqrt(Var_a + Var_b - 2 Cov_ab)``, as
    :func:`ranklens.compare_models` with ``method="delong"``), else by the paired replicates
    (each row has the same Poisson weight in every model's replicate): ``difference_sd`` is the
    replicates' standard deviation of the difference, ``z`` its ratio to it, ``p`` the
    symmetric bootstrap p-value of the centred replicates (Hall & Wilson 1991; DeLong's test
    keeps its Gaussian ``2 Phi(-|z|)``); a measure with neither is not tested (``""``).

    The bootstrap intervals of a mean loss (a :class:`~ranklens._foundation.forms.RatioForm`) are
    flagged approximate by the rules of :func:`ranklens.compare_models`
    (:func:`ranklens._foundation.interval_formulas.mean_loss_flags`): the tail weights and one-row
    shares of the per-row contributions, read off ``sample`` (the first pass's random rows, all of
    them in a partition of at most :data:`ranklens.dask._passes.SAMPLE_PER_PARTITION` rows), and
    Cochran's rule on the target's skewness, from its moments merged over the partitions.
    """
    from scipy import special

    from ranklens._inference.resampling import replicate_sd
    from ranklens.evaluation import EvaluationComparison, IntervalQualifiers

    names = tuple(preds)
    boot = extras.get("bootstrap")
    reps_of: dict[str, dict[str, np.ndarray]] = boot["replicates"] if boot else {}
    boot_ci: dict[str, dict[str, Any]] = boot["intervals"] if boot else {}
    n_boot = int(boot["n_replicates"]) if boot else 0
    pair_index = [(a, b) for a in range(len(names)) for b in range(a + 1, len(names))]

    rows = _measure_rows(values, names, extras, inference, boot_ci)
    if not rows:
        return None

    n_metrics, n_models, n_pairs = len(rows), len(names), len(pair_index)

    def nan(*shape: int) -> np.ndarray:
        return np.full(shape, math.nan)

    # the result's array fields by name (Any: passed on as keywords among fields of other types)
    out: dict[str, Any] = {
        key: nan(n_metrics, n_models)
        for key in ("values", "std_error", "ci_lower", "ci_upper", "variance_plug_in")
    }
    out["variance_unbiased"] = nan(n_metrics, n_models)
    for key in (
        "difference",
        "difference_sd",
        "z",
        "p_value",
        "difference_ci_lower",
        "difference_ci_upper",
    ):
        out[key] = nan(n_metrics, n_pairs)
    replicates = nan(n_boot, n_metrics, n_models)
    n_undefined = np.zeros((n_metrics, n_models), dtype=np.int64)
    interval_of: list[str] = []
    test_of: list[str] = []
    delong_rows: list[int] = []  # the measures tested by DeLong's paired test
    evaluation: list[str] = []
    references: dict[str, str] = {}
    qualified = IntervalQualifiers(n_metrics, n_models, n_pairs)
    for k, row in enumerate(rows):
        spec = row["spec"]
        analytic = ""  # the method of the analytic interval of an analytic variance
        for m, model in enumerate(names):
            value = float(values[model].get(spec.name, math.nan))
            out["values"][k, m] = value
            reps = reps_of.get(model, {}).get(spec.name)
            if reps is not None:
                replicates[:, k, m] = reps
                n_undefined[k, m] = int((~np.isfinite(reps)).sum())
            method, source = row["methods"][m]
            if method == "delong":
                # the concordance's interval mapped by the measure's form (Somers' D = 2 C - 1)
                form = spec.capabilities.delong
                se = abs(form.slope) * source.std_error
                out["std_error"][k, m] = se
                out["variance_plug_in"][k, m] = se * se
                ends = sorted(form.intercept + form.slope * end for end in source.ci)
                out["ci_lower"][k, m], out["ci_upper"][k, m] = ends
            elif method == "bootstrap-percentile":
                out["std_error"][k, m] = replicate_sd(np.asarray(reps))
                out["ci_lower"][k, m], out["ci_upper"][k, m] = boot_ci[model][spec.name]
            elif method:
                own = _analytic_interval(spec, value, source, level, out, (k, m))
                qualified.flag(k, m, own["approximate"], own["reason"])
                references[own["method"]] = own["reference"]
                if math.isfinite(out["ci_lower"][k, m]):  # (an undefined one names no method)
                    analytic = analytic or own["method"]
        # one method per measure, as in memory (the first model's; a model whose analytic
        # interval is undefined keeps the method with NaN bounds)
        interval_of.append(_interval_name(row["methods"], analytic))
        if (
            sample is not None
            and n_boot
            and any(m == "bootstrap-percentile" for m, _ in row["methods"])
        ):
            _flag_mean_loss(qualified, k, spec, pair_index, sample)
        class_rows = extras.get("delong_class_rows", {}).get(_dl.statistic_key(spec) or "", ())
        few_rows = _few_rows_note(row["methods"], class_rows)
        if few_rows:
            qualified.notes[k] = few_rows
            qualified.difference_approximate[k] = True
        tested = n_boot > 0 and all(spec.name in reps_of.get(mm, {}) for mm in names)
        covariance = extras.get("delong_covariance", {}).get(_dl.statistic_key(spec) or "")
        paired_delong = (
            inference == "auto"
            and covariance is not None
            and all(m == "delong" for m, _ in row["methods"])
        )
        _pair_tests(
            out,
            k,
            spec,
            pair_index,
            replicates,
            covariance if paired_delong else None,
            tested,
            level,
        )
        if paired_delong and pair_index:
            delong_rows.append(k)
            test_of.append("delong")
            qualified.difference_methods[k] = "delong"
        else:
            test_of.append("bootstrap" if tested and pair_index else "")
        evaluation.append(
            "poisson" if n_boot and spec.name in reps_of.get(names[0], {}) else "analytic"
        )
    sd, diff = out["difference_sd"], out["difference"]
    with np.errstate(divide="ignore", invalid="ignore"):
        # as compare_models: identical models (no difference, no variability) give 0
        z = np.where((sd == 0) & (diff == 0), 0.0, diff / sd)
    out["z"] = z
    # DeLong's test is Gaussian (the bootstrap rows hold the bootstrap's own p-value)
    out["p_value"][delong_rows] = 2.0 * special.ndtr(-np.abs(z[delong_rows]))
    specs = [row["spec"] for row in rows]
    return EvaluationComparison(
        models=names,
        metrics=tuple(s.name for s in specs),
        higher_is_better=tuple(s.higher_is_better for s in specs),
        targets=tuple(s.target_value() for s in specs),
        pairs=tuple((names[a], names[b]) for a, b in pair_index),
        **out,
        p_value_one_sided=special.ndtr(-np.abs(z)),
        n_undefined=n_undefined,
        evaluation=tuple(evaluation),
        interval="percentile" if n_boot else "none",
        n_bootstrap=n_boot,
        confidence_level=level,
        replicates=replicates,
        interval_methods=tuple(interval_of),
        test_methods=tuple(test_of),
        references=references,
        **qualified.fields(),
    )


def _measure_rows(
    values: dict[str, dict[str, float]],
    names: tuple[str, ...],
    extras: dict[str, Any],
    inference: str,
    boot_ci: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """The registered measures with an interval, each with every model's interval method and
    its source (``{"spec", "methods"}``): the engine's analytic one with ``inference="auto"``
    (DeLong's only where the measure's declared form gives this value), else the percentile
    interval of the replicates where there is one."""
    rows: list[dict[str, Any]] = []
    for name in values[names[0]]:
        try:
            spec = get_metric(name)
        except (KeyError, ValueError):
            continue
        methods = []
        for model in names:
            method, source = (
                _analytic_method(spec, model, extras) if inference == "auto" else ("", None)
            )
            if method == "delong" and not _concordance_agrees(spec, source, values[model]):
                method, source = "", None  # its declared form is not this value: refused
            if not method and name in boot_ci.get(model, {}):
                method = "bootstrap-percentile"
            methods.append((method, source))
        if any(m for m, _ in methods):
            rows.append({"spec": spec, "methods": methods})
    return rows


@dataclasses.dataclass(frozen=True)
class RowSample:
    """Rows of the data kept by the first pass, and the target's moments over all of them.

    ``y`` (m,), ``preds`` (n_models, m) and ``weight`` (m,) or None are the same rows of each
    column; ``target`` the :class:`~ranklens._foundation.interval_formulas.TargetMoments` of every
    row.
    """

    y: np.ndarray
    preds: np.ndarray
    weight: np.ndarray | None
    target: TargetMoments


def _flag_mean_loss(
    qualified: Any,
    k: int,
    spec: MetricSpec,
    pair_index: Sequence[tuple[int, int]],
    sample: RowSample,
) -> None:
    """Flag measure ``k``'s bootstrap intervals approximate where a mean loss's are in memory
    (:func:`ranklens._foundation.interval_formulas.mean_loss_flags`); nothing for a measure of
    another form."""
    form = spec.capabilities.batched
    if not isinstance(form, RatioForm):
        return
    try:
        student = RatioStudentizer(
            {k: form},
            sample.y,
            sample.preds,
            sample.weight,
            None,
            list(pair_index),
            0,
            columns=False,
        )
    except DomainError:
        # the measure's domain error (a log loss of a value <= 0): its values are NaN with
        # that problem recorded, and there is no interval to qualify
        return
    single, paired, note = mean_loss_flags(
        student.tail_weights(k), skewed_target_note(sample.target), bounded=form.bounded
    )
    qualified.approximate[k] |= single
    qualified.difference_approximate[k] |= paired
    if note:
        qualified.notes[k] = "; ".join(filter(None, [qualified.notes[k], note]))


def _pair_tests(
    out: dict[str, Any],
    k: int,
    spec: MetricSpec,
    pair_index: Sequence[tuple[int, int]],
    replicates: np.ndarray,
    covariance: np.ndarray | None,
    tested: bool,
    level: float,
) -> None:
    """Measure ``k``'s difference, its SD, interval and bootstrap p-value for every pair, into
    ``out``: by DeLong's paired test where ``covariance`` is given (DeLong, DeLong &
    Clarke-Pearson 1988; its Gaussian p-value is set from ``z`` by the caller), else from the
    paired replicates when the measure was ``tested``."""
    from ranklens._inference.resampling import percentile_interval, replicate_sd

    for p, (a, b) in enumerate(pair_index):
        out["difference"][k, p] = out["values"][k, a] - out["values"][k, b]
        if covariance is not None:
            form = spec.capabilities.delong
            assert form is not None  # (a DeLong covariance exists only for such a measure)
            var = covariance[a, a] + covariance[b, b] - 2.0 * covariance[a, b]
            pair_sd = form.slope * _dl.std_error(float(var))
            out["difference_sd"][k, p] = pair_sd
            pair_diff = float(out["difference"][k, p])
            d_low, d_high = _dl.wald(pair_diff, pair_sd, level, -form.slope, form.slope)
            out["difference_ci_lower"][k, p] = d_low
            out["difference_ci_upper"][k, p] = d_high
        elif tested:
            d = replicates[:, k, a] - replicates[:, k, b]
            d = d[np.isfinite(d)]
            out["difference_sd"][k, p] = replicate_sd(d)
            # the bootstrap's own test, as compare_models' (Hall & Wilson 1991)
            out["p_value"][k, p] = symmetric_p_value(d, float(out["difference"][k, p]))
            if d.size >= 2:
                lo, hi = percentile_interval(d, level)
                out["difference_ci_lower"][k, p], out["difference_ci_upper"][k, p] = lo, hi


def _analytic_interval(
    spec: MetricSpec,
    value: float,
    source: dict[str, Any],
    level: float,
    out: dict[str, Any],
    at: tuple[int, int],
) -> dict[str, Any]:
    """A measure's analytic interval from the engine's variances (Kendall's tau-b: Noether's),
    built as in memory by the measure's declared ``AnalyticVariance.interval`` (Fisher's z for
    tau) or else the Wald interval clipped to its bounds, written into ``out`` at ``at``;
    returns its method, reference and whether it is approximate and why."""
    variance = spec.capabilities.variance
    assert isinstance(variance, AnalyticVariance)  # (_analytic_method read it so)
    plug_in, unbiased = source["tau_variance"], source["tau_variance_unbiased"]
    se = math.sqrt(unbiased) if math.isfinite(unbiased) and unbiased >= 0 else math.nan
    out["variance_plug_in"][at] = plug_in
    out["variance_unbiased"][at] = unbiased
    out["std_error"][at] = se
    defined = math.isfinite(value) and math.isfinite(se)
    method, approximate, reason = variance.method, False, ""
    if defined and variance.interval is not None:
        low, high, method, approximate, reason = variance.interval(
            value, unbiased, source["n"], level
        )
    elif defined:
        half = float(ndtri(0.5 + level / 2)) * se
        low, high = max(variance.bounds[0], value - half), min(variance.bounds[1], value + half)
    else:
        low = high = math.nan
    out["ci_lower"][at], out["ci_upper"][at] = low, high
    own = variance.interval_reference if variance.interval is not None else ""
    return {
        "method": method,
        "reference": own or variance.reference,
        "approximate": approximate,
        "reason": reason,
    }


def _interval_name(methods: Sequence[tuple[str, Any]], analytic: str) -> str:
    """The interval method recorded for a measure, as in memory: the first model's, with
    DeLong's named by the scale its result was made on (``"delong-logit"``, as
    :func:`ranklens.delong.comparison_arrays` names it) and an analytic variance's by the method
    its interval used (``analytic``: Kendall's tau's Fisher's z)."""
    method, source = next(((m, src) for m, src in methods if m), ("", None))
    source_method: str = getattr(source, "method", "")
    if method == "delong":
        return "delong" if source_method == "wald" else f"delong-{source_method}"
    if method and method != "bootstrap-percentile":
        return analytic or method
    return method


def _few_rows_note(methods: Sequence[tuple[str, Any]], class_rows: Sequence[float]) -> str:
    """The note of DeLong's differences made with fewer than ``MIN_CLASS_ROWS`` rows in the
    smaller class of a binary response (``class_rows``: two strata), as in memory."""
    from ranklens._foundation.interval_formulas import few_class_rows_note

    if len(class_rows) != 2 or not all(m == "delong" for m, _ in methods):
        return ""
    return few_class_rows_note(float(min(class_rows)))
