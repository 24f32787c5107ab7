"""The shared docstring paragraphs: written once, filled in on import, never pasted."""

from __future__ import annotations

import importlib
import inspect
import pathlib

import pytest

from ranklens._foundation.docstrings import (
    INPUT_ERRORS,
    MARKER,
    PARAGRAPHS,
    fill_paragraphs,
    input_errors,
    raises_input_errors,
    shared_paragraphs,
)

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "ranklens"
#: The module that holds the shared paragraphs (the one place they are written).
DOCSTRINGS = SRC / "_foundation" / "docstrings.py"
PUBLIC_MODULES = [
    "agreement", "bands", "compare", "delong", "evaluation", "extremes", "intervals", "listwise",
    "ranking", "relevance", "residual", "robustness", "targeting",
]  # fmt: skip


def _public_functions():
    for name in PUBLIC_MODULES:
        module = importlib.import_module(f"ranklens.{name}")
        for attr, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__:
                yield f"{name}.{attr}", obj


def test_every_marker_is_filled_on_import():
    filled = [
        name
        for name, f in _public_functions()
        if "holds data that are not numbers" in (f.__doc__ or "")
    ]
    assert len(filled) >= 70, filled
    assert not [name for name, f in _public_functions() if INPUT_ERRORS in (f.__doc__ or "")]


def test_the_paragraph_is_written_once_in_the_source():
    pasted = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path != DOCSTRINGS and "not numbers (strings, dates" in path.read_text()
    ]
    assert not pasted, f"use raises_input_errors instead of pasting the paragraph: {pasted}"


def test_the_paragraph_names_the_arrays_and_options():
    text = input_errors("y_true", "y_pred", probabilities=("level",), counts=("k",), also=("if x",))
    assert text.startswith("TypeError\n        If ``y_true`` or ``y_pred`` holds data")
    flat = " ".join(text.split())
    for clause in (
        "if the arrays differ in length;",
        "if ``sample_weight`` is negative, of another length or sums to zero;",
        "if ``level`` is not a number in (0, 1);",
        "if ``k`` is not a positive integer;",
        "if x; if an option is outside its documented range. The message names the argument.",
    ):
        assert clause in flat, clause
    single = " ".join(input_errors("y", weights=False).split())
    assert "If ``y`` holds" in single and "length" not in single and "sample_weight" not in single
    assert "``a``, ``b`` or ``c`` holds" in input_errors("a", "b", "c")
    # every line, as it stands in a docstring (the marker's own four spaces before the first),
    # fits the package's 100 columns
    assert max(len(line) for line in ("    " + text).splitlines()) <= 100


def test_a_docstring_without_the_marker_is_refused():
    def documented():
        """No marker here."""

    with pytest.raises(ValueError, match="has no %\\(input_errors\\)s line"):
        raises_input_errors("y_true")(documented)
    with pytest.raises(ValueError, match="names of the arrays"):
        input_errors()


def test_help_shows_the_filled_section():
    from ranklens import mean_absolute_error

    doc = inspect.getdoc(mean_absolute_error)
    raises = doc.split("Raises\n------\n", 1)[1]
    assert raises.startswith("TypeError\n    If ``y_true`` or ``y_pred`` holds data")


def test_every_shared_paragraph_is_placed_on_import():
    placed = [
        name
        for name, f in _public_functions()
        if PARAGRAPHS["rosset2005"] in (inspect.getdoc(f) or "")
    ]
    assert placed, "no public function shows the shared reference"
    left = [name for name, f in _public_functions() if MARKER.search(f.__doc__ or "")]
    assert not left, f"marker lines left unfilled: {left}"


def test_a_module_that_shares_paragraphs_does_not_also_paste_them():
    pasted = []
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        if path == DOCSTRINGS or "shared_paragraphs" not in text:
            continue
        for name, paragraph in PARAGRAPHS.items():
            indented = "\n".join("    " + line if line else "" for line in paragraph.splitlines())
            if f"{indented}\n" in text:
                pasted.append(f"{path.relative_to(SRC)}: {name}")
    assert not pasted, f"use the marker line instead of pasting the paragraph: {pasted}"


def test_a_paragraph_is_indented_as_its_marker():
    @shared_paragraphs
    def method():
        """Summary.

        Parameters
        ----------
        %(y_true)s
        %(sample_weight)s
        """

    @shared_paragraphs
    def function():
        """Summary.

        Parameters
        ----------
        %(y_true)s
        %(sample_weight)s
        """

    assert inspect.getdoc(method) == inspect.getdoc(function)
    assert inspect.getdoc(method).endswith(
        "y_true : array-like of shape (n,)\n    Observed values of the response.\n"
        "sample_weight : array-like of shape (n,), optional\n    Non-negative case weights."
    )


def test_the_other_decorators_markers_are_left_to_them():
    doc = fill_paragraphs("    %(torgo2009)s\n    %(input_errors)s\n", "f")
    assert doc.endswith(f"\n    {INPUT_ERRORS}\n") and "Torgo" in doc


def test_an_unknown_or_missing_paragraph_is_refused():
    with pytest.raises(ValueError, match="names no known paragraph"):
        fill_paragraphs("    %(no_such_paragraph)s\n", "f")
    with pytest.raises(ValueError, match="has no marker of a shared paragraph"):
        fill_paragraphs("No marker here; an inline %(y_true)s is not a marker line.", "f")


def test_a_shared_paragraph_is_used_at_least_three_times():
    # a paragraph used twice costs as many lines in PARAGRAPHS as the markers save
    source = "".join(path.read_text() for path in SRC.rglob("*.py"))
    uses = {name: source.count(f"%({name})s\n") for name in PARAGRAPHS}
    assert not [name for name, n in uses.items() if n < 3], uses
