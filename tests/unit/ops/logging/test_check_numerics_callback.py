"""tf.debugging.enable_check_numerics / disable_check_numerics in TF1 graph mode: the
CheckNumericsV2 ops added to the graph, the tensors builders return, and the run-time
errors, compared with TensorFlow."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.logging.check_numerics_callback import check_numerics_v2

SCENARIO = textwrap.dedent('''
    out = {}
    def graph_ops(start=0):
        return [o.name + ":" + o.type + ":" + ",".join(i.name for i in o.inputs) + "^" +
                ",".join(c.name for c in o.control_inputs)
                for o in tf.get_default_graph().get_operations()[start:]]
    before = tf.constant([1.0, -1.0])
    tf.debugging.enable_check_numerics()
    tf.debugging.enable_check_numerics()
    p = tf.placeholder(tf.float32, [2])
    a = tf.constant([1.0, 0.0])
    z = tf.div(a, p)
    q = tf.log(p)
    r = tf.reshape(q, [2, 1])
    n = tf.cast(p, tf.int32) + 1
    old = tf.sqrt(before)
    out["graph"] = graph_ops()
    out["returned"] = [z.name, q.name, r.name, n.name, old.name]
    def summary(e):
        lines = str(e).splitlines()
        start = next(i for i, ln in enumerate(lines) if ln.startswith("!!!"))
        end = next(i for i, ln in enumerate(lines) if "Stack trace" in ln)
        return [ln for ln in lines[start:end] if ln.strip()] + [
            next(ln for ln in lines if "Tensor had" in ln).strip()]
    with tf.Session() as sess:
        for fetch, value in [(z, [1.0, 0.0]), (q, [-1.0, 0.0]), (z, [1.0, 2.0]),
                             (z, [-0.0, 1.0]), (old, [1.0, 1.0])]:
            try:
                out.setdefault("runs", []).append(np.asarray(
                    sess.run(fetch, {p: value})).tolist())
            except tf.errors.InvalidArgumentError as e:
                out.setdefault("runs", []).append(summary(e))
    tf.debugging.disable_check_numerics()
    n0 = len(tf.get_default_graph().get_operations())
    tf.log(p)
    out["after_disable"] = graph_ops(n0)
''')


def _run_here():
    scope = {"tf": tf, "np": np, "json": json}
    try:
        exec(SCENARIO, scope)
    finally:
        tf.debugging.disable_check_numerics()
    return json.loads(json.dumps(scope["out"]))


def test_check_numerics_here():
    out = _run_here()
    assert "div/CheckNumericsV2:CheckNumericsV2:div:0^" in out["graph"]
    assert out["returned"][0] == "div/CheckNumericsV2:0"
    assert out["runs"][1][-1] == ": Tensor had -Inf and NaN values"
    assert out["after_disable"] == ["Log_1:Log:Placeholder:0^"]


def test_check_numerics_v2_kernel_names_each_kind():
    x = tf.placeholder(tf.float32, [3])
    y = check_numerics_v2(x, "msg")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0, 2.0, 3.0]}), [1.0, 2.0, 3.0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"msg : Tensor had -Inf and \+Inf and NaN values"):
            sess.run(y, {x: [-np.inf, np.inf, np.nan]})


def test_matches_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + SCENARIO + "\nprint(json.dumps(out))\n")
    assert _run_here() == theirs
