"""Arithmetic on SparseTensors: ``SparseAdd`` (``tf.sparse.add``), ``SparseTensorDenseAdd``,
``SparseTensorDenseMatMul`` (``tf.sparse.sparse_dense_matmul``), the reductions
``SparseReduce{Sum,Max}[Sparse]``, ``SparseSoftmax``, ``SparseSparse{Maximum,Minimum}``,
``SparseDenseCwiseAdd`` (the softmax gradient's) and the dense ``SparseMatMul``
(``tf.sparse_matmul``: MatMul with sparsity hints).

Each op is TF's op type with TF's registered gradient (``sparse_grad.py``); as in TF,
SparseSparseMaximum/Minimum's gradients raise ``NotImplementedError`` when reached.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import COMPLEX, FLOATS, INDEX, UNSIGNED_INTS
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, broadcast_shape, check_dtype, from_tensors
from scopeflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from scopeflow.framework.tensor_shape import TensorShape, unknown_shape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.scatter_nd_ops import ordered_rounds
from scopeflow.ops.math.arithmetic_ops import conj
from scopeflow.ops.math.reduction_ops import reduced_shape
from scopeflow.ops.sparse.sparse_kernels import (
    check_sparse,
    invalid,
    match_rows,
    normalize_axes,
    row_keys,
)

__all__ = ["sparse_add", "sparse_add_v2", "sparse_tensor_dense_matmul", "sparse_reduce_sum",
           "sparse_reduce_sum_sparse", "sparse_reduce_max", "sparse_reduce_max_sparse",
           "sparse_softmax", "sparse_maximum", "sparse_minimum", "sparse_matmul",
           "convert_to_sparse_tensor", "convert_to_tensor_or_sparse_tensor"]

_NUMBERS = FLOATS + INDEX + UNSIGNED_INTS + (dtypes.int8, dtypes.int16) + COMPLEX
_REAL = FLOATS + INDEX + UNSIGNED_INTS + (dtypes.int8, dtypes.int16)


def convert_to_sparse_tensor(sp_input) -> SparseTensor:
    """A SparseTensor from a SparseTensor or SparseTensorValue, else TF's TypeError."""
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def _indices_dtype(dt, what):
    check_dtype(dt, (dtypes.int64,), what)


def _sparse_triple_shapes(indices, values, shape):
    indices.with_rank(2)
    values.with_rank(1)
    shape.with_rank(1)


