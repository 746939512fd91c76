"""tf.signal's windows: hann, hamming (raised cosines), vorbis, and kaiser and
kaiser_bessel_derived when the BesselI0e op is registered. Composites of existing ops,
built as TF builds them (so a symmetric/periodic choice may be a tensor)."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.math.arithmetic_ops import cast, equal, floormod, range
from scopeflow.ops.math.elementwise_ops import cos, pow, sin
from scopeflow.ops.math.reduction_ops import ones

__all__ = ["hann_window", "hamming_window", "vorbis_window"]


def _check_params(window_length, dtype):
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    window_length = convert_to_tensor(window_length, dtype=dtypes.int32)
    window_length.shape.assert_has_rank(0)
    return window_length


def _raised_cosine_window(name, default_name, window_length, periodic, dtype, a, b):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with name_scope(name, default_name, [window_length, periodic]):
        window_length = convert_to_tensor(window_length, dtype=dtypes.int32,
                                          name="window_length")
        window_length.shape.assert_has_rank(0)
        length = constant_value(window_length)
        if length is not None and int(length) == 1:
            return ones([1], dtype=dtype)
        periodic = cast(convert_to_tensor(periodic, dtype=dtypes.bool_, name="periodic"),
                        dtypes.int32)
        periodic.shape.assert_has_rank(0)
        even = 1 - floormod(window_length, 2)
        n = cast(window_length + periodic * even - 1, dtype=dtype)
        count = cast(range(window_length), dtype)
        cos_arg = constant(2 * np.pi, dtype=dtype) * count / n
        if length is not None:
            return cast(a - b * cos(cos_arg), dtype=dtype)
        return cond(equal(window_length, 1), lambda: ones([window_length], dtype=dtype),
                    lambda: cast(a - b * cos(cos_arg), dtype=dtype))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """``0.5 - 0.5 cos(2 pi n / N)``; ``N`` is the length (periodic) or length - 1."""
    return _raised_cosine_window(name, "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None) -> Tensor:
    """``0.54 - 0.46 cos(2 pi n / N)``; ``N`` is the length (periodic) or length - 1."""
    return _raised_cosine_window(name, "hamming_window", window_length, periodic, dtype,
                                 0.54, 0.46)


def vorbis_window(window_length, dtype=dtypes.float32, name=None) -> Tensor:
    """The Vorbis power-complementary window ``sin(pi/2 sin^2(pi (n + 1/2) / N))`` (MDCT's
    default: its squares overlap-add to one at half-frame hops)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "vorbis_window"):
        window_length = _check_params(window_length, dtype)
        arg = cast(range(window_length), dtype=dtype)
        return sin(np.pi / 2.0 * pow(sin(np.pi / cast(window_length, dtype=dtype)
                                         * (arg + 0.5)), 2.0))
