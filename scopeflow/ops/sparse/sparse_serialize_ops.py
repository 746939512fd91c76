"""``SerializeSparse``, ``SerializeManySparse`` and ``DeserializeManySparse``
(``tf.serialize_sparse`` and friends, also under ``tf.io``): a SparseTensor as three
serialized ``TensorProto`` strings (indices, values, dense shape), byte for byte what TF
writes: ``Tensor::AsProtoTensorContent``, i.e. every value in ``tensor_content`` (strings as
their varint lengths followed by their bytes). No gradients are registered, as in TF.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.io import protos
from scopeflow.io.tensor_proto import shape_proto, tensor_value
from scopeflow.ops.sparse.sparse_kernels import check_sparse, invalid
from scopeflow.ops.sparse.sparse_math_ops import convert_to_sparse_tensor

__all__ = ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def serialize_tensor(arr, dtype) -> bytes:
    """TF's ``Tensor::AsProtoTensorContent(...).SerializeAsString()`` of ``arr``."""
    proto = protos.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(shape_proto(np.shape(arr)))
    flat = np.asarray(arr).reshape(-1)
    if flat.size:
        if dtype == dtypes.string:
            items = [v.encode() if isinstance(v, str) else bytes(v) for v in flat]
            proto.tensor_content = b"".join(_varint(len(v)) for v in items) + b"".join(items)
        else:
            proto.tensor_content = np.ascontiguousarray(flat).astype(
                flat.dtype.newbyteorder("<"), copy=False).tobytes()
    return proto.SerializeToString()


def parse_tensor(data: bytes):
    """(dtype, array) of a serialized ``TensorProto`` (``tensor_content`` or listed)."""
    proto = protos.TensorProto()
    try:
        proto.ParseFromString(bytes(data))
    except Exception:  # noqa: BLE001 - protobuf's DecodeError, as TF's message says
        raise invalid("Could not parse serialized proto") from None
    dt = dtypes.as_dtype(proto.dtype)
    dims = [d.size for d in proto.tensor_shape.dim]
    if dt == dtypes.string and proto.tensor_content:
        buf, pos, lengths = proto.tensor_content, 0, []
        for _ in range(int(np.prod(dims))):
            n, pos = _read_varint(buf, pos)
            lengths.append(n)
        items = []
        for n in lengths:
            items.append(bytes(buf[pos:pos + n]))
            pos += n
        return dt, np.array(items, object).reshape(dims)
    return dt, np.array(tensor_value(proto))


# ── SerializeSparse / SerializeManySparse ───────────────────────────────────────────
def _serialize_dtype(indices, values, shape, *, out_type):
    check_dtype(indices, (dtypes.int64,), "sparse_indices")
    check_dtype(out_type, (dtypes.string,), "out_type")
    return out_type


def _serialize_kernel(sparse_indices, sparse_values, sparse_shape, *, out_type):
    idx, vals, shape = check_sparse(sparse_indices, sparse_values, sparse_shape, "sparse")
    return np.array([serialize_tensor(idx, dtypes.int64),
                     serialize_tensor(vals, _values_dtype(vals)),
                     serialize_tensor(shape, dtypes.int64)], object)


def _values_dtype(vals):
    return dtypes.string if vals.dtype.kind in "OSU" else dtypes.as_dtype(vals.dtype)


_SER_INPUTS = ("sparse_indices", "sparse_values", "sparse_shape")
serialize_op = OpDef("SerializeSparse", shape=lambda i, v, s, **a: TensorShape([3]),
                     dtype=_serialize_dtype, kernel=_serialize_kernel,
                     attrs={"out_type": dtypes.string}, grad=NO_GRADIENT,
                     input_names=_SER_INPUTS)


def _serialize_many_kernel(sparse_indices, sparse_values, sparse_shape, *, out_type):
    idx, vals, shape = check_sparse(sparse_indices, sparse_values, sparse_shape, "sparse")
    if len(shape) < 2:
        raise invalid(f"Rank of input SparseTensor should be > 1, but saw rank: {len(shape)}")
    n = int(shape[0])
    if len(idx) and ((idx[:, 0] < 0) | (idx[:, 0] >= n)).any():
        raise invalid(f"Minibatch index out of range: shape[0] is {n}")
    order = np.argsort(idx[:, 0], kind="stable")
    idx, vals = idx[order], vals[order]
    starts = np.searchsorted(idx[:, 0], np.arange(n + 1))
    dt = _values_dtype(vals)
    out = np.empty((n, 3), object)
    for b in range(n):
        part = slice(starts[b], starts[b + 1])
        out[b] = [serialize_tensor(idx[part, 1:], dtypes.int64),
                  serialize_tensor(vals[part], dt), serialize_tensor(shape[1:], dtypes.int64)]
    return out


