"""More of TF's python-level ``tf.nn`` functions built only from other ops (TF's ``nn_impl``,
``nn_ops`` and ``nn_impl_distribute``): crelu, swish/silu, relu_layer, xw_plus_b, the
weighted logistic and log-Poisson losses, the sufficient-statistics moments, weighted
moments, batch_norm_with_global_normalization and the replica-averaged losses.

No op types of their own: each builds TF's op sequence (same op types and names), so
values and gradients follow TensorFlow 2.21 (``tf.compat.v1.nn``). ``swish`` is TF's
``custom_gradient``: its output passes through an ``IdentityN`` whose gradient is
overridden by the rule ``swish_grad`` below, which ``scopeflow/api/nn.py`` registers under
``SWISH_GRADIENT`` (the gradient registry lives in autodiff, above this layer).
"""

from __future__ import annotations

import math

from scopeflow.framework import dtypes
from scopeflow.framework.graph import (
    control_dependencies,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.nn import nn_activation_ops
from scopeflow.ops.nn.conv_ops import bias_add
from scopeflow.ops.nn.nn_composites import batch_normalization

__all__ = ["crelu", "swish", "silu", "relu_layer", "xw_plus_b",
           "weighted_cross_entropy_with_logits", "log_poisson_loss", "sufficient_statistics",
           "normalize_moments", "weighted_moments", "batch_norm_with_global_normalization",
           "compute_average_loss", "scale_regularization_loss"]

SWISH_GRADIENT = "SwishCustomGradient"


def _lookup(new_name, new, old_name, old):
    """TF's ``deprecated_argument_lookup``: the new argument, or the old one (not both)."""
    if old is not None:
        if new is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return old
    return new


def crelu(features, name=None, axis=-1):
    """``relu(concat([x, -x], axis))``: keeps both phases of the activation.

    >>> crelu([1.0, -2.0]).op.type
    'Relu'
    """
    with name_scope(name, "CRelu", [features]) as name:
        features = convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name=name)
        return nn_activation_ops.relu(c)


def swish(features, beta=1.0):
    """``x * sigmoid(beta * x)``, with TF's custom gradient (for ``features`` and ``beta``).

    >>> swish([1.0]).op.type
    'IdentityN'
    """
    features = convert_to_tensor(features, name="features")
    beta = convert_to_tensor(beta, name="beta")
    beta = math_ops.cast(beta, features.dtype)
    y = features * math_ops.sigmoid(beta * features)
    with get_default_graph().gradient_override_map({"IdentityN": SWISH_GRADIENT}):
        return array_ops.identity_n([y, features, beta])[0]


silu = swish


def swish_grad(op, dy, *_unused):
    """TF's swish gradient: ``dy * s * (1 + b x (1 - s))`` for ``x``, and the sum of
    ``dy * x**2 * s * (1 - s)`` for ``beta``; none for the passed-through inputs."""
    _, features, beta = op.inputs
    with control_dependencies([dy]):
        sigmoid_features = math_ops.sigmoid(beta * features)
    activation_grad = sigmoid_features * (1.0 + beta * features * (1.0 - sigmoid_features))
    beta_grad = math_ops.reduce_sum(dy * math_ops.square(features) * sigmoid_features
                                    * (1.0 - sigmoid_features))
    return [None, dy * activation_grad, beta_grad]


