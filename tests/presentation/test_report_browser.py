"""Open the report in headless Chromium: it renders, logs no console errors, shows the numbers."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from ranklens.report import evaluate_models, write_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless chromium is not installed "
        "(.ci/run installs it; locally: apt-get install chromium)",
    ),
]

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
)


def _chromium(tmp_path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(3)
    n = 150
    y = rng.lognormal(mean=3, size=n)
    predictions = {
        "gbm": y * rng.lognormal(sigma=0.4, size=n),
        "linear": y + rng.normal(scale=20, size=n),
    }
    evaluation = evaluate_models(
        y,
        predictions,
        title="Browser check",
        events="top:0.1",
        budget=300.0,
        cost_per_target=10.0,
        value_margin=0.4,
        n_bootstrap=30,
        random_state=0,
    )
    path = write_html(
        tmp_path_factory.mktemp("report") / "report.html", evaluation, title="Browser check"
    )
    return path, evaluation


def _console_messages(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if ":CONSOLE" in line or "Uncaught" in line or "Failed to load resource" in line
    ]


def test_report_renders_without_console_errors_and_shows_the_numbers(tmp_path, report):
    path, evaluation = report
    run = _chromium(tmp_path, "--dump-dom", path.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert _console_messages(run.stderr) == []
    dom = run.stdout
    assert "<h1>Browser check</h1>" in dom
    for model in ("gbm", "linear"):
        # Written to the precision of its interval: the shown digits round the value.
        tau = evaluation.values[model]["kendall_tau"]
        shown = re.search(rf'data-key="{model}:kendall_tau">([-0-9.,]+)<', dom)
        assert shown, model
        text = shown.group(1)
        decimals = len(text.split(".")[1]) if "." in text else 0
        assert abs(float(text.replace(",", "")) - tau) <= 0.5 * 10**-decimals + 1e-12, model
    assert 'data-key="n">150<' in dom
    assert dom.count("data:image/svg+xml;base64,") >= 8


def test_report_screenshot_is_not_blank(tmp_path, report):
    path, _ = report
    shot = tmp_path / "shot.png"
    run = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,3000", path.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert _console_messages(run.stderr) == []
    assert shot.exists() and shot.stat().st_size > 20_000


@pytest.fixture(scope="module")
def binary_report(tmp_path_factory):
    """A binary target (a response flag), as a marketer's CSV would give it."""
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(11)
    n = 400
    x = rng.normal(size=n)
    y = (x + rng.normal(scale=1.0, size=n) > 1.0).astype(float)
    predictions = {
        "score_good": x + rng.normal(scale=0.5, size=n),
        "score_weak": x + rng.normal(scale=2.0, size=n),
    }
    evaluation = evaluate_models(
        y,
        predictions,
        title="Response campaign",
        target="responded",
        budget=1000.0,
        cost_per_target=10.0,
        cost_benefit=((40.0, 0.0), (-10.0, 0.0)),
        n_bootstrap=60,
        random_state=0,
    )
    path = write_html(
        tmp_path_factory.mktemp("binary") / "report.html", evaluation, title="Response campaign"
    )
    return path, evaluation


def _first_section_title(dom: str) -> str:
    match = re.search(r"<section[^>]*>\s*<h3>([^<]+)</h3>", dom)
    return match.group(1) if match else ""


def _bare_dashes(dom: str) -> list[str]:
    """Table cells whose whole text is a dash: a missing value with no reason."""
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", dom, flags=re.S)
    return [c for c in cells if re.sub(r"<[^>]+>", "", c).strip() in {"–", "—", "-"}]


@pytest.mark.parametrize("width", [1400, 760])
@pytest.mark.parametrize("which", ["report", "binary_report"])
def test_summary_first_no_bare_dashes_at_both_widths(tmp_path, request, which, width):
    from ranklens.report.goals import summary_verdicts

    path, evaluation = request.getfixturevalue(which)
    run = _chromium(tmp_path, f"--window-size={width},2000", "--dump-dom", path.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert _console_messages(run.stderr) == []
    dom = run.stdout
    assert _first_section_title(dom) == "Summary"
    assert _bare_dashes(dom) == []
    for model in evaluation.model_names:
        assert model in dom
    verdicts = summary_verdicts(evaluation)
    assert verdicts
    for verdict in verdicts:
        if verdict.best:
            assert f'data-key="pick:{verdict.goal.key}">{verdict.best}<' in dom
        if verdict.value_text:
            key = verdict.goal.key
            assert f'data-key="headline:{key}">{verdict.value_text}<' in dom
    assert "Holm" in dom
    shot = tmp_path / "shot.png"
    run = _chromium(tmp_path, f"--screenshot={shot}", f"--window-size={width},2200", path.as_uri())
    assert run.returncode == 0 and shot.stat().st_size > 20_000
