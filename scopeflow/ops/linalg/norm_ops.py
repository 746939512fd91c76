"""Norms and the cross product: ``norm`` (TF1's ``tf.norm``, built from reductions as TF
builds it, the matrix 2-norm from the Svd), ``normalize`` and the Cross op."""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import REAL
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, merge_shapes
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.layout_ops import invert_permutation, transpose
from scopeflow.ops.array.shape_ops import expand_dims, squeeze
from scopeflow.ops.array.shape_ops import rank as rank_of
from scopeflow.ops.array.slicing_ops import concat
from scopeflow.ops.array.sort_ops import setdiff1d
from scopeflow.ops.linalg.svd_ops import svd
from scopeflow.ops.math.arithmetic_ops import add, cast, conj, less, multiply, truediv
from scopeflow.ops.math.arithmetic_ops import range as range_
from scopeflow.ops.math.elementwise_ops import abs as abs_
from scopeflow.ops.math.elementwise_ops import pow as pow_
from scopeflow.ops.math.elementwise_ops import sqrt
from scopeflow.ops.math.reduction_ops import reduce_max, reduce_sum, where_v2
from scopeflow.ops.op_helpers import _deprecated_lookup, _same_dtype_in

__all__ = ["norm", "normalize", "cross"]


# ── norm (composite) ─────────────────────────────────────────────────────────────────
def _norm_args(ord, axis):  # noqa: A002 - TF's name
    """TF's argument checks; ``(is_matrix_norm, axis as a tuple or None)``."""
    is_matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
        return True, axis
    if not (isinstance(axis, int) or axis is None):
        raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers, "
                         f"got {axis}")
    if (not np.isreal(ord) or ord <= 0) and ord not in ["euclidean", 1, 2, np.inf]:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return False, None if axis is None else (axis,)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None) -> Tensor:
    """The vector norm (``axis`` None or an int) or matrix norm (``axis`` a pair) of
    ``tensor``: ``ord`` is ``'euclidean'``/``'fro'``, 1, 2 (matrices: the largest singular
    value), ``np.inf`` or (vectors) any positive p."""
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    is_matrix, axis = _norm_args(ord, axis)
    with name_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if is_matrix and ord in (2, 2.0):
            result = _matrix_2_norm(tensor, axis)
        elif ord in ("fro", "euclidean", 2, 2.0):
            result = sqrt(reduce_sum(multiply(tensor, conj(tensor)), axis, keepdims=True))
        else:
            result = abs_(tensor)
            if ord == 1:
                result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix:
                    result = reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix:
                    result = reduce_sum(result, axis[1], keepdims=True)
                result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                result = pow_(reduce_sum(pow_(result, ord), axis, keepdims=True), 1.0 / ord)
        if not keepdims:
            result = squeeze(result, axis)
        return result


def _matrix_2_norm(tensor, axis):
    """The largest singular value over the two ``axis`` dims, kept as size-1 dims: TF moves
    them last with a permutation it computes in the graph (so the result's dims are
    statically unknown, as TF's), takes the Svd's maximum and moves them back."""
    rank = rank_of(tensor)
    axis = convert_to_tensor(list(axis), dtype=dtypes.int32)
    positive_axis = where_v2(less(axis, 0), add(axis, rank), axis)
    perm_before = concat([setdiff1d(range_(rank), positive_axis)[0], positive_axis], axis=0)
    s = svd(transpose(tensor, perm=perm_before), compute_uv=False)
    top = expand_dims(reduce_max(abs_(s), axis=-1, keepdims=True), axis=-1)
    return transpose(top, perm=invert_permutation(perm_before))


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """``(tensor / norm, norm)`` with the norm kept at size-1 dims (``tf.norm``'s
    ``ord``/``axis``)."""
    with name_scope(name, "normalize", [tensor]):
        tensor = convert_to_tensor(tensor)
        n = cast(norm(tensor, ord, axis, keepdims=True), tensor.dtype)
        return truediv(tensor, n), n


# ── Cross ────────────────────────────────────────────────────────────────────────────
def _cross_shape(a, b):
    s = merge_shapes(a, b)
    dims = s.as_tuple()
    if dims is None:
        return s
    if not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if dims[-1] is not None and dims[-1] != 3:
        raise ValueError(f"Dimension must be 3 but is {dims[-1]}")
    return TensorShape(dims)


def _cross_kernel(a, b):
    if a.shape != b.shape:
        raise errors.InvalidArgumentError(
            None, None, f"Both inputs must be of same shape: {list(a.shape)} vs. "
                        f"{list(b.shape)}")
    if a.ndim == 0 or a.shape[-1] != 3:
        raise errors.InvalidArgumentError(
            None, None, f"Trailing dimension must be of size 3: {list(a.shape)}")
    return np.cross(a, b).astype(a.dtype, copy=False)


cross_op = OpDef("Cross", shape=_cross_shape, dtype=_same_dtype_in(REAL, "T"),
                 kernel=_cross_kernel, input_names=("a", "b"))


@cross_op.def_grad
def _cross_grad(op, dy):
    """d(a × b) = (b × dy, dy × a)."""
    a, b = op.inputs
    return [cross(b, dy), cross(dy, a)]


def cross(a, b, name=None) -> Tensor:
    """The cross product of the 3-vectors along the last dimension of ``a`` and ``b``."""
    return cross_op.bind(a, b, name=name)
