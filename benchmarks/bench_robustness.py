"""Benchmark: evaluation robustness, residual measures and error curves.

* ``most_influential`` for Kendall's tau, Spearman's rho (and their [0, 1] forms) at n = 1e6
  (target: under 5 s each), against a naive leave-one-out with scipy (one call timed, times n);
* ``most_influential`` for the additive losses and the median;
* every declared exact leave-one-out rule against one call of its measure (about one pass, not n);
* residual measures against scikit-learn (``mean_squared_error``, ``root_mean_squared_error``,
  ``mean_absolute_error``, ``median_absolute_error``) at n = 1e6 and 1e7;
* ``rec_curve`` and ``rroc_curve`` at n = 1e6.

Run ``python benchmarks/bench_robustness.py`` (``--quick`` for small n, seconds). Times are the
best of a few repeats after a warm-up call (numba compilation excluded); peak memory from
tracemalloc in a separate call.
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import best_time, peak_mib
from scipy import stats
from sklearn import metrics as skm

import ranklens


def data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.lognormal(mean=10, sigma=1.5, size=n)  # long-tailed "wallets"
    return y, y * rng.lognormal(sigma=0.8, size=n)


def human(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.3g} h"
    return f"{seconds / 86400:.3g} days"


def bench_influence(n: int) -> None:
    y, p = data(n)
    print(f"\nmost_influential, n = {n:,} (exact search over every observation)")
    print(f"{'measure':<24}{'ranklens':>12}{'peak MiB':>10}{'naive LOO (scipy)':>22}{'ratio':>12}")
    naive_single = {
        "kendall_tau": lambda: stats.kendalltau(y[1:], p[1:]),
        "spearman_rho": lambda: stats.spearmanr(y[1:], p[1:]),
    }
    for name in ("kendall_tau", "tau_normalized", "spearman_rho", "rho_normalized"):
        t = best_time(lambda name=name: ranklens.most_influential(y, p, name))
        mem = peak_mib(lambda name=name: ranklens.most_influential(y, p, name))
        base = name if name in naive_single else None
        if base:
            naive = best_time(naive_single[base], repeats=1) * n
            print(f"{name:<24}{t:>10.3f} s{mem:>10.0f}{human(naive):>22}{naive / t:>12.3g}")
        else:
            print(f"{name:<24}{t:>10.3f} s{mem:>10.0f}{'':>22}{'':>12}")
    for name in (
        "mean_squared_error",
        "root_mean_squared_error",
        "mean_absolute_error",
        "median_absolute_error",
        "rmspe",
        "log_rmse",
    ):
        t = best_time(lambda name=name: ranklens.most_influential(y, p, name))
        print(f"{name:<24}{t:>10.3f} s")


def bench_declared_leave_one_out(n: int) -> None:
    """Every declared exact leave-one-out rule against one call of its measure: recomputation
    would cost n calls, a declared rule about one O(n log n) pass (a ratio above 50 is flagged)."""
    from ranklens.metrics import available_metrics, get_metric

    y, p = data(n, seed=4)
    # the measures of a 0/1 target take events and probability scores
    rng = np.random.default_rng(5)
    scores = rng.uniform(0.02, 0.98, n)
    events = (rng.uniform(size=n) < scores).astype(np.float64)
    print(f"\ndeclared leave-one-out rules against one call, n = {n:,}")
    print(f"{'measure':<34}{'one call':>12}{'leave-one-out':>15}{'ratio':>9}")
    for name in available_metrics():
        spec = get_metric(name)
        loo = spec.capabilities.leave_one_out
        if loo is None:
            continue
        y_m, p_m = (events, scores) if spec.targets == "binary" else (y, p)
        one_call = best_time(lambda spec=spec, y_m=y_m, p_m=p_m: spec.func(y_m, p_m))
        all_out = best_time(lambda loo=loo, y_m=y_m, p_m=p_m: loo(y_m, p_m))
        flag = "  <- not one pass" if all_out > 50 * one_call + 0.05 else ""
        print(f"{name:<34}{one_call:>10.4f} s{all_out:>13.4f} s{all_out / one_call:>9.1f}{flag}")


def bench_residual(n: int) -> None:
    y, p = data(n, seed=1)
    w = np.random.default_rng(2).random(n)
    print(f"\nresidual measures vs scikit-learn, n = {n:,}")
    print(f"{'measure':<34}{'ranklens':>12}{'scikit-learn':>14}{'ratio (sk/rl)':>15}")
    pairs = [
        ("mean_squared_error", ranklens.mean_squared_error, skm.mean_squared_error),
        (
            "root_mean_squared_error",
            ranklens.root_mean_squared_error,
            skm.root_mean_squared_error,
        ),
        ("mean_absolute_error", ranklens.mean_absolute_error, skm.mean_absolute_error),
        ("median_absolute_error", ranklens.median_absolute_error, skm.median_absolute_error),
    ]
    for label, ours, theirs in pairs:
        for weighted in (False, True):
            kw = {"sample_weight": w} if weighted else {}
            a = ours(y, p, **kw)
            b = theirs(y, p, **kw)
            assert np.isclose(a, b, rtol=1e-9), (label, a, b)
            t_ours = best_time(lambda f=ours, kw=kw: f(y, p, **kw))
            t_theirs = best_time(lambda f=theirs, kw=kw: f(y, p, **kw))
            name = label + (" (weighted)" if weighted else "")
            print(f"{name:<34}{t_ours:>10.4f} s{t_theirs:>12.4f} s{t_theirs / t_ours:>15.2f}")
    for label, f in (("log_rmse", ranklens.log_rmse), ("rmspe", ranklens.rmspe)):
        print(f"{label:<34}{best_time(lambda f=f: f(y, p)):>10.4f} s")


def bench_curves(n: int) -> None:
    y, p = data(n, seed=3)
    print(f"\nerror curves, n = {n:,}")
    t_rec = best_time(lambda: ranklens.rec_curve(y, p))
    t_rroc = best_time(lambda: ranklens.rroc_curve(y, p))
    # an O(n^2) RROC (auditor) evaluates every shift against every error: time one shift, times n
    e = p - y
    one_shift = best_time(lambda: (np.maximum(e - e[0], 0).sum(), np.minimum(e - e[0], 0).sum()))
    print(f"rec_curve   {t_rec:>8.3f} s")
    print(
        f"rroc_curve  {t_rroc:>8.3f} s   O(n^2) sweep ~ {human(one_shift * n)} "
        f"(ratio {one_shift * n / t_rroc:.3g})"
    )


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    bench_influence(20_000 if quick else 1_000_000)
    bench_declared_leave_one_out(20_000 if quick else 200_000)
    for size in (100_000,) if quick else (1_000_000, 10_000_000):
        bench_residual(size)
    bench_curves(100_000 if quick else 1_000_000)
