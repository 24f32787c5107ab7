"""The options of ``ranklens evaluate``, checked before any data is read.

Every option is checked with the library's own parsers; an option that an engine cannot honour
is refused with one line (never ignored). Both engines go through :func:`check_run`, which
resolves the defaults that differ between them (the number of bootstrap replicates, the time
budget) and returns what the evaluation is called with.
"""

from __future__ import annotations

import dataclasses
import pathlib
from typing import TYPE_CHECKING, Any

from ranklens._foundation.names import did_you_mean
from ranklens.cli._errors import InputError, as_options, first_line, library_check
from ranklens.cli._inputs import (
    NO_BOOTSTRAP_FOR_GROUPS,
    Relevance,
    events_option,
    interval_columns,
    parse_cost_benefit,
    relevance_recipe,
)
from ranklens.cli._outputs import STDOUT

if TYPE_CHECKING:
    from ranklens.evaluation import SegmentOptions

#: More bootstrap replicates than this are refused: the intervals stop changing long before, and
#: the run would take days.
MAX_BOOTSTRAP = 1_000_000

#: The engines of ``--engine``.
ENGINES = ("memory", "dask")


@dataclasses.dataclass(frozen=True)
class Request:
    """The options of one ``ranklens evaluate`` run, as typer parsed them (None: not given)."""

    file: pathlib.Path
    target: str
    preds: list[str]
    interval_specs: list[str]
    lowers: list[str]
    uppers: list[str]
    alpha: float | None
    relevance: str | None
    event_threshold: float | None
    events: str | None
    budget: float | None
    cost_per_target: float | None
    value_margin: float | None
    cost_benefit: str | None
    weight: str | None
    groups: str | None
    bootstrap: int | None
    bootstrap_budget: float | None
    seed: int | None
    inference: str
    drop_na: bool
    html: pathlib.Path | None
    json_path: pathlib.Path | None
    title: str | None
    quiet: bool
    engine: str
    scheduler: str | None
    curve_arrays: bool
    include_replicates: bool
    #: Seconds ``--engine dask`` waits for ``--scheduler`` to answer.
    connect_timeout_s: float
    #: ``--by``: a column per slicing.
    by: list[str] = dataclasses.field(default_factory=list)
    #: ``--scan`` as given (each ``COL[,COL...]``).
    scan: list[str] = dataclasses.field(default_factory=list)
    segment_bins: int | None = None
    min_segment_rows: int | None = None
    min_segment_events: int | None = None
    segment_fdr: str | None = None
    segment_fdr_level: float | None = None
    cross_segments: bool = False
    #: ``--time``: the column of the rows' times.
    time: str | None = None
    #: ``--scheme``: the block scheme.
    scheme: str | None = None
    #: ``--block-length`` as given (``auto`` or a number).
    block_length: str | None = None
    #: ``--window`` as given (a calendar period or a number of rows).
    window: str | None = None
    #: ``--sep``: the field separator of a text file, as given (None: by the file's suffix).
    sep: str | None = None
    #: ``--metrics`` as given (each ``NAME[,NAME...]``; empty: every measure), ``--goal``,
    #: ``--currency``, and ``--verbose`` (the full tables instead of the short summary).
    metrics: list[str] = dataclasses.field(default_factory=list)
    goal: str | None = None
    currency: str | None = None
    verbose: bool = False
    #: ``--positive-label``: the label of an event in a target of two labels (as given).
    positive_label: str | None = None

    @property
    def to_stdout(self) -> bool:
        """``--json -``: stdout carries the JSON document and nothing else."""
        return self.json_path is not None and str(self.json_path) == STDOUT

    @property
    def report_title(self) -> str:
        """``--title``, else ``FILE: TARGET``."""
        return self.title or f"{self.file.name}: {self.target}"


