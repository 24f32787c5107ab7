"""Open the report in headless Chromium: it renders, logs no console errors, shows the numbers,
draws every interactive chart, shows a tooltip on hover and sorts its tables.

Most checks read the DOM that ``chromium --dump-dom`` prints; the charts are drawn after the page
has loaded, so their checks drive Chromium through the DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages ending in a NUL byte on file descriptors 3 and 4),
with the standard library only.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import subprocess
import time

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
    # every plot: an interactive chart or, where it has none, an SVG image
    charts = len(re.findall(r'class="vl-chart[ "]', dom))
    assert dom.count("data:image/svg+xml;base64,") + charts >= 8


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


# --------------------------------------------------------------------------------------------
# The interactive charts, through the DevTools protocol


class _DevTools:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (one page)."""

    def __init__(self, profile, width: int, height: int = 1200) -> None:
        to_child, self._write = os.pipe()
        self._read_fd, from_child = os.pipe()

        def remap() -> None:  # Chromium reads commands on fd 3 and answers on fd 4
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self.process = subprocess.Popen(
            [
                CHROMIUM,
                *FLAGS,
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=remap,
            pass_fds=(3, 4),
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._id = 0
        self._session = None
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def _message(self, timeout: float) -> dict:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._read_fd], [], [], timeout)
            if not ready:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._read_fd, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, timeout: float = 60, **params) -> dict:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if self._session and not method.startswith("Target."):
            message["sessionId"] = self._session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message(timeout)
            if reply.get("id") == self._id:
                assert "error" not in reply, (method, reply["error"])
                return reply.get("result", {})
            self.events.append(reply)

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._message(60))

    def evaluate(self, expression: str):
        result = self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def console(self) -> list[str]:
        """Every console message, uncaught exception and error or warning the page logged."""
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                out.append(f"{params['type']}: {[a.get('value') for a in params['args']]}")
            elif method == "Runtime.exceptionThrown":
                out.append(f"exception: {params['exceptionDetails']}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                out.append(f"log: {params['entry']['text']}")
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (TimeoutError, EOFError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)
        os.close(self._read_fd)


#: Resolves once every chart of the page is drawn or has failed (draw_charts.js), or after 60 s.
_CHARTS_SETTLED = """
new Promise(resolve => {
  if (document.documentElement.dataset.charts) { resolve(true); return; }
  document.addEventListener("ranklens:charts", () => resolve(true));
  setTimeout(() => resolve(false), 60000);
})
"""

_CHART_STATE = """
Array.from(document.querySelectorAll(".vl-chart")).map(c => ({
  id: c.id,
  drawn: c.getAttribute("data-drawn"),
  marks: c.querySelectorAll(
    "svg .mark-line, svg .mark-symbol, svg .mark-rect, svg .mark-area, svg .mark-rule"
  ).length,
  drawing: !!c.querySelector("svg, canvas"),
}))
"""


@pytest.fixture
def devtools(tmp_path):
    opened = []

    def start(width: int) -> _DevTools:
        browser = _DevTools(tmp_path / f"profile-{len(opened)}", width)
        opened.append(browser)
        return browser

    yield start
    for browser in opened:
        browser.close()


@pytest.fixture(scope="module")
def segment_report(tmp_path_factory):
    """An evaluation by segment (forest plots) and no curves."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(5)
    n = 500
    y = rng.lognormal(size=n)
    region = np.array(rng.choice(["north", "south"], n), dtype=object)
    region[:12] = "island"  # too small for an interval: a hollow point
    data = pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(size=n),
            "b": y + rng.normal(size=n) * np.where(region == "north", 0.2, 1.4),
            "region": region,
        }
    )
    evaluation = evaluate_models(
        "y", ["a", "b"], data=data, by="region", n_bootstrap=30, random_state=2, curves=False
    )
    path = write_html(
        tmp_path_factory.mktemp("segments") / "report.html", evaluation, title="Segments"
    )
    return path, evaluation


@pytest.mark.parametrize(
    ("which", "width"),
    [
        ("report", 1400),
        ("report", 760),
        ("binary_report", 1400),
        ("binary_report", 760),
        ("segment_report", 1400),
    ],
)
def test_every_chart_is_drawn_with_no_console_message(tmp_path, request, devtools, which, width):
    path, _ = request.getfixturevalue(which)
    browser = devtools(width)
    browser.open(path.as_uri())
    assert browser.evaluate(_CHARTS_SETTLED) is True
    charts = browser.evaluate(_CHART_STATE)
    assert len(charts) >= (3 if which == "segment_report" else 8)
    for chart in charts:
        assert chart["drawn"] == "true" and chart["drawing"] and chart["marks"] > 0, chart
    assert browser.console() == []
    # nothing is wider than the page at either width (the charts take their figure's width)
    overflow = browser.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    png = tmp_path / f"{which}-{width}.png"
    png.write_bytes(base64.b64decode(shot["data"]))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000


_MARK_CENTRE = """
(() => {
  const mark = document.querySelector("#%s .mark-symbol path");
  mark.scrollIntoView({block: "center"});
  const box = mark.getBoundingClientRect();
  return [box.x + box.width / 2, box.y + box.height / 2];
})()
"""


def test_hovering_a_curve_shows_its_values(report, devtools):
    path, evaluation = report
    browser = devtools(1400)
    browser.open(path.as_uri())
    assert browser.evaluate(_CHARTS_SETTLED) is True
    chart = browser.evaluate(
        "document.querySelector('figure.chart .vl-chart[data-title=\"ROC curve\"]').id"
    )
    assert browser.evaluate("document.querySelector('#vg-tooltip-element.visible')") is None
    x, y = browser.evaluate(_MARK_CENTRE % chart)
    browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
    tooltip = None
    for _ in range(50):
        tooltip = browser.evaluate(
            "(document.querySelector('#vg-tooltip-element.visible') || {}).innerText || null"
        )
        if tooltip:
            break
        time.sleep(0.1)
    assert tooltip, "no tooltip after hovering a point of the ROC curve"
    assert "false positive rate" in tooltip and "true positive rate" in tooltip
    assert any(model in tooltip for model in evaluation.model_names)
    assert "AUC" in tooltip and not re.search(r"\de[+-]\d", tooltip)
    assert browser.console() == []


_TABLE = """
(() => {
  const table = document.querySelector("section.section-ranking table");
  const column = %d;
  const read = () => Array.from(table.tBodies[0].rows).map(r => r.cells[column].textContent.trim());
  const before = read();
  const button = table.tHead.rows[0].cells[column].querySelector("button.sort");
  button.focus();
  button.click();
  const ascending = read();
  const sortState = table.tHead.rows[0].cells[column].getAttribute("aria-sort");
  button.click();
  const descending = read();
  return {before, ascending, descending, sortState, focused: document.activeElement === button};
})()
"""


def test_tables_sort_by_a_click_on_a_header(report, devtools):
    path, _ = report
    browser = devtools(1400)
    browser.open(path.as_uri())
    # the ranking measures, models as columns: sort by the first model's values
    result = browser.evaluate(_TABLE % 1)
    assert result["focused"] and result["sortState"] == "ascending"
    assert sorted(result["before"]) == sorted(result["ascending"])
    assert result["before"] != result["ascending"] or result["before"] == sorted(result["before"])

    def first_number(text: str) -> float:
        match = re.search(r"[-−]?[\d,]*\.?\d+", text)
        return float(match.group(0).replace(",", "").replace("−", "-")) if match else float("inf")

    numbers = [first_number(t) for t in result["ascending"]]
    finite = [v for v in numbers if v != float("inf")]
    assert finite == sorted(finite) and numbers[: len(finite)] == finite  # missing last
    numbers = [first_number(t) for t in result["descending"]]
    finite = [v for v in numbers if v != float("inf")]
    assert finite == sorted(finite, reverse=True)
    assert browser.console() == []
