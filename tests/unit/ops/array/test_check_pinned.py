"""tf.check_pinned: TF 2.21's graph, and on a CPU its run-time "not pinned" failure."""

import pytest

import scopeflow as tf

_PROGRAM = """
out = {}
with tf.Graph().as_default():
    x = tf.placeholder(tf.int32, [None, 3])
    y = tf.check_pinned(x, name="cp")
    out["graph"] = [y.name, y.op.type, y.shape.as_list(), y.dtype.name, y.op.inputs[0].name]
    z = tf.check_pinned(tf.constant([1.0, 2.0]))
    try:
        tf.Session().run(z)
    except tf.errors.InvalidArgumentError as e:
        out["error"] = e.message.splitlines()[-2 if "[[" in e.message else -1]
    try:
        tf.gradients(tf.reduce_sum(z), z.op.inputs[0])
    except LookupError as e:
        out["grad"] = type(e).__name__
"""


def _ours():
    scope = {"tf": tf}
    exec(_PROGRAM, scope)
    return scope["out"]


def test_check_pinned_fails_on_a_cpu():
    out = _ours()
    assert out["graph"] == ["cp:0", "CheckPinned", [None, 3], "int32", "Placeholder:0"]
    assert "not pinned" in out["error"] and out["grad"] == "LookupError"


@pytest.mark.parametrize("key", ["graph", "grad"])
def test_check_pinned_matches_tf(tf1, key):
    theirs = tf1("tf.disable_v2_behavior()\n" + _PROGRAM + "\nprint(json.dumps(out))\n")
    assert _ours()[key] == theirs[key]
    assert "not pinned" in theirs["error"]
