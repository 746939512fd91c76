"""TensorFlow's own TensorArray tests (tensor_array_ops_test.py, graph mode with TF1 control
flow), rewritten against the public API (``import scopeflow as tf``).

Each test is ours, written after the TF test of the same name; TF tests of internals
(``_GetGradSource``, raw ``gen_data_flow_ops`` ops), of eager or v2-only behaviour, or of a
cluster's device placement are listed in ``SKIPPED`` with the reason. The tests use only
names that real TensorFlow's ``tf.compat.v1`` has too, so
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
"""

from __future__ import annotations

import contextlib

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None

ALL_DTYPES = ("float32", "float64", "int32", "int64", "complex64", "complex128", "string")


def _op_error(pattern):
    return _raises(tf.errors.OpError, pattern)


@contextlib.contextmanager
def _session():
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


def _convert(dtype, x):
    """``x`` as an array of ``dtype`` (complex values get an imaginary part, strings are
    bytes), as TF's test feeds every dtype the same numbers."""
    if dtype == tf.string:
        return np.asarray(x).astype("|S")
    a = np.asarray(x).astype(dtype.as_numpy_dtype)
    return a - 1j * a if dtype.is_complex else a


def _equal(want, got):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))


def _ta(size, name="foo", dtype=tf.float32, infer_shape=False, **kw):
    return tf.TensorArray(dtype=dtype, tensor_array_name=name, size=size,
                          infer_shape=infer_shape, **kw)


# ── write / read / stack / concat ───────────────────────────────────────────────────
def test_write_read():
    with _session() as sess:
        w = _ta(3).write(0, [[4.0, 5.0]]).write(1, [[1.0]]).write(2, -3.0)
        d0, d1, d2 = sess.run([w.read(0), w.read(1), w.read(2)])
        _equal([[4.0, 5.0]], d0)
        _equal([[1.0]], d1)
        _equal(np.float32(-3.0), d2)


def test_write_pack_every_dtype():
    for name in ALL_DTYPES + ("bfloat16",):
        dtype = tf.as_dtype(name)
        with _session() as sess:
            ta = tf.TensorArray(dtype=dtype, tensor_array_name="foo", size=3)
            w = ta.write(0, _convert(dtype, [[4.0, 5.0]]))
            w = w.write(1, _convert(dtype, [[6.0, 7.0]])).write(2, _convert(dtype, [[8.0, 9.0]]))
            got = sess.run(w.stack())
            _equal(_convert(dtype, [[[4.0, 5.0]], [[6.0, 7.0]], [[8.0, 9.0]]]), got)
            if dtype != tf.string:  # strings come back as bytes objects
                assert got.dtype == _convert(dtype, 0).dtype, name


def test_empty_tensor_array_pack():
    with _session() as sess:
        empty = np.zeros((0, 1), dtype=np.float32)
        w = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        w = w.write(0, empty).write(1, empty).write(2, empty)
        assert sess.run(w.stack()).shape == (3, 0, 1)


def test_write_concat_in_parallel():
    with _session() as sess:
        def concat_1():
            ta = tf.TensorArray(tf.int32, size=2, infer_shape=False)
            ta = ta.write(0, tf.constant([1])).write(1, tf.constant([], shape=(0,),
                                                                    dtype=tf.int32))
            return ta.concat()

        def concat_2():
            ta = tf.TensorArray(tf.int32, size=3, infer_shape=False)
            ta = ta.write(0, tf.constant([8])).write(1, tf.constant([], shape=(0,),
                                                                    dtype=tf.int32))
            return ta.write(2, tf.constant([9])).concat()

        def body(i, out):
            return i + 1, out.write(i, tf.cond(tf.less(i, 3), concat_1, concat_2))

        init = (0, tf.TensorArray(tf.int32, size=6, infer_shape=False))
        _, final = tf.while_loop(lambda i, _: i < 6, body, init)
        _equal(np.array([1, 1, 1, 8, 9, 8, 9, 8, 9], np.int32), sess.run(final.concat()))


def test_write_concat_every_dtype():
    for name in ALL_DTYPES:
        dtype = tf.as_dtype(name)
        with _session() as sess:
            w = _ta(3, dtype=dtype)
            w = w.write(0, _convert(dtype, [[4.0, 5.0], [104.0, 105.0], [204.0, 205.0]]))
            w = w.write(1, _convert(dtype, [[6.0, 7.0], [106.0, 107.0]]))
            w = w.write(2, _convert(dtype, [[8.0, 9.0]]))
            want = _convert(dtype, [[4.0, 5.0], [104.0, 105.0], [204.0, 205.0], [6.0, 7.0],
                                    [106.0, 107.0], [8.0, 9.0]])
            _equal(want, sess.run(w.concat()))


def test_read_or_pack_not_all_values_available_fills_zeros():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3,
                            element_shape=tf.TensorShape([1, 2]))
        _equal(np.zeros((1, 2), np.float32), sess.run(ta.read(0)))
        _equal(np.float32([[[0.0, 0.0]], [[4.0, 5.0]], [[0.0, 0.0]]]),
               sess.run(ta.write(1, [[4.0, 5.0]]).stack()))
        _equal(np.float32([[0.0, 0.0], [4.0, 5.0], [0.0, 0.0]]),
               sess.run(ta.write(1, [[4.0, 5.0]]).concat()))


