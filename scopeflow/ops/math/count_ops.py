"""Counting: ``DenseBincount`` (``tf.bincount``), and the composites ``confusion_matrix``
and ``zero_fraction`` built as TF 2.21 builds them (same ops, same names).

TF 2.21's ``tf.bincount`` (v1 signature) builds ``DenseBincount``, not the older
``Bincount``: its length is ``max(arr) + 1`` (0 for an empty ``arr``), clamped by
``minlength``/``maxlength``; values at or past the length are dropped, negative values are
an error at run time. TF registers no gradient for DenseBincount. The output's static
length is known when TF's shape inference can evaluate the length's small constant
subgraph; ``_folded`` does the same evaluation here, with the ops' own kernels.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.dtype_groups import INDEX
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, from_tensors
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value
from scopeflow.ops.array.layout_ops import stack
from scopeflow.ops.array.scatter_nd_ops import scatter_nd
from scopeflow.ops.array.shape_ops import identity, rank, reshape, size, squeeze
from scopeflow.ops.constant_op import constant
from scopeflow.ops.control_flow.cond_ops import cond
from scopeflow.ops.control_flow.control_flow_ops import with_dependencies
from scopeflow.ops.logging.check_ops import assert_less, assert_non_negative
from scopeflow.ops.math.arithmetic_ops import cast, equal, greater, less_equal, not_equal
from scopeflow.ops.math.reduction_ops import (
    maximum,
    minimum,
    ones_like,
    reduce_max,
    reduce_sum,
    zeros,
)

__all__ = ["bincount", "confusion_matrix", "zero_fraction", "dense_bincount_op", "folded_value"]

_BINCOUNT_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)
_FOLD_LIMIT = 1 << 16   # elements: a bigger constant subgraph is left to run time


def folded_value(t, depth=12):
    """``t``'s value when it is computed from constants only, by small stateless ops (TF's
    shape inference evaluates such subgraphs: ``EvaluateConstantTensor``); else None."""
    value = constant_value(t)
    if value is not None or depth == 0:
        return value
    op = t.op
    op_def = op._op_def
    if op_def.stateful or op_def.kernel is None or len(op.outputs) != 1 or op_def.ref_inputs \
            or op.control_inputs or op.type.startswith("Placeholder"):
        return None
    args = []
    for x in op.inputs:
        v = folded_value(x, depth - 1)
        if v is None or np.size(v) > _FOLD_LIMIT:
            return None
        args.append(np.asarray(v))
    try:
        return np.asarray(op_def.kernel(*args, **op._attrs))
    except Exception:   # noqa: BLE001 - an error is for run time, as in TF
        return None


# ── DenseBincount ────────────────────────────────────────────────────────────────────
def _dense_bincount_shape(arr, size_t, weights, *, binary_output):
    size_t.shape.with_rank(0)
    n = folded_value(size_t)
    if n is not None and int(n) < 0:
        raise ValueError(f"Invalid argument: size ({int(n)}) must be non-negative")
    length = None if n is None else int(n)
    if arr.shape.ndims is None:
        return TensorShape(None)
    if arr.shape.ndims == 1:
        return TensorShape([length])
    if arr.shape.ndims == 2:
        return TensorShape([arr.shape.dims[0], length])
    raise ValueError(f"Shape must be at most rank 2 but is rank {arr.shape.ndims}")


def _dense_bincount_dtype(arr, size_t, weights, *, binary_output):
    check_dtype(arr, INDEX, "input")
    if size_t is not arr:
        raise TypeError(f"Input 'size' of 'DenseBincount' Op has type {size_t.name} that "
                        f"does not match type {arr.name} of argument 'input'.")
    return check_dtype(weights, _BINCOUNT_TYPES, "weights")


def _dense_bincount_kernel(arr, size_, weights, *, binary_output):
    n = int(size_)
    if n < 0:
        raise InvalidArgumentError(None, None, f"size ({n}) must be non-negative")
    arr = np.asarray(arr)
    if arr.size and arr.min() < 0:
        raise InvalidArgumentError(None, None, "Input arr must be non-negative!")
    weighted = np.size(weights) > 0
    if weighted and np.shape(weights) != arr.shape:
        raise InvalidArgumentError(
            None, None, "Input indices and weights must have the same shape; got "
            f"{list(arr.shape)} and {list(np.shape(weights))}")
    out_dtype = np.asarray(weights).dtype
    rows = arr if arr.ndim == 2 else arr.reshape(1, arr.size)
    w_rows = np.asarray(weights).reshape(rows.shape) if weighted else None
    out = np.zeros((rows.shape[0], n), out_dtype)
    for r in range(rows.shape[0]):   # one vectorised bincount per row (rank 2: batches)
        keep = rows[r] < n
        idx = rows[r][keep].astype(np.int64)
        if binary_output:
            out[r, np.unique(idx)] = 1
        else:
            w = w_rows[r][keep].astype(np.float64) if weighted else None
            out[r] = np.bincount(idx, weights=w, minlength=n)[:n].astype(out_dtype)
    return out if arr.ndim == 2 else out.reshape(n)


dense_bincount_op = OpDef(
    "DenseBincount", shape=from_tensors(_dense_bincount_shape), dtype=_dense_bincount_dtype,
    kernel=_dense_bincount_kernel, attrs={"binary_output": False}, grad=NO_GRADIENT,
    input_names=("input", "size", "weights"))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32) -> Tensor:
    """How often each value of the non-negative integer ``arr`` occurs (``weights``: the sum
    of their weights), as TF 2.21's ``tf.bincount``: a vector of ``max(arr) + 1`` counts,
    at least ``minlength`` and at most ``maxlength`` long; ``dtype`` is the counts' type
    when there are no weights (the weights' type otherwise).

    >>> tf.Session().run(tf.bincount([1, 2, 2, 5]))
    array([0, 1, 2, 0, 0, 1], dtype=int32)
    """
    with name_scope("bincount"):
        arr = convert_to_tensor(arr, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
        if not arr.dtype.is_integer:
            arr = cast(arr, dtypes.int32)
        nonempty = greater(size(arr), 0)
        output_size = cast(nonempty, arr.dtype) * (reduce_max(arr) + 1)
        if minlength is not None:
            minlength = convert_to_tensor(minlength, name="minlength", dtype=arr.dtype)
            output_size = maximum(minlength, output_size)
        if maxlength is not None:
            maxlength = convert_to_tensor(maxlength, name="maxlength", dtype=arr.dtype)
            output_size = minimum(maxlength, output_size)
        if weights is not None:
            weights = reshape(weights, [-1])
        arr = reshape(arr, [-1])
        if weights is None:
            weights = constant([], dtype=dtypes.as_dtype(dtype))
        return dense_bincount_op.bind(arr, output_size, weights)


# ── confusion_matrix ─────────────────────────────────────────────────────────────────
def _remove_squeezable_dimensions(labels, predictions):
    """TF's ``remove_squeezable_dimensions`` (expected rank difference 0): squeezes a
    trailing dimension of size 1 off whichever of the two has one rank more."""
    with name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        p_shape, l_shape = predictions.shape, labels.shape
        p_rank, l_rank = p_shape.ndims, l_shape.ndims
        if p_rank is not None and l_rank is not None:
            diff = p_rank - l_rank
            if diff == 1 and p_shape.dims[-1].is_compatible_with(1):
                predictions = squeeze(predictions, [-1])
            elif diff == -1 and l_shape.dims[-1].is_compatible_with(1):
                labels = squeeze(labels, [-1])
            return labels, predictions
        diff = rank(predictions) - rank(labels)
        if p_rank is None or p_shape.dims[-1].is_compatible_with(1):
            predictions = cond(equal(1, diff), lambda: squeeze(predictions, [-1]),
                               lambda: predictions)
        if l_rank is None or l_shape.dims[-1].is_compatible_with(1):
            labels = cond(equal(-1, diff), lambda: squeeze(labels, [-1]), lambda: labels)
        return labels, predictions


def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None,
                     weights=None) -> Tensor:
    """The ``[n, n]`` matrix counting (or summing ``weights`` of) each (label, prediction)
    pair; ``n`` is ``num_classes``, else one more than the largest label or prediction.
    Built as TF builds it: int64 casts, run-time asserts on the ranges, ``ScatterNd``.

    >>> tf.Session().run(tf.confusion_matrix([1, 2, 0], [1, 1, 0]))
    array([[1, 0, 0],
           [0, 1, 0],
           [0, 1, 0]], dtype=int32)
    """
    with name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = _remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"))
        predictions = cast(predictions, dtypes.int64)
        labels = cast(labels, dtypes.int64)
        labels = with_dependencies(
            [assert_non_negative(labels, message="`labels` contains negative values")], labels)
        predictions = with_dependencies(
            [assert_non_negative(predictions,
                                 message="`predictions` contains negative values")],
            predictions)
        if num_classes is None:
            num_classes = maximum(reduce_max(predictions), reduce_max(labels)) + 1
        else:
            num_classes_int64 = cast(num_classes, dtypes.int64)
            labels = with_dependencies(
                [assert_less(labels, num_classes_int64, message="`labels` out of bound")],
                labels)
            predictions = with_dependencies(
                [assert_less(predictions, num_classes_int64,
                             message="`predictions` out of bound")], predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            weights = cast(weights, dtype)
        shape = stack([num_classes, num_classes])
        indices = stack([labels, predictions], axis=1)
        values = ones_like(predictions, dtype) if weights is None else weights
        result = scatter_nd(indices=indices, updates=values, shape=cast(shape, dtypes.int64))
        n = folded_value(shape)   # TF's shape inference evaluates the constant num_classes
        if n is not None:
            result.set_shape(n.tolist())
        return result


# ── zero_fraction ────────────────────────────────────────────────────────────────────
def _count_nonzero(value, dtype):
    with name_scope(None, "count_nonzero", [value]):
        zero = zeros([], dtype=value.dtype)
        return reduce_sum(cast(not_equal(value, zero), dtype), name="nonzero_count")


def zero_fraction(value, name=None) -> Tensor:
    """The fraction of ``value``'s elements that are zero, as a float32 scalar (TF's
    graph: an int32 count under a ``cond`` when the size fits in int32, else int64).

    >>> tf.Session().run(tf.math.zero_fraction([0., 1., 0., 3.]))
    np.float32(0.5)
    """
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        n = size(value, out_type=dtypes.int64)
        num_nonzero = cond(
            less_equal(n, dtypes.int32.max),
            true_fn=lambda: cast(_count_nonzero(value, dtypes.int32), dtype=dtypes.int64),
            false_fn=lambda: _count_nonzero(value, dtypes.int64))
        with name_scope("counts_to_fraction"):
            num_zero = n - num_nonzero
            fraction = cast(num_zero, dtype=dtypes.float32) / cast(n, dtype=dtypes.float32)
        return identity(fraction, "fraction")
