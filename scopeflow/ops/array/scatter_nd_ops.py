"""N-d indexing ops: GatherNd, ScatterNd and the TensorScatter family (Update, Add, Sub,
Max, Min).

They share one index rule: the last axis of ``indices`` (length ``k``) addresses the first
``k`` dimensions of a tensor, and each index row selects (or receives) the slice
``shape[k:]``. GatherNd's gradient scatters and the scatters' gradients gather, so the
whole family is declared here, as TF's ``array_grad.py`` pairs them.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.dtype_groups import INDEX, NUMERIC, REAL
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor
from scopeflow.framework.indexed_slices import IndexedSlices
from scopeflow.framework.opdef import DTypeMismatch, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape, dimension_value
from scopeflow.ops.array.shape_ops import identity, shape, squeeze
from scopeflow.ops.math.arithmetic_ops import add, cast, equal, multiply, negative, truediv
from scopeflow.ops.math.reduction_ops import zeros_like
from scopeflow.ops.op_helpers import _dense, _partial_dims, _shape_from_dims

__all__ = ["gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
           "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub"]

_POLICY = {"bad_indices_policy": ""}


def _dims(shape_):
    return "[" + ",".join(str(d) for d in shape_) + "]"


def _flat_rows(indices, shape_, what="shape"):
    """The row-major position of each index row within ``shape_[:k]``, checked as TF does.

    Returns ``(positions, k)``; an out-of-range row raises TF's InvalidArgumentError, which
    names the row by its flat number and the indexed shape.
    """
    k = indices.shape[-1]
    if k > len(shape_):
        raise InvalidArgumentError(None, None, f"indices.shape[-1] must be <= {what.split()[0]}"
                                   f".rank, but saw indices shape: {_dims(indices.shape)} and "
                                   f"{what}: {_dims(shape_)}")
    rows = indices.reshape(-1, k).astype(np.int64)
    outer = np.asarray(shape_[:k], np.int64)
    bad = np.flatnonzero(((rows < 0) | (rows >= outer)).any(axis=1)) if k else []
    if len(bad):
        n = int(bad[0])
        raise InvalidArgumentError(None, None, f"indices[{n}] = [{', '.join(map(str, rows[n]))}]"
                                   f" does not index into {what} {_dims(shape_)}")
    if k == 0:
        return np.zeros(rows.shape[0], np.int64), 0
    return np.ravel_multi_index(tuple(rows.T), tuple(int(d) for d in outer)), k


def ordered_rounds(pos, limit=None):
    """``range(len(pos))`` split into rounds in which no position repeats: round ``k``
    holds each position's ``k``-th occurrence. Applying the rounds in turn with plain fancy
    indexing (``out[pos[r]] += vals[r]``) combines each slot's updates in their given order,
    the same sequential bits as ``np.add.at`` (TF's CPU scatter loop), without ``ufunc.at``'s
    per-row cost on slices (~15 µs a 512-wide row). ``None`` when more than ``limit``
    rounds would be needed (a slot updated very often: ``ufunc.at`` is cheaper there)."""
    if pos.size == 0:
        return []
    order = np.argsort(pos, kind="stable")
    sorted_pos = pos[order]
    first = np.ones(pos.size, bool)
    first[1:] = sorted_pos[1:] != sorted_pos[:-1]
    at = np.arange(pos.size)
    rank = at - np.maximum.accumulate(np.where(first, at, 0))
    counts = np.bincount(rank)
    if limit is not None and len(counts) > limit:
        return None
    grouped = order[np.argsort(rank, kind="stable")]
    return np.split(grouped, np.cumsum(counts)[:-1])


def apply_at(ufunc, out, pos, vals):
    """``ufunc.at(out, pos, vals)`` (each slot's updates in order), by rounds of
    :func:`ordered_rounds` when the updates are slices."""
    rounds = ordered_rounds(pos, limit=max(8, pos.size // 16)) if vals.ndim > 1 else None
    if rounds is None:
        ufunc.at(out, pos, vals)
        return
    for r in rounds:
        p = pos[r]
        out[p] = ufunc(out[p], vals[r])


def _check_depth(indices, params, what):
    """Static check: an index row may not be longer than the indexed tensor's rank."""
    k = indices[-1] if indices.ndims else None
    if k is not None and params.ndims is not None and k > params.ndims:
        raise ValueError(f"indices.shape[-1] must be <= {what}.rank, but saw indices shape: "
                         f"{_dims(indices.as_list())} and {what} shape: "
                         f"{_dims(params.as_list())}")


def _check_updates(indices, updates, out):
    """Static check that ``updates`` is ``indices.shape[:-1] + out[k:]``, with TF's text."""
    if indices.ndims is None or updates.ndims is None:
        return
    outer = indices.ndims - 1
    for d in range(min(outer, updates.ndims)):
        a, b = indices.as_list()[d], updates.as_list()[d]
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Dimensions [0,{outer}) of indices[shape={_dims(indices.as_list())}] = "
                f"{_dims(indices.as_list()[:outer])} must match dimensions [0,{outer}) of "
                f"updates[shape={_dims(updates.as_list())}] = "
                f"{_dims(updates.as_list()[:outer])}: Dimension {d} in both shapes must be "
                f"equal, but are {a} and {b}. Shapes are {_dims(indices.as_list()[:outer])} "
                f"and {_dims(updates.as_list()[:outer])}.")
    k = indices.as_list()[-1]
    if k is None or out.ndims is None:
        return
    want = TensorShape(indices.as_list()[:outer]).concatenate(out[k:])
    if not updates.is_compatible_with(want):
        raise ValueError(f"Shape of updates {_dims(updates.as_list())} must be "
                         f"{_dims(want.as_list())}: indices.shape[:-1] + "
                         f"shape[indices.shape[-1]:]")


# ── GatherNd ─────────────────────────────────────────────────────────────────────────
def _gather_nd_shape(params, indices, *, bad_indices_policy):
    _check_depth(indices, params, "params")
    depth = None if indices.ndims is None else dimension_value(indices[-1])
    if depth is None or params.ndims is None:
        return TensorShape(None)
    return TensorShape(indices.as_list()[:-1]).concatenate(params[depth:])


def _gather_nd_dtype(params, indices, *, bad_indices_policy):
    check_dtype(indices, INDEX, "Tindices")
    return params


def _gather_nd_kernel(params, indices, *, bad_indices_policy):
    if indices.ndim == 0:
        raise InvalidArgumentError(None, None, "indices must be at least a vector")
    pos, k = _flat_rows(indices, params.shape, "param shape")
    inner = params.shape[k:]
    flat = params.reshape((-1,) + inner) if params.size else np.zeros((0,) + inner, params.dtype)
    return flat[pos].reshape(indices.shape[:-1] + inner)


gather_nd_op = OpDef("GatherNd", shape=_gather_nd_shape, dtype=_gather_nd_dtype,
                     kernel=_gather_nd_kernel, attrs=_POLICY, input_names=("params", "indices"))


@gather_nd_op.def_grad
def _gather_nd_grad(op, dy):
    params, indices = op.inputs
    ref_shape = shape(params, out_type=indices.dtype.base_dtype)
    if indices.shape.ndims == 2 and indices.shape.as_list()[-1] == 1:
        return [IndexedSlices(dy, squeeze(indices, axis=-1), ref_shape), None]
    return [scatter_nd(indices, _dense(dy), ref_shape,
                       bad_indices_policy=op.attrs["bad_indices_policy"]), None]


def gather_nd(params, indices, name=None, batch_dims=0, bad_indices_policy="") -> Tensor:
    """The slices of ``params`` that the rows of ``indices`` address (its last axis indexes
    the leading dimensions of ``params``).

    >>> tf.Session().run(tf.gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]]))
    array([3, 2], dtype=int32)
    """
    if batch_dims != 0:
        raise NotImplementedError("tf.gather_nd with batch_dims != 0 is not supported yet")
    return gather_nd_op.bind(params, indices, bad_indices_policy=bad_indices_policy,
                             name=name)


# ── ScatterNd ────────────────────────────────────────────────────────────────────────
def _scatter_nd_shape(indices, updates, shape_, *, bad_indices_policy):
    out = _shape_from_dims(_partial_dims(shape_))
    _check_updates(indices.shape, updates.shape, out)
    return out


def _scatter_nd_dtype(indices, updates, shape_, *, bad_indices_policy):
    check_dtype(indices, INDEX, "Tindices")
    if shape_ != indices:
        raise DTypeMismatch(2, shape_, indices)
    return updates


def _scatter_nd_kernel(indices, updates, shape_, *, bad_indices_policy):
    out_shape = tuple(int(d) for d in shape_)
    out = np.zeros(out_shape, updates.dtype)
    pos, k = _flat_rows(indices, out_shape)
    flat = out.reshape((-1,) + out_shape[k:])
    apply_at(np.add, flat, pos, updates.reshape((pos.size,) + out_shape[k:]))
    return out


scatter_nd_op = OpDef("ScatterNd", shape=from_tensors(_scatter_nd_shape),
                      dtype=_scatter_nd_dtype, kernel=_scatter_nd_kernel, attrs=_POLICY,
                      input_names=("indices", "updates", "shape"))


@scatter_nd_op.def_grad
def _scatter_nd_grad(op, dy):
    return [None, gather_nd(_dense(dy), op.inputs[0]), None]


def scatter_nd(indices, updates, shape, name=None, bad_indices_policy="") -> Tensor:  # noqa: A002
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (repeats add up).

    >>> tf.Session().run(tf.scatter_nd([[1], [3]], [5, 7], [4]))
    array([0, 5, 0, 7], dtype=int32)
    """
    return scatter_nd_op.bind(indices, updates, shape, bad_indices_policy=bad_indices_policy,
                              name=name)


# ── TensorScatterUpdate / Add / Sub / Max / Min ──────────────────────────────────────
def _tensor_scatter_shape(tensor, indices, updates, *, bad_indices_policy):
    _check_depth(indices, tensor, "params")
    _check_updates(indices, updates, tensor)
    return tensor


def _tensor_scatter_dtype_any(tensor, indices, updates, *, bad_indices_policy):
    check_dtype(indices, INDEX, "Tindices")
    return tensor


def _tensor_scatter_dtype_numeric(tensor, indices, updates, *, bad_indices_policy):
    check_dtype(tensor, NUMERIC, "T")
    return _tensor_scatter_dtype_any(tensor, indices, updates,
                                     bad_indices_policy=bad_indices_policy)


def _tensor_scatter_dtype_real(tensor, indices, updates, *, bad_indices_policy):
    check_dtype(tensor, REAL, "T")
    return _tensor_scatter_dtype_any(tensor, indices, updates,
                                     bad_indices_policy=bad_indices_policy)


def _tensor_scatter_apply(tensor, indices, updates, ufunc):
    """A copy of ``tensor`` with ``updates`` combined in by ``ufunc.at`` (None: assigned)."""
    out = np.array(tensor, copy=True)
    if indices.ndim == 0:
        raise InvalidArgumentError(None, None, "Indices shape must have rank at least one.")
    pos, k = _flat_rows(indices, out.shape)
    inner = out.shape[k:]
    flat = out.reshape((-1,) + inner)
    vals = np.asarray(updates).reshape((pos.size,) + inner)
    if ufunc is None:
        flat[pos] = vals
    else:
        apply_at(ufunc, flat, pos, vals)
    return out


def _tensor_scatter_update_kernel(tensor, indices, updates, *, bad_indices_policy):
    return _tensor_scatter_apply(tensor, indices, updates, None)


def _tensor_scatter_add_kernel(tensor, indices, updates, *, bad_indices_policy):
    return _tensor_scatter_apply(tensor, indices, updates, np.add)


def _tensor_scatter_sub_kernel(tensor, indices, updates, *, bad_indices_policy):
    return _tensor_scatter_apply(tensor, indices, updates, np.subtract)


def _scatter_extreme(tensor, indices, updates, ufunc):
    """TF's ``std::max(acc, u)`` / ``std::min(acc, u)`` per update: a NaN update is skipped
    (``fmax``/``fmin``) and a NaN already in ``tensor`` stays."""
    out = _tensor_scatter_apply(tensor, indices, updates, ufunc)
    tensor = np.asarray(tensor)
    if tensor.dtype.kind == "f":
        nan = np.isnan(tensor)
        if nan.any():
            out[nan] = np.nan
    return out


def _tensor_scatter_max_kernel(tensor, indices, updates, *, bad_indices_policy):
    return _scatter_extreme(tensor, indices, updates, np.fmax)


def _tensor_scatter_min_kernel(tensor, indices, updates, *, bad_indices_policy):
    return _scatter_extreme(tensor, indices, updates, np.fmin)


_TS_INPUTS = ("tensor", "indices", "updates")
tensor_scatter_update_op = OpDef("TensorScatterUpdate", shape=_tensor_scatter_shape,
                                 dtype=_tensor_scatter_dtype_any,
                                 kernel=_tensor_scatter_update_kernel, attrs=_POLICY,
                                 input_names=_TS_INPUTS)
tensor_scatter_add_op = OpDef("TensorScatterAdd", shape=_tensor_scatter_shape,
                              dtype=_tensor_scatter_dtype_numeric,
                              kernel=_tensor_scatter_add_kernel, attrs=_POLICY,
                              input_names=_TS_INPUTS)
tensor_scatter_sub_op = OpDef("TensorScatterSub", shape=_tensor_scatter_shape,
                              dtype=_tensor_scatter_dtype_numeric,
                              kernel=_tensor_scatter_sub_kernel, attrs=_POLICY,
                              input_names=_TS_INPUTS)
tensor_scatter_max_op = OpDef("TensorScatterMax", shape=_tensor_scatter_shape,
                              dtype=_tensor_scatter_dtype_real,
                              kernel=_tensor_scatter_max_kernel, attrs=_POLICY,
                              input_names=_TS_INPUTS)
tensor_scatter_min_op = OpDef("TensorScatterMin", shape=_tensor_scatter_shape,
                              dtype=_tensor_scatter_dtype_real,
                              kernel=_tensor_scatter_min_kernel, attrs=_POLICY,
                              input_names=_TS_INPUTS)


@tensor_scatter_update_op.def_grad
def _tensor_scatter_update_grad(op, dy):
    indices, dy = op.inputs[1], _dense(dy)
    tensor_grad = tensor_scatter_nd_update(identity(dy), indices,
                                           zeros_like(op.inputs[2], dtype=dy.dtype))
    return [tensor_grad, None, gather_nd(dy, indices)]


@tensor_scatter_add_op.def_grad
def _tensor_scatter_add_grad(op, dy):
    dy = _dense(dy)
    return [identity(dy), None, gather_nd(dy, op.inputs[1])]


@tensor_scatter_sub_op.def_grad
def _tensor_scatter_sub_grad(op, dy):
    dy = _dense(dy)
    updates_grad = gather_nd(dy, op.inputs[1])
    return [identity(dy), None, negative(updates_grad)]


def _tensor_scatter_min_max_grad(op, dy):
    """Shares ``dy`` among the tied winners: the tensor's element and every update that
    equal the output (TF's ``_TensorScatterMinOrMaxGrad``)."""
    x, indices, y = op.inputs
    out, dy = op.outputs[0], _dense(dy)
    policy = op.attrs["bad_indices_policy"]
    x_ind = cast(equal(x, out), dy.dtype)
    y_ind = cast(equal(y, gather_nd(out, indices, bad_indices_policy=policy)), dy.dtype)
    ys_ind = scatter_nd(indices, y_ind, shape(x, out_type=indices.dtype.base_dtype),
                        bad_indices_policy=policy)
    ind = add(x_ind, ys_ind)
    x_grad = truediv(multiply(dy, x_ind), ind)
    y_grad = multiply(gather_nd(truediv(dy, ind), indices, bad_indices_policy=policy), y_ind)
    return [x_grad, None, y_grad]


tensor_scatter_max_op.def_grad(_tensor_scatter_min_max_grad)
tensor_scatter_min_op.def_grad(_tensor_scatter_min_max_grad)


def tensor_scatter_nd_update(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` whose slices at ``indices`` are replaced by ``updates``.

    >>> tf.Session().run(tf.tensor_scatter_nd_update([1, 2, 3], [[0]], [9]))
    array([9, 2, 3], dtype=int32)
    """
    return tensor_scatter_update_op.bind(tensor, indices, updates, name=name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` added at ``indices`` (repeats add up)."""
    return tensor_scatter_add_op.bind(tensor, indices, updates, name=name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` with ``updates`` subtracted at ``indices``."""
    return tensor_scatter_sub_op.bind(tensor, indices, updates, name=name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` where each addressed element becomes the max of itself and
    its updates."""
    return tensor_scatter_max_op.bind(tensor, indices, updates, name=name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None) -> Tensor:
    """A copy of ``tensor`` where each addressed element becomes the min of itself and
    its updates."""
    return tensor_scatter_min_op.bind(tensor, indices, updates, name=name)


# TF1's older names of the same functions.
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub
