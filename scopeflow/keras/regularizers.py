"""``tf.keras.regularizers``: ``L1L2`` and its shorthands."""

from __future__ import annotations

from scopeflow.keras import backend as K
from scopeflow.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object
from scopeflow.ops import math_ops

__all__ = ["Regularizer", "L1L2", "L1", "L2",
           "l1", "l2", "l1_l2", "get", "serialize", "deserialize"]


class Regularizer:
    """A penalty on a weight: ``__call__(x) -> scalar tensor``."""

    def __call__(self, x):
        return 0.0

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = K.cast_to_floatx(l1)
        self.l2 = K.cast_to_floatx(l2)

    def __call__(self, x):
        if not self.l1 and not self.l2:
            return K.constant(0.0)
        regularization = 0.0
        if self.l1:
            regularization += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            regularization += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        return regularization

    def get_config(self):
        return {"l1": float(self.l1), "l2": float(self.l2)}


class L1(Regularizer):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1=0.01, **kwargs):
        l1 = kwargs.pop("l", l1)
        self.l1 = K.cast_to_floatx(l1)

    def __call__(self, x):
        return self.l1 * math_ops.reduce_sum(math_ops.abs(x))

    def get_config(self):
        return {"l1": float(self.l1)}


class L2(Regularizer):
    """``l2 * sum(x ** 2)``."""

    def __init__(self, l2=0.01, **kwargs):
        l2 = kwargs.pop("l", l2)
        self.l2 = K.cast_to_floatx(l2)

    def __call__(self, x):
        return self.l2 * math_ops.reduce_sum(math_ops.square(x))

    def get_config(self):
        return {"l2": float(self.l2)}


def l1(l=0.01):  # noqa: E741 - Keras's name
    return L1(l1=l)


def l2(l=0.01):  # noqa: E741 - Keras's name
    return L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):  # noqa: F811
    return L1L2(l1=l1, l2=l2)


_BY_NAME = {"Regularizer": Regularizer, "L1L2": L1L2, "L1": L1, "L2": L2,
            "l1": l1, "l2": l2, "l1_l2": l1_l2}


def serialize(regularizer):
    return serialize_keras_object(regularizer)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, module_objects=_BY_NAME,
                                    custom_objects=custom_objects,
                                    printable_module_name="regularizer")


def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}})
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
