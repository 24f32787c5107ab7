"""``evaluate_models``' ``metrics``, ``goal`` and ``currency`` on both engines.

``metrics`` computes only the measures named (each value the one of the full run, and of an
independent reference: SciPy's tau-b, scikit-learn's weighted MAE); ``goal`` and ``currency``
are checked and recorded in ``settings`` (nothing is computed differently); every refusal names
the argument, with the closest name when one was misspelt.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import mean_absolute_error

from ranklens import evaluate_models
from ranklens._engines.entry import GOALS
from ranklens.metrics import get_curve, get_metric

CHOSEN = ["kendall_tau", "mean_absolute_error"]
N = 150


@pytest.fixture(scope="module")
def frame(tmp_path_factory) -> pd.DataFrame:
    """Ties in the target and in one model, integer weights; read back as pandas reads CSV."""
    rng = np.random.default_rng(7)
    y = np.round(np.exp(rng.normal(size=N)), 1)
    table = pd.DataFrame(
        {
            "y": y,
            "a": y + rng.normal(size=N),
            "b": np.round(y + 2 * rng.normal(size=N), 0),
            "w": rng.integers(1, 4, N).astype(float),
        }
    )
    path = tmp_path_factory.mktemp("goal") / "scores.csv"
    table.to_csv(path, index=False)
    return pd.read_csv(path)


def test_goals_are_the_report_goals():
    from ranklens.report.goals import GOALS as REPORT_GOALS

    assert {g.key: g.families for g in REPORT_GOALS} == GOALS


def test_memory_engine_computes_only_the_chosen_measures(frame):
    full = evaluate_models("y", ["a", "b"], data=frame, n_bootstrap=0)
    chosen = evaluate_models(
        "y", ["a", "b"], data=frame, metrics=CHOSEN, goal="ranking", currency="€", n_bootstrap=0
    )
    assert list(chosen.metrics) == CHOSEN
    assert chosen.settings["metrics"] == "kendall_tau, mean_absolute_error"
    assert (chosen.settings["goal"], chosen.settings["currency"]) == ("ranking", "€")
    assert "goal" not in full.settings and "metrics" not in full.settings
    for model in ("a", "b"):
        assert set(chosen.values[model]) == set(CHOSEN)
        for name in CHOSEN:
            assert chosen.values[model][name] == full.values[model][name]
        tau = kendalltau(frame["y"], frame[model]).statistic  # tau-b, with ties
        assert chosen.values[model]["kendall_tau"] == pytest.approx(tau, abs=1e-12)
    # the curves of the chosen families only: ranking and residual, no targeting curve
    families = {get_metric(name).family for name in CHOSEN}
    assert chosen.curves and all(get_curve(name).family in families for name in chosen.curves)
    assert "roc" in full.curves and "roc" not in chosen.curves


def test_chosen_measures_take_the_weights(frame):
    got = evaluate_models(
        frame["y"],
        {"a": frame["a"]},
        sample_weight=frame["w"],
        metrics=("mean_absolute_error",),
        n_bootstrap=0,
    )
    want = mean_absolute_error(frame["y"], frame["a"], sample_weight=frame["w"])
    assert got.values["a"]["mean_absolute_error"] == pytest.approx(want, rel=1e-13)


def test_the_comparison_holds_only_the_chosen_measures(frame):
    got = evaluate_models(
        "y", ["a", "b"], data=frame, metrics=CHOSEN, n_bootstrap=50, bootstrap_budget_s=600
    )
    assert set(got.comparison.metrics) <= set(CHOSEN)
    assert "mean_absolute_error" in got.comparison.metrics


def test_the_report_leaves_out_the_sections_without_a_chosen_measure(frame):
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    from ranklens.report.render import task_view

    # the plots drawn from the rows (the extremes', the errors') would make a section alone
    got = evaluate_models("y", ["a", "b"], data=frame, metrics=["kendall_tau"], n_bootstrap=0)
    ids = [section.id for section in task_view(got)["sections"]]
    assert "ranking" in ids
    assert not {"targeting", "extremes", "errors", "intervals"} & set(ids), ids
    full = evaluate_models("y", ["a", "b"], data=frame, n_bootstrap=0)
    assert {"targeting", "errors"} <= {s.id for s in task_view(full)["sections"]}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(metrics=[]), "metrics is empty"),
        (dict(metrics="kendall_tau"), "metrics must be a sequence of measure names"),
        (
            dict(metrics=["kendal_tau"]),
            r"unknown measure 'kendal_tau' \(did you mean 'kendall_tau'",
        ),
        (dict(goal="rank"), r"goal must be one of ranking, .*got 'rank' \(did you mean 'ranking'"),
        (dict(goal=3), "goal must be one of"),
        (dict(goal="targeting", metrics=["kendall_tau"]), "goal 'targeting' is answered by"),
        (dict(currency=""), "currency must be a non-empty string"),
        (dict(currency=5), "currency must be a non-empty string"),
        (dict(currency="dollars"), "currency must be a symbol or code of at most 5"),
        (dict(currency="$\n"), "currency must be a symbol or code"),
    ],
)
def test_refusals_name_the_argument(frame, kwargs, message):
    with pytest.raises(ValueError, match=message):
        evaluate_models("y", ["a"], data=frame, **kwargs)


def test_a_goal_with_one_of_its_measures_and_repeats_kept_once(frame):
    got = evaluate_models(
        "y",
        ["a"],
        data=frame,
        metrics=["roc_auc", "mean_absolute_error", "roc_auc"],
        goal="targeting",
        currency=" USD ",
        n_bootstrap=0,
    )
    assert list(got.metrics) == ["roc_auc", "mean_absolute_error"]
    assert (got.settings["goal"], got.settings["currency"]) == ("targeting", "USD")


@pytest.mark.dask_engine
def test_dask_engine_takes_the_same_choices(client, frame):
    import dask.dataframe as dd

    kw = dict(metrics=CHOSEN, goal="errors", currency="$", robustness=False)
    on_dask = evaluate_models(
        "y", ["a", "b"], data=dd.from_pandas(frame, npartitions=3), engine="dask", **kw
    )
    in_memory = evaluate_models("y", ["a", "b"], data=frame, n_bootstrap=0, **kw)
    for key in ("metrics", "goal", "currency"):
        assert on_dask.settings[key] == in_memory.settings[key]
    assert set(on_dask.metrics) == set(CHOSEN)
    for model in ("a", "b"):
        for name in CHOSEN:
            want = in_memory.values[model][name]
            got = on_dask.values[model][name]
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (model, name)
    with pytest.raises(ValueError, match="goal must be one of"):
        evaluate_models(
            "y", ["a"], data=dd.from_pandas(frame, npartitions=2), engine="dask", goal="x"
        )
