"""NumPy's bounded integer draws on PCG64, in parallel: the same numbers, the same state after.

The multinomial bootstrap draws the indices of each replicate with
``rng.integers(0, n, size=n, dtype=np.int32)``, one replicate after the other from one stream:
about a fifth of a comparison's time at n = 1e6, on one core. NumPy (``Generator.integers``
through ``random_bounded_uint32_fill``) maps each 32-bit value ``u`` of the bit generator to
``floor(u n / 2^32)`` and rejects ``u`` when ``u n mod 2^32 < (2^32 - n) mod n`` (Lemire 2019).
PCG64 (O'Neill 2014) gives the 32-bit values as the halves of its 64-bit outputs, low half
first, the high half kept for the next call; a 64-bit output is the XSL-RR output function of
the state of a 128-bit linear congruential generator after each step.

Whether a value is rejected depends on that value alone, so a block of ``rows`` replicates is
the first ``rows * n`` accepted values of the stream, in order. The stream is cut into chunks
of :data:`CHUNK_STEPS` steps; each chunk starts from the state reached by jumping ahead in
``O(log k)`` (Brown 1994) and keeps its accepted values, in parallel; the chunks' counts say
which values are whose, and the counting kernels read the chunks where they lie. The caller
(:func:`ranklens._inference.resampling.draw_segments`) sets the generator to the state the
sequential calls would have left, so every later draw is unchanged too.

References
----------
Brown, F. B. (1994). Random number generation with arbitrary strides. *Transactions of the
American Nuclear Society* 71, 202-203.

Lemire, D. (2019). Fast random integer generation in an interval. *ACM Transactions on Modeling
and Computer Simulation* 29(1), 3:1-3:12.

O'Neill, M. E. (2014). PCG: A family of simple fast space-efficient statistically good
algorithms for random number generation. Harvey Mudd College, HMC-CS-2014-0905.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

from ranklens._compute.kernels import _thread_pool  # noqa: F401  (launches numba's threads)
from ranklens._compute.kernels.compare import advise_huge_pages, counts_wrapped

__all__ = [
    "CHUNK_STEPS",
    "accepted_position",
    "bounded_chunks",
    "output_of",
    "segment_counts",
    "segment_counts_small",
]

#: Steps of the generator (two 32-bit values each) per chunk of the parallel draw.
CHUNK_STEPS = 1 << 15

# PCG64's multiplier, 2549297995355413924 * 2^64 + 4865540595714422341, as two halves
_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_S63 = np.uint64(63)
_S64 = np.uint64(64)


@intrinsic
def _muladd128(typingctx, a_hi, a_lo, b_hi, b_lo, c_hi, c_lo):
    """``a * b + c mod 2^128`` of 128-bit numbers given as (high, low) uint64 halves."""
    u64 = types.uint64
    sig = types.UniTuple(u64, 2)(u64, u64, u64, u64, u64, u64)

    def codegen(context, builder, signature, args):
        i64, i128 = ir.IntType(64), ir.IntType(128)
        shift = ir.Constant(i128, 64)

        def join(hi, lo):
            wide = builder.shl(builder.zext(hi, i128), shift)
            return builder.or_(wide, builder.zext(lo, i128))

        a = join(args[0], args[1])
        b = join(args[2], args[3])
        c = join(args[4], args[5])
        r = builder.add(builder.mul(a, b), c)
        hi = builder.trunc(builder.lshr(r, shift), i64)
        lo = builder.trunc(r, i64)
        return context.make_tuple(builder, signature.return_type, [hi, lo])

    return sig, codegen


@njit(cache=True)
def output_of(hi, lo):
    """PCG64's XSL-RR output on reaching state ``(hi, lo)``: ``rotr64(hi ^ lo, hi >> 58)``."""
    x = hi ^ lo
    r = hi >> _S58
    return (x >> r) | (x << ((_S64 - r) & _S63))


