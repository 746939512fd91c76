"""The vectorised paths of the special-function kernels give the bits of the per-element
ones they replaced: half/float ``erf`` and ``lgamma`` are the C library's double rounded
once (through ``math``), wherever Cephes' approximation and its bound land; digamma,
zeta and polygamma keep each element's arithmetic however the work is chunked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scopeflow.ops.math import special_ops as S


def _reference(fn, x, special):
    def safe(v):
        try:
            return fn(v)
        except (OverflowError, ValueError):
            return special
    return np.array([safe(v) for v in x.astype(np.float64).tolist()]).astype(x.dtype)


def _float32_inputs():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 1 << 32, 60_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    # dense runs of neighbouring floats where the approximations change branch or the
    # result crosses zero (lgamma's zeros 1 and 2) or saturates (erf at 3.9 and 6)
    runs = [np.float32(c) + np.arange(-300, 300, dtype=np.float32) * np.spacing(np.float32(c))
            for c in (1.0, 2.0, 3.0, 13.0, 0.5, 3.9, 6.0, 1e-20)]
    edges = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38,
                        -1.0, -2.5, 1.0, 2.0])
    return np.concatenate([bits, rng.uniform(-7, 15, 60_000).astype(np.float32), *runs, edges])


@pytest.mark.bitexact
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_erf_and_lgamma_are_the_c_librarys_double_rounded(dtype):
    x = (_float32_inputs().astype(dtype) if dtype == np.float32 else
         np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16))
    with np.errstate(all="ignore"):
        for kernel, fn, special in ((S._erf_kernel, math.erf, math.nan),
                                    (S._lgamma_kernel, math.lgamma, math.inf)):
            got, want = kernel(x), _reference(fn, x, special)
            assert got.dtype == x.dtype
            # bit for bit, NaNs included (a zero's sign too: lgamma(1) is +0)
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), kernel.__name__


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_digamma_is_the_float64_algorithm_rounded(dtype):
    """Float digamma takes a fixed shift of 6 where it can, the full recurrence where its
    bound straddles a rounding: always the float64 algorithm's value, rounded once."""
    x = (_float32_inputs().astype(dtype) if dtype == np.float32 else
         np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16))
    root = np.float32(1.4616321) + np.arange(-500, 500, dtype=np.float32) * np.float32(2**-23)
    if dtype == np.float32:
        x = np.concatenate([x, root, np.float32([1e-30, 5.9, 6.1, 1e6])])
    with np.errstate(all="ignore"):
        got, want = S._digamma_kernel(x), S._digamma64(x).astype(dtype)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_fast_paths_leave_few_elements_to_the_c_library(monkeypatch):
    """Realistic inputs take the approximation almost everywhere: the C library is called
    for well under 0.1% of them (else the kernels would be as slow as before)."""
    calls = []
    real = S._map_math

    def counting(fn, x, special):
        calls.append(np.size(x))
        return real(fn, x, special)
    monkeypatch.setattr(S, "_map_math", counting)
    x = np.random.default_rng(0).uniform(0.1, 10, 200_000).astype(np.float32)
    S._erf_kernel(x - 5)
    S._lgamma_kernel(x)
    assert sum(calls) < 200


def test_zeta_chunks_and_far_negative_q():
    """Chunk boundaries and elements summing for thousands of steps (q far below 0) next
    to ones done after nine: each as computed alone."""
    rng = np.random.default_rng(3)
    q = np.concatenate([rng.uniform(0.1, 20, 40_000), [-3000.5, -12.25, 1.0, -2.0, np.nan]])
    x = np.concatenate([rng.uniform(1.5, 5, 40_000), [2.0, 3.0, 2.0, 2.0, 2.0]])
    whole = S._zeta64(x, q)
    alone = np.array([S._zeta64(np.array([a]), np.array([b]))[0] for a, b in
                      zip(x[-400:].tolist(), q[-400:].tolist())])
    assert np.array_equal(whole[-400:], alone, equal_nan=True)
    assert whole[-3] == pytest.approx(math.pi ** 2 / 6, rel=1e-15)
    assert whole[-2] == np.inf and np.isnan(whole[-1])


def test_polygamma_scalar_order_matches_full_order():
    """n! is taken on the order before broadcasting: the same bits as a full array of it."""
    x = np.random.default_rng(4).uniform(-5, 10, 30_000)
    for n in (0.0, 1.0, 2.0, 3.5, -1.0):
        a = S._polygamma64(np.float64(n), x)
        b = S._polygamma64(np.full_like(x, n), x)
        assert np.array_equal(a, b, equal_nan=True)
    assert S._polygamma64(np.float64(1.0), np.array([1.0]))[0] == pytest.approx(
        math.pi ** 2 / 6, rel=1e-15)