serialize_many_op = OpDef("SerializeManySparse",
                          shape=lambda i, v, s, **a: TensorShape([None, 3]),
                          dtype=_serialize_dtype, kernel=_serialize_many_kernel,
                          attrs={"out_type": dtypes.string}, grad=NO_GRADIENT,
                          input_names=_SER_INPUTS)


def _tf_name(dtype):
    """TF's DataTypeString (``float`` for float32, ``double``, ``half``)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name,
                                                                           dtype.name)


# ── DeserializeManySparse ────────────────────────────────────────────────────────────
def _deserialize_many_kernel(serialized_sparse, *, dtype):
    rows = np.asarray(serialized_sparse, object)
    if rows.ndim != 2 or rows.shape[1] != 3:
        raise invalid(f"Serialized sparse should be a matrix with 3 columns, got shape "
                      f"{list(rows.shape)}")
    if rows.shape[0] == 0:
        raise invalid("Serialized sparse should have non-zero batch size")
    parts, rank, shapes = [], None, []
    for b, row in enumerate(rows):
        _, idx = parse_tensor(row[0])
        vdt, vals = parse_tensor(row[1])
        _, shape = parse_tensor(row[2])
        if vdt != dtype:
            raise invalid(f"Requested SparseTensor of type {_tf_name(dtype)} but "
                          f"SparseTensor[{b}].values.dtype() == {_tf_name(vdt)}")
        if rank is not None and len(shape) != rank:
            raise invalid(f"Inconsistent rank across SparseTensors: rank prior to "
                          f"SparseTensor[{b}] was: {rank + 1} but rank of SparseTensor[{b}] "
                          f"is: {len(shape) + 1}")
        rank = len(shape)
        idx = idx.reshape(-1, rank)
        parts.append((np.concatenate([np.full((len(idx), 1), b, np.int64), idx], 1), vals))
        shapes.append(shape)
    dense = np.concatenate([[len(rows)], np.max(np.stack(shapes), axis=0)]).astype(np.int64)
    values = np.concatenate([v for _, v in parts]) if parts else np.zeros(0)
    if dtype != dtypes.string:
        values = values.astype(dtype.as_numpy_dtype)
    return np.concatenate([i for i, _ in parts]).astype(np.int64), values, dense


deserialize_many_op = OpDef(
    "DeserializeManySparse",
    shape=lambda s, **a: [TensorShape([None, None]), TensorShape([None]),
                          TensorShape([None])],
    dtype=lambda s, *, dtype: [check_dtype(s, (dtypes.string,), "serialized_sparse") and
                               dtypes.int64, dtype, dtypes.int64],
    kernel=_deserialize_many_kernel, attrs={"dtype": dtypes.float32}, num_outputs=3,
    grad=NO_GRADIENT, input_names=("serialized_sparse",))


# ── The public functions ─────────────────────────────────────────────────────────────
def _check_out_type(out_type):
    out_type = dtypes.as_dtype(out_type)
    if out_type != dtypes.string:
        raise TypeError(f"scopeflow serializes SparseTensors to strings only (out_type="
                        f"{out_type.name}; TF's variant form has no NumPy value)")
    return out_type


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """The SparseTensor as a string 3-vector of serialized TensorProtos (TF's bytes)."""
    sp_input = convert_to_sparse_tensor(sp_input)
    return serialize_op.bind(sp_input.indices, sp_input.values, sp_input.dense_shape,
                             out_type=_check_out_type(out_type), name=name)


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """One serialized 3-vector per entry of the first dimension: an ``[N, 3]`` string
    matrix whose rows are the minibatch's SparseTensors of rank ``R - 1``."""
    sp_input = convert_to_sparse_tensor(sp_input)
    return serialize_many_op.bind(sp_input.indices, sp_input.values, sp_input.dense_shape,
                                  out_type=_check_out_type(out_type), name=name)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None) -> SparseTensor:
    """The minibatch SparseTensor of ``serialize_many_sparse``'s rows (dense shape: the
    batch size, then each dimension's largest)."""
    indices, values, shape = deserialize_many_op.bind(
        serialized_sparse, dtype=dtypes.as_dtype(dtype), name=name)
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)
