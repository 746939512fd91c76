"""``TensorProto`` and ``TensorShapeProto`` to and from NumPy, as TensorFlow encodes them."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos

__all__ = ["make_tensor_proto", "make_ndarray", "shape_proto", "broadcast_from"]


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


# Dtypes TF writes as raw ``tensor_content`` (TF's ``_TENSOR_CONTENT_TYPES``): not bool,
# complex or string, which always go to their ``*_val`` field.
_CONTENT_KINDS = "iuf"


def make_tensor_proto(value, dtype=None, shape=None):
    """A ``TensorProto`` holding ``value``, encoded as TF's ``make_tensor_proto`` does.

    With ``shape`` (TF's broadcast ``tf.constant(0., shape=[50])``, ``tf.zeros``, or a list
    padded with its last element), a ``value`` with fewer elements than ``shape`` is written
    as its own elements in ``*_val``, which readers broadcast. Otherwise a numeric tensor
    (not bool or complex) of more than one element goes to ``tensor_content`` (raw
    little-endian bytes), even when its elements are all equal; anything else lists every
    element in its ``*_val`` field.

    >>> make_tensor_proto(np.float32(1.5)).float_val[0]
    1.5
    >>> list(make_tensor_proto(np.float32(0), shape=[3]).float_val)
    [0.0]
    """
    dt = _dtypes.as_dtype(dtype) if dtype is not None else None
    arr = np.asarray(value, dtype=None if dt is None or dt is _dtypes.string
                     else dt.as_numpy_dtype)
    if dt is None:
        dt = _dtypes.as_dtype(arr.dtype)
    dims = arr.shape if shape is None else tuple(int(d) for d in shape)
    same_size = int(np.prod(dims, dtype=np.int64)) == arr.size
    proto = protos.TensorProto(dtype=dt.base_dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(shape_proto(dims))
    if arr.size == 0:
        return proto
    flat = arr.reshape(-1)
    if dt is _dtypes.string:
        proto.string_val.extend(v.encode() if isinstance(v, str) else bytes(v) for v in flat)
        return proto
    if same_size and arr.size > 1 and arr.dtype.kind in _CONTENT_KINDS:
        proto.tensor_content = np.ascontiguousarray(arr).astype(
            arr.dtype.newbyteorder("<"), copy=False).tobytes()
        return proto
    if arr.dtype == np.float16:
        proto.half_val.extend(flat.view(np.uint16).astype(np.int32).tolist())
    elif arr.dtype.kind == "c":
        field = proto.scomplex_val if arr.dtype == np.complex64 else proto.dcomplex_val
        field.extend(np.stack([flat.real, flat.imag], axis=1).reshape(-1).tolist())
    else:
        getattr(proto, _VAL_FIELD[arr.dtype]).extend(flat.tolist())
    return proto


def _fill(arr, shape):
    """``arr`` as ``shape``; fewer values than that are padded with the last (TF's
    ``MakeNdarray``: one value stands for the whole shape)."""
    n = int(np.prod(shape, dtype=np.int64))
    if arr.size == n:
        return arr.reshape(shape)
    return np.concatenate([arr, np.repeat(arr[-1:], n - arr.size)]).reshape(shape)


def make_ndarray(proto):
    """The NumPy array a ``TensorProto`` holds (``tensor_content`` or ``*_val``; fewer values
    than the shape holds are padded with the last, as TF does)."""
    dt = _dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    if dt is _dtypes.string:
        arr = np.empty(len(proto.string_val), dtype=object)
        arr[:] = list(proto.string_val)
        return _fill(arr, shape) if arr.size else np.full(shape, b"", dtype=object)
    npd = np.dtype(dt.as_numpy_dtype).newbyteorder("<")
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=npd).reshape(shape).copy()
    if len(proto.half_val):
        return _fill(np.array(list(proto.half_val), dtype=np.uint16).view(np.float16), shape)
    for field in ("scomplex_val", "dcomplex_val"):
        vals = getattr(proto, field)
        if len(vals):
            arr = (np.array(vals[0::2]) + 1j * np.array(vals[1::2])).astype(npd.newbyteorder("="))
            return _fill(arr, shape)
    for field in ("float_val", "double_val", "int_val", "int64_val", "bool_val",
                  "uint32_val", "uint64_val"):
        vals = getattr(proto, field)
        if len(vals):
            return _fill(np.array(list(vals)).astype(npd.newbyteorder("=")), shape)
    return np.zeros(shape, dtype=npd.newbyteorder("="))


def broadcast_from(proto):
    """The elements a ``TensorProto`` lists when they are fewer than its shape holds (TF's
    broadcast ``tf.constant(0., shape=[50])``), as a flat array; None otherwise."""
    if proto.tensor_content:
        return None
    n = int(np.prod([d.size for d in proto.tensor_shape.dim], dtype=np.int64))
    listed = max((len(getattr(proto, f)) // (2 if f.endswith("complex_val") else 1)
                  for f in ("string_val", "half_val", "scomplex_val", "dcomplex_val",
                            "float_val", "double_val", "int_val", "int64_val", "bool_val",
                            "uint32_val", "uint64_val")), default=0)
    if listed >= n:
        return None
    given = protos.TensorProto()
    given.CopyFrom(proto)
    given.tensor_shape.CopyFrom(shape_proto((listed,)))
    arr = make_ndarray(given)
    arr.setflags(write=False)
    return arr
