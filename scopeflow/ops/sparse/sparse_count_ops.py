"""``tf.sparse.bincount``: value counts as a SparseTensor — TF's ``DenseCountSparseOutput``
(a dense vector or matrix) and ``SparseCountSparseOutput`` (a SparseTensor's rows). Each
row (or the whole input, with ``axis=0``) counts its values (or sums their ``weights``;
1 per present value with ``binary_output``); values from ``maxlength`` up are dropped and
the last dimension is ``max(min(largest value + 1, maxlength), minlength)``. No gradient is
registered, as in TF.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import control_dependencies, convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.sparse_tensor import SparseTensor
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops import array_ops, constant_op
from scopeflow.ops.logging.check_ops import assert_equal
from scopeflow.ops.sparse.sparse_kernels import check_sparse, invalid

__all__ = ["sparse_bincount"]

_INTS = (dtypes.int32, dtypes.int64)
_OUT = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _count(batch, values, weights, n_batch, *, minlength, maxlength, binary_output,
           output_type):
    """The (indices, counts, dense shape) of the values of each batch row."""
    values = np.asarray(values, np.int64)
    if (values < 0).any():
        raise invalid("Input values must all be non-negative")
    weights = np.asarray(weights)
    weighted = weights.size > 0 and not binary_output
    if weights.size and weights.shape != values.shape:
        raise invalid(f"Weights and values must have the same shape. Weight shape: "
                      f"{list(weights.shape)}; values shape: {list(values.shape)}")
    size = int(values.max()) + 1 if values.size else 0
    if maxlength >= 0:
        size = min(size, maxlength)
        keep = values < maxlength
        batch, values = batch[keep], values[keep]
        weights = weights[keep] if weighted else weights
    if minlength >= 0:
        size = max(size, minlength)
    keys = batch * max(size, 1) + values
    uniq, inverse = np.unique(keys, return_inverse=True)
    npd = output_type.as_numpy_dtype
    if binary_output:
        counts = np.ones(len(uniq), npd)
    else:
        counts = np.zeros(len(uniq), npd)
        np.add.at(counts, inverse.reshape(-1), weights.astype(npd) if weighted else 1)
    rows, cols = uniq // max(size, 1), uniq % max(size, 1)
    return rows, cols, counts, size


def _dense_kernel(values, weights, *, T, minlength, maxlength, binary_output, output_type):
    values = np.asarray(values)
    if values.ndim not in (1, 2):
        raise invalid(f"Input must be a 1 or 2-dimensional tensor. Got: {values.ndim}")
    flat = values.reshape(-1)
    batch = (np.repeat(np.arange(values.shape[0]), values.shape[1]) if values.ndim == 2
             else np.zeros(len(flat), np.int64))
    w = np.asarray(weights)
    rows, cols, counts, size = _count(batch, flat, w.reshape(-1) if w.size else w, 0,
                                      minlength=minlength, maxlength=maxlength,
                                      binary_output=binary_output, output_type=output_type)
    if values.ndim == 1:
        return cols[:, None].astype(np.int64), counts, np.array([size], np.int64)
    return (np.stack([rows, cols], 1).astype(np.int64), counts,
            np.array([values.shape[0], size], np.int64))


def _sparse_kernel(indices, values, dense_shape, weights, *, T, minlength, maxlength,
                   binary_output, output_type):
    idx, vals, shape = check_sparse(indices, values, dense_shape, "")
    if len(shape) not in (1, 2):
        raise invalid(f"Input must be a 1 or 2-dimensional tensor. Got: {len(shape)}")
    batch = idx[:, 0] if len(shape) == 2 else np.zeros(len(vals), np.int64)
    rows, cols, counts, size = _count(batch, vals, weights, 0, minlength=minlength,
                                      maxlength=maxlength, binary_output=binary_output,
                                      output_type=output_type)
    if len(shape) == 1:
        return cols[:, None].astype(np.int64), counts, np.array([size], np.int64)
    return (np.stack([rows, cols], 1).astype(np.int64), counts,
            np.array([shape[0], size], np.int64))


_ATTRS = {"T": dtypes.int32, "minlength": -1, "maxlength": -1, "binary_output": False,
          "output_type": dtypes.int32}


def _out_dtype(values, weights, **attrs):
    check_dtype(values, _INTS, "values")
    check_dtype(weights, _OUT, "weights")
    return [dtypes.int64, attrs["output_type"], dtypes.int64]


def _dense_shape_rule(values, weights, **attrs):
    rank = values.ndims
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _sparse_shape_rule(indices, values, shape, weights, **attrs):
    rank = indices[1] if indices.ndims == 2 else None
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


dense_count_op = OpDef("DenseCountSparseOutput", shape=_dense_shape_rule, dtype=_out_dtype,
                       kernel=_dense_kernel, attrs=_ATTRS, num_outputs=3, grad=NO_GRADIENT,
                       input_names=("values", "weights"))
sparse_count_op = OpDef(
    "SparseCountSparseOutput", shape=_sparse_shape_rule,
    dtype=lambda i, v, s, w, **attrs: (check_dtype(i, (dtypes.int64,), "indices"),
                                       _out_dtype(v, w, **attrs))[1],
    kernel=_sparse_kernel, attrs=_ATTRS, num_outputs=3, grad=NO_GRADIENT,
    input_names=("indices", "values", "dense_shape", "weights"))


def _sparse_weights(values, weights):
    """TF's validate_sparse_weights: the weights' values, checked to match ``values``."""
    if weights is None:
        return constant_op.constant([], dtype=values.values.dtype)
    if not isinstance(weights, SparseTensor):
        raise ValueError(f"Argument `weights` must be a SparseTensor if `values` is a "
                         f"SparseTensor. Received weights={weights} of type: "
                         f"{type(weights).__name__}")
    checks = []
    if weights.dense_shape is not values.dense_shape:
        checks.append(assert_equal(weights.dense_shape, values.dense_shape,
                                   message="'weights' and 'values' must have the same dense "
                                           "shape."))
    if weights.indices is not values.indices:
        checks.append(assert_equal(weights.indices, values.indices,
                                   message="'weights' and 'values' must have the same "
                                           "indices."))
    if not checks:
        return weights.values
    with control_dependencies(checks):
        return array_ops.identity(weights.values)


def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
                    binary_output=False, name=None) -> SparseTensor:
    """Counts of each value as a SparseTensor: over all values (``axis=0``), or per row of
    a 2-D input (``axis=-1``).

    >>> st = tf.sparse.bincount(tf.constant([[1, 3, 3], [0, 1, 1]]), axis=-1)
    >>> tf.Session().run(st).values.tolist()
    [1, 2, 1, 2]
    """
    with name_scope(name, "count", [values, weights]):
        if not isinstance(values, SparseTensor):
            values = convert_to_tensor(values, name="values")
        if weights is not None and not isinstance(weights, SparseTensor):
            weights = convert_to_tensor(weights, name="weights")
        if weights is not None and binary_output:
            raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                             "Please specify only one.")
        axis = 0 if axis is None else axis
        if axis not in (0, -1):
            raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                             f"currently supported.")
        attrs = {"minlength": -1 if minlength is None else int(minlength),
                 "maxlength": -1 if maxlength is None else int(maxlength),
                 "binary_output": bool(binary_output)}
        if axis == 0:
            if isinstance(values, SparseTensor):
                if weights is not None:
                    weights = _sparse_weights(values, weights)
                values = values.values
            else:
                if weights is not None:
                    weights = array_ops.reshape(weights, [-1])
                values = array_ops.reshape(values, [-1])
        if isinstance(values, SparseTensor):
            weights = _sparse_weights(values, weights)
            out = sparse_count_op.bind(values.indices, values.values, values.dense_shape,
                                       weights, T=values.dtype.base_dtype,
                                       output_type=weights.dtype.base_dtype, **attrs)
        else:
            if weights is None:
                weights = constant_op.constant([], dtype=values.dtype)
            out = dense_count_op.bind(values, weights, T=values.dtype.base_dtype,
                                      output_type=weights.dtype.base_dtype, **attrs)
        return SparseTensor(*out)
