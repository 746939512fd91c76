"""Unique/UniqueWithCounts count integers in a value-indexed table: the same values,
positions and counts (first-seen order) as the sorting path, at every integer width and
at the ends of each range."""

import numpy as np
import pytest

import scopeflow as tf
from scopeflow.ops.array.sort_ops import unique_in_order

RNG = np.random.default_rng(0)


def _by_sorting(x):
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True)
    order = np.argsort(first, kind="stable")
    pos = np.empty_like(order)
    pos[order] = np.arange(order.size)
    return values[order], pos[inverse], counts[order]


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                np.int64, np.uint64])
def test_same_as_sorting(dt):
    info = np.iinfo(dt)
    for lo, hi, n in [(0, 10, 50), (info.min, info.min + 100, 1000),
                      (info.max - 50, info.max, 300), (info.min, info.max, 500), (3, 3, 1)]:
        x = RNG.integers(lo, hi, n, endpoint=True, dtype=dt)
        x[:1] = lo
        x[-1:] = hi
        for want, got in zip(_by_sorting(x), unique_in_order(x)):
            assert want.dtype == got.dtype and np.array_equal(want, got)


def test_op_against_tf(tf1):
    x = [5, -128, 127, 5, 0, -128, 3]
    with tf.Session() as sess:
        got = [a.tolist() for a in sess.run(list(tf.unique_with_counts(
            tf.constant(x, tf.int8), out_idx=tf.int64)))]
    want = tf1("import json, tensorflow.compat.v1 as tf; tf.disable_v2_behavior()\n"
               f"r = tf.Session().run(list(tf.unique_with_counts(tf.constant({x}, tf.int8), "
               "out_idx=tf.int64)))\nprint(json.dumps([a.tolist() for a in r]))")
    assert got == want
