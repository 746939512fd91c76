"""TensorFlow's own RNN tests (rnn_test.py: static, dynamic, bidirectional, state-saving
and raw RNNs in graph mode), rewritten against the public API (``import scopeflow as tf``).

Each test is ours, written after the TF test of the same name (the old ``tf.nn.rnn``,
``tf.nn.bidirectional_rnn`` and ``tf.nn.state_saving_rnn`` are today's ``tf.nn.static_rnn``,
``tf.nn.static_bidirectional_rnn`` and ``tf.nn.static_state_saving_rnn``; default scopes are
today's lower-case ``rnn`` and ``bidirectional_rnn``). TF tests of benchmarks or of
behaviour TF no longer has are listed in ``SKIPPED`` with the reason. The tests use only
names that real TensorFlow's ``tf.compat.v1`` has too, so
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import tempfile

import numpy as np
from ported_harness import oracle_run
from ported_harness import raises as _raises

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None

SEED = 23489


# ── helpers ──────────────────────────────────────────────────────────────────────────


@contextlib.contextmanager
def _session():
    np.random.seed(SEED)
    with tf.Graph().as_default(), tf.Session() as sess:
        yield sess


def _close(want, got, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=atol)


def _equal(want, got):
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _flat(structure):
    return tf.nest.flatten(structure)


def _init(sess, feed_dict=None):
    sess.run(tf.global_variables_initializer(), feed_dict=feed_dict)


def _uniform(low=-0.01, high=0.01, seed=SEED):
    return tf.random_uniform_initializer(low, high, seed=seed)


def _inputs(max_length, shape, dtype=tf.float32):
    """TF's ``max_length * [placeholder]``: one placeholder for every step."""
    return max_length * [tf.placeholder(dtype, shape=shape)]


class Plus1RNNCell(tf.nn.rnn_cell.RNNCell):
    """(output, new_state) = (input + 1, state + 1)."""

    @property
    def output_size(self):
        return 5

    @property
    def state_size(self):
        return 5

    def __call__(self, input_, state, scope=None):
        return input_ + 1, state + 1


class DummyMultiDimensionalLSTM(tf.nn.rnn_cell.RNNCell):
    """(output, new_state) = (input + 1, state + 1) on inputs of any rank."""

    def __init__(self, dims):
        super().__init__()
        self._dims = dims
        self._output_size = tf.TensorShape(dims)
        self._state_size = (tf.TensorShape(dims), tf.TensorShape(dims))

    @property
    def output_size(self):
        return self._output_size

    @property
    def state_size(self):
        return self._state_size

    def __call__(self, input_, state, scope=None):
        h, c = state
        return input_ + 1, (h + 1, c + 1)


class NestedRNNCell(tf.nn.rnn_cell.RNNCell):
    """(output, new_state) = (input + 1, state + 1) on pairs of tensors."""

    @property
    def output_size(self):
        return (5, 5)

    @property
    def state_size(self):
        return (6, 6)

    def __call__(self, input_, state, scope=None):
        h, c = state
        x, y = input_
        return (x + 1, y + 1), (h + 1, c + 1)


class StateSaver:
    """Gives zeros as the saved state and records what the RNN saves."""

    def __init__(self, batch_size, state_size):
        self._batch_size = batch_size
        self._state_size = state_size
        self.saved_state = {}

    def state(self, name):
        size = self._state_size[name] if isinstance(self._state_size, dict) \
            else self._state_size
        size = (size,) if isinstance(size, int) else tuple(size)
        return tf.zeros((self._batch_size,) + size)

    def save_state(self, name, state):
        self.saved_state[name] = state
        return tf.identity(state)


def _check_scope(factory, default, prefix="prefix", use_outer_scope=True):
    """All variables made by ``factory(scope)`` live under ``prefix`` (or the default)."""
    with tf.Graph().as_default():
        if use_outer_scope:
            with tf.variable_scope(prefix) as scope:
                factory(scope)
        else:
            factory(prefix)
        all_vars = tf.global_variables()
        prefix = prefix or default
        scope_vars = [v for v in all_vars if v.name.startswith(prefix + "/")]
        assert all_vars and len(scope_vars) == len(all_vars), [v.name for v in all_vars]


def _check_scopes(factory, default):
    _check_scope(factory, default, use_outer_scope=True)
    _check_scope(factory, default, use_outer_scope=False)
    _check_scope(factory, default, prefix=None, use_outer_scope=False)


# ── RNNTest ──────────────────────────────────────────────────────────────────────────
def test_invalid_sequence_length_shape():
    with tf.Graph().as_default():
        cell = Plus1RNNCell()
        inputs = [tf.placeholder(tf.float32, shape=(3, 4))]
        with _raises(ValueError, "must be a vector"):
            tf.nn.static_rnn(cell, inputs, dtype=tf.float32, sequence_length=4)
        with _raises(ValueError, "must be a vector"):
            tf.nn.dynamic_rnn(cell, tf.stack(inputs), dtype=tf.float32,
                              sequence_length=[[4]])


def test_rnn():
    with _session() as sess:
        cell = Plus1RNNCell()
        batch_size, input_size, max_length = 2, 5, 8
        inputs = _inputs(max_length, (batch_size, input_size))
        outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        assert len(outputs) == len(inputs)
        for out, inp in zip(outputs, inputs):
            assert out.get_shape() == inp.get_shape()
            assert out.dtype == inp.dtype
        input_value = np.random.randn(batch_size, input_size)
        values = sess.run(outputs + [state], feed_dict={inputs[0]: input_value})
        for v in values[:-1]:
            _close(input_value + 1.0, v)
        _close(max_length * np.ones((batch_size, input_size), dtype=np.float32), values[-1])


def test_dropout():
    with _session() as sess:
        cell = Plus1RNNCell()
        full_dropout_cell = tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=1e-12, seed=0)
        batch_size, input_size, max_length = 2, 5, 8
        inputs = _inputs(max_length, (batch_size, input_size))
        with tf.variable_scope("share_scope"):
            outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        with tf.variable_scope("drop_scope"):
            dropped_outputs, _ = tf.nn.static_rnn(full_dropout_cell, inputs, dtype=tf.float32)
        assert len(outputs) == len(inputs)
        for out, inp in zip(outputs, inputs):
            assert out.get_shape().as_list() == inp.get_shape().as_list()
            assert out.dtype == inp.dtype
        input_value = np.random.randn(batch_size, input_size)
        values = sess.run(outputs + [state], feed_dict={inputs[0]: input_value})
        full_dropout_values = sess.run(dropped_outputs, feed_dict={inputs[0]: input_value})
        for v in values[:-1]:
            _close(input_value + 1.0, v)
        for d_v in full_dropout_values[:-1]:  # every input dropped: 0 + 1
            _close(np.ones_like(input_value), d_v)


