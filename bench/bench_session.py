"""Session.run overhead and graph-build time, for scopeflow or (with --tf) real TensorFlow.

    python bench/bench_session.py            # scopeflow
    ../shared/tools/tf1 bench/bench_session.py --tf
    python bench/compare.py                  # both, side by side, as ratios

Prints one JSON line of timings in microseconds/milliseconds.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from timing import best_of  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
else:
    import scopeflow as tf


def run_overhead():
    """Two ops: a placeholder fed with a scalar, plus one add; and a no-feed fetch."""
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [], name="x")
    y = x + 1.0
    c = tf.constant(2.0) * 3.0
    with tf.Session() as sess:
        sess.run(y, {x: 1.0})
        sess.run(c)
        fed = best_of(lambda: sess.run(y, {x: 1.0}), number=2000)
        unfed = best_of(lambda: sess.run(c), number=2000)
        call = sess.make_callable(y, [x])
        call(1.0)
        callable_t = best_of(lambda: call(1.0), number=2000)
    return {"run_fed_us": fed * 1e6, "run_const_us": unfed * 1e6,
            "make_callable_us": callable_t * 1e6}


def build_deep_mlp(layers=200, width=64):
    """Graph-build time of a deep MLP (matmul, bias add, tanh per layer), and of its gradients."""
    def build():
        tf.reset_default_graph()
        h = tf.placeholder(tf.float32, [None, width])
        for i in range(layers):
            with tf.name_scope(f"layer{i}"):
                w = tf.Variable(np.full((width, width), 0.01, np.float32), name="w")
                b = tf.Variable(np.zeros(width, np.float32), name="b")
                h = tf.tanh(tf.matmul(h, w) + b)
        return h
    build()

    def build_with_gradients():
        h = build()
        return tf.gradients(tf.reduce_sum(h), tf.trainable_variables())

    build_with_gradients()
    build_ms = best_of(build, repeat=3) * 1e3
    both_ms = best_of(build_with_gradients, repeat=3) * 1e3
    return {"build_mlp200_ms": build_ms, "gradients_mlp200_ms": both_ms - build_ms}


def main():
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"}
    out.update(run_overhead())
    out.update(build_deep_mlp())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
