"""String hashing ops: ``StringToHashBucket`` (TF's legacy ``Hash64``),
``StringToHashBucketFast`` (farmhash ``Fingerprint64``), ``StringToHashBucketStrong``
(keyed SipHash-2-4) and ``Fingerprint`` (farmhash64, 8 little-endian bytes per row).

Their values are TF's bit for bit (the hashes are :mod:`scopeflow.ops.strings.hashing`), so a
model's buckets and fingerprints agree with TF's. None has a gradient.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes as _dtypes
from scopeflow.framework import errors
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors, same_shape
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.io.decode_ops import as_bytes
from scopeflow.ops.strings import hashing
from scopeflow.ops.strings.hashing_np import fingerprint64_many
from scopeflow.ops.strings.string_values import string_values

__all__ = ["string_to_hash_bucket", "string_to_hash_bucket_v1", "string_to_hash_bucket_fast",
           "string_to_hash_bucket_strong", "fingerprint"]


def _string_dtype(x, **attrs):
    check_dtype(x, (_dtypes.string,), "input")
    return _dtypes.int64


def _buckets(x, num_buckets, hash_fn):
    items = np.asarray(x, dtype=object).reshape(-1)
    out = np.fromiter((hash_fn(as_bytes(s)) % num_buckets for s in items),
                      dtype=np.uint64, count=len(items))
    return out.astype(np.int64).reshape(np.shape(x))


def _string_to_hash_bucket_kernel(x, num_buckets, **attrs):
    return _buckets(x, num_buckets, hashing.hash64)


def _string_to_hash_bucket_fast_kernel(x, num_buckets, **attrs):
    """All of ``x`` hashed at once in NumPy (:mod:`~scopeflow.ops.strings.hashing_np`):
    one Python-int hash per string cost ~5 µs, 60x TF's time on a batch of features."""
    x = np.asarray(x, dtype=object)
    hashes = fingerprint64_many(x.reshape(-1).tolist())
    return (hashes % np.uint64(num_buckets)).astype(np.int64).reshape(x.shape)


def _string_to_hash_bucket_strong_kernel(x, num_buckets, **attrs):
    key = attrs["key"]
    return _buckets(x, num_buckets, lambda s: hashing.siphash24(key, s))


string_to_hash_bucket_op = OpDef(
    "StringToHashBucket", shape=same_shape, dtype=_string_dtype,
    kernel=_string_to_hash_bucket_kernel,
    attrs={"num_buckets": None}, grad=None, input_names=("string_tensor",))
string_to_hash_bucket_fast_op = OpDef(
    "StringToHashBucketFast", shape=same_shape, dtype=_string_dtype,
    kernel=_string_to_hash_bucket_fast_kernel,
    attrs={"num_buckets": None}, grad=None, input_names=("input",))
string_to_hash_bucket_strong_op = OpDef(
    "StringToHashBucketStrong", shape=same_shape, dtype=_string_dtype,
    kernel=_string_to_hash_bucket_strong_kernel,
    attrs={"num_buckets": None, "key": None}, grad=None, input_names=("input",))


def _check_buckets(num_buckets, op_type):
    """TF's attr check ``num_buckets: int >= 1``, raised when the op is built."""
    num_buckets = int(num_buckets)
    if num_buckets < 1:
        raise ValueError(f"Attr 'num_buckets' of '{op_type}' Op passed {num_buckets} less "
                         "than minimum 1.")
    return num_buckets


def string_to_hash_bucket(input, num_buckets, name=None):  # noqa: A002 - TF's name
    """Each string's bucket ``Hash64(s) % num_buckets`` (TF2's ``tf.strings.to_hash_bucket``).

    Prefer :func:`string_to_hash_bucket_fast` (a stable fingerprint) in new code, as TF says."""
    return string_to_hash_bucket_op.bind(
        string_values(input),
        num_buckets=_check_buckets(num_buckets, "StringToHashBucket"),
        name=name or "StringToHashBucket")


