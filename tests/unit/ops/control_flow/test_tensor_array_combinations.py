"""TensorArray in the combinations TF1 programs use beyond TF's own tensor_array_ops_test.py
(ported in test_tensor_array_ported.py): gradients through TensorArrays in nested and
dynamic-size while loops and in ``cond``, ``infer_shape=False`` concat inside loops,
``bfloat16``/``float16``/``bool`` arrays, and TF1 kernels' validation messages.

Every expected value and message here is what TensorFlow 2.21 (TF1 mode) gives;
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``.
"""

from __future__ import annotations

import contextlib

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf


@contextlib.contextmanager
def _session():
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


def _op_error(pattern):
    return _raises(tf.errors.InvalidArgumentError, pattern)


def _equal(want, got, dtype=None):
    got = np.asarray(got)
    np.testing.assert_array_equal(got.astype(np.float64) if got.dtype.kind == "V" or
                                  str(got.dtype) == "bfloat16" else got, np.asarray(want))
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    if dtype is not None:
        assert got.dtype == dtype.as_numpy_dtype, (got.dtype, dtype)


# ── gradients through loops and cond ─────────────────────────────────────────────────
def test_gradient_of_reads_squared_in_while_loop():
    with _session() as sess:
        x = tf.constant([1.0, 2.0, 3.0])
        ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(x)

        def body(i, out):
            return i + 1, out.write(i, ta.read(i) * ta.read(i))

        _, out = tf.while_loop(lambda i, o: i < 3, body,
                               [0, tf.TensorArray(tf.float32, size=3)])
        _equal([2.0, 4.0, 6.0], sess.run(tf.gradients(out.stack(), x)[0]))


def test_gradient_through_nested_while_loops_with_inner_tensor_array():
    with _session() as sess:
        x = tf.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))
        rows = tf.TensorArray(tf.float32, size=2).unstack(x)

        def outer(i, out):
            inner_ta = tf.TensorArray(tf.float32, size=3).unstack(rows.read(i))

            def inner(j, acc):
                return j + 1, acc + inner_ta.read(j) ** 2

            _, acc = tf.while_loop(lambda j, a: j < 3, inner, [0, 0.0])
            return i + 1, out.write(i, acc)

        _, out = tf.while_loop(lambda i, o: i < 2, outer,
                               [0, tf.TensorArray(tf.float32, size=2)])
        y = out.stack()
        got_y, got_g = sess.run([y, tf.gradients(y, x)[0]])
        _equal([5.0, 50.0], got_y)
        _equal(2 * np.arange(6.0).reshape(2, 3), got_g)


