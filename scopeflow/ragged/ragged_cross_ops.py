"""``RaggedCross`` (``tf.ragged.cross``, ``tf.ragged.cross_hashed``): feature crosses of
2-D RaggedTensors, SparseTensors and dense matrices, as TF's kernel (ragged_cross_op.cc).

Unlike ``SparseCross``, the inputs keep the caller's order (the ``input_order`` attr,
e.g. ``"RSD"``): per batch row, every combination of one value from each input, the last
input varying fastest. String crosses join the values (integers in decimal) with
``"_X_"``; hashed crosses fold farmhash ``FingerprintCat64`` from ``hash_key`` over each
value's hash (an integer is its own hash, a string its ``Fingerprint64``), modulo
``num_buckets`` when positive, else modulo ``2**63 - 1``, as ``tf.sparse.cross_hashed``.
TF registers no gradient.
"""

from __future__ import annotations

import itertools

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import math_ops
from scopeflow.ops.sparse.sparse_cross_ops import _as_bytes, _feature_hash, fingerprint_cat64
from scopeflow.ragged.ragged_tensor import RaggedTensor

__all__ = ["cross", "cross_hashed"]

_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_MASK = (1 << 64) - 1
_BATCH_MESSAGE = "inputs must all have the same batch dimension size."


def _groups(items, attrs):
    """The flat inputs split into ragged values, ragged splits, sparse indices, values,
    shapes and dense inputs."""
    counts = [len(attrs["ragged_values_types"])] * 2 + [attrs["Nsparse"]] * 3 + \
        [len(attrs["dense_types"])]
    out, pos = [], 0
    for n in counts:
        out.append(list(items[pos:pos + n]))
        pos += n
    return out


def _shape(*shapes, **attrs):
    """Values ``[?]``; splits ``[batch + 1]`` where a ragged input's splits or a dense
    input's rows fix the batch (sparse inputs are checked at run time only)."""
    _, splits, _, _, _, dense = _groups(shapes, attrs)
    batch = None
    sizes = [s.dims[0] - 1 for s in splits if s.ndims and s.dims[0] is not None]
    sizes += [d.dims[0] for d in dense if d.ndims and d.dims[0] is not None]
    for size in sizes:
        if batch is not None and size != batch:
            raise ValueError(_BATCH_MESSAGE)
        batch = size
    return [TensorShape([None]), TensorShape([None if batch is None else batch + 1])]


def _dtype(*dts, **attrs):
    return [attrs["out_values_type"], attrs["out_row_splits_type"]]


def _columns(arrays, attrs):
    """Per input (in ``input_order``), per batch row, that row's feature values."""
    rvals, rsplits, sind, svals, sshape, dense = _groups(arrays, attrs)
    batch = None
    per_kind = {"R": [], "S": [], "D": []}
    sizes = [len(s) - 1 for s in rsplits] + [int(np.asarray(s)[0]) for s in sshape] + \
        [np.asarray(d).shape[0] for d in dense]
    for size in sizes:
        if batch is not None and size != batch:
            raise errors.InvalidArgumentError(None, None, _BATCH_MESSAGE)
        batch = size
    batch = batch or 0
    for vals, splits in zip(rvals, rsplits):
        vals, splits = list(np.asarray(vals)), np.asarray(splits, np.int64)
        per_kind["R"].append([vals[splits[b]:splits[b + 1]] for b in range(batch)])
    for ind, vals in zip(sind, svals):
        ind, vals = np.asarray(ind, np.int64).reshape(-1, 2), list(np.asarray(vals))
        rows = [[] for _ in range(batch)]
        for (row, _), v in zip(ind.tolist(), vals):
            rows[row].append(v)
        per_kind["S"].append(rows)
    for d in dense:
        per_kind["D"].append([list(row) for row in np.asarray(d)])
    iters = {k: iter(v) for k, v in per_kind.items()}
    return [next(iters[k]) for k in attrs["input_order"]], batch


