"""Calibration against discrimination in the report: the decomposition table and the
reliability diagram of the Size of the errors section, the Summary's sentence (said only when
the paired interval of the discrimination difference is clear), the terminal's line and the
``calibration`` block of the JSON document; read from the pipeline's results, nothing
recomputed."""

from __future__ import annotations

import html
import math

import numpy as np
import pytest

from ranklens.calibration import score_decompositions
from ranklens.report import evaluate_models, evaluation_to_json, render_html
from ranklens.report.calibration_views import (
    calibration_sentence,
    decomposition_table,
    paired_difference,
)
from ranklens.report.terminal import calibration_line
from report_schema import results_schema, validate

N = 400


def _evaluate(y, predictions):
    return evaluate_models(
        y,
        predictions,
        n_bootstrap=200,
        random_state=3,
        robustness=False,
    )


@pytest.fixture(scope="module")
def shifted():
    """a = 3 + y + small noise (worse squared error, far better order); b = y + large noise."""
    rng = np.random.default_rng(11)
    y = rng.normal(size=N)
    predictions = {
        "a": 3.0 + y + rng.normal(scale=0.1, size=N),
        "b": y + rng.normal(scale=1.5, size=N),
    }
    return y, predictions, _evaluate(y, predictions)


@pytest.fixture(scope="module")
def alike():
    """Two models with the same kind of error: neither discriminates clearly better."""
    rng = np.random.default_rng(12)
    y = rng.normal(size=N)
    predictions = {
        "a": y + rng.normal(size=N),
        "b": y + rng.normal(size=N),
    }
    return y, predictions, _evaluate(y, predictions)


def _section(page: str, key: str) -> str:
    start = page.index(f'class="section section-{key}"')
    return page[start : page.index("</section>", start)]


def test_the_section_shows_the_decomposition_and_the_reliability_diagram(shifted):
    pytest.importorskip("matplotlib")
    _, _, evaluation = shifted
    section = html.unescape(_section(render_html(evaluation, title="Calibration"), "errors"))
    assert "miscalibration - discrimination + uncertainty" in section
    for words in ("what a monotone recalibration would remove", "discrimination", "uncertainty"):
        assert words in section
    assert "Reliability diagram" in section
    assert "consistency band" in section.lower() or "shaded band" in section
    # the section says which model would win once recalibrated
    assert "b has the lowest mean squared error, but a discriminates best" in section


def test_the_band_follows_the_run_resampling(shifted):
    """The consistency band is drawn (200 resamples, for the model with the lowest mean squared
    error) in a run that resamples; a run with ``n_bootstrap=0`` draws none and the caption
    says why."""
    pytest.importorskip("matplotlib")
    y, predictions, evaluation = shifted
    block = evaluation.extras["calibration"]
    assert block["band_model"] == "b"
    assert block["diagrams"]["b"].n_bootstrap == 200
    assert np.isfinite(block["diagrams"]["b"].band_low).all()
    assert block["diagrams"]["a"].n_bootstrap == 0
    plain = evaluate_models(y, predictions, n_bootstrap=0, robustness=False)
    block = plain.extras["calibration"]
    assert block["band_model"] is None
    assert all(d.n_bootstrap == 0 for d in block["diagrams"].values())
    assert all(np.isnan(d.band_low).all() for d in block["diagrams"].values())
    # the curves and the decomposition are those of the resampling run
    for model, diagram in block["diagrams"].items():
        before = evaluation.extras["calibration"]["diagrams"][model]
        assert np.array_equal(diagram.recalibrated, before.recalibrated)
        assert diagram.mcb == before.mcb and diagram.dsc == before.dsc
    section = html.unescape(_section(render_html(plain, title="Calibration"), "errors"))
    assert "No consistency band: the evaluation drew no resamples" in section
    assert "shaded band" not in section


def test_the_table_holds_the_decomposition_of_every_model(shifted):
    y, predictions, evaluation = shifted
    table = decomposition_table(evaluation)
    assert table is not None and len(table.rows) == 2
    direct = score_decompositions(y, predictions)
    assert [row.cells[0].text for row in table.rows] == list(direct.models)


def test_the_summary_says_a_shifted_model_would_win_once_recalibrated(shifted):
    _, _, evaluation = shifted
    d, low, high = paired_difference(evaluation.comparison, "discrimination", "a", "b")
    assert d > 0 and low > 0 and high >= low
    sentence = calibration_sentence(evaluation)
    assert sentence.startswith("a's error is mostly miscalibration: recalibrated, it would beat b")
    assert "paired interval" in sentence
    page = html.unescape(render_html(evaluation, title="Calibration", figures=False))
    summary = _section(page, "summary")
    assert "Calibration." in summary and sentence in summary
    assert calibration_line(evaluation) == f"calibration: {sentence}"


def test_the_better_discriminating_model_is_named_when_recalibration_cannot_help():
    rng = np.random.default_rng(13)
    y = rng.normal(size=N)
    evaluation = _evaluate(
        y, {"sharp": y + rng.normal(scale=0.5, size=N), "noisy": y + rng.normal(scale=1.5, size=N)}
    )
    sentence = calibration_sentence(evaluation)
    assert sentence.startswith("sharp discriminates better; no recalibration of noisy closes")


def test_nothing_is_said_when_neither_holds(alike):
    _, _, evaluation = alike
    _, low, high = paired_difference(evaluation.comparison, "discrimination", "a", "b")
    assert low < 0 < high
    assert calibration_sentence(evaluation) == ""
    assert calibration_line(evaluation) == ""
    page = html.unescape(render_html(evaluation, title="Calibration", figures=False))
    assert "Calibration." not in _section(page, "summary")


def test_nothing_is_said_without_a_comparison():
    rng = np.random.default_rng(14)
    y = rng.normal(size=100)
    evaluation = evaluate_models(
        y, {"a": 3 + y, "b": y + rng.normal(size=100)}, n_bootstrap=0, robustness=False
    )
    assert decomposition_table(evaluation) is not None
    assert calibration_sentence(evaluation) == ""


def test_a_binary_target_keeps_the_decomposition_of_the_brier_score():
    rng = np.random.default_rng(15)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(float)
    evaluation = evaluate_models(
        y, {"a": p, "b": np.clip(p + 0.2, 0, 1)}, n_bootstrap=0, robustness=False
    )
    table = evaluation.extras["calibration"]["table"]
    brier = [float(np.mean((y - q) ** 2)) for q in (p, np.clip(p + 0.2, 0, 1))]
    assert np.allclose(table.mean_score, brier, rtol=1e-12)


def test_the_json_block_validates_and_equals_the_direct_decomposition(shifted):
    y, predictions, evaluation = shifted
    doc = evaluation_to_json(evaluation)
    validate(doc, results_schema())
    assert doc["schema_version"] == "2.7"
    block = doc["calibration"]
    direct = score_decompositions(y, predictions)
    assert block["score"] == "squared_error" and block["n"] == N
    assert block["statement"] == direct.statement()
    assert list(block["models"]) == list(direct.models)
    for m, model in enumerate(direct.models):
        record = block["models"][model]
        for key in ("mean_score", "mcb", "dsc", "unc"):
            assert math.isclose(record[key], float(getattr(direct, key)[m]), rel_tol=1e-12)
        assert math.isclose(
            record["mean_score"], record["mcb"] - record["dsc"] + record["unc"], rel_tol=1e-9
        )
