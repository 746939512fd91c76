"""Reductions with Tile, and the ops their gradient rules close loops with.

Sum's gradient tiles and Tile's sums, Fill's (``zeros``, ``ones``, ``zeros_like``,
``ones_like``) is a Sum, and Sum's rule for dynamic shapes selects (``where``) and takes a
``maximum``, whose gradients in turn build zeros: so Sum, Max, Min, Prod, All and Any,
Tile, Fill, ZerosLike, OnesLike, Select, SelectV2, Where, Maximum and Minimum are declared
together. Mean, whose gradient gathers, is in ``statistics_ops``.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import INDEX, NUMERIC, REAL
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import (
    NO_GRADIENT,
    REGISTRY,
    OpDef,
    ShapeRule,
    broadcast_shape,
    broadcasting,
    check_dtype,
    first_dtype,
    from_tensors,
    merge_shapes,
    same_shape,
)
from scopeflow.framework.tensor_shape import Dimension, TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.layout_ops import stack, transpose
from scopeflow.ops.array.shape_ops import (
    _shape_internal,
    broadcast_gradient_args,
    rank,
    reshape,
    shape,
    size,
)
from scopeflow.ops.constant_op import constant
from scopeflow.ops.math.arithmetic_ops import (
    add,
    cast,
    conj,
    equal,
    greater_equal,
    less_equal,
    logical_not,
    multiply,
    range,
    realdiv,
    truediv,
)
from scopeflow.ops.op_helpers import (
    _apply,
    _const_like,
    _dense,
    _deprecated_lookup,
    _dims_str,
    _fold,
    _index_arg,
    _op_scope,
    _partial_dims,
    _same_dtype_in,
    _shape_from_dims,
)

__all__ = [
    "where", "where_v2", "maximum", "minimum", "fill", "zeros", "ones",
    "zeros_like", "ones_like", "tile", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod",
    "reduce_all", "reduce_any",
]


# ── Select (TF1's tf.where with x and y) ─────────────────────────────────────────────
def _select_shape(c, t, e):
    out = merge_shapes(t, e)
    if c.ndims is None or out.ndims is None or c.ndims == 0:
        return out
    if c.ndims == 1 and out.ndims > 1:
        merge_shapes(c, TensorShape(out.as_tuple()[:1]))
        return out
    return merge_shapes(out, c)


def _select_dtype(c, t, e):
    if c is not dtypes.bool_:
        raise TypeError(f"Input 'condition' of 'Select' Op has type {c.name} that does not "
                        "match expected type of bool.")
    if e is not t:
        raise TypeError(f"Input 'e' of 'Select' Op has type {e.name} that does not match type "
                        f"{t.name} of argument 't'.")
    return t


def _select_kernel(c, t, e):
    if np.shape(t) != np.shape(e):
        raise errors.InvalidArgumentError(
            None, None, f"'then' and 'else' must have the same size.  but received: "
            f"{list(np.shape(t))} vs. {list(np.shape(e))}")
    c = np.asarray(c)
    if c.ndim == 1 and np.ndim(t) > 1:
        if c.shape[0] != np.shape(t)[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Number of batches of 'then' must match size of 'cond', but saw: "
                f"{np.shape(t)[0]} vs. {c.shape[0]}")
        c = c.reshape(c.shape + (1,) * (np.ndim(t) - 1))
    elif c.ndim and c.shape != np.shape(t):
        raise errors.InvalidArgumentError(
            None, None, f"'condition' and 'then' must have the same size.  but received: "
            f"{list(c.shape)} vs. {list(np.shape(t))}")
    return np.where(c, t, e)


select_op = OpDef("Select", shape=_select_shape, dtype=_select_dtype, kernel=_select_kernel,
                  input_names=("condition", "t", "e"))


@select_op.def_grad
def _select_grad(op, dy):
    c = op.inputs[0]
    zeros = zeros_like(op.inputs[1])
    return [None, where(c, dy, zeros), where(c, zeros, dy)]


# ── SelectV2 (tf.where_v2: condition, x and y broadcast together) ───────────────────
def _select_v2_shape(c, t, e):
    return broadcast_shape(broadcast_shape(c, t), e)


def _select_v2_dtype(c, t, e):
    return _select_dtype(c, t, e)


def _select_v2_kernel(c, t, e):
    return np.where(c, t, e)


select_v2_op = OpDef("SelectV2",
                     shape=broadcasting(_select_v2_shape, grad_unbroadcasts=True),
                     dtype=_select_v2_dtype, kernel=_select_v2_kernel,
                     input_names=("condition", "t", "e"))


@select_v2_op.def_grad
def _select_v2_grad(op, dy):
    """TF's ``_SelectGradV2``: ``dy`` where the condition picks each input, a scalar zero
    elsewhere, each summed back to its input's shape against the output's
    (``reduce_gradient_args``; autodiff leaves them as they are)."""
    c, x, y = op.inputs
    z = op.outputs[0]
    zero = zeros([], dtype=dy.dtype.base_dtype)
    gx = where_v2(c, dy, zero)
    gy = where_v2(c, zero, dy)
    gx, _ = reduce_gradient_args(x, z, gx, None)
    gy, _ = reduce_gradient_args(y, z, gy, None)
    return [None, gx, gy]


def where_v2(condition, x=None, y=None, name=None) -> Tensor:
    """TF2's ``tf.where``: like ``where``, but ``condition``, ``x``, ``y`` broadcast."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _apply(select_v2_op, [condition, x, y], name, hinted=(1, 2))