def test_dynamic_calculation():
    with _session() as sess:
        cell = Plus1RNNCell()
        sequence_length = tf.placeholder(tf.int64)
        batch_size, input_size, max_length = 2, 5, 8
        inputs = _inputs(max_length, (batch_size, input_size))
        with tf.variable_scope("drop_scope"):
            dynamic_outputs, dynamic_state = tf.nn.static_rnn(
                cell, inputs, sequence_length=sequence_length, dtype=tf.float32)
        assert len(dynamic_outputs) == len(inputs)
        input_value = np.random.randn(batch_size, input_size)
        feeds = {inputs[0]: input_value, sequence_length: [2, 3]}
        dynamic_values = sess.run(dynamic_outputs, feed_dict=feeds)
        dynamic_state_value = sess.run([dynamic_state], feed_dict=feeds)
        for v in dynamic_values[:2]:  # every entry computes t = 0, 1
            _close(input_value + 1.0, v)
        _close(np.vstack((np.zeros(input_size), 1.0 + input_value[1, :])), dynamic_values[2])
        for v in dynamic_values[3:]:
            _equal(np.zeros_like(input_value), v)
        _equal(np.vstack((2.0 * np.ones(input_size), 3.0 * np.ones(input_size))),
               dynamic_state_value[0])


def test_scope():
    # TF's Plus1RNNCell has no variables, which would make the check vacuous: a
    # BasicRNNCell makes its variables under the RNN's scope
    def factory(scope):
        inputs = _inputs(8, (2, 5))
        return tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(5), inputs, dtype=tf.float32,
                                scope=scope)

    _check_scopes(factory, "rnn")


# ── RNNTest of today's rnn_test.py (cells defining call(), not __call__) ────────────
class CallPlus1RNNCell(tf.nn.rnn_cell.RNNCell):
    """(output, new_state) = (input + 1, state + 1), through the layer's call()."""

    @property
    def output_size(self):
        return 5

    @property
    def state_size(self):
        return 5

    def call(self, input_, state, scope=None):
        return input_ + 1, state + 1


class ScalarStateRNNCell(tf.nn.rnn_cell.RNNCell):
    """A scalar int32 state counting the steps."""

    @property
    def output_size(self):
        return 1

    @property
    def state_size(self):
        return tf.TensorShape([])

    def zero_state(self, batch_size, dtype):
        return tf.zeros([], dtype=tf.int32)

    def call(self, input_, state, scope=None):
        return input_, state + 1


class UnbalancedOutputRNNCell(ScalarStateRNNCell):
    """Two outputs of different depths."""

    @property
    def output_size(self):
        return tf.TensorShape(1), tf.TensorShape(2)

    def call(self, input_, state, scope=None):
        return (input_, tf.concat((input_, input_), axis=-1)), state + 1


class TensorArrayStateRNNCell(tf.nn.rnn_cell.RNNCell):
    """A state of a step count and a TensorArray of the inputs."""

    @property
    def output_size(self):
        return 1

    @property
    def state_size(self):
        return (tf.TensorShape([]), ())

    def zero_state(self, batch_size, dtype):
        return (tf.zeros([], dtype=tf.int32),
                tf.TensorArray(dtype=dtype, size=0, dynamic_size=True))

    def call(self, input_, state, scope=None):
        return input_, (state[0] + 1, state[1].write(state[0], input_))


def test_invalid_dtype():
    for cell_cls in [tf.nn.rnn_cell.BasicRNNCell, tf.nn.rnn_cell.GRUCell,
                     tf.nn.rnn_cell.BasicLSTMCell, tf.nn.rnn_cell.LSTMCell]:
        with tf.Graph().as_default():
            inputs = tf.placeholder(tf.int32, shape=(3, 4, 5))
            with _raises(ValueError, "RNN cell only supports floating"):
                cell = cell_cls(2, dtype=tf.int32)
                tf.nn.dynamic_rnn(cell, inputs, dtype=tf.int32)


def test_batch_size_from_input():
    with tf.Graph().as_default():
        cell = CallPlus1RNNCell()
        inputs = tf.placeholder(tf.float32, shape=(3, 4, 5))
        initial_state = tf.placeholder(tf.float32, shape=(3, 5))
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        assert outputs.shape[0] == 3 and state.shape[0] == 3
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, initial_state=initial_state)
        assert outputs.shape[0] == 3 and state.shape[0] == 3
        inputs = tf.placeholder(tf.float32, shape=(None, 4, 5))
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        assert outputs.shape.dims[0].value is None and state.shape.dims[0].value is None
        outputs, state = tf.nn.dynamic_rnn(
            cell, inputs, initial_state=tf.placeholder(tf.float32, shape=(None, 5)))
        assert outputs.shape.dims[0].value is None and state.shape.dims[0].value is None


def test_scalar_state_is_accepted():
    with _session() as sess:
        inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
        outputs, state = tf.nn.dynamic_rnn(ScalarStateRNNCell(), inputs, dtype=tf.float32,
                                           sequence_length=[4])
        outputs, state = sess.run([outputs, state],
                                  feed_dict={inputs: [[[1], [2], [3], [4]]]})
    _equal([[[1], [2], [3], [4]]], outputs)
    _equal(4, state)


def test_unbalanced_output_is_accepted():
    with _session() as sess:
        inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
        outputs, state = tf.nn.dynamic_rnn(UnbalancedOutputRNNCell(), inputs,
                                           dtype=tf.float32, sequence_length=[4])
        outputs, state = sess.run([outputs, state],
                                  feed_dict={inputs: [[[1], [2], [3], [4]]]})
    assert isinstance(outputs, tuple)
    _equal([[[1], [2], [3], [4]]], outputs[0])
    _equal([[[1, 1], [2, 2], [3, 3], [4, 4]]], outputs[1])
    _equal(4, state)


def test_tensor_array_state_is_accepted():
    with _session() as sess:
        inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
        outputs, state = tf.nn.dynamic_rnn(TensorArrayStateRNNCell(), inputs,
                                           dtype=tf.float32, sequence_length=[4])
        state = (state[0], state[1].stack())
        outputs, state = sess.run([outputs, state],
                                  feed_dict={inputs: [[[1], [2], [3], [4]]]})
    _equal([[[1], [2], [3], [4]]], outputs)
    _equal(4, state[0])
    _equal([[[1]], [[2]], [[3]], [[4]]], state[1])


def test_cell_get_initial_state():
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(5)
        with _raises(ValueError, "batch_size and dtype cannot be None"):
            cell.get_initial_state(None, None, None)
        inputs = tf.placeholder(tf.float32, shape=(None, 4, 1))
        with _raises(ValueError, "batch size from input tensor is different from"):
            cell.get_initial_state(inputs=inputs, batch_size=50, dtype=None)
        with _raises(ValueError, "batch size from input tensor is different from"):
            cell.get_initial_state(inputs=inputs, batch_size=tf.constant(50), dtype=None)
        with _raises(ValueError, "dtype from input tensor is different from"):
            cell.get_initial_state(inputs=inputs, batch_size=None, dtype=tf.int16)
        initial_state = cell.get_initial_state(inputs=inputs, batch_size=None, dtype=None)
        assert initial_state.shape.as_list() == [None, 5]
        assert initial_state.dtype == inputs.dtype
        batch = tf.shape(inputs)[0]
        initial_state = cell.get_initial_state(None, batch, inputs.dtype)
        assert initial_state.shape.as_list() == [None, 5]
        assert initial_state.dtype == inputs.dtype