# ── SparseAdd ────────────────────────────────────────────────────────────────────────
def _sparse_add_shape(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    for s in (a_indices, b_indices):
        s.with_rank(2)
    a_values.with_rank(1)
    b_values.with_rank(1)
    a_shape.with_rank(1)
    thresh.with_rank(0)
    rank = a_indices[1] if a_indices.ndims == 2 else None
    return [TensorShape([None, rank]), TensorShape([None]), a_shape]


def _sparse_add_dtype(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    _indices_dtype(a_indices, "a_indices")
    _indices_dtype(b_indices, "b_indices")
    check_dtype(a_values, _NUMBERS, "a_values")
    if b_values != a_values:
        raise TypeError(f"Input 'b_values' of 'SparseAdd' Op has type {b_values.name} that "
                        f"does not match type {a_values.name} of argument 'a_values'.")
    return [dtypes.int64, a_values, dtypes.int64]


def _merge(a_idx, a_val, b_idx, b_val, shape):
    """The union of two index sets, row-major, each position once; values of positions in
    both are summed. Returns (indices, values, from_a, from_b) with -1 for absent."""
    keys = np.concatenate([row_keys(a_idx, shape), row_keys(b_idx, shape)])
    order = np.argsort(keys, kind="stable")
    skeys = keys[order]
    first = np.ones(len(skeys), bool)
    first[1:] = skeys[1:] != skeys[:-1]
    group = np.cumsum(first) - 1
    n_out = int(group[-1]) + 1 if len(group) else 0
    na = len(a_idx)
    from_a = np.full(n_out, -1, np.int64)
    from_b = np.full(n_out, -1, np.int64)
    is_a = order < na
    from_a[group[is_a]] = order[is_a]
    from_b[group[~is_a]] = order[~is_a] - na
    indices = np.concatenate([a_idx, b_idx]).reshape(-1, len(shape))[order[first]]
    return indices, from_a, from_b


def _check_same_shape(a_shape, b_shape):
    if a_shape.shape != b_shape.shape:
        raise invalid(f"Operands do not have the same ranks; got shapes: "
                      f"{_vec(a_shape)} and {_vec(b_shape)}")
    bad = np.flatnonzero(a_shape != b_shape)
    if len(bad):
        d = int(bad[0])
        raise invalid(f"Operands' shapes do not match: got {a_shape[d]} and {b_shape[d]} for "
                      f"dimension {d}")


def _vec(v):
    return "[" + ",".join(str(int(x)) for x in v) + "]"


def _sparse_add_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    a_idx, a_val, a_shape = check_sparse(a_indices, a_values, a_shape, "a")
    b_idx, b_val, b_shape = check_sparse(b_indices, b_values, b_shape, "b")
    if a_idx.shape[1] != b_idx.shape[1]:
        raise invalid(f"Input indices must have the same dimension, got {a_idx.shape[1]} and "
                      f"{b_idx.shape[1]}")
    _check_same_shape(a_shape, b_shape)
    indices, from_a, from_b = _merge(a_idx, a_val, b_idx, b_val, a_shape)
    values = np.zeros(len(indices), a_val.dtype)
    has_a, has_b = from_a >= 0, from_b >= 0
    values[has_a] += a_val[from_a[has_a]]
    values[has_b] += b_val[from_b[has_b]]
    # TF applies the threshold to the sums only: entries of one operand are always kept.
    keep = ~(has_a & has_b) | (np.abs(values) >= thresh)
    return indices[keep], values[keep], a_shape


sparse_add_op = OpDef("SparseAdd", shape=_sparse_add_shape, dtype=_sparse_add_dtype,
                      kernel=_sparse_add_kernel, num_outputs=3,
                      input_names=("a_indices", "a_values", "a_shape", "b_indices",
                                   "b_values", "b_shape", "thresh"))


def _sparse_add_grad_shape(grad, a_indices, b_indices, sum_indices):
    return [TensorShape([a_indices[0] if a_indices.ndims else None]),
            TensorShape([b_indices[0] if b_indices.ndims else None])]


def _sparse_add_grad_kernel(grad, a_indices, b_indices, sum_indices):
    grad = np.asarray(grad)
    out = []
    for idx in (a_indices, b_indices):
        where = match_rows(idx, sum_indices)
        g = np.zeros(len(where), grad.dtype)
        g[where >= 0] = grad[where[where >= 0]]
        out.append(g)
    return out


sparse_add_grad_op = OpDef("SparseAddGrad", shape=_sparse_add_grad_shape,
                           dtype=lambda g, *rest: [g, g], kernel=_sparse_add_grad_kernel,
                           num_outputs=2, grad=None,
                           input_names=("backprop_val_grad", "a_indices", "b_indices",
                                        "sum_indices"))


@sparse_add_op.def_grad
def _sparse_add_grad(op, _d_indices, d_values, _d_shape):
    """TF's _SparseAddGrad: each operand's values take the sum's gradient where present."""
    a_grad, b_grad = sparse_add_grad_op.bind(d_values, op.inputs[0], op.inputs[3],
                                             op.outputs[0])
    a_grad.set_shape(op.inputs[1].shape)
    b_grad.set_shape(op.inputs[4].shape)
    return [None, a_grad, None, None, b_grad, None, None]


# ── SparseTensorDenseAdd ─────────────────────────────────────────────────────────────
def _sparse_dense_add_kernel(a_indices, a_values, a_shape, b):
    idx, vals, shape = check_sparse(a_indices, a_values, a_shape, "a")
    b = np.asarray(b)
    if tuple(shape) != b.shape:
        raise invalid(f"Dimension mismatch: expected a.shape == b.shape: {_vec(shape)} vs "
                      f"{_vec(b.shape)}")
    out = b.copy()
    if len(idx):
        np.add.at(out, tuple(idx.T), vals)
    return out


sparse_dense_add_op = OpDef(
    "SparseTensorDenseAdd", shape=lambda i, v, s, b: b,
    dtype=lambda i, v, s, b: v, kernel=_sparse_dense_add_kernel,
    input_names=("a_indices", "a_values", "a_shape", "b"))


@sparse_dense_add_op.def_grad
def _sparse_dense_add_grad(op, dy):
    return [None, array_ops.gather_nd(dy, op.inputs[0]), None, dy]


def sparse_add_v2(a, b, threshold=0):
    """``a + b`` where one or both are SparseTensors (``tf.sparse.add`` in TF2).

    Two SparseTensors give a SparseTensor (``SparseAdd``): positions where both have a
    value hold the sum, dropped when its magnitude is under ``threshold``. A SparseTensor
    and a dense Tensor give a dense Tensor (``SparseTensorDenseAdd``). Indices must be in
    row-major order, as TF assumes.
    """
    sparse_classes = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse_classes) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if all(isinstance(x, sparse_classes) for x in (a, b)):
        a, b = convert_to_sparse_tensor(a), convert_to_sparse_tensor(b)
        threshold = convert_to_tensor(threshold, dtype=a.values.dtype.real_dtype.base_dtype,
                                      name="threshold")
        ind, val, shape = sparse_add_op.bind(a.indices, a.values, a.dense_shape, b.indices,
                                             b.values, b.dense_shape, threshold)
        a.shape.assert_is_compatible_with(b.shape)
        try:
            static = broadcast_shape(a.shape, b.shape)
        except ValueError:
            static = TensorShape(None)
        if static.is_fully_defined():
            shape = static.as_list()
        return SparseTensor(ind, val, shape)
    if isinstance(b, sparse_classes):
        a, b = b, a
    a = convert_to_sparse_tensor(a)
    return sparse_dense_add_op.bind(a.indices, a.values, a.dense_shape, b)


def sparse_add(a, b, threshold=None, thresh=None):
    """TF1's ``tf.sparse.add``/``tf.sparse_add``: ``thresh`` is ``threshold``'s old name."""
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'")
    threshold = threshold if threshold is not None else thresh
    return sparse_add_v2(a, b, 0 if threshold is None else threshold)


# ── SparseTensorDenseMatMul ──────────────────────────────────────────────────────────
def _spmm_shape(a_indices, a_values, a_shape, b, *, adjoint_a, adjoint_b):
    a_indices.shape.with_rank(2)
    a_values.shape.with_rank(1)
    b_shape = b.shape.with_rank(2)
    value = constant_value(a_shape)
    a_dims = [None, None] if value is None else [int(d) for d in value]
    if len(a_dims) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(a_dims)}")
    m, ka = a_dims[::-1] if adjoint_a else a_dims
    bd = b_shape.as_tuple() or (None, None)
    kb, n = bd[::-1] if adjoint_b else bd
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(f"Dimensions must be equal, but are {ka} and {kb}")
    return TensorShape([m, n])


