"""The Summary's "what would settle it": each unclear lead says the difference these data could
detect and the rows needed to detect the observed one, with ranklens.planning's numbers."""

from __future__ import annotations

import math
import re

import numpy as np

import ranklens as rl
from ranklens.report.goals import PLANNING_POWER, summary_verdicts


def _evaluation() -> object:
    rng = np.random.default_rng(5)
    n = 300
    y = rng.lognormal(size=n)
    preds = {"a": y + rng.normal(size=n), "b": y + 1.02 * rng.normal(size=n)}
    return rl.evaluate_models(
        y, preds, n_bootstrap=200, random_state=0, curves=False, robustness=False
    )


def test_an_unclear_lead_says_what_would_settle_it() -> None:
    ev = _evaluation()
    unclear = [v for v in summary_verdicts(ev) if v.evidence == "not clear"]
    assert unclear
    for verdict in unclear:
        text = re.sub("<[^>]+>", "", verdict.sentence)
        assert "These 300 rows could detect a difference of" in text
        assert "would take about" in text
        # what to do is the recommendation's to say, not each goal's
        assert "choose on other grounds" not in text
    # the numbers are planning's on the evaluation's comparison, at the contrast's level
    verdict = unclear[0]
    runner = min((c for c in verdict.contrasts if c.tested), key=lambda c: abs(c.difference))
    plan = rl.required_sample_size(
        ev.comparison,
        metric=verdict.metric,
        model_a=runner.model_a,
        model_b=runner.model_b,
        power=PLANNING_POWER,
        alpha=1 - runner.level,
        null_variance="alternative",
    )
    rows = f"would take about {math.ceil(plan.required_n[0]):,} rows"
    assert rows in re.sub("<[^>]+>", "", verdict.sentence)


def test_no_comparison_no_planning_sentence() -> None:
    rng = np.random.default_rng(5)
    y = rng.lognormal(size=100)
    ev = rl.evaluate_models(
        y, {"a": y + rng.normal(size=100), "b": y + rng.normal(size=100)},
        n_bootstrap=0, inference="bootstrap", curves=False, robustness=False,
    )  # fmt: skip
    assert all("could detect" not in v.sentence for v in summary_verdicts(ev))