# ── Where (coordinates of true elements; not differentiable) ─────────────────────────
def _where_shape(x):
    return TensorShape([None, x.ndims])


def _where_dtype(x):
    check_dtype(x, NUMERIC + (dtypes.bool_,), "input")
    return dtypes.int64


def _where_kernel(x):
    return np.argwhere(x).astype(np.int64)


where_op = OpDef("Where", shape=_where_shape, dtype=_where_dtype, kernel=_where_kernel,
                 grad=NO_GRADIENT, input_names=("input",))


def where(condition, x=None, y=None, name=None) -> Tensor:
    """TF1's ``tf.where``.

    With ``x`` and ``y``: a ``Select`` op taking elements of ``x`` where ``condition`` is
    true, else of ``y``. ``x`` and ``y`` must have one shape; ``condition`` has that shape,
    or is a scalar, or a vector along the first dimension. With only ``condition``: a
    ``Where`` op giving the int64 coordinates of the true elements, shape ``[n, rank]``.
    """
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool_,
                                          name="condition")
            return where_op.bind(condition, name=scope)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _apply(select_op, [condition, x, y], name, hinted=(1, 2))


# ── Maximum ──────────────────────────────────────────────────────────────────────────
maximum_op = OpDef("Maximum", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(REAL),
                   kernel=np.maximum, input_names=("x", "y"))


def _maximum_minimum_grad(op, dy, selector):
    """TF's rule: ``dy`` goes to x where ``selector(x, y)`` (ties included), else to y."""
    x, y = op.inputs
    zeros = zeros_like(dy)
    xmask = selector(x, y)
    return [where_v2(xmask, dy, zeros), where_v2(xmask, zeros, dy)]


@maximum_op.def_grad
def _maximum_grad(op, dy):
    return _maximum_minimum_grad(op, dy, greater_equal)


def maximum(x, y, name=None) -> Tensor:
    """Elementwise larger of ``x`` and ``y`` (NaN if either is NaN)."""
    return _apply(maximum_op, [x, y], name)


# ── Minimum ──────────────────────────────────────────────────────────────────────────
minimum_op = OpDef("Minimum", shape=broadcasting(broadcast_shape), dtype=_same_dtype_in(REAL),
                   kernel=np.minimum, input_names=("x", "y"))


@minimum_op.def_grad
def _minimum_grad(op, dy):
    return _maximum_minimum_grad(op, dy, less_equal)


def minimum(x, y, name=None) -> Tensor:
    """Elementwise smaller of ``x`` and ``y`` (NaN if either is NaN)."""
    return _apply(minimum_op, [x, y], name)


# ── Fill ─────────────────────────────────────────────────────────────────────────────
def _fill_shape(dims, value):
    if value.shape.ndims not in (0, None):
        raise ValueError(f"Shape must be rank 0 but is rank {value.shape.ndims}")
    if dims.shape.ndims not in (1, None):
        raise ValueError(f"Shape must be rank 1 but is rank {dims.shape.ndims}")
    d = _partial_dims(dims)
    if d is not None:
        for i, v in enumerate(d):
            if v is not None and v < 0:
                raise ValueError(f"Fill dimensions must be >= 0, got dims[{i}] = {v}")
    return _shape_from_dims(d)


