"""GraphDefs written as TensorFlow 2.21 writes them: ``init``'s control inputs, Const
encodings and ``tensordot``'s shape nodes (the expectations were printed by TF 2.21 with
``tf.get_default_graph().as_graph_def()``; the ``tf``-marked test compares live)."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.io import protos
from scopeflow.io.tensor_proto import broadcast_from, make_ndarray, make_tensor_proto

# TF 2.x adds these to what TF1 graphs hold; scopeflow writes TF1's graphs.
TF2_ONLY_ATTRS = {"_has_manual_control_dependencies"}


def _nodes():
    return {n.name: n for n in tf.get_default_graph().as_graph_def().node}


def _variables_and_groups():
    zebra = tf.Variable(1.0, name="zebra")
    apple = tf.Variable(2.0, name="apple")
    mango = tf.Variable([1.0, 2.0], name="mango")
    with tf.variable_scope("s"):
        tf.get_variable("b", [2])
    tf.global_variables_initializer()
    tf.group(mango.initializer, apple.initializer, zebra.initializer, name="grp")
    with tf.device("/cpu:0"):
        cv = tf.Variable(3.0, name="cv")
    tf.group(cv.initializer, zebra.initializer, name="grp2")
    tf.group(name="empty")
    tf.group(zebra.initializer, name="one")


def test_init_control_inputs_sorted_as_tf():
    _variables_and_groups()
    nodes = _nodes()
    # TF 2.21: Graph::ToGraphDef sorts control inputs by name, whatever the creation order.
    assert list(nodes["init"].input) == ["^apple/Assign", "^mango/Assign", "^s/b/Assign",
                                         "^zebra/Assign"]
    assert list(nodes["grp"].input) == ["^apple/Assign", "^mango/Assign", "^zebra/Assign"]
    assert list(nodes["empty"].input) == []
    assert list(nodes["one"].input) == ["^zebra/Assign"]
    # Op.control_inputs keeps the order they were given in (TF's node_def does too).
    g = tf.get_default_graph()
    assert [c.name for c in g.get_operation_by_name("grp").control_inputs] == [
        "mango/Assign", "apple/Assign", "zebra/Assign"]


def test_group_over_devices_is_a_two_level_tree_as_tf():
    _variables_and_groups()
    nodes = _nodes()
    # TF 2.21: one NoOp per device, in device order ("" first), then the group's NoOp.
    assert (nodes["grp2/NoOp"].op, list(nodes["grp2/NoOp"].input), nodes["grp2/NoOp"].device) \
        == ("NoOp", ["^zebra/Assign"], "")
    assert (list(nodes["grp2/NoOp_1"].input), nodes["grp2/NoOp_1"].device) == \
        (["^cv/Assign"], "/device:CPU:0")
    assert list(nodes["grp2"].input) == ["^grp2/NoOp", "^grp2/NoOp_1"]
    assert nodes["grp2"].device == ""
    with tf.Session() as sess:
        sess.run(tf.get_default_graph().get_operation_by_name("grp2"))
        assert sess.run("cv:0") == 3.0 and sess.run("zebra:0") == 1.0


# name -> (value's builder, TensorProto field, what TF 2.21 wrote in it)
CONSTS = {
    "i32": (lambda: tf.constant([1, 2, 3], name="i32"),
            "tensor_content", b"\1\0\0\0\2\0\0\0\3\0\0\0"),
    "i64": (lambda: tf.constant([1, 2, 3], dtype=tf.int64, name="i64"),
            "tensor_content", b"\1" + bytes(7) + b"\2" + bytes(7) + b"\3" + bytes(7)),
    "s32": (lambda: tf.constant(5, name="s32"), "int_val", [5]),
    "big": (lambda: tf.constant(np.arange(20).reshape(4, 5), name="big"), "tensor_content",
            np.arange(20, dtype="<i8").tobytes()),
    "f": (lambda: tf.constant([1.5, 2.5], name="f"), "tensor_content",
          b"\0\0\xc0?\0\0 @"),
    "z3": (lambda: tf.constant([0, 0, 0], name="z3"), "tensor_content", bytes(12)),
    "bc": (lambda: tf.constant(0., shape=[4], name="bc"), "float_val", [0.0]),
    "pad": (lambda: tf.constant([1, 2], shape=[4], name="pad"), "int_val", [1, 2]),
    "b": (lambda: tf.constant([True, False], name="b"), "bool_val", [True, False]),
    "zs": (lambda: tf.zeros([3], name="zs"), "float_val", [0.0]),
    "ones2": (lambda: tf.constant([[1, 1], [1, 1]], name="ones2"), "tensor_content",
              np.ones(4, "<i4").tobytes()),
}


def test_constants_encoded_as_tf():
    tensors = {name: build() for name, (build, _, _) in CONSTS.items()}
    nodes = _nodes()
    for name, (_, field, expected) in CONSTS.items():
        proto = nodes[name].attr["value"].tensor
        assert [f.name for f, _ in proto.ListFields()
                if f.name not in ("dtype", "tensor_shape")] == [field], name
        got = getattr(proto, field)
        assert (got if isinstance(got, bytes) else list(got)) == expected, name
        np.testing.assert_array_equal(make_ndarray(proto), tf.get_default_graph()
                                      .get_tensor_by_name(name + ":0").op.get_attr("value"))
    with tf.Session() as sess:
        assert sess.run(tensors["pad"]).tolist() == [1, 2, 2, 2]


def test_tensor_proto_rules_of_tf_make_tensor_proto():
    # TF 2.21's make_tensor_proto: bool and complex list every element, never tensor_content.
    assert list(make_tensor_proto(np.array([1 + 2j, 3j], np.complex64)).scomplex_val) == \
        [1, 2, 0, 3]
    assert not make_tensor_proto(np.array([True, True])).tensor_content
    assert list(make_tensor_proto(np.array(["a", "a"], dtype=object)).string_val) == \
        [b"a", b"a"]
    half = make_tensor_proto(np.array([1, 2], np.float16))
    assert half.tensor_content == np.array([1, 2], "<f2").tobytes()
    padded = make_tensor_proto(np.array([7, 8], np.int32), shape=[2, 2])
    assert list(padded.int_val) == [7, 8]
    assert make_ndarray(padded).tolist() == [[7, 8], [8, 8]]
    assert broadcast_from(padded).tolist() == [7, 8]
    assert broadcast_from(make_tensor_proto(np.array([7, 8], np.int32))) is None


def test_broadcast_constants_survive_import_and_export():
    tf.constant(0., shape=[50], name="bc")
    tf.constant([1, 2], shape=[4], name="pad")
    tf.constant("x", shape=[3], name="s")
    tf.constant([0, 0], name="z")
    gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        assert g.as_graph_def() == gd
        with tf.Session() as sess:
            assert sess.run("pad:0").tolist() == [1, 2, 2, 2]
            assert sess.run("s:0").tolist() == [b"x"] * 3


# TF 2.21's nodes for tensordot over partly unknown shapes (name, op), in creation order.
def _side(p, i, j):
    """One operand's nodes; i numbers its shape-op suffixes, j its Gather/Prod suffixes."""
    s = f"_{i}" if i else ""
    g0, g1 = (f"_{j}" if j else ""), f"_{j + 1}"
    return [(f"{p}/axes{s}", "Const"), (f"{p}/free{s}", "Const"), (f"{p}/Shape{s}", "Shape"),
            (f"{p}/GatherV2{g0}/axis", "Const"), (f"{p}/GatherV2{g0}", "GatherV2"),
            (f"{p}/GatherV2{g1}/axis", "Const"), (f"{p}/GatherV2{g1}", "GatherV2"),
            (f"{p}/Const{g0}", "Const"), (f"{p}/Prod{g0}", "Prod"),
            (f"{p}/Const{g1}", "Const"), (f"{p}/Prod{g1}", "Prod"),
            (f"{p}/concat{s}/axis", "Const"), (f"{p}/concat{s}", "ConcatV2"),
            (f"{p}/stack{s}", "Pack"), (f"{p}/transpose{s}", "Transpose"),
            (f"{p}/Reshape{s}", "Reshape")]


