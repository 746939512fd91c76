"""Determinants and decompositions: MatrixDeterminant, LogMatrixDeterminant (``slogdet``),
Cholesky (and ``logdet``, ``matrix_solve_ls`` built on it), Qr and SelfAdjointEigV2.

Kernels are LAPACK through ``numpy.linalg``, batched over the leading dims. Factors are
unique only up to what TF itself guarantees (the signs of Q's columns and of eigenvectors
are LAPACK's); the gradients are TF's (``linalg_grad.py``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import expand_dims, reshape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.diag_ops import (
    LINALG_TYPES,
    adjoint,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    matrix_shape,
    square_shape,
)
from scopeflow.ops.linalg.lapack_np import cholesky_serial
from scopeflow.ops.linalg.solve_ops import (
    cholesky_solve,
    lapack_call,
    matrix_inverse,
    matrix_triangular_solve_op,
)
from scopeflow.ops.math.arithmetic_ops import add, multiply, subtract
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import log, reciprocal
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import ones_like, reduce_sum, zeros_like
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["matrix_determinant", "slogdet", "logdet", "cholesky", "qr", "self_adjoint_eig",
           "self_adjoint_eigvals", "matrix_solve_ls"]

_linalg_dtype = _same_dtype_in(LINALG_TYPES, "T")


def _batch_shape(s):
    parts = square_shape(s)
    return TensorShape(None) if parts is None else TensorShape(parts[0])


def _scaled_adjoint_inverse(a, scale, like):
    """``scale[..., None, None] * inv(a)^H``, the determinants' gradients (TF reshapes
    ``scale`` to ``shape(like) + [1, 1]``)."""
    multipliers = reshape(scale, concat([shape_of(like), [1, 1]], 0))
    return multiply(multipliers, matrix_inverse(a, adjoint=True))


# ── MatrixDeterminant ────────────────────────────────────────────────────────────────
def _determinant_kernel(x):
    return np.asarray(lapack_call(np.linalg.det, x), x.dtype)


matrix_determinant_op = OpDef("MatrixDeterminant", shape=_batch_shape, dtype=_linalg_dtype,
                              kernel=_determinant_kernel, input_names=("input",))


@matrix_determinant_op.def_grad
def _matrix_determinant_grad(op, dy):
    """d det(A) = det(A) A^-H."""
    return [_scaled_adjoint_inverse(op.inputs[0], multiply(dy, op.outputs[0]), op.outputs[0])]


def matrix_determinant(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The determinant of each innermost square matrix."""
    return matrix_determinant_op.bind(input, name=name)


# ── LogMatrixDeterminant ─────────────────────────────────────────────────────────────
def _slogdet_shape(x):
    s = _batch_shape(x)
    return [s, s]


def _slogdet_dtype(t):
    t = _linalg_dtype(t)
    return [t, t]


def _slogdet_kernel(x):
    """A NaN pivot makes TF's sign NaN too (the product of the pivots' phases), where
    LAPACK's keeps ±1."""
    with np.errstate(invalid="ignore"):
        sign, logabs = lapack_call(np.linalg.slogdet, x)
    sign, logabs = np.asarray(sign, x.dtype), np.asarray(logabs, x.dtype)
    nan = np.isnan(logabs)
    if nan.any():
        sign = np.where(nan, np.asarray(complex(np.nan, np.nan) if sign.dtype.kind == "c"
                                        else np.nan, sign.dtype), sign)
    return sign, logabs


slogdet_op = OpDef("LogMatrixDeterminant", shape=_slogdet_shape, dtype=_slogdet_dtype,
                   kernel=_slogdet_kernel, num_outputs=2, input_names=("input",))


@slogdet_op.def_grad
def _slogdet_grad(op, _dsign, dlog):
    """d log|det(A)| = A^-H; the sign is piecewise constant."""
    return [_scaled_adjoint_inverse(op.inputs[0], dlog, op.outputs[1])]


def slogdet(input, name=None):  # noqa: A002 - TF's name
    """``(sign, log_abs_determinant)`` of each innermost square matrix: the determinant
    without overflow."""
    return slogdet_op.bind(input, name=name)


# ── Cholesky ─────────────────────────────────────────────────────────────────────────
def _square_batch_shape(x):
    parts = square_shape(x)
    return TensorShape(None) if parts is None else TensorShape(parts[0] + (parts[1],) * 2)


def _cholesky_kernel(x):
    """LAPACK's factor of the lower triangle; a matrix that is not positive definite gets
    NaNs (TF 2.21's kernel does not fail either; its output is then undefined)."""
    try:
        return lapack_call(cholesky_serial, x)
    except np.linalg.LinAlgError:
        pass
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            out[i] = lapack_call(cholesky_serial, m[None])[0]
        except np.linalg.LinAlgError:
            out[i] = np.nan
    return out.reshape(x.shape)


