"""The measures of :func:`ranklens.dask.evaluate` from the summaries of its shuffles: the ranked
curves' statistics, the decile table, the rank correlations, DeLong's and Noether's intervals
and the replicates' intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._foundation.forms import (
    CurveStatistic,
    RankStatistic,
    RankSweepForm,
    confusion_from_lift,
    read_at_depth,
)
from ranklens._foundation.problems import Problem, metric_info
from ranklens._measures.ranked import DecileTableResult, decile_table_result, gain_ratios_exact
from ranklens.dask import _delong as _dl
from ranklens.dask import _engine as _e
from ranklens.dask import _noether as _nt
from ranklens.dask._bucket_passes import Shuffled, boot_carry, decile_queries
from ranklens.dask._partition_passes import Events, Results, Scanned
from ranklens.dask._planning import Options, PassPlan


@dataclass(frozen=True)
class Combined:
    """The shuffles' summaries combined, model by model: the curves (the decile table), the
    pair counts, Noether's and DeLong's intervals, DeLong's covariances and the rows of each
    class behind DeLong's variances."""

    curves: dict[str, dict[str, Any]]
    pair_counts: dict[str, dict[str, Any]] = field(default_factory=dict)
    noether: dict[str, Any] = field(default_factory=dict)
    delong: dict[str, Any] = field(default_factory=dict)
    class_rows: dict[str, list[float]] = field(default_factory=dict)
    delong_covariance: dict[str, np.ndarray] = field(default_factory=dict)
    delong_c: dict[str, Any] = field(default_factory=dict)
    lifts: dict[str, tuple[dict[float, float], float, float]] = field(default_factory=dict)


def combine(
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    shuffled: Shuffled,
    results: Results,
) -> Combined:
    """The curve and rank measures of every model from the shuffles' summaries, into
    ``results``, with the intervals and pair counts behind them (and each model's lifts at the
    plan's depths, with the events and the total weight, for :func:`counts_at_depth`)."""
    combined = Combined(curves={"decile_table": {}} if plan.want_curves else {})
    for spec in plan.specs.curve:
        results.info[spec.name] = metric_info(spec)
    for spec in plan.specs.sweep:
        results.info[spec.name] = metric_info(spec)
    total_w, n = scanned.total_w, scanned.n
    w2 = 0.0 if options.unit else _e.fsum(s["w2"] for s in scanned.scans)
    all_pairs = n * (n - 1) // 2 if options.unit else (float(total_w) ** 2 - w2) / 2.0
    for k in range(len(options.preds)):
        parts = [s for s in shuffled.pred_out[k] if s["n"]]
        _curve_measures(k, parts, options, plan, scanned, events, shuffled, results, combined)
        if plan.want_pairs:
            _rank_measures(
                k, parts, all_pairs, options, plan, scanned, events, shuffled, results, combined
            )
    _delong_covariances(options, plan, scanned, shuffled, combined)
    return combined


def _curve_measures(
    k: int,
    parts: Sequence[dict[str, Any]],
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    shuffled: Shuffled,
    results: Results,
    combined: Combined,
) -> None:
    """Model ``k``'s curve measures, DeLong's interval of its AUC and its decile table, from its
    prediction buckets' summaries ``parts``."""
    model, total_w = options.preds[k], float(scanned.total_w)
    e_total = float(sum(shuffled.grid_totals[k][:, events.first_event_bucket :].sum(axis=1)))
    n_total = total_w - e_total
    stats = (
        _curve_statistics(parts, e_total, n_total, total_w, plan.depths) if plan.want_curves else {}
    )
    for spec in plan.specs.curve:
        curve = spec.capabilities.curve
        assert curve is not None
        if curve.depth is None:
            value = stats[curve.statistic]
        else:  # the lift, the recall or the precision at a depth, from the lift there
            share = e_total / total_w if total_w > 0 else math.nan
            lift = stats[("lift", curve.depth)]
            value = float(read_at_depth(curve.statistic, lift, curve.depth, share))
        results.values[model][spec.name] = value
        if math.isnan(value):
            results.problems[model][spec.name] = Problem(
                "undefined", f"undefined: no events or no non-events under {events.definition!r}"
            )
    if plan.want_curves:
        lifts = {float(d): stats[("lift", float(d))] for d in plan.depths}
        combined.lifts[model] = (lifts, e_total, total_w)
        combined.delong[model], combined.class_rows[_dl.AUC] = _delong(
            parts, stats[CurveStatistic.ROC_AUC], e_total, n_total, options.confidence_level
        )
        combined.curves["decile_table"][model] = _decile_table(
            parts,
            decile_queries(options.n_bins, scanned.total_w),
            options.n_bins,
            e_total,
            n_total,
            total_w,
            events.definition,
        )


