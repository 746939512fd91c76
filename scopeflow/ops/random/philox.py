"""TensorFlow's CPU random-number generator, bit for bit: Philox4x32-10 and its transforms.

TF's stateful random kernels (``RandomUniform``, ``RandomStandardNormal``,
``TruncatedNormal``, ``RandomUniformInt``, ``RandomShuffle``) draw from a
``GuardedPhiloxRandom`` per kernel instance, i.e. per op per session:

- the key is the op's ``seed`` attr (64 bits), the counter's high 64 bits its ``seed2``;
  ``seed == seed2 == 0`` means "seed from the OS" (a fresh stream per session);
- each run of an op producing ``n`` values reserves ``256 * n`` Philox blocks (128 bits
  each) and fills its output from the first ones, so successive runs never overlap;
- the transforms are ``tensorflow/core/lib/random/random_distributions.h``.

Everything here is vectorised NumPy on ``uint32``/``uint64``. Box-Muller needs glibc's
``logf`` and ``sincosf`` exactly: they are evaluated in float64, rounded, and patched with a
table of the inputs where glibc's result differs (see ``_LIBM_FIXES``).
"""

from __future__ import annotations

import math
import os

import numpy as np

from scopeflow.ops.math import libm

__all__ = ["PhiloxStream", "philox4x32", "RESERVED_PER_OUTPUT", "uniform", "normal",
           "truncated_normal", "uniform_int", "shuffle_permutation", "multinomial",
           "intra_op_threads", "logf", "sincosf"]

_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_W32A, _W32B = 0x9E3779B9, 0xBB67AE85
_MUL_A, _MUL_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_ROUNDS = 10
# Blocks a kernel reserves per output value (``ReserveRandomOutputs(n, 256)``).
RESERVED_PER_OUTPUT = 256


# ── Philox4x32-10 ─────────────────────────────────────────────────────────────────────
def _counters(start: int, offsets: np.ndarray) -> list[np.ndarray]:
    """The four uint32 words of the 128-bit counters ``start + offsets``."""
    idx = offsets.astype(np.uint64, copy=False)
    lo0 = np.uint64(start & _M64)
    lo = lo0 + idx                                   # wraps modulo 2**64
    hi = np.full(idx.shape, (start >> 64) & _M64, dtype=np.uint64)
    hi += (lo < lo0).astype(np.uint64)
    m = np.uint64(_M32)
    s = np.uint64(32)
    return [lo & m, lo >> s, hi & m, hi >> s]


def philox4x32(key: int, counter: int, n, offsets=None) -> np.ndarray:
    """Philox4x32-10 blocks for the 128-bit counters ``counter + offsets`` (default
    ``0 .. n - 1``): shape ``offsets.shape + (4,)``, uint32."""
    if offsets is None:
        offsets = np.arange(n, dtype=np.uint64)
    c0, c1, c2, c3 = _counters(counter, offsets)
    k0, k1 = key & _M32, (key >> 32) & _M32
    m, s = np.uint64(_M32), np.uint64(32)
    # NOTE: every step writes into existing arrays: a round is ten passes, no allocations.
    p0, p1 = np.empty_like(c0), np.empty_like(c0)
    for r in range(_ROUNDS):
        np.multiply(c0, _MUL_A, out=p0)
        np.multiply(c2, _MUL_B, out=p1)
        np.right_shift(p1, s, out=c0)          # c0 = hi(B * c2) ^ c1 ^ k0
        c0 ^= c1
        c0 ^= np.uint64(k0)
        np.bitwise_and(p1, m, out=c1)          # c1 = lo(B * c2)
        np.right_shift(p0, s, out=c2)          # c2 = hi(A * c0) ^ c3 ^ k1
        c2 ^= c3
        c2 ^= np.uint64(k1)
        np.bitwise_and(p0, m, out=c3)          # c3 = lo(A * c0)
        if r < _ROUNDS - 1:
            k0, k1 = (k0 + _W32A) & _M32, (k1 + _W32B) & _M32
    out = np.empty(c0.shape + (4,), np.uint32)
    for i, c in enumerate((c0, c1, c2, c3)):
        out[..., i] = c
    return out


