"""``DecodeProtoV2`` and ``EncodeProto`` (``tf.io.decode_proto``, ``tf.io.encode_proto``):
protobuf messages to and from one tensor per field, as TF's kernels.

``message_type`` is looked up in protobuf's default pool, then in scopeflow's pool of TF's
own messages (``tensorflow.Example``, ``tensorflow.TensorProto``...), which is what TF's
``descriptor_source="local://"`` finds; ``"bytes://<FileDescriptorSet>"`` brings its own
descriptors. Decoding gives ``sizes`` (int32 ``batch + [fields]``: how many values each
field has in each message) and per field ``batch + [largest count]`` values, padded with
the field's default; a sub-message comes as its serialized bytes, an enum as int32. Each
field type accepts only TF's output types (``_COMPATIBLE``); a mismatch, an unknown message
type or field is an InvalidArgumentError at run time, as TF's kernel constructor raises it.
Encoding writes the first ``sizes[..., i]`` values of each field. Neither op has a
gradient (TF: NotDifferentiable).
"""

from __future__ import annotations

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from google.protobuf.descriptor import FieldDescriptor as FD
from google.protobuf.message import DecodeError

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos

__all__ = ["decode_proto", "encode_proto"]

_T = dtypes
# Field type -> (TF's name for it in messages: its C++ type, the output types TF accepts).
_COMPATIBLE = {
    FD.TYPE_DOUBLE: ("double", (_T.float64,)),
    FD.TYPE_FLOAT: ("float", (_T.float32, _T.float64)),
    FD.TYPE_INT64: ("int64", (_T.int64,)),
    FD.TYPE_UINT64: ("uint64", (_T.uint64,)),
    FD.TYPE_INT32: ("int32", (_T.int32, _T.int64)),
    FD.TYPE_FIXED64: ("uint64", (_T.uint64,)),
    FD.TYPE_FIXED32: ("uint32", (_T.uint32, _T.uint64)),
    FD.TYPE_BOOL: ("bool", (_T.bool,)),
    FD.TYPE_STRING: ("string", (_T.string,)),
    FD.TYPE_GROUP: ("message", (_T.string,)),
    FD.TYPE_MESSAGE: ("message", (_T.string,)),
    FD.TYPE_BYTES: ("string", (_T.string,)),
    FD.TYPE_UINT32: ("uint32", (_T.uint32, _T.uint64)),
    FD.TYPE_ENUM: ("enum", (_T.int32,)),
    FD.TYPE_SFIXED32: ("int32", (_T.int32, _T.int64)),
    FD.TYPE_SFIXED64: ("int64", (_T.int64,)),
    FD.TYPE_SINT32: ("int32", (_T.int32, _T.int64)),
    FD.TYPE_SINT64: ("int64", (_T.int64,)),
}


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _descriptor(message_type, descriptor_source):
    """The message's descriptor, as TF's ``local://`` or ``bytes://`` source finds it."""
    if descriptor_source.startswith("bytes://"):
        pool = descriptor_pool.DescriptorPool()
        files = descriptor_pb2.FileDescriptorSet.FromString(
            descriptor_source[len("bytes://"):].encode("latin1"))
        for f in files.file:
            pool.Add(f)
        pools = [pool]
    else:
        pools = [descriptor_pool.Default(), protos._POOL]
    for pool in pools:
        try:
            return pool.FindMessageTypeByName(message_type)
        except KeyError:
            continue
    raise _invalid(f"No descriptor found for message type {message_type}")


def _fields(desc, field_names, types):
    """The fields' descriptors, each checked against its output type."""
    if len(field_names) != len(types):
        raise _invalid("field_names and output_types attributes must have the same length")
    out = []
    for name, dtype in zip(field_names, types):
        field = desc.fields_by_name.get(name)
        if field is None:
            raise _invalid(f"Unknown field: {name} in message type {desc.full_name}")
        kind, allowed = _COMPATIBLE[field.type]
        if dtypes.as_dtype(dtype) not in allowed:
            name = dtypes.as_dtype(dtype).name
            name = {"float32": "float", "float64": "double"}.get(name, name)
            raise _invalid(f"Unexpected output type for {field.full_name}: {kind} to "
                           f"DT_{name.upper()}")
        out.append(field)
    return out


