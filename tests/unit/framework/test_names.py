"""Op, tensor and scope names exactly as TF1 (values observed with TF 2.21, TF1 semantics).

Names are the checkpoint format, so every literal here was read off real TensorFlow.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import scopeflow as tf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tf_framework"


# ── uniquification ──────────────────────────────────────────────────────────────────
def test_uniquify_with_suffixes_and_case_insensitive_collisions():
    # From TF 2.21: c, c_1, c_1_1 (c_1 was taken by hand), c_2, C_3.
    names = [tf.constant(1.0, name=n).name for n in ("c", "c", "c_1", "c", "C")]
    assert names == ["c:0", "c_1:0", "c_1_1:0", "c_2:0", "C_3:0"]


def test_taken_suffix_is_skipped():
    # From TF 2.21.
    names = [tf.constant(1.0, name=n).name for n in ("c_1", "c", "c", "c_1")]
    assert names == ["c_1:0", "c:0", "c_2:0", "c_1_1:0"]


def test_default_op_names():
    # From TF 2.21.
    assert [tf.constant(1.0).name, tf.constant(2).name, tf.placeholder(tf.float32).name,
            tf.identity(tf.constant(1.0)).name, tf.no_op().name, tf.group().name] == \
        ["Const:0", "Const_1:0", "Placeholder:0", "Identity:0", "NoOp", "group_deps"]


def test_case_insensitive_scope_collision():
    # From TF 2.21: ["Foo:0", "foo_1:0", "FOO_2/"].
    a = tf.constant(1.0, name="Foo")
    b = tf.constant(1.0, name="foo")
    with tf.name_scope("FOO") as s:
        pass
    assert [a.name, b.name, s] == ["Foo:0", "foo_1:0", "FOO_2/"]


def test_unique_name_api():
    g = tf.get_default_graph()
    # From TF 2.21.
    assert [g.unique_name("foo"), g.unique_name("foo"), g.unique_name("foo", mark_as_used=False),
            g.unique_name("foo")] == ["foo", "foo_1", "foo_2", "foo_2"]


def test_trailing_slash_name_is_used_verbatim():
    assert tf.constant(1.0, name="abs/").name == "abs:0"
    with tf.name_scope("a"):
        x = tf.constant(1.0, name="b/")
        y = tf.identity(x, name="c/d")
    # From TF 2.21.
    assert [x.name, y.name] == ["b:0", "a/c/d:0"]


def test_invalid_op_name():
    with pytest.raises(ValueError) as e:
        tf.constant(1.0, name="-bad")
    # From TF 2.21.
    assert str(e.value) == ("`-bad` is not a valid node name. Accepted names conform to Regex "
                            "/re.compile('^[A-Za-z0-9.][A-Za-z0-9_.\\\\\\\\/>-]*$')/")


# ── name_scope ──────────────────────────────────────────────────────────────────────
def test_name_scope_nesting_reentry_and_clearing():
    out = []
    with tf.name_scope("a") as s:
        out.append(s)
        out.append(tf.constant(1.0).name)
        with tf.name_scope("b") as s2:
            out += [s2, tf.constant(1.0, name="x").name]
        with tf.name_scope("b") as s3:
            out.append(s3)
        with tf.name_scope("a/b/") as s4:
            out += [s4, tf.constant(1.0, name="x").name]
        with tf.name_scope(None) as s5:
            out += [s5, tf.constant(1.0, name="y").name]
        with tf.name_scope("") as s6:
            out += [s6, tf.constant(1.0, name="z").name]
    with tf.name_scope("a") as s:
        out.append(s)
    with tf.name_scope(None, "dflt") as s:
        out.append(s)
    with tf.name_scope(None, "dflt") as s:
        out.append(s)
    out.append(tf.get_default_graph().get_name_scope())
    # From TF 2.21.
    assert out == ["a/", "a/Const:0", "a/b/", "a/b/x:0", "a/b_1/", "a/b/", "a/b/x_1:0", "",
                   "y:0", "", "z:0", "a_1/", "dflt/", "dflt_1/", ""]


def test_get_name_scope_nested():
    with tf.name_scope("x"):
        with tf.name_scope("y"):
            assert tf.get_default_graph().get_name_scope() == "x/y"
            assert tf.get_name_scope() == "x/y"


def test_scope_and_op_share_the_namespace():
    # From TF 2.21: an op "foo" makes the scope "foo_1/", and vice versa.
    tf.constant(1.0, name="foo")
    with tf.name_scope("foo") as s:
        y = tf.constant(1.0, name="bar")
    assert [s, y.name] == ["foo_1/", "foo_1/bar:0"]
    tf.reset_default_graph()
    with tf.name_scope("foo") as s:
        pass
    assert [s, tf.constant(1.0, name="foo").name] == ["foo/", "foo_1:0"]


def test_invalid_root_scope_name():
    with pytest.raises(ValueError) as e:
        with tf.name_scope("-bad"):
            pass
    # From TF 2.21.
    assert str(e.value) == ("'-bad' is not a valid root scope name. A root scope name has to "
                            "match the following pattern: ^[A-Za-z0-9.][A-Za-z0-9_.\\\\/>-]*$")


def test_name_scope_default_name_must_be_a_string():
    with pytest.raises(TypeError, match="`default_name` type"):
        with tf.name_scope(None, 3):
            pass


def test_name_scope_values_pick_their_graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0, name="c")
    with tf.name_scope("x", values=[c]) as s:
        d = tf.constant(1.0, name="d")
    assert s == "x/" and d.graph is g


def test_names_inside_scopes_for_grouping_ops():
    a = tf.constant(1.0, name="a")
    with tf.name_scope("s"):
        g = tf.group(a)
        h = tf.group(a, name="h")
        n = tf.no_op()
        t = tf.tuple([a])
    # From TF 2.21.
    assert [g.name, h.name, n.name, t[0].name] == \
        ["s/group_deps", "s/h", "s/NoOp", "s/tuple/control_dependency:0"]


def test_python_inputs_are_converted_inside_the_op_scope():
    a = tf.constant(1.0, name="a")
    x = tf.add(a, 2.0)
    y = tf.add(2.0, a)
    w = tf.multiply(a, 2, name="m")
    # From TF 2.21.
    assert [x.name, [t.name for t in x.op.inputs], y.name, [t.name for t in y.op.inputs]] == \
        ["Add:0", ["a:0", "Add/y:0"], "Add_1:0", ["Add_1/x:0", "a:0"]]
    assert [t.name for t in w.op.inputs] == ["a:0", "m/y:0"] and w.dtype == tf.float32
    assert x.op.type == "AddV2"


# ── lookups and their messages ──────────────────────────────────────────────────────
def test_lookups():
    g = tf.get_default_graph()
    tf.constant(1.0, name="c")
    assert g.get_operation_by_name("c").name == "c"
    assert g.get_tensor_by_name("c:0").name == "c:0"
    assert g.as_graph_element("c").type == "Const"
    assert g.as_graph_element("c:0").name == "c:0"
    assert "c" in g


# From TF 2.21 (exception type and str()).
LOOKUP_ERRORS = [
    ("get_operation_by_name", "nope", KeyError,
     "\"The name 'nope' refers to an Operation not in the graph.\""),
    ("get_tensor_by_name", "nope:0", KeyError,
     "\"The name 'nope:0' refers to a Tensor which does not exist. The operation, 'nope', "
     "does not exist in the graph.\""),
    ("get_tensor_by_name", "c:1", KeyError,
     "\"The name 'c:1' refers to a Tensor which does not exist. The operation, 'c', exists "
     "but only has 1 outputs.\""),
    ("get_tensor_by_name", "c", ValueError,
     "The name 'c' refers to an Operation, not a Tensor. Tensor names must be of the form "
     "\"<op_name>:<output_index>\"."),
    ("get_operation_by_name", "c:0", ValueError,
     "Name 'c:0' appears to refer to a Tensor, not a Operation."),
    ("get_tensor_by_name", "c:x", ValueError,
     "The name 'c:x' looks a like a Tensor name, but is not a valid one. Tensor names must be "
     "of the form \"<op_name>:<output_index>\"."),
    ("get_operation_by_name", 3, TypeError,
     "Operation names are strings (or similar), not int."),
    ("get_tensor_by_name", 3, TypeError, "Tensor names are strings (or similar), not int."),
    ("as_graph_element", 3, TypeError, "Can not convert a int into a Tensor or Operation."),
]


@pytest.mark.parametrize("method,arg,exc,text", LOOKUP_ERRORS)
def test_lookup_error_messages(method, arg, exc, text):
    tf.constant(1.0, name="c")
    with pytest.raises(exc) as e:
        getattr(tf.get_default_graph(), method)(arg)
    assert str(e.value) == text


# ── the fixture: a representative program, recorded under TF 2.21 ───────────────────
def test_program_matches_tf_fixture():
    sys.path.insert(0, str(FIXTURES))
    try:
        from program import build
    finally:
        sys.path.remove(str(FIXTURES))
    expected = json.loads((FIXTURES / "names.json").read_text())
    expected.pop("_source")
    got = build(tf)
    for key in expected:
        assert got[key] == expected[key], key
