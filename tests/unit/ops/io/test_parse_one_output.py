"""A parsing op with one output (one ``FixedLenFeature``, one context feature) hands its
consumers the array itself: ``tf.parse_example(s, {'x': FixedLenFeature([2], ...)})['x'][:, 0]``
failed with "TypeError: tuple indices must be integers..." (the kernel's 1-tuple reached
``StridedSlice``); so did ``DecodeCSV`` of one column and ``DynamicPartition`` into one.
Values against TF 2.21 (a live check, skipped without it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import scopeflow

# The program builds a few ops per run on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore::scopeflow.framework.graph.GraphGrowthWarning")

PROGRAM = """
F = tf.train.Feature
ex = tf.train.Example(features=tf.train.Features(feature={
    "x": F(float_list=tf.train.FloatList(value=[1.0, 2.0]))})).SerializeToString()
ex2 = tf.train.Example(features=tf.train.Features(feature={
    "x": F(float_list=tf.train.FloatList(value=[3.0, -4.0]))})).SerializeToString()
se = tf.train.SequenceExample(context=tf.train.Features(feature={
    "c": F(int64_list=tf.train.Int64List(value=[7]))})).SerializeToString()
RESULT = {}
with tf.Graph().as_default(), tf.Session() as sess:
    s = tf.placeholder(tf.string, [None])
    p = tf.parse_example(s, {"x": tf.FixedLenFeature([2], tf.float32)})
    RESULT["n_outputs"] = len(p["x"].op.outputs)
    RESULT["column"] = sess.run(p["x"][:, 0], {s: [ex, ex2]}).tolist()
    RESULT["batch"] = sess.run(p["x"], {s: [ex, ex2]}).tolist()
    one = tf.parse_single_example(ex2, {"x": tf.FixedLenFeature([2], tf.float32)})
    RESULT["single"] = sess.run(one["x"] + 1).tolist()
    ctx, _ = tf.io.parse_single_sequence_example(
        se, context_features={"c": tf.FixedLenFeature([], tf.int64)})
    RESULT["seq_single"] = int(sess.run(ctx["c"] + 1))
    ctx, _, _ = tf.io.parse_sequence_example(
        [se, se], context_features={"c": tf.FixedLenFeature([], tf.int64)})
    RESULT["seq_batch"] = sess.run(ctx["c"] * 2).tolist()
    # The same for other kernels of a variable number of outputs, when it is one.
    RESULT["csv"] = sess.run(tf.decode_csv(tf.constant(["1", "2"]), [[0]])[0][1:]).tolist()
    part = tf.dynamic_partition(tf.constant([1.0, 2.0]), tf.constant([0, 0]), 1)[0]
    RESULT["partition"] = sess.run(part[:1] + 1).tolist()
"""


def _ours():
    env = {"tf": scopeflow, "np": np}
    exec(PROGRAM, env)  # noqa: S102 - the shared program, run against scopeflow
    return env["RESULT"]


def test_one_dense_output_reaches_its_consumer_as_an_array():
    r = _ours()
    assert r["n_outputs"] == 1
    assert r["column"] == [1.0, 3.0]
    assert r["batch"] == [[1.0, 2.0], [3.0, -4.0]]
    assert r["single"] == [4.0, -3.0]


def test_one_context_feature_of_a_sequence_example():
    r = _ours()
    assert r["seq_single"] == 8 and r["seq_batch"] == [14, 14]


def test_decode_csv_and_dynamic_partition_with_one_output():
    r = _ours()
    assert r["csv"] == [2] and r["partition"] == [2.0]


def test_against_tensorflow(tf1):
    theirs = tf1("tf.disable_v2_behavior()\n" + PROGRAM + "\nprint(json.dumps(RESULT))")
    assert _ours() == json.loads(json.dumps(theirs))
