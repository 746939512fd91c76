"""Neural-network ops: activations, softmax, cross-entropy losses, dropout, normalization.

Each op is one block (rules, NumPy kernel, gradient, public builder). Kernels work in
the input's dtype (float32 stays float32) and reuse their temporaries in place; softmax
and the cross-entropies make one pass over the data. Op types, default names, values and
gradients follow TensorFlow 2.21 with TF1 semantics (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import numbers

import numpy as np

from scopeflow.framework import dtypes, errors, random_seed
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, merge_shapes, same_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, constant_op, math_ops, random_ops
from scopeflow.ops.blas import PARALLEL_ELEMENTWISE_FLOPS, parallel_ufunc, split_rows

__all__ = [
    "relu", "relu6", "elu", "selu", "leaky_relu", "softplus", "softsign", "softmax",
    "log_softmax", "softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", "l2_loss",
    "dropout", "moments", "batch_normalization", "fused_batch_norm", "lrn",
    "local_response_normalization", "l2_normalize", "in_top_k", "top_k",
]

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_REAL = _FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                   dtypes.uint16, dtypes.uint32, dtypes.uint64)
_INDEX = (dtypes.int32, dtypes.int64)


# ── shared rules ─────────────────────────────────────────────────────────────────────
def _same_dtype_in(allowed, names=("features",)):
    def rule(first, *rest, **attrs):
        for i, d in enumerate(rest, 1):
            if d is not first:
                raise TypeError(f"Input '{names[i] if i < len(names) else i}' has type "
                                f"{d.name} that does not match type {first.name} of argument "
                                f"'{names[0]}'.")
        return check_dtype(first, allowed, "T")
    return rule


def _merge_same_shape(*shapes, **attrs):
    out = shapes[0]
    for s in shapes[1:]:
        out = merge_shapes(out, s)
    return out


def _is_zero(t) -> bool:
    """TF's ``IsZero`` for the unused-output gradient of the cross-entropy ops."""
    if t is None or t.op.type in ("ZerosLike", "Zeros"):
        return True
    value = constant_value(t)
    return value is not None and not np.any(value)


def _broadcast_mul(vec, mat):
    """TF's ``_BroadcastMul``: ``vec[..., None] * mat``."""
    return array_ops.expand_dims(vec, -1) * mat


def _unary(op_type, kernel, allowed=_FLOATS):
    return OpDef(op_type, shape=same_shape, dtype=_same_dtype_in(allowed), kernel=kernel,
                 input_names=("features",))


def _grad_op(op_type, kernel, second=("gradients", "features"), attrs=None):
    """A ``<Op>Grad`` op ``(gradients, features|outputs) -> backprops``."""
    return OpDef(op_type, shape=_merge_same_shape, dtype=_same_dtype_in(_FLOATS + _REAL, second),
                 kernel=kernel, attrs=attrs, input_names=second)


def _zeros_of(x):
    return array_ops.zeros_like(x)


# ── Relu / ReluGrad ──────────────────────────────────────────────────────────────────
_ZEROS = {}
_MAX_CACHED_ZEROS = 1 << 22  # elements: larger inputs use the scalar (no 16+ MB kept)


def _zeros_like_cached(x):
    """A read-only array of zeros shaped like ``x``, shared by calls (grown as needed)."""
    zeros = _ZEROS.get(x.dtype)
    if zeros is None or zeros.size < x.size:
        zeros = _ZEROS[x.dtype] = np.zeros(x.size, x.dtype)
        zeros.flags.writeable = False
    return zeros[:x.size].reshape(x.shape)


def _relu_kernel(x):
    # NOTE: against an array of zeros, not the scalar 0: NumPy's maximum with a broadcast
    # scalar is about 2x slower (same values, NaN included).
    if x.size < 4096:
        return np.maximum(x, x.dtype.type(0))
    zero = _zeros_like_cached(x) if x.size <= _MAX_CACHED_ZEROS else x.dtype.type(0)
    return parallel_ufunc(np.maximum, x, zero)


def _relu_grad_kernel(dy, x):
    # dy * (x > 0) as TF's kernel (several times faster than np.where); large inputs are
    # split over two threads, as the bool-to-float multiply is compute-bound.
    if dy.size < 4096 or dy.shape != x.shape:
        return np.multiply(dy, x > 0, dtype=dy.dtype)
    out = np.empty(dy.shape, dy.dtype)

    def rows(lo, hi):
        np.multiply(dy[lo:hi], x[lo:hi] > 0, out=out[lo:hi], dtype=dy.dtype)

    split_rows(rows, out.shape[0], flops=10.0 * out.size, min_flops=PARALLEL_ELEMENTWISE_FLOPS)
    return out


