"""tf.nn.conv1d / separable_conv2d and tf.layers.Conv1D / SeparableConv2D against TF 2.21.

The expected values were computed by TF 2.21 (tensorflow.compat.v1, graph mode) from the
same inputs and weights as below (fixed arrays, constant initializers).
"""

import numpy as np
import pytest

import scopeflow as tf

X = np.arange(2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3) / 10 - 1
W = np.arange(2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2) / 7 - 0.8
X4 = np.arange(1 * 4 * 4 * 2, dtype=np.float32).reshape(1, 4, 4, 2) / 10 - 1
DW = np.arange(2 * 2 * 2 * 2, dtype=np.float32).reshape(2, 2, 2, 2) / 7 - 0.8
PW = np.arange(4 * 3, dtype=np.float32).reshape(1, 1, 4, 3) / 5 - 1

# TF 2.21: CONV1D_SAME
CONV1D_SAME = np.array([[[ 0.8857142,  0.2428572],
  [ 0.5771429,  0.4485714],
  [-0.4057143, -0.2771429]],

 [[ 0.1142858,  0.7571427],
  [-0.1942855,  0.9628569],
  [-2.72     , -1.9485714]]], np.float32)

# TF 2.21: CONV1D_DIL
CONV1D_DIL = np.array([[[1.1942856, 0.6800001],
  [1.04     , 0.7828572],
  [0.8857143, 0.8857142]],

 [[0.4228572, 1.1942856],
  [0.2685715, 1.2971426],
  [0.114286 , 1.3999999]]], np.float32)

# TF 2.21: CONV1D_GX
CONV1D_GX = np.array([[[-1.7363266, -1.0914284, -0.4465306],
  [ 0.1983674,  0.8432654,  1.4881632],
  [-1.5129797, -0.9268571, -0.3407347],
  [ 0.2453877,  0.8315103,  1.4176327],
  [ 1.0133878,  0.6231837,  0.2329796]],

 [[-1.1779591, -0.6799999, -0.1820408],
  [ 0.3159183,  0.8138774,  1.3118365],
  [-0.9546122, -0.5154286, -0.0762449],
  [ 0.3629387,  0.8021223,  1.2413058],
  [ 6.91298  ,  4.2452245,  1.5774692]]], np.float32)

# TF 2.21: CONV1D_GW
CONV1D_GW = np.array([[[-11.956571 ,  -4.7051444],
  [-12.305141 ,  -4.6680007],
  [-12.653714 ,  -4.6308584]],

 [[ -1.7165707,   3.4777133],
  [ -1.4399993,   3.9599986],
  [ -1.1634277,   4.4422846]]], np.float32)

# TF 2.21: SEP_SAME
SEP_SAME = np.array([[[[-0.8685714, -0.4137143,  0.0411429],
   [-0.6125716,  0.0159998,  0.6445714],
   [-0.3565715,  0.4457141,  1.2479999],
   [-0.1485714,  0.2274286,  0.6034286]],

  [[ 0.1554288,  1.305143 ,  2.4548573],
   [ 0.4114284,  1.7348567,  3.0582852],
   [ 0.6674284,  2.1645713,  3.661714 ],
   [ 0.5462856,  0.9039999,  1.2617142]],

  [[ 1.1794288,  3.024    ,  4.8685718],
   [ 1.4354286,  3.4537144,  5.472    ],
   [ 1.6914287,  3.8834283,  6.075429 ],
   [ 1.2411427,  1.5805714,  1.9199998]],

  [[ 1.6000001,  0.913143 ,  0.2262859],
   [ 1.8194284,  1.0365714,  0.2537142],
   [ 2.038857 ,  1.1599998,  0.2811427],
   [ 1.2857143,  0.3308573, -0.624    ]]]], np.float32)

# TF 2.21: SEP_RATE2
SEP_RATE2 = np.array([[[[-0.6400002,  1.0719998,  2.7839997],
   [-0.3840002,  1.501714 ,  3.3874285]],

  [[ 0.3840002,  2.790857 ,  5.197715 ],
   [ 0.6399997,  3.220571 ,  5.8011427]]]], np.float32)

# TF 2.21: SEP_GX
SEP_GX = np.array([[[[ -2.4451396,   1.1103346],
   [ -1.2694995,  -0.9604174],
   [  0.9889431,  -1.961221 ],
   [  0.9475003,  -0.2929504]],

  [[  5.9242067,  -7.363762 ],
   [ 11.203081 ,  -7.760978 ],
   [ 10.462041 ,  -0.8767759],
   [  4.4745398,   8.142236 ]],

  [[  9.70005  ,  -2.481161 ],
   [  8.238915 ,  19.775843 ],
   [  7.497875 ,  26.660046 ],
   [ -0.6325021,  32.59828  ]],

  [[ -0.4892863,  17.949244 ],
   [-13.578164 ,  58.327644 ],
   [-15.72219  ,  65.99855  ],
   [-17.551981 ,  57.914284 ]]]], np.float32)

