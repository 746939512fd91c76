"""Graph, Operation and Tensor behaviour as TF1 (literals observed with TF 2.21)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.graph import GraphGrowthWarning


def test_default_graph_and_as_default():
    g = tf.Graph()
    with g.as_default() as gg:
        assert gg is g and tf.get_default_graph() is g
        assert tf.constant(1.0).graph is g
    assert tf.get_default_graph() is not g


def test_reset_default_graph_inside_nested_graph_raises():
    with tf.Graph().as_default():
        with pytest.raises(AssertionError, match="Do not use tf.reset_default_graph"):
            tf.reset_default_graph()


def test_reset_default_graph_replaces_it():
    g = tf.get_default_graph()
    tf.constant(1.0)
    tf.reset_default_graph()
    assert tf.get_default_graph() is not g
    assert tf.get_default_graph().get_operations() == []


def test_get_operations_in_creation_order():
    tf.constant(1.0)
    tf.placeholder(tf.float32, name="p")
    assert [o.name for o in tf.get_default_graph().get_operations()] == ["Const", "p"]


def test_operation_and_tensor_properties():
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.identity(a, name="b")
    op = b.op
    # From TF 2.21.
    assert op.type == "Identity" and op.name == "b"
    assert [t.name for t in op.inputs] == ["a:0"]
    assert [t.name for t in op.outputs] == ["b:0"]
    assert b.value_index == 0 and b.dtype == tf.float32 and b.dtype.name == "float32"
    assert str(b.shape) == "(2,)" and b.get_shape().as_list() == [2]
    assert [o.name for o in a.consumers()] == ["b"]
    assert b.graph is tf.get_default_graph() and op.graph is b.graph
    nd = op.node_def
    assert (nd.name, nd.op, list(nd.input)) == ("b", "Identity", ["a"])
    assert str(b) == 'Tensor("b:0", shape=(2,), dtype=float32)'
    assert repr(b) == "<tf.Tensor 'b:0' shape=(2,) dtype=float32>"
    assert repr(op) == "<tf.Operation 'b' type=Identity>"
    assert op.get_attr("T") == tf.float32


def test_get_attr_missing():
    a = tf.constant(1.0, name="a")
    with pytest.raises(ValueError, match="no attr named 'nope'"):
        a.op.get_attr("nope")


def test_set_shape_refines_and_rejects():
    p = tf.placeholder(tf.float32, [None, 3])
    p.set_shape([4, None])
    assert p.shape.as_list() == [4, 3]
    with pytest.raises(ValueError) as e:
        p.set_shape([5, 3])
    # From TF 2.21.
    assert str(e.value) == ("Dimension 0 in both shapes must be equal, but are 4 and 5. "
                            "Shapes are [4,3] and [5,3].")


def test_tensor_is_not_a_python_value():
    a = tf.constant([1.0])
    with pytest.raises(TypeError):
        bool(a)
    with pytest.raises(TypeError):
        iter(tf.placeholder(tf.float32, [None]))
    with pytest.raises(TypeError) as e:
        len(a)
    # From TF 2.21.
    assert str(e.value) == ("len is not well defined for a symbolic Tensor (Const:0). Please "
                            "call `x.shape` rather than `len(x)` for shape information.")
    assert (a == a) is True and {a: 1}[a] == 1 and (a != a) is False


def test_inputs_from_different_graphs():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0, name="c")
    d = tf.constant(1.0, name="d")
    with pytest.raises(ValueError) as e:
        tf.add(d, c)
    # From TF 2.21 (up to the graphs' reprs).
    assert str(e.value).startswith('Tensor("c:0", shape=(), dtype=float32) must be from the same '
                                   'graph as Tensor("d:0", shape=(), dtype=float32) (graphs are ')


# ── control dependencies ────────────────────────────────────────────────────────────
def test_control_dependencies_nested_and_cleared():
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    with tf.control_dependencies([a]):
        c = tf.identity(b, name="c")
        with tf.control_dependencies([b.op]):
            d = tf.constant(3.0, name="d")
            e = tf.identity(c, name="e")
        with tf.control_dependencies(None):
            f = tf.constant(1.0, name="f")
        g = tf.identity(a, name="g")
    got = [[t.name, [o.name for o in t.op.control_inputs], list(t.op.node_def.input)]
           for t in (c, d, e, f, g)]
    # From TF 2.21: e already depends on `a` through c, and g reads `a` itself.
    assert got == [["c:0", ["a"], ["b", "^a"]], ["d:0", ["a", "b"], ["^a", "^b"]],
                   ["e:0", ["b"], ["c", "^b"]], ["f:0", [], []], ["g:0", [], ["a"]]]


def test_control_dependencies_none_then_new():
    a = tf.constant(1.0, name="a")
    with tf.control_dependencies([a]):
        with tf.control_dependencies(None):
            with tf.control_dependencies([tf.no_op(name="n")]):
                b = tf.constant(1.0, name="b")
    assert [o.name for o in b.op.control_inputs] == ["n"]  # From TF 2.21.


def test_control_dependencies_by_name_and_bad_input():
    tf.constant(1.0, name="a")
    with tf.control_dependencies(["a"]):
        b = tf.constant(1.0, name="b")
    assert [o.name for o in b.op.control_inputs] == ["a"]
    with pytest.raises(TypeError, match="Can not convert a int into a Tensor or Operation"):
        with tf.control_dependencies([3]):
            pass


# ── devices (recorded, canonicalised and merged as TF) ──────────────────────────────
def test_device_names():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
        with tf.device("/device:GPU:1"):
            b = tf.constant(1.0, name="b")
        with tf.device(None):
            c = tf.constant(1.0, name="c")
    # From TF 2.21.
    assert [a.device, b.device, c.device, a.op.device] == \
        ["/device:CPU:0", "/device:GPU:1", "", "/device:CPU:0"]


def test_device_merging():
    with tf.device("/job:ps/task:1"):
        a = tf.constant(1.0, name="a")
        with tf.device("/cpu:0"):
            b = tf.constant(1.0, name="b")
        with tf.device("/gpu:0"):
            with tf.device("/device:CPU:1"):
                c = tf.constant(1.0, name="c")
        with tf.device("/job:worker"):
            d = tf.constant(1.0, name="d")
    with tf.device("/GPU:0"):
        e = tf.constant(1.0, name="e")
    with tf.device("/device:gpu:0"):
        f = tf.constant(1.0, name="f")
    with tf.device("/replica:0/task:0/device:CPU:*"):
        h = tf.constant(1.0, name="h")
    with tf.device(""):
        i = tf.constant(1.0, name="i")
    # From TF 2.21.
    assert [t.device for t in (a, b, c, d, e, f, h, i)] == [
        "/job:ps/task:1", "/job:ps/task:1/device:CPU:0", "/job:ps/task:1/device:CPU:1",
        "/job:worker/task:1", "/device:GPU:0", "/device:GPU:0",
        "/replica:0/task:0/device:CPU:*", ""]


# ── group / no_op / tuple / identity ────────────────────────────────────────────────
def test_group_names_and_inputs():
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    g1, g2, g3 = tf.group(a, b), tf.group(a.op, name="mygroup"), tf.group()
    # From TF 2.21.
    assert [[g.name, g.type, [o.name for o in g.control_inputs]] for g in (g1, g2, g3)] == \
        [["group_deps", "NoOp", ["a", "b"]], ["mygroup", "NoOp", ["a"]],
         ["group_deps_1", "NoOp", []]]


def test_tuple_names():
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    t = tf.tuple([a, b])
    g = tf.get_default_graph()
    # From TF 2.21.
    assert [x.name for x in t] == ["tuple/control_dependency:0", "tuple/control_dependency_1:0"]
    assert [[x.op.type, [o.name for o in x.op.control_inputs]] for x in t] == \
        [["Identity", ["tuple/group_deps"]], ["Identity", ["tuple/group_deps"]]]
    assert [o.name for o in g.get_operation_by_name("tuple/group_deps").control_inputs] == \
        ["a", "b"]
    assert [o.name for o in g.get_operations()] == \
        ["a", "b", "tuple/group_deps", "tuple/control_dependency", "tuple/control_dependency_1"]


def test_tuple_with_an_operation():
    a = tf.constant(1.0, name="a")
    n = tf.no_op(name="n")
    t = tf.tuple([a, n])
    # From TF 2.21.
    assert isinstance(t[0], tf.Tensor) and isinstance(t[1], tf.Operation)
    assert [t[0].name, t[1].name] == ["tuple/control_dependency:0", "tuple/group_deps_1"]
    assert [o.name for o in t[1].control_inputs] == ["tuple/group_deps", "n"]


def test_no_op_runs_to_none():
    n = tf.no_op()
    with tf.Session() as s:
        assert s.run(n) is None
    assert n.type == "NoOp" and n.outputs == []


def test_identity_of_python_value():
    a = tf.constant([1, 2], name="a")
    i = tf.identity(a)
    j = tf.identity([1.0, 2.0], name="j")
    # From TF 2.21.
    assert [i.name, i.dtype.name, j.name, [t.name for t in j.op.inputs]] == \
        ["Identity:0", "int32", "j:0", ["j/input:0"]]
    assert j.op.inputs[0].op.type == "Const"


# ── finalize ────────────────────────────────────────────────────────────────────────
def test_finalize_blocks_changes_and_says_where():
    g = tf.get_default_graph()
    tf.constant(1.0)
    g.finalize()
    assert g.finalized
    with pytest.raises(RuntimeError) as e:
        tf.constant(1.0)  # THIS LINE
    msg = str(e.value)
    # TF 2.21's text, plus which op and where.
    assert msg.startswith("Graph is finalized and cannot be modified.")
    assert "'Const' (type Const)" in msg and f"{__file__}:" in msg
    line = next(i for i, s in enumerate(open(__file__), 1) if "# THIS LINE" in s)
    assert f"{__file__}:{line}" in msg
    with pytest.raises(RuntimeError, match="^Graph is finalized and cannot be modified.$"):
        tf.add_to_collection("x", 1)
    g._unsafe_unfinalize()


# ── graph growth (beyond TF1) ───────────────────────────────────────────────────────
def test_graph_growth_warns_once_after_warm_up():
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.Session() as sess:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sess.run(tf.identity(x), {x: 1.0})  # first run: warm-up, never counted
            for i in range(8):
                sess.run(tf.add(x, 1.0), {x: float(i)})  # GROWTH LINE
        growth = [w for w in caught if issubclass(w.category, GraphGrowthWarning)]
        assert len(growth) == 1
        msg = str(growth[0].message)
        line = next(i for i, s in enumerate(open(__file__), 1) if "# GROWTH LINE" in s)
        assert "(AddV2)" in msg and f"{__file__}:{line}" in msg
        assert growth[0].filename == __file__  # points at the user's run call


def test_graph_growth_needs_a_streak():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.identity(x)
    with tf.Session() as sess:
        with warnings.catch_warnings():
            warnings.simplefilter("error", GraphGrowthWarning)
            sess.run(y, {x: 1.0})
            for i in range(10):  # growth every other run never builds a streak
                if i % 2:
                    tf.identity(x)
                sess.run(y, {x: 1.0})
            for _ in range(3):  # a short streak stays quiet
                tf.identity(x)
                sess.run(y, {x: 1.0})


def test_numpy_defers_to_tensor_operators():
    a = tf.constant([1.0, 2.0])
    out = np.array([1.0, 2.0], np.float32) + a
    assert isinstance(out, tf.Tensor)
