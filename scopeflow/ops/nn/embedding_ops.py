"""Embedding lookups (sparse gradients) and sampled losses (NCE, sampled softmax).

``embedding_lookup`` is TF's graph: one ``GatherV2`` (named as the lookup) for a single
params tensor, or ``DynamicPartition`` of the ids over the shards ("mod" or "div"), one
gather per shard and a ``ParallelDynamicStitch``. Its gradient reaches the params as
``IndexedSlices`` (rows of the looked-up ids only), so optimizers update sparsely. The
sampled losses are TF's ``_compute_sampled_logits``: true and sampled ids are looked up
together, so the class weights and biases also get sparse gradients.

The data-flow op ``SparseToDense`` is declared here because only the embedding code uses
it so far; the partition and stitch ops are in :mod:`scopeflow.ops.array.stitch_ops`.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape, dimension_value
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops, nn_ops
from scopeflow.ops.array.stitch_ops import dynamic_partition, parallel_dynamic_stitch
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.clip_ops import clip_by_norm
from scopeflow.ops.random import candidate_sampling_ops

# NOTE: sparse_to_dense is top-level ``tf.*`` in TF,
# not ``tf.nn.*``: they stay out of ``__all__`` (which ``scopeflow/api/nn.py`` star-imports).
__all__ = ["embedding_lookup", "nce_loss", "sampled_softmax_loss"]

# ── SparseToDense ────────────────────────────────────────────────────────────────────
def _sparse_to_dense_shape(sparse_indices, output_shape, sparse_values, default_value, *,
                           validate_indices):
    value = constant_value(output_shape)
    if value is not None:
        return TensorShape([int(d) for d in np.reshape(value, [-1])])
    n = output_shape.shape.as_tuple()
    if n is None or n[0] is None:
        return TensorShape(None)
    return TensorShape([None] * n[0])


def _sparse_to_dense_dtype(sparse_indices, output_shape, sparse_values, default_value, *,
                           validate_indices):
    check_dtype(sparse_indices, INDEX, "Tindices")
    if output_shape is not sparse_indices:
        raise TypeError(f"Input 'output_shape' of 'SparseToDense' Op has type "
                        f"{output_shape.name} that does not match type "
                        f"{sparse_indices.name} of argument 'sparse_indices'.")
    if default_value is not sparse_values:
        raise TypeError(f"Input 'default_value' of 'SparseToDense' Op has type "
                        f"{default_value.name} that does not match type "
                        f"{sparse_values.name} of argument 'sparse_values'.")
    return sparse_values


def _sparse_to_dense_kernel(sparse_indices, output_shape, sparse_values, default_value, *,
                            validate_indices):
    dims = tuple(int(d) for d in np.reshape(output_shape, [-1]))
    out = np.full(dims, default_value, dtype=sparse_values.dtype)
    if not dims:  # a scalar output: indices [N, 0] (or [N]); the last value is it
        if np.size(sparse_values):
            out[()] = np.reshape(sparse_values, -1)[-1]
        return out
    idx = np.reshape(sparse_indices, (-1, len(dims)) if sparse_indices.ndim else (1, 1))
    if idx.size:
        if ((idx < 0) | (idx >= np.array(dims))).any():
            raise InvalidArgumentError(None, None, "SparseToDense: indices are out of bounds "
                                       f"of the output shape {list(dims)}")
        out[tuple(idx.T)] = sparse_values
    return out


sparse_to_dense_op = OpDef(
    "SparseToDense", shape=from_tensors(_sparse_to_dense_shape), dtype=_sparse_to_dense_dtype,
    kernel=_sparse_to_dense_kernel, attrs={"validate_indices": True},
    input_names=("sparse_indices", "output_shape", "sparse_values", "default_value"))


@sparse_to_dense_op.def_grad
def _sparse_to_dense_grad(op, dy):
    """TF's ``_SparseToDenseGrad``: the values take the gradient at their positions
    (a flat gather instead of ``GatherNd``), the default value the sum of the rest."""
    sparse_indices, output_shape, sparse_values, _ = op.inputs
    rank = output_shape.shape.as_tuple()
    if rank is None or rank[0] is None:
        raise ValueError("SparseToDense gradient needs the rank of output_shape statically")
    r = rank[0]
    shape = math_ops.cast(output_shape, dtypes.int32)
    idx = math_ops.cast(array_ops.reshape(sparse_indices, [-1, r]), dtypes.int32)
    strides = array_ops.stack([math_ops.reduce_prod(shape[k + 1:]) for k in range(r)])
    flat = math_ops.reduce_sum(idx * strides, 1)
    values_grad = array_ops.gather(array_ops.reshape(dy, [-1]), flat)
    default_grad = math_ops.reduce_sum(dy) - math_ops.reduce_sum(values_grad)
    if sparse_values.shape.ndims == 0:                 # one value broadcast to every index
        values_grad = math_ops.reduce_sum(values_grad)
    return [None, None, values_grad, default_grad]


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None) -> Tensor:
    """A dense tensor of ``default_value`` with ``sparse_values`` at ``sparse_indices``.

    >>> sparse_to_dense([[0, 1]], [2, 2], [5.0], 0.0).op.type
    'SparseToDense'
    """
    sparse_values = convert_to_tensor(sparse_values)
    default_value = convert_to_tensor(default_value, dtype=sparse_values.dtype.base_dtype)
    return sparse_to_dense_op.bind(sparse_indices, output_shape, sparse_values, default_value,
                                   validate_indices=validate_indices, name=name)


# ── embedding_lookup (composite: GatherV2, or DynamicPartition + ParallelDynamicStitch) ───
def _dense(g):
    return convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


def _clip(params, ids, max_norm):
    """Clips each looked-up embedding to L2 norm ``max_norm`` (None: no clipping)."""
    if max_norm is None:
        return params
    ids_rank, params_rank = ids.shape.ndims, params.shape.ndims
    if ids_rank and params_rank:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = math_ops.range(array_ops.rank(ids), array_ops.rank(params))
    if np.isscalar(max_norm):
        max_norm = max(max_norm, 0)                        # TF treats a negative norm as 0
    else:
        max_norm = math_ops.cast(math_ops.maximum(max_norm, 0), params.dtype)
    return clip_by_norm(params, max_norm, axes)


def _as_params_list(params):
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if hasattr(params, "_get_variable_list"):          # a PartitionedVariable
        params = list(params)
    return list(params) if isinstance(params, (list, tuple)) else [params]


def _convert_params(params):
    """``convert_n_to_tensor_or_indexed_slices(params, name="params")``."""
    out = []
    for i, p in enumerate(params):
        out.append(p if isinstance(p, Tensor) else convert_to_tensor(p, name=f"params_{i}"))
    return out


def _partition_ids(flat_ids, params, partition_strategy):
    """``(shard of each id, id within its shard)`` for the "mod" and "div" strategies."""
    n = len(params)
    if partition_strategy == "mod":
        return flat_ids % n, flat_ids // n
    if partition_strategy != "div":
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}.Must be one "
                         f"of either `mod` or `div`.")
    sizes = [dimension_value(p.shape[0]) if p.shape.ndims else None for p in params]
    if all(s is not None for s in sizes):
        total = constant(sum(sizes), flat_ids.dtype)
    else:
        dims = [s if s is not None else array_ops.shape(p)[0] for s, p in zip(sizes, params)]
        total = math_ops.reduce_sum(math_ops.cast(array_ops.stack(dims), flat_ids.dtype))
    per_shard = total // n
    extras = total % n
    assignments = math_ops.maximum(flat_ids // (per_shard + 1),
                                   (flat_ids - extras) // per_shard)
    new_ids = math_ops.where(assignments < extras, flat_ids % (per_shard + 1),
                             (flat_ids - extras) % per_shard)
    return assignments, new_ids


def _lookup_partitioned(params, ids, partition_strategy, max_norm, scope):
    flat_ids = array_ops.reshape(ids, [-1])
    original_indices = math_ops.range(array_ops.size(flat_ids, out_type=dtypes.int32))
    assignments, new_ids = _partition_ids(flat_ids, params, partition_strategy)
    assignments = math_ops.cast(assignments, dtypes.int32)
    n = len(params)
    gather_ids = dynamic_partition(new_ids, assignments, n)
    pindices = dynamic_partition(original_indices, assignments, n)
    pieces = [array_ops.gather(p, pids) for p, pids in zip(params, gather_ids)]
    ret = parallel_dynamic_stitch(pindices, pieces, name=scope)
    element_shape_s = params[0].shape[1:]
    for p in params[1:]:
        element_shape_s = element_shape_s.merge_with(p.shape[1:])
    if element_shape_s.is_fully_defined():
        element_shape_d = element_shape_s.as_list()
    else:
        element_shape_d = array_ops.shape(params[0])[1:]
    ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape_d], 0))
    ret.set_shape(ids.shape.concatenate(element_shape_s))
    return _clip(ret, ids, max_norm)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None) -> Tensor:
    """Rows of ``params`` (one tensor, or a list of shards) for each id in ``ids``.

    With several shards, id ``i`` lives in shard ``i % n`` ("mod") or in contiguous
    blocks ("div", the first ``size % n`` shards one row longer). ``max_norm`` clips each
    looked-up row to that L2 norm. The gradient reaching ``params`` is ``IndexedSlices``.
    A ``PartitionedVariable`` is its list of parts, as in TF: its parts hold contiguous
    rows, so "div" looks up row ``i`` of the whole, while the default "mod" reads row
    ``i // n`` of part ``i % n`` (TF's behaviour too).

    >>> e = embedding_lookup(tf.zeros([10, 4]), [1, 3, 3])
    >>> e.shape.as_list(), e.op.inputs[0].op.type
    ([3, 4], 'GatherV2')
    """
    del validate_indices
    params = _as_params_list(params)
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        if not any(getattr(p, "_is_resource", False) for p in params):
            params = _convert_params(params)  # TF's: resource variables stay (ResourceGather)
        ids = ids if isinstance(ids, Tensor) else convert_to_tensor(ids, name="ids")
        if len(params) == 1:
            result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
            return array_ops.identity(result)
        return _lookup_partitioned(params, ids, partition_strategy, max_norm, scope)


# ── sampled losses (composite: _compute_sampled_logits) ──────────────────────────────
def _sum_rows(x):
    """``reduce_sum(x, 1)`` as a matmul with ones (TF's faster-gradient form)."""
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


class _SampledLogits:
    """The arguments of ``_compute_sampled_logits`` that callers pass through."""

    def __init__(self, num_sampled, num_classes, num_true, sampled_values,
                 remove_accidental_hits, partition_strategy, seed=None):
        self.num_sampled, self.num_classes, self.num_true = num_sampled, num_classes, num_true
        self.sampled_values = sampled_values
        self.remove_accidental_hits = remove_accidental_hits
        self.partition_strategy = partition_strategy
        self.seed = seed


def _remove_accidental_hits(sampled_logits, labels, sampled, cfg):
    hits = candidate_sampling_ops.compute_accidental_hits(labels, sampled, num_true=cfg.num_true)
    acc_indices, acc_ids, acc_weights = hits
    acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
    acc_ids_2d = array_ops.reshape(math_ops.cast(acc_ids, dtypes.int32), [-1, 1])
    sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d], 1, "sparse_indices")
    shape = array_ops.concat([array_ops.shape(labels)[:1],
                              array_ops.expand_dims(cfg.num_sampled, 0)], 0)
    if sampled_logits.dtype.base_dtype is not acc_weights.dtype.base_dtype:
        acc_weights = math_ops.cast(acc_weights, sampled_logits.dtype)
    return sampled_logits + sparse_to_dense(sparse_indices, shape, acc_weights,
                                            default_value=0.0, validate_indices=False)


