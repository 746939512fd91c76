"""Op-table rows for scopeflow/ops/nn/conv3d_ops.py, against naive loop references (NumPy).

The references walk every output position and window tap explicitly (no im2col, no
strided views), so they check the kernels' padding arithmetic independently. Shapes stay
tiny: each row's numeric gradient check perturbs the inputs one element at a time.
"""

from __future__ import annotations

import itertools

import numpy as np

from scopeflow.ops.nn import conv3d_ops

from .op_table import OpCase, rand

f32, f64, i32 = np.float32, np.float64, np.int32


def _geom(size, k, s, padding):
    if padding == "VALID":
        return (size - k) // s + 1, 0
    out = -(-size // s)
    return out, max((out - 1) * s + k - size, 0) // 2


def _windows(x_shape, k, s, padding):
    """Yields (output index, [(tap index, input index)...] of in-range taps, output dims)."""
    geo = [_geom(x_shape[i + 1], k[i], s[i], padding) for i in range(3)]
    out = tuple(o for o, _ in geo)
    for o in itertools.product(*(range(n) for n in out)):
        taps = []
        for t in itertools.product(*(range(n) for n in k)):
            src = tuple(o[i] * s[i] + t[i] - geo[i][1] for i in range(3))
            if all(0 <= src[i] < x_shape[i + 1] for i in range(3)):
                taps.append((t, src))
        yield o, taps, out


def _out(x_shape, k, s, padding):
    return next(_windows(x_shape, k, s, padding))[2]


def ref_conv3d(x, w, s, padding):
    out = _out(x.shape, w.shape[:3], s, padding)
    y = np.zeros((x.shape[0], *out, w.shape[4]), f64)
    for o, taps, _ in _windows(x.shape, w.shape[:3], s, padding):
        for t, src in taps:
            y[(slice(None), *o)] += x[(slice(None), *src)].astype(f64) @ w[t].astype(f64)
    return y.astype(x.dtype)


def ref_conv3d_backprop_input(sizes, w, dy, s, padding):
    dx = np.zeros(tuple(sizes), f64)
    for o, taps, _ in _windows(dx.shape, w.shape[:3], s, padding):
        for t, src in taps:
            dx[(slice(None), *src)] += dy[(slice(None), *o)].astype(f64) @ w[t].T.astype(f64)
    return dx.astype(dy.dtype)


def ref_conv3d_backprop_filter(x, sizes, dy, s, padding):
    dw = np.zeros(tuple(sizes), f64)
    for o, taps, _ in _windows(x.shape, dw.shape[:3], s, padding):
        for t, src in taps:
            dw[t] += x[(slice(None), *src)].T.astype(f64) @ dy[(slice(None), *o)].astype(f64)
    return dw.astype(x.dtype)


def ref_pool3d(x, k, s, padding, reduce):
    out = _out(x.shape, k, s, padding)
    y = np.empty((x.shape[0], *out, x.shape[4]), x.dtype)
    for o, taps, _ in _windows(x.shape, k, s, padding):
        y[(slice(None), *o)] = reduce([x[(slice(None), *src)] for _, src in taps], axis=0)
    return y


def ref_max_pool3d_grad(x, dy, k, s, padding):
    """dy goes to every element equal to its window's max (ties included), as TF's CPU."""
    dx = np.zeros(x.shape, dy.dtype)
    for o, taps, _ in _windows(x.shape, k, s, padding):
        vals = np.array([x[(slice(None), *src)] for _, src in taps])
        best = vals.max(axis=0)
        for _, src in taps:
            dx[(slice(None), *src)] += np.where(x[(slice(None), *src)] == best,
                                                dy[(slice(None), *o)], 0)
    return dx


def ref_avg_pool3d_grad(sizes, dy, k, s, padding):
    dx = np.zeros(tuple(sizes), dy.dtype)
    for o, taps, _ in _windows(dx.shape, k, s, padding):
        for _, src in taps:
            dx[(slice(None), *src)] += dy[(slice(None), *o)] / len(taps)
    return dx


def _sizes(*dims):
    return np.array(dims, i32)


def _conv_row(x_shape, w_shape, s, padding, dtype=f32):
    strides = [1, *s, 1]
    return OpCase("Conv3D", lambda tf, x, w: tf.nn.conv3d(x, w, strides, padding),
                  lambda x, w: ref_conv3d(x, w, s, padding),
                  [rand(*x_shape, dtype=dtype), rand(*w_shape, dtype=dtype, seed=1)],
                  rtol=1e-5, atol=1e-5,
                  id=f"Conv3D-s{''.join(map(str, s))}-{padding}-{np.dtype(dtype).name}")


def _pool_row(op_type, fn, reduce, shape, k, s, padding, x=None):
    return OpCase(op_type,
                  lambda tf, x: fn(tf)(x, [1, *k, 1], [1, *s, 1], padding),
                  lambda x: ref_pool3d(x, k, s, padding, reduce),
                  [rand(*shape) if x is None else x], rtol=1e-5, atol=1e-6,
                  check_grad=x is None,
                  id=f"{op_type}-k{''.join(map(str, k))}s{''.join(map(str, s))}-{padding}"
                     f"{'-ties' if x is not None else ''}")


def _max_pool3d_grad(x, dy, k, s, padding):
    attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding,
             "data_format": "NDHWC"}
    y = conv3d_ops.max_pool3d_op.bind(x, **attrs)
    return conv3d_ops.max_pool3d_grad_op.bind(x, y, dy, **attrs)


