"""nn functions built only from other ops (TF's ``nn_impl``): the logistic loss, dropout,
moments, batch normalization and l2_normalize.

No op types of their own: each builds TF's op sequence, so graphs, op names, values and
gradients follow TensorFlow 2.21 with TF1 semantics (``tf.compat.v1.nn``).
"""

from __future__ import annotations

import numbers

from scopeflow.framework import dtypes, random_seed
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.random import random_ops

__all__ = ["sigmoid_cross_entropy_with_logits", "dropout", "moments", "batch_normalization",
           "l2_normalize"]


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


# ── dropout (built from ops, as TF 2.21's _dropout) ──────────────────────────────────
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
        ret = math_ops.where_v2(keep_mask, ret, constant_op.constant(0, dtype=x_dtype))
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
        # Python operators, as TF's: ops add, Rsqrt, mul, mul_1, mul_2, sub, add_1.
        # A NumPy variance adds its epsilon in NumPy (one op fewer), as in TF.
        if isinstance(variance, (list, tuple)):
            variance = convert_to_tensor(variance)
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, x.dtype)


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