def _spmm_dtype(a_indices, a_values, a_shape, b, *, adjoint_a, adjoint_b):
    check_dtype(a_indices, (dtypes.int32, dtypes.int64), "a_indices")
    if b != a_values:
        raise TypeError(f"Input 'b' of 'SparseTensorDenseMatMul' Op has type {b.name} that "
                        f"does not match type {a_values.name} of argument 'a_values'.")
    return a_values


def _spmm_kernel(a_indices, a_values, a_shape, b, *, adjoint_a, adjoint_b):
    idx, vals = np.asarray(a_indices, np.int64), np.asarray(a_values)
    a_shape, b = np.asarray(a_shape, np.int64), np.asarray(b)
    if len(a_shape) != 2 or idx.ndim != 2 or idx.shape[1] != 2:
        raise invalid(f"Tensor 'a_shape' is not a vector of length 2: {_vec(a_shape)}")
    if b.ndim != 2:
        raise invalid(f"Tensor 'b' is not a matrix: {_vec(b.shape)}")
    rows, cols = idx[:, 0], idx[:, 1]
    m, k = a_shape
    if adjoint_a:
        rows, cols, m, k = cols, rows, k, m
        vals = np.conj(vals)
    b = np.conj(b.T) if adjoint_b else b
    if b.shape[0] != k:
        raise invalid(f"Cannot multiply A and B because inner dimension does not match: {k} "
                      f"vs. {b.shape[0]}.  Did you forget a transpose?  Dimensions of A: "
                      f"[{a_shape[0]}, {a_shape[1]}).  Dimensions of B: {_vec(b.shape)}")
    bad = (cols < 0) | (cols >= k)
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid(f"k ({cols[i]}) from index[{i},{0 if adjoint_a else 1}] out of bounds "
                      f"(>={k})")
    bad = (rows < 0) | (rows >= m)
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid(f"m ({rows[i]}) from index[{i},{1 if adjoint_a else 0}] out of bounds "
                      f"(>={m})")
    return _spmm_accumulate(rows, cols, vals, b, m)


