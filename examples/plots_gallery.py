"""Every ranklens display on the wallet data, saved as PNG files in ``out/plots/``.

Run from the repository root: ``.venv/bin/python examples/plots_gallery.py``.
"""

from __future__ import annotations

import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from ranklens import plot
from ranklens._demo import fit_wallet_models
from ranklens.relevance import relevance_from_boxplot

out = pathlib.Path("out/plots")
out.mkdir(parents=True, exist_ok=True)
y, predictions = fit_wallet_models()
models = {name: predictions[name] for name in ("gbm", "linear", "knn")}


def save(display, name: str) -> None:
    display.figure_.savefig(out / f"{name}.png", dpi=120, bbox_inches="tight")
    plt.close(display.figure_)


# Seed 000 Figures 1-3 (one model per concordance profile; the others overlay models).
save(
    plot.ConcordanceProfileDisplay.from_predictions(y, predictions["gbm"], name="gbm"),
    "concordance_profile",
)
for display, name, kwargs in (
    (plot.CutoffAUCDisplay, "cutoff_auc", {}),
    (plot.RankLiftDisplay, "rank_lift", {}),
    (plot.RECCurveDisplay, "rec", {}),
    (plot.RROCCurveDisplay, "rroc", {}),
    (plot.RocCurveDisplay, "roc", {"events": "top:0.1"}),
    (plot.GainCurveDisplay, "gain", {"events": "top:0.1"}),
    (plot.GainCurveDisplay, "value_captured", {"events": "value"}),
    (plot.LiftCurveDisplay, "lift", {"events": "top:0.1"}),
    (
        plot.ProfitCurveDisplay,
        "profit",
        {"value_margin": 0.1, "cost_per_target": 25.0, "budget": 2500.0},
    ),
):
    ax = None
    for model, pred in models.items():
        shown = display.from_predictions(y, pred, ax=ax, name=model, **kwargs)
        ax = shown.ax_
    save(shown, name)

# Seed 000 Fig. 5: bootstrap bands and where one model beats another.
bands = plot.CurveBandsDisplay.from_predictions(y, models, n_bootstrap=300, random_state=0)
save(bands, "cutoff_auc_bands")
save(plot.BeatProbabilityDisplay.from_result(bands.result), "beat_probability")

# Seed 001: relevance, precision/recall over the event threshold, metric agreement.
relevance = relevance_from_boxplot(y, extremes="high")
save(plot.RelevanceDisplay.from_relevance(relevance, y=y, event_threshold=0.5), "relevance")
save(
    plot.RegressionPrecisionRecallDisplay.from_predictions(
        y, predictions["gbm"], relevance=relevance, name="gbm"
    ),
    "precision_recall",
)
save(
    plot.MetricAgreementDisplay.from_predictions(
        y, predictions, metrics=["mean_absolute_error", "kendall_tau"]
    ),
    "metric_agreement",
)

# Seed 004: intervals against the truth (a crude +-50% band around the gbm prediction).
gbm = predictions["gbm"]
save(
    plot.IntervalDisplay.from_predictions(y, gbm, lower=gbm * 0.5, upper=gbm * 1.5, name="gbm"),
    "intervals",
)
print(f"wrote {len(list(out.glob('*.png')))} plots to {out.resolve()}")
