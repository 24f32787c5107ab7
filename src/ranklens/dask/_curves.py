"""Curves as arrays on Dask: ROC, gain, lift and profit from the buckets of the sort by prediction.

After the shuffle by prediction every partition holds one value bucket, and a run of tied
predictions never straddles two of them. Each bucket ranks its rows with the in-memory code
(``ranklens._measures.ranked.rank_scores``: the distinct scores in decreasing order with the running
sums of weight, events and non-events); the client lays the buckets end to end, from the highest
predictions down, each bucket's running sums shifted by the totals of the buckets above it (the
carry-in), which is the in-memory ranking of all rows. Every registered curve that says how it
is built from those sums (``CurveSpec.from_ranked``) is then built by the in-memory code itself,
and the best model by depth from the same sums. Counts are exact (integer-valued floats below 2^53);
weighted sums differ from the in-memory running sums only in the order of the additions.

The arrays hold one point per distinct prediction: they are meant for data whose distinct
predictions fit the client (``evaluate(..., curve_arrays=True)``); the decile table needs no arrays.

Curves that need every row in the order of the prediction, with each row's rank of ``y``
(``CurveSpec.from_sequence``: the rank lift curve of Rosset, Perlich & Zadrozny 2005) are built
from each bucket's rows in the in-memory order (decreasing prediction, ties by decreasing ``y``,
then by row position, the column :data:`ROW` that the engine adds with weights) laid end to end,
and from the distinct values of ``y`` and their weights read off the sort by truth. Their arrays
hold one point per row: they need a client that holds the rows' weights and ranks of ``y``.

References
----------
Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression models.
*Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*, 370-377.
Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition Letters* 27(8),
861-874.
Provost, F. and Fawcett, T. (2013). *Data Science for Business*, ch. 8, "Visualizing Model
Performance". O'Reilly Media.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens._foundation.curve_registry import available_curves, get_curve
from ranklens._foundation.problems import Problem, call_quietly
from ranklens._measures.ranked import Ranked, Target, rank_scores
from ranklens.dask import _profile
from ranklens.dask._passes import midrank_column
from ranklens.evaluation import ALL_MODELS

#: Task parameters a curve may take from ``evaluate`` (as the in-memory pipeline's context).
CONTEXT_KEYS = ("cost_benefit", "value_margin", "cost_per_target", "budget")

#: The column of every row's position in the input: the order inside a run of rows tied in both
#: the prediction and ``y`` (which only weighted rows make visible).
ROW = "_ranklens_row"

#: Rows of positive weight up to which the curves built from every row are built: their arrays
#: and the rows' weights and ranks of ``y`` take about 80 bytes a row on the client (800 MB here).
SEQUENCE_MAX_ROWS = 10_000_000


def sequence_wanted(rows: int) -> bool:
    """Whether a registered curve is built from the rows in the order of the prediction, and
    ``rows`` (of positive weight) are few enough for the client to hold them."""
    return rows <= SEQUENCE_MAX_ROWS and any(
        (get_curve(name).from_sequence is not None or get_curve(name).from_concordance is not None)
        and get_curve(name).inputs == "point"
        for name in available_curves()
    )


def rows_wanted() -> bool:
    """Whether a registered curve reports every row's position (``CurveSpec.from_concordance``:
    the :data:`ROW` column is then carried even without weights)."""
    return any(
        get_curve(name).from_concordance is not None and get_curve(name).inputs == "point"
        for name in available_curves()
    )


def with_rows(dask: Any, dd: Any, frame: Any, part_rows: Sequence[int]) -> Any:
    """``frame`` with the :data:`ROW` column (``part_rows``: the rows of each partition)."""
    offsets = np.r_[0, np.cumsum(part_rows)[:-1]].astype(np.int64)
    meta = frame._meta.assign(**{ROW: np.zeros(0, np.int64)})
    return dd.from_delayed(
        [
            dask.delayed(_add_rows)(part, int(offset))
            for part, offset in zip(frame.to_delayed(), offsets, strict=True)
        ],
        meta=meta,
        verify_meta=False,
    )


def _add_rows(part: Any, offset: int) -> Any:
    return part.assign(**{ROW: np.arange(offset, offset + len(part), dtype=np.int64)})


def _sequence(
    frame: Any, yv: np.ndarray, pv: np.ndarray, wv: np.ndarray | None
) -> dict[str, np.ndarray | None]:
    """A bucket's rows in the in-memory sequence order: ``y``, the weight (None without) and
    whether each row starts a run of tied predictions."""
    # unit weights: the order inside a run tied in both p and y is moot
    keys = (-yv, -pv) if wv is None else (frame[ROW].to_numpy(), -yv, -pv)
    order = np.lexsort(keys)
    ps = pv[order]
    return {
        "y": yv[order],
        "w": None if wv is None else wv[order],
        "new": np.r_[True, ps[1:] != ps[:-1]],
    }


def check_options(curve_arrays: bool, exact: bool, **profit: Any) -> None:
    """No silent no-op: the profit curve's parameters need ``curve_arrays=True``, which needs
    the exact mode (the binned mode builds no curves)."""
    given = [name for name, value in profit.items() if value is not None]
    if given and not curve_arrays:
        raise ValueError(
            f"{given[0]}: the profit curve's parameters are used only with curve_arrays=True"
        )
    if curve_arrays and not exact:
        raise ValueError("curve_arrays=True needs exact=True (exact=False builds no curves)")


def piece(
    part: Any,
    y: str,
    pred: str,
    weight: str | None,
    threshold: float,
    value: bool = False,
    sequence: bool = False,
) -> dict[str, Any]:
    """One prediction bucket's ranked running sums (without the leading zero).

    ``part`` is the partition of one bucket after the shuffle by prediction (rows of zero weight
    already dropped). Returns the distinct scores in decreasing order and, at each, the running
    weight, events (``y >= threshold``) and non-events of this bucket's rows; with ``value``
    also the running sum of ``w y`` (``"cv"``, for the curves of the value captured); with
    ``sequence`` also the rows in the in-memory sequence order (``"seq"``, see
    :func:`sequence_args`).
    """
    frame = part.reset_index(drop=True)
    if len(frame) == 0:
        empty = np.zeros(0)
        return {"thresholds": empty, "cw": empty, "ce": empty, "cn": empty, "cv": empty}
    yv = np.ascontiguousarray(frame[y].to_numpy(dtype=np.float64))
    pv = np.ascontiguousarray(frame[pred].to_numpy(dtype=np.float64))
    wv = None if weight is None else np.ascontiguousarray(frame[weight].to_numpy(dtype=np.float64))
    response = (yv >= threshold).astype(np.float64)
    ranked = rank_scores(pv, Target(response, wv, None, False, ""))
    out: dict[str, Any] = {
        "thresholds": ranked.thresholds[1:],
        "cw": ranked.cum_weight[1:],
        "ce": ranked.cum_events[1:],
        "cn": ranked.cum_nonevents[1:],
    }
    if value:
        out["cv"] = rank_scores(pv, Target(yv, wv, None, True, "")).cum_events[1:]
    if sequence:
        out["seq"] = _sequence(frame, yv, pv, wv)
        if ROW in frame.columns and rows_wanted():  # the concordance profile's pieces
            out["profile"] = _profile.bucket(frame[ROW].to_numpy(np.int64), yv, pv, wv)
    return out


def sequence_args(
    pieces: Sequence[dict[str, Any]], y_values: np.ndarray, y_weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """The arguments of ``CurveSpec.from_sequence`` from the buckets' pieces (``pieces[b]``:
    bucket ``b``, in increasing prediction; the highest bucket comes first) and the distinct
    values of ``y`` (increasing) with their weights.

    The weights are rescaled to mean 1 over the rows (as the in-memory functions rescale them,
    so that no sum of weights over- or underflows); half an observation is then ``0.5 / scale``.
    """
    seqs = [p["seq"] for p in reversed(pieces) if p.get("seq") is not None]
    seqs = [q for q in seqs if q["y"].size]
    ys = np.concatenate([q["y"] for q in seqs]) if seqs else np.zeros(0)
    starts = np.flatnonzero(np.concatenate([q["new"] for q in seqs])) if seqs else np.zeros(0)
    key = np.searchsorted(y_values, ys)
    y_weights = np.asarray(y_weights, dtype=np.float64)
    if all(q["w"] is None for q in seqs):
        return np.ones(ys.size), key, starts.astype(np.int64), y_weights, 0.5
    w = np.concatenate([q["w"] for q in seqs])
    scale = math.fsum(y_weights) / w.size
    return w / scale, key, starts.astype(np.int64), y_weights / scale, 0.5 / scale


def ranked(
    pieces: Sequence[dict[str, np.ndarray]],
    definition: str,
    values: tuple[np.ndarray, np.ndarray] | None = None,
) -> Ranked:
    """The in-memory ranking of all rows from the buckets' pieces (``pieces[b]``: bucket ``b``,
    buckets in increasing prediction): highest bucket first, each shifted by the totals above.

    With ``values`` (the distinct ``y`` values and their weights) the ranking of the value
    captured (``events="value"``): the response summed is ``y``, and the target holds the
    distinct values with their weights, from which the perfect ranking's vertices are read (it
    is straight within a run of tied ``y``, so these are the in-memory vertices' corners)."""
    if values is not None:
        pieces = [{**p, "ce": p["cv"], "cn": p["cw"] - p["cv"]} for p in pieces]
    thresholds = [np.array([np.inf])]
    sums: dict[str, list[np.ndarray]] = {
        "cw": [np.zeros(1)],
        "ce": [np.zeros(1)],
        "cn": [np.zeros(1)],
    }
    carry = {"cw": 0.0, "ce": 0.0, "cn": 0.0}
    for p in reversed(pieces):
        if p["thresholds"].size == 0:
            continue
        thresholds.append(p["thresholds"])
        for key in sums:
            sums[key].append(carry[key] + p[key])
            carry[key] = float(sums[key][-1][-1])
    empty = np.zeros(0)
    target = Target(empty, None, None, False, definition)
    if values is not None:
        y_values, y_weights = (np.ascontiguousarray(v, dtype=np.float64) for v in values)
        target = Target(y_values, y_weights, None, True, "value")
    return Ranked(
        np.concatenate(thresholds),
        np.concatenate(sums["cw"]),
        np.concatenate(sums["ce"]),
        np.concatenate(sums["cn"]),
        target,
    )


