"""Gradients through RaggedTensor.to_tensor and to_sparse (TF's rules; the expected values
are what TF 2.21 gives for this program)."""

import numpy as np

import scopeflow as tf


def test_to_tensor_and_to_sparse_gradients():
    with tf.Graph().as_default():
        rt = tf.RaggedTensor.from_row_splits(tf.constant([1., 2., 3., 4., 5.]), [0, 2, 2, 5])
        d = tf.constant(7.)
        dense = rt.to_tensor(default_value=d)
        w = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3))
        g_values, g_default = tf.gradients(tf.reduce_sum(dense * w), [rt.flat_values, d])
        assert isinstance(g_values, tf.IndexedSlices)
        sp = rt.to_sparse()
        (g_sparse,) = tf.gradients(tf.reduce_sum(sp.values * 2.0), rt.flat_values)
        with tf.Session() as s:
            got = s.run([tf.convert_to_tensor(g_values), g_default, g_sparse])
    np.testing.assert_array_equal(got[0], [0., 1., 6., 7., 8.])
    assert got[1] == 14.0        # the padded positions 2, 3, 4 and 5 of w: 2+3+4+5
    np.testing.assert_array_equal(got[2], [2.] * 5)