@dataclasses.dataclass(frozen=True)
class Checked:
    """The options as the evaluation takes them, after :func:`check_run`."""

    #: Bootstrap replicates (0: none).
    n_bootstrap: int
    #: The bootstrap's time budget in seconds (the in-memory engine's).
    bootstrap_budget_s: float
    #: The bootstrap's seed.
    seed: int
    #: ``--cost-benefit`` as a 2x2 payoff matrix, or None.
    payoffs: Any
    #: The interval bound columns by model.
    pairs: dict[str, tuple[str, str]]
    #: ``--events`` as the library takes it.
    event_spec: str | float | None
    #: ``--relevance`` parsed (the Dask engine's; the in-memory engine parses it after reading
    #: the data, so that a problem with the file is reported first, as it always was).
    relevance: Relevance | None = None
    #: The columns of ``--by`` and of ``--scan`` (split at commas), ``{"by": [...], "scan":
    #: [...]}``; empty without either.
    segments: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    #: ``--segment-bins``, ``--min-segment-rows``, ``--min-segment-events``, ``--segment-fdr``,
    #: ``--segment-fdr-level`` and ``--cross-segments`` (their defaults when not given).
    segment_options: SegmentOptions = dataclasses.field(
        default_factory=lambda: segment_options(None)
    )
    #: ``--block-length`` as the evaluation takes it: ``"auto"`` or a number of rows.
    block_length: float | str = "auto"
    #: ``--sep`` as the one character pandas splits on (:func:`field_separator`), or None.
    sep: str | None = None
    #: ``--window`` as the evaluation takes it: a calendar period, a number of rows, or None.
    window: str | int | None = None
    #: ``--metrics`` as registry names, each once (None: every measure).
    metrics: tuple[str, ...] | None = None


def check_bootstrap(bootstrap: int) -> int:
    """``--bootstrap``: 0 (none) or 2 to :data:`MAX_BOOTSTRAP` replicates."""
    from ranklens._foundation.validation import check_positive_int

    if bootstrap == 0:
        return 0
    try:
        n = check_positive_int(bootstrap, "--bootstrap", minimum=2)
    except ValueError as exc:
        raise InputError(f"{first_line(exc)} (or 0 for no bootstrap)") from None
    if n > MAX_BOOTSTRAP:
        raise InputError(
            f"--bootstrap {n:,} is more than {MAX_BOOTSTRAP:,} replicates; 1000 to 10000 give "
            "stable intervals"
        )
    return n


def check_output(path: pathlib.Path | None, option: str, *, stdout_ok: bool) -> None:
    """An output file: not a directory, in a directory that exists (``-`` where allowed)."""
    if path is None or (stdout_ok and str(path) == STDOUT):
        return
    if str(path) == STDOUT:
        raise InputError(f"{option} - (stdout) is not supported; give a file name")
    if path.is_dir():
        raise InputError(f"{option} {path} is a directory; give a file name")
    if not path.parent.is_dir():
        raise InputError(f"{option} {path}: directory {path.parent} does not exist")


def _positive(value: float | None, option: str) -> float | None:
    """A positive finite number (the library's number parser, then > 0)."""
    if value is None:
        return None
    from ranklens._foundation.validation import check_finite_number

    number = library_check(check_finite_number, value, option, minimum=0)
    if number == 0:
        raise InputError(f"{option} must be positive; got {value!r}")
    return number


