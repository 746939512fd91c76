"""Rearranging SparseTensors: the op types ``SparseReshape``, ``SparseSlice`` (gradient
``SparseSliceGrad``), ``SparseConcat``, ``SparseSplit`` and ``SparseFillEmptyRows``
(gradient ``SparseFillEmptyRowsGrad``), and TF's composites built from dense ops
(``retain``, ``reset_shape``, ``transpose``, ``expand_dims``, ``eye``, ``from_dense``,
``merge``, ``to_indicator``, ``mask``) — each builds the graph TF's ``sparse_ops.py``
builds, so that names and static shapes match.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.sort_ops import setdiff1d
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.logging import check_ops
from scopeflow.ops.math.reduction_ops import where_v2
from scopeflow.ops.sparse.sparse_kernels import check_sparse, invalid, match_rows, row_keys
from scopeflow.ops.sparse.sparse_math_ops import convert_to_sparse_tensor
from scopeflow.ops.sparse.sparse_ops import sparse_tensor_to_dense
from scopeflow.ops.sparse.sparse_reorder_ops import sparse_reorder

__all__ = ["sparse_reshape", "sparse_slice", "sparse_concat", "sparse_concat_v2",
           "sparse_split", "sparse_fill_empty_rows", "sparse_retain", "sparse_reset_shape",
           "sparse_transpose", "sparse_expand_dims", "sparse_eye", "from_dense",
           "sparse_merge", "sparse_to_indicator", "sparse_mask"]


def _dim0(s):
    return s[0] if s.ndims else None


def _vec(v):
    return "[" + ",".join(str(int(x)) for x in v) + "]"


# ── SparseReshape ────────────────────────────────────────────────────────────────────
def _reshape_shape(input_indices, input_shape, new_shape):
    input_indices.with_rank(2)
    n = _dim0(new_shape.with_rank(1))
    return [TensorShape([_dim0(input_indices), n]), TensorShape([n])]


def _reshape_kernel(input_indices, input_shape, new_shape):
    idx, shape = np.asarray(input_indices, np.int64), np.asarray(input_shape, np.int64)
    target = np.asarray(new_shape, np.int64).copy()
    dense_size = int(np.prod(shape))
    unknown = np.flatnonzero(target == -1)
    if len(unknown) > 1:
        raise invalid(f"only one output dimension may be -1, not both {unknown[0]} and "
                      f"{unknown[1]}")
    if (target < -1).any():
        d = int(np.flatnonzero(target < -1)[0])
        raise invalid(f"size {d} must be non-negative, not {target[d]}")
    product = int(np.prod(target[target != -1]))
    if len(unknown):
        if product == 0 or dense_size % product:
            target[unknown[0]] = 1  # as TF's message shows it
            raise invalid(f"Input to reshape is a SparseTensor with {dense_size} dense values, "
                          f"but the requested shape requires a multiple of {product}. "
                          f"input_shape={_vec(shape)} output_shape={_vec(target)}")
        target[unknown[0]] = dense_size // product
    elif product != dense_size:
        raise invalid(f"Input to reshape is a tensor with {dense_size} dense values, but the "
                      f"requested shape has {product}. input_shape={_vec(shape)} "
                      f"output_shape={_vec(target)}")
    if idx.shape[1] != len(shape):
        raise invalid(f"Input shape rank ({len(shape)}) and indices rank ({idx.shape[1]}) do "
                      f"not match")
    flat = row_keys(idx, shape)
    out = np.stack(np.unravel_index(flat, target), axis=1) if len(target) else \
        np.zeros((len(flat), 0), np.int64)
    return out.astype(np.int64).reshape(len(flat), len(target)), target


reshape_op = OpDef("SparseReshape", shape=_reshape_shape,
                   dtype=lambda i, s, n: [check_dtype(i, (dtypes.int64,), "input_indices"),
                                          dtypes.int64],
                   kernel=_reshape_kernel, num_outputs=2, grad=NO_GRADIENT,
                   input_names=("input_indices", "input_shape", "new_shape"))


def _static_reshape(sp_input, shape):
    """TF's static output shape of sparse_reshape (with the -1 filled in), or None."""
    value = constant_value(shape)
    if value is None or not sp_input.shape.is_fully_defined():
        return None
    value = [int(d) for d in np.asarray(value).reshape(-1)]
    if sum(d == -1 for d in value) > 1:
        raise ValueError(f"At most one dimension can be inferred (-1). Found: "
                         f"{np.asarray(value)}")
    dims = [None if d == -1 else d for d in value]
    size = int(np.prod(sp_input.shape.as_list()))
    implied = sum(d is None for d in dims)
    if implied == 1 and 0 not in dims:
        known = [d for d in dims if d is not None]
        dims[dims.index(None)] = int(size // int(np.prod(known)))
    if implied == 0 or (implied == 1 and 0 not in dims):
        if int(np.prod(dims)) != size:
            raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                             f"{[None if d == -1 else d for d in value]} "
                             f"({int(np.prod(dims))} elements).")
        return dims
    return None


