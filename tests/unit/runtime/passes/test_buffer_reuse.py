"""buffer_reuse: an elementwise ufunc writes into an input the run owns alone."""

from __future__ import annotations

import numpy as np

import scopeflow as tf


def _reusing_ops(plan):
    lines = [ln.strip() for ln in plan.source.splitlines()]
    return sorted(op.type for k, op in enumerate(plan.ops)
                  if any(ln.startswith(f"t{k}_0 = _k{k}(") and "out=" in ln for ln in lines))


def test_elementwise_chains_reuse_buffers_the_run_owns_alone(passes):
    rng = np.random.default_rng(11)
    x = tf.placeholder(tf.float32, [4, 3])
    v = tf.Variable(rng.standard_normal((4, 3)).astype(np.float32))
    w = tf.matmul(x, tf.ones([3, 3]))             # fresh
    c = tf.negative(tf.reshape(tf.exp(w) * 2.0, [12]))  # each reuses (through the view)
    s = tf.sqrt(tf.abs(tf.matmul(x, tf.ones([3, 3]) * 2.0) + 1.0))  # each reuses
    d = s + s                                     # read twice: not reused
    e = x * 3.0                                   # a feed: never written
    f = v * 1.5                                   # a variable: never written
    g = tf.reshape(v, [12]) * 2.0                 # nor through a view of it
    h = tf.matmul(x, tf.ones([3, 3]) * 3.0)
    k = tf.exp(h)                                 # h is fetched too: not reused
    fetches = [c, d, e, f, g, h, k]
    feed = rng.standard_normal((4, 3)).astype(np.float32)
    before = feed.copy()
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert _reusing_ops(passes.compile(sess, fetches, [x])) == [
            "Abs", "AddV2", "Exp", "Mul", "Neg", "Sqrt"]

    def program(sess):
        sess.run(v.initializer)
        vinit = sess.run(v)
        got = sess.run(fetches, {x: feed})
        return [vinit, sess.run(v), *got]

    vinit, vafter, *got = passes.compare("buffer_reuse", program)[0]
    np.testing.assert_array_equal(vafter, vinit)
    np.testing.assert_array_equal(feed, before)
    wv = feed @ np.ones((3, 3), np.float32)
    sv = np.sqrt(np.abs(feed @ np.full((3, 3), 2, np.float32) + np.float32(1)))
    hv = feed @ np.full((3, 3), 3, np.float32)
    want = [-(np.exp(wv) * np.float32(2)).reshape(12), sv + sv, feed * np.float32(3),
            vinit * np.float32(1.5), vinit.reshape(12) * np.float32(2), hv, np.exp(hv)]
    for gv, wanted in zip(got, want):
        np.testing.assert_array_equal(gv, wanted)


def test_buffer_reuse_never_writes_into_a_fed_value_seen_through_a_view(passes):
    x = tf.placeholder(tf.float32, [2, 2])
    w = tf.matmul(x, tf.ones([2, 2]))
    y = tf.negative(tf.reshape(w, [4]))
    fed = np.arange(4, dtype=np.float32).reshape(2, 2)

    def program(sess):
        return [sess.run(y, {w: fed}), sess.run(y, {x: fed}), fed.copy()]

    for a, b, after in passes.compare("buffer_reuse", program):
        np.testing.assert_array_equal(a, [0, -1, -2, -3])
        np.testing.assert_array_equal(b, [-1, -1, -5, -5])
        np.testing.assert_array_equal(after, np.arange(4).reshape(2, 2))


def test_outputs_that_may_forward_their_input_are_not_written_into(passes):
    """A reduction over nothing, a Pad by zeros and an AddN of one forward their input's
    buffer (as TF): a ufunc after them must not write into a value someone else reads."""
    x = tf.placeholder(tf.float32, [3, 1])
    m = tf.matmul(x, tf.ones([1, 1]))             # fresh, read by three
    axes = tf.placeholder_with_default([1], [None])
    outs = [tf.exp(tf.reduce_sum(m, axes, keepdims=True)), tf.exp(tf.pad(m, [[0, 0], [0, 0]])),
            tf.exp(tf.add_n([m])), m]
    feed = {x: [[1.0], [2.0], [3.0]]}
    got = passes.compare("buffer_reuse", lambda sess: sess.run(outs, feed))[0]
    for y in got[:3]:
        np.testing.assert_array_equal(y, np.exp(np.array([[1.0], [2.0], [3.0]], np.float32)))
    np.testing.assert_array_equal(got[3], [[1.0], [2.0], [3.0]])
