"""tf.approx_top_k (TF's raw ApproxTopK) against TF 2.21."""

from __future__ import annotations

import scopeflow as tf

from ..misc2_harness import assert_same, run_both

CASES = '''
x = np.array([[1., 5., 3., 2.], [4., -1., 4., 0.]], np.float32)
def run(**kw):
    r = tf.approx_top_k(x, 2, **kw)
    return {"fields": list(type(r)._fields), "names": [t.name for t in r],
            "shapes": [sh(t) for t in r], "v": list(tf.Session().run(r))}
rec("max", lambda: run())
rec("named", lambda: run(name="foo", recall_target=0.9))
rec("min", lambda: run(is_max_k=False))
rec("int", lambda: tf.approx_top_k([[1, 2]], 1))
def grad():
    v = tf.constant(x)
    return tf.Session().run(tf.gradients(tf.approx_top_k(v, 2).values * 2., v))
rec("grad", grad)
'''


def test_approx_top_k_matches_tf(tf1):
    ours, theirs = run_both(tf1, CASES)
    for rec in (ours, theirs):    # TF lists the kernel's attrs in its own order
        rec["min"]["msg"] = rec["min"]["msg"].split(" with these attrs")[0].split(" used by")[0]
    assert_same(ours, theirs)


def test_approx_top_k_without_tf():
    with tf.Graph().as_default():
        r = tf.approx_top_k([[3., 1., 2.]], 2)
        assert tf.Session().run(r.indices).tolist() == [[0, 2]]
