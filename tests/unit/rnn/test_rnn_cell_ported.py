"""TensorFlow's own RNN-cell tests (core_rnn_cell_test.py: BasicRNNCell, GRUCell,
BasicLSTMCell, LSTMCell, MultiRNNCell and the Dropout/Residual/Device wrappers, in graph
mode), rewritten against the public API (``import scopeflow as tf``).

Each test is ours, written after the TF test of the same name, keeping its hard-coded
expected values; TF tests of internals (``_Linear``, ``_SlimRNNCell``), of contrib-only
cells (not in ``tf.compat.v1``) or of GPU placement are listed in ``SKIPPED`` with the
reason. The tests use only names that real TensorFlow's ``tf.compat.v1`` has too, so
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


# ── helpers ──────────────────────────────────────────────────────────────────────────


@contextlib.contextmanager
def _session():
    np.random.seed(23489)
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


@contextlib.contextmanager
def _root(name="root", value=0.5, **kw):
    with tf.variable_scope(name, initializer=tf.constant_initializer(value), **kw) as scope:
        yield scope


def _close(want, got, atol=1e-6, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


def _init(sess):
    sess.run([tf.global_variables_initializer()])


# ── RNNCellTest ──────────────────────────────────────────────────────────────────────
def test_basic_rnn_cell():
    with _session() as sess, _root():
        x = tf.zeros([1, 2])
        m = tf.zeros([1, 2])
        cell = tf.nn.rnn_cell.BasicRNNCell(2)
        g, _ = cell(x, m)
        assert [v.name for v in cell.trainable_variables] == [
            "root/basic_rnn_cell/kernel:0", "root/basic_rnn_cell/bias:0"]
        assert not cell.non_trainable_variables
        _init(sess)
        res = sess.run([g], {x.name: np.array([[1., 1.]]), m.name: np.array([[0.1, 0.1]])})
        assert res[0].shape == (1, 2)
        # tanh(0.5 * (1 + 1 + 0.1 + 0.1)) (the bias starts at zero): the same for both units
        _close([[np.tanh(1.1)] * 2], res[0])


def test_basic_rnn_cell_not_trainable():
    def not_trainable_getter(getter, *args, **kwargs):
        kwargs["trainable"] = False
        return getter(*args, **kwargs)

    with _session() as sess, _root(custom_getter=not_trainable_getter):
        x = tf.zeros([1, 2])
        m = tf.zeros([1, 2])
        cell = tf.nn.rnn_cell.BasicRNNCell(2)
        g, _ = cell(x, m)
        assert not cell.trainable_variables
        assert [v.name for v in cell.non_trainable_variables] == [
            "root/basic_rnn_cell/kernel:0", "root/basic_rnn_cell/bias:0"]
        _init(sess)
        res = sess.run([g], {x.name: np.array([[1., 1.]]), m.name: np.array([[0.1, 0.1]])})
        assert res[0].shape == (1, 2)


def test_gru_cell():
    with _session() as sess:
        with _root():
            x = tf.zeros([1, 2])
            m = tf.zeros([1, 2])
            g, _ = tf.nn.rnn_cell.GRUCell(2)(x, m)
            _init(sess)
            res = sess.run([g], {x.name: np.array([[1., 1.]]),
                                 m.name: np.array([[0.1, 0.1]])})
            _close([[0.175991, 0.175991]], res[0])
        with _root("other"):  # input_size != num_units
            x = tf.zeros([1, 3])
            m = tf.zeros([1, 2])
            g, _ = tf.nn.rnn_cell.GRUCell(2)(x, m)
            _init(sess)
            res = sess.run([g], {x.name: np.array([[1., 1., 1.]]),
                                 m.name: np.array([[0.1, 0.1]])})
            _close([[0.156736, 0.156736]], res[0])


def test_basic_lstm_cell():
    for dtype in [tf.float16, tf.float32]:
        np_dtype = dtype.as_numpy_dtype
        with _session() as sess:
            with _root():
                x = tf.zeros([1, 2], dtype=dtype)
                m = tf.zeros([1, 8], dtype=dtype)
                cell = tf.nn.rnn_cell.MultiRNNCell(
                    [tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False)
                     for _ in range(2)], state_is_tuple=False)
                g, out_m = cell(x, m)
                assert cell.dtype == dtype.name  # the layer takes its inputs' dtype
                expected_variable_names = [
                    "root/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0",
                    "root/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0",
                    "root/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0",
                    "root/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0"]
                assert [v.name for v in cell.trainable_variables] == expected_variable_names
                assert not cell.non_trainable_variables
                _init(sess)
                res = sess.run([g, out_m], {x.name: np.array([[1., 1.]]),
                                            m.name: 0.1 * np.ones([1, 8])})
                assert len(res) == 2
                assert [v.name for v in tf.global_variables()] == expected_variable_names
                _close(np.array([[0.240, 0.240]], dtype=np_dtype), res[0], rtol=1e-2,
                       atol=1e-2)
                expected_mem = np.array(
                    [[0.689, 0.689, 0.448, 0.448, 0.398, 0.398, 0.240, 0.240]],
                    dtype=np_dtype)
                _close(expected_mem, res[1], rtol=1e-2, atol=1e-2)
                assert res[0].dtype == np_dtype
            with _root("other"):  # input_size != num_units
                x = tf.zeros([1, 3], dtype=dtype)
                m = tf.zeros([1, 4], dtype=dtype)
                g, out_m = tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False)(x, m)
                _init(sess)
                res = sess.run([g, out_m], {x.name: np.array([[1., 1., 1.]], dtype=np_dtype),
                                            m.name: 0.1 * np.ones([1, 4], dtype=np_dtype)})
                assert len(res) == 2
                assert res[0].shape == (1, 2) and res[1].shape == (1, 4)


def test_basic_lstm_cell_dimension0_error():
    """The batch dimensions of x and m must agree."""
    num_units, batch_size, input_size = 2, 3, 4
    with _session() as sess, _root():
        x = tf.zeros([batch_size, input_size])
        m = tf.zeros([batch_size - 1, num_units * 2])
        with _raises(ValueError):
            g, out_m = tf.nn.rnn_cell.BasicLSTMCell(num_units, state_is_tuple=False)(x, m)
            _init(sess)
            sess.run([g, out_m], {x.name: np.ones([batch_size, input_size]),
                                  m.name: 0.1 * np.ones([batch_size - 1, num_units * 2])})


def test_basic_lstm_cell_state_size_error():
    """The state must be num_units * 2 wide."""
    num_units, batch_size, input_size = 2, 3, 4
    with _session() as sess, _root():
        x = tf.zeros([batch_size, input_size])
        m = tf.zeros([batch_size, num_units * 3])
        with _raises(ValueError):
            g, out_m = tf.nn.rnn_cell.BasicLSTMCell(num_units, state_is_tuple=False)(x, m)
            _init(sess)
            sess.run([g, out_m], {x.name: np.ones([batch_size, input_size]),
                                  m.name: 0.1 * np.ones([batch_size, num_units * 3])})


def test_basic_lstm_cell_state_tuple_type():
    with _session(), _root():
        x = tf.zeros([1, 2])
        m0 = (tf.zeros([1, 2]),) * 2
        m1 = (tf.zeros([1, 2]),) * 2
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2) for _ in range(2)],
                                           state_is_tuple=True)
        assert isinstance(cell.state_size, tuple)
        assert isinstance(cell.state_size[0], tf.nn.rnn_cell.LSTMStateTuple)
        assert isinstance(cell.state_size[1], tf.nn.rnn_cell.LSTMStateTuple)
        _, (out_m0, out_m1) = cell(x, (m0, m1))  # plain tuples in
        assert isinstance(out_m0, tf.nn.rnn_cell.LSTMStateTuple)
        assert isinstance(out_m1, tf.nn.rnn_cell.LSTMStateTuple)
        tf.get_variable_scope().reuse_variables()
        zero_state = cell.zero_state(1, tf.float32)  # LSTMStateTuples in
        assert isinstance(zero_state, tuple)
        assert isinstance(zero_state[0], tf.nn.rnn_cell.LSTMStateTuple)
        assert isinstance(zero_state[1], tf.nn.rnn_cell.LSTMStateTuple)
        _, (out_m0, out_m1) = cell(x, zero_state)
        assert isinstance(out_m0, tf.nn.rnn_cell.LSTMStateTuple)
        assert isinstance(out_m1, tf.nn.rnn_cell.LSTMStateTuple)


def test_basic_lstm_cell_with_state_tuple():
    with _session() as sess, _root():
        x = tf.zeros([1, 2])
        m0 = tf.zeros([1, 4])
        m1 = tf.zeros([1, 4])
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False) for _ in range(2)],
            state_is_tuple=True)
        g, (out_m0, out_m1) = cell(x, (m0, m1))
        _init(sess)
        res = sess.run([g, out_m0, out_m1], {x.name: np.array([[1., 1.]]),
                                             m0.name: 0.1 * np.ones([1, 4]),
                                             m1.name: 0.1 * np.ones([1, 4])})
        assert len(res) == 3
        # the same values as with state_is_tuple=False
        _close([[0.24024698, 0.24024698]], res[0])
        _close([[0.68967271, 0.68967271, 0.44848421, 0.44848421]], res[1])
        _close([[0.39897051, 0.39897051, 0.24024698, 0.24024698]], res[2])


def test_lstm_cell():
    num_units, num_proj, batch_size, input_size = 8, 6, 3, 2
    state_size = num_units + num_proj
    with _session() as sess, _root():
        x = tf.zeros([batch_size, input_size])
        m = tf.zeros([batch_size, state_size])
        cell = tf.nn.rnn_cell.LSTMCell(num_units=num_units, num_proj=num_proj,
                                       forget_bias=1.0, state_is_tuple=False)
        output, state = cell(x, m)
        _init(sess)
        res = sess.run([output, state], {x.name: np.array([[1., 1.], [2., 2.], [3., 3.]]),
                                         m.name: 0.1 * np.ones((batch_size, state_size))})
        assert len(res) == 2
        assert res[0].shape == (batch_size, num_proj)
        assert res[1].shape == (batch_size, state_size)
        for i in range(1, batch_size):  # different inputs: different outputs and states
            assert float(np.linalg.norm(res[0][0, :] - res[0][i, :])) > 1e-6
            assert float(np.linalg.norm(res[1][0, :] - res[1][i, :])) > 1e-6


def test_lstm_cell_variables():
    num_units, num_proj, batch_size, input_size = 8, 6, 3, 2
    with _session(), _root():
        x = tf.zeros([batch_size, input_size])
        m = tf.zeros([batch_size, num_units + num_proj])
        cell = tf.nn.rnn_cell.LSTMCell(num_units=num_units, num_proj=num_proj,
                                       forget_bias=1.0, state_is_tuple=False)
        cell(x, m)  # makes the variables
        variables = tf.global_variables()
        assert [v.op.name for v in variables] == [
            "root/lstm_cell/kernel", "root/lstm_cell/bias", "root/lstm_cell/projection/kernel"]


def test_lstm_cell_dtype():
    """rnn_cell_test.py LSTMTest.testDType (GitHub issue 16228): the weights take the
    cell's dtype, float32 when none is given."""
    def bias_dtype(cell):
        cell.build(tf.ones([10, 50]).get_shape())
        bias = [v for v in cell.variables if v.op.name.endswith("/bias")][0]
        return bias.dtype.base_dtype

    with tf.Graph().as_default():
        assert bias_dtype(tf.nn.rnn_cell.LSTMCell(10)) == tf.float32
        for dtype in [tf.float16, tf.float32, tf.float64]:
            assert bias_dtype(tf.nn.rnn_cell.LSTMCell(10, dtype=dtype)) == dtype


