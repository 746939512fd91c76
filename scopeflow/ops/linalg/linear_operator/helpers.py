"""What the operators share: NumPy broadcasting of static batch shapes and of
batches of matrices, the dtype check of an operator's tensor, the ``<operator>/<method>/``
name scope, the optional adjoint of an argument, and the operand checks of composites.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import name_scope
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


def _dim_value(d):
    return getattr(d, "value", d)


def _check_dtype(t, what="matrix"):
    if t.dtype.base_dtype not in _MATRIX_TYPES:
        allowed = ", ".join(f"tf.{d.name}" for d in _MATRIX_TYPES)
        raise TypeError(f"Argument `{what}` must have dtype in [{allowed}]. Received: "
                        f"<dtype: '{t.dtype.base_dtype.name}'>.")

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
