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
from scopeflow.framework.dtype_groups import (
    COMPLEX,
    FLOATS,
    INDEX,
    NUMERIC,
    REAL,
    SIGNED_INTS,
    UNSIGNED_INTS,
)
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.indexing_ops import _unsorted_segment_sum_shape
from scopeflow.ops.array.sort_ops import unique_in_order

__all__ = [
    "unique", "segment_sum", "sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
    "segment_max", "segment_min", "segment_mean", "segment_prod", "unsorted_segment_max",
    "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_mean",
    "unsorted_segment_sqrt_n",
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
    values, idx, _ = unique_in_order(x)
    return values, idx.astype(out_idx.as_numpy_dtype)


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
        # As TF's: segment_ids' length is checked against data's first dimension only by
        # the kernel (InvalidArgumentError at run time), not here.
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


# ── SegmentMax / SegmentMin / SegmentMean / SegmentProd: shared rules ───────────────
# TF's generic SegmentReductionOp: sorted ids, ``ids[-1] + 1`` rows, empty segments 0
# (Prod's 1), NaNs skipped by Max and Min (TF's comparisons ignore them).
def _segment_reduce(data, segment_ids, reduce, empty):
    """Each run of equal ``segment_ids`` reduced by the ufunc ``reduce``; ``empty`` fills
    the segments no id names."""
    if data.ndim == 0 or data.shape[:1] != segment_ids.shape:
        raise InvalidArgumentError(None, None, "segment_ids should be the same size as "
                                   "dimension 0 of input.")
    ids = segment_ids.astype(np.int64, copy=False)
    n = int(ids[-1]) + 1 if ids.size else 0
    if ids.size and (ids[1:] < ids[:-1]).any():
        raise InvalidArgumentError(None, None, "segment ids are not increasing")
    if ids.size and ids[0] < 0:
        raise InvalidArgumentError(None, None, f"Segment id {ids[0]} out of range [0, {n}), "
                                   "possibly because 'segment_ids' input is not sorted.")
    out = np.full((n,) + data.shape[1:], empty, data.dtype)
    if ids.size:
        starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
        out[ids[starts]] = reduce.reduceat(data, starts, axis=0)
    return out


def _segment_mean_reduce(data, segment_ids):
    total = _segment_reduce(data, segment_ids, np.add, 0)
    counts = np.maximum(np.bincount(segment_ids.astype(np.int64), minlength=total.shape[0]), 1)
    counts = counts.reshape((-1,) + (1,) * (data.ndim - 1))
    if data.dtype.kind in "iu":  # TF divides integers toward zero
        return (np.sign(total) * (np.abs(total) // counts)).astype(data.dtype)
    return (total / counts.astype(data.dtype)).astype(data.dtype)


def _segment_dtype_in(allowed):
    def rule(data, segment_ids):
        check_dtype(segment_ids, INDEX, "segment_ids")
        return check_dtype(data, allowed, "data")
    return rule


def _segment_op(op_type, allowed, kernel):
    return OpDef(op_type, shape=_segment_shape, dtype=_segment_dtype_in(allowed),
                 kernel=kernel, input_names=("data", "segment_ids"))


def _bind_segment(op_def, data, segment_ids, name):
    return op_def.bind(data, segment_ids, name=name)


def _segment_min_or_max_grad(op, dy):
    """TF's ``_SegmentMinOrMaxGrad``: the gradient is shared by the inputs equal to
    their segment's result."""
    data, ids = op.inputs
    zeros = array_ops.zeros_like(data, dtype=data.dtype)
    gathered_outputs = array_ops.gather(op.outputs[0], ids)
    is_selected = math_ops.equal(data, gathered_outputs)
    num_selected = segment_sum(math_ops.cast(is_selected, dy.dtype), ids)
    weighted = math_ops.divide(dy, num_selected)
    gathered = array_ops.gather(weighted, ids)
    return [math_ops.where_v2(is_selected, gathered, zeros), None]


# ── SegmentMax ───────────────────────────────────────────────────────────────────────
def _segment_max_kernel(data, segment_ids):
    return _segment_reduce(data, segment_ids, np.fmax, 0)


segment_max_op = _segment_op("SegmentMax", REAL, _segment_max_kernel)
segment_max_op.def_grad(_segment_min_or_max_grad)


def segment_max(data, segment_ids, name=None) -> Tensor:
    """``out[s] = max(data[i] for i where segment_ids[i] == s)``; ids sorted, empty 0.

    >>> tf.Session().run(tf.math.segment_max([1.0, 5.0, 3.0], [0, 0, 2]))
    array([5., 0., 3.], dtype=float32)
    """
    return _bind_segment(segment_max_op, data, segment_ids, name)


# ── SegmentMin ───────────────────────────────────────────────────────────────────────
def _segment_min_kernel(data, segment_ids):
    return _segment_reduce(data, segment_ids, np.fmin, 0)


segment_min_op = _segment_op("SegmentMin", REAL, _segment_min_kernel)
segment_min_op.def_grad(_segment_min_or_max_grad)


def segment_min(data, segment_ids, name=None) -> Tensor:
    """``out[s] = min(data[i] for i where segment_ids[i] == s)``; ids sorted, empty 0."""
    return _bind_segment(segment_min_op, data, segment_ids, name)


# ── SegmentMean ──────────────────────────────────────────────────────────────────────
def _segment_mean_kernel(data, segment_ids):
    return _segment_mean_reduce(data, segment_ids)


segment_mean_op = _segment_op("SegmentMean", NUMERIC, _segment_mean_kernel)


@segment_mean_op.def_grad
def _segment_mean_grad(op, dy):
    """TF's ``_SegmentMeanGrad``: each row gets its segment's gradient over its size."""
    data, ids = op.inputs
    data_rank = array_ops.rank(data)
    ids_shape = array_ops.shape(ids)
    remaining = array_ops.ones(array_ops.expand_dims(math_ops.subtract(data_rank, 1), 0),
                               dtype=ids_shape.dtype)
    ones = array_ops.ones(array_ops.concat([ids_shape, remaining], 0), dtype=dy.dtype)
    scaled = math_ops.divide(dy, segment_sum(ones, ids))
    return [array_ops.gather(scaled, ids), None]


def segment_mean(data, segment_ids, name=None) -> Tensor:
    """``out[s]`` the mean of the rows of segment ``s``; ids sorted, empty 0 (integer
    means round toward zero, as TF)."""
    return _bind_segment(segment_mean_op, data, segment_ids, name)


# ── SegmentProd ──────────────────────────────────────────────────────────────────────
def _segment_prod_kernel(data, segment_ids):
    return _segment_reduce(data, segment_ids, np.multiply, 1)


segment_prod_op = _segment_op("SegmentProd", NUMERIC, _segment_prod_kernel)


@segment_prod_op.def_grad
def _segment_prod_grad(op, dy):
    """TF's ``_SegmentProdGrad``: the product of the other rows, exact when a segment
    holds one zero, and 0 when it holds several."""
    data, ids = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    num_zeros = segment_sum(math_ops.cast(is_zero, dtypes.int32), ids)
    dy = math_ops.where_v2(math_ops.greater(num_zeros, array_ops.ones_like(num_zeros)),
                           array_ops.zeros_like(dy), dy)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = segment_prod(non_zero_data, ids)
    gathered_prod = array_ops.gather(op.outputs[0], ids)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, ids)
    partial = math_ops.where_v2(is_zero, gathered_non_zero_prod,
                                math_ops.truediv(gathered_prod, non_zero_data))
    return [math_ops.multiply(array_ops.gather(dy, ids), partial), None]


def segment_prod(data, segment_ids, name=None) -> Tensor:
    """``out[s] = prod(data[i] for i where segment_ids[i] == s)``; ids sorted, empty 1.

    >>> tf.Session().run(tf.math.segment_prod([2.0, 3.0, 4.0], [0, 0, 2]))
    array([6., 1., 4.], dtype=float32)
    """
    return _bind_segment(segment_prod_op, data, segment_ids, name)


# ── UnsortedSegmentMax / Min / Prod: shared rules ────────────────────────────────────
def _unsorted_segment_reduce(data, segment_ids, num_segments, reduce, empty):
    """``reduce.at`` of the rows of each id below ``num_segments`` into rows that start at
    ``empty`` (the reduction's identity: lowest, highest or 1); negative ids are dropped."""
    ids, n = np.asarray(segment_ids), int(num_segments)
    if data.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(
            None, None, f"data.shape = {list(data.shape)} does not start with segment_ids.shape "
            f"= {list(ids.shape)}")
    if n < 0:
        raise InvalidArgumentError(None, None, f"num_segments must be >= 0, got {n}")
    flat = ids.reshape(-1).astype(np.int64)
    rows = data.reshape((flat.size,) + data.shape[ids.ndim:])
    bad = flat >= n
    if bad.any():
        i = int(np.argmax(bad))
        where_ = ",".join(map(str, np.unravel_index(i, ids.shape)))
        raise InvalidArgumentError(None, None, f"segment_ids[{where_}] = {flat[i]} is out of "
                                   f"range [0, {n})")
    keep = flat >= 0
    flat, rows = flat[keep], rows[keep]
    if reduce in (np.fmax, np.fmin) and rows.dtype.kind == "f" and np.isnan(rows).any():
        return _extreme_nan_last_wins(rows, flat, n, reduce, empty)
    out = np.full((n,) + data.shape[ids.ndim:], empty, data.dtype)
    reduce.at(out, flat, rows)
    return out


def _extreme_nan_last_wins(rows, flat, n, reduce, empty):
    """TF's segment max (min) with NaN rows: each step is ``acc = v < acc ? acc : v``
    (``v > acc``), so a NaN replaces the accumulator and the next value replaces the NaN:
    a segment's result is the extreme of its values after its last NaN (NaN if none)."""
    idx = np.broadcast_to(np.arange(flat.size).reshape((-1,) + (1,) * (rows.ndim - 1)),
                          rows.shape)
    nan = np.isnan(rows)
    last = np.full((n,) + rows.shape[1:], -1, np.int64)
    np.maximum.at(last, flat, np.where(nan, idx, -1))
    out = np.full((n,) + rows.shape[1:], np.nan, rows.dtype)
    reduce.at(out, flat, np.where(idx > last[flat], rows, np.nan))  # NaNs are skipped
    return np.where(last < 0, reduce(out, rows.dtype.type(empty)), out)  # no NaN: from empty


def _extreme(dtype, highest):
    if dtype.kind == "f":
        info = np.finfo(dtype)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
    else:
        raise TypeError(dtype)
    return info.max if highest else info.min


def _unsorted_segment_dtype_in(allowed):
    def rule(data, segment_ids, num_segments):
        check_dtype(segment_ids, INDEX, "segment_ids")
        check_dtype(num_segments, INDEX, "num_segments")
        return check_dtype(data, allowed, "data")
    return rule


def _unsorted_segment_op(op_type, allowed, kernel):
    return OpDef(op_type, shape=from_tensors(_unsorted_segment_sum_shape),
                 dtype=_unsorted_segment_dtype_in(allowed), kernel=kernel,
                 input_names=("data", "segment_ids", "num_segments"))


def _gather_drop_negatives(params, ids, zero_clipped=None, is_positive=None):
    """TF's ``_GatherDropNegatives``: ``params[ids]`` with the rows of negative ids 0."""
    if zero_clipped is None:
        zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, array_ops.zeros_like(ids))
        is_positive_shape = array_ops.shape(is_positive)
        extra = array_ops.ones(
            array_ops.expand_dims(math_ops.subtract(array_ops.rank(gathered),
                                                    array_ops.rank(is_positive)), 0),
            dtype=is_positive_shape.dtype)
        is_positive = array_ops.reshape(is_positive,
                                        array_ops.concat([is_positive_shape, extra], 0))
        is_positive = math_ops.logical_and(
            is_positive, array_ops.ones_like(gathered, dtype=dtypes.bool))
    zero_slice = array_ops.zeros_like(gathered)
    return math_ops.where_v2(is_positive, gathered, zero_slice), zero_clipped, is_positive


def _unsorted_segment_min_or_max_grad(op, dy):
    """TF's ``_UnsortedSegmentMinOrMaxGrad``: shared among the rows equal to the result."""
    data, ids, num_segments = op.inputs
    gathered_outputs, zero_clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = math_ops.logical_and(math_ops.equal(data, gathered_outputs), is_positive)
    num_selected = math_ops.unsorted_segment_sum(math_ops.cast(is_selected, dy.dtype), ids,
                                                 num_segments)
    weighted = math_ops.divide(dy, num_selected)
    gathered, _, _ = _gather_drop_negatives(weighted, None, zero_clipped, is_positive)
    return [math_ops.where_v2(is_selected, gathered, array_ops.zeros_like(gathered)),
            None, None]


# ── UnsortedSegmentMax ───────────────────────────────────────────────────────────────
def _unsorted_segment_max_kernel(data, segment_ids, num_segments):
    return _unsorted_segment_reduce(data, segment_ids, num_segments, np.fmax,
                                    _extreme(data.dtype, False))


unsorted_segment_max_op = _unsorted_segment_op("UnsortedSegmentMax", REAL,
                                               _unsorted_segment_max_kernel)
unsorted_segment_max_op.def_grad(_unsorted_segment_min_or_max_grad)


def unsorted_segment_max(data, segment_ids, num_segments, name=None) -> Tensor:
    """``out[s] = max(data[i] for i where segment_ids[i] == s)`` for ``s < num_segments``;
    an empty segment is the dtype's lowest value, negative ids are dropped.

    >>> tf.Session().run(tf.unsorted_segment_max([1, 5, 3], [1, 1, 0], 2))
    array([3, 5], dtype=int32)
    """
    return unsorted_segment_max_op.bind(data, segment_ids, num_segments, name=name)


# ── UnsortedSegmentMin ───────────────────────────────────────────────────────────────
def _unsorted_segment_min_kernel(data, segment_ids, num_segments):
    return _unsorted_segment_reduce(data, segment_ids, num_segments, np.fmin,
                                    _extreme(data.dtype, True))


unsorted_segment_min_op = _unsorted_segment_op("UnsortedSegmentMin", REAL,
                                               _unsorted_segment_min_kernel)
unsorted_segment_min_op.def_grad(_unsorted_segment_min_or_max_grad)


def unsorted_segment_min(data, segment_ids, num_segments, name=None) -> Tensor:
    """Like ``unsorted_segment_max`` with the minimum; an empty segment is the dtype's
    highest value."""
    return unsorted_segment_min_op.bind(data, segment_ids, num_segments, name=name)


# ── UnsortedSegmentProd ──────────────────────────────────────────────────────────────
def _unsorted_segment_prod_kernel(data, segment_ids, num_segments):
    return _unsorted_segment_reduce(data, segment_ids, num_segments, np.multiply, 1)


unsorted_segment_prod_op = _unsorted_segment_op("UnsortedSegmentProd", NUMERIC,
                                                _unsorted_segment_prod_kernel)


@unsorted_segment_prod_op.def_grad
def _unsorted_segment_prod_grad(op, dy):
    """TF's ``_UnsortedSegmentProdGrad``: as SegmentProd's, dropping negative ids."""
    data, ids, num_segments = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    num_zeros = math_ops.unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32), ids,
                                              num_segments)
    dy = math_ops.where_v2(math_ops.greater(num_zeros, array_ops.ones_like(num_zeros)),
                           array_ops.zeros_like(dy), dy)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero_data, ids, num_segments)
    zero_clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped)
    partial = math_ops.where_v2(is_zero, gathered_non_zero_prod,
                                math_ops.truediv(gathered_prod, data))
    gathered_dy = _gather_drop_negatives(dy, ids, zero_clipped)[0]
    return [math_ops.multiply(gathered_dy, partial), None, None]


