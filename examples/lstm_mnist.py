"""An LSTM classifier on MNIST rows: TensorFlow-Examples' ``recurrent_network.py``.

    python examples/lstm_mnist.py --data-dir DIR [--steps 30] [--batch-size 32]

aymericdamien's TensorFlow-Examples program, as people run it: each 28x28 digit is 28
time steps of 28 pixels, read by ``tf.nn.rnn_cell.BasicLSTMCell(128)`` through
``tf.nn.static_rnn``; the last output goes through a dense layer to 10 logits, trained with
softmax cross entropy by plain gradient descent. Changed from the original: short runs
(30 steps of 32 at a learning rate of 0.1, where it trains 10,000 steps of 128 at 0.001),
the loss fetched with every step, and, so that two runs see the same numbers, a
graph-level seed and batches taken in order from the data instead of ``next_batch``'s
shuffle. It prints the loss of every step.

The same file runs under TensorFlow when its import line is replaced by
``import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()``
(tests/integration/test_training_vs_tf.py compares the two).
"""

import argparse
import os

from mnist_arrays import load_mnist  # examples/mnist_arrays.py, beside this file

import scopeflow as tf

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--data-dir", default=os.environ.get("SCOPEFLOW_MNIST_DIR", "MNIST_data"),
                    help="MNIST's IDX files (train-*, else the t10k-* test set)")
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--learning-rate", type=float, default=0.1)
args = parser.parse_args()


images, labels = load_mnist(args.data_dir)

# Training parameters (the original trains 10,000 steps of 128 at 0.001)
learning_rate = args.learning_rate
training_steps = args.steps
batch_size = args.batch_size

# Network parameters
num_input = 28    # MNIST data input (image shape: 28*28)
timesteps = 28    # timesteps
num_hidden = 128  # hidden layer num of features
num_classes = 10  # MNIST total classes (0-9 digits)

tf.set_random_seed(1234)

# tf Graph input
X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])

# Define weights
weights = {"out": tf.Variable(tf.random_normal([num_hidden, num_classes]))}
biases = {"out": tf.Variable(tf.random_normal([num_classes]))}


def RNN(x, weights, biases):
    # Unstack to get a list of 'timesteps' tensors of shape (batch_size, num_input)
    x = tf.unstack(x, timesteps, 1)
    # Define a lstm cell with tensorflow
    lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(num_hidden, forget_bias=1.0)
    # Get lstm cell output
    outputs, states = tf.nn.static_rnn(lstm_cell, x, dtype=tf.float32)
    # Linear activation, using rnn inner loop last output
    return tf.matmul(outputs[-1], weights["out"]) + biases["out"]


logits = RNN(X, weights, biases)
prediction = tf.nn.softmax(logits)

# Define loss and optimizer
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

# Evaluate model (with test logits, for dropout to be disabled)
correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for step in range(1, training_steps + 1):
        start = (step - 1) * batch_size  # batches in order: the same in every run
        batch_x = images[start:start + batch_size].reshape((batch_size, timesteps, num_input))
        batch_y = labels[start:start + batch_size]
        _, loss = sess.run([train_op, loss_op], feed_dict={X: batch_x, Y: batch_y})
        print(f"step {step}: loss {loss:.9g}")
    test_x = images[-256:].reshape((-1, timesteps, num_input))
    acc = sess.run(accuracy, feed_dict={X: test_x, Y: labels[-256:]})
    print(f"accuracy on the last 256 digits: {acc:.4f}")