cholesky_op = OpDef("Cholesky", shape=_square_batch_shape, dtype=_linalg_dtype,
                    kernel=_cholesky_kernel, input_names=("input",))


@cholesky_op.def_grad
def _cholesky_grad(op, dl):
    """TF's: ``L^-H Φ(L^H dL) L^-1``, symmetrised (Φ: the lower triangle, half diagonal)."""
    lo = op.outputs[0]
    eye = matrix_diag(ones_like(matrix_diag_part(lo)))
    l_inverse = matrix_triangular_solve_op.bind(lo, eye, lower=True, adjoint=False,
                                                name="MatrixTriangularSolve")
    middle = matmul(lo, dl, adjoint_a=True)
    middle = matrix_set_diag(middle, multiply(0.5, matrix_diag_part(middle)))
    middle = matrix_band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a = add(grad_a, adjoint(grad_a))
    return [multiply(grad_a, 0.5)]


def cholesky(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The lower-triangular Cholesky factor ``L`` (``input = L L^H``) of each innermost
    Hermitian positive-definite matrix; only the lower triangle of ``input`` is read."""
    return cholesky_op.bind(input, name=name)


def logdet(matrix, name=None) -> Tensor:
    """``log(det(matrix))`` of Hermitian positive-definite matrices, through Cholesky:
    twice the sum of the logs of the factor's diagonal."""
    with name_scope(name, "logdet", [matrix]):
        chol = cholesky_op.bind(matrix)
        d = matrix_diag_part(chol)
        if d.dtype.base_dtype.is_complex:
            d = abs_(d)
        return 2.0 * reduce_sum(log(d), axis=[-1])  # TF: `2.0 * ...` (op "mul")


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None) -> Tensor:
    """Least-squares solutions of ``matrix @ x = rhs`` by TF's ``fast`` path: the
    (regularised) normal equations solved through their Cholesky factor."""
    if not fast:
        raise NotImplementedError("matrix_solve_ls(fast=False) is not implemented in "
                                  "scopeflow (TF's fast=True path is)")
    with name_scope(name, "matrix_solve_ls", [matrix, rhs, l2_regularizer]):
        matrix = convert_to_tensor(matrix, name="matrix")
        rhs = convert_to_tensor(rhs, name="rhs", dtype=matrix.dtype.base_dtype)
        parts = matrix_shape(matrix.shape)
        if parts is None or parts[1] is None or parts[2] is None:
            raise ValueError("matrix_solve_ls in scopeflow needs the matrix's rows and "
                             "columns statically known")
        _, m, n = parts
        reg = convert_to_tensor(l2_regularizer, dtype=matrix.dtype.base_dtype,
                                name="l2_regularizer")
        if m >= n:  # overdetermined: (A^H A + λI) x = A^H b
            gramian = matmul(matrix, matrix, adjoint_a=True)
            gramian = add(gramian, multiply(reg, _eye_like(gramian)))
            return cholesky_solve(cholesky_op.bind(gramian), matmul(matrix, rhs,
                                                                    adjoint_a=True))
        gramian = matmul(matrix, matrix, adjoint_b=True)  # underdetermined: x = A^H (A A^H)^-1 b
        gramian = add(gramian, multiply(reg, _eye_like(gramian)))
        return matmul(matrix, cholesky_solve(cholesky_op.bind(gramian), rhs), adjoint_a=True)


def _eye_like(square):
    return matrix_diag(ones_like(matrix_diag_part(square)))


# ── Qr ───────────────────────────────────────────────────────────────────────────────
def _qr_shape(x, *, full_matrices):
    parts = matrix_shape(x)
    if parts is None:
        return [TensorShape(None), TensorShape(None)]
    batch, m, n = parts
    k = None if m is None or n is None else min(m, n)
    if full_matrices:
        return [TensorShape(batch + (m, m)), TensorShape(batch + (m, n))]
    return [TensorShape(batch + (m, k)), TensorShape(batch + (k, n))]


def _qr_dtype(t, **attrs):
    t = _linalg_dtype(t)
    return [t, t]


def _qr_kernel(x, *, full_matrices):
    mode = "complete" if full_matrices else "reduced"
    q, r = lapack_call(lambda m: tuple(np.linalg.qr(m, mode=mode)), x)
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


qr_op = OpDef("Qr", shape=_qr_shape, dtype=_qr_dtype, kernel=_qr_kernel, num_outputs=2,
              attrs={"full_matrices": False}, input_names=("input",))


def _tri_solve_right(x, r):
    """``x @ inv(r)^H`` for upper-triangular ``r`` (TF's ``_TriangularSolve``)."""
    return adjoint(matrix_triangular_solve_op.bind(r, adjoint(x), lower=False, adjoint=False,
                                                   name="MatrixTriangularSolve"))