def test_cells_build():
    for cell_class in [tf.nn.rnn_cell.BasicRNNCell, tf.nn.rnn_cell.BasicLSTMCell,
                       tf.nn.rnn_cell.GRUCell, tf.nn.rnn_cell.LSTMCell]:
        for dtype in [tf.float32, tf.float64]:
            with tf.Graph().as_default():
                batch_size, in_size, out_size = 5, 7, 3
                cell = cell_class(out_size, dtype=dtype)
                in_shape = tf.TensorShape((batch_size, in_size))
                cell.build(in_shape)
                state = cell.get_initial_state(inputs=None, batch_size=batch_size,
                                               dtype=dtype)
                cell_output, _ = cell(tf.zeros(in_shape, dtype), state)
                assert cell_output.shape.as_list() == [batch_size, out_size]
                assert cell_output.dtype == dtype


def test_basic_lstm_cell_interchange_with_lstm_cell():
    def bias_of(cell):
        return [v for v in cell.variables if v.op.name.endswith("/bias")][0]

    with tempfile.TemporaryDirectory() as tmp:
        with _session() as sess:
            basic_cell = tf.nn.rnn_cell.BasicLSTMCell(1)
            basic_cell(tf.ones([1, 1]), state=basic_cell.get_initial_state(
                inputs=None, batch_size=1, dtype=tf.float32))
            sess.run([v.initializer for v in basic_cell.variables])
            sess.run(bias_of(basic_cell).assign([10.] * 4))
            save_path = tf.train.Saver().save(sess, os.path.join(tmp, "ckpt"))
        with _session() as sess:
            lstm_cell = tf.nn.rnn_cell.LSTMCell(1, name="basic_lstm_cell")
            lstm_cell(tf.ones([1, 1]), state=lstm_cell.get_initial_state(
                inputs=None, batch_size=1, dtype=tf.float32))
            sess.run([v.initializer for v in lstm_cell.variables])
            tf.train.Saver().restore(sess, save_path)
            _equal([10.] * 4, sess.run(bias_of(lstm_cell)))


# ── GRUTest ──────────────────────────────────────────────────────────────────────────
def test_gru_dynamic():
    time_steps, num_units, input_size, batch_size = 8, 3, 5, 2
    np.random.seed(SEED)
    input_values = np.random.randn(time_steps, batch_size, input_size)
    sequence_length = np.random.randint(0, time_steps, size=batch_size)
    with _session() as sess:
        concat_inputs = tf.placeholder(tf.float32, shape=(time_steps, batch_size, input_size))
        cell = tf.nn.rnn_cell.GRUCell(num_units=num_units)
        with tf.variable_scope("dynamic_scope"):
            outputs_dynamic, state_dynamic = tf.nn.dynamic_rnn(
                cell, inputs=concat_inputs, sequence_length=sequence_length,
                time_major=True, dtype=tf.float32)
        feeds = {concat_inputs: input_values}
        _init(sess, feeds)
        out, state = sess.run([outputs_dynamic, state_dynamic], feed_dict=feeds)
        assert out.shape == (time_steps, batch_size, num_units)
        for b in range(batch_size):  # past each sequence's end: zeros, the state copied
            _equal(np.zeros((time_steps - sequence_length[b], num_units)),
                   out[sequence_length[b]:, b])
            if sequence_length[b] > 0:
                _close(out[sequence_length[b] - 1, b], state[b])


def test_gru_dynamic_scope():
    time_steps, num_units, input_size, batch_size = 8, 3, 5, 2
    np.random.seed(SEED)
    sequence_length = np.random.randint(0, time_steps, size=batch_size)

    def factory(scope):
        concat_inputs = tf.placeholder(tf.float32, shape=(time_steps, batch_size, input_size))
        cell = tf.nn.rnn_cell.GRUCell(num_units=num_units)
        return tf.nn.dynamic_rnn(cell, inputs=concat_inputs, sequence_length=sequence_length,
                                 time_major=True, dtype=tf.float32, scope=scope)

    _check_scopes(factory, "rnn")


# ── LSTMTest ─────────────────────────────────────────────────────────────────────────
NUM_UNITS, INPUT_SIZE, BATCH_SIZE, NUM_PROJ, MAX_LENGTH = 3, 5, 2, 4, 8


def test_no_proj_no_sharding():
    with _session() as sess:
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, initializer=_uniform(), state_is_tuple=False)
        inputs = _inputs(MAX_LENGTH, (BATCH_SIZE, INPUT_SIZE))
        outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        assert len(outputs) == len(inputs)
        for out in outputs:
            assert out.get_shape().as_list() == [BATCH_SIZE, NUM_UNITS]
        _init(sess)
        values = sess.run(outputs, feed_dict={inputs[0]: np.random.randn(BATCH_SIZE,
                                                                          INPUT_SIZE)})
        assert np.all(np.isfinite(values))


def test_cell_clipping():
    with _session() as sess:
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, cell_clip=0.0,
                                       initializer=_uniform(), state_is_tuple=False)
        inputs = _inputs(MAX_LENGTH, (BATCH_SIZE, INPUT_SIZE))
        outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        for out in outputs:
            assert out.get_shape().as_list() == [BATCH_SIZE, NUM_UNITS]
        _init(sess)
        values = sess.run(outputs, feed_dict={inputs[0]: np.random.randn(BATCH_SIZE,
                                                                          INPUT_SIZE)})
    for value in values:  # c clipped to 0: tanh(c) = 0, so m = 0
        _equal(np.zeros((BATCH_SIZE, NUM_UNITS)), value)


def test_no_proj_no_sharding_simple_state_saver():
    with _session() as sess:
        state_saver = StateSaver(BATCH_SIZE, 2 * NUM_UNITS)
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=False,
                                       initializer=_uniform(), state_is_tuple=False)
        inputs = _inputs(MAX_LENGTH, (BATCH_SIZE, INPUT_SIZE))
        with tf.variable_scope("share_scope"):
            outputs, state = tf.nn.static_state_saving_rnn(
                cell, inputs, state_saver=state_saver, state_name="save_lstm")
        assert len(outputs) == len(inputs)
        for out in outputs:
            assert out.get_shape().as_list() == [BATCH_SIZE, NUM_UNITS]
        _init(sess)
        last, saved = sess.run([state, state_saver.saved_state["save_lstm"]],
                               feed_dict={inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)})
        _equal(last, saved)


def test_no_proj_no_sharding_tuple_state_saver():
    with _session() as sess:
        state_saver = StateSaver(BATCH_SIZE, NUM_UNITS)
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=False,
                                       initializer=_uniform(), state_is_tuple=True)
        inputs = _inputs(MAX_LENGTH, (BATCH_SIZE, INPUT_SIZE))
        with tf.variable_scope("share_scope"):
            outputs, state = tf.nn.static_state_saving_rnn(
                cell, inputs, state_saver=state_saver, state_name=("c", "m"))
        assert len(outputs) == len(inputs)
        for out in outputs:
            assert out.get_shape().as_list() == [BATCH_SIZE, NUM_UNITS]
        _init(sess)
        got = sess.run(state + (state_saver.saved_state["c"], state_saver.saved_state["m"]),
                       feed_dict={inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)})
        assert len(got) == 4
        _equal(got[:2], got[2:])


