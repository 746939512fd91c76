"""Live comparisons against real TensorFlow (TF1 semantics) through the ``tf1`` fixture.

Each test runs the same snippet under TensorFlow and under scopeflow and compares the
JSON they produce. Skipped when the oracle is not available (CI provides it).
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow

pytestmark = pytest.mark.tf


def _ours(code: str):
    """Runs ``code`` (which must set ``result``) with scopeflow as ``tf``."""
    scopeflow.reset_default_graph()
    env = {"tf": scopeflow, "np": np, "json": json}
    exec(textwrap.dedent(code), env)  # noqa: S102 - our own test snippets
    return json.loads(json.dumps(env["result"]))


def _theirs(tf1, code: str):
    return tf1("tf.disable_v2_behavior()\n" + textwrap.dedent(code) +
               "\nprint(json.dumps(result))\n")


SNIPPETS = {
    "names_and_scopes": """
        out = [tf.constant(1.0, name=n).name for n in ("c", "c", "c_1", "c", "C")]
        with tf.name_scope("a") as s1:
            with tf.name_scope("b") as s2:
                x = tf.identity(tf.constant(1.0), name="x")
            with tf.name_scope("a/b/") as s3:
                y = tf.constant(2.0, name="x")
        with tf.name_scope("a") as s4:
            pass
        t = tf.tuple([x, y])
        g = tf.group(x, y)
        result = out + [s1, s2, s3, s4, x.name, y.name, g.name] + [u.name for u in t]
    """,
    "variables": """
        with tf.name_scope("layer"):
            w = tf.Variable(np.ones((2, 3), np.float32), name="w")
            b = tf.Variable(lambda: tf.constant(0.5), name="b")
            step = tf.Variable(0, name="step", trainable=False)
        up = tf.assign_add(step, 1)
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            sess.run(up)
            vals = sess.run([w, b, step])
        result = [[v.name for v in tf.global_variables()],
                  [v.name for v in tf.trainable_variables()],
                  w.initializer.name, b.initial_value.name, w.dtype.name, up.name, init.name,
                  [o.name for o in init.control_inputs],
                  [np.asarray(v).tolist() for v in vals]]
    """,
    "lookup_and_feed_messages": """
        def _err(fn):
            try:
                fn()
            except Exception as e:
                return [type(e).__name__, str(e)]
        g = tf.get_default_graph()
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.identity(x, name="y")
        sess = tf.Session()
        result = [
            _err(lambda: g.get_tensor_by_name("nope:0")),
            _err(lambda: g.get_operation_by_name("nope")),
            _err(lambda: g.get_tensor_by_name("y")),
            _err(lambda: sess.run(y, {x: np.zeros((2, 4))})),
            _err(lambda: sess.run("nope:0")),
            _err(lambda: tf.constant(1.5, dtype=tf.int32)),
            _err(lambda: tf.as_dtype("nope")),
            sess.run(y, {"x:0": [[1, 2, 3]]}).tolist(),
        ]
    """,
    "dtypes_and_shapes": """
        x = tf.placeholder(tf.float32, [None, 5])
        c = tf.constant(0.0, shape=[x.shape[1], 2])
        s = tf.TensorShape([None, 3])
        result = [repr(x.shape[1]), str(x.shape), c.shape.as_list(), str(s.merge_with([4, None])),
                  tf.as_dtype("float").name, tf.constant(np.float64(1)).dtype.name,
                  tf.constant(2 ** 40).dtype.name, tf.constant([1, 2], shape=[2, 2]).dtype.name,
                  tf.Variable(1.0).dtype.name]
    """,
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_matches_tensorflow(tf1, name):
    code = SNIPPETS[name]
    assert _ours(code) == _theirs(tf1, code)


def test_uninitialized_variable_error(tf1):
    code = """
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.Session() as s:
            try:
                s.run(v.value())
            except tf.errors.FailedPreconditionError as e:
                result = [type(e).__name__, e.op.name, e.error_code,
                          "Attempting to use uninitialized value v" in e.message]
    """
    assert _ours(code) == _theirs(tf1, code)
