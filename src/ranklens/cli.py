"""The ``ranklens`` command line: a thin typer layer over the library (no work at import time).

``ranklens evaluate FILE --target COL --pred COL ...`` evaluates predictions stored in a CSV or
Parquet file with every registered measure and writes an HTML report and/or a JSON file;
``ranklens demo`` runs the bundled case studies. Bad input (a missing file, an unknown or
non-numeric column, missing values) ends with a one-line ``error: ...`` on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import pathlib
from typing import Annotated, Any

import typer

app = typer.Typer(
    name="ranklens",
    help="Evaluate regression and scoring models: ranking, targeting, extremes, uncertainty.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Exit status for bad input (like a usage error).
EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Bad input from the command line; its message is printed as one line."""


@app.callback()
def _root() -> None:
    """ranklens: ranking-based evaluation of regression and scoring models."""


# --------------------------------------------------------------------------------------------
# Reading and checking the data


def read_table(path: pathlib.Path) -> Any:
    """Read a CSV (``.csv``, ``.tsv``, ``.txt``, optionally compressed) or Parquet file."""
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
    try:
        if kind in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if kind in (".csv", ".txt", ".tsv", ".tab"):
            return pd.read_csv(path, sep="\t" if kind in (".tsv", ".tab") else ",")
    except Exception as exc:  # pandas / pyarrow raise many types for unreadable files
        raise InputError(f"could not read {path}: {_first_line(exc)}") from None
    raise InputError(
        f"unsupported file type {path.suffix or '(none)'!r} for {path}; use .csv, .tsv or .parquet"
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _list_columns(frame: Any, limit: int = 12) -> str:
    names = [str(c) for c in frame.columns]
    shown = ", ".join(names[:limit])
    return shown + (f", ... ({len(names)} columns)" if len(names) > limit else "")


def numeric_column(frame: Any, column: str, path: pathlib.Path) -> Any:
    """The column as float64, or an :class:`InputError` naming it and what it holds."""
    import numpy as np
    import pandas as pd

    if column not in frame.columns:
        raise InputError(
            f"column {column!r} not found in {path.name}; columns: {_list_columns(frame)}"
        )
    series = frame[column]
    if isinstance(series, pd.DataFrame):
        raise InputError(f"column name {column!r} appears more than once in {path.name}")
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        return pd.to_numeric(series, errors="coerce").astype(np.float64)
    present = series.dropna()
    example = f"; e.g. {present.iloc[0]!r:.30}" if len(present) else ""
    raise InputError(f"column {column!r} is not numeric (dtype {series.dtype}{example})")


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


def parse_relevance(spec: str | None, y: Any) -> Any:
    """The relevance function a ``--relevance`` option names (see ``ranklens evaluate --help``)."""
    if spec is None:
        return None
    from ranklens import relevance as rel

    text = spec.strip().lower()
    try:
        if text in ("auto", "both", "high", "low"):
            return rel.relevance_from_boxplot(y, extremes=text)
        if text.startswith("pchip"):
            extremes = text.partition(":")[2] or "auto"
            return rel.relevance_from_boxplot(y, extremes=extremes, shape="pchip")
        if text.startswith("sigmoid:"):
            params = dict(_key_value(item) for item in text[len("sigmoid:") :].split(","))
            return rel.SigmoidRelevance(
                low_center=params.get("low"),
                high_center=params.get("high"),
                k=params.get("k", 0.5),
                delta=params.get("delta", 1e-4),
            )
        if text.startswith("points:"):
            points = [
                tuple(float(v) for v in item.split(":"))
                for item in text[len("points:") :].split(",")
                if item
            ]
            return rel.ControlPointRelevance(points)
    except InputError:
        raise
    except (ValueError, TypeError) as exc:
        raise InputError(f"--relevance {spec!r}: {_first_line(exc)}") from None
    raise InputError(
        f"--relevance {spec!r} not understood; use auto, both, high, low, pchip[:both|high|low], "
        "sigmoid:low=C,high=C[,k=K] or points:Y:PHI,Y:PHI,..."
    )


def parse_cost_benefit(spec: str | None) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """``"TP,FN,FP,TN"`` as the slides' 2x2 matrix ``((TP, FN), (FP, TN))``."""
    if spec is None:
        return None
    try:
        values = [float(v) for v in spec.split(",")]
    except ValueError:
        values = []
    if len(values) != 4:
        raise InputError(
            f"--cost-benefit needs four numbers TP,FN,FP,TN (e.g. 4,0,-5,0); got {spec!r}"
        )
    return (values[0], values[1]), (values[2], values[3])


def _key_value(item: str) -> tuple[str, float]:
    key, sep, value = item.partition("=")
    if not sep:
        raise InputError(f"expected key=value in --relevance, got {item!r}")
    try:
        return key.strip(), float(value)
    except ValueError:
        raise InputError(f"--relevance: {key.strip()}={value!r} is not a number") from None


# --------------------------------------------------------------------------------------------
# Output


def _progress_context(console: Any) -> Any:
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


@app.command()
def evaluate(
    file: Annotated[pathlib.Path, typer.Argument(help="CSV (.csv, .tsv) or Parquet file.")],
    target: Annotated[str, typer.Option("--target", "-t", help="Column with the truth.")],
    pred: Annotated[
        list[str],
        typer.Option("--pred", "-p", help="Prediction column (repeat for several models)."),
    ],
    lower: Annotated[
        list[str] | None,
        typer.Option(
            help="Lower bound column of a prediction interval (the k-th --lower and "
            "--upper belong to the k-th --pred)."
        ),
    ] = None,
    upper: Annotated[list[str] | None, typer.Option(help="Upper bound column.")] = None,
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
        float | None, typer.Option(help="Relevance at or above which a value is an event.")
    ] = None,
    events: Annotated[
        str | None,
        typer.Option(
            help="Event definition for ROC, gain and lift with a continuous target, e.g. top:0.1."
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
            "value - cost per target)."
        ),
    ] = None,
    cost_benefit: Annotated[
        str | None,
        typer.Option(help="Profit curve for events: TP,FN,FP,TN payoffs, e.g. 4,0,-5,0."),
    ] = None,
    weight: Annotated[str | None, typer.Option(help="Column of non-negative case weights.")] = None,
    bootstrap: Annotated[
        int, typer.Option(help="Paired bootstrap replicates for intervals and tests (0: none).")
    ] = 1000,
    bootstrap_budget: Annotated[
        float,
        typer.Option(
            help="Rough time budget of the bootstrap in seconds: the headline measures always "
            "run, the others while they fit."
        ),
    ] = 60.0,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap.")] = 0,
    drop_na: Annotated[
        bool, typer.Option("--drop-na", help="Drop rows with missing values (and report them).")
    ] = False,
    html: Annotated[
        pathlib.Path | None, typer.Option("--html", help="Write the HTML report here.")
    ] = None,
    json_path: Annotated[
        pathlib.Path | None, typer.Option("--json", help="Write every measure as JSON here.")
    ] = None,
    title: Annotated[str | None, typer.Option(help="Report title.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No table, no progress.")] = False,
) -> None:
    """Evaluate prediction columns of FILE against --target with every registered measure.

    Example: ranklens evaluate scores.csv --target spend --pred gbm --pred linear
    --html report.html --json results.json
    """
    from rich.console import Console

    console = Console(stderr=True, quiet=quiet)
    try:
        evaluation = _evaluate(
            file=file,
            target=target,
            preds=list(pred),
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
            bootstrap=bootstrap,
            bootstrap_budget=bootstrap_budget,
            seed=seed,
            drop_na=drop_na,
            title=title,
            console=console,
            quiet=quiet,
        )
        if not quiet:
            from ranklens.report.terminal import summary_table

            Console().print(summary_table(evaluation))
        if evaluation.n_dropped:
            console.print(f"dropped {evaluation.n_dropped} row(s) with missing values")
        if json_path is not None:
            _write_json(json_path, evaluation)
            console.print(f"results: {json_path}")
        if html is not None:
            from ranklens.report import write_html

            written = write_html(
                html,
                evaluation,
                title=evaluation.title,
                subtitle=f"{file.name}: {', '.join(evaluation.model_names)}",
            )
            console.print(f"report: {written}")
    except InputError as exc:
        _fail(str(exc))
    except (ValueError, OSError) as exc:
        _fail(_first_line(exc))


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def _write_json(path: pathlib.Path, evaluation: Any) -> None:
    import json

    from ranklens.report import evaluation_to_json

    text = json.dumps(evaluation_to_json(evaluation), indent=2, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")


def _evaluate(
    *,
    file: pathlib.Path,
    target: str,
    preds: list[str],
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
    title: str | None,
    console: Any,
    quiet: bool,
) -> Any:
    """Read, check and evaluate; every bad input raises :class:`InputError`."""
    if len(lowers) != len(uppers):
        raise InputError(
            f"--lower and --upper must come in pairs; got {len(lowers)} --lower "
            f"and {len(uppers)} --upper"
        )
    if len(lowers) > len(preds):
        raise InputError(
            f"{len(lowers)} interval(s) but only {len(preds)} --pred; the k-th "
            "--lower/--upper pair belongs to the k-th --pred"
        )
    if lowers and alpha is None:
        raise InputError(
            "--alpha is required with --lower/--upper (e.g. --alpha 0.1 for 90% intervals)"
        )
    if alpha is not None and not 0 < alpha < 1:
        raise InputError(f"--alpha must be in (0, 1); got {alpha}")
    if bootstrap < 0:
        raise InputError(f"--bootstrap must be >= 0; got {bootstrap}")
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
    if len(set(preds)) != len(preds):
        raise InputError(f"a --pred column is given twice: {preds}")

    frame = read_table(file)
    used = {target: target, **{p: p for p in preds}}
    used.update({c: c for c in [*lowers, *uppers]})
    if weight is not None:
        used[weight] = weight
    columns = {name: numeric_column(frame, name, file) for name in used}
    columns, n_dropped = drop_missing(columns, drop=drop_na)
    y = columns[target]
    if len(y) < 2:
        raise InputError(f"{len(y)} row(s) to evaluate; at least 2 are needed")
    predictions = {p: columns[p] for p in preds}
    intervals = {
        preds[k]: (columns[lo], columns[hi])
        for k, (lo, hi) in enumerate(zip(lowers, uppers, strict=True))
    }
    sample_weight = columns[weight] if weight is not None else None

    from ranklens.report import evaluate_models

    with _progress_context(console) as bar:
        task = bar.add_task("evaluating", total=None)

        def progress(message: str) -> None:
            bar.update(task, description=message)

        return evaluate_models(
            y,
            predictions,
            title=title or f"{file.name}: {target}",
            target=target,
            intervals=intervals or None,
            alpha=alpha,
            sample_weight=sample_weight,
            relevance=parse_relevance(relevance, y),
            event_threshold=event_threshold,
            events=events,
            budget=budget,
            cost_per_target=cost_per_target,
            value_margin=value_margin,
            cost_benefit=payoffs,
            n_bootstrap=bootstrap,
            bootstrap_budget_s=bootstrap_budget,
            random_state=seed,
            n_dropped=n_dropped,
            progress=None if quiet else progress,
            show_progress=None if not quiet else False,
        )


@app.command()
def demo(
    out: Annotated[
        pathlib.Path, typer.Option("--out", "-o", help="Where to write the HTML report.")
    ] = pathlib.Path("ranklens-demo-report.html"),
    bootstrap: Annotated[
        int, typer.Option(help="Paired bootstrap replicates (0: no intervals).")
    ] = 500,
) -> None:
    """Fit scikit-learn models on bundled real data, print the evaluation, write the report."""
    from rich.console import Console

    from ranklens._demo import render_demo

    render_demo(Console(), out=out, n_bootstrap=bootstrap)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
