"""``global_step``: creation, lookup, and exactly one increment per train-op run."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
import scopeflow.train  # noqa: F401


def test_get_or_create_global_step_is_tf_shaped():
    # TF 2.21: ops global_step/Initializer/zeros, global_step, global_step/Assign,
    # global_step/read; int64; in GLOBAL_STEP; not trainable.
    gs = tf.train.get_or_create_global_step()
    assert gs.op.name == "global_step" and gs.dtype.base_dtype == tf.int64
    assert [op.name for op in tf.get_default_graph().get_operations()] == [
        "global_step/Initializer/zeros", "global_step", "global_step/Assign",
        "global_step/read"]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [gs]
    assert gs in tf.global_variables() and not tf.trainable_variables()
    assert tf.train.get_or_create_global_step() is gs
    assert tf.train.get_global_step() is gs
    with pytest.raises(ValueError, match='"global_step" already exists.'):
        tf.train.create_global_step()


def test_global_step_is_global_even_inside_user_scopes():
    with tf.variable_scope("model", reuse=True), tf.name_scope("inner"):
        gs = tf.train.get_or_create_global_step()
    assert gs.op.name == "global_step"


def test_get_global_step_none_then_by_name():
    assert tf.train.get_global_step() is None
    v = tf.Variable(0, dtype=tf.int32, trainable=False, name="global_step")
    found = tf.train.get_global_step()
    assert found.name == "global_step:0" and found.op is v.op


def test_non_integer_global_step_rejected():
    tf.Variable(0.0, name="global_step")
    with pytest.raises(TypeError, match='does not have integer type'):
        tf.train.get_global_step()


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_minimize_increments_exactly_once_per_run(dtype):
    # The seed: global_step = tf.Variable(0, dtype=tf.int32, trainable=False, name=...).
    global_step = tf.Variable(0, dtype=dtype, trainable=False, name="global_step")
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w),
                                                 global_step=global_step)
    assert train.name == "Adam" and train.type == "AssignAdd"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(1, 4):
            sess.run(train)
            assert sess.run(global_step) == i
        sess.run(global_step)  # fetching does not increment
        assert sess.run(global_step) == 3
        assert sess.run(global_step).dtype == dtype.as_numpy_dtype


def test_step_increment_runs_after_the_updates():
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    lr = tf.train.exponential_decay(1.0, gs, 1, 0.5)   # 1.0 at step 0, 0.5 at step 1
    train = tf.train.GradientDescentOptimizer(lr).minimize(w * w, global_step=gs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)          # uses lr(step=0) = 1: w = 1 - 2 = -1
        assert sess.run(w) == -1.0 and sess.run(gs) == 1
        sess.run(train)          # lr(step=1) = 0.5: w = -1 + 1 = 0
        assert sess.run(w) == 0.0 and sess.run(gs) == 2
        assert tf.train.global_step(sess, gs) == 2


def test_global_step_value_helper_accepts_names():
    gs = tf.train.get_or_create_global_step()
    with tf.Session() as sess:
        sess.run(gs.initializer)
        assert tf.train.global_step(sess, "global_step:0") == 0
        assert isinstance(sess.run(gs), np.integer)
