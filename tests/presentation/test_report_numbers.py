"""Numbers as readers see them: positional notation in the HTML report's tables and the terminal
summary (never "2.52e+07"), and never two different values of one row or column read the same."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pandas as pd
import pytest

from ranklens._foundation.format import format_number
from ranklens.report import evaluate_models, render_html
from ranklens.report.goals import GOALS
from ranklens.report.render import goal_table
from ranklens.report.tables import number_style
from ranklens.report.terminal import short_summary, summary_table

#: Scientific notation as Python writes it (``2.52e+07``, ``1.2e-05``, ``1e6``).
SCIENTIFIC = re.compile(r"\d(\.\d*)?[eE][+-]?\d")


def _visible(page: str) -> str:
    """The text a reader sees: no style sheet, no script, no tags."""
    page = re.sub(r"(?s)<style.*?</style>", "", page)
    page = re.sub(r"(?s)<script.*?</script>", "", page)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))


def _scales(rng, n):
    """``n`` numbers from 1e-6 to 1e10 in magnitude, of both signs, with near repeats."""
    base = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.integers(-6, 11, n) * rng.uniform(1, 10, n)
    near = base * (1 + rng.choice([0.0, 1e-9, 1e-5, 1e-2], n) * rng.uniform(-1, 1, n))
    return np.concatenate([base, near])


@pytest.mark.parametrize("seed", range(40))
def test_a_row_is_positional_and_tells_different_values_apart(seed):
    rng = np.random.default_rng(seed)
    values = list(rng.permutation(_scales(rng, int(rng.integers(1, 5)))))
    values += [math.nan, math.inf, -math.inf][: int(rng.integers(0, 4))]
    widths = list(np.abs(rng.normal(size=2)) * 10.0 ** rng.integers(-7, 8)) if seed % 2 else []
    style = number_style(values, widths)
    texts = [style(v) for v in values]
    assert not any(SCIENTIFIC.search(t) for t in texts), texts
    # brute force: every pair of different finite values reads differently
    finite = [(v, t) for v, t in zip(values, texts, strict=True) if math.isfinite(v)]
    for a, ta in finite:
        for b, tb in finite:
            assert a == b or ta != tb, (a, b, ta)
        # and the text is the value, to the decimals shown (and the double's precision)
        error = abs(float(ta.replace(",", "")) - a)
        assert error <= 0.5 * 10.0**-style.decimals + 4e-16 * abs(a), (a, ta)


@pytest.mark.parametrize(
    "value",
    [1e-6, -3.3e-5, 0.00099, 0.5, 123.456, 99_999.9, 123_456.7, -2.52e7, 8.5e9, 1e10, 1e20],
)
def test_format_number_is_never_scientific(value):
    text = format_number(value)
    assert not SCIENTIFIC.search(text), text
    assert math.isclose(float(text.replace(",", "")), value, rel_tol=1e-3)
    assert format_number(math.nan) == "–" and format_number(-math.inf) == "−∞"


@pytest.fixture(scope="module", params=[1e4, 1e-4], ids=["large", "small"])
def scaled(request):
    """A long-tailed target times 1e4 (squared errors near 1e10) or 1e-4 (near 1e-8), read
    from a CSV (pandas Series); one model misses a value entirely (NaN measures)."""
    rng = np.random.default_rng(3)
    n = 400
    y = rng.lognormal(2.0, 1.0, n)
    frame = pd.DataFrame(
        {
            "y": y,
            "close": y * rng.lognormal(0.0, 0.2, n),
            "far": y * rng.lognormal(0.0, 0.9, n),
            "twin": y * rng.lognormal(0.0, 0.2, n) * (1 + 1e-6),
        }
    )
    frame = pd.read_csv(io.StringIO((frame * request.param).to_csv(index=False)))
    models = {m: frame[m] for m in ("close", "far", "twin")}
    return evaluate_models(frame["y"], models, n_bootstrap=60, random_state=0)


def test_the_report_shows_no_scientific_notation(scaled):
    text = _visible(render_html(scaled))
    found = sorted({m.group(0) for m in SCIENTIFIC.finditer(text)})
    assert not found, found


def test_no_two_different_values_of_a_goal_row_read_the_same(scaled):
    checked = 0
    for goal in GOALS:
        table, _ = goal_table(scaled, goal)
        if table is None:
            continue
        for row in table.rows:
            shown = {}
            for cell in row.cells:
                if not cell.key:
                    continue
                model, metric = cell.key.split(":", 1)
                value = scaled.values[model][metric]
                if math.isfinite(value):
                    shown.setdefault(cell.text, set()).add(value)
                    checked += 1
            assert all(len(v) == 1 for v in shown.values()), shown
    assert checked > 20


def test_the_terminal_names_measures_in_plain_words(scaled):
    from rich.console import Console

    lines = short_summary(scaled, width=200)
    text = "\n".join(lines)
    assert not SCIENTIFIC.search(text)
    header = "\n".join(lines[: lines.index(next(x for x in lines if x.startswith("close")))])
    assert "share of pairs" in header and "mean absolute" in header
    assert "_" not in header  # no registry name heads a column
    console = Console(width=120, record=True)
    console.print(summary_table(scaled))
    verbose = console.export_text()
    assert not SCIENTIFIC.search(verbose)
    # the name --metrics takes, beside the plain one, never cut
    for metric in scaled.metrics:
        assert metric in verbose, metric
