"""Seed 003's training file: the cnnmodel.py CNN on MNIST, saved to ``backup/latest``.

    python examples/mnist_train.py                  # 2,000 steps, as the seed
    python examples/mnist_restore.py                # restore everything, or:
    python examples/mnist_restore.py --only conv1   # only the conv1 variables

The seed's listing with ``import scopeflow as tf``; flags only change its constants
(``--steps``, ``--data-dir``, ``--backup-dir``). For the full job with TensorBoard
summaries, checkpoints every N steps and automatic resume, run
``python -m scopeflow.examples.mnist_cnn``.
"""

import argparse
import contextlib
import os

from scopeflow.datasets.mnist import MNISTUnavailableError
from scopeflow.examples.tutorials.mnist import input_data

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--steps", type=int, default=2000)
parser.add_argument("--data-dir", default=os.environ.get("SCOPEFLOW_MNIST_DIR", "MNIST_data"))
parser.add_argument("--backup-dir", default="backup")
parser.add_argument("--validation-size", type=int, default=5000)
args = parser.parse_args()

try:
    mnist = input_data.read_data_sets(args.data_dir, one_hot=True,
                                      validation_size=args.validation_size)
except MNISTUnavailableError as e:  # no files and no network: say what to do, no traceback
    with contextlib.suppress(OSError):  # the empty folder input_data made for the download
        os.rmdir(args.data_dir)
    raise SystemExit(f"{e}\nWithout MNIST, python -m scopeflow.examples.mnist_cnn trains the "
                     "same CNN on scikit-learn's bundled digits.") from None
from cnnmodel import cnnmodel  # noqa: E402 - examples/cnnmodel.py, beside this file

import scopeflow as tf  # noqa: E402 - the seed imports TensorFlow after the data

sess = tf.InteractiveSession()
x = tf.placeholder("float", shape=[None, 784])
y_ = tf.placeholder("float", shape=[None, 10])
keep_prob = tf.placeholder("float")
x_image = tf.reshape(x, [-1, 28, 28, 1])
y_conv, var = cnnmodel(x_image, keep_prob)
cross_entropy = -tf.reduce_sum(y_ * tf.log(y_conv))
train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy, var_list=var)
correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
sess.run(tf.global_variables_initializer())
os.makedirs(args.backup_dir, exist_ok=True)
last = args.steps - 1
for i in range(args.steps):
    batch = mnist.train.next_batch(50)
    train_step.run(feed_dict={x: batch[0], y_: batch[1], keep_prob: 0.5})
    if i % 500 == 0 or i == last:
        train_accuracy = accuracy.eval(feed_dict={
            x: batch[0], y_: batch[1], keep_prob: 1.0})
        print("step %d, training accuracy %g" % (i, train_accuracy))  # noqa: UP031
        # NOTE: the seed makes a new Saver at every report; kept as written.
        saver = tf.train.Saver()
        saver.save(sess, os.path.join(args.backup_dir, "latest"))

# Not in the seed's listing: the test accuracy, in batches of 1,000 images.
correct = 0
for i in range(0, mnist.test.num_examples, 1000):
    correct += accuracy.eval(feed_dict={x: mnist.test.images[i:i + 1000],
                                        y_: mnist.test.labels[i:i + 1000],
                                        keep_prob: 1.0}) * len(mnist.test.images[i:i + 1000])
print(f"test accuracy {correct / mnist.test.num_examples:g}")
