"""Definitional references for interval scores: plain Python loops, straight from the papers."""

from __future__ import annotations

import math

import numpy as np


def interval_score_direct(y, lower, upper, alpha, weights=None):
    """Gneiting & Raftery (2007) eq. 43 row by row, then a (weighted) mean."""
    n = len(y)
    weights = [1.0] * n if weights is None else list(weights)
    total = 0.0
    for yi, lo, up, wi in zip(y, lower, upper, weights, strict=True):
        s = up - lo
        if yi < lo:
            s += 2.0 / alpha * (lo - yi)
        if yi > up:
            s += 2.0 / alpha * (yi - up)
        total += wi * s
    return total / math.fsum(weights)


def pinball(y, q, tau):
    """Quantile (pinball) loss of quantile prediction q at level tau for observation y."""
    return (float(y < q) - tau) * (q - y)


def wis_direct(y, lower_cols, upper_cols, alphas, median=None, weights=None):
    """Bracher et al. (2021) eq. 2, observation by observation:
    1/(K + 1/2) (1/2 |y - m| + sum_k alpha_k/2 IS_k); without a median 1/K sum_k alpha_k/2 IS_k."""
    n = len(y)
    weights = [1.0] * n if weights is None else list(weights)
    k_levels = len(alphas)
    total = 0.0
    for i in range(n):
        s = 0.0
        for j, a in enumerate(alphas):
            s += a / 2.0 * interval_score_direct([y[i]], [lower_cols[i][j]], [upper_cols[i][j]], a)
        if median is not None:
            s += 0.5 * abs(y[i] - median[i])
            s /= k_levels + 0.5
        else:
            s /= k_levels
        total += weights[i] * s
    return total / math.fsum(weights)


def wis_quantile_form(y, quantile_cols, levels):
    """Twice the mean pinball loss over every quantile level (the quantile representation)."""
    out = []
    for i in range(len(y)):
        losses = [pinball(y[i], quantile_cols[i][j], tau) for j, tau in enumerate(levels)]
        out.append(2.0 * math.fsum(losses) / len(levels))
    return float(np.mean(out))


def normal_expected_interval_score(lower, upper, alpha):
    """E[S_alpha(l, u; Y)] for Y ~ N(0, 1) in closed form (independent of the sample code)."""
    from scipy.stats import norm

    below = lower * norm.cdf(lower) + norm.pdf(lower)  # E (l - Y)_+
    above = norm.pdf(upper) - upper * norm.sf(upper)  # E (Y - u)_+
    return (upper - lower) + 2.0 / alpha * (below + above)
