"""The measures a factory makes (a family from one definition) are public functions as if
written out: their name, signature, docstring, pickling and registration."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
from sklearn.metrics import make_scorer

import ranklens
from ranklens._foundation.docstrings import MARKER
from ranklens.metrics import get_metric

MADE = {
    "ranklens.targeting": [
        f"{kind}_at_{percent}"
        for kind in ("lift", "precision", "recall")
        for percent in (5, 10, 20)
    ],
    "ranklens.extremes": [
        "utility_precision",
        "utility_recall",
        "utility_f1",
        "relevance_weighted_squared_error",
        "relevance_weighted_absolute_error",
    ],
}
CASES = [(module, name) for module, names in MADE.items() for name in names]


@pytest.mark.parametrize(("module", "name"), CASES)
def test_a_made_measure_is_a_public_function_of_its_module(module, name):
    func = getattr(ranklens, name)
    assert func.__name__ == func.__qualname__ == name and func.__module__ == module
    assert get_metric(name).func is func
    assert pickle.loads(pickle.dumps(func)) is func
    scorer = pickle.loads(pickle.dumps(make_scorer(func)))
    assert scorer._score_func is func
    parameters = inspect.signature(func).parameters
    assert list(parameters)[:3] == ["y_true", "y_pred", "sample_weight"]
    assert parameters["sample_weight"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["sample_weight"].default is None


@pytest.mark.parametrize(("module", "name"), CASES)
def test_a_made_measure_has_a_full_docstring(module, name):
    doc = inspect.getdoc(getattr(ranklens, name))
    for section in ("Parameters", "Returns", "Raises", "Notes", "References"):
        assert f"\n{section}\n" in doc, (name, section)
    assert not MARKER.search(doc) and "%(" not in doc and "{" not in doc.split("Notes")[0]
    assert "holds data that are not numbers" in doc
    assert max(len(line) for line in doc.splitlines()) <= 96


def test_the_docstring_states_its_own_number_and_formula():
    assert "top 10 %" in ranklens.lift_at_10.__doc__ and "x = 0.10" in ranklens.lift_at_10.__doc__
    assert "``depth=0.05``" in ranklens.precision_at_5.__doc__
    assert "recall(d) = G(d)" in ranklens.recall_at_20.__doc__
    assert "eq. 11 with beta = 1" in ranklens.utility_f1.__doc__
    assert "(yhat_i - y_i)^2" in ranklens.relevance_weighted_squared_error.__doc__


def test_the_lift_of_a_value_target_needs_no_events_where_precision_does():
    rng = np.random.default_rng(4)
    y, s = rng.gamma(2.0, size=60), rng.random(60)
    assert np.isfinite(ranklens.lift_at_10(y, s, events="value"))
    with pytest.raises(ValueError, match="precision_at_10"):
        ranklens.precision_at_10(y, s, events="value")
