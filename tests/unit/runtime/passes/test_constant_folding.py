"""constant_folding: pure ops on constants run once, when the plan is compiled."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops import array_ops
from scopeflow.runtime.passes import constant_folding


def test_constant_subgraphs_run_once_at_compile_time(passes):
    x = tf.placeholder(tf.float32, [2, 3])
    ones = tf.ones(tf.stack([tf.constant(2), tf.shape(x)[1]]))  # Pack, Fill of constants
    y = x * ones
    with tf.Session() as sess:
        p = passes.compile(sess, [y], [x])
        assert passes.calls(p) == ["Mul"]
        assert {"Pack", "Fill"} <= {op.type for op in p.ops}  # still part of the plan
        assert passes.calls(passes.compile(sess, [y], [x], passes=())) == [
            "Fill", "Mul", "Pack", "StridedSlice"]
    got = passes.compare("constant_folding",
                         lambda sess: sess.run(y, {x: np.full((2, 3), 2.0)}))
    np.testing.assert_array_equal(got[0], np.full((2, 3), 2.0))


def test_fetched_folded_values_are_copies(passes):
    z = tf.ones(tf.stack([2, 2])) + 1.0

    def program(sess):
        first = sess.run(z)
        first[:] = 7.0  # the caller's copy, not the plan's bound value
        return [first, sess.run(z)]

    got = passes.compare("constant_folding", program)
    np.testing.assert_array_equal(got[1][1], np.full((2, 2), 2.0))


def test_failing_constant_op_fails_at_run_time_naming_it():
    bad = tf.gather(tf.constant([1.0, 2.0]), tf.constant([5]), name="bad_gather")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad_gather"):
            sess.run(bad)


def test_values_too_big_to_fold_are_not_computed_at_compile_time(passes, monkeypatch):
    calls = []
    real = array_ops.fill_op.kernel
    monkeypatch.setattr(array_ops.fill_op, "kernel",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    big, small = tf.zeros([300, 300]), tf.ones(tf.stack([3, 4]))  # 360 KB, 48 bytes
    assert big.dtype.size * 300 * 300 > constant_folding.FOLD_MAX_BYTES
    with tf.Session() as sess:
        p = passes.compile(sess, [big, small])
        assert passes.calls(p) == ["Fill"] and len(calls) == 1  # the small one, folded
        b, s = sess.run([big, small])
    assert b.shape == (300, 300) and not b.any() and s.tolist() == [[1.0] * 4] * 3


def test_stateful_and_ref_reading_ops_are_not_folded(passes):
    r = tf.random_uniform(tf.stack([3]), seed=1)
    v = tf.Variable(1.0)
    init = tf.is_variable_initialized(v)
    with tf.Session() as sess:
        assert not np.array_equal(sess.run(r), sess.run(r))
        assert passes.calls(passes.compile(sess, [r, init])) == [
            "IsVariableInitialized", "RandomUniform"]
    assert not constant_folding.touches(r.op.op_def)
    assert not constant_folding.touches(init.op.op_def)
