"""tf.orthogonal_initializer and tf.uniform_unit_scaling_initializer: TF's graph (node for
node) and TF's values from TF's random stream."""

import textwrap

import numpy as np

import scopeflow as tf

PROGRAM = textwrap.dedent('''
    tf.set_random_seed(3)
    a = tf.get_variable("a", [4, 6], initializer=tf.orthogonal_initializer(gain=2.0))
    b = tf.get_variable("b", [3, 3, 2, 5], initializer=tf.initializers.orthogonal(seed=7))
    c = tf.get_variable("c", [5, 7], initializer=tf.uniform_unit_scaling_initializer(factor=1.5))
    d = tf.get_variable("d", [6, 3], initializer=tf.orthogonal_initializer(), dtype=tf.float64)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vals = s.run([a, b, c, d])
    names = sorted(n.name for n in tf.get_default_graph().as_graph_def().node
                   if n.name.startswith("a/"))
    print(json.dumps({"vals": [v.tolist() for v in vals], "names": names}))
''')


def test_orthogonal_is_orthogonal_and_scaled():
    with tf.Graph().as_default():
        w = tf.get_variable("w", [3, 2, 8], initializer=tf.orthogonal_initializer(gain=3.0))
        u = tf.get_variable("u", [10, 4], initializer=tf.uniform_unit_scaling_initializer())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            wv, uv = s.run([w, u])
    flat = wv.reshape(6, 8) / 3.0
    np.testing.assert_allclose(flat @ flat.T, np.eye(6), atol=1e-5)   # rows orthonormal
    assert np.abs(uv).max() <= np.sqrt(3 / 10) + 1e-7


def test_matches_tf(tf1, scopeflow_run):
    want, got = tf1(PROGRAM), scopeflow_run(PROGRAM)
    assert got["names"] == want["names"]
    for w, g in zip(want["vals"], got["vals"]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
