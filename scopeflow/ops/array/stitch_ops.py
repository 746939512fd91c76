"""The data-flow ops that partition and interleave rows: ``DynamicPartition``,
``DynamicStitch`` and ``ParallelDynamicStitch`` (``tf.dynamic_partition``,
``tf.dynamic_stitch``; sharded embedding lookups and TF's ``reduced_shape`` build them).

They sit above the gathers and segment sums their gradients use. The reductions' gradients
build ``DynamicStitch`` too (TF's ``reduced_shape``); they are below those gathers, so they
look the op up by its type.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops

__all__ = ["dynamic_partition", "dynamic_stitch", "parallel_dynamic_stitch"]


# ── DynamicPartition ─────────────────────────────────────────────────────────────────
def _dynamic_partition_shape(data, partitions, *, num_partitions):
    if data.ndims is None or partitions.ndims is None:
        return [TensorShape(None)] * num_partitions
    p_dims, d_dims = partitions.as_tuple(), data.as_tuple()
    for a, b in zip(p_dims, d_dims):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {b} and {a}")
    if len(p_dims) > len(d_dims):
        raise ValueError(f"Shape must be at least rank {len(p_dims)} but is rank "
                         f"{len(d_dims)}")
    return [TensorShape([None] + list(d_dims[len(p_dims):]))] * num_partitions


def _dynamic_partition_dtype(data, partitions, *, num_partitions):
    check_dtype(partitions, (dtypes.int32,), "partitions")
    return [data] * num_partitions


def _dynamic_partition_kernel(data, partitions, *, num_partitions):
    if data.shape[:partitions.ndim] != partitions.shape:
        raise InvalidArgumentError(None, None, f"data.shape must start with partitions.shape, "
                                   f"got data.shape = {list(data.shape)}, partitions.shape = "
                                   f"{list(partitions.shape)}")
    bad = (partitions < 0) | (partitions >= num_partitions)
    if bad.any():
        pos = tuple(int(v) for v in np.argwhere(bad)[0])
        raise InvalidArgumentError(None, None, f"partitions{list(pos)} = {partitions[pos]} is "
                                   f"not in [0, {num_partitions})")
    outs = tuple(data[partitions == i] for i in range(num_partitions))
    return outs[0] if num_partitions == 1 else outs  # one output: the array itself


def _dynamic_partition_num_outputs(attrs, n_inputs):
    return attrs["num_partitions"]


dynamic_partition_op = OpDef(
    "DynamicPartition", shape=_dynamic_partition_shape, dtype=_dynamic_partition_dtype,
    kernel=_dynamic_partition_kernel, attrs={"num_partitions": 1},
    num_outputs=_dynamic_partition_num_outputs, input_names=("data", "partitions"))


@dynamic_partition_op.def_grad
def _dynamic_partition_grad(op, *dys):
    """TF's ``_DynamicPartitionGrads``: stitch the pieces' gradients back in place."""
    data, partitions = op.inputs
    n = op.get_attr("num_partitions")
    prefix_shape = array_ops.shape(partitions)
    original = array_ops.reshape(math_ops.range(math_ops.reduce_prod(prefix_shape)),
                                 prefix_shape)
    pieces = dynamic_partition(original, partitions, n)
    stitched = dynamic_stitch(pieces, [convert_to_tensor(d) if isinstance(d, IndexedSlices)
                                       else d for d in dys])
    return [array_ops.reshape(stitched, array_ops.shape(data)), None]


def dynamic_partition(data, partitions, num_partitions, name=None) -> list:
    """Splits ``data`` into ``num_partitions`` tensors by the index in ``partitions``.

    >>> [t.op.type for t in dynamic_partition([1, 2, 3], [0, 1, 0], 2)]
    ['DynamicPartition', 'DynamicPartition']
    """
    out = dynamic_partition_op.bind(data, partitions, num_partitions=num_partitions, name=name)
    return list(out) if isinstance(out, tuple) else [out]


# ── ParallelDynamicStitch ────────────────────────────────────────────────────────────
def _stitch_shape(*args, N):
    indices, data = args[:N], args[N:]
    element = None
    for idx, d in zip(indices, data):
        if idx.ndims is None or d.ndims is None:
            continue
        tail = TensorShape(d.as_tuple()[idx.ndims:])
        element = tail if element is None else element.merge_with(tail)
    if element is None:
        return TensorShape(None)
    return TensorShape([None]).concatenate(element)


def _stitch_shape_from_tensors(*args, N):
    shape = _stitch_shape(*[t.shape for t in args], N=N)
    values = [constant_value(t) for t in args[:N]]
    if shape.ndims is not None and all(v is not None for v in values):
        rows = max([int(v.max()) + 1 for v in values if v.size] or [0])
        return TensorShape([rows]).concatenate(shape[1:])
    return shape


def _stitch_dtype(*dts, N):
    for d in dts[:N]:
        check_dtype(d, (dtypes.int32,), "indices")
    first = dts[N]
    for d in dts[N + 1:]:
        if d is not first:
            raise TypeError(f"ParallelDynamicStitch: data dtypes differ: {first.name} and "
                            f"{d.name}")
    return first


def _stitch_kernel(*args, N):
    # In order: where indices repeat, the later data wins (DynamicStitch's rule; in
    # ParallelDynamicStitch either may, and TF's CPU kernel also takes the later).
    indices, data = args[:N], args[N:]
    rows = max([int(i.max()) + 1 for i in indices if i.size] or [0])
    element = data[0].shape[indices[0].ndim:]
    out = np.zeros((rows,) + element, dtype=data[0].dtype)
    for idx, d in zip(indices, data):
        if d.shape[:idx.ndim] != idx.shape:
            raise InvalidArgumentError(None, None, f"data.shape must start with indices.shape, "
                                       f"got {list(d.shape)} and {list(idx.shape)}")
        out[idx.reshape(-1)] = d.reshape((-1,) + element)
    return out


def _stitch_op(op_type):
    return OpDef(op_type, shape=from_tensors(_stitch_shape_from_tensors), dtype=_stitch_dtype,
                 kernel=_stitch_kernel, attrs={"N": 1})


dynamic_stitch_op = _stitch_op("DynamicStitch")
parallel_dynamic_stitch_op = _stitch_op("ParallelDynamicStitch")


def _stitch_grad(op, dy):
    """TF's ``_DynamicStitchGrads``: each data input gathers its rows of the gradient."""
    n = op.get_attr("N")
    if isinstance(dy, IndexedSlices):
        rows = array_ops.shape(op.outputs[0])[0]
        dy = math_ops.unsorted_segment_sum(dy.values, dy.indices, rows)
    return [None] * n + [array_ops.gather(dy, op.inputs[i]) for i in range(n)]


dynamic_stitch_op.def_grad(_stitch_grad)
parallel_dynamic_stitch_op.def_grad(_stitch_grad)


def _stitch(op_def, indices, data, name):
    if len(indices) != len(data):
        raise ValueError(f"{op_def.type}: {len(indices)} index tensors for {len(data)} data "
                         f"tensors")
    return op_def.bind(*indices, *data, N=len(indices), name=name)


def dynamic_stitch(indices, data, name=None) -> Tensor:
    """Interleaves ``data`` into one tensor: ``out[indices[m][i]] = data[m][i]``; where
    indices repeat, the later one wins.

    >>> dynamic_stitch([[0, 2], [1]], [[10, 30], [20]]).op.type
    'DynamicStitch'
    """
    return _stitch(dynamic_stitch_op, indices, data, name)


def parallel_dynamic_stitch(indices, data, name=None) -> Tensor:
    """``dynamic_stitch`` as one ``ParallelDynamicStitch`` (what sharded embedding lookups
    build; indices are expected not to repeat)."""
    return _stitch(parallel_dynamic_stitch_op, indices, data, name)
