"""Inverses and linear solves: MatrixInverse, MatrixSolve, MatrixTriangularSolve, and the
``cholesky_solve`` TF builds from two triangular solves.

The kernels are LAPACK through ``numpy.linalg`` (float16 is computed in float32, as NumPy's
LAPACK has no half type); a singular matrix is TF's ``InvalidArgumentError`` with TF's
text. Triangular solves are substitutions over rows, so, as TF's, they divide by a zero
pivot (giving inf/nan) instead of failing.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, broadcast_shape, broadcasting, merge_shapes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.linalg.diag_ops import (
    LINALG_TYPES,
    matrix_band_part,
    matrix_shape,
    square_shape,
)
from scopeflow.ops.linalg.lapack_np import HAVE_TRSM, batched, inverse_serial, trsm
from scopeflow.ops.math.arithmetic_ops import negative
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["matrix_inverse", "matrix_solve", "matrix_triangular_solve", "cholesky_solve",
           "lapack_call", "adjoint_np", "nonfinite_matrices", "nan_where",
           "eigen_lu", "lu_invertible"]


def adjoint_np(x):
    """The conjugate transpose of each innermost matrix of an array."""
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if np.iscomplexobj(x) else x


def lapack_call(fn, x, *args):
    """``fn(x, *args)`` in a dtype LAPACK has (float16 through float32), cast back to
    ``x``'s dtype; each result is cast, a tuple stays a tuple. ``args`` share ``x``'s batch
    dims; the batch runs on one BLAS thread per half (``lapack_np.batched``: OpenBLAS's
    own threads spin, 15x slower on a busy 2-core machine)."""
    return batched(fn, x, *args)


def nonfinite_matrices(x):
    """A mask over ``x``'s batch of the innermost matrices holding a NaN or Inf, or ``None``
    when all are finite (the common case, one cheap pass). TF's Eigen kernels run on such
    matrices and give NaN where LAPACK (NumPy) raises."""
    finite = np.isfinite(x)
    if finite.all():
        return None
    return ~finite.all(axis=(-2, -1))


def nan_where(mask, *outs):
    """``outs`` with the batch entries under ``mask`` set to NaN (each output keeps its
    dtype; batch dims lead every output)."""
    result = []
    for o in outs:
        o = np.array(o, copy=True)
        o[mask] = complex(np.nan, np.nan) if o.dtype.kind == "c" else np.nan
        result.append(o)
    return result


def eigen_lu(a):
    """Partial-pivot LU of a ``(batch, n, n)`` array in place, pivoting as Eigen's
    PartialPivLU (TF's kernels): the largest ``|entry|`` of the column, where a NaN first
    entry stays the pivot and a later NaN is never picked (Eigen compares with ``>``).
    Returns ``(a, perm)``; a zero pivot divides by zero (the caller checks the pivots)."""
    batch, n = a.shape[0], a.shape[-1]
    perm = np.tile(np.arange(n), (batch, 1))
    rows = np.arange(batch)
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(n):
            mag = np.abs(a[:, k:, k])
            nan = np.isnan(mag)
            pivot = k + np.where(nan[:, 0], 0, np.argmax(np.where(nan, -np.inf, mag), axis=1))
            row_k, row_p = a[:, k, :].copy(), a[rows, pivot, :].copy()
            a[:, k, :], a[rows, pivot, :] = row_p, row_k
            idx_k, idx_p = perm[:, k].copy(), perm[rows, pivot].copy()
            perm[:, k], perm[rows, pivot] = idx_p, idx_k
            a[:, k + 1:, k] /= a[:, k:k + 1, k]
            a[:, k + 1:, k + 1:] -= a[:, k + 1:, k:k + 1] * a[:, k:k + 1, k + 1:]
    return a, perm


def lu_invertible(lu):
    """TF's invertibility check on LU factors ``(batch, n, n)``: Eigen's ``minCoeff`` of the
    pivots' magnitudes is ``> 0`` (a NaN first pivot sticks, later NaNs are skipped)."""
    mag = np.abs(np.diagonal(lu, axis1=-2, axis2=-1))
    if mag.shape[-1] == 0:
        return np.ones(mag.shape[:-1], bool)
    later = np.where(np.isnan(mag[:, 1:]), np.inf, mag[:, 1:])
    return (mag[:, 0] > 0) & (later > 0).all(axis=-1)


def _nonfinite_lapack(fn, x, message, *args):
    """``fn(x, *args)`` for an ``x`` holding NaN/Inf, as TF's Eigen kernels: an
    ``InvalidArgumentError`` where the LU pivots fail TF's check, all-NaN results for the
    matrices holding a NaN (Eigen's solve spreads it), LAPACK's values for the rest."""
    flat = x.reshape((-1,) + x.shape[-2:])
    work = flat.astype(np.float32 if x.dtype == np.float16 else x.dtype, copy=True)
    if not lu_invertible(eigen_lu(work)[0]).all():
        raise errors.InvalidArgumentError(None, None, message)
    with np.errstate(all="ignore"):
        try:
            out = lapack_call(fn, x, *args)
        except np.linalg.LinAlgError:
            raise errors.InvalidArgumentError(None, None, message) from None
    return nan_where(np.isnan(x).any(axis=(-2, -1)), out)[0]


def _square_batch_shape(s):
    parts = square_shape(s)
    return TensorShape(None) if parts is None else TensorShape(parts[0] + (parts[1],) * 2)


# ── MatrixInverse ────────────────────────────────────────────────────────────────────
def _inverse_shape(x, *, adjoint):
    return _square_batch_shape(x)


def _inverse_kernel(x, *, adjoint):
    if adjoint:
        x = adjoint_np(x)
    if nonfinite_matrices(x) is not None:
        return _nonfinite_lapack(np.linalg.inv, x, "Input is not invertible.")
    if HAVE_TRSM:
        inv, invertible = batched(inverse_serial, x)
        if not invertible.all():
            raise errors.InvalidArgumentError(None, None, "Input is not invertible.")
        return inv
    try:
        return lapack_call(np.linalg.inv, x)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, None, "Input is not invertible.") from None


