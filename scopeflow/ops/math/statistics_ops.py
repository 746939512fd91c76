"""Mean, ``reduce_logsumexp``, ArgMax and ArgMin: the reductions above ``indexing_ops``.

Mean's gradient gathers the sizes of the reduced dimensions, so Mean sits above GatherV2;
it shares the reduction machinery of ``reduction_ops``.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from scopeflow.framework import dtypes, errors
from scopeflow.framework.dtype_groups import COMPLEX, FLOATS, INDEX, NUMERIC, REAL
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.indexing_ops import gather
from scopeflow.ops.array.shape_ops import identity, reshape, shape, size, stop_gradient
from scopeflow.ops.math.arithmetic_ops import (
    add,
    add_n,
    cast,
    not_equal,
    subtract,
    truediv,
)
from scopeflow.ops.math.elementwise_ops import exp, log, sqrt, square
from scopeflow.ops.math.reduction_ops import (
    _accumulator,
    _reduce,
    _reduction,
    _run_reduction,
    _sum_accumulator,
    _sum_grad,
    maximum,
    minimum,
    reduce_max,
    reduce_prod,
    reduce_sum,
    reduced_shape,
    zeros,
    zeros_like,
)
from scopeflow.ops.op_helpers import _const_like, _deprecated_lookup

__all__ = ["reduce_mean", "reduce_logsumexp", "argmax", "argmin", "arg_max", "arg_min",
           "reduce_variance", "reduce_std", "reduce_euclidean_norm", "count_nonzero",
           "polyval", "accumulate_n"]


# ── Mean ─────────────────────────────────────────────────────────────────────────────
def _mean(x, axes, keep_dims):
    count = 1
    for a in axes:
        count *= x.shape[a]
    if x.dtype.kind in "iu":  # TF's integer mean: sum (wide), then divide toward zero
        s = np.sum(x, axis=axes, dtype=np.int64 if x.dtype.kind == "i" else np.uint64,
                   keepdims=keep_dims)
        if count == 0:
            return np.zeros_like(s)
        return np.sign(s) * (np.absolute(s) // count)
    return np.add.reduce(x, axis=axes, dtype=_sum_accumulator(x, axes),
                         keepdims=keep_dims) / count


def _mean_kernel(x, axis, *, keep_dims):
    return _run_reduction(x, axis, keep_dims, _mean)


def _mean_grad(op, dy):
    """The Sum gradient divided by the number of elements reduced into each output."""
    sum_grad = _sum_grad(op, dy)[0]
    x, axis = op.inputs
    y = op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = math.prod(x.shape.as_list()) // builtins.max(math.prod(y.shape.as_list()), 1)
        factor = _const_like(count, sum_grad)
    else:
        x_shape = shape(x)
        x_rank = size(x_shape)
        axes = (cast(axis, dtypes.int32) + x_rank) % x_rank
        factor = cast(reduce_prod(gather(x_shape, axes)), sum_grad.dtype)
    return [truediv(sum_grad, factor), None]


mean_op = _reduction("Mean", NUMERIC, _mean_kernel, grad=_mean_grad)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None) -> Tensor:
    """Mean over ``axis``; integer means stay integers (rounded toward zero, as TF)."""
    return _reduce(mean_op, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# ── reduce_logsumexp (composite: Max, StopGradient, Exp, Sum, Log) ───────────────────
def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None,
                     reduction_indices=None, keep_dims=None) -> Tensor:
    """``log(sum(exp(x)))`` over ``axis``, computed stably around the maximum.

    The maximum is clipped to the dtype's finite range, so all ``-inf`` inputs give
    ``-inf`` (TF uses IsFinite/SelectV2 for the same effect).
    """
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor)
        check_dtype(x.dtype.base_dtype, FLOATS, "x")
        dt = x.dtype.base_dtype
        raw_max = reduce_max(x, axis, keepdims=True)
        my_max = stop_gradient(minimum(maximum(raw_max, dt.min), dt.max))
        result = log(reduce_sum(exp(subtract(x, my_max)), axis, keepdims=keepdims))
        if not keepdims:
            my_max = reduce_sum(my_max, axis)  # drops the size-1 dims
        return add(result, my_max, name=scope)


# ── ArgMax / ArgMin (not differentiable) ─────────────────────────────────────────────
def _arg_shape(x, dimension, *, output_type):
    rank = x.shape.ndims
    if dimension.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {dimension.shape.ndims}")
    if rank is None:
        return TensorShape(None)
    if rank == 0:
        return TensorShape([])
    value = constant_value(dimension)
    if value is None:
        return TensorShape([None] * (rank - 1))
    d = int(value)
    if not -rank <= d < rank:
        raise ValueError(f"Dimension ({d}) must be in the range [{-rank}, {rank}), where "
                         f"{rank} is the number of dimensions in the input.")
    dims = list(x.shape.as_tuple())
    del dims[d % rank]
    return TensorShape(dims)


def _arg_dtype(x, dimension, *, output_type):
    check_dtype(x, REAL + (dtypes.bool_,), "input")
    check_dtype(dimension, INDEX, "dimension")
    return check_dtype(output_type, INDEX, "output_type")


def _arg_extreme(x, dimension, output_type, largest):
    """ArgMax's (``largest``) and ArgMin's kernel."""
    x = np.asarray(x)
    out_dt = output_type.as_numpy_dtype
    nd, d = x.ndim, int(dimension)
    if nd == 0:
        return np.zeros((), out_dt)
    if not -nd <= d < nd:
        raise errors.InvalidArgumentError(
            None, None, f"Expected dimension in the range [{-nd}, {nd}), but got {d}")
    if x.shape[d] == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Reduction axis {d} is empty in shape {list(x.shape)}")
    if x.dtype.kind == "f" and np.isnan(x).any():  # TF's comparisons skip NaNs
        x = np.where(np.isnan(x), -np.inf if largest else np.inf, x)
    fn = np.argmax if largest else np.argmin
    return np.asarray(fn(x, axis=d), dtype=out_dt)


def _argmax_kernel(x, dimension, *, output_type):
    return _arg_extreme(x, dimension, output_type, True)


def _argmin_kernel(x, dimension, *, output_type):
    return _arg_extreme(x, dimension, output_type, False)


def _arg_op(op_type, kernel):
    return OpDef(op_type, shape=from_tensors(_arg_shape), dtype=_arg_dtype, kernel=kernel,
                 attrs={"output_type": dtypes.int64}, grad=None, input_names=("input", "dimension"))


argmax_op = _arg_op("ArgMax", _argmax_kernel)
argmin_op = _arg_op("ArgMin", _argmin_kernel)


def _arg(op_def, input, axis, name, dimension, output_type):
    axis = _deprecated_lookup("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    return op_def.bind(input, axis, output_type=dtypes.as_dtype(output_type).base_dtype,
                       name=name)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64) -> Tensor:
    """Index of the largest value along ``axis`` (default 0), as ``output_type`` (int64).

    >>> argmax([[1, 5], [7, 2]], 1).dtype.name
    'int64'
    """
    return _arg(argmax_op, input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64) -> Tensor:
    """Index of the smallest value along ``axis`` (default 0), as ``output_type`` (int64)."""
    return _arg(argmin_op, input, axis, name, dimension, output_type)


def arg_max(input, dimension, output_type=dtypes.int64, name=None) -> Tensor:
    """TF1's raw ``ArgMax`` op (``tf.arg_max``, deprecated): ``argmax`` with a required
    ``dimension`` and no ``axis=``.

    >>> arg_max([[1, 5], [7, 2]], 1).name
    'ArgMax:0'
    """
    return argmax_op.bind(input, dimension,
                          output_type=dtypes.as_dtype(output_type).base_dtype, name=name)


def arg_min(input, dimension, output_type=dtypes.int64, name=None) -> Tensor:
    """TF1's raw ``ArgMin`` op (``tf.arg_min``, deprecated): ``argmin`` with a required
    ``dimension`` and no ``axis=``."""
    return argmin_op.bind(input, dimension,
                          output_type=dtypes.as_dtype(output_type).base_dtype, name=name)



# ── reduce_variance / reduce_std (composites: Mean, Sub, Square, Mean, Sqrt) ─────────
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """The mean squared deviation from the mean over ``axis`` (TF's graph: two Means).

    >>> float(tf.Session().run(tf.math.reduce_variance([1.0, 2.0, 3.0, 4.0])))
    1.25
    """
    with name_scope(name or "reduce_variance"):
        x = convert_to_tensor(input_tensor)
        means = reduce_mean(x, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{means.dtype!r}.")
        if means.dtype.base_dtype in COMPLEX:
            raise NotImplementedError("reduce_variance of a complex tensor (TF's Real op) is "
                                      "not implemented")
        squared = square(subtract(x, means))
        return reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """The square root of ``reduce_variance`` over ``axis``."""
    with name_scope(name or "reduce_std"):
        x = convert_to_tensor(input_tensor)
        return sqrt(reduce_variance(x, axis=axis, keepdims=keepdims))


# ── EuclideanNorm ────────────────────────────────────────────────────────────────────
def _euclidean_norm(x, axes, keep_dims):
    squares = (x * np.conj(x)) if x.dtype.kind == "c" else x * x
    total = np.add.reduce(squares, axis=axes, dtype=_accumulator(x), keepdims=keep_dims)
    if x.dtype.kind in "iu":  # TF takes the integer square root of the integer sum
        return np.sqrt(total).astype(x.dtype)
    return np.sqrt(total)


def _euclidean_norm_kernel(x, axis, *, keep_dims):
    # |x| first, so an input reduced over no dims (forwarded as is) is still its norm.
    x = np.asarray(x)
    return _run_reduction(x if x.dtype.kind == "c" else np.abs(x), axis, keep_dims,
                          _euclidean_norm)


euclidean_norm_op = _reduction("EuclideanNorm", NUMERIC, _euclidean_norm_kernel)


@euclidean_norm_op.def_grad
def _euclidean_norm_grad(op, dy):
    """TF's ``_EuclideanNormGrad``: ``x / (norm / dy)``, with the reduced dims kept."""
    x, axis = op.inputs
    out = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(shape(x), axis)
        out = reshape(out, kept)
        dy = reshape(dy, kept)
    return [truediv(x, truediv(out, dy)), None]


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None) -> Tensor:
    """``sqrt(sum(x * conj(x)))`` over ``axis``; integer inputs give the integer root.

    >>> tf.Session().run(tf.math.reduce_euclidean_norm([[3, 4]], 1))
    array([5], dtype=int32)
    """
    return _reduce(euclidean_norm_op, input_tensor, axis, keepdims, name, None, None)


