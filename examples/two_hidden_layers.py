"""Seed 000's first listing: a two-hidden-layer network built twice with tf.Variable.

Calling the function twice creates two full sets of variables (h1_weights, h1_weights_1,
...), which is the seed's motivation for variable sharing. Run it:

    python examples/two_hidden_layers.py
"""

import numpy as np

import scopeflow as tf

x1 = tf.truncated_normal([200, 100], name="x1")
x2 = tf.truncated_normal([200, 100], name="x2")


def two_hidden_layers(x):
    assert x.shape.as_list() == [200, 100]
    w1 = tf.Variable(tf.random_normal([100, 50]), name="h1_weights")
    b1 = tf.Variable(tf.zeros([50]), name="h1_biases")
    h1 = tf.matmul(x, w1) + b1
    assert h1.shape.as_list() == [200, 50]
    w2 = tf.Variable(tf.random_normal([50, 10]), name="h2_weights")
    b2 = tf.Variable(tf.zeros([10]), name="2_biases")
    logits = tf.matmul(h1, w2) + b2
    return logits


logits1 = two_hidden_layers(x1)
logits2 = two_hidden_layers(x2)

print("variables:", [v.name for v in tf.global_variables()])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out1, out2 = sess.run([logits1, logits2])
print("logits1", out1.shape, out1.dtype, "logits2", out2.shape)
print(f"mean |logits1|: {np.abs(out1).mean():.3f}")