def counts_at_depth(
    combined: Combined,
    curves: dict[str, dict[str, Any]],
    problems: dict[str, dict[str, Problem]],
) -> dict[str, Any] | None:
    """``extras["at_depth"]`` of a 0/1 target, as :func:`ranklens.evaluation.counts_at_depth`
    makes it in memory: each model's precision, recall and 2x2 counts at the depth the budget
    pays for (read from the run's profit curves, ``curve_arrays``) or at
    :data:`ranklens.evaluation.HEADLINE_DEPTH`.

    The lift at the depth comes from the curve pieces (:func:`combine`) where the pieces read
    it, else (a budget's depth) from the model's gain curve as an array, read as in memory; the
    counts from it by :func:`ranklens._foundation.forms.confusion_from_lift`. A model without
    them (no events, no depth targeted) gets a problem under ``"counts at depth"``.

    Parameters
    ----------
    combined : Combined
        The combined summaries, with each model's lifts.
    curves : dict
        The run's curves (``profit`` and ``gain`` with ``curve_arrays``).
    problems : dict
        Where a model without counts is recorded.

    Returns
    -------
    dict or None
        ``{"depth", "basis", "models"}``; None when no model has counts.
    """
    from ranklens.evaluation import counts_depth, depth_of_budget

    depth, basis = counts_depth(depth_of_budget(curves.get("profit")))
    models: dict[str, dict[str, float]] = {}
    for model, (lifts, e_total, total_w) in combined.lifts.items():
        lift = lifts.get(depth)
        gain = curves.get("gain", {}).get(model)
        if lift is None and gain is not None and depth > 0:
            lift = float(np.interp(depth, gain.fraction_targeted, gain.gain)) / depth
        counts = None
        if lift is not None and depth > 0 and e_total > 0:
            counts = confusion_from_lift(lift, depth, e_total, total_w)
        if counts is None or not all(math.isfinite(v) for v in counts.values()):
            problems.setdefault(model, {})["counts at depth"] = Problem(
                "undefined", f"undefined: no events, or no cases targeted at depth {depth:g}"
            )
            continue
        models[model] = counts
    return {"depth": depth, "basis": basis, "models": models} if models else None


def _rank_measures(
    k: int,
    parts: Sequence[dict[str, Any]],
    all_pairs: Any,
    options: Options,
    plan: PassPlan,
    scanned: Scanned,
    events: Events,
    shuffled: Shuffled,
    results: Results,
    combined: Combined,
) -> None:
    """Model ``k``'s rank measures, pair counts and Noether's interval of Kendall's tau, from
    its prediction buckets' summaries ``parts``, the truth buckets' and the grid
    (``all_pairs``: the pairs, or their weight)."""
    model, unit = options.preds[k], options.unit
    tparts = [t for t in shuffled.truth_out if t["n"]]
    cross = _e.cross_bucket_pairs(shuffled.grid_totals[k])
    # single-valued truth buckets: every pair in one is tied in the truth only
    single_pairs = [
        {"concordant": 0, "discordant": 0, "tied_y": tied}
        for tied in _single_tied_pairs(shuffled.t_counts, shuffled.t_w2, events.single, unit)
    ]
    classes = _e.combine_pairs(
        [p["pairs"] for p in parts],
        [t["models"][k]["pairs"] for t in tparts] + single_pairs,
        cross,
        all_pairs,
        unit,
    )
    combined.pair_counts[model] = classes
    if plan.noether:
        combined.noether[model] = _nt.interval(
            scanned.n,
            classes,
            [p["noether"] for p in parts] + [t["noether"][k] for t in tparts],
            float(RankStatistic.KENDALL_TAU_B(classes)),
            options.confidence_level,
        )
    for spec in plan.specs.sweep:
        sweep = spec.capabilities.batched
        assert isinstance(sweep, RankSweepForm)
        if sweep.statistic is RankStatistic.SPEARMAN_RHO:  # from the exact midrank sums
            statistic = (
                _spearman_unit(k, parts, tparts, scanned.n, events.single, shuffled)
                if unit
                else _spearman_weighted(
                    k, parts, tparts, float(scanned.total_w), events.single, shuffled
                )
            )
        else:
            statistic = float(sweep.statistic(classes))
        value = float(sweep.transform(statistic))
        results.values[model][spec.name] = value
        if math.isnan(value):
            results.problems[model][spec.name] = Problem(
                "undefined", "undefined: y_true or y_pred is constant (all pairs tied)"
            )


