"""``tf.keras.activations``: activation functions found by name (``'relu'``)."""

from __future__ import annotations

from scopeflow.keras import backend as K
from scopeflow.keras.utils.generic_utils import deserialize_keras_object
from scopeflow.ops import math_ops, nn_ops

__all__ = ["linear", "relu", "elu", "selu", "softmax", "softplus", "softsign", "sigmoid",
           "hard_sigmoid", "tanh", "exponential", "get", "serialize", "deserialize"]


def softmax(x, axis=-1):
    """Softmax over ``axis``; a 2-D input gives one ``Softmax`` op."""
    ndim = x.shape.ndims
    if ndim == 2:
        return nn_ops.softmax(x)
    if ndim is not None and ndim > 2:
        e = math_ops.exp(x - math_ops.reduce_max(x, axis=axis, keepdims=True))
        return e / math_ops.reduce_sum(e, axis=axis, keepdims=True)
    raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")


def elu(x, alpha=1.0):
    return K.elu(x, alpha)


def selu(x):
    return nn_ops.selu(x)


def softplus(x):
    return nn_ops.softplus(x)


def softsign(x):
    return nn_ops.softsign(x)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    return K.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


def tanh(x):
    return math_ops.tanh(x)


def sigmoid(x):
    return math_ops.sigmoid(x)


def exponential(x):
    return math_ops.exp(x)


def hard_sigmoid(x):
    return K.hard_sigmoid(x)


def linear(x):
    return x


_BY_NAME = {f.__name__: f for f in (linear, relu, elu, selu, softmax, softplus, softsign,
                                    sigmoid, hard_sigmoid, tanh, exponential)}


def serialize(activation):
    name = getattr(activation, "__name__", None)
    if name in _BY_NAME:
        return name
    raise ValueError(f"Unknown activation function {activation}")


def deserialize(name, custom_objects=None):
    return deserialize_keras_object(name, module_objects=_BY_NAME,
                                    custom_objects=custom_objects,
                                    printable_module_name="activation function")


def get(identifier):
    """``linear`` for ``None``, the function a name names, or a callable itself."""
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")
