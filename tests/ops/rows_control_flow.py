"""Op-table rows for control flow and TensorArrays: ``Cond``, ``WhileLoop`` and the
TensorArray ops users build. Their gradient ops, and everything TF-specific about them
(names, errors, gradients against TF), are in tests/unit/ops/control_flow/test_control_flow.py and
tests/unit/ops/control_flow/test_control_flow_vs_tf.py."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase, rand

_WHY = "a gradient-only op (lists of per-element gradients); covered by " \
    "tests/unit/test_control_flow*.py through the gradients of the ops that use it"
EXEMPT = {op: _WHY for op in [
    "TensorArraySetItemGrad", "TensorArrayGetItemGrad", "TensorArrayStackGrad",
    "TensorArrayFromTensorGrad", "TensorArrayGatherGrad", "TensorArrayScatterGrad",
    "TensorArrayConcatGrad", "TensorArraySplitGrad", "TensorArrayAddGrads",
    "TensorArrayNoGrad", "WhileLoopGrad"]}
EXEMPT["LoopVar"] = "fed by its loop's kernel, never run on its own; every WhileLoop row uses it"

_X = rand(3, 4)
_V = rand(5)


def _ta(tf, x, **kw):
    # The array takes x's dtype: as TF1, a write of another dtype fails when it runs.
    return tf.TensorArray(x.dtype, size=3, **kw).unstack(x)


ROWS = [
    OpCase("Cond", lambda tf, x: tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0,
                                         lambda: tf.sin(x) - 1.0),
           lambda x: x * 2.0 if x.sum() > 0 else np.sin(x) - 1.0, [_X]),
    OpCase("Cond", lambda tf, x: tf.cond(tf.reduce_sum(x) < 0, lambda: x * 2.0,
                                         lambda: tf.sin(x) - 1.0),
           lambda x: x * 2.0 if x.sum() < 0 else np.sin(x) - 1.0, [_X], id="Cond-false",
           rtol=1e-5),
    OpCase("WhileLoop", lambda tf, x: tf.while_loop(lambda i, a: i < 3,
                                                    lambda i, a: (i + 1, tf.tanh(a) * 1.5),
                                                    [0, x])[1],
           lambda x: np.tanh(np.tanh(np.tanh(x) * 1.5) * 1.5) * 1.5, [_V], rtol=1e-5),
    OpCase("TensorArrayReserve", lambda tf, x: tf.TensorArray(x.dtype, size=2).write(
        0, x).write(1, x + 1.0).stack(), lambda x: np.stack([x, x + 1.0]), [_V]),
    OpCase("TensorArraySetItem", lambda tf, x: tf.TensorArray(x.dtype, size=0,
                                                              dynamic_size=True).write(
        1, x).stack(), lambda x: np.stack([np.zeros_like(x), x]), [_V]),
    OpCase("TensorArrayGetItem", lambda tf, x: _ta(tf, x).read(1) * 3.0,
           lambda x: x[1] * 3.0, [_X]),
    OpCase("TensorArrayStackItems", lambda tf, x: _ta(tf, x).stack(), lambda x: x, [_X]),
    OpCase("TensorArrayFromTensor", lambda tf, x: _ta(tf, x).read(2), lambda x: x[2], [_X]),
    OpCase("TensorArrayGatherItems",  # reads 2 twice: TF needs clear_after_read=False
           lambda tf, x: _ta(tf, x, clear_after_read=False).gather([2, 0, 2]),
           lambda x: x[[2, 0, 2]], [_X]),
    OpCase("TensorArrayScatterItems", lambda tf, x: tf.TensorArray(x.dtype, size=3).scatter(
        [2, 0, 1], x).stack(), lambda x: x[[1, 2, 0]], [_X]),
    OpCase("TensorArrayConcatItems", lambda tf, x: _ta(tf, x).concat(),
           lambda x: x.reshape(-1), [_X]),
    OpCase("TensorArraySplitTensor", lambda tf, x: tf.TensorArray(  # pieces of two lengths
        x.dtype, size=2, infer_shape=False).split(
        x, [2, 3]).read(1), lambda x: x[2:], [_V]),
    OpCase("TensorArrayLength", lambda tf, x: _ta(tf, x).size(), lambda x: np.int32(3), [_X]),
]
