"""``RaggedFillEmptyRows`` and its gradient op ``RaggedFillEmptyRowsGrad`` (TF's raw ops
``tf.ragged_fill_empty_rows``/``tf.ragged_fill_empty_rows_grad``).

A ragged tensor given by ``value_rowids`` (one row id per value) and ``nrows`` gets one
``default_value`` in each empty row. As TF's kernel (the dense-shape-free twin of
``SparseFillEmptyRows``), values keep their order within a row and rows need not be
sorted: the output lists row 0's values, then row 1's, ... ``reverse_index_map`` gives
each input value's position in the output. The gradient op takes those positions back:
``d_values`` gathers them, ``d_default_value`` sums the rest.
"""

from __future__ import annotations

import collections

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import Tensor, convert_to_tensor, get_default_graph
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"]


def _ranked(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape if shape.ndims is not None else TensorShape([None] * rank)


def _fill_shape(rowids, values, nrows, default):
    rowids, values = _ranked(rowids, 1), _ranked(values, 1)
    _ranked(nrows, 0)
    _ranked(default, 0)
    a, b = rowids.as_tuple()[0], values.as_tuple()[0]
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    n = a if a is not None else b
    vec = TensorShape([None])
    return [vec, vec, vec, TensorShape([n])]


def _fill_dtype(rowids, values, nrows, default):
    check_dtype(rowids, (dtypes.int64,), "value_rowids")
    check_dtype(nrows, (dtypes.int64,), "nrows")
    if default is not values:
        raise TypeError(f"Input 'default_value' of 'RaggedFillEmptyRows' Op has type "
                        f"{default.name} that does not match type {values.name} of argument "
                        "'values'.")
    return [dtypes.int64, values, dtypes.bool, dtypes.int64]


def _fill_kernel(rowids, values, nrows, default):
    nrows = int(nrows)
    if nrows < 0:
        raise InvalidArgumentError(
            None, None, f"Expected shape dimensions to be non-negative, got {nrows}")
    bad = np.flatnonzero((rowids < 0) | (rowids >= nrows))
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(
            None, None, f"indices({i}, 0) is invalid: {int(rowids[i])} >= {nrows}")
    counts = np.bincount(rowids, minlength=nrows)
    empty = counts == 0
    per_row = np.maximum(counts, 1)                  # an empty row holds its default
    out_rowids = np.repeat(np.arange(nrows, dtype=np.int64), per_row)
    starts = np.concatenate([[0], np.cumsum(per_row)[:-1]]).astype(np.int64)
    order = np.argsort(rowids, kind="stable")        # values by row, input order kept
    rank_in_row = np.empty(len(rowids), np.int64)
    first_of_row = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    rank_in_row[order] = np.arange(len(rowids)) - first_of_row[rowids[order]]
    reverse = starts[rowids] + rank_in_row if len(rowids) else np.zeros(0, np.int64)
    out_values = np.full(len(out_rowids), default, dtype=values.dtype)
    out_values[reverse] = values
    return out_rowids, out_values, empty, reverse.astype(np.int64)


ragged_fill_empty_rows_op = OpDef(
    "RaggedFillEmptyRows", shape=_fill_shape, dtype=_fill_dtype, kernel=_fill_kernel,
    num_outputs=4, input_names=("value_rowids", "values", "nrows", "default_value"))


def _fill_grad_shape(reverse, grads):
    _ranked(grads, 1)
    return [_ranked(reverse, 1), TensorShape([])]


def _fill_grad_dtype(reverse, grads):
    check_dtype(reverse, (dtypes.int64,), "reverse_index_map")
    return [grads, grads]


def _fill_grad_kernel(reverse, grads):
    n = len(grads)
    bad = np.flatnonzero((reverse < 0) | (reverse >= n))
    if bad.size:
        raise InvalidArgumentError(
            None, None, f"Elements in reverse index must be in [0, {n}) but got "
            f"{int(reverse[bad[0]])}")
    d_values = grads[reverse]
    d_default = grads.sum(dtype=grads.dtype) - d_values.sum(dtype=grads.dtype)
    return d_values, np.asarray(d_default, grads.dtype)


ragged_fill_empty_rows_grad_op = OpDef(
    "RaggedFillEmptyRowsGrad", shape=_fill_grad_shape, dtype=_fill_grad_dtype,
    kernel=_fill_grad_kernel, num_outputs=2, grad=NO_GRADIENT,
    input_names=("reverse_index_map", "grad_values"))


@ragged_fill_empty_rows_op.def_grad
def _fill_grad(op, d_rowids, d_values, d_empty, d_reverse):
    """TF's gradient: ``RaggedFillEmptyRowsGrad`` of the output values' gradient."""
    d_in, d_default = ragged_fill_empty_rows_grad_op.bind(op.outputs[3], d_values)
    return [None, d_in, None, d_default]


def _int64(x, what, op_type="RaggedFillEmptyRows"):
    """An int64 input as TF's op helper converts it (a Python list becomes int64)."""
    if not isinstance(x, Tensor):
        return convert_to_tensor(x, dtypes.int64, name=what)
    if x.dtype.base_dtype != dtypes.int64:
        raise TypeError(f"Input '{what}' of '{op_type}' Op has type {x.dtype.base_dtype.name} "
                        "that does not match expected type of int64.")
    return x


RaggedFillEmptyRows = collections.namedtuple(
    "RaggedFillEmptyRows",
    ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
RaggedFillEmptyRowsGrad = collections.namedtuple(
    "RaggedFillEmptyRowsGrad", ["d_values", "d_default_value"])


def ragged_fill_empty_rows(value_rowids, values, nrows, default_value,
                           name=None) -> RaggedFillEmptyRows:
    """TF's raw ``RaggedFillEmptyRows``: a ragged tensor's rows, each empty one given
    ``default_value``.

    >>> r = tf.ragged_fill_empty_rows([0, 0, 2], [1., 2., 3.], 4, -1.)
    >>> tf.Session().run(r.output_values).tolist()
    [1.0, 2.0, -1.0, 3.0, -1.0]
    """
    with get_default_graph().name_scope(name or "RaggedFillEmptyRows") as scope:
        value_rowids = _int64(value_rowids, "value_rowids")
        values = convert_to_tensor(values, name="values")
        nrows = _int64(nrows, "nrows")
        if not isinstance(default_value, Tensor):
            default_value = convert_to_tensor(default_value, values.dtype.base_dtype,
                                              name="default_value")
        return RaggedFillEmptyRows(*ragged_fill_empty_rows_op.bind(
            value_rowids, values, nrows, default_value, name=scope))


def ragged_fill_empty_rows_grad(reverse_index_map, grad_values,
                                name=None) -> RaggedFillEmptyRowsGrad:
    """TF's raw ``RaggedFillEmptyRowsGrad``: the values' and the default's gradients."""
    with get_default_graph().name_scope(name or "RaggedFillEmptyRowsGrad") as scope:
        reverse_index_map = _int64(reverse_index_map, "reverse_index_map",
                                   "RaggedFillEmptyRowsGrad")
        grad_values = convert_to_tensor(grad_values, name="grad_values")
        return RaggedFillEmptyRowsGrad(*ragged_fill_empty_rows_grad_op.bind(
            reverse_index_map, grad_values, name=scope))
