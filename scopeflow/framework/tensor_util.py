"""Static values of tensors at graph-build time (TF's ``tensor_util.constant_value``)."""

from __future__ import annotations

import numpy as np

from scopeflow.framework.graph import Tensor

__all__ = ["constant_value", "make_ndarray", "get_static_value"]



def constant_value(tensor):
    """The tensor's value as a NumPy array if it is known while building, else ``None``."""
    if not isinstance(tensor, Tensor):
        return np.asarray(tensor)
    rule = tensor.op._op_def.static_value
    if rule is None:
        return None
    value = rule(tensor)
    return None if value is None else np.asarray(value)


def get_static_value(tensor, partial=False):
    """``tf.get_static_value``: the value known while building, else ``None`` (``partial``
    is accepted; scopeflow's static values are whole or absent)."""
    return constant_value(tensor)


def make_ndarray(value):
    return np.array(value)
