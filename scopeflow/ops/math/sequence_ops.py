"""Composites over a tensor's elements in order, built as TF 2.21 builds them:
``is_non_decreasing``, ``is_strictly_increasing`` (check_ops: the flattened tensor's
neighbours compared under a ``cond`` that answers ``[]`` below two elements) and ``repeat``
(array_ops' ``repeat_with_axis``: a ``Tile`` of the largest repeat count, masked by a
``sequence_mask`` of the counts, or a plain ``Tile`` for one scalar count).
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import NUMERIC
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops.array.grid_ops import sequence_mask
from scopeflow.ops.array.indexing_ops import boolean_mask, strided_slice
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.array.shape_ops import expand_dims, rank, reshape, shape, size
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.math.arithmetic_ops import cast_op, greater, greater_equal, less
from scopeflow.ops.math.arithmetic_ops import range as tf_range
from scopeflow.ops.math.count_ops import folded_value
from scopeflow.ops.math.reduction_ops import (
    broadcast_to,
    maximum,
    ones,
    reduce_all,
    reduce_max,
    reduce_sum,
    tile,
)

__all__ = ["is_non_decreasing", "is_strictly_increasing", "repeat"]


# ── is_non_decreasing, is_strictly_increasing ────────────────────────────────────────
def _compare_neighbours(x, compare):
    """``compare(x[1:], x[:-1])`` of the flattened ``x``, ``[]`` when it has < 2 elements."""
    x = reshape(x, [-1])
    if x.dtype.base_dtype not in NUMERIC:
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    is_shorter_than_two = less(size(x), 2)
    s_len = shape(x) - 1
    return cond(is_shorter_than_two, lambda: convert_to_tensor([], dtype=dtypes.bool_),
                lambda: compare(strided_slice(x, [1], [1] + s_len),
                                strided_slice(x, [0], s_len)))


def is_non_decreasing(x, name=None) -> Tensor:
    """True when each element of the flattened ``x`` is >= the one before (so for < 2
    elements).

    >>> tf.Session().run(tf.is_non_decreasing([1, 2, 2]))
    np.True_
    """
    with name_scope(name, "is_non_decreasing", [x]):
        return reduce_all(_compare_neighbours(x, greater_equal))


def is_strictly_increasing(x, name=None) -> Tensor:
    """True when each element of the flattened ``x`` is > the one before (so for < 2
    elements)."""
    with name_scope(name, "is_strictly_increasing", [x]):
        return reduce_all(_compare_neighbours(x, greater))


# ── repeat ───────────────────────────────────────────────────────────────────────────
def _positive_axis(axis, ndims):
    if not isinstance(axis, int):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    if ndims is not None:
        if -ndims <= axis < ndims:
            return axis % ndims
        raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
    if axis < 0:
        raise ValueError(f"axis={axis} may only be negative if rank(data) is statically "
                         "known.")
    return axis


def _tile_one_dimension(data, axis, multiple):
    if data.shape.ndims is not None:
        multiples = [1] * data.shape.ndims
        multiples[axis] = multiple
    else:
        ones_value = ones(rank(data), dtypes.int32)
        multiples = concat([ones_value[:axis], [multiple], ones_value[axis + 1:]], axis=0)
    return tile(data, multiples)


def _with_nonzero_rank(data):
    if data.shape.ndims is not None:
        return stack([data]) if data.shape.ndims == 0 else data
    data_shape, data_ndims = shape(data), rank(data)
    return reshape(data, concat([[1], data_shape], axis=0)[-data_ndims:])


def _int32_repeats(repeats):
    """``repeat``'s counts as an int32 tensor of rank 0 or 1, checked as TF checks them."""
    repeats = convert_to_tensor(repeats, name="repeats", preferred_dtype=dtypes.int32)
    if not repeats.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. "
                        f"Received `tensor` = {repeats} of dtype: {repeats.dtype}")
    # gen_math_ops.cast: a Cast op even from int32 to int32, as TF's graph has one
    repeats = cast_op.bind(repeats, SrcT=repeats.dtype.base_dtype, DstT=dtypes.int32,
                           name="Cast")
    if repeats.shape.ndims is not None and repeats.shape.ndims > 1:
        raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
    return repeats


def _repeat_with_axis(data, repeats, axis, name=None):
    if not isinstance(axis, int):
        raise TypeError("Argument `axis` must be an int. "
                        f"Received `axis` = {axis} of type {type(axis).__name__}")
    with name_scope(name, "Repeat", [data, repeats]):
        data = convert_to_tensor(data, name="data")
        repeats = _int32_repeats(repeats)
        data = _with_nonzero_rank(data)
        data_shape = shape(data, out_type=repeats.dtype)
        axis = _positive_axis(axis, data.shape.ndims)
        if repeats.shape.num_elements() == 1:
            repeats = reshape(repeats, [])
            tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, repeats)
            result_shape = concat([data_shape[:axis], [repeats * data_shape[axis]],
                                   data_shape[axis + 1:]], axis=0)
            return reshape(tiled, result_shape)
        if repeats.shape.ndims == 1:
            data.shape.dims[axis].assert_is_compatible_with(repeats.shape[0])
        repeats = broadcast_to(repeats, [data_shape[axis]])
        repeats_original = repeats
        if repeats.shape.ndims != axis + 1:
            repeats = broadcast_to(repeats, concat(
                [data_shape[:axis + 1 - rank(repeats)], shape(repeats)], axis=0))
            repeats.set_shape([None] * (axis + 1))
        max_repeat = reduce_max(repeats, None if repeats.shape.ndims is not None
                                else tf_range(0, rank(repeats), 1))   # all dimensions
        max_repeat = maximum(constant(0, name="zero", dtype=max_repeat.dtype), max_repeat)
        mask = sequence_mask(repeats, max_repeat)
        tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, max_repeat)
        result = boolean_mask(tiled, mask)
        if axis != 0:
            repeated_dim_size = reduce_sum(repeats_original,
                                           tf_range(0, rank(repeats_original), 1))
            result = reshape(result, concat(
                [data_shape[:axis], [repeated_dim_size], data_shape[axis + 1:]], axis=0))
            # TF's shape inference evaluates the constant repeat counts' sum
            size_value = folded_value(repeated_dim_size)
            if size_value is not None and data.shape.ndims is not None:
                result.set_shape(data.shape[:axis].concatenate([int(size_value)])
                                 .concatenate(data.shape[axis + 1:]))
        if data.shape.ndims is not None:
            new_axis_size = 0 if repeats.shape[0] == 0 else None
            result.set_shape(data.shape[:axis].concatenate([new_axis_size])
                             .concatenate(data.shape[axis + 1:]))
        return result


def repeat(input, repeats, axis=None, name=None) -> Tensor:   # noqa: A002 - TF's name
    """Repeats each element of ``input`` along ``axis`` (the flattened input when None)
    ``repeats`` times (one count, or one per element), as ``np.repeat``.

    >>> tf.Session().run(tf.repeat([[1, 2], [3, 4]], [1, 2], axis=0))
    array([[1, 2],
           [3, 4],
           [3, 4]], dtype=int32)
    """
    if axis is None:
        input = reshape(input, [-1])
        axis = 0
    return _repeat_with_axis(input, repeats, axis, name)
