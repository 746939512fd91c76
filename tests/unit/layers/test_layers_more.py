"""The rest of tf.layers: the class forms, 1-D pooling, flatten, dropout and
batch_normalization. Names and values were printed by TF 2.21 (tf.compat.v1 with the
legacy tf_keras layers) running the same programs.
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


def _x():
    return tf.placeholder(tf.float32, [2, 4, 4, 3], name="x")


# ── class forms ──────────────────────────────────────────────────────────────────────
def test_dense_object_builds_once_and_reuses_its_scope():
    x = _x()
    layer = tf.layers.Dense(5)
    assert (layer.name, layer.trainable_variables, layer.built) == ("dense_1", [], False)
    a, b = layer(x), layer(x)
    # TF 2.21: objects are numbered from 1; their variable scope is dense; a second call
    # reuses it and numbers the ops.
    assert (layer.name, a.name, b.name) == ("dense_1", "dense/BiasAdd:0", "dense/BiasAdd_1:0")
    assert (layer.kernel.name, layer.bias.name) == ("dense/kernel:0", "dense/bias:0")
    assert [v.name for v in layer.trainable_variables] == ["dense/kernel:0", "dense/bias:0"]
    assert [v.name for v in layer.variables] == ["dense/kernel:0", "dense/bias:0"]
    assert layer.kernel.shape.as_list() == [3, 5] and a.shape.as_list() == [2, 4, 4, 5]
    assert len(tf.global_variables()) == 2


def test_object_scope_is_captured_at_its_first_call():
    x = _x()
    with tf.variable_scope("Net"):
        conv = tf.layers.Conv2D(2, 3, name="c")
        c1 = conv(x)
    with tf.variable_scope("Other"):
        c2 = conv(x)
    # TF 2.21:
    assert (conv.name, c1.name, c2.name, conv.kernel.name) == (
        "c", "Net/c/BiasAdd:0", "Net/c/BiasAdd_1:0", "Net/c/kernel:0")
    named = tf.layers.Dense(4, name="m")
    m = named(x)
    unnamed = tf.layers.Dense(4)
    d = unnamed(x)
    d3 = tf.layers.dense(x, 4)
    # TF 2.21:
    assert (named.name, m.name, unnamed.name, d.name, unnamed.kernel.name, d3.name) == (
        "m", "m/BiasAdd:0", "dense_1", "dense/BiasAdd:0", "dense/kernel:0",
        "dense_1/BiasAdd:0")


def test_layers_without_variables_as_objects():
    x = _x()
    f, p, a, dr = (tf.layers.Flatten(), tf.layers.MaxPooling2D(2, 2),
                   tf.layers.AveragePooling2D(2, 2), tf.layers.Dropout(0.3))
    # TF 2.21:
    assert [f.name, f(x).name, f(x).name] == ["flatten_1", "flatten/Reshape:0",
                                              "flatten/Reshape_1:0"]
    assert [p.name, p(x).name, a.name, a(x).name] == [
        "max_pooling2d_1", "max_pooling2d/MaxPool:0", "average_pooling2d_1",
        "average_pooling2d/AvgPool:0"]
    assert [dr.name, dr(x, training=True).name, dr(x).name] == [
        "dropout_1", "dropout/dropout/SelectV2:0", "dropout/Identity:0"]
    assert f.variables == [] and p.trainable_variables == []


def test_batch_normalization_object():
    x = _x()
    bn = tf.layers.BatchNormalization()
    y = bn(x, training=True)
    # TF 2.21:
    assert (bn.name, y.name) == ("batch_normalization_1",
                                 "batch_normalization/FusedBatchNormV3:0")
    assert [v.name for v in bn.variables] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0",
        "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert [v.name for v in bn.trainable_variables] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0"]
    assert [op.name for op in bn.updates] == [op.name for op in tf.get_collection(
        tf.GraphKeys.UPDATE_OPS)] == ["batch_normalization/AssignMovingAvg",
                                      "batch_normalization/AssignMovingAvg_1"]
    assert tf.trainable_variables() == bn.trainable_variables
    assert bn.moving_mean.name == "batch_normalization/moving_mean:0"


def test_layer_trainable_false_keeps_variables_out_of_training():
    layer = tf.layers.Dense(2, trainable=False)
    layer(tf.zeros([1, 3]))
    assert layer.trainable_variables == [] and len(layer.non_trainable_variables) == 2
    assert tf.trainable_variables() == []


# ── pooling and flatten ──────────────────────────────────────────────────────────────
def test_pooling1d_values_and_op_names():
    x = np.arange(14, dtype=np.float32).reshape(1, 7, 2) * np.array([1, -1], np.float32)
    a = tf.layers.max_pooling1d(x, 3, 2)
    b = tf.layers.average_pooling1d(x, 3, 2, padding="same")
    c = tf.layers.MaxPooling1D(2, 3, name="mp")(x)
    ops = [o.name for o in tf.get_default_graph().get_operations()]
    # TF 2.21:
    assert [o for o in ops if "pooling" in o or o.startswith("mp")] == [
        "max_pooling1d/ExpandDims/dim", "max_pooling1d/ExpandDims", "max_pooling1d/MaxPool",
        "max_pooling1d/Squeeze", "average_pooling1d/ExpandDims/dim",
        "average_pooling1d/ExpandDims", "average_pooling1d/AvgPool",
        "average_pooling1d/Squeeze", "mp/ExpandDims/dim", "mp/ExpandDims", "mp/MaxPool",
        "mp/Squeeze"]
    assert [t.shape.as_list() for t in (a, b, c)] == [[1, 3, 2], [1, 4, 2], [1, 2, 2]]
    with tf.Session() as sess:
        ra, rb, rc = sess.run([a, b, c])
    assert ra.tolist() == [[[4.0, -1.0], [8.0, -5.0], [12.0, -9.0]]]
    assert rb.tolist() == [[[1.0, -2.0], [4.0, -5.0], [8.0, -9.0], [11.0, -12.0]]]
    assert rc.tolist() == [[[2.0, -1.0], [8.0, -7.0]]]


def test_flatten_static_shapes():
    f = tf.layers.Flatten()
    # TF 2.21: (3, 10) (?, ?) (4, 1)
    assert f(tf.zeros([3, 2, 5])).shape.as_list() == [3, 10]
    assert f(tf.placeholder(tf.float32, [None, 2, None])).shape.as_list() == [None, None]
    assert f(tf.zeros([4])).shape.as_list() == [4, 1]
    with tf.Session() as sess:
        out = sess.run(tf.layers.flatten(tf.placeholder_with_default(
            np.arange(12.0).reshape(2, 3, 2), [None, 3, None])))
    np.testing.assert_array_equal(out, np.arange(12.0).reshape(2, 6))


def test_flatten_channels_first_moves_channels_last():
    x = np.arange(12.0, dtype=np.float32).reshape(1, 3, 2, 2)
    y = tf.layers.flatten(x, data_format="channels_first")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), x.transpose(0, 2, 3, 1).reshape(1, 12))


def test_dropout_training_as_tensor_and_rate_zero():
    x = tf.ones([100, 20])
    t = tf.placeholder(tf.bool, [])
    y = tf.layers.Dropout(0.5, seed=1)(x, training=t)
    z = tf.layers.dropout(x, 0.0, training=True)
    assert z.op.type == "Identity"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {t: False}), np.ones((100, 20)))
        on = sess.run(y, {t: True})
    assert set(np.unique(on)) <= {0.0, 2.0} and 0.4 < (on == 0).mean() < 0.6


# ── batch_normalization: values vs TF 2.21 ───────────────────────────────────────────
def _bn_inputs():
    rng = np.random.RandomState(0)
    x4 = rng.normal(size=(2, 2, 2, 3)).astype(np.float32) * 2 + 1
    x2 = rng.normal(size=(4, 3)).astype(np.float32) * 3 - 1
    return tf.constant(x4), tf.constant(x2)


def _var(name):
    return {v.name: v for v in tf.global_variables()}[name]


def test_batch_normalization_values_names_and_updates():
    a, b = _bn_inputs()
    tr = tf.placeholder(tf.bool, [], name="tr")
    y1 = tf.layers.batch_normalization(a, training=True)
    y2 = tf.layers.batch_normalization(b, training=True, momentum=0.9)
    y3 = tf.layers.batch_normalization(a, training=tr, name="bt")
    y4 = tf.layers.batch_normalization(b, training=tr, name="bt2")
    y5 = tf.layers.batch_normalization(b)
    # TF 2.21 (y3 is bt/cond/Merge there: a cond; scopeflow selects, see the NOTE):
    assert [y1.name, y2.name, y4.name, y5.name] == [
        "batch_normalization/FusedBatchNormV3:0", "batch_normalization_1/batchnorm/add_1:0",
        "bt2/batchnorm/add_1:0", "batch_normalization_2/batchnorm/add_1:0"]
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert [op.name for op in updates[:6]] == [
        "batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1",
        "batch_normalization_1/AssignMovingAvg", "batch_normalization_1/AssignMovingAvg_1",
        "bt/AssignMovingAvg", "bt/AssignMovingAvg_1"]
    assert len(updates) == 8
    assert len(tf.global_variables()) == 20 and len(tf.trainable_variables()) == 10
    close = dict(rtol=1e-5, atol=1e-5)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # TF 2.21:
        train4 = [1.2585049, -0.1030299, 1.01699, 1.9766159, 1.6620337, -0.6522209]
        np.testing.assert_allclose(sess.run(y1).ravel()[:6], train4, **close)
        np.testing.assert_allclose(sess.run(y2)[0], [1.4608089, -1.362975, -0.1788201],
                                   **close)
        sess.run(updates[:4])
        np.testing.assert_allclose(sess.run(_var("batch_normalization/moving_mean:0")),
                                   [0.0285676, 0.0197162, 0.0057402], **close)
        np.testing.assert_allclose(sess.run(_var("batch_normalization/moving_variance:0")),
                                   [1.0101451, 1.0215843, 1.0527618], **close)
        np.testing.assert_allclose(sess.run(_var("batch_normalization_1/moving_mean:0")),
                                   [-0.0807459, -0.0918502, -0.041224], **close)
        np.testing.assert_allclose(sess.run(_var("batch_normalization_1/moving_variance:0")),
                                   [2.95153, 1.9632803, 1.5345402], **close)
        np.testing.assert_allclose(
            sess.run(y3, {tr: False}).ravel()[:6],
            [4.5258427, 1.799415, 2.9559987, 5.4790473, 4.7327504, -0.9540789], **close)
        np.testing.assert_allclose(sess.run(y3, {tr: True}).ravel()[:6], train4, **close)
        sess.run(updates[4:], {tr: False})
        assert sess.run(_var("bt/moving_mean:0")).tolist() == [0.0, 0.0, 0.0]
        assert sess.run(_var("bt2/moving_variance:0")).tolist() == [1.0, 1.0, 1.0]
        sess.run(updates[4:], {tr: True})
        np.testing.assert_allclose(sess.run(_var("bt/moving_variance:0")),
                                   [1.0101451, 1.0215843, 1.0527618], **close)
        np.testing.assert_allclose(sess.run(_var("bt2/moving_mean:0")),
                                   [-0.0080746, -0.009185, -0.0041224], **close)
        np.testing.assert_allclose(sess.run(_var("bt2/moving_variance:0")),
                                   [1.195153, 1.096328, 1.053454], **close)
        np.testing.assert_allclose(sess.run(y4, {tr: True})[0],
                                   [1.4608089, -1.362975, -0.1788201], **close)
        np.testing.assert_allclose(sess.run(y5)[0], [5.8063617, -5.360418, -0.8622934],
                                   **close)
        weights = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        grads = sess.run(tf.gradients(tf.reduce_sum(y2 * y2 * weights), [
            _var("batch_normalization_1/gamma:0"), _var("batch_normalization_1/beta:0")]))
        np.testing.assert_allclose(grads[0], [33.230865, 22.905224, 49.82132], rtol=1e-5)
        np.testing.assert_allclose(grads[1], [-24.657442, 5.974543, -7.235756], rtol=1e-5)
        weights = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3))
        g, gx = sess.run(tf.gradients(tf.reduce_sum(y1 * y1 * weights),
                                      [_var("batch_normalization/gamma:0"), a]))
        np.testing.assert_allclose(g, [98.09053, 193.61472, 230.75003], rtol=1e-5)
        np.testing.assert_allclose(
            gx.ravel()[:5], [-3.5775359, 2.8527048, -7.8802066, -1.277375, -14.71821],
            rtol=1e-5, atol=1e-5)


def test_batch_normalization_axes_center_and_scale():
    rng = np.random.RandomState(1)
    x4 = rng.normal(size=(2, 3, 2, 2)).astype(np.float32)
    x3 = rng.normal(size=(2, 3, 4)).astype(np.float32)
    y1 = tf.layers.batch_normalization(x4, axis=1, training=True, momentum=0.5)
    y2 = tf.layers.batch_normalization(x3, training=True, center=False, scale=False)
    y3 = tf.layers.batch_normalization(x3, axis=[0, 2], training=True)
    # TF 2.21:
    assert [v.name + str(v.shape.as_list()) for v in tf.global_variables()] == [
        "batch_normalization/gamma:0[3]", "batch_normalization/beta:0[3]",
        "batch_normalization/moving_mean:0[3]", "batch_normalization/moving_variance:0[3]",
        "batch_normalization_1/moving_mean:0[4]",
        "batch_normalization_1/moving_variance:0[4]",
        "batch_normalization_2/gamma:0[2, 1, 4]", "batch_normalization_2/beta:0[2, 1, 4]",
        "batch_normalization_2/moving_mean:0[2, 1, 4]",
        "batch_normalization_2/moving_variance:0[2, 1, 4]"]
    assert [y1.op.type, y2.name] == ["FusedBatchNormV3",
                                     "batch_normalization_1/batchnorm/add_1:0"]
    close = dict(rtol=1e-5, atol=1e-5)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r1, r2, r3 = sess.run([y1, y2, y3])
        np.testing.assert_allclose(r1.ravel()[:6], [1.9051886, -0.485509, -0.3961456,
                                                    -0.9786077, 0.8422539, -1.8931468], **close)
        np.testing.assert_allclose(r2.ravel()[:6], [1.7843908, -0.5451364, -0.0701122,
                                                    -1.3423332, -0.0783027, 1.6444806], **close)
        np.testing.assert_allclose(r3.ravel()[:6], [1.3660457, -0.5707512, 1.4034309,
                                                    -1.2827669, -0.3713748, 1.4041754], **close)
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        got = [np.ravel(v)[:4] for v in sess.run(tf.global_variables())]
    expected = [  # TF 2.21:
        [1, 1, 1], [0, 0, 0], [-0.0788216, -0.0548615, 0.0574891],
        [0.9993432, 1.2653804, 1.2162337], [-0.0021876, -0.0038146, -0.0006371, 0.0053159],
        [0.9939269, 0.9930644, 0.9971156, 1.0019397], [1, 1, 1, 1], [0, 0, 0, 0],
        [-0.0001807, -0.0033286, -0.0049527, -0.004484],
        [0.9945151, 0.9937692, 0.990694, 0.9914336]]
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, **close)


def test_batch_normalization_rejects_what_it_lacks():
    with pytest.raises(NotImplementedError, match="renorm"):
        tf.layers.batch_normalization(tf.zeros([2, 3]), renorm=True)
    # TF 2.21: fused=True where the fused op cannot serve falls back to the plain ops.
    y = tf.layers.batch_normalization(tf.zeros([2, 3, 4]), fused=True)
    assert y.name == "batch_normalization/batchnorm/add_1:0"
    assert tf.layers.batch_normalization(tf.zeros([1, 2, 2, 3]), fused=False).name == \
        "batch_normalization_1/batchnorm/add_1:0"


def test_layer_argument_messages():
    # TF 2.21:
    with pytest.raises(TypeError) as info:
        tf.layers.Dense(3, foo=1)
    assert str(info.value) == "('Keyword argument not understood:', 'foo')"
    with pytest.raises(ValueError) as info:
        tf.layers.dense(tf.placeholder(tf.float32, [2, None]), 3)
    assert str(info.value) == ("The last dimension of the inputs to a Dense layer should be "
                               "defined. Found None. Full input shape received: (2, ?)")
    with pytest.raises(ValueError) as info:
        tf.layers.conv2d(tf.placeholder(tf.float32, [1, 4, 4, None]), 3, 2)
    assert str(info.value) == (
        "The channel dimension of the inputs should be defined. The input_shape received is "
        "(1, 4, 4, ?), where axis -1 (0-based) is the channel dimension, which found to be "
        "`None`.")
    with pytest.raises(ValueError) as info:
        tf.layers.max_pooling2d(tf.zeros([1, 4, 4, 1]), 2, 2, padding="full")
    assert str(info.value) == ('The `padding` argument must be a list/tuple or one of "valid", '
                               '"same" (or "causal", only for `Conv1D). Received: full')


# ── conv2d_transpose ─────────────────────────────────────────────────────────────────
def test_conv2d_transpose_names_shapes_values_and_gradients():
    x = np.arange(2 * 3 * 3 * 2, dtype=np.float32).reshape(2, 3, 3, 2) / 10
    init = tf.constant_initializer(
        np.arange(3 * 3 * 4 * 2, dtype=np.float32).reshape(3, 3, 4, 2) / 50 - 0.5)
    p = tf.placeholder(tf.float32, [None, 3, 3, 2])
    y1 = tf.layers.conv2d_transpose(p, 4, 3, strides=2, padding="same", kernel_initializer=init,
                                    bias_initializer=tf.constant_initializer(0.1))
    y2 = tf.layers.conv2d_transpose(x, 4, 3, strides=2, kernel_initializer=init,
                                    activation=tf.nn.relu)
    layer = tf.layers.Conv2DTranspose(4, (3, 2), strides=(1, 2), padding="valid", name="ct")
    y3 = layer(p)
    # TF 2.21:
    assert [y1.name, y2.name, y3.name, layer.kernel.name, layer.name] == [
        "conv2d_transpose/BiasAdd:0", "conv2d_transpose_1/Relu:0", "ct/BiasAdd:0",
        "ct/kernel:0", "ct"]
    assert [t.shape.as_list() for t in (y1, y2, y3, layer.kernel)] == [
        [None, 6, 6, 4], [2, 7, 7, 4], [None, 5, 6, 4], [3, 2, 4, 2]]
    ops = {o.name for o in tf.get_default_graph().get_operations()}
    assert {"conv2d_transpose/Shape", "conv2d_transpose/strided_slice", "conv2d_transpose/stack",
            "conv2d_transpose/conv2d_transpose"} <= ops
    assert tf.get_default_graph().get_operation_by_name(
        "conv2d_transpose/conv2d_transpose").type == "Conv2DBackpropInput"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r1, r2 = sess.run([y1, y2], {p: x})
        kernel = tf.global_variables()[0]
        gp, gk = sess.run(tf.gradients(tf.reduce_sum(y1 * y1), [p, kernel]), {p: x})
    # TF 2.21:
    np.testing.assert_allclose(r1.ravel()[:6], [0.052, 0.056, 0.06, 0.064, 0.068, 0.072],
                               rtol=1e-5)
    np.testing.assert_allclose(r1.ravel()[-3:], [1.412, 1.688, 1.964], rtol=1e-5)
    np.testing.assert_allclose([r1.sum(), r2.sum()], [202.87999, 531.884], rtol=1e-5)
    np.testing.assert_allclose(gp.ravel()[:4], [-4.90368, -5.00032, 0.05632, 0.0064],
                               rtol=1e-4)
    np.testing.assert_allclose(gk.ravel()[:4], [11.481588, 11.01519, 43.0288, 43.8344],
                               rtol=1e-5)
    np.testing.assert_allclose(gk.sum(), 4841.6255, rtol=1e-5)


def test_conv2d_transpose_under_reuse():
    z = tf.placeholder(tf.float32, [None, 2, 2, 3])
    outs = []
    for reuse in (None, True):
        with tf.variable_scope("gen", reuse=reuse):
            outs.append(tf.layers.conv2d_transpose(z, 2, 3, strides=2, padding="same").name)
    assert outs == ["gen/conv2d_transpose/BiasAdd:0", "gen_1/conv2d_transpose/BiasAdd:0"]
    assert [v.name for v in tf.global_variables()] == ["gen/conv2d_transpose/kernel:0",
                                                       "gen/conv2d_transpose/bias:0"]
