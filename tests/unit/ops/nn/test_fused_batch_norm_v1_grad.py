"""TF 1.x's FusedBatchNorm and FusedBatchNormV2 differentiate to FusedBatchNormGrad and
FusedBatchNormGradV2, as TF's rules emit them (TF 1.x training graphs hold these): the
V3 gradient's values, and a TF training graph through them imports and gives TF's
gradients."""

from __future__ import annotations

import base64

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.nn import nn_norm_ops

X = np.random.default_rng(0).standard_normal((2, 4, 4, 3)).astype(np.float32)


def _grads(op_def):
    with tf.Graph().as_default(), tf.Session() as sess:
        x, scale, offset = tf.constant(X), tf.constant([1.0, 2.0, 0.5]), tf.constant([0.1] * 3)
        y = op_def.bind(x, scale, offset, tf.zeros([0]), tf.zeros([0]), epsilon=1e-3)[0]
        loss = tf.reduce_sum(y * y * tf.range(1.0, 4.0))
        grads = tf.gradients(loss, [x, scale, offset])
        types = {g.op.type for g in grads}
        return sess.run(grads), types


@pytest.mark.parametrize("op_def,grad_type", [
    (nn_norm_ops.fused_bn_v1_op, "FusedBatchNormGrad"),
    (nn_norm_ops.fused_bn_v2_op, "FusedBatchNormGradV2")])
def test_tf1_batch_norms_differentiate_to_their_own_grad_ops(op_def, grad_type):
    got, types = _grads(op_def)
    want, _ = _grads(nn_norm_ops.fused_bn_op)
    assert types == {grad_type}
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes()


def test_a_tf_training_graph_through_them_gives_tfs_gradients(tf1):
    theirs = tf1("""
        import base64
        x = tf.constant(np.random.default_rng(0).standard_normal((2, 4, 4, 3))
                        .astype(np.float32), name="x")
        scale, offset = tf.constant([1.0, 2.0, 0.5]), tf.constant([0.1] * 3)
        grads = []
        for i, op in enumerate((tf.raw_ops.FusedBatchNorm, tf.raw_ops.FusedBatchNormV2)):
            y = op(x=x, scale=scale, offset=offset, mean=tf.zeros([0]),
                   variance=tf.zeros([0]), epsilon=1e-3)[0]
            loss = tf.reduce_sum(y * y * tf.range(1.0, 4.0))
            grads += [tf.identity(g, name=f"g{i}_{j}")
                      for j, g in enumerate(tf.gradients(loss, [x, scale, offset]))]
        gd = tf.get_default_graph().as_graph_def()
        values = tf.Session().run(grads)
        print(json.dumps({"graph": base64.b64encode(gd.SerializeToString()).decode(),
                          "types": sorted({n.op for n in gd.node}),
                          "values": [v.tolist() for v in values]}))
    """)
    assert {"FusedBatchNormGrad", "FusedBatchNormGradV2"} <= set(theirs["types"])
    gd = tf.GraphDef()
    gd.ParseFromString(base64.b64decode(theirs["graph"]))
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.import_graph_def(gd, name="")
        got = sess.run([f"g{i}_{j}:0" for i in range(2) for j in range(3)])
    for g, w in zip(got, theirs["values"]):
        np.testing.assert_allclose(g, np.array(w, np.float32), rtol=1e-5, atol=1e-5)
