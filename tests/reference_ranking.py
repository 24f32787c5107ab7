"""Brute-force O(n^2) definitions of the ranking measures, written straight from the papers.

Rosset, Perlich & Zadrozny (2005; 2007), with the errata of their formulas corrected.
Nothing here is fast or clever: every quantity is a double loop over pairs (or a loop over slots),
with weights ``w_i * w_j`` on pairs and half credit for ties in the prediction where stated.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np


def _sign(x: float) -> int:
    return int(x > 0) - int(x < 0)


def per_observation_counts(y, p, w=None):
    """Per row i: weight of j != i concordant, discordant, tied in y only / p only / both."""
    n = len(y)
    w = np.ones(n) if w is None else np.asarray(w, float)
    out = np.zeros((5, n))
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            sy, sp = _sign(y[j] - y[i]), _sign(p[j] - p[i])
            if sy * sp > 0:
                out[0, i] += w[j]
            elif sy * sp < 0:
                out[1, i] += w[j]
            elif sy == 0 and sp != 0:
                out[2, i] += w[j]
            elif sp == 0 and sy != 0:
                out[3, i] += w[j]
            else:
                out[4, i] += w[j]
    return out


def pair_totals(y, p, w=None):
    """(concordant, discordant, tied y only, tied p only, tied both) pair weights over i < j."""
    n = len(y)
    w = np.ones(n) if w is None else np.asarray(w, float)
    tot = np.zeros(5)
    for i in range(n):
        for j in range(i + 1, n):
            sy, sp = _sign(y[j] - y[i]), _sign(p[j] - p[i])
            ww = w[i] * w[j]
            if sy * sp > 0:
                tot[0] += ww
            elif sy * sp < 0:
                tot[1] += ww
            elif sy == 0 and sp != 0:
                tot[2] += ww
            elif sp == 0 and sy != 0:
                tot[3] += ww
            else:
                tot[4] += ww
    return tot


def tau_b(y, p, w=None):
    c, d, ty, tp, _ = pair_totals(y, p, w)
    return (c - d) / math.sqrt((c + d + tp) * (c + d + ty))


def harrell_c(y, p, w=None):
    c, d, _, tp, _ = pair_totals(y, p, w)
    return (c + tp / 2) / (c + d + tp)


def midranks(x, w=None):
    """Weighted ascending midranks W(<) + (W(=) + 1)/2 (the usual midranks for unit weights)."""
    x = np.asarray(x, float)
    w = np.ones(len(x)) if w is None else np.asarray(w, float)
    return np.array([w[x < v].sum() + (w[x == v].sum() + 1) / 2 for v in x])


def spearman_rho(y, p, w=None):
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    a, b = midranks(p, w), midranks(y, w)
    ma, mb = np.average(a, weights=w), np.average(b, weights=w)
    cov = np.sum(w * (a - ma) * (b - mb))
    return cov / math.sqrt(np.sum(w * (a - ma) ** 2) * np.sum(w * (b - mb) ** 2))


def discordant_pairs(y, p):
    """T of eq. (2): pairs ordered oppositely by y and the prediction (ties are not discordant)."""
    n = len(y)
    return sum(
        1 for i in range(n) for j in range(i + 1, n) if _sign(y[j] - y[i]) * _sign(p[j] - p[i]) < 0
    )


def weighted_discordance(y, p, w=None):
    """R of eq. (3): discordant pairs weighted by their distance in prediction midranks."""
    n = len(y)
    wts = np.ones(n) if w is None else np.asarray(w, float)
    q = midranks(p, w)
    total = Fraction(0) if w is None else 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if _sign(y[j] - y[i]) * _sign(p[j] - p[i]) < 0:
                dist = Fraction(q[i]).limit_denominator(4) - Fraction(q[j]).limit_denominator(4)
                if w is None:
                    total += abs(dist)
                else:
                    total += wts[i] * wts[j] * abs(q[i] - q[j])
    return total


def r_from_permutation(s):
    """R for a model order without ties: s[i] = true rank (1 = largest) of the i-th prediction."""
    n = len(s)
    return sum(j - i for i in range(n) for j in range(i + 1, n) if s[i] > s[j])


def concordance_fractions(y, p, w=None):
    """Per row: (conc + tied-pred-only / 2) / weight of rows with a different y (Harrell)."""
    c, d, _, tp, _ = per_observation_counts(y, p, w)
    return (c + tp / 2) / (c + d + tp)


def envelope_fractions(y, p, w=None):
    """E_i / comparable_i: row i reinserted in the best slot between the others' predictions."""
    n = len(y)
    w = np.ones(n) if w is None else np.asarray(w, float)
    out = np.zeros(n)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        values = sorted({p[j] for j in others})
        # candidate predictions: below all, between consecutive distinct values, above all
        cands = [values[0] - 1.0, values[-1] + 1.0]
        cands += [(a + b) / 2 for a, b in itertools.pairwise(values)]
        best = -1.0
        for v in cands:
            good = sum(w[j] for j in others if _sign(y[j] - y[i]) * _sign(p[j] - v) > 0)
            best = max(best, good)
        comparable = sum(w[j] for j in others if y[j] != y[i])
        out[i] = best / comparable
    return out


def noether_variance_eq6(y, p):
    """Eq. (6) of Rosset, Perlich & Zadrozny (2005), literally, with C_i the concordant count of
    row i (no ties)."""
    n = len(y)
    c = per_observation_counts(y, p)[0]
    nn = n * (n - 1)
    return (2 / nn) ** 2 * 2 * (2 * np.sum(c**2) - np.sum(c) - (2 * n - 3) / nn * np.sum(c) ** 2)


