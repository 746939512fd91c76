"""Inference FusedBatchNorm in blocks on two threads (scopeflow.ops.nn.batch_norm_blocks)
gives the bits of the whole-tensor passes it replaced, for every block split, with NaN and
inf, and the op takes it only for C-contiguous channel-last float32."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.nn import batch_norm_blocks


def _whole_tensor(x, mean, multiplier, offset):
    y = x - mean
    y *= multiplier
    y += offset
    return y


@pytest.mark.parametrize("shape", [(2, 5, 5, 3), (32, 28, 28, 64), (7, 1000), (1, 1, 1, 1)])
@pytest.mark.parametrize("block_bytes", [1, 4096, batch_norm_blocks.BLOCK_BYTES])
def test_same_bits_as_whole_tensor_passes(monkeypatch, shape, block_bytes):
    monkeypatch.setattr(batch_norm_blocks, "BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(shape[-1])
    x = rng.normal(size=shape).astype(np.float32)
    x.flat[::97] = np.nan
    x.flat[5::101] = np.inf
    c = shape[-1]
    mean, mult, offset = (rng.normal(size=c).astype(np.float32) for _ in range(3))
    assert batch_norm_blocks.takes(x, x.ndim - 1)
    got = batch_norm_blocks.normalize(x, mean, mult, offset)
    assert got.tobytes() == _whole_tensor(x, mean, mult, offset).tobytes()


def test_only_contiguous_channel_last_float32():
    x = np.zeros((2, 3, 4, 5), np.float32)
    assert not batch_norm_blocks.takes(x, 1)                  # NCHW
    assert not batch_norm_blocks.takes(x.astype(np.float16), 3)
    assert not batch_norm_blocks.takes(x[:, :, ::2], 3)       # a strided view


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_the_op_gives_the_same_values(dtype):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6, 6, 8)).astype(dtype)
    scale, offset, mean = (rng.normal(size=8).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2, size=8).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        y = sess.run(tf.nn.fused_batch_norm(x, scale, offset, mean, var, epsilon=1e-3,
                                            is_training=False)[0])
    inv = 1 / np.sqrt(var + np.float32(1e-3))
    want = _whole_tensor(x.astype(np.float32), mean, inv * scale, offset).astype(dtype)
    assert y.dtype == dtype and y.tobytes() == want.tobytes()
