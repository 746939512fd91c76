"""``LinearOperatorKronecker`` (the Kronecker product of operators) and
``LinearOperatorLowRankUpdate`` (``A + U D V^H``, solved through the matrix determinant lemma
and Woodbury's identity).
"""

from __future__ import annotations

from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import broadcast_dynamic_shape, expand_dims, reshape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.decomposition_ops import matrix_determinant, slogdet
from scopeflow.ops.linalg.diag_ops import (
    adjoint,
    matrix_diag,
)
from scopeflow.ops.linalg.linear_operator.core import LinearOperator, _CompositeOperator
from scopeflow.ops.linalg.linear_operator.helpers import (
    _adjoint_if,
    _broadcast_batch,
    _broadcast_static,
    _check_operators,
    _dim_value,
    _fold,
    _hints_from_all,
)
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.linalg.solve_ops import matrix_solve
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    multiply,
    subtract,
)
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import log, reciprocal
from scopeflow.ops.math.elementwise_ops import pow as pow_
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import (
    reduce_prod,
    reduce_sum,
)


def _kron_dense(a, b):
    """The Kronecker product of two batches of matrices (static inner sizes)."""
    m1, n1 = a.shape.as_list()[-2:]
    m2, n2 = b.shape.as_list()[-2:]
    prod = multiply(a[..., :, None, :, None], b[..., None, :, None, :])
    batch = shape_of(prod)[:-4]
    return reshape(prod, concat([batch, [m1 * m2, n1 * n2]], 0))


