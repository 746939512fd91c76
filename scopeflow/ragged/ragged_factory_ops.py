"""``tf.ragged.constant``, ``constant_value`` and ``placeholder``.

A nested Python list becomes its flat values and one row-splits vector per ragged level,
each a ``Const`` in the graph (TF's ``RaggedConstant`` scope). The nesting depth decides
``ragged_rank`` (one less than the depth, less ``len(inner_shape)``), as in TF.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.ops.array.shape_ops import placeholder as _placeholder
from scopeflow.ragged.ragged_tensor import RaggedTensor, RaggedTensorValue

__all__ = ["constant", "constant_value", "placeholder"]


def _depth(x):
    """The nesting depth of scalars in ``x`` (-1 for an empty list: it fixes nothing)."""
    if isinstance(x, (list, tuple)):
        depths = {d for d in (_depth(v) for v in x) if d >= 0}
        if len(depths) > 1:
            raise ValueError("all scalar values must have the same nesting depth")
        return (depths.pop() + 1) if depths else -1
    if isinstance(x, np.ndarray):
        return x.ndim
    return 0


def _split(pylist, ragged_rank, inner_shape):
    """The nested row splits and the flat values (a list) of ``pylist``."""
    nested, level = [], list(pylist)
    for _ in range(ragged_rank):
        lengths = [len(row) for row in level]
        nested.append(np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(
            np.int64))
        level = [v for row in level for v in row]
    return nested, level


def _parse(pylist, ragged_rank, inner_shape):
    if not isinstance(pylist, (list, tuple, np.ndarray)):
        return None, pylist
    depth = _depth(pylist)
    if inner_shape is not None and ragged_rank is None:
        ragged_rank = max(1, (depth if depth > 0 else 1) - 1 - len(inner_shape))
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1) if depth > 0 else 1
    if depth >= 0 and ragged_rank >= depth:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                         f"{ragged_rank}")
    return _split(pylist, ragged_rank, inner_shape)


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """A RaggedTensor of constants: ``tf.ragged.constant([[1, 2], [3]])``."""
    with name_scope(name, "RaggedConstant"):
        nested, flat = _parse(pylist, ragged_rank, inner_shape)
        if nested is None:
            return convert_to_tensor(flat, dtype=dtype)
        shape = None if inner_shape is None else [len(flat)] + list(inner_shape)
        if not flat and dtype is None:
            dtype = dtypes.float32
        values = convert_to_tensor(flat if shape is None else np.reshape(flat, shape),
                                   dtype=dtype, name="values")
        result = values
        for splits in reversed(nested):
            result = RaggedTensor(result, convert_to_tensor(splits, name="Const"),
                                  internal=True)
        return result


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None,
                   row_splits_dtype="int64"):
    """The NumPy counterpart of :func:`constant`: a RaggedTensorValue."""
    nested, flat = _parse(pylist, ragged_rank, inner_shape)
    if nested is None:
        return np.asarray(flat, dtype=dtype)
    np_dtype = None if dtype is None else dtypes.as_dtype(dtype).as_numpy_dtype
    values = np.asarray(flat, dtype=np_dtype) if flat else np.zeros(
        [0] + list(inner_shape or []), np_dtype or np.float64)
    if inner_shape is not None:
        values = values.reshape([len(flat)] + list(inner_shape))
    result = values
    splits_dtype = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype
    for splits in reversed(nested):
        result = RaggedTensorValue(result, splits.astype(splits_dtype))
    return result


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor of placeholders: feed it a RaggedTensorValue."""
    if ragged_rank <= 0:
        raise ValueError(f"ragged_rank must be at least 1, got {ragged_rank}")
    with name_scope(name, "RaggedPlaceholder"):
        value_shape = TensorShape(value_shape if value_shape is not None else [])
        result = _placeholder(dtype, TensorShape([None]).concatenate(value_shape),
                              name="flat_values")
        for i in reversed(range(ragged_rank)):
            splits = _placeholder(dtypes.int64, [None], name=f"row_splits_{i}")
            result = RaggedTensor(result, splits, internal=True)
        return result
