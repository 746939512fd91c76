"""A character-level language model: a 2-layer LSTM trained on a short text, then sampling
new text one character at a time inside a ``tf.while_loop``.

    python examples/char_rnn.py [--steps 40] [--sample-length 60]

The classic char-RNN of TF1 tutorials: characters as one-hot vectors, a ``MultiRNNCell`` of
two ``BasicLSTMCell``s run by ``tf.nn.dynamic_rnn`` over windows of the text, softmax
cross entropy on the next character, Adam. After training, the same cell (variables
reused) generates text in the graph: a ``tf.while_loop`` whose body runs one step of the
cell, draws the next character with ``tf.multinomial`` and writes it into a
``TensorArray``. Seeds are fixed and the windows are taken in order, so two runs (and a run
under TensorFlow, with the import line replaced by ``import tensorflow.compat.v1 as tf;
tf.disable_v2_behavior()``) print the same losses. ``--data-dir`` is accepted and ignored
(the training-comparison harness passes it to every example).
"""

import argparse

import numpy as np

import scopeflow as tf

TEXT = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was "
    "the age of foolishness, it was the epoch of belief, it was the epoch of incredulity, "
    "it was the season of Light, it was the season of Darkness, it was the spring of hope, "
    "it was the winter of despair, we had everything before us, we had nothing before us, "
    "we were all going direct to Heaven, we were all going direct the other way."
)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--window", type=int, default=24)
parser.add_argument("--units", type=int, default=64)
parser.add_argument("--sample-length", type=int, default=60)
parser.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
args = parser.parse_args()

chars = sorted(set(TEXT))
vocab = len(chars)
index = {c: i for i, c in enumerate(chars)}
encoded = np.array([index[c] for c in TEXT], np.int32)

tf.set_random_seed(2024)
inputs = tf.placeholder(tf.int32, [None, args.window], name="inputs")
targets = tf.placeholder(tf.int32, [None, args.window], name="targets")

cell = tf.nn.rnn_cell.MultiRNNCell(
    [tf.nn.rnn_cell.BasicLSTMCell(args.units) for _ in range(2)])
with tf.variable_scope("model"):
    outputs, _ = tf.nn.dynamic_rnn(cell, tf.one_hot(inputs, vocab), dtype=tf.float32)
    logits = tf.layers.dense(outputs, vocab, name="softmax")
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets,
                                                                     logits=logits))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

# Sampling in the graph: one cell step per iteration, the next character drawn from it.
start = tf.placeholder(tf.int32, [], name="start")
with tf.variable_scope("model", reuse=True):
    def sample_step(i, char, state, text):
        with tf.variable_scope("rnn"):
            out, state = cell(tf.one_hot([char], vocab), state)
        step_logits = tf.layers.dense(out, vocab, name="softmax")
        char = tf.cast(tf.multinomial(step_logits, 1, seed=7)[0, 0], tf.int32)
        return i + 1, char, state, text.write(i, char)

    _, _, _, sampled = tf.while_loop(
        lambda i, *_: i < args.sample_length, sample_step,
        (tf.constant(0), start, cell.zero_state(1, tf.float32),
         tf.TensorArray(tf.int32, size=args.sample_length)))
    sample = sampled.stack()

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    span = args.window + 1
    for step in range(1, args.steps + 1):
        first = (step - 1) * args.batch_size
        rows = [encoded[(first + b) * 3 % (len(encoded) - span):][:span]
                for b in range(args.batch_size)]
        batch = np.stack(rows)
        value, _ = sess.run([loss, train_op], {inputs: batch[:, :-1], targets: batch[:, 1:]})
        print(f"step {step}: loss {value:.9g}")
    generated = sess.run(sample, {start: index["I"]})
    print("sample: " + "I" + "".join(chars[i] for i in generated))