def _check_profit(
    budget: float | None,
    cost_per_target: float | None,
    value_margin: float | None,
    cost_benefit: str | None,
) -> Any:
    """The profit curve's options, checked together; the payoff matrix of ``--cost-benefit``."""
    from ranklens._foundation.validation import check_finite_number
    from ranklens._measures.ranked import profit_spec

    _positive(budget, "--budget")
    _positive(cost_per_target, "--cost-per-target")
    if value_margin is not None:
        library_check(check_finite_number, value_margin, "--value-margin")
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
            raise InputError(f"profit curve: {as_options(first_line(exc))}") from None
    return payoffs


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
    from ranklens._foundation.validation import (
        check_event_threshold,
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
        library_check(check_probability, alpha, "--alpha")
    if event_threshold is not None:
        try:
            check_event_threshold(event_threshold)
        except ValueError as exc:
            raise InputError(as_options(first_line(exc))) from None
    check_bootstrap(bootstrap)
    library_check(check_nonnegative_number, bootstrap_budget, "--bootstrap-budget")
    library_check(check_positive_int, seed, "--seed", minimum=0)
    payoffs = _check_profit(budget, cost_per_target, value_margin, cost_benefit)

    check_output(json_path, "--json", stdout_ok=True)
    check_output(html, "--html", stdout_ok=False)
    if json_path is not None and html is not None and json_path.resolve() == html.resolve():
        raise InputError(f"--json and --html both name {html}")
    return payoffs


def check_engine_options(request: Request) -> None:
    """The engine, and the options that cannot apply to it, refused (never ignored)."""
    engine = request.engine
    if engine not in ENGINES:
        raise InputError(
            f"--engine must be memory or dask; got {engine!r}{did_you_mean(engine, ENGINES)}"
        )
    if request.curve_arrays and engine != "dask":
        raise InputError("--curve-arrays is for --engine dask (memory builds every curve)")
    if request.scheduler is not None and engine != "dask":
        raise InputError(
            "--scheduler is the address of a Dask scheduler: it needs --engine dask (the "
            "memory engine runs in this process)"
        )
    if request.include_replicates and request.json_path is None:
        raise InputError(
            "--include-replicates adds the bootstrap replicates to the JSON document: give "
            "--json FILE (or --json - for stdout) too"
        )
    if request.include_replicates and engine == "memory" and request.bootstrap == 0:
        raise InputError(
            "--include-replicates with --bootstrap 0: no replicates are drawn (give "
            "--bootstrap N >= 2)"
        )


def _check_inference(inference: str) -> None:
    from ranklens.evaluation import INFERENCE

    if inference not in INFERENCE:
        raise InputError(
            f"--inference must be one of {', '.join(INFERENCE)}; got {inference!r}"
            + did_you_mean(inference, INFERENCE)
        )


def _options_checked(request: Request, n_bootstrap: int, budget_s: float, seed: int) -> Any:
    """:func:`check_options` on the request, with the engine's replicates, budget and seed."""
    return check_options(
        preds=request.preds,
        lowers=request.lowers,
        uppers=request.uppers,
        alpha=request.alpha,
        event_threshold=request.event_threshold,
        budget=request.budget,
        cost_per_target=request.cost_per_target,
        value_margin=request.value_margin,
        cost_benefit=request.cost_benefit,
        bootstrap=n_bootstrap,
        bootstrap_budget=budget_s,
        seed=seed,
        json_path=request.json_path,
        html=request.html,
        interval_specs=request.interval_specs,
    )


def check_run(request: Request) -> Checked:
    """Every option of ``request`` that needs no data, for its engine (after
    :func:`check_engine_options`); the first problem is an :class:`InputError`.

    The in-memory engine draws 1000 replicates within 60 s unless told otherwise; the Dask
    engine draws none without ``--bootstrap N`` (each replicate costs a hash of every row in
    every pass) and has no time budget, so the options that only replicates use are refused
    there without it. The checks run in the order each engine has always run them, so that
    of several problems the same one is reported.
    """
    metrics = check_goal_options(request)
    check_boxplot_target(request)
    checked = _check_engine_run(request)
    return checked if metrics is None else dataclasses.replace(checked, metrics=metrics)


def check_boxplot_target(request: Request) -> None:
    """A box-plot ``--relevance`` with ``--positive-label`` refused, by both engines alike.

    The box-plot relevance (Ribeiro 2011) marks as extreme the values beyond Tukey's fences
    ``Q1 - 1.5 IQR`` and ``Q3 + 1.5 IQR`` of a continuous target. The target of
    ``--positive-label`` is 0/1: with fewer than a quarter of events (or of non-events) its
    quartiles meet (IQR 0, no tail), and otherwise its fences, -1.5 and 2.5, leave both values
    inside (no extremes); and the measures of a 0/1 target use no relevance.

    References
    ----------
    Ribeiro, R. P. (2011). *Utility-based Regression*. PhD thesis, University of Porto.
    """
    if request.positive_label is None:
        return
    recipe = relevance_recipe(request.relevance)
    if recipe is not None and recipe.boxplot is not None:
        raise InputError(
            f"--relevance {request.relevance!r}: a box-plot relevance marks the extremes of a "
            f"continuous target (beyond Tukey's fences); --positive-label "
            f"{request.positive_label!r} makes the target 0/1, which has no extremes and whose "
            "measures use no relevance; leave --relevance out (or give a relevance by its "
            "parameters, sigmoid:... or points:...)"
        )


def _check_engine_run(request: Request) -> Checked:
    """:func:`check_run` but for ``--metrics``, ``--goal`` and ``--currency``."""
    if request.engine == "dask":
        if request.sep is not None:
            raise InputError(
                "--sep is for a text file, which --engine dask does not read (it reads Parquet "
                "files); leave it out, or use --engine memory"
            )
        return _check_dask_run(request)
    sep = field_separator(request.sep)
    n_bootstrap = 1000 if request.bootstrap is None else request.bootstrap
    seed = 0 if request.seed is None else request.seed
    budget_s = 60.0 if request.bootstrap_budget is None else request.bootstrap_budget
    payoffs = _options_checked(request, n_bootstrap, budget_s, seed)
    pairs = interval_columns(request.preds, request.interval_specs, request.lowers, request.uppers)
    _check_inference(request.inference)
    if request.inference == "bootstrap" and not n_bootstrap:
        raise InputError(
            "--inference bootstrap takes every interval and test from the bootstrap; with "
            "--bootstrap 0 there would be none (give --bootstrap N >= 2, or --inference auto "
            "for the analytic intervals alone)"
        )
    if request.groups is not None and not n_bootstrap:
        raise InputError(
            NO_BOOTSTRAP_FOR_GROUPS.format(groups=request.groups, option="--bootstrap 0")
        )
    block_length = check_time_options(request, pairs, n_bootstrap)
    segments = check_segments(request, pairs)
    return Checked(
        n_bootstrap=n_bootstrap,
        bootstrap_budget_s=budget_s,
        seed=seed,
        payoffs=payoffs,
        pairs=pairs,
        event_spec=events_option(request.events),
        segments=segments,
        segment_options=segment_options(request),
        block_length=block_length,
        window=check_window(request),
        sep=sep,
    )


def check_window(request: Request) -> str | int | None:
    """``--window``, checked without the data: a calendar period (``Y``, ``Q``, ``M``, ``W``,
    ``D``, ..., as the library takes them) or a number of rows >= 1; a calendar period only
    with ``--time``; at least two ``--pred`` columns. Returns it as the evaluation takes it
    (a number of rows as an int)."""
    given = request.window
    if given is None:
        return None
    text = given.strip()
    if len(request.preds) < 2:
        raise InputError(
            "--window compares the models in every window: give at least two --pred columns "
            f"(got {len(request.preds)})"
        )
    from ranklens.timeseries import window_period

    try:
        window = window_period(int(text) if text.lstrip("+-").isdigit() else text)
    except ValueError:
        raise InputError(
            "--window must be a calendar period of --time (Y, Q, M, W or D: years, quarters, "
            f"months, weeks, days) or a number of rows >= 1; got {given!r}"
        ) from None
    if isinstance(window, str) and request.time is None:
        raise InputError(
            f"--window {given} is a calendar period: it needs --time COL (the rows' times); "
            "without --time give a number of rows per window (e.g. --window 250)"
        )
    return window


#: The schemes of ``--scheme``.
SCHEMES = ("stationary", "circular")

#: The scheme of ``--scheme`` with ``--engine dask``: its fixed, non-overlapping blocks.
DASK_SCHEMES = ("blocks",)


def _check_scheme(request: Request) -> None:
    """``--scheme``: one of the engine's block schemes (the Dask engine's fixed blocks alone:
    it cannot draw the in-memory engine's blocks from random starting rows)."""
    scheme = request.scheme
    if scheme is None:
        return
    if request.engine != "dask":
        if scheme not in SCHEMES:
            raise InputError(
                f"--scheme must be one of {', '.join(SCHEMES)}; got {scheme!r}"
                + did_you_mean(scheme, SCHEMES)
            )
        return
    if scheme not in DASK_SCHEMES:
        why = (
            ": the stationary and circular bootstraps draw blocks from random starting rows, "
            "which the Dask engine cannot draw partition by partition (use --engine memory for "
            "them)"
            if scheme in SCHEMES
            else ""
        )
        raise InputError(
            "--scheme with --engine dask must be blocks (fixed, non-overlapping blocks of "
            f"consecutive rows, the default with --time); got {scheme!r}{why}"
        )


def _block_length(request: Request) -> float | str:
    """``--block-length``: ``auto`` or a number of rows >= 1 (a whole number with ``--engine
    dask``, whose blocks are fixed), as the evaluation takes it."""
    from ranklens._foundation.validation import check_finite_number

    given = request.block_length
    if given is None or given.strip().lower() == "auto":
        return "auto"
    try:
        length = check_finite_number(float(given), "--block-length", minimum=1)
    except ValueError:
        raise InputError(
            f"--block-length must be auto or a number of rows >= 1; got {given!r}"
        ) from None
    if request.engine == "dask" and not float(length).is_integer():
        raise InputError(
            "--block-length with --engine dask must be auto or a whole number of rows >= 1 "
            f"(its blocks are fixed); got {given!r}"
        )
    return length


def check_time_options(
    request: Request, pairs: dict[str, tuple[str, str]], n_bootstrap: int
) -> float | str:
    """``--time``, ``--scheme`` and ``--block-length``, checked without the data: the column a
    name of its own, the scheme known to the engine, the length ``auto`` or a number >= 1 and
    only with a block scheme, the block scheme with replicates and without ``--groups``.
    Returns the block length as the evaluation takes it."""
    _check_scheme(request)
    length = _block_length(request)
    dask = request.engine == "dask"
    blocks = request.time is not None or request.scheme is not None
    if not blocks:
        if request.block_length is not None:
            schemes = "blocks" if dask else "stationary|circular"
            raise InputError(
                "--block-length sets the blocks of the block bootstrap: give --time COL (rows "
                f"in time order) or --scheme {schemes} too"
            )
        return length
    option = "--time" if request.time is not None else f"--scheme {request.scheme}"
    if request.groups is not None:
        raise InputError(
            f"{option} resamples blocks of consecutive rows and --groups whole units; the two "
            "cannot be combined (leave one out)"
        )
    if not n_bootstrap:
        without = (
            "--engine dask and no --bootstrap N"
            if dask and request.bootstrap is None
            else "--bootstrap 0"
        )
        raise InputError(
            f"{option} resamples blocks of consecutive rows; with {without} nothing is "
            "resampled (give --bootstrap N >= 2)"
        )
    if request.time is not None:
        measured = {request.target: "--target", **dict.fromkeys(request.preds, "--pred")}
        measured.update({column: "--interval" for pair in pairs.values() for column in pair})
        if request.weight is not None:
            measured[request.weight] = "--weight"
        if request.time in measured:
            raise InputError(
                f"--time {request.time!r} is also the {measured[request.time]} column; name "
                "the column of the rows' times"
            )
    return length


def check_block_rows(request: Request, checked: Checked, n: int) -> None:
    """The block length against the ``n`` rows read: a number at most ``n``, ``auto`` on at
    least 9 rows (its autocorrelations need them)."""
    if request.time is None and request.scheme is None:
        return
    length = checked.block_length
    if isinstance(length, str):
        if n < 9:
            raise InputError(
                f"--block-length auto needs at least 9 rows to choose a length; got {n} (give "
                "--block-length N)"
            )
    elif length > n:
        raise InputError(f"--block-length {length:g} is longer than the {n} rows")


def check_window_times(request: Request, checked: Checked, times: Any) -> None:
    """A calendar ``--window`` against the ``--time`` column read: its values must be dates or
    times, not numbers (a time index has no calendar)."""
    if not isinstance(checked.window, str) or times is None:
        return
    import pandas as pd

    if pd.api.types.is_numeric_dtype(times.dtype):
        raise InputError(
            f"--window {request.window} is a calendar period: the --time column "
            f"{request.time!r} holds numbers, not dates or times; give a number of rows per "
            "window (e.g. --window 250)"
        )


def check_segments(request: Request, pairs: dict[str, tuple[str, str]]) -> dict[str, list[str]]:
    """The columns of ``--by`` and ``--scan`` (``{"by": [...], "scan": [...]}``, the options
    given), and the ``--segment-*`` options, checked without the data: each column a name of
    its own (not the target, a prediction, an interval bound, the weights or the units), named
    once per option; the options in range and only with a slicing (``--cross-segments`` only
    with two ``--by`` columns or more)."""

    scan = [column.strip() for given in request.scan for column in given.split(",")]
    columns = {"--by": list(request.by), "--scan": scan}
    measured = {request.target: "--target", **dict.fromkeys(request.preds, "--pred")}
    measured.update({column: "--interval" for pair in pairs.values() for column in pair})
    if request.weight is not None:
        measured[request.weight] = "--weight"
    for option, names in columns.items():
        for column in names:
            if not column:
                raise InputError(f"{option} names an empty column; give COL[,COL...]")
            if names.count(column) > 1:
                raise InputError(f"{option} {column!r} is given twice")
            if column in measured:
                raise InputError(
                    f"{option} {column!r} is also the {measured[column]} column; slice the rows "
                    "by a column of its own (region, tier, channel)"
                )
            if column == request.groups:
                raise InputError(
                    f"{option} {column!r} is also the --groups column: each segment would hold "
                    "one unit, which the clustered bootstrap cannot resample"
                )
    given = any(columns.values())
    for option, names in columns.items():
        if names and len(request.preds) < 2:
            raise InputError(
                f"{option} compares the models in every segment: give at least two --pred "
                f"columns (got {len(request.preds)})"
            )
    _check_segment_options(request, given, windowed=request.window is not None)
    return {option.lstrip("-"): names for option, names in columns.items() if names}


def _check_segment_options(request: Request, given: bool, *, windowed: bool = False) -> None:
    """``--segment-bins``, ``--min-segment-rows``, ``--min-segment-events``, ``--segment-fdr``,
    ``--segment-fdr-level`` and ``--cross-segments``: only with a slicing (those that judge the
    windows, :data:`ranklens.evaluation.SegmentOptions.WINDOW_FIELDS`, with ``--window`` too),
    and in range by the library's check, named by the options."""
    from ranklens.evaluation import SegmentOptions

    names = {field: _option(argument) for field, argument in SegmentOptions.ARGUMENTS.items()}
    for field, option in names.items():
        value = getattr(request, SegmentOptions.ARGUMENTS[field])
        window = field in SegmentOptions.WINDOW_FIELDS
        if value is None or value is False or given or (windowed and window):
            continue
        also = " or --window" if window else ""
        raise InputError(
            f"{option} is for the evaluation by segment: give --by COL or --scan COL{also} too"
        )
    library_check(segment_options(request).check_values, names)
    if request.cross_segments and len(request.by) < 2:
        raise InputError(
            "--cross-segments crosses the --by columns: give two --by columns or more "
            f"(got {len(request.by)})"
        )


def _option(argument: str) -> str:
    """The command line's option of an argument of :func:`ranklens.evaluate_models`."""
    return "--" + argument.replace("_", "-")


def segment_options(request: Request | None) -> SegmentOptions:
    """The ``--segment-*`` options as the evaluation takes them (defaults where not given; all
    of them without a request). The evaluation module is imported here, not at the top, so
    that the command line starts without the library's numerical modules."""
    from ranklens.evaluation import SegmentOptions

    if request is None:
        return SegmentOptions()
    given = {
        field: getattr(request, argument) for field, argument in SegmentOptions.ARGUMENTS.items()
    }
    return SegmentOptions(**{field: value for field, value in given.items() if value is not None})


def field_separator(sep: str | None) -> str | None:
    """``--sep`` as the one character pandas splits on (``\\t`` written out is a tab), or None.

    Raises
    ------
    InputError
        If it is not one character.
    """
    if sep is None:
        return None
    char = "\t" if sep == "\\t" else sep
    if len(char) != 1 or char in '\r\n"':
        raise InputError(
            f"--sep must be one character (e.g. ';', or \\t for a tab) other than a quote or a "
            f"line break; got {sep!r}"
        )
    return char


def _check_dask_run(request: Request) -> Checked:
    """:func:`check_run` for ``--engine dask``."""
    pairs = interval_columns(request.preds, request.interval_specs, request.lowers, request.uppers)
    n_bootstrap = _dask_replicates(request)
    payoffs = _options_checked(
        request, n_bootstrap, 0.0, 0 if request.seed is None else request.seed
    )
    if (payoffs is not None or request.value_margin is not None) and not request.curve_arrays:
        profit = "--cost-benefit" if request.cost_benefit is not None else "--value-margin"
        raise InputError(
            f"{profit} with --engine dask: the profit curve is built as arrays, one point per "
            "distinct prediction held by the client; add --curve-arrays"
        )
    relevance = relevance_recipe(request.relevance)
    block_length = check_time_options(request, pairs, n_bootstrap)
    segments = check_segments(request, pairs)
    return Checked(
        n_bootstrap=n_bootstrap,
        bootstrap_budget_s=0.0,
        seed=0 if request.seed is None else request.seed,
        payoffs=payoffs,
        pairs=pairs,
        event_spec=events_option(request.events),
        relevance=relevance,
        segments=segments,
        segment_options=segment_options(request),
        block_length=block_length,
        window=check_window(request),
    )


def _dask_replicates(request: Request) -> int:
    """The Dask engine's number of replicates (0 without ``--bootstrap N``), after refusing the
    options it cannot honour: a time budget, an unknown ``--inference``, ``--groups`` without
    replicates, and the options that only replicates use."""
    if request.bootstrap_budget is not None:
        raise InputError(
            "--bootstrap-budget is for --engine memory: the Dask engine computes every "
            "replicate in the same passes and has no time budget (choose --bootstrap N instead)"
        )
    _check_inference(request.inference)
    n_boot = 0 if request.bootstrap is None else check_bootstrap(request.bootstrap)
    if request.groups is not None and not n_boot:
        option = (
            "--engine dask and no --bootstrap N" if request.bootstrap is None else "--bootstrap 0"
        )
        raise InputError(NO_BOOTSTRAP_FOR_GROUPS.format(groups=request.groups, option=option))
    if not n_boot:
        _refuse_without_replicates(request.inference, request.seed, request.include_replicates)
    return n_boot


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


def check_goal_options(request: Request) -> tuple[str, ...] | None:
    """``--metrics`` (each ``NAME[,NAME...]``, registered names, repeats kept once), ``--goal``
    (one of the goals, with a chosen measure when ``--metrics`` is given) and ``--currency``
    (at most 5 characters), as :func:`ranklens.evaluate_models` checks them but naming the
    options; the measures (None: every one)."""
    from ranklens._engines.entry import GOALS, MAX_CURRENCY
    from ranklens.metrics import available_metrics, get_metric

    names: tuple[str, ...] | None = None
    if request.metrics:
        given = [name.strip() for item in request.metrics for name in item.split(",")]
        if not any(given):
            raise InputError(
                "--metrics names no measure: give one or more, e.g. --metrics "
                "kendall_tau,roc_auc (or leave it out for every measure)"
            )
        if "" in given:
            raise InputError(f"--metrics has an empty name: {','.join(request.metrics)!r}")
        known = available_metrics()
        for name in given:
            if name not in known:
                raise InputError(
                    f"--metrics: unknown measure {name!r}{did_you_mean(name, known)}; the "
                    f"measures: {', '.join(known)}"
                )
        names = tuple(dict.fromkeys(given))
    goal = request.goal
    if goal is not None:
        if goal not in GOALS:
            raise InputError(
                f"--goal must be one of {', '.join(GOALS)}; got {goal!r}{did_you_mean(goal, GOALS)}"
            )
        if names is not None and not any(get_metric(m).family in GOALS[goal] for m in names):
            raise InputError(
                f"--goal {goal}: none of its measures (family {', '.join(GOALS[goal])}) is in "
                f"--metrics {','.join(names)}; add one, or choose another goal"
            )
    currency = request.currency
    if currency is not None and not (
        currency.strip() and len(currency.strip()) <= MAX_CURRENCY and currency.isprintable()
    ):
        raise InputError(
            f"--currency must be a symbol or code of 1 to {MAX_CURRENCY} characters (e.g. $, "
            f"€, EUR); got {currency!r}"
        )
    return names


def shared_options(
    request: Request, checked: Checked, relevance: Any, n_dropped: int
) -> dict[str, Any]:
    """The options of :func:`ranklens.evaluate_models` that both engines take, by its names."""
    return dict(
        title=request.report_title,
        target=request.target,
        alpha=request.alpha,
        relevance=relevance,
        event_threshold=request.event_threshold,
        events=checked.event_spec,
        budget=request.budget,
        cost_per_target=request.cost_per_target,
        value_margin=request.value_margin,
        cost_benefit=checked.payoffs,
        n_bootstrap=checked.n_bootstrap,
        random_state=checked.seed,
        n_dropped=n_dropped,
        metrics=checked.metrics,
        goal=request.goal,
        currency=request.currency,
    )
