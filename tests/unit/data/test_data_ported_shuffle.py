"""TensorFlow's tf.data ``shuffle`` tests (shuffle_test.py), rewritten against the public TF1
API (``import scopeflow as tf``): seeded shuffles repeat, reshuffle per epoch or not, two
iterators differ, and a shuffle's saved position restores. Beyond TF's own assertions,
the seeded orders are TF's, element for element (``_TF_ORDERS``: what TF 2.21 gives, which
the oracle run of this file checks again).

Each test is ours, written after the TF test of the same name; TF tests of internals or
eager/v2-only behaviour are listed in ``SKIPPED`` with the reason.
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
"""
from __future__ import annotations

import collections
import os
import tempfile

import numpy as np
from ported_data_harness import _elements, _raises, _shapes
from ported_harness import oracle_run

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None

# What TF 2.21 gives (the first component for testBasic's elements).
_TF_ORDERS = {
    "basic100_37": [2, 4, 1, 3, 2, 4, 1, 3, 2, 1, 2, 3, 4, 2, 4, 1, 3, 3, 1, 4],
    "basic100_137": [3, 2, 1, 2, 3, 2, 1, 3, 4, 3, 4, 1, 2, 4, 4, 3, 4, 2, 1, 1],
    "basic2_37": [2, 1, 3, 1, 2, 3, 4, 4, 2, 3, 4, 1, 1, 2, 4, 1, 2, 3, 4, 3],
    "seed0": [2, 0, 1, 4, 5, 6, 9, 7, 8, 3],
    "seed_True_38_None":
        [8, 6, 0, 3, 5, 4, 9, 2, 1, 7, 6, 9, 4, 7, 3, 5, 8, 1, 2, 0, 7, 6, 5, 4, 0, 9, 8, 1, 2,
        3],
    "seed_True_None_42":
        [5, 9, 6, 4, 7, 1, 2, 8, 3, 0, 3, 7, 6, 5, 8, 4, 0, 1, 9, 2, 2, 8, 9, 6, 0, 4, 1, 3, 5,
        7],
    "seed_True_38_42":
        [6, 2, 9, 8, 0, 7, 3, 5, 4, 1, 2, 6, 1, 7, 0, 4, 3, 8, 5, 9, 8, 2, 1, 7, 5, 6, 4, 9, 0,
        3],
    "seed_False_38_None":
        [9, 6, 2, 5, 8, 0, 3, 7, 1, 4, 9, 6, 2, 5, 8, 0, 3, 7, 1, 4, 9, 6, 2, 5, 8, 0, 3, 7, 1,
        4],
    "seed_False_None_42":
        [2, 0, 7, 8, 9, 3, 6, 4, 1, 5, 2, 0, 7, 8, 9, 3, 6, 4, 1, 5, 2, 0, 7, 8, 9, 3, 6, 4, 1,
        5],
    "seed_False_38_42":
        [8, 4, 2, 3, 0, 1, 6, 9, 7, 5, 8, 4, 2, 3, 0, 1, 6, 9, 7, 5, 8, 4, 2, 3, 0, 1, 6, 9, 7,
        5],
    "snr": [4, 1, 0, 2, 7, 8, 6, 3, 5, 9, 3, 4, 2, 6, 5, 9, 0, 8, 1, 7],
}
_COMPONENTS = (np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8]),
               np.array([9.0, 10.0, 11.0, 12.0]))


def _read(ds, n=None, initializable=False, feed_dict=None):
    """``ds``'s elements (as lists), then it ends (twice)."""
    with tf.Session() as sess:
        if initializable:
            it = tf.data.make_initializable_iterator(ds)
            sess.run(it.initializer, feed_dict=feed_dict)
        else:
            it = tf.data.make_one_shot_iterator(ds)
        nxt = it.get_next()
        got = [np.asarray(e).tolist() if not isinstance(e, tuple) else
               [np.asarray(c).tolist() for c in e] for e in _elements(sess, nxt)]
        for _ in range(2):
            with _raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
    if n is not None:
        assert len(got) == n, (len(got), n)
    return got


def test_basic():
    def dataset_fn(count=5, buffer_size=None, seed=0):
        ds = tf.data.Dataset.from_tensor_slices(_COMPONENTS).repeat(count)
        if buffer_size:
            ds = ds.shuffle(buffer_size, seed)
            assert _shapes(ds) == tuple(list(c.shape[1:]) for c in _COMPONENTS)
        return ds

    with tf.Graph().as_default():
        unshuffled = _read(dataset_fn(), 20)
        shuffled = _read(dataset_fn(buffer_size=100, seed=37), 20)
        assert sorted(unshuffled) == sorted(shuffled)
        assert _read(dataset_fn(buffer_size=100, seed=37), 20) == shuffled
        different = _read(dataset_fn(buffer_size=100, seed=137), 20)
        assert different != shuffled and sorted(different) == sorted(shuffled)
        small = _read(dataset_fn(buffer_size=2, seed=37), 20)
        assert sorted(small) == sorted(unshuffled)
        assert _read(dataset_fn(count=0, buffer_size=100, seed=37), 0) == []
        # the orders are TF's
        assert [e[0] for e in shuffled] == _TF_ORDERS["basic100_37"]
        assert [e[0] for e in different] == _TF_ORDERS["basic100_137"]
        assert [e[0] for e in small] == _TF_ORDERS["basic2_37"]


