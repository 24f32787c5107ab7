"""The report's first section: for each goal, which model to pick and how clear the evidence is.

Measures are grouped by the question they answer (a *goal*: ranking, targeting at the budget,
rare extremes, prediction intervals, size of the errors). Each goal has a headline measure; the
summary names the model with the best headline value and says, for every other model, whether
the paired bootstrap difference is clear after a Holm (1979) correction across every comparison
the summary shows. Nothing here computes a measure: values, intervals and tests are read from
the :class:`~ranklens.evaluation.ModelEvaluation`.
"""

from __future__ import annotations

import dataclasses
import html
import math
import re
from collections.abc import Mapping
from typing import Any

from ranklens._foundation.docstrings import shared_paragraphs
from ranklens._foundation.events import events_words
from ranklens._foundation.format import is_finite_number
from ranklens._foundation.registry import direction_of, plain_text, shaded_positions
from ranklens.report.diagnostics import target_is_binary
from ranklens.report.significance import (
    ALPHA,
    MAX_UNDEFINED_SHARE,
    Contrast,
    adjusted_method_name,
    holm_contrasts,
    pair_contrast,
    symmetric_p_value,
)
from ranklens.report.tables import distinguishing_style, number_style

__all__ = [
    "GOALS",
    "Goal",
    "GoalVerdict",
    "comparison_contrasts",
    "goal_measures",
    "goal_of",
    "meaning",
    "problem_sentence",
    "summary_verdicts",
    "undefined_reason",
    "verdict_values",
]


@dataclasses.dataclass(frozen=True)
class Goal:
    """A question the report answers, the families of measures that answer it, and the
    measures to lead with (the first one defined for every model is the headline)."""

    key: str
    title: str
    question: str
    families: tuple[str, ...]
    headline: tuple[str, ...]


GOALS: tuple[Goal, ...] = (
    Goal(
        "ranking",
        "Ranking",
        "Which model puts the cases in the right order?",
        ("ranking", "listwise"),
        ("tau_normalized", "kendall_tau", "spearman_rho", "rho_normalized", "somers_d"),
    ),
    Goal(
        "targeting",
        "Targeting at the budget",
        "Which model finds the most valuable cases among those you can afford to contact?",
        ("targeting",),
        ("lift_at_20", "lift_at_10", "lift_at_5", "roc_auc", "gain_area", "accuracy_ratio"),
    ),
    Goal(
        "probabilities",
        "Probabilities",
        "Whose scores are the most trustworthy probabilities of the event?",
        ("probability",),
        ("brier_score_loss", "log_loss"),
    ),
    Goal(
        "extremes",
        "Rare extremes",
        "Which model catches the rare extreme values?",
        ("extremes",),
        ("utility_f1", "sera", "relevance_weighted_absolute_error"),
    ),
    Goal(
        "intervals",
        "Prediction intervals",
        "Whose prediction intervals are honest and narrow?",
        ("intervals",),
        ("interval_score", "weighted_interval_score", "interval_coverage_error"),
    ),
    Goal(
        "errors",
        "Size of the errors",
        "Which model's predicted values are closest to the truth?",
        ("residual",),
        ("mean_absolute_error", "root_mean_squared_error", "median_absolute_error"),
    ),
)

_LIFT_DEPTHS = {"lift_at_5": 0.05, "lift_at_10": 0.10, "lift_at_20": 0.20}

#: For a 0/1 target the concordance C (the share of pairs ordered right) is the ROC AUC and
#: Somers' D is the accuracy ratio (2 AUC - 1): the ranking goal shows the ROC AUC once, and
#: these duplicates not at all.
BINARY_DUPLICATES = ("tau_normalized", "somers_d")

#: The headline order of targeting for a 0/1 target without a budget: the average precision
#: first (the ROC AUC is ranking's headline).
_BINARY_TARGETING = ("average_precision_score", "precision_at_10", "lift_at_10", "gain_area")


