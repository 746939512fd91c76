"""tf.signal's windows: hann, hamming (raised cosines), vorbis, kaiser and
kaiser_bessel_derived (on the BesselI0e op of ops/math, looked up by type). Composites of
existing ops, built as TF builds them (so a symmetric/periodic choice may be a tensor)."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import REGISTRY
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.math.arithmetic_ops import cast, equal, floormod, range
from scopeflow.ops.math.elementwise_ops import cos, exp, pow, sin, sqrt, square
from scopeflow.ops.math.reduction_ops import ones
from scopeflow.ops.math.scan_ops import cumsum
from scopeflow.ops.nn.nn_activation_ops import relu

__all__ = ["hann_window", "hamming_window", "vorbis_window", "kaiser_window",
           "kaiser_bessel_derived_window"]


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


def _bessel_i0e(x):
    """``exp(-|x|) I0(x)`` as TF's ``special_math_ops.bessel_i0e`` builds it."""
    op_def = REGISTRY.get("BesselI0e")
    if op_def is None:  # ops/math/bessel_ops.py declares it; without it there is no kaiser
        raise NotImplementedError("kaiser windows need the BesselI0e op (tf.math.bessel_i0e)")
    with name_scope(None, "bessel_i0e", [x]):
        return op_def.bind(x)


def kaiser_window(window_length, beta=12., dtype=dtypes.float32, name=None) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)`` (numpy's
    ``kaiser``), through the exponentially scaled I0 so large ``beta`` stays finite."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "kaiser_window"):
        window_length = _check_params(window_length, dtype)
        length = constant_value(window_length)
        if length is not None and int(length) == 1:
            return ones([1], dtype=dtype)
        halflen_float = (cast(window_length, dtype=dtypes.float32) - 1.0) / 2.0
        arg = range(-halflen_float, halflen_float + 0.1, dtype=dtypes.float32)
        arg = cast(arg, dtype=dtype)
        beta = cast(beta, dtype=dtype)
        one = cast(1.0, dtype=dtype)
        halflen_float = cast(halflen_float, dtype=dtype)
        num = beta * sqrt(relu(one - square(arg / halflen_float)))
        window = exp(num - beta) * (_bessel_i0e(num) / _bessel_i0e(beta))
        if length is not None:
            # TF's shape inference folds the Range's constant float bounds; ours reads
            # only constants, so the known length is set here.
            window.set_shape([int(length)])
        return window


def kaiser_bessel_derived_window(window_length, beta=12., dtype=dtypes.float32,
                                 name=None) -> Tensor:
    """The Kaiser-Bessel-derived window (AAC's MDCT window): square roots of the normalised
    running sums of a Kaiser window of half the length, mirrored."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "kaiser_bessel_derived_window"):
        window_length = _check_params(window_length, dtype)
        halflen = window_length // 2
        kaiserw = kaiser_window(halflen + 1, beta, dtype=dtype)
        csum = cumsum(kaiserw)
        halfw = sqrt(csum[:-1] / csum[-1])
        window = concat((halfw, halfw[::-1]), axis=0)
        length = constant_value(window_length)
        if length is not None:  # as TF's shape inference folds it
            window.set_shape([2 * (int(length) // 2)])
        return window
