"""Seed 003's restore file: reload ``backup/latest`` whole, or only the conv1 layer.

    python examples/mnist_train.py                  # writes backup/latest first
    python examples/mnist_restore.py                # every variable under 'cnn'
    python examples/mnist_restore.py --only conv1   # the variables whose name has 'conv1'

As the seed stresses, the restore comes *after* ``global_variables_initializer()``
(initializing afterwards would overwrite the restored values). It then compares each
variable with the checkpoint (``tf.train.load_variable``), the seed's
``print(sess.run(net_var[1]))`` check, and prints the test accuracy.
"""

import argparse
import contextlib
import os

import numpy as np

import scopeflow as tf
from scopeflow.datasets.mnist import MNISTUnavailableError
from scopeflow.examples.tutorials.mnist import input_data

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--only", default="cnn", help="restore the variables whose name has this")
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

sess = tf.InteractiveSession()
x = tf.placeholder("float", shape=[None, 784])
y_ = tf.placeholder("float", shape=[None, 10])
keep_prob = tf.placeholder("float")
x_image = tf.reshape(x, [-1, 28, 28, 1])
y_conv, var = cnnmodel(x_image, keep_prob)
var_ = tf.global_variables()
net_var = [var for var in var_ if args.only in var.name]
sess.run(tf.global_variables_initializer())
checkpoint = os.path.join(args.backup_dir, "latest")
if tf.train.get_checkpoint_state(args.backup_dir + "/"):
    print('\nfound\n')
    saver = tf.train.Saver(net_var)
    saver.restore(sess, checkpoint)

# Which variables now hold the checkpoint's values?
for v in tf.global_variables():
    same = np.array_equal(sess.run(v), tf.train.load_variable(checkpoint, v.op.name))
    print(f"{v.op.name}: {'restored' if same else 'initial value'}")

correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
correct = 0
for i in range(0, mnist.test.num_examples, 1000):
    images, labels = mnist.test.images[i:i + 1000], mnist.test.labels[i:i + 1000]
    correct += accuracy.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0}) * len(images)
print("test accuracy %g" % (correct / mnist.test.num_examples))