# TF 2.21: SEP_GD
SEP_GD = np.array([[[[ -81.1862  ,  -21.353783],
   [  44.476982,  112.145256]],

  [[ -82.843605,  -19.714832],
   [  48.67255 ,  118.54176 ]]],


 [[[-111.3867  ,  -19.24809 ],
   [  78.32741 ,  177.06328 ]],

  [[-104.659744,  -16.892159],
   [  75.57559 ,  168.96411 ]]]], np.float32)

# TF 2.21: SEP_GP
SEP_GP = np.array([[[[-12.625187 ,  27.522036 ,  67.669266 ],
   [  2.9308567,  51.55912  , 100.18739  ],
   [ 18.908726 ,  79.62249  , 140.33626  ],
   [ 35.33024  , 105.78611  , 176.242    ]]]], np.float32)

# TF 2.21: LAYER_CONV1D
LAYER_CONV1D = np.array([[[0.9857142, 0.0428572],
  [0.6771429, 0.2485714],
  [0.       , 0.       ]],

 [[0.2142858, 0.5571427],
  [0.       , 0.7628569],
  [0.       , 0.       ]]], np.float32)

# TF 2.21: LAYER_CAUSAL
LAYER_CAUSAL = np.array([[[-0.8685715, -1.2542857],
  [-0.5600001, -0.8171428],
  [ 1.1942856,  0.6800001],
  [ 1.04     ,  0.7828572],
  [ 0.8857143,  0.8857142]],

 [[ 0.6742858,  0.9314286],
  [ 0.9828572,  1.3685713],
  [ 0.4228572,  1.1942856],
  [ 0.2685715,  1.2971426],
  [ 0.114286 ,  1.3999999]]], np.float32)

# TF 2.21: LAYER_SEP
LAYER_SEP = np.array([[[[-0.7685714, -0.2137143,  0.3411429],
   [-0.5125716,  0.2159998,  0.9445714],
   [-0.2565715,  0.6457141,  1.5479999],
   [-0.0485714,  0.4274285,  0.9034286]],

  [[ 0.2554288,  1.505143 ,  2.7548573],
   [ 0.5114284,  1.9348568,  3.3582852],
   [ 0.7674285,  2.3645713,  3.961714 ],
   [ 0.6462857,  1.1039999,  1.5617142]],

  [[ 1.2794288,  3.224    ,  5.168572 ],
   [ 1.5354286,  3.6537144,  5.7720003],
   [ 1.7914287,  4.0834284,  6.375429 ],
   [ 1.3411428,  1.7805715,  2.2199998]],

  [[ 1.7000002,  1.1131431,  0.5262859],
   [ 1.9194285,  1.2365714,  0.5537143],
   [ 2.138857 ,  1.3599999,  0.5811428],
   [ 1.3857143,  0.5308573, -0.3239999]]]], np.float32)

# TF 2.21: LAYER_SEP_DIL
LAYER_SEP_DIL = np.array([[[[-0.6400002,  1.0719998,  2.7839997],
   [-0.3840002,  1.501714 ,  3.3874285]],

  [[ 0.3840002,  2.790857 ,  5.197715 ],
   [ 0.6399997,  3.220571 ,  5.8011427]]]], np.float32)

# TF 2.21: LG_K
LG_K = np.array([[[-2.298857 ,  1.9508562],
  [-1.9234284,  2.2731419],
  [-1.5479997,  2.5954275]],

 [[-1.1725713,  2.9177132],
  [-0.7971427,  3.2399988],
  [-0.4217141,  3.5622845]]], np.float32)

# TF 2.21: LG_B
LG_B = np.array([3.7542856, 3.2228565], np.float32)

# TF 2.21: LG_DK
LG_DK = np.array([[[[ -88.2262  ,  -22.633781],
   [  49.852985,  124.43325 ]],

  [[ -89.17961 ,  -20.866833],
   [  53.37655 ,  129.29375 ]]],


 [[[-120.8907  ,  -20.97609 ],
   [  85.04741 ,  192.42328 ]],

  [[-112.57975 ,  -18.332157],
   [  81.11959 ,  181.63612 ]]]], np.float32)

# TF 2.21: LG_PK
LG_PK = np.array([[[[-11.848043 ,  29.07632  ,  70.000694 ],
   [  4.7080007,  55.113403 , 105.51883  ],
   [ 21.90187  ,  85.60877  , 149.31569  ],
   [ 39.463387 , 114.0524   , 188.64142  ]]]], np.float32)

# TF 2.21: LG_SB
LG_SB = np.array([27.37143, 49.93257, 72.49371], np.float32)

