"""Functions on SparseTensors: ``tf.sparse_placeholder``, ``tf.sparse.to_dense`` and
``tf.nn.embedding_lookup_sparse``.

The SparseTensor class is in ``framework/sparse_tensor.py``; the ops these build from
(``SparseToDense``, ``Unique``, ``SparseSegment*``) are in ``embedding_ops.py`` and
``segment_ops.py``.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import as_shape
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.math import segment_ops
from scopeflow.ops.nn.embedding_ops import embedding_lookup, sparse_to_dense
from scopeflow.ops.op_helpers import _partial_dims, _shape_from_dims

__all__ = ["sparse_placeholder", "sparse_tensor_to_dense", "embedding_lookup_sparse"]

# A SparseTensor's static shape is what TF's constant_value_as_shape sees of its dense_shape
# (a concat of a slice of another shape and a constant, as sparse_merge builds, included).
SparseTensor._shape_of_dense_shape = staticmethod(
    lambda dense_shape: _shape_from_dims(_partial_dims(dense_shape)))


def sparse_placeholder(dtype, shape=None, name=None) -> SparseTensor:
    """A SparseTensor to feed (a SparseTensorValue or an (indices, values, shape) tuple).

    As TF: without ``shape`` the dense shape is itself fed; with one, it defaults to it
    (``name/shape`` is a PlaceholderWithDefault) and may still be fed.

    >>> sp = tf.sparse_placeholder(tf.float32, shape=[2, 2], name="sp")
    >>> dense = tf.sparse.to_dense(sp)
    >>> tf.Session().run(dense, {sp: tf.SparseTensorValue([[0, 1]], [5.0], [2, 2])})
    array([[0., 5.],
           [0., 0.]], dtype=float32)
    """
    def scoped(suffix):
        return None if name is None else f"{name}/{suffix}"

    if shape is None:
        dense_shape = array_ops.placeholder(dtypes.int64, [None], name=scoped("shape"))
        rank = None
    else:
        shape = as_shape(shape)
        rank = shape.ndims
        default = [-1 if d is None else d for d in shape.as_list()] if rank is not None else []
        dense_shape = array_ops.placeholder_with_default(
            constant_op.constant(default, dtypes.int64, name=scoped("shape_default")),
            [rank], name=scoped("shape"))
    values = array_ops.placeholder(dtype, [None], name=scoped("values"))
    indices = array_ops.placeholder(dtypes.int64, [None, rank], name=scoped("indices"))
    sp = SparseTensor(indices, values, dense_shape)
    if shape is not None:
        sp._set_static_shape(shape)
    return sp


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True,
                           name=None) -> Tensor:
    """The dense tensor a SparseTensor stands for (``default_value`` elsewhere, 0 by default).

    Indices must be sorted in row-major order and distinct unless
    ``validate_indices=False``.
    """
    if not isinstance(sp_input, SparseTensor):
        sp_input = SparseTensor.from_value(sp_input)
    if default_value is None:
        default_value = "" if sp_input.dtype.base_dtype == dtypes.string else 0
    with name_scope(name, "SparseToDense", [sp_input]) as scope:
        return sparse_to_dense(sp_input.indices, sp_input.dense_shape, sp_input.values,
                               default_value=default_value, validate_indices=validate_indices,
                               name=scope)


# ── embedding_lookup_sparse (composite, TF's graph) ──────────────────────────────────
_COMBINERS = ("mean", "sqrtn", "sum")


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None, allow_fast_lookup=False) -> Tensor:
    """Combines the embeddings of each row's ids (``tf.nn.embedding_lookup_sparse``).

    Row ``r`` of the result is ``combiner`` ("mean" by default, "sqrtn" or "sum") over
    ``params[id] * weight`` for the ids in row ``r`` of the 2-D SparseTensor ``sp_ids``
    (weights from ``sp_weights``, or 1). Ids must be in row-major order with every row
    non-empty, as TF assumes. Without weights, a single ``params`` tensor and no
    ``max_norm``, the lookup is one ``SparseSegment*`` op whose gradient is IndexedSlices.

    >>> params = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
    >>> ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], [0, 1, 3, 2], [3, 2])
    >>> tf.Session().run(tf.nn.embedding_lookup_sparse(params, ids, None, combiner="sum"))
    array([[4., 6.],
           [7., 8.],
           [5., 6.]], dtype=float32)
    """
    if combiner is None:
        combiner = "mean"
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(params, list):
        params = [params]
    _check_sparse_ids_and_weights(sp_ids, sp_weights)
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as name:
        segment_ids = convert_to_tensor(sp_ids.indices[:, 0], name="segment_ids")
        ids = sp_ids.values
        single = len(params) == 1
        if single and not isinstance(params[0], Tensor) and not hasattr(params[0], "op"):
            params = [convert_to_tensor(params[0], name="params")]
        sparse_gradient = False
        if single and max_norm is None and (allow_fast_lookup or sp_weights is None):
            idx, embeddings = ids, params[0]   # TF's fast path: no Unique, no gather
            sparse_gradient = not allow_fast_lookup
        else:
            ids, idx = segment_ops.unique(ids)
            embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy,
                                          max_norm=max_norm)
        if sp_weights is None:
            return _unweighted_combine(embeddings, idx, segment_ids, combiner, name,
                                       sparse_gradient)
        return _weighted_combine(embeddings, idx, segment_ids, sp_weights.values, combiner,
                                 name)


def _check_sparse_ids_and_weights(sp_ids, sp_weights):
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor, got "
                            f"{type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)


def _unweighted_combine(embeddings, idx, segment_ids, combiner, name, sparse_gradient):
    """One ``SparseSegment{Sum,Mean,SqrtN}`` op over the rows' embeddings."""
    if segment_ids.dtype.base_dtype not in INDEX:
        segment_ids = math_ops.cast(segment_ids, dtypes.int32)
    reduce = {"sum": segment_ops.sparse_segment_sum,
              "mean": segment_ops.sparse_segment_mean,
              "sqrtn": segment_ops.sparse_segment_sqrt_n}[combiner]
    return reduce(embeddings, idx, segment_ids, name=name, sparse_gradient=sparse_gradient)


