"""Keras's advanced activation layers: ``LeakyReLU``, ``PReLU``, ``ELU``,
``ThresholdedReLU``, ``Softmax`` and ``ReLU`` (tf_keras ``layers/activation``), built from
``tf.nn``'s ops as Keras's backend builds them."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.keras import constraints, initializers, regularizers
from scopeflow.keras.engine.base_layer import Layer
from scopeflow.ops import math_ops
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math import reduction_ops
from scopeflow.ops.nn import nn_activation_ops as nn

__all__ = ["LeakyReLU", "PReLU", "ELU", "ThresholdedReLU", "Softmax", "ReLU"]


def _floatx(value):
    """``value`` rounded to float32, as Keras's ``cast_to_floatx`` stores it (its config
    then reads ``0.30000001192092896`` for 0.3)."""
    return float(np.float32(value))


def _merged_config(layer, config):
    base = Layer.get_config(layer)
    base.update(config)
    return base


def keras_relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Keras's ``backend.relu``: leaky below ``threshold`` (slope ``alpha``), clipped at
    ``max_value``; the same ops Keras builds for each combination."""
    dtype = x.dtype.base_dtype
    negative_part = None
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return nn.leaky_relu(x, alpha=alpha)
        negative_part = nn.relu(-x + threshold) if threshold != 0 else nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = x * math_ops.cast(math_ops.greater(x, threshold), dtype)
    elif max_value == 6:
        x = nn.relu6(x)
        clip_max = False
    else:
        x = nn.relu(x)
    if clip_max:
        x = math_ops.clip_by_value(x, constant(0, dtype), constant(max_value, dtype))
    if negative_part is not None:
        x -= constant(alpha, dtype) * negative_part
    return x


# ── LeakyReLU ────────────────────────────────────────────────────────────────────────
class LeakyReLU(Layer):
    """``f(x) = alpha * x`` for ``x < 0``, ``x`` otherwise (op ``LeakyRelu``)."""

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError("The alpha value of a Leaky ReLU layer cannot be None, "
                             f"needs a float. Got {alpha}")
        self.supports_masking = True
        self.alpha = _floatx(alpha)

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.alpha)

    def get_config(self):
        return _merged_config(self, {"alpha": self.alpha})

    def compute_output_shape(self, input_shape):
        return input_shape


# ── PReLU ────────────────────────────────────────────────────────────────────────────
class PReLU(Layer):
    """``f(x) = alpha * x`` for ``x < 0`` with a learned ``alpha`` per input element (weight
    ``alpha``, one value along each of ``shared_axes``)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        param_shape = list(_dims(input_shape)[1:])
        if self.shared_axes is not None:
            for i in self.shared_axes:
                param_shape[i - 1] = 1
        self.alpha = self.add_weight(
            name="alpha", shape=param_shape, initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs):
        pos = nn.relu(inputs)
        neg = -self.alpha * nn.relu(-inputs)
        return pos + neg

    def get_config(self):
        return _merged_config(self, {
            "alpha_initializer": initializers.serialize(self.alpha_initializer),
            "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
            "alpha_constraint": constraints.serialize(self.alpha_constraint),
            "shared_axes": self.shared_axes})

    def compute_output_shape(self, input_shape):
        return input_shape


# ── ELU ──────────────────────────────────────────────────────────────────────────────
class ELU(Layer):
    """``f(x) = alpha * (exp(x) - 1)`` for ``x < 0``, ``x`` otherwise (op ``Elu``, then a
    ``Select`` when ``alpha != 1``)."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError("Alpha of an ELU layer cannot be None, requires a float. "
                             f"Got {alpha}")
        self.supports_masking = True
        self.alpha = float(alpha)

    def call(self, inputs):
        res = nn.elu(inputs)
        if self.alpha == 1:
            return res
        return reduction_ops.where(inputs > 0, res, self.alpha * res)

    def get_config(self):
        return _merged_config(self, {"alpha": self.alpha})

    def compute_output_shape(self, input_shape):
        return input_shape


# ── ThresholdedReLU ──────────────────────────────────────────────────────────────────
class ThresholdedReLU(Layer):
    """``f(x) = x`` for ``x > theta``, ``0`` otherwise."""

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError("Theta of a Thresholded ReLU layer cannot be None, requires a "
                             f"float. Got {theta}")
        if theta < 0:
            raise ValueError("The theta value of a Thresholded ReLU layer should be >=0, "
                             f"got {theta}")
        self.supports_masking = True
        self.theta = _floatx(theta)

    def call(self, inputs):
        dtype = inputs.dtype.base_dtype
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta), dtype)

    def get_config(self):
        return _merged_config(self, {"theta": self.theta})

    def compute_output_shape(self, input_shape):
        return input_shape


# ── Softmax ──────────────────────────────────────────────────────────────────────────
class Softmax(Layer):
    """Softmax over ``axis`` (an int, or a list of axes: ``exp(x - logsumexp(x))``); a
    ``mask`` (1 keeps, 0 drops) adds ``-1e9`` to the dropped logits first, as Keras."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            adder = (1.0 - math_ops.cast(mask, inputs.dtype)) * (
                _large_negative(inputs.dtype))
            inputs += adder
        if isinstance(self.axis, (tuple, list)):
            if len(self.axis) > 1:
                return math_ops.exp(inputs - math_ops.reduce_logsumexp(
                    inputs, axis=list(self.axis), keepdims=True))
            return nn.softmax(inputs, axis=self.axis[0])
        return nn.softmax(inputs, axis=self.axis)

    def get_config(self):
        return _merged_config(self, {"axis": self.axis})

    def compute_output_shape(self, input_shape):
        return input_shape


def _large_negative(dtype):
    return -65500.0 if dtype == dtypes.float16 else -1e9


# ── ReLU ─────────────────────────────────────────────────────────────────────────────
class ReLU(Layer):
    """``max_value``-clipped, ``threshold``-shifted leaky ReLU (Keras's ``backend.relu``)."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError("max_value of a ReLU layer cannot be a negative value. "
                             f"Got: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError("negative_slope of a ReLU layer cannot be a negative value. "
                             f"Got: {negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError("threshold of a ReLU layer cannot be a negative value. "
                             f"Got: {threshold}")
        self.supports_masking = True
        self.max_value = None if max_value is None else _floatx(max_value)
        self.negative_slope = _floatx(negative_slope)
        self.threshold = _floatx(threshold)

    def call(self, inputs):
        return keras_relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                          threshold=self.threshold)

    def get_config(self):
        return _merged_config(self, {"max_value": self.max_value,
                                     "negative_slope": self.negative_slope,
                                     "threshold": self.threshold})

    def compute_output_shape(self, input_shape):
        return input_shape


def _dims(shape):
    """A shape (TensorShape, list or tuple) as a list of ints and Nones."""
    return TensorShape(shape).as_list()