def _message_class(desc):
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(desc.file.pool).GetPrototype(desc)  # pragma: no cover


def _repeated(field) -> bool:
    """Whether a field is repeated (``is_repeated`` in newer protobuf, ``label`` before)."""
    flag = getattr(field, "is_repeated", None)
    return bool(flag) if flag is not None else field.label == FD.LABEL_REPEATED


def _values_of(msg, field):
    """A field's values in one message: a list (one item for a present singular field)."""
    if _repeated(field):
        values = list(getattr(msg, field.name))
    elif field.message_type is not None or field.has_presence:
        values = [getattr(msg, field.name)] if msg.HasField(field.name) else []
    else:   # proto3 scalar: on the wire only when not the default
        value = getattr(msg, field.name)
        values = [value] if value != field.default_value else []
    if field.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        values = [v.SerializeToString() for v in values]
    return values


def _default(field, dtype):
    """The padding of a field's values: its declared default (zero or empty for a
    repeated field, empty bytes for a sub-message)."""
    if dtype == _T.string:
        value = b"" if _repeated(field) or field.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP) \
            else field.default_value
        return value.encode() if isinstance(value, str) else value
    if _repeated(field) or field.default_value is None:
        return False if dtype == _T.bool else 0
    return field.default_value


# ── DecodeProtoV2 ────────────────────────────────────────────────────────────────────
def _decode_shape(data, *, message_type, field_names, output_types, descriptor_source,
                  message_format, sanitize):
    if data.ndims is None:
        return [TensorShape(None)] * (1 + len(output_types))
    batch = data.as_list()
    return [TensorShape(batch + [len(field_names)])] + \
        [TensorShape(batch + [None])] * len(output_types)


def _decode_dtype(data, *, output_types, **attrs):
    if data is not _T.string:
        raise TypeError(f"Input 'bytes' of 'DecodeProtoV2' Op has type {data.name} that does "
                        "not match expected type of string.")
    return [_T.int32] + [dtypes.as_dtype(t) for t in output_types]


def _parse(cls, raw, message_format):
    msg = cls()
    try:
        if message_format == "text":
            text_format.Parse(raw.decode("utf-8") if isinstance(raw, bytes) else raw, msg)
        else:
            msg.ParseFromString(raw if isinstance(raw, bytes) else raw.encode())
    except (DecodeError, text_format.ParseError, UnicodeDecodeError):
        raise errors.DataLossError(None, None, "CountFields: Failed to consume entire "
                                   "buffer") from None
    return msg


def _decode_kernel(data, *, message_type, field_names, output_types, descriptor_source,
                   message_format, sanitize):
    desc = _descriptor(message_type, descriptor_source)
    fields = _fields(desc, field_names, output_types)
    cls = _message_class(desc)
    flat = np.asarray(data, object).reshape(-1)
    parsed = [_parse(cls, raw, message_format) for raw in flat]
    batch = np.shape(data)
    sizes = np.zeros((len(flat), len(fields)), np.int32)
    outs = []
    for j, (field, dtype) in enumerate(zip(fields, output_types)):
        dtype = dtypes.as_dtype(dtype)
        rows = [_values_of(m, field) for m in parsed]
        sizes[:, j] = [len(r) for r in rows]
        width = max((len(r) for r in rows), default=0)
        np_type = object if dtype == _T.string else dtype.as_numpy_dtype
        out = np.empty((len(flat), width), dtype=np_type)
        out.fill(_default(field, dtype))   # fill: a bytes default is one value, not a list
        for i, r in enumerate(rows):
            for k, v in enumerate(r):
                out[i, k] = v
        outs.append(out.reshape(batch + (width,)))
    return [sizes.reshape(batch + (len(fields),))] + outs


