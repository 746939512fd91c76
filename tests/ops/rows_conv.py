"""Op-table rows for scopeflow/ops/nn/conv_ops.py and pool_ops.py, against naive loop references
(NumPy).

The references walk every output position explicitly (no im2col, no strides tricks), so
they check the kernels' padding arithmetic independently. Shapes stay tiny: each row's
numeric gradient check perturbs the inputs one element at a time.
"""

from __future__ import annotations

import itertools

import numpy as np

from .op_table import OpCase, rand

f32, f64, i32 = np.float32, np.float64, np.int32


def _geom(size, k, s, d, padding):
    ek = (k - 1) * d + 1
    if padding == "VALID":
        return (size - ek) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + ek - size, 0) // 2


def _windows(x_shape, k_shape, strides, padding, dilations=(1, 1, 1, 1)):
    """Yields (out index (i, j), [(tap (a, b), input index (h, w))...]) for valid taps."""
    (_, h, w, _), (kh, kw) = x_shape, k_shape
    oh, ph = _geom(h, kh, strides[1], dilations[1], padding)
    ow, pw = _geom(w, kw, strides[2], dilations[2], padding)
    for i, j in itertools.product(range(oh), range(ow)):
        taps = []
        for a, b in itertools.product(range(kh), range(kw)):
            r = i * strides[1] + a * dilations[1] - ph
            c = j * strides[2] + b * dilations[2] - pw
            if 0 <= r < h and 0 <= c < w:
                taps.append(((a, b), (r, c)))
        yield (i, j), taps, (oh, ow)


def _out_hw(x_shape, k_shape, strides, padding, dilations=(1, 1, 1, 1)):
    return next(_windows(x_shape, k_shape, strides, padding, dilations))[2]


def ref_conv(x, w, strides, padding, dilations=(1, 1, 1, 1)):
    oh, ow = _out_hw(x.shape, w.shape[:2], strides, padding, dilations)
    y = np.zeros((x.shape[0], oh, ow, w.shape[3]), np.float64)
    for (i, j), taps, _ in _windows(x.shape, w.shape[:2], strides, padding, dilations):
        for (a, b), (r, c) in taps:
            y[:, i, j] += x[:, r, c].astype(f64) @ w[a, b].astype(f64)
    return y.astype(x.dtype)


def ref_conv_backprop_input(sizes, w, dy, strides, padding, dilations=(1, 1, 1, 1)):
    dx = np.zeros(tuple(sizes), np.float64)
    for (i, j), taps, _ in _windows(dx.shape, w.shape[:2], strides, padding, dilations):
        for (a, b), (r, c) in taps:
            dx[:, r, c] += dy[:, i, j].astype(f64) @ w[a, b].T.astype(f64)
    return dx.astype(dy.dtype)


def ref_conv_backprop_filter(x, sizes, dy, strides, padding, dilations=(1, 1, 1, 1)):
    dw = np.zeros(tuple(sizes), np.float64)
    for (i, j), taps, _ in _windows(x.shape, dw.shape[:2], strides, padding, dilations):
        for (a, b), (r, c) in taps:
            dw[a, b] += x[:, r, c].T.astype(f64) @ dy[:, i, j].astype(f64)
    return dw.astype(x.dtype)


def ref_depthwise(x, w, strides, padding):
    n, _, _, c = x.shape
    m = w.shape[3]
    oh, ow = _out_hw(x.shape, w.shape[:2], strides, padding)
    y = np.zeros((n, oh, ow, c, m), np.float64)
    for (i, j), taps, _ in _windows(x.shape, w.shape[:2], strides, padding):
        for (a, b), (r, cc) in taps:
            y[:, i, j] += x[:, r, cc, :, None] * w[a, b]
    return y.reshape(n, oh, ow, c * m).astype(x.dtype)


def ref_depthwise_backprop_input(sizes, w, dy, strides, padding):
    n, _, _, c = sizes
    dx = np.zeros(tuple(sizes), np.float64)
    dy5 = dy.reshape(dy.shape[:3] + (c, -1))
    for (i, j), taps, _ in _windows(dx.shape, w.shape[:2], strides, padding):
        for (a, b), (r, cc) in taps:
            dx[:, r, cc] += (dy5[:, i, j] * w[a, b]).sum(-1)
    return dx.astype(dy.dtype)


