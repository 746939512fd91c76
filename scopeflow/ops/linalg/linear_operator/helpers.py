"""What the operators share: NumPy broadcasting of static batch shapes and of
batches of matrices, the dtype check of an operator's tensor, the ``<operator>/<method>/``
name scope, the optional adjoint of an argument, and the operand checks of composites.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import broadcast_dynamic_shape
from scopeflow.ops.array.shape_ops import shape as shape_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.linalg.diag_ops import adjoint
from scopeflow.ops.math.reduction_ops import broadcast_to

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


def _square_shape(vector_shape: TensorShape) -> TensorShape:
    """The static shape ``[..., N, N]`` of a square operator given by ``[..., N]``."""
    if vector_shape.ndims is None:
        return TensorShape(None)
    return vector_shape.concatenate(vector_shape[-1:])


def _square_shape_tensor(vector):
    """The shape tensor ``[..., N, N]`` of a square operator given by ``vector``."""
    s = shape_of(vector)
    return concat([s, s[-1:]], 0)


def _dim_value(d):
    return getattr(d, "value", d)


def _check_dtype(t, what="matrix"):
    if t.dtype.base_dtype not in _MATRIX_TYPES:
        allowed = ", ".join(f"tf.{d.name}" for d in _MATRIX_TYPES)
        raise TypeError(f"Argument `{what}` must have dtype in [{allowed}]. Received: "
                        f"<dtype: '{t.dtype.base_dtype.name}'>.")

def _tensor_arg(scope, value, what, check_dtype=False):
    """A constructor's argument ``value`` as a tensor named ``what`` in the ``scope`` name
    scope; with ``check_dtype``, checked for a matrix dtype."""
    with name_scope(scope):
        t = convert_to_tensor(value, name=what)
    if check_dtype:
        _check_dtype(t, what)
    return t


def _check_min_rank(t, rank, message):
    """``ValueError(message.format(t))`` where ``t``'s static rank is below ``rank``."""
    if t.shape.ndims is not None and t.shape.ndims < rank:
        raise ValueError(message.format(t))


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

def _fold(values, combine):
    """``combine`` folded left over ``values``; an iterator is consumed as it folds, so
    each value is built just before it is combined."""
    values = iter(values)
    out = next(values)
    for value in values:
        out = combine(out, value)
    return out


def _hint_from_all(operators, hint, given, combination, words):
    """True where every operator has the ``hint`` (a ``given`` False is then a
    ``ValueError``: "The <combination> of <words> operators is always <words>."), else
    ``given``."""
    if all(getattr(o, hint) for o in operators):
        if given is False:
            raise ValueError(f"The {combination} of {words} operators is always {words}.")
        return True
    return given


def _hints_from_all(operators, combination, is_non_singular, is_self_adjoint,
                    is_positive_definite, positive_definite):
    """``_hint_from_all`` of the non-singular, self-adjoint and positive definite
    (in the words ``positive_definite``) hints, in that order."""
    return (_hint_from_all(operators, "is_non_singular", is_non_singular, combination,
                           "non-singular"),
            _hint_from_all(operators, "is_self_adjoint", is_self_adjoint, combination,
                           "self-adjoint"),
            _hint_from_all(operators, "is_positive_definite", is_positive_definite,
                           combination, positive_definite))


def _inherited_hints(operator, given, message):
    """The hints ``given`` (``(name, value)`` pairs), each None taken from ``operator``;
    ``ValueError(message(name, operator's, given))`` where both are set and differ."""
    hints = {}
    for what, value in given:
        have = getattr(operator, what)
        if have is not None and value is not None and have != value:
            raise ValueError(message(what, have, value))
        hints[what] = have if value is None else value
    return hints


def _static_sizes(dims, owner):
    """The static values of ``dims``; NotImplementedError where one is unknown."""
    sizes = [_dim_value(d) for d in dims]
    if None in sizes:
        raise NotImplementedError(f"scopeflow's {owner} needs its blocks' sizes statically "
                                  "known")
    return sizes


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