def truth_piece(part: Any, y: str, weight: str | None, n_models: int) -> dict[str, Any]:
    """One truth bucket after the shuffle by truth: per distinct ``y`` (increasing), its weight
    (row count) and, per model, the sum of weight x prediction midrank (doubled integer
    midranks, summed exactly, without weights)."""
    frame = part.reset_index(drop=True)
    if len(frame) == 0:
        return {"y": np.zeros(0), "w": np.zeros(0), "sa": [[] for _ in range(n_models)]}
    yv = frame[y].to_numpy(dtype=np.float64)
    order = np.argsort(yv, kind="stable")
    ys = yv[order]
    starts = np.flatnonzero(np.r_[True, ys[1:] != ys[:-1]])
    sums = []
    if weight is None:
        w = np.diff(np.r_[starts, ys.size]).astype(np.int64)
        for k in range(n_models):
            a2 = frame[midrank_column(k)].to_numpy().astype(np.int64)[order]
            # Python integers: a bucket's sum of doubled midranks may pass 2**63 at any n
            sums.append([int(v) for v in _exact_group_sums(a2, starts)])
    else:
        ws = frame[weight].to_numpy(dtype=np.float64)[order]
        w = np.add.reduceat(ws, starts)
        for k in range(n_models):
            a = frame[midrank_column(k)].to_numpy(dtype=np.float64)[order]
            sums.append(np.add.reduceat(ws * a, starts).tolist())
    return {"y": ys[starts], "w": w, "sa": sums}


