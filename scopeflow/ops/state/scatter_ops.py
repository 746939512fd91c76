"""The rest of TF1's scatter ops on variable refs: ``ScatterMul``, ``ScatterDiv``,
``ScatterMax``, ``ScatterMin`` (row scatters, as ``ScatterAdd`` in ``training_ops``) and
``ScatterNdUpdate``, ``ScatterNdAdd``, ``ScatterNdSub`` (index rows into the leading
dimensions, as ``tf.tensor_scatter_nd_*`` does on values), plus ``tf.batch_scatter_update``.

As in TF, the Mul/Div/Nd ops are not differentiable and Max/Min have no gradient at all.
Integer division truncates toward zero, as C++ does.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, ref
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.array.scatter_nd_ops import _check_depth, _check_updates, _flat_rows
from scopeflow.ops.state.training_ops import (
    _bind,
    _scatter_accumulate,
    _scatter_op,
    _scatter_rows,
    _uninitialized,
)

__all__ = ["scatter_mul", "scatter_div", "scatter_max", "scatter_min", "scatter_nd_update",
           "scatter_nd_add", "scatter_nd_sub", "batch_scatter_update"]


def _truncating_divide(a, b, out=None):
    """C++'s ``/``: floats divide, integers truncate toward zero (NumPy floors)."""
    if np.issubdtype(np.result_type(a, b), np.integer):
        q = np.abs(a) // np.where(b == 0, 1, np.abs(b))
        return np.multiply(q, np.sign(a) * np.sign(b), out=out, casting="unsafe")
    return np.divide(a, b, out=out)


def _row_update(ctx, ref_, indices, updates, ufunc):
    var, flat, rows, ordered = _scatter_rows(ctx, ref_, indices, updates)
    _scatter_accumulate(var, flat, rows, ordered, ufunc)
    return var


def _scatter_mul_kernel(ctx, ref_, indices, updates, *, use_locking):
    return _row_update(ctx, ref_, indices, updates, np.multiply)


def _scatter_div_kernel(ctx, ref_, indices, updates, *, use_locking):
    var, flat, rows, _ = _scatter_rows(ctx, ref_, indices, updates)
    for i, row in zip(flat.tolist(), rows):  # integer-safe division, repeated indices in turn
        var[i] = _truncating_divide(var[i], row)
    return var


def _scatter_max_kernel(ctx, ref_, indices, updates, *, use_locking):
    return _row_update(ctx, ref_, indices, updates, np.maximum)


def _scatter_min_kernel(ctx, ref_, indices, updates, *, use_locking):
    return _row_update(ctx, ref_, indices, updates, np.minimum)


scatter_mul_op = _scatter_op("ScatterMul", _scatter_mul_kernel, use_locking=False, grad=None)
scatter_div_op = _scatter_op("ScatterDiv", _scatter_div_kernel, use_locking=False, grad=None)
scatter_max_op = _scatter_op("ScatterMax", _scatter_max_kernel, use_locking=False,
                             grad=NO_GRADIENT)
scatter_min_op = _scatter_op("ScatterMin", _scatter_min_kernel, use_locking=False,
                             grad=NO_GRADIENT)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):  # noqa: A002
    """``ref[indices] *= updates`` (repeated indices multiply in turn); returns the ref."""
    return _bind(scatter_mul_op, ref, indices, updates, use_locking=use_locking, name=name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):  # noqa: A002
    """``ref[indices] /= updates`` (integers truncate toward zero); returns the ref."""
    return _bind(scatter_div_op, ref, indices, updates, use_locking=use_locking, name=name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):  # noqa: A002
    """``ref[indices] = max(ref[indices], updates)``; returns the ref."""
    return _bind(scatter_max_op, ref, indices, updates, use_locking=use_locking, name=name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):  # noqa: A002
    """``ref[indices] = min(ref[indices], updates)``; returns the ref."""
    return _bind(scatter_min_op, ref, indices, updates, use_locking=use_locking, name=name)