TF_TENSORDOT_NODES = (
    [("a", "Placeholder"), ("b", "Placeholder")] + _side("td", 0, 0) + _side("td", 1, 2)
    + [("td/MatMul", "MatMul"), ("td/concat_2/axis", "Const"), ("td/concat_2", "ConcatV2"),
       ("td", "Reshape"), ("a3", "Placeholder"), ("b3", "Placeholder")] + _side("td3", 0, 0)
    + [("td3/transpose_1/perm", "Const"), ("td3/transpose_1", "Transpose"),
       ("td3/Reshape_1/shape", "Const"), ("td3/Reshape_1", "Reshape"),
       ("td3/MatMul", "MatMul"), ("td3/Const_2", "Const"), ("td3/concat_1/axis", "Const"),
       ("td3/concat_1", "ConcatV2"), ("td3", "Reshape"),
       ("Tensordot/transpose/perm", "Const"), ("Tensordot/transpose", "Transpose"),
       ("Tensordot/Reshape/shape", "Const"), ("Tensordot/Reshape", "Reshape")]
    + [(n + "_1", o) if n.endswith(("/transpose", "/Reshape")) else (n, o)
       for n, o in _side("Tensordot", 0, 0)]
    + [("Tensordot/MatMul", "MatMul"), ("Tensordot/Const_2", "Const"),
       ("Tensordot/concat_1/axis", "Const"), ("Tensordot/concat_1", "ConcatV2"),
       ("Tensordot", "Reshape")])

