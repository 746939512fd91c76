"""``Fact`` (``tf.user_ops.my_fact``): TensorFlow's example of a user-defined op.

TF ships it as the sample its "adding a new op" guide builds (``tensorflow/core/user_ops/
fact.cc``); its kernel writes the fixed string ``"0! == 1"``. TF1 code that tried the guide
calls it, so scopeflow has it as TF does: a string scalar, no inputs, no gradient
registered.
"""

from __future__ import annotations

import numpy as np

from scopeflow.framework import dtypes
from scopeflow.framework.opdef import NO_GRADIENT, OpDef
from scopeflow.framework.tensor_shape import TensorShape

__all__ = ["my_fact"]


def _fact_kernel():
    return np.array(b"0! == 1", dtype=object)


def _fact_shape():
    return TensorShape(None)


def _fact_dtype():
    return dtypes.string


fact_op = OpDef("Fact", shape=_fact_shape, dtype=_fact_dtype, kernel=_fact_kernel,
                 grad=NO_GRADIENT)


def my_fact():
    """TF's example user op: a string scalar tensor holding ``b"0! == 1"``."""
    return fact_op.bind(name="Fact")
