"""Docstring paragraphs shared by many public functions, written once (as SciPy's ``doccer``).

Every measure checks its inputs the same way (:mod:`ranklens._foundation.validation`) and raises the
same errors; its ``Raises`` section says so in one paragraph made here, not pasted into each
docstring. A docstring holds the marker line ``%(input_errors)s`` under its ``Raises`` heading;
the decorator :func:`raises_input_errors` replaces it when the module is imported, so that
``help()``, the doctests and the API reference (whose build reads the same text) show the whole
paragraph.

The same holds for the paragraphs that many docstrings repeat word for word: a parameter
(``y_true``, ``sample_weight``, a relevance function), a reference (Rosset et al. 2005) and the
like. Each is written once in :data:`PARAGRAPHS`; a docstring holds its marker line
(``%(sample_weight)s``) where it goes, and the decorator :func:`shared_paragraphs` puts it there,
indented as the marker is.

A family of measures that differ by a number or a word (the lift at 5, 10 and 20 %) is made by one
factory from one docstring template; :func:`made_function` gives each function its public name
and its filled docstring, so that ``help()``, :func:`inspect.signature`, pickling and the API
reference see it as if it were written out.

This module is a foundation: it imports nothing of ranklens.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = [
    "DEVICE_INPUTS",
    "INPUT_ERRORS",
    "MARKER",
    "PARAGRAPHS",
    "computes_where_inputs_live",
    "device_inputs",
    "fill_paragraphs",
    "input_errors",
    "made_function",
    "raises_input_errors",
    "shared_paragraphs",
    "wrapped",
]

#: The line a docstring holds where the shared input errors go (indented as a section entry).
INPUT_ERRORS = "%(input_errors)s"

#: The line a docstring's ``Notes`` hold where the paragraph on device inputs goes.
DEVICE_INPUTS = "%(device_inputs)s"

#: A marker line: a paragraph's name as ``%(name)s``, alone on its line after the indentation.
MARKER = re.compile(r"^(?P<indent>[ ]*)%\((?P<name>\w+)\)s[ ]*$", re.MULTILINE)

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
    return wrapped(text)


def wrapped(text: str, indent: int = 4) -> str:
    """``text`` wrapped at the docstrings' width for a place ``indent`` spaces deep in a
    docstring, its first line unindented (the template's marker line holds the indentation);
    words and hyphenated words are never broken."""
    lines = textwrap.wrap(text, _WIDTH, break_long_words=False, break_on_hyphens=False)
    return f"\n{' ' * indent}".join(lines)


def computes_where_inputs_live(how: str) -> Callable[[_F], _F]:
    """Decorator: put :func:`device_inputs` where the function's docstring holds
    :data:`DEVICE_INPUTS`.

    Raises
    ------
    ValueError
        If the docstring holds no marker.
    """
    return _filling(DEVICE_INPUTS, device_inputs(how))


def _dedented(paragraphs: dict[str, str]) -> dict[str, str]:
    return {name: textwrap.dedent(text).strip("\n") for name, text in paragraphs.items()}


#: The named paragraphs :func:`shared_paragraphs` places, written at the indentation of a section
#: entry of a top-level function (four spaces), which is taken off here; the marker's own
#: indentation is put back when the paragraph is placed.
PARAGRAPHS: dict[str, str] = _dedented({
    # Parameters: the observations and predictions.
    "y_true": """
    y_true : array-like of shape (n,)
        Observed values of the response.
    """,
    "y_true_finite": """
    y_true : array-like of shape (n,)
        Observed values of the response (finite).
    """,
    "y_pred": """
    y_pred : array-like of shape (n,)
        Predicted values.
    """,
    "y_pred_finite": """
    y_pred : array-like of shape (n,)
        Predicted values (finite).
    """,
    # Parameters: what a prediction of the mean or of a quantile is scored by.
    "calibration_score": """
    score : {"squared_error", "pinball"}, default "squared_error"
        What ``y_pred`` predicts and how it is scored: the mean, by the squared error, or the
        ``quantile_level``-quantile, by the pinball loss.
    quantile_level : float in (0, 1), optional
        The level of that quantile; required with ``score="pinball"`` only.
    """,
    # Parameters: case weights, by what the measure does with them.
    "sample_weight": """
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights.
    """,
    "sample_weight_rows": """
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights (integer weights are the same as repeated rows).
    """,
    "sample_weight_terms": """
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights; they multiply every term.
    """,
    "sample_weight_pairs": """
    sample_weight : array-like of shape (n,), optional
        Non-negative case weights; a pair of rows counts ``w_i w_j`` (integer weights are the same
        as repeated rows).
    """,
    # Parameters: rank measures, where only the order of the values matters.
    "y_true_order": """
    y_true : array-like of shape (n,)
        True values of the response (any real numbers; only their order matters).
    """,
    "y_pred_order": """
    y_pred : array-like of shape (n,)
        Predictions or scores of the model (only their order matters).
    """,
    # Parameters: targeting measures, which rank by score and count events.
    "y_true_events": """
    y_true : array-like of shape (n,)
        Binary outcome (0/1 or bool) or a continuous response.
    """,
    "y_pred_scores": """
    y_pred : array-like of shape (n,)
        Scores; the rows with the largest scores are targeted first.
    """,
    "events": """
    events : str, number, callable or None, default None
        Which rows count as events for a continuous ``y_true`` (see :func:`roc_curve`); None means
        ``y_true`` itself when it is binary, else the true top 10 % (``"top:0.1"``).
    """,
    # Parameters: rare extremes (Torgo & Ribeiro 2009).
    "relevance": """
    relevance : callable, optional
        The relevance function phi: R -> [0, 1]; default the box-plot relevance of ``y_true``
        (:func:`ranklens.relevance.relevance_from_boxplot`).
    """,
    # Parameters: prediction intervals.
    "interval_y_true": """
    y_true : array-like of shape (n,)
        Observations.
    """,
    "interval_bounds": """
    lower, upper : array-like of shape (n,)
        Bounds of the prediction intervals (``lower <= upper``).
    """,
    "interval_alpha": """
    alpha : float in (0, 1)
        Nominal miss rate: the intervals are central ``(1 - alpha)`` intervals.
    """,
    "interval_alpha_unused": """
    alpha : float in (0, 1), optional
        Nominal miss rate; only validated (the common signature of interval measures).
    """,
    # Parameters: the report.
    "evaluation": """
    evaluation : ModelEvaluation
        A result of :func:`ranklens.report.evaluate_models`.
    """,
    # Parameters: the planning of a study's size.
    "power_alpha": """
    power : float, default 0.8
        The probability of detecting it, in (0, 1).
    alpha : float, default 0.05
        The test's level, in (0, 1).
    """,
    # References.
    "rosset2005": """
    Rosset, S., Perlich, C. and Zadrozny, B. (2005). Ranking-based evaluation of regression
    models. *Proceedings of the Fifth IEEE International Conference on Data Mining (ICDM 2005)*,
    370-377. doi:10.1109/ICDM.2005.126
    """,
    "rosset2007": """
    Rosset, S., Perlich, C. and Zadrozny, B. (2007). Ranking-based evaluation of regression
    models. *Knowledge and Information Systems* 12(3), 331-353. doi:10.1007/s10115-006-0037-3
    """,
    "torgo2009": """
    Torgo, L. and Ribeiro, R. P. (2009). Precision and recall for regression. *Discovery
    Science (DS 2009)*, LNCS 5808, 332-346. doi:10.1007/978-3-642-04747-3_26
    """,
    "payne2016": """
    Payne, K., Li, T. and Qin, M. (2016). Measures of prediction accuracy and ranking.
    Technical report.
    """,
    "dimitriadis2021": """
    Dimitriadis, T., Gneiting, T. and Jordan, A. I. (2021). Stable reliability diagrams for
    probabilistic classifiers. *Proceedings of the National Academy of Sciences* 118(8),
    e2016191118. doi:10.1073/pnas.2016191118
    """,
    "gneiting2023": """
    Gneiting, T. and Resin, J. (2023). Regression diagnostics meets forecast evaluation:
    conditional calibration, reliability diagrams, and coherent decomposition of scoring rules.
    *Bernoulli*; arXiv:2108.03210.
    """,
    "jordan2022": """
    Jordan, A. I., Mühlemann, A. and Ziegel, J. F. (2022). Characterizing the optimal solutions
    to the isotonic regression problem for identifiable functionals. *Annals of the Institute of
    Statistical Mathematics* 74(3), 489-514.
    """,
    "gneiting2007": """
    Gneiting, T. and Raftery, A. E. (2007). Strictly proper scoring rules, prediction, and
    estimation. *Journal of the American Statistical Association* 102(477), 359-378.
    doi:10.1198/016214506000001437
    """,
    "bracher2021": """
    Bracher, J., Ray, E. L., Gneiting, T. and Reich, N. G. (2021). Evaluating epidemic
    forecasts in an interval format. *PLoS Computational Biology* 17(2), e1008618.
    doi:10.1371/journal.pcbi.1008618
    """,
    "provost2013": """
    Provost, F. and Fawcett, T. (2013). *Data Science for Business*, ch. 8, "Visualizing Model
    Performance". O'Reilly Media.
    """,
    "fawcett2006": """
    Fawcett, T. (2006). An introduction to ROC analysis. *Pattern Recognition Letters* 27(8),
    861-874. doi:10.1016/j.patrec.2005.10.010
    """,
    "delong1988": """
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    *Biometrics* 44(3), 837-845. doi:10.2307/2531595
    """,
    "sun2014": """
    Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves. *IEEE Signal Processing Letters*
    21(11), 1389-1393. doi:10.1109/LSP.2014.2337313
    """,
    "efron1987": """
    Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
    Statistical Association* 82(397), 171-185. doi:10.1080/01621459.1987.10478410
    """,
    "holm1979": """
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian
    Journal of Statistics* 6(2), 65-70.
    """,
    "robin2011": """
    Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez, J.-C. and Müller, M.
    (2011). pROC: an open-source package for R and S+ to analyze and compare ROC curves. *BMC
    Bioinformatics* 12, 77. doi:10.1186/1471-2105-12-77
    """,
    "obuchowski2004": """
    Obuchowski, N. A., Lieber, M. L. and Wians, F. H. (2004). ROC curves in Clinical Chemistry:
    uses, misuses, and possible solutions. *Clinical Chemistry* 50(7), 1118-1125.
    doi:10.1373/clinchem.2004.031823
    """,
    "obuchowski1997": """
    Obuchowski, N. A. and McClish, D. K. (1997). Sample size determination for diagnostic
    accuracy studies involving binormal ROC curve indices. *Statistics in Medicine* 16(13),
    1529-1542.
    """,
})  # fmt: skip

# Paragraphs made with arguments, each placed by its own decorator.
_BY_THEIR_OWN_DECORATOR = {"input_errors", "device_inputs"}


def fill_paragraphs(doc: str, owner: str) -> str:
    """``doc`` with each marker line of a paragraph of :data:`PARAGRAPHS` replaced by the
    paragraph, every line indented as the marker.

    Raises
    ------
    ValueError
        If ``doc`` holds a marker of no known paragraph, or none of :data:`PARAGRAPHS`; the
        message names ``owner``.
    """
    placed = []

    def place(match: re.Match[str]) -> str:
        name, indent = match["name"], match["indent"]
        if name in _BY_THEIR_OWN_DECORATOR:
            return match[0]
        if name not in PARAGRAPHS:
            raise ValueError(f"the docstring of {owner} names no known paragraph: %({name})s")
        placed.append(name)
        return "\n".join(indent + line if line else "" for line in PARAGRAPHS[name].splitlines())

    filled = MARKER.sub(place, doc)
    if not placed:
        raise ValueError(f"the docstring of {owner} has no marker of a shared paragraph")
    return filled


def made_function(func: _F, name: str, module: str, doc: str) -> _F:
    """``func``, made by a factory, as the public function ``name`` of ``module``: its name and
    qualified name ``name`` (pickled by reference, as a function written out at the top level of
    ``module``, where the factory's result must be assigned to ``name``) and the docstring
    ``doc`` with its shared paragraphs filled (:func:`shared_paragraphs`).
    """
    func.__name__ = func.__qualname__ = name
    func.__module__ = module
    func.__doc__ = doc
    return shared_paragraphs(func)


def shared_paragraphs(obj: _F) -> _F:
    """Decorator: fill the marker lines of :data:`PARAGRAPHS` in a function's or a class's
    docstring (:func:`fill_paragraphs`).

    Raises
    ------
    ValueError
        As :func:`fill_paragraphs`.
    """
    if obj.__doc__ is not None:  # python -OO strips docstrings: nothing to fill
        obj.__doc__ = fill_paragraphs(obj.__doc__, obj.__qualname__)
    return obj
