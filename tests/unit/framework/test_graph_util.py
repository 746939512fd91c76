"""tf.graph_util: freezing (convert_variables_to_constants), extract_sub_graph and
remove_training_nodes give TF's GraphDefs; a graph frozen by scopeflow runs in TF 2.21 and
one frozen by TF runs here, with the same outputs."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scopeflow as tf

# Builds and freezes a small model; prints the frozen graph (base64) and its node summary.
FREEZE = textwrap.dedent('''
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1., 2.], [3., 4.]], name="w")
    b = tf.Variable([0.5, -0.5], name="b")
    with tf.control_dependencies([x]):
        q = tf.identity(x, name="q")
    c = tf.check_numerics(tf.identity(tf.matmul(q, w) + b, name="i"), "bad", name="chk")
    y = tf.nn.relu(c, name="y")
    z = tf.identity(y, name="z")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(tf.assign_add(b, [1.0, 1.0]))
        g = tf.graph_util.convert_variables_to_constants(s, s.graph.as_graph_def(), ["z"])
        g2 = tf.graph_util.convert_variables_to_constants(
            s, s.graph.as_graph_def(), ["z"], variable_names_blacklist=["b"])
    summary = lambda gd: [[n.name, n.op, list(n.input)] for n in gd.node]
    out = {"frozen": summary(g), "blacklisted": summary(g2),
           "sub": [n.name for n in tf.graph_util.extract_sub_graph(
               tf.get_default_graph().as_graph_def(), ["y"]).node],
           "pruned": summary(tf.graph_util.remove_training_nodes(g)),
           "protected": summary(tf.graph_util.remove_training_nodes(g, ["z"])),
           "shape": str(tf.graph_util.tensor_shape_from_node_def_name(
               tf.get_default_graph(), "x")),
           "bytes": base64.b64encode(g.SerializeToString()).decode()}
    for bad in (lambda: tf.graph_util.extract_sub_graph(g, ["zz"]),
                lambda: tf.graph_util.extract_sub_graph(g, "z")):
        try:
            bad()
        except (AssertionError, TypeError) as e:
            out.setdefault("errors", []).append(type(e).__name__ + ": " + str(e)[:40])
    print(json.dumps(out))
''')

# Runs a frozen graph given as base64 on one input.
RUN_FROZEN = textwrap.dedent('''
    g = tf.GraphDef.FromString(base64.b64decode(FROZEN))
    with tf.Graph().as_default() as graph:
        tf.import_graph_def(g, name="")
        with tf.Session(graph=graph) as s:
            print(json.dumps(s.run("z:0", {"x:0": [[1.0, -2.0], [0.5, 0.25]]}).tolist()))
''')


def _scopeflow(program, **values):
    prelude = "import base64, json\nimport numpy as np\nimport scopeflow as tf\n"
    prelude += "".join(f"{k} = {v!r}\n" for k, v in values.items())
    out = subprocess.run([sys.executable, "-c", prelude + program], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_freeze_without_tf():
    got = _scopeflow(FREEZE)
    ops = {name: op for name, op, _ in got["frozen"]}
    assert ops["w"] == ops["b"] == "Const" and "Assign" not in ops.values()
    assert {name: op for name, op, _ in got["blacklisted"]}["b"] == "VariableV2"
    value = _scopeflow(RUN_FROZEN, FROZEN=got["bytes"])
    want = np.maximum(np.array([[1.0, -2.0], [0.5, 0.25]]) @ [[1, 2], [3, 4]] +
                      [1.5, 0.5], 0)
    np.testing.assert_allclose(value, want, rtol=1e-6)


def test_matches_tf_both_ways(tf1):
    want = tf1("import base64\n" + FREEZE)
    got = _scopeflow(FREEZE)
    for key in ("frozen", "blacklisted", "sub", "pruned", "protected", "shape", "errors"):
        assert got[key] == want[key], key
    # scopeflow's frozen graph runs in TF, TF's runs in scopeflow: the same outputs.
    in_tf = tf1("import base64\n" + f"FROZEN = {got['bytes']!r}\n" + RUN_FROZEN)
    in_sf = _scopeflow(RUN_FROZEN, FROZEN=want["bytes"])
    np.testing.assert_allclose(in_tf, in_sf, rtol=1e-6)


def test_must_run_on_cpu():
    with tf.Graph().as_default():
        assert tf.graph_util.must_run_on_cpu(tf.constant("a").op)
        assert not tf.graph_util.must_run_on_cpu(tf.constant(1.0).op)
        assert tf.graph_util.must_run_on_cpu(tf.constant(1).op)  # int32, as TF pins it
        v = tf.Variable(1.0)
        assert tf.graph_util.must_run_on_cpu(v.op, pin_variables_on_cpu=True)
    with pytest.raises(TypeError, match="GraphDef"):
        tf.graph_util.extract_sub_graph("not a graph", ["x"])
