"""``ranklens evaluate --engine dask``: the cluster, the checks of the data on it, the
evaluation, and one line for whatever fails.

The options were checked by :func:`ranklens.cli._options.check_run` and are parsed as in memory
(:mod:`ranklens.cli._inputs`); the data is checked on the cluster with the in-memory reader's
messages (:mod:`ranklens.cli._dask_inputs`) before the evaluation's passes start.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import typer

from ranklens.cli import _dask_inputs as checks
from ranklens.cli._errors import EXIT_FAILED, InputError, fail, first_line
from ranklens.cli._inputs import check_groups_name, used_columns
from ranklens.cli._options import Checked, Request, shared_options
from ranklens.cli._outputs import say

#: Dask's loggers that ``--quiet`` silences while the cluster runs (worker processes read the
#: ``logging.distributed`` setting from the environment variable when they start).
_DASK_LOGGERS = ("distributed", "tornado")
DASK_LOG_ENV = "DASK_LOGGING__DISTRIBUTED"


def evaluate_on_dask(request: Request, checked: Checked, console: Any) -> Any:
    """The evaluation of ``request`` on Dask (FILE a Parquet path, glob or URL).

    Every option of the memory engine is passed on with the same parsing, or was refused by
    :func:`ranklens.cli._options.check_run` when the Dask engine cannot honour it. The bootstrap
    runs only when ``--bootstrap N`` is given (Poisson weights); without it the intervals are
    the analytic ones. ``--groups`` keys the Poisson weights by unit and, as in memory, makes
    every interval the bootstrap's (``inference="bootstrap"``): one more read of that column
    counts the units and finds missing ids.
    """
    from ranklens._foundation.extras import MissingExtraError, require

    try:
        require("dask", "--engine dask")
        require("parquet", "--engine dask")
    except MissingExtraError as exc:
        raise InputError(str(exc)) from None
    path = str(request.file)
    used = used_columns(request.target, request.preds, checked.pairs, request.weight)
    labels = [request.groups] if request.groups is not None else []
    check_groups_name(request.groups, used, request.target, request.weight)
    if request.positive_label is not None:
        # a target of labels ("yes"/"no"), of any type, mapped to 0/1 by the engine: checked
        # as a column of labels, where only a missing cell counts as missing
        used = [c for c in used if c != request.target]
        labels = [*labels, request.target]
    checks.check_schema(path, used, labels, target=request.target, weight=request.weight)
    checks.check_segment_columns(path, checked.segments)
    checks.check_time_column(path, request.time)
    client, restore_logs = dask_client(
        request.scheduler, quiet=console.quiet, timeout_s=request.connect_timeout_s
    )
    from ranklens.dask._watch import PausedWorkersGuard

    # every worker paused on memory it cannot spill would leave the computation waiting forever
    guard = PausedWorkersGuard(client).start()
    try:
        say(console, f"Dask scheduler: {client.scheduler.address}")
        return _evaluate(request, checked, path, used)
    except (InputError, typer.Exit):
        raise
    except KeyboardInterrupt:
        if guard.stalled is None:  # the user's Ctrl-C
            raise
        fail(f"Dask evaluation stopped: {guard.stalled}", EXIT_FAILED)
    except (ValueError, TypeError, OSError) as exc:
        raise InputError(checks.time_message(first_line(exc), request.time)) from None
    except Exception as exc:  # the cluster failed (a worker killed, a shuffle lost): one line
        fail(_dask_failure(exc), EXIT_FAILED)
    finally:
        guard.stop()
        cluster = client.cluster
        client.close()
        if request.scheduler is None and cluster is not None:
            cluster.close()
        restore_logs()


def _evaluate(request: Request, checked: Checked, path: str, used: list[str]) -> Any:
    """The data checked on the cluster (crossed intervals, units, missing values, the box-plot
    relevance fitted), then the evaluation (:func:`ranklens.evaluate_models` with
    ``engine="dask"``), on the client that is current. With ``--time`` the rows must be in time
    order in the files (the engine checks it and does not sort); a row without a time is
    refused, or dropped with ``--drop-na``, as in memory."""
    from ranklens.evaluation import groups_settings

    groups = request.groups
    # columns of labels whose missing cells count as missing values: the units and the times
    unlabelled = [c for c in (groups, request.time) if c is not None]
    if request.positive_label is not None:
        unlabelled.append(request.target)  # labels mapped to 0/1 by the engine
    data: Any = path
    n_dropped = 0
    n_units = 0
    checks.check_crossed(path, list(checked.pairs.values()))
    if groups is not None:
        n_units = checks.count_units(path, groups, used, request.drop_na)
    by, scan = checked.segments.get("by", []), checked.segments.get("scan", [])
    if request.drop_na:
        labels = list(dict.fromkeys([*by, *scan]))
        data, n_dropped = checks.drop_missing(path, used, unlabelled, labels)
    relevance = checked.relevance.function if checked.relevance is not None else None
    if checked.relevance is not None and checked.relevance.boxplot is not None:
        if not request.drop_na:
            checks.refuse_missing(path, used)
        relevance = checks.boxplot_relevance(
            data, request.target, checked.relevance.boxplot, request.relevance
        )
    # through the one entry point, with the in-memory engine's vocabulary (the same function as
    # ranklens.evaluate_models, looked up where the memory engine's call finds it)
    from ranklens.report import evaluate_models

    try:
        evaluation = evaluate_models(
            request.target,
            request.preds,
            data=data,
            engine="dask",
            sample_weight=request.weight,
            groups=groups,
            intervals=checked.pairs or None,
            curve_arrays=request.curve_arrays,
            # DeLong's and Noether's intervals assume independent rows: with units, the
            # clustered bootstrap gives every interval, as in memory
            inference="bootstrap" if groups is not None else request.inference,
            by=by or None,
            scan=scan or None,
            time=request.time,
            scheme=request.scheme,
            block_length=checked.block_length,
            window=checked.window,
            positive_label=request.positive_label,
            **checked.segment_options.arguments(),
            **shared_options(request, checked, relevance, n_dropped),
        )
    except ValueError as exc:
        named = f"positive_label={request.positive_label!r} "
        if request.positive_label is not None and str(exc).startswith(named):
            # the memory reader's message, with the option
            raise InputError(
                f"--positive-label {request.positive_label!r}: "
                + first_line(exc).replace(named, "")
            ) from None
        missing = "missing or non-finite" in str(exc) or "holds missing" in str(exc)
        if missing and not request.drop_na:
            # the memory engine's message: how many rows, the first, and in which columns
            checks.refuse_missing(path, used, unlabelled)
        raise
    if groups is not None:
        settings = dict(evaluation.settings)
        settings["inference"] = request.inference
        settings.update(groups_settings(groups, n_units, request.inference))
        evaluation = dataclasses.replace(evaluation, settings=settings)
    return dataclasses.replace(
        evaluation, problems=not_drawn(evaluation, curve_arrays=request.curve_arrays)
    )


def _dask_failure(exc: Exception) -> str:
    """One line for a failure of the cluster (a worker killed, a shuffle lost), with what
    usually causes the two failures that workers dying produce."""
    hint = ""
    if type(exc).__name__ in ("KilledWorker", "P2PConsistencyError"):
        hint = (
            " (workers died while running it: usually a worker over its memory limit; give "
            "the workers more memory, or split the Parquet files into smaller row groups)"
        )
    return f"Dask evaluation failed: {type(exc).__name__}: {first_line(exc)}{hint}"


def dask_client(scheduler: str | None, *, quiet: bool, timeout_s: float) -> tuple[Any, Any]:
    """The Dask client of ``--engine dask`` and the function that restores Dask's loggers.

    Parameters
    ----------
    scheduler : str or None
        A scheduler's address; None starts a local cluster.
    quiet : bool
        Silence Dask's log lines (``--quiet``: nothing but errors) until the restore.
    timeout_s : float
        Seconds to wait for ``scheduler`` to answer (``ranklens.cli.DASK_CONNECT_TIMEOUT_S``).

    Returns
    -------
    tuple
        The ``distributed.Client`` and a function of no arguments that restores the loggers.

    Raises
    ------
    InputError
        When the scheduler cannot be reached within ``timeout_s`` seconds, or its address is
        not one (one line with the address).
    """
    import distributed

    restore = _quiet_dask_logs() if quiet else (lambda: None)
    try:
        if scheduler is not None:
            _dask_reach(scheduler, timeout_s)
            return distributed.Client(scheduler, timeout=timeout_s), restore
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


def _dask_reach(scheduler: str, timeout_s: float) -> None:
    """One connection to ``scheduler`` (with the security Dask's settings give a client),
    closed at once: a scheduler that does not answer is one line, not a client left behind
    that retries and fails again as the process exits."""
    import asyncio

    import distributed
    from distributed.comm import connect

    async def knock() -> None:
        args = distributed.Security().get_connection_args("client")
        comm = await connect(scheduler, timeout=timeout_s, **args)
        await comm.close()

    try:
        asyncio.run(knock())
    except (OSError, ValueError, TypeError) as exc:  # refused, timed out, not an address
        raise InputError(
            f"--scheduler {scheduler}: the Dask scheduler could not be reached ({first_line(exc)})"
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
    env = os.environ.get(DASK_LOG_ENV)
    for name in levels:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    os.environ[DASK_LOG_ENV] = "critical"

    def restore() -> None:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        if env is None:
            os.environ.pop(DASK_LOG_ENV, None)
        else:
            os.environ[DASK_LOG_ENV] = env

    return restore


def not_drawn(evaluation: Any, *, curve_arrays: bool) -> dict[str, Any]:
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
