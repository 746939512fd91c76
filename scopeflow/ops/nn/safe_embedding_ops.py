"""``tf.nn.safe_embedding_lookup_sparse`` (TF1's signature): ``embedding_lookup_sparse``
made safe for invalid ids (< 0, dropped), non-positive weights (dropped unless
``combiner="sum"``), empty rows (``default_id``'s embedding, or zeros) and ids of rank
above 2 (flattened to rows, the result reshaped back).

A composite built as TF builds it (SparseReshape, sparse_retain's Where/Gather,
SparseFillEmptyRows, the lookup, Tile/Select for the empty rows, Reshape back), so op
names, static shapes and gradients are TF's. Lives in the nn family but sits above
``ops.sparse`` (whose ``embedding_lookup_sparse`` it calls).
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import dimension_value, unknown_shape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.sparse.sparse_layout_ops import (
    sparse_fill_empty_rows,
    sparse_reshape,
    sparse_retain,
)
from scopeflow.ops.sparse.sparse_ops import embedding_lookup_sparse

__all__ = ["safe_embedding_lookup_sparse"]


def _prune_invalid_ids(sparse_ids, sparse_weights):
    """Drops ids < 0 (and their weights)."""
    keep = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        keep = math_ops.logical_and(keep, array_ops.ones_like(sparse_weights.values,
                                                              dtype=dtypes.bool))
    sparse_ids = sparse_retain(sparse_ids, keep)
    if sparse_weights is not None:
        sparse_weights = sparse_retain(sparse_weights, keep)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    """Drops entries whose weight is <= 0 (a mean or sqrtn over them is meaningless)."""
    if sparse_weights is not None:
        keep = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = sparse_retain(sparse_ids, keep)
        sparse_weights = sparse_retain(sparse_weights, keep)
    return sparse_ids, sparse_weights


def _embedding_weights_tensors(embedding_weights, sparse_weights):
    """``embedding_weights`` as a non-empty list of tensors (of the weights' dtype when
    there are weights)."""
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if not isinstance(embedding_weights, list):
        embedding_weights = [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    # TF converts all but resource variables (TF1's default variables convert to their
    # read tensor), to the weights' dtype when there are weights.
    return [convert_to_tensor(w, dtype=dtype) for w in embedding_weights]


def _flatten_to_rows(sparse_ids, sparse_weights, original_shape, original_rank):
    """``sparse_ids`` (and the weights) reshaped to rank 2: all but the last dim fold
    into rows."""
    sparse_ids = sparse_reshape(sparse_ids, [
        math_ops.reduce_prod(array_ops.slice(original_shape, [0], [original_rank - 1])),
        array_ops.gather(original_shape, original_rank - 1)])
    if sparse_weights is not None:
        sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                      sparse_ids.dense_shape)
    return sparse_ids, sparse_weights


def _restore_rank(result, original_shape, original_rank, original_rank_dim):
    """``result`` reshaped back to the ids' leading dims + the embedding dims."""
    final = array_ops.reshape(result, array_ops.concat([
        array_ops.slice(math_ops.cast(original_shape, dtypes.int32), [0],
                        [original_rank - 1]),
        array_ops.slice(array_ops.shape(result), [1], [-1])], 0))
    final.set_shape(unknown_shape(None if original_rank_dim is None
                                  else original_rank_dim - 1)
                    .concatenate(result.shape[1:]))
    return final


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, name=None,
                                 partition_strategy="div", max_norm=None,
                                 allow_fast_lookup=False):
    """The combined embeddings of each row of ``sparse_ids`` (any rank >= 2; the result
    has shape ``dense_shape[:-1] + embedding_dim``), robust to invalid ids and weights and
    to empty rows (``default_id``'s embedding, or zeros when it is None).

    >>> params = tf.constant([[1., 2.], [3., 4.]])
    >>> ids = tf.SparseTensor([[0, 0], [2, 0]], tf.constant([1, -1], tf.int64), [3, 2])
    >>> tf.Session().run(tf.nn.safe_embedding_lookup_sparse(params, ids)).tolist()
    [[3.0, 4.0], [0.0, 0.0], [0.0, 0.0]]
    """
    embedding_weights = _embedding_weights_tensors(embedding_weights, sparse_weights)
    with name_scope(name, "embedding_lookup",
                    embedding_weights + [sparse_ids, sparse_weights]) as scope:
        original_shape = sparse_ids.dense_shape
        original_rank_dim = dimension_value(original_shape.shape[0])
        original_rank = (array_ops.size(original_shape) if original_rank_dim is None
                         else original_rank_dim)
        sparse_ids, sparse_weights = _flatten_to_rows(sparse_ids, sparse_weights,
                                                      original_shape, original_rank)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)

        sparse_ids, is_row_empty = sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_fill_empty_rows(sparse_weights, 1.0)

        result = embedding_lookup_sparse(
            embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope, max_norm=max_norm,
            allow_fast_lookup=allow_fast_lookup)

        if default_id is None:
            is_row_empty = array_ops.tile(
                array_ops.reshape(is_row_empty, [-1, 1]),
                array_ops.stack([1, array_ops.shape(result)[1]]))
            result = math_ops.where(is_row_empty, array_ops.zeros_like(result), result,
                                    name=scope)
        return _restore_rank(result, original_shape, original_rank, original_rank_dim)
