"""Helpers the sequence feature columns share (TF's ``feature_column/utils.py``)."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import name_scope
from scopeflow.ops.array import shape_ops, slicing_ops
from scopeflow.ops.math import arithmetic_ops, elementwise_ops, reduction_ops
from scopeflow.ops.math.segment_ops import segment_max

__all__ = ["sequence_length_from_sparse_tensor"]


def sequence_length_from_sparse_tensor(sp_tensor, num_elements=1):
    """Each example's sequence length, [batch] int64: one more than its largest column index
    (the number of steps its values reach), counted in groups of ``num_elements`` values
    (a step of a shape-(2,) numeric column holds 2), and 0 for examples with no values.

    TF takes the segment max over the rows that have values and pads the missing last rows
    with zeros; rows are assumed in order (a SparseTensor's indices are), as in TF.
    """
    with name_scope(None, "sequence_length") as scope:
        row_ids = sp_tensor.indices[:, 0]
        column_ids = sp_tensor.indices[:, 1]
        column_ids += reduction_ops.ones_like(column_ids)
        seq_length = segment_max(column_ids, segment_ids=row_ids)
        seq_length = arithmetic_ops.cast(
            elementwise_ops.ceil(arithmetic_ops.truediv(seq_length, num_elements)),
            dtypes.int64)
        # Rows after the last one holding a value get length 0.
        batch = arithmetic_ops.cast(sp_tensor.dense_shape, dtypes.int32,
                                    name="Shape/Cast")[:1]
        n_pad = batch - shape_ops.shape(seq_length)[:1]
        padding = reduction_ops.zeros(n_pad, dtype=seq_length.dtype)
        return slicing_ops.concat([seq_length, padding], axis=0, name=scope)
