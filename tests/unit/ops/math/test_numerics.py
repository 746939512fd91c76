"""Checks for NaN and Inf: ``tf.check_numerics`` (the ``CheckNumerics`` op and its
gradient), ``tf.verify_tensor_all_finite`` / ``tf.debugging.assert_all_finite`` and
``tf.add_check_numerics_ops``: the graphs TF builds (names, messages, control
dependencies) and what a run does. The run-time error texts are compared with TF's in
tests/unit/test_error_sites.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.opdef import describe

NAN, INF = float("nan"), float("inf")


def _checks(graph):
    return [(op.name, op.inputs[0].name, op.get_attr("message"),
             [c.name for c in op.control_inputs])
            for op in graph.get_operations() if op.type == "CheckNumerics"]


def test_check_numerics_passes_finite_values_through():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.check_numerics(x, "x is bad")
    assert (y.op.type, y.op.name, y.op.get_attr("message")) == ("CheckNumerics",
                                                                 "CheckNumerics", "x is bad")
    assert y.shape.as_list() == [None, 2] and y.dtype == tf.float32
    big = np.array([[3e38, 3e38], [-1.0, 0.5]], np.float32)  # the sum overflows: still fine
    out = tf.Session().run(y, {x: big})
    np.testing.assert_array_equal(out, big)
    assert out is not big  # a fed value is not handed back as the same array


@pytest.mark.parametrize("value, what", [
    ([1.0, NAN], "NaN"), ([INF, 1.0], "Inf"), ([-INF], "Inf"), ([[NAN], [-INF]], "Inf and NaN"),
])
def test_check_numerics_fails_the_run(value, what):
    x = tf.placeholder(tf.float64)
    y = tf.debugging.check_numerics(x, "loss", name="check_loss")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.Session().run(y, {x: value})
    assert info.value.op is y.op
    assert str(info.value) == (f"loss : Tensor had {what} values\n\t [[node check_loss "
                               f"(CheckNumerics) defined at {y.op.creation_site}]]")


def test_check_numerics_of_a_variable_does_not_alias_it():
    v = tf.Variable([1.0, 2.0])
    y = tf.check_numerics(v, "v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        out = sess.run(y)
        sess.run(v.assign([5.0, 6.0]))
        assert out.tolist() == [1.0, 2.0]


def test_check_numerics_rejects_non_floats_while_building():
    with pytest.raises(TypeError, match="^Value passed to parameter 'tensor' has DataType "
                       "int32 not in list of allowed values: bfloat16, float16, float32, "
                       "float64"):
        tf.check_numerics(tf.constant([1]), "m")


def test_check_numerics_gradient_checks_the_incoming_gradient():
    """As TF: the gradient is a CheckNumerics of the incoming gradient, whose message
    holds the forward message as Python writes bytes (TF 2.21 prints b'gm')."""
    x = tf.placeholder(tf.float32, name="x")
    dy = tf.placeholder(tf.float32, name="dy")
    y = tf.check_numerics(x * 3.0, "gm")
    (dx,) = tf.gradients(y, x, grad_ys=dy)
    grad_check = tf.get_default_graph().get_operation_by_name(
        "gradients/CheckNumerics_grad/CheckNumerics")
    assert grad_check.get_attr("message") == \
        "Not a number (NaN) or infinity (Inf) values detected in gradient. b'gm'"
    sess = tf.Session()
    assert sess.run(dx, {x: [1.0], dy: [2.0]}).tolist() == [6.0]
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(dx, {x: [1.0], dy: [INF]})
    assert info.value.op is grad_check


def test_check_numerics_in_the_op_table_and_describe():
    text = describe("CheckNumerics")
    assert "_check_numerics_kernel" in text and "_check_numerics_grad" in text


def test_verify_tensor_all_finite_graph_as_tf():
    # TF 2.21: Const, vv/CheckNumerics, vv/control_dependency (an Identity).
    x = tf.constant([1.0])
    y = tf.verify_tensor_all_finite(x=x, message="mm", name="vv")
    assert y.name == "vv/control_dependency:0" and y.op.type == "Identity"
    assert [c.name for c in y.op.control_inputs] == ["vv/CheckNumerics"]
    assert _checks(tf.get_default_graph()) == [("vv/CheckNumerics", "Const:0", "mm", [])]
    z = tf.debugging.assert_all_finite(x, "other")
    assert z.name == "VerifyFinite/control_dependency:0"
    assert tf.Session().run(y).tolist() == [1.0]
    with pytest.raises(ValueError, match=r"^Cannot specify both 't' and 'x'\.$"):
        tf.verify_tensor_all_finite(t=x, x=x, msg="a")
    assert tf.debugging.assert_all_finite is tf.verify_tensor_all_finite


def test_verify_tensor_all_finite_runs_the_check_first():
    x = tf.placeholder(tf.float32)
    y = tf.verify_tensor_all_finite(x, "x has NaN") * 2.0
    sess = tf.Session()
    assert sess.run(y, {x: [1.0]}).tolist() == [2.0]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^x has NaN : Tensor had NaN values\n.*VerifyFinite/CheckNumerics"):
        sess.run(y, {x: [NAN]})


def _small_model():
    a = tf.constant([1.0, 2.0], name="a")
    v = tf.Variable([1.0, 2.0], name="v")
    i = tf.constant([1, 2], name="i")
    tf.add(a, v, name="b")
    tf.cast(i, tf.float64)
    tf.constant([1.0], dtype=tf.float16) * 2


# What TF 2.21 builds for _small_model (printed by real TF): one check per float16/32/64
# output in creation order (not the variable's ref outputs), each after the one before.
TF_CHECKS = [
    ("CheckNumerics", "a:0", "a:0", []),
    ("CheckNumerics_1", "v/initial_value:0", "v/initial_value:0", ["CheckNumerics"]),
    ("CheckNumerics_2", "v/read:0", "v/read:0", ["CheckNumerics_1"]),
    ("CheckNumerics_3", "b:0", "b:0", ["CheckNumerics_2"]),
    ("CheckNumerics_4", "Cast:0", "Cast:0", ["CheckNumerics_3"]),
    ("CheckNumerics_5", "Const:0", "Const:0", ["CheckNumerics_4"]),
    ("CheckNumerics_6", "mul/y:0", "mul/y:0", ["CheckNumerics_5"]),
    ("CheckNumerics_7", "mul:0", "mul:0", ["CheckNumerics_6"]),
]


def test_add_check_numerics_ops_graph_as_tf():
    g = tf.Graph()
    with g.as_default():
        _small_model()
        check = tf.add_check_numerics_ops()
        assert (check.name, check.type) == ("group_deps", "NoOp")
        assert [c.name for c in check.control_inputs] == ["CheckNumerics_7"]
        assert _checks(g) == TF_CHECKS
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(check) is None


def test_add_check_numerics_ops_live(tf1):
    got = tf1("""
        tf.disable_v2_behavior()
        a = tf.constant([1.0, 2.0], name="a")
        v = tf.Variable([1.0, 2.0], name="v")
        i = tf.constant([1, 2], name="i")
        tf.add(a, v, name="b")
        tf.cast(i, tf.float64)
        tf.constant([1.0], dtype=tf.float16) * 2
        check = tf.add_check_numerics_ops()
        print(json.dumps([[check.name, check.type, [c.name for c in check.control_inputs]],
                          [[op.name, op.inputs[0].name, op.get_attr("message").decode(),
                            [c.name for c in op.control_inputs]]
                           for op in tf.get_default_graph().get_operations()
                           if op.type == "CheckNumerics"]]))
    """)
    assert got == [["group_deps", "NoOp", ["CheckNumerics_7"]],
                   [list(row) for row in TF_CHECKS]]


def test_add_check_numerics_ops_finds_the_first_nan():
    x = tf.placeholder(tf.float32, name="x")
    loss = tf.reduce_sum(tf.log(x, name="log"), name="loss")
    check = tf.add_check_numerics_ops()
    sess = tf.Session()
    assert sess.run([loss, check], {x: [1.0, np.e]})[0] == pytest.approx(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^log:0 : Tensor had NaN values\n\t \[\[node CheckNumerics_1 "):
        sess.run([loss, check], {x: [1.0, -1.0]})


def test_add_check_numerics_ops_of_an_empty_graph():
    with tf.Graph().as_default():
        check = tf.add_check_numerics_ops()
        assert check.name == "group_deps" and not check.control_inputs


@pytest.mark.parametrize("build", [
    lambda x: tf.cond(x > 0.0, lambda: x + 1.0, lambda: x - 1.0),
    lambda x: tf.while_loop(lambda i: i < 3.0, lambda i: i + 1.0, [x]),
])
def test_add_check_numerics_ops_rejects_control_flow(build):
    with tf.Graph().as_default():
        build(tf.placeholder(tf.float32, []))
        with pytest.raises(ValueError, match=r"^`tf.add_check_numerics_ops\(\) is not "
                           r"compatible with TensorFlow control flow operations such as "
                           r"`tf.cond\(\)` or `tf.while_loop\(\)`\.$"):
            tf.add_check_numerics_ops()


def test_names_are_in_tfs_namespaces():
    assert tf.check_numerics is tf.debugging.check_numerics
    assert tf.add_check_numerics_ops and tf.verify_tensor_all_finite
    assert not hasattr(tf, "assert_all_finite")  # tf.debugging's only, as in TF1
    assert not hasattr(tf.debugging, "verify_tensor_all_finite")


def test_an_overflowing_product_warns_on_no_thread(tmp_path):
    """inf and NaN pass silently, as in TF, also from the half of a large matmul that
    runs on the worker thread (NumPy's warning names the innermost Python frame)."""
    program = tmp_path / "overflow.py"
    program.write_text(textwrap.dedent("""
        import numpy as np
        import scopeflow as tf
        from scopeflow.ops.math import blas
        a = np.full((512, 512), 1e30, np.float32)
        for x, y in ((a, a), (a[:64], a)):   # split by rows, and by columns (short a)
            assert np.isinf(blas.gemm(x, y)).all()
        s = tf.Session()
        assert np.isinf(s.run(tf.matmul(tf.constant(a), tf.constant(a)))).all()
        print("ok")
    """))
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", str(program)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