def _fill_dtype(dims, value):
    check_dtype(dims, INDEX, "index_type")
    return value


def _fill_kernel(dims, value):
    d = [int(v) for v in np.reshape(dims, -1)]
    if any(v < 0 for v in d):
        raise InvalidArgumentError(None, None, f"dims must be non-negative, got {d}")
    if value.ndim != 0:
        raise InvalidArgumentError(None, None, f"value must be a scalar, got shape "
                                   f"{list(value.shape)}")
    return np.full(d, value, dtype=value.dtype)


fill_op = OpDef("Fill", shape=from_tensors(_fill_shape), dtype=_fill_dtype, kernel=_fill_kernel,
                input_names=("dims", "value"))
fill_op.def_static_value(_fold)


@fill_op.def_grad
def _fill_grad(op, dy):
    return [None, reduce_sum(_dense(dy))]


def fill(dims, value, name=None) -> Tensor:
    """A tensor of shape ``dims`` with every element equal to the scalar ``value``.

    >>> fill([2, 3], 9).shape.as_list()
    [2, 3]
    """
    return fill_op.bind(_index_arg(dims), value, name=name)


def _static_shape_list(shape):
    """``shape`` as a list of ints when it is a static list/tuple/TensorShape, else None."""
    if isinstance(shape, TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    if isinstance(shape, (numbers.Integral, Dimension)) and not isinstance(shape, bool):
        return [int(shape)]
    if isinstance(shape, (list, tuple, np.ndarray)):
        out = []
        for d in shape:
            if isinstance(d, Dimension):
                d = d.value
            if not isinstance(d, numbers.Integral) or isinstance(d, bool):
                return None
            out.append(int(d))
        return out
    return None


def _filled(value, shape, dtype, name, default):
    """TF's ``zeros``/``ones``: a Const when the shape is static and small, else ``Fill``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if value == 0 and dtype == dtypes.string:
        value = ""
    elif dtype == dtypes.bool:
        value = bool(value)
    with _op_scope(name, default, [shape]) as scope:
        if not isinstance(shape, Tensor):
            dims = _static_shape_list(shape)
            if dims is not None:
                # TF's _constant_if_small fails on a scalar shape (zeros(10)): always Fill.
                if int(np.prod(dims)) < 1000 and not isinstance(shape, (numbers.Integral,
                                                                        Dimension)):
                    return constant(value, dtype=dtype, shape=dims, name=scope)
                big = any(d > np.iinfo(np.int32).max for d in dims)
                shape = constant(dims, dtype=dtypes.int64 if big else dtypes.int32,
                                 name="shape_as_tensor")
            else:
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of zeros (``False``, ``b""``) of the given shape.

    >>> zeros([2, 3]).op.type
    'Const'
    """
    return _filled(0, shape, dtype, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None) -> Tensor:
    """A tensor of ones (``True``) of the given shape.

    >>> ones([2], dtype="int32").op.name
    'ones'
    """
    return _filled(1, shape, dtype, name, "ones")


# ── ZerosLike ────────────────────────────────────────────────────────────────────────
def _zeros_like_kernel(x):
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


zeros_like_op = OpDef("ZerosLike", shape=same_shape, dtype=first_dtype, kernel=_zeros_like_kernel,
                      grad=None, input_names=("x",))
zeros_like_op.def_static_value(_fold)


def zeros_like(tensor, dtype=None, name=None, optimize=True) -> Tensor:
    """Zeros with the shape of ``tensor`` (a ``Const`` when that shape is static).

    >>> zeros_like(tf.placeholder("float", [None, 3])).op.type
    'ZerosLike'
    """
    with _op_scope(name, "zeros_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        base = tensor.dtype.base_dtype
        dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        if optimize and tensor.shape.is_fully_defined():
            return zeros(tensor.shape.as_list(), dtype=dtype or base, name=scope)
        if dtype is not None and dtype != base:
            return zeros(_shape_internal(tensor, None, optimize, dtypes.int32), dtype=dtype,
                         name=scope)
        return zeros_like_op.bind(tensor, name=scope)


# ── OnesLike ─────────────────────────────────────────────────────────────────────────
# TF's Python ``ones_like`` builds ``Fill``; the op type exists for graphs that use it.
ones_like_op = OpDef("OnesLike", shape=same_shape, dtype=first_dtype, kernel=np.ones_like,
                     grad=None, input_names=("x",))
ones_like_op.def_static_value(_fold)


def ones_like(tensor, dtype=None, name=None, optimize=True) -> Tensor:
    """Ones with the shape of ``tensor`` (TF builds ``Fill(shape(tensor), 1)``).

    >>> ones_like(constant([[1, 2]])).op.type
    'Fill'
    """
    with _op_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        ones_shape = _shape_internal(tensor, None, optimize, dtypes.int32,
                                     const_name="shape_as_tensor")
        dtype = tensor.dtype.base_dtype if dtype is None else dtypes.as_dtype(dtype).base_dtype
        ret = ones(ones_shape, dtype=dtype, name=scope)
        ret.set_shape(tensor.shape)
        return ret


# ── Tile ─────────────────────────────────────────────────────────────────────────────
def _tile_shape(x, multiples):
    dims = x.shape.as_tuple()
    m = _partial_dims(multiples)
    if m is None:
        return TensorShape(None if dims is None else [None] * len(dims))
    if dims is None:
        return TensorShape([None] * len(m))
    if len(m) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(m)}")
    return TensorShape([None if a is None or b is None else a * b for a, b in zip(dims, m)])


def _tile_dtype(x, multiples):
    check_dtype(multiples, INDEX, "Tmultiples")
    return x


def _tile_kernel(x, multiples):
    m = [int(a) for a in multiples]
    if len(m) != x.ndim:
        raise InvalidArgumentError(None, None, f"Expected multiples argument to be a vector of "
                                   f"length {x.ndim} but got length {len(m)}")
    if any(a < 0 for a in m):
        raise InvalidArgumentError(None, None, f"Expected multiples to be non-negative, got {m}")
    if all(a == 1 for a in m):
        return x  # TF forwards the input when the output has its shape
    return np.tile(x, m)


tile_op = OpDef("Tile", shape=from_tensors(_tile_shape), dtype=_tile_dtype, kernel=_tile_kernel,
                input_names=("input", "multiples"), aliases=(0,))
tile_op.def_static_value(_fold)


@tile_op.def_grad
def _tile_grad(op, dy):
    """Sums ``dy`` over the tiled copies: reshape to ``[m0, d0, m1, d1, ...]``, then
    reduce the even axes (TF's ``_TileGrad``)."""
    x, multiples = op.inputs
    x_shape = shape(x, out_type=multiples.dtype.base_dtype)
    split_shape = reshape(transpose(stack([multiples, x_shape])), [-1])
    axes = range(0, size(split_shape), 2)
    dx = reduce_sum(reshape(_dense(dy), split_shape), axes)
    dx.set_shape(x.shape)
    return [dx, None]


def tile(input, multiples, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Repeats ``input`` ``multiples[i]`` times along each dimension ``i``.

    >>> tile([[1, 2]], [2, 1]).shape.as_list()
    [2, 2]
    """
    return tile_op.bind(input, _index_arg(multiples), name=name)


# ── BroadcastTo ──────────────────────────────────────────────────────────────────────
def _broadcast_to_shape(x, shape):
    dims = _partial_dims(shape)
    if dims is None:
        return TensorShape(None)
    out = _shape_from_dims(dims)
    xd = x.shape.as_tuple()
    if xd is not None:
        if len(xd) > len(dims):
            raise ValueError(f"Rank of input ({len(xd)}) must be no greater than rank of "
                             f"output shape ({len(dims)}).")
        # As TF's shape function, an input dim of 0 is left to the kernel (run time).
        for d_in, d_out in zip(xd[::-1], out.as_tuple()[::-1]):
            if d_in is not None and d_out is not None and d_in not in (0, 1, d_out):
                raise ValueError(f"Incompatible shapes: {_dims_str(list(xd))} vs. "
                                 f"{_dims_str(dims)}")
    return out


def _broadcast_to_kernel(x, shape):
    try:
        return np.array(np.broadcast_to(x, tuple(int(d) for d in shape)))
    except ValueError:
        raise InvalidArgumentError(
            None, None, f"Incompatible shapes: {_dims_str(list(np.shape(x)))} vs. "
            f"{_dims_str([int(d) for d in shape])}") from None


def _broadcast_to_dtype(x, shape, **attrs):
    check_dtype(shape, INDEX, "shape")
    return x


broadcast_to_op = OpDef("BroadcastTo",
                        shape=ShapeRule(_broadcast_to_shape, from_tensors=True),
                        dtype=_broadcast_to_dtype, kernel=_broadcast_to_kernel,
                        input_names=("input", "shape"))


@broadcast_to_op.def_grad
def _broadcast_to_grad(op, dy):
    """TF's ``_BroadcastToGrad``: ``dy`` summed over the broadcast axes (a constant target
    shape where it is known while building), reshaped to the input's shape."""
    x, target = op.inputs
    x_shape = shape(x, out_type=target.dtype)
    known = constant_value(target)
    if known is not None:
        target = constant([int(d) for d in np.reshape(known, [-1])], dtype=target.dtype)
    _, axes = broadcast_gradient_args(target, x_shape)
    summed = sum_op.bind(dy, axes, keep_dims=True)
    return [reshape(summed, x_shape), None]


def broadcast_to(input, shape, name=None) -> Tensor:  # noqa: A002 - TF's name
    """``input`` broadcast to ``shape`` (numpy's rules).

    >>> broadcast_to(constant([1, 2]), [3, 2]).shape.as_list()
    [3, 2]
    """
    return broadcast_to_op.bind(input, shape, name=name or "BroadcastTo")


# ── Reductions: what Sum, Max, Min, Prod, All, Any (and Mean) share ──────────────────
def _static_axes(values, rank):
    """Reduction axes as a sorted tuple in ``[0, rank)``; TF's message on bad ones."""
    out = set()
    for v in np.asarray(values).reshape(-1).tolist():
        if not -rank <= v < rank:
            raise ValueError(f"Invalid reduction dimension {v} for input with {rank} "
                             "dimensions.")
        out.add(v % rank)
    return tuple(sorted(out))


def _reduction_shape(x, axis, *, keep_dims):
    if axis.shape.ndims is not None and axis.shape.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axis.shape.ndims}")
    rank = x.shape.ndims
    values = constant_value(axis)
    if values is None or rank is None:
        return TensorShape([None] * rank if keep_dims and rank is not None else None)
    axes = _static_axes(values, rank)
    dims = x.shape.as_tuple()
    if keep_dims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def _runtime_axes(x, axis):
    nd = x.ndim
    values = np.asarray(axis).reshape(-1).tolist()
    if len(values) == 1 and 0 <= values[0] < nd:  # the common case, without the set
        return (values[0],)
    out = set()
    for v in values:
        if not -nd <= v < nd:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension ({v} for input with {nd} "
                "dimension(s)")
        out.add(v % nd)
    return tuple(sorted(out))


