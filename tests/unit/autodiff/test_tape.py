"""tf.GradientTape (TF1 graph mode), tf.recompute_grad and tf.grad_pass_through: one
scenario run under scopeflow and under TensorFlow, values, shapes and errors compared."""

from __future__ import annotations

import json
import textwrap

import numpy as np

import scopeflow as tf

SCENARIO = textwrap.dedent('''
    out = {}
    def err(f):
        try:
            f()
            return "ok"
        except Exception as e:
            return [type(e).__name__, str(e)[:60]]
    x = tf.constant([1.0, 2.0, 3.0])
    m = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    fetch = {}
    with tf.GradientTape() as t1:
        t1.watch(x)
        y = x * x * 3.0
        mid = tf.sin(y)
    fetch["basic"] = t1.gradient(mid, x)
    out["second"] = err(lambda: t1.gradient(mid, x))
    out["watched"] = list(t1.watched_variables())
    with tf.GradientTape(persistent=True) as t2:
        t2.watch([x, m])
        z = tf.reduce_sum(x * x)
        w = x * 2.0 + tf.reduce_sum(x)
        q = tf.matmul(tf.expand_dims(x, 0), m)
        r = tf.tanh(m) * tf.reshape(x, [3, 1])
    fetch["z_xm"] = t2.gradient(z, [x, m], unconnected_gradients="zero")
    out["none"] = [g is None for g in t2.gradient(z, [x, m])]
    fetch["outg"] = t2.gradient(w, x, output_gradients=tf.constant([1.0, 2.0, 3.0]))
    fetch["dict"] = t2.gradient({"a": q, "b": z}, {"p": x, "q": m})
    fetch["mid"] = t2.gradient(z, z)
    fetch["jac_w"] = t2.jacobian(w, x)
    fetch["jac_q"] = t2.jacobian(q, [x, m])
    fetch["bjac"] = t2.batch_jacobian(r, m)
    out["jac_shapes"] = [fetch["jac_w"].shape.as_list(), fetch["jac_q"][0].shape.as_list(),
                         fetch["jac_q"][1].shape.as_list(), fetch["bjac"].shape.as_list()]
    with tf.GradientTape() as t4:
        t4.watch(x)
        with t4.stop_recording():
            a = x * 3.0
        b = x * 2.0 + a
    fetch["stop"] = t4.gradient(b, x)
    with tf.GradientTape() as t6:
        t6.watch(x)
        a6 = x * 3.0
        t6.reset()
        t6.watch(x)
        b6 = x * 2.0 + a6
    fetch["reset"] = t6.gradient(b6, x)
    with tf.GradientTape() as t7:
        a7 = x * 3.0
    out["unwatched"] = t7.gradient(a7, x) is None
    out["outside"] = err(lambda: tf.GradientTape().gradient(x, x))
    with tf.GradientTape() as t9:
        t9.watch(x)
        a9 = x * 3.0
        fetch["inside"] = t9.gradient(a9, x)
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as t10:
        y10 = v * 2.0
    out["var"] = err(lambda: t10.gradient(y10, v))[0]
    with tf.GradientTape() as t11:
        out["stop_rec_err"] = "entered"
    out["stop_rec_err"] = err(lambda: t11.stop_recording().__enter__())
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            cube = x * x * x
        first = inner.gradient(cube, x)
    fetch["second_order"] = [first, outer.gradient(first, x)]
    def f(a, b):
        return tf.sin(a) * b + a * a
    rf = tf.recompute_grad(f)
    yr = rf(x, 2.0 * x)
    fetch["recompute"] = [yr, tf.gradients(yr, x), tf.gradients(f(x, 2.0 * x), x)]
    out["recompute_kw"] = err(lambda: tf.recompute_grad(f)(x, b=x))
    gp = tf.grad_pass_through(lambda t: tf.round(t * 1.3))
    zp = gp(x)
    fetch["pass"] = [zp, tf.gradients(zp * zp, x)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run(fetch)
    out["values"] = json.loads(json.dumps(vals, default=lambda a: np.asarray(a).tolist()))
''')


def _run_here():
    scope = {"tf": tf, "np": np, "json": json}
    exec(SCENARIO, scope)
    return json.loads(json.dumps(scope["out"]))


def test_tape_values_without_tf():
    out = _run_here()
    vals = out["values"]
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(vals["basic"], np.cos(3 * x * x) * 6 * x, rtol=1e-5)
    np.testing.assert_allclose(vals["stop"], [2.0] * 3)
    np.testing.assert_allclose(vals["reset"], [2.0] * 3)
    np.testing.assert_allclose(vals["jac_w"], 2 * np.eye(3) + 1, rtol=1e-6)
    np.testing.assert_allclose(vals["pass"][1][0], 2 * np.round(1.3 * x), rtol=1e-6)
    np.testing.assert_allclose(vals["recompute"][1][0], vals["recompute"][2][0], rtol=1e-5)
    assert out["second"][0] == "RuntimeError" and out["unwatched"] is True
    assert out["none"] == [False, True]
    assert out["jac_shapes"] == [[3, 3], [1, 2, 3], [1, 2, 3, 2], [3, 2, 2]]


def test_tape_matches_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n")
    ours = _run_here()
    tv, ov = theirs.pop("values"), ours.pop("values")
    assert ours == theirs
    assert set(ov) == set(tv)
    for key in tv:
        np.testing.assert_allclose(np.asarray(ov[key], dtype=object).tolist() and
                                   np.hstack([np.ravel(a) for a in _leaves(ov[key])]),
                                   np.hstack([np.ravel(a) for a in _leaves(tv[key])]),
                                   rtol=1e-5, atol=1e-6, err_msg=key)


def _leaves(v):
    if isinstance(v, dict):
        return [leaf for k in sorted(v) for leaf in _leaves(v[k])]
    if isinstance(v, list) and v and isinstance(v[0], (list, dict)):
        return [leaf for item in v for leaf in _leaves(item)]
    return [np.asarray(v, dtype=float)]