def ref_depthwise_backprop_filter(x, sizes, dy, strides, padding):
    c = x.shape[3]
    dw = np.zeros(tuple(sizes), np.float64)
    dy5 = dy.reshape(dy.shape[:3] + (c, -1))
    for (i, j), taps, _ in _windows(x.shape, dw.shape[:2], strides, padding):
        for (a, b), (r, cc) in taps:
            dw[a, b] += (x[:, r, cc, :, None] * dy5[:, i, j]).sum(0)
    return dw.astype(x.dtype)


def ref_max_pool(x, k, s, padding):
    oh, ow = _out_hw(x.shape, k, (1, *s, 1), padding)
    y = np.empty((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    for (i, j), taps, _ in _windows(x.shape, k, (1, *s, 1), padding):
        y[:, i, j] = np.max([x[:, r, c] for _, (r, c) in taps], axis=0)
    return y


def ref_max_pool_grad(x, y, dy, k, s, padding):
    """dy goes to the first maximum of each window in scan order (row-major taps)."""
    dx = np.zeros(x.shape, dy.dtype)
    for (i, j), taps, _ in _windows(x.shape, k, (1, *s, 1), padding):
        vals = np.array([x[:, r, c] for _, (r, c) in taps])  # (taps, n, ch)
        first = np.argmax(vals, axis=0)
        for t, (_, (r, c)) in enumerate(taps):
            dx[:, r, c] += np.where(first == t, dy[:, i, j], 0)
    return dx


def ref_avg_pool(x, k, s, padding):
    oh, ow = _out_hw(x.shape, k, (1, *s, 1), padding)
    y = np.empty((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    for (i, j), taps, _ in _windows(x.shape, k, (1, *s, 1), padding):
        y[:, i, j] = np.mean([x[:, r, c] for _, (r, c) in taps], axis=0)
    return y


def ref_avg_pool_grad(sizes, dy, k, s, padding):
    dx = np.zeros(tuple(sizes), dy.dtype)
    for (i, j), taps, _ in _windows(dx.shape, k, (1, *s, 1), padding):
        for _, (r, c) in taps:
            dx[:, r, c] += dy[:, i, j] / len(taps)
    return dx


def _sizes(*dims):
    return np.array(dims, i32)


def _conv_row(x_shape, w_shape, s, padding, d=1, id_=""):
    strides, dil = [1, s, s, 1], [1, d, d, 1]
    return OpCase("Conv2D",
                  lambda tf, x, w: tf.nn.conv2d(x, w, strides, padding, dilations=dil),
                  lambda x, w: ref_conv(x, w, strides, padding, dil),
                  [rand(*x_shape), rand(*w_shape, seed=1)], rtol=1e-5, atol=1e-5,
                  id=f"Conv2D-{id_ or padding}")


def _pool_row(op_type, fn, ref, shape, k, s, padding, seed=0):
    return OpCase(op_type, lambda tf, x: fn(tf)(x, [1, k, k, 1], [1, s, s, 1], padding),
                  lambda x: ref(x, (k, k), (s, s), padding), [rand(*shape, seed=seed)],
                  rtol=1e-5, atol=1e-6, id=f"{op_type}-k{k}s{s}-{padding}-{'x'.join(map(str, shape))}")


def _max_pool_grad_row(shape, k, s, padding):
    def build(tf, x, dy):
        from scopeflow.ops.nn import pool_ops
        y = tf.nn.max_pool(x, [1, k, k, 1], [1, s, s, 1], padding)
        return pool_ops.max_pool_grad_op.bind(x, y, dy, ksize=[1, k, k, 1],
                                              strides=[1, s, s, 1], padding=padding,
                                              data_format="NHWC")
    x = rand(*shape)
    y = ref_max_pool(x, (k, k), (s, s), padding)
    return OpCase("MaxPoolGrad", build,
                  lambda x, dy: ref_max_pool_grad(x, ref_max_pool(x, (k, k), (s, s), padding),
                                                  dy, (k, k), (s, s), padding),
                  [x, rand(*y.shape, seed=3)], rtol=1e-5, atol=1e-6,
                  id=f"MaxPoolGrad-k{k}s{s}-{padding}")


ROWS = [
    _conv_row((2, 5, 5, 2), (3, 3, 2, 3), 1, "SAME"),
    _conv_row((1, 6, 5, 2), (3, 2, 2, 2), 2, "VALID"),
    _conv_row((1, 7, 6, 1), (3, 3, 1, 2), 3, "SAME", id_="SAME-s3"),
    _conv_row((1, 7, 7, 2), (2, 2, 2, 2), 1, "SAME", d=2, id_="SAME-dilated"),
    OpCase("Conv2D", lambda tf, x, w: tf.nn.conv2d(x, w, 1, [[0, 0], [1, 0], [2, 1], [0, 0]]),
           lambda x, w: ref_conv(np.pad(x, [(0, 0), (1, 0), (2, 1), (0, 0)]), w, [1, 1, 1, 1],
                                 "VALID"),
           [rand(1, 4, 3, 2), rand(2, 2, 2, 2, seed=1)], rtol=1e-5, atol=1e-5,
           id="Conv2D-explicit"),
    OpCase("Conv2D", lambda tf, x, w: tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"),
           lambda x, w: ref_conv(x, w, [1, 1, 1, 1], "VALID"),
           [rand(2, 3, 3, 2, dtype=f64), rand(1, 1, 2, 3, dtype=f64, seed=1)], id="Conv2D-f64"),
    OpCase("Conv2DBackpropInput",
           lambda tf, s, w, dy: tf.nn.conv2d_backprop_input(s, w, dy, [1, 2, 2, 1], "SAME"),
           lambda s, w, dy: ref_conv_backprop_input(s, w, dy, [1, 2, 2, 1], "SAME"),
           [_sizes(1, 5, 4, 2), rand(3, 3, 2, 3, seed=1), rand(1, 3, 2, 3, seed=2)],
           rtol=1e-5, atol=1e-5),
    OpCase("Conv2DBackpropInput",
           lambda tf, dy, w: tf.nn.conv2d_transpose(dy, w, [1, 6, 6, 2], [1, 2, 2, 1], "VALID"),
           lambda dy, w: ref_conv_backprop_input((1, 6, 6, 2), w, dy, [1, 2, 2, 1], "VALID"),
           [rand(1, 2, 2, 3, seed=2), rand(3, 3, 2, 3, seed=1)], rtol=1e-5, atol=1e-5,
           id="Conv2DBackpropInput-conv2d_transpose"),
    OpCase("Conv2DBackpropFilter",
           lambda tf, x, s, dy: tf.nn.conv2d_backprop_filter(x, s, dy, [1, 1, 2, 1], "SAME"),
           lambda x, s, dy: ref_conv_backprop_filter(x, s, dy, [1, 1, 2, 1], "SAME"),
           [rand(2, 4, 5, 2), _sizes(3, 3, 2, 2), rand(2, 4, 3, 2, seed=2)],
           rtol=1e-5, atol=1e-5),
    OpCase("Conv2DBackpropFilter",
           lambda tf, x, s, dy: tf.nn.conv2d_backprop_filter(x, s, dy, [1, 1, 1, 1], "VALID",
                                                            dilations=[1, 2, 1, 1]),
           lambda x, s, dy: ref_conv_backprop_filter(x, s, dy, [1, 1, 1, 1], "VALID",
                                                     [1, 2, 1, 1]),
           [rand(1, 5, 4, 2), _sizes(2, 2, 2, 1), rand(1, 3, 3, 1, seed=2)],
           rtol=1e-5, atol=1e-5, id="Conv2DBackpropFilter-dilated"),
    OpCase("DepthwiseConv2dNative",
           lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
           lambda x, w: ref_depthwise(x, w, [1, 1, 1, 1], "SAME"),
           [rand(2, 4, 5, 2), rand(3, 3, 2, 2, seed=1)], rtol=1e-5, atol=1e-5),
    OpCase("DepthwiseConv2dNative",
           lambda tf, x, w: tf.nn.depthwise_conv2d_native(x, w, [1, 2, 2, 1], "VALID"),
           lambda x, w: ref_depthwise(x, w, [1, 2, 2, 1], "VALID"),
           [rand(1, 5, 6, 3), rand(2, 2, 3, 1, seed=1)], rtol=1e-5, atol=1e-5,
           id="DepthwiseConv2dNative-s2-VALID"),
    OpCase("DepthwiseConv2dNativeBackpropInput",
           lambda tf, s, w, dy: tf.nn.depthwise_conv2d_native_backprop_input(
               s, w, dy, [1, 2, 2, 1], "SAME"),
           lambda s, w, dy: ref_depthwise_backprop_input(s, w, dy, [1, 2, 2, 1], "SAME"),
           [_sizes(1, 5, 4, 2), rand(3, 3, 2, 2, seed=1), rand(1, 3, 2, 4, seed=2)],
           rtol=1e-5, atol=1e-5),
    OpCase("DepthwiseConv2dNativeBackpropFilter",
           lambda tf, x, s, dy: tf.nn.depthwise_conv2d_native_backprop_filter(
               x, s, dy, [1, 1, 1, 1], "VALID"),
           lambda x, s, dy: ref_depthwise_backprop_filter(x, s, dy, [1, 1, 1, 1], "VALID"),
           [rand(2, 4, 4, 2), _sizes(2, 3, 2, 2), rand(2, 3, 2, 4, seed=2)],
           rtol=1e-5, atol=1e-5),
    _pool_row("MaxPool", lambda tf: tf.nn.max_pool, ref_max_pool, (2, 4, 6, 2), 2, 2, "VALID"),
    _pool_row("MaxPool", lambda tf: tf.nn.max_pool, ref_max_pool, (1, 5, 5, 2), 3, 2, "SAME"),
    _pool_row("MaxPool", lambda tf: tf.nn.max_pool, ref_max_pool, (1, 5, 4, 1), 2, 2, "SAME"),
    OpCase("MaxPool", lambda tf, x: tf.nn.max_pool(x, 2, 1, "VALID"),
           lambda x: ref_max_pool(x, (2, 2), (1, 1), "VALID"),
           [np.array([[1, 5, 2], [5, 3, 5], [0, 5, 1]], i32).reshape(1, 3, 3, 1)],
           id="MaxPool-int32-ties"),
    _max_pool_grad_row((2, 4, 4, 2), 2, 2, "VALID"),
    _max_pool_grad_row((1, 5, 5, 2), 3, 2, "SAME"),
    OpCase("MaxPoolGrad",
           lambda tf, x, dy: _ties_grad(tf, x, dy),
           lambda x, dy: ref_max_pool_grad(x, None, dy, (2, 2), (1, 1), "VALID"),
           [np.array([[1, 5, 2], [5, 3, 5], [0, 5, 1]], f32).reshape(1, 3, 3, 1),
            rand(1, 2, 2, 1, seed=3)], check_grad=False, id="MaxPoolGrad-ties-first-wins"),
    _pool_row("AvgPool", lambda tf: tf.nn.avg_pool, ref_avg_pool, (2, 4, 6, 2), 2, 2, "VALID"),
    _pool_row("AvgPool", lambda tf: tf.nn.avg_pool, ref_avg_pool, (1, 5, 5, 2), 3, 2, "SAME"),
    _pool_row("AvgPool", lambda tf: tf.nn.avg_pool, ref_avg_pool, (1, 4, 5, 1), 3, 1, "SAME"),
    OpCase("AvgPoolGrad",
           lambda tf, s, dy: _avg_pool_grad(tf, s, dy),
           lambda s, dy: ref_avg_pool_grad(s, dy, (3, 3), (2, 2), "SAME"),
           [_sizes(1, 5, 4, 2), rand(1, 3, 2, 2, seed=3)], rtol=1e-5, atol=1e-6),
    OpCase("BiasAdd", lambda tf, x, b: tf.nn.bias_add(x, b), lambda x, b: x + b,
           [rand(2, 3, 4), rand(4, seed=1)]),
    OpCase("BiasAdd", lambda tf, x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
           lambda x, b: x + b[:, None, None], [rand(2, 3, 2, 2), rand(3, seed=1)],
           id="BiasAdd-NCHW"),
    OpCase("BiasAddGrad", lambda tf, dy: _bias_add_grad(tf, dy, "NHWC"),
           lambda dy: dy.sum(axis=(0, 1)), [rand(2, 3, 4)], rtol=1e-5),
    OpCase("BiasAddGrad", lambda tf, dy: _bias_add_grad(tf, dy, "NCHW"),
           lambda dy: dy.sum(axis=(0, 2, 3)), [rand(2, 3, 2, 2)], rtol=1e-5,
           id="BiasAddGrad-NCHW"),
    OpCase("ShapeN", lambda tf, a, b: _shape_n(a, b),
           lambda a, b: [np.array(a.shape, i32), np.array(b.shape, i32)],
           [rand(2, 3), rand(4)]),
]


def _ties_grad(tf, x, dy):
    from scopeflow.ops.nn import pool_ops
    y = tf.nn.max_pool(x, 2, 1, "VALID")
    return pool_ops.max_pool_grad_op.bind(x, y, dy, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                                          padding="VALID", data_format="NHWC")


def _avg_pool_grad(tf, sizes, dy):
    from scopeflow.ops.nn import pool_ops
    return pool_ops.avg_pool_grad_op.bind(sizes, dy, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                                          padding="SAME", data_format="NHWC")


def _bias_add_grad(tf, dy, data_format):
    from scopeflow.ops.nn import conv_ops
    return conv_ops.bias_add_grad_op.bind(dy, data_format=data_format)


def _shape_n(a, b):
    from scopeflow.ops import array_ops
    return array_ops.shape_n([a, b])