# ── ScatterNdUpdate / ScatterNdAdd / ScatterNdSub ────────────────────────────────────
def _nd_shape(ref_, indices, updates, *, use_locking, bad_indices_policy):
    _check_depth(indices, ref_, "params")
    _check_updates(indices, updates, ref_)
    return ref_


def _nd_dtype(ref_, indices, updates, *, use_locking, bad_indices_policy):
    check_dtype(indices, INDEX, "Tindices")
    if updates is not ref_:
        raise TypeError(f"Input 'updates' has type {updates.name} that does not match type "
                        f"{ref_.name} of argument 'ref'.")
    return ref_._as_ref


def _nd_update(ctx, ref_, indices, updates, ufunc):
    try:
        var = ctx.state.vars[ref_]
    except KeyError:
        raise _uninitialized(ctx, ref_) from None
    indices = np.asarray(indices)
    pos, k = _flat_rows(indices, var.shape)
    inner = var.shape[k:]
    flat = var.reshape((-1,) + inner)  # a view: the variable is updated in place
    vals = np.broadcast_to(updates, indices.shape[:-1] + inner).reshape((pos.size,) + inner)
    if ufunc is None:
        flat[pos] = vals
    else:
        ufunc.at(flat, pos, vals)
    return var


def _scatter_nd_update_kernel(ctx, ref_, indices, updates, *, use_locking, bad_indices_policy):
    return _nd_update(ctx, ref_, indices, updates, None)


def _scatter_nd_add_kernel(ctx, ref_, indices, updates, *, use_locking, bad_indices_policy):
    return _nd_update(ctx, ref_, indices, updates, np.add)


def _scatter_nd_sub_kernel(ctx, ref_, indices, updates, *, use_locking, bad_indices_policy):
    return _nd_update(ctx, ref_, indices, updates, np.subtract)


def _nd_op(op_type, kernel, use_locking):
    return OpDef(op_type, shape=_nd_shape, dtype=_nd_dtype, kernel=kernel,
                 attrs={"use_locking": use_locking, "bad_indices_policy": ""}, stateful=True,
                 aliases=True, input_names=(ref("ref"), "indices", "updates"), grad=None)


scatter_nd_update_op = _nd_op("ScatterNdUpdate", _scatter_nd_update_kernel, True)
scatter_nd_add_op = _nd_op("ScatterNdAdd", _scatter_nd_add_kernel, False)
scatter_nd_sub_op = _nd_op("ScatterNdSub", _scatter_nd_sub_kernel, False)


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):  # noqa: A002
    """``ref[indices[i]] = updates[i]`` for index rows into ``ref``'s leading dimensions."""
    return _bind(scatter_nd_update_op, ref, indices, updates, use_locking=use_locking,
                 name=name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):  # noqa: A002
    """``ref[indices[i]] += updates[i]`` (repeated rows add up)."""
    return _bind(scatter_nd_add_op, ref, indices, updates, use_locking=use_locking, name=name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):  # noqa: A002
    """``ref[indices[i]] -= updates[i]`` (repeated rows add up)."""
    return _bind(scatter_nd_sub_op, ref, indices, updates, use_locking=use_locking, name=name)


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):  # noqa: A002
    """``ref[i..., indices[i..., j]] = updates[i..., j]``: ``scatter_update`` per batch row,
    built as TF builds it (index rows for ``scatter_nd_update``)."""
    with name_scope(name):
        indices = convert_to_tensor(indices, name="indices")
        indices_shape = array_ops.shape(indices)
        ndims = indices.shape.ndims
        if ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = array_ops.expand_dims(indices, axis=-1)
        parts = []
        for dim in range(ndims - 1):
            dim_size = math_ops.cast(indices_shape[dim], indices.dtype)
            shape = [1] * ndims
            shape[dim] = -1
            rng = array_ops.reshape(math_ops.range(dim_size, dtype=indices.dtype), shape)
            parts.append(array_ops.expand_dims(
                array_ops.ones_like(indices) * rng, axis=-1))
        final = array_ops.concat(parts + [nd_indices], axis=-1) if parts else nd_indices
        return scatter_nd_update(ref, final, updates, use_locking=use_locking)
