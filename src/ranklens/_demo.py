"""The demo job behind ``ranklens demo`` / ``make demo``: real data, real models, real numbers.

Two case studies, each evaluated with every registered measure, a paired bootstrap comparison,
the robustness table and the plots, written as one HTML report:

* **Wallet targeting** (the case study of Rosset, Perlich & Zadrozny 2005): monthly credit
  card expenditure of AER's ``CreditCard`` cardholders, a long-tailed "wallet". Which model ranks
  the big spenders first, and how many can a campaign budget reach?
* **Rare extreme moves** (the case study of Torgo & Ribeiro 2009): next-day S&P 500 returns
  (MASS ``SP500``, January 1990 to January 2001). Average errors barely separate the models;
  utility-based precision and recall on the rare large moves, and the ranking of many candidate
  models by MAE against F, tell them apart. The gradient-boosting model also gives 90% quantile
  intervals. The test days are evaluated in time order, with their dates: the intervals come
  from the stationary block bootstrap, since a day's error says something about the next's.
"""

from __future__ import annotations

import pathlib
import time
from typing import Any

import numpy as np

__all__ = ["fit_sp500_models", "fit_wallet_models", "render_demo", "run_demo"]

#: Campaign of the wallet demo: each offer costs this much, and the budget pays for 20% of cases;
#: the bank keeps this share of a targeted customer's monthly spending.
WALLET_COST_PER_TARGET = 25.0
WALLET_MARGIN = 0.1