def unsorted_segment_prod(data, segment_ids, num_segments, name=None) -> Tensor:
    """Like ``unsorted_segment_max`` with the product; an empty segment is 1."""
    return unsorted_segment_prod_op.bind(data, segment_ids, num_segments, name=name)


# ── unsorted_segment_mean / unsorted_segment_sqrt_n (composites) ─────────────────────
def _unsorted_segment_n(data, segment_ids, num_segments):
    """TF's ``_unsorted_segment_N``: each segment's row count (at least 1), shaped to
    broadcast against the summed rows."""
    num_segments = convert_to_tensor(num_segments)
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = math_ops.unsorted_segment_sum(ones, segment_ids, num_segments)
    extra = array_ops.ones(
        array_ops.expand_dims(math_ops.subtract(array_ops.rank(data),
                                                array_ops.rank(segment_ids)), 0),
        dtype=num_segments.dtype)
    shape = array_ops.concat([array_ops.expand_dims(num_segments, 0), extra], 0)
    return math_ops.maximum(array_ops.reshape(n, shape), _one_like(n))


def _one_like(t):
    """The scalar 1 of ``t``'s dtype (TF's ``maximum(n, 1)``)."""
    return convert_to_tensor(np.ones((), t.dtype.as_numpy_dtype))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None) -> Tensor:
    """The mean of each segment's rows (0 for an empty one); negative ids are dropped."""
    with name_scope(name, "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = math_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        out = math_ops.truediv(summed, n)
        out.set_shape(summed.shape)  # n broadcasts into the sums' shape
        return out


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None) -> Tensor:
    """Each segment's sum over the square root of its row count; negative ids dropped."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = math_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        out = math_ops.truediv(summed, math_ops.sqrt(n))
        out.set_shape(summed.shape)  # n broadcasts into the sums' shape
        return out
