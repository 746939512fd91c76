"""Block operators: ``LinearOperatorBlockDiag`` and ``LinearOperatorBlockLowerTriangular``,
built from operators applied to blocks of the argument's rows.
"""

from __future__ import annotations

from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import broadcast_dynamic_shape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat, split
from scopeflow.ops.linalg.linear_operator.core import _CompositeOperator
from scopeflow.ops.linalg.linear_operator.helpers import (
    _adjoint_if,
    _check_operators,
    _dim_value,
    _fold,
    _hints_from_all,
    _static_sizes,
)
from scopeflow.ops.math.arithmetic_ops import (
    add,
    subtract,
)
from scopeflow.ops.math.reduction_ops import (
    broadcast_to,
    zeros,
)


class _BlockOperator(_CompositeOperator):
    """A square operator of blocks whose diagonal blocks are ``_factors()``: its diagonal
    is theirs, its determinant the product of theirs."""

    def _diag_part(self):
        return concat([op.diag_part() for op in self._factors()], axis=-1)


class LinearOperatorBlockDiag(_BlockOperator):
    """The block-diagonal operator of square ``operators``: blocks of the argument's rows
    go through their operator."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        self._operators = _check_operators(operators)
        is_non_singular, is_self_adjoint, is_positive_definite = _hints_from_all(
            self._operators, "direct sum", is_non_singular, is_self_adjoint,
            is_positive_definite, "positive definite")
        if not is_square:
            raise ValueError("Only square block diagonal operators currently supported.")
        self._init_composite(operators, name, "_ds_", is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=True)

    def _sizes(self, adjoint=False):
        return _static_sizes([o.range_dimension if adjoint else o.domain_dimension
                              for o in self._operators], "LinearOperatorBlockDiag")

    def _shape(self):
        if self._unknown_rank():
            return TensorShape(None)
        rows = [_dim_value(o.range_dimension) for o in self._operators]
        cols = [_dim_value(o.domain_dimension) for o in self._operators]
        return self._batch().concatenate([None if None in rows else sum(rows),
                                          None if None in cols else sum(cols)])

    def _blockwise(self, x, fn, adjoint, adjoint_arg):
        x = _adjoint_if(x, adjoint_arg)
        parts = split(x, self._sizes(adjoint=adjoint), axis=-2)
        return _concat_rows([fn(op, part) for op, part in zip(self._operators, parts)])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._blockwise(x, lambda op, p: op.matmul(p, adjoint=adjoint), adjoint,
                               adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._blockwise(rhs, lambda op, p: op.solve(p, adjoint=adjoint), adjoint,
                               adjoint_arg)

    def _to_dense(self):
        cols = self._sizes()
        total = sum(cols)
        rows_out = []
        start = 0
        batch = self._batch()
        for op, n in zip(self._operators, cols):
            dense = op.to_dense()
            if batch.is_fully_defined() and op.batch_shape != batch:
                dense = broadcast_to(dense, batch.concatenate(dense.shape[-2:]).as_list())
            lead = batch.as_list() if batch.is_fully_defined() else None
            m = _dim_value(op.range_dimension)
            pieces = []
            if start:
                pieces.append(zeros(lead + [m, start], dtype=self.dtype))
            pieces.append(dense)
            if total - start - n:
                pieces.append(zeros(lead + [m, total - start - n], dtype=self.dtype))
            rows_out.append(concat(pieces, axis=-1) if len(pieces) > 1 else dense)
            start += n
        return concat(rows_out, axis=-2)

    def _trace(self):
        return _fold((op.trace() for op in self._operators), add)


class LinearOperatorBlockLowerTriangular(_BlockOperator):
    """The block lower-triangular operator of ``operators`` (row ``i`` holds the ``i + 1``
    blocks ``A_i0 .. A_ii``, the last on the diagonal): products block row by block row,
    solves by block forward substitution through the diagonal blocks' solves."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorBlockLowerTriangular"):
        if not operators:
            raise ValueError("Argument `operators` must be a list of >=1 operators. "
                             f"Received: {operators}.")
        self._operators = [list(row) for row in operators]
        self._diagonal_operators = [row[-1] for row in self._operators]
        for i, row in enumerate(self._operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. "
                                 f"Received: {len(row)} blocks.")
        dtype = self._operators[0][0].dtype
        for i, row in enumerate(self._operators):
            for op in row:
                if op.dtype != dtype:
                    name_type = (str((o.name, o.dtype)) for o in row)
                    raise TypeError("Expected all operators to have the same dtype.  Found "
                                    f"{name_type} in row {i} and {dtype} in row 0.")
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    "A blockwise lower-triangular operator with non-singular operators on "
                    "the main diagonal is always non-singular. Expected argument "
                    f"`is_non_singular` to be True. Received: {is_non_singular}.")
            is_non_singular = True
        elif any(op.is_non_singular is False for op in self._diagonal_operators):
            if is_non_singular is True:
                raise ValueError(
                    "A blockwise lower-triangular operator with a singular operator on the "
                    "main diagonal is always singular. Expected argument `is_non_singular` "
                    f"to be True. Received: {is_non_singular}.")
            is_non_singular = False
        if is_square is False:
            raise ValueError("`LinearOperatorBlockLowerTriangular` must be square. Expected "
                             f"argument `is_square` to be True. Received: {is_square}.")
        for i, op in enumerate(self._diagonal_operators):
            if op.is_square is False:
                raise ValueError(
                    "Matrices on the diagonal (the final elements of each row-partition in "
                    "the `operators` list) must be square. Expected argument "
                    f"`operators[{i}][-1].is_square` to be True. Received: {op.is_square}.")
        super().__init__(dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"operators": operators})

    def _all_operators(self):
        return [op for row in self._operators for op in row]

    def _factors(self):
        return self._diagonal_operators

    def _sizes(self):
        return _static_sizes([op.domain_dimension for op in self._diagonal_operators],
                             "LinearOperatorBlockLowerTriangular")

    def _shape(self):
        if self._unknown_rank():
            return TensorShape(None)
        dims = [_dim_value(op.domain_dimension) for op in self._diagonal_operators]
        n = None if None in dims else sum(dims)
        return self._batch().concatenate([n, n])

    def _block(self, i, j):
        """Block ``(i, j)`` of the full (square) block matrix as an operator, or None for
        the zero blocks above the diagonal."""
        return self._operators[i][j] if j <= i else None

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        parts = split(_adjoint_if(x, adjoint_arg), self._sizes(), axis=-2)
        k = len(parts)
        rows = []
        for i in range(k):
            if adjoint:  # (A^H x)_i = sum_{j >= i} A_ji^H x_j
                terms = [self._block(j, i).matmul(parts[j], adjoint=True) for j in range(i, k)]
            else:
                terms = [self._block(i, j).matmul(parts[j]) for j in range(i + 1)]
            rows.append(_fold(terms, add))
        return _concat_rows(rows)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        parts = split(_adjoint_if(rhs, adjoint_arg), self._sizes(), axis=-2)
        k = len(parts)
        sol = [None] * k
        order = range(k - 1, -1, -1) if adjoint else range(k)
        for i in order:
            if adjoint:  # back substitution on the upper-triangular A^H
                known = [self._block(j, i).matmul(sol[j], adjoint=True)
                         for j in range(i + 1, k)]
            else:
                known = [self._block(i, j).matmul(sol[j]) for j in range(i)]
            target = subtract(parts[i], _fold(known, add)) if known else parts[i]
            sol[i] = self._diagonal_operators[i].solve(target, adjoint=adjoint)
        return _concat_rows(sol)

    def _to_dense(self):
        sizes = self._sizes()
        batch = self._batch()
        lead = batch.as_list() if batch.is_fully_defined() else None
        if lead is None:
            raise NotImplementedError("scopeflow's LinearOperatorBlockLowerTriangular needs "
                                      "its batch shape statically known for to_dense")
        rows = []
        for i, m in enumerate(sizes):
            pieces = []
            for j, n in enumerate(sizes):
                if j <= i:
                    dense = self._operators[i][j].to_dense()
                    pieces.append(broadcast_to(dense, lead + [m, n]))
                else:
                    pieces.append(zeros(lead + [m, n], dtype=self.dtype))
            rows.append(concat(pieces, axis=-1))
        return concat(rows, axis=-2)

    def _trace(self):
        return _fold([op.trace() for op in self._diagonal_operators], add)


def _concat_rows(rows):
    """Row blocks (batches that may differ by broadcasting) stacked along the rows."""
    batch = shape_of(rows[0])[:-2]
    for r in rows[1:]:
        batch = broadcast_dynamic_shape(batch, shape_of(r)[:-2])
    return concat([broadcast_to(r, concat([batch, shape_of(r)[-2:]], 0)) for r in rows],
                  axis=-2)