def test_gradient_of_dynamic_size_array_grown_in_while_loop():
    with _session() as sess:
        x = tf.constant([1.0, 2.0, 3.0, 4.0])

        def body(i, out):
            return i + 1, out.write(i, x[i] * 3.0)

        _, out = tf.while_loop(lambda i, o: i < 4, body,
                               [0, tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
        y = out.stack()
        size, grad = sess.run([out.size(), tf.gradients(tf.reduce_sum(y * y), x)[0]])
        assert size == 4
        _equal([18.0, 36.0, 54.0, 72.0], grad)


def test_concat_of_different_lengths_written_in_while_loop():
    with _session() as sess:
        def body(i, out):
            return i + 1, out.write(i, tf.ones([i + 1]) * tf.cast(i, tf.float32))

        _, out = tf.while_loop(lambda i, o: i < 3, body,
                               [0, tf.TensorArray(tf.float32, size=3, infer_shape=False)])
        _equal([0.0, 1.0, 1.0, 2.0, 2.0, 2.0], sess.run(out.concat()))


def test_gradient_of_split_read_in_loop_then_concat():
    with _session() as sess:
        x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        pieces = tf.TensorArray(tf.float32, size=3, infer_shape=False).split(x, [1, 2, 3])

        def body(i, out):
            return i + 1, out.write(i, pieces.read(i) * tf.cast(i + 1, tf.float32))

        _, out = tf.while_loop(lambda i, o: i < 3, body,
                               [0, tf.TensorArray(tf.float32, size=3, infer_shape=False)])
        _equal([1.0, 2.0, 2.0, 3.0, 3.0, 3.0], sess.run(tf.gradients(out.concat(), x)[0]))


def test_gradient_of_concat_of_different_shapes():
    with _session() as sess:
        x = tf.constant([[1.0, 2.0]])
        z = tf.constant([[3.0, 4.0], [5.0, 6.0]])
        w = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, x).write(1, z)
        gx, gz = sess.run(tf.gradients(w.concat() * [[1.0, 2.0]], [x, z]))
        _equal([[1.0, 2.0]], gx)
        _equal([[1.0, 2.0], [1.0, 2.0]], gz)


def test_gradient_through_cond_writing_the_array():
    with _session() as sess:
        x = tf.constant(2.0)
        ta = tf.TensorArray(tf.float32, size=1)
        pred = tf.placeholder(tf.bool)
        w = tf.cond(pred, lambda: ta.write(0, x * 3.0), lambda: ta.write(0, x * x))
        y = w.read(0)
        grad = tf.gradients(y, x)[0]
        _equal(4.0, sess.run(grad, {pred: False}))
        _equal(3.0, sess.run(grad, {pred: True}))


def test_gradient_of_gather_with_repeated_indices_sums():
    with _session() as sess:
        x = tf.constant([1.0, 2.0, 3.0])
        ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(x)
        _equal([2.0, 0.0, 1.0], sess.run(tf.gradients(ta.gather([0, 0, 2]), x)[0]))


def test_stack_with_unwritten_element_and_its_gradient():
    with _session() as sess:
        x = tf.constant(1.0)
        y = tf.TensorArray(tf.float32, size=2, element_shape=[]).write(0, x).stack()
        got_y, got_g = sess.run([y, tf.gradients(y, x)[0]])
        _equal([1.0, 0.0], got_y)
        _equal(1.0, got_g)


def test_integer_array_has_no_gradient():
    with tf.Graph().as_default():
        x = tf.constant([1, 2])
        assert tf.gradients(tf.TensorArray(tf.int32, size=2).unstack(x).stack(), x) == [None]


def test_float16_gradient():
    with _session() as sess:
        x = tf.constant([1.0, 2.0], tf.float16)
        y = tf.TensorArray(tf.float16, size=2).unstack(x).stack() * tf.constant(2.0, tf.float16)
        _equal([2.0, 2.0], sess.run(tf.gradients(y, x)[0]), tf.float16)


# ── dtypes ───────────────────────────────────────────────────────────────────────────
def test_bfloat16_unstack_split_concat_scatter_gather():
    bf = tf.bfloat16
    with _session() as sess:
        ta = tf.TensorArray(bf, size=3, infer_shape=False, clear_after_read=False)
        w = ta.unstack(np.array([1.0, 2.0, 3.0], dtype=bf.as_numpy_dtype))
        r0, r2, stacked = sess.run([w.read(0), w.read(2), w.stack()])
        _equal(1.0, r0, bf)
        _equal(3.0, r2, bf)
        _equal([1.0, 2.0, 3.0], stacked, bf)

        ta = tf.TensorArray(bf, size=3, infer_shape=False, clear_after_read=False)
        w = ta.split(np.array([1.0, 2.0, 3.0], dtype=bf.as_numpy_dtype),
                     lengths=tf.constant([2, 0, 1]))
        d0, d1, d2, cat = sess.run([w.read(0), w.read(1), w.read(2), w.concat()])
        _equal([1.0, 2.0], d0, bf)
        _equal(np.zeros([0]), d1, bf)
        _equal([3.0], d2, bf)
        _equal([1.0, 2.0, 3.0], cat, bf)

        w = tf.TensorArray(bf, size=3).scatter(
            [0, 2], np.array([1.0, 2.0], dtype=bf.as_numpy_dtype))
        _equal([2.0, 1.0], sess.run(w.gather([2, 0])), bf)

        w = (tf.TensorArray(bf, size=2, infer_shape=False)
             .write(0, tf.constant([1.0, 2.0], bf)).write(1, tf.constant([3.0], bf)))
        _equal([1.0, 2.0, 3.0], sess.run(w.concat()), bf)


def test_bool_and_string_arrays():
    with _session() as sess:
        _equal([True, False], sess.run(tf.TensorArray(tf.bool, size=2)
                                       .unstack([True, False]).stack()))

        def body(i, out):
            return i + 1, out.write(i, tf.as_string(i))

        _, out = tf.while_loop(lambda i, o: i < 2, body,
                               [0, tf.TensorArray(tf.string, size=2)])
        assert list(sess.run(out.stack())) == [b"0", b"1"]


def test_every_tf1_dtype_makes_an_array():
    with tf.Graph().as_default():
        for name in ("float16", "bfloat16", "bool", "uint8", "int8", "int16", "uint16",
                     "uint32", "uint64", "qint8", "variant", "resource"):
            dtype = getattr(tf, name)
            assert tf.TensorArray(dtype, size=1).dtype == dtype, name


# ── validation and messages ──────────────────────────────────────────────────────────
def test_split_lengths_must_be_a_vector():
    with _session() as sess:
        lengths = tf.placeholder(tf.int64)
        with _op_error(r"Expected lengths to be a vector, received shape: \[1,3\]"):
            sess.run(tf.TensorArray(tf.float32, size=3).split(
                [1.0, 2.0, 3.0], lengths=lengths).flow, {lengths: [[1, 1, 1]]})
        with _op_error(r"Expected lengths to be a vector, received shape: \[\]"):
            sess.run(tf.TensorArray(tf.float32, size=3).split(
                [1.0, 2.0, 3.0], lengths=lengths).flow, {lengths: 3})
        # a known rank is refused when the graph is built, by the op's shape function
        with _raises(ValueError, r"Shape must be rank 1 but is rank 0 for "
                                 r"'.*TensorArraySplitV3.* with input shapes: "
                                 r"\[2\], \[3\], \[\], \[\]"):
            tf.TensorArray(tf.float32, size=3).split([1.0, 2.0, 3.0], lengths=3)


def test_gather_and_scatter_indices_must_be_a_vector():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3)
        with _raises(ValueError, r"Shape must be rank 1 but is rank 2 for "
                                 r"'.*TensorArrayGatherV3.* with input shapes: "
                                 r"\[2\], \[1,1\], \[\]"):
            ta.gather([[0]])
        with _raises(ValueError, r"Shape must be rank 1 but is rank 2 for "
                                 r"'.*TensorArrayScatterV3.* with input shapes: "
                                 r"\[2\], \[1,1\], \[1,1\], \[\]"):
            ta.scatter([[0]], [[1.0]])
        with _raises(ValueError, r"Shape must be rank 1 but is rank 2 for '.*with input "
                                 r"shapes: \[2\], \[\?,2\], \[\]"):
            tf.TensorArray(tf.float32, size=3).unstack([1.0, 2.0, 3.0]).gather(
                tf.placeholder(tf.int32, [None, 2]))