class PhiloxStream:
    """One kernel's ``GuardedPhiloxRandom``: a key and a 128-bit counter that runs advance."""

    __slots__ = ("key", "counter")

    def __init__(self, seed: int, seed2: int):
        if seed == 0 and seed2 == 0:
            # TF: "seeded from the OS", a different stream in each session.
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        self.key = seed & _M64
        self.counter = (seed2 & _M64) << 64

    @classmethod
    def at(cls, key: int, counter: int) -> PhiloxStream:
        """A stream at a saved position (``position()``): exact resume."""
        stream = cls.__new__(cls)
        stream.set_position(key, counter)
        return stream

    def position(self) -> tuple[int, int]:
        """``(key, counter)``: everything the stream's future draws depend on."""
        return self.key, self.counter

    def set_position(self, key: int, counter: int):
        self.key, self.counter = int(key) & _M64, int(counter) & _M128

    def reserve(self, blocks: int) -> int:
        """``ReserveSamples128``: the counter to start from; skips ``blocks`` for next time."""
        start = self.counter
        self.counter = (start + blocks) & _M128
        return start

    def reserve_outputs(self, n: int) -> int:
        return self.reserve(n * RESERVED_PER_OUTPUT)

    def reserve32(self, n: int) -> int:
        return self.reserve((n + 3) // 4)

    def blocks(self, start: int, n: int) -> np.ndarray:
        return philox4x32(self.key, start, n)

    def blocks_at(self, start: int, offsets: np.ndarray) -> np.ndarray:
        return philox4x32(self.key, start, None, offsets)

    def words(self, start: int, n: int) -> np.ndarray:
        """``SingleSampleAdapter``: ``n`` uint32 values in order from ``start``."""
        return self.blocks(start, (n + 3) // 4).reshape(-1)[:n]


# ── glibc's logf and sincosf (ARM optimized-routines), evaluated as glibc does ──────────
# The algorithms compute in double from small tables and round once to float; replaying
# them in float64 reproduces glibc bit for bit (checked on all 2**23 inputs Box-Muller
# can see, in tests/unit/ops/random/test_random.py), where float32(np.log(x)) differs for ~0.7%.
_hex = float.fromhex
_LOGF_TAB = np.array([[_hex(a), _hex(b)] for a, b in (  # (invc, logc)
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"),
    ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"),
    ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"),
    ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"),
    ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"),
    ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"),
    ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"),
    ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"),
    ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"),
)])
_LN2 = _hex("0x1.62e42fefa39efp-1")
_LOGF_A = [_hex("-0x1.00ea348b88334p-2"), _hex("0x1.5575b0be00b6ap-2"),
           _hex("-0x1.ffffef20a4123p-2")]


def logf(x: np.ndarray) -> np.ndarray:
    """glibc's ``logf`` for positive normal float32 ``x`` (as Box-Muller feeds it)."""
    ix = x.view(np.uint32)
    tmp = ix - np.uint32(0x3F330000)
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = (tmp.view(np.int32) >> np.int32(23)).astype(np.float64)
    iz = ix - (tmp & np.uint32(0xFF800000))
    z = iz.view(np.float32).astype(np.float64)
    invc, logc = _LOGF_TAB[i, 0], _LOGF_TAB[i, 1]
    r = z * invc - 1.0
    y0 = logc + k * _LN2
    r2 = r * r
    y = _LOGF_A[1] * r + _LOGF_A[2]
    y = _LOGF_A[0] * r2 + y
    y = y * r2 + (y0 + r)
    out = y.astype(np.float32)
    out[ix == 0x3F800000] = 0.0
    return out


_HPI_INV = _hex("0x1.45F306DC9C883p+23")     # 2/pi * 2**24 (no TOINT intrinsics on x86)
_HPI = _hex("0x1.921FB54442D18p0")
_COS_C = [1.0, _hex("-0x1.ffffffd0c621cp-2"), _hex("0x1.55553e1068f19p-5"),
          _hex("-0x1.6c087e89a359dp-10"), _hex("0x1.99343027bf8c3p-16")]
_SIN_S = [_hex("-0x1.555545995a603p-3"), _hex("0x1.1107605230bc4p-7"),
          _hex("-0x1.994eb3774cf24p-13")]
_QUADRANT_SIN_SIGN = np.array([1.0, -1.0, -1.0, 1.0])
_QUADRANT_COS_SIGN = np.array([1.0, 1.0, -1.0, -1.0])   # __sincosf_table[1] when n & 2


def _abstop12(x: np.ndarray) -> np.ndarray:
    return (x.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)


def sincosf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """glibc's ``sincosf`` for float32 ``0 <= y < 120`` (Box-Muller's angles)."""
    x = y.astype(np.float64)
    top = _abstop12(y)
    small = top < _abstop12(np.float32(np.pi / 4))
    n = ((x * _HPI_INV).astype(np.int32) + np.int32(0x800000)) >> np.int32(24)
    n[small] = 0
    xr = np.where(small, x, x - n.astype(np.float64) * _HPI)
    q = n & 3
    cs = _QUADRANT_COS_SIGN[q]
    xs = xr * _QUADRANT_SIN_SIGN[q]
    x2 = xr * xr
    x3, x4 = x2 * xs, x2 * x2
    c2 = cs * _COS_C[3] + x2 * (cs * _COS_C[4])
    s1 = _SIN_S[1] + x2 * _SIN_S[2]
    c1 = cs * _COS_C[0] + x2 * (cs * _COS_C[1])
    x5, x6 = x3 * x2, x4 * x2
    s = xs + x3 * _SIN_S[0]
    c = c1 + x4 * (cs * _COS_C[2])
    sin_poly = (s + x5 * s1).astype(np.float32)
    cos_poly = (c + x6 * c2).astype(np.float32)
    odd = (n & 1) == 1
    sin_out = np.where(odd, cos_poly, sin_poly)
    cos_out = np.where(odd, sin_poly, cos_poly)
    tiny = top < _abstop12(np.float32(2.0**-12))
    sin_out[tiny] = y[tiny]
    cos_out[tiny] = 1.0
    return sin_out, cos_out


# ── Transforms (random_distributions.h) ──────────────────────────────────────────────
def _uint32_to_float(x: np.ndarray) -> np.ndarray:
    return ((x & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)


def _uint64_to_double(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    man = ((hi & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _uint16_to_half(x: np.ndarray) -> np.ndarray:
    bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1)


def _box_muller_float(x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u1 = np.maximum(_uint32_to_float(x0), np.float32(1.0e-7))
    v1 = (2.0 * np.pi * _uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * logf(u1))
    s, c = sincosf(v1)
    return s * u2, c * u2


def _box_muller_double(x0, x1, x2, x3) -> tuple[np.ndarray, np.ndarray]:
    # double log/sin/cos: the C library's, as TF's kernel (never NumPy's SIMD loops)
    u1 = np.maximum(_uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * _uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * libm.log(u1))
    return libm.sin(v1) * u2, libm.cos(v1) * u2


def _normal_pairs(words: np.ndarray, dtype) -> np.ndarray:
    """Box-Muller over a ``(..., 4)`` array of words: ``(..., 4)`` floats or ``(..., 2)``
    doubles, in TF's order."""
    if dtype == np.float64:
        d0, d1 = _box_muller_double(*(words[..., i] for i in range(4)))
        return np.stack([d0, d1], axis=-1)
    f0, f1 = _box_muller_float(words[..., 0], words[..., 1])
    f2, f3 = _box_muller_float(words[..., 2], words[..., 3])
    return np.stack([f0, f1, f2, f3], axis=-1).astype(dtype, copy=False)


def _per_block(dtype) -> int:
    return 2 if np.dtype(dtype).itemsize == 8 else 4


# Blocks generated per pass: the generator's uint64 temporaries stay near 10 MB however
# large the output (a 3136x1024 initializer took 300 MB in one pass).
_CHUNK_BLOCKS = 1 << 16


def _by_chunks(stream, start, blocks, k, dtype, transform) -> np.ndarray:
    """``transform(blocks)`` (an ``(m, k)`` array per ``(m, 4)`` uint32 blocks) for the
    ``blocks`` blocks from ``start``, a chunk at a time, as one ``(blocks * k,)`` array."""
    out = np.empty((blocks, k), dtype)
    for lo in range(0, blocks, _CHUNK_BLOCKS):
        hi = min(blocks, lo + _CHUNK_BLOCKS)
        out[lo:hi] = transform(stream.blocks((start + lo) & _M128, hi - lo))
    return out.reshape(-1)


def _uniform_block(dtype):
    if dtype == np.float64:
        return lambda w: _uint64_to_double(w[:, 0::2], w[:, 1::2])
    if dtype == np.float16:
        return _uint16_to_half
    return lambda w: _uint32_to_float(w).astype(dtype, copy=False)


def uniform(stream: PhiloxStream, n: int, dtype) -> np.ndarray:
    """``RandomUniform``: ``n`` values in [0, 1)."""
    dtype = np.dtype(dtype)
    start = stream.reserve_outputs(n)
    k = _per_block(dtype)
    return _by_chunks(stream, start, -(-n // k), k, dtype, _uniform_block(dtype))[:n]


def normal(stream: PhiloxStream, n: int, dtype) -> np.ndarray:
    """``RandomStandardNormal``: ``n`` standard normal values (Box-Muller)."""
    dtype = np.dtype(dtype)
    start = stream.reserve_outputs(n)
    k = _per_block(dtype)
    return _by_chunks(stream, start, -(-n // k), k, dtype,
                      lambda w: _normal_pairs(w, dtype).reshape(len(w), k))[:n]


def truncated_normal(stream: PhiloxStream, n: int, dtype) -> np.ndarray:
    """``TruncatedNormal``: normal values with ``|x| < 2``, by rejection.

    Each output group (4 floats, 2 doubles) draws from its own counter region,
    ``256 * group_size / 4`` blocks apart, so groups are computed independently.
    """
    dtype = np.dtype(dtype)
    start = stream.reserve_outputs(n)
    k = _per_block(dtype)
    groups = -(-n // k)
    skip = k * RESERVED_PER_OUTPUT // 4
    out = np.empty((groups, k), dtype=dtype)
    for first in range(0, groups, _CHUNK_BLOCKS // 2):  # 2 blocks a group at first
        _truncated_groups(stream, start, skip, k, dtype, out,
                          np.arange(first, min(groups, first + _CHUNK_BLOCKS // 2),
                                    dtype=np.uint64))
    return out.reshape(-1)[:n]


def _truncated_groups(stream, start, skip, k, dtype, out, todo):
    """Fills ``out``'s rows ``todo`` (output groups), each from its own counter region."""
    blocks = 2
    while todo.size:
        offsets = todo[:, None] * np.uint64(skip) + np.arange(blocks, dtype=np.uint64)
        cand = _normal_pairs(stream.blocks_at(start, offsets), dtype)
        cand = cand.reshape(todo.size, -1)
        ok = np.abs(cand) < 2.0
        count = np.cumsum(ok, axis=1)
        done = count[:, -1] >= k
        rows = np.flatnonzero(done)
        for j in range(k):
            pos = np.argmax(count[rows] >= j + 1, axis=1)
            out[todo[rows].astype(np.intp), j] = cand[rows, pos]
        todo = todo[~done]
        blocks *= 2


def uniform_int(stream: PhiloxStream, n: int, lo: int, hi: int, dtype) -> np.ndarray:
    """``RandomUniformInt``: ``n`` integers in ``[lo, hi)`` as ``lo + bits % (hi - lo)``."""
    dtype = np.dtype(dtype)
    start = stream.reserve_outputs(n)
    k = _per_block(dtype)
    w = stream.blocks(start, -(-n // k))
    if dtype.itemsize == 8:
        rng = np.uint64((hi - lo) & _M64)
        bits = w[:, 0::2].astype(np.uint64) | (w[:, 1::2].astype(np.uint64) << np.uint64(32))
        out = (np.uint64(lo & _M64) + bits % rng).view(np.int64)
    else:
        rng = np.uint32((hi - lo) & _M32)
        out = (np.uint32(lo & _M32) + w % rng).view(np.int32)
    return out.reshape(-1)[:n].astype(dtype, copy=False)


def shuffle_permutation(stream: PhiloxStream, size: int) -> np.ndarray:
    """``RandomShuffle``'s permutation of ``range(size)`` (a Fisher-Yates pass)."""
    perm = np.arange(size)
    if size <= 1:
        return perm
    words = stream.words(stream.reserve32(size - 1), size - 1)
    js = np.arange(size - 1) + (words % np.arange(size, 1, -1, dtype=np.uint32)).astype(np.intp)
    p = perm.tolist()
    for i, j in enumerate(js.tolist()):
        p[i], p[j] = p[j], p[i]
    return np.array(p, dtype=np.intp)


def intra_op_threads() -> int:
    """TF's default intra-op thread count: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _parallel_for_blocks(n: int, cost: int, threads: int) -> list[tuple[int, int]]:
    """The ``[start, limit)`` row blocks Eigen's ``ThreadPoolDevice::parallelFor`` gives
    ``n`` units of ``cost`` cycles on ``threads`` threads (TF's ``Shard``): one block when
    the work is too small to split (under about 210000 cycles), else its block size rule."""
    total = float(n) * cost
    wanted = int(min((total - 100000.0) / 100000.0 + 0.9, 2 ** 31 - 1))
    if n <= 1 or threads <= 1 or min(threads, max(1, wanted)) == 1:
        return [(0, n)]
    block = min(n, max(-(-n // (4 * threads)), int(40000.0 / cost) if cost else n))
    max_block = min(n, 2 * block)
    count = -(-n // block)
    best = count / (-(-count // threads) * threads)
    prev = count
    while best < 1.0 and prev > 1:
        coarser = -(-n // (prev - 1))
        if coarser > max_block:
            break
        coarser_count = -(-n // coarser)
        prev = coarser_count
        efficiency = coarser_count / (-(-coarser_count // threads) * threads)
        if efficiency + 0.01 >= best:
            block, count = coarser, coarser_count
            best = max(best, efficiency)
    return [(s, min(s + block, n)) for s in range(0, n, block)]


def multinomial(stream: PhiloxStream, logits: np.ndarray, num_samples: int,
                threads: int | None = None) -> np.ndarray:
    """``Multinomial``'s class indices, ``(batch, num_samples)`` int64, for a non-empty output.

    As TF's CPU kernel: it reserves ``256 * batch * 2 * ceil4(num_samples)`` blocks, then
    per row takes the largest finite logit, accumulates ``exp(logit - max)`` in double over
    the finite logits (non-finite ones add nothing), and for each sample finds the first
    cumulative value above ``u * total``, ``u`` a double in [0, 1) from two consecutive
    words. The rows are split into shards as TF's ``Shard`` splits them over ``threads``
    (default: TF's default intra-op thread count, ``intra_op_threads()``), by its cost
    estimate ``50 * (num_samples * log2(classes) + classes)`` per row: each shard starts
    ``start_row * (num_samples + 3) // 4`` blocks in and its rows continue one word
    stream. Small calls are one shard whatever the thread count; for large ones the values
    are TF's on a machine with the same number of CPUs. A row without finite logits gives
    ``classes`` (out of range), as TF.
    """
    batch, classes = logits.shape
    start = stream.reserve_outputs(batch * ((num_samples + 3) // 4 * 4 * 2))
    cost = int(50 * (num_samples * math.log(classes) / math.log(2) + classes))
    u = np.empty((batch, num_samples), np.float64)
    for lo, hi in _parallel_for_blocks(batch, cost, threads or intra_op_threads()):
        first = (start + lo * (num_samples + 3) // 4) & _M128
        words = stream.words(first, (hi - lo) * num_samples * 2).reshape(hi - lo, -1, 2)
        u[lo:hi] = _uint64_to_double(words[..., 0], words[..., 1])
    finite = np.isfinite(logits)
    lowest = np.finfo(logits.dtype).min
    row_max = np.where(finite, logits, lowest).max(axis=1).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        # The C library's exp, as TF's kernel calls it: NumPy's float64 exp is a SIMD loop on
        # some CPUs (AVX-512), whose last bits could move a sample across a CDF boundary.
        weights = libm.exp(logits.astype(np.float64) - row_max[:, None])
    cdf = np.cumsum(np.where(finite, weights, 0.0), axis=1)
    to_find = u * cdf[:, -1:]
    out = np.empty((batch, num_samples), np.int64)
    for b in range(batch):
        out[b] = np.searchsorted(cdf[b], to_find[b], side="right")
    return out
