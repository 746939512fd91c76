"""``IndexedSlices``: the sparse gradient of ``gather``/``embedding_lookup`` (a value type).

Densifying it (``tf.convert_to_tensor``) and negating it build ops, so those are installed
by the ops that implement them (``ops/math_ops``), as ``Tensor``'s operators are.
"""

from __future__ import annotations

import collections

from scopeflow.framework.properties import read_only
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value

__all__ = ["IndexedSlices", "IndexedSlicesValue"]

IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "What ``Session.run`` returns for a fetched IndexedSlices."


class IndexedSlices:
    """A sparse tensor: ``values[i]`` is row ``indices[i]`` of a ``dense_shape`` tensor.

    Rows may repeat (their values add up). ``tf.convert_to_tensor`` densifies it.
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = read_only("_values")
    indices = read_only("_indices")
    dense_shape = read_only("_dense_shape")
    dtype = read_only("_values.dtype")
    name = read_only("_values.name")
    op = read_only("_values.op")
    graph = read_only("_values.graph")
    device = read_only("_values.device")

    @property
    def shape(self):
        if self._dense_shape is None:
            return TensorShape(None)
        value = constant_value(self._dense_shape)
        if value is not None:
            return TensorShape([int(d) for d in value])
        return TensorShape([None]).concatenate(self._values.shape[1:])

    def _as_control_op(self):
        return self._values.op

    def __repr__(self):
        return (f"IndexedSlices(indices={self._indices!r}, values={self._values!r}"
                + (f", dense_shape={self._dense_shape!r})" if self._dense_shape is not None
                   else ")"))
