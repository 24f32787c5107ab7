"""A fused CUDA kernel (CuPy ``RawKernel``) for the level terms of the discordance.

Profiling on an H100 (``benchmarks/bench_gpu.py``'s level profile; n = 1e6, 200 replicates) put
one level of the generic array-API code (gather, mask, prefix sum, masked product and sum) at
about 7 ms against 1.4 ms for the gather alone: each step reads and writes the whole chunk. This
kernel reads each weight once, through the level permutation, and keeps the prefix sum on chip:

* pass 1 (the kernel): every thread block takes a tile of 4096 consecutive slots of one
  replicate's row, loads the permuted weights and their half (left / right) into shared memory,
  and computes with a block-wide scan the tile's left weight, right weight and
  ``sum_{k right} w_k (left weight of the tile before k)``;
* pass 2 (a few array operations on ``(rows, tiles)``): the tiles of a row are combined with the
  exclusive prefix sum of their left weights.

Integer weights (int32) and int64 sums, as the generic code: the two agree exactly (tested on the
device). The GPU engine passes :func:`fused_level_term` to
:func:`ranklens._compute.xp.rank.replicate_statistics`; the first call compiles the kernel, and a
device or toolkit that cannot compile it leaves the generic code in charge (:data:`STATUS` says
which ran).
"""

from __future__ import annotations

from typing import Any

from ranklens._compute.xp import rank as _rank

__all__ = ["STATUS", "fused_level_term", "level_term"]

#: "not used yet", "fused" or "generic (<reason>)".
STATUS = {"level_term": "not used yet"}

_THREADS = 256
_ITEMS = 16
_TILE = _THREADS * _ITEMS

_SOURCE = r"""
extern "C" __global__ void level_term_tiles(
    const int* __restrict__ w, const int* __restrict__ perm, const long long n,
    const int shift, const int tiles, long long* __restrict__ out)
{
    const int THREADS = 256;
    const int ITEMS = 16;
    const int TILE = THREADS * ITEMS;
    __shared__ int s_val[TILE];
    __shared__ long long s_scan[THREADS];
    __shared__ long long s_right[THREADS];
    __shared__ long long s_term[THREADS];
    const long long row = blockIdx.y;
    const int tile = blockIdx.x;
    const int* wr = w + row * n;
    const long long base = (long long)tile * TILE;
    // striped, coalesced loads of the permutation; the weight of a right slot is stored as
    // -(w + 1), so one int keeps both
    for (int i = 0; i < ITEMS; ++i) {
        const int s = i * THREADS + threadIdx.x;
        const long long k = base + s;
        int v = 0;
        if (k < n) {
            const int pos = perm[k];
            const int x = wr[pos];
            v = ((pos >> shift) & 1) ? -(x + 1) : x;
        }
        s_val[s] = v;
    }
    __syncthreads();
    long long lsum = 0, rsum = 0, term = 0;
    for (int i = 0; i < ITEMS; ++i) {
        const int v = s_val[threadIdx.x * ITEMS + i];
        if (v >= 0) {
            lsum += v;
        } else {
            const long long x = (long long)(-v - 1);
            rsum += x;
            term += x * lsum;
        }
    }
    s_scan[threadIdx.x] = lsum;
    __syncthreads();
    for (int off = 1; off < THREADS; off <<= 1) {
        long long add = 0;
        if (threadIdx.x >= off) add = s_scan[threadIdx.x - off];
        __syncthreads();
        s_scan[threadIdx.x] += add;
        __syncthreads();
    }
    const long long before = s_scan[threadIdx.x] - lsum;  // left weight of earlier threads
    term += rsum * before;
    s_right[threadIdx.x] = rsum;
    s_term[threadIdx.x] = term;
    __syncthreads();
    for (int half = THREADS / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) {
            s_right[threadIdx.x] += s_right[threadIdx.x + half];
            s_term[threadIdx.x] += s_term[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        long long* o = out + 3 * (row * tiles + tile);
        o[0] = s_scan[THREADS - 1];
        o[1] = s_right[0];
        o[2] = s_term[0];
    }
}
"""

_KERNEL: dict[str, Any] = {}


def _compiled(cp: Any) -> Any:
    if "k" not in _KERNEL:
        _KERNEL["k"] = cp.RawKernel(_SOURCE, "level_term_tiles")
    return _KERNEL["k"]


def level_term(ws: Any, perm: Any, shift: int) -> Any:
    """``sum_{k right} w_k S^lev_k`` per row (int64), as
    :func:`ranklens._compute.xp.rank.generic_level_term`.

    ``ws``: int32 weights ``(rows, n)`` in position order, C-contiguous; ``perm``: the level's
    permutation (int32); ``shift``: the level minus one (the bit that tells the halves apart).
    """
    import cupy as cp

    rows, n = ws.shape
    ws = cp.ascontiguousarray(ws)
    perm = cp.ascontiguousarray(perm, dtype=cp.int32)
    tiles = -(-n // _TILE)
    out = cp.empty((rows, tiles, 3), dtype=cp.int64)
    _compiled(cp)(
        (tiles, rows),
        (_THREADS,),
        (ws, perm, cp.int64(n), cp.int32(shift), cp.int32(tiles), out),
    )
    left, right, term = out[:, :, 0], out[:, :, 1], out[:, :, 2]
    before = cp.cumsum(left, axis=1) - left
    return cp.sum(term + right * before, axis=1)


def fused_level_term(ws: Any, perm: Any, shift: int) -> Any:
    """:func:`level_term`, or the generic code when the kernel cannot be compiled or run."""
    if STATUS["level_term"].startswith("generic"):
        return _generic(ws, perm, shift)
    try:
        value = level_term(ws, perm, shift)
    except Exception as exc:  # NVRTC or driver refusing the kernel: stay exact, run generic
        STATUS["level_term"] = f"generic ({type(exc).__name__}: {exc})"
        return _generic(ws, perm, shift)
    STATUS["level_term"] = "fused"
    return value


def _generic(ws: Any, perm: Any, shift: int) -> Any:
    import cupy as cp

    left = ((perm >> shift) & 1) == 0
    return _rank.generic_level_term(cp, ws[:, perm], left, cp.int64, True)