def sparse_reshape(sp_input, shape, name=None) -> SparseTensor:
    """The SparseTensor with the same entries in row-major order under a new dense shape
    (one dimension may be -1).

    >>> sp = tf.SparseTensor([[0, 1], [1, 2]], [1, 2], [2, 3])
    >>> tf.Session().run(tf.sparse.reshape(sp, [-1]).indices).tolist()
    [[1], [5]]
    """
    sp_input = convert_to_sparse_tensor(sp_input)
    shape = math_ops.cast(shape, dtype=dtypes.int64)
    with name_scope(name, "SparseReshape", [sp_input]) as scope:
        indices, out_shape = reshape_op.bind(sp_input.indices, sp_input.dense_shape, shape,
                                             name=scope)
        static = _static_reshape(sp_input, shape)
        if static is not None:
            out_shape = convert_to_tensor(np.asarray(static, np.int64), name="Const")
        return SparseTensor(indices, array_ops.identity(sp_input.values), out_shape)


# ── SparseSlice ──────────────────────────────────────────────────────────────────────
def _slice_shape(indices, values, shape, start, size):
    indices.with_rank(2)
    values.with_rank(1)
    rank = _dim0(shape.with_rank(1))
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _slice_kernel(indices, values, shape, start, size):
    idx, vals, shape = check_sparse(indices, values, shape)
    start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
    if start.shape != shape.shape or size.shape != shape.shape:
        raise invalid(f"Expected start and size to be vectors of length {len(shape)}, got "
                      f"{_vec(start.shape)} and {_vec(size.shape)}")
    end = np.minimum(start + size, shape)
    keep = np.all((idx >= start) & (idx < end), axis=1)
    return idx[keep] - start, vals[keep], np.maximum(end - start, 0)


slice_op = OpDef("SparseSlice", shape=_slice_shape,
                 dtype=lambda i, v, s, st, sz: [dtypes.int64, v, dtypes.int64],
                 kernel=_slice_kernel, num_outputs=3,
                 input_names=("indices", "values", "shape", "start", "size"))


def _slice_grad_kernel(backprop_val_grad, input_indices, input_start, output_indices):
    where = match_rows(np.asarray(output_indices) + np.asarray(input_start), input_indices)
    grad = np.asarray(backprop_val_grad)
    out = np.zeros(len(input_indices), grad.dtype)
    out[where] = grad
    return out


slice_grad_op = OpDef("SparseSliceGrad",
                      shape=lambda g, i, s, o: TensorShape([_dim0(i.with_rank(2))]),
                      dtype=lambda g, i, s, o: g, kernel=_slice_grad_kernel, grad=NO_GRADIENT,
                      input_names=("backprop_val_grad", "input_indices", "input_start",
                                   "output_indices"))


@slice_op.def_grad
def _slice_grad(op, _d_indices, d_values, _d_shape):
    """TF's _SparseSliceGrad: the sliced values' gradients, put back at their entries."""
    grad = slice_grad_op.bind(d_values, op.inputs[0], op.inputs[3], op.outputs[0])
    grad.set_shape(op.inputs[1].shape)
    return [None, grad, None, None, None]


def sparse_slice(sp_input, start, size, name=None) -> SparseTensor:
    """The entries of ``sp_input`` inside the box ``[start, start + size)``, re-based to
    ``start``; the dense shape is clipped to the input's."""
    sp_input = convert_to_sparse_tensor(sp_input)
    start = convert_to_tensor(start, dtypes.int64)
    size = convert_to_tensor(size, dtypes.int64)
    with name_scope(name, "SparseSlice", [sp_input]) as scope:
        ind, val, shape = slice_op.bind(sp_input.indices, sp_input.values,
                                        sp_input.dense_shape, start, size, name=scope)
        return SparseTensor(ind, val, shape)


