"""Run-time errors as TensorFlow words them, naming the op and the user's line that made it:
the programs of tests/fixtures/tf_error_sites/cases.py (NaN/Inf checks, histograms of
non-finite values, Assign shape mismatches, binary ops whose fed shapes do not broadcast,
a Tensor as a feed value), whose errors make_fixture.py recorded under TF 2.21."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework.opdef import REGISTRY, broadcast_shape

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tf_error_sites"
_spec = importlib.util.spec_from_file_location("tf_error_sites_cases", FIXTURE / "cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
EXPECTED = json.loads((FIXTURE / "expected.json").read_text())["cases"]
CASES = {case.__name__: case for case in cases.CASES}


def _run(case):
    """As ``cases.run_case``, also returning the exception."""
    graph = tf.Graph()
    with graph.as_default():
        fetch, feed = case(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(fetch, feed)


def test_fixture_covers_every_case():
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_as_tf(name):
    want = EXPECTED[name]
    got = cases.run_case(tf, CASES[name])
    if want["error"] is None:
        assert got["error"] is None, got
        if want["value"] is not None:
            np.testing.assert_allclose(got["value"], want["value"], rtol=1e-6)
        return
    assert (got["error"], got["op"]) == (want["error"], want["op"]), got
    if got["error"] == "TypeError" and got["op"] is None and name.startswith("check_"):
        # A type rejected while building: scopeflow adds which op it was building.
        assert got["message"] == want["message"] + " (op 'CheckNumerics', name 'CheckNumerics')"
    else:
        assert got["message"] == want["message"]


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if EXPECTED[n].get("op")])
def test_run_time_error_names_the_op_and_the_users_line(name):
    with pytest.raises(tf.errors.OpError) as info:
        _run(CASES[name])
    err = info.value
    site = err.op.creation_site
    assert Path(site.filename).name == "cases.py"  # the user's file, not scopeflow's
    assert str(err).endswith(f"\n\t [[node {err.op.name} ({err.op.type}) defined at "
                             f"{site}]]")
    assert getattr(err, "_original_exception", None) is None or \
        isinstance(err._original_exception, ValueError)


def test_every_binary_elementwise_op_words_a_broadcast_failure_as_tf():
    """Every op type with the binary elementwise shape rule, fed shapes [2, 3] and [4]."""
    types = sorted(t for t, od in REGISTRY.items() if od.shape_rule is broadcast_shape)
    builders = {"AddV2": tf.add, "Sub": tf.subtract, "Mul": tf.multiply,
                "RealDiv": tf.realdiv, "FloorDiv": tf.floordiv, "FloorMod": tf.floormod,
                "Maximum": tf.maximum, "Minimum": tf.minimum, "Pow": tf.pow,
                "SquaredDifference": tf.squared_difference, "DivNoNan": tf.div_no_nan,
                "Less": tf.less, "LessEqual": tf.less_equal, "Greater": tf.greater,
                "GreaterEqual": tf.greater_equal, "Equal": tf.equal, "NotEqual": tf.not_equal,
                "LogicalAnd": tf.logical_and, "LogicalOr": tf.logical_or,
                "TruncateDiv": tf.truncatediv, "TruncateMod": tf.truncatemod,
                "Atan2": tf.atan2, "Zeta": tf.zeta, "Polygamma": tf.polygamma,
                "Xlogy": tf.math.xlogy, "Xdivy": tf.math.xdivy, "Xlog1py": tf.math.xlog1py,
                "MulNoNan": tf.math.multiply_no_nan, "NextAfter": tf.math.nextafter,
                "BitwiseAnd": tf.bitwise.bitwise_and, "BitwiseOr": tf.bitwise.bitwise_or,
                "BitwiseXor": tf.bitwise.bitwise_xor, "LeftShift": tf.bitwise.left_shift,
                "RightShift": tf.bitwise.right_shift, "Complex": tf.complex,
                "Igamma": tf.math.igamma, "Igammac": tf.math.igammac,
                "IgammaGradA": REGISTRY["IgammaGradA"].bind,
                "RandomGammaGrad": REGISTRY["RandomGammaGrad"].bind,
                "Add": REGISTRY["Add"].bind}  # TF 1.x graphs' Add (AddV2 today)
    assert set(types) <= set(builders), set(types) - set(builders)
    for op_type in types:
        dtype = (tf.bool if op_type.startswith("Logical") else
                 tf.int32 if op_type.startswith(("Truncate", "Bitwise", "LeftShift",
                                                 "RightShift")) else tf.float32)
        with tf.Graph().as_default():
            a, b = tf.placeholder(dtype), tf.placeholder(dtype)
            y = builders[op_type](a, b)
            assert y.op.type == op_type
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                tf.Session().run(y, {a: np.ones([2, 3]), b: np.ones([4])})
            assert str(info.value).startswith("Incompatible shapes: [2,3] vs. [4]\n"), op_type
            assert info.value.op is y.op


def test_broadcast_failure_inside_a_cond_branch():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.cond(tf.constant(True), lambda: x + tf.ones([4]), lambda: x)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.Session().run(y, {x: np.zeros([2, 3])})
    assert str(info.value).startswith("Incompatible shapes: [2,3] vs. [4]\n\t [[node cond/add "
                                      f"(AddV2) defined at {__file__}:")


def test_other_numpy_errors_keep_their_text():
    """Only NumPy's broadcast failures are reworded; other kernel failures still say what
    NumPy rejected."""
    from scopeflow.runtime.kernel_errors import kernel_exception_message

    with tf.Graph().as_default():
        op = (tf.placeholder(tf.float32) + 1.0).op
        matmul = tf.matmul(tf.placeholder(tf.float32), tf.placeholder(tf.float32)).op
    assert kernel_exception_message(op, ValueError("something else")) == \
        "ValueError: something else"
    assert kernel_exception_message(op, TypeError("operands could not be broadcast together "
                                                  "with shapes (2,) (3,) ")) == \
        "TypeError: operands could not be broadcast together with shapes (2,) (3,) "
    text = "operands could not be broadcast together with shapes (2,) (3,) "
    assert kernel_exception_message(matmul, ValueError(text)) == f"ValueError: {text}"
    assert kernel_exception_message(op, ValueError(
        "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
        "arg 0 with shape (2,) and arg 1 with shape (3, 1, 7).")) == \
        "Incompatible shapes: [2] vs. [3,1,7]"
    assert kernel_exception_message(op, ValueError(
        "operands could not be broadcast together with shapes () (3,5) (2,) ")) == \
        "Incompatible shapes: [] vs. [3,5]"


def test_assign_add_of_a_broadcastable_value_still_runs():
    """scopeflow keeps letting a value that broadcasts to the variable's shape through
    (TF would want equal shapes); the variable is left as it was when the shapes differ."""
    v = tf.Variable([1.0, 2.0])
    p = tf.placeholder(tf.float32)
    inc = tf.assign_add(v, p)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(inc, {p: 1.0}).tolist() == [2.0, 3.0]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Parameters and update must be the same size\n"):
            sess.run(inc, {p: [[1.0, 1.0], [1.0, 1.0]]})
        assert sess.run(v).tolist() == [2.0, 3.0]


def test_feeding_a_tensor_through_make_callable():
    x = tf.placeholder(tf.float32, [2], name="x")
    k = tf.constant([1.0, 2.0], name="k")
    sess = tf.Session()
    call = sess.make_callable(x * 2.0, [x])
    assert call([1.0, 2.0]).tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match=r"^The value of a feed cannot be a tf.Tensor object\. "
                       r".* with key Tensor\(\"x:0\", shape=\(2,\), dtype=float32\)\.$"):
        call(k)


def test_feeding_a_variable_is_numpys_error_as_in_tf():
    x = tf.placeholder(tf.float32, name="x")
    v = tf.Variable([1.0])
    with pytest.raises(ValueError, match="setting an array element with a sequence"):
        tf.Session().run(x * 2.0, {x: v})


def test_fixture_is_what_tensorflow_says_live(tf1):
    """The cases run under real TensorFlow again: the fixture is still TF's answer."""
    got = tf1(f"""
        import sys
        sys.path.insert(0, {str(FIXTURE)!r})
        tf.disable_v2_behavior()
        import cases
        print(json.dumps({{case.__name__: cases.run_case(tf, case) for case in cases.CASES}}))
    """)
    assert got == EXPECTED



def test_an_op_made_entering_a_contextmanager_is_the_users_line():
    # contextlib's frame sits between scopeflow and the user when scopeflow makes an op on a
    # @contextmanager's entry (a learning-rate schedule's casts; found by scopeflow compare).
    import inspect
    rate = tf.train.exponential_decay(0.1, tf.placeholder(tf.int32, []), 100, 0.5)
    line = inspect.currentframe().f_lineno - 1
    for op in tf.get_default_graph().get_operations():
        assert op.creation_site.filename == __file__, op.name
        assert op.creation_site.lineno == line, op.name
    assert rate.op.type == "Mul"
