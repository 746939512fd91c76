"""Activations: Relu, Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign, Softmax, LogSoftmax.

Each op is one block (rules, NumPy kernel, gradient, public builder); each ``<Op>Grad`` op
is TF's, so autodiff builds TF's graph. Kernels work in the input's dtype (float32 stays
float32); Relu and ReluGrad split large inputs over two threads; softmax makes one pass
over the data. Op types, default names, values and gradients follow TensorFlow 2.21 with
TF1 semantics (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import FLOATS, REAL
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY, OpDef, same_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.math.blas import PARALLEL_ELEMENTWISE_FLOPS, parallel_ufunc, split_rows
from scopeflow.ops.nn.nn_rules import merge_same_shape, same_dtype_in

__all__ = ["relu", "relu6", "elu", "selu", "leaky_relu", "softplus", "softsign", "softmax",
           "log_softmax"]


# ── shared: the unary activations and their <Op>Grad ops ─────────────────────────────
def _unary(op_type, kernel, allowed=FLOATS):
    return OpDef(op_type, shape=same_shape, dtype=same_dtype_in(allowed), kernel=kernel,
                 input_names=("features",))


def _grad_op(op_type, kernel, second=("gradients", "features"), attrs=None):
    """A ``<Op>Grad`` op ``(gradients, features|outputs) -> backprops``."""
    return OpDef(op_type, shape=merge_same_shape, dtype=same_dtype_in(REAL, second),
                 kernel=kernel, attrs=attrs, input_names=second)


def _zeros_of(x):
    return array_ops.zeros_like(x)


def _grad_attrs(grad_op, op):
    """The attrs ``grad_op`` declares (LeakyReluGrad's alpha), as ``op`` has them."""
    return {a: op.get_attr(a) for a in grad_op.attrs}


# TF's gradient rules for these take the op's output; the others', its input.
_GRAD_OF_OUTPUT = frozenset({"Relu", "Relu6", "Elu", "Selu"})


def _activation_grad(op, dy):
    """The gradient rule of an activation: its ``<Op>Grad(dy, x)``, ``x`` the op's input or
    (Relu, Relu6, Elu, Selu, as TF's rules) its output."""
    grad_op = REGISTRY[op.type + "Grad"]
    x = op.outputs[0] if op.type in _GRAD_OF_OUTPUT else op.inputs[0]
    return [grad_op.bind(dy, x, **_grad_attrs(grad_op, op))]


def _masked_grad_grad(op, ddy):
    """The gradient rule of a ``<Op>Grad`` that masks ``dy`` by the features (ReluGrad,
    Relu6Grad, LeakyReluGrad): the same mask of ``ddy``, and zeros for the features."""
    features = op.inputs[1]
    return [op.op_def.bind(ddy, features, **_grad_attrs(op.op_def, op)), _zeros_of(features)]


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


relu_op = _unary("Relu", _relu_kernel, REAL)
relu_grad_op = _grad_op("ReluGrad", _relu_grad_kernel)
relu_op.def_grad(_activation_grad)
relu_grad_op.def_grad(_masked_grad_grad)


def relu(features, name=None) -> Tensor:
    """``max(features, 0)``.

    >>> relu([-1.0, 2.0]).op.type
    'Relu'
    """
    return relu_op.bind(features, name=name)


# ── Relu6 / Relu6Grad ────────────────────────────────────────────────────────────────
def _relu6_kernel(x):
    return np.clip(x, x.dtype.type(0), x.dtype.type(6))


def _relu6_grad_kernel(dy, x):
    return np.multiply(dy, (x > 0) & (x < 6), dtype=dy.dtype)


relu6_op = _unary("Relu6", _relu6_kernel, REAL)
relu6_grad_op = _grad_op("Relu6Grad", _relu6_grad_kernel)
relu6_op.def_grad(_activation_grad)
relu6_grad_op.def_grad(_masked_grad_grad)


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
elu_op.def_grad(_activation_grad)


def _exp_linear_grad_grad(op, ddy):
    """The gradient rule of EluGrad and SeluGrad, from their outputs (the same for both)."""
    dy, y = op.inputs
    neg = math_ops.less(y, math_ops._const_like(0, y))
    return [op.op_def.bind(ddy, y), math_ops.where(neg, math_ops.multiply(ddy, dy), _zeros_of(dy))]


elu_grad_op.def_grad(_exp_linear_grad_grad)


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
selu_op.def_grad(_activation_grad)
selu_grad_op.def_grad(_exp_linear_grad_grad)


def selu(features, name=None) -> Tensor:
    """Scaled exponential linear unit: ``scale * elu(features, alpha)``.

    >>> selu([-1.0]).op.type
    'Selu'
    """
    return selu_op.bind(features, name=name)


# ── LeakyRelu / LeakyReluGrad ────────────────────────────────────────────────────────
def _leaky_relu_kernel(x, *, alpha):
    # alpha is TF's `float` attr, a float32: float64 inputs get 0.2f = 0.20000000298...
    if 0 <= alpha <= 1:
        return np.maximum(x, x * x.dtype.type(np.float32(alpha)))
    return np.where(x > 0, x, x * x.dtype.type(np.float32(alpha)))


def _leaky_relu_grad_kernel(dy, x, *, alpha):
    return np.where(x > 0, dy, dy * dy.dtype.type(np.float32(alpha)))


leaky_relu_op = OpDef("LeakyRelu", shape=same_shape, dtype=same_dtype_in(FLOATS),
                      kernel=_leaky_relu_kernel, attrs={"alpha": 0.2},
                      input_names=("features",))
leaky_relu_grad_op = _grad_op("LeakyReluGrad", _leaky_relu_grad_kernel, attrs={"alpha": 0.2})
leaky_relu_op.def_grad(_activation_grad)
leaky_relu_grad_op.def_grad(_masked_grad_grad)


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
def _softplus_kernel(x):
    return np.logaddexp(x, x.dtype.type(0))


def _softplus_grad_kernel(dy, x):
    return dy / (np.exp(-x) + x.dtype.type(1))


softplus_op = _unary("Softplus", _softplus_kernel)
softplus_grad_op = _grad_op("SoftplusGrad", _softplus_grad_kernel)
softplus_op.def_grad(_activation_grad)


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
def _softsign_kernel(x):
    return x / (np.abs(x) + x.dtype.type(1))


def _softsign_grad_kernel(dy, x):
    d = np.abs(x) + x.dtype.type(1)
    return dy / (d * d)


softsign_op = _unary("Softsign", _softsign_kernel)
softsign_grad_op = _grad_op("SoftsignGrad", _softsign_grad_kernel)
softsign_grad_op.grad = NO_GRADIENT  # TF registers none: a gradient through it raises
softsign_op.def_grad(_activation_grad)


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
    out = np.subtract(x, x.max(axis=-1, keepdims=True, initial=-np.inf))  # 0 classes: empty
    np.exp(out, out=out)
    out /= out.sum(axis=-1, keepdims=True)
    return out


def _log_softmax_kernel(x):
    out = np.subtract(x, x.max(axis=-1, keepdims=True, initial=-np.inf))  # 0 classes: empty
    lse = np.log(np.exp(out).sum(axis=-1, keepdims=True))
    out -= lse
    return out


softmax_op = OpDef("Softmax", shape=_logits_shape, dtype=same_dtype_in(FLOATS, ("logits",)),
                   kernel=_softmax_kernel, input_names=("logits",))
log_softmax_op = OpDef("LogSoftmax", shape=_logits_shape,
                       dtype=same_dtype_in(FLOATS, ("logits",)), kernel=_log_softmax_kernel,
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
