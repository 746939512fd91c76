"""TF 1.x's BatchMatMul (before BatchMatMulV2's broadcasting), in the GraphDefs TF 1.x
wrote: equal ranks and batch dimensions, TF's messages where it refuses, TF's values and
gradients, and a graph TF wrote imports."""

from __future__ import annotations

import base64

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.math.matmul_ops import batch_matmul_v1_op


def test_values_and_gradients_are_batch_matmul_v2s():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    with tf.Graph().as_default(), tf.Session() as sess:
        x, y = tf.constant(a), tf.constant(b)
        v1 = batch_matmul_v1_op.bind(x, y, adj_y=True)
        v2 = tf.matmul(x, y, adjoint_b=True)
        got = sess.run([v1, v2] + tf.gradients(v1, [x, y]) + tf.gradients(v2, [x, y]))
    assert got[0].tobytes() == got[1].tobytes()
    assert got[2].tobytes() == got[4].tobytes() and got[3].tobytes() == got[5].tobytes()


def test_tfs_messages_for_ranks_and_batch_dims():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="Shapes must be equal rank, but are 1 and 0"):
            batch_matmul_v1_op.bind(tf.zeros([2, 3, 4]), tf.zeros([4, 5]))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but "
                                             "are 2 and 3. Shapes are"):
            batch_matmul_v1_op.bind(tf.zeros([2, 3, 4]), tf.zeros([3, 4, 5]))
        x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        z = batch_matmul_v1_op.bind(x, y)
        for shapes, message in [(((2, 3, 4), (4, 5)), r"different ndims: \[2,3,4\] vs. \[4,5\]"),
                                (((2, 3, 4), (3, 4, 5)), r"In\[0\].dim\(0\) and In\[1\].dim"
                                                         r"\(0\) must be the same")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(z, {x: np.ones(shapes[0]), y: np.ones(shapes[1])})


def test_a_graph_tf_wrote_imports(tf1):
    theirs = tf1("""
        import base64
        a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
        z = tf.raw_ops.BatchMatMul(x=tf.constant(a, name="a"),
                                   y=tf.constant(a[:, :, ::-1].copy(), name="b"), adj_y=True,
                                   name="z")
        gd = tf.get_default_graph().as_graph_def()
        print(json.dumps({"graph": base64.b64encode(gd.SerializeToString()).decode(),
                          "z": tf.Session().run(z).tolist()}))
    """)
    gd = tf.GraphDef()
    gd.ParseFromString(base64.b64decode(theirs["graph"]))
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.import_graph_def(gd, name="")
        np.testing.assert_allclose(sess.run("z:0"), np.array(theirs["z"], np.float32),
                                   rtol=1e-6)
