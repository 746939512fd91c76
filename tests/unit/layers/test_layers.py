"""tf.layers: variable and op names as TF1's layers make them, shapes, sharing, training.

The pinned names come from TF 2.21 with the legacy tf_keras layers
(TF_USE_LEGACY_KERAS=1; TF 2.21's own Keras 3 has no tf.layers), running the same
program as `_model` below.
"""

from __future__ import annotations

import numpy as np

import scopeflow as tf


def _model(training):
    x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
    h = tf.layers.conv2d(x, 32, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h2 = tf.layers.conv2d(h, 64, [5, 5], padding="same", activation=tf.nn.relu, name="c2")
    f = tf.layers.flatten(h2)
    d = tf.layers.dense(f, 1024, activation=tf.nn.relu)
    d = tf.layers.dropout(d, rate=0.4, training=training)
    out = tf.layers.dense(d, 10)
    with tf.variable_scope("s"):
        o2 = tf.layers.dense(out, 3, use_bias=False)
        o3 = tf.layers.dense(out, 3)
    return x, h, h2, f, out, o2, o3


def test_names_match_tf1_layers():
    training = tf.placeholder_with_default(False, [])
    x, h, h2, f, out, o2, o3 = _model(training)
    assert [v.name for v in tf.global_variables()] == [
        "conv2d/kernel:0", "conv2d/bias:0", "c2/kernel:0", "c2/bias:0", "dense/kernel:0",
        "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0", "s/dense/kernel:0",
        "s/dense_1/kernel:0", "s/dense_1/bias:0"]
    assert [h.name, h2.name, f.name, out.name, o2.name, o3.name] == [
        "max_pooling2d/MaxPool:0", "c2/Relu:0", "flatten/Reshape:0", "dense_1/BiasAdd:0",
        "s/dense/MatMul:0", "s/dense_1/BiasAdd:0"]
    ops = {o.name for o in tf.get_default_graph().get_operations()}
    assert {"conv2d/Conv2D", "conv2d/BiasAdd", "conv2d/Relu", "flatten/Const",
            "dense/MatMul", "dense/BiasAdd", "dense/Relu", "PlaceholderWithDefault/input",
            "dense/kernel/Initializer/random_uniform"} <= ops
    assert f.shape.as_list() == [None, 7 * 7 * 64 * 4] and h.shape.as_list() == [None, 14, 14, 32]


def test_reuse_with_explicit_name():
    x = tf.zeros([2, 4])
    with tf.variable_scope("r"):
        a = tf.layers.dense(x, 2, name="fc")
    with tf.variable_scope("r", reuse=True):
        b = tf.layers.dense(x, 2, name="fc")
    assert (a.name, b.name) == ("r/fc/BiasAdd:0", "r_1/fc/BiasAdd:0")
    assert len(tf.global_variables()) == 2


def test_dropout_training_switch_and_values():
    x = tf.ones([200, 50])
    training = tf.placeholder_with_default(False, [])
    y = tf.layers.dropout(x, rate=0.5, training=training, seed=3)
    z = tf.layers.dropout(x, rate=0.5, training=False)
    with tf.Session() as sess:
        off = sess.run(y)
        on = sess.run(y, {training: True})
        np.testing.assert_array_equal(off, np.ones((200, 50)))
        assert set(np.unique(on)) <= {0.0, 2.0} and 0.4 < (on == 0).mean() < 0.6
        np.testing.assert_array_equal(sess.run(z), np.ones((200, 50)))


def test_layers_train_with_an_optimizer():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 5)).astype(np.float32)
    ys = (xs @ rng.normal(size=(5, 1))).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 5])
    y = tf.placeholder(tf.float32, [None, 1])
    pred = tf.layers.dense(tf.layers.dense(x, 16, activation=tf.tanh), 1)
    loss = tf.losses.mean_squared_error(y, pred)
    step = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xs, y: ys})
        for _ in range(200):
            sess.run(step, {x: xs, y: ys})
        assert sess.run(loss, {x: xs, y: ys}) < first * 0.05