def test_no_proj_no_sharding_nested_tuple_state_saver():
    with _session() as sess:
        sizes = {}
        for i in range(4):
            sizes[f"c{i}"] = sizes[f"m{i}"] = NUM_UNITS + i
        state_saver = StateSaver(BATCH_SIZE, sizes)
        initializer = _uniform()
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.LSTMCell(NUM_UNITS + i, use_peepholes=False,
                                     initializer=initializer, state_is_tuple=True)
             for i in range(4)], state_is_tuple=True)
        assert len(cell.state_size) == 4
        for i in range(4):
            assert len(cell.state_size[i]) == 2
        inputs = _inputs(MAX_LENGTH, (BATCH_SIZE, INPUT_SIZE))
        state_names = (("c0", "m0"), ("c1", "m1"), ("c2", "m2"), ("c3", "m3"))
        with tf.variable_scope("share_scope"):
            outputs, state = tf.nn.static_state_saving_rnn(
                cell, inputs, state_saver=state_saver, state_name=state_names)
        assert len(outputs) == len(inputs)
        for out in outputs:  # the last cell's state size
            assert out.get_shape().as_list() == [BATCH_SIZE, NUM_UNITS + 3]
        _init(sess)
        feed = {inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)}
        last_states = sess.run(_flat(state), feed_dict=feed)
        saved = sess.run(dict(state_saver.saved_state), feed_dict=feed)
        assert len(last_states) == 8 and len(saved) == 8
        for i, name in enumerate(_flat(state_names)):
            _equal(last_states[i], saved[name])


def test_proj_no_sharding():
    with _session() as sess:
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                       initializer=_uniform(), state_is_tuple=False)
        outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        assert len(outputs) == len(inputs)
        _init(sess)
        values = sess.run(outputs, feed_dict={inputs[0]: np.random.randn(BATCH_SIZE,
                                                                          INPUT_SIZE)})
        assert values[0].shape == (BATCH_SIZE, NUM_PROJ)


def test_state_tuple_with_proj_and_sequence_length():
    sequence_length = [4, 6]
    with _session() as sess:
        initializer = _uniform()
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
        cell_notuple = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True,
                                               num_proj=NUM_PROJ, initializer=initializer,
                                               state_is_tuple=False)
        cell_tuple = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                             initializer=initializer, state_is_tuple=True)
        outputs_notuple, state_notuple = tf.nn.static_rnn(
            cell_notuple, inputs, dtype=tf.float32, sequence_length=sequence_length)
        tf.get_variable_scope().reuse_variables()
        outputs_tuple, state_tuple = tf.nn.static_rnn(
            cell_tuple, inputs, dtype=tf.float32, sequence_length=sequence_length)
        assert len(outputs_notuple) == len(inputs) == len(outputs_tuple)
        assert isinstance(state_tuple, tuple)
        assert isinstance(state_notuple, tf.Tensor)
        _init(sess)
        feed = {inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)}
        # TF's test wants equality; TF 2.21 itself differs in the last bit (the two cells'
        # matmuls are fused differently), so both compare to float32 precision
        _close(sess.run(outputs_notuple, feed_dict=feed), sess.run(outputs_tuple, feed))
        (state_notuple_v,) = sess.run((state_notuple,), feed_dict=feed)
        state_tuple_v = sess.run(state_tuple, feed_dict=feed)
        _close(state_notuple_v, np.hstack(state_tuple_v))


def _sharded_cell(initializer, dtype_shards=(2, 3)):
    return tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                   num_unit_shards=dtype_shards[0],
                                   num_proj_shards=dtype_shards[1],
                                   initializer=initializer, state_is_tuple=False)


def test_proj_sharding():
    with _session() as sess:
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
        outputs, _ = tf.nn.static_rnn(_sharded_cell(_uniform()), inputs, dtype=tf.float32)
        assert len(outputs) == len(inputs)
        _init(sess)
        values = sess.run(outputs, feed_dict={inputs[0]: np.random.randn(BATCH_SIZE,
                                                                          INPUT_SIZE)})
        assert values[0].shape == (BATCH_SIZE, NUM_PROJ)


def test_double_input():
    with _session() as sess:
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE), tf.float64)
        cell = _sharded_cell(_uniform(-1, 1))
        outputs, _ = tf.nn.static_rnn(cell, inputs,
                                      initial_state=cell.zero_state(BATCH_SIZE, tf.float64))
        assert len(outputs) == len(inputs)
        _init(sess)
        input_value = np.asarray(np.random.randn(BATCH_SIZE, INPUT_SIZE), dtype=np.float64)
        values = sess.run(outputs, feed_dict={inputs[0]: input_value})
        assert values[0].dtype == input_value.dtype


def test_shard_no_shard_equivalent_output():
    with _session() as sess:
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
        initializer = tf.constant_initializer(0.001)
        cell_noshard = _sharded_cell(initializer)
        cell_shard = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True,
                                             initializer=initializer, num_proj=NUM_PROJ,
                                             state_is_tuple=False)
        with tf.variable_scope("noshard_scope"):
            outputs_noshard, state_noshard = tf.nn.static_rnn(cell_noshard, inputs,
                                                              dtype=tf.float32)
        with tf.variable_scope("shard_scope"):
            outputs_shard, state_shard = tf.nn.static_rnn(cell_shard, inputs,
                                                          dtype=tf.float32)
        assert len(outputs_noshard) == len(inputs) == len(outputs_shard)
        _init(sess)
        input_value = np.random.randn(BATCH_SIZE, INPUT_SIZE)
        feeds = {x: input_value for x in inputs}
        values_noshard = sess.run(outputs_noshard, feed_dict=feeds)
        values_shard = sess.run(outputs_shard, feed_dict=feeds)
        _close(values_noshard, values_shard, atol=1e-3)
        _close(sess.run(state_noshard, feeds), sess.run(state_shard, feeds), atol=1e-3)


def test_double_input_with_dropout_and_dynamic_calculation():
    with _session() as sess:
        sequence_length = tf.placeholder(tf.int64)
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE), tf.float64)
        cell = _sharded_cell(_uniform())
        dropout_cell = tf.nn.rnn_cell.DropoutWrapper(cell, 0.5, seed=0)
        outputs, state = tf.nn.static_rnn(dropout_cell, inputs,
                                          sequence_length=sequence_length,
                                          initial_state=cell.zero_state(BATCH_SIZE,
                                                                        tf.float64))
        assert len(outputs) == len(inputs)
        _init(sess, {sequence_length: [2, 3]})
        input_value = np.asarray(np.random.randn(BATCH_SIZE, INPUT_SIZE), dtype=np.float64)
        feeds = {inputs[0]: input_value, sequence_length: [2, 3]}
        values = sess.run(outputs, feed_dict=feeds)
        state_value = sess.run([state], feed_dict=feeds)
        assert values[0].dtype == input_value.dtype
        assert state_value[0].dtype == input_value.dtype


