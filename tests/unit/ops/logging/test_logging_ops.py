"""tf.Assert, tf.Print, tf.print and tf.debugging.assert_*: TF 2.21's texts, hard-coded
(each checked under the oracle, ``/work/shared/tools/tf1``), and how plans run them."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.logging.logging_ops import summarize_value


def _run(fetch, feed=None, sess=None):
    if sess is not None:
        return sess.run(fetch, feed)
    with tf.Session() as s:
        return s.run(fetch, feed)


def _assert_message(fetch, feed=None):
    """The kernel's message, without the node TF and scopeflow name differently."""
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(fetch, feed)
    return e.value.message.split("\n\t [[")[0]


# ── formatting ───────────────────────────────────────────────────────────────────────
def test_print_formats_each_dtype_as_tf(capfd):
    vals = [tf.constant([0.1, 1 / 3, 1e10, 1e-5, 123456789., float("nan"), float("inf"),
                         -0.0, 2.5]),
            tf.constant([0.1, 1 / 3, 1e10, 1e-5, 123456789., 1e100], tf.float64),
            tf.constant([True, False]), tf.constant([b"a b", b"q\"x\n\xc3\xa9\x01"]),
            tf.constant(np.array([3], np.uint8)), tf.constant(np.array([1.5], np.float16)),
            tf.constant(np.zeros((0, 3))), tf.constant(7, tf.int64),
            tf.constant(np.array([1 + 2j], np.complex64))]
    _run(tf.Print(tf.constant(1), vals, summarize=20))
    # TF 2.21:
    assert capfd.readouterr().err == (
        "[0.1 0.333333343 1e+10 1e-05 123456792 nan inf -0 2.5]"
        "[0.1 0.33333333333333331 10000000000 1e-05 123456789 1e+100][1 0]"
        "[a b q\\\"x\\n\u00e9\\001][3][1.5][][7][?]\n")


def test_print_message_summarize_and_first_n(capfd):
    x = tf.constant([1., 2., 3., 4., 5.])
    i = tf.constant([[1, 2, 3], [4, 5, 6]])
    p = tf.Print(x, [x, i, "hi", tf.constant(3.25, tf.float64)], message="msg: ", first_n=2,
                 summarize=2)
    # TF 2.21: the op and its inputs (the Python string becomes Print/data_2)
    assert (p.op.type, p.op.name) == ("Print", "Print")
    assert [t.name for t in p.op.inputs] == ["Const:0", "Const:0", "Const_1:0",
                                             "Print/data_2:0", "Const_2:0"]
    with tf.Session() as s:
        for _ in range(3):
            np.testing.assert_array_equal(s.run(p), [1, 2, 3, 4, 5])
    # TF 2.21: printed twice (first_n=2), and again twice in a new session
    assert capfd.readouterr().err == "msg: [1 2...][[1 2...]...][hi][3.25]\n" * 2
    with tf.Session() as s:
        s.run(p), s.run(p), s.run(p)
    assert capfd.readouterr().err == "msg: [1 2...][[1 2...]...][hi][3.25]\n" * 2


def test_summarize_zero_and_other_corners(capfd):
    vals = [tf.constant(True), tf.constant([True, False]), tf.constant(3),
            tf.constant([3, 4]), tf.constant(np.array(3, np.int64)),
            tf.constant(np.array(3, np.uint8)), tf.constant(2.5, tf.float64),
            tf.constant([b"a"]), tf.constant(np.array([1 + 1j], np.complex64)),
            tf.constant(np.array(1 + 1j, np.complex64)), tf.constant(np.array([1.5], np.float16))]
    big = tf.constant(np.arange(24).reshape(2, 3, 4))
    ops = [tf.Print(tf.constant(1), vals, summarize=0), tf.print(*vals, summarize=0),
           tf.Print(tf.constant(1), vals, summarize=1), tf.print(*vals, summarize=1),
           tf.Print(tf.constant(1), [big], summarize=13), tf.print(big, summarize=1)]
    with tf.Session() as s:
        for op in ops:
            s.run(op)
    # TF 2.21:
    assert capfd.readouterr().err == (
        "[][][...][...][...][...][...][...][...][...][...]\n"
        "  ... [ ...] ... ... ... [ ...] [...] ... [ ...]\n"
        "[1][1...][3][3...][3][3][2.5][a][?][?][1.5]\n"
        '1 [1 0] 3 [3 4] 3 3 2.5 ["a"] [?] ? [1.5]\n'
        "[[[0 1 2 3][4 5 6 7][8 9 10 11]][[12...]]...]\n"
        "[[[0 ... 3]\n  ...\n  [8 ... 11]]\n\n [[12 ... 15]\n  ...\n  [20 ... 23]]]\n")