def _compute_sampled_logits(weights, biases, labels, inputs, cfg, subtract_log_q=True,
                            name=None):
    """TF's ``_compute_sampled_logits``: ``(logits, labels)`` of shape
    ``[batch, num_true + num_sampled]``, true classes first."""
    weights = _as_params_list(weights)
    num_true = cfg.num_true
    with name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = convert_to_tensor(labels)
        if labels.dtype.base_dtype is not dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        sampled_values = cfg.sampled_values
        if sampled_values is None:
            sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=cfg.num_sampled,
                unique=True, range_max=cfg.num_classes, seed=cfg.seed)
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        inputs = convert_to_tensor(inputs)
        all_w = _lookup_as(weights, all_ids, cfg, inputs.dtype)
        true_w = array_ops.slice(
            all_w, [0, 0], array_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = array_ops.slice(
            all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = _lookup_as(biases, all_ids, cfg, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        true_logits = _true_logits(inputs, true_w, true_b, num_true)
        sampled_logits += sampled_b
        if cfg.remove_accidental_hits:
            sampled_logits = _remove_accidental_hits(sampled_logits, labels, sampled, cfg)
        if subtract_log_q:
            true_logits -= math_ops.log(true_expected_count)
            sampled_logits -= math_ops.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([array_ops.ones_like(true_logits) / num_true,
                                       array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def _lookup_as(params, ids, cfg, dtype):
    """The rows ``ids`` of ``params`` (partitioned as ``cfg`` says) in ``dtype``."""
    rows = embedding_lookup(params, ids, partition_strategy=cfg.partition_strategy)
    if rows.dtype.base_dtype is not dtype.base_dtype:
        rows = math_ops.cast(rows, dtype)
    return rows


def _true_logits(inputs, true_w, true_b, num_true):
    """``[batch, num_true]``: each example's dot product with its true classes' weights,
    plus their biases."""
    dim = array_ops.shape(true_w)[1:2]
    new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
    row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                      array_ops.reshape(true_w, new_true_w_shape))
    dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
    true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
    true_b = array_ops.reshape(true_b, [-1, num_true])
    true_logits += true_b
    return true_logits


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss") -> Tensor:
    """Noise-contrastive estimation loss per example, ``[batch_size]`` (TF1 signature).

    Samples ``num_sampled`` classes (log-uniform, unique) unless ``sampled_values`` is
    given; the gradients to ``weights`` and ``biases`` are ``IndexedSlices``.

    >>> loss = nce_loss(tf.zeros([10, 3]), tf.zeros([10]), [[1], [2]], tf.zeros([2, 3]),
    ...                 num_sampled=4, num_classes=10)
    >>> loss.shape.as_list()
    [2]
    """
    cfg = _SampledLogits(num_sampled, num_classes, num_true, sampled_values,
                         remove_accidental_hits, partition_strategy)
    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, cfg,
                                             subtract_log_q=True, name=name)
    sampled_losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                              name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss",
                         seed=None) -> Tensor:
    """Softmax cross-entropy over the true and ``num_sampled`` sampled classes only.

    >>> loss = sampled_softmax_loss(tf.zeros([10, 3]), tf.zeros([10]), [[1]],
    ...                             tf.zeros([1, 3]), num_sampled=4, num_classes=10)
    >>> loss.shape.as_list()
    [1]
    """
    cfg = _SampledLogits(num_sampled, num_classes, num_true, sampled_values,
                         remove_accidental_hits, partition_strategy, seed)
    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, cfg,
                                             subtract_log_q=True, name=name)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