def test_residual_wrapper():
    with _session() as sess, _root():
        x = tf.zeros([1, 3])
        m = tf.zeros([1, 3])
        base_cell = tf.nn.rnn_cell.GRUCell(3)
        g, m_new = base_cell(x, m)
        tf.get_variable_scope().reuse_variables()
        g_res, m_new_res = tf.nn.rnn_cell.ResidualWrapper(base_cell)(x, m)
        _init(sess)
        res = sess.run([g, g_res, m_new, m_new_res],
                       {x: np.array([[1., 1., 1.]]), m: np.array([[0.1, 0.1, 0.1]])})
        _close(res[0] + [1., 1., 1.], res[1])  # the residual connection
        _close(res[2], res[3])  # the state as it was


def test_residual_wrapper_with_slice():
    with _session() as sess, _root():
        x = tf.zeros([1, 5])
        m = tf.zeros([1, 3])
        base_cell = tf.nn.rnn_cell.GRUCell(3)
        g, m_new = base_cell(x, m)
        tf.get_variable_scope().reuse_variables()

        def residual_with_slice_fn(inp, out):
            return tf.slice(inp, [0, 0], [-1, 3]) + out

        g_res, m_new_res = tf.nn.rnn_cell.ResidualWrapper(base_cell,
                                                          residual_with_slice_fn)(x, m)
        _init(sess)
        res_g, res_g_res, res_m_new, res_m_new_res = sess.run(
            [g, g_res, m_new, m_new_res],
            {x: np.array([[1., 1., 1., 1., 1.]]), m: np.array([[0.1, 0.1, 0.1]])})
        _close(res_g + [1., 1., 1.], res_g_res)
        _close(res_m_new, res_m_new_res)


