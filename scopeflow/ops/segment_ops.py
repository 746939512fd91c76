"""Segment reductions (``SegmentSum``, ``SparseSegment{Sum,Mean,SqrtN}``) and ``Unique``,
which produces the ids they reduce over.

``segment_ids`` are sorted (TF checks that they never decrease) and the output has
``segment_ids[-1] + 1`` rows. The sparse variants first pick rows of ``data`` with
``indices`` (``out[s] = reduce(data[indices[i]] for i where segment_ids[i] == s)``), which
is how ``embedding_lookup_sparse`` combines embeddings without materialising them. With
``sparse_gradient=True`` their gradient reaches ``data`` as ``IndexedSlices`` over the
distinct looked-up rows (TF's ``SparseSegment*GradV2``), so an embedding table is
updated sparsely.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops

__all__ = [
    "unique", "segment_sum", "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
]

_INDEX = (dtypes.int32, dtypes.int64)
_REAL = (dtypes.float16, dtypes.float32, dtypes.float64)
_NUMERIC = _REAL + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                    dtypes.uint16, dtypes.complex64, dtypes.complex128)


def _num_segments(segment_ids, what):
    """``segment_ids[-1] + 1`` after checking the ids are sorted and non-negative."""
    ids = np.asarray(segment_ids).astype(np.int64, copy=False)
    if ids.size == 0:
        return ids, 0
    if ids[0] < 0:
        raise InvalidArgumentError(None, None, f"{what} ids must be >= 0, got {ids[0]}")
    drops = np.flatnonzero(ids[1:] < ids[:-1])
    if drops.size:
        i = int(drops[0])
        raise InvalidArgumentError(
            None, None, f"segment ids are not increasing: segment_ids[{i}] = {ids[i]} > "
            f"segment_ids[{i + 1}] = {ids[i + 1]}")
    return ids, int(ids[-1]) + 1


def _sum_sorted(rows, ids, n):
    """Sums runs of equal sorted ``ids`` of ``rows`` into an ``n``-row result."""
    out = np.zeros((n,) + rows.shape[1:], rows.dtype)
    if ids.size:
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        out[ids[starts]] = np.add.reduceat(rows, starts, axis=0)
    return out


# ── Unique ───────────────────────────────────────────────────────────────────────────
UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])


def _unique_kernel(x, *, out_idx):
    if x.ndim != 1:
        raise InvalidArgumentError(None, None, f"unique expects a 1D vector, got shape "
                                   f"{list(x.shape)}")
    # np.unique sorts; TF keeps first-occurrence order, so renumber by first position.
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype)


def _unique_dtype(x, *, out_idx):
    if out_idx not in _INDEX:
        raise TypeError(f"Value passed to parameter 'out_idx' has DataType {out_idx.name} not "
                        "in list of allowed values: int32, int64")
    return [x, out_idx]


unique_op = OpDef("Unique", shape=lambda x, *, out_idx: [TensorShape([None]), x.with_rank(1)],
                  dtype=_unique_dtype, kernel=_unique_kernel, num_outputs=2, grad=NO_GRADIENT,
                  attrs={"out_idx": dtypes.int32}, input_names=("x",))


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D ``x`` in first-seen order, and each element's position.

    >>> y, idx = tf.unique([4, 1, 4, 2])
    >>> tf.Session().run([y, idx])
    [array([4, 1, 2], dtype=int32), array([0, 1, 0, 2], dtype=int32)]
    """
    y, idx = unique_op.bind(x, out_idx=dtypes.as_dtype(out_idx), name=name)
    return UniqueOutput(y, idx)


# ── SegmentSum ───────────────────────────────────────────────────────────────────────
def _segment_shape(data, segment_ids):
    segment_ids.with_rank(1)
    if data.ndims is not None:
        data.with_rank_at_least(1)
        data[:1].assert_is_compatible_with(segment_ids)
        return TensorShape([None]).concatenate(data[1:])
    return TensorShape(None)


def _segment_dtype(data, segment_ids):
    check_dtype(segment_ids, _INDEX, "segment_ids")
    return check_dtype(data, _NUMERIC, "data")


def _segment_sum_kernel(data, segment_ids):
    if data.shape[:1] != segment_ids.shape:
        raise InvalidArgumentError(None, None, f"segment_ids should be the same size as "
                                   f"dimension 0 of input, got {segment_ids.shape[0]} and "
                                   f"{data.shape[0] if data.ndim else 'a scalar'}")
    ids, n = _num_segments(segment_ids, "segment")
    return _sum_sorted(data, ids, n)


