"""Dataset.shuffle draws as TF's ShuffleDatasetOp (issue 18): the Philox sample stream, the
seed generator's pairs per pass, and exact saved positions across passes. The orders
themselves are compared with TF in tests/unit/data/test_data_vs_tf.py (shuffle_* cases)."""

from __future__ import annotations

import numpy as np

import scopeflow as tf
from scopeflow.data.pipeline import PhiloxWords
from scopeflow.ops.random.philox import philox4x32


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(int(sess.run(t)))
        except tf.errors.OutOfRangeError:
            return out


def test_philox_words_are_tfs_single_sample_stream():
    seed, seed2 = 87654321, 2**63 + 11
    gen = PhiloxWords(seed, seed2)
    words = [gen.next() for _ in range(600)]     # crosses the 256-sample chunks
    want = philox4x32(seed, seed2 << 64, 150).reshape(-1).tolist()
    assert words == want and gen.drawn == 600
    later = PhiloxWords(seed, seed2, drawn=257)
    assert [later.next() for _ in range(5)] == want[257:262]


def _saving(ds):
    it = tf.data.make_initializable_iterator(ds)
    saveable = tf.data.experimental.make_saveable_from_iterator(it)
    blob = tf.placeholder(tf.string, [])
    return it, it.get_next(), saveable.tensor, saveable.restore(blob), blob


def test_saved_position_in_a_later_pass_resumes_exactly():
    # mid-way through the third pass: the seed generator has given three pairs
    it, nxt, save, restore, blob = _saving(
        tf.data.Dataset.range(9).shuffle(4, seed=5).repeat(4))
    sess = tf.Session()
    sess.run(it.initializer)
    head = [int(sess.run(nxt)) for _ in range(22)]
    saved = sess.run(save)
    rest = _drain(sess, nxt)
    assert sorted(head + rest) == sorted(list(range(9)) * 4)
    fresh = tf.Session()
    fresh.run(it.initializer)
    fresh.run(restore, {blob: saved})
    assert _drain(fresh, nxt) == rest


def test_unseeded_shuffles_differ_per_initialization_and_still_resume():
    it, nxt, save, restore, blob = _saving(tf.data.Dataset.range(30).shuffle(30).repeat(2))
    sess = tf.Session()
    orders = []
    for _ in range(2):
        sess.run(it.initializer)
        orders.append(_drain(sess, nxt))
    assert orders[0] != orders[1]             # fresh OS seeds each time (1 in 30! alike)
    sess.run(it.initializer)
    head = [int(sess.run(nxt)) for _ in range(40)]
    saved = sess.run(save)
    rest = _drain(sess, nxt)
    other = tf.Session()
    other.run(it.initializer)
    other.run(restore, {blob: saved})
    assert _drain(other, nxt) == rest
    assert sorted(head + rest) == sorted(list(range(30)) * 2)


def test_reshuffle_false_repeats_the_order():
    ds = tf.data.Dataset.range(12).shuffle(5, seed=3, reshuffle_each_iteration=False).repeat(3)
    sess = tf.Session()
    out = _drain(sess, tf.data.make_one_shot_iterator(ds).get_next())
    assert out[:12] == out[12:24] == out[24:] and out[:12] != list(range(12))


def test_large_buffer_is_quick():
    ds = tf.data.Dataset.range(50000).shuffle(20000, seed=1).batch(5000)
    sess = tf.Session()
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    got = np.concatenate([sess.run(nxt) for _ in range(10)])
    assert sorted(got.tolist()) == list(range(50000))