TENSORDOT_SNIPPET = """
a = tf.placeholder(tf.float32, [None, 3], name="a")
b = tf.placeholder(tf.float32, [3, None], name="b")
c = tf.tensordot(a, b, 1, name="td")
a3 = tf.placeholder(tf.float32, [2, None, 5], name="a3")
b3 = tf.placeholder(tf.float32, [5, 3, 4], name="b3")
c3 = tf.tensordot(a3, b3, [[1, 2], [1, 0]], name="td3")
c4 = tf.tensordot(b3, a3, [[0], [2]])
"""


def _tensordot_graph():
    scope = {"tf": tf}
    exec(TENSORDOT_SNIPPET, scope)  # noqa: S102 - our own snippet
    return scope


def test_tensordot_with_unknown_dims_builds_tfs_nodes():
    t = _tensordot_graph()
    gd = tf.get_default_graph().as_graph_def()
    assert [(n.name, n.op) for n in gd.node] == TF_TENSORDOT_NODES
    # TF 2.21's static shapes: (?, ?) (2, 4) (3, 4, 2, ?)
    assert [x.shape.as_list() for x in (t["c"], t["c3"], t["c4"])] == \
        [[None, None], [2, 4], [3, 4, 2, None]]
    rs = np.random.RandomState(0)
    a, b, a3, b3 = rs.rand(2, 3), rs.rand(3, 4), rs.rand(2, 3, 5), rs.rand(5, 3, 4)
    with tf.Session() as sess:
        c, c3, c4 = sess.run([t["c"], t["c3"], t["c4"]],
                             {t["a"]: a, t["b"]: b, t["a3"]: a3, t["b3"]: b3})
    np.testing.assert_allclose(c, np.tensordot(a, b, 1), rtol=1e-5)
    np.testing.assert_allclose(c3, np.tensordot(a3, b3, [[1, 2], [1, 0]]), rtol=1e-5)
    np.testing.assert_allclose(c4, np.tensordot(b3, a3, [[0], [2]]), rtol=1e-5)


def test_tensordot_static_shapes_unchanged():
    a = tf.placeholder(tf.float32, [2, 3], name="a")
    b = tf.placeholder(tf.float32, [3, 4], name="b")
    tf.tensordot(a, b, 1, name="td")
    # TF 2.21: only the MatMul when no transpose or reshape is needed.
    assert [(n.name, n.op) for n in tf.get_default_graph().as_graph_def().node] == [
        ("a", "Placeholder"), ("b", "Placeholder"), ("td/MatMul", "MatMul")]


def _without_tf2_only(gd):
    for n in gd.node:
        for key in TF2_ONLY_ATTRS:
            if key in n.attr:
                del n.attr[key]
    return gd


@pytest.mark.tf
def test_graph_defs_equal_tensorflows_live(tf1):
    snippet = TENSORDOT_SNIPPET + """
zebra = tf.Variable(1.0, name="zebra")
apple = tf.Variable(2.0, name="apple")
with tf.device("/cpu:0"):
    cv = tf.Variable([1, 1], name="cv")
init = tf.global_variables_initializer()
g2 = tf.group(cv.initializer, zebra.initializer, name="grp2")
consts = [tf.constant([0, 0, 0]), tf.constant(0., shape=[4]), tf.constant([1, 2], shape=[4]),
          tf.constant([True, False]), tf.zeros([3]), tf.constant(np.arange(6.).reshape(2, 3))]
"""
    # TF 2.x also types Shape's output (NodeDef.experimental_type); TF1 graphs do not.
    got = tf1("tf.disable_v2_behavior()\n" + snippet + "\ngd = tf.get_default_graph()"
              ".as_graph_def()\nfor n in gd.node:\n    n.ClearField('experimental_type')\n"
              "print(json.dumps(gd.SerializeToString().hex()))")
    theirs = _without_tf2_only(protos.GraphDef.FromString(bytes.fromhex(got)))
    exec(snippet, {"tf": tf, "np": np})  # noqa: S102 - our own snippet
    ours = tf.get_default_graph().as_graph_def()
    assert [n.name for n in ours.node] == [n.name for n in theirs.node]
    for o, t in zip(ours.node, theirs.node):
        assert o == t, (o, t)