def test_device_wrapper():
    with tf.Graph().as_default(), _root():
        x = tf.zeros([1, 3])
        m = tf.zeros([1, 3])
        cell = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(3), "/cpu:14159")
        outputs, _ = cell(x, m)
        assert "cpu:14159" in outputs.device.lower()


def test_multi_rnn_cell():
    with _session() as sess, _root():
        x = tf.zeros([1, 2])
        m = tf.zeros([1, 4])
        _, ml = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(2) for _ in range(2)],
                                            state_is_tuple=False)(x, m)
        _init(sess)
        res = sess.run(ml, {x.name: np.array([[1., 1.]]),
                            m.name: np.array([[0.1, 0.1, 0.1, 0.1]])})
        _close([[0.175991, 0.175991, 0.13248, 0.13248]], res)


def test_multi_rnn_cell_with_state_tuple():
    with _session() as sess, _root():
        x = tf.zeros([1, 2])
        m_bad = tf.zeros([1, 4])
        m_good = (tf.zeros([1, 2]), tf.zeros([1, 2]))
        try:
            tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(2) for _ in range(2)],
                                        state_is_tuple=True)(x, m_bad)
        except ValueError as e:
            assert "Expected state" in str(e) and "a tuple" in str(e), str(e)
        else:
            raise AssertionError("ValueError not raised")
        _, ml = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(2) for _ in range(2)],
                                            state_is_tuple=True)(x, m_good)
        _init(sess)
        res = sess.run(ml, {x.name: np.array([[1., 1.]]),
                            m_good[0].name: np.array([[0.1, 0.1]]),
                            m_good[1].name: np.array([[0.1, 0.1]])})
        # the same numbers as test_multi_rnn_cell
        _close([[0.175991, 0.175991]], res[0])
        _close([[0.13248, 0.13248]], res[1])


