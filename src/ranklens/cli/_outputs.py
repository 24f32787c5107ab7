"""What the commands show and write: progress, the summary table, the HTML report and the JSON
document, written atomically (a rendering error or a signal leaves every previous file as it
was and no temporary file behind)."""

from __future__ import annotations

import contextlib
import os
import pathlib
import re
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

import typer

from ranklens.cli._errors import EXIT_FAILED, fail, first_line

#: ``--json -`` writes the JSON document to stdout.
STDOUT = "-"

#: ``"stage (k/N): detail"``: a progress message that counts its steps.
_COUNTED = re.compile(r"^(?P<stage>[^(]*?)\s*\((?P<done>\d+)/(?P<total>\d+)\)")


class _ProgressLines:
    """What the commands ask of a rich ``Progress``, as a line every few seconds on stderr.

    For logs (CI, pipelines): a spinner redrawn in place shows nothing useful there. A message
    that counts its steps (``"measures (12/75): gbm: mean_absolute_error"``) gives the percentage
    and the time left of its stage.
    """

    def __init__(self, label: str, quiet: bool) -> None:
        from ranklens._foundation.progress import LineProgress

        self._lines = LineProgress(label)
        self._quiet = quiet

    def __enter__(self) -> _ProgressLines:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def add_task(self, description: str, total: float | None = None) -> int:
        self.update(0, description=description)
        return 0

    def update(self, task: int, description: str) -> None:
        if self._quiet:
            return
        counted = _COUNTED.match(description)
        if counted is None:
            self._lines.update(description)
        else:
            done, total = int(counted["done"]), int(counted["total"])
            self._lines.update(counted["stage"], done, total)


def progress_context(console: Any, label: str = "ranklens") -> Any:
    """A transient spinner on a terminal; progress lines elsewhere (see :class:`_ProgressLines`)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    if not (console.is_terminal or console.is_jupyter):
        return _ProgressLines(label, quiet=console.quiet)
    return Progress(
        SpinnerColumn(),
        # Descriptions hold model (column) names: shown verbatim, never parsed as markup.
        TextColumn("{task.description}", markup=False),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


def show(
    console: Any, evaluation: Any, *, verbose: bool = False, outputs: tuple[str, ...] = ()
) -> None:
    """The short summary (:func:`ranklens.report.terminal.short_summary`: the pick, the
    headline measures, one line on what could not be computed and where ``outputs`` list it),
    or with ``verbose`` every measure's table and why values are missing or qualified; then
    the lines of the time budget, the segments and the windows."""
    from ranklens.report.terminal import problems_table, short_summary, summary_table

    if verbose:
        console.print(summary_table(evaluation))
        problems = problems_table(evaluation)
        if problems is not None:
            console.print(problems)
    else:
        for line in short_summary(evaluation, outputs=outputs):
            say(console, line)
    for line in budget_lines(evaluation):
        say(console, line)
    for line in segment_lines(evaluation):
        say(console, line)
    for line in window_lines(evaluation):
        say(console, line)


def segment_lines(evaluation: Any) -> list[str]:
    """The evaluation by segment's sentence and the segment scan's (one line each; none
    without ``--by`` or ``--scan``), as :meth:`ranklens.segments.SegmentEvaluation.summary`
    and :meth:`ranklens.segments.SegmentScan.summary` say them."""
    lines = []
    segments = getattr(evaluation, "segments", None)
    scan = getattr(evaluation, "segment_scan", None)
    if segments is not None:
        lines.append(f"By segment: {segments.summary()}")
    if scan is not None:
        lines.append(f"Segment scan: {scan.summary()}")
    shown = segments if segments is not None else getattr(scan, "evaluation", None)
    if shown is not None and shown.n_bootstrap == 0:
        lines.append(
            "Segments: no bootstrap replicates (--bootstrap 0): each segment has its values "
            "and counts, no interval and no verdict."
        )
    return lines


def window_lines(evaluation: Any) -> list[str]:
    """The Summary's sentence on the time windows (one line; none without ``--window``), as
    the report says it (:func:`ranklens.report.window_views.window_sentence`)."""
    if getattr(evaluation, "windows", None) is None:
        return []
    from ranklens.report.window_views import window_sentence

    sentence = window_sentence(evaluation)
    return [f"Over time: {sentence}"] if sentence else []


def budget_lines(evaluation: Any) -> list[str]:
    """What the bootstrap's time budget reduced or skipped, and the time it took (one line each).

    The same entries as the report's settings and the JSON's ``settings``.
    """
    return [
        f"{key}: {value}"
        for key, value in evaluation.settings.items()
        if "(time budget)" in key or key.endswith(" bands") or key == "bootstrap time"
    ]


def say(console: Any, text: str) -> None:
    """A status line with user text (paths) shown verbatim and never wrapped inside a path."""
    from ranklens.report.terminal import plain

    console.print(plain(text), soft_wrap=True)


def failure_lines(evaluations: Any) -> list[str]:
    """One ``error: <measure> failed for <model>: <message>`` line per failure."""
    from ranklens.evaluation import ALL_MODELS

    lines = []
    for evaluation in evaluations:
        for who, what, problem in evaluation.failures:
            model = "all models" if who == ALL_MODELS else who
            lines.append(f"error: {what} failed for {model}: {problem.first_line}")
    return lines


def _json_text(evaluation: Any, include_replicates: bool = False) -> str:
    import json

    from ranklens.report import evaluation_to_json

    doc = evaluation_to_json(evaluation, include_replicates=include_replicates)
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def render(what: str, func: Any, *args: Any, **kwargs: Any) -> str:
    """Render one output; a failure is exit 1 and nothing has been written yet."""
    try:
        return func(*args, **kwargs)
    except Exception as exc:  # any rendering error: report it, keep the previous files
        fail(f"could not render the {what}: {type(exc).__name__}: {first_line(exc)}", 1)


def write(outputs: dict[pathlib.Path, str]) -> list[pathlib.Path]:
    """Write the outputs atomically (:func:`ranklens.report.render.write_texts_atomic`), and
    leave no temporary file behind whatever stops the write.

    The writer stages each text in ``.NAME.XXXXXXXX.tmp`` beside its target and removes what it
    staged when it is interrupted by an exception. SIGTERM would kill the process without one,
    so for the duration of the write it raises ``SystemExit(143)`` (128 + 15, the shell's
    status for a process ended by SIGTERM); and a Ctrl-C that lands inside ``mkstemp``, after
    the file exists but before the writer knows its name, is covered by removing every
    temporary of a target that was not there before the write.
    """
    from ranklens.report.render import write_texts_atomic

    before = {path: _temporaries(path) for path in outputs}
    try:
        with _sigterm_raises():
            return write_texts_atomic(outputs)
    except OSError as exc:
        _remove_new_temporaries(before)
        fail(f"could not write {', '.join(map(str, outputs))}: {first_line(exc)}", 1)
    except BaseException:
        _remove_new_temporaries(before)
        raise


def _temporaries(path: pathlib.Path) -> set[str]:
    """The names of the write's temporary files of ``path`` now in its directory."""
    prefix = f".{path.name}."
    try:
        names = os.listdir(path.parent)
    except OSError:
        return set()
    return {n for n in names if n.startswith(prefix) and n.endswith(".tmp")}