def test_summarize_value_v1_and_v2():
    a = np.arange(30).reshape(2, 3, 5)
    # TF 2.21: Tensor::SummarizeValue(3) and SummarizeValue(3, print_v2=true)
    assert summarize_value(a, 3) == "[[0 1 2...]]..."
    assert summarize_value(np.arange(10), 2, print_v2=True) == "[0 1 ... 8 9]"
    assert summarize_value(np.arange(10), -1, print_v2=True) == "[0 1 2 3 4 5 6 7 8 9]"


# ── tf.print ─────────────────────────────────────────────────────────────────────────
def test_tf_print_builds_string_format_and_print_v2(capfd):
    x = tf.constant(np.arange(30).reshape(2, 3, 5))
    op = tf.print("hello", x, name="pr")
    fmt = op.inputs[0].op
    # TF 2.21: pr_format (StringFormat, template "hello {}") feeding pr (PrintV2)
    assert isinstance(op, tf.Operation) and (op.type, op.name) == ("PrintV2", "pr")
    assert (fmt.type, fmt.name) == ("StringFormat", "pr_format")
    assert fmt.get_attr("template") == "hello {}" and fmt.get_attr("summarize") == 3
    assert op.get_attr("output_stream") == "stderr" and op.get_attr("end") == "\n"
    _run(op)
    assert capfd.readouterr().err == (  # TF 2.21:
        "hello [[[0 1 2 3 4]\n  [5 6 7 8 9]\n  [10 11 12 13 14]]\n\n"
        " [[15 16 17 18 19]\n  [20 21 22 23 24]\n  [25 26 27 28 29]]]\n")


def test_tf_print_sep_end_stream_and_python_values(capfd):
    op = tf.print(tf.constant([1.5, 2.]), tf.constant("s"), tf.constant(["a", "b"]),
                  tf.constant([True, False]), 3, 2.5, [1, 2], {"a": 1}, sep="|", end="#\n",
                  output_stream=sys.stdout)
    # TF 2.21: the Python values are part of the template
    assert op.inputs[0].op.get_attr("template") == "{}|{}|{}|{}|3|2.5|[1, 2]|{'a': 1}"
    c = tf.constant([1.0, 2.0])
    with tf.Session() as s:
        s.run(op)
        s.run(tf.print("a{}b", c, {"k": c, "j": 2}, (c,)))
        s.run(tf.print(tf.constant(np.arange(10)), summarize=2))
        s.run(tf.print(tf.constant(np.arange(4).reshape(2, 2, 1)), tf.constant(5.0)))
    out = capfd.readouterr()
    # TF 2.21:
    assert out.out == '[1.5 2]|"s"|["a" "b"]|[1 0]|3|2.5|[1, 2]|{\'a\': 1}#\n'
    assert out.err == ("a{}b [1 2] {'j': 2, 'k': [1 2]} ([1 2],)\n[0 1 ... 8 9]\n"
                       "[[[0]\n  [1]]\n\n [[2]\n  [3]]] 5\n")


def test_tf_print_prints_variables_by_value(capfd):
    v = tf.Variable([1.5, 2.0])
    op = tf.print("v:", v, [v, 3])
    with tf.Session() as s:
        s.run(v.initializer)
        s.run(op)
    assert capfd.readouterr().err == "v: [1.5 2] [[1.5 2], 3]\n"  # TF 2.21


def test_tf_print_to_a_file(tmp_path):
    path = tmp_path / "log.txt"
    with tf.Session() as s:
        s.run(tf.print("x", tf.constant([1, 2]), output_stream=f"file://{path}"))
        s.run(tf.print("y", output_stream=f"file://{path}"))
    assert path.read_text() == "x [1 2]\ny\n"


