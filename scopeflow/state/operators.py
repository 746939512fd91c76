"""Python's operators on graph values, installed in one place.

``x + y``, ``x[1:]``, ``-x``, ``x < y``, ``iter(x)`` on a ``Tensor`` build ops, as TF's
``math_ops``/``array_ops`` make them (op types, names, dtype conversions); a ``Variable``
supports the same operators on its snapshot ``v/read``; an ``IndexedSlices`` negates and
converts to a dense tensor (``tf.convert_to_tensor``). The classes live in ``framework`` and
``variables``, below the ops that implement their operators, so this module, above both,
installs them when ``scopeflow`` is imported.
"""

from __future__ import annotations

from scopeflow.framework.graph import (
    Tensor,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.ops import array_ops, math_ops
from scopeflow.state.variables import Variable

__all__: list[str] = []

_BINARY = {"add": math_ops.add, "sub": math_ops.subtract, "mul": math_ops.multiply,
           "truediv": math_ops.truediv, "div": math_ops.div, "floordiv": math_ops.floordiv,
           "mod": math_ops.floormod, "pow": math_ops.pow, "matmul": math_ops.matmul,
           "and": math_ops.logical_and, "or": math_ops.logical_or,
           "xor": math_ops.logical_xor}
_COMPARISONS = {"lt": math_ops.less, "le": math_ops.less_equal, "gt": math_ops.greater,
                "ge": math_ops.greater_equal}
_UNARY = {"neg": math_ops.negative, "abs": math_ops.abs, "invert": math_ops.logical_not}


def _binary_operator(fn, op_name):
    """``x <op> y`` and the reflected ``y <op> x``, in TF's ``<op>`` name scope."""
    def forward(x, y):
        if op_name == "mul" and isinstance(y, SparseTensor):
            return y * x  # TF's _mul_dispatch: dense * sparse is SparseDenseCwiseMul
        with name_scope(None, op_name, [x, y]) as scope:
            return fn(x, y, name=scope)

    def reflected(y, x):
        with name_scope(None, op_name, [x, y]) as scope:
            y = convert_to_tensor(y)
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=scope)

    forward.__name__ = f"__{op_name}__"
    reflected.__name__ = f"__r{op_name}__"
    return forward, reflected


def _tensor_iter(tensor):
    """``iter(t)``: the rows of ``t`` (``tf.unstack``), when its first dimension is known."""
    shape = tensor.shape
    if shape.ndims is None or shape.ndims == 0 or shape.as_tuple()[0] is None:
        raise TypeError("Tensor objects are only iterable when eager execution is enabled or "
                        "the first dimension is known. To iterate over this tensor use "
                        "tf.map_fn.")
    return iter(array_ops.unstack(tensor))


def _install_tensor_operators():
    for op_name, fn in _BINARY.items():
        forward, reflected = _binary_operator(fn, op_name)
        setattr(Tensor, f"__{op_name}__", forward)
        setattr(Tensor, f"__r{op_name}__", reflected)
    for op_name, fn in _COMPARISONS.items():
        setattr(Tensor, f"__{op_name}__", lambda x, y, fn=fn: fn(x, y))
    for op_name, fn in _UNARY.items():
        setattr(Tensor, f"__{op_name}__", lambda x, fn=fn: fn(x))
    Tensor.__getitem__ = array_ops.slice_helper
    Tensor.__iter__ = _tensor_iter


def _install_variable_operators():
    """A variable supports every operator a tensor does, acting on its value (a ref
    variable's snapshot, a resource variable's read made here)."""
    names = ([f"__{n}__" for n in _BINARY] + [f"__r{n}__" for n in _BINARY]
             + [f"__{n}__" for n in (*_COMPARISONS, *_UNARY)] + ["__getitem__"])
    for n in names:
        method = getattr(Tensor, n)

        def operator(self, *args, method=method):
            return method(self.value(), *args)  # a resource variable: a new read here
        operator.__name__ = operator.__qualname__ = n
        setattr(Variable, n, operator)


def _densify(value: IndexedSlices, dtype=None, name=None, as_ref=False):
    """``tf.convert_to_tensor`` of an ``IndexedSlices``: its rows summed into place."""
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: "
                         f"{value!r}")
    rows = array_ops.strided_slice(value.dense_shape, [0], [1], shrink_axis_mask=1)
    return math_ops.unsorted_segment_sum(value.values, value.indices, rows, name=name)


_install_tensor_operators()
_install_variable_operators()
IndexedSlices.__neg__ = lambda x: IndexedSlices(math_ops.negative(x.values), x.indices,
                                                x.dense_shape)
register_tensor_conversion_function(IndexedSlices, _densify, priority=10)
