"""``ranklens demo`` and ``ranklens warmup`` (registered on the app in
:mod:`ranklens.cli`)."""

from __future__ import annotations

import pathlib
from typing import Annotated

import typer

from ranklens.cli._errors import EXIT_FAILED, InputError, fail
from ranklens.cli._options import check_bootstrap, check_output
from ranklens.cli._outputs import failure_lines, progress_context, render, say, show, write


def demo(
    out: Annotated[
        pathlib.Path, typer.Option("--out", "-o", help="Where to write the HTML report.")
    ] = pathlib.Path("ranklens-demo-report.html"),
    bootstrap: Annotated[
        int, typer.Option(help="Paired bootstrap replicates (0: no intervals, else >= 2).")
    ] = 500,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Every measure's table and why each value is missing, instead of the short "
            "summary.",
        ),
    ] = False,
) -> None:
    """Fit scikit-learn models on bundled real data, print the evaluation, write the report.

    Exit status 1 when any measure, curve or the report failed (one error line each).
    """
    import time

    from rich.console import Console

    from ranklens import _demo
    from ranklens._foundation.extras import MissingExtraError, require

    try:
        require("demo", "the demo")
    except MissingExtraError as exc:
        fail(str(exc), EXIT_FAILED)
    try:
        check_bootstrap(bootstrap)
        check_output(out, "--out", stdout_ok=False)
    except InputError as exc:
        fail(str(exc))
    console = Console()
    start = time.perf_counter()
    with progress_context(Console(stderr=True), "ranklens demo") as bar:
        task = bar.add_task("fitting models", total=None)
        evaluations = _demo.run_demo(
            n_bootstrap=bootstrap,
            progress=lambda message: bar.update(task, description=message),
        )
        bar.update(task, description="writing the report")
        from ranklens.report import render as report

        figure_errors: list[str] = []
        text = render(
            "HTML report",
            report.render_html,
            evaluations,
            title="ranklens demo",
            subtitle="Ranking, targeting, rare extremes and uncertainty on two real data sets",
            figure_errors=figure_errors,
        )
        (path,) = write({out: text})
    for evaluation in evaluations:
        show(console, evaluation, verbose=verbose, outputs=(str(path),))
    say(console, f"Done in {time.perf_counter() - start:.0f} s.")
    say(console, f"Report: {path}")
    failures = failure_lines(evaluations) + [f"error: {e}" for e in figure_errors]
    for line in failures:
        typer.echo(line, err=True)
    if failures:
        raise typer.Exit(EXIT_FAILED)


def warmup() -> None:
    """Compile every numba kernel now, once per install, so that later runs start fast.

    The compiled code is cached on disk (the folder is printed; see docs/install.md). Without
    this, each kernel compiles on its first use instead.
    """
    from rich.console import Console

    from ranklens._warmup import warmup as compile_all

    console = Console(stderr=True)
    title = "compiling kernels, once per install"
    if console.is_terminal or console.is_jupyter:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        bar = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        with bar:
            task = bar.add_task(title, total=1)

            def progress(done: int, total: int, step: str) -> None:
                bar.update(task, completed=done, total=total, description=f"{title}: {step}")

            report = compile_all(progress)
    else:
        from ranklens._foundation.progress import LineProgress

        lines = LineProgress("ranklens warmup")

        def progress(done: int, total: int, step: str) -> None:
            # Each step takes seconds when cold: say what runs, then at most every few seconds.
            lines.update(f"{title}: {step}", done, total, force=done == 0)

        report = compile_all(progress)
    say(
        console,
        f"{report.n_ready} kernels ready in {report.total_seconds:.0f} s; "
        f"cache: {report.cache_dir}",
    )