def test_tf_print_runs_through_control_dependencies_once_per_run(capfd):
    c = tf.constant([1.0, 2.0])
    with tf.control_dependencies([tf.print("before", c)]):
        z = tf.identity(c)
    unreached = tf.print("never")  # noqa: F841 - built, never fetched
    with tf.Session() as s:
        s.run(z)
        s.run([z, z * 2])
    assert capfd.readouterr().err == "before [1 2]\n" * 2  # TF 2.21


# ── Print in plans ───────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("passes", ["all", "none"])
def test_print_of_constants_is_not_folded_and_runs_once(capfd, monkeypatch, passes):
    if passes == "none":
        monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", "none")
    c = tf.constant([1.0, 2.0])
    q = tf.Print(c, [c], "once")
    with tf.Session() as s:
        got = s.run([q, q + 1, q * 2])
        s.run(q + 1)
    np.testing.assert_array_equal(got[2], [2, 4])
    assert capfd.readouterr().err == "once[1 2]\n" * 2  # TF 2.21: once per run


def test_print_of_a_variable_reads_it_when_it_runs(capfd):
    v = tf.Variable([1.0, 2.0])
    p = tf.Print(v, [v], "v=")
    with tf.Session() as s:
        s.run(v.initializer)
        with tf.control_dependencies([p]):
            step = tf.assign_add(v, [1.0, 1.0])
        s.run(step)
        got = s.run(p)
    np.testing.assert_array_equal(got, [2, 3])
    assert capfd.readouterr().err == "v=[1 2]\nv=[2 3]\n"


def test_print_passes_the_gradient_to_its_first_input(capfd):
    x = tf.placeholder(tf.float32, [2])
    y = tf.Print(x * x, [x], "xx") * 3
    g = tf.gradients(y, x)[0]
    # TF 2.21: [ 6. 12.]; the gradient alone does not need Print's output, so it prints
    # nothing; fetched with y it prints once
    np.testing.assert_array_equal(_run(g, {x: [1., 2.]}), [6., 12.])
    assert capfd.readouterr().err == ""
    _run([y, g], {x: [1., 2.]})
    assert capfd.readouterr().err == "xx[1 2]\n"


# ── Assert ───────────────────────────────────────────────────────────────────────────
def test_assert_message_and_node_name():
    x = tf.constant([1., 2., 3., 4., 5.])
    i = tf.constant([[1, 2, 3], [4, 5, 6]])
    a = tf.Assert(tf.reduce_all(x < 3), ["x is", x, i, "end"], summarize=3, name="chk")
    # TF 2.21 fails at node chk/AssertGuard/Assert (float data: TF guards it with a cond)
    assert a.type == "Assert" and a.name == "chk/AssertGuard/Assert"
    assert a.get_attr("summarize") == 3
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(a)
    assert e.value.message.startswith(  # TF 2.21:
        "assertion failed: [x is] [1 2 3...] [[1 2 3]...] [end]\n\t [[node chk/AssertGuard/")
    a2 = tf.Assert(False, [x, tf.constant(2.5), tf.constant(True), tf.constant(b"str"),
                           tf.constant(np.arange(30).reshape(2, 3, 5))])
    assert _assert_message(a2) == (  # TF 2.21:
        "assertion failed: [1 2 3...] [2.5] [1] [str] [[[0 1 2...]]...]")
    # TF 2.21: int32 and string data are not guarded
    c = tf.constant([1.0])
    assert [tf.Assert(True, [1]).name, tf.Assert(True, ["s", 1]).name,
            tf.Assert(True, [c]).name] == ["Assert_1/Assert", "Assert_2/Assert",
                                           "Assert_3/AssertGuard/Assert"]


def test_assert_passes_runs_when_reached_and_gates_control_dependencies():
    p = tf.placeholder(tf.float32, [2])
    check = tf.Assert(tf.reduce_all(p > 0), [p])
    with tf.control_dependencies([check]):
        out = tf.identity(p)
    unguarded = p * 2  # does not depend on the assertion
    with tf.Session() as s:
        assert s.run(check, {p: [1, 2]}) is None
        np.testing.assert_array_equal(s.run(out, {p: [1, 2]}), [1, 2])
        np.testing.assert_array_equal(s.run(unguarded, {p: [-1, 2]}), [-2, 4])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[-1 2\]"):
            s.run(out, {p: [-1, 2]})


