"""Feature crosses: ``SparseCrossV2`` (``tf.sparse.cross``: the joined strings) and
``SparseCross`` (``tf.sparse.cross_hashed``: farmhash ``FingerprintCat64`` of the features'
hashes, TF's exact integers). For each row of the batch, every combination of one value
from each input (the first input varying slowest; SparseTensors before dense tensors, as
TF orders them) gives one output entry. Not differentiable (TF registers no gradient).
"""

from __future__ import annotations

import itertools

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import math_ops
from scopeflow.ops.sparse.sparse_kernels import invalid
from scopeflow.ops.strings.hashing import fingerprint64

__all__ = ["sparse_cross", "sparse_cross_hashed"]

_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_MASK = (1 << 64) - 1
_KMUL = 0xC6A4A7935BD1E995


def _shift_mix(v):
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's ``FingerprintCat64``: two 64-bit fingerprints combined (order matters)."""
    result = fp1 ^ _KMUL
    result ^= (_shift_mix((fp2 * _KMUL) & _MASK) * _KMUL) & _MASK
    result = (result * _KMUL) & _MASK
    result = (_shift_mix(result) * _KMUL) & _MASK
    return _shift_mix(result)


def _as_bytes(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    return str(int(v)).encode()


def _columns(arrays, n_sparse):
    """Per input, per batch row, that row's values; and the batch size."""
    inds, vals, shapes = (arrays[:n_sparse], arrays[n_sparse:2 * n_sparse],
                          arrays[2 * n_sparse:3 * n_sparse])
    dense = arrays[3 * n_sparse:]
    batch = None
    for s in shapes:
        s = np.asarray(s)
        if len(s) != 2:
            raise invalid(f"Expected 2D sparse tensor, got shape {list(s)}")
        batch = int(s[0]) if batch is None else batch
        if int(s[0]) != batch:
            raise invalid(f"Expected batch size {batch} got {int(s[0])}")
    for d in dense:
        d = np.asarray(d)
        if d.ndim != 2:
            raise invalid(f"Dense inputs should be a matrix but received shape "
                          f"{list(d.shape)}")
        batch = d.shape[0] if batch is None else batch
        if d.shape[0] != batch:
            raise invalid(f"Expected batch size {batch} got {d.shape[0]}")
    batch = batch or 0
    cols = []
    for ind, val in zip(inds, vals):
        ind, val = np.asarray(ind, np.int64), np.asarray(val)
        order = np.argsort(ind[:, 0], kind="stable")
        rows, val = ind[order, 0], val[order]
        bounds = np.searchsorted(rows, np.arange(batch + 1))
        cols.append([list(val[bounds[b]:bounds[b + 1]]) for b in range(batch)])
    for d in dense:
        cols.append([list(row) for row in np.asarray(d)])
    return cols, batch


def _cross(arrays, n_sparse, combine, out_dtype):
    cols, batch = _columns(arrays, n_sparse)
    indices, values = [], []
    width = 0
    for b in range(batch):
        combos = list(itertools.product(*(c[b] for c in cols))) if cols else []
        width = max(width, len(combos))
        indices.extend([b, j] for j in range(len(combos)))
        values.extend(combine(c) for c in combos)
    out = np.array(values, out_dtype) if values else np.zeros(0, out_dtype)
    return (np.array(indices, np.int64).reshape(-1, 2), out,
            np.array([batch, width], np.int64))


def _cross_shapes(*shapes, **attrs):
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


def _check_types(dts, n_sparse):
    for d in dts[n_sparse:2 * n_sparse] + dts[3 * n_sparse:]:
        check_dtype(d, (dtypes.int64, dtypes.string), "values")


# ── SparseCrossV2 ────────────────────────────────────────────────────────────────────
def _v2_kernel(*arrays, N):
    sep = _as_bytes(np.asarray(arrays[-1]).item())
    return _cross(arrays[:-1], N, lambda combo: sep.join(_as_bytes(v) for v in combo),
                  object)


def _v2_dtype(*dts, N):
    _check_types(dts[:-1], N)
    check_dtype(dts[-1], (dtypes.string,), "sep")
    return [dtypes.int64, dtypes.string, dtypes.int64]


cross_v2_op = OpDef("SparseCrossV2", shape=_cross_shapes, dtype=_v2_dtype, kernel=_v2_kernel,
                    attrs={"N": 0}, num_outputs=3, grad=NO_GRADIENT,
                    input_names=("indices", "values", "shapes", "dense_inputs", "sep"))


# ── SparseCross ──────────────────────────────────────────────────────────────────────
def _feature_hash(v):
    if isinstance(v, (bytes, str)):
        return fingerprint64(_as_bytes(v))
    return int(v) & _MASK


def _cross_kernel(*arrays, N, hashed_output, num_buckets, hash_key, out_type,
                  internal_type):
    if not hashed_output:
        return _cross(arrays, N, lambda combo: b"_X_".join(_as_bytes(v) for v in combo),
                      object)
    modulus = num_buckets if num_buckets > 0 else (1 << 63) - 1

    def combine(combo):
        h = hash_key & _MASK
        for v in combo:
            h = fingerprint_cat64(h, _feature_hash(v))
        return h % modulus
    return _cross(arrays, N, combine, np.int64)


def _cross_dtype(*dts, N, hashed_output, num_buckets, hash_key, out_type, internal_type):
    _check_types(dts, N)
    return [dtypes.int64, out_type, dtypes.int64]


cross_op = OpDef("SparseCross", shape=_cross_shapes, dtype=_cross_dtype, kernel=_cross_kernel,
                 attrs={"N": 0, "hashed_output": False, "num_buckets": 0, "hash_key": 0,
                        "out_type": dtypes.string, "internal_type": dtypes.string},
                 num_outputs=3, grad=NO_GRADIENT,
                 input_names=("indices", "values", "shapes", "dense_inputs"))


# ── The public functions ─────────────────────────────────────────────────────────────
def _split_inputs(inputs, message):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, Tensor)) for i in inputs):
        raise TypeError(message)
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [i for i in inputs if not isinstance(i, SparseTensor)]
    values = [sp.values if sp.values.dtype == dtypes.string else
              math_ops.cast(sp.values, dtypes.int64) for sp in sparse]
    dense = [d if d.dtype == dtypes.string else math_ops.cast(d, dtypes.int64) for d in dense]
    return sparse, values, dense


