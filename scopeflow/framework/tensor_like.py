"""What counts as a tensor: TF's ``tf.is_tensor``, ``tf.is_symbolic_tensor`` and
``tf.convert_to_tensor_or_indexed_slices`` over graph tensors, composite tensors
(``SparseTensor``, ``IndexedSlices``) and variables."""

from __future__ import annotations

from scopeflow.framework.graph import Operation, Tensor, convert_to_tensor
from scopeflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from scopeflow.framework.sparse_tensor import SparseTensor

__all__ = ["is_tensor", "is_symbolic_tensor", "convert_to_tensor_or_indexed_slices"]


def is_tensor(x) -> bool:
    """True for graph tensors and tensor-like values (``SparseTensor``, ``IndexedSlices``,
    variables); False for NumPy and Python values.

    >>> is_tensor(1), is_tensor(convert_to_tensor(1))
    (False, True)
    """
    return (isinstance(x, Tensor | SparseTensor | IndexedSlices)
            or (hasattr(x, "_as_graph_element") and not isinstance(x, Operation)))


def is_symbolic_tensor(x) -> bool:
    """True for a graph ``Tensor`` only (as TF: not for variables or composite tensors)."""
    return isinstance(x, Tensor)


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """``value`` unchanged if it is an ``IndexedSlices`` (of ``dtype``, if given), else
    ``convert_to_tensor(value, dtype, name)``."""
    if isinstance(value, IndexedSlicesValue):
        value = IndexedSlices(convert_to_tensor(value.values), convert_to_tensor(value.indices),
                              None if value.dense_shape is None
                              else convert_to_tensor(value.dense_shape))
    if isinstance(value, IndexedSlices):
        if dtype is not None and value.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for "
                             f"IndexedSlices with dtype {value.dtype.name}: {value}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)