# ── DropoutWrapperTest ───────────────────────────────────────────────────────────────
TRUE_FULL_OUTPUT = np.array([[[0.751109, 0.751109, 0.751109]],
                             [[0.895509, 0.895509, 0.895509]]], dtype=np.float32)
TRUE_FULL_FINAL_C = np.array([[1.949385, 1.949385, 1.949385]], dtype=np.float32)


def _dropout_wrapper(make_keeps=None, batch_size=None, time_steps=None,
                     parallel_iterations=None, graph_seed=None, **kwargs):
    """Runs a DropoutWrapper'd LSTMCell(3) over 2 steps of one row (or random inputs),
    its keep probabilities from ``make_keeps()`` (made in the new graph)."""
    with _session() as sess:
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        if make_keeps is not None:
            kwargs.update(make_keeps())
        with _root():
            if batch_size is None and time_steps is None:
                batch_size, time_steps = 1, 2
                x = tf.constant([[[2., 2., 2.]], [[1., 1., 1.]]], dtype=tf.float32)
                m = tf.nn.rnn_cell.LSTMStateTuple(
                    *[tf.constant([[0.1, 0.1, 0.1]], dtype=tf.float32)] * 2)
            else:
                x = tf.constant(np.random.randn(time_steps, batch_size, 3).astype(np.float32))
                m = tf.nn.rnn_cell.LSTMStateTuple(
                    *[tf.constant([[0.1, 0.1, 0.1]] * batch_size, dtype=tf.float32)] * 2)
            outputs, final_state = tf.nn.dynamic_rnn(
                cell=tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.LSTMCell(3), dtype=x.dtype,
                                                   **kwargs),
                time_major=True, parallel_iterations=parallel_iterations, inputs=x,
                initial_state=m)
            _init(sess)
            res = sess.run([outputs, final_state])
            assert res[0].shape == (time_steps, batch_size, 3)
            assert res[1].c.shape == (batch_size, 3)
            assert res[1].h.shape == (batch_size, 3)
            return res