def test_read_or_pack_not_all_values_available_infer_shape_fills_zeros():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        _equal(np.zeros((1, 2), np.float32), sess.run(ta.write(1, [[4.0, 5.0]]).read(0)))
        _equal(np.float32([[[0.0, 0.0]], [[4.0, 5.0]], [[0.0, 0.0]]]),
               sess.run(ta.write(1, [[4.0, 5.0]]).stack()))
        _equal(np.float32([[0.0, 0.0], [4.0, 5.0], [0.0, 0.0]]),
               sess.run(ta.write(1, [[4.0, 5.0]]).concat()))


def test_read_uninitialized_infer_shape_fills_zeros():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        val = tf.placeholder(tf.float32)
        _equal(np.zeros((1, 2), np.float32),
               sess.run(ta.write(1, val).read(0), {val: [[4.0, 5.0]]}))


def test_unpack_read_every_dtype():
    for name in ALL_DTYPES + ("bfloat16",):
        dtype = tf.as_dtype(name)
        c = lambda x, dtype=dtype: _convert(dtype, x)  # noqa: E731
        with _session() as sess:
            ta = _ta(3, dtype=dtype)
            w = ta.unstack(c([1.0, 2.0, 3.0]))
            for want, got in zip([c(1.0), c(2.0), c(3.0)],
                                 sess.run([w.read(0), w.read(1), w.read(2)])):
                _equal(want, got)
            w = ta.unstack(c([[1.0, 1.1], [2.0, 2.1], [3.0, 3.1]]))
            for want, got in zip([c([1.0, 1.1]), c([2.0, 2.1]), c([3.0, 3.1])],
                                 sess.run([w.read(0), w.read(1), w.read(2)])):
                _equal(want, got)
            w = ta.unstack(c([[], [], []]))
            for got in sess.run([w.read(0), w.read(1), w.read(2)]):
                _equal(c([]), got)


def test_split_read_every_dtype():
    for name in ALL_DTYPES + ("bfloat16",):
        dtype = tf.as_dtype(name)
        c = lambda x, dtype=dtype: _convert(dtype, x)  # noqa: E731
        with _session() as sess:
            ta = _ta(3, dtype=dtype)
            w = ta.split(c([]), lengths=tf.constant([0, 0, 0]))
            for got in sess.run([w.read(0), w.read(1), w.read(2)]):
                _equal(c([]), got)
            w = ta.split(c([1.0, 2.0, 3.0]), lengths=tf.constant([2, 0, 1]))
            d = sess.run([w.read(0), w.read(1), w.read(2)])
            _equal(c([1.0, 2.0]), d[0])
            _equal(c([]), d[1])
            _equal(c([3.0]), d[2])
            w = ta.split(c([[1.0, 101.0], [2.0, 201.0], [3.0, 301.0]]),
                         lengths=tf.constant([2, 0, 1]))
            d = sess.run([w.read(0), w.read(1), w.read(2)])
            _equal(c([[1.0, 101.0], [2.0, 201.0]]), d[0])
            _equal(c([]).reshape(0, 2), d[1])
            _equal(c([[3.0, 301.0]]), d[2])


# ── TensorArray.grad ─────────────────────────────────────────────────────────────────
def test_grad_array_write_read():
    with _session() as sess:
        ta = _ta(3)
        g_ta = ta.grad("grad")
        w = ta.write(0, [[4.0, 5.0]]).write(1, [[1.0]]).write(2, -3.0)
        g = g_ta.write(0, [[5.0, 6.0]]).write(1, [[2.0]]).write(2, -2.0)
        d = sess.run([w.read(0), w.read(1), w.read(2), g.read(0), g.read(1), g.read(2)])
        for want, got in zip([[[4.0, 5.0]], [[1.0]], -3.0, [[5.0, 6.0]], [[2.0]], -2.0], d):
            _equal(np.float32(want), got)


def test_grad_array_dynamic_write_read():
    with _session() as sess:
        ta = _ta(0, dynamic_size=True)
        w = ta.write(0, [[4.0, 5.0]]).write(1, [[1.0]]).write(2, -3.0)
        g_ta = w.grad("grad")  # after the writes, so the gradient array has their size
        g = g_ta.write(0, [[5.0, 6.0]]).write(1, [[2.0]]).write(2, -2.0)
        d = sess.run([w.read(0), w.read(1), w.read(2), g.read(0), g.read(1), g.read(2),
                      w.size(), g_ta.size()])
        for want, got in zip([[[4.0, 5.0]], [[1.0]], -3.0, [[5.0, 6.0]], [[2.0]], -2.0], d):
            _equal(np.float32(want), got)
        assert d[6] == 3 and d[7] == 3


def test_grad_access_twice_receive_same_object():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        g_ta_0 = ta.grad("grad")
        g_ta_1 = ta.grad("grad")
        with tf.control_dependencies([g_ta_0.write(0, [[4.0, 5.0]]).flow]):
            r1_0 = g_ta_1.read(0)  # written through one handle, read through the other
        _equal(np.float32([[4.0, 5.0]]), sess.run(r1_0))


def test_write_gradient_add_multiple_adds():
    for dtype in (tf.int32, tf.int64, tf.float32, tf.float64, tf.complex64, tf.complex128):
        c = lambda x, dtype=dtype: np.asarray(x, dtype=dtype.as_numpy_dtype)  # noqa: E731
        with _session() as sess:
            ta = _ta(3, dtype=dtype)
            ta_grad = ta.grad("grad")
            w1 = ta.write(2, c(3.0)).write(2, c(4.0))
            g = ta_grad.write(2, c(3.0)).write(2, c(4.0)).write(2, c(5.0))
            _equal(c(12.0), sess.run(g.read(2)))  # a gradient array sums its writes
            with _op_error(r"TensorArray foo_.*: Could not write to TensorArray index 2 "
                           r"because it has already been written to."):
                sess.run(w1.flow)
            wb = ta_grad.write(1, c(1.0)).write(1, c([1.0]))
            with _op_error(r"Could not aggregate to TensorArray index 1 because the existing "
                           r"shape is \[\] but the new input shape is \[1\]"):
                sess.run(wb.flow)


