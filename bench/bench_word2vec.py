"""The word2vec NCE training step of the seed listing, for scopeflow or (with --tf) TensorFlow.

    python bench/bench_word2vec.py            # scopeflow
    ../shared/tools/tf1 bench/bench_word2vec.py --tf
    python bench/compare.py bench/bench_word2vec.py
    python bench/compare.py bench/bench_word2vec_dynamic.py   # the same, --dynamic-batch

With ``--dynamic-batch`` the placeholders are ``[None]`` and ``[None, 1]``, as in the
public tutorials, and batches of 128 are fed: the runtime must not lose the speed the
static ``[128]`` shapes give (plans specialised on the fed shapes).

Vocabulary 50,000, embeddings of 128, batch 128, 64 sampled classes, plain SGD (rate 1.0)
on ``reduce_mean(nce_loss)``. The gradients of both 50,000 x 128 matrices are
``IndexedSlices``, so a step touches only the looked-up rows. Prints one JSON line:
the best mean time of a training step over 30 rounds of 50 steps (after 100 warm-up
steps), of the loss alone, and the graph-build time.
"""

from __future__ import annotations

import importlib
import json
import sys

import numpy as np
from timing import best_of  # noqa: E402 - bench/ is on sys.path when a script runs

if "--tf" in sys.argv:
    import tensorflow.compat.v1 as tf
else:
    import scopeflow as tf

VOCAB, EMBED, BATCH, SAMPLED = 50_000, 128, 128, 64
DYNAMIC = "--dynamic-batch" in sys.argv


def _train_module():
    train = getattr(tf, "train", None)
    return train if train is not None else importlib.import_module("scopeflow.train")


def build():
    """The seed's graph: ``embed`` and ``loss`` name scopes, then one SGD step."""
    tf.reset_default_graph()
    tf.set_random_seed(1)
    batch = None if DYNAMIC else BATCH
    center = tf.placeholder(tf.int32, [batch], name="center_words")
    target = tf.placeholder(tf.int32, [batch, 1], name="target_words")
    with tf.name_scope("embed"):
        embed_matrix = tf.get_variable("embed_matrix", shape=[VOCAB, EMBED],
                                       initializer=tf.random_uniform_initializer())
        embed = tf.nn.embedding_lookup(embed_matrix, center, name="embedding")
    with tf.name_scope("loss"):
        nce_weight = tf.get_variable("nce_weight", shape=[VOCAB, EMBED],
                                     initializer=tf.truncated_normal_initializer())
        nce_bias = tf.get_variable("nce_bias", initializer=tf.zeros([VOCAB]))
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weight, biases=nce_bias,
                                             labels=target, inputs=embed,
                                             num_sampled=SAMPLED, num_classes=VOCAB),
                              name="loss")
    step = _train_module().GradientDescentOptimizer(1.0).minimize(loss)
    return center, target, loss, step


def main():
    out = {"framework": "tensorflow " + tf.__version__ if "--tf" in sys.argv else "scopeflow",
           "batch": "dynamic" if DYNAMIC else "static"}
    out["build_ms"] = best_of(build, repeat=3) * 1e3
    center, target, loss, step = build()
    rng = np.random.default_rng(0)
    feeds = [{center: rng.integers(0, VOCAB, BATCH),
              target: rng.integers(0, VOCAB, (BATCH, 1))} for _ in range(16)]
    with tf.Session() as sess:                     # TF's default threading
        sess.run(tf.global_variables_initializer())
        it = iter(range(10**9))

        def train_step():
            sess.run([loss, step], feeds[next(it) % 16])

        def loss_only():
            sess.run(loss, feeds[next(it) % 16])

        for _ in range(100):                       # steady state, as in a training loop
            train_step()
        # Many short rounds: on a shared machine the best round is the steadiest estimate.
        out["train_step_us"] = best_of(train_step, repeat=30, number=50) * 1e6
        out["loss_only_us"] = best_of(loss_only, repeat=30, number=50) * 1e6
    print(json.dumps(out))


if __name__ == "__main__":
    main()
