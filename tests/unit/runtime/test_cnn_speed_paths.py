"""The fast paths of the CNN step's elementwise kernels keep the plain kernels' values.

Large inputs (from ~400K elements) are split over two threads; BiasAdd and BiasAddGrad work
on long rows of whole channel vectors; 2x2 MaxPoolGrad compares each tap on quarter-size
views. The op-table tests use small shapes, so these run the seed CNN's shapes against
direct NumPy references (TF's tie rule for MaxPoolGrad: the first maximum in scan order).
"""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.math import blas

SEED_SHAPES = [(50, 28, 28, 32), (50, 14, 14, 64), (3, 5, 7, 2)]


def _run(fetch, feeds=None):
    with tf.Session() as sess:
        return sess.run(fetch, feeds)


def _relu_grad(dy, x):
    from scopeflow.ops import nn_ops
    return nn_ops.relu_grad_op.bind(tf.constant(dy), tf.constant(x))


@pytest.mark.parametrize("shape", SEED_SHAPES)
def test_relu_and_relu_grad(shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:4] = [np.nan, -np.inf, np.inf, -0.0]
    dy = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    y, g = _run([tf.nn.relu(x), _relu_grad(dy, x)])
    np.testing.assert_array_equal(y, np.maximum(x, np.float32(0)))
    np.testing.assert_array_equal(g, np.multiply(dy, x > 0, dtype=np.float32))


@pytest.mark.parametrize("shape", SEED_SHAPES)
def test_bias_add_and_its_gradient(shape):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    y = tf.nn.bias_add(x, b)
    bias_grad = tf.gradients(y, y.op.inputs[1], grad_ys=tf.constant(x))[0]
    out, got = _run([y, bias_grad])
    np.testing.assert_array_equal(out, x + b)
    rows = x.astype(np.float64).reshape(-1, shape[-1])
    # float32 sums of ~40K terms: the error bound scales with the sum of magnitudes
    assert np.all(np.abs(got - rows.sum(0)) <= 1e-6 * np.abs(rows).sum(0) + 1e-6)


def _max_pool_grad_reference(x, dy):
    """TF's CPU rule for 2x2/2 windows: each window's gradient goes to its first maximum
    in scan order."""
    n, h, w, c = x.shape
    windows = x.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 5, 2, 4)
    first = windows.reshape(n, h // 2, w // 2, c, 4).argmax(axis=-1)
    dx = np.zeros((n, h // 2, w // 2, c, 4), dy.dtype)
    np.put_along_axis(dx, first[..., None], dy[..., None], axis=-1)
    return dx.reshape(n, h // 2, w // 2, c, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(x.shape)


@pytest.mark.parametrize("shape", [(50, 28, 28, 32), (50, 14, 14, 64), (3, 6, 4, 5)])
def test_max_pool_2x2_and_its_gradient_break_ties_as_tf(shape):
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    x[x < 0.3] = 0.0                       # many ties inside windows, as after a ReLU
    dy = np.random.default_rng(4).standard_normal(
        (shape[0], shape[1] // 2, shape[2] // 2, shape[3])).astype(np.float32)
    xt = tf.constant(x)
    y = tf.nn.max_pool(xt, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    dx = tf.gradients(y, xt, grad_ys=tf.constant(dy))[0]
    pooled, got = _run([y, dx])
    np.testing.assert_array_equal(
        pooled, x.reshape(shape[0], shape[1] // 2, 2, shape[2] // 2, 2, shape[3]).max((2, 4)))
    np.testing.assert_array_equal(got, _max_pool_grad_reference(x, dy))


def test_large_inputs_take_the_threaded_paths(monkeypatch):
    """NumPy's kernels (with the ``fast`` extra, oneDNN's MaxPool would take one)."""
    from scopeflow.native import onednn
    monkeypatch.setattr(onednn, "backend", lambda: None)
    calls = []
    real = blas.split_rows

    def counting(task, m, flops, min_flops=None):
        calls.append(flops >= min_flops)
        return real(task, m, flops, min_flops)

    monkeypatch.setattr(blas, "split_rows", counting)
    from scopeflow.ops.nn import nn_activation_ops, pool_ops
    monkeypatch.setattr(nn_activation_ops, "split_rows", counting)
    monkeypatch.setattr(pool_ops, "_split_rows", counting)
    x = np.random.default_rng(5).standard_normal((50, 28, 28, 32)).astype(np.float32)
    xt = tf.constant(x)
    y = tf.nn.max_pool(tf.nn.relu(xt), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    _run(tf.gradients(y, xt)[0])
    assert calls == [True] * 4   # relu, max_pool, max_pool_grad, relu_grad: all split
