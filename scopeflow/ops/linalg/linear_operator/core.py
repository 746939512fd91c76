"""``LinearOperator`` and the operators its own methods build: ``adjoint()`` a
``LinearOperatorAdjoint``, ``inverse()`` a ``LinearOperatorInversion``, ``cholesky()`` a
``LinearOperatorLowerTriangular``, and an operator times an operator a
``LinearOperatorComposition`` (identities dropping out, two ``LinearOperatorDiag`` multiplying).
They live with the base class because it constructs them and they subclass it: in modules
of their own, each would import the other.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import broadcast_dynamic_shape, expand_dims, squeeze
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.decomposition_ops import cholesky, matrix_determinant, slogdet
from scopeflow.ops.linalg.diag_ops import (
    adjoint,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
)
from scopeflow.ops.linalg.linear_operator.helpers import (
    _adjoint_if,
    _broadcast_batch,
    _broadcast_static,
    _check_min_rank,
    _check_operators,
    _dim_value,
    _fold,
    _hint_from_all,
    _inherited_hints,
    _NestedScope,
    _square_shape,
    _square_shape_tensor,
    _tensor_arg,
)
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.linalg.solve_ops import (
    cholesky_solve,
    matrix_solve,
    matrix_triangular_solve,
)
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    multiply,
    negative,
    subtract,
)
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import exp, log, reciprocal
from scopeflow.ops.math.elementwise_ops import pow as pow_
from scopeflow.ops.math.matmul_ops import matmul
from scopeflow.ops.math.reduction_ops import (
    ones,
    reduce_prod,
    reduce_sum,
    zeros,
)


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
        return self._static_or_dynamic("shape", lambda s: s, name)

    def _static_or_dynamic(self, which, part, name):
        """The static shape ``which`` as an int32 constant where fully defined, else
        ``part`` of ``_shape_tensor()``, in ``name``'s scope."""
        with self._name_scope(name):
            static = getattr(self, which)
            if static.is_fully_defined():
                return convert_to_tensor(static.as_list(), dtype=dtypes.int32, name="shape")
            return part(self._shape_tensor())

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return self._static_or_dynamic("batch_shape", lambda s: s[:-2], name)

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
        return self._dimension_tensor("domain_dimension", -1, name)

    def _dimension_tensor(self, which, axis, name):
        """The ``which`` dimension (``shape[axis]``) as an int32 tensor, in ``name``'s
        scope: a constant where it is static."""
        with self._name_scope(name):
            value = _dim_value(getattr(self, which))
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self._shape_tensor()[axis]

    @property
    def range_dimension(self):
        return self.shape[-2] if self.shape.ndims is not None else TensorShape([None])[0]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        return self._dimension_tensor("range_dimension", -2, name)

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

# ── diagonal ─────────────────────────────────────────────────────────────────────────
class _SquareFromVector(LinearOperator):
    """A square operator of shape ``[..., N, N]`` given by the ``[..., N]`` tensor
    ``_vector()``."""

    def _shape(self):
        return _square_shape(self._vector().shape)

    def _shape_tensor(self):
        return _square_shape_tensor(self._vector())


class LinearOperatorDiag(_SquareFromVector):
    """``diag(d)`` for a ``[..., N]`` diagonal ``d``: products and solves elementwise."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        self._diag = _tensor_arg(name, diag, "diag", check_dtype=True)
        _check_min_rank(self._diag, 1, "Argument diag must have at least 1 dimension.  "
                                       "Found: {}")
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

    def _vector(self):
        return self._diag

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


# ── identities ───────────────────────────────────────────────────────────────────────
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
        self._tril = _tensor_arg(name, tril, "tril", check_dtype=True)
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
        hints = _inherited_hints(
            operator, [("is_non_singular", is_non_singular),
                       ("is_self_adjoint", is_self_adjoint),
                       ("is_positive_definite", is_positive_definite),
                       ("is_square", is_square)],
            lambda what, have, given: f"Attempted to construct an adjoint of an operator "
                                      f"with {what}={have}, but this adjoint is "
                                      f"{what}={given}")
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
        hints = _inherited_hints(
            operator, [("is_square", is_square), ("is_non_singular", is_non_singular),
                       ("is_self_adjoint", is_self_adjoint),
                       ("is_positive_definite", is_positive_definite)],
            lambda what, have, given: f"An operator is {what[3:].replace('_', '-')} if and "
                                      f"only if its inverse is {what[3:].replace('_', '-')}.")
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
class _CompositeOperator(LinearOperator):
    """An operator made of the operators ``self._operators``: their static batch shapes
    broadcast, the static shape as its shape tensor, and (by default) the product of the
    determinants of ``_factors()`` (all the operators) as its determinant."""

    @property
    def operators(self):
        return self._operators

    def _all_operators(self):
        """Every operator it is made of, as one flat list."""
        return self._operators

    def _init_composite(self, operators, name, joiner, **hints):
        """``LinearOperator.__init__`` with ``self._operators``' dtype, ``name`` (by
        default their names joined by ``joiner``) and ``operators`` as the parameters."""
        LinearOperator.__init__(self, self._operators[0].dtype,
                                name=name or joiner.join(o.name for o in self._operators),
                                parameters={"operators": operators}, **hints)

    def _factors(self):
        """The operators whose determinants multiply to its determinant."""
        return self._operators

    def _batch(self):
        batch = TensorShape([])
        for op in self._all_operators():
            batch = _broadcast_static(batch, op.batch_shape)
        return batch

    def _unknown_rank(self):
        return any(op.shape.ndims is None for op in self._all_operators())

    def _shape_tensor(self):
        return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32)

    def _determinant(self):
        return _fold((op.determinant() for op in self._factors()), multiply)

    def _log_abs_determinant(self):
        return _fold((op.log_abs_determinant() for op in self._factors()), add)


class LinearOperatorComposition(_CompositeOperator):
    """``operators[0] @ operators[1] @ ...``, applied right to left."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        self._operators = _check_operators(operators)
        is_non_singular = _hint_from_all(self._operators, "is_non_singular", is_non_singular,
                                         "composition", "non-singular")
        self._init_composite(operators, name, "_o_", is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square)

    def _shape(self):
        first, last = self._operators[0].shape, self._operators[-1].shape
        if first.ndims is None or last.ndims is None:
            return TensorShape(None)
        return self._batch().concatenate([first[-2], last[-1]])

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

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        order = self._operators[::-1] if adjoint else self._operators
        out = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.solve(out, adjoint=adjoint)
        return out
