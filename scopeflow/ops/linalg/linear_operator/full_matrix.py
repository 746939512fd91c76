"""``LinearOperatorFullMatrix``: the operator of a dense matrix.
"""

from __future__ import annotations

from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.linalg.linear_operator.core import LinearOperator
from scopeflow.ops.linalg.linear_operator.helpers import _check_min_rank, _tensor_arg
from scopeflow.ops.math.matmul_ops import matmul


# ── full matrix ──────────────────────────────────────────────────────────────────────
class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = _tensor_arg(name, matrix, "matrix", check_dtype=True)
        _check_min_rank(self._matrix, 2, "Argument `matrix` must have at least 2 dimensions. "
                                         "Received: {}.")
        super().__init__(self._matrix.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name, parameters={"matrix": matrix})

    @property
    def matrix(self):
        return self._matrix

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return shape_of(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix
