"""TF1's partitioners and ``create_partitioned_variables`` (TF's ``partitioned_variables``).

A partitioner is ``partitioner(shape=TensorShape, dtype=DType) -> [parts per axis]``, given
to ``tf.get_variable(..., partitioner=)`` or ``tf.variable_scope(..., partitioner=)``; the
parts themselves are :class:`scopeflow.state.partitioning.PartitionedVariable`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from scopeflow.framework import dtypes
from scopeflow.framework.graph import name_scope
from scopeflow.framework.tensor_shape import TensorShape, dimension_value
from scopeflow.state.variable_scope import _store, _VariableRequest, variable_scope

if TYPE_CHECKING:
    from scopeflow.framework.type_aliases import Partitioner

__all__ = ["fixed_size_partitioner", "min_max_variable_partitioner",
           "variable_axis_size_partitioner", "create_partitioned_variables"]


# ── partitioners ─────────────────────────────────────────────────────────────────────
def _element_size(dtype, bytes_per_string_element) -> int:
    dtype = dtypes.as_dtype(dtype)
    if dtype.base_dtype == dtypes.string:
        return bytes_per_string_element
    return dtype.size


def fixed_size_partitioner(num_shards: int, axis: int = 0) -> Partitioner:
    """A partitioner into ``num_shards`` parts along ``axis`` (fewer if the axis is shorter).

    >>> fixed_size_partitioner(3)(shape=TensorShape([10, 4]), dtype=dtypes.float32)
    [3, 1]
    """
    def _partitioner(shape, **unused_args):
        partitions_list = [1] * len(shape)
        partitions_list[axis] = min(num_shards, dimension_value(shape.dims[axis]))
        return partitions_list
    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16) -> Partitioner:
    """A partitioner giving each part at least ``min_slice_size`` bytes, at most
    ``max_partitions`` parts.

    >>> p = min_max_variable_partitioner(max_partitions=4, min_slice_size=16)
    >>> p(shape=TensorShape([8, 2]), dtype=dtypes.float32)
    [4, 1]
    """
    def _partitioner(shape, dtype):
        if axis >= len(shape):
            raise ValueError(f"Cannot partition variable along axis {axis} when shape is "
                             f"only {shape}")
        total_size_bytes = shape.num_elements() * _element_size(dtype,
                                                                bytes_per_string_element)
        partitions = total_size_bytes / min_slice_size
        partitions_list = [1] * len(shape)
        partitions_list[axis] = max(1, min(dimension_value(shape.dims[axis]), max_partitions,
                                           int(math.ceil(partitions))))
        return partitions_list
    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None) -> Partitioner:
    """A partitioner keeping each part below ``max_shard_bytes`` (if one axis allows it).

    >>> p = variable_axis_size_partitioner(64)
    >>> p(shape=TensorShape([10, 4]), dtype=dtypes.float32)
    [3, 1]
    """
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError(
            "Both max_shard_bytes and bytes_per_string_element must be positive. "
            f"Currently, max_shard_bytes is {max_shard_bytes} and"
            f"bytes_per_string_element is {bytes_per_string_element}")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        element_size = _element_size(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        axis_len = dimension_value(shape.dims[axis])
        bytes_per_slice = 1.0 * (shape.num_elements() / axis_len) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = int(math.ceil(1.0 * axis_len / slices_per_shard))
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions
    return _partitioner


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """Deprecated TF1 API: the parts of a variable split as ``slicing`` says, as a list.

    Use ``get_variable(..., partitioner=...)`` instead. The parts are
    ``<name or PartitionedVariable>/part_<i>``.
    """
    if len(shape) != len(slicing):
        raise ValueError("The 'shape' and 'slicing' of a partitioned Variable must have the "
                         f"length: shape: {shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    with variable_scope(name, "PartitionedVariable", reuse=reuse) as scope:
        if scope.custom_getter is not None:
            raise ValueError(
                "Private access to _get_partitioned_variable is not allowed when a custom "
                f"getter is set.  Current custom getter: {scope.custom_getter}.  It is likely "
                "that you're using create_partitioned_variables.  If so, consider instead "
                "using get_variable with a non-empty partitioner parameter instead.")
        request = _VariableRequest(
            scope.name, shape=shape, dtype=dtype,
            initializer=scope.initializer if initializer is None else initializer,
            regularizer=scope.regularizer, reuse=scope.reuse, trainable=trainable,
            collections=collections, partitioner=lambda **unused_kwargs: slicing,
            constraint=scope.constraint)
        with name_scope(None):
            return list(_store()._get_partitioned_variable(request))