def goal_measures(goal: Goal, evaluation: Any) -> list[str]:
    """The measures of the evaluation that answer ``goal``, in the evaluation's order.

    Those of the goal's families; for a 0/1 target, the ROC AUC answers ranking (not
    targeting) and the measures that duplicate it (:data:`BINARY_DUPLICATES`) are left out.

    Parameters
    ----------
    goal : Goal
        The goal.
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    list of str
        The measures' names.
    """
    metrics = [m for m, info in evaluation.metrics.items() if info.get("family") in goal.families]
    if not target_is_binary(evaluation) or "roc_auc" not in evaluation.metrics:
        return metrics
    if goal.key == "ranking":
        return ["roc_auc"] + [m for m in metrics if m not in BINARY_DUPLICATES]
    if goal.key == "targeting":
        return [m for m in metrics if m != "roc_auc"]
    return metrics


def goal_of(family: str) -> Goal | None:
    """The goal a family of measures answers."""
    for goal in GOALS:
        if family in goal.families:
            return goal
    return None


def _events_text(evaluation: Any) -> str:
    """The events of this evaluation in words ("events: the top 10% of values, at least
    512"), from the definition the targeting curves recorded, else the settings."""
    definition = ""
    for kind in ("gain", "roc", "lift"):
        for curve in (evaluation.curves.get(kind) or {}).values():
            definition = str(getattr(curve, "event_definition", "") or "")
            if definition and definition != "value":
                break
        if definition and definition != "value":
            break
    unit = evaluation.settings.get("currency") or None
    if definition and definition != "value":
        return "events: " + events_words(definition, unit)
    events = evaluation.settings.get("events")
    if events is None:
        return ""
    if isinstance(events, str) and events.startswith("top:"):
        try:
            share = float(events[4:].rstrip("%")) / (100.0 if events.endswith("%") else 1.0)
        except ValueError:
            return ""
        return f"events: the top {100 * share:.3g}% of values"
    if isinstance(events, int | float):
        return "events: " + events_words(f"y >= {events}", unit)
    if isinstance(events, str):
        return "events: " + events_words(events.replace(">", "y >", 1), unit)
    return ""


def _spec_field(metric: str, info: Mapping[str, Any], field: str) -> str:
    """``plain_name`` or ``meaning`` of a measure: from its metrics info (results.json), else
    the registry, else "" (a measure registered after the results were written)."""
    value = info.get(field)
    if value:
        return str(value)
    from ranklens.metrics import REGISTRY

    spec = REGISTRY.get(metric)
    return str(getattr(spec, field, "") or "")


def meaning(metric: str, info: Mapping[str, Any], evaluation: Any = None) -> str:
    """The measure's one-line plain-language meaning (its registration's ``meaning``; the
    description otherwise), with the events of this evaluation for a targeting measure."""
    text = _spec_field(metric, info, "meaning") or plain_text(str(info.get("description", "")))
    if evaluation is not None and info.get("family") == "targeting":
        events = _events_text(evaluation)
        if events:
            text = re.sub(r"\(?binary y, else events = true top 10 ?%\)?", "", text).strip()
            text = f"{text.rstrip('.')} ({events})."
    return text


def plain_name(metric: str) -> str:
    """The measure's name in readers' words (its registration's ``plain_name``)."""
    if metric in _BUDGET_NAMES:
        return _BUDGET_NAMES[metric]
    return _spec_field(metric, {}, "plain_name") or metric.replace("_", " ")


#: Plain sentences for the messages measures give most often (a pattern of the message, and
#: the sentence; ``{0}``, ``{1}`` are the pattern's groups). The JSON results keep the message.
_PROBLEM_SENTENCES: tuple[tuple[str, str], ...] = (
    (
        r"no prediction has relevance >=",
        "The model never predicts an extreme value, so its precision on extremes is not defined.",
    ),
    (
        r"undefined \(no predicted or no true events\) at (\d+) of (\d+) thresholds",
        "Precision or recall is not defined at {0} of the {1} thresholds: there the model "
        "predicts no extreme value, or there is none to find.",
    ),
    (
        r"\((\d+) value\(s\) <= 0\)",
        "It needs a positive target, and {0} true values are zero or negative.",
    ),
    (r"must be non-negative", "It needs a target without negative values."),
    (r"time budget", "It was left out of the bootstrap to keep within the time allowed."),
    (r"no events|no positive|only one class", "The data hold no events, or only events."),
    (r"constant", "It is not defined when the values are all the same."),
)

