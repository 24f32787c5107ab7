"""The ``ranklens`` command line: a thin typer layer over the library (no work at import time).

``ranklens evaluate FILE --target COL --pred COL ...`` evaluates predictions stored in a CSV or
Parquet file with every registered measure and writes an HTML report and/or a JSON file;
``ranklens demo`` runs the bundled case studies; ``ranklens warmup`` compiles every numba kernel
ahead of use (once per install).

The console script enters through :mod:`ranklens.__main__`, which checks for typer, rich and jinja2
(the ``cli`` extra) before this module imports them.

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

import contextlib
import os
import pathlib
import re
import sys
from collections.abc import Iterator
from typing import Annotated, Any, NoReturn, cast

import typer
from typer.core import TyperGroup

#: Exit status when a measure, curve, comparison or output failed.
EXIT_FAILED = 1

#: Exit status for bad input (like a usage error).
EXIT_BAD_INPUT = 2

#: More bootstrap replicates than this are refused: the intervals stop changing long before, and
#: the run would take days.
MAX_BOOTSTRAP = 1_000_000

#: ``--json -`` writes the JSON document to stdout.
STDOUT = "-"


class InputError(Exception):
    """Bad input from the command line; its message is printed as one line."""


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
                message = " ".join(str(exc.format_message()).split())
                typer.echo(f"error: {message}{hint}", err=True)
            sys.exit(exc.exit_code)
        sys.exit(code if isinstance(code, int) else 0)


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
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version (ranklens X.Y.Z) and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """ranklens: ranking-based evaluation of regression and scoring models."""


# --------------------------------------------------------------------------------------------
# Reading and checking the data


def read_table(path: pathlib.Path) -> Any:
    """Read a CSV (``.csv``, ``.tsv``, ``.txt``, optionally compressed) or Parquet file.

    Column names are the file's own: pandas renames a repeated CSV header ``a`` to ``a.1``
    silently, so the header is read again and the repeats restored, to be refused by name
    (:func:`numeric_column`) rather than evaluated under a name the file does not have. A file
    with a header and no data rows is refused.
    """
    import pandas as pd

    if not path.exists():
        raise InputError(f"file not found: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a data file")
    suffixes = [s.lower() for s in path.suffixes]
    compressed = {".gz", ".bz2", ".xz", ".zip", ".zst"}
    kind = (
        suffixes[-2]
        if len(suffixes) >= 2 and suffixes[-1] in compressed
        else (suffixes[-1] if suffixes else "")
    )
    if kind in (".parquet", ".pq"):
        _require_parquet()
    try:
        if kind in (".parquet", ".pq"):
            frame = pd.read_parquet(path)
        elif kind in (".csv", ".txt", ".tsv", ".tab"):
            sep = "\t" if kind in (".tsv", ".tab") else ","
            frame = pd.read_csv(path, sep=sep, **exact_float_parsing())
            frame.columns = _csv_header(path, sep, list(frame.columns))
        else:
            raise InputError(
                f"unsupported file type {path.suffix or '(none)'!r} for {path}; "
                "use .csv, .tsv or .parquet"
            )
    except InputError:
        raise
    except Exception as exc:  # pandas / pyarrow raise many types for unreadable files
        raise InputError(f"could not read {path}: {_first_line(exc)}") from None
    if frame.shape[0] == 0:
        raise InputError(f"{path.name} has no data rows (only a header); nothing to evaluate")
    return frame


def exact_float_parsing() -> dict[str, str]:
    """The ``pandas.read_csv`` option that parses every decimal number to the nearest float64.

    pandas 3 does by default; pandas 2's default parser can land one unit in the last place
    away (about one number in a few hundred), so the same file would give numbers that differ
    in their last digits between pandas releases. ``float_precision="round_trip"`` is exact
    there (and deprecated in pandas 3, whose default is).
    """
    import pandas as pd

    major = int(pd.__version__.split(".", 1)[0])
    return {"float_precision": "round_trip"} if major < 3 else {}


def _require_parquet() -> None:
    """Parquet needs pyarrow (the ``parquet`` extra); pandas can also use fastparquet."""
    from ranklens._extras import MissingExtraError, require

    try:
        require("parquet", "reading Parquet files")
    except MissingExtraError as exc:
        try:
            require("parquet", "reading Parquet files", modules=("fastparquet",))
        except MissingExtraError:
            raise InputError(str(exc)) from None


def _csv_header(path: pathlib.Path, sep: str, parsed: list[Any]) -> list[Any]:
    """The header as written in the file, where pandas renamed a repeated name (``a.1``)."""
    import pandas as pd

    row = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
    raw = row.iloc[0].tolist() if row.shape[0] else []
    if len(raw) != len(parsed):
        return parsed  # an index column or a ragged header: keep what pandas made of it
    # An empty header cell keeps pandas' "Unnamed: k"; every other name is the file's.
    return [
        name if name != "" else parsed_name for name, parsed_name in zip(raw, parsed, strict=True)
    ]


def _first_line(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:  # an exception whose own message fails: its type still says something
        message = ""
    text = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return text[0] if text else type(exc).__name__


def _list_columns(frame: Any, limit: int = 12) -> str:
    names = [str(c) for c in frame.columns]
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} columns)" if len(names) > limit else "")


def _shown(value: Any, limit: int = 40) -> str:
    text = str(value)
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def numeric_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """The column as a float64 NumPy array, or an :class:`InputError` naming what is wrong.

    Booleans count as 0/1 and missing cells become NaN (see :func:`drop_missing`); a cell that
    is not a number is named by column, 1-based data row and value.
    """
    import numpy as np
    import pandas as pd

    if column not in frame.columns:
        raise InputError(
            f"column {column!r} not found in {path.name}; columns: {_list_columns(frame)}"
        )
    series = frame[column]
    if isinstance(series, pd.DataFrame):
        positions = [k + 1 for k, name in enumerate(frame.columns) if name == column]
        raise InputError(
            f"column name {column!r} appears {len(positions)} times in {path.name} (columns "
            f"{', '.join(map(str, positions))}); rename the copies so that each name is one column"
        )
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        series = series.astype(dtype.categories.dtype)
        dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
    ):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not (pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype)):
        raise InputError(f"column {column!r} is not numeric (dtype {dtype})")
    numbers = pd.to_numeric(series, errors="coerce")
    bad = (numbers.isna() & series.notna()).to_numpy()
    if bad.any():
        row = int(bad.argmax())
        raise InputError(
            f"column {column!r} row {row + 1}: {_shown(series.iloc[row])} is not a number"
        )
    return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def label_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """The ``--groups`` column as a pandas Series of unit ids, named ``column``, as read.

    Any dtype is a label (strings, integers, a categorical written by pandas): only a missing
    cell is a problem, refused or dropped by :func:`drop_missing` as in the other columns.
    """
    import pandas as pd

    if column not in frame.columns:
        raise InputError(
            f"--groups column {column!r} not found in {path.name}; columns: {_list_columns(frame)}"
        )
    series = frame[column]
    if isinstance(series, pd.DataFrame):
        positions = [k + 1 for k, name in enumerate(frame.columns) if name == column]
        raise InputError(
            f"column name {column!r} appears {len(positions)} times in {path.name} (columns "
            f"{', '.join(map(str, positions))}); rename the copies so that each name is one column"
        )
    return series.rename(column)


#: ``--groups`` without a bootstrap would change nothing: refused with this message.
_NO_BOOTSTRAP_FOR_GROUPS = (
    "--groups {groups!r} names the units the clustered bootstrap resamples; with {option} "
    "nothing is resampled (give --bootstrap N >= 2, or leave --groups out)"
)


def _check_groups_name(
    groups: str | None, used: dict[str, None], target: str, weight: str | None
) -> None:
    """``--groups`` must be a column of its own: unit ids, not a measured column."""
    if groups is None:
        return
    if groups in used:
        role = "--pred/--lower/--upper"
        if groups in (target, weight):
            role = "--target" if groups == target else "--weight"
        raise InputError(
            f"--groups {groups!r} is also the {role} column; name a column of unit ids "
            "(customer, account, day)"
        )


def _check_units(labels: Any, column: str) -> None:
    """At least :data:`ranklens._resampling.MIN_UNITS` units: with fewer, the clustered
    bootstrap's resamples repeat and its intervals come out too narrow (the reasons are at
    ``MIN_UNITS``). Units are counted as the bootstrap keys them (``3`` and ``3.0`` are one)."""
    import numpy as np

    from ranklens._resampling import group_keys

    _check_unit_count(int(np.unique(group_keys(labels)).shape[0]), column)


def _check_unit_count(n_units: int, column: str) -> None:
    """The rule of :func:`_check_units` on a count of units (both engines)."""
    from ranklens._resampling import MIN_UNITS, distinct_resamples

    if n_units < MIN_UNITS:
        few = (
            f" (with {n_units} there are only {distinct_resamples(n_units):,} distinct "
            "resamples, and the intervals come out too narrow)"
            if n_units >= 2
            else ""
        )
        raise InputError(
            f"--groups {column!r} holds {n_units} distinct unit(s); the clustered bootstrap "
            f"needs at least {MIN_UNITS}{few}. --groups resamples whole units; it does not "
            "split the evaluation by segment"
        )


def drop_missing(columns: dict[str, Any], *, drop: bool) -> tuple[dict[str, Any], int]:
    """Remove rows with a NaN or infinite value in any used column (or explain and stop)."""
    import numpy as np

    stacked = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns.values()])
    bad = ~np.isfinite(stacked).all(axis=1)
    n_bad = int(bad.sum())
    if n_bad == 0:
        return columns, 0
    if not drop:
        per_column = [
            f"{name} ({int((~np.isfinite(np.asarray(c, dtype=np.float64))).sum())})"
            for name, c in columns.items()
            if not np.isfinite(np.asarray(c, dtype=np.float64)).all()
        ]
        first = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{n_bad} row(s) have missing or infinite values (first at data row {first + 1}; "
            f"in {', '.join(per_column)}); pass --drop-na to drop them"
        )
    keep = ~bad
    if not keep.any():
        raise InputError("every row has a missing value; nothing is left to evaluate")
    return {name: np.asarray(c, dtype=np.float64)[keep] for name, c in columns.items()}, n_bad


def check_intervals(
    columns: dict[str, Any], pairs: list[tuple[str, str]], *, explicit: bool = False
) -> None:
    """Refuse crossed intervals (lower > upper), naming the columns and the first data row
    (as ``--interval``'s bounds when ``explicit``, else as ``--lower`` and ``--upper``)."""
    import numpy as np

    low, high = ("--interval lower", "upper") if explicit else ("--lower", "--upper")
    for lower, upper in pairs:
        crossed = np.asarray(columns[lower]) > np.asarray(columns[upper])  # NaN: not crossed
        if crossed.any():
            row = int(np.flatnonzero(crossed)[0])
            raise InputError(
                f"{low} {lower!r} is above {high} {upper!r} in {int(crossed.sum())} row(s) "
                f"(first at data row {row + 1}: {columns[lower][row]:.6g} > "
                f"{columns[upper][row]:.6g}); is the pair swapped?"
            )


def parse_relevance(spec: str | None, y: Any) -> Any:
    """The relevance function a ``--relevance`` option names (see ``ranklens evaluate --help``)."""
    if spec is None:
        return None
    from ranklens import relevance as rel

    text = spec.strip().lower()
    try:
        # The user's text goes to relevance_from_boxplot unchecked: it validates ``extremes``
        # itself and its error message is the one reported.
        if text in ("auto", "both", "high", "low"):
            return rel.relevance_from_boxplot(y, extremes=cast("rel.Extremes", text))
        if text.startswith("pchip"):
            extremes = text.partition(":")[2] or "auto"
            return rel.relevance_from_boxplot(
                y, extremes=cast("rel.Extremes", extremes), shape="pchip"
            )
        if text.startswith("sigmoid:"):
            params = dict(_key_value(item) for item in text[len("sigmoid:") :].split(","))
            return rel.SigmoidRelevance(
                low_center=params.get("low"),
                high_center=params.get("high"),
                k=params.get("k", 0.5),
                delta=params.get("delta", 1e-4),
            )
        if text.startswith("points:"):
            points = tuple(
                tuple(float(v) for v in item.split(":"))
                for item in text[len("points:") :].split(",")
                if item
            )
            return rel.ControlPointRelevance(points)
    except InputError:
        raise
    except (ValueError, TypeError) as exc:
        raise InputError(f"--relevance {spec!r}: {_first_line(exc)}") from None
    raise InputError(
        f"--relevance {spec!r} not understood; use auto, both, high, low, pchip[:both|high|low], "
        "sigmoid:low=C,high=C[,k=K] or points:Y:PHI,Y:PHI,..."
    )


def events_option(spec: str | None) -> str | float | None:
    """What ``--events`` hands the library: a bare number ``t`` is the threshold ``y >= t``.

    The library takes a number for ``y >= t`` and text for the other forms (``top:0.1``,
    ``>=100``, ``>100``, ``value``); the command line receives text, so a number is converted
    here. Whether the definition is valid is checked on the data by :func:`check_events`.
    """
    if spec is None:
        return None
    text = spec.strip()
    if not text:
        raise InputError("--events is empty; use e.g. top:0.1, >=100 or 500")
    try:
        return float(text)
    except ValueError:
        return text


def check_events(spec: str, events: str | float, y: Any, sample_weight: Any = None) -> None:
    """Apply the library's event definition to the target, so a bad ``--events`` stops the run.

    Without this, a definition such as ``top10`` makes every event-based measure and curve
    undefined one by one, after the whole evaluation has run; and one that does not split the
    target (``top:0.1`` of a 0/1 column marks every row an event) would give a lift of 1 and
    an undefined AUC with exit 0. The library's message is shown with its ``events=`` written
    as the option.
    """
    from ranklens.targeting import check_events as library_check

    try:
        library_check(y, events, sample_weight=sample_weight)
    except ValueError as exc:
        message = _first_line(exc)
        given = f"events={events!r} "
        if message.startswith(given):
            message = f"--events {spec!r} {message[len(given) :]}"
        else:
            message = f"--events {spec!r}: {message}"
        message = message.replace("leave events out", "leave --events out")
        raise InputError(re.sub(r"\bevents='", "--events '", message)) from None


def parse_cost_benefit(spec: str | None) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """``"TP,FN,FP,TN"`` as the 2x2 payoff matrix ``((TP, FN), (FP, TN))`` (finite numbers)."""
    if spec is None:
        return None
    from ranklens._ranked import check_cost_benefit

    try:
        values = [float(v) for v in spec.split(",")]
    except ValueError:
        values = []
    if len(values) != 4:
        raise InputError(
            f"--cost-benefit needs four numbers TP,FN,FP,TN (e.g. 4,0,-5,0); got {spec!r}"
        )
    matrix = (values[0], values[1]), (values[2], values[3])
    try:
        check_cost_benefit(matrix)
    except ValueError:
        raise InputError(
            f"--cost-benefit needs four finite numbers TP,FN,FP,TN; got {spec!r}"
        ) from None
    return matrix


def _key_value(item: str) -> tuple[str, float]:
    key, sep, value = item.partition("=")
    if not sep:
        raise InputError(f"expected key=value in --relevance, got {item!r}")
    try:
        return key.strip(), float(value)
    except ValueError:
        raise InputError(f"--relevance: {key.strip()}={value!r} is not a number") from None


#: The library's parameter names in its messages, as the options that set them.
_OPTION_NAMES = ("cost_benefit", "cost_per_target", "value_margin", "budget", "event_threshold")


def _as_options(message: str) -> str:
    """A library message with its parameter names written as the command line's options."""
    pattern = r"\b(" + "|".join(_OPTION_NAMES) + r")\b"
    return re.sub(pattern, lambda m: "--" + m.group(1).replace("_", "-"), message)


def _library_check(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Call one of the library's parsers; its ``ValueError`` becomes an :class:`InputError`."""
    try:
        return func(*args, **kwargs)
    except ValueError as exc:
        raise InputError(_first_line(exc)) from None


def _check_output(path: pathlib.Path | None, option: str, *, stdout_ok: bool) -> None:
    if path is None or (stdout_ok and str(path) == STDOUT):
        return
    if str(path) == STDOUT:
        raise InputError(f"{option} - (stdout) is not supported; give a file name")
    if path.is_dir():
        raise InputError(f"{option} {path} is a directory; give a file name")
    if not path.parent.is_dir():
        raise InputError(f"{option} {path}: directory {path.parent} does not exist")


def check_bootstrap(bootstrap: int) -> int:
    """``--bootstrap``: 0 (none) or 2 to :data:`MAX_BOOTSTRAP` replicates."""
    from ranklens._validation import check_positive_int

    if bootstrap == 0:
        return 0
    try:
        n = check_positive_int(bootstrap, "--bootstrap", minimum=2)
    except ValueError as exc:
        raise InputError(f"{_first_line(exc)} (or 0 for no bootstrap)") from None
    if n > MAX_BOOTSTRAP:
        raise InputError(
            f"--bootstrap {n:,} is more than {MAX_BOOTSTRAP:,} replicates; 1000 to 10000 give "
            "stable intervals"
        )
    return n


def _positive(value: float | None, option: str) -> float | None:
    """A positive finite number (the library's number parser, then > 0)."""
    if value is None:
        return None
    from ranklens._validation import check_finite_number

    number = _library_check(check_finite_number, value, option, minimum=0)
    if number == 0:
        raise InputError(f"{option} must be positive; got {value!r}")
    return number


def check_options(
    *,
    preds: list[str],
    lowers: list[str],
    uppers: list[str],
    alpha: float | None,
    event_threshold: float | None,
    budget: float | None,
    cost_per_target: float | None,
    value_margin: float | None,
    cost_benefit: str | None,
    bootstrap: int,
    bootstrap_budget: float,
    seed: int,
    json_path: pathlib.Path | None,
    html: pathlib.Path | None,
    interval_specs: list[str] | None = None,
) -> Any:
    """Every option that needs no data, checked with the library's parsers; the payoff matrix.

    Raises :class:`InputError` for the first problem found.
    """
    from ranklens._ranked import profit_spec
    from ranklens._validation import (
        check_event_threshold,
        check_finite_number,
        check_nonnegative_number,
        check_positive_int,
        check_probability,
    )

    if len(set(preds)) != len(preds):
        raise InputError(f"a --pred column is given twice: {preds}")
    intervals = interval_columns(preds, interval_specs or [], lowers, uppers)
    if intervals and alpha is None:
        raise InputError(
            "--alpha is required with prediction intervals (--interval or --lower/--upper; "
            "e.g. --alpha 0.1 for 90% intervals)"
        )
    if alpha is not None and not intervals:
        # alpha describes intervals only; alone it would change nothing.
        raise InputError(
            "--alpha describes prediction intervals: give --interval MODEL:LOWER:UPPER (or "
            "--lower and --upper with one --pred) too"
        )
    if alpha is not None:
        _library_check(check_probability, alpha, "--alpha")
    if event_threshold is not None:
        try:
            check_event_threshold(event_threshold)
        except ValueError as exc:
            raise InputError(_as_options(_first_line(exc))) from None
    check_bootstrap(bootstrap)
    _library_check(check_nonnegative_number, bootstrap_budget, "--bootstrap-budget")
    _library_check(check_positive_int, seed, "--seed", minimum=0)

    _positive(budget, "--budget")
    _positive(cost_per_target, "--cost-per-target")
    if value_margin is not None:
        _library_check(check_finite_number, value_margin, "--value-margin")
    if budget is not None and cost_per_target is None:
        raise InputError(
            "--budget and --cost-per-target go together (at most "
            "floor(budget / cost per target) cases can be targeted)"
        )
    if value_margin is not None and cost_per_target is None:
        raise InputError(
            "--value-margin needs --cost-per-target (profit = margin x value "
            "captured - cost per target x cases targeted)"
        )
    if value_margin is not None and cost_benefit is not None:
        raise InputError("give --value-margin or --cost-benefit, not both")
    payoffs = parse_cost_benefit(cost_benefit)
    if payoffs is None and value_margin is None and cost_per_target is not None:
        # Only the profit curve reads them: without a profit definition they would do nothing.
        raise InputError(
            "--budget and --cost-per-target shape the profit curve; add --value-margin M "
            "(profit on the target's value) or --cost-benefit TP,FN,FP,TN (profit on events)"
        )
    if payoffs is not None or value_margin is not None:
        # The profit curve's own rules (e.g. a payoff matrix already holds the cost of
        # targeting, so --cost-per-target only converts a --budget).
        try:
            profit_spec(payoffs, value_margin, cost_per_target, budget, None)
        except ValueError as exc:
            raise InputError(f"profit curve: {_as_options(_first_line(exc))}") from None

    _check_output(json_path, "--json", stdout_ok=True)
    _check_output(html, "--html", stdout_ok=False)
    if json_path is not None and html is not None and json_path.resolve() == html.resolve():
        raise InputError(f"--json and --html both name {html}")
    return payoffs


# --------------------------------------------------------------------------------------------
# Output


#: ``"stage (k/N): detail"``: a progress message that counts its steps.
_COUNTED = re.compile(r"^(?P<stage>[^(]*?)\s*\((?P<done>\d+)/(?P<total>\d+)\)")


class _ProgressLines:
    """What the commands ask of a rich ``Progress``, as a line every few seconds on stderr.

    For logs (CI, pipelines): a spinner redrawn in place shows nothing useful there. A message
    that counts its steps (``"measures (12/75): gbm: mean_absolute_error"``) gives the percentage
    and the time left of its stage.
    """

    def __init__(self, label: str, quiet: bool) -> None:
        from ranklens._progress import LineProgress

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


def _progress_context(console: Any, label: str = "ranklens") -> Any:
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


def _show(console: Any, evaluation: Any) -> None:
    """The summary table and, below it, why values are missing or qualified."""
    from ranklens.report.terminal import problems_table, summary_table

    console.print(summary_table(evaluation))
    problems = problems_table(evaluation)
    if problems is not None:
        console.print(problems)
    for line in budget_lines(evaluation):
        _say(console, line)


def budget_lines(evaluation: Any) -> list[str]:
    """What the bootstrap's time budget reduced or skipped, and the time it took (one line each).

    The same entries as the report's settings and the JSON's ``settings``.
    """
    return [
        f"{key}: {value}"
        for key, value in evaluation.settings.items()
        if "(time budget)" in key or key.endswith(" bands") or key == "bootstrap time"
    ]


def _say(console: Any, text: str) -> None:
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


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _json_text(evaluation: Any, include_replicates: bool = False) -> str:
    import json

    from ranklens.report import evaluation_to_json

    doc = evaluation_to_json(evaluation, include_replicates=include_replicates)
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def _render(what: str, func: Any, *args: Any, **kwargs: Any) -> str:
    """Render one output; a failure is exit 1 and nothing has been written yet."""
    try:
        return func(*args, **kwargs)
    except Exception as exc:  # any rendering error: report it, keep the previous files
        _fail(f"could not render the {what}: {type(exc).__name__}: {_first_line(exc)}", 1)


def _write(outputs: dict[pathlib.Path, str]) -> list[pathlib.Path]:
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
        _fail(f"could not write {', '.join(map(str, outputs))}: {_first_line(exc)}", 1)
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
) -> None:
    """Evaluate prediction columns of FILE against --target with every registered measure.

    Exit status 0: done; 1: a measure, curve or output failed (one error line each); 2: bad
    input (one error line, nothing computed).

    Example: ranklens evaluate scores.csv --target spend --pred gbm --pred linear
    --html report.html --json results.json
    """
    from rich.console import Console

    to_stdout = json_path is not None and str(json_path) == STDOUT
    console = Console(stderr=True, quiet=quiet)
    # With --json - stdout carries the JSON document and nothing else.
    table_console = Console(stderr=to_stdout, quiet=quiet)
    try:
        if engine not in ("memory", "dask"):
            raise InputError(f"--engine must be memory or dask; got {engine!r}")
        if curve_arrays and engine != "dask":
            raise InputError("--curve-arrays is for --engine dask (memory builds every curve)")
        _check_engine_options(
            engine=engine,
            scheduler=scheduler,
            include_replicates=include_replicates,
            json_path=json_path,
            bootstrap=bootstrap,
        )
        if engine == "dask":
            evaluation = _evaluate_dask(
                file,
                target,
                list(pred),
                weight,
                events,
                title,
                scheduler,
                console,
                lowers=list(lower or []),
                uppers=list(upper or []),
                interval_specs=list(interval or []),
                alpha=alpha,
                event_threshold=event_threshold,
                curve_arrays=curve_arrays,
                relevance=relevance,
                budget=budget,
                cost_per_target=cost_per_target,
                value_margin=value_margin,
                cost_benefit=cost_benefit,
                bootstrap=bootstrap,
                bootstrap_budget=bootstrap_budget,
                seed=seed,
                inference=inference,
                include_replicates=include_replicates,
                drop_na=drop_na,
                json_path=json_path,
                html=html,
                groups=groups,
            )
            pairs = interval_columns(
                list(pred), list(interval or []), list(lower or []), list(upper or [])
            )
            evaluation = with_interval_columns(evaluation, pairs)
        else:
            evaluation = _evaluate(
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
                bootstrap=1000 if bootstrap is None else bootstrap,
                bootstrap_budget=60.0 if bootstrap_budget is None else bootstrap_budget,
                seed=0 if seed is None else seed,
                inference=inference,
                drop_na=drop_na,
                title=title,
                json_path=json_path,
                html=html,
                console=console,
                quiet=quiet,
            )
    except InputError as exc:
        _fail(str(exc))

    _show(table_console, evaluation)
    if evaluation.n_dropped:
        console.print(f"dropped {evaluation.n_dropped} row(s) with missing values")

    # Render everything before writing anything: a rendering error leaves every previous file
    # as it was, and a new JSON never sits beside an old HTML report.
    outputs: dict[pathlib.Path, str] = {}
    figure_errors: list[str] = []
    json_text = (
        _render("JSON results", _json_text, evaluation, include_replicates)
        if json_path is not None
        else ""
    )
    if json_path is not None and not to_stdout:
        outputs[json_path] = json_text
    if html is not None:
        from ranklens.report import render

        outputs[html] = _render(
            "HTML report",
            render.render_html,
            evaluation,
            title=evaluation.title,
            subtitle=f"{file.name}: {', '.join(evaluation.model_names)}",
            figure_errors=figure_errors,
        )
    written = dict(zip(outputs, _write(outputs), strict=True)) if outputs else {}
    if to_stdout:
        sys.stdout.write(json_text)
        sys.stdout.flush()
    elif json_path is not None:
        _say(console, f"results: {written[json_path]}")
    if html is not None:
        _say(console, f"report: {written[html]}")

    failures = failure_lines([evaluation]) + [f"error: {e}" for e in figure_errors]
    for line in failures:
        typer.echo(line, err=True)
    if failures:
        raise typer.Exit(EXIT_FAILED)


def _check_engine_options(
    *,
    engine: str,
    scheduler: str | None,
    include_replicates: bool,
    json_path: pathlib.Path | None,
    bootstrap: int | None,
) -> None:
    """Options that cannot apply to this run are refused (never ignored)."""
    if scheduler is not None and engine != "dask":
        raise InputError(
            "--scheduler is the address of a Dask scheduler: it needs --engine dask (the "
            "memory engine runs in this process)"
        )
    if include_replicates and json_path is None:
        raise InputError(
            "--include-replicates adds the bootstrap replicates to the JSON document: give "
            "--json FILE (or --json - for stdout) too"
        )
    if include_replicates and engine == "memory" and bootstrap == 0:
        raise InputError(
            "--include-replicates with --bootstrap 0: no replicates are drawn (give "
            "--bootstrap N >= 2)"
        )


def _evaluate(
    *,
    file: pathlib.Path,
    target: str,
    preds: list[str],
    interval_specs: list[str] | None = None,
    lowers: list[str],
    uppers: list[str],
    alpha: float | None,
    relevance: str | None,
    event_threshold: float | None,
    events: str | None,
    budget: float | None,
    cost_per_target: float | None,
    value_margin: float | None,
    cost_benefit: str | None,
    weight: str | None,
    bootstrap: int,
    bootstrap_budget: float,
    seed: int,
    drop_na: bool,
    inference: str = "auto",
    groups: str | None = None,
    title: str | None,
    json_path: pathlib.Path | None,
    html: pathlib.Path | None,
    console: Any,
    quiet: bool,
) -> Any:
    """Check every option and the data, then evaluate; bad input raises :class:`InputError`."""
    import numpy as np

    from ranklens._validation import check_sample_weight

    payoffs = check_options(
        preds=preds,
        lowers=lowers,
        uppers=uppers,
        alpha=alpha,
        event_threshold=event_threshold,
        budget=budget,
        cost_per_target=cost_per_target,
        value_margin=value_margin,
        cost_benefit=cost_benefit,
        bootstrap=bootstrap,
        bootstrap_budget=bootstrap_budget,
        seed=seed,
        json_path=json_path,
        html=html,
        interval_specs=interval_specs,
    )
    interval_pairs = interval_columns(preds, interval_specs or [], lowers, uppers)
    from ranklens.evaluation import INFERENCE

    if inference not in INFERENCE:
        raise InputError(f"--inference must be one of {', '.join(INFERENCE)}; got {inference!r}")
    if inference == "bootstrap" and not bootstrap:
        raise InputError(
            "--inference bootstrap takes every interval and test from the bootstrap; with "
            "--bootstrap 0 there would be none (give --bootstrap N >= 2, or --inference auto "
            "for the analytic intervals alone)"
        )
    if groups is not None and not bootstrap:
        raise InputError(_NO_BOOTSTRAP_FOR_GROUPS.format(groups=groups, option="--bootstrap 0"))
    event_spec = events_option(events)

    frame = read_table(file)
    used = dict.fromkeys([target, *preds, *(c for pair in interval_pairs.values() for c in pair)])
    if weight is not None:
        used[weight] = None
    _check_groups_name(groups, used, target, weight)
    columns = {name: numeric_column(frame, name, file) for name in used}
    check_intervals(columns, list(interval_pairs.values()), explicit=bool(interval_specs))
    labels = None
    if groups is not None:
        labels = label_column(frame, groups, file)
        # The row's position where it has a unit id, NaN where not: drop_missing refuses or
        # drops the rows without one as it does for the other columns, and what it keeps of
        # this column says which labels remain.
        positions = np.arange(len(labels), dtype=np.float64)
        columns[groups] = np.where(labels.isna().to_numpy(), np.nan, positions)
    columns, n_dropped = drop_missing(columns, drop=drop_na)
    if groups is not None and labels is not None:
        kept = columns.pop(groups).astype(np.int64)
        labels = labels.iloc[kept].reset_index(drop=True)
        _check_units(labels, groups)
    for values in columns.values():
        # The same arrays feed every measure: one that wrote into its input would corrupt the
        # rest, so that becomes an error (a failure) instead. pandas 3 hands out read-only
        # arrays too, so the library has to take them either way.
        values.setflags(write=False)
    y = columns[target]
    if len(y) < 2:
        raise InputError(f"{len(y)} row(s) to evaluate; at least 2 are needed")
    predictions = {p: columns[p] for p in preds}
    intervals = {model: (columns[lo], columns[hi]) for model, (lo, hi) in interval_pairs.items()}
    sample_weight = columns[weight] if weight is not None else None
    if sample_weight is not None:
        _library_check(check_sample_weight, sample_weight, len(y), name=f"--weight {weight!r}")
    if event_spec is not None:
        check_events(str(events), event_spec, y, sample_weight)
    relevance_function = parse_relevance(relevance, np.array(y, dtype=np.float64))

    from ranklens.report import evaluate_models

    with _progress_context(console, "ranklens evaluate") as bar:
        task = bar.add_task("evaluating", total=None)

        def progress(message: str) -> None:
            bar.update(task, description=message)

        try:
            evaluation = evaluate_models(
                y,
                predictions,
                title=title or f"{file.name}: {target}",
                target=target,
                intervals=intervals or None,
                alpha=alpha,
                sample_weight=sample_weight,
                relevance=relevance_function,
                event_threshold=event_threshold,
                events=event_spec,
                budget=budget,
                cost_per_target=cost_per_target,
                value_margin=value_margin,
                cost_benefit=payoffs,
                n_bootstrap=bootstrap,
                bootstrap_budget_s=bootstrap_budget,
                random_state=seed,
                inference=inference,
                groups=labels,
                n_dropped=n_dropped,
                on_progress=None if quiet else progress,
                show_progress=None if not quiet else False,
            )
        except (ValueError, TypeError) as exc:
            # evaluate_models checks its inputs first and records every later error itself.
            raise InputError(_first_line(exc)) from None
        except Exception as exc:  # a bug outside any one measure: still one line, exit 1
            _fail(f"evaluation failed: {type(exc).__name__}: {_first_line(exc)}", EXIT_FAILED)
    return with_interval_columns(evaluation, interval_pairs)


def with_interval_columns(evaluation: Any, pairs: dict[str, tuple[str, str]]) -> Any:
    """The evaluation with ``settings["prediction intervals"]``: which model each interval
    belongs to and its bound columns, shown in the report's settings and the JSON's."""
    if not pairs:
        return evaluation
    import dataclasses

    settings = dict(evaluation.settings)
    settings["prediction intervals"] = "; ".join(
        f"{model}: lower {lower!r}, upper {upper!r}" for model, (lower, upper) in pairs.items()
    )
    return dataclasses.replace(evaluation, settings=settings)


def _refuse_without_replicates(inference: str, seed: int | None, include_replicates: bool) -> None:
    """``--engine dask`` without ``--bootstrap N`` draws no replicate: the options that are about
    replicates are refused, never ignored."""
    if inference == "bootstrap":
        raise InputError(
            "--inference bootstrap with --engine dask needs --bootstrap N (Poisson "
            "replicates); without it the intervals are the analytic ones of --inference auto"
        )
    if seed is not None:
        raise InputError(
            "--seed is the bootstrap's seed: with --engine dask give --bootstrap N too (the "
            "analytic intervals draw nothing)"
        )
    if include_replicates:
        raise InputError(
            "--include-replicates with --engine dask needs --bootstrap N (no replicates "
            "are drawn without it)"
        )


def interval_columns(
    preds: list[str], specs: list[str], lowers: list[str], uppers: list[str]
) -> dict[str, tuple[str, str]]:
    """The prediction interval columns by model, ``{model: (lower, upper)}``.

    Each ``--interval MODEL:LOWER:UPPER`` names its model (a ``--pred`` column); the column
    names of the bounds may not hold ``:``, the model's may. ``--lower/--upper`` is one pair for
    the one ``--pred``: with several, which model the bounds belong to would be a guess, so it
    is refused with a pointer to ``--interval``.
    """
    if specs and (lowers or uppers):
        raise InputError("give --interval MODEL:LOWER:UPPER or --lower/--upper, not both")
    if len(lowers) != len(uppers):
        raise InputError(
            f"--lower and --upper must come in pairs; got {len(lowers)} --lower "
            f"and {len(uppers)} --upper"
        )
    if lowers and len(preds) > 1:
        raise InputError(
            f"--lower/--upper with {len(preds)} --pred columns ({', '.join(preds)}): say "
            "which model each interval belongs to with --interval MODEL:LOWER:UPPER (e.g. "
            f"--interval MODEL:{lowers[0]}:{uppers[0]})"
        )
    if len(lowers) > 1:
        raise InputError(
            f"{len(lowers)} --lower/--upper pairs for one --pred; give one pair, or one "
            "--interval MODEL:LOWER:UPPER per model"
        )
    if lowers:
        return {preds[0]: (lowers[0], uppers[0])}
    out: dict[str, tuple[str, str]] = {}
    for spec in specs:
        model, sep, bounds = spec.rpartition(":")
        model, _, lower = model.rpartition(":")
        if not (sep and model and lower and bounds):
            raise InputError(
                f"--interval {spec!r} is not MODEL:LOWER:UPPER (e.g. --interval "
                "gbm:gbm_low:gbm_high)"
            )
        if model not in preds:
            raise InputError(
                f"--interval {spec!r}: {model!r} is not a --pred column ({', '.join(preds)}); "
                "an interval belongs to a model given with --pred"
            )
        if model in out:
            raise InputError(f"--interval gives model {model!r} twice")
        out[model] = (lower, bounds)
    return out


def _dask_replicates(
    bootstrap: int | None,
    bootstrap_budget: float | None,
    inference: str,
    groups: str | None,
    *,
    seed: int | None,
    include_replicates: bool,
) -> int:
    """The Dask engine's number of replicates (0 without ``--bootstrap N``), after refusing the
    options it cannot honour: a time budget, an unknown ``--inference``, ``--groups`` without
    replicates, and the options that only replicates use."""
    from ranklens.evaluation import INFERENCE

    if bootstrap_budget is not None:
        raise InputError(
            "--bootstrap-budget is for --engine memory: the Dask engine computes every "
            "replicate in the same passes and has no time budget (choose --bootstrap N instead)"
        )
    if inference not in INFERENCE:
        raise InputError(f"--inference must be one of {', '.join(INFERENCE)}; got {inference!r}")
    n_boot = 0 if bootstrap is None else check_bootstrap(bootstrap)
    if groups is not None and not n_boot:
        option = "--engine dask and no --bootstrap N" if bootstrap is None else "--bootstrap 0"
        raise InputError(_NO_BOOTSTRAP_FOR_GROUPS.format(groups=groups, option=option))
    if not n_boot:
        _refuse_without_replicates(inference, seed, include_replicates)
    return n_boot


def _dask_boxplot_relevance(
    data: Any, target: str, boxplot: tuple[Any, Any], relevance: str | None
) -> Any:
    """``--relevance boxplot...`` on Dask: the box plot's relevance from the target's
    quantiles, computed on the cluster (``data`` is a path or a Dask frame)."""
    import dask.dataframe as dd

    from ranklens.dask._quantiles import boxplot_relevance

    extremes, shape = boxplot
    column = data if isinstance(data, dd.DataFrame) else dd.read_parquet(data, columns=[target])
    try:
        return boxplot_relevance(column, target, extremes=extremes, shape=shape)
    except (ValueError, TypeError) as exc:
        raise InputError(f"--relevance {relevance!r}: {_first_line(exc)}") from None


def _dask_failure(exc: Exception) -> str:
    """One line for a failure of the cluster (a worker killed, a shuffle lost), with what
    usually causes the two failures that workers dying produce."""
    hint = ""
    if type(exc).__name__ in ("KilledWorker", "P2PConsistencyError"):
        hint = (
            " (workers died while running it: usually a worker over its memory limit; give "
            "the workers more memory, or split the Parquet files into smaller row groups)"
        )
    return f"Dask evaluation failed: {type(exc).__name__}: {_first_line(exc)}{hint}"


def _evaluate_dask(
    file: pathlib.Path,
    target: str,
    preds: list[str],
    weight: str | None,
    events: str | None,
    title: str | None,
    scheduler: str | None,
    console: Any,
    *,
    lowers: list[str] | None = None,
    uppers: list[str] | None = None,
    interval_specs: list[str] | None = None,
    alpha: float | None = None,
    event_threshold: float | None = None,
    curve_arrays: bool = False,
    relevance: str | None = None,
    budget: float | None = None,
    cost_per_target: float | None = None,
    value_margin: float | None = None,
    cost_benefit: str | None = None,
    bootstrap: int | None = None,
    bootstrap_budget: float | None = None,
    seed: int | None = None,
    inference: str = "auto",
    include_replicates: bool = False,
    drop_na: bool = False,
    json_path: pathlib.Path | None = None,
    html: pathlib.Path | None = None,
    groups: str | None = None,
) -> Any:
    """``--engine dask``: :func:`ranklens.dask.evaluate` on FILE (a Parquet path, glob or URL).

    Every option of the memory engine is passed on with the same parsing, or refused with one
    line when the Dask engine cannot honour it (never ignored). The bootstrap runs only when
    ``--bootstrap N`` is given (Poisson weights); without it the intervals are the analytic ones.
    ``--groups`` keys the Poisson weights by unit and, as in memory, makes every interval the
    bootstrap's (``inference="bootstrap"``): one more read of that column counts the units and
    finds missing ids.
    """
    import dataclasses

    lowers, uppers = list(lowers or []), list(uppers or [])
    pairs = interval_columns(preds, interval_specs or [], lowers, uppers)
    bounds = [column for pair in pairs.values() for column in pair]
    n_boot = _dask_replicates(
        bootstrap,
        bootstrap_budget,
        inference,
        groups,
        seed=seed,
        include_replicates=include_replicates,
    )
    payoffs = check_options(
        preds=preds,
        lowers=lowers,
        uppers=uppers,
        alpha=alpha,
        event_threshold=event_threshold,
        budget=budget,
        cost_per_target=cost_per_target,
        value_margin=value_margin,
        cost_benefit=cost_benefit,
        bootstrap=n_boot,
        bootstrap_budget=0.0,
        seed=0 if seed is None else seed,
        json_path=json_path,
        html=html,
        interval_specs=interval_specs,
    )
    profit = "--cost-benefit" if cost_benefit is not None else "--value-margin"
    if (payoffs is not None or value_margin is not None) and not curve_arrays:
        raise InputError(
            f"{profit} with --engine dask: the profit curve is built as arrays, one point per "
            "distinct prediction held by the client; add --curve-arrays"
        )
    relevance_function, boxplot = _dask_relevance(relevance)
    event_spec = events_option(events)
    from ranklens._extras import MissingExtraError, require

    try:
        require("dask", "--engine dask")
        require("parquet", "--engine dask")
    except MissingExtraError as exc:
        raise InputError(str(exc)) from None
    import ranklens.dask
    from ranklens.dask._inputs import check_parquet

    used = list(dict.fromkeys([target, *preds, *bounds, *([weight] if weight else [])]))
    labels = [groups] if groups is not None else []
    _check_groups_name(groups, dict.fromkeys(used), target, weight)
    try:  # every file's schema (footers only): before a cluster starts or a pass runs
        check_parquet(str(file), used, labels)
    except (ValueError, OSError) as exc:
        options = {groups: "--groups", weight: "--weight", target: "--target"}
        raise InputError(_with_option(_first_line(exc), options)) from None
    client, restore_logs = _dask_client(scheduler, quiet=console.quiet)
    from ranklens.dask._watch import PausedWorkersGuard

    # every worker paused on memory it cannot spill would leave the computation waiting forever
    guard = PausedWorkersGuard(client).start()
    try:
        _say(console, f"Dask scheduler: {client.scheduler.address}")
        data: Any = str(file)
        n_dropped = 0
        n_units = 0
        _dask_crossed(str(file), list(pairs.values()))
        if groups is not None:
            n_units = _dask_units(str(file), groups, used, drop_na)
        if drop_na:
            data, n_dropped = _dask_drop_missing(str(file), used, labels)
        if boxplot is not None:
            if not drop_na:
                _dask_missing_error(str(file), used)
            relevance_function = _dask_boxplot_relevance(data, target, boxplot, relevance)
        try:
            evaluation = ranklens.dask.evaluate(
                data,
                y_true=target,
                predictions=preds,
                sample_weight=weight,
                groups=groups,
                events=event_spec,
                intervals=pairs,
                alpha=alpha,
                relevance=relevance_function,
                event_threshold=event_threshold,
                title=title or f"{file.name}: {target}",
                curve_arrays=curve_arrays,
                cost_benefit=payoffs,
                budget=budget,
                cost_per_target=cost_per_target,
                value_margin=value_margin,
                n_bootstrap=n_boot,
                random_state=0 if seed is None else seed,
                # DeLong's and Noether's intervals assume independent rows: with units, the
                # clustered bootstrap gives every interval, as in memory
                inference="bootstrap" if groups is not None else inference,
            )
        except ValueError as exc:
            if "missing or non-finite" in str(exc) and not drop_na:
                # the memory engine's message: how many rows, the first, and in which columns
                _dask_missing_error(str(file), used)
            raise
        if groups is not None:
            from ranklens.evaluation import groups_settings

            settings = dict(evaluation.settings)
            settings["inference"] = inference
            settings.update(groups_settings(groups, n_units, inference))
            evaluation = dataclasses.replace(evaluation, settings=settings)
        return dataclasses.replace(
            evaluation,
            n_dropped=n_dropped,
            problems=_dask_not_drawn(evaluation, curve_arrays=curve_arrays),
        )
    except (InputError, typer.Exit):
        raise
    except KeyboardInterrupt:
        if guard.stalled is None:  # the user's Ctrl-C
            raise
        _fail(f"Dask evaluation stopped: {guard.stalled}", EXIT_FAILED)
    except (ValueError, TypeError, OSError) as exc:
        raise InputError(_first_line(exc)) from None
    except Exception as exc:  # the cluster failed (a worker killed, a shuffle lost): one line
        _fail(_dask_failure(exc), EXIT_FAILED)
    finally:
        guard.stop()
        cluster = client.cluster
        client.close()
        if scheduler is None and cluster is not None:
            cluster.close()
        restore_logs()


#: Seconds ``--engine dask`` waits for ``--scheduler`` to answer before one ``error:`` line.
DASK_CONNECT_TIMEOUT_S = 10

#: Dask's loggers that ``--quiet`` silences while the cluster runs (worker processes read the
#: ``logging.distributed`` setting from the environment variable when they start).
_DASK_LOGGERS = ("distributed", "tornado")
_DASK_LOG_ENV = "DASK_LOGGING__DISTRIBUTED"


def _dask_client(scheduler: str | None, *, quiet: bool) -> tuple[Any, Any]:
    """The Dask client of ``--engine dask`` and the function that restores Dask's loggers.

    Parameters
    ----------
    scheduler : str or None
        A scheduler's address; None starts a local cluster.
    quiet : bool
        Silence Dask's log lines (``--quiet``: nothing but errors) until the restore.

    Returns
    -------
    tuple
        The ``distributed.Client`` and a function of no arguments that restores the loggers.

    Raises
    ------
    InputError
        When the scheduler cannot be reached within :data:`DASK_CONNECT_TIMEOUT_S` seconds, or
        its address is not one (one line with the address).
    """
    import distributed

    restore = _quiet_dask_logs() if quiet else (lambda: None)
    try:
        if scheduler is not None:
            _dask_reach(scheduler)
            return distributed.Client(scheduler, timeout=DASK_CONNECT_TIMEOUT_S), restore
        import dask
        from distributed.system import MEMORY_LIMIT

        from ranklens.dask._engine import shuffle_buffers

        # a worker has at least the memory over the cores (at most one worker a core): the
        # shuffle's buffers are held to an eighth of that, not Dask's 1 GiB
        with dask.config.set(shuffle_buffers(MEMORY_LIMIT // (os.cpu_count() or 1))):
            return distributed.Client(distributed.LocalCluster(dashboard_address=":0")), restore
    except BaseException:
        restore()
        raise


def _dask_reach(scheduler: str) -> None:
    """One connection to ``scheduler`` (with the security Dask's settings give a client),
    closed at once: a scheduler that does not answer is one line, not a client left behind
    that retries and fails again as the process exits."""
    import asyncio

    import distributed
    from distributed.comm import connect

    async def knock() -> None:
        args = distributed.Security().get_connection_args("client")
        comm = await connect(scheduler, timeout=DASK_CONNECT_TIMEOUT_S, **args)
        await comm.close()

    try:
        asyncio.run(knock())
    except (OSError, ValueError, TypeError) as exc:  # refused, timed out, not an address
        raise InputError(
            f"--scheduler {scheduler}: the Dask scheduler could not be reached ({_first_line(exc)})"
        ) from None


def _quiet_dask_logs() -> Any:
    """Silence Dask's loggers (this process's, and those of worker processes started from now
    on); returns the function that restores them as they were."""
    import logging

    names = [
        name
        for name in [*_DASK_LOGGERS, *logging.root.manager.loggerDict]
        if name.split(".")[0] in _DASK_LOGGERS
    ]
    levels = {name: logging.getLogger(name).level for name in dict.fromkeys(names)}
    env = os.environ.get(_DASK_LOG_ENV)
    for name in levels:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    os.environ[_DASK_LOG_ENV] = "critical"

    def restore() -> None:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        if env is None:
            os.environ.pop(_DASK_LOG_ENV, None)
        else:
            os.environ[_DASK_LOG_ENV] = env

    return restore


def _dask_crossed(path: str, pairs: list[tuple[str, str]]) -> None:
    """Refuse crossed intervals (a lower bound above its upper bound) as the memory engine does
    (:func:`check_intervals`, same line), in one read of the bound columns, before any pass of
    the evaluation (NaN is not crossed)."""
    if not pairs:
        return
    import math

    import dask
    import dask.dataframe as dd
    import numpy as np

    from ranklens.dask._inputs import as_float

    columns = list(dict.fromkeys(c for pair in pairs for c in pair))

    def crossed(part: Any) -> tuple[int, list[tuple[int, int, float, float]]]:
        part = as_float(part, columns)
        out = []
        for lower, upper in pairs:
            low, high = part[lower].to_numpy(), part[upper].to_numpy()
            bad = np.flatnonzero(low > high)
            if bad.size:
                at = int(bad[0])
                out.append((int(bad.size), at, float(low[at]), float(high[at])))
            else:
                out.append((0, -1, math.nan, math.nan))
        return len(part), out

    frame = dd.read_parquet(path, columns=columns)
    parts = dask.compute(*[dask.delayed(crossed)(p) for p in frame.to_delayed()])
    for k, (lower, upper) in enumerate(pairs):
        offset, first = 0, None
        for size, found in parts:
            if found[k][0] and first is None:
                first = (offset + found[k][1], found[k][2], found[k][3])
            offset += size
        if first is not None:
            n_crossed = sum(found[k][0] for _, found in parts)
            row, low, high = first
            raise InputError(
                f"--lower {lower!r} is above --upper {upper!r} in {n_crossed} row(s) (first at "
                f"data row {row + 1}: {low:.6g} > {high:.6g}); is the pair swapped?"
            )


def _with_option(message: str, options: dict[Any, str]) -> str:
    """``message`` about ``column 'X' ...`` with the option that named X in front, as the
    in-memory reader says it (``--groups column 'shop' not found ...``)."""
    for column, option in options.items():
        if column is not None and message.startswith(f"column {column!r}"):
            return f"{option} {message}"
    return message


def _dask_not_drawn(evaluation: Any, *, curve_arrays: bool) -> dict[str, Any]:
    """The evaluation's problems and what the memory engine's report has that this Dask
    evaluation does not, each with its reason: the report says what it leaves out rather than
    leaving it out. Read from the evaluation itself (what it holds), not from a fixed list."""
    from ranklens.evaluation import ALL_MODELS, Problem

    problems = evaluation.problems
    notes: dict[str, str] = {}
    explained = any("robustness table" in items for items in problems.values())
    if not evaluation.robustness and not explained:
        notes["robustness table"] = (
            "not computed by the Dask engine for this run: each measure without its most "
            "influential row (Rosset, Perlich & Zadrozny 2005, Table 1)"
        )
    missing = []
    if "row_summaries" not in evaluation.extras:
        missing.append("predicted against actual, residuals and calibration by decile")
    for kind, label in (
        ("rec", "the REC curve"),
        ("rroc", "the RROC curve"),
        ("precision_recall", "utility-based precision and recall over the event threshold"),
    ):
        if kind not in evaluation.curves and kind not in problems.get(ALL_MODELS, {}):
            missing.append(label)
    if missing:
        notes["plots of the rows"] = (
            "not drawn by the Dask engine: " + ", ".join(missing) + " (drawn from every row in "
            "memory)"
        )
    if not curve_arrays:
        notes["curves"] = (
            "not built: the ranking and targeting curves (ROC, gain, lift, AUC by cutoff, rank "
            "lift, value captured) and the best model by depth come with --curve-arrays, one "
            "point per distinct prediction held by the client"
        )
    out = {who: dict(items) for who, items in problems.items()}
    task = out.setdefault(ALL_MODELS, {})
    for what, why in notes.items():
        task.setdefault(what, Problem("skipped", why))
    if not task:
        del out[ALL_MODELS]
    return out


def _dask_relevance(spec: str | None) -> tuple[Any, tuple[str, str] | None]:
    """``--relevance`` for the Dask engine, parsed as in memory: a function given by its
    parameters (``sigmoid:``, ``points:``), or the ``(extremes, shape)`` of a box-plot relevance
    of the evaluated target, which :func:`ranklens.dask._quantiles.boxplot_relevance` fits by
    exact selection (unweighted, as the memory engine's)."""
    if spec is None:
        return None, None
    text = spec.strip().lower()
    if text in ("auto", "both", "high", "low"):
        return None, (text, "sigmoid")
    if text.startswith("pchip"):
        extremes = text.partition(":")[2] or "auto"
        if extremes not in ("auto", "both", "high", "low"):
            parse_relevance(spec, [0.0, 1.0])  # the memory engine's message
        return None, (extremes, "pchip")
    return parse_relevance(spec, None), None


def _dask_missing_counts(
    path: str, used: list[str], labels: list[str] | None = None
) -> tuple[int, dict[str, int], int, int]:
    """Rows with a missing or infinite value in a used column of the Parquet data (one read):
    their number, the count per column, the 0-based position of the first, and all rows.
    ``labels`` are columns of unit ids (any dtype), where only a missing cell counts."""
    import dask
    import dask.dataframe as dd
    import numpy as np

    labels = [c for c in labels or [] if c not in used]

    def count(part: Any) -> tuple[int, list[int], int, int]:
        values = np.column_stack([part[c].to_numpy(dtype=np.float64) for c in used])
        bad = ~np.isfinite(values)
        if labels:
            bad = np.column_stack([bad, *[part[c].isna().to_numpy() for c in labels]])
        rows = bad.any(axis=1)
        first = int(np.flatnonzero(rows)[0]) if rows.any() else -1
        return int(rows.sum()), bad.sum(axis=0).tolist(), first, len(part)

    frame = dd.read_parquet(path, columns=[*used, *labels])
    parts = dask.compute(*[dask.delayed(count)(p) for p in frame.to_delayed()])
    n_bad = sum(p[0] for p in parts)
    per_column = {c: sum(p[1][j] for p in parts) for j, c in enumerate([*used, *labels])}
    first, offset = -1, 0
    for rows, _, at, size in parts:
        if rows and first < 0:
            first = offset + at
        offset += size
    return n_bad, per_column, first, offset


def _dask_missing_error(path: str, used: list[str], labels: list[str] | None = None) -> None:
    """The memory engine's error for missing values (nothing when there are none)."""
    n_bad, per_column, first, _ = _dask_missing_counts(path, used, labels)
    if n_bad:
        listed = ", ".join(f"{c} ({k})" for c, k in per_column.items() if k)
        raise InputError(
            f"{n_bad} row(s) have missing or infinite values (first at data row {first + 1}; "
            f"in {listed}); pass --drop-na to drop them"
        )


def _dask_drop_missing(
    path: str, used: list[str], labels: list[str] | None = None
) -> tuple[Any, int]:
    """``--drop-na`` on Dask: the Parquet data without the rows that have a missing or infinite
    value in a used column, or a missing unit id in a ``labels`` column (a filter applied as
    each partition is read), and their number."""
    import dask.dataframe as dd
    import numpy as np

    labels = [c for c in labels or [] if c not in used]
    n_bad, _, _, n = _dask_missing_counts(path, used, labels)
    if not n_bad:
        return path, 0
    if n_bad == n:
        raise InputError("every row has a missing value; nothing is left to evaluate")
    frame = dd.read_parquet(path, columns=[*used, *labels])

    def finite(part: Any) -> Any:
        values = np.column_stack([part[c].to_numpy(dtype=np.float64) for c in used])
        keep = np.isfinite(values).all(axis=1)
        for c in labels:
            keep = keep & part[c].notna().to_numpy()
        return part[keep]

    return frame.map_partitions(finite, meta=frame._meta), n_bad


def _dask_units(path: str, groups: str, used: list[str], drop_na: bool) -> int:
    """``--groups`` on Dask (one read of the units' column and, with missing ids, of the used
    ones): the number of distinct units among the rows evaluated (those without a missing
    value when ``drop_na``), counted by the keys the Poisson bootstrap hashes
    (:func:`ranklens._resampling.group_keys`: ``3`` and ``3.0`` are one unit). A missing id
    without ``drop_na`` is the memory engine's error; an unknown column is named with the
    columns there are."""
    import dask
    import dask.dataframe as dd
    import numpy as np

    from ranklens._resampling import group_keys

    frame = dd.read_parquet(path, columns=list(dict.fromkeys([groups, *used])))

    def keys(part: Any) -> tuple[Any, int]:
        missing = part[groups].isna().to_numpy()
        n_missing = int(missing.sum())
        if drop_na:
            values = np.column_stack([part[c].to_numpy(dtype=np.float64) for c in used])
            missing = missing | ~np.isfinite(values).all(axis=1)
        labels = part[groups][~missing]
        if not len(labels):
            return np.zeros(0, np.uint64), n_missing
        return np.unique(group_keys(labels)), n_missing

    parts = dask.compute(*[dask.delayed(keys)(p) for p in frame.to_delayed()])
    if not drop_na and sum(p[1] for p in parts):
        _dask_missing_error(path, used, [groups])
    n_units = int(np.unique(np.concatenate([p[0] for p in parts])).size)
    _check_unit_count(n_units, groups)
    return n_units


@app.command()
def demo(
    out: Annotated[
        pathlib.Path, typer.Option("--out", "-o", help="Where to write the HTML report.")
    ] = pathlib.Path("ranklens-demo-report.html"),
    bootstrap: Annotated[
        int, typer.Option(help="Paired bootstrap replicates (0: no intervals, else >= 2).")
    ] = 500,
) -> None:
    """Fit scikit-learn models on bundled real data, print the evaluation, write the report.

    Exit status 1 when any measure, curve or the report failed (one error line each).
    """
    import time

    from rich.console import Console

    from ranklens import _demo
    from ranklens._extras import MissingExtraError, require

    try:
        require("demo", "the demo")
    except MissingExtraError as exc:
        _fail(str(exc), EXIT_FAILED)
    try:
        check_bootstrap(bootstrap)
        _check_output(out, "--out", stdout_ok=False)
    except InputError as exc:
        _fail(str(exc))
    console = Console()
    start = time.perf_counter()
    with _progress_context(Console(stderr=True), "ranklens demo") as bar:
        task = bar.add_task("fitting models", total=None)
        evaluations = _demo.run_demo(
            n_bootstrap=bootstrap,
            progress=lambda message: bar.update(task, description=message),
        )
        bar.update(task, description="writing the report")
        from ranklens.report import render

        figure_errors: list[str] = []
        text = _render(
            "HTML report",
            render.render_html,
            evaluations,
            title="ranklens demo",
            subtitle="Ranking, targeting, rare extremes and uncertainty on two real data sets",
            figure_errors=figure_errors,
        )
        (path,) = _write({out: text})
    for evaluation in evaluations:
        _show(console, evaluation)
    _say(console, f"Done in {time.perf_counter() - start:.0f} s.")
    _say(console, f"Report: {path}")
    failures = failure_lines(evaluations) + [f"error: {e}" for e in figure_errors]
    for line in failures:
        typer.echo(line, err=True)
    if failures:
        raise typer.Exit(EXIT_FAILED)


@app.command()
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
        from ranklens._progress import LineProgress

        lines = LineProgress("ranklens warmup")

        def progress(done: int, total: int, step: str) -> None:
            # Each step takes seconds when cold: say what runs, then at most every few seconds.
            lines.update(f"{title}: {step}", done, total, force=done == 0)

        report = compile_all(progress)
    _say(
        console,
        f"{report.n_ready} kernels ready in {report.total_seconds:.0f} s; "
        f"cache: {report.cache_dir}",
    )


def main() -> None:
    """Run the command line (the console script enters through :mod:`ranklens.__main__`)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
