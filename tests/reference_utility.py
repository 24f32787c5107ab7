"""Slow, definitional references for relevance, accuracy, precision / recall, SERA and medcouple.

Written straight from the formulas (Torgo & Ribeiro 2009, eqs. 4-11, Brys et al. 2004, Ribeiro &
Moniz 2020) with Python loops and no shared code with ranklens, for small inputs only.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def sigmoid_relevance(y, low_center=None, high_center=None, k=0.5, delta=1e-4, origin=0.0):
    """Torgo & Ribeiro (2009) eqs. 4-5 per element, max of the two sigmoids."""
    out = []
    for v in np.asarray(y, dtype=float).ravel():
        r = 0.0
        if low_center is not None:
            s = -math.log(1 / delta - 1) / abs((low_center - origin) * k)
            x = -s * (v - low_center)
            r = max(r, 1 / (1 + math.exp(x)) if x < 700 else 0.0)
        if high_center is not None:
            s = math.log(1 / delta - 1) / abs((high_center - origin) * k)
            x = -s * (v - high_center)
            r = max(r, 1 / (1 + math.exp(x)) if x < 700 else 0.0)
        out.append(r)
    return np.array(out)


def boxplot_pchip_relevance(y, median, low=None, high=None):
    """Ribeiro (2011) pchip relevance: phi = 3t^2 - 2t^3, t = clip((y - med)/(limit - med), 0, 1).

    Applied on each side of the median (control points (limit, 1), (median, 0), zero slopes).
    """
    out = []
    for v in np.asarray(y, dtype=float).ravel():
        r = 0.0
        for limit in (low, high):
            if limit is None:
                continue
            t = (v - median) / (limit - median)
            t = min(max(t, 0.0), 1.0)
            r = max(r, 3 * t * t - 2 * t**3)
        out.append(r)
    return np.array(out)


def accuracy(y_true, y_pred, threshold, *, smooth, k=8.0, loss="absolute"):
    """Torgo & Ribeiro (2009) eq. 8 (step) or eq. 9 (smooth)."""
    out = []
    for a, b in zip(y_true, y_pred, strict=True):
        ell = abs(b - a) if loss == "absolute" else (b - a) ** 2
        if ell > threshold:
            out.append(0.0)
        elif smooth:
            out.append(1 - math.exp(-k * (ell - threshold) ** 2 / threshold**2))
        else:
            out.append(1.0)
    return np.array(out)


def precision_recall(phi_true, phi_pred, alpha, t_e, weight=None):
    """Eqs. 6 and 10 with >= in both (the text mixes >= and >); None where a denominator is 0."""
    n = len(phi_true)
    w = [1.0] * n if weight is None else list(weight)
    num_r = den_r = num_p = den_p = 0.0
    for i in range(n):
        if phi_true[i] >= t_e:
            num_r += w[i] * alpha[i] * phi_true[i]
            den_r += w[i] * phi_true[i]
        if phi_pred[i] >= t_e:
            num_p += w[i] * alpha[i] * phi_pred[i]
            den_p += w[i] * phi_pred[i]
    precision = num_p / den_p if den_p > 0 else None
    recall = num_r / den_r if den_r > 0 else None
    return precision, recall


def f_beta(precision, recall, beta):
    """Eq. 11."""
    if precision == 0 and recall == 0:
        return 0.0
    return (beta**2 + 1) * precision * recall / (beta**2 * precision + recall)


def ser(phi_true, sq_err, t):
    """SER_t = sum of squared errors over cases with phi >= t."""
    return sum(e for p, e in zip(phi_true, sq_err, strict=True) if p >= t)


def sera_exact_by_integration(phi_true, sq_err):
    """Integrate the step function SER_t over [0, 1] piece by piece between distinct phi values."""
    cuts = sorted(set([0.0, 1.0, *[float(p) for p in phi_true]]))
    area = 0.0
    for lo, hi in itertools.pairwise(cuts):
        # SER_t is constant on (lo, hi]: cases with phi >= hi.
        area += (hi - lo) * ser(phi_true, sq_err, hi)
    return area


def sera_trapezoid(phi_true, sq_err, step=0.001):
    """IRon's approximation: trapezoid rule over t = 0, step, ..., 1."""
    ts = np.linspace(0.0, 1.0, round(1 / step) + 1)
    vals = np.array([ser(phi_true, sq_err, t) for t in ts])
    return float(np.sum(np.diff(ts) * (vals[1:] + vals[:-1]) / 2))


def medcouple(x):
    """O(n^2) medcouple by its definition (Brys, Hubert & Struyf 2004), as statsmodels does it."""
    y = np.sort(np.asarray(x, dtype=float))
    n = y.shape[0]
    med = y[n // 2] if n % 2 else (y[n // 2 - 1] + y[n // 2]) / 2
    z = y - med
    plus = sorted((v for v in z if v >= 0), reverse=True)
    minus = sorted((v for v in z if v <= 0), reverse=True)
    p = len(plus)
    values = []
    for i, a in enumerate(plus):
        for j, b in enumerate(minus):
            if a == b:  # both tied at the median
                values.append(float(np.sign(p - 1 - i - j)))
            else:
                values.append((a + b) / (a - b))
    return float(np.median(values))