# ── errors ───────────────────────────────────────────────────────────────────────────
def test_write_wrong_index_or_data_type_fails():
    with _session() as sess:
        ta = _ta(3)
        with _raises((TypeError, tf.errors.InvalidArgumentError),
                     "(Expected float32, got 'wrong_type_scalar' of type 'str' instead."
                     "|TensorArray dtype is float.* but Op is trying to write dtype string)"):
            sess.run(ta.write(0, "wrong_type_scalar").flow)
        with _op_error("index -1"):
            sess.run(ta.write(-1, 3.0).flow)
        with _op_error("Tried to write to index 3 but array is not resizeable and size is: 3"):
            sess.run(ta.write(3, 3.0).flow)


def test_read_wrong_index_fails():
    with _session() as sess:
        ta = _ta(3)
        ta.write(0, [[4.0, 5.0]])
        with _op_error("index -1"):
            sess.run(ta.read(-1))
        with _op_error("Tried to read from index 3 but array size is: 3"):
            sess.run(ta.read(3))


def test_write_multiple_fails():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        with _op_error("Could not write to TensorArray index 2 because it has already been "
                       "written to."):
            sess.run(ta.write(2, 3.0).write(2, 3.0).flow)


def test_concat_incompatible_shapes_fails():
    with _session() as sess:
        w = _ta(3).write(0, 3.0).write(1, 4.0).write(2, [3.0])
        with _op_error("Concat saw a scalar shape at index 0 but requires at least vectors"):
            sess.run(w.concat())
        w = _ta(3).write(0, [3.0]).write(1, [4.0]).write(2, [[3.0]])
        with _raises(tf.errors.InvalidArgumentError, "shape"):
            sess.run(w.concat())


def test_split_incompatible_shapes_fails():
    with _session() as sess:
        ta = _ta(3)
        lengths = tf.placeholder(tf.int64)
        with _op_error(r"Expected lengths to be a vector, received shape: \[\]"):
            sess.run(ta.split([1.0, 2.0, 3.0], lengths).flow, {lengths: 1})
        with _op_error(r"Expected sum of lengths to be equal to values.shape\[0\], but sum of "
                       r"lengths is 1 and value's shape is: \[3\]"):
            sess.run(ta.split([1.0, 2.0, 3.0], [1]).flow)
        with _op_error(r"Expected value to be at least a vector, but received shape: \[\]"):
            sess.run(_ta(1, "baz").split(1.0, [1]).flow)
        with _op_error(r"TensorArray's size is not equal to the size of lengths \(2 vs. 1\), "
                       r"and the TensorArray is not marked as dynamically resizeable"):
            sess.run(_ta(2, "buz").split([1.0], [1]).flow)


def test_multi_tensor_array():
    with _session() as sess:
        r1 = tf.TensorArray(tf.float32, size=1, tensor_array_name="foo").write(0, 4.0).read(0)
        r2 = tf.TensorArray(tf.float32, size=1, tensor_array_name="bar").write(0, 5.0).read(0)
        assert np.isclose(sess.run(r1 + r2), 9.0)


# ── gradients through TensorArray ops ────────────────────────────────────────────────
def test_gradient_write_read():
    for np_dtype in (np.float32, np.float64, np.complex64, np.complex128):
        c = lambda x, t=np_dtype: np.array(x, dtype=t)  # noqa: E731
        with _session() as sess:
            ta = _ta(3, dtype=tf.as_dtype(np_dtype))
            value_0 = tf.constant(c([[4.0, 5.0]]))
            value_1 = tf.constant(c(3.0))
            w1 = ta.write(0, value_0).write(1, value_1)
            r0, r1, r0_2 = w1.read(0), w1.read(1), w1.read(0)
            g = tf.gradients(ys=[r0], xs=[value_0], grad_ys=[c([[2.0, 3.0]])])
            _equal(c([[2.0, 3.0]]), sess.run(g)[0])
            g = tf.gradients(ys=[r0, r0_2], xs=[value_0],
                             grad_ys=[c([[2.0, 3.0]]), c([[1.0, -1.0]])])
            _equal(c([[3.0, 2.0]]), sess.run(g)[0])
            g = tf.gradients(ys=[r1], xs=[value_1], grad_ys=[c(-2.0)])
            _equal(c(-2.0), sess.run(g)[0])
            g = tf.gradients(ys=[r0, r0_2, r1], xs=[value_0, value_1],
                             grad_ys=[c([[2.0, 3.0]]), c([[1.0, -1.0]]), c(-2.0)])
            got = sess.run(g)
            assert len(got) == 2
            _equal(c([[3.0, 2.0]]), got[0])
            _equal(c(-2.0), got[1])


def test_gradient_write_pack_concat_and_read():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=2, clear_after_read=False)
        value_0 = tf.constant([-1.0, 1.0])
        value_1 = tf.constant([-10.0, 10.0])
        w1 = ta.write(0, value_0).write(1, value_1)
        p0, r0, s0 = w1.stack(), w1.read(0), w1.concat()
        with tf.control_dependencies([p0, r0, s0]):
            grad = tf.gradients(ys=[p0, r0, s0], xs=[value_0, value_1],
                                grad_ys=[[[2.0, 3.0], [4.0, 5.0]], [-0.5, 1.5],
                                         [20.0, 30.0, 40.0, 50.0]])
        got = sess.run(grad)
        np.testing.assert_allclose([2.0 - 0.5 + 20.0, 3.0 + 1.5 + 30.0], got[0])
        _equal(np.float32([4.0 + 40.0, 5.0 + 50.0]), got[1])


