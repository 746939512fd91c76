"""What the ported tf.data test files (tests/unit/data/test_data_ported_*.py) share: reading
a dataset through a TF1 iterator until OutOfRangeError and comparing its elements, and
expecting errors. Imported under pytest and inside the oracle's process (where
``scopeflow`` stands for ``tensorflow.compat.v1``), so ``tf`` is whichever is running."""

from __future__ import annotations

import contextlib

import numpy as np
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None


@contextlib.contextmanager
def _session():
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


def _equal(want, got):
    """``got`` (a fetched element) equals ``want``: tuples and dicts are structure, sparse
    and ragged values compare by their parts, anything else as an array."""
    if hasattr(got, "to_list"):  # a RaggedTensorValue
        want = want.to_list() if hasattr(want, "to_list") else want
        assert got.to_list() == want, (got.to_list(), want)
    elif hasattr(want, "dense_shape"):  # a SparseTensorValue
        for part in ("indices", "values", "dense_shape"):
            _equal(np.asarray(getattr(want, part)).reshape(np.shape(getattr(got, part))),
                   getattr(got, part))
    elif isinstance(want, dict):
        assert sorted(want) == sorted(got), (sorted(want), sorted(got))
        for k in want:
            _equal(want[k], got[k])
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (want, got)
        for w, g in zip(want, got):
            _equal(w, g)
    else:
        want = np.asarray(want)
        np.testing.assert_array_equal(np.asarray(got), want)
        if want.size:  # an empty expected list says nothing of the shape
            assert np.shape(got) == want.shape, (np.shape(got), want.shape)


def _elements(sess, next_element, limit=10000):
    """Every element ``next_element`` yields until OutOfRangeError."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(next_element))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("the dataset did not end")


def _produces(dataset, expected, initializable=False, feed_dict=None, ordered=True):
    """``dataset`` (of the default graph) yields ``expected`` through a TF1 iterator, then
    OutOfRangeError (an exhausted iterator stays exhausted)."""
    with tf.Session() as sess:
        if initializable:
            it = tf.data.make_initializable_iterator(dataset)
            sess.run(it.initializer, feed_dict=feed_dict)
        else:
            it = tf.data.make_one_shot_iterator(dataset)
        nxt = it.get_next()
        got = _elements(sess, nxt)
        assert len(got) == len(expected), (len(got), len(expected))
        if not ordered:
            got, expected = sorted(got), sorted(expected)
        for w, g in zip(expected, got):
            _equal(w, g)
        with _raises(tf.errors.OutOfRangeError):
            sess.run(nxt)


def _produces_error(dataset, exc, pattern=None, before=()):
    """``dataset`` (of the default graph) yields ``before`` and then fails with ``exc``."""
    with tf.Session() as sess:
        nxt = tf.data.make_one_shot_iterator(dataset).get_next()
        for w in before:
            _equal(w, sess.run(nxt))
        with _raises(exc, pattern):
            sess.run(nxt)


def _shapes(dataset):
    return tf.nest.map_structure(lambda s: s.as_list() if s.rank is not None else None,
                                 tf.data.get_output_shapes(dataset))


def _xfail(reason):
    """``xfail(strict=True)`` under pytest; under the oracle (no pytest) the test runs."""
    if pytest is None:
        return lambda f: f
    return pytest.mark.xfail(strict=True, reason=reason)