def string_to_hash_bucket_v1(string_tensor=None, num_buckets=None, name=None, input=None):  # noqa: A002
    """``tf.compat.v1.string_to_hash_bucket``: ``input`` is the deprecated ``string_tensor``."""
    return string_to_hash_bucket(input if string_tensor is None else string_tensor,
                                 num_buckets, name=name)


def string_to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """Each string's bucket ``Fingerprint64(s) % num_buckets`` (farmhash)."""
    return string_to_hash_bucket_fast_op.bind(
        string_values(input),
        num_buckets=_check_buckets(num_buckets, "StringToHashBucketFast"),
        name=name or "StringToHashBucketFast")


def string_to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Each string's bucket ``SipHash-2-4(key, s) % num_buckets``; ``key`` is two ints."""
    key = [int(k) for k in key]
    if len(key) != 2:
        raise errors.InvalidArgumentError(
            None, None, "Key must have 2 elements")
    return string_to_hash_bucket_strong_op.bind(
        string_values(input),
        num_buckets=_check_buckets(num_buckets, "StringToHashBucketStrong"), key=key,
        name=name or "StringToHashBucketStrong")


# ── Fingerprint ──────────────────────────────────────────────────────────────────────
def _fingerprint_shape(data, method):
    rank = data.shape.ndims
    if rank is not None and rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {rank}")
    m = constant_value(method)
    if m is not None:
        m = as_bytes(np.asarray(m).item()).decode("utf-8", "replace")
        if m != "farmhash64":
            raise ValueError(f"Unsupported method: {m}")
    dim0 = data.shape[0] if rank is not None else None
    return TensorShape([dim0, 8])


def _fingerprint_dtype(data, method):
    return _dtypes.uint8


def _fingerprint_kernel(data, method):
    m = as_bytes(np.asarray(method).item()).decode("utf-8", "replace")
    if m != "farmhash64":
        raise errors.InvalidArgumentError(None, None, f"Unsupported fingerprint method: {m}")
    data = np.asarray(data)
    if data.ndim < 1:
        raise errors.InvalidArgumentError(
            None, None, "`data` should have at least one dimension.")
    dim0 = data.shape[0]
    if data.dtype == object:
        fps = [hashing.fingerprint64_bytes(as_bytes(s)) for s in data.reshape(-1)]
        if dim0 and data.size > dim0:
            # Several strings a row: the fingerprint of the row's fingerprints, in order.
            per = data.size // dim0
            fps = [hashing.fingerprint64_bytes(b"".join(fps[i * per:(i + 1) * per]))
                   for i in range(dim0)]
        elif data.size < dim0:
            fps = [hashing.fingerprint64_bytes(b"")] * dim0
    else:
        rows = np.ascontiguousarray(data.astype(data.dtype.newbyteorder("<"))).reshape(dim0, -1)
        fps = [hashing.fingerprint64_bytes(r.tobytes()) for r in rows]
    out = np.frombuffer(b"".join(fps), dtype=np.uint8)
    return out.reshape(dim0, 8).copy()


fingerprint_op = OpDef("Fingerprint", shape=from_tensors(_fingerprint_shape),
                       dtype=_fingerprint_dtype, kernel=_fingerprint_kernel, grad=NO_GRADIENT,
                       input_names=("data", "method"))


def fingerprint(data, method="farmhash64", name=None):
    """farmhash64 fingerprints of ``data``'s rows (``[dim0, 8]`` uint8, little-endian).

    A string vector gets one fingerprint per string; rows of several strings, the
    fingerprint of their fingerprints; numeric rows, the fingerprint of their bytes."""
    if not _is_numeric(data):
        data = string_values(data)
    return fingerprint_op.bind(data, method, name=name or "Fingerprint")


def _is_numeric(value):
    """Whether ``value`` is a numeric tensor or array (else it is taken as strings)."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        arr = np.asarray(value)
        return arr.dtype.kind in "biufc"
    if isinstance(dtype, _dtypes.DType):
        return dtype.base_dtype != _dtypes.string
    return np.dtype(dtype).kind in "biufc"