def _qr_grad_deep(q, r, dq, dr):
    """TF's gradient for rows >= cols, reduced Q (arXiv:2009.10071)."""
    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = subtract(qdq, adjoint(qdq))
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = subtract(rdr, adjoint(rdr))
    tril = matrix_band_part(add(qdq_, rdr_), -1, 0)
    grad_a = matmul(q, add(dr, _tri_solve_right(tril, r)))
    grad_b = _tri_solve_right(subtract(dq, matmul(q, qdq)), r)
    return add(grad_a, grad_b)


@qr_op.def_grad
def _qr_grad(op, dq, dr):
    """TF's: the square-and-deep case, and wide matrices reduced to it (``a = [x, y]``)."""
    q, r = op.outputs
    rd = r.shape.as_list() if r.shape.ndims is not None else None
    if rd is None or rd[-2] is None or rd[-1] is None:
        raise NotImplementedError("QrGrad not implemented with dynamic shapes. "
                                  f"Received r.shape: {r.shape}")
    qd = q.shape.as_list()
    if rd[-2] > rd[-1] and qd[-2] == qd[-1]:
        raise NotImplementedError("QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={r.shape} with "
                                  f"nrows={rd[-2]}and ncols={rd[-1]}.")
    if q.dtype.base_dtype.is_complex:
        raise NotImplementedError("scopeflow's QrGrad is for real matrices")
    rows, cols = qd[-2], rd[-1]
    if rows >= cols:
        return [_qr_grad_deep(q, r, dq, dr)]
    a = op.inputs[0]
    y, u = a[..., :, rows:], r[..., :, :rows]
    dv, du = dr[..., :, rows:], dr[..., :, :rows]
    dy = matmul(q, dv)
    dx = _qr_grad_deep(q, u, add(dq, matmul(y, dv, adjoint_b=True)), du)
    return [concat([dx, dy], axis=-1)]


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """``(q, r)``: ``input = q r`` with orthonormal columns of ``q`` and upper-triangular
    ``r`` (``full_matrices``: ``q`` square)."""
    return qr_op.bind(input, full_matrices=bool(full_matrices), name=name)


# ── SelfAdjointEigV2 ─────────────────────────────────────────────────────────────────
def _eig_shape(x, *, compute_v):
    parts = square_shape(x)
    if parts is None:
        return [TensorShape(None), TensorShape(None)]
    batch, n = parts
    return [TensorShape(batch + (n,)),
            TensorShape(batch + (n, n)) if compute_v else TensorShape([0])]


def _eig_dtype(t, *, compute_v):
    t = _linalg_dtype(t)
    return [t.real_dtype if t.is_complex else t, t]


def _eig_kernel(x, *, compute_v):
    real = np.float32 if x.dtype == np.complex64 else \
        np.float64 if x.dtype == np.complex128 else x.dtype
    if not compute_v:
        e = lapack_call(np.linalg.eigvalsh, x)
        return e.astype(real, copy=False), np.zeros([0], x.dtype)
    e, v = lapack_call(np.linalg.eigh, x)
    return e.astype(real, copy=False), v.astype(x.dtype, copy=False)


self_adjoint_eig_op = OpDef("SelfAdjointEigV2", shape=_eig_shape, dtype=_eig_dtype,
                            kernel=_eig_kernel, num_outputs=2, attrs={"compute_v": True},
                            input_names=("input",))


def _safe_reciprocal(x, epsilon=1e-20):
    """TF's Lorentz-broadened ``1/x``: finite at degenerate eigenvalues."""
    return multiply(x, reciprocal(add(multiply(x, x), epsilon)))


@self_adjoint_eig_op.def_grad
def _self_adjoint_eig_grad(op, de, dv):
    """TF's: ``V (diag(de) + F ∘ V^H dV) V^H``, on the lower triangle that was read."""
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        f = matrix_set_diag(_safe_reciprocal(subtract(expand_dims(e, -2), expand_dims(e, -1))),
                            zeros_like(e))
        inner = add(matrix_diag(de), multiply(f, matmul(v, dv, adjoint_a=True)))
    else:
        _, v = self_adjoint_eig_op.bind(op.inputs[0], compute_v=True, name="SelfAdjointEigV2")
        inner = matrix_diag(de)
    grad_a = matmul(v, matmul(inner, v, adjoint_b=True))
    grad_a = matrix_band_part(add(grad_a, adjoint(grad_a)), -1, 0)
    grad_a = matrix_set_diag(grad_a, multiply(0.5, matrix_diag_part(grad_a)))
    return [grad_a]


def self_adjoint_eig(tensor, name=None):
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors (columns) of each
    innermost Hermitian matrix; only the lower triangle is read."""
    return self_adjoint_eig_op.bind(tensor, compute_v=True, name=name)


def self_adjoint_eigvals(tensor, name=None) -> Tensor:
    """The eigenvalues (ascending) of each innermost Hermitian matrix."""
    e, _ = self_adjoint_eig_op.bind(tensor, compute_v=False, name=name)
    return e

