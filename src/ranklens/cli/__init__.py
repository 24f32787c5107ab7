"""The ``ranklens`` command line: a thin typer layer over the library (no work at import time).

``ranklens evaluate FILE --target COL --pred COL ...`` evaluates predictions stored in a CSV or
Parquet file with every registered measure and writes an HTML report and/or a JSON file;
``ranklens demo`` runs the bundled case studies; ``ranklens warmup`` compiles every numba kernel
ahead of use (once per install).

The console script enters through :mod:`ranklens.__main__`, which checks for typer, rich and jinja2
(the ``cli`` extra) before this package imports them.

This module holds the typer app and the options of each command; the work is done in its
private modules, one concern each: :mod:`~ranklens.cli._options` (the options checked before
any data is read), :mod:`~ranklens.cli._inputs` (the input parsed and checked alike for both
engines), :mod:`~ranklens.cli._table` and :mod:`~ranklens.cli._dask_inputs` (the data read in
memory and on Dask), :mod:`~ranklens.cli._run` and :mod:`~ranklens.cli._dask` (the evaluation,
through :func:`ranklens.evaluate_models` on either engine), :mod:`~ranklens.cli._outputs` (the
table, the report and the JSON document, written atomically) and
:mod:`~ranklens.cli._commands` (``demo`` and ``warmup``).

Exit status:

* **2**, bad input: every option and the data are checked with the library's own parsers before
  any work starts (a missing file, an unknown, duplicated or non-numeric column, a cell that is
  not a number, missing values, crossed intervals, an option out of range). One line
  ``error: ...`` on stderr, never a traceback, and nothing is written.
* **1**, something failed: a measure, a curve or the comparison raised an error that is not a
  property of the data (``error: <measure> failed for <model>: <message>``, one line per
  failure), or an output could not be rendered or written. The outputs are still written when
  they can be, and show the failure.
* **0**: every measure is a value, or undefined for this data with the reason recorded.
"""

from __future__ import annotations

import pathlib
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from ranklens._foundation.names import did_you_mean
from ranklens.cli._commands import demo, warmup

# under the names they had when the command line was one module (tests read them)
from ranklens.cli._dask import DASK_LOG_ENV as _DASK_LOG_ENV  # noqa: F401
from ranklens.cli._dask import not_drawn as _dask_not_drawn  # noqa: F401
from ranklens.cli._errors import EXIT_BAD_INPUT, EXIT_FAILED, InputError
from ranklens.cli._inputs import (
    check_events,
    events_option,
    interval_columns,
    parse_cost_benefit,
    parse_relevance,
)
from ranklens.cli._options import MAX_BOOTSTRAP, Request, check_bootstrap, check_options
from ranklens.cli._outputs import STDOUT, budget_lines, failure_lines
from ranklens.cli._run import run_evaluate, with_interval_columns
from ranklens.cli._table import (
    check_intervals,
    drop_missing,
    exact_float_parsing,
    label_column,
    numeric_column,
    read_table,
)

__all__ = [
    "DASK_CONNECT_TIMEOUT_S",
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "MAX_BOOTSTRAP",
    "STDOUT",
    "InputError",
    "app",
    "budget_lines",
    "check_bootstrap",
    "check_events",
    "check_intervals",
    "check_options",
    "demo",
    "drop_missing",
    "evaluate",
    "events_option",
    "exact_float_parsing",
    "failure_lines",
    "interval_columns",
    "label_column",
    "main",
    "numeric_column",
    "parse_cost_benefit",
    "parse_relevance",
    "read_table",
    "warmup",
    "with_interval_columns",
]

#: Seconds ``--engine dask`` waits for ``--scheduler`` to answer before one ``error:`` line.
#: Read from this module at each run, so that it can be changed here.
DASK_CONNECT_TIMEOUT_S = 10


