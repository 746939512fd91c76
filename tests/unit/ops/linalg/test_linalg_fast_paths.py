"""The fast kernel paths of bench/profiles/linalg.md keep the values of the simple ones:
blocked Cholesky (above 384 rows), MatrixTriangularSolve through BLAS trsm, two-operand
Einsum as a batched product, the narrow-band MatrixBandPart, LAPACK split over threads."""

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.array import grid_ops
from scopeflow.ops.linalg import lapack_np, solve_ops
from scopeflow.ops.linalg.decomposition_ops import _cholesky_kernel
from scopeflow.ops.linalg.diag_ops import _band_part_kernel

RNG = np.random.default_rng(7)


def _spd(n, batch=(), dtype=np.float64):
    a = RNG.normal(size=batch + (n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.normal(size=a.shape)
    a = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_blocked_cholesky_matches_lapack_and_reads_the_lower_triangle(dtype):
    a = _spd(520, (2,), dtype)
    garbage = a.copy()
    garbage[..., 3, 400] = np.nan  # the upper triangle is never read
    got = _cholesky_kernel(garbage)
    want = np.linalg.cholesky(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
    assert got.dtype == dtype and got.shape == a.shape
    tol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
    assert np.abs(got - want).max() <= tol * np.abs(want).max()
    assert np.all(np.triu(got, 1) == 0)


def test_blocked_cholesky_not_positive_definite_gives_nan_for_that_matrix_only():
    bad = np.eye(500, dtype=np.float32)
    bad[450, 450] = -1.0  # fails in the second block
    got = _cholesky_kernel(np.stack([bad, np.eye(500, dtype=np.float32)]))
    assert np.isnan(got[0]).all()
    assert np.array_equal(got[1], np.eye(500, dtype=np.float32))


@pytest.mark.skipif(not lapack_np.HAVE_TRSM, reason="NumPy's OpenBLAS has no cblas trsm")
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128])
def test_trsm_matches_substitution(lower, adjoint, dtype):
    a = RNG.normal(size=(3, 1, 9, 9)) + 4 * np.eye(9)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.normal(size=a.shape)
    a, b = a.astype(dtype), RNG.normal(size=(1, 2, 9, 4)).astype(dtype)
    got = solve_ops._triangular_solve_kernel(a, b, lower=lower, adjoint=adjoint)
    aa, bb = np.broadcast_to(a, (3, 2, 9, 9)), np.broadcast_to(b, (3, 2, 9, 4))
    work = np.complex128 if a.dtype.kind == "c" else np.float64
    aa, bb = aa.astype(work), bb.astype(work)
    want = (solve_ops._substitute(solve_ops.adjoint_np(aa), bb, not lower) if adjoint
            else solve_ops._substitute(aa, bb, lower))
    assert got.dtype == dtype and got.shape == (3, 2, 9, 4)
    tol = 5e-3 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(got.astype(work), want, rtol=tol, atol=tol)


def test_trsm_zero_pivot_divides_by_zero():
    a = np.tril(np.ones((3, 3), np.float32))
    a[1, 1] = 0.0
    got = solve_ops._triangular_solve_kernel(a, np.ones((3, 1), np.float32), lower=True,
                                             adjoint=False)
    assert got[0, 0] == 1.0 and np.isnan(got[1:, 0]).all()


@pytest.mark.parametrize("equation", [
    "bij,bjk->bik", "ij,jk->ki", "ij,kj->", "i,j->ij", "abc,bd->dca", "ij,ij->i",
    "bik,bij->bjk", "ab,cd->cadb", "ijk,jkl->li", "xi,i->x", "ij,jk->ikj"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int32])
def test_two_operand_einsum_matches_numpy(equation, dtype):
    sizes = dict(zip("abcdijklx", [2, 3, 4, 5, 6, 7, 3, 2, 4]))
    lhs, _ = equation.split("->")
    x, y = [(RNG.normal(size=[sizes[c] for c in s]) * 3).astype(dtype) for s in lhs.split(",")]
    got = grid_ops._einsum_kernel(x, y, equation=equation, N=2, T=None)
    want = np.einsum(equation, x, y)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("bands", [(0, 0), (1, 2), (8, 8), (-1, 0), (0, -1), (-1, -1)])
def test_band_part_keeps_nan_inside_the_band_only(bands):
    x = RNG.normal(size=(2, 40, 33)).astype(np.float32)
    x[..., ::3, ::2] = np.nan
    lo, hi = bands
    offset = np.arange(33)[None, :] - np.arange(40)[:, None]
    keep = ((offset >= -lo) | (lo < 0)) & ((offset <= hi) | (hi < 0))
    want = np.where(keep, x, np.float32(0))
    np.testing.assert_array_equal(_band_part_kernel(x, lo, hi), want)


def test_batched_lapack_splits_and_keeps_order():
    a = _spd(64, (5, 3), np.float32)
    np.testing.assert_allclose(lapack_np.batched(np.linalg.inv, a), np.linalg.inv(a),
                               rtol=1e-5, atol=1e-6)
    sign, logdet = lapack_np.batched(lambda m: tuple(np.linalg.slogdet(m)), a)
    assert sign.shape == logdet.shape == (5, 3)
    np.testing.assert_allclose(logdet, np.linalg.slogdet(a)[1], rtol=1e-6)
    with pytest.raises(np.linalg.LinAlgError):
        lapack_np.batched(np.linalg.inv, np.zeros((4, 3, 3)))


_TF_CODE = """
import json, numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
rng = np.random.default_rng(3)
a = rng.normal(size=(520, 520)); a = (a @ a.T + 520 * np.eye(520)).astype(np.float32)
t = np.tril(rng.normal(size=(2, 64, 64)) + 8 * np.eye(64)).astype(np.float32)
b = rng.normal(size=(2, 64, 5)).astype(np.float32)
x = rng.normal(size=(4, 6, 7)).astype(np.float32)
y = rng.normal(size=(4, 7, 5)).astype(np.float32)
with tf.Session() as s:
    out = s.run([tf.linalg.cholesky(a), tf.linalg.triangular_solve(t, b, adjoint=True),
                 tf.einsum("bij,bjk->bki", x, y), tf.linalg.band_part(x, 1, 2)])
print(json.dumps([o.tolist() for o in out]))
"""


def test_fast_paths_match_tf(tf1):
    rng = np.random.default_rng(3)
    a = rng.normal(size=(520, 520))
    a = (a @ a.T + 520 * np.eye(520)).astype(np.float32)
    t = np.tril(rng.normal(size=(2, 64, 64)) + 8 * np.eye(64)).astype(np.float32)
    b = rng.normal(size=(2, 64, 5)).astype(np.float32)
    x = rng.normal(size=(4, 6, 7)).astype(np.float32)
    y = rng.normal(size=(4, 7, 5)).astype(np.float32)
    want = [np.array(v, np.float32) for v in tf1(_TF_CODE)]
    with tf.Session() as s:
        got = s.run([tf.linalg.cholesky(a), tf.linalg.triangular_solve(t, b, adjoint=True),
                     tf.einsum("bij,bjk->bki", x, y), tf.linalg.band_part(x, 1, 2)])
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4)