segment_sum_op = OpDef("SegmentSum", shape=_segment_shape, dtype=_segment_dtype,
                       kernel=_segment_sum_kernel, input_names=("data", "segment_ids"))
# TF's _SegmentSumGrad: every row receives its segment's gradient.
segment_sum_op.def_grad(lambda op, dy: [array_ops.gather(dy, op.inputs[1]), None])


def segment_sum(data, segment_ids, name=None) -> Tensor:
    """``out[s] = sum(data[i] for i where segment_ids[i] == s)``; ids sorted.

    >>> tf.Session().run(tf.math.segment_sum([1.0, 2.0, 3.0, 4.0], [0, 0, 2, 2]))
    array([3., 0., 7.], dtype=float32)
    """
    with name_scope(name, "SegmentSum", [data, segment_ids]) as scope:
        return segment_sum_op.bind(convert_to_tensor(data, name="data"),
                                   convert_to_tensor(segment_ids, name="segment_ids"),
                                   name=scope)


# ── SparseSegmentSum / Mean / SqrtN ──────────────────────────────────────────────────
def _row_scale(counts, combiner, dtype):
    """Per-segment divisor for each combiner (empty segments stay 0, never 0/0)."""
    if combiner == "Sum":
        return None
    counts = np.maximum(counts, 1).astype(dtype)
    return counts if combiner == "Mean" else np.sqrt(counts)


def _sparse_segment_shape(data, indices, segment_ids, *, sparse_gradient=False):
    indices.with_rank(1)
    segment_ids.with_rank(1)
    indices.assert_is_compatible_with(segment_ids)
    if data.ndims is None:
        return TensorShape(None)
    return TensorShape([None]).concatenate(data.with_rank_at_least(1)[1:])


def _sparse_segment_dtype(allowed):
    def rule(data, indices, segment_ids, *, sparse_gradient=False):
        check_dtype(indices, _INDEX, "indices")
        check_dtype(segment_ids, _INDEX, "segment_ids")
        return check_dtype(data, allowed, "data")
    return rule


def _checked_rows(op_type, data_rows, indices, segment_ids):
    if indices.shape != segment_ids.shape:
        raise InvalidArgumentError(None, None, f"{op_type}: segment_ids and indices should "
                                   f"have same size, got {segment_ids.size} and {indices.size}")
    idx = indices.astype(np.int64, copy=False)
    bad = (idx < 0) | (idx >= data_rows)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidArgumentError(None, None, f"{op_type}: bad indices[{i}] = {idx[i]} is not "
                                   f"in [0, {data_rows})")
    return idx


def _sparse_segment_kernel(combiner):
    op_type = f"SparseSegment{combiner}"

    def kernel(data, indices, segment_ids, *, sparse_gradient=False):
        if data.ndim == 0:
            raise InvalidArgumentError(None, None, f"{op_type}: data must be at least rank 1")
        idx = _checked_rows(op_type, data.shape[0], indices, segment_ids)
        ids, n = _num_segments(segment_ids, "segment")
        out = _sum_sorted(np.take(data, idx, axis=0), ids, n)
        scale = _row_scale(np.bincount(ids, minlength=n), combiner, data.dtype)
        if scale is not None:
            out /= scale.reshape((n,) + (1,) * (data.ndim - 1))
        return out
    return kernel


def _contributions(combiner, dy, indices, segment_ids):
    """Each looked-up row's share of the output gradient (``dy[seg] / divisor[seg]``)."""
    ids = segment_ids.astype(np.int64, copy=False)
    rows = np.take(dy, ids, axis=0)
    scale = _row_scale(np.bincount(ids, minlength=dy.shape[0]), combiner, dy.dtype)
    if scale is not None:
        rows /= scale[ids].reshape((ids.size,) + (1,) * (dy.ndim - 1))
    return rows


def _grad_dense_kernel(combiner):
    def kernel(grad, indices, segment_ids, output_dim0):
        out = np.zeros((int(output_dim0),) + grad.shape[1:], grad.dtype)
        np.add.at(out, indices.astype(np.int64, copy=False),
                  _contributions(combiner, grad, indices, segment_ids))
        return out
    return kernel


def _grad_sparse_kernel(combiner):
    def kernel(grad, indices, segment_ids, dense_output_dim0):
        unique, where = np.unique(indices, return_inverse=True)
        values = np.zeros((unique.size,) + grad.shape[1:], grad.dtype)
        np.add.at(values, where.reshape(-1),
                  _contributions(combiner, grad, indices, segment_ids))
        return values, unique
    return kernel


