"""``tf.keras.metrics``: Keras's per-sample metric functions (``accuracy`` and its binary,
categorical and sparse forms, top-k) and the loss functions as metrics; ``compile``
averages them over each epoch's samples."""

from __future__ import annotations

from scopeflow.framework.graph import convert_to_tensor
from scopeflow.keras import backend as K
from scopeflow.keras.losses import (  # noqa: F401 - the losses are metrics too
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_proximity,
    hinge,
    kullback_leibler_divergence,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)
from scopeflow.keras.utils.generic_utils import deserialize_keras_object
from scopeflow.ops import array_ops, math_ops, nn_ops

__all__ = ["binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
           "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "accuracy",
           "mean_squared_error", "mean_absolute_error", "mse", "mae", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "get", "serialize",
           "deserialize"]


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = convert_to_tensor(y_pred)
    threshold = math_ops.cast(threshold, y_pred.dtype.base_dtype)
    y_pred = math_ops.cast(y_pred > threshold, y_pred.dtype.base_dtype)
    y_true = math_ops.cast(y_true, y_pred.dtype.base_dtype)
    return K.mean(math_ops.equal(y_true, y_pred), axis=-1)


def categorical_accuracy(y_true, y_pred):
    return math_ops.cast(math_ops.equal(math_ops.argmax(y_true, -1),
                                        math_ops.argmax(y_pred, -1)), K.floatx())


def sparse_categorical_accuracy(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = convert_to_tensor(y_true)
    if y_true.shape.ndims is not None and y_pred.shape.ndims is not None and \
            y_true.shape.ndims == y_pred.shape.ndims:
        y_true = array_ops.squeeze(y_true, [-1])
    y_pred = math_ops.argmax(y_pred, -1)
    if y_pred.dtype.base_dtype != y_true.dtype.base_dtype:
        y_pred = math_ops.cast(y_pred, y_true.dtype.base_dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), K.floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return math_ops.cast(nn_ops.in_top_k(y_pred, math_ops.argmax(y_true, -1), k), K.floatx())


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_true = convert_to_tensor(y_true)
    if y_true.shape.ndims == y_pred.shape.ndims:
        y_true = array_ops.squeeze(y_true, [-1])
    return math_ops.cast(nn_ops.in_top_k(y_pred, math_ops.cast(y_true, "int32"), k),
                         K.floatx())


def accuracy(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    y_true = math_ops.cast(y_true, y_pred.dtype.base_dtype)
    return math_ops.cast(math_ops.equal(y_true, y_pred), K.floatx())


acc = accuracy

_BY_NAME = {f.__name__: f for f in (
    binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, accuracy,
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, squared_hinge, hinge, categorical_hinge, logcosh,
    categorical_crossentropy, sparse_categorical_crossentropy, binary_crossentropy,
    kullback_leibler_divergence, poisson, cosine_proximity)}
_BY_NAME.update({"mse": mse, "mae": mae, "mape": mape, "msle": msle, "acc": accuracy,
                 "cosine": cosine_proximity})


def serialize(metric):
    return metric.__name__


def deserialize(name, custom_objects=None):
    return deserialize_keras_object(name, module_objects=_BY_NAME,
                                    custom_objects=custom_objects,
                                    printable_module_name="metric function")


def get(identifier):
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric function identifier: {identifier}")