def sparse_cross(inputs, name=None, separator=None) -> SparseTensor:
    """The string crosses of the batch rows of 2-D SparseTensors and dense matrices.

    >>> a = tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
    >>> tf.Session().run(tf.sparse.cross([a, tf.constant([["x"]])])).values.tolist()
    [b'a_X_x', b'b_X_x']
    """
    separator = convert_to_tensor("_X_" if separator is None else separator, dtypes.string)
    sparse, values, dense = _split_inputs(inputs, "All inputs must be Tensor or SparseTensor.")
    out = cross_v2_op.bind(*[sp.indices for sp in sparse], *values,
                           *[sp.dense_shape for sp in sparse], *dense, separator,
                           N=len(sparse), name=name)
    return SparseTensor(*out)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """The crosses' int64 hashes (FingerprintCat64 of each feature's Fingerprint64, or of
    the integer itself), modulo ``num_buckets`` when it is positive."""
    sparse, values, dense = _split_inputs(inputs, "All inputs must be SparseTensors")
    internal = dtypes.int64 if any(v.dtype != dtypes.string for v in values + dense) \
        else dtypes.string
    out = cross_op.bind(*[sp.indices for sp in sparse], *values,
                        *[sp.dense_shape for sp in sparse], *dense, N=len(sparse),
                        hashed_output=True, num_buckets=int(num_buckets),
                        hash_key=int(hash_key or _DEFAULT_HASH_KEY), out_type=dtypes.int64,
                        internal_type=internal, name=name)
    return SparseTensor(*out)
