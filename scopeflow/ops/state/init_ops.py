"""TF1's initializers: callables ``init(shape, dtype=None, partition_info=None) -> Tensor``.

Each builds the same ops as TF1 (``v/Initializer/random_uniform/...`` inside a variable),
so names and, through the random kernels, values match TensorFlow.
"""

from __future__ import annotations

import math

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.ops import array_ops, constant_op, math_ops
from scopeflow.ops.linalg.decomposition_ops import qr
from scopeflow.ops.linalg.diag_ops import diag_part, matrix_transpose
from scopeflow.ops.linalg.matrix_function_ops import eye
from scopeflow.ops.random import random_ops

__all__ = [
    "Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal",
    "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal",
    "zeros_initializer", "ones_initializer", "constant_initializer",
    "random_uniform_initializer", "random_normal_initializer", "truncated_normal_initializer",
    "variance_scaling_initializer", "glorot_uniform_initializer", "glorot_normal_initializer",
    "he_normal", "he_uniform", "lecun_normal", "lecun_uniform", "Orthogonal",
    "orthogonal_initializer", "UniformUnitScaling", "uniform_unit_scaling_initializer",
    "Identity", "identity_initializer",
]

# Above this many elements TF builds ``Fill`` instead of a ``Const`` for zeros/ones.
_SMALL_CONSTANT = 1000


def _assert_float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


class Initializer:
    """Base class: ``__call__(shape, dtype=None, partition_info=None) -> Tensor``."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments, as a JSON-serialisable dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """Rebuilds an initializer from ``get_config()``'s dict."""
        return cls(**config)


class _Fill(Initializer):
    """One value everywhere: ``_fill`` (``array_ops.zeros``, ``ones``) of the shape."""

    _fill = None

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return type(self)._fill(shape, dtypes.as_dtype(dtype or self.dtype))

    def get_config(self):
        return {"dtype": self.dtype.name}


class Zeros(_Fill):
    """All zeros.

    >>> Zeros()([2, 3]).op.name
    'zeros'
    """

    _fill = staticmethod(array_ops.zeros)


class Ones(_Fill):
    """All ones."""

    _fill = staticmethod(array_ops.ones)


class Constant(Initializer):
    """A constant: a scalar fills the shape; a list or array is reshaped (padded with its
    last element unless ``verify_shape``).

    >>> Constant([1.0, 2.0])([2, 2]).op.type
    'Const'
    """

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value)} (expected Python "
                            "scalar, list or tuple of values, or numpy.ndarray).")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=dtypes.as_dtype(dtype or self.dtype),
                                    shape=shape, verify_shape=verify_shape)

    def get_config(self):
        # NOTE: as TF, verify_shape is left out (Keras compatibility).
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Uniform values in ``[minval, maxval)`` (``maxval=None``: 1 for floats)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval,
                                         dtypes.as_dtype(dtype or self.dtype), seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Normal values with ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev,
                                        dtypes.as_dtype(dtype or self.dtype), seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal values redrawn until within two ``stddev`` of ``mean``."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev,
                                           dtypes.as_dtype(dtype or self.dtype), seed=self.seed)


def _compute_fans(shape):
    """(fan_in, fan_out) of a weight shape; conv kernels multiply by the receptive field."""
    shape = [int(d) for d in shape]
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field_size = math.prod(shape[:-2])
        fan_in = shape[-2] * receptive_field_size
        fan_out = shape[-1] * receptive_field_size
    return int(fan_in), int(fan_out)


# Standard deviation of the standard normal truncated to [-2, 2]
# (scipy.stats.truncnorm.std(a=-2, b=2)), as TF.
_TRUNCATED_STDDEV = 0.87962566103423978
_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("normal", "uniform", "truncated_normal", "untruncated_normal")


class VarianceScaling(Initializer):
    """Values with variance ``scale / n``, ``n`` the fan-in, fan-out or their mean.

    ``distribution``: ``"truncated_normal"`` (or TF1's alias ``"normal"``: stddev divided by
    0.8796 to undo the truncation), ``"untruncated_normal"`` or ``"uniform"`` (within
    ``sqrt(3 * scale / n)``).

    >>> VarianceScaling(2.0, "fan_in", "uniform")([4, 8]).op.name
    'random_uniform'
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in _MODES:
            raise ValueError(f"Invalid `mode` argument: {mode!r}; expected one of {_MODES}")
        distribution = distribution.lower()
        if distribution not in _DISTRIBUTIONS:
            raise ValueError(f"Invalid `distribution` argument: {distribution!r}; expected one "
                             f"of {_DISTRIBUTIONS}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        scale_shape = shape if partition_info is None else partition_info.full_shape
        fan_in, fan_out = _compute_fans(scale_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, n[self.mode])
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype,
                                            seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Xavier uniform: within ``sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Xavier normal: truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """A random orthogonal matrix (rows or columns orthonormal), reshaped to ``shape``
    (all but the last dimension flattened), times ``gain``: TF's QR of a normal sample with
    ``q`` made unique by the signs of ``r``'s diagonal, so values follow TF's random stream.
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = list(shape.as_list() if hasattr(shape, "as_list") else shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must "
                             f"be at least two-dimensional. Received shape={shape}")
        num_rows = int(np.prod(shape[:-1]))
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = qr(a, full_matrices=False)
        q *= math_ops.sign(diag_part(r))
        if num_rows < num_cols:
            q = matrix_transpose(q)
        return self.gain * array_ops.reshape(q, shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """TF1's deprecated scale-preserving uniform: within ``factor * sqrt(3 / n)``, ``n`` the
    product of all but the last dimension (of the full shape for a partitioned variable)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = 1.0
        for dim in list(scale_shape)[:-1]:
            input_size *= float(dim)
        max_val = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D variables only; a partitioned variable gets
    its slice of the full one), built as TF builds it (``eye``)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = shape if partition_info is None else partition_info.full_shape
        full_shape = list(full_shape.as_list() if hasattr(full_shape, "as_list")
                          else full_shape)
        if len(full_shape) != 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must "
                             f"be at least two-dimensional. Received shape={shape}")
        dtype = dtypes.as_dtype(dtype or self.dtype)
        initializer = eye(*full_shape, dtype=dtype)
        if partition_info is not None:
            initializer = array_ops.slice(initializer, partition_info.var_offset, shape)
        return self.gain * initializer

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
uniform_unit_scaling_initializer = UniformUnitScaling
identity_initializer = Identity


def he_normal(seed=None, dtype=dtypes.float32) -> VarianceScaling:
    """He normal: truncated normal with stddev ``sqrt(2 / fan_in)``."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed, dtype)


def he_uniform(seed=None, dtype=dtypes.float32) -> VarianceScaling:
    """He uniform: within ``sqrt(6 / fan_in)``."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed, dtype)


def lecun_normal(seed=None, dtype=dtypes.float32) -> VarianceScaling:
    """LeCun normal: truncated normal with stddev ``sqrt(1 / fan_in)``."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed, dtype)


def lecun_uniform(seed=None, dtype=dtypes.float32) -> VarianceScaling:
    """LeCun uniform: within ``sqrt(3 / fan_in)``."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed, dtype)