# TF 2.21: LG_CK
LG_CK = np.array([[[-3.4491417,  3.1851418],
  [-2.6639988,  4.4331417],
  [-1.8788561,  5.681142 ]],

 [[ 6.029716 , 17.446856 ],
  [ 6.860573 , 18.74057  ],
  [ 7.69143  , 20.034285 ]]], np.float32)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def _op_names():
    return [(op.name, op.type) for op in tf.get_default_graph().get_operations()]


def test_conv1d_values_gradients_and_names():
    x, w = tf.constant(X), tf.constant(W)
    y = tf.nn.conv1d(x, w, stride=2, padding="SAME")
    y2 = tf.nn.conv1d(input=x, filters=w, stride=1, padding="VALID", dilations=2)
    gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
    # TF 2.21: the ops of both calls.
    assert _op_names()[2:14] == [
        ("conv1d/ExpandDims/dim", "Const"), ("conv1d/ExpandDims", "ExpandDims"),
        ("conv1d/ExpandDims_1/dim", "Const"), ("conv1d/ExpandDims_1", "ExpandDims"),
        ("conv1d", "Conv2D"), ("conv1d/Squeeze", "Squeeze"),
        ("conv1d_1/ExpandDims/dim", "Const"), ("conv1d_1/ExpandDims", "ExpandDims"),
        ("conv1d_1/ExpandDims_1/dim", "Const"), ("conv1d_1/ExpandDims_1", "ExpandDims"),
        ("conv1d_1", "Conv2D"), ("conv1d_1/Squeeze", "Squeeze")]
    assert y.shape.as_list() == [2, 3, 2] and y2.shape.as_list() == [2, 3, 2]
    conv = tf.get_default_graph().get_operation_by_name("conv1d")
    assert conv.get_attr("strides") == [1, 1, 2, 1]
    got = _run([y, y2, gx, gw])
    for g, want in zip(got, [CONV1D_SAME, CONV1D_DIL, CONV1D_GX, CONV1D_GW]):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)


def test_conv1d_value_keyword_ncw_and_errors():
    y = tf.nn.conv1d(value=tf.zeros([2, 3, 5]), filters=tf.zeros([2, 3, 4]), stride=[2],
                     padding="VALID", data_format="NCW", name="c")
    # TF 2.21: NCW runs as NCHW with the inserted axis 2; strides [1, 1, 1, s].
    conv = tf.get_default_graph().get_operation_by_name("c")
    assert conv.get_attr("data_format") in (b"NCHW", "NCHW")
    assert conv.get_attr("strides") == [1, 1, 1, 2]
    assert y.name == "c/Squeeze:0" and y.shape.as_list() == [2, 4, 2]
    with pytest.raises(ValueError):
        tf.nn.conv1d(tf.zeros([1, 4, 1]), tf.zeros([2, 1, 1]), 1, "VALID", data_format="NHW")
    with pytest.raises(ValueError):
        tf.nn.conv1d(value=tf.zeros([1, 4, 1]), input=tf.zeros([1, 4, 1]),
                     filters=tf.zeros([2, 1, 1]), stride=1, padding="VALID")


def test_separable_conv2d_values_gradients_and_names():
    x, dw, pw = tf.constant(X4), tf.constant(DW), tf.constant(PW)
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
    y2 = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "VALID", rate=[2, 2])
    gx, gd, gp = tf.gradients(tf.reduce_sum(y * y), [x, dw, pw])
    # TF 2.21 (rate 1; with rate 2 TF adds SpaceToBatchND/BatchToSpaceND around the
    # depthwise op, scopeflow dilates it directly).
    assert _op_names()[3:7] == [
        ("separable_conv2d/Shape", "Const"), ("separable_conv2d/dilation_rate", "Const"),
        ("separable_conv2d/depthwise", "DepthwiseConv2dNative"),
        ("separable_conv2d", "Conv2D")]
    assert y.name == "separable_conv2d:0" and y2.name == "separable_conv2d_1:0"
    got = _run([y, y2, gx, gd, gp])
    for g, want in zip(got, [SEP_SAME, SEP_RATE2, SEP_GX, SEP_GD, SEP_GP]):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        tf.nn.separable_conv2d(x, dw, tf.zeros([2, 1, 4, 3]), [1, 1, 1, 1], "VALID")


