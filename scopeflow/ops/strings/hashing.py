"""The string hashes TF's ops use, bit for bit, in pure Python.

* :func:`fingerprint64`: farmhash's ``Fingerprint64`` (``farmhashna::Hash64``), which
  ``StringToHashBucketFast``, ``Fingerprint`` and the feature-column and sparse-cross
  hashes of TF use; its value for a string is fixed forever (a fingerprint), so models keep
  their buckets across versions.
* :func:`fingerprint128`: farmhash's ``Fingerprint128`` (``farmhashcc``, CityHash128 v1.1),
  the 128-bit fingerprint of TF's ``SdcaFprint``.
* :func:`hash64`: TF's own ``Hash64`` (``tensorflow/core/platform/hash.cc``), a MurmurHash64A
  variant with seed ``0xDECAFCAFFE``, that the legacy ``StringToHashBucket`` uses.
* :func:`siphash24`: SipHash-2-4 with a 128-bit key, ``StringToHashBucketStrong``'s keyed
  hash (TF's ``StrongKeyedHash``).

All take ``bytes`` and return the unsigned 64-bit value as a Python ``int``. The arithmetic
is 64-bit unsigned: every product and sum is masked with ``_M``.
"""

from __future__ import annotations

import struct

__all__ = ["fingerprint64", "hash64", "siphash24", "fingerprint64_bytes", "fingerprint128"]

_M = 0xFFFFFFFFFFFFFFFF

# farmhash's constants.
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_KMUL = 0x9DDFEA08EB382D69


