"""Quickstart: evaluate two wallet models by ranking, targeting and a paired bootstrap.

Run from the repository root: ``.venv/bin/python examples/quickstart.py`` (about 10 s).
Writes ``out/quickstart-report.html``.
"""

from __future__ import annotations

import pathlib

import ranklens as rl
from ranklens._demo import fit_wallet_models
from ranklens.report import evaluate_models, write_html

y_test, predictions = fit_wallet_models()  # AER CreditCard expenditure, four sklearn models
p1, p2 = predictions["gbm"], predictions["linear"]

s = rl.ranking_summary(y_test, p1)  # tau, rho, T, R and the Noether interval
print(f"gbm: Kendall tau {s.kendall_tau:.3f}, 95% CI {s.tau_ci[0]:.3f} to {s.tau_ci[1]:.3f}")
caught = rl.gain_curve(y_test, p1, events="top:0.1").at(0.1)
print(f"targeting the top 10% by prediction catches {caught:.0%} of the top 10% spenders")
profit = rl.profit_curve(y_test, p1, value_margin=0.1, cost_per_target=25, budget=2500)
print(f"best profit within a $2,500 budget: {profit.budget_profit:,.0f}")
cmp = rl.compare_models(y_test, {"gbm": p1, "linear": p2}, n_bootstrap=1000, random_state=0)
print(cmp.to_frame()[["metric", "difference", "difference_sd", "p_value"]].round(4))
pathlib.Path("out").mkdir(exist_ok=True)
report = evaluate_models(y_test, predictions, n_bootstrap=500)
path = write_html("out/quickstart-report.html", report)
print(f"report: {path}")
