"""Seed 000's a.py / b.py: a graph-level seed makes random ops repeatable across programs.

Run it twice: both runs print the same two numbers.

    python examples/random_seed_ab.py
"""

import scopeflow as tf

tf.set_random_seed(2)
c = tf.random_uniform([], -10, 10)
d = tf.random_uniform([], -10, 10)

with tf.Session() as sess:
    print(sess.run(c))
    print(sess.run(d))