def test_read_twice():
    with _session() as sess:
        value = tf.constant([[1.0, -1.0], [10.0, -10.0]])
        w = tf.TensorArray(tf.float32, tensor_array_name="foo", size=2).unstack(value)
        r0 = w.read(0)
        with _op_error(r"Could not read index 0 twice because it was cleared after a "
                       r"previous read \(perhaps try setting clear_after_read = false\?\)"):
            with tf.control_dependencies([r0]):
                sess.run(w.read(0))
        w = tf.TensorArray(tf.float32, tensor_array_name="foo", size=2,
                           clear_after_read=False).unstack(value)
        r0 = w.read(0)
        with tf.control_dependencies([r0]):
            r1 = w.read(0)
        _equal(np.float32([1.0, -1.0]), sess.run(r1))


def test_gradient_unpack_read():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=2, clear_after_read=False)
        value = tf.constant([[1.0, -1.0], [10.0, -10.0]])
        w = ta.unstack(value)
        grad = tf.gradients(ys=[w.read(0), w.read(0), w.read(1)], xs=[value],
                            grad_ys=[[2.0, 3.0], [-1.5, 1.5], [4.0, 5.0]])
        got = sess.run(grad)
        assert len(got) == 1
        _equal(np.float32([[2.0 - 1.5, 3.0 + 1.5], [4.0, 5.0]]), got[0])


def test_gradient_split_concat():
    with _session() as sess:
        ta = _ta(2)
        value = tf.constant([[1.0, -1.0], [10.0, -10.0], [100.0, -100.0]])
        r = ta.split(value, [2, 1]).concat()
        dy = [[2.0, -2.0], [20.0, -20.0], [200.0, -200.0]]
        got = sess.run(tf.gradients(ys=[r], xs=[value], grad_ys=[dy]))
        assert len(got) == 1
        _equal(np.float32(dy), got[0])


def test_gradient_dynamic_unpack_read():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=0, dynamic_size=True)
        value = tf.constant([[1.0, -1.0], [10.0, -10.0]])
        w = ta.unstack(value)
        got = sess.run(tf.gradients(ys=[w.read(0), w.read(1)], xs=[value],
                                    grad_ys=[[2.0, 3.0], [4.0, 5.0]]))
        _equal(np.float32([[2.0, 3.0], [4.0, 5.0]]), got[0])


def test_close_size_and_write_close():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        sess.run(ta.close())
        assert sess.run(ta.size()) == 3
        w = _ta(3).write(0, [[4.0, 5.0]]).write(1, [3.0])
        sess.run(w.close())


def _while_loop_write_pack_gradients(dynamic_size):
    with _session() as sess:
        def func(v0, state0, var):
            ta = tf.TensorArray(tf.float32, tensor_array_name="foo",
                                size=0 if dynamic_size else 3, dynamic_size=dynamic_size)
            time_0 = tf.identity(0)

            def body(time, ta_t, state):
                sliced = tf.squeeze(tf.slice(v0, begin=tf.stack([time, 0]), size=[1, -1]))
                out = sliced + var + state
                return time + 1, ta_t.write(time, out), state + sliced

            _, h_final, _ = tf.while_loop(
                lambda time, _1, _2: time < 3, body, loop_vars=(time_0, ta, state0),
                shape_invariants=(time_0.get_shape(), tf.TensorShape(None),
                                  tf.TensorShape(None)), parallel_iterations=3)
            return h_final.stack()

        v0 = tf.identity(np.arange(3 * 5, dtype=np.float32).reshape(3, 5))
        state0 = tf.identity(np.array([1] * 5, dtype=np.float32))
        init_val = np.arange(100, 105, dtype=np.float32)
        var = tf.get_variable("var", shape=init_val.shape, dtype=np.float32,
                              initializer=tf.constant_initializer(init_val))
        vout = func(v0, state0, var)
        grad_val = -np.arange(3 * 5, dtype=np.float32).reshape(3, 5)
        v0_grad = tf.gradients([vout], [v0], [grad_val])[0]
        state0_grad = tf.gradients([vout], [state0], [grad_val])[0]
        var_grad = tf.gradients([vout], [var], [grad_val])[0]
        sess.run(tf.global_variables_initializer())
        state0_t, var_t, v0_t, vout_t, v0_grad_t, var_grad_t, state0_grad_t = sess.run(
            [state0, var, v0, vout, v0_grad, var_grad, state0_grad])
        just_v0_grad_t = sess.run(v0_grad)
        state_per_time = np.array([state0_t, state0_t + v0_t[0], state0_t + v0_t[0] + v0_t[1]])
        np.testing.assert_allclose(v0_t + var_t + state_per_time, vout_t)
        want_v0_grad = np.array([grad_val[0] + grad_val[1] + grad_val[2],
                                 grad_val[1] + grad_val[2], grad_val[2]])
        _equal(want_v0_grad, v0_grad_t)
        _equal(want_v0_grad, just_v0_grad_t)
        np.testing.assert_allclose(grad_val.sum(axis=0), var_grad_t)
        np.testing.assert_allclose(grad_val.sum(axis=0), state0_grad_t)


