"""The demo job behind ``ranklens demo`` / ``make demo``: real data, real models, real numbers."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fit_wallet_models", "render_demo"]


def fit_wallet_models(random_state: int = 0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Fit scikit-learn models to AER CreditCard expenditure; return the test truth and predictions.

    A 50/50 split of the cardholders; models are fitted to log expenditure (the usual choice for a
    long-tailed wallet) and predictions are back-transformed, which leaves every rank measure
    unchanged.
    """
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import train_test_split

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
    }
    predictions = {}
    for name, model in models.items():
        model.fit(X_train, np.log(y_train))
        predictions[name] = np.exp(model.predict(X_test))
    return y_test, predictions


def render_demo(console: Any) -> None:
    """Print the ranking evaluation of the wallet models as a terminal table."""
    from rich.table import Table

    from ranklens.ranking import ranking_summary

    y_test, predictions = fit_wallet_models()
    table = Table(title=f"Card expenditure (AER CreditCard), test n = {y_test.size}")
    for col in ("model", "Kendall tau", "95% CI", "Spearman rho", "tau~ (C)", "rho~", "T", "R"):
        table.add_column(col, justify="right" if col != "model" else "left")
    for name, pred in predictions.items():
        s = ranking_summary(y_test, pred)
        table.add_row(
            name,
            f"{s.kendall_tau:.4f}",
            f"[{s.tau_ci[0]:.4f}, {s.tau_ci[1]:.4f}]",
            f"{s.spearman_rho:.4f}",
            f"{s.tau_normalized:.4f}",
            f"{s.rho_normalized:.4f}",
            f"{s.discordant_pairs}",
            f"{float(s.weighted_discordance):.6g}",
        )
    console.print(table)
