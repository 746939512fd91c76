"""The LU decomposition with partial pivoting (the Lu op: ``lu`` packs the unit-lower
``L`` and upper ``U`` into one matrix, ``p`` is the row permutation with
``L @ U = input[p]``) and the composites TF builds on it: ``lu_solve``, ``lu_reconstruct``,
``lu_matrix_inverse``. TF registers no gradient for Lu; the composites differentiate
through their triangular solves and matmuls with respect to ``lower_upper``.

The kernel eliminates one column at a time across the whole batch (LAPACK's getrf order:
the largest pivot in absolute value, the first of equals); an exactly zero pivot is TF's
``InvalidArgumentError`` ("Input is not invertible.").
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.indexing_ops import gather, one_hot
from scopeflow.ops.array.layout_ops import invert_permutation, stack
from scopeflow.ops.array.shape_ops import reshape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.linalg.diag_ops import (
    LINALG_TYPES,
    matrix_band_part,
    matrix_set_diag,
    square_shape,
)
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.linalg.solve_ops import eigen_lu, lu_invertible, matrix_triangular_solve
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import ones, reduce_prod
from scopeflow.ops.op_helpers import _same_dtype_in

__all__ = ["lu", "lu_solve", "lu_reconstruct", "lu_matrix_inverse"]

_lu_dtype_in = _same_dtype_in(LINALG_TYPES, "input")


def _lu_shape(x, *, output_idx_type):
    parts = square_shape(x)
    if parts is None:
        return [TensorShape(None), TensorShape(None)]
    batch, n = parts
    return [TensorShape(batch + (n, n)), TensorShape(batch + (n,))]


def _lu_dtype(t, *, output_idx_type):
    t = _lu_dtype_in(t)
    idx = dtypes.as_dtype(output_idx_type)
    if idx not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Value passed to parameter 'output_idx_type' has DataType "
                        f"{idx.name} not in list of allowed values: int32, int64")
    return [t, idx]


def _lu_kernel(x, *, output_idx_type):
    """Eigen's PartialPivLU (TF's kernel), with TF's check that no pivot is zero (or a
    leading NaN)."""
    n = x.shape[-1]
    work_dtype = np.float32 if x.dtype == np.float16 else x.dtype
    a, perm = eigen_lu(x.reshape((-1, n, n)).astype(work_dtype, copy=True))
    if not lu_invertible(a).all():
        raise errors.InvalidArgumentError(None, None, "Input is not invertible.")
    idx = dtypes.as_dtype(output_idx_type).as_numpy_dtype
    return (a.astype(x.dtype, copy=False).reshape(x.shape),
            perm.astype(idx).reshape(x.shape[:-1]))


lu_op = OpDef("Lu", shape=_lu_shape, dtype=_lu_dtype, kernel=_lu_kernel, num_outputs=2,
              attrs={"output_idx_type": dtypes.int32}, grad=NO_GRADIENT,
              input_names=("input",))


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """``(lu, p)``: ``L`` (unit diagonal, below) and ``U`` (on and above the diagonal)
    packed in one matrix, and the pivoting permutation ``p``: ``L @ U = input[..., p, :]``."""
    return lu_op.bind(input, output_idx_type=dtypes.as_dtype(output_idx_type), name=name)


def _reconstruct_checks(lower_upper, perm):
    """TF's static checks (the dynamic ``validate_args`` assertions are not built)."""
    lu_rank, perm_rank = lower_upper.shape.ndims, perm.shape.ndims
    if lu_rank is not None and lu_rank < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if lu_rank is not None and perm_rank is not None and lu_rank != perm_rank + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    if lower_upper.shape[:-2].is_fully_defined() if lu_rank is not None else False:
        dims = lower_upper.shape.as_list()
        if dims[-2] != dims[-1]:
            raise ValueError("`lower_upper` must be square.")


def _unit_lower(lower_upper):
    return matrix_set_diag(matrix_band_part(lower_upper, -1, 0),
                           ones(shape_of(lower_upper)[:-1], dtype=lower_upper.dtype))


def _permutation_matrix(perm, dtype):
    """``P`` with ``P[..., i, perm[i]] = 1``: ``P @ x = x[perm]``, ``P^T @ y`` undoes it
    (TF gathers with batch indices; the product is the same permutation)."""
    return one_hot(perm, shape_of(perm)[-1], dtype=dtype)


def _lu_operands(lower_upper, perm):
    """``lower_upper`` and ``perm`` as tensors, statically checked."""
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32,
                                    name="lower_upper")
    perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm")
    _reconstruct_checks(lower_upper, perm)
    return lower_upper, perm


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None) -> Tensor:
    """Solves ``A x = rhs`` from ``lu(A)``: the rows of ``rhs`` permuted, then the unit
    lower and the upper triangular solves."""
    with name_scope(name or "lu_solve", None, [lower_upper, perm, rhs]):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32,
                                        name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm")
        rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype, name="rhs")
        _reconstruct_checks(lower_upper, perm)
        if rhs.shape.ndims is not None and rhs.shape.ndims < 2:
            raise ValueError("Input `rhs` must have at least 2 dimensions.")
        lu_n = lower_upper.shape[-1] if lower_upper.shape.ndims is not None else None
        rhs_m = rhs.shape[-2] if rhs.shape.ndims is not None else None
        lu_n = getattr(lu_n, "value", lu_n)
        rhs_m = getattr(rhs_m, "value", rhs_m)
        if lu_n is not None and rhs_m is not None and lu_n != rhs_m:
            raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
        if rhs.shape.ndims == 2 and perm.shape.ndims == 1:
            permuted = gather(rhs, perm, axis=-2)
        else:
            permuted = matmul(_permutation_matrix(perm, rhs.dtype), rhs)
        return matrix_triangular_solve(
            lower_upper, matrix_triangular_solve(_unit_lower(lower_upper), permuted),
            lower=False)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """The matrix ``A`` that ``lu`` factored: ``(L @ U)`` with its rows put back."""
    with name_scope(name or "lu_reconstruct", None, [lower_upper, perm]):
        lower_upper, perm = _lu_operands(lower_upper, perm)
        shape = shape_of(lower_upper)
        upper = matrix_band_part(lower_upper, 0, -1)
        x = matmul(_unit_lower(lower_upper), upper)
        if lower_upper.shape.ndims != 2:
            # TF flattens the batch, reorders the rows and reshapes back; the rows are put
            # back here by the transposed permutation matrix, the same values.
            batch_size = reduce_prod(shape[:-2])
            d = shape[-1]
            x = reshape(x, stack([batch_size, d, d]))
            p = _permutation_matrix(reshape(perm, stack([batch_size, d])), x.dtype)
            x = reshape(matmul(p, x, transpose_a=True), shape)
        else:
            x = gather(x, invert_permutation(perm))
        x.set_shape(lower_upper.shape)
        return x


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None) -> Tensor:
    """``inv(A)`` from ``lu(A)``: ``lu_solve`` against the identity."""
    with name_scope(name or "lu_matrix_inverse", None, [lower_upper, perm]):
        lower_upper, perm = _lu_operands(lower_upper, perm)
        shape = shape_of(lower_upper)
        out = lu_solve(lower_upper, perm,
                       rhs=eye(shape[-1], batch_shape=shape[:-2], dtype=lower_upper.dtype))
        # TF's shape inference evaluates the constant shape the identity is built from; the
        # inverse has the factor's shape.
        out.set_shape(lower_upper.shape)
        return out
