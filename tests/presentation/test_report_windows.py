"""The report's "Over time" section: the stability table, a panel per measure, the notes, and
the Summary's sentence on whether the pick's lead holds; read from the results, nothing
recomputed."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from ranklens.report import evaluate_models, render_html
from ranklens.report.render import task_view
from ranklens.report.window_views import window_sentence, windows_section

N = 730


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    """Two years of days: b's errors shrink steadily, so a's lead over b on all the rows turns
    into b's lead in the last quarters."""
    rng = np.random.default_rng(8)
    y = rng.gamma(2.0, size=N)
    return pd.DataFrame(
        {
            "date": pd.date_range("2023-01-01", periods=N, freq="D"),
            "y": y,
            "a": y + rng.normal(size=N),
            "b": y + np.linspace(2.2, 0.2, N) * rng.normal(size=N),
        }
    )


@pytest.fixture(scope="module")
def evaluation(data):
    return evaluate_models(
        "y",
        ["a", "b"],
        data=data,
        time="date",
        window="Q",
        n_bootstrap=200,
        random_state=2,
        curves=False,  # the panels read the windows, not the curves
        robustness=False,
    )


@pytest.fixture(scope="module")
def page(evaluation) -> str:
    pytest.importorskip("matplotlib")
    return render_html(evaluation, title="Windows")


def _section(page: str) -> str:
    start = page.index('class="section section-windows"')
    return page[start : page.index("</section>", start)]


def test_the_section_has_its_table_panels_and_notes(page, evaluation):
    section = _section(page)
    assert "<h3>Over time</h3>" in section
    assert section.count('<table class="windows">') == 1
    assert "<h4>How stable the pick&#39;s lead is</h4>" in section
    assert "mean absolute error (lower is better); pick: a" in section
    for heading in ("lead clear", "same direction", "reversed", "not tested", "trend"):
        assert f">{heading}</th>" in section
    # a panel per measure, the models as lines with their bands
    figures = re.findall(r"<figcaption><strong>(Over time: [^<.]*)\.</strong>", section)
    assert figures == [
        "Over time: mean absolute error",
        "Over time: Kendall's tau".replace("'", "&#39;"),
        "Over time: ROC AUC",
    ]
    assert section.count('class="vl-chart"') == 3  # interactive panels
    shown = "rows (band; the interactive chart shows the pick&#39;s band until models are picked"
    assert f"interval from resampling the window&#39;s {shown}" in section
    # the notes: the windows, small windows, the intervals and the family in words
    assert "Windows: 8 calendar quarters, from 2023Q1 to 2024Q4." in section
    assert "Too small: a window with fewer than 30 rows" in section
    assert "stationary bootstrap of blocks of consecutive rows" in section
    assert "Benjamini &amp; Hochberg 1995" in section
    assert "Hedges &amp; Olkin 1985" in section  # How this is computed
    # the section follows the Summary's order: after the goals, before the comparison
    ids = [s.id for s in task_view(evaluation, figures=False)["sections"]]
    assert ids.index("windows") < ids.index("comparison")


def test_the_summary_says_whether_the_lead_holds(page, evaluation):
    sentence = window_sentence(evaluation)
    stability = evaluation.windows.stability_frame().set_index("metric")
    row = stability.loc["mean_absolute_error"]
    assert row["reversed"] >= 2
    assert sentence.startswith(
        f"On mean absolute error, a's lead over b is clear in {row['clear']} of 8 quarters "
        f"and reversed in the last {row['reversed']} quarters; the lead shrinks by "
    )
    assert sentence.endswith(" a quarter (clear trend).")
    # once: in the decision's "what would settle it" when no lead is clear, else on its own
    escaped = html.escape(sentence)
    decision = page[page.index('data-key="recommendation"') :]
    decision = decision[: decision.index("</div>")]
    summary = page[page.index('class="section section-summary"') :]
    summary = summary[: summary.index("<section ")]
    assert summary.count(escaped) == 1
    assert (escaped in decision) != (f"<strong>Over time.</strong> {escaped}" in page)
    # in plain words: no registry names, no code
    assert "mean_absolute_error" not in sentence and "window=" not in sentence


def test_no_trend_and_no_reversal_are_said_so(data):
    even = data.assign(b=data["a"] + 0.3 * np.sin(np.arange(N)))
    ev = evaluate_models(
        "y", ["a", "b"], data=even, time="date", window="Q", n_bootstrap=60,
        curves=False, robustness=False,
    )  # fmt: skip
    sentence = window_sentence(ev)
    assert sentence.startswith("On mean absolute error, a's lead over b is clear in ")
    assert sentence.endswith(" of 8 quarters and reversed in none; no clear trend.")


def test_without_replicates_the_section_says_there_are_no_verdicts(data):
    ev = evaluate_models(
        "y", ["a", "b"], data=data, window=200, n_bootstrap=0, curves=False, robustness=False
    )
    assert window_sentence(ev).startswith("No bootstrap replicates, so no window is judged")
    section = windows_section(ev)
    assert section is not None
    assert any("No bootstrap replicates" in note for note in section.notes)
    assert "runs of 200 rows" in section.notes[0]


def test_without_windows_there_is_no_section(data):
    ev = evaluate_models("y", ["a", "b"], data=data, curves=False, robustness=False)
    assert windows_section(ev) is None and window_sentence(ev) == ""
    view = task_view(ev, figures=False)
    assert "windows" not in [s.id for s in view["sections"]]


def test_a_short_last_window_is_passed_over():
    """ "Reversed in the last ..." counts back from the last window with a verdict; a short
    last window without one (a single day of a new quarter) is passed over, and said so."""
    from types import SimpleNamespace

    from ranklens.report.window_views import _reversed_words

    verdicts = ["worse", "better", "better", "not tested"]
    result = SimpleNamespace(
        unit="quarter",
        window_kind="calendar",
        records=[{"metric": "m", "model": "b", "verdict": v} for v in verdicts],
    )
    assert _reversed_words(result, "m", "b", 2) == "reversed in the last 2 quarters tested"
    result.records[-1]["verdict"] = "better"
    assert _reversed_words(result, "m", "b", 3) == "reversed in the last 3 quarters"
    result.records[-1]["verdict"] = "worse"
    assert _reversed_words(result, "m", "b", 2) == "reversed in 2"
    assert _reversed_words(result, "m", "b", 0) == "reversed in none"
