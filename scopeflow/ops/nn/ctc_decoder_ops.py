"""``tf.nn.ctc_unique_labels``: each batch row's distinct labels (zero-padded) and the
index of every label in them, as TF builds it (``map_fn`` over the rows of ``Unique`` +
``Pad``), for ``ctc_loss``'s ``unique`` argument.
"""

from __future__ import annotations

from scopeflow.framework import dtypes
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.tensor_shape import dimension_value
from scopeflow.ops import array_ops, math_ops
from scopeflow.ops.control_flow.functional_ops import map_fn
from scopeflow.ops.math.segment_ops import unique

__all__ = ["ctc_unique_labels"]


def _dim(t, i):
    """``t``'s dimension ``i``: static when known, else read at run time (TF's
    ``_get_dim``)."""
    return dimension_value(t.shape[i]) or array_ops.shape(t)[i]


def ctc_unique_labels(labels, name=None):
    """``(unique labels padded with 0 as int64, indices int32)`` per row of the
    ``[batch, max_label_length]`` ``labels``.

    >>> [t.dtype.name for t in tf.nn.ctc_unique_labels([[3, 4, 4, 3]])]
    ['int64', 'int32']
    """
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x):
            y, idx = unique(x)
            y = array_ops.pad(y, [[0, _dim(idx, 0) - _dim(y, 0)]])
            return [math_ops.cast(y, dtypes.int64), idx]

        return map_fn(_unique, labels, dtype=[dtypes.int64, dtypes.int32])
