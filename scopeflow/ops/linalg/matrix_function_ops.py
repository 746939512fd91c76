"""Identity matrices and functions of matrices: ``eye`` and ``matvec`` (composites as TF
builds them), MatrixSquareRoot (``sqrtm``, with TF's Sylvester-equation gradient),
MatrixLogarithm (``logm``, complex only as in TF; no gradient, as in TF) and ``expm`` (TF's
Padé approximant with scaling and squaring, a while loop of squarings).

``sqrtm`` and ``logm`` apply the scalar function to the eigenvalues (``A = V diag(w) V^-1``,
computed in complex arithmetic and, for real input, returned as the real part): the
principal branch, accurate for the diagonalisable, well-conditioned matrices these are
meant for (TF's Eigen kernels use a Schur form; the values agree within the conditioning).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import COMPLEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import expand_dims, reshape, squeeze
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.control_flow.while_ops import while_loop
from scopeflow.ops.linalg.diag_ops import (
    LINALG_TYPES,
    matrix_diag,
    matrix_set_diag,
    matrix_transpose,
    square_shape,
)
from scopeflow.ops.linalg.solve_ops import lapack_call, matrix_solve, nan_where, nonfinite_matrices
from scopeflow.ops.math.arithmetic_ops import add, cast, less, multiply, negative, truediv
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import floor, is_finite, log
from scopeflow.ops.math.elementwise_ops import pow as pow_
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import (
    fill,
    maximum,
    minimum,
    ones,
    reduce_max,
    reduce_prod,
    reduce_sum,
    tile,
    where_v2,
    zeros,
)
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["eye", "matvec", "sqrtm", "matrix_square_root", "logm", "expm"]


# ── eye (composite) ──────────────────────────────────────────────────────────────────
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32,
        name=None) -> Tensor:
    """A (batch of) identity matrices, as TF builds it: ``matrix_diag`` of ones when
    square, else ones set on the diagonal of zeros (shapes from ``Minimum``/``ConcatV2``
    when a size is a tensor)."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size = minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, (int, np.integer)) or \
                    not isinstance(num_columns, (int, np.integer)):
                raise TypeError("Arguments `num_rows` and `num_columns` must be positive "
                                f"integer values. Received: num_rows={num_rows}, "
                                f"num_columns={num_columns}")
            is_square = num_rows == num_columns
            diag_size = int(min(num_rows, num_columns))
        if isinstance(batch_shape, Tensor) or isinstance(diag_size, Tensor):
            batch_shape = convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape = concat((batch_shape, [diag_size]), axis=0)
            if not is_square:
                full_shape = concat((batch_shape, [num_rows, num_columns]), axis=0)
        else:
            batch_shape = list(batch_shape)
            diag_shape = batch_shape + [diag_size]
            if not is_square:
                full_shape = batch_shape + [num_rows, num_columns]
        diag_ones = ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(zeros(full_shape, dtype=dtype), diag_ones)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None) -> Tensor:
    """``a @ b`` for a (batch of) vectors ``b``: TF's ``MatMul`` of ``b[..., None]``,
    squeezed."""
    with name_scope(name, "MatVec", [a, b]):
        out = matmul(a, expand_dims(b, axis=-1), transpose_a=transpose_a,
                     adjoint_a=adjoint_a, a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)
        return squeeze(out, axis=-1)


# ── eigenvalue-based matrix functions ────────────────────────────────────────────────
def _square_shape(x):
    parts = square_shape(x)
    return TensorShape(None) if parts is None else TensorShape(parts[0] + (parts[1],) * 2)


def _apply_to_eigenvalues(x, fn):
    """``V fn(w) V^-1`` per matrix, in complex128/complex64; real input keeps the real
    part (NaN where the principal value is complex: a real matrix with a negative real
    eigenvalue has no real principal square root)."""
    if x.shape[-1] == 0 or x.size == 0:
        return np.zeros_like(x)
    bad = nonfinite_matrices(x)
    if bad is not None:  # TF's Eigen kernels give all-NaN; LAPACK's eig would raise
        clean = np.where(bad[..., None, None], np.zeros((), x.dtype), x)
        return nan_where(bad, _apply_to_eigenvalues(clean, fn))[0]
    work = x.astype(np.complex128)
    w, v = np.linalg.eig(work)
    inner = v * fn(w)[..., None, :]
    try:
        out = np.linalg.solve(np.swapaxes(v, -1, -2), np.swapaxes(inner, -1, -2))
        out = np.swapaxes(out, -1, -2)
    except np.linalg.LinAlgError:
        out = inner @ np.linalg.pinv(v)
    if np.iscomplexobj(x):
        return out.astype(x.dtype)
    bad = np.any((w.imag == 0) & (w.real < 0), axis=-1)
    real = out.real.astype(x.dtype)
    if np.any(bad):
        real[bad] = np.nan
    return real


