"""Bad input and failures of the command line: the exit statuses and the one ``error:`` line."""

from __future__ import annotations

import re
from typing import Any, NoReturn

import typer

#: Exit status when a measure, curve, comparison or output failed.
EXIT_FAILED = 1

#: Exit status for bad input (like a usage error).
EXIT_BAD_INPUT = 2


class InputError(Exception):
    """Bad input from the command line; its message is printed as one line."""


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code``."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's message (else its type's name)."""
    try:
        message = str(exc)
    except Exception:  # an exception whose own message fails: its type still says something
        message = ""
    text = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return text[0] if text else type(exc).__name__


#: The library's parameter names in its messages, as the options that set them.
_OPTION_NAMES = ("cost_benefit", "cost_per_target", "value_margin", "budget", "event_threshold")


def as_options(message: str) -> str:
    """A library message with its parameter names written as the command line's options."""
    pattern = r"\b(" + "|".join(_OPTION_NAMES) + r")\b"
    return re.sub(pattern, lambda m: "--" + m.group(1).replace("_", "-"), message)


def library_check(func: Any, *args: Any, **kwargs: Any) -> Any:
    """Call one of the library's parsers; its ``ValueError`` becomes an :class:`InputError`."""
    try:
        return func(*args, **kwargs)
    except ValueError as exc:
        raise InputError(first_line(exc)) from None