def _exact_group_sums(values: np.ndarray, starts: np.ndarray) -> list[int]:
    """Exact sums of non-negative int64 ``values`` over the groups beginning at ``starts``."""
    high, low = values >> 31, values & ((1 << 31) - 1)
    hs, ls = np.add.reduceat(high, starts), np.add.reduceat(low, starts)
    return [(int(h) << 31) + int(lo) for h, lo in zip(hs.tolist(), ls.tolist(), strict=True)]


def cutoff_auc_inputs(
    truth_pieces: Sequence[dict[str, Any]],
    single: Sequence[int] | np.ndarray,
    t_counts: np.ndarray,
    pred_parts: Sequence[dict[str, Any]],
    k: int,
    total_w: float,
    unit: bool,
) -> tuple[list[Any], list[Any]]:
    """Per distinct ``y`` (increasing) the weight and sum of weight x midrank of model ``k``:
    the truth buckets in order, a single-valued bucket (a heavy ``y`` value, not shuffled) from
    the sums the buckets of the sort by prediction kept for it."""
    weights: list[Any] = []
    sums: list[Any] = []
    singles = {int(b) for b in single}
    pred_parts = [p for p in pred_parts if "a_single" in p]  # the buckets that held rows
    for b, t in enumerate(truth_pieces):
        if b in singles:
            count = t_counts[b]
            if not count > 0:
                continue  # only rows of weight 0 (dropped, as in memory)
            if unit:
                weights.append(int(count))
                sums.append(sum(int(p["a_single"][b]) for p in pred_parts))
            else:
                weights.append(float(count))
                centred = math.fsum(p["a_single"][b] for p in pred_parts)
                sums.append(centred + float(count) * total_w / 2.0)  # a_single: sum w (a - W/2)
            continue
        weights.extend(int(v) if unit else float(v) for v in t["w"])
        sums.extend(t["sa"][k])
    return weights, sums