def _fetch64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _fetch32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rot(v: int, shift: int) -> int:
    """farmhash's ``Rotate``: a right rotation of a 64-bit value."""
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _hash_len16(u: int, v: int, mul: int = _KMUL) -> int:
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _hash_len0to16(s: bytes, n: int) -> int:
    if n >= 8:
        mul = (_K2 + n * 2) & _M
        a = (_fetch64(s, 0) + _K2) & _M
        b = _fetch64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _M
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & _M, _fetch32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _hash_len17to32(s: bytes, n: int) -> int:
    mul = (_K2 + n * 2) & _M
    a = (_fetch64(s, 0) * _K1) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    return _hash_len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                       (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _hash_len33to64(s: bytes, n: int) -> int:
    mul = (_K2 + n * 2) & _M
    a = (_fetch64(s, 0) * _K2) & _M
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _M
    d = (_fetch64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _hash_len16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_fetch64(s, 16) * mul) & _M
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _M
    h = ((z + _fetch64(s, n - 24)) * mul) & _M
    return _hash_len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                       (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak_hash_len32_with_seeds(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = struct.unpack_from("<4Q", s, i)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(s: bytes) -> int:
    """farmhash ``Fingerprint64(s)`` (``farmhashna::Hash64``) as an unsigned int."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s, n)
    if n <= 32:
        return _hash_len17to32(s, n)
    if n <= 64:
        return _hash_len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_shift_mix((y * _K2 + 113) & _M) * _K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _fetch64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v0 + _fetch64(s, i + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v1 + _fetch64(s, i + 48)) & _M, 42) * _K1) & _M
        x ^= w1
        y = (y + v0 + _fetch64(s, i + 40)) & _M
        z = (_rot((z + w0) & _M, 33) * _K1) & _M
        v0, v1 = _weak_hash_len32_with_seeds(s, i, (v1 * _K1) & _M, (x + w0) & _M)
        w0, w1 = _weak_hash_len32_with_seeds(s, i + 32, (z + w1) & _M,
                                             (y + _fetch64(s, i + 16)) & _M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _M
    i = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _fetch64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _fetch64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _fetch64(s, i + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak_hash_len32_with_seeds(s, i, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak_hash_len32_with_seeds(s, i + 32, (z + w1) & _M,
                                         (y + _fetch64(s, i + 16)) & _M)
    z, x = x, z
    return _hash_len16((_hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z) & _M,
                       (_hash_len16(v1, w1, mul) + x) & _M, mul)


def fingerprint64_bytes(s: bytes) -> bytes:
    """:func:`fingerprint64` as the ``Fingerprint`` op writes it: 8 bytes, little-endian."""
    return struct.pack("<Q", fingerprint64(s))


# ── TF's Hash64 (MurmurHash64A with TF's seed) ───────────────────────────────────────
def _city_murmur(s: bytes, i: int, n: int, lo: int, hi: int) -> tuple[int, int]:
    """farmhashcc's ``CityMurmur``: the 128-bit hash of ``s[i:i+n]`` (n < 128)."""
    a, b = lo, hi
    if n <= 16:
        a = (_shift_mix((a * _K1) & _M) * _K1) & _M
        c = (b * _K1 + _hash_len0to16(s[i:i + n], n)) & _M
        d = _shift_mix((a + (_fetch64(s, i) if n >= 8 else c)) & _M)
    else:
        c = _hash_len16((_fetch64(s, i + n - 8) + _K1) & _M, a)
        d = _hash_len16((b + n) & _M, (c + _fetch64(s, i + n - 16)) & _M)
        a = (a + d) & _M
        left = n - 16
        while True:
            a ^= (_shift_mix((_fetch64(s, i) * _K1) & _M) * _K1) & _M
            a = (a * _K1) & _M
            b ^= a
            c ^= (_shift_mix((_fetch64(s, i + 8) * _K1) & _M) * _K1) & _M
            c = (c * _K1) & _M
            d ^= c
            i += 16
            left -= 16
            if left <= 0:
                break
    a = _hash_len16(a, c)
    b = _hash_len16(d, b)
    return a ^ b, _hash_len16(b, a)


def _city128_rounds(s, i, x, y, z, v, w):
    """One 64-byte step of CityHash128's main loop; returns the new state."""
    x = (_rot((x + y + v[0] + _fetch64(s, i + 8)) & _M, 37) * _K1) & _M
    y = (_rot((y + v[1] + _fetch64(s, i + 48)) & _M, 42) * _K1) & _M
    x ^= w[1]
    y = (y + v[0] + _fetch64(s, i + 40)) & _M
    z = (_rot((z + w[0]) & _M, 33) * _K1) & _M
    v = _weak_hash_len32_with_seeds(s, i, (v[1] * _K1) & _M, (x + w[0]) & _M)
    w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _M, (y + _fetch64(s, i + 16)) & _M)
    return z, y, x, v, w   # x and z swap, as in farmhash


def _city_hash128_with_seed(s: bytes, i: int, n: int, lo: int, hi: int) -> tuple[int, int]:
    """farmhashcc's ``CityHash128WithSeed`` of ``s[i:i+n]``: ``(low64, high64)``."""
    if n < 128:
        return _city_murmur(s, i, n, lo, hi)
    x, y, z = lo, hi, (n * _K1) & _M
    v0 = (_rot(y ^ _K1, 49) * _K1 + _fetch64(s, i)) & _M
    v = (v0, (_rot(v0, 42) * _K1 + _fetch64(s, i + 8)) & _M)
    w = ((_rot((y + z) & _M, 35) * _K1 + x) & _M,
         (_rot((x + _fetch64(s, i + 88)) & _M, 53) * _K1) & _M)
    while True:
        x, y, z, v, w = _city128_rounds(s, i, x, y, z, v, w)
        i += 64
        x, y, z, v, w = _city128_rounds(s, i, x, y, z, v, w)
        i += 64
        n -= 128
        if n < 128:
            break
    x = (x + _rot((v[0] + z) & _M, 49) * _K0) & _M
    y = (y * _K0 + _rot(w[1], 37)) & _M
    z = (z * _K0 + _rot(w[0], 27)) & _M
    w = ((w[0] * 9) & _M, w[1])
    v = ((v[0] * _K0) & _M, v[1])
    done = 0
    while done < n:
        done += 32
        y = (_rot((x + y) & _M, 42) * _K0 + v[1]) & _M
        w = ((w[0] + _fetch64(s, i + n - done + 16)) & _M, w[1])
        x = (x * _K0 + w[0]) & _M
        z = (z + w[1] + _fetch64(s, i + n - done)) & _M
        w = (w[0], (w[1] + v[0]) & _M)
        v = _weak_hash_len32_with_seeds(s, i + n - done, (v[0] + z) & _M, v[1])
        v = ((v[0] * _K0) & _M, v[1])
    x = _hash_len16(x, v[0])
    y = _hash_len16((y + z) & _M, w[0])
    return ((_hash_len16((x + v[1]) & _M, w[1]) + y) & _M,
            _hash_len16((x + w[1]) & _M, (y + v[1]) & _M))


def fingerprint128(s: bytes) -> tuple[int, int]:
    """farmhash's ``Fingerprint128`` (farmhashcc's CityHash128): ``(low64, high64)``."""
    n = len(s)
    if n >= 16:
        return _city_hash128_with_seed(s, 16, n - 16, _fetch64(s, 0),
                                       (_fetch64(s, 8) + _K0) & _M)
    return _city_hash128_with_seed(s, 0, n, _K0, _K1)


_MURMUR_M = 0xC6A4A7935BD1E995
TF_HASH64_SEED = 0xDECAFCAFFE


def hash64(s: bytes, seed: int = TF_HASH64_SEED) -> int:
    """TF's ``Hash64(s, n, seed)``; the one-argument form's seed is ``0xDECAFCAFFE``."""
    n = len(s)
    m = _MURMUR_M
    h = (seed ^ (n * m)) & _M
    full = n - n % 8
    for (k,) in struct.iter_unpack("<Q", s[:full]):
        k = (k * m) & _M
        k ^= k >> 47
        k = (k * m) & _M
        h ^= k
        h = (h * m) & _M
    tail = s[full:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & _M
    h ^= h >> 47
    h = (h * m) & _M
    h ^= h >> 47
    return h


# ── SipHash-2-4 ──────────────────────────────────────────────────────────────────────
def _sip_rounds(v0, v1, v2, v3, n):
    """``n`` SipRounds, the rotations written out (this loop is the hash's cost)."""
    m = _M
    for _ in range(n):
        v0 = (v0 + v1) & m
        v1 = ((v1 << 13) | (v1 >> 51)) & m ^ v0
        v0 = ((v0 << 32) | (v0 >> 32)) & m
        v2 = (v2 + v3) & m
        v3 = ((v3 << 16) | (v3 >> 48)) & m ^ v2
        v0 = (v0 + v3) & m
        v3 = ((v3 << 21) | (v3 >> 43)) & m ^ v0
        v2 = (v2 + v1) & m
        v1 = ((v1 << 17) | (v1 >> 47)) & m ^ v2
        v2 = ((v2 << 32) | (v2 >> 32)) & m
    return v0, v1, v2, v3


def siphash24(key: tuple[int, int], s: bytes) -> int:
    """SipHash-2-4 of ``s`` with the 128-bit key ``(k0, k1)`` (two unsigned 64-bit ints)."""
    k0, k1 = key[0] & _M, key[1] & _M
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    n = len(s)
    full = n - n % 8
    for (m,) in struct.iter_unpack("<Q", s[:full]):
        v3 ^= m
        v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(s[full:], "little")
    v3 ^= last
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
    v0 ^= last
    v2 ^= 0xFF
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3
