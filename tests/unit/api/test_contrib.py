"""tf.contrib (scopeflow/contrib/): TF 1.15's tf.contrib.layers and tf.contrib.rnn basics.

TF 2.21 (the oracle) has no tf.contrib, so the names are TF 1.15's (its
contrib/layers/python/layers/layers_test.py: ``fully_connected/Relu``,
``Conv/kernel/Regularizer/l2_regularizer``, ``Conv/BatchNorm``...) and the values are
computed here from TF 1.15's documented math (Xavier limits, the moving averages).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import scopeflow as tf

layers = tf.contrib.layers

_X = (np.arange(12, dtype=np.float32).reshape(3, 4) % 5 - 2) / 2
_W = (np.arange(8, dtype=np.float32).reshape(4, 2) % 3 - 1)
_B = np.array([0.5, -0.25], np.float32)


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def _names(variables):
    return [v.op.name for v in variables]


# ── fully_connected ──────────────────────────────────────────────────────────────────
def test_fully_connected_names_values_and_collections():
    y = layers.fully_connected(_X, 2, weights_initializer=tf.constant_initializer(_W),
                               biases_initializer=tf.constant_initializer(_B))
    # TF 1.15 layers_test: fully_connected/Relu, variables weights and biases
    assert y.op.name == "fully_connected/Relu" and y.shape.as_list() == [3, 2]
    assert y.op.inputs[0].op.name == "fully_connected/BiasAdd"
    assert _names(tf.trainable_variables()) == ["fully_connected/weights",
                                                "fully_connected/biases"]
    assert _names(tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)) == \
        ["fully_connected/weights", "fully_connected/biases"]
    np.testing.assert_allclose(_run(y), np.maximum(_X @ _W + _B, 0), rtol=1e-6)


def test_fully_connected_numbering_scope_reuse_and_no_activation():
    x = tf.placeholder(tf.float32, [None, 4])
    layers.fully_connected(x, 3)
    layers.fully_connected(x, 3)
    a = layers.fully_connected(x, 5, activation_fn=None, scope="fc")
    b = layers.fully_connected(x, 5, activation_fn=None, scope="fc", reuse=True)
    assert _names(tf.global_variables()) == [
        "fully_connected/weights", "fully_connected/biases", "fully_connected_1/weights",
        "fully_connected_1/biases", "fc/weights", "fc/biases"]
    # ops of the reused layer go to a fresh name scope, as TF's
    assert a.op.name == "fc/BiasAdd" and b.op.name == "fc_1/BiasAdd"
    assert a.shape.as_list() == [None, 5]
    with pytest.raises(ValueError, match="already exists"):
        layers.fully_connected(x, 5, scope="fc")
    with pytest.raises(ValueError, match="num_outputs type should be one of"):
        layers.fully_connected(x, 2.0)


def test_fully_connected_normalizer_replaces_the_bias_and_rank3_inputs():
    x = tf.placeholder(tf.float32, [None, 4])
    y = layers.fully_connected(x, 3, normalizer_fn=layers.batch_norm,
                               normalizer_params={"decay": 0.9, "scale": True})
    assert _names(tf.global_variables()) == [
        "fully_connected/weights", "fully_connected/BatchNorm/beta",
        "fully_connected/BatchNorm/gamma", "fully_connected/BatchNorm/moving_mean",
        "fully_connected/BatchNorm/moving_variance"]
    assert y.op.name == "fully_connected/Relu"
    z = layers.fully_connected(tf.ones([2, 5, 4]), 6, biases_initializer=None)
    assert z.shape.as_list() == [2, 5, 6]
    assert "fully_connected_1/biases" not in _names(tf.global_variables())


def test_weights_regularizer_loss_once_with_tfs_name():
    x = tf.placeholder(tf.float32, [None, 4])
    reg = layers.l2_regularizer(0.1)
    layers.fully_connected(x, 2, weights_regularizer=reg, scope="fc",
                           weights_initializer=tf.constant_initializer(_W))
    layers.fully_connected(x, 2, weights_regularizer=reg, scope="fc", reuse=True)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    # TF 1.15 layers_test: 'fully_connected/kernel/Regularizer/l2_regularizer', added once
    assert [t.op.name for t in losses] == ["fc/kernel/Regularizer/l2_regularizer"]
    np.testing.assert_allclose(_run(losses[0]), 0.1 * (_W ** 2).sum() / 2, rtol=1e-6)


# ── conv2d ───────────────────────────────────────────────────────────────────────────
def _conv2d_same(x, w):
    """Stride-1 SAME correlation, NHWC, [kh, kw, in, out] (NumPy)."""
    kh, kw = w.shape[:2]
    ph, pw = (kh - 1) // 2, (kw - 1) // 2
    xp = np.pad(x, [(0, 0), (ph, kh - 1 - ph), (pw, kw - 1 - pw), (0, 0)])
    n, h, wd, _ = x.shape
    out = np.zeros((n, h, wd, w.shape[3]))
    for i in range(h):
        for j in range(wd):
            out[:, i, j] = np.tensordot(xp[:, i:i + kh, j:j + kw], w, axes=3)
    return out


def test_conv2d_names_values_and_padding():
    x = (np.arange(2 * 5 * 4 * 3, dtype=np.float32).reshape(2, 5, 4, 3) % 7 - 3) / 3
    w = (np.arange(3 * 3 * 3 * 2, dtype=np.float32).reshape(3, 3, 3, 2) % 5 - 2) / 4
    y = layers.conv2d(x, 2, [3, 3], weights_initializer=tf.constant_initializer(w),
                      biases_initializer=tf.constant_initializer([0.1, -0.2]))
    # TF 1.15 layers_test: Conv/Relu, weights [3, 3, in, out], biases
    assert y.op.name == "Conv/Relu" and y.shape.as_list() == [2, 5, 4, 2]
    assert [op.name for op in tf.get_default_graph().get_operations()
            if op.type in ("Conv2D", "BiasAdd")] == ["Conv/Conv2D", "Conv/BiasAdd"]
    assert _names(tf.trainable_variables()) == ["Conv/weights", "Conv/biases"]
    want = np.maximum(_conv2d_same(x.astype(np.float64), w) + [0.1, -0.2], 0)
    np.testing.assert_allclose(_run(y), want, rtol=1e-5, atol=1e-6)
    v = layers.convolution2d(tf.ones([5, 7, 9, 32]), 64, tf.ones([5, 7, 9, 32]).shape[1:3],
                             padding="VALID", activation_fn=None, scope="conv7")
    assert v.op.name == "conv7/BiasAdd" and v.shape.as_list() == [5, 1, 1, 64]
    s = layers.conv2d(tf.ones([5, 6, 8, 3]), 4, 3, stride=2, rate=1)
    assert s.op.name == "Conv_1/Relu" and s.shape.as_list() == [5, 3, 4, 4]
    with pytest.raises(ValueError, match="Convolution expects input with rank 4, got 3"):
        layers.conv2d(tf.ones([2, 3, 4]), 2, 3)


def test_conv2d_with_batch_norm_and_reuse_as_tf():
    """TF 1.15 layers_test testConvWithBatchNorm / testReuseConvWithBatchNorm."""
    images = tf.random_uniform((5, 7, 9, 32), seed=1)
    net = layers.conv2d(images, 32, [3, 3], normalizer_fn=layers.batch_norm,
                        normalizer_params={"decay": 0.9})
    layers.conv2d(net, 32, [3, 3], normalizer_fn=layers.batch_norm,
                  normalizer_params={"decay": 0.9})
    assert len(tf.global_variables()) == 8
    assert len(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "Conv/BatchNorm")) == 3
    assert len(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "Conv_1/BatchNorm")) == 3
    tf.reset_default_graph()
    images = tf.random_uniform((5, 7, 9, 32), seed=1)
    net = layers.conv2d(images, 32, [3, 3], scope="Conv", normalizer_fn=layers.batch_norm)
    layers.conv2d(net, 32, [3, 3], scope="Conv", reuse=True, normalizer_fn=layers.batch_norm)
    assert len(tf.global_variables()) == 4
    assert len(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "Conv_1/BatchNorm")) == 0


def test_conv2d_regularizer_outputs_collections_and_custom_getter():
    calls = []

    def custom_getter(getter, *args, **kwargs):
        calls.append(kwargs.get("name", args[0] if args else None))
        return getter(*args, **kwargs)

    with tf.variable_scope("test", custom_getter=custom_getter):
        y = layers.conv2d(tf.ones([1, 4, 4, 3]), 2, 3,
                          weights_regularizer=layers.l2_regularizer(0.01),
                          outputs_collections="outputs")
    assert calls == ["test/Conv/weights", "test/Conv/biases"]  # TF: called twice
    assert [t.op.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == \
        ["test/Conv/kernel/Regularizer/l2_regularizer"]
    assert tf.get_collection("outputs") == [y]


# ── initializers ─────────────────────────────────────────────────────────────────────
def test_xavier_initializer_uniform_limits():
    tf.set_random_seed(7)
    a = tf.get_variable("a", [200, 300], initializer=layers.xavier_initializer())
    b = tf.get_variable("b", [3, 3, 16, 32], initializer=layers.xavier_initializer_conv2d())
    c = layers.fully_connected(tf.ones([2, 400]), 100)  # xavier by default
    va, vb, vc = _run([a, b, tf.trainable_variables()[2]])
    for value, fan_in, fan_out in ((va, 200, 300), (vb, 3 * 3 * 16, 3 * 3 * 32),
                                   (vc, 400, 100)):
        limit = math.sqrt(6.0 / (fan_in + fan_out))  # sqrt(3 * 1.0 / ((in + out) / 2))
        assert np.abs(value).max() <= limit
        assert np.abs(value).max() > 0.98 * limit
        np.testing.assert_allclose(value.std(), limit / math.sqrt(3), rtol=0.05)
        assert abs(value.mean()) < 0.05 * limit
    assert c.shape.as_list() == [2, 100]


def test_variance_scaling_initializer_modes():
    tf.set_random_seed(3)
    shape = [5, 5, 20, 40]
    fan_in, fan_out = 5 * 5 * 20, 5 * 5 * 40
    n = layers.variance_scaling_initializer()  # factor 2, FAN_IN, truncated normal
    u = layers.variance_scaling_initializer(factor=1.0, mode="FAN_OUT", uniform=True)
    a = tf.get_variable("a", shape, initializer=n)
    b = tf.get_variable("b", shape, initializer=u)
    va, vb = _run([a, b])
    stddev = math.sqrt(1.3 * 2.0 / fan_in)  # truncated at 2 stddev: std 0.8796 stddev
    assert np.abs(va).max() <= 2 * stddev
    np.testing.assert_allclose(va.std(), 0.87962566 * stddev, rtol=0.03)
    limit = math.sqrt(3.0 / fan_out)
    assert np.abs(vb).max() <= limit
    np.testing.assert_allclose(vb.std(), limit / math.sqrt(3), rtol=0.03)
    with pytest.raises(TypeError, match="Unknown mode FAN_X"):
        layers.variance_scaling_initializer(mode="FAN_X")
    with pytest.raises(TypeError, match="non-floating point type"):
        layers.xavier_initializer(dtype=tf.int32)


# ── regularizers ─────────────────────────────────────────────────────────────────────
def test_regularizers_values_names_and_errors():
    w = tf.constant([[1.0, -2.0], [3.0, -0.5]])
    l1, l2 = layers.l1_regularizer(0.5), layers.l2_regularizer(0.25)
    both = layers.sum_regularizer([l1, None, l2])
    t1, t2, ts = l1(w), l2(w), both(w)
    assert (t1.op.name, t2.op.name, ts.op.name) == ("l1_regularizer", "l2_regularizer",
                                                    "sum_regularizer")
    v1, v2, vs = _run([t1, t2, ts])
    assert v1 == pytest.approx(0.5 * 6.5) and v2 == pytest.approx(0.25 * 14.25 / 2)
    assert vs == pytest.approx(v1 + v2)
    assert layers.l2_regularizer(0.0)(w) is None
    assert layers.sum_regularizer([None]) is None
    with pytest.raises(ValueError, match="scale cannot be an integer: 1"):
        layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="Setting a scale less than 0 on a regularizer: -0.1"):
        layers.l1_regularizer(-0.1)


def test_apply_regularization():
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable([[3.0]], name="b")
    penalty = layers.apply_regularization(layers.l2_regularizer(0.5), [a, b])
    assert penalty.op.name == "get_regularization_penalty"
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [penalty]
    assert _run(penalty) == pytest.approx(0.5 * (1 + 4 + 9) / 2)
    with pytest.raises(ValueError, match="No weights to regularize."):
        layers.apply_regularization(layers.l2_regularizer(0.5))
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, a)
    assert _run(layers.apply_regularization(layers.l1_regularizer(1.0))) == pytest.approx(3)


# ── batch_norm ───────────────────────────────────────────────────────────────────────
_BN = (np.arange(2 * 3 * 2 * 3, dtype=np.float32).reshape(2, 3, 2, 3) % 7 - 2.5) / 2


def _normalized(x, axes, eps=0.001):
    return (x - x.mean(axes)) / np.sqrt(x.var(axes) + eps)


def test_batch_norm_rank4_training_updates_via_update_ops():
    x = tf.constant(_BN)
    y = layers.batch_norm(x, decay=0.9, is_training=True)
    # TF 1.15: BatchNorm/beta, moving_mean, moving_variance (no gamma: scale=False)
    assert _names(tf.global_variables()) == ["BatchNorm/beta", "BatchNorm/moving_mean",
                                             "BatchNorm/moving_variance"]
    assert _names(tf.trainable_variables()) == ["BatchNorm/beta"]
    assert _names(tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)) == \
        _names(tf.global_variables())
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [u.name for u in updates] == ["BatchNorm/AssignMovingAvg",
                                         "BatchNorm/AssignMovingAvg_1"]
    mean_var, var_var = tf.global_variables()[1:]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)
        sess.run(updates)
        mm, mv = sess.run([mean_var, var_var])
    axes = (0, 1, 2)
    np.testing.assert_allclose(out, _normalized(_BN, axes), rtol=1e-4, atol=1e-5)
    # moving = moving * decay + batch * (1 - decay); the fused op's variance is
    # Bessel-corrected (n / (n - 1)), as TF's
    n = _BN.size // 3
    np.testing.assert_allclose(mm, 0.1 * _BN.mean(axes), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * _BN.var(axes) * n / (n - 1), rtol=1e-5)


def test_batch_norm_rank2_fused_path_and_inference():
    x2 = _BN.reshape(-1, 3)
    x = tf.placeholder(tf.float32, [None, 3])
    training = tf.placeholder(tf.bool, [])
    y = layers.batch_norm(x, decay=0.5, scale=True, is_training=training,
                          param_initializers={"gamma": tf.constant_initializer(2.0),
                                              "beta": tf.constant_initializer(0.5)})
    assert y.shape.as_list() == [None, 3]
    assert _names(tf.global_variables()) == ["BatchNorm/beta", "BatchNorm/gamma",
                                             "BatchNorm/moving_mean",
                                             "BatchNorm/moving_variance"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    mean_var, var_var = tf.global_variables()[2:]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        train_out = sess.run(y, {x: x2, training: True})
        sess.run(updates, {x: x2, training: True})
        mm, mv = sess.run([mean_var, var_var])
        infer_out = sess.run(y, {x: x2, training: False})
        sess.run(updates, {x: x2, training: False})  # no change when not training
        mm2, mv2 = sess.run([mean_var, var_var])
    n = x2.shape[0]
    np.testing.assert_allclose(train_out, 2 * _normalized(x2, 0) + 0.5, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mm, 0.5 * x2.mean(0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * x2.var(0) * n / (n - 1), rtol=1e-5)
    np.testing.assert_allclose(infer_out, 2 * (x2 - mm) / np.sqrt(mv + 0.001) + 0.5,
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose([mm2, mv2], [mm, mv], rtol=1e-6)


def test_batch_norm_moments_path_forces_updates_with_population_variance():
    x3 = _BN.reshape(2, 6, 3)
    y = layers.batch_norm(tf.constant(x3), decay=0.8, is_training=True,
                          updates_collections=None, fused=False, scope="bn")
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    mean_var, var_var = tf.global_variables()[1:]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y)  # the updates run before the output
        mm, mv = sess.run([mean_var, var_var])
    axes = (0, 1)
    np.testing.assert_allclose(out, _normalized(x3, axes), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mm, 0.2 * x3.mean(axes), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mv, 0.8 + 0.2 * x3.var(axes), rtol=1e-5)


def test_batch_norm_not_training_uses_moving_statistics_and_reuse():
    x = tf.constant(_BN)
    layers.batch_norm(x, scope="bn", center=False, is_training=True)
    y = layers.batch_norm(x, scope="bn", center=False, reuse=True, is_training=False)
    assert _names(tf.global_variables()) == ["bn/moving_mean", "bn/moving_variance"]
    mean_var, var_var = tf.global_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([mean_var.assign([1.0, 0.0, -1.0]), var_var.assign([4.0, 1.0, 0.25])])
        out = sess.run(y)
    want = (_BN - [1.0, 0.0, -1.0]) / np.sqrt(np.array([4.0, 1.0, 0.25]) + 0.001)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


# ── pooling, flatten, dropout, one_hot_encoding, embed_sequence ──────────────────────
def test_pooling_flatten_and_their_names():
    x = np.arange(32, dtype=np.float32).reshape(2, 4, 4, 1)
    m = layers.max_pool2d(x, [2, 2])
    a = layers.avg_pool2d(x, 2, stride=1, padding="SAME")
    f = layers.flatten(m)
    # TF 1.15 layers_test: MaxPool2D/MaxPool, AvgPool2D/AvgPool, Flatten/flatten/Reshape
    assert (m.op.name, a.op.name, f.op.name) == ("MaxPool2D/MaxPool", "AvgPool2D/AvgPool",
                                                 "Flatten/flatten/Reshape")
    assert f.shape.as_list() == [2, 4]
    vm, va, vf = _run([m, a, f])
    np.testing.assert_array_equal(vm[..., 0], x[:, 1::2, 1::2, 0])
    np.testing.assert_array_equal(vf, vm.reshape(2, 4))
    assert va[0, 0, 0, 0] == pytest.approx((0 + 1 + 4 + 5) / 4)
    assert va[0, 3, 3, 0] == pytest.approx(15)  # SAME: the corner window has one element
    with pytest.raises(ValueError, match="data_format has to be either NCHW or NHWC."):
        layers.max_pool2d(x, 2, data_format="NDHWC")


def test_dropout_training_and_not():
    tf.set_random_seed(1)
    x = tf.ones([50, 40])
    d = layers.dropout(x, keep_prob=0.25)
    same = layers.dropout(x, keep_prob=0.25, is_training=False)
    vd, vs = _run([d, same])
    assert set(np.unique(vd)) <= {0.0, 4.0}
    assert abs((vd > 0).mean() - 0.25) < 0.05
    np.testing.assert_array_equal(vs, np.ones([50, 40]))
    assert d.op.name.startswith("Dropout/") and same.op.name.startswith("Dropout_1/")


def test_one_hot_encoding_and_embed_sequence():
    labels = tf.constant([0, 2, 1])
    oh = layers.one_hot_encoding(labels, 3, on_value=2.0)
    assert oh.op.name == "OneHotEncoding/one_hot"
    assert oh.op.inputs[0].dtype == tf.int64  # int32 labels are cast, as TF's
    np.testing.assert_array_equal(_run(oh), [[2, 0, 0], [0, 0, 2], [0, 2, 0]])
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    ids = [[1, 4], [0, 1]]
    e = layers.embed_sequence(ids, vocab_size=5, embed_dim=3,
                              initializer=tf.constant_initializer(table))
    u = layers.embed_sequence(ids, scope="EmbedSequence", reuse=True, unique=True)
    assert _names(tf.global_variables()) == ["EmbedSequence/embeddings"]
    assert e.shape.as_list() == [2, 2, 3]
    ve, vu = _run([e, u])
    np.testing.assert_array_equal(ve, table[np.array(ids)])
    np.testing.assert_array_equal(vu, table[np.array(ids)])
    with pytest.raises(ValueError, match="Must specify vocab size and embedding dimension"):
        layers.embed_sequence(ids)


# ── tf.contrib.rnn and the namespace ─────────────────────────────────────────────────
def test_contrib_rnn_is_tf_nn_rnn_cell():
    for name in ("BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "DropoutWrapper",
                 "ResidualWrapper", "LSTMStateTuple", "BasicRNNCell", "RNNCell"):
        assert getattr(tf.contrib.rnn, name) is getattr(tf.nn.rnn_cell, name)
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn
    assert tf.contrib.rnn.static_bidirectional_rnn is tf.nn.static_bidirectional_rnn
    cell = tf.contrib.rnn.BasicLSTMCell(4)
    outputs, state = tf.contrib.rnn.static_rnn(cell, [tf.ones([2, 3])] * 3, dtype=tf.float32)
    assert len(outputs) == 3 and isinstance(state, tf.contrib.rnn.LSTMStateTuple)
    assert _names(tf.trainable_variables()) == ["rnn/basic_lstm_cell/kernel",
                                                "rnn/basic_lstm_cell/bias"]


def test_other_contrib_names_raise_not_implemented_naming_them():
    assert hasattr(tf, "contrib") and tf.contrib.layers is layers
    for expr, name in (("tf.contrib.bayesflow", "tf.contrib.bayesflow"),
                       ("tf.contrib.tpu", "tf.contrib.tpu"),
                       ("tf.contrib.layers.layer_norm", "tf.contrib.layers.layer_norm"),
                       ("tf.contrib.rnn.AttentionCellWrapper",
                        "tf.contrib.rnn.AttentionCellWrapper")):
        with pytest.raises(NotImplementedError) as info:
            eval(expr)
        text = str(info.value)
        assert text.startswith(f"{name} is part of TensorFlow 1's API but scopeflow does not "
                               "plan to implement it: tf.contrib was removed")
        assert text.endswith("(see docs/API.md)")
    assert not hasattr(tf.contrib, "bayesflow")
    assert getattr(tf.contrib, "tpu", None) is None
    # slim, framework and learn map onto scopeflow (scopeflow/python/module_paths.py).
    assert tf.contrib.slim.fully_connected is layers.fully_connected
