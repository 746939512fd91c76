"""const_kernels: Select with a constant zeros branch, Slice/Pad with constant bounds."""

from __future__ import annotations

import numpy as np
import pytest

import scopeflow as tf


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_select_with_constant_zeros_is_exact_and_chosen_at_compile_time(passes, dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 7)) * 10).astype(dtype)
    if x.dtype.kind == "f":
        x[0, :5] = [np.nan, -0.0, np.inf, -np.inf, 1e-310 if dtype == np.float64 else 1e-40]
        x.view(f"u{x.itemsize}")[0, 5] |= 0b101  # a NaN with a payload
        x.view(f"u{x.itemsize}")[0, 5] |= np.array(np.inf, dtype).view(f"u{x.itemsize}")
    c = rng.random((6, 7)) > 0.5
    cp, xp = tf.placeholder(tf.bool, [6, 7]), tf.placeholder(tf.as_dtype(dtype), [6, 7])
    zeros = tf.zeros([6, 7], tf.as_dtype(dtype))
    ys = [tf.where(cp, zeros, xp), tf.where(cp, xp, zeros), tf.where(cp, xp, -zeros),
          tf.where(cp, xp, xp)]
    with tf.Session() as sess:
        plan = passes.compile(sess, ys, [cp, xp])
    got = passes.compare("const_kernels", lambda sess: sess.run(ys, {cp: c, xp: x}))[0]
    wants = [np.where(c, 0, x).astype(dtype), np.where(c, x, 0).astype(dtype),
             np.where(c, x, -np.zeros((), dtype)), x]
    for g, w in zip(got, wants):
        assert g.dtype == dtype and g.shape == (6, 7)
        np.testing.assert_array_equal(g.view(f"u{x.itemsize}"), w.view(f"u{x.itemsize}"))
    # -0.0 is not +0.0 (its sign would be lost), and x is not a constant
    expected = ["_select_else_zeros", "_select_then_zeros", "_select_kernel", "_select_kernel"]
    if x.dtype.kind != "f":  # an integer -0 is 0
        expected[2] = "_select_else_zeros"
    assert passes.kernel_names(plan, "Select") == sorted(expected)


def test_select_with_constant_zeros_falls_back_for_a_vector_condition():
    c = tf.placeholder(tf.bool, [3])
    y = tf.where(c, tf.ones([3, 2]), tf.zeros([3, 2]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {c: [True, False, True]}),
                                      [[1, 1], [0, 0], [1, 1]])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Number of batches of 'then' must match size of 'cond', but "
                                 "saw: 3 vs. 2"):
            sess.run(tf.where(tf.placeholder_with_default([True, False], [None]),
                              tf.ones([3, 2]), tf.zeros([3, 2])))


def test_slice_and_pad_with_constants_check_once_per_shape_and_still_raise(passes):
    x = tf.placeholder(tf.float32, None)  # unknown rank: checks happen at run time
    y = tf.pad(tf.slice(x, [1, 0], [2, -1]), [[1, 0], [0, 2]])
    z = tf.pad(x, [[1, 1]])
    with tf.Session() as sess:
        plan = passes.compile(sess, [y], [x])
    assert passes.kernel_names(plan, "Slice") == ["_slice_constant_bounds"]
    assert passes.kernel_names(plan, "Pad") == ["_pad_constant_paddings"]

    def program(sess):
        out = []
        for shape in [(3, 2), (4, 3), (3, 2)]:  # a new shape, then a remembered one
            v = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            out.append(sess.run(y, {x: v}))
            np.testing.assert_array_equal(out[-1], np.pad(v[1:3], [[1, 0], [0, 2]]))
        for _ in range(2):  # a failed check is not remembered
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[0\] in"):
                sess.run(y, {x: np.zeros((2, 2), np.float32)})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Expected begin and size arguments to be 1-D"):
                sess.run(y, {x: np.zeros((3, 2, 1), np.float32)})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="The first dimension of paddings must be the rank"):
            sess.run(z, {x: np.zeros((2, 2), np.float32)})
        out.append(sess.run(z, {x: [5.0]}))
        return out

    got = passes.compare("const_kernels", program)[0]
    np.testing.assert_array_equal(got[-1], [0, 5, 0])
