"""Seed 000's partial savers: save and restore only chosen variables.

    python examples/partial_savers.py [--dir checkpoints/partial]

A Saver built from a dict saves each variable under the dict's key; one built from a list
uses each variable's op name, so the seed's three forms below write the same keys. A
variable left out (``v3``) is neither saved nor restored: after restoring into a fresh
session it still needs its initializer.
"""

import argparse
import os

import scopeflow as tf

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--dir", default=os.path.join("checkpoints", "partial"))
args = parser.parse_args()
os.makedirs(args.dir, exist_ok=True)

v1 = tf.Variable([1.0, 2.0], name="v1")
v2 = tf.Variable([[3.0]], name="v2")
v3 = tf.Variable(4.0, name="v3")

savers = {
    "dict": tf.train.Saver({'v1': v1, 'v2': v2}),                     # as a dict
    "list": tf.train.Saver([v1, v2]),                                 # as a list
    "op names": tf.train.Saver({v.op.name: v for v in [v1, v2]}),     # the list, spelled out
}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run([v1.assign([10.0, 20.0]), v3.assign(40.0)])
    for name, saver in savers.items():
        path = saver.save(sess, os.path.join(args.dir, name.replace(" ", "_")))
        print(f"{name:>8}: {[key for key, _ in tf.train.list_variables(path)]}")
    # A renamed key: v1's value stored as 'weights'.
    renamed = tf.train.Saver({"weights": v1}).save(sess, os.path.join(args.dir, "renamed"))
    print(f" renamed: {tf.train.list_variables(renamed)}")

with tf.Session() as sess:
    savers["list"].restore(sess, os.path.join(args.dir, "list"))
    print("restored v1, v2:", sess.run(v1).tolist(), sess.run(v2).tolist())
    print("uninitialized:", [name.decode() for name in
                             sess.run(tf.report_uninitialized_variables())])
