"""Definitional references for NDCG: brute force over tie orders, exact integer arithmetic."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np


def _dcg_of_order(gains, k):
    return math.fsum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))


def ndcg_tie_orders(y_true, y_pred, k=None, exponential=False):
    """NDCG averaged over every ordering of the rows tied in y_pred (the meaning of tie-averaging).

    Brute force: enumerates the product of the tie-block permutations, so keep n small (<= 8).
    """
    y = [float(v) for v in y_true]
    n = len(y)
    k = n if k is None else min(k, n)
    gains = [2.0**v - 1.0 if exponential else v for v in y]
    ideal = _dcg_of_order(sorted(gains, reverse=True), k)
    if ideal == 0:
        return math.nan
    distinct = sorted(set(float(v) for v in y_pred), reverse=True)
    blocks = [[i for i in range(n) if float(y_pred[i]) == v] for v in distinct]
    values = []
    for perms in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [i for block in perms for i in block]
        values.append(_dcg_of_order([gains[i] for i in order], k) / ideal)
    return math.fsum(values) / len(values)


def repeat_rows(y_true, y_pred, counts):
    """The rows repeated ``counts`` times each (integer case weights as multiplicities)."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.repeat(np.asarray(y_true), counts), np.repeat(np.asarray(y_pred), counts)


def rank_distance_ndcg_exact(true_rank, pred_rank, n, k=None):
    """Payne, Li & Qin (2016): exact integer gains 2^rel - 1, rel = max(0, n - |p - t|).

    The gain ratios (2^rel - 1) / (2^n - 1) are exact fractions, so this works for any n.
    """
    pairs = sorted(zip(true_rank, pred_rank, strict=True))
    if k is not None:
        pairs = pairs[:k]
    top = 2**n - 1
    num = []
    weights = []
    for i, (t, p) in enumerate(pairs, start=1):
        rel = max(0, n - abs(int(p) - int(t)))
        w = 1.0 / math.log2(i + 1)
        num.append(w * float(Fraction(2**rel - 1, top)))
        weights.append(w)
    return math.fsum(num) / math.fsum(weights)


def ndcg_exact_exponential(y_true, y_pred):
    """Exponential-gain NDCG for integer y of any size, exact integer gains; no ties in y_pred."""
    order = sorted(range(len(y_true)), key=lambda i: -y_pred[i])
    gains = [2 ** int(v) - 1 for v in y_true]
    g_max = max(gains)
    scaled = [float(Fraction(g, g_max)) for g in gains]
    dcg = math.fsum(scaled[i] / math.log2(pos + 2) for pos, i in enumerate(order))
    ideal = math.fsum(g / math.log2(pos + 2) for pos, g in enumerate(sorted(scaled, reverse=True)))
    return dcg / ideal