def test_while_loop_write_pack_gradients():
    _while_loop_write_pack_gradients(dynamic_size=False)


def test_while_loop_dynamic_write_pack_gradients():
    _while_loop_write_pack_gradients(dynamic_size=True)


def test_while_loop_dynamic_size_zero():
    """TF's XLA regression test, its graph half: a dynamic array grown from size 0."""
    with _session() as sess:
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(lambda i, ta: i < 5,
                              lambda i, ta: (i + 1, ta.write(i, tf.square(i) + 1)),
                              [tf.constant(0), ta])
        _equal(np.int32([1, 2, 5, 10, 17]), sess.run(ta.stack()))


def test_grad_serial_two_loops():
    with _session() as sess:
        def loop(x):
            num_steps = 100
            acc = tf.TensorArray(tf.float32, size=num_steps, clear_after_read=False,
                                 element_shape=tf.TensorShape([]))
            i = tf.constant(0, name="i")

            def b(i, acc):
                x1 = tf.cond(tf.equal(i, 0), lambda: x,
                             lambda: tf.multiply(acc.read(i - 1), 2.0))
                return i + 1, acc.write(i, x1)

            i1, acc1 = tf.while_loop(lambda i, acc: i < 5, b, [i, acc])
            z = tf.constant(0.0)
            _, acc2 = tf.while_loop(lambda i, acc: i < num_steps,
                                    lambda i, acc: (i + 1, acc.write(i, z)), [i1, acc1])
            return acc2.stack()

        x = tf.constant(2.0, name="x")
        grad = tf.gradients(loop(x), [x])[0]
        np.testing.assert_allclose(31.0, sess.run(grad))


def test_shape_after_while_loop():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=10)
        _, ta = tf.while_loop(lambda i, _: i < 10, lambda i, ta: (i + 1, ta.write(i, [[0.]])),
                              [0, ta], parallel_iterations=1)
        assert ta.element_shape.dims is not None


def test_sum_of_two_read_variables_without_repeat_grad():
    with _session() as sess:
        a = tf.identity(np.arange(3 * 5, dtype=np.float32).reshape(3, 5) + 1)
        b = tf.identity(np.arange(3 * 5, dtype=np.float32).reshape(3, 5) + 1 + 3 * 5)
        ta = tf.TensorArray(tf.float32, size=2)
        ta = ta.write(0, a, name="write_a").write(1, b, name="write_b")
        c = ta.read(0, name="read_a_0") + ta.read(1, name="read_b_0")
        g0 = -(np.arange(3 * 5, dtype=np.float32).reshape(3, 5) + 1)
        grad_a = tf.gradients([c], [a], [g0])[0]
        grad_b = tf.gradients([c], [b], [g0])[0]
        _equal(g0, sess.run(grad_a))
        _equal(g0, sess.run(grad_b))
        joint_a, joint_b = sess.run([grad_a, grad_b])
        _equal(g0, joint_a)
        _equal(g0, joint_b)


# ── static shapes ────────────────────────────────────────────────────────────────────
def test_write_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3)
        c0 = tf.constant([4.0, 5.0])
        w0 = ta.write(0, c0)
        assert w0.read(0).get_shape() == c0.get_shape()
        c1 = tf.constant([6.0, 7.0])
        w1 = w0.write(1, c1)
        assert w1.read(0).get_shape() == c0.get_shape()
        assert w1.read(1).get_shape() == c1.get_shape()
        with _raises(ValueError):
            w0.write(0, tf.constant([4.0, 5.0, 6.0]))


def test_partly_unknown_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=6)
        w0 = ta.write(0, tf.placeholder(tf.float32, [None, None, None, 3]))
        assert w0.read(0).get_shape().as_list() == [None, None, None, 3]
        w1 = w0.write(1, tf.placeholder(tf.float32, [None, None, None, 3]))
        assert w1.read(0).get_shape().as_list() == [None, None, None, 3]
        w2 = w1.write(2, tf.placeholder(tf.float32, [None, None, None, None]))
        assert w2.read(0).get_shape().as_list() == [None, None, None, 3]
        w3 = w2.write(3, tf.placeholder(tf.float32, [None, None, 2, None]))
        assert w3.read(0).get_shape().as_list() == [None, None, 2, 3]
        w4 = w3.scatter([4, 5], tf.placeholder(tf.float32, [2, None, 4, 2, 3]))
        assert w4.read(0).get_shape().as_list() == [None, 4, 2, 3]
        w5 = w4.split(tf.placeholder(tf.float32, [10, 4, 2, 3]), tf.constant([5, 5]))
        assert w5.read(0).get_shape().as_list() == [5, 4, 2, 3]


def test_unpack_shape():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=0, dynamic_size=True,
                            infer_shape=True)
        w0 = ta.unstack(tf.constant([[1.0, -1.0], [10.0, -10.0], [100.0, -100.0]]))
        r0 = w0.read(0)
        assert r0.get_shape().as_list() == [2]
        c1 = tf.constant([4.0, 5.0])
        w1 = w0.write(3, c1)
        with _op_error(r"Could not read index 0 twice because it was cleared after a "
                       r"previous read \(perhaps try setting clear_after_read = false\?\)"):
            with tf.control_dependencies([r0]):
                sess.run(w1.read(0))
        assert w1.read(1).shape == c1.get_shape()
        with _raises(ValueError):
            w1.write(4, tf.constant([4.0, 5.0, 6.0]))


