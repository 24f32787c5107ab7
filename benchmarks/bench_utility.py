"""Benchmark: utility-based precision / recall / F, SERA and the medcouple.

Compares, in one run:
- ``regression_precision_recall`` (precision, recall and F together) at n = 1e7 against the
  best plain NumPy/SciPy implementation a user would write (``scipy.special.expit`` sigmoids,
  boolean masks); target: under 2 s.
- exact SERA (one pass) against IRon's approach (SER_t at 1001 thresholds, trapezoid rule).
- the O(n log n) medcouple against the O(n^2) definition (as ``statsmodels`` computes it).

Run ``python benchmarks/bench_utility.py`` (add ``--quick`` for a few seconds' run).
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import best_time, peak_mib
from scipy.special import expit

from ranklens import (
    SigmoidRelevance,
    medcouple,
    regression_precision_recall,
    sera,
    smooth_accuracy,
)


def numpy_precision_recall(y, p, c_low, c_high, k, delta, t_e, t_l, k_acc):
    """Vectorised Torgo & Ribeiro (2009) eqs. 4-11 in plain NumPy / SciPy."""
    s = np.log(1 / delta - 1)

    def phi(v):
        return np.maximum(
            expit(-s / abs(c_low * k) * (v - c_low)), expit(s / abs(c_high * k) * (v - c_high))
        )

    pt, pp = phi(y), phi(p)
    loss = np.abs(p - y)
    alpha = np.where(loss <= t_l, 1 - np.exp(-k_acc * (loss - t_l) ** 2 / t_l**2), 0.0)
    et, ep = pt >= t_e, pp >= t_e
    recall = np.sum(alpha[et] * pt[et]) / np.sum(pt[et])
    precision = np.sum(alpha[ep] * pp[ep]) / np.sum(pp[ep])
    return precision, recall, 2 * precision * recall / (precision + recall)


def iron_sera(y, p, phi_y, step=0.001):
    """SER_t at every t on a grid, then the trapezoid rule (IRon's ``sera``)."""
    sq = (p - y) ** 2
    ts = np.arange(0.0, 1.0 + step / 2, step)
    ser = np.array([sq[phi_y >= t].sum() for t in ts])
    return float(np.sum(np.diff(ts) * (ser[1:] + ser[:-1]) / 2))


def brute_medcouple(x):
    x = np.sort(x)
    n = x.size
    med = x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2
    z = x - med
    upper = z[z >= 0][:, None]
    lower = z[z <= 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        h = (upper + lower) / (upper - lower)
    return float(np.median(h[np.isfinite(h)]))  # continuous data: no ties at the median


def main(quick: bool) -> None:
    rng = np.random.default_rng(0)
    n = 100_000 if quick else 10_000_000
    y = rng.standard_t(df=3, size=n)
    p = y + rng.normal(scale=0.5, size=n)
    phi = SigmoidRelevance(-2.0, 2.0, k=0.5, delta=1e-4)
    acc = smooth_accuracy(0.5, k=8)
    rows = []

    def ours():
        return regression_precision_recall(y, p, relevance=phi, event_threshold=0.75, accuracy=acc)

    def peer():
        return numpy_precision_recall(y, p, -2.0, 2.0, 0.5, 1e-4, 0.75, 0.5, 8)

    res, ref = ours(), peer()
    assert abs(res.precision - ref[0]) < 1e-9 and abs(res.recall - ref[1]) < 1e-9
    t_ours, t_peer = best_time(ours), best_time(peer)
    rows.append((f"precision+recall+F, n={n:.0e}", t_ours, "NumPy/SciPy vectorised", t_peer))
    mem_ours, mem_peer = peak_mib(ours), peak_mib(peer)

    n_sera = 10_000 if quick else 1_000_000
    ys, ps = y[:n_sera], p[:n_sera]
    phi_ys = phi(ys)
    exact = sera(ys, ps, relevance=phi)
    approx = iron_sera(ys, ps, phi_ys)
    t_sera = best_time(lambda: sera(ys, ps, relevance=phi))
    t_iron = best_time(lambda: iron_sera(ys, ps, phi_ys), repeats=1)
    rows.append((f"SERA exact, n={n_sera:.0e}", t_sera, "1001-threshold trapezoid (IRon)", t_iron))

    n_mc = 2_000 if quick else 6_000
    xm = rng.lognormal(size=n_mc)
    assert abs(medcouple(xm) - brute_medcouple(xm)) < 1e-12
    t_mc = best_time(lambda: medcouple(xm))
    t_bmc = best_time(lambda: brute_medcouple(xm), repeats=1)
    rows.append((f"medcouple, n={n_mc}", t_mc, "O(n^2) definition", t_bmc))
    n_big = 100_000 if quick else 1_000_000
    xb = rng.lognormal(size=n_big)
    t_big = best_time(lambda: medcouple(xb), repeats=1)

    print(f"{'task':34s} {'ranklens s':>11s}  {'peer':34s} {'peer s':>9s} {'ratio':>7s}")
    for task, a, name, b in rows:
        print(f"{task:34s} {a:11.4f}  {name:34s} {b:9.4f} {b / a:7.1f}x")
    print(
        f"peak memory, precision/recall n={n:.0e}: ranklens {mem_ours:.0f} MiB, "
        f"NumPy {mem_peer:.0f} MiB"
    )
    print(
        f"SERA: exact {exact:.6g}, 1001-step trapezoid {approx:.6g} "
        f"(relative difference {abs(approx - exact) / exact:.1e})"
    )
    print(
        f"medcouple at n={n_big:.0e}: {t_big:.3f} s (the O(n^2) version would need "
        f"{n_big**2 / 4 * 8 / 2**30:.0f} GiB)"
    )
    if not quick:
        verdict = "OK" if t_ours < 2.0 else "OVER TARGET"
        print(f"target: precision+recall+F at n=1e7 under 2 s -> {t_ours:.3f} s {verdict}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
