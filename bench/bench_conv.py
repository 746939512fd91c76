"""Convolution speed: the seeds' MNIST CNN, for scopeflow or (with --tf) real TensorFlow.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_conv.py
    ../shared/tools/tf1 bench/bench_conv.py --tf
    python bench/compare.py bench/bench_conv.py      # both, side by side, as ratios

Times (ms, best of 15 rounds of 3 calls, batch 50): the two conv layers (5x5x1->32 and
5x5x32->64, SAME, + bias + relu + 2x2 max-pool) forward, forward+backward (gradients of
the weights), and the whole training step (dense 3136->1024, dropout, dense 1024->10,
softmax cross-entropy, Adam); then the training step at batch 256 (best of 5 single
calls). Prints one JSON line; the BLAS in use goes to stderr.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import timing  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
else:
    import scopeflow as tf

BATCH = 50


def best_of(fn, repeat=15, number=3):
    return timing.best_of(fn, repeat, number)


def _weight(shape, seed):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1, seed=seed))


def _conv_layers(x):
    w1, b1 = _weight([5, 5, 1, 32], 1), tf.Variable(tf.constant(0.1, shape=[32]))
    w2, b2 = _weight([5, 5, 32, 64], 2), tf.Variable(tf.constant(0.1, shape=[64]))
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME"), b1))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME"), b2))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    return h, [w1, b1, w2, b2]


def conv_layers():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    h, params = _conv_layers(x)
    grads = tf.gradients(tf.reduce_sum(h), params)
    images = np.random.default_rng(0).random((BATCH, 28, 28, 1), dtype=np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fwd = sess.make_callable(h, [x])
        bwd = sess.make_callable(grads, [x])
        fwd(images)
        bwd(images)
        return {"conv_fwd_ms": best_of(lambda: fwd(images)) * 1e3,
                "conv_fwd_bwd_ms": best_of(lambda: bwd(images)) * 1e3}


def mnist_model():
    """Seed 003's CNN with Adam: (train op, images, labels, keep_prob) in a new graph."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.float32, [None, 10])
    keep = tf.placeholder(tf.float32, [])
    h, _ = _conv_layers(x)
    h = tf.reshape(h, [-1, 7 * 7 * 64])
    w3, b3 = _weight([7 * 7 * 64, 1024], 3), tf.Variable(tf.constant(0.1, shape=[1024]))
    h = tf.nn.dropout(tf.nn.relu(tf.matmul(h, w3) + b3), keep_prob=keep, seed=4)
    w4, b4 = _weight([1024, 10], 5), tf.Variable(tf.constant(0.1, shape=[10]))
    logits = tf.matmul(h, w4) + b4
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train = tf.train.AdamOptimizer(1e-4).minimize(loss)
    return train, x, y, keep


def mnist_batch(batch=BATCH):
    """Random MNIST-shaped images and one-hot labels (the same ones on every run)."""
    rng = np.random.default_rng(0)
    images = rng.random((batch, 28, 28, 1), dtype=np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    return images, labels


def mnist_step(batch=BATCH, key="mnist_train_step_ms", repeat=15, number=3):
    train, x, y, keep = mnist_model()
    images, labels = mnist_batch(batch)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        step = sess.make_callable(train, [x, y, keep])
        step(images, labels, 0.5)
        return {key: timing.best_of(lambda: step(images, labels, 0.5), repeat, number) * 1e3}


def mnist_step_b256():
    """The same step at batch 256 (issue 20): a step takes ~5x as long, so fewer rounds."""
    return mnist_step(256, "mnist_train_step_b256_ms", repeat=5, number=1)


def _blas_info():
    try:
        import threadpoolctl
        return [(i.get("internal_api"), i.get("architecture"), i.get("num_threads"))
                for i in threadpoolctl.threadpool_info()]
    except ImportError:
        pass
    try:  # NumPy's bundled OpenBLAS reports its kernel directly
        import ctypes
        import glob
        import os
        libs = glob.glob(os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs",
                                      "*openblas*"))
        lib = ctypes.CDLL(libs[0])
        lib.scipy_openblas_get_corename64_.restype = ctypes.c_char_p
        return [("openblas", lib.scipy_openblas_get_corename64_().decode(),
                 lib.scipy_openblas_get_num_threads64_())]
    except (IndexError, OSError, AttributeError):
        return "unknown"


def main():
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"}
    out.update(conv_layers())
    out.update(mnist_step())
    out.update(mnist_step_b256())
    if "--tf" not in sys.argv:
        print(f"BLAS: {_blas_info()}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