def _weighted_combine(embeddings, idx, segment_ids, weights, combiner, name):
    if segment_ids.dtype.base_dtype != dtypes.int32:
        segment_ids = math_ops.cast(segment_ids, dtypes.int32)
    embeddings = array_ops.gather(embeddings, idx)
    original_dtype = embeddings.dtype.base_dtype
    if original_dtype == dtypes.float16:  # accumulate in float32, as TF
        embeddings = math_ops.cast(embeddings, dtypes.float32)
    if weights.dtype.base_dtype != embeddings.dtype.base_dtype:
        weights = math_ops.cast(weights, embeddings.dtype.base_dtype)
    # Reshape weights to [n, 1, 1, ...] so they broadcast over the embedding dims.
    ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
    weights_shape = array_ops.shape(weights)
    ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
    orig_weights_shape = weights.shape
    weights = array_ops.reshape(weights, array_ops.concat([weights_shape, ones], 0))
    if embeddings.shape.ndims is not None:
        weights.set_shape(orig_weights_shape.concatenate([1] * (embeddings.shape.ndims - 1)))
    embeddings *= weights  # operator form: TF's op is named "mul"
    if combiner == "sum":
        embeddings = segment_ops.segment_sum(embeddings, segment_ids, name=name)
    else:
        embeddings = segment_ops.segment_sum(embeddings, segment_ids)
        if combiner == "mean":
            weight_sum = segment_ops.segment_sum(weights, segment_ids)
        else:
            weight_sum = math_ops.sqrt(segment_ops.segment_sum(math_ops.pow(weights, 2),
                                                               segment_ids))
        embeddings = math_ops.div_no_nan(embeddings, weight_sum, name=name)
    if embeddings.dtype.base_dtype != original_dtype:
        embeddings = math_ops.cast(embeddings, original_dtype)
    return embeddings