# ── SparseConcat ─────────────────────────────────────────────────────────────────────
def _concat_shape(*shapes, concat_dim, N):
    inds, vals, dense = shapes[:N], shapes[N:2 * N], shapes[2 * N:]
    n, rank = 0, None
    for s in inds:
        s.with_rank(2)
        n = None if n is None or s[0] is None else n + s[0]
        rank = rank if s[1] is None else s[1]
    for s in dense:
        s.with_rank(1)
        rank = rank if s[0] is None else s[0]
    for s in vals:
        s.with_rank(1)
    return [TensorShape([n, rank]), TensorShape([n]), TensorShape([rank])]


def _concat_dtype(*dts, concat_dim, N):
    for d in dts[N:2 * N]:
        if d != dts[N]:
            raise TypeError(f"Inconsistent values dtypes: {dts[N].name} and {d.name}")
    return [dtypes.int64, dts[N], dtypes.int64]


def _concat_kernel(*arrays, concat_dim, N):
    inds, vals, shapes = arrays[:N], arrays[N:2 * N], arrays[2 * N:]
    shapes = [np.asarray(s, np.int64) for s in shapes]
    rank = len(shapes[0])
    dim = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= dim < rank:
        raise invalid(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    for i, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise invalid(f"Ranks of all input tensors must match: expected {rank} but got "
                          f"{len(s)} at position {i}")
        for j in range(rank):
            if j != dim and s[j] != shapes[0][j]:
                raise invalid(f"Input shapes must match: expected {shapes[0][j]} for "
                              f"dimension {j} but got {s[j]} at position {i}")
    out_idx, out_val, offset = [], [], 0
    for i in range(N):
        idx, val, shape = check_sparse(inds[i], vals[i], shapes[i])
        idx = idx.copy()
        idx[:, dim] += offset
        offset += shape[dim]
        out_idx.append(idx)
        out_val.append(val)
    idx, val = np.concatenate(out_idx), np.concatenate(out_val)
    out_shape = shapes[0].copy()
    out_shape[dim] = offset
    # TF's SparseTensor::Concat: the inputs one after another within each position of the
    # dimensions before the concat dimension (row-major order when the inputs are ordered).
    order = np.lexsort(idx[:, :dim].T[::-1]) if dim else np.arange(len(idx))
    return idx[order], val[order], out_shape


concat_op = OpDef("SparseConcat", shape=_concat_shape, dtype=_concat_dtype,
                  kernel=_concat_kernel, attrs={"concat_dim": 0, "N": 2}, num_outputs=3,
                  grad=None, input_names=("indices", "values", "shapes"))


def sparse_concat_v2(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """The SparseTensors joined along ``axis``; ``expand_nonconcat_dims`` lets the other
    dimensions differ (each takes the largest)."""
    sp_inputs = [convert_to_sparse_tensor(sp) for sp in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    inds = [sp.indices for sp in sp_inputs]
    vals = [sp.values for sp in sp_inputs]
    shapes = [sp.dense_shape for sp in sp_inputs]
    if expand_nonconcat_dims:
        max_shape = math_ops.reduce_max(
            array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [array_ops.concat(
            [max_shape[:axis], s[-1:] if axis == -1 else s[axis:axis + 1],
             [] if axis == -1 else max_shape[axis + 1:]], 0) for s in shapes]
    ind, val, out_shape = concat_op.bind(*inds, *vals, *shapes, concat_dim=int(axis),
                                         N=len(sp_inputs), name=name)
    input_shapes = [sp.shape for sp in sp_inputs]
    if all(s.ndims is not None for s in input_shapes):
        if expand_nonconcat_dims:
            static = [None if any(s[d] is None for s in input_shapes)
                      else max(s[d] for s in input_shapes)
                      for d in range(input_shapes[0].ndims)]
        else:
            static = input_shapes[0].as_list()
        static[axis] = None if any(s[axis] is None for s in input_shapes) else \
            sum(s[axis] for s in input_shapes)
        static = TensorShape(static)
    else:
        static = TensorShape(None)
    if all(s.is_fully_defined() for s in input_shapes):
        out_shape = convert_to_tensor(np.asarray(static.as_list(), np.int64))
        return SparseTensor(ind, val, out_shape)
    out = SparseTensor(ind, val, out_shape)
    out._set_static_shape(static)
    return out


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """TF1's ``tf.sparse.concat``: ``concat_dim`` and ``expand_nonconcat_dims`` are old
    names of ``axis`` and ``expand_nonconcat_dim``."""
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    if concat_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    return sparse_concat_v2(axis, sp_inputs, expand_nonconcat_dim, name)


# ── SparseSplit ──────────────────────────────────────────────────────────────────────
def _split_shape(split_dim, indices, values, shape, *, num_split):
    indices.with_rank(2)
    values.with_rank(1)
    rank = _dim0(shape.with_rank(1))
    return ([TensorShape([None, rank])] * num_split + [TensorShape([None])] * num_split +
            [TensorShape([rank])] * num_split)


def _split_kernel(split_dim, indices, values, shape, *, num_split):
    idx, vals, shape = check_sparse(indices, values, shape)
    rank = len(shape)
    dim = int(split_dim)
    if not -rank <= dim < rank:
        raise invalid(f"Input split_dim should be between -{rank} and {rank}, got {dim}")
    dim %= rank
    if num_split > shape[dim] and shape[dim] > 0:
        raise invalid(f"Input num_split should be between 1 and {shape[dim]}, got "
                      f"{num_split}")
    size, extra = divmod(int(shape[dim]), num_split)
    sizes = np.array([size + (i < extra) for i in range(num_split)], np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    piece = np.searchsorted(starts, idx[:, dim], side="right") - 1
    out_i, out_v, out_s = [], [], []
    for i in range(num_split):
        sel = piece == i
        part = idx[sel].copy()
        part[:, dim] -= starts[i]
        s = shape.copy()
        s[dim] = sizes[i]
        out_i.append(part)
        out_v.append(vals[sel])
        out_s.append(s)
    return out_i + out_v + out_s


split_op = OpDef("SparseSplit", shape=_split_shape,
                 dtype=lambda d, i, v, s, *, num_split: ([dtypes.int64] * num_split +
                                                         [v] * num_split +
                                                         [dtypes.int64] * num_split),
                 kernel=_split_kernel, attrs={"num_split": 1},
                 num_outputs=lambda attrs, n: 3 * attrs["num_split"], grad=NO_GRADIENT,
                 input_names=("split_dim", "indices", "values", "shape"))


class KeywordRequired:
    """The marker that makes TF1's ``sparse_split`` keyword-only."""

    def __repr__(self):
        return "KeywordRequired()"


def sparse_split(keyword_required=KeywordRequired(), sp_input=None, num_split=None,
                 axis=None, name=None, split_dim=None) -> list:
    """``sp_input`` split along ``axis`` into ``num_split`` SparseTensors (the first
    ``size % num_split`` one larger); arguments by keyword only, as TF1's."""
    if not isinstance(keyword_required, KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:
        raise ValueError("axis is required")  # even with split_dim given, as TF 2.21
    if split_dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'split_dim'")
    sp_input = convert_to_sparse_tensor(sp_input)
    with name_scope(name, "SparseSplit", []) as scope:
        split_dim = convert_to_tensor(axis, dtypes.int64, name="split_dim")
        outs = split_op.bind(split_dim, sp_input.indices, sp_input.values,
                             sp_input.dense_shape, num_split=int(num_split), name=scope)
    return [SparseTensor(outs[i], outs[num_split + i], outs[2 * num_split + i])
            for i in range(num_split)]


def sparse_split_v2(sp_input=None, num_split=None, axis=None, name=None) -> list:
    """TF2's ``tf.sparse.split`` (positional arguments allowed)."""
    return sparse_split(sp_input=sp_input, num_split=num_split, axis=axis, name=name)


# ── SparseFillEmptyRows ──────────────────────────────────────────────────────────────
def _fill_shape(indices, values, dense_shape, default_value):
    indices.shape.with_rank(2)
    values.shape.with_rank(1)
    default_value.shape.with_rank(0)
    rank = indices.shape[1]
    value = constant_value(dense_shape)
    rows = int(value[0]) if value is not None and len(value) else None
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rows]),
            TensorShape([indices.shape[0]])]


def _fill_kernel(indices, values, dense_shape, default_value):
    idx, vals, shape = check_sparse(indices, values, dense_shape, "")
    if len(shape) == 0:
        raise invalid("dense_shape must be a vector of length >= 1")
    rows = int(shape[0])
    if len(idx) and ((idx[:, 0] < 0) | (idx[:, 0] >= rows)).any():
        i = int(np.argmax((idx[:, 0] < 0) | (idx[:, 0] >= rows)))
        raise invalid(f"indices({i}, 0) is invalid: {idx[i, 0]} >= {rows}")
    counts = np.bincount(idx[:, 0], minlength=rows) if len(idx) else np.zeros(rows, np.int64)
    empty = counts == 0
    # Row r's entries follow those of the rows before it, an empty row taking one slot.
    slots = np.where(empty, 1, counts)
    row_start = np.concatenate([[0], np.cumsum(slots)[:-1]]).astype(np.int64)
    order = np.argsort(idx[:, 0], kind="stable")
    sorted_rows = idx[order, 0]
    first_of_row = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    reverse = np.empty(len(idx), np.int64)
    reverse[order] = row_start[sorted_rows] + np.arange(len(idx)) - first_of_row[sorted_rows]
    total = int(slots.sum()) if rows else 0
    out_idx = np.zeros((total, idx.shape[1]), np.int64)
    out_val = np.full(total, np.asarray(default_value), vals.dtype)
    out_idx[reverse] = idx
    out_val[reverse] = vals
    out_idx[row_start[empty], 0] = np.flatnonzero(empty)
    return out_idx, out_val, empty, reverse


fill_op = OpDef("SparseFillEmptyRows", shape=from_tensors(_fill_shape),
                dtype=lambda i, v, s, d: [check_dtype(i, (dtypes.int64,), "indices"), v,
                                          dtypes.bool, dtypes.int64],
                kernel=_fill_kernel, num_outputs=4,
                input_names=("indices", "values", "dense_shape", "default_value"))


def _fill_grad_kernel(reverse_index_map, grad_values):
    grad = np.asarray(grad_values)
    d_values = grad[np.asarray(reverse_index_map, np.int64)]
    return d_values, np.asarray(grad.sum() - d_values.sum(), grad.dtype)


fill_grad_op = OpDef("SparseFillEmptyRowsGrad",
                     shape=lambda r, g: [TensorShape([_dim0(r.with_rank(1))]), TensorShape([])],
                     dtype=lambda r, g: [g, g], kernel=_fill_grad_kernel, num_outputs=2,
                     grad=NO_GRADIENT, input_names=("reverse_index_map", "grad_values"))


@fill_op.def_grad
def _fill_grad(op, _d_indices, d_values, _d_empty, _d_reverse):
    """TF's _SparseFillEmptyRowsGrad: each input value takes its output slot's gradient;
    the default value takes the rest."""
    d_vals, d_default = fill_grad_op.bind(op.outputs[3], d_values)
    return [None, d_vals, None, d_default]


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """``(filled, empty_row_indicator)``: each empty row of the 2-D+ SparseTensor gets one
    entry ``default_value`` at column 0; the bool vector marks which rows were empty."""
    sp_input = convert_to_sparse_tensor(sp_input)
    with name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        ind, val, empty, _ = fill_op.bind(sp_input.indices, sp_input.values,
                                          sp_input.dense_shape, default_value)
        return SparseTensor(ind, val, sp_input.dense_shape), empty


# ── Composites of dense ops ──────────────────────────────────────────────────────────
def sparse_retain(sp_input, to_retain) -> SparseTensor:
    """The entries of ``sp_input`` where the bool vector ``to_retain`` is true."""
    sp_input = convert_to_sparse_tensor(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.shape
    retain_shape.assert_has_rank(1)
    if sp_input.values.shape.ndims is not None:
        sp_input.values.shape[0:1].assert_is_compatible_with(retain_shape[0:1])
    where_true = array_ops.reshape(where_v2(to_retain), [-1])
    return SparseTensor(array_ops.gather(sp_input.indices, where_true),
                        array_ops.gather(sp_input.values, where_true),
                        array_ops.identity(sp_input.dense_shape))


def sparse_reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """``sp_input`` with dense shape ``new_shape`` (no smaller than the old one), or, by
    default, the tightest shape around its indices."""
    sp_input = convert_to_sparse_tensor(sp_input)
    in_indices = array_ops.identity(sp_input.indices)
    in_values = array_ops.identity(sp_input.values)
    in_shape = array_ops.identity(sp_input.dense_shape)
    if new_shape is None:
        low = math_ops.reduce_max(in_indices, axis=0)
        out = math_ops.maximum(convert_to_tensor(np.int64(0)),
                               math_ops.add(low, array_ops.ones_like(in_shape)))
        return SparseTensor(in_indices, in_values, out)
    out = convert_to_tensor(new_shape)
    out.shape.assert_has_rank(1)
    out = math_ops.cast(out, dtypes.int64)
    out.shape.assert_is_compatible_with(in_shape.shape)
    value = constant_value(out)
    if value is not None and sp_input.shape.is_fully_defined():
        old = np.array(sp_input.shape.as_list())
        if not np.all(value >= old):
            raise ValueError(f"Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({value}), sp_input.shape "
                             f"({sp_input.shape.as_list()}).")
        return SparseTensor(in_indices, in_values, value)
    # Known only when the graph runs: TF checks the rank and the sizes there.
    checks = [check_ops.assert_equal(array_ops.shape(in_shape), array_ops.shape(out)),
              check_ops.assert_less_equal(in_shape, out)]
    return SparseTensor(in_indices, in_values, with_dependencies(checks, out))


def sparse_transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """The SparseTensor with its dimensions permuted by ``perm`` (reversed by default),
    entries reordered row-major."""
    with name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            if sp_input.shape.ndims is not None:
                rank = sp_input.shape.ndims
                perm = list(range(rank - 1, -1, -1))
            else:
                rank = array_ops.rank(sp_input)
                perm = (rank - 1) - math_ops.range(0, rank, 1)
        indices = sp_input.indices
        transposed_indices = array_ops.transpose(
            array_ops.gather(array_ops.transpose(indices), perm))
        perm_ = constant_value(convert_to_tensor(perm))
        if perm_ is not None and sp_input.shape.is_fully_defined():
            old = sp_input.shape.as_list()
            dense_shape = np.asarray([old[int(p)] for p in perm_], np.int64)
        else:
            dense_shape = array_ops.gather(sp_input.dense_shape, perm)
        transposed = SparseTensor(transposed_indices, sp_input.values, dense_shape)
        transposed = sparse_reorder(transposed)
        return SparseTensor(transposed.indices, transposed.values, dense_shape)


def sparse_expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """The SparseTensor with a dimension of size 1 inserted at ``axis`` (-1: the end)."""
    rank = sp_input.dense_shape.shape.as_list()[0]
    static_rank = rank
    if rank is None:
        rank = array_ops.shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with name_scope(name, "expand_dims", [sp_input]):
        if isinstance(axis, (int, np.integer)):
            axis = int(axis)
            if isinstance(rank, int) and not -rank - 1 <= axis <= rank:
                raise ValueError(f"Axis {axis} out of range for rank {rank}")
            axis = axis + rank + 1 if axis < 0 and isinstance(rank, int) else axis
            axis_value = axis
            axis = convert_to_tensor(axis, name="axis")
        else:
            axis_value = None
            axis = convert_to_tensor(axis, name="axis")
            axis = where_v2(axis >= 0, axis, axis + rank + 1)
        column_size = array_ops.shape(sp_input.indices, out_type=dtypes.int64)[0]
        new_index = array_ops.zeros([column_size, 1], dtype=dtypes.int64)
        axis64 = math_ops.cast(axis, dtypes.int64)
        indices = array_ops.concat([array_ops.slice(sp_input.indices, [0, 0],
                                                    array_ops.stack([-1, axis])),
                                    new_index,
                                    array_ops.slice(sp_input.indices,
                                                    array_ops.stack([0, axis]), [-1, -1])],
                                   axis=1)
        shape = array_ops.concat([array_ops.slice(sp_input.dense_shape, np.array([0], np.int64),
                                                  array_ops.reshape(axis64, [1])),
                                  convert_to_tensor(np.array([1], np.int64), name="new_shape"),
                                  array_ops.slice(sp_input.dense_shape,
                                                  array_ops.reshape(axis64, [1]),
                                                  np.array([-1], np.int64))],
                                 axis=0)
        out = SparseTensor(indices, sp_input.values, shape)
        if static_rank is not None and isinstance(axis_value, int):
            # TF's static shape: it sees only the new dimension through the slices' concat
            out._set_static_shape([1 if i == axis_value else None
                                   for i in range(static_rank + 1)])
        return out


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None) -> SparseTensor:
    """The ``num_rows x num_columns`` identity as a SparseTensor."""
    with name_scope(name, default_name="eye", values=[num_rows, num_columns]):
        num_rows = math_ops.cast(convert_to_tensor(num_rows, dtypes.int64, name="num_rows"),
                                 dtypes.int64) if not isinstance(num_rows, int) else \
            convert_to_tensor(num_rows, dtypes.int64, name="num_rows")
        num_columns = num_rows if num_columns is None else \
            convert_to_tensor(num_columns, dtypes.int64, name="num_columns")
        diag_size = math_ops.minimum(num_rows, num_columns)
        diag_range = math_ops.range(diag_size)
        indices = array_ops.stack([diag_range, diag_range], axis=1)
        values = array_ops.ones(array_ops.reshape(diag_size, [1]), dtype=dtype)
        known = constant_value(num_rows), constant_value(num_columns)
        if None not in known:  # TF's shape inference evaluates the constant Minimum
            n = int(min(known))
            indices.set_shape([n, 2])
            values.set_shape([n])
        return SparseTensor(indices=indices, values=values,
                            dense_shape=array_ops.stack([num_rows, num_columns]))


def from_dense(tensor, name=None) -> SparseTensor:
    """The SparseTensor of a dense tensor's non-zero (non-empty, for strings) entries."""
    with name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        zero = "" if tensor.dtype.base_dtype == dtypes.string else 0
        indices = where_v2(math_ops.not_equal(tensor, array_ops.zeros_like(tensor)
                                              if zero == 0 else zero))
        values = array_ops.gather_nd(tensor, indices)
        shape = array_ops.shape(tensor, out_type=dtypes.int64)
        return SparseTensor(indices, values, shape)


def _sparse_merge_impl(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    if isinstance(sp_ids, SparseTensor) or hasattr(sp_ids, "dense_shape"):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (Tensor, int, np.integer)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found "
                            f"{type(vocab_size)}")
        vocab_size = [vocab_size]
    else:
        for dim in vocab_size:
            if not isinstance(dim, (Tensor, int, np.integer)):
                raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. "
                                f"Found {type(dim)}")
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", []):
        sp_ids = [convert_to_sparse_tensor(s) for s in sp_ids]
        sp_values = convert_to_sparse_tensor(sp_values)
        ids = []
        for s in sp_ids:
            ids_dim = s.values
            if s.dtype != dtypes.int64:
                ids_dim = math_ops.cast(ids_dim, dtypes.int64)
            ids.append(array_ops.expand_dims(ids_dim, axis=1))
        vocab_size = [math_ops.cast(x, dtypes.int64) for x in vocab_size]
        new_indices = array_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], vocab_size], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor whose last index is each entry's id (``sp_ids``' values) and whose
    values are ``sp_values``' values (deprecated in TF1)."""
    return _sparse_merge_impl(sp_ids, sp_values, vocab_size, name, already_sorted)


def sparse_to_indicator(sp_input, vocab_size, name=None) -> Tensor:
    """A dense bool tensor, one more dimension of size ``vocab_size``, true at each id."""
    sp_input = convert_to_sparse_tensor(sp_input)
    with name_scope(name, "SparseToIndicator", [sp_input]) as scope:
        num_entries = array_ops.shape(sp_input.indices)[0]
        new_values = array_ops.fill(array_ops.expand_dims(num_entries, 0), True)
        sp_values = SparseTensor(sp_input.indices, new_values, sp_input.dense_shape)
        sp_new = _sparse_merge_impl(sp_input, sp_values, vocab_size, scope)
        return sparse_tensor_to_dense(sp_new, default_value=False, validate_indices=False,
                                      name=scope)


def sparse_mask(a, mask_indices, name=None) -> IndexedSlices:
    """The IndexedSlices ``a`` without the slices whose indices are in ``mask_indices``."""
    with name_scope(name, "sparse_mask", [a, mask_indices]) as scope:
        indices = a.indices
        out_indices, to_gather = setdiff1d(indices, mask_indices)
        out_values = array_ops.gather(a.values, to_gather, name=scope)
        return IndexedSlices(out_values, out_indices, a.dense_shape)
