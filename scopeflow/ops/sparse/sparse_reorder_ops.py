"""``SparseReorder`` (``tf.sparse.reorder``'s op): a SparseTensor's entries in row-major
order of their indices. ``SparseFeature`` parsing (``parsing_ops``) builds it, as TF's
``sparse_merge`` does, to sort the entries the index features list in file order."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.opdef import OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array import indexing_ops, layout_ops, shape_ops
from scopeflow.ops.math import arithmetic_ops

__all__ = ["sparse_reorder"]


# ── SparseReorder ────────────────────────────────────────────────────────────────────
def _sparse_reorder_shape(indices, values, shape):
    if indices.ndims not in (None, 2) or values.ndims not in (None, 1) or \
            shape.ndims not in (None, 1):
        raise ValueError(f"SparseReorder: indices must be a matrix, values and shape vectors; "
                         f"got {indices}, {values} and {shape}")
    n = indices[0] if indices.ndims == 2 else None
    n = values[0] if n is None and values.ndims == 1 else n
    return [TensorShape([n, indices[1] if indices.ndims == 2 else None]), TensorShape([n])]


def _sparse_reorder_dtype(indices, values, shape):
    check_dtype(indices, (dtypes.int64,), "input_indices")
    check_dtype(shape, (dtypes.int64,), "input_shape")
    return [dtypes.int64, values]


def _sparse_reorder_kernel(indices, values, shape):
    indices, shape = np.asarray(indices), np.asarray(shape)
    if indices.shape[0] != np.shape(values)[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Number of elements in indices ({indices.shape[0]}) and values "
            f"({np.shape(values)[0]}) do not match")
    if indices.shape[1] != shape.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Input shape rank ({shape.shape[0]}) and indices rank "
            f"({indices.shape[1]}) do not match")
    # NOTE: stable, so equal indices keep their order (TF's std::sort leaves it unspecified)
    order = np.lexsort(indices.T[::-1]) if indices.size else np.arange(len(indices))
    return indices[order], np.asarray(values)[order]


sparse_reorder_op = OpDef("SparseReorder", shape=_sparse_reorder_shape, dtype=_sparse_reorder_dtype,
                          kernel=_sparse_reorder_kernel, num_outputs=2,
                          input_names=("input_indices", "input_values", "input_shape"))


@sparse_reorder_op.def_grad
def _sparse_reorder_grad(op, _unused_indices_grad, values_grad):
    """TF's _SparseReorderGrad: the values' gradient, put back in the input's order."""
    indices, _, shape = op.inputs
    entries = arithmetic_ops.range(shape_ops.shape(indices, out_type=dtypes.int64)[0])
    ordered = sparse_reorder_op.bind(indices, entries, shape)[1]
    return [None, indexing_ops.gather(values_grad, layout_ops.invert_permutation(ordered)),
            None]


def sparse_reorder(sp_input, name=None) -> SparseTensor:
    """``sp_input`` with its entries sorted by index, row-major (its dense shape kept).

    >>> import scopeflow as tf
    >>> st = sparse_reorder(tf.SparseTensor([[1, 0], [0, 2]], [5, 6], [2, 3]))
    >>> tf.Session().run(st.values).tolist()
    [6, 5]
    """
    indices, values = sparse_reorder_op.bind(sp_input.indices, sp_input.values,
                                             sp_input.dense_shape, name=name or "SparseReorder")
    out = SparseTensor(indices, values, sp_input.dense_shape)
    out._set_static_shape(sp_input.shape)  # TF propagates the input's static shape
    return out
