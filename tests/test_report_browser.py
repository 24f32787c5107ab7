"""Open the report in headless Chromium: it renders, logs no console errors, shows the numbers."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from ranklens.report import evaluate_models, write_html
from ranklens.report.render import format_number

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
        tau = format_number(evaluation.values[model]["kendall_tau"])
        assert re.search(rf'data-key="{model}:kendall_tau">{re.escape(tau)}<', dom), model
    assert 'data-key="n">150<' in dom
    assert dom.count("data:image/svg+xml;base64,") >= 8


def test_report_screenshot_is_not_blank(tmp_path, report):
    path, _ = report
    shot = tmp_path / "shot.png"
    run = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,3000", path.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    assert _console_messages(run.stderr) == []
    assert shot.exists() and shot.stat().st_size > 20_000