class _OneLineErrors(TyperGroup):
    """Usage errors (an unknown option, a value typer cannot convert) as one ``error:`` line.

    typer draws them as a multi-line panel; every other bad input of this command line is one
    line starting with ``error:``, and scripts match on that.
    """

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        if not standalone_mode:
            return super().main(*args, **kwargs)
        try:
            code = super().main(*args, **kwargs)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        except Exception as exc:
            if not (
                hasattr(exc, "format_message")
                and hasattr(exc, "exit_code")
                and isinstance(exc.exit_code, int)
            ):
                raise
            # With no arguments typer has already printed the help; the error carries it again.
            if type(exc).__name__ != "NoArgsIsHelpError":
                ctx = getattr(exc, "ctx", None)
                hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
                message = _unknown_option(exc) or " ".join(str(exc.format_message()).split())
                typer.echo(f"error: {message}{hint}", err=True)
            sys.exit(exc.exit_code)
        sys.exit(code if isinstance(code, int) else 0)


def _unknown_option(exc: Exception) -> str:
    """An unknown option's message with the closest option of its command (``No such option:
    --taget (did you mean --target?)``, as Python 3.14's argparse ``suggest_on_error``); empty
    for any other error. click lists every close option in alphabetical order instead (typer
    carries its own click, so the error is known by its class's name)."""
    ctx = getattr(exc, "ctx", None)
    given = getattr(exc, "option_name", None)
    if type(exc).__name__ != "NoSuchOption" or ctx is None or not isinstance(given, str):
        return ""
    options = [opt for param in ctx.command.params for opt in (*param.opts, *param.secondary_opts)]
    long = [opt for opt in options if opt.startswith("--")]
    return f"No such option: {given}{did_you_mean(given, long, quote=False)}"


app = typer.Typer(
    name="ranklens",
    help="Evaluate regression and scoring models: ranking, targeting, extremes, uncertainty.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_OneLineErrors,
)


def _print_version(value: bool) -> None:
    """``--version``: ``ranklens X.Y.Z`` on stdout, then exit 0."""
    if value:
        from ranklens._version import __version__

        typer.echo(f"ranklens {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, _VERSION_OPTION] = False,
) -> None:
    """ranklens: ranking-based evaluation of regression and scoring models."""


#: ``--version`` of ``ranklens`` and of ``ranklens evaluate``.
_VERSION_OPTION = typer.Option(
    "--version",
    help="Print the version (ranklens X.Y.Z) and exit.",
    callback=_print_version,
    is_eager=True,
)