@njit(cache=True)
def _jump(hi, lo, inc_hi, inc_lo, delta):
    """The state ``delta`` steps after ``(hi, lo)`` (Brown 1994: the step's multiplier and
    increment composed by repeated squaring)."""
    zero, one = np.uint64(0), np.uint64(1)
    acc_mh, acc_ml, acc_ph, acc_pl = zero, one, zero, zero
    cur_mh, cur_ml, cur_ph, cur_pl = _MULT_HI, _MULT_LO, inc_hi, inc_lo
    delta = np.uint64(delta)
    while delta != zero:  # one pass a bit of delta
        if delta & one:
            acc_mh, acc_ml = _muladd128(acc_mh, acc_ml, cur_mh, cur_ml, zero, zero)
            acc_ph, acc_pl = _muladd128(acc_ph, acc_pl, cur_mh, cur_ml, cur_ph, cur_pl)
        plus_h, plus_l = _muladd128(cur_mh, cur_ml, zero, one, zero, one)  # multiplier + 1
        cur_ph, cur_pl = _muladd128(plus_h, plus_l, cur_ph, cur_pl, zero, zero)
        cur_mh, cur_ml = _muladd128(cur_mh, cur_ml, cur_mh, cur_ml, zero, zero)
        delta >>= one
    return _muladd128(acc_mh, acc_ml, hi, lo, acc_ph, acc_pl)


@njit(cache=True)
def _accept(word, bound, threshold, buf, at, count):
    """Both 32-bit halves of ``word`` (low first) through Lemire's rejection: each value is
    written at ``buf[at + count]``, and ``count`` advances only when it is accepted."""
    m = (word & _LOW32) * bound
    buf[at + count] = np.int32(m >> _S32)
    count += np.int64((m & _LOW32) >= threshold)
    m = (word >> _S32) * bound
    buf[at + count] = np.int32(m >> _S32)
    count += np.int64((m & _LOW32) >= threshold)
    return count


@njit(cache=True)
def _four_chunks(hi, lo, inc_hi, inc_lo, chunk, n, threshold, buf, at, counts, j):
    """Chunks ``chunk .. chunk + 3`` of the stream from state ``(hi, lo)``, stepped together
    (four independent 128-bit multiplications a step hide each other's latency); chunk
    ``chunk + q`` writes at ``buf[at + q * 2 * CHUNK_STEPS:]`` and its count to
    ``counts[j + q]``."""
    width = 2 * CHUNK_STEPS
    bound = np.uint64(n)
    h0, l0 = _jump(hi, lo, inc_hi, inc_lo, np.uint64(chunk * CHUNK_STEPS))
    h1, l1 = _jump(hi, lo, inc_hi, inc_lo, np.uint64((chunk + 1) * CHUNK_STEPS))
    h2, l2 = _jump(hi, lo, inc_hi, inc_lo, np.uint64((chunk + 2) * CHUNK_STEPS))
    h3, l3 = _jump(hi, lo, inc_hi, inc_lo, np.uint64((chunk + 3) * CHUNK_STEPS))
    c0 = c1 = c2 = c3 = 0
    for _ in range(CHUNK_STEPS):
        h0, l0 = _muladd128(h0, l0, _MULT_HI, _MULT_LO, inc_hi, inc_lo)
        h1, l1 = _muladd128(h1, l1, _MULT_HI, _MULT_LO, inc_hi, inc_lo)
        h2, l2 = _muladd128(h2, l2, _MULT_HI, _MULT_LO, inc_hi, inc_lo)
        h3, l3 = _muladd128(h3, l3, _MULT_HI, _MULT_LO, inc_hi, inc_lo)
        c0 = _accept(output_of(h0, l0), bound, threshold, buf, at, c0)
        c1 = _accept(output_of(h1, l1), bound, threshold, buf, at + width, c1)
        c2 = _accept(output_of(h2, l2), bound, threshold, buf, at + 2 * width, c2)
        c3 = _accept(output_of(h3, l3), bound, threshold, buf, at + 3 * width, c3)
    counts[j] = c0
    counts[j + 1] = c1
    counts[j + 2] = c2
    counts[j + 3] = c3