def _sqrtm_kernel(x):
    return lapack_call(lambda m: _apply_to_eigenvalues(m, np.sqrt), x)


matrix_square_root_op = OpDef("MatrixSquareRoot", shape=_square_shape,
                              dtype=_same_dtype_in(LINALG_TYPES, "input"), kernel=_sqrtm_kernel,
                              input_names=("input",))


def _kronecker(b1, b2, batch, n):
    """The Kronecker product of two batches of ``n x n`` matrices (``batch``: the shape
    tensor of the batch dims)."""
    left = reshape(b1, concat([batch, [n], [1], [n], [1]], 0))
    right = reshape(b2, concat([batch, [1], [n], [1], [n]], 0))
    return reshape(multiply(left, right), concat([batch, [n * n], [n * n]], 0))


@matrix_square_root_op.def_grad
def _matrix_square_root_grad(op, grad):
    """TF's: ``dA = R dR + dR R`` solved for ``dR`` as the linear system
    ``(I ⊗ R^T + R ⊗ I) vec(dR) = vec(dA)`` (column-major vecs)."""
    root = op.outputs[0]
    shape = shape_of(root)
    order = shape[-1]
    batch = shape[:-2]
    eye_flat = reshape(eye(order, dtype=root.dtype), [-1])
    eye_batch = reshape(tile(eye_flat, [reduce_prod(batch)]), shape)
    ksum = add(_kronecker(eye_batch, matrix_transpose(root), batch, order),
               _kronecker(root, eye_batch, batch, order))
    vec = reshape(matrix_transpose(grad), concat([batch, [order * order], [1]], 0))
    return [matrix_transpose(reshape(matrix_solve(ksum, vec), shape))]


def sqrtm(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The principal square root of each innermost square matrix (``R @ R = input``)."""
    return matrix_square_root_op.bind(input, name=name)


matrix_square_root = sqrtm


def _logm_kernel(x):
    return lapack_call(lambda m: _apply_to_eigenvalues(m, np.log), x)


matrix_logarithm_op = OpDef("MatrixLogarithm", shape=_square_shape,
                            dtype=_same_dtype_in(COMPLEX, "input"), kernel=_logm_kernel,
                            grad=NO_GRADIENT, input_names=("input",))


def logm(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The principal logarithm of each innermost complex square matrix."""
    return matrix_logarithm_op.bind(input, name=name)


# ── expm (composite) ─────────────────────────────────────────────────────────────────
_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0],
}


