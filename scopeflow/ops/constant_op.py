"""``tf.constant`` and the conversion of Python/NumPy values to tensors (TF's dtype rules)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.graph import Tensor, register_tensor_conversion_function
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import Dimension, TensorShape

if TYPE_CHECKING:
    from scopeflow.framework.type_aliases import DTypeLike, ShapeLike

__all__ = ["constant", "to_numpy"]

_INT32 = np.iinfo(np.int32)


def _infer_python_dtype(arr: np.ndarray, value) -> np.dtype:
    """TF's inference for Python values: float -> float32, int -> int32 (int64 if needed).

    NumPy arrays and scalars (``np.float64(1.0)``) keep their own dtype.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return arr.dtype
    kind = arr.dtype.kind
    if kind == "f" and arr.dtype == np.float64:
        return np.dtype(np.float32)
    if kind in "iu":
        if arr.size == 0 or (arr.min() >= _INT32.min and arr.max() <= _INT32.max):
            return np.dtype(np.int32)
        return arr.dtype  # int64, or uint64 past 2**63 - 1 (as TF)
    if kind == "c":
        return np.dtype(np.complex128)
    return arr.dtype


def _to_bytes_array(arr):
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = v.encode("utf-8") if isinstance(v, str) else bytes(v)
    return out


def _not_convertible(value):
    return TypeError(f"Failed to convert elements of {value} to Tensor. Consider casting "
                     "elements to a supported type. See https://www.tensorflow.org/api_docs/"
                     "python/tf/dtypes for supported TF dtypes.")


def _contains_tensor(value) -> bool:
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_element"):
        return True
    return isinstance(value, (list, tuple)) and any(_contains_tensor(v) for v in value)


def _lossy(src_kind: str, target: np.dtype) -> bool:
    """Python values TF refuses to convert: fractional/complex to int, non-bool to bool."""
    return (src_kind in "fc" and target.kind in "iub" or src_kind == "c" and target.kind == "f"
            or src_kind in "iuf" and target.kind == "b")


def _first_offender(value, kinds):
    """The first scalar in a nested Python ``value`` whose NumPy kind is in ``kinds``."""
    if isinstance(value, (list, tuple)):
        for v in value:
            found = _first_offender(v, kinds)
            if found is not None:
                return found
        return None
    return value if np.asarray(value).dtype.kind in kinds else None


def to_numpy(value, dtype=None) -> np.ndarray:
    """``value`` as a NumPy array with TF's dtype (inferred, or ``dtype`` checked losslessly)."""
    if value is None:
        raise ValueError("None values not supported.")
    if _contains_tensor(value):
        raise TypeError("Expected any non-tensor type, but got a tensor instead.")
    try:
        arr = np.asarray(value)
    except OverflowError:
        raise _not_convertible(value) from None  # ints past 64 bits (ragged lists: ValueError)
    if arr.dtype.kind == "O" and not all(isinstance(v, (str, bytes)) for v in arr.reshape(-1)):
        if dtype is None or not dtype.is_integer:
            raise _not_convertible(value)
        try:  # with a numeric dtype asked for, NumPy takes __index__/__int__ (TF1 Dimensions)
            arr = np.asarray(value, dtype=dtype.as_numpy_dtype)
        except (TypeError, ValueError):
            raise _not_convertible(value) from None
    is_string = arr.dtype.kind in "SUO"
    if is_string and _first_offender(value, "iufcb") is not None:
        raise _not_convertible(value)  # NumPy would turn [b"a", 1] into strings; TF refuses
    if is_string or (dtype is not None and dtype.base_dtype is dtypes.string):
        return _string_array(value, arr, dtype, is_string)
    if dtype is None:
        return arr.astype(_infer_python_dtype(arr, value), copy=False)
    return _as_numeric_dtype(value, arr, dtype)


def _string_array(value, arr, dtype, is_string):
    """``to_numpy`` of strings (or to a string ``dtype``): an object array of bytes."""
    if dtype is not None and arr.size and (dtype.base_dtype is not dtypes.string
                                           or not is_string):
        bad = _first_offender(value, "SUO" if is_string else "iufcb")
        raise TypeError(f"Expected {dtype.base_dtype.name}, but got {bad} of type "
                        f"'{type(bad).__name__}'.")
    if arr.dtype.kind in "SU" and not isinstance(value, (np.ndarray, np.generic)):
        arr = np.array(value, dtype=object)  # NumPy's fixed-width bytes drop trailing NULs
    return _to_bytes_array(arr)


