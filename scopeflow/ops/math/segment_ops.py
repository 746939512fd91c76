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
from scopeflow.framework.dtype_groups import COMPLEX, FLOATS, INDEX, SIGNED_INTS, UNSIGNED_INTS
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops

__all__ = [
    "unique", "segment_sum", "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
]

# SegmentSum's and SparseSegmentSum's data types: TF's numbertypes less uint32 and uint64.
_SUMMABLE = FLOATS + SIGNED_INTS + UNSIGNED_INTS[:2] + COMPLEX


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


def _unique_shape(x, *, out_idx):
    return [TensorShape([None]), x.with_rank(1)]


def _unique_dtype(x, *, out_idx):
    return [x, check_dtype(out_idx, INDEX, "out_idx")]


unique_op = OpDef("Unique", shape=_unique_shape,
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
    check_dtype(segment_ids, INDEX, "segment_ids")
    return check_dtype(data, _SUMMABLE, "data")


def _segment_sum_kernel(data, segment_ids):
    if data.shape[:1] != segment_ids.shape:
        raise InvalidArgumentError(None, None, f"segment_ids should be the same size as "
                                   f"dimension 0 of input, got {segment_ids.shape[0]} and "
                                   f"{data.shape[0] if data.ndim else 'a scalar'}")
    ids, n = _num_segments(segment_ids, "segment")
    return _sum_sorted(data, ids, n)


segment_sum_op = OpDef("SegmentSum", shape=_segment_shape, dtype=_segment_dtype,
                       kernel=_segment_sum_kernel, input_names=("data", "segment_ids"))


@segment_sum_op.def_grad
def _segment_sum_grad(op, dy):
    """TF's _SegmentSumGrad: every row receives its segment's gradient."""
    return [array_ops.gather(dy, op.inputs[1]), None]


def segment_sum(data, segment_ids, name=None) -> Tensor:
    """``out[s] = sum(data[i] for i where segment_ids[i] == s)``; ids sorted.

    >>> tf.Session().run(tf.math.segment_sum([1.0, 2.0, 3.0, 4.0], [0, 0, 2, 2]))
    array([3., 0., 7.], dtype=float32)
    """
    with name_scope(name, "SegmentSum", [data, segment_ids]) as scope:
        return segment_sum_op.bind(convert_to_tensor(data, name="data"),
                                   convert_to_tensor(segment_ids, name="segment_ids"),
                                   name=scope)


# ── SparseSegmentSum / Mean / SqrtN: shared rules ────────────────────────────────────
# Each forward op's gradient is UnsortedSegmentSum of a gather (Sum) or its dense gradient op
# (``SparseSegment{Mean,SqrtN}Grad``), or with ``sparse_gradient=True`` its sparse gradient
# op (``SparseSegment*GradV2``, TF's), whose outputs are an ``IndexedSlices``.
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


def _sparse_segment_dtype(data, indices, segment_ids, allowed):
    check_dtype(indices, INDEX, "indices")
    check_dtype(segment_ids, INDEX, "segment_ids")
    return check_dtype(data, allowed, "data")


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


def _sparse_segment_reduce(op_type, combiner, data, indices, segment_ids):
    """The forward kernels: ``data[indices]`` summed by segment, divided per ``combiner``."""
    if data.ndim == 0:
        raise InvalidArgumentError(None, None, f"{op_type}: data must be at least rank 1")
    idx = _checked_rows(op_type, data.shape[0], indices, segment_ids)
    ids, n = _num_segments(segment_ids, "segment")
    out = _sum_sorted(np.take(data, idx, axis=0), ids, n)
    scale = _row_scale(np.bincount(ids, minlength=n), combiner, data.dtype)
    if scale is not None:
        out /= scale.reshape((n,) + (1,) * (data.ndim - 1))
    return out


def _contributions(combiner, dy, indices, segment_ids):
    """Each looked-up row's share of the output gradient (``dy[seg] / divisor[seg]``)."""
    ids = segment_ids.astype(np.int64, copy=False)
    rows = np.take(dy, ids, axis=0)
    scale = _row_scale(np.bincount(ids, minlength=dy.shape[0]), combiner, dy.dtype)
    if scale is not None:
        rows /= scale[ids].reshape((ids.size,) + (1,) * (dy.ndim - 1))
    return rows


def _dense_grad(combiner, grad, indices, segment_ids, output_dim0):
    """The dense gradient kernels (``SparseSegment{Mean,SqrtN}Grad``)."""
    out = np.zeros((int(output_dim0),) + grad.shape[1:], grad.dtype)
    np.add.at(out, indices.astype(np.int64, copy=False),
              _contributions(combiner, grad, indices, segment_ids))
    return out


def _sparse_grad(combiner, grad, indices, segment_ids):
    """The sparse gradient kernels (``SparseSegment*GradV2``): values and unique rows."""
    unique, where = np.unique(indices, return_inverse=True)
    values = np.zeros((unique.size,) + grad.shape[1:], grad.dtype)
    np.add.at(values, where.reshape(-1), _contributions(combiner, grad, indices, segment_ids))
    return values, unique


def _grad_shape(grad, indices, segment_ids, dim0):
    return TensorShape([None]).concatenate(grad[1:]) if grad.ndims is not None \
        else TensorShape(None)


def _grad_dtype(grad, indices, segment_ids, dim0):
    check_dtype(dim0, (dtypes.int32,), "output_dim0")
    return check_dtype(grad, FLOATS, "grad")


def _grad_v2_shape(grad, indices, segment_ids, dim0):
    return [_grad_shape(grad, indices, segment_ids, dim0), TensorShape([None])]


def _grad_v2_dtype(grad, indices, segment_ids, dim0):
    return [_grad_dtype(grad, indices, segment_ids, dim0), indices]


def _sparse_segment_grad(op, dy):
    """The forward ops' gradient rule: with no dense gradient op, Sum's (a gather's
    UnsortedSegmentSum)."""
    _, dense_grad_op, sparse_grad_op = SPARSE_SEGMENT_OPS[op.type[len("SparseSegment"):]]
    data, indices, segment_ids = op.inputs
    data_shape = array_ops.shape(data)  # int32, as TF's gradient
    dim0 = data_shape[0]
    if op.get_attr("sparse_gradient"):
        values, unique = sparse_grad_op.create([dy, indices, segment_ids, dim0], {})._outputs
        return [IndexedSlices(values, unique, data_shape), None, None]
    if dense_grad_op is None:
        rows = array_ops.gather(dy, segment_ids)
        return [math_ops.unsorted_segment_sum(rows, indices, dim0), None, None]
    return [dense_grad_op.create([dy, indices, segment_ids, dim0], {})._outputs[0], None, None]


def _bind_sparse_segment(forward, data, indices, segment_ids, name, num_segments,
                         sparse_gradient, default_name):
    if num_segments is not None:
        raise NotImplementedError(
            f"{default_name}(num_segments=...) (the {forward.type}WithNumSegments op) is not "
            "implemented; leave num_segments=None")
    with name_scope(name, default_name, [data, indices, segment_ids]) as scope:
        return forward.bind(convert_to_tensor(data, name="data"),
                            convert_to_tensor(indices, name="indices"),
                            convert_to_tensor(segment_ids, name="segment_ids"),
                            sparse_gradient=bool(sparse_gradient), name=scope)


_INPUTS = ("data", "indices", "segment_ids")
_GRAD_INPUTS = ("grad", "indices", "segment_ids", "output_dim0")
_GRAD_V2_INPUTS = ("grad", "indices", "segment_ids", "dense_output_dim0")


def _define_sparse_segment(combiner, allowed, kernel, grad_v2_kernel, grad_kernel=None):
    """``SparseSegment<combiner>`` over ``allowed`` data types, its gradient ops
    (``SparseSegment<combiner>Grad`` only with a ``grad_kernel``, else Sum's gather, and
    ``SparseSegment<combiner>GradV2``), registered in that order: ``(forward op, dense
    gradient op or None, sparse gradient op)``."""
    op_type = "SparseSegment" + combiner

    def dtype(data, indices, segment_ids, *, sparse_gradient=False):
        return _sparse_segment_dtype(data, indices, segment_ids, allowed)

    dense_grad_op = OpDef(op_type + "Grad", shape=_grad_shape, dtype=_grad_dtype,
                          kernel=grad_kernel, grad=NO_GRADIENT,
                          input_names=_GRAD_INPUTS) if grad_kernel else None
    sparse_grad_op = OpDef(op_type + "GradV2", shape=_grad_v2_shape, dtype=_grad_v2_dtype,
                           kernel=grad_v2_kernel, num_outputs=2, grad=NO_GRADIENT,
                           input_names=_GRAD_V2_INPUTS)
    forward = OpDef(op_type, shape=_sparse_segment_shape, dtype=dtype, kernel=kernel,
                    attrs={"sparse_gradient": False}, grad=_sparse_segment_grad,
                    input_names=_INPUTS)
    return forward, dense_grad_op, sparse_grad_op


def _sparse_segment_sum_kernel(data, indices, segment_ids, *, sparse_gradient=False):
    return _sparse_segment_reduce("SparseSegmentSum", "Sum", data, indices, segment_ids)


def _sparse_segment_sum_grad_v2_kernel(grad, indices, segment_ids, dense_output_dim0):
    return _sparse_grad("Sum", grad, indices, segment_ids)


def _sparse_segment_mean_kernel(data, indices, segment_ids, *, sparse_gradient=False):
    return _sparse_segment_reduce("SparseSegmentMean", "Mean", data, indices, segment_ids)


def _sparse_segment_mean_grad_kernel(grad, indices, segment_ids, output_dim0):
    return _dense_grad("Mean", grad, indices, segment_ids, output_dim0)


def _sparse_segment_mean_grad_v2_kernel(grad, indices, segment_ids, dense_output_dim0):
    return _sparse_grad("Mean", grad, indices, segment_ids)


def _sparse_segment_sqrt_n_kernel(data, indices, segment_ids, *, sparse_gradient=False):
    return _sparse_segment_reduce("SparseSegmentSqrtN", "SqrtN", data, indices, segment_ids)


def _sparse_segment_sqrt_n_grad_kernel(grad, indices, segment_ids, output_dim0):
    return _dense_grad("SqrtN", grad, indices, segment_ids, output_dim0)


def _sparse_segment_sqrt_n_grad_v2_kernel(grad, indices, segment_ids, dense_output_dim0):
    return _sparse_grad("SqrtN", grad, indices, segment_ids)


# Combiner -> (forward op, dense gradient op or None, sparse gradient op).
SPARSE_SEGMENT_OPS = {
    "Sum": _define_sparse_segment("Sum", _SUMMABLE, _sparse_segment_sum_kernel,
                                  _sparse_segment_sum_grad_v2_kernel),
    "Mean": _define_sparse_segment("Mean", FLOATS, _sparse_segment_mean_kernel,
                                   _sparse_segment_mean_grad_v2_kernel,
                                   _sparse_segment_mean_grad_kernel),
    "SqrtN": _define_sparse_segment("SqrtN", FLOATS, _sparse_segment_sqrt_n_kernel,
                                    _sparse_segment_sqrt_n_grad_v2_kernel,
                                    _sparse_segment_sqrt_n_grad_kernel),
}
sparse_segment_sum_op, _, sparse_segment_sum_grad_v2_op = SPARSE_SEGMENT_OPS["Sum"]
(sparse_segment_mean_op, sparse_segment_mean_grad_op,
 sparse_segment_mean_grad_v2_op) = SPARSE_SEGMENT_OPS["Mean"]
(sparse_segment_sqrt_n_op, sparse_segment_sqrt_n_grad_op,
 sparse_segment_sqrt_n_grad_v2_op) = SPARSE_SEGMENT_OPS["SqrtN"]


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None,
                       sparse_gradient=False):
    """``out[s] = sum(data[indices[i]] for i where segment_ids[i] == s)``.

    >>> tf.Session().run(tf.sparse.segment_sum([[1.0], [2.0], [4.0]], [0, 2, 2], [0, 0, 1]))
    array([[5.],
           [4.]], dtype=float32)
    """
    return _bind_sparse_segment(sparse_segment_sum_op, data, indices, segment_ids, name,
                                num_segments, sparse_gradient, "SparseSegmentSum")


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None,
                        sparse_gradient=False):
    """Like ``sparse_segment_sum``, divided by each segment's size."""
    return _bind_sparse_segment(sparse_segment_mean_op, data, indices, segment_ids, name,
                                num_segments, sparse_gradient, "SparseSegmentMean")


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None,
                          sparse_gradient=False):
    """Like ``sparse_segment_sum``, divided by the square root of each segment's size."""
    return _bind_sparse_segment(sparse_segment_sqrt_n_op, data, indices, segment_ids, name,
                                num_segments, sparse_gradient, "SparseSegmentSqrtN")
