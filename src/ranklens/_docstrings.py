"""Docstring paragraphs shared by many public functions, written once (as SciPy's ``doccer``).

Every measure checks its inputs the same way (:mod:`ranklens._validation`) and raises the same
errors; its ``Raises`` section says so in one paragraph made here, not pasted into each
docstring. A docstring holds the marker line ``%(input_errors)s`` under its ``Raises`` heading;
the decorator :func:`raises_input_errors` replaces it when the module is imported, so that
``help()``, the doctests and the API reference (whose build reads the same text) show the whole
paragraph.

This module is a foundation: it imports nothing of ranklens.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = [
    "DEVICE_INPUTS",
    "INPUT_ERRORS",
    "computes_where_inputs_live",
    "device_inputs",
    "input_errors",
    "raises_input_errors",
]

#: The line a docstring holds where the shared input errors go (indented as a section entry).
INPUT_ERRORS = "%(input_errors)s"

#: The line a docstring's ``Notes`` hold where the paragraph on device inputs goes.
DEVICE_INPUTS = "%(device_inputs)s"

_F = TypeVar("_F", bound=Callable[..., object])

# Sections of a numpydoc docstring are indented four spaces, an entry's text eight; lines are
# wrapped at the package's line length less the module's indentation of a function body.
_WIDTH = 96


def _names(arrays: Sequence[str]) -> str:
    quoted = [f"``{name}``" for name in arrays]
    if len(quoted) == 1:
        return quoted[0]
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def input_errors(
    *arrays: str,
    weights: bool = True,
    probabilities: Sequence[str] = (),
    counts: Sequence[str] = (),
    nonnegative: Sequence[str] = (),
    also: Sequence[str] = (),
) -> str:
    """The ``TypeError`` and ``ValueError`` entries of a ``Raises`` section, indented for a
    docstring.

    Parameters
    ----------
    *arrays : str
        The array arguments the function checks (``"y_true", "y_pred"``); with two or more, a
        difference of length is an error too.
    weights : bool, default True
        Whether the function takes ``sample_weight``.
    probabilities, counts, nonnegative : sequence of str
        Options that must be a number in (0, 1), a positive integer, or finite and not
        negative.
    also : sequence of str
        Further conditions, each a clause as ``"if ``groups`` has missing labels"``.

    Returns
    -------
    str
        Two entries, ``TypeError`` then ``ValueError``, their first line unindented (it
        replaces the marker, which carries the indentation).
    """
    if not arrays:
        raise ValueError("input_errors needs the names of the arrays the function checks")
    clauses = []
    if len(arrays) > 1:
        clauses.append("if the arrays differ in length")
    if weights:
        clauses.append("if ``sample_weight`` is negative, of another length or sums to zero")
    clauses += [f"if ``{name}`` is not a number in (0, 1)" for name in probabilities]
    clauses += [f"if ``{name}`` is not a positive integer" for name in counts]
    clauses += [f"if ``{name}`` is negative or not finite" for name in nonnegative]
    clauses += list(also)
    type_error = (
        f"If {_names(arrays)} holds data that are not numbers (strings, dates, complex numbers, "
        "objects); the message names the argument."
    )
    value_error = (
        "If an array is not one-dimensional, has too few observations or contains NaN or "
        f"infinite values; {''.join(c + '; ' for c in clauses)}if an option is outside its "
        "documented range. The message names the argument."
    )
    lines = ["TypeError"]
    lines += textwrap.wrap(type_error, _WIDTH, initial_indent="    ", subsequent_indent="    ")
    lines.append("ValueError")
    lines += textwrap.wrap(value_error, _WIDTH, initial_indent="    ", subsequent_indent="    ")
    return "\n    ".join(lines)


def raises_input_errors(
    *arrays: str,
    weights: bool = True,
    probabilities: Sequence[str] = (),
    counts: Sequence[str] = (),
    nonnegative: Sequence[str] = (),
    also: Sequence[str] = (),
) -> Callable[[_F], _F]:
    """Decorator: put :func:`input_errors` (same arguments) where the function's docstring
    holds :data:`INPUT_ERRORS`.

    Raises
    ------
    ValueError
        If the docstring holds no marker (a paragraph asked for and not placed).
    """
    paragraph = input_errors(
        *arrays,
        weights=weights,
        probabilities=probabilities,
        counts=counts,
        nonnegative=nonnegative,
        also=also,
    )
    return _filling(INPUT_ERRORS, paragraph)


def _filling(marker: str, paragraph: str) -> Callable[[_F], _F]:
    """Decorator: replace ``marker`` in the function's docstring by ``paragraph``; a
    ``ValueError`` when the docstring holds no marker (a paragraph asked for and not placed)."""

    def fill(func: _F) -> _F:
        doc = func.__doc__
        if doc is None:  # python -OO strips docstrings: nothing to fill
            return func
        if marker not in doc:
            raise ValueError(f"the docstring of {func.__qualname__} has no {marker} line")
        func.__doc__ = doc.replace(marker, paragraph)
        return func

    return fill


def device_inputs(how: str) -> str:
    """The ``Notes`` paragraph of a measure that computes where its inputs live.

    Parameters
    ----------
    how : str
        What runs on the device and how the value compares with the CPU's, as a clause.

    Returns
    -------
    str
        The paragraph, its first line unindented (it replaces the marker, which carries the
        indentation).
    """
    text = (
        "*Device.* The computation follows the data: inputs on a CUDA device (CuPy arrays, or "
        "DLPack tensors of torch or JAX on a GPU) are computed there through CuPy "
        f'(``pip install "ranklens[gpu]"``): {how}. Host inputs (NumPy arrays, pandas or '
        "polars columns, lists) are computed on the CPU; host arrays given with device ones "
        "are copied to the device."
    )
    return "\n    ".join(textwrap.wrap(text, _WIDTH))


def computes_where_inputs_live(how: str) -> Callable[[_F], _F]:
    """Decorator: put :func:`device_inputs` where the function's docstring holds
    :data:`DEVICE_INPUTS`.

    Raises
    ------
    ValueError
        If the docstring holds no marker.
    """
    return _filling(DEVICE_INPUTS, device_inputs(how))
