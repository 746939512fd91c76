"""Op-table rows for the quantization ops (scopeflow/ops/array/quantize_ops.py) and the
quantized NN ops (scopeflow/ops/nn/quantized_nn_ops.py), with NumPy references written
from TF's documented formulas in float64 on inputs where float32 rounding cannot differ.
The quantized inputs arrive as plain integer placeholders cast to the quantized type (a
quantized type's values run as its integers). None of these ops has a gradient."""

from __future__ import annotations

import numpy as np

from .op_table import OpCase

f32 = np.float32


def _half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _conv_ref(x, f, stride, padding):
    """Plain integer NHWC x HWIO convolution (TF's SAME splits the padding, less before)."""
    x, f = x.astype(np.int64), f.astype(np.int64)
    n, h, w, _ = x.shape
    kh, kw, _, oc = f.shape
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        ph = max((oh - 1) * stride + kh - h, 0)
        pw = max((ow - 1) * stride + kw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, oc), np.int64)
    for i in range(oh):
        for j in range(ow):
            win = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(win, f, axes=([1, 2, 3], [0, 1, 2]))
    return out.astype(np.int32)


X = np.array([0.0, 1.0, 2.0, 3.5, 5.0, -1.0], f32)
XS = np.array([-1.0, -0.5, 0.25, 1.0, 2.0, 0.0], f32)
Q8 = np.array([0, 1, 128, 255], np.uint8)
QI8 = np.array([-128, -1, 0, 127], np.int8)
IMG = np.array([[1, 2, 9], [3, 5, 0], [7, 4, 6]], np.uint8).reshape(1, 3, 3, 1)
CONV_X = (np.arange(2 * 4 * 5 * 3) % 7).astype(np.uint8).reshape(2, 4, 5, 3)
CONV_F = (np.arange(3 * 2 * 3 * 2) % 5).astype(np.uint8).reshape(3, 2, 3, 2)
TOP = [f32(-2.0 ** 31), f32(2.0 ** 31 - 1)]  # one level of each input is 1.0

ROWS = [
    OpCase("QuantizeV2", lambda tf, x: list(tf.quantize(x, 0.0, 4.0, tf.quint8)),
           lambda x: [_half_away(np.clip(x, 0, 4) * 255 / 4).astype(np.uint8), f32(0), f32(4)],
           [X], id="quantize_min_combined"),
    OpCase("QuantizeV2",
           lambda tf, x: list(tf.quantize(x, -1.0, 1.0, tf.qint8, mode="SCALED",
                                          round_mode="HALF_TO_EVEN")),
           # scale 127 from the max side; -0.5 * 127 = -63.5 rounds to even
           lambda x: [np.rint(np.clip(x, -128 / 127, 1) * 127).astype(np.int8),
                      f32(-128 / 127), f32(1)], [XS], id="quantize_scaled"),
    OpCase("Dequantize", lambda tf, q: tf.dequantize(tf.cast(q, tf.quint8), 0.0, 255.0),
           lambda q: q.astype(f32), [Q8], id="dequantize_min_combined"),
    OpCase("Dequantize",
           lambda tf, q: tf.dequantize(tf.cast(q, tf.qint8), -1.0, 1.0, mode="SCALED"),
           lambda q: (q / 127.0).astype(f32), [QI8], id="dequantize_scaled"),
    OpCase("QuantizedConcat",
           lambda tf, a, b: list(tf.quantized_concat(
               0, [tf.cast(a, tf.quint8), tf.cast(b, tf.quint8)], [0.0, 0.0], [1.0, 1.0])),
           lambda a, b: [np.concatenate([a, b]), f32(0), f32(1)], [Q8, Q8[::-1].copy()],
           id="quantized_concat_same_range"),
    OpCase("QuantizedAvgPool",
           lambda tf, x: list(tf.nn.quantized_avg_pool(tf.cast(x, tf.quint8), -1.0, 2.0,
                                                       [1, 2, 2, 1], [1, 1, 1, 1], "SAME")),
           # the mean of each window's real elements, rounded (halves to even)
           lambda x: [np.array([[3, 4, 4], [5, 4, 3], [6, 5, 6]], np.uint8).reshape(1, 3, 3, 1),
                      f32(-1), f32(2)], [IMG], id="quantized_avg_pool"),
    OpCase("QuantizedMaxPool",
           lambda tf, x: list(tf.nn.quantized_max_pool(tf.cast(x, tf.quint8), -1.0, 2.0,
                                                       [1, 2, 2, 1], [1, 1, 1, 1], "VALID")),
           lambda x: [np.array([[5, 9], [7, 6]], np.uint8).reshape(1, 2, 2, 1), f32(-1),
                      f32(2)], [IMG], id="quantized_max_pool"),
    OpCase("QuantizedReluX",
           lambda tf, x: list(tf.nn.quantized_relu_x(tf.cast(x, tf.quint8), 100.0, 0.0,
                                                     255.0)),
           # over [0, 255] a quint8 level is 1.0: 0 is 0, 100 is 100
           lambda x: [np.minimum(x, 100).astype(np.uint8), f32(0), f32(255)], [Q8],
           id="quantized_relu_x"),
    OpCase("QuantizedConv2D",
           lambda tf, x, f: list(tf.nn.quantized_conv2d(
               tf.cast(x, tf.quint8), tf.cast(f, tf.quint8), 0.0, 255.0, 0.0, 255.0,
               [1, 2, 2, 1], "SAME")),
           lambda x, f: [_conv_ref(x, f, 2, "SAME")] + TOP, [CONV_X, CONV_F],
           id="quantized_conv2d"),
]
