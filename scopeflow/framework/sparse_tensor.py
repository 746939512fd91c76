"""``tf.SparseTensor``: a tensor given by the coordinates and values of its non-zeros.

A SparseTensor is three dense tensors in the graph — ``indices`` (int64 ``[N, rank]``),
``values`` (``[N]``) and ``dense_shape`` (int64 ``[rank]``) — bundled for the user.
``Session.run`` fetches one as a :class:`SparseTensorValue` and accepts one (or an
``(indices, values, dense_shape)`` tuple) as the feed for a ``tf.sparse_placeholder``.
"""

from __future__ import annotations

import collections

from scopeflow.framework import dtypes
from scopeflow.framework.context import get_default_session
from scopeflow.framework.graph import Tensor, convert_to_tensor, name_scope
from scopeflow.framework.properties import read_only
from scopeflow.framework.tensor_shape import TensorShape
from scopeflow.framework.tensor_util import constant_value

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = "What ``Session.run`` returns for a fetched SparseTensor."


class SparseTensor:
    """A sparse tensor (``tf.SparseTensor(indices, values, dense_shape)``).

    >>> st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    >>> st.shape, st.dtype.name
    (TensorShape([Dimension(3), Dimension(4)]), 'float32')
    >>> tf.Session().run(tf.sparse.to_dense(st))
    array([[1., 0., 0., 0.],
           [0., 0., 2., 0.],
           [0., 0., 0., 0.]], dtype=float32)
    """

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape",
                                            dtype=dtypes.int64)
        indices.shape.with_rank(2)
        values.shape.with_rank(1)
        dense_shape.shape.with_rank(1)
        indices.shape[1:].assert_is_compatible_with(dense_shape.shape)
        self._indices, self._values, self._dense_shape = indices, values, dense_shape
        self._static_shape = None

    @classmethod
    def from_value(cls, value):
        """A SparseTensor from a SparseTensorValue (or return a SparseTensor unchanged)."""
        if isinstance(value, SparseTensor):
            return value
        return cls(value.indices, value.values, value.dense_shape)

    indices = read_only("_indices", "int64 ``[N, rank]`` coordinates.")
    values = read_only("_values", "``[N]`` values, one per coordinate.")
    dense_shape = read_only("_dense_shape", "int64 ``[rank]`` shape.")
    dtype = read_only("_values.dtype")
    op = read_only("_values.op")
    graph = read_only("_values.graph")

    @property
    def shape(self) -> TensorShape:
        """The static dense shape: what is known of ``dense_shape``'s value (TF's
        ``constant_value_as_shape``), merged with ``set_shape``'s shapes."""
        if self._static_shape is None:
            self._static_shape = self._shape_of_dense_shape(self._dense_shape)
        return self._static_shape

    @staticmethod
    def _shape_of_dense_shape(dense_shape) -> TensorShape:
        # The ops layer installs TF's constant_value_as_shape here (it sees through
        # Shape, Pack, ConcatV2 and slices); this fallback knows constants only.
        value = constant_value(dense_shape)
        if value is not None:
            return TensorShape([int(d) for d in value])
        return TensorShape([None] * dense_shape.shape[0].value) \
            if dense_shape.shape.is_fully_defined() else TensorShape(None)

    def get_shape(self) -> TensorShape:
        return self.shape

    def set_shape(self, shape):
        """Refines the static shape; ``ValueError`` where ``shape`` contradicts it."""
        if not isinstance(shape, TensorShape):
            shape = TensorShape(shape)
        self._static_shape = self.shape.merge_with(shape)

    def _set_static_shape(self, shape):
        self._static_shape = TensorShape(shape)

    def components(self) -> tuple[Tensor, Tensor, Tensor]:
        """``(indices, values, dense_shape)``: the tensors a fetch or feed expands to."""
        return self._indices, self._values, self._dense_shape

    def eval(self, feed_dict=None, session=None):
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                             "registered. Use `with sess.as_default()` or pass an explicit "
                             "session to `eval(session=sess)`")
        return session.run(self, feed_dict)

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self._dense_shape})")


def is_sparse(x) -> bool:
    """Whether ``x`` is a SparseTensor or a SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))