def test_split_shape():
    with tf.Graph().as_default():
        value = tf.constant([[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]])
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=0, dynamic_size=True,
                            infer_shape=True)
        assert ta.split(value, [1, 1, 1]).read(0).get_shape().as_list() == [1, 2]
        ta1 = tf.TensorArray(tf.float32, tensor_array_name="foo1", size=0, dynamic_size=True,
                             infer_shape=True)
        assert ta1.split(value, [1, 2]).read(0).get_shape().ndims is None


def test_write_unknown_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3, infer_shape=True)
        assert ta.write(0, tf.placeholder(tf.float32)).read(0).get_shape().ndims is None


def test_gradient_when_not_all_components_read():
    with _session() as sess:
        x = tf.constant([2.0, 3.0])
        r0 = tf.TensorArray(tf.float32, size=2).unstack(x).read(0)
        got = sess.run(tf.gradients(ys=[r0], xs=[x], grad_ys=[1.0]))[0]
        _equal(np.float32([1.0, 0.0]), got)


def test_write_but_not_all_components_read_grad():
    with _session() as sess:
        x0 = tf.constant(5.0)
        x1 = tf.constant(10.0)
        r0 = tf.TensorArray(tf.float32, size=2).write(0, x0).write(1, x1).read(0)
        got = sess.run(tf.gradients(ys=[r0], xs=[x0, x1], grad_ys=[1.0]))
        _equal(np.float32([1.0, 0.0]), got)


def test_unpack_dynamic():
    with _session() as sess:
        x = tf.constant([1.0, 2.0, 3.0])
        ta = tf.TensorArray(tf.float32, size=3, dynamic_size=True)
        r = ta.unstack(x).write(3, 4.0).stack()
        _equal(np.float32([1.0, 2.0, 3.0, 4.0]), sess.run(r))
        _equal(np.float32([1.0, 1.0, 1.0]), sess.run(tf.gradients(ys=[r], xs=[x]))[0])


def test_split_dynamic():
    with _session() as sess:
        x = tf.constant([1.0, 2.0, 3.0])
        ta = tf.TensorArray(tf.float32, size=3, dynamic_size=True)
        r = ta.split(x, [1, 1, 1]).write(3, [4.0]).concat()
        _equal(np.float32([1.0, 2.0, 3.0, 4.0]), sess.run(r))
        _equal(np.float32([1.0, 1.0, 1.0]), sess.run(tf.gradients(ys=[r], xs=[x]))[0])


def test_stack_read_and_gather_shapes():
    """TF's testStackShape / testReadShape / testGatherShape, in a TF1 graph rather than a
    ``tf.function`` (where TF1's gather does not count constant indices)."""
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3).write(0, tf.constant([1.0, 2.0, 3.0]))
        assert ta.stack().shape.as_list() == [3, 3]
        assert ta.read(0).shape.as_list() == [3]
        assert ta.gather([0]).shape.as_list() == [None, 3]
        indices = tf.placeholder(tf.int32, [None])
        assert ta.gather(indices).shape.as_list() == [None, 3]


def test_eval_empty():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=False, infer_shape=False)
        with _op_error("TensorArray has size zero, but element shape <unknown> is not fully "
                       "defined. Currently only static shapes are supported when packing "
                       "zero-size TensorArrays."):
            sess.run(ta.stack())


def test_eval_empty_with_default():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=False, infer_shape=True)
        assert sess.run(ta.size()) == 0
        ta.unstack(tf.zeros([0, 3, 5]))  # not run: it only gives the element shape
        packed, concatenated = ta.stack(), ta.concat()
        assert sess.run(packed).shape == (0, 3, 5)
        assert sess.run(concatenated).shape == (0, 5)


def test_scatter_read_and_gradients():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=0, dynamic_size=True)
        value = tf.constant([[1.0, -1.0], [10.0, -10.0]])
        w = ta.scatter(tf.constant([1, 8]), value)
        r0, r1 = w.read(1), w.read(8)
        grad = tf.gradients(ys=[r0, r1], xs=[value], grad_ys=[[2.0, 3.0], [4.0, 5.0]])
        reads, grads = sess.run([[r0, r1], grad])
        _equal(np.float32([1.0, -1.0]), reads[0])
        _equal(np.float32([10.0, -10.0]), reads[1])
        assert len(grads) == 1
        _equal(np.float32([[2.0, 3.0], [4.0, 5.0]]), grads[0])


def test_scatter_partial_read_and_gradients():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=0, dynamic_size=True)
        value = tf.constant([[1.0, -1.0], [10.0, -10.0]])
        r0 = ta.scatter(tf.constant([1, 8]), value).read(1)
        grad = tf.gradients(ys=[r0], xs=[value], grad_ys=[[2.0, 3.0]])[0]
        read, g = sess.run([r0, grad])
        _equal(np.float32([1.0, -1.0]), read)
        _equal(np.float32([[2.0, 3.0], [0.0, 0.0]]), g)


def test_scatter_into_existing_list():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=5)
        ta = ta.scatter(indices=[3, 4], value=tf.ones([2]))
        _equal(np.float32([0., 0., 0., 1., 1.]), sess.run(ta.stack()))
        ta = ta.scatter(indices=[1], value=tf.ones([1]))
        _equal(np.float32([0., 1., 0., 1., 1.]), sess.run(ta.stack()))
        ta = ta.scatter(indices=[0, 2], value=[5., 6.])
        _equal(np.float32([5., 1., 6., 1., 1.]), sess.run(ta.stack()))


