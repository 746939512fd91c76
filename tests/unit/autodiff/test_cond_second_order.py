"""Second and third derivatives through ``tf.cond`` (the gradient of a cond's gradient),
and TF's refusals and ``None``s around integer and while-loop gradients: one program run
under scopeflow and under TF 2.21."""

import textwrap

import numpy as np

PROGRAM = textwrap.dedent('''
    out = {}

    def run(key, build, feeds):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [3], name="x")
            y = tf.placeholder(tf.float32, [3], name="y")
            p = tf.placeholder(tf.bool, [], name="p")
            ts = build(x, y, p)
            with tf.Session() as s:
                res = []
                for pv in (True, False):
                    vals = s.run(ts, {x: feeds[0], y: feeds[1], p: pv})
                    res.append([np.asarray(v).round(4).tolist() for v in vals])
                out[key] = res

    xv, yv = [0.5, -1.0, 2.0], [1.5, 0.25, -0.75]

    def cube(x, y, p):
        r = tf.cond(p, lambda: tf.reduce_sum(x * x * x), lambda: tf.reduce_sum(3.0 * x))
        g = tf.gradients(r, x)[0]
        return [g, tf.gradients(g, x)[0]]
    run("cube", cube, (xv, yv))

    def mixed(x, y, p):
        r = tf.cond(p, lambda: tf.reduce_sum(tf.sin(x) * y * y),
                    lambda: tf.reduce_sum(tf.exp(x) * y))
        gx = tf.gradients(r, x)[0]
        return [gx, tf.gradients(gx, y)[0], tf.gradients(tf.reduce_sum(gx * gx), x)[0]]
    run("mixed", mixed, (xv, yv))

    def hessian(x, y, p):
        r = tf.cond(p, lambda: tf.reduce_sum(tf.tanh(x) * tf.reduce_sum(x * y)),
                    lambda: tf.reduce_sum(x * x * y))
        return [tf.hessians(r, x)[0]]
    run("hessian", hessian, (xv, yv))

    def third(x, y, p):
        r = tf.cond(p, lambda: tf.reduce_sum(x ** 4), lambda: tf.reduce_sum(x * y))
        g1 = tf.gradients(r, x)[0]
        g2 = tf.gradients(g1, x)[0]
        return [g2, tf.gradients(g2, x)[0]]
    run("third", third, (xv, yv))

    def tuple_out(x, y, p):
        a, b = tf.cond(p, lambda: (x * y, tf.square(x)), lambda: (x + y, x * 2.0))
        g = tf.gradients(tf.reduce_sum(a * b), [x, y])
        return [g[0], tf.gradients(tf.reduce_sum(g[0] * g[1]), [x])[0]]
    run("tuple_out", tuple_out, (xv, yv))

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        p = tf.placeholder(tf.bool, [])
        r = tf.cond(p, lambda: (x * x, tf.constant(1)), lambda: (x * 3.0, tf.constant(2)))
        out["int_output"] = str(tf.gradients(r[1], x))
        out["int_y"] = str(tf.gradients(tf.cast(x, tf.int32) * 2, x))
        try:
            tf.gradients(tf.complex(x, x), x)
        except TypeError as e:
            out["complex_y"] = str(e)
        w = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x),
                          [tf.constant(0), tf.constant(1.0)])
        g1 = tf.gradients(w[1], x)[0]
        try:
            tf.gradients(g1, x)
        except TypeError as e:
            out["while_second"] = str(e)
    print(json.dumps(out))
''')


def test_second_derivatives_without_tf(scopeflow_run):
    got = scopeflow_run(PROGRAM)
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(got["cube"][0][1], 6 * x, rtol=1e-5)   # d2/dx2 sum(x^3)
    np.testing.assert_allclose(got["cube"][1][1], 0 * x)              # linear branch
    np.testing.assert_allclose(got["third"][0][1], 24 * x, rtol=1e-5)  # d3/dx3 sum(x^4)
    assert got["int_output"] == "[None]" and got["int_y"] == "[None]"
    assert got["while_second"] == "Second-order gradient for while loops not supported."


def test_second_derivatives_match_tf(tf1, scopeflow_run):
    want = tf1("tf.disable_v2_behavior()\n" + PROGRAM)
    got = scopeflow_run(PROGRAM)
    assert got.keys() == want.keys()
    for key in ("cube", "mixed", "hessian", "third", "tuple_out"):
        np.testing.assert_allclose(np.array(got[key], dtype=object).tolist(), want[key],
                                   rtol=1e-4, atol=1e-4, err_msg=key)
    for key in ("int_output", "int_y", "while_second"):
        assert got[key] == want[key], key
    assert got["complex_y"].startswith("Gradients of complex tensors (")
    assert want["complex_y"].startswith("Gradients of complex tensors (")