def _max_pool3d_grad_row(x, k, s, padding, id_):
    dy = rand(*ref_pool3d(x, k, s, padding, np.max).shape, seed=3)
    return OpCase("MaxPool3DGrad",
                  lambda tf, x, dy: _max_pool3d_grad(x, dy, k, s, padding),
                  lambda x, dy: ref_max_pool3d_grad(x, dy, k, s, padding),
                  [x, dy], rtol=1e-5, atol=1e-6, check_grad=False,
                  id=f"MaxPool3DGrad-{id_}")


def _avg_pool3d_grad(sizes, dy, k, s, padding):
    return conv3d_ops.avg_pool3d_grad_op.bind(sizes, dy, ksize=[1, *k, 1],
                                              strides=[1, *s, 1], padding=padding,
                                              data_format="NDHWC")


_TIES = np.array([1, 3, 3, 2, 3, 1, 0, 3, 2, 3, 3, 1], f32).reshape(1, 2, 3, 2, 1)

ROWS = [
    _conv_row((2, 4, 3, 3, 2), (2, 3, 2, 2, 3), (1, 2, 1), "SAME"),
    _conv_row((1, 4, 4, 3, 2), (3, 2, 2, 2, 2), (2, 1, 2), "VALID"),
    _conv_row((1, 3, 4, 3, 1), (2, 2, 2, 1, 2), (1, 1, 1), "SAME", dtype=f64),
    OpCase("Conv3DBackpropInputV2",
           lambda tf, sz, w, dy: conv3d_ops.conv3d_backprop_input_v2(
               sz, w, dy, [1, 2, 1, 2, 1], "SAME"),
           lambda sz, w, dy: ref_conv3d_backprop_input(sz, w, dy, (2, 1, 2), "SAME"),
           [_sizes(1, 4, 3, 5, 2), rand(2, 3, 3, 2, 3, seed=1), rand(1, 2, 3, 3, 3, seed=2)],
           rtol=1e-5, atol=1e-5),
    OpCase("Conv3DBackpropInputV2",
           lambda tf, sz, w, dy: conv3d_ops.conv3d_backprop_input_v2(
               sz, w, dy, [1, 1, 1, 1, 1], "VALID"),
           lambda sz, w, dy: ref_conv3d_backprop_input(sz, w, dy, (1, 1, 1), "VALID"),
           [_sizes(2, 3, 3, 3, 1), rand(2, 2, 2, 1, 2, seed=1), rand(2, 2, 2, 2, 2, seed=2)],
           rtol=1e-5, atol=1e-5, id="Conv3DBackpropInputV2-VALID"),
    OpCase("Conv3DBackpropFilterV2",
           lambda tf, x, sz, dy: tf.nn.conv3d_backprop_filter_v2(
               x, sz, dy, [1, 1, 2, 1, 1], "SAME"),
           lambda x, sz, dy: ref_conv3d_backprop_filter(x, sz, dy, (1, 2, 1), "SAME"),
           [rand(2, 3, 4, 3, 2), _sizes(2, 3, 2, 2, 2), rand(2, 3, 2, 3, 2, seed=2)],
           rtol=1e-5, atol=1e-5),
    OpCase("Conv3DBackpropFilterV2",
           lambda tf, x, sz, dy: tf.nn.conv3d_backprop_filter_v2(
               x, sz, dy, [1, 2, 2, 2, 1], "VALID"),
           lambda x, sz, dy: ref_conv3d_backprop_filter(x, sz, dy, (2, 2, 2), "VALID"),
           [rand(1, 5, 4, 5, 1), _sizes(3, 2, 3, 1, 2), rand(1, 2, 2, 2, 2, seed=2)],
           rtol=1e-5, atol=1e-5, id="Conv3DBackpropFilterV2-VALID"),
    _pool_row("MaxPool3D", lambda tf: tf.nn.max_pool3d, np.max, (2, 4, 4, 3, 2), (2, 2, 2),
              (2, 2, 2), "SAME"),
    _pool_row("MaxPool3D", lambda tf: tf.nn.max_pool3d, np.max, (1, 5, 4, 4, 1), (3, 2, 2),
              (1, 2, 1), "VALID"),
    _pool_row("MaxPool3D", lambda tf: tf.nn.max_pool3d, np.max, None, (2, 2, 2), (1, 1, 1),
              "VALID", x=_TIES),
    _max_pool3d_grad_row(rand(1, 4, 4, 3, 2), (2, 2, 2), (2, 2, 2), "SAME", "SAME"),
    _max_pool3d_grad_row(rand(1, 4, 3, 4, 1), (3, 2, 2), (1, 1, 2), "VALID", "VALID"),
    _max_pool3d_grad_row(_TIES, (2, 2, 2), (1, 1, 1), "VALID", "ties-all-win"),
    _pool_row("AvgPool3D", lambda tf: tf.nn.avg_pool3d, np.mean, (2, 4, 4, 3, 2), (2, 2, 2),
              (2, 2, 2), "SAME"),
    _pool_row("AvgPool3D", lambda tf: tf.nn.avg_pool3d, np.mean, (1, 5, 4, 4, 1), (3, 2, 3),
              (1, 2, 1), "VALID"),
    _pool_row("AvgPool3D", lambda tf: tf.nn.avg_pool3d, np.mean, (1, 4, 5, 3, 1), (3, 3, 2),
              (1, 2, 1), "SAME"),
    OpCase("AvgPool3DGrad",
           lambda tf, sz, dy: _avg_pool3d_grad(sz, dy, (3, 2, 2), (2, 1, 2), "SAME"),
           lambda sz, dy: ref_avg_pool3d_grad(sz, dy, (3, 2, 2), (2, 1, 2), "SAME"),
           [_sizes(1, 5, 3, 4, 2), rand(1, 3, 3, 2, 2, seed=3)], rtol=1e-5, atol=1e-6),
]
