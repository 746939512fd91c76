"""Byte-level conversions of tensors and files: ``SerializeTensor``/``ParseTensor``
(``tf.io.serialize_tensor``: a ``TensorProto``, TF's bytes), ``DecodeCompressed`` (ZLIB,
GZIP), ``DecodeJSONExample`` (an ``Example`` in protobuf's JSON to its wire bytes) and
``MatchingFiles`` (``tf.io.matching_files``: the sorted files matching glob patterns).

None is differentiable (TF marks the first two not differentiable and registers nothing
for the others). A damaged input gets TF's error class and message
(``DataLossError`` for a broken compressed stream, ``InvalidArgumentError`` for bytes that
are no ``TensorProto``), and parsing never allocates more than the proto holds.
"""

from __future__ import annotations

import base64
import gzip
import zlib

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError

from scopeflow.framework import dtypes
from scopeflow.framework.errors import DataLossError, InvalidArgumentError
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos
from scopeflow.io.tensor_proto import BadTensorProto, shape_proto, tensor_value

__all__ = ["serialize_tensor", "parse_tensor", "decode_compressed", "decode_json_example"]


# ── SerializeTensor / ParseTensor ────────────────────────────────────────────────────
def _serialize(arr: np.ndarray, dtype) -> bytes:
    """TF's ``Tensor::AsProtoTensorContent``: strings listed, everything else raw bytes."""
    proto = protos.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(shape_proto(arr.shape))
    if dtype == dtypes.string:
        proto.string_val.extend(v.encode() if isinstance(v, str) else bytes(v)
                                for v in arr.reshape(-1))
    elif arr.size:
        proto.tensor_content = np.ascontiguousarray(arr).astype(
            arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return proto.SerializeToString()


def _serialize_kernel(tensor):
    arr = np.asarray(tensor)
    dtype = dtypes.string if arr.dtype == object else dtypes.as_dtype(arr.dtype)
    return np.array(_serialize(arr, dtype), dtype=object)


serialize_tensor_op = OpDef("SerializeTensor", shape=lambda t: TensorShape([]),
                            dtype=lambda t: dtypes.string, kernel=_serialize_kernel,
                            grad=None, input_names=("tensor",))


def _parse_kernel(serialized, *, out_type):
    data = serialized.item() if isinstance(serialized, np.ndarray) else serialized
    proto = protos.TensorProto()
    try:
        proto.ParseFromString(bytes(data))
    except DecodeError:
        raise InvalidArgumentError(None, None, "Could not parse `serialized` as TensorProto, "
                                   f"base64: {base64.b64encode(bytes(data)).decode()}") from None
    try:
        parsed = dtypes.as_dtype(proto.dtype)
    except TypeError:
        parsed = None
    if parsed != out_type:
        name = dtypes.type_string(parsed) if parsed is not None else str(proto.dtype)
        raise InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({name}) "
                                   f"and dtype ({dtypes.type_string(out_type)})")
    try:
        value = tensor_value(proto)
    except BadTensorProto as e:
        raise InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto: "
                                   f"{e}") from None
    # A splat stays the zero-stride view tensor_value gives: never more memory than the
    # bytes hold (a 60-byte proto may declare 2**40 elements).
    return value


def _parse_dtype(serialized, *, out_type):
    check_dtype(serialized, (dtypes.string,), "serialized")
    return out_type


parse_tensor_op = OpDef("ParseTensor", shape=lambda s, *, out_type: TensorShape(None),
                        dtype=_parse_dtype, kernel=_parse_kernel, attrs={"out_type": None},
                        grad=None, input_names=("serialized",))


def serialize_tensor(tensor, name=None):
    """``tensor`` as one string: its serialized ``TensorProto`` (TF's bytes)."""
    return serialize_tensor_op.bind(tensor, name=name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """The tensor a ``serialize_tensor`` string holds (``out_type`` must be its dtype)."""
    return parse_tensor_op.bind(serialized, out_type=dtypes.as_dtype(out_type),
                                name=name or "ParseTensor")


# ── DecodeCompressed ─────────────────────────────────────────────────────────────────
def _decompress(data: bytes, compression_type: str) -> bytes:
    if compression_type == "":
        return data
    try:
        if compression_type == "GZIP":
            return gzip.decompress(data)
        return zlib.decompress(data)
    except zlib.error as e:
        # zlib's "Error -3 while decompressing data: incorrect header check", in TF's words
        code, _, reason = str(e).partition(" while decompressing data: ")
        raise DataLossError(None, None, f"inflate() failed with error {code.split()[-1]}: "
                            f"{reason}") from None
    except (OSError, EOFError) as e:
        raise DataLossError(None, None, f"inflate() failed: {e}") from None


def _decode_compressed_kernel(data, *, compression_type):
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise InvalidArgumentError(None, None, "Only ZLIB, ZSTD, GZIP or NONE are supported "
                                   "compressions")
    arr = np.asarray(data, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for i, v in np.ndenumerate(arr):
        out[i] = _decompress(bytes(v), compression_type)
    return out


decode_compressed_op = OpDef("DecodeCompressed", shape=lambda b, **_: b,
                             dtype=lambda b, **_: dtypes.string,
                             kernel=_decode_compressed_kernel, attrs={"compression_type": ""},
                             grad=NO_GRADIENT, input_names=("bytes",))


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 - TF's name
    """Each string decompressed (``"ZLIB"``, ``"GZIP"``, or ``""``: unchanged)."""
    return decode_compressed_op.bind(bytes, compression_type=compression_type,
                                     name=name or "DecodeCompressed")


# ── DecodeJSONExample ────────────────────────────────────────────────────────────────
def _json_example_kernel(json_examples):
    arr = np.asarray(json_examples, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for i, v in np.ndenumerate(arr):
        text = v.decode() if isinstance(v, bytes) else str(v)
        example = protos.Example()
        try:
            json_format.Parse(text, example)
        except json_format.ParseError as e:
            raise InvalidArgumentError(None, None, f"Error while parsing JSON: {e}") from None
        out[i] = example.SerializeToString()
    return out


decode_json_example_op = OpDef("DecodeJSONExample", shape=lambda j: j,
                               dtype=lambda j: dtypes.string, kernel=_json_example_kernel,
                               grad=NO_GRADIENT, input_names=("json_examples",))


def decode_json_example(json_examples, name=None):
    """``Example`` protos written in protobuf's JSON mapping, as their binary encoding."""
    return decode_json_example_op.bind(json_examples, name=name or "DecodeJSONExample")
