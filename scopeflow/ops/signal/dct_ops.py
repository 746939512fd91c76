"""DCTs of types I-IV over the innermost axis (``dct``, ``idct``), built as TF builds
them from RFFT/IRFFT with twiddle factors, so their gradients are the FFTs'."""

from __future__ import annotations

import builtins
import math

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import dimension_value
from scopeflow.ops.array.shape_ops import expand_dims, shape
from scopeflow.ops.array.slicing_ops import concat, pad
from scopeflow.ops.math.arithmetic_ops import cast, range
from scopeflow.ops.math.elementwise_ops import exp, rsqrt, sqrt
from scopeflow.ops.signal.complex_ops import complex, real
from scopeflow.ops.signal.fft_ops import irfft, rfft

__all__ = ["dct", "idct"]


def _validate_dct_arguments(input_tensor, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        last = dimension_value(convert_to_tensor(input_tensor).shape[-1]) \
            if convert_to_tensor(input_tensor).shape.ndims else None
        if last is not None and last < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _dct_internal(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    with name_scope(name, "dct", [input]):
        input = convert_to_tensor(input)
        zero = convert_to_tensor(0.0, dtype=input.dtype)
        seq_len = dimension_value(input.shape[-1]) or shape(input)[-1]
        if n is not None:
            if isinstance(seq_len, int) and n <= seq_len:
                input = input[..., 0:n]
            elif isinstance(seq_len, int):
                padding = [[0, 0] for _ in builtins.range(len(input.shape))]
                padding[-1][1] = n - seq_len
                input = pad(input, convert_to_tensor(padding, dtype=dtypes.int32))
            else:
                raise ValueError("dct's n needs the innermost dimension's static size")
        axis_dim = dimension_value(input.shape[-1]) or shape(input)[-1]
        axis_dim_float = cast(axis_dim, input.dtype)
        if type == 1:
            dct1_input = concat([input, input[..., -2:0:-1]], axis=-1)
            return real(rfft(dct1_input))
        if type == 2:
            scale = 2.0 * exp(complex(zero, -range(axis_dim_float) * math.pi * 0.5
                                      / axis_dim_float))
            dct2 = real(rfft(input, fft_length=[2 * axis_dim])[..., :axis_dim] * scale)
            if norm == "ortho":
                n1 = 0.5 * rsqrt(axis_dim_float)
                n2 = n1 * math.sqrt(2.0)
                weights = pad(expand_dims(n1, 0), [[0, axis_dim - 1]], constant_values=n2)
                dct2 *= weights
            return dct2
        if type == 3:
            if norm == "ortho":
                n1 = sqrt(axis_dim_float)
                n2 = n1 * math.sqrt(0.5)
                weights = pad(expand_dims(n1, 0), [[0, axis_dim - 1]], constant_values=n2)
                input *= weights
            else:
                input *= axis_dim_float
            scale = 2.0 * exp(complex(zero, range(axis_dim_float) * math.pi * 0.5
                                      / axis_dim_float))
            return real(irfft(scale * complex(input, zero),
                              fft_length=[2 * axis_dim]))[..., :axis_dim]
        dct2 = _dct_internal(input, type=2, n=2 * axis_dim, axis=axis, norm=None)
        dct4 = dct2[..., 1::2]
        if norm == "ortho":
            dct4 *= math.sqrt(0.5) * rsqrt(axis_dim_float)
        return dct4



def dct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002
    """The DCT of ``type`` 1-4 over the innermost axis (``n``: truncate or zero-pad to ``n``
    first; ``norm="ortho"``: orthonormal, not for type 1), as ``scipy.fft.dct``."""
    _validate_dct_arguments(input, type, n, axis, norm)
    return _dct_internal(input, type, n, axis, norm, name)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002
    """The inverse DCT: the DCT of the inverse type (2 <-> 3). Unnormalised it is scipy's
    ``idct`` times ``2N`` (``2(N-1)`` for type 1): TF leaves out the division."""
    _validate_dct_arguments(input, type, n, axis, norm)
    return _dct_internal(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis,
                         norm=norm, name=name)
