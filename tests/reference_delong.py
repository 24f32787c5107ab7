"""Brute-force O(n^2) twins of DeLong's structural components.

DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44(3), 837-845.

Written from the paper's equations, pair by pair, with none of the sorting of the fast
implementation: for events X_1..X_m and non-events Y_1..Y_n,

    psi(X, Y) = 1 if Y < X, 1/2 if Y = X, 0 if Y > X
    V10(X_i) = (1/n) sum_j psi(X_i, Y_j),    V01(Y_j) = (1/m) sum_i psi(X_i, Y_j)
    S10 = 1/(m-1) sum_i (V10(X_i) - A)^2,   S01 = 1/(n-1) sum_j (V01(Y_j) - A)^2
    Var(A) = S10 / m + S01 / n

(covariances alike, with products of two models' deviations). Case weights w enter as sampling
weights (the linearisation of the weighted AUC): V10(X_i) = sum_j w_j psi / W_Y and
Var(A) = m/(m-1) sum_i (w_i / W_X)^2 (V10_i - A)^2 + n/(n-1) sum_j (w_j / W_Y)^2 (V01_j - A)^2,
which is the formula above for equal weights.

For a response with more than two values (Harrell's C), the one-sample version (Sen 1960): the
pair score s_ij = 1 (ordered as y), 1/2 (prediction tied), 0 (reversed) over pairs with
y_i != y_j, psi_i = sum_j w_j s_ij, d_i = sum_j w_j [y_j != y_i], C = sum w psi / sum w d,
phi_i = w_i (psi_i - C d_i) and Cov(C_a, C_b) = 4 N/(N-1) sum_i phi_a,i phi_b,i / (sum w d)^2.
"""

from __future__ import annotations

import numpy as np


def _psi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``psi[i, j]`` for events ``x[i]`` and non-events ``y[j]``."""
    return (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])


def delong_binary(event, scores, weight=None):
    """``(aucs, covariance matrix)`` of several models' AUCs for 0/1 ``event`` (DeLong 1988)."""
    event = np.asarray(event, dtype=bool)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    w = np.ones(event.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    keep = w > 0
    event, scores, w = event[keep], scores[:, keep], w[keep]
    wx, wy = w[event], w[~event]
    m, n = wx.shape[0], wy.shape[0]
    aucs, v10, v01 = [], [], []
    for s in scores:
        psi = _psi(s[event], s[~event])
        auc = wx @ psi @ wy / (wx.sum() * wy.sum())
        aucs.append(auc)
        v10.append(psi @ wy / wy.sum() - auc)
        v01.append(wx @ psi / wx.sum() - auc)
    k = len(aucs)
    cov = np.empty((k, k))
    for a in range(k):
        for b in range(k):
            s10 = np.sum((wx / wx.sum()) ** 2 * v10[a] * v10[b]) * m / (m - 1)
            s01 = np.sum((wy / wy.sum()) ** 2 * v01[a] * v01[b]) * n / (n - 1)
            cov[a, b] = s10 + s01
    return np.array(aucs), cov


def delong_general(y, scores, weight=None):
    """``(concordances, covariance matrix)`` for a response with any number of values."""
    y = np.asarray(y, dtype=float)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    w = np.ones(y.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    keep = w > 0
    y, scores, w = y[keep], scores[:, keep], w[keep]
    if np.unique(y).shape[0] == 2:
        return delong_binary(y == y.max(), scores, w)
    big_n = y.shape[0]
    dy = np.sign(y[:, None] - y[None, :])
    comparable = dy != 0
    d = comparable.astype(float) @ w
    den = w @ d
    estimates, phis = [], []
    for s in scores:
        dp = np.sign(s[:, None] - s[None, :])
        pair = np.where(dp == 0, 0.5, (dp == dy).astype(float)) * comparable
        psi = pair @ w
        c = (w @ psi) / den
        estimates.append(c)
        phis.append(w * (psi - c * d))
    k = len(estimates)
    cov = np.array(
        [[4 * big_n / (big_n - 1) * phis[a] @ phis[b] / den**2 for b in range(k)] for a in range(k)]
    )
    return np.array(estimates), cov