@pytest.mark.parametrize("passes", ["all", "none"])
def test_a_constant_false_assert_is_not_folded(monkeypatch, passes):
    if passes == "none":
        monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", "none")
    a = tf.Assert(tf.constant(False), [tf.constant(1)])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[1\]"):
        _run(a)


def test_assert_condition_errors():
    a = tf.Assert(tf.constant([True, False]), [tf.constant(1)])
    # TF 2.21: InvalidArgumentError "In[0] should be a scalar: [2]" at Assert/Assert
    assert _assert_message(a) == "In[0] should be a scalar: [2]"
    with pytest.raises(TypeError, match="Input 'condition' of 'Assert' Op has type float32 "
                       "that does not match expected type of bool."):
        tf.Assert(tf.constant(1.0), [tf.constant(1)])
    # TF 2.21: the cond's Switch rejects them while building
    with pytest.raises(TypeError, match="Input 'pred' of 'Switch' Op has type float32 that "
                       "does not match expected type of bool."):
        tf.Assert(tf.constant(1.0), [tf.constant(1.0)])
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.Assert(tf.constant([True, False]), [tf.constant(1.0)])


def test_assert_and_print_v2_have_no_gradient_as_in_tf():
    from scopeflow.framework.opdef import NO_GRADIENT, REGISTRY
    # TF 2.21: Assert NotDifferentiable; PrintV2, StringFormat unregistered; Print has one
    assert REGISTRY["Assert"].grad is None
    assert REGISTRY["PrintV2"].grad is NO_GRADIENT and REGISTRY["StringFormat"].grad is NO_GRADIENT
    assert all(REGISTRY[t].stateful for t in ("Assert", "Print", "PrintV2"))