class LinearOperatorKronecker(_CompositeOperator):
    """``operators[0] ⊗ operators[1] ⊗ ...``; determinants from the factors' (``det(A ⊗
    B) = det(A)^m det(B)^n``), products and solves on the dense product."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operators = _check_operators(operators)
        is_non_singular, is_self_adjoint, is_positive_definite = _hints_from_all(
            self._operators, "Kronecker product", is_non_singular, is_self_adjoint,
            is_positive_definite, "positive-definite")
        self._init_composite(operators, name, "_x_", is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square)

    def _shape(self):
        if self._unknown_rank():
            return TensorShape(None)
        rows, cols = 1, 1
        for op in self._operators:
            m, n = _dim_value(op.range_dimension), _dim_value(op.domain_dimension)
            rows = None if rows is None or m is None else rows * m
            cols = None if cols is None or n is None else cols * n
        return self._batch().concatenate([rows, cols])

    def _to_dense(self):
        return _fold((op.to_dense() for op in self._operators), _kron_dense)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        dense, x = _broadcast_batch(self.to_dense(), _adjoint_if(x, adjoint_arg))
        return matmul(dense, x, adjoint_a=adjoint)

    def _repeats(self, op):
        """How many times the factor ``op``'s determinant enters the product's."""
        return _dim_value(self.range_dimension) // _dim_value(op.range_dimension)

    def _determinant(self):
        return _fold((pow_(op.determinant(), cast(self._repeats(op), self.dtype))
                      for op in self._operators), multiply)

    def _log_abs_determinant(self):
        return _fold((multiply(op.log_abs_determinant(), float(self._repeats(op)))
                      for op in self._operators), add)

    def _diag_part(self):
        return _fold((op.diag_part() for op in self._operators), _flat_outer)

    def _trace(self):
        return _fold((op.trace() for op in self._operators), multiply)


def _flat_outer(a, b):
    """``(a[..., i] * b[..., j])`` flattened over ``(i, j)``: the diagonal of a Kronecker
    product."""
    prod = multiply(expand_dims(a, -1), expand_dims(b, -2))
    return reshape(prod, concat([shape_of(prod)[:-2], [-1]], 0))


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U diag(diag_update) V^H`` (``V = U`` when not given): products
    through the factors, solves by the Woodbury identity and determinants by the
    matrix determinant lemma, both through the ``r x r`` capacitance matrix
    ``diag(diag_update)^-1 + V^H base^-1 U``."""

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        dtype = base_operator.dtype
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError("Default diagonal is the identity, which is positive.  "
                                 "However, user set 'is_diag_update_positive' to False.")
            is_diag_update_positive = True
        self._use_v = v is not None
        if base_operator.is_self_adjoint and v is None and not dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A = L + UDU^H, with L self-adjoint and D real diagonal.  "
                                 "Since UDU^H is self-adjoint, this must be a self-adjoint "
                                 "operator.")
            is_self_adjoint = True
        if base_operator.is_positive_definite and base_operator.is_self_adjoint and \
                is_diag_update_positive and v is None:
            if is_positive_definite is False or is_self_adjoint is False or \
                    is_non_singular is False:
                raise ValueError("Arguments imply this is self-adjoint positive-definite "
                                 "operator.")
            is_positive_definite = True
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("A = L + UDU^H is always square. Expected argument "
                             "'is_square' to be True.")
        with name_scope(name):
            self._u = convert_to_tensor(u, name="u")
            self._v = self._u if v is None else convert_to_tensor(v, name="v")
            self._diag_update = None if diag_update is None else \
                convert_to_tensor(diag_update, name="diag_update")
        for t in [self._u, self._v] + ([self._diag_update] if diag_update is not None
                                       else []):
            if t.dtype.base_dtype != dtype:
                raise TypeError(f"Expected all arguments to have dtype {dtype}. Found "
                                f"{t.dtype.base_dtype}")
        self._base_operator = base_operator
        self._is_diag_update_positive = is_diag_update_positive
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"base_operator": base_operator, "u": u,
                                                "diag_update": diag_update, "v": v})

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def base_operator(self):
        return self._base_operator

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    def _shape(self):
        batch = self._base_operator.batch_shape
        for t in (self._u, self._v):
            batch = _broadcast_static(batch, t.shape[:-2] if t.shape.ndims is not None
                                      else TensorShape(None))
        if self._diag_update is not None:
            batch = _broadcast_static(batch, self._diag_update.shape[:-1]
                                      if self._diag_update.shape.ndims is not None
                                      else TensorShape(None))
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self):
        batch = broadcast_dynamic_shape(self._base_operator.batch_shape_tensor(),
                                        shape_of(self._u)[:-2])
        batch = broadcast_dynamic_shape(batch, shape_of(self._v)[:-2])
        return concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _scaled(self, t, adjoint):
        """``diag(d) t`` (``conj(d)`` for the adjoint); ``t`` itself without a d."""
        if self._diag_update is None:
            return t
        d = conj(self._diag_update) if adjoint else self._diag_update
        return multiply(expand_dims(d, -1), t)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint_if(x, adjoint_arg)
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        base = self._base_operator.matmul(x, adjoint=adjoint)
        update = matmul(left, self._scaled(matmul(right, x, adjoint_a=True), adjoint))
        return add(base, update)

    def _to_dense(self):
        update = matmul(self._u, self._scaled(adjoint(self._v), False))
        return add(self._base_operator.to_dense(), update)

    def _capacitance(self, adjoint=False):
        left, right = (self._u, self._v) if adjoint else (self._v, self._u)
        linv_u = self._base_operator.solve(right, adjoint=adjoint)
        cap = matmul(left, linv_u, adjoint_a=True)
        if self._diag_update is None:
            return add(cap, eye(shape_of(self._u)[-1], dtype=self.dtype))
        d = conj(self._diag_update) if adjoint else self._diag_update
        return add(cap, matrix_diag(reciprocal(d)))

    def _determinant(self):
        det = multiply(self._base_operator.determinant(),
                       matrix_determinant(self._capacitance()))
        if self._diag_update is not None:
            det = multiply(det, reduce_prod(self._diag_update, axis=[-1]))
        return det

    def _log_abs_determinant(self):
        _, cap = slogdet(self._capacitance())
        out = add(self._base_operator.log_abs_determinant(), cap)
        if self._diag_update is not None:
            out = add(out, reduce_sum(log(abs_(self._diag_update)), axis=[-1]))
        return out

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        """Woodbury: ``A^-1 = L^-1 - L^-1 U C^-1 V^H L^-1``."""
        rhs = _adjoint_if(rhs, adjoint_arg)
        left, right = (self._u, self._v) if adjoint else (self._v, self._u)
        base = self._base_operator
        linv_rhs = base.solve(rhs, adjoint=adjoint)
        vh_linv_rhs = matmul(left, linv_rhs, adjoint_a=True)
        cap = self._capacitance(adjoint=adjoint)
        cap, vh_linv_rhs = _broadcast_batch(cap, vh_linv_rhs)
        inner = matmul(right, matrix_solve(cap, vh_linv_rhs))
        return subtract(linv_rhs, base.solve(inner, adjoint=adjoint))