def relu_layer(x, weights, biases, name=None):
    """``relu(matmul(x, weights) + biases)``.

    >>> relu_layer([[1.0]], [[2.0]], [0.5]).name
    'relu_layer:0'
    """
    with name_scope(name, "relu_layer", [x, weights, biases]) as name:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return nn_activation_ops.relu(bias_add(math_ops.matmul(x, weights), biases), name=name)


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases`` (a BiasAdd).

    >>> xw_plus_b([[1.0]], [[2.0]], [0.5]).name
    'xw_plus_b:0'
    """
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as name:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return bias_add(math_ops.matmul(x, weights), biases, name=name)


def _same_shape(labels, logits, what="logits"):
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"`{what}` and `{'labels' if what == 'logits' else 'targets'}` must "
                         f"have the same shape, received ({logits.shape} vs {labels.shape}).")


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """The logistic loss with positives weighted by ``pos_weight``:
    ``(1 - z) x + (1 + (q - 1) z) (log1p(exp(-|x|)) + relu(-x))``.

    >>> weighted_cross_entropy_with_logits([1.0], [0.0], 2.0).name
    'logistic_loss:0'
    """
    labels = _lookup("labels", labels, "targets", targets)
    with name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        _same_shape(labels, logits)
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits)))
                          + nn_activation_ops.relu(-logits)), name=name)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(c) - c * z`` (plus Stirling's ``z log z - z + log(2 pi z) / 2`` for ``z > 1``
    with ``compute_full_loss``).

    >>> log_poisson_loss([1.0], [0.0]).op.type
    'Sub'
    """
    with name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets.shape.is_compatible_with(log_input.shape):
            raise ValueError(f"`log_input` and `targets` must have the same shape, received "
                             f"({log_input.shape} vs {targets.shape}).")
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_op.constant(0.5, dtype=targets.dtype)
            two_pi = constant_op.constant(2 * math.pi, dtype=targets.dtype)
            stirling_approx = (targets * math_ops.log(targets) - targets
                               + point_five * math_ops.log(two_pi * targets))
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += math_ops.where(cond, zeros, stirling_approx)
        return result


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum(x - shift), sum((x - shift)**2), shift)`` over ``axes``; the count is a
    constant when those dims are static, else computed from ``shape(x)``.

    >>> sufficient_statistics([[1.0, 2.0]], [1])[0].op.type
    'Const'
    """
    axes = list(set(axes))
    keep_dims = bool(_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.as_tuple() if x.shape.ndims is not None else None
        if dims is not None and all(dims[d] is not None for d in axes):
            counts = 1
            for d in axes:
                counts *= dims[d]
            counts = constant_op.constant(counts, dtype=x.dtype)
        else:
            rank = array_ops.rank(x)
            positive_axes = [axis + rank if axis < 0 else axis for axis in axes]
            x_dims = array_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype), positive_axes)
            counts = math_ops.reduce_prod(x_dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss = x
            v_ss = math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=keep_dims, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=keep_dims, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from ``sufficient_statistics``' sums.

    >>> normalize_moments(2.0, 3.0, 5.0, None)[0].name
    'normalize/mean:0'
    """
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                     math_ops.square(shifted_mean), name="variance")
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """Frequency-weighted mean and variance over ``axes`` (0 where the weights sum to 0).

    >>> [t.op.type for t in weighted_moments([[1.0, 2.0]], [1], [[1.0, 3.0]])]
    ['Squeeze', 'Squeeze']
    """
    keep_dims = bool(_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes.float16
        if needs_cast:
            x = math_ops.cast(x, dtypes.float32)
        if frequency_weights.dtype != x.dtype:
            frequency_weights = math_ops.cast(frequency_weights, x.dtype)
        weighted_input_sum = math_ops.reduce_sum(frequency_weights * x, axes,
                                                 name="weighted_input_sum", keepdims=True)
        broadcasted_weights = frequency_weights + array_ops.zeros_like(x)
        sum_of_weights = math_ops.reduce_sum(broadcasted_weights, axes, name="sum_of_weights",
                                             keepdims=True)
        weighted_mean = math_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = math_ops.reduce_sum(
            frequency_weights * math_ops.squared_difference(x, weighted_mean), axes,
            name="weighted_distsq", keepdims=True)
        weighted_variance = math_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep_dims:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None, scale_after_normalization=None,
                                         name=None, input=None, mean=None,  # noqa: A002
                                         variance=None):
    """``batch_normalization`` with ``gamma`` applied only if ``scale_after_normalization``
    (TF1's old argument names ``t``/``m``/``v`` or ``input``/``mean``/``variance``).

    >>> batch_norm_with_global_normalization([1.0], 0.0, 1.0, 0.0, 1.0, 1e-3, True).op.type
    'AddV2'
    """
    t = _lookup("input", input, "t", t)
    m = _lookup("mean", mean, "m", m)
    v = _lookup("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size`` (0 for an empty batch);
    without a distribution strategy the global batch is the first dimension's size.

    >>> compute_average_loss([1.0, 2.0]).name
    'div_no_nan:0'
    """
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.ndims == 0:
        raise ValueError(f"Invalid value passed for `per_example_loss`. Expected a tensor with "
                         f"at least rank 1. Received per_example_loss={per_example_loss} with "
                         f"rank 0")
    if sample_weight is not None:
        sample_weight = convert_to_tensor(sample_weight)
        per_example_loss = math_ops.multiply(
            per_example_loss, math_ops.cast(sample_weight, per_example_loss.dtype))
    per_example_loss = math_ops.cast(per_example_loss, input_dtype)
    if global_batch_size is None:
        global_batch_size = array_ops.shape(per_example_loss)[0] * 1
    else:
        global_batch_size = convert_to_tensor(global_batch_size)
        if not global_batch_size.dtype.is_integer:
            raise TypeError("global_batch_size must be an integer.")
        if global_batch_size.shape.ndims not in (None, 0):
            raise ValueError("global_batch_size must be scalar.")
    loss = math_ops.reduce_sum(per_example_loss)
    global_batch_size = math_ops.cast(global_batch_size, input_dtype)
    return math_ops.div_no_nan(loss, global_batch_size)


def scale_regularization_loss(regularization_loss):
    """The summed ``regularization_loss`` divided by the replica count (1 here).

    >>> scale_regularization_loss(3.0).name
    'truediv:0'
    """
    return math_ops.reduce_sum(regularization_loss) / 1