def fit_wallet_models(random_state: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Fit scikit-learn models to AER CreditCard expenditure; return the test truth and predictions.

    A 50/50 split of the cardholders; models are fitted to log expenditure (the usual choice for a
    long-tailed wallet) and predictions are back-transformed, which leaves every rank measure
    unchanged.
    """
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import train_test_split
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ranklens.datasets import load_credit_card

    data = load_credit_card()
    X_train, X_test, y_train, y_test = train_test_split(
        data.X.to_numpy(), data.y.to_numpy(), test_size=0.5, random_state=random_state
    )
    models: dict[str, Any] = {
        "linear": LinearRegression(),
        "random_forest": RandomForestRegressor(
            n_estimators=200, min_samples_leaf=5, random_state=random_state, n_jobs=1
        ),
        "gbm": GradientBoostingRegressor(random_state=random_state),
        "knn": make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=25)),
    }
    predictions = {}
    for name, model in models.items():
        model.fit(X_train, np.log(y_train))
        predictions[name] = np.exp(model.predict(X_test))
    return y_test, predictions


def fit_sp500_models(
    random_state: int = 0,
) -> dict[str, Any]:
    """One-day-ahead S&P 500 return models, trained on the first 70% of days, tested on the rest.

    Returns a dict with ``relevance`` (box plot of the training returns, both tails),
    ``y_train``, ``y_test``, ``dates_test`` (the test days' dates, a pandas Series named
    ``date``), ``predictions`` (four models; ``gbm_extremes`` is trained with
    relevance-weighted cases), ``intervals`` (90% quantile intervals of a gradient-boosting
    model, attached to ``"gbm"``) and ``candidates`` (a grid of about 40 model variants for the
    metric-agreement analysis of Torgo & Ribeiro 2009, Fig. 2). Time order is kept: no future day is
    used to predict a past one.
    """
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from ranklens.datasets import load_sp500_returns
    from ranklens.relevance import relevance_from_boxplot

    data = load_sp500_returns()
    X, y = data.X.to_numpy(), data.y.to_numpy()
    dates = data.frame["date"]
    cut = int(0.7 * len(y))
    X_train, X_test, y_train, y_test = X[:cut], X[cut:], y[:cut], y[cut:]

    def gbm(**kw: Any) -> Any:
        kw.setdefault("random_state", random_state)
        return GradientBoostingRegressor(**kw)

    def knn(k: int) -> Any:
        return make_pipeline(StandardScaler(), KNeighborsRegressor(n_neighbors=k))

    # Utility-based learning in its simplest form (Torgo & Ribeiro's motivation): weight the
    # training days by their relevance, so the loss pays attention to the rare large moves.
    relevance = relevance_from_boxplot(y_train, extremes="both")
    emphasis = {factor: 1.0 + factor * relevance(y_train) for factor in (3, 10, 30, 100)}

    models: dict[str, Any] = {
        "linear": LinearRegression(),
        "random_forest": RandomForestRegressor(
            n_estimators=100, min_samples_leaf=10, random_state=random_state, n_jobs=1
        ),
        "gbm": gbm(loss="huber", n_estimators=100, max_depth=3, learning_rate=0.08),
        "gbm_extremes": gbm(loss="huber", n_estimators=100, max_depth=3, learning_rate=0.08),
    }
    weights = {"gbm_extremes": emphasis[30]}
    predictions = {
        name: m.fit(X_train, y_train, **_weights(m, weights.get(name))).predict(X_test)
        for name, m in models.items()
    }
    lower = gbm(loss="quantile", alpha=0.05, n_estimators=100, max_depth=2).fit(X_train, y_train)
    upper = gbm(loss="quantile", alpha=0.95, n_estimators=100, max_depth=2).fit(X_train, y_train)
    intervals = {"gbm": (lower.predict(X_test), upper.predict(X_test))}

    # Torgo & Ribeiro (2009) compared 57 model variants; a grid of about 35 shows the same effect in
    # seconds.
    grid: dict[str, Any] = {}
    for k in (3, 5, 10, 20, 40, 80):
        grid[f"knn_k{k}"] = knn(k)
    for alpha in (0.1, 10.0, 1000.0):
        grid[f"ridge_a{alpha:g}"] = make_pipeline(StandardScaler(), Ridge(alpha=alpha))
    for depth in (3, 8, None):
        for leaf in (1, 20):
            grid[f"rf_d{depth}_l{leaf}"] = RandomForestRegressor(
                n_estimators=30,
                max_depth=depth,
                min_samples_leaf=leaf,
                random_state=random_state,
                n_jobs=1,
            )
    for loss in ("squared_error", "huber"):
        for depth in (1, 3):
            for rate in (0.05, 0.2):
                grid[f"gbm_{loss.split('_')[0]}_d{depth}_r{rate:g}"] = gbm(
                    loss=loss, max_depth=depth, learning_rate=rate, n_estimators=50
                )
    for factor, w in emphasis.items():
        grid[f"gbm_extremes_x{factor}"] = (gbm(loss="huber", max_depth=3, n_estimators=50), w)
        grid[f"rf_extremes_x{factor}"] = (
            RandomForestRegressor(
                n_estimators=30, min_samples_leaf=3, random_state=random_state, n_jobs=1
            ),
            w,
        )
    candidates = {}
    for name, spec in grid.items():
        model, w = spec if isinstance(spec, tuple) else (spec, None)
        candidates[name] = model.fit(X_train, y_train, **_weights(model, w)).predict(X_test)
    candidates.update(predictions)
    return {
        "relevance": relevance,
        "y_train": y_train,
        "y_test": y_test,
        "dates_test": dates.iloc[cut:].reset_index(drop=True),
        "predictions": predictions,
        "intervals": intervals,
        "candidates": candidates,
        "description": data.description,
    }


def _weights(model: Any, weight: np.ndarray | None) -> dict[str, Any]:
    """``fit`` keyword for case weights (a pipeline routes them to its last step)."""
    if weight is None:
        return {}
    steps = getattr(model, "steps", None)
    return {f"{steps[-1][0]}__sample_weight": weight} if steps else {"sample_weight": weight}


def run_demo(*, n_bootstrap: int = 500, random_state: int = 0, progress: Any = None) -> list[Any]:
    """Fit the models of both case studies and evaluate them; returns the two evaluations."""
    from ranklens.report import evaluate_models

    y_wallet, wallet_predictions = fit_wallet_models(random_state)
    budget = 0.2 * y_wallet.size * WALLET_COST_PER_TARGET
    wallet = evaluate_models(
        y_wallet,
        wallet_predictions,
        title="Wallet targeting: card expenditure",
        description=(
            "Monthly credit card expenditure (USD) of AER CreditCard cardholders, a long-tailed "
            "'wallet' like the IT wallets of Rosset, Perlich & Zadrozny (2005). Four models "
            "fitted on log expenditure to a random half; evaluated on the other half. A "
            f"campaign offers a card upgrade at ${WALLET_COST_PER_TARGET:g} per customer with a "
            f"budget of ${budget:,.0f}, enough for 20% of them, and keeps "
            f"{100 * WALLET_MARGIN:g}% of a month's spending of each customer it reaches: the "
            "ranking at the top is what matters."
        ),
        target="expenditure",
        events="top:0.1",
        budget=budget,
        cost_per_target=WALLET_COST_PER_TARGET,
        value_margin=WALLET_MARGIN,
        n_bootstrap=n_bootstrap,
        random_state=random_state,
        on_progress=progress,
    )
    # the campaign's money is in US dollars: the report writes what a model earns as "$1,234"
    wallet.settings.setdefault("currency", "$")

    sp = fit_sp500_models(random_state)
    returns = evaluate_models(
        sp["y_test"],
        sp["predictions"],
        title="Rare extreme moves: S&P 500 daily returns",
        description=(
            f"{sp['description']} Models trained on the first 70% of days and tested on the "
            "last 30% in time order, their intervals from the stationary block bootstrap of "
            "the test days (a day's error says something about the next's). Extremes are the "
            "days beyond the training box plot's fences (relevance >= 0.5). Average errors "
            "barely separate the models and favour those that never predict a large move; the "
            "measures for rare extremes (Torgo & Ribeiro 2009) favour gbm_extremes, trained "
            "with relevance-weighted days. The gbm model also gives 90% quantile intervals. "
            "Over time, the models are compared quarter by quarter."
        ),
        target="return",
        intervals=sp["intervals"],
        alpha=0.1,
        relevance=sp["relevance"],
        events="top:0.05",
        n_bootstrap=n_bootstrap,
        random_state=random_state,
        agreement_predictions=sp["candidates"],
        on_progress=progress,
        time=sp["dates_test"],
        window="Q",
    )
    return [wallet, returns]


def render_demo(
    console: Any,
    *,
    out: str | pathlib.Path = "ranklens-demo-report.html",
    n_bootstrap: int = 500,
) -> pathlib.Path:
    """Run the demo, print a summary table per case study, write the report, print its path."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from ranklens.report import write_html
    from ranklens.report.terminal import summary_table

    start = time.perf_counter()
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("fitting models", total=None)
        evaluations = run_demo(
            n_bootstrap=n_bootstrap,
            progress=lambda message: bar.update(task, description=message),
        )
        bar.update(task, description="writing the report")
        path = write_html(
            out,
            evaluations,
            title="ranklens demo",
            subtitle="Ranking, targeting, rare extremes and uncertainty on two real data sets",
        )
    for evaluation in evaluations:
        console.print(summary_table(evaluation))
    console.print(f"Done in {time.perf_counter() - start:.0f} s.")
    console.print(f"Report: [bold]{path}[/bold]")
    return path
