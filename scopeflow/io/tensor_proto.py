"""``TensorProto`` and ``TensorShapeProto`` to and from NumPy, as TensorFlow encodes them."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos

__all__ = ["make_tensor_proto", "make_ndarray", "shape_proto"]


def shape_proto(shape, proto=None):
    """A ``TensorShapeProto`` (or fills ``proto``): unknown dims are -1, unknown rank sets
    ``unknown_rank``."""
    if proto is None:
        proto = protos.TensorShapeProto()
    else:
        proto.SetInParent()  # a scalar's shape is an empty, but present, message
    dims = shape.as_tuple() if isinstance(shape, TensorShape) else \
        (None if shape is None else tuple(shape))
    if dims is None:
        proto.unknown_rank = True
        return proto
    add = proto.dim.add
    for d in dims:
        add(size=-1 if d is None else int(d))
    return proto


# ── TensorProto (TF's make_tensor_proto) ─────────────────────────────────────────────
_VAL_FIELD = {
    np.dtype(np.float32): "float_val", np.dtype(np.float64): "double_val",
    np.dtype(np.int32): "int_val", np.dtype(np.int16): "int_val", np.dtype(np.int8): "int_val",
    np.dtype(np.uint8): "int_val", np.dtype(np.uint16): "int_val",
    np.dtype(np.int64): "int64_val", np.dtype(np.bool_): "bool_val",
    np.dtype(np.uint32): "uint32_val", np.dtype(np.uint64): "uint64_val",
}


def make_tensor_proto(value, dtype=None):
    """A ``TensorProto`` holding ``value``, encoded as TF encodes Const values.

    Numeric tensors with more than one element go to ``tensor_content`` (raw
    little-endian bytes); a scalar, or a tensor whose elements are all equal (TF's
    broadcast ``tf.constant(0., shape=...)`` / ``tf.zeros``), is one ``*_val`` entry.

    >>> make_tensor_proto(np.float32(1.5)).float_val[0]
    1.5
    """
    dt = _dtypes.as_dtype(dtype) if dtype is not None else None
    arr = np.asarray(value, dtype=None if dt is None or dt is _dtypes.string
                     else dt.as_numpy_dtype)
    if dt is None:
        dt = _dtypes.as_dtype(arr.dtype)
    proto = protos.TensorProto(dtype=dt.base_dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(shape_proto(arr.shape))
    if arr.size == 0:
        return proto
    flat = arr.reshape(-1)
    uniform = flat.size > 1 and bool((flat == flat[0]).all()) if flat.dtype.kind != "c" \
        else False
    if dt is _dtypes.string:
        items = [v.encode() if isinstance(v, str) else bytes(v) for v in flat]
        proto.string_val.extend(items[:1] if uniform else items)
        return proto
    if flat.size > 1 and not uniform:
        proto.tensor_content = np.ascontiguousarray(arr).astype(
            arr.dtype.newbyteorder("<"), copy=False).tobytes()
        return proto
    first = flat[:1]
    if arr.dtype == np.float16:
        proto.half_val.extend(first.view(np.uint16).astype(np.int32).tolist())
    elif arr.dtype == np.complex64:
        proto.scomplex_val.extend([float(first[0].real), float(first[0].imag)])
    elif arr.dtype == np.complex128:
        proto.dcomplex_val.extend([float(first[0].real), float(first[0].imag)])
    else:
        getattr(proto, _VAL_FIELD[arr.dtype]).extend(first.tolist())
    return proto


def make_ndarray(proto):
    """The NumPy array a ``TensorProto`` holds (``tensor_content`` or ``*_val``, broadcast
    as TF does when one value stands for the whole shape)."""
    dt = _dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    if dt is _dtypes.string:
        arr = np.array(list(proto.string_val), dtype=object)
        if arr.size == 1 and int(np.prod(shape)) != 1:
            return np.full(shape, arr[0], dtype=object)
        return arr.reshape(shape)
    npd = np.dtype(dt.as_numpy_dtype).newbyteorder("<")
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=npd).reshape(shape).copy()
    if len(proto.half_val):
        arr = np.array(list(proto.half_val), dtype=np.uint16).view(np.float16)
        return np.broadcast_to(arr[-1], shape).copy() if arr.size == 1 else arr.reshape(shape)
    for field in ("scomplex_val", "dcomplex_val"):
        vals = getattr(proto, field)
        if len(vals):
            arr = (np.array(vals[0::2]) + 1j * np.array(vals[1::2])).astype(npd.newbyteorder("="))
            return np.broadcast_to(arr[-1], shape).copy() if arr.size == 1 else \
                arr.reshape(shape)
    for field in ("float_val", "double_val", "int_val", "int64_val", "bool_val",
                  "uint32_val", "uint64_val"):
        vals = getattr(proto, field)
        if len(vals):
            arr = np.array(list(vals)).astype(npd.newbyteorder("="))
            return np.broadcast_to(arr[-1], shape).copy() if arr.size == 1 else \
                arr.reshape(shape)
    return np.zeros(shape, dtype=npd.newbyteorder("="))
