"""``tf.constant`` and the conversion of Python/NumPy values to tensors (TF's dtype rules)."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, register_tensor_conversion_function
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import STATIC_VALUE_RULES

__all__ = ["constant", "to_numpy"]

_INT32 = np.iinfo(np.int32)


def _infer_python_dtype(arr: np.ndarray, value) -> np.dtype:
    """TF's inference for Python values: float -> float32, int -> int32 (int64 if needed)."""
    kind = arr.dtype.kind
    if kind == "f" and arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        return np.dtype(np.float32)
    if kind == "i" and not isinstance(value, (np.ndarray, np.generic)):
        if arr.size == 0 or (arr.min() >= _INT32.min and arr.max() <= _INT32.max):
            return np.dtype(np.int32)
        return np.dtype(np.int64)
    if kind == "c" and not isinstance(value, (np.ndarray, np.generic)):
        return np.dtype(np.complex128)
    return arr.dtype


def _to_bytes_array(arr):
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = v.encode("utf-8") if isinstance(v, str) else bytes(v)
    return out


def to_numpy(value, dtype=None) -> np.ndarray:
    """``value`` as a NumPy array with TF's dtype (inferred, or ``dtype`` checked losslessly)."""
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        raise TypeError("contains tensors")
    arr = np.asarray(value)
    if arr.dtype.kind in "SUO" or (dtype is not None and dtype.base_dtype is dtypes.string):
        if dtype is not None and dtype.base_dtype is not dtypes.string:
            raise TypeError(f"Expected {dtype.base_dtype.name}, but got {value!r} of type "
                            f"'{type(value).__name__}'.")
        return _to_bytes_array(arr)
    if dtype is None:
        return arr.astype(_infer_python_dtype(arr, value), copy=False)
    target = np.dtype(dtype.base_dtype.as_numpy_dtype)
    if arr.dtype == target:
        return arr
    if not isinstance(value, (np.ndarray, np.generic)):
        # TF refuses lossy conversion of Python values (1.5 or 1.0 to int32).
        if arr.dtype.kind in "fc" and target.kind in "iub" or \
                arr.dtype.kind == "c" and target.kind == "f" or \
                arr.dtype.kind in "iuf" and target.kind == "b":
            raise TypeError(f"Expected {dtype.base_dtype.name}, but got {value!r} of type "
                            f"'{type(value).__name__}'.")
        if arr.dtype.kind in "iu" and target.kind in "iu" and arr.size:
            info = np.iinfo(target)
            if arr.min() < info.min or arr.max() > info.max:
                raise TypeError(f"Value {value!r} out of range for {dtype.base_dtype.name}")
    return arr.astype(target)


# ── Const ────────────────────────────────────────────────────────────────────────────
const_op = OpDef("Const", shape=lambda *, value, dtype: TensorShape(value.shape),
                 dtype=lambda *, value, dtype: dtype, attrs={"value": None, "dtype": None},
                 kernel=lambda *, value, dtype: value, grad=None, aliases=True)
STATIC_VALUE_RULES["Const"] = lambda t: t.op.get_attr("value")


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False) -> Tensor:
    """A tensor holding ``value`` (TF1's ``tf.constant``).

    A scalar ``value`` fills ``shape``; a shorter list is padded with its last element.

    >>> constant([1.0, 2.0]).dtype.name
    'float32'
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        raise TypeError(f"tf.constant needs a Python or NumPy value, got the tensor {value.name};"
                        " use tf.identity or tf.cast instead")
    try:
        arr = to_numpy(value, dtype)
    except ValueError as e:
        raise ValueError(str(e)) from None
    if shape is not None:
        arr = _fit_to_shape(arr, shape, verify_shape)
    arr = np.array(arr, copy=True) if arr.base is not None or arr is value else arr
    arr.setflags(write=False)  # a constant must never change under its consumers
    return const_op.bind(value=arr, dtype=dtypes.as_dtype(arr.dtype) if dtype is None
                         else dtype.base_dtype, name=name)


def _fit_to_shape(arr, shape, verify_shape):
    dims = [int(d) for d in TensorShape(shape).as_list()]
    n = int(np.prod(dims)) if dims else 1
    if arr.shape == tuple(dims):
        return arr
    if verify_shape:
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {arr.shape}.")
    if arr.size == 1:
        return np.full(dims, arr.reshape(()), dtype=arr.dtype)
    if arr.size > n:
        raise TypeError(f"Too many elements provided. Needed at most {n}, but received "
                        f"{arr.size}")
    flat = arr.reshape(-1)
    if arr.size < n:
        flat = np.concatenate([flat, np.repeat(flat[-1:], n - arr.size)])
    return flat.reshape(dims)


def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    return constant(value, dtype=dtype, name=name or "Const")


register_tensor_conversion_function(object, _constant_conversion, priority=200)

