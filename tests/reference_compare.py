"""Slow, definitional references for the comparison engine (``ranklens.compare``).

The engine never materialises a resample: it draws row indices, turns them into multiplicities and
evaluates every measure with case weights. These references do the textbook thing instead - index
the arrays with the drawn rows and call the plain function - from the same random stream.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def bootstrap_indices(n: int, n_bootstrap: int, random_state: int) -> list[np.ndarray]:
    """The rows of each replicate, drawn as ``compare_models`` documents: one
    ``Generator.integers`` call per replicate from the first child of ``random_state``."""
    boot_rng, _ = np.random.default_rng(random_state).spawn(2)
    dtype = np.int32 if n < 2**31 - 1 else np.int64
    return [boot_rng.integers(0, n, size=n, dtype=dtype) for _ in range(n_bootstrap)]


def materialised_bootstrap(
    y: np.ndarray,
    preds: Sequence[np.ndarray],
    funcs: Sequence[Callable[[np.ndarray, np.ndarray], float]],
    n_bootstrap: int,
    random_state: int,
) -> np.ndarray:
    """``(n_bootstrap, n_funcs, n_models)`` values of each function on materialised resamples."""
    out = np.empty((n_bootstrap, len(funcs), len(preds)))
    for b, rows in enumerate(bootstrap_indices(y.shape[0], n_bootstrap, random_state)):
        for k, func in enumerate(funcs):
            for m, pred in enumerate(preds):
                out[b, k, m] = func(y[rows], pred[rows])
    return out


def swap_masks(n: int, n_resamples: int, random_state: int, pair: int = 0) -> list[np.ndarray]:
    """The swap indicators of the permutation test for pair number ``pair``."""
    rngs = np.random.default_rng(random_state).spawn(pair + 1)
    rng = rngs[pair]
    return [rng.random(n) < 0.5 for _ in range(n_resamples)]


def kendall_tau_b_brute(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> float:
    """Weighted tau-b by enumerating pairs: ``sum w_i w_j sgn dx sgn dy`` over the root of
    ``(pairs not tied in x) * (pairs not tied in y)``, all pairs weighted by ``w_i w_j``."""
    n = x.shape[0]
    w = np.ones(n) if w is None else w
    s = nx = ny = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            ww = w[i] * w[j]
            dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            s += ww * dx * dy
            nx += ww * (dx != 0)
            ny += ww * (dy != 0)
    return s / np.sqrt(nx * ny)


def float_bits(value):
    """``value`` (a JSON-like tree of floats, lists and dicts) with every float replaced by its
    IEEE bit pattern, so that equality is bit for bit (NaN payloads and signed zeros kept)."""
    if isinstance(value, float):
        return int(np.float64(value).view(np.uint64))
    if isinstance(value, list):
        return [float_bits(v) for v in value]
    if isinstance(value, dict):
        return {k: float_bits(v) for k, v in value.items()}
    return value
