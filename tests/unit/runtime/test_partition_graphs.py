"""``RunOptions(output_partition_graphs=True)`` fills ``RunMetadata.partition_graphs`` as
TF does: one CPU partition of the ops the fetches need, feeds entering through ``_Arg``
nodes and fetches leaving through ``_Retval`` nodes (compared live with TF)."""

from __future__ import annotations

import json

import scopeflow as tf

PROGRAM = '''
def program(tf):
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        x = tf.placeholder(tf.float32, name="x")
        b = tf.add(a, x, name="b")
        tf.constant(5, name="unused")
        c = tf.multiply(b, 2.0, name="c")
        with tf.Session() as sess:
            md = tf.RunMetadata()
            sess.run([c, b], {x: 2.0}, options=tf.RunOptions(output_partition_graphs=True),
                     run_metadata=md)
            plain = tf.RunMetadata()
            sess.run(b, {x: 2.0}, run_metadata=plain)
    nodes = sorted([n.name, n.op, n.device, sorted(n.input)]
                   for g in md.partition_graphs for n in g.node)
    return {"partitions": len(md.partition_graphs), "nodes": nodes,
            "without_option": len(plain.partition_graphs)}
'''


def _ours():
    scope = {}
    exec(PROGRAM, scope)
    return scope["program"](tf)


def test_one_cpu_partition_with_args_and_retvals():
    out = _ours()
    assert out["partitions"] == 1 and out["without_option"] == 0
    names = {name: (op, inputs) for name, op, _, inputs in out["nodes"]}
    assert names["_arg_x_0_0"] == ("_Arg", [])
    assert names["b"] == ("AddV2", ["_arg_x_0_0", "a"])
    assert names["_retval_b_0_0"] == ("_Retval", ["b"])  # numbered in name order
    assert names["_retval_c_0_1"] == ("_Retval", ["c"])
    assert "unused" not in names and "x" not in names


def test_same_as_tensorflow(tf1):
    theirs = tf1(PROGRAM + "\ntf.disable_v2_behavior()\nprint(json.dumps(program(tf)))")
    assert json.loads(json.dumps(_ours())) == theirs