def _spearman_unit(
    k: int,
    parts: Sequence[dict[str, Any]],
    tparts: Sequence[dict[str, Any]],
    n: int,
    single: np.ndarray,
    shuffled: Shuffled,
) -> float:
    """Spearman's rho of model ``k`` without weights, from exact integer sums of doubled
    midranks (the single-valued truth buckets' from the prediction buckets)."""
    t_counts, t_carry = shuffled.t_counts, shuffled.t_carry
    s2 = sum(t["models"][k]["s2"] for t in tparts)
    t_y = sum(t["t3"] for t in tparts)
    for b in single:
        size = int(t_counts[b])
        two_b = 2 * t_carry[b] + size + 1  # the bucket's one doubled midrank
        s2 += two_b * sum(p["a_single"][int(b)] for p in parts)
        t_y += size**3 - size
    return _e.spearman_unit(n, s2, sum(p["t3"] for p in parts), t_y)


def _spearman_weighted(
    k: int,
    parts: Sequence[dict[str, Any]],
    tparts: Sequence[dict[str, Any]],
    total_w: float,
    single: np.ndarray,
    shuffled: Shuffled,
) -> float:
    """Spearman's rho of model ``k`` with weights, from the midranks' covariance and variances
    (the single-valued truth buckets' from the prediction buckets)."""
    t_counts, t_carry = shuffled.t_counts, shuffled.t_carry
    half = total_w / 2.0
    cov = [t["models"][k]["cov"] for t in tparts]
    var_b = [t["models"][k]["var_b"] for t in tparts]
    for b in single:
        db = t_carry[b] + float(t_counts[b]) / 2.0 - half
        cov.append(db * _e.fsum(p["a_single"][int(b)] for p in parts))
        var_b.append(float(t_counts[b]) * db * db)
    return _e.spearman_weighted(_e.fsum(cov), _e.fsum(p["var_a"] for p in parts), _e.fsum(var_b))


def _delong_covariances(
    options: Options, plan: PassPlan, scanned: Scanned, shuffled: Shuffled, combined: Combined
) -> None:
    """DeLong's covariances of the models' AUC and Harrell's C, and the interval of each
    model's C, from the per-row counts on the rows of the last shuffles."""
    if not (plan.delong_auc or plan.delong_c):
        return
    n_models, unit = len(options.preds), options.unit
    last = [p.get("delong_pairs", {}) for p in shuffled.pred_out[-1] if p["n"]]
    if plan.delong_auc:
        combined.delong_covariance[_dl.AUC] = _dl.auc_covariance(last, n_models, unit)
    if plan.delong_c:
        cov_c, estimates, two, class_parts, c_rows = _dl.c_covariance(
            last, [t.get("delong_c", {}) for t in shuffled.truth_out], n_models, unit
        )
        combined.delong_covariance[_dl.HARRELL_C] = cov_c
        combined.class_rows[_dl.HARRELL_C] = [float(r) for r in c_rows]
        for k, model in enumerate(options.preds):
            combined.delong_c[model] = _dl.interval_result(
                estimates[k], class_parts[k], c_rows, options.confidence_level, two, scanned.n_eff
            )