# ── tf.debugging.assert_* ────────────────────────────────────────────────────────────
def test_debugging_asserts_static_failures():
    c = tf.constant([1.0, 2.0, 3.0])
    # TF 2.21: known values fail while building, with the values as NumPy prints them
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.debugging.assert_equal(c, tf.constant([1.0, 2.0, 4.0]))
    assert e.value.message == ("Condition x == y did not hold element-wise:\nx (Const:0) = \n"
                               "[1. 2. 3.]\ny (Const_1:0) = \n[1. 2. 4.]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_less(tf.constant([1, 2]), tf.constant([3, 1]))
    assert e.value.message == ("Condition x < y did not hold element-wise:\nx (Const_2:0) = \n"
                               "[1 2]\ny (Const_3:0) = \n[3 1]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.debugging.assert_non_positive(c)  # TF's missing comma joins two lines
    assert e.value.message == ("\nCondition x <= 0 did not hold element-wise:x (Const:0) = \n"
                               "[1. 2. 3.]")
    with pytest.raises(ValueError, match=r"^Tensor Const:0 must have rank 2\.  Received rank "
                       r"1, shape \(3,\)$"):
        tf.debugging.assert_rank(c, 2)
    assert tf.debugging.assert_rank(c, 1).name == "assert_rank_1/static_checks_determined_all_ok"
    with pytest.raises(TypeError, match='^Expected "x" to be integer type.  Found: Const:0 of '
                       "dtype <dtype: 'float32'>$"):
        tf.debugging.assert_integer(c)
    with pytest.raises(TypeError, match="^Const:0 must be of type tf.int32; got tf.float32$"):
        tf.debugging.assert_type(c, tf.int32)


def test_debugging_asserts_at_run_time():
    p = tf.placeholder(tf.float32, [3], name="p")
    q = tf.placeholder(tf.int32, [None], name="q")
    r = tf.placeholder(tf.float32, name="r")
    feed = {p: [0, 0, 0], q: [1, 7, 3, 9], r: np.zeros((2, 2))}
    c = tf.constant([1.0, 2.0, 3.0])
    eq = tf.assert_equal(c, c + 1 + p, message="mm", summarize=2)
    pos = tf.debugging.assert_positive(c - 2 + 0 * p, message="pos")
    nonneg = tf.debugging.assert_non_negative(q - 5)
    neg = tf.debugging.assert_negative(c + p)
    rank = tf.debugging.assert_rank(r, 3)
    ge = tf.debugging.assert_greater_equal(q, 2, name="ge")
    fine = [tf.debugging.assert_greater(q, 0, name="gt"), tf.debugging.assert_less_equal(q, 100),
            tf.debugging.assert_none_equal(q, 5)]
    # TF 2.21: the Assert nodes' names (float data sit under the guard's scope)
    assert [eq.name, pos.name, nonneg.name, neg.name, rank.name, ge.name] == [
        "assert_equal_1/Assert/AssertGuard/Assert",
        "assert_positive/assert_less/Assert/AssertGuard/Assert",
        "assert_non_negative/assert_less_equal/Assert/Assert",
        "assert_negative/assert_less/Assert/AssertGuard/Assert",
        "assert_rank/Assert/Assert", "ge/Assert/Assert"]
    # TF 2.21:
    assert _assert_message(eq, feed) == (
        "assertion failed: [mm] [Condition x == y did not hold element-wise:] "
        "[x (Const:0) = ] [1 2...] [y (add_1:0) = ] [2 3...]")
    assert _assert_message(pos, feed) == (
        "assertion failed: [pos.  ] [Condition x > 0 did not hold element-wise:] "
        "[x (add_2:0) = ] [-1 0 1]")
    assert _assert_message(nonneg, feed) == (
        "assertion failed: [] [Condition x >= 0 did not hold element-wise:] "
        "[x (sub_1:0) = ] [-4 2 -2...]")
    assert _assert_message(neg, feed) == (
        "assertion failed: [] [Condition x < 0 did not hold element-wise:] "
        "[x (add_3:0) = ] [1 2 3]")
    assert _assert_message(rank, feed) == (
        "assertion failed: [] [Tensor r:0 must have rank] [3] [Received shape: ] [2 2]")
    assert _assert_message(ge, feed) == (
        "assertion failed: [Condition x >= y did not hold element-wise:] [x (q:0) = ] "
        "[1 7 3...] [y (ge/y:0) = ] [2]")
    _run(fine, feed)


def test_rank_at_least_scalar_and_a_run_time_rank():
    r = tf.placeholder(tf.float32, name="r")
    k = tf.placeholder(tf.int32, name="k")
    c = tf.constant([[1.0]])
    # TF 2.21:
    with pytest.raises(ValueError, match=r"^m\.  Tensor Const:0 must have rank at least 3\.  "
                       r"Received rank 2, shape \(1, 1\)$"):
        tf.debugging.assert_rank_at_least(c, 3, message="m")
    ok = tf.debugging.assert_rank_at_least(c, 1)
    assert ok.name == "assert_rank_at_least_1/static_checks_determined_all_ok"
    at_least = tf.debugging.assert_rank_at_least(r, 3)
    by_k = tf.debugging.assert_rank(r, k)
    assert (at_least.name, by_k.name) == ("assert_rank_at_least_2/Assert/Assert",
                                          "assert_rank/Assert/Assert")
    x = np.zeros((2, 2))
    assert _assert_message(at_least, {r: x}) == (
        "assertion failed: [] [Tensor r:0 must have rank at least] [3] [Received shape: ] "
        "[2 2]")
    # the rank itself is checked first (TF 2.21: node assert_rank/assert_rank/Assert/Assert)
    assert _assert_message(by_k, {r: x, k: [1]}) == (
        "assertion failed: [Rank must be a scalar. Received rank: ] [1]")
    assert _assert_message(by_k, {r: x, k: 1}) == (
        "assertion failed: [] [Tensor r:0 must have rank] [1] [Received shape: ] [2 2]")
    _run(by_k, {r: x, k: 2})
    with pytest.raises(ValueError, match=r"^mm\.  Expected scalar shape for Const:0, saw "
                       r"shape: \(1, 1\)\.$"):
        tf.debugging.assert_scalar(c, message="mm")
    s = tf.constant(1.0)
    assert tf.debugging.assert_scalar(s) is s  # TF 2.21: the tensor itself
