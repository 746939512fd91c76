"""``TensorProto`` and ``TensorShapeProto`` to and from NumPy, as TensorFlow encodes them."""

from __future__ import annotations

import numpy as np
from google.protobuf import text_format

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos

__all__ = ["make_tensor_proto", "make_ndarray", "tensor_value", "shape_proto",
           "broadcast_from", "describe", "BadTensorProto", "FillBudget"]


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
                     else _dtypes.storage_dtype(dt))
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
    if same_size and arr.size > 1 and (arr.dtype.kind in _CONTENT_KINDS
                                       or dt is _dtypes.bfloat16):
        proto.tensor_content = np.ascontiguousarray(arr).astype(
            arr.dtype.newbyteorder("<"), copy=False).tobytes()
        return proto
    if arr.dtype == np.float16 or dt is _dtypes.bfloat16:  # their bits, as int32s
        proto.half_val.extend(flat.view(np.uint16).astype(np.int32).tolist())
    elif arr.dtype.kind == "c":
        field = proto.scomplex_val if arr.dtype == np.complex64 else proto.dcomplex_val
        field.extend(np.stack([flat.real, flat.imag], axis=1).reshape(-1).tolist())
    else:
        getattr(proto, _VAL_FIELD[arr.dtype]).extend(flat.tolist())
    return proto


# ── TensorProto -> NumPy (TF's Tensor::FromProto) ────────────────────────────────────
# The one field each dtype's values are read from (TF reads no other: a float tensor's
# int_val is ignored). A complex element is two entries of its field, a half one int32.
_FIELD_OF = {
    _dtypes.float32: "float_val", _dtypes.float64: "double_val", _dtypes.int32: "int_val",
    _dtypes.int16: "int_val", _dtypes.int8: "int_val", _dtypes.uint8: "int_val",
    _dtypes.uint16: "int_val", _dtypes.int64: "int64_val", _dtypes.bool_: "bool_val",
    _dtypes.uint32: "uint32_val", _dtypes.uint64: "uint64_val", _dtypes.float16: "half_val",
    _dtypes.complex64: "scomplex_val", _dtypes.complex128: "dcomplex_val",
    _dtypes.string: "string_val", _dtypes.bfloat16: "half_val", _dtypes.qint8: "int_val",
    _dtypes.quint8: "int_val", _dtypes.qint16: "int_val", _dtypes.quint16: "int_val",
    _dtypes.qint32: "int_val",
}
_INT64_MAX = 2 ** 63 - 1


class BadTensorProto(ValueError):
    """A ``TensorProto`` TF refuses. ``of_shape``: its shape (TF's graph import refuses it),
    else its values (TF's kernel refuses them when it runs: ``Cannot parse tensor``)."""

    def __init__(self, message, of_shape=False):
        super().__init__(message)
        self.of_shape = of_shape


def describe(proto) -> str:
    """A one-line summary of ``proto`` for messages: dtype and shape as TF prints them, and
    how many values it holds (not the values: a file's constant may be huge)."""
    brief = protos.TensorProto(dtype=proto.dtype)
    brief.tensor_shape.CopyFrom(proto.tensor_shape)
    text = text_format.MessageToString(brief, as_one_line=True)
    if proto.tensor_content:
        text += f" tensor_content: <{len(proto.tensor_content)} bytes>"
    for field in sorted(set(_FIELD_OF.values())):
        if len(getattr(proto, field)):
            text += f" {field}: <{len(getattr(proto, field))} values>"
    return text


def _declared_shape(proto):
    """The proto's shape as a tuple, checked as TF's ``TensorShape::IsValidShape``."""
    dims = tuple(d.size for d in proto.tensor_shape.dim)
    shown = "[" + ",".join("?" if d == -1 else str(d) for d in dims) + "]"
    if any(d < 0 for d in dims):
        raise BadTensorProto(f"Shape {shown} is not fully defined", of_shape=True)
    n = 1
    for d in dims:
        n *= d
    if n > _INT64_MAX:
        raise BadTensorProto(f"Shape {shown} is too large (more than 2**63 - 1 entries)",
                             of_shape=True)
    return dims, n


