"""``tf.keras.losses``: Keras's per-sample loss functions (reduced over the last axis),
found by name (``'mse'``, ``'categorical_crossentropy'``)."""

from __future__ import annotations

from scopeflow.framework.graph import convert_to_tensor
from scopeflow.keras import backend as K
from scopeflow.keras.utils.generic_utils import deserialize_keras_object
from scopeflow.ops import math_ops, nn_ops

__all__ = ["mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
           "mean_squared_logarithmic_error", "squared_hinge", "hinge", "categorical_hinge",
           "logcosh", "categorical_crossentropy", "sparse_categorical_crossentropy",
           "binary_crossentropy", "kullback_leibler_divergence", "poisson",
           "cosine_proximity", "mse", "mae", "mape", "msle", "kld", "cosine", "get",
           "serialize", "deserialize"]


def _pair(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype.base_dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(math_ops.squared_difference(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(math_ops.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = math_ops.abs((y_true - y_pred) / K.maximum(math_ops.abs(y_true), K.epsilon()))
    return 100.0 * K.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    first = math_ops.log(K.maximum(y_pred, K.epsilon()) + 1.0)
    second = math_ops.log(K.maximum(y_true, K.epsilon()) + 1.0)
    return K.mean(math_ops.squared_difference(first, second), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(math_ops.square(math_ops.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(math_ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    pos = math_ops.reduce_sum(y_true * y_pred, axis=-1)
    neg = math_ops.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return math_ops.maximum(0.0, neg - pos + 1.0)


def logcosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return K.mean(x + nn_ops.softplus(-2.0 * x) - math_ops.log(2.0), axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        classes = math_ops.cast(array_shape_last(y_true), y_pred.dtype.base_dtype)
        y_true = y_true * (1.0 - label_smoothing) + (label_smoothing / classes)
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def array_shape_last(x):
    from_static = x.shape[-1].value
    return from_static if from_static is not None else K.shape(x)[-1]


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits,
                                             axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return K.mean(K.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1)


def kullback_leibler_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = K.clip(y_true, K.epsilon(), 1)
    y_pred = K.clip(y_pred, K.epsilon(), 1)
    return math_ops.reduce_sum(y_true * math_ops.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(y_pred - y_true * math_ops.log(y_pred + K.epsilon()), axis=-1)


def cosine_proximity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = nn_ops.l2_normalize(y_true, axis)
    y_pred = nn_ops.l2_normalize(y_pred, axis)
    return -math_ops.reduce_sum(y_true * y_pred, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine = cosine_proximity

_BY_NAME = {f.__name__: f for f in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, squared_hinge, hinge, categorical_hinge, logcosh,
    categorical_crossentropy, sparse_categorical_crossentropy, binary_crossentropy,
    kullback_leibler_divergence, poisson, cosine_proximity)}
_BY_NAME.update({"mse": mse, "MSE": mse, "mae": mae, "MAE": mae, "mape": mape, "MAPE": mape,
                 "msle": msle, "MSLE": msle, "kld": kld, "KLD": kld, "cosine": cosine})


def serialize(loss):
    return loss.__name__


def deserialize(name, custom_objects=None):
    return deserialize_keras_object(name, module_objects=_BY_NAME,
                                    custom_objects=custom_objects,
                                    printable_module_name="loss function")


def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")