def tau_b_kernel_matrix(y, p):
    """The delta-method kernel g_ij of tau-b as an n x n matrix (zero diagonal)."""
    n = len(y)
    h = np.array([[_sign(y[i] - y[j]) * _sign(p[i] - p[j]) for j in range(n)] for i in range(n)])
    dy = np.array([[float(y[i] != y[j]) for j in range(n)] for i in range(n)])
    dp = np.array([[float(p[i] != p[j]) for j in range(n)] for i in range(n)])
    npairs = n * (n - 1)
    b, c = dy.sum() / npairs, dp.sum() / npairs
    tau = h.sum() / npairs / math.sqrt(b * c)
    return h / math.sqrt(b * c) - tau / 2 * (dy / b + dp / c)


def u_statistic_variances(g):
    """Plug-in and unbiased variance of the order-2 U-statistic with kernel matrix g (definitional).

    Var(U) = 2/N [2(n-2) zeta1 + zeta2]; every expectation is an average over distinct index
    tuples (pairs, triples with a shared index, disjoint quadruples), computed by explicit loops.
    """
    n = g.shape[0]
    idx = range(n)
    pairs = [(i, j) for i in idx for j in idx if i != j]
    u = np.mean([g[i, j] for i, j in pairs])
    e2 = np.mean([g[i, j] ** 2 for i, j in pairs])
    e12 = np.mean([g[i, j] * g[i, k] for i in idx for j in idx for k in idx if len({i, j, k}) == 3])
    npairs = n * (n - 1)
    plug = 2 / npairs * (2 * (n - 2) * (e12 - u**2) + (e2 - u**2))
    quads = [
        g[i, j] * g[k, m]
        for i in idx
        for j in idx
        for k in idx
        for m in idx
        if len({i, j, k, m}) == 4
    ]
    theta2 = np.mean(quads)
    unbiased = 2 / npairs * (2 * (n - 2) * (e12 - theta2) + (e2 - theta2))
    return max(plug, 0.0), max(unbiased, 0.0)


def cutoff_aucs(y, p, w=None):
    """AUC_c for every cut between distinct y values: positives = y >= the c-th largest value."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    values = np.unique(y)[::-1]
    aucs, pos, gaps = [], [], []
    for c in range(1, len(values)):
        positive = y >= values[c - 1]
        num = den = 0.0
        for i in np.flatnonzero(positive):
            for j in np.flatnonzero(~positive):
                den += w[i] * w[j]
                num += w[i] * w[j] * (1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0)
        aucs.append(num / den)
        pos.append(w[positive].sum())
        gaps.append((w[y == values[c - 1]].sum() + w[y == values[c]].sum()) / 2)
    return np.array(aucs), np.array(pos), np.array(gaps)


def partial_measures(y, p, percentiles):
    """tau^p and rho^p of Rosset et al. (2007), Sect. 5, by pairs and by cuts (Harrell credit)."""
    n = len(y)
    desc_mid = n + 1 - midranks(y)  # true midrank, 1 = largest
    cuts = np.array([n * k for k in percentiles])
    bins = np.array([1 + int(np.sum(cuts < r - 1e-9)) for r in desc_mid])
    mis = Fraction(0)
    diff_pairs = 0
    for i in range(n):
        for j in range(n):
            if bins[i] < bins[j]:  # i belongs to a higher bin: should be predicted higher
                diff_pairs += 1
                if p[i] < p[j]:
                    mis += 1
                elif p[i] == p[j]:
                    mis += Fraction(1, 2)
    tau_p = 1 - 2 * mis / diff_pairs if diff_pairs else math.nan
    r_p = Fraction(0)
    denom = 0
    for cut in range(1, len(percentiles) + 1):
        top = bins <= cut
        i_c = int(top.sum())
        denom += i_c * (n - i_c)
        for i in np.flatnonzero(top):
            for j in np.flatnonzero(~top):
                if p[i] < p[j]:
                    r_p += 1
                elif p[i] == p[j]:
                    r_p += Fraction(1, 2)
    rho_p = 1 - 2 * r_p / denom if denom else math.nan
    return tau_p, rho_p, mis, r_p, bins


def per_observation_counts_vectorized(y, p):
    """The five counts of :func:`per_observation_counts` from n x n sign matrices (n <~ 5000)."""
    y = np.asarray(y, float)
    p = np.asarray(p, float)
    sy = np.sign(y[None, :] - y[:, None])
    sp = np.sign(p[None, :] - p[:, None])
    prod = sy * sp
    off = ~np.eye(len(y), dtype=bool)
    return np.array(
        [
            (prod > 0).sum(1),
            (prod < 0).sum(1),
            ((sy == 0) & (sp != 0)).sum(1),
            ((sp == 0) & (sy != 0)).sum(1),
            ((sy == 0) & (sp == 0) & off).sum(1),
        ]
    )


def statistics_of_sums(sums, axis=-1):
    """``(tau_b, rho, harrell_c)`` along ``axis`` from the rank kernels' group sums (their
    order: ``ranklens._compute.xp.rank.GROUP_SUMS``), through the one statistics code every engine
    uses; the other axes are kept."""
    from ranklens._compute.xp.rank import GROUP_SUMS, replicate_classes
    from ranklens._foundation.forms import RankStatistic

    sums = np.moveaxis(np.asarray(sums, dtype=np.float64), axis, -1)
    classes = replicate_classes({k: sums[..., i] for i, k in enumerate(GROUP_SUMS)})
    statistics = (RankStatistic.KENDALL_TAU_B, RankStatistic.SPEARMAN_RHO, RankStatistic.HARRELL_C)
    return np.moveaxis(np.stack([np.asarray(s(classes)) for s in statistics], axis=-1), -1, axis)