#: The sentence of each kind of problem when no pattern above fits.
_KIND_SENTENCES = {
    "undefined": "Not defined for these data.",
    "skipped": "Not computed: it needs a setting that was not given.",
    "failed": "Could not be computed; the JSON results keep the error message.",
    "note": "The value stands, with a caveat kept in the JSON results.",
}


def problem_sentence(problem: Any) -> str:
    """Why a value is missing or qualified, as one plain sentence for the report (no exception
    text, no parameter syntax; the JSON results keep the precise message).

    Parameters
    ----------
    problem : Problem or str
        The problem of a measure, a curve or the comparison.

    Returns
    -------
    str
        One sentence ("" for no problem).
    """
    if not problem:
        return ""
    message = str(getattr(problem, "message", problem))
    kind = str(getattr(problem, "kind", "undefined"))
    for pattern, sentence in _PROBLEM_SENTENCES:
        found = re.search(pattern, message)
        if found:
            return sentence.format(*found.groups())
    return _KIND_SENTENCES.get(kind, _KIND_SENTENCES["undefined"])


def undefined_reason(problem: Any) -> str:
    """A problem as a short plain sentence (:func:`problem_sentence`)."""
    return problem_sentence(problem)


# --------------------------------------------------------------------------------------------
# Comparisons


def comparison_contrasts(
    evaluation: Any, metrics: list[str] | None = None, *, alpha: float = ALPHA
) -> dict[tuple[str, str, str], Contrast]:
    """Every stored pairwise comparison (of ``metrics``, default all), Holm-adjusted as one family.

    Keys are ``(metric, model_a, model_b)`` in the comparison's own pair order.
    """
    comparison = evaluation.comparison
    if comparison is None:
        return {}
    chosen = [m for m in comparison.metrics if metrics is None or m in metrics]
    out: dict[tuple[str, str, str], Contrast] = {}
    for metric in chosen:
        direction = direction_of(evaluation.metrics.get(metric, {}))
        for a, b in comparison.pairs:
            contrast = pair_contrast(comparison, metric, a, b, direction)
            if contrast is not None:
                out[(metric, a, b)] = contrast
    holm_contrasts(list(out.values()), alpha=alpha)
    return out


def clearly_best(
    metric: str,
    models: list[str],
    values: list[Any],
    info: Mapping[str, Any],
    contrasts: Mapping[tuple[str, str, str], Contrast],
) -> set[int]:
    """The position of the model whose value is best and clearly better than every other
    model's (each adjusted interval excludes zero); empty otherwise. A target or neutral
    measure is never shaded by size."""
    best = shaded_positions(values, info)
    if len(best) != 1 or direction_of(info) not in ("higher", "lower"):
        return set()  # a target measure: see closest_to_target
    (j,) = best
    winner = models[j]
    for other in models:
        if other == winner:
            continue
        contrast = contrasts.get((metric, winner, other)) or contrasts.get((metric, other, winner))
        if contrast is None or contrast.better != winner:
            return set()
    return {j}


def closest_to_target(values: list[Any], info: Mapping[str, Any]) -> set[int]:
    """For a measure best closest to a target (coverage against its nominal level): the
    position of the value nearest the target, marked as closest (never "best" by size, and
    with no test of the difference); empty for any other measure."""
    if direction_of(info) != "target":
        return set()
    return shaded_positions(values, info)


# --------------------------------------------------------------------------------------------
# The summary


@dataclasses.dataclass
class GoalVerdict:
    """What the summary says about one goal."""

    goal: Goal
    metric: str = ""
    best: str = ""
    value_text: str = ""
    sentence: str = ""  # HTML (escaped text, model names in <strong>)
    evidence: str = ""  # "clear", "not clear", "no test", "nothing to compare", "undefined"
    contrasts: list[Contrast] = dataclasses.field(default_factory=list)  # pick first
    family: list[Contrast] = dataclasses.field(default_factory=list)  # every pair of models
    details: list[str] = dataclasses.field(default_factory=list)  # HTML sentences


