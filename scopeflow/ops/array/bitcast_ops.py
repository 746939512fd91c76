"""``Bitcast`` (``tf.bitcast``: the same bytes read as another dtype) and
``GuaranteeConst`` (``tf.guarantee_const``: an identity that promises its input is constant
across runs; TF's grappler may fold it, scopeflow's plans run it as the identity) and
``CheckPinned`` (``tf.check_pinned``: an identity that checks its input lives in pinned
host memory — which a CPU-only runtime never has, so it fails at run time with TF's
"not pinned", as TF's CPU kernel does).

TF registers no gradient for any of them: a gradient reaching one raises ``LookupError``.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import convert_to_tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, first_dtype, same_shape
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["bitcast", "check_pinned", "guarantee_const"]

_BITCASTABLE = {dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
                dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
                dtypes.uint64, dtypes.complex64, dtypes.complex128}


def _sizes(src, dst):
    return src.as_numpy_dtype(0).itemsize, dst.as_numpy_dtype(0).itemsize


def _bitcast_shape(x, *, type, T):  # noqa: A002 - TF's attr name
    in_size, out_size = _sizes(T, type)
    if x.ndims is None:
        return TensorShape(None)
    dims = x.as_list()
    if in_size == out_size:
        return x
    if in_size > out_size:
        return TensorShape(dims + [in_size // out_size])
    if not dims:
        raise ValueError(f"Cannot bitcast from {dtypes.type_string(T)} to "
                         f"{dtypes.type_string(type)}: input is a scalar")
    last = dims[-1]
    if last is not None and last != out_size // in_size:
        raise ValueError(f"Cannot bitcast from {dtypes.type_string(T)} to "
                         f"{dtypes.type_string(type)}: input's last dimension must be "
                         f"{out_size // in_size}, got {last}")
    return TensorShape(dims[:-1])


def _bitcast_dtype(x, *, type, T):  # noqa: A002
    for d, what in ((x, "T"), (type, "type")):
        if d.base_dtype not in _BITCASTABLE:
            raise TypeError(f"Value for attr '{what}' of {d.base_dtype.name} is not in the "
                            "list of allowed values for Bitcast")
    return type


def _bitcast_kernel(x, *, type, T):  # noqa: A002
    in_size, out_size = _sizes(T, type)
    arr = np.asarray(x)
    if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a scalar 1-D)
        arr = arr.copy()
    if in_size < out_size and (arr.ndim == 0 or arr.shape[-1] != out_size // in_size):
        raise InvalidArgumentError(None, None, "Cannot bitcast due to shape. "
                                   f"{arr.shape[-1] if arr.ndim else 0} does not match "
                                   f"{out_size // in_size}")
    out = arr.view(type.as_numpy_dtype)
    if in_size > out_size:
        return out.reshape(arr.shape + (in_size // out_size,))
    if in_size < out_size:
        return out.reshape(arr.shape[:-1])
    return out


bitcast_op = OpDef("Bitcast", shape=_bitcast_shape, dtype=_bitcast_dtype,
                   kernel=_bitcast_kernel, attrs={"type": None, "T": None}, aliases=(0,),
                   grad=NO_GRADIENT, input_names=("input",))


def bitcast(input, type, name=None):  # noqa: A002 - TF's names
    """``input``'s bytes as ``type``: same shape when the sizes agree, one more (or one
    fewer) innermost dimension when one is larger.

    >>> bitcast(np.float32(1.0), dtypes.int32).op.type
    'Bitcast'
    """
    from_dtype = dtypes.as_dtype(np.asarray(input).dtype) if not hasattr(input, "dtype") \
        else dtypes.as_dtype(input.dtype).base_dtype
    return bitcast_op.bind(input, type=dtypes.as_dtype(type), T=from_dtype,
                           name=name or "Bitcast")


def _guarantee_const_kernel(x):
    return x


guarantee_const_op = OpDef("GuaranteeConst", shape=same_shape, dtype=first_dtype,
                           kernel=_guarantee_const_kernel, aliases=(0,), grad=NO_GRADIENT,
                           input_names=("input",))


def guarantee_const(input, name=None):  # noqa: A002
    """``input`` unchanged, marked as constant across runs."""
    return guarantee_const_op.bind(input, name=name or "GuaranteeConst")


def _check_pinned_kernel(x, *, T):
    raise InvalidArgumentError(None, None, "not pinned")


check_pinned_op = OpDef("CheckPinned", shape=same_shape, dtype=first_dtype,
                        kernel=_check_pinned_kernel, attrs={"T": None}, grad=NO_GRADIENT,
                        input_names=("tensor",))


def check_pinned(tensor, name=None):
    """``tensor``, checked to be in pinned (page-locked, GPU-visible) host memory; a CPU-only
    runtime has none, so the run fails with "not pinned" as TF's CPU kernel does."""
    tensor = convert_to_tensor(tensor)
    return check_pinned_op.bind(tensor, T=tensor.dtype.base_dtype, name=name or "CheckPinned")
