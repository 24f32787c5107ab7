"""The ``ranklens`` command line: a thin typer layer over the library (no work at import time)."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="ranklens",
    help="Evaluate regression and scoring models: ranking, targeting, extremes, uncertainty.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """ranklens: ranking-based evaluation of regression and scoring models."""


@app.command()
def demo() -> None:
    """Fit several scikit-learn models on bundled real data and print their evaluation."""
    from rich.console import Console

    from ranklens._demo import render_demo

    render_demo(Console())


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