relu_op = _unary("Relu", _relu_kernel, _REAL)
relu_grad_op = _grad_op("ReluGrad", _relu_grad_kernel)
relu_op.def_grad(lambda op, dy: [relu_grad_op.bind(dy, op.outputs[0])])
relu_grad_op.def_grad(lambda op, ddy: [relu_grad_op.bind(ddy, op.inputs[1]),
                                       _zeros_of(op.inputs[1])])


def relu(features, name=None) -> Tensor:
    """``max(features, 0)``.

    >>> relu([-1.0, 2.0]).op.type
    'Relu'
    """
    return relu_op.bind(features, name=name)


# ── Relu6 / Relu6Grad ────────────────────────────────────────────────────────────────
relu6_op = _unary("Relu6", lambda x: np.clip(x, x.dtype.type(0), x.dtype.type(6)), _REAL)
relu6_grad_op = _grad_op("Relu6Grad", lambda dy, x: np.multiply(dy, (x > 0) & (x < 6),
                                                                dtype=dy.dtype))
relu6_op.def_grad(lambda op, dy: [relu6_grad_op.bind(dy, op.outputs[0])])
relu6_grad_op.def_grad(lambda op, ddy: [relu6_grad_op.bind(ddy, op.inputs[1]),
                                        _zeros_of(op.inputs[1])])


def relu6(features, name=None) -> Tensor:
    """``min(max(features, 0), 6)``.

    >>> relu6([7.0]).op.type
    'Relu6'
    """
    with name_scope(name, "Relu6", [features]) as scope:
        return relu6_op.bind(convert_to_tensor(features, name="features"), name=scope)


# ── Elu / EluGrad ────────────────────────────────────────────────────────────────────
def _elu_kernel(x):
    return np.where(x < 0, np.expm1(np.minimum(x, 0)), x)


def _elu_grad_kernel(dy, y):
    return np.where(y < 0, dy * (y + y.dtype.type(1)), dy)


elu_op = _unary("Elu", _elu_kernel)
elu_grad_op = _grad_op("EluGrad", _elu_grad_kernel, ("gradients", "outputs"))
elu_op.def_grad(lambda op, dy: [elu_grad_op.bind(dy, op.outputs[0])])


def _exp_linear_grad_grad(grad_op):
    """Second derivative of Elu/Selu from their outputs (the same shape for both)."""
    def rule(op, ddy):
        dy, y = op.inputs
        neg = math_ops.less(y, math_ops._const_like(0, y))
        return [grad_op.bind(ddy, y),
                math_ops.where(neg, math_ops.multiply(ddy, dy), _zeros_of(dy))]
    return rule


elu_grad_op.def_grad(_exp_linear_grad_grad(elu_grad_op))


def elu(features, name=None) -> Tensor:
    """``features`` where positive, else ``exp(features) - 1``.

    >>> elu([-1.0]).op.type
    'Elu'
    """
    return elu_op.bind(features, name=name)


# ── Selu / SeluGrad ──────────────────────────────────────────────────────────────────
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _selu_kernel(x):
    t = x.dtype.type
    return np.where(x < 0, t(_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(x, 0)),
                    t(_SELU_SCALE) * x)


def _selu_grad_kernel(dy, y):
    t = y.dtype.type
    return np.where(y < 0, dy * (y + t(_SELU_SCALE * _SELU_ALPHA)), dy * t(_SELU_SCALE))


selu_op = _unary("Selu", _selu_kernel)
selu_grad_op = _grad_op("SeluGrad", _selu_grad_kernel, ("gradients", "outputs"))
selu_op.def_grad(lambda op, dy: [selu_grad_op.bind(dy, op.outputs[0])])


selu_grad_op.def_grad(_exp_linear_grad_grad(selu_grad_op))


def selu(features, name=None) -> Tensor:
    """Scaled exponential linear unit: ``scale * elu(features, alpha)``.

    >>> selu([-1.0]).op.type
    'Selu'
    """
    return selu_op.bind(features, name=name)


# ── LeakyRelu / LeakyReluGrad ────────────────────────────────────────────────────────
def _leaky_relu_kernel(x, *, alpha):
    if 0 <= alpha <= 1:
        return np.maximum(x, x * x.dtype.type(alpha))
    return np.where(x > 0, x, x * x.dtype.type(alpha))


