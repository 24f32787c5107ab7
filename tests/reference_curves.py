"""Definitional (slow) twins of the business curves, for small data with ties.

Each function follows the definition directly (a mask per threshold, a loop over pairs, an
average over every order of the tied rows) and shares no code with ``ranklens.targeting``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np


def roc_points(events, score, weight=None):
    """(fpr, tpr, thresholds): one point per distinct score, by masking ``score >= t``."""
    events = np.asarray(events, dtype=bool)
    score = np.asarray(score, dtype=float)
    w = np.ones(score.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    keep = w > 0
    events, score, w = events[keep], score[keep], w[keep]
    p, n = w[events].sum(), w[~events].sum()
    thresholds = [math.inf, *sorted(set(score.tolist()), reverse=True)]
    tpr, fpr = [], []
    for t in thresholds:
        targeted = score >= t
        tpr.append(w[targeted & events].sum() / p)
        fpr.append(w[targeted & ~events].sum() / n)
    return np.array(fpr), np.array(tpr), np.array(thresholds)


def auc_pairs(events, score, weight=None):
    """P(score of an event > score of a non-event) + 1/2 P(tie), over all weighted pairs."""
    events = np.asarray(events, dtype=bool)
    score = np.asarray(score, dtype=float)
    w = np.ones(score.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    num = den = 0.0
    for i in np.flatnonzero(events):
        for j in np.flatnonzero(~events):
            pair = w[i] * w[j]
            den += pair
            num += pair * (1.0 if score[i] > score[j] else 0.5 if score[i] == score[j] else 0.0)
    return num / den


def expected_captured(response, score):
    """E[sum of response over the first k rows] for k = 0..n, over every order of tied scores.

    The rows are ranked by decreasing score; rows with equal scores are permuted in every
    possible way (all orders equally likely) and the captured totals averaged. Only for n <= 8.
    """
    response = np.asarray(response, dtype=float)
    score = np.asarray(score, dtype=float)
    n = score.shape[0]
    groups = [np.flatnonzero(score == s) for s in sorted(set(score.tolist()), reverse=True)]
    total = np.zeros(n + 1)
    count = 0
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranked = np.concatenate([np.array(o, dtype=int) for o in orders])
        total += np.concatenate(([0.0], np.cumsum(response[ranked])))
        count += 1
    return total / count


def top_events(y, q, weight=None):
    """Events of 'top:q': y >= v for the largest v whose upper tail holds >= q of the weight."""
    y = np.asarray(y, dtype=float)
    w = np.ones(y.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    total = w.sum()
    for v in sorted(set(y[w > 0].tolist()), reverse=True):
        if w[y >= v].sum() >= q * total - 1e-9:
            return y >= v
    raise AssertionError("unreachable")


def group_overlap_table(response, score, weight, n_bins):
    """Bin sums by overlap: each tie group is an interval of cumulative weight with its mean rate.

    Returns (count, events) per bin: the weight of each group falling in the bin, and that weight
    times the group's mean response.
    """
    response = np.asarray(response, dtype=float)
    score = np.asarray(score, dtype=float)
    w = np.ones(score.shape[0]) if weight is None else np.asarray(weight, dtype=float)
    total = w.sum()
    count = np.zeros(n_bins)
    events = np.zeros(n_bins)
    start = 0.0
    for s in sorted(set(score[w > 0].tolist()), reverse=True):
        members = (score == s) & (w > 0)
        gw = w[members].sum()
        rate = (w[members] * response[members]).sum() / gw
        end = start + gw
        for b in range(n_bins):
            lo, hi = b * total / n_bins, (b + 1) * total / n_bins
            overlap = max(0.0, min(end, hi) - max(start, lo))
            count[b] += overlap
            events[b] += overlap * rate
        start = end
    return count, events


def profit_at_counts(events, score, matrix):
    """Expected profit for k = 0..n targets (random order of ties), from a 2x2 matrix."""
    events = np.asarray(events, dtype=float)
    (b_tp, b_fn), (b_fp, b_tn) = matrix
    tp = expected_captured(events, score)
    k = np.arange(events.shape[0] + 1, dtype=float)
    fp = k - tp
    p = events.sum()
    n = events.shape[0] - p
    return b_tp * tp + b_fn * (p - tp) + b_fp * fp + b_tn * (n - fp)


def ks_two_sample(events, score):
    """Largest gap between the empirical CDFs of the scores of events and non-events."""
    events = np.asarray(events, dtype=bool)
    score = np.asarray(score, dtype=float)
    a, b = score[events], score[~events]
    best = 0.0
    for t in np.unique(score):
        best = max(best, abs((a <= t).mean() - (b <= t).mean()))
    return best
