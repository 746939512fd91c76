"""``tf.linalg.LinearOperator`` and its common subclasses, as pure Python over the linalg
ops: an operator is a (batch of) matrices ``A`` known by what it does (``matmul``,
``solve``, ``determinant``, ...), so structured ones (diagonal, identity, triangular,
products, block diagonals, Kronecker products, low-rank updates) never form the dense
matrix unless asked to (``to_dense``).

Each method builds its ops under ``<operator name>/<method>/``, as TF's. The hints
(``is_non_singular``, ``is_self_adjoint``, ``is_positive_definite``, ``is_square``) are
TF's: contradictory ones raise ``ValueError`` when the operator is built, and a method an
operator's hints rule out (``solve`` of a singular one, ``determinant`` of a non-square
one) raises ``NotImplementedError`` with TF's text. Batch dimensions broadcast between an
operator and its argument, and between the operators a composite holds.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.indexing_ops import gather
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.array.reverse_ops import reverse as reverse_
from scopeflow.ops.array.shape_ops import broadcast_dynamic_shape, expand_dims, reshape, squeeze
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat, split
from scopeflow.ops.linalg.decomposition_ops import cholesky, matrix_determinant, slogdet
from scopeflow.ops.linalg.diag_ops import (
    adjoint,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
)
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.linalg.solve_ops import (
    cholesky_solve,
    matrix_solve,
    matrix_triangular_solve,
)
from scopeflow.ops.linalg.tridiagonal_ops import tridiagonal_matmul, tridiagonal_solve
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    equal,
    multiply,
    negative,
    subtract,
    truediv,
)
from scopeflow.ops.math.arithmetic_ops import range as range_
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import exp, log, reciprocal
from scopeflow.ops.math.elementwise_ops import pow as pow_
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import (
    broadcast_to,
    ones,
    reduce_prod,
    reduce_sum,
    zeros,
    zeros_like,
)
from scopeflow.ops.nn.nn_composites import l2_normalize

__all__ = ["LinearOperatorPermutation", "LinearOperatorHouseholder", "LinearOperatorToeplitz",
           "LinearOperatorTridiag", "LinearOperatorBlockLowerTriangular", "LinearOperator",
           "LinearOperatorFullMatrix", "LinearOperatorDiag",
           "LinearOperatorIdentity", "LinearOperatorScaledIdentity",
           "LinearOperatorLowerTriangular", "LinearOperatorZeros",
           "LinearOperatorComposition", "LinearOperatorAdjoint", "LinearOperatorInversion",
           "LinearOperatorBlockDiag", "LinearOperatorKronecker",
           "LinearOperatorLowRankUpdate"]

_MATRIX_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                 dtypes.complex128)


# ── shape helpers ────────────────────────────────────────────────────────────────────
def _broadcast_static(a: TensorShape, b: TensorShape) -> TensorShape:
    """NumPy broadcasting of two static shapes (unknown dims stay unknown unless the
    other is known and not 1); ``ValueError`` on incompatible known dims."""
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y) if (x is None) != (y is None) else \
                out.append(None)
        elif x == y:
            out.append(x)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {a} and {b}")
    return TensorShape(out)


def _broadcast_batch(x, y):
    """``x`` and ``y`` (batches of matrices) broadcast to one batch shape, as TF's
    ``broadcast_matrix_batch_dims``; returned as they are when their static batch shapes
    already agree."""
    xs, ys = x.shape, y.shape
    if xs.ndims is not None and ys.ndims is not None and xs[:-2].is_fully_defined() and \
            ys[:-2].is_fully_defined() and xs[:-2].as_list() == ys[:-2].as_list():
        return x, y
    batch = broadcast_dynamic_shape(shape_of(x)[:-2], shape_of(y)[:-2])
    x = broadcast_to(x, concat([batch, shape_of(x)[-2:]], 0))
    y = broadcast_to(y, concat([batch, shape_of(y)[-2:]], 0))
    return x, y


def _dim_value(d):
    return getattr(d, "value", d)


def _check_dtype(t, what="matrix"):
    if t.dtype.base_dtype not in _MATRIX_TYPES:
        allowed = ", ".join(f"tf.{d.name}" for d in _MATRIX_TYPES)
        raise TypeError(f"Argument `{what}` must have dtype in [{allowed}]. Received: "
                        f"<dtype: '{t.dtype.base_dtype.name}'>.")


# ── the base class ───────────────────────────────────────────────────────────────────
class LinearOperator:
    """A (batch of) linear operators ``A: C^N -> C^M`` of static shape
    ``batch_shape + [M, N]``; subclasses give ``_shape``/``_shape_tensor``/``_matmul`` and
    may give faster ``_solve``, ``_determinant``, ...: the defaults work from ``to_dense``."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None, name=None,
                 parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_set_or_implied_by_hints = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # hints and identity
    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def graph_parents(self):
        return self._graph_parents

    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """The hint, else whether the static shape is square (None when unknown)."""
        auto = None
        m, n = _dim_value(self.range_dimension), _dim_value(self.domain_dimension)
        if m is not None and n is not None:
            auto = m == n
        hint = self._is_square_set_or_implied_by_hints
        if hint is not None and auto is not None and hint != auto:
            raise ValueError("User set is_square hint to {} but shape is {}".format(
                hint, "square" if auto else "not square"))
        return hint if hint is not None else auto

    # shapes
    @property
    def shape(self) -> TensorShape:
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32,
                                         name="shape")
            return self._shape_tensor()

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32,
                                         name="shape")
            return self._shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return convert_to_tensor(self.tensor_rank, dtype=dtypes.int32)
            return shape_of(self.shape_tensor())[0]

    @property
    def domain_dimension(self):
        return self.shape[-1] if self.shape.ndims is not None else TensorShape([None])[0]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        with self._name_scope(name):
            value = _dim_value(self.domain_dimension)
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self._shape_tensor()[-1]

    @property
    def range_dimension(self):
        return self.shape[-2] if self.shape.ndims is not None else TensorShape([None])[0]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        with self._name_scope(name):
            value = _dim_value(self.range_dimension)
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self._shape_tensor()[-2]

    def _name_scope(self, name):
        return _NestedScope(self.name, name)

    def _shape_tensor(self):
        raise NotImplementedError("shape_tensor is not implemented for this operator")

    # the operations
    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` (``A^H`` with ``adjoint``, ``x^H`` with ``adjoint_arg``); an operator
        argument gives the composition."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return _compose(left, right)
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return squeeze(self._matmul(expand_dims(x, -1), adjoint=adjoint), -1)

    def to_dense(self, name="to_dense"):
        with self._name_scope(name):
            return self._to_dense()

    def _to_dense(self):
        n = _dim_value(self.domain_dimension)
        if n is None:
            n = self.domain_dimension_tensor()
        batch = self.batch_shape.as_list() if self.batch_shape.is_fully_defined() else \
            self.batch_shape_tensor()
        return self.matmul(eye(n, batch_shape=batch, dtype=self.dtype))

    def _check_square(self, what):
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is "
                                      "expected to not be square.")

    def determinant(self, name="det"):
        self._check_square("Determinant")
        with self._name_scope(name):
            return self._determinant()

    def _determinant(self):
        if self._can_use_cholesky():
            return exp(self._log_abs_determinant())
        return matrix_determinant(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        self._check_square("Determinant")
        with self._name_scope(name):
            return self._log_abs_determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = matrix_diag_part(cholesky(self.to_dense()))
            return multiply(2.0, reduce_sum(log(abs_(diag)), axis=[-1]))
        _, value = slogdet(self.to_dense())
        return value

    def _can_use_cholesky(self):
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``A^-1 rhs`` (``A^-H`` with ``adjoint``); an operator argument gives the
        composition with the inverse."""
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            return _compose(left.inverse(), right)
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint_if(rhs, adjoint_arg)
        if self._can_use_cholesky():
            dense = self.to_dense()
            dense, rhs = _broadcast_batch(dense, rhs)
            return cholesky_solve(cholesky(dense), rhs)
        dense, rhs = _broadcast_batch(self.to_dense(), rhs)
        return matrix_solve(dense, rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            return squeeze(self.solve(expand_dims(rhs, -1), adjoint=adjoint), -1)

    def diag_part(self, name="diag_part"):
        with self._name_scope(name):
            return self._diag_part()

    def _diag_part(self):
        return matrix_diag_part(self.to_dense())

    def trace(self, name="trace"):
        with self._name_scope(name):
            return self._trace()

    def _trace(self):
        return reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _add_to_tensor(self, x):
        return add(self.to_dense(), x)

    def adjoint(self, name="adjoint"):
        if self.is_self_adjoint is True:
            return self
        return LinearOperatorAdjoint(self)

    H = property(adjoint, None)

    def inverse(self, name="inverse"):
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non "
                             "square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        return LinearOperatorInversion(self)

    def cholesky(self, name="cholesky"):
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive "
                             "definite self adjoint matrix.")
        return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True,
                                             is_self_adjoint=False, is_square=True)

    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype}.  Found: "
                            f"{arg.dtype.base_dtype} in tensor {arg}")

    def __repr__(self):
        return (f"<tf.linalg.{type(self).__name__} '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")


class _NestedScope:
    """``<operator name>/<method>/`` (two name scopes entered together): the operator's
    scope is absolute and re-entered by every method, as TF's (a ``tf.Module``'s)."""

    def __init__(self, outer, inner):
        self._scopes = [name_scope(outer + "/"), name_scope(inner)]

    def __enter__(self):
        out = None
        for s in self._scopes:
            out = s.__enter__()
        return out

    def __exit__(self, *exc):
        for s in reversed(self._scopes):
            s.__exit__(*exc)
        return False


def _adjoint_if(x, flag):
    return adjoint(x) if flag else x


def _compose(left, right):
    """``left @ right`` of two operators: identities drop out, diagonals multiply, else
    a composition (TF's matmul registrations, the common cases)."""
    if isinstance(left, LinearOperatorIdentity) and not left.batch_shape.ndims:
        return right
    if isinstance(right, LinearOperatorIdentity) and not right.batch_shape.ndims:
        return left
    if isinstance(left, LinearOperatorDiag) and isinstance(right, LinearOperatorDiag):
        return LinearOperatorDiag(multiply(left.diag, right.diag),
                                  is_non_singular=_and(left.is_non_singular,
                                                       right.is_non_singular),
                                  is_square=True)
    return LinearOperatorComposition([left, right])


def _and(a, b):
    return True if a and b else None


# ── full matrix ──────────────────────────────────────────────────────────────────────
class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        with name_scope(name):
            self._matrix = convert_to_tensor(matrix, name="matrix")
        _check_dtype(self._matrix, "matrix")
        if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
            raise ValueError("Argument `matrix` must have at least 2 dimensions. "
                             f"Received: {self._matrix}.")
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


# ── diagonal ─────────────────────────────────────────────────────────────────────────
class LinearOperatorDiag(LinearOperator):
    """``diag(d)`` for a ``[..., N]`` diagonal ``d``: products and solves elementwise."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        with name_scope(name):
            self._diag = convert_to_tensor(diag, name="diag")
        _check_dtype(self._diag, "diag")
        if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: "
                             f"{self._diag}")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"diag": diag})

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        d = self._diag.shape
        return TensorShape(None) if d.ndims is None else d.concatenate(d[-1:])

    def _shape_tensor(self):
        s = shape_of(self._diag)
        return concat([s, s[-1:]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        d = conj(self._diag) if adjoint else self._diag
        return multiply(expand_dims(d, -1), _adjoint_if(x, adjoint_arg))

    def _to_dense(self):
        return matrix_diag(self._diag)

    def _determinant(self):
        return reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        value = reduce_sum(log(abs_(self._diag)), axis=[-1])
        return cast(value, self.dtype) if self.dtype.is_complex else value

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        d = conj(self._diag) if adjoint else self._diag
        return multiply(expand_dims(reciprocal(d), -1), _adjoint_if(rhs, adjoint_arg))

    def _diag_part(self):
        return self._diag

    def _add_to_tensor(self, x):
        return matrix_set_diag(x, add(matrix_diag_part(x), self._diag))

    def inverse(self, name="inverse"):
        super().inverse(name)
        return LinearOperatorDiag(reciprocal(self._diag),
                                  is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def cholesky(self, name="cholesky"):
        super().cholesky(name)
        from_sqrt = pow_(self._diag, 0.5)
        return LinearOperatorDiag(from_sqrt, is_non_singular=True, is_self_adjoint=True,
                                  is_positive_definite=True, is_square=True)


# ── identities and zeros ─────────────────────────────────────────────────────────────
def _static_int(value, what):
    if isinstance(value, Tensor):
        return None
    value = int(value)
    if value < 0:
        raise ValueError(f"Argument {what} must be non-negative.  Found: {value}")
    return value


class _BaseIdentity(LinearOperator):
    """``num_rows`` and ``batch_shape`` as given (ints, lists or int32 tensors)."""

    def _setup(self, num_rows, batch_shape, num_columns=None):
        self._num_rows = num_rows
        self._num_rows_static = _static_int(num_rows, "num_rows")
        self._num_columns = num_rows if num_columns is None else num_columns
        self._num_columns_static = _static_int(self._num_columns, "num_columns")
        self._batch_shape_arg = batch_shape
        if batch_shape is None:
            self._batch_static = TensorShape([])
        elif isinstance(batch_shape, Tensor):
            self._batch_static = TensorShape([None] * batch_shape.shape.as_list()[0]) \
                if batch_shape.shape.is_fully_defined() else TensorShape(None)
        else:
            self._batch_static = TensorShape([_static_int(b, "batch_shape")
                                              for b in batch_shape])

    def _shape(self):
        return self._batch_static.concatenate([self._num_rows_static,
                                               self._num_columns_static])

    def _shape_tensor(self):
        batch = [] if self._batch_shape_arg is None else self._batch_shape_arg
        return concat([convert_to_tensor(batch, dtype=dtypes.int32),
                       [self._num_rows, self._num_columns]], 0)

    def _batch_list(self):
        if self._batch_shape_arg is None:
            return []
        return self._batch_shape_arg

    def _broadcast_x(self, x):
        """``x`` broadcast against the operator's batch shape (TF's
        ``_possibly_broadcast_batch_shape``)."""
        if self._batch_shape_arg is None:
            return x
        special = concat([convert_to_tensor(self._batch_list(), dtype=dtypes.int32),
                          [1, 1]], 0)
        return multiply(x, ones(special, dtype=x.dtype))


class LinearOperatorIdentity(_BaseIdentity):
    """The ``num_rows x num_rows`` identity (optionally batched): products and solves
    return their argument."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        dtype = dtype or dtypes.float32
        if not is_self_adjoint:
            raise ValueError("An identity operator is always self adjoint.")
        if not is_non_singular:
            raise ValueError("An identity operator is always non-singular.")
        if not is_positive_definite:
            raise ValueError("An identity operator is always positive-definite.")
        if not is_square:
            raise ValueError("An identity operator is always square.")
        super().__init__(dtype, is_non_singular=True, is_self_adjoint=True,
                         is_positive_definite=True, is_square=True, name=name,
                         parameters={"num_rows": num_rows, "batch_shape": batch_shape,
                                     "dtype": dtype})
        self._setup(num_rows, batch_shape)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._broadcast_x(_adjoint_if(x, adjoint_arg))

    def _to_dense(self):
        return eye(self._num_rows, batch_shape=self._batch_shape_arg, dtype=self.dtype)

    def _ones(self, last):
        shape = concat([convert_to_tensor(self._batch_list(), dtype=dtypes.int32), last], 0)
        return ones(shape, dtype=self.dtype)

    def _determinant(self):
        return self._ones([])

    def _log_abs_determinant(self):
        return subtract(self._ones([]), 1)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _diag_part(self):
        return self._ones([self._num_rows])

    def _trace(self):
        return multiply(self._ones([]), cast(self._num_rows, self.dtype))

    def _add_to_tensor(self, x):
        return matrix_set_diag(x, add(matrix_diag_part(x), 1))

    def inverse(self, name="inverse"):
        return self

    def cholesky(self, name="cholesky"):
        return self


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


# ── lower triangular ─────────────────────────────────────────────────────────────────
class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (the rest is ignored): triangular solves, the
    determinant from the diagonal."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this "
                             "time.")
        with name_scope(name):
            self._tril = convert_to_tensor(tril, name="tril")
        _check_dtype(self._tril, "tril")
        super().__init__(self._tril.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"tril": tril})

    @property
    def tril(self):
        return self._tril

    def _get_tril(self):
        return matrix_band_part(self._tril, -1, 0)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return shape_of(self._tril)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._get_tril()

    def _determinant(self):
        return reduce_prod(matrix_diag_part(self._tril), axis=[-1])

    def _log_abs_determinant(self):
        value = reduce_sum(log(abs_(matrix_diag_part(self._tril))), axis=[-1])
        return cast(value, self.dtype) if self.dtype.is_complex else value

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint_if(rhs, adjoint_arg)
        tril, rhs = _broadcast_batch(self._get_tril(), rhs)
        return matrix_triangular_solve(tril, rhs, lower=True, adjoint=adjoint)

    def _diag_part(self):
        return matrix_diag_part(self._tril)


# ── adjoint and inverse ──────────────────────────────────────────────────────────────
class LinearOperatorAdjoint(LinearOperator):
    """``operator^H``, through the operator's own ``adjoint=`` paths."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operator = operator
        hints = {}
        for what, given in [("is_non_singular", is_non_singular),
                            ("is_self_adjoint", is_self_adjoint),
                            ("is_positive_definite", is_positive_definite),
                            ("is_square", is_square)]:
            have = getattr(operator, what)
            if have is not None and given is not None and have != given:
                raise ValueError(f"Attempted to construct an adjoint of an operator with "
                                 f"{what}={have}, but this adjoint is {what}={given}")
            hints[what] = have if given is None else given
        super().__init__(operator.dtype, name=name or operator.name + "_adjoint",
                         parameters={"operator": operator}, **hints)

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        s = self._operator.shape
        return s if s.ndims is None else s[:-2].concatenate([s[-1], s[-2]])

    def _shape_tensor(self):
        s = self._operator.shape_tensor()
        return concat([s[:-2], s[-1:], s[-2:-1]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return adjoint(self._operator.to_dense())

    def _determinant(self):
        d = self._operator.determinant()
        return conj(d) if self.dtype.is_complex else d

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _diag_part(self):
        d = self._operator.diag_part()
        return conj(d) if self.dtype.is_complex else d

    def adjoint(self, name="adjoint"):
        return self._operator


class LinearOperatorInversion(LinearOperator):
    """``operator^-1``: its products are the operator's solves and the other way round."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint "
                "`is_non_singular` equal to `True` or `None`. Found "
                f"`operator.is_non_singular`: {operator.is_non_singular}, "
                f"`is_non_singular`: {is_non_singular}.")
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint "
                f"`is_square` equal to `True` or `None`. Found `operator.is_square`: "
                f"{operator.is_square}, `is_square`: {is_square}.")
        hints = {}
        for what, given in [("is_square", is_square), ("is_non_singular", is_non_singular),
                            ("is_self_adjoint", is_self_adjoint),
                            ("is_positive_definite", is_positive_definite)]:
            have = getattr(operator, what)
            if have is not None and given is not None and have != given:
                raise ValueError(f"An operator is {what[3:].replace('_', '-')} if and only "
                                 f"if its inverse is {what[3:].replace('_', '-')}.")
            hints[what] = have if given is None else given
        super().__init__(operator.dtype, name=name or operator.name + "_inv",
                         parameters={"operator": operator}, **hints)

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return reciprocal(self._operator.determinant())

    def _log_abs_determinant(self):
        return negative(self._operator.log_abs_determinant())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def inverse(self, name="inverse"):
        return self._operator


# ── composites ───────────────────────────────────────────────────────────────────────
def _check_operators(operators):
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    dtype = operators[0].dtype
    for op in operators:
        if op.dtype != dtype:
            names = "   ".join(f"({o.name!r}, tf.{o.dtype.name})" for o in operators)
            raise TypeError(f"Expected all operators to have the same dtype.  Found {names}")
    return operators


class LinearOperatorComposition(LinearOperator):
    """``operators[0] @ operators[1] @ ...``, applied right to left."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operators = _check_operators(operators)
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        name = name or "_o_".join(o.name for o in self._operators)
        super().__init__(self._operators[0].dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name, parameters={"operators": operators})

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        first, last = self._operators[0].shape, self._operators[-1].shape
        if first.ndims is None or last.ndims is None:
            return TensorShape(None)
        batch = TensorShape([])
        for op in self._operators:
            batch = _broadcast_static(batch, op.batch_shape)
        return batch.concatenate([first[-2], last[-1]])

    def _shape_tensor(self):
        batch = self._operators[0].batch_shape_tensor()
        for op in self._operators[1:]:
            batch = broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        return concat([batch, [self._operators[0].range_dimension_tensor(),
                               self._operators[-1].domain_dimension_tensor()]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else self._operators[::-1]
        out = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.matmul(out, adjoint=adjoint)
        return out

    def _to_dense(self):
        if self.shape.is_fully_defined():
            batch = self.batch_shape.as_list()
        else:
            batch = self.batch_shape_tensor()
        out = self._operators[-1].to_dense()
        out = add(out, zeros(concat([convert_to_tensor(batch, dtype=dtypes.int32),
                                     [1, 1]], 0), dtype=self.dtype)) \
            if self._operators[-1].batch_shape != self.batch_shape else out
        for op in self._operators[-2::-1]:
            out = op.matmul(out)
        return out

    def _determinant(self):
        out = self._operators[0].determinant()
        for op in self._operators[1:]:
            out = multiply(out, op.determinant())
        return out

    def _log_abs_determinant(self):
        out = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            out = add(out, op.log_abs_determinant())
        return out

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = self._operators[::-1] if adjoint else self._operators
        out = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.solve(out, adjoint=adjoint)
        return out


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator of square ``operators``: blocks of the argument's rows
    go through their operator."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        self._operators = _check_operators(operators)
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError("The direct sum of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        if all(o.is_self_adjoint for o in self._operators):
            if is_self_adjoint is False:
                raise ValueError("The direct sum of self-adjoint operators is always "
                                 "self-adjoint.")
            is_self_adjoint = True
        if all(o.is_positive_definite for o in self._operators):
            if is_positive_definite is False:
                raise ValueError("The direct sum of positive definite operators is always "
                                 "positive definite.")
            is_positive_definite = True
        if not is_square:
            raise ValueError("Only square block diagonal operators currently supported.")
        name = name or "_ds_".join(o.name for o in self._operators)
        super().__init__(self._operators[0].dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True,
                         name=name, parameters={"operators": operators})

    @property
    def operators(self):
        return self._operators

    def _sizes(self, adjoint=False):
        sizes = [_dim_value(o.range_dimension if adjoint else o.domain_dimension)
                 for o in self._operators]
        if None in sizes:
            raise NotImplementedError("scopeflow's LinearOperatorBlockDiag needs its blocks' "
                                      "sizes statically known")
        return sizes

    def _batch(self):
        batch = TensorShape([])
        for op in self._operators:
            batch = _broadcast_static(batch, op.batch_shape)
        return batch

    def _shape(self):
        if any(o.shape.ndims is None for o in self._operators):
            return TensorShape(None)
        rows = [_dim_value(o.range_dimension) for o in self._operators]
        cols = [_dim_value(o.domain_dimension) for o in self._operators]
        return self._batch().concatenate([None if None in rows else sum(rows),
                                          None if None in cols else sum(cols)])

    def _shape_tensor(self):
        return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32)

    def _blockwise(self, x, fn, adjoint, adjoint_arg):
        x = _adjoint_if(x, adjoint_arg)
        parts = split(x, self._sizes(adjoint=adjoint), axis=-2)
        outs = [fn(op, part) for op, part in zip(self._operators, parts)]
        batch = shape_of(outs[0])[:-2]
        for o in outs[1:]:
            batch = broadcast_dynamic_shape(batch, shape_of(o)[:-2])
        outs = [broadcast_to(o, concat([batch, shape_of(o)[-2:]], 0)) for o in outs]
        return concat(outs, axis=-2)

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

    def _determinant(self):
        out = self._operators[0].determinant()
        for op in self._operators[1:]:
            out = multiply(out, op.determinant())
        return out

    def _log_abs_determinant(self):
        out = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            out = add(out, op.log_abs_determinant())
        return out

    def _diag_part(self):
        return concat([op.diag_part() for op in self._operators], axis=-1)

    def _trace(self):
        out = self._operators[0].trace()
        for op in self._operators[1:]:
            out = add(out, op.trace())
        return out


def _kron_dense(a, b):
    """The Kronecker product of two batches of matrices (static inner sizes)."""
    m1, n1 = a.shape.as_list()[-2:]
    m2, n2 = b.shape.as_list()[-2:]
    prod = multiply(a[..., :, None, :, None], b[..., None, :, None, :])
    batch = shape_of(prod)[:-4]
    return reshape(prod, concat([batch, [m1 * m2, n1 * n2]], 0))


class LinearOperatorKronecker(LinearOperator):
    """``operators[0] ⊗ operators[1] ⊗ ...``; determinants from the factors' (``det(A ⊗
    B) = det(A)^m det(B)^n``), products and solves on the dense product."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operators = _check_operators(operators)
        if all(o.is_non_singular for o in self._operators):
            if is_non_singular is False:
                raise ValueError("The Kronecker product of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        if all(o.is_self_adjoint for o in self._operators):
            if is_self_adjoint is False:
                raise ValueError("The Kronecker product of self-adjoint operators is always "
                                 "self-adjoint.")
            is_self_adjoint = True
        if all(o.is_positive_definite for o in self._operators):
            if is_positive_definite is False:
                raise ValueError("The Kronecker product of positive-definite operators is "
                                 "always positive-definite.")
            is_positive_definite = True
        name = name or "_x_".join(o.name for o in self._operators)
        super().__init__(self._operators[0].dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name, parameters={"operators": operators})

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        if any(o.shape.ndims is None for o in self._operators):
            return TensorShape(None)
        batch = TensorShape([])
        rows, cols = 1, 1
        for op in self._operators:
            batch = _broadcast_static(batch, op.batch_shape)
            m, n = _dim_value(op.range_dimension), _dim_value(op.domain_dimension)
            rows = None if rows is None or m is None else rows * m
            cols = None if cols is None or n is None else cols * n
        return batch.concatenate([rows, cols])

    def _shape_tensor(self):
        return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32)

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for op in self._operators[1:]:
            out = _kron_dense(out, op.to_dense())
        return out

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        dense, x = _broadcast_batch(self.to_dense(), _adjoint_if(x, adjoint_arg))
        return matmul(dense, x, adjoint_a=adjoint)

    def _determinant(self):
        total = _dim_value(self.range_dimension)
        out = None
        for op in self._operators:
            n = _dim_value(op.range_dimension)
            term = pow_(op.determinant(), cast(total // n, self.dtype))
            out = term if out is None else multiply(out, term)
        return out

    def _log_abs_determinant(self):
        total = _dim_value(self.range_dimension)
        out = None
        for op in self._operators:
            n = _dim_value(op.range_dimension)
            term = multiply(op.log_abs_determinant(), float(total // n))
            out = term if out is None else add(out, term)
        return out

    def _diag_part(self):
        out = None
        for op in self._operators:
            d = op.diag_part()
            out = d if out is None else _flat_outer(out, d)
        return out

    def _trace(self):
        out = None
        for op in self._operators:
            t = op.trace()
            out = t if out is None else multiply(out, t)
        return out


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


# ── permutations, reflections, Toeplitz and tridiagonal matrices ─────────────────────
class LinearOperatorPermutation(LinearOperator):
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
        with name_scope(name):
            self._perm = convert_to_tensor(perm, name="perm")
        if self._perm.shape.ndims is not None and self._perm.shape.ndims < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: "
                             f"{self._perm}.")
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

    def _shape(self):
        p = self._perm.shape
        return TensorShape(None) if p.ndims is None else p.concatenate(p[-1:])

    def _shape_tensor(self):
        s = shape_of(self._perm)
        return concat([s, s[-1:]], 0)

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


class LinearOperatorHouseholder(LinearOperator):
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
        with name_scope(name):
            self._axis = convert_to_tensor(reflection_axis, name="reflection_axis")
        if self._axis.shape.ndims is not None and self._axis.shape.ndims < 1:
            raise ValueError("Argument reflection_axis must have at least 1 dimension.  "
                             f"Found: {self._axis}")
        super().__init__(self._axis.dtype, is_non_singular=is_non_singular,
                         is_self_adjoint=True, is_positive_definite=False,
                         is_square=True, name=name,
                         parameters={"reflection_axis": reflection_axis})

    @property
    def reflection_axis(self):
        return self._axis

    def _shape(self):
        a = self._axis.shape
        return TensorShape(None) if a.ndims is None else a.concatenate(a[-1:])

    def _shape_tensor(self):
        s = shape_of(self._axis)
        return concat([s, s[-1:]], 0)

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
        s = self._diagonals[1].shape
        return TensorShape(None) if s.ndims is None else s.concatenate(s[-1:])

    def _shape_tensor(self):
        if self._format == "compact":
            s = shape_of(self._diagonals)
            return concat([s[:-2], s[-1:], s[-1:]], 0)
        if self._format == "matrix":
            return shape_of(self._diagonals)
        s = shape_of(self._diagonals[1])
        return concat([s, s[-1:]], 0)

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


class LinearOperatorBlockLowerTriangular(LinearOperator):
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

    @property
    def operators(self):
        return self._operators

    def _sizes(self):
        sizes = [_dim_value(op.domain_dimension) for op in self._diagonal_operators]
        if None in sizes:
            raise NotImplementedError("scopeflow's LinearOperatorBlockLowerTriangular needs "
                                      "its blocks' sizes statically known")
        return sizes

    def _batch(self):
        batch = TensorShape([])
        for row in self._operators:
            for op in row:
                batch = _broadcast_static(batch, op.batch_shape)
        return batch

    def _shape(self):
        if any(op.shape.ndims is None for row in self._operators for op in row):
            return TensorShape(None)
        dims = [_dim_value(op.domain_dimension) for op in self._diagonal_operators]
        n = None if None in dims else sum(dims)
        return self._batch().concatenate([n, n])

    def _shape_tensor(self):
        return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32)

    def _block(self, i, j):
        """Block ``(i, j)`` of the full (square) block matrix as an operator, or None for
        the zero blocks above the diagonal."""
        return self._operators[i][j] if j <= i else None

    def _sum(self, terms):
        out = terms[0]
        for t in terms[1:]:
            out = add(out, t)
        return out

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        parts = split(_adjoint_if(x, adjoint_arg), self._sizes(), axis=-2)
        k = len(parts)
        rows = []
        for i in range(k):
            if adjoint:  # (A^H x)_i = sum_{j >= i} A_ji^H x_j
                terms = [self._block(j, i).matmul(parts[j], adjoint=True) for j in range(i, k)]
            else:
                terms = [self._block(i, j).matmul(parts[j]) for j in range(i + 1)]
            rows.append(self._sum(terms))
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
            target = subtract(parts[i], self._sum(known)) if known else parts[i]
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

    def _determinant(self):
        out = self._diagonal_operators[0].determinant()
        for op in self._diagonal_operators[1:]:
            out = multiply(out, op.determinant())
        return out

    def _log_abs_determinant(self):
        out = self._diagonal_operators[0].log_abs_determinant()
        for op in self._diagonal_operators[1:]:
            out = add(out, op.log_abs_determinant())
        return out

    def _diag_part(self):
        return concat([op.diag_part() for op in self._diagonal_operators], axis=-1)

    def _trace(self):
        return self._sum([op.trace() for op in self._diagonal_operators])


def _concat_rows(rows):
    """Row blocks (batches that may differ by broadcasting) stacked along the rows."""
    batch = shape_of(rows[0])[:-2]
    for r in rows[1:]:
        batch = broadcast_dynamic_shape(batch, shape_of(r)[:-2])
    return concat([broadcast_to(r, concat([batch, shape_of(r)[-2:]], 0)) for r in rows],
                  axis=-2)
