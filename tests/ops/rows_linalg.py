"""Op-table rows for the linear-algebra ops (scopeflow/ops/linalg/)."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

f32, f64 = np.float32, np.float64


def _spd(x):
    """A symmetric positive-definite matrix (batch) from any square one."""
    return x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1], dtype=x.dtype)


def _tf_spd(tf, x):
    return tf.matmul(x, x, transpose_b=True) + 3 * np.eye(x.shape[-1], dtype=np.float32)


def _well(*shape, seed=0):
    """Diagonally dominant (well conditioned) matrices."""
    return rand(*shape, seed=seed) + 4 * np.eye(shape[-1], dtype=f32)


def _ref_band(x, lo, hi):
    m, n = x.shape[-2:]
    off = np.arange(n)[None, :] - np.arange(m)[:, None]
    keep = ((off >= -lo) if lo >= 0 else True) & ((off <= hi) if hi >= 0 else True)
    return np.where(keep, x, 0)


def _ref_tri_solve(a, b, lower):
    t = np.tril(a) if lower else np.triu(a)
    return np.linalg.solve(t, b)


ROWS = [
    OpCase("MatrixBandPart", lambda tf, x: tf.matrix_band_part(x, 1, 0),
           lambda x: _ref_band(x, 1, 0), [rand(2, 3, 4)]),
    OpCase("MatrixBandPart", lambda tf, x: tf.linalg.band_part(x, -1, 1),
           lambda x: _ref_band(x, -1, 1), [rand(4, 3)], id="MatrixBandPart-lower-all"),
    OpCase("MatrixDiagV3", lambda tf, d: tf.matrix_diag(d),
           lambda d: d[..., None] * np.eye(3, dtype=f32), [rand(2, 3)]),
    OpCase("MatrixDiagV3", lambda tf, d: tf.linalg.diag(d, k=1),
           lambda d: np.diag(d, 1), [rand(3)], id="MatrixDiagV3-k1"),
    OpCase("MatrixDiagPartV3", lambda tf, x: tf.matrix_diag_part(x),
           lambda x: np.diagonal(x, axis1=-2, axis2=-1), [rand(2, 3, 4)]),
    OpCase("MatrixDiagPartV3", lambda tf, x: tf.linalg.diag_part(x, k=-1),
           lambda x: np.diagonal(x, -1), [rand(3, 3)], id="MatrixDiagPartV3-k-1"),
    OpCase("MatrixSetDiagV3", lambda tf, x, d: tf.matrix_set_diag(x, d),
           lambda x, d: _set(x, d),
           [rand(2, 3, 4), rand(2, 3, seed=1)]),
    OpCase("Diag", lambda tf, d: tf.diag(d),
           lambda d: np.diag(d.reshape(-1)).reshape(d.shape * 2), [rand(2, 2)]),
    OpCase("DiagPart", lambda tf, x: tf.diag_part(x),
           lambda x: np.diag(x.reshape(4, 4)).reshape(2, 2), [rand(2, 2, 2, 2)]),
    OpCase("MatrixDiagPartV3", lambda tf, x: tf.trace(x),
           lambda x: np.trace(x, axis1=-2, axis2=-1), [rand(2, 3, 3)], id="trace"),
    OpCase("MatrixInverse", lambda tf, x: tf.matrix_inverse(x), np.linalg.inv,
           [_well(2, 3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("MatrixInverse", lambda tf, x: tf.linalg.inv(x, adjoint=True),
           lambda x: np.linalg.inv(x.T), [_well(3, 3)], rtol=1e-4, atol=1e-5,
           id="MatrixInverse-adjoint"),
    OpCase("MatrixDeterminant", lambda tf, x: tf.matrix_determinant(x), np.linalg.det,
           [_well(2, 3, 3)], rtol=1e-4),
    OpCase("LogMatrixDeterminant", lambda tf, x: tf.linalg.slogdet(x),
           lambda x: list(np.linalg.slogdet(x)), [_well(2, 3, 3) * -1], rtol=1e-4, atol=1e-5),
    OpCase("Cholesky", lambda tf, x: tf.cholesky(_tf_spd(tf, x)),
           lambda x: np.linalg.cholesky(_spd(x)), [rand(2, 3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("Cholesky", lambda tf, x: tf.linalg.logdet(_tf_spd(tf, x)),
           lambda x: np.linalg.slogdet(_spd(x))[1], [rand(3, 3)], rtol=1e-4, id="logdet"),
    OpCase("MatrixSolve", lambda tf, a, b: tf.matrix_solve(a, b), np.linalg.solve,
           [_well(2, 3, 3), rand(2, 3, 2, seed=1)], rtol=1e-4, atol=1e-5),
    OpCase("MatrixSolve", lambda tf, a, b: tf.linalg.solve(a, b, adjoint=True),
           lambda a, b: np.linalg.solve(a.T, b), [_well(3, 3), rand(3, 2, seed=1)],
           rtol=1e-4, atol=1e-5, id="MatrixSolve-adjoint"),
    OpCase("MatrixTriangularSolve", lambda tf, a, b: tf.matrix_triangular_solve(a, b),
           lambda a, b: _ref_tri_solve(a, b, True), [_well(2, 3, 3), rand(2, 3, 2, seed=1)],
           rtol=1e-4, atol=1e-5),
    OpCase("MatrixTriangularSolve",
           lambda tf, a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
           lambda a, b: np.linalg.solve(np.triu(a).T, b), [_well(3, 3), rand(2, 3, 2, seed=1)],
           rtol=1e-4, atol=1e-5, id="MatrixTriangularSolve-upper-adjoint-broadcast"),
    OpCase("MatrixTriangularSolve",
           lambda tf, x, b: tf.cholesky_solve(tf.cholesky(_tf_spd(tf, x)), b),
           lambda x, b: np.linalg.solve(_spd(x), b), [rand(3, 3), rand(3, 2, seed=1)],
           rtol=1e-4, atol=1e-5, id="cholesky_solve"),
    OpCase("Qr", lambda tf, x: tf.matmul(*tf.qr(x)), lambda x: x, [rand(2, 4, 3)],
           rtol=1e-4, atol=1e-5),
    OpCase("Qr", lambda tf, x: tf.matmul(*tf.qr(x)), lambda x: x, [rand(3, 4)],
           rtol=1e-4, atol=1e-5, id="Qr-wide"),
    OpCase("SelfAdjointEigV2", lambda tf, x: tf.self_adjoint_eigvals(_tf_spd(tf, x)),
           lambda x: np.linalg.eigvalsh(_spd(x)), [rand(2, 3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("SelfAdjointEigV2",
           lambda tf, x: tf.abs(tf.linalg.eigh(_tf_spd(tf, x))[1]),
           lambda x: np.abs(np.linalg.eigh(_spd(x))[1]), [rand(3, 3)], rtol=1e-3, atol=1e-4,
           id="SelfAdjointEigV2-vectors"),
    OpCase("Cross", lambda tf, a, b: tf.cross(a, b), np.cross,
           [rand(2, 3), rand(2, 3, seed=1)]),
]


def _set(x, d):
    out = x.copy()
    i = np.arange(3)
    out[..., i, i] = d
    return out


def _tri_dense(d):
    m = d.shape[-1]
    out = np.zeros(d.shape[:-2] + (m, m), d.dtype)
    i = np.arange(m)
    out[..., i, i] = d[..., 1, :]
    out[..., i[:-1], i[1:]] = d[..., 0, :-1]
    out[..., i[1:], i[:-1]] = d[..., 2, 1:]
    return out


def _tri_diags(*batch, m=4, seed=0):
    d = rand(*batch, 3, m, seed=seed)
    d[..., 1, :] += 5
    return d


def _svd_rebuild(tf, x, full=False):
    s, u, v = tf.linalg.svd(x, full_matrices=full)
    k = tf.shape(s)[-1]
    return tf.matmul(u[..., :, :k] * s[..., None, :], v[..., :, :k], adjoint_b=True)


def _sym(x):
    return x @ np.swapaxes(x, -1, -2) / 4 + np.eye(x.shape[-1], dtype=x.dtype)


ROWS += [
    OpCase("Svd", lambda tf, x: tf.svd(x, compute_uv=False),
           lambda x: np.linalg.svd(x, compute_uv=False), [rand(2, 4, 3)], rtol=1e-4,
           atol=1e-5),
    OpCase("Svd", _svd_rebuild, lambda x: x, [rand(2, 3, 4)], rtol=1e-4, atol=1e-5,
           id="Svd-rebuild-wide"),
    OpCase("Svd", _svd_rebuild, lambda x: x, [rand(4, 3)], rtol=1e-4, atol=1e-5,
           id="Svd-rebuild-deep"),
    OpCase("Svd", lambda tf, x: _svd_rebuild(tf, x, True), lambda x: x, [rand(3, 4)],
           rtol=1e-4, atol=1e-5, id="Svd-rebuild-full"),
    OpCase("Svd", lambda tf, x: tf.linalg.pinv(x), np.linalg.pinv, [rand(2, 4, 3)],
           rtol=1e-4, atol=1e-5, id="pinv"),
    OpCase("Svd", lambda tf, x: tf.norm(x, ord=2, axis=[-2, -1]),
           lambda x: np.linalg.norm(x, 2, axis=(-2, -1)), [rand(2, 3, 4)], rtol=1e-4,
           id="norm-matrix-2"),
    OpCase("MatrixSquareRoot", lambda tf, x: tf.linalg.sqrtm(_tf_spd(tf, x)),
           lambda x: _fn_eig(_spd(x), np.sqrt), [rand(2, 3, 3)], rtol=1e-4, atol=1e-5),
    OpCase("MatrixLogarithm", lambda tf, x: tf.linalg.logm(tf.cast(x, tf.complex128)),
           lambda x: _fn_eig(x.astype(np.complex128), np.log), [_sym(rand(2, 3, 3, dtype=f64))],
           rtol=1e-8, atol=1e-10, check_grad=False),
    OpCase("Lu", lambda tf, x: tf.linalg.lu_reconstruct(*tf.linalg.lu(x)), lambda x: x,
           [_well(2, 4, 4)], rtol=1e-5, atol=1e-5, check_grad=False),
    OpCase("Lu", lambda tf, x, b: tf.linalg.lu_solve(*tf.linalg.lu(x), b), np.linalg.solve,
           [_well(3, 3), rand(3, 2, seed=1)], rtol=1e-4, atol=1e-5, check_grad=False,
           id="lu_solve"),
    OpCase("TridiagonalSolve", lambda tf, d, b: tf.linalg.tridiagonal_solve(d, b),
           lambda d, b: np.linalg.solve(_tri_dense(d), b),
           [_tri_diags(2), rand(2, 4, 3, seed=1)], rtol=1e-4, atol=1e-5),
    OpCase("TridiagonalMatMul", lambda tf, d, b: tf.linalg.tridiagonal_matmul(d, b),
           lambda d, b: _tri_dense(d) @ b, [_tri_diags(2), rand(2, 4, 3, seed=1)],
           rtol=1e-5, atol=1e-5),
]


def _fn_eig(a, fn):
    w, v = np.linalg.eig(a.astype(np.complex128))
    out = (v * fn(w)[..., None, :]) @ np.linalg.inv(v)
    return out.astype(a.dtype) if np.iscomplexobj(a) else out.real.astype(a.dtype)
