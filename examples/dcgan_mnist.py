"""A small DCGAN on MNIST, with batch normalization (TensorFlow-Examples' ``dcgan.py`` style).

    python examples/dcgan_mnist.py --data-dir DIR [--steps 20] [--batch-size 16]
                                   [--dtype float64]

The TF1 program people have, at a smaller width so that a few steps take seconds: the
generator is dense -> reshape -> ``tf.layers.conv2d_transpose`` with
``tf.layers.batch_normalization(training=is_training)`` and relu, and a tanh image; the
discriminator is ``tf.layers.conv2d`` with batch normalization and leaky relu, then dense,
built three times under ``tf.variable_scope('Discriminator', reuse=...)`` (on real images,
on generated ones for its own loss, and for the generator's). Two Adam optimizers train
each network's variables (``var_list`` from the TRAINABLE_VARIABLES collection of its
scope), under ``tf.control_dependencies`` on the scope's UPDATE_OPS, the moving averages
of batch normalization. Otherwise changed only so that two runs see the same numbers
(and ``tf.nn.leaky_relu`` for the original's own leaky relu): a graph-level seed, batches
taken in order from the data, noise drawn by a seeded NumPy generator. It prints both
losses of every step. ``--dtype float64`` builds the same networks in float64
(placeholders, hence every layer), where rounding no longer hides the arithmetic.

The same file runs under TensorFlow when its import line is replaced by
``import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()``
(tests/integration/test_training_vs_tf.py compares the two).
"""

import argparse
import os

import numpy as np
from mnist_arrays import load_mnist  # examples/mnist_arrays.py, beside this file

import scopeflow as tf

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--data-dir", default=os.environ.get("SCOPEFLOW_MNIST_DIR", "MNIST_data"),
                    help="MNIST's IDX files (train-*, else the t10k-* test set)")
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
args = parser.parse_args()


images = load_mnist(args.data_dir)[0][..., None]  # [N, 28, 28, 1]

# Training parameters
num_steps = args.steps
batch_size = args.batch_size
lr_generator = 0.002
lr_discriminator = 0.002

# Network parameters (the original: 100 noise dimensions, 64/128 filters, 1024 units)
noise_dim = 32

tf.set_random_seed(2019)
rng = np.random.RandomState(2019)
dtype, np_dtype = tf.as_dtype(args.dtype), np.dtype(args.dtype)
digits = 9 if args.dtype == "float32" else 15  # printed: enough to tell the runs apart

# A boolean to tell batch normalization whether it is training or inferring
is_training = tf.placeholder(tf.bool)


def generator(x, reuse=False):
    with tf.variable_scope("Generator", reuse=reuse):
        x = tf.layers.dense(x, units=7 * 7 * 32)
        x = tf.layers.batch_normalization(x, training=is_training)
        x = tf.nn.relu(x)
        # Reshape to a 4-D array of images: (batch, height, width, channels)
        x = tf.reshape(x, shape=[-1, 7, 7, 32])
        # Deconvolution, image shape: (batch, 14, 14, 16)
        x = tf.layers.conv2d_transpose(x, 16, 5, strides=2, padding="same")
        x = tf.layers.batch_normalization(x, training=is_training)
        x = tf.nn.relu(x)
        # Deconvolution, image shape: (batch, 28, 28, 1)
        x = tf.layers.conv2d_transpose(x, 1, 5, strides=2, padding="same")
        # Apply tanh for better stability - clip values to [-1, 1].
        x = tf.nn.tanh(x)
        return x


