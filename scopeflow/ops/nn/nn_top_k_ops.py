"""Top-k selection: TopKV2 (the k largest entries and their indices) and InTopKV2.

Each op is one block (rules, NumPy kernel, gradient, public builder). As TF's CPU kernels,
TopKV2 breaks ties by the lower index and InTopKV2 counts a target tied with the k-th
largest as in the top k. Op types, default names, values and gradients follow TensorFlow
2.21 with TF1 semantics (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import INDEX, REAL
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors, merge_shapes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops

__all__ = ["in_top_k", "top_k", "TopKV2"]


# ── InTopKV2 ─────────────────────────────────────────────────────────────────────────
def _in_top_k_shape(predictions, targets, k):
    if predictions.ndims is not None and predictions.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {predictions.ndims}")
    if targets.ndims is not None and targets.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {targets.ndims}")
    batch = None if predictions.ndims is None else predictions.as_tuple()[0]
    return merge_shapes(TensorShape([batch]), targets)


def _in_top_k_dtype(predictions, targets, k):
    check_dtype(predictions, (dtypes.float32,), "predictions")
    check_dtype(targets, INDEX, "T")
    if k is not targets:
        raise TypeError(f"Input 'k' of 'InTopKV2' Op has type {k.name} that does not match "
                        f"type {targets.name} of argument 'targets'.")
    return dtypes.bool_


def _in_top_k_kernel(predictions, targets, k):
    n, depth = predictions.shape
    if targets.shape != (n,):
        raise errors.InvalidArgumentError(
            None, None, f"First dimension of predictions {n} must match length of targets "
            f"{targets.shape[0] if targets.ndim else 0}")
    valid = (targets >= 0) & (targets < depth)
    if not depth:  # no classes: no target is in any top k (and none can be indexed)
        return valid
    target_pred = predictions[np.arange(n), np.where(valid, targets, 0)]
    finite = np.isfinite(target_pred)
    higher = (predictions > target_pred[:, None]).sum(axis=1)
    return valid & finite & (higher < int(k))


in_top_k_op = OpDef("InTopKV2", shape=_in_top_k_shape, dtype=_in_top_k_dtype,
                    kernel=_in_top_k_kernel, grad=NO_GRADIENT,
                    input_names=("predictions", "targets", "k"))


def in_top_k(predictions, targets, k, name=None) -> Tensor:
    """Whether each ``targets[i]`` is among the top ``k`` of ``predictions[i]`` (ties count).

    >>> in_top_k([[0.1, 0.9]], [1], 1).op.type
    'InTopKV2'
    """
    with name_scope(name, "in_top_k"):
        targets = convert_to_tensor(targets)
        k = convert_to_tensor(k, dtype=targets.dtype.base_dtype, name="k")
        return in_top_k_op.bind(predictions, targets, k)


# ── TopKV2 ───────────────────────────────────────────────────────────────────────────
def _top_k_shape(x, k, *, sorted):
    if x.ndims is not None and x.ndims < 1:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    kv = constant_value(k)
    if kv is not None and x.ndims is not None:
        last = x.as_tuple()[-1]
        if last is not None and int(kv) > last:
            raise ValueError(f"input must have at least k columns. Had {last}, needed {int(kv)}")
    if x.ndims is None:
        return [TensorShape(None)] * 2
    out = TensorShape(list(x.as_tuple()[:-1]) + [None if kv is None else int(kv)])
    return [out, out]


def _top_k_kernel(x, k, *, sorted):
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise errors.InvalidArgumentError(
            None, None, f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    order = np.argsort(-x if x.dtype.kind == "f" else np.negative(x.astype(np.int64)),
                       axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


def _top_k_shape_tensors(x, k, *, sorted):
    return _top_k_shape(x.shape, k, sorted=sorted)


def _top_k_dtype(x, k, **attrs):
    return [check_dtype(x, REAL, "T"), dtypes.int32]


top_k_op = OpDef("TopKV2", shape=from_tensors(_top_k_shape_tensors), dtype=_top_k_dtype,
                 kernel=_top_k_kernel, num_outputs=2, attrs={"sorted": True},
                 input_names=("input", "k"))


@top_k_op.def_grad
def _top_k_grad(op, dy, _unused):
    """Scatters ``dy`` to the positions ``indices`` of the input (TF's _TopKGrad)."""
    x, indices = op.inputs[0], op.outputs[1]
    x_shape = array_ops.shape(x)
    depth = x_shape[-1]
    k = array_ops.shape(indices)[-1]
    ind_2d = array_ops.reshape(indices, array_ops.stack([-1, k]))
    rows = array_ops.shape(ind_2d)[0]
    offsets = array_ops.expand_dims(math_ops.range(0, rows * depth, depth), -1)
    flat = array_ops.reshape(math_ops.add(ind_2d, offsets), [-1])
    total = math_ops.reduce_prod(x_shape)
    scattered = math_ops.unsorted_segment_sum(array_ops.reshape(dy, [-1]), flat, total)
    return [array_ops.reshape(scattered, x_shape), None]


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
TopKV2.__doc__ = """``top_k``'s result, as TF's: a named tuple ``(values, indices)``.

``Session.run`` of one returns a ``TopKV2`` of arrays."""


def top_k(input, k=1, sorted=True, name=None) -> TopKV2:  # noqa: A002 - TF's names
    """The ``k`` largest entries of the last axis and their indices (ties: lower index),
    as the named tuple ``TopKV2(values, indices)`` (``indices`` are int32).

    >>> result = top_k([1.0, 3.0, 2.0], 2)
    >>> result.indices.op.type
    'TopKV2'
    >>> values, indices = result
    """
    values, indices = top_k_op.bind(input, k, sorted=bool(sorted), name=name)
    return TopKV2(values, indices)
