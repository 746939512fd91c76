"""Losses: SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits and L2Loss.

Each op is one block (rules, NumPy kernel, gradient, public builder). The cross-entropy
kernels make one pass over the data, giving the loss and its backprop together (TF's
second output); their gradients include TF's second-order term. The logistic loss, built
from other ops, is in :mod:`scopeflow.ops.nn.nn_composites`. Op types, default names, values
and gradients follow TensorFlow 2.21 with TF1 semantics (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import FLOATS, INDEX
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, merge_shapes, scalar_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.nn.nn_activation_ops import _resolve_axis, log_softmax_op, softmax_op
from scopeflow.ops.nn.nn_rules import same_dtype_in

__all__ = ["softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "sparse_softmax_cross_entropy_with_logits", "l2_loss"]


# ── shared: the cross-entropies' gradients ───────────────────────────────────────────
def _is_zero(t) -> bool:
    """TF's ``IsZero`` for the unused-output gradient of the cross-entropy ops."""
    if t is None or t.op.type in ("ZerosLike", "Zeros"):
        return True
    value = constant_value(t)
    return value is not None and not np.any(value)


def _broadcast_mul(vec, mat):
    """TF's ``_BroadcastMul``: ``vec[..., None] * mat``."""
    return array_ops.expand_dims(vec, -1) * mat


# ── SoftmaxCrossEntropyWithLogits ────────────────────────────────────────────────────
def _xent_shape(features, labels):
    merged = merge_shapes(features, labels) if features.ndims == labels.ndims or \
        features.ndims is None or labels.ndims is None else None
    if merged is None:
        raise ValueError(f"Shapes must be equal rank, but are {features.ndims} and "
                         f"{labels.ndims}")
    if merged.ndims is not None and merged.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {merged.ndims}")
    dims = merged.as_tuple()
    batch = None if dims is None else dims[0]
    return [TensorShape([batch]), TensorShape(None if dims is None else list(dims))]


def _xent_kernel(features, labels):
    if features.ndim != 2 or np.shape(labels) != features.shape:
        raise errors.InvalidArgumentError(
            None, None, f"logits and labels must be broadcastable: logits_size="
            f"{list(features.shape)} labels_size={list(np.shape(labels))}")
    shifted = np.subtract(features, features.max(axis=1, keepdims=True, initial=-np.inf))
    backprop = np.exp(shifted)
    total = backprop.sum(axis=1, keepdims=True)
    np.subtract(np.log(total), shifted, out=shifted)   # -log softmax
    shifted *= labels
    loss = shifted.sum(axis=1)
    backprop /= total
    backprop -= labels
    return loss, backprop


_xent_input_dtype = same_dtype_in(FLOATS, ("features", "labels"))


def _xent_dtype(features, labels):
    return [_xent_input_dtype(features, labels)] * 2


xent_op = OpDef("SoftmaxCrossEntropyWithLogits", shape=_xent_shape, dtype=_xent_dtype,
                kernel=_xent_kernel, num_outputs=2, input_names=("features", "labels"))


@xent_op.def_grad
def _xent_grad(op, grad_loss, grad_grad):
    logits_grad = _xent_logits_grad(op, grad_loss, grad_grad)
    return [logits_grad,
            _broadcast_mul(grad_loss, math_ops.negative(log_softmax_op.bind(op.inputs[0])))]


def _xent_logits_grad(op, grad_loss, grad_grad):
    """Either cross-entropy's gradient for its logits: the backprop output scaled by the
    loss's gradient, and the backprop output's own gradient through the softmax."""
    logits = op.inputs[0]
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if not _is_zero(grad_grad):
        sm = softmax_op.bind(logits)
        dot = math_ops.reduce_sum(math_ops.multiply(grad_grad, sm), -1, keepdims=True)
        grad = math_ops.add(grad, math_ops.multiply(math_ops.subtract(grad_grad, dot), sm))
    return grad


def _flatten_outer_dims(logits):
    """TF's ``_flatten_outer_dims``: ``logits`` as a matrix of its last dim (the ops TF
    builds, so the graph is TF's; the plan folds them where the shapes are static)."""
    rank = array_ops.rank(logits)
    last_dim_size = array_ops.slice(array_ops.shape(logits), [math_ops.subtract(rank, 1)], [1])
    output = array_ops.reshape(logits, array_ops.concat([[-1], last_dim_size], 0))
    dims = logits.shape.as_tuple()
    if dims is not None and None not in dims[:-1]:
        output.set_shape([int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]])
    return output