def _listed(proto, dt, npd):
    """The values ``proto`` lists in its dtype's field, as a flat array (copied from the
    proto: these bytes are in the file)."""
    field = _FIELD_OF[dt]
    vals = getattr(proto, field)
    if dt is _dtypes.string:
        arr = np.empty(len(vals), dtype=object)
        arr[:] = list(vals)
        return arr
    if field == "half_val":  # float16 and bfloat16: their bits
        return np.array(vals, dtype=np.int32).astype(np.uint16).view(npd)
    if dt in (_dtypes.complex64, _dtypes.complex128):
        parts = np.array(vals, dtype=np.float64)[:len(vals) // 2 * 2]  # TF: pairs only
        return (parts[0::2] + 1j * parts[1::2]).astype(npd)
    if field == "int_val":  # int8/16 and uint8/16 as int32s: they wrap, as TF's cast
        return np.array(vals, dtype=np.int32).astype(npd)
    return np.array(vals, dtype=npd)


class FillBudget:
    """The bytes ``tensor_value`` may still pad constants to (those listing two values or
    more, fewer than their shape holds): one graph import's allowance, spent as it goes."""

    __slots__ = ("left",)

    def __init__(self, nbytes):
        self.left = nbytes


def tensor_value(proto, budget=None):
    """The value a ``TensorProto`` holds, read as TF's runtime reads it
    (``Tensor::FromProto``), as a read-only array that never takes more memory than the
    proto holds, except for what ``budget`` allows (below):

    - ``tensor_content``: its little-endian bytes, which must be exactly what the shape
      and dtype take (else ``BadTensorProto``, TF's ``Cannot parse tensor from proto``);
    - else the values listed in the dtype's own field: more than the shape holds are cut,
      as TF cuts them; fewer are padded with the last, and none means zeros (``b""``,
      False). One value (or none) standing for many is a zero-stride ``np.broadcast_to``
      view: a 60-byte file may declare a splat of 2**28 floats, which TF too allocates
      only when a session runs it. Two values or more are padded into a new array, paid
      for from ``budget`` (a ``FillBudget``) when one is given.

    A shape TF refuses (a negative dim, more than 2**63 - 1 elements) raises
    ``BadTensorProto`` with TF's words and ``of_shape`` set.

    >>> v = tensor_value(make_tensor_proto(np.float32(0), shape=[2 ** 28]))
    >>> v.shape, v.strides, v.flags.writeable
    ((268435456,), (0,), False)
    """
    dims, n = _declared_shape(proto)
    try:
        dt = _dtypes.as_dtype(proto.dtype)
    except TypeError:
        dt = None
    if dt not in _FIELD_OF:
        raise BadTensorProto(f"Cannot parse tensor from proto: {describe(proto)} (scopeflow "
                             "holds no constants of this dtype)")
    npd = _dtypes.storage_dtype(dt)
    try:
        if n == 0:
            arr = np.empty(dims, dtype=npd)
        elif proto.tensor_content and dt is not _dtypes.string:
            arr = _from_content(proto, dims, n, npd)
        else:
            arr = _from_listed(proto, dt, npd, dims, n, budget)
    except ValueError as e:
        if isinstance(e, BadTensorProto):
            raise
        # NumPy's own limit: more bytes than one array can address (TF's shape was valid).
        raise BadTensorProto(f"Cannot parse tensor from proto: {describe(proto)} ({e})") \
            from None
    arr.setflags(write=False)
    return arr


def _from_content(proto, dims, n, npd):
    content = proto.tensor_content
    if len(content) != n * npd.itemsize:
        raise BadTensorProto(
            f"Cannot parse tensor from proto: {describe(proto)} (the shape takes "
            f"{n * npd.itemsize} bytes)")
    arr = np.frombuffer(content, dtype=npd.newbyteorder("<")).reshape(dims)
    return arr if arr.dtype.isnative else arr.astype(npd)  # a big-endian host: swapped


def _from_listed(proto, dt, npd, dims, n, budget):
    listed = _listed(proto, dt, npd)
    if listed.size >= n:
        return listed[:n].reshape(dims)  # TF takes the first n
    if listed.size <= 1:
        one = listed.reshape(()) if listed.size else \
            np.array(b"" if dt is _dtypes.string else 0, dtype=npd)
        return np.broadcast_to(one, dims)
    if budget is not None:
        if n * npd.itemsize > budget.left:
            raise BadTensorProto(
                f"{describe(proto)}: {listed.size} values padded with the last to {n} "
                f"elements would take {n * npd.itemsize} bytes, past the {budget.left} bytes "
                "left to pad constants to")
        budget.left -= n * npd.itemsize
    out = np.empty(n, dtype=npd)
    out[:listed.size] = listed
    out[listed.size:] = listed[-1]
    return out.reshape(dims)


def make_ndarray(proto):
    """The NumPy array a ``TensorProto`` holds (TF's ``tf.make_ndarray``): ``tensor_value``
    as a new, writable array of its own (a splat is filled in full)."""
    return np.array(tensor_value(proto))


def broadcast_from(proto):
    """The elements a ``TensorProto`` lists when they are fewer than its shape holds (TF's
    broadcast ``tf.constant(0., shape=[50])``), as a flat read-only array; None otherwise
    (and for a proto ``tensor_value`` refuses)."""
    if proto.tensor_content:
        return None
    try:
        dims, n = _declared_shape(proto)
        dt = _dtypes.as_dtype(proto.dtype)
    except (BadTensorProto, TypeError):
        return None
    if dt not in _FIELD_OF:
        return None
    listed = _listed(proto, dt, _dtypes.storage_dtype(dt))
    if listed.size >= n:
        return None
    listed.setflags(write=False)
    return listed
