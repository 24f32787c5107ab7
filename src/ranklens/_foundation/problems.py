"""Calling a registered measure without letting a warning or an error escape: the problems.

The evaluation pipeline (:func:`ranklens.evaluate_models`) and the Dask engine call every
registered measure the same way: with the task parameters its signature asks for
(:func:`fit_kwargs`), its warnings and exceptions caught and kept as a :class:`Problem` beside
the value (:func:`score_quietly`, :func:`call_quietly`), and its description read from its
registry entry (:func:`metric_info`). Both report the same problems for the same data.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ranklens._foundation.results import Result
from ranklens.exceptions import DomainError, RanklensWarning, UndefinedMetricWarning

__all__ = [
    "PROBLEM_KINDS",
    "Problem",
    "as_float",
    "call_quietly",
    "exception_problem",
    "fit_kwargs",
    "metric_info",
    "score_quietly",
]


#: The kinds of :class:`Problem`: a value that stands with a warning about it, a measure left out
#: for want of a parameter, a measure undefined for this data, and a measure that failed.
PROBLEM_KINDS = ("note", "skipped", "undefined", "failed")


@dataclasses.dataclass(frozen=True)
class Problem(Result):
    """Why a value is missing or qualified: its kind and the message that explains it.

    Attributes
    ----------
    kind : {"note", "skipped", "undefined", "failed"}
        ``"undefined"``: the measure is not defined for this data (it returned NaN with a ranklens
        warning, or rejected the data with its own ``ValueError``); ``"skipped"``: it needs a
        parameter that was not given; ``"failed"``: it raised any other exception, or returned
        NaN without a warning saying why; ``"note"``: the value stands, with a warning about it.
    message : str
        The warning or exception text (an exception's type name leads a failure's message).
    """

    kind: str
    message: str

    def __post_init__(self) -> None:
        if self.kind not in PROBLEM_KINDS:
            raise ValueError(f"kind must be one of {PROBLEM_KINDS}; got {self.kind!r}")

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"

    @property
    def first_line(self) -> str:
        """The message's first non-empty line (a numba error runs to dozens of lines)."""
        lines = [line.strip() for line in self.message.splitlines() if line.strip()]
        return lines[0] if lines else self.kind


