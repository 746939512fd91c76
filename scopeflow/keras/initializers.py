"""``tf.keras.initializers`` (TF1's, as TF 1.15's Keras uses them in graph mode): TF's
``init_ops`` classes with Keras's defaults (``RandomNormal``'s stddev 0.05...), found by
name (``'glorot_uniform'``) or config."""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.keras.utils.generic_utils import deserialize_keras_object, serialize_keras_object
from scopeflow.ops.state import init_ops
from scopeflow.ops.state.init_ops import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    Identity,
    Initializer,
    Ones,
    Orthogonal,
    VarianceScaling,
    Zeros,
)

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform",
           "TruncatedNormal", "VarianceScaling", "Orthogonal", "Identity", "GlorotUniform",
           "GlorotNormal", "glorot_uniform", "glorot_normal", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "zeros", "ones", "constant", "random_normal",
           "random_uniform", "truncated_normal", "orthogonal", "identity", "get", "serialize",
           "deserialize"]


class RandomNormal(init_ops.RandomNormal):
    """Normal values, ``mean=0.0, stddev=0.05`` by default (Keras's)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


class RandomUniform(init_ops.RandomUniform):
    """Uniform values in ``[-0.05, 0.05)`` by default (Keras's)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(minval=minval, maxval=maxval, seed=seed, dtype=dtype)


class TruncatedNormal(init_ops.TruncatedNormal):
    """Truncated normal values, ``stddev=0.05`` by default (Keras's)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


def _variance(scale, mode, distribution):
    def make(seed=None):
        return VarianceScaling(scale=scale, mode=mode, distribution=distribution, seed=seed)
    return make


he_normal = _variance(2.0, "fan_in", "truncated_normal")
he_uniform = _variance(2.0, "fan_in", "uniform")
lecun_normal = _variance(1.0, "fan_in", "truncated_normal")
lecun_uniform = _variance(1.0, "fan_in", "uniform")
he_normal.__name__, he_uniform.__name__ = "he_normal", "he_uniform"
lecun_normal.__name__, lecun_uniform.__name__ = "lecun_normal", "lecun_uniform"

zeros = Zeros
ones = Ones
constant = Constant
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
orthogonal = Orthogonal
identity = Identity
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal

_BY_NAME = {
    "Zeros": Zeros, "Ones": Ones, "Constant": Constant, "RandomNormal": RandomNormal,
    "RandomUniform": RandomUniform, "TruncatedNormal": TruncatedNormal,
    "VarianceScaling": VarianceScaling, "Orthogonal": Orthogonal, "Identity": Identity,
    "GlorotUniform": GlorotUniform, "GlorotNormal": GlorotNormal,
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "orthogonal": Orthogonal, "identity": Identity, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "he_normal": he_normal, "he_uniform": he_uniform,
    "lecun_normal": lecun_normal, "lecun_uniform": lecun_uniform,
    "uniform": RandomUniform, "normal": RandomNormal,
}


def serialize(initializer):
    return serialize_keras_object(initializer)


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, module_objects=_BY_NAME,
                                    custom_objects=custom_objects,
                                    printable_module_name="initializer")


def get(identifier):
    """An initializer from a name (``'glorot_uniform'``), a config dict, or itself."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        obj = deserialize(identifier)
        return obj() if isinstance(obj, type) or obj in (he_normal, he_uniform, lecun_normal,
                                                          lecun_uniform) else obj
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")