def test_index_of_another_dtype_is_a_type_error():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        with _raises(TypeError, "Input 'index' of 'TensorArrayReadV3' Op has type int64 that "
                                "does not match expected type of int32."):
            ta.read(tf.constant(0, tf.int64))
        with _raises(TypeError, "Input 'index' of 'TensorArrayWriteV3' Op has type int64"):
            ta.write(tf.constant(1, tf.int64), 2.0)
        with _raises(TypeError, "Input 'indices' of 'TensorArrayGatherV3' Op has type int64"):
            ta.gather(tf.constant([1], tf.int64))
        with _raises(TypeError, "Input 'indices' of 'TensorArrayScatterV3' Op has type int64"):
            ta.scatter(tf.constant([0], tf.int64), [1.0])
        with _raises(TypeError, "Expected int32 passed to parameter 'index' of op "
                                "'TensorArrayReadV3', got 0.5 of type 'float' instead."):
            ta.read(0.5)
        index = tf.Variable(0)
        assert ta.write(index, 1.0).read(index).dtype == tf.float32


def test_split_lengths_count_and_sum():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=2)
        with _op_error(r"Expected sum of lengths to be equal to values.shape\[0\], but sum "
                       r"of lengths is 2 and value's shape is: \[3\]"):
            sess.run(ta.split([1.0, 2.0, 3.0], [1, 1]).flow)
        with _op_error(r"TensorArray's size is not equal to the size of lengths \(2 vs. 3\), "
                       r"and the TensorArray is not marked as dynamically resizeable"):
            sess.run(ta.split([1.0, 2.0, 3.0], [1, 1, 1]).flow)


