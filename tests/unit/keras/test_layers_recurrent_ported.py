"""tf_keras's own tests of the recurrent layers (tf_keras/layers/rnn/simple_rnn_test.py,
run for ``SimpleRNN``, ``GRU`` and ``LSTM`` as its gru_v1/lstm_v1 siblings do), rewritten
against the public API in graph mode (``import scopeflow as tf``, ``tf.keras``).

``_layer_test`` stands for tf_keras's ``test_utils.layer_test``: it calls the layer on an
``Input``, checks the static output shape, predicts random data through a model and remakes
the layer from its config. Eager-only and v2-only tests are in ``SKIPPED``.
``test_real_tensorflow_passes_these_tests`` runs this very file under the oracle with
``scopeflow`` standing for ``tensorflow.compat.v1``: every test here is one TF passes.
"""

from __future__ import annotations

import functools

import numpy as np
from ported_harness import oracle_run

import scopeflow as tf

try:
    import pytest
except ImportError:  # under the oracle, whose virtualenv has no pytest
    pytest = None

keras = tf.keras


def _in_graph(fn):
    """Runs the test in a graph of its own (Keras's session follows the default graph)."""
    @functools.wraps(fn)
    def wrapper():
        with tf.Graph().as_default():
            fn()
    return wrapper


def _layer_test(cls, kwargs=None, input_shape=None, expected_output_shape=None):
    kwargs = kwargs or {}
    data = np.random.random(input_shape).astype(np.float32)
    layer = cls(**kwargs)
    x = keras.layers.Input(shape=input_shape[1:])
    y = layer(x)
    expected = tuple(layer.compute_output_shape(tf.TensorShape((None,) + input_shape[1:]))
                     .as_list())
    assert tuple(y.shape.as_list()) == expected
    if expected_output_shape is not None:
        assert expected == tuple(expected_output_shape)
    model = keras.models.Model(x, y)
    out = model.predict(data)
    assert out.shape == (input_shape[0],) + expected[1:]
    remade = cls.from_config(layer.get_config())
    assert remade.get_config() == layer.get_config() or type(remade) is cls
    return out


RNN_CLASSES = ("SimpleRNN", "GRU", "LSTM")


def _classes():
    return [getattr(keras.layers, name) for name in RNN_CLASSES]


@_in_graph
def test_return_sequences():
    for cls in _classes():
        _layer_test(cls, {"units": 2, "return_sequences": True}, input_shape=(2, 3, 4))


@_in_graph
def test_dynamic_behavior():
    for cls in _classes():
        model = keras.models.Sequential()
        model.add(cls(2, input_shape=(None, 4)))
        model.compile("rmsprop", "mse")
        model.train_on_batch(np.random.random((2, 3, 4)), np.random.random((2, 2)))


@_in_graph
def test_dropout():
    for cls in _classes():
        _layer_test(cls, {"units": 2, "dropout": 0.1, "recurrent_dropout": 0.1},
                    input_shape=(2, 3, 4))


@_in_graph
def test_implementation_mode():
    for cls in _classes():
        for mode in [0, 1, 2]:
            _layer_test(cls, {"units": 2, "implementation": mode}, input_shape=(2, 3, 4))


@_in_graph
def test_constraints():
    for cls in _classes():
        k, r, b = (keras.constraints.max_norm(0.01) for _ in range(3))
        layer = cls(5, return_sequences=False, weights=None, input_shape=(None, 4),
                    kernel_constraint=k, recurrent_constraint=r, bias_constraint=b)
        layer.build((None, None, 4))
        assert layer.cell.kernel.constraint is k
        assert layer.cell.recurrent_kernel.constraint is r
        assert layer.cell.bias.constraint is b


