"""The report's decision: which model to deploy for the stated purpose, and on what evidence.

:func:`recommend` reads the Summary's verdicts (:func:`ranklens.report.goals.summary_verdicts`:
every pair of models on each goal's headline measure, Holm-adjusted together across goals) and
turns the verdict of one purpose into a :class:`Recommendation`: plain data that the HTML
report, the terminal and the JSON document all show the same way. The purpose is targeting at
the budget's depth when a budget is given, else the goal named in the settings (``goal``),
else ranking. A model is recommended only when its lead over every other model is clear;
otherwise the recommendation names no model and says what would settle the question. Nothing
here computes a measure.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ranklens._foundation.format import with_currency
from ranklens.report.goals import (
    BUDGET_MEASURE,
    BUDGET_VALUE_MEASURE,
    GOALS,
    NO_EXTREME_CAUGHT,
    PLANNING_POWER,
    GoalVerdict,
    budget_targets,
    goal_title,
    plain_name,
    planning_text,
    summary_verdicts,
)
from ranklens.report.significance import ALPHA, Contrast, adjusted_method_name
from ranklens.report.tables import distinguishing_style, number_style

__all__ = ["DEFAULT_PURPOSE", "PURPOSES", "Evidence", "Recommendation", "format_money", "recommend"]

#: The purposes a recommendation can serve (the goals' keys), and the default one.
PURPOSES: tuple[str, ...] = tuple(goal.key for goal in GOALS)
DEFAULT_PURPOSE = "ranking"


@dataclasses.dataclass(frozen=True)
class Evidence:
    """The leader's comparison with the closest other model on the purpose's headline measure.

    ``difference`` is leader minus other (in the measure's units, oriented so that the leader
    is ``model_a``); ``low``/``high`` its interval at the Holm level ``level`` (NaN when there
    is none); ``method`` the words for how the interval was made; ``clear`` whether the leader
    beats every other model after the adjustment.
    """

    leader: str
    other: str
    value_leader: float
    value_other: float
    difference: float
    low: float
    high: float
    level: float
    method: str
    clear: bool
    tested: bool


@dataclasses.dataclass(frozen=True)
class Recommendation:
    """The model to deploy for one purpose, as plain data (no HTML).

    Attributes
    ----------
    model : str or None
        The model to deploy; None unless its lead over every other model is clear.
    purpose : str
        The goal served (one of :data:`PURPOSES`).
    purpose_text : str
        The purpose in words ("targeting the 100 cases the budget pays for (20% of cases)").
    measure : str
        The headline measure that decides ("" when none is defined).
    measure_name : str
        Its plain name.
    depth : float or None
        The share of cases targeted (targeting with a budget), else None.
    n_targeted : float or None
        The number of cases the budget pays for (the profit plot's budget line), else None.
    leader : str or None
        The model with the best headline value (whether or not its lead is clear).
    evidence : Evidence or None
        The leader against the closest other model; None with a single model or no test.
    worth : float or None
        The profit of targeting ``n_targeted`` cases by ``model`` (by ``leader`` when no model
        is recommended), read from the stored profit curve; None without a budget.
    currency : str or None
        The currency of ``worth`` (the settings' ``currency``).
    settle : str
        What would settle an unclear lead ("" when the lead is clear).
    sentence : str
        The decision in one or two sentences.
    secondary : tuple of (str, str)
        ``(goal title, one line)`` for every other goal.
    """

    model: str | None
    purpose: str
    purpose_text: str
    measure: str = ""
    measure_name: str = ""
    depth: float | None = None
    n_targeted: float | None = None
    leader: str | None = None
    evidence: Evidence | None = None
    worth: float | None = None
    currency: str | None = None
    settle: str = ""
    sentence: str = ""
    secondary: tuple[tuple[str, str], ...] = ()

    @property
    def clear(self) -> bool:
        """Whether a model is recommended on clear evidence."""
        return self.model is not None

    @property
    def worth_text(self) -> str:
        """The worth at the budget with its currency ("$1,234", "1,234 EUR"), or ""."""
        return "" if self.worth is None else format_money(self.worth, self.currency)

    def one_line(self) -> str:
        """The decision in one line (the terminal's summary)."""
        if self.model is not None:
            text = f"Deploy {self.model} for {self.purpose_text}"
            if self.evidence is not None:
                text += f": clearly ahead of {self.evidence.other}"
                text += f" ({_difference_words(self.evidence)})"
            if self.worth is not None:
                text += f"; worth {self.worth_text} at the budget"
            return text + "."
        return self.sentence.split(". ")[0].rstrip(".") + "."

    def to_json(self) -> dict[str, Any]:
        """The ``recommendation`` object of ``results.json`` (NaN kept; the caller maps it to
        null)."""
        evidence = None
        if self.evidence is not None:
            e = self.evidence
            evidence = {
                "leader": e.leader,
                "against": e.other,
                "value_leader": e.value_leader,
                "value_other": e.value_other,
                "difference": e.difference,
                "interval": {"lower": e.low, "upper": e.high, "level": e.level},
                "method": e.method,
                "tested": e.tested,
                "clear": e.clear,
            }
        return {
            "model": self.model,
            "purpose": self.purpose,
            "purpose_text": self.purpose_text,
            "measure": self.measure or None,
            "depth": self.depth,
            "n_targeted": self.n_targeted,
            "leader": self.leader,
            "clear": self.clear,
            "evidence": evidence,
            "worth": self.worth,
            "currency": self.currency,
            "settle": self.settle or None,
            "sentence": self.sentence,
            "secondary": [{"goal": g, "text": t} for g, t in self.secondary],
        }


def format_money(value: float, currency: str | None = None) -> str:
    """A sum of money as the report writes it: whole units with thousands separators (cents
    below 100), a symbol before the number ("$1,234"), a code after it ("1,234 EUR").

    Parameters
    ----------
    value : float
        The amount.
    currency : str, optional
        A symbol ("$", "€") or a code ("EUR"); none: the bare number.

    Returns
    -------
    str
        The amount in words.

    Examples
    --------
    >>> format_money(1234.4, "$")
    '$1,234'
    >>> format_money(-1234.4, "EUR")
    '-1,234 EUR'
    >>> format_money(12.345)
    '12.35'
    """
    v = float(value)
    if not math.isfinite(v):
        return "not defined"
    number = f"{abs(v):,.0f}" if abs(v) >= 100 else f"{abs(v):,.2f}"
    sign = "-" if v < 0 and number.strip("0.,") else ""
    return with_currency(sign + number, currency)


def _earn(worth: float, currency: str | None) -> str:
    """Says "earn $1,234" or "lose $1,234"."""
    verb = "lose" if worth < 0 else "earn"
    return f"{verb} {format_money(abs(worth), currency)}"


def _purpose(evaluation: Any) -> str:
    """Targeting with a budget; else the settings' goal; else ranking."""
    if budget_targets(evaluation) is not None:
        return "targeting"
    goal = evaluation.settings.get("goal")
    if isinstance(goal, str) and goal in PURPOSES:
        return goal
    return DEFAULT_PURPOSE


_PURPOSE_WORDS = {
    "ranking": "ranking the cases in the right order",
    "targeting": "targeting the cases with the highest scores",
    "probabilities": "probabilities of the event that can be taken at their word",
    "extremes": "catching the rare extreme values",
    "intervals": "honest and narrow prediction intervals",
    "errors": "predicted values close to the truth",
}


def _purpose_text(purpose: str, evaluation: Any) -> str:
    targets = budget_targets(evaluation) if purpose == "targeting" else None
    if targets is None:
        return _PURPOSE_WORDS[purpose]
    cases, share = targets
    return (
        f"targeting the {cases:,.0f} cases the budget pays for "
        f"(the top {_percent(share)} of cases by score)"
    )


def _percent(share: float) -> str:
    """A share as a percentage with the digits it needs (4%, 4.4%, 0.25%)."""
    text = f"{100 * share:.3g}"
    return f"{text}%"


def _difference_words(e: Evidence) -> str:
    """ "0.742 against 0.701, difference 0.041, interval 0.012 to 0.070" in digits that tell
    the two values apart."""
    widths = [e.high - e.low] if math.isfinite(e.high - e.low) else []
    style = number_style([e.value_leader, e.value_other, e.difference], widths)
    values = distinguishing_style(style, e.value_leader, e.value_other)
    text = f"{values(e.value_leader)} against {values(e.value_other)}"
    text += f", difference {style(e.difference)}"
    if math.isfinite(e.low) and math.isfinite(e.high):
        text += f", interval {style(e.low)} to {style(e.high)}"
    return text


def _evidence(verdict: GoalVerdict) -> Evidence | None:
    tested = [c for c in verdict.contrasts if c.tested]
    shown = tested or verdict.contrasts
    if not shown:
        return None
    runner: Contrast = min(shown, key=lambda c: abs(c.difference))
    return Evidence(
        leader=runner.model_a,
        other=runner.model_b,
        value_leader=float(runner.value_a),
        value_other=float(runner.value_b),
        difference=float(runner.difference),
        low=float(runner.low),
        high=float(runner.high),
        level=float(runner.level),
        method=adjusted_method_name(runner.method) if runner.tested else "not tested",
        clear=verdict.evidence == "clear",
        tested=runner.tested,
    )


def _left_out(verdict: GoalVerdict, evaluation: Any) -> str:
    """The sentence of a goal no model can serve (its headline undefined for every model, or
    no model catching a single real extreme); "" otherwise."""
    if verdict.evidence == "undefined" or not verdict.metric:
        what = plain_name(verdict.metric) if verdict.metric else "no measure"
        return f"Left out: the {what} is not defined for any model on these data."
    if verdict.evidence == "no model fit":
        return "Left out: " + NO_EXTREME_CAUGHT[:1].lower() + NO_EXTREME_CAUGHT[1:]
    return ""


def _goal_line(verdict: GoalVerdict, evaluation: Any) -> str:
    """One line for a goal: who leads, by how much, and whether the lead is clear."""
    left_out = _left_out(verdict, evaluation)
    if left_out:
        return left_out
    name = plain_name(verdict.metric)
    if verdict.evidence == "no difference":
        return f"All models have the same {name}."
    if verdict.evidence == "nothing to compare":
        return f"Only {verdict.best} is evaluated ({name} {verdict.value_text})."
    evidence = _evidence(verdict)
    if evidence is None:
        return f"{verdict.best} has the best {name}; no comparison was run."
    words = _difference_words(evidence)
    if verdict.evidence == "clear":
        return (
            f"{verdict.best} is clearly best on the {name}; closest is {evidence.other} ({words})."
        )
    if not evidence.tested:
        return f"{verdict.best} leads on the {name} over {evidence.other} ({words}); not tested."
    if evidence.difference == 0:
        return f"{evidence.leader} and {evidence.other} have the same {name}."
    return (
        f"No model is clearly better: {verdict.best} leads on the {name} over "
        f"{evidence.other} ({words})."
    )


def _budget_planning(contrast: Contrast, evaluation: Any) -> str:
    """The planning sentence of a comparison at the budget's depth, from its bootstrap standard
    deviation: with ``n`` rows, a paired difference of standard deviation ``s`` is detected with
    power ``1 - beta`` at two-sided level ``alpha`` when it is at least ``(z_{1-alpha/2} +
    z_{1-beta}) s``, and the observed difference ``d`` needs about ``n ((z_{1-alpha/2} +
    z_{1-beta}) s / d)^2`` rows (Cohen 1988, ch. 2), the standard deviation shrinking as
    ``1 / sqrt(n)``."""
    from statistics import NormalDist

    d, sd, n = abs(float(contrast.difference)), float(contrast.sd), int(evaluation.n)
    level = float(contrast.level)
    alpha = 1.0 - level if math.isfinite(level) and 0.0 < level < 1.0 else ALPHA
    if not (math.isfinite(sd) and sd > 0 and math.isfinite(d) and d > 0 and n > 0):
        return ""
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0) + NormalDist().inv_cdf(PLANNING_POWER)
    needed = math.ceil(n * (z * sd / d) ** 2)
    width = float(contrast.high - contrast.low)
    style = number_style([d, z * sd], [width] if math.isfinite(width) else [])
    return (
        f"These {n:,} rows could detect a difference of {style(z * sd)} "
        f"(with {100 * PLANNING_POWER:.0f}% power at the adjusted level); detecting the "
        f"observed {style(d)} would take about {needed:,} rows, if the models keep their "
        "accuracy."
    )


def _settle(verdict: GoalVerdict, evaluation: Any, evidence: Evidence | None) -> str:
    """What would settle an unclear lead: more data (the planning sentence), and where the
    models differ (segments, periods)."""
    from ranklens.report.segment_views import segment_sentence
    from ranklens.report.window_views import window_sentence

    if getattr(evaluation, "comparison", None) is None:
        return (
            "No paired comparison was run: one with bootstrap replicates would tell whether "
            "the lead is more than chance."
        )
    parts = []
    runner = next(
        (
            c
            for c in verdict.contrasts
            if evidence is not None and c.model_b == evidence.other and c.tested
        ),
        None,
    )
    if runner is not None and verdict.metric not in (BUDGET_MEASURE, BUDGET_VALUE_MEASURE):
        finite = [runner.high - runner.low] if math.isfinite(runner.high - runner.low) else []
        style = number_style([runner.difference, runner.value_a], finite)
        plan = planning_text(evaluation, runner, style)
        if plan:
            parts.append(plan)
    if runner is not None and not parts:
        parts.append(_budget_planning(runner, evaluation))
    parts = [p for p in parts if p]
    if not parts:
        parts.append("More data, or a larger difference between the models, would settle it.")
    for sentence in (segment_sentence(evaluation), window_sentence(evaluation)):
        if sentence:
            parts.append(sentence)
    return " ".join(parts)


def recommend(evaluation: Any, *, alpha: float = ALPHA) -> Recommendation:
    """The model to deploy for the evaluation's purpose, with its evidence.

    The purpose is targeting at exactly the budget's depth when a budget is given (the gain
    of every pair of models at that depth, from the gain bands' bootstrap replicates), else the
    goal named in ``evaluation.settings["goal"]``, else ranking. The verdict is the Summary's
    (every pair of models on each goal's headline measure, Holm-adjusted together across
    goals, Holm 1979): a model is recommended only when it beats every other model clearly;
    otherwise ``model`` is None and ``settle`` says what would decide.

    Parameters
    ----------
    evaluation : ModelEvaluation
        The result of :func:`ranklens.evaluate_models`.
    alpha : float, default 0.05
        Family-wise error rate of the verdicts.

    Returns
    -------
    Recommendation
        Plain data for the HTML report, the terminal (:meth:`Recommendation.one_line`) and the
        JSON document (:meth:`Recommendation.to_json`).

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian
    Journal of Statistics* 6(2), 65-70.
    """
    purpose = _purpose(evaluation)
    verdicts = summary_verdicts(evaluation, alpha=alpha)
    chosen = next((v for v in verdicts if v.goal.key == purpose), None)
    targets = budget_targets(evaluation) if purpose == "targeting" else None
    base = Recommendation(
        model=None,
        purpose=purpose,
        purpose_text=_purpose_text(purpose, evaluation),
        depth=None if targets is None else targets[1],
        n_targeted=None if targets is None else targets[0],
        currency=evaluation.settings.get("currency") or None,
        secondary=tuple(
            (goal_title(v.goal, evaluation), _goal_line(v, evaluation))
            for v in verdicts
            if v is not chosen
        ),
    )
    text = base.purpose_text
    if chosen is None:
        sentence = f"No model can be recommended for {text}: no measure of it was computed."
        return dataclasses.replace(base, sentence=sentence)
    base = dataclasses.replace(base, measure=chosen.metric, measure_name=plain_name(chosen.metric))
    left_out = _left_out(chosen, evaluation)
    if left_out:
        sentence = f"No model can be recommended for {text}. {left_out}"
        return dataclasses.replace(base, sentence=sentence)
    evidence = _evidence(chosen)
    clear = chosen.evidence == "clear" and bool(chosen.best)
    model = chosen.best if clear else None
    leader = chosen.best or None
    worth = _worth(evaluation, model or leader, base.depth)
    if model is not None:
        sentence, settle = _deploy_words(base, model, evidence, chosen), ""
    else:
        sentence = _unclear_words(base, leader, evidence, chosen)
        alone = chosen.evidence == "nothing to compare"
        settle = "" if alone else _settle(chosen, evaluation, evidence)
    if worth is not None and (model or leader):
        by = model or leader
        sentence += f" Targeting these cases by {by} would {_earn(worth, base.currency)}."
    return dataclasses.replace(
        base,
        model=model,
        leader=leader,
        evidence=evidence,
        worth=worth,
        settle=settle,
        sentence=sentence,
    )


def _deploy_words(
    base: Recommendation, model: str, evidence: Evidence | None, verdict: GoalVerdict
) -> str:
    """The decision when the lead is clear: the model, the purpose and the closest other
    model's comparison."""
    sentence = f"Deploy {model} for {base.purpose_text}."
    name = plain_name(verdict.metric)
    if evidence is None:
        return sentence + f" It is the only model evaluated ({name} {verdict.value_text})."
    return sentence + (
        f" On the {name} it is clearly ahead of every other model; closest is "
        f"{evidence.other} ({_difference_words(evidence)}; {evidence.method})."
    )


def _unclear_words(
    base: Recommendation, leader: str | None, evidence: Evidence | None, verdict: GoalVerdict
) -> str:
    """The decision when no lead is clear: who leads, by how much, and why that is not
    enough."""
    sentence = f"No model is clearly better for {base.purpose_text}"
    name = plain_name(verdict.metric)
    if verdict.evidence == "nothing to compare":
        return (
            f"Only {leader} is evaluated for {base.purpose_text} ({name} "
            f"{verdict.value_text}): there is no other model to choose between."
        )
    if verdict.evidence == "no difference":
        return sentence + f": all models have the same {name}."
    if not leader or evidence is None:
        return sentence + "."
    if evidence.difference == 0:
        return sentence + (
            f"; {evidence.leader} and {evidence.other} have the same {name} "
            f"({_difference_words(evidence).split(' against ')[0]})."
        )
    why = (
        "the difference is within what resampling noise produces"
        if evidence.tested
        else "the difference is not tested"
    )
    return sentence + (
        f"; {leader} leads on the {name} over {evidence.other} "
        f"({_difference_words(evidence)}), but {why}."
    )


def _worth(evaluation: Any, model: str | None, depth: float | None) -> float | None:
    """The profit of targeting exactly the budget's cases by ``model``, read off its stored
    profit curve (None without a budget or a profit curve)."""
    if model is None or depth is None:
        return None
    curve = (evaluation.curves.get("profit") or {}).get(model)
    if curve is None:
        return None
    value = float(curve.at(depth))
    return value if math.isfinite(value) else None
