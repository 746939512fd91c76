"""Seed 003's cnnmodel.py: an MNIST CNN whose variables live under variable scopes.

Everything is under ``cnn/conv1``, ``cnn/conv2``, ``cnn/fc1``, ``cnn/fc2`` (each with ``w``
and ``b``), and ``tf.get_collection(..., scope='cnn')`` gathers them. Run it to build the
model and take a few Adam steps on random images:

    python examples/cnnmodel.py
"""

import numpy as np

import scopeflow as tf


def weight_variable(shape):
    initial = tf.truncated_normal(shape, stddev=0.1)
    return tf.get_variable(initializer=initial, trainable=True, name='w')


def bias_variable(shape):
    initial = tf.zeros(shape)
    return tf.get_variable(initializer=initial, trainable=True, name='b')


def conv2d(x, W_shape):
    W = weight_variable(W_shape)
    B = bias_variable(W_shape[-1])
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME') + B


def ann(x, W_shape):
    W = weight_variable(W_shape)
    B = bias_variable(W_shape[-1])
    return tf.matmul(x, W) + B


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')


def cnnmodel(inp, keep_prob):
    with tf.variable_scope('cnn'):
        with tf.variable_scope('conv1'):
            h_conv1 = tf.nn.relu(conv2d(inp, [5, 5, 1, 32]))
            h_pool1 = max_pool_2x2(h_conv1)
        with tf.variable_scope('conv2'):
            h_conv2 = tf.nn.relu(conv2d(h_pool1, [5, 5, 32, 64]))
            h_pool2 = max_pool_2x2(h_conv2)
        with tf.variable_scope('fc1'):
            h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
            h_fc1 = tf.nn.relu(ann(h_pool2_flat, [7 * 7 * 64, 1024]))
            h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
        with tf.variable_scope('fc2'):
            y_conv = tf.nn.softmax(ann(h_fc1_drop, [1024, 10]))
    var = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='cnn')
    return y_conv, var


if __name__ == "__main__":
    # The seed's training file, on random data (the MNIST data arrives with the main job).
    sess = tf.InteractiveSession()
    x = tf.placeholder("float", shape=[None, 784])
    y_ = tf.placeholder("float", shape=[None, 10])
    keep_prob = tf.placeholder("float")
    x_image = tf.reshape(x, [-1, 28, 28, 1])
    y_conv, var = cnnmodel(x_image, keep_prob)
    print([v.name for v in var])
    cross_entropy = -tf.reduce_sum(y_ * tf.log(y_conv))
    train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy, var_list=var)
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
    sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    images = rng.random((50, 784), dtype=np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 50)]
    before = cross_entropy.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0})
    for _ in range(5):
        train_step.run(feed_dict={x: images, y_: labels, keep_prob: 0.5})
    after = cross_entropy.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0})
    acc = accuracy.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0})
    print(f"cross-entropy {before:.2f} -> {after:.2f}, training accuracy {acc:g}")
