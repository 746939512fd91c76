"""``tf.ragged`` ops: ``range`` (TF's ``RaggedRange`` op), ``map_flat_values``, ``stack``
along axis 0 (TF's ``RaggedConcat`` composite) and ``boolean_mask`` with a ragged result.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import indexing_ops, layout_ops, slicing_ops, sort_ops
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.logging import check_ops
from scopeflow.ops.math import arithmetic_ops, reduction_ops, scan_ops
from scopeflow.ragged.ragged_tensor import RaggedTensor, segment_ids_to_row_splits

__all__ = ["range", "map_flat_values", "stack", "boolean_mask", "stack_dynamic_partitions"]

_RANGE_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _range_kernel(starts, limits, deltas, T, Tsplits):  # noqa: N803 - TF's attr names
    arrays = [np.asarray(a) for a in (starts, limits, deltas)]
    for name, a in zip(("starts", "limits", "deltas"), arrays):
        if a.ndim > 1:
            raise errors.InvalidArgumentError(None, None, f"{name} must be a scalar or vector")
    sizes = {a.shape[0] for a in arrays if a.ndim == 1}
    if len(sizes) > 1:
        raise errors.InvalidArgumentError(None, None,
                                          "starts, limits, and deltas must have the same shape")
    n = sizes.pop() if sizes else 1
    start, limit, delta = (np.broadcast_to(a, (n,)) for a in arrays)
    if np.any(delta == 0):
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0")
    size = np.ceil((limit.astype(np.float64) - start) / delta)
    size = np.maximum(size, 0).astype(np.int64)
    splits = np.concatenate([[0], np.cumsum(size)]).astype(np.int64)
    row = np.repeat(np.arange(n), size)
    step = np.arange(splits[-1], dtype=np.int64) - splits[:-1][row]
    values = (start[row] + step * delta[row]).astype(start.dtype)
    return splits, values


def _range_shape(starts, limits, deltas, T, Tsplits):
    n = 1
    for s in (starts, limits, deltas):
        if s.ndims is None:
            n = None
            break
        if s.ndims == 1:
            n = s[0].value if n is not None else None
    return [TensorShape([None if n is None else n + 1]), TensorShape([None])]


def _range_dtype(starts, limits, deltas, T, Tsplits):
    check_dtype(starts, _RANGE_TYPES, "starts")
    return [dtypes.int64, starts]


ragged_range_op = OpDef(
    "RaggedRange", shape=_range_shape, dtype=_range_dtype, kernel=_range_kernel,
    attrs={"T": None, "Tsplits": dtypes.int64}, num_outputs=2, grad=None,
    input_names=("starts", "limits", "deltas"))


def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 - TF's name
          row_splits_dtype=dtypes.int64):
    """Row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast)."""
    if limits is None:
        starts, limits = 0, starts
    inputs = (starts, limits, deltas)
    if dtype is None:  # the widest of the three, as TF's _infer_matching_dtype
        order = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)
        kinds = [x.dtype.base_dtype if isinstance(x, Tensor) else
                 dtypes.float32 if np.asarray(x).dtype.kind == "f" else dtypes.int32
                 for x in inputs]
        dtype = max(kinds, key=lambda d: order.index(d) if d in order else -1)
    dtype = dtypes.as_dtype(dtype)
    # Python values become arrays of that type; the op converts them in its own scope
    # (RaggedRange/starts, as TF's graph names them).
    parts = [(x if x.dtype.base_dtype == dtype else arithmetic_ops.cast(x, dtype))
             if isinstance(x, Tensor) else np.asarray(x, dtype.as_numpy_dtype) for x in inputs]
    splits, values = ragged_range_op.bind(*parts, T=dtype, Tsplits=dtypes.int64,
                                          name=name or "RaggedRange")
    return RaggedTensor(values, splits, internal=True)


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensors among its arguments; the
    result takes the first one's row partition."""
    partition = []

    def flat(x):
        if isinstance(x, RaggedTensor):
            partition.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(flat(v) for v in x)
        if isinstance(x, dict):
            return {k: flat(v) for k, v in x.items()}
        return x
    args = flat(list(args))
    kwargs = flat(kwargs)
    if not partition:
        return op(*args, **kwargs)
    return partition[0].with_flat_values(op(*args, **kwargs))