def test_scatter_bfloat16():
    """TF's testTensorArrayScatterBfloat16GPU, on the CPU."""
    with _session() as sess:
        ta = tf.TensorArray(tf.bfloat16, tensor_array_name="foo", size=5)
        ta = ta.scatter(indices=[3, 4], value=tf.ones([2], dtype=tf.bfloat16))
        got = sess.run(ta.stack())
        assert got.dtype == tf.bfloat16.as_numpy_dtype
        _equal(np.float32([0., 0., 0., 1., 1.]), got.astype(np.float32))


def test_scatter_int64():
    """TF's testSkipEagerTensorArrayInt64GPU, on the CPU."""
    with _session() as sess:
        value = tf.placeholder(tf.int64)
        ta = tf.TensorArray(tf.int64, size=2).scatter([0, 1], value)
        v0, v1 = sess.run([ta.read(0), ta.read(1)], {value: [-3, 100]})
        assert v0 == -3 and v1 == 100


def test_write_gather_and_gradients():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, tensor_array_name="foo", size=0, dynamic_size=True)
        values = tf.constant([[1.0 * x, -1.0 * x] for x in range(10)])
        g = ta.unstack(values).gather(tf.constant([1, 8]))
        grad = tf.gradients(ys=[g], xs=[values], grad_ys=[[[2.0, 3.0], [4.0, 5.0]]])
        g_vals, grad_vals = sess.run([[g], grad])
        want = np.zeros((10, 2), np.float32)
        want[1] = [2.0, 3.0]
        want[8] = [4.0, 5.0]
        _equal(np.float32([[1.0, -1.0], [8.0, -8.0]]), g_vals[0])
        _equal(want, grad_vals[0])


def test_identity():
    with _session() as sess:
        ta0 = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, 0.)
        ta1 = tf.TensorArray(tf.int32, size=4, infer_shape=True).write(0, 1)
        v0 = tf.get_variable("v0", shape=(), initializer=tf.zeros_initializer())
        v1 = tf.get_variable("v1", shape=(), initializer=tf.zeros_initializer())
        with tf.control_dependencies([v0.assign_add(1)]):
            ta0 = ta0.identity()
        with tf.control_dependencies([v1.assign_add(1)]):
            ta1 = ta1.identity()
        read0, read1 = ta0.read(0), ta1.read(0)
        size0, size1 = ta0.size(), ta1.size()
        assert ta0.dtype == tf.float32 and ta1.dtype == tf.int32
        assert read0.get_shape().ndims is None
        assert read1.get_shape() == tf.TensorShape([])
        sess.run(tf.global_variables_initializer())
        got = sess.run((read0, read1, size0, size1))
        assert sess.run(v0) == 1 and sess.run(v1) == 1  # the control dependencies ran
        assert list(got) == [0, 1, 2, 4]


def test_grad_ys_in_correct_scope():
    with _session() as sess:
        x = tf.constant([[1.42]])
        dy = tf.constant([[2.42]])
        ta = tf.TensorArray(tf.float32, size=1, element_shape=[1])
        ta = ta.write(index=0, value=x[0])
        dx, = tf.gradients(ys=[ta.stack()], xs=[x], grad_ys=[dy])
        vdx, vdy = sess.run([dx, dy])
        np.testing.assert_allclose(vdx, vdy)


def test_infer_shape_false_valid():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False, element_shape=[None, 10, 20])
        ta = ta.write(0, tf.ones([50, 10, 20])).write(1, tf.ones([50, 10, 20]))
        ta = ta.write(2, tf.ones([1, 10, 20]))
        _equal(np.ones([101, 10, 20], np.float32), sess.run(ta.concat()))


def test_infer_shape_false_invalid():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False, element_shape=[None, 10, 20])
        ta = ta.write(0, tf.ones([50, 10, 20]))
        with _raises(ValueError):
            ta.write(1, tf.ones([1, 20, 20]))


def test_infer_shape_true():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=True, element_shape=[None, 10, 20])
        assert ta.element_shape.as_list() == [None, 10, 20]
        ta = ta.write(0, tf.ones([50, 10, 20]))
        assert ta.element_shape.as_list() == [50, 10, 20]
        ta = ta.write(1, tf.ones([50, 10, 20]))
        with _raises(ValueError, "Inconsistent shapes"):
            ta.write(2, tf.ones([1, 10, 20]))


def test_stack_shape_on_empty():
    with _session() as sess:
        ta = tf.TensorArray(tf.float32, size=0, element_shape=(5, 10), dynamic_size=True)
        assert sess.run(ta.stack()).shape == (0, 5, 10)


def test_stack_on_partially_defined_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=0, element_shape=(5, None), dynamic_size=True)
        assert ta.stack().shape.as_list() == [None, 5, None]


def test_stack_shape_on_static_size():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=42).write(0, [0])
        assert ta.stack().shape.as_list() == [42, 1]


