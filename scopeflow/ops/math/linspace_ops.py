"""Evenly spaced values: the LinSpace op, and ``tf.linspace`` / ``tf.lin_space``.

In TensorFlow 2.21, TF1's ``tf.linspace`` and ``tf.lin_space`` are both ``linspace_nd``: a
composite of ``BroadcastTo``, ``Range``, ``SelectV2``, ``ConcatV2``, ``Slice``... under the
name scope ``linspace`` (so it is differentiable, accepts N-D ``start``/``stop`` with
``axis``, and integer ``start``/``stop`` give float64); ``linspace`` builds the same ops,
under the same names, so the values agree bit for bit. The ``LinSpace`` op (TF 1.15's
``tf.linspace``, ``gen_math_ops.lin_space``) is kept for graphs that hold it.
"""

from __future__ import annotations

import builtins

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS, INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.indexing_ops import slice_helper
from scopeflow.ops.array.shape_ops import (
    broadcast_dynamic_shape,
    expand_dims,
    reshape,
    shape,
)
from scopeflow.ops.array.slicing_ops import concat, slice
from scopeflow.ops.math.arithmetic_ops import cast, cast_op, equal, range
from scopeflow.ops.math.reduction_ops import broadcast_to, maximum, where_v2, zeros_like

__all__ = ["linspace", "lin_space"]


# ── LinSpace (not differentiable) ────────────────────────────────────────────────────
def _lin_space_shape(start, stop, num):
    for t, what in ((start, "start"), (stop, "stop"), (num, "num")):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} for '{what}'")
    n = constant_value(num)
    if n is None:
        return TensorShape([None])
    if n.item() <= 0:
        raise ValueError(f"Requires num > 0: {n.item()}")
    return TensorShape([n.item()])


def _lin_space_kernel(start, stop, num):
    """TF's CPU kernel: ``start + step * i`` in the dtype, ``step = (stop - start) / (num -
    1)``, and the last value ``stop`` itself."""
    start, stop = np.asarray(start), np.asarray(stop)
    n = np.asarray(num).item()
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, f"Requires num > 0: {n}")
    dt = start.dtype
    out = np.empty(n, dt)
    if n == 1:
        out[0] = start
        return out
    step = ((stop - start) / dt.type(n - 1)).astype(dt)
    out[:-1] = start + np.arange(n - 1).astype(dt) * step
    out[-1] = stop
    return out


def _lin_space_dtype(start, stop, num, **attrs):
    if stop is not start:
        raise TypeError(f"Input 'stop' of 'LinSpace' Op has type {stop.name} that does not "
                        f"match type {start.name} of argument 'start'.")
    check_dtype(num, INDEX, "num")
    return check_dtype(start, FLOATS, "start")


lin_space_op = OpDef("LinSpace", shape=from_tensors(_lin_space_shape), dtype=_lin_space_dtype,
                     kernel=_lin_space_kernel, grad=None, input_names=("start", "stop", "num"))


def _lin_space_static_value(t):
    values = [constant_value(x) for x in t.op.inputs]
    if any(v is None for v in values):
        return None
    return _lin_space_kernel(*values)


lin_space_op.def_static_value(_lin_space_static_value)


# ── linspace (composite: TF 2.21's linspace_nd) ──────────────────────────────────────
def _static_result_shape(start, stop, num_int, axis):
    """The result's static shape: TF infers it from the final Slice's size."""
    s0, s1 = start.shape.as_tuple(), stop.shape.as_tuple()
    if s0 is None or s1 is None:
        return TensorShape(None)
    n = len(s0) if len(s0) > len(s1) else len(s1)
    a, b = (1,) * (n - len(s0)) + s0, (1,) * (n - len(s1)) + s1
    dims = [y if x == 1 else x if y == 1 or y is None else y if x is None else x
            for x, y in zip(a, b)]
    if not -(n + 1) <= axis <= n:
        return TensorShape(None)
    axis = axis if axis >= 0 else n + 1 + axis
    num = constant_value(num_int)
    return TensorShape(dims[:axis] + [None if num is None else int(num)] + dims[axis:])


def linspace(start, stop, num, name=None, axis=0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive, along ``axis``
    (``start`` and ``stop`` broadcast together).

    >>> linspace(0.0, 1.0, 5).shape.as_list()
    [5]
    """
    with name_scope(name, "linspace", [start, stop]):
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, name="stop", dtype=start.dtype.base_dtype)
        num_int = convert_to_tensor(num, name="num", preferred_dtype=dtypes.int32)
        if not num_int.dtype.base_dtype.is_integer:
            raise TypeError(f"num must be an integer tensor, got {num_int.dtype.name}")
        num_int = cast_op.bind(num_int, SrcT=num_int.dtype.base_dtype, DstT=dtypes.int32,
                               name="Cast")
        cast(num_int, start.dtype.base_dtype)  # unused, as in TF

        broadcast_shape = broadcast_dynamic_shape(shape(start), shape(stop))
        b_start = broadcast_to(start, broadcast_shape)
        b_stop = broadcast_to(stop, broadcast_shape)
        expanded_start = expand_dims(b_start, axis=axis)
        expanded_stop = expand_dims(b_stop, axis=axis)

        shape_t = shape(expanded_start)
        ndims = slice_helper(shape(shape_t), 0)
        axis_t = where_v2(axis >= 0, axis, ndims + axis)

        # Python's operators on tensors, as TF writes them (op names sub, mul, truediv...)
        num_fill = maximum(num_int - 2, 0)
        n_steps = maximum(num_int - 1, 1)
        delta = (expanded_stop - expanded_start) / cast(n_steps, expanded_stop.dtype)
        expanded_start = cast(expanded_start, delta.dtype)
        expanded_stop = cast(expanded_stop, delta.dtype)
        range_end = where_v2(num_int >= 0, n_steps, -1)
        desired_range = cast(range(1, range_end, dtype=dtypes.int64), delta.dtype)
        mask = equal(axis_t, range(ndims))
        desired_range_shape = where_v2(mask, num_fill, 1)
        desired_range = reshape(desired_range, desired_range_shape)
        res = expanded_start + delta * desired_range

        concatenated = concat((expanded_start, res, expanded_stop), axis=axis_t)
        begin = zeros_like(shape_t)
        size = concat((slice_helper(shape_t, builtins.slice(0, axis_t)),
                       reshape(num_int, [1]),
                       slice_helper(shape_t, builtins.slice(axis_t + 1, None))), axis=0)
        out = slice(concatenated, begin, size)
        out.set_shape(out.shape.merge_with(_static_result_shape(start, stop, num_int, axis)))
        return out


lin_space = linspace
