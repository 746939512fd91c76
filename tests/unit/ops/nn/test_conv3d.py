"""3-D convolution and pooling (scopeflow/ops/nn/conv3d_ops.py, tf.layers' 3-D layers) against
TensorFlow's values, hard-coded (TF 2.21, TF1 semantics) so the tests run without TF."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.framework import errors

# x, w, r of the convolution cases: small integers, exact in float32.
_X = np.arange(18, dtype=np.float32).reshape(1, 3, 3, 2, 1) % 5 - 2
_W = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 1, 2) % 3 - 1
_R = np.arange(12, dtype=np.float32).reshape(1, 2, 3, 1, 2) % 4 - 1.5
# Pooling input with many tied maxima.
_P = np.array([1, 3, 3, 2, 3, 1, 0, 3, 2, 3, 3, 1], np.float32).reshape(1, 2, 3, 2, 1)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_conv3d_values_and_gradients_match_tf():
    tf.reset_default_graph()
    x, w = tf.constant(_X), tf.constant(_W)
    y = tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME")
    gx, gw = tf.gradients(tf.reduce_sum(y * _R), [x, w])
    assert y.shape.as_list() == [1, 2, 3, 1, 2]
    assert gx.op.name == "gradients/Conv3D_grad/Conv3DBackpropInputV2"
    assert gw.op.name == "gradients/Conv3D_grad/Conv3DBackpropFilterV2"
    assert gx.op.inputs[0].op.type == "ShapeN"
    vy, vgx, vgw = _run([y, gx, gw])
    # TF 2.21: tf.nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME") and tf.gradients of sum(y * r)
    np.testing.assert_allclose(vy.ravel(), [0, 0, 5, 3, -6, 3, 3, 1, -4, 1, 1, 0], atol=1e-5)
    np.testing.assert_allclose(vgx.ravel(), [1.5, -1, -1, 0.5, 3, -1.5, -1, -0.5, 0.5, 0.5,
                                             -1.5, -1.5, -0.5, -1, 3, -1.5, -1, 0.5], atol=1e-5)
    np.testing.assert_allclose(vgw.ravel(), [-3.5, -2.5, 8.5, 5.5, 3.5, 6.5, -3.5, -6.5, 5, 3,
                                             2.5, 3.5, -2.5, -3.5, -3.5, -2.5], atol=1e-5)


def test_conv3d_valid_matches_tf():
    tf.reset_default_graph()
    y = tf.nn.conv3d(tf.constant(_X), tf.constant(_W), [1, 1, 1, 1, 1], "VALID")
    assert y.shape.as_list() == [1, 2, 2, 1, 2]
    # TF 2.21: [0, 0, 5, 3, -5, 4, 5, -8]
    np.testing.assert_allclose(_run(y).ravel(), [0, 0, 5, 3, -5, 4, 5, -8], atol=1e-5)


def test_conv3d_graph_def_attrs_are_tfs():
    tf.reset_default_graph()
    tf.nn.conv3d(tf.constant(_X), tf.constant(_W), [1, 1, 1, 1, 1], "VALID")
    node = tf.get_default_graph().as_graph_def().node[-1]
    # TF 2.21: strides, padding, dilations, data_format "NDHWC", T
    assert node.op == "Conv3D"
    assert sorted(node.attr) == ["T", "data_format", "dilations", "padding", "strides"]
    assert node.attr["data_format"].s == b"NDHWC"
    assert list(node.attr["dilations"].list.i) == [1, 1, 1, 1, 1]


def test_conv3d_ncdhw_static_shape_and_cpu_refusals_as_tf():
    tf.reset_default_graph()
    x, w = tf.ones([1, 4, 4, 4, 2]), tf.ones([2, 2, 2, 2, 2])
    y = tf.nn.conv3d(x, w, [1, 1, 1, 1, 1], "SAME", data_format="NCDHW")
    assert y.shape.as_list() == [1, 2, 4, 4, 2]  # TF 2.21: (1, 2, 4, 4, 2)
    with pytest.raises(errors.InvalidArgumentError,
                       match="CPU implementation of Conv3D currently only supports the NHWC "
                             "tensor format."):
        _run(y)
    d = tf.nn.conv3d(tf.ones([1, 6, 5, 5, 2]), w, [1, 1, 1, 1, 1], "SAME",
                     dilations=[1, 2, 1, 2, 1])
    assert d.shape.as_list() == [1, 6, 5, 5, 2]
    with pytest.raises(errors.InvalidArgumentError,
                       match="CPU implementation of Conv3D currently only supports dilated "
                             "rates of 1."):
        _run(d)


def test_max_pool3d_gradient_goes_to_every_tied_max_as_tf():
    tf.reset_default_graph()
    x = tf.constant(_P)
    m = tf.nn.max_pool3d(x, 2, 1, "VALID")
    g = tf.gradients(tf.reduce_sum(m * np.array([1.0, -2.0], np.float32).reshape(1, 1, 2, 1, 1)),
                     x)[0]
    assert g.op.name == "gradients/MaxPool3D_grad/MaxPool3DGrad"
    vm, vg = _run([m, g])
    # TF 2.21: max [3, 3]; the gradient goes to every 3 of each window
    np.testing.assert_array_equal(vm.ravel(), [3, 3])
    np.testing.assert_array_equal(vg.ravel(), [0, 1, -1, 0, -2, 0, 0, 1, 0, -1, -2, 0])


def test_avg_pool3d_same_values_and_gradient_match_tf():
    tf.reset_default_graph()
    x = tf.constant(_P)
    a = tf.nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME")
    ra = (np.arange(12, dtype=np.float32).reshape(1, 2, 3, 2, 1) % 5 - 2)[:, :, :2]
    g = tf.gradients(tf.reduce_sum(a * ra), x)[0]
    assert a.shape.as_list() == [1, 2, 2, 2, 1]
    assert g.op.name == "gradients/AvgPool3D_grad/AvgPool3DGrad"
    va, vg = _run([a, g])
    # TF 2.21: SAME edge windows average their real elements only
    np.testing.assert_allclose(va.ravel(), [2.125, 2.75, 2, 1, 2, 3, 2, 1], atol=1e-6)
    np.testing.assert_allclose(vg.ravel(), [-0.25, -0.5, -0.25, -0.5, 0, 0.5, -0.5, -0.75,
                                            -0.5, -0.75, 0.5, 3], atol=1e-6)


def test_pool3d_refusals_as_tf():
    tf.reset_default_graph()
    # TF 2.21: TypeError "... has DataType float64 not in list of allowed values: ..."
    with pytest.raises(TypeError, match="Value passed to parameter 'input' has DataType "
                                        "float64 not in list of allowed values"):
        tf.nn.max_pool3d(tf.constant(_P.astype(np.float64)), 2, 1, "VALID")
    p = tf.nn.max_pool3d(tf.ones([1, 4, 4, 4, 2]), 2, 2, "SAME", data_format="NCDHW")
    assert p.shape.as_list() == [1, 4, 2, 2, 1]  # TF 2.21: (1, 4, 2, 2, 1)
    with pytest.raises(errors.InvalidArgumentError,
                       match="Default Pooling3DOp only supports NDHWC on device type CPU"):
        _run(p)


def test_3d_layers_names_shapes_and_values_match_tf():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [1, 3, 4, 2, 1])
    kernel = np.linspace(-1, 1, 2 * 3 * 2 * 1 * 2).reshape(2, 3, 2, 1, 2)
    y = tf.layers.conv3d(x, 2, (2, 3, 2), strides=(1, 2, 1), padding="same",
                         activation=tf.nn.relu,
                         kernel_initializer=tf.constant_initializer(kernel),
                         bias_initializer=tf.constant_initializer(0.1))
    z = tf.layers.max_pooling3d(y, 2, 2)
    a = tf.layers.average_pooling3d(y, (2, 1, 2), (1, 1, 2), padding="same")
    q = tf.layers.Conv3D(3, 2, name="c")(x)
    r = tf.layers.MaxPooling3D(2, 1)(x)
    s = tf.layers.AveragePooling3D(2, 1)(x)
    g = tf.get_default_graph()
    # TF 2.21: op and variable names of the same graph
    names = sorted(f"{o.name}:{o.type}" for o in g.get_operations()
                   if o.type in ("Conv3D", "BiasAdd", "MaxPool3D", "AvgPool3D", "Relu"))
    assert names == [
        "average_pooling3d/AvgPool3D:AvgPool3D", "average_pooling3d_1/AvgPool3D:AvgPool3D",
        "c/BiasAdd:BiasAdd", "c/Conv3D:Conv3D", "conv3d/BiasAdd:BiasAdd",
        "conv3d/Conv3D:Conv3D", "conv3d/Relu:Relu", "max_pooling3d/MaxPool3D:MaxPool3D",
        "max_pooling3d_1/MaxPool3D:MaxPool3D"]
    assert [(v.op.name, v.shape.as_list()) for v in tf.global_variables()] == [
        ("conv3d/kernel", [2, 3, 2, 1, 2]), ("conv3d/bias", [2]),
        ("c/kernel", [2, 2, 2, 1, 3]), ("c/bias", [3])]
    assert [t.shape.as_list() for t in (y, z, a, q, r, s)] == [
        [1, 3, 2, 2, 2], [1, 1, 1, 1, 2], [1, 3, 2, 1, 2], [1, 2, 3, 1, 3], [1, 2, 3, 1, 1],
        [1, 2, 3, 1, 1]]
    xv = np.arange(24, dtype=np.float32).reshape(1, 3, 4, 2, 1) % 7 - 3
    vy, vz, va = _run([y, z, a], {x: xv})
    # TF 2.21: the same layers with these initializers
    np.testing.assert_allclose(vy.ravel(), _TF_LAYER_Y, atol=1e-5)
    np.testing.assert_allclose(vz.ravel(), _TF_LAYER_Z, atol=1e-5)
    np.testing.assert_allclose(va.ravel(), _TF_LAYER_A, atol=1e-5)


# TF 2.21: the layer test's conv3d (relu), max_pooling3d and average_pooling3d outputs
_TF_LAYER_Y = [9.317392, 9.317392, 4.056522, 4.317391, 0.0, 0.0, 0.0, 0.0, 2.404348, 2.839131,
               0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.360869, 1.1, 3.752174,
               3.404348]
_TF_LAYER_Z = [9.317392, 9.317392]
_TF_LAYER_A = [3.944566, 4.118479, 0.0, 0.0, 0.601087, 0.709783, 1.278261, 1.126087, 0.0, 0.0,
               2.556522, 2.252174]


# ── conv3d_transpose ─────────────────────────────────────────────────────────────────
def test_conv3d_transpose_values_gradients_and_names_match_tf():
    tf.reset_default_graph()
    # The transpose of test_conv3d_values_and_gradients_match_tf's conv3d: r in, x out.
    r, w = tf.constant(_R), tf.constant(_W)
    y = tf.nn.conv3d_transpose(r, w, [1, 3, 3, 2, 1], [1, 2, 1, 2, 1], "SAME")
    # TF 2.21: Tensor("conv3d_transpose:0", shape=(1, 3, 3, 2, 1)), a Conv3DBackpropInputV2
    # reading conv3d_transpose/input_sizes
    assert y.name == "conv3d_transpose:0" and y.op.type == "Conv3DBackpropInputV2"
    assert y.shape.as_list() == [1, 3, 3, 2, 1]
    assert y.op.inputs[0].name == "conv3d_transpose/input_sizes:0"
    gr, gw = tf.gradients(tf.reduce_sum(y * _X), [r, w])
    assert gr.op.name == "gradients/conv3d_transpose_grad/Conv3D"
    assert gw.op.name == "gradients/conv3d_transpose_grad/Conv3DBackpropFilterV2"
    v = tf.nn.conv3d_transpose(r, w, [1, 3, 4, 2, 1], [1, 1, 1, 1, 1], "VALID", name="deconv")
    assert v.name == "deconv:0" and v.shape.as_list() == [1, 3, 4, 2, 1]
    vy, vgr, vgw, vv = _run([y, gr, gw, v])
    # TF 2.21: the adjoint of the conv3d case: y is its gx, gr its y, gw its gw
    np.testing.assert_allclose(vy.ravel(), [1.5, -1, -1, 0.5, 3, -1.5, -1, -0.5, 0.5, 0.5,
                                            -1.5, -1.5, -0.5, -1, 3, -1.5, -1, 0.5], atol=1e-5)
    np.testing.assert_allclose(vgr.ravel(), [0, 0, 5, 3, -6, 3, 3, 1, -4, 1, 1, 0], atol=1e-5)
    np.testing.assert_allclose(vgw.ravel(), [-3.5, -2.5, 8.5, 5.5, 3.5, 6.5, -3.5, -6.5, 5, 3,
                                             2.5, 3.5, -2.5, -3.5, -3.5, -2.5], atol=1e-5)
    np.testing.assert_allclose(vv.ravel(), [1.5, -1, -1, 0.5, 3, -1.5, -0.5, 1.5, -1.5, -1.5,
                                            3.5, -1, -2.5, -1, 3, -1.5, -1, 1.5, -1.5, -1.5,
                                            0.5, 0.5, -0.5, -1], atol=1e-5)


def test_conv3d_transpose_rejects_a_rank_4_output_shape_as_tf():
    tf.reset_default_graph()
    with pytest.raises(ValueError, match=r"Shape must be rank 5 but is rank 4 for "
                                         r"'conv3d_transpose' \(op: 'Conv3DBackpropInputV2'\)"):
        tf.nn.conv3d_transpose(tf.constant(_R), tf.constant(_W), [1, 3, 3, 2],
                               [1, 2, 1, 2, 1], "SAME")


_TK = np.arange(24, dtype=np.float32).reshape(2, 2, 1, 3, 2) % 3 - 1
_TX = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 2, 2) % 5 - 2


def test_conv3d_transpose_layer_names_shapes_and_values_match_tf():
    tf.reset_default_graph()
    x = tf.constant(_TX)
    y = tf.layers.conv3d_transpose(
        x, 3, (2, 2, 1), strides=(2, 1, 2), padding="same",
        kernel_initializer=tf.constant_initializer(_TK),
        bias_initializer=tf.constant_initializer([0.5, -1., 2.]), activation=tf.nn.relu)
    u = tf.layers.conv3d_transpose(x, 3, (2, 2, 1), strides=(2, 1, 2), padding="valid",
                                   name="up", kernel_initializer=tf.constant_initializer(_TK),
                                   use_bias=False)
    layer = tf.layers.Conv3DTranspose(3, 2)
    p = tf.placeholder(tf.float32, [None, 2, None, 2, 2])
    z = layer(p)
    # TF 2.21 (tf_keras legacy layers): names, static shapes, variables
    assert y.name == "conv3d_transpose/Relu:0" and y.shape.as_list() == [1, 4, 3, 4, 3]
    assert y.op.inputs[0].op.inputs[0].name == "conv3d_transpose/conv3d_transpose:0"
    assert u.name == "up/conv3d_transpose:0" and u.shape.as_list() == [1, 4, 4, 4, 3]
    assert z.name == "conv3d_transpose_1/BiasAdd:0"
    assert z.shape.as_list() == [None, 3, None, 3, 3]
    assert [(v.op.name, v.shape.as_list()) for v in tf.global_variables()] == [
        ("conv3d_transpose/kernel", [2, 2, 1, 3, 2]), ("conv3d_transpose/bias", [3]),
        ("up/kernel", [2, 2, 1, 3, 2]), ("conv3d_transpose_1/kernel", [2, 2, 2, 3, 2]),
        ("conv3d_transpose_1/bias", [3])]
    assert layer.kernel.name == "conv3d_transpose_1/kernel:0"
    gx = tf.gradients(tf.reduce_sum(u * u), [x])[0]
    vy, vu, vgx, vz = _run([y, u, gx, tf.shape(z)], {p: np.zeros([2, 2, 5, 2, 2])})
    # TF 2.21: these sums and slices of the outputs, and the whole input gradient
    assert (vy.sum(), (vy * vy).sum(), vu.sum(), (vu * vu).sum()) == (154, 360, 0, 324)
    np.testing.assert_allclose(vy[0, 1, 2], [[0, 2, 2], [0.5, 0, 2], [3.5, 0, 1], [0.5, 0, 2]])
    np.testing.assert_allclose(vu[0, 3, 1], [[1, -2, 1], [0, 0, 0], [-3, 3, 0], [0, 0, 0]])
    np.testing.assert_allclose(vgx.ravel(), [0, -24, -16, 20, 36, -36, -32, 16, 24, 0, -32, 4,
                                             -16, 20, 48, -36, -32, 16, 20, 8, -32, 4, -8, 28])
    assert vz.tolist() == [2, 3, 6, 3, 3]
