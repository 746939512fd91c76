"""An input pipeline feeding the seed CNN (issue 18), for scopeflow or (with --tf) TensorFlow.

    python bench/bench_pipeline.py            # scopeflow
    ../shared/tools/tf1 bench/bench_pipeline.py --tf
    python bench/compare.py bench/bench_pipeline.py

MNIST-shaped records (4,000 28x28 uint8 images with labels, made with a fixed seed, as
``tf.train.Example``s in a TFRecord file) read by ``TFRecordDataset``, parsed
(``parse_single_example``, ``decode_raw``), scaled, shuffled, repeated, batched (50) and
prefetched into seed 003's CNN training step (bench_conv.py's model). Prints one JSON line:
elements per second through the pipeline alone, the training step fed by the pipeline, and
the same step fed the same batch by ``feed_dict``, and (scopeflow) how many of the timed
pipeline-fed steps found no batch ready in the prefetch buffer and waited for it: none
means the input side never starved the step (a slower pipeline-fed step is then CPU shared
with the producer thread, not waiting for input).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile

import numpy as np
import timing  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import scopeflow as tf

import bench_conv  # noqa: E402 - the same CNN (it imports the framework chosen above)

RECORDS, BATCH = 4000, 50


def write_records(path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (RECORDS, 28 * 28), dtype=np.uint8)
    labels = rng.integers(0, 10, RECORDS)
    with tf.python_io.TFRecordWriter(path) as writer:
        for image, label in zip(images, labels):
            example = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[image.tobytes()])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=[int(label)])),
            }))
            writer.write(example.SerializeToString())


def parse(record):
    features = tf.parse_single_example(record, {
        "image": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64)})
    image = tf.cast(tf.decode_raw(features["image"], tf.uint8), tf.float32) / 255.0
    return tf.reshape(image, [28, 28, 1]), tf.one_hot(features["label"], 10)


def pipeline(path):
    ds = tf.data.TFRecordDataset([path]).map(parse, num_parallel_calls=2)
    ds = ds.shuffle(1000, seed=1).repeat().batch(BATCH).prefetch(2)
    return tf.data.make_one_shot_iterator(ds).get_next()


def train_op(images, labels, keep):
    h, _ = bench_conv._conv_layers(images)
    h = tf.reshape(h, [-1, 7 * 7 * 64])
    w3 = bench_conv._weight([7 * 7 * 64, 1024], 3)
    b3 = tf.Variable(tf.constant(0.1, shape=[1024]))
    h = tf.nn.dropout(tf.nn.relu(tf.matmul(h, w3) + b3), keep_prob=keep, seed=4)
    w4, b4 = bench_conv._weight([1024, 10], 5), tf.Variable(tf.constant(0.1, shape=[10]))
    logits = tf.matmul(h, w4) + b4
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                     logits=logits))
    return tf.train.AdamOptimizer(1e-4).minimize(loss)


def _prefetcher(sess):
    """scopeflow's prefetch stage of the pipeline's iterator (None under TF)."""
    if "--tf" in sys.argv:
        return None
    from scopeflow.data.buffers import _PrefetchIterator as _Prefetch

    for resource in sess._state.resources.values():
        it = getattr(resource, "iterator", None)
        while it is not None and not isinstance(it, _Prefetch):
            it = getattr(it, "inner", None)
        if it is not None:
            return it
    return None


def main():
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow"}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mnist.tfrecord")
        write_records(path)
        tf.reset_default_graph()
        images, labels = pipeline(path)
        keep = tf.placeholder_with_default(0.5, [])
        step_from_pipeline = train_op(images, labels, keep)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(step_from_pipeline)
            batch = sess.run([images, labels])
            seconds = timing.best_of(lambda: sess.run(images.op), repeat=10, number=10)
            out["pipeline_elements_per_s"] = BATCH / seconds
            prefetch = _prefetcher(sess)
            if prefetch is not None:
                prefetch.taken = prefetch.starved = 0
                prefetch.starved_s = 0.0
            out["step_from_pipeline_ms"] = timing.best_of(
                lambda: sess.run(step_from_pipeline), repeat=10, number=3) * 1e3
            if prefetch is not None:
                # Steps whose get_next found no batch ready: the input side starving them.
                out["steps_that_waited_for_input"] = f"{prefetch.starved}/{prefetch.taken}"
                out["input_wait_ms_per_step"] = prefetch.starved_s / prefetch.taken * 1e3
            feed = {images: batch[0], labels: batch[1]}
            out["step_fed_ms"] = timing.best_of(
                lambda: sess.run(step_from_pipeline, feed), repeat=10, number=3) * 1e3
    print(json.dumps(out))


if __name__ == "__main__":
    main()
