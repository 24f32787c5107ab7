"""``ranklens evaluate``: the options checked, the data read by the chosen engine, the
evaluation, the outputs written.

Both engines are called through :func:`ranklens.evaluate_models` with one vocabulary: the
options they share are built once (:func:`ranklens.cli._options.shared_options`); the in-memory
engine is given the checked arrays, the Dask engine the Parquet data and its column names
(:func:`ranklens.cli._dask.evaluate_on_dask`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

from ranklens.cli._errors import EXIT_FAILED, InputError, fail, first_line
from ranklens.cli._inputs import Relevance, relevance_recipe
from ranklens.cli._options import (
    Checked,
    Request,
    check_block_rows,
    check_engine_options,
    check_run,
    check_window_times,
    shared_options,
)
from ranklens.cli._outputs import progress_context, write_evaluation
from ranklens.cli._table import read_columns


def run_evaluate(request: Request) -> None:
    """Run ``ranklens evaluate``: bad input is one ``error:`` line and exit 2, a failed
    measure, curve or output one line each and exit 1 (after the outputs are written)."""
    from rich.console import Console

    console = Console(stderr=True, quiet=request.quiet)
    # With --json - stdout carries the JSON document and nothing else.
    table_console = Console(stderr=request.to_stdout, quiet=request.quiet)
    try:
        check_engine_options(request)
        checked = check_run(request)
        if request.engine == "dask":
            from ranklens.cli._dask import evaluate_on_dask

            evaluation = evaluate_on_dask(request, checked, console)
        else:
            evaluation = _evaluate_in_memory(request, checked, console)
        evaluation = with_interval_columns(evaluation, checked.pairs)
    except InputError as exc:
        fail(str(exc))
    write_evaluation(
        evaluation,
        file=request.file,
        json_path=request.json_path,
        html=request.html,
        include_replicates=request.include_replicates,
        console=console,
        table_console=table_console,
        verbose=request.verbose,
    )


def _evaluate_in_memory(request: Request, checked: Checked, console: Any) -> Any:
    """Read and check the file, then evaluate its columns as arrays, with a progress bar."""
    import numpy as np

    # looked up on ranklens.report at each call: the same function as ranklens.evaluate_models,
    # where the report's users (and the tests that stand in for it) find it
    from ranklens.report import evaluate_models

    columns = read_columns(
        request.file,
        target=request.target,
        preds=request.preds,
        pairs=checked.pairs,
        explicit_intervals=bool(request.interval_specs),
        weight=request.weight,
        groups=request.groups,
        events=request.events,
        event_spec=checked.event_spec,
        drop_na=request.drop_na,
        sep=checked.sep,
        segments=checked.segments,
        time=request.time,
        positive_label=request.positive_label,
    )
    check_block_rows(request, checked, len(columns.y))
    check_window_times(request, checked, columns.time)
    sliced = columns.segments
    relevance = fit_relevance(
        relevance_recipe(request.relevance), request.relevance, np.array(columns.y, np.float64)
    )
    with progress_context(console, "ranklens evaluate") as bar:
        task = bar.add_task("evaluating", total=None)

        def progress(message: str) -> None:
            bar.update(task, description=message)

        try:
            return evaluate_models(
                columns.y,
                columns.predictions,
                intervals=columns.intervals or None,
                sample_weight=columns.sample_weight,
                groups=columns.groups,
                inference=request.inference,
                bootstrap_budget_s=checked.bootstrap_budget_s,
                on_progress=None if request.quiet else progress,
                show_progress=None if not request.quiet else False,
                by=sliced.get("by"),
                scan=sliced.get("scan"),
                time=columns.time,
                scheme=request.scheme,
                block_length=checked.block_length,
                window=checked.window,
                **checked.segment_options.arguments(),
                **shared_options(request, checked, relevance, columns.n_dropped),
            )
        except (ValueError, TypeError) as exc:
            # evaluate_models checks its inputs first and records every later error itself.
            raise InputError(first_line(exc)) from None
        except Exception as exc:  # a bug outside any one measure: still one line, exit 1
            fail(f"evaluation failed: {type(exc).__name__}: {first_line(exc)}", EXIT_FAILED)


def fit_relevance(recipe: Relevance | None, spec: str | None, y: Any) -> Any:
    """The relevance function of ``--relevance`` (``spec``, parsed as ``recipe``), a box-plot
    relevance fitted on the target ``y`` in memory."""
    if recipe is None:
        return None
    if recipe.boxplot is None:
        return recipe.function
    from ranklens import relevance as rel

    extremes, shape = recipe.boxplot
    try:
        return rel.relevance_from_boxplot(
            y, extremes=cast("rel.Extremes", extremes), shape=cast(Any, shape)
        )
    except (ValueError, TypeError) as exc:
        raise InputError(f"--relevance {spec!r}: {first_line(exc)}") from None


def with_interval_columns(evaluation: Any, pairs: dict[str, tuple[str, str]]) -> Any:
    """The evaluation with ``settings["prediction intervals"]``: which model each interval
    belongs to and its bound columns, shown in the report's settings and the JSON's."""
    if not pairs:
        return evaluation
    settings = dict(evaluation.settings)
    settings["prediction intervals"] = "; ".join(
        f"{model}: lower {lower!r}, upper {upper!r}" for model, (lower, upper) in pairs.items()
    )
    return dataclasses.replace(evaluation, settings=settings)