def _headline(goal: Goal, evaluation: Any, models: list[str]) -> str:
    """The goal's headline measure: compared by the bootstrap and defined for every model
    first; for targeting, the lift at the depth closest to the budget when a budget is given."""
    present = goal_measures(goal, evaluation)
    if not present:
        return ""
    order = list(goal.headline)
    share = budget_share(evaluation)
    binary = target_is_binary(evaluation)
    if goal.key == "targeting" and share is not None:
        lifts = sorted(_LIFT_DEPTHS, key=lambda m: abs(_LIFT_DEPTHS[m] - share))
        order = lifts + [m for m in order if m not in lifts]
    elif goal.key == "targeting" and binary:
        order = list(_BINARY_TARGETING)
    elif goal.key == "targeting":
        order = ["roc_auc", "gain_area", "accuracy_ratio", "lift_at_10", "lift_at_20", "lift_at_5"]
    elif goal.key == "ranking" and binary:
        order = ["roc_auc", *order]
    compared = set(getattr(evaluation.comparison, "metrics", ()) or ())

    def defined(metric: str) -> bool:
        return all(
            is_finite_number(evaluation.values.get(m, {}).get(metric))
            for m in models
            if metric in evaluation.values.get(m, {})
        ) and any(metric in evaluation.values.get(m, {}) for m in models)

    candidates = [m for m in order if m in present] + [m for m in present if m not in order]
    for test in (lambda m: m in compared and defined(m), defined):
        for metric in candidates:
            if test(metric) and direction_of(evaluation.metrics[metric]) in ("higher", "lower"):
                return metric
    return candidates[0]


def budget_targets(evaluation: Any) -> tuple[float, float] | None:
    """How many cases the campaign budget pays for, and their share of all cases.

    Read from the stored profit curves (their ``max_targets``, ``floor(budget / cost)``, and
    their total weight), the same source as the profit plot's budget line, so that the text and
    the plot give one number; without profit curves, from the settings. None without a budget.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.

    Returns
    -------
    tuple of (float, float) or None
        ``(cases, share)``, the share capped at 1.
    """
    budget = evaluation.settings.get("budget")
    cost = evaluation.settings.get("cost_per_target")
    if budget is None or not cost or not evaluation.n:
        return None
    for curve in (evaluation.curves.get("profit") or {}).values():
        k = getattr(curve, "max_targets", None)
        total = getattr(curve, "n_targeted", None)
        if k is not None and total is not None and len(total) and float(total[-1]) > 0:
            cases = min(float(k), float(total[-1]))
            return cases, cases / float(total[-1])
    cases = min(float(math.floor(float(budget) / float(cost) + 1e-9)), float(evaluation.n))
    return cases, cases / float(evaluation.n)


def budget_share(evaluation: Any) -> float | None:
    """The share of cases the campaign budget pays for (None without a budget); see
    :func:`budget_targets`."""
    targets = budget_targets(evaluation)
    return None if targets is None else targets[1]


def _b(name: str) -> str:
    return f"<strong>{html.escape(name)}</strong>"


@shared_paragraphs
def summary_verdicts(evaluation: Any, *, alpha: float = ALPHA) -> list[GoalVerdict]:
    """One verdict per goal present: the headline measure, the pick, its comparisons with every
    other model, and the sentences that say it in words.

    The family of tests is every pair of models on each goal's headline measure, across all
    goals, Holm-adjusted together (Holm 1979). The pick (the best headline value) is chosen
    after seeing the values, so testing only the pick against the others would understate the
    multiplicity; testing every pair accounts for any pick. The pick is called clearly best only
    when it beats every other model in that family, and any "clear" verdict of the summary is
    a rejection in it, so the chance of at least one false "clear" is at most ``alpha`` (as far
    as each test holds its level). Comparisons that are not tested (:class:`Contrast`'s
    ``untested``) stay out of the family.

    Parameters
    ----------
    %(evaluation)s
    alpha : float, default 0.05
        Family-wise error rate of the summary's verdicts.

    Returns
    -------
    list of GoalVerdict
        In the order of :data:`GOALS`; ``family`` holds every pair's comparison and
        ``contrasts`` the pick's, oriented pick first.

    References
    ----------
    %(holm1979)s
    """
    binary = target_is_binary(evaluation)
    verdicts = [v for goal in GOALS if (v := _goal_verdict(goal, evaluation, binary)) is not None]
    if binary and any(v.goal.key == "probabilities" and v.best for v in verdicts):
        # a probability's squared error is its Brier score: the goal of probabilities says it
        verdicts = [v for v in verdicts if v.goal.key != "errors"]
    holm_contrasts([c for v in verdicts for c in v.family], alpha=alpha)
    for verdict in verdicts:
        if not verdict.best:
            continue
        verdict.contrasts = [
            c if c.model_a == verdict.best else c.reversed()
            for c in verdict.family
            if verdict.best in (c.model_a, c.model_b)
        ]
        if not verdict.evidence:
            _words(verdict, evaluation)
    return verdicts