def _keep_variables(input_keep, output_keep, state_keep):
    def make():
        keeps = {"all": tf.get_variable("all", initializer=1.0),
                 "none": tf.get_variable("none", initializer=1e-10)}
        return {"input_keep_prob": keeps[input_keep], "output_keep_prob": keeps[output_keep],
                "state_keep_prob": keeps[state_keep]}
    return make


def test_dropout_wrapper_keep_all_constant_input():
    def make():
        keep = tf.ones([])
        return {"input_keep_prob": keep, "output_keep_prob": keep, "state_keep_prob": keep}

    res = _dropout_wrapper(make)
    _close(TRUE_FULL_OUTPUT, res[0])
    _close(TRUE_FULL_OUTPUT[1], res[1].h)
    _close(TRUE_FULL_FINAL_C, res[1].c)


def test_dropout_wrapper_keep_all():
    res = _dropout_wrapper(_keep_variables("all", "all", "all"))
    _close(TRUE_FULL_OUTPUT, res[0])
    _close(TRUE_FULL_OUTPUT[1], res[1].h)
    _close(TRUE_FULL_FINAL_C, res[1].c)


def test_dropout_wrapper_with_seed():
    kw = {"input_keep_prob": 0.5, "output_keep_prob": 0.5, "state_keep_prob": 0.5,
          "seed": 10, "parallel_iterations": 1, "graph_seed": 2}
    res_1 = _dropout_wrapper(**kw)
    res_2 = _dropout_wrapper(**kw)
    _close(res_1[0], res_2[0])
    _close(res_1[1].c, res_2[1].c)
    _close(res_1[1].h, res_2[1].h)


def test_dropout_wrapper_keep_no_output():
    res = _dropout_wrapper(_keep_variables("all", "none", "all"))
    _close(np.zeros(res[0].shape), res[0])
    _close(TRUE_FULL_OUTPUT[1], res[1].h)
    _close(TRUE_FULL_FINAL_C, res[1].c)


def test_dropout_wrapper_keep_no_state_except_lstm_cell_memory():
    # the state is dropped, but DropoutWrapper never drops an LSTMStateTuple's memory "c"
    res = _dropout_wrapper(_keep_variables("all", "all", "none"))
    true_c_state = np.array([[1.713925, 1.713925, 1.713925]], dtype=np.float32)
    _close(TRUE_FULL_OUTPUT[0], res[0][0])
    # the second output sees the zeroed h
    assert np.linalg.norm(TRUE_FULL_OUTPUT[1] - res[0][1]) > 1e-4
    _close(np.zeros(res[1].h.shape), res[1].h)
    _close(true_c_state, res[1].c)