def _leaky_relu_grad_kernel(dy, x, *, alpha):
    return np.where(x > 0, dy, dy * dy.dtype.type(alpha))


leaky_relu_op = OpDef("LeakyRelu", shape=same_shape, dtype=_same_dtype_in(_FLOATS),
                      kernel=_leaky_relu_kernel, attrs={"alpha": 0.2},
                      input_names=("features",))
leaky_relu_grad_op = _grad_op("LeakyReluGrad", _leaky_relu_grad_kernel, attrs={"alpha": 0.2})
leaky_relu_op.def_grad(lambda op, dy: [leaky_relu_grad_op.bind(
    dy, op.inputs[0], alpha=op.get_attr("alpha"))])
leaky_relu_grad_op.def_grad(lambda op, ddy: [
    leaky_relu_grad_op.bind(ddy, op.inputs[1], alpha=op.get_attr("alpha")),
    _zeros_of(op.inputs[1])])


def leaky_relu(features, alpha=0.2, name=None) -> Tensor:
    """``features`` where positive, else ``alpha * features`` (integers become float32).

    >>> leaky_relu([-1.0], 0.1).op.type
    'LeakyRelu'
    """
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.base_dtype.is_integer:
            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return leaky_relu_op.bind(features, alpha=float(alpha), name=scope)


# ── Softplus / SoftplusGrad ──────────────────────────────────────────────────────────
def _softplus_grad_kernel(dy, x):
    return dy / (np.exp(-x) + x.dtype.type(1))


softplus_op = _unary("Softplus", lambda x: np.logaddexp(x, x.dtype.type(0)))
softplus_grad_op = _grad_op("SoftplusGrad", _softplus_grad_kernel)
softplus_op.def_grad(lambda op, dy: [softplus_grad_op.bind(dy, op.inputs[0])])


@softplus_grad_op.def_grad
def _softplus_grad_grad(op, ddy):
    dy, x = op.inputs  # d/dx [dy * sigmoid(x)] = dy * s * (1 - s)
    s = math_ops.sigmoid(x)
    one = math_ops._const_like(1, s)
    return [math_ops.multiply(ddy, s),
            math_ops.multiply(math_ops.multiply(ddy, dy),
                              math_ops.multiply(s, math_ops.subtract(one, s)))]


def softplus(features, name=None) -> Tensor:
    """``log(exp(features) + 1)``, stable for large ``|features|``.

    >>> softplus([0.0]).op.type
    'Softplus'
    """
    return softplus_op.bind(features, name=name)


# ── Softsign / SoftsignGrad ──────────────────────────────────────────────────────────
def _softsign_grad_kernel(dy, x):
    d = np.abs(x) + x.dtype.type(1)
    return dy / (d * d)


softsign_op = _unary("Softsign", lambda x: x / (np.abs(x) + x.dtype.type(1)))
softsign_grad_op = _grad_op("SoftsignGrad", _softsign_grad_kernel)
softsign_op.def_grad(lambda op, dy: [softsign_grad_op.bind(dy, op.inputs[0])])
softsign_grad_op.grad = NO_GRADIENT  # TF registers none: a gradient through it raises


def softsign(features, name=None) -> Tensor:
    """``features / (abs(features) + 1)``.

    >>> softsign([1.0]).op.type
    'Softsign'
    """
    return softsign_op.bind(features, name=name)


# ── Softmax / LogSoftmax (last axis; other axes transpose, as TF) ────────────────────
def _logits_shape(x, **attrs):
    if x.ndims is not None and x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims}")
    return x


def _softmax_kernel(x):
    out = np.subtract(x, x.max(axis=-1, keepdims=True))
    np.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def _log_softmax_kernel(x):
    out = np.subtract(x, x.max(axis=-1, keepdims=True))
    lse = np.log(np.exp(out).sum(axis=-1, keepdims=True))
    out -= lse
    return out


softmax_op = OpDef("Softmax", shape=_logits_shape, dtype=_same_dtype_in(_FLOATS, ("logits",)),
                   kernel=_softmax_kernel, input_names=("logits",))
log_softmax_op = OpDef("LogSoftmax", shape=_logits_shape,
                       dtype=_same_dtype_in(_FLOATS, ("logits",)), kernel=_log_softmax_kernel,
                       input_names=("logits",))


@softmax_op.def_grad
def _softmax_grad(op, dy):
    y = op.outputs[0]  # TF: (dy - sum(dy * y, -1, keepdims)) * y
    dot = math_ops.reduce_sum(math_ops.multiply(dy, y), -1, keepdims=True)
    return [math_ops.multiply(math_ops.subtract(dy, dot), y)]


