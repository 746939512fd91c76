"""The identity's relatives: ``multiplier * I`` (``LinearOperatorScaledIdentity``)
and the all-zero operator (``LinearOperatorZeros``), on the identity's shape handling.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops.array.shape_ops import expand_dims
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.diag_ops import (
    matrix_diag_part,
    matrix_set_diag,
)
from scopeflow.ops.linalg.linear_operator.core import _BaseIdentity
from scopeflow.ops.linalg.linear_operator.helpers import _adjoint_if
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    multiply,
    negative,
    truediv,
)
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import log
from scopeflow.ops.math.elementwise_ops import pow as pow_
from scopeflow.ops.math.reduction_ops import (
    ones,
    zeros,
)


class LinearOperatorScaledIdentity(_BaseIdentity):
    """``multiplier * I`` with a ``multiplier`` of the batch shape."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        with name_scope(name):
            self._multiplier = convert_to_tensor(multiplier, name="multiplier")
        if not self._multiplier.dtype.is_complex and is_self_adjoint is False:
            raise ValueError("A real diagonal operator is always self adjoint.")
        if not self._multiplier.dtype.is_complex:
            is_self_adjoint = True
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        super().__init__(self._multiplier.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"num_rows": num_rows,
                                                "multiplier": multiplier})
        self._setup(num_rows, None)
        self._batch_static = self._multiplier.shape

    @property
    def multiplier(self):
        return self._multiplier

    def _shape_tensor(self):
        return concat([shape_of(self._multiplier), [self._num_rows, self._num_rows]], 0)

    def _scale(self, adjoint):
        m = conj(self._multiplier) if adjoint else self._multiplier
        return expand_dims(expand_dims(m, -1), -1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return multiply(self._scale(adjoint), _adjoint_if(x, adjoint_arg))

    def _to_dense(self):
        return multiply(self._scale(False), eye(self._num_rows, dtype=self.dtype))

    def _determinant(self):
        return pow_(self._multiplier, cast(self._num_rows, self.dtype))

    def _log_abs_determinant(self):
        value = multiply(cast(self._num_rows, self._multiplier.dtype.real_dtype),
                         log(abs_(self._multiplier)))
        return cast(value, self.dtype) if self.dtype.is_complex else value

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return truediv(_adjoint_if(rhs, adjoint_arg), self._scale(adjoint))

    def _diag_part(self):
        return multiply(expand_dims(self._multiplier, -1),
                        ones([self._num_rows], dtype=self.dtype))

    def _trace(self):
        return multiply(self._multiplier, cast(self._num_rows, self.dtype))

    def _add_to_tensor(self, x):
        return matrix_set_diag(x, add(matrix_diag_part(x), expand_dims(self._multiplier, -1)))


class LinearOperatorZeros(_BaseIdentity):
    """The all-zero ``num_rows x num_columns`` operator: singular, no solves."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        dtype = dtype or dtypes.float32
        if not is_self_adjoint and is_square:
            raise ValueError("A zero operator is always self adjoint.")
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        if is_square and num_columns is not None and not isinstance(num_columns, Tensor) \
                and not isinstance(num_rows, Tensor) and int(num_columns) != int(num_rows):
            raise ValueError("LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({num_rows}) != num_columns({num_columns})")
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name,
                         parameters={"num_rows": num_rows, "num_columns": num_columns,
                                     "batch_shape": batch_shape, "dtype": dtype})
        self._setup(num_rows, batch_shape, num_columns)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint_if(x, adjoint_arg)
        rows = self._num_columns if adjoint else self._num_rows
        x = self._broadcast_x(x)
        shape = concat([shape_of(x)[:-2], [rows], shape_of(x)[-1:]], 0)
        return zeros(shape, dtype=x.dtype)

    def _to_dense(self):
        return zeros(self._shape_tensor() if not self.shape.is_fully_defined()
                     else self.shape.as_list(), dtype=self.dtype)

    def _determinant(self):
        return zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return negative(multiply(ones(self.batch_shape_tensor(), dtype=self.dtype), np.inf))

    def _diag_part(self):
        size = self._num_rows if self._num_rows_static is None or \
            self._num_columns_static is None else min(self._num_rows_static,
                                                      self._num_columns_static)
        return zeros(concat([self.batch_shape_tensor(), [size]], 0), dtype=self.dtype)

    def _trace(self):
        return zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        return x