def _concat_rows(rts):
    """The rows of the RaggedTensors ``rts`` (one ragged_rank) one after another."""
    if not isinstance(rts[0], RaggedTensor):
        return slicing_ops.concat(list(rts), 0)
    splits = [rts[0].row_splits]
    for rt in rts[1:]:
        splits.append(rt.row_splits[1:] + splits[-1][-1])
    values = _concat_rows([rt.values for rt in rts])
    return RaggedTensor(values, slicing_ops.concat(splits, 0), internal=True)


def stack(values, axis=0, name=None):
    """The RaggedTensors (or tensors) ``values`` stacked along a new outer dimension."""
    if axis != 0:
        raise NotImplementedError("tf.ragged.stack: only axis=0 is supported")
    with name_scope(name, "RaggedConcat", values):
        rank = max((v.ragged_rank for v in values if isinstance(v, RaggedTensor)), default=1)
        rts = [v if isinstance(v, RaggedTensor) else
               RaggedTensor.from_tensor(v, ragged_rank=rank) for v in values]
        if any(rt.ragged_rank != rank for rt in rts):
            raise NotImplementedError("tf.ragged.stack: inputs of different ragged_rank")
        nrows = layout_ops.stack([rt.nrows() for rt in rts])
        outer = slicing_ops.concat([np.zeros([1], np.int64), scan_ops.cumsum(nrows)], 0)
        return RaggedTensor(_concat_rows(rts), outer, internal=True)


def boolean_mask(data, mask, name=None):
    """The values of ``data`` where ``mask`` is true, keeping the rows: a 2-D mask gives a
    RaggedTensor (TF's ``RaggedMask``); a 1-D mask, a masked tensor."""
    with name_scope(name, "RaggedMask", [data, mask]):
        if isinstance(data, RaggedTensor) and isinstance(mask, RaggedTensor):
            if data.ragged_rank != 1 or mask.ragged_rank != 1:
                raise NotImplementedError("boolean_mask: ragged_rank > 1")
            keep = arithmetic_ops.cast(mask.values, dtypes.int64)
            counts = indexing_ops.unsorted_segment_sum(keep, mask.value_rowids(),
                                                        mask.nrows())
            values = indexing_ops.boolean_mask(data.values, mask.values)
            return RaggedTensor.from_row_lengths(values, counts, validate=False)
        if isinstance(data, RaggedTensor) or isinstance(mask, RaggedTensor):
            raise NotImplementedError("boolean_mask: a ragged and a dense argument")
        mask = convert_to_tensor(mask, dtype=dtypes.bool_, name="mask")
        if mask.shape.ndims is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask.shape.ndims == 1:
            return indexing_ops.boolean_mask(data, mask)
        if mask.shape.ndims != 2:
            raise NotImplementedError("boolean_mask: a dense mask of rank > 2")
        values = indexing_ops.boolean_mask(data, mask)
        lengths = reduction_ops.reduce_sum(arithmetic_ops.cast(mask, dtypes.int64), axis=1)
        return RaggedTensor.from_row_lengths(values, lengths, validate=False)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """Row ``i`` holds the rows of ``data`` whose partition is ``i``, in their order; the
    row splits take ``partitions``' integer type, as TF's."""
    with name_scope(name, "SegmentStack", [data, partitions, num_partitions]):
        data = data if isinstance(data, Tensor) else convert_to_tensor(data, name="data")
        partitions = partitions if isinstance(partitions, Tensor) else convert_to_tensor(
            partitions, name="partitions")
        check = check_ops.assert_less(partitions, arithmetic_ops.cast(num_partitions,
                                                                      partitions.dtype),
                                      message="partitions must be less than num_partitions")
        partitions = with_dependencies([check], partitions)
        order = sort_ops.argsort(partitions, stable=True)
        values = indexing_ops.gather(data, order)
        splits = segment_ids_to_row_splits(partitions, num_partitions,
                                           out_type=partitions.dtype.base_dtype)
        if isinstance(num_partitions, int):
            splits.set_shape([num_partitions + 1])
        return RaggedTensor(values, splits, internal=True)
