"""Optimizer step cost, for scopeflow or (with --tf) real TensorFlow.

    python bench/bench_train.py            # scopeflow
    ../shared/tools/tf1 bench/bench_train.py --tf
    python bench/compare.py bench/bench_train.py   # both, as ratios

The gradient is fed (a placeholder), so the timing is the update kernel plus Session.run
overhead: an Adam step and a GradientDescent step on a 4M-float variable, a sparse
Momentum step on a 1M x 16 embedding (64 rows), and a tiny-variable Adam step (overhead).
Prints one JSON line of milliseconds.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import timing  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
else:
    import scopeflow as tf
    import scopeflow.train  # noqa: F401


def best_of(fn, repeat=5, number=10):
    return timing.best_of(fn, repeat, number)


def dense_step(make_opt, n):
    tf.reset_default_graph()
    w = tf.Variable(np.zeros(n, np.float32), name="w")
    g = tf.placeholder(tf.float32, [n], name="g")
    train = make_opt().apply_gradients([(g, w)])
    grad = np.random.RandomState(0).standard_normal(n).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {g: grad})
        return best_of(lambda: sess.run(train, {g: grad}))


def sparse_step(rows=1_000_000, dim=16, k=64):
    tf.reset_default_graph()
    e = tf.Variable(np.zeros((rows, dim), np.float32), name="emb")
    vals = tf.placeholder(tf.float32, [k, dim])
    idx = tf.placeholder(tf.int32, [k])
    train = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients(
        [(tf.IndexedSlices(vals, idx, tf.constant([rows, dim])), e)])
    rng = np.random.RandomState(0)
    feed = {vals: rng.standard_normal((k, dim)).astype(np.float32),
            idx: rng.randint(0, rows, k).astype(np.int32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        return best_of(lambda: sess.run(train, feed), number=50)


def main():
    n = 4 * 1024 * 1024
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"}
    out["adam_4M_ms"] = dense_step(lambda: tf.train.AdamOptimizer(1e-3), n) * 1e3
    out["sgd_4M_ms"] = dense_step(lambda: tf.train.GradientDescentOptimizer(0.1), n) * 1e3
    out["momentum_sparse_64rows_ms"] = sparse_step() * 1e3
    out["adam_tiny_ms"] = dense_step(lambda: tf.train.AdamOptimizer(1e-3), 10) * 1e3
    print(json.dumps(out))


if __name__ == "__main__":
    main()