def test_sharing_weights_with_reuse():
    with _session() as sess:
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                       initializer=_uniform(-1, 1), state_is_tuple=False)
        cell_d = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                         initializer=_uniform(-1, 1, SEED + 1),
                                         state_is_tuple=False)
        with tf.variable_scope("share_scope"):
            outputs0, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        with tf.variable_scope("share_scope", reuse=True):
            outputs1, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        with tf.variable_scope("diff_scope"):
            outputs2, _ = tf.nn.static_rnn(cell_d, inputs, dtype=tf.float32)
        _init(sess)
        values = sess.run(outputs0 + outputs1 + outputs2,
                          feed_dict={inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)})
        v0, v1, v2 = (values[:MAX_LENGTH], values[MAX_LENGTH:2 * MAX_LENGTH],
                      values[2 * MAX_LENGTH:])
        assert len(v0) == len(v1) == len(v2)
        for o1, o2, o3 in zip(v0, v1, v2):
            _equal(o1, o2)  # the same weights
            assert np.linalg.norm(o1 - o3) > 1e-6  # different weights


def test_sharing_weights_with_different_namescope():
    with _session() as sess:
        inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                       initializer=_uniform(-1, 1), state_is_tuple=False)
        with tf.name_scope("scope0"):
            with tf.variable_scope("share_scope"):
                outputs0, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        with tf.name_scope("scope1"):
            with tf.variable_scope("share_scope", reuse=True):
                outputs1, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        _init(sess)
        values = sess.run(outputs0 + outputs1,
                          feed_dict={inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)})
        for out0, out1 in zip(values[:MAX_LENGTH], values[MAX_LENGTH:]):
            _equal(out0, out1)


def test_dynamic_rnn_allows_unknown_time_dimension():
    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, shape=[1, None, 20])
        outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(30), inputs, dtype=tf.float32)
        assert outputs.get_shape().as_list() == [1, None, 30]


def _static_and_dynamic(cell, sequence_length):
    inputs = _inputs(MAX_LENGTH, (None, INPUT_SIZE))
    outputs_static, state_static = tf.nn.static_rnn(cell, inputs, dtype=tf.float32,
                                                    sequence_length=sequence_length)
    tf.get_variable_scope().reuse_variables()
    outputs_dynamic, state_dynamic = tf.nn.dynamic_rnn(
        cell, tf.stack(inputs), dtype=tf.float32, time_major=True,
        sequence_length=sequence_length)
    return inputs, outputs_static, state_static, outputs_dynamic, state_dynamic


def test_dynamic_rnn_with_tuple_states():
    with _session() as sess:
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, num_proj=NUM_PROJ,
                                       initializer=_uniform(), state_is_tuple=True)
        inputs, outputs_static, state_static, outputs_dynamic, state_dynamic = \
            _static_and_dynamic(cell, [4, 6])
        assert isinstance(state_static, tf.nn.rnn_cell.LSTMStateTuple)
        assert isinstance(state_dynamic, tf.nn.rnn_cell.LSTMStateTuple)
        assert state_static[0] is state_static.c and state_static[1] is state_static.h
        assert state_dynamic[0] is state_dynamic.c and state_dynamic[1] is state_dynamic.h
        _init(sess)
        feed = {inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)}
        _equal(sess.run(outputs_static, feed), sess.run(outputs_dynamic, feed))
        _equal(np.hstack(sess.run(state_static, feed)),
               np.hstack(sess.run(state_dynamic, feed)))


def test_dynamic_rnn_with_nested_tuple_states():
    with _session() as sess:
        initializer = _uniform()
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.LSTMCell(NUM_UNITS + i, use_peepholes=True, num_proj=NUM_PROJ + i,
                                     initializer=initializer, state_is_tuple=True)
             for i in range(4)], state_is_tuple=True)
        assert len(cell.state_size) == 4
        for i in range(4):
            assert len(cell.state_size[i]) == 2
        test_zero = cell.zero_state(1, tf.float32)
        assert len(test_zero) == 4
        for i in range(4):
            assert test_zero[i][0].get_shape()[1] == cell.state_size[i][0]
            assert test_zero[i][1].get_shape()[1] == cell.state_size[i][1]
        inputs, outputs_static, state_static, outputs_dynamic, state_dynamic = \
            _static_and_dynamic(cell, [4, 6])
        _init(sess)
        feed = {inputs[0]: np.random.randn(BATCH_SIZE, INPUT_SIZE)}
        _equal(sess.run(outputs_static, feed), sess.run(outputs_dynamic, feed))
        _equal(np.hstack(sess.run(_flat(state_static), feed)),
               np.hstack(sess.run(_flat(state_dynamic), feed)))


def _static_or_dynamic_readouts(input_values, sequence_length, dynamic):
    time_steps, batch_size, input_size = input_values.shape
    with _session() as sess:
        concat_inputs = tf.placeholder(tf.float32, shape=(time_steps, batch_size, input_size))
        inputs = tf.unstack(concat_inputs)
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, initializer=_uniform(),
                                       num_proj=NUM_PROJ, state_is_tuple=False)
        with tf.variable_scope("dynamic_scope"):
            if dynamic:
                outputs, state = tf.nn.dynamic_rnn(
                    cell, inputs=concat_inputs, sequence_length=sequence_length,
                    time_major=True, dtype=tf.float32)
                outputs = tf.unstack(outputs, time_steps)
            else:
                outputs, state = tf.nn.static_rnn(cell, inputs, sequence_length=sequence_length,
                                                  dtype=tf.float32)
        feeds = {concat_inputs: input_values}
        _init(sess, feeds)
        gradients = tf.gradients(outputs + [state], [concat_inputs])
        individual_gradients = _flat([tf.gradients(y, [concat_inputs])
                                      for y in [outputs[0], outputs[-1], state]])
        trainable_variables = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
        assert len(trainable_variables) > 1, len(trainable_variables)
        variable_gradients = _flat([tf.gradients(y, trainable_variables)
                                    for y in [outputs[0], outputs[-1], state]])
        return [sess.run(x, feed_dict=feeds)
                for x in (outputs, state, gradients, individual_gradients, variable_gradients)]


def _check_dynamic_equivalent_to_static_rnn(use_sequence_length):
    np.random.seed(SEED)
    input_values = np.random.randn(8, 2, INPUT_SIZE)
    sequence_length = np.random.randint(0, 8, size=2) if use_sequence_length else None
    static = _static_or_dynamic_readouts(input_values, sequence_length, dynamic=False)
    dynamic = _static_or_dynamic_readouts(input_values, sequence_length, dynamic=True)
    # TF's test wants equality; TF 2.21 itself differs in the last bits between the
    # unrolled and the while-loop graph, so the values compare to float32 precision
    for s, d in zip(static, dynamic):
        assert len(s) == len(d)
        for a, b in zip(s, d):
            _close(a, b, atol=1e-6)


def test_dynamic_equivalent_to_static_rnn():
    _check_dynamic_equivalent_to_static_rnn(use_sequence_length=False)


def test_dynamic_equivalent_to_static_rnn_with_sequence_length():
    _check_dynamic_equivalent_to_static_rnn(use_sequence_length=True)