def _accumulator(x):
    """NumPy accumulation dtype: float16 sums in float32 (as TF), others in their own."""
    return np.float32 if x.dtype == np.float16 else x.dtype


# Reduced elements per output beyond which a float16/float32 sum over outer axes is
# accumulated in float64 (see ``_sum_accumulator``).
NAIVE_SUM_LIMIT = 4096


def _sum_accumulator(x, axes):
    """The accumulation dtype of a Sum or Mean of ``x`` over ``axes``.

    NumPy sums pairwise only along the innermost axis; over outer axes (a batch mean, the
    ``moments`` of an NHWC activation over N, H and W) it adds one element at a time, so a
    float32 sum of 78,400 elements is off by ~4e-4 relative, where TF's blocked reductions
    are off by ~2e-5: batch-norm trainings drifted from TF's within steps. Such long sums
    accumulate in float64 and round once; short ones keep float32 (TF's bits there).
    ``axes`` are non-negative.
    """
    if x.dtype.kind == "f" and x.dtype.itemsize <= 4:
        count = 1  # the elements added in sequence: all but the innermost axis's
        for a in axes:
            if a != x.ndim - 1:
                count *= x.shape[a]
        if count >= NAIVE_SUM_LIMIT:
            return np.float64
    return _accumulator(x)