@app.command()
def evaluate(
    file: Annotated[pathlib.Path, typer.Argument(help="CSV (.csv, .tsv) or Parquet file.")],
    target: Annotated[str, typer.Option("--target", "-t", help="Column with the truth.")],
    pred: Annotated[
        list[str],
        typer.Option("--pred", "-p", help="Prediction column (repeat for several models)."),
    ],
    interval: Annotated[
        list[str] | None,
        typer.Option(
            "--interval",
            help="A prediction interval as MODEL:LOWER:UPPER: the --pred column MODEL and its "
            "lower and upper bound columns (repeat for several models; --engine memory).",
        ),
    ] = None,
    lower: Annotated[
        list[str] | None,
        typer.Option(
            help="Lower bound column of the prediction interval of the one --pred (with "
            "several --pred, use --interval MODEL:LOWER:UPPER)."
        ),
    ] = None,
    upper: Annotated[
        list[str] | None, typer.Option(help="Upper bound column (with --lower).")
    ] = None,
    alpha: Annotated[
        float | None, typer.Option(help="Intervals are central (1 - alpha) intervals.")
    ] = None,
    relevance: Annotated[
        str | None,
        typer.Option(
            help="Relevance of extreme values: auto, both, high, low, "
            "pchip[:both|high|low], sigmoid:low=C,high=C[,k=K] or "
            "points:Y:PHI,Y:PHI,..."
        ),
    ] = None,
    event_threshold: Annotated[
        float | None,
        typer.Option(help="Relevance at or above which a value is an event, in (0, 1]."),
    ] = None,
    events: Annotated[
        str | None,
        typer.Option(
            help="Event definition for ROC, gain and lift with a continuous target: top:0.1 "
            "(the true top 10%), >=100, >100, or a number t (y >= t)."
        ),
    ] = None,
    budget: Annotated[float | None, typer.Option(help="Campaign budget (profit curve).")] = None,
    cost_per_target: Annotated[
        float | None, typer.Option(help="Cost of targeting one case (profit curve).")
    ] = None,
    value_margin: Annotated[
        float | None,
        typer.Option(
            help="Profit per unit of the target captured (profit curve: margin x "
            "value - cost per target). With --engine dask it needs --curve-arrays."
        ),
    ] = None,
    cost_benefit: Annotated[
        str | None,
        typer.Option(
            help="Profit curve for events: TP,FN,FP,TN payoffs, e.g. 4,0,-5,0. With --engine "
            "dask it needs --curve-arrays."
        ),
    ] = None,
    weight: Annotated[str | None, typer.Option(help="Column of non-negative case weights.")] = None,
    groups: Annotated[
        str | None,
        typer.Option(
            "--groups",
            help="Column of unit ids (customer, account, day; strings, integers or categories): "
            "the bootstrap resamples whole units, not rows (clustered bootstrap), and every "
            "interval and paired test then comes from it (DeLong's and Noether's analytic "
            "intervals assume independent rows). It does not split the evaluation by unit. "
            "Needs at least 10 units and the bootstrap: --bootstrap N >= 2 (with "
            "--engine dask, Poisson weights keyed by the unit).",
        ),
    ] = None,
    time: Annotated[
        str | None,
        typer.Option(
            "--time",
            help="Column of the rows' times (ISO 8601 dates or times, e.g. 2024-01-31 or "
            "2024-01-31T09:30:00+01:00, all with a UTC offset or none; or numbers): the rows are "
            "put in time order before anything else, and every interval and paired test comes "
            "from the stationary bootstrap of blocks of consecutive rows (mean block length "
            "chosen by Politis & White 2004; see --scheme, --block-length). A row without a "
            "time is refused, or dropped with --drop-na. Needs --bootstrap N >= 2; not with "
            "--groups. With --engine dask the rows must already be in time order in the files "
            "(checked, not sorted) and the blocks are fixed and non-overlapping (Carlstein "
            "1986), one Poisson weight each.",
        ),
    ] = None,
    scheme: Annotated[
        str | None,
        typer.Option(
            "--scheme",
            help="Block bootstrap for rows in time order: stationary (blocks of random length, "
            "Politis & Romano 1994; the default with --time) or circular (blocks of one "
            "length). Without --time the rows are taken in the file's order. DeLong's and "
            "Noether's analytic intervals assume independent rows and are not used with it. "
            "With --engine dask only blocks (fixed, non-overlapping blocks; its default with "
            "--time).",
            show_default=False,
        ),
    ] = None,
    block_length: Annotated[
        str | None,
        typer.Option(
            "--block-length",
            help="The (mean) block length of --time or --scheme: auto (default; Politis & "
            "White 2004) or a number of rows >= 1 (a whole number with --engine dask).",
            show_default=False,
        ),
    ] = None,
    window: Annotated[
        str | None,
        typer.Option(
            "--window",
            help="Evaluate over time windows: Y, Q, M, W or D (calendar years, quarters, months, "
            "weeks or days of --time) or a number of rows per window (the rows in time order, "
            "or in the file's order without --time). Every model on every window with its "
            "interval from a bootstrap of the window's rows, against the pick; how often the "
            "pick's lead is clear, not clear or reversed, and whether it trends. Needs two "
            "--pred columns or more. --min-segment-rows, "
            "--min-segment-events, --segment-fdr and --segment-fdr-level apply to the windows "
            "too.",
            show_default=False,
        ),
    ] = None,
    bootstrap: Annotated[
        int | None,
        typer.Option(
            help="Paired bootstrap replicates for intervals and tests (0: none, else >= 2; "
            "the analytic intervals and tests of --inference auto are there without any). "
            "Default 1000 with --engine memory; with --engine dask none unless given (each "
            "replicate costs a hash of every row in every pass; N gives the Poisson bootstrap).",
            show_default=False,
        ),
    ] = None,
    bootstrap_budget: Annotated[
        float | None,
        typer.Option(
            help="Time budget of the bootstrap in seconds (default 60), a bound on its wall time "
            "(compiling is not counted): fewer replicates, then fewer bands and measures, as "
            "needed; the report says what was cut. --engine memory only (refused with dask, "
            "which has no time budget).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Random seed of the bootstrap (>= 0; default 0). With --engine dask it needs "
            "--bootstrap N.",
            show_default=False,
        ),
    ] = None,
    inference: Annotated[
        str,
        typer.Option(
            help="Where intervals and paired tests come from: auto (analytic where a measure "
            "declares it: DeLong for AUC, Harrell's C and Somers' D, Noether's interval for "
            "Kendall's tau; the paired bootstrap for the rest) or bootstrap (throughout). The "
            "report and the JSON say which method gave each number. With --engine dask: auto "
            "gives DeLong's interval of the AUC and Noether's of tau without replicates, the "
            "Poisson bootstrap's percentile intervals for the rest with --bootstrap N; "
            "bootstrap needs --bootstrap N."
        ),
    ] = "auto",
    drop_na: Annotated[
        bool,
        typer.Option(
            "--drop-na",
            help="Drop rows with missing or infinite values in the used columns (and report "
            "how many; with --engine dask in one more read).",
        ),
    ] = False,
    html: Annotated[
        pathlib.Path | None, typer.Option("--html", help="Write the HTML report here.")
    ] = None,
    json_path: Annotated[
        pathlib.Path | None,
        typer.Option("--json", help="Write every measure as JSON here ('-': to stdout)."),
    ] = None,
    title: Annotated[str | None, typer.Option(help="Report title.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No table, no progress.")] = False,
    engine: Annotated[
        str,
        typer.Option(
            help="memory (the file in this process) or dask (FILE may be a Parquet glob or "
            "fsspec URL larger than memory; exact measures, see docs/scaling.md)."
        ),
    ] = "memory",
    scheduler: Annotated[
        str | None,
        typer.Option(help="With --engine dask: a Dask scheduler address (default: a local one)."),
    ] = None,
    curve_arrays: Annotated[
        bool,
        typer.Option(
            "--curve-arrays",
            help="With --engine dask: also build the curves as arrays (ROC, gain, lift, cutoff "
            "AUC, rank lift, ...; one point per distinct prediction, per row for the rank lift "
            "curve: the client must hold them). The memory engine always builds them.",
        ),
    ] = False,
    include_replicates: Annotated[
        bool,
        typer.Option(
            "--include-replicates",
            help="Add the bootstrap replicates of every measure to the JSON (large; with "
            "--engine dask it needs --bootstrap N).",
        ),
    ] = False,
    by: Annotated[
        list[str] | None,
        typer.Option(
            "--by",
            help="Evaluate by segment of this column (repeat for several slicings, each on its "
            "own): every model on every segment with its bootstrap interval, compared with the "
            "pick, the verdicts with the false discovery rate held at 5% (--segment-fdr-level). "
            "Numeric columns with many values are cut into quantile bins (on either engine, the "
            "same bins); missing labels form their own segment.",
        ),
    ] = None,
    scan: Annotated[
        list[str] | None,
        typer.Option(
            "--scan",
            help="Search these columns (COL[,COL...]) for weak segments: where another model "
            "beats the pick, or every model is worse than overall, with the search counted "
            "(either engine).",
        ),
    ] = None,
    segment_bins: Annotated[
        int | None,
        typer.Option(
            help="Quantile bins of a numeric --by or --scan column (>= 2; default 5).",
            show_default=False,
        ),
    ] = None,
    min_segment_rows: Annotated[
        int | None,
        typer.Option(
            help="Segments with fewer rows keep their values and counts but get no interval "
            "and no verdict (>= 1; default 30).",
            show_default=False,
        ),
    ] = None,
    min_segment_events: Annotated[
        int | None,
        typer.Option(
            help="The same for the measures that count events: a segment with fewer events or "
            "non-events gets no interval and no verdict for them (>= 1; default 10).",
            show_default=False,
        ),
    ] = None,
    segment_fdr: Annotated[
        str | None,
        typer.Option(
            help="How the segments' verdicts control the false discovery rate: bh (Benjamini "
            "and Hochberg 1995; the default) or by (Benjamini and Yekutieli 2001: any "
            "dependence between the tests, more conservative).",
            show_default=False,
        ),
    ] = None,
    segment_fdr_level: Annotated[
        float | None,
        typer.Option(
            help="The false discovery rate the segments' verdicts control (in (0, 1); "
            "default 0.05).",
            show_default=False,
        ),
    ] = None,
    cross_segments: Annotated[
        bool,
        typer.Option(
            "--cross-segments",
            help="With several --by columns, also evaluate every combination of their labels "
            "(one slicing more).",
        ),
    ] = False,
    sep: Annotated[
        str | None,
        typer.Option(
            "--sep",
            help="The field separator of a text FILE: one character, e.g. ';' (written \\t for "
            "a tab). Default: a comma, a tab for .tsv and .tab files.",
            show_default=False,
        ),
    ] = None,
    metrics: Annotated[
        list[str] | None,
        typer.Option(
            "--metrics",
            help="Only these measures, NAME[,NAME...] (repeatable; registry names such as "
            "kendall_tau, roc_auc, mean_absolute_error), and only the report's sections that "
            "hold one of them.",
            show_default=False,
        ),
    ] = None,
    goal: Annotated[
        str | None,
        typer.Option(
            "--goal",
            help="What the models are for: ranking, targeting, probabilities, extremes, intervals "
            "or errors "
            "(the recommendation speaks to it; with --metrics, one of its measures must be "
            "chosen).",
            show_default=False,
        ),
    ] = None,
    currency: Annotated[
        str | None,
        typer.Option(
            "--currency",
            help="The money unit of --budget, --cost-per-target, --value-margin and "
            "--cost-benefit in the report: a symbol or code of up to 5 characters ($, €, EUR).",
            show_default=False,
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Every measure's table and why each value is missing, instead of the short "
            "summary (the pick, the headline measures, one line on what is missing).",
        ),
    ] = False,
    version: Annotated[bool, _VERSION_OPTION] = False,
    positive_label: Annotated[
        str | None,
        typer.Option(
            "--positive-label",
            help="The label of an event in a --target of two labels (e.g. yes, or 1): it "
            "becomes 1, the other 0, and the target is evaluated as events.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Evaluate prediction columns of FILE against --target with every registered measure.

    Exit status 0: done; 1: a measure, curve or output failed (one error line each); 2: bad
    input (one error line, nothing computed).

    Example: ranklens evaluate scores.csv --target spend --pred gbm --pred linear
    --by region --html report.html --json results.json (rows in time order: add --time date,
    and --window M for the evaluation month by month)
    """
    run_evaluate(
        Request(
            file=file,
            target=target,
            preds=list(pred),
            interval_specs=list(interval or []),
            lowers=list(lower or []),
            uppers=list(upper or []),
            alpha=alpha,
            relevance=relevance,
            event_threshold=event_threshold,
            events=events,
            budget=budget,
            cost_per_target=cost_per_target,
            value_margin=value_margin,
            cost_benefit=cost_benefit,
            weight=weight,
            groups=groups,
            time=time,
            scheme=scheme,
            block_length=block_length,
            window=window,
            bootstrap=bootstrap,
            bootstrap_budget=bootstrap_budget,
            seed=seed,
            inference=inference,
            drop_na=drop_na,
            html=html,
            json_path=json_path,
            title=title,
            quiet=quiet,
            engine=engine,
            scheduler=scheduler,
            curve_arrays=curve_arrays,
            include_replicates=include_replicates,
            connect_timeout_s=DASK_CONNECT_TIMEOUT_S,
            by=list(by or []),
            scan=list(scan or []),
            segment_bins=segment_bins,
            min_segment_rows=min_segment_rows,
            min_segment_events=min_segment_events,
            segment_fdr=segment_fdr,
            segment_fdr_level=segment_fdr_level,
            cross_segments=cross_segments,
            sep=sep,
            metrics=list(metrics or []),
            goal=goal,
            currency=currency,
            verbose=verbose,
            positive_label=positive_label,
        )
    )


# The commands in the order ``ranklens --help`` lists them.
app.command()(demo)
app.command()(warmup)


def main() -> None:
    """Run the command line (the console script enters through :mod:`ranklens.__main__`)."""
    app()