def discriminator(x, reuse=False):
    with tf.variable_scope("Discriminator", reuse=reuse):
        x = tf.layers.conv2d(x, 16, 5, strides=2, padding="same")
        x = tf.layers.batch_normalization(x, training=is_training)
        x = tf.nn.leaky_relu(x, alpha=0.2)
        x = tf.layers.conv2d(x, 32, 5, strides=2, padding="same")
        x = tf.layers.batch_normalization(x, training=is_training)
        x = tf.nn.leaky_relu(x, alpha=0.2)
        # Flatten
        x = tf.reshape(x, shape=[-1, 7 * 7 * 32])
        x = tf.layers.dense(x, 64)
        x = tf.layers.batch_normalization(x, training=is_training)
        x = tf.nn.leaky_relu(x, alpha=0.2)
        # Output 2 classes: Real and Fake images
        x = tf.layers.dense(x, 2)
    return x


# Build Networks
noise_input = tf.placeholder(dtype, shape=[None, noise_dim])
real_image_input = tf.placeholder(dtype, shape=[None, 28, 28, 1])

# Build Generator Network
gen_sample = generator(noise_input)

# Build 2 Discriminator Networks (one from noise input, one from generated samples)
disc_real = discriminator(real_image_input)
disc_fake = discriminator(gen_sample, reuse=True)

# Build the stacked generator/discriminator
stacked_gan = discriminator(gen_sample, reuse=True)

# Build Loss (Labels for real images: 1, for fake images: 0)
# Discriminator Loss for real and fake samples
disc_loss_real = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    logits=disc_real, labels=tf.ones([batch_size], dtype=tf.int32)))
disc_loss_fake = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    logits=disc_fake, labels=tf.zeros([batch_size], dtype=tf.int32)))
# Sum both loss
disc_loss = disc_loss_real + disc_loss_fake
# Generator Loss (The generator tries to fool the discriminator, thus labels are 1)
gen_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    logits=stacked_gan, labels=tf.ones([batch_size], dtype=tf.int32)))

# Build Optimizers
optimizer_gen = tf.train.AdamOptimizer(learning_rate=lr_generator, beta1=0.5, beta2=0.999)
optimizer_disc = tf.train.AdamOptimizer(learning_rate=lr_discriminator, beta1=0.5,
                                        beta2=0.999)

# Training Variables for each optimizer
# By default in TensorFlow, all variables are updated by each optimizer, so we
# need to precise for each one of them the specific variables to update.
# Generator Network Variables
gen_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="Generator")
# Discriminator Network Variables
disc_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="Discriminator")

# Create training operations
# TensorFlow UPDATE_OPS collection holds all batch norm operation to update the moving
# mean/stddev
gen_update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope="Generator")
# `control_dependencies` ensure that the `gen_update_ops` will be run before the
# `minimize` op (backprop)
with tf.control_dependencies(gen_update_ops):
    train_gen = optimizer_gen.minimize(gen_loss, var_list=gen_vars)
disc_update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope="Discriminator")
with tf.control_dependencies(disc_update_ops):
    train_disc = optimizer_disc.minimize(disc_loss, var_list=disc_vars)

# Initialize the variables (i.e. assign their default value)
init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(1, num_steps + 1):
        # Batches in order (the same in every run); rescale to [-1, 1]
        batch_x = (images[(i - 1) * batch_size:i * batch_size] * 2. - 1.).astype(np_dtype)
        # Discriminator Training: noise to feed to the generator
        z = rng.uniform(-1., 1., size=[batch_size, noise_dim]).astype(np_dtype)
        _, dl = sess.run([train_disc, disc_loss], feed_dict={
            real_image_input: batch_x, noise_input: z, is_training: True})
        # Generator Training: new noise to feed to the generator
        z = rng.uniform(-1., 1., size=[batch_size, noise_dim]).astype(np_dtype)
        _, gl = sess.run([train_gen, gen_loss], feed_dict={noise_input: z, is_training: True})
        print(f"step {i}: generator {gl:.{digits}g}, discriminator {dl:.{digits}g}")
    # The generator in inference mode (batch normalization's moving averages)
    z = rng.uniform(-1., 1., size=[4, noise_dim]).astype(np_dtype)
    g = sess.run(gen_sample, feed_dict={noise_input: z, is_training: False})
    print(f"generated images: {g.shape}, pixel mean {g.mean():.4f}")
