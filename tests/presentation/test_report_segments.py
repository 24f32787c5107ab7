"""The report's "By segment" section: a table per slicing, a forest plot per measure, the notes,
the scan's findings, and the Summary's sentence; read from the results, nothing recomputed."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from ranklens.report import evaluate_models, render_html
from ranklens.report.render import task_view
from ranklens.report.segment_views import segment_sentence, segments_section

N = 700


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    """Model b is much better in the north; a small segment of 12 rows; missing labels."""
    rng = np.random.default_rng(5)
    y = rng.lognormal(size=N)
    region = np.array(rng.choice(["north", "south"], N), dtype=object)
    region[:12] = "island"
    region[12:60] = None
    return pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(size=N),
            "b": y + rng.normal(size=N) * np.where(region == "north", 0.2, 1.4),
            "region": region,
            "age": rng.uniform(18, 90, N),
        }
    )


@pytest.fixture(scope="module")
def evaluation(data):
    return evaluate_models(
        "y",
        ["a", "b"],
        data=data,
        by=["region", "age"],
        scan="region",
        n_bootstrap=200,
        random_state=2,
        curves=False,  # the forest plots read the segments, not the curves
        robustness=False,
    )


@pytest.fixture(scope="module")
def page(evaluation) -> str:
    pytest.importorskip("matplotlib")
    return render_html(evaluation, title="Segments")


def _section(page: str) -> str:
    start = page.index('class="section section-segments"')
    return page[start : page.index("</section>", start)]


def test_the_section_has_a_table_per_slicing_and_the_notes(page, evaluation):
    section = _section(page)
    assert "<h3>By segment</h3>" in section
    assert section.count('<table class="segments">') == 2
    assert "<h4>By region</h4>" in section and "<h4>By age</h4>" in section
    # segments as rows, models as columns, counts, the pick and the verdicts marked
    for segment in ("north", "south", "island", "(missing)"):
        assert f'<th scope="row" class="text">{html.escape(segment)}</th>' in section
    assert '<th scope="col" title="rows in the segment">rows</th>' in section
    assert "the pick" in section and "clearly better than the pick" in section
    # the small segment: its value, no interval, a note
    assert "too small: no interval" in section
    assert "Too small: a segment with fewer than 30 rows" in section
    # missing labels, quantile bins, the false discovery rate in words with its reference
    assert "rows with a missing label form the segment" in section
    assert "age: cut into 5 quantile bins" in section
    assert "false discovery rate" in section and "Benjamini &amp; Hochberg 1995" in section
    assert "Benjamini &amp; Yekutieli (2001)" in section  # How this is computed
    # the scan's findings
    assert "Weak segments found by the scan" in section
    north = next(
        r
        for r in evaluation.segments.records
        if r["segment"] == "north" and r["metric"] == "mean_absolute_error" and r["model"] == "b"
    )
    assert north["verdict"] in ("better", "pick")


def test_a_forest_plot_per_measure(page, evaluation):
    section = _section(page)
    figures = re.findall(r"<figcaption><strong>(By segment: [^<.]*)\.</strong>", section)
    assert figures == [
        "By segment: mean absolute error",
        "By segment: Kendall's tau".replace("'", "&#39;"),
        "By segment: ROC AUC",
    ]
    assert section.count('class="vl-chart"') == 3  # interactive forest plots
    assert "dashed lines: each model" in section


def test_the_summary_says_where_another_model_is_clearly_better(page, evaluation):
    sentence = segment_sentence(evaluation)
    assert sentence.startswith("Another model is clearly better than the pick")
    assert "a beats b on mean absolute error where region is south" in sentence
    # once: in the decision's "what would settle it" when no lead is clear, else on its own
    escaped = html.escape(sentence)
    decision = page[page.index('data-key="recommendation"') :]
    decision = decision[: decision.index("</div>")]
    summary = page[page.index('class="section section-summary"') :]
    summary = summary[: summary.index("<section ")]
    assert summary.count(escaped) == 1
    assert (escaped in decision) != (f"<strong>By segment.</strong> {escaped}" in page)
    # the Summary's own verdicts keep their Holm correction
    assert "corrected together (Holm 1979)" in page


def test_no_segment_clearly_better_is_said_so(data):
    even = data.assign(b=data["a"] + 1e-9)  # the same model twice: nothing to find
    ev = evaluate_models(
        "y", ["a", "b"], data=even, by="region", n_bootstrap=40, curves=False, robustness=False
    )
    sentence = segment_sentence(ev)
    assert sentence.startswith("No segment where another model is clearly better than the pick")
    assert "false discovery rate 5%, Benjamini & Hochberg 1995" in sentence


def test_without_replicates_the_section_says_there_are_no_verdicts(data):
    ev = evaluate_models(
        "y", ["a", "b"], data=data, by="region", n_bootstrap=0, curves=False, robustness=False
    )
    assert "no verdict" in segment_sentence(ev)
    section = segments_section(ev)
    assert section is not None
    assert any("No bootstrap replicates (n_bootstrap=0)" in note for note in section.notes)


def test_without_segments_there_is_no_section(data):
    ev = evaluate_models("y", ["a", "b"], data=data, curves=False, robustness=False)
    assert segments_section(ev) is None and segment_sentence(ev) == ""
    view = task_view(ev, figures=False)
    assert "segments" not in [s.id for s in view["sections"]]


def test_a_scan_alone_shows_its_findings(data):
    ev = evaluate_models(
        "y", ["a", "b"], data=data, scan="region", n_bootstrap=40, curves=False, robustness=False
    )
    section = segments_section(ev)
    assert section is not None
    assert section.tables[-1].caption == "Weak segments found by the scan"
    assert segment_sentence(ev) == ""  # the Summary's sentence is about by=, not the scan