def _builders(
    context: Mapping[str, Any], values: tuple[np.ndarray, np.ndarray] | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The registered curves to build, each with what it is built from (``"cuts"``,
    ``"value"`` or ``"events"``) and its keyword arguments; and the other registered curves
    with the reason they are not built. Curves whose task parameters are not given, or that do
    not apply to this target, are left out, as in the in-memory pipeline (``applies`` reads the
    distinct values of ``y``, which decide it as the rows do)."""
    build: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name in available_curves():
        spec = get_curve(name)
        if spec.sums is not None and spec.inputs == "point":
            continue  # built from mergeable sums with or without arrays (dask._curve_sums)
        built_from_rows = spec.from_sequence is not None or spec.from_concordance is not None
        if spec.from_cuts is None and (
            (spec.from_ranked is None and not built_from_rows) or spec.inputs != "point"
        ):
            skipped[name] = (
                "not built by the Dask engine: it needs more than the prediction-sorted "
                "cumulative sums (every row, in the order of the prediction or of y)"
            )
            continue
        if any(context.get(key) is None for key in spec.needs):
            continue
        if spec.needs_any and all(context.get(key) is None for key in spec.needs_any):
            continue
        local = {k: v for k, v in context.items() if v is not None}
        for key, fixed in spec.fixed_with.items():
            if local.get(key) is not None:
                local.update(fixed)
        local.update(spec.fixed)
        value = local.get("events") == "value"
        if spec.applies is not None and values is not None and not spec.applies(values[0]):
            continue
        if spec.from_cuts is not None:
            build[name] = (spec, "cuts", {})
            continue
        if spec.from_ranked is None and spec.from_sequence is not None:
            build[name] = (spec, "sequence", {})  # every row, in the order of the prediction
            continue
        if spec.from_ranked is None:
            build[name] = (spec, "concordance", {})  # per-row concordance counts
            continue
        if value and values is None:
            skipped[name] = "the value captured needs a non-negative y_true"
            continue
        assert spec.from_ranked is not None  # buildable, checked above
        params = inspect.signature(spec.from_ranked).parameters
        kwargs = {k: v for k, v in local.items() if k in params}
        build[name] = (spec, "value" if value else "events", kwargs)
    return build, skipped


def add_curves(
    pieces: Sequence[Sequence[dict[str, np.ndarray]]],
    preds: Sequence[str],
    definition: str,
    context: Mapping[str, Any],
    delong: Mapping[str, Any],
    curves: dict[str, dict[str, Any]],
    extras: dict[str, Any],
    problems: dict[str, dict[str, Problem]],
    cuts: Sequence[tuple[list[Any], list[Any]]],
    unit: bool,
    values: tuple[np.ndarray, np.ndarray] | None = None,
    y_distinct: tuple[np.ndarray, np.ndarray] | None = None,
    zero_weight_rows: int = 0,
) -> None:
    """Build the curves of every model into ``curves`` and the best model by depth into
    ``extras`` (as ``evaluation.evaluate_arrays`` does); failures go to ``problems``.
    ``cuts[k]``: model ``k``'s per-distinct-y weights and midrank sums (a curve's ``from_cuts``);
    ``values``: the distinct values of ``y`` and their weights, for the value curves (None
    when ``y`` takes negative values); ``y_distinct``: the same whatever the sign of ``y``, for
    the curves built from the rows in the order of the prediction (their pieces hold
    ``"seq"``, and ``"profile"`` for those built from per-row concordance counts);
    ``zero_weight_rows``: rows of weight 0, which the sorts drop (a curve with a point per row
    of the input, such as the concordance profile, is then not built)."""
    from ranklens._measures.by_depth import by_depth_from_ranked

    by_model = {model: ranked(pieces[k], definition) for k, model in enumerate(preds)}
    by_value = {}
    if values is not None:
        by_value = {model: ranked(pieces[k], "value", values) for k, model in enumerate(preds)}
    build, skipped = _builders({**context, "events": None}, values)
    for name, (spec, source, kwargs) in build.items():
        found = {}
        for k, model in enumerate(preds):
            if source == "cuts":
                result, problem = call_quietly(spec.from_cuts, *cuts[k], unit)
            elif source == "sequence":
                if y_distinct is None:  # the engine kept no rows in order: too many
                    skipped[name] = (
                        "built from every row (one point per row): the Dask engine builds it "
                        f"up to {SEQUENCE_MAX_ROWS:,} rows of positive weight"
                    )
                    break
                args = sequence_args(pieces[k], *y_distinct)
                result, problem = call_quietly(spec.from_sequence, *args)
            elif source == "concordance":
                if y_distinct is None or any(
                    "profile" not in p and p["thresholds"].size for p in pieces[k]
                ):
                    skipped[name] = (
                        "built from every row (one point per row): the Dask engine builds it "
                        f"up to {SEQUENCE_MAX_ROWS:,} rows"
                    )
                    break
                if zero_weight_rows:
                    skipped[name] = (
                        f"{zero_weight_rows:,} rows have weight 0: the in-memory profile has a "
                        "point for each, the Dask engine's sorts drop them (give only rows of "
                        "positive weight)"
                    )
                    break
                args = _profile.profile_args([p["profile"] for p in pieces[k] if "profile" in p])
                result, problem = call_quietly(spec.from_concordance, *args)
            else:
                r = by_value[model] if source == "value" else by_model[model]
                result, problem = call_quietly(spec.from_ranked, r, **kwargs)
            if result is not None:
                found[model] = _with_interval(result, delong.get(model))
            if problem is not None:
                problems.setdefault(model, {})[f"{name} curve"] = problem
        if found:
            curves[name] = found
    extras.setdefault("curves_not_built", {}).update(skipped)
    if len(preds) >= 2:
        result, problem = call_quietly(by_depth_from_ranked, by_model)
        if result is not None:
            extras["best_model_by_depth"] = result
        if problem is not None:
            problems.setdefault(ALL_MODELS, {})["best model by depth"] = problem


def distinct_values(
    truth_pieces: Sequence[dict[str, Any]],
    single: Sequence[int] | np.ndarray,
    t_counts: np.ndarray,
    t_bounds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``y`` (increasing) and their weights, from the truth buckets; a
    single-valued bucket ``b`` holds the one value ``t_bounds[b - 1]``."""
    singles = {int(b) for b in single}
    values: list[Any] = []
    weights: list[Any] = []
    for b, t in enumerate(truth_pieces):
        if b in singles:
            if not t_counts[b] > 0:
                continue  # only rows of weight 0 (dropped, as in memory)
            values.append(float(t_bounds[b - 1]))
            weights.append(float(t_counts[b]))
        else:
            values.extend(np.asarray(t["y"], dtype=np.float64).tolist())
            weights.extend(np.asarray(t["w"], dtype=np.float64).tolist())
    return np.array(values, dtype=np.float64), np.array(weights, dtype=np.float64)


def _with_interval(result: Any, interval: Any) -> Any:
    """A result with an AUC interval field gets the engine's DeLong interval (its weighted form
    needs every row's structural components, which the ranked sums do not hold)."""
    names = {f.name for f in dataclasses.fields(result)}
    if interval is None or "auc_std_error" not in names:
        return result

    def get(key: str) -> Any:
        return interval[key] if isinstance(interval, dict) else getattr(interval, key)

    se = float(get("std_error"))
    return dataclasses.replace(
        result,
        auc_std_error=se if math.isfinite(se) else math.nan,
        auc_ci=get("ci"),
        confidence_level=get("confidence_level"),
    )