def metric_info(spec: Any, context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the report and ``results.json`` say about a measure.

    ``direction`` is one of ``"higher"``, ``"lower"``, ``"target"`` (best closest to ``target``,
    e.g. coverage against the nominal ``1 - alpha``) or ``"neutral"`` (never ranked);
    ``higher_is_better`` is True or False for the first two and None (JSON null) otherwise.

    Parameters
    ----------
    spec : MetricSpec
        The measure's registry entry.
    context : mapping, optional
        The task parameters (a target value may depend on them: ``alpha``).

    Returns
    -------
    dict
        ``family``, ``direction``, ``target``, ``higher_is_better``, ``inputs``,
        ``order_dependent``, ``description``, ``plain_name`` and ``meaning``.
    """
    target = spec.target_value(**dict(context or {}))
    return {
        "family": spec.family,
        "direction": spec.direction,
        "target": None if target is None or not math.isfinite(target) else target,
        "higher_is_better": spec.higher_is_better,
        "inputs": spec.inputs,
        "order_dependent": bool(spec.order_dependent),
        "description": spec.description,
        "plain_name": spec.plain_name,
        "meaning": spec.meaning,
    }


def fit_kwargs(
    func: Callable[..., Any], n_positional: int, context: Mapping[str, Any]
) -> tuple[dict[str, Any], Problem | None]:
    """Keyword arguments of ``func`` that the context provides; or why it cannot be called.

    A registered measure may take task parameters (``relevance``, ``budget``, ``alpha``, ...).
    Those the user gave are passed by name; a required parameter nobody gave means the measure
    is skipped with a message, never called with a guess.

    Parameters
    ----------
    func : callable
        The measure.
    n_positional : int
        Its leading positional parameters, given by the caller (the data).
    context : mapping
        The task parameters by name (None: not given).

    Returns
    -------
    kwargs : dict
        The keyword arguments to pass.
    problem : Problem or None
        A ``"skipped"`` problem naming a required parameter nobody gave (``kwargs`` then empty).
    """
    kwargs: dict[str, Any] = {}
    params = list(inspect.signature(func).parameters.values())
    for param in params[n_positional:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        value = context.get(param.name)
        if value is not None:
            kwargs[param.name] = value
        elif param.default is param.empty:
            return {}, Problem("skipped", f"needs parameter {param.name!r}")
    return kwargs, None


#: Distinct warnings kept per problem (a comparison of many measures can raise dozens).
_MAX_MESSAGES = 3


def _capture(
    func: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[Any, Exception | None, list[warnings.WarningMessage]]:
    """``(value, exception, warnings)`` of one call; nothing escapes."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = func(*args, **kwargs)
        except Exception as exc:  # a measure failing for this input must not stop the rest
            return None, exc, list(caught)
    return value, None, list(caught)


def _warning_text(caught: list[warnings.WarningMessage]) -> str:
    messages = list(dict.fromkeys(str(w.message) for w in caught))
    if len(messages) > _MAX_MESSAGES:
        more = len(messages) - _MAX_MESSAGES
        messages = [*messages[:_MAX_MESSAGES], f"and {more} more warning(s)"]
    return "; ".join(messages)


def exception_problem(exc: Exception) -> Problem:
    """The problem an exception raised by a measure stands for.

    Parameters
    ----------
    exc : Exception
        What the measure raised.

    Returns
    -------
    Problem
        ``"undefined"`` for a :class:`~ranklens.exceptions.DomainError`, else ``"failed"``
        (with the exception's type name).
    """
    text = str(exc).strip()
    # A DomainError is the library saying "this measure is not defined for these data" (Log-RMSE
    # of a 0/1 target); any other exception, ranklens's own ValueErrors included, is a failure.
    if isinstance(exc, DomainError):
        return Problem("undefined", text or type(exc).__name__)
    return Problem("failed", f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def call_quietly(func: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Problem | None]:
    """Call ``func``; return ``(result, problem)`` with warnings and errors as a :class:`Problem`.

    For results that are not a single number (curves, tables, the comparison): an exception gives
    ``(None, problem)`` (undefined or failed, see :func:`exception_problem`); warnings give the
    result with an ``"undefined"`` problem when one is an UndefinedMetricWarning, else a note.

    Parameters
    ----------
    func : callable
        What to call.
    *args, **kwargs
        Its arguments.

    Returns
    -------
    result : Any
        What it returned (None when it raised).
    problem : Problem or None
        Its warnings or its exception.
    """
    value, exc, caught = _capture(func, *args, **kwargs)
    if exc is not None:
        return None, exception_problem(exc)
    if not caught:
        return value, None
    undefined = any(issubclass(w.category, UndefinedMetricWarning) for w in caught)
    return value, Problem("undefined" if undefined else "note", _warning_text(caught))


def score_quietly(
    func: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[float, Problem | None]:
    """A scalar measure as ``(value, problem)``: a value, undefined, or failed.

    NaN is "undefined" only with a ranklens warning that says why: the library's contract is NaN
    together with an UndefinedMetricWarning, so a bare NaN (or a result that is not a number) is
    a failure, never a silent blank.

    Parameters
    ----------
    func : callable
        The measure.
    *args, **kwargs
        Its arguments.

    Returns
    -------
    value : float
        The measure's value (NaN when undefined or failed).
    problem : Problem or None
        A note on a value that stands, or why there is no value.
    """
    value, exc, caught = _capture(func, *args, **kwargs)
    if exc is not None:
        return math.nan, exception_problem(exc)
    number = as_float(value)
    text = _warning_text(caught)
    if not math.isnan(number):
        return number, (Problem("note", text) if caught else None)
    if any(issubclass(w.category, RanklensWarning) for w in caught):
        return math.nan, Problem("undefined", text)
    if isinstance(value, float | np.floating):
        reason = "returned NaN without a warning saying why"
    else:
        reason = f"returned {type(value).__name__} {value!r:.40}, not a number"
    return math.nan, Problem("failed", reason + (f" ({text})" if text else ""))


def as_float(value: Any) -> float:
    """A measure's result as a float: NaN for anything that is not a number (a bool included).

    Parameters
    ----------
    value : Any
        The result.

    Returns
    -------
    float
        The number, or NaN.
    """
    if isinstance(value, bool | np.bool_):
        return math.nan  # a measure returns a number; True is not a score
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan
