"""What ``ranklens evaluate`` makes of its input, the same for both engines.

The option values that describe the data (``--interval``, ``--relevance``, ``--events``,
``--cost-benefit``, ``--groups``) are parsed here once, and the rules on the data that both
engines apply (the units of ``--groups``, missing values, crossed intervals) are stated here
with their messages: the in-memory reader (:mod:`ranklens.cli._table`) checks them on arrays,
the Dask reader (:mod:`ranklens.cli._dask_inputs`) on Parquet partitions, and either says the
same line.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, cast

from ranklens.cli._errors import InputError, first_line

#: ``--groups`` without a bootstrap would change nothing: refused with this message.
NO_BOOTSTRAP_FOR_GROUPS = (
    "--groups {groups!r} names the units the clustered bootstrap resamples; with {option} "
    "nothing is resampled (give --bootstrap N >= 2, or leave --groups out)"
)

#: ``--drop-na`` that would leave no row.
NOTHING_LEFT = "every row has a missing value; nothing is left to evaluate"


# --------------------------------------------------------------------------------------------
# The columns


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


def used_columns(
    target: str, preds: list[str], pairs: dict[str, tuple[str, str]], weight: str | None
) -> list[str]:
    """The numeric columns a run reads, each once, in the order of the options: the target,
    the predictions, the interval bounds and the weights (not the units of ``--groups``)."""
    bounds = [column for pair in pairs.values() for column in pair]
    return list(dict.fromkeys([target, *preds, *bounds, *([weight] if weight else [])]))


def check_groups_name(groups: str | None, used: list[str], target: str, weight: str | None) -> None:
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


def with_option(message: str, options: dict[Any, str]) -> str:
    """``message`` about ``column 'X' ...`` with the option that named X in front, as the
    in-memory reader says it (``--groups column 'shop' not found ...``)."""
    for column, option in options.items():
        if column is not None and message.startswith(f"column {column!r}"):
            return f"{option} {message}"
    return message


# --------------------------------------------------------------------------------------------
# The rules on the data, with their messages (both engines)


def check_unit_count(n_units: int, column: str) -> None:
    """At least :data:`ranklens._inference.resampling.MIN_UNITS` units: with fewer, the clustered
    bootstrap's resamples repeat and its intervals come out too narrow (the reasons are at
    ``MIN_UNITS``)."""
    from ranklens._inference.resampling import MIN_UNITS, distinct_resamples

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


def missing_values_error(n_bad: int, first: int, per_column: dict[str, int]) -> InputError:
    """The error for rows with missing or infinite values, without ``--drop-na``.

    Parameters
    ----------
    n_bad : int
        The number of such rows.
    first : int
        The 0-based position of the first.
    per_column : dict of str to int
        The count of missing or infinite cells by column (those with none are left out).
    """
    listed = ", ".join(f"{column} ({k})" for column, k in per_column.items() if k)
    return InputError(
        f"{n_bad} row(s) have missing or infinite values (first at data row {first + 1}; "
        f"in {listed}); pass --drop-na to drop them"
    )


def crossed_interval_error(
    lower: str, upper: str, n_crossed: int, row: int, low: float, high: float, *, explicit: bool
) -> InputError:
    """The error for a lower bound above its upper bound in ``n_crossed`` rows, the first at
    0-based ``row`` (the bounds named as ``--interval``'s when ``explicit``, else as
    ``--lower`` and ``--upper``)."""
    low_name, high_name = ("--interval lower", "upper") if explicit else ("--lower", "--upper")
    return InputError(
        f"{low_name} {lower!r} is above {high_name} {upper!r} in {n_crossed} row(s) "
        f"(first at data row {row + 1}: {low:.6g} > {high:.6g}); is the pair swapped?"
    )


# --------------------------------------------------------------------------------------------
# --relevance, --events, --cost-benefit


@dataclasses.dataclass(frozen=True)
class Relevance:
    """What ``--relevance`` names: a function given by its parameters (``function``), or the
    box-plot relevance of the evaluated target (``boxplot``: its ``extremes`` and ``shape``),
    which each engine fits on the target it reads."""

    function: Any = None
    boxplot: tuple[str, str] | None = None


#: The ``extremes`` of a box-plot relevance.
_EXTREMES = ("auto", "both", "high", "low")


def relevance_recipe(spec: str | None) -> Relevance | None:
    """``--relevance`` parsed without the data (see ``ranklens evaluate --help``); None without
    the option. A bad specification is an :class:`InputError` (the library's message)."""
    if spec is None:
        return None
    text = spec.strip().lower()
    if text in _EXTREMES:
        return Relevance(boxplot=(text, "sigmoid"))
    if text.startswith("pchip"):
        extremes = text.partition(":")[2] or "auto"
        if extremes not in _EXTREMES:
            parse_relevance(spec, [0.0, 1.0])  # raises with the library's message
        return Relevance(boxplot=(extremes, "pchip"))
    return Relevance(function=parse_relevance(spec, None))


def parse_relevance(spec: str | None, y: Any) -> Any:
    """The relevance function a ``--relevance`` option names (see ``ranklens evaluate --help``),
    a box-plot relevance fitted on ``y``."""
    if spec is None:
        return None
    from ranklens import relevance as rel

    text = spec.strip().lower()
    try:
        # The user's text goes to relevance_from_boxplot unchecked: it validates ``extremes``
        # itself and its error message is the one reported.
        if text in _EXTREMES:
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
        raise InputError(f"--relevance {spec!r}: {first_line(exc)}") from None
    raise InputError(
        f"--relevance {spec!r} not understood; use auto, both, high, low, pchip[:both|high|low], "
        "sigmoid:low=C,high=C[,k=K] or points:Y:PHI,Y:PHI,..."
    )


def _key_value(item: str) -> tuple[str, float]:
    key, sep, value = item.partition("=")
    if not sep:
        raise InputError(f"expected key=value in --relevance, got {item!r}")
    try:
        return key.strip(), float(value)
    except ValueError:
        raise InputError(f"--relevance: {key.strip()}={value!r} is not a number") from None


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
        message = first_line(exc)
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
    from ranklens._measures.ranked import check_cost_benefit

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
