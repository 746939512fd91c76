"""producer_absorption: an AddN of zero-padded pieces writes each piece into its place; a
``Select(c, -x, x)`` flips ``x``'s sign bits without computing ``-x``."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


def _special_values(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::5] = -0.0
    flat[1::7] = np.inf
    flat[2::11] = np.nan
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("paddings,piece_shapes", [
    ([[[0, 2], [0, 0]], [[3, 0], [0, 0]]], [(3, 4), (2, 4)]),            # split rows
    ([[[0, 0], [0, 3]], [[0, 0], [1, 0]]], [(5, 1), (5, 3)]),            # split columns
    ([[[0, 4], [0, 0]], [[2, 0], [1, 1]]], [(1, 4), (3, 2)]),            # with gaps
    ([[[0, 0], [0, 2]], [[0, 3], [2, 0]], [[2, 0], [2, 0]]], [(5, 2), (2, 2), (3, 2)]),
])
def test_add_n_of_padded_pieces_is_exact_and_skips_the_pads(passes, dtype, paddings,
                                                             piece_shapes):
    rng = np.random.default_rng(5)
    phs = [tf.placeholder(dtype, s) for s in piece_shapes]
    pieces = [tf.identity(tf.negative(p)) for p in phs]     # the run's own arrays
    total = tf.add_n([tf.pad(x, pad) for x, pad in zip(pieces, paddings)])
    feed = {p: _special_values(rng, s, dtype) for p, s in zip(phs, piece_shapes)}
    with tf.Session() as sess:
        plan = passes.compile(sess, [total], phs)
    assert "Pad" not in passes.calls(plan)
    assert passes.kernel_names(plan, "AddN") == ["_add_n_of_padded_pieces"]
    got = passes.compare("producer_absorption", lambda sess: sess.run(total, feed))[0]
    padded = [np.pad(-feed[p], pad) for p, pad in zip(phs, paddings)]
    want = padded[0] + padded[1]
    for x in padded[2:]:
        want = want + x
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_add_n_of_pads_that_overlap_or_are_shared_adds_as_usual(passes):
    x = tf.placeholder(tf.float32, [2, 2])
    y = -x
    overlap = tf.add_n([tf.pad(y, [[0, 1], [0, 0]]), tf.pad(y * 2.0, [[1, 0], [0, 0]])])
    shared_pad = tf.pad(y, [[0, 2], [0, 0]])
    shared = tf.add_n([shared_pad, tf.pad(y + 1.0, [[2, 0], [0, 0]])])
    fed_paddings = tf.placeholder(tf.int32, [2, 2])
    dynamic = tf.add_n([tf.pad(y, fed_paddings), tf.pad(y - 1.0, [[0, 0], [2, 0]])])
    feed = {x: -np.array([[1, 2], [3, 4]], np.float32), fed_paddings: [[0, 0], [0, 2]]}
    fetches = [overlap, shared, shared_pad, dynamic]
    with tf.Session() as sess:
        plan = passes.compile(sess, fetches, [x, fed_paddings])
    assert passes.calls(plan).count("Pad") == 6
    assert set(passes.kernel_names(plan, "AddN")) == {"_add_n_kernel"}
    got = passes.compare("producer_absorption", lambda sess: sess.run(fetches, feed))[0]
    np.testing.assert_array_equal(got[0], [[1, 2], [5, 8], [6, 8]])
    np.testing.assert_array_equal(got[1], [[1, 2], [3, 4], [2, 3], [4, 5]])
    np.testing.assert_array_equal(got[3], [[1, 2, 0, 1], [3, 4, 2, 3]])


@pytest.mark.parametrize("through", ["ref", "read", "reshape"])
def test_pads_of_a_variable_are_not_absorbed(passes, through):
    """A Pad reads the variable where it runs; absorbing it would read the variable at the
    AddN, after the write ordered between them."""
    v = tf.Variable([1.0, 2.0])
    view = {"ref": v._ref, "read": v.read_value, "reshape": lambda: tf.reshape(v, [2, 1])}[
        through]
    first = tf.pad(tf.reshape(view(), [2]), [[0, 2]])
    with tf.control_dependencies([first]):
        bump = tf.assign_add(v, [10.0, 10.0])
    with tf.control_dependencies([bump]):
        second = tf.pad(tf.reshape(view(), [2]), [[2, 0]])
    total = tf.add_n([first, second])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert "Pad" in passes.calls(passes.compile(sess, [total]))

    def program(sess):
        sess.run(v.initializer)
        return sess.run(total)

    np.testing.assert_array_equal(passes.compare("producer_absorption", program)[0],
                                  [1, 2, 11, 12])


def test_gradient_of_slices_that_split_a_tensor_skips_the_pads(passes):
    x = tf.placeholder(tf.float32, [5, 3])
    w = x * 1.0
    top, mid = tf.slice(w, [0, 0], [2, -1]), tf.slice(w, [2, 0], [2, -1])
    rest = tf.slice(w, [4, 0], [-1, -1])
    # The gradient of ``top * 3`` is a constant (folded), the others are computed.
    loss = (tf.reduce_sum(top * 3.0) + tf.reduce_sum(tf.square(mid))
            + tf.reduce_sum(tf.exp(rest)))
    grad, = tf.gradients(loss, [w])
    feed = np.arange(15, dtype=np.float32).reshape(5, 3) / 8
    with tf.Session() as sess:
        assert "Pad" not in passes.calls(passes.compile(sess, [grad], [x]))
    got = passes.compare("producer_absorption", lambda sess: sess.run(grad, {x: feed}))[0]
    want = np.concatenate([np.full((2, 3), 3.0, np.float32), 2 * feed[2:4], np.exp(feed[4:])])
    np.testing.assert_array_equal(got, want)


def _nan_payloads(x):
    """``x`` with a NaN of each sign and a non-default payload among its values."""
    bits = x.reshape(-1).view(f"u{x.dtype.itemsize}")
    exponent_ones = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}[x.dtype.itemsize]
    sign = 1 << (8 * x.dtype.itemsize - 1)
    bits[3] = exponent_ones | 0b101
    bits[4] = sign | exponent_ones | 0b11
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_select_of_a_negation_is_a_sign_flip_with_the_same_bits(passes, dtype):
    """``where(c, -x, x)`` (sigmoid cross-entropy's ``-|x|``) is not a ``Neg`` and a
    ``Select``: ``x``'s bits with the sign flipped where ``c`` holds: -0.0, infinities and
    NaN payloads as ``Neg`` gives them."""
    rng = np.random.default_rng(3)
    x_in = tf.placeholder(dtype, [6, 7])
    c_in = tf.placeholder(tf.bool, [6, 7])
    x = x_in
    flipped = tf.where(c_in, -x, x)
    by_sign = tf.where(x >= 0, -x, x)         # -|x| as TF1's sigmoid cross-entropy builds it
    with tf.Session() as sess:
        plan = passes.compile(sess, [flipped, by_sign], [x_in, c_in])
    assert passes.calls(plan).count("Neg") == 0
    assert passes.kernel_names(plan, "Select") == ["_select_negated"] * 2
    feed = {x_in: _nan_payloads(_special_values(rng, (6, 7), dtype)),
            c_in: rng.random((6, 7)) < 0.5}
    got, got_abs = passes.compare("producer_absorption",
                                  lambda sess: sess.run([flipped, by_sign], feed))[0]
    xv = feed[x_in]
    assert got.tobytes() == np.where(feed[c_in], -xv, xv).tobytes()
    assert got_abs.tobytes() == np.where(xv >= 0, -xv, xv).tobytes()


def test_select_of_a_negation_stays_whole_where_it_must(passes):
    """The ``Neg`` is still computed where another op reads it; a condition that picks rows
    (a vector for a matrix) or an int ``x`` takes the plain kernel; errors are Select's."""
    x_in = tf.placeholder(tf.float32, [3, 2])
    rows = tf.placeholder(tf.bool, [3])
    i_in = tf.placeholder(tf.int32, [4])
    x = x_in * 3.0
    neg = -x
    shared = tf.where(x >= 0, neg, x) + neg
    by_row = tf.where(rows, -x, x)
    j = i_in + 1
    ints = tf.where(i_in > 0, -j, j)
    with tf.Session() as sess:
        plan = passes.compile(sess, [shared, by_row, ints], [x_in, rows, i_in])
    assert passes.calls(plan).count("Neg") == 1
    feed = {x_in: np.array([[1, -2], [0, 4], [-5, 6]], np.float32),
            rows: np.array([True, False, True]), i_in: np.array([-3, 0, 2, 5], np.int32)}
    got = passes.compare("producer_absorption",
                         lambda sess: sess.run([shared, by_row, ints], feed))[0]
    xv = feed[x_in] * 3
    assert got[0].tolist() == (np.where(xv >= 0, -xv, xv) - xv).tolist()
    assert got[1].tolist() == np.where(feed[rows][:, None], -xv, xv).tolist()
    assert got[2].tolist() == [-2, 1, -3, -6]
    bad = tf.placeholder(tf.bool, [None])
    wrong = tf.where(bad, -x, x)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="Number of batches of 'then'") as e:
        sess.run(wrong, {x_in: feed[x_in], bad: [True, False]})
    assert e.value.op.name == wrong.op.name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sigmoid_cross_entropy_gradient_masks_once_with_the_same_bits(passes, dtype):
    """The gradient of TF1's ``where``-built sigmoid cross-entropy is an ``AddN`` of three
    ``Select``s with zeros on one condition (one under a ``Neg``): the AddN masks each
    term itself, with one mask, and none of the four ops runs."""
    rng = np.random.default_rng(7)
    logits = tf.placeholder(dtype, [6, 7])
    labels = tf.placeholder(dtype, [6, 7])
    weights = tf.placeholder(dtype, [6, 7])
    xent = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    grads = tf.gradients(tf.reduce_sum(xent * weights), [logits, labels])
    with tf.Session() as sess:
        plan = passes.compile(sess, [xent, *grads], [logits, labels, weights])
    assert passes.kernel_names(plan, "AddN") == ["_add_n_of_masked_terms"]
    calls = passes.calls(plan)       # (the one Neg left is the sub's, in the labels' gradient)
    assert calls.count("Select") == 2 and calls.count("Neg") == 1
    x = _nan_payloads(_special_values(rng, (6, 7), dtype))
    x.reshape(-1)[5::9] = 0.0
    feed = {logits: x, labels: rng.random((6, 7)).astype(dtype),
            weights: _special_values(rng, (6, 7), dtype)}
    with np.errstate(all="ignore"):
        passes.compare("producer_absorption", lambda sess: sess.run([xent, *grads], feed))


