"""GPU (CuPy) against CPU (numba, all cores): bootstrap rank measures and exact tau-b.

Run on a machine with CuPy and a CUDA device::

    PYTHONPATH=src python benchmarks/bench_gpu.py [--json out.json] [--quick]

1. Bootstrap: 1000 replicates of Kendall's tau-b, Spearman's rho and Harrell's C (the AUC for a
   binary outcome; one sweep gives all three) for two models at n = 1e5, 1e6, 1e7. The GPU
   draws the multiplicities on the device and evaluates every replicate
   (:mod:`ranklens._compute.xp.rank`); the CPU runs the numba engine of ``compare_models``
   (``rank_replicates_parallel``, every core) on the first replicates of the same
   multiplicities, and its time for 1000 is extrapolated linearly from them (stated in the
   output). Where the GPU too runs fewer than 1000 (n = 1e7), its time is extrapolated the same
   way. Both engines' values for the shared replicates are compared.
2. AUC of a binary outcome at n = 1e6 (Harrell's C with 30 % events), 1000 replicates.
3. ``compare_models(device="gpu")`` end to end at n = 1e6, 1000 replicates, percentile intervals.
4. Exact tau-b of one sample at n = 1e7 and 1e8: :func:`ranklens._compute.xp.rank.exact_pair_counts`
   on the device (host-to-device copy included and not), the public ``kendall_tau`` of device
   inputs copied from host arrays (copy and validation included), against the CPU's
   ``ranklens.kendall_tau`` (numba; one thread: its sweep is sequential).

5. ``--only summary,bands`` runs instead: ``ranking_summary`` of device inputs at n = 1e6 and 1e7
   against the CPU, and ``curve_bands(device="gpu")`` (cutoff AUC and rank lift, two models)
   with 1000 replicates at 1e6 and 200 at 1e7 against the CPU's sweep engine (a few replicates,
   extrapolated linearly).
6. Targeting (also ``--only targeting``): 1000 replicates of the seven targeting scalars
   (``roc_auc``, ``ks_statistic``, ``gain_area``, ``accuracy_ratio``, ``lift_at_5/10/20``) for
   two models at n = 1e5, 1e6 (a binary outcome with 30 % events, and a continuous one whose
   events are each replicate's true top 10 %) and 1e7: the registered replicate sweep's
   array-namespace form on the device (:mod:`ranklens._compute.xp.targeting`) against its numba form
   on the CPU (every core) on the first replicates of the same multiplicities (extrapolated
   linearly, as above), values compared; ``compare_models(device="gpu")`` with the seven
   measures end to end at 1e6; the weighted ``ranking_summary`` of device inputs at 1e6 and 1e7.

Prints the device, the CPU's cores and threads, each time and the CPU/GPU ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

import numpy as np


def _sync(cp):
    cp.cuda.Device().synchronize()


def _data(n, seed=0, binary=False):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    if binary:
        y = (y > np.quantile(y, 0.7)).astype(np.float64)
    p1 = y + rng.normal(size=n)
    p2 = np.round(y + 1.5 * rng.normal(size=n), 2)
    return y, np.stack([p1, p2])


def _cpu_prepare(y, preds):
    from ranklens._compute.xp.sequence import order_by_y_then_pred, prepare_ranks

    orders, y_sorted, p_sorted, n_preds = [], [], [], []
    for pred in preds:
        order, y_rank, pred_rank = prepare_ranks(y, pred)
        by_y = np.ascontiguousarray(order_by_y_then_pred(order, y_rank)[::-1])
        orders.append(by_y)
        y_sorted.append(y_rank[by_y])
        p_sorted.append(pred_rank[by_y])
        n_preds.append(int(pred_rank.max()) + 1)
    return (
        np.stack(orders),
        np.stack(y_sorted),
        np.stack(p_sorted),
        np.array(n_preds, dtype=np.int64),
    )


def _time_device_replicates(cp, n, gpu_reps, cpu_reps, chunk, evaluate):
    """Draw ``gpu_reps`` replicates of multiplicities on the device, ``chunk`` at a time, and
    evaluate each chunk (``evaluate(mult)``, host values): the values, the first ``cpu_reps``
    multiplicities (on the host, for the CPU to run the same replicates) and the seconds."""
    from ranklens._compute.xp import to_host
    from ranklens._inference.device_engine import draw_multiplicities

    gen = cp.random.default_rng(0)
    t0 = time.perf_counter()
    done, first, out = 0, None, []
    while done < gpu_reps:
        rows = min(chunk, gpu_reps - done)
        mult = draw_multiplicities(cp, gen, n, rows)
        if first is None:
            first = to_host(mult[:cpu_reps])
        out.append(evaluate(mult))
        done += rows
        del mult
    _sync(cp)
    return np.concatenate(out), first, time.perf_counter() - t0


def _time_cpu_replicates(evaluate, multiplicities):
    """``evaluate(weights)`` of the CPU engine on the replicates' multiplicities, timed after a
    warm-up on the first two (numba compiles): the values and the seconds."""
    weights = multiplicities.astype(np.float64)
    evaluate(weights[:2])  # compile / warm
    t0 = time.perf_counter()
    values = evaluate(weights)
    return values, time.perf_counter() - t0


def _replicates_row(case, n, n_boot, setup, gpu, cpu, chunk=None):
    """The figures of one replicate benchmark, printed and returned: ``setup`` is the name and
    seconds of the device's one-off sorts, ``gpu`` and ``cpu`` the (values, seconds, replicates
    timed) of each engine on the same first replicates, extrapolated linearly to ``n_boot``."""
    setup_key, t_setup = setup
    gpu_vals, t_gpu, gpu_reps = gpu
    cpu_vals, t_cpu, cpu_reps = cpu
    t_gpu_full = t_gpu * n_boot / gpu_reps
    t_cpu_full = t_cpu * n_boot / cpu_reps
    diff = float(np.nanmax(np.abs(cpu_vals - gpu_vals[:cpu_reps])))
    same_nan = bool(np.array_equal(np.isnan(cpu_vals), np.isnan(gpu_vals[:cpu_reps])))
    row = {
        "case": case,
        "n": n,
        "replicates": n_boot,
        "gpu_replicates_timed": gpu_reps,
        "cpu_replicates_timed": cpu_reps,
        setup_key: t_setup,
        "gpu_s": t_gpu_full,
        "gpu_ms_per_model_replicate": 1e3 * t_gpu / gpu_reps / 2,
        "cpu_s": t_cpu_full,
        "cpu_ms_per_model_replicate": 1e3 * t_cpu / cpu_reps / 2,
        "ratio_cpu_over_gpu": t_cpu_full / (t_gpu_full + t_setup),
        "max_abs_diff_same_weights": diff,
        "nan_pattern_equal": same_nan,
    }
    per_chunk = "" if chunk is None else f", {chunk} per chunk"
    print(
        f"{case}: GPU {t_gpu_full:.3f} s for {n_boot} (+{t_setup:.3f} s sorts; "
        f"{gpu_reps} timed{per_chunk}) | CPU {t_cpu_full:.2f} s ({cpu_reps} timed, "
        f"extrapolated) | CPU/GPU {row['ratio_cpu_over_gpu']:.1f}x | max |diff| {diff:.1e}",
        flush=True,
    )
    return row


def bench_bootstrap(cp, n, n_boot, gpu_reps, cpu_reps, binary=False, label=None):
    from ranklens._compute.kernels.compare import rank_replicates_parallel
    from ranklens._inference.device_engine import RankEvaluator

    y, preds = _data(n, binary=binary)
    # GPU: plans (sorts) once, then replicates drawn and evaluated on the device
    y_d = cp.asarray(y)
    preds_d = [cp.asarray(p) for p in preds]
    _sync(cp)
    t0 = time.perf_counter()
    evaluator = RankEvaluator([0], [None], cp, y_d, preds_d, None)
    _sync(cp)
    t_plan = time.perf_counter() - t0
    chunk = max(1, min(gpu_reps, int(2e9 // (16 * n))))
    gpu_vals, first, t_gpu = _time_device_replicates(
        cp, n, gpu_reps, cpu_reps, chunk, evaluator.raw
    )
    # CPU: the numba engine on the same first replicates (all cores)
    prepared = _cpu_prepare(y, preds)
    cpu_vals, t_cpu = _time_cpu_replicates(
        lambda w: rank_replicates_parallel(w, np.ones(n), *prepared), first
    )
    return _replicates_row(
        label or f"bootstrap tau/rho/C, 2 models, n={n:.0e}",
        n,
        n_boot,
        ("gpu_plan_s", t_plan),
        (gpu_vals, t_gpu, gpu_reps),
        (cpu_vals, t_cpu, cpu_reps),
    )


def bench_compare_models(cp, n, n_boot, *, targeting=False):
    """``compare_models(device="gpu")`` end to end (the host-to-device copies and the point
    estimates on the CPU included) with the three rank measures, or the seven targeting ones."""
    from ranklens import compare_models

    if targeting:
        metrics, measures, first = TARGETING, "the 7 targeting measures", "the AUC"
    else:
        metrics, measures, first = RANK, "3 rank measures", "tau"
    case = "compare_models targeting gpu" if targeting else "compare_models gpu"
    y, preds = _data(n)
    t0 = time.perf_counter()
    res = compare_models(
        cp.asarray(y),
        {"m1": cp.asarray(preds[0]), "m2": cp.asarray(preds[1])},
        metrics=metrics,
        n_bootstrap=n_boot,
        device="gpu",
        interval="percentile",
        random_state=0,
    )
    t = time.perf_counter() - t0
    print(
        f"compare_models(device='gpu') n={n:.0e}, {n_boot} replicates, {measures}, 2 models, "
        f"percentile: {t:.2f} s end to end (point estimates on the CPU included); "
        f"SE of {first} {res.std_error[0].round(6).tolist()}",
        flush=True,
    )
    return {"case": f"{case} n={n:.0e}", "n": n, "replicates": n_boot, "s": t}


def bench_exact(cp, n):
    from ranklens import kendall_tau
    from ranklens._compute.xp.rank import classes_from_counts, exact_pair_counts
    from ranklens._foundation.forms import RankStatistic

    y, preds = _data(n, seed=1)
    p = preds[1]
    t0 = time.perf_counter()
    y_d, p_d = cp.asarray(y), cp.asarray(p)
    _sync(cp)
    t_copy = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts = exact_pair_counts(cp, y_d, p_d)
    _sync(cp)
    t_gpu = time.perf_counter() - t0
    tau_gpu = float(RankStatistic.KENDALL_TAU_B(classes_from_counts(counts)))
    del y_d, p_d
    cp.get_default_memory_pool().free_all_blocks()
    t0 = time.perf_counter()
    tau_api = kendall_tau(cp.asarray(y), cp.asarray(p))  # the public call, copies included
    t_api = time.perf_counter() - t0
    cp.get_default_memory_pool().free_all_blocks()
    kendall_tau(y[:1000], p[:1000])  # compile / warm
    t0 = time.perf_counter()
    tau_cpu = kendall_tau(y, p)
    t_cpu = time.perf_counter() - t0
    row = {
        "case": f"exact tau-b n={n:.0e}",
        "n": n,
        "gpu_s": t_gpu,
        "gpu_with_copy_s": t_gpu + t_copy,
        "cpu_s": t_cpu,
        "ratio_cpu_over_gpu": t_cpu / t_gpu,
        "kendall_tau_device_gpu_s": t_api,
        "tau_gpu": tau_gpu,
        "tau_public_call": tau_api,
        "tau_cpu": tau_cpu,
        "abs_diff": abs(tau_gpu - tau_cpu),
        "discordant": counts["discordant"],
    }
    print(
        f"exact tau-b n={n:.0e}: GPU {t_gpu:.3f} s ({t_gpu + t_copy:.3f} s with the copy) | "
        f"kendall_tau of device copies of host arrays {t_api:.3f} s | "
        f"CPU kendall_tau {t_cpu:.2f} s | CPU/GPU {t_cpu / t_gpu:.1f}x | "
        f"tau {tau_gpu!r} vs {tau_cpu!r}",
        flush=True,
    )
    return row


def profile_level(cp, n, rows):
    """Milliseconds of one level's steps for a chunk of ``rows`` replicates, beside a plain copy
    of the chunk's int32 weights (the memory-bandwidth floor of one pass)."""
    from ranklens._compute.xp.rank import _prefix, build_plan

    y, preds = _data(n)
    plan = build_plan(cp, cp.asarray(y), cp.asarray(preds[0]))
    ws = cp.random.default_rng(1).integers(0, 3, size=(rows, n), dtype=cp.int64).astype(cp.int32)
    perm = plan.perms[len(plan.perms) // 2]
    left = ((perm >> 5) & 1) == 0
    zero = cp.zeros((), dtype=cp.int32)

    def timed(fn, reps=5):
        fn()
        _sync(cp)
        t0 = time.perf_counter()
        for _ in range(reps):
            out = fn()
        _sync(cp)
        return 1e3 * (time.perf_counter() - t0) / reps, out

    t_copy, _ = timed(lambda: ws.copy())
    t_gather, wl = timed(lambda: ws[:, perm])
    t_where, masked = timed(lambda: cp.where(left, wl, zero))
    t_scan, s = timed(lambda: _prefix(cp, masked, cp.int64, True))
    t_dot, _ = timed(lambda: cp.sum(cp.where(left, zero, wl) * s, axis=1))
    from ranklens._compute.xp import cuda
    from ranklens._compute.xp.rank import generic_level_term

    t_generic, generic = timed(lambda: generic_level_term(cp, ws[:, perm], left, cp.int64, True))
    t_fused, fused = timed(lambda: cuda.level_term(ws, perm, 5))
    same = bool((generic == fused).all())
    gb = ws.nbytes / 1e9
    row = {
        "case": f"profile one level, {rows} replicates, n={n:.0e}",
        "copy_ms": t_copy,
        "copy_GBps": 2 * gb / (t_copy / 1e3),
        "gather_ms": t_gather,
        "where_ms": t_where,
        "prefix_sum_ms": t_scan,
        "masked_dot_ms": t_dot,
        "level_generic_ms": t_generic,
        "level_fused_ms": t_fused,
        "fused_equals_generic": same,
    }
    print(
        f"{row['case']}: copy {t_copy:.2f} ms ({row['copy_GBps']:.0f} GB/s) | gather "
        f"{t_gather:.2f} | where {t_where:.2f} | prefix sum {t_scan:.2f} | masked dot "
        f"{t_dot:.2f} ms | whole level: generic {t_generic:.2f} ms, fused RawKernel "
        f"{t_fused:.2f} ms (equal: {same})",
        flush=True,
    )
    return row


def bench_summary(cp, n):
    """``ranking_summary`` (every field, the Noether variance included) on the GPU and the CPU."""
    from ranklens import ranking_summary

    y, preds = _data(n, seed=2)
    p = preds[1]  # rounded: ties in the prediction
    t0 = time.perf_counter()
    cpu = ranking_summary(y, p)
    t_cpu = time.perf_counter() - t0
    y_d, p_d = cp.asarray(y), cp.asarray(p)
    _sync(cp)
    t0 = time.perf_counter()
    dev = ranking_summary(y_d, p_d)
    _sync(cp)
    t_gpu = time.perf_counter() - t0
    t0 = time.perf_counter()
    ranking_summary(cp.asarray(y), cp.asarray(p))
    _sync(cp)
    t_host = time.perf_counter() - t0
    same = dev.exact_counts == cpu.exact_counts and abs(
        dev.tau_variance_unbiased - cpu.tau_variance_unbiased
    ) <= 1e-12 * abs(cpu.tau_variance_unbiased)
    print(
        f"ranking_summary n={n:.0e}: GPU {t_gpu:.3f} s (device arrays), {t_host:.3f} s (from host "
        f"arrays, copy included); CPU {t_cpu:.3f} s; ratio {t_cpu / t_gpu:.1f}x; "
        f"equal counts and variance: {same}",
        flush=True,
    )
    return {
        "case": f"ranking_summary n={n:.0e}",
        "n": n,
        "gpu_s": t_gpu,
        "gpu_from_host_s": t_host,
        "cpu_s": t_cpu,
        "equal": bool(same),
    }


def bench_bands(cp, n, n_boot, cpu_boot, curve):
    """``curve_bands`` of two models on the GPU (``n_boot`` replicates) and the CPU
    (``cpu_boot`` replicates, its time for ``n_boot`` extrapolated linearly from the replicate
    part, the point estimates timed apart)."""
    from ranklens import curve_bands

    y, preds = _data(n, seed=3)
    models = {"m1": preds[0], "m2": preds[1]}
    t0 = time.perf_counter()
    curve_bands(y, models, curve=curve, n_bootstrap=2, random_state=0)
    t_fixed = time.perf_counter() - t0  # estimate, sorts and 2 replicates
    t0 = time.perf_counter()
    curve_bands(y, models, curve=curve, n_bootstrap=cpu_boot, random_state=0)
    t_cpu_run = time.perf_counter() - t0
    per_rep = max(t_cpu_run - t_fixed, 0.0) / max(cpu_boot - 2, 1)
    t_cpu = t_cpu_run + per_rep * (n_boot - cpu_boot)
    _sync(cp)
    t0 = time.perf_counter()
    res = curve_bands(y, models, curve=curve, n_bootstrap=n_boot, random_state=0, device="gpu")
    _sync(cp)
    t_gpu = time.perf_counter() - t0
    print(
        f"curve_bands {curve} n={n:.0e}, {n_boot} replicates, 2 models: GPU {t_gpu:.2f} s end to "
        f"end; CPU {t_cpu:.1f} s (extrapolated from {cpu_boot} replicates: {t_cpu_run:.2f} s, "
        f"{per_rep * 1e3:.1f} ms per replicate); ratio {t_cpu / t_gpu:.1f}x; "
        f"band width at 0.5: {float(res.upper[0, 49] - res.lower[0, 49]):.5f}",
        flush=True,
    )
    return {
        "case": f"curve_bands {curve} n={n:.0e}",
        "n": n,
        "replicates": n_boot,
        "gpu_s": t_gpu,
        "cpu_s_extrapolated": t_cpu,
        "cpu_replicates_run": cpu_boot,
        "cpu_run_s": t_cpu_run,
    }


RANK = ["kendall_tau", "spearman_rho", "tau_normalized"]
TARGETING = [
    "roc_auc",
    "ks_statistic",
    "gain_area",
    "accuracy_ratio",
    "lift_at_5",
    "lift_at_10",
    "lift_at_20",
]


def bench_targeting(cp, n, n_boot, gpu_reps, cpu_reps, binary):
    """The seven targeting scalars of ``n_boot`` replicates for two models: the replicate sweep
    on the GPU (``gpu_reps`` timed) and on the CPU (numba, ``cpu_reps`` timed), extrapolated."""
    from ranklens._compute.xp import free_bytes, to_host
    from ranklens._compute.xp.targeting import sums_bytes
    from ranklens.metrics import get_metric

    forms = [get_metric(name).capabilities.batched for name in TARGETING]
    sweep = forms[0].sweep
    statistics = tuple(f.statistic for f in forms)
    y, preds = _data(n, binary=binary)
    y_d, preds_d = cp.asarray(y), cp.asarray(preds)
    _sync(cp)
    t0 = time.perf_counter()
    state = sweep.device_prepare(cp, y_d, preds_d, {})
    _sync(cp)
    t_sort = time.perf_counter() - t0
    chunk = max(1, min(gpu_reps, int(free_bytes(cp) * 0.4) // (sums_bytes(n) + 16 * n)))
    gpu_vals, first, t_gpu = _time_device_replicates(
        cp,
        n,
        gpu_reps,
        cpu_reps,
        chunk,
        lambda mult: to_host(sweep.device_evaluate(cp, state, mult, statistics)),
    )
    cpu_state = sweep.prepare(y, preds, {})
    cpu_vals, t_cpu = _time_cpu_replicates(
        lambda w: sweep.evaluate(cpu_state, w, statistics), first
    )
    kind = "binary y, 30% events" if binary else "continuous y, top-10% events per replicate"
    return _replicates_row(
        f"bootstrap 7 targeting scalars ({kind}), 2 models, n={n:.0e}",
        n,
        n_boot,
        ("gpu_sort_s", t_sort),
        (gpu_vals, t_gpu, gpu_reps),
        (cpu_vals, t_cpu, cpu_reps),
        chunk=chunk,
    )


def bench_weighted_summary(cp, n):
    """The weighted ``ranking_summary`` (integer case weights) on the GPU and the CPU."""
    import warnings

    from ranklens import ranking_summary

    y, preds = _data(n, seed=5)
    p = preds[1]
    sw = np.random.default_rng(6).integers(0, 4, n).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no variance with case weights (warned)
        t0 = time.perf_counter()
        cpu = ranking_summary(y, p, sample_weight=sw)
        t_cpu = time.perf_counter() - t0
        args = cp.asarray(y), cp.asarray(p), cp.asarray(sw)
        _sync(cp)
        t0 = time.perf_counter()
        dev = ranking_summary(args[0], args[1], sample_weight=args[2])
        _sync(cp)
        t_gpu = time.perf_counter() - t0
    diff = abs(dev.kendall_tau - cpu.kendall_tau) + abs(dev.spearman_rho - cpu.spearman_rho)
    print(
        f"weighted ranking_summary n={n:.0e}: GPU {t_gpu:.3f} s (device arrays); CPU "
        f"{t_cpu:.3f} s; ratio {t_cpu / t_gpu:.1f}x; |diff| tau + rho {diff:.1e}",
        flush=True,
    )
    return {
        "case": f"weighted ranking_summary n={n:.0e}",
        "n": n,
        "gpu_s": t_gpu,
        "cpu_s": t_cpu,
        "abs_diff_tau_rho": diff,
    }


def run_targeting(cp, quick):
    bench_targeting(cp, 20_000, 8, 8, 2, binary=True)  # warm-up (CuPy and numba compile)
    rows = []
    if quick:
        rows.append(bench_targeting(cp, 100_000, 100, 100, 8, binary=False))
        return rows
    rows.append(bench_targeting(cp, 100_000, 1000, 1000, 64, binary=False))
    rows.append(bench_targeting(cp, 1_000_000, 1000, 1000, 32, binary=True))
    rows.append(bench_targeting(cp, 1_000_000, 1000, 1000, 32, binary=False))
    rows.append(bench_targeting(cp, 10_000_000, 1000, 200, 8, binary=False))
    rows.append(bench_compare_models(cp, 1_000_000, 1000, targeting=True))
    for n in (1_000_000, 10_000_000):
        rows.append(bench_weighted_summary(cp, n))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--skip-exact-1e8", action="store_true")
    parser.add_argument(
        "--only",
        help="comma-separated groups to run instead of the full set: summary (ranking_summary at "
        "1e6 and 1e7), bands (curve_bands at 1e6 and 1e7), targeting (the targeting scalars' "
        "bootstrap, compare_models with them, the weighted ranking_summary)",
    )
    args = parser.parse_args(argv)
    import cupy as cp
    import numba

    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    _free, total = cp.cuda.runtime.memGetInfo()
    info = {
        "device": name,
        "device_memory_gib": round(total / 2**30, 1),
        "cupy": cp.__version__,
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpu_cores": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "python": platform.python_version(),
    }
    print("GPU:", name, f"({info['device_memory_gib']} GiB), CuPy {cp.__version__}", flush=True)
    print(
        f"CPU: {info['cpu_cores']} cores, numba {numba.__version__} with "
        f"{info['numba_threads']} threads; Python {info['python']}",
        flush=True,
    )
    rows = []
    # warm up: CuPy compiles its kernels on first use
    if not args.only:
        bench_bootstrap(cp, 20_000, 8, 8, 2, label="warm-up")
    only = set(args.only.split(",")) if args.only else set()
    if only - {"summary", "bands", "targeting"}:
        parser.error(f"--only takes summary, bands and targeting; got {args.only!r}")
    if "targeting" in only:
        rows.extend(run_targeting(cp, args.quick))
    if only - {"targeting"}:
        from ranklens import curve_bands, ranking_summary

        y0, p0 = _data(20_000, seed=4)
        ranking_summary(cp.asarray(y0), cp.asarray(p0[1]))  # warm-up (compiles)
        for c in ("cutoff_auc", "rank_lift"):
            curve_bands(y0, {"a": p0[0]}, curve=c, n_bootstrap=4, device="gpu")
            curve_bands(y0, {"a": p0[0]}, curve=c, n_bootstrap=4)
        ranking_summary(y0, p0[1])
    if "summary" in only:
        for n in (1_000_000, 10_000_000):
            rows.append(bench_summary(cp, n))
    if "bands" in only:
        for c in ("cutoff_auc", "rank_lift"):
            rows.append(bench_bands(cp, 1_000_000, 1000, 12, c))
            rows.append(bench_bands(cp, 10_000_000, 200, 4, c))
    if only:
        pass
    elif args.quick:
        rows.append(bench_bootstrap(cp, 100_000, 100, 100, 8))
        rows.append(bench_exact(cp, 1_000_000))
        rows.extend(run_targeting(cp, True))
    else:
        rows.append(bench_bootstrap(cp, 100_000, 1000, 1000, 64))
        rows.append(bench_bootstrap(cp, 1_000_000, 1000, 1000, 32))
        rows.append(profile_level(cp, 1_000_000, 200))
        rows.append(
            bench_bootstrap(
                cp,
                1_000_000,
                1000,
                1000,
                32,
                binary=True,
                label="bootstrap AUC (binary y, 30% events), 2 models, n=1e+06",
            )
        )
        rows.append(bench_bootstrap(cp, 10_000_000, 1000, 200, 8))
        rows.append(bench_compare_models(cp, 1_000_000, 1000))
        rows.append(bench_exact(cp, 10_000_000))
        if not args.skip_exact_1e8:
            rows.append(bench_exact(cp, 100_000_000))
        rows.extend(run_targeting(cp, False))
    from ranklens._compute.xp import cuda

    print("level term kernel used by the engine:", cuda.STATUS["level_term"], flush=True)
    info["level_term"] = cuda.STATUS["level_term"]
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"info": info, "rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