def test_dropout_wrapper_keep_no_input():
    res = _dropout_wrapper(_keep_variables("none", "all", "all"))
    # every output differs: the inputs are zeroed
    assert np.linalg.norm(res[0] - TRUE_FULL_OUTPUT) > 1e-4
    assert np.linalg.norm(res[1].h - TRUE_FULL_OUTPUT[1]) > 1e-4
    assert np.linalg.norm(res[1].c - TRUE_FULL_FINAL_C) > 1e-4


def test_dropout_wrapper_recurrent_output():
    def make():
        return {"input_keep_prob": tf.get_variable("all", initializer=1.0),
                "state_keep_prob": tf.get_variable("all_state", initializer=1.0)}

    res = _dropout_wrapper(make, output_keep_prob=0.8, variational_recurrent=True,
                           input_size=3, batch_size=5, time_steps=7)
    output_mask = np.abs(res[0]) > 1e-6
    for m in output_mask[1:]:  # the same dropout pattern at every step
        np.testing.assert_array_equal(output_mask[0], m)


def _check_variational_masks(res):
    output_mask = np.abs(res[0]) > 1e-6
    for time_step in output_mask:
        np.testing.assert_array_equal(output_mask[0], time_step)  # the same at every step
    state_c_mask = np.abs(res[1].c) > 1e-6
    state_h_mask = np.abs(res[1].h) > 1e-6
    assert state_c_mask.shape == state_h_mask.shape == (5, 3)


def test_dropout_wrapper_recurrent_state_input_and_output():
    res = _dropout_wrapper(input_keep_prob=0.9, output_keep_prob=0.9, state_keep_prob=0.9,
                           variational_recurrent=True, input_size=3, batch_size=5,
                           time_steps=7)
    _check_variational_masks(res)


def test_dropout_wrapper_recurrent_state_input_and_output_with_seed():
    kw = {"input_keep_prob": 0.9, "output_keep_prob": 0.9, "state_keep_prob": 0.9,
          "variational_recurrent": True, "input_size": 3, "batch_size": 5, "time_steps": 7,
          "seed": -234987, "graph_seed": 2347}
    res0 = _dropout_wrapper(**kw)
    res1 = _dropout_wrapper(**kw)
    _check_variational_masks(res0)
    _close(res0[0], res1[0])  # seeded: the same numbers
    _close(res0[1].c, res1[1].c)
    _close(res0[1].h, res1[1].h)


# ── not ported ───────────────────────────────────────────────────────────────────────
SKIPPED = {
    "RNNCellTest.testLinear": "tests core_rnn_cell._Linear, a TF internal",
    "RNNCellTest.testLSTMCellLayerNorm":
        "contrib.rnn.LayerNormLSTMCell is contrib-only (not in tf.compat.v1)",
    "RNNCellTest.testOutputProjectionWrapper":
        "contrib.rnn.OutputProjectionWrapper is contrib-only (not in tf.compat.v1)",
    "RNNCellTest.testInputProjectionWrapper":
        "contrib.rnn.InputProjectionWrapper is contrib-only (not in tf.compat.v1)",
    "RNNCellTest.testEmbeddingWrapper":
        "contrib.rnn.EmbeddingWrapper is contrib-only (not in tf.compat.v1)",
    "RNNCellTest.testEmbeddingWrapperWithDynamicRnn":
        "contrib.rnn.EmbeddingWrapper is contrib-only (not in tf.compat.v1)",
    "RNNCellTest.testDeviceWrapperDynamicExecutionNodesAreAllProperlyLocated":
        "needs a GPU and RunMetadata step stats per device",
    "SlimRNNCellTest.testBasicRNNCell": "tests rnn_cell_impl._SlimRNNCell, a TF internal",
    "SlimRNNCellTest.testBasicRNNCellMatch":
        "tests rnn_cell_impl._SlimRNNCell, a TF internal",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
