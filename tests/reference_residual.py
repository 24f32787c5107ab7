"""Slow, definitional references for residual measures, error curves and robustness.

Plain loops over observations and pairs, written from the papers' formulas without the algebra the
library uses, so agreement is evidence both are right.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from scipy import stats


def weighted_mean_loss(losses, w=None):
    losses = [float(v) for v in losses]
    w = [1.0] * len(losses) if w is None else [float(v) for v in w]
    return sum(a * b for a, b in zip(losses, w, strict=True)) / sum(w)


def mse(y, p, w=None):
    return weighted_mean_loss([(a - b) ** 2 for a, b in zip(y, p, strict=True)], w)


def mae(y, p, w=None):
    return weighted_mean_loss([abs(a - b) for a, b in zip(y, p, strict=True)], w)


def epsilon_insensitive(y, p, eps, w=None):
    return weighted_mean_loss([max(0.0, abs(a - b) - eps) for a, b in zip(y, p, strict=True)], w)


def linlin(y, p, c_o, c_u, w=None):
    losses = []
    for a, b in zip(y, p, strict=True):
        if b > a:
            losses.append(c_o * abs(a - b))
        elif b < a:
            losses.append(c_u * abs(a - b))
        else:
            losses.append(0.0)
    return weighted_mean_loss(losses, w)


def log_rmse(y, p, offset=0.0, w=None):
    losses = [(math.log(a + offset) - math.log(b + offset)) ** 2 for a, b in zip(y, p, strict=True)]
    return math.sqrt(weighted_mean_loss(losses, w))


def rmspe(y, p, w=None):
    w = [1.0] * len(y) if w is None else w
    num = sum(wi * (a - b) ** 2 for a, b, wi in zip(y, p, w, strict=True))
    den = sum(wi * a**2 for a, wi in zip(y, w, strict=True))
    return math.sqrt(num / den)


def median_of_repeated(values, counts):
    """Median of the multiset with ``counts[i]`` copies of ``values[i]``."""
    expanded = sorted(v for v, c in zip(values, counts, strict=True) for _ in range(int(c)))
    return float(np.median(expanded))


def pmap(y, p):
    n = len(y)
    num = sum(abs(a - b) for a, b in zip(y, p, strict=True)) / n
    scale = sum(abs(y[t] - y[t - 1]) for t in range(1, n)) / (n - 1)
    return num / scale


def leave_one_out(func, y, p):
    """``func`` on the data without row i, for every i (the brute-force definition)."""
    y, p = np.asarray(y, dtype=float), np.asarray(p, dtype=float)
    return np.array([func(np.delete(y, i), np.delete(p, i)) for i in range(len(y))])


# --- ranking references ------------------------------------------------------------------------


def pair_counts(y, p):
    """Per-observation concordant / discordant / tie counts by the O(n^2) definition."""
    n = len(y)
    out = {k: np.zeros(n, dtype=np.int64) for k in ("c", "d", "tt", "tp", "tb")}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dy, dp = np.sign(y[j] - y[i]), np.sign(p[j] - p[i])
            if dy == 0 and dp == 0:
                out["tb"][i] += 1
            elif dy == 0:
                out["tt"][i] += 1
            elif dp == 0:
                out["tp"][i] += 1
            elif dy == dp:
                out["c"][i] += 1
            else:
                out["d"][i] += 1
    return SimpleNamespace(
        concordant=out["c"],
        discordant=out["d"],
        tied_true_only=out["tt"],
        tied_pred_only=out["tp"],
        tied_both=out["tb"],
    )


def kendall_tau_b(y, p):
    if np.ptp(y) == 0 or np.ptp(p) == 0:
        return float("nan")
    return float(stats.kendalltau(y, p).statistic)


def harrell_c(y, p):
    conc = tied_pred = distinct = 0
    n = len(y)
    for i in range(n):
        for j in range(i + 1, n):
            if y[i] == y[j]:
                continue
            distinct += 1
            s = (y[i] - y[j]) * (p[i] - p[j])
            if s > 0:
                conc += 1
            elif s == 0:
                tied_pred += 1
    return (conc + 0.5 * tied_pred) / distinct if distinct else float("nan")


def spearman_rho(y, p):
    if np.ptp(y) == 0 or np.ptp(p) == 0:
        return float("nan")
    return float(stats.spearmanr(y, p).statistic)


def tau_tilde_from_switches(y, p):
    """tau~ = 1 - 2T/(n(n-1)) from the switch count T (Rosset et al. 2005, eq. 2; no ties)."""
    n = len(y)
    t = sum(
        1 for i in range(n) for j in range(n) if p[i] > p[j] and y[i] < y[j]
    )  # pairs ordered by the model one way and by the truth the other
    return 1.0 - 2.0 * t / (n * (n - 1))


def rroc_area(y, p, w=None):
    """Area over the RROC curve by the pair formula ``1/2 sum_{i<j} w_i w_j (e_i - e_j)^2``."""
    e = np.asarray(p, dtype=float) - np.asarray(y, dtype=float)
    w = np.ones_like(e) if w is None else np.asarray(w, dtype=float)
    total = 0.0
    for i in range(len(e)):
        for j in range(i + 1, len(e)):
            total += w[i] * w[j] * (e[i] - e[j]) ** 2
    return 0.5 * total


def rroc_point(y, p, shift, w=None):
    e = np.asarray(p, dtype=float) + shift - np.asarray(y, dtype=float)
    w = np.ones_like(e) if w is None else np.asarray(w, dtype=float)
    return float(np.sum(w * np.maximum(e, 0))), float(np.sum(w * np.minimum(e, 0)))