def _kernel(*arrays, **attrs):
    cols, batch = _columns(arrays, attrs)
    if attrs["hashed_output"]:
        modulus = attrs["num_buckets"] if attrs["num_buckets"] > 0 else (1 << 63) - 1
        key = attrs["hash_key"] & _MASK

        def combine(combo):
            h = key
            for v in combo:
                h = fingerprint_cat64(h, _feature_hash(v))
            return h % modulus
        dtype = np.int64
    else:
        def combine(combo):
            return b"_X_".join(_as_bytes(v) for v in combo)
        dtype = object
    values, splits = [], [0]
    for b in range(batch):
        combos = itertools.product(*(c[b] for c in cols)) if cols else ()
        values.extend(combine(c) for c in combos)
        splits.append(len(values))
    out = np.array(values, dtype) if values else np.zeros(0, dtype)
    return [out, np.array(splits, attrs["out_row_splits_type"].as_numpy_dtype)]


ragged_cross_op = OpDef(
    "RaggedCross", shape=_shape, dtype=_dtype, kernel=_kernel,
    attrs={"Nsparse": 0, "input_order": "", "hashed_output": False, "num_buckets": 0,
           "hash_key": 0, "ragged_values_types": [], "ragged_splits_types": [],
           "sparse_values_types": [], "dense_types": [], "out_values_type": dtypes.string,
           "out_row_splits_type": dtypes.int64},
    num_outputs=2, grad=NO_GRADIENT)


def _prepared(i, t):
    """Input ``i`` as a RaggedTensor, SparseTensor or Tensor of int64 or string, and its
    kind letter."""
    if not isinstance(t, (SparseTensor, RaggedTensor)):
        t = convert_to_tensor(t)
    if t.dtype.is_integer:
        if isinstance(t, RaggedTensor):
            t = t.with_flat_values(math_ops.cast(t.flat_values, dtypes.int64))
        elif isinstance(t, SparseTensor):
            t = SparseTensor(t.indices, math_ops.cast(t.values, dtypes.int64), t.dense_shape)
        else:
            t = math_ops.cast(t, dtypes.int64)
    elif t.dtype != dtypes.string:
        raise ValueError(f"Unexpected dtype for inputs[{i}]: {t.dtype!r}")
    if isinstance(t, RaggedTensor):
        if t.ragged_rank != 1:
            raise ValueError("tf.ragged.cross only supports inputs with rank=2")
        return t, "R"
    return t, "S" if isinstance(t, SparseTensor) else "D"


def _cross(inputs, hashed_output, num_buckets, hash_key, name):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    hash_key = _DEFAULT_HASH_KEY if hash_key is None else int(hash_key)
    with name_scope(name, "RaggedCross"):
        prepared = [_prepared(i, t) for i, t in enumerate(inputs)]
        ragged = [t for t, k in prepared if k == "R"]
        sparse = [t for t, k in prepared if k == "S"]
        dense = [t for t, k in prepared if k == "D"]
        splits_type = dtypes.int32 if ragged and all(
            t.row_splits.dtype == dtypes.int32 for t in ragged) else dtypes.int64
        if hash_key > 2 ** 63:
            hash_key -= 2 ** 64
        flat = [t.values for t in ragged] + [t.row_splits for t in ragged] + \
            [t.indices for t in sparse] + [t.values for t in sparse] + \
            [t.dense_shape for t in sparse] + dense
        values, splits = ragged_cross_op.bind(
            *flat, name=name, Nsparse=len(sparse),
            input_order="".join(k for _, k in prepared), hashed_output=hashed_output,
            num_buckets=int(num_buckets), hash_key=hash_key,
            ragged_values_types=[t.dtype for t in ragged],
            ragged_splits_types=[t.row_splits.dtype for t in ragged],
            sparse_values_types=[t.dtype for t in sparse],
            dense_types=[t.dtype for t in dense],
            out_values_type=dtypes.int64 if hashed_output else dtypes.string,
            out_row_splits_type=splits_type)
        return RaggedTensor.from_row_splits(values, splits, validate=False)


def cross(inputs, name=None) -> RaggedTensor:
    """The string crosses of 2-D ragged, sparse and dense inputs, row by row.

    >>> r = tf.ragged.constant([["a", "b"], ["c"]])
    >>> tf.Session().run(tf.ragged.cross([r, tf.constant([["x"], ["y"]])])).to_list()
    [[b'a_X_x', b'b_X_x'], [b'c_X_y']]
    """
    return _cross(inputs, False, 0, None, name)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> RaggedTensor:
    """The crosses' int64 farmhash values (``FingerprintCat64``), modulo ``num_buckets``
    when positive: TF's exact integers."""
    return _cross(inputs, True, num_buckets, hash_key, name)