def _pade(matrix, order):
    """``(U, V)`` of the ``[order/order]`` Padé approximant of ``exp`` (TF's grouping of
    the even powers; ``exp(A) ≈ (V - U)^-1 (V + U)``)."""
    b = [constant(x, matrix.dtype) for x in _PADE[order]]
    shape = shape_of(matrix)
    ident = eye(shape[-2], batch_shape=shape[:-2], dtype=matrix.dtype)
    m2 = matmul(matrix, matrix)
    if order == 13:
        m4 = matmul(m2, m2)
        m6 = matmul(m4, m2)
        tmp_u = matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + \
            b[3] * m2 + b[1] * ident
        tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
        v = matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
        return matmul(matrix, tmp_u), v
    powers = [ident, m2]
    for _ in range(order // 2 - 1):
        powers.append(matmul(powers[-1], m2))
    # tmp = m_{2k} + b[2k-1] m_{2k-2} + ... + b[1] I ; V = b[2k] m_{2k} + ... + b[0] I
    top = len(powers) - 1
    tmp = powers[top]
    for j in range(top - 1, -1, -1):
        tmp = tmp + b[2 * j + 1] * powers[j]
    v = b[2 * top] * powers[top]
    for j in range(top - 1, -1, -1):
        v = v + b[2 * j] * powers[j]
    return matmul(matrix, tmp), v


def _expm_pade_table(dtype):
    """TF's table for ``dtype``'s precision: the largest 1-norm the top Padé order takes
    unscaled, the orders, and the 1-norm thresholds between consecutive orders."""
    base = dtype.base_dtype
    if base in (dtypes.float16, dtypes.float32, dtypes.complex64):
        return 3.925724783138660, (3, 5, 7), (4.258730016922831e-001, 1.880152677804762e+000)
    if base in (dtypes.float64, dtypes.complex128):
        return 5.371920351148152, (3, 5, 7, 9, 13), (
            1.495585217958292e-002, 2.539398330063230e-001,
            9.504178996162932e-001, 2.097847961257068e+000)
    raise ValueError(f"tf.linalg.expm does not support matrices of type {dtype}")


def _nest_where(l1_norm, thresholds, cases):
    """``cases[i]`` for the first threshold the 1-norm is below, else the last case."""
    below = less(l1_norm, constant(thresholds[0], l1_norm.dtype))
    if len(thresholds) == 1:
        return where_v2(below, cases[0], cases[1])
    return where_v2(below, cases[0], _nest_where(l1_norm, thresholds[1:], cases[1:]))


def _square_repeatedly(result, squarings, finite):
    """``result`` squared ``squarings`` times (per matrix), in one loop run as many times
    as the largest count; no squaring when the norm is not finite (the result is NaN)."""
    max_squarings = reduce_max(squarings)

    def keep_going(i, _):
        return cond(finite, lambda: less(i, max_squarings), lambda: constant(False))

    def square_some(i, r):
        return i + 1, where_v2(less(i, squarings), matmul(r, r), r)

    _, result = while_loop(keep_going, square_some, [constant(0.0, squarings.dtype), result])
    return result


def expm(input, name=None) -> Tensor:  # noqa: A002 - TF's name
    """The matrix exponential of each innermost square matrix: TF's scaling and squaring
    (Higham 2005): a Padé approximant picked by the 1-norm (orders 3, 5, 7 in single
    precision; up to 13 in double), on the matrix scaled by ``2^-s``, squared ``s``
    times; NaN for a matrix with a non-finite norm."""
    with name_scope(name, "matrix_exponential", [input]):
        matrix = convert_to_tensor(input, name="input")
        dims = matrix.shape.as_list() if matrix.shape.ndims is not None else None
        if dims is not None and len(dims) >= 2 and dims[-2:] == [0, 0]:
            return matrix
        batch_static = matrix.shape[:-2] if dims is not None else None
        fully_defined = dims is not None and None not in dims
        batch_dynamic = shape_of(matrix)[:-2]
        matrix = reshape(matrix, concat(([-1], shape_of(matrix)[-2:]), axis=0))
        l1_norm = reduce_max(reduce_sum(abs_(matrix), axis=1), axis=-1)[..., None, None]

        def const(x):
            return constant(x, l1_norm.dtype)

        maxnorm, orders, conds = _expm_pade_table(matrix.dtype)
        squarings = maximum(floor(truediv(log(truediv(l1_norm, const(maxnorm))),
                                          log(const(2.0)))), 0)
        pairs = [_pade(matrix, k) for k in orders[:-1]]
        scaled = truediv(matrix, cast(pow_(const(2.0), squarings), matrix.dtype))
        pairs.append(_pade(scaled, orders[-1]))
        u = _nest_where(l1_norm, conds, [p[0] for p in pairs])
        v = _nest_where(l1_norm, conds, [p[1] for p in pairs])
        finite = is_finite(reduce_max(l1_norm))
        nan = constant(np.nan, matrix.dtype)
        result = cond(finite, lambda: matrix_solve(add(negative(u), v), add(u, v)),
                      lambda: fill(shape_of(matrix), nan))
        result = _square_repeatedly(result, squarings, finite)
        if not fully_defined:
            return reshape(result, concat((batch_dynamic, shape_of(result)[-2:]), axis=0))
        return reshape(result, batch_static.concatenate(result.shape[-2:]))
