"""The two-model comparison that bench_compare and bench_inference time against scipy."""

from __future__ import annotations

import numpy as np
from scipy import stats

#: The measures compared: two rank correlations and two mean losses.
METRICS = ["kendall_tau", "spearman_rho", "root_mean_squared_error", "mean_absolute_error"]


def lognormal_models(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lognormal "wallets" ``y`` and two models of them with multiplicative lognormal noise
    (log-scale standard deviations 0.5 and 0.8)."""
    rng = np.random.default_rng(seed)
    y = rng.lognormal(0.0, 1.0, n)
    return y, y * rng.lognormal(0.0, 0.5, n), y * rng.lognormal(0.0, 0.8, n)


def scipy_statistics(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:data:`METRICS` of both models by scipy and NumPy: the statistic a user would hand to
    ``scipy.stats.bootstrap``."""
    out = []
    for p in (a, b):
        out += [
            stats.kendalltau(y, p).statistic,
            stats.spearmanr(y, p).statistic,
            float(np.sqrt(np.mean((y - p) ** 2))),
            float(np.mean(np.abs(y - p))),
        ]
    return np.array(out)
