"""``Bucketize``: each value's bucket among sorted float ``boundaries`` (TF's
``math_ops._bucketize``, which ``tf.feature_column.bucketized_column`` builds).

Bucket ``i`` holds ``boundaries[i-1] <= x < boundaries[i]``; below the first boundary is
bucket 0, at or above the last is ``len(boundaries)``. TF registers no gradient for it.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.errors import InvalidArgumentError
from scopeflow.framework.graph import convert_to_tensor, name_scope
from scopeflow.framework.opdef import NO_GRADIENT, OpDef, check_dtype, same_shape

__all__ = ["bucketize", "bucketize_op"]

_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def _dtype(x, *, T, boundaries):
    check_dtype(x, _TYPES, "input")
    return dtypes.int32


def _kernel(x, *, T, boundaries):
    edges = np.asarray(boundaries, np.float32)
    if np.any(edges[1:] < edges[:-1]):
        raise InvalidArgumentError(None, None, "Expected sorted boundaries")
    # TF compares each value with the float boundaries: searchsorted "right" counts the
    # boundaries <= x.
    return np.searchsorted(edges, np.asarray(x), side="right").astype(np.int32)


bucketize_op = OpDef("Bucketize", shape=same_shape, dtype=_dtype, kernel=_kernel,
                     attrs={"T": None, "boundaries": None}, grad=NO_GRADIENT,
                     input_names=("input",))


def bucketize(input, boundaries, name=None):  # noqa: A002 (TF's argument name)
    """The bucket of each element of ``input`` among the sorted ``boundaries``."""
    with name_scope(name, "Bucketize", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        return bucketize_op.bind(x, name=scope, T=x.dtype.base_dtype,
                                 boundaries=[float(b) for b in boundaries])
