"""Autodiff and an optimizer with global_step: fit y = 3x + 2 with Adam.

    python examples/train_regression.py
"""

import numpy as np

import scopeflow as tf

x = tf.placeholder(tf.float32, [None], name="x")
y = tf.placeholder(tf.float32, [None], name="y")
w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
loss = tf.reduce_mean(tf.square(w * x + b - y), name="loss")

global_step = tf.train.get_or_create_global_step()
train_op = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=global_step)
print("gradient:", tf.gradients(loss, w)[0].name)     # gradients_1/mul_grad/Reshape:0

xs = np.linspace(-1, 1, 64).astype(np.float32)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(500):
        _, step, value = sess.run([train_op, global_step, loss], {x: xs, y: 3 * xs + 2})
    print(f"step {step}: loss {value:.6f}, w {sess.run(w):.3f}, b {sess.run(b):.3f}")