matrix_inverse_op = OpDef("MatrixInverse", shape=_inverse_shape,
                          dtype=_same_dtype_in(LINALG_TYPES, "T"), kernel=_inverse_kernel,
                          attrs={"adjoint": False}, input_names=("input",))


@matrix_inverse_op.def_grad
def _matrix_inverse_grad(op, dy):
    """TF's: ``-A^-H dy A^-H`` (with the adjoints swapped for ``adjoint=True``)."""
    ainv, adj = op.outputs[0], op.get_attr("adjoint")
    inner = matmul(dy, ainv, adjoint_a=adj, adjoint_b=not adj)
    return [negative(matmul(ainv, inner, adjoint_a=not adj))]


def matrix_inverse(input, adjoint=False, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The inverse of each innermost square matrix (of its adjoint when ``adjoint``);
    a singular one fails the run with ``InvalidArgumentError``."""
    return matrix_inverse_op.bind(input, adjoint=bool(adjoint), name=name)


# ── MatrixSolve ──────────────────────────────────────────────────────────────────────
def _solve_shapes(matrix, rhs):
    """Merges the batch and row dims of ``matrix`` (square) and ``rhs``; ``(batch, rows,
    rhs cols)`` or ``None``."""
    parts, rparts = square_shape(matrix), matrix_shape(rhs)
    if parts is None or rparts is None:
        return None
    if len(parts[0]) != len(rparts[0]):
        raise ValueError(f"Shapes must be equal rank, but are {len(parts[0]) + 2} and "
                         f"{len(rparts[0]) + 2}")
    batch = merge_shapes(TensorShape(parts[0]), TensorShape(rparts[0])).as_tuple()
    n = merge_shapes(TensorShape([parts[1]]), TensorShape([rparts[1]])).as_tuple()[0]
    return batch, n, rparts[2]


def _matrix_solve_shape(matrix, rhs, *, adjoint):
    parts = _solve_shapes(matrix, rhs)
    return TensorShape(None) if parts is None else TensorShape(parts[0] + parts[1:])


def _matrix_solve_kernel(matrix, rhs, *, adjoint):
    if matrix.shape[:-2] != rhs.shape[:-2] or matrix.shape[-1] != rhs.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Input matrix and right-hand side must have the same number of "
                        f"rows, got {matrix.shape[-1]} != {rhs.shape[-2]}")
    if adjoint:
        matrix = adjoint_np(matrix)
    if nonfinite_matrices(matrix) is not None:
        return _nonfinite_lapack(np.linalg.solve, matrix, "Input matrix is not invertible.", rhs)
    try:
        return lapack_call(np.linalg.solve, matrix, rhs)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, None, "Input matrix is not invertible.") from None


matrix_solve_op = OpDef("MatrixSolve", shape=_matrix_solve_shape,
                        dtype=_same_dtype_in(LINALG_TYPES, "T"), kernel=_matrix_solve_kernel,
                        attrs={"adjoint": False}, input_names=("matrix", "rhs"))


@matrix_solve_op.def_grad
def _matrix_solve_grad(op, dy):
    """TF's: ``db = A^-H dy``, ``dA = -db c^H`` (``-c db^H`` for ``adjoint``)."""
    a, c, adj = op.inputs[0], op.outputs[0], op.get_attr("adjoint")
    grad_b = matrix_solve(a, dy, adjoint=not adj)
    grad_a = matmul(c, grad_b, adjoint_b=True) if adj else matmul(grad_b, c, adjoint_b=True)
    return [negative(grad_a), grad_b]


def matrix_solve(matrix, rhs, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ x = rhs`` (``adjoint(matrix) @ x = rhs``) for each batch entry."""
    return matrix_solve_op.bind(matrix, rhs, adjoint=bool(adjoint), name=name)


# ── MatrixTriangularSolve ────────────────────────────────────────────────────────────
def _triangular_solve_shape(matrix, rhs, *, lower, adjoint):
    parts, rparts = square_shape(matrix), matrix_shape(rhs)
    if parts is None or rparts is None:
        return TensorShape(None)
    batch = broadcast_shape(TensorShape(parts[0]), TensorShape(rparts[0])).as_tuple()
    n = merge_shapes(TensorShape([parts[1]]), TensorShape([rparts[1]])).as_tuple()[0]
    return TensorShape(batch + (n, rparts[2]))


def _substitute(a, b, lower):
    """Solves ``a x = b`` reading only ``a``'s ``lower`` (or upper) triangle, row by row;
    a zero pivot divides by zero, as TF's kernel."""
    n = a.shape[-1]
    x = np.zeros(b.shape, np.result_type(a, b))
    rows = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in rows:
            done = slice(0, i) if lower else slice(i + 1, n)
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            x[..., i, :] = acc / a[..., i, i][..., None]
    return x


def _triangular_solve_kernel(matrix, rhs, *, lower, adjoint):
    if matrix.shape[-1] != rhs.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Input matrix and right-hand side must have the same number of "
                        f"rows, got {matrix.shape[-1]} != {rhs.shape[-2]}")
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: {list(matrix.shape)} vs. "
                        f"{list(rhs.shape)}") from None
    a = np.broadcast_to(matrix, batch + matrix.shape[-2:])
    b = np.broadcast_to(rhs, batch + rhs.shape[-2:])
    if HAVE_TRSM:
        work = np.float32 if matrix.dtype == np.float16 else matrix.dtype
        flat = a.reshape((-1,) + a.shape[-2:]).astype(work, copy=False)
        x = trsm(flat, b.reshape((-1,) + b.shape[-2:]), lower, adjoint)
        return x.reshape(b.shape).astype(matrix.dtype, copy=False)
    if adjoint:
        a, lower = adjoint_np(a), not lower
    return _substitute(a, b, lower).astype(matrix.dtype, copy=False)


