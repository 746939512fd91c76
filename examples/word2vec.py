"""Seed 000's word2vec: name scopes, NCE, global_step, periodic checkpoints, resume, summaries.

    python examples/word2vec.py                     # 2,000 steps into checkpoints/word2vec
    python examples/word2vec.py --steps 3000        # continues from the last checkpoint
    python examples/word2vec.py --corpus text8      # a real corpus (whitespace tokens)
    tensorboard --logdir checkpoints/word2vec       # loss curve, graph with embed/loss

Without ``--corpus`` it trains on a generated corpus whose sentences each draw their words
from one of ten topics, so what the embeddings learn can be checked: at the end it prints
how many of each word's five nearest neighbours share its topic (0.10 by chance).

What the seed shows, in order: ``tf.name_scope('embed')``/``('loss')`` group the graph in
TensorBoard; ``global_step`` is passed to ``minimize``; ``saver.save(..., global_step=)``
every ``--save-every`` steps; ``get_checkpoint_state`` + ``restore`` resume; summaries in a
``summaries`` name scope are merged and written with ``writer.add_summary``.
"""

import argparse
import collections
import os

import numpy as np

import scopeflow as tf

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--steps", type=int, default=2000, help="train until global_step = N")
parser.add_argument("--save-every", type=int, default=1000)
parser.add_argument("--logdir", default=os.path.join("checkpoints", "word2vec"))
parser.add_argument("--corpus", help="a text file (e.g. text8); default: a generated corpus")
args = parser.parse_args()

VOCAB_SIZE = 200 if args.corpus is None else 10000
EMBED_SIZE = 32 if args.corpus is None else 128
BATCH_SIZE = 128
NUM_SAMPLED = 16 if args.corpus is None else 64
SKIP_WINDOW = 2
LEARNING_RATE = 1.0
TOPICS = 10


def generated_corpus(rng, sentences=4000, length=12):
    """Words 0..199 in ten topics of twenty; each sentence keeps to one topic."""
    topic = rng.randint(0, TOPICS, size=sentences)
    words = topic[:, None] * (VOCAB_SIZE // TOPICS) + rng.randint(0, VOCAB_SIZE // TOPICS,
                                                                 size=(sentences, length))
    return words, [str(i) for i in range(VOCAB_SIZE)]


def text_corpus(path):
    with open(path) as f:
        tokens = f.read().split()
    counts = collections.Counter(tokens).most_common(VOCAB_SIZE - 1)
    vocab = ["UNK"] + [w for w, _ in counts]
    index = {w: i for i, w in enumerate(vocab)}
    return np.array([[index.get(t, 0) for t in tokens]]), vocab


def skip_gram_pairs(sentences):
    """(center, context) pairs within SKIP_WINDOW, as int32 arrays."""
    centers, contexts = [], []
    for offset in range(1, SKIP_WINDOW + 1):
        for a, b in ((sentences[:, :-offset], sentences[:, offset:]),
                     (sentences[:, offset:], sentences[:, :-offset])):
            centers.append(a.ravel())
            contexts.append(b.ravel())
    return np.concatenate(centers).astype(np.int32), np.concatenate(contexts).astype(np.int32)


rng = np.random.RandomState(0)
sentences, vocab = (generated_corpus(rng) if args.corpus is None else text_corpus(args.corpus))
all_centers, all_targets = skip_gram_pairs(sentences)

# ── the seed's graph ─────────────────────────────────────────────────────────────────
tf.set_random_seed(0)
center_words = tf.placeholder(tf.int32, shape=[BATCH_SIZE], name="center_words")
target_words = tf.placeholder(tf.int32, shape=[BATCH_SIZE, 1], name="target_words")

with tf.name_scope("embed"):
    embed_matrix = tf.get_variable("embed_matrix",
                                   shape=[VOCAB_SIZE, EMBED_SIZE],
                                   initializer=tf.random_uniform_initializer())
    embed = tf.nn.embedding_lookup(embed_matrix, center_words, name="embedding")

with tf.name_scope("loss"):
    nce_weight = tf.get_variable("nce_weight", shape=[VOCAB_SIZE, EMBED_SIZE],
                                 initializer=tf.truncated_normal_initializer())
    nce_bias = tf.get_variable("nce_bias", initializer=tf.zeros([VOCAB_SIZE]))

    loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weight,
                                         biases=nce_bias,
                                         labels=target_words,
                                         inputs=embed,
                                         num_sampled=NUM_SAMPLED,
                                         num_classes=VOCAB_SIZE), name="loss")

global_step = tf.Variable(0, dtype=tf.int32, trainable=False, name="global_step")
optimizer = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss,
                                                                      global_step=global_step)

with tf.name_scope("summaries"):
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("histogram loss", loss)
    summary_op = tf.summary.merge_all()

saver = tf.train.Saver()

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    ckpt = tf.train.get_checkpoint_state(os.path.dirname(os.path.join(args.logdir,
                                                                      "checkpoint")))
    if ckpt and ckpt.model_checkpoint_path:
        saver.restore(sess, ckpt.model_checkpoint_path)
        print("restored", os.path.basename(ckpt.model_checkpoint_path), "at step",
              sess.run(global_step))
    writer = tf.summary.FileWriter(args.logdir, sess.graph)
    start = sess.run(global_step)
    batches = np.random.RandomState(start)  # a resumed run does not replay old batches
    total = 0.0
    for step in range(start, args.steps):
        pick = batches.randint(0, len(all_centers), BATCH_SIZE)
        feed_dict = {center_words: all_centers[pick], target_words: all_targets[pick, None]}
        loss_batch, _, summary = sess.run([loss, optimizer, summary_op], feed_dict=feed_dict)
        writer.add_summary(summary, global_step=step + 1)
        total += loss_batch
        if (step + 1) % args.save_every == 0:
            saver.save(sess, os.path.join(args.logdir, "word2vec"), global_step=global_step)
            print(f"step {step + 1}: average loss {total / args.save_every:.3f}, saved "
                  f"{os.path.basename(saver.last_checkpoints[-1])}")
            total = 0.0
    writer.close()

    if args.corpus is None:
        vectors = sess.run(embed_matrix)
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        similar = unit @ unit.T
        np.fill_diagonal(similar, -np.inf)
        neighbours = np.argsort(-similar, axis=1)[:, :5]
        topic_of = np.arange(VOCAB_SIZE) // (VOCAB_SIZE // TOPICS)
        purity = (topic_of[neighbours] == topic_of[:, None]).mean()
        print(f"nearest neighbours in the same topic: {purity:.2f} (chance 0.10)")
