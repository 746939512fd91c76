"""tf.debugging.assert_shapes and tf.errors.raise_exception_on_not_ok_status: one scenario
run under scopeflow and under TensorFlow (TF1 graph mode), errors and graphs compared."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf

SCENARIO = textwrap.dedent('''
    out = {}
    def err(f):
        try:
            r = f()
            return ["ok", r.type, sorted(i.name.split("/", 1)[1] for i in r.control_inputs)]
        except Exception as e:
            return [type(e).__name__, str(e).split("\\n")[0]]
    x = tf.zeros([2, 3]); y = tf.zeros([3]); s = tf.zeros([])
    out["ok"] = err(lambda: tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("Q",)), (s, [])]))
    out["bad"] = err(lambda: tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N",))]))
    out["rank"] = err(lambda: tf.debugging.assert_shapes([(x, ("N",))]))
    out["rank3"] = err(lambda: tf.debugging.assert_shapes([(x, ("N", 2, 3))]))
    out["int"] = err(lambda: tf.debugging.assert_shapes([(x, (2, 4))]))
    out["dots"] = err(lambda: tf.debugging.assert_shapes([(x, (..., 3)), (y, (3,))]))
    out["star"] = err(lambda: tf.debugging.assert_shapes([(x, ("*", 4))]))
    out["dots_late"] = err(lambda: tf.debugging.assert_shapes([(x, (2, ...))]))
    out["scalar1"] = err(lambda: tf.debugging.assert_shapes([(s, (1,))]))
    out["any"] = err(lambda: tf.debugging.assert_shapes([(x, (None, "."))]))
    out["msg"] = err(lambda: tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N",))],
                                                        message="hey"))
    out["dict"] = err(lambda: tf.debugging.assert_shapes({x: ("N", "Q"), y: ("Q",)}))
    out["notiter"] = err(lambda: tf.debugging.assert_shapes([(x, 3)]))
    p = tf.placeholder(tf.float32, [None, 3]); q = tf.placeholder(tf.float32, [None])
    a = tf.debugging.assert_shapes([(p, ("N", 3)), (q, ("N",))])
    r = tf.placeholder(tf.float32)
    b = tf.debugging.assert_shapes([(r, ("N", 3)), (q, ("N",))])
    runs = []
    with tf.Session() as sess:
        for op, feed in [(a, {p: np.zeros([2, 3]), q: np.zeros([3])}),
                         (a, {p: np.zeros([2, 3]), q: np.zeros([2])}),
                         (b, {r: np.zeros([4, 3]), q: np.zeros([4])}),
                         (b, {r: np.zeros([4, 2]), q: np.zeros([4])}),
                         (b, {r: np.zeros([4]), q: np.zeros([4])})]:
            try:
                sess.run(op, feed)
                runs.append("ok")
            except tf.errors.InvalidArgumentError as e:
                runs.append("fail")
    out["runs"] = runs
    try:
        with tf.errors.raise_exception_on_not_ok_status() as st:
            pass
        out["status_ok"] = "ok"
    except Exception as e:
        out["status_ok"] = type(e).__name__
    try:
        tf.errors.raise_exception_on_not_ok_status().__exit__(None, None, None)
    except AttributeError as e:
        out["status_exit"] = str(e)
''')


def _run_here():
    scope = {"tf": tf, "np": np, "json": json}
    exec(SCENARIO, scope)
    return json.loads(json.dumps(scope["out"]))


def test_assert_shapes_here():
    out = _run_here()
    assert out["bad"] == ["ValueError", "Specified by tensor zeros:0 dimension 0.  Tensor "
                          "zeros_1:0 dimension 0 must have size 2.  Received size 3, shape (3,)"]
    assert out["runs"] == ["fail", "ok", "ok", "fail", "fail"]
    assert out["ok"][:2] == ["ok", "NoOp"]


def test_status_raises_the_code_class():
    with pytest.raises(tf.errors.NotFoundError, match="gone"):
        with tf.errors.raise_exception_on_not_ok_status() as status:
            status.code, status.message = tf.errors.NOT_FOUND, "gone"


def test_matches_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n")
    assert _run_here() == theirs