matrix_triangular_solve_op = OpDef(
    "MatrixTriangularSolve", shape=broadcasting(_triangular_solve_shape),
    dtype=_same_dtype_in(LINALG_TYPES, "T"), kernel=_triangular_solve_kernel,
    attrs={"lower": True, "adjoint": False}, input_names=("matrix", "rhs"))


@matrix_triangular_solve_op.def_grad
def _matrix_triangular_solve_grad(op, dy):
    """As MatrixSolve's, with ``dA`` kept to the triangle the op reads; the walk sums
    broadcast batch dims back to each input's shape."""
    a, c = op.inputs[0], op.outputs[0]
    adj, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = matrix_triangular_solve_op.bind(a, dy, lower=lower, adjoint=not adj,
                                             name="MatrixTriangularSolve")
    grad_a = matmul(c, grad_b, adjoint_b=True) if adj else matmul(grad_b, c, adjoint_b=True)
    grad_a = negative(grad_a)
    grad_a = matrix_band_part(grad_a, -1, 0) if lower else matrix_band_part(grad_a, 0, -1)
    return [grad_a, grad_b]


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ x = rhs`` for lower (``lower``) or upper triangular matrices,
    reading only that triangle; batch dims broadcast."""
    with name_scope(name, "triangular_solve", [matrix, rhs]):
        return matrix_triangular_solve_op.bind(matrix, rhs, lower=bool(lower),
                                               adjoint=bool(adjoint))


def cholesky_solve(chol, rhs, name=None) -> Tensor:
    """Solves ``A x = rhs`` given ``chol``, the Cholesky factor of ``A``: two triangular
    solves, ``L y = rhs`` then ``L^H x = y``."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        chol = convert_to_tensor(chol, name="chol")
        y = matrix_triangular_solve_op.bind(chol, rhs, lower=True, adjoint=False)
        return matrix_triangular_solve_op.bind(chol, y, lower=True, adjoint=True)
