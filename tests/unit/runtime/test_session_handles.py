"""tf.get_session_handle, tf.get_session_tensor, tf.delete_session_tensor and the
TensorHandle Session.run returns: one scenario under scopeflow and under TensorFlow."""

from __future__ import annotations

import json
import textwrap

import numpy as np

import scopeflow as tf

SCENARIO = textwrap.dedent('''
    out = {}
    def err(f):
        try:
            return ["ok", np.asarray(f()).tolist()]
        except Exception as e:
            return [type(e).__name__, [ln for ln in str(e).splitlines()
                                       if "store" in ln or "deleted" in ln or "must" in ln]]
    a = tf.constant(10.0); b = tf.constant(5.0)
    c = tf.multiply(a, b)
    h = tf.get_session_handle(c)
    out["h"] = [h.name, h.op.type, h.dtype.name, h.shape.as_list(), h.op.get_attr("T").name]
    out["named"] = tf.get_session_handle(tf.constant(1.0), name="nm").name
    out["nontensor"] = err(lambda: tf.get_session_handle(3.0))
    with tf.Session() as sess:
        hv = sess.run(h)
        out["hv"] = [type(hv).__name__, hv.handle, str(hv), float(hv.eval())]
        p, x = tf.get_session_tensor(hv.handle, tf.float32)
        out["pair"] = [p.op.type, p.dtype.name, x.op.type, x.name, x.dtype.name, x.shape.ndims,
                       p.device]
        y = tf.multiply(x, 10.0)
        out["fed"] = float(sess.run(y, feed_dict={p: hv.handle}))
        hv2 = sess.run(tf.get_session_handle(tf.constant([1, 2])))
        out["hv2"] = [hv2.handle, hv2.eval().tolist(), str(hv2.eval().dtype)]
        dp, d = tf.delete_session_tensor(hv.handle)
        out["del"] = [dp.op.type, d.type, d.name]
        sess.run(d, feed_dict={dp: hv.handle})
        out["after_del"] = err(lambda: sess.run(y, feed_dict={p: hv.handle}))
        out["del_again"] = err(lambda: sess.run(d, feed_dict={dp: hv.handle}))
        hv3 = sess.run(h)
        hv3.delete()
        out["eval_deleted"] = err(lambda: hv3.eval())
        out["delete_twice"] = err(lambda: hv3.delete())
        pair = sess.run([h, h])
        out["same"] = [pair[0] is pair[1], pair[0].handle, sess.run({"k": h})["k"].handle]
        p2, x2 = tf.get_session_tensor(pair[0].handle, tf.int32)
        out["wrong_dtype"] = err(lambda: sess.run(x2, feed_dict={p2: pair[0].handle}))[0]
        kept = pair[0].handle
    with tf.Session() as other:
        out["other_session"] = err(lambda: other.run(x, feed_dict={p: kept}))
''')


def _run_here():
    scope = {"tf": tf, "np": np, "json": json}
    exec(SCENARIO, scope)
    return json.loads(json.dumps(scope["out"]))


def test_handles_here():
    out = _run_here()
    assert out["fed"] == 500.0 and out["hv"][3] == 50.0
    assert out["hv2"][1] == [1, 2]
    assert out["after_del"][0] == "InvalidArgumentError"
    assert out["same"][0] is True


def test_handles_match_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n")
    assert _run_here() == theirs