# ── BidirectionalRNNTest ─────────────────────────────────────────────────────────────
def _create_bidirectional_rnn(use_shape, use_sequence_length, scope=None):
    num_units, input_size, batch_size, max_length = 3, 5, 2, 8
    initializer = _uniform()
    sequence_length = tf.placeholder(tf.int64) if use_sequence_length else None
    cell_fw = tf.nn.rnn_cell.LSTMCell(num_units, initializer=initializer,
                                      state_is_tuple=False)
    cell_bw = tf.nn.rnn_cell.LSTMCell(num_units, initializer=initializer,
                                      state_is_tuple=False)
    inputs = _inputs(max_length, (batch_size if use_shape else None, input_size))
    outputs, state_fw, state_bw = tf.nn.static_bidirectional_rnn(
        cell_fw, cell_bw, inputs, dtype=tf.float32, sequence_length=sequence_length,
        scope=scope)
    assert len(outputs) == len(inputs)
    for out in outputs:
        assert out.get_shape().as_list() == [batch_size if use_shape else None,
                                             2 * num_units]
    input_value = np.random.randn(batch_size, input_size)
    return input_value, inputs, tf.stack(outputs), state_fw, state_bw, sequence_length


def _check_forward_is_backward_reversed(out, lengths):
    """Both directions have the same weights: the forward output at time t is the
    backward output at time length - 1 - t, over each sequence's length."""
    for b, length in enumerate(lengths):
        for t in range(length):
            _equal(out[t][b][0:3], out[length - 1 - t][b][3:6])


def test_bidirectional_rnn():
    for use_shape in (False, True):
        with _session() as sess:
            input_value, inputs, outputs, state_fw, state_bw, sequence_length = \
                _create_bidirectional_rnn(use_shape, True)
            _init(sess)
            out, s_fw, s_bw = sess.run([outputs, state_fw, state_bw],
                                       feed_dict={inputs[0]: input_value,
                                                  sequence_length: [2, 3]})
            _check_forward_is_backward_reversed(out, [2, 3])
            _close(s_fw, s_bw)


def test_bidirectional_rnn_without_sequence_length():
    for use_shape in (False, True):
        with _session() as sess:
            input_value, inputs, outputs, state_fw, state_bw, _ = \
                _create_bidirectional_rnn(use_shape, False)
            _init(sess)
            out, s_fw, s_bw = sess.run([outputs, state_fw, state_bw],
                                       feed_dict={inputs[0]: input_value})
            _check_forward_is_backward_reversed(out, [8, 8])
            _close(s_fw, s_bw)


def _create_bidirectional_dynamic_rnn(use_shape, use_state_tuple, use_time_major,
                                      scope=None):
    num_units, input_size, batch_size, max_length = 3, 5, 2, 8
    initializer = _uniform()
    sequence_length = tf.placeholder(tf.int64)
    cell_fw = tf.nn.rnn_cell.LSTMCell(num_units, initializer=initializer,
                                      state_is_tuple=use_state_tuple)
    cell_bw = tf.nn.rnn_cell.LSTMCell(num_units, initializer=initializer,
                                      state_is_tuple=use_state_tuple)
    inputs = _inputs(max_length, (batch_size if use_shape else None, input_size))
    inputs_c = tf.stack(inputs)
    if not use_time_major:
        inputs_c = tf.transpose(inputs_c, [1, 0, 2])
    outputs, states = tf.nn.bidirectional_dynamic_rnn(
        cell_fw, cell_bw, inputs_c, sequence_length, dtype=tf.float32,
        time_major=use_time_major, scope=scope)
    outputs = tf.concat(outputs, 2)
    state_fw, state_bw = states
    outputs_shape = [None, max_length, 2 * num_units]
    if use_shape:
        outputs_shape[0] = batch_size
    if use_time_major:
        outputs_shape[0], outputs_shape[1] = outputs_shape[1], outputs_shape[0]
    assert outputs.get_shape().as_list() == outputs_shape
    input_value = np.random.randn(batch_size, input_size)
    return input_value, inputs, outputs, state_fw, state_bw, sequence_length


def test_bidirectional_dynamic_rnn():
    for use_shape, use_state_tuple, use_time_major in itertools.product([True, False],
                                                                         repeat=3):
        with _session() as sess:
            input_value, inputs, outputs, state_fw, state_bw, sequence_length = \
                _create_bidirectional_dynamic_rnn(use_shape, use_state_tuple, use_time_major)
            _init(sess)
            out, s_fw, s_bw = sess.run([outputs, state_fw, state_bw],
                                       feed_dict={inputs[0]: input_value,
                                                  sequence_length: [2, 3]})
            if not use_time_major:
                out = np.swapaxes(out, 0, 1)
            _check_forward_is_backward_reversed(out, [2, 3])
            _close(np.hstack(_flat(s_fw)), np.hstack(_flat(s_bw)))


def test_bidirectional_rnn_scope():
    def factory(scope):
        return _create_bidirectional_rnn(use_shape=True, use_sequence_length=True,
                                         scope=scope)

    _check_scopes(factory, "bidirectional_rnn")


def test_bidirectional_dynamic_rnn_scope():
    for use_time_major in (True, False):
        def factory(scope, use_time_major=use_time_major):
            return _create_bidirectional_dynamic_rnn(use_shape=True, use_state_tuple=True,
                                                     use_time_major=use_time_major,
                                                     scope=scope)

        _check_scopes(factory, "bidirectional_rnn")


# ── MultiDimensionalLSTMTest, NestedLSTMTest ─────────────────────────────────────────
def test_multi_dimensional_lstm_all_rnn_containers():
    feature_dims = (3, 4, 5)
    batch_size, max_length, sequence_length = 2, 8, [4, 6]
    with _session() as sess:
        inputs = _inputs(max_length, (None,) + feature_dims)
        inputs_using_dim = _inputs(max_length, (batch_size,) + feature_dims)
        inputs_c = tf.stack(inputs)
        cell = DummyMultiDimensionalLSTM(feature_dims)  # no variables: one for all
        state_saver = StateSaver(batch_size, feature_dims)
        outputs_static, state_static = tf.nn.static_rnn(
            cell, inputs, dtype=tf.float32, sequence_length=sequence_length)
        outputs_dynamic, state_dynamic = tf.nn.dynamic_rnn(
            cell, inputs_c, dtype=tf.float32, time_major=True,
            sequence_length=sequence_length)
        outputs_bid, state_bid_fw, state_bid_bw = tf.nn.static_bidirectional_rnn(
            cell, cell, inputs_using_dim, dtype=tf.float32, sequence_length=sequence_length)
        outputs_sav, state_sav = tf.nn.static_state_saving_rnn(
            cell, inputs_using_dim, sequence_length=sequence_length,
            state_saver=state_saver, state_name=("h", "c"))
        for out, inp in zip(outputs_static, inputs):
            assert out.get_shape().as_list() == inp.get_shape().as_list()
        assert outputs_dynamic.get_shape().as_list() == inputs_c.get_shape().as_list()
        for out, inp in zip(outputs_bid, inputs_using_dim):
            shape = inp.get_shape().as_list()
            shape[1] *= 2  # forward and backward concatenated on the second dimension
            assert out.get_shape().as_list() == shape
        _init(sess)
        input_value = np.random.randn(batch_size, *feature_dims)
        feed = {inputs[0]: input_value}
        feed_dim = {inputs_using_dim[0]: input_value}
        outputs_static_v = sess.run(outputs_static, feed)
        _equal(outputs_static_v, sess.run(outputs_dynamic, feed))
        _equal(outputs_static_v, sess.run(outputs_sav, feed_dim))
        doubled = np.concatenate((outputs_static_v, outputs_static_v), axis=2)
        _equal(doubled, np.array(sess.run(outputs_bid, feed_dim)))
        state_static_v = np.hstack(sess.run(state_static, feed))
        _equal(state_static_v, np.hstack(sess.run(state_dynamic, feed)))
        _equal(state_static_v, np.hstack(sess.run(state_sav, feed_dim)))
        _equal(state_static_v, np.hstack(sess.run(state_bid_fw, feed_dim)))
        _equal(state_static_v, np.hstack(sess.run(state_bid_bw, feed_dim)))