decode_proto_op = OpDef(
    "DecodeProtoV2", shape=_decode_shape, dtype=_decode_dtype, kernel=_decode_kernel,
    attrs={"message_type": "", "field_names": [], "output_types": [],
           "descriptor_source": "local://", "message_format": "binary", "sanitize": False},
    num_outputs=lambda attrs, n: 1 + len(attrs["output_types"]), grad=None,
    input_names=("string",))


def decode_proto(bytes, message_type, field_names, output_types,  # noqa: A002 - TF's name
                 descriptor_source="local://", message_format="binary", sanitize=False,
                 name=None):
    """``(sizes, values)``: the fields ``field_names`` of serialized ``message_type``
    messages, one tensor each of the matching ``output_types``."""
    if not isinstance(bytes, Tensor):
        bytes = convert_to_tensor(bytes, dtype=_T.string)
    outs = decode_proto_op.bind(
        bytes, name=name, message_type=message_type, field_names=list(field_names),
        output_types=[dtypes.as_dtype(t) for t in output_types],
        descriptor_source=descriptor_source, message_format=message_format,
        sanitize=bool(sanitize))
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    return outs[0], outs[1:]


# ── EncodeProto ──────────────────────────────────────────────────────────────────────
def _encode_shape(sizes, *values, **attrs):
    if sizes.ndims is None:
        return TensorShape(None)
    return TensorShape(sizes.as_list()[:-1])


def _encode_dtype(sizes, *values, **attrs):
    if sizes is not _T.int32:
        raise TypeError(f"Input 'sizes' of 'EncodeProto' Op has type {sizes.name} that does "
                        "not match expected type of int32.")
    return _T.string


def _encode_kernel(sizes, *values, field_names, message_type, descriptor_source, Tinput_types):
    desc = _descriptor(message_type, descriptor_source)
    fields = _fields(desc, field_names, Tinput_types)
    cls = _message_class(desc)
    batch = np.shape(sizes)[:-1]
    counts = np.asarray(sizes).reshape(-1, len(fields))
    flat = [np.asarray(v).reshape(counts.shape[0], -1) for v in values]
    out = np.empty(counts.shape[0], object)
    for i in range(counts.shape[0]):
        msg = cls()
        for j, field in enumerate(fields):
            n = int(counts[i, j])
            if n > flat[j].shape[1]:
                raise _invalid(f"Size to write must not be larger than value tensor; but saw: "
                               f"{n} > {flat[j].shape[1]} at message {i} field {j}")
            _set(msg, field, flat[j][i, :n])
        out[i] = msg.SerializeToString()
    return out.reshape(batch)


def _set(msg, field, items):
    if field.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        items = [field.message_type._concrete_class.FromString(bytes(v)) for v in items]
    elif field.type == FD.TYPE_STRING:
        items = [v.decode("utf-8") if isinstance(v, bytes) else v for v in items]
    else:
        items = [v.item() if hasattr(v, "item") else v for v in items]
    if _repeated(field):
        getattr(msg, field.name).extend(items)
    elif items and field.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        getattr(msg, field.name).CopyFrom(items[-1])
    elif items:
        setattr(msg, field.name, items[-1])


encode_proto_op = OpDef(
    "EncodeProto", shape=_encode_shape, dtype=_encode_dtype, kernel=_encode_kernel,
    attrs={"field_names": [], "message_type": "", "descriptor_source": "local://",
           "Tinput_types": []}, grad=None, input_names=("sizes", "values"))


def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://",
                 name=None) -> Tensor:
    """Serialized ``message_type`` messages from per-field ``values`` and their counts
    ``sizes`` (the inverse of ``decode_proto``)."""
    values = [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in values]
    return encode_proto_op.bind(sizes, *values, name=name, field_names=list(field_names),
                                message_type=message_type,
                                descriptor_source=descriptor_source,
                                Tinput_types=[v.dtype.base_dtype for v in values])