def test_layers_values_gradients_and_variable_names():
    x, x4 = tf.constant(X), tf.constant(X4)
    with tf.variable_scope("L"):
        ly = tf.layers.conv1d(x, 2, 2, strides=2, padding="same",
                              kernel_initializer=tf.constant_initializer(W),
                              bias_initializer=tf.constant_initializer([0.1, -0.2]),
                              activation=tf.nn.relu)
        lc = tf.layers.conv1d(x, 2, 2, padding="causal", dilation_rate=2,
                              kernel_initializer=tf.constant_initializer(W), name="causal")
        lz = tf.layers.separable_conv2d(
            x4, 3, 2, padding="same", depth_multiplier=2,
            depthwise_initializer=tf.constant_initializer(DW),
            pointwise_initializer=tf.constant_initializer(PW),
            bias_initializer=tf.constant_initializer([0.1, 0.2, 0.3]))
        lz2 = tf.layers.SeparableConv2D(3, 2, depth_multiplier=2, dilation_rate=2,
                                        depthwise_initializer=tf.constant_initializer(DW),
                                        pointwise_initializer=tf.constant_initializer(PW))(x4)
    vs = {v.op.name: v for v in tf.global_variables()}
    # TF 2.21: the variables, in creation order, and their shapes.
    assert [(v.op.name, v.shape.as_list()) for v in tf.global_variables()] == [
        ("L/conv1d/kernel", [2, 3, 2]), ("L/conv1d/bias", [2]),
        ("L/causal/kernel", [2, 3, 2]), ("L/causal/bias", [2]),
        ("L/separable_conv2d/depthwise_kernel", [2, 2, 2, 2]),
        ("L/separable_conv2d/pointwise_kernel", [1, 1, 4, 3]),
        ("L/separable_conv2d/bias", [3]),
        ("L/separable_conv2d_1/depthwise_kernel", [2, 2, 2, 2]),
        ("L/separable_conv2d_1/pointwise_kernel", [1, 1, 4, 3]),
        ("L/separable_conv2d_1/bias", [3])]
    # TF 2.21: output names.
    assert (ly.name, lc.name, lz.name, lz2.name) == (
        "L/conv1d/Relu:0", "L/causal/BiasAdd:0", "L/separable_conv2d/BiasAdd:0",
        "L/separable_conv2d_1/BiasAdd:0")
    names = {name for name, _ in _op_names()}
    # TF 2.21: the ops under the layer scopes (dilation-free cases).
    assert {"L/conv1d/Conv1D/ExpandDims", "L/conv1d/Conv1D/ExpandDims_1", "L/conv1d/Conv1D",
            "L/conv1d/Conv1D/Squeeze", "L/conv1d/BiasAdd", "L/causal/Pad",
            "L/separable_conv2d/separable_conv2d/depthwise",
            "L/separable_conv2d/separable_conv2d", "L/separable_conv2d/BiasAdd"} <= names
    lg = tf.gradients(tf.reduce_sum(ly * ly) + tf.reduce_sum(lz * lz) + tf.reduce_sum(lc * lc),
                      [vs["L/conv1d/kernel"], vs["L/conv1d/bias"],
                       vs["L/separable_conv2d/depthwise_kernel"],
                       vs["L/separable_conv2d/pointwise_kernel"],
                       vs["L/separable_conv2d/bias"], vs["L/causal/kernel"]])
    got = _run([ly, lc, lz, lz2, *lg])
    want = [LAYER_CONV1D, LAYER_CAUSAL, LAYER_SEP, LAYER_SEP_DIL, LG_K, LG_B, LG_DK, LG_PK,
            LG_SB, LG_CK]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_layer_objects_share_and_functions_reuse():
    x = tf.constant(X)
    layer = tf.layers.Conv1D(2, 2, kernel_initializer=tf.constant_initializer(W), name="c1")
    a, b = layer(x), layer(x)
    # TF 2.21: one kernel and bias; the second call's ops numbered.
    assert (a.name, b.name) == ("c1/BiasAdd:0", "c1/BiasAdd_1:0")
    assert b.op.inputs[0].op.name == "c1/Conv1D_1/Squeeze"
    assert [v.op.name for v in layer.trainable_weights] == ["c1/kernel", "c1/bias"]
    tf.layers.conv1d(x, 2, 2, name="f")
    tf.layers.conv1d(x, 2, 2, name="f", reuse=True)
    x4 = tf.constant(X4)
    sep = tf.layers.SeparableConv2D(3, 2)
    sep(x4)
    sep(x4)
    tf.layers.separable_conv2d(x4, 3, 2, name="s")
    tf.layers.separable_conv2d(x4, 3, 2, name="s", reuse=True)
    assert [v.op.name for v in tf.trainable_variables()] == [
        "c1/kernel", "c1/bias", "f/kernel", "f/bias", "separable_conv2d/depthwise_kernel",
        "separable_conv2d/pointwise_kernel", "separable_conv2d/bias", "s/depthwise_kernel",
        "s/pointwise_kernel", "s/bias"]
    np.testing.assert_allclose(*_run([a, b]), rtol=0, atol=0)
    with pytest.raises(ValueError):
        tf.layers.conv1d(x, 2, 2, name="f")