def test_nested_io_lstm_all_rnn_containers():
    input_size, batch_size, state_size, max_length = 5, 2, 6, 8
    sequence_length = [4, 6]
    with _session() as sess:
        state_saver = StateSaver(batch_size, state_size)
        single_input = (tf.placeholder(tf.float32, shape=(None, input_size)),
                        tf.placeholder(tf.float32, shape=(None, input_size)))
        inputs = max_length * [single_input]
        inputs_c = (tf.stack([x[0] for x in inputs]), tf.stack([x[1] for x in inputs]))
        single_input_using_dim = (tf.placeholder(tf.float32, shape=(batch_size, input_size)),
                                  tf.placeholder(tf.float32, shape=(batch_size, input_size)))
        inputs_using_dim = max_length * [single_input_using_dim]
        cell = NestedRNNCell()  # no variables: one for all
        outputs_dynamic, state_dynamic = tf.nn.dynamic_rnn(
            cell, inputs_c, dtype=tf.float32, time_major=True,
            sequence_length=sequence_length)
        outputs_static, state_static = tf.nn.static_rnn(
            cell, inputs, dtype=tf.float32, sequence_length=sequence_length)
        outputs_bid, state_bid_fw, state_bid_bw = tf.nn.static_bidirectional_rnn(
            cell, cell, inputs_using_dim, dtype=tf.float32, sequence_length=sequence_length)
        outputs_sav, state_sav = tf.nn.static_state_saving_rnn(
            cell, inputs_using_dim, sequence_length=sequence_length,
            state_saver=state_saver, state_name=("h", "c"))

        def same_shape(input1, input2, double=False):
            for inp1, inp2 in zip(_flat(input1), _flat(input2)):
                shape = inp1.get_shape().as_list()
                if double:
                    shape[1] *= 2
                assert shape == inp2.get_shape().as_list()

        same_shape(inputs_c, outputs_dynamic)
        same_shape(inputs, outputs_static)
        same_shape(inputs_using_dim, outputs_sav)
        same_shape(inputs_using_dim, outputs_bid, double=True)
        _init(sess)
        input_value = (np.random.randn(batch_size, input_size),
                       np.random.randn(batch_size, input_size))
        feed = {single_input: input_value}
        feed_dim = {single_input_using_dim: input_value}
        outputs_static_v = sess.run(outputs_static, feed)
        _equal(outputs_static_v,
               np.transpose(sess.run(outputs_dynamic, feed), (1, 0, 2, 3)))
        _equal(outputs_static_v, sess.run(outputs_sav, feed_dim))
        doubled = np.concatenate((outputs_static_v, outputs_static_v), axis=3)
        _equal(doubled, np.array(sess.run(outputs_bid, feed_dim)))
        state_static_v = np.hstack(sess.run(state_static, feed))
        _equal(state_static_v, np.hstack(sess.run(state_dynamic, feed)))
        _equal(state_static_v, np.hstack(sess.run(state_sav, feed_dim)))
        _equal(state_static_v, np.hstack(sess.run(state_bid_fw, feed_dim)))
        _equal(state_static_v, np.hstack(sess.run(state_bid_bw, feed_dim)))


# ── RawRNNTest ───────────────────────────────────────────────────────────────────────
def _check_raw_rnn(max_time):
    batch_size, input_depth, num_units = 16, 4, 3
    with _session() as sess:
        inputs = tf.placeholder(shape=(max_time, batch_size, input_depth), dtype=tf.float32)
        sequence_length = tf.placeholder(shape=(batch_size,), dtype=tf.int32)
        inputs_ta = tf.TensorArray(dtype=tf.float32, size=tf.shape(inputs)[0])
        inputs_ta = inputs_ta.unstack(inputs)
        cell = tf.nn.rnn_cell.LSTMCell(num_units, state_is_tuple=True)

        def loop_fn(time_, cell_output, cell_state, unused_loop_state):
            emit_output = cell_output  # None at time 0
            if cell_output is None:
                next_state = cell.zero_state(batch_size, tf.float32)
            else:
                next_state = cell_state
            elements_finished = time_ >= sequence_length
            finished = tf.reduce_all(elements_finished)
            next_input = tf.cond(  # a dummy input for the very last step
                finished, lambda: tf.zeros([batch_size, input_depth], dtype=tf.float32),
                lambda: inputs_ta.read(time_))
            return elements_finished, next_input, next_state, emit_output, None

        outputs_ta, final_state, _ = tf.nn.raw_rnn(cell, loop_fn)
        outputs = outputs_ta.stack()
        tf.get_variable_scope().reuse_variables()
        outputs_dynamic_rnn, final_state_dynamic_rnn = tf.nn.dynamic_rnn(
            cell, inputs, time_major=True, dtype=tf.float32, sequence_length=sequence_length)
        variables = tf.trainable_variables()
        gradients = tf.gradients([outputs, final_state], [inputs] + variables)
        gradients_dynamic_rnn = tf.gradients([outputs_dynamic_rnn, final_state_dynamic_rnn],
                                             [inputs] + variables)
        _init(sess)
        rand_input = np.random.randn(max_time, batch_size, input_depth)
        if max_time == 0:
            rand_seq_len = np.zeros(batch_size)
        else:
            rand_seq_len = np.random.randint(max_time, size=batch_size)
        rand_seq_len[0] = max_time  # the same output lengths for both
        feed = {inputs: rand_input, sequence_length: rand_seq_len}
        outputs_val, outputs_dynamic_rnn_val, final_state_val, final_state_dynamic_rnn_val = \
            sess.run([outputs, outputs_dynamic_rnn, final_state, final_state_dynamic_rnn],
                     feed_dict=feed)
        _close(outputs_dynamic_rnn_val, outputs_val)
        _close(final_state_dynamic_rnn_val, final_state_val)
        # with 0 steps raw_rnn knows no input shape, so TF compares no gradients
        if max_time > 0:
            assert len(gradients) == len(gradients_dynamic_rnn)
            gradients_val = sess.run(gradients, feed_dict=feed)
            gradients_dynamic_rnn_val = sess.run(gradients_dynamic_rnn, feed_dict=feed)
            for a, b in zip(gradients_val, gradients_dynamic_rnn_val):
                _close(b, a)


def test_raw_rnn_zero_length():
    _check_raw_rnn(max_time=0)


def test_raw_rnn():
    _check_raw_rnn(max_time=10)


