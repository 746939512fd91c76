"""``Dataset.shard``: each worker's part of a tf.data pipeline, as TF's (values checked
live against TensorFlow when the oracle is available; the error texts are TF 2.21's)."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


def _all(ds, sess=None):
    nxt = ds.make_one_shot_iterator().get_next()
    sess = sess or tf.Session()
    out = []
    try:
        while True:
            v = sess.run(nxt)
            out.append(v.tolist() if hasattr(v, "tolist") else v)
    except tf.errors.OutOfRangeError:
        return out


CASES = [(10, 3, 0), (10, 3, 1), (10, 3, 2), (7, 7, 6), (3, 5, 4), (10, 1, 0)]


@pytest.mark.parametrize("n,shards,index", CASES)
def test_shard_takes_every_nth_element(n, shards, index):
    assert _all(tf.data.Dataset.range(n).shard(shards, index)) == list(range(n))[index::shards]


@pytest.mark.tf
def test_shard_matches_tensorflow(tf1):
    want = tf1(f"""
        tf.disable_v2_behavior()
        out = []
        for n, shards, index in {CASES!r}:
            nxt = tf.data.Dataset.range(n).shard(shards, index).batch(2) \\
                .make_one_shot_iterator().get_next()
            s, got = tf.Session(), []
            try:
                while True:
                    got.append(s.run(nxt).tolist())
            except tf.errors.OutOfRangeError:
                out.append(got)
        print(json.dumps(out))
    """)
    got = [_all(tf.data.Dataset.range(n).shard(s, i).batch(2)) for n, s, i in CASES]
    assert got == want


def test_shard_composes_and_keeps_the_structure():
    ds = tf.data.Dataset.from_tensor_slices(({"a": np.arange(8, dtype=np.int32)},
                                             np.arange(10, 18, dtype=np.int32)))
    part = ds.shard(4, 1).batch(2)
    assert part.output_types == ({"a": tf.int32}, tf.int32)
    (first,) = _all(part.take(1))
    assert first[0]["a"].tolist() == [1, 5] and first[1].tolist() == [11, 15]


def test_shard_arguments_may_be_tensors_read_when_the_iterator_starts():
    shards = tf.placeholder(tf.int64, [])
    it = tf.data.Dataset.range(10).shard(shards, 0).make_initializable_iterator()
    s = tf.Session()
    s.run(it.initializer, {shards: 4})
    nxt = it.get_next()
    assert [int(s.run(nxt)) for _ in range(3)] == [0, 4, 8]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Number of shards must be greater than zero \(currently "
                             r"num_shards = 0\)\."):
        s.run(it.initializer, {shards: 0})


@pytest.mark.parametrize("shards,index,message", [
    (0, 0, r"Number of shards must be greater than zero \(currently num_shards = 0\)\."),
    (3, 3, r"Index must be between 0 and 2 \(currently index = 3\)\."),
    (3, -1, r"Index must be between 0 and 2 \(currently index = -1\)\."),
])
def test_bad_arguments_fail_when_the_iterator_starts_with_tfs_words(shards, index, message):
    ds = tf.data.Dataset.range(10).shard(shards, index)  # as TF: building is fine
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _all(ds)