@njit(cache=True, parallel=True)
def bounded_chunks(hi, lo, inc_hi, inc_lo, first_chunk, n_chunks, n, threshold, buf, counts):
    """Chunks ``first_chunk .. first_chunk + n_chunks - 1`` of the stream that starts at state
    ``(hi, lo)`` (chunk k: steps ``k * CHUNK_STEPS + 1`` on), four at a time in parallel
    (``n_chunks`` a multiple of 4): chunk ``first_chunk + j`` writes its accepted values to
    ``buf[j * 2 * CHUNK_STEPS:]`` and their count to ``counts[j]``."""
    width = 2 * CHUNK_STEPS
    for g in prange(n_chunks // 4):
        j = 4 * g
        _four_chunks(
            hi, lo, inc_hi, inc_lo, first_chunk + j, n, threshold, buf, j * width, counts, j
        )


@njit(cache=True)
def accepted_position(hi, lo, inc_hi, inc_lo, chunk, n, threshold, k):
    """The 32-bit values of chunk ``chunk`` (of the stream from state ``(hi, lo)``) up to and
    including its ``k``-th accepted one (``k >= 1``): how many the draw consumed in it; -1 if
    the chunk has fewer than k (the caller counted at least k)."""
    s_hi, s_lo = _jump(hi, lo, inc_hi, inc_lo, np.uint64(chunk * CHUNK_STEPS))
    bound = np.uint64(n)
    seen = 0
    consumed = 0
    for _ in range(CHUNK_STEPS):
        s_hi, s_lo = _muladd128(s_hi, s_lo, _MULT_HI, _MULT_LO, inc_hi, inc_lo)
        word = output_of(s_hi, s_lo)
        for half in (word & _LOW32, word >> _S32):
            consumed += 1
            if ((half * bound) & _LOW32) >= threshold:
                seen += 1
                if seen == k:
                    return consumed
    return -1


@njit(cache=True)
def _count_segments(buf, starts, counts, offsets, b, n, row):
    """``row[i] += 1`` for each of replicate ``b``'s indices: the accepted values numbered
    ``b n .. (b + 1) n - 1`` in stream order (segment j holds ``counts[j]`` values from
    ``buf[starts[j]]``, numbered from ``offsets[j]``). A uint8 row wraps past 255."""
    lo = b * n
    hi = lo + n
    j = np.searchsorted(offsets, lo, side="right") - 1
    while j < counts.shape[0] and offsets[j] < hi:
        base = starts[j] - offsets[j]
        for a in range(max(lo, offsets[j]), min(hi, offsets[j] + counts[j])):
            row[buf[base + a]] += 1
        j += 1


@njit(cache=True, parallel=True)
def segment_counts_small(buf, starts, counts, offsets, rows, n):
    """``(rows, n)`` uint8 counts of each replicate's indices (``small_multiplicities`` of the
    indices joined in stream order) from segments of ``buf`` (segment j: ``counts[j]`` values
    from ``buf[starts[j]]``, numbered from ``offsets[j]``), and whether every count fits.
    Rows in parallel; a row of n uint8 counts stays in the core's L2 cache at n = 1e6."""
    out = np.empty((rows, n), np.uint8)
    advise_huge_pages(out)
    wrapped = np.zeros(rows, np.bool_)
    for b in prange(rows):
        row = out[b]
        row[:] = 0
        _count_segments(buf, starts, counts, offsets, b, n, row)
        wrapped[b] = counts_wrapped(row, n)
    return out, not wrapped.any()


@njit(cache=True, parallel=True)
def segment_counts(buf, starts, counts, offsets, rows, n):
    """As :func:`segment_counts_small`, float64 (``multiplicities_parallel`` of the joined
    indices; counted in int32, exact below 2^31 draws)."""
    out = np.empty((rows, n), np.float64)
    advise_huge_pages(out)
    for b in prange(rows):
        tally = np.zeros(n, np.int32)
        _count_segments(buf, starts, counts, offsets, b, n, tally)
        row = out[b]
        for i in range(n):
            row[i] = tally[i]
    return out