def _loop_fn_reading(inputs_ta, cell, batch_size, input_depth, max_time, emit=None,
                     loop_state_fn=None):
    def loop_fn(time_, cell_output, cell_state, loop_state):
        if cell_output is None:
            next_state = cell.zero_state(batch_size, tf.float32)
        else:
            next_state = cell_state
        emit_output = emit(cell_output) if emit else cell_output
        if loop_state_fn is not None:
            loop_state = loop_state_fn(time_, cell_output, loop_state)
        elements_finished = tf.tile([time_ >= max_time], [batch_size])
        finished = tf.reduce_all(elements_finished)
        next_input = tf.cond(
            finished, lambda: tf.zeros([batch_size, input_depth], dtype=tf.float32),
            lambda: inputs_ta.read(time_))
        return elements_finished, next_input, next_state, emit_output, loop_state
    return loop_fn


def _inputs_ta(max_time, batch_size, input_depth):
    inputs = np.random.randn(max_time, batch_size, input_depth).astype(np.float32)
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=tf.shape(inputs)[0])
    return inputs_ta.unstack(inputs)


def test_loop_state():
    max_time, batch_size, input_depth, num_units = 10, 16, 4, 3
    with _session() as sess:
        cell = tf.nn.rnn_cell.LSTMCell(num_units, state_is_tuple=True)

        def loop_state_fn(time_, cell_output, loop_state):
            if cell_output is None:
                return tf.constant([0])
            return tf.stack([tf.squeeze(loop_state) + 1])

        loop_fn = _loop_fn_reading(_inputs_ta(max_time, batch_size, input_depth), cell,
                                   batch_size, input_depth, max_time,
                                   loop_state_fn=loop_state_fn)
        r = tf.nn.raw_rnn(cell, loop_fn)
        _init(sess)
        _equal([10], sess.run(r[-1]))


def test_loop_state_with_tensor_array():
    max_time, batch_size, input_depth, num_units = 4, 16, 4, 3
    with _session() as sess:
        cell = tf.nn.rnn_cell.LSTMCell(num_units, state_is_tuple=True)

        def loop_state_fn(time_, cell_output, loop_state):
            if cell_output is None:
                loop_state = tf.TensorArray(dynamic_size=True, size=0, dtype=tf.int32,
                                            clear_after_read=False)
                return loop_state.write(0, 1)
            return loop_state.write(time_, loop_state.read(time_ - 1) + time_)

        loop_fn = _loop_fn_reading(_inputs_ta(max_time, batch_size, input_depth), cell,
                                   batch_size, input_depth, max_time,
                                   loop_state_fn=loop_state_fn)
        r = tf.nn.raw_rnn(cell, loop_fn)
        _init(sess)
        _equal([1, 2, 2 + 2, 4 + 3, 7 + 4], sess.run(r[-1].stack()))


def test_emit_different_structure_than_cell_output():
    max_time, batch_size, input_depth, num_units = 10, 16, 4, 3
    with _session() as sess:
        cell = tf.nn.rnn_cell.LSTMCell(num_units, state_is_tuple=True)

        def emit(cell_output):
            if cell_output is None:
                return (tf.zeros([2, 3], dtype=tf.int32), tf.zeros([1], dtype=tf.int64))
            return (tf.ones([batch_size, 2, 3], dtype=tf.int32),
                    tf.ones([batch_size, 1], dtype=tf.int64))

        loop_fn = _loop_fn_reading(_inputs_ta(max_time, batch_size, input_depth), cell,
                                   batch_size, input_depth, max_time, emit=emit)
        output_ta = tf.nn.raw_rnn(cell, loop_fn)[0]
        assert len(output_ta) == 2
        assert [ta.dtype for ta in output_ta] == [tf.int32, tf.int64]
        _init(sess)
        output_vals = sess.run([ta.stack() for ta in output_ta])
        _equal(np.ones((max_time, batch_size, 2, 3), np.int32), output_vals[0])
        _equal(np.ones((max_time, batch_size, 1), np.int64), output_vals[1])
        assert output_vals[0].dtype == np.int32 and output_vals[1].dtype == np.int64


def test_raw_rnn_scope():
    max_time, batch_size, input_depth, num_units = 10, 16, 4, 3

    def factory(scope):
        inputs = tf.placeholder(shape=(max_time, batch_size, input_depth), dtype=tf.float32)
        sequence_length = tf.placeholder(shape=(batch_size,), dtype=tf.int32)
        inputs_ta = tf.TensorArray(dtype=tf.float32, size=tf.shape(inputs)[0])
        inputs_ta = inputs_ta.unstack(inputs)
        cell = tf.nn.rnn_cell.LSTMCell(num_units, state_is_tuple=True)

        def loop_fn(time_, cell_output, cell_state, unused_loop_state):
            next_state = cell.zero_state(batch_size, tf.float32) if cell_output is None \
                else cell_state
            elements_finished = time_ >= sequence_length
            finished = tf.reduce_all(elements_finished)
            next_input = tf.cond(
                finished, lambda: tf.zeros([batch_size, input_depth], dtype=tf.float32),
                lambda: inputs_ta.read(time_))
            return elements_finished, next_input, next_state, cell_output, None

        return tf.nn.raw_rnn(cell, loop_fn, scope=scope)

    _check_scopes(factory, "rnn")


# ── StateSaverRNNTest ────────────────────────────────────────────────────────────────
def test_state_saver_rnn_scope():
    def factory(scope):
        state_saver = StateSaver(BATCH_SIZE, 2 * NUM_UNITS)
        cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=False,
                                       initializer=_uniform(), state_is_tuple=False)
        inputs = _inputs(MAX_LENGTH, (BATCH_SIZE, INPUT_SIZE))
        return tf.nn.static_state_saving_rnn(cell, inputs, state_saver=state_saver,
                                             state_name="save_lstm", scope=scope)

    _check_scopes(factory, "rnn")


# ── not ported ───────────────────────────────────────────────────────────────────────
SKIPPED = {
    "testTooManyShards":
        "TF 2.21's LSTMCell no longer refuses num_proj_shards > num_proj (it builds the "
        "partitioned projection without error), so the TF test's ValueError is gone",
    "StateSaverRNNTest.testStateSaverCallsSaveState":
        "TF skips it itself (b/124196246: the state/save_state call counts differ, 2 != 1)",
    "testEagerMemory": "checks eager execution leaks no Python objects: eager-only",
    "testRNNWithKerasSimpleRNNCell / testRNNWithKerasGRUCell / testRNNWithStackKerasCell / "
    "testRNNWithKerasLSTMCell / testStaticRNNWithKerasSimpleRNNCell / "
    "testRNNCellSerialization / testRNNCellActsLikeKerasRNNCellInProperScope":
        "run Keras v2 recurrent cells (tf.keras.layers.*Cell) in dynamic_rnn, not the TF1 API",
    "testDynamicCalculation / testDynamic / ... (use_gpu=True halves)":
        "run the same graph on a GPU device; there is one device here",
    "benchmarks (graph_creation_static_vs_dynamic_rnn_benchmark, "
    "static_vs_dynamic_rnn_benchmark, half_seq_len_vs_unroll_half_rnn_benchmark, "
    "concat_state_vs_tuple_state_rnn_benchmark, dynamic_rnn_swap_memory_benchmark, "
    "rnn_long_sequence_benchmark)":
        "timing benchmarks, not tests",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