def test_write_of_wrong_dtype_fails_at_run_time():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=3)
        with _op_error("TensorArray dtype is float but Op is trying to write dtype int64."):
            sess.run(ta.write(0, tf.constant(3, tf.int64)).flow)
        fed = tf.placeholder(tf.int32)
        with _op_error("TensorArray dtype is float but Op is trying to write dtype int32."):
            sess.run(ta.write(0, fed).flow, {fed: 3})


def test_element_shape_checked_at_graph_and_run_time():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
        with _raises(ValueError, r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
            ta.write(0, [1.0, 2.0, 3.0])
        with _raises(ValueError, r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
            tf.TensorArray(tf.float32, size=2, element_shape=[2],
                           infer_shape=False).write(0, [1.0, 2.0, 3.0])
        fed = tf.placeholder(tf.float32)
        with _op_error(r"Could not write to TensorArray index 0 because the value shape is "
                       r"\[3\] which is incompatible with the TensorArray's inferred element "
                       r"shape: \[2\] \(consider setting infer_shape=False\)."):
            sess.run(ta.write(0, fed).flow, {fed: [1.0, 2.0, 3.0]})


def test_stack_of_different_shapes_fails():
    with _session() as sess:
        w = (tf.TensorArray(tf.float32, size=2, infer_shape=False)
             .write(0, [[1.0, 2.0]]).write(1, [[3.0, 4.0], [5.0, 6.0]]))
        with _op_error(r"TensorArray has inconsistent shapes.  Index 0 has shape: \[1,2\] "
                       r"but index 1 has shape: \[2,2\]"):
            sess.run(w.stack())
        with _raises(ValueError, r"Inconsistent shapes: saw \(2, 2\) but expected \(1, 2\)"):
            tf.TensorArray(tf.float32, size=2).write(0, [[1.0, 2.0]]).write(
                1, [[3.0, 4.0], [5.0, 6.0]])


def test_index_checks():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=2)
        with _op_error("Max scatter index must be < array size \\(2 vs. 2\\)"):
            sess.run(ta.unstack([1.0, 2.0, 3.0]).flow)
        with _op_error("Max scatter index must be < array size \\(3 vs. 2\\)"):
            sess.run(ta.scatter([3], [1.0]).flow)
        with _op_error("Tried to read from index -1 but array size is: 2"):
            sess.run(ta.write(0, 1.0).read(-1))
        with _op_error("Tried to write to index 4 but array is not resizeable and size is: 2"):
            sess.run(ta.write(4, 1.0).flow)
        grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(0, 1.0)
        with _op_error("Tried to read from index 3 but array size is: 1"):
            sess.run(grown.read(3))


def test_write_after_read_and_clear_after_read():
    with _session() as sess:
        w = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
        r = w.read(0)
        with tf.control_dependencies([r]):
            again = w.write(0, 2.0)
            reread = w.read(0)
        with _op_error("Could not write to TensorArray index 0 because it has already been "
                       "read."):
            sess.run(again.flow)
        with _op_error(r"Could not read index 0 twice because it was cleared after a "
                       r"previous read \(perhaps try setting clear_after_read = false\?\)"):
            sess.run(reread)


def test_dynamic_size_write_past_end_fills_zeros():
    with _session() as sess:
        w = tf.TensorArray(tf.float32, size=1, dynamic_size=True).write(4, 1.0)
        size, stacked = sess.run([w.size(), w.stack()])
        assert size == 5
        _equal([0.0, 0.0, 0.0, 0.0, 1.0], stacked)


def test_zero_size_concat_with_element_shape_and_size_from_a_tensor():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=0, element_shape=[None, 3], infer_shape=False)
        _equal(np.zeros([0, 3]), sess.run(ta.concat()))
        ta = tf.TensorArray(tf.float32, size=tf.placeholder_with_default(3, []))
        _equal([1.0, 2.0, 3.0], sess.run(ta.unstack([1.0, 2.0, 3.0]).stack()))


def test_static_shapes_with_partial_element_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[None, 2])
        w = ta.write(0, tf.placeholder(tf.float32, [5, 2]))
        assert w.stack().shape.as_list() == [3, 5, 2]
        assert w.concat().shape.as_list() == [15, 2]
        assert w.read(1).shape.as_list() == [5, 2]
        assert w.element_shape.as_list() == [5, 2]


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