def _spmm_accumulate(rows, cols, vals, b, m):
    """``out[rows[i]] += vals[i] * b[cols[i]]`` for each nonzero in order (TF's CPU loop,
    so each output row sums its products in index order), in rounds of distinct rows
    (:func:`~scopeflow.ops.array.scatter_nd_ops.ordered_rounds`) rather than ``np.add.at``,
    whose per-row cost was most of the op's time."""
    out = np.zeros((m, b.shape[1]), np.result_type(vals, b))
    rounds = ordered_rounds(rows, limit=max(8, rows.size // 16))
    if rounds is None:
        np.add.at(out, rows, vals[:, None] * b[cols])
        return out
    for r in rounds:
        p = rows[r]
        out[p] += vals[r][:, None] * b[cols[r]]
    return out


spmm_op = OpDef("SparseTensorDenseMatMul", shape=from_tensors(_spmm_shape), dtype=_spmm_dtype,
                kernel=_spmm_kernel, attrs={"adjoint_a": False, "adjoint_b": False},
                input_names=("a_indices", "a_values", "a_shape", "b"))


@spmm_op.def_grad
def _spmm_grad(op, dy):
    """TF's _SparseTensorDenseMatMulGrad: ``b``'s gradient is A^H @ dy (itself a sparse
    product); the values' gradient is dy's row dotted with b's column at each index."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    if a_values.dtype.base_dtype != b.dtype.base_dtype:
        raise TypeError(f"SparseTensorDenseMatMul op received operands with different "
                        f"types: `{a_values.dtype}` and `{b.dtype}`.")
    b_grad = spmm_op.bind(a_indices, a_values, a_shape, dy, adjoint_a=not adj_a,
                          name="SparseTensorDenseMatMul")
    if adj_b:
        b_grad = array_ops.transpose(conj(b_grad))
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = array_ops.gather(dy, cols if adj_a else rows)
    parts_b = array_ops.gather(array_ops.transpose(b) if adj_b else b,
                               rows if adj_a else cols)
    ex = array_ops.expand_dims
    if not adj_a and not adj_b:
        g = math_ops.matmul(ex(parts_a, -2), ex(parts_b, -2), adjoint_b=True)
    elif adj_a and not adj_b:
        g = math_ops.matmul(ex(parts_a, -1), ex(parts_b, -1), adjoint_a=True)
    elif not adj_a:
        g = math_ops.matmul(ex(parts_a, -2), ex(parts_b, -1))
    else:
        g = math_ops.matmul(ex(parts_a, -1), ex(parts_b, -2), adjoint_a=True, adjoint_b=True)
    return [None, array_ops.squeeze(g, axis=[-2, -1]), None, b_grad]


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None) -> Tensor:
    """The dense product of a 2-D SparseTensor and a dense matrix (either may be sparse:
    a sparse ``b`` multiplies as ``(b^T a^T)^T``, as TF does).

    >>> sp = tf.SparseTensor([[0, 1], [1, 0]], [2., 3.], [2, 2])
    >>> tf.Session().run(tf.sparse.sparse_dense_matmul(sp, [[1.], [10.]]))
    array([[20.],
           [ 3.]], dtype=float32)
    """
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        if adjoint_a != adjoint_b:
            return array_ops.transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a,
                                                                  adjoint_b))
        return array_ops.transpose(sparse_tensor_dense_matmul(
            b, sp_a, adjoint_a=not adjoint_a, adjoint_b=not adjoint_b))
    sp_a = convert_to_sparse_tensor(sp_a)
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        return spmm_op.bind(sp_a.indices, sp_a.values, sp_a.dense_shape, b,
                            adjoint_a=bool(adjoint_a), adjoint_b=bool(adjoint_b))


# ── SparseReduceSum / SparseReduceMax (and their *Sparse forms) ──────────────────────
def _reduce_shape(indices, values, shape, axes, *, keep_dims):
    indices.shape.with_rank(2)
    values.shape.with_rank(1)
    dims, ax = constant_value(shape), constant_value(axes)
    if dims is None or ax is None:
        return unknown_shape()
    dims = [int(d) for d in dims]
    rank = len(dims)
    ax = np.asarray(ax).reshape(-1)
    if any(a < -rank or a >= rank for a in ax):
        return unknown_shape()  # as TF's: the kernel reports the bad axis when it runs
    ax = {int(a) % rank for a in ax} if rank else set()
    return TensorShape([1 if i in ax else d for i, d in enumerate(dims)] if keep_dims else
                       [d for i, d in enumerate(dims) if i not in ax])


def _reduce_sparse_shape(indices, values, shape, axes, *, keep_dims):
    indices.with_rank(2)
    values.with_rank(1)
    return [TensorShape(None)] * 3  # TF's shape function leaves all three unknown


def _reduce_dtype(indices, values, shape, axes, *, keep_dims, kinds=_NUMBERS):
    _indices_dtype(indices, "input_indices")
    check_dtype(values, kinds, "input_values")
    check_dtype(axes, (dtypes.int32,), "reduction_axes")
    return values


def _groups(indices, values, shape, axes):
    """The reduced groups: each entry's group, the groups' kept-dims indices, the
    kept-dims shape and the reduced axes."""
    idx, vals, shape = check_sparse(indices, values, shape, "input")
    axes = normalize_axes(axes, len(shape))
    kept_idx = idx.copy()
    kept_idx[:, axes] = 0
    kept_shape = shape.copy()
    kept_shape[axes] = 1
    keys = row_keys(kept_idx, kept_shape)
    uniq, first, group = np.unique(keys, return_index=True, return_inverse=True)
    return vals, group.reshape(-1), kept_idx[first], kept_shape, axes, len(uniq)


def _group_reduce(vals, group, n, how):
    if how == "sum":
        out = np.zeros(n, vals.dtype)
        np.add.at(out, group, vals)
        return out
    init = np.finfo(vals.dtype).min if vals.dtype.kind == "f" else np.iinfo(vals.dtype).min
    out = np.full(n, init, vals.dtype)
    np.maximum.at(out, group, vals)
    return out


def _reduce_dense(indices, values, shape, axes, keep_dims, how):
    vals, group, kept_idx, kept_shape, axes, n = _groups(indices, values, shape, axes)
    out = np.zeros(int(np.prod(kept_shape)), vals.dtype)  # TF: 0 where no values
    out[row_keys(kept_idx, kept_shape)] = _group_reduce(vals, group, n, how)
    out = out.reshape(kept_shape)
    return out if keep_dims else out.reshape([d for i, d in enumerate(kept_shape)
                                              if i not in set(axes)])


def _reduce_to_triple(indices, values, shape, axes, keep_dims, how):
    vals, group, kept_idx, kept_shape, axes, n = _groups(indices, values, shape, axes)
    out_vals = _group_reduce(vals, group, n, how)
    if keep_dims:
        return kept_idx, out_vals, kept_shape
    keep = [i for i in range(len(kept_shape)) if i not in set(axes)]
    return kept_idx[:, keep], out_vals, kept_shape[keep]


def _reduce_sum_kernel(indices, values, shape, axes, *, keep_dims):
    return _reduce_dense(indices, values, shape, axes, keep_dims, "sum")


def _reduce_max_kernel(indices, values, shape, axes, *, keep_dims):
    return _reduce_dense(indices, values, shape, axes, keep_dims, "max")


def _reduce_sum_sparse_kernel(indices, values, shape, axes, *, keep_dims):
    return _reduce_to_triple(indices, values, shape, axes, keep_dims, "sum")


def _reduce_max_sparse_kernel(indices, values, shape, axes, *, keep_dims):
    return _reduce_to_triple(indices, values, shape, axes, keep_dims, "max")


_REDUCE_INPUTS = ("input_indices", "input_values", "input_shape", "reduction_axes")
reduce_sum_op = OpDef("SparseReduceSum", shape=from_tensors(_reduce_shape), dtype=_reduce_dtype,
                      kernel=_reduce_sum_kernel, attrs={"keep_dims": False},
                      input_names=_REDUCE_INPUTS)
reduce_sum_sparse_op = OpDef(
    "SparseReduceSumSparse", shape=_reduce_sparse_shape,
    dtype=lambda *d, keep_dims: [dtypes.int64, _reduce_dtype(*d, keep_dims=keep_dims),
                                 dtypes.int64],
    kernel=_reduce_sum_sparse_kernel, attrs={"keep_dims": False}, num_outputs=3,
    grad=NO_GRADIENT, input_names=_REDUCE_INPUTS)
reduce_max_op = OpDef(
    "SparseReduceMax", shape=from_tensors(_reduce_shape),
    dtype=lambda *d, keep_dims: _reduce_dtype(*d, keep_dims=keep_dims, kinds=_REAL),
    kernel=_reduce_max_kernel, attrs={"keep_dims": False}, grad=NO_GRADIENT,
    input_names=_REDUCE_INPUTS)
reduce_max_sparse_op = OpDef(
    "SparseReduceMaxSparse", shape=_reduce_sparse_shape,
    dtype=lambda *d, keep_dims: [dtypes.int64,
                                 _reduce_dtype(*d, keep_dims=keep_dims, kinds=_REAL),
                                 dtypes.int64],
    kernel=_reduce_max_sparse_kernel, attrs={"keep_dims": False}, num_outputs=3,
    grad=NO_GRADIENT, input_names=_REDUCE_INPUTS)


@reduce_sum_op.def_grad
def _reduce_sum_grad(op, dy):
    """TF's _SparseReduceSumGrad: each value takes the gradient of the cell it summed into."""
    sp_indices, sp_shape = op.inputs[0], op.inputs[2]
    kept = reduced_shape(sp_shape, op.inputs[3])
    dy = array_ops.reshape(dy, kept)
    scale = sp_shape // math_ops.cast(kept, dtypes.int64)
    return [None, array_ops.gather_nd(dy, sp_indices // scale), None, None]


def _reduction_axes(sp_input, axis):
    """TF's math_ops._ReductionDims for a SparseTensor: every axis when ``axis`` is None."""
    if axis is not None:
        return axis
    # As TF: the rank is known when ``dense_shape``'s length is; otherwise it is the
    # ``Size`` of ``dense_shape`` at run time (TF's ``rank`` of a SparseTensor, op "Rank").
    rank = sp_input.dense_shape.shape.as_tuple()
    if rank is not None and rank[0]:
        return convert_to_tensor(np.arange(rank[0], dtype=np.int32))
    with name_scope(None, "Rank", [sp_input.dense_shape]) as scope:
        rank = array_ops.size_op.bind(sp_input.dense_shape, out_type=dtypes.int32, name=scope)
    return math_ops.range(0, rank)


def _keepdims(keepdims, keep_dims):
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    value = keepdims if keepdims is not None else keep_dims
    return bool(value) if value is not None else False


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The sum of a SparseTensor's values along ``axis`` (all axes by default), dense.

    >>> sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1., 2., 3.], [2, 3])
    >>> tf.Session().run(tf.sparse.reduce_sum(sp, 1))
    array([3., 3.], dtype=float32)
    """
    axis = _axis_alias(axis, reduction_axes)
    sp_input = convert_to_sparse_tensor(sp_input)
    return reduce_sum_op.bind(sp_input.indices, sp_input.values, sp_input.dense_shape,
                              _reduction_axes(sp_input, axis),
                              keep_dims=_keepdims(keepdims, keep_dims))


def _axis_alias(axis, reduction_axes):
    if axis is not None and reduction_axes is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_axes'")
    return axis if axis is not None else reduction_axes


def _reduce_to_sparse(op, sp_input, axis, keepdims, reduction_axes, keep_dims):
    axis = _axis_alias(axis, reduction_axes)
    sp_input = convert_to_sparse_tensor(sp_input)
    ind, val, shape = op.bind(sp_input.indices, sp_input.values, sp_input.dense_shape,
                              _reduction_axes(sp_input, axis),
                              keep_dims=_keepdims(keepdims, keep_dims))
    return SparseTensor(ind, val, shape)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None) -> SparseTensor:
    """``sparse_reduce_sum`` whose result is a SparseTensor of the non-empty sums."""
    return _reduce_to_sparse(reduce_sum_sparse_op, sp_input, axis, keepdims, reduction_axes,
                             keep_dims)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The maximum of a SparseTensor's values along ``axis``; implicit zeros take no part
    (a cell with no values at all holds 0, as in TF)."""
    axis = _axis_alias(axis, reduction_axes)
    sp_input = convert_to_sparse_tensor(sp_input)
    return reduce_max_op.bind(sp_input.indices, sp_input.values, sp_input.dense_shape,
                              _reduction_axes(sp_input, axis),
                              keep_dims=_keepdims(keepdims, keep_dims))


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None) -> SparseTensor:
    """``sparse_reduce_max`` whose result is a SparseTensor of the non-empty maxima."""
    return _reduce_to_sparse(reduce_max_sparse_op, sp_input, axis, keepdims, reduction_axes,
                             keep_dims)


# ── SparseSoftmax ────────────────────────────────────────────────────────────────────
def _softmax_kernel(sp_indices, sp_values, sp_shape):
    idx, vals, shape = check_sparse(sp_indices, sp_values, sp_shape, "sp")
    if len(shape) < 2:
        raise invalid(f"Input should have rank >= 2, but received shape: {_vec(shape)}")
    keys = row_keys(idx[:, :-1], shape[:-1])
    _, group = np.unique(keys, return_inverse=True)
    group = group.reshape(-1)
    n = int(group.max()) + 1 if len(group) else 0
    peak = np.full(n, -np.inf, vals.dtype)
    np.maximum.at(peak, group, vals)
    e = np.exp(vals - peak[group])
    total = np.zeros(n, vals.dtype)
    np.add.at(total, group, e)
    return (e / total[group]).astype(vals.dtype)


softmax_op = OpDef("SparseSoftmax", shape=lambda i, v, s: TensorShape([None]).merge_with(v),
                   dtype=lambda i, v, s: (_indices_dtype(i, "sp_indices"),
                                          check_dtype(v, (dtypes.float16, dtypes.float32,
                                                          dtypes.float64), "sp_values"), v)[2],
                   kernel=_softmax_kernel, input_names=("sp_indices", "sp_values", "sp_shape"))


def _dense_at_sparse(idx, shape, dense):
    """The element of ``dense`` (broadcast to ``shape``) at each sparse coordinate, with
    TF's error when ``dense`` does not broadcast to the sparse shape."""
    dense = np.asarray(dense)
    lead = len(shape) - dense.ndim
    tail = [int(d) for d in shape[max(lead, 0):]]
    if lead < 0 or any(d not in (1, t) for d, t in zip(dense.shape, tail)):
        raise invalid(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got "
                      f"incompatible shapes: {_vec(shape)} vs. {_vec(dense.shape)}")
    sub = np.where(np.asarray(dense.shape) == 1, 0, idx[:, lead:])
    return dense[tuple(sub.T)]


def _truncated_quotient(x, y):
    """C's integer division (toward zero), with TF's error for a zero divisor."""
    if np.any(y == 0):
        raise invalid("Integer division by zero")
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -q, q).astype(x.dtype)