def test_masked_terms_only_where_each_select_is_elementwise_and_the_runs_own(passes):
    """A condition that picks rows (a vector for a matrix) leaves the ``Select``s alone; a
    term read elsewhere too stays a ``Select``; the sum's order is AddN's."""
    rows = tf.placeholder(tf.bool, [3])
    cells = tf.placeholder(tf.bool, [3, 2])
    x_in = tf.placeholder(tf.float32, [3, 2])
    x = x_in * 2.0
    y = tf.exp(x_in)
    zeros = tf.zeros([3, 2])
    by_rows = tf.add_n([x, tf.where(rows, x, zeros), -tf.where(rows, y, zeros),
                        tf.where(rows, zeros, y)])
    kept = tf.where(cells, zeros, x)
    by_cells = tf.add_n([tf.where(cells, y, zeros), kept, -tf.where(cells, x, zeros)])
    fetches = [by_rows, by_cells, kept]
    with tf.Session() as sess:
        plan = passes.compile(sess, fetches, [rows, cells, x_in])
    assert passes.kernel_names(plan, "AddN") == ["_add_n_kernel", "_add_n_of_masked_terms"]
    assert passes.calls(plan).count("Select") == 4
    feed = {rows: np.array([True, False, True]), x_in: np.array(
        [[1, -2], [0, 4], [-5, 6]], np.float32), cells: np.array([[1, 0], [0, 1], [1, 1]], bool)}
    got = passes.compare("producer_absorption", lambda sess: sess.run(fetches, feed))[0]
    xv, yv = feed[x_in] * 2, np.exp(feed[x_in])
    r, c = feed[rows][:, None], feed[cells]
    want_rows = ((xv + np.where(r, xv, 0)) + -np.where(r, yv, 0)) + np.where(r, 0, yv)
    want_cells = (np.where(c, yv, 0) + np.where(c, 0, xv)) + -np.where(c, xv, 0)
    assert got[0].tobytes() == want_rows.astype(np.float32).tobytes()
    assert got[1].tobytes() == want_cells.astype(np.float32).tobytes()


def test_masked_terms_of_scalars(passes):
    """0-d values (NumPy scalars out of the kernels) take ``np.where``: the same bits."""
    c_in = tf.placeholder(tf.bool, [])
    a_in = tf.placeholder(tf.float64, [])
    a = tf.exp(a_in)
    zero = tf.zeros([], tf.float64)
    total = tf.add_n([tf.where(c_in, a, zero), -tf.where(c_in, zero, a), a])
    with tf.Session() as sess:
        plan = passes.compile(sess, [total], [c_in, a_in])
    assert passes.kernel_names(plan, "AddN") == ["_add_n_of_masked_terms"]
    for c in (True, False):
        got = passes.compare("producer_absorption",
                             lambda sess, c=c: sess.run(total, {c_in: c, a_in: -0.5}))[0]
        e = np.exp(-0.5)
        assert got == ((e if c else 0.0) + (-0.0 if c else -e)) + e
