"""Summary writing, for scopeflow or (with --tf) real TensorFlow.

    python bench/bench_summary.py            # scopeflow
    ../shared/tools/tf1 bench/bench_summary.py --tf
    python bench/compare.py bench/bench_summary.py

A training loop's summaries, every step: a scalar (the mean of the seed CNN's 3136x1024
dense weights), a histogram of those 3.2M weights, and an image summary of a fed batch of
3 28x28 images, all through ``tf.summary.merge_all()``. A step is ``sess.run`` of the
merged summary plus ``FileWriter.add_summary(bytes, step)`` (``summary_step_ms``, best of
5 rounds of 10 steps). Events that a writer only queues during the step are written by
``FileWriter.flush`` + ``close`` at the end, timed once (``flush_close_ms``). The histogram
dominates: its kernel sorts the 3.2M values into TF's bucket boundaries. Writes into a
temporary directory, removed at the end. Prints one JSON line.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import timing  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
else:
    import scopeflow as tf

STEPS_PER_ROUND = 10


def summary_graph():
    """The summaries over a dense layer's weights and a fed image batch; (merged, images)."""
    tf.reset_default_graph()
    weights = tf.Variable(tf.truncated_normal([7 * 7 * 64, 1024], stddev=0.1, seed=3),
                          name="dense/kernel")
    images = tf.placeholder(tf.float32, [3, 28, 28, 1], name="images")
    tf.summary.scalar("weights_mean", tf.reduce_mean(weights))
    tf.summary.histogram("dense/kernel", weights)
    tf.summary.image("inputs", images, max_outputs=3)
    return tf.summary.merge_all(), images


def main():
    merged, images = summary_graph()
    batch = np.random.default_rng(0).random((3, 28, 28, 1), dtype=np.float32)
    logdir = tempfile.mkdtemp(prefix="bench_summary_")
    try:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # flush_secs: no background flush inside the timed rounds, as flush is timed apart
            writer = tf.summary.FileWriter(logdir, flush_secs=3600)
            counter = iter(range(10**9))

            def step():
                writer.add_summary(sess.run(merged, {images: batch}), next(counter))

            step()  # warm-up: plans compiled, the event file opened
            step_s = timing.best_of(step, 5, STEPS_PER_ROUND)

            def flush_close():
                t0 = time.perf_counter()
                writer.flush()
                writer.close()
                return time.perf_counter() - t0

            [close_s] = timing.each_round(flush_close)
            written = sum(f.stat().st_size for f in os.scandir(logdir))
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    print(f"event files: {written / 1e6:.1f} MB after {next(counter)} steps", file=sys.stderr)
    name = "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"
    print(json.dumps({"framework": name, "summary_step_ms": step_s * 1e3,
                      "flush_close_ms": close_s * 1e3}))


if __name__ == "__main__":
    main()