def _remove_new_temporaries(before: dict[pathlib.Path, set[str]]) -> None:
    """Remove the temporaries of each target that were not there before the write."""
    for path, old in before.items():
        for name in _temporaries(path) - old:
            # moved into place, or removed by the writer itself, in the meantime
            with contextlib.suppress(FileNotFoundError):
                (path.parent / name).unlink()


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While active (in the main thread), SIGTERM raises ``SystemExit(143)``; the previous
    handler is restored on exit."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_exit(signum: int, frame: Any) -> NoReturn:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, raise_exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def write_evaluation(
    evaluation: Any,
    *,
    file: pathlib.Path,
    json_path: pathlib.Path | None,
    html: pathlib.Path | None,
    include_replicates: bool,
    console: Any,
    table_console: Any,
    verbose: bool = False,
) -> None:
    """Show the evaluation, write its JSON document and HTML report, then exit 1 if a measure,
    curve or figure failed (one ``error:`` line each).

    Everything is rendered before anything is written: a rendering error leaves every previous
    file as it was, and a new JSON never sits beside an old HTML report. ``--json -`` writes
    the document to stdout, the table then going to stderr (``table_console``).
    """
    to_stdout = json_path is not None and str(json_path) == STDOUT
    listed = tuple(str(path) for path in (None if to_stdout else json_path, html) if path)
    listed = ("the JSON on stdout", *listed) if to_stdout else listed
    show(table_console, evaluation, verbose=verbose, outputs=listed)
    if evaluation.n_dropped:
        console.print(f"dropped {evaluation.n_dropped} row(s) with missing values")

    outputs: dict[pathlib.Path, str] = {}
    figure_errors: list[str] = []
    json_text = (
        render("JSON results", _json_text, evaluation, include_replicates)
        if json_path is not None
        else ""
    )
    if json_path is not None and not to_stdout:
        outputs[json_path] = json_text
    if html is not None:
        from ranklens.report import render as report

        outputs[html] = render(
            "HTML report",
            report.render_html,
            evaluation,
            title=evaluation.title,
            subtitle=f"{file.name}: {', '.join(evaluation.model_names)}",
            figure_errors=figure_errors,
        )
    written = dict(zip(outputs, write(outputs), strict=True)) if outputs else {}
    if to_stdout:
        sys.stdout.write(json_text)
        sys.stdout.flush()
    elif json_path is not None:
        say(console, f"results: {written[json_path]}")
    if html is not None:
        say(console, f"report: {written[html]}")

    failures = failure_lines([evaluation]) + [f"error: {e}" for e in figure_errors]
    for line in failures:
        typer.echo(line, err=True)
    if failures:
        raise typer.Exit(EXIT_FAILED)