@_in_graph
def test_with_masking_layer():
    for cls in _classes():
        inputs = np.random.random((2, 3, 4))
        targets = np.abs(np.random.random((2, 3, 5)))
        targets /= targets.sum(axis=-1, keepdims=True)
        model = keras.models.Sequential()
        model.add(keras.layers.Masking(input_shape=(3, 4)))
        model.add(cls(units=5, return_sequences=True, unroll=False))
        model.compile(loss="categorical_crossentropy", optimizer="rmsprop")
        model.fit(inputs, targets, epochs=1, batch_size=2, verbose=0)


@_in_graph
def test_from_config():
    for cls in _classes():
        for stateful in (False, True):
            l1 = cls(units=1, stateful=stateful)
            l2 = cls.from_config(l1.get_config())
            assert l1.get_config() == l2.get_config()


@_in_graph
def test_regularizers():
    for cls in _classes():
        layer = cls(5, return_sequences=False, weights=None, input_shape=(None, 4),
                    kernel_regularizer=keras.regularizers.l1(0.01),
                    recurrent_regularizer=keras.regularizers.l1(0.01),
                    bias_regularizer="l2", activity_regularizer="l1")
        layer.build((None, None, 2))
        assert len(layer.losses) == 3


@_in_graph
def test_statefulness():
    num_samples, timesteps, embedding_dim, units = 2, 3, 4, 2
    for cls in _classes():
        model = keras.models.Sequential()
        model.add(keras.layers.Embedding(4, embedding_dim, mask_zero=True,
                                         input_length=timesteps,
                                         batch_input_shape=(num_samples, timesteps)))
        layer = cls(units, return_sequences=False, stateful=True, weights=None)
        model.add(layer)
        model.compile(optimizer=tf.train.GradientDescentOptimizer(0.01), loss="mse")
        ones = np.ones((num_samples, timesteps))
        out1 = model.predict(ones)
        assert out1.shape == (num_samples, units)
        # Train once so that the states change.
        model.train_on_batch(ones, np.ones((num_samples, units)))
        out2 = model.predict(ones)
        # Without a reset of the states, the output differs.
        assert out1.max() != out2.max()
        # After a reset, the output changes (the model itself did not).
        layer.reset_states()
        out3 = model.predict(ones)
        assert out2.max() != out3.max()
        # The container's reset_states() works.
        model.reset_states()
        out4 = model.predict(ones)
        np.testing.assert_allclose(out3, out4, atol=1e-5)
        # predict updated the states.
        out5 = model.predict(ones)
        assert out4.max() != out5.max()
        # Masking: left and right padding give the same final state.
        layer.reset_states()
        left_padded = np.ones((num_samples, timesteps))
        left_padded[0, :1] = 0
        left_padded[1, :2] = 0
        out6 = model.predict(left_padded)
        layer.reset_states()
        right_padded = np.ones((num_samples, timesteps))
        right_padded[0, -1:] = 0
        right_padded[1, -2:] = 0
        out7 = model.predict(right_padded)
        np.testing.assert_allclose(out7, out6, atol=1e-5)


@_in_graph
def test_get_initial_states():
    batch_size = 4
    cell = keras.layers.SimpleRNNCell(20)
    initial_state = cell.get_initial_state(batch_size=batch_size, dtype=tf.float32)
    _, state = cell(np.ones((batch_size, 20), dtype=np.float32), initial_state)
    assert state.shape.as_list() == initial_state.shape.as_list()


SKIPPED = {
    "SimpleRNNLayerTest.test_float64_SimpleRNN": "run_v2_only",
    "SimpleRNNLayerTest.test_cloned_weight_names": "run_v2_only (clone_model)",
    "SimpleRNNLayerTest.test_deep_copy_SimpleRNN": "copy.deepcopy of a layer",
}

if pytest is not None:
    @pytest.mark.parametrize("name", sorted(SKIPPED))
    def test_skipped_tf_test(name):
        pytest.skip(SKIPPED[name])


# ── the same tests under real TensorFlow ──────────────────────────────────────────────
run_all, test_real_tensorflow_passes_these_tests = oracle_run(globals(), __file__)