def _grad_shape(grad, indices, segment_ids, dim0):
    return TensorShape([None]).concatenate(grad[1:]) if grad.ndims is not None \
        else TensorShape(None)


def _grad_dtype(grad, indices, segment_ids, dim0):
    check_dtype(dim0, (dtypes.int32,), "output_dim0")
    return check_dtype(grad, _REAL, "grad")


_INPUTS = ("data", "indices", "segment_ids")
_GRAD_INPUTS = ("grad", "indices", "segment_ids", "output_dim0")
SPARSE_SEGMENT_OPS = {}
for _combiner, _allowed in (("Sum", _NUMERIC), ("Mean", _REAL), ("SqrtN", _REAL)):
    _dense = None
    if _combiner != "Sum":  # Sum's dense gradient is UnsortedSegmentSum of a gather
        _dense = OpDef(f"SparseSegment{_combiner}Grad", shape=_grad_shape, dtype=_grad_dtype,
                       kernel=_grad_dense_kernel(_combiner), grad=NO_GRADIENT,
                       input_names=_GRAD_INPUTS)
    _sparse = OpDef(
        f"SparseSegment{_combiner}GradV2",
        shape=lambda g, i, s, d: [_grad_shape(g, i, s, d), TensorShape([None])],
        dtype=lambda g, i, s, d: [_grad_dtype(g, i, s, d), i],
        kernel=_grad_sparse_kernel(_combiner), num_outputs=2, grad=NO_GRADIENT,
        input_names=("grad", "indices", "segment_ids", "dense_output_dim0"))
    SPARSE_SEGMENT_OPS[_combiner] = (
        OpDef(f"SparseSegment{_combiner}", shape=_sparse_segment_shape,
              dtype=_sparse_segment_dtype(_allowed), kernel=_sparse_segment_kernel(_combiner),
              attrs={"sparse_gradient": False}, input_names=_INPUTS),
        _dense, _sparse)


def _sparse_segment_grad(combiner):
    forward, dense_grad, sparse_grad = SPARSE_SEGMENT_OPS[combiner]

    def grad(op, dy):
        data, indices, segment_ids = op.inputs
        data_shape = array_ops.shape(data)  # int32, as TF's gradient
        dim0 = data_shape[0]
        if op.get_attr("sparse_gradient"):
            values, unique = sparse_grad.create([dy, indices, segment_ids, dim0], {})._outputs
            return [IndexedSlices(values, unique, data_shape), None, None]
        if dense_grad is None:
            rows = array_ops.gather(dy, segment_ids)
            return [math_ops.unsorted_segment_sum(rows, indices, dim0), None, None]
        return [dense_grad.create([dy, indices, segment_ids, dim0], {})._outputs[0],
                None, None]
    forward.def_grad(grad)


for _combiner in SPARSE_SEGMENT_OPS:
    _sparse_segment_grad(_combiner)


def _sparse_segment(combiner, default_name):
    forward = SPARSE_SEGMENT_OPS[combiner][0]

    def fn(data, indices, segment_ids, name=None, num_segments=None, sparse_gradient=False):
        if num_segments is not None:
            raise NotImplementedError(
                f"{default_name}(num_segments=...) (the SparseSegment{combiner}WithNumSegments "
                "op) is not implemented; leave num_segments=None")
        with name_scope(name, default_name, [data, indices, segment_ids]) as scope:
            return forward.bind(convert_to_tensor(data, name="data"),
                                convert_to_tensor(indices, name="indices"),
                                convert_to_tensor(segment_ids, name="segment_ids"),
                                sparse_gradient=bool(sparse_gradient), name=scope)
    fn.__name__ = default_name
    return fn


sparse_segment_sum = _sparse_segment("Sum", "SparseSegmentSum")
sparse_segment_sum.__doc__ = """``out[s] = sum(data[indices[i]] for i where segment_ids[i] == s)``.

    >>> tf.Session().run(tf.sparse.segment_sum([[1.0], [2.0], [4.0]], [0, 2, 2], [0, 0, 1]))
    array([[5.],
           [4.]], dtype=float32)
    """
sparse_segment_mean = _sparse_segment("Mean", "SparseSegmentMean")
sparse_segment_mean.__doc__ = "Like ``sparse_segment_sum``, divided by each segment's size."
sparse_segment_sqrt_n = _sparse_segment("SqrtN", "SparseSegmentSqrtN")
sparse_segment_sqrt_n.__doc__ = \
    "Like ``sparse_segment_sum``, divided by the square root of each segment's size."
