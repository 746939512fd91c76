"""The blocked, two-thread per-tap depthwise kernel (scopeflow.ops.nn.depthwise_taps)
gives the bits of the plain loop it replaced: whole-tensor tap products summed into zeros
in the kernel's (i, j) order, for every stride, dilation, dtype and block split, with NaN,
inf and signed zeros."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.native import onednn
from scopeflow.ops.nn import depthwise_taps
from scopeflow.ops.nn.conv_geometry import tap_view


def _plain_loop(xp, w, oh, ow, strides, dilations):
    (sh, sw), (dh, dw) = strides, dilations
    kh, kw, c, _ = w.shape
    out = np.zeros((xp.shape[0], oh, ow, c), np.result_type(xp, w))
    for i in range(kh):
        for j in range(kw):
            out += tap_view(xp, i, j, oh, ow, sh, sw, dh, dw) * w[i, j, :, 0]
    return out


CASES = [  # (padded input shape, kernel, strides, dilations, dtype)
    ((2, 9, 9, 32), (3, 3), (1, 1), (1, 1), np.float32),
    ((3, 12, 11, 48), (3, 3), (2, 2), (1, 1), np.float32),
    ((1, 13, 13, 64), (3, 2), (1, 2), (2, 1), np.float64),
    ((2, 10, 10, 40), (5, 5), (1, 1), (1, 1), np.float16),
    ((32, 30, 30, 128), (3, 3), (1, 1), (1, 1), np.float32),  # split over two threads
]


@pytest.mark.parametrize("shape,kernel,strides,dilations,dtype", CASES)
@pytest.mark.parametrize("block_bytes", [1, 4096, depthwise_taps.BLOCK_BYTES])
def test_same_bits_as_the_plain_loop(monkeypatch, shape, kernel, strides, dilations, dtype,
                                     block_bytes):
    monkeypatch.setattr(depthwise_taps, "BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(len(shape) + shape[3])
    xp = rng.normal(size=shape).astype(dtype)
    w = rng.normal(size=(*kernel, shape[3], 1)).astype(dtype)
    xp[0, 3, 4, 5], xp[-1, 2, 2, 7] = np.nan, np.inf
    xp[0, :, :, 9], w[:, :, 9, 0] = -0.0, 1.0    # a channel of negative zeros
    oh = (shape[1] - (kernel[0] - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (shape[2] - (kernel[1] - 1) * dilations[1] - 1) // strides[1] + 1
    want = _plain_loop(xp, w, oh, ow, strides, dilations)
    got = depthwise_taps.depthwise_taps_one_multiplier(xp, w, oh, ow, strides, dilations)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_the_op_takes_this_path_for_many_channels(monkeypatch):
    """Where the oneDNN backend (the `fast` extra) is off or absent."""
    monkeypatch.setattr(onednn, "_ENABLED", False)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 16, 16, 64)).astype(np.float32)
    w = rng.normal(size=(3, 3, 64, 1)).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.nn.depthwise_conv2d_native(x, w, [1, 2, 2, 1], "SAME"))
    xp = np.pad(x, ((0, 0), (0, 1), (0, 1), (0, 0)))  # SAME, stride 2, even size: (0, 1)
    assert got.tobytes() == _plain_loop(xp, w, 8, 8, (2, 2), (1, 1)).tobytes()