# ── count_nonzero (composite: NotEqual, Cast, Sum) ───────────────────────────────────
def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None) -> Tensor:  # noqa: A002
    """How many elements of ``input_tensor`` are not zero, over ``axis`` (TF1's signature,
    with its deprecated ``reduction_indices``, ``keep_dims`` and ``input``).

    >>> tf.Session().run(tf.count_nonzero([[0, 1, 0], [1, 1, 0]], 0))
    array([1, 2, 0])
    """
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    input_tensor = _deprecated_lookup("input", input, "input_tensor", input_tensor)
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input")
        if x.dtype.base_dtype == dtypes.bool_:
            predicate = x
        else:
            predicate = not_equal(x, zeros([], dtype=x.dtype.base_dtype))
        counted = reduce_sum(cast(predicate, dtypes.int64), axis=axis, keepdims=bool(keepdims))
        return cast(counted, dtypes.as_dtype(dtype))


# ── polyval (composite: Mul, AddV2 per coefficient) ──────────────────────────────────
def polyval(coeffs, x, name=None) -> Tensor:
    """``coeffs[0] * x**(n-1) + ... + coeffs[-1]`` by Horner's rule, as TF builds it.

    >>> float(tf.Session().run(tf.math.polyval([1.0, 2.0, 3.0], 2.0)))
    11.0
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name, "polyval", list(coeffs) + [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return zeros_like(x, name=scope)
        coeffs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x  # Tensor's operators: TF's node names (mul, add)
        return p


# ── accumulate_n (composite: AddN) ───────────────────────────────────────────────────
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None) -> Tensor:  # noqa: A002
    """The elementwise sum of a list of same-shaped tensors (TF 2.21 builds ``AddN``)."""
    def input_error():
        return ValueError("inputs must be a list of at least one Tensor with the same dtype "
                          "and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise input_error()
    inputs = [convert_to_tensor(t) for t in inputs]
    if not all(t.dtype == inputs[0].dtype for t in inputs):
        raise input_error()
    merged = TensorShape(None) if shape is None else TensorShape(shape)
    for t in inputs:
        merged = merged.merge_with(t.shape)
    if tensor_dtype is not None and dtypes.as_dtype(tensor_dtype) != inputs[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is {dtypes.as_dtype(tensor_dtype)!r}, but "
                        f"`input` is of type {inputs[0].dtype!r}. These must be equal. Try "
                        "casting the input to the desired type.")
    if len(inputs) == 1:
        return inputs[0] if name is None else identity(inputs[0], name=name)
    return add_n(inputs, name=name)