#: The sentence of the extremes when no model catches any of them.
NO_EXTREME_CAUGHT = (
    "No model predicts any of the real extreme values accurately (recall 0 for every model): "
    "none is fit for catching them."
)


def no_extreme_caught(evaluation: Any) -> bool:
    """Whether every model's utility-based recall on the extremes is 0 (none is caught)."""
    recalls = [
        evaluation.values.get(m, {}).get("utility_recall", math.nan) for m in evaluation.model_names
    ]
    finite = [float(r) for r in recalls if is_finite_number(r)]
    return bool(finite) and all(r == 0 for r in finite)


def _goal_models(goal: Goal, evaluation: Any) -> list[str]:
    """The models with a measure of the goal (of probabilities: with a finite one, so that a
    model whose scores are not probabilities is not compared)."""
    measures = set(goal_measures(goal, evaluation))
    finite = goal.key == "probabilities"
    return [
        m
        for m in evaluation.model_names
        if any(
            k in measures and (not finite or is_finite_number(v))
            for k, v in evaluation.values.get(m, {}).items()
        )
    ]


def _goal_verdict(goal: Goal, evaluation: Any, binary: bool) -> GoalVerdict | None:
    """The goal's verdict before the tests: headline, pick and the family of its pairs (None
    when the goal does not apply). When no model catches a single real extreme, the extremes
    keep their pairs in the family (the adjustment of the other goals does not depend on it)
    but name no model."""
    verdict = _goal_verdict_before_fit(goal, evaluation, binary)
    if verdict is not None and goal.key == "extremes" and no_extreme_caught(evaluation):
        verdict.best, verdict.value_text = "", ""
        verdict.evidence = "no model fit"
        verdict.sentence = html.escape(NO_EXTREME_CAUGHT)
    return verdict


def _goal_verdict_before_fit(goal: Goal, evaluation: Any, binary: bool) -> GoalVerdict | None:
    """:func:`_goal_verdict` before the check that some model catches an extreme."""
    if not any(info.get("family") in goal.families for info in evaluation.metrics.values()):
        return None
    if binary and goal.key == "extremes":
        return None  # a 0/1 target has no rare extreme values to catch
    models = _goal_models(goal, evaluation)
    if goal.key == "targeting":
        at_budget = _budget_verdict(goal, evaluation, models)
        if at_budget is not None:
            return at_budget
    metric = _headline(goal, evaluation, models)
    verdict = GoalVerdict(goal=goal, metric=metric)
    if not metric:
        return verdict
    info = evaluation.metrics[metric]
    values = [evaluation.values.get(m, {}).get(metric, math.nan) for m in models]
    finite = [v for v in values if is_finite_number(v)]
    style = number_style(finite)
    if not finite:
        reasons = {undefined_reason(evaluation.problems.get(m, {}).get(metric, "")) for m in models}
        reasons.discard("")
        verdict.evidence = "undefined"
        verdict.sentence = (
            f"Not defined for this data: {html.escape(plain_name(metric))}. "
            + html.escape(" ".join(sorted(reasons)) or "No model has a value.")
        )
        return verdict
    if len(models) == 1:
        verdict.best = models[0]
        verdict.value_text = style(values[0])
        verdict.evidence = "nothing to compare"
        verdict.sentence = (
            f"Only {_b(models[0])} is evaluated for this goal, so there is nothing to "
            f"compare: {html.escape(plain_name(metric))} {html.escape(verdict.value_text)}."
            + _coverage_words(evaluation, models[0])
        )
        return verdict
    best = shaded_positions(values, info)
    if not best:
        verdict.evidence = "no difference"
        verdict.sentence = (
            f"All models have the same {html.escape(plain_name(metric))} "
            f"({html.escape(style(finite[0]))})."
        )
        return verdict
    j = min(best)
    verdict.best = models[j]
    verdict.value_text = style(values[j])
    direction = direction_of(info)
    for a, b in getattr(evaluation.comparison, "pairs", ()):
        if a in models and b in models:
            contrast = pair_contrast(evaluation.comparison, metric, a, b, direction)
            if contrast is not None:
                verdict.family.append(contrast)
    return verdict


