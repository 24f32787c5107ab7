"""Numba kernels of resampling weights: Poisson(1) weights from a hash, and the replicates'
weight per jackknife group (for BCa's acceleration on large data sets).

A replicate weight is a pure function of ``(seed, replicate, key)``, where the key is a 64-bit
number naming a row (its position) or a unit (a hash of its label): no generator state is
carried from one row to the next, so the weights of a row do not depend on which other rows are
evaluated with it, in which order, or in how many pieces (Oza & Russell 2001; Chamandy et al.
2012 use the same construction to bootstrap data that are split over machines).

The hash is Steele, Lea & Flood's (2014) SplitMix64 finaliser applied three times::

    s = mix(seed);  r = mix(s ^ mix(replicate + 1));  u = mix(r ^ mix(key))

and the top 53 bits of ``u`` are a uniform number ``U`` in ``[0, 1)`` (an integer ``U * 2^53``),
mapped to a Poisson(1) count by the inverse of its distribution function on a fixed table of
integer thresholds ``T_k = round(2^53 P(X <= k))``: the weight is the number of thresholds at
or below ``U * 2^53`` (``P(0) = e^-1``; the table ends where ``P(X > k) < 2^-53``).

References
----------
Oza, N. C. and Russell, S. (2001). Online bagging and boosting. *Proceedings of AISTATS*.
Chamandy, N., Muralidharan, O., Najmi, A. and Naidu, S. (2012). Estimating uncertainty for
massive data streams. Google technical report.
Steele, G. L., Lea, D. and Flood, C. H. (2014). Fast splittable pseudorandom number generators.
*Proceedings of OOPSLA 2014*, 453-472.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np
from numba import njit, prange

from ranklens._compute.kernels import _thread_pool  # noqa: F401  (launches numba's threads)

__all__ = [
    "POISSON_THRESHOLDS",
    "group_weight_sums_parallel",
    "group_weight_sums_serial",
    "hash_int64",
    "poisson_weights_parallel",
    "poisson_weights_serial",
    "splitmix64",
]


def _poisson_thresholds() -> np.ndarray:
    """``round(2^53 P(X <= k))`` for X ~ Poisson(1), k = 0, 1, ... while it is below ``2^53``.

    Computed exactly in rationals from a 40-digit value of ``e^-1``.
    """
    e_inv = Fraction("0.3678794411714423215955237701614608674458")
    scale = 1 << 53
    out = []
    cdf = Fraction(0)
    k = 0
    while True:
        cdf += e_inv / factorial(k)
        t = round(cdf * scale)
        if t >= scale:
            break
        out.append(t)
        k += 1
    return np.array(out, dtype=np.uint64)


#: Thresholds of the inverse distribution function of Poisson(1) on 53-bit integers.
POISSON_THRESHOLDS = _poisson_thresholds()

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_ONE = np.uint64(1)


@njit(cache=True)
def splitmix64(x):
    """SplitMix64 (Steele, Lea & Flood 2014): ``x + gamma`` through the 64-bit finaliser."""
    z = x + _GAMMA
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def hash_int64(values):
    """``splitmix64`` of each integer's two's-complement bits (a new uint64 array)."""
    out = np.empty(values.shape[0], dtype=np.uint64)
    for i in range(values.shape[0]):
        out[i] = splitmix64(np.uint64(values[i]))
    return out


@njit(cache=True)
def _poisson_row(mixed_keys, seed_state, replicate, thresholds, b, out):
    r = splitmix64(seed_state ^ splitmix64(np.uint64(replicate) + _ONE))
    n_t = thresholds.shape[0]
    for i in range(mixed_keys.shape[0]):
        u = splitmix64(r ^ mixed_keys[i]) >> _S11
        k = 0
        while k < n_t and thresholds[k] <= u:
            k += 1
        out[b, i] = k


@njit(cache=True)
def _mix_keys(keys):
    mixed = np.empty(keys.shape[0], dtype=np.uint64)
    for i in range(keys.shape[0]):
        mixed[i] = splitmix64(keys[i])
    return mixed


@njit(cache=True, parallel=True)
def poisson_weights_parallel(keys, replicates, seed, thresholds):
    """``out[b, i]`` = Poisson(1) weight of key ``keys[i]`` in replicate ``replicates[b]`` (int32).

    ``keys``: uint64; ``replicates``: int64; ``seed``: uint64; ``thresholds``:
    :data:`POISSON_THRESHOLDS`. Rows in parallel; every entry is a pure function of
    ``(seed, replicates[b], keys[i])``.
    """
    mixed = _mix_keys(keys)
    state = splitmix64(seed)
    out = np.empty((replicates.shape[0], keys.shape[0]), dtype=np.int32)
    for b in prange(replicates.shape[0]):
        _poisson_row(mixed, state, replicates[b], thresholds, b, out)
    return out


@njit(cache=True)
def poisson_weights_serial(keys, replicates, seed, thresholds):
    """As :func:`poisson_weights_parallel`, one row after the other."""
    mixed = _mix_keys(keys)
    state = splitmix64(seed)
    out = np.empty((replicates.shape[0], keys.shape[0]), dtype=np.int32)
    for b in range(replicates.shape[0]):
        _poisson_row(mixed, state, replicates[b], thresholds, b, out)
    return out


# ---------------------------------------------------------------------------------------------
# Weight per jackknife group (BCa's acceleration at large n)
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _group_row(multiplicity, groups, b, out):
    row = out[b]
    row[:] = 0.0
    for i in range(groups.size):  # data-row order, as np.bincount sums
        row[groups[i]] += multiplicity[b, i]


@njit(cache=True, parallel=True)
def group_weight_sums_parallel(multiplicity, groups, n_groups):
    """``out[b, g]`` = sum of ``multiplicity[b, i]`` over the rows ``i`` of group ``g``
    (``np.bincount(groups, weights=multiplicity[b])`` for every row ``b``, summed in the same
    order, so bit for bit), rows in parallel. The groups' sums stay in the first-level cache
    (one row of ``n_groups`` float64), so a row costs one pass over its multiplicities.
    ``multiplicity`` is float64, or uint8 counts (the same integers, so the same sums)."""
    out = np.empty((multiplicity.shape[0], n_groups), dtype=np.float64)
    for b in prange(multiplicity.shape[0]):
        _group_row(multiplicity, groups, b, out)
    return out


@njit(cache=True)
def group_weight_sums_serial(multiplicity, groups, n_groups):
    """As :func:`group_weight_sums_parallel`, one row after the other."""
    out = np.empty((multiplicity.shape[0], n_groups), dtype=np.float64)
    for b in range(multiplicity.shape[0]):
        _group_row(multiplicity, groups, b, out)
    return out
