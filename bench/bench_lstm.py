"""An LSTM training step (issue 17): ``tf.nn.dynamic_rnn`` over MNIST-row-shaped input, for
scopeflow or (with --tf) TensorFlow.

    python bench/bench_lstm.py            # scopeflow
    ../shared/tools/tf1 bench/bench_lstm.py --tf
    python bench/compare.py bench/bench_lstm.py

Batch 64, 28 time steps of 28 inputs, ``BasicLSTMCell(128)``, a dense layer to 10 classes,
softmax cross entropy, Adam. Prints one JSON line: the best mean time of a training step
(forward, the while loop's gradient, the update) over 20 rounds of 5 steps after warm-up,
of the forward pass alone, and the same step with the static (unrolled) ``static_rnn``.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from timing import best_of  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import scopeflow as tf

BATCH, STEPS, INPUTS, UNITS, CLASSES = 64, 28, 28, 128, 10


def build(dynamic=True):
    tf.reset_default_graph()
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, STEPS, INPUTS], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS)
    if dynamic:
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        last = outputs[:, -1]
    else:
        outputs, _ = tf.nn.static_rnn(cell, tf.unstack(x, STEPS, 1), dtype=tf.float32)
        last = outputs[-1]
    logits = tf.layers.dense(last, CLASSES)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    step = tf.train.AdamOptimizer(1e-3).minimize(loss)
    return x, y, loss, step


def time_step(dynamic):
    x, y, loss, step = build(dynamic)
    rng = np.random.default_rng(0)
    feeds = [{x: rng.random((BATCH, STEPS, INPUTS), dtype=np.float32),
              y: rng.integers(0, CLASSES, BATCH)} for _ in range(4)]
    times = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        it = iter(range(10**9))

        def train_step():
            sess.run([loss, step], feeds[next(it) % 4])

        def forward():
            sess.run(loss, feeds[next(it) % 4])

        for _ in range(5):
            train_step()
        times["train_step_ms"] = best_of(train_step, repeat=20, number=5) * 1e3
        times["forward_ms"] = best_of(forward, repeat=20, number=5) * 1e3
    return times


def main():
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"}
    dynamic = time_step(True)
    out["dynamic_rnn_train_step_ms"] = dynamic["train_step_ms"]
    out["dynamic_rnn_forward_ms"] = dynamic["forward_ms"]
    static = time_step(False)
    out["static_rnn_train_step_ms"] = static["train_step_ms"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
