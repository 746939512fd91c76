"""tf.cond, tf.case, tf.while_loop and TensorArray: TF1's names, errors and run-time rules
(values and gradients against TF are in test_control_flow_vs_tf.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import scopeflow as tf


def test_names_follow_tf1():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    r = tf.cond(x[0, 0] > 0.0, lambda: tf.square(x), lambda: x * 2.0)
    i, a = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                         [tf.constant(0), x])
    assert r.name == "cond/Merge:0"
    assert (i.name, a.name) == ("while/Exit:0", "while/Exit_1:0")
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert {"cond/Square", "cond/mul", "while/Identity", "while/Identity_1", "while/add",
            "while/mul", "while/LoopCond"} <= names
    assert r.shape.as_list() == [None, 3] and a.shape.as_list() == [None, 3]


def test_only_the_taken_branch_runs():
    v = tf.get_variable("v", initializer=0.0)
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.assign_add(v, 1.0), lambda: tf.assign_add(v, 100.0))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r, {p: True}) == 1.0
        assert sess.run(r, {p: True}) == 2.0
        assert sess.run(r, {p: False}) == 102.0
        assert sess.run(v) == 102.0


def test_cond_results_structure_and_strict():
    p = tf.constant(True)
    single = tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)])
    strict = tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)], strict=True)
    nested = tf.cond(p, lambda: {"a": tf.constant(1.0), "b": (tf.constant(2), tf.constant(3))},
                     lambda: {"a": tf.constant(4.0), "b": (tf.constant(5), tf.constant(6))})
    with tf.Session() as sess:
        assert sess.run(single) == 1
        assert sess.run(strict) == [1]
        assert sess.run(nested) == {"a": 1.0, "b": (2, 3)}


def test_cond_returns_outside_tensors_and_ops():
    x = tf.constant(5.0)
    v = tf.get_variable("v", initializer=1.0)
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: x, lambda: x + 1.0)
    op_result = tf.cond(p, lambda: tf.assign(v, 7.0).op, lambda: tf.no_op())
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r, {p: True}) == 5.0
        assert sess.run(op_result, {p: False}) is np.True_ or sess.run(op_result, {p: False})
        assert sess.run(v) == 1.0
        sess.run(op_result, {p: True})
        assert sess.run(v) == 7.0


@pytest.mark.parametrize("build, error, message", [
    (lambda x: tf.cond(True, lambda: x, lambda: x), TypeError,
     "'pred' must not be a Python bool."),
    (lambda x: tf.cond(x[0] > 0, lambda: x, lambda: tf.cast(x, tf.int32)), ValueError,
     "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received float32 from "
     "'true_fn' and int32 from 'false_fn'."),
    (lambda x: tf.cond(x[0] > 0, lambda: (x, x), lambda: x), ValueError,
     "The two structures don't have the same nested structure."),
    (lambda x: tf.cond(x[0] > 0, lambda: None, lambda: x), ValueError,
     "'true_fn' must have a return value."),
    (lambda x: tf.cond(x[0] > 0, lambda: x, 3), TypeError, "'false_fn' must be callable."),
    (lambda x: tf.cond(x > 0, lambda: x, lambda: x), ValueError, "Shape must be rank 0"),
    (lambda x: tf.while_loop(lambda i: i, lambda i: i + 1, [tf.constant(0)]), TypeError,
     "Input 'input' of 'LoopCond' Op has type int32 that does not match expected type of "
     "bool."),
    (lambda x: tf.while_loop(lambda i: i < 3, 5, [tf.constant(0)]), TypeError,
     "'body' must be callable."),
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: i + 1, []), ValueError,
     "'loop_vars' must be provided."),
    (lambda x: tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [tf.constant(0)]),
     ValueError, "The two structures don't have the same nested structure."),
    (lambda x: tf.while_loop(lambda a: tf.shape(a)[0] < 9, lambda a: tf.concat([a, a], 0),
                             [x]), ValueError,
     "Input tensor 'x:0' enters the loop with shape (3,), but has shape (6,) after one "
     "iteration. To allow the shape to vary across iterations, use the `shape_invariants` "
     "argument of tf.while_loop to specify a less-specific shape."),
])
def test_errors_in_tf1_words(build, error, message):
    x = tf.placeholder(tf.float32, [3], name="x")
    with pytest.raises(error) as e:
        build(x)
    assert message in str(e.value)


def test_shape_invariants_let_a_loop_variable_grow():
    x = tf.constant([1.0])
    r = tf.while_loop(lambda a: tf.shape(a)[0] < 8, lambda a: tf.concat([a, a + 1.0], 0), [x],
                      shape_invariants=[tf.TensorShape([None])])
    assert r.shape.as_list() == [None]
    assert tf.Session().run(r).tolist() == [1, 2, 2, 3, 2, 3, 3, 4]


def test_single_loop_var_and_return_same_structure():
    i = tf.constant(0)
    assert isinstance(tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i]), tf.Tensor)
    assert isinstance(tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i],
                                    return_same_structure=True), list)
    assert tf.Session().run(tf.while_loop(lambda i: i < 3, lambda i: i + 1, i)) == 3


def test_a_value_from_inside_cannot_be_used_outside():
    inside = []

    def body(i):
        inside.append(i * 2)
        return i + 1

    tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    with pytest.raises(ValueError, match="is in a while loop"):
        tf.identity(inside[0])


def test_kernel_error_inside_a_body_names_the_op_inside():
    x = tf.placeholder(tf.float32, [None])

    def body(i, a):
        return i + 1, tf.reshape(a, [2, 2], name="bad_reshape")[0]

    _, a = tf.while_loop(lambda i, a: i < 2, body, [tf.constant(0), x],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.Session().run(a, {x: np.ones(3, np.float32)})
    assert e.value.op.name == "while/bad_reshape"


def test_uninitialized_variable_read_in_a_branch():
    v = tf.get_variable("late", shape=[], initializer=tf.zeros_initializer())
    r = tf.cond(tf.constant(True), lambda: v + 1.0, lambda: tf.constant(0.0))
    with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value late"):
        tf.Session().run(r)


def test_reads_in_a_loop_see_writes_in_it():
    v = tf.get_variable("counter", initializer=0.0)

    def body(i, total):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            return i + 1, total + v.read_value()

    _, total = tf.while_loop(lambda i, t: i < 4, body, [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(total) == 1.0 + 2.0 + 3.0 + 4.0
        assert sess.run(v) == 4.0


def test_outer_control_dependencies_apply_to_the_construct():
    v = tf.get_variable("v", initializer=1.0)
    with tf.control_dependencies([tf.assign(v, 5.0)]):
        r = tf.cond(tf.constant(True), lambda: tf.constant(2.0), lambda: tf.constant(3.0))
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(r)
        assert sess.run(v) == 5.0


def test_back_prop_false_stops_gradients():
    x = tf.constant(2.0)
    r = tf.while_loop(lambda a: a < 100.0, lambda a: a * a, [x], back_prop=False)
    assert tf.gradients(r, x) == [None]


def test_second_order_gradient_of_a_loop_raises():
    x = tf.constant(2.0)
    r = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * a), [0, x])[1]
    (g,) = tf.gradients(r, x)
    with pytest.raises(TypeError, match="Second-order gradient for while loops not supported"):
        tf.gradients(g, x)  # TF's refusal


def test_graph_with_control_flow_exports_and_checkpoints(tmp_path):
    x = tf.placeholder(tf.float32, [2])
    w = tf.get_variable("w", initializer=tf.ones([2]))
    r = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * w), [0, x])[1]
    loss = tf.reduce_sum(tf.cond(tf.reduce_sum(r) > 0, lambda: r, lambda: -r))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    graph_def = tf.get_default_graph().as_graph_def()
    assert any(n.op == "WhileLoop" for n in graph_def.node)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: [1.0, 2.0]})
        path = saver.save(sess, str(tmp_path / "model"))
        assert np.allclose(sess.run(w), [1.0 - 0.2 * 1.0, 1.0 - 0.2 * 2.0])
    assert tf.train.load_variable(path, "w").shape == (2,)


def test_case_without_default_and_exclusive_check():
    x = tf.placeholder(tf.int32, [])
    r = tf.case([(x > 0, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(2))],
                exclusive=True)
    with tf.Session() as sess:
        assert sess.run(r, {x: 1}) == 1
        assert sess.run(r, {x: -1}) == 2  # the last pair is the default
        with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive=True"):
            sess.run(r, {x: 7})


# ── TensorArray ─────────────────────────────────────────────────────────────────────
def test_tensor_array_basics():
    # As TF: elements read more than once need clear_after_read=False, and pieces of
    # different lengths infer_shape=False.
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta = ta.unstack(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, [1.0]).write(
        2, [3.0])
    split = tf.TensorArray(tf.float32, size=2, infer_shape=False,
                           clear_after_read=False).split(tf.constant([1.0, 2.0, 3.0]), [1, 2])
    fetches = [ta.read(1), ta.gather([2, 0]), ta.size(), ta.concat(), grown.size(),
               split.read(1), split.concat()]
    with tf.Session() as sess:
        read, gathered, size, concat, grown_size, split_read, split_concat = sess.run(fetches)
    assert read.tolist() == [3.0, 4.0]
    assert gathered.tolist() == [[5, 6], [1, 2]]
    assert size == 3 and grown_size == 3
    assert concat.tolist() == [1, 2, 3, 4, 5, 6]
    assert split_read.tolist() == [2.0, 3.0]
    assert split_concat.tolist() == [1.0, 2.0, 3.0]
    assert ta.read(0).shape.as_list() == [2]
    assert ta.stack().shape.as_list() == [3, 2]  # TF: a constant size fixes the count


@pytest.mark.parametrize("build, message", [
    (lambda: tf.TensorArray(tf.float32, size=2).read(0),
     "Could not read from TensorArray index 0.  Furthermore, the element shape is not fully "
     "defined: <unknown>."),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(0, 2.0).stack(),
     "Could not write to TensorArray index 0 because it has already been written to."),
    (lambda: tf.TensorArray(tf.float32, size=2).write(2, 1.0).stack(),
     "Tried to write to index 2 but array is not resizeable and size is: 2"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.0).read(3),
     "Tried to read from index 3 but array size is: 2"),
    (lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0]).write(
        1, [1.0, 2.0]).stack(), "TensorArray has inconsistent shapes.  Index 0 has shape: [1] "
     "but index 1 has shape: [2]"),
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(
        1, tf.placeholder_with_default([1.0, 2.0], [None])).stack(), "Could not write to "
     "TensorArray index 1 because the value shape is [2] which is incompatible with the "
     "TensorArray's inferred element shape: [1]"),
])
def test_tensor_array_errors(build, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.Session().run(build())
    assert message in str(e.value)


def test_unwritten_elements_of_a_known_shape_read_as_zeros():
    # As TF: the shape is the declared one, or that of the elements written so far.
    declared = tf.TensorArray(tf.float32, size=2, element_shape=[2]).write(1, [1.0, 2.0])
    inferred = tf.TensorArray(tf.float32, size=3).write(1, [1.0, 2.0])
    stacked, read = tf.Session().run([declared.stack(), inferred.read(0)])
    assert stacked.tolist() == [[0, 0], [1, 2]]
    assert read.tolist() == [0, 0]


def test_tensor_array_gradients():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ta = tf.TensorArray(tf.float32, size=2).unstack(x)
    y = tf.reduce_sum(ta.read(0) * 3.0) + tf.reduce_sum(ta.read(1) * ta.read(0))
    (g,) = tf.gradients(y, x)
    assert tf.Session().run(g).tolist() == [[3.0 + 3.0, 3.0 + 4.0], [1.0, 2.0]]


def test_import_graph_def_of_control_flow_says_it_is_unsupported():
    x = tf.placeholder(tf.float32, [])
    tf.cond(x > 0, lambda: x, lambda: -x)
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="control flow"):
            tf.import_graph_def(graph_def)


def test_gradients_reach_constants_used_inside():
    c = tf.constant([1.0, 2.0])
    r = tf.cond(tf.constant(True), lambda: c * 3.0, lambda: c)
    w = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * c), [0, c])[1]
    g_cond, g_while = tf.gradients(tf.reduce_sum(r), c)[0], tf.gradients(tf.reduce_sum(w), c)[0]
    got = tf.Session().run([g_cond, g_while])
    assert got[0].tolist() == [3.0, 3.0]
    assert got[1].tolist() == [3.0, 12.0]  # d(c^3)/dc = 3c^2


def _inside(build):
    """A tensor made inside the traced function that ``build(fn)`` builds from ``fn``."""
    made = []

    def fn(v):
        made.append(v * 2)
        return made[-1]
    build(fn)
    return made[0]


@pytest.mark.parametrize("build, what", [
    (lambda fn: tf.cond(tf.constant(True), lambda: fn(tf.constant(1)), lambda: 0),
     ("tf.cond branch ('cond')", "a tf.cond branch ('cond')")),
    (lambda fn: tf.while_loop(lambda i: i < 3, lambda i: fn(i) - i + 1, [0]),
     # a while loop's value used outside it: TF1's own message, which names no loop
     ("while loop. See info log for more details.", "a tf.while_loop body ('while')")),
    (lambda fn: tf.data.Dataset.range(3).map(fn),
     ("tf.data function ('MapDataset')", "a tf.data function ('MapDataset')")),
])
def test_errors_name_the_traced_function_an_op_is_in(build, what):
    # Each kind of traced function (framework/func_graph.py) names itself: a tf.data
    # function is not "a tf.cond branch".
    t = _inside(build)
    in_graph, at_run = what
    with pytest.raises(ValueError, match=f"is in a {re.escape(in_graph)}"):
        tf.identity(t)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"it is inside {re.escape(at_run)}, which runs only"):
        tf.Session().run(t)