def _as_numeric_dtype(value, arr, dtype):
    """``arr`` (from ``value``) as the numeric ``dtype``, refusing lossy Python values."""
    target = dtypes.storage_dtype(dtype)
    if arr.dtype == target:
        return arr
    if not isinstance(value, (np.ndarray, np.generic)) and arr.size and \
            _lossy(arr.dtype.kind, target):
        # TF refuses lossy conversion of Python values (1.5 or 1.0 to int32, 1 to bool),
        # naming the first element that does not fit.
        kinds = "fc" if target.kind in "iu" else "c" if target.kind == "f" else "iuf"
        bad = _first_offender(value, kinds)
        raise TypeError(f"Expected {dtype.base_dtype.name}, but got {bad} of type "
                        f"'{type(bad).__name__}'.")
    # Out-of-range integers wrap, as TF's C++ conversion does (300 as int8 is 44).
    with np.errstate(over="ignore", invalid="ignore"):
        return arr.astype(target)


# ── Const ────────────────────────────────────────────────────────────────────────────
# ``_broadcast_from``: the value ``tf.constant(value, shape=...)`` was given when it had
# fewer elements than ``shape`` (a scalar filled, a list padded with its last element);
# None when ``value`` is what was given. The GraphDef writes it, as TF writes such a
# constant's TensorProto (only the given elements, which readers broadcast).
def _const_shape(*, value, dtype, _broadcast_from=None):
    return TensorShape(value.shape)


def _const_dtype(*, value, dtype, _broadcast_from=None):
    return dtype


def _const_kernel(*, value, dtype, _broadcast_from=None):
    return value


def _const_static_value(t):
    return t.op.get_attr("value")


const_op = OpDef("Const", shape=_const_shape, dtype=_const_dtype,
                 attrs={"value": None, "dtype": None, "_broadcast_from": None},
                 kernel=_const_kernel, grad=None, aliases=True)
const_op.def_static_value(_const_static_value)


def constant(value: Any, dtype: DTypeLike | None = None, shape: ShapeLike = None,
             name: str = "Const", verify_shape: bool = False) -> Tensor:
    """A tensor holding ``value`` (TF1's ``tf.constant``).

    A scalar ``value`` fills ``shape``; a shorter list is padded with its last element.

    >>> constant([1.0, 2.0]).dtype.name
    'float32'
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    arr = to_numpy(value, dtype)
    given = None
    if shape is not None:
        fitted = _fit_to_shape(arr, shape, verify_shape)
        if fitted.size != arr.size:
            given = np.array(arr.reshape(-1), copy=True)
            given.setflags(write=False)
        arr = fitted
    arr = np.array(arr, copy=True) if arr.base is not None or arr is value else arr
    arr.setflags(write=False)  # a constant must never change under its consumers
    return const_op.bind(value=arr, dtype=dtypes.as_dtype(arr.dtype) if dtype is None
                         else dtype.base_dtype, _broadcast_from=given, name=name)


def _fit_to_shape(arr, shape, verify_shape):
    dims = [int(d) for d in TensorShape(shape).as_list()]
    n = int(np.prod(dims)) if dims else 1
    if arr.shape == tuple(dims):
        return arr
    if verify_shape:
        raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {arr.shape}.")
    if arr.size == 1:
        return np.full(dims, arr.reshape(()), dtype=arr.dtype)
    if arr.size > n:
        raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
    if arr.size == 0:
        return np.zeros(dims, dtype=arr.dtype)
    flat = arr.reshape(-1)
    if arr.size < n:
        flat = np.concatenate([flat, np.repeat(flat[-1:], n - arr.size)])
    return flat.reshape(dims)


def _constant_conversion(value, dtype=None, name=None, as_ref=False):
    return constant(value, dtype=dtype, name=name or "Const")


register_tensor_conversion_function(object, _constant_conversion, priority=200)


def _tensor_shape_conversion(shape, dtype=None, name=None, as_ref=False):
    """A fully known TensorShape becomes an int32 (or int64) vector, as TF."""
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    if dtype is None:
        dtype = dtypes.int64 if any(d >= 2 ** 31 for d in dims) else dtypes.int32
    elif dtypes.as_dtype(dtype).base_dtype not in INDEX:
        raise TypeError(f"Cannot convert {shape} to {dtypes.as_dtype(dtype).name}")
    return constant(dims, dtype=dtype, name=name or "shape_as_tensor")


def _dimension_conversion(dim, dtype=None, name=None, as_ref=False):
    if dim.value is None:
        raise ValueError(f"Cannot convert an unknown Dimension to a Tensor: {dim}")
    return constant(dim.value, dtype=dtype or dtypes.int32, name=name or "dimension")


register_tensor_conversion_function(TensorShape, _tensor_shape_conversion, priority=100)
register_tensor_conversion_function(Dimension, _dimension_conversion, priority=100)