def _reduction_dtype(op_type, allowed):
    """Dtype rule: ``input`` in ``allowed`` (``None``: bool only), int32/int64 axes."""
    def dtype_rule(x, axis, *, keep_dims):
        if allowed is None:
            if x is not dtypes.bool_:
                raise TypeError(f"Input 'input' of '{op_type}' Op has type {x.name} that does "
                                "not match expected type of bool.")
        else:
            check_dtype(x, allowed, "input")
        check_dtype(axis, INDEX, "reduction_indices")
        return x
    return dtype_rule


def _run_reduction(x, axis, keep_dims, reduce):
    """The reduction kernels' shared body: ``reduce(x, axes, keep_dims)`` on the checked
    axes, or ``x`` reshaped when nothing is reduced."""
    x = np.asarray(x)
    axes = _runtime_axes(x, axis)
    if all(x.shape[a] == 1 for a in axes):
        # Nothing is reduced (no axes, or only axes of size 1): TF forwards the input.
        return x.reshape([1 if i in axes else d for i, d in enumerate(x.shape)
                          if keep_dims or i not in axes])
    return np.asarray(reduce(x, axes, keep_dims), dtype=x.dtype)


def _reduction(op_type, allowed, kernel, grad=...):
    """A reduction's OpDef: ``input`` and ``reduction_indices``, attr ``keep_dims``."""
    extra = {} if grad is ... else {"grad": grad}
    return OpDef(op_type, shape=from_tensors(_reduction_shape),
                 dtype=_reduction_dtype(op_type, allowed), kernel=kernel,
                 attrs={"keep_dims": False}, aliases=(0,),
                 input_names=("input", "reduction_indices"), **extra)





