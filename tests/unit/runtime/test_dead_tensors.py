"""The plan side of TF1's dead tensors (``runtime.dead_tensors``): which ops may be dead,
what they skip, and that plans without a ``Switch`` are untouched."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.control_flow import dataflow_ops as d
from scopeflow.runtime import dead_tensors
from scopeflow.runtime.plan import compile_plan


def _plan(fetches, targets=(), feeds=()):
    return compile_plan(list(fetches), list(targets), list(feeds), state=None)


def test_a_plan_without_switch_is_untouched():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        y = tf.nn.relu(x * 2.0) + 1.0
        plan = _plan([y], feeds=[x])
    assert "_alive" not in plan.source
    assert not any(isinstance(v, dead_tensors.Guard) for v in plan.fn.__globals__.values())


def _cond(x, p):
    """TF1's cond of ``x * 2`` / ``x - 1`` with its pivots and a branch constant."""
    f, t = d.switch(x, p)
    pivot_t = tf.identity(d.switch(p, p)[1], name="switch_t")
    with tf.control_dependencies([pivot_t]):
        two = tf.constant(2.0, name="two")
    return d.merge([f - 1.0, t * two])


def test_only_ops_that_may_be_dead_are_guarded_and_the_rest_keeps_its_passes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        p = tf.placeholder(tf.bool, [])
        out, index = _cond(x, p)
        after = tf.identity(out * 1.0, name="after")  # the pass_through pass forwards it
        plan = _plan([after, index], feeds=[x, p])
        run = plan.fn
        xv = np.array([1.0, 2.0, 3.0], np.float32)
        np.testing.assert_array_equal(run(None, xv, np.array(True))[0], xv * 2)
        np.testing.assert_array_equal(run(None, xv, np.array(False))[0], xv - 1)
        assert run(None, xv, np.array(False))[1] == 0
    guarded = {op.name for op in plan.ops if isinstance(
        plan.fn.__globals__.get(f"_k{plan.ops.index(op)}"), dead_tensors.Guard)}
    assert {"two", "mul", "sub"} <= guarded
    assert not guarded & {"after", "mul_1", "Merge"}
    # After the Merge, passes apply as anywhere: `* 1.0` and the Identity are not called.
    assert "mul_1" not in {plan.line_to_op[k].name for k in plan.line_to_op}
    assert "_alive" not in plan.source  # the fetches are never dead


def test_a_dead_control_input_kills_the_op_but_not_a_merge():
    with tf.Graph().as_default():
        v = tf.Variable(0.0)
        p = tf.placeholder(tf.bool, [])
        _, t = d.switch(tf.constant(1.0), p)
        gate = tf.identity(t, name="gate")
        five, six = tf.constant(5.0), tf.constant(6.0)
        with tf.control_dependencies([gate]):
            bump = tf.assign_add(v, 1.0)
            both = d.merge([five, six])[0]
        with tf.control_dependencies([tf.group(gate)]):  # through a NoOp too
            bump2 = tf.assign_add(v, 10.0)
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(both, {p: False}) == 5.0
            sess.run([bump.op, bump2.op], {p: False})
            assert sess.run(v) == 0.0
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Retval\[0\]"):
                sess.run(bump, {p: False})
            sess.run([bump.op, bump2.op], {p: True})
            assert sess.run(v) == 11.0


def test_merge_of_unrelated_predicates_may_be_dead():
    """Merge(Switch(x, a)[0], Switch(x, b)[1]) is dead when a and not b: what reads it is
    guarded (dead too), as in TF."""
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        a = tf.placeholder(tf.bool, [])
        b = tf.placeholder(tf.bool, [])
        m = d.merge([d.switch(x, a)[0], d.switch(x, b)[1]])[0]
        y = m * 3.0
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {a: False, b: False}), [3.0, 6.0])
            np.testing.assert_array_equal(sess.run(y, {a: True, b: True}), [3.0, 6.0])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Retval\[0\] does not have value"):
                sess.run(y, {a: True, b: False})


def test_nested_switches_kill_the_inner_merge_with_the_outer_branch():
    with tf.Graph().as_default():
        x = tf.constant(4.0)
        a = tf.placeholder(tf.bool, [])
        b = tf.placeholder(tf.bool, [])
        _, inner_x = d.switch(x, a)
        _, inner_b = d.switch(b, a)
        f, t = d.switch(inner_x, inner_b)
        inner = d.merge([f + 1.0, t + 2.0])[0]
        outer = d.merge([d.switch(x, a)[0] * 0.0, inner])[0]
        tail = outer * 10.0
        with tf.Session() as sess:
            assert sess.run(tail, {a: True, b: True}) == 60.0
            assert sess.run(tail, {a: True, b: False}) == 50.0
            assert sess.run(tail, {a: False, b: True}) == 0.0
            # TF counts the distinct fetched names in sorted order: "Merge..." is first.
            assert inner.name < tail.name
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Retval\[0\]"):
                sess.run([tail, inner], {a: False, b: True})
        # The outer Merge covers both sides of `a`: the op after it is not guarded.
        plan = _plan([tail], feeds=[a, b])
        k = plan.ops.index(tail.op)
        assert not isinstance(plan.fn.__globals__.get(f"_k{k}"), dead_tensors.Guard)


def test_every_pass_setting_gives_the_same_values(monkeypatch):
    for spec in ("all", "none"):
        monkeypatch.setenv("SCOPEFLOW_PLAN_PASSES", spec)
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [3])
            p = tf.placeholder(tf.bool, [])
            out, _ = _cond(x, p)
            with tf.Session() as sess:
                xv = np.array([1.0, -2.0, 0.5], np.float32)
                np.testing.assert_array_equal(sess.run(out, {x: xv, p: True}), xv * 2)
                np.testing.assert_array_equal(sess.run(out, {x: xv, p: False}), xv - 1)
