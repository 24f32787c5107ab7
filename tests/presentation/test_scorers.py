"""scikit-learn scorers for utility-based precision, recall and F-beta."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from ranklens import (
    SigmoidRelevance,
    UndefinedMetricWarning,
    regression_precision_recall,
    smooth_accuracy,
)
from ranklens.scorers import make_utility_scorer, utility_f1_scorer, utility_recall_scorer


@pytest.fixture
def data(rng):
    n = 400
    x = rng.normal(size=(n, 3))
    y = 2.0 * x[:, 0] ** 3 + x[:, 1] + rng.normal(scale=0.3, size=n)
    return x, y


PHI = SigmoidRelevance(-4.0, 4.0)


@pytest.mark.parametrize("measure", ["precision", "recall", "f_beta"])
def test_scorer_equals_the_function(data, measure):
    x, y = data
    model = Ridge().fit(x, y)
    acc = smooth_accuracy(1.5)
    scorer = make_utility_scorer(measure, relevance=PHI, accuracy=acc, beta=0.5)
    res = regression_precision_recall(y, model.predict(x), relevance=PHI, accuracy=acc, beta=0.5)
    assert scorer(model, x, y) == pytest.approx(getattr(res, measure))
    w = np.linspace(0.5, 2, y.size)
    res_w = regression_precision_recall(
        y, model.predict(x), relevance=PHI, accuracy=acc, beta=0.5, sample_weight=w
    )
    assert scorer(model, x, y, sample_weight=w) == pytest.approx(getattr(res_w, measure))


def test_grid_search_selects_by_utility_f(data):
    x, y = data
    scorer = make_utility_scorer("f_beta", relevance=PHI, accuracy=smooth_accuracy(2.0))
    search = GridSearchCV(
        Ridge(), {"alpha": [0.1, 1000.0]}, scoring=scorer, cv=KFold(3, shuffle=True, random_state=0)
    )
    # The flattened model issues no event signal in some folds: precision undefined (NaN).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # sklearn: "non-finite test scores"
        with pytest.warns(UndefinedMetricWarning, match="no predicted events"):
            search.fit(x, y)
    # Heavy shrinkage (alpha = 1000) flattens the predictions and misses the extremes.
    assert search.best_params_ == {"alpha": 0.1}
    assert np.isfinite(search.best_score_)


def test_ready_made_scorers_and_pickling(data):
    x, y = data
    model = Ridge().fit(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # per-fold default relevance may warn
        a = utility_f1_scorer(model, x, y)
        b = utility_recall_scorer(model, x, y)
    assert 0 <= a <= 1 and 0 <= b <= 1
    clone = pickle.loads(pickle.dumps(make_utility_scorer("recall", relevance=PHI)))
    assert clone(model, x, y) == pytest.approx(
        make_utility_scorer("recall", relevance=PHI)(model, x, y)
    )
    scores = cross_val_score(Ridge(), x, y, scoring=clone, cv=3)
    assert scores.shape == (3,)


def test_bad_measure():
    with pytest.raises(ValueError, match="measure must be one of"):
        make_utility_scorer("f1")
