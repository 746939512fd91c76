"""``tf.tensordot`` of operands whose rank is unknown while building (TF measures axes and
free dimensions at run time): values and static shapes as TF 2.21, and gradients."""

import textwrap

import numpy as np

import scopeflow as tf

PROGRAM = textwrap.dedent('''
out = {}
x = tf.placeholder(tf.float32)
z = tf.placeholder(tf.float32, [None, 5, 6])
w = tf.constant(np.linspace(-1, 1, 60, dtype=np.float32).reshape(6, 10))
u = tf.placeholder(tf.float32)
xv = np.linspace(0, 1, 2 * 3 * 6, dtype=np.float32).reshape(2, 3, 6)
cases = {"int1": (lambda: tf.tensordot(x, w, 1), {x: xv}),
         "list": (lambda: tf.tensordot(x, w, [[2], [0]]), {x: xv}),
         "neg": (lambda: tf.tensordot(x, w, [[-1], [0]]), {x: xv}),
         "both_unknown": (lambda: tf.tensordot(x, u, [[2], [0]]), {x: xv, u: np.ones([6, 4], np.float32)}),
         "b_unknown": (lambda: tf.tensordot(z, u, 1), {z: np.ones([2, 5, 6], np.float32), u: np.ones([6, 4], np.float32)}),
         "zero": (lambda: tf.tensordot(x, w, 0), {x: np.ones([2], np.float32)}),
         "two": (lambda: tf.tensordot(x, tf.ones([3, 6, 2]), 2), {x: xv})}
with tf.Session() as s:
    for k, (f, feed) in cases.items():
        try:
            t = f()
            r = s.run(t, feed)
            out[k] = [str(t.shape), list(r.shape), float(np.round(r.sum(), 3))]
        except Exception as e:
            out[k] = type(e).__name__ + ": " + str(e).split("\\n")[0][:150]
print(json.dumps(out))
''')


def test_unknown_rank_tensordot_matches_tf(tf1, scopeflow_run):
    assert scopeflow_run(PROGRAM) == tf1("tf.disable_v2_behavior()\n" + PROGRAM)


def test_unknown_rank_tensordot_values_and_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64)
        w = tf.constant(np.arange(12.0).reshape(3, 4))
        y = tf.tensordot(x, w, [[-1], [0]])
        (g,) = tf.gradients(tf.reduce_sum(y * y), x)
        xv = np.linspace(-1, 1, 6).reshape(2, 3)
        with tf.Session() as s:
            yv, gv = s.run([y, g], {x: xv})
    np.testing.assert_allclose(yv, xv @ np.arange(12.0).reshape(3, 4))
    np.testing.assert_allclose(gv, 2 * yv @ np.arange(12.0).reshape(3, 4).T)