def _cwise(fn, sp_indices, sp_values, sp_shape, dense):
    idx, vals, shape = check_sparse(sp_indices, sp_values, sp_shape, "sp")
    other = _dense_at_sparse(idx, shape, dense)
    if len(idx) == 0:
        return vals.copy()
    return np.asarray(fn(vals, other)).astype(vals.dtype)


def _cwise_add_kernel(sp_indices, sp_values, sp_shape, dense):
    return _cwise(np.add, sp_indices, sp_values, sp_shape, dense)


def _cwise_mul_kernel(sp_indices, sp_values, sp_shape, dense):
    return _cwise(np.multiply, sp_indices, sp_values, sp_shape, dense)


def _cwise_div_kernel(sp_indices, sp_values, sp_shape, dense):
    return _cwise(_divide, sp_indices, sp_values, sp_shape, dense)


def _divide(x, y):
    if x.dtype.kind in "iu":
        return _truncated_quotient(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return x / y


cwise_add_op = OpDef("SparseDenseCwiseAdd", shape=lambda i, v, s, d: TensorShape([None]),
                     dtype=lambda i, v, s, d: v, kernel=_cwise_add_kernel,
                     input_names=("sp_indices", "sp_values", "sp_shape", "dense"))


@cwise_add_op.def_grad
def _cwise_add_grad(op, dy):
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is not implemented.")


@softmax_op.def_grad
def _softmax_grad(op, dy):
    """TF's _SparseSoftmaxGrad: (dy - sum(dy * softmax over the row)) * softmax."""
    indices, shape = op.inputs[0], op.inputs[2]
    out = op.outputs[0]
    product = SparseTensor(indices, out * dy, shape)
    sum_reduced = -sparse_reduce_sum(product, [-1], keepdims=True)
    shifted = cwise_add_op.bind(indices, dy, shape, sum_reduced)
    return [None, shifted * out, None]


def sparse_softmax(sp_input, name=None) -> SparseTensor:
    """Softmax over the last dimension of an N-D SparseTensor (N >= 2); implicit zeros take
    no part, so the result has the input's indices.

    >>> sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1., 1., 5.], [2, 3])
    >>> tf.Session().run(tf.sparse.softmax(sp).values)
    array([0.5, 0.5, 1. ], dtype=float32)
    """
    with name_scope(name, "SparseSoftmax", [sp_input.indices, sp_input.values]):
        out = softmax_op.bind(sp_input.indices, sp_input.values, sp_input.dense_shape)
        return SparseTensor(sp_input.indices, out, sp_input.dense_shape)


# ── SparseSparseMaximum / SparseSparseMinimum ────────────────────────────────────────
def _minmax(a_indices, a_values, a_shape, b_indices, b_values, b_shape, fn):
    a_idx, a_val, a_shape = check_sparse(a_indices, a_values, a_shape, "a")
    b_idx, b_val, b_shape = check_sparse(b_indices, b_values, b_shape, "b")
    _check_same_shape(a_shape, b_shape)
    indices, from_a, from_b = _merge(a_idx, a_val, b_idx, b_val, a_shape)
    zero = np.zeros((), a_val.dtype)
    av = np.where(from_a >= 0, a_val[np.maximum(from_a, 0)] if len(a_val) else zero, zero)
    bv = np.where(from_b >= 0, b_val[np.maximum(from_b, 0)] if len(b_val) else zero, zero)
    return indices, fn(av, bv).astype(a_val.dtype)


def _minmax_shape(ai, av, ash, bi, bv, bsh):
    return [TensorShape([None, None]), TensorShape([None])]


def _same_values(op_type, av, bv):
    check_dtype(av, _REAL, "a_values")
    if av != bv:
        raise TypeError(f"Input 'b_values' of '{op_type}' Op has type {bv.name} that does not "
                        f"match type {av.name} of argument 'a_values'.")
    return av


_MINMAX_INPUTS = ("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape")


def _sparse_maximum_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    return _minmax(a_indices, a_values, a_shape, b_indices, b_values, b_shape, np.maximum)


sparse_maximum_op = OpDef(
    "SparseSparseMaximum", shape=_minmax_shape,
    dtype=lambda ai, av, ash, bi, bv, bsh: [
        dtypes.int64, _same_values("SparseSparseMaximum", av, bv)],
    kernel=_sparse_maximum_kernel, num_outputs=2, input_names=_MINMAX_INPUTS)


@sparse_maximum_op.def_grad
def _sparse_maximum_grad(unused_op, *unused_grads):
    """TF registers ``_SparseSparseMaximumGrad(unused_op, unused_grad)`` for this
    two-output op, so ``tf.gradients`` through it fails calling it with two gradients."""
    raise TypeError("_SparseSparseMaximumGrad() takes 2 positional arguments but 3 were "
                    "given")


def _sparse_minimum_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    return _minmax(a_indices, a_values, a_shape, b_indices, b_values, b_shape, np.minimum)


sparse_minimum_op = OpDef(
    "SparseSparseMinimum", shape=_minmax_shape,
    dtype=lambda ai, av, ash, bi, bv, bsh: [
        dtypes.int64, _same_values("SparseSparseMinimum", av, bv)],
    kernel=_sparse_minimum_kernel, num_outputs=2, input_names=_MINMAX_INPUTS)


@sparse_minimum_op.def_grad
def _sparse_minimum_grad(unused_op, *unused_grads):
    """TF registers ``_SparseSparseMinimumGrad(unused_op, unused_grad)`` for this
    two-output op, so ``tf.gradients`` through it fails calling it with two gradients."""
    raise TypeError("_SparseSparseMinimumGrad() takes 2 positional arguments but 3 were "
                    "given")


def _sparse_minmax(op, sp_a, sp_b, name, default):
    with name_scope(name, default, [sp_a.indices, sp_a.values, sp_b.indices, sp_b.values]):
        ind, val = op.bind(sp_a.indices, sp_a.values, sp_a.dense_shape, sp_b.indices,
                           sp_b.values, sp_b.dense_shape, name=name or default)
    return SparseTensor(ind, val, sp_a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """The element-wise maximum of two SparseTensors of one shape (absent entries count as
    zero); the result holds the union of their indices."""
    return _sparse_minmax(sparse_maximum_op, sp_a, sp_b, name, "SparseSparseMaximum")


def sparse_minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """The element-wise minimum of two SparseTensors (see ``sparse_maximum``)."""
    return _sparse_minmax(sparse_minimum_op, sp_a, sp_b, name, "SparseSparseMinimum")


# ── SparseMatMul (dense matrices, sparsity hints) ────────────────────────────────────
def _sparse_matmul_shape(a, b, *, transpose_a, transpose_b, a_is_sparse, b_is_sparse):
    da = a.with_rank(2).as_tuple() or (None, None)
    db = b.with_rank(2).as_tuple() or (None, None)
    (m, ka), (kb, n) = da[::-1] if transpose_a else da, db[::-1] if transpose_b else db
    if ka is not None and kb is not None and ka != kb:
        raise ValueError(f"Dimensions must be equal, but are {ka} and {kb}")
    return TensorShape([m, n])


def _sparse_matmul_dtype(a, b, **attrs):
    check_dtype(a, (dtypes.float32,), "a")
    check_dtype(b, (dtypes.float32,), "b")
    return dtypes.float32


def _sparse_matmul_kernel(a, b, *, transpose_a, transpose_b, a_is_sparse, b_is_sparse):
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    a, b = a.T if transpose_a else a, b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise invalid(f"Matrix size incompatible: a: {_vec(a.shape)}, b: {_vec(b.shape)}")
    return a @ b


sparse_matmul_op = OpDef("SparseMatMul", shape=_sparse_matmul_shape, dtype=_sparse_matmul_dtype,
                         kernel=_sparse_matmul_kernel,
                         attrs={"transpose_a": False, "transpose_b": False,
                                "a_is_sparse": False, "b_is_sparse": False},
                         input_names=("a", "b"))


@sparse_matmul_op.def_grad
def _sparse_matmul_grad(op, dy):
    """TF's _SparseMatMulGrad: products of dy with the other operand (a transposed second
    factor is transposed explicitly), cast back to each operand's dtype."""
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = op.inputs

    def mm(x, y, out_dtype, transpose_a=False, transpose_b=False):
        if transpose_b:
            y = array_ops.transpose(y)
        prod = math_ops.matmul(x, y, transpose_a=transpose_a)
        return prod if prod.dtype == out_dtype else math_ops.cast(prod, out_dtype)

    da, db = a.dtype.base_dtype, b.dtype.base_dtype
    if not t_a and not t_b:
        return [mm(dy, b, da, transpose_b=True), mm(a, dy, db, transpose_a=True)]
    if not t_a:
        return [mm(dy, b, da), mm(dy, a, db, transpose_a=True)]
    if not t_b:
        return [mm(b, dy, da, transpose_b=True), mm(a, dy, db)]
    return [mm(b, dy, da, transpose_a=True, transpose_b=True),
            mm(dy, a, db, transpose_a=True, transpose_b=True)]


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False,
                  b_is_sparse=False, name=None) -> Tensor:
    """``tf.sparse_matmul``: the dense product ``a @ b`` (float32 in and
    out) as TF's ``SparseMatMul`` op; ``*_is_sparse`` only hint at many zeros."""
    return sparse_matmul_op.bind(a, b, transpose_a=bool(transpose_a),
                                 transpose_b=bool(transpose_b), a_is_sparse=bool(a_is_sparse),
                                 b_is_sparse=bool(b_is_sparse), name=name)


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """A SparseTensor for a SparseTensor(Value), else ``convert_to_tensor(value)``."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtype.is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype mismatch. Requested: {dtype.name},  Actual: "
                               f"{value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


# ── SparseDenseCwiseMul / SparseDenseCwiseDiv and SparseTensor's * and / ─────────────────
# TF defines exactly these operators on SparseTensor (``sp * y``, ``sp / y`` and TF1's
# ``__div__``; a dense ``y * sp`` goes through Tensor's ``__mul__``): ``y`` is dense,
# broadcast to the SparseTensor's shape, and only the stored values change.
def _cwise_dtype(i, v, s, d):
    check_dtype(v, _NUMBERS, "sp_values")
    return v


cwise_mul_op = OpDef("SparseDenseCwiseMul", shape=lambda i, v, s, d: TensorShape([None]),
                     dtype=_cwise_dtype, kernel=_cwise_mul_kernel,
                     input_names=("sp_indices", "sp_values", "sp_shape", "dense"))
cwise_div_op = OpDef("SparseDenseCwiseDiv", shape=lambda i, v, s, d: TensorShape([None]),
                     dtype=_cwise_dtype, kernel=_cwise_div_kernel,
                     input_names=("sp_indices", "sp_values", "sp_shape", "dense"))


def _dense_coordinates(op):
    """Where each sparse value reads the broadcast dense operand: the trailing coordinates,
    0 along the dense operand's dimensions of size 1."""
    indices, dense = op.inputs[0], op.inputs[3]
    dense_shape = array_ops.shape(dense, out_type=dtypes.int64)
    lead = array_ops.size(op.inputs[2]) - array_ops.size(dense_shape)
    tail = array_ops.slice(indices, array_ops.stack([0, lead]), [-1, -1])
    keep = math_ops.cast(math_ops.not_equal(dense_shape, 1), dtypes.int64)
    return math_ops.multiply(tail, keep), dense_shape


def _cwise_grad(op, dy, is_mul):
    coords, dense_shape = _dense_coordinates(op)
    dense_vals = array_ops.gather_nd(op.inputs[3], coords)
    values = op.inputs[1]
    if is_mul:
        d_values, d_dense = dy * dense_vals, dy * values
    else:
        d_values = dy / dense_vals
        d_dense = dy * (-values / math_ops.square(dense_vals))
    return [None, d_values, None, array_ops.scatter_nd(coords, d_dense, dense_shape)]


@cwise_mul_op.def_grad
def _cwise_mul_grad(op, dy):
    return _cwise_grad(op, dy, True)


@cwise_div_op.def_grad
def _cwise_div_grad(op, dy):
    return _cwise_grad(op, dy, False)


def _truediv_dtype(dtype):
    """TF's truediv table: small integers become float32, 32/64-bit ones float64."""
    if dtype in (dtypes.uint8, dtypes.int8, dtypes.uint16, dtypes.int16):
        return dtypes.float32
    if dtype in (dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64):
        return dtypes.float64
    return dtype


def _sparse_dense_cwise(sp, y, op_name, op, truediv=False):
    with name_scope(None, op_name, [sp.indices, sp.values, sp.dense_shape, y]) as name:
        y = convert_to_tensor(y, dtype=sp.dtype.base_dtype, name="y")
        values = sp.values
        target = _truediv_dtype(values.dtype.base_dtype)
        if truediv and target != values.dtype.base_dtype:
            values, y = math_ops.cast(values, target), math_ops.cast(y, target)
        out = op.bind(sp.indices, values, sp.dense_shape, y, name=name)
        return SparseTensor(sp.indices, out, sp.dense_shape)


SparseTensor.__mul__ = lambda self, y: _sparse_dense_cwise(self, y, "mul", cwise_mul_op)
SparseTensor.__div__ = lambda self, y: _sparse_dense_cwise(self, y, "div", cwise_div_op)
SparseTensor.__truediv__ = lambda self, y: _sparse_dense_cwise(
    self, y, "truediv", cwise_div_op, truediv=True)
