"""``Timestamp`` (``tf.timestamp``): the wall-clock time, in seconds since the epoch as a
float64 scalar, read when the op runs (stateful: never folded, read at every run)."""

from __future__ import annotations

import time

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.opdef import OpDef
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["timestamp"]


def _timestamp_kernel(ctx):
    return np.float64(time.time())


timestamp_op = OpDef("Timestamp", shape=lambda: TensorShape([]), dtype=lambda: dtypes.float64,
                     kernel=_timestamp_kernel, stateful=True, grad=None)


def timestamp(name=None):
    """The time when the op runs, in seconds since the Unix epoch (float64)."""
    return timestamp_op.bind(name=name or "Timestamp")
