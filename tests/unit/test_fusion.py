"""Epilogue fusion in plans: Conv2D -> BiasAdd/AddV2 -> Relu runs as one call (as TF's
_FusedConv2D), with exactly the values, errors and fetches of the separate ops."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors
from scopeflow.runtime import fusion
from scopeflow.runtime import plan as plan_module


def _fused_ops(sess):
    """The op lists of the chains fused in the session's plans (by op type)."""
    out = []
    for p in sess._plans.values():
        for fn in p.fn.__globals__.values():
            if getattr(fn, "__qualname__", "") == "fused_kernel.<locals>.run":
                out.append(fn)
    return out


def _unfused(monkeypatch):
    monkeypatch.setattr(plan_module, "find_chains", lambda *args: {})


def _cnn(bias_form):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 12, 12, 3])
    w = tf.Variable(tf.truncated_normal([3, 3, 3, 8], stddev=0.5, seed=1))
    b = tf.Variable(tf.truncated_normal([8], stddev=0.5, seed=2))
    conv = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    pre = tf.nn.bias_add(conv, b) if bias_form == "bias_add" else (
        conv + b if bias_form == "add" else b + conv)
    return x, tf.nn.relu(pre), pre, conv


@pytest.mark.parametrize("bias_form", ["bias_add", "add", "add_reversed"])
def test_fused_values_equal_the_separate_ops_bit_for_bit(bias_form, monkeypatch):
    images = np.random.default_rng(0).standard_normal((5, 12, 12, 3)).astype(np.float32)
    x, y, _, _ = _cnn(bias_form)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fused = sess.run(y, {x: images})
        assert len(_fused_ops(sess)) == 1
    _unfused(monkeypatch)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        separate = sess.run(y, {x: images})
        assert not _fused_ops(sess)
    np.testing.assert_array_equal(fused, separate)


def test_fetched_intermediates_are_not_fused_away():
    images = np.random.default_rng(1).standard_normal((2, 12, 12, 3)).astype(np.float32)
    x, y, pre, conv = _cnn("add")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        c, p, r = sess.run([conv, pre, y], {x: images})
        assert not _fused_ops(sess)       # conv and pre are fetched: no chain
        np.testing.assert_array_equal(r, np.maximum(p, 0))
        b = sess.run(tf.trainable_variables()[1])
        np.testing.assert_array_equal(p, c + b)
        # Fetching only the pre-activation fuses Conv2D + Add, and gives the same values.
        np.testing.assert_array_equal(sess.run(pre, {x: images}), p)
        assert len(_fused_ops(sess)) == 1


def test_training_graph_fuses_and_gradients_match(monkeypatch):
    images = np.random.default_rng(2).standard_normal((4, 12, 12, 3)).astype(np.float32)
    x, y, _, _ = _cnn("bias_add")
    loss = tf.reduce_sum(tf.square(y))
    grads = tf.gradients(loss, tf.trainable_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fused = sess.run(grads, {x: images})
        assert _fused_ops(sess)   # the forward chain (Relu's output feeds ReluGrad: kept)
    _unfused(monkeypatch)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        separate = sess.run(grads, {x: images})
    for a, b in zip(fused, separate):
        np.testing.assert_array_equal(a, b)


def test_a_bias_that_does_not_fit_runs_unfused_and_blames_the_add():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [1, 4, 4, 1])
    bias = tf.placeholder(tf.float32, [None])
    conv = tf.nn.conv2d(x, tf.ones([1, 1, 1, 2]), [1, 1, 1, 1], "VALID")
    y = tf.nn.relu(tf.nn.bias_add(conv, bias, name="my_bias"))
    with tf.Session() as sess:
        ok = sess.run(y, {x: np.ones((1, 4, 4, 1)), bias: [1.0, -5.0]})
        np.testing.assert_array_equal(ok[..., 0], 2.0)
        np.testing.assert_array_equal(ok[..., 1], 0.0)
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(y, {x: np.ones((1, 4, 4, 1)), bias: [1.0, 2.0, 3.0]})
    assert info.value.op.name == "my_bias"
    assert "test_fusion.py" in str(info.value)   # points at the user's line


def test_chains_need_single_readers():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [1, 4, 4, 1])
    conv = tf.nn.conv2d(x, tf.ones([1, 1, 1, 2]), [1, 1, 1, 1], "VALID")
    a = tf.nn.relu(conv + [1.0, 2.0])
    also = conv * 2.0                          # a second reader of conv: no chain
    with tf.Session() as sess:
        va, vb = sess.run([a, also], {x: np.ones((1, 4, 4, 1))})
        assert not _fused_ops(sess)
    np.testing.assert_array_equal(va[0, 0, 0], [2.0, 3.0])
    np.testing.assert_array_equal(vb[0, 0, 0], [2.0, 2.0])


def test_find_chains_stops_at_ops_without_rules():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [1, 4, 4, 1])
    conv = tf.nn.conv2d(x, tf.ones([1, 1, 1, 2]), [1, 1, 1, 1], "VALID")
    y = tf.nn.sigmoid(tf.nn.relu(conv))       # Sigmoid has no epilogue rule
    ops = sorted(y.graph.get_operations(), key=lambda o: o._id)
    from collections import Counter
    readers = Counter(t for op in ops for t in op._inputs)
    chains = fusion.find_chains(ops, readers, {y})
    assert [[op.type for op in c] for c in chains.values()] == [["Conv2D", "Relu"]]
