"""Operators of structured matrices, never formed densely for products: permutations
(``LinearOperatorPermutation``), Householder reflections (``LinearOperatorHouseholder``),
Toeplitz matrices (``LinearOperatorToeplitz``) and tridiagonal ones
(``LinearOperatorTridiag``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.indexing_ops import gather
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.array.reverse_ops import reverse as reverse_
from scopeflow.ops.array.shape_ops import broadcast_dynamic_shape, expand_dims
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.diag_ops import (
    matrix_diag,
    matrix_diag_part,
)
from scopeflow.ops.linalg.linear_operator.core import LinearOperator, _SquareFromVector
from scopeflow.ops.linalg.linear_operator.helpers import (
    _adjoint_if,
    _broadcast_batch,
    _broadcast_static,
    _check_min_rank,
    _dim_value,
    _square_shape,
    _square_shape_tensor,
    _tensor_arg,
)
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.linalg.tridiagonal_ops import tridiagonal_matmul, tridiagonal_solve
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    equal,
    multiply,
    negative,
    subtract,
)
from scopeflow.ops.math.arithmetic_ops import range as range_
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import (
    ones,
    zeros,
    zeros_like,
)
from scopeflow.ops.nn.nn_composites import l2_normalize


# ── permutations, reflections, Toeplitz and tridiagonal matrices ─────────────────────
class LinearOperatorPermutation(_SquareFromVector):
    """The permutation matrix ``P[i, perm[i]] = 1``: products gather rows, solves (and
    the adjoint) gather with the inverse permutation."""

    def __init__(self, perm, dtype=dtypes.float32, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorPermutation"):
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular. Expected "
                             f"argument `is_non_singular` to be True. Received: "
                             f"{is_non_singular}.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square. Expected argument "
                             f"`is_square` to be True. Received: {is_square}.")
        self._perm = _tensor_arg(name, perm, "perm")
        _check_min_rank(self._perm, 1, "Argument `perm` must have at least 1 dimension. "
                                       "Received: {}.")
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: "
                            f"{self._perm}.")
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"perm": perm, "dtype": dtype})

    @property
    def perm(self):
        return self._perm

    def _vector(self):
        return self._perm

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint_if(x, adjoint_arg)
        p = _one_hot_rows(self._perm, x.dtype)
        p, x = _broadcast_batch(p, x)
        return matmul(p, x, adjoint_a=adjoint)

    def _to_dense(self):
        return _one_hot_rows(self._perm, self.dtype)

    def _log_abs_determinant(self):
        return zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _diag_part(self):
        return cast(equal(self._perm, range_(shape_of(self._perm)[-1])), self.dtype)


def _one_hot_rows(perm, dtype):
    """``P[..., i, j] = (j == perm[..., i])`` (TF compares against a range)."""
    n = shape_of(perm)[-1]
    return cast(equal(range_(0, n), expand_dims(perm, -1)), dtype)


class LinearOperatorHouseholder(_SquareFromVector):
    """The reflection ``I - 2 v v^H / |v|^2`` across the hyperplane orthogonal to
    ``reflection_axis``: self-adjoint, its own inverse, determinant -1."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorHouseholder"):
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        self._axis = _tensor_arg(name, reflection_axis, "reflection_axis")
        _check_min_rank(self._axis, 1, "Argument reflection_axis must have at least 1 "
                                       "dimension.  Found: {}")
        super().__init__(self._axis.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=True, is_positive_definite=False,
                         is_square=True, name=name,
                         parameters={"reflection_axis": reflection_axis})

    @property
    def reflection_axis(self):
        return self._axis

    def _vector(self):
        return self._axis

    def _unit(self):
        return l2_normalize(self._axis, axis=-1)[..., None]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint_if(x, adjoint_arg)
        v = self._unit()
        return subtract(x, multiply(multiply(2.0, v), matmul(v, x, adjoint_a=True)))

    def _to_dense(self):
        v = self._unit()
        n = shape_of(self._axis)[-1]
        return subtract(eye(n, dtype=self.dtype), multiply(2.0, matmul(v, v,
                                                                       adjoint_b=True)))

    def _determinant(self):
        return negative(ones(self.batch_shape_tensor(), dtype=self.dtype))

    def _log_abs_determinant(self):
        return zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def inverse(self, name="inverse"):
        return self


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix ``T[i, j] = col[i - j]`` (``i >= j``), ``row[j - i]`` above
    the diagonal (``row[0]`` is not read); built dense for products."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        with name_scope(name):
            self._col = convert_to_tensor(col, name="col")
            self._row = convert_to_tensor(row, name="row", dtype=self._col.dtype.base_dtype)
        for what, t in (("col", self._col), ("row", self._row)):
            if t.shape.ndims is not None and t.shape.ndims < 1:
                raise ValueError(f"Argument {what} must have at least 1 dimension.  "
                                 f"Found: {t}")
        c, r = _dim_value(self._col.shape[-1]), _dim_value(self._row.shape[-1])
        if c is not None and r is not None and c != r:
            raise ValueError("Expected square matrix, got row and col with mismatched "
                             "dimensions.")
        super().__init__(self._col.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"col": col, "row": row})

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        batch = _broadcast_static(self._col.shape[:-1], self._row.shape[:-1])
        n = _dim_value(self._col.shape[-1])
        return batch.concatenate([n, n])

    def _shape_tensor(self):
        batch = broadcast_dynamic_shape(shape_of(self._col)[:-1], shape_of(self._row)[:-1])
        n = shape_of(self._col)[-1:]
        return concat([batch, n, n], 0)

    def _to_dense(self):
        """``T = [row reversed, col]`` read through a sliding window: entry ``(i, j)`` is
        ``full[n - 1 + i - j]`` of ``full = [row[n-1], ..., row[1], col[0], ..., col[n-1]]``."""
        n = _dim_value(self._col.shape[-1])
        if n is None:
            raise NotImplementedError("scopeflow's LinearOperatorToeplitz needs the size "
                                      "statically known")
        col, row = self._col, self._row
        if col.shape.as_list()[:-1] != row.shape.as_list()[:-1]:
            col, row = add(col, zeros_like(row)), add(row, zeros_like(col))
        full = concat([reverse_(row[..., 1:], [-1]), col], axis=-1)
        index = (n - 1 + np.arange(n)[:, None] - np.arange(n)[None, :]).astype(np.int32)
        return gather(full, index, axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        dense, x = _broadcast_batch(self.to_dense(), _adjoint_if(x, adjoint_arg))
        return matmul(dense, x, adjoint_a=adjoint)

    def _trace(self):
        return multiply(cast(self.domain_dimension_tensor(), self.dtype), self._col[..., 0])

    def _diag_part(self):
        return multiply(self._col[..., 0:1], ones(shape_of(self._col)[-1:], dtype=self.dtype))


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix from its diagonals (``compact``, ``sequence`` or ``matrix``
    as ``tf.linalg.tridiagonal_solve``): products and solves through the tridiagonal
    ops."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError("Argument `diagonals_format` must be one of compact, matrix, "
                             f"or sequence. Received : {diagonals_format}.")
        if is_square is False:
            raise ValueError("Only square tridiagonal operators currently supported.")
        with name_scope(name):
            if diagonals_format == "sequence":
                self._diagonals = [convert_to_tensor(d, name=f"diag_{i}")
                                   for i, d in enumerate(diagonals)]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = convert_to_tensor(diagonals, name="diagonals")
                dtype = self._diagonals.dtype
        self._format = diagonals_format
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"diagonals": diagonals,
                                                "diagonals_format": diagonals_format})

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._format

    def _shape(self):
        if self._format == "compact":
            s = self._diagonals.shape
            return TensorShape(None) if s.ndims is None else s[:-2].concatenate([s[-1],
                                                                               s[-1]])
        if self._format == "matrix":
            return self._diagonals.shape
        return _square_shape(self._diagonals[1].shape)

    def _shape_tensor(self):
        if self._format == "compact":
            s = shape_of(self._diagonals)
            return concat([s[:-2], s[-1:], s[-1:]], 0)
        if self._format == "matrix":
            return shape_of(self._diagonals)
        return _square_shape_tensor(self._diagonals[1])

    def _compact(self):
        if self._format == "compact":
            return self._diagonals
        if self._format == "matrix":
            return matrix_diag_part(self._diagonals, k=(-1, 1), padding_value=0.0,
                                    align="LEFT_RIGHT")
        sup, main, sub = self._diagonals
        return stack([sup, main, sub], axis=-2)

    def _to_dense(self):
        if self._format == "matrix":
            return self._diagonals
        d = self._compact()
        return matrix_diag(d, k=(-1, 1), align="LEFT_RIGHT")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint_if(x, adjoint_arg)
        d = self._compact()
        if adjoint:
            d = _adjoint_compact(d)
        return tridiagonal_matmul(d, x)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint_if(rhs, adjoint_arg)
        d = self._compact()
        if adjoint:
            d = _adjoint_compact(d)
        return tridiagonal_solve(d, rhs)

    def _diag_part(self):
        return self._compact()[..., 1, :]


def _adjoint_compact(d):
    """The compact diagonals of the conjugate transpose: the sub- and superdiagonals
    swap (shifted by one) and conjugate."""
    sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
    zero = zeros_like(main[..., :1])
    new_sup = concat([sub[..., 1:], zero], axis=-1)
    new_sub = concat([zero, sup[..., :-1]], axis=-1)
    out = stack([new_sup, main, new_sub], axis=-2)
    return conj(out) if d.dtype.is_complex else out
