"""A churn-like data set: a 0/1 target and three probability scores of different quality.

``make_churn(n=50_000, seed=0)`` draws a latent risk per customer, the churn event from it
(about 12 % events), and three models' probabilities of churn:

- ``good``: a calibrated logistic model of most of the latent risk;
- ``fair``: the same with more noise and a milder slope (ranks worse, still calibrated);
- ``overconfident``: the good model's ranking pushed towards 0 and 1 (ranks as well as
  ``good``, but its Brier score and log loss are worse: miscalibrated).

Run as a script to write ``churn.csv`` (``target`` as "yes"/"no", for ``--positive-label yes``)
beside the current directory's files, or import :func:`make_churn`.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def make_churn(n: int = 50_000, seed: int = 0) -> pd.DataFrame:
    """Columns ``churn`` (0/1), ``good``, ``fair``, ``overconfident`` (probabilities) and
    ``weight`` (case weights 1-3)."""
    rng = np.random.default_rng(seed)
    risk = rng.normal(0.0, 1.0, n)
    noise = rng.normal(0.0, 1.0, n)
    logit = -2.4 + 1.3 * risk
    churn = (rng.random(n) < _sigmoid(logit)).astype(np.int64)
    # the good model sees 90 % of the risk; the fair one about 60 %
    seen_good = 0.9 * risk + np.sqrt(1 - 0.9**2) * noise
    seen_fair = 0.6 * risk + np.sqrt(1 - 0.6**2) * rng.normal(0.0, 1.0, n)
    good = _sigmoid(-2.4 + 1.3 * 0.9 * seen_good)
    fair = _sigmoid(-2.3 + 1.3 * 0.6 * seen_fair)
    overconfident = _sigmoid(3.0 * (-2.4 + 1.3 * 0.9 * seen_good) + 3.0)
    return pd.DataFrame(
        {
            "churn": churn,
            "good": np.round(good, 4),  # rounded: ties, as real scores have
            "fair": np.round(fair, 4),
            "overconfident": np.round(overconfident, 4),
            "weight": rng.integers(1, 4, n),
        }
    )


if __name__ == "__main__":
    frame = make_churn()
    frame["target"] = np.where(frame.pop("churn") == 1, "yes", "no")
    path = sys.argv[1] if len(sys.argv) > 1 else "churn.csv"
    frame.to_csv(path, index=False)
    print(f"wrote {len(frame)} rows to {path} (event share {np.mean(frame.target == 'yes'):.3f})")