def _delong(
    parts: Sequence[dict[str, Any]], auc: float, e_total: float, n_total: float, level: float
) -> tuple[Any, list[float]]:
    """DeLong's interval of the AUC of the events from the buckets' sums and the rows of each
    class (events, non-events), as
    ``ranklens.delong.delong_interval(events, score, sample_weight=w)``: the variance part of
    each class is ``m/(m-1) sum w^2 (V - AUC)^2 / W^2`` (``m`` rows, total weight ``W``), the
    interval the logit one of :func:`ranklens.delong.concordance_interval`."""
    sums = [p["delong"] for p in parts if "delong" in p]
    class_parts = [math.nan, math.nan]
    class_rows = [0.0, 0.0]
    if sums and math.isfinite(auc):
        total = [_e.fsum(s[i] for s in sums) for i in range(8)]
        for c, (w2, wv, wvv, m, weight) in enumerate(
            (
                (total[0], total[1], total[2], total[3], e_total),
                (total[4], total[5], total[6], total[7], n_total),
            )
        ):
            # both classes' components average to the AUC
            spread = _e.fsum([wvv, -2.0 * auc * wv, auc * auc * w2])
            class_parts[c] = m / (m - 1) * spread / (weight * weight) if m > 1 else math.nan
            class_rows[c] = float(round(m))
    result = _dl.interval_result(
        auc, class_parts, class_rows, level, binary=True, n=round(sum(class_rows))
    )
    return result, class_rows


def _curve_statistics(
    parts: Sequence[dict[str, Any]],
    e_total: float,
    n_total: float,
    total_w: float,
    depths: np.ndarray,
) -> dict[Any, float]:
    out: dict[Any, float] = {}
    defined = e_total > 0 and n_total > 0
    out[CurveStatistic.ROC_AUC] = (
        _e.fsum(p["roc_twice"] for p in parts) / (2.0 * e_total * n_total) if defined else math.nan
    )
    out[CurveStatistic.KS] = max([0.0, *(p["ks"] for p in parts)]) if defined else math.nan
    area = 0.5 * _e.fsum(p["gain_area2"] for p in parts) if e_total > 0 else math.nan
    perfect = 1.0 - (e_total / total_w) / 2.0
    ratio = (area - 0.5) / (perfect - 0.5) if perfect > 0.5 and not math.isnan(area) else math.nan
    if e_total > 0 and parts and all("gain_twice" in p for p in parts):
        # integer counts: exact integer sums, the in-memory ratios of them (targeting._gain)
        area, exact_ratio = gain_ratios_exact(
            sum(p["gain_twice"] for p in parts), int(total_w), int(e_total)
        )
        if perfect > 0.5 and exact_ratio is not None:
            ratio = exact_ratio
    out[CurveStatistic.GAIN_AREA] = area
    out[CurveStatistic.ACCURACY_RATIO] = ratio
    out[CurveStatistic.AVERAGE_PRECISION] = (
        _e.fsum(p.get("ap_sum", 0.0) for p in parts) / e_total if e_total > 0 else math.nan
    )
    for i, d in enumerate(depths):
        hits = [p["lift"][i] for p in parts if i in p["lift"]]
        out[("lift", float(d))] = hits[0] if hits else math.nan
    return out


def _decile_table(
    parts: Sequence[dict[str, Any]],
    queries: np.ndarray,
    n_bins: int,
    total_e: float,
    n_non: float,
    total_w: float,
    definition: str,
) -> DecileTableResult:
    """``targeting.decile_table`` from the pieces' readings of the curve at the bin bounds."""
    cum_events = np.zeros(n_bins + 1)
    gain_at = np.full(n_bins + 1, np.nan)
    last_score = np.full(n_bins + 1, np.nan)
    first_score = np.full(n_bins + 1, np.nan)
    for p in parts:
        for i, (ce, score) in p["at"].items():
            cum_events[i], last_score[i] = ce, score
        for i, g in p.get("gain_at", {}).items():
            gain_at[i] = g
        for i, score in p["first_score"].items():
            first_score[i] = score
    cum_events[0], cum_events[-1] = 0.0, total_e
    with np.errstate(divide="ignore", invalid="ignore"):
        cum_gain = cum_events[1:] / total_e if total_e > 0 else np.full(n_bins, np.nan)
    if total_e > 0:
        # the in-memory reading, to the bit on integer counts: the gain G = E(x) / E
        # interpolated (not the interpolated events over E, which differs by an ulp)
        cum_gain = np.where(np.isnan(gain_at[1:]), cum_gain, gain_at[1:])
    cum_count = queries
    fpr = (cum_count[1:] - cum_events[1:]) / n_non if n_non > 0 else np.full(n_bins, np.nan)
    return decile_table_result(
        cum_count=cum_count,
        cum_events=cum_events,
        cum_gain=cum_gain,
        fpr=fpr,
        score_max=first_score[:-1],
        score_min=last_score[1:],
        total_count=total_w,
        total_events=total_e,
        definition=definition,
    )


