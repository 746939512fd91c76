"""Long float32 sums over outer axes accumulate in float64 (``_sum_accumulator``).

NumPy adds one element at a time along outer axes, so a float32 ``moments`` of an NHWC
activation was off by ~4e-4 relative (TF's blocked reductions: ~2e-5), and batch-norm
trainings left TF's values within steps (found by ``scopeflow compare`` on a public
batch-norm MNIST tutorial). Short sums keep float32 accumulation, and TF's bits.
"""

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.math.reduction_ops import NAIVE_SUM_LIMIT


@pytest.fixture
def activations():
    rng = np.random.RandomState(0)
    return np.square(rng.rand(100, 28, 28, 24).astype(np.float32))


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


@pytest.mark.parametrize("reduce", [tf.reduce_mean, tf.reduce_sum])
def test_outer_axis_sums_are_accurate(activations, reduce):
    got = _run(reduce(activations, [0, 1, 2]))
    exact = (activations.astype(np.float64).mean((0, 1, 2)) if reduce is tf.reduce_mean
             else activations.astype(np.float64).sum((0, 1, 2)))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, exact, rtol=2e-7)
    naive = np.add.reduce(activations, axis=(0, 1, 2), dtype=np.float32)
    if reduce is tf.reduce_sum:  # what the kernel gave before: far worse
        assert np.abs(naive - exact).max() / exact.max() > 20 * np.abs(got - exact).max() / exact.max()


def test_moments_and_fused_batch_norm_are_accurate(activations):
    mean, var = tf.nn.moments(tf.constant(activations), [0, 1, 2])
    y, bn_mean, bn_var = tf.nn.fused_batch_norm(
        activations, np.ones(24, np.float32), np.zeros(24, np.float32), epsilon=1e-3)
    got = _run([mean, var, bn_mean])
    x64 = activations.astype(np.float64)
    for value, exact in zip(got, [x64.mean((0, 1, 2)), x64.var((0, 1, 2)), x64.mean((0, 1, 2))]):
        np.testing.assert_allclose(value, exact, rtol=1e-6)


def test_short_sums_keep_float32_accumulation():
    rng = np.random.RandomState(1)
    x = rng.randn(NAIVE_SUM_LIMIT - 1, 3).astype(np.float32)
    got = _run(tf.reduce_sum(x, 0))
    np.testing.assert_array_equal(got, np.add.reduce(x, axis=0, dtype=np.float32))
    row = rng.randn(2, 100_000).astype(np.float32)  # along the innermost axis: pairwise
    np.testing.assert_array_equal(_run(tf.reduce_sum(row, 1)),
                                  np.add.reduce(row, axis=1, dtype=np.float32))