@log_softmax_op.def_grad
def _log_softmax_grad(op, dy):
    y = op.outputs[0]  # TF: dy - sum(dy, -1, keepdims) * exp(y)
    total = math_ops.reduce_sum(dy, -1, keepdims=True)
    return [math_ops.subtract(dy, math_ops.multiply(total, math_ops.exp(y)))]


def _resolve_axis(axis, dim, default=-1):
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    return default if axis is None and dim is None else (axis if axis is not None else dim)


def _on_last_axis(op_def, logits, axis, name):
    """Runs a last-axis op on ``axis`` by swapping it with the last one (TF's _wrap_2d)."""
    logits = convert_to_tensor(logits)
    rank = logits.shape.ndims
    if isinstance(axis, Tensor):
        axis_value = constant_value(axis)
        axis = None if axis_value is None else int(axis_value)
    if axis is None or rank is None:
        raise ValueError(f"{op_def.type}: a non-last axis needs a static axis and rank")
    if rank == 0:
        raise ValueError(f"{op_def.type}: logits must have rank >= 1, got a scalar")
    if not -rank <= axis < rank:
        raise ValueError(f"Dimension ({axis}) must be in the range [{-rank}, {rank}), where "
                         f"{rank} is the number of dimensions in the input.")
    axis %= rank
    if axis == rank - 1:
        return op_def.bind(logits, name=name)
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = op_def.bind(array_ops.transpose(logits, perm))
    return array_ops.transpose(out, perm, name=name or "transpose")


def softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``exp(logits) / sum(exp(logits), axis)``, computed stably.

    >>> softmax([[1.0, 2.0]]).op.type
    'Softmax'
    """
    return _on_last_axis(softmax_op, logits, _resolve_axis(axis, dim), name)


def log_softmax(logits, axis=None, name=None, dim=None) -> Tensor:
    """``logits - log(sum(exp(logits), axis))``, computed stably.

    >>> log_softmax([[1.0, 2.0]]).op.type
    'LogSoftmax'
    """
    return _on_last_axis(log_softmax_op, logits, _resolve_axis(axis, dim), name)


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
    shifted = np.subtract(features, features.max(axis=1, keepdims=True))
    backprop = np.exp(shifted)
    total = backprop.sum(axis=1, keepdims=True)
    np.subtract(np.log(total), shifted, out=shifted)   # -log softmax
    shifted *= labels
    loss = shifted.sum(axis=1)
    backprop /= total
    backprop -= labels
    return loss, backprop


xent_op = OpDef("SoftmaxCrossEntropyWithLogits", shape=_xent_shape,
                dtype=lambda f, lab: [_same_dtype_in(_FLOATS, ("features", "labels"))(f, lab)] * 2,
                kernel=_xent_kernel, num_outputs=2, input_names=("features", "labels"))


@xent_op.def_grad
def _xent_grad(op, grad_loss, grad_grad):
    logits = op.inputs[0]
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if not _is_zero(grad_grad):
        sm = softmax_op.bind(logits)
        dot = math_ops.reduce_sum(math_ops.multiply(grad_grad, sm), -1, keepdims=True)
        grad = math_ops.add(grad, math_ops.multiply(math_ops.subtract(grad_grad, dot), sm))
    return [grad, _broadcast_mul(grad_loss, math_ops.negative(log_softmax_op.bind(logits)))]


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """``-sum(labels * log_softmax(logits), axis)``; gradients flow into ``labels`` too.

    >>> softmax_cross_entropy_with_logits_v2([[0.0, 1.0]], [[1.0, 2.0]]).shape.as_list()
    [1]
    """
    axis = _resolve_axis(axis, dim)
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if labels.dtype.base_dtype != logits.dtype.base_dtype:
            labels = math_ops.cast(labels, logits.dtype.base_dtype)
        rank = logits.shape.ndims
        if rank is None:
            raise ValueError("softmax_cross_entropy_with_logits needs logits of known rank")
        axis = axis % rank if rank else axis
        if axis != rank - 1:  # TF's _move_dim_to_end (not a swap: the loss keeps the order)
            perm = [i for i in range(rank) if i != axis] + [axis]
            logits = array_ops.transpose(logits, perm)
            labels = array_ops.transpose(labels, perm)
        if rank == 2:
            return xent_op.bind(logits, labels, name=scope)[0]
        batch_shape = array_ops.shape(logits)[:-1] if not logits.shape[:-1].is_fully_defined() \
            else logits.shape.as_list()[:-1]
        depth = array_ops.shape(logits)[-1:] if logits.shape[-1:].as_list() == [None] \
            else logits.shape.as_list()[-1:]
        flat = [-1] + depth if isinstance(depth, list) else array_ops.concat([[-1], depth], 0)
        cost, _ = xent_op.bind(array_ops.reshape(logits, flat), array_ops.reshape(labels, flat))
        out = array_ops.reshape(cost, batch_shape, name=scope)
        out.set_shape(logits.shape[:-1])
        return out


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's version: like ``_v2`` but no gradient flows into ``labels``.

    >>> softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[1.0, 2.0]]).op.type
    'SoftmaxCrossEntropyWithLogits'
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
    check_dtype(labels, _INDEX, "Tlabels")
    return [check_dtype(features, _FLOATS, "T")] * 2


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
    shifted = np.subtract(features, features.max(axis=1, keepdims=True))
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
    logits = op.inputs[0]
    grad = _broadcast_mul(grad_loss, op.outputs[1])
    if not _is_zero(grad_grad):
        sm = softmax_op.bind(logits)
        dot = math_ops.reduce_sum(math_ops.multiply(grad_grad, sm), -1, keepdims=True)
        grad = math_ops.add(grad, math_ops.multiply(math_ops.subtract(grad_grad, dot), sm))
    return [grad, None]


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
        depth = logits.shape.as_list()[-1] if gr is not None and logits.shape[-1] is not None \
            else array_ops.shape(logits)[-1]
        flat_logits = array_ops.reshape(logits, [-1, depth] if isinstance(depth, int)
                                        else array_ops.stack([-1, depth]))
        cost, _ = sparse_xent_op.bind(flat_logits, array_ops.reshape(labels, [-1]), name=name)
        out = array_ops.reshape(cost, labels_shape)
        out.set_shape(labels.shape)
        return out


# ── sigmoid_cross_entropy_with_logits (built from ops, as TF) ────────────────────────
def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                      name=None) -> Tensor:
    """``max(x, 0) - x * z + log(1 + exp(-abs(x)))``: stable logistic loss.

    >>> sigmoid_cross_entropy_with_logits(labels=[1.0], logits=[0.0]).name
    'logistic_loss:0'
    """
    if _sentinel is not None:
        raise ValueError("Only call `sigmoid_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...).")
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels", dtype=logits.dtype.base_dtype)
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(f"`logits` and `labels` must have the same shape, received "
                             f"({logits.shape.as_tuple()} vs {labels.shape.as_tuple()}).")
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        # Operators, as TF writes it: the ops are named GreaterEqual, Neg, mul and sub.
        cond = logits >= zeros
        relu_logits = math_ops.where(cond, logits, zeros)
        neg_abs_logits = math_ops.where(cond, -logits, logits)
        return math_ops.add(relu_logits - logits * labels,
                            math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


# ── L2Loss ───────────────────────────────────────────────────────────────────────────
def _l2_loss_kernel(t):
    flat = t.reshape(-1)
    return np.asarray(np.dot(flat, flat) / t.dtype.type(2), dtype=t.dtype)


l2_loss_op = OpDef("L2Loss", shape=lambda t: TensorShape([]), dtype=_same_dtype_in(_FLOATS, ("t",)),
                   kernel=_l2_loss_kernel, input_names=("t",))
l2_loss_op.def_grad(lambda op, dy: [math_ops.multiply(op.inputs[0], dy)])


def l2_loss(t, name=None) -> Tensor:
    """``sum(t ** 2) / 2``.

    >>> l2_loss([3.0, 4.0]).op.type
    'L2Loss'
    """
    return l2_loss_op.bind(t, name=name)


# ── dropout (built from ops, as TF 2.21's _dropout) ──────────────────────────────────
def _select_v2(cond, x, zero):
    where_v2 = getattr(math_ops, "where_v2", None)
    if where_v2 is not None:
        return where_v2(cond, x, zero)
    # NOTE: no SelectV2 op yet; multiplying by the 0/1 mask gives the same values (but
    # NaN instead of 0 at dropped inf/nan entries)
    return math_ops.multiply(x, math_ops.cast(cond, x.dtype.base_dtype))


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None) -> Tensor:
    """Zeroes entries with probability ``rate`` (``1 - keep_prob``); scales the rest up.

    The mask is ``random_uniform(noise_shape) >= rate``: with TF's seeds it is TF's, bit
    for bit. ``keep_prob`` may be a placeholder (fed 0.5 to train, 1.0 to evaluate).

    >>> dropout([1.0, 2.0], rate=0.5, seed=1).op.type in ("SelectV2", "Mul")
    True
    """
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'.")
        try:
            rate = 1 - keep_prob
        except TypeError:
            raise ValueError(f"keep_prob must be a floating point number or Tensor (got "
                             f"{keep_prob!r})") from None
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    with name_scope(name, "dropout", [x]):
        is_number = isinstance(rate, numbers.Real)
        if is_number and not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        x_dtype = x.dtype.base_dtype
        if not x_dtype.is_floating:
            raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={x_dtype.name}")
        if is_number and rate == 0:
            random_seed.get_seed(seed)
            return x
        if is_number:
            scale = constant_op.constant(1 / (1 - rate), dtype=x_dtype)
            ret = math_ops.mul_op.bind(x, scale)
        else:
            rate = convert_to_tensor(rate)
            if rate.shape.ndims not in (None, 0):
                raise ValueError(f"Shape must be rank 0 but is rank {rate.shape.ndims}")
            if rate.dtype.base_dtype != x_dtype:
                rate = math_ops.cast(rate, x_dtype, name="rate")
            one = constant_op.constant(1, dtype=x_dtype)
            ret = math_ops.realdiv_op.bind(x, math_ops.sub_op.bind(one, rate))
        if noise_shape is None:
            noise_shape = array_ops.shape(x)
        random_tensor = random_ops.random_uniform(noise_shape, seed=seed, dtype=x_dtype)
        keep_mask = math_ops.greater_equal(random_tensor, rate)
        ret = _select_v2(keep_mask, ret, constant_op.constant(0, dtype=x_dtype))
        ret.set_shape(x.shape)
        return ret


# ── moments / batch_normalization (built from ops, as TF) ────────────────────────────
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of ``x`` over ``axes`` (``shift`` is ignored, as in TF).

    >>> [t.op.type for t in moments([[1.0, 2.0]], [0])]
    ['Squeeze', 'Squeeze']
    """
    keep = bool(math_ops._deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x)
        y = math_ops.cast(x, dtypes.float32) if x.dtype.base_dtype == dtypes.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype.base_dtype == dtypes.float16:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + epsilon) + offset`` (TF's op sequence).

    >>> batch_normalization([1.0], 0.0, 1.0, None, None, 1e-3).op.type
    'AddV2'
    """
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x)
        inv = math_ops.rsqrt(math_ops.add(variance, variance_epsilon))
        if scale is not None:
            inv = math_ops.multiply(inv, scale)
        inv = math_ops.cast(inv, x.dtype)
        shift = math_ops.negative(mean) * inv if offset is None else \
            math_ops.subtract(offset, math_ops.multiply(mean, inv))
        return math_ops.add(math_ops.multiply(x, inv), math_ops.cast(shift, x.dtype))


# ── FusedBatchNormV3 / FusedBatchNormGradV3 ──────────────────────────────────────────
def _channel_axis(data_format, ndim):
    return 1 if data_format.startswith("NC") else ndim - 1


def _bn_reduce_axes(ndim, data_format):
    c = _channel_axis(data_format, ndim)
    return tuple(i for i in range(ndim) if i != c), c


def _bn_bcast(v, ndim, c):
    shape = [1] * ndim
    shape[c] = -1
    return v.reshape(shape)


def _fused_bn_shape(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                    data_format, is_training):
    if x.ndims is not None and x.ndims not in (4, 5):
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    c = None
    if x.ndims is not None:
        c = x.as_tuple()[_channel_axis(data_format, x.ndims)]
    for v in (scale, offset):
        if v.ndims is not None and v.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {v.ndims}")
        if v.ndims == 1 and c is None:
            c = v.as_tuple()[0]
    vec = TensorShape([c])
    return [x, vec, vec, vec, vec, TensorShape(None)]


def _fused_bn_dtype(x, scale, offset, mean, variance, **attrs):
    check_dtype(x, _FLOATS, "T")
    u = check_dtype(scale, (dtypes.float32,), "U")
    return [x, u, u, u, u, u]


def _fused_bn_kernel(x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor,
                     data_format, is_training):
    axes, c = _bn_reduce_axes(x.ndim, data_format)
    xf = x.astype(np.float32, copy=False)
    if is_training:
        n = x.size // max(x.shape[c], 1)
        batch_mean = xf.mean(axis=axes, dtype=np.float32)
        centered = xf - _bn_bcast(batch_mean, x.ndim, c)
        batch_var = np.square(centered).mean(axis=axes, dtype=np.float32)
        run_var = batch_var * np.float32(n / (n - 1) if n > 1 else 1)
        factor = np.float32(exponential_avg_factor)
        if factor != 1:
            run_mean = (1 - factor) * mean + factor * batch_mean
            run_var = (1 - factor) * variance + factor * run_var
        else:
            run_mean = batch_mean
        inv = 1 / np.sqrt(batch_var + np.float32(epsilon))
        y = centered
        saved_mean, saved_var = batch_mean, batch_var
    else:
        inv = 1 / np.sqrt(variance + np.float32(epsilon))
        y = xf - _bn_bcast(mean, x.ndim, c)
        run_mean, run_var = mean.copy(), variance.copy()
        saved_mean, saved_var = mean.copy(), variance.copy()
    y *= _bn_bcast(inv * scale, x.ndim, c)
    y += _bn_bcast(offset, x.ndim, c)
    return (y.astype(x.dtype, copy=False), run_mean, run_var, saved_mean, saved_var,
            np.zeros([0], np.float32))


_BN_ATTRS = {"epsilon": 1e-4, "exponential_avg_factor": 1.0, "data_format": "NHWC",
             "is_training": True}
fused_bn_op = OpDef("FusedBatchNormV3", shape=_fused_bn_shape, dtype=_fused_bn_dtype,
                    kernel=_fused_bn_kernel, num_outputs=6, attrs=dict(_BN_ATTRS),
                    input_names=("x", "scale", "offset", "mean", "variance"))


def _fused_bn_grad_shape(dy, x, scale, r1, r2, r3, **attrs):
    vec = TensorShape([scale.as_tuple()[0] if scale.ndims == 1 else None])
    return [merge_shapes(dy, x), vec, vec, TensorShape([0]), TensorShape([0])]


def _fused_bn_grad_dtype(dy, x, scale, r1, r2, r3, **attrs):
    check_dtype(x, _FLOATS, "T")
    return [x, scale, scale, scale, scale]


def _fused_bn_grad_kernel(dy, x, scale, saved_mean, saved_var, r3, *, epsilon,
                          data_format, is_training):
    axes, c = _bn_reduce_axes(x.ndim, data_format)
    dyf = dy.astype(np.float32, copy=False)
    inv = 1 / np.sqrt(saved_var + np.float32(epsilon))
    x_hat = x.astype(np.float32) - _bn_bcast(saved_mean, x.ndim, c)
    x_hat *= _bn_bcast(inv, x.ndim, c)
    d_offset = dyf.sum(axis=axes, dtype=np.float32)
    d_scale = (dyf * x_hat).sum(axis=axes, dtype=np.float32)
    if is_training:
        n = np.float32(x.size // max(x.shape[c], 1))
        x_hat *= _bn_bcast(d_scale / n, x.ndim, c)
        dx = dyf - _bn_bcast(d_offset / n, x.ndim, c)
        dx -= x_hat
        dx *= _bn_bcast(scale * inv, x.ndim, c)
    else:
        dx = dyf * _bn_bcast(scale * inv, x.ndim, c)
    empty = np.zeros([0], np.float32)
    return dx.astype(x.dtype, copy=False), d_scale, d_offset, empty, empty.copy()


fused_bn_grad_op = OpDef(
    "FusedBatchNormGradV3", shape=_fused_bn_grad_shape, dtype=_fused_bn_grad_dtype,
    kernel=_fused_bn_grad_kernel, num_outputs=5,
    grad=NO_GRADIENT,  # TF has a second-order rule; without one, raise rather than give 0
    attrs={"epsilon": 1e-4, "data_format": "NHWC", "is_training": True},
    input_names=("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2",
                 "reserve_space_3"))


@fused_bn_op.def_grad
def _fused_bn_grad(op, dy, *unused):
    x, scale = op.inputs[0], op.inputs[1]
    dx, dscale, doffset, _, _ = fused_bn_grad_op.bind(
        dy, x, scale, op.outputs[3], op.outputs[4], op.outputs[5],
        epsilon=op.get_attr("epsilon"), data_format=op.get_attr("data_format"),
        is_training=op.get_attr("is_training"))
    return [dx, dscale, doffset, None, None]


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """Batch normalization of a 4-D/5-D ``x`` in one op; returns ``(y, mean, variance)``.

    Training: the batch statistics (the returned variance is Bessel-corrected, as TF's).
    Inference: the given ``mean`` and ``variance``.

    >>> y, m, v = fused_batch_norm(tf.ones([2, 1, 1, 3]), [1.0] * 3, [0.0] * 3)
    >>> y.op.type
    'FusedBatchNormV3'
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is "
                         "False or `exponential_avg_factor` != 1.0. Received: "
                         f"`mean` {mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant_op.constant(np.zeros([0], np.float32))
    if variance is None:
        variance = constant_op.constant(np.zeros([0], np.float32))
    epsilon = max(epsilon, 1.001e-5)
    outs = fused_bn_op.bind(x, scale, offset, mean, variance, epsilon=float(epsilon),
                            exponential_avg_factor=float(exponential_avg_factor),
                            data_format=data_format, is_training=bool(is_training), name=name)
    return outs[0], outs[1], outs[2]


# ── LRN / LRNGrad ────────────────────────────────────────────────────────────────────
def _window_sum(a, r):
    """``sum(a[..., d - r : d + r + 1])`` along the last axis (clipped at the edges)."""
    depth = a.shape[-1]
    c = np.zeros(a.shape[:-1] + (depth + 1,), a.dtype)
    np.cumsum(a, axis=-1, out=c[..., 1:])
    hi = np.minimum(np.arange(depth) + r + 1, depth)
    lo = np.maximum(np.arange(depth) - r, 0)
    return c[..., hi] - c[..., lo]


def _lrn_norm(x, depth_radius, bias, alpha):
    x64 = x.astype(np.float64)
    return bias + alpha * _window_sum(x64 * x64, depth_radius), x64


def _lrn_kernel(x, *, depth_radius, bias, alpha, beta):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "input must be 4-dimensional")
    norm, x64 = _lrn_norm(x, depth_radius, bias, alpha)
    return (x64 * norm ** -beta).astype(x.dtype)


_LRN_ATTRS = {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}


def _rank4(x, *rest, **attrs):
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    return _merge_same_shape(x, *rest)


lrn_op = OpDef("LRN", shape=_rank4, dtype=_same_dtype_in(_FLOATS, ("input",)),
               kernel=_lrn_kernel, attrs=dict(_LRN_ATTRS), input_names=("input",))


def _lrn_grad_kernel(dy, x, y, *, depth_radius, bias, alpha, beta):
    norm, x64 = _lrn_norm(x, depth_radius, bias, alpha)
    dy64 = dy.astype(np.float64)
    inner = _window_sum(dy64 * x64 * norm ** (-beta - 1), depth_radius)
    return (dy64 * norm ** -beta - 2 * alpha * beta * x64 * inner).astype(x.dtype)


lrn_grad_op = OpDef("LRNGrad", shape=_rank4,
                    dtype=_same_dtype_in(_FLOATS, ("input_grads", "input_image",
                                                   "output_image")),
                    kernel=_lrn_grad_kernel, attrs=dict(_LRN_ATTRS), grad=NO_GRADIENT,
                    input_names=("input_grads", "input_image", "output_image"))


@lrn_op.def_grad
def _lrn_grad(op, dy):
    attrs = {k: op.get_attr(k) for k in _LRN_ATTRS}
    return [lrn_grad_op.bind(dy, op.inputs[0], op.outputs[0], **attrs)]


def lrn(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None) -> Tensor:  # noqa: A002
    """Local response normalization over the last axis of a 4-D tensor.

    >>> lrn(tf.ones([1, 1, 1, 3])).op.type
    'LRN'
    """
    return lrn_op.bind(input, depth_radius=int(depth_radius), bias=float(bias),
                       alpha=float(alpha), beta=float(beta), name=name)


local_response_normalization = lrn


# ── l2_normalize (built from ops, as TF) ─────────────────────────────────────────────
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> Tensor:
    """``x / sqrt(max(sum(x ** 2, axis), epsilon))``.

    >>> l2_normalize([3.0, 4.0], 0).name
    'l2_normalize:0'
    """
    axis = math_ops._deprecated_lookup("axis", axis, "dim", dim)
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, inv_norm, name=scope)


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
    check_dtype(targets, _INDEX, "T")
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


top_k_op = OpDef("TopKV2", shape=_top_k_shape_tensors, shape_from_tensors=True,
                 dtype=lambda x, k, **a: [check_dtype(x, _REAL, "T"), dtypes.int32],
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


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TF's names
    """The ``k`` largest entries of the last axis and their indices (ties: lower index).

    >>> values, indices = top_k([1.0, 3.0, 2.0], 2)
    >>> indices.op.type
    'TopKV2'
    """
    return top_k_op.bind(input, k, sorted=bool(sorted), name=name)