def _single_tied_pairs(
    t_counts: np.ndarray, t_w2: np.ndarray | None, single: np.ndarray, unit: bool
) -> list[Any]:
    """Pairs (weight of pairs) inside each single-valued truth bucket."""
    if unit:
        return [int(t_counts[b]) * (int(t_counts[b]) - 1) // 2 for b in single]
    assert t_w2 is not None
    return [(float(t_counts[b]) ** 2 - float(t_w2[b])) / 2.0 for b in single]


def boot_results(
    boot: dict[str, Any],
    pred_out: Any,
    preds: list[str],
    the_plan: Any,
    level: float,
    keys: str,
    seed: int,
    scheme: str = "poisson",
) -> dict[str, Any]:
    """Replicates and percentile intervals of the mergeable and ranked-curve measures
    (``keys``: what the replicates are keyed by, in words; ``scheme``: ``"poisson"`` or
    ``"blocks"``)."""
    from ranklens._inference.resampling import percentile_interval

    replicates: dict[str, dict[str, np.ndarray]] = {}
    for k, model in enumerate(preds):
        out: dict[str, np.ndarray] = {}
        sums = np.sum([p["sums"][k] for p in boot["parts"]], axis=0)  # (forms, 2, B)
        for j, spec in enumerate(the_plan.ratio):
            form = spec.capabilities.batched
            with np.errstate(all="ignore"):
                out[spec.name] = np.asarray(form.finalize(sums[j, 0] / sums[j, 1]), np.float64)
        carry = boot_carry(boot, k, seed)["carry"]
        pieces = [p["boot"] for p in pred_out[k] if p["n"] and "boot" in p]
        some = next(iter(carry.values()))
        e_tot, n_tot, w_tot = some["E"], some["N"], some["W"]
        with np.errstate(divide="ignore", invalid="ignore"):
            twice = np.sum([p["roc_twice"] for p in pieces], axis=0)
            stats: dict[Any, Any] = {
                CurveStatistic.ROC_AUC: twice / (2.0 * e_tot * n_tot),
                CurveStatistic.KS: np.maximum(0.0, np.max([p["ks"] for p in pieces], axis=0)),
                CurveStatistic.GAIN_AREA: 0.5 * np.sum([p["gain_area2"] for p in pieces], axis=0),
            }
            stats[CurveStatistic.AVERAGE_PRECISION] = (
                np.sum([p["ap_sum"] for p in pieces], axis=0) / e_tot
            )
            perfect = 1.0 - (e_tot / w_tot) / 2.0
            stats[CurveStatistic.ACCURACY_RATIO] = np.where(
                perfect > 0.5, (stats[CurveStatistic.GAIN_AREA] - 0.5) / (perfect - 0.5), np.nan
            )
        # the lift at each depth: from the one bucket per replicate whose piece holds it
        lifts = [p["lift"] for p in pieces if "lift" in p]
        depths = boot.get("depths")
        if lifts and depths is not None:
            held = np.stack(lifts)  # (buckets, B, depths)
            found = np.isfinite(held).any(axis=0)
            best = np.where(np.isnan(held), -np.inf, held).max(axis=0)
            for i, d in enumerate(depths):
                stats[("lift", float(d))] = np.where(found[:, i], best[:, i], np.nan)
        for spec in the_plan.curve:
            curve = spec.capabilities.curve
            if curve is None:
                continue
            key = curve.statistic if curve.depth is None else ("lift", float(curve.depth))
            if key in stats:
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[spec.name] = (
                        stats[key]
                        if curve.depth is None
                        else np.asarray(
                            read_at_depth(curve.statistic, stats[key], curve.depth, e_tot / w_tot),
                            dtype=np.float64,
                        )
                    )
        replicates[model] = out
    intervals = {
        model: {
            name: tuple(float(v) for v in percentile_interval(reps[np.isfinite(reps)], level))
            if np.isfinite(reps).sum() >= 2
            else (math.nan, math.nan)
            for name, reps in out.items()
        }
        for model, out in replicates.items()
    }
    return {
        "n_replicates": int(boot["reps"].size),
        "scheme": scheme,
        "keys": keys,
        "random_state": seed,
        "seed": boot["seed"],
        "confidence_level": level,
        "replicates": replicates,
        "intervals": intervals,
    }