def _move_dim_to_end(tensor, dim_index, rank):
    return array_ops.transpose(tensor, array_ops.concat(
        [math_ops.range(dim_index), math_ops.range(dim_index + 1, rank), [dim_index]], 0))


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """``-sum(labels * log_softmax(logits), axis)``; gradients flow into ``labels`` too.

    The graph is TF's: the class axis moved last, both inputs flattened to matrices, the
    loss reshaped back (float16 and bfloat16 computed in float32).

    >>> softmax_cross_entropy_with_logits_v2([[0.0, 1.0]], [[1.0, 2.0]]).shape.as_list()
    [1]
    """
    axis = _resolve_axis(axis, dim)
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        to_float32 = logits.dtype.base_dtype.name in ("float16", "bfloat16")
        precise_logits = math_ops.cast(logits, dtypes.float32) if to_float32 else logits
        labels = math_ops.cast(labels, precise_logits.dtype)
        input_rank = array_ops.rank(precise_logits)
        static_shape = logits.shape
        if axis != -1:
            precise_logits = _move_dim_to_end(precise_logits, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)
        input_shape = array_ops.shape(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost, _ = xent_op.bind(precise_logits, labels, name=scope)
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if static_shape.ndims is not None:
            dims = static_shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return math_ops.cast(cost, logits.dtype) if to_float32 else cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's version: like ``_v2`` but no gradient flows into ``labels``.

    >>> softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1.0, 2.0]]).shape.as_list()
    [1]
    """
    if _sentinel is not None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...).")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    axis = _resolve_axis(axis, None if dim == -1 else dim)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis,
                                                name=scope)


# ── SparseSoftmaxCrossEntropyWithLogits ──────────────────────────────────────────────
def _sparse_xent_shape(features, labels):
    if features.ndims is not None and features.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {features.ndims}")
    if labels.ndims is not None and labels.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {labels.ndims}")
    dims = features.as_tuple()
    batch = merge_shapes(TensorShape(None if dims is None else dims[:1]), labels).as_tuple()
    batch = None if batch is None else batch[0]
    return [TensorShape([batch]), TensorShape([batch, None if dims is None else dims[1]])]


def _sparse_xent_dtype(features, labels):
    check_dtype(labels, INDEX, "Tlabels")
    return [check_dtype(features, FLOATS, "T")] * 2


def _sparse_xent_kernel(features, labels):
    n, depth = features.shape
    if labels.shape != (n,):
        raise errors.InvalidArgumentError(
            None, None, f"logits and labels must have the same first dimension, got logits "
            f"shape {list(features.shape)} and labels shape {list(labels.shape)}")
    bad = (labels < 0) | (labels >= depth)
    if bad.any():
        value = labels[np.argmax(bad)]
        raise errors.InvalidArgumentError(
            None, None, f"Received a label value of {value} which is outside the valid range "
            f"of [0, {depth}).  Label values: {' '.join(str(v) for v in labels.tolist())}")
    shifted = np.subtract(features, features.max(axis=1, keepdims=True, initial=-np.inf))
    backprop = np.exp(shifted)
    total = backprop.sum(axis=1)
    rows = np.arange(n)
    loss = np.log(total) - shifted[rows, labels]
    backprop /= total[:, None]
    backprop[rows, labels] -= 1
    return loss.astype(features.dtype, copy=False), backprop


sparse_xent_op = OpDef("SparseSoftmaxCrossEntropyWithLogits", shape=_sparse_xent_shape,
                       dtype=_sparse_xent_dtype, kernel=_sparse_xent_kernel, num_outputs=2,
                       input_names=("features", "labels"))


@sparse_xent_op.def_grad
def _sparse_xent_grad(op, grad_loss, grad_grad):
    return [_xent_logits_grad(op, grad_loss, grad_grad), None]


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None) -> Tensor:
    """``-log_softmax(logits)[..., labels]`` for integer class ``labels``.

    Out-of-range labels raise ``InvalidArgumentError`` at run time (as TF's CPU kernel).

    >>> sparse_softmax_cross_entropy_with_logits(labels=[1], logits=[[1.0, 2.0]]).shape.as_list()
    [1]
    """
    if _sentinel is not None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...).")
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        labels_shape = array_ops.shape(labels)  # TF builds it first, whatever the ranks
        lr, gr = labels.shape.ndims, logits.shape.ndims
        if lr == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {logits.shape}.")
        if lr is not None and gr is not None and gr != lr + 1:
            raise ValueError(f"Rank mismatch: Rank of labels (received {lr}) should equal rank "
                             f"of logits minus 1 (received {gr}).")
        if gr is not None and lr is not None and \
                not labels.shape.is_compatible_with(logits.shape[:-1]):
            raise ValueError(f"Shape mismatch: The shape of labels (received {labels.shape}) "
                             f"should equal the shape of logits except for the last dimension "
                             f"(received {logits.shape}).")
        if gr == 2:
            cost, _ = sparse_xent_op.bind(logits, labels, name=name)
            return cost
        # An unknown class count (or rank) is read from the run-time shape.
        depth = logits.shape.as_list()[-1] if gr is not None else None
        if depth is None:
            depth = array_ops.shape(logits)[-1]
        flat_logits = array_ops.reshape(logits, [-1, depth] if isinstance(depth, int)
                                        else array_ops.stack([-1, depth]))
        cost, _ = sparse_xent_op.bind(flat_logits, array_ops.reshape(labels, [-1]), name=name)
        out = array_ops.reshape(cost, labels_shape)
        out.set_shape(labels.shape)
        return out


# ── L2Loss ───────────────────────────────────────────────────────────────────────────
def _l2_loss_kernel(t):
    flat = t.reshape(-1)
    return np.asarray(np.dot(flat, flat) / t.dtype.type(2), dtype=t.dtype)


l2_loss_op = OpDef("L2Loss", shape=scalar_shape, dtype=same_dtype_in(FLOATS, ("t",)),
                   kernel=_l2_loss_kernel, input_names=("t",))


@l2_loss_op.def_grad
def _l2_loss_grad(op, dy):
    return [math_ops.multiply(op.inputs[0], dy)]


def l2_loss(t, name=None) -> Tensor:
    """``sum(t ** 2) / 2``.

    >>> l2_loss([3.0, 4.0]).op.type
    'L2Loss'
    """
    return l2_loss_op.bind(t, name=name)
