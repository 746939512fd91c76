"""TF's fused elementwise gradient ops (scopeflow.ops.math.cwise_grad_ops): their values
and their own gradients equal TF's on edge values (zeros, tiny, inf, NaN, a huge
gradient), from a fixture TF wrote and, where TF is installed, live; a TF training graph
through tanh and sigmoid imports and trains here."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.opdef import REGISTRY

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures",
                        "tf_cwise_grad_ops")
with open(os.path.join(FIXTURES, "expected.json")) as f:
    EXPECTED = json.load(f)


def _decode(values, dtype):
    return np.array([math.nan if v is None else float(v) for v in values], dtype)


def _ours(op_type, dtype):
    y = _decode(EXPECTED["y"], dtype)
    dy = _decode(EXPECTED["dy"], dtype)
    with tf.Graph().as_default(), tf.Session() as sess:
        yt, dyt = tf.constant(y), tf.constant(dy)
        z = REGISTRY[op_type].bind(yt, dyt)
        gy, gdy = tf.gradients(tf.reduce_sum(z * np.array(EXPECTED["w"], dtype)), [yt, dyt])
        return sess.run([z, gy, gdy])


@pytest.mark.parametrize("key", sorted(EXPECTED["ops"]))
def test_values_and_gradients_are_tfs(key):
    op_type, dtype = key.split("/")
    got = _ours(op_type, dtype)
    for what, mine, theirs in zip(("output", "d/dy", "d/d(dy)"), got, EXPECTED["ops"][key]):
        want = _decode(theirs, dtype)
        assert mine.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(want), err_msg=what)
        np.testing.assert_array_equal(mine, want, err_msg=f"{key} {what}")  # exact
        zeros = want == 0   # and the signs of zeros
        np.testing.assert_array_equal(np.signbit(mine[zeros]), np.signbit(want[zeros]),
                                      err_msg=f"{key} {what}")


def test_shape_and_dtype_rules():
    with tf.Graph().as_default():
        y = tf.placeholder(tf.float32, [None, 3])
        assert REGISTRY["TanhGrad"].bind(y, tf.zeros([2, 3])).shape.as_list() == [2, 3]
        with pytest.raises(ValueError):
            REGISTRY["SigmoidGrad"].bind(y, tf.zeros([2, 4]))
        with pytest.raises(TypeError):
            REGISTRY["SqrtGrad"].bind(tf.zeros([2], tf.int32), tf.zeros([2], tf.int32))


def test_a_tf_training_graph_through_tanh_and_sigmoid_imports_and_trains(tf1):
    """TF builds a small tanh/sigmoid/rsqrt model and its SGD step (its gradients hold
    TanhGrad, SigmoidGrad and RsqrtGrad); scopeflow imports the GraphDef and runs three
    steps to TF's losses."""
    theirs = tf1("""
        x = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        w = tf.Variable(np.full((3, 2), 0.3, np.float32), name="w")
        h = tf.tanh(tf.matmul(x, w)) + tf.sigmoid(tf.matmul(x, w)) * tf.rsqrt(
            tf.reduce_sum(w * w) + 1.0)
        loss = tf.identity(tf.reduce_sum(h * h), name="loss")
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="step")
        types = sorted({n.op for n in tf.get_default_graph().as_graph_def().node})
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        gd = tf.get_default_graph().as_graph_def().SerializeToString()
        losses = [float(sess.run([loss, step])[0]) for _ in range(3)]
        import base64
        print(json.dumps({"graph": base64.b64encode(gd).decode(), "losses": losses,
                          "types": types}))
    """)
    assert {"TanhGrad", "SigmoidGrad", "RsqrtGrad"} <= set(theirs["types"])
    import base64
    gd = tf.GraphDef()
    gd.ParseFromString(base64.b64decode(theirs["graph"]))
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf.import_graph_def(gd, name="")
        sess.run(g.get_operation_by_name("init"))
        losses = [float(sess.run(["loss:0", "step"])[0]) for _ in range(3)]
    np.testing.assert_allclose(losses, theirs["losses"], rtol=1e-6)