# ── TF1's runtime validation, beyond TF's own tests ───────────────────────────────────
def test_runtime_errors_with_tf_messages():
    """TF1's kernels' checks, each message as TF 2.21 words it."""
    def ta(**kw):
        return tf.TensorArray(tf.float32, tensor_array_name="foo", **kw)

    cases = [
        (lambda: ta(size=3, infer_shape=False).read(1),
         r"TensorArray foo_\d+: Could not read from TensorArray index 1\.  Furthermore, the "
         r"element shape is not fully defined: <unknown>\."),
        (lambda: ta(size=3, element_shape=[None, 2]).read(0),
         r"the element shape is not fully defined: \[\?,2\]\."),
        (lambda: ta(size=2, infer_shape=False).write(0, [3.]).write(1, [4., 5]).stack(),
         r"TensorArray has inconsistent shapes\.  Index 0 has shape: \[1\] but index 1 has "
         r"shape: \[2\]"),
        (lambda: ta(size=2, infer_shape=False).write(0, [[3., 1]]).write(1, [[4.]]).concat(),
         r"TensorArray has inconsistent shapes\.  Index 0 has \(excepting dimension 0\) "
         r"shape: \[2\] but index 1 has \(excepting dimension 0\) shape: \[1\]"),
        (lambda: ta(size=2).write(0, [1., 2.]).write(
            1, tf.placeholder_with_default([4., 5, 6], [None])).stack(),
         r"TensorArray foo_\d+: Could not write to TensorArray index 1 because the value shape "
         r"is \[3\] which is incompatible with the TensorArray's inferred element shape: "
         r"\[2\] \(consider setting infer_shape=False\)\."),
        (lambda: ta(size=2).unstack([1., 2, 3]).flow,
         r"Max scatter index must be < array size \(2 vs\. 2\)"),
        (lambda: ta(size=2).scatter([0, 5], [1., 2]).flow,
         r"Max scatter index must be < array size \(5 vs\. 2\)"),
        (lambda: ta(size=4).scatter([0, 1], tf.placeholder_with_default([1., 2, 3], [None])).flow,
         r"Expected len\(indices\) == values\.shape\[0\], but saw: 2 vs\. 3"),
        (lambda: ta(size=2).write(0, 1.).write(1, 2.).gather([0, 5]),
         r"Tried to read from index 5 but array size is: 2"),
        (lambda: ta(size=3).write(-1, 1.).flow,
         r"TensorArray foo_\d+: Tried to write to index -1 but array is not resizeable and "
         r"size is: 3"),
        (lambda: ta(size=0, infer_shape=False).concat(),
         r"TensorArray has size zero, but element_shape_except0 <unknown> is not fully "
         r"defined\. Currently only static shapes are supported when concatenating zero-size "
         r"TensorArrays\."),
    ]
    for build, pattern in cases:
        with _session() as sess:
            with _op_error(pattern):
                sess.run(build())
    with _session() as sess:  # a stack reads (and so clears) every element
        w = ta(size=2).unstack([[1., 2.], [3., 4.]])
        with tf.control_dependencies([w.stack()]):
            with _op_error("Could not read index 0 twice"):
                sess.run(w.read(0))
    with _session() as sess:
        with _raises(tf.errors.UnimplementedError, "TensorArray has size zero"):
            sess.run(ta(size=0, infer_shape=False).stack())
        _equal(np.float32([0, 0, 0, 0, 1]),
               sess.run(ta(size=0, dynamic_size=True).write(4, 1.).stack()))
        assert sess.run(ta(size=0, dynamic_size=True).write(4, 1.).grad("g").size()) == 5
        assert sess.run(ta(size=0, element_shape=[None, 3]).concat()).shape == (0, 3)


def test_more_dtypes_write_stack_concat_gather_and_fetch_a_flow():
    """The other dtypes TF's CPU kernels register for TensorArrays (half, bool, the small
    and unsigned integers), through every reading op; a flow can be fetched."""
    for name in ("float16", "bool", "int8", "int16", "uint8", "uint16", "uint32", "uint64"):
        dtype = tf.as_dtype(name)
        want = np.array([[1, 0], [0, 1], [1, 1]]).astype(dtype.as_numpy_dtype)
        with _session() as sess:
            ta = tf.TensorArray(dtype, size=3, clear_after_read=False).unstack(want)
            got = sess.run([ta.stack(), ta.concat(), ta.gather([2, 0]), ta.read(1), ta.flow])
            _equal(want, got[0])
            _equal(want.reshape(-1), got[1])
            _equal(want[[2, 0]], got[2])
            _equal(want[1], got[3])
            assert got[0].dtype == want.dtype, name


# ── skipped: TF internals, eager-only, v2-only and cluster tests ──────────────────────
SKIPPED = {
    "testSkipEagerTensorArrayGradGrad":
        "TF skips it under TF1 control flow: legacy TensorArrays have no second derivative",
    "testSkipEagerTensorArrayGradWithShapeKnownElementShape":
        "tests the raw TensorArrayGradWithShape op (gen_data_flow_ops), not the public API",
    "testSkipEagerTensorArrayGradWithShapeUnknownElementShape":
        "tests the raw TensorArrayGradWithShape op (gen_data_flow_ops), not the public API",
    "testTensorArrayReadWrongIndexOrDataTypeFails (wrong read dtype)":
        "reads with a wrong dtype only through the raw tensor_array_read_v3 op",
    "testGetGradSource_*":
        "tests tensor_array_grad._GetGradSource, a TF internal",
    "testSkipEagerTensorArrayGetsDeviceFromFirstWrite":
        "device placement across a 3-worker cluster with RunMetadata step stats",
    "testSkipEagerTensorArrayGetsDeviceFromFirstWriteInWhileLoop":
        "device placement across a 3-worker cluster with RunMetadata step stats",
    "testSkipEagerTensorArrayDisabledColocateWithFirstWriteCall":
        "device placement across a 3-worker cluster with RunMetadata step stats",
    "testWhileLoopDynamicSizeZeroXla (XLA half)":
        "compiles with XLA (jit_compile=True) and runs eagerly: TF2-only",
    "testTensorArrayConcatFailsWhenMissingStepContainer":
        "calls the raw TensorArrayConcatV2 op inside a tf.function (TF2-only)",
    "TensorArrayBenchmark.*":
        "benchmarks (write in while loops and in tf.data map functions), not tests",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