def test_seed_zero():
    with tf.Graph().as_default():
        elems = _read(tf.data.Dataset.range(10).shuffle(10, seed=0), 10)
        seed = tf.placeholder(tf.int64, shape=[])
        again = _read(tf.data.Dataset.range(10).shuffle(10, seed=seed), 10,
                      initializable=True, feed_dict={seed: 0})
        assert again == elems
        assert elems == _TF_ORDERS["seed0"]


def test_default_arguments():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices([0, 1, 2, 3, 4]).shuffle(5).repeat()
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        counts = collections.Counter()
        with tf.Session() as sess:
            for _ in range(50):
                counts[int(sess.run(nxt))] += 1
        assert all(counts[i] == 10 for i in range(5)), counts


def test_shuffle_seed():
    for reshuffle in (True, False):
        for graph_seed, op_seed in ((38, None), (None, 42), (38, 42)):
            results = []
            for _ in range(2):
                with tf.Graph().as_default():
                    tf.set_random_seed(graph_seed)
                    ds = tf.data.Dataset.range(10).shuffle(
                        10, seed=op_seed, reshuffle_each_iteration=reshuffle).repeat(3)
                    results.append(_read(ds, 30))
            assert results[0] == results[1]
            assert results[0] == _TF_ORDERS[f"seed_{reshuffle}_{graph_seed}_{op_seed}"]


def test_multiple_iterators():
    for reshuffle in (True, False):
        for initializable in (True, False):
            with tf.Graph().as_default(), tf.Session() as sess:
                ds = tf.data.Dataset.range(100).shuffle(
                    10, reshuffle_each_iteration=reshuffle).repeat(3)
                make = (tf.data.make_initializable_iterator if initializable
                        else tf.data.make_one_shot_iterator)
                results = []
                for it in [make(ds) for _ in range(2)]:
                    if initializable:
                        sess.run(it.initializer)
                    nxt = it.get_next()
                    results.append([int(sess.run(nxt)) for _ in range(300)])
                    with _raises(tf.errors.OutOfRangeError):
                        sess.run(nxt)
                assert results[0] != results[1]


def test_reshuffle_repeat_epochs():
    for reshuffle in (True, False):
        for seed in (None, 42):
            with tf.Graph().as_default():
                ds = tf.data.Dataset.range(10).shuffle(
                    10, seed=seed, reshuffle_each_iteration=reshuffle).repeat(2)
                got = _read(ds, 20)
                assert (got[:10] == got[10:]) == (not reshuffle)


def test_empty_dataset():
    def map_fn(x):
        with tf.control_dependencies([tf.assert_equal(x, 0)]):
            return tf.identity(x)

    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensors(1).map(map_fn).cache()
        ds = ds.shuffle(buffer_size=10).repeat()
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            with _raises(tf.errors.InvalidArgumentError):  # the failed assertion
                sess.run(nxt)
            with _raises(tf.errors.OutOfRangeError):  # then the cache is empty
                sess.run(nxt)


def test_shuffle_and_repeat_order():
    """``tf.data.experimental.shuffle_and_repeat`` (TF1's fused form) gives TF's order."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).apply(
            tf.data.experimental.shuffle_and_repeat(5, 2, seed=3))
        assert _read(ds, 20) == _TF_ORDERS["snr"]


def test_checkpoint_multiple_iterators():
    """ShuffleCheckpointTest.testMultipleIterators: two unseeded iterators, saved before
    they are read; after a restore each gives the same elements again."""
    for reshuffle in (True, False):
        for buffer_size in (1, 3, 5, 8, 10):
            with tf.Graph().as_default(), tempfile.TemporaryDirectory() as tmp:
                ds = tf.data.Dataset.range(5).shuffle(
                    buffer_size, reshuffle_each_iteration=reshuffle).repeat(2)
                its = [tf.data.make_one_shot_iterator(ds) for _ in range(2)]
                nexts = [it.get_next() for it in its]
                for it in its:
                    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                                         tf.data.experimental.make_saveable_from_iterator(it))
                saver = tf.train.Saver(allow_empty=True)
                with tf.Session() as sess:
                    path = saver.save(sess, os.path.join(tmp, "ckpt"))
                    expected = [sess.run(nexts) for _ in range(10)]
                    saver.restore(sess, path)
                    actual = [sess.run(nexts) for _ in range(10)]
                assert np.asarray(expected).tolist() == np.asarray(actual).tolist()


SKIPPED = {
    "ShuffleTest.testReshuffleIterationEpochs / testReshuffleSeparateTransformations":
        "eager iteration of a dataset (TF2)",
    "ShuffleTest.testShuffleV2ResourceCapture / testShuffleV2InFunction":
        "TF2 eager and tf.function",
    "ShuffleTest.testRerandomizeOnReplicate": "graphRoundTrip: dataset graph serialization "
                                              "internals",
    "ShuffleTest.testCheckpointLargeShuffleBuffer": "eager tf.train.Checkpoint of a 512 MB "
                                                    "buffer",
    "ShuffleCheckpointTest.test (verify_fn harness)":
        "checkpoint_test_base verify_fn internals; a save/restore of shuffles is ported as "
        "test_checkpoint_multiple_iterators",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