#: The headline of targeting with a budget: the gain (share of the events found) of the cases
#: the budget pays for, compared at exactly that depth; with a profit that is a margin on the
#: value reached, the share of the total value reached there (:data:`BUDGET_VALUE_MEASURE`).
BUDGET_MEASURE = "gain_at_budget"
BUDGET_VALUE_MEASURE = "value_gain_at_budget"
_BUDGET_NAMES = {
    BUDGET_MEASURE: "share of the events found within the budget",
    BUDGET_VALUE_MEASURE: "share of the total value reached within the budget",
}


def verdict_values(verdict: GoalVerdict, evaluation: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each model's value of a verdict's headline measure, and the measure's info.

    A registered measure's values and info are the evaluation's; the gain at exactly the
    budget's depth (:data:`BUDGET_MEASURE`, :data:`BUDGET_VALUE_MEASURE`) is no registered
    measure: its values are those its comparisons compared, higher is better.
    """
    if verdict.metric in evaluation.metrics:
        values = {m: evaluation.values.get(m, {}).get(verdict.metric) for m in evaluation.values}
        return values, evaluation.metrics[verdict.metric]
    pairs = [*verdict.family, *verdict.contrasts]
    values = {c.model_a: c.value_a for c in pairs} | {c.model_b: c.value_b for c in pairs}
    return values, {"direction": "higher", "plain_name": _BUDGET_NAMES.get(verdict.metric, "")}


def budget_gain_contrasts(evaluation: Any) -> list[Contrast]:
    """Every pair of models' gain at exactly the budget's depth (:func:`budget_targets`), from
    the bootstrap replicates of the gain bands (not yet adjusted); empty without a budget, or
    when the bands hold no column at that depth. At one depth the gain, the lift and the
    profit order the models alike, so the gain's comparison is the profit's."""
    from ranklens.report.adapters import gain_contrasts

    targets = budget_targets(evaluation)
    stored = (getattr(evaluation, "extras", None) or {}).get("bands", {})
    for key, measure in (("budget_value_gain", BUDGET_VALUE_MEASURE), ("gain", BUDGET_MEASURE)):
        bands = stored.get(key)
        if targets is None or bands is None or not len(bands.x):
            continue
        depth = targets[1]
        if float(min(abs(float(x) - depth) for x in bands.x)) > 1e-9:
            continue
        return [
            _symmetric(c, bands, depth, measure) for c in gain_contrasts(bands, [depth]).values()
        ]
    return []


def _symmetric(contrast: Contrast, bands: Any, depth: float, measure: str) -> Contrast:
    """A gain comparison at one depth, tested as the Summary tests every bootstrap comparison:
    the symmetric interval and p-value of the centred replicates of the difference (Hall 1988;
    Hall & Wilson 1991), the replicates being the gain bands' at that depth."""
    import numpy as np

    x = np.asarray(bands.x, dtype=float)
    j = int(np.abs(x - depth).argmin())
    models = list(bands.models)
    reps = np.asarray(bands.replicates, dtype=float)
    d = reps[:, models.index(contrast.model_a), j] - reps[:, models.index(contrast.model_b), j]
    finite = d[np.isfinite(d)]
    share = 1.0 - finite.size / d.size if d.size else 1.0
    contrast = dataclasses.replace(contrast, metric=measure, undefined_share=share)
    if finite.size < 2:
        return dataclasses.replace(contrast, untested="too few bootstrap replicates")
    if share > MAX_UNDEFINED_SHARE:
        return dataclasses.replace(
            contrast, untested=f"undefined in {100 * share:.1f}% of the bootstrap replicates"
        )
    return dataclasses.replace(
        contrast,
        method="bootstrap-symmetric",
        replicates=finite,
        p_value=symmetric_p_value(finite, contrast.difference),
    )


def _budget_verdict(goal: Goal, evaluation: Any, models: list[str]) -> GoalVerdict | None:
    """Targeting with a budget: the gain at exactly the budget's depth, every pair of models
    compared there (None when the bands do not reach that depth: the lift headline is used)."""
    family = [c for c in budget_gain_contrasts(evaluation) if {c.model_a, c.model_b} <= set(models)]
    if not family:
        return None
    value = {c.model_a: c.value_a for c in family} | {c.model_b: c.value_b for c in family}
    named = [m for m in models if m in value]
    values = [value[m] for m in named]
    verdict = GoalVerdict(goal=goal, metric=family[0].metric, family=family)
    best = shaded_positions(values, {"direction": "higher"})
    style = number_style(values)
    if not best:
        verdict.evidence = "no difference"
        verdict.sentence = (
            f"All models find the same {html.escape(plain_name(verdict.metric))} "
            f"({html.escape(style(values[0]))})."
        )
        return verdict
    verdict.best = named[min(best)]
    verdict.value_text = style(value[verdict.best])
    return verdict


def _coverage_words(evaluation: Any, model: str) -> str:
    """' Its intervals cover 86% of the cases against the nominal 90%.' (or nothing)."""
    coverage = evaluation.values.get(model, {}).get("interval_coverage")
    target = evaluation.metrics.get("interval_coverage", {}).get("target")
    if not is_finite_number(coverage) or not is_finite_number(target):
        return ""
    return (
        f" Its intervals contain the truth for {100 * float(coverage):.1f}% of the cases, "
        f"against the {100 * float(target):g}% they promise."
    )


def goal_title(goal: Goal, evaluation: Any) -> str:
    """The goal's heading: "Targeting" alone when no budget was given."""
    if goal.key == "targeting" and budget_share(evaluation) is None:
        return "Targeting"
    return goal.title


def _not_tested_words(verdict: GoalVerdict, evaluation: Any, name: str) -> str:
    """The sentence of a verdict none of whose comparisons is tested."""
    if not verdict.contrasts:
        why = (
            "no bootstrap comparison was run"
            if evaluation.comparison is None
            else "this measure was not part of the bootstrap comparison"
        )
    else:
        reasons = sorted({c.untested for c in verdict.contrasts if c.untested})
        why = "it is not tested: " + html.escape("; ".join(reasons) or "no p-value")
    return (
        f"{_b(verdict.best)} has the best {name} ({html.escape(verdict.value_text)}), but {why}, "
        "so the report cannot say whether the lead is more than chance."
    )


def _caveats(verdict: GoalVerdict, evaluation: Any) -> str:
    """Sentences on the pick's comparisons that are not tested or not resolved."""
    out = ""
    untested = [c for c in verdict.contrasts if not c.tested and c.untested]
    if untested:
        out += (
            " Not tested against "
            + ", ".join(_b(c.model_b) for c in untested)
            + ": "
            + html.escape(untested[0].untested)
            + "."
        )
    unresolved = [c for c in verdict.contrasts if c.unresolved]
    if unresolved:
        worst = min(c.level for c in unresolved)
        needed = math.ceil(1.0 / (1.0 - worst) - 1e-9) - 1
        n_boot = getattr(evaluation.comparison, "n_bootstrap", 0)
        out += (
            f" The {n_boot} bootstrap replicates cannot resolve the interval at the adjusted "
            f"level ({100 * worst:.3g}%) against "
            + ", ".join(_b(c.model_b) for c in unresolved)
            + f": it needs at least {needed} replicates."
        )
    return out


#: The power the report's planning sentence asks for (Cohen 1988's conventional 80 %).
PLANNING_POWER = 0.8


def planning_text(evaluation: Any, contrast: Any, style: Any) -> str:
    """What would settle an unclear lead, in plain text, from :mod:`ranklens.planning` on the
    evaluation's comparison: the smallest difference these data detect with 80 % power at the
    contrast's adjusted level, and the rows (and events) needed to detect the observed
    difference; empty without a comparison or a finite difference, one sentence saying so when
    planning is refused (the precise reason stays in the JSON's comparison)."""
    from ranklens.compare import ComparisonResult
    from ranklens.planning import required_sample_size

    comparison = getattr(evaluation, "comparison", None)
    difference = float(contrast.difference)
    # planning reads a comparison's standard errors and rows: only a comparison result has them
    if not isinstance(comparison, ComparisonResult):
        return ""
    if not (math.isfinite(difference) and difference != 0.0):
        return ""
    level = float(contrast.level)
    alpha = 1.0 - level if math.isfinite(level) and 0.0 < level < 1.0 else 0.05
    try:
        plan = required_sample_size(
            comparison,
            metric=contrast.metric,
            model_a=contrast.model_a,
            model_b=contrast.model_b,
            power=PLANNING_POWER,
            alpha=alpha,
            null_variance="alternative",
        )
    except ValueError:  # said, not dropped: the reader learns that no plan can be given
        return (
            "How much more data would settle it cannot be estimated for this measure from "
            "these data."
        )
    needed, detectable = float(plan.required_n[0]), float(plan.detectable_difference[0])
    n = int(plan.n[0])
    if not (math.isfinite(needed) and math.isfinite(detectable)):
        return ""
    events = float(plan.required_events[0])
    with_events = f" ({math.ceil(events):,} of them events)" if math.isfinite(events) else ""
    return (
        f"These {n:,} rows could detect a difference of {style(abs(detectable))} "
        f"(with {100 * PLANNING_POWER:.0f}% power at the adjusted level); detecting the observed "
        f"{style(abs(difference))} would take about {math.ceil(needed):,} rows"
        f"{with_events}, if the models keep their accuracy."
    )


def _planning_words(evaluation: Any, contrast: Any, style: Any) -> str:
    """:func:`planning_text` as the HTML of a verdict's sentence (leading space)."""
    text = planning_text(evaluation, contrast, style)
    return " " + html.escape(text) if text else ""


def _words(verdict: GoalVerdict, evaluation: Any) -> None:
    best = verdict.best
    name = html.escape(plain_name(verdict.metric))
    tested = [c for c in verdict.contrasts if c.tested]
    if not tested:
        verdict.evidence = "no test"
        verdict.sentence = _not_tested_words(verdict, evaluation, name)
        return
    finite = [c.high - c.low for c in tested if math.isfinite(c.high - c.low)]
    style = number_style([c.difference for c in tested] + [tested[0].value_a], finite)
    clear = [c for c in tested if c.better == best]
    unclear = [c for c in verdict.contrasts if c.better != best]
    runner = min(tested, key=lambda c: abs(c.difference))
    verdict.value_text = style(runner.value_a)
    values = distinguishing_style(style, runner.value_a, runner.value_b)  # never "0.71 vs 0.71"
    lead = (
        f"{_b(best)} has the best {name}: {html.escape(values(runner.value_a))} against "
        f"{html.escape(values(runner.value_b))} for the closest other model, "
        f"{_b(runner.model_b)}"
    )
    interval = f"difference {html.escape(style(runner.difference))}"
    if math.isfinite(runner.low) and math.isfinite(runner.high):
        method = html.escape(adjusted_method_name(runner.method))
        interval += (
            f", adjusted interval {html.escape(style(runner.low))} to "
            f"{html.escape(style(runner.high))}, {method}"
        )
    caveats = _caveats(verdict, evaluation)
    if not unclear:
        verdict.evidence = "clear"
        verdict.sentence = (
            f"{lead} ({interval}). The lead over every other model is clear: "
            f"{_b(best)} is clearly best for this goal."
        )
    elif not clear:
        verdict.evidence = "not clear"
        verdict.sentence = (
            f"{lead} ({interval}). No clear difference: the lead over "
            + ", ".join(_b(c.model_b) for c in unclear if c.tested)
            + " is within what resampling noise produces."
            + _planning_words(evaluation, runner, style)
            + caveats
        )
    else:
        verdict.evidence = "partly clear"
        within = [c for c in unclear if c.tested]
        verdict.sentence = (
            f"{lead} ({interval}). It is clearly ahead of "
            + ", ".join(_b(c.model_b) for c in clear)
            + ("; no clear difference from " if within else "")
            + ", ".join(_b(c.model_b) for c in within)
            + "."
            + caveats
        )