def _reduce(op_def, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    if axis is None:
        x = convert_to_tensor(input_tensor)
        axis = _all_axes(x)
        out = op_def.bind(x, axis, keep_dims=keepdims, name=name)
        if not keepdims:
            out.set_shape([])  # TF's _may_reduce_to_scalar
        return out
    if isinstance(axis, (list, tuple)) and not axis:
        axis = np.zeros([0], np.int32)  # an empty Python list would become float32
    return op_def.bind(input_tensor, axis, keep_dims=keepdims, name=name)


def _all_axes(x):
    """TF's ``_ReductionDims`` for ``axis=None``: a Const, else ``range(0, rank(x))``."""
    ndims = x.shape.ndims
    if ndims:
        return constant(np.arange(ndims, dtype=np.int32))
    if ndims == 0:
        rank_t = constant(0, name="Rank")
    else:
        rank_t = rank(x)
    return range(0, rank_t)


def reduced_shape(input_shape, axes):
    """TF's ``math_ops.reduced_shape``: the shape ``input_shape`` reduces to over ``axes``
    with the reduced dims kept as 1. A NumPy array when both are known while building, else
    TF's ``DynamicStitch`` of ``range(rank)`` with the shape and of the axes with ones."""
    shape_value = constant_value(input_shape)
    if shape_value is not None:
        axes_value = constant_value(axes)
        if axes_value is not None:
            kept = np.array(shape_value, dtype=np.int32)
            kept[np.array(axes_value, dtype=np.int32)] = 1
            return kept
    axes = convert_to_tensor(axes)
    input_rank = size(input_shape, out_type=axes.dtype)
    axes = (axes + input_rank) % input_rank
    axes_shape = shape(axes)
    # By type: the op's module (with its gradient's gathers) sits above this one.
    return REGISTRY["DynamicStitch"].bind(
        range(input_rank), axes, input_shape, ones(axes_shape, dtype=input_shape.dtype), N=2)


def _static_reduced_shape(graph, dims, axes):
    """The kept dims and tile multiples of a reduction of a fully known shape over constant
    axes, cached per graph as TF's ``_SumGrad`` does. Computing them the first time leaves
    TF's two unused ``Maximum``/``floordiv`` ops (TF folds a ``_SafeShapeDiv`` through the
    graph), so the graph is TF's node for node."""
    key = (tuple(dims), tuple(int(a) for a in np.reshape(axes, [-1])))
    cache = graph.__dict__.setdefault("_reduced_shape_cache", {})
    if key not in cache:
        kept = tuple(int(d) for d in reduced_shape(key[0], key[1]))
        tuple_dims = key[0]
        tuple_dims // maximum(kept, 1)  # noqa: B018 - TF's graph has these ops
        cache[key] = kept, tuple(d // builtins.max(k, 1) for d, k in zip(tuple_dims, kept))
    return cache[key]


# ── Sum ──────────────────────────────────────────────────────────────────────────────
def _sum(x, axes, keep_dims):
    # ufunc.reduce directly: np.sum's Python wrapper costs as much as a small sum.
    return np.add.reduce(x, axis=axes, dtype=_sum_accumulator(x, axes), keepdims=keep_dims)


def _sum_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _sum)


sum_op = _reduction("Sum", NUMERIC, _sum_kernel)


@sum_op.def_grad
def _sum_grad(op, dy):
    """TF's ``_SumGrad``: over every axis of a known rank, ``dy`` reshaped to ones and tiled
    by the input's shape; over constant axes of a known shape, reshaped and tiled by
    constants; otherwise reshaped to ``reduced_shape`` and broadcast to the input's
    ``Shape``."""
    x, axis = op.inputs
    dims = x.shape.as_tuple()
    if dims is not None:
        axes = constant_value(axis)
        if axes is not None:
            if np.array_equal(axes, np.arange(len(dims))):
                dy = reshape(dy, [1] * len(dims))
                multiples = (constant(list(dims), dtype=dtypes.int32) if None not in dims
                             else shape(x))
                return [tile(dy, multiples), None]
            if None not in dims:
                kept, multiples = _static_reduced_shape(op.graph, dims, axes)
                return [tile(reshape(dy, kept), multiples), None]
    x_shape = shape(x)
    if not op.get_attr("keep_dims"):
        dy = reshape(dy, reduced_shape(x_shape, axis))
    return [broadcast_to(dy, x_shape), None]


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Sum over ``axis`` (an int, a list, or None for all); ``keepdims`` keeps size-1 dims.

    >>> reduce_sum([[1, 2], [3, 4]], 1).shape.as_list()
    [2]
    """
    return _reduce(sum_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ── Un-broadcasting a gradient (TF's _ReduceGradientArgs; builds Sum ops, not an op) ──
def infer_gradient_reduction_axes(x_shape, y_shape):
    """TF's ``_InferGradientReductionAxes``: the axes along which each of two static
    shapes was broadcast against the other, or ``(None, None)`` when only the run-time
    shapes can tell."""
    if x_shape.ndims is None or y_shape.ndims is None:
        return None, None
    xd, yd = x_shape.as_list(), y_shape.as_list()
    n = builtins.max(len(xd), len(yd))
    xd, yd = [1] * (n - len(xd)) + xd, [1] * (n - len(yd)) + yd
    x_axes, y_axes = [], []
    for axis, (a, b) in enumerate(zip(xd, yd)):
        if a == 1 and b != 1:
            x_axes.append(axis)
        elif b == 1 and a != 1:
            y_axes.append(axis)
        elif a is None or b is None:
            return None, None
    return x_axes, y_axes


def reduce_gradient_args(x, y, gx, gy):
    """TF's ``_ReduceGradientArgs`` (with ``SmartBroadcastGradientArgs``): ``gx`` and ``gy``,
    the gradients of a broadcasting op's ``x`` and ``y``, summed back to their shapes.

    ``Shape`` of both (constants where fully known); the axes from the static shapes where
    they tell, else from a ``BroadcastGradientArgs``; then, for each gradient that is not
    None and whose input was broadcast (or whose axes only the run time knows), a keepdims
    ``Sum`` reshaped to its input's ``Shape``. Binary ops' gradients get it from autodiff;
    ``SelectV2``'s rule calls it against its output, as TF's."""
    if gx is None and gy is None:
        return gx, gy
    x_shape, y_shape = shape(x), shape(y)
    x_axes, y_axes = infer_gradient_reduction_axes(x.shape, y.shape)
    if x_axes is None:
        x_axes, y_axes = broadcast_gradient_args(x_shape, y_shape)
        must = (True, True)
    else:
        must = (bool(x_axes) or x.shape.ndims < y.shape.ndims,
                bool(y_axes) or y.shape.ndims < x.shape.ndims)
    out = []
    for g, g_shape, axes, reduce in zip((gx, gy), (x_shape, y_shape), (x_axes, y_axes), must):
        if g is not None and reduce:
            g = reshape(reduce_sum(g, axes, keepdims=True), g_shape)
        out.append(g)
    return tuple(out)


# ── Max ──────────────────────────────────────────────────────────────────────────────
def _extreme(x, largest):
    if x.dtype.kind == "f":
        return -np.inf if largest else np.inf
    info = np.iinfo(x.dtype)
    return info.min if largest else info.max


def _max(x, axes, keep_dims):
    return np.max(x, axis=axes, keepdims=keep_dims, initial=_extreme(x, True))


def _max_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _max)


def _min_or_max_grad(op, dy):
    """TF's ``_MinOrMaxGrad``: ``dy`` goes to the elements equal to the result, split
    evenly between ties."""
    x, axis = op.inputs
    input_shape = shape(x)
    y = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(input_shape, axis)
        y = reshape(y, kept)
        dy = reshape(dy, kept)
    else:
        kept = shape(y)
    indicators = cast(equal(y, x), dy.dtype)
    num_selected = reshape(sum_op.bind(indicators, axis, keep_dims=False), kept)
    return [truediv(indicators, num_selected) * dy, None]


max_op = _reduction("Max", REAL, _max_kernel, grad=_min_or_max_grad)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Maximum over ``axis`` (``-inf`` / the dtype's min for empty reductions)."""
    return _reduce(max_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ── Min ──────────────────────────────────────────────────────────────────────────────
def _min(x, axes, keep_dims):
    return np.min(x, axis=axes, keepdims=keep_dims, initial=_extreme(x, False))


def _min_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _min)


min_op = _reduction("Min", REAL, _min_kernel, grad=_min_or_max_grad)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Minimum over ``axis`` (``inf`` / the dtype's max for empty reductions)."""
    return _reduce(min_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ── Prod ─────────────────────────────────────────────────────────────────────────────
def _prod(x, axes, keep_dims):
    return np.prod(x, axis=axes, dtype=_accumulator(x), keepdims=keep_dims)


def _prod_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _prod)


def _prod_grad(op, dy):
    """d prod / d x_i = the product of the other elements, exact when some x are 0.

    TF builds it from two exclusive cumprods; here, the same values come from counting the
    zeros of each reduced group: no zero gives ``prod / x_i``; one zero gives the product
    of the non-zeros at the zero (and 0 elsewhere); two or more give 0.
    """
    x, axis = op.inputs
    if not op.get_attr("keep_dims"):
        dy = reshape(dy, reduced_shape(shape(x), axis))
    is_zero = equal(x, _const_like(0, x))
    nonzero = where(is_zero, ones_like(x), x)
    prod_nonzero = prod_op.bind(nonzero, axis, keep_dims=True)
    zeros_count = sum_op.bind(cast(is_zero, dtypes.int32), axis, keep_dims=True)
    at_zero = multiply(cast(is_zero, x.dtype),
                       multiply(cast(equal(zeros_count, 1), x.dtype), prod_nonzero))
    elsewhere = multiply(cast(logical_not(is_zero), x.dtype),
                         multiply(cast(equal(zeros_count, 0), x.dtype),
                                  realdiv(prod_nonzero, nonzero)))
    return [multiply(dy, conj(add(at_zero, elsewhere))), None]


prod_op = _reduction("Prod", NUMERIC, _prod_kernel, grad=_prod_grad)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None) -> Tensor:
    """Product over ``axis``."""
    return _reduce(prod_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ── All (bool; TF registers no gradient) ─────────────────────────────────────────────
def _all(x, axes, keep_dims):
    return np.all(x, axis=axes, keepdims=keep_dims)


def _all_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _all)


all_op = _reduction("All", None, _all_kernel, grad=NO_GRADIENT)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Logical AND over ``axis`` of a bool tensor."""
    return _reduce(all_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ── Any (bool; TF registers no gradient) ─────────────────────────────────────────────
def _any(x, axes, keep_dims):
    return np.any(x, axis=axes, keepdims=keep_dims)


def _any_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _any)


any_op = _reduction("Any", None, _any_kernel, grad=NO_GRADIENT)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None) -> Tensor:
    """Logical OR over ``axis`` of a bool tensor."""
    return _reduce(any_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
