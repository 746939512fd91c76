"""The run-time side of composite elements of ``tf.data``: SparseTensorValues and
RaggedTensorValues carried as one value each, batched, unbatched and sliced as TF's
``SparseTensorSpec``/``RaggedTensorSpec`` batch and unbatch them (and plain arrays as
tensors); ``None`` components (TF's ``NoneTensorSpec``), which stay ``None``; and
dataset-valued components, whose batches are object arrays of ``DatasetValue``s (TF's
``DatasetSpec`` with a ``dataset_shape``). Each function takes a leaf's ``Spec`` or value
and works on whole arrays."""

from __future__ import annotations

import numpy as np

from scopeflow.data import structure as st
from scopeflow.data.dataset_values import DatasetSpec
from scopeflow.framework import errors
from scopeflow.framework.sparse_tensor import SparseTensorValue
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ragged.ragged_tensor import RaggedTensorValue

__all__ = ["is_composite", "relaxed", "batched_spec", "unbatched_spec", "nrows", "row", "stack"]


def is_composite(spec) -> bool:
    """Whether ``spec``'s values batch and unbatch other than as one array."""
    return isinstance(spec, (st.SparseSpec, st.RaggedSpec, st.NoneSpec, DatasetSpec))


def relaxed(a, b):
    """The spec both ``a`` and ``b`` fit (of ``a``'s kind; dimensions that differ unknown),
    as TF's ``most_specific_common_supertype`` of two specs of one kind."""
    if isinstance(a, st.NoneSpec):
        return a
    shape = st.unify_shapes(a.shape, b.shape)
    if isinstance(a, DatasetSpec):
        return DatasetSpec(a.element, shape)
    if isinstance(a, st.SparseSpec):
        return st.SparseSpec(a.dtype, shape)
    if isinstance(a, st.RaggedSpec):
        return st.RaggedSpec(a.dtype, shape, a.ragged_rank)
    return st.Spec(a.dtype, shape)


def batched_spec(spec, lead):
    """The spec of a batch of ``spec``s whose leading dimension is ``lead`` (or unknown):
    a ragged leaf gains a ragged dimension, as TF's ``RaggedTensorSpec._batch``."""
    if isinstance(spec, st.NoneSpec):
        return spec
    shape = TensorShape([lead]).concatenate(spec.shape)
    if isinstance(spec, DatasetSpec):
        return DatasetSpec(spec.element, shape)
    if isinstance(spec, st.SparseSpec):
        return st.SparseSpec(spec.dtype, shape)
    if isinstance(spec, st.RaggedSpec):
        return st.RaggedSpec(spec.dtype, shape, spec.ragged_rank + 1)
    return st.Spec(spec.dtype, shape)


def unbatched_spec(spec):
    """The spec of one row of ``spec`` (``ValueError`` for a scalar, as TF's)."""
    if isinstance(spec, st.NoneSpec):
        return spec
    if isinstance(spec, DatasetSpec):
        if spec.shape.ndims == 0:
            raise ValueError("Slicing dataset elements is not supported for rank 0.")
        return DatasetSpec(spec.element, spec.shape[1:])
    if spec.shape.ndims == 0:
        raise ValueError("Unbatching a tensor is only supported for rank >= 1")
    shape = spec.shape[1:] if spec.shape.ndims else TensorShape(None)
    if isinstance(spec, st.SparseSpec):
        return st.SparseSpec(spec.dtype, shape)
    if isinstance(spec, st.RaggedSpec):
        if spec.ragged_rank == 0:
            return st.Spec(spec.dtype, shape)
        return st.RaggedSpec(spec.dtype, shape, spec.ragged_rank - 1)
    return st.Spec(spec.dtype, shape)


def nrows(value):
    """The length of ``value``'s first dimension (``None`` for a ``None`` component)."""
    if value is None:
        return None
    if isinstance(value, SparseTensorValue):
        return int(value.dense_shape[0])
    if isinstance(value, RaggedTensorValue):
        return len(value.row_splits) - 1
    return len(value)


def _rows(value, start, stop):
    """Rows ``start:stop`` of a ragged value or an array."""
    if isinstance(value, RaggedTensorValue):
        s = value.row_splits
        return RaggedTensorValue(_rows(value.values, s[start], s[stop]),
                                 s[start:stop + 1] - s[start])
    return value[start:stop]


def row(value, i):
    """Row ``i`` of ``value``: a sparse value's row keeps the other dense dimensions (TF's
    unbatch of a SparseTensor); a ragged rank-1 value's row is an array."""
    if value is None:
        return None
    if isinstance(value, SparseTensorValue):
        idx = np.asarray(value.indices)
        keep = idx[:, 0] == i
        return SparseTensorValue(idx[keep, 1:], np.asarray(value.values)[keep],
                                 np.asarray(value.dense_shape)[1:])
    if isinstance(value, RaggedTensorValue):
        s = value.row_splits
        return _rows(value.values, s[i], s[i + 1])
    return value[i]


def stack(column, spec, k):
    """A batch of ``column`` (the values of leaf ``k`` of ``spec``) as TF batches them."""
    if isinstance(spec, st.SparseSpec):
        return _stack_sparse(column, k)
    if isinstance(spec, st.RaggedSpec):
        return _stack_ragged(column)
    if isinstance(spec, DatasetSpec):
        return _stack_objects(column)
    return None


def _stack_objects(column):
    """Dataset values (or object arrays of them, all one shape) as one object array."""
    column = [v.item() if isinstance(v, np.ndarray) and v.shape == () else v
              for v in column]
    first = np.shape(column[0]) if isinstance(column[0], np.ndarray) else ()
    out = np.empty((len(column),) + first, dtype=object)
    for i, v in enumerate(column):
        out[i] = v
    return out


def _stack_sparse(column, k):
    ranks = {len(v.dense_shape) for v in column}
    if len(ranks) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot batch sparse tensors of different ranks in component {k}.")
    counts = [len(v.values) for v in column]
    batch_ids = np.repeat(np.arange(len(column), dtype=np.int64), counts)
    rank = ranks.pop()
    inner = np.concatenate([np.asarray(v.indices, np.int64).reshape(-1, rank)
                            for v in column])
    shape = np.max(np.stack([np.asarray(v.dense_shape, np.int64) for v in column]), axis=0)
    return SparseTensorValue(np.concatenate([batch_ids[:, None], inner], axis=1),
                             np.concatenate([np.asarray(v.values) for v in column]),
                             np.concatenate([[len(column)], shape]).astype(np.int64))


def _concat_rows(values):
    """Ragged values (or arrays) of the same ragged rank, their rows one after another."""
    if isinstance(values[0], RaggedTensorValue):
        ends = np.cumsum([0] + [nrows(v.values) for v in values])
        splits = np.concatenate([[0]] + [v.row_splits[1:] - v.row_splits[0] + ends[j]
                                         for j, v in enumerate(values)])
        return RaggedTensorValue(_concat_rows([v.values for v in values]),
                                 splits.astype(np.int64))
    return np.concatenate([np.asarray(v) for v in values])


def _stack_ragged(column):
    splits = np.concatenate([[0], np.cumsum([nrows(v) for v in column])]).astype(np.int64)
    return RaggedTensorValue(_concat_rows(list(column)), splits)
